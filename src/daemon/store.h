/* daemon layer: the durable job store (docs/daemon.md).
 *
 * Jobs accepted by g16d are written here before the client gets its reply,
 * and every state change of a partition is written here before it is acted
 * upon, so that a crash loses nothing accepted: after a restart, partitions
 * that were running are queued again (or, past max_attempts, failed with a
 * reason), and finished results are read back from the store.
 *
 * Two backends behind one interface (store_impl.h):
 *   - SQLite (store_sqlite.c), embedded, the default: one file, WAL mode,
 *     one daemon per file;
 *   - PostgreSQL (store_pg.c, libpq): several daemons share one database and
 *     claim partitions with SELECT ... FOR UPDATE SKIP LOCKED. Each daemon is
 *     an "owner"; a claim is a lease (lease_until) that the owner renews with
 *     store_heartbeat. A partition whose lease expired (its daemon died) is
 *     claimable again by anyone.
 *
 * A partition moves QUEUED -> RUNNING (claimed) -> DONE | FAILED, or to
 * CANCELLED. A job is QUEUED until one partition is claimed, RUNNING until
 * every partition has finished, then DONE (all proofs), FAILED (at least one
 * partition failed; the others still finish or are cancelled) or CANCELLED.
 * Dispatch order is priority (CRITICAL first), then job creation order, then
 * partition index.
 *
 * Thread safety: a store handle serializes its own calls (an internal
 * mutex); several handles (processes) may share one database.
 * Errors: g16_err + message in st; G16_ERR_IO for database failures (the
 * message carries the backend's error text, e.g. "database or disk is
 * full"), G16_ERR_INVALID_ARG for unknown ids, G16_ERR_UNSUPPORTED for a URL
 * of a backend this build lacks. */
#ifndef G16_DAEMON_STORE_H
#define G16_DAEMON_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

typedef struct store store;

typedef enum store_state {
    STORE_QUEUED = 0,
    STORE_RUNNING = 1,
    STORE_DONE = 2,
    STORE_FAILED = 3,
    STORE_CANCELLED = 4
} store_state;
const char *store_state_name(store_state s); /* "queued", "running", ... */

/* Opens (creating the schema if needed, migrating one of an older schema
 * version; a newer version is G16_ERR_UNSUPPORTED) the store at url:
 *   "sqlite:PATH" or a plain path   SQLite file (WAL mode)
 *   "postgresql://..." / "postgres://..." / "pg:CONNINFO"   PostgreSQL
 * owner names this daemon in leases; it must be unique among the daemons
 * sharing a database (g16d uses "host:pid:start-time" unless configured). */
g16_err store_open(store **s, const char *url, const char *owner, g16_status *st);
/* One daemon per SQLite file: takes an exclusive advisory lock (flock) on
 * PATH.lock, held until *fd is closed (-1 for PostgreSQL, which serves
 * several daemons). Another process holding it: G16_ERR_IO, the message
 * naming the lock file. */
g16_err store_lock_exclusive(const char *url, int *fd, g16_status *st);
void store_close(store *s);
const char *store_backend(const store *s); /* "sqlite" or "postgresql" */

/* One partition's witness: a path (read when the partition runs) or inline
 * .wtns bytes (kept in the store). Exactly one of path / data is set. */
typedef struct store_witness {
    const char *path;
    const void *data;
    size_t len;
} store_witness;

typedef struct store_job_new {
    const char *idempotency_key; /* may be NULL */
    const char *key_id;          /* the daemon's name of the proving key */
    int priority;                /* g16_priority */
    uint32_t n_partitions;
    const store_witness *witness; /* n_partitions entries */
    double timeout_s;             /* 0: none; a job not finished by then fails */
} store_job_new;

/* Inserts a job and its partitions in one transaction. With an idempotency
 * key that exists already, returns that job's id with *existed = 1 (and
 * G16_ERR_INVALID_ARG if key_id or n_partitions differ). */
g16_err store_job_create(store *s, const store_job_new *j, int64_t *job_id, int *existed,
                         g16_status *st);

/* A claimed partition (owned by this store's owner until its lease ends). */
typedef struct store_claim {
    int64_t job_id;
    uint32_t partition;
    int priority;
    uint32_t attempt; /* 1 for the first claim */
    char key_id[128];
    char *wtns_path;  /* malloc'd, or NULL */
    void *wtns_data;  /* malloc'd inline bytes, or NULL */
    size_t wtns_len;
} store_claim;
void store_claim_free(store_claim *c); /* frees the members, not c */

/* Claims up to max partitions, in dispatch order, among the QUEUED ones
 * and the RUNNING ones whose lease has expired, of jobs whose key_id is one
 * of key_ids (nkeys > 0). Sets them RUNNING with lease_until = now + lease_s
 * and attempt + 1, and the start time of a job none of whose partitions was
 * claimed before to now (later claims, after a release, a recovery or a lost
 * lease, keep it); a partition that would exceed max_attempts is FAILED
 * instead ("abandoned after N attempts"). *n = the number claimed. */
g16_err store_claim_next(store *s, const char *const *key_ids, size_t nkeys, double lease_s,
                         uint32_t max_attempts, store_claim *out, size_t max, size_t *n,
                         g16_status *st);
/* Renews the leases of every RUNNING partition this owner holds. */
g16_err store_heartbeat(store *s, double lease_s, g16_status *st);
/* Renews the leases of the listed partitions only (those still RUNNING
 * under this owner; others are skipped). g16d renews the partitions it is
 * working on, so that a lease of work that stopped progressing runs out. */
typedef struct store_part_ref {
    int64_t job_id;
    uint32_t partition;
} store_part_ref;
g16_err store_renew(store *s, double lease_s, const store_part_ref *parts, size_t n, g16_status *st);
/* A probe write: one committed transaction that writes bytes (64 to 16M)
 * of data into the store (a g16_meta row, overwritten each time). */
g16_err store_probe(store *s, size_t bytes, g16_status *st);
/* 1 if a failed call's message says the store's disk (or file-size limit,
 * or quota) is full: SQLite's "database or disk is full", ENOSPC, EFBIG,
 * EDQUOT, PostgreSQL's disk_full. */
int store_error_is_full(const g16_status *st);

/* Records a partition's outcome (only if this owner holds it; else
 * G16_ERR_CANCELLED: the job was cancelled, or the lease was lost and
 * another daemon took the partition). Updates the job's state. stats_json
 * is the partition's stage timings (an object) or NULL. */
g16_err store_part_done(store *s, int64_t job_id, uint32_t partition, const char *proof_json,
                        const char *public_json, const char *stats_json, g16_status *st);
g16_err store_part_fail(store *s, int64_t job_id, uint32_t partition, g16_err code, const char *message,
                        g16_status *st);
/* Gives a claimed partition back to the queue (graceful shutdown). */
g16_err store_part_release(store *s, int64_t job_id, uint32_t partition, g16_status *st);

/* Cancels a job: its QUEUED and RUNNING partitions become CANCELLED (a
 * running one's later store_part_done returns G16_ERR_CANCELLED). A finished
 * job is left as it is; *state (may be NULL) receives the job's state after
 * the call. Unknown id: G16_ERR_INVALID_ARG. */
g16_err store_job_cancel(store *s, int64_t job_id, store_state *state, g16_status *st);
/* Fails the unfinished partitions of jobs whose timeout has passed. */
g16_err store_expire(store *s, size_t *n_expired, g16_status *st);

typedef struct store_part_info {
    store_state state;
    uint32_t attempts;
    char owner[128];
    int err_code; /* g16_err of a failed partition, else 0 */
    char *error;  /* malloc'd message, or NULL */
    char *proof_json, *public_json, *stats_json; /* malloc'd, NULL unless DONE and asked for */
} store_part_info;

typedef struct store_job_info {
    int64_t id;
    char key_id[128];
    char idempotency_key[128];
    int priority;
    store_state state;
    uint32_t n_partitions, n_done, n_failed, n_cancelled;
    double created, finished; /* unix seconds; finished 0 while not */
    double started;           /* unix seconds of the job's first claim; 0 before */
    uint64_t queue_position;  /* QUEUED jobs ahead of it in dispatch order (0 if not queued) */
    store_part_info *parts;   /* n_partitions entries, malloc'd */
} store_job_info;
/* with_results: also read the proofs, public signals and stats. */
g16_err store_job_get(store *s, int64_t job_id, int with_results, store_job_info *out, g16_status *st);
void store_job_info_free(store_job_info *j);

/* A job listing's filter: bit s of states selects state s (0: any), bit p
 * of priorities priority p (0: any); key_id NULL: any key; only ids > after. */
typedef struct store_job_filter {
    unsigned states, priorities;
    const char *key_id;
    int64_t after;
} store_job_filter;
/* The ids of up to max jobs matching f, ascending; *n = how many. */
g16_err store_job_list(store *s, const store_job_filter *f, int64_t *ids, size_t max, size_t *n, g16_status *st);

/* Start-up recovery: partitions RUNNING under this owner (a previous life of
 * this daemon) go back to QUEUED; with the SQLite backend (one daemon per
 * file) every RUNNING partition does. *n_requeued may be NULL. */
g16_err store_recover(store *s, size_t *n_requeued, g16_status *st);

/* Counts for metrics and status: partitions[state][priority] and
 * jobs[state][priority]. */
typedef struct store_counts {
    uint64_t partitions[5][4];
    uint64_t jobs[5][4];
} store_counts;
g16_err store_get_counts(store *s, store_counts *c, g16_status *st);

#endif
