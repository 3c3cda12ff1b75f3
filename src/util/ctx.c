#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ctx.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CPUs this process may run on (taskset, cgroup cpusets), else the
 * online count. */
static int cpus_available(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

g16_ctx *g16_ctx_create(const g16_ctx_opts *opts) {
    g16_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    int threads = opts ? opts->threads : 0;
    if (threads <= 0)
        threads = cpus_available();
    ctx->threads = threads;
    if (opts) {
        ctx->error_cb = opts->error_cb;
        ctx->error_cb_user = opts->error_cb_user;
    }
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->pool = g16_pool_create(threads);
    if (!ctx->pool) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
        return NULL;
    }
    return ctx;
}

void g16_ctx_destroy(g16_ctx *ctx) {
    if (!ctx)
        return;
    for (int i = 0; i < G16_CACHE_COUNT; i++)
        if (ctx->cache[i] && ctx->cache_free[i])
            ctx->cache_free[i](ctx->cache[i]);
    g16_pool_destroy(ctx->pool);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

int g16_ctx_threads(const g16_ctx *ctx) { return ctx ? ctx->threads : 0; }

g16_err g16_ctx_last_error(g16_ctx *ctx, char *buf, size_t buf_len) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    g16_err e = ctx->last_err;
    if (buf && buf_len) {
        strncpy(buf, ctx->last_msg, buf_len - 1);
        buf[buf_len - 1] = 0;
    }
    pthread_mutex_unlock(&ctx->lock);
    return e;
}

/* The calling thread's last error (g16_last_error): every error reported
 * through g16_ctx_report / g16_ctx_fail, with or without a context. */
static _Thread_local struct {
    g16_err code;
    char msg[512];
} tl_last;

g16_err g16_last_error(char *buf, size_t buf_len) {
    if (buf && buf_len)
        snprintf(buf, buf_len, "%s", tl_last.msg);
    return tl_last.code;
}

g16_err g16_ctx_report(g16_ctx *ctx, const g16_status *st) {
    if (st->code == G16_OK)
        return st->code;
    tl_last.code = st->code;
    snprintf(tl_last.msg, sizeof tl_last.msg, "%s", st->msg[0] ? st->msg : g16_err_str(st->code));
    if (!ctx)
        return st->code;
    pthread_mutex_lock(&ctx->lock);
    ctx->last_err = st->code;
    snprintf(ctx->last_msg, sizeof ctx->last_msg, "%s", st->msg[0] ? st->msg : g16_err_str(st->code));
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->error_cb)
        ctx->error_cb(st->code, st->msg[0] ? st->msg : g16_err_str(st->code), ctx->error_cb_user);
    return st->code;
}

g16_err g16_ctx_fail(g16_ctx *ctx, g16_err code, const char *fmt, ...) {
    g16_status st = {.code = code};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.msg, sizeof st.msg, fmt, ap);
    va_end(ap);
    return g16_ctx_report(ctx, &st);
}

const char *g16_version(void) { return "0.1.0"; }

const char *g16_curve_name(g16_curve curve) {
    return curve == G16_CURVE_BN254 ? "bn254" : curve == G16_CURVE_BLS12_381 ? "bls12-381" : "unknown";
}

g16_err g16_curve_from_name(g16_curve *curve, const char *name) {
    if (!curve || !name)
        return g16_ctx_fail(NULL, G16_ERR_INVALID_ARG, "g16_curve_from_name: NULL argument");
    static const struct { const char *n; g16_curve c; } names[] = {
        {"bn254", G16_CURVE_BN254},         {"bn128", G16_CURVE_BN254},
        {"alt_bn128", G16_CURVE_BN254},     {"bls12-381", G16_CURVE_BLS12_381},
        {"bls12_381", G16_CURVE_BLS12_381}, {"bls12381", G16_CURVE_BLS12_381},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].n) == 0) {
            *curve = names[i].c;
            return G16_OK;
        }
    return g16_ctx_fail(NULL, G16_ERR_INVALID_ARG, "unknown curve '%s' (bn254, bls12-381)", name);
}
