/* Field inversion (safegcd, inv_impl.c.h), constant-time and _vartime,
 * against GMP's mpz_invert and against Fermat (pow(a, p-2)), for all four
 * prime fields. Inputs: 0, 1, 2, p-1, p-2, 2^k and 2^k +- 1 (long runs of
 * zero or one bits, which the _vartime path skips in one go), Montgomery
 * one (R mod p), small integers, and random values from a logged seed. */
#include "testutil.h"

#define N_RANDOM 3000

#define INV_TEST(F, NL, F_UP)                                                              \
    static void test_##F(uint64_t seed) {                                                  \
        static const limb_t P[NL] = F_UP##_P, PM2[NL] = F_UP##_P_MINUS_2;                  \
        long fails_before = t_failures;                                                    \
        mpz_t p, a, c;                                                                     \
        mpz_inits(p, a, c, NULL);                                                          \
        t_limbs_to_mpz(p, P, NL);                                                          \
        gmp_randstate_t rs;                                                                \
        gmp_randinit_default(rs);                                                          \
        gmp_randseed_ui(rs, (unsigned long)(seed ^ P[0]));                                 \
        size_t bits = mpz_sizeinbase(p, 2);                                                \
        for (int it = 0; it < N_RANDOM + 40 + 3 * (int)bits; it++) {                       \
            int k = it - N_RANDOM;                                                         \
            if (k < 0) {                                                                   \
                mpz_urandomm(a, rs, p);                                                    \
            } else if (k < 40) {                                                           \
                switch (k) {                                                               \
                case 0: mpz_set_ui(a, 0); break;                                           \
                case 1: mpz_sub_ui(a, p, 1); break;                                        \
                case 2: mpz_sub_ui(a, p, 2); break;                                        \
                case 3: mpz_set_ui(a, 1); mpz_mul_2exp(a, a, 64 * NL); mpz_mod(a, a, p); break; \
                case 4: mpz_sub_ui(a, p, 1); mpz_fdiv_q_2exp(a, a, 1); break;              \
                default: mpz_set_ui(a, (unsigned long)(k - 4)); break;                     \
                }                                                                          \
            } else {                                                                       \
                int j = (k - 40) / 3;                                                      \
                mpz_set_ui(a, 1);                                                          \
                mpz_mul_2exp(a, a, (mp_bitcnt_t)j);                                        \
                if ((k - 40) % 3 == 1) mpz_sub_ui(a, a, 1);                                \
                if ((k - 40) % 3 == 2) mpz_add_ui(a, a, 1);                                \
                mpz_mod(a, a, p);                                                          \
            }                                                                              \
            limb_t al[NL], rl[NL], el[NL];                                                 \
            t_mpz_to_limbs(al, NL, a);                                                     \
            F x, r, rv, rf;                                                                \
            CHECK(F##_from_canon_vartime(&x, al));                                         \
            F##_inv(&r, &x);                                                               \
            F##_inv_vartime(&rv, &x);                                                      \
            if (mpz_sgn(a))                                                                \
                CHECK(mpz_invert(c, a, p));                                                \
            else                                                                           \
                mpz_set_ui(c, 0);                                                          \
            t_mpz_to_limbs(el, NL, c);                                                     \
            F##_from_mont(rl, &r);                                                         \
            CHECK_MSG(limbs_eq(rl, el, NL), "%s inv it=%d", #F, it);                       \
            F##_from_mont(rl, &rv);                                                        \
            CHECK_MSG(limbs_eq(rl, el, NL), "%s inv_vartime it=%d", #F, it);               \
            if (it % 16 == 0 || k >= 0) { /* Fermat, an independent path */               \
                F##_pow(&rf, &x, PM2, NL);                                                 \
                CHECK(F##_eq(&rf, &r));                                                    \
            }                                                                              \
            /* aliasing r = a */                                                           \
            rf = x;                                                                        \
            F##_inv(&rf, &rf);                                                             \
            CHECK(F##_eq(&rf, &r));                                                        \
        }                                                                                  \
        printf("  %-10s %s\n", #F, t_failures == fails_before ? "ok" : "FAILED");          \
        mpz_clears(p, a, c, NULL);                                                         \
        gmp_randclear(rs);                                                                 \
    }
INV_TEST(bn254_fp, 4, BN254_FP)
INV_TEST(bn254_fr, 4, BN254_FR)
INV_TEST(bls381_fp, 6, BLS381_FP)
INV_TEST(bls381_fr, 4, BLS381_FR)

int main(void) {
    uint64_t seed = t_seed("test_field_inv");
    test_bn254_fp(seed);
    test_bn254_fr(seed);
    test_bls381_fp(seed);
    test_bls381_fr(seed);
    return t_done("test_field_inv");
}
