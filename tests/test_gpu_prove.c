/* The Groth16 heavy stage on the GPU (src/groth16/prove_gpu.c) against the
 * CPU's (prove.c), which the interop tests tie to snarkjs:
 *   - synthetic circuits (synth.h + the insecure setup, in a temp dir) of both
 *     curves, log sizes 8, 10, 12, 16, 20 and profiles dense / filecoin /
 *     sparse-b: the five MSM sums equal the CPU's (as affine points), the
 *     proof with fixed r, s equals the CPU's byte for byte (proof.json), and
 *     it verifies;
 *   - every resident-key case twice: with the GPU synthesis (ws-only CPU
 *     synthesis, a, b, c from the key's rows on the device: the default of
 *     g16 prove) and with the CPU synthesis (G16_GPU_SYNTH=0's path); and
 *     g16_gpu_synth_dev alone against the CPU's a, b, c (first differing
 *     row printed);
 *   - the streamed path (no resident bases) gives the same proof;
 *   - faults: a witness of another key is refused and the next proof on the
 *     same worker is right; a device working area or bases of another key are
 *     refused; a ws-only work with a key without device rows (or streamed
 *     bases) is refused; proving key1, key1, key2 on one worker gives
 *     proofs that all verify;
 *   - with G16_GPU_TEST_FIXTURES=DIR: every circuit.zkey + witness.wtns pair
 *     under DIR (scripts/interop/build_fixtures.sh's layout, .cache/interop),
 *     and every X.zkey + X.wtns pair, as above; the same always for examples/.
 * On a mismatch of the H sum it compares h itself (CPU NTTs vs g16_gpu_h) and
 * prints the first differing index, so that one run locates the fault.
 * env: G16_GPU_TEST_MAX_LOG (default 20), G16_GPU_TEST_CURVES ("bn254,
 * bls12-381"), G16_GPU_TEST_PROFILES ("dense,filecoin,sparse-b"),
 * G16_GPU_TEST_FIXTURES, G16_GPU_DEVICE (default 0).
 * Without a usable GPU it prints "skipped: no GPU" and exits 77;
 * G16_GPU_TEST_SELFTEST=1 then runs the harness with the CPU heavy stage in
 * place of the GPU's (to check the test itself on a machine without GPU). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/gpu_synth.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "ntt/ntt.h"
#include "testutil.h"
#include "util/util.h"

static g16_ctx *ctx;
static g16_gpu *gpu;
static int selftest;
static char tmpdir[64];
static g16_rng rng;
static uint8_t R[32], S[32];
/* Set after a G16_ERR_DEVICE: a CUDA fault is sticky (every later call on
 * the device fails), so the remaining cases are skipped to keep the first
 * failure readable. */
static int device_dead;

static void note_err(g16_err e) {
    if (e == G16_ERR_DEVICE && !device_dead) {
        device_dead = 1;
        fprintf(stderr, "test_gpu_prove: device error: the CUDA context is lost; skipping the remaining cases\n");
    }
}

/* ---- circuits ------------------------------------------------------------- */

#define NW 3 /* witnesses per synthetic circuit */

typedef struct kit {
    char name[96];
    g16_key *key;
    g16_witness *wit[NW];
    int nw;
} kit;

static void kit_free(kit *k) {
    for (int i = 0; i < k->nw; i++)
        g16_witness_free(k->wit[i]);
    g16_key_free(k->key);
    memset(k, 0, sizeof *k);
}

static const char *prof_name[] = {"dense", "filecoin", "sparse-b"};

static int make_kit(kit *k, g16_curve curve, int log_n, synth_profile prof, uint64_t seed) {
    static int serial;
    char r1cs[160], wstem[160], zkey[160], wp[200];
    memset(k, 0, sizeof *k);
    serial++; /* own files: a loaded key maps its file */
    snprintf(k->name, sizeof k->name, "%s 2^%d %s seed %llu", g16_curve_name(curve), log_n, prof_name[prof],
             (unsigned long long)seed);
    snprintf(r1cs, sizeof r1cs, "%s/c%d.r1cs", tmpdir, serial);
    snprintf(wstem, sizeof wstem, "%s/c%d.wtns", tmpdir, serial);
    snprintf(zkey, sizeof zkey, "%s/c%d.zkey", tmpdir, serial);
    synth_opts so = {curve, log_n, prof, NW, seed, r1cs, wstem, NULL, NULL};
    g16_status st = {0};
    synth_stats ss;
    g16_r1cs cs;
    memset(&cs, 0, sizeof cs);
    if (synth_generate(&so, &ss, &st) || g16_r1cs_read(&cs, r1cs, &st) ||
        groth16_setup_insecure(ctx, &cs, zkey, seed, &st) ||
        groth16_key_load_ex(ctx, &k->key, zkey, G16_KEY_TRUSTED, 0, &st)) {
        fprintf(stderr, "%s: making the circuit: %s\n", k->name, st.msg);
        g16_r1cs_free(&cs);
        CHECK_MSG(0, "%s: circuit set-up failed", k->name);
        return 0;
    }
    g16_r1cs_free(&cs);
    for (int i = 0; i < NW; i++) {
        synth_wtns_path(wp, sizeof wp, wstem, NW, i);
        if (groth16_witness_load(&k->wit[i], wp, NULL, 0, &st)) {
            CHECK_MSG(0, "%s: witness %d: %s", k->name, i, st.msg);
            kit_free(k);
            return 0;
        }
        k->nw++;
    }
    return 1;
}

static int load_kit(kit *k, const char *zkey, const char *wtns) {
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%.90s", zkey);
    g16_status st = {0};
    if (groth16_key_load_ex(ctx, &k->key, zkey, 0, 0, &st) || groth16_witness_load(&k->wit[0], wtns, NULL, 0, &st)) {
        CHECK_MSG(0, "%s: loading: %s", zkey, st.msg);
        kit_free(k);
        return 0;
    }
    k->nw = 1;
    return 1;
}

/* ---- comparisons ---------------------------------------------------------- */

static void hex(char *out, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[n - 1 - i]); /* most significant first */
}

#define CMP_G(CV, G, field, label)                                                                     \
    do {                                                                                               \
        CV##_##G##_affine x, y;                                                                        \
        CV##_##G##_jac_to_affine(&x, &c->CV.field);                                                    \
        CV##_##G##_jac_to_affine(&y, &g->CV.field);                                                    \
        if (memcmp(&x, &y, sizeof x) != 0) {                                                           \
            char hx[2 * sizeof x.x + 1], hy[2 * sizeof y.x + 1];                                       \
            hex(hx, &x.x, sizeof x.x);                                                                 \
            hex(hy, &y.x, sizeof y.x);                                                                 \
            CHECK_MSG(0, "%s: MSM %s differs: cpu x(mont) %s, gpu x(mont) %s (gpu z %s)", name, label, hx, \
                      hy, CV##_##G##_jac_is_inf(&g->CV.field) ? "inf" : "finite");                      \
            bad |= 1u << idx;                                                                          \
        }                                                                                              \
        idx++;                                                                                         \
    } while (0)

/* Bit mask of differing sums (1 A, 2 B1, 4 B2, 8 C, 16 H). */
static unsigned cmp_msms(const char *name, const groth16_msms *c, const groth16_msms *g) {
    unsigned bad = 0;
    int idx = 0;
    if (c->curve != g->curve) {
        CHECK_MSG(0, "%s: curve %d vs %d", name, c->curve, g->curve);
        return 31;
    }
    if (c->curve == G16_CURVE_BN254) {
        CMP_G(bn254, g1, a, "A");
        CMP_G(bn254, g1, b1, "B1");
        CMP_G(bn254, g2, b2, "B2");
        CMP_G(bn254, g1, c, "C");
        CMP_G(bn254, g1, h, "H");
    } else {
        CMP_G(bls381, g1, a, "A");
        CMP_G(bls381, g1, b1, "B1");
        CMP_G(bls381, g2, b2, "B2");
        CMP_G(bls381, g1, c, "C");
        CMP_G(bls381, g1, h, "H");
    }
    CHECK_MSG(c->pub.n == g->pub.n && (!c->pub.n || !memcmp(c->pub.raw, g->pub.raw, c->pub.n * 32)),
              "%s: public signals differ", name);
    return bad;
}

/* The H diagnosis: h from the CPU's NTTs vs g16_gpu_h over copies of a, b, c. */
static void diagnose_h(const char *name, const g16_zkey *zk, const groth16_work_bufs *b) {
    size_t n = b->n;
    unsigned log_n = zk->log2_domain;
    void *x[3];
    g16_scalar *hc = malloc(n * sizeof *hc), *hg = malloc(n * sizeof *hg);
    for (int i = 0; i < 3; i++) {
        x[i] = malloc(n * 32);
        if (x[i])
            memcpy(x[i], b->abc[i], n * 32);
    }
    g16_gpu_domain *dom = NULL;
    g16_status st = {0};
    if (!hc || !hg || !x[0] || !x[1] || !x[2])
        goto out;
    if (g16_gpu_domain_create(gpu, &dom, zk->curve, log_n, &st) ||
        g16_gpu_h(gpu, dom, x[0], x[1], x[2], hg, NULL, &st)) {
        fprintf(stderr, "%s: diagnosis: g16_gpu_h: %s\n", name, st.msg);
        goto out;
    }
    for (int i = 0; i < 3; i++) {
        g16_err e = zk->curve == G16_CURVE_BN254 ? ntt_bn254_fr_odd_coset_from_evals(ctx, x[i], log_n)
                                                 : ntt_bls381_fr_odd_coset_from_evals(ctx, x[i], log_n);
        if (e)
            goto out;
    }
    size_t nbad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (zk->curve == G16_CURVE_BN254) {
            bn254_fr t, *a = x[0], *bb = x[1], *c = x[2];
            bn254_fr_mul(&t, &a[i], &bb[i]);
            bn254_fr_sub(&t, &t, &c[i]);
            bn254_fr_from_mont(hc[i].l, &t);
        } else {
            bls381_fr t, *a = x[0], *bb = x[1], *c = x[2];
            bls381_fr_mul(&t, &a[i], &bb[i]);
            bls381_fr_sub(&t, &t, &c[i]);
            bls381_fr_from_mont(hc[i].l, &t);
        }
        if (memcmp(&hc[i], &hg[i], sizeof hc[i]) != 0 && nbad++ == 0)
            first = i;
    }
    if (nbad) {
        char h1[65], h2[65];
        hex(h1, &hc[first], 32);
        hex(h2, &hg[first], 32);
        fprintf(stderr, "%s: diagnosis: h differs at %zu of %zu indices, first %zu: cpu %s gpu %s\n", name, nbad, n,
                first, h1, h2);
    } else {
        fprintf(stderr, "%s: diagnosis: g16_gpu_h equals the CPU's h (%zu values): the H MSM is at fault\n", name, n);
    }
out:
    g16_gpu_domain_free(dom);
    for (int i = 0; i < 3; i++)
        free(x[i]);
    free(hc);
    free(hg);
}

/* ---- one proof on both sides ------------------------------------------------ */

typedef struct worker {
    groth16_work *cpu;    /* the CPU reference's working area */
    groth16_work *work;   /* the GPU worker's CPU working area */
    groth16_gpu_work *gw; /* its device working area */
} worker;

static void worker_free(worker *w) {
    groth16_work_free(w->cpu);
    groth16_work_free(w->work);
    groth16_gpu_work_free(gpu, w->gw);
    memset(w, 0, sizeof *w);
}

static int worker_make(worker *w, const g16_key *key, unsigned flags) {
    g16_status st = {0};
    memset(w, 0, sizeof *w);
    if (selftest)
        flags &= ~(unsigned)GROTH16_WORK_NO_CPU_HEAVY;
    if (device_dead)
        return 0;
    if (groth16_work_create(ctx, &w->cpu, key, &st) || groth16_work_create_ex(ctx, &w->work, key, flags, &st) ||
        (!selftest && groth16_gpu_work_create(gpu, &w->gw, key, &st))) {
        note_err(st.code);
        CHECK_MSG(0, "worker: %s", st.msg);
        worker_free(w);
        return 0;
    }
    return 1;
}

static g16_err heavy(worker *w, const groth16_gpu_key *gk, groth16_msms *m, const g16_key *key,
                     groth16_gpu_timings *gt, g16_status *st) {
    groth16_timings tm = {0};
    memset(gt, 0, sizeof *gt);
    if (selftest)
        return groth16_stage_heavy(ctx, m, w->work, key, &tm, st);
    g16_err e = groth16_stage_heavy_gpu(ctx, gpu, w->gw, gk, m, w->work, key, &tm, gt, st);
    note_err(e);
    return e;
}

/* Proves wit on the CPU and on the GPU worker (gk NULL: streamed bases) and
 * compares. Returns 1 if equal and verified. */
static int prove_cmp_ex(const char *name, worker *w, const g16_key *key, const groth16_gpu_key *gk,
                        const g16_witness *wit, int verbose, unsigned sflags) {
    g16_status st = {0};
    groth16_timings tm = {0};
    groth16_gpu_timings gt;
    groth16_msms mc, mg;
    g16_result *rc = NULL, *rg = NULL;
    char *jc = NULL, *jg = NULL;
    int ok = 0;
    memset(&mc, 0, sizeof mc);
    memset(&mg, 0, sizeof mg);
    if (device_dead)
        return 0;
    double t0 = g16_now_ms();
    if (groth16_stage_synth(ctx, w->cpu, key, wit, &tm, &st) || groth16_stage_heavy(ctx, &mc, w->cpu, key, &tm, &st)) {
        CHECK_MSG(0, "%s: CPU prover: %s", name, st.msg);
        goto out;
    }
    double t_cpu = g16_now_ms() - t0;
    if (groth16_stage_synth_ex(ctx, w->work, key, wit, sflags, &tm, &st)) {
        CHECK_MSG(0, "%s: synthesis for the GPU: %s", name, st.msg);
        goto out;
    }
    groth16_work_bufs bufs;
    if (groth16_work_buffers(w->work, key, &bufs, &st)) {
        CHECK_MSG(0, "%s: %s", name, st.msg);
        goto out;
    }
    t0 = g16_now_ms();
    g16_err e = heavy(w, gk, &mg, key, &gt, &st);
    double t_gpu = g16_now_ms() - t0;
    if (e) {
        CHECK_MSG(0, "%s: GPU heavy stage: %s (%s)", name, st.msg, g16_err_str(e));
        goto out;
    }
    unsigned bad = cmp_msms(name, &mc, &mg);
    if ((bad & 16) && !selftest && !bufs.ws_only)
        diagnose_h(name, groth16_key_zkey(key), &bufs);
    if (groth16_stage_finalize(ctx, &rc, key, &mc, R, S, &tm, &st) ||
        groth16_stage_finalize(ctx, &rg, key, &mg, R, S, &tm, &st)) {
        CHECK_MSG(0, "%s: finalize: %s", name, st.msg);
        goto out;
    }
    if (g16_result_json(ctx, &jc, NULL, rc) || g16_result_json(ctx, &jg, NULL, rg)) {
        CHECK_MSG(0, "%s: proof JSON failed", name);
        goto out;
    }
    int same = strcmp(jc, jg) == 0;
    CHECK_MSG(same, "%s: GPU proof differs from the CPU proof (fixed r, s)\n--- cpu:\n%s\n--- gpu:\n%s", name, jc, jg);
    g16_err ve = groth16_result_verify(key, rg, &st);
    CHECK_MSG(ve == G16_OK, "%s: GPU proof does not verify: %s", name, st.msg);
    ok = same && ve == G16_OK && !bad;
    if (verbose || !ok)
        printf("  %-44s %s: cpu heavy %.1f ms, gpu heavy %.1f ms (upload %.1f, synth %.1f, ntt/h %.1f, msm A %.1f "
               "B1 %.1f B2 %.1f C %.1f H %.1f)%s%s\n",
               name, ok ? "ok" : "FAILED", t_cpu, t_gpu, gt.upload_ms, gt.synth_ms, gt.ntt_ms, gt.msm_ms[0],
               gt.msm_ms[1], gt.msm_ms[2], gt.msm_ms[3], gt.msm_ms[4], gk || selftest ? "" : " [streamed]",
               sflags & GROTH16_SYNTH_WS_ONLY ? " [gpu synth]" : " [cpu synth]");
out:
    groth16_msms_clear(&mc);
    groth16_msms_clear(&mg);
    g16_free(jc);
    g16_free(jg);
    g16_result_free(rc);
    g16_result_free(rg);
    return ok;
}

/* Both synthesis modes when gk holds the key's rows (GPU synthesis first: the
 * default path), else the CPU synthesis. Returns 1 if all were right. */
static int prove_cmp(const char *name, worker *w, const g16_key *key, const groth16_gpu_key *gk,
                     const g16_witness *wit, int verbose) {
    int ok = 1;
    if (!selftest && groth16_gpu_key_synth(gk)) {
        char n2[160];
        snprintf(n2, sizeof n2, "%s (gpu synth)", name);
        ok &= prove_cmp_ex(n2, w, key, gk, wit, verbose, GROTH16_SYNTH_WS_ONLY);
    }
    return prove_cmp_ex(name, w, key, gk, wit, verbose, 0) && ok;
}

/* g16_gpu_synth_dev alone: the CPU's a, b, c (full synthesis in w->work)
 * against the device's from the CPU's witness scalars; prints the first
 * differing row of each. */
static void test_synth_direct(const char *name, worker *w, const g16_key *key, const g16_witness *wit) {
    g16_status st = {0};
    groth16_timings tm = {0};
    groth16_work_bufs b;
    groth16_csr csr;
    g16_gpu_synth *syn = NULL;
    void *d[5] = {NULL, NULL, NULL, NULL, NULL}; /* a, b, c, ws, w */
    uint8_t *h = NULL;
    if (selftest || device_dead)
        return;
    const g16_zkey *zk = groth16_key_zkey(key);
    groth16_key_csr(key, &csr);
    if (groth16_stage_synth(ctx, w->work, key, wit, &tm, &st) || groth16_work_buffers(w->work, key, &b, &st)) {
        CHECK_MSG(0, "%s: synthesis: %s", name, st.msg);
        return;
    }
    size_t n = b.n, nv = b.nv;
    g16_err e = g16_gpu_synth_upload(gpu, &syn, zk->curve, csr.n, zk->nVars, csr.row[0], csr.row[1], csr.nnz,
                                     csr.signal, csr.coef, &st);
    for (int i = 0; i < 5 && !e; i++)
        e = g16_gpu_alloc(gpu, &d[i], (i < 3 ? n : nv) * 32, &st);
    if (!e)
        e = g16_gpu_copy_async(gpu, d[3], b.ws, nv * 32, &st);
    if (!e)
        e = g16_gpu_synth_dev(gpu, syn, d[3], (uint32_t)nv, d[4], d[0], d[1], d[2], &st);
    h = malloc(3 * n * 32);
    for (int i = 0; i < 3 && !e && h; i++)
        e = g16_gpu_copy_async(gpu, h + (size_t)i * n * 32, d[i], n * 32, &st);
    if (!e)
        e = g16_gpu_sync(gpu, &st);
    note_err(e);
    CHECK_MSG(e == G16_OK && h, "%s: g16_gpu_synth: %s", name, st.msg);
    /* A wrong wire count is refused. */
    if (!e) {
        g16_err e2 = g16_gpu_synth_dev(gpu, syn, d[3], (uint32_t)nv + 1, d[4], d[0], d[1], d[2], &st);
        CHECK_MSG(e2 == G16_ERR_SIZE_MISMATCH, "%s: synth with a wrong wire count gave %s", name, g16_err_str(e2));
    }
    for (int m = 0; m < 3 && !e && h; m++) {
        const uint8_t *cpu = b.abc[m], *gpu_v = h + (size_t)m * n * 32;
        size_t bad = 0, first = 0;
        for (size_t r = 0; r < n; r++)
            if (memcmp(cpu + r * 32, gpu_v + r * 32, 32) != 0 && bad++ == 0)
                first = r;
        if (bad) {
            char h1[65], h2[65];
            hex(h1, cpu + first * 32, 32);
            hex(h2, gpu_v + first * 32, 32);
            CHECK_MSG(0, "%s: GPU synthesis: %c differs at %zu of %zu rows, first %zu (row entries A [%u, %u), B [%u, %u)): cpu %s gpu %s",
                      name, "abc"[m], bad, n, first, csr.row[0][first], csr.row[0][first + 1], csr.row[1][first],
                      csr.row[1][first + 1], h1, h2);
        } else {
            CHECK(1);
        }
    }
    /* The CPU work is left synthesized: consume it. */
    groth16_msms m;
    memset(&m, 0, sizeof m);
    groth16_work_consume(w->work, &m, 0);
    groth16_msms_clear(&m);
    for (int i = 0; i < 5; i++)
        g16_gpu_free(gpu, d[i]);
    g16_gpu_synth_free(gpu, syn);
    free(h);
}

/* Points at infinity of base set i (A, B1, B2, C) in the key's host
 * arrays; -1 when the key holds raw section bytes instead. */
static long key_infinities(const g16_key *key, int set) {
    const g16_zkey *zk = groth16_key_zkey(key);
    size_t n = set == 3 ? (size_t)zk->nVars - zk->nPublic - 1 : zk->nVars;
    long inf = 0;
    for (size_t i = 0; i < n; i++) {
        int z;
        if (zk->curve == G16_CURVE_BN254) {
            const bn254_g1_affine *g1[4] = {zk->bn254.A, zk->bn254.B1, NULL, zk->bn254.C};
            if (set == 2 ? !zk->bn254.B2 : !g1[set])
                return -1;
            z = set == 2 ? bn254_g2_affine_is_inf(&zk->bn254.B2[i]) : bn254_g1_affine_is_inf(&g1[set][i]);
        } else {
            const bls381_g1_affine *g1[4] = {zk->bls381.A, zk->bls381.B1, NULL, zk->bls381.C};
            if (set == 2 ? !zk->bls381.B2 : !g1[set])
                return -1;
            z = set == 2 ? bls381_g2_affine_is_inf(&zk->bls381.B2[i]) : bls381_g1_affine_is_inf(&g1[set][i]);
        }
        inf += z != 0;
    }
    return inf;
}

static groth16_gpu_key *upload(const kit *k) {
    groth16_gpu_key *gk = NULL;
    g16_status st = {0};
    if (selftest)
        return NULL;
    double t0 = g16_now_ms();
    if (device_dead)
        return NULL;
    if (groth16_gpu_key_upload(gpu, &gk, k->key, &st)) {
        note_err(st.code);
        CHECK_MSG(0, "%s: key upload: %s", k->name, st.msg);
        return NULL;
    }
    printf("  %-44s key upload %.1f ms (%.1f MiB, %.1f MiB on the device)\n", k->name, g16_now_ms() - t0,
           (double)groth16_gpu_key_bytes(k->key) / 1048576.0, (double)groth16_gpu_key_device_bytes(gk) / 1048576.0);
    /* The points at infinity of A, B1, B2, C went when they were 1/16 of
     * the set or more (the proofs compared below then gathered scalars). */
    const g16_zkey *zk = groth16_key_zkey(k->key);
    for (int i = 0; i < 4; i++) {
        long inf = key_infinities(k->key, i);
        size_t n = i == 3 ? (size_t)zk->nVars - zk->nPublic - 1 : zk->nVars, kept = groth16_gpu_key_kept(gk, i);
        size_t want = inf < 0 ? kept : (size_t)inf >= n / 16 && inf > 0 ? n - (size_t)inf : n;
        CHECK_MSG(kept == want, "%s: set %d keeps %zu of %zu points (%ld at infinity), expected %zu", k->name, i,
                  kept, n, inf, want);
        if (i == 2)
            printf("  %-44s B2 keeps %zu of %zu points\n", k->name, kept, n);
    }
    CHECK(groth16_gpu_key_device_bytes(gk) <= groth16_gpu_key_bytes(k->key));
    return gk;
}

/* ---- the cases ---------------------------------------------------------------- */

static void test_kit(const kit *k, int with_streamed, unsigned flags) {
    worker w;
    if (!worker_make(&w, k->key, flags))
        return;
    groth16_gpu_key *gk = upload(k);
    if (gk || selftest) {
        char name[128];
        snprintf(name, sizeof name, "%s%s", k->name, flags & GROTH16_WORK_PINNED ? "" : " (pageable)");
        test_synth_direct(name, &w, k->key, k->wit[0]);
        prove_cmp(name, &w, k->key, gk, k->wit[0], 1);
        /* The GPU synthesis from a scalars-only host working area (what
         * g16 prove uses). */
        groth16_work *wo = NULL, *keep = w.work;
        g16_status wst = {0};
        if (!selftest && groth16_gpu_key_synth(gk) &&
            groth16_work_create_ex(ctx, &wo, k->key, flags | GROTH16_WORK_WS_ONLY, &wst) == G16_OK) {
            w.work = wo;
            snprintf(name, sizeof name, "%s (gpu synth, ws-only area)", k->name);
            prove_cmp_ex(name, &w, k->key, gk, k->wit[0], 0, GROTH16_SYNTH_WS_ONLY);
            w.work = keep;
            groth16_work_free(wo);
        }
        if (k->nw > 1 && groth16_key_zkey(k->key)->log2_domain <= 16) {
            snprintf(name, sizeof name, "%s w1", k->name);
            prove_cmp(name, &w, k->key, gk, k->wit[1], 0);
        }
        /* The same proof over precomputed window tables of the bases
         * (groth16_gpu_key_precompute): equal to the CPU's too. */
        groth16_gpu_key *gt = NULL;
        if (!selftest && !device_dead && groth16_key_zkey(k->key)->log2_domain <= 16 && (gt = upload(k)) != NULL) {
            int made = 0;
            g16_status tst = {0};
            g16_err te = groth16_gpu_key_precompute(gpu, gt, &made, &tst);
            CHECK_MSG(te == G16_OK && made == 5, "%s: key precompute: %d of 5 tables (%s)", k->name, made,
                      tst.msg);
            snprintf(name, sizeof name, "%s (window tables)", k->name);
            prove_cmp(name, &w, k->key, gt, k->wit[0], 1);
            groth16_gpu_key_free(gpu, gt);
        }
    }
    if (with_streamed && !selftest && !device_dead) {
        char name[128];
        snprintf(name, sizeof name, "%s streamed", k->name);
        prove_cmp(name, &w, k->key, NULL, k->wit[0], 1);
    }
    groth16_gpu_key_free(gpu, gk);
    worker_free(&w);
}

/* MSMs larger than the context (what a 2^27 key beside a smaller context
 * does, prove_gpu.c msm_resident): a context of 2^9 points proves a 2^12
 * key in chunks over the resident bases; the proofs equal the CPU's. */
static void test_chunked(g16_curve curve, int device, uint64_t seed) {
    kit k;
    if (selftest || device_dead || !make_kit(&k, curve, 12, SYNTH_DENSE, seed))
        return;
    g16_gpu *full = gpu, *small = NULL;
    g16_status st = {0};
    if (g16_gpu_create(&small, device, 512, 1, NULL, &st)) {
        note_err(st.code);
        CHECK_MSG(0, "chunked: context of 512 points: %s", st.msg);
    } else {
        printf("  %-44s MSMs in chunks of %zu points\n", k.name, g16_gpu_max_points(small));
        gpu = small;
        test_kit(&k, 0, GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY);
        gpu = full;
        g16_gpu_destroy(small);
    }
    kit_free(&k);
}

/* Faults on one worker: a witness of another key; stages out of order; a
 * device working area and bases of another key; then key1, key1, key2. */
static void test_faults(g16_curve curve, uint64_t seed) {
    kit k1, k2, ko;
    if (!make_kit(&k1, curve, 10, SYNTH_DENSE, seed))
        return;
    if (!make_kit(&k2, curve, 10, SYNTH_DENSE, seed + 1)) {
        kit_free(&k1);
        return;
    }
    if (!make_kit(&ko, curve, 8, SYNTH_FILECOIN, seed + 2)) {
        kit_free(&k1);
        kit_free(&k2);
        return;
    }
    worker w, wo;
    groth16_gpu_key *g1 = upload(&k1), *g2 = upload(&k2), *go = upload(&ko);
    if (!worker_make(&w, k1.key, GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY))
        goto out0;
    if (!worker_make(&wo, ko.key, GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY)) {
        worker_free(&w);
        goto out0;
    }
    char name[128];
    g16_status st = {0};
    groth16_timings tm = {0};
    groth16_gpu_timings gt;
    groth16_msms m;
    memset(&m, 0, sizeof m);

    /* A witness of another key (other length) is refused at synthesis. */
    g16_err e = groth16_stage_synth(ctx, w.work, k1.key, ko.wit[0], &tm, &st);
    CHECK_MSG(e == G16_ERR_SIZE_MISMATCH, "faults: other key's witness gave %s (%s)", g16_err_str(e), st.msg);
    /* The heavy stage on an unsynthesized area is refused. */
    e = heavy(&w, g1, &m, k1.key, &gt, &st);
    CHECK_MSG(e == G16_ERR_INTERNAL, "faults: heavy without synthesis gave %s (%s)", g16_err_str(e), st.msg);
    groth16_msms_clear(&m);
    if (!selftest) {
        /* Bases of another key of the same shape: refused (and the area is
         * consumed: the next stage needs a new synthesis). */
        if (groth16_stage_synth(ctx, w.work, k1.key, k1.wit[0], &tm, &st) == G16_OK) {
            e = groth16_stage_heavy_gpu(ctx, gpu, w.gw, g2, &m, w.work, k1.key, &tm, &gt, &st);
            CHECK_MSG(e == G16_ERR_INTERNAL, "faults: other key's bases gave %s (%s)", g16_err_str(e), st.msg);
            groth16_msms_clear(&m);
        }
        /* A device working area of another shape: refused. */
        if (groth16_stage_synth(ctx, w.work, k1.key, k1.wit[0], &tm, &st) == G16_OK) {
            e = groth16_stage_heavy_gpu(ctx, gpu, wo.gw, g1, &m, w.work, k1.key, &tm, &gt, &st);
            CHECK_MSG(e == G16_ERR_INTERNAL, "faults: other shape's device area gave %s (%s)", g16_err_str(e),
                      st.msg);
            groth16_msms_clear(&m);
        }
        CHECK(!groth16_gpu_work_fits(wo.gw, k1.key) && groth16_gpu_work_fits(w.gw, k2.key));
        /* A ws-only work needs the key's rows on the device: refused with
         * bases only, and with streamed bases. */
        groth16_gpu_key *gb = NULL;
        if (groth16_gpu_key_upload_ex(gpu, &gb, k1.key, 0, &st) == G16_OK) {
            CHECK(!groth16_gpu_key_synth(gb) && groth16_gpu_key_synth(g1));
            CHECK(groth16_gpu_synth_flags(gb) == 0);
            for (int streamed = 0; streamed < 2; streamed++) {
                if (groth16_stage_synth_ex(ctx, w.work, k1.key, k1.wit[0], GROTH16_SYNTH_WS_ONLY, &tm, &st)) {
                    CHECK_MSG(0, "faults: ws-only synthesis: %s", st.msg);
                    continue;
                }
                e = groth16_stage_heavy_gpu(ctx, gpu, w.gw, streamed ? NULL : gb, &m, w.work, k1.key, &tm, &gt, &st);
                CHECK_MSG(e == G16_ERR_INTERNAL, "faults: ws-only work with %s gave %s (%s)",
                          streamed ? "streamed bases" : "a key without rows", g16_err_str(e), st.msg);
                groth16_msms_clear(&m);
            }
            groth16_gpu_key_free(gpu, gb);
        } else {
            note_err(st.code);
            CHECK_MSG(0, "faults: upload without rows: %s", st.msg);
        }
    }
    /* The next proofs on the same worker are right: key1, key1, key2 (the
     * same device working area: same shape), then the other shape. */
    snprintf(name, sizeof name, "faults: after errors, %s", k1.name);
    prove_cmp(name, &w, k1.key, g1, k1.wit[0], 0);
    snprintf(name, sizeof name, "faults: key1 again, %s w1", k1.name);
    prove_cmp(name, &w, k1.key, g1, k1.wit[1], 0);
    if (selftest || groth16_gpu_work_fits(w.gw, k2.key)) {
        /* the worker's CPU areas fit k2 as well (same shape) */
        snprintf(name, sizeof name, "faults: key2, %s", k2.name);
        CHECK(groth16_work_fits(w.work, k2.key));
        prove_cmp(name, &w, k2.key, g2, k2.wit[0], 0);
    }
    snprintf(name, sizeof name, "faults: other worker, %s", ko.name);
    prove_cmp(name, &wo, ko.key, go, ko.wit[0], 0);
    printf("  faults (%s): done\n", g16_curve_name(curve));
    worker_free(&w);
    worker_free(&wo);
out0:
    groth16_gpu_key_free(gpu, g1);
    groth16_gpu_key_free(gpu, g2);
    groth16_gpu_key_free(gpu, go);
    kit_free(&k1);
    kit_free(&k2);
    kit_free(&ko);
}

static int file_exists(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* circuit.zkey + witness.wtns in dir, and X.zkey + X.wtns; recursing 3 deep. */
static void test_fixture_dir(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[1024], q[1024];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            if (depth < 3)
                test_fixture_dir(p, depth + 1);
            continue;
        }
        size_t l = strlen(p);
        if (l < 5 || strcmp(p + l - 5, ".zkey") != 0)
            continue;
        if (!strcmp(e->d_name, "circuit.zkey"))
            snprintf(q, sizeof q, "%s/witness.wtns", dir);
        else
            snprintf(q, sizeof q, "%.*s.wtns", (int)(l - 5), p);
        if (!file_exists(q))
            continue;
        kit k;
        if (!load_kit(&k, p, q))
            continue;
        test_kit(&k, 1, GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY);
        kit_free(&k);
    }
    closedir(d);
}

static int listed(const char *env, const char *dflt, const char *item) {
    const char *v = getenv(env);
    if (!v || !*v)
        v = dflt;
    size_t n = strlen(item);
    for (const char *p = v; (p = strstr(p, item)); p += n)
        if ((p == v || p[-1] == ',' || p[-1] == ' ') && (p[n] == 0 || p[n] == ',' || p[n] == ' '))
            return 1;
    return 0;
}

/* Without a GPU: the API fails cleanly with G16_ERR_NO_DEVICE, and a
 * pinned working area falls back to malloc and proves as before. */
static int synth_wtns_checks(g16_ctx *c, groth16_work *w, const g16_key *key, const char *wt, const g16_result *want);

static int no_gpu_checks(void) {
    int fails = 0;
    g16_status st = {0};
    g16_gpu *g = NULL;
    g16_err e = g16_gpu_create(&g, 0, 16, 1, NULL, &st);
    fails += e != G16_ERR_NO_DEVICE || g != NULL;
    ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 1;
    g16_key *key = NULL;
    g16_witness *wit = NULL;
    const char *zk = "examples/poseidon/bn128/circuit.zkey", *wt = "examples/poseidon/bn128/witness.wtns";
    if (groth16_key_load_ex(ctx, &key, zk, 0, 0, &st) || groth16_witness_load(&wit, wt, NULL, 0, &st)) {
        /* Not run from the repository's root: only the first check. */
        fprintf(stderr, "no-GPU checks: %s (run from the repository root for the rest)\n", st.msg);
        g16_key_free(key);
        g16_ctx_destroy(ctx);
        ctx = NULL;
        return fails;
    }
    groth16_gpu_key *gk = (groth16_gpu_key *)1;
    groth16_gpu_work *gw = (groth16_gpu_work *)1;
    e = groth16_gpu_key_upload(NULL, &gk, key, &st);
    fails += e != G16_ERR_INVALID_ARG || gk != NULL;
    e = groth16_gpu_work_create(NULL, &gw, key, &st);
    fails += e != G16_ERR_INVALID_ARG || gw != NULL;
    fails += groth16_gpu_key_bytes(key) == 0 || groth16_gpu_work_bytes(key) == 0;
    fails += groth16_gpu_key_bytes(key) <= groth16_gpu_key_bytes_ex(key, 0) || groth16_gpu_key_synth(NULL) ||
             groth16_gpu_synth_flags(NULL) != 0;
    g16_gpu_synth *syn = (g16_gpu_synth *)1;
    uint32_t rows[2] = {0, 0};
    e = g16_gpu_synth_upload(NULL, &syn, G16_CURVE_BN254, 1, 1, rows, rows, 0, NULL, NULL, &st);
    fails += (e != G16_ERR_NO_DEVICE && e != G16_ERR_INVALID_ARG) || syn != NULL;
    groth16_work *w = NULL;
    groth16_msms m;
    groth16_timings tm = {0};
    groth16_gpu_timings gt;
    g16_result *res = NULL;
    memset(&m, 0, sizeof m);
    if (groth16_work_create_ex(ctx, &w, key, GROTH16_WORK_PINNED, &st) == G16_OK) {
        fails += groth16_work_pinned(w) != 0;
        /* The GPU stage without a device: NULL context is INVALID_ARG, and the
         * working area is left synthesized for the CPU stage. */
        e = groth16_stage_synth(ctx, w, key, wit, &tm, &st);
        fails += e != G16_OK;
        e = groth16_stage_heavy_gpu(ctx, NULL, NULL, NULL, &m, w, key, &tm, &gt, &st);
        fails += e != G16_ERR_INVALID_ARG;
        /* A ws-only synthesis: the CPU heavy stage refuses it; a full
         * synthesis afterwards proves as before. */
        e = groth16_stage_synth_ex(ctx, w, key, wit, GROTH16_SYNTH_WS_ONLY, &tm, &st);
        fails += e != G16_OK;
        e = groth16_stage_heavy(ctx, &m, w, key, &tm, &st);
        fails += e != G16_ERR_INTERNAL;
        groth16_msms_clear(&m);
        e = groth16_stage_synth(ctx, w, key, wit, &tm, &st);
        fails += e != G16_OK;
        if (groth16_stage_heavy(ctx, &m, w, key, &tm, &st) ||
            groth16_stage_finalize(ctx, &res, key, &m, R, S, &tm, &st) || groth16_result_verify(key, res, &st)) {
            fprintf(stderr, "no-GPU checks: CPU proof from a pinned-flag working area: %s\n", st.msg);
            fails++;
        }
        /* The witness in standard form (what the engine loads for GPU
         * synthesis): refused without GROTH16_SYNTH_WS_ONLY; with it, then
         * completed on the CPU, the same proof bit for bit (same r, s). */
        g16_witness *ws = NULL;
        g16_result *res2 = NULL;
        groth16_msms_clear(&m);
        if (groth16_witness_load_ex(&ws, wt, NULL, 0, G16_WTNS_STANDARD, &st) == G16_OK) {
            fails += groth16_stage_synth(ctx, w, key, ws, &tm, &st) != G16_ERR_INTERNAL;
            if (groth16_stage_synth_ex(ctx, w, key, ws, GROTH16_SYNTH_WS_ONLY, &tm, &st) ||
                groth16_work_synth_complete(ctx, w, key, &st) || groth16_stage_heavy(ctx, &m, w, key, &tm, &st) ||
                groth16_stage_finalize(ctx, &res2, key, &m, R, S, &tm, &st)) {
                fprintf(stderr, "no-GPU checks: standard-form witness, ws-only synthesis: %s\n", st.msg);
                fails++;
            } else {
                char *j1 = NULL, *j2 = NULL, *p1 = NULL, *p2 = NULL;
                int same = res && g16_result_json(ctx, &j1, &p1, res) == G16_OK &&
                           g16_result_json(ctx, &j2, &p2, res2) == G16_OK && !strcmp(j1, j2) && !strcmp(p1, p2);
                if (!same)
                    fprintf(stderr, "no-GPU checks: standard-form witness: another proof\n%s\n%s\n", j1 ? j1 : "",
                            j2 ? j2 : "");
                fails += !same;
                g16_free(j1), g16_free(j2), g16_free(p1), g16_free(p2);
            }
        } else {
            fprintf(stderr, "no-GPU checks: %s: %s\n", wt, st.msg);
            fails++;
        }
        g16_result_free(res2);
        g16_witness_free(ws);
        fails += synth_wtns_checks(ctx, w, key, wt, res);
    } else {
        fails++;
    }
    if (fails)
        fprintf(stderr, "no-GPU checks: %d failures\n", fails);
    groth16_msms_clear(&m);
    g16_result_free(res);
    groth16_work_free(w);
    g16_witness_free(wit);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    ctx = NULL;
    return fails;
}

/* groth16_stage_synth_wtns (the engine's GPU-synthesis read): from the file
 * and from its bytes, completed on the CPU, the proof `want` bit for bit;
 * truncated, oversized, short or non-canonical bytes give their errors and
 * leave the area unsynthesized. Returns the failures. */
static int synth_wtns_checks(g16_ctx *c, groth16_work *w, const g16_key *key, const char *wt, const g16_result *want) {
    int fails = 0;
    size_t len = 0;
    uint8_t *bytes = (uint8_t *)t_read_file(wt, &len);
    uint8_t *big = bytes ? malloc(len + 32) : NULL;
    if (!bytes || !big || len < 76 + 64) {
        fprintf(stderr, "no-GPU checks: cannot read %s\n", wt);
        free(bytes), free(big);
        return 1;
    }
    for (int from_mem = 0; from_mem < 2; from_mem++) {
        groth16_msms m;
        groth16_timings tm = {0};
        g16_status st = {0};
        g16_result *r = NULL;
        memset(&m, 0, sizeof m);
        g16_err e = groth16_stage_synth_wtns(c, w, key, from_mem ? NULL : wt, from_mem ? bytes : NULL, len, &tm, &st);
        if (e || groth16_work_synth_complete(c, w, key, &st) || groth16_stage_heavy(c, &m, w, key, &tm, &st) ||
            groth16_stage_finalize(c, &r, key, &m, R, S, &tm, &st)) {
            fprintf(stderr, "no-GPU checks: synth_wtns (%s): %s\n", from_mem ? "bytes" : "file", st.msg);
            fails++;
        } else {
            char *j1 = NULL, *j2 = NULL, *p1 = NULL, *p2 = NULL;
            int same = want && g16_result_json(c, &j1, &p1, want) == G16_OK &&
                       g16_result_json(c, &j2, &p2, r) == G16_OK && !strcmp(j1, j2) && !strcmp(p1, p2);
            fails += !same;
            if (!same)
                fprintf(stderr, "no-GPU checks: synth_wtns (%s): another proof\n", from_mem ? "bytes" : "file");
            g16_free(j1), g16_free(j2), g16_free(p1), g16_free(p2);
        }
        groth16_msms_clear(&m);
        g16_result_free(r);
    }
    /* wtns v2 layout: n at 60, section 2's size at 68, values from 76 */
    uint32_t n;
    memcpy(&n, bytes + 60, 4);
    struct {
        const char *what;
        size_t len;
        g16_err code;
    } bad[4] = {{"truncated", len - 7, G16_ERR_TRUNCATED},
                {"one value more", len + 32, G16_ERR_SIZE_MISMATCH},
                {"one value less", len - 32, G16_ERR_SIZE_MISMATCH},
                {"value 3 = r", len, G16_ERR_NOT_CANONICAL}};
    for (int i = 0; i < 4; i++) {
        memcpy(big, bytes, len);
        memset(big + len, 0, 32);
        uint32_t n2 = i == 1 ? n + 1 : i == 2 ? n - 1 : n;
        uint64_t s2 = (uint64_t)n2 * 32;
        memcpy(big + 60, &n2, 4);
        memcpy(big + 68, &s2, 8);
        if (i == 3) { /* BN254's r, little-endian */
            static const limb_t r[4] = BN254_FR_P;
            memcpy(big + 76 + 3 * 32, r, 32);
        }
        g16_status st = {0};
        groth16_timings tm = {0};
        g16_err e = groth16_stage_synth_wtns(c, w, key, NULL, big, bad[i].len, &tm, &st);
        g16_status st2 = {0};
        g16_err e2 = groth16_work_synth_complete(c, w, key, &st2); /* refused: not synthesized */
        if (e != bad[i].code || e2 != G16_ERR_INTERNAL) {
            fprintf(stderr, "no-GPU checks: synth_wtns %s: got %d (%s), want %d; then completion %d\n", bad[i].what, e,
                    st.msg, bad[i].code, e2);
            fails++;
        }
    }
    free(bytes), free(big);
    return fails;
}

int main(void) {
    uint64_t seed = t_seed("test_gpu_prove");
    g16_rng_seed(&rng, seed);
    /* r, s: random below 2^248 (below both curves' r). */
    for (int i = 0; i < 31; i++) {
        R[i] = (uint8_t)g16_rng_next(&rng);
        S[i] = (uint8_t)g16_rng_next(&rng);
    }
    R[31] = S[31] = 0;
    selftest = getenv("G16_GPU_TEST_SELFTEST") && atoi(getenv("G16_GPU_TEST_SELFTEST")) == 1;
    if (!selftest && g16_gpu_count() == 0) {
        int bad = no_gpu_checks();
        printf("test_gpu_prove: skipped: no GPU (%s)\n", bad ? "the no-GPU checks FAILED" : "no-GPU checks ok");
        return bad ? 1 : 77;
    }
    int max_log = getenv("G16_GPU_TEST_MAX_LOG") ? atoi(getenv("G16_GPU_TEST_MAX_LOG")) : 20;
    int device = getenv("G16_GPU_DEVICE") ? atoi(getenv("G16_GPU_DEVICE")) : 0;
    ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 1;
    if (!selftest) {
        g16_status st = {0};
        /* MSM scratch for the largest case: synthetic circuits have about
         * 2^log wires; fixtures are small. */
        size_t maxp = (size_t)1 << (max_log > 16 ? max_log + 1 : 17);
        double t0 = g16_now_ms();
        if (g16_gpu_create(&gpu, device, maxp, 1, t_env_config(), &st)) {
            if (st.code == G16_ERR_NO_DEVICE) {
                printf("test_gpu_prove: skipped: %s\n", st.msg);
                g16_ctx_destroy(ctx);
                return 77;
            }
            fprintf(stderr, "test_gpu_prove: g16_gpu_create: %s\n", st.msg);
            g16_ctx_destroy(ctx);
            return 1;
        }
        printf("test_gpu_prove: %s, context for %zu points in %.0f ms\n", g16_gpu_name(gpu), maxp,
               g16_now_ms() - t0);
    } else {
        printf("test_gpu_prove: SELFTEST: the CPU heavy stage stands in for the GPU's\n");
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/g16_gpuprove_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }

    static const int logs[] = {8, 10, 12, 16, 20};
    static const g16_curve curves[] = {G16_CURVE_BN254, G16_CURVE_BLS12_381};
    static const char *curve_key[] = {"bn254", "bls12-381"};
    for (int ci = 0; ci < 2; ci++) {
        if (!listed("G16_GPU_TEST_CURVES", "bn254,bls12-381", curve_key[ci]))
            continue;
        for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
            if (logs[li] > max_log)
                continue;
            for (int p = 0; p < 3 && !device_dead; p++) {
                if (!listed("G16_GPU_TEST_PROFILES", "dense,filecoin,sparse-b", prof_name[p]))
                    continue;
                kit k;
                double t0 = g16_now_ms();
                /* The case's seed depends on the run's seed and the case only, so
                 * that a failing case replays under G16_GPU_TEST_CURVES/PROFILES/
                 * MAX_LOG filters. */
                uint64_t kseed = seed * 0x9e3779b97f4a7c15ull + (uint64_t)(ci * 100 + logs[li] * 10 + p);
                if (!make_kit(&k, curves[ci], logs[li], (synth_profile)p, kseed))
                    continue;
                printf("  %-44s set up in %.0f ms\n", k.name, g16_now_ms() - t0);
                /* The smallest size also runs from pageable memory, and
                 * every size up to 2^12 also with streamed bases. */
                unsigned flags = logs[li] == 8 && p == 0 ? 0 : GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY;
                test_kit(&k, logs[li] <= 12, flags);
                kit_free(&k);
            }
        }
        if (max_log >= 10 && !device_dead)
            test_faults(curves[ci], seed * 0x9e3779b97f4a7c15ull + 7777 + (uint64_t)ci);
        if (max_log >= 12 && !device_dead)
            test_chunked(curves[ci], device, seed * 0x9e3779b97f4a7c15ull + 8888 + (uint64_t)ci);
    }
    if (!device_dead)
        test_fixture_dir("examples", 0); /* the repository's own snarkjs keys (poseidon, both curves) */
    const char *fx = getenv("G16_GPU_TEST_FIXTURES");
    if (fx && *fx && !device_dead)
        test_fixture_dir(fx, 0);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    g16_gpu_destroy(gpu);
    g16_ctx_destroy(ctx);
    return t_done("test_gpu_prove");
}
