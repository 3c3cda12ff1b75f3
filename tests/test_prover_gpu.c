/* The device prover on a GPU (src/groth16/prover.h); skipped (77) without one.
 * Over synthetic 2^12 circuits of both curves, two in-memory keys of one
 * shape (other seeds):
 *   - cuda and cpu provers with the same fixed r, s give the same proof.json
 *     bytes, and the cuda one says backend cuda;
 *   - a device key of the other key lent to an auto prover (a borrowed
 *     context, so the domain threshold does not apply): the GPU stage
 *     refuses it, the proof is redone on the CPU, it verifies, and the
 *     report says so (backend cpu, a note naming the GPU stage failure);
 *     the same under cuda is an error and no result;
 *   - auto with its own context on this small domain proves on the CPU and
 *     says the domain is below G16_PROVE_AUTO_GPU_MIN_DOMAIN;
 *   - g16_prove with backend cuda proves and verifies.
 * env: G16_GPU_DEVICE (default 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_testing.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/synth.h"
#include "testutil.h"

static g16_err mem_key(g16_ctx *ctx, const g16_r1cs *cs, uint64_t seed, g16_key **key, g16_status *st) {
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU, .align = 1};
    void *mem = NULL;
    size_t len = 0;
    g16_err e = groth16_setup_insecure_ex(ctx, cs, &o, NULL, &mem, &len, NULL, st);
    if (!e && (e = groth16_key_load_mem(ctx, key, "mem", mem, len, G16_KEY_TRUSTED, st)) != G16_OK)
        groth16_setup_mem_free(mem, len);
    if (!e)
        groth16_key_adopt_mem(*key, mem, len);
    return e;
}

static char *proof_text(g16_ctx *ctx, const g16_result *res) {
    char *p = NULL;
    return res && g16_result_json(ctx, &p, NULL, res) == G16_OK ? p : NULL;
}

static void run(g16_ctx *ctx, g16_curve curve, int device, uint64_t seed) {
    const char *cn = g16_curve_name(curve);
    synth_opts so = {.curve = curve, .log_n = 12, .profile = SYNTH_DENSE, .partitions = 1, .seed = seed};
    g16_status st = {0};
    g16_r1cs cs = {0};
    g16_frvec wv = {0};
    g16_key *key = NULL, *key2 = NULL;
    g16_witness *w = NULL;
    if (synth_generate_mem(&so, &cs, &wv, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "%s: synth: %s", cn, st.msg);
        return;
    }
    CHECK_MSG(mem_key(ctx, &cs, seed, &key, &st) == G16_OK, "%s: key: %s", cn, st.msg);
    CHECK_MSG(mem_key(ctx, &cs, seed + 1, &key2, &st) == G16_OK, "%s: key 2: %s", cn, st.msg);
    g16_r1cs_free(&cs);
    CHECK(groth16_witness_from_frvec(&w, &wv, &st) == G16_OK);
    if (!key || !key2 || !w)
        goto out;
    uint8_t r[32] = {7, 1}, s[32] = {9, 2};

    /* cpu vs cuda, same r, s */
    groth16_prover_opts o;
    groth16_prover *pc = NULL, *pg = NULL;
    groth16_prove_report rep;
    g16_result *rc = NULL, *rg = NULL;
    groth16_prover_opts_init(&o);
    o.backend = G16_BACKEND_CPU;
    CHECK_MSG(groth16_prover_create(ctx, &pc, key, &o, &st) == G16_OK, "%s: cpu prover: %s", cn, st.msg);
    o.backend = G16_BACKEND_CUDA;
    o.device = device;
    CHECK_MSG(groth16_prover_create(ctx, &pg, key, &o, &st) == G16_OK, "%s: cuda prover: %s", cn, st.msg);
    if (pc)
        CHECK_MSG(groth16_prover_prove(pc, &rc, w, NULL, r, s, &rep, &st) == G16_OK, "%s: cpu: %s", cn, st.msg);
    if (pg) {
        CHECK_MSG(groth16_prover_prove(pg, &rg, w, NULL, r, s, &rep, &st) == G16_OK, "%s: cuda: %s", cn, st.msg);
        CHECK(rep.backend == G16_BACKEND_CUDA && rep.gtm.gpu_ms > 0);
        /* Nothing witness-derived stays on the device: the working area
         * (a, b, c, h, w) and the MSM scratch (digits, bucket sums) are
         * zero after the proof. */
        size_t nz = 1, nzw = 1;
        g16_gpu *g = groth16_prover_gpu(pg);
        CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK);
        CHECK(groth16_gpu_work_test_nonzero(g, groth16_prover_gpu_work(pg), &nzw, &st) == G16_OK);
        CHECK_MSG(nz == 0 && nzw == 0, "%s: %zu scratch and %zu working-area bytes nonzero after a proof", cn, nz,
                  nzw);
        /* The check sees an MSM's leftovers (it can fail): an MSM alone
         * leaves them, g16_gpu_scratch_wipe clears them. */
        const g16_zkey *zk = groth16_key_zkey(key);
        size_t nb = zk->domainSize;
        void *pts = zk->curve == G16_CURVE_BN254 ? (void *)zk->bn254.H : (void *)zk->bls381.H;
        g16_gpu_bases *gb = NULL;
        g16_scalar *ks = calloc(nb, sizeof *ks);
        uint64_t jac[3 * 12] = {0};
        CHECK(ks && g16_gpu_bases_upload(g, &gb, zk->curve, G16_GPU_G1, pts, nb, &st) == G16_OK);
        for (size_t i = 0; ks && i < nb; i++)
            ks[i].l[0] = 1000003u * (i + 1), ks[i].l[1] = i;
        if (gb && ks) {
            CHECK(g16_gpu_msm(g, jac, gb, ks, nb, NULL, &st) == G16_OK);
            CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK && nz > 0);
            CHECK(g16_gpu_scratch_wipe(g, &st) == G16_OK);
            CHECK(g16_gpu_test_scratch_nonzero(g, &nz, &st) == G16_OK && nz == 0);
        }
        g16_gpu_bases_free(g, gb);
        free(ks);
    }
    char *tc = proof_text(ctx, rc), *tg = proof_text(ctx, rg);
    CHECK_MSG(tc && tg && !strcmp(tc, tg), "%s: cpu and cuda proofs differ", cn);
    g16_free(tc);
    g16_free(tg);
    g16_result_free(rc);
    g16_result_free(rg);
    rc = rg = NULL;

    /* auto over a borrowed context and the other key's device copy */
    if (pg) {
        g16_gpu *g = groth16_prover_gpu(pg);
        groth16_gpu_key *gk2 = NULL;
        CHECK_MSG(groth16_gpu_key_upload(g, &gk2, key2, &st) == G16_OK, "%s: upload key 2: %s", cn, st.msg);
        if (gk2) {
            groth16_prover *pa = NULL;
            groth16_prover_opts_init(&o);
            o.backend = G16_BACKEND_AUTO;
            o.gpu = g;
            o.gpu_key = gk2;
            CHECK_MSG(groth16_prover_create(ctx, &pa, key, &o, &st) == G16_OK, "%s: auto prover: %s", cn, st.msg);
            if (pa) {
                groth16_prover_info pi;
                groth16_prover_get_info(pa, &pi);
                CHECK(pi.backend == G16_BACKEND_CUDA);
                CHECK_MSG(groth16_prover_prove(pa, &rc, w, NULL, NULL, NULL, &rep, &st) == G16_OK,
                          "%s: auto after a GPU stage failure: %s", cn, st.msg);
                CHECK_MSG(rep.backend == G16_BACKEND_CPU && strstr(rep.note, "the GPU stage failed"),
                          "%s: backend %d, note '%s'", cn, (int)rep.backend, rep.note);
                CHECK(rc && groth16_result_verify(key, rc, &st) == G16_OK);
                g16_result_free(rc);
                rc = NULL;
                groth16_prover_get_info(pa, &pi);
                CHECK(pi.backend == G16_BACKEND_CPU); /* it stays on the CPU */
                groth16_prover_free(pa);
                pa = NULL;
            }
            o.backend = G16_BACKEND_CUDA;
            CHECK(groth16_prover_create(ctx, &pa, key, &o, &st) == G16_OK);
            if (pa)
                CHECK(groth16_prover_prove(pa, &rc, w, NULL, NULL, NULL, &rep, &st) != G16_OK && rc == NULL);
            groth16_prover_free(pa);
            groth16_gpu_key_free(g, gk2);
        }
    }

    /* auto with its own context on a small domain: the CPU, and why */
    groth16_prover *ps = NULL;
    groth16_prover_opts_init(&o);
    CHECK(groth16_prover_create(ctx, &ps, key, &o, &st) == G16_OK);
    if (ps) {
        groth16_prover_info pi;
        groth16_prover_get_info(ps, &pi);
        CHECK_MSG(pi.backend == G16_BACKEND_CPU && strstr(pi.note, "G16_PROVE_AUTO_GPU_MIN_DOMAIN"),
                  "%s: note '%s'", cn, pi.note);
    }
    groth16_prover_free(ps);

    /* the public call */
    g16_prove_opts po;
    g16_prove_opts_init(&po);
    po.backend = G16_BACKEND_CUDA;
    po.device = device;
    g16_prove_stats pst;
    CHECK(g16_prove(ctx, &rc, key, w, &po, &pst) == G16_OK && pst.backend == G16_BACKEND_CUDA);
    CHECK(rc && groth16_result_verify(key, rc, &st) == G16_OK);
    g16_result_free(rc);
    groth16_prover_free(pc);
    groth16_prover_free(pg);
out:
    g16_witness_free(w);
    g16_key_free(key);
    g16_key_free(key2);
}

int main(void) {
    uint64_t seed = t_seed("test_prover_gpu");
    if (g16_gpu_count() <= 0) {
        printf("test_prover_gpu: skipped (no GPU)\n");
        return 77;
    }
    int device = getenv("G16_GPU_DEVICE") ? atoi(getenv("G16_GPU_DEVICE")) : 0;
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    run(ctx, G16_CURVE_BN254, device, seed);
    run(ctx, G16_CURVE_BLS12_381, device, seed);
    g16_ctx_destroy(ctx);
    return t_done("test_prover_gpu");
}
