/* The g16 CLI's commands and options as tables: one table per command is
 * the parser's input (getopt_long: `--opt value`, `--opt=value`, short
 * options where a row has a letter, options and operands in any order, `--`
 * ends the options), the text of `--help` and `g16 help`, and the man page
 * (`g16 help --man`, written at build time). A new option is one row in its
 * command's table and one case in the command's switch. */
#ifndef G16_CLI_ARGS_H
#define G16_CLI_ARGS_H

#include <getopt.h>
#include <stdio.h>

/* One option of a command. */
typedef struct cli_opt {
    const char *name; /* long name without "--"; NULL ends a table */
    int id;           /* what cli_next returns: the short letter when the option has one, else >= CLI_ID */
    const char *arg;  /* the value's name in help ("N", "FILE", "cpu|cuda|auto"); NULL: a flag */
    const char *help; /* one sentence */
} cli_opt;

enum { CLI_ID = 256 };

/* One command (or subcommand: name holds the whole path, "client submit"). */
typedef struct cli_cmd {
    const char *name;                  /* the words after "g16" */
    const char *summary;               /* one line, for `g16 help` and the man page's list */
    const char *synopsis;              /* the operands after the name, one form per line ('\n') */
    const char *description;           /* paragraphs separated by "\n\n"; NULL: none */
    const cli_opt *opts;               /* NULL-name terminated; NULL: none (--help is always there) */
    const char *example;               /* shell lines separated by '\n' */
    const struct cli_cmd *const *subs; /* NULL-terminated subcommands, or NULL */
    const char *prog;                  /* "g16" when NULL; "g16d" for the daemon's page */
} cli_cmd;

/* cli_next's results besides an option id. */
enum { CLI_END = -1, CLI_HELP = -2, CLI_ERR = -3 };
/* cli_init flags: stop at the first operand (a command's global options
 * before its subcommand); the command has no -h/--help of its own. */
enum { CLI_STOP_AT_OPERAND = 1 };

#define CLI_MAX_OPTS 96 /* rows of one table (cli_init reports a longer one) */

typedef struct cli_parse {
    const cli_cmd *cmd;
    int argc;
    char **argv;
    const char *arg; /* the value of the option cli_next returned (NULL for a flag) */
    int optind;      /* after CLI_END: argv[optind..argc) are the operands, in order */
    struct option lo[CLI_MAX_OPTS + 2];
    char so[3 * CLI_MAX_OPTS + 8];
} cli_parse;

/* Parses argv (argv[0] is the command's own word) against cmd's table. */
void cli_init(cli_parse *p, const cli_cmd *cmd, int argc, char **argv, int flags);
/* The next option's id, with p->arg its value; CLI_END when the options are
 * done; CLI_HELP after `-h`/`--help` printed cmd's help on stdout; CLI_ERR
 * after an unknown option (with the nearest one suggested) or a missing
 * value was reported on stderr. */
int cli_next(cli_parse *p);
/* The exit code for a CLI_HELP (0) or CLI_ERR (2) result. */
static inline int cli_exit(int c) { return c == CLI_HELP ? 0 : 2; }
/* The value following the current option's (an option that takes two, as
 * --insecure-test-rs R S); NULL, after reporting it, when there is none. */
const char *cli_next_value(cli_parse *p);

/* "g16 CMD: <message>" and "Try 'g16 CMD --help'." on stderr; returns 2. */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Strict numbers of the current option (p->arg): an integer in [lo, hi] or
 * an unsigned 64-bit integer (decimal or 0x-hex); 0 after reporting a bad one. */
int cli_int(const cli_parse *p, long long lo, long long hi, long long *out);
int cli_u64(const cli_parse *p, unsigned long long *out);

/* The full help of cmd (usage, description, options, subcommands, example). */
void cli_help(FILE *f, const cli_cmd *cmd);
/* text word-wrapped at 79 columns, the cursor at column col, continuation
 * lines indented to indent; ends the line. */
void cli_wrap(FILE *f, const char *text, int col, int indent);
/* "usage: ..." lines of cmd (its synopsis forms). */
void cli_usage(FILE *f, const cli_cmd *cmd);
/* The nearest of n names to s by edit distance (NULL when none is close). */
const char *cli_nearest(const char *s, const char *const *names, int n);

/* A man page (roff, man(7) macros) of cmds: the NAME line of the first is
 * title/summary, then each command's synopsis, options and examples under
 * COMMANDS; extra (roff, may be NULL) is appended as is. */
void cli_man(FILE *f, const char *title, int section, const char *summary, const char *description,
             const cli_cmd *const *cmds, int ncmds, const char *extra);
/* s as roff text: backslashes, leading dots and apostrophes, dashes escaped. */
void cli_roff(FILE *f, const char *s);

#endif
