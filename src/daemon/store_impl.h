/* Internal: the store backends' table of operations (store.h documents the
 * contracts). store.c holds the dispatch, the mutex and the URL parsing;
 * each backend fills a store_ops and its own state. */
#ifndef G16_DAEMON_STORE_IMPL_H
#define G16_DAEMON_STORE_IMPL_H

#include <pthread.h>

#include "store.h"

typedef struct store_ops {
    const char *name;
    g16_err (*open)(void **self, const char *target, const char *owner, g16_status *st);
    void (*close)(void *self);
    g16_err (*job_create)(void *self, const store_job_new *j, int64_t *job_id, int *existed, g16_status *st);
    g16_err (*claim_next)(void *self, const char *const *key_ids, size_t nkeys, double lease_s,
                          uint32_t max_attempts, store_claim *out, size_t max, size_t *n, g16_status *st);
    g16_err (*heartbeat)(void *self, double lease_s, g16_status *st);
    g16_err (*renew)(void *self, double lease_s, const store_part_ref *parts, size_t n, g16_status *st);
    g16_err (*probe)(void *self, size_t bytes, g16_status *st);
    g16_err (*part_done)(void *self, int64_t job_id, uint32_t partition, const char *proof_json,
                         const char *public_json, const char *stats_json, g16_status *st);
    g16_err (*part_fail)(void *self, int64_t job_id, uint32_t partition, g16_err code, const char *message,
                         g16_status *st);
    g16_err (*part_release)(void *self, int64_t job_id, uint32_t partition, g16_status *st);
    g16_err (*job_cancel)(void *self, int64_t job_id, store_state *state, g16_status *st);
    g16_err (*expire)(void *self, size_t *n_expired, g16_status *st);
    g16_err (*job_get)(void *self, int64_t job_id, int with_results, store_job_info *out, g16_status *st);
    g16_err (*recover)(void *self, size_t *n_requeued, g16_status *st);
    g16_err (*get_counts)(void *self, store_counts *c, g16_status *st);
    g16_err (*job_list)(void *self, const store_job_filter *f, int64_t *ids, size_t max, size_t *n, g16_status *st);
} store_ops;

/* The backends (store_pg_ops is absent from builds without libpq: store.c
 * then answers G16_ERR_UNSUPPORTED for PostgreSQL URLs). */
extern const store_ops store_sqlite_ops;
#ifdef G16_HAVE_LIBPQ
extern const store_ops store_pg_ops;
#endif

#endif
