/* NTT tests for Fr of both curves against independent references:
 *  - roots: omega^(2^k) = 1, omega^(2^(k-1)) != 1, w[k+1]^2 = w[k], and
 *    w[s] equals the field layer's Tonelli-Shanks z = 5^t (generated apart);
 *  - a naive O(n^2) DFT for every size 2^0..2^10 and every order;
 *  - spot checks (O(n) Horner evaluation at random points) for the four-step
 *    sizes 2^11..2^16, forward, coset and odd coset;
 *  - round trips (inverse o forward, coset pairs, all orders) and linearity
 *    up to 2^16 (2^20 with G16_SLOW set), and one forward/inverse round trip
 *    at 2^20 (2^22 with G16_SLOW) for BN254;
 *  - the same on a context with the cached twiddle matrix off (the path of
 *    sizes above 2^NTT_FULL_TW_MAX_LOG);
 *  - the field layer's batched butterflies <fr>_bfly_{dif,dit}_batch (and the
 *    IFMA kernels) against add/sub/mul, n = 0..50, edge values;
 *  - the batched (AVX-512 IFMA) products against the scalar ones on a context
 *    with ntt_set_batch_mul(ctx, 0), bit for bit, every entry point and order,
 *    2^0..2^13 and 2^16, with and without the cached twiddle matrix;
 *  - concurrent callers on one context (shared twiddle cache);
 *  - errors: sizes above the two-adicity, NULL arguments. */
#include <pthread.h>
#include <string.h>

#include "ntt/ntt.h"
#include "testutil.h"

static int slow;

/* The IFMA butterfly kernels exist on x86-64 builds only (the caller checked
 * g16_field_ifma_supported()). */
#if G16_FIELD_ASM_X86
#define BFLY_IFMA(F, dit, x, y, w, n) (dit ? F##_bfly_dit_batch_ifma : F##_bfly_dif_batch_ifma)(x, y, w, n)
#else
#define BFLY_IFMA(F, dit, x, y, w, n) (void)0
#endif

#define NTT_TEST(F, F_UP)                                                                        \
    /* Horner: P(x) = sum a[i] x^i */                                                            \
    static void F##_horner(F *r, const F *a, size_t n, const F *x) {                             \
        F acc;                                                                                   \
        F##_set_zero(&acc);                                                                      \
        for (size_t i = n; i-- > 0;) {                                                           \
            F##_mul(&acc, &acc, x);                                                              \
            F##_add(&acc, &acc, &a[i]);                                                          \
        }                                                                                        \
        *r = acc;                                                                                \
    }                                                                                            \
    static void F##_pow_u64(F *r, const F *b, uint64_t e) {                                      \
        limb_t l[1] = {e};                                                                       \
        F##_pow(r, b, l, 1);                                                                     \
    }                                                                                            \
    /* permutes a copy: out[rev(i)] = in[i] */                                                   \
    static void F##_permute(F *out, const F *in, unsigned k) {                                   \
        for (size_t i = 0; i < ((size_t)1 << k); i++)                                            \
            out[ntt_bitrev32((uint32_t)i, k)] = in[i];                                           \
    }                                                                                            \
    static int F##_eqv(const F *a, const F *b, size_t n) {                                       \
        for (size_t i = 0; i < n; i++)                                                           \
            if (!F##_eq(&a[i], &b[i]))                                                           \
                return 0;                                                                        \
        return 1;                                                                                \
    }                                                                                            \
    static void F##_test_roots(void) {                                                           \
        unsigned s = ntt_##F##_max_log();                                                        \
        CHECK(s == F_UP##_TS_S);                                                                 \
        F w, t, one, prev;                                                                       \
        F##_set_one(&one);                                                                       \
        CHECK(ntt_##F##_root(&w, 0) && F##_is_one(&w));                                          \
        CHECK(!ntt_##F##_root(&w, s + 1));                                                       \
        static const limb_t z[4] = F_UP##_TS_Z; /* 5^t from the field generator */              \
        ntt_##F##_root(&w, s);                                                                   \
        CHECK(limbs_eq(w.l, z, 4));                                                              \
        for (unsigned k = 1; k <= s; k++) {                                                      \
            ntt_##F##_root(&w, k);                                                               \
            t = w;                                                                               \
            for (unsigned i = 0; i + 1 < k; i++)                                                 \
                F##_sqr(&t, &t);                                                                 \
            CHECK_MSG(!F##_is_one(&t), "%s k=%u", #F, k); /* omega^(2^(k-1)) != 1 */             \
            F##_sqr(&t, &t);                                                                     \
            CHECK_MSG(F##_is_one(&t), "%s k=%u", #F, k); /* omega^(2^k) = 1 */                   \
            ntt_##F##_root(&prev, k - 1);                                                        \
            F##_sqr(&t, &w);                                                                     \
            CHECK(F##_eq(&t, &prev));                                                            \
        }                                                                                        \
        (void)one;                                                                               \
    }                                                                                            \
    /* Naive DFT with root w: out[j] = sum a[i] w^(ij). */                                       \
    static void F##_naive_dft(F *out, const F *a, unsigned k, const F *w) {                      \
        size_t n = (size_t)1 << k;                                                               \
        F wj;                                                                                    \
        F##_set_one(&wj);                                                                        \
        for (size_t j = 0; j < n; j++) {                                                         \
            F##_horner(&out[j], a, n, &wj);                                                      \
            F##_mul(&wj, &wj, w);                                                                \
        }                                                                                        \
    }                                                                                            \
    static void F##_test_naive(g16_ctx *ctx, g16_rng *rng) {                                     \
        for (unsigned k = 0; k <= 10; k++) {                                                     \
            size_t n = (size_t)1 << k;                                                           \
            F *a = malloc(n * sizeof(F)), *ref = malloc(n * sizeof(F)),                          \
              *refr = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F)),                         \
              *ar = malloc(n * sizeof(F));                                                       \
            for (size_t i = 0; i < n; i++)                                                       \
                F##_random(&a[i], rng);                                                          \
            if (k == 3)                                                                          \
                for (size_t i = 0; i < n; i++) /* small edge values */                           \
                    F##_from_u64(&a[i], i == 1);                                                 \
            F w;                                                                                 \
            ntt_##F##_root(&w, k);                                                               \
            F##_naive_dft(ref, a, k, &w);                                                        \
            F##_permute(refr, ref, k);                                                           \
            F##_permute(ar, a, k);                                                               \
            for (int ord = 0; ord < 4; ord++) {                                                  \
                memcpy(x, (ord & 2) ? ar : a, n * sizeof(F));                                    \
                CHECK(ntt_##F##_forward(ctx, x, k, (ntt_order)ord) == G16_OK);                   \
                CHECK_MSG(F##_eqv(x, (ord & 1) ? refr : ref, n), "%s fwd k=%u ord=%d", #F, k,     \
                          ord);                                                                  \
                /* inverse maps the values back (input order = ord's input) */                   \
                memcpy(x, (ord & 2) ? refr : ref, n * sizeof(F));                                \
                CHECK(ntt_##F##_inverse(ctx, x, k, (ntt_order)ord) == G16_OK);                   \
                CHECK_MSG(F##_eqv(x, (ord & 1) ? ar : a, n), "%s inv k=%u ord=%d", #F, k, ord);  \
            }                                                                                    \
            /* coset forward vs direct evaluation at g w^j, g random */                          \
            F g, gj, pt;                                                                         \
            F##_random(&g, rng);                                                                 \
            memcpy(x, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_coset_forward(ctx, x, k, &g, NTT_NN) == G16_OK);                     \
            gj = g;                                                                              \
            int ok = 1;                                                                          \
            for (size_t j = 0; j < n; j++) {                                                     \
                F##_horner(&pt, a, n, &gj);                                                      \
                ok &= F##_eq(&pt, &x[j]);                                                        \
                F##_mul(&gj, &gj, &w);                                                           \
            }                                                                                    \
            CHECK_MSG(ok, "%s coset k=%u", #F, k);                                               \
            /* odd coset: e = values on the domain -> values at g w^i, g = w[k+1] */             \
            memcpy(x, ref, n * sizeof(F));                                                       \
            CHECK(ntt_##F##_odd_coset_from_evals(ctx, x, k) == G16_OK);                          \
            ntt_##F##_root(&g, k + 1);                                                           \
            gj = g;                                                                              \
            ok = 1;                                                                              \
            for (size_t j = 0; j < n; j++) {                                                     \
                F##_horner(&pt, a, n, &gj);                                                      \
                ok &= F##_eq(&pt, &x[j]);                                                        \
                F##_mul(&gj, &gj, &w);                                                           \
            }                                                                                    \
            CHECK_MSG(ok, "%s odd coset k=%u", #F, k);                                           \
            free(a), free(ref), free(refr), free(x), free(ar);                                   \
        }                                                                                        \
    }                                                                                            \
    /* Four-step sizes: spot-check outputs against Horner at the right points. */                \
    static void F##_test_spot(g16_ctx *ctx, g16_rng *rng, unsigned kmax) {                       \
        for (unsigned k = 11; k <= kmax; k++) {                                                  \
            size_t n = (size_t)1 << k;                                                           \
            F *a = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F)), *y = malloc(n * sizeof(F)); \
            for (size_t i = 0; i < n; i++)                                                       \
                F##_random(&a[i], rng);                                                          \
            F w, g, pt, p2;                                                                      \
            ntt_##F##_root(&w, k);                                                               \
            F##_random(&g, rng);                                                                 \
            memcpy(x, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_forward(ctx, x, k, NTT_NR) == G16_OK);                               \
            memcpy(y, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_coset_forward(ctx, y, k, &g, NTT_NN) == G16_OK);                     \
            int ok = 1;                                                                          \
            for (int s = 0; s < 12; s++) {                                                       \
                size_t j = s < 2 ? (s ? n - 1 : 0) : (size_t)(g16_rng_next(rng) % n);            \
                F##_pow_u64(&pt, &w, j);                                                         \
                F##_horner(&p2, a, n, &pt);                                                      \
                ok &= F##_eq(&p2, &x[ntt_bitrev32((uint32_t)j, k)]);                             \
                F##_mul(&pt, &pt, &g);                                                           \
                F##_horner(&p2, a, n, &pt);                                                      \
                ok &= F##_eq(&p2, &y[j]);                                                        \
            }                                                                                    \
            CHECK_MSG(ok, "%s spot k=%u", #F, k);                                                \
            /* odd coset from the forward values (x, bit-reversed -> natural) */                 \
            F##_permute(y, x, k);                                                                \
            CHECK(ntt_##F##_odd_coset_from_evals(ctx, y, k) == G16_OK);                          \
            ntt_##F##_root(&g, k + 1);                                                           \
            ok = 1;                                                                              \
            for (int s = 0; s < 6; s++) {                                                        \
                size_t j = s < 1 ? n - 1 : (size_t)(g16_rng_next(rng) % n);                      \
                F##_pow_u64(&pt, &g, 2 * j + 1); /* g w^j = g^(2j+1) */                          \
                F##_horner(&p2, a, n, &pt);                                                      \
                ok &= F##_eq(&p2, &y[j]);                                                        \
            }                                                                                    \
            CHECK_MSG(ok, "%s odd coset spot k=%u", #F, k);                                      \
            free(a), free(x), free(y);                                                           \
        }                                                                                        \
    }                                                                                            \
    /* Round trips, orders, linearity at larger sizes. */                                        \
    static void F##_test_roundtrip(g16_ctx *ctx, g16_rng *rng, unsigned kmax) {                  \
        for (unsigned k = 11; k <= kmax; k += (k < 14 ? 1 : 2)) {                                \
            size_t n = (size_t)1 << k;                                                           \
            F *a = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F)), *y = malloc(n * sizeof(F)); \
            for (size_t i = 0; i < n; i++)                                                       \
                F##_random(&a[i], rng);                                                          \
            memcpy(x, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_forward(ctx, x, k, NTT_NN) == G16_OK);                               \
            memcpy(y, x, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_inverse(ctx, x, k, NTT_NN) == G16_OK);                               \
            CHECK_MSG(F##_eqv(x, a, n), "%s roundtrip k=%u", #F, k);                             \
            /* NR output = bitrev(NN output); RN on bitrev input = NN */                         \
            memcpy(x, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_forward(ctx, x, k, NTT_NR) == G16_OK);                               \
            CHECK(ntt_##F##_bitrev(ctx, x, k) == G16_OK);                                        \
            CHECK_MSG(F##_eqv(x, y, n), "%s NR vs NN k=%u", #F, k);                              \
            F##_permute(x, a, k);                                                                \
            CHECK(ntt_##F##_forward(ctx, x, k, NTT_RN) == G16_OK);                               \
            CHECK_MSG(F##_eqv(x, y, n), "%s RN vs NN k=%u", #F, k);                              \
            F##_permute(x, a, k);                                                                \
            CHECK(ntt_##F##_forward(ctx, x, k, NTT_RR) == G16_OK);                               \
            CHECK(ntt_##F##_inverse(ctx, x, k, NTT_RN) == G16_OK);                               \
            CHECK_MSG(F##_eqv(x, a, n), "%s RR then inverse RN k=%u", #F, k);                    \
            /* coset round trip with a random shift, and with bit-reversed orders */             \
            F g;                                                                                 \
            F##_random(&g, rng);                                                                 \
            memcpy(x, a, n * sizeof(F));                                                         \
            CHECK(ntt_##F##_coset_forward(ctx, x, k, &g, NTT_NR) == G16_OK);                     \
            CHECK(ntt_##F##_coset_inverse(ctx, x, k, &g, NTT_RN) == G16_OK);                     \
            CHECK_MSG(F##_eqv(x, a, n), "%s coset roundtrip k=%u", #F, k);                       \
            F##_permute(x, a, k);                                                                \
            CHECK(ntt_##F##_coset_forward(ctx, x, k, &g, NTT_RR) == G16_OK);                     \
            CHECK(ntt_##F##_coset_inverse(ctx, x, k, &g, NTT_RR) == G16_OK);                     \
            CHECK(ntt_##F##_bitrev(ctx, x, k) == G16_OK);                                        \
            CHECK_MSG(F##_eqv(x, a, n), "%s coset RR roundtrip k=%u", #F, k);                    \
            /* linearity: F(a + c*b) = F(a) + c*F(b), b = the previous output y */               \
            if (k <= 16) {                                                                       \
                F c, t;                                                                          \
                F##_random(&c, rng);                                                             \
                F *z = malloc(n * sizeof(F));                                                    \
                for (size_t i = 0; i < n; i++) {                                                 \
                    F##_mul(&t, &y[i], &c);                                                      \
                    F##_add(&z[i], &a[i], &t);                                                   \
                }                                                                                \
                memcpy(x, a, n * sizeof(F));                                                     \
                CHECK(ntt_##F##_forward(ctx, x, k, NTT_NN) == G16_OK);                           \
                CHECK(ntt_##F##_forward(ctx, y, k, NTT_NN) == G16_OK);                           \
                CHECK(ntt_##F##_forward(ctx, z, k, NTT_NN) == G16_OK);                           \
                int ok = 1;                                                                      \
                for (size_t i = 0; i < n; i++) {                                                 \
                    F##_mul(&t, &y[i], &c);                                                      \
                    F##_add(&t, &t, &x[i]);                                                      \
                    ok &= F##_eq(&t, &z[i]);                                                     \
                }                                                                                \
                CHECK_MSG(ok, "%s linearity k=%u", #F, k);                                       \
                free(z);                                                                         \
            }                                                                                    \
            free(a), free(x), free(y);                                                           \
        }                                                                                        \
    }                                                                                            \
    /* One large round trip (forward NN then inverse NN). */                                  \
    static void F##_test_big(g16_ctx *ctx, g16_rng *rng, unsigned k) {                           \
        size_t n = (size_t)1 << k;                                                               \
        F *a = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F));                                \
        for (size_t i = 0; i < n; i++)                                                           \
            F##_random(&a[i], rng);                                                              \
        memcpy(x, a, n * sizeof(F));                                                             \
        CHECK(ntt_##F##_forward(ctx, x, k, NTT_NN) == G16_OK);                                   \
        CHECK(!F##_eqv(x, a, n));                                                                \
        CHECK(ntt_##F##_inverse(ctx, x, k, NTT_NN) == G16_OK);                                   \
        CHECK_MSG(F##_eqv(x, a, n), "%s big roundtrip k=%u", #F, k);                             \
        free(a), free(x);                                                                        \
    }                                                                                            \
    /* The batched (IFMA) path against the scalar one, bit for bit: every entry                \
     * point and order on random data at 2^0..2^13 and 2^16 (cb: batched, cs: scalar). */       \
    static void F##_test_batch(g16_ctx *cb, g16_ctx *cs, g16_rng *rng) {                         \
        for (unsigned k = 0; k <= 16; k += (k < 13 ? 1 : 3)) {                                   \
            size_t n = (size_t)1 << k;                                                           \
            F *a = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F)), *y = malloc(n * sizeof(F)); \
            F g;                                                                                 \
            F##_random(&g, rng);                                                                 \
            for (size_t i = 0; i < n; i++)                                                       \
                F##_random(&a[i], rng);                                                          \
            for (int op = 0; op < 17; op++) {                                                    \
                ntt_order ord = (ntt_order)(op & 3);                                             \
                g16_err eb = G16_ERR_INTERNAL, es = G16_ERR_INTERNAL;                            \
                memcpy(x, a, n * sizeof(F));                                                     \
                memcpy(y, a, n * sizeof(F));                                                     \
                for (int side = 0; side < 2; side++) {                                           \
                    g16_ctx *c = side ? cs : cb;                                                 \
                    F *v = side ? y : x;                                                         \
                    g16_err e = op < 4    ? ntt_##F##_forward(c, v, k, ord)                      \
                                : op < 8  ? ntt_##F##_inverse(c, v, k, ord)                      \
                                : op < 12 ? ntt_##F##_coset_forward(c, v, k, &g, ord)            \
                                : op < 16 ? ntt_##F##_coset_inverse(c, v, k, &g, ord)            \
                                          : ntt_##F##_odd_coset_from_evals(c, v, k);             \
                    *(side ? &es : &eb) = e;                                                     \
                }                                                                                \
                CHECK(eb == G16_OK && es == G16_OK);                                             \
                CHECK_MSG(F##_eqv(x, y, n), "%s batched vs scalar k=%u op=%d", #F, k, op);      \
            }                                                                                    \
            free(a), free(x), free(y);                                                           \
        }                                                                                        \
    }                                                                                            \
    /* The field layer's batched butterflies (the NTT's stages) against add, sub,             \
     * mul, for n = 0..50 (groups of 24, 16, 8, the padded tail), edge values 0, 1,             \
     * p - 1 mixed into random ones; the IFMA kernels directly when the CPU has them. */        \
    static void F##_test_bfly(g16_rng *rng) {                                                    \
        enum { N = 50 };                                                                         \
        F x[N + 1], y[N + 1], w[N], x0[N + 1], y0[N + 1], ex[N], ey[N], e[3];                    \
        F##_set_zero(&e[0]);                                                                     \
        F##_set_one(&e[1]);                                                                      \
        F##_neg(&e[2], &e[1]);                                                                   \
        for (size_t n = 0; n <= N; n++)                                                          \
            for (int dit = 0; dit < 2; dit++)                                                    \
                for (int path = 0; path < 2; path++) {                                           \
                    for (size_t i = 0; i <= N; i++) {                                            \
                        F##_random(&x0[i], rng);                                                 \
                        F##_random(&y0[i], rng);                                                 \
                        if (i < N)                                                               \
                            F##_random(&w[i], rng);                                              \
                        uint64_t r = g16_rng_next(rng);                                          \
                        if (r % 4 == 0)                                                          \
                            x0[i] = e[(r >> 8) % 3];                                             \
                        if ((r >> 2) % 4 == 0)                                                   \
                            y0[i] = e[(r >> 10) % 3];                                            \
                        if (i < N && (r >> 4) % 8 == 0)                                          \
                            w[i] = e[(r >> 12) % 3];                                             \
                    }                                                                            \
                    for (size_t i = 0; i < n; i++) {                                             \
                        F t;                                                                     \
                        if (dit) {                                                               \
                            F##_mul(&t, &y0[i], &w[i]);                                          \
                            F##_add(&ex[i], &x0[i], &t);                                         \
                            F##_sub(&ey[i], &x0[i], &t);                                         \
                        } else {                                                                 \
                            F##_add(&ex[i], &x0[i], &y0[i]);                                     \
                            F##_sub(&t, &x0[i], &y0[i]);                                         \
                            F##_mul(&ey[i], &t, &w[i]);                                          \
                        }                                                                        \
                    }                                                                            \
                    memcpy(x, x0, sizeof x);                                                     \
                    memcpy(y, y0, sizeof y);                                                     \
                    if (path == 1 && !g16_field_ifma_supported())                                \
                        continue;                                                                \
                    if (path == 0)                                                               \
                        (dit ? F##_bfly_dit_batch : F##_bfly_dif_batch)(x, y, w, n);             \
                    else                                                                         \
                        BFLY_IFMA(F, dit, x, y, w, n);                                           \
                    CHECK_MSG(F##_eqv(x, ex, n) && F##_eqv(y, ey, n), "%s bfly dit=%d path=%d n=%zu", \
                              #F, dit, path, n);                                                 \
                    /* the element past the end is untouched */                                  \
                    CHECK(F##_eq(&x[n], &x0[n]) && F##_eq(&y[n], &y0[n]));                       \
                }                                                                                \
    }                                                                                            \
    static void F##_test_errors(g16_ctx *ctx) {                                                  \
        F x[2];                                                                                  \
        F##_set_one(&x[0]);                                                                      \
        unsigned s = ntt_##F##_max_log();                                                        \
        CHECK(ntt_##F##_forward(ctx, x, s + 1, NTT_NN) == G16_ERR_UNSUPPORTED);                  \
        CHECK(ntt_##F##_odd_coset_from_evals(ctx, x, s) == G16_ERR_UNSUPPORTED);                 \
        CHECK(ntt_##F##_forward(ctx, NULL, 1, NTT_NN) == G16_ERR_INVALID_ARG);                   \
        CHECK(ntt_##F##_forward(NULL, x, 0, NTT_NN) == G16_ERR_INVALID_ARG);                     \
        CHECK(ntt_##F##_forward(ctx, x, 0, (ntt_order)7) == G16_ERR_INVALID_ARG);                \
        CHECK(ntt_##F##_coset_forward(ctx, x, 0, NULL, NTT_NN) == G16_ERR_INVALID_ARG);          \
        CHECK(ntt_##F##_forward(ctx, x, 0, NTT_NN) == G16_OK && F##_is_one(&x[0]));              \
    }

NTT_TEST(bn254_fr, BN254_FR)
NTT_TEST(bls381_fr, BLS381_FR)

/* Concurrent callers on one fresh context (twiddle cache built by whichever
 * comes first, under ctx->lock): every result must match a serial one. */
typedef struct {
    g16_ctx *ctx;
    bn254_fr *a;
    unsigned k;
    int ok;
} conc_arg;

static void *conc_main(void *p) {
    conc_arg *c = p;
    c->ok = 1;
    for (int r = 0; r < 3; r++) {
        c->ok &= ntt_bn254_fr_forward(c->ctx, c->a, c->k, NTT_NR) == G16_OK;
        c->ok &= ntt_bn254_fr_inverse(c->ctx, c->a, c->k, NTT_RN) == G16_OK;
    }
    c->ok &= ntt_bn254_fr_odd_coset_from_evals(c->ctx, c->a, c->k) == G16_OK;
    return NULL;
}

static void test_concurrent(g16_rng *rng) {
    g16_ctx_opts opts = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&opts), *ref = g16_ctx_create(&opts);
    enum { NT = 4 };
    conc_arg args[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        unsigned k = 10 + (unsigned)t; /* direct and four-step sizes */
        size_t n = (size_t)1 << k;
        args[t] = (conc_arg){.ctx = ctx, .a = malloc(n * sizeof(bn254_fr)), .k = k};
        for (size_t i = 0; i < n; i++)
            bn254_fr_random(&args[t].a[i], rng);
    }
    bn254_fr *expect[NT];
    for (int t = 0; t < NT; t++) {
        size_t n = (size_t)1 << args[t].k;
        expect[t] = malloc(n * sizeof(bn254_fr));
        memcpy(expect[t], args[t].a, n * sizeof(bn254_fr));
        CHECK(ntt_bn254_fr_odd_coset_from_evals(ref, expect[t], args[t].k) == G16_OK);
    }
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, conc_main, &args[t]) == 0);
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        CHECK(args[t].ok);
        CHECK_MSG(bn254_fr_eqv(args[t].a, expect[t], (size_t)1 << args[t].k), "concurrent k=%u",
                  args[t].k);
        free(args[t].a);
        free(expect[t]);
    }
    g16_ctx_destroy(ctx);
    g16_ctx_destroy(ref);
}

int main(void) {
    uint64_t seed = t_seed("test_ntt");
    slow = getenv("G16_SLOW") != NULL;
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    g16_ctx_opts opts = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&opts);
    CHECK(ctx != NULL);
    bn254_fr_test_roots();
    bls381_fr_test_roots();
    bn254_fr_test_naive(ctx, &rng);
    bls381_fr_test_naive(ctx, &rng);
    bn254_fr_test_spot(ctx, &rng, slow ? 18 : 15);
    bls381_fr_test_spot(ctx, &rng, slow ? 18 : 14);
    bn254_fr_test_roundtrip(ctx, &rng, slow ? 20 : 16);
    bls381_fr_test_roundtrip(ctx, &rng, slow ? 20 : 15);
    bn254_fr_test_big(ctx, &rng, slow ? 22 : 20);
    bls381_fr_test_big(ctx, &rng, slow ? 22 : 17);
    /* the per-column twiddle path (used above 2^NTT_FULL_TW_MAX_LOG) */
    g16_ctx *ctx2 = g16_ctx_create(&opts);
    CHECK(ctx2 && ntt_set_full_twiddles(ctx2, 0) == G16_OK);
    bn254_fr_test_spot(ctx2, &rng, 12);
    bls381_fr_test_spot(ctx2, &rng, 12);
    bn254_fr_test_roundtrip(ctx2, &rng, 13);
    bls381_fr_test_roundtrip(ctx2, &rng, 12);
    g16_ctx_destroy(ctx2);
    bn254_fr_test_bfly(&rng);
    bls381_fr_test_bfly(&rng);
    /* batched against scalar products: 3 threads (chunks that are not multiples
     * of the batch), with and without the cached twiddle matrix */
    if (!g16_field_ifma_active())
        printf("test_ntt: batched path not exercised: IFMA off or absent\n");
    g16_ctx_opts opts3 = {.threads = 3};
    g16_ctx *cb = g16_ctx_create(&opts3), *cs = g16_ctx_create(&opts);
    CHECK(cb && cs && ntt_set_batch_mul(cs, 0) == G16_OK);
    bn254_fr_test_batch(cb, cs, &rng);
    bls381_fr_test_batch(cb, cs, &rng);
    CHECK(ntt_set_full_twiddles(cb, 0) == G16_OK);
    bn254_fr_test_batch(cb, cs, &rng);
    bls381_fr_test_batch(cb, cs, &rng);
    g16_ctx_destroy(cb);
    g16_ctx_destroy(cs);
    test_concurrent(&rng);
    bn254_fr_test_errors(ctx);
    bls381_fr_test_errors(ctx);
    g16_ctx_destroy(ctx);
    return t_done("test_ntt");
}
