/* daemon layer: g16d, the proving daemon (docs/daemon.md).
 *
 *   config.c    options: defaults, `key = value` file, command-line flags,
 *               validation (exit code 2 on a bad option)
 *   log.c       one JSON line per event, to stderr or log_file (SIGHUP reopens)
 *   keys.c      the daemon's registry of proving keys (id -> engine key)
 *   base.c      what they all share: clocks, error names, wake-ups
 *   dispatch.c  store <-> engine: runner threads claim partitions, submit
 *               them, record results; heartbeat/expiry thread; cancel; drain
 *   api.c       the HTTP API's routes (api-spec v1) over jansson
 *   api_dash.c  the dashboard's data routes: job listing, timeline
 *   ui.c        the dashboard's static bundle (ui.h)
 *   http.c      libmicrohttpd glue: listen socket, body cap, auth
 *   g16d_main.c process: signals, start-up, shutdown
 *
 * The daemon binary may hold process state (the g16d struct); everything in
 * it is reached through one pointer, no globals besides the log sink. */
#ifndef G16_DAEMON_H
#define G16_DAEMON_H

#include <pthread.h>
#include <stdint.h>

#include <jansson.h>

#include "g16.h"
#include "store.h"

/* ---- config ------------------------------------------------------------- */

typedef struct g16d_key_cfg {
    char *id, *path;
} g16d_key_cfg;

/* A library option (docs/config.md) set in the config file or by a flag:
 * checked at load (g16_option_check), applied to the context at start. */
typedef struct g16d_lib_opt {
    char *name;  /* the library's key, e.g. "engine.gpu_shared" */
    char *value;
    int from_flag; /* 1: a command-line flag, 0: the config file */
} g16d_lib_opt;

typedef struct g16d_config {
    char *config_path;
    char *listen;      /* "host:port" ("[v6]:port") or "unix:/path" */
    char *token;       /* resolved from token or token_file */
    char *token_file;
    char *store_url;
    char *owner;       /* default "host:pid:start" */
    char *allowed_roots; /* colon-separated, each realpath'd at start */
    char **roots;
    size_t n_roots;
    uint64_t max_body_bytes, max_inline_bytes;
    uint32_t max_witnesses, max_connections, connection_timeout_s, request_timeout_s;
    uint64_t budget_bytes;
    int workers, synth_threads, threads, queue_extra;
    int workers_per_device, devices;
    uint64_t device_budget_bytes;
    int gpu_tables;
    char *backend;     /* cpu | cuda | auto */
    double lease_s, heartbeat_s, drain_timeout_s, poll_s;
    uint32_t max_attempts;
    g16d_key_cfg *keys;
    size_t n_keys;
    int trusted_keys;  /* 1: skip the big sections' point checks at key load */
    char *log_file;
    char *log_level;   /* debug | info | warn | error */
    char *ready_file;  /* written with the bound address once listening */
    char *keys_file;   /* keys registered over the API, kept across restarts (default
                        * PATH.keys.json beside a SQLite store; "none": not kept) */
    char *socket_mode; /* a unix socket's permission bits, octal (default 0660) */
    unsigned socket_perm;
    int verify, bench;
    g16d_lib_opt *lib_opts; /* in order; a later one for the same name wins */
    size_t n_lib_opts;
} g16d_config;

void g16d_config_defaults(g16d_config *c);
/* Parses argv (and the --config file it names) into c. Returns 0, 1 when
 * the process should exit 0 (--help, --version), or 2 with a message on
 * stderr for a bad option. */
int g16d_config_load(g16d_config *c, int argc, char **argv);
/* Checks every option (and resolves token_file, allowed_roots). Returns 0
 * or 2 with a message on stderr. */
int g16d_config_validate(g16d_config *c);
void g16d_config_free(g16d_config *c);
/* Parses "64M", "2G", "1024" into bytes; 0 on success, -1 on error. */
int g16d_parse_bytes(const char *s, uint64_t *out);

/* ---- log ------------------------------------------------------------------ */

enum { G16D_DEBUG = 0, G16D_INFO = 1, G16D_WARN = 2, G16D_ERROR = 3 };
/* Opens the sink (NULL path: stderr). Returns 0 or -1 (errno). */
int g16d_log_open(const char *path, int min_level);
int g16d_log_reopen(void); /* SIGHUP */
void g16d_log_close(void);
/* Writes {"ts":...,"level":...,"event":event, ...fields} as one line.
 * fields (may be NULL) is an object whose reference is stolen. */
void g16d_log(int level, const char *event, json_t *fields);

/* ---- keys ------------------------------------------------------------------ */

typedef struct g16d_key {
    char id[128];
    char path[4096];
    char witgen[4096]; /* the key's witness generator (real path), "" for none: jobs may carry inputs */
    g16_curve curve;
    uint32_t n_vars, n_public, domain;
    g16_key_tier tier;
    int params;        /* a bellperson .params key (the path ends in ".params"): its jobs carry
                        * assignments; n_public = inputs after the constant one, n_vars = inputs
                        * + aux */
    uint64_t eng_id;
    uint32_t inflight; /* partitions of this daemon using it now */
    int from_config;   /* a config `key` line (not saved in keys_file) */
    /* The file as it was when last loaded (g16d_key_check compares). */
    uint64_t f_dev, f_ino, f_size;
    int64_t f_mtime_ns;
    int broken;        /* the file changed and the new one cannot be used */
    int reload;        /* the file changed to one of the same shape: evict and reload when idle */
    char broken_msg[512];
} g16d_key;

/* ---- the daemon ------------------------------------------------------------ */

typedef struct g16d_slot {
    int used;
    int64_t job;
    uint32_t part;
    uint64_t eng_job;
    int has_eng_job;
    int release; /* shutdown: give the partition back to the store */
    char key_id[128];
} g16d_slot;

#define G16D_EJMAP 16384
typedef struct g16d_ejmap {
    uint64_t eng_job; /* 0: empty */
    int64_t job;
    uint32_t part;
} g16d_ejmap;

typedef struct g16d_counters {
    uint64_t http[600];       /* requests by status code */
    uint64_t store_errors;
    uint64_t parts_done, parts_failed, parts_released, record_errors;
} g16d_counters;

/* A partition outcome that could not be written to the store: kept in
 * memory and written again on each heartbeat tick until it is stored (or
 * the store answers that the partition is no longer ours). */
typedef struct g16d_pending {
    int64_t job;
    uint32_t part;
    int ok;
    char *proof, *pub, *stats, *msg;
    g16_err code;
    int tries; /* ticks at which a probe write succeeded but this did not */
} g16d_pending;

typedef struct g16d {
    g16d_config *cfg;
    g16_ctx *ctx;
    g16_engine *eng;
    store *st;
    double start_time; /* unix seconds */
    const char *commit; /* the build's git commit (g16d_build_info), NULL: unknown */

    pthread_mutex_t mtx;   /* keys, slots, counters, flags below */
    pthread_cond_t work;   /* new work, or stop: wakes idle runners */
    pthread_cond_t change; /* a partition finished: wakes long-polls */
    uint64_t change_gen;
    g16d_key *keys;
    size_t n_keys, cap_keys;
    g16d_slot *slots;
    int n_slots;
    /* Engine job -> the store's (job, partition), for the timeline: the
     * daemon submits one engine job per partition; slot eng_job %
     * G16D_EJMAP holds the latest (g16d_ejmap_put / _get, under mtx). */
    struct g16d_ejmap *ejmap;
    int n_workers; /* the engine's workers (CPU: workers; CUDA: devices x per device) */
    pthread_t *runners;
    pthread_t heartbeat;
    int threads_started;
    int draining;  /* no new jobs, no new claims */
    int stopping;  /* threads exit */
    int store_ok;  /* the last store write succeeded (/healthz) */
    char store_err_msg[300]; /* why not, when store_ok is 0 */
    g16d_pending *pending;   /* results waiting for the store, under mtx */
    size_t n_pending, cap_pending;
    g16d_counters cnt;
    char last_store_err[300]; /* g16d_store_error's log rate limit */
    double last_store_err_t;
    void *http;    /* http.c's server */
} g16d;

/* Records that engine job eng_job proves (job, part); call under d->mtx. */
void g16d_ejmap_put(g16d *d, uint64_t eng_job, int64_t job, uint32_t part);

/* keys.c. All take d->mtx themselves. http_code/err: for API replies. */
typedef struct g16d_api_err {
    int http;
    const char *code; /* "unknown_key", "conflict", ... */
    char msg[512];
} g16d_api_err;
/* witgen: a witness generator for the key (NULL or "": none), checked with
 * g16_witgen_check (and against the allowed roots with check_roots); the
 * same id again with another path or generator is 409 conflict. */
int g16d_key_register(g16d *d, const char *id, const char *path, const char *witgen, g16_key_tier tier,
                      int check_roots, g16d_key *out, int *existed, g16d_api_err *e);
int g16d_key_remove(g16d *d, const char *id, g16d_api_err *e);
int g16d_key_find(g16d *d, const char *id, g16d_key *out); /* 1 found */
/* Key ids for store_claim_next: a malloc'd array of n pointers into one
 * block (free with free()); NULL when there are none. */
char **g16d_key_ids(g16d *d, size_t *n);
/* keys_file: the API-registered keys as JSON, rewritten atomically after
 * each change (save), registered again at start-up (restore; a key that
 * fails is logged and skipped). Both are no-ops without keys_file. */
void g16d_keys_save(g16d *d);
void g16d_keys_restore(g16d *d);
/* Compares key id's file with the one loaded (inode, size, mtime). A
 * change is logged; a new file of the same shape (curve, nVars, nPublic,
 * domain) that loads is reloaded (when no partition uses the key); any
 * other is refused: the key stays registered but broken, and partitions
 * of it fail with the reason. 0: usable; -1: broken, why in msg. */
int g16d_key_check(g16d *d, const char *id, char *msg, size_t cap);
/* g16d_key_check for every key (the heartbeat's tick). */
void g16d_keys_check_all(g16d *d);
/* Realpath of p if it lies under an allowed root: 0; else -1 with e set
 * (403 forbidden_path or 404 not_found). out has PATH_MAX bytes. */
int g16d_path_check(const g16d *d, const char *p, char *out, g16d_api_err *e);

/* dispatch.c */
int g16d_dispatch_start(g16d *d);
/* Cancels the engine jobs of job_id's running partitions (after
 * store_job_cancel). */
void g16d_dispatch_cancel(g16d *d, int64_t job_id);
/* Graceful stop: no more claims, unstarted partitions go back to the store,
 * running ones finish within drain_timeout_s (then they are cancelled and
 * released too). Joins the threads. */
void g16d_dispatch_stop(g16d *d);
/* Records a store failure (counters, health, log). */
void g16d_store_error(g16d *d, const char *op, const g16_status *st);
void g16d_store_success(g16d *d);
/* Frees outcomes still waiting for the store (at exit: their partitions
 * stay RUNNING in the store and run again after the restart). */
void g16d_pending_free_all(g16d *d);

/* api.c: one request. body may be NULL. Sets *status and returns the reply
 * body (malloc'd), *ctype its content type. */
typedef const char *(*g16d_query_fn)(void *conn, const char *name);
char *g16d_api_handle(g16d *d, const char *method, const char *url, g16d_query_fn query, void *conn,
                      const char *body, size_t body_len, int *status, const char **ctype);
char *g16d_api_error(int http, const char *code, const char *msg, int *status);
/* api_dash.c: GET /v1/jobs (listing) and GET /v1/timeline. */
char *g16d_api_jobs_list(g16d *d, g16d_query_fn query, void *conn, int *status);
char *g16d_api_timeline(g16d *d, g16d_query_fn query, void *conn, int *status);
/* More /metrics series: g16d_build_info, g16d_start_time_seconds,
 * g16d_oldest_queued_job_age_seconds. malloc'd text, NULL on failure. */
char *g16d_metrics_extra(g16d *d);

/* http.c */
int g16d_http_start(g16d *d, char *bound, size_t bound_len);
void g16d_http_stop(g16d *d);

/* base.c: shared by every part above (they call it, it calls none of them).
 * g16d_last_engine_error: the thread-local message of the last engine error
 * reported on this thread (g16d_error_cb, the context's error callback). */
const char *g16d_last_engine_error(void);
void g16d_error_cb(g16_err err, const char *msg, void *user);
double g16d_unix_now(void);              /* wall clock, unix seconds */
const char *g16d_err_code(g16_err e);    /* the API's name: "wrong_curve", ... */
void g16d_notify_change(g16d *d);        /* a partition finished: wakes long-polls */
void g16d_dispatch_wake(g16d *d);        /* new work or stop: wakes idle runners */

#endif
