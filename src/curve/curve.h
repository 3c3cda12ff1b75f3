/* Curve layer: G1 and G2 of BN254 and BLS12-381.
 *
 * Groups and their coordinate fields:
 *   bn254_g1 (bn254_fp)   y^2 = x^3 + 3
 *   bn254_g2 (bn254_fp2)  y^2 = x^3 + 3/(9+u)        (D-type twist)
 *   bls381_g1 (bls381_fp) y^2 = x^3 + 4
 *   bls381_g2 (bls381_fp2) y^2 = x^3 + 4(1+u)        (M-type twist)
 *
 * All four are instances of one template (curve_impl.h), so every formula is
 * written once. Representations per group G over field E:
 *   G_affine {x, y}        the point at infinity is (0, 0), as in snarkjs
 *                          (no curve here has a point with x = y = 0)
 *   G_jac    {x, y, z}     Jacobian: (X/Z^2, Y/Z^3); infinity has z = 0
 *   G_xyzz   {x, y, zz, zzz}  (X/ZZ, Y/ZZZ), ZZ^3 = ZZZ^2; infinity zz = 0
 * Scalars are canonical little-endian integers (g16_scalar), not Montgomery.
 *
 * Functions are constant time unless suffixed _vartime. */
#ifndef G16_CURVE_H
#define G16_CURVE_H

#include "../field/field.h"

/* A canonical integer below 2^256 (both groups' order r is < 2^256). */
typedef struct g16_scalar {
    limb_t l[4];
} g16_scalar;

#define G16_CURVE_DECLARE(G, E)                                                              \
    typedef struct G##_affine { E x, y; } G##_affine;                                        \
    typedef struct G##_jac { E x, y, z; } G##_jac;                                           \
    typedef struct G##_xyzz { E x, y, zz, zzz; } G##_xyzz;                                   \
    void G##_generator(G##_affine *r);                                                       \
    /* affine */                                                                             \
    int G##_affine_is_inf(const G##_affine *p);                                              \
    void G##_affine_set_inf(G##_affine *p);                                                  \
    int G##_affine_eq(const G##_affine *a, const G##_affine *b);                             \
    void G##_affine_neg(G##_affine *r, const G##_affine *p);                                 \
    int G##_affine_is_on_curve(const G##_affine *p); /* infinity counts as on curve */       \
    /* Both return 1 iff P is on the curve and in the order-r subgroup (O included). */   \
    int G##_affine_in_subgroup(const G##_affine *p); /* fast (endomorphism) check */         \
    int G##_affine_in_subgroup_slow(const G##_affine *p); /* [r]P == O, reference */         \
    /* r = (x, y) on the curve for one root y; 0 if x^3 + b is not a square. */              \
    int G##_affine_from_x_vartime(G##_affine *r, const E *x);                                \
    /* Jacobian */                                                                           \
    void G##_jac_set_inf(G##_jac *r);                                                        \
    int G##_jac_is_inf(const G##_jac *p);                                                    \
    void G##_jac_from_affine(G##_jac *r, const G##_affine *p);                               \
    void G##_jac_to_affine(G##_affine *r, const G##_jac *p);                                 \
    /* Normalizes n points with one inversion; scratch holds n field elements. */            \
    void G##_jac_batch_to_affine(G##_affine *r, const G##_jac *p, size_t n, E *scratch);     \
    int G##_jac_eq(const G##_jac *a, const G##_jac *b);                                      \
    void G##_jac_neg(G##_jac *r, const G##_jac *p);                                          \
    void G##_jac_dbl(G##_jac *r, const G##_jac *p);                                          \
    void G##_jac_add(G##_jac *r, const G##_jac *a, const G##_jac *b); /* any inputs */        \
    void G##_jac_add_affine(G##_jac *r, const G##_jac *a, const G##_affine *b); /* any */    \
    /* r = [k]P. _mul is constant time in k and P; _mul_vartime is for public k. */          \
    void G##_jac_mul(G##_jac *r, const G##_jac *p, const g16_scalar *k);                     \
    void G##_jac_mul_vartime(G##_jac *r, const G##_jac *p, const g16_scalar *k);             \
    /* XYZZ (EFD: add-2008-s, madd-2008-s, dbl-2008-s, mdbl-2008-s) */                       \
    void G##_xyzz_set_inf(G##_xyzz *r);                                                      \
    int G##_xyzz_is_inf(const G##_xyzz *p);                                                  \
    void G##_xyzz_from_affine(G##_xyzz *r, const G##_affine *p);                             \
    void G##_xyzz_to_affine(G##_affine *r, const G##_xyzz *p);                               \
    void G##_xyzz_to_jac(G##_jac *r, const G##_xyzz *p);                                     \
    void G##_xyzz_dbl(G##_xyzz *r, const G##_xyzz *p);                                       \
    void G##_xyzz_add(G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b); /* any inputs */   \
    void G##_xyzz_add_affine(G##_xyzz *r, const G##_xyzz *a, const G##_affine *b); /* any */ \
    /* Branching variants of the additions above (any inputs, same results),               \
     * for public points only, e.g. MSM buckets: the complete versions always              \
     * also compute a doubling and select; these only double when P == Q. */                \
    void G##_jac_add_vartime(G##_jac *r, const G##_jac *a, const G##_jac *b);               \
    void G##_jac_add_affine_vartime(G##_jac *r, const G##_jac *a, const G##_affine *b);     \
    void G##_xyzz_add_vartime(G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b);           \
    void G##_xyzz_add_affine_vartime(G##_xyzz *r, const G##_xyzz *a, const G##_affine *b);  \
    /* snarkjs .zkey layout: x || y, each coordinate little-endian Montgomery,               \
     * n8 = 32 (BN254) or 48 (BLS12-381) bytes per base-field element (G2: c0||c1).           \
     * Infinity is all zero bytes. Decode checks canonical, on curve, then (if               \
     * check_subgroup) the subgroup, returning the matching g16_err. */                      \
    size_t G##_zkey_size(void);                                                              \
    g16_err G##_from_zkey(G##_affine *r, const uint8_t *buf, int check_subgroup);            \
    void G##_to_zkey(uint8_t *buf, const G##_affine *p);

G16_CURVE_DECLARE(bn254_g1, bn254_fp)
G16_CURVE_DECLARE(bn254_g2, bn254_fp2)
G16_CURVE_DECLARE(bls381_g1, bls381_fp)
G16_CURVE_DECLARE(bls381_g2, bls381_fp2)

/* ---- decimal strings (snarkjs JSON) ---------------------------------------
 * Parses a decimal integer (digits only: no sign, no leading '+', no spaces;
 * leading zeros allowed; at most 100 digits, or 120 for bls381_fp whose p has
 * 115 digits) into a field element; G16_ERR_FORMAT if malformed (empty,
 * non-digit, too long), G16_ERR_NOT_CANONICAL if >= p.
 * Writes the canonical decimal form into buf (>= 80 bytes for 254-bit fields,
 * >= 120 for 381-bit fields). */
#define G16_DEC_DECLARE(E)                                   \
    g16_err E##_from_dec(E *r, const char *s);               \
    void E##_to_dec(char *buf, size_t len, const E *a);
G16_DEC_DECLARE(bn254_fp)
G16_DEC_DECLARE(bn254_fr)
G16_DEC_DECLARE(bls381_fp)
G16_DEC_DECLARE(bls381_fr)

/* ---- BLS12-381 zcash / IETF encoding (big-endian, flag bits in byte 0) -----
 * compressed: G1 48 bytes, G2 96 bytes; uncompressed: 96 / 192 bytes.
 * Flags: 0x80 compressed, 0x40 infinity, 0x20 y is the larger root.
 * G2 x is serialized as c1 || c0. Decoding validates flags, canonical
 * coordinates, on curve, in subgroup (each failure its own g16_err). */
g16_err bls381_g1_from_zcash(bls381_g1_affine *r, const uint8_t *buf, size_t len);
void bls381_g1_to_zcash(uint8_t *buf, size_t len, const bls381_g1_affine *p); /* len 48 or 96 */
g16_err bls381_g2_from_zcash(bls381_g2_affine *r, const uint8_t *buf, size_t len);
void bls381_g2_to_zcash(uint8_t *buf, size_t len, const bls381_g2_affine *p); /* len 96 or 192 */
/* The same decoders with the subgroup check optional (check_subgroup = 0:
 * flags, canonical and on-curve only), for bulk key loads that skip it. */
g16_err bls381_g1_from_zcash_ex(bls381_g1_affine *r, const uint8_t *buf, size_t len, int check_subgroup);
g16_err bls381_g2_from_zcash_ex(bls381_g2_affine *r, const uint8_t *buf, size_t len, int check_subgroup);

#endif
