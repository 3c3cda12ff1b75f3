/* The context object (internal view). Carries threads, the error callback and
 * caches owned by higher layers (each registered with its own destructor, so
 * this base layer needs none of their headers). */
#ifndef G16_CTX_H
#define G16_CTX_H

#include <pthread.h>

#include "config.h"
#include "util.h"

enum { G16_CACHE_NTT = 0, G16_CACHE_GPU, G16_CACHE_COUNT };

struct g16_ctx {
    int threads;
    g16_pool *pool;
    g16_error_cb error_cb;
    void *error_cb_user;
    pthread_mutex_t lock; /* guards last_* and caches */
    g16_err last_err;
    char last_msg[512];
    void *cache[G16_CACHE_COUNT];
    void (*cache_free[G16_CACHE_COUNT])(void *);
    g16_config cfg; /* defaults + environment at creation, then g16_ctx_set_option (under lock) */
};

/* The context's options (config.h). Read it when creating the objects it
 * configures (GPU contexts, engines); g16_ctx_set_option changes it under
 * ctx->lock, so a caller racing a setter copies it: g16_ctx_config_copy. */
const g16_config *g16_ctx_config(const g16_ctx *ctx);
void g16_ctx_config_copy(g16_ctx *ctx, g16_config *out);
/* Replaces the context's options by cfg (benches: their --set flags). */
void g16_ctx_config_replace(g16_ctx *ctx, const g16_config *cfg);

/* Records st in ctx (message and callback) and returns st->code. */
g16_err g16_ctx_report(g16_ctx *ctx, const g16_status *st);
/* Formats, records and returns code. */
g16_err g16_ctx_fail(g16_ctx *ctx, g16_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
