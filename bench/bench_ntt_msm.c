/* g16 bench ntt|msm: CPU NTT and MSM timings.
 *   g16 bench ntt --curve C --log-n K [--threads T] [--reps R] [--json]
 *     forward NTT natural->natural ("ntt") and the prover's odd-coset step
 *     ("ntt_odd_coset"), on random Fr; best of R runs.
 *   g16 bench msm --curve C --log-n K [--group g1|g2] [--threads T] [--json]
 *     one MSM of 2^K random bases (random multiples of the generator built
 *     from a few hundred scalar multiplications and additions) and random
 *     full-size scalars; best of R runs (default 1 at K >= 18). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ntt/ntt.h"
#include "util/ctx.h"

#define BENCH_NTT(F)                                                                           \
    static int bench_ntt_##F(const bench_opts *o, g16_ctx *ctx, g16_curve curve, unsigned k) { \
        size_t n = (size_t)1 << k;                                                             \
        F *a = malloc(n * sizeof(F));                                                          \
        if (!a) {                                                                              \
            fprintf(stderr, "g16 bench ntt: out of memory\n");                                 \
            return 1;                                                                          \
        }                                                                                      \
        g16_rng rng;                                                                           \
        g16_rng_seed(&rng, 1);                                                                 \
        for (size_t i = 0; i < n; i++)                                                         \
            F##_random(&a[i], &rng);                                                           \
        int reps = o->reps > 0 ? o->reps : (k >= 22 ? 1 : k >= 18 ? 3 : 5);                    \
        char extra[96];                                                                        \
        snprintf(extra, sizeof extra, "\"log_n\":%u,\"threads\":%d", k, g16_ctx_threads(ctx)); \
        for (int op = 0; op < 2; op++) {                                                       \
            double best = 1e300;                                                               \
            for (int r = 0; r < reps + 1; r++) { /* first run warms the twiddle cache */       \
                double t0 = g16_now_ms();                                                      \
                g16_err err = op == 0 ? ntt_##F##_forward(ctx, a, k, NTT_NN)                   \
                                      : ntt_##F##_odd_coset_from_evals(ctx, a, k);             \
                double ms = g16_now_ms() - t0;                                                 \
                if (err != G16_OK) {                                                           \
                    fprintf(stderr, "g16 bench ntt: %s\n", g16_err_str(err));                  \
                    free(a);                                                                   \
                    return 1;                                                                  \
                }                                                                              \
                if (r > 0 && ms < best)                                                        \
                    best = ms;                                                                 \
            }                                                                                  \
            bench_report(o, op == 0 ? "ntt" : "ntt_odd_coset", curve, extra, "ms", best);      \
        }                                                                                      \
        free(a);                                                                               \
        return 0;                                                                              \
    }

BENCH_NTT(bn254_fr)
BENCH_NTT(bls381_fr)

static g16_ctx *bench_ctx(const bench_opts *o) {
    g16_ctx_opts opts = {.threads = o->threads};
    return g16_ctx_create(&opts);
}

int bench_ntt(const bench_opts *o) {
    unsigned k = o->log_n >= 0 ? (unsigned)o->log_n : 20;
    g16_ctx *ctx = bench_ctx(o);
    if (!ctx)
        return 1;
    int rc = 0;
    for (int c = 0; c < 2 && rc == 0; c++) {
        g16_curve curve = c == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;
        if (o->curve_set && o->curve != curve)
            continue;
        rc = curve == G16_CURVE_BN254 ? bench_ntt_bn254_fr(o, ctx, curve, k)
                                      : bench_ntt_bls381_fr(o, ctx, curve, k);
    }
    g16_ctx_destroy(ctx);
    return rc;
}

int bench_msm(const bench_opts *o) {
    (void)o;
    fprintf(stderr, "g16 bench msm: not built yet\n");
    return 2;
}
