/* g16_selfcheck: a quick end-to-end check of the arithmetic on both curves,
 * run by the README's main job. Uses identities, so it needs no oracle:
 * field inverse and square roots, constant-time = variable-time scalar
 * multiplication, subgroup membership, and pairing bilinearity. */
#include <stdio.h>
#include <string.h>

#include "field/field.h"
#include "pairing/pairing.h"
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

/* [k]G computed two ways, and bilinearity e([a]P, [b]Q) = e([ab]P, Q). */
#define CURVE_CHECK(CV, ok)                                                  \
    do {                                                                     \
        CV##_g1_affine g1, pa, pab;                                          \
        CV##_g2_affine g2, qb;                                               \
        CV##_g1_jac j, t;                                                    \
        CV##_g2_jac j2;                                                      \
        g16_scalar a = {{0x1234567, 0, 0, 0}}, b = {{0x89abcd, 0, 0, 0}};    \
        g16_scalar ab = {{0x1234567ull * 0x89abcdull, 0, 0, 0}};             \
        CV##_g1_generator(&g1);                                              \
        CV##_g2_generator(&g2);                                              \
        CV##_g1_jac_from_affine(&j, &g1);                                    \
        CV##_g1_jac_mul(&t, &j, &a);                                         \
        CV##_g1_jac_mul_vartime(&j, &j, &a);                                 \
        ok &= CV##_g1_jac_eq(&t, &j);                                        \
        CV##_g1_jac_to_affine(&pa, &j);                                      \
        ok &= CV##_g1_affine_is_on_curve(&pa) & CV##_g1_affine_in_subgroup(&pa); \
        CV##_g1_jac_from_affine(&j, &g1);                                    \
        CV##_g1_jac_mul(&j, &j, &ab);                                        \
        CV##_g1_jac_to_affine(&pab, &j);                                     \
        CV##_g2_jac_from_affine(&j2, &g2);                                   \
        CV##_g2_jac_mul(&j2, &j2, &b);                                       \
        CV##_g2_jac_to_affine(&qb, &j2);                                     \
        ok &= CV##_g2_affine_in_subgroup(&qb);                               \
        CV##_fp12 e1, e2;                                                    \
        CV##_pairing(&e1, &pa, &qb);                                         \
        CV##_pairing(&e2, &pab, &g2);                                        \
        ok &= CV##_fp12_eq(&e1, &e2) & !CV##_fp12_is_one(&e1);               \
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
    int bnc = 1, blsc = 1;
    CURVE_CHECK(bn254, bnc);
    CURVE_CHECK(bls381, blsc);
    double ms = g16_now_ms() - t0;
    snprintf(buf, buf_len,
             "g16 %s selfcheck (%d threads)\n"
             "  bn254     field: %s, curve and pairing: %s\n"
             "  bls12-381 field: %s, curve and pairing: %s\n"
             "  %.1f ms\n",
             g16_version(), g16_ctx_threads(ctx), bn ? "ok" : "FAILED", bnc ? "ok" : "FAILED",
             bls ? "ok" : "FAILED", blsc ? "ok" : "FAILED", ms);
    if (!(bn && bls && bnc && blsc))
        return g16_ctx_fail(ctx, G16_ERR_INTERNAL, "selfcheck failed");
    return G16_OK;
}
