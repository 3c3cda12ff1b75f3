/* Subcommands of the g16 CLI. Each takes argv starting at its own name and
 * returns the process exit code (0 ok, 1 negative result, 2 error). */
#ifndef G16_CLI_H
#define G16_CLI_H

#include "g16.h"

int cmd_synth(int argc, char **argv);

#endif
