/* Text and byte encodings above the group law: decimal strings of field
 * elements (snarkjs JSON) and the zcash / IETF serialization of BLS12-381
 * points (draft-irtf-cfrg-pairing-friendly-curves, appendix C; the format
 * of zkcrypto's bls12_381 crate and of @noble/curves' toBytes). */
#include <string.h>

#include "curve.h"

/* ---- decimal strings ------------------------------------------------------
 * At most MAXD digits: 100 for the 254/255-bit fields, 120 for bls381_fp
 * (its p has 115 digits). 10^120 < 2^399, so a 7-limb accumulator never
 * overflows. Parsing and printing are variable time (public JSON data). */
#define G16_DEC_DEFINE(F, NL, MAXD)                                                        \
    g16_err F##_from_dec(F *r, const char *s) {                                        \
        limb_t x[7] = {0};                                                             \
        size_t n = 0;                                                                  \
        if (s == NULL)                                                                 \
            return G16_ERR_FORMAT;                                                     \
        for (; s[n] != '\0'; n++) {                                                    \
            if (n >= MAXD || s[n] < '0' || s[n] > '9')                                  \
                return G16_ERR_FORMAT;                                                 \
            limb_t carry = (limb_t)(s[n] - '0');                                       \
            for (int i = 0; i < 7; i++) {                                              \
                dlimb_t t = (dlimb_t)x[i] * 10 + carry;                                \
                x[i] = (limb_t)t;                                                      \
                carry = (limb_t)(t >> 64);                                             \
            }                                                                          \
        }                                                                              \
        if (n == 0)                                                                    \
            return G16_ERR_FORMAT;                                                     \
        for (int i = NL; i < 7; i++)                                                   \
            if (x[i] != 0)                                                             \
                return G16_ERR_NOT_CANONICAL;                                          \
        if (!F##_from_canon_vartime(r, x))                                             \
            return G16_ERR_NOT_CANONICAL;                                              \
        return G16_OK;                                                                 \
    }                                                                                  \
    void F##_to_dec(char *buf, size_t len, const F *a) {                               \
        limb_t x[NL];                                                                  \
        char tmp[128];                                                                 \
        size_t n = 0;                                                                  \
        if (len == 0)                                                                  \
            return;                                                                    \
        F##_from_mont(x, a);                                                           \
        do { /* x /= 10, emit the remainder */                                         \
            dlimb_t rem = 0;                                                           \
            for (int i = NL - 1; i >= 0; i--) {                                        \
                dlimb_t cur = (rem << 64) | x[i];                                      \
                x[i] = (limb_t)(cur / 10);                                             \
                rem = cur % 10;                                                        \
            }                                                                          \
            tmp[n++] = (char)('0' + (int)rem);                                         \
        } while (!limbs_is_zero(x, NL));                                               \
        if (n + 1 > len) { /* too small: empty string rather than a wrong number */    \
            buf[0] = '\0';                                                             \
            return;                                                                    \
        }                                                                              \
        for (size_t i = 0; i < n; i++)                                                 \
            buf[i] = tmp[n - 1 - i];                                                   \
        buf[n] = '\0';                                                                 \
    }
G16_DEC_DEFINE(bn254_fp, 4, 100)
G16_DEC_DEFINE(bn254_fr, 4, 100)
G16_DEC_DEFINE(bls381_fp, 6, 120)
G16_DEC_DEFINE(bls381_fr, 4, 100)

/* ---- BLS12-381 zcash encoding -------------------------------------------- */
#define ZC_COMPRESSED 0x80
#define ZC_INFINITY 0x40
#define ZC_LARGER 0x20 /* sort flag: y is the larger of y, -y */

/* y > (p-1)/2 as canonical integers, i.e. y > -y. */
static int fp_is_larger(const bls381_fp *y) {
    static const limb_t half[6] = BLS381_FP_P_MINUS_1_HALF;
    limb_t c[6];
    bls381_fp_from_mont(c, y);
    return limbs_lt_vartime(half, c, 6);
}
/* Lexicographic on (c1, c0): c1 decides unless it is zero. */
static int fp2_is_larger(const bls381_fp2 *y) {
    if (!bls381_fp_is_zero(&y->c1))
        return fp_is_larger(&y->c1);
    return fp_is_larger(&y->c0);
}

/* Checks the flag byte and the infinity encoding shared by G1 and G2.
 * Returns G16_OK with *inf set, or the error. */
static g16_err zc_flags(const uint8_t *buf, size_t len, size_t clen, int *compressed, int *larger, int *inf) {
    uint8_t f = buf[0];
    *compressed = (f & ZC_COMPRESSED) != 0;
    *inf = (f & ZC_INFINITY) != 0;
    *larger = (f & ZC_LARGER) != 0;
    if (*compressed != (len == clen))
        return G16_ERR_FORMAT; /* flag disagrees with the length */
    if (*larger && (!*compressed || *inf))
        return G16_ERR_FORMAT; /* sort flag only on finite compressed points */
    if (*inf) {
        if ((f & 0x1f) != 0)
            return G16_ERR_FORMAT;
        for (size_t i = 1; i < len; i++)
            if (buf[i] != 0)
                return G16_ERR_FORMAT; /* infinity with nonzero coordinate bytes */
    }
    return G16_OK;
}

g16_err bls381_g1_from_zcash(bls381_g1_affine *r, const uint8_t *buf, size_t len) {
    return bls381_g1_from_zcash_ex(r, buf, len, 1);
}

g16_err bls381_g1_from_zcash_ex(bls381_g1_affine *r, const uint8_t *buf, size_t len, int check_subgroup) {
    int c, s, inf;
    uint8_t tmp[48];
    bls381_g1_affine p;
    if (buf == NULL || (len != 48 && len != 96))
        return G16_ERR_SIZE_MISMATCH;
    g16_err err = zc_flags(buf, len, 48, &c, &s, &inf);
    if (err != G16_OK)
        return err;
    if (inf) {
        bls381_g1_affine_set_inf(r);
        return G16_OK;
    }
    memcpy(tmp, buf, 48);
    tmp[0] &= 0x1f;
    if (!bls381_fp_from_bytes_be(&p.x, tmp, 48))
        return G16_ERR_NOT_CANONICAL;
    if (c) {
        if (!bls381_g1_affine_from_x_vartime(&p, &p.x))
            return G16_ERR_NOT_ON_CURVE;
        if (fp_is_larger(&p.y) != s)
            bls381_fp_neg(&p.y, &p.y);
    } else {
        if (!bls381_fp_from_bytes_be(&p.y, buf + 48, 48))
            return G16_ERR_NOT_CANONICAL;
        /* (0, 0) is our infinity but not a curve point: reject without the flag */
        if (bls381_g1_affine_is_inf(&p) || !bls381_g1_affine_is_on_curve(&p))
            return G16_ERR_NOT_ON_CURVE;
    }
    if (check_subgroup && !bls381_g1_affine_in_subgroup(&p))
        return G16_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return G16_OK;
}

void bls381_g1_to_zcash(uint8_t *buf, size_t len, const bls381_g1_affine *p) {
    if (len != 48 && len != 96)
        return;
    memset(buf, 0, len);
    uint8_t c = len == 48 ? ZC_COMPRESSED : 0;
    if (bls381_g1_affine_is_inf(p)) {
        buf[0] = c | ZC_INFINITY;
        return;
    }
    bls381_fp_to_bytes_be(buf, 48, &p->x);
    if (c)
        buf[0] |= (uint8_t)(ZC_COMPRESSED | (fp_is_larger(&p->y) ? ZC_LARGER : 0));
    else
        bls381_fp_to_bytes_be(buf + 48, 48, &p->y);
}

/* Fp2 as c1 || c0, each 48 bytes big-endian; the first byte's top three bits
 * are masked off by the caller where they carry flags. */
static int fp2_from_be(bls381_fp2 *r, const uint8_t *b) {
    return bls381_fp_from_bytes_be(&r->c1, b, 48) & bls381_fp_from_bytes_be(&r->c0, b + 48, 48);
}
static void fp2_to_be(uint8_t *b, const bls381_fp2 *a) {
    bls381_fp_to_bytes_be(b, 48, &a->c1);
    bls381_fp_to_bytes_be(b + 48, 48, &a->c0);
}

g16_err bls381_g2_from_zcash(bls381_g2_affine *r, const uint8_t *buf, size_t len) {
    return bls381_g2_from_zcash_ex(r, buf, len, 1);
}

g16_err bls381_g2_from_zcash_ex(bls381_g2_affine *r, const uint8_t *buf, size_t len, int check_subgroup) {
    int c, s, inf;
    uint8_t tmp[96];
    bls381_g2_affine p;
    if (buf == NULL || (len != 96 && len != 192))
        return G16_ERR_SIZE_MISMATCH;
    g16_err err = zc_flags(buf, len, 96, &c, &s, &inf);
    if (err != G16_OK)
        return err;
    if (inf) {
        bls381_g2_affine_set_inf(r);
        return G16_OK;
    }
    memcpy(tmp, buf, 96);
    tmp[0] &= 0x1f;
    if (!fp2_from_be(&p.x, tmp))
        return G16_ERR_NOT_CANONICAL;
    if (c) {
        if (!bls381_g2_affine_from_x_vartime(&p, &p.x))
            return G16_ERR_NOT_ON_CURVE;
        if (fp2_is_larger(&p.y) != s)
            bls381_fp2_neg(&p.y, &p.y);
    } else {
        if (!fp2_from_be(&p.y, buf + 96))
            return G16_ERR_NOT_CANONICAL;
        if (bls381_g2_affine_is_inf(&p) || !bls381_g2_affine_is_on_curve(&p))
            return G16_ERR_NOT_ON_CURVE;
    }
    if (check_subgroup && !bls381_g2_affine_in_subgroup(&p))
        return G16_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return G16_OK;
}

void bls381_g2_to_zcash(uint8_t *buf, size_t len, const bls381_g2_affine *p) {
    if (len != 96 && len != 192)
        return;
    memset(buf, 0, len);
    uint8_t c = len == 96 ? ZC_COMPRESSED : 0;
    if (bls381_g2_affine_is_inf(p)) {
        buf[0] = c | ZC_INFINITY;
        return;
    }
    fp2_to_be(buf, &p->x);
    if (c)
        buf[0] |= (uint8_t)(ZC_COMPRESSED | (fp2_is_larger(&p->y) ? ZC_LARGER : 0));
    else
        fp2_to_be(buf + 96, &p->y);
}
