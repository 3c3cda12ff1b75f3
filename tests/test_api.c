/* The public C API (include/g16.h only): load, peek, prove (single, batch
 * and deterministic), verify, JSON, and error reporting through the context.
 * Uses the bundled example keys in examples/poseidon. */
/* This test passes NULL where g16.h says G16_NONNULL, on purpose. */
#define G16_NO_NONNULL 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16.h"
#include "g16_testing.h"
#include "testutil.h"

static int cb_calls;
static g16_err cb_last;
static void on_error(g16_err err, const char *msg, void *user) {
    (void)msg;
    (void)user;
    cb_calls++;
    cb_last = err;
}

static void run_curve(const char *dir, uint64_t seed) {
    char zkey[256], wtns[256], vkp[256];
    snprintf(zkey, sizeof zkey, "examples/poseidon/%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "examples/poseidon/%s/witness.wtns", dir);
    snprintf(vkp, sizeof vkp, "examples/poseidon/%s/verification_key.json", dir);
    g16_ctx_opts o = {.threads = 2, .error_cb = on_error};
    g16_ctx *ctx = g16_ctx_create(&o);
    CHECK(ctx != NULL);
    g16_key *key = NULL;
    g16_witness *w = NULL;
    CHECK(g16_key_load(ctx, &key, zkey, G16_KEY_CHECK_SUBGROUP) == G16_OK);
    CHECK(g16_witness_load(ctx, &w, wtns) == G16_OK);
    if (!key || !w) {
        g16_key_free(key);
        g16_witness_free(w);
        g16_ctx_destroy(ctx);
        return;
    }
    g16_key_info info;
    CHECK(g16_key_get_info(ctx, &info, key) == G16_OK);
    CHECK(info.domain_size == 4096 && info.n_public == 2 && info.n_vars > 2000);
    CHECK(info.curve == (dir[1] == 'n' ? G16_CURVE_BN254 : G16_CURVE_BLS12_381));

    /* Deterministic mode: same r, s -> same bytes; different r -> different proof. */
    uint8_t r[32] = {0}, s[32] = {0};
    for (int i = 0; i < 8; i++) {
        r[i] = (uint8_t)(seed >> (8 * i));
        s[i] = (uint8_t)((seed * 31 + 7) >> (8 * i));
    }
    g16_result *d1 = NULL, *d2 = NULL, *d3 = NULL;
    CHECK(g16_prove_with_rs_insecure(ctx, &d1, key, w, r, s) == G16_OK);
    CHECK(g16_prove_with_rs_insecure(ctx, &d2, key, w, r, s) == G16_OK);
    r[0] ^= 1;
    CHECK(g16_prove_with_rs_insecure(ctx, &d3, key, w, r, s) == G16_OK);
    char *p1 = NULL, *p2 = NULL, *p3 = NULL, *pub = NULL;
    CHECK(g16_result_json(ctx, &p1, &pub, d1) == G16_OK);
    CHECK(g16_result_json(ctx, &p2, NULL, d2) == G16_OK);
    CHECK(g16_result_json(ctx, &p3, NULL, d3) == G16_OK);
    CHECK(p1 && p2 && p3 && strcmp(p1, p2) == 0 && strcmp(p1, p3) != 0);
    CHECK(g16_result_verify(ctx, key, d3) == G16_OK);

    /* r >= the group order is refused. */
    memset(r, 0xff, sizeof r);
    g16_result *bad = NULL;
    CHECK(g16_prove_with_rs_insecure(ctx, &bad, key, w, r, s) == G16_ERR_NOT_CANONICAL && bad == NULL);

    /* Batch of 3 with fresh randomness: all valid, all different. */
    const g16_witness *ws[3] = {w, w, w};
    g16_result *res[3] = {0};
    g16_prove_stats st[3];
    CHECK(g16_prove_batch(ctx, res, key, ws, 3, NULL, st) == G16_OK);
    char *vk_json = t_read_file(vkp, NULL);
    CHECK(vk_json != NULL);
    char *bj[3] = {0};
    for (int i = 0; i < 3; i++) {
        CHECK(res[i] && g16_result_verify(ctx, key, res[i]) == G16_OK);
        CHECK(g16_result_json(ctx, &bj[i], NULL, res[i]) == G16_OK);
        CHECK(st[i].total_ms > 0 && st[i].msm_ms > 0);
        if (vk_json && bj[i])
            CHECK(g16_verify_json(ctx, vk_json, pub, bj[i]) == G16_OK);
    }
    CHECK(bj[0] && bj[1] && strcmp(bj[0], bj[1]) != 0);

    /* A tampered public input is INVALID_PROOF, reported with a message. */
    if (pub && vk_json && p1) {
        char *tp = strdup(pub);
        char *q = strchr(tp, '"');
        if (q) {
            char *end = strchr(q + 1, '"'); /* change the last digit: stays below r */
            if (end)
                end[-1] = end[-1] == '0' ? '1' : '0';
            int before = cb_calls;
            CHECK(g16_verify_json(ctx, vk_json, tp, p1) == G16_ERR_INVALID_PROOF);
            CHECK(cb_calls == before + 1 && cb_last == G16_ERR_INVALID_PROOF);
            char msg[256];
            CHECK(g16_ctx_last_error(ctx, msg, sizeof msg) == G16_ERR_INVALID_PROOF && msg[0]);
        }
        free(tp);
        CHECK(g16_verify_json(ctx, vk_json, pub, "{\"pi_a\": [") == G16_ERR_FORMAT);
    }

    /* Bad arguments and files: errors, never crashes. */
    g16_key *k2 = NULL;
    CHECK(g16_key_load(ctx, &k2, "no/such/file.zkey", 0) == G16_ERR_IO && k2 == NULL);
    CHECK(g16_key_load(ctx, &k2, wtns, 0) == G16_ERR_FORMAT && k2 == NULL);
    CHECK(g16_key_load(ctx, NULL, zkey, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_prove(ctx, NULL, key, w, NULL, NULL) == G16_ERR_INVALID_ARG);

    for (int i = 0; i < 3; i++) {
        g16_result_free(res[i]);
        g16_free(bj[i]);
    }
    free(vk_json);
    g16_free(p1);
    g16_free(p2);
    g16_free(p3);
    g16_free(pub);
    g16_result_free(d1);
    g16_result_free(d2);
    g16_result_free(d3);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
}

static char *write_tmp(const void *data, size_t len) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/g16-test-api-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, data, len) == (ssize_t)len);
        close(fd);
    }
    return path;
}

/* g16_key_peek / g16_witness_peek(_bytes): the header facts match the
 * loaded key's, bad headers give typed errors (through the context). */
static void run_peek(const char *dir, g16_curve curve, uint64_t seed) {
    char zkey[256], wtns[256];
    snprintf(zkey, sizeof zkey, "examples/poseidon/%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "examples/poseidon/%s/witness.wtns", dir);
    g16_ctx_opts o = {.threads = 1, .error_cb = on_error};
    g16_ctx *ctx = g16_ctx_create(&o);
    CHECK(ctx != NULL);
    g16_key *key = NULL;
    g16_key_info info;
    g16_key_header kh;
    CHECK(g16_key_load(ctx, &key, zkey, 0) == G16_OK);
    CHECK(key && g16_key_get_info(ctx, &info, key) == G16_OK);
    CHECK(g16_key_peek(ctx, &kh, zkey) == G16_OK);
    CHECK(kh.curve == curve && kh.curve == info.curve && kh.n_vars == info.n_vars &&
          kh.n_public == info.n_public && kh.domain_size == info.domain_size);
    g16_witness_header wh, wb;
    CHECK(g16_witness_peek(ctx, &wh, wtns) == G16_OK && wh.curve == curve && wh.n_values == info.n_vars);
    size_t zlen = 0, wlen = 0;
    uint8_t *zb = (uint8_t *)t_read_file(zkey, &zlen), *wbytes = (uint8_t *)t_read_file(wtns, &wlen);
    CHECK(zb && wbytes && zlen > 200 && wlen > 100);
    if (!zb || !wbytes || zlen <= 200 || wlen <= 100)
        goto out;
    CHECK(g16_witness_peek_bytes(ctx, &wb, wbytes, wlen) == G16_OK && wb.curve == wh.curve &&
          wb.n_values == wh.n_values);
    g16_key_header kb;
    CHECK(g16_key_peek_bytes(ctx, &kb, zb, zlen) == G16_OK && kb.curve == kh.curve && kb.n_vars == kh.n_vars &&
          kb.n_public == kh.n_public && kb.domain_size == kh.domain_size);

    /* Truncated inputs: a prefix that ends inside a section is TRUNCATED;
     * one that ends between sections misses one (FORMAT). Never OK, never
     * a write to the output. */
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    for (int i = 0; i < 24; i++) {
        size_t zl = (size_t)(g16_rng_next(&rng) % zlen), wl = (size_t)(g16_rng_next(&rng) % wlen);
        if (i == 0)
            zl = 100, wl = 100; /* inside section 2's header */
        g16_key_header kh2 = {G16_CURVE_BN254, 7, 7, 7};
        g16_witness_header wh2 = {G16_CURVE_BN254, 7};
        cb_calls = 0;
        char *tp = write_tmp(zb, zl);
        g16_err ke = g16_key_peek(ctx, &kh2, tp);
        unlink(tp);
        CHECK_MSG(ke == G16_ERR_TRUNCATED || ke == G16_ERR_FORMAT, "key prefix %zu: %s", zl, g16_err_str(ke));
        CHECK(kh2.n_vars == 7 && cb_calls == 1 && cb_last == ke);
        g16_err kbe = g16_key_peek_bytes(ctx, &kh2, zb, zl);
        CHECK_MSG(kbe == ke, "key prefix %zu in memory: %s, from a file %s", zl, g16_err_str(kbe), g16_err_str(ke));
        CHECK(kh2.n_vars == 7);
        g16_err we = g16_witness_peek_bytes(ctx, &wh2, wbytes, wl);
        CHECK_MSG(we == G16_ERR_TRUNCATED || we == G16_ERR_FORMAT, "wtns prefix %zu: %s", wl, g16_err_str(we));
        CHECK(wh2.n_values == 7);
        if (i == 0)
            CHECK(ke == G16_ERR_TRUNCATED && we == G16_ERR_TRUNCATED);
    }

    /* Garbage, the other file type, another prime, missing files, NULLs. */
    uint8_t junk[256];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)g16_rng_next(&rng);
    char *tp = write_tmp(junk, sizeof junk);
    CHECK(g16_key_peek(ctx, &kh, tp) == G16_ERR_FORMAT);
    unlink(tp);
    CHECK(g16_witness_peek_bytes(ctx, &wh, junk, sizeof junk) == G16_ERR_FORMAT);
    CHECK(g16_key_peek_bytes(ctx, &kh, junk, sizeof junk) == G16_ERR_FORMAT);
    CHECK(g16_key_peek_bytes(ctx, &kh, wbytes, wlen) == G16_ERR_FORMAT);
    CHECK(g16_key_peek_bytes(ctx, &kh, NULL, 10) == G16_ERR_INVALID_ARG);
    CHECK(g16_key_peek(ctx, &kh, wtns) == G16_ERR_FORMAT);
    CHECK(g16_witness_peek(ctx, &wh, zkey) == G16_ERR_FORMAT);
    uint8_t *bad = malloc(wlen);
    if (bad) {
        memcpy(bad, wbytes, wlen);
        bad[24 + 4] ^= 2; /* the header's prime r */
        CHECK(g16_witness_peek_bytes(ctx, &wh, bad, wlen) == G16_ERR_WRONG_CURVE);
        char msg[512] = "";
        CHECK(g16_ctx_last_error(ctx, msg, sizeof msg) == G16_ERR_WRONG_CURVE && msg[0]);
        free(bad);
    }
    CHECK(g16_key_peek(ctx, &kh, "no/such/file.zkey") == G16_ERR_IO);
    CHECK(g16_witness_peek(ctx, &wh, "no/such/file.wtns") == G16_ERR_IO);
    CHECK(g16_key_peek(ctx, NULL, zkey) == G16_ERR_INVALID_ARG);
    CHECK(g16_key_peek(ctx, &kh, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_key_peek(NULL, &kh, zkey) == G16_ERR_INVALID_ARG);
    CHECK(g16_witness_peek(ctx, NULL, wtns) == G16_ERR_INVALID_ARG);
    CHECK(g16_witness_peek_bytes(ctx, &wh, NULL, 10) == G16_ERR_INVALID_ARG);
out:
    free(zb);
    free(wbytes);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
}

/* g16_key_load_mem: the bytes are copied (the caller's buffer may change or
 * go after the call), the key is the file's (same info, a proof that
 * verifies against the file's key), bad bytes give g16_key_load's errors. */
static void run_load_mem(const char *dir, uint64_t seed) {
    char zkey[256], wtns[256];
    snprintf(zkey, sizeof zkey, "examples/poseidon/%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "examples/poseidon/%s/witness.wtns", dir);
    g16_ctx_opts o = {.threads = 1, .error_cb = on_error};
    g16_ctx *ctx = g16_ctx_create(&o);
    CHECK(ctx != NULL);
    size_t zlen = 0;
    uint8_t *zb = (uint8_t *)t_read_file(zkey, &zlen);
    g16_key *fk = NULL, *mk = NULL, *bk = (g16_key *)1;
    g16_witness *w = NULL;
    g16_result *res = NULL;
    CHECK(zb && zlen > 200);
    if (!zb || zlen <= 200)
        goto out;
    CHECK(g16_key_load(ctx, &fk, zkey, 0) == G16_OK);
    CHECK(g16_key_load_mem(ctx, &mk, "poseidon.zkey", zb, zlen, 0) == G16_OK && mk);
    memset(zb, 0, zlen); /* the key holds its own copy */
    g16_key_info fi, mi;
    CHECK(g16_key_get_info(ctx, &fi, fk) == G16_OK && g16_key_get_info(ctx, &mi, mk) == G16_OK);
    CHECK(fi.curve == mi.curve && fi.n_vars == mi.n_vars && fi.n_public == mi.n_public &&
          fi.domain_size == mi.domain_size && fi.n_coefficients == mi.n_coefficients);
    CHECK(g16_witness_load(ctx, &w, wtns) == G16_OK);
    CHECK(g16_prove(ctx, &res, mk, w, NULL, NULL) == G16_OK);
    CHECK(res && g16_result_verify(ctx, fk, res) == G16_OK);
    g16_key_state ks;
    CHECK(g16_key_check(ctx, &ks, mk) == G16_OK && ks == G16_KEY_FILE_INTACT);
    /* bad bytes: a random prefix (TRUNCATED or FORMAT), garbage, a witness */
    free(zb);
    zb = (uint8_t *)t_read_file(zkey, &zlen);
    g16_rng rng;
    g16_rng_seed(&rng, seed ^ 0x6d656d);
    size_t cut = 1 + (size_t)(g16_rng_next(&rng) % (zlen - 1));
    g16_err e = g16_key_load_mem(ctx, &bk, NULL, zb, cut, 0);
    CHECK_MSG((e == G16_ERR_TRUNCATED || e == G16_ERR_FORMAT) && bk == NULL, "prefix %zu: %s", cut, g16_err_str(e));
    char msg[512] = "";
    CHECK(g16_ctx_last_error(ctx, msg, sizeof msg) == e && strstr(msg, "zkey"));
    bk = (g16_key *)1;
    CHECK(g16_key_load_mem(ctx, &bk, "x", zb, 64, 0) != G16_OK && bk == NULL);
    size_t wl = 0;
    uint8_t *wb = (uint8_t *)t_read_file(wtns, &wl);
    CHECK(wb && g16_key_load_mem(ctx, &bk, "w", wb, wl, 0) == G16_ERR_FORMAT);
    free(wb);
    zb[zlen / 2] ^= 0x40; /* inside the point sections: a point off the curve, or a bad coefficient */
    e = g16_key_load_mem(ctx, &bk, "flipped", zb, zlen, 0);
    CHECK_MSG(e != G16_OK, "a flipped bit at %zu loaded", zlen / 2);
    CHECK(g16_key_load_mem(ctx, NULL, "x", zb, zlen, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_key_load_mem(ctx, &bk, "x", NULL, zlen, 0) == G16_ERR_INVALID_ARG);
out:
    g16_result_free(res);
    g16_witness_free(w);
    g16_key_free(mk);
    g16_key_free(fk);
    free(zb);
    g16_ctx_destroy(ctx);
}

int main(void) {
    uint64_t seed = t_seed("test_api");
    run_load_mem("bn128", seed);
    run_load_mem("bls12381", seed);
    run_curve("bn128", seed);
    run_curve("bls12381", seed);
    run_peek("bn128", G16_CURVE_BN254, seed);
    run_peek("bls12381", G16_CURVE_BLS12_381, seed);
    /* The options structs' init functions give the documented defaults
     * (poisoned first, so that an init that skips a field shows). */
    {
        g16_ctx_opts co;
        memset(&co, 0xa5, sizeof co);
        g16_ctx_opts_init(&co);
        CHECK(co.threads == 0 && co.error_cb == NULL && co.error_cb_user == NULL);
        g16_ctx *c2 = g16_ctx_create(&co);
        CHECK(c2 != NULL);
        g16_engine_opts eo;
        memset(&eo, 0xa5, sizeof eo);
        g16_engine_opts_init(&eo);
        CHECK(eo.budget_bytes == 0 && eo.workers == 0 && eo.synth_threads == 0 && eo.lookahead == 0 &&
              eo.no_verify == 0 && eo.timeline_path == NULL && eo.backend == G16_ENGINE_BACKEND_AUTO &&
              eo.workers_per_device == 0 && eo.devices == 0 && eo.device_budget_bytes == 0 && eo.gpu_tables == 0);
        eo.backend = G16_ENGINE_BACKEND_CPU;
        g16_engine *e2 = NULL;
        CHECK(c2 && g16_engine_create(c2, &e2, &eo) == G16_OK && e2 != NULL);
        g16_engine_destroy(e2, 1);
        g16_ctx_destroy(c2);
    }
    /* Witness of one curve against the other's key: WRONG_CURVE. */
    g16_ctx *ctx = g16_ctx_create(NULL);
    g16_key *key = NULL;
    g16_witness *w = NULL;
    g16_result *res = NULL;
    CHECK(g16_key_load(ctx, &key, "examples/poseidon/bn128/circuit.zkey", 0) == G16_OK);
    CHECK(g16_witness_load(ctx, &w, "examples/poseidon/bls12381/witness.wtns") == G16_OK);
    if (key && w)
        CHECK(g16_prove(ctx, &res, key, w, NULL, NULL) == G16_ERR_WRONG_CURVE && res == NULL);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return t_done("test_api");
}
