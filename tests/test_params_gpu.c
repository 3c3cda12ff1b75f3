/* Bellperson partitions on a GPU (src/groth16/params_gpu.c); skipped (77)
 * without one. For PoRep-profile circuits (synth.h: A dense, B about a
 * quarter, mostly 0/1 aux values) at 2^10 and 2^16 (the bitmap compaction
 * over several scan blocks), with an INSECURE test key made by the
 * library's setup (.params), seeds logged:
 *   - g16_prove_assignments with backend cuda and cpu and the same fixed r, s
 *     give the same 192 proof bytes, and both verify against the key's vk;
 *   - the heavy stage on a context of 2^12 points (MSMs larger than the
 *     context, run in chunks) gives the same MSM sums as the CPU's;
 *   - after a GPU heavy stage the context's MSM scratch is all zero (wiped);
 *   - a value not below r in aux, in c (row 5) and in a (row 3, below c's)
 *     gives NOT_CANONICAL with the message the CPU gives;
 *   - a working area made for another key shape is refused;
 *   - the stage times are filled in and add up to the compute time;
 *   - g16_params_gpu_compute refuses a partition that g16_params_gpu_load
 *     did not put on the area (none, or another), and the two calls give
 *     the CPU's sums;
 *   - all of the heavy-stage checks also with gpu.params_pinned (the copies
 *     through two 64 MiB pinned buffers, filled by the pool's threads).
 * env: G16_TEST_SEED (default: time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/curve.h"
#include "g16.h"
#include "gpu/gpu.h"
#include "groth16/assignment.h"
#include "groth16/groth16.h"
#include "groth16/params.h"
#include "groth16/synth.h"
#include "util/ctx.h"
#include "testutil.h"

static g16_ctx *g_ctx;
static char g_tmp[256];

typedef struct fixture {
    char key[320], asg[320];
    g16_params_key *pk;
    g16_assignment_file af;
} fixture;

static int make(fixture *f, int log_n, uint64_t seed) {
    char r1cs[320], wtns[320], vk[320];
    snprintf(r1cs, sizeof r1cs, "%s/c%d.r1cs", g_tmp, log_n);
    snprintf(wtns, sizeof wtns, "%s/w%d.wtns", g_tmp, log_n);
    snprintf(f->key, sizeof f->key, "%s/k%d.params", g_tmp, log_n);
    snprintf(vk, sizeof vk, "%s/k%d.vk", g_tmp, log_n);
    g16_status st = {0};
    synth_opts so = {.curve = G16_CURVE_BLS12_381, .log_n = log_n, .profile = SYNTH_POREP, .partitions = 1,
                     .seed = seed, .r1cs_path = r1cs, .wtns_path = wtns};
    synth_stats ss;
    if (synth_generate(&so, &ss, &st) != G16_OK) {
        CHECK_MSG(0, "2^%d: synth: %s", log_n, st.msg);
        return 0;
    }
    g16_r1cs cs;
    if (g16_r1cs_read(&cs, r1cs, &st) != G16_OK) {
        CHECK_MSG(0, "2^%d: r1cs: %s", log_n, st.msg);
        return 0;
    }
    groth16_setup_opts sopt = {.seed = seed, .backend = GROTH16_SETUP_CPU};
    g16_err e = groth16_setup_params_insecure(g_ctx, &cs, &sopt, f->key, vk, NULL, &st);
    g16_r1cs_free(&cs);
    CHECK_MSG(e == G16_OK, "2^%d: setup: %s", log_n, st.msg);
    if (e)
        return 0;
    e = g16_assignment_from_r1cs(&f->af, r1cs, wtns, &st);
    CHECK_MSG(e == G16_OK, "2^%d: assignment: %s", log_n, st.msg);
    unlink(r1cs);
    unlink(wtns);
    if (e)
        return 0;
    e = g16_params_key_load(g_ctx, &f->pk, f->key, 1);
    CHECK(e == G16_OK);
    return e == G16_OK;
}

static void drop(fixture *f) {
    g16_params_key_free(f->pk);
    g16_assignment_file_free(&f->af);
    memset(f, 0, sizeof *f);
}

static int g1_same(const bls381_g1_jac *a, const bls381_g1_jac *b) {
    bls381_g1_affine x, y;
    bls381_g1_jac_to_affine(&x, a);
    bls381_g1_jac_to_affine(&y, b);
    return !memcmp(&x, &y, sizeof x);
}

static int g2_same(const bls381_g2_jac *a, const bls381_g2_jac *b) {
    bls381_g2_affine x, y;
    bls381_g2_jac_to_affine(&x, a);
    bls381_g2_jac_to_affine(&y, b);
    return !memcmp(&x, &y, sizeof x);
}

static int msms_same(const g16_params_msms *a, const g16_params_msms *b) {
    return g1_same(&a->a, &b->a) && g1_same(&a->b1, &b->b1) && g2_same(&a->b2, &b->b2) && g1_same(&a->l, &b->l) &&
           g1_same(&a->h, &b->h);
}

/* cuda and cpu proofs for the same r, s: the same bytes, and verified. */
static void test_same_proof(fixture *f, int log_n, uint64_t seed) {
    g16_fr_mont r, s;
    g16_rng rng;
    g16_rng_seed(&rng, seed ^ 0x5eed);
    bls381_fr x;
    bls381_fr_random(&x, &rng);
    memcpy(&r, &x, sizeof r);
    bls381_fr_random(&x, &rng);
    memcpy(&s, &x, sizeof s);
    g16_params_proof_raw pc, pg;
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    o.r = &r, o.s = &s;
    o.backend = G16_BACKEND_CPU;
    g16_err ec = g16_prove_assignments(g_ctx, f->pk, &f->af.a, 1, &o, &pc);
    CHECK_MSG(ec == G16_OK, "2^%d cpu: %s", log_n, g16_err_str(ec));
    o.backend = G16_BACKEND_CUDA;
    g16_err eg = g16_prove_assignments(g_ctx, f->pk, &f->af.a, 1, &o, &pg);
    char msg[512] = "";
    if (eg)
        (void)g16_ctx_last_error(g_ctx, msg, sizeof msg);
    CHECK_MSG(eg == G16_OK, "2^%d cuda: %s", log_n, msg);
    uint8_t bc[G16_PARAMS_PROOF_SIZE], bg[G16_PARAMS_PROOF_SIZE];
    CHECK(g16_params_proof_raw_encode(bc, &pc) == G16_OK && g16_params_proof_raw_encode(bg, &pg) == G16_OK);
    CHECK_MSG(!memcmp(bc, bg, sizeof bc), "2^%d: the GPU's proof differs from the CPU's for the same r, s", log_n);
    /* both verified inside (verify on by default); again from the bytes */
    g16_params_proof pr;
    g16_status st = {0};
    const bls381_fr *pub = (const bls381_fr *)(const void *)(f->af.a.inp_assignment + 1);
    CHECK(g16_params_proof_decode(&pr, bg, sizeof bg, &st) == G16_OK &&
          g16_params_verify(g16_params_key_params(f->pk), &pr, pub, f->af.a.inp_assignment_size - 1, &st) ==
              G16_OK);
    fprintf(stderr, "2^%d: GPU proof = CPU proof (%zu aux, %zu A-dense, %zu B-dense)\n", log_n,
            f->af.a.aux_assignment_size, f->af.a.a_aux_popcount, f->af.a.b_aux_popcount);
}

/* A context smaller than the MSMs: chunked MSMs, same sums; the scratch
 * wiped after; bad values named as on the CPU; a foreign working area. */
static void test_heavy(fixture *f, fixture *other, int log_n, int pinned) {
    g16_config cfgv;
    g16_config_init(&cfgv);
    g16_status cs = {0};
    CHECK(g16_config_set(&cfgv, "gpu.params_pinned", pinned ? "1" : "0", G16_SRC_FLAG, &cs) == G16_OK);
    const g16_config *cfg = &cfgv;
    g16_status st = {0};
    g16_gpu *g = NULL;
    g16_params_gpu_key *gk = NULL;
    g16_params_gpu_work *gw = NULL;
    CHECK_MSG(g16_gpu_create(&g, 0, 1u << 12, 1, NULL, &st) == G16_OK, "%s", st.msg);
    CHECK_MSG(g && g16_params_gpu_key_upload(g, &gk, f->pk, &st) == G16_OK, "%s", st.msg);
    CHECK_MSG(gk && g16_params_gpu_work_create(g, &gw, f->pk, cfg, &st) == G16_OK, "%s", st.msg);
    if (!gw)
        goto out;
    if (pinned) /* many pieces, of a size that is no multiple of an element */
        g16_params_gpu_work_test_piece(gw, 4096 + 48);
    g16_params_msms mc, mg;
    CHECK_MSG(g16_params_heavy_cpu(g_ctx, &mc, f->pk, &f->af.a, "p", &st) == G16_OK, "%s", st.msg);
    CHECK_MSG(g16_params_heavy_gpu(g, gw, gk, &mg, f->pk, &f->af.a, "p", &st) == G16_OK, "%s", st.msg);
    CHECK_MSG(msms_same(&mc, &mg), "2^%d: chunked GPU sums differ from the CPU's", log_n);
    size_t nz = 1;
    CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK);
    CHECK_MSG(nz == 0, "2^%d: %zu nonzero bytes left in the MSM scratch", log_n, nz);
    g16_params_gpu_times t;
    g16_params_gpu_work_times(gw, &t);
    float sum = t.prep_ms + t.h_ms + t.scalars_ms;
    for (int i = 0; i < 5; i++)
        sum += t.msm_ms[i];
    CHECK_MSG(t.load_ms > 0 && t.h_ms > 0 && t.msm_ms[0] > 0 && t.msm_ms[4] > 0 && t.compute_ms > 0 &&
                  sum > 0.999f * t.compute_ms && sum < 1.001f * t.compute_ms,
              "2^%d: stage times load %.3f h %.3f msm_h %.3f msm_b2 %.3f compute %.3f (sum %.3f)", log_n, t.load_ms,
              t.h_ms, t.msm_ms[0], t.msm_ms[4], t.compute_ms, sum);

    /* the two-call form: compute needs the load of the same partition */
    {
        g16_assignment other_as = f->af.a;
        g16_params_msms m2;
        g16_status s2 = {0};
        CHECK_MSG(g16_params_gpu_compute(g, gw, gk, &m2, f->pk, &f->af.a, "p", &s2) == G16_ERR_INVALID_ARG &&
                      strstr(s2.msg, "not loaded"),
                  "compute without a load: '%s'", s2.msg);
        CHECK_MSG(g16_params_gpu_load(g, gw, f->pk, &f->af.a, pinned ? g_ctx->pool : NULL, "p", &s2) == G16_OK, "%s", s2.msg);
        CHECK(g16_params_gpu_compute(g, gw, gk, &m2, f->pk, &other_as, "p", &s2) == G16_ERR_INVALID_ARG);
        CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK && nz == 0);
        CHECK(g16_params_gpu_compute(g, gw, gk, &m2, f->pk, &f->af.a, "p", &s2) == G16_ERR_INVALID_ARG);
        CHECK_MSG(g16_params_gpu_load(g, gw, f->pk, &f->af.a, pinned ? g_ctx->pool : NULL, "p", &s2) == G16_OK &&
                      g16_params_gpu_compute(g, gw, gk, &m2, f->pk, &f->af.a, "p", &s2) == G16_OK,
                  "%s", s2.msg);
        CHECK_MSG(msms_same(&mc, &m2), "2^%d: the two-call sums differ from the CPU's", log_n);
    }

    /* bad values: a copy of the assignment with one value replaced by r */
    g16_assignment a = f->af.a;
    size_t nx = a.aux_assignment_size, nabc = a.abc_size;
    g16_fr_mont *aux = malloc(nx * sizeof *aux), *cc = malloc(nabc * sizeof *cc), *aa = malloc(nabc * sizeof *aa);
    static const uint64_t rmod[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                     0x73eda753299d7d48ull};
    if (aux && cc && aa && nx > 7 && nabc > 7) {
        memcpy(aux, a.aux_assignment, nx * sizeof *aux);
        memcpy(aux[7].l, rmod, 32);
        g16_assignment b = a;
        b.aux_assignment = aux;
        g16_status s1 = {0}, s2 = {0};
        g16_err e1 = g16_params_heavy_cpu(g_ctx, &mc, f->pk, &b, "p", &s1);
        g16_err e2 = g16_params_heavy_gpu(g, gw, gk, &mg, f->pk, &b, "p", &s2);
        CHECK_MSG(e1 == G16_ERR_NOT_CANONICAL && e2 == e1 && !strcmp(s1.msg, s2.msg), "aux: cpu '%s', gpu '%s'",
                  s1.msg, s2.msg);
        memcpy(cc, a.c, nabc * sizeof *cc);
        memcpy(cc[5].l, rmod, 32);
        b = a;
        b.c = cc;
        e1 = g16_params_heavy_cpu(g_ctx, &mc, f->pk, &b, "p", &s1);
        e2 = g16_params_heavy_gpu(g, gw, gk, &mg, f->pk, &b, "p", &s2);
        CHECK_MSG(e1 == G16_ERR_NOT_CANONICAL && e2 == e1 && !strcmp(s1.msg, s2.msg) && strstr(s2.msg, "c[5]"),
                  "c: cpu '%s', gpu '%s'", s1.msg, s2.msg);
        memcpy(aa, a.a, nabc * sizeof *aa);
        memcpy(aa[3].l, rmod, 32);
        b.a = aa; /* c[5] stays bad: a[3] is the lower row */
        e1 = g16_params_heavy_cpu(g_ctx, &mc, f->pk, &b, "p", &s1);
        e2 = g16_params_heavy_gpu(g, gw, gk, &mg, f->pk, &b, "p", &s2);
        CHECK_MSG(e1 == G16_ERR_NOT_CANONICAL && e2 == e1 && !strcmp(s1.msg, s2.msg) && strstr(s2.msg, "a[3]"),
                  "a: cpu '%s', gpu '%s'", s1.msg, s2.msg);
        CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK && nz == 0);
        /* the good assignment still proves on the same area after the errors */
        CHECK(g16_params_heavy_gpu(g, gw, gk, &mg, f->pk, &f->af.a, "p", &st) == G16_OK);
        CHECK(g16_params_heavy_cpu(g_ctx, &mc, f->pk, &f->af.a, "p", &st) == G16_OK && msms_same(&mc, &mg));
    } else {
        CHECK(0);
    }
    free(aux), free(cc), free(aa);
    if (other && other->pk) {
        CHECK(!g16_params_gpu_work_fits(gw, other->pk));
        CHECK(g16_params_heavy_gpu(g, gw, gk, &mg, other->pk, &other->af.a, "p", &st) == G16_ERR_INVALID_ARG);
    }
out:
    g16_params_gpu_work_free(g, gw);
    g16_params_gpu_key_free(g, gk);
    g16_gpu_destroy(g);
}

int main(void) {
    if (g16_gpu_count() <= 0) {
        fprintf(stderr, "test_params_gpu: skipped: no GPU\n");
        return 77;
    }
    const char *es = getenv("G16_TEST_SEED");
    uint64_t seed = es ? strtoull(es, NULL, 0) : (uint64_t)time(NULL);
    fprintf(stderr, "test_params_gpu: seed %llu (G16_TEST_SEED)\n", (unsigned long long)seed);
    g_ctx = g16_ctx_create(NULL);
    CHECK(g_ctx != NULL);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/g16_params_gpu.XXXXXX");
    CHECK(mkdtemp(g_tmp) != NULL);
    fixture small = {0}, big = {0};
    if (g_ctx && make(&small, 10, seed) && make(&big, 16, seed + 1)) {
        test_same_proof(&small, 10, seed);
        test_same_proof(&big, 16, seed + 1);
        for (int pinned = 0; pinned < 2; pinned++) {
            test_heavy(&small, &big, 10, pinned);
            test_heavy(&big, &small, 16, pinned);
        }
    }
    drop(&small);
    drop(&big);
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    (void)!system(cmd);
    g16_ctx_destroy(g_ctx);
    return t_done("test_params_gpu");
}
