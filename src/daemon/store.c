/* The job store's front: URL parsing, backend dispatch and the per-handle
 * mutex (store.h). */
#include "store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct store {
    const store_ops *ops;
    void *self;
    pthread_mutex_t lock;
};

const char *store_state_name(store_state s) {
    switch (s) {
    case STORE_QUEUED: return "queued";
    case STORE_RUNNING: return "running";
    case STORE_DONE: return "done";
    case STORE_FAILED: return "failed";
    case STORE_CANCELLED: return "cancelled";
    }
    return "unknown";
}

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

g16_err store_lock_exclusive(const char *url, int *fd, g16_status *st) {
    *fd = -1;
    if (!url || has_prefix(url, "postgresql://") || has_prefix(url, "postgres://") || has_prefix(url, "pg:"))
        return G16_OK;
    const char *path = has_prefix(url, "sqlite:") ? url + 7 : url;
    char lock[4096];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: path too long");
    int f = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (f < 0)
        return g16_fail(st, G16_ERR_IO, "store: cannot open the lock file %s: %s", lock, strerror(errno));
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(f);
        if (e == EWOULDBLOCK)
            return g16_fail(st, G16_ERR_IO,
                            "store: %s is in use by another g16d (it holds %s); a SQLite store serves one daemon, "
                            "use PostgreSQL to run several",
                            path, lock);
        return g16_fail(st, G16_ERR_IO, "store: cannot lock %s: %s", lock, strerror(e));
    }
    *fd = f;
    return G16_OK;
}

g16_err store_open(store **out, const char *url, const char *owner, g16_status *st) {
    if (!out || !url || !*url || !owner || !*owner)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: empty URL or owner");
    *out = NULL;
    const store_ops *ops = &store_sqlite_ops;
    const char *target = url;
    if (has_prefix(url, "sqlite:")) {
        target = url + 7;
    } else if (has_prefix(url, "postgresql://") || has_prefix(url, "postgres://") || has_prefix(url, "pg:")) {
#ifdef G16_HAVE_LIBPQ
        ops = &store_pg_ops;
        target = has_prefix(url, "pg:") ? url + 3 : url;
#else
        return g16_fail(st, G16_ERR_UNSUPPORTED, "store: this build of g16d has no PostgreSQL support (libpq)");
#endif
    }
    if (!*target)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: empty path in '%s'", url);
    store *s = calloc(1, sizeof *s);
    if (!s)
        return g16_fail(st, G16_ERR_NOMEM, "store: out of memory");
    s->ops = ops;
    pthread_mutex_init(&s->lock, NULL);
    g16_err err = ops->open(&s->self, target, owner, st);
    if (err) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return err;
    }
    *out = s;
    return G16_OK;
}

void store_close(store *s) {
    if (!s)
        return;
    s->ops->close(s->self);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const char *store_backend(const store *s) { return s ? s->ops->name : "none"; }

/* Every call runs under the handle's mutex. */
#define LOCKED(call)                                                                           \
    do {                                                                                       \
        if (!s)                                                                                \
            return g16_fail(st, G16_ERR_INVALID_ARG, "store: NULL handle");                  \
        pthread_mutex_lock(&s->lock);                                                          \
        g16_err err_ = (call);                                                                 \
        pthread_mutex_unlock(&s->lock);                                                        \
        return err_;                                                                           \
    } while (0)

/* The checks common to the backends. */
static g16_err check_job(const store_job_new *j, g16_status *st) {
    if (j->n_partitions == 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: a job needs at least one partition");
    if (j->priority < G16_PRIORITY_LOW || j->priority > G16_PRIORITY_CRITICAL)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: bad priority %d", j->priority);
    if (!*j->key_id || strlen(j->key_id) >= sizeof ((store_claim *)0)->key_id)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: key id empty or longer than 127 bytes");
    if (j->idempotency_key && strlen(j->idempotency_key) >= sizeof ((store_job_info *)0)->idempotency_key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: idempotency key longer than 127 bytes");
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        const store_witness *w = &j->witness[i];
        if (!w->path == !w->data || (w->path && !*w->path))
            return g16_fail(st, G16_ERR_INVALID_ARG, "store: witness %u needs exactly one of path and data", i);
    }
    return G16_OK;
}

g16_err store_job_create(store *s, const store_job_new *j, int64_t *job_id, int *existed, g16_status *st) {
    if (!j || !job_id || !j->key_id || (j->n_partitions && !j->witness))
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: bad job");
    g16_err err = check_job(j, st);
    if (err)
        return err;
    LOCKED(s->ops->job_create(s->self, j, job_id, existed, st));
}

g16_err store_claim_next(store *s, const char *const *key_ids, size_t nkeys, double lease_s,
                         uint32_t max_attempts, store_claim *out, size_t max, size_t *n, g16_status *st) {
    if (!n || (max && !out) || (nkeys && !key_ids))
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: bad claim arguments");
    *n = 0;
    if (!max || !nkeys)
        return G16_OK;
    LOCKED(s->ops->claim_next(s->self, key_ids, nkeys, lease_s, max_attempts, out, max, n, st));
}

void store_claim_free(store_claim *c) {
    if (!c)
        return;
    free(c->wtns_path);
    free(c->wtns_data);
    c->wtns_path = NULL;
    c->wtns_data = NULL;
    c->wtns_len = 0;
}

g16_err store_heartbeat(store *s, double lease_s, g16_status *st) { LOCKED(s->ops->heartbeat(s->self, lease_s, st)); }

g16_err store_renew(store *s, double lease_s, const store_part_ref *parts, size_t n, g16_status *st) {
    if (n && !parts)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: bad renew arguments");
    if (!n)
        return G16_OK;
    LOCKED(s->ops->renew(s->self, lease_s, parts, n, st));
}

g16_err store_probe(store *s, size_t bytes, g16_status *st) {
    if (bytes < 64 || bytes > (16u << 20))
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: probe size %zu outside [64, 16M]", bytes);
    LOCKED(s->ops->probe(s->self, bytes, st));
}

int store_error_is_full(const g16_status *st) {
    static const char *const MARKS[] = {"disk is full", "No space left", "File too large", "Disk quota exceeded",
                                        "file size limit", "SQLSTATE 53100"};
    if (!st || st->code != G16_ERR_IO)
        return 0;
    for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0]; i++)
        if (strstr(st->msg, MARKS[i]))
            return 1;
    return 0;
}

g16_err store_part_done(store *s, int64_t job_id, uint32_t partition, const char *proof_json,
                        const char *public_json, const char *stats_json, g16_status *st) {
    LOCKED(s->ops->part_done(s->self, job_id, partition, proof_json, public_json, stats_json, st));
}

g16_err store_part_fail(store *s, int64_t job_id, uint32_t partition, g16_err code, const char *message,
                        g16_status *st) {
    LOCKED(s->ops->part_fail(s->self, job_id, partition, code, message ? message : "", st));
}

g16_err store_part_release(store *s, int64_t job_id, uint32_t partition, g16_status *st) {
    LOCKED(s->ops->part_release(s->self, job_id, partition, st));
}

g16_err store_job_cancel(store *s, int64_t job_id, store_state *state, g16_status *st) {
    LOCKED(s->ops->job_cancel(s->self, job_id, state, st));
}

g16_err store_expire(store *s, size_t *n_expired, g16_status *st) { LOCKED(s->ops->expire(s->self, n_expired, st)); }

g16_err store_job_get(store *s, int64_t job_id, int with_results, store_job_info *out, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: NULL job info");
    memset(out, 0, sizeof *out);
    LOCKED(s->ops->job_get(s->self, job_id, with_results, out, st));
}

void store_job_info_free(store_job_info *j) {
    if (!j || !j->parts)
        return;
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        free(j->parts[i].error);
        free(j->parts[i].proof_json);
        free(j->parts[i].public_json);
        free(j->parts[i].stats_json);
    }
    free(j->parts);
    j->parts = NULL;
}

g16_err store_recover(store *s, size_t *n_requeued, g16_status *st) { LOCKED(s->ops->recover(s->self, n_requeued, st)); }

g16_err store_get_counts(store *s, store_counts *c, g16_status *st) {
    if (!c)
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: NULL counts");
    memset(c, 0, sizeof *c);
    LOCKED(s->ops->get_counts(s->self, c, st));
}

g16_err store_job_list(store *s, const store_job_filter *f, int64_t *ids, size_t max, size_t *n, g16_status *st) {
    if (!f || !n || (max && !ids))
        return g16_fail(st, G16_ERR_INVALID_ARG, "store: NULL job list argument");
    *n = 0;
    if (!max)
        return G16_OK;
    LOCKED(s->ops->job_list(s->self, f, ids, max, n, st));
}
