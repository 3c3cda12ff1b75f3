/* The job store contract (src/daemon/store.h), run against SQLite always and
 * against PostgreSQL when G16_TEST_PG_URL is set (else that half prints
 * "skipped"). Each section gets a fresh empty database: a new SQLite file,
 * or a new PostgreSQL schema (search_path set through the connection's
 * options), dropped at the end.
 *
 * Oracles: dispatch order is checked against a naive sort of the jobs the
 * test created (random priorities, keys, partition counts); counts against
 * the per-job reads; claims under concurrency against a claimed-once
 * bitmap. */
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/store.h"
#include "testutil.h"
#include "util/util.h"

#ifdef G16_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

/* ---- backends: a fresh database per section ----------------------------- */

typedef struct backend {
    const char *name;
    char tmpdir[64];    /* sqlite */
    const char *pg_url; /* postgresql */
    int seq;
    char url[1024]; /* the current section's */
    char schema[64];
} backend;

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

#ifdef G16_HAVE_LIBPQ
static int pg_admin(const backend *b, const char *sql) {
    PGconn *c = PQconnectdb(b->pg_url);
    int ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
        PQclear(PQexec(c, "SET client_min_messages = warning"));
        PGresult *r = PQexec(c, sql);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            fprintf(stderr, "pg admin '%s': %s", sql, PQerrorMessage(c));
        PQclear(r);
    } else {
        fprintf(stderr, "pg admin connect: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return ok;
}

/* Runs a query; returns its row count, -1 on failure. */
static int pg_admin_q(const backend *b, const char *sql) {
    PGconn *c = PQconnectdb(b->pg_url);
    int n = -1;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            n = PQntuples(r);
        else
            fprintf(stderr, "pg admin '%s': %s", sql, PQerrorMessage(c));
        PQclear(r);
    }
    PQfinish(c);
    return n;
}
#endif

/* Sets b->url to an empty database; 0 on failure. */
static int fresh_db(backend *b) {
    b->seq++;
    if (!b->pg_url) {
        snprintf(b->url, sizeof b->url, "sqlite:%s/s%d.db", b->tmpdir, b->seq);
        return 1;
    }
#ifdef G16_HAVE_LIBPQ
    snprintf(b->schema, sizeof b->schema, "g16t_%d_%d", (int)getpid(), b->seq);
    char sql[256];
    snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", b->schema, b->schema);
    if (!pg_admin(b, sql))
        return 0;
    const char *u = b->pg_url;
    if (strncmp(u, "postgres", 8) == 0) /* a URI */
        snprintf(b->url, sizeof b->url, "%s%csslmode=disable&application_name=%s&options=-csearch_path%%3D%s", u,
                 strchr(u, '?') ? '&' : '?', b->schema, b->schema);
    else /* key=value conninfo, given as pg:CONNINFO or plain */
        snprintf(b->url, sizeof b->url, "pg:%s application_name=%s options='-csearch_path=%s'", u, b->schema,
                 b->schema);
    return 1;
#else
    return 0;
#endif
}

static void drop_db(backend *b) {
#ifdef G16_HAVE_LIBPQ
    if (b->pg_url) {
        char sql[256];
        snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", b->schema);
        pg_admin(b, sql);
    }
#else
    (void)b;
#endif
}

static store *open_as(backend *b, const char *owner) {
    store *s = NULL;
    g16_status st = {0};
    if (store_open(&s, b->url, owner, &st)) {
        fprintf(stderr, "store_open(%s, %s): %s\n", b->url, owner, st.msg);
        CHECK(0);
        return NULL;
    }
    CHECK(strcmp(store_backend(s), b->pg_url ? "postgresql" : "sqlite") == 0);
    return s;
}

/* ---- helpers ------------------------------------------------------------ */

static int64_t mkjob(store *s, const char *key, int prio, uint32_t np, const char *idem) {
    store_witness *w = calloc(np, sizeof *w);
    char (*paths)[64] = calloc(np, sizeof *paths);
    for (uint32_t i = 0; i < np; i++) {
        snprintf(paths[i], sizeof paths[i], "/w/%s/%u.wtns", key, i);
        w[i].path = paths[i];
    }
    store_job_new j = {idem, key, prio, np, w, 0};
    int64_t id = -1;
    int ex = -1;
    g16_status st = {0};
    g16_err err = store_job_create(s, &j, &id, &ex, &st);
    CHECK_MSG(err == G16_OK, "%s", st.msg);
    free(w);
    free(paths);
    return err ? -1 : id;
}

static size_t claim(store *s, const char *const *keys, size_t nkeys, double lease, uint32_t max_att, store_claim *out,
                    size_t max) {
    size_t n = 0;
    g16_status st = {0};
    memset(out, 0, max * sizeof *out); /* so that free_claims of unclaimed entries is harmless */
    g16_err err = store_claim_next(s, keys, nkeys, lease, max_att, out, max, &n, &st);
    CHECK_MSG(err == G16_OK, "claim: %s", st.msg);
    return n;
}

static void free_claims(store_claim *c, size_t n) {
    for (size_t i = 0; i < n; i++)
        store_claim_free(&c[i]);
}

static store_job_info getjob(store *s, int64_t id, int res) {
    store_job_info j;
    g16_status st = {0};
    g16_err err = store_job_get(s, id, res, &j, &st);
    CHECK_MSG(err == G16_OK, "job_get %lld: %s", (long long)id, st.msg);
    return j;
}

static store_state job_state(store *s, int64_t id) {
    store_job_info j = getjob(s, id, 0);
    store_state r = j.state;
    store_job_info_free(&j);
    return r;
}

static const char *KA[] = {"kA"};

/* ---- sections ------------------------------------------------------------ */

static void t_create(backend *b) {
    store *s = open_as(b, "a");
    if (!s)
        return;
    g16_status st = {0};
    unsigned char blob[300];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (unsigned char)(i * 7 + 3); /* includes 0 bytes */
    blob[5] = 0;
    store_witness w[3] = {{"/abs/w0.wtns", NULL, 0}, {NULL, blob, sizeof blob}, {NULL, blob, 0}};
    store_job_new j = {"idem-1", "kA", G16_PRIORITY_HIGH, 3, w, 0};
    int64_t id = 0, id2 = 0;
    int ex = -1;
    CHECK(store_job_create(s, &j, &id, &ex, &st) == G16_OK);
    CHECK(ex == 0 && id > 0);
    CHECK(store_job_create(s, &j, &id2, &ex, &st) == G16_OK);
    CHECK_MSG(ex == 1 && id2 == id, "existed %d id %lld vs %lld", ex, (long long)id2, (long long)id);
    store_job_new j2 = j;
    j2.n_partitions = 2;
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_ERR_INVALID_ARG);
    j2 = j;
    j2.key_id = "kB";
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_ERR_INVALID_ARG);
    /* bad jobs */
    j2 = j;
    j2.idempotency_key = NULL;
    j2.n_partitions = 0;
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_ERR_INVALID_ARG);
    j2.n_partitions = 1;
    j2.priority = 7;
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_ERR_INVALID_ARG);
    store_witness bad = {"/x", blob, 1};
    j2.priority = 0;
    j2.witness = &bad;
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_ERR_INVALID_ARG);
    /* a job without idempotency key gets a new id */
    j2 = j;
    j2.idempotency_key = NULL;
    CHECK(store_job_create(s, &j2, &id2, &ex, &st) == G16_OK && id2 > id && ex == 0);

    store_job_info ji = getjob(s, id, 1);
    CHECK(ji.id == id && strcmp(ji.key_id, "kA") == 0 && strcmp(ji.idempotency_key, "idem-1") == 0);
    CHECK(ji.priority == G16_PRIORITY_HIGH && ji.state == STORE_QUEUED && ji.n_partitions == 3);
    CHECK(ji.n_done == 0 && ji.n_failed == 0 && ji.finished == 0);
    CHECK_MSG(ji.created > 1.7e9 && ji.created < (double)time(NULL) + 5, "created %f", ji.created);
    CHECK(ji.queue_position == 0);
    for (uint32_t i = 0; i < 3 && ji.parts; i++)
        CHECK(ji.parts[i].state == STORE_QUEUED && ji.parts[i].attempts == 0 && !ji.parts[i].proof_json);
    store_job_info_free(&ji);
    ji = getjob(s, id2, 0);
    CHECK_MSG(ji.queue_position == 1, "queue position %llu", (unsigned long long)ji.queue_position);
    store_job_info_free(&ji);
    CHECK(store_job_get(s, id2 + 1000, 0, &ji, &st) == G16_ERR_INVALID_ARG);

    /* witnesses come back as given */
    store_claim c[4];
    size_t n = claim(s, KA, 1, 60, 3, c, 4);
    CHECK_MSG(n == 4, "claimed %zu", n);
    if (n == 4) {
        CHECK(c[0].job_id == id && c[0].partition == 0 && c[0].wtns_path && !strcmp(c[0].wtns_path, "/abs/w0.wtns"));
        CHECK(!c[0].wtns_data);
        CHECK(c[1].partition == 1 && !c[1].wtns_path && c[1].wtns_len == sizeof blob && c[1].wtns_data &&
              memcmp(c[1].wtns_data, blob, sizeof blob) == 0);
        CHECK(c[2].partition == 2 && !c[2].wtns_path && c[2].wtns_len == 0 && c[2].wtns_data);
        CHECK(c[3].job_id == id2 && c[3].partition == 0);
        CHECK(c[0].attempt == 1 && c[0].priority == G16_PRIORITY_HIGH && !strcmp(c[0].key_id, "kA"));
    }
    free_claims(c, n);
    CHECK(job_state(s, id) == STORE_RUNNING);
    store_close(s);
}

/* A reference job for the order test. */
typedef struct ref_job {
    int64_t id;
    int prio, key;
    uint32_t np, next; /* partitions claimed so far (in order) */
} ref_job;

static void t_order(backend *b, g16_rng *rng) {
    store *s = open_as(b, "a");
    if (!s)
        return;
    static const char *keys[3] = {"kA", "kB", "k\"C\\"};
    enum { NJ = 40 };
    ref_job r[NJ];
    uint32_t total = 0;
    for (int i = 0; i < NJ; i++) {
        r[i].prio = (int)(g16_rng_next(rng) % 4);
        r[i].key = (int)(g16_rng_next(rng) % 3);
        r[i].np = 1 + (uint32_t)(g16_rng_next(rng) % 4);
        r[i].next = 0;
        r[i].id = mkjob(s, keys[r[i].key], r[i].prio, r[i].np, NULL);
        total += r[i].np;
    }
    uint32_t claimed = 0;
    int rounds = 0, mism = 0;
    while (rounds++ < 400 && !mism) {
        /* random key subset (non-empty) and batch size */
        unsigned mask = 1 + (unsigned)(g16_rng_next(rng) % 7);
        const char *ks[3];
        size_t nk = 0;
        for (int k = 0; k < 3; k++)
            if (mask >> k & 1)
                ks[nk++] = keys[k];
        size_t max = 1 + (size_t)(g16_rng_next(rng) % 5);
        store_claim c[5];
        size_t n = claim(s, ks, nk, 60, 3, c, max);
        /* expected: the pending partitions of those keys in dispatch order */
        size_t e = 0;
        uint32_t tmp_next[NJ];
        for (int i = 0; i < NJ; i++)
            tmp_next[i] = r[i].next;
        for (int p = 3; p >= 0 && e < max; p--)
            for (int i = 0; i < NJ && e < max; i++) { /* ids increase with i */
                if (r[i].prio != p || !(mask >> r[i].key & 1))
                    continue;
                while (tmp_next[i] < r[i].np && e < max) {
                    if (e >= n || c[e].job_id != r[i].id || c[e].partition != tmp_next[i]) {
                        if (!mism++)
                            fprintf(stderr, "order: round %d claim %zu: got %lld/%u, want %lld/%u\n", rounds, e,
                                    e < n ? (long long)c[e].job_id : -1LL, e < n ? c[e].partition : 0,
                                    (long long)r[i].id, tmp_next[i]);
                    }
                    tmp_next[i]++;
                    e++;
                }
            }
        CHECK_MSG(n == e, "round %d: claimed %zu, want %zu", rounds, n, e);
        for (size_t k = 0; k < n; k++)
            for (int i = 0; i < NJ; i++)
                if (r[i].id == c[k].job_id)
                    r[i].next++;
        claimed += (uint32_t)n;
        free_claims(c, n);
        if (claimed == total)
            break;
    }
    CHECK(!mism);
    CHECK_MSG(claimed == total, "claimed %u of %u", claimed, total);
    store_claim c[1];
    const char *all[3] = {keys[0], keys[1], keys[2]};
    CHECK(claim(s, all, 3, 60, 3, c, 1) == 0);
    store_close(s);
}

static void t_leases(backend *b) {
    store *a = open_as(b, "owner-a"), *bb = open_as(b, "owner-b");
    if (!a || !bb) {
        store_close(a);
        store_close(bb);
        return;
    }
    g16_status st = {0};
    int64_t j1 = mkjob(a, "kA", 1, 1, NULL);
    store_claim c[2];
    CHECK(claim(a, KA, 1, 1.5, 5, c, 2) == 1);
    free_claims(c, 1);
    CHECK(claim(bb, KA, 1, 30, 5, c, 2) == 0); /* lease live */
    store_job_info ji = getjob(bb, j1, 0);
    CHECK(ji.parts && ji.parts[0].state == STORE_RUNNING && !strcmp(ji.parts[0].owner, "owner-a"));
    store_job_info_free(&ji);
    sleep_s(1.8);
    size_t n = claim(bb, KA, 1, 30, 5, c, 2);
    CHECK_MSG(n == 1 && c[0].job_id == j1 && c[0].attempt == 2, "reclaim n=%zu attempt %u", n, n ? c[0].attempt : 0);
    free_claims(c, n);
    /* the old owner lost it */
    CHECK(store_part_done(a, j1, 0, "{}", "[]", NULL, &st) == G16_ERR_CANCELLED);
    CHECK(store_part_fail(a, j1, 0, G16_ERR_IO, "x", &st) == G16_ERR_CANCELLED);
    CHECK(store_part_release(a, j1, 0, &st) == G16_ERR_CANCELLED);
    CHECK(store_part_done(bb, j1, 0, "{\"pi_a\":1}", "[\"7\"]", NULL, &st) == G16_OK);
    CHECK(job_state(a, j1) == STORE_DONE);

    /* heartbeats keep a lease */
    int64_t j2 = mkjob(a, "kA", 1, 2, NULL);
    CHECK(claim(a, KA, 1, 1.5, 5, c, 2) == 2);
    free_claims(c, 2);
    for (int i = 0; i < 6; i++) { /* 1.8 s in all, past the first lease */
        sleep_s(0.3);
        CHECK(store_heartbeat(a, 1.5, &st) == G16_OK);
        CHECK(store_heartbeat(bb, 1.5, &st) == G16_OK); /* holds nothing: no effect */
        CHECK(claim(bb, KA, 1, 30, 5, c, 2) == 0);
    }
    sleep_s(1.8); /* no heartbeat: expires */
    n = claim(bb, KA, 1, 30, 5, c, 2);
    CHECK_MSG(n == 2 && c[0].job_id == j2 && c[0].partition == 0 && c[1].partition == 1, "n=%zu", n);
    free_claims(c, n);
    ji = getjob(a, j2, 0);
    CHECK(ji.parts && !strcmp(ji.parts[1].owner, "owner-b") && ji.parts[1].attempts == 2);
    store_job_info_free(&ji);

    /* store_renew keeps only the listed leases; another owner's are skipped */
    int64_t j4 = mkjob(a, "kA", 1, 2, NULL);
    CHECK(claim(a, KA, 1, 1.5, 5, c, 2) == 2);
    free_claims(c, 2);
    store_part_ref keep[2] = {{j4, 1}, {j2, 0}}; /* j2/0 is owner-b's */
    for (int i = 0; i < 6; i++) {
        sleep_s(0.3);
        CHECK(store_renew(a, 1.5, keep, 2, &st) == G16_OK);
    }
    n = claim(bb, KA, 1, 30, 5, c, 2);
    CHECK_MSG(n == 1 && c[0].job_id == j4 && c[0].partition == 0, "renew: n=%zu", n);
    free_claims(c, n);
    CHECK(store_part_done(a, j4, 1, "{}", "[]", NULL, &st) == G16_OK);
    CHECK(store_part_done(a, j2, 0, "{}", "[]", NULL, &st) == G16_ERR_CANCELLED);
    CHECK(store_renew(a, 1.5, NULL, 0, &st) == G16_OK);

    /* the probe write, and what counts as a full store */
    CHECK(store_probe(a, 64, &st) == G16_OK);
    CHECK(store_probe(a, 1u << 20, &st) == G16_OK);
    CHECK(store_probe(a, 64, &st) == G16_OK);
    CHECK(store_probe(a, 10, &st) == G16_ERR_INVALID_ARG);
    g16_status fs = {G16_ERR_IO, "store (sqlite): commit: database or disk is full"};
    CHECK(store_error_is_full(&fs));
    snprintf(fs.msg, sizeof fs.msg, "store (sqlite): commit: disk I/O error (File too large)");
    CHECK(store_error_is_full(&fs));
    snprintf(fs.msg, sizeof fs.msg, "store (postgresql): q9: could not extend file: No space left on device");
    CHECK(store_error_is_full(&fs));
    snprintf(fs.msg, sizeof fs.msg, "store (sqlite): commit: database is locked");
    CHECK(!store_error_is_full(&fs));
    fs.code = G16_ERR_INVALID_ARG;
    snprintf(fs.msg, sizeof fs.msg, "disk is full");
    CHECK(!store_error_is_full(&fs));

    /* max_attempts: a partition whose leases keep expiring is abandoned */
    int64_t j3 = mkjob(a, "kB", 2, 1, NULL);
    const char *kb[] = {"kB"};
    CHECK(claim(a, kb, 1, 0.2, 2, c, 1) == 1);
    free_claims(c, 1);
    sleep_s(0.5);
    n = claim(bb, kb, 1, 0.2, 2, c, 1);
    CHECK(n == 1 && c[0].attempt == 2);
    free_claims(c, n);
    sleep_s(0.5);
    CHECK(claim(a, kb, 1, 0.2, 2, c, 1) == 0);
    ji = getjob(a, j3, 0);
    CHECK(ji.state == STORE_FAILED && ji.n_failed == 1 && ji.finished > 0);
    CHECK_MSG(ji.parts && ji.parts[0].state == STORE_FAILED && ji.parts[0].error &&
                  strstr(ji.parts[0].error, "abandoned after 2 attempts"),
              "error '%s'", ji.parts && ji.parts[0].error ? ji.parts[0].error : "(null)");
    store_job_info_free(&ji);
    store_close(a);
    store_close(bb);
}

static void t_transitions(backend *b) {
    store *s = open_as(b, "a"), *o = open_as(b, "other");
    if (!s || !o) {
        store_close(s);
        store_close(o);
        return;
    }
    g16_status st = {0};
    store_claim c[4];
    /* done + fail -> FAILED only once all have finished */
    int64_t j1 = mkjob(s, "kA", 3, 3, NULL);
    CHECK(claim(s, KA, 1, 60, 3, c, 4) == 3);
    free_claims(c, 3);
    CHECK(store_part_done(s, j1, 0, "{\"p\":0}", "[\"1\"]", "{\"device_ms\":2.5}", &st) == G16_OK);
    CHECK(job_state(s, j1) == STORE_RUNNING);
    CHECK(store_part_fail(s, j1, 1, G16_ERR_INVALID_PROOF, "proof did not verify", &st) == G16_OK);
    CHECK(job_state(s, j1) == STORE_RUNNING);
    CHECK(store_part_done(o, j1, 2, "{}", "[]", NULL, &st) == G16_ERR_CANCELLED); /* not its owner */
    CHECK(store_part_done(s, j1, 2, "{\"p\":2}", "[\"3\"]", NULL, &st) == G16_OK);
    CHECK(store_part_done(s, j1, 2, "{\"p\":2}", "[\"3\"]", NULL, &st) == G16_ERR_CANCELLED); /* twice */
    CHECK(store_part_done(s, j1, 7, "{}", "[]", NULL, &st) == G16_ERR_INVALID_ARG);
    store_job_info ji = getjob(s, j1, 1);
    CHECK(ji.state == STORE_FAILED && ji.n_done == 2 && ji.n_failed == 1 && ji.finished >= ji.created);
    if (ji.parts) {
        CHECK(ji.parts[0].proof_json && !strcmp(ji.parts[0].proof_json, "{\"p\":0}"));
        CHECK(ji.parts[0].public_json && !strcmp(ji.parts[0].public_json, "[\"1\"]"));
        CHECK(ji.parts[0].stats_json && strstr(ji.parts[0].stats_json, "device_ms"));
        CHECK(ji.parts[1].state == STORE_FAILED && ji.parts[1].err_code == G16_ERR_INVALID_PROOF);
        CHECK(ji.parts[1].error && !strcmp(ji.parts[1].error, "proof did not verify"));
        CHECK(!ji.parts[1].proof_json && !ji.parts[2].stats_json);
        CHECK(ji.parts[2].proof_json && !strcmp(ji.parts[2].proof_json, "{\"p\":2}"));
    }
    store_job_info_free(&ji);
    ji = getjob(s, j1, 0); /* without results */
    CHECK(ji.parts && !ji.parts[0].proof_json && !ji.parts[0].public_json && ji.parts[1].error);
    store_job_info_free(&ji);

    /* all done -> DONE */
    int64_t j2 = mkjob(s, "kA", 0, 2, NULL);
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1);
    free_claims(c, 1);
    CHECK(job_state(s, j2) == STORE_RUNNING);
    CHECK(store_part_done(s, j2, 0, "{}", "[]", NULL, &st) == G16_OK);
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1);
    free_claims(c, 1);
    CHECK(store_part_done(s, j2, 1, "{}", "[]", NULL, &st) == G16_OK);
    CHECK(job_state(s, j2) == STORE_DONE);
    store_state js = STORE_QUEUED;
    CHECK(store_job_cancel(s, j2, &js, &st) == G16_OK && js == STORE_DONE); /* finished: left as is */
    CHECK(job_state(s, j2) == STORE_DONE);

    /* release: back to the queue, the attempt not counted */
    int64_t j3 = mkjob(s, "kA", 2, 1, NULL);
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1);
    free_claims(c, 1);
    CHECK(store_part_release(o, j3, 0, &st) == G16_ERR_CANCELLED);
    CHECK(store_part_release(s, j3, 0, &st) == G16_OK);
    ji = getjob(s, j3, 0);
    CHECK(ji.parts && ji.parts[0].state == STORE_QUEUED && ji.parts[0].attempts == 0);
    store_job_info_free(&ji);
    size_t n = claim(o, KA, 1, 60, 3, c, 1);
    CHECK(n == 1 && c[0].job_id == j3 && c[0].attempt == 1);
    free_claims(c, n);

    /* cancel: queued and running partitions; the runner learns it */
    int64_t j4 = mkjob(s, "kA", 2, 3, NULL);
    n = claim(s, KA, 1, 60, 3, c, 2);
    CHECK(n == 2 && c[0].job_id == j4);
    free_claims(c, n);
    CHECK(store_part_done(s, j4, 0, "{}", "[]", NULL, &st) == G16_OK);
    js = STORE_QUEUED;
    CHECK(store_job_cancel(s, j4, &js, &st) == G16_OK && js == STORE_CANCELLED);
    CHECK(store_part_done(s, j4, 1, "{}", "[]", NULL, &st) == G16_ERR_CANCELLED);
    CHECK(claim(s, KA, 1, 60, 3, c, 2) == 0);
    ji = getjob(s, j4, 1);
    CHECK(ji.state == STORE_CANCELLED && ji.n_done == 1 && ji.n_cancelled == 2 && ji.finished > 0);
    CHECK(ji.parts && ji.parts[0].state == STORE_DONE && ji.parts[0].proof_json);
    CHECK(ji.parts && ji.parts[1].state == STORE_CANCELLED && ji.parts[2].state == STORE_CANCELLED);
    store_job_info_free(&ji);
    CHECK(store_job_cancel(s, 999999, &js, &st) == G16_ERR_INVALID_ARG);
    /* a queued job cancelled */
    int64_t j5 = mkjob(s, "kA", 1, 2, NULL);
    CHECK(store_job_cancel(s, j5, NULL, &st) == G16_OK && job_state(s, j5) == STORE_CANCELLED);
    store_close(s);
    store_close(o);
}

static void t_expire_recover(backend *b) {
    store *s = open_as(b, "a");
    if (!s)
        return;
    g16_status st = {0};
    store_witness w[2] = {{"/w0", NULL, 0}, {"/w1", NULL, 0}};
    store_job_new j = {NULL, "kA", 1, 2, w, 1.0};
    int64_t j1 = 0, j2 = 0;
    CHECK(store_job_create(s, &j, &j1, NULL, &st) == G16_OK);
    j.timeout_s = 0;
    CHECK(store_job_create(s, &j, &j2, NULL, &st) == G16_OK);
    store_claim c[2];
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1); /* j1/0 running */
    free_claims(c, 1);
    size_t ne = 99;
    CHECK(store_expire(s, &ne, &st) == G16_OK && ne == 0);
    sleep_s(1.2);
    CHECK(store_expire(s, &ne, &st) == G16_OK && ne == 1);
    store_job_info ji = getjob(s, j1, 0);
    CHECK(ji.state == STORE_FAILED && ji.n_failed == 2);
    CHECK(ji.parts && ji.parts[0].err_code == G16_ERR_TIMEOUT && ji.parts[0].error && strstr(ji.parts[0].error, "timed out"));
    store_job_info_free(&ji);
    CHECK(store_part_done(s, j1, 0, "{}", "[]", NULL, &st) == G16_ERR_CANCELLED);
    CHECK(store_expire(s, &ne, &st) == G16_OK && ne == 0);
    CHECK(job_state(s, j2) == STORE_QUEUED);

    /* recover after a "crash": close with j2's partitions running */
    CHECK(claim(s, KA, 1, 60, 3, c, 2) == 2);
    free_claims(c, 2);
    store_close(s);
    s = open_as(b, "a");
    if (!s)
        return;
    size_t nr = 99;
    CHECK(store_recover(s, &nr, &st) == G16_OK);
    CHECK_MSG(nr == 2, "requeued %zu", nr);
    ji = getjob(s, j2, 0);
    CHECK(ji.state == STORE_RUNNING && ji.parts && ji.parts[0].state == STORE_QUEUED && ji.parts[0].attempts == 1);
    store_job_info_free(&ji);
    size_t n = claim(s, KA, 1, 60, 3, c, 2);
    CHECK(n == 2 && c[0].attempt == 2);
    free_claims(c, n);
    CHECK(store_part_done(s, j2, 0, "{\"a\":1}", "[\"5\"]", NULL, &st) == G16_OK);
    CHECK(store_part_done(s, j2, 1, "{\"a\":2}", "[\"6\"]", NULL, &st) == G16_OK);
    store_close(s);

    /* results survive close/reopen */
    s = open_as(b, "z");
    if (!s)
        return;
    CHECK(store_recover(s, &nr, &st) == G16_OK && nr == 0);
    ji = getjob(s, j2, 1);
    CHECK(ji.state == STORE_DONE && ji.n_done == 2);
    CHECK(ji.parts && ji.parts[1].proof_json && !strcmp(ji.parts[1].proof_json, "{\"a\":2}"));
    CHECK(ji.parts && ji.parts[1].public_json && !strcmp(ji.parts[1].public_json, "[\"6\"]"));
    store_job_info_free(&ji);
    store_close(s);
}

/* A job's start time: 0 while queued, set by its first claim, kept by every
 * later claim (after a release, a lost lease, a recovery) and by its end. */
static void t_started(backend *b) {
    store *s = open_as(b, "a"), *o = open_as(b, "other");
    if (!s || !o) {
        store_close(s);
        store_close(o);
        return;
    }
    g16_status st = {0};
    store_claim c[2];
    int64_t j1 = mkjob(s, "kA", 2, 2, NULL), j2 = mkjob(s, "kA", 1, 1, NULL), j3 = mkjob(s, "kA", 0, 1, NULL);
    store_job_info ji = getjob(s, j1, 0);
    CHECK_MSG(ji.started == 0, "queued job started %f", ji.started);
    store_job_info_free(&ji);
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1 && c[0].job_id == j1 && c[0].partition == 0);
    free_claims(c, 1);
    ji = getjob(s, j1, 0);
    double t1 = ji.started;
    CHECK_MSG(ji.created <= t1 && t1 <= (double)time(NULL) + 1, "created %f started %f", ji.created, t1);
    store_job_info_free(&ji);
    ji = getjob(s, j2, 0);
    CHECK_MSG(ji.state == STORE_QUEUED && ji.started == 0, "job 2 %s, started %f", store_state_name(ji.state),
              ji.started);
    store_job_info_free(&ji);
    sleep_s(0.05);
    /* the second partition, a release and a re-claim, a lost lease taken
     * over by another owner: the start stays the first claim's */
    CHECK(claim(s, KA, 1, 0.2, 3, c, 1) == 1 && c[0].job_id == j1 && c[0].partition == 1);
    free_claims(c, 1);
    CHECK(store_part_release(s, j1, 0, &st) == G16_OK);
    CHECK(claim(s, KA, 1, 60, 3, c, 1) == 1 && c[0].job_id == j1 && c[0].partition == 0);
    free_claims(c, 1);
    sleep_s(0.3);
    CHECK(claim(o, KA, 1, 60, 3, c, 1) == 1 && c[0].job_id == j1 && c[0].partition == 1);
    free_claims(c, 1);
    ji = getjob(s, j1, 0);
    CHECK_MSG(ji.started == t1, "started %f after re-claims, first %f", ji.started, t1);
    store_job_info_free(&ji);
    /* recovery after a "crash" of s (SQLite: every running partition) */
    store_close(s);
    s = open_as(b, "a");
    if (!s) {
        store_close(o);
        return;
    }
    size_t nr = 0;
    CHECK(store_recover(s, &nr, &st) == G16_OK && nr >= 1);
    size_t n = claim(s, KA, 1, 60, 3, c, 2);
    CHECK(n >= 1 && c[0].job_id == j1);
    for (size_t i = 0; i < n; i++)
        CHECK(c[i].job_id != j1 ||
              store_part_done(s, j1, c[i].partition, "{}", "[]", NULL, &st) == G16_OK);
    free_claims(c, n);
    ji = getjob(s, j1, 0);
    if (ji.state != STORE_DONE) /* PostgreSQL: o still holds partition 1 */
        CHECK(store_part_done(o, j1, 1, "{}", "[]", NULL, &st) == G16_OK);
    store_job_info_free(&ji);
    ji = getjob(s, j1, 0);
    CHECK_MSG(ji.state == STORE_DONE && ji.started == t1 && ji.started <= ji.finished, "%s started %f finished %f",
              store_state_name(ji.state), ji.started, ji.finished);
    store_job_info_free(&ji);
    /* a job cancelled while queued never started */
    CHECK(store_job_cancel(s, j3, NULL, &st) == G16_OK);
    ji = getjob(s, j3, 0);
    CHECK(ji.state == STORE_CANCELLED && ji.started == 0);
    store_job_info_free(&ji);
    /* j2's claim (if not above) starts it */
    n = claim(s, KA, 1, 60, 3, c, 1);
    free_claims(c, n);
    ji = getjob(s, j2, 0);
    CHECK_MSG(ji.state == STORE_RUNNING && ji.started >= ji.created && ji.started >= t1, "job 2 %s started %f",
              store_state_name(ji.state), ji.started);
    store_job_info_free(&ji);
    store_close(s);
    store_close(o);
}

/* Version 1 of the schema (jobs without started), as g16d created it before
 * version 2, with two jobs: one done (partitions started at 1.7e9 + 10 and
 * + 20), one queued. Opening it migrates it: the column is added, the done
 * job's start is its earliest partition start, the queued one's is unset,
 * schema_version becomes 2, and the store works on it. */
static const char *const V1_SQLITE =
    "CREATE TABLE g16_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, idempotency_key TEXT UNIQUE, key_id TEXT NOT NULL,"
    " priority INTEGER NOT NULL, state INTEGER NOT NULL DEFAULT 0, n_partitions INTEGER NOT NULL,"
    " created REAL NOT NULL, finished REAL, timeout_s REAL NOT NULL DEFAULT 0, deadline REAL);"
    "CREATE TABLE partitions (job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, idx INTEGER NOT NULL,"
    " state INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL, key_id TEXT NOT NULL,"
    " attempts INTEGER NOT NULL DEFAULT 0, owner TEXT, lease_until REAL, wtns_path TEXT,"
    " err_code INTEGER NOT NULL DEFAULT 0, error TEXT, proof_json TEXT, public_json TEXT, stats_json TEXT,"
    " started REAL, finished REAL, PRIMARY KEY (job_id, idx));"
    "CREATE TABLE witnesses (job_id INTEGER NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (job_id, idx));"
    "CREATE INDEX partitions_pending ON partitions (priority DESC, job_id, idx) WHERE state < 2;"
    "CREATE INDEX partitions_owner ON partitions (owner) WHERE state = 1;"
    "CREATE INDEX jobs_queue ON jobs (state, priority, id);"
    "CREATE INDEX jobs_deadline ON jobs (deadline) WHERE state < 2 AND deadline IS NOT NULL;"
    "INSERT INTO g16_meta VALUES ('schema_version', '1');"
    "INSERT INTO jobs (key_id, priority, state, n_partitions, created, finished)"
    " VALUES ('kA', 1, 2, 2, 1700000000, 1700000030);"
    "INSERT INTO partitions (job_id, idx, state, priority, key_id, attempts, proof_json, public_json, started,"
    " finished) VALUES (1, 0, 2, 1, 'kA', 1, '{\"p\":0}', '[]', 1700000020, 1700000025),"
    " (1, 1, 2, 1, 'kA', 2, '{\"p\":1}', '[]', 1700000010, 1700000030);"
    "INSERT INTO jobs (key_id, priority, state, n_partitions, created) VALUES ('kA', 1, 0, 1, 1700000040);"
    "INSERT INTO partitions (job_id, idx, priority, key_id, wtns_path) VALUES (2, 0, 1, 'kA', '/w/0.wtns');";

static const char *const V1_PG =
    "CREATE TABLE g16_meta (name text PRIMARY KEY, value text NOT NULL);"
    "CREATE TABLE jobs (id bigserial PRIMARY KEY, idempotency_key text UNIQUE, key_id text NOT NULL,"
    " priority integer NOT NULL, state integer NOT NULL DEFAULT 0, n_partitions integer NOT NULL,"
    " created timestamptz NOT NULL DEFAULT now(), finished timestamptz, timeout_s float8 NOT NULL DEFAULT 0,"
    " deadline timestamptz);"
    "CREATE TABLE partitions (job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, idx integer NOT NULL,"
    " state integer NOT NULL DEFAULT 0, priority integer NOT NULL, key_id text NOT NULL,"
    " attempts integer NOT NULL DEFAULT 0, owner text, lease_until timestamptz, wtns_path text,"
    " err_code integer NOT NULL DEFAULT 0, error text, proof_json text, public_json text, stats_json text,"
    " started timestamptz, finished timestamptz, PRIMARY KEY (job_id, idx));"
    "CREATE TABLE witnesses (job_id bigint NOT NULL, idx integer NOT NULL, data bytea NOT NULL,"
    " PRIMARY KEY (job_id, idx));"
    "CREATE INDEX partitions_pending ON partitions (priority DESC, job_id, idx) WHERE state < 2;"
    "CREATE INDEX partitions_owner ON partitions (owner) WHERE state = 1;"
    "CREATE INDEX jobs_queue ON jobs (state, priority, id);"
    "CREATE INDEX jobs_deadline ON jobs (deadline) WHERE state < 2 AND deadline IS NOT NULL;"
    "INSERT INTO g16_meta VALUES ('schema_version', '1');"
    "INSERT INTO jobs (key_id, priority, state, n_partitions, created, finished)"
    " VALUES ('kA', 1, 2, 2, to_timestamp(1700000000), to_timestamp(1700000030));"
    "INSERT INTO partitions (job_id, idx, state, priority, key_id, attempts, proof_json, public_json, started,"
    " finished) VALUES (1, 0, 2, 1, 'kA', 1, '{\"p\":0}', '[]', to_timestamp(1700000020), to_timestamp(1700000025)),"
    " (1, 1, 2, 1, 'kA', 2, '{\"p\":1}', '[]', to_timestamp(1700000010), to_timestamp(1700000030));"
    "INSERT INTO jobs (key_id, priority, state, n_partitions, created) VALUES ('kA', 1, 0, 1, now());"
    "INSERT INTO partitions (job_id, idx, priority, key_id, wtns_path) VALUES (2, 0, 1, 'kA', '/w/0.wtns');";

static void t_migrate(backend *b) {
    int made = 0;
    if (!b->pg_url) {
        sqlite3 *db = NULL;
        made = sqlite3_open(b->url + 7, &db) == SQLITE_OK && sqlite3_exec(db, V1_SQLITE, NULL, NULL, NULL) == SQLITE_OK;
        CHECK_MSG(made, "v1 sqlite database: %s", db ? sqlite3_errmsg(db) : "no memory");
        sqlite3_close(db);
    } else {
#ifdef G16_HAVE_LIBPQ
        size_t len = strlen(V1_PG) + 128;
        char *sql = malloc(len);
        snprintf(sql, len, "SET search_path TO %s; %s", b->schema, V1_PG);
        made = pg_admin(b, sql);
        CHECK(made);
        free(sql);
#endif
    }
    if (!made)
        return;
    store *s = open_as(b, "a");
    if (!s)
        return;
    store_job_info ji = getjob(s, 1, 1);
    CHECK_MSG(ji.state == STORE_DONE && ji.n_done == 2 && ji.created == 1700000000.0 &&
                  ji.finished == 1700000030.0 && ji.started == 1700000010.0,
              "migrated done job: %s created %f started %f finished %f", store_state_name(ji.state), ji.created,
              ji.started, ji.finished);
    CHECK(ji.parts && ji.parts[1].proof_json && !strcmp(ji.parts[1].proof_json, "{\"p\":1}"));
    store_job_info_free(&ji);
    ji = getjob(s, 2, 0);
    CHECK_MSG(ji.state == STORE_QUEUED && ji.started == 0, "migrated queued job: %s started %f",
              store_state_name(ji.state), ji.started);
    store_job_info_free(&ji);
    /* the store works on the migrated database: claims start jobs */
    g16_status st = {0};
    int64_t j3 = mkjob(s, "kA", 1, 1, NULL);
    CHECK(j3 == 3);
    store_claim c[2];
    size_t n = claim(s, KA, 1, 60, 3, c, 2);
    CHECK(n == 2 && c[0].job_id == 2 && c[1].job_id == 3);
    for (size_t i = 0; i < n; i++)
        CHECK(store_part_done(s, c[i].job_id, c[i].partition, "{}", "[]", NULL, &st) == G16_OK);
    free_claims(c, n);
    for (int64_t id = 2; id <= 3; id++) {
        ji = getjob(s, id, 0);
        CHECK_MSG(ji.state == STORE_DONE && ji.started >= ji.created && ji.started <= ji.finished &&
                      ji.started <= (double)time(NULL) + 1,
                  "job %lld: %s created %f started %f finished %f", (long long)id, store_state_name(ji.state),
                  ji.created, ji.started, ji.finished);
        store_job_info_free(&ji);
    }
    store_close(s);
    /* it is version 2 now, and opens as such */
    if (!b->pg_url) {
        sqlite3 *db = NULL;
        sqlite3_stmt *q = NULL;
        CHECK(sqlite3_open(b->url + 7, &db) == SQLITE_OK &&
              sqlite3_prepare_v2(db, "SELECT value FROM g16_meta WHERE name = 'schema_version'", -1, &q, NULL) ==
                  SQLITE_OK);
        CHECK(q && sqlite3_step(q) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "2"));
        sqlite3_finalize(q);
        sqlite3_close(db);
    } else {
#ifdef G16_HAVE_LIBPQ
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT 1 FROM %s.g16_meta WHERE name = 'schema_version' AND value = '2'", b->schema);
        CHECK(pg_admin_q(b, sql) == 1);
#endif
    }
    s = open_as(b, "a");
    if (s) {
        ji = getjob(s, 1, 0);
        CHECK(ji.started == 1700000010.0);
        store_job_info_free(&ji);
        store_close(s);
    }
}

/* PostgreSQL: recover requeues only this owner's partitions. */
static void t_recover_owner(backend *b) {
    store *a = open_as(b, "a"), *o = open_as(b, "o");
    if (!a || !o) {
        store_close(a);
        store_close(o);
        return;
    }
    g16_status st = {0};
    int64_t j = mkjob(a, "kA", 1, 2, NULL);
    store_claim c[1];
    CHECK(claim(a, KA, 1, 60, 3, c, 1) == 1);
    free_claims(c, 1);
    CHECK(claim(o, KA, 1, 60, 3, c, 1) == 1);
    free_claims(c, 1);
    size_t nr = 9;
    CHECK(store_recover(a, &nr, &st) == G16_OK && nr == 1);
    store_job_info ji = getjob(a, j, 0);
    CHECK(ji.parts && ji.parts[0].state == STORE_QUEUED && ji.parts[1].state == STORE_RUNNING);
    store_job_info_free(&ji);
    store_close(a);
    store_close(o);
}

#ifdef G16_HAVE_LIBPQ
/* PostgreSQL: a connection killed by the server is re-established once. */
static void t_reconnect(backend *b) {
    store *s = open_as(b, "a");
    if (!s)
        return;
    g16_status st = {0};
    int64_t j = mkjob(s, "kA", 1, 2, NULL);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '%s'"
             " AND pid <> pg_backend_pid()",
             b->schema);
    for (int round = 0; round < 2; round++) {
        CHECK(pg_admin_q(b, sql) == 1);
        sleep_s(0.2);
        store_claim c[1];
        size_t n = claim(s, KA, 1, 60, 3, c, 1);
        CHECK_MSG(n == 1 && c[0].job_id == j && c[0].partition == (uint32_t)round, "round %d n=%zu", round, n);
        free_claims(c, n);
    }
    CHECK(store_part_done(s, j, 0, "{}", "[]", NULL, &st) == G16_OK);
    store_close(s);
    /* the same database through "pg:" + a key=value conninfo */
    PQconninfoOption *opts = PQconninfoParse(strncmp(b->url, "pg:", 3) ? b->url : b->url + 3, NULL);
    CHECK(opts != NULL);
    if (opts) {
        char ci[1024] = "pg:";
        for (PQconninfoOption *o = opts; o->keyword; o++) {
            if (!o->val || !*o->val)
                continue;
            size_t l = strlen(ci);
            snprintf(ci + l, sizeof ci - l, "%s='%s' ", o->keyword, o->val);
        }
        PQconninfoFree(opts);
        store *k = NULL;
        CHECK_MSG(store_open(&k, ci, "a", &st) == G16_OK, "%s: %s", ci, st.msg);
        if (k) {
            store_job_info ji = getjob(k, j, 0);
            CHECK(ji.n_done == 1 && !strcmp(store_backend(k), "postgresql"));
            store_job_info_free(&ji);
            store_close(k);
        }
    }
    /* a server that is not there: G16_ERR_IO with libpq's message */
    store *x = NULL;
    CHECK(store_open(&x, "postgresql:///postgres?host=/nonexistent-g16&port=1", "a", &st) == G16_ERR_IO && !x);
    CHECK_MSG(strstr(st.msg, "connect") != NULL, "%s", st.msg);
}
#endif

/* store_job_list against the jobs' own views: random filters (states,
 * priorities, key, after), read in pages of 1 to 5. ids: the store's nj
 * jobs of key kA; one job of kB is added. */
static void t_list(store *s, g16_rng *rng, const int64_t *ids, int nj) {
    g16_status st = {0};
    int64_t all[64];
    for (int i = 0; i < nj && i < 63; i++)
        all[i] = ids[i];
    all[nj] = mkjob(s, "kB", G16_PRIORITY_HIGH, 1, NULL);
    int na = nj + 1;
    for (int it = 0; it < 60; it++) {
        store_job_filter f = {.states = (unsigned)(g16_rng_next(rng) % 32),
                              .priorities = (unsigned)(g16_rng_next(rng) % 16),
                              .key_id = it % 3 == 0 ? "kB" : it % 3 == 1 ? "kA" : NULL,
                              .after = all[0] - 1 + (int64_t)(g16_rng_next(rng) % (uint64_t)(na + 1))};
        int64_t want[64], got[64], page[8];
        int nw = 0, ng = 0;
        for (int i = 0; i < na; i++) {
            store_job_info ji = getjob(s, all[i], 0);
            if ((!f.states || (f.states >> ji.state & 1)) && (!f.priorities || (f.priorities >> ji.priority & 1)) &&
                (!f.key_id || !strcmp(f.key_id, ji.key_id)) && ji.id > f.after)
                want[nw++] = ji.id;
            store_job_info_free(&ji);
        }
        size_t max = 1 + (size_t)(g16_rng_next(rng) % 5), n = 0;
        for (int pages = 0; pages <= na; pages++) {
            CHECK_MSG(store_job_list(s, &f, page, max, &n, &st) == G16_OK, "job_list: %s", st.msg);
            for (size_t i = 0; i < n && ng < 64; i++)
                got[ng++] = page[i];
            if (n < max)
                break;
            f.after = page[n - 1];
        }
        CHECK_MSG(ng == nw && !memcmp(got, want, (size_t)nw * sizeof want[0]), "listing %d: %d ids, want %d", it, ng,
                  nw);
    }
    size_t n = 7;
    store_job_filter f = {0};
    CHECK(store_job_list(s, &f, NULL, 0, &n, &st) == G16_OK && n == 0);
    CHECK(store_job_list(s, NULL, NULL, 0, &n, &st) == G16_ERR_INVALID_ARG);
}

static void t_counts(backend *b, g16_rng *rng) {
    store *s = open_as(b, "a");
    if (!s)
        return;
    g16_status st = {0};
    enum { NJ = 12 };
    int64_t ids[NJ];
    for (int i = 0; i < NJ; i++)
        ids[i] = mkjob(s, "kA", (int)(g16_rng_next(rng) % 4), 1 + (uint32_t)(g16_rng_next(rng) % 3), NULL);
    store_claim c[6];
    size_t n = claim(s, KA, 1, 60, 3, c, 6);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 0)
            CHECK(store_part_done(s, c[i].job_id, c[i].partition, "{}", "[]", NULL, &st) == G16_OK);
        else if (i % 3 == 1)
            CHECK(store_part_fail(s, c[i].job_id, c[i].partition, G16_ERR_IO, "e", &st) == G16_OK);
    }
    free_claims(c, n);
    CHECK(store_job_cancel(s, ids[NJ - 1], NULL, &st) == G16_OK);
    store_counts sc, ref;
    memset(&ref, 0, sizeof ref);
    for (int i = 0; i < NJ; i++) {
        store_job_info ji = getjob(s, ids[i], 0);
        ref.jobs[ji.state][ji.priority]++;
        for (uint32_t p = 0; p < ji.n_partitions && ji.parts; p++)
            ref.partitions[ji.parts[p].state][ji.priority]++;
        store_job_info_free(&ji);
    }
    CHECK(store_get_counts(s, &sc, &st) == G16_OK);
    CHECK(memcmp(&sc, &ref, sizeof sc) == 0);
    CHECK(ref.partitions[STORE_DONE][0] + ref.partitions[STORE_DONE][1] + ref.partitions[STORE_DONE][2] +
              ref.partitions[STORE_DONE][3] ==
          (n + 2) / 3);
    t_list(s, rng, ids, NJ);
    store_close(s);
}

/* N handles claim at once: no partition is claimed twice. */
typedef struct conc_arg {
    backend *b;
    int t;
    unsigned char *seen; /* [job-1][partition], under mu */
    int64_t base, njobs;
    pthread_mutex_t *mu;
    pthread_barrier_t *bar;
    size_t claimed, dup, errors;
} conc_arg;

enum { CONC_T = 4, CONC_J = 40, CONC_P = 3 };

static void *conc_thread(void *p) {
    conc_arg *a = p;
    char owner[32];
    snprintf(owner, sizeof owner, "t%d", a->t);
    store *s = NULL;
    g16_status st = {0};
    if (store_open(&s, a->b->url, owner, &st)) {
        fprintf(stderr, "%s: %s\n", owner, st.msg);
        a->errors++;
    }
    pthread_barrier_wait(a->bar); /* all handles open: claim at once */
    if (!s)
        return NULL;
    for (;;) {
        store_claim c[2];
        size_t n = 0;
        if (store_claim_next(s, KA, 1, 60, 3, c, 1 + (size_t)(a->t & 1), &n, &st)) {
            fprintf(stderr, "%s: claim: %s\n", owner, st.msg);
            a->errors++;
            break;
        }
        if (n == 0)
            break;
        sleep_s(0.003); /* "proving", outside the store: lets the others in */
        for (size_t i = 0; i < n; i++) {
            int64_t k = (c[i].job_id - a->base) * CONC_P + c[i].partition;
            pthread_mutex_lock(a->mu);
            if (k < 0 || k >= a->njobs * CONC_P || a->seen[k]++)
                a->dup++;
            pthread_mutex_unlock(a->mu);
            a->claimed++;
            if (store_part_done(s, c[i].job_id, c[i].partition, "{}", "[]", NULL, &st)) {
                fprintf(stderr, "%s: done: %s\n", owner, st.msg);
                a->errors++;
            }
            store_claim_free(&c[i]);
        }
    }
    store_close(s);
    return NULL;
}

static void t_concurrency(backend *b) {
    store *s = open_as(b, "setup");
    if (!s)
        return;
    int64_t base = 0;
    for (int i = 0; i < CONC_J; i++) {
        int64_t id = mkjob(s, "kA", i % 4, CONC_P, NULL);
        if (i == 0)
            base = id;
        CHECK(id == base + i); /* ids are consecutive on a fresh database */
    }
    unsigned char seen[CONC_J * CONC_P] = {0};
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_t th[CONC_T];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, CONC_T);
    conc_arg args[CONC_T];
    for (int t = 0; t < CONC_T; t++) {
        args[t] = (conc_arg){b, t, seen, base, CONC_J, &mu, &bar, 0, 0, 0};
        pthread_create(&th[t], NULL, conc_thread, &args[t]);
    }
    size_t total = 0, dup = 0, errors = 0;
    for (int t = 0; t < CONC_T; t++) {
        pthread_join(th[t], NULL);
        total += args[t].claimed;
        dup += args[t].dup;
        errors += args[t].errors;
        printf("  thread %d claimed %zu\n", t, args[t].claimed);
    }
    pthread_barrier_destroy(&bar);
    CHECK_MSG(total == CONC_J * CONC_P && dup == 0 && errors == 0, "claimed %zu of %d, %zu twice, %zu errors", total,
              CONC_J * CONC_P, dup, errors);
    for (int i = 0; i < CONC_J * CONC_P; i++)
        CHECK_MSG(seen[i] == 1, "partition %d claimed %u times", i, seen[i]);
    store_counts sc;
    g16_status st = {0};
    CHECK(store_get_counts(s, &sc, &st) == G16_OK);
    CHECK(sc.jobs[STORE_DONE][0] + sc.jobs[STORE_DONE][1] + sc.jobs[STORE_DONE][2] + sc.jobs[STORE_DONE][3] == CONC_J);
    store_close(s);
}

/* Mixed concurrent traffic: handles claim, finish (done / fail / release)
 * and cancel at once, over jobs of 2-3 partitions (so that the last
 * partitions of a job often finish together). Afterwards every job's state
 * must be the one derived from its partitions (store.h), and none is left
 * unfinished. */
typedef struct stress_arg {
    backend *b;
    int t;
    uint64_t seed;
    int64_t base;
    size_t errors, ops;
} stress_arg;

enum { STRESS_T = 4, STRESS_J = 30 };

static void *stress_thread(void *p) {
    stress_arg *a = p;
    char owner[32];
    snprintf(owner, sizeof owner, "s%d", a->t);
    g16_rng rng;
    g16_rng_seed(&rng, a->seed + (uint64_t)a->t);
    store *s = NULL;
    g16_status st = {0};
    if (store_open(&s, a->b->url, owner, &st)) {
        fprintf(stderr, "%s: %s\n", owner, st.msg);
        a->errors++;
        return NULL;
    }
    int idle = 0;
    while (idle < 3) {
        store_claim c[3];
        size_t n = 0;
        if (store_claim_next(s, KA, 1, 60, 0, c, 1 + (size_t)(g16_rng_next(&rng) % 3), &n, &st)) {
            fprintf(stderr, "%s: claim: %s\n", owner, st.msg);
            a->errors++;
            break;
        }
        idle = n ? 0 : idle + 1;
        for (size_t i = 0; i < n; i++) {
            unsigned r = (unsigned)(g16_rng_next(&rng) % 20);
            g16_err e;
            if (r < 15)
                e = store_part_done(s, c[i].job_id, c[i].partition, "{}", "[]", NULL, &st);
            else if (r < 17)
                e = store_part_fail(s, c[i].job_id, c[i].partition, G16_ERR_IO, "x", &st);
            else
                e = store_part_release(s, c[i].job_id, c[i].partition, &st);
            if (e && e != G16_ERR_CANCELLED) { /* cancelled: the job was */
                fprintf(stderr, "%s: finish %lld/%u: %s\n", owner, (long long)c[i].job_id, c[i].partition, st.msg);
                a->errors++;
            }
            store_claim_free(&c[i]);
            a->ops++;
        }
        if (g16_rng_next(&rng) % 16 == 0) {
            int64_t j = a->base + (int64_t)(g16_rng_next(&rng) % STRESS_J);
            if (store_job_cancel(s, j, NULL, &st)) {
                fprintf(stderr, "%s: cancel %lld: %s\n", owner, (long long)j, st.msg);
                a->errors++;
            }
        }
        if (!n)
            sleep_s(0.01);
    }
    store_close(s);
    return NULL;
}

static void t_stress(backend *b, g16_rng *rng) {
    store *s = open_as(b, "setup");
    if (!s)
        return;
    int64_t base = 0;
    for (int i = 0; i < STRESS_J; i++) {
        int64_t id = mkjob(s, "kA", (int)(g16_rng_next(rng) % 4), 2 + (uint32_t)(g16_rng_next(rng) % 2), NULL);
        if (i == 0)
            base = id;
        CHECK(id == base + i);
    }
    pthread_t th[STRESS_T];
    stress_arg args[STRESS_T];
    uint64_t seed = g16_rng_next(rng);
    for (int t = 0; t < STRESS_T; t++) {
        args[t] = (stress_arg){b, t, seed, base, 0, 0};
        pthread_create(&th[t], NULL, stress_thread, &args[t]);
    }
    size_t errors = 0, ops = 0;
    for (int t = 0; t < STRESS_T; t++) {
        pthread_join(th[t], NULL);
        errors += args[t].errors;
        ops += args[t].ops;
    }
    CHECK_MSG(errors == 0, "%zu errors", errors);
    for (int i = 0; i < STRESS_J; i++) {
        store_job_info ji = getjob(s, base + i, 0);
        uint32_t cnt[5] = {0};
        for (uint32_t k = 0; k < ji.n_partitions && ji.parts; k++)
            cnt[ji.parts[k].state]++;
        /* partitions are cancelled only by cancelling their unfinished job */
        store_state want = cnt[STORE_CANCELLED] ? STORE_CANCELLED : cnt[STORE_FAILED] ? STORE_FAILED : STORE_DONE;
        CHECK_MSG(cnt[STORE_QUEUED] == 0 && cnt[STORE_RUNNING] == 0, "job %d: %u queued %u running", i,
                  cnt[STORE_QUEUED], cnt[STORE_RUNNING]);
        CHECK_MSG(ji.state == want, "job %d is %s, its partitions say %s (done %u failed %u cancelled %u)", i,
                  store_state_name(ji.state), store_state_name(want), cnt[2], cnt[3], cnt[4]);
        CHECK(ji.finished > 0);
        store_job_info_free(&ji);
    }
    printf("  %zu finishes\n", ops);
    store_close(s);
}

/* A process killed by SIGKILL while it writes: every job whose creation
 * returned (reported through a pipe) is in the store, whole; the database
 * opens and works afterwards. */
static void t_crash(backend *b) {
    int fd[2];
    if (pipe(fd)) {
        CHECK(0);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        store *s = NULL;
        g16_status st = {0};
        if (store_open(&s, b->url, "crasher", &st))
            _exit(3);
        for (;;) {
            store_witness w[3] = {{"/a", NULL, 0}, {NULL, "xyz", 3}, {"/c", NULL, 0}};
            store_job_new j = {NULL, "kA", 2, 3, w, 0};
            int64_t id;
            if (store_job_create(s, &j, &id, NULL, &st))
                _exit(4);
            store_claim c[1];
            size_t n = 0;
            if (store_claim_next(s, KA, 1, 60, 3, c, 1, &n, &st) || n != 1)
                _exit(5);
            if (store_part_done(s, c[0].job_id, c[0].partition, "{\"x\":1}", "[]", NULL, &st))
                _exit(6);
            store_claim_free(&c[0]);
            if (write(fd[1], &id, sizeof id) != sizeof id)
                _exit(7);
        }
    }
    close(fd[1]);
    int64_t last = 0, id;
    size_t nacked = 0;
    double t0 = g16_now_ms();
    while (g16_now_ms() - t0 < 400 && read(fd[0], &id, sizeof id) == sizeof id) {
        last = id;
        nacked++;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    while (read(fd[0], &id, sizeof id) == sizeof id) { /* acked before the kill */
        last = id;
        nacked++;
    }
    close(fd[0]);
    CHECK_MSG(WIFSIGNALED(status) && nacked > 0, "child status %d, %zu jobs acked", status, nacked);
    store *s = open_as(b, "after");
    if (!s)
        return;
    g16_status st = {0};
    size_t nr = 0;
    CHECK(store_recover(s, &nr, &st) == G16_OK); /* the crasher's running partition, if any */
    /* each iteration done one partition, the next in dispatch order */
    int64_t first = last - (int64_t)nacked + 1;
    size_t ndone = 0;
    for (int64_t j = first; j <= last; j++) {
        store_job_info ji = getjob(s, j, 1);
        CHECK_MSG(ji.n_partitions == 3 && ji.parts, "acked job %lld: %u partitions", (long long)j, ji.n_partitions);
        for (uint32_t p = 0; p < ji.n_partitions && ji.parts; p++)
            if (ji.parts[p].state == STORE_DONE) {
                ndone++;
                CHECK(ji.parts[p].proof_json && !strcmp(ji.parts[p].proof_json, "{\"x\":1}"));
            }
        store_job_info_free(&ji);
    }
    CHECK_MSG(ndone >= nacked, "%zu partitions done for %zu acknowledged iterations", ndone, nacked);
    /* the store still works: claim everything that is left */
    store_claim c[8];
    size_t n, total = 0;
    while ((n = claim(s, KA, 1, 60, 0, c, 8)) > 0) {
        for (size_t i = 0; i < n; i++)
            CHECK(store_part_done(s, c[i].job_id, c[i].partition, "{}", "[]", NULL, &st) == G16_OK);
        free_claims(c, n);
        total += n;
    }
    CHECK(total >= 2 * nacked);
    printf("  %zu jobs acknowledged before SIGKILL\n", nacked);
    store_close(s);
    if (!b->pg_url) { /* the file itself is sound */
        sqlite3 *db = NULL;
        CHECK(sqlite3_open(b->url + 7, &db) == SQLITE_OK);
        sqlite3_stmt *q = NULL;
        CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL) == SQLITE_OK);
        CHECK(q && sqlite3_step(q) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "ok"));
        sqlite3_finalize(q);
        /* a newer schema version is refused */
        CHECK(sqlite3_exec(db, "UPDATE g16_meta SET value = '99' WHERE name = 'schema_version'", NULL, NULL, NULL) ==
              SQLITE_OK);
        sqlite3_close(db);
        store *x = NULL;
        CHECK(store_open(&x, b->url, "a", &st) == G16_ERR_UNSUPPORTED && !x);
        CHECK_MSG(strstr(st.msg, "schema version 99") != NULL, "%s", st.msg);
    }
}

static void run_suite(backend *b, uint64_t seed) {
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    struct {
        const char *name;
        int pg_only;
    } secs[] = {{"create", 0}, {"order", 0},  {"leases", 0},      {"transitions", 0},
                {"expire+recover", 0}, {"recover-owner", 1}, {"counts", 0}, {"concurrency", 0},
                {"reconnect", 1}, {"stress", 0}, {"crash", 0}, {"started", 0},
                {"migrate", 0}};
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
        if (secs[i].pg_only && !b->pg_url)
            continue;
        if (!fresh_db(b)) {
            CHECK_MSG(0, "%s: cannot make a fresh database", b->name);
            return;
        }
        int before = t_failures;
        double t0 = g16_now_ms();
        switch (i) {
        case 0: t_create(b); break;
        case 1: t_order(b, &rng); break;
        case 2: t_leases(b); break;
        case 3: t_transitions(b); break;
        case 4: t_expire_recover(b); break;
        case 5: t_recover_owner(b); break;
        case 6: t_counts(b, &rng); break;
        case 7: t_concurrency(b); break;
        case 8:
#ifdef G16_HAVE_LIBPQ
            t_reconnect(b);
#endif
            break;
        case 9: t_stress(b, &rng); break;
        case 10: t_crash(b); break;
        case 11: t_started(b); break;
        case 12: t_migrate(b); break;
        }
        printf("%s %-15s %s (%.0f ms)\n", b->name, secs[i].name, t_failures == before ? "ok" : "FAILED",
               g16_now_ms() - t0);
        drop_db(b);
    }
}

static void t_errors(backend *b) {
    store *s = NULL;
    g16_status st = {0};
    CHECK(store_open(&s, "sqlite:/nonexistent-dir-g16/x.db", "a", &st) == G16_ERR_IO && !s);
    CHECK_MSG(strstr(st.msg, "unable to open") != NULL, "%s", st.msg);
    CHECK(store_open(&s, "", "a", &st) == G16_ERR_INVALID_ARG);
    CHECK(store_open(&s, "sqlite:", "a", &st) == G16_ERR_INVALID_ARG);
    /* a file that is not a database */
    char path[128];
    snprintf(path, sizeof path, "%s/junk.db", b->tmpdir);
    FILE *f = fopen(path, "wb");
    if (f) {
        for (int i = 0; i < 4096; i++)
            fputc('x', f);
        fclose(f);
    }
    char url[160];
    snprintf(url, sizeof url, "sqlite:%s", path);
    CHECK(store_open(&s, url, "a", &st) == G16_ERR_IO);
    CHECK_MSG(strstr(st.msg, "not a database") != NULL, "%s", st.msg);
#ifndef G16_HAVE_LIBPQ
    CHECK(store_open(&s, "postgresql://localhost/x", "a", &st) == G16_ERR_UNSUPPORTED);
#endif
}

int main(void) {
    uint64_t seed = t_seed("test_store");
    backend b = {.name = "sqlite"};
    snprintf(b.tmpdir, sizeof b.tmpdir, "/tmp/g16-store-XXXXXX");
    if (!mkdtemp(b.tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    run_suite(&b, seed);
    t_errors(&b);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", b.tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "cleanup of %s failed\n", b.tmpdir);

    const char *pg = getenv("G16_TEST_PG_URL");
    if (!pg || !*pg) {
        printf("postgresql: skipped (G16_TEST_PG_URL not set)\n");
    } else {
#ifdef G16_HAVE_LIBPQ
        backend p = {.name = "postgresql", .pg_url = strncmp(pg, "pg:", 3) ? pg : pg + 3}; /* libpq's forms */
        run_suite(&p, seed);
#else
        printf("postgresql: skipped (built without libpq)\n");
#endif
    }
    return t_done("test_store");
}
