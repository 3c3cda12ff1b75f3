/* The MSM benches' inputs (CPU and GPU, bench.h's bench_msm_inputs).
 * Bases: 2^k distinct points of known logs. P_i = P_{i-1} + S_(i mod 64) in
 * 256-point segments, each segment starting from a random multiple of the
 * generator (S_j: 64 random multiples); then batch normalized, one segment
 * per pool task. Not uniform, but distinct and cheap (one addition per point
 * and one scalar multiplication per segment). Scalars: uniform in Fr, or
 * with the filecoin profile about 99% in {0, 1} (half each) and the rest
 * uniform. The expected sum is (sum_i s_i d_i) G with d_i the log of P_i. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util/ctx.h"

#define MSM_INPUTS(G, FR)                                                                                              \
    typedef struct {                                                                                                   \
        G##_affine *P;                                                                                                 \
        FR *D; /* D[i]: the log of P[i] to the generator */                                                            \
        const G##_jac *S;                                                                                              \
        const FR *s; /* the logs of S */                                                                               \
        size_t n;                                                                                                      \
        uint64_t seed;                                                                                                 \
    } in_##G;                                                                                                          \
    static void task_##G(void *arg, size_t t) {                                                                        \
        in_##G *b = arg;                                                                                               \
        size_t i0 = t * 256, i1 = i0 + 256 < b->n ? i0 + 256 : b->n;                                                   \
        G##_jac J[256], cur;                                                                                           \
        G##_affine g;                                                                                                  \
        G##_generator(&g);                                                                                             \
        G##_jac_from_affine(&cur, &g);                                                                                 \
        g16_rng rng;                                                                                                   \
        g16_rng_seed(&rng, b->seed + 1000 + t);                                                                        \
        FR f;                                                                                                          \
        FR##_random(&f, &rng);                                                                                         \
        g16_scalar k;                                                                                                  \
        FR##_from_mont(k.l, &f);                                                                                       \
        G##_jac_mul_vartime(&cur, &cur, &k);                                                                           \
        for (size_t i = i0; i < i1; i++) {                                                                             \
            G##_jac_add(&cur, &cur, &b->S[i % 64]);                                                                    \
            FR##_add(&f, &f, &b->s[i % 64]);                                                                           \
            J[i - i0] = cur;                                                                                           \
            b->D[i] = f;                                                                                               \
        }                                                                                                              \
        __typeof__(g.x) s[256];                                                                                        \
        G##_jac_batch_to_affine(&b->P[i0], J, i1 - i0, s);                                                             \
    }                                                                                                                  \
    static int inputs_##G(g16_ctx *ctx, size_t n, int filecoin, uint64_t seed, bench_msm_in *in) {                     \
        G##_affine *P = malloc(n * sizeof *P);                                                                         \
        g16_scalar *sc = malloc(n * sizeof *sc);                                                                       \
        FR *D = malloc(n * sizeof *D), s_log[64];                                                                      \
        G##_jac S[64];                                                                                                 \
        if (!P || !sc || !D) {                                                                                         \
            free(P), free(sc), free(D);                                                                                \
            return 1;                                                                                                  \
        }                                                                                                              \
        g16_rng rng;                                                                                                   \
        g16_rng_seed(&rng, seed);                                                                                      \
        G##_affine g;                                                                                                  \
        G##_generator(&g);                                                                                             \
        for (int i = 0; i < 64; i++) {                                                                                 \
            FR f;                                                                                                      \
            FR##_random(&f, &rng);                                                                                     \
            g16_scalar kk;                                                                                             \
            FR##_from_mont(kk.l, &f);                                                                                  \
            s_log[i] = f;                                                                                              \
            G##_jac_from_affine(&S[i], &g);                                                                            \
            G##_jac_mul_vartime(&S[i], &S[i], &kk);                                                                    \
        }                                                                                                              \
        in_##G b = {.P = P, .D = D, .S = S, .s = s_log, .n = n, .seed = seed};                                         \
        g16_pool_run(ctx->pool, (n + 255) / 256, task_##G, &b);                                                        \
        for (size_t i = 0; i < n; i++) {                                                                               \
            FR f;                                                                                                      \
            uint64_t x = filecoin ? g16_rng_next(&rng) % 200 : 199;                                                    \
            if (x < 198) {                                                                                             \
                memset(&sc[i], 0, sizeof sc[i]);                                                                       \
                sc[i].l[0] = x & 1;                                                                                    \
                continue;                                                                                              \
            }                                                                                                          \
            FR##_random(&f, &rng);                                                                                     \
            FR##_from_mont(sc[i].l, &f);                                                                               \
        }                                                                                                              \
        FR acc, t;                                                                                                     \
        FR##_set_zero(&acc);                                                                                           \
        for (size_t i = 0; i < n; i++) {                                                                               \
            FR##_to_mont(&t, sc[i].l);                                                                                 \
            FR##_mul(&t, &t, &D[i]);                                                                                   \
            FR##_add(&acc, &acc, &t);                                                                                  \
        }                                                                                                              \
        g16_scalar ka;                                                                                                 \
        FR##_from_mont(ka.l, &acc);                                                                                    \
        G##_jac *want = (G##_jac *)(void *)&in->want;                                                                  \
        G##_jac_from_affine(want, &g);                                                                                 \
        G##_jac_mul_vartime(want, want, &ka);                                                                          \
        free(D);                                                                                                       \
        in->bases = P, in->sc = sc;                                                                                    \
        return 0;                                                                                                      \
    }

MSM_INPUTS(bn254_g1, bn254_fr)
MSM_INPUTS(bn254_g2, bn254_fr)
MSM_INPUTS(bls381_g1, bls381_fr)
MSM_INPUTS(bls381_g2, bls381_fr)

int bench_msm_inputs(g16_ctx *ctx, g16_curve curve, int g2, size_t n, int filecoin, uint64_t seed,
                     bench_msm_in *in) {
    memset(in, 0, sizeof *in);
    in->curve = curve, in->g2 = g2, in->n = n, in->seed = seed;
    if (curve == G16_CURVE_BN254)
        return g2 ? inputs_bn254_g2(ctx, n, filecoin, seed, in) : inputs_bn254_g1(ctx, n, filecoin, seed, in);
    return g2 ? inputs_bls381_g2(ctx, n, filecoin, seed, in) : inputs_bls381_g1(ctx, n, filecoin, seed, in);
}

int bench_msm_check(const bench_msm_in *in, const void *got) {
    const void *w = &in->want;
    if (in->curve == G16_CURVE_BN254)
        return in->g2 ? bn254_g2_jac_eq(got, w) : bn254_g1_jac_eq(got, w);
    return in->g2 ? bls381_g2_jac_eq(got, w) : bls381_g1_jac_eq(got, w);
}

void bench_msm_inputs_free(bench_msm_in *in) {
    free(in->bases);
    free(in->sc);
    in->bases = NULL, in->sc = NULL;
}
