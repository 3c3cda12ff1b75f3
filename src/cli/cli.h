/* Subcommands of the g16 CLI. Each takes argv starting at its own name and
 * returns the process exit code (0 ok, 1 negative result, 2 error). */
#ifndef G16_CLI_H
#define G16_CLI_H

#include <stddef.h>

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
/* bellperson partitions (cmd_params.c): g16 info x.assignment, g16 prove
 * --params, g16 verify --params, g16 synth --r1cs --wtns --assignment. */
int cmd_info_is_assignment(const char *path);
int cmd_info_assignment(const char *path);
int cmd_prove_params(int argc, char **argv);
int cmd_verify_params(int argc, char **argv);
/* quiet: no JSON summary line on stdout */
int cmd_synth_assignment(const char *r1cs, const char *wtns, const char *out, int quiet);
#ifdef G16_HAVE_CLIENT
/* g16 client: g16d's HTTP API (cmd_client.c, daemon builds only). Exit
 * codes: 0 ok, 1 job failed/cancelled, 2 usage, 3 server/HTTP error, 4 wait
 * timed out. */
int cmd_client(int argc, char **argv);
#endif

/* 1 when no output names the same file as an input or another output
 * (util/file.h's g16_check_outputs); else prints "g16 <cmd>: <why>" and
 * returns 0: the command then exits 2 before any work. */
int g16_cli_outputs_ok(const char *cmd, const char *const *inputs, size_t n_inputs, const char *const *outputs,
                       size_t n_outputs);

/* Monotonic milliseconds (clock.c; the clock of the library's g16_now_ms). */
double g16_cli_now_ms(void);

#endif
