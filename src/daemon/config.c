/* g16d's options: one table row per option (name, kind, bounds), read from
 * a `key = value` file and overridden by `--key value` / `--key=value`
 * flags (getopt_long; dashes and underscores are the same). The table is
 * also --help and the man page (--man, installed as g16d.8). Every value is checked at
 * start-up; a bad one is reported with its source and exit code 2. */
#include "daemon.h"

#include "../cli/args.h" /* cli_nearest, cli_roff: shared with g16's command line */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { OPT_STR, OPT_U64, OPT_BYTES, OPT_INT, OPT_U32, OPT_DBL, OPT_BOOL, OPT_KEY, OPT_LIB };

/* OPT_LIB rows: g16d's names of the library's operational options
 * (docs/config.md), checked and stored by lib_set. Any other library option
 * is accepted under its own dotted key (gpu.msm_window_bits = 20). */
static const struct {
    const char *name, *lib;
} LIB_NAMES[] = {
    {"gpu_shared", "engine.gpu_shared"},
    {"pin", "engine.pin"},
    {"gpu_synth", "gpu.synth"},
    {"gpu_sync", "gpu.sync"},
    {"witgen_timeout_s", "witgen.timeout_s"},
    {"witgen_memory_mb", "witgen.memory_mb"},
    {"witgen_node", "witgen.node"},
    {"witgen_scratch_dir", "witgen.scratch_dir"},
};

typedef struct opt {
    const char *name;
    int kind;
    size_t off;
    double lo, hi; /* numeric bounds */
    const char *help;
} opt;

#define O(f) offsetof(g16d_config, f)
static const opt OPTS[] = {
    {"listen", OPT_STR, O(listen), 0, 0, "host:port, [v6]:port or unix:/path (default 127.0.0.1:8416)"},
    {"token", OPT_STR, O(token), 0, 0, "bearer token required on every request but /healthz and the dashboard (/, /ui/*)"},
    {"token_file", OPT_STR, O(token_file), 0, 0, "file holding the token (first line)"},
    {"store", OPT_STR, O(store_url), 0, 0, "job store: sqlite:PATH or postgresql://... (default sqlite:g16d.db)"},
    {"owner", OPT_STR, O(owner), 0, 0, "this daemon's name in leases (default host:pid:start)"},
    {"allowed_roots", OPT_STR, O(allowed_roots), 0, 0, "colon-separated dirs that key/witness paths must lie under"},
    {"max_body_bytes", OPT_BYTES, O(max_body_bytes), 1024, 1e12, "request body cap (default 64M)"},
    {"max_witnesses", OPT_U32, O(max_witnesses), 1, 1e6, "witnesses per job (default 1024)"},
    {"max_inline_bytes", OPT_BYTES, O(max_inline_bytes), 64, 1e12, "one inline .wtns, decoded (default 16M, at most max_body_bytes)"},
    {"max_connections", OPT_U32, O(max_connections), 1, 100000, "concurrent HTTP connections (default 64)"},
    {"connection_timeout_s", OPT_U32, O(connection_timeout_s), 1, 86400, "idle connection timeout (default 30)"},
    {"request_timeout_s", OPT_U32, O(request_timeout_s), 1, 86400, "a request body must arrive within this (default 120)"},
    {"budget_bytes", OPT_BYTES, O(budget_bytes), 0, 1e15, "engine byte budget: keys + working sets (0 = unlimited)"},
    {"workers", OPT_INT, O(workers), 1, 256, "engine workers on the CPU backend (default 1)"},
    {"workers_per_device", OPT_INT, O(workers_per_device), 0, 64, "CUDA backend: workers per GPU (0 = 2)"},
    {"devices", OPT_INT, O(devices), 0, 64, "CUDA backend: GPUs to use, the first ones (0 = all)"},
    {"device_budget_bytes", OPT_BYTES, O(device_budget_bytes), 0, 1e15, "CUDA backend: bytes per GPU for keys + work areas (0 = unlimited)"},
    {"gpu_tables", OPT_BOOL, O(gpu_tables), 0, 0, "CUDA backend: window tables of device keys' bases (~12x their bytes; default off)"},
    {"gpu_shared", OPT_LIB, 0, 0, 0, "CUDA backend: a GPU's workers run kernels concurrently (default on; off: one at a time)"},
    {"pin", OPT_LIB, 0, 0, 0, "CUDA backend: pin worker threads to the CPUs near their GPU (default off)"},
    {"gpu_synth", OPT_LIB, 0, 0, 0, "CUDA backend: R1CS synthesis on the GPU when the rows are resident (default on)"},
    {"gpu_sync", OPT_LIB, 0, 0, 0, "how host threads wait for a GPU: auto | spin | yield | block (default auto)"},
    {"witgen_timeout_s", OPT_LIB, 0, 0, 0, "witness generators (keys with one, jobs with inputs): seconds before one is killed (default 300)"},
    {"witgen_memory_mb", OPT_LIB, 0, 0, 0, "witness generators: memory limit in MiB (default 8192; 0: none)"},
    {"witgen_node", OPT_LIB, 0, 0, 0, "witness generators: the node that runs a circom .wasm (default: node on PATH)"},
    {"witgen_scratch_dir", OPT_LIB, 0, 0, 0, "witness generators: where their private scratch directories are made (default /tmp)"},
    {"synth_threads", OPT_INT, O(synth_threads), 1, 256, "engine synthesis threads (default 1)"},
    {"threads", OPT_INT, O(threads), 0, 1024, "CPU threads of the context pool (0 = all)"},
    {"queue_extra", OPT_INT, O(queue_extra), 0, 256, "partitions queued in the engine beyond the workers (default 2)"},
    {"backend", OPT_STR, O(backend), 0, 0, "cpu | cuda | auto (default auto: CUDA when a GPU is present)"},
    {"lease_s", OPT_DBL, O(lease_s), 1, 86400, "partition lease (default 60)"},
    {"heartbeat_s", OPT_DBL, O(heartbeat_s), 0.05, 3600, "lease renewal period (default 10; < lease_s)"},
    {"drain_timeout_s", OPT_DBL, O(drain_timeout_s), 0, 86400, "SIGTERM: wait this long for running partitions (default 60)"},
    {"poll_s", OPT_DBL, O(poll_s), 0.01, 60, "idle store poll period (default 0.5)"},
    {"max_attempts", OPT_U32, O(max_attempts), 1, 1000, "claims of one partition before it fails (default 3)"},
    {"key", OPT_KEY, 0, 0, 0, "id:path, a key registered at start (repeatable)"},
    {"keys_file", OPT_STR, O(keys_file), 0, 0, "keys registered over the API are kept here across restarts (default: the SQLite store's path + .keys.json; none: not kept)"},
    {"socket_mode", OPT_STR, O(socket_mode), 0, 0, "permission bits of a unix: listen socket, octal (default 0660)"},
    {"trusted_keys", OPT_BOOL, O(trusted_keys), 0, 0, "skip point checks of the keys' big sections (default off)"},
    {"log_file", OPT_STR, O(log_file), 0, 0, "log to this file (default stderr; SIGHUP reopens)"},
    {"log_level", OPT_STR, O(log_level), 0, 0, "debug | info | warn | error (default info)"},
    {"ready_file", OPT_STR, O(ready_file), 0, 0, "write the bound address here once listening"},
    {"verify", OPT_BOOL, O(verify), 0, 0, "verify every proof before storing it (default on; off needs bench)"},
    {"bench", OPT_BOOL, O(bench), 0, 0, "benchmark mode: allows verify = off (default off)"},
};

/* A library option given as a bare flag (on, or [on|off]): the boolean
 * ones; gpu_sync and the witgen_* options always take a value. */
static int lib_flag(const opt *o) { return strcmp(o->name, "gpu_sync") && strncmp(o->name, "witgen_", 7); }
#undef O
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

void g16d_config_defaults(g16d_config *c) {
    memset(c, 0, sizeof *c);
    c->max_body_bytes = 64ull << 20;
    c->max_inline_bytes = 16ull << 20;
    c->max_witnesses = 1024;
    c->max_connections = 64;
    c->connection_timeout_s = 30;
    c->request_timeout_s = 120;
    c->workers = 1;
    c->synth_threads = 1;
    c->queue_extra = 2;
    c->lease_s = 60;
    c->heartbeat_s = 10;
    c->drain_timeout_s = 60;
    c->poll_s = 0.5;
    c->max_attempts = 3;
    c->verify = 1;
}

void g16d_config_free(g16d_config *c) {
    for (size_t i = 0; i < NOPTS; i++)
        if (OPTS[i].kind == OPT_STR)
            free(*(char **)((char *)c + OPTS[i].off));
    for (size_t i = 0; i < c->n_keys; i++) {
        free(c->keys[i].id);
        free(c->keys[i].path);
    }
    free(c->keys);
    for (size_t i = 0; i < c->n_roots; i++)
        free(c->roots[i]);
    free(c->roots);
    free(c->config_path);
    for (size_t i = 0; i < c->n_lib_opts; i++) {
        free(c->lib_opts[i].name);
        free(c->lib_opts[i].value);
    }
    free(c->lib_opts);
    memset(c, 0, sizeof *c);
}

int g16d_parse_bytes(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    double m = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': m = 1024.0; break;
        case 'M': m = 1024.0 * 1024; break;
        case 'G': m = 1024.0 * 1024 * 1024; break;
        case 'T': m = 1024.0 * 1024 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
        if (*end)
            return -1;
    }
    v *= m;
    if (v > 1.8e19)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static const opt *find_opt(const char *name) {
    char norm[64];
    size_t n = strlen(name);
    if (n >= sizeof norm)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        norm[i] = name[i] == '-' ? '_' : name[i];
    for (size_t i = 0; i < NOPTS; i++)
        if (!strcmp(OPTS[i].name, norm))
            return &OPTS[i];
    return NULL;
}

/* A library option (key: its dotted name): checked now, applied at start. */
static int lib_set(g16d_config *c, const char *key, const char *shown, const char *val, const char *where,
                   int from_flag) {
    char msg[256];
    if (g16_option_check(key, val, msg, sizeof msg) != G16_OK) {
        fprintf(stderr, "g16d: %s: %s = '%s': %s\n", where, shown, val, msg);
        return 2;
    }
    g16d_lib_opt *l = realloc(c->lib_opts, (c->n_lib_opts + 1) * sizeof *l);
    if (!l)
        return 2;
    c->lib_opts = l;
    l[c->n_lib_opts].name = strdup(key);
    l[c->n_lib_opts].value = strdup(val);
    l[c->n_lib_opts].from_flag = from_flag;
    if (!l[c->n_lib_opts].name || !l[c->n_lib_opts].value) {
        free(l[c->n_lib_opts].name);
        free(l[c->n_lib_opts].value);
        return 2;
    }
    c->n_lib_opts++;
    return 0;
}

/* A name that is no g16d option but one of the library's (it has a dot). */
static int is_lib_name(const char *name) {
    if (!strchr(name, '.'))
        return 0;
    for (int i = 0; i < g16_option_count(); i++) {
        g16_option_info in;
        if (g16_option_get_info(&in, i) == G16_OK && !strcmp(in.name, name))
            return 1;
    }
    return 0;
}

/* Sets one option; where names the source for messages. 0 or 2. */
static int set_opt(g16d_config *c, const opt *o, const char *val, const char *where) {
    void *p = (char *)c + o->off;
    char *end;
    switch (o->kind) {
    case OPT_LIB:
        for (size_t i = 0; i < sizeof LIB_NAMES / sizeof LIB_NAMES[0]; i++)
            if (!strcmp(LIB_NAMES[i].name, o->name))
                return lib_set(c, LIB_NAMES[i].lib, o->name, val, where, !strncmp(where, "flag", 4));
        return 2;
    case OPT_STR: {
        char *dup = strdup(val);
        if (!dup)
            return 2;
        free(*(char **)p);
        *(char **)p = dup;
        return 0;
    }
    case OPT_KEY: {
        const char *colon = strchr(val, ':');
        if (!colon || colon == val || !colon[1] || (size_t)(colon - val) >= 128) {
            fprintf(stderr, "g16d: %s: key = '%s': expected id:path\n", where, val);
            return 2;
        }
        g16d_key_cfg *k = realloc(c->keys, (c->n_keys + 1) * sizeof *k);
        if (!k)
            return 2;
        c->keys = k;
        k[c->n_keys].id = strndup(val, (size_t)(colon - val));
        k[c->n_keys].path = strdup(colon + 1);
        c->n_keys++;
        return 0;
    }
    case OPT_BOOL: {
        int v;
        if (!strcmp(val, "on") || !strcmp(val, "true") || !strcmp(val, "yes") || !strcmp(val, "1"))
            v = 1;
        else if (!strcmp(val, "off") || !strcmp(val, "false") || !strcmp(val, "no") || !strcmp(val, "0"))
            v = 0;
        else {
            fprintf(stderr, "g16d: %s: %s = '%s': expected on or off\n", where, o->name, val);
            return 2;
        }
        *(int *)p = v;
        return 0;
    }
    case OPT_BYTES: {
        uint64_t v;
        if (g16d_parse_bytes(val, &v) || (double)v < o->lo || (double)v > o->hi) {
            fprintf(stderr, "g16d: %s: %s = '%s': expected a byte count in [%.0f, %.0f] (suffix K, M, G, T)\n",
                    where, o->name, val, o->lo, o->hi);
            return 2;
        }
        *(uint64_t *)p = v;
        return 0;
    }
    default: {
        errno = 0;
        double v = strtod(val, &end);
        int integral = o->kind != OPT_DBL;
        if (errno || end == val || *end || v < o->lo || v > o->hi || (integral && v != (double)(long long)v)) {
            fprintf(stderr, "g16d: %s: %s = '%s': expected %s in [%g, %g]\n", where, o->name, val,
                    integral ? "an integer" : "a number", o->lo, o->hi);
            return 2;
        }
        if (o->kind == OPT_INT)
            *(int *)p = (int)v;
        else if (o->kind == OPT_U32)
            *(uint32_t *)p = (uint32_t)v;
        else if (o->kind == OPT_U64)
            *(uint64_t *)p = (uint64_t)v;
        else
            *(double *)p = v;
        return 0;
    }
    }
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int load_file(g16d_config *c, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "g16d: config %s: %s\n", path, strerror(errno));
        return 2;
    }
    char line[8192], where[4200];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "config %s:%d", path, lineno);
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fprintf(stderr, "g16d: %s: line too long\n", where);
            rc = 2;
            break;
        }
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            fprintf(stderr, "g16d: %s: expected 'name = value'\n", where);
            rc = 2;
            break;
        }
        *eq = 0;
        char *name = trim(s), *val = trim(eq + 1);
        /* A trailing comment needs a space before '#' (tokens may hold '#'). */
        char *hash = strstr(val, " #");
        if (hash) {
            *hash = 0;
            val = trim(val);
        }
        const opt *o = find_opt(name);
        if (!o && is_lib_name(name)) {
            rc = lib_set(c, name, name, val, where, 0);
            continue;
        }
        if (!o) {
            fprintf(stderr, "g16d: %s: unknown option '%s'\n", where, name);
            rc = 2;
            break;
        }
        rc = set_opt(c, o, val, where);
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "g16d: config %s: read error\n", path);
        rc = 2;
    }
    fclose(f);
    return rc;
}

/* The value's name of an option in --help and the man page. */
static const char *metavar(const opt *o) {
    switch (o->kind) {
    case OPT_BOOL: return "[on|off]";
    case OPT_LIB: return lib_flag(o) ? "[on|off]" : !strcmp(o->name, "gpu_sync") ? "MODE" : "VALUE";
    case OPT_KEY: return "ID:PATH";
    case OPT_BYTES: return "BYTES";
    case OPT_DBL: return "SECONDS";
    case OPT_STR: return "VALUE";
    default: return "N";
    }
}

/* "--name" with dashes (the config file's key has underscores). */
static void flag_name(char *flag, size_t cap, const char *name) {
    snprintf(flag, cap, "--%s", name);
    for (char *p = flag + 2; *p; p++)
        if (*p == '_')
            *p = '-';
}

static int lib_listed(const g16_option_info *in) {
    return strncmp(in->name, "client.", 7) && strncmp(in->name, "bench.", 6);
}

static const char USAGE_HEAD[] =
    "usage: g16d [--config FILE] [--OPTION VALUE | --OPTION=VALUE]...\n"
    "The g16 proving daemon: an HTTP API (docs/api.md) over a durable job store\n"
    "and the proving engine. Options (config file: `option = value`):\n";
static const char USAGE_EXAMPLE[] =
    "Example:\n"
    "  g16d --listen 127.0.0.1:8416 --store sqlite:/var/lib/g16d/jobs.db --key demo:/srv/g16/demo.zkey\n"
    "  g16d --config /etc/g16d/g16d.conf\n";

static void usage(FILE *out) {
    fputs(USAGE_HEAD, out);
    for (size_t i = 0; i < NOPTS; i++) {
        char flag[96], left[128];
        flag_name(flag, sizeof flag, OPTS[i].name);
        snprintf(left, sizeof left, "%s %s", flag, metavar(&OPTS[i]));
        if (strlen(left) > 32)
            fprintf(out, "  %s\n  %-32s %s\n", left, "", OPTS[i].help);
        else
            fprintf(out, "  %-32s %s\n", left, OPTS[i].help);
    }
    fputs("  --config FILE                    read options from FILE first (flags override it)\n"
          "  -h, --help                       print this help and exit\n"
          "  --version                        print the version and exit\n"
          "  --man                            print this help as a man page (roff) and exit\n"
          "Library options (docs/config.md; `gpu.msm_window_bits = 20` or --gpu.msm_window_bits=20;\n"
          "the environment variable applies when neither sets it):\n",
          out);
    for (int i = 0; i < g16_option_count(); i++) {
        g16_option_info in;
        if (g16_option_get_info(&in, i) == G16_OK && lib_listed(&in))
            fprintf(out, "  %-24s %s (%s, default %s; $%s)\n", in.name, in.doc, in.range[0] ? in.range : in.type,
                     in.default_value, in.env);
    }
    fputs(USAGE_EXAMPLE, out);
}

/* The man page g16d.8 from the same table as --help. */
static void man_page(FILE *f) {
    fprintf(f, ".TH G16D 8 \"\" \"g16d %s\" \"System Administration\"\n.SH NAME\n"
               "g16d \\- the g16 Groth16 proving daemon\n.SH SYNOPSIS\n.B g16d\n"
               "[\\fB\\-\\-config\\fR \\fIFILE\\fR] [\\fB\\-\\-\\fIOPTION\\fR \\fIVALUE\\fR]...\n"
               ".SH DESCRIPTION\n",
            g16_version());
    cli_roff(f, "g16d serves an HTTP/JSON API (docs/api.md) over a durable job store (SQLite, or PostgreSQL "
                "shared by several daemons) and the proving engine: keys stay loaded, jobs of many witnesses are "
                "split into partitions, every proof is verified before it is stored. SIGTERM and SIGINT drain "
                "the running partitions and exit 0; SIGHUP reopens the log file.");
    fputs("\n.PP\n", f);
    cli_roff(f, "Each option is a line `option = value` of the --config file, or a flag --option value or "
                "--option=value (dashes and underscores are the same); flags override the file. A boolean flag "
                "alone means on. Every value is checked at start; a bad one is reported with its source.");
    fputs("\n.SH OPTIONS\n", f);
    for (size_t i = 0; i < NOPTS; i++) {
        char flag[96];
        flag_name(flag, sizeof flag, OPTS[i].name);
        fputs(".TP\n.BI \"", f);
        cli_roff(f, flag);
        fputs(" \" \"", f);
        cli_roff(f, metavar(&OPTS[i]));
        fputs("\"\n", f);
        cli_roff(f, OPTS[i].help);
        fputs(" (config key: ", f);
        cli_roff(f, OPTS[i].name);
        fputs(")\n", f);
    }
    fputs(".TP\n.BI \"\\-\\-config \" FILE\nread options from FILE first (flags override it)\n"
          ".TP\n.BR \\-h \", \" \\-\\-help\nprint the help and exit\n"
          ".TP\n.B \\-\\-version\nprint the version and exit\n"
          ".TP\n.B \\-\\-man\nprint this page (roff) and exit\n"
          ".SH LIBRARY OPTIONS\n",
          f);
    cli_roff(f, "The library's options (docs/config.md) under their dotted names, in the config file "
                "(gpu.msm_window_bits = 20) or as flags (--gpu.msm_window_bits=20); the environment variable "
                "applies when neither sets it.");
    fputc('\n', f);
    for (int i = 0; i < g16_option_count(); i++) {
        g16_option_info in;
        if (g16_option_get_info(&in, i) != G16_OK || !lib_listed(&in))
            continue;
        fputs(".TP\n.B ", f);
        cli_roff(f, in.name);
        fputc('\n', f);
        char line[512];
        snprintf(line, sizeof line, "%s (%s, default %s; $%s)", in.doc, in.range[0] ? in.range : in.type,
                 in.default_value, in.env);
        cli_roff(f, line);
        fputc('\n', f);
    }
    fputs(".SH EXAMPLE\n.nf\n", f);
    cli_roff(f, USAGE_EXAMPLE + strlen("Example:\n"));
    fputs(".fi\n.SH EXIT STATUS\n0 after a drain on SIGTERM or SIGINT (and for \\-\\-help, \\-\\-version, "
          "\\-\\-man); 2 for a bad option, config file, store or key at start.\n"
          ".SH SEE ALSO\n.BR g16 (1);\ndocs/daemon.md and docs/api.md in the g16 sources.\n",
          f);
}

/* getopt_long's table: each g16d option under its dashed and its
 * underscored name (val K_OPT + row), each library option under its dotted
 * name (val K_LIB + index), and --config, --help, --version, --man. */
enum { K_HELP = 'h', K_CONFIG = 1000, K_VERSION, K_MAN, K_OPT = 2000, K_LIB = 4000 };

static struct option *long_options(void) {
    int nlib = g16_option_count();
    struct option *lo = calloc(2 * NOPTS + (size_t)nlib + 5, sizeof *lo);
    static char dashed[NOPTS][64];
    if (!lo)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < NOPTS; i++) {
        int has = OPTS[i].kind == OPT_BOOL || (OPTS[i].kind == OPT_LIB && lib_flag(&OPTS[i]))
                      ? optional_argument
                      : required_argument;
        flag_name(dashed[i], sizeof dashed[i], OPTS[i].name);
        lo[n++] = (struct option){dashed[i] + 2, has, NULL, K_OPT + (int)i};
        if (strcmp(dashed[i] + 2, OPTS[i].name))
            lo[n++] = (struct option){OPTS[i].name, has, NULL, K_OPT + (int)i};
    }
    for (int j = 0; j < nlib; j++) {
        g16_option_info in;
        if (g16_option_get_info(&in, j) == G16_OK && strchr(in.name, '.'))
            lo[n++] = (struct option){in.name, required_argument, NULL, K_LIB + j};
    }
    lo[n++] = (struct option){"config", required_argument, NULL, K_CONFIG};
    lo[n++] = (struct option){"help", no_argument, NULL, K_HELP};
    lo[n++] = (struct option){"version", no_argument, NULL, K_VERSION};
    lo[n++] = (struct option){"man", no_argument, NULL, K_MAN};
    return lo;
}

/* The flag as typed ("--max-witnesses" of "--max-witnesses=9"), for messages. */
static void typed_flag(char *w, size_t cap, const char *el) {
    snprintf(w, cap, "%.*s", (int)strcspn(el, "="), el);
}

/* One getopt_long step over argv ('+': no permutation, stop at the first
 * operand); an optional value that is a separate word (--verify off) is
 * taken too. */
static int next_flag(int argc, char **argv, const struct option *lo, const char **val) {
    int ch = getopt_long(argc, argv, "+:h", lo, NULL);
    *val = optarg;
    if (ch >= K_OPT && ch < K_LIB) {
        const opt *o = &OPTS[ch - K_OPT];
        int optional = o->kind == OPT_BOOL || (o->kind == OPT_LIB && lib_flag(o));
        if (optional && !optarg && optind < argc && strncmp(argv[optind], "--", 2))
            *val = argv[optind++];
    }
    return ch;
}

int g16d_config_load(g16d_config *c, int argc, char **argv) {
    struct option *lo = long_options();
    if (!lo)
        return 2;
    int rc = 0, ch;
    const char *val;
    /* First --help, --version, --man and the config file, so that flags
     * override the file; errors wait for the second pass. */
    optind = 0; /* glibc: a full re-initialization */
    opterr = 0;
    while ((ch = next_flag(argc, argv, lo, &val)) != -1) {
        if (ch == K_HELP || ch == K_VERSION || ch == K_MAN) {
            if (ch == K_HELP)
                usage(stdout);
            else if (ch == K_VERSION)
                printf("g16d %s\n", g16_version());
            else
                man_page(stdout);
            free(lo);
            return 1;
        }
        if (ch == K_CONFIG) {
            free(c->config_path);
            c->config_path = strdup(val);
        }
    }
    if (c->config_path && (rc = load_file(c, c->config_path)))
        goto out;
    optind = 0;
    while ((ch = next_flag(argc, argv, lo, &val)) != -1) {
        char flag[96], where[128];
        const char *el = optind > 0 && optind <= argc ? argv[optind - 1] : "";
        if (val && el == val && optind >= 2) /* "--opt value": the flag is the word before */
            el = argv[optind - 2];
        typed_flag(flag, sizeof flag, el);
        if (ch == ':') {
            fprintf(stderr, "g16d: %s needs a value\n", flag);
            rc = 2;
            goto out;
        }
        if (ch == '?') {
            const char *names[2 * NOPTS + 256];
            int n = 0;
            for (int i = 0; lo[i].name && n < (int)(sizeof names / sizeof names[0]); i++)
                names[n++] = lo[i].name;
            const char *near = cli_nearest(flag[0] == '-' && flag[1] == '-' ? flag + 2 : flag, names, n);
            fprintf(stderr, "g16d: unknown option '%s'", flag);
            if (near)
                fprintf(stderr, "; did you mean '--%s'?", near);
            fputs(" (see g16d --help)\n", stderr);
            rc = 2;
            goto out;
        }
        if (ch == K_CONFIG)
            continue;
        snprintf(where, sizeof where, "flag %s", flag);
        if (ch >= K_LIB) {
            g16_option_info in;
            (void)!g16_option_get_info(&in, ch - K_LIB);
            rc = lib_set(c, in.name, in.name, val, where, 1);
        } else {
            const opt *o = &OPTS[ch - K_OPT];
            rc = set_opt(c, o, val ? val : "on", where);
        }
        if (rc)
            goto out;
    }
    if (optind < argc) {
        fprintf(stderr, "g16d: unexpected argument '%s' (options are --name value)\n", argv[optind]);
        rc = 2;
    }
out:
    free(lo);
    return rc;
}

static int is_loopback(const char *host) {
    return !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "::1") ||
           !strcmp(host, "[::1]");
}

static int set_default(char **p, const char *v) {
    if (*p)
        return 0;
    *p = strdup(v);
    return *p ? 0 : -1;
}

/* listen: unix:/path, or host:port where a host off the loopback needs a
 * token (or token_file); 2 after printing why, else 0. */
static int check_listen(const g16d_config *c) {
    if (!strncmp(c->listen, "unix:", 5)) {
        if (c->listen[5] != '/' || strlen(c->listen + 5) >= 108) {
            fprintf(stderr, "g16d: listen = '%s': unix: needs an absolute path under 108 bytes\n", c->listen);
            return 2;
        }
    } else {
        const char *colon = strrchr(c->listen, ':');
        char *end;
        long port = colon ? strtol(colon + 1, &end, 10) : -1;
        if (!colon || colon == c->listen || !colon[1] || *end || port < 0 || port > 65535) {
            fprintf(stderr, "g16d: listen = '%s': expected host:port (port 0 picks a free one) or unix:/path\n",
                    c->listen);
            return 2;
        }
        char host[256];
        size_t hl = (size_t)(colon - c->listen);
        if (hl >= sizeof host) {
            fprintf(stderr, "g16d: listen = '%s': host too long\n", c->listen);
            return 2;
        }
        memcpy(host, c->listen, hl);
        host[hl] = 0;
        /* token_file is resolved below; check the pair after. */
        if (!is_loopback(host) && !c->token && !c->token_file) {
            fprintf(stderr,
                    "g16d: listen = '%s' is not a loopback address: set token or token_file "
                    "(refusing to serve unauthenticated on the network)\n",
                    c->listen);
            return 2;
        }
    }
    return 0;
}

/* allowed_roots (":"-separated absolute paths) resolved into c->roots;
 * 2 after printing why (nothing printed when out of memory), else 0. */
static int resolve_roots(g16d_config *c) {
    char *dup = strdup(c->allowed_roots), *save = NULL;
    for (char *t = strtok_r(dup, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        char rp[PATH_MAX];
        if (t[0] != '/') {
            fprintf(stderr, "g16d: allowed_roots: '%s' is not an absolute path\n", t);
            free(dup);
            return 2;
        }
        if (!realpath(t, rp)) {
            fprintf(stderr, "g16d: allowed_roots: '%s': %s\n", t, strerror(errno));
            free(dup);
            return 2;
        }
        char **r = realloc(c->roots, (c->n_roots + 1) * sizeof *r);
        if (!r) {
            free(dup);
            return 2;
        }
        c->roots = r;
        r[c->n_roots++] = strdup(rp);
    }
    free(dup);
    return 0;
}

int g16d_config_validate(g16d_config *c) {
    if (set_default(&c->listen, "127.0.0.1:8416") || set_default(&c->store_url, "sqlite:g16d.db") ||
        set_default(&c->backend, "auto") || set_default(&c->log_level, "info"))
        return 2;
    if (!c->owner) {
        char host[256] = "localhost", buf[400];
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = 0;
        snprintf(buf, sizeof buf, "%s:%ld:%lld", host, (long)getpid(), (long long)time(NULL));
        c->owner = strdup(buf);
    }
    if (strlen(c->owner) >= 128) {
        fputs("g16d: owner: at most 127 characters\n", stderr);
        return 2;
    }
    if (check_listen(c))
        return 2;
    /* token */
    if (c->token && c->token_file) {
        fputs("g16d: set token or token_file, not both\n", stderr);
        return 2;
    }
    if (c->token_file) {
        FILE *f = fopen(c->token_file, "r");
        char buf[1024];
        if (!f) {
            fprintf(stderr, "g16d: token_file %s: %s\n", c->token_file, strerror(errno));
            return 2;
        }
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
        c->token = strdup(trim(buf));
    }
    if (c->token && strlen(c->token) < 16) {
        fputs("g16d: token: at least 16 characters\n", stderr);
        return 2;
    }
    if (c->allowed_roots && *c->allowed_roots && resolve_roots(c))
        return 2;
    if (strcmp(c->backend, "cpu") && strcmp(c->backend, "cuda") && strcmp(c->backend, "auto")) {
        fprintf(stderr, "g16d: backend = '%s': expected cpu, cuda or auto\n", c->backend);
        return 2;
    }
    if (strcmp(c->log_level, "debug") && strcmp(c->log_level, "info") && strcmp(c->log_level, "warn") &&
        strcmp(c->log_level, "error")) {
        fprintf(stderr, "g16d: log_level = '%s': expected debug, info, warn or error\n", c->log_level);
        return 2;
    }
    /* unix socket mode */
    {
        const char *m = c->socket_mode ? c->socket_mode : "0660";
        char *end;
        errno = 0;
        long v = strtol(m, &end, 8);
        if (errno || end == m || *end || v < 0 || v > 0777) {
            fprintf(stderr, "g16d: socket_mode = '%s': expected octal permission bits (e.g. 0660)\n", m);
            return 2;
        }
        c->socket_perm = (unsigned)v;
    }
    /* keys_file: beside a SQLite store unless given; "none" keeps no file */
    if (c->keys_file && (!*c->keys_file || !strcmp(c->keys_file, "none"))) {
        free(c->keys_file);
        c->keys_file = NULL;
    } else if (!c->keys_file && strncmp(c->store_url, "postgresql://", 13) && strncmp(c->store_url, "postgres://", 11) &&
               strncmp(c->store_url, "pg:", 3)) {
        const char *path = !strncmp(c->store_url, "sqlite:", 7) ? c->store_url + 7 : c->store_url;
        size_t n = strlen(path) + 16;
        c->keys_file = malloc(n);
        if (!c->keys_file)
            return 2;
        snprintf(c->keys_file, n, "%s.keys.json", path);
    }
    if (c->heartbeat_s >= c->lease_s) {
        fprintf(stderr, "g16d: heartbeat_s (%g) must be below lease_s (%g)\n", c->heartbeat_s, c->lease_s);
        return 2;
    }
    if (!c->verify && !c->bench) {
        fputs("g16d: verify = off is allowed only with bench = on (never return unverified proofs)\n", stderr);
        return 2;
    }
    /* An inline witness cannot be larger than the body carrying it. */
    if (c->max_inline_bytes > c->max_body_bytes)
        c->max_inline_bytes = c->max_body_bytes;
    for (size_t i = 0; i < c->n_keys; i++) {
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->keys[i].id, c->keys[j].id)) {
                fprintf(stderr, "g16d: key '%s' given twice\n", c->keys[i].id);
                return 2;
            }
        if (access(c->keys[i].path, R_OK)) {
            fprintf(stderr, "g16d: key %s:%s: %s\n", c->keys[i].id, c->keys[i].path, strerror(errno));
            return 2;
        }
    }
    return 0;
}
