/* Instantiates the NTT (ntt_impl.c.h) for Fr of BN254 and BLS12-381 and owns
 * the twiddle cache kept in ctx->cache[G16_CACHE_NTT]. */
#include "ntt.h"

#include <stdlib.h>
#include <string.h>

/* Largest sub-transform (row or column of the four-step) with a table:
 * k <= 32 splits into halves of at most 16. */
#ifndef NTT_MAX_SUB
#define NTT_MAX_SUB 16
#endif
#define NTT_MAX_LOG 32
#define NTT_STR_(x) #x
#define NTT_STR(x) NTT_STR_(x)

/* Twiddle tables, built on first use and then immutable until the context
 * dies. Indexed [field][dir][log]: dir 0 uses w[k], dir 1 uses w[k]^-1.
 *   sub[f][d][j]  = (w[j]^{+-1})^i for i < 2^(j-1): radix-2 twiddles of a
 *                   transform of size 2^j (j <= NTT_MAX_SUB);
 *   col[f][d][k]  = (w[k]^{+-1})^c for c < n2 = 2^(k/2): the per-column base
 *                   of the four-step twiddle omega^(i1*c) at size 2^k;
 *   full[f][d][k] = the whole four-step twiddle matrix for k <= NTT_FULL_TW_MAX_LOG:
 *                   entry c*n1 + r is s * omega^(c * rev_k1(r)), s = 1 (dir 0) or
 *                   2^-k (dir 1, the inverse's scale), n elements;
 *   stg[f][d][j]  = the radix-2 twiddles of size 2^j laid out by stage, for
 *                   the batched path: entry h + i = w_(2h)^i (w_(2h) =
 *                   (w[j]^{+-1})^(2^j / 2h)) for each half-size h = 1, 2, ...,
 *                   2^(j-1) and i < h, so that a stage reads its h twiddles
 *                   contiguously (entry 0 unused), 2^j elements. */
typedef struct ntt_cache {
    void *sub[2][2][NTT_MAX_SUB + 1];
    void *stg[2][2][NTT_MAX_SUB + 1];
    void *col[2][2][NTT_MAX_LOG + 1];
    void *full[2][2][NTT_FULL_TW_MAX_LOG + 1];
    int no_full;  /* ntt_set_full_twiddles(ctx, 0): per-column twiddles only */
    int no_batch; /* ntt_set_batch_mul(ctx, 0): the scalar products only */
} ntt_cache;

static void ntt_cache_free(void *p) {
    ntt_cache *c = p;
    if (!c)
        return;
    for (int f = 0; f < 2; f++)
        for (int d = 0; d < 2; d++) {
            for (int j = 0; j <= NTT_MAX_SUB; j++) {
                free(c->sub[f][d][j]);
                free(c->stg[f][d][j]);
            }
            for (int k = 0; k <= NTT_MAX_LOG; k++)
                free(c->col[f][d][k]);
            for (int k = 0; k <= NTT_FULL_TW_MAX_LOG; k++)
                free(c->full[f][d][k]);
        }
    free(c);
}

/* Returns the cache, creating it; call with ctx->lock held. */
static ntt_cache *ntt_cache_get_locked(g16_ctx *ctx) {
    if (!ctx->cache[G16_CACHE_NTT]) {
        ntt_cache *c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        ctx->cache[G16_CACHE_NTT] = c;
        ctx->cache_free[G16_CACHE_NTT] = ntt_cache_free;
    }
    return ctx->cache[G16_CACHE_NTT];
}

g16_err ntt_set_full_twiddles(g16_ctx *ctx, int on) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    ntt_cache *c = ntt_cache_get_locked(ctx);
    if (c)
        c->no_full = !on;
    pthread_mutex_unlock(&ctx->lock);
    return c ? G16_OK : G16_ERR_NOMEM;
}

g16_err ntt_set_batch_mul(g16_ctx *ctx, int on) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&ctx->lock);
    ntt_cache *c = ntt_cache_get_locked(ctx);
    if (c)
        c->no_batch = !on;
    pthread_mutex_unlock(&ctx->lock);
    return c ? G16_OK : G16_ERR_NOMEM;
}

/* Whether transforms on ctx take the batched (IFMA) products. */
static int ntt_batch_on(g16_ctx *ctx) {
    if (!g16_field_ifma_active())
        return 0;
    pthread_mutex_lock(&ctx->lock);
    ntt_cache *c = ntt_cache_get_locked(ctx);
    int on = c && !c->no_batch;
    pthread_mutex_unlock(&ctx->lock);
    return on;
}

#define F bn254_fr
#define F_UP BN254_FR
#define F_IDX 0
#include "ntt_impl.c.h"
#undef F
#undef F_UP
#undef F_IDX

#define F bls381_fr
#define F_UP BLS381_FR
#define F_IDX 1
#include "ntt_impl.c.h"
#undef F
#undef F_UP
#undef F_IDX
