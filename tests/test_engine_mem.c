/* The engine with in-memory keys (engine_key_add_loaded, CPU backend) and
 * borrowed witness bytes (ENGINE_SUBMIT_BORROW); the in-memory witness
 * generator and .wtns encoder behind `g16 bench engine --log-n N`.
 *
 * Oracles: the same synthetic circuit written to files by synth_generate
 * (its .wtns files must equal the encoded in-memory witnesses byte for
 * byte) and set up into a file with the same seed (its exported vk verifies
 * the in-memory key's proofs through g16_verify_json); a witness with a
 * changed value must fail. Budget pressure from a second (file) key evicts
 * that key, never the in-memory one; explicit eviction of the in-memory
 * key is refused; removing it / destroying the engine frees it (ASan). A
 * worker that cannot hold the key hands its partitions to another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"
#include "util/util.h"

#define NW 3

static char tmpdir[64];

typedef struct mem_circuit {
    g16_curve curve;
    int log_n;
    uint64_t seed;
    void *mem;
    size_t len;
    g16_key *key;           /* over mem (not yet adopted) */
    void *wt[NW];           /* .wtns bytes of partitions 0 .. NW-1 */
    size_t wl[NW];
    char *vk_json;          /* from the same circuit set up into a file */
    char zkey[160];         /* that file */
} mem_circuit;

static void free_cs(void *cs) { g16_r1cs_free(cs); }

/* The in-memory circuit, key and witnesses, and the file-made oracle. */
static int make_mem(g16_ctx *ctx, mem_circuit *c, const char *name, g16_curve curve, int log_n, uint64_t seed,
                    unsigned load_flags) {
    memset(c, 0, sizeof *c);
    c->curve = curve, c->log_n = log_n, c->seed = seed;
    g16_status st = {0};
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = SYNTH_FILECOIN, .partitions = 1, .seed = seed};
    g16_r1cs cs = {0};
    g16_frvec w0 = {0}, wv[NW - 1];
    synth_stats ss;
    CHECK_MSG(synth_generate_mem(&so, &cs, &w0, &ss, &st) == G16_OK, "%s", st.msg);
    groth16_setup_opts sopt = {.seed = seed, .backend = GROTH16_SETUP_CPU, .align = 1, .cs_done = free_cs,
                               .cs_done_user = &cs};
    CHECK_MSG(groth16_setup_insecure_ex(ctx, &cs, &sopt, NULL, &c->mem, &c->len, NULL, &st) == G16_OK, "%s", st.msg);
    g16_r1cs_free(&cs);
    CHECK_MSG(groth16_key_load_mem(ctx, &c->key, name, c->mem, c->len, G16_KEY_TRUSTED | load_flags, &st) == G16_OK,
              "%s", st.msg);
    CHECK(g16_wtns_encode(&c->wt[0], &c->wl[0], &w0, &st) == G16_OK);
    g16_frvec_free(&w0);
    /* In parallel (the context's pool) for the 2^10 key, in one pass for
     * the others: both must give the files' values (below). */
    CHECK_MSG(synth_generate_witnesses(&so, 1, NW - 1, wv, log_n == 10 ? ctx->pool : NULL, &st) == G16_OK, "%s",
              st.msg);
    for (int i = 1; i < NW; i++) {
        CHECK(wv[i - 1].n == ss.n_wires);
        CHECK(g16_wtns_encode(&c->wt[i], &c->wl[i], &wv[i - 1], &st) == G16_OK);
        g16_frvec_free(&wv[i - 1]);
    }
    /* Oracle: the same circuit as files (NW partitions), set up with the
     * same seed into a file. */
    char r1cs[160], stem[160], vk[160];
    snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", tmpdir, name);
    snprintf(stem, sizeof stem, "%s/%s.wtns", tmpdir, name);
    snprintf(c->zkey, sizeof c->zkey, "%s/%s.zkey", tmpdir, name);
    snprintf(vk, sizeof vk, "%s/%s.vk.json", tmpdir, name);
    synth_opts fo = {curve, log_n, SYNTH_FILECOIN, NW, seed, r1cs, stem, NULL, NULL};
    CHECK_MSG(synth_generate(&fo, NULL, &st) == G16_OK, "%s", st.msg);
    for (int i = 0; i < NW; i++) {
        char path[200];
        size_t fl = 0;
        synth_wtns_path(path, sizeof path, stem, NW, i);
        void *fb = t_read_file(path, &fl);
        CHECK_MSG(fb && fl == c->wl[i] && c->wt[i] && !memcmp(fb, c->wt[i], fl),
                  "%s witness %d: in-memory bytes differ from the file (%zu vs %zu bytes)", name, i, c->wl[i], fl);
        free(fb);
    }
    g16_r1cs fcs;
    CHECK(g16_r1cs_read(&fcs, r1cs, &st) == G16_OK);
    CHECK_MSG(groth16_setup_insecure(ctx, &fcs, c->zkey, seed, &st) == G16_OK, "%s", st.msg);
    g16_r1cs_free(&fcs);
    g16_key *fk = NULL;
    CHECK(g16_key_load(ctx, &fk, c->zkey, 0) == G16_OK && g16_key_export_vk(ctx, fk, vk) == G16_OK);
    g16_key_free(fk);
    size_t l;
    c->vk_json = t_read_file(vk, &l);
    return c->key && c->vk_json && c->wt[NW - 1];
}

static void free_mem(mem_circuit *c) {
    g16_key_free(c->key);
    groth16_setup_mem_free(c->mem, c->len);
    for (int i = 0; i < NW; i++)
        free(c->wt[i]);
    free(c->vk_json);
}

/* Hands c's key to the engine (with its image); c no longer owns it. */
static g16_err add_loaded(g16_engine *e, uint64_t *id, mem_circuit *c, const char *name) {
    groth16_key_adopt_mem(c->key, c->mem, c->len);
    g16_key *k = c->key;
    c->key = NULL, c->mem = NULL, c->len = 0;
    return engine_key_add_loaded(e, id, k, name);
}

static g16_job_state job_state(g16_engine *e, uint64_t job, char *msg, size_t len) {
    g16_engine_job_info ji;
    if (g16_engine_job_get_info(e, &ji, job) != G16_OK)
        return G16_JOB_FAILED;
    if (msg)
        snprintf(msg, len, "%s", ji.msg);
    return ji.state;
}

/* Submits NW partitions (borrowed or copied), waits, checks each proof
 * against the file-made vk. */
/* A one-partition job over borrowed witness bytes must fail, its message
 * containing needle. */
static void expect_failed_job(g16_engine *e, uint64_t key, const void *data, size_t len, const char *needle,
                              const char *what) {
    g16_engine_witness w = {.data = data, .len = len};
    uint64_t job = 0;
    CHECK(engine_submit_ex(e, &job, key, &w, 1, G16_PRIORITY_NORMAL, 0, ENGINE_SUBMIT_BORROW) == G16_OK);
    CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
    char msg[300] = "";
    CHECK(job_state(e, job, msg, sizeof msg) == G16_JOB_FAILED);
    CHECK_MSG(strstr(msg, needle) != NULL, "%s: %s", what, msg);
    CHECK(g16_engine_job_release(e, job) == G16_OK);
}

static void prove_all(g16_ctx *ctx, g16_engine *e, uint64_t key, const mem_circuit *c, unsigned flags) {
    g16_engine_witness w[NW];
    for (int i = 0; i < NW; i++)
        w[i] = (g16_engine_witness){.data = c->wt[i], .len = c->wl[i]};
    uint64_t job = 0;
    CHECK(engine_submit_ex(e, &job, key, w, NW, G16_PRIORITY_NORMAL, 0, flags) == G16_OK);
    CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
    char msg[300] = "";
    CHECK_MSG(job_state(e, job, msg, sizeof msg) == G16_JOB_DONE, "job: %s", msg);
    for (uint32_t p = 0; p < NW; p++) {
        char *proof = NULL, *pub = NULL;
        CHECK(g16_engine_partition_result(e, &proof, &pub, NULL, job, p) == G16_OK);
        CHECK_MSG(proof && pub && g16_verify_json(ctx, c->vk_json, pub, proof) == G16_OK,
                  "2^%d partition %u does not verify against the file key's vk", c->log_n, p);
        g16_free(proof);
        g16_free(pub);
    }
    CHECK(g16_engine_job_release(e, job) == G16_OK);
    /* Borrowed bytes are neither wiped nor freed: the caller's are intact. */
    for (int i = 0; i < NW; i++)
        CHECK(c->wl[i] > 76 && !memcmp(c->wt[i], "wtns", 4));
}

/* Proofs, for both witness modes, of keys at 2^8 (BN254, rows built at
 * load) and 2^10 (BLS12-381, GROTH16_KEY_DEFER_PREP: the engine prepares). */
static void test_prove(g16_ctx *ctx, uint64_t seed) {
    mem_circuit a, b;
    CHECK(make_mem(ctx, &a, "m8", G16_CURVE_BN254, 8, seed, 0));
    CHECK(make_mem(ctx, &b, "m10", G16_CURVE_BLS12_381, 10, seed + 1, GROTH16_KEY_DEFER_PREP));
    g16_engine_opts eo = {.workers = 2, .backend = G16_ENGINE_BACKEND_CPU};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &eo) == G16_OK);
    uint64_t ka = 0, kb = 0;
    CHECK(add_loaded(e, &ka, &a, "m8") == G16_OK && ka);
    CHECK(add_loaded(e, &kb, &b, "m10") == G16_OK && kb && kb != ka);
    g16_engine_key_info ki;
    CHECK(g16_engine_key_get_info(e, &ki, kb) == G16_OK && ki.tier == G16_TIER_HOST && ki.bytes > 0);
    char *js = NULL;
    CHECK(g16_engine_status_json(e, &js) == G16_OK && js && strstr(js, "\"path\":\"m10\",\"tier\":\"host\"") &&
          strstr(js, "\"in_memory\":true"));
    g16_free(js);
    prove_all(ctx, e, ka, &a, ENGINE_SUBMIT_BORROW);
    prove_all(ctx, e, kb, &b, 0);
    prove_all(ctx, e, kb, &b, ENGINE_SUBMIT_BORROW);
    /* A changed witness value must not give a proof. */
    unsigned char *bad = malloc(b.wl[1]);
    CHECK(bad != NULL);
    if (bad) {
        memcpy(bad, b.wt[1], b.wl[1]);
        bad[b.wl[1] - 40] ^= 1; /* bit 192 of the second-to-last wire */
        expect_failed_job(e, kb, bad, b.wl[1], "does not verify", "changed witness");
        free(bad);
    }
    /* Explicit eviction is refused; the key still proves. */
    CHECK(g16_engine_key_evict(e, ka) == G16_ERR_INVALID_ARG);
    char msg[256];
    g16_ctx_last_error(ctx, msg, sizeof msg);
    CHECK_MSG(strstr(msg, "held in memory") != NULL, "%s", msg);
    prove_all(ctx, e, ka, &a, ENGINE_SUBMIT_BORROW);
    /* A file key of the same name is a different key. */
    uint64_t kf = 0;
    CHECK(g16_engine_key_add(e, &kf, a.zkey, 0, G16_TIER_MMAP) == G16_OK && kf != ka);
    /* Removing the in-memory key frees it (ASan: nothing leaks); its id is
     * gone. */
    CHECK(g16_engine_key_remove(e, ka) == G16_OK);
    CHECK(g16_engine_key_get_info(e, &ki, ka) == G16_ERR_INVALID_ARG);
    /* kb stays until the engine is destroyed (which frees it). */
    g16_engine_destroy(e, 1);
    free_mem(&a);
    free_mem(&b);
}

/* Budget pressure: room for the in-memory key and one other key with one
 * working set, not both keys' working sets cached. The file key is evicted
 * (it reloads), the in-memory key never is. */
static void test_budget(g16_ctx *ctx, uint64_t seed) {
    mem_circuit a, f;
    CHECK(make_mem(ctx, &a, "b9", G16_CURVE_BN254, 9, seed + 2, 0));
    CHECK(make_mem(ctx, &f, "f9", G16_CURVE_BN254, 9, seed + 3, 0)); /* its file key f.zkey is used */
    /* Sizes: an engine without a limit tells the bytes of each part. */
    g16_engine_opts eo = {.workers = 1, .backend = G16_ENGINE_BACKEND_CPU};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &eo) == G16_OK);
    uint64_t kf = 0;
    g16_engine_key_info fi;
    CHECK(g16_engine_key_add(e, &kf, f.zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_get_info(e, &fi, kf) == G16_OK);
    g16_engine_destroy(e, 1);
    groth16_key_mem am;
    groth16_key_memory(a.key, &am);
    uint64_t a_bytes = am.heap_bytes + a.len; /* as the engine will count it once adopted */
    FILE *zf = fopen(f.zkey, "rb");
    CHECK(zf && fseek(zf, 0, SEEK_END) == 0);
    uint64_t fsize = zf ? (uint64_t)ftell(zf) : 0;
    if (zf)
        fclose(zf);
    /* The file key's load reserves 2 x file + 4 KiB first; one working set
     * is a working area plus a parsed witness. */
    uint64_t ws = fi.work_bytes + (1u << 9) * 32 + 64;
    eo.budget_bytes = a_bytes + 2 * fsize + 4096 + ws + ws / 2;
    e = NULL;
    CHECK(g16_engine_create(ctx, &e, &eo) == G16_OK);
    uint64_t ka = 0;
    CHECK(add_loaded(e, &ka, &a, "b9") == G16_OK);
    CHECK(g16_engine_key_add(e, &kf, f.zkey, 0, G16_TIER_MMAP) == G16_OK);
    for (int round = 0; round < 3; round++) {
        prove_all(ctx, e, kf, &f, ENGINE_SUBMIT_BORROW);
        prove_all(ctx, e, ka, &a, ENGINE_SUBMIT_BORROW);
    }
    g16_engine_key_info ki;
    CHECK(g16_engine_key_get_info(e, &ki, ka) == G16_OK);
    CHECK_MSG(ki.evictions == 0 && ki.loads == 1 && ki.tier == G16_TIER_HOST, "in-memory key: %u evictions, %u loads",
              ki.evictions, ki.loads);
    CHECK(g16_engine_key_get_info(e, &fi, kf) == G16_OK);
    CHECK_MSG(fi.evictions >= 1, "the file key was never evicted: no budget pressure (%u loads)", fi.loads);
    g16_engine_budget bud;
    CHECK(g16_engine_get_budget(e, &bud) == G16_OK && bud.peak <= bud.limit);
    /* A budget that cannot hold it: NOMEM, and the key is freed (ASan). */
    mem_circuit c;
    CHECK(make_mem(ctx, &c, "c8", G16_CURVE_BN254, 8, seed + 4, 0));
    g16_engine_opts small = {.workers = 1, .backend = G16_ENGINE_BACKEND_CPU, .budget_bytes = 4096};
    g16_engine *e2 = NULL;
    CHECK(g16_engine_create(ctx, &e2, &small) == G16_OK);
    uint64_t kc = 7;
    CHECK(add_loaded(e2, &kc, &c, "c8") == G16_ERR_NOMEM && kc == 0);
    char *js = NULL;
    CHECK(g16_engine_status_json(e2, &js) == G16_OK && js && strstr(js, "\"keys\":[]"));
    g16_free(js);
    g16_engine_destroy(e2, 0);
    g16_engine_destroy(e, 1);
    free_mem(&a);
    free_mem(&f);
    free_mem(&c);
}

/* A worker that cannot hold an in-memory key's partitions (the CUDA
 * backend's retry_elsewhere, simulated by engine_test_refuse_workers)
 * hands them to another worker and retires; when none is left the
 * partition fails with the backend's message, and nothing leaks. */
static void test_retire(g16_ctx *ctx, uint64_t seed) {
    mem_circuit a;
    CHECK(make_mem(ctx, &a, "r8", G16_CURVE_BN254, 8, seed + 5, 0));
    g16_engine_opts eo = {.workers = 2, .backend = G16_ENGINE_BACKEND_CPU};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &eo) == G16_OK);
    uint64_t ka = 0;
    CHECK(add_loaded(e, &ka, &a, "r8") == G16_OK);
    engine_test_refuse_workers(e, 1u); /* worker 0 */
    /* Both workers get a partition: released together with 2 ready. */
    engine_hold_workers(e, 1);
    g16_engine_witness w2[2] = {{.data = a.wt[0], .len = a.wl[0]}, {.data = a.wt[1], .len = a.wl[1]}};
    uint64_t j2 = 0;
    CHECK(engine_submit_ex(e, &j2, ka, w2, 2, G16_PRIORITY_NORMAL, 0, ENGINE_SUBMIT_BORROW) == G16_OK);
    for (double end = g16_now_ms() + 30000; g16_now_ms() < end;) {
        char *s = NULL;
        const char *r = g16_engine_status_json(e, &s) == G16_OK ? strstr(s, "\"ready\":") : NULL;
        int ready = r ? atoi(r + 8) : -1;
        g16_free(s);
        if (ready >= 2)
            break;
        usleep(1000);
    }
    engine_hold_workers(e, 0);
    CHECK(g16_engine_wait(e, j2, 60000) == G16_OK);
    CHECK(job_state(e, j2, NULL, 0) == G16_JOB_DONE);
    CHECK(g16_engine_job_release(e, j2) == G16_OK);
    prove_all(ctx, e, ka, &a, ENGINE_SUBMIT_BORROW);
    prove_all(ctx, e, ka, &a, 0);
    char *js = NULL;
    CHECK(g16_engine_status_json(e, &js) == G16_OK && js);
    CHECK_MSG(js && strstr(js, "{\"id\":0,\"device\":0,") && strstr(js, "\"retired\":true") &&
                  strstr(js, "\"retired\":false"),
              "workers: %s", js ? strstr(js, "\"workers\":") : "");
    g16_free(js);
    char *m = NULL;
    CHECK(g16_engine_metrics(e, &m) == G16_OK && m && strstr(m, "\ng16_workers_retired_total 1\n"));
    g16_free(m);
    /* Now the last worker refuses too: the partition fails, with why. */
    engine_test_refuse_workers(e, 3u);
    expect_failed_job(e, ka, a.wt[0], a.wl[0], "refuses the partition", "last worker");
    g16_engine_destroy(e, 1);
    free_mem(&a);
}

int main(void) {
    uint64_t seed = t_seed("test_engine_mem");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/g16_engine_mem_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    g16_ctx_opts co = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&co);
    double t = g16_now_ms();
    test_prove(ctx, seed);
    fprintf(stderr, "prove %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
    test_budget(ctx, seed);
    fprintf(stderr, "budget %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
    test_retire(ctx, seed);
    fprintf(stderr, "retire %.0f ms\n", g16_now_ms() - t);
    g16_ctx_destroy(ctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done("test_engine_mem");
}
