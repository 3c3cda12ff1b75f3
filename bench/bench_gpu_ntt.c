/* `g16 bench ntt --backend cuda`: the GPU NTT (src/gpu/ntt/ntt.cuh) on random Fr.
 * Inputs: three vectors of 2^K independent random elements (seed --seed, default 0x6e7474, printed), every
 * element below r. Checked before the timing, on copies (exit 1 when wrong): the forward transform equals
 * the CPU's (natural and bit-reversed output) and, at one point, P(w) by Horner; the inverse brings it back
 * to the input; the odd-coset step and the whole H step equal the CPU's (ntt_<fr>_odd_coset_from_evals,
 * then a*b - c out of Montgomery form). Times come from CUDA events (g16_gpu_timing) after two warm-up runs
 * (one above 2^24), over --reps runs (default 7; above 2^24, 3), each transforming the last one's output
 * (random data stays random under the transform), min / median / max ("ms" is the median):
 *   "kernels": the device-resident transform alone (what the prover pays:
 *              its data stays on the device),
 *   "total":   with the host -> device and device -> host copies (pageable
 *              host memory, so copies run below full PCIe speed).
 * Figures: ntt (forward, natural -> natural), ntt_nr (forward, natural ->
 * bit-reversed: no permutation pass), ntt_odd_coset (the prover's
 * odd_coset_from_evals), h (the whole H step on three vectors: three odd
 * cosets and h = a*b - c out of Montgomery form). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "field/field.h"
#include "gpu/gpu.h"
#include "ntt/ntt.h"
#include "util/ctx.h"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* splitmix64: a fast generator for the 3 * 2^27 elements of the largest
 * size (the library's g16_rng is slower than the transform at 2^27). */
static uint64_t mix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n random elements of 4 limbs, each below r: the top limb keeps top_bits
 * bits (r's top limb is 0x30644e72... for BN254 and 0x73eda753... for
 * BLS12-381, so 61 and 62 bits are below it). */
static void fill_random(limb_t *x, size_t n, uint64_t *s, int top_bits) {
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++)
            x[4 * i + j] = mix64(s);
        x[4 * i + 3] = mix64(s) >> (64 - top_bits);
    }
}

/* The checks of the top, for one field; 0 when right, else 1 with a message. */
#define CHECK_GPU_NTT(F)                                                                                               \
    static int check_##F(g16_ctx *ctx, g16_gpu *gpu, g16_gpu_domain *d, const F *a, const F *b, const F *c,           \
                         unsigned k) {                                                                                 \
        size_t n = (size_t)1 << k;                                                                                     \
        F *g = malloc(n * sizeof *g), *y = malloc(n * sizeof *y), *yb = malloc(n * sizeof *yb),                        \
          *yc = malloc(n * sizeof *yc), w, v;                                                                          \
        g16_scalar *h = malloc(n * sizeof *h);                                                                         \
        g16_status st = {0};                                                                                           \
        const char *bad = NULL;                                                                                        \
        size_t at = 0;                                                                                                 \
        if (!g || !y || !yb || !yc || !h) {                                                                            \
            bad = "out of memory for the check";                                                                       \
            goto out;                                                                                                  \
        }                                                                                                              \
        for (int ord = 0; ord < 2 && !bad; ord++) { /* forward, NN then NR: GPU = CPU */                               \
            memcpy(g, a, n * sizeof *g), memcpy(y, a, n * sizeof *y);                                                  \
            if (g16_gpu_ntt(gpu, d, g, G16_GPU_NTT_FORWARD, ord, NULL, NULL, &st) != G16_OK ||                         \
                ntt_##F##_forward(ctx, y, k, ord ? NTT_NR : NTT_NN) != G16_OK) {                                       \
                bad = "a forward transform failed";                                                                    \
                break;                                                                                                 \
            }                                                                                                          \
            for (size_t i = 0; i < n && !bad; i++)                                                                     \
                if (!F##_eq(&g[i], &y[i]))                                                                             \
                    bad = ord ? "forward (bit-reversed output) differs from the CPU's" : "forward differs from the CPU's", \
                    at = i;                                                                                            \
        }                                                                                                              \
        if (!bad) { /* the natural-order forward again; y[1] = P(w) by Horner */                                       \
            memcpy(g, a, n * sizeof *g);                                                                               \
            if (g16_gpu_ntt(gpu, d, g, G16_GPU_NTT_FORWARD, 0, NULL, NULL, &st) != G16_OK || !ntt_##F##_root(&w, k))   \
                bad = "a forward transform failed";                                                                    \
            F##_set_zero(&v);                                                                                          \
            for (size_t i = n; !bad && i-- > 0;) {                                                                     \
                F##_mul(&v, &v, &w);                                                                                   \
                F##_add(&v, &v, &a[i]);                                                                                \
            }                                                                                                          \
            if (!bad && !F##_eq(&v, &g[1 % n]))                                                                        \
                bad = "forward transform against Horner", at = 1 % n;                                                  \
        }                                                                                                              \
        if (!bad && g16_gpu_ntt(gpu, d, g, G16_GPU_NTT_INVERSE, 0, NULL, NULL, &st) != G16_OK)                         \
            bad = "the inverse transform failed";                                                                      \
        for (size_t i = 0; i < n && !bad; i++)                                                                         \
            if (!F##_eq(&g[i], &a[i]))                                                                                 \
                bad = "inverse round trip", at = i;                                                                    \
        /* odd coset: GPU = CPU */                                                                                     \
        memcpy(g, a, n * sizeof *g), memcpy(y, a, n * sizeof *y);                                                      \
        if (!bad && (g16_gpu_ntt(gpu, d, g, G16_GPU_NTT_ODD_COSET, 0, NULL, NULL, &st) != G16_OK ||                    \
                     ntt_##F##_odd_coset_from_evals(ctx, y, k) != G16_OK))                                             \
            bad = "an odd-coset step failed";                                                                          \
        for (size_t i = 0; i < n && !bad; i++)                                                                         \
            if (!F##_eq(&g[i], &y[i]))                                                                                 \
                bad = "odd-coset step differs from the CPU's", at = i;                                                 \
        /* H: h_i = a'_i b'_i - c'_i (odd-coset values), standard form */                                              \
        memcpy(yb, b, n * sizeof *yb), memcpy(yc, c, n * sizeof *yc);                                                  \
        if (!bad && (g16_gpu_h(gpu, d, a, b, c, h, NULL, &st) != G16_OK ||                                             \
                     ntt_##F##_odd_coset_from_evals(ctx, yb, k) != G16_OK ||                                           \
                     ntt_##F##_odd_coset_from_evals(ctx, yc, k) != G16_OK))                                            \
            bad = "an H step failed";                                                                                  \
        for (size_t i = 0; i < n && !bad; i++) {                                                                       \
            limb_t e[4];                                                                                               \
            F##_mul(&v, &y[i], &yb[i]);                                                                                \
            F##_sub(&v, &v, &yc[i]);                                                                                   \
            F##_from_mont(e, &v);                                                                                      \
            if (memcmp(e, h[i].l, sizeof e) != 0)                                                                      \
                bad = "H step differs from the CPU's", at = i;                                                         \
        }                                                                                                              \
    out:                                                                                                               \
        free(g), free(y), free(yb), free(yc), free(h);                                                                 \
        if (bad)                                                                                                       \
            fprintf(stderr, "g16 bench ntt --backend cuda: check failed at 2^%u: %s (element %zu)%s%s\n", k, bad, at,  \
                    st.msg[0] ? ": " : "", st.msg);                                                                    \
        return bad != NULL;                                                                                            \
    }

CHECK_GPU_NTT(bn254_fr)
CHECK_GPU_NTT(bls381_fr)

int bench_ntt_cuda(const bench_opts *o) {
    g16_curve curve = o->curve_set ? o->curve : G16_CURVE_BLS12_381;
    int lg = o->log_n >= 0 ? o->log_n : 20;
    int reps = o->reps > 0 ? (o->reps < 256 ? o->reps : 256) : (lg > 24 ? 3 : 7);
    int warm = lg > 24 ? 1 : 2;
    if (lg < 1 || lg > 28) {
        fprintf(stderr, "g16 bench ntt: --log-n 1..28\n");
        return 2;
    }
    size_t n = (size_t)1 << lg;
    if (g16_gpu_count() == 0) {
        fprintf(stderr, "g16 bench ntt: no GPU\n");
        return 1;
    }
    g16_status st = {0};
    g16_gpu *gpu = NULL;
    g16_gpu_domain *d = NULL;
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    int rc = 1;
    /* 32-byte elements (4 limbs) for both curves' Fr. */
    limb_t *a = malloc(n * 32), *b = malloc(n * 32), *c = malloc(n * 32);
    g16_scalar *h = malloc(n * sizeof *h);
    float *tot = calloc((size_t)reps, sizeof *tot), *ker = calloc((size_t)reps, sizeof *ker);
    if (!ctx || !a || !b || !c || !h || !tot || !ker) {
        fprintf(stderr, "g16 bench ntt: out of memory\n");
        goto done;
    }
    if (g16_gpu_create(&gpu, 0, 1, 0, &o->cfg, &st) != G16_OK || g16_gpu_domain_create(gpu, &d, curve, (unsigned)lg, &st) != G16_OK) {
        fprintf(stderr, "g16 bench ntt: %s\n", st.msg);
        goto done;
    }
    uint64_t seed = o->seed_set ? o->seed : 0x6e7474, s = seed;
    int top = curve == G16_CURVE_BN254 ? 61 : 62;
    fill_random(a, n, &s, top);
    fill_random(b, n, &s, top);
    fill_random(c, n, &s, top);
    double t0 = g16_now_ms();
    if (curve == G16_CURVE_BN254 ? check_bn254_fr(ctx, gpu, d, (const bn254_fr *)(void *)a, (const bn254_fr *)(void *)b,
                                                  (const bn254_fr *)(void *)c, (unsigned)lg)
                                 : check_bls381_fr(ctx, gpu, d, (const bls381_fr *)(void *)a,
                                                   (const bls381_fr *)(void *)b, (const bls381_fr *)(void *)c,
                                                   (unsigned)lg))
        goto done;
    double check_ms = g16_now_ms() - t0;
    static const char *names[] = {"ntt", "ntt_nr", "ntt_odd_coset", "h"};
    for (int op = 0; op < 4; op++) {
        for (int r = -warm; r < reps; r++) {
            g16_gpu_timing tm;
            g16_err e;
            switch (op) {
            case 0: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_FORWARD, 0, NULL, &tm, &st); break;
            case 1: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_FORWARD, 1, NULL, &tm, &st); break;
            case 2: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_ODD_COSET, 0, NULL, &tm, &st); break;
            default: e = g16_gpu_h(gpu, d, a, b, c, h, &tm, &st); break;
            }
            if (e != G16_OK) {
                fprintf(stderr, "g16 bench ntt: %s: %s\n", names[op], st.msg);
                goto done;
            }
            if (r >= 0)
                tot[r] = tm.total_ms, ker[r] = tm.kernel_ms;
        }
        qsort(tot, (size_t)reps, sizeof *tot, cmp_float);
        qsort(ker, (size_t)reps, sizeof *ker, cmp_float);
        for (int w = 0; w < 2; w++) {
            const float *t = w ? tot : ker;
            char extra[320];
            snprintf(extra, sizeof extra,
                     "\"log_n\":%d,\"reps\":%d,\"what\":\"%s\",\"min_ms\":%.4f,\"median_ms\":%.4f,\"max_ms\":%.4f,"
                     "\"seed\":%llu,\"checked\":true,\"check_ms\":%.0f",
                     lg, reps, w ? "total" : "kernels", t[0], t[reps / 2], t[reps - 1], (unsigned long long)seed,
                     check_ms);
            bench_report(o, names[op], curve, extra, "ms", t[reps / 2]);
        }
    }
    rc = 0;
done:
    g16_gpu_domain_free(d);
    g16_gpu_destroy(gpu);
    g16_ctx_destroy(ctx);
    free(a), free(b), free(c), free(h), free(tot), free(ker);
    return rc;
}
