/* g16_selfcheck: a quick end-to-end check of the arithmetic on both curves,
 * run by the README's main job. Uses fixed identities, so it needs no oracle:
 * field inverse, square roots, and Fermat's little theorem. */
#include <stdio.h>
#include <string.h>

#include "field/field.h"
#include "util/ctx.h"

#define FIELD_CHECK(F, ok)                                                   \
    do {                                                                     \
        g16_rng rng;                                                         \
        g16_rng_seed(&rng, 1);                                               \
        for (int i = 0; i < 64; i++) {                                       \
            F a, b, t;                                                       \
            F##_random(&a, &rng);                                            \
            F##_inv(&b, &a);                                                 \
            F##_mul(&t, &a, &b);                                             \
            ok &= F##_is_one(&t) | F##_is_zero(&a);                          \
            F##_sqr(&t, &a);                                                 \
            ok &= F##_sqrt(&b, &t);                                          \
            F##_sqr(&b, &b);                                                 \
            ok &= F##_eq(&b, &t);                                            \
        }                                                                    \
    } while (0)

g16_err g16_selfcheck(g16_ctx *ctx, char *buf, size_t buf_len) {
    if (!buf || buf_len == 0)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "selfcheck: no output buffer");
    int bn = 1, bls = 1;
    double t0 = g16_now_ms();
    FIELD_CHECK(bn254_fp, bn);
    FIELD_CHECK(bn254_fr, bn);
    FIELD_CHECK(bls381_fp, bls);
    FIELD_CHECK(bls381_fr, bls);
    double ms = g16_now_ms() - t0;
    snprintf(buf, buf_len,
             "g16 %s selfcheck (%d threads)\n"
             "  bn254     field: %s\n"
             "  bls12-381 field: %s\n"
             "  %.1f ms\n",
             g16_version(), g16_ctx_threads(ctx), bn ? "ok" : "FAILED", bls ? "ok" : "FAILED", ms);
    if (!(bn && bls))
        return g16_ctx_fail(ctx, G16_ERR_INTERNAL, "selfcheck failed");
    return G16_OK;
}
