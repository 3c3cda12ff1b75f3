/* Decimal strings of the four prime fields against GMP (random and edge
 * values, every malformed-input class), and the BLS12-381 zcash encoding
 * round trip on random points of G1 and G2 (both forms, both sort flags). */
#include <string.h>

#include "curve/curve.h"
#include "testutil.h"

#define N_RANDOM 300

#define DEC_TEST(F, NL, PINIT, MAXD)                                                                \
    static void test_dec_##F(uint64_t seed) {                                                 \
        static const limb_t P[NL] = PINIT;                                                    \
        mpz_t p, a; mpz_inits(p, a, NULL);                                                    \
        t_limbs_to_mpz(p, P, NL);                                                             \
        gmp_randstate_t rs; gmp_randinit_default(rs); gmp_randseed_ui(rs, (unsigned long)seed); \
        char s[160], out[128];                                                                \
        F x;                                                                                  \
        for (int it = 0; it < N_RANDOM; it++) {                                               \
            if (it == 0) mpz_set_ui(a, 0);                                                    \
            else if (it == 1) mpz_set_ui(a, 1);                                               \
            else if (it == 2) mpz_sub_ui(a, p, 1);                                            \
            else if (it < 40) { mpz_set_ui(a, 1); mpz_mul_2exp(a, a, (unsigned)it * 5); mpz_mod(a, a, p); } \
            else mpz_urandomm(a, rs, p);                                                      \
            mpz_get_str(s, 10, a);                                                            \
            CHECK_MSG(F##_from_dec(&x, s) == G16_OK, "%s %s", #F, s);                         \
            limb_t l[NL], e[NL];                                                              \
            F##_from_mont(l, &x); t_mpz_to_limbs(e, NL, a);                                   \
            CHECK(limbs_eq(l, e, NL));                                                        \
            F##_to_dec(out, sizeof out, &x);                                                  \
            CHECK_MSG(strcmp(out, s) == 0, "%s to_dec %s != %s", #F, out, s);                 \
            /* values >= p */                                                                 \
            mpz_add(a, a, p); mpz_get_str(s, 10, a);                                          \
            CHECK(F##_from_dec(&x, s) == G16_ERR_NOT_CANONICAL);                              \
        }                                                                                     \
        mpz_get_str(s, 10, p); CHECK(F##_from_dec(&x, s) == G16_ERR_NOT_CANONICAL);           \
        mpz_sub_ui(a, p, 1); mpz_get_str(s, 10, a);                                           \
        CHECK(F##_from_dec(&x, s) == G16_OK);                                                 \
        char z[MAXD + 2]; memset(z, '0', MAXD + 1); z[MAXD + 1] = 0; z[MAXD] = 0;             \
        CHECK(F##_from_dec(&x, z) == G16_OK && F##_is_zero(&x)); /* MAXD zeros */             \
        z[MAXD - 1] = '5'; CHECK(F##_from_dec(&x, z) == G16_OK); /* "00...05" */              \
        z[MAXD] = '0'; CHECK(F##_from_dec(&x, z) == G16_ERR_FORMAT); /* MAXD+1 digits */     \
        memset(z, '9', MAXD); z[MAXD] = 0;                                                    \
        CHECK(F##_from_dec(&x, z) == G16_ERR_NOT_CANONICAL); /* 10^MAXD - 1 */                \
        CHECK(F##_from_dec(&x, "007") == G16_OK);                                             \
        F##_to_dec(out, sizeof out, &x); CHECK(strcmp(out, "7") == 0);                        \
        const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0", "1e3", "١"};   \
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)                               \
            CHECK_MSG(F##_from_dec(&x, bad[i]) == G16_ERR_FORMAT, "%s '%s'", #F, bad[i]);     \
        CHECK(F##_from_dec(&x, NULL) == G16_ERR_FORMAT);                                      \
        F##_from_u64(&x, 12345); F##_to_dec(out, 3, &x); CHECK(out[0] == 0); /* too small */ \
        F##_to_dec(out, 6, &x); CHECK(strcmp(out, "12345") == 0);                             \
        gmp_randclear(rs); mpz_clears(p, a, NULL);                                            \
    }
DEC_TEST(bn254_fp, 4, BN254_FP_P, 100)
DEC_TEST(bn254_fr, 4, BN254_FR_P, 100)
DEC_TEST(bls381_fp, 6, BLS381_FP_P, 120)
DEC_TEST(bls381_fr, 4, BLS381_FR_P, 100)

#define ZC_TEST(G, FR, CLEN)                                                                  \
    static void test_zc_##G(uint64_t seed) {                                                  \
        g16_rng rng; g16_rng_seed(&rng, seed);                                                \
        G##_affine g, p, q, back; G##_jac j;                                                  \
        uint8_t c[CLEN], u[2 * CLEN];                                                         \
        int seen_larger = 0, seen_smaller = 0;                                                \
        G##_generator(&g); G##_jac_from_affine(&j, &g);                                       \
        for (int it = 0; it < 16; it++) {                                                     \
            FR k; FR##_random(&k, &rng);                                                      \
            g16_scalar s; memcpy(s.l, k.l, sizeof s.l);                                       \
            G##_jac_mul_vartime(&j, &j, &s); G##_jac_to_affine(&p, &j);                       \
            for (int neg = 0; neg < 2; neg++) {                                               \
                if (neg) G##_affine_neg(&q, &p); else q = p;                                  \
                G##_to_zcash(c, CLEN, &q); G##_to_zcash(u, 2 * CLEN, &q);                     \
                CHECK((c[0] & 0xc0) == 0x80 && (u[0] & 0xe0) == 0);                           \
                seen_larger += (c[0] & 0x20) != 0; seen_smaller += (c[0] & 0x20) == 0;        \
                CHECK(memcmp(c + 1, u + 1, CLEN - 1) == 0 && (c[0] & 0x1f) == u[0]);          \
                CHECK(G##_from_zcash(&back, c, CLEN) == G16_OK && G##_affine_eq(&back, &q));  \
                CHECK(G##_from_zcash(&back, u, 2 * CLEN) == G16_OK && G##_affine_eq(&back, &q)); \
            }                                                                                 \
        }                                                                                     \
        CHECK(seen_larger > 0 && seen_smaller > 0);                                           \
        G##_affine_set_inf(&q);                                                               \
        G##_to_zcash(c, CLEN, &q); G##_to_zcash(u, 2 * CLEN, &q);                             \
        CHECK(c[0] == 0xc0 && u[0] == 0x40);                                                  \
        CHECK(G##_from_zcash(&back, c, CLEN) == G16_OK && G##_affine_is_inf(&back));          \
        CHECK(G##_from_zcash(&back, u, 2 * CLEN) == G16_OK && G##_affine_is_inf(&back));      \
    }
ZC_TEST(bls381_g1, bls381_fr, 48)
ZC_TEST(bls381_g2, bls381_fr, 96)

int main(void) {
    uint64_t seed = t_seed("test_curve_encode");
    test_dec_bn254_fp(seed);
    test_dec_bn254_fr(seed + 1);
    test_dec_bls381_fp(seed + 2);
    test_dec_bls381_fr(seed + 3);
    test_zc_bls381_g1(seed + 4);
    test_zc_bls381_g2(seed + 5);
    return t_done("test_curve_encode");
}
