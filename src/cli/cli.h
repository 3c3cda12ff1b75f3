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
/* g16 info for bellperson .params / .vk files (cmd_params.c), chosen by extension. */
int cmd_info_is_params(const char *path);
int cmd_info_params(const char *path);
#ifdef G16_HAVE_CLIENT
/* g16 client: g16d's HTTP API (cmd_client.c, daemon builds only). Exit
 * codes: 0 ok, 1 job failed/cancelled, 2 usage, 3 server/HTTP error, 4 wait
 * timed out. */
int cmd_client(int argc, char **argv);
#endif

/* Monotonic milliseconds (the CLI links the library's internals). */
double g16_cli_now_ms(void);

#endif
