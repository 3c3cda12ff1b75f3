/* g16 bench ntt|msm: CPU NTT and MSM timings. Each prints min, median and
 * max over its R timed runs (min_ms, median_ms, max_ms; "ms" is the min)
 * and checks its own result first (exit 1 when wrong).
 *   g16 bench ntt --curve C --log-n K [--threads T] [--reps R] [--json]
 *     forward NTT natural->natural ("ntt") and the prover's odd-coset step
 *     ("ntt_odd_coset"), on random Fr (seed 1), timed in place (each run
 *     transforms the last one's output). Checked on a copy of the input:
 *     the forward transform at four points against P(w^j) by Horner, the
 *     inverse's round trip back to the input, and the odd-coset step at four
 *     points against P(g w^j) from the inverse's coefficients.
 *   g16 bench msm --curve C --log-n K [--group g1|g2] [--threads T] [--json]
 *     one MSM of 2^K distinct bases d_i G of known logs d_i (random
 *     multiples of the generator stepped by 64 random points) and random
 *     full-size scalars (or, with --profile filecoin, ~99% in {0, 1});
 *     default R = 1 at K >= 18, else 3. Checked against (sum s_i d_i) G. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/ctx.h"

/* CPU time of the whole process (all threads), ms: on a shared machine
 * cpu_ms / threads approximates the uncontended wall time. */
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* extra + min/median/max of ms[0..reps-1] and the CPU time of the min run
 * into out; returns the min. */
static double report_stats(char *out, size_t cap, const char *extra, const double *ms, const double *cms,
                           int reps) {
    double sorted[256];
    int best = 0;
    for (int i = 0; i < reps; i++) {
        sorted[i] = ms[i];
        if (ms[i] < ms[best])
            best = i;
    }
    qsort(sorted, (size_t)reps, sizeof *sorted, cmp_double);
    snprintf(out, cap, "%s,\"reps\":%d,\"min_ms\":%.6g,\"median_ms\":%.6g,\"max_ms\":%.6g,\"cpu_ms\":%.1f", extra,
             reps, sorted[0], sorted[reps / 2], sorted[reps - 1], cms[best]);
    return sorted[0];
}

/* The NTT bench's check (see the top): 0 when right, else 1 with a message.
 * x is the input (left unchanged). */
#define CHECK_NTT(F)                                                                                                   \
    static void horner_##F(F *r, const F *c, size_t n, const F *z) {                                                   \
        F##_set_zero(r);                                                                                               \
        for (size_t i = n; i-- > 0;) {                                                                                 \
            F##_mul(r, r, z);                                                                                          \
            F##_add(r, r, &c[i]);                                                                                      \
        }                                                                                                              \
    }                                                                                                                  \
    static int check_ntt_##F(g16_ctx *ctx, const F *x, unsigned k) {                                                   \
        size_t n = (size_t)1 << k;                                                                                     \
        F *y = malloc(n * sizeof *y), *c = malloc(n * sizeof *c), w, g, z, v;                                          \
        const char *bad = NULL;                                                                                        \
        size_t at = 0;                                                                                                 \
        if (!y || !c) {                                                                                                \
            free(y), free(c);                                                                                          \
            fprintf(stderr, "g16 bench ntt: out of memory for the check\n");                                           \
            return 1;                                                                                                  \
        }                                                                                                              \
        size_t js[4] = {0, 1 % n, (n / 2 + 1) % n, n - 1};                                                             \
        memcpy(y, x, n * sizeof *y);                                                                                   \
        memcpy(c, x, n * sizeof *c);                                                                                   \
        if (!ntt_##F##_root(&w, k) || !ntt_##F##_root(&g, k + 1) || ntt_##F##_forward(ctx, y, k, NTT_NN) ||           \
            ntt_##F##_inverse(ctx, c, k, NTT_NN)) {                                                                    \
            bad = "a transform failed";                                                                                \
            goto out;                                                                                                  \
        }                                                                                                              \
        for (int t = 0; t < 4 && !bad; t++) { /* forward: y[j] = P_x(w^j), P_x the polynomial of coefficients x */     \
            limb_t e[1] = {(limb_t)js[t]};                                                                             \
            F##_pow(&z, &w, e, 1);                                                                                     \
            horner_##F(&v, x, n, &z);                                                                                  \
            if (!F##_eq(&v, &y[js[t]]))                                                                                \
                bad = "forward transform", at = js[t];                                                                 \
        }                                                                                                              \
        if (!bad && ntt_##F##_inverse(ctx, y, k, NTT_NN))                                                              \
            bad = "inverse transform";                                                                                 \
        for (size_t i = 0; i < n && !bad; i++)                                                                         \
            if (!F##_eq(&y[i], &x[i]))                                                                                 \
                bad = "inverse round trip", at = i;                                                                    \
        /* odd coset: x as evaluations on the domain, c = inverse(x) its coefficients; out[j] = P_c(g w^j) */          \
        memcpy(y, x, n * sizeof *y);                                                                                   \
        if (!bad && ntt_##F##_odd_coset_from_evals(ctx, y, k))                                                         \
            bad = "odd-coset step";                                                                                    \
        for (int t = 0; t < 4 && !bad; t++) {                                                                          \
            limb_t e[1] = {(limb_t)js[t]};                                                                             \
            F##_pow(&z, &w, e, 1);                                                                                     \
            F##_mul(&z, &z, &g);                                                                                       \
            horner_##F(&v, c, n, &z);                                                                                  \
            if (!F##_eq(&v, &y[js[t]]))                                                                                \
                bad = "odd-coset step", at = js[t];                                                                    \
        }                                                                                                              \
    out:                                                                                                               \
        free(y), free(c);                                                                                              \
        if (bad)                                                                                                       \
            fprintf(stderr, "g16 bench ntt: check failed at 2^%u: %s (element %zu)\n", k, bad, at);                    \
        return bad != NULL;                                                                                            \
    }

CHECK_NTT(bn254_fr)
CHECK_NTT(bls381_fr)

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
        int reps = o->reps > 0 ? (o->reps < 256 ? o->reps : 256) : (k >= 22 ? 1 : k >= 18 ? 3 : 5); \
        if (check_ntt_##F(ctx, a, k)) {                                                        \
            free(a);                                                                           \
            return 1;                                                                          \
        }                                                                                      \
        char extra[96];                                                                        \
        snprintf(extra, sizeof extra, "\"log_n\":%u,\"threads\":%d,\"checked\":true", k,     \
                 g16_ctx_threads(ctx));                                                        \
        for (int op = 0; op < 2; op++) {                                                       \
            double ms[256], cms[256];                                                          \
            for (int r = 0; r < reps + 1; r++) { /* first run warms the twiddle cache */       \
                double t0 = g16_now_ms(), c0 = cpu_ms();                                       \
                g16_err err = op == 0 ? ntt_##F##_forward(ctx, a, k, NTT_NN)                   \
                                      : ntt_##F##_odd_coset_from_evals(ctx, a, k);             \
                double dt = g16_now_ms() - t0, dc = cpu_ms() - c0;                             \
                if (err != G16_OK) {                                                           \
                    fprintf(stderr, "g16 bench ntt: %s\n", g16_err_str(err));                  \
                    free(a);                                                                   \
                    return 1;                                                                  \
                }                                                                              \
                if (r > 0)                                                                     \
                    ms[r - 1] = dt, cms[r - 1] = dc;                                           \
            }                                                                                  \
            char ex2[256];                                                                     \
            double best = report_stats(ex2, sizeof ex2, extra, ms, cms, reps);                 \
            bench_report(o, op == 0 ? "ntt" : "ntt_odd_coset", curve, ex2, "ms", best);        \
        }                                                                                      \
        free(a);                                                                               \
        return 0;                                                                              \
    }

BENCH_NTT(bn254_fr)
BENCH_NTT(bls381_fr)

static g16_ctx *bench_ctx(const bench_opts *o) {
    g16_ctx_opts opts = {.threads = o->threads};
    return bench_ctx_create(o, &opts);
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

/* Inputs: bench_msm_inputs (distinct bases of known logs; --seed, default 7).
 * bench.msm_window = c ($G16_MSM_WINDOW) forces the window and
 * bench.msm_flags ($G16_MSM_FLAGS) the msm.h flags (tuning runs; flags
 * default to MSM_SPLIT). */
#define BENCH_MSM(G, FR, BITS)                                                                     \
    static int bench_msm_##G(const bench_opts *o, g16_ctx *ctx, g16_curve curve, unsigned k) { \
        size_t n = (size_t)1 << k;                                                             \
        int filecoin = bench_profile(o) == 1; /* ~99% in {0, 1} */                            \
        bench_msm_in in;                                                                       \
        if (bench_msm_inputs(ctx, curve, !strcmp(o->group, "g2"), n, filecoin,                \
                             o->seed_set ? o->seed : 7, &in)) {                               \
            fprintf(stderr, "g16 bench msm: out of memory\n");                                 \
            return 1;                                                                          \
        }                                                                                      \
        const G##_affine *P = in.bases;                                                        \
        const g16_scalar *sc = in.sc;                                                          \
        G##_jac r;                                                                             \
        unsigned c = (unsigned)g16_config_int(&o->cfg, G16_OPT_BENCH_MSM_WINDOW);               \
        int aflags = (int)g16_config_int(&o->cfg, G16_OPT_BENCH_MSM_FLAGS); /* with the window */ \
        int reps = o->reps > 0 ? (o->reps < 256 ? o->reps : 256) : (k >= 18 ? 1 : 3);          \
        double ms[256], cms[256];                                                              \
        for (int rep = 0; rep < reps; rep++) {                                                 \
            double t0 = g16_now_ms(), c0 = cpu_ms();                                           \
            g16_err err = c ? msm_##G##_tuned(ctx, &r, P, sc, n, c, aflags)                         \
                            : msm_##G(ctx, &r, P, sc, n, NULL, 0);                             \
            ms[rep] = g16_now_ms() - t0, cms[rep] = cpu_ms() - c0;                             \
            if (err != G16_OK) {                                                               \
                fprintf(stderr, "g16 bench msm: %s\n", g16_err_str(err));                      \
                bench_msm_inputs_free(&in);                                                    \
                return 1;                                                                      \
            }                                                                                  \
            if (!bench_msm_check(&in, &r)) {                                                   \
                fprintf(stderr, "g16 bench msm: run %d: the sum differs from (sum s_i d_i) G\n", rep); \
                bench_msm_inputs_free(&in);                                                    \
                return 1;                                                                      \
            }                                                                                  \
        }                                                                                      \
        char extra[224], ex2[400];                                                             \
        snprintf(extra, sizeof extra,                                                          \
                 "\"group\":\"%s\",\"log_n\":%u,%s\"threads\":%d,\"window\":%u,\"checked\":true", \
                 o->group, k, filecoin ? "\"profile\":\"filecoin\"," : "", g16_ctx_threads(ctx),                                            \
                 c ? c : msm_window_for_ctx(ctx, n, g16_ctx_threads(ctx), BITS, sizeof(G##_affine)));                        \
        double best = report_stats(ex2, sizeof ex2, extra, ms, cms, reps);                     \
        bench_report(o, "msm", curve, ex2, "ms", best);                                        \
        bench_msm_inputs_free(&in);                                                            \
        return 0;                                                                              \
    }

BENCH_MSM(bn254_g1, bn254_fr, 254)
BENCH_MSM(bn254_g2, bn254_fr, 254)
BENCH_MSM(bls381_g1, bls381_fr, 255)
BENCH_MSM(bls381_g2, bls381_fr, 255)

int bench_msm(const bench_opts *o) {
    unsigned k = o->log_n >= 0 ? (unsigned)o->log_n : 16;
    int g2 = !strcmp(o->group, "g2");
    if (!g2 && strcmp(o->group, "g1")) {
        fprintf(stderr, "g16 bench msm: --group must be g1 or g2\n");
        return 2;
    }
    g16_ctx *ctx = bench_ctx(o);
    if (!ctx)
        return 1;
    int rc = 0;
    for (int c = 0; c < 2 && rc == 0; c++) {
        g16_curve curve = c == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;
        if (o->curve_set && o->curve != curve)
            continue;
        if (curve == G16_CURVE_BN254)
            rc = g2 ? bench_msm_bn254_g2(o, ctx, curve, k) : bench_msm_bn254_g1(o, ctx, curve, k);
        else
            rc = g2 ? bench_msm_bls381_g2(o, ctx, curve, k) : bench_msm_bls381_g1(o, ctx, curve, k);
    }
    g16_ctx_destroy(ctx);
    return rc;
}
