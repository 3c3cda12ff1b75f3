/* Instantiates the MSM template (msm_impl.c.h) for the four groups, plus the
 * shared pieces: the window/range cost model, Booth digits, Fr -> scalar. */
#include "msm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The context's msm.batch_affine: 0 auto, 1 on, 2 off (read under its lock:
 * g16_ctx_set_option may run concurrently). */
static int msm_affine_option(g16_ctx *ctx) {
    pthread_mutex_lock(&ctx->lock);
    int mode = (int)g16_config_int(&ctx->cfg, G16_OPT_MSM_BATCH_AFFINE);
    pthread_mutex_unlock(&ctx->lock);
    return mode;
}

/* ---- plan: window c and point ranges per window ----------------------------
 * Cost model, in XYZZ mixed-addition units, of the critical path with W
 * workers:
 *   ceil(nw * P / W) * (A(c) * m / P + R(c) * 2^(c-1)),   nw = ceil((bits + 1) / c),
 * P = point ranges per window (each a job with its own bucket reduction).
 * A = cost of one bucket addition: 1 for XYZZ buckets, 0.65 + 5 / batch for
 * batch-affine ones (c >= MSM_AFFINE_MIN_C; 0.65 measured 296 vs 460 ms at
 * 2^16, c = 13, BN254 G1, one thread), where batch = min(MSM_BATCH_CAP,
 * 2^(c-1) / 4) additions share one flush's inversion (~53M, about 5 XYZZ
 * additions): small windows flush small batches. With it 2^14 gets c = 11
 * and 2^16 c = 13 (were 10 and 12; 2^12, 2^18+ unchanged): BN254 G1,
 * 2 threads, IFMA flush, CPU ms, interleaved, loaded: 2^14 c = 10 53.7-54.8,
 * c = 11 48.0-48.6; 2^16 c = 12 160.9-168.5, c = 13 160.1-163.1.
 * R = cost of reducing one bucket by running sums: two XYZZ
 * additions (12M+2S, ~1.4 mixed each) = 2.8, or for affine buckets one mixed
 * plus one full addition = 2.4. Buckets past the L2 cache (2^(c-1) affine
 * points over 1 MiB) make A 15% dearer (2^20 BN254 G1, 2 threads: c = 15
 * 4.32 s CPU, c = 16 4.86 s). c is capped at 16. docs/ntt-msm.md lists the
 * measurements. */
#define MSM_AUTO_MAX_WINDOW 16

typedef struct msm_plan {
    unsigned c, nw, P;
    int workers;
    size_t jobs;
} msm_plan;

/* xyzz_only: the XYZZ costs at every c (batch-affine buckets off). */
static void msm_make_plan(msm_plan *pl, size_t m, int threads, unsigned bits, size_t pt_bytes,
                          unsigned c_force, int xyzz_only) {
    int W = threads < 1 ? 1 : threads;
    if (m < 512) /* too small to pay for threads */
        W = 1;
    else if ((size_t)W > m / 256)
        W = (int)(m / 256);
    double best = -1;
    unsigned cmin = c_force ? c_force : 1, cmax = c_force ? c_force : MSM_AUTO_MAX_WINDOW;
    pl->c = cmin;
    pl->P = 1;
    for (unsigned c = cmin; c <= cmax; c++) {
        unsigned nw = (bits + 1 + c - 1) / c;
        unsigned pmax = (unsigned)((4 * (unsigned)W + nw - 1) / nw);
        if (pmax < 1)
            pmax = 1;
        for (unsigned P = 1; P <= pmax; P++) {
            double jobs = (double)nw * P;
            double rounds = (double)(size_t)((jobs + W - 1) / W);
            int aff = c >= MSM_AFFINE_MIN_C && !xyzz_only;
            /* buckets beyond L2 (1 MiB here): slower accumulation */
            double cache = ((size_t)1 << (c - 1)) * pt_bytes > ((size_t)1 << 20) ? 1.15 : 1.0;
            size_t batch = ((size_t)1 << (c - 1)) / 4;
            if (batch > MSM_BATCH_CAP)
                batch = MSM_BATCH_CAP;
            if (batch < 1)
                batch = 1;
            double A = aff ? 0.65 + 5.0 / (double)batch : 1.0;
            double cost = rounds * (cache * A * (double)m / P +
                                    (aff ? 2.4 : 2.8) * (double)((size_t)1 << (c - 1)));
            if (best < 0 || cost < best) {
                best = cost;
                pl->c = c;
                pl->P = P;
            }
        }
    }
    pl->nw = (bits + 1 + pl->c - 1) / pl->c;
    pl->jobs = (size_t)pl->nw * pl->P;
    pl->workers = (size_t)W < pl->jobs ? W : (int)pl->jobs;
}

unsigned msm_window_for(size_t m, int workers, unsigned bits, size_t pt_bytes) {
    return msm_window_for_ctx(NULL, m, workers, bits, pt_bytes);
}

unsigned msm_window_for_ctx(g16_ctx *ctx, size_t m, int workers, unsigned bits, size_t pt_bytes) {
    msm_plan pl;
    msm_make_plan(&pl, m, workers, bits, pt_bytes, 0, ctx && msm_affine_option(ctx) == 2);
    return pl.c;
}

/* Largest window the automatic plan picks for any m <= n, with or without
 * batch-affine buckets (sizes scratch, so that it does not depend on the
 * msm.batch_affine option). */
static unsigned msm_max_auto_window(size_t n, int threads, unsigned bits, size_t pt_bytes) {
    unsigned c = 1;
    for (size_t m = n; m > 0; m >>= 1)
        for (int x = 0; x < 2; x++) {
            msm_plan pl;
            msm_make_plan(&pl, m, threads, bits, pt_bytes, 0, x);
            if (pl.c > c)
                c = pl.c;
        }
    return c;
}

/* Booth digit of window w: bits [wc-1, wc+c) of k (bit -1 = 0) give
 * d = bits[wc, wc+c) + bit[wc-1] - 2^c bit[wc+c-1], in [-2^(c-1), 2^(c-1)].
 * sum_w d_w 2^(wc) = k telescopes; c <= MSM_MAX_WINDOW < 32. */
static inline int32_t msm_booth(const g16_scalar *k, unsigned lo, unsigned c) {
    uint64_t x;
    unsigned pos = lo ? lo - 1 : 0, len = lo ? c + 1 : c;
    unsigned li = pos / 64, off = pos % 64;
    if (li >= 4)
        return 0;
    x = k->l[li] >> off;
    if (off + len > 64 && li + 1 < 4)
        x |= k->l[li + 1] << (64 - off);
    x &= ((uint64_t)1 << len) - 1;
    if (!lo)
        x <<= 1;
    int32_t d = (int32_t)((x >> 1) + (x & 1));
    if (x >> c)
        d -= (int32_t)1 << c;
    return d;
}

static inline int msm_is_zero(const g16_scalar *k) { return (k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0; }
static inline int msm_is_one(const g16_scalar *k) {
    return k->l[0] == 1 && (k->l[1] | k->l[2] | k->l[3]) == 0;
}

static size_t msm_nchunks(size_t n, int threads) {
    size_t t = (size_t)(threads < 1 ? 1 : threads) * 4, max = (n + 1023) / 1024;
    if (t > max)
        t = max;
    return t ? t : 1;
}

static size_t msm_align(size_t x) { return (x + 63) & ~(size_t)63; }

static inline int msm_bit(const uint8_t *bits, size_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

/* ---- Fr (Montgomery) -> g16_scalar ------------------------------------------ */
#define MSM_TO_SCALARS(FR)                                                                 \
    typedef struct {                                                                       \
        g16_scalar *out;                                                                   \
        const FR *in;                                                                      \
        size_t n, chunk;                                                                   \
    } msm_conv_##FR;                                                                       \
    static void msm_conv_task_##FR(void *arg, size_t t) {                                  \
        const msm_conv_##FR *cv = arg;                                                     \
        size_t i1 = (t + 1) * cv->chunk < cv->n ? (t + 1) * cv->chunk : cv->n;             \
        for (size_t i = t * cv->chunk; i < i1; i++) {                                      \
            limb_t x[4];                                                                   \
            FR##_from_mont(x, &cv->in[i]);                                                 \
            memcpy(cv->out[i].l, x, sizeof x);                                             \
        }                                                                                  \
    }                                                                                      \
    void msm_##FR##_to_scalars(g16_ctx *ctx, g16_scalar *out, const FR *in, size_t n) {    \
        size_t nt = msm_nchunks(n, ctx ? g16_pool_threads(ctx->pool) : 1);                 \
        msm_conv_##FR cv = {.out = out, .in = in, .n = n, .chunk = (n + nt - 1) / nt};     \
        if (n == 0)                                                                        \
            return;                                                                        \
        g16_pool_run(ctx ? ctx->pool : NULL, nt, msm_conv_task_##FR, &cv);                \
    }
MSM_TO_SCALARS(bn254_fr)
MSM_TO_SCALARS(bls381_fr)

/* ---- variable-time inversion for the batch-affine buckets ----------------------
 * The field layer's safegcd inv_vartime (bucket and base coordinates are
 * public in the MSM's model, msm.h). Fp2 (u^2 = -1 for both curves):
 * 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2). */
#define MSM_INV_FP(FP, FP_UP, NL)                                                 \
    static void msm_inv_##FP(FP *r, const FP *a) { FP##_inv_vartime(r, a); }      \
    static void msm_inv_##FP##2(FP##2 *r, const FP##2 *a) {                       \
        FP t0, t1;                                                                \
        FP##_sqr(&t0, &a->c0);                                                    \
        FP##_sqr(&t1, &a->c1);                                                    \
        FP##_add(&t0, &t0, &t1);                                                  \
        FP##_inv_vartime(&t0, &t0);                                               \
        FP##_mul(&r->c0, &a->c0, &t0);                                            \
        FP##_mul(&t1, &a->c1, &t0);                                               \
        FP##_neg(&r->c1, &t1);                                                    \
    }
MSM_INV_FP(bn254_fp, BN254_FP, 4)
MSM_INV_FP(bls381_fp, BLS381_FP, 6)

#define G bn254_g1
#define E bn254_fp
#define MN_BATCH_E 1 /* E has <E>_mul_batch (flush_batch_) */
#define M_BITS 254
#include "msm_impl.c.h"
#undef G
#undef E
#undef M_BITS
#undef MN_BATCH_E

#define G bn254_g2
#define E bn254_fp2
#define MN_BATCH_E 0
#define M_BITS 254
#include "msm_impl.c.h"
#undef G
#undef E
#undef M_BITS
#undef MN_BATCH_E

#define G bls381_g1
#define E bls381_fp
#define MN_BATCH_E 1 /* E has <E>_mul_batch (flush_batch_) */
#define M_BITS 255
#include "msm_impl.c.h"
#undef G
#undef E
#undef M_BITS
#undef MN_BATCH_E

#define G bls381_g2
#define E bls381_fp2
#define MN_BATCH_E 0
#define M_BITS 255
#include "msm_impl.c.h"
#undef G
#undef E
#undef M_BITS
#undef MN_BATCH_E
