/* The x86-64 asm kernels (limbs_x86.h: Montgomery mul/sqr, add, sub, neg)
 * against the portable code (limbs.h: CIOS mul, add, sub, neg) and GMP, on
 * the same inputs, for all four prime fields, whatever path the dispatcher
 * picked. Inputs: edge values (0, 1, 2, p-1,
 * p-2, (p+-1)/2, 2^k +- 1 mod p, values with all-ones limbs below p) and
 * random values from a logged seed. Expected: a * b * 2^(-64n) mod p,
 * a + b, a - b, -a mod p. */
#include <string.h>

#include "testutil.h"

#if G16_FIELD_ASM_X86
#include <cpuid.h>
#endif

#define N_GMP 20000     /* iterations checked against GMP as well */
#define N_CROSS 200000  /* iterations checking asm == portable only */

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
    case 7: /* 2^(bits-1) - 1: all ones below the top bit */
        mpz_set_ui(z, 1); mpz_mul_2exp(z, z, bits - 1); mpz_sub_ui(z, z, 1); break;
    case 8: /* p - 2^64 * random small: low limb equal to p's */
        mpz_set_ui(z, 1); mpz_mul_2exp(z, z, 64); mpz_mul_ui(z, z, 1 + gmp_urandomm_ui(rs, 1000));
        mpz_sub(z, p, z); break;
    case 9: /* all-ones low limbs, random top */
        mpz_urandomm(z, rs, p); mpz_fdiv_q_2exp(z, z, 64 * (bits / 64)); mpz_mul_2exp(z, z, 64 * (bits / 64));
        { mpz_t o; mpz_init_set_ui(o, 1); mpz_mul_2exp(o, o, 64 * (bits / 64)); mpz_sub_ui(o, o, 1);
          mpz_add(z, z, o); mpz_clear(o); }
        mpz_mod(z, z, p); break;
    default: { /* 2^j +- 1 */
        unsigned long j = gmp_urandomm_ui(rs, bits);
        mpz_set_ui(z, 1); mpz_mul_2exp(z, z, j);
        if (k & 1) mpz_sub_ui(z, z, 1); else mpz_add_ui(z, z, 1);
        mpz_mod(z, z, p);
    }
    }
}
#define N_EDGE 14

typedef void (*mul_fn)(limb_t *r, const limb_t *a, const limb_t *b);
typedef void (*sqr_fn)(limb_t *r, const limb_t *a);

/* add/sub/neg, portable (limbs.h) and asm (limbs_x86.h), on raw limbs. */
typedef struct {
    mul_fn port_add, port_sub, asm_add, asm_sub;
    sqr_fn port_neg, asm_neg;
} addsub_fns;

/* Per-field wrappers: each path called explicitly. */
#define WRAP(F, NL)                                                                       \
    static void F##_port_mul(limb_t *r, const limb_t *a, const limb_t *b) {               \
        mont_mul(r, a, b, F##_p_, F##_pm_.n0, NL);                                        \
    }                                                                                     \
    static void F##_disp_mul(limb_t *r, const limb_t *a, const limb_t *b) {               \
        F x, y, z;                                                                        \
        memcpy(x.l, a, sizeof x.l); memcpy(y.l, b, sizeof y.l);                           \
        F##_mul(&z, &x, &y);                                                              \
        memcpy(r, z.l, sizeof z.l);                                                       \
    }                                                                                     \
    static void F##_disp_sqr(limb_t *r, const limb_t *a) {                                \
        F x, z;                                                                           \
        memcpy(x.l, a, sizeof x.l);                                                       \
        F##_sqr(&z, &x);                                                                  \
        memcpy(r, z.l, sizeof z.l);                                                       \
    }
#define WRAP_ADD(F, NL)                                                                   \
    static void F##_port_add(limb_t *r, const limb_t *a, const limb_t *b) {               \
        mod_add(r, a, b, F##_p_, NL);                                                     \
    }                                                                                     \
    static void F##_port_sub(limb_t *r, const limb_t *a, const limb_t *b) {               \
        mod_sub(r, a, b, F##_p_, NL);                                                     \
    }                                                                                     \
    static void F##_port_neg(limb_t *r, const limb_t *a) { mod_neg(r, a, F##_p_, NL); }
WRAP_ADD(bn254_fp, 4)
WRAP_ADD(bn254_fr, 4)
WRAP_ADD(bls381_fp, 6)
WRAP_ADD(bls381_fr, 4)
#if G16_FIELD_ASM_X86
#define WRAP_ADD_ASM(F, NL)                                                               \
    static void F##_asm_add(limb_t *r, const limb_t *a, const limb_t *b) {                \
        mod_add_x86_##NL(r, a, b, F##_pm_.p);                                             \
    }                                                                                     \
    static void F##_asm_sub(limb_t *r, const limb_t *a, const limb_t *b) {                \
        mod_sub_x86_##NL(r, a, b, F##_pm_.p);                                             \
    }                                                                                     \
    static void F##_asm_neg(limb_t *r, const limb_t *a) { mod_neg_x86_##NL(r, a, F##_pm_.p); }
WRAP_ADD_ASM(bn254_fp, 4)
WRAP_ADD_ASM(bn254_fr, 4)
WRAP_ADD_ASM(bls381_fp, 6)
WRAP_ADD_ASM(bls381_fr, 4)
#define ADDSUB(F) {F##_port_add, F##_port_sub, F##_asm_add, F##_asm_sub, F##_port_neg, F##_asm_neg}
#else
#define ADDSUB(F) {F##_port_add, F##_port_sub, NULL, NULL, F##_port_neg, NULL}
#endif

WRAP(bn254_fp, 4)
WRAP(bn254_fr, 4)
WRAP(bls381_fp, 6)
WRAP(bls381_fr, 4)

#if G16_FIELD_ASM_X86
#define WRAP_ASM(F, NL)                                                                   \
    static void F##_asm_mul(limb_t *r, const limb_t *a, const limb_t *b) {                \
        mont_mul_adx_##NL(r, a, b, F##_pm_.p);                                            \
    }
WRAP_ASM(bn254_fp, 4)
WRAP_ASM(bn254_fr, 4)
WRAP_ASM(bls381_fp, 6)
WRAP_ASM(bls381_fr, 4)
#define SQR4(F) static void F##_asm_sqr(limb_t *r, const limb_t *a) { mont_sqr_adx_4(r, a, F##_pm_.p); }
SQR4(bn254_fp)
SQR4(bn254_fr)
SQR4(bls381_fr)
#endif

typedef struct {
    const char *name;
    size_t n;
    const limb_t *p;
    mul_fn port_mul, disp_mul, asm_mul;
    sqr_fn disp_sqr, asm_sqr;
    addsub_fns as;
} field_case;

static void test_field(const field_case *fc, uint64_t seed, int have_asm) {
    size_t n = fc->n;
    long fails_before = t_failures;
    mpz_t p, a, b, c, rinv;
    mpz_inits(p, a, b, c, rinv, NULL);
    t_limbs_to_mpz(p, fc->p, n);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 64 * n);
    CHECK(mpz_invert(rinv, rinv, p));
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, (unsigned long)(seed ^ n ^ fc->p[0]));
    for (long it = 0; it < N_CROSS; it++) {
        if (it < N_EDGE * N_EDGE) {
            edge(a, (int)(it % N_EDGE), p, rs);
            edge(b, (int)(it / N_EDGE), p, rs);
        } else if (it % 3 == 0) {
            edge(a, (int)gmp_urandomm_ui(rs, N_EDGE), p, rs);
            mpz_urandomm(b, rs, p);
        } else {
            mpz_urandomm(a, rs, p);
            mpz_urandomm(b, rs, p);
        }
        limb_t al[G16_MAX_LIMBS], bl[G16_MAX_LIMBS], rp[G16_MAX_LIMBS], rd[G16_MAX_LIMBS],
            ra[G16_MAX_LIMBS], el[G16_MAX_LIMBS];
        t_mpz_to_limbs(al, n, a);
        t_mpz_to_limbs(bl, n, b);
        /* multiplication: portable, dispatched, asm */
        fc->port_mul(rp, al, bl);
        fc->disp_mul(rd, al, bl);
        CHECK_MSG(limbs_eq(rp, rd, n), "%s dispatched mul != portable, it=%ld", fc->name, it);
        if (have_asm) {
            fc->asm_mul(ra, al, bl);
            CHECK_MSG(limbs_eq(rp, ra, n), "%s asm mul != portable, it=%ld", fc->name, it);
            /* aliasing r = a and r = b */
            memcpy(ra, al, sizeof ra);
            fc->asm_mul(ra, ra, bl);
            CHECK(limbs_eq(rp, ra, n));
            memcpy(ra, bl, sizeof ra);
            fc->asm_mul(ra, al, ra);
            CHECK(limbs_eq(rp, ra, n));
        }
        if (it < N_GMP) {
            mpz_mul(c, a, b);
            mpz_mul(c, c, rinv);
            mpz_mod(c, c, p);
            t_mpz_to_limbs(el, n, c);
            CHECK_MSG(limbs_eq(rp, el, n), "%s portable mul != GMP, it=%ld", fc->name, it);
        }
        /* squaring: portable (mont_mul(a, a)), dispatched, dedicated asm */
        fc->port_mul(rp, al, al);
        fc->disp_sqr(rd, al);
        CHECK_MSG(limbs_eq(rp, rd, n), "%s dispatched sqr != portable, it=%ld", fc->name, it);
        if (have_asm) {
            fc->asm_mul(ra, al, al);
            CHECK_MSG(limbs_eq(rp, ra, n), "%s asm mul(a,a) != portable, it=%ld", fc->name, it);
            if (fc->asm_sqr) {
                fc->asm_sqr(ra, al);
                CHECK_MSG(limbs_eq(rp, ra, n), "%s asm sqr != portable, it=%ld", fc->name, it);
                memcpy(ra, al, sizeof ra);
                fc->asm_sqr(ra, ra);
                CHECK(limbs_eq(rp, ra, n));
            }
        }
        /* add, sub, neg: portable vs GMP, asm (baseline x86-64, no dispatch
         * flag) vs portable */
        {
            const addsub_fns *f = &fc->as;
            limb_t q[G16_MAX_LIMBS];
            f->port_add(rp, al, bl);
            f->port_sub(rd, al, bl);
            f->port_neg(q, al);
            if (it < N_GMP) {
                mpz_add(c, a, b); mpz_mod(c, c, p); t_mpz_to_limbs(el, n, c);
                CHECK_MSG(limbs_eq(rp, el, n), "%s portable add != GMP, it=%ld", fc->name, it);
                mpz_sub(c, a, b); mpz_mod(c, c, p); t_mpz_to_limbs(el, n, c);
                CHECK_MSG(limbs_eq(rd, el, n), "%s portable sub != GMP, it=%ld", fc->name, it);
                mpz_neg(c, a); mpz_mod(c, c, p); t_mpz_to_limbs(el, n, c);
                CHECK_MSG(limbs_eq(q, el, n), "%s portable neg != GMP, it=%ld", fc->name, it);
            }
            if (f->asm_add) {
                f->asm_add(ra, al, bl);
                CHECK_MSG(limbs_eq(ra, rp, n), "%s asm add != portable, it=%ld", fc->name, it);
                f->asm_sub(ra, al, bl);
                CHECK_MSG(limbs_eq(ra, rd, n), "%s asm sub != portable, it=%ld", fc->name, it);
                f->asm_neg(ra, al);
                CHECK_MSG(limbs_eq(ra, q, n), "%s asm neg != portable, it=%ld", fc->name, it);
                memcpy(ra, al, sizeof ra); /* aliasing */
                f->asm_add(ra, ra, ra);
                f->port_add(rp, al, al);
                CHECK(limbs_eq(ra, rp, n));
                memcpy(ra, bl, sizeof ra);
                f->asm_sub(ra, al, ra);
                CHECK(limbs_eq(ra, rd, n));
            }
        }
        if (it < N_GMP) {
            fc->port_mul(rp, al, al);
            mpz_mul(c, a, a);
            mpz_mul(c, c, rinv);
            mpz_mod(c, c, p);
            t_mpz_to_limbs(el, n, c);
            CHECK_MSG(limbs_eq(rp, el, n), "%s portable sqr != GMP, it=%ld", fc->name, it);
        }
    }
    printf("  %-10s %s\n", fc->name, t_failures == fails_before ? "ok" : "FAILED");
    mpz_clears(p, a, b, c, rinv, NULL);
    gmp_randclear(rs);
}

int main(void) {
    uint64_t seed = t_seed("test_field_asm");
    int have_asm = 0;
#if G16_FIELD_ASM_X86
    /* Test the asm whenever the CPU can run it, even if G16_FIELD_ASM=0
     * turned the dispatch off. */
    unsigned eax, ebx, ecx, edx;
    have_asm = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx >> 8 & 1) && (ebx >> 19 & 1);
    const char *env = getenv("G16_FIELD_ASM");
    CHECK(g16_field_asm_active() == (have_asm && !(env && !strcmp(env, "0"))));
#define ASM(F) F##_asm_mul
#define ASMSQ(F) F##_asm_sqr
#else
#define ASM(F) NULL
#define ASMSQ(F) NULL
#endif
    printf("  asm kernels %s; dispatch uses the %s path\n",
           have_asm ? "tested" : "NOT tested (not built, or no BMI2+ADX)",
           g16_field_asm_active() ? "asm" : "portable");
    const field_case cases[] = {
        {"bn254_fp", 4, bn254_fp_p_, bn254_fp_port_mul, bn254_fp_disp_mul, ASM(bn254_fp),
         bn254_fp_disp_sqr, ASMSQ(bn254_fp), ADDSUB(bn254_fp)},
        {"bn254_fr", 4, bn254_fr_p_, bn254_fr_port_mul, bn254_fr_disp_mul, ASM(bn254_fr),
         bn254_fr_disp_sqr, ASMSQ(bn254_fr), ADDSUB(bn254_fr)},
        {"bls381_fp", 6, bls381_fp_p_, bls381_fp_port_mul, bls381_fp_disp_mul, ASM(bls381_fp),
         bls381_fp_disp_sqr, NULL, ADDSUB(bls381_fp)},
        {"bls381_fr", 4, bls381_fr_p_, bls381_fr_port_mul, bls381_fr_disp_mul, ASM(bls381_fr),
         bls381_fr_disp_sqr, ASMSQ(bls381_fr), ADDSUB(bls381_fr)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        test_field(&cases[i], seed, have_asm);
    return t_done("test_field_asm");
}
