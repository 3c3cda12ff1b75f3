/* g16: command-line front end. `g16` alone prints the short usage and exits
 * 2 (no command is a usage error); `g16 --help`, `-h` and `g16 help` print
 * the command list and exit 0; `g16 help COMMAND [SUBCOMMAND]` and
 * `g16 COMMAND --help` print that command's help; `g16 help --man` writes
 * the man page (roff) that the build installs as g16.1. */
#include <stdio.h>
#include <string.h>

#include "../../bench/bench_main.h"
#include "args.h"
#include "cli.h"
#include "g16.h"
#include "progress.h"
#include "gpu/gpu.h"

static const cli_cmd CLI_SELFCHECK = {
    .name = "selfcheck",
    .summary = "Run the library's self-test (fields, curves, pairing, a small proof) and print its report.",
    .synopsis = "",
    .description = "Exit status 0 when every check passes, 1 when one fails.",
    .example = "g16 selfcheck",
};

static const cli_cmd CLI_OPTIONS = {
    .name = "options",
    .summary = "Print the library's options (docs/config.md) with their effective values, as JSON.",
    .synopsis = "",
    .description = "Each option's environment variable is read as the value when set.",
    .example = "g16 options | jq '.[] | select(.name == \"gpu.msm_window_bits\")'",
};

enum { H_MAN = CLI_ID };
static const cli_opt HELP_OPTS[] = {{"man", H_MAN, NULL, "write the man page (roff) on stdout"}, {NULL, 0, NULL, NULL}};
static const cli_cmd CLI_HELP_CMD = {
    .name = "help",
    .opts = HELP_OPTS,
    .summary = "Print the list of commands, or one command's help.",
    .synopsis = "[COMMAND [SUBCOMMAND]]\n--man",
    .description = "--man writes the whole help as a man page (roff) on stdout; the build installs it as g16(1).",
    .example = "g16 help prove\ng16 help client submit\ng16 help --man > g16.1 && man -l g16.1",
};

typedef struct command {
    const cli_cmd *spec;
    int (*run)(int argc, char **argv);
} command;

static int run_selfcheck(int argc, char **argv);
static int run_options(int argc, char **argv);
static int run_help(int argc, char **argv);
#ifndef G16_HAVE_CLIENT
const cli_cmd CLI_CLIENT = {
    .name = "client",
    .summary = "Talk to g16d over its HTTP API (not in this build: it was built without the daemon).",
    .synopsis = "...",
};
static int run_no_client(int argc, char **argv) {
    (void)argc, (void)argv;
    fputs("g16 client: this build has no daemon support\n", stderr);
    return 2;
}
#endif

static const command COMMANDS[] = {
    {&CLI_PROVE, cmd_prove},
    {&CLI_VERIFY, cmd_verify},
    {&CLI_INFO, cmd_info},
    {&CLI_ZKEY, cmd_zkey},
    {&CLI_SETUP, cmd_setup},
    {&CLI_SYNTH, cmd_synth},
#ifdef G16_HAVE_CLIENT
    {&CLI_CLIENT, cmd_client},
#else
    {&CLI_CLIENT, run_no_client},
#endif
    {&CLI_BENCH, bench_main},
    {&CLI_SELFCHECK, run_selfcheck},
    {&CLI_OPTIONS, run_options},
    {&CLI_HELP_CMD, run_help},
};
#define NCOMMANDS (int)(sizeof COMMANDS / sizeof COMMANDS[0])

static const command *find_command(const char *name) {
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(COMMANDS[i].spec->name, name))
            return &COMMANDS[i];
    return NULL;
}

/* "g16: unknown command 'x'; did you mean 'y'?" (names: the candidates). */
static int unknown(const char *what, const char *word, const char *const *names, int n, const char *try_cmd) {
    const char *near = cli_nearest(word, names, n);
    fprintf(stderr, "g16: unknown %s '%s'", what, word);
    if (near)
        fprintf(stderr, "; did you mean '%s'?", near);
    fprintf(stderr, "\nTry '%s'.\n", try_cmd);
    return 2;
}

static void short_usage(FILE *f) {
    fputs("usage: g16 COMMAND [OPTIONS] [ARGS]\n"
          "       g16 --help | --version | help COMMAND\n"
          "commands:",
          f);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, " %s", COMMANDS[i].spec->name);
    fputc('\n', f);
}

static void top_help(FILE *f) {
    fprintf(f,
            "usage: g16 COMMAND [OPTIONS] [ARGS]\n"
            "       g16 --help | --version | help COMMAND\n\n"
            "g16 %s: a Groth16 prover and verifier for circom/snarkjs files (BN254 and\n"
            "BLS12-381), on the CPU or on NVIDIA GPUs. Its prove command takes rapidsnark's\n"
            "and snarkjs's arguments.\n\n"
            "Commands:\n",
            g16_version());
    for (int i = 0; i < NCOMMANDS; i++)
    {
        fprintf(f, "  %-10s ", COMMANDS[i].spec->name);
        cli_wrap(f, COMMANDS[i].spec->summary, 13, 13);
    }
    fputs("\nOptions:\n"
          "  -h, --help     print this help and exit\n"
          "  -V, --version  print the version, the git commit, the CUDA backend and the\n"
          "                 GPUs, and exit\n"
          "  -q, --quiet    any command: no progress line on a terminal (docs/cli.md)\n\n"
          "'g16 COMMAND --help' (or 'g16 help COMMAND') shows a command's options and an example.\n"
          "Options take their value as '--opt value' or '--opt=value'. Exit status: 0 success,\n"
          "1 a negative result (a proof that does not verify), 2 a usage or input error.\n\n"
          "Example:\n"
          "  g16 prove circuit.zkey witness.wtns proof.json public.json\n"
          "  g16 verify verification_key.json public.json proof.json\n",
          f);
}

/* g16 --version: the library's version, the commit, the CUDA backend and
 * the GPUs seen (none without a driver: never an error). */
static int print_version(void) {
    printf("g16 %s\ncommit: %s\n", g16_version(), g16_cli_git_commit);
#ifdef G16_HAVE_CUDA
    char note[256];
    int n = g16_gpu_probe(note, sizeof note);
    printf("cuda: built in (%s)\ngpus: %d\n", note, n);
    for (int d = 0; d < n; d++) {
        char desc[256];
        g16_gpu_describe(d, desc, sizeof desc);
        printf("gpu %d: %s\n", d, desc);
    }
#else
    puts("cuda: not built in\ngpus: 0");
#endif
    return 0;
}

static const char MAN_EXTRA[] =
    ".SH EXIT STATUS\n"
    "0 success; 1 a negative result (a proof that does not verify, a failed self-check, a failed job of\n"
    ".BR \"g16 client\" );\n"
    "2 a usage or input error (a bad option, a missing or malformed file);\n"
    ".B g16 client\n"
    "also returns 3 for a server or HTTP error and 4 when\n"
    ".B \\-\\-timeout\n"
    "elapsed.\n"
    ".SH FILES\n"
    "Batch proofs are written as\n"
    ".IR DIR /proof\\- i .json\n"
    "and\n"
    ".IR DIR /public\\- i .json,\n"
    "where\n"
    ".I i\n"
    "is the witness's position from 0, by both\n"
    ".B g16 prove \\-\\-batch\n"
    "and\n"
    ".BR \"g16 client wait \\-\\-out\" .\n"
    "Curves are printed as bn254 and bls12\\-381; bn128, alt_bn128, bls12381 and bls12_381 are accepted\n"
    "on input, and JSON files keep snarkjs's spelling (\"bn128\", \"bls12381\").\n"
    ".SH ENVIRONMENT\n"
    "Every library option has an environment variable\n"
    ".RB ( \"g16 options\"\n"
    "lists them; docs/config.md).\n"
    ".B G16D_URL\n"
    "and\n"
    ".B G16D_TOKEN\n"
    "are the defaults of\n"
    ".B g16 client \\-\\-url\n"
    "and\n"
    ".BR \\-\\-token .\n"
    ".SH SEE ALSO\n"
    ".BR g16d (8),\n"
    ".BR snarkjs (1)\n";

static int run_help(int argc, char **argv) {
    cli_parse p;
    cli_init(&p, &CLI_HELP_CMD, argc, argv, 0);
    int c, man = 0;
    while ((c = cli_next(&p)) > 0)
        man |= c == H_MAN;
    if (c != CLI_END)
        return cli_exit(c);
    if (man) {
        const cli_cmd *cmds[NCOMMANDS];
        for (int i = 0; i < NCOMMANDS; i++)
            cmds[i] = COMMANDS[i].spec;
        char desc[1024];
        snprintf(desc, sizeof desc,
                 "g16 %s proves and verifies Groth16 proofs from circom and snarkjs files (.zkey, .wtns, .r1cs, "
                 "proof.json, public.json, verification_key.json) on BN254 and BLS12-381, on the CPU or, when "
                 "built with CUDA, on NVIDIA GPUs. Its prove command is a drop-in for rapidsnark's prover and "
                 "snarkjs groth16 prove: the same arguments and byte-identical JSON.\n\n"
                 "Options take their value as --opt value or --opt=value, and may come before, between or after "
                 "the operands; -- ends the options. g16 COMMAND --help prints a command's help.",
                 g16_version());
        cli_man(stdout, "g16", 1, "Groth16 prover and verifier for circom and snarkjs files", desc, cmds, NCOMMANDS,
                MAN_EXTRA);
        return 0;
    }
    char **ops = p.argv + p.optind;
    int nops = p.argc - p.optind;
    if (nops == 0) {
        top_help(stdout);
        return 0;
    }
    const command *cmd = find_command(ops[0]);
    if (!cmd) {
        const char *names[NCOMMANDS];
        for (int i = 0; i < NCOMMANDS; i++)
            names[i] = COMMANDS[i].spec->name;
        return unknown("command", ops[0], names, NCOMMANDS, "g16 help");
    }
    const cli_cmd *spec_c = cmd->spec;
    if (nops >= 2 && spec_c->subs) { /* g16 help client submit, g16 help client keys add */
        char want[128];
        snprintf(want, sizeof want, "%s %s%s%s", spec_c->name, ops[1], nops >= 3 ? " " : "", nops >= 3 ? ops[2] : "");
        for (const cli_cmd *const *s = spec_c->subs; *s; s++)
            if (!strcmp((*s)->name, want)) {
                cli_help(stdout, *s);
                return 0;
            }
        fprintf(stderr, "g16 help: '%s' has no subcommand '%s'\n", spec_c->name, want + strlen(spec_c->name) + 1);
        return 2;
    }
    cli_help(stdout, spec_c);
    return 0;
}

static int no_operands(const cli_cmd *spec, int argc, char **argv) {
    cli_parse p;
    cli_init(&p, spec, argc, argv, 0);
    int c = cli_next(&p);
    if (c != CLI_END)
        return c > 0 ? 2 : cli_exit(c);
    if (p.optind < argc)
        return cli_usage_error(spec, "takes no operands ('%s')", argv[p.optind]);
    return -1;
}

static int run_options(int argc, char **argv) {
    int rc = no_operands(&CLI_OPTIONS, argc, argv);
    if (rc >= 0)
        return rc;
    char *js = NULL;
    g16_ctx *ctx = g16_ctx_create(NULL);
    g16_err err = ctx ? g16_ctx_options_json(ctx, &js, 1) : G16_ERR_NOMEM;
    if (js)
        puts(js);
    g16_free(js);
    g16_ctx_destroy(ctx);
    return err == G16_OK ? 0 : 1;
}

static int run_selfcheck(int argc, char **argv) {
    int rc = no_operands(&CLI_SELFCHECK, argc, argv);
    if (rc >= 0)
        return rc;
    g16_ctx *ctx = g16_ctx_create(NULL);
    char buf[2048];
    g16_err err = g16_selfcheck(ctx, buf, sizeof buf);
    fputs(buf, stdout);
    g16_ctx_destroy(ctx);
    return err == G16_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    cli_quiet_take(&argc, argv); /* --quiet / -q, any command (progress.h) */
    if (argc < 2) {
        short_usage(stderr);
        return 2;
    }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
        top_help(stdout);
        return 0;
    }
    if (!strcmp(a, "--version") || !strcmp(a, "-V"))
        return print_version();
    const command *cmd = find_command(a);
    if (!cmd) {
        if (a[0] == '-') {
            static const char *const top[] = {"--version", "--help", "-V", "-h"};
            return unknown("option", a, top, 4, "g16 --help");
        }
        const char *names[NCOMMANDS];
        for (int i = 0; i < NCOMMANDS; i++)
            names[i] = COMMANDS[i].spec->name;
        return unknown("command", a, names, NCOMMANDS, "g16 --help");
    }
    /* Help needs no valid environment; every other command checks every
     * option's environment variable first (docs/config.md). */
    int wants_help = cmd->run == run_help;
    for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
        wants_help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
    if (!wants_help) {
        char emsg[512];
        if (g16_env_check(emsg, sizeof emsg) != G16_OK) {
            fprintf(stderr, "g16: %s\n", emsg);
            return 2;
        }
    }
    return cmd->run(argc - 1, argv + 1);
}
