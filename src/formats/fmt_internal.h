/* Helpers shared by the format readers of the formats layer (not part of the
 * layer's interface). */
#ifndef G16_GROTH16_FMT_INTERNAL_H
#define G16_GROTH16_FMT_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "formats.h"

/* b[0..n) read as a little-endian integer equals the integer p (plimbs limbs)? */
static inline int g16_le_bytes_equal(const uint8_t *b, size_t n, const limb_t *p, size_t plimbs) {
    size_t pn = plimbs * 8, m = n > pn ? n : pn;
    for (size_t i = 0; i < m; i++) {
        uint8_t pb = i < pn ? (uint8_t)(p[i / 8] >> (8 * (i % 8))) : 0;
        uint8_t bb = i < n ? b[i] : 0;
        if (pb != bb)
            return 0;
    }
    return 1;
}

/* The curve whose scalar field prime r is b[0..n) (little-endian), or -1. */
static inline int g16_curve_from_r_bytes(const uint8_t *b, size_t n) {
    static const limb_t r_bn[4] = BN254_FR_P, r_bls[4] = BLS381_FR_P;
    if (g16_le_bytes_equal(b, n, r_bn, 4))
        return G16_CURVE_BN254;
    if (g16_le_bytes_equal(b, n, r_bls, 4))
        return G16_CURVE_BLS12_381;
    return -1;
}

static inline const limb_t *g16_curve_r(g16_curve c) {
    static const limb_t r_bn[4] = BN254_FR_P, r_bls[4] = BLS381_FR_P;
    return c == G16_CURVE_BN254 ? r_bn : r_bls;
}

/* Standard-form 32 bytes (little-endian) -> Montgomery Fr of curve c;
 * returns 0 if the value is >= r. */
static inline int g16_fr_from_le32(g16_curve c, limb_t out[4], const uint8_t *b) {
    limb_t x[4];
    memcpy(x, b, 32);
    if (c == G16_CURVE_BN254)
        return bn254_fr_from_canon_vartime((bn254_fr *)(void *)out, x);
    return bls381_fr_from_canon_vartime((bls381_fr *)(void *)out, x);
}

/* Montgomery Fr of curve c -> standard-form 32 bytes. */
static inline void g16_fr_to_le32(g16_curve c, uint8_t *b, const limb_t in[4]) {
    limb_t x[4];
    if (c == G16_CURVE_BN254)
        bn254_fr_from_mont(x, (const bn254_fr *)(const void *)in);
    else
        bls381_fr_from_mont(x, (const bls381_fr *)(const void *)in);
    memcpy(b, x, 32);
}

/* A growing NUL-terminated string for the JSON and Solidity writers: oom
 * is set on the first failed allocation and every later write is dropped;
 * p is NULL until the first write (free(p) after use). */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static inline void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static inline void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

#endif
