/* g16 bench arith: single-thread latency of field, group and pairing ops. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "field/field.h"

/* Times `iters` dependent iterations of stmt, o->reps times (default 50),
 * and reports the fastest run in ns per iteration. Many short runs and the
 * minimum filter out interference from other processes on a shared machine
 * (a run is ~0.5 ms for the field figures). */
#define TIME_NS(o, name, curve, iters, stmt)                                   \
    do {                                                                       \
        double best = 1e300;                                                   \
        char extra_[64];                                                       \
        snprintf(extra_, sizeof extra_, "\"threads\":1,\"field_asm\":%d",     \
                 g16_field_asm_active());                                      \
        for (int rep = 0; rep < ((o)->reps > 0 ? (o)->reps : 50); rep++) {     \
            double t0 = g16_now_ms();                                          \
            for (long it = 0; it < (iters); it++) {                            \
                stmt;                                                          \
            }                                                                  \
            double ns = (g16_now_ms() - t0) * 1e6 / (double)(iters);           \
            if (ns < best)                                                     \
                best = ns;                                                     \
        }                                                                      \
        bench_report(o, name, curve, extra_, "ns", best);                      \
    } while (0)

#define BENCH_FIELDS(o, curve, FP, FR)                                         \
    do {                                                                       \
        g16_rng rng;                                                           \
        g16_rng_seed(&rng, 42);                                                \
        FP a, b;                                                               \
        FR c, d;                                                               \
        FP##_random(&a, &rng);                                                 \
        FP##_random(&b, &rng);                                                 \
        FR##_random(&c, &rng);                                                 \
        FR##_random(&d, &rng);                                                 \
        TIME_NS(o, "fp_mul", curve, 20000, FP##_mul(&a, &a, &b));              \
        TIME_NS(o, "fp_sqr", curve, 20000, FP##_sqr(&a, &a));                  \
        TIME_NS(o, "fp_inv", curve, 200, FP##_inv(&a, &a));                    \
        TIME_NS(o, "fp_inv_vartime", curve, 500, FP##_inv_vartime(&a, &a));    \
        TIME_NS(o, "fr_mul", curve, 20000, FR##_mul(&c, &c, &d));              \
        if (FP##_is_zero(&a) && FR##_is_zero(&c))                              \
            printf("#\n"); /* keep results live */                             \
    } while (0)

int bench_arith(const bench_opts *o) {
    for (int k = 0; k < 2; k++) {
        g16_curve curve = k == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;
        if (o->curve_set && o->curve != curve)
            continue;
        if (curve == G16_CURVE_BN254)
            BENCH_FIELDS(o, curve, bn254_fp, bn254_fr);
        else
            BENCH_FIELDS(o, curve, bls381_fp, bls381_fr);
    }
    return 0;
}
