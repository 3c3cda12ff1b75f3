/* libFuzzer target for every curve-layer decoder. The first input byte picks
 * the decoder, the rest is its input:
 *   0..7   G_from_zkey, G = bn254_g1, bn254_g2, bls381_g1, bls381_g2 (sel/2),
 *          check_subgroup = sel & 1; needs G_zkey_size() bytes
 *   8, 9   bls381_g1_from_zcash, bls381_g2_from_zcash (any length)
 *   10..13 E_from_dec, E = bn254_fp, bn254_fr, bls381_fp, bls381_fr
 * Anything accepted must re-encode to exactly its input (canonical
 * encodings are unique); a mismatch or a non-error code traps.
 * Build and run: tests/test_fuzz_smoke.sh. */
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"

#define REQUIRE(c)                 \
    do {                           \
        if (!(c))                  \
            __builtin_trap();      \
    } while (0)

static int known_err(g16_err e) {
    return e == G16_ERR_FORMAT || e == G16_ERR_NOT_CANONICAL || e == G16_ERR_NOT_ON_CURVE ||
           e == G16_ERR_NOT_IN_SUBGROUP || e == G16_ERR_SIZE_MISMATCH;
}

#define ZKEY_CASE(G)                                                          \
    do {                                                                      \
        G##_affine p;                                                         \
        uint8_t re[192];                                                      \
        if (n < G##_zkey_size())                                              \
            break; /* leaves the do-while */                                  \
        g16_err e = G##_from_zkey(&p, d, sel & 1);                            \
        REQUIRE(e == G16_OK || known_err(e));                                 \
        if (e == G16_OK) {                                                    \
            REQUIRE(G##_affine_is_on_curve(&p));                              \
            G##_to_zkey(re, &p);                                              \
            REQUIRE(memcmp(re, d, G##_zkey_size()) == 0);                     \
        }                                                                     \
    } while (0)

#define ZC_CASE(G)                                                            \
    do {                                                                      \
        G##_affine p;                                                         \
        uint8_t re[192];                                                      \
        g16_err e = G##_from_zcash(&p, d, n);                                 \
        REQUIRE(e == G16_OK || known_err(e));                                 \
        if (e == G16_OK) {                                                    \
            REQUIRE(G##_affine_in_subgroup(&p));                              \
            G##_to_zcash(re, n, &p);                                          \
            REQUIRE(memcmp(re, d, n) == 0);                                   \
        }                                                                     \
    } while (0)

#define DEC_CASE(F)                                                           \
    do {                                                                      \
        F x;                                                                  \
        char out[130];                                                        \
        char *s = malloc(n + 1);                                              \
        memcpy(s, d, n);                                                      \
        s[n] = 0;                                                             \
        g16_err e = F##_from_dec(&x, s);                                      \
        REQUIRE(e == G16_OK || e == G16_ERR_FORMAT || e == G16_ERR_NOT_CANONICAL); \
        if (e == G16_OK) {                                                    \
            const char *t = s;                                                \
            while (*t == '0' && t[1])                                         \
                t++;                                                          \
            F##_to_dec(out, sizeof out, &x);                                  \
            REQUIRE(strcmp(out, t) == 0);                                     \
        }                                                                     \
        free(s);                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    unsigned sel = data[0] % 14;
    size_t n = size - 1;
    /* exact-size heap copy so that ASan sees any overread */
    uint8_t *d = malloc(n ? n : 1);
    memcpy(d, data + 1, n);
    switch (sel) {
    case 0: case 1: ZKEY_CASE(bn254_g1); break;
    case 2: case 3: ZKEY_CASE(bn254_g2); break;
    case 4: case 5: ZKEY_CASE(bls381_g1); break;
    case 6: case 7: ZKEY_CASE(bls381_g2); break;
    case 8: ZC_CASE(bls381_g1); break;
    case 9: ZC_CASE(bls381_g2); break;
    case 10: DEC_CASE(bn254_fp); break;
    case 11: DEC_CASE(bn254_fr); break;
    case 12: DEC_CASE(bls381_fp); break;
    case 13: DEC_CASE(bls381_fr); break;
    }
    free(d);
    return 0;
}
