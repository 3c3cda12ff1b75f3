/* daemon layer: the SQLite job store (store.h; schema and durability in
 * docs/daemon-store.md).
 *
 * One connection per handle (store.c serializes calls on it). Every call is
 * one transaction: writes take BEGIN IMMEDIATE (the database's write lock up
 * front, so two handles never deadlock upgrading a read lock), reads BEGIN
 * DEFERRED. The file is in WAL mode with synchronous=FULL: a committed call
 * survives a power loss. Time is the local clock in unix seconds (REAL);
 * SQLite serves one daemon per file, so there is one clock.
 *
 * Dispatch order (priority DESC, job id ASC, partition ASC) is served by a
 * partial index over the pending partitions (state QUEUED or RUNNING), so a
 * claim walks the index in order and stops after max rows. Job ids come from
 * AUTOINCREMENT: creation order, never reused. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "store_impl.h"

#define SQ_SCHEMA_VERSION 2
#define SQ_BUSY_TIMEOUT_MS 10000

static const char *const SQ_SCHEMA =
    "CREATE TABLE IF NOT EXISTS g16_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  idempotency_key TEXT UNIQUE,"
    "  key_id TEXT NOT NULL,"
    "  priority INTEGER NOT NULL,"
    "  state INTEGER NOT NULL DEFAULT 0,"
    "  n_partitions INTEGER NOT NULL,"
    "  created REAL NOT NULL,"
    "  finished REAL,"
    "  timeout_s REAL NOT NULL DEFAULT 0,"
    "  deadline REAL,"
    "  started REAL);" /* version 2 */
    "CREATE TABLE IF NOT EXISTS partitions ("
    "  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  state INTEGER NOT NULL DEFAULT 0,"
    "  priority INTEGER NOT NULL,"
    "  key_id TEXT NOT NULL,"
    "  attempts INTEGER NOT NULL DEFAULT 0,"
    "  owner TEXT,"
    "  lease_until REAL,"
    "  wtns_path TEXT,"
    "  err_code INTEGER NOT NULL DEFAULT 0,"
    "  error TEXT,"
    "  proof_json TEXT,"
    "  public_json TEXT,"
    "  stats_json TEXT,"
    "  started REAL,"
    "  finished REAL,"
    "  PRIMARY KEY (job_id, idx));"
    /* inline .wtns bytes, apart from the partition rows so that scans of
     * partitions never touch them; deleted when the partition finishes */
    "CREATE TABLE IF NOT EXISTS witnesses ("
    "  job_id INTEGER NOT NULL,"
    "  idx INTEGER NOT NULL,"
    "  data BLOB NOT NULL,"
    "  PRIMARY KEY (job_id, idx));"
    "CREATE INDEX IF NOT EXISTS partitions_pending ON partitions (priority DESC, job_id, idx)"
    "  WHERE state < 2;"
    "CREATE INDEX IF NOT EXISTS partitions_owner ON partitions (owner) WHERE state = 1;"
    "CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (state, priority, id);"
    "CREATE INDEX IF NOT EXISTS jobs_deadline ON jobs (deadline) WHERE state < 2 AND deadline IS NOT NULL;";

/* The prepared statements, one per query. */
enum {
    Q_IDEM_GET,
    Q_JOB_INSERT,
    Q_PART_INSERT,
    Q_WTNS_INSERT,
    Q_CLAIM_SELECT,
    Q_CLAIM_SET,
    Q_JOB_START,
    Q_WTNS_GET,
    Q_PART_ABANDON,
    Q_WTNS_DELETE,
    Q_HEARTBEAT,
    Q_PART_GET,
    Q_PART_DONE,
    Q_PART_FAIL,
    Q_PART_RELEASE,
    Q_JOB_STATE,
    Q_JOB_PART_COUNTS,
    Q_JOB_SET_STATE,
    Q_JOB_CANCEL_PARTS,
    Q_JOB_WTNS_DELETE,
    Q_EXPIRE_SELECT,
    Q_EXPIRE_PARTS,
    Q_JOB_GET,
    Q_JOB_PARTS,
    Q_QUEUE_POS,
    Q_RECOVER_SELECT,
    Q_RECOVER,
    Q_COUNT_PARTS,
    Q_COUNT_JOBS,
    Q_N
};

static const char *const SQ_SQL[Q_N] = {
    [Q_IDEM_GET] = "SELECT id, key_id, n_partitions FROM jobs WHERE idempotency_key = ?1",
    [Q_JOB_INSERT] = "INSERT INTO jobs (idempotency_key, key_id, priority, state, n_partitions, created, timeout_s,"
                     " deadline) VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7)",
    [Q_PART_INSERT] = "INSERT INTO partitions (job_id, idx, priority, key_id, wtns_path) VALUES (?1, ?2, ?3, ?4, ?5)",
    [Q_WTNS_INSERT] = "INSERT INTO witnesses (job_id, idx, data) VALUES (?1, ?2, ?3)",
    /* pending partitions in dispatch order: queued, or running with an
     * expired lease; of the given keys (?2: a JSON array of key ids) */
    [Q_CLAIM_SELECT] = "SELECT job_id, idx, priority, attempts, key_id, wtns_path FROM partitions"
                       " INDEXED BY partitions_pending"
                       " WHERE state < 2 AND (state = 0 OR lease_until < ?1)"
                       " AND key_id IN (SELECT value FROM json_each(?2))"
                       " ORDER BY priority DESC, job_id, idx LIMIT ?3",
    [Q_CLAIM_SET] = "UPDATE partitions SET state = 1, owner = ?3, lease_until = ?4, attempts = attempts + 1,"
                    " started = ?5 WHERE job_id = ?1 AND idx = ?2",
    /* the job's start is its first claim's; later claims keep it */
    [Q_JOB_START] = "UPDATE jobs SET started = ?2 WHERE id = ?1 AND started IS NULL",
    [Q_WTNS_GET] = "SELECT data FROM witnesses WHERE job_id = ?1 AND idx = ?2",
    [Q_PART_ABANDON] = "UPDATE partitions SET state = 3, owner = NULL, lease_until = NULL, err_code = ?3,"
                       " error = ?4, finished = ?5 WHERE job_id = ?1 AND idx = ?2",
    [Q_WTNS_DELETE] = "DELETE FROM witnesses WHERE job_id = ?1 AND idx = ?2",
    [Q_HEARTBEAT] = "UPDATE partitions SET lease_until = ?2 WHERE state = 1 AND owner = ?1",
    [Q_PART_GET] = "SELECT state, owner FROM partitions WHERE job_id = ?1 AND idx = ?2",
    [Q_PART_DONE] = "UPDATE partitions SET state = 2, lease_until = NULL, proof_json = ?3, public_json = ?4,"
                    " stats_json = ?5, finished = ?6 WHERE job_id = ?1 AND idx = ?2",
    [Q_PART_FAIL] = "UPDATE partitions SET state = 3, lease_until = NULL, err_code = ?3, error = ?4,"
                    " finished = ?5 WHERE job_id = ?1 AND idx = ?2",
    /* a graceful give-back is not a failed attempt */
    [Q_PART_RELEASE] = "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL,"
                       " attempts = max(attempts - 1, 0) WHERE job_id = ?1 AND idx = ?2",
    [Q_JOB_STATE] = "SELECT state, n_partitions FROM jobs WHERE id = ?1",
    [Q_JOB_PART_COUNTS] = "SELECT state, count(*), max(attempts) FROM partitions WHERE job_id = ?1 GROUP BY state",
    [Q_JOB_SET_STATE] = "UPDATE jobs SET state = ?2, finished = ?3 WHERE id = ?1",
    [Q_JOB_CANCEL_PARTS] = "UPDATE partitions SET state = 4, lease_until = NULL, finished = ?2"
                           " WHERE job_id = ?1 AND state < 2",
    [Q_JOB_WTNS_DELETE] = "DELETE FROM witnesses WHERE job_id = ?1",
    [Q_EXPIRE_SELECT] = "SELECT id, timeout_s FROM jobs WHERE state < 2 AND deadline IS NOT NULL AND deadline <= ?1",
    [Q_EXPIRE_PARTS] = "UPDATE partitions SET state = 3, lease_until = NULL, err_code = ?2, error = ?3,"
                       " finished = ?4 WHERE job_id = ?1 AND state < 2",
    [Q_JOB_GET] = "SELECT id, key_id, ifnull(idempotency_key, ''), priority, state, n_partitions, created,"
                  " ifnull(finished, 0), ifnull(started, 0) FROM jobs WHERE id = ?1",
    [Q_JOB_PARTS] = "SELECT idx, state, attempts, ifnull(owner, ''), err_code, error,"
                    " CASE WHEN ?2 THEN proof_json END, CASE WHEN ?2 THEN public_json END,"
                    " CASE WHEN ?2 THEN stats_json END FROM partitions WHERE job_id = ?1 ORDER BY idx",
    [Q_QUEUE_POS] = "SELECT count(*) FROM jobs WHERE state = 0 AND (priority > ?1 OR (priority = ?1 AND id < ?2))",
    [Q_RECOVER_SELECT] = "SELECT DISTINCT job_id FROM partitions WHERE state = 1",
    [Q_RECOVER] = "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL WHERE state = 1",
    [Q_COUNT_PARTS] = "SELECT state, priority, count(*) FROM partitions GROUP BY state, priority",
    [Q_COUNT_JOBS] = "SELECT state, priority, count(*) FROM jobs GROUP BY state, priority",
};

typedef struct sq {
    sqlite3 *db;
    char owner[128];
    sqlite3_stmt *q[Q_N];
} sq;

static double sq_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* G16_ERR_IO with SQLite's message, and the OS error behind an I/O failure
 * ("disk I/O error (File too large)"). */
/* Why a write of the database file may have failed when SQLite reports an
 * I/O error without the OS error (a short write): ENOSPC when its
 * filesystem has under 256 KiB free, EFBIG when the file or its WAL is
 * within 256 KiB of the process's file-size limit (RLIMIT_FSIZE), else 0. */
static int sq_space_errno(sq *s) {
    const char *db = sqlite3_db_filename(s->db, "main");
    if (!db || !*db)
        return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    else
        snprintf(dir, sizeof dir, ".");
    struct statvfs vf;
    if (!statvfs(dir, &vf) && (double)vf.f_bavail * (double)vf.f_frsize < 256.0 * 1024)
        return ENOSPC;
    struct rlimit rl;
    if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
        char wal[4200];
        snprintf(wal, sizeof wal, "%s-wal", db);
        const char *files[2] = {db, wal};
        for (int i = 0; i < 2; i++) {
            struct stat sb;
            if (!stat(files[i], &sb) && (double)sb.st_size + 256.0 * 1024 >= (double)rl.rlim_cur)
                return EFBIG;
        }
    }
    return 0;
}

static g16_err sq_fail(sq *s, g16_status *st, const char *what) {
    int rc = sqlite3_errcode(s->db), e = sqlite3_system_errno(s->db);
    if ((rc == SQLITE_IOERR || rc == SQLITE_FULL) && e != ENOSPC && e != EFBIG && e != EDQUOT) {
        int se = sq_space_errno(s);
        if (se)
            e = se;
    }
    if (e && (rc == SQLITE_IOERR || rc == SQLITE_FULL || rc == SQLITE_CANTOPEN))
        return g16_fail(st, G16_ERR_IO, "store (sqlite): %s: %s (%s)", what, sqlite3_errmsg(s->db), strerror(e));
    return g16_fail(st, G16_ERR_IO, "store (sqlite): %s: %s", what, sqlite3_errmsg(s->db));
}

static g16_err sq_exec(sq *s, const char *sql, g16_status *st) {
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sq_fail(s, st, sql);
    return G16_OK;
}

/* A prepared statement, reset and unbound. */
static sqlite3_stmt *sq_q(sq *s, int i) {
    sqlite3_reset(s->q[i]);
    sqlite3_clear_bindings(s->q[i]);
    return s->q[i];
}

/* Steps a statement that returns no rows. */
static g16_err sq_run(sq *s, sqlite3_stmt *q, g16_status *st, const char *what) {
    int rc = sqlite3_step(q);
    g16_err err = rc == SQLITE_DONE ? G16_OK : sq_fail(s, st, what);
    sqlite3_reset(q);
    return err;
}

static g16_err sq_begin(sq *s, int write, g16_status *st) {
    return sq_exec(s, write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", st);
}

/* Commits on success, rolls back on failure; returns err or the commit's. */
static g16_err sq_end(sq *s, g16_err err, g16_status *st) {
    for (int i = 0; i < Q_N; i++)
        sqlite3_reset(s->q[i]);
    if (err) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return err;
    }
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        err = sq_fail(s, st, "commit");
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    }
    return err;
}

static char *sq_dup_col(sqlite3_stmt *q, int col) {
    const unsigned char *t = sqlite3_column_text(q, col);
    if (!t)
        return NULL;
    size_t n = (size_t)sqlite3_column_bytes(q, col);
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, t, n);
        r[n] = 0;
    }
    return r;
}

static void sq_copy_col(char *dst, size_t cap, sqlite3_stmt *q, int col) {
    const unsigned char *t = sqlite3_column_text(q, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static void sq_close(void *self) {
    sq *s = self;
    if (!s)
        return;
    for (int i = 0; i < Q_N; i++)
        sqlite3_finalize(s->q[i]);
    sqlite3_close(s->db);
    free(s);
}

/* *has = 1 if table has a column of that name. */
static g16_err sq_has_column(sq *s, const char *table, const char *column, int *has, g16_status *st) {
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2", -1, &q, NULL) !=
        SQLITE_OK)
        return sq_fail(s, st, "table info");
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, column, -1, SQLITE_STATIC);
    g16_err err = G16_OK;
    if (sqlite3_step(q) == SQLITE_ROW)
        *has = sqlite3_column_int(q, 0) > 0;
    else
        err = sq_fail(s, st, "table info");
    sqlite3_finalize(q);
    return err;
}

/* Brings a database of schema version from (1 <= from < SQ_SCHEMA_VERSION)
 * to SQ_SCHEMA_VERSION, inside sq_open's transaction (docs/daemon-store.md,
 * "Schema versions"):
 *   1 -> 2  jobs.started, added when missing; the jobs already there get the
 *           earliest start their partitions recorded (NULL if none). */
static g16_err sq_migrate(sq *s, int from, g16_status *st) {
    g16_err err = G16_OK;
    if (from < 2) {
        int has = 0;
        err = sq_has_column(s, "jobs", "started", &has, st);
        if (!err && !has)
            err = sq_exec(s, "ALTER TABLE jobs ADD COLUMN started REAL", st);
        if (!err)
            err = sq_exec(s,
                          "UPDATE jobs SET started = (SELECT min(p.started) FROM partitions p WHERE p.job_id = jobs.id)"
                          " WHERE started IS NULL",
                          st);
    }
    if (!err) {
        char sql[96];
        snprintf(sql, sizeof sql, "UPDATE g16_meta SET value = '%d' WHERE name = 'schema_version'", SQ_SCHEMA_VERSION);
        err = sq_exec(s, sql, st);
    }
    return err;
}

static g16_err sq_open(void **self, const char *target, const char *owner, g16_status *st) {
    if (strlen(owner) >= sizeof ((sq *)0)->owner)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: owner name longer than 127 bytes");
    sq *s = calloc(1, sizeof *s);
    if (!s)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    g16_err err = G16_OK;
    int rc = sqlite3_open_v2(target, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        err = g16_fail(st, G16_ERR_IO, "store (sqlite): cannot open '%s': %s", target,
                       s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 0);
    sqlite3_busy_timeout(s->db, SQ_BUSY_TIMEOUT_MS);
    /* journal_mode answers a row: sqlite3_exec ignores it. WAL is a property
     * of the file; synchronous and foreign_keys are per connection. */
    if ((err = sq_exec(s, "PRAGMA journal_mode=WAL", st)) || (err = sq_exec(s, "PRAGMA synchronous=FULL", st)) ||
        (err = sq_exec(s, "PRAGMA foreign_keys=ON", st)))
        goto fail;
    if ((err = sq_begin(s, 1, st)))
        goto fail;
    err = sq_exec(s, SQ_SCHEMA, st);
    if (!err) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(s->db, "SELECT value FROM g16_meta WHERE name = 'schema_version'", -1, &q, NULL) !=
            SQLITE_OK) {
            err = sq_fail(s, st, "schema version");
        } else {
            int rc2 = sqlite3_step(q);
            if (rc2 == SQLITE_ROW) {
                int v = sqlite3_column_int(q, 0);
                sqlite3_finalize(q);
                q = NULL;
                if (v >= 1 && v < SQ_SCHEMA_VERSION)
                    err = sq_migrate(s, v, st);
                else if (v != SQ_SCHEMA_VERSION)
                    err = g16_fail(st, G16_ERR_UNSUPPORTED,
                                   "store (sqlite): '%s' has schema version %d, this g16d knows version %d", target, v,
                                   SQ_SCHEMA_VERSION);
            } else if (rc2 == SQLITE_DONE) {
                sqlite3_finalize(q);
                q = NULL;
                char sql[96];
                snprintf(sql, sizeof sql, "INSERT INTO g16_meta VALUES ('schema_version', '%d')", SQ_SCHEMA_VERSION);
                err = sq_exec(s, sql, st);
            } else {
                err = sq_fail(s, st, "schema version");
            }
            sqlite3_finalize(q);
        }
    }
    if (err) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        goto fail;
    }
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        err = sq_fail(s, st, "commit");
        goto fail;
    }
    for (int i = 0; i < Q_N; i++) {
        if (sqlite3_prepare_v3(s->db, SQ_SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &s->q[i], NULL) != SQLITE_OK) {
            err = sq_fail(s, st, "prepare");
            goto fail;
        }
    }
    *self = s;
    return G16_OK;
fail:
    sq_close(s);
    return err;
}

/* Re-derives a job's state from its partitions (store.h): a finished job
 * keeps its state; else DONE / FAILED / CANCELLED once every partition has
 * finished, RUNNING once any was claimed, QUEUED before. */
static g16_err sq_job_refresh(sq *s, int64_t job_id, double now, g16_status *st) {
    sqlite3_stmt *q = sq_q(s, Q_JOB_STATE);
    sqlite3_bind_int64(q, 1, job_id);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(q);
        return rc == SQLITE_DONE ? g16_fail(st, G16_ERR_INTERNAL, "store: job %lld vanished", (long long)job_id)
                                 : sq_fail(s, st, "job state");
    }
    int cur = sqlite3_column_int(q, 0);
    int64_t n = sqlite3_column_int64(q, 1);
    sqlite3_reset(q);
    if (cur >= STORE_DONE)
        return G16_OK;
    int64_t cnt[5] = {0};
    int64_t max_att = 0;
    q = sq_q(s, Q_JOB_PART_COUNTS);
    sqlite3_bind_int64(q, 1, job_id);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int ps = sqlite3_column_int(q, 0);
        if (ps >= 0 && ps < 5)
            cnt[ps] = sqlite3_column_int64(q, 1);
        if (sqlite3_column_int64(q, 2) > max_att)
            max_att = sqlite3_column_int64(q, 2);
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return sq_fail(s, st, "job partitions");
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
    q = sq_q(s, Q_JOB_SET_STATE);
    sqlite3_bind_int64(q, 1, job_id);
    sqlite3_bind_int(q, 2, nst);
    if (nst >= STORE_DONE) {
        sqlite3_bind_double(q, 3, now);
    } else {
        sqlite3_bind_null(q, 3);
    }
    g16_err err = sq_run(s, q, st, "job state update");
    if (!err && nst >= STORE_DONE) {
        q = sq_q(s, Q_JOB_WTNS_DELETE);
        sqlite3_bind_int64(q, 1, job_id);
        err = sq_run(s, q, st, "witness delete");
    }
    return err;
}

static g16_err sq_job_create_tx(sq *s, const store_job_new *j, int64_t *job_id, int *existed, g16_status *st) {
    sqlite3_stmt *q;
    if (j->idempotency_key) {
        q = sq_q(s, Q_IDEM_GET);
        sqlite3_bind_text(q, 1, j->idempotency_key, -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            *job_id = sqlite3_column_int64(q, 0);
            *existed = 1;
            int same = strcmp((const char *)sqlite3_column_text(q, 1), j->key_id) == 0 &&
                       sqlite3_column_int64(q, 2) == (int64_t)j->n_partitions;
            sqlite3_reset(q);
            if (!same)
                return g16_fail(st, G16_ERR_INVALID_ARG,
                                "store: idempotency key '%s' belongs to job %lld with another key or partition count",
                                j->idempotency_key, (long long)*job_id);
            return G16_OK;
        }
        sqlite3_reset(q);
        if (rc != SQLITE_DONE)
            return sq_fail(s, st, "idempotency lookup");
    }
    double now = sq_now();
    q = sq_q(s, Q_JOB_INSERT);
    if (j->idempotency_key)
        sqlite3_bind_text(q, 1, j->idempotency_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, j->key_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, j->priority);
    sqlite3_bind_int64(q, 4, j->n_partitions);
    sqlite3_bind_double(q, 5, now);
    sqlite3_bind_double(q, 6, j->timeout_s > 0 ? j->timeout_s : 0);
    if (j->timeout_s > 0)
        sqlite3_bind_double(q, 7, now + j->timeout_s);
    g16_err err = sq_run(s, q, st, "job insert");
    if (err)
        return err;
    int64_t id = sqlite3_last_insert_rowid(s->db);
    for (uint32_t i = 0; i < j->n_partitions && !err; i++) {
        const store_witness *w = &j->witness[i];
        q = sq_q(s, Q_PART_INSERT);
        sqlite3_bind_int64(q, 1, id);
        sqlite3_bind_int64(q, 2, i);
        sqlite3_bind_int(q, 3, j->priority);
        sqlite3_bind_text(q, 4, j->key_id, -1, SQLITE_STATIC);
        if (w->path)
            sqlite3_bind_text(q, 5, w->path, -1, SQLITE_STATIC);
        err = sq_run(s, q, st, "partition insert");
        if (!err && !w->path) {
            q = sq_q(s, Q_WTNS_INSERT);
            sqlite3_bind_int64(q, 1, id);
            sqlite3_bind_int64(q, 2, i);
            sqlite3_bind_blob64(q, 3, w->data, (sqlite3_uint64)w->len, SQLITE_STATIC);
            err = sq_run(s, q, st, "witness insert");
        }
    }
    if (!err) {
        *job_id = id;
        *existed = 0;
    }
    return err;
}

static g16_err sq_job_create(void *self, const store_job_new *j, int64_t *job_id, int *existed, g16_status *st) {
    sq *s = self;
    int ex = 0;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    err = sq_job_create_tx(s, j, job_id, &ex, st);
    if (existed)
        *existed = ex;
    return sq_end(s, err, st);
}

/* The key ids as a JSON array for json_each (the only escapes needed are
 * '"', '\\' and control characters). malloc'd. */
static char *sq_key_array(const char *const *key_ids, size_t nkeys) {
    size_t cap = 3;
    for (size_t i = 0; i < nkeys; i++)
        cap += 6 * strlen(key_ids[i]) + 3;
    char *r = malloc(cap), *p = r;
    if (!r)
        return NULL;
    *p++ = '[';
    for (size_t i = 0; i < nkeys; i++) {
        if (i)
            *p++ = ',';
        *p++ = '"';
        for (const unsigned char *c = (const unsigned char *)key_ids[i]; *c; c++) {
            if (*c == '"' || *c == '\\') {
                *p++ = '\\';
                *p++ = (char)*c;
            } else if (*c < 0x20) {
                p += sprintf(p, "\\u%04x", *c);
            } else {
                *p++ = (char)*c;
            }
        }
        *p++ = '"';
    }
    *p++ = ']';
    *p = 0;
    return r;
}

typedef struct sq_cand {
    int64_t job_id;
    uint32_t idx;
    int priority;
    uint32_t attempts;
    char key_id[128];
    char *wtns_path;
} sq_cand;

static g16_err sq_claim_tx(sq *s, const char *keys_json, double lease_s, uint32_t max_attempts, store_claim *out,
                           size_t max, size_t *n, g16_status *st) {
    g16_err err = G16_OK;
    double now = sq_now();
    sq_cand *c = calloc(max, sizeof *c);
    if (!c)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    /* Each round takes the next candidates in dispatch order; partitions
     * past max_attempts fail instead of being claimed, so repeat until
     * max are claimed or none is left. */
    while (*n < max && !err) {
        size_t nc = 0, want = max - *n;
        sqlite3_stmt *q = sq_q(s, Q_CLAIM_SELECT);
        sqlite3_bind_double(q, 1, now);
        sqlite3_bind_text(q, 2, keys_json, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 3, (int64_t)want);
        int rc = SQLITE_DONE;
        while (nc < want && (rc = sqlite3_step(q)) == SQLITE_ROW) {
            c[nc].job_id = sqlite3_column_int64(q, 0);
            c[nc].idx = (uint32_t)sqlite3_column_int64(q, 1);
            c[nc].priority = sqlite3_column_int(q, 2);
            c[nc].attempts = (uint32_t)sqlite3_column_int64(q, 3);
            sq_copy_col(c[nc].key_id, sizeof c[nc].key_id, q, 4);
            c[nc].wtns_path = sq_dup_col(q, 5);
            nc++;
        }
        if (nc < want && rc != SQLITE_DONE)
            err = sq_fail(s, st, "claim select");
        sqlite3_reset(q);
        if (nc == 0)
            break;
        for (size_t i = 0; i < nc; i++) {
            sq_cand *k = &c[i];
            if (err) {
                free(k->wtns_path);
                k->wtns_path = NULL;
                continue;
            }
            if (max_attempts && k->attempts >= max_attempts) {
                char msg[96];
                snprintf(msg, sizeof msg, "abandoned after %u attempts", k->attempts);
                q = sq_q(s, Q_PART_ABANDON);
                sqlite3_bind_int64(q, 1, k->job_id);
                sqlite3_bind_int64(q, 2, k->idx);
                sqlite3_bind_int(q, 3, G16_ERR_TIMEOUT);
                sqlite3_bind_text(q, 4, msg, -1, SQLITE_TRANSIENT);
                sqlite3_bind_double(q, 5, now);
                err = sq_run(s, q, st, "abandon");
                if (!err) {
                    q = sq_q(s, Q_WTNS_DELETE);
                    sqlite3_bind_int64(q, 1, k->job_id);
                    sqlite3_bind_int64(q, 2, k->idx);
                    err = sq_run(s, q, st, "witness delete");
                }
                if (!err)
                    err = sq_job_refresh(s, k->job_id, now, st);
                free(k->wtns_path);
                k->wtns_path = NULL;
                continue;
            }
            q = sq_q(s, Q_CLAIM_SET);
            sqlite3_bind_int64(q, 1, k->job_id);
            sqlite3_bind_int64(q, 2, k->idx);
            sqlite3_bind_text(q, 3, s->owner, -1, SQLITE_STATIC);
            sqlite3_bind_double(q, 4, now + lease_s);
            sqlite3_bind_double(q, 5, now);
            err = sq_run(s, q, st, "claim");
            if (!err) {
                q = sq_q(s, Q_JOB_START);
                sqlite3_bind_int64(q, 1, k->job_id);
                sqlite3_bind_double(q, 2, now);
                err = sq_run(s, q, st, "job start");
            }
            store_claim *o = &out[*n];
            memset(o, 0, sizeof *o);
            o->job_id = k->job_id;
            o->partition = k->idx;
            o->priority = k->priority;
            o->attempt = k->attempts + 1;
            memcpy(o->key_id, k->key_id, sizeof o->key_id);
            o->wtns_path = k->wtns_path;
            k->wtns_path = NULL;
            (*n)++;
            if (!err && !o->wtns_path) {
                q = sq_q(s, Q_WTNS_GET);
                sqlite3_bind_int64(q, 1, k->job_id);
                sqlite3_bind_int64(q, 2, k->idx);
                if (sqlite3_step(q) == SQLITE_ROW) {
                    size_t len = (size_t)sqlite3_column_bytes(q, 0);
                    const void *b = sqlite3_column_blob(q, 0);
                    o->wtns_data = malloc(len ? len : 1);
                    if (!o->wtns_data)
                        err = g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
                    else if (len)
                        memcpy(o->wtns_data, b, len);
                    o->wtns_len = len;
                } else {
                    err = g16_fail(st, G16_ERR_INTERNAL, "store: partition %lld/%u has no witness",
                                   (long long)k->job_id, k->idx);
                }
                sqlite3_reset(q);
            }
            if (!err)
                err = sq_job_refresh(s, k->job_id, now, st);
        }
    }
    free(c);
    return err;
}

static g16_err sq_claim_next(void *self, const char *const *key_ids, size_t nkeys, double lease_s,
                             uint32_t max_attempts, store_claim *out, size_t max, size_t *n, g16_status *st) {
    sq *s = self;
    char *keys = sq_key_array(key_ids, nkeys);
    if (!keys)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    g16_err err = sq_begin(s, 1, st);
    if (!err) {
        err = sq_claim_tx(s, keys, lease_s, max_attempts, out, max, n, st);
        err = sq_end(s, err, st);
    }
    free(keys);
    if (err) { /* rolled back: nothing was claimed */
        for (size_t i = 0; i < *n; i++)
            store_claim_free(&out[i]);
        *n = 0;
    }
    return err;
}

static g16_err sq_heartbeat(void *self, double lease_s, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    sqlite3_stmt *q = sq_q(s, Q_HEARTBEAT);
    sqlite3_bind_text(q, 1, s->owner, -1, SQLITE_STATIC);
    sqlite3_bind_double(q, 2, sq_now() + lease_s);
    err = sq_run(s, q, st, "heartbeat");
    return sq_end(s, err, st);
}

static g16_err sq_renew(void *self, double lease_s, const store_part_ref *parts, size_t n, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE partitions SET lease_until = ?3 WHERE job_id = ?1 AND idx = ?2 AND state = 1"
                           " AND owner = ?4",
                           -1, &q, NULL) != SQLITE_OK)
        err = sq_fail(s, st, "renew");
    for (size_t i = 0; !err && i < n; i++) {
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, parts[i].job_id);
        sqlite3_bind_int64(q, 2, parts[i].partition);
        sqlite3_bind_double(q, 3, sq_now() + lease_s);
        sqlite3_bind_text(q, 4, s->owner, -1, SQLITE_STATIC);
        if (sqlite3_step(q) != SQLITE_DONE)
            err = sq_fail(s, st, "renew");
    }
    sqlite3_finalize(q);
    return sq_end(s, err, st);
}

static g16_err sq_probe(void *self, size_t bytes, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO g16_meta VALUES ('write_probe', randomblob(?1))", -1, &q,
                           NULL) != SQLITE_OK) {
        err = sq_fail(s, st, "probe");
    } else {
        sqlite3_bind_int64(q, 1, (sqlite3_int64)bytes);
        if (sqlite3_step(q) != SQLITE_DONE)
            err = sq_fail(s, st, "probe");
    }
    sqlite3_finalize(q);
    return sq_end(s, err, st);
}

/* The partition must be RUNNING under this owner, else G16_ERR_CANCELLED
 * (store.h); unknown partitions are G16_ERR_INVALID_ARG. */
static g16_err sq_check_held(sq *s, int64_t job_id, uint32_t partition, g16_status *st) {
    sqlite3_stmt *q = sq_q(s, Q_PART_GET);
    sqlite3_bind_int64(q, 1, job_id);
    sqlite3_bind_int64(q, 2, partition);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(q);
        return rc == SQLITE_DONE ? g16_fail(st, G16_ERR_INVALID_ARG, "store: no partition %lld/%u",
                                            (long long)job_id, partition)
                                 : sq_fail(s, st, "partition lookup");
    }
    int state = sqlite3_column_int(q, 0);
    const unsigned char *o = sqlite3_column_text(q, 1);
    int held = state == STORE_RUNNING && o && strcmp((const char *)o, s->owner) == 0;
    g16_err err = G16_OK;
    if (!held)
        err = g16_fail(st, G16_ERR_CANCELLED, "store: partition %lld/%u is %s%s%s", (long long)job_id, partition,
                       store_state_name((store_state)state), o ? " under owner " : "", o ? (const char *)o : "");
    sqlite3_reset(q);
    return err;
}

static g16_err sq_finish_part(sq *s, int64_t job_id, uint32_t partition, double now, g16_status *st) {
    sqlite3_stmt *q = sq_q(s, Q_WTNS_DELETE);
    sqlite3_bind_int64(q, 1, job_id);
    sqlite3_bind_int64(q, 2, partition);
    g16_err err = sq_run(s, q, st, "witness delete");
    return err ? err : sq_job_refresh(s, job_id, now, st);
}

static g16_err sq_part_done(void *self, int64_t job_id, uint32_t partition, const char *proof_json,
                            const char *public_json, const char *stats_json, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    err = sq_check_held(s, job_id, partition, st);
    if (!err) {
        double now = sq_now();
        sqlite3_stmt *q = sq_q(s, Q_PART_DONE);
        sqlite3_bind_int64(q, 1, job_id);
        sqlite3_bind_int64(q, 2, partition);
        if (proof_json)
            sqlite3_bind_text(q, 3, proof_json, -1, SQLITE_STATIC);
        if (public_json)
            sqlite3_bind_text(q, 4, public_json, -1, SQLITE_STATIC);
        if (stats_json)
            sqlite3_bind_text(q, 5, stats_json, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 6, now);
        err = sq_run(s, q, st, "partition done");
        if (!err)
            err = sq_finish_part(s, job_id, partition, now, st);
    }
    return sq_end(s, err, st);
}

static g16_err sq_part_fail(void *self, int64_t job_id, uint32_t partition, g16_err code, const char *message,
                            g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    err = sq_check_held(s, job_id, partition, st);
    if (!err) {
        double now = sq_now();
        sqlite3_stmt *q = sq_q(s, Q_PART_FAIL);
        sqlite3_bind_int64(q, 1, job_id);
        sqlite3_bind_int64(q, 2, partition);
        sqlite3_bind_int(q, 3, (int)code);
        sqlite3_bind_text(q, 4, message, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 5, now);
        err = sq_run(s, q, st, "partition fail");
        if (!err)
            err = sq_finish_part(s, job_id, partition, now, st);
    }
    return sq_end(s, err, st);
}

static g16_err sq_part_release(void *self, int64_t job_id, uint32_t partition, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    err = sq_check_held(s, job_id, partition, st);
    if (!err) {
        sqlite3_stmt *q = sq_q(s, Q_PART_RELEASE);
        sqlite3_bind_int64(q, 1, job_id);
        sqlite3_bind_int64(q, 2, partition);
        err = sq_run(s, q, st, "partition release");
        if (!err)
            err = sq_job_refresh(s, job_id, sq_now(), st);
    }
    return sq_end(s, err, st);
}

static g16_err sq_job_state(sq *s, int64_t job_id, int *state, g16_status *st) {
    sqlite3_stmt *q = sq_q(s, Q_JOB_STATE);
    sqlite3_bind_int64(q, 1, job_id);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *state = sqlite3_column_int(q, 0);
    sqlite3_reset(q);
    if (rc == SQLITE_ROW)
        return G16_OK;
    return rc == SQLITE_DONE ? g16_fail(st, G16_ERR_INVALID_ARG, "store: no job %lld", (long long)job_id)
                             : sq_fail(s, st, "job lookup");
}

static g16_err sq_job_cancel(void *self, int64_t job_id, store_state *state, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    int cur = 0;
    err = sq_job_state(s, job_id, &cur, st);
    if (!err && cur < STORE_DONE) {
        double now = sq_now();
        sqlite3_stmt *q = sq_q(s, Q_JOB_CANCEL_PARTS);
        sqlite3_bind_int64(q, 1, job_id);
        sqlite3_bind_double(q, 2, now);
        err = sq_run(s, q, st, "cancel partitions");
        if (!err) {
            q = sq_q(s, Q_JOB_SET_STATE);
            sqlite3_bind_int64(q, 1, job_id);
            sqlite3_bind_int(q, 2, STORE_CANCELLED);
            sqlite3_bind_double(q, 3, now);
            err = sq_run(s, q, st, "cancel job");
        }
        if (!err) {
            q = sq_q(s, Q_JOB_WTNS_DELETE);
            sqlite3_bind_int64(q, 1, job_id);
            err = sq_run(s, q, st, "witness delete");
        }
        cur = STORE_CANCELLED;
    }
    err = sq_end(s, err, st);
    if (!err && state)
        *state = (store_state)cur;
    return err;
}

static g16_err sq_expire(void *self, size_t *n_expired, g16_status *st) {
    sq *s = self;
    size_t cnt = 0;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    double now = sq_now();
    int64_t *ids = NULL;
    double *tos = NULL;
    size_t nid = 0, cap = 0;
    sqlite3_stmt *q = sq_q(s, Q_EXPIRE_SELECT);
    sqlite3_bind_double(q, 1, now);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (nid == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *ni = realloc(ids, cap * sizeof *ids);
            double *nt = ni ? realloc(tos, cap * sizeof *tos) : NULL;
            if (ni)
                ids = ni;
            if (nt)
                tos = nt;
            if (!ni || !nt) {
                err = g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
                break;
            }
        }
        ids[nid] = sqlite3_column_int64(q, 0);
        tos[nid++] = sqlite3_column_double(q, 1);
    }
    if (!err && rc != SQLITE_DONE)
        err = sq_fail(s, st, "expire select");
    sqlite3_reset(q);
    for (size_t i = 0; i < nid && !err; i++) {
        char msg[96];
        snprintf(msg, sizeof msg, "job timed out after %g s", tos[i]);
        q = sq_q(s, Q_EXPIRE_PARTS);
        sqlite3_bind_int64(q, 1, ids[i]);
        sqlite3_bind_int(q, 2, G16_ERR_TIMEOUT);
        sqlite3_bind_text(q, 3, msg, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(q, 4, now);
        err = sq_run(s, q, st, "expire partitions");
        if (!err)
            err = sq_job_refresh(s, ids[i], now, st);
        cnt++;
    }
    free(ids);
    free(tos);
    err = sq_end(s, err, st);
    if (n_expired)
        *n_expired = err ? 0 : cnt;
    return err;
}

static g16_err sq_job_get_tx(sq *s, int64_t job_id, int with_results, store_job_info *out, g16_status *st) {
    sqlite3_stmt *q = sq_q(s, Q_JOB_GET);
    sqlite3_bind_int64(q, 1, job_id);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(q);
        return rc == SQLITE_DONE ? g16_fail(st, G16_ERR_INVALID_ARG, "store: no job %lld", (long long)job_id)
                                 : sq_fail(s, st, "job lookup");
    }
    out->id = sqlite3_column_int64(q, 0);
    sq_copy_col(out->key_id, sizeof out->key_id, q, 1);
    sq_copy_col(out->idempotency_key, sizeof out->idempotency_key, q, 2);
    out->priority = sqlite3_column_int(q, 3);
    out->state = (store_state)sqlite3_column_int(q, 4);
    out->n_partitions = (uint32_t)sqlite3_column_int64(q, 5);
    out->created = sqlite3_column_double(q, 6);
    out->finished = sqlite3_column_double(q, 7);
    out->started = sqlite3_column_double(q, 8);
    sqlite3_reset(q);
    out->parts = calloc(out->n_partitions ? out->n_partitions : 1, sizeof *out->parts);
    if (!out->parts)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    q = sq_q(s, Q_JOB_PARTS);
    sqlite3_bind_int64(q, 1, job_id);
    sqlite3_bind_int(q, 2, with_results ? 1 : 0);
    g16_err err = G16_OK;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t i = sqlite3_column_int64(q, 0);
        if (i < 0 || i >= (int64_t)out->n_partitions) {
            err = g16_fail(st, G16_ERR_INTERNAL, "store: job %lld has partition %lld of %u", (long long)job_id,
                           (long long)i, out->n_partitions);
            break;
        }
        store_part_info *p = &out->parts[i];
        p->state = (store_state)sqlite3_column_int(q, 1);
        p->attempts = (uint32_t)sqlite3_column_int64(q, 2);
        sq_copy_col(p->owner, sizeof p->owner, q, 3);
        p->err_code = sqlite3_column_int(q, 4);
        p->error = sq_dup_col(q, 5);
        p->proof_json = sq_dup_col(q, 6);
        p->public_json = sq_dup_col(q, 7);
        p->stats_json = sq_dup_col(q, 8);
        switch (p->state) {
        case STORE_DONE: out->n_done++; break;
        case STORE_FAILED: out->n_failed++; break;
        case STORE_CANCELLED: out->n_cancelled++; break;
        default: break;
        }
    }
    if (!err && rc != SQLITE_DONE)
        err = sq_fail(s, st, "job partitions");
    sqlite3_reset(q);
    if (!err && out->state == STORE_QUEUED) {
        q = sq_q(s, Q_QUEUE_POS);
        sqlite3_bind_int(q, 1, out->priority);
        sqlite3_bind_int64(q, 2, out->id);
        if (sqlite3_step(q) == SQLITE_ROW)
            out->queue_position = (uint64_t)sqlite3_column_int64(q, 0);
        else
            err = sq_fail(s, st, "queue position");
        sqlite3_reset(q);
    }
    return err;
}

static g16_err sq_job_get(void *self, int64_t job_id, int with_results, store_job_info *out, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 0, st);
    if (err)
        return err;
    err = sq_job_get_tx(s, job_id, with_results, out, st);
    err = sq_end(s, err, st);
    if (err)
        store_job_info_free(out);
    return err;
}

static g16_err sq_recover(void *self, size_t *n_requeued, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 1, st);
    if (err)
        return err;
    int64_t *ids = NULL;
    size_t nid = 0, cap = 0;
    sqlite3_stmt *q = sq_q(s, Q_RECOVER_SELECT);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (nid == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *ni = realloc(ids, cap * sizeof *ids);
            if (!ni) {
                err = g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
                break;
            }
            ids = ni;
        }
        ids[nid++] = sqlite3_column_int64(q, 0);
    }
    if (!err && rc != SQLITE_DONE)
        err = sq_fail(s, st, "recover select");
    sqlite3_reset(q);
    size_t changed = 0;
    if (!err) {
        q = sq_q(s, Q_RECOVER);
        err = sq_run(s, q, st, "recover");
        changed = (size_t)sqlite3_changes(s->db);
    }
    double now = sq_now();
    for (size_t i = 0; i < nid && !err; i++)
        err = sq_job_refresh(s, ids[i], now, st);
    free(ids);
    err = sq_end(s, err, st);
    if (n_requeued)
        *n_requeued = err ? 0 : changed;
    return err;
}

static g16_err sq_count(sq *s, int which, uint64_t c[5][4], g16_status *st) {
    sqlite3_stmt *q = sq_q(s, which);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int state = sqlite3_column_int(q, 0), pri = sqlite3_column_int(q, 1);
        if (state >= 0 && state < 5 && pri >= 0 && pri < 4)
            c[state][pri] = (uint64_t)sqlite3_column_int64(q, 2);
    }
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? G16_OK : sq_fail(s, st, "counts");
}

static g16_err sq_get_counts(void *self, store_counts *c, g16_status *st) {
    sq *s = self;
    g16_err err = sq_begin(s, 0, st);
    if (err)
        return err;
    err = sq_count(s, Q_COUNT_PARTS, c->partitions, st);
    if (!err)
        err = sq_count(s, Q_COUNT_JOBS, c->jobs, st);
    return sq_end(s, err, st);
}

/* A statement of its own (not in s->q: listings are rare), prepared per call. */
static g16_err sq_job_list(void *self, const store_job_filter *f, int64_t *ids, size_t max, size_t *n,
                           g16_status *st) {
    sq *s = self;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id FROM jobs WHERE id > ?1 AND ((?2 >> state) & 1) = 1 AND ((?3 >> priority) & 1) = 1"
                           " AND (?4 IS NULL OR key_id = ?4) ORDER BY id LIMIT ?5",
                           -1, &q, NULL) != SQLITE_OK)
        return sq_fail(s, st, "job list");
    sqlite3_bind_int64(q, 1, f->after);
    sqlite3_bind_int64(q, 2, f->states ? (sqlite3_int64)f->states : 0x1f);
    sqlite3_bind_int64(q, 3, f->priorities ? (sqlite3_int64)f->priorities : 0xf);
    if (f->key_id)
        sqlite3_bind_text(q, 4, f->key_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(q, 5, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && *n < max)
        ids[(*n)++] = sqlite3_column_int64(q, 0);
    g16_err err = rc == SQLITE_ROW || rc == SQLITE_DONE ? G16_OK : sq_fail(s, st, "job list");
    sqlite3_finalize(q);
    return err;
}

const store_ops store_sqlite_ops = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .job_create = sq_job_create,
    .claim_next = sq_claim_next,
    .heartbeat = sq_heartbeat,
    .renew = sq_renew,
    .probe = sq_probe,
    .part_done = sq_part_done,
    .part_fail = sq_part_fail,
    .part_release = sq_part_release,
    .job_cancel = sq_job_cancel,
    .expire = sq_expire,
    .job_get = sq_job_get,
    .recover = sq_recover,
    .get_counts = sq_get_counts,
    .job_list = sq_job_list,
};
