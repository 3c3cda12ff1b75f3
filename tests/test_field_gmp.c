/* Every prime-field operation against GMP, for Fp and Fr of both curves:
 * random inputs from a logged seed plus edge values (0, 1, 2, p-1, p-2,
 * (p-1)/2, values near 2^k). Results are compared as canonical integers. */
#include "testutil.h"

#define N_RANDOM 4000

typedef struct {
    const char *name;
    size_t n;
    const limb_t *p;
} field_desc;

/* Edge values as canonical integers (mod p). */
static void edge_value(mpz_t z, int k, const mpz_t p, gmp_randstate_t rs) {
    switch (k) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_set_ui(z, 2); break;
    case 3: mpz_sub_ui(z, p, 1); break;
    case 4: mpz_sub_ui(z, p, 2); break;
    case 5: mpz_sub_ui(z, p, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    case 6: mpz_add_ui(z, p, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    default: { /* 2^j +- small, j random */
        unsigned j = (unsigned)gmp_urandomm_ui(rs, mpz_sizeinbase(p, 2));
        mpz_set_ui(z, 1);
        mpz_mul_2exp(z, z, j);
        if (k & 1) mpz_sub_ui(z, z, 1); else mpz_add_ui(z, z, gmp_urandomm_ui(rs, 3));
        mpz_mod(z, z, p);
    }
    }
}

#define FIELD_TEST(F, NL)                                                                    \
    static void test_##F(uint64_t seed) {                                                    \
        static const limb_t P[NL] = F##_p_init;                                              \
        mpz_t p, a, b, c, d, tmp;                                                            \
        mpz_inits(p, a, b, c, d, tmp, NULL);                                                 \
        t_limbs_to_mpz(p, P, NL);                                                            \
        gmp_randstate_t rs;                                                                  \
        gmp_randinit_default(rs);                                                            \
        gmp_randseed_ui(rs, (unsigned long)seed);                                            \
        g16_rng rng;                                                                         \
        g16_rng_seed(&rng, seed);                                                            \
        long fails_before = t_failures;                                                      \
        for (int it = 0; it < N_RANDOM + 64; it++) {                                         \
            if (it < 64) {                                                                   \
                edge_value(a, it % 8, p, rs);                                                \
                edge_value(b, it / 8, p, rs);                                                \
            } else {                                                                         \
                mpz_urandomm(a, rs, p);                                                      \
                mpz_urandomm(b, rs, p);                                                      \
            }                                                                                \
            limb_t al[NL], bl[NL], rl[NL], el[NL];                                           \
            t_mpz_to_limbs(al, NL, a);                                                       \
            t_mpz_to_limbs(bl, NL, b);                                                       \
            F x = {{0}}, y = {{0}}, r;                                                       \
            CHECK(F##_from_canon_vartime(&x, al));                                           \
            CHECK(F##_from_canon_vartime(&y, bl));                                           \
            /* add */                                                                        \
            F##_add(&r, &x, &y); F##_from_mont(rl, &r);                                      \
            mpz_add(c, a, b); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);                   \
            CHECK(limbs_eq(rl, el, NL));                                                     \
            /* sub */                                                                        \
            F##_sub(&r, &x, &y); F##_from_mont(rl, &r);                                      \
            mpz_sub(c, a, b); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);                   \
            CHECK(limbs_eq(rl, el, NL));                                                     \
            /* neg */                                                                        \
            F##_neg(&r, &x); F##_from_mont(rl, &r);                                          \
            mpz_neg(c, a); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);                      \
            CHECK(limbs_eq(rl, el, NL));                                                     \
            /* dbl */                                                                        \
            F##_dbl(&r, &x); F##_from_mont(rl, &r);                                          \
            mpz_mul_2exp(c, a, 1); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);              \
            CHECK(limbs_eq(rl, el, NL));                                                     \
            /* mul */                                                                        \
            F##_mul(&r, &x, &y); F##_from_mont(rl, &r);                                      \
            mpz_mul(c, a, b); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);                   \
            CHECK_MSG(limbs_eq(rl, el, NL), "%s mul it=%d", #F, it);                         \
            /* sqr */                                                                        \
            F##_sqr(&r, &x); F##_from_mont(rl, &r);                                          \
            mpz_mul(c, a, a); mpz_mod(c, c, p); t_mpz_to_limbs(el, NL, c);                   \
            CHECK(limbs_eq(rl, el, NL));                                                     \
            /* eq / is_zero */                                                               \
            CHECK(F##_eq(&x, &y) == (mpz_cmp(a, b) == 0));                                   \
            CHECK(F##_is_zero(&x) == (mpz_sgn(a) == 0));                                     \
            if (it % 8 == 0 || it < 64) {                                                    \
                /* inv (0 -> 0) */                                                           \
                F##_inv(&r, &x); F##_from_mont(rl, &r);                                      \
                if (mpz_sgn(a)) mpz_invert(c, a, p); else mpz_set_ui(c, 0);                  \
                t_mpz_to_limbs(el, NL, c);                                                   \
                CHECK_MSG(limbs_eq(rl, el, NL), "%s inv it=%d", #F, it);                     \
                /* legendre */                                                               \
                CHECK(F##_legendre(&x) == mpz_legendre(a, p));                               \
                /* sqrt */                                                                   \
                int ok = F##_sqrt(&r, &x);                                                   \
                CHECK(ok == (mpz_legendre(a, p) >= 0));                                      \
                if (ok) {                                                                    \
                    F##_from_mont(rl, &r); t_limbs_to_mpz(c, rl, NL);                        \
                    mpz_mul(c, c, c); mpz_mod(c, c, p);                                      \
                    CHECK(mpz_cmp(c, a) == 0);                                               \
                }                                                                            \
                /* pow with a random 3-limb exponent */                                      \
                limb_t e[3] = {g16_rng_next(&rng), g16_rng_next(&rng), g16_rng_next(&rng)};  \
                F##_pow(&r, &x, e, 3); F##_from_mont(rl, &r);                                \
                t_limbs_to_mpz(d, e, 3); mpz_powm(c, a, d, p); t_mpz_to_limbs(el, NL, c);    \
                CHECK(limbs_eq(rl, el, NL));                                                 \
            }                                                                                \
            /* bytes round trips, both endiannesses, against mpz_export */                   \
            uint8_t le[NL * 8], be[NL * 8], ref[NL * 8];                                     \
            F##_to_bytes_le(le, sizeof le, &x);                                              \
            F##_to_bytes_be(be, sizeof be, &x);                                              \
            memset(ref, 0, sizeof ref);                                                      \
            size_t cnt = 0;                                                                  \
            mpz_export(ref, &cnt, -1, 1, 0, 0, a);                                           \
            CHECK(memcmp(le, ref, sizeof le) == 0);                                          \
            for (size_t i = 0; i < sizeof be; i++) CHECK(be[i] == ref[sizeof be - 1 - i]);   \
            F z;                                                                             \
            CHECK(F##_from_bytes_le(&z, le, sizeof le) && F##_eq(&z, &x));                   \
            CHECK(F##_from_bytes_be(&z, be, sizeof be) && F##_eq(&z, &x));                   \
        }                                                                                    \
        /* non-canonical encodings are rejected: p, p+1, 2^(8*n8)-1 */                      \
        {                                                                                    \
            uint8_t le[NL * 8];                                                              \
            F z;                                                                             \
            for (int k = 0; k < 3; k++) {                                                    \
                if (k == 0) mpz_set(c, p);                                                   \
                else if (k == 1) mpz_add_ui(c, p, 1);                                        \
                else { mpz_set_ui(c, 1); mpz_mul_2exp(c, c, NL * 64); mpz_sub_ui(c, c, 1); } \
                memset(le, 0, sizeof le);                                                    \
                size_t cnt = 0;                                                              \
                mpz_export(le, &cnt, -1, 1, 0, 0, c);                                        \
                CHECK(!F##_from_bytes_le(&z, le, sizeof le));                                \
            }                                                                                \
        }                                                                                    \
        /* batch inverse with zeros mixed in */                                              \
        {                                                                                    \
            F in[37], out[37], scratch[37], t;                                               \
            for (int i = 0; i < 37; i++) {                                                   \
                F##_random(&in[i], &rng);                                                    \
                if (i % 5 == 0) F##_set_zero(&in[i]);                                        \
            }                                                                                \
            F##_batch_inv(out, in, 37, scratch);                                             \
            for (int i = 0; i < 37; i++) {                                                   \
                F##_inv(&t, &in[i]);                                                         \
                CHECK(F##_eq(&t, &out[i]));                                                  \
            }                                                                                \
        }                                                                                    \
        /* random elements are in range and not all equal */                                 \
        {                                                                                    \
            F r0, r1;                                                                        \
            F##_random(&r0, &rng); F##_random(&r1, &rng);                                    \
            CHECK(!F##_eq(&r0, &r1));                                                        \
            CHECK(F##_random_os(&r0) == G16_OK);                                             \
            CHECK(limbs_lt_vartime(r0.l, P, NL));                                            \
        }                                                                                    \
        printf("  %-10s %s\n", #F, t_failures == fails_before ? "ok" : "FAILED");            \
        mpz_clears(p, a, b, c, d, tmp, NULL);                                                \
        gmp_randclear(rs);                                                                   \
    }

#define bn254_fp_p_init BN254_FP_P
#define bn254_fr_p_init BN254_FR_P
#define bls381_fp_p_init BLS381_FP_P
#define bls381_fr_p_init BLS381_FR_P
#include <string.h>
FIELD_TEST(bn254_fp, 4)
FIELD_TEST(bn254_fr, 4)
FIELD_TEST(bls381_fp, 6)
FIELD_TEST(bls381_fr, 4)

/* Fp2: mul/sqr/inv/sqrt checked against schoolbook formulas computed in GMP. */
#define FP2_TEST(F2, F, NL)                                                                  \
    static void test_##F2(uint64_t seed) {                                                   \
        static const limb_t P[NL] = F##_p_init;                                              \
        mpz_t p, a0, a1, b0, b1, c0, c1, t;                                                  \
        mpz_inits(p, a0, a1, b0, b1, c0, c1, t, NULL);                                       \
        t_limbs_to_mpz(p, P, NL);                                                            \
        g16_rng rng;                                                                         \
        g16_rng_seed(&rng, seed ^ 0xf2);                                                     \
        long fails_before = t_failures;                                                      \
        for (int it = 0; it < 1000; it++) {                                                  \
            F2 x, y, r;                                                                      \
            F2##_random(&x, &rng);                                                           \
            F2##_random(&y, &rng);                                                           \
            limb_t l[NL];                                                                    \
            F##_from_mont(l, &x.c0); t_limbs_to_mpz(a0, l, NL);                              \
            F##_from_mont(l, &x.c1); t_limbs_to_mpz(a1, l, NL);                              \
            F##_from_mont(l, &y.c0); t_limbs_to_mpz(b0, l, NL);                              \
            F##_from_mont(l, &y.c1); t_limbs_to_mpz(b1, l, NL);                              \
            /* (a0 + a1 u)(b0 + b1 u), u^2 = -1 */                                          \
            mpz_mul(c0, a0, b0); mpz_submul(c0, a1, b1); mpz_mod(c0, c0, p);                 \
            mpz_mul(c1, a0, b1); mpz_addmul(c1, a1, b0); mpz_mod(c1, c1, p);                 \
            F2##_mul(&r, &x, &y);                                                            \
            F##_from_mont(l, &r.c0); t_limbs_to_mpz(t, l, NL); CHECK(mpz_cmp(t, c0) == 0);   \
            F##_from_mont(l, &r.c1); t_limbs_to_mpz(t, l, NL); CHECK(mpz_cmp(t, c1) == 0);   \
            F2 s, m;                                                                         \
            F2##_sqr(&s, &x); F2##_mul(&m, &x, &x); CHECK(F2##_eq(&s, &m));                   \
            F2 xi, one;                                                                      \
            F2##_inv(&xi, &x); F2##_mul(&m, &xi, &x); F2##_set_one(&one);                    \
            CHECK(F2##_eq(&m, &one));                                                        \
            F2 rt;                                                                           \
            CHECK(F2##_sqrt_vartime(&rt, &s)); F2##_sqr(&m, &rt); CHECK(F2##_eq(&m, &s));    \
            if (F2##_sqrt_vartime(&rt, &x)) { F2##_sqr(&m, &rt); CHECK(F2##_eq(&m, &x)); }    \
        }                                                                                    \
        printf("  %-10s %s\n", #F2, t_failures == fails_before ? "ok" : "FAILED");          \
        mpz_clears(p, a0, a1, b0, b1, c0, c1, t, NULL);                                      \
    }
FP2_TEST(bn254_fp2, bn254_fp, 4)
FP2_TEST(bls381_fp2, bls381_fp, 6)

int main(void) {
    uint64_t seed = t_seed("test_field_gmp");
    test_bn254_fp(seed);
    test_bn254_fr(seed);
    test_bls381_fp(seed);
    test_bls381_fr(seed);
    test_bn254_fp2(seed);
    test_bls381_fp2(seed);
    return t_done("test_field_gmp");
}
