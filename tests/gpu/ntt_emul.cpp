/* Host check of the GPU NTT (src/gpu/ntt/ntt.cuh: kernels, pass plan, twiddles,
 * scale tables, the H step) against the CPU ntt layer, without a GPU: the
 * kernels run serially on the CPU (src/gpu/ntt/ntt_emul.h). Build and run:
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/ntt_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/ntt_emul && /tmp/ntt_emul [max_log]
 * (default max_log 16: every kind and order for both curves up to 2^16,
 * which covers plans of 1, 2 and 3 passes from 2^12 up: pass with 2^21 for
 * three passes of the large-n shape). The test on the device is
 * tests/test_gpu_ntt.c. */
#include <stdio.h>
#include <string.h>

#define G16_NTT_EMUL 1
#include "gpu/ntt/ntt.cuh"
extern "C" {
#include "ntt/ntt.h"
#include "util/ctx.h"
}

emul_dim threadIdx, blockIdx, blockDim;
namespace g16gpu {
uint32_t S[(8 << NTT_TILE_LOG) > 8 * 512 ? (8 << NTT_TILE_LOG) : 8 * 512]; /* pass tiles, bit-reversal tiles */
}

static const uint64_t bn254_roots[][4] = BN254_FR_NTT_ROOTS;
static const uint64_t bn254_roots_inv[][4] = BN254_FR_NTT_ROOTS_INV;
static const uint64_t bn254_inv2pow[][4] = BN254_FR_NTT_INV_2POW;
static const uint64_t bls381_roots[][4] = BLS381_FR_NTT_ROOTS;
static const uint64_t bls381_roots_inv[][4] = BLS381_FR_NTT_ROOTS_INV;
static const uint64_t bls381_inv2pow[][4] = BLS381_FR_NTT_INV_2POW;

static int fails = 0, checks = 0;

static void cmp(const char *curve, const char *what, unsigned k, const void *x, const void *y, size_t n) {
    checks++;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)x + 32 * i, (const char *)y + 32 * i, 32)) {
            if (fails++ < 30)
                printf("FAIL %s %s 2^%u: first mismatch at %zu\n", curve, what, k, i);
            return;
        }
}

static const char *kn[] = {"forward", "inverse", "coset_forward", "coset_inverse", "odd_coset"};

template <class G, class C>
static void run(const char *name, g16_curve curve, const uint64_t (*R)[4], const uint64_t (*RI)[4],
                const uint64_t (*I2)[4], unsigned s, void (*rnd)(C *, g16_rng *),
                g16_err (*cpu)(g16_ctx *, C *, unsigned, int, int, const C *), void (*hcpu)(C *, const C *, const C *, const C *, size_t),
                g16_ctx *ctx, g16_rng *rng, unsigned max_log) {
    g16_gpu gg = {};
    g16_gpu *g = &gg;
    g->d_ntt_scratch = malloc(G16GPU_NTT_SCRATCH * 32);
    g16_status st = {};
    for (unsigned k = 0; k <= max_log; k++) {
        if (k > 16 && k != max_log)
            continue;
        size_t n = (size_t)1 << k;
        g16_gpu_domain d = {};
        d.curve = curve;
        d.log_n = k;
        if (g16gpu::ntt_domain_init<G>(g, &d, R, RI, I2, s, &st)) {
            printf("FAIL domain %s 2^%u: %s\n", name, k, st.msg);
            fails++;
            continue;
        }
        C *a = (C *)malloc(n * 32), *x = (C *)malloc(n * 32), *y = (C *)malloc(n * 32);
        for (size_t i = 0; i < n; i++)
            rnd(&a[i], rng);
        C sh;
        rnd(&sh, rng);
        for (int kind = 0; kind < 5; kind++)
            for (int ord = 0; ord < 4; ord++) {
                if (kind == 4 && ord)
                    continue;
                memcpy(x, a, n * 32);
                memcpy(y, a, n * 32);
                cpu(ctx, x, k, kind, ord, &sh);
                g16_err rc = g16gpu::ntt_run<G>(g, &d, y, (g16_gpu_ntt_kind)kind, ord, &sh, &st);
                char what[64];
                snprintf(what, sizeof what, "%s ord %d%s", kn[kind], ord, rc ? " (error)" : "");
                cmp(name, what, k, y, x, n);
            }
        /* H */
        C *b = (C *)malloc(n * 32), *c = (C *)malloc(n * 32), *hr = (C *)malloc(n * 32);
        for (size_t i = 0; i < n; i++)
            rnd(&b[i], rng), rnd(&c[i], rng);
        memcpy(x, a, n * 32);
        C *bb = (C *)malloc(n * 32), *cc = (C *)malloc(n * 32);
        memcpy(bb, b, n * 32);
        memcpy(cc, c, n * 32);
        hcpu(hr, a, b, c, n); /* uses ctx-free CPU path below */
        g16gpu::ntt_h_run<G>(g, &d, x, bb, cc, (g16_scalar *)(void *)x, &st);
        cmp(name, "h", k, x, hr, n);
        free(b), free(c), free(hr), free(bb), free(cc);
        free(a), free(x), free(y);
        free(d.d_mem);
        free(d.d_full);
        printf("  %s 2^%u done (%d failures so far)\n", name, k, fails);
        fflush(stdout);
    }
    free(g->d_ntt_scratch);
}

static g16_ctx *gctx;

#define CPU_FN(F)                                                                                   \
    static g16_err F##_cpu(g16_ctx *ctx, F *a, unsigned k, int kind, int ord, const F *g) {         \
        switch (kind) {                                                                             \
        case 0: return ntt_##F##_forward(ctx, a, k, (ntt_order)ord);                                \
        case 1: return ntt_##F##_inverse(ctx, a, k, (ntt_order)ord);                                \
        case 2: return ntt_##F##_coset_forward(ctx, a, k, g, (ntt_order)ord);                       \
        case 3: return ntt_##F##_coset_inverse(ctx, a, k, g, (ntt_order)ord);                       \
        default: return ntt_##F##_odd_coset_from_evals(ctx, a, k);                                  \
        }                                                                                           \
    }                                                                                               \
    static void F##_h(F *h, const F *a, const F *b, const F *c, size_t n) {                         \
        unsigned k = 0;                                                                             \
        while (((size_t)1 << k) < n)                                                                \
            k++;                                                                                    \
        F *x = (F *)malloc(3 * n * sizeof(F));                                                      \
        memcpy(x, a, n * sizeof(F));                                                                \
        memcpy(x + n, b, n * sizeof(F));                                                            \
        memcpy(x + 2 * n, c, n * sizeof(F));                                                        \
        for (int i = 0; i < 3; i++)                                                                 \
            ntt_##F##_odd_coset_from_evals(gctx, x + i * n, k);                                     \
        for (size_t i = 0; i < n; i++) {                                                            \
            F t;                                                                                    \
            F##_mul(&t, &x[i], &x[n + i]);                                                          \
            F##_sub(&t, &t, &x[2 * n + i]);                                                         \
            F##_from_mont((limb_t *)(void *)&h[i], &t);                                             \
        }                                                                                           \
        free(x);                                                                                    \
    }
CPU_FN(bn254_fr)
CPU_FN(bls381_fr)

int main(int argc, char **argv) {
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
    g16_ctx_opts opts = {};
    opts.threads = 2;
    gctx = g16_ctx_create(&opts);
    g16_rng rng;
    g16_rng_seed(&rng, 12345);
    for (unsigned k = 12; k <= 28; k++) {
        g16gpu::ntt_plan pl = g16gpu::ntt_make_plan(k, g16gpu::NTT_COLS_LOG);
        printf("plan 2^%u:", k);
        for (int i = 0; i < pl.np; i++)
            printf(" (m %u B %u t %u)", pl.m[i], pl.B[i], pl.t[i]);
        printf("\n");
    }
    run<g16gpu::bn254_fr, bn254_fr>("bn254_fr", G16_CURVE_BN254, bn254_roots, bn254_roots_inv, bn254_inv2pow,
                                    BN254_FR_NTT_S, bn254_fr_random, bn254_fr_cpu, bn254_fr_h, gctx, &rng, max_log);
    run<g16gpu::bls381_fr, bls381_fr>("bls381_fr", G16_CURVE_BLS12_381, bls381_roots, bls381_roots_inv,
                                      bls381_inv2pow, BLS381_FR_NTT_S, bls381_fr_random, bls381_fr_cpu, bls381_fr_h,
                                      gctx, &rng, max_log);
    g16_ctx_destroy(gctx);
    printf("ntt_emul: %d checks, %d failures\n", checks, fails);
    return fails != 0;
}
