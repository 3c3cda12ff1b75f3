/* The proving engine (CPU workers, forced: test_engine_gpu.c covers CUDA): scheduling order, concurrency, the byte
 * budget, cancellation, timeouts, faults, observability. Circuits are small
 * synthetic ones (g16 synth + insecure setup) made in a temp dir. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "gpu/gpu.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/util.h"

#define NW 4 /* witnesses per circuit */

typedef struct circuit {
    char zkey[128], vk[128], wtns[NW][160];
    char *vk_json;
    void *wbytes[NW];
    size_t wlen[NW];
} circuit;

/* Occurrences of needle in hay. */
static int count_str(const char *hay, const char *needle) {
    int n = 0;
    for (const char *q = hay; (q = strstr(q, needle)); q += strlen(needle))
        n++;
    return n;
}

static char tmpdir[64];

static int make_circuit(g16_ctx *ctx, circuit *c, const char *name, g16_curve curve, int log_n, uint64_t seed) {
    char r1cs[128], wstem[128];
    snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", tmpdir, name);
    snprintf(wstem, sizeof wstem, "%s/%s.wtns", tmpdir, name);
    snprintf(c->zkey, sizeof c->zkey, "%s/%s.zkey", tmpdir, name);
    snprintf(c->vk, sizeof c->vk, "%s/%s.vk.json", tmpdir, name);
    synth_opts so = {curve, log_n, SYNTH_FILECOIN, NW, seed, r1cs, wstem, NULL, NULL};
    g16_status st = {0};
    synth_stats ss;
    if (synth_generate(&so, &ss, &st)) {
        fprintf(stderr, "synth: %s\n", st.msg);
        return 0;
    }
    g16_r1cs cs;
    if (g16_r1cs_read(&cs, r1cs, &st) || groth16_setup_insecure(ctx, &cs, c->zkey, seed, &st)) {
        fprintf(stderr, "setup: %s\n", st.msg);
        return 0;
    }
    g16_r1cs_free(&cs);
    g16_key *k = NULL;
    if (g16_key_load(ctx, &k, c->zkey, 0) || g16_key_export_vk(ctx, k, c->vk))
        return 0;
    g16_key_free(k);
    for (int i = 0; i < NW; i++) {
        synth_wtns_path(c->wtns[i], sizeof c->wtns[i], wstem, NW, i);
        c->wbytes[i] = t_read_file(c->wtns[i], &c->wlen[i]);
        if (!c->wbytes[i])
            return 0;
    }
    size_t l;
    c->vk_json = t_read_file(c->vk, &l);
    return c->vk_json != NULL;
}

static void free_circuit(circuit *c) {
    for (int i = 0; i < NW; i++)
        free(c->wbytes[i]);
    free(c->vk_json);
}

/* Checks a proved partition independently (snarkjs JSON through the verifier). */
static int check_partition(g16_ctx *ctx, g16_engine *e, const circuit *c, uint64_t job, uint32_t part) {
    char *proof = NULL, *pub = NULL;
    g16_partition_stats ps;
    int ok = g16_engine_partition_result(e, &proof, &pub, &ps, job, part) == G16_OK &&
             g16_verify_json(ctx, c->vk_json, pub, proof) == G16_OK && ps.worker >= 0 && ps.synth_ms >= 0 &&
             ps.device_ms > 0;
    g16_free(proof);
    g16_free(pub);
    return ok;
}

static g16_job_state job_state(g16_engine *e, uint64_t job) {
    g16_engine_job_info ji;
    return g16_engine_job_get_info(e, &ji, job) == G16_OK ? ji.state : (g16_job_state)-1;
}

/* ---- basic: one job of NW partitions, paths and bytes, both curves ------- */
static int count_lines(const char *text, const char *needle) {
    int n = 0;
    for (const char *q = text; q && (q = strstr(q, needle)) != NULL; q++)
        n++;
    return n;
}

static void test_basic(g16_ctx *ctx, circuit *ca, circuit *cb) {
    char tlpath[128];
    snprintf(tlpath, sizeof tlpath, "%s/timeline.jsonl", tmpdir);
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 2, .synth_threads = 2, .timeline_path = tlpath};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t ka, kb, ka2, ja, jb;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_add(e, &kb, cb->zkey, 0, G16_TIER_HOST) == G16_OK);
    CHECK(g16_engine_key_add(e, &ka2, ca->zkey, 0, G16_TIER_MMAP) == G16_OK && ka2 == ka);
    g16_engine_witness wa[NW], wb[NW];
    for (int i = 0; i < NW; i++) {
        wa[i] = (g16_engine_witness){.path = ca->wtns[i]};
        wb[i] = (g16_engine_witness){.data = cb->wbytes[i], .len = cb->wlen[i]};
    }
    CHECK(g16_engine_submit(e, &ja, ka, wa, NW, G16_PRIORITY_NORMAL, 0) == G16_OK);
    CHECK(g16_engine_submit(e, &jb, kb, wb, NW, G16_PRIORITY_HIGH, 0) == G16_OK);
    CHECK(g16_engine_wait(e, ja, -1) == G16_OK && g16_engine_wait(e, jb, -1) == G16_OK);
    /* Completed partitions leave their working areas wiped (a, b, c, h, w
     * scalars, MSM scratch all zero). */
    size_t areas = 0, unwiped = engine_test_work_unwiped(e, &areas);
    CHECK_MSG(areas > 0 && unwiped == 0, "%zu of %zu idle working areas hold witness-derived bytes", unwiped, areas);
    g16_engine_job_info ji;
    CHECK(g16_engine_job_get_info(e, &ji, ja) == G16_OK && ji.state == G16_JOB_DONE && ji.proved == NW);
    CHECK(g16_engine_job_get_info(e, &ji, jb) == G16_OK && ji.state == G16_JOB_DONE && ji.proved == NW);
    for (uint32_t i = 0; i < NW; i++) {
        CHECK(check_partition(ctx, e, ca, ja, i));
        CHECK(check_partition(ctx, e, cb, jb, i));
    }
    /* A proof of key A does not verify under key B's vk (the check can fail). */
    char *proof = NULL, *pub = NULL;
    CHECK(g16_engine_partition_result(e, &proof, &pub, NULL, ja, 0) == G16_OK);
    CHECK(g16_verify_json(ctx, cb->vk_json, pub, proof) != G16_OK);
    g16_free(proof);
    g16_free(pub);
    g16_engine_key_info ki;
    CHECK(g16_engine_key_get_info(e, &ki, kb) == G16_OK && ki.tier == G16_TIER_HOST && ki.bytes > 0);
    CHECK(g16_engine_key_get_info(e, &ki, ka) == G16_OK && ki.tier == G16_TIER_MMAP && ki.loads == 1);
    CHECK(g16_engine_partition_result(e, NULL, NULL, NULL, ja, NW) == G16_ERR_INVALID_ARG);
    char *m = NULL, *s = NULL;
    CHECK(g16_engine_metrics(e, &m) == G16_OK && m && strstr(m, "g16_partitions_proved_total 8\n") &&
          strstr(m, "g16_stage_duration_seconds_count{stage=\"device\"} 8\n") &&
          strstr(m, "g16_stage_duration_seconds_bucket{stage=\"verify\",le=\"+Inf\"} 8\n") &&
          strstr(m, "g16_queue_wait_seconds_count 8\n") && !strstr(m, "_ms") && !strstr(m, "g16_gpu_busy_fraction"));
    CHECK(g16_engine_status_json(e, &s) == G16_OK && s && strstr(s, "\"tier\":\"host\"") &&
          strstr(s, "\"queue\":{\"critical\":0"));
    g16_free(m);
    /* The span ring: one synth, device, finalize and verify span per
     * partition, device null on the CPU backend; none after now. */
    CHECK(g16_engine_timeline_json(e, 0, G16_TIMELINE_SPANS, &m) == G16_OK && m);
    CHECK(count_str(m, "\"stage\":\"device\"") == 8 && count_str(m, "\"stage\":\"synth\"") == 8 &&
          count_str(m, "\"stage\":\"finalize\"") == 8 && count_str(m, "\"stage\":\"verify\"") == 8 &&
          count_str(m, "\"device\":null") == 32 && strstr(m, "\"dropped\":0,"));
    g16_free(m);
    CHECK(g16_engine_timeline_json(e, 4e9, G16_TIMELINE_CHROME, &m) == G16_OK && m &&
          !strcmp(m, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"dropped\":0},\"traceEvents\":[]}"));
    g16_free(m);
    CHECK(g16_engine_timeline_json(e, 0, 7, &m) == G16_ERR_INVALID_ARG);
    g16_free(s);
    CHECK(g16_engine_job_release(e, ja) == G16_OK && g16_engine_job_release(e, ja) == G16_ERR_INVALID_ARG);
    CHECK(g16_engine_key_remove(e, ka) == G16_OK);
    CHECK(g16_engine_key_remove(e, ka) == G16_OK); /* the last reference: unloaded */
    CHECK(g16_engine_key_get_info(e, &ki, ka) == G16_ERR_INVALID_ARG);
    g16_engine_destroy(e, 1);
    size_t tl_len;
    char *tl = t_read_file(tlpath, &tl_len);
    CHECK(tl && count_lines(tl, "\"ev\":\"device\",\"ph\":\"B\"") == 2 * NW &&
          count_lines(tl, "\"ev\":\"device\",\"ph\":\"E\"") == 2 * NW &&
          count_lines(tl, "\"ev\":\"synthesis\",\"ph\":\"E\"") == 2 * NW &&
          count_lines(tl, "\"ev\":\"finalize\",\"ph\":\"E\"") == 2 * NW);
    free(tl);
    g16_engine_opts bad = {.backend = G16_ENGINE_BACKEND_CPU, .timeline_path = "/nonexistent/dir/t.jsonl"};
    CHECK(g16_engine_create(ctx, &e, &bad) == G16_ERR_IO && e == NULL);
}

/* ---- scheduling: priority, then age ---------------------------------------- */
static void test_priority(g16_ctx *ctx, circuit *c) {
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 1, .lookahead = 1};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t k, jobs[20], crit;
    CHECK(g16_engine_key_add(e, &k, c->zkey, 0, G16_TIER_MMAP) == G16_OK);
    for (int i = 0; i < 20; i++) {
        g16_engine_witness w = {.path = c->wtns[i % NW]};
        CHECK(g16_engine_submit(e, &jobs[i], k, &w, 1, G16_PRIORITY_NORMAL, 0) == G16_OK);
    }
    g16_engine_witness w = {.data = c->wbytes[0], .len = c->wlen[0]};
    CHECK(g16_engine_submit(e, &crit, k, &w, 1, G16_PRIORITY_CRITICAL, 0) == G16_OK);
    /* Jobs already started now (synthesizing, ready or on the worker) may
     * finish first; nothing queued may. */
    uint64_t started = 0;
    for (int i = 0; i < 20; i++)
        started += job_state(e, jobs[i]) != G16_JOB_QUEUED;
    for (int i = 0; i < 20; i++)
        CHECK(g16_engine_wait(e, jobs[i], -1) == G16_OK);
    CHECK(g16_engine_wait(e, crit, -1) == G16_OK);
    g16_engine_job_info ci, ji;
    CHECK(g16_engine_job_get_info(e, &ci, crit) == G16_OK && ci.state == G16_JOB_DONE);
    CHECK_MSG(ci.finish_seq <= started + 1, "critical finished #%llu, %llu had started",
              (unsigned long long)ci.finish_seq, (unsigned long long)started);
    CHECK(started < 20); /* else the test says nothing */
    uint64_t prev = 0;
    for (int i = 0; i < 20; i++) {
        CHECK(g16_engine_job_get_info(e, &ji, jobs[i]) == G16_OK && ji.state == G16_JOB_DONE);
        CHECK_MSG(ji.finish_seq > prev, "job %d finished #%llu after #%llu", i, (unsigned long long)ji.finish_seq,
                  (unsigned long long)prev);
        prev = ji.finish_seq;
    }
    g16_engine_destroy(e, 1);
}

/* ---- 200 concurrent submissions from 4 threads ----------------------------- */
typedef struct subm {
    g16_engine *e;
    circuit *c[2];
    uint64_t key[2];
    uint64_t jobs[50];
    uint32_t nparts[50];
    int which[50];
    int errors;
    int t;
} subm;

static void *submitter(void *arg) {
    subm *s = arg;
    for (int i = 0; i < 50; i++) {
        int w = (i + s->t) & 1;
        uint32_t np = 1 + (uint32_t)((i * 7 + s->t) % 3 == 0);
        g16_engine_witness ws[2];
        for (uint32_t p = 0; p < np; p++) {
            int wi = (i + (int)p + s->t) % NW;
            ws[p] = (i & 2) ? (g16_engine_witness){.path = s->c[w]->wtns[wi]}
                            : (g16_engine_witness){.data = s->c[w]->wbytes[wi], .len = s->c[w]->wlen[wi]};
        }
        s->which[i] = w;
        s->nparts[i] = np;
        if (g16_engine_submit(s->e, &s->jobs[i], s->key[w], ws, np, (g16_priority)(i % 4), 0) != G16_OK)
            s->errors++;
    }
    return NULL;
}

static void test_concurrent(g16_ctx *ctx, circuit *ca, circuit *cb) {
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 2, .synth_threads = 2, .lookahead = 3};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    subm s[4];
    uint64_t ka, kb;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, G16_KEY_TRUSTED, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_add(e, &kb, cb->zkey, G16_KEY_TRUSTED, G16_TIER_MMAP) == G16_OK);
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        s[t] = (subm){.e = e, .c = {ca, cb}, .key = {ka, kb}, .t = t};
        pthread_create(&th[t], NULL, submitter, &s[t]);
    }
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    uint64_t total = 0, proved = 0, checked = 0, good = 0;
    for (int t = 0; t < 4; t++) {
        CHECK(s[t].errors == 0);
        for (int i = 0; i < 50; i++) {
            CHECK(g16_engine_wait(e, s[t].jobs[i], -1) == G16_OK);
            g16_engine_job_info ji;
            CHECK(g16_engine_job_get_info(e, &ji, s[t].jobs[i]) == G16_OK);
            CHECK(ji.state == G16_JOB_DONE && ji.proved == s[t].nparts[i] && ji.failed == 0);
            total += s[t].nparts[i];
            proved += ji.proved;
            if (i % 10 == t) { /* independent re-verification of a sample */
                for (uint32_t p = 0; p < s[t].nparts[i]; p++) {
                    checked++;
                    good += check_partition(ctx, e, s[t].c[s[t].which[i]], s[t].jobs[i], p);
                }
            }
        }
    }
    CHECK(proved == total && checked > 0 && good == checked);
    char *m = NULL, expect[96];
    snprintf(expect, sizeof expect, "g16_partitions_proved_total %llu\n", (unsigned long long)total);
    CHECK(g16_engine_metrics(e, &m) == G16_OK && m && strstr(m, expect) &&
          strstr(m, "g16_jobs_completed_total 200\n") && strstr(m, "g16_partitions_failed_total 0\n"));
    g16_free(m);
    g16_engine_destroy(e, 1);
}

/* ---- budget: fits one key; alternate two keys ------------------------------- */
static uint64_t fsize(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

/* Sum of what should be reserved when nothing is in flight. */
static uint64_t idle_accounting(g16_engine *e, const uint64_t *keys, int n) {
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        g16_engine_key_info ki;
        if (g16_engine_key_get_info(e, &ki, keys[i]) == G16_OK)
            sum += ki.bytes + (uint64_t)ki.work_areas * ki.work_bytes;
    }
    return sum;
}

static void test_budget(g16_ctx *ctx, circuit *ca, circuit *cb) {
    /* Learn the sizes with an unlimited engine. */
    g16_engine *e = NULL;
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1};
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t ka, kb;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_add(e, &kb, cb->zkey, 0, G16_TIER_MMAP) == G16_OK);
    g16_engine_key_info ia, ib;
    CHECK(g16_engine_key_get_info(e, &ia, ka) == G16_OK && g16_engine_key_get_info(e, &ib, kb) == G16_OK);
    g16_engine_destroy(e, 1);
    uint64_t est = 2 * (fsize(ca->zkey) > fsize(cb->zkey) ? fsize(ca->zkey) : fsize(cb->zkey)) + 4096;
    uint64_t work = ia.work_bytes > ib.work_bytes ? ia.work_bytes : ib.work_bytes;
    uint64_t budget = est + work + 64 * 1024;
    CHECK_MSG(budget < ia.bytes + ib.bytes + work, "budget %llu would hold both keys (%llu + %llu)",
              (unsigned long long)budget, (unsigned long long)ia.bytes, (unsigned long long)ib.bytes);

    g16_engine_opts ob = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .budget_bytes = budget};
    CHECK(g16_engine_create(ctx, &e, &ob) == G16_OK);
    if (!e)
        return;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_add(e, &kb, cb->zkey, 0, G16_TIER_MMAP) == G16_OK);
    /* While a partition uses key A, evicting it is refused. */
    g16_engine_witness w12[12];
    for (int i = 0; i < 12; i++)
        w12[i] = (g16_engine_witness){.path = ca->wtns[i % NW]};
    uint64_t jpin;
    int evict_refused = 0;
    CHECK(g16_engine_submit(e, &jpin, ka, w12, 12, G16_PRIORITY_NORMAL, 0) == G16_OK);
    while (!evict_refused && job_state(e, jpin) < G16_JOB_DONE) {
        g16_engine_key_info ki;
        if (g16_engine_key_get_info(e, &ki, ka) == G16_OK && ki.active > 0)
            evict_refused = g16_engine_key_evict(e, ka) == G16_ERR_INVALID_ARG;
    }
    CHECK(g16_engine_wait(e, jpin, -1) == G16_OK && job_state(e, jpin) == G16_JOB_DONE);
    uint64_t jobs[6];
    for (int i = 0; i < 6; i++) {
        circuit *c = i & 1 ? cb : ca;
        g16_engine_witness w[3] = {{.path = c->wtns[0]}, {.path = c->wtns[1]}, {.path = c->wtns[2]}};
        CHECK(g16_engine_submit(e, &jobs[i], i & 1 ? kb : ka, w, 3, G16_PRIORITY_NORMAL, 0) == G16_OK);
    }
    CHECK(evict_refused);
    for (int i = 0; i < 6; i++) {
        CHECK(g16_engine_wait(e, jobs[i], -1) == G16_OK);
        g16_engine_job_info ji;
        CHECK(g16_engine_job_get_info(e, &ji, jobs[i]) == G16_OK && ji.state == G16_JOB_DONE && ji.proved == 3);
        CHECK(check_partition(ctx, e, i & 1 ? cb : ca, jobs[i], 2));
    }
    CHECK(g16_engine_key_get_info(e, &ia, ka) == G16_OK && g16_engine_key_get_info(e, &ib, kb) == G16_OK);
    CHECK_MSG(ia.loads >= 3 && ib.loads >= 3, "loads A %u B %u", ia.loads, ib.loads);
    CHECK(ia.evictions >= 3 && ib.evictions >= 2);
    g16_engine_budget b;
    CHECK(g16_engine_get_budget(e, &b) == G16_OK);
    CHECK_MSG(b.peak <= budget && b.used <= b.peak && b.peak > est / 2, "peak %llu budget %llu",
              (unsigned long long)b.peak, (unsigned long long)budget);
    uint64_t keys[2] = {ka, kb};
    CHECK(b.used == idle_accounting(e, keys, 2));
    /* Explicit evict and preload. */
    CHECK(g16_engine_key_evict(e, kb) == G16_OK);
    CHECK(g16_engine_key_preload(e, ka) == G16_OK);
    CHECK(g16_engine_key_get_info(e, &ia, ka) == G16_OK && ia.tier == G16_TIER_MMAP);
    CHECK(g16_engine_get_budget(e, &b) == G16_OK && b.used == idle_accounting(e, keys, 2) && b.peak <= budget);
    g16_engine_destroy(e, 1);

    /* A budget below one key: the job fails with a clear error, no hang. */
    g16_engine_opts os = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .budget_bytes = 1024};
    CHECK(g16_engine_create(ctx, &e, &os) == G16_OK);
    if (!e)
        return;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_ERR_NOMEM);
    g16_engine_destroy(e, 1);
}

/* ---- device budget on a simulated device ------------------------------------
 * A CPU backend that reports device bytes (engine_create_with_backend): 2
 * "devices", its key_prepare "uploads" when the engine reserved the bytes,
 * and its heavy stage keeps a ledger of what the CUDA backend would hold on
 * each device at that moment (backend_cuda.c: resident keys on every
 * device; per worker an MSM context of g16_gpu_ctx_bytes for the largest
 * key so far, remade, dropping its areas, when it grows, and up to 4
 * working areas, one per key shape, LRU), then runs the CPU heavy stage.
 * The ledger's peak must stay within the device budget: the engine's
 * accounting has to count the contexts, which the old one (keys + one area
 * per worker) did not. */
#define SIM_DEV 2
#define SIM_WPD 2
#define SIM_W (SIM_DEV * SIM_WPD)
typedef struct sim_shape {
    int curve;
    uint32_t n, nv;
    size_t work;
    uint64_t use;
} sim_shape;
typedef struct sim {
    pthread_mutex_t mu;
    const g16_key *keys[8];
    size_t key_bytes[8];
    int nkeys;
    size_t ctx_w[SIM_W];
    sim_shape areas[SIM_W][4];
    uint64_t tick;
    size_t peak; /* the largest device total seen */
    int uploads, releases, heavies;
    int tables;      /* 1: the backend makes window tables (key_table_bytes) */
    int row_calls;   /* key_rows calls (late coefficient rows) */
    int tabled[8];   /* keys[i] got them (key_prepare with to_device & 2) */
    int used_div;    /* > 0: key_device_used says the copies take key_device_bytes / used_div */
} sim;
static int sim_idx[SIM_W];

static size_t sim_points(const g16_key *key) {
    g16_key_info ki;
    if (g16_key_get_info(NULL, &ki, key) != G16_OK)
        return 0;
    return ki.n_vars > ki.domain_size ? ki.n_vars : ki.domain_size;
}
static g16_err sim_worker_init(void *self, int worker, void **wstate, g16_status *st) {
    (void)self, (void)st;
    sim_idx[worker] = worker;
    *wstate = &sim_idx[worker];
    return G16_OK;
}
static void sim_worker_fini(void *self, void *wstate) { (void)self, (void)wstate; }
static int sim_worker_device(void *self, int worker) {
    (void)self;
    return worker % SIM_DEV;
}
static size_t sim_key_bytes(void *self, const g16_key *key) {
    (void)self;
    return groth16_gpu_key_bytes(key);
}
static size_t sim_key_used(void *self, const g16_key *key) {
    sim *m = self;
    return m->used_div > 0 ? groth16_gpu_key_bytes(key) / (size_t)m->used_div : 0;
}
static size_t sim_work_bytes(void *self, const g16_key *key) {
    (void)self;
    return groth16_gpu_work_bytes(key);
}
static size_t sim_ctx_bytes(void *self, const g16_key *key) {
    (void)self;
    return g16_gpu_ctx_bytes(sim_points(key), 1, NULL);
}
/* Simulated window tables: twice the key's device bytes. */
static size_t sim_table_bytes(void *self, const g16_key *key) {
    sim *m = self;
    return m->tables ? 2 * groth16_gpu_key_bytes(key) : 0;
}
static g16_err sim_key_prepare(void *self, const g16_key *key, int to_device, int *on_device, g16_status *st) {
    sim *m = self;
    (void)st;
    *on_device = (to_device & 1) != 0;
    pthread_mutex_lock(&m->mu);
    if ((to_device & 1) && m->nkeys < 8) {
        m->tabled[m->nkeys] = (to_device & 2) != 0;
        m->keys[m->nkeys] = key;
        m->key_bytes[m->nkeys++] = groth16_gpu_key_bytes(key) + ((to_device & 2) ? sim_table_bytes(m, key) : 0);
        m->uploads++;
    }
    pthread_mutex_unlock(&m->mu);
    return G16_OK;
}
static int sim_key_tables(void *self, const g16_key *key) {
    sim *m = self;
    int n = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->nkeys; i++)
        if (m->keys[i] == key && m->tabled[i])
            n = 5;
    pthread_mutex_unlock(&m->mu);
    return n;
}
static void sim_key_release(void *self, const g16_key *key) {
    sim *m = self;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->nkeys; i++)
        if (m->keys[i] == key) {
            m->keys[i] = m->keys[--m->nkeys];
            m->key_bytes[i] = m->key_bytes[m->nkeys];
            m->tabled[i] = m->tabled[m->nkeys];
            m->releases++;
            break;
        }
    pthread_mutex_unlock(&m->mu);
}
static g16_err sim_heavy(void *self, void *wstate, g16_ctx *ctx, groth16_msms *out, groth16_work *work,
                         const g16_key *key, groth16_timings *tm, engine_heavy_info *hi, g16_status *st) {
    sim *m = self;
    int w = *(int *)wstate;
    (void)hi;
    g16_key_info ki;
    if (g16_key_get_info(NULL, &ki, key) != G16_OK)
        return g16_fail(st, G16_ERR_INTERNAL, "sim: key info");
    size_t need = g16_gpu_ctx_bytes(sim_points(key), 1, NULL);
    pthread_mutex_lock(&m->mu);
    if (need > m->ctx_w[w]) { /* the context is remade larger: its areas go */
        m->ctx_w[w] = need;
        memset(m->areas[w], 0, sizeof m->areas[w]);
    }
    int slot = -1, lru = 0;
    for (int i = 0; i < 4 && slot < 0; i++)
        if (m->areas[w][i].work && m->areas[w][i].curve == (int)ki.curve && m->areas[w][i].n == ki.domain_size &&
            m->areas[w][i].nv == ki.n_vars)
            slot = i;
    if (slot < 0) {
        for (int i = 0; i < 4; i++) {
            if (!m->areas[w][i].work) {
                lru = i;
                break;
            }
            if (m->areas[w][i].use < m->areas[w][lru].use)
                lru = i;
        }
        slot = lru;
        m->areas[w][slot] = (sim_shape){(int)ki.curve, ki.domain_size, ki.n_vars, groth16_gpu_work_bytes(key), 0};
    }
    m->areas[w][slot].use = ++m->tick;
    for (int d = 0; d < SIM_DEV; d++) {
        size_t tot = 0;
        for (int i = 0; i < m->nkeys; i++)
            tot += m->key_bytes[i];
        for (int v = d; v < SIM_W; v += SIM_DEV) {
            tot += m->ctx_w[v];
            for (int i = 0; i < 4; i++)
                tot += m->areas[v][i].work;
        }
        if (tot > m->peak)
            m->peak = tot;
    }
    m->heavies++;
    pthread_mutex_unlock(&m->mu);
    return groth16_stage_heavy(ctx, out, work, key, tm, st);
}
/* Late coefficient rows: the device takes them (no physical limit here). */
static size_t sim_key_rows(void *self, const g16_key *key) {
    sim *m = self;
    pthread_mutex_lock(&m->mu);
    m->row_calls++;
    pthread_mutex_unlock(&m->mu);
    return groth16_gpu_key_rows_bytes(key);
}
static void sim_backend(engine_backend *be, sim *m) {
    engine_backend_cpu(be);
    be->name = "sim";
    be->self = m;
    be->devices = SIM_DEV;
    be->worker_init = sim_worker_init;
    be->worker_fini = sim_worker_fini;
    be->worker_device = sim_worker_device;
    be->key_device_bytes = sim_key_bytes;
    be->work_device_bytes = sim_work_bytes;
    be->ctx_device_bytes = sim_ctx_bytes;
    be->work_cache = 4;
    be->key_prepare = sim_key_prepare;
    be->key_release = sim_key_release;
    be->key_table_bytes = sim_table_bytes;
    be->key_tables = sim_key_tables;
    be->key_rows = sim_key_rows;
    be->key_device_used = sim_key_used;
    be->heavy = sim_heavy;
    be->destroy = NULL;
}

/* "gpu_tables" of key id in the status JSON (-1 when absent). */
static double key_gpu_tables(g16_engine *e, uint64_t id) {
    char *s = NULL, pat[48];
    if (g16_engine_status_json(e, &s) != G16_OK)
        return -1;
    snprintf(pat, sizeof pat, "{\"id\":%llu,\"path\":", (unsigned long long)id);
    const char *k = strstr(s, pat), *t = k ? strstr(k, "\"gpu_tables\":") : NULL;
    double v = t ? strtod(t + 13, NULL) : -1;
    g16_free(s);
    return v;
}

/* "device_budget" fields of the status JSON. */
static double dev_field(g16_engine *e, const char *field) {
    char *s = NULL;
    if (g16_engine_status_json(e, &s) != G16_OK)
        return -1;
    const char *p = strstr(s, "\"device_budget\":");
    p = p ? strstr(p, field) : NULL;
    double v = p ? strtod(p + strlen(field), NULL) : -1;
    g16_free(s);
    return v;
}

/* tier and streamed of key id in the status JSON */
static void key_tier(g16_engine *e, uint64_t id, char *tier, size_t tlen, int *streamed) {
    char *s = NULL, pat[48];
    snprintf(tier, tlen, "?");
    *streamed = -1;
    if (g16_engine_status_json(e, &s) != G16_OK)
        return;
    snprintf(pat, sizeof pat, "{\"id\":%llu,\"path\":", (unsigned long long)id);
    const char *k = strstr(s, pat);
    const char *t = k ? strstr(k, "\"tier\":\"") : NULL, *sp = k ? strstr(k, "\"streamed\":") : NULL;
    if (t)
        snprintf(tier, tlen, "%.*s", (int)strcspn(t + 8, "\""), t + 8);
    if (sp)
        *streamed = !strncmp(sp + 11, "true", 4);
    g16_free(s);
}

static int sim_prove(g16_ctx *ctx, g16_engine *e, const circuit *c, uint64_t key, int n) {
    g16_engine_witness w[NW];
    for (int i = 0; i < n && i < NW; i++)
        w[i] = (g16_engine_witness){.path = c->wtns[i]};
    uint64_t job;
    g16_engine_job_info ji;
    if (g16_engine_submit(e, &job, key, w, (size_t)n, G16_PRIORITY_NORMAL, 0) != G16_OK ||
        g16_engine_wait(e, job, -1) != G16_OK || g16_engine_job_get_info(e, &ji, job) != G16_OK ||
        ji.state != G16_JOB_DONE)
        return 0;
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= check_partition(ctx, e, c, job, (uint32_t)i);
    return ok && g16_engine_job_release(e, job) == G16_OK;
}

static void test_device_budget(g16_ctx *ctx, circuit *ca, circuit *cb) {
    g16_key *ga = NULL, *gb = NULL;
    CHECK(g16_key_load(ctx, &ga, ca->zkey, 0) == G16_OK && g16_key_load(ctx, &gb, cb->zkey, 0) == G16_OK);
    if (!ga || !gb) {
        g16_key_free(ga);
        g16_key_free(gb);
        return;
    }
    size_t ka = groth16_gpu_key_bytes(ga), kb = groth16_gpu_key_bytes(gb);
    size_t wa = groth16_gpu_work_bytes(ga), wb = groth16_gpu_work_bytes(gb);
    size_t pa = sim_points(ga);
    size_t xa = g16_gpu_ctx_bytes(pa, 1, NULL), xb = g16_gpu_ctx_bytes(sim_points(gb), 1, NULL);
    g16_key_free(ga);
    g16_key_free(gb);
    /* The host estimate: at least the MSM buffers (32 bytes of scalar, 4 x
     * 4 bytes of sort keys and values per point), at most a few hundred MiB
     * for 2^8 points; 2 MiB granules. */
    CHECK_MSG(xa > 48 * pa && xa < ((size_t)256 << 20) && xa % ((size_t)2 << 20) == 0,
              "ctx bytes a %zu", xa);
    fprintf(stderr, "device budget: keys %zu / %zu, areas %zu / %zu, MSM contexts %zu / %zu bytes\n", ka, kb, wa, wb,
            xa, xb);
    char tier[16];
    int streamed;
    uint64_t ida, idb;
    g16_engine *e = NULL;
    engine_backend be;

    /* 1. Key a with its workers' contexts and areas just fitting: on the
     * devices, proofs verify, the ledger within the budget. Then with a
     * backend whose copies take a third of the bound (points at infinity
     * dropped): the key's reservation settles to them. */
    for (int div = 0; div <= 3; div += 3) {
        sim m = {.mu = PTHREAD_MUTEX_INITIALIZER, .used_div = div};
        sim_backend(&be, &m);
        size_t budget = ka + SIM_WPD * (xa + wa), kused = div ? ka / (size_t)div : ka;
        g16_engine_opts o = {.workers_per_device = SIM_WPD, .synth_threads = 2, .device_budget_bytes = budget};
        CHECK(engine_create_with_backend(ctx, &e, &o, &be) == G16_OK);
        if (!e)
            return;
        CHECK(g16_engine_key_add(e, &ida, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
        key_tier(e, ida, tier, sizeof tier, &streamed);
        CHECK_MSG(!strcmp(tier, "device") && streamed == 0, "fits: tier %s streamed %d", tier, streamed);
        CHECK_MSG(dev_field(e, "\"keys\":") == (double)kused, "fits (used 1/%d): keys %.0f, expected %zu", div,
                  dev_field(e, "\"keys\":"), kused);
        CHECK(sim_prove(ctx, e, ca, ida, NW));
        CHECK_MSG(dev_field(e, "\"work\":") == (double)(SIM_WPD * (xa + wa)) &&
                      dev_field(e, "\"peak\":") <= (double)budget,
                  "fits: work %.0f peak %.0f budget %zu", dev_field(e, "\"work\":"), dev_field(e, "\"peak\":"), budget);
        CHECK(g16_engine_key_evict(e, ida) == G16_OK);
        CHECK_MSG(dev_field(e, "\"keys\":") == 0, "fits, evicted: keys %.0f", dev_field(e, "\"keys\":"));
        g16_engine_destroy(e, 1);
        CHECK_MSG(m.heavies == NW && m.uploads == 1 && m.peak <= budget, "fits: %d stages, %d uploads, ledger %zu of %zu",
                  m.heavies, m.uploads, m.peak, budget);
    }
    /* 2. A budget that holds the key and one area per worker but not their
     * MSM contexts (enough before the contexts were counted): the key must
     * not go up (it is streamed); the accounting stays under the budget. */
    {
        sim m = {.mu = PTHREAD_MUTEX_INITIALIZER};
        sim_backend(&be, &m);
        size_t budget = ka + SIM_WPD * (wa + xa / 2);
        g16_engine_opts o = {.workers_per_device = SIM_WPD, .synth_threads = 2, .device_budget_bytes = budget};
        CHECK(engine_create_with_backend(ctx, &e, &o, &be) == G16_OK);
        if (!e)
            return;
        CHECK(g16_engine_key_add(e, &ida, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
        key_tier(e, ida, tier, sizeof tier, &streamed);
        CHECK_MSG(strcmp(tier, "device") && streamed == 1, "contexts not counted: tier %s streamed %d", tier,
                  streamed);
        CHECK(sim_prove(ctx, e, ca, ida, 2));
        CHECK_MSG(dev_field(e, "\"used\":") <= (double)budget && dev_field(e, "\"peak\":") <= (double)budget,
                  "streamed: used %.0f peak %.0f budget %zu", dev_field(e, "\"used\":"), dev_field(e, "\"peak\":"),
                  budget);
        g16_engine_destroy(e, 1);
        CHECK_MSG(m.uploads == 0, "streamed: %d uploads", m.uploads);
    }
    /* 3. Room for one key at a time beside every worker's context and both
     * shapes' areas: alternating keys evicts the idle one each time, and the
     * ledger never exceeds the budget. */
    {
        sim m = {.mu = PTHREAD_MUTEX_INITIALIZER};
        sim_backend(&be, &m);
        size_t kmax = ka > kb ? ka : kb, xmax = xa > xb ? xa : xb;
        size_t budget = kmax + SIM_WPD * (xmax + wa + wb);
        CHECK_MSG(budget < ka + kb + SIM_WPD * (xmax + wa + wb), "budget %zu holds both keys", budget);
        g16_engine_opts o = {.workers_per_device = SIM_WPD, .synth_threads = 2, .device_budget_bytes = budget};
        CHECK(engine_create_with_backend(ctx, &e, &o, &be) == G16_OK);
        if (!e)
            return;
        CHECK(g16_engine_key_add(e, &ida, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
        CHECK(g16_engine_key_add(e, &idb, cb->zkey, 0, G16_TIER_MMAP) == G16_OK);
        for (int r = 0; r < 3; r++) {
            CHECK(sim_prove(ctx, e, ca, ida, 2));
            key_tier(e, ida, tier, sizeof tier, &streamed);
            CHECK_MSG(!strcmp(tier, "device"), "round %d: a tier %s", r, tier);
            CHECK(sim_prove(ctx, e, cb, idb, 2));
            key_tier(e, idb, tier, sizeof tier, &streamed);
            CHECK_MSG(!strcmp(tier, "device"), "round %d: b tier %s", r, tier);
        }
        g16_engine_key_info ia;
        CHECK(g16_engine_key_get_info(e, &ia, ida) == G16_OK && ia.evictions >= 3);
        CHECK_MSG(dev_field(e, "\"work\":") == (double)(SIM_WPD * (xmax + wa + wb)) &&
                      dev_field(e, "\"peak\":") <= (double)budget,
                  "alternating: work %.0f peak %.0f budget %zu", dev_field(e, "\"work\":"), dev_field(e, "\"peak\":"),
                  budget);
        g16_engine_destroy(e, 1);
        CHECK_MSG(m.peak <= budget && m.uploads >= 6 && m.releases >= 5,
                  "alternating: ledger %zu of %zu, %d uploads, %d releases", m.peak, budget, m.uploads, m.releases);
    }
    /* 4. Window tables (key_table_bytes = 2 key bytes here): reserved with
     * the key when the budget holds both as it is; else the key goes up
     * alone, and no idle key is evicted to make room for tables. */
    {
        sim m = {.mu = PTHREAD_MUTEX_INITIALIZER, .tables = 1};
        sim_backend(&be, &m);
        size_t areas = SIM_WPD * ((xa > xb ? xa : xb) + wa + wb);
        size_t budget = 3 * ka + kb + areas; /* a with tables + b; not b with tables beside a */
        g16_engine_opts o = {.workers_per_device = SIM_WPD, .synth_threads = 2, .device_budget_bytes = budget};
        CHECK(engine_create_with_backend(ctx, &e, &o, &be) == G16_OK);
        if (!e)
            return;
        CHECK(g16_engine_key_add(e, &ida, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
        CHECK(sim_prove(ctx, e, ca, ida, 2));
        CHECK_MSG(key_gpu_tables(e, ida) == 5 && dev_field(e, "\"keys\":") == (double)(3 * ka),
                  "tables: a has %.0f, device keys %.0f (key %zu)", key_gpu_tables(e, ida), dev_field(e, "\"keys\":"),
                  ka);
        /* b beside the idle a: its tables (2 kb more) do not fit unless a
         * went, so b goes up without them and a stays. */
        CHECK(g16_engine_key_add(e, &idb, cb->zkey, 0, G16_TIER_MMAP) == G16_OK);
        CHECK(sim_prove(ctx, e, cb, idb, 2));
        key_tier(e, ida, tier, sizeof tier, &streamed);
        g16_engine_key_info ia;
        CHECK_MSG(!strcmp(tier, "device") && g16_engine_key_get_info(e, &ia, ida) == G16_OK && ia.evictions == 0 &&
                      key_gpu_tables(e, idb) == 0 && dev_field(e, "\"keys\":") == (double)(3 * ka + kb),
                  "tables: a tier %s, %u evictions; b has %.0f; device keys %.0f", tier, ia.evictions,
                  key_gpu_tables(e, idb), dev_field(e, "\"keys\":"));
        CHECK_MSG(dev_field(e, "\"peak\":") <= (double)budget, "tables: peak %.0f of %zu", dev_field(e, "\"peak\":"),
                  budget);
        g16_engine_destroy(e, 1);
        CHECK_MSG(m.peak <= budget && m.uploads == 2, "tables: ledger %zu of %zu, %d uploads", m.peak, budget,
                  m.uploads);
    }
    /* 6. An in-memory key loaded with its rows deferred (as bench engine
     * does at 2^27): the rows, built after the bases went up, join them on
     * the devices when the device budget holds them (the key's device bytes
     * grow by their size), and are not even offered to the backend when it
     * does not. */
    for (int fit = 1; fit >= 0; fit--) {
        FILE *f = fopen(ca->zkey, "rb");
        long len = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            len = ftell(f);
        void *img = len > 0 ? malloc((size_t)len) : NULL;
        CHECK(img && fseek(f, 0, SEEK_SET) == 0 && fread(img, 1, (size_t)len, f) == (size_t)len);
        if (f)
            fclose(f);
        g16_key *key = NULL;
        g16_status st = {0};
        CHECK(img && groth16_key_load_mem(ctx, &key, "deferred", img, (size_t)len,
                                          G16_KEY_TRUSTED | GROTH16_KEY_DEFER_PREP, &st) == G16_OK);
        if (!key) {
            free(img);
            break;
        }
        size_t bases = groth16_gpu_key_bytes(key); /* no rows yet */
        size_t rows = ka > bases ? ka - bases : 0;
        CHECK_MSG(bases < ka && rows > 0, "deferred: bases %zu, full key %zu", bases, ka);
        size_t areas = SIM_WPD * (xa + wa);
        size_t budget = bases + areas + (fit ? rows : rows / 2);
        sim m = {.mu = PTHREAD_MUTEX_INITIALIZER};
        sim_backend(&be, &m);
        g16_engine_opts o = {.workers_per_device = SIM_WPD, .synth_threads = 2, .device_budget_bytes = budget};
        CHECK(engine_create_with_backend(ctx, &e, &o, &be) == G16_OK);
        if (!e) {
            g16_key_free(key);
            free(img);
            break;
        }
        uint64_t id = 0;
        CHECK(engine_key_add_loaded(e, &id, key, "deferred") == G16_OK);
        key_tier(e, id, tier, sizeof tier, &streamed);
        double keys = dev_field(e, "\"keys\":");
        CHECK_MSG(!strcmp(tier, "device") && keys == (double)(fit ? bases + rows : bases) && m.row_calls == fit &&
                      dev_field(e, "\"peak\":") <= (double)budget,
                  "deferred rows (fit %d): tier %s, device keys %.0f (bases %zu rows %zu), %d key_rows calls, peak %.0f"
                  " of %zu",
                  fit, tier, keys, bases, rows, m.row_calls, dev_field(e, "\"peak\":"), budget);
        g16_engine_destroy(e, 1); /* frees the key */
        CHECK_MSG(m.releases == 1, "deferred rows (fit %d): %d releases", fit, m.releases);
        free(img);
    }
    /* 5. The CPU backend has no device: a device budget changes nothing. */
    {
        g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .device_budget_bytes = 1};
        CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
        if (!e)
            return;
        CHECK(g16_engine_key_add(e, &ida, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
        CHECK(sim_prove(ctx, e, ca, ida, 2));
        key_tier(e, ida, tier, sizeof tier, &streamed);
        CHECK_MSG(!strcmp(tier, "mmap") && streamed == 0 && dev_field(e, "\"used\":") == 0 &&
                      dev_field(e, "\"work\":") == 0,
                  "cpu: tier %s streamed %d device used %.0f", tier, streamed, dev_field(e, "\"used\":"));
        g16_engine_destroy(e, 1);
    }
}

/* ---- working areas made ahead (engine_key_reserve_work) ----------------------
 * Areas made before the load, counted in the budget, then used by the
 * partitions without any made on demand; with a budget, only as many as fit
 * beside the synthesis threads' witnesses, and the jobs still run. */
static double metric_val(g16_engine *e, const char *name) {
    char *m = NULL;
    if (g16_engine_metrics(e, &m) != G16_OK)
        return -1;
    const char *p = m; /* the sample line, not "# HELP name ..." */
    while ((p = strstr(p, name)) && p != m && p[-1] != '\n')
        p++;
    double v = p ? strtod(p + strlen(name), NULL) : -1;
    g16_free(m);
    return v;
}

static void test_reserve_work(g16_ctx *ctx, circuit *ca) {
    g16_engine *e = NULL;
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 2, .synth_threads = 2, .lookahead = 3};
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t ka;
    uint32_t made = 99;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(engine_key_reserve_work(e, ka, 5, &made) == G16_OK && made == 5);
    g16_engine_key_info ki;
    g16_engine_budget b;
    CHECK(g16_engine_key_get_info(e, &ki, ka) == G16_OK && ki.work_areas == 5);
    CHECK_MSG(g16_engine_get_budget(e, &b) == G16_OK && b.used == ki.bytes + 5 * ki.work_bytes,
              "used %llu, key %llu + 5 x %llu", (unsigned long long)b.used, (unsigned long long)ki.bytes,
              (unsigned long long)ki.work_bytes);
    CHECK(engine_key_reserve_work(e, ka, 3, &made) == G16_OK && made == 0);
    double allocs = metric_val(e, "g16_work_area_allocs_total ");
    g16_engine_witness w[6];
    for (int i = 0; i < 6; i++)
        w[i] = (g16_engine_witness){.path = ca->wtns[i % NW]};
    uint64_t job;
    CHECK(g16_engine_submit(e, &job, ka, w, 6, G16_PRIORITY_NORMAL, 0) == G16_OK && g16_engine_wait(e, job, -1) == G16_OK);
    CHECK(job_state(e, job) == G16_JOB_DONE && check_partition(ctx, e, ca, job, 5));
    CHECK_MSG(allocs == 5 && metric_val(e, "g16_work_area_allocs_total ") == allocs,
              "areas made on demand: %.0f before, %.0f after", allocs, metric_val(e, "g16_work_area_allocs_total "));
    CHECK(engine_key_reserve_work(e, ka + 100, 1, &made) == G16_ERR_INVALID_ARG && made == 0);
    g16_engine_destroy(e, 1);

    /* A budget for the key and a few areas: fewer made than asked, the
     * budget kept, and a job still proves. */
    uint64_t budget = 2 * ki.bytes + 3 * ki.work_bytes + 8 * 1024 * 1024;
    g16_engine_opts ob = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 2, .budget_bytes = budget};
    CHECK(g16_engine_create(ctx, &e, &ob) == G16_OK);
    if (!e)
        return;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(engine_key_reserve_work(e, ka, 1000, &made) == G16_OK);
    CHECK_MSG(made >= 1 && made < 1000 && g16_engine_get_budget(e, &b) == G16_OK && b.used <= budget,
              "budget %llu: %u made, used %llu", (unsigned long long)budget, made, (unsigned long long)b.used);
    CHECK(g16_engine_submit(e, &job, ka, w, 3, G16_PRIORITY_NORMAL, 0) == G16_OK && g16_engine_wait(e, job, -1) == G16_OK);
    CHECK_MSG(job_state(e, job) == G16_JOB_DONE && g16_engine_get_budget(e, &b) == G16_OK && b.peak <= budget,
              "after the job: state %d peak %llu", (int)job_state(e, job), (unsigned long long)b.peak);
    g16_engine_destroy(e, 1);

    /* More synthesis threads than the budget holds witnesses (the 2^27
     * case: 12 threads x 4.3 GB): an area is still made ahead, with room for
     * one witness beside it (a synthesis takes an area first, so no more
     * witnesses than areas are ever reserved; before, 64 threads' witnesses
     * were set aside and none was made); the job proves within the budget
     * without making more. */
    g16_key *kk = NULL;
    g16_key_info kinfo;
    uint64_t wit = 0;
    if (g16_key_load(ctx, &kk, ca->zkey, 0) == G16_OK && g16_key_get_info(ctx, &kinfo, kk) == G16_OK)
        wit = (uint64_t)kinfo.n_vars * 32 + 64;
    g16_key_free(kk);
    CHECK(wit > 0);
    budget = 2 * ki.bytes + ki.work_bytes + 2 * wit;
    CHECK_MSG(ki.work_bytes > ki.bytes && 64 * wit > ki.bytes + 2 * wit,
              "sizes: key %llu, area %llu, witness %llu", (unsigned long long)ki.bytes,
              (unsigned long long)ki.work_bytes, (unsigned long long)wit);
    g16_engine_opts o8 = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 64, .budget_bytes = budget};
    CHECK(g16_engine_create(ctx, &e, &o8) == G16_OK);
    if (!e)
        return;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(engine_key_reserve_work(e, ka, 1000, &made) == G16_OK);
    CHECK_MSG(made == 1 && g16_engine_get_budget(e, &b) == G16_OK && b.used <= budget,
              "64 synthesis threads: %u areas made ahead, used %llu of %llu", made, (unsigned long long)b.used,
              (unsigned long long)budget);
    allocs = metric_val(e, "g16_work_area_allocs_total ");
    CHECK(g16_engine_submit(e, &job, ka, w, 6, G16_PRIORITY_NORMAL, 0) == G16_OK && g16_engine_wait(e, job, -1) == G16_OK);
    CHECK_MSG(job_state(e, job) == G16_JOB_DONE && check_partition(ctx, e, ca, job, 5) &&
                  g16_engine_get_budget(e, &b) == G16_OK && b.peak <= budget &&
                  metric_val(e, "g16_work_area_allocs_total ") == allocs,
              "64 synthesis threads: state %d, peak %llu of %llu, areas %.0f -> %.0f", (int)job_state(e, job),
              (unsigned long long)b.peak, (unsigned long long)budget, allocs,
              metric_val(e, "g16_work_area_allocs_total "));
    g16_engine_destroy(e, 1);
}

/* ---- working areas made on demand leave room for their witnesses ------------
 * A budget of key + 3 areas + 1.5 witnesses, 4 synthesis threads and a
 * slow worker (the ready queue fills): a third area would leave room for
 * one witness only, so one synthesis at a time (the 2^27 job: 9 areas of
 * 4.3 GB beside 4.3 GB witnesses). Areas are made only while each can be
 * fed a witness: after the jobs the budget holds a witness per area. */
static void test_area_balance(g16_ctx *ctx, circuit *ca) {
    g16_key *key = NULL;
    g16_key_info kinfo;
    CHECK(g16_key_load(ctx, &key, ca->zkey, 0) == G16_OK && g16_key_get_info(ctx, &kinfo, key) == G16_OK);
    if (!key)
        return;
    uint64_t wit = (uint64_t)kinfo.n_vars * 32 + 64, kb = 0, ab = 0;
    g16_engine *e = NULL;
    g16_engine_opts o0 = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 1};
    CHECK(g16_engine_create(ctx, &e, &o0) == G16_OK);
    if (!e) {
        g16_key_free(key);
        return;
    }
    uint64_t id = 0;
    g16_engine_key_info ki;
    CHECK(engine_key_add_loaded(e, &id, key, "balance") == G16_OK && g16_engine_key_get_info(e, &ki, id) == G16_OK);
    kb = ki.bytes, ab = ki.work_bytes;
    g16_engine_destroy(e, 1); /* frees the key */
    key = NULL;
    CHECK(g16_key_load(ctx, &key, ca->zkey, 0) == G16_OK);
    if (!key || !kb || !ab)
        return;
    uint64_t budget = kb + 3 * ab + wit + wit / 2;
    CHECK_MSG(ab > wit, "area %llu, witness %llu", (unsigned long long)ab, (unsigned long long)wit);
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 4, .lookahead = 12,
                         .budget_bytes = budget};
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e) {
        g16_key_free(key);
        return;
    }
    CHECK(engine_key_add_loaded(e, &id, key, "balance") == G16_OK);
    g16_engine_witness w[12];
    for (int i = 0; i < 12; i++)
        w[i] = (g16_engine_witness){.path = ca->wtns[i % NW]};
    for (int round = 0; round < 2; round++) {
        uint64_t job;
        CHECK(g16_engine_submit(e, &job, id, w, 12, G16_PRIORITY_NORMAL, 0) == G16_OK &&
              g16_engine_wait(e, job, -1) == G16_OK);
        CHECK(job_state(e, job) == G16_JOB_DONE && check_partition(ctx, e, ca, job, 11));
    }
    g16_engine_budget b;
    CHECK(g16_engine_key_get_info(e, &ki, id) == G16_OK && g16_engine_get_budget(e, &b) == G16_OK);
    uint64_t feed = ki.work_areas < 4 ? ki.work_areas : 4;
    CHECK_MSG(ki.work_areas >= 1 && b.peak <= budget && b.used + feed * wit <= budget,
              "%u areas of %llu, witness %llu: used %llu, peak %llu of %llu (room for %llu witnesses)",
              ki.work_areas, (unsigned long long)ab, (unsigned long long)wit, (unsigned long long)b.used,
              (unsigned long long)b.peak, (unsigned long long)budget,
              (unsigned long long)((budget - b.used) / wit));
    g16_engine_destroy(e, 1);
}

/* ---- CPU lists (G16_ENGINE_PIN: sysfs local_cpulist) ------------------------ */
static void test_cpulist(void) {
    unsigned char m[8];
    CHECK(engine_cpulist_parse("0-3,8,10-11\n", m, sizeof m) == 7 && m[0] == 0x0f && m[1] == 0x0d && m[2] == 0);
    CHECK(engine_cpulist_parse("16-31,48-63", m, sizeof m) == 32 && m[1] == 0 && m[2] == 0xff && m[3] == 0xff &&
          m[4] == 0 && m[5] == 0 && m[6] == 0xff && m[7] == 0xff);
    CHECK(engine_cpulist_parse("60-70", m, sizeof m) == 4 && m[7] == 0xf0); /* beyond the mask: ignored */
    CHECK(engine_cpulist_parse("1,1,1-2", m, sizeof m) == 2 && m[0] == 0x06);
    CHECK(engine_cpulist_parse("", m, sizeof m) == 0 && m[0] == 0);
    CHECK(engine_cpulist_parse("5-2", m, sizeof m) == -1);
    CHECK(engine_cpulist_parse("a", m, sizeof m) == -1);
    CHECK(engine_cpulist_parse("3;4", m, sizeof m) == -1);
    CHECK(engine_cpulist_parse("3-", m, sizeof m) == -1);
}

/* ---- cancellation, timeouts, faults ----------------------------------------- */
static void test_faults(g16_ctx *ctx, circuit *ca, circuit *cb) {
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_CPU, .workers = 1, .synth_threads = 1, .lookahead = 1};
    g16_engine *e = NULL;
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t ka, kb;
    CHECK(g16_engine_key_add(e, &ka, ca->zkey, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_add(e, &kb, cb->zkey, 0, G16_TIER_MMAP) == G16_OK);
    uint64_t keys[2] = {ka, kb};

    /* Cancel mid-run: 16 partitions, cancel once some are done. */
    g16_engine_witness w16[16];
    for (int i = 0; i < 16; i++)
        w16[i] = (g16_engine_witness){.path = ca->wtns[i % NW]};
    uint64_t jc;
    CHECK(g16_engine_submit(e, &jc, ka, w16, 16, G16_PRIORITY_NORMAL, 0) == G16_OK);
    g16_engine_job_info ji;
    for (int tries = 0; tries < 20000; tries++) {
        if (g16_engine_job_get_info(e, &ji, jc) == G16_OK && ji.proved >= 1)
            break;
        usleep(200);
    }
    CHECK(g16_engine_cancel(e, jc) == G16_OK);
    CHECK(g16_engine_wait(e, jc, -1) == G16_OK);
    CHECK(g16_engine_job_get_info(e, &ji, jc) == G16_OK);
    CHECK_MSG(ji.state == G16_JOB_CANCELLED && ji.err == G16_ERR_CANCELLED && ji.proved >= 1 && ji.proved < 16,
              "state %d err %d proved %u", ji.state, ji.err, ji.proved);
    g16_engine_budget b;
    CHECK(g16_engine_get_budget(e, &b) == G16_OK && b.used == idle_accounting(e, keys, 2));
    CHECK(g16_engine_partition_result(e, NULL, NULL, NULL, jc, 15) == G16_ERR_CANCELLED);
    size_t areas = 0, unwiped = engine_test_work_unwiped(e, &areas); /* cancelled ones too */
    CHECK_MSG(areas > 0 && unwiped == 0, "after a cancel: %zu of %zu idle working areas hold witness-derived bytes",
              unwiped, areas);

    /* Timeout: a 1 ms limit on 16 partitions. */
    uint64_t jt;
    CHECK(g16_engine_submit(e, &jt, ka, w16, 16, G16_PRIORITY_LOW, 1) == G16_OK);
    CHECK(g16_engine_wait(e, jt, -1) == G16_OK);
    CHECK(g16_engine_job_get_info(e, &ji, jt) == G16_OK && ji.state == G16_JOB_CANCELLED &&
          ji.err == G16_ERR_TIMEOUT && ji.proved < 16);
    /* The wait's own timeout. */
    uint64_t jw;
    CHECK(g16_engine_submit(e, &jw, ka, w16, 16, G16_PRIORITY_LOW, 0) == G16_OK);
    char *sj = NULL;
    CHECK(g16_engine_status_json(e, &sj) == G16_OK && sj && strstr(sj, "\"low\":") &&
          atoi(strstr(sj, "\"low\":") + 6) >= 10 && strstr(sj, "\"workers\":[{\"id\":0,"));
    g16_free(sj);
    CHECK(g16_engine_wait(e, jw, 0.5) == G16_ERR_TIMEOUT);
    CHECK(g16_engine_cancel(e, jw) == G16_OK && g16_engine_wait(e, jw, -1) == G16_OK);
    CHECK(g16_engine_job_release(e, jw) == G16_OK);

    /* Corrupt witnesses fail only their own partition and job. */
    size_t len = ca->wlen[1];
    uint8_t *trunc = malloc(len), *badval = malloc(len);
    memcpy(trunc, ca->wbytes[1], len);
    memcpy(badval, ca->wbytes[1], len);
    memset(badval + len - 32, 0, 32);
    badval[len - 32] = 5; /* a canonical value that breaks the constraints */
    g16_engine_witness wf[4] = {{.path = ca->wtns[0]},
                                {.data = trunc, .len = len - 40},
                                {.path = cb->wtns[0]}, /* another circuit's witness */
                                {.data = badval, .len = len}};
    uint64_t jf[4], jok;
    for (int i = 0; i < 4; i++)
        CHECK(g16_engine_submit(e, &jf[i], ka, &wf[i == 0 ? 0 : i], 1, G16_PRIORITY_HIGH, 0) == G16_OK);
    g16_engine_witness wmix[3] = {{.path = ca->wtns[2]}, {.data = trunc, .len = len - 40}, {.path = ca->wtns[3]}};
    uint64_t jmix;
    CHECK(g16_engine_submit(e, &jmix, ka, wmix, 3, G16_PRIORITY_NORMAL, 0) == G16_OK);
    g16_engine_witness wo = {.path = cb->wtns[1]};
    CHECK(g16_engine_submit(e, &jok, kb, &wo, 1, G16_PRIORITY_NORMAL, 0) == G16_OK);
    free(trunc);
    free(badval); /* the engine copied them */
    for (int i = 0; i < 4; i++)
        CHECK(g16_engine_wait(e, jf[i], -1) == G16_OK);
    CHECK(g16_engine_wait(e, jmix, -1) == G16_OK && g16_engine_wait(e, jok, -1) == G16_OK);
    CHECK(job_state(e, jf[0]) == G16_JOB_DONE && job_state(e, jok) == G16_JOB_DONE);
    CHECK(g16_engine_job_get_info(e, &ji, jf[1]) == G16_OK && ji.state == G16_JOB_FAILED &&
          (ji.err == G16_ERR_TRUNCATED || ji.err == G16_ERR_FORMAT) && ji.msg[0] && ji.failed_partition == 0);
    CHECK(g16_engine_job_get_info(e, &ji, jf[2]) == G16_OK && ji.state == G16_JOB_FAILED &&
          ji.err == G16_ERR_WRONG_CURVE && strstr(ji.msg, "partition 0"));
    CHECK_MSG(g16_engine_job_get_info(e, &ji, jf[3]) == G16_OK && ji.state == G16_JOB_FAILED &&
                  ji.err == G16_ERR_INVALID_PROOF && strstr(ji.msg, "does not verify"),
              "state %d err %d msg %s", ji.state, ji.err, ji.msg);
    CHECK(g16_engine_job_get_info(e, &ji, jmix) == G16_OK && ji.state == G16_JOB_FAILED && ji.proved == 2 &&
          ji.failed == 1 && ji.failed_partition == 1 && strstr(ji.msg, "partition 1"));
    CHECK(check_partition(ctx, e, ca, jmix, 0) && check_partition(ctx, e, ca, jmix, 2));
    CHECK(g16_engine_partition_result(e, NULL, NULL, NULL, jmix, 1) != G16_OK);
    CHECK(g16_engine_get_budget(e, &b) == G16_OK && b.used == idle_accounting(e, keys, 2));

    /* Bad arguments. */
    uint64_t jx;
    CHECK(g16_engine_submit(e, &jx, 999, &wo, 1, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_engine_submit(e, &jx, ka, &wo, 0, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_engine_submit(e, &jx, ka, &wo, 1, (g16_priority)7, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_engine_key_add(e, &jx, "/nonexistent.zkey", 0, G16_TIER_MMAP) == G16_ERR_IO);

    /* Shutdown without draining: queued work is cancelled, nothing leaks. */
    uint64_t jq;
    CHECK(g16_engine_submit(e, &jq, ka, w16, 16, G16_PRIORITY_NORMAL, 0) == G16_OK);
    g16_engine_destroy(e, 0);
}

/* ---- backend choice: AUTO without a GPU is the CPU; CUDA without one fails */
static void test_backend_choice(g16_ctx *ctx) {
    g16_engine *e = NULL;
    g16_engine_opts o = {.backend = G16_ENGINE_BACKEND_AUTO, .workers = 3};
    CHECK(g16_engine_create(ctx, &e, &o) == G16_OK && e);
    char *s = NULL;
    if (e && g16_engine_status_json(e, &s) == G16_OK) {
        if (g16_gpu_count() == 0)
            CHECK_MSG(strstr(s, "\"backend\":\"cpu\"") && strstr(s, "\"workers\":[{\"id\":0,\"device\":0,") &&
                          strstr(s, "\"synth_threads\":1,\"lookahead\":3,") &&
                          strstr(s, "{\"id\":2,\"device\":0,") && strstr(s, "\"devices\":[{\"id\":0,\"workers\":3,"),
                      "%s", s);
        else
            CHECK_MSG(strstr(s, "\"backend\":\"cuda\""), "%s", s);
        g16_free(s);
    }
    g16_engine_destroy(e, 1);
    if (g16_gpu_count() == 0) {
        g16_engine_opts oc = {.backend = G16_ENGINE_BACKEND_CUDA};
        e = NULL;
        CHECK(g16_engine_create(ctx, &e, &oc) == G16_ERR_NO_DEVICE && e == NULL);
    }
    g16_engine_opts bad = {.backend = G16_ENGINE_BACKEND_CUDA, .workers_per_device = 1000};
    e = NULL;
    CHECK(g16_engine_create(ctx, &e, &bad) != G16_OK && e == NULL);
}

int main(void) {
    uint64_t seed = t_seed("test_engine");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/g16_engine_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    g16_ctx_opts co = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&co);
    circuit ca = {0}, cb = {0};
    int ok = make_circuit(ctx, &ca, "a", G16_CURVE_BN254, 8, seed) &&
             make_circuit(ctx, &cb, "b", G16_CURVE_BLS12_381, 8, seed + 1);
    CHECK(ok);
    if (ok) {
        double t = g16_now_ms();
        test_basic(ctx, &ca, &cb);
        fprintf(stderr, "basic %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_priority(ctx, &ca);
        fprintf(stderr, "priority %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_concurrent(ctx, &ca, &cb);
        fprintf(stderr, "concurrent %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_budget(ctx, &ca, &cb);
        fprintf(stderr, "budget %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_faults(ctx, &ca, &cb);
        fprintf(stderr, "faults %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_device_budget(ctx, &ca, &cb);
        fprintf(stderr, "device budget %.0f ms\n", g16_now_ms() - t), t = g16_now_ms();
        test_reserve_work(ctx, &ca);
        test_area_balance(ctx, &ca);
        fprintf(stderr, "reserve work %.0f ms\n", g16_now_ms() - t);
        test_backend_choice(ctx);
        test_cpulist();
    }
    free_circuit(&ca);
    free_circuit(&cb);
    g16_ctx_destroy(ctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done("test_engine");
}
