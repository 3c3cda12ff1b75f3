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

g16_err g16_env_check(char *msg, size_t msg_len) {
    g16_config cfg;
    g16_status st = {0};
    g16_config_init(&cfg);
    g16_err e = g16_config_from_env(&cfg, &st);
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", e ? st.msg : "");
    return e;
}

void g16_ctx_opts_init(g16_ctx_opts *opts) { memset(opts, 0, sizeof *opts); }

g16_ctx *g16_ctx_create(const g16_ctx_opts *opts) {
    g16_ctx *ctx = NULL;
    return g16_ctx_create_ex(&ctx, opts, NULL, 0) == G16_OK ? ctx : NULL;
}

g16_err g16_ctx_create_ex(g16_ctx **out, const g16_ctx_opts *opts, char *msg, size_t msg_len) {
    if (msg && msg_len)
        msg[0] = 0;
    if (!out)
        return G16_ERR_INVALID_ARG;
    *out = NULL;
    g16_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        if (msg && msg_len)
            snprintf(msg, msg_len, "context: out of memory");
        return G16_ERR_NOMEM;
    }
    g16_status cst = {0};
    g16_config_init(&ctx->cfg);
    if (g16_config_from_env(&ctx->cfg, &cst) != G16_OK) {
        if (msg && msg_len)
            snprintf(msg, msg_len, "%s", cst.msg);
        free(ctx);
        return cst.code;
    }
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
        if (msg && msg_len)
            snprintf(msg, msg_len, "context: cannot start %d threads", threads);
        return G16_ERR_NOMEM;
    }
    *out = ctx;
    return G16_OK;
}

const g16_config *g16_ctx_config(const g16_ctx *ctx) { return ctx ? &ctx->cfg : NULL; }

void g16_ctx_config_copy(g16_ctx *ctx, g16_config *out) {
    if (!ctx) {
        g16_config_init(out);
        return;
    }
    pthread_mutex_lock(&ctx->lock);
    *out = ctx->cfg;
    pthread_mutex_unlock(&ctx->lock);
}

void g16_ctx_config_replace(g16_ctx *ctx, const g16_config *cfg) {
    if (!ctx || !cfg)
        return;
    pthread_mutex_lock(&ctx->lock);
    ctx->cfg = *cfg;
    pthread_mutex_unlock(&ctx->lock);
}

g16_err g16_ctx_set_option(g16_ctx *ctx, const char *name, const char *value, g16_option_source source) {
    if (!ctx || !name || !value)
        return G16_ERR_INVALID_ARG;
    if ((int)source < G16_OPTION_DEFAULT || (int)source > G16_OPTION_FLAG)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "option %.80s: unknown source %d", name, (int)source);
    g16_status st = {0};
    pthread_mutex_lock(&ctx->lock);
    g16_config c = ctx->cfg;
    g16_err e = g16_config_set(&c, name, value, (g16_opt_source)source, &st);
    if (!e)
        ctx->cfg = c;
    pthread_mutex_unlock(&ctx->lock);
    return e ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err g16_ctx_get_option(g16_ctx *ctx, const char *name, char *buf, size_t buf_len, g16_option_source *source) {
    if (!ctx || !name || !buf || !buf_len)
        return G16_ERR_INVALID_ARG;
    buf[0] = 0;
    const g16_opt_row *r = g16_opt_find(name);
    if (!r)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "unknown option '%.80s' (docs/config.md lists them)", name);
    pthread_mutex_lock(&ctx->lock);
    g16_config_format(&ctx->cfg, r, buf, buf_len);
    if (source)
        *source = (g16_option_source)ctx->cfg.src[r->id];
    pthread_mutex_unlock(&ctx->lock);
    return G16_OK;
}

g16_err g16_ctx_options_json(g16_ctx *ctx, char **json, int full) {
    if (!json)
        return G16_ERR_INVALID_ARG;
    *json = NULL;
    g16_config c;
    g16_ctx_config_copy(ctx, &c); /* NULL ctx: the defaults */
    *json = g16_config_json_text(&c, full, -1);
    return *json ? G16_OK : G16_ERR_NOMEM;
}

int g16_option_count(void) { return G16_OPT_COUNT; }

g16_err g16_option_check(const char *name, const char *value, char *msg, size_t msg_len) {
    g16_config c;
    g16_status st = {0};
    g16_config_init(&c);
    g16_err e = g16_config_set(&c, name, value, G16_SRC_CONFIG, &st);
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", e ? st.msg : "");
    return e;
}

g16_err g16_option_get_info(g16_option_info *info, int i) {
    if (!info || i < 0 || i >= G16_OPT_COUNT)
        return G16_ERR_INVALID_ARG;
    const g16_opt_row *r = g16_opt_row_by_id((g16_opt_id)i);
    memset(info, 0, sizeof *info);
    info->name = r->key;
    info->env = r->env;
    info->type = g16_opt_type_name(r->type);
    info->doc = r->doc;
    info->operational = r->cls == G16_OPT_OPERATIONAL;
    g16_config_format(NULL, r, info->default_value, sizeof info->default_value);
    if (r->type == G16_OPT_INT || r->type == G16_OPT_UINT64)
        snprintf(info->range, sizeof info->range, r->min_nonzero ? "0 or %lld..%lld" : "%lld..%lld",
                 (long long)(r->min_nonzero ? r->min_nonzero : r->min), (long long)r->max);
    else if (r->type == G16_OPT_ENUM)
        for (int k = 0, o = 0; k < r->n_enum && o < (int)sizeof info->range; k++)
            o += snprintf(info->range + o, sizeof info->range - (size_t)o, "%s%s", k ? ", " : "",
                          r->names[k].name);
    else if (r->type == G16_OPT_BOOL)
        snprintf(info->range, sizeof info->range, "true, false");
    return G16_OK;
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
