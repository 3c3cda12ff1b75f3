/* Instantiates the group template (curve_impl.h) for G1 and G2 of BN254 and
 * BLS12-381, plus the per-group subgroup checks. */
#include "curve.h"

#include "curve_constants.h"

/* ---- raw .zkey coordinates: little-endian Montgomery limbs ---------------- */
#define G16_FP_RAW_IO(F)                                                          \
    static int F##_read_raw(F *r, const uint8_t *b) {                             \
        const size_t n = sizeof r->l / sizeof r->l[0];                            \
        limb_t x[G16_MAX_LIMBS] = {0};                                            \
        for (size_t i = 0; i < n * 8; i++)                                        \
            x[i / 8] |= (limb_t)b[i] << (8 * (i % 8));                            \
        if (!limbs_lt_vartime(x, F##_p_, n))                                      \
            return 0;                                                             \
        for (size_t i = 0; i < n; i++)                                            \
            r->l[i] = x[i];                                                       \
        return 1;                                                                 \
    }                                                                             \
    static void F##_write_raw(uint8_t *b, const F *a) {                           \
        const size_t n = sizeof a->l / sizeof a->l[0];                            \
        for (size_t i = 0; i < n * 8; i++)                                        \
            b[i] = (uint8_t)(a->l[i / 8] >> (8 * (i % 8)));                       \
    }
#define G16_FP2_RAW_IO(F2, F)                                                     \
    static int F2##_read_raw(F2 *r, const uint8_t *b) {                           \
        return F##_read_raw(&r->c0, b) & F##_read_raw(&r->c1, b + sizeof(F));     \
    }                                                                             \
    static void F2##_write_raw(uint8_t *b, const F2 *a) {                         \
        F##_write_raw(b, &a->c0);                                                 \
        F##_write_raw(b + sizeof(F), &a->c1);                                     \
    }
G16_FP_RAW_IO(bn254_fp)
G16_FP_RAW_IO(bls381_fp)
G16_FP2_RAW_IO(bn254_fp2, bn254_fp)
G16_FP2_RAW_IO(bls381_fp2, bls381_fp)

/* ---- BN254 G1 --------------------------------------------------------------- */
#define G bn254_g1
#define E bn254_fp
#define G_B BN254_G1_B
#define G_GX BN254_G1_GX
#define G_GY BN254_G1_GY
#define G_ORDER BN254_FR_P
#define E_BYTES 32
#define E_READ bn254_fp_read_raw
#define E_WRITE bn254_fp_write_raw
#define E_SQRT bn254_fp_sqrt
#include "curve_impl.h"
#undef G
#undef E
#undef G_B
#undef G_GX
#undef G_GY
#undef G_ORDER
#undef E_BYTES
#undef E_READ
#undef E_WRITE
#undef E_SQRT

/* ---- BN254 G2 --------------------------------------------------------------- */
#define G bn254_g2
#define E bn254_fp2
#define G_B BN254_G2_B
#define G_GX BN254_G2_GX
#define G_GY BN254_G2_GY
#define G_ORDER BN254_FR_P
#define E_BYTES 64
#define E_READ bn254_fp2_read_raw
#define E_WRITE bn254_fp2_write_raw
#define E_SQRT bn254_fp2_sqrt_vartime
#include "curve_impl.h"
#undef G
#undef E
#undef G_B
#undef G_GX
#undef G_GY
#undef G_ORDER
#undef E_BYTES
#undef E_READ
#undef E_WRITE
#undef E_SQRT

/* ---- BLS12-381 G1 ----------------------------------------------------------- */
#define G bls381_g1
#define E bls381_fp
#define G_B BLS381_G1_B
#define G_GX BLS381_G1_GX
#define G_GY BLS381_G1_GY
#define G_ORDER BLS381_FR_P
#define E_BYTES 48
#define E_READ bls381_fp_read_raw
#define E_WRITE bls381_fp_write_raw
#define E_SQRT bls381_fp_sqrt
#include "curve_impl.h"
#undef G
#undef E
#undef G_B
#undef G_GX
#undef G_GY
#undef G_ORDER
#undef E_BYTES
#undef E_READ
#undef E_WRITE
#undef E_SQRT

/* ---- BLS12-381 G2 ----------------------------------------------------------- */
#define G bls381_g2
#define E bls381_fp2
#define G_B BLS381_G2_B
#define G_GX BLS381_G2_GX
#define G_GY BLS381_G2_GY
#define G_ORDER BLS381_FR_P
#define E_BYTES 96
#define E_READ bls381_fp2_read_raw
#define E_WRITE bls381_fp2_write_raw
#define E_SQRT bls381_fp2_sqrt_vartime
#include "curve_impl.h"
#undef G
#undef E
#undef G_B
#undef G_GX
#undef G_GY
#undef G_ORDER
#undef E_BYTES
#undef E_READ
#undef E_WRITE
#undef E_SQRT

/* ---- subgroup checks ----------------------------------------------------------
 * Each returns 1 iff P is on the curve and in the order-r subgroup (infinity
 * included). Time depends only on the public constants, not on P. */

/* BN254 G1: #E(Fp) = r (cofactor 1), so every curve point is in G1. */
int bn254_g1_affine_in_subgroup(const bn254_g1_affine *p) { return bn254_g1_affine_is_on_curve(p); }

/* psi = twist^-1 o Frobenius o twist on E'(Fp2): (conj(x) cx, conj(y) cy). */
#define G16_PSI(G, F2, CX, CY)                                                     \
    static void G##_psi(G##_affine *r, const G##_affine *p) {                     \
        static const F2 cx = CX, cy = CY;                                         \
        F2##_conj(&r->x, &p->x);                                                  \
        F2##_mul(&r->x, &r->x, &cx);                                              \
        F2##_conj(&r->y, &p->y);                                                  \
        F2##_mul(&r->y, &r->y, &cy);                                              \
    }
G16_PSI(bn254_g2, bn254_fp2, BN254_G2_PSI_X, BN254_G2_PSI_Y)
G16_PSI(bls381_g2, bls381_fp2, BLS381_G2_PSI_X, BLS381_G2_PSI_Y)

/* BN254 G2 (El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup
 * membership testing on pairing-friendly curves", AFRICACRYPT 2022, sec. 4):
 * psi acts on G2 as multiplication by p = [6u^2] mod r, and Q in E'(Fp2) is
 * in G2 iff psi(Q) == [6u^2]Q. 127-bit scalar instead of 254 bits. */
int bn254_g2_affine_in_subgroup(const bn254_g2_affine *p) {
    static const limb_t k[2] = BN254_G2_SIX_U2;
    bn254_g2_affine ps;
    bn254_g2_jac pj, a, b;
    bn254_g2_psi(&ps, p);
    bn254_g2_jac_from_affine(&pj, p);
    bn254_g2_jac_mul_const(&a, &pj, k, BN254_G2_SIX_U2_BITS);
    bn254_g2_jac_from_affine(&b, &ps);
    return bn254_g2_affine_is_on_curve(p) & bn254_g2_jac_eq(&a, &b);
}

/* BLS12-381 G1 (Scott, "A note on group membership tests for G1, G2 and GT
 * on BLS pairing-friendly curves", ePrint 2021/1130): with the GLV
 * endomorphism sigma(x, y) = (beta x, y), P is in G1 iff
 * sigma(P) == -[x^2]P; beta is the cube root of unity for which sigma acts as
 * [-x^2] on G1 (chosen and checked by the generator script). */
int bls381_g1_affine_in_subgroup(const bls381_g1_affine *p) {
    static const limb_t xa[1] = BLS381_SG_X_ABS;
    static const bls381_fp beta = BLS381_G1_BETA;
    bls381_g1_affine s;
    bls381_g1_jac pj, a, b;
    bls381_fp_mul(&s.x, &p->x, &beta);
    s.y = p->y;
    bls381_g1_jac_from_affine(&pj, p);
    bls381_g1_jac_mul_const(&a, &pj, xa, BLS381_SG_X_ABS_BITS);
    bls381_g1_jac_mul_const(&a, &a, xa, BLS381_SG_X_ABS_BITS); /* [x^2]P */
    bls381_g1_jac_neg(&a, &a);
    bls381_g1_jac_from_affine(&b, &s);
    return bls381_g1_affine_is_on_curve(p) & bls381_g1_jac_eq(&a, &b);
}

/* BLS12-381 G2 (Scott 2021, same note): Q is in G2 iff psi(Q) == [x]Q,
 * x = -0xd201000000010000. */
int bls381_g2_affine_in_subgroup(const bls381_g2_affine *p) {
    static const limb_t xa[1] = BLS381_SG_X_ABS;
    bls381_g2_affine ps;
    bls381_g2_jac pj, a, b;
    bls381_g2_psi(&ps, p);
    bls381_g2_jac_from_affine(&pj, p);
    bls381_g2_jac_mul_const(&a, &pj, xa, BLS381_SG_X_ABS_BITS);
    bls381_g2_jac_neg(&a, &a);
    bls381_g2_jac_from_affine(&b, &ps);
    return bls381_g2_affine_is_on_curve(p) & bls381_g2_jac_eq(&a, &b);
}
