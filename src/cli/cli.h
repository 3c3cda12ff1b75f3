/* Subcommands of the g16 CLI. Each takes argv starting at its own name and
 * returns the process exit code (0 ok, 1 negative result, 2 error). */
#ifndef G16_CLI_H
#define G16_CLI_H

#include <stddef.h>

#include "args.h"
#include "g16.h"

/* Each command's table (args.h): its options, --help and man page text. */
extern const cli_cmd CLI_PROVE, CLI_VERIFY, CLI_ZKEY, CLI_INFO, CLI_SETUP, CLI_SYNTH, CLI_CLIENT;

int cmd_synth(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_zkey(int argc, char **argv);
/* g16 zkey export solidityverifier | soliditycalldata (cmd_solidity.c); argv from "export". */
int cmd_zkey_export(int argc, char **argv);
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

/* mkdir -p dir: 0, or -1 with why (why_len bytes) naming the part that
 * could not be created or is not a folder. */
int g16_cli_mkdirs(const char *dir, char *why, size_t why_len);

/* The source tree's git commit ("unknown" outside a checkout), written
 * at build time (cmake/gitrev.cmake). */
extern const char g16_cli_git_commit[];

/* Monotonic milliseconds (clock.c; the clock of the library's g16_now_ms). */
double g16_cli_now_ms(void);

#endif
