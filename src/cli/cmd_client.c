/* g16 client: talks to g16d over its HTTP API (docs/api.md) with libcurl.
 *
 *   g16 client [--url URL | --socket PATH] [--token T] <command> ...
 *
 * The URL defaults to $G16D_URL or http://127.0.0.1:8416, the token to
 * $G16D_TOKEN (the options client.url and client.token, docs/config.md). Exit codes: 0 ok, 1 the job failed or was cancelled, 2 usage,
 * 3 server or HTTP error (the server's error code and message are printed),
 * 4 `wait --timeout` elapsed before the job finished. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "progress.h"
#include "util/file.h"
#include "util/config.h"

enum { EXIT_OK = 0, EXIT_JOB = 1, EXIT_USAGE = 2, EXIT_SERVER = 3, EXIT_TIMEOUT = 4 };

typedef struct client {
    const char *url;    /* base URL without a trailing slash */
    const char *socket; /* unix socket path or NULL */
    const char *token;  /* bearer token or NULL */
    int quiet;          /* 1: errors are not printed (retries) */
    CURLcode last;      /* the last transfer's libcurl result */
    CURL *curl;
} client;

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static int buf_put(buf *b, const void *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q)
            return 0;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 1;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg) {
    return buf_put(arg, data, size * nmemb) ? size * nmemb : 0;
}

/* ---- the command tables (args.h) ------------------------------------------ */

enum {
    C_URL = CLI_ID, C_SOCKET, C_TOKEN, C_TIER, C_PRIORITY, C_IDEM, C_INLINE, C_JOB_TIMEOUT, C_RETRY, C_WAIT,
    C_TIMEOUT, C_OUT, C_NO_RESULTS, C_WITNESS_GEN, C_INPUTS,
};
static const cli_opt CLIENT_OPTS[] = {
    {"url", C_URL, "URL", "g16d's address (default $G16D_URL, else http://127.0.0.1:8416)"},
    {"socket", C_SOCKET, "PATH", "talk to g16d over this unix socket (its listen = unix:PATH)"},
    {"token", C_TOKEN, "T", "the bearer token (default $G16D_TOKEN)"},
    {NULL, 0, NULL, NULL},
};
static const cli_opt KEYS_ADD_OPTS[] = {
    {"tier", C_TIER, "mmap|host", "keep the key mapped from its file (mmap, default) or read into memory (host)"},
    {"witness-gen", C_WITNESS_GEN, "GEN", "circom's witness generator (.wasm or C++ binary): the key's jobs may "
                                          "carry inputs (docs/witgen.md)"},
    {NULL, 0, NULL, NULL},
};
static const cli_opt SUBMIT_OPTS[] = {
    {"priority", C_PRIORITY, "low|normal|high|critical", "the job's priority (default normal)"},
    {"idempotency-key", C_IDEM, "K", "a resubmission with the same key returns the same job"},
    {"inline", C_INLINE, NULL, "send the witnesses' bytes in the request (default: their paths, read by g16d)"},
    {"inputs", C_INPUTS, NULL, "the files are input.json objects for the key's witness generator (not with --inline)"},
    {"job-timeout", C_JOB_TIMEOUT, "S", "the job fails if not done within S seconds"},
    {"retry", C_RETRY, "S", "retry a down server for S seconds (a lost reply only with --idempotency-key)"},
    {"wait", C_WAIT, NULL, "then wait for the job, as g16 client wait"},
    {"timeout", C_TIMEOUT, "S", "--wait: give up after S seconds (exit status 4)"},
    {"out", C_OUT, "DIR", "--wait: write proof-<i>.json (proof-<i>.bin for a .params key) and public-<i>.json into DIR (created if missing)"},
    {NULL, 0, NULL, NULL},
};
static const cli_opt WAIT_OPTS[] = {
    {"timeout", C_TIMEOUT, "S", "give up after S seconds (exit status 4; default: no limit)"},
    {"retry", C_RETRY, "S", "retry a lost server for S seconds (default 120)"},
    {"out", C_OUT, "DIR", "write proof-<i>.json (proof-<i>.bin for a .params key) and public-<i>.json into DIR (created if missing)"},
    {NULL, 0, NULL, NULL},
};
static const cli_opt JOB_OPTS[] = {
    {"no-results", C_NO_RESULTS, NULL, "leave the proofs out of the job's JSON"},
    {NULL, 0, NULL, NULL},
};

static const cli_cmd CLI_KEYS_ADD = {
    .name = "client keys add",
    .summary = "Register and preload a proving key (.zkey) under an id.",
    .synopsis = "[--tier mmap|host] [--witness-gen GEN] ID PATH",
    .opts = KEYS_ADD_OPTS,
    .example = "g16 client keys add demo circuit.zkey",
};
static const cli_cmd CLI_KEYS_LIST = {
    .name = "client keys list",
    .summary = "List the resident keys.",
    .synopsis = "",
    .example = "g16 client keys list",
};
static const cli_cmd CLI_KEYS_RM = {
    .name = "client keys rm",
    .summary = "Evict a key.",
    .synopsis = "ID",
    .example = "g16 client keys rm demo",
};
static const cli_cmd CLI_SUBMIT = {
    .name = "client submit",
    .summary = "Submit a job, one partition per witness; prints the job's id.",
    .synopsis = "[OPTIONS] KEY WTNS...\n[OPTIONS] --inputs KEY INPUT.json...",
    .opts = SUBMIT_OPTS,
    .example = "g16 client submit demo w0.wtns w1.wtns --wait --out proofs",
};
static const cli_cmd CLI_WAIT = {
    .name = "client wait",
    .summary = "Wait for a job with a progress line, then write its proofs.",
    .synopsis = "[OPTIONS] JOB",
    .description = "The i-th witness's proof goes to DIR/proof-<i>.json and DIR/public-<i>.json, as with "
                   "g16 prove --batch. Exit status 1 when the job failed or was cancelled.",
    .opts = WAIT_OPTS,
    .example = "g16 client wait 42 --out proofs",
};
static const cli_cmd CLI_JOB = {
    .name = "client job",
    .summary = "Print a job as JSON.",
    .synopsis = "[--no-results] JOB",
    .opts = JOB_OPTS,
    .example = "g16 client job 42 --no-results",
};
static const cli_cmd CLI_CANCEL = {
    .name = "client cancel",
    .summary = "Cancel a job.",
    .synopsis = "JOB",
    .example = "g16 client cancel 42",
};
static const cli_cmd CLI_STATUS = {
    .name = "client status",
    .summary = "Print the daemon's status as JSON.",
    .synopsis = "",
    .example = "g16 client status",
};
static const cli_cmd CLI_METRICS = {
    .name = "client metrics",
    .summary = "Print the daemon's Prometheus metrics.",
    .synopsis = "",
    .example = "g16 client metrics",
};
static const cli_cmd CLI_HEALTH = {
    .name = "client health",
    .summary = "GET /healthz.",
    .synopsis = "",
    .example = "g16 client health",
};
static const cli_cmd *const CLIENT_SUBS[] = {&CLI_KEYS_ADD, &CLI_KEYS_LIST, &CLI_KEYS_RM, &CLI_SUBMIT, &CLI_WAIT,
                                             &CLI_JOB,      &CLI_CANCEL,    &CLI_STATUS,  &CLI_METRICS, &CLI_HEALTH,
                                             NULL};
const cli_cmd CLI_CLIENT = {
    .name = "client",
    .summary = "Talk to g16d, the proving daemon, over its HTTP API: keys, jobs, status.",
    .synopsis = "[--url URL | --socket PATH] [--token T] COMMAND ...",
    .description = "Exit status: 0 ok, 1 the job failed or was cancelled, 2 usage, 3 server or HTTP error (the "
                   "server's error code and message are printed), 4 wait --timeout elapsed.",
    .opts = CLIENT_OPTS,
    .subs = CLIENT_SUBS,
    .example = "g16d --key demo:circuit.zkey &\n"
               "g16 client submit demo witness.wtns --wait --out proofs\n"
               "g16 verify verification_key.json proofs/public-0.json proofs/proof-0.json",
};

static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("g16 client: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* One request. body may be NULL. On return *status holds the HTTP status
 * (0 when no response came) and *out the body (NUL-terminated, malloc'd).
 * timeout_s bounds the whole transfer. Returns 0, or EXIT_SERVER after
 * printing the transport error. */
static int http(client *c, const char *method, const char *path, const char *body, long timeout_s, long *status,
                buf *out) {
    char url[4096];
    struct curl_slist *hdr = NULL;
    char auth[1024];
    memset(out, 0, sizeof *out);
    *status = 0;
    if (snprintf(url, sizeof url, "%s%s", c->url, path) >= (int)sizeof url)
        return usage_err("URL too long"), EXIT_SERVER;
    curl_easy_reset(c->curl);
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, out);
    if (c->socket)
        curl_easy_setopt(c->curl, CURLOPT_UNIX_SOCKET_PATH, c->socket);
    if (c->token) {
        if (snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token) >= (int)sizeof auth)
            return usage_err("token too long"), EXIT_SERVER;
        hdr = curl_slist_append(hdr, auth);
    }
    if (body) {
        hdr = curl_slist_append(hdr, "Content-Type: application/json");
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    } else if (!strcmp(method, "GET")) {
        curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
    }
    hdr = curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip */
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdr);
    CURLcode rc = c->last = curl_easy_perform(c->curl);
    curl_slist_free_all(hdr);
    if (rc != CURLE_OK) {
        if (!c->quiet) {
            cli_progress_clear();
            fprintf(stderr, "g16 client: %s %s: %s\n", method, c->socket ? c->socket : url, curl_easy_strerror(rc));
            if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
                fprintf(stderr, "g16 client: is g16d running there? Start it (g16d --listen 127.0.0.1:8416, "
                                "docs/daemon.md), or point --url URL (or $G16D_URL) or --socket PATH at it\n");
        }
        free(out->p);
        memset(out, 0, sizeof *out);
        return EXIT_SERVER;
    }
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
    if (!out->p && !buf_put(out, "", 0))
        return EXIT_SERVER;
    return 0;
}

/* Prints the server's {"error": {"code", "message"}} (or the raw body). */
static void print_http_error(const char *what, long status, const buf *b) {
    json_t *j = json_loadb(b->p, b->len, 0, NULL);
    json_t *e = j ? json_object_get(j, "error") : NULL;
    const char *code = json_string_value(json_object_get(e, "code"));
    const char *msg = json_string_value(json_object_get(e, "message"));
    cli_progress_clear();
    if (code)
        fprintf(stderr, "g16 client: %s: HTTP %ld %s: %s\n", what, status, code, msg ? msg : "");
    else
        fprintf(stderr, "g16 client: %s: HTTP %ld: %.*s\n", what, status, (int)(b->len > 300 ? 300 : b->len),
                b->p ? b->p : "");
    json_decref(j);
}

/* A request expecting a JSON reply with a 2xx status. Returns 0 with *out
 * set (caller decrefs), or EXIT_SERVER after printing the error. */
static int call_json(client *c, const char *method, const char *path, const char *body, long timeout_s,
                     long *status, json_t **out) {
    buf b;
    long st;
    int rc = http(c, method, path, body, timeout_s, &st, &b);
    *out = NULL;
    if (status)
        *status = st;
    if (rc)
        return rc;
    if (st < 200 || st > 299) {
        char what[256];
        snprintf(what, sizeof what, "%s %s", method, path);
        if (!c->quiet)
            print_http_error(what, st, &b);
        free(b.p);
        return EXIT_SERVER;
    }
    json_error_t je;
    *out = json_loadb(b.p, b.len, 0, &je);
    if (!*out) {
        cli_progress_clear();
        fprintf(stderr, "g16 client: %s %s: bad JSON in the reply: %s\n", method, path, je.text);
        free(b.p);
        return EXIT_SERVER;
    }
    free(b.p);
    return 0;
}

static void print_json(const json_t *j) {
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        puts(s);
    free(s);
}

/* URL path segment: ids are [A-Za-z0-9._-]; anything else is escaped. */
static int escape_seg(client *c, char *dst, size_t cap, const char *s) {
    char *e = curl_easy_escape(c->curl, s, 0);
    if (!e)
        return 0;
    int ok = snprintf(dst, cap, "%s", e) < (int)cap;
    curl_free(e);
    return ok;
}

/* A job id: a positive decimal integer. */
static int parse_job_id(const char *s, long long *id) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v <= 0)
        return 0;
    *id = v;
    return 1;
}

/* Absolute path for the server (which resolves it under its allowed roots):
 * realpath when the file exists here, else cwd + path. */
static char *abs_path(const char *p) {
    char *r = realpath(p, NULL);
    if (r)
        return r;
    if (p[0] == '/')
        return strdup(p);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return strdup(p);
    size_t n = strlen(cwd) + strlen(p) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", cwd, p);
    return s;
}

static char *base64_file(const char *path, const char **err) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static _Thread_local g16_status ost;
    FILE *f = NULL;
    if (g16_file_fopen_read(path, &f, &ost) != G16_OK) { /* regular files only: a FIFO never blocks */
        *err = ost.msg;
        return NULL;
    }
    buf raw = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (!buf_put(&raw, chunk, n)) {
            fclose(f);
            free(raw.p);
            *err = "out of memory";
            return NULL;
        }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(raw.p);
        *err = "read error";
        return NULL;
    }
    size_t olen = (raw.len + 2) / 3 * 4;
    char *o = malloc(olen + 1);
    if (!o) {
        free(raw.p);
        *err = "out of memory";
        return NULL;
    }
    const unsigned char *s = (const unsigned char *)raw.p;
    size_t j = 0;
    for (size_t i = 0; i < raw.len; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < raw.len)
            v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < raw.len)
            v |= s[i + 2];
        o[j++] = tab[v >> 18 & 63];
        o[j++] = tab[v >> 12 & 63];
        o[j++] = i + 1 < raw.len ? tab[v >> 6 & 63] : '=';
        o[j++] = i + 2 < raw.len ? tab[v & 63] : '=';
    }
    o[j] = 0;
    free(raw.p);
    return o;
}

/* ---- keys ------------------------------------------------------------------ */

/* A subcommand without options: its operands (want of them) from argv
 * (argv[0]: its word); -1 to go on, else the exit code. */
static int sub_operands(const cli_cmd *cmd, int argc, char **argv, int want, char ***ops) {
    cli_parse p;
    cli_init(&p, cmd, argc, argv, 0);
    int c;
    while ((c = cli_next(&p)) > 0)
        ;
    if (c != CLI_END)
        return cli_exit(c);
    *ops = argv + p.optind;
    if (argc - p.optind != want) {
        cli_usage(stderr, cmd);
        return cli_usage_error(cmd, "takes %d operand%s, not %d", want, want == 1 ? "" : "s", argc - p.optind);
    }
    return -1;
}

static int cmd_keys(client *c, int argc, char **argv) {
    if (argc < 2)
        return usage_err("keys: add | list | rm");
    const char *sub = argv[1];
    json_t *r = NULL;
    int rc;
    char **ops;
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        cli_help(stdout, &CLI_CLIENT);
        return EXIT_OK;
    }
    if (!strcmp(sub, "list")) {
        if ((rc = sub_operands(&CLI_KEYS_LIST, argc - 1, argv + 1, 0, &ops)) >= 0)
            return rc;
        if ((rc = call_json(c, "GET", "/v1/keys", NULL, 60, NULL, &r)))
            return rc;
        json_t *keys = json_object_get(r, "keys"), *k;
        size_t i;
        printf("%-20s %-9s %8s %8s %-5s %12s %4s  %s\n", "ID", "CURVE", "DOMAIN", "N_PUBLIC", "TIER", "BYTES",
               "REFS", "PATH");
        json_array_foreach(keys, i, k) {
            printf("%-20s %-9s %8lld %8lld %-5s %12lld %4lld  %s\n", json_string_value(json_object_get(k, "id")),
                   json_string_value(json_object_get(k, "curve")),
                   (long long)json_integer_value(json_object_get(k, "domain")),
                   (long long)json_integer_value(json_object_get(k, "n_public")),
                   json_string_value(json_object_get(k, "tier")),
                   (long long)json_integer_value(json_object_get(k, "bytes")),
                   (long long)json_integer_value(json_object_get(k, "refs")),
                   json_string_value(json_object_get(k, "path")));
        }
        json_decref(r);
        return EXIT_OK;
    }
    if (!strcmp(sub, "add")) {
        const char *id = NULL, *path = NULL, *tier = NULL, *gen = NULL;
        cli_parse p;
        cli_init(&p, &CLI_KEYS_ADD, argc - 1, argv + 1, 0);
        int o;
        while ((o = cli_next(&p)) > 0) {
            if (o == C_TIER)
                tier = p.arg;
            else if (o == C_WITNESS_GEN)
                gen = p.arg;
        }
        if (o != CLI_END)
            return cli_exit(o);
        if (argc - 1 - p.optind != 2) {
            cli_usage(stderr, &CLI_KEYS_ADD);
            return cli_usage_error(&CLI_KEYS_ADD, "takes 2 operands (ID, PATH), not %d", argc - 1 - p.optind);
        }
        id = argv[1 + p.optind];
        path = argv[2 + p.optind];
        if (tier && strcmp(tier, "mmap") && strcmp(tier, "host"))
            return usage_err("keys add: --tier is mmap or host");
        char *ap = abs_path(path);
        json_t *req = json_pack("{s:s, s:s}", "id", id, "path", ap ? ap : path);
        free(ap);
        if (!req)
            return usage_err("keys add: the id or path is not valid UTF-8");
        if (tier)
            json_object_set_new(req, "tier", json_string(tier));
        if (gen) {
            char *ag = abs_path(gen);
            json_object_set_new(req, "witness_generator", json_string(ag ? ag : gen));
            free(ag);
        }
        char *body = json_dumps(req, JSON_COMPACT);
        json_decref(req);
        rc = call_json(c, "POST", "/v1/keys", body, 600, NULL, &r);
        free(body);
        if (rc)
            return rc;
        printf("key %s: %s, domain %lld, %lld public, tier %s\n", json_string_value(json_object_get(r, "id")),
               json_string_value(json_object_get(r, "curve")),
               (long long)json_integer_value(json_object_get(r, "domain")),
               (long long)json_integer_value(json_object_get(r, "n_public")),
               json_string_value(json_object_get(r, "tier")));
        json_decref(r);
        return EXIT_OK;
    }
    if (!strcmp(sub, "rm")) {
        if ((rc = sub_operands(&CLI_KEYS_RM, argc - 1, argv + 1, 1, &ops)) >= 0)
            return rc;
        char path[1024] = "/v1/keys/";
        if (!escape_seg(c, path + strlen(path), sizeof path - strlen(path), ops[0]))
            return usage_err("keys rm: id too long");
        if ((rc = call_json(c, "DELETE", path, NULL, 60, NULL, &r)))
            return rc;
        printf("key %s evicted\n", ops[0]);
        json_decref(r);
        return EXIT_OK;
    }
    const char *names[] = {"add", "list", "rm"};
    const char *near = cli_nearest(sub, names, 3);
    return usage_err("keys: unknown subcommand '%s'%s%s%s", sub, near ? "; did you mean '" : "", near ? near : "",
                     near ? "'?" : "");
}

/* ---- jobs ------------------------------------------------------------------ */

static const char *str_or(const json_t *j, const char *dflt) {
    const char *s = json_string_value(j);
    return s ? s : dflt;
}

static int finished(const char *state) {
    return !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
}

/* Writes the finished job's proofs into dir and reports failed partitions.
 * Returns the exit code for the job's final state. */
static int job_results(const json_t *job, const char *dir) {
    const char *state = str_or(json_object_get(job, "state"), "?");
    json_t *parts = json_object_get(job, "partitions"), *p;
    size_t i;
    int rc = strcmp(state, "done") ? EXIT_JOB : EXIT_OK;
    char why[PATH_MAX + 128];
    if (dir && g16_cli_mkdirs(dir, why, sizeof why)) {
        fprintf(stderr, "g16 client: --out %s: %s\n", dir, why);
        return EXIT_USAGE;
    }
    json_array_foreach(parts, i, p) {
        long long idx = json_integer_value(json_object_get(p, "index"));
        const char *ps = str_or(json_object_get(p, "state"), "?");
        json_t *err = json_object_get(p, "error");
        if (json_is_object(err))
            fprintf(stderr, "partition %lld %s: %s: %s\n", idx, ps, str_or(json_object_get(err, "code"), "?"),
                    str_or(json_object_get(err, "message"), ""));
        else if (strcmp(ps, "done"))
            fprintf(stderr, "partition %lld %s\n", idx, ps);
        json_t *proof = json_object_get(p, "proof"), *pub = json_object_get(p, "public");
        if (!dir || !json_is_object(proof) || !json_is_array(pub))
            continue;
        char fn[PATH_MAX];
        const struct {
            const char *name;
            json_t *v;
        } files[2] = {{"proof", proof}, {"public", pub}};
        const char *fmt = json_string_value(json_object_get(proof, "format"));
        int k0 = 0;
        if (fmt && !strcmp(fmt, "bellperson")) {
            /* a .params key's proof: the 192 bytes in hex -> proof-<i>.bin */
            const char *hx = json_string_value(json_object_get(proof, "proof"));
            unsigned char bin[192];
            int ok = hx && strlen(hx) == 2 * sizeof bin;
            for (size_t b = 0; ok && b < sizeof bin; b++) {
                unsigned v;
                ok = sscanf(hx + 2 * b, "%2x", &v) == 1;
                bin[b] = (unsigned char)v;
            }
            snprintf(fn, sizeof fn, "%s/proof-%lld.bin", dir, idx);
            FILE *f = ok ? fopen(fn, "wb") : NULL;
            int wrote = f && fwrite(bin, 1, sizeof bin, f) == sizeof bin;
            if (f && fclose(f))
                wrote = 0;
            if (!wrote) {
                fprintf(stderr, "g16 client: %s: %s\n", fn, ok ? strerror(errno) : "the proof is not 192 bytes of hex");
                rc = EXIT_USAGE;
            }
            k0 = 1;
        }
        for (int k = k0; k < 2; k++) {
            snprintf(fn, sizeof fn, "%s/%s-%lld.json", dir, files[k].name, idx);
            if (json_dump_file(files[k].v, fn, JSON_INDENT(1) | JSON_PRESERVE_ORDER)) {
                fprintf(stderr, "g16 client: cannot write %s: %s\n", fn, strerror(errno));
                rc = EXIT_USAGE;
            }
        }
    }
    return rc;
}

static void progress_line(int tty, long long id, const json_t *job, double elapsed_s, int final) {
    const char *state = str_or(json_object_get(job, "state"), "?");
    json_t *pr = json_object_get(job, "progress");
    long long done = json_integer_value(json_object_get(pr, "done"));
    long long failed = json_integer_value(json_object_get(pr, "failed"));
    long long total = json_integer_value(json_object_get(pr, "total"));
    char qp[48] = "";
    if (!strcmp(state, "queued"))
        snprintf(qp, sizeof qp, ", queue position %lld",
                 (long long)json_integer_value(json_object_get(job, "queue_position")));
    if (g16_cli_quiet)
        return;
    if (tty && !final) {
        /* The progress line (progress.h): the finished partitions. */
        char stage[96];
        snprintf(stage, sizeof stage, "job %lld %s%s%s", id, state, qp, failed ? ", some failed" : "");
        cli_progress(NULL, stage, (uint64_t)(done + failed), total > 0 ? (uint64_t)total : 1);
        return;
    }
    if (tty)
        cli_progress_end(); /* the last state stays as one line */
    fprintf(stderr, "job %lld %s: %lld/%lld done, %lld failed%s, %.1f s\n", id, state, done, total, failed, qp,
            elapsed_s);
    fflush(stderr);
}

/* Long-polls the job until it finishes (or timeout_s > 0 passes), showing
 * progress, then fetches the results and writes them into dir. A lost
 * connection or a 502/503/504 (the daemon restarting or draining: accepted
 * jobs survive that) is retried every second for up to retry_s. */
static int wait_job(client *c, long long id, double timeout_s, double retry_s, const char *dir) {
    cli_progress_begin("g16 client");
    int tty = cli_progress_on(); /* a terminal, not --quiet */
    double t0 = g16_cli_now_ms(), down_since = -1;
    char path[128], last[160] = "";
    json_t *job = NULL;
    int rc;
    for (;;) {
        double elapsed = (g16_cli_now_ms() - t0) / 1e3;
        /* Short polls on a terminal keep the display moving; the server
         * answers as soon as the job finishes either way (max 60 s). */
        double w = tty ? 1 : 10;
        if (timeout_s > 0 && timeout_s - elapsed < w)
            w = timeout_s - elapsed;
        if (w < 0)
            w = 0;
        snprintf(path, sizeof path, "/v1/jobs/%lld?wait=%d&results=0", id, (int)(w + 0.999));
        long st;
        if ((rc = call_json(c, "GET", path, NULL, (long)w + 60, &st, &job))) {
            double now_ms = g16_cli_now_ms();
            int transient = st == 0 || st == 502 || st == 503 || st == 504;
            if (transient && down_since < 0 && retry_s > 0) {
                down_since = now_ms;
                c->quiet = 1;
                cli_progress_clear();
                fprintf(stderr, "g16 client: job %lld: retrying for up to %.0f s\n", id, retry_s);
            }
            if (transient && down_since >= 0 && (now_ms - down_since) / 1e3 < retry_s &&
                (timeout_s <= 0 || (now_ms - t0) / 1e3 < timeout_s)) {
                sleep(1);
                continue;
            }
            cli_progress_end();
            if (c->quiet) {
                c->quiet = 0;
                fprintf(stderr, "g16 client: job %lld: no answer from the server for %.0f s\n", id,
                        (now_ms - down_since) / 1e3);
            }
            return rc;
        }
        if (down_since >= 0) {
            cli_progress_clear();
            fprintf(stderr, "g16 client: job %lld: the server answers again\n", id);
            down_since = -1;
            c->quiet = 0;
        }
        const char *state = str_or(json_object_get(job, "state"), "?");
        elapsed = (g16_cli_now_ms() - t0) / 1e3;
        int fin = finished(state);
        json_t *pr = json_object_get(job, "progress");
        char now[160];
        snprintf(now, sizeof now, "%s %lld %lld", state, (long long)json_integer_value(json_object_get(pr, "done")),
                 (long long)json_integer_value(json_object_get(pr, "failed")));
        if (tty || strcmp(now, last) || fin)
            progress_line(tty, id, job, elapsed, fin);
        snprintf(last, sizeof last, "%s", now);
        json_decref(job);
        job = NULL;
        if (fin)
            break;
        if (timeout_s > 0 && elapsed >= timeout_s) {
            cli_progress_end();
            fprintf(stderr, "g16 client: job %lld not finished after %.0f s\n", id, timeout_s);
            return EXIT_TIMEOUT;
        }
    }
    cli_progress_end();
    snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    if ((rc = call_json(c, "GET", path, NULL, 300, NULL, &job)))
        return rc;
    rc = job_results(job, dir);
    json_decref(job);
    return rc;
}

static int parse_double(const char *s, double *v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && end != s && !*end && *v >= 0;
}

static int cmd_submit(client *c, int argc, char **argv) {
    const char *key = NULL, *prio = NULL, *idem = NULL, *dir = NULL;
    int inl = 0, wait = 0, inputs = 0;
    double timeout_s = 0, job_timeout = 0, retry_s = -1; /* -1: submit 0 s, wait 120 s */
    json_t *ws = json_array();
    const char **wtns = calloc((size_t)argc, sizeof *wtns);
    int rc = EXIT_USAGE, nw = 0;
    if (!wtns) {
        json_decref(ws);
        return EXIT_USAGE;
    }
    cli_parse p;
    cli_init(&p, &CLI_SUBMIT, argc, argv, 0);
    int o;
    while ((o = cli_next(&p)) > 0) {
        switch (o) {
        case C_PRIORITY: prio = p.arg; break;
        case C_IDEM: idem = p.arg; break;
        case C_OUT: dir = p.arg; break;
        case C_INLINE: inl = 1; break;
        case C_INPUTS: inputs = 1; break;
        case C_WAIT: wait = 1; break;
        case C_TIMEOUT:
        case C_RETRY:
        case C_JOB_TIMEOUT:
            if (!parse_double(p.arg, o == C_TIMEOUT ? &timeout_s : o == C_RETRY ? &retry_s : &job_timeout))
                goto bad_num;
            break;
        }
    }
    if (o != CLI_END) {
        rc = cli_exit(o);
        goto out;
    }
    if (p.optind < argc)
        key = argv[p.optind];
    for (int i = p.optind + 1; i < argc; i++)
        wtns[nw++] = argv[i];
    /* Witnesses after every option is known (--inline may come last). */
    if (inl && inputs) {
        usage_err("submit: --inline and --inputs exclude each other");
        goto out;
    }
    for (int i = 0; i < nw; i++) {
        json_t *w;
        if (inputs) { /* {"inputs": the file's object} */
            json_error_t je;
            json_t *o = json_load_file(wtns[i], 0, &je);
            if (!json_is_object(o)) {
                usage_err("submit: %s: %s", wtns[i], o ? "not a JSON object" : je.text);
                json_decref(o);
                goto out;
            }
            w = json_pack("{s:o}", "inputs", o);
        } else if (inl) {
            const char *err = NULL;
            char *b64 = base64_file(wtns[i], &err);
            if (!b64) {
                usage_err("submit: %s: %s", wtns[i], err);
                goto out;
            }
            w = json_pack("{s:s}", "data", b64);
            free(b64);
        } else {
            char *ap = abs_path(wtns[i]);
            w = json_pack("{s:s}", "path", ap ? ap : wtns[i]);
            free(ap);
        }
        if (!w || json_array_append_new(ws, w)) {
            usage_err("submit: %s: the path is not valid UTF-8", wtns[i]);
            goto out;
        }
    }
    if (!key || !json_array_size(ws)) {
        cli_usage(stderr, &CLI_SUBMIT);
        cli_usage_error(&CLI_SUBMIT, "needs a key id and at least one witness");
        goto out;
    }
    if (prio && strcmp(prio, "low") && strcmp(prio, "normal") && strcmp(prio, "high") && strcmp(prio, "critical")) {
        usage_err("submit: --priority is low, normal, high or critical");
        goto out;
    }
    if ((dir || timeout_s > 0) && !wait) {
        usage_err("submit: --out and --timeout go with --wait");
        goto out;
    }
    json_t *req = json_pack("{s:s, s:O}", "key", key, "witnesses", ws);
    json_t *ik = idem ? json_string(idem) : NULL;
    if (!req || (idem && !ik)) {
        json_decref(req);
        json_decref(ik);
        usage_err("submit: the key id or idempotency key is not valid UTF-8");
        goto out;
    }
    if (prio)
        json_object_set_new(req, "priority", json_string(prio));
    if (ik)
        json_object_set_new(req, "idempotency_key", ik);
    if (job_timeout > 0)
        json_object_set_new(req, "timeout_s", json_real(job_timeout));
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    json_t *r = NULL;
    /* Retried for up to retry_s while the daemon is down or restarting:
     * always when the connection was refused (nothing was sent), and for
     * any lost reply or 502/503/504 when an idempotency key makes the
     * retry return the same job. */
    double t0 = g16_cli_now_ms();
    int tries = 0;
    for (; body; tries++) {
        long st;
        c->quiet = tries > 0;
        rc = call_json(c, "POST", "/v1/jobs", body, 600, &st, &r);
        int refused = st == 0 && c->last == CURLE_COULDNT_CONNECT;
        int lost = st == 0 || st == 502 || st == 503 || st == 504;
        if (!rc || !(refused || (idem && lost)) || (g16_cli_now_ms() - t0) / 1e3 >= retry_s)
            break; /* retry_s < 0 (not given): no retry */
        if (!tries)
            fprintf(stderr, "g16 client: submit: retrying for up to %.0f s\n", retry_s);
        sleep(1);
    }
    c->quiet = 0;
    if (!body)
        rc = EXIT_USAGE;
    else if (rc && tries > 0)
        fprintf(stderr, "g16 client: submit: gave up after %.0f s\n", (g16_cli_now_ms() - t0) / 1e3);
    free(body);
    if (rc)
        goto out;
    long long id = json_integer_value(json_object_get(r, "id"));
    fprintf(stderr, "job %lld %s: %lld partitions, queue position %lld%s\n", id,
            str_or(json_object_get(r, "state"), "?"), (long long)json_integer_value(json_object_get(r, "partitions")),
            (long long)json_integer_value(json_object_get(r, "queue_position")),
            json_is_true(json_object_get(r, "existing")) ? " (existing job of this idempotency key)" : "");
    printf("%lld\n", id);
    fflush(stdout);
    json_decref(r);
    rc = wait ? wait_job(c, id, timeout_s, retry_s < 0 ? 120 : retry_s, dir) : EXIT_OK;
out:
    json_decref(ws);
    free(wtns);
    return rc;
bad_num:
    json_decref(ws);
    free(wtns);
    return usage_err("submit: bad number of seconds '%s'", p.arg);
}

static int cmd_wait(client *c, int argc, char **argv) {
    const char *job = NULL, *dir = NULL;
    double timeout_s = 0, retry_s = 120;
    long long id;
    cli_parse p;
    cli_init(&p, &CLI_WAIT, argc, argv, 0);
    int o;
    while ((o = cli_next(&p)) > 0) {
        if (o == C_OUT)
            dir = p.arg;
        else if (!parse_double(p.arg, o == C_TIMEOUT ? &timeout_s : &retry_s))
            return usage_err("wait: bad --%s '%s'", o == C_TIMEOUT ? "timeout" : "retry", p.arg);
    }
    if (o != CLI_END)
        return cli_exit(o);
    if (argc - p.optind == 1)
        job = argv[p.optind];
    if (!job || !parse_job_id(job, &id)) {
        cli_usage(stderr, &CLI_WAIT);
        return cli_usage_error(&CLI_WAIT, "needs one job id (a positive integer)");
    }
    return wait_job(c, id, timeout_s, retry_s, dir);
}

static int cmd_job(client *c, int argc, char **argv) {
    long long id;
    int no_results = 0;
    cli_parse p;
    cli_init(&p, &CLI_JOB, argc, argv, 0);
    int o;
    while ((o = cli_next(&p)) > 0)
        no_results |= o == C_NO_RESULTS;
    if (o != CLI_END)
        return cli_exit(o);
    if (argc - p.optind != 1 || !parse_job_id(argv[p.optind], &id)) {
        cli_usage(stderr, &CLI_JOB);
        return cli_usage_error(&CLI_JOB, "needs one job id (a positive integer)");
    }
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%lld%s", id, no_results ? "?results=0" : "");
    json_t *r;
    int rc = call_json(c, "GET", path, NULL, 300, NULL, &r);
    if (rc)
        return rc;
    print_json(r);
    json_decref(r);
    return EXIT_OK;
}

static int cmd_cancel(client *c, int argc, char **argv) {
    long long id;
    char **ops;
    int rc0 = sub_operands(&CLI_CANCEL, argc, argv, 1, &ops);
    if (rc0 >= 0)
        return rc0;
    if (!parse_job_id(ops[0], &id))
        return cli_usage_error(&CLI_CANCEL, "'%s' is no job id (a positive integer)", ops[0]);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs/%lld", id);
    json_t *r;
    int rc = call_json(c, "DELETE", path, NULL, 60, NULL, &r);
    if (rc)
        return rc;
    printf("job %lld %s\n", id, str_or(json_object_get(r, "state"), "?"));
    json_decref(r);
    return EXIT_OK;
}

/* GET of a text resource printed as it is (metrics, healthz). */
static int cmd_get_text(client *c, const char *path) {
    buf b;
    long st;
    int rc = http(c, "GET", path, NULL, 60, &st, &b);
    if (rc)
        return rc;
    if (st < 200 || st > 299) {
        print_http_error(path, st, &b);
        free(b.p);
        return EXIT_SERVER;
    }
    fwrite(b.p, 1, b.len, stdout);
    if (b.len && b.p[b.len - 1] != '\n')
        putchar('\n');
    free(b.p);
    return EXIT_OK;
}

int cmd_client(int argc, char **argv) {
    g16_config env; /* $G16D_URL, $G16D_TOKEN; flags override them */
    g16_status est = {0};
    g16_config_init(&env);
    if (g16_config_from_env(&env, &est) != G16_OK)
        return usage_err("%s", est.msg);
    const char *eu = g16_config_str(&env, G16_OPT_CLIENT_URL), *et = g16_config_str(&env, G16_OPT_CLIENT_TOKEN);
    client c = {.url = *eu ? eu : NULL, .token = *et ? et : NULL};
    cli_parse p;
    cli_init(&p, &CLI_CLIENT, argc, argv, CLI_STOP_AT_OPERAND);
    int o;
    while ((o = cli_next(&p)) > 0) {
        if (o == C_URL)
            c.url = p.arg;
        else if (o == C_SOCKET)
            c.socket = p.arg;
        else if (o == C_TOKEN)
            c.token = p.arg;
    }
    if (o != CLI_END)
        return cli_exit(o);
    int i = p.optind;
    if (i >= argc) {
        cli_usage(stderr, &CLI_CLIENT);
        return cli_usage_error(&CLI_CLIENT, "needs a command (keys, submit, wait, job, cancel, status, metrics, health)");
    }
    /* Over a unix socket the host part is only the Host header. */
    char url[1024];
    const char *u = c.socket ? "http://localhost" : c.url ? c.url : "http://127.0.0.1:8416";
    size_t n = strlen(u);
    while (n && u[n - 1] == '/')
        n--;
    if (n >= sizeof url)
        return usage_err("URL too long");
    memcpy(url, u, n);
    url[n] = 0;
    c.url = url;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) || !(c.curl = curl_easy_init())) {
        fputs("g16 client: libcurl initialization failed\n", stderr);
        return EXIT_SERVER;
    }
    const char *cmd = argv[i];
    int sub_argc = argc - i;
    char **sub = argv + i;
    int rc;
    if (!strcmp(cmd, "keys"))
        rc = cmd_keys(&c, sub_argc, sub);
    else if (!strcmp(cmd, "submit"))
        rc = cmd_submit(&c, sub_argc, sub);
    else if (!strcmp(cmd, "wait"))
        rc = cmd_wait(&c, sub_argc, sub);
    else if (!strcmp(cmd, "job"))
        rc = cmd_job(&c, sub_argc, sub);
    else if (!strcmp(cmd, "cancel"))
        rc = cmd_cancel(&c, sub_argc, sub);
    else if (!strcmp(cmd, "status") || !strcmp(cmd, "metrics") || !strcmp(cmd, "health")) {
        char **ops;
        const cli_cmd *spec = cmd[0] == 's' ? &CLI_STATUS : cmd[0] == 'm' ? &CLI_METRICS : &CLI_HEALTH;
        if ((rc = sub_operands(spec, sub_argc, sub, 0, &ops)) < 0) {
            if (cmd[0] == 's') {
                json_t *r;
                rc = call_json(&c, "GET", "/v1/status", NULL, 60, NULL, &r);
                if (!rc)
                    print_json(r);
                json_decref(r);
            } else
                rc = cmd_get_text(&c, cmd[0] == 'm' ? "/metrics" : "/healthz");
        }
    } else {
        static const char *const names[] = {"keys", "submit", "wait", "job", "cancel", "status", "metrics", "health"};
        const char *near = cli_nearest(cmd, names, 8);
        rc = cli_usage_error(&CLI_CLIENT, "unknown command '%s'%s%s%s", cmd, near ? "; did you mean '" : "",
                             near ? near : "", near ? "'?" : "");
    }
    curl_easy_cleanup(c.curl);
    curl_global_cleanup();
    return rc;
}
