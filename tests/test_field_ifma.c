/* The batched multiplication <f>_mul_batch (field_ifma.c) for all four prime
 * fields, each path called explicitly on the same inputs:
 *   - the AVX-512 IFMA kernel (<f>_mul_batch_ifma) against GMP and against
 *     the scalar <f>_mul, whenever the CPU can run it (else the output says
 *     "skipped: no AVX-512 IFMA" and the other checks still run);
 *   - the scalar fallback (<f>_mul_batch_scalar: a loop of <f>_mul, MULX or
 *     portable as dispatched) and the portable CIOS (limbs.h mont_mul)
 *     against GMP;
 *   - the dispatched <f>_mul_batch and <f>_mul_x8 against GMP.
 * Inputs are the raw Montgomery limbs A, B; expected: A·B·2^(-64N) mod p.
 * Edge values (0, 1, 2, p-1, p-2, (p±1)/2, 2^(bits-1)-1, 2^j ± 1 at the
 * 52- and 64-bit digit boundaries and at random j) in all pairs, then random
 * values from a logged seed; batch lengths 0..50 and long ones (the 8-lane
 * tail), aliasing out == a and out == b, and words past n left untouched.
 * tests/test_field_portable.sh reruns this with G16_FIELD_ASM=0. */
#include <string.h>

#include "testutil.h"

#define N_BATCH 4096 /* elements per round */
#define N_ROUNDS 12  /* random rounds per field */

/* Edge value number k as a canonical integer < p. */
static void edge(mpz_t z, int k, const mpz_t p, gmp_randstate_t rs) {
    size_t bits = mpz_sizeinbase(p, 2);
    switch (k) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_set_ui(z, 2); break;
    case 3: mpz_sub_ui(z, p, 1); break;
    case 4: mpz_sub_ui(z, p, 2); break;
    case 5: mpz_sub_ui(z, p, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    case 6: mpz_add_ui(z, p, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    case 7: mpz_set_ui(z, 1); mpz_mul_2exp(z, z, bits - 1); mpz_sub_ui(z, z, 1); break;
    default: { /* 2^j +- 1, j at a 52-bit or 64-bit digit boundary or random */
        unsigned long j;
        unsigned long r = gmp_urandomm_ui(rs, 3);
        if (r == 0) j = 52 * (1 + gmp_urandomm_ui(rs, (bits - 1) / 52));
        else if (r == 1) j = 64 * (1 + gmp_urandomm_ui(rs, (bits - 1) / 64));
        else j = gmp_urandomm_ui(rs, bits);
        mpz_set_ui(z, 1); mpz_mul_2exp(z, z, j);
        if (k & 1) mpz_sub_ui(z, z, 1); else mpz_add_ui(z, z, 1);
        mpz_mod(z, z, p);
    }
    }
}
#define N_EDGE 14

#define FIELD_TEST(F, NL)                                                                       \
    static void test_##F(uint64_t seed, int have_ifma) {                                        \
        long fails_before = t_failures;                                                         \
        mpz_t p, a, b, c, rinv;                                                                 \
        mpz_inits(p, a, b, c, rinv, NULL);                                                      \
        t_limbs_to_mpz(p, F##_p_, NL);                                                          \
        mpz_set_ui(rinv, 1);                                                                    \
        mpz_mul_2exp(rinv, rinv, 64 * NL);                                                      \
        CHECK(mpz_invert(rinv, rinv, p));                                                       \
        gmp_randstate_t rs;                                                                     \
        gmp_randinit_default(rs);                                                               \
        gmp_randseed_ui(rs, (unsigned long)(seed ^ F##_p_[0]));                                 \
        F *x = malloc(N_BATCH * sizeof *x), *y = malloc(N_BATCH * sizeof *y);                   \
        F *e = malloc(N_BATCH * sizeof *e), *r = malloc((N_BATCH + 8) * sizeof *r);             \
        F *s = malloc(N_BATCH * sizeof *s);                                                     \
        for (int round = 0; round <= N_ROUNDS; round++) {                                       \
            /* round 0: every pair of edge values, then edge x random */                        \
            for (size_t i = 0; i < N_BATCH; i++) {                                              \
                if (round == 0 && i < N_EDGE * N_EDGE) {                                        \
                    edge(a, (int)(i % N_EDGE), p, rs);                                          \
                    edge(b, (int)(i / N_EDGE), p, rs);                                          \
                } else if (round == 0) {                                                        \
                    edge(a, (int)gmp_urandomm_ui(rs, N_EDGE), p, rs);                           \
                    mpz_urandomm(b, rs, p);                                                     \
                    if (i & 1) mpz_swap(a, b);                                                  \
                } else {                                                                        \
                    mpz_urandomm(a, rs, p);                                                     \
                    mpz_urandomm(b, rs, p);                                                     \
                }                                                                               \
                t_mpz_to_limbs(x[i].l, NL, a);                                                  \
                t_mpz_to_limbs(y[i].l, NL, b);                                                  \
                mpz_mul(c, a, b);                                                               \
                mpz_mul(c, c, rinv);                                                            \
                mpz_mod(c, c, p);                                                               \
                t_mpz_to_limbs(e[i].l, NL, c);                                                  \
            }                                                                                   \
            /* portable CIOS and the scalar batch (MULX or portable) vs GMP */                  \
            for (size_t i = 0; i < N_BATCH; i++) {                                              \
                limb_t q[NL];                                                                   \
                mont_mul(q, x[i].l, y[i].l, F##_p_, F##_pm_.n0, NL);                            \
                CHECK_MSG(limbs_eq(q, e[i].l, NL), "%s portable != GMP, round %d i=%zu", #F,   \
                          round, i);                                                            \
            }                                                                                   \
            F##_mul_batch_scalar(s, x, y, N_BATCH);                                             \
            for (size_t i = 0; i < N_BATCH; i++)                                                \
                CHECK_MSG(F##_eq(&s[i], &e[i]), "%s scalar batch != GMP, round %d i=%zu", #F,  \
                          round, i);                                                            \
            /* dispatched batch and x8 vs GMP */                                                \
            F##_mul_batch(r, x, y, N_BATCH);                                                    \
            for (size_t i = 0; i < N_BATCH; i++)                                                \
                CHECK_MSG(F##_eq(&r[i], &e[i]), "%s mul_batch != GMP, round %d i=%zu", #F,     \
                          round, i);                                                            \
            F##_mul_x8(r, x + 8, y + 8);                                                        \
            for (size_t i = 0; i < 8; i++)                                                      \
                CHECK(F##_eq(&r[i], &e[8 + i]));                                                \
            if (!have_ifma)                                                                     \
                continue;                                                                       \
            IFMA_CHECKS(F, NL)                                                                  \
        }                                                                                       \
        printf("  %-10s %s\n", #F, t_failures == fails_before ? "ok" : "FAILED");               \
        free(x); free(y); free(e); free(r); free(s);                                            \
        mpz_clears(p, a, b, c, rinv, NULL);                                                     \
        gmp_randclear(rs);                                                                      \
    }

#if G16_FIELD_ASM_X86
/* The IFMA kernel on the round's inputs: the whole batch vs GMP and vs the
 * scalar mul; every length 0..50 (blocks of 24, single groups of 8, the
 * padded tail) at a few offsets, with a sentinel past the end; out == a and
 * out == b. */
#define IFMA_CHECKS(F, NL)                                                                      \
    {                                                                                           \
        F##_mul_batch_ifma(r, x, y, N_BATCH);                                                   \
        for (size_t i = 0; i < N_BATCH; i++) {                                                  \
            CHECK_MSG(F##_eq(&r[i], &e[i]), "%s ifma != GMP, round %d i=%zu", #F, round, i);   \
            CHECK_MSG(F##_eq(&r[i], &s[i]), "%s ifma != scalar, round %d i=%zu", #F, round, i);\
        }                                                                                       \
        for (size_t len = 0; len <= 50; len++)                                                  \
            for (size_t off = 0; off < 40; off += 13) {                                         \
                memset(r, 0xa5, (len + 8) * sizeof *r);                                         \
                F##_mul_batch_ifma(r, x + off, y + off, len);                                   \
                for (size_t i = 0; i < len; i++)                                                \
                    CHECK_MSG(F##_eq(&r[i], &e[off + i]), "%s ifma len %zu off %zu i=%zu", #F,  \
                              len, off, i);                                                     \
                for (size_t i = len; i < len + 8; i++)                                          \
                    for (size_t w = 0; w < NL; w++)                                             \
                        CHECK(r[i].l[w] == 0xa5a5a5a5a5a5a5a5ULL);                              \
            }                                                                                   \
        memcpy(r, x, 100 * sizeof *r);                                                          \
        F##_mul_batch_ifma(r, r, y, 100);                                                       \
        for (size_t i = 0; i < 100; i++)                                                        \
            CHECK(F##_eq(&r[i], &e[i]));                                                        \
        memcpy(r, y, 100 * sizeof *r);                                                          \
        F##_mul_batch_ifma(r, x, r, 100);                                                       \
        for (size_t i = 0; i < 100; i++)                                                        \
            CHECK(F##_eq(&r[i], &e[i]));                                                        \
    }
#else
#define IFMA_CHECKS(F, NL)
#endif

FIELD_TEST(bn254_fp, 4)
FIELD_TEST(bn254_fr, 4)
FIELD_TEST(bls381_fp, 6)
FIELD_TEST(bls381_fr, 4)

int main(void) {
    uint64_t seed = t_seed("test_field_ifma");
    int have_ifma = g16_field_ifma_supported();
    const char *env_asm = getenv("G16_FIELD_ASM");
    int off = env_asm && (!strcmp(env_asm, "0") || !strcmp(env_asm, "noifma"));
    CHECK(g16_field_ifma_active() == (have_ifma && !off));
    if (have_ifma)
        printf("  IFMA kernel tested; mul_batch dispatches to %s\n",
               g16_field_ifma_active() ? "IFMA" : "the scalar loop");
    else
        printf("  IFMA checks skipped: no AVX-512 IFMA (CPU or OS, or not an x86-64 asm build); "
               "scalar and portable paths tested\n");
    test_bn254_fp(seed, have_ifma);
    test_bn254_fr(seed, have_ifma);
    test_bls381_fp(seed, have_ifma);
    test_bls381_fr(seed, have_ifma);
    return t_done("test_field_ifma");
}
