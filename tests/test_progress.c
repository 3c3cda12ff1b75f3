/* Progress callbacks (g16.h g16_progress_fn, util/progress.h):
 *  - the helper: the callback runs on the owner thread only, done is clamped
 *    to [last reported, total], rate-limited between stage boundaries, and
 *    the end of a stage is always reported;
 *  - setup (in memory), synthesis (synth_generate_mem), g16_prove and
 *    g16_prove_batch call it on the calling thread only, with done <= total
 *    and done non-decreasing within a stage, total fixed within it, and each
 *    stage that completes ending at done = total; the stages come in their
 *    documented order;
 *  - the results do not depend on it: the same key bytes with and without a
 *    callback, and proofs that verify. */
#include <pthread.h>
#include <string.h>

#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/progress.h"

#include "g16.h"

#define MAX_CALLS 100000

typedef struct call {
    const char *stage;
    uint64_t done, total;
    int other_thread;
} call;

typedef struct rec {
    pthread_t caller;
    size_t n;
    call c[MAX_CALLS];
} rec;

static void on_progress(void *user, const char *stage, uint64_t done, uint64_t total) {
    rec *r = user;
    if (r->n < MAX_CALLS)
        r->c[r->n++] = (call){stage, done, total, !pthread_equal(pthread_self(), r->caller)};
}

static void rec_reset(rec *r) {
    r->caller = pthread_self();
    r->n = 0;
}

/* The contract over r's calls; the stage names in order of first call (one
 * entry per run of a stage) into names (up to cap), their count returned. */
static size_t check_calls(const rec *r, const char *what, const char **names, size_t cap) {
    size_t nn = 0;
    for (size_t i = 0; i < r->n; i++) {
        const call *c = &r->c[i];
        CHECK_MSG(!c->other_thread, "%s: call %zu (%s) on another thread", what, i, c->stage);
        CHECK_MSG(c->total >= 1 && c->done <= c->total, "%s: %s %llu/%llu", what, c->stage,
                  (unsigned long long)c->done, (unsigned long long)c->total);
        int same = i > 0 && !strcmp(c->stage, r->c[i - 1].stage) && c->done >= r->c[i - 1].done;
        if (same) {
            CHECK_MSG(c->total == r->c[i - 1].total, "%s: %s total changed", what, c->stage);
            CHECK_MSG(c->done > r->c[i - 1].done, "%s: %s repeated %llu", what, c->stage,
                      (unsigned long long)c->done);
        } else {
            /* a new stage (or the same one again: a new proof) starts at 0 */
            CHECK_MSG(c->done == 0, "%s: %s starts at %llu", what, c->stage, (unsigned long long)c->done);
            if (i > 0) /* the one before completed */
                CHECK_MSG(r->c[i - 1].done == r->c[i - 1].total, "%s: %s ended at %llu/%llu", what,
                          r->c[i - 1].stage, (unsigned long long)r->c[i - 1].done,
                          (unsigned long long)r->c[i - 1].total);
            if (nn < cap)
                names[nn] = c->stage;
            nn++;
        }
    }
    if (r->n)
        CHECK_MSG(r->c[r->n - 1].done == r->c[r->n - 1].total, "%s: the last stage did not complete", what);
    return nn;
}

/* How many calls of stage lie strictly between 0 and total. */
static size_t inner_calls(const rec *r, const char *stage) {
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += !strcmp(r->c[i].stage, stage) && r->c[i].done > 0 && r->c[i].done < r->c[i].total;
    return k;
}

static int names_are(const char **names, size_t n, const char *const *want, size_t nw) {
    if (n != nw)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], want[i]))
            return 0;
    return 1;
}

/* ---- the helper ---------------------------------------------------------- */

typedef struct other_arg {
    g16_progress *p;
} other_arg;

static void *other_main(void *arg) {
    other_arg *a = arg;
    g16_progress_at(a->p, 7); /* not the owner: nothing */
    g16_progress_stage(a->p, "other", 3);
    g16_progress_end(a->p);
    return NULL;
}

static void test_helper(rec *r) {
    rec_reset(r);
    g16_progress p;
    g16_progress_init(&p, on_progress, r);
    g16_progress_stage(&p, "a", 10);
    CHECK(r->n == 1 && r->c[0].done == 0 && r->c[0].total == 10);
    g16_progress_at(&p, 3); /* within the interval: not reported */
    CHECK(r->n == 1);
    g16_progress_at(&p, 99); /* clamped to total; the end is always reported */
    CHECK(r->n == 2 && r->c[1].done == 10);
    g16_progress_at(&p, 4); /* below the last: nothing */
    g16_progress_end(&p);   /* already complete: nothing */
    CHECK(r->n == 2);
    g16_progress_stage(&p, "b", 0); /* total 0 counts as 1 */
    CHECK(r->n == 3 && r->c[2].total == 1);
    pthread_t th;
    other_arg oa = {&p};
    CHECK(pthread_create(&th, NULL, other_main, &oa) == 0);
    pthread_join(th, NULL);
    CHECK(r->n == 3);
    g16_progress_end(&p);
    CHECK(r->n == 4 && r->c[3].done == 1);
    /* after the interval a report goes through */
    g16_progress_stage(&p, "c", 100);
    double t0 = g16_now_ms();
    while (g16_now_ms() - t0 < G16_PROGRESS_INTERVAL_MS + 5) {
    }
    g16_progress_at(&p, 5);
    CHECK(r->n == 6 && r->c[5].done == 5);
    g16_progress_end(&p);
    CHECK(r->n == 7 && r->c[6].done == 100);
    /* off: no callback, no crash */
    g16_progress off;
    g16_progress_init(&off, NULL, NULL);
    g16_progress_stage(&off, "x", 5);
    g16_progress_at(&off, 2);
    g16_progress_end(&off);
    g16_progress_at(NULL, 1);
    CHECK(!g16_progress_owner(NULL) && !g16_progress_owner(&off) && g16_progress_owner(&p));
    check_calls(r, "helper", (const char *[8]){0}, 8);
}

/* ---- the operations ------------------------------------------------------- */

static void test_ops(rec *r, g16_curve curve, int log_n, uint64_t seed) {
    g16_ctx_opts co;
    g16_ctx_opts_init(&co);
    co.threads = 3; /* pool threads beside the caller: reports from them must not arrive */
    g16_ctx *ctx = g16_ctx_create(&co);
    CHECK(ctx != NULL);
    if (!ctx)
        return;
    const char *names[64];
    g16_status st = {0};

    /* synthesis in memory */
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = SYNTH_DENSE, .partitions = 1, .seed = seed,
                     .progress = on_progress, .progress_user = r};
    g16_r1cs cs;
    g16_frvec wv;
    rec_reset(r);
    CHECK(synth_generate_mem(&so, &cs, &wv, NULL, &st) == G16_OK);
    size_t nn = check_calls(r, "synth", names, 64);
    CHECK(names_are(names, nn, (const char *[]){"rows"}, 1));

    /* setup into memory, with and without a callback: the same bytes */
    groth16_setup_opts o1 = {.seed = seed, .backend = GROTH16_SETUP_CPU, .align = 1};
    groth16_setup_opts o2 = o1;
    o2.progress = on_progress;
    o2.progress_user = r;
    void *m1 = NULL, *m2 = NULL;
    size_t l1 = 0, l2 = 0;
    CHECK(groth16_setup_insecure_ex(ctx, &cs, &o1, NULL, &m1, &l1, NULL, &st) == G16_OK);
    rec_reset(r);
    double t0 = g16_now_ms();
    CHECK(groth16_setup_insecure_ex(ctx, &cs, &o2, NULL, &m2, &l2, NULL, &st) == G16_OK);
    double setup_ms = g16_now_ms() - t0;
    CHECK(l1 == l2 && m1 && m2 && !memcmp(m1, m2, l1));
    nn = check_calls(r, "setup", names, 64);
    CHECK_MSG(names_are(names, nn, (const char *[]){"lagrange", "points"}, 2), "setup: %zu stages", nn);
    /* points: 3 nVars + n G1 units and 3 units per G2 point */
    uint64_t want_total = 3ull * cs.nWires + (1ull << so.log_n) + 3ull * cs.nWires;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->c[i].stage, "points"))
            CHECK(r->c[i].total == want_total);
    fprintf(stderr, "setup 2^%d: %.0f ms, %zu calls, %zu inside \"points\"\n", log_n, setup_ms, r->n,
            inner_calls(r, "points"));
    /* reports inside the stage, at most every 50 ms (when it lasts long enough to have them) */
    if (setup_ms > 400)
        CHECK(inner_calls(r, "points") >= 1);
    CHECK(inner_calls(r, "points") <= (size_t)(setup_ms / G16_PROGRESS_INTERVAL_MS) + 1);
    groth16_setup_mem_free(m1, l1);
    g16_r1cs_free(&cs);

    /* proofs */
    g16_key *key = NULL;
    CHECK(groth16_key_load_mem(ctx, &key, "progress", m2, l2, G16_KEY_TRUSTED, &st) == G16_OK);
    g16_witness *w = NULL;
    CHECK(groth16_witness_from_frvec(&w, &wv, &st) == G16_OK);
    if (key && w) {
        g16_prove_opts po;
        g16_prove_opts_init(&po);
        po.backend = G16_BACKEND_CPU;
        po.progress = on_progress;
        po.progress_user = r;
        g16_result *res = NULL;
        rec_reset(r);
        CHECK(g16_prove(ctx, &res, key, w, &po, NULL) == G16_OK);
        CHECK(res && g16_result_verify(ctx, key, res) == G16_OK);
        g16_result_free(res);
        nn = check_calls(r, "prove", names, 64);
        CHECK_MSG(names_are(names, nn, (const char *[]){"synthesis", "ntt", "msm", "verify"}, 4),
                  "prove: %zu stages", nn);
        fprintf(stderr, "prove: %zu calls, %zu inside \"msm\"\n", r->n, inner_calls(r, "msm"));

        /* a batch: the stages of each proof in turn */
        const g16_witness *ws[2] = {w, w};
        g16_result *out[2] = {0};
        po.verify = 0;
        rec_reset(r);
        CHECK(g16_prove_batch(ctx, out, key, ws, 2, &po, NULL) == G16_OK);
        for (int i = 0; i < 2; i++) {
            CHECK(out[i] && g16_result_verify(ctx, key, out[i]) == G16_OK);
            g16_result_free(out[i]);
        }
        nn = check_calls(r, "batch", names, 64);
        CHECK_MSG(names_are(names, nn, (const char *[]){"synthesis", "ntt", "msm", "synthesis", "ntt", "msm"}, 6),
                  "batch: %zu stages", nn);

        /* no callback: as before */
        g16_prove_opts_init(&po);
        po.backend = G16_BACKEND_CPU;
        rec_reset(r);
        CHECK(g16_prove(ctx, &res, key, w, &po, NULL) == G16_OK && r->n == 0);
        g16_result_free(res);
    }
    g16_witness_free(w);
    g16_key_free(key);
    groth16_setup_mem_free(m2, l2); /* the key's bytes: after the key */
    g16_ctx_destroy(ctx);
}

int main(void) {
    uint64_t seed = t_seed("test_progress");
    static rec r;
    test_helper(&r);
    test_ops(&r, G16_CURVE_BN254, 12, seed);
    test_ops(&r, G16_CURVE_BLS12_381, 10, seed + 1);
    return t_done("test_progress");
}
