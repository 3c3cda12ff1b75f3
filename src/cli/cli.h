/* Subcommands of the g16 CLI. Each takes argv starting at its own name and
 * returns the process exit code (0 ok, 1 negative result, 2 error). */
#ifndef G16_CLI_H
#define G16_CLI_H

#include "g16.h"

int cmd_synth(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_zkey(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_setup(int argc, char **argv);

/* Monotonic milliseconds (the CLI links the library's internals). */
double g16_cli_now_ms(void);

#endif
