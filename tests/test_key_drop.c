/* Releasing a key's host memory (groth16_key_drop_host) and deferred
 * preparation (GROTH16_KEY_DEFER_PREP), on in-memory keys of the test setup:
 *  - a deferred key refuses groth16_stage_synth until prepared; g16_prove
 *    prepares it on first use and the proof verifies;
 *  - after the coefficient section is dropped (post-preparation), the pages
 *    read back as zeros (really released) and proofs still verify (the
 *    prover reads the prepared rows only);
 *  - after the bases are dropped, their pages are no longer resident
 *    (mincore), and the CPU prover refuses with
 *    G16_ERR_UNSUPPORTED and a message naming the cause, never a proof from
 *    zeroed pages; with a GPU, another upload and streamed bases refuse too,
 *    and the bench's order (upload, drop bases, prepare, drop coefficients,
 *    GPU proof) verifies;
 *  - coefficients dropped before preparation: prepare and g16_prove refuse;
 *  - bad flags are rejected. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"

#include "g16.h"

/* A fresh witness object holding a copy of v. */
static g16_witness *wit_copy(const g16_frvec *v) {
    g16_frvec c = *v;
    c.raw = malloc((size_t)v->n * 32);
    if (!c.raw)
        return NULL;
    memcpy(c.raw, v->raw, (size_t)v->n * 32);
    g16_witness *w = NULL;
    g16_status st = {0};
    if (groth16_witness_from_frvec(&w, &c, &st) != G16_OK)
        free(c.raw);
    return w;
}

/* g16_prove then verify; returns the prove error (message in msg). */
static g16_err prove_verify(g16_ctx *ctx, g16_key *key, const g16_frvec *wv, char *msg, size_t len) {
    g16_witness *w = wit_copy(wv);
    g16_result *res = NULL;
    g16_status st = {0};
    msg[0] = 0;
    g16_err e = w ? g16_prove(ctx, &res, key, w, NULL, NULL) : G16_ERR_NOMEM;
    if (e)
        g16_ctx_last_error(ctx, msg, len);
    else if ((e = groth16_result_verify(key, res, &st)) != G16_OK)
        snprintf(msg, len, "verify: %.200s", st.msg);
    g16_result_free(res);
    g16_witness_free(w);
    return e;
}

/* 1 if every whole page inside [p, p + len) reads zero and there is one. */
static int pages_zero(const uint8_t *p, size_t len) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1), hi = ((uintptr_t)p + len) & ~(uintptr_t)(pg - 1);
    if (hi <= lo)
        return 0;
    for (const uint8_t *q = (const uint8_t *)lo; q < (const uint8_t *)hi; q++)
        if (*q)
            return 0;
    return 1;
}

/* Resident pages among the whole pages inside [p, p + len) (mincore), and
 * their count in *total; -1 where mincore fails. */
static long resident_pages(const void *p, size_t len, long *total) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(uintptr_t)(pg - 1), hi = ((uintptr_t)p + len) & ~(uintptr_t)(pg - 1);
    *total = 0;
    if (hi <= lo)
        return 0;
    size_t np = (hi - lo) / pg;
    unsigned char *v = malloc(np);
    long r = -1;
    if (v && mincore((void *)lo, hi - lo, v) == 0) {
        r = 0;
        for (size_t i = 0; i < np; i++)
            r += v[i] & 1;
    }
    free(v);
    *total = (long)np;
    return r;
}

/* The GPU checks (a device present): refusals after a drop, and the bench's
 * order on a fresh key. */
static void gpu_checks(g16_ctx *ctx, g16_key *dropped, const void *img, size_t len, const g16_frvec *wv,
                       const char *cn) {
    g16_status st = {0};
    g16_gpu *g = NULL;
    const g16_zkey *zk = groth16_key_zkey(dropped);
    size_t maxp = zk->domainSize > zk->nVars ? zk->domainSize : zk->nVars;
    if (g16_gpu_create(&g, 0, maxp, 1, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "%s: gpu create: %s", cn, st.msg);
        return;
    }
    groth16_gpu_key *gk = NULL;
    groth16_gpu_work *gw = NULL;
    groth16_work *work = NULL;
    g16_witness *w = wit_copy(wv);
    groth16_msms m;
    groth16_timings tm = {0};
    CHECK(groth16_gpu_key_upload(g, &gk, dropped, &st) == G16_ERR_UNSUPPORTED && gk == NULL);
    CHECK_MSG(strstr(st.msg, "released") != NULL, "%s: upload message: %s", cn, st.msg);
    CHECK(groth16_gpu_work_create(g, &gw, dropped, &st) == G16_OK);
    CHECK(groth16_work_create_ex(ctx, &work, dropped, GROTH16_WORK_PINNED | GROTH16_WORK_NO_CPU_HEAVY, &st) == G16_OK);
    if (gw && work && w) {
        CHECK_MSG(groth16_stage_synth(ctx, work, dropped, w, &tm, &st) == G16_OK, "%s: synth: %s", cn, st.msg);
        st.msg[0] = 0;
        CHECK(groth16_stage_heavy_gpu(ctx, g, gw, NULL, &m, work, dropped, &tm, NULL, &st) == G16_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(st.msg, "stream") != NULL, "%s: streamed message: %s", cn, st.msg);
        groth16_msms_clear(&m);
    }
    /* The bench's order on a fresh deferred key over its own image. */
    g16_key *key = NULL;
    size_t rel = 0;
    CHECK_MSG(groth16_key_load_mem(ctx, &key, "gpu", img, len, G16_KEY_TRUSTED | GROTH16_KEY_DEFER_PREP, &st) ==
                  G16_OK,
              "%s: load: %s", cn, st.msg);
    if (key && gw && work && w) {
        CHECK_MSG(groth16_gpu_key_upload(g, &gk, key, &st) == G16_OK, "%s: upload: %s", cn, st.msg);
        CHECK(groth16_key_drop_host(key, GROTH16_DROP_BASES, &rel, &st) == G16_OK && rel > 0);
        CHECK_MSG(groth16_key_prepare(key, &st) == G16_OK, "%s: prepare: %s", cn, st.msg);
        CHECK(groth16_key_drop_host(key, GROTH16_DROP_COEFS, &rel, &st) == G16_OK);
        g16_result *res = NULL;
        int ok = groth16_stage_synth(ctx, work, key, w, &tm, &st) == G16_OK &&
                 groth16_stage_heavy_gpu(ctx, g, gw, gk, &m, work, key, &tm, NULL, &st) == G16_OK &&
                 groth16_stage_finalize(ctx, &res, key, &m, NULL, NULL, &tm, &st) == G16_OK &&
                 groth16_result_verify(key, res, &st) == G16_OK;
        CHECK_MSG(ok, "%s: GPU proof after the drops: %s", cn, st.msg);
        g16_result_free(res);
    }
    g16_witness_free(w);
    groth16_work_free(work);
    groth16_gpu_work_free(g, gw);
    groth16_gpu_key_free(g, gk);
    g16_key_free(key);
    g16_gpu_destroy(g);
    printf("  %s: GPU refusals after a drop, bench order proof verifies\n", cn);
}

static void drop_test(g16_ctx *ctx, g16_curve curve, int log_n, uint64_t seed) {
    const char *cn = curve == G16_CURVE_BN254 ? "bn254" : "bls12-381";
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = SYNTH_DENSE, .partitions = 1, .seed = seed};
    g16_status st = {0};
    g16_r1cs cs = {0};
    g16_frvec wv = {0};
    void *img[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    char msg[256];
    g16_key *key = NULL, *key2 = NULL;
    if (synth_generate_mem(&so, &cs, &wv, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "synth mem: %s", st.msg);
        return;
    }
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU, .align = 1};
    for (int i = 0; i < 3; i++)
        if (groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &img[i], &len[i], NULL, &st) != G16_OK) {
            CHECK_MSG(0, "%s: setup: %s", cn, st.msg);
            goto out;
        }

    /* Deferred preparation: synth refuses, g16_prove prepares. */
    CHECK_MSG(groth16_key_load_mem(ctx, &key, "k", img[0], len[0], G16_KEY_TRUSTED | GROTH16_KEY_DEFER_PREP, &st) ==
                  G16_OK,
              "%s: load deferred: %s", cn, st.msg);
    if (!key)
        goto out;
    {
        groth16_work *work = NULL;
        groth16_timings tm = {0};
        g16_witness *w = wit_copy(&wv);
        CHECK(groth16_work_create(ctx, &work, key, &st) == G16_OK);
        if (work && w) {
            CHECK(groth16_stage_synth(ctx, work, key, w, &tm, &st) == G16_ERR_INTERNAL);
            CHECK_MSG(strstr(st.msg, "groth16_key_prepare") != NULL, "%s: message: %s", cn, st.msg);
        }
        groth16_work_free(work);
        g16_witness_free(w);
    }
    CHECK_MSG(prove_verify(ctx, key, &wv, msg, sizeof msg) == G16_OK, "%s: lazy prepare proof: %s", cn, msg);

    /* Coefficients dropped after preparation: released, proofs still verify. */
    const g16_zkey *zk = groth16_key_zkey(key);
    size_t rel = 0, clen = (size_t)zk->nCoef * G16_ZKEY_COEF_SIZE;
    CHECK(groth16_key_drop_host(key, GROTH16_DROP_COEFS, &rel, &st) == G16_OK);
    CHECK_MSG(rel > 0 && rel <= clen && pages_zero(zk->coefs, clen), "%s: coefficient pages not released (%zu)", cn,
              rel);
    CHECK(groth16_key_dropped(key) == GROTH16_DROP_COEFS);
    CHECK_MSG(prove_verify(ctx, key, &wv, msg, sizeof msg) == G16_OK, "%s: proof after dropping coefficients: %s", cn,
              msg);

    /* Bases dropped: the CPU prover refuses, clearly. */
    size_t g1 = (size_t)zk->n8q * 2, bases = (size_t)zk->nVars * g1 * 4 + (size_t)g16_zkey_nC(zk) * g1 +
                                             (size_t)zk->domainSize * g1;
    /* The pages of A really leave memory (mincore): all resident before
     * (the setup wrote them), none after. */
    long tot = 0, res0 = resident_pages(zk->raw[1], (size_t)zk->nVars * g1, &tot), res1;
    CHECK(groth16_key_drop_host(key, GROTH16_DROP_BASES, &rel, &st) == G16_OK);
    res1 = resident_pages(zk->raw[1], (size_t)zk->nVars * g1, &tot);
    CHECK_MSG(rel > bases / 2 && rel <= bases, "%s: released %zu of %zu base bytes", cn, rel, bases);
    CHECK_MSG(tot > 0 && res0 == tot && res1 == 0, "%s: A's %ld pages: %ld resident before the drop, %ld after", cn,
              tot, res0, res1);
    CHECK(pages_zero(zk->raw[1], (size_t)zk->nVars * g1) && pages_zero(zk->raw[5], (size_t)zk->domainSize * g1));
    CHECK(groth16_key_dropped(key) == (GROTH16_DROP_BASES | GROTH16_DROP_COEFS));
    CHECK(prove_verify(ctx, key, &wv, msg, sizeof msg) == G16_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(msg, "released") != NULL, "%s: CPU prove message: %s", cn, msg);
    if (g16_gpu_count() > 0)
        gpu_checks(ctx, key, img[2], len[2], &wv, cn);

    /* Coefficients dropped before preparation: refused. */
    CHECK(groth16_key_load_mem(ctx, &key2, "k2", img[1], len[1], G16_KEY_TRUSTED | GROTH16_KEY_DEFER_PREP, &st) ==
          G16_OK);
    if (key2) {
        CHECK(groth16_key_drop_host(key2, GROTH16_DROP_COEFS, NULL, &st) == G16_OK);
        CHECK(groth16_key_prepare(key2, &st) == G16_ERR_UNSUPPORTED);
        CHECK(prove_verify(ctx, key2, &wv, msg, sizeof msg) == G16_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(msg, "coefficients") != NULL, "%s: message: %s", cn, msg);
    }
    CHECK(groth16_key_drop_host(key2, 4, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(groth16_key_drop_host(NULL, GROTH16_DROP_BASES, NULL, &st) == G16_ERR_INVALID_ARG);
    CHECK(groth16_key_prepare(NULL, &st) == G16_ERR_INVALID_ARG);
    printf("  %s 2^%d: deferred prepare, coefficient and base drops behave\n", cn, log_n);
out:
    g16_key_free(key);
    g16_key_free(key2);
    for (int i = 0; i < 3; i++)
        groth16_setup_mem_free(img[i], len[i]);
    g16_r1cs_free(&cs);
    g16_frvec_free(&wv);
}

int main(void) {
    uint64_t seed = t_seed("test_key_drop");
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    if (ctx) {
        drop_test(ctx, G16_CURVE_BN254, 10, seed);
        drop_test(ctx, G16_CURVE_BLS12_381, 9, seed ^ 0x5555);
    }
    g16_ctx_destroy(ctx);
    return t_done("test_key_drop");
}
