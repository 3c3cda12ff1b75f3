/* daemon layer: the PostgreSQL job store (store.h; schema, leases and the
 * claim SQL in docs/daemon-store.md).
 *
 * Several daemons share one database; each handle is one libpq connection
 * (store.c serializes calls on it). Every call is one transaction at READ
 * COMMITTED. Times are the server's clock (now()), so daemons on different
 * hosts agree on when a lease ends.
 *
 * Claiming: SELECT ... ORDER BY <dispatch order> LIMIT n FOR UPDATE SKIP
 * LOCKED takes the first pending partitions that no other transaction is
 * claiming, so concurrent claimers never wait on each other and never get
 * the same partition; the UPDATE that follows sets owner and lease_until.
 *
 * A job's state is derived from its partitions (as in store_sqlite.c). To
 * make the derivation race-free, every transaction that changes partitions
 * of a job afterwards locks the job's row (SELECT ... FOR UPDATE) and counts
 * the partitions only then: the last of several concurrent transactions on
 * one job acquires the row lock after the others committed, so its count
 * sees all of them. Lock order is always partitions, then jobs in dispatch
 * order; deadlocks (40P01) and serialization failures (40001) retry the
 * transaction. A broken connection is reset and the call retried once. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"

#define PG_SCHEMA_VERSION 2
#define PG_SCHEMA_LOCK 0x67313664 /* advisory lock key for schema creation ("g16d") */

static const char *const PG_SCHEMA =
    "CREATE TABLE IF NOT EXISTS g16_meta (name text PRIMARY KEY, value text NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs ("
    "  id bigserial PRIMARY KEY,"
    "  idempotency_key text UNIQUE,"
    "  key_id text NOT NULL,"
    "  priority integer NOT NULL,"
    "  state integer NOT NULL DEFAULT 0,"
    "  n_partitions integer NOT NULL,"
    "  created timestamptz NOT NULL DEFAULT now(),"
    "  finished timestamptz,"
    "  timeout_s float8 NOT NULL DEFAULT 0,"
    "  deadline timestamptz,"
    "  started timestamptz);" /* version 2 */
    "CREATE TABLE IF NOT EXISTS partitions ("
    "  job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    "  idx integer NOT NULL,"
    "  state integer NOT NULL DEFAULT 0,"
    "  priority integer NOT NULL,"
    "  key_id text NOT NULL,"
    "  attempts integer NOT NULL DEFAULT 0,"
    "  owner text,"
    "  lease_until timestamptz,"
    "  wtns_path text,"
    "  err_code integer NOT NULL DEFAULT 0,"
    "  error text,"
    "  proof_json text,"
    "  public_json text,"
    "  stats_json text,"
    "  started timestamptz,"
    "  finished timestamptz,"
    "  PRIMARY KEY (job_id, idx));"
    "CREATE TABLE IF NOT EXISTS witnesses ("
    "  job_id bigint NOT NULL,"
    "  idx integer NOT NULL,"
    "  data bytea NOT NULL,"
    "  PRIMARY KEY (job_id, idx));"
    "CREATE INDEX IF NOT EXISTS partitions_pending ON partitions (priority DESC, job_id, idx) WHERE state < 2;"
    "CREATE INDEX IF NOT EXISTS partitions_owner ON partitions (owner) WHERE state = 1;"
    "CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (state, priority, id);"
    "CREATE INDEX IF NOT EXISTS jobs_deadline ON jobs (deadline) WHERE state < 2 AND deadline IS NOT NULL;";

enum {
    Q_IDEM_INSERT,
    Q_IDEM_GET,
    Q_PART_INSERT,
    Q_WTNS_INSERT,
    Q_CLAIM_SELECT,
    Q_CLAIM_SET,
    Q_JOB_START,
    Q_WTNS_GET,
    Q_PART_ABANDON,
    Q_WTNS_DELETE,
    Q_HEARTBEAT,
    Q_PART_LOCK,
    Q_PART_DONE,
    Q_PART_FAIL,
    Q_PART_RELEASE,
    Q_JOB_LOCK,
    Q_JOB_PART_COUNTS,
    Q_JOB_SET_STATE,
    Q_JOB_STATE,
    Q_JOB_CANCEL_PARTS,
    Q_JOB_WTNS_DELETE,
    Q_EXPIRE_SELECT,
    Q_EXPIRE_PARTS,
    Q_JOB_GET,
    Q_JOB_PARTS,
    Q_QUEUE_POS,
    Q_RECOVER,
    Q_COUNT_PARTS,
    Q_COUNT_JOBS,
    Q_N
};

static const char *const PG_SQL[Q_N] = {
    /* $1 idempotency key (NULL: none), the insert is skipped on conflict */
    [Q_IDEM_INSERT] = "INSERT INTO jobs (idempotency_key, key_id, priority, n_partitions, timeout_s, deadline)"
                      " VALUES ($1, $2, $3::integer, $4::integer, $5::float8,"
                      " CASE WHEN $5::float8 > 0 THEN now() + $5::float8 * interval '1 second' END)"
                      " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id",
    [Q_IDEM_GET] = "SELECT id, key_id, n_partitions FROM jobs WHERE idempotency_key = $1",
    [Q_PART_INSERT] = "INSERT INTO partitions (job_id, idx, priority, key_id, wtns_path) VALUES ($1, $2, $3, $4, $5)",
    [Q_WTNS_INSERT] = "INSERT INTO witnesses (job_id, idx, data) VALUES ($1, $2, $3)",
    [Q_CLAIM_SELECT] = "SELECT job_id, idx, priority, attempts, key_id, wtns_path FROM partitions"
                       " WHERE state < 2 AND (state = 0 OR lease_until < now()) AND key_id = ANY($1::text[])"
                       " ORDER BY priority DESC, job_id, idx LIMIT $2 FOR UPDATE SKIP LOCKED",
    [Q_CLAIM_SET] = "UPDATE partitions SET state = 1, owner = $3, lease_until = now() + $4::float8 * interval '1 second',"
                    " attempts = attempts + 1, started = now() WHERE job_id = $1 AND idx = $2",
    /* the job's start is its first claim's; later claims keep it */
    [Q_JOB_START] = "UPDATE jobs SET started = now() WHERE id = $1 AND started IS NULL",
    [Q_WTNS_GET] = "SELECT data FROM witnesses WHERE job_id = $1 AND idx = $2",
    [Q_PART_ABANDON] = "UPDATE partitions SET state = 3, owner = NULL, lease_until = NULL, err_code = $3, error = $4,"
                       " finished = now() WHERE job_id = $1 AND idx = $2",
    [Q_WTNS_DELETE] = "DELETE FROM witnesses WHERE job_id = $1 AND idx = $2",
    [Q_HEARTBEAT] = "UPDATE partitions SET lease_until = now() + $2::float8 * interval '1 second'"
                    " WHERE state = 1 AND owner = $1",
    [Q_PART_LOCK] = "SELECT state, owner FROM partitions WHERE job_id = $1 AND idx = $2 FOR UPDATE",
    [Q_PART_DONE] = "UPDATE partitions SET state = 2, lease_until = NULL, proof_json = $3, public_json = $4,"
                    " stats_json = $5, finished = now() WHERE job_id = $1 AND idx = $2",
    [Q_PART_FAIL] = "UPDATE partitions SET state = 3, lease_until = NULL, err_code = $3, error = $4,"
                    " finished = now() WHERE job_id = $1 AND idx = $2",
    [Q_PART_RELEASE] = "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL,"
                       " attempts = greatest(attempts - 1, 0) WHERE job_id = $1 AND idx = $2",
    [Q_JOB_LOCK] = "SELECT state, n_partitions FROM jobs WHERE id = $1 FOR UPDATE",
    [Q_JOB_PART_COUNTS] = "SELECT state, count(*), max(attempts) FROM partitions WHERE job_id = $1 GROUP BY state",
    [Q_JOB_SET_STATE] = "UPDATE jobs SET state = $2::integer, finished = CASE WHEN $2::integer >= 2 THEN now() END WHERE id = $1",
    [Q_JOB_STATE] = "SELECT state FROM jobs WHERE id = $1",
    [Q_JOB_CANCEL_PARTS] = "UPDATE partitions SET state = 4, lease_until = NULL, finished = now()"
                           " WHERE job_id = $1 AND state < 2",
    [Q_JOB_WTNS_DELETE] = "DELETE FROM witnesses WHERE job_id = $1",
    [Q_EXPIRE_SELECT] = "SELECT id, timeout_s FROM jobs WHERE state < 2 AND deadline IS NOT NULL AND deadline <= now()"
                        " ORDER BY priority DESC, id",
    [Q_EXPIRE_PARTS] = "UPDATE partitions SET state = 3, lease_until = NULL, err_code = $2, error = $3,"
                       " finished = now() WHERE job_id = $1 AND state < 2",
    [Q_JOB_GET] = "SELECT id, key_id, coalesce(idempotency_key, ''), priority, state, n_partitions,"
                  " extract(epoch FROM created)::float8, coalesce(extract(epoch FROM finished)::float8, 0),"
                  " coalesce(extract(epoch FROM started)::float8, 0) FROM jobs WHERE id = $1",
    [Q_JOB_PARTS] = "SELECT idx, state, attempts, coalesce(owner, ''), err_code, error,"
                    " CASE WHEN $2::boolean THEN proof_json END, CASE WHEN $2::boolean THEN public_json END,"
                    " CASE WHEN $2::boolean THEN stats_json END FROM partitions WHERE job_id = $1 ORDER BY idx",
    [Q_QUEUE_POS] = "SELECT count(*) FROM jobs WHERE state = 0 AND (priority > $1::integer OR (priority = $1::integer AND id < $2::bigint))",
    [Q_RECOVER] = "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL"
                  " WHERE state = 1 AND owner = $1 RETURNING job_id",
    [Q_COUNT_PARTS] = "SELECT state, priority, count(*) FROM partitions GROUP BY state, priority",
    [Q_COUNT_JOBS] = "SELECT state, priority, count(*) FROM jobs GROUP BY state, priority",
};

typedef struct pgs {
    PGconn *c;
    char owner[128];
    char sqlstate[6]; /* of the last failed statement */
    int ready;        /* the session is set up (statements prepared) */
} pgs;

/* ---- statements and parameters ------------------------------------------- */

/* Text parameters (and binary ones for bytea), built per call. */
typedef struct pargs {
    const char *v[8];
    int len[8], fmt[8];
    char buf[8][32];
    int n;
} pargs;

static void pa_i64(pargs *a, int64_t x) {
    snprintf(a->buf[a->n], sizeof a->buf[0], "%lld", (long long)x);
    a->v[a->n] = a->buf[a->n];
    a->len[a->n] = a->fmt[a->n] = 0;
    a->n++;
}
static void pa_f64(pargs *a, double x) {
    snprintf(a->buf[a->n], sizeof a->buf[0], "%.17g", x);
    a->v[a->n] = a->buf[a->n];
    a->len[a->n] = a->fmt[a->n] = 0;
    a->n++;
}
static void pa_str(pargs *a, const char *s) { /* NULL: SQL NULL */
    a->v[a->n] = s;
    a->len[a->n] = a->fmt[a->n] = 0;
    a->n++;
}
static void pa_bin(pargs *a, const void *d, size_t len) {
    a->v[a->n] = len ? d : "";
    a->len[a->n] = (int)len;
    a->fmt[a->n] = 1;
    a->n++;
}

static g16_err pg_fail_res(pgs *p, PGresult *r, g16_status *st, const char *what) {
    const char *m = r ? PQresultErrorMessage(r) : "";
    if (!m || !*m)
        m = PQerrorMessage(p->c);
    const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    snprintf(p->sqlstate, sizeof p->sqlstate, "%s", code ? code : "");
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    if (!strcmp(p->sqlstate, "53100"))
        return g16_fail(st, G16_ERR_IO, "store (postgresql): %s: %.*s (SQLSTATE 53100)", what, (int)n, m);
    return g16_fail(st, G16_ERR_IO, "store (postgresql): %s: %.*s", what, (int)n, m);
}

/* Runs prepared statement q; NULL (and st set) unless the status is
 * COMMAND_OK or TUPLES_OK. binres: results in binary format. */
static PGresult *pg_run(pgs *p, int q, const pargs *a, int binres, g16_status *st) {
    char name[8];
    snprintf(name, sizeof name, "q%d", q);
    PGresult *r = PQexecPrepared(p->c, name, a ? a->n : 0, a ? a->v : NULL, a ? a->len : NULL, a ? a->fmt : NULL,
                                 binres);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return r;
    pg_fail_res(p, r, st, name);
    PQclear(r);
    return NULL;
}

static g16_err pg_cmd(pgs *p, const char *sql, g16_status *st) {
    PGresult *r = PQexec(p->c, sql);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    g16_err err = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? G16_OK : pg_fail_res(p, r, st, sql);
    PQclear(r);
    return err;
}

static int64_t col_i64(PGresult *r, int row, int col) { return strtoll(PQgetvalue(r, row, col), NULL, 10); }

static char *col_dup(PGresult *r, int row, int col) {
    if (PQgetisnull(r, row, col))
        return NULL;
    size_t n = (size_t)PQgetlength(r, row, col);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, PQgetvalue(r, row, col), n);
        s[n] = 0;
    }
    return s;
}

static void col_copy(char *dst, size_t cap, PGresult *r, int row, int col) {
    snprintf(dst, cap, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

/* ---- connection ------------------------------------------------------------ */

static g16_err pg_prepare_all(pgs *p, g16_status *st) {
    for (int i = 0; i < Q_N; i++) {
        char name[8];
        snprintf(name, sizeof name, "q%d", i);
        PGresult *r = PQprepare(p->c, name, PG_SQL[i], 0, NULL);
        g16_err err = PQresultStatus(r) == PGRES_COMMAND_OK ? G16_OK : pg_fail_res(p, r, st, "prepare");
        PQclear(r);
        if (err)
            return err;
    }
    return G16_OK;
}

/* Session setup after (re)connecting: quiet notices, prepared statements. */
static g16_err pg_session(pgs *p, g16_status *st) {
    if (PQstatus(p->c) != CONNECTION_OK)
        return g16_fail(st, G16_ERR_IO, "store (postgresql): connect: %s", PQerrorMessage(p->c));
    g16_err err = pg_cmd(p, "SET client_min_messages = warning", st);
    if (!err)
        err = pg_prepare_all(p, st);
    p->ready = !err;
    return err;
}

/* Reconnects a broken connection (once per call); a session whose set-up
 * failed is set up again. */
static g16_err pg_ensure(pgs *p, g16_status *st) {
    if (PQstatus(p->c) == CONNECTION_OK && p->ready)
        return G16_OK;
    p->ready = 0;
    if (PQstatus(p->c) != CONNECTION_OK)
        PQreset(p->c);
    else
        PQclear(PQexec(p->c, "DEALLOCATE ALL")); /* a partly prepared session */
    return pg_session(p, st);
}

static void pg_close(void *self) {
    pgs *p = self;
    if (!p)
        return;
    PQfinish(p->c);
    free(p);
}

/* Brings a database of schema version from (1 <= from < PG_SCHEMA_VERSION)
 * to PG_SCHEMA_VERSION, inside pg_schema's transaction and advisory lock
 * (docs/daemon-store.md, "Schema versions"):
 *   1 -> 2  jobs.started, added when missing; the jobs already there get the
 *           earliest start their partitions recorded (NULL if none). */
static g16_err pg_migrate(pgs *p, int from, g16_status *st) {
    g16_err err = G16_OK;
    if (from < 2) {
        err = pg_cmd(p, "ALTER TABLE jobs ADD COLUMN IF NOT EXISTS started timestamptz", st);
        if (!err)
            err = pg_cmd(p,
                         "UPDATE jobs SET started = (SELECT min(pt.started) FROM partitions pt"
                         " WHERE pt.job_id = jobs.id) WHERE started IS NULL",
                         st);
    }
    if (!err) {
        char sql[96];
        snprintf(sql, sizeof sql, "UPDATE g16_meta SET value = '%d' WHERE name = 'schema_version'", PG_SCHEMA_VERSION);
        err = pg_cmd(p, sql, st);
    }
    return err;
}

static g16_err pg_schema(pgs *p, const char *target, g16_status *st) {
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%d)", PG_SCHEMA_LOCK);
    g16_err err = pg_cmd(p, "BEGIN", st);
    if (!err)
        err = pg_cmd(p, sql, st); /* concurrent CREATE IF NOT EXISTS can collide */
    if (!err)
        err = pg_cmd(p, PG_SCHEMA, st);
    if (!err) {
        PGresult *r = PQexec(p->c, "SELECT value FROM g16_meta WHERE name = 'schema_version'");
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            err = pg_fail_res(p, r, st, "schema version");
        } else if (PQntuples(r) == 0) {
            snprintf(sql, sizeof sql, "INSERT INTO g16_meta VALUES ('schema_version', '%d')", PG_SCHEMA_VERSION);
            err = pg_cmd(p, sql, st);
        } else if (atoi(PQgetvalue(r, 0, 0)) >= 1 && atoi(PQgetvalue(r, 0, 0)) < PG_SCHEMA_VERSION) {
            err = pg_migrate(p, atoi(PQgetvalue(r, 0, 0)), st); /* under the advisory lock: once */
        } else if (atoi(PQgetvalue(r, 0, 0)) != PG_SCHEMA_VERSION) {
            err = g16_fail(st, G16_ERR_UNSUPPORTED,
                           "store (postgresql): '%s' has schema version %s, this g16d knows version %d", target,
                           PQgetvalue(r, 0, 0), PG_SCHEMA_VERSION);
        }
        PQclear(r);
    }
    if (!err)
        return pg_cmd(p, "COMMIT", st);
    g16_status ign;
    pg_cmd(p, "ROLLBACK", &ign);
    return err;
}

static g16_err pg_open(void **self, const char *target, const char *owner, g16_status *st) {
    if (strlen(owner) >= sizeof ((pgs *)0)->owner)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: owner name longer than 127 bytes");
    pgs *p = calloc(1, sizeof *p);
    if (!p)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    snprintf(p->owner, sizeof p->owner, "%s", owner);
    p->c = PQconnectdb(target);
    g16_err err = p->c ? G16_OK : g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    if (!err && PQstatus(p->c) != CONNECTION_OK)
        err = g16_fail(st, G16_ERR_IO, "store (postgresql): connect: %s", PQerrorMessage(p->c));
    if (!err)
        err = pg_cmd(p, "SET client_min_messages = warning", st);
    if (!err)
        err = pg_schema(p, target, st);
    if (!err)
        err = pg_prepare_all(p, st);
    p->ready = !err;
    if (err) {
        /* the message may end in a newline (libpq's) */
        size_t n = strlen(st ? st->msg : "");
        while (st && n && st->msg[n - 1] == '\n')
            st->msg[--n] = 0;
        pg_close(p);
        return err;
    }
    *self = p;
    return G16_OK;
}

/* Runs fn in one transaction; retries on deadlock / serialization failure
 * (up to 3 times) and once after reconnecting a broken connection. fn must
 * leave its outputs clean when it fails. */
typedef g16_err (*pg_txfn)(pgs *p, void *arg, g16_status *st);

static g16_err pg_tx(pgs *p, pg_txfn fn, void *arg, g16_status *st) {
    int resets = 0;
    for (int attempt = 0;; attempt++) {
        g16_err err = pg_ensure(p, st);
        if (err)
            return err;
        p->sqlstate[0] = 0;
        err = pg_cmd(p, "BEGIN", st);
        if (!err) {
            err = fn(p, arg, st);
            if (!err) {
                err = pg_cmd(p, "COMMIT", st);
            } else if (PQstatus(p->c) == CONNECTION_OK) {
                char keep[6];
                memcpy(keep, p->sqlstate, sizeof keep);
                g16_status ign;
                pg_cmd(p, "ROLLBACK", &ign);
                memcpy(p->sqlstate, keep, sizeof keep);
            }
        }
        if (!err)
            return G16_OK;
        if (PQstatus(p->c) != CONNECTION_OK && resets++ == 0)
            continue;
        if ((!strcmp(p->sqlstate, "40P01") || !strcmp(p->sqlstate, "40001")) && attempt < 3)
            continue;
        return err;
    }
}

/* ---- job state -------------------------------------------------------------- */

/* Locks the job's row, then derives its state from its partitions (see the
 * header comment and store_sqlite.c's sq_job_refresh). */
static g16_err pg_job_refresh(pgs *p, int64_t job_id, g16_status *st) {
    pargs a = {0};
    pa_i64(&a, job_id);
    PGresult *r = pg_run(p, Q_JOB_LOCK, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return g16_fail(st, G16_ERR_INTERNAL, "store: job %lld vanished", (long long)job_id);
    }
    int cur = atoi(PQgetvalue(r, 0, 0));
    int64_t n = col_i64(r, 0, 1);
    PQclear(r);
    if (cur >= STORE_DONE)
        return G16_OK;
    r = pg_run(p, Q_JOB_PART_COUNTS, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    int64_t cnt[5] = {0}, max_att = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        int ps = atoi(PQgetvalue(r, i, 0));
        if (ps >= 0 && ps < 5)
            cnt[ps] = col_i64(r, i, 1);
        if (col_i64(r, i, 2) > max_att)
            max_att = col_i64(r, i, 2);
    }
    PQclear(r);
    int64_t fin = cnt[STORE_DONE] + cnt[STORE_FAILED] + cnt[STORE_CANCELLED];
    int nst;
    if (fin == n)
        nst = cnt[STORE_FAILED] ? STORE_FAILED : cnt[STORE_CANCELLED] ? STORE_CANCELLED : STORE_DONE;
    else if (cnt[STORE_RUNNING] || fin || max_att > 0)
        nst = STORE_RUNNING;
    else
        nst = STORE_QUEUED;
    if (nst == cur)
        return G16_OK;
    pa_i64(&a, nst);
    r = pg_run(p, Q_JOB_SET_STATE, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    PQclear(r);
    if (nst >= STORE_DONE) {
        a.n = 1;
        r = pg_run(p, Q_JOB_WTNS_DELETE, &a, 0, st);
        if (!r)
            return G16_ERR_IO;
        PQclear(r);
    }
    return G16_OK;
}

/* ---- create ----------------------------------------------------------------- */

typedef struct create_arg {
    const store_job_new *j;
    int64_t id;
    int existed;
} create_arg;

static g16_err pg_create_fn(pgs *p, void *arg, g16_status *st) {
    create_arg *ca = arg;
    const store_job_new *j = ca->j;
    pargs a = {0};
    pa_str(&a, j->idempotency_key);
    pa_str(&a, j->key_id);
    pa_i64(&a, j->priority);
    pa_i64(&a, j->n_partitions);
    pa_f64(&a, j->timeout_s > 0 ? j->timeout_s : 0);
    PGresult *r = pg_run(p, Q_IDEM_INSERT, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    if (PQntuples(r) == 0) { /* the idempotency key exists */
        PQclear(r);
        a.n = 0;
        pa_str(&a, j->idempotency_key);
        r = pg_run(p, Q_IDEM_GET, &a, 0, st);
        if (!r)
            return G16_ERR_IO;
        if (PQntuples(r) != 1) {
            PQclear(r);
            return g16_fail(st, G16_ERR_INTERNAL, "store: idempotency key '%s' vanished", j->idempotency_key);
        }
        ca->id = col_i64(r, 0, 0);
        ca->existed = 1;
        int same = strcmp(PQgetvalue(r, 0, 1), j->key_id) == 0 && col_i64(r, 0, 2) == (int64_t)j->n_partitions;
        PQclear(r);
        if (!same)
            return g16_fail(st, G16_ERR_INVALID_ARG,
                            "store: idempotency key '%s' belongs to job %lld with another key or partition count",
                            j->idempotency_key, (long long)ca->id);
        return G16_OK;
    }
    int64_t id = col_i64(r, 0, 0);
    PQclear(r);
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        const store_witness *w = &j->witness[i];
        a.n = 0;
        pa_i64(&a, id);
        pa_i64(&a, i);
        pa_i64(&a, j->priority);
        pa_str(&a, j->key_id);
        pa_str(&a, w->path);
        if (!(r = pg_run(p, Q_PART_INSERT, &a, 0, st)))
            return G16_ERR_IO;
        PQclear(r);
        if (!w->path) {
            if (w->len > 0x7fffffff)
                return g16_fail(st, G16_ERR_INVALID_ARG, "store: inline witness %u over 2 GiB", i);
            a.n = 2;
            pa_bin(&a, w->data, w->len);
            if (!(r = pg_run(p, Q_WTNS_INSERT, &a, 0, st)))
                return G16_ERR_IO;
            PQclear(r);
        }
    }
    ca->id = id;
    ca->existed = 0;
    return G16_OK;
}

static g16_err pg_job_create(void *self, const store_job_new *j, int64_t *job_id, int *existed, g16_status *st) {
    create_arg ca = {j, 0, 0};
    g16_err err = pg_tx(self, pg_create_fn, &ca, st);
    if (!err || ca.existed) {
        *job_id = ca.id;
        if (existed)
            *existed = ca.existed;
    }
    return err;
}

/* ---- claim ------------------------------------------------------------------ */

typedef struct claim_arg {
    const char *keys; /* PostgreSQL array literal */
    double lease_s;
    uint32_t max_attempts;
    store_claim *out;
    size_t max, n;
} claim_arg;

static g16_err pg_claim_rows(pgs *p, claim_arg *ca, g16_status *st) {
    while (ca->n < ca->max) {
        pargs a = {0};
        pa_str(&a, ca->keys);
        pa_i64(&a, (int64_t)(ca->max - ca->n));
        PGresult *r = pg_run(p, Q_CLAIM_SELECT, &a, 0, st);
        if (!r)
            return G16_ERR_IO;
        int nr = PQntuples(r);
        if (nr == 0) {
            PQclear(r);
            return G16_OK;
        }
        g16_err err = G16_OK;
        int claimed = 0; /* a partition of the current job was claimed (not abandoned) */
        for (int i = 0; i < nr && !err; i++) {
            int64_t job = col_i64(r, i, 0);
            uint32_t idx = (uint32_t)col_i64(r, i, 1);
            uint32_t att = (uint32_t)col_i64(r, i, 3);
            pargs b = {0};
            pa_i64(&b, job);
            pa_i64(&b, idx);
            PGresult *u;
            if (ca->max_attempts && att >= ca->max_attempts) {
                char msg[96];
                snprintf(msg, sizeof msg, "abandoned after %u attempts", att);
                pa_i64(&b, G16_ERR_TIMEOUT);
                pa_str(&b, msg);
                if (!(u = pg_run(p, Q_PART_ABANDON, &b, 0, st)))
                    err = G16_ERR_IO;
                PQclear(u);
                b.n = 2;
                if (!err && !(u = pg_run(p, Q_WTNS_DELETE, &b, 0, st)))
                    err = G16_ERR_IO;
                if (!err)
                    PQclear(u);
            } else {
                pa_str(&b, p->owner);
                pa_f64(&b, ca->lease_s);
                if (!(u = pg_run(p, Q_CLAIM_SET, &b, 0, st))) {
                    err = G16_ERR_IO;
                    break;
                }
                PQclear(u);
                claimed = 1;
                store_claim *o = &ca->out[ca->n];
                memset(o, 0, sizeof *o);
                o->job_id = job;
                o->partition = idx;
                o->priority = atoi(PQgetvalue(r, i, 2));
                o->attempt = att + 1;
                col_copy(o->key_id, sizeof o->key_id, r, i, 4);
                o->wtns_path = col_dup(r, i, 5);
                ca->n++;
                if (!o->wtns_path) {
                    b.n = 2;
                    if (!(u = pg_run(p, Q_WTNS_GET, &b, 1, st))) {
                        err = G16_ERR_IO;
                        break;
                    }
                    if (PQntuples(u) == 1) {
                        size_t len = (size_t)PQgetlength(u, 0, 0);
                        o->wtns_data = malloc(len ? len : 1);
                        o->wtns_len = len;
                        if (!o->wtns_data)
                            err = g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
                        else if (len)
                            memcpy(o->wtns_data, PQgetvalue(u, 0, 0), len);
                    } else {
                        err = g16_fail(st, G16_ERR_INTERNAL, "store: partition %lld/%u has no witness",
                                       (long long)job, idx);
                    }
                    PQclear(u);
                }
            }
            /* rows come in dispatch order: refresh each job once, after its
             * last partition here (jobs are locked in dispatch order) */
            if (!err && (i + 1 == nr || col_i64(r, i + 1, 0) != job)) {
                if (claimed) {
                    b.n = 1;
                    if (!(u = pg_run(p, Q_JOB_START, &b, 0, st)))
                        err = G16_ERR_IO;
                    PQclear(u);
                }
                claimed = 0;
                if (!err)
                    err = pg_job_refresh(p, job, st);
            }
        }
        PQclear(r);
        if (err)
            return err;
    }
    return G16_OK;
}

static g16_err pg_claim_fn(pgs *p, void *arg, g16_status *st) {
    claim_arg *ca = arg;
    g16_err err = pg_claim_rows(p, ca, st);
    if (err) {
        for (size_t i = 0; i < ca->n; i++)
            store_claim_free(&ca->out[i]);
        ca->n = 0;
    }
    return err;
}

/* The key ids as a PostgreSQL array literal: {"a","b\"c"}. malloc'd. */
static char *pg_key_array(const char *const *key_ids, size_t nkeys) {
    size_t cap = 3;
    for (size_t i = 0; i < nkeys; i++)
        cap += 2 * strlen(key_ids[i]) + 3;
    char *r = malloc(cap), *q = r;
    if (!r)
        return NULL;
    *q++ = '{';
    for (size_t i = 0; i < nkeys; i++) {
        if (i)
            *q++ = ',';
        *q++ = '"';
        for (const char *c = key_ids[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                *q++ = '\\';
            *q++ = *c;
        }
        *q++ = '"';
    }
    *q++ = '}';
    *q = 0;
    return r;
}

static g16_err pg_claim_next(void *self, const char *const *key_ids, size_t nkeys, double lease_s,
                             uint32_t max_attempts, store_claim *out, size_t max, size_t *n, g16_status *st) {
    char *keys = pg_key_array(key_ids, nkeys);
    if (!keys)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    claim_arg ca = {keys, lease_s, max_attempts, out, max, 0};
    g16_err err = pg_tx(self, pg_claim_fn, &ca, st);
    free(keys);
    *n = err ? 0 : ca.n;
    return err;
}

/* ---- heartbeat, done, fail, release ------------------------------------------ */

typedef struct part_arg {
    int kind; /* 0 heartbeat, 1 done, 2 fail, 3 release */
    double lease_s;
    int64_t job_id;
    uint32_t partition;
    const char *proof, *pub, *stats, *message;
    g16_err code;
} part_arg;

static g16_err pg_part_fn(pgs *p, void *arg, g16_status *st) {
    part_arg *pa = arg;
    pargs a = {0};
    PGresult *r;
    if (pa->kind == 0) {
        pa_str(&a, p->owner);
        pa_f64(&a, pa->lease_s);
        if (!(r = pg_run(p, Q_HEARTBEAT, &a, 0, st)))
            return G16_ERR_IO;
        PQclear(r);
        return G16_OK;
    }
    pa_i64(&a, pa->job_id);
    pa_i64(&a, pa->partition);
    if (!(r = pg_run(p, Q_PART_LOCK, &a, 0, st)))
        return G16_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: no partition %lld/%u", (long long)pa->job_id, pa->partition);
    }
    int state = atoi(PQgetvalue(r, 0, 0));
    int has_owner = !PQgetisnull(r, 0, 1);
    int held = state == STORE_RUNNING && has_owner && strcmp(PQgetvalue(r, 0, 1), p->owner) == 0;
    if (!held) {
        g16_err e = g16_fail(st, G16_ERR_CANCELLED, "store: partition %lld/%u is %s%s%s", (long long)pa->job_id,
                             pa->partition, store_state_name((store_state)state), has_owner ? " under owner " : "",
                             has_owner ? PQgetvalue(r, 0, 1) : "");
        PQclear(r);
        return e;
    }
    PQclear(r);
    int q = pa->kind == 1 ? Q_PART_DONE : pa->kind == 2 ? Q_PART_FAIL : Q_PART_RELEASE;
    if (pa->kind == 1) {
        pa_str(&a, pa->proof);
        pa_str(&a, pa->pub);
        pa_str(&a, pa->stats);
    } else if (pa->kind == 2) {
        pa_i64(&a, pa->code);
        pa_str(&a, pa->message);
    }
    if (!(r = pg_run(p, q, &a, 0, st)))
        return G16_ERR_IO;
    PQclear(r);
    if (pa->kind != 3) {
        a.n = 2;
        if (!(r = pg_run(p, Q_WTNS_DELETE, &a, 0, st)))
            return G16_ERR_IO;
        PQclear(r);
    }
    return pg_job_refresh(p, pa->job_id, st);
}

static g16_err pg_heartbeat(void *self, double lease_s, g16_status *st) {
    part_arg pa = {.kind = 0, .lease_s = lease_s};
    return pg_tx(self, pg_part_fn, &pa, st);
}

typedef struct renew_arg {
    double lease_s;
    const store_part_ref *parts;
    size_t n;
    size_t bytes; /* probe */
} renew_arg;

static g16_err pg_params(pgs *p, const char *sql, const pargs *a, g16_status *st) {
    PGresult *r = PQexecParams(p->c, sql, a->n, NULL, a->v, a->len, a->fmt, 0);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    g16_err err = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? G16_OK : pg_fail_res(p, r, st, sql);
    PQclear(r);
    return err;
}

static g16_err pg_renew_fn(pgs *p, void *arg, g16_status *st) {
    renew_arg *ra = arg;
    for (size_t i = 0; i < ra->n; i++) {
        pargs a = {0};
        pa_i64(&a, ra->parts[i].job_id);
        pa_i64(&a, ra->parts[i].partition);
        pa_f64(&a, ra->lease_s);
        pa_str(&a, p->owner);
        g16_err err = pg_params(p,
                                "UPDATE partitions SET lease_until = now() + $3::float8 * interval '1 second'"
                                " WHERE job_id = $1 AND idx = $2 AND state = 1 AND owner = $4",
                                &a, st);
        if (err)
            return err;
    }
    return G16_OK;
}

static g16_err pg_renew(void *self, double lease_s, const store_part_ref *parts, size_t n, g16_status *st) {
    renew_arg ra = {.lease_s = lease_s, .parts = parts, .n = n};
    return pg_tx(self, pg_renew_fn, &ra, st);
}

/* Random hex text does not compress, so TOAST stores all of it. */
static g16_err pg_probe_fn(pgs *p, void *arg, g16_status *st) {
    renew_arg *ra = arg;
    pargs a = {0};
    pa_i64(&a, (int64_t)(ra->bytes / 32 + 1));
    return pg_params(p,
                     "INSERT INTO g16_meta VALUES ('write_probe', (SELECT string_agg(md5(random()::text), '')"
                     " FROM generate_series(1, $1::integer))) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                     &a, st);
}

static g16_err pg_probe(void *self, size_t bytes, g16_status *st) {
    renew_arg ra = {.bytes = bytes};
    return pg_tx(self, pg_probe_fn, &ra, st);
}

static g16_err pg_part_done(void *self, int64_t job_id, uint32_t partition, const char *proof_json,
                            const char *public_json, const char *stats_json, g16_status *st) {
    part_arg pa = {.kind = 1, .job_id = job_id, .partition = partition, .proof = proof_json, .pub = public_json,
                   .stats = stats_json};
    return pg_tx(self, pg_part_fn, &pa, st);
}

static g16_err pg_part_fail(void *self, int64_t job_id, uint32_t partition, g16_err code, const char *message,
                            g16_status *st) {
    part_arg pa = {.kind = 2, .job_id = job_id, .partition = partition, .message = message, .code = code};
    return pg_tx(self, pg_part_fn, &pa, st);
}

static g16_err pg_part_release(void *self, int64_t job_id, uint32_t partition, g16_status *st) {
    part_arg pa = {.kind = 3, .job_id = job_id, .partition = partition};
    return pg_tx(self, pg_part_fn, &pa, st);
}

/* ---- cancel, expire, recover ---------------------------------------------------- */

typedef struct cancel_arg {
    int64_t job_id;
    int state;
} cancel_arg;

static g16_err pg_cancel_fn(pgs *p, void *arg, g16_status *st) {
    cancel_arg *ca = arg;
    pargs a = {0};
    pa_i64(&a, ca->job_id);
    PGresult *r = pg_run(p, Q_JOB_STATE, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: no job %lld", (long long)ca->job_id);
    }
    ca->state = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    if (ca->state >= STORE_DONE)
        return G16_OK;
    /* partitions first, then the job's row (the lock order) */
    if (!(r = pg_run(p, Q_JOB_CANCEL_PARTS, &a, 0, st)))
        return G16_ERR_IO;
    PQclear(r);
    if (!(r = pg_run(p, Q_JOB_LOCK, &a, 0, st)))
        return G16_ERR_IO;
    ca->state = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : STORE_DONE;
    PQclear(r);
    if (ca->state >= STORE_DONE) /* finished meanwhile */
        return G16_OK;
    pa_i64(&a, STORE_CANCELLED);
    if (!(r = pg_run(p, Q_JOB_SET_STATE, &a, 0, st)))
        return G16_ERR_IO;
    PQclear(r);
    a.n = 1;
    if (!(r = pg_run(p, Q_JOB_WTNS_DELETE, &a, 0, st)))
        return G16_ERR_IO;
    PQclear(r);
    ca->state = STORE_CANCELLED;
    return G16_OK;
}

static g16_err pg_job_cancel(void *self, int64_t job_id, store_state *state, g16_status *st) {
    cancel_arg ca = {job_id, 0};
    g16_err err = pg_tx(self, pg_cancel_fn, &ca, st);
    if (!err && state)
        *state = (store_state)ca.state;
    return err;
}

static g16_err pg_expire_fn(pgs *p, void *arg, g16_status *st) {
    size_t *cnt = arg;
    *cnt = 0;
    PGresult *r = pg_run(p, Q_EXPIRE_SELECT, NULL, 0, st);
    if (!r)
        return G16_ERR_IO;
    g16_err err = G16_OK;
    for (int i = 0; i < PQntuples(r) && !err; i++) {
        char msg[96];
        snprintf(msg, sizeof msg, "job timed out after %g s", strtod(PQgetvalue(r, i, 1), NULL));
        pargs a = {0};
        pa_i64(&a, col_i64(r, i, 0));
        pa_i64(&a, G16_ERR_TIMEOUT);
        pa_str(&a, msg);
        PGresult *u = pg_run(p, Q_EXPIRE_PARTS, &a, 0, st);
        if (!u) {
            err = G16_ERR_IO;
            break;
        }
        PQclear(u);
        err = pg_job_refresh(p, col_i64(r, i, 0), st);
        (*cnt)++;
    }
    PQclear(r);
    if (err)
        *cnt = 0;
    return err;
}

static g16_err pg_expire(void *self, size_t *n_expired, g16_status *st) {
    size_t cnt = 0;
    g16_err err = pg_tx(self, pg_expire_fn, &cnt, st);
    if (n_expired)
        *n_expired = err ? 0 : cnt;
    return err;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static g16_err pg_recover_fn(pgs *p, void *arg, g16_status *st) {
    size_t *cnt = arg;
    pargs a = {0};
    pa_str(&a, p->owner);
    PGresult *r = pg_run(p, Q_RECOVER, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    int nr = PQntuples(r);
    int64_t *ids = malloc((size_t)(nr ? nr : 1) * sizeof *ids);
    if (!ids) {
        PQclear(r);
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    }
    for (int i = 0; i < nr; i++)
        ids[i] = col_i64(r, i, 0);
    PQclear(r);
    qsort(ids, (size_t)nr, sizeof *ids, cmp_i64);
    g16_err err = G16_OK;
    for (int i = 0; i < nr && !err; i++)
        if (i == 0 || ids[i] != ids[i - 1])
            err = pg_job_refresh(p, ids[i], st);
    free(ids);
    *cnt = err ? 0 : (size_t)nr;
    return err;
}

static g16_err pg_recover(void *self, size_t *n_requeued, g16_status *st) {
    size_t cnt = 0;
    g16_err err = pg_tx(self, pg_recover_fn, &cnt, st);
    if (n_requeued)
        *n_requeued = err ? 0 : cnt;
    return err;
}

/* ---- reads -------------------------------------------------------------------- */

typedef struct get_arg {
    int64_t job_id;
    int with_results;
    store_job_info *out;
} get_arg;

static g16_err pg_get_rows(pgs *p, get_arg *ga, g16_status *st) {
    store_job_info *out = ga->out;
    pargs a = {0};
    pa_i64(&a, ga->job_id);
    PGresult *r = pg_run(p, Q_JOB_GET, &a, 0, st);
    if (!r)
        return G16_ERR_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: no job %lld", (long long)ga->job_id);
    }
    out->id = col_i64(r, 0, 0);
    col_copy(out->key_id, sizeof out->key_id, r, 0, 1);
    col_copy(out->idempotency_key, sizeof out->idempotency_key, r, 0, 2);
    out->priority = atoi(PQgetvalue(r, 0, 3));
    out->state = (store_state)atoi(PQgetvalue(r, 0, 4));
    out->n_partitions = (uint32_t)col_i64(r, 0, 5);
    out->created = strtod(PQgetvalue(r, 0, 6), NULL);
    out->finished = strtod(PQgetvalue(r, 0, 7), NULL);
    out->started = strtod(PQgetvalue(r, 0, 8), NULL);
    PQclear(r);
    out->parts = calloc(out->n_partitions ? out->n_partitions : 1, sizeof *out->parts);
    if (!out->parts)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    pa_str(&a, ga->with_results ? "true" : "false");
    if (!(r = pg_run(p, Q_JOB_PARTS, &a, 0, st)))
        return G16_ERR_IO;
    for (int row = 0; row < PQntuples(r); row++) {
        int64_t i = col_i64(r, row, 0);
        if (i < 0 || i >= (int64_t)out->n_partitions) {
            PQclear(r);
            return g16_fail(st, G16_ERR_INTERNAL, "store: job %lld has partition %lld of %u", (long long)ga->job_id,
                            (long long)i, out->n_partitions);
        }
        store_part_info *pi = &out->parts[i];
        pi->state = (store_state)atoi(PQgetvalue(r, row, 1));
        pi->attempts = (uint32_t)col_i64(r, row, 2);
        col_copy(pi->owner, sizeof pi->owner, r, row, 3);
        pi->err_code = atoi(PQgetvalue(r, row, 4));
        pi->error = col_dup(r, row, 5);
        pi->proof_json = col_dup(r, row, 6);
        pi->public_json = col_dup(r, row, 7);
        pi->stats_json = col_dup(r, row, 8);
        switch (pi->state) {
        case STORE_DONE: out->n_done++; break;
        case STORE_FAILED: out->n_failed++; break;
        case STORE_CANCELLED: out->n_cancelled++; break;
        default: break;
        }
    }
    PQclear(r);
    if (out->state == STORE_QUEUED) {
        a.n = 0;
        pa_i64(&a, out->priority);
        pa_i64(&a, out->id);
        if (!(r = pg_run(p, Q_QUEUE_POS, &a, 0, st)))
            return G16_ERR_IO;
        out->queue_position = (uint64_t)col_i64(r, 0, 0);
        PQclear(r);
    }
    return G16_OK;
}

static g16_err pg_get_fn(pgs *p, void *arg, g16_status *st) {
    get_arg *ga = arg;
    g16_err err = pg_get_rows(p, ga, st);
    if (err) {
        store_job_info_free(ga->out);
        memset(ga->out, 0, sizeof *ga->out);
    }
    return err;
}

static g16_err pg_job_get(void *self, int64_t job_id, int with_results, store_job_info *out, g16_status *st) {
    get_arg ga = {job_id, with_results, out};
    return pg_tx(self, pg_get_fn, &ga, st);
}

static g16_err pg_counts_fn(pgs *p, void *arg, g16_status *st) {
    store_counts *c = arg;
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 2; k++) {
        PGresult *r = pg_run(p, k ? Q_COUNT_JOBS : Q_COUNT_PARTS, NULL, 0, st);
        if (!r)
            return G16_ERR_IO;
        for (int i = 0; i < PQntuples(r); i++) {
            int s = atoi(PQgetvalue(r, i, 0)), pr = atoi(PQgetvalue(r, i, 1));
            if (s >= 0 && s < 5 && pr >= 0 && pr < 4)
                (k ? c->jobs : c->partitions)[s][pr] = (uint64_t)col_i64(r, i, 2);
        }
        PQclear(r);
    }
    return G16_OK;
}

static g16_err pg_get_counts(void *self, store_counts *c, g16_status *st) { return pg_tx(self, pg_counts_fn, c, st); }

typedef struct list_arg {
    const store_job_filter *f;
    int64_t *ids;
    size_t max, *n;
} list_arg;

static g16_err pg_list_fn(pgs *p, void *arg, g16_status *st) {
    list_arg *la = arg;
    pargs a = {0};
    pa_i64(&a, la->f->after);
    pa_i64(&a, la->f->states ? (int64_t)la->f->states : 0x1f);
    pa_i64(&a, la->f->priorities ? (int64_t)la->f->priorities : 0xf);
    pa_str(&a, la->f->key_id);
    pa_i64(&a, (int64_t)la->max);
    static const char sql[] = "SELECT id FROM jobs WHERE id > $1::bigint AND (($2::integer >> state) & 1) = 1"
                              " AND (($3::integer >> priority) & 1) = 1 AND ($4::text IS NULL OR key_id = $4::text)"
                              " ORDER BY id LIMIT $5::bigint";
    PGresult *r = PQexecParams(p->c, sql, a.n, NULL, a.v, a.len, a.fmt, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        g16_err err = pg_fail_res(p, r, st, "job list");
        PQclear(r);
        return err;
    }
    *la->n = 0;
    for (int i = 0; i < PQntuples(r) && *la->n < la->max; i++)
        la->ids[(*la->n)++] = col_i64(r, i, 0);
    PQclear(r);
    return G16_OK;
}

static g16_err pg_job_list(void *self, const store_job_filter *f, int64_t *ids, size_t max, size_t *n,
                           g16_status *st) {
    list_arg la = {f, ids, max, n};
    return pg_tx(self, pg_list_fn, &la, st);
}

const store_ops store_pg_ops = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .job_create = pg_job_create,
    .claim_next = pg_claim_next,
    .heartbeat = pg_heartbeat,
    .renew = pg_renew,
    .probe = pg_probe,
    .part_done = pg_part_done,
    .part_fail = pg_part_fail,
    .part_release = pg_part_release,
    .job_cancel = pg_job_cancel,
    .expire = pg_expire,
    .job_get = pg_job_get,
    .recover = pg_recover,
    .get_counts = pg_get_counts,
    .job_list = pg_job_list,
};
