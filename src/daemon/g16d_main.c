/* g16d: the proving daemon (docs/daemon.md). The process: options, log,
 * context, engine, job store (recovered), keys, HTTP server, dispatcher;
 * then the main thread waits for signals: SIGHUP reopens the log file,
 * SIGTERM/SIGINT drain and exit 0. SIGPIPE and SIGXFSZ are ignored, so that
 * a full or size-limited disk is an error the store reports, not a kill. */
#include "daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* generated/g16_gitrev.c (cmake/gitrev.cmake) */
extern const char g16_cli_git_commit[];

static int level_of(const char *s) {
    return !strcmp(s, "debug") ? G16D_DEBUG : !strcmp(s, "warn") ? G16D_WARN : !strcmp(s, "error") ? G16D_ERROR
                                                                                                   : G16D_INFO;
}

/* d->ctx with the library options of cfg; nonzero after printing why. */
static int open_context(g16d *d, const g16d_config *cfg) {
    g16_ctx_opts co = {cfg->threads, g16d_error_cb, NULL};
    char cmsg[512];
    if (g16_ctx_create_ex(&d->ctx, &co, cmsg, sizeof cmsg) != G16_OK) {
        fprintf(stderr, "g16d: could not create the context: %s\n", cmsg); /* names a bad environment value */
        return 1;
    }
    /* Library options from the config file and flags (checked at load),
     * over the defaults and the environment (docs/config.md). */
    for (size_t i = 0; i < cfg->n_lib_opts; i++)
        if (g16_ctx_set_option(d->ctx, cfg->lib_opts[i].name, cfg->lib_opts[i].value,
                               cfg->lib_opts[i].from_flag ? G16_OPTION_FLAG : G16_OPTION_CONFIG) != G16_OK) {
            char em[512];
            (void)g16_ctx_last_error(d->ctx, em, sizeof em);
            fprintf(stderr, "g16d: %s\n", em);
            return 1;
        }
    return 0;
}

/* d->eng from cfg, and d->n_workers; nonzero after printing why. */
static int open_engine(g16d *d, const g16d_config *cfg) {
    g16_engine_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.budget_bytes = cfg->budget_bytes;
    eo.workers = cfg->workers;
    eo.synth_threads = cfg->synth_threads;
    eo.no_verify = !cfg->verify;
    eo.backend = !strcmp(cfg->backend, "cpu")    ? G16_ENGINE_BACKEND_CPU
                 : !strcmp(cfg->backend, "cuda") ? G16_ENGINE_BACKEND_CUDA
                                                : G16_ENGINE_BACKEND_AUTO;
    eo.workers_per_device = cfg->workers_per_device;
    eo.devices = cfg->devices;
    eo.device_budget_bytes = cfg->device_budget_bytes;
    eo.gpu_tables = cfg->gpu_tables;
    if (g16_engine_create(d->ctx, &d->eng, &eo)) {
        fprintf(stderr, "g16d: engine (backend = %s): %s\n", cfg->backend, g16d_last_engine_error());
        return 1;
    }
    /* The engine's worker count (the CUDA backend sets its own). */
    d->n_workers = cfg->workers;
    char *sj = NULL;
    if (!g16_engine_status_json(d->eng, &sj) && sj) {
        json_t *so = json_loads(sj, 0, NULL);
        json_t *wk = json_object_get(so, "workers");
        if (json_is_array(wk) && json_array_size(wk) > 0)
            d->n_workers = (int)json_array_size(wk);
        json_decref(so);
    }
    g16_free(sj);
    return 0;
}

/* The job store opened and recovered (*requeued: jobs queued again), then
 * the keys of cfg registered; nonzero after printing why. */
static int open_store_and_keys(g16d *d, const g16d_config *cfg, size_t *requeued) {
    g16_status st = {0};
    if (store_open(&d->st, cfg->store_url, cfg->owner, &st)) {
        fprintf(stderr, "g16d: store %s: %s\n", cfg->store_url, st.msg);
        return 1;
    }
    if (store_recover(d->st, requeued, &st)) {
        fprintf(stderr, "g16d: store %s: recovery: %s\n", cfg->store_url, st.msg);
        return 1;
    }
    for (size_t i = 0; i < cfg->n_keys; i++) {
        g16d_key k;
        g16d_api_err e = {0};
        int existed;
        if (g16d_key_register(d, cfg->keys[i].id, cfg->keys[i].path, NULL, G16_TIER_MMAP, 0, &k, &existed, &e)) {
            fprintf(stderr, "g16d: key %s:%s: %s\n", cfg->keys[i].id, cfg->keys[i].path, e.msg);
            return 1;
        }
    }
    return 0;
}

/* The address the server is bound to, in path (written whole: a
 * temporary file renamed in); a failure is logged. */
static void write_ready_file(const char *path, const char *bound) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", bound) < 0 || fclose(f) || rename(tmp, path))
        g16d_log(G16D_ERROR, "ready_file", json_pack("{s:s,s:s}", "path", path, "error", strerror(errno)));
}

/* Until SIGTERM or SIGINT (of set); SIGHUP reopens the log file. */
static void wait_for_stop(const sigset_t *set) {
    for (;;) {
        int sig = 0;
        if (sigwait(set, &sig))
            continue;
        if (sig == SIGHUP) {
            int r = g16d_log_reopen();
            g16d_log(r ? G16D_ERROR : G16D_INFO, "log_reopened", NULL);
            continue;
        }
        g16d_log(G16D_INFO, "signal", json_pack("{s:s}", "signal", sig == SIGTERM ? "TERM" : "INT"));
        break;
    }
}

int main(int argc, char **argv) {
    g16d_config cfg;
    g16d_config_defaults(&cfg);
    int rc = g16d_config_load(&cfg, argc, argv);
    if (!rc)
        rc = g16d_config_validate(&cfg);
    if (rc) {
        g16d_config_free(&cfg);
        return rc == 1 ? 0 : 2;
    }
    if (g16d_log_open(cfg.log_file, level_of(cfg.log_level))) {
        fprintf(stderr, "g16d: log_file %s: %s\n", cfg.log_file, strerror(errno));
        g16d_config_free(&cfg);
        return 2;
    }
    /* Signals: the main thread takes them with sigwait; every thread
     * created from here on inherits the mask. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);

    g16d d;
    memset(&d, 0, sizeof d);
    d.cfg = &cfg;
    d.start_time = g16d_unix_now();
    d.commit = g16_cli_git_commit;
    d.store_ok = 1;
    pthread_mutex_init(&d.mtx, NULL);
    pthread_cond_init(&d.work, NULL);
    pthread_cond_init(&d.change, NULL);
    int exit_code = 2;
    int store_lock_fd = -1; /* a SQLite store's lock (store_lock_exclusive) */
    {
        /* First, before anything is loaded: a second g16d on the same
         * SQLite file stops here. */
        g16_status lst = {0};
        if (store_lock_exclusive(cfg.store_url, &store_lock_fd, &lst)) {
            fprintf(stderr, "g16d: %s\n", lst.msg);
            goto out;
        }
    }
    if (open_context(&d, &cfg))
        goto out;
    if (open_engine(&d, &cfg))
        goto out;
    size_t requeued = 0;
    if (open_store_and_keys(&d, &cfg, &requeued))
        goto out;
    g16d_keys_restore(&d);
    if (!cfg.keys_file)
        g16d_log(G16D_WARN, "keys_file",
                 json_pack("{s:s}", "message", "no keys_file: keys registered over the API are forgotten at exit"));
    pthread_mutex_lock(&d.mtx);
    int n_keys = (int)d.n_keys;
    pthread_mutex_unlock(&d.mtx);
    char bound[300] = "";
    if (g16d_http_start(&d, bound, sizeof bound))
        goto out;
    if (g16d_dispatch_start(&d)) {
        fputs("g16d: could not start the dispatcher threads\n", stderr);
        goto out_http;
    }
    g16d_log(G16D_INFO, "started",
             json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:I,s:i,s:b}", "version", g16_version(), "listen", bound, "backend",
                       cfg.backend, "store",
                       store_backend(d.st), "owner", cfg.owner, "workers", d.n_workers, "requeued",
                       (json_int_t)requeued, "keys", n_keys, "auth", cfg.token != NULL));
    if (cfg.ready_file)
        write_ready_file(cfg.ready_file, bound);
    wait_for_stop(&set);
    g16d_dispatch_stop(&d);
    exit_code = 0;
out_http:
    pthread_mutex_lock(&d.mtx);
    d.stopping = 1;
    d.draining = 1;
    pthread_cond_broadcast(&d.change);
    pthread_mutex_unlock(&d.mtx);
    g16d_http_stop(&d);
out:
    if (d.threads_started)
        g16d_dispatch_stop(&d);
    if (d.eng)
        g16_engine_destroy(d.eng, 0);
    store_close(d.st);
    if (store_lock_fd >= 0)
        close(store_lock_fd); /* releases the store's lock */
    if (exit_code == 0)
        g16d_log(G16D_INFO, "stopped", NULL);
    g16d_pending_free_all(&d);
    free(d.keys);
    free(d.slots);
    free(d.runners);
    free(d.ejmap);
    if (d.ctx)
        g16_ctx_destroy(d.ctx);
    pthread_cond_destroy(&d.work);
    pthread_cond_destroy(&d.change);
    pthread_mutex_destroy(&d.mtx);
    if (cfg.ready_file && exit_code == 0)
        unlink(cfg.ready_file);
    g16d_config_free(&cfg);
    g16d_log_close();
    return exit_code;
}
