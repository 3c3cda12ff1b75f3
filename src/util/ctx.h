/* The context object (internal view). Carries threads, the error callback and
 * caches owned by higher layers (each registered with its own destructor, so
 * this base layer needs none of their headers). */
#ifndef G16_CTX_H
#define G16_CTX_H

#include <pthread.h>

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
};

/* Records st in ctx (message and callback) and returns st->code. */
g16_err g16_ctx_report(g16_ctx *ctx, const g16_status *st);
/* Formats, records and returns code. */
g16_err g16_ctx_fail(g16_ctx *ctx, g16_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
