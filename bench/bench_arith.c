/* g16 bench arith: single-thread latency of field, group and pairing ops.
 * Every figure is a dependent chain (x = op(x, y)), so it measures latency;
 * ns per operation, the fastest of several runs. The exceptions are the
 * batch figures (<f>_mul_indep, <f>_mul_batch_ifma): throughput of
 * BATCH_N independent products out[i] = a[i] * b[i], ns per product. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pairing/pairing.h"

/* Times `iters` dependent iterations of stmt, `runs` times (o->reps when
 * given), and reports the fastest run in ns per iteration. Many short runs
 * and the minimum filter out interference from other processes on a shared
 * machine (a run is ~0.5 ms for the field and group figures). */
/* TIME_NS_DIV: the same, per 1/div of an iteration (an iteration of div
 * operations). "field_ifma" is 1 where the CPU can run the IFMA kernel. */
#define TIME_NS(o, name, curve, iters, runs, stmt) TIME_NS_DIV(o, name, curve, iters, runs, 1, stmt)
#define TIME_NS_DIV(o, name, curve, iters, runs, div, stmt)                    \
    do {                                                                       \
        double best = 1e300;                                                   \
        char extra_[80];                                                       \
        snprintf(extra_, sizeof extra_,                                        \
                 "\"threads\":1,\"field_asm\":%d,\"field_ifma\":%d",          \
                 g16_field_asm_active(), g16_field_ifma_supported());          \
        for (int rep = 0; rep < ((o)->reps > 0 ? (o)->reps : (runs)); rep++) { \
            double t0 = g16_now_ms();                                          \
            for (long it = 0; it < (iters); it++) {                            \
                stmt;                                                          \
            }                                                                  \
            double ns = (g16_now_ms() - t0) * 1e6 / ((double)(iters) * (div)); \
            if (ns < best)                                                     \
                best = ns;                                                     \
        }                                                                      \
        bench_report(o, name, curve, extra_, "ns", best);                      \
    } while (0)

/* Batch figures: BATCH_N independent products per run (three arrays of 96
 * KB for 4-limb fields, L2-resident), ns per product, fastest of 50 runs.
 *   <f>_mul_indep       a loop of the scalar <f>_mul (<f>_mul_batch_scalar:
 *                       MULX or portable, as field_asm says);
 *   <f>_mul_batch_ifma  the AVX-512 IFMA kernel (<f>_mul_batch_ifma), only
 *                       where the CPU has it. */
#define BATCH_N 1024
#if G16_FIELD_ASM_X86
#define BENCH_IFMA(o, name, curve, F, out, a, b)                                              \
    do {                                                                                       \
        if (g16_field_ifma_supported())                                                        \
            TIME_NS_DIV(o, name, curve, 20, 50, BATCH_N, F##_mul_batch_ifma(out, a, b, BATCH_N)); \
    } while (0)
#else
#define BENCH_IFMA(o, name, curve, F, out, a, b) ((void)0)
#endif
#define BENCH_BATCH(o, curve, F, prefix)                                                       \
    do {                                                                                       \
        g16_rng brng;                                                                          \
        g16_rng_seed(&brng, 7);                                                                \
        F *ba = malloc(3 * BATCH_N * sizeof *ba);                                              \
        if (!ba)                                                                               \
            break;                                                                             \
        F *bb = ba + BATCH_N, *bo = bb + BATCH_N;                                              \
        for (int i = 0; i < BATCH_N; i++) {                                                    \
            F##_random(&ba[i], &brng);                                                         \
            F##_random(&bb[i], &brng);                                                         \
        }                                                                                      \
        TIME_NS_DIV(o, prefix "_mul_indep", curve, 20, 50, BATCH_N,                            \
                    F##_mul_batch_scalar(bo, ba, bb, BATCH_N));                                \
        BENCH_IFMA(o, prefix "_mul_batch_ifma", curve, F, bo, ba, bb);                         \
        if (F##_is_zero(&bo[0]))                                                               \
            printf("#\n"); /* keep results live */                                             \
        free(ba);                                                                              \
    } while (0)

/* A random scalar below 2^250 (both groups' orders exceed it). */
static void random_scalar(g16_scalar *k, g16_rng *rng) {
    for (int i = 0; i < 4; i++)
        k->l[i] = g16_rng_next(rng);
    k->l[3] >>= 6;
}

#define BENCH_CURVE(o, curve, C)                                                   \
    do {                                                                           \
        g16_rng rng;                                                               \
        g16_rng_seed(&rng, 42);                                                    \
        C##_fp a, b;                                                               \
        C##_fr c, d;                                                               \
        C##_fp_random(&a, &rng);                                                   \
        C##_fp_random(&b, &rng);                                                   \
        C##_fr_random(&c, &rng);                                                   \
        C##_fr_random(&d, &rng);                                                   \
        TIME_NS(o, "fp_mul", curve, 20000, 50, C##_fp_mul(&a, &a, &b));            \
        TIME_NS(o, "fp_sqr", curve, 20000, 50, C##_fp_sqr(&a, &a));                \
        TIME_NS(o, "fp_inv", curve, 200, 50, C##_fp_inv(&a, &a));                  \
        TIME_NS(o, "fp_inv_vartime", curve, 500, 50, C##_fp_inv_vartime(&a, &a));  \
        TIME_NS(o, "fr_mul", curve, 20000, 50, C##_fr_mul(&c, &c, &d));            \
        BENCH_BATCH(o, curve, C##_fp, "fp");                                       \
        BENCH_BATCH(o, curve, C##_fr, "fr");                                       \
        /* Group: general points [k]G with Z != 1; complete (constant-time)       \
         * Jacobian formulas. */                                                   \
        g16_scalar k1, k2;                                                         \
        random_scalar(&k1, &rng);                                                  \
        random_scalar(&k2, &rng);                                                  \
        C##_g1_affine g1a;                                                         \
        C##_g2_affine g2a;                                                         \
        C##_g1_jac g1, p1, q1;                                                     \
        C##_g2_jac g2, p2, q2;                                                     \
        C##_g1_generator(&g1a);                                                    \
        C##_g2_generator(&g2a);                                                    \
        C##_g1_jac_from_affine(&g1, &g1a);                                         \
        C##_g2_jac_from_affine(&g2, &g2a);                                         \
        C##_g1_jac_mul_vartime(&p1, &g1, &k1);                                     \
        C##_g1_jac_mul_vartime(&q1, &g1, &k2);                                     \
        C##_g2_jac_mul_vartime(&p2, &g2, &k1);                                     \
        C##_g2_jac_mul_vartime(&q2, &g2, &k2);                                     \
        TIME_NS(o, "g1_add", curve, 1000, 50, C##_g1_jac_add(&p1, &p1, &q1));      \
        TIME_NS(o, "g1_dbl", curve, 2000, 50, C##_g1_jac_dbl(&p1, &p1));           \
        TIME_NS(o, "g2_add", curve, 500, 50, C##_g2_jac_add(&p2, &p2, &q2));       \
        /* Pairing of general points; multi-pairing: 3 Miller loops, one final \
         * exponentiation. */                                                      \
        C##_g1_affine pa[3];                                                       \
        C##_g2_affine qa[3];                                                       \
        for (int i = 0; i < 3; i++) {                                              \
            g16_scalar ki;                                                         \
            C##_g1_jac t1;                                                         \
            C##_g2_jac t2;                                                         \
            random_scalar(&ki, &rng);                                              \
            C##_g1_jac_mul_vartime(&t1, &g1, &ki);                                 \
            C##_g1_jac_to_affine(&pa[i], &t1);                                     \
            random_scalar(&ki, &rng);                                              \
            C##_g2_jac_mul_vartime(&t2, &g2, &ki);                                 \
            C##_g2_jac_to_affine(&qa[i], &t2);                                     \
        }                                                                          \
        C##_fp12 e, acc;                                                           \
        C##_fp12_set_one(&acc);                                                    \
        TIME_NS(o, "pairing", curve, 1, 15, (C##_pairing(&e, &pa[0], &qa[0]),     \
                                             C##_fp12_mul(&acc, &acc, &e)));       \
        TIME_NS(o, "multi_pairing_3", curve, 1, 15,                                \
                (C##_multi_pairing(&e, pa, qa, 3), C##_fp12_mul(&acc, &acc, &e))); \
        if (C##_fp_is_zero(&a) && C##_fr_is_zero(&c) && C##_g1_jac_is_inf(&p1) &&  \
            C##_g2_jac_is_inf(&p2) && C##_fp12_is_one(&acc))                       \
            printf("#\n"); /* keep results live */                                 \
    } while (0)

int bench_arith(const bench_opts *o) {
    for (int k = 0; k < 2; k++) {
        g16_curve curve = k == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;
        if (o->curve_set && o->curve != curve)
            continue;
        if (curve == G16_CURVE_BN254)
            BENCH_CURVE(o, curve, bn254);
        else
            BENCH_CURVE(o, curve, bls381);
    }
    return 0;
}
