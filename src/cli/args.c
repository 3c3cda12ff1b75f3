/* Option parsing, help, suggestions and man pages from the command tables
 * (args.h). */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *prog_of(const cli_cmd *c) { return c->prog ? c->prog : "g16"; }

/* "g16 prove", or "g16d" for a command without a name. */
static const char *full_name(const cli_cmd *c) {
    static _Thread_local char b[160];
    snprintf(b, sizeof b, "%s%s%s", prog_of(c), c->name[0] ? " " : "", c->name);
    return b;
}
static const char *cur_name(const cli_parse *p);

void cli_init(cli_parse *p, const cli_cmd *cmd, int argc, char **argv, int flags) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    /* ':' first (after '+'): a missing value is reported as ':'; opterr off:
     * every message is ours. */
    char *s = p->so;
    if (flags & CLI_STOP_AT_OPERAND)
        *s++ = '+';
    *s++ = ':';
    *s++ = 'h';
    int n = 0;
    for (const cli_opt *o = cmd->opts; o && o->name && n < CLI_MAX_OPTS; o++, n++) {
        p->lo[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
        if (o->id > 0 && o->id < CLI_ID) {
            *s++ = (char)o->id;
            if (o->arg)
                *s++ = ':';
        }
    }
    if (cmd->opts && cmd->opts[n].name) /* a programming error: raise CLI_MAX_OPTS */
        fprintf(stderr, "%s: internal: more than %d options; the rest are ignored\n", full_name(cmd), CLI_MAX_OPTS);
    p->lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
    p->lo[n] = (struct option){0, 0, 0, 0};
    *s = 0;
    optind = 0; /* glibc: a full re-initialization (a second parse in the process) */
    opterr = 0;
}

/* The option names of p's table, "--name" and "-x", for suggestions. */
static int option_names(const cli_parse *p, const char **names, char (*buf)[72], int cap) {
    int n = 0;
    for (int i = 0; p->lo[i].name && n < cap; i++) {
        snprintf(buf[n], sizeof buf[n], "--%s", p->lo[i].name);
        names[n] = buf[n];
        n++;
    }
    return n;
}

int cli_next(cli_parse *p) {
    int idx = -1;
    int c = getopt_long(p->argc, p->argv, p->so, p->lo, &idx);
    p->optind = optind;
    p->arg = optarg;
    if (c == -1)
        return CLI_END;
    const char *cn = full_name(p->cmd);
    if (c == 'h') {
        cli_help(stdout, p->cmd);
        return CLI_HELP;
    }
    if (c == '?' || c == ':') {
        /* The offending word: a short option's letter, else the element
         * getopt just stepped over, without its "=value". */
        char word[128];
        const char *el = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
        if (optopt && optopt < CLI_ID && !(el[0] == '-' && el[1] == '-'))
            snprintf(word, sizeof word, "-%c", optopt);
        else
            snprintf(word, sizeof word, "%.*s", (int)strcspn(el, "="), el);
        if (c == ':') {
            const char *arg = "a value";
            for (const cli_opt *o = p->cmd->opts; o && o->name; o++)
                if (o->id == optopt && o->arg)
                    arg = o->arg;
            fprintf(stderr, "%s: option %s needs a value (%s)\n", cn, word, arg);
        } else {
            const char *names[CLI_MAX_OPTS + 2];
            char buf[CLI_MAX_OPTS + 2][72];
            int n = option_names(p, names, buf, CLI_MAX_OPTS + 2);
            int ambiguous = 0;
            if (word[0] == '-' && word[1] == '-' && word[2]) {
                size_t wl = strlen(word);
                int hits = 0;
                for (int i = 0; i < n; i++)
                    hits += !strncmp(names[i], word, wl);
                ambiguous = hits > 1;
            }
            const char *near = ambiguous ? NULL : cli_nearest(word, names, n);
            fprintf(stderr, "%s: %s option '%s'", cn, ambiguous ? "ambiguous" : "unknown", word);
            if (near)
                fprintf(stderr, "; did you mean '%s'?", near);
            fputc('\n', stderr);
        }
        fprintf(stderr, "Try '%s --help'.\n", cn);
        return CLI_ERR;
    }
    return c;
}

const char *cli_next_value(cli_parse *p) {
    if (optind >= p->argc) {
        cli_usage_error(p->cmd, "%s takes two values", cur_name(p));
        return NULL;
    }
    const char *v = p->argv[optind++];
    p->optind = optind;
    return v;
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", full_name(cmd));
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", full_name(cmd));
    va_end(ap);
    return 2;
}

/* The name of the option p returned last, for messages. */
static const char *cur_name(const cli_parse *p) {
    const char *el = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
    /* "--opt=v" or "v" (the value of "--opt v"): the element before */
    if (el == p->arg && optind >= 2)
        el = p->argv[optind - 2];
    static _Thread_local char w[128];
    snprintf(w, sizeof w, "%.*s", (int)strcspn(el, "="), el);
    return w;
}

int cli_int(const cli_parse *p, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = p->arg ? strtoll(p->arg, &end, 10) : 0;
    if (!p->arg || errno || end == p->arg || *end || v < lo || v > hi) {
        cli_usage_error(p->cmd, "%s takes an integer in %lld..%lld, not '%s'", cur_name(p), lo, hi,
                        p->arg ? p->arg : "");
        return 0;
    }
    *out = v;
    return 1;
}

int cli_u64(const cli_parse *p, unsigned long long *out) {
    char *end;
    errno = 0;
    unsigned long long v = p->arg && p->arg[0] != '-' ? strtoull(p->arg, &end, 0) : 0;
    if (!p->arg || p->arg[0] == '-' || errno || end == p->arg || *end) {
        cli_usage_error(p->cmd, "%s takes an unsigned integer, not '%s'", cur_name(p), p->arg ? p->arg : "");
        return 0;
    }
    *out = v;
    return 1;
}

/* ---- help ------------------------------------------------------------------ */

void cli_usage(FILE *f, const cli_cmd *cmd) {
    const char *s = cmd->synopsis ? cmd->synopsis : "";
    int first = 1;
    do {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%s %s%s%.*s\n", first ? "usage:" : "      ", full_name(cmd), n ? " " : "", (int)n, s);
        first = 0;
        s += n;
    } while (*s && *++s);
}

void cli_wrap(FILE *f, const char *text, int col, int indent) {
    const int width = 79;
    const char *s = text;
    while (*s) {
        if (*s == '\n') { /* a line break of the text: the next line starts at indent */
            fprintf(f, "\n%*s", indent, "");
            col = indent;
            s++;
            continue;
        }
        size_t w = strcspn(s, " \n");
        if (col > indent && col + 1 + (int)w > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, s);
        col += (int)w;
        s += w;
        while (*s == ' ')
            s++;
    }
    fputc('\n', f);
}

/* "  -v, --verbose N" padded to the help's column, then the help, wrapped. */
static void print_opt(FILE *f, const cli_opt *o) {
    char left[128];
    int has_short = o->id > 0 && o->id < CLI_ID;
    snprintf(left, sizeof left, "  %c%c%s--%s%s%s", has_short ? '-' : ' ', has_short ? o->id : ' ',
             has_short ? ", " : "  ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (strlen(left) > 28)
        fprintf(f, "%s\n%30s", left, "");
    else
        fprintf(f, "%-30s", left);
    cli_wrap(f, o->help, 30, 30);
}

void cli_help(FILE *f, const cli_cmd *cmd) {
    cli_usage(f, cmd);
    fputc('\n', f);
    cli_wrap(f, cmd->summary, 0, 0);
    for (const char *d = cmd->description; d && *d;) { /* paragraphs */
        const char *e = strstr(d, "\n\n");
        size_t n = e ? (size_t)(e - d) : strlen(d);
        char *para = strndup(d, n);
        if (!para)
            break;
        fputc('\n', f);
        cli_wrap(f, para, 0, 0);
        free(para);
        d += n;
        while (*d == '\n')
            d++;
    }
    fputs("\nOptions:\n", f);
    for (const cli_opt *o = cmd->opts; o && o->name; o++)
        print_opt(f, o);
    print_opt(f, &(cli_opt){"help", 'h', NULL, "print this help and exit"});
    if (cmd->subs) {
        fputs("\nCommands:\n", f);
        size_t skip = strlen(cmd->name) + 1;
        for (const cli_cmd *const *s = cmd->subs; *s; s++)
        {
            fprintf(f, "  %-18s", (*s)->name + skip);
            cli_wrap(f, (*s)->summary, 20, 20);
        }
        fprintf(f, "'%s COMMAND --help' shows a command's options.\n", full_name(cmd));
    }
    if (cmd->example) {
        fputs("\nExample:\n", f);
        const char *s = cmd->example;
        while (*s) {
            size_t n = strcspn(s, "\n");
            fprintf(f, "  %.*s\n", (int)n, s);
            s += n;
            if (*s)
                s++;
        }
    }
}

/* Levenshtein distance of a and b (two rows; names are short). */
static int edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *cli_nearest(const char *s, const char *const *names, int n) {
    const char *best = NULL;
    int bd = 99;
    for (int i = 0; i < n; i++) {
        int d = edit_distance(s, names[i]);
        if (d < bd)
            bd = d, best = names[i];
    }
    /* Close: up to a third of the word's length (at least 2 edits). */
    int limit = (int)strlen(s) / 3;
    if (limit < 2)
        limit = 2;
    return bd <= limit ? best : NULL;
}

/* ---- man pages --------------------------------------------------------------- */

void cli_roff(FILE *f, const char *s) {
    int bol = 1;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        bol = *s == '\n';
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

static void man_paragraphs(FILE *f, const char *s) {
    while (s && *s) {
        const char *e = strstr(s, "\n\n");
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char *para = strndup(s, n);
        if (!para)
            return;
        fputs(".PP\n", f);
        cli_roff(f, para);
        fputc('\n', f);
        free(para);
        s += n;
        while (*s == '\n')
            s++;
    }
}

static void man_cmd(FILE *f, const cli_cmd *c) {
    fputs(".SS \"", f);
    cli_roff(f, full_name(c));
    fputs("\"\n", f);
    const char *s = c->synopsis ? c->synopsis : "";
    do {
        size_t n = strcspn(s, "\n");
        char *line = strndup(s, n);
        if (!line)
            return;
        fputs(".PP\n.B ", f);
        cli_roff(f, full_name(c));
        fputs("\n", f);
        if (n) {
            cli_roff(f, line);
            fputc('\n', f);
        }
        free(line);
        s += n;
    } while (*s && *++s);
    fputs(".PP\n", f);
    cli_roff(f, c->summary);
    fputc('\n', f);
    man_paragraphs(f, c->description);
    for (const cli_opt *o = c->opts; o && o->name; o++) {
        fputs(".TP\n", f);
        fputs(o->arg ? ".BI \"" : ".B \"", f);
        if (o->id > 0 && o->id < CLI_ID)
            fprintf(f, "\\-%c, ", o->id);
        fputs("\\-\\-", f);
        cli_roff(f, o->name);
        if (o->arg) {
            fputs(" \" \"", f);
            cli_roff(f, o->arg);
        }
        fputs("\"\n", f);
        cli_roff(f, o->help);
        fputc('\n', f);
    }
    if (c->example) {
        fputs(".PP\nExample:\n.PP\n.RS 4\n.nf\n", f);
        cli_roff(f, c->example);
        fputs("\n.fi\n.RE\n", f);
    }
    for (const cli_cmd *const *sc = c->subs; sc && *sc; sc++)
        man_cmd(f, *sc);
}

void cli_man(FILE *f, const char *title, int section, const char *summary, const char *description,
             const cli_cmd *const *cmds, int ncmds, const char *extra) {
    fprintf(f, ".TH %s %d \"\" \"%s\" \"%s\"\n", title, section, title, section == 8 ? "System Administration" : "User Commands");
    fputs(".SH NAME\n", f);
    cli_roff(f, title);
    fputs(" \\- ", f);
    cli_roff(f, summary);
    fputs("\n.SH DESCRIPTION\n", f);
    man_paragraphs(f, description);
    fputs(".SH COMMANDS\n", f);
    for (int i = 0; i < ncmds; i++)
        man_cmd(f, cmds[i]);
    if (extra)
        fputs(extra, f);
}
