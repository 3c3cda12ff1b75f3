/* MSM tests for G1 and G2 of both curves. Two independent references:
 *  - the naive sum of jac_mul_vartime products (small n);
 *  - a discrete-log oracle: every base is built as P_i = a_i * G with a_i
 *    known, so sum k_i P_i = (sum k_i a_i mod r) * G, computed in Fr and
 *    checked with one scalar multiplication (any n).
 * Scalars: random, edge values (0, 1, 2, r-1, r-2, 2^k, 2^k - 1), 0/1-heavy
 * vectors; bases: distinct, repeated, negated, infinity. Entry points: the
 * main one (with caller scratch and without), forced windows and the split
 * off, the density bitmap form, the batch sum, Fr -> scalar conversion,
 * batch-affine buckets on colliding bases (doublings, cancellations, infinity)
 * against XYZZ ones and the msm.batch_affine option, and large-n
 * self-consistency MSM(a+b) = MSM(a) + MSM(b) at 2^14 (G1). */
#include <string.h>

#include "g16.h"
#include "msm/msm.h"
#include "testutil.h"

static int slow;

#define MSM_TEST(G, E, FR)                                                                       \
    static void G##_fr_to_scalar(g16_scalar *k, const FR *f) {                                  \
        limb_t x[4];                                                                             \
        FR##_from_mont(x, f);                                                                    \
        memcpy(k->l, x, sizeof x);                                                               \
    }                                                                                            \
    /* Scalar kind: 0 random, 1 zero, 2 one, 3 two, 4 r-1, 5 r-2, 6 2^j, 7 2^j-1. */             \
    static void G##_scalar(FR *f, int kind, g16_rng *rng) {                                      \
        FR one;                                                                                  \
        FR##_set_one(&one);                                                                      \
        switch (kind) {                                                                          \
        case 1: FR##_set_zero(f); break;                                                         \
        case 2: *f = one; break;                                                                 \
        case 3: FR##_from_u64(f, 2); break;                                                      \
        case 4: FR##_neg(f, &one); break;                                                        \
        case 5: FR##_from_u64(f, 2); FR##_neg(f, f); break;                                      \
        case 6:                                                                                  \
        case 7: {                                                                                \
            limb_t x[4] = {0};                                                                   \
            unsigned j = (unsigned)(g16_rng_next(rng) % 253);                                    \
            x[j / 64] = (limb_t)1 << (j % 64);                                                   \
            FR##_to_mont(f, x);                                                                  \
            if (kind == 7)                                                                       \
                FR##_sub(f, f, &one);                                                            \
            break;                                                                               \
        }                                                                                        \
        default: FR##_random(f, rng);                                                            \
        }                                                                                        \
    }                                                                                            \
    /* n bases with known logs a[i]: a walk a_{i+1} = a_i + d, then some                         \
     * entries replaced by repeats, negations and infinity (mode 1). */                          \
    static void G##_bases(G##_affine *P, FR *a, size_t n, int mode, g16_rng *rng) {              \
        G##_affine g;                                                                            \
        G##_generator(&g);                                                                       \
        G##_jac gj, cur, D;                                                                      \
        G##_jac_from_affine(&gj, &g);                                                            \
        FR d;                                                                                    \
        FR##_random(&a[0], rng);                                                                 \
        FR##_random(&d, rng);                                                                    \
        g16_scalar k;                                                                            \
        G##_fr_to_scalar(&k, &a[0]);                                                             \
        G##_jac_mul_vartime(&cur, &gj, &k);                                                      \
        G##_fr_to_scalar(&k, &d);                                                                \
        G##_jac_mul_vartime(&D, &gj, &k);                                                        \
        G##_jac *J = malloc(n * sizeof *J);                                                      \
        E *s = malloc(n * sizeof *s);                                                            \
        for (size_t i = 0; i < n; i++) {                                                         \
            if (i) {                                                                             \
                FR##_add(&a[i], &a[i - 1], &d);                                                  \
                G##_jac_add(&cur, &cur, &D);                                                     \
            }                                                                                    \
            J[i] = cur;                                                                          \
        }                                                                                        \
        G##_jac_batch_to_affine(P, J, n, s);                                                     \
        if (mode == 1)                                                                           \
            for (size_t i = 1; i < n; i++) {                                                     \
                size_t j = (size_t)(g16_rng_next(rng) % i);                                      \
                switch (g16_rng_next(rng) % 5) {                                                 \
                case 0: P[i] = P[j], a[i] = a[j]; break; /* repeat */                            \
                case 1: G##_affine_neg(&P[i], &P[j]), FR##_neg(&a[i], &a[j]); break;             \
                case 2: G##_affine_set_inf(&P[i]), FR##_set_zero(&a[i]); break;                  \
                default: break;                                                                  \
                }                                                                                \
            }                                                                                    \
        free(J);                                                                                 \
        free(s);                                                                                 \
    }                                                                                            \
    /* (sum f[i] a[idx i]) * G */                                                                \
    static void G##_oracle(G##_jac *r, const FR *f, const FR *a, const uint32_t *idx, size_t n) { \
        FR acc, t;                                                                               \
        FR##_set_zero(&acc);                                                                     \
        for (size_t i = 0; i < n; i++) {                                                         \
            FR##_mul(&t, &f[i], &a[idx ? idx[i] : i]);                                           \
            FR##_add(&acc, &acc, &t);                                                            \
        }                                                                                        \
        G##_affine g;                                                                            \
        G##_generator(&g);                                                                       \
        G##_jac gj;                                                                              \
        G##_jac_from_affine(&gj, &g);                                                            \
        g16_scalar k;                                                                            \
        G##_fr_to_scalar(&k, &acc);                                                              \
        G##_jac_mul_vartime(r, &gj, &k);                                                         \
    }                                                                                            \
    static void G##_naive(G##_jac *r, const G##_affine *P, const g16_scalar *k, size_t n) {      \
        G##_jac_set_inf(r);                                                                      \
        for (size_t i = 0; i < n; i++) {                                                         \
            G##_jac t;                                                                           \
            G##_jac_from_affine(&t, &P[i]);                                                      \
            G##_jac_mul_vartime(&t, &t, &k[i]);                                                  \
            G##_jac_add(r, r, &t);                                                               \
        }                                                                                        \
    }                                                                                            \
    static void G##_make_scalars(FR *f, g16_scalar *k, size_t n, int mix, g16_rng *rng) {        \
        for (size_t i = 0; i < n; i++) {                                                         \
            int kind = 0;                                                                        \
            if (mix == 1)                                                                        \
                kind = (int)(g16_rng_next(rng) % 8);                                             \
            else if (mix == 2) /* 0/1 heavy: 45% zeros, 45% ones */                              \
                kind = (int)(g16_rng_next(rng) % 20) < 9 ? 1 : (int)(g16_rng_next(rng) % 11) < 10 ? 2 : 0; \
            G##_scalar(&f[i], kind, rng);                                                        \
        }                                                                                        \
        msm_##FR##_to_scalars(NULL, k, f, n);                                                    \
    }                                                                                            \
    static void G##_test_small(g16_ctx *ctx, g16_rng *rng, size_t nmax_naive, size_t nbig) {     \
        size_t NM = nbig;                                                                        \
        G##_affine *P = malloc(NM * sizeof *P);                                                  \
        FR *a = malloc(NM * sizeof *a), *f = malloc(NM * sizeof *f);                             \
        g16_scalar *k = malloc(NM * sizeof *k);                                                  \
        G##_jac r, ref, ref2;                                                                    \
        /* naive reference, n = 0..nmax_naive, all scalar mixes, both base modes */              \
        for (size_t n = 0; n <= nmax_naive; n++) {                                               \
            int mix = (int)(n % 3), mode = (int)(n % 2);                                         \
            G##_bases(P, a, n ? n : 1, mode, rng);                                               \
            G##_make_scalars(f, k, n, mix, rng);                                                 \
            CHECK(msm_##G(ctx, &r, P, k, n, NULL, 0) == G16_OK);                                 \
            G##_naive(&ref, P, k, n);                                                            \
            CHECK_MSG(G##_jac_eq(&r, &ref), "%s naive n=%zu mix=%d mode=%d", #G, n, mix, mode);  \
            G##_oracle(&ref2, f, a, NULL, n);                                                    \
            CHECK_MSG(G##_jac_eq(&ref2, &ref), "%s oracle vs naive n=%zu", #G, n);               \
        }                                                                                        \
        /* a few hundred points: oracle; all forced windows and split off agree */               \
        size_t n = nbig;                                                                         \
        for (int mix = 0; mix < 3; mix++) {                                                      \
            G##_bases(P, a, n, 1, rng);                                                          \
            G##_make_scalars(f, k, n, mix, rng);                                                 \
            G##_oracle(&ref, f, a, NULL, n);                                                     \
            size_t ss = msm_##G##_scratch_size(ctx, n);                                          \
            void *scr = malloc(ss);                                                              \
            CHECK(msm_##G(ctx, &r, P, k, n, scr, ss) == G16_OK);                                 \
            CHECK_MSG(G##_jac_eq(&r, &ref), "%s n=%zu mix=%d", #G, n, mix);                      \
            CHECK(msm_##G(ctx, &r, P, k, n, scr, ss / 2) == G16_ERR_INVALID_ARG);                \
            free(scr);                                                                           \
            for (unsigned c = 1; c <= 10; c += (c < 4 ? 1 : 3))                                  \
                for (int fl = 0; fl < 2; fl++) {                                                 \
                    int flags = fl && c >= 4 ? MSM_FORCE_AFFINE | ((int)c & MSM_SPLIT)          \
                                              : MSM_NO_AFFINE | ((int)c & MSM_SPLIT);          \
                    CHECK(msm_##G##_tuned(ctx, &r, P, k, n, c, flags) == G16_OK);                \
                    CHECK_MSG(G##_jac_eq(&r, &ref), "%s n=%zu mix=%d c=%u fl=%d", #G, n, mix, c, \
                              flags);                                                            \
                }                                                                                \
        }                                                                                        \
        /* all scalars r-1: sum = -(sum of bases) */                                             \
        for (size_t i = 0; i < n; i++)                                                           \
            G##_scalar(&f[i], 4, rng);                                                           \
        msm_##FR##_to_scalars(ctx, k, f, n);                                                     \
        CHECK(msm_##G(ctx, &r, P, k, n, NULL, 0) == G16_OK);                                     \
        CHECK(msm_##G##_sum(ctx, &ref, P, n, NULL) == G16_OK);                                   \
        G##_jac_neg(&ref, &ref);                                                                 \
        CHECK_MSG(G##_jac_eq(&r, &ref), "%s all r-1", #G);                                       \
        /* batch sum with a selection bitmap vs oracle with 0/1 scalars */                       \
        uint8_t *bits = calloc((n + 7) / 8, 1);                                                  \
        for (size_t i = 0; i < n; i++) {                                                         \
            int b = (int)(g16_rng_next(rng) & 1);                                                \
            bits[i / 8] |= (uint8_t)(b << (i % 8));                                              \
            G##_scalar(&f[i], b ? 2 : 1, rng);                                                   \
        }                                                                                        \
        G##_oracle(&ref, f, a, NULL, n);                                                         \
        CHECK(msm_##G##_sum(ctx, &r, P, n, bits) == G16_OK);                                     \
        CHECK_MSG(G##_jac_eq(&r, &ref), "%s sum bitmap", #G);                                    \
        /* density: scalars pair with the set bits' bases */                                     \
        size_t pop = 0;                                                                          \
        uint32_t *idx = malloc(n * sizeof *idx);                                                 \
        for (size_t i = 0; i < n; i++)                                                           \
            if ((bits[i / 8] >> (i % 8)) & 1)                                                    \
                idx[pop++] = (uint32_t)i;                                                        \
        G##_make_scalars(f, k, pop, 1, rng);                                                     \
        G##_oracle(&ref, f, a, idx, pop);                                                        \
        CHECK(msm_##G##_density(ctx, &r, P, n, bits, k, pop, NULL, 0) == G16_OK);                \
        CHECK_MSG(G##_jac_eq(&r, &ref), "%s density pop=%zu", #G, pop);                          \
        size_t ss = msm_##G##_scratch_size(ctx, pop);                                            \
        void *scr = malloc(ss);                                                                  \
        CHECK(msm_##G##_density(ctx, &r, P, n, bits, k, pop, scr, ss) == G16_OK);                \
        CHECK_MSG(G##_jac_eq(&r, &ref), "%s density with scratch", #G);                          \
        free(scr);                                                                               \
        if (pop > 0)                                                                             \
            CHECK(msm_##G##_density(ctx, &r, P, n, bits, k, pop - 1, NULL, 0) ==                 \
                  G16_ERR_SIZE_MISMATCH);                                                        \
        /* argument errors */                                                                    \
        CHECK(msm_##G(NULL, &r, P, k, n, NULL, 0) == G16_ERR_INVALID_ARG);                       \
        CHECK(msm_##G(ctx, &r, NULL, k, n, NULL, 0) == G16_ERR_INVALID_ARG);                     \
        CHECK(msm_##G(ctx, &r, NULL, NULL, 0, NULL, 0) == G16_OK && G##_jac_is_inf(&r));         \
        k[n / 2].l[3] = ~(limb_t)0; /* >= 2^bits(r) */                                           \
        CHECK(msm_##G(ctx, &r, P, k, n, NULL, 0) == G16_ERR_NOT_CANONICAL);                      \
        free(idx), free(bits), free(P), free(a), free(f), free(k);                               \
    }                                                                                            \
    /* Batch-affine buckets against XYZZ ones and the oracle, on bases made to                  \
     * collide: pattern 0 one point P everywhere (doublings in a batch, deferrals),              \
     * 1 P and -P alternating with equal scalars (B + (-B) = O inside a bucket, then             \
     * the bucket refilled), 2 eight points with repeats, negations and infinity                 \
     * among them; scalars random, edge values or 0/1-heavy; n around the batch                  \
     * sizes (not multiples, below the batch). c = 3, 5, 8: 4, 16, 128 buckets (batch              \
     * sizes 1, 4, 32: collisions everywhere). Same group element in every mode.  */            \
    static void G##_test_affine(g16_ctx *ctx, g16_rng *rng, size_t nmax) {                       \
        static const size_t ns[] = {1, 2, 3, 7, 64, 255, 513, 1025, 2100};                       \
        static const char *modes[] = {"on", "off", "auto"};                                      \
        size_t NM = 2100;                                                                        \
        G##_affine *P = malloc(NM * sizeof *P);                                                  \
        FR *a = malloc(NM * sizeof *a), *f = malloc(NM * sizeof *f);                             \
        g16_scalar *k = malloc(NM * sizeof *k);                                                  \
        G##_jac r, ref, rx;                                                                      \
        for (size_t t = 0; t < sizeof ns / sizeof ns[0] && ns[t] <= nmax; t++)                   \
            for (int pat = 0; pat < 3; pat++) {                                                  \
                size_t n = ns[t];                                                                \
                G##_bases(P, a, pat == 2 ? 8 : 1, pat == 2, rng);                                \
                for (size_t i = n; i-- > 0;) {                                                   \
                    size_t j = pat == 2 ? (size_t)(g16_rng_next(rng) % 8) : 0;                   \
                    P[i] = P[j], a[i] = a[j];                                                    \
                }                                                                                \
                if (pat == 1)                                                                    \
                    for (size_t i = 1; i < n; i += 2)                                            \
                        G##_affine_neg(&P[i], &P[i - 1]), FR##_neg(&a[i], &a[i - 1]);            \
                G##_make_scalars(f, k, n, (int)(t % 3), rng);                                    \
                if (pat == 1)                                                                    \
                    for (size_t i = 1; i < n; i += 2)                                            \
                        f[i] = f[i - 1], k[i] = k[i - 1];                                        \
                G##_oracle(&ref, f, a, NULL, n);                                                 \
                for (unsigned c = n > 600 ? 8 : 3; c <= 8; c += 2 + (c == 7))                    \
                    for (int sp = 0; sp < 2; sp++) {                                             \
                        CHECK(msm_##G##_tuned(ctx, &r, P, k, n, c, MSM_FORCE_AFFINE | sp) == G16_OK); \
                        CHECK(msm_##G##_tuned(ctx, &rx, P, k, n, c, MSM_NO_AFFINE | sp) == G16_OK); \
                        CHECK_MSG(G##_jac_eq(&r, &ref) && G##_jac_eq(&rx, &ref),                 \
                                  "%s affine pat=%d n=%zu c=%u split=%d", #G, pat, n, c, sp);     \
                    }                                                                            \
                for (int m = 0; m < 3; m++) { /* the option: on, off, auto */                    \
                    CHECK(g16_ctx_set_option(ctx, "msm.batch_affine", modes[m], G16_OPTION_FLAG) == G16_OK); \
                    CHECK(msm_##G(ctx, &r, P, k, n, NULL, 0) == G16_OK);                         \
                    CHECK_MSG(G##_jac_eq(&r, &ref), "%s msm.batch_affine=%s pat=%d n=%zu", #G,   \
                              modes[m], pat, n);                                                 \
                }                                                                                \
            }                                                                                    \
        free(P), free(a), free(f), free(k);                                                      \
    }                                                                                            \
    /* Large n: MSM(a + b) = MSM(a) + MSM(b), and the oracle. */                                 \
    static void G##_test_large(g16_ctx *ctx, g16_rng *rng, size_t n) {                           \
        G##_affine *P = malloc(n * sizeof *P);                                                   \
        FR *a = malloc(n * sizeof *a), *f = malloc(n * sizeof *f), *h = malloc(n * sizeof *h);   \
        g16_scalar *k = malloc(n * sizeof *k), *l = malloc(n * sizeof *l);                       \
        G##_bases(P, a, n, 1, rng);                                                              \
        G##_make_scalars(f, k, n, 0, rng);                                                       \
        G##_make_scalars(h, l, n, 2, rng);                                                       \
        G##_jac ra, rb, rab, ref;                                                                \
        CHECK(msm_##G(ctx, &ra, P, k, n, NULL, 0) == G16_OK);                                    \
        CHECK(msm_##G(ctx, &rb, P, l, n, NULL, 0) == G16_OK);                                    \
        for (size_t i = 0; i < n; i++)                                                           \
            FR##_add(&f[i], &f[i], &h[i]);                                                       \
        msm_##FR##_to_scalars(ctx, k, f, n);                                                     \
        CHECK(msm_##G(ctx, &rab, P, k, n, NULL, 0) == G16_OK);                                   \
        G##_jac_add(&ra, &ra, &rb);                                                              \
        CHECK_MSG(G##_jac_eq(&ra, &rab), "%s MSM(a+b) n=%zu", #G, n);                            \
        G##_oracle(&ref, f, a, NULL, n);                                                         \
        CHECK_MSG(G##_jac_eq(&ref, &rab), "%s oracle n=%zu", #G, n);                             \
        free(P), free(a), free(f), free(h), free(k), free(l);                                    \
    }

MSM_TEST(bn254_g1, bn254_fp, bn254_fr)
MSM_TEST(bn254_g2, bn254_fp2, bn254_fr)
MSM_TEST(bls381_g1, bls381_fp, bls381_fr)
MSM_TEST(bls381_g2, bls381_fp2, bls381_fr)

/* Booth/window plan sanity: the automatic window grows with n. */
static void test_plan(void) {
    unsigned prev = 0;
    for (size_t m = 1; m <= ((size_t)1 << 26); m <<= 1) {
        unsigned c = msm_window_for(m, 2, 254, sizeof(bn254_g1_affine));
        CHECK(c >= 1 && c <= 16 && c >= prev);
        prev = c;
    }
}

int main(void) {
    uint64_t seed = t_seed("test_msm");
    slow = getenv("G16_SLOW") != NULL;
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    g16_ctx_opts opts = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&opts);
    CHECK(ctx != NULL);
    test_plan();
    bn254_g1_test_small(ctx, &rng, slow ? 64 : 40, slow ? 700 : 300);
    bls381_g1_test_small(ctx, &rng, slow ? 64 : 24, slow ? 700 : 300);
    bn254_g2_test_small(ctx, &rng, slow ? 64 : 12, slow ? 600 : 150);
    bls381_g2_test_small(ctx, &rng, slow ? 64 : 10, slow ? 600 : 150);
    bn254_g1_test_affine(ctx, &rng, 2100);
    bls381_g1_test_affine(ctx, &rng, 2100);
    bn254_g2_test_affine(ctx, &rng, slow ? 2100 : 513);
    bls381_g2_test_affine(ctx, &rng, slow ? 2100 : 255);
    bn254_g1_test_large(ctx, &rng, (size_t)1 << (slow ? 16 : 14));
    bls381_g1_test_large(ctx, &rng, (size_t)1 << (slow ? 15 : 12));
    bn254_g2_test_large(ctx, &rng, (size_t)1 << (slow ? 14 : 10));
    bls381_g2_test_large(ctx, &rng, (size_t)1 << (slow ? 13 : 10));
    g16_ctx_destroy(ctx);
    return t_done("test_msm");
}
