/* The dispatcher between the job store and the engine (docs/daemon.md).
 *
 * n_slots = workers + queue_extra runner threads. Each runner claims one
 * partition at a time from the store (store_claim_next, dispatch order:
 * priority, job age, partition index; claims are serialized so that the
 * order holds across runners), submits it to the engine as a one-witness
 * job with the job's priority, waits for it and writes the outcome to the
 * store (store_part_done with proof/public/stats JSON, or store_part_fail).
 * So at most workers partitions prove while queue_extra wait in the engine,
 * where a CRITICAL partition overtakes the queued ones.
 *
 * A heartbeat thread renews this daemon's leases every heartbeat_s and
 * fails the partitions of timed-out jobs (store_expire), cancelling their
 * engine jobs. Cancellation: the API calls store_job_cancel, then
 * g16d_dispatch_cancel cancels the engine jobs of the job's partitions.
 * Shutdown (g16d_dispatch_stop): no more claims; partitions still queued in
 * the engine are cancelled there and released to the store; running ones
 * finish within drain_timeout_s, after which they too are cancelled and
 * released. A crash instead leaves them RUNNING in the store, where
 * store_recover (SQLite) or lease expiry (PostgreSQL) queues them again. */
#include "daemon.h"

#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void abs_deadline(struct timespec *ts, double seconds) {
    clock_gettime(CLOCK_REALTIME, ts);
    double s = floor(seconds);
    ts->tv_sec += (time_t)s;
    ts->tv_nsec += (long)((seconds - s) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Counts every store failure; logs a repeated one (same operation and
 * message) at most every 10 s, so that a full disk does not flood the log
 * from every idle runner's poll. /healthz answers 503 with the message
 * until a store write succeeds again. */
void g16d_store_error(g16d *d, const char *op, const g16_status *st) {
    char *last = d->last_store_err;
    double *last_t = &d->last_store_err_t;
    char key[300];
    snprintf(key, sizeof key, "%s|%.250s", op, st->msg);
    double now = g16d_unix_now();
    pthread_mutex_lock(&d->mtx);
    d->cnt.store_errors++;
    d->store_ok = 0;
    snprintf(d->store_err_msg, sizeof d->store_err_msg, "job store: %s: %.250s", op, st->msg);
    uint64_t total = d->cnt.store_errors;
    int quiet = !strcmp(key, last) && now - *last_t < 10;
    if (!quiet) {
        memcpy(last, key, sizeof key);
        *last_t = now;
    }
    pthread_mutex_unlock(&d->mtx);
    if (!quiet)
        g16d_log(G16D_ERROR, "store_error", json_pack("{s:s,s:s,s:s,s:I}", "op", op, "code", g16d_err_code(st->code),
                                                      "message", st->msg, "errors_total", (json_int_t)total));
}

/* A store write succeeded (reads do not count: a full disk still reads). */
void g16d_store_success(g16d *d) {
    pthread_mutex_lock(&d->mtx);
    d->store_ok = 1;
    d->store_err_msg[0] = 0;
    pthread_mutex_unlock(&d->mtx);
}

/* The engine runs each partition as a one-witness job, so its messages say
 * "partition 0": name the job's partition instead. */
static void part_msg(char *out, size_t cap, uint32_t part, const char *msg) {
    if (!msg)
        msg = "";
    if (!strncmp(msg, "partition 0: ", 13))
        msg += 13;
    snprintf(out, cap, "partition %u: %s", part, msg);
}

static char *stats_json(const g16_partition_stats *ps) {
    json_t *o = json_pack("{s:f,s:f,s:f,s:f,s:f,s:i}", "queue_ms", ps->queue_ms, "synth_ms", ps->synth_ms,
                          "device_ms", ps->device_ms, "finalize_ms", ps->finalize_ms, "verify_ms", ps->verify_ms,
                          "worker", ps->worker);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(o);
    return s;
}

enum { REC_STORED, REC_DISCARDED, REC_PENDING };

static void pending_free(g16d_pending *p) {
    free(p->proof);
    free(p->pub);
    free(p->stats);
    free(p->msg);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void log_recorded(g16d *d, int64_t job, uint32_t part, int ok, g16_err code, const char *msg,
                         const char *stats) {
    pthread_mutex_lock(&d->mtx);
    if (ok)
        d->cnt.parts_done++;
    else
        d->cnt.parts_failed++;
    pthread_mutex_unlock(&d->mtx);
    if (ok) {
        json_t *f = json_pack("{s:I,s:i}", "job", (json_int_t)job, "partition", (int)part);
        json_t *sj = stats ? json_loads(stats, 0, NULL) : NULL;
        const char *names[4] = {"queue_ms", "synth_ms", "device_ms", "verify_ms"};
        for (int i = 0; i < 4 && sj; i++) {
            json_t *v = json_object_get(sj, names[i]);
            if (v)
                json_object_set(f, names[i], v);
        }
        json_decref(sj);
        g16d_log(G16D_INFO, "partition_done", f);
    } else {
        g16d_log(G16D_WARN, "partition_failed",
                 json_pack("{s:I,s:i,s:s,s:s}", "job", (json_int_t)job, "partition", (int)part, "code",
                           g16d_err_code(code), "message", msg ? msg : ""));
    }
}

/* One attempt to write an outcome: G16_OK, G16_ERR_CANCELLED (not ours any
 * more: logged as discarded) or a store failure (counted). */
static g16_err record_once(g16d *d, int64_t job, uint32_t part, int ok, const char *proof, const char *pub,
                           const char *stats, g16_err code, const char *msg) {
    g16_status st = {0};
    g16_err err = ok ? store_part_done(d->st, job, part, proof, pub, stats, &st)
                     : store_part_fail(d->st, job, part, code, msg, &st);
    if (!err) {
        g16d_store_success(d);
        log_recorded(d, job, part, ok, code, msg, stats);
    } else if (err == G16_ERR_CANCELLED) { /* cancelled meanwhile, or lease lost */
        g16d_log(G16D_INFO, "partition_discarded",
                 json_pack("{s:I,s:i,s:s}", "job", (json_int_t)job, "partition", (int)part, "reason", st.msg));
    } else {
        g16d_store_error(d, ok ? "part_done" : "part_fail", &st);
    }
    return err;
}

/* Writes the outcome, retrying a store failure a few times. If the store
 * stays unusable, the outcome is kept in d->pending (the partition stays
 * RUNNING under this daemon's lease, renewed) and written again at each
 * heartbeat tick, so the job completes once the store takes writes again. */
static int record(g16d *d, const store_claim *c, int ok, const char *proof, const char *pub, const char *stats,
                  g16_err code, const char *msg) {
    for (int attempt = 0; attempt < 3; attempt++) {
        g16_err err = record_once(d, c->job_id, c->partition, ok, proof, pub, stats, code, msg);
        if (!err)
            return REC_STORED;
        if (err == G16_ERR_CANCELLED)
            return REC_DISCARDED;
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    g16d_pending p = {c->job_id, c->partition, ok, dup_or_null(proof), dup_or_null(pub), dup_or_null(stats),
                      dup_or_null(msg), code, 0};
    pthread_mutex_lock(&d->mtx);
    d->cnt.record_errors++;
    int kept = 0;
    if (d->n_pending == d->cap_pending) {
        size_t nc = d->cap_pending ? 2 * d->cap_pending : 16;
        g16d_pending *np = realloc(d->pending, nc * sizeof *np);
        if (np) {
            d->pending = np;
            d->cap_pending = nc;
        }
    }
    if (d->n_pending < d->cap_pending && (!ok || p.proof)) {
        d->pending[d->n_pending++] = p;
        kept = 1;
    }
    pthread_mutex_unlock(&d->mtx);
    if (!kept)
        pending_free(&p);
    g16d_log(G16D_ERROR, "partition_unrecorded",
             json_pack("{s:I,s:i,s:s}", "job", (json_int_t)c->job_id, "partition", (int)c->partition, "message",
                       kept ? "the job store failed; the result is kept and written again at each heartbeat"
                            : "the job store failed and the result could not be kept (out of memory); its lease "
                              "runs out and it runs again"));
    return REC_PENDING;
}

/* The heartbeat's retry of the outcomes in d->pending. probe_ok: a probe
 * write just succeeded, so a proof that still cannot be written is itself
 * the problem; after 3 such ticks it is recorded as a failure instead. */
static void retry_pending(g16d *d, int probe_ok) {
    pthread_mutex_lock(&d->mtx);
    g16d_pending *v = d->pending;
    size_t n = d->n_pending;
    d->pending = NULL;
    d->n_pending = d->cap_pending = 0;
    pthread_mutex_unlock(&d->mtx);
    if (!n) {
        free(v);
        return;
    }
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        g16d_pending *p = &v[i];
        g16_err err = record_once(d, p->job, p->part, p->ok, p->proof, p->pub, p->stats, p->code, p->msg);
        if (err && err != G16_ERR_CANCELLED && p->ok && probe_ok && ++p->tries >= 3) {
            free(p->msg);
            p->msg = strdup("the job store could not record the proof");
            p->ok = 0;
            p->code = G16_ERR_IO;
            err = record_once(d, p->job, p->part, 0, NULL, NULL, NULL, p->code, p->msg);
        }
        if (!err || err == G16_ERR_CANCELLED) {
            pending_free(p);
            g16d_notify_change(d);
        } else {
            v[keep++] = *p;
        }
    }
    pthread_mutex_lock(&d->mtx);
    for (size_t i = 0; i < keep; i++) {
        if (d->n_pending == d->cap_pending) {
            size_t nc = d->cap_pending ? 2 * d->cap_pending : 16;
            g16d_pending *np = realloc(d->pending, nc * sizeof *np);
            if (!np) {
                pending_free(&v[i]);
                continue;
            }
            d->pending = np;
            d->cap_pending = nc;
        }
        d->pending[d->n_pending++] = v[i];
    }
    pthread_mutex_unlock(&d->mtx);
    free(v);
}

void g16d_pending_free_all(g16d *d) {
    for (size_t i = 0; i < d->n_pending; i++)
        pending_free(&d->pending[i]);
    free(d->pending);
    d->pending = NULL;
    d->n_pending = d->cap_pending = 0;
}

/* A partition's inline data is either .wtns bytes ("wtns" magic) or the
 * inputs of the key's witness generator: a JSON object (api.c). */
static int is_inputs(const void *data, size_t len) { return data && len && *(const char *)data == '{'; }

static void wipe_free(void *p, size_t n) {
    if (!p)
        return;
    volatile unsigned char *v = p;
    for (size_t i = 0; i < n; i++)
        v[i] = 0;
    g16_free(p);
}

/* Runs the key's witness generator on the claim's inputs, in this runner
 * thread (never an HTTP one): on success w points at the .wtns (*buf, *len:
 * the caller wipes and frees it); on failure msg says why, naming the
 * partition. */
static g16_err generate(g16d *d, const g16d_key *key, const store_claim *c, g16_engine_witness *w, void **buf,
                        size_t *len, char *msg, size_t cap) {
    if (!key->witgen[0]) { /* registered again without a generator after the job was accepted */
        snprintf(msg, cap, "partition %u: key '%s' has no witness generator for its inputs", c->partition,
                 key->id);
        return G16_ERR_WITNESS_GEN;
    }
    char name[96];
    snprintf(name, sizeof name, "job %lld partition %u inputs", (long long)c->job_id, c->partition);
    g16_witgen_opts o;
    g16_witgen_opts_init(&o);
    o.input_name = name;
    g16_err err = g16_witness_generate_wtns(d->ctx, buf, len, key->witgen, NULL, c->wtns_data, c->wtns_len, &o);
    if (err) {
        part_msg(msg, cap, c->partition, g16d_last_engine_error());
        return err;
    }
    w->path = NULL;
    w->data = *buf;
    w->len = *len;
    return G16_OK;
}

/* A partition of a .params key: its .assignment path, or the file's bytes
 * from the store (copied by the engine and wiped there). */
static g16_err submit_assignment(g16d *d, const g16d_key *key, const store_claim *c, int prio, uint64_t *ej) {
    g16_engine_assignment a = {c->wtns_path, c->wtns_path ? NULL : c->wtns_data, c->wtns_path ? 0 : c->wtns_len,
                               NULL};
    return g16_engine_submit_assignments(d->eng, ej, key->eng_id, &a, 1, (g16_priority)prio, 0);
}

static void run_claim(g16d *d, int slot, store_claim *c) {
    g16d_key key;
    int have_key = 0;
    pthread_mutex_lock(&d->mtx);
    for (size_t i = 0; i < d->n_keys; i++)
        if (!strcmp(d->keys[i].id, c->key_id)) {
            d->keys[i].inflight++;
            key = d->keys[i];
            have_key = 1;
            break;
        }
    g16d_slot *s = &d->slots[slot];
    s->used = 1;
    s->job = c->job_id;
    s->part = c->partition;
    s->has_eng_job = 0;
    s->release = 0;
    snprintf(s->key_id, sizeof s->key_id, "%s", c->key_id);
    pthread_mutex_unlock(&d->mtx);

    if (!have_key) { /* removed after the claim: give it back */
        g16_status st = {0};
        if (store_part_release(d->st, c->job_id, c->partition, &st))
            g16d_store_error(d, "part_release", &st);
        pthread_mutex_lock(&d->mtx);
        s->used = 0;
        pthread_mutex_unlock(&d->mtx);
        return;
    }
    g16d_log(G16D_DEBUG, "partition_claimed",
             json_pack("{s:I,s:i,s:i,s:s}", "job", (json_int_t)c->job_id, "partition", (int)c->partition, "attempt",
                       (int)c->attempt, "key", c->key_id));
    g16_engine_witness w = {c->wtns_path, c->wtns_data, c->wtns_len};
    uint64_t ej = 0;
    int prio = c->priority < 0 ? 0 : c->priority > 3 ? 3 : c->priority;
    char kmsg[512], msg[700];
    g16_err err = G16_OK;
    void *gen_wtns = NULL; /* the witness made from the partition's inputs */
    size_t gen_len = 0;
    if (g16d_key_check(d, c->key_id, kmsg, sizeof kmsg)) {
        part_msg(msg, sizeof msg, c->partition, kmsg);
        record(d, c, 0, NULL, NULL, NULL, G16_ERR_IO, msg);
    } else if (key.params && (err = submit_assignment(d, &key, c, prio, &ej))) {
        part_msg(msg, sizeof msg, c->partition, g16d_last_engine_error());
        record(d, c, 0, NULL, NULL, NULL, err, msg);
    } else if (!key.params && is_inputs(c->wtns_data, c->wtns_len) &&
               (err = generate(d, &key, c, &w, &gen_wtns, &gen_len, msg, sizeof msg)) != G16_OK) {
        record(d, c, 0, NULL, NULL, NULL, err, msg);
    } else if (!key.params && (err = g16_engine_submit(d->eng, &ej, key.eng_id, &w, 1, (g16_priority)prio, 0))) {
        part_msg(msg, sizeof msg, c->partition, g16d_last_engine_error());
        record(d, c, 0, NULL, NULL, NULL, err, msg);
    } else {
        pthread_mutex_lock(&d->mtx);
        s->eng_job = ej;
        s->has_eng_job = 1;
        g16d_ejmap_put(d, ej, c->job_id, c->partition);
        int release_now = d->draining;
        if (release_now)
            s->release = 1;
        pthread_mutex_unlock(&d->mtx);
        if (release_now)
            (void)!g16_engine_cancel(d->eng, ej);
        (void)!g16_engine_wait(d->eng, ej, -1);
        g16_engine_job_info ji;
        memset(&ji, 0, sizeof ji);
        (void)!g16_engine_job_get_info(d->eng, &ji, ej);
        pthread_mutex_lock(&d->mtx);
        int release = s->release;
        pthread_mutex_unlock(&d->mtx);
        if (ji.state == G16_JOB_DONE) {
            char *proof = NULL, *pub = NULL;
            g16_partition_stats ps;
            memset(&ps, 0, sizeof ps);
            err = g16_engine_partition_result(d->eng, &proof, &pub, &ps, ej, 0);
            if (err) {
                part_msg(msg, sizeof msg, c->partition, g16d_last_engine_error());
                record(d, c, 0, NULL, NULL, NULL, err, msg);
            } else {
                char *sj = stats_json(&ps);
                record(d, c, 1, proof, pub, sj, G16_OK, NULL);
                free(sj);
            }
            g16_free(proof);
            g16_free(pub);
        } else if (ji.state == G16_JOB_CANCELLED && release) {
            g16_status st = {0};
            if (store_part_release(d->st, c->job_id, c->partition, &st))
                g16d_store_error(d, "part_release", &st);
            pthread_mutex_lock(&d->mtx);
            d->cnt.parts_released++;
            pthread_mutex_unlock(&d->mtx);
            g16d_log(G16D_INFO, "partition_released",
                     json_pack("{s:I,s:i}", "job", (json_int_t)c->job_id, "partition", (int)c->partition));
        } else if (ji.state == G16_JOB_CANCELLED) {
            g16d_log(G16D_INFO, "partition_cancelled",
                     json_pack("{s:I,s:i}", "job", (json_int_t)c->job_id, "partition", (int)c->partition));
        } else {
            g16_err code = ji.err ? ji.err : G16_ERR_INTERNAL;
            part_msg(msg, sizeof msg, c->partition, ji.msg[0] ? ji.msg : g16_err_str(code));
            record(d, c, 0, NULL, NULL, NULL, code, msg);
        }
        (void)!g16_engine_job_release(d->eng, ej);
    }
    wipe_free(gen_wtns, gen_len);
    pthread_mutex_lock(&d->mtx);
    s->used = 0;
    s->has_eng_job = 0;
    for (size_t i = 0; i < d->n_keys; i++)
        if (!strcmp(d->keys[i].id, c->key_id) && d->keys[i].inflight)
            d->keys[i].inflight--;
    d->change_gen++;
    pthread_cond_broadcast(&d->change);
    pthread_mutex_unlock(&d->mtx);
}

typedef struct runner_arg {
    g16d *d;
    int slot;
} runner_arg;

static pthread_mutex_t claim_mtx = PTHREAD_MUTEX_INITIALIZER;

static void *runner_main(void *arg) {
    runner_arg *ra = arg;
    g16d *d = ra->d;
    int slot = ra->slot;
    free(ra);
    for (;;) {
        pthread_mutex_lock(&d->mtx);
        int stop = d->stopping || d->draining;
        pthread_mutex_unlock(&d->mtx);
        if (stop)
            break;
        size_t nk = 0, n = 0;
        char **ids = g16d_key_ids(d, &nk);
        store_claim c;
        memset(&c, 0, sizeof c);
        g16_err err = G16_OK;
        g16_status st = {0};
        if (nk) {
            pthread_mutex_lock(&claim_mtx);
            pthread_mutex_lock(&d->mtx);
            stop = d->stopping || d->draining;
            pthread_mutex_unlock(&d->mtx);
            if (!stop)
                err = store_claim_next(d->st, (const char *const *)ids, nk, d->cfg->lease_s, d->cfg->max_attempts,
                                       &c, 1, &n, &st);
            pthread_mutex_unlock(&claim_mtx);
        }
        free(ids);
        if (err) {
            g16d_store_error(d, "claim_next", &st);
            n = 0;
        } else if (n) {
            g16d_store_success(d);
        }
        if (n) {
            run_claim(d, slot, &c);
            store_claim_free(&c);
            continue;
        }
        /* Idle: sleep until new work is signalled or poll_s passes (other
         * daemons sharing a PostgreSQL store add work silently). */
        struct timespec ts;
        abs_deadline(&ts, err ? fmax(d->cfg->poll_s, 1.0) : d->cfg->poll_s);
        pthread_mutex_lock(&d->mtx);
        if (!d->stopping && !d->draining)
            pthread_cond_timedwait(&d->work, &d->mtx, &ts);
        pthread_mutex_unlock(&d->mtx);
    }
    return NULL;
}

/* Cancels the engine jobs of the slots for which pick() says so. */
static void cancel_slots(g16d *d, int (*pick)(const g16d_slot *, const void *), const void *arg, int release) {
    uint64_t ids[256];
    int n = 0;
    pthread_mutex_lock(&d->mtx);
    for (int i = 0; i < d->n_slots && n < 256; i++) {
        g16d_slot *s = &d->slots[i];
        if (s->used && s->has_eng_job && pick(s, arg)) {
            if (release)
                s->release = 1;
            ids[n++] = s->eng_job;
        }
    }
    pthread_mutex_unlock(&d->mtx);
    for (int i = 0; i < n; i++)
        (void)!g16_engine_cancel(d->eng, ids[i]);
}

static int pick_job(const g16d_slot *s, const void *arg) { return s->job == *(const int64_t *)arg; }

void g16d_dispatch_cancel(g16d *d, int64_t job_id) { cancel_slots(d, pick_job, &job_id, 0); }

/* Renews the leases of the partitions this daemon works on: those in a
 * runner slot and those whose outcome waits in d->pending. Any other
 * partition RUNNING under this owner (none, unless memory ran out) is not
 * renewed: its lease runs out and it is claimed again. */
static void renew_leases(g16d *d) {
    pthread_mutex_lock(&d->mtx);
    size_t cap = (size_t)d->n_slots + d->n_pending, n = 0;
    store_part_ref *refs = cap ? malloc(cap * sizeof *refs) : NULL;
    for (int i = 0; refs && i < d->n_slots; i++)
        if (d->slots[i].used)
            refs[n++] = (store_part_ref){d->slots[i].job, d->slots[i].part};
    for (size_t i = 0; refs && i < d->n_pending; i++)
        refs[n++] = (store_part_ref){d->pending[i].job, d->pending[i].part};
    pthread_mutex_unlock(&d->mtx);
    g16_status st = {0};
    if (n && store_renew(d->st, d->cfg->lease_s, refs, n, &st))
        g16d_store_error(d, "renew", &st);
    free(refs);
}

/* The write probe behind /healthz: a small write while healthy (so that a
 * disk that filled up while idle shows), 1 MiB after a failure (so that a
 * store which takes only small writes, e.g. into a WAL's spare room, is not
 * called healthy). 1: it succeeded. */
static int probe(g16d *d) {
    pthread_mutex_lock(&d->mtx);
    int ok = d->store_ok;
    pthread_mutex_unlock(&d->mtx);
    g16_status st = {0};
    if (store_probe(d->st, ok ? 64 : (size_t)1 << 20, &st)) {
        g16d_store_error(d, "probe", &st);
        return 0;
    }
    g16d_store_success(d);
    return 1;
}

/* The daemon's cron, every heartbeat_s: leases, job timeouts, outcomes
 * waiting for the store, the write probe, key files changed on disk. */
static void *heartbeat_main(void *arg) {
    g16d *d = arg;
    for (;;) {
        struct timespec ts;
        abs_deadline(&ts, d->cfg->heartbeat_s);
        pthread_mutex_lock(&d->mtx);
        while (!d->stopping && pthread_cond_timedwait(&d->work, &d->mtx, &ts) != ETIMEDOUT)
            ;
        int stop = d->stopping;
        pthread_mutex_unlock(&d->mtx);
        if (stop)
            break;
        renew_leases(d);
        g16_status st = {0};
        size_t n_exp = 0;
        if (store_expire(d->st, &n_exp, &st)) {
            g16d_store_error(d, "expire", &st);
            n_exp = 0;
        }
        int probe_ok = probe(d);
        retry_pending(d, probe_ok);
        g16d_keys_check_all(d);
        if (n_exp) {
            g16d_log(G16D_INFO, "jobs_expired", json_pack("{s:I}", "jobs", (json_int_t)n_exp));
            /* Stop the engine work of partitions that are no longer ours. */
            int64_t jobs[256];
            int nj = 0;
            pthread_mutex_lock(&d->mtx);
            for (int i = 0; i < d->n_slots && nj < 256; i++)
                if (d->slots[i].used)
                    jobs[nj++] = d->slots[i].job;
            pthread_mutex_unlock(&d->mtx);
            for (int i = 0; i < nj; i++) {
                store_job_info ji;
                if (store_job_get(d->st, jobs[i], 0, &ji, &st))
                    continue;
                if (ji.state == STORE_FAILED || ji.state == STORE_CANCELLED)
                    g16d_dispatch_cancel(d, jobs[i]);
                store_job_info_free(&ji);
            }
            g16d_notify_change(d);
        }
    }
    return NULL;
}

int g16d_dispatch_start(g16d *d) {
    d->n_slots = (d->n_workers > 0 ? d->n_workers : d->cfg->workers) + d->cfg->queue_extra;
    if (d->n_slots < 1)
        d->n_slots = 1;
    d->slots = calloc((size_t)d->n_slots, sizeof *d->slots);
    d->runners = calloc((size_t)d->n_slots, sizeof *d->runners);
    if (!d->slots || !d->runners)
        return -1;
    if (pthread_create(&d->heartbeat, NULL, heartbeat_main, d))
        return -1;
    d->threads_started = 1;
    for (int i = 0; i < d->n_slots; i++) {
        runner_arg *ra = malloc(sizeof *ra);
        if (!ra)
            return -1;
        ra->d = d;
        ra->slot = i;
        if (pthread_create(&d->runners[i], NULL, runner_main, ra)) {
            free(ra);
            return -1;
        }
        d->threads_started++;
    }
    return 0;
}

static int pick_queued(const g16d_slot *s, const void *arg) {
    g16d *d = (g16d *)(uintptr_t)arg;
    g16_engine_job_info ji;
    if (g16_engine_job_get_info(d->eng, &ji, s->eng_job))
        return 0;
    return ji.state == G16_JOB_QUEUED;
}
static int pick_all(const g16d_slot *s, const void *arg) {
    (void)s;
    (void)arg;
    return 1;
}

static int busy_slots(g16d *d) {
    int n = 0;
    for (int i = 0; i < d->n_slots; i++)
        n += d->slots[i].used;
    return n;
}

void g16d_dispatch_stop(g16d *d) {
    if (!d->slots)
        return;
    pthread_mutex_lock(&d->mtx);
    d->draining = 1;
    pthread_cond_broadcast(&d->work);
    int busy = busy_slots(d);
    pthread_mutex_unlock(&d->mtx);
    g16d_log(G16D_INFO, "drain_start", json_pack("{s:i,s:f}", "partitions", busy, "timeout_s", d->cfg->drain_timeout_s));
    /* Partitions still waiting in the engine go back to the store. A claim
     * that races with this sees draining and is cancelled at submit. */
    cancel_slots(d, pick_queued, d, 1);
    double end = g16d_unix_now() + d->cfg->drain_timeout_s;
    pthread_mutex_lock(&d->mtx);
    d->stopping = 1; /* runners finish their partition, then exit */
    pthread_cond_broadcast(&d->work);
    while ((busy = busy_slots(d)) > 0 && g16d_unix_now() < end) {
        struct timespec ts;
        abs_deadline(&ts, fmin(0.2, fmax(0.001, end - g16d_unix_now())));
        pthread_cond_timedwait(&d->change, &d->mtx, &ts);
        /* A second SIGTERM/SIGINT (blocked in every thread, so pending
         * here) ends the wait: running partitions are cancelled and
         * released below. */
        sigset_t pend, stop;
        sigemptyset(&stop);
        sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGINT);
        struct timespec zero = {0, 0};
        if (!sigpending(&pend) && (sigismember(&pend, SIGTERM) || sigismember(&pend, SIGINT)) &&
            sigtimedwait(&stop, NULL, &zero) > 0)
            end = 0;
    }
    pthread_mutex_unlock(&d->mtx);
    if (busy) {
        g16d_log(G16D_WARN, "drain_timeout", json_pack("{s:i}", "partitions", busy));
        cancel_slots(d, pick_all, NULL, 1);
    }
    for (int i = 0; i < d->n_slots && i + 1 < d->threads_started; i++)
        pthread_join(d->runners[i], NULL);
    if (d->threads_started)
        pthread_join(d->heartbeat, NULL);
    d->threads_started = 0;
    retry_pending(d, 0); /* a last try; what stays runs again after the restart */
    g16d_log(G16D_INFO, "drain_done", json_pack("{s:I,s:I}", "released", (json_int_t)d->cnt.parts_released,
                                                 "done", (json_int_t)d->cnt.parts_done));
}
