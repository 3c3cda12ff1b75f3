/* GPU NTT (src/gpu/ntt/ntt.cuh) against the CPU ntt layer, bit for bit, for Fr
 * of BN254 and BLS12-381 on random inputs:
 *   - every kind (forward, inverse, coset forward/inverse with a random
 *     shift, odd coset) and every order, sizes 2^0 .. 2^20;
 *   - 2^22 and 2^24 for a few kinds;
 *   - the H step (g16_gpu_h) against odd_coset_from_evals on a, b, c, then
 *     a*b - c out of Montgomery form;
 *   - the device-resident path (g16_gpu_ntt_dev, several transforms queued
 *     back to back without a host wait, coset tables rebuilt per call);
 *   - argument errors.
 * The first mismatching index and both values are printed.
 * Without a usable GPU it prints "skipped: no GPU" and exits 77.
 * G16_GPU_TEST_MAX_LOG (default 24) caps the largest size;
 * G16_GPU_TEST_NTT_FULL=1 runs every kind and order at every size;
 * G16_GPU_TEST_CURVES ("bn254,bls12-381" by default) picks the curves. */
#include <string.h>

#include "gpu/gpu.h"
#include "ntt/ntt.h"
#include "testutil.h"

static g16_gpu *gpu;
static g16_ctx *ctx;
static g16_rng rng;

static const char *kind_name[] = {"forward", "inverse", "coset_forward", "coset_inverse", "odd_coset"};
static const char *ord_name[] = {"NN", "NR", "RN", "RR"};

/* First index where the n elements of x and y (32 bytes each) differ, or n. */
static size_t first_diff(const void *x, const void *y, size_t n) {
    const unsigned char *a = x, *b = y;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + 32 * i, b + 32 * i, 32))
            return i;
    return n;
}

static void print_el(const char *what, const void *p) {
    uint64_t l[4];
    memcpy(l, p, 32);
    fprintf(stderr, "    %s = %016llx %016llx %016llx %016llx (limbs high to low)\n", what,
            (unsigned long long)l[3], (unsigned long long)l[2], (unsigned long long)l[1],
            (unsigned long long)l[0]);
}

/* Compares gpu with cpu (n elements); prints the first mismatch. */
static int compare(const char *curve, const char *what, unsigned k, const void *gpuv, const void *cpuv, size_t n) {
    size_t i = first_diff(gpuv, cpuv, n);
    CHECK_MSG(i == n, "%s %s 2^%u: first mismatch at index %zu of %zu", curve, what, k, i, n);
    if (i != n) {
        print_el("gpu", (const char *)gpuv + 32 * i);
        print_el("cpu", (const char *)cpuv + 32 * i);
        size_t bad = 0;
        for (size_t j = i; j < n; j++)
            bad += memcmp((const char *)gpuv + 32 * j, (const char *)cpuv + 32 * j, 32) != 0;
        fprintf(stderr, "    %zu of %zu elements differ\n", bad, n);
    }
    return i == n;
}

#define NTT_TESTS(F, CURVE)                                                                     \
    static g16_err F##_cpu(F *a, unsigned k, int kind, int ord, const F *g) {                   \
        switch (kind) {                                                                         \
        case G16_GPU_NTT_FORWARD: return ntt_##F##_forward(ctx, a, k, (ntt_order)ord);           \
        case G16_GPU_NTT_INVERSE: return ntt_##F##_inverse(ctx, a, k, (ntt_order)ord);           \
        case G16_GPU_NTT_COSET_FORWARD: return ntt_##F##_coset_forward(ctx, a, k, g, (ntt_order)ord); \
        case G16_GPU_NTT_COSET_INVERSE: return ntt_##F##_coset_inverse(ctx, a, k, g, (ntt_order)ord); \
        default: return ntt_##F##_odd_coset_from_evals(ctx, a, k);                              \
        }                                                                                       \
    }                                                                                           \
    /* One transform on GPU and CPU from the same input a. */                                   \
    static void F##_one(g16_gpu_domain *d, const F *a, F *x, F *y, unsigned k, int kind, int ord, \
                        const F *g) {                                                           \
        size_t n = (size_t)1 << k;                                                              \
        g16_status st = {0};                                                                    \
        memcpy(x, a, n * sizeof(F));                                                            \
        memcpy(y, a, n * sizeof(F));                                                            \
        g16_err rc = F##_cpu(x, k, kind, ord, g);                                               \
        CHECK_MSG(rc == G16_OK, "%s cpu %s %s 2^%u", #F, kind_name[kind], ord_name[ord], k);    \
        rc = g16_gpu_ntt(gpu, d, y, (g16_gpu_ntt_kind)kind, ord, g, NULL, &st);                 \
        CHECK_MSG(rc == G16_OK, "%s gpu %s %s 2^%u: %s", #F, kind_name[kind], ord_name[ord], k,  \
                  st.msg);                                                                      \
        char what[64];                                                                          \
        snprintf(what, sizeof what, "%s %s", kind_name[kind], ord_name[ord]);                   \
        compare(#F, what, k, y, x, n);                                                          \
    }                                                                                           \
    /* H: odd coset of a, b, c, then a*b - c in standard form. */                               \
    static void F##_h_test(g16_gpu_domain *d, unsigned k) {                                     \
        size_t n = (size_t)1 << k;                                                              \
        F *a = malloc(n * sizeof(F)), *b = malloc(n * sizeof(F)), *c = malloc(n * sizeof(F));    \
        F *a0 = malloc(n * sizeof(F)), *b0 = malloc(n * sizeof(F)), *c0 = malloc(n * sizeof(F)); \
        g16_scalar *h = malloc(n * sizeof *h), *hr = malloc(n * sizeof *hr);                    \
        CHECK(a && b && c && a0 && b0 && c0 && h && hr);                                        \
        if (!a || !b || !c || !a0 || !b0 || !c0 || !h || !hr)                                   \
            goto out;                                                                           \
        for (size_t i = 0; i < n; i++) {                                                        \
            F##_random(&a[i], &rng);                                                            \
            F##_random(&b[i], &rng);                                                            \
            F##_random(&c[i], &rng);                                                            \
        }                                                                                       \
        memcpy(a0, a, n * sizeof(F));                                                           \
        memcpy(b0, b, n * sizeof(F));                                                           \
        memcpy(c0, c, n * sizeof(F));                                                           \
        g16_status st = {0};                                                                    \
        memset(h, 0x5a, n * sizeof *h);                                                         \
        g16_gpu_timing tm;                                                                      \
        g16_err rc = g16_gpu_h(gpu, d, a, b, c, h, &tm, &st);                                   \
        CHECK_MSG(rc == G16_OK, "%s gpu h 2^%u: %s", #F, k, st.msg);                            \
        CHECK_MSG(!memcmp(a, a0, n * sizeof(F)) && !memcmp(b, b0, n * sizeof(F)) &&             \
                      !memcmp(c, c0, n * sizeof(F)),                                            \
                  "%s gpu h 2^%u changed its inputs", #F, k);                                   \
        CHECK(ntt_##F##_odd_coset_from_evals(ctx, a, k) == G16_OK);                             \
        CHECK(ntt_##F##_odd_coset_from_evals(ctx, b, k) == G16_OK);                             \
        CHECK(ntt_##F##_odd_coset_from_evals(ctx, c, k) == G16_OK);                             \
        for (size_t i = 0; i < n; i++) {                                                        \
            F t;                                                                                \
            F##_mul(&t, &a[i], &b[i]);                                                          \
            F##_sub(&t, &t, &c[i]);                                                             \
            F##_from_mont(hr[i].l, &t);                                                         \
        }                                                                                       \
        compare(#F, "h", k, h, hr, n);                                                          \
        if (k >= 20)                                                                            \
            printf("  %s h 2^%u: %.3f ms total, %.3f ms kernels\n", #F, k, tm.total_ms,         \
                   tm.kernel_ms);                                                               \
    out:                                                                                        \
        free(a), free(b), free(c), free(a0), free(b0), free(c0), free(h), free(hr);             \
    }                                                                                           \
    /* Device path: forward, coset forward (g), coset inverse (g), inverse,                     \
     * odd coset, queued without host waits; compared with the CPU's chain. */                 \
    static void F##_dev_test(g16_gpu_domain *d, unsigned k) {                                   \
        size_t n = (size_t)1 << k;                                                              \
        F *a = malloc(n * sizeof(F)), *x = malloc(n * sizeof(F)), *y = malloc(n * sizeof(F));    \
        void *dbuf = NULL;                                                                      \
        g16_status st = {0};                                                                    \
        CHECK(a && x && y);                                                                     \
        if (!a || !x || !y)                                                                     \
            goto out;                                                                           \
        for (size_t i = 0; i < n; i++)                                                          \
            F##_random(&a[i], &rng);                                                            \
        F g1, g2;                                                                               \
        F##_random(&g1, &rng);                                                                  \
        F##_random(&g2, &rng);                                                                  \
        memcpy(x, a, n * sizeof(F));                                                            \
        CHECK(ntt_##F##_forward(ctx, x, k, NTT_NR) == G16_OK);                                  \
        CHECK(ntt_##F##_coset_forward(ctx, x, k, &g1, NTT_RN) == G16_OK);                       \
        CHECK(ntt_##F##_coset_inverse(ctx, x, k, &g2, NTT_NN) == G16_OK);                       \
        CHECK(ntt_##F##_inverse(ctx, x, k, NTT_RR) == G16_OK);                                  \
        CHECK(ntt_##F##_odd_coset_from_evals(ctx, x, k) == G16_OK);                             \
        g16_err rc = g16_gpu_alloc(gpu, &dbuf, n * sizeof(F), &st);                             \
        CHECK_MSG(rc == G16_OK, "alloc: %s", st.msg);                                           \
        if (rc)                                                                                 \
            goto out;                                                                           \
        int ok = g16_gpu_copy_async(gpu, dbuf, a, n * sizeof(F), &st) == G16_OK &&              \
                 g16_gpu_ntt_dev(gpu, d, dbuf, G16_GPU_NTT_FORWARD, NTT_NR, NULL, &st) == G16_OK && \
                 g16_gpu_ntt_dev(gpu, d, dbuf, G16_GPU_NTT_COSET_FORWARD, NTT_RN, &g1, &st) ==   \
                     G16_OK &&                                                                  \
                 g16_gpu_ntt_dev(gpu, d, dbuf, G16_GPU_NTT_COSET_INVERSE, NTT_NN, &g2, &st) ==   \
                     G16_OK &&                                                                  \
                 g16_gpu_ntt_dev(gpu, d, dbuf, G16_GPU_NTT_INVERSE, NTT_RR, NULL, &st) == G16_OK && \
                 g16_gpu_ntt_dev(gpu, d, dbuf, G16_GPU_NTT_ODD_COSET, NTT_NN, NULL, &st) == G16_OK && \
                 g16_gpu_copy_async(gpu, y, dbuf, n * sizeof(F), &st) == G16_OK &&              \
                 g16_gpu_sync(gpu, &st) == G16_OK;                                              \
        CHECK_MSG(ok, "%s dev chain 2^%u: %s", #F, k, st.msg);                                  \
        compare(#F, "dev chain", k, y, x, n);                                                   \
    out:                                                                                        \
        g16_gpu_free(gpu, dbuf);                                                                \
        free(a), free(x), free(y);                                                              \
    }                                                                                           \
    static void F##_tests(int max_log, int full) {                                              \
        unsigned s = ntt_##F##_max_log();                                                       \
        size_t nmax = (size_t)1 << max_log;                                                     \
        F *a = malloc(nmax * sizeof(F)), *x = malloc(nmax * sizeof(F)), *y = malloc(nmax * sizeof(F)); \
        CHECK(a && x && y);                                                                     \
        if (!a || !x || !y)                                                                     \
            goto out;                                                                           \
        for (int k = 0; k <= max_log; k++) {                                                    \
            if (k > 20 && k != 22 && k != 24 && !full)                                          \
                continue;                                                                       \
            size_t n = (size_t)1 << k;                                                          \
            g16_status st = {0};                                                                \
            g16_gpu_domain *d = NULL;                                                           \
            g16_err rc = g16_gpu_domain_create(gpu, &d, CURVE, (unsigned)k, &st);               \
            CHECK_MSG(rc == G16_OK, "%s domain 2^%d: %s", #F, k, st.msg);                       \
            if (rc)                                                                             \
                continue;                                                                       \
            for (size_t i = 0; i < n; i++)                                                      \
                F##_random(&a[i], &rng);                                                        \
            F g;                                                                                \
            F##_random(&g, &rng);                                                               \
            int fails = t_failures;                                                             \
            if (k <= 20 || full) {                                                              \
                for (int kind = 0; kind < 4; kind++)                                            \
                    for (int ord = 0; ord < 4; ord++)                                           \
                        F##_one(d, a, x, y, (unsigned)k, kind, ord, &g);                        \
                if ((unsigned)k < s)                                                            \
                    F##_one(d, a, x, y, (unsigned)k, G16_GPU_NTT_ODD_COSET, 0, &g);             \
                if (k <= 12 || k >= 20) {                                                       \
                    F##_h_test(d, (unsigned)k);                                                 \
                    F##_dev_test(d, (unsigned)k);                                               \
                }                                                                               \
            } else {                                                                            \
                F##_one(d, a, x, y, (unsigned)k, G16_GPU_NTT_FORWARD, NTT_NN, &g);              \
                F##_one(d, a, x, y, (unsigned)k, G16_GPU_NTT_INVERSE, NTT_NR, &g);              \
                F##_one(d, a, x, y, (unsigned)k, G16_GPU_NTT_COSET_FORWARD, NTT_RR, &g);        \
                F##_one(d, a, x, y, (unsigned)k, G16_GPU_NTT_ODD_COSET, NTT_NN, &g);            \
                F##_h_test(d, (unsigned)k);                                                     \
            }                                                                                   \
            g16_gpu_domain_free(d);                                                             \
            printf("  %s 2^%d: %s\n", #F, k, t_failures == fails ? "ok" : "FAILED");            \
            fflush(stdout);                                                                     \
        }                                                                                       \
    out:                                                                                        \
        free(a), free(x), free(y);                                                              \
    }

NTT_TESTS(bn254_fr, G16_CURVE_BN254)
NTT_TESTS(bls381_fr, G16_CURVE_BLS12_381)

static void api_errors(void) {
    g16_status st = {0};
    g16_gpu_domain *d = NULL;
    CHECK(g16_gpu_domain_create(gpu, &d, G16_CURVE_BN254, 29, &st) == G16_ERR_UNSUPPORTED && d == NULL);
    CHECK(g16_gpu_domain_create(gpu, &d, (g16_curve)77, 4, &st) == G16_ERR_INVALID_ARG && d == NULL);
    CHECK(g16_gpu_domain_create(gpu, NULL, G16_CURVE_BN254, 4, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_domain_create(NULL, &d, G16_CURVE_BN254, 4, &st) == G16_ERR_INVALID_ARG);
    g16_err rc = g16_gpu_domain_create(gpu, &d, G16_CURVE_BN254, 4, &st);
    CHECK_MSG(rc == G16_OK, "domain: %s", st.msg);
    if (rc)
        return;
    bn254_fr x[16], g;
    for (int i = 0; i < 16; i++)
        bn254_fr_random(&x[i], &rng);
    g = x[3];
    CHECK(g16_gpu_ntt(gpu, d, x, G16_GPU_NTT_FORWARD, 4, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, d, x, G16_GPU_NTT_FORWARD, -1, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, d, x, (g16_gpu_ntt_kind)9, 0, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, d, x, G16_GPU_NTT_COSET_FORWARD, 0, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, d, x, G16_GPU_NTT_ODD_COSET, 1, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, d, NULL, G16_GPU_NTT_FORWARD, 0, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt(gpu, NULL, x, G16_GPU_NTT_FORWARD, 0, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_ntt_dev(gpu, d, NULL, G16_GPU_NTT_FORWARD, 0, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_h(gpu, d, x, x, NULL, (g16_scalar *)x, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_h_dev(gpu, d, NULL, NULL, NULL, NULL, &st) == G16_ERR_INVALID_ARG);
    /* a valid call still works after the errors: coset round trip */
    bn254_fr y[16];
    memcpy(y, x, sizeof x);
    CHECK(g16_gpu_ntt(gpu, d, y, G16_GPU_NTT_COSET_FORWARD, 1, &g, NULL, &st) == G16_OK);
    CHECK(memcmp(y, x, sizeof x) != 0);
    CHECK(g16_gpu_ntt(gpu, d, y, G16_GPU_NTT_COSET_INVERSE, 2, &g, NULL, &st) == G16_OK);
    CHECK_MSG(memcmp(y, x, sizeof x) == 0, "coset round trip 2^4: %s", st.msg);
    g16_gpu_domain_free(d);
    /* The odd coset needs log_n < s: a BN254 domain of 2^28 (tables only, a
     * few MiB) has none; the data pointer is not touched by the check. */
    d = NULL;
    rc = g16_gpu_domain_create(gpu, &d, G16_CURVE_BN254, 28, &st);
    CHECK_MSG(rc == G16_OK, "domain 2^28: %s", st.msg);
    if (rc == G16_OK) {
        CHECK(g16_gpu_ntt_dev(gpu, d, x, G16_GPU_NTT_ODD_COSET, 0, NULL, &st) == G16_ERR_UNSUPPORTED);
        CHECK(g16_gpu_h_dev(gpu, d, x, x, x, (g16_scalar *)x, &st) == G16_ERR_UNSUPPORTED);
        g16_gpu_domain_free(d);
    }
}

int main(void) {
    uint64_t seed = t_seed("test_gpu_ntt");
    g16_rng_seed(&rng, seed);
    if (g16_gpu_count() == 0) {
        printf("test_gpu_ntt: skipped: no GPU\n");
        return 77;
    }
    int max_log = 24;
    const char *env = getenv("G16_GPU_TEST_MAX_LOG");
    if (env)
        max_log = atoi(env);
    if (max_log < 0)
        max_log = 0;
    if (max_log > 24)
        max_log = 24;
    /* G16_GPU_TEST_NTT_FULL=1: every kind and order at every size up to
     * max_log (the default samples 2^21..2^24). */
    const char *fe = getenv("G16_GPU_TEST_NTT_FULL");
    int full = fe && atoi(fe) == 1;
    g16_status st = {0};
    g16_err rc = g16_gpu_create(&gpu, 0, 1024, 0, t_env_config(), &st);
    if (rc == G16_ERR_NO_DEVICE) {
        printf("test_gpu_ntt: skipped: no GPU (%s)\n", st.msg);
        return 77;
    }
    CHECK_MSG(rc == G16_OK, "create: %s", st.msg);
    if (rc != G16_OK)
        return t_done("test_gpu_ntt");
    printf("device: %s\n", g16_gpu_name(gpu));
    ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    if (ctx) {
        api_errors();
        const char *curves = getenv("G16_GPU_TEST_CURVES");
        if (!curves || strstr(curves, "bn254"))
            bn254_fr_tests(max_log, full);
        if (!curves || strstr(curves, "bls12-381"))
            bls381_fr_tests(max_log, full);
        g16_ctx_destroy(ctx);
    }
    g16_gpu_destroy(gpu);
    return t_done("test_gpu_ntt");
}
