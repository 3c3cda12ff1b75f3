/* GPU backend against the CPU: field add/sub/mul/sqr on random elements (Fp,
 * Fr, Fp2 of both curves), then MSMs in G1 and G2 of both curves compared
 * exactly (affine, bit for bit) with CPU references built on the curve layer:
 *   - naive sum of [k_i] P_i (jac_mul_vartime) for small n;
 *   - for large n, bases in arithmetic progression P_i = A + i*D with
 *     A = [a]G, D = [d]G, where sum k_i P_i = [sum k_i] A + [sum i k_i] D, the
 *     two scalars computed in Fr. This allows any scalars at 2^16 and 2^20.
 * Without a usable GPU it prints "skipped: no GPU" and exits 77 (ctest:
 * skipped). G16_GPU_TEST_MAX_LOG (default 20) caps the largest size. */
#include <string.h>

#include "curve/curve.h"
#include "gpu/gpu.h"
#include "testutil.h"

static g16_gpu *gpu;
static g16_rng rng;
static const char *variant = "default"; /* the context's MSM variant (environment at create) */

/* ---- field ---------------------------------------------------------------- */

#define FIELD_N (1 << 20)
#define EDGE_MAX 48

/* Carry-heavy values below p (raw limbs, taken as Montgomery forms): 0, 1,
 * p - 1, p - 2, (p - 1)/2, (p + 1)/2, then for every 32-bit word boundary k
 * (the GPU's limbs) 2^32k - 1, 2^32k and p - 2^32k, and the largest value
 * whose top limb is p's minus one (all lower limbs ones). Returns the count. */
static int edge_values(limb_t (*out)[6], const limb_t *p, int n) {
    int c = 0;
    limb_t one[6] = {1}, two[6] = {2}, t[6];
    memset(out, 0, (size_t)EDGE_MAX * sizeof *out);
    c++;                                      /* 0 */
    out[c++][0] = 1;                          /* 1 */
    limbs_sub(out[c++], p, one, (size_t)n);   /* p - 1 */
    limbs_sub(out[c++], p, two, (size_t)n);   /* p - 2 */
    limbs_sub(t, p, one, (size_t)n);          /* (p - 1) / 2, p odd */
    for (int i = 0; i < n; i++)
        out[c][i] = (t[i] >> 1) | (i + 1 < n ? t[i + 1] << 63 : 0);
    c++;
    limbs_add(out[c], out[c - 1], one, (size_t)n); /* (p + 1) / 2 */
    c++;
    for (int k = 1; k < 2 * n; k++) {
        limb_t pw[6] = {0};
        pw[k / 2] = (limb_t)1 << (32 * (k % 2));
        limbs_sub(out[c++], pw, one, (size_t)n); /* 2^32k - 1 */
        memcpy(out[c++], pw, sizeof pw);         /* 2^32k */
        limbs_sub(out[c++], p, pw, (size_t)n);   /* p - 2^32k */
    }
    for (int i = 0; i < n; i++)
        out[c][i] = i + 1 < n ? ~(limb_t)0 : p[i] - 1;
    c++;
    for (int i = 0; i < c; i++) /* every one a field element */
        CHECK(limbs_lt_vartime(out[i], p, (size_t)n));
    return c;
}

/* The first ne^2 pairs of inputs take every pair of edge values. */
#define EDGE_BASE(E, N)                                                                         \
    static int E##_edges(E *a, E *b, size_t n) {                                                \
        limb_t ev[EDGE_MAX][6];                                                                 \
        int ne = edge_values(ev, E##_p_, N);                                                    \
        for (size_t i = 0; i < (size_t)ne * ne && i < n; i++) {                                 \
            memcpy(a[i].l, ev[i / ne], sizeof a[i].l);                                          \
            memcpy(b[i].l, ev[i % ne], sizeof b[i].l);                                          \
        }                                                                                       \
        return ne;                                                                              \
    }
EDGE_BASE(bn254_fp, 4)
EDGE_BASE(bn254_fr, 4)
EDGE_BASE(bls381_fp, 6)
EDGE_BASE(bls381_fr, 4)
/* Fp2: c0 over the edge pairs, c1 over them in another order. */
#define EDGE_FP2(E2, E, N)                                                                      \
    static int E2##_edges(E2 *a, E2 *b, size_t n) {                                             \
        limb_t ev[EDGE_MAX][6];                                                                 \
        int ne = edge_values(ev, E##_p_, N);                                                    \
        for (size_t i = 0; i < (size_t)ne * ne && i < n; i++) {                                 \
            size_t j = (i * 7 + 3) % ((size_t)ne * ne);                                         \
            memcpy(a[i].c0.l, ev[i / ne], sizeof a[i].c0.l);                                    \
            memcpy(b[i].c0.l, ev[i % ne], sizeof b[i].c0.l);                                    \
            memcpy(a[i].c1.l, ev[j / ne], sizeof a[i].c1.l);                                    \
            memcpy(b[i].c1.l, ev[j % ne], sizeof b[i].c1.l);                                    \
        }                                                                                       \
        return ne;                                                                              \
    }
EDGE_FP2(bn254_fp2, bn254_fp, 4)
EDGE_FP2(bls381_fp2, bls381_fp, 6)

#define FIELD_TEST(E, RAND, GF)                                                                 \
    static void field_test_##E(void) {                                                          \
        size_t n = FIELD_N;                                                                     \
        E *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);    \
        E *g = malloc(n * sizeof *g);                                                           \
        CHECK(a && b && r && g);                                                                \
        if (!a || !b || !r || !g)                                                               \
            return;                                                                             \
        for (size_t i = 0; i < n; i++) {                                                        \
            RAND(&a[i], &rng);                                                                  \
            RAND(&b[i], &rng);                                                                  \
        }                                                                                       \
        int ne = E##_edges(a, b, n);                                                            \
        for (int op = G16_GPU_ADD; op <= G16_GPU_SQR; op++) {                                   \
            g16_status st = {0};                                                                \
            memset(g, 0x5a, n * sizeof *g); /* poison */                                        \
            g16_err rc = g16_gpu_field_op(gpu, GF, (g16_gpu_op)op, g, a, b, n, &st);             \
            CHECK_MSG(rc == G16_OK, "%s op %d: %s", #E, op, st.msg);                            \
            size_t bad = 0;                                                                     \
            for (size_t i = 0; i < n; i++) {                                                    \
                switch (op) {                                                                   \
                case G16_GPU_ADD: E##_add(&r[i], &a[i], &b[i]); break;                          \
                case G16_GPU_SUB: E##_sub(&r[i], &a[i], &b[i]); break;                          \
                case G16_GPU_MUL: E##_mul(&r[i], &a[i], &b[i]); break;                          \
                default: E##_sqr(&r[i], &a[i]); break;                                          \
                }                                                                               \
                bad += memcmp(&r[i], &g[i], sizeof r[i]) != 0;                                  \
            }                                                                                   \
            CHECK_MSG(bad == 0, "%s op %d: %zu of %zu differ", #E, op, bad, n);                 \
        }                                                                                       \
        printf("  field %-11s add/sub/mul/sqr x %d (%d x %d edge pairs first): ok\n", #E, FIELD_N, ne,  \
               ne);                                                                             \
        free(a), free(b), free(r), free(g);                                                     \
    }

static void bn254_fp2_rand(bn254_fp2 *r, g16_rng *g) { bn254_fp2_random(r, g); }
static void bls381_fp2_rand(bls381_fp2 *r, g16_rng *g) { bls381_fp2_random(r, g); }

FIELD_TEST(bn254_fp, bn254_fp_random, G16_GPU_BN254_FP)
FIELD_TEST(bn254_fr, bn254_fr_random, G16_GPU_BN254_FR)
FIELD_TEST(bls381_fp, bls381_fp_random, G16_GPU_BLS381_FP)
FIELD_TEST(bls381_fr, bls381_fr_random, G16_GPU_BLS381_FR)
FIELD_TEST(bn254_fp2, bn254_fp2_rand, G16_GPU_BN254_FP2)
FIELD_TEST(bls381_fp2, bls381_fp2_rand, G16_GPU_BLS381_FP2)

/* ---- MSM -------------------------------------------------------------------- */

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_EDGE, SC_01_HEAVY, SC_EQUAL, SC_FILECOIN };
static const char *sc_name[] = {"random", "all-zero", "all-one", "edge", "0/1-heavy", "all-equal", "filecoin"};
/* MSMs go through g16_gpu_msm_streamed (bases from host memory) when set. */
static int use_streamed;
static int use_table; /* g16_gpu_bases_precompute after the upload, and a two-chunk g16_gpu_msm_at */
static int use_drop;  /* g16_gpu_bases_drop_infinity after the upload, scalars gathered on the device */

/* G: group prefix, E: coordinate field, FR: scalar field, CURVE/GROUP: enums. */
#define MSM_TEST(G, E, FR, CURVE, GROUP)                                                        \
    /* Uniform scalar below r, as a canonical integer (and its Fr form). */                     \
    static void G##_rand_scalar(g16_scalar *k, FR *kf) {                                        \
        FR##_random(kf, &rng);                                                                  \
        FR##_from_mont(k->l, kf);                                                               \
    }                                                                                           \
    static void G##_set_scalar_u64(g16_scalar *k, FR *kf, uint64_t v) {                         \
        memset(k, 0, sizeof *k);                                                                \
        k->l[0] = v;                                                                            \
        FR##_from_u64(kf, v);                                                                   \
    }                                                                                           \
    static void G##_scalars(g16_scalar *k, FR *kf, size_t n, int kind) {                        \
        g16_scalar eq;                                                                          \
        FR eqf;                                                                                 \
        G##_rand_scalar(&eq, &eqf);                                                             \
        for (size_t i = 0; i < n; i++) {                                                        \
            switch (kind) {                                                                     \
            case SC_RANDOM: G##_rand_scalar(&k[i], &kf[i]); break;                              \
            case SC_ZERO: G##_set_scalar_u64(&k[i], &kf[i], 0); break;                          \
            case SC_ONE: G##_set_scalar_u64(&k[i], &kf[i], 1); break;                           \
            case SC_EQUAL: k[i] = eq, kf[i] = eqf; break;                                       \
            case SC_01_HEAVY: {                                                                 \
                uint64_t x = g16_rng_next(&rng) % 10;                                           \
                if (x < 9)                                                                      \
                    G##_set_scalar_u64(&k[i], &kf[i], x & 1);                                   \
                else                                                                            \
                    G##_rand_scalar(&k[i], &kf[i]);                                             \
                break;                                                                          \
            }                                                                                   \
            case SC_FILECOIN: { /* ~99% in {0, 1}; the rest 2, small or uniform */              \
                uint64_t x = g16_rng_next(&rng) % 300;                                          \
                if (x < 297)                                                                    \
                    G##_set_scalar_u64(&k[i], &kf[i], x & 1);                                   \
                else if (x == 297)                                                              \
                    G##_set_scalar_u64(&k[i], &kf[i], 2 + (g16_rng_next(&rng) % 1000));         \
                else                                                                            \
                    G##_rand_scalar(&k[i], &kf[i]);                                             \
                break;                                                                          \
            }                                                                                   \
            default: { /* 0, 1, 2, r-1, r-2, 2^j, 2^j - 1, random */                            \
                uint64_t x = g16_rng_next(&rng) % 8;                                            \
                FR one;                                                                         \
                FR##_set_one(&one);                                                             \
                if (x <= 2) {                                                                   \
                    G##_set_scalar_u64(&k[i], &kf[i], x);                                       \
                } else if (x <= 4) {                                                            \
                    FR##_from_u64(&kf[i], x - 2);                                               \
                    FR##_neg(&kf[i], &kf[i]);                                                   \
                    FR##_from_mont(k[i].l, &kf[i]);                                             \
                } else if (x <= 6) {                                                            \
                    unsigned j = (unsigned)(g16_rng_next(&rng) % 253);                          \
                    memset(&k[i], 0, sizeof k[i]);                                              \
                    k[i].l[j / 64] = (uint64_t)1 << (j % 64);                                   \
                    if (x == 6) { /* 2^j - 1 */                                                 \
                        for (unsigned t = 0; t < 4; t++)                                        \
                            k[i].l[t] = t < j / 64 ? ~(uint64_t)0                               \
                                                   : t == j / 64 ? k[i].l[t] - 1 : 0;           \
                    }                                                                           \
                    FR##_from_canon_vartime(&kf[i], k[i].l);                                    \
                } else {                                                                        \
                    G##_rand_scalar(&k[i], &kf[i]);                                             \
                }                                                                               \
            }                                                                                   \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* P_i = A + i*D in affine (i < n). */                                                      \
    static void G##_progression(G##_affine *out, size_t n, const G##_jac *A, const G##_jac *D) { \
        G##_jac *j = malloc(n * sizeof *j);                                                     \
        E *scratch = malloc(n * sizeof *scratch);                                               \
        j[0] = *A;                                                                              \
        for (size_t i = 1; i < n; i++)                                                          \
            G##_jac_add_vartime(&j[i], &j[i - 1], D);                                           \
        G##_jac_batch_to_affine(out, j, n, scratch);                                            \
        free(j), free(scratch);                                                                 \
    }                                                                                           \
    static void G##_rand_mult(G##_jac *r, const G##_jac *gen, g16_scalar *a) {                  \
        FR af;                                                                                  \
        G##_rand_scalar(a, &af);                                                                \
        G##_jac_mul_vartime(r, gen, a);                                                         \
    }                                                                                           \
    /* Runs the GPU MSM and compares with ref (Jacobian). */                                    \
    static void G##_compare(const char *what, size_t n, const G##_affine *bases, const g16_scalar *k, \
                            const G##_jac *ref) {                                               \
        g16_status st = {0};                                                                    \
        g16_gpu_bases *gb = NULL;                                                               \
        g16_err rc = G16_OK;                                                                    \
        if (!use_streamed)                                                                      \
            rc = g16_gpu_bases_upload(gpu, &gb, CURVE, GROUP, bases, n, &st);                   \
        CHECK_MSG(rc == G16_OK, "%s upload: %s", #G, st.msg);                                   \
        if (rc != G16_OK)                                                                       \
            return;                                                                             \
        void *d_k = NULL, *d_kept = NULL;                                                       \
        g16_scalar dummy_;                                                                      \
        const g16_scalar *mk = k;                                                               \
        size_t mn = n;                                                                          \
        if (use_drop) {                                                                         \
            size_t inf = 0, dropped = 0;                                                        \
            for (size_t i = 0; i < n; i++)                                                      \
                inf += G##_affine_is_inf(&bases[i]) != 0;                                       \
            if (inf && inf < n) /* below the threshold: unchanged */                           \
                CHECK(g16_gpu_bases_drop_infinity(gpu, gb, inf + 1, &dropped, &st) == G16_OK && \
                      dropped == 0 && g16_gpu_bases_count(gb) == n);                            \
            rc = g16_gpu_bases_drop_infinity(gpu, gb, 0, &dropped, &st);                        \
            CHECK_MSG(rc == G16_OK && dropped == inf && g16_gpu_bases_count(gb) == n - inf &&   \
                          g16_gpu_bases_source_count(gb) == n,                                  \
                      "%s drop n=%zu: %zu of %zu points at infinity dropped: %s", #G, n, dropped, inf, \
                      st.msg);                                                                  \
            size_t again = 0;                                                                   \
            if (dropped)                                                                        \
                CHECK(g16_gpu_bases_drop_infinity(gpu, gb, 0, &again, &st) == G16_ERR_INVALID_ARG && \
                      again == 0);                                                              \
            if (rc == G16_OK && dropped) { /* the kept points' scalars, device to device */     \
                rc = g16_gpu_alloc(gpu, &d_k, n * sizeof *k, &st);                              \
                if (rc == G16_OK)                                                               \
                    rc = g16_gpu_alloc(gpu, &d_kept, n * sizeof *k, &st);                       \
                if (rc == G16_OK)                                                               \
                    rc = g16_gpu_copy_async(gpu, d_k, k, n * sizeof *k, &st);                   \
                if (rc == G16_OK)                                                               \
                    rc = g16_gpu_bases_gather(gpu, gb, (g16_scalar *)d_kept, (const g16_scalar *)d_k, &st); \
                CHECK_MSG(rc == G16_OK, "%s gather: %s", #G, st.msg);                            \
                mk = (const g16_scalar *)d_kept;                                                \
                mn = n - dropped;                                                               \
            } else if (rc == G16_OK && n) {                                                     \
                CHECK(g16_gpu_bases_gather(gpu, gb, &dummy_, k, &st) ==        \
                      G16_ERR_INVALID_ARG);                                                     \
            }                                                                                   \
            if (rc != G16_OK) {                                                                 \
                g16_gpu_free(gpu, d_k), g16_gpu_free(gpu, d_kept), g16_gpu_bases_free(gpu, gb); \
                return;                                                                         \
            }                                                                                   \
        }                                                                                       \
        if (use_table) {                                                                        \
            size_t plain = g16_gpu_bases_device_bytes(gb);                                      \
            rc = g16_gpu_bases_precompute(gpu, gb, 0, &st);                                     \
            CHECK_MSG(rc == G16_OK, "%s precompute n=%zu: %s", #G, n, st.msg);                  \
            CHECK_MSG(n == 0 || g16_gpu_bases_device_bytes(gb) > plain,                         \
                      "%s precompute n=%zu: the table is not larger than the bases", #G, n);    \
            CHECK(g16_gpu_bases_precompute(gpu, gb, 0, &st) == G16_ERR_INVALID_ARG);            \
            if (mn >= 2) { /* two chunks over the table: the view's offset */                    \
                G##_jac o1, o2;                                                                 \
                size_t h = mn / 2;                                                               \
                rc = g16_gpu_msm_at(gpu, &o1, gb, 0, mk, h, NULL, &st);                          \
                if (rc == G16_OK)                                                               \
                    rc = g16_gpu_msm_at(gpu, &o2, gb, h, mk + h, mn - h, NULL, &st);              \
                CHECK_MSG(rc == G16_OK, "%s msm_at over the table: %s", #G, st.msg);            \
                G##_jac_add_vartime(&o1, &o1, &o2);                                             \
                CHECK_MSG(rc == G16_OK && G##_jac_eq(&o1, ref),                                 \
                          "%s msm n=%zu %s: two chunks over the table differ from the CPU", #G, n, what); \
            }                                                                                   \
        }                                                                                       \
        G##_jac out;                                                                            \
        memset(&out, 0x77, sizeof out);                                                         \
        g16_gpu_timing tm = {0};                                                                \
        rc = use_streamed ? g16_gpu_msm_streamed(gpu, &out, CURVE, GROUP, bases, k, n, &tm, &st) \
                          : g16_gpu_msm(gpu, &out, gb, mk, mn, &tm, &st);                         \
        CHECK_MSG(rc == G16_OK, "%s msm: %s", #G, st.msg);                                      \
        /* Digits were sorted (some stage took time): the table ran iff there is one. */        \
        if (rc == G16_OK && tm.sort_ms + tm.acc_ms + tm.reduce_ms > 0)                          \
            CHECK_MSG(tm.table == use_table, "%s msm n=%zu %s: table %s", #G, n, what,          \
                      use_table ? "made but not used" : "used but never made");                 \
        G##_affine ga, ra;                                                                      \
        G##_jac_to_affine(&ga, &out);                                                           \
        G##_jac_to_affine(&ra, ref);                                                            \
        int ok = rc == G16_OK && memcmp(&ga, &ra, sizeof ga) == 0 &&                           \
                 G##_jac_is_inf(&out) == G##_jac_is_inf(ref);                                   \
        CHECK_MSG(ok, "%s msm n=%zu %s%s%s: GPU result differs from the CPU (%s)", #G, n, what, \
                  use_streamed ? " streamed" : "", use_table ? " table" : use_drop ? " dropped" : "",    \
                  variant);                                                                     \
        printf("  %-9s n=%-8zu %-22s %s%s%s (gpu %.3f ms, kernels %.3f ms)\n", #G, n, what,     \
               use_streamed ? "streamed " : "", use_table ? "table " : "", ok ? "ok" : "MISMATCH", \
               tm.total_ms, tm.kernel_ms);                                                      \
        g16_gpu_free(gpu, d_k), g16_gpu_free(gpu, d_kept);                                      \
        g16_gpu_bases_free(gpu, gb);                                                            \
    }                                                                                           \
    /* Naive reference over independent random bases [a_i]G (some repeated or infinity). */    \
    static void G##_naive(size_t n, int kind, int repeat, int with_inf) {                       \
        G##_affine *bases = malloc(n * sizeof *bases);                                          \
        G##_jac *bj = malloc(n * sizeof *bj);                                                   \
        E *scratch = malloc(n * sizeof *scratch);                                               \
        g16_scalar *k = malloc(n * sizeof *k);                                                  \
        FR *kf = malloc(n * sizeof *kf);                                                        \
        G##_affine gen;                                                                         \
        G##_jac genj, acc, t;                                                                   \
        G##_generator(&gen);                                                                    \
        G##_jac_from_affine(&genj, &gen);                                                       \
        for (size_t i = 0; i < n; i++) {                                                        \
            g16_scalar a;                                                                       \
            if (repeat && i >= (size_t)repeat)                                                  \
                bj[i] = bj[i % (size_t)repeat];                                                 \
            else                                                                                \
                G##_rand_mult(&bj[i], &genj, &a);                                               \
        }                                                                                       \
        G##_jac_batch_to_affine(bases, bj, n, scratch);                                         \
        for (size_t i = 0; i < n; i++) /* with_inf 1: every 7th at infinity, 2: 4 of 5, 3: all */ \
            if ((with_inf == 1 && i % 7 == 0) || (with_inf == 2 && i % 5 != 0) || with_inf == 3) \
                G##_affine_set_inf(&bases[i]);                                                  \
        G##_scalars(k, kf, n, kind);                                                            \
        if (repeat) /* equal bases with equal scalars meet in one bucket: doubling */           \
            for (size_t i = (size_t)repeat; i < n; i += 3)                                      \
                k[i] = k[i % (size_t)repeat];                                                   \
        G##_jac_set_inf(&acc);                                                                  \
        for (size_t i = 0; i < n; i++) {                                                        \
            G##_jac p;                                                                          \
            G##_jac_from_affine(&p, &bases[i]);                                                 \
            G##_jac_mul_vartime(&t, &p, &k[i]);                                                 \
            G##_jac_add_vartime(&acc, &acc, &t);                                                \
        }                                                                                       \
        char what[64];                                                                          \
        snprintf(what, sizeof what, "%s%s%s", sc_name[kind], repeat ? " rep-bases" : "",        \
                 with_inf == 1 ? " inf-bases" : with_inf == 2 ? " 80%-inf-bases" : with_inf == 3 ? " all-inf" : ""); \
        G##_compare(what, n, bases, k, &acc);                                                   \
        free(bases), free(bj), free(scratch), free(k), free(kf);                                \
    }                                                                                           \
    /* Progression reference: sum k_i (A + iD) = [sum k_i]A + [sum i k_i]D. */                  \
    static void G##_progression_test(size_t n, int kind) {                                      \
        G##_affine *bases = malloc(n * sizeof *bases);                                          \
        g16_scalar *k = malloc(n * sizeof *k);                                                  \
        FR *kf = malloc(n * sizeof *kf);                                                        \
        CHECK(bases && k && kf);                                                                \
        if (!bases || !k || !kf)                                                                \
            return;                                                                             \
        G##_affine gen;                                                                         \
        G##_jac genj, A, D, r1, r2;                                                             \
        g16_scalar a, s1, s2;                                                                   \
        G##_generator(&gen);                                                                    \
        G##_jac_from_affine(&genj, &gen);                                                       \
        G##_rand_mult(&A, &genj, &a);                                                           \
        G##_rand_mult(&D, &genj, &a);                                                           \
        double t0 = g16_now_ms();                                                               \
        G##_progression(bases, n, &A, &D);                                                      \
        G##_scalars(k, kf, n, kind);                                                            \
        FR sum1, sum2, fi, t;                                                                   \
        FR##_set_zero(&sum1);                                                                   \
        FR##_set_zero(&sum2);                                                                   \
        for (size_t i = 0; i < n; i++) {                                                        \
            FR##_add(&sum1, &sum1, &kf[i]);                                                     \
            FR##_from_u64(&fi, (uint64_t)i);                                                    \
            FR##_mul(&t, &fi, &kf[i]);                                                          \
            FR##_add(&sum2, &sum2, &t);                                                         \
        }                                                                                       \
        FR##_from_mont(s1.l, &sum1);                                                            \
        FR##_from_mont(s2.l, &sum2);                                                            \
        G##_jac_mul_vartime(&r1, &A, &s1);                                                      \
        G##_jac_mul_vartime(&r2, &D, &s2);                                                      \
        G##_jac_add_vartime(&r1, &r1, &r2);                                                     \
        double t1 = g16_now_ms();                                                               \
        char what[64];                                                                          \
        snprintf(what, sizeof what, "%s progression", sc_name[kind]);                           \
        G##_compare(what, n, bases, k, &r1);                                                    \
        printf("  (cpu setup %.0f ms)\n", t1 - t0);                                             \
        free(bases), free(k), free(kf);                                                         \
    }                                                                                           \
    /* Density form: bitmap over n progression bases (about 3/4 set, bit 0 and  \
     * the last always set when n > 1), scalars for the set bits only; the     \
     * reference is the progression formula over the expanded vector. */       \
    static void G##_density_test(size_t n, int kind) {                                         \
        G##_affine *bases = malloc(n * sizeof *bases);                                          \
        g16_scalar *k = malloc(n * sizeof *k), *kc = malloc(n * sizeof *kc);                    \
        FR *kf = malloc(n * sizeof *kf);                                                        \
        uint8_t *bits = calloc(n / 8 + 1, 1);                                                   \
        CHECK(bases && k && kc && kf && bits);                                                  \
        if (!bases || !k || !kc || !kf || !bits)                                                \
            return;                                                                             \
        G##_affine gen;                                                                         \
        G##_jac genj, A, D, r1, r2;                                                             \
        g16_scalar a, s1, s2;                                                                   \
        G##_generator(&gen);                                                                    \
        G##_jac_from_affine(&genj, &gen);                                                       \
        G##_rand_mult(&A, &genj, &a);                                                           \
        G##_rand_mult(&D, &genj, &a);                                                           \
        G##_progression(bases, n, &A, &D);                                                      \
        G##_scalars(k, kf, n, kind);                                                            \
        FR sum1, sum2, fi, t;                                                                   \
        FR##_set_zero(&sum1);                                                                   \
        FR##_set_zero(&sum2);                                                                   \
        size_t m = 0;                                                                           \
        for (size_t i = 0; i < n; i++) {                                                        \
            int set = i == 0 || i + 1 == n || g16_rng_next(&rng) % 4 != 0;                      \
            if (!set)                                                                           \
                continue;                                                                       \
            bits[i / 8] |= (uint8_t)(1u << (i % 8));                                            \
            kc[m++] = k[i];                                                                     \
            FR##_add(&sum1, &sum1, &kf[i]);                                                     \
            FR##_from_u64(&fi, (uint64_t)i);                                                    \
            FR##_mul(&t, &fi, &kf[i]);                                                          \
            FR##_add(&sum2, &sum2, &t);                                                         \
        }                                                                                       \
        if (n % 8) /* bits past n must be ignored */                                           \
            bits[n / 8] |= (uint8_t)(0xffu << (n % 8));                                         \
        FR##_from_mont(s1.l, &sum1);                                                            \
        FR##_from_mont(s2.l, &sum2);                                                            \
        G##_jac_mul_vartime(&r1, &A, &s1);                                                      \
        G##_jac_mul_vartime(&r2, &D, &s2);                                                      \
        G##_jac_add_vartime(&r1, &r1, &r2);                                                     \
        g16_status st = {0};                                                                    \
        g16_gpu_bases *gb = NULL;                                                               \
        g16_err rc = g16_gpu_bases_upload(gpu, &gb, CURVE, GROUP, bases, n, &st);               \
        CHECK_MSG(rc == G16_OK, "%s upload: %s", #G, st.msg);                                   \
        if (rc == G16_OK) {                                                                     \
            G##_jac out;                                                                        \
            g16_gpu_timing tm = {0};                                                            \
            rc = g16_gpu_msm_density(gpu, &out, gb, bits, kc, m, &tm, &st);                     \
            CHECK_MSG(rc == G16_OK, "%s density: %s", #G, st.msg);                              \
            G##_affine ga, ra;                                                                  \
            G##_jac_to_affine(&ga, &out);                                                       \
            G##_jac_to_affine(&ra, &r1);                                                        \
            int ok = rc == G16_OK && memcmp(&ga, &ra, sizeof ga) == 0 &&                       \
                     G##_jac_is_inf(&out) == G##_jac_is_inf(&r1);                               \
            CHECK_MSG(ok, "%s density n=%zu m=%zu %s: GPU result differs from the CPU (%s)", #G, \
                      n, m, sc_name[kind], variant);                                            \
            printf("  %-9s n=%-8zu density m=%-8zu %-9s %s (gpu %.3f ms)\n", #G, n, m,           \
                   sc_name[kind], ok ? "ok" : "MISMATCH", tm.total_ms);                        \
            if (m > 1) /* popcount != n_scalars */                                             \
                CHECK(g16_gpu_msm_density(gpu, &out, gb, bits, kc, m - 1, NULL, &st) ==         \
                      G16_ERR_SIZE_MISMATCH);                                                   \
            g16_gpu_bases_free(gpu, gb);                                                        \
        }                                                                                       \
        free(bases), free(k), free(kc), free(kf), free(bits);                                   \
    }                                                                                           \
    static void G##_msm_tests(int max_log) {                                                    \
        static const size_t small[] = {1, 2, 3, 100, 1000};                                     \
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)                             \
            G##_naive(small[i], SC_RANDOM, 0, 0);                                               \
        G##_naive(100, SC_EDGE, 0, 0);                                                          \
        G##_naive(300, SC_EDGE, 0, 1);                                                          \
        G##_naive(1000, SC_ZERO, 0, 0);                                                         \
        G##_naive(1000, SC_ONE, 0, 0);                                                          \
        G##_naive(1000, SC_01_HEAVY, 0, 0);                                                     \
        G##_naive(1000, SC_RANDOM, 5, 0);                                                       \
        G##_naive(1000, SC_ONE, 3, 1);                                                          \
        G##_naive(200, SC_EQUAL, 0, 0);                                                         \
        G##_naive(3000, SC_FILECOIN, 0, 1);                                                     \
        G##_density_test(1, SC_RANDOM);                                                         \
        G##_density_test(77, SC_EDGE);                                                          \
        G##_density_test(5000, SC_FILECOIN);                                                    \
        if (max_log >= 16)                                                                      \
            G##_density_test(((size_t)1 << 16) + 5, SC_RANDOM);                                 \
        for (int lg = 16; lg <= max_log; lg += 4) {                                             \
            G##_progression_test((size_t)1 << lg, SC_RANDOM);                                   \
            if (lg == 16) {                                                                     \
                G##_progression_test((size_t)1 << lg, SC_01_HEAVY);                            \
                G##_progression_test((size_t)1 << lg, SC_FILECOIN);                            \
                G##_progression_test((size_t)1 << lg, SC_EQUAL);                                \
                G##_progression_test((size_t)1 << lg, SC_EDGE);                                 \
                G##_progression_test(((size_t)1 << lg) + 17, SC_RANDOM);                       \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* Points at infinity dropped (use_drop): some, most (chunked in a context of 1024  \
     * points: 1040 kept of 5200), all, none. */                                               \
    static void G##_drop_tests(void) {                                                          \
        G##_naive(300, SC_EDGE, 0, 1);                                                          \
        G##_naive(1000, SC_ONE, 3, 1);                                                          \
        G##_naive(3000, SC_FILECOIN, 0, 2);                                                     \
        G##_naive(5200, SC_RANDOM, 0, 2);                                                       \
        G##_naive(100, SC_RANDOM, 0, 3);                                                        \
        G##_naive(100, SC_RANDOM, 0, 0);                                                        \
    }                                                                                           \
    /* A shorter set for the variant contexts (forced window, old kernels, streaming). */       \
    static void G##_variant_tests(int big) {                                                    \
        G##_naive(1, SC_RANDOM, 0, 0);                                                          \
        G##_naive(300, SC_EDGE, 0, 1);                                                          \
        G##_naive(300, SC_RANDOM, 5, 0);                                                        \
        G##_naive(1000, SC_ONE, 3, 1);                                                          \
        G##_naive(1500, SC_FILECOIN, 0, 0);                                                     \
        G##_naive(10, SC_ZERO, 0, 0);                                                           \
        if (big) {                                                                              \
            /* chunked contexts: 2 and 64 dense chunks, each at least half full (merged) */     \
            G##_progression_test(2048, SC_RANDOM);                                              \
            G##_progression_test(((size_t)1 << 16) - 300, SC_RANDOM);                           \
            G##_progression_test(((size_t)1 << 16) + 17, SC_RANDOM);                            \
            G##_progression_test((size_t)1 << 16, SC_FILECOIN);                                 \
            G##_progression_test((size_t)1 << 16, SC_EQUAL);                                    \
        }                                                                                       \
    }

MSM_TEST(bn254_g1, bn254_fp, bn254_fr, G16_CURVE_BN254, G16_GPU_G1)
MSM_TEST(bls381_g1, bls381_fp, bls381_fr, G16_CURVE_BLS12_381, G16_GPU_G1)
MSM_TEST(bn254_g2, bn254_fp2, bn254_fr, G16_CURVE_BN254, G16_GPU_G2)
MSM_TEST(bls381_g2, bls381_fp2, bls381_fr, G16_CURVE_BLS12_381, G16_GPU_G2)

/* Argument and size errors come back as codes, never aborts. */
static void api_errors(void) {
    g16_status st = {0};
    bn254_g1_jac out;
    g16_scalar k = {{1, 0, 0, 0}};
    CHECK(g16_gpu_msm(gpu, &out, NULL, &k, 1, NULL, &st) == G16_ERR_INVALID_ARG);
    g16_gpu_bases *gb = NULL;
    bn254_g1_affine p;
    bn254_g1_generator(&p);
    CHECK(g16_gpu_bases_upload(gpu, &gb, G16_CURVE_BN254, G16_GPU_G1, &p, 1, &st) == G16_OK);
    CHECK(g16_gpu_msm(gpu, &out, gb, &k, 2, NULL, &st) == G16_ERR_SIZE_MISMATCH);
    CHECK(g16_gpu_msm(gpu, &out, gb, &k, 1, NULL, &st) == G16_OK);
    bn254_g1_affine a;
    bn254_g1_jac_to_affine(&a, &out);
    CHECK(bn254_g1_affine_eq(&a, &p));
    g16_gpu_bases_free(gpu, gb);
    g16_gpu *bad = NULL;
    CHECK(g16_gpu_create(&bad, 1000, 16, 0, NULL, &st) == G16_ERR_NO_DEVICE && bad == NULL);
}

/* Runs the short MSM set on a second context created with up to two
 * options (docs/config.md, read at create) and/or through the streamed path. */
static void drop_run(void) {
    use_drop = 1;
    bn254_g1_drop_tests();
    bls381_g1_drop_tests();
    bn254_g2_drop_tests();
    bls381_g2_drop_tests();
    use_drop = 0;
}

static void variant_run(const char *name, const char *e1, const char *v1, const char *e2, const char *v2,
                        size_t max_points, int streamed, int g2_big) {
    g16_status st = {0};
    g16_config cfg;
    g16_config_init(&cfg);
    CHECK_MSG((!e1 || g16_config_set(&cfg, e1, v1, G16_SRC_CONFIG, &st) == G16_OK) &&
                  (!e2 || g16_config_set(&cfg, e2, v2, G16_SRC_CONFIG, &st) == G16_OK),
              "variant %s: %s", name, st.msg);
    g16_gpu *vg = NULL, *main_gpu = gpu;
    g16_err rc = g16_gpu_create(&vg, 0, max_points, 1, &cfg, &st);
    size_t est = g16_gpu_ctx_bytes(max_points, 1, &cfg); /* with the same options */
    CHECK_MSG(rc != G16_OK || (g16_gpu_device_bytes(vg) > 0 && g16_gpu_device_bytes(vg) <= est),
              "variant %s: the context took %zu device bytes, the host bound g16_gpu_ctx_bytes says %zu", name,
              g16_gpu_device_bytes(vg), est);
    CHECK_MSG(rc == G16_OK, "variant %s: create: %s", name, st.msg);
    if (rc != G16_OK)
        return;
    printf("variant: %s\n", name);
    gpu = vg;
    variant = name;
    use_streamed = streamed;
    bn254_g1_variant_tests(1);
    bls381_g1_variant_tests(1);
    bn254_g2_variant_tests(g2_big);
    bls381_g2_variant_tests(g2_big);
    if (max_points <= 1024 && !streamed) /* chunked: the kept points in chunks */
        drop_run();
    if (streamed) { /* n = 0: infinity, no copy */
        bn254_g1_jac out;
        CHECK(g16_gpu_msm_streamed(gpu, &out, G16_CURVE_BN254, G16_GPU_G1, NULL, NULL, 0, NULL, &st) == G16_OK &&
              bn254_g1_jac_is_inf(&out));
    }
    g16_gpu_destroy(vg);
    gpu = main_gpu;
    variant = "default";
    use_streamed = 0;
}

int main(void) {
    uint64_t seed = t_seed("test_gpu_msm");
    g16_rng_seed(&rng, seed);
    int count = g16_gpu_count();
    if (count == 0) {
        printf("test_gpu_msm: skipped: no GPU\n");
        return 77;
    }
    int max_log = 20;
    const char *env = getenv("G16_GPU_TEST_MAX_LOG");
    if (env)
        max_log = atoi(env);
    g16_status st = {0};
    g16_err rc = g16_gpu_create(&gpu, 0, ((size_t)1 << (max_log > 16 ? max_log : 16)) + 64, 1, t_env_config(), &st);
    if (rc == G16_ERR_NO_DEVICE) {
        printf("test_gpu_msm: skipped: no GPU (%s)\n", st.msg);
        return 77;
    }
    CHECK_MSG(rc == G16_OK, "create: %s", st.msg);
    if (rc != G16_OK)
        return t_done("test_gpu_msm");
    printf("device: %s\n", g16_gpu_name(gpu));
    {
        /* The engine's device budget counts a context by the host bound. */
        size_t mp = ((size_t)1 << (max_log > 16 ? max_log : 16)) + 64, est = g16_gpu_ctx_bytes(mp, 1, t_env_config());
        printf("context of %zu points: %zu device bytes, host bound %zu (%.1f%% above)\n", mp,
               g16_gpu_device_bytes(gpu), est, 100.0 * ((double)est / (double)g16_gpu_device_bytes(gpu) - 1));
        CHECK_MSG(g16_gpu_device_bytes(gpu) > 0 && g16_gpu_device_bytes(gpu) <= est,
                  "context of %zu points: %zu device bytes over the host bound %zu", mp, g16_gpu_device_bytes(gpu),
                  est);
    }
    /* G16_GPU_TEST_ONLY_DROP=1: the dropped-infinity cases only (a short run
     * of their kernels under compute-sanitizer). */
    const char *only_drop = getenv("G16_GPU_TEST_ONLY_DROP");
    if (only_drop && atoi(only_drop)) {
        variant = "dropped";
        drop_run();
        g16_gpu_destroy(gpu);
        return t_done("test_gpu_msm");
    }
    /* G16_GPU_TEST_ONLY_G2=1: G2 MSMs only (short runs, e.g. under compute-sanitizer). */
    const char *only_g2 = getenv("G16_GPU_TEST_ONLY_G2");
    if (!only_g2 || atoi(only_g2) == 0) {
        api_errors();
        field_test_bn254_fp();
        field_test_bn254_fr();
        field_test_bls381_fp();
        field_test_bls381_fr();
        field_test_bn254_fp2();
        field_test_bls381_fp2();
        bn254_g1_msm_tests(max_log);
        bls381_g1_msm_tests(max_log);
    }
    bn254_g2_msm_tests(max_log);
    bls381_g2_msm_tests(max_log);
    printf("variant: points at infinity dropped\n");
    variant = "dropped";
    drop_run();
    variant = "default";
    /* Chunked MSMs (more points than the context holds): dense chunks merged
     * into one set of buckets, other chunks' reductions pipelined over two
     * halves of the scratch (G2 chunks whose plan fills the context fall back
     * to the whole, filecoin ones fit a half). Up to 65 chunks. */
    variant_run("chunks of 1024", NULL, NULL, NULL, NULL, 1024, 0, 1);
    /* Variants (G16_GPU_TEST_VARIANTS=0 skips them): a forced wide window with
     * shorter segments, a narrow one, MINB 1, and the streamed path in chunks
     * of 4096 points (17 chunks at 2^16 + 17). */
    const char *vars = getenv("G16_GPU_TEST_VARIANTS");
    if (!vars || atoi(vars) != 0) {
        size_t vmax = ((size_t)1 << 16) + 64;
        variant_run("c=20 seg=64", "gpu.msm_window_bits", "20", "gpu.msm_segment", "64", vmax, 0, 0);
        variant_run("c=9", "gpu.msm_window_bits", "9", NULL, NULL, vmax, 0, 0);
        variant_run("minb1", "gpu.msm_acc_blocks", "1", NULL, NULL, vmax, 0, 0);
        variant_run("streamed 4096", NULL, NULL, NULL, NULL, 4096, 1, 1);
    }
    /* Precomputed window tables (g16_gpu_bases_precompute) on the main
     * context: the short set (2^16 + 17 too when G16_GPU_TEST_MAX_LOG >= 16). */
    printf("variant: precomputed tables\n");
    variant = "table";
    use_table = 1;
    bn254_g1_variant_tests(max_log >= 16);
    bls381_g1_variant_tests(max_log >= 16);
    bn254_g2_variant_tests(max_log >= 16);
    bls381_g2_variant_tests(max_log >= 16);
    use_table = 0;
    variant = "default";
    g16_gpu_destroy(gpu);
    return t_done("test_gpu_msm");
}
