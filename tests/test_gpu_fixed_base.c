/* GPU fixed-base multiplication (g16_gpu_fixed_base) against the CPU, and
 * GPU-made test-setup keys against CPU-made ones, byte for byte.
 *   1. out[i] = k_i B for a random base B (not the generator) of each group
 *      (BN254/BLS12-381, G1/G2), compared exactly (affine limbs) with:
 *      - jac_mul_vartime for edge scalars (0, 1, 2, r-1, r, r+1, 2^256-1,
 *        single bytes 0xff at each position, 2^255) and random 256-bit and
 *        random below-r scalars (n = FB_NAIVE);
 *      - an arithmetic progression k_i = a + i d (mod r) for n up to 2^16
 *        (G16_GPU_FB_MAX_LOG): P_0 = [a]B, P_{i+1} = P_i + [d]B.
 *   2. groth16_setup_insecure_ex into memory with backend CPU and CUDA for
 *      synthetic circuits of 2^10 and 2^12 (both curves, plus one
 *      snarkjs_init key): the two keys must be equal byte for byte, and the
 *      GPU's must load with full validation (subgroup checks included).
 *   3. timings: g16_gpu_fixed_base for 2^20 points per group, setup times.
 * Every mismatch prints the first differing index/offset and the values.
 * Without a usable GPU it prints "skipped: no GPU" and exits 77. */
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"

#include "g16.h"

static g16_gpu *gpu;
static g16_rng rng;
static int max_log = 16;
#define FB_NAIVE 300

static void print_scalar(const char *what, const g16_scalar *k) {
    fprintf(stderr, "    %s = 0x%016llx%016llx%016llx%016llx\n", what, (unsigned long long)k->l[3],
            (unsigned long long)k->l[2], (unsigned long long)k->l[1], (unsigned long long)k->l[0]);
}
static void print_bytes(const char *what, const void *p, size_t n) {
    const uint8_t *b = p;
    fprintf(stderr, "    %s:", what);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%02x", i % 32 == 0 ? " " : "", b[i]);
    fputc('\n', stderr);
}

/* Edge scalars first, then random ones. */
static void edge_scalars(g16_scalar *k, size_t n, const limb_t r[4]) {
    size_t i = 0;
    memset(k, 0, n * sizeof *k);
    i++;                    /* 0 */
    k[i++].l[0] = 1;        /* 1 */
    k[i++].l[0] = 2;        /* 2 */
    memcpy(k[i].l, r, 32);  /* r - 1 */
    k[i++].l[0] -= 1;
    memcpy(k[i++].l, r, 32); /* r: infinity */
    memcpy(k[i].l, r, 32);  /* r + 1 */
    k[i++].l[0] += 1;
    for (int j = 0; j < 4; j++) /* 2^256 - 1 */
        k[i].l[j] = ~0ull;
    i++;
    k[i++].l[3] = 1ull << 63; /* 2^255 */
    for (int b = 0; b < 32 && i < n; b++, i++) /* 0xff in byte b only */
        k[i].l[b / 8] = 0xffull << (8 * (b % 8));
    for (; i < n; i++) {
        for (int j = 0; j < 4; j++)
            k[i].l[j] = g16_rng_next(&rng);
        if (i % 2) /* below r */
            while (k[i].l[3] >= r[3])
                k[i].l[3] >>= 1;
    }
}

#define FB_TEST(G, FR, CURVE, GROUP, RP)                                                                  \
    static void fb_test_##G(void) {                                                                      \
        static const limb_t r[4] = RP;                                                                    \
        G##_affine gen, base;                                                                             \
        G##_jac gj, bj;                                                                                   \
        FR s;                                                                                             \
        g16_scalar ks;                                                                                    \
        G##_generator(&gen);                                                                              \
        G##_jac_from_affine(&gj, &gen);                                                                   \
        FR##_random(&s, &rng);                                                                            \
        FR##_from_mont(ks.l, &s);                                                                         \
        G##_jac_mul_vartime(&bj, &gj, &ks);                                                               \
        G##_jac_to_affine(&base, &bj);                                                                    \
        size_t nmax = (size_t)1 << max_log;                                                               \
        if (nmax < FB_NAIVE)                                                                              \
            nmax = FB_NAIVE;                                                                              \
        g16_scalar *k = malloc(nmax * sizeof *k);                                                         \
        G##_affine *ref = malloc(nmax * sizeof *ref), *out = malloc(nmax * sizeof *out);                  \
        G##_jac *jr = malloc(nmax * sizeof *jr);                                                          \
        void *scratch = malloc(nmax * sizeof(jr->z));                                                     \
        CHECK(k && ref && out && jr && scratch);                                                          \
        if (!k || !ref || !out || !jr || !scratch)                                                        \
            goto out;                                                                                     \
        /* 1. naive reference */                                                                          \
        edge_scalars(k, FB_NAIVE, r);                                                                     \
        for (size_t i = 0; i < FB_NAIVE; i++) {                                                           \
            G##_jac_mul_vartime(&jr[i], &bj, &k[i]);                                                      \
            G##_jac_to_affine(&ref[i], &jr[i]);                                                           \
        }                                                                                                 \
        for (size_t n = 1; n <= FB_NAIVE; n = n < 8 ? n + 1 : n * 4 + 3) {                                \
            g16_status st = {0};                                                                          \
            memset(out, 0x5a, FB_NAIVE * sizeof *out);                                                    \
            g16_err rc = g16_gpu_fixed_base(gpu, CURVE, GROUP, &base, k, n, out, &st);                    \
            CHECK_MSG(rc == G16_OK, "%s n=%zu: %s", #G, n, st.msg);                                       \
            size_t bad = 0, first = n;                                                                    \
            for (size_t i = 0; i < n; i++)                                                                \
                if (memcmp(&out[i], &ref[i], sizeof out[i]) != 0 && bad++ == 0)                           \
                    first = i;                                                                            \
            CHECK_MSG(bad == 0, "%s naive n=%zu: %zu points differ, first at %zu", #G, n, bad, first);    \
            if (bad) {                                                                                    \
                print_scalar("k", &k[first]);                                                             \
                print_bytes("want", &ref[first], sizeof ref[first]);                                      \
                print_bytes("got ", &out[first], sizeof out[first]);                                      \
            }                                                                                             \
        }                                                                                                 \
        /* 2. arithmetic progressions up to 2^max_log */                                                  \
        for (int lg = 10; lg <= max_log; lg += 3) {                                                       \
            size_t n = ((size_t)1 << lg) + (size_t)lg; /* not a multiple of anything */                  \
            if (n > nmax)                                                                                 \
                n = nmax;                                                                                 \
            FR a, d, x;                                                                                   \
            g16_scalar ka, kd;                                                                            \
            FR##_random(&a, &rng);                                                                        \
            FR##_random(&d, &rng);                                                                        \
            FR##_from_mont(ka.l, &a);                                                                     \
            FR##_from_mont(kd.l, &d);                                                                     \
            G##_jac dj;                                                                                   \
            G##_jac_mul_vartime(&jr[0], &bj, &ka);                                                        \
            G##_jac_mul_vartime(&dj, &bj, &kd);                                                           \
            x = a;                                                                                        \
            for (size_t i = 0; i < n; i++) {                                                              \
                FR##_from_mont(k[i].l, &x);                                                               \
                FR##_add(&x, &x, &d);                                                                     \
                if (i + 1 < n)                                                                            \
                    G##_jac_add(&jr[i + 1], &jr[i], &dj);                                                 \
            }                                                                                             \
            G##_jac_batch_to_affine(ref, jr, n, scratch);                                                 \
            g16_status st = {0};                                                                          \
            memset(out, 0x5a, n * sizeof *out);                                                           \
            double t0 = g16_now_ms();                                                                     \
            g16_err rc = g16_gpu_fixed_base(gpu, CURVE, GROUP, &base, k, n, out, &st);                    \
            double ms = g16_now_ms() - t0;                                                                \
            CHECK_MSG(rc == G16_OK, "%s n=%zu: %s", #G, n, st.msg);                                       \
            size_t bad = 0, first = n;                                                                    \
            for (size_t i = 0; i < n; i++)                                                                \
                if (memcmp(&out[i], &ref[i], sizeof out[i]) != 0 && bad++ == 0)                           \
                    first = i;                                                                            \
            CHECK_MSG(bad == 0, "%s progression n=%zu: %zu points differ, first at %zu", #G, n, bad,       \
                      first);                                                                             \
            if (bad) {                                                                                    \
                print_scalar("k", &k[first]);                                                             \
                print_bytes("want", &ref[first], sizeof ref[first]);                                      \
                print_bytes("got ", &out[first], sizeof out[first]);                                      \
            }                                                                                             \
            printf("  fixed base %-9s n = %7zu: %s (%.1f ms)\n", #G, n, bad ? "MISMATCH" : "ok", ms);      \
        }                                                                                                 \
    out:                                                                                                  \
        free(k), free(ref), free(out), free(jr), free(scratch);                                           \
    }

FB_TEST(bn254_g1, bn254_fr, G16_CURVE_BN254, G16_GPU_G1, BN254_FR_P)
FB_TEST(bn254_g2, bn254_fr, G16_CURVE_BN254, G16_GPU_G2, BN254_FR_P)
FB_TEST(bls381_g1, bls381_fr, G16_CURVE_BLS12_381, G16_GPU_G1, BLS381_FR_P)
FB_TEST(bls381_g2, bls381_fr, G16_CURVE_BLS12_381, G16_GPU_G2, BLS381_FR_P)

/* Throughput: 2^lg random scalars per group (no reference). */
static void fb_bench(int lg) {
    size_t n = (size_t)1 << lg;
    g16_scalar *k = malloc(n * sizeof *k);
    void *out = malloc(n * sizeof(bls381_g2_affine));
    if (!k || !out) {
        free(k), free(out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            k[i].l[j] = g16_rng_next(&rng) >> (j == 3 ? 3 : 0);
    static const struct {
        g16_curve c;
        g16_gpu_group g;
        const char *name;
    } gs[4] = {{G16_CURVE_BN254, G16_GPU_G1, "bn254 g1"},
               {G16_CURVE_BN254, G16_GPU_G2, "bn254 g2"},
               {G16_CURVE_BLS12_381, G16_GPU_G1, "bls381 g1"},
               {G16_CURVE_BLS12_381, G16_GPU_G2, "bls381 g2"}};
    for (int i = 0; i < 4; i++) {
        uint8_t base[192];
        if (gs[i].c == G16_CURVE_BN254 && gs[i].g == G16_GPU_G1)
            bn254_g1_generator((bn254_g1_affine *)base);
        else if (gs[i].c == G16_CURVE_BN254)
            bn254_g2_generator((bn254_g2_affine *)base);
        else if (gs[i].g == G16_GPU_G1)
            bls381_g1_generator((bls381_g1_affine *)base);
        else
            bls381_g2_generator((bls381_g2_affine *)base);
        g16_status st = {0};
        double t0 = g16_now_ms();
        g16_err rc = g16_gpu_fixed_base(gpu, gs[i].c, gs[i].g, base, k, n, out, &st);
        CHECK_MSG(rc == G16_OK, "bench %s: %s", gs[i].name, st.msg);
        printf("  bench fixed base %-9s n = 2^%d: %.1f ms (host memory in and out)\n", gs[i].name, lg,
               g16_now_ms() - t0);
    }
    free(k), free(out);
}

/* Section id of byte offset off in a zkey (for diagnostics). */
static int section_of(const uint8_t *b, size_t len, size_t off, size_t *sec_start) {
    size_t pos = 12;
    uint32_t ns;
    memcpy(&ns, b + 8, 4);
    for (uint32_t i = 0; i < ns && pos + 12 <= len; i++) {
        uint32_t id;
        uint64_t sz;
        memcpy(&id, b + pos, 4);
        memcpy(&sz, b + pos + 4, 8);
        if (off < pos + 12 + sz) {
            *sec_start = pos + 12;
            return off < pos + 12 ? -(int)id : (int)id;
        }
        pos += 12 + sz;
    }
    *sec_start = 0;
    return 0;
}

static void key_test(g16_ctx *ctx, const char *dir, g16_curve curve, int log_n, synth_profile prof, int snarkjs) {
    char r1cs[512], wtns[512];
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    snprintf(wtns, sizeof wtns, "%s/c.wtns", dir);
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = prof, .partitions = 1, .seed = 7 + (uint64_t)log_n,
                     .r1cs_path = r1cs, .wtns_path = wtns};
    g16_status st = {0};
    g16_r1cs cs;
    if (synth_generate(&so, NULL, &st) != G16_OK || g16_r1cs_read(&cs, r1cs, &st) != G16_OK) {
        CHECK_MSG(0, "synth/read: %s", st.msg);
        return;
    }
    void *mem[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    groth16_setup_info info[2];
    const char *cname = curve == G16_CURVE_BN254 ? "bn254" : "bls381";
    for (int b = 0; b < 2; b++) {
        groth16_setup_opts o = {.seed = 1234 + (uint64_t)log_n,
                                .backend = b ? GROTH16_SETUP_CUDA : GROTH16_SETUP_CPU,
                                .snarkjs_init = snarkjs};
        g16_err rc = groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &mem[b], &len[b], &info[b], &st);
        CHECK_MSG(rc == G16_OK, "%s 2^%d setup (%s): %s", cname, log_n, b ? "cuda" : "cpu", st.msg);
    }
    CHECK_MSG(info[1].used_gpu == 1 && info[0].used_gpu == 0, "backends: cpu used_gpu %d, cuda used_gpu %d",
              info[0].used_gpu, info[1].used_gpu);
    if (mem[0] && mem[1]) {
        CHECK_MSG(len[0] == len[1], "%s 2^%d: key sizes %zu (cpu) vs %zu (cuda)", cname, log_n, len[0], len[1]);
        size_t m = len[0] < len[1] ? len[0] : len[1], first = m;
        const uint8_t *a = mem[0], *g = mem[1];
        for (size_t i = 0; i < m; i++)
            if (a[i] != g[i]) {
                first = i;
                break;
            }
        CHECK_MSG(first == m, "%s 2^%d%s: GPU key differs from the CPU key at byte %zu", cname, log_n,
                  snarkjs ? " (snarkjs init)" : "", first);
        if (first < m) {
            size_t s0;
            int id = section_of(a, m, first, &s0);
            fprintf(stderr, "    in section %d, byte %zu of its data\n", id, first - s0);
            size_t from = first & ~(size_t)31;
            print_bytes("cpu", a + from, from + 64 <= m ? 64 : m - from);
            print_bytes("gpu", g + from, from + 64 <= m ? 64 : m - from);
        }
        g16_zkey zk;
        g16_err rc = g16_zkey_open_mem(&zk, "gpu key", mem[1], len[1], G16_ZKEY_CHECK_SUBGROUP, ctx->pool, &st);
        CHECK_MSG(rc == G16_OK, "%s 2^%d: the GPU key does not load: %s", cname, log_n, st.msg);
        if (rc == G16_OK)
            g16_zkey_close(&zk);
        printf("  key %-6s 2^%-2d %-8s%s: %s (cpu %.0f ms, cuda %.0f ms; points %.0f / %.0f ms)\n", cname, log_n,
               prof == SYNTH_DENSE ? "dense" : "filecoin", snarkjs ? " snarkjs" : "", first == m ? "equal" : "DIFFER",
               info[0].total_ms, info[1].total_ms, info[0].points_ms, info[1].points_ms);
    }
    groth16_setup_mem_free(mem[0], len[0]);
    groth16_setup_mem_free(mem[1], len[1]);
    g16_r1cs_free(&cs);
    unlink(r1cs);
    unlink(wtns);
}

int main(void) {
    uint64_t seed = t_seed("test_gpu_fixed_base");
    g16_rng_seed(&rng, seed);
    if (g16_gpu_count() == 0) {
        printf("test_gpu_fixed_base: skipped: no GPU\n");
        return 77;
    }
    const char *env = getenv("G16_GPU_FB_MAX_LOG");
    if (env)
        max_log = atoi(env);
    if (max_log < 10)
        max_log = 10;
    g16_status st = {0};
    g16_err rc = g16_gpu_create(&gpu, 0, 1, 1, t_env_config(), &st);
    if (rc == G16_ERR_NO_DEVICE) {
        printf("test_gpu_fixed_base: skipped: no GPU (%s)\n", st.msg);
        return 77;
    }
    CHECK_MSG(rc == G16_OK, "create: %s", st.msg);
    if (rc != G16_OK)
        return t_done("test_gpu_fixed_base");
    printf("device: %s\n", g16_gpu_name(gpu));
    /* errors */
    g16_scalar k1 = {{1, 0, 0, 0}};
    bn254_g1_affine p1, o1;
    bn254_g1_generator(&p1);
    CHECK(g16_gpu_fixed_base(NULL, G16_CURVE_BN254, G16_GPU_G1, &p1, &k1, 1, &o1, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_fixed_base(gpu, G16_CURVE_BN254, (g16_gpu_group)3, &p1, &k1, 1, &o1, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_gpu_fixed_base(gpu, G16_CURVE_BN254, G16_GPU_G1, &p1, &k1, 0, &o1, &st) == G16_OK);

    fb_test_bn254_g1();
    fb_test_bls381_g1();
    fb_test_bn254_g2();
    fb_test_bls381_g2();
    fb_bench(20);

    g16_ctx *ctx = g16_ctx_create(NULL);
    char dir[] = "/tmp/g16_fbkey_XXXXXX";
    CHECK(ctx && mkdtemp(dir));
    if (ctx) {
        key_test(ctx, dir, G16_CURVE_BN254, 10, SYNTH_FILECOIN, 0);
        key_test(ctx, dir, G16_CURVE_BLS12_381, 10, SYNTH_FILECOIN, 0);
        key_test(ctx, dir, G16_CURVE_BN254, 12, SYNTH_DENSE, 0);
        key_test(ctx, dir, G16_CURVE_BLS12_381, 12, SYNTH_DENSE, 0);
        key_test(ctx, dir, G16_CURVE_BN254, 10, SYNTH_DENSE, 1);
        rmdir(dir);
    }
    g16_ctx_destroy(ctx);
    g16_gpu_destroy(gpu);
    return t_done("test_gpu_fixed_base");
}
