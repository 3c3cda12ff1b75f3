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

/* ---- subgroup checks ---------------------------------------------------------- */
int bn254_g1_affine_in_subgroup(const bn254_g1_affine *p) { return bn254_g1_affine_in_subgroup_slow(p); }
int bn254_g2_affine_in_subgroup(const bn254_g2_affine *p) { return bn254_g2_affine_in_subgroup_slow(p); }
int bls381_g1_affine_in_subgroup(const bls381_g1_affine *p) { return bls381_g1_affine_in_subgroup_slow(p); }
int bls381_g2_affine_in_subgroup(const bls381_g2_affine *p) { return bls381_g2_affine_in_subgroup_slow(p); }
