/* Decoder robustness: every curve-layer decoder (G_from_zkey for the four
 * groups, bls381_g1/g2_from_zcash, E_from_dec for the four fields) fed
 * truncated / wrong-length, bad-flag, non-canonical, off-curve, off-subgroup
 * inputs must return its specific g16_err; random garbage and bit-flipped
 * valid encodings must never crash (run under ASan/UBSan) and anything
 * accepted must re-encode to exactly the input. */
#include <string.h>

#include "curve/curve.h"
#include "testutil.h"

#define N_GARBAGE 150

static g16_rng rng;

static void rand_bytes(uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)g16_rng_next(&rng);
}
static int is_err(g16_err e) {
    return e == G16_ERR_FORMAT || e == G16_ERR_NOT_CANONICAL || e == G16_ERR_NOT_ON_CURVE ||
           e == G16_ERR_NOT_IN_SUBGROUP || e == G16_ERR_SIZE_MISMATCH;
}
/* Writes the canonical integer p (as raw limbs) little-endian. */
static void put_le(uint8_t *b, const limb_t *l, size_t nl) {
    for (size_t i = 0; i < nl * 8; i++)
        b[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}
static void put_be(uint8_t *b, const limb_t *l, size_t nl) {
    for (size_t i = 0; i < nl * 8; i++)
        b[nl * 8 - 1 - i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

/* ---- .zkey -------------------------------------------------------------------- */
#define ZKEY_TEST(G, E, NL, PINIT, DEG)                                                       \
    static void zkey_##G(void) {                                                              \
        static const limb_t P[NL] = PINIT;                                                    \
        const size_t zs = G##_zkey_size(), fb = NL * 8;                                       \
        uint8_t buf[192], good[192];                                                          \
        G##_affine g, r, q; G##_jac j;                                                        \
        G##_generator(&g);                                                                    \
        g16_scalar k = {{g16_rng_next(&rng), g16_rng_next(&rng), 7, 0}};                      \
        G##_jac_from_affine(&j, &g); G##_jac_mul_vartime(&j, &j, &k); G##_jac_to_affine(&g, &j); \
        G##_to_zkey(good, &g);                                                                \
        CHECK(G##_from_zkey(&r, good, 1) == G16_OK && G##_affine_eq(&r, &g));                 \
        /* each base-field coordinate component = p, p + 1, all ones */                       \
        for (size_t c = 0; c < 2 * DEG; c++) {                                                \
            for (int v = 0; v < 3; v++) {                                                     \
                memcpy(buf, good, zs);                                                        \
                put_le(buf + c * fb, P, NL);                                                  \
                if (v == 1) buf[c * fb] += 1;                                                 \
                if (v == 2) memset(buf + c * fb, 0xff, fb);                                   \
                CHECK(G##_from_zkey(&r, buf, 0) == G16_ERR_NOT_CANONICAL);                    \
                CHECK(G##_from_zkey(&r, buf, 1) == G16_ERR_NOT_CANONICAL);                    \
            }                                                                                 \
        }                                                                                     \
        /* off the curve: any single byte of a valid point changed */                         \
        for (int it = 0; it < 20; it++) {                                                     \
            memcpy(buf, good, zs);                                                            \
            size_t pos = (size_t)(g16_rng_next(&rng) % zs);                                   \
            if (pos % fb == fb - 1) pos--; /* keep it canonical */                            \
            buf[pos] ^= (uint8_t)(1 + g16_rng_next(&rng) % 255);                              \
            g16_err e = G##_from_zkey(&r, buf, 1);                                            \
            CHECK(e == G16_ERR_NOT_ON_CURVE || e == G16_ERR_NOT_CANONICAL);                   \
        }                                                                                     \
        /* off the subgroup (groups with a cofactor) */                                       \
        for (int it = 0, found = 0; it < 200 && found < 2; it++) {                            \
            E x; E##_random(&x, &rng);                                                        \
            if (!G##_affine_from_x_vartime(&q, &x) || G##_affine_in_subgroup_slow(&q)) continue; \
            found++;                                                                          \
            G##_to_zkey(buf, &q);                                                             \
            CHECK(G##_from_zkey(&r, buf, 1) == G16_ERR_NOT_IN_SUBGROUP);                      \
            CHECK(G##_from_zkey(&r, buf, 0) == G16_OK);                                       \
        }                                                                                     \
        /* garbage: never OK unless it re-encodes exactly */                                  \
        for (int it = 0; it < N_GARBAGE; it++) {                                              \
            rand_bytes(buf, zs);                                                              \
            if (it & 1) buf[fb - 1] &= 0x0f, buf[2 * fb - 1] &= 0x0f; /* often canonical */   \
            g16_err e = G##_from_zkey(&r, buf, (int)(it & 2));                                \
            if (e == G16_OK) {                                                                \
                G##_to_zkey(good, &r); CHECK(memcmp(good, buf, zs) == 0);                     \
            } else {                                                                          \
                CHECK(is_err(e));                                                             \
            }                                                                                 \
        }                                                                                     \
    }
ZKEY_TEST(bn254_g1, bn254_fp, 4, BN254_FP_P, 1)
ZKEY_TEST(bn254_g2, bn254_fp2, 4, BN254_FP_P, 2)
ZKEY_TEST(bls381_g1, bls381_fp, 6, BLS381_FP_P, 1)
ZKEY_TEST(bls381_g2, bls381_fp2, 6, BLS381_FP_P, 2)

/* ---- zcash ---------------------------------------------------------------------- */
#define ZC_TEST(G, E, CLEN, DEG)                                                              \
    static void zc_##G(void) {                                                                \
        static const limb_t P[6] = BLS381_FP_P;                                               \
        uint8_t c[CLEN], u[2 * CLEN], buf[2 * CLEN + 8], re[2 * CLEN];                         \
        G##_affine g, r, q; G##_jac j;                                                        \
        G##_generator(&g);                                                                    \
        g16_scalar k = {{g16_rng_next(&rng), g16_rng_next(&rng), 3, 0}};                      \
        G##_jac_from_affine(&j, &g); G##_jac_mul_vartime(&j, &j, &k); G##_jac_to_affine(&g, &j); \
        G##_to_zcash(c, CLEN, &g); G##_to_zcash(u, 2 * CLEN, &g);                             \
        CHECK(G##_from_zcash(&r, c, CLEN) == G16_OK && G##_affine_eq(&r, &g));                \
        /* wrong lengths (truncated or extended) */                                           \
        const size_t lens[] = {0, 1, CLEN - 1, CLEN + 1, 2 * CLEN - 1, 2 * CLEN + 1,          \
                               CLEN / 2, 3 * CLEN / 2};                                        \
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {                           \
            memset(buf, 0, sizeof buf); memcpy(buf, u, 2 * CLEN); buf[0] |= 0x80;             \
            CHECK(G##_from_zcash(&r, buf, lens[i]) == G16_ERR_SIZE_MISMATCH);                 \
            buf[0] = 0xc0;                                                                    \
            CHECK(G##_from_zcash(&r, buf, lens[i]) == G16_ERR_SIZE_MISMATCH);                 \
        }                                                                                     \
        CHECK(G##_from_zcash(&r, NULL, CLEN) == G16_ERR_SIZE_MISMATCH);                       \
        /* bad flags */                                                                       \
        memcpy(buf, c, CLEN); buf[0] &= 0x7f;                                                 \
        CHECK(G##_from_zcash(&r, buf, CLEN) == G16_ERR_FORMAT); /* compressed len, no C */   \
        memcpy(buf, u, 2 * CLEN); buf[0] |= 0x80;                                             \
        CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_FORMAT); /* C on uncompressed */  \
        memcpy(buf, u, 2 * CLEN); buf[0] |= 0x20;                                             \
        CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_FORMAT); /* S on uncompressed */  \
        /* infinity: exact bytes only */                                                      \
        memset(buf, 0, sizeof buf); buf[0] = 0xc0;                                            \
        CHECK(G##_from_zcash(&r, buf, CLEN) == G16_OK && G##_affine_is_inf(&r));              \
        buf[0] = 0x40;                                                                        \
        CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_OK && G##_affine_is_inf(&r));          \
        buf[0] = 0xe0; CHECK(G##_from_zcash(&r, buf, CLEN) == G16_ERR_FORMAT);                \
        buf[0] = 0x60; CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_FORMAT);            \
        for (int b = 0; b < 5; b++) {                                                         \
            buf[0] = (uint8_t)(0xc0 | (1 << b)); CHECK(G##_from_zcash(&r, buf, CLEN) == G16_ERR_FORMAT); \
        }                                                                                     \
        for (int it = 0; it < 20; it++) {                                                     \
            int comp = it & 1; size_t len = comp ? CLEN : 2 * CLEN;                           \
            memset(buf, 0, sizeof buf); buf[0] = comp ? 0xc0 : 0x40;                          \
            buf[1 + g16_rng_next(&rng) % (len - 1)] = (uint8_t)(1 + g16_rng_next(&rng) % 255); \
            CHECK(G##_from_zcash(&r, buf, len) == G16_ERR_FORMAT);                            \
        }                                                                                     \
        /* non-canonical: each Fp component = p or all ones (flag bits kept) */               \
        for (int comp = 0; comp < 2; comp++) {                                                \
            size_t len = comp ? CLEN : 2 * CLEN, ncomp = comp ? DEG : 2 * DEG;                \
            for (size_t ci = 0; ci < ncomp; ci++) {                                           \
                for (int v = 0; v < 2; v++) {                                                 \
                    memcpy(buf, comp ? c : u, len);                                           \
                    uint8_t f0 = buf[0] & 0xe0;                                               \
                    put_be(buf + 48 * ci, P, 6);                                              \
                    if (v) memset(buf + 48 * ci, 0xff, 48);                                   \
                    if (ci == 0) buf[0] = (uint8_t)((buf[0] & 0x1f) | f0);                    \
                    CHECK_MSG(G##_from_zcash(&r, buf, len) == G16_ERR_NOT_CANONICAL,          \
                              "%s comp=%d ci=%zu v=%d", #G, comp, ci, v);                      \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        /* not on the curve: uncompressed y changed, (0,0) without flag, and            \
         * compressed x with x^3 + b a non-square */                                          \
        memcpy(buf, u, 2 * CLEN); buf[2 * CLEN - 1] ^= 1;                                     \
        CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_NOT_ON_CURVE);                     \
        memset(buf, 0, sizeof buf);                                                           \
        CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_NOT_ON_CURVE);                     \
        for (int it = 0, found = 0; it < 200 && found < 3; it++) {                            \
            E x; E##_random(&x, &rng);                                                        \
            if (G##_affine_from_x_vartime(&q, &x)) continue;                                  \
            found++;                                                                          \
            q.x = x; E##_set_one(&q.y);                                                       \
            G##_to_zcash(buf, CLEN, &q);                                                      \
            CHECK(G##_from_zcash(&r, buf, CLEN) == G16_ERR_NOT_ON_CURVE);                     \
        }                                                                                     \
        /* not in the subgroup, both forms */                                                 \
        for (int it = 0, found = 0; it < 200 && found < 2; it++) {                            \
            E x; E##_random(&x, &rng);                                                        \
            if (!G##_affine_from_x_vartime(&q, &x) || G##_affine_in_subgroup_slow(&q)) continue; \
            found++;                                                                          \
            G##_to_zcash(buf, CLEN, &q);                                                      \
            CHECK(G##_from_zcash(&r, buf, CLEN) == G16_ERR_NOT_IN_SUBGROUP);                  \
            G##_to_zcash(buf, 2 * CLEN, &q);                                                  \
            CHECK(G##_from_zcash(&r, buf, 2 * CLEN) == G16_ERR_NOT_IN_SUBGROUP);              \
        }                                                                                     \
        /* garbage and bit flips of valid encodings: accepted => exact round trip */         \
        for (int it = 0; it < N_GARBAGE; it++) {                                              \
            size_t len = (it % 3 == 0) ? (size_t)(g16_rng_next(&rng) % (2 * CLEN + 1))        \
                                       : ((it & 1) ? CLEN : 2 * CLEN);                         \
            if (it % 3 == 2) {                                                                \
                memcpy(buf, len == CLEN ? c : u, len);                                        \
                buf[g16_rng_next(&rng) % len] ^= (uint8_t)(1u << (g16_rng_next(&rng) % 8));   \
            } else {                                                                          \
                rand_bytes(buf, len);                                                         \
            }                                                                                 \
            uint8_t *heap = malloc(len ? len : 1); /* exact size: ASan catches overreads */   \
            memcpy(heap, buf, len);                                                           \
            g16_err e = G##_from_zcash(&r, heap, len);                                        \
            if (e == G16_OK) {                                                                \
                G##_to_zcash(re, len, &r); CHECK(memcmp(re, heap, len) == 0);                 \
            } else {                                                                          \
                CHECK(is_err(e));                                                             \
            }                                                                                 \
            free(heap);                                                                       \
        }                                                                                     \
    }
ZC_TEST(bls381_g1, bls381_fp, 48, 1)
ZC_TEST(bls381_g2, bls381_fp2, 96, 2)

/* ---- decimal ---------------------------------------------------------------------- */
#define DEC_GARBAGE(F)                                                                        \
    static void dec_##F(void) {                                                               \
        static const char alphabet[] = "0123456789000000 -+xa.\xff";                          \
        char s[140], out[140];                                                                \
        F x;                                                                                  \
        for (int it = 0; it < 4 * N_GARBAGE; it++) {                                          \
            size_t n = (size_t)(g16_rng_next(&rng) % 130);                                    \
            int digits_only = it & 1;                                                         \
            for (size_t i = 0; i < n; i++)                                                    \
                s[i] = digits_only ? (char)('0' + g16_rng_next(&rng) % 10)                    \
                                   : alphabet[g16_rng_next(&rng) % (sizeof alphabet - 1)];    \
            s[n] = 0;                                                                         \
            char *heap = malloc(n + 1); memcpy(heap, s, n + 1);                               \
            g16_err e = F##_from_dec(&x, heap);                                               \
            if (e == G16_OK) {                                                                \
                const char *t = heap; while (*t == '0' && t[1]) t++;                          \
                F##_to_dec(out, sizeof out, &x); CHECK(strcmp(out, t) == 0);                  \
            } else {                                                                          \
                CHECK(e == G16_ERR_FORMAT || e == G16_ERR_NOT_CANONICAL);                     \
                if (n == 0 || !digits_only) CHECK(n == 0 ? e == G16_ERR_FORMAT : 1);          \
            }                                                                                 \
            free(heap);                                                                       \
        }                                                                                     \
    }
DEC_GARBAGE(bn254_fp)
DEC_GARBAGE(bn254_fr)
DEC_GARBAGE(bls381_fp)
DEC_GARBAGE(bls381_fr)

int main(void) {
    g16_rng_seed(&rng, t_seed("test_decode"));
    zkey_bn254_g1();
    zkey_bn254_g2();
    zkey_bls381_g1();
    zkey_bls381_g2();
    zc_bls381_g1();
    zc_bls381_g2();
    dec_bn254_fp();
    dec_bn254_fr();
    dec_bls381_fp();
    dec_bls381_fr();
    return t_done("test_decode");
}
