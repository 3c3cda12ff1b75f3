/* The engine's lifecycle (create, destroy, threads started and joined) and
 * its job API (g16_engine_submit .. g16_engine_get_budget), the timeline
 * events; the design overview is in engine_internal.h and docs/engine.md. */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_internal.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

/* One timeline event: {"t":ms since start,"ev":"device","ph":"B"|"E",
 * "job":id,"part":i,"thread":"worker3"} (B = begin, E = end). */
static void tl_at(g16_engine *e, double t, const char *ev, char ph, const part *p, const char *kind, int idx) {
    if (!e->timeline)
        return;
    pthread_mutex_lock(&e->tl_lock);
    fprintf(e->timeline, "{\"t\":%.3f,\"ev\":\"%s\",\"ph\":\"%c\",\"job\":%llu,\"part\":%u,\"thread\":\"%s%d\"}\n",
            t - e->t_start, ev, ph, (unsigned long long)p->job->id, p->idx, kind, idx);
    pthread_mutex_unlock(&e->tl_lock);
}

/* A device-side event of worker idx on device dev: the same fields and
 * "dev":d (engine_tl_read reads these). */
static void tl_dev(g16_engine *e, double t, const char *ev, char ph, const part *p, int idx, int dev) {
    if (!e->timeline)
        return;
    pthread_mutex_lock(&e->tl_lock);
    fprintf(e->timeline,
            "{\"t\":%.3f,\"ev\":\"%s\",\"ph\":\"%c\",\"job\":%llu,\"part\":%u,\"thread\":\"worker%d\",\"dev\":%d}\n",
            t - e->t_start, ev, ph, (unsigned long long)p->job->id, p->idx, idx, dev);
    pthread_mutex_unlock(&e->tl_lock);
}

static void tl(g16_engine *e, const char *ev, char ph, const part *p, const char *kind, int idx) {
    if (e->timeline)
        tl_at(e, now_ms(), ev, ph, p, kind, idx);
}

void hist_add(hist *h, double v) {
    size_t i = 0;
    while (i < NHB && v > HB[i])
        i++;
    h->b[i]++;
    h->count++;
    h->sum += v;
}

void key_drop_free_work(g16_engine *e, ekey *k) {
    while (k->n_free) {
        groth16_work_free(k->free_work[--k->n_free]);
        k->n_work--;
        budget_give(e, k->work_bytes);
        e->c_work_reclaims++;
    }
}

void key_unload(g16_engine *e, ekey *k) {
    key_drop_free_work(e, k);
    if (k->key && e->be.key_release)
        e->be.key_release(e->be.self, k->key); /* its device copies */
    e->dev_keys -= k->dev_bytes;
    k->dev_bytes = 0;
    k->streamed = 0;
    g16_key_free(k->key);
    k->key = NULL;
    budget_give(e, k->bytes);
    k->bytes = 0;
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
}

/* Upper bound of a key's accounted bytes before loading it: the file
 * (mapped or copied to the host tier) plus at most the file again in heap
 * (copied misaligned point sections + prepared coefficients, which are
 * smaller than the point and coefficient sections they come from). */
static uint64_t key_estimate(const ekey *k) { return 2 * file_size(k->path) + 4096; }

/* k now holds key (lock held): its bytes taken from the budget, its
 * working-area and witness sizes, a load counted. */
static void key_resident(g16_engine *e, ekey *k, g16_key *key, uint64_t bytes, size_t work_bytes, unsigned wflags) {
    budget_take(e, bytes);
    k->bytes = bytes;
    k->key = key;
    k->work_bytes = work_bytes;
    k->work_flags = wflags;
    g16_key_info ki;
    if (g16_key_get_info(e->ctx, &ki, key) == G16_OK)
        k->wit_bytes = (size_t)ki.n_vars * 32 + 64;
    k->loads++;
    e->c_key_loads++;
    k->last_use = ++e->tick;
}

/* Loads k (called and returning with the lock held; the load runs without
 * it). *fits = 0 when the budget cannot hold it now. */
static g16_err key_ensure(g16_engine *e, ekey *k, int *wait, g16_status *st) {
    *wait = 0;
    if (k->key)
        return G16_OK;
    if (k->loading) {
        *wait = 1;
        return G16_OK;
    }
    if (k->in_memory)
        return g16_fail(st, G16_ERR_INVALID_ARG,
                        "engine: key %s was held in memory and has been removed (no file to reload it from)",
                        k->path);
    uint64_t est = key_estimate(k);
    if (!budget_make_room(e, est, k)) {
        *wait = 1;
        return G16_OK;
    }
    budget_take(e, est);
    k->bytes = est;
    k->loading = 1;
    pthread_mutex_unlock(&e->lock);
    g16_key *key = NULL;
    g16_err err = groth16_key_load_ex(e->ctx, &key, k->path, k->flags, k->tier == G16_TIER_HOST, st);
    /* GPU tier: reserve the device bytes (evicting idle device keys), then
     * upload; a key that does not fit is streamed, not failed. */
    uint64_t kdev = 0;
    int to_device = 0, on_device = 0;
    if (!err && e->be.key_prepare) {
        if (e->be.key_device_bytes)
            to_device = dev_reserve_key(e, k, key, &kdev);
        err = e->be.key_prepare(e->be.self, key, to_device, &on_device, st);
        if (!err)
            dev_settle_key(e, key, on_device, &kdev);
    }
    size_t wb = key ? groth16_work_bytes(e->ctx, key) : 0;
    pthread_mutex_lock(&e->lock);
    k->loading = 0;
    if (to_device && (err || !on_device))
        e->dev_keys -= kdev; /* not uploaded: give the reservation back */
    if (!err && e->be.key_prepare) {
        k->dev_bytes = on_device ? kdev : 0;
        k->streamed = !on_device;
        e->c_keys_streamed += !on_device;
    }
    if (err) {
        g16_key_free(key);
        budget_give(e, k->bytes);
        k->bytes = 0;
        pthread_cond_broadcast(&e->cv_synth);
        return err;
    }
    groth16_key_mem m;
    groth16_key_memory(key, &m);
    uint64_t actual = m.heap_bytes + m.mapped_bytes;
    /* Settle the reservation to the real size (normally below the bound). */
    budget_give(e, k->bytes);
    k->bytes = 0;
    if (!budget_make_room(e, actual, k)) {
        if (e->be.key_release)
            e->be.key_release(e->be.self, key);
        e->dev_keys -= k->dev_bytes;
        k->dev_bytes = 0;
        k->streamed = 0;
        g16_key_free(key);
        pthread_cond_broadcast(&e->cv_synth);
        return g16_fail(st, G16_ERR_NOMEM, "engine: key %s needs %llu bytes, over the budget", k->path,
                        (unsigned long long)actual);
    }
    key_resident(e, k, key, actual, wb, e->be.work_flags);
    pthread_cond_broadcast(&e->cv_synth);
    return G16_OK;
}

static ekey *key_find(g16_engine *e, uint64_t id) {
    for (ekey *k = e->keys; k; k = k->next)
        if (k->id == id)
            return k;
    return NULL;
}

static void key_forget(g16_engine *e, ekey *k) {
    for (ekey **pp = &e->keys; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    if (k->key)
        key_unload(e, k);
    free(k->free_work);
    free(k->path);
    free(k);
}

static void *synth_main(void *arg) {
    g16_engine *e = ((wctx *)arg)->eng;
    int me = ((wctx *)arg)->idx;
    free(arg);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        sweep_timeouts(e);
        if (e->stop_synth)
            break;
        part *p = e->pending.n ? e->pending.v[0] : NULL;
        if (!p || e->ready.n + e->n_synthesizing >= (size_t)e->o.lookahead) {
            cond_wait_ms(&e->cv_synth, &e->lock, 50);
            continue;
        }
        job *j = p->job;
        ekey *k = j->key;
        g16_status st = {0};
        int wait = 0;
        g16_err err = key_ensure(e, k, &wait, &st);
        if (p != (e->pending.n ? e->pending.v[0] : NULL))
            continue; /* the queue changed while the lock was released */
        if (!err && !wait && !k->n_free) {
            /* A new working area, if the budget then still feeds it a
             * witness (area_witness_room). */
            if (budget_make_room(e, k->work_bytes + area_witness_room(e, k), k)) {
                budget_take(e, k->work_bytes);
                k->n_work++;
                e->c_work_allocs++;
                k->active++; /* pins the key while allocating */
                pthread_mutex_unlock(&e->lock);
                groth16_work *w = NULL;
                err = groth16_work_create_ex(e->ctx, &w, k->key, k->work_flags, &st);
                pthread_mutex_lock(&e->lock);
                k->active--;
                if (err) {
                    k->n_work--;
                    budget_give(e, k->work_bytes);
                } else {
                    work_return(e, k, w);
                }
                continue;
            }
            wait = 2; /* the budget holds no other working area now */
        }
        uint64_t wit_bytes = k->key && !err ? k->wit_bytes : 0;
        if (!err && !wait && !budget_make_room(e, wit_bytes, k))
            wait = 2;
        if (wait && !err) {
            if (!eng_inflight(e) && !k->loading) {
                err = g16_fail(&st, G16_ERR_NOMEM,
                               "engine: the budget (%llu bytes) cannot hold key %s with one working set",
                               (unsigned long long)e->o.budget_bytes, k->path);
            } else {
                double tw = now_ms();
                cond_wait_ms(&e->cv_synth, &e->lock, 50);
                if (wait == 2) /* synthesis held back by the budget, not by a key load */
                    e->budget_wait_ms += now_ms() - tw;
                continue;
            }
        }
        heap_pop(&e->pending);
        if (err) {
            /* A key that cannot load fails this partition (and, one by one,
             * the others of its job); the engine keeps serving. */
            part_finish(e, p, P_FAILED, err, st.msg, 0);
            continue;
        }
        /* Start: the key is pinned, the work area and witness reserved. */
        k->active++;
        k->last_use = ++e->tick;
        p->work = k->free_work[--k->n_free];
        budget_take(e, wit_bytes);
        p->state = P_RUNNING;
        j->n_started++;
        p->stats.queue_ms = now_ms() - p->t_queued;
        hist_add(&e->h[ST_QUEUE], p->stats.queue_ms);
        e->n_synthesizing++;
        pthread_mutex_unlock(&e->lock);

        tl(e, "synthesis", 'B', p, "synth", me);
        double t0 = now_ms();
        g16_witness *wit = NULL;
        groth16_timings tm = {0};
        /* GPU synthesis: the witness's values are the scalars it needs, read
         * straight into the working area; else a witness, then the CPU's. */
        unsigned sf = e->be.synth_flags ? e->be.synth_flags(e->be.self, k->key) : 0;
        /* A key whose file changed under it fails the partition before any
         * work (G16_ERR_IO naming the file); finalize checks it again. */
        g16_err werr = groth16_key_check(k->key, NULL, &st);
        if (!werr && (sf & GROTH16_SYNTH_WS_ONLY)) {
            werr = groth16_stage_synth_wtns(e->ctx, p->work, k->key, p->path, p->data, p->len, &tm, &st);
        } else if (!werr) {
            werr = groth16_witness_load_ctx(e->ctx, &wit, p->path, p->data, p->len, 0, &st);
            if (!werr)
                werr = groth16_stage_synth_ex(e->ctx, p->work, k->key, wit, sf, &tm, &st);
        }
        groth16_witness_free_threads(wit, g16_ctx_threads(e->ctx));
        part_wipe_input(p, g16_ctx_threads(e->ctx));
        p->stats.synth_ms = now_ms() - t0;
        tl(e, "synthesis", 'E', p, "synth", me);

        pthread_mutex_lock(&e->lock);
        budget_give(e, wit_bytes); /* the witness is consumed */
        part_free_input(p);
        e->n_synthesizing--;
        hist_add(&e->h[ST_SYNTH], p->stats.synth_ms);
        if (werr || j->cancelled) {
            work_return(e, k, p->work);
            p->work = NULL;
            if (werr)
                part_finish(e, p, P_FAILED, werr, st.msg, 1);
            else
                part_finish(e, p, P_CANCELLED, j->cancel_err, "cancelled after synthesis", 1);
            continue;
        }
        p->t_ready = now_ms();
        if (!heap_push(&e->ready, p)) {
            work_return(e, k, p->work);
            p->work = NULL;
            part_finish(e, p, P_FAILED, G16_ERR_NOMEM, "engine: out of memory queueing a partition", 1);
            continue;
        }
        pthread_cond_signal(&e->cv_ready);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static void *worker_main(void *arg) {
    wctx *wc = arg;
    g16_engine *e = wc->eng;
    int me = wc->idx;
    free(wc);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while ((!e->ready.n || e->hold_workers) && !e->stop_workers)
            pthread_cond_wait(&e->cv_ready, &e->lock);
        if (!e->ready.n && e->stop_workers)
            break;
        part *p = heap_pop(&e->ready);
        pthread_cond_broadcast(&e->cv_synth); /* lookahead slot freed */
        job *j = p->job;
        ekey *k = j->key;
        if (j->cancelled) {
            work_return(e, k, p->work);
            p->work = NULL;
            part_finish(e, p, P_CANCELLED, j->cancel_err, "cancelled before the device stage", 1);
            continue;
        }
        e->wcur[me].busy = 1;
        e->wcur[me].job_id = j->id;
        e->wcur[me].part = p->idx;
        int dv = e->wcur[me].dev;
        double t0 = now_ms();
        if (p->t_ready > 0) /* 0: handed back by a retired worker, counted once */
            hist_add(&e->h[ST_RWAIT], t0 - p->t_ready);
        p->t_ready = 0;
        if (!e->dev[dv].n_busy++) {
            e->dev[dv].busy_since = t0;
            if (e->dev[dv].first_ms == 0)
                e->dev[dv].first_ms = t0;
        }
        pthread_mutex_unlock(&e->lock);

        g16_status st = {0};
        groth16_timings tm = {0};
        engine_heavy_info hi = {0};
        tl_at(e, t0, "device", 'B', p, "worker", me);
        g16_err err;
        if (e->refuse_mask & (1u << (me & 31))) { /* test hook (read without the lock: set before submitting) */
            hi.retry_elsewhere = 1;
            err = g16_fail(&st, G16_ERR_NOMEM, "engine test: worker %d refuses the partition", me);
        } else {
            err = e->be.heavy(e->be.self, e->wstate[me], e->ctx, &p->msms, p->work, k->key, &tm, &hi, &st);
        }
        double t1 = now_ms();
        p->stats.device_ms = t1 - t0;
        p->stats.worker = me;
        if (!err && hi.upload_end > 0 && hi.kernels_end > 0) {
            /* The device part on the host clock (the backend's timestamps):
             * the copies of a, b, c, w, then the kernel section (H and the
             * MSMs, under the device's kernel mutex unless shared). */
            tl_dev(e, hi.upload_begin, "upload", 'B', p, me, dv);
            tl_dev(e, hi.upload_end, "upload", 'E', p, me, dv);
            tl_dev(e, hi.kernels_begin, "kernels", 'B', p, me, dv);
            tl_dev(e, hi.kernels_end, "kernels", 'E', p, me, dv);
        }
        tl_at(e, t1, "device", 'E', p, "worker", me);

        pthread_mutex_lock(&e->lock);
        e->wcur[me].busy = 0;
        e->wcur[me].busy_ms += t1 - t0;
        if (hi.msm_points)
            e->wcur[me].msm_points = hi.msm_points;
        if (hi.msm_note)
            snprintf(e->wcur[me].msm_note, sizeof e->wcur[me].msm_note, "%s", hi.msm_note);
        if (!--e->dev[dv].n_busy)
            e->dev[dv].busy_ms += t1 - e->dev[dv].busy_since;
        e->dev[dv].gpu_ms += hi.gpu_ms;
        e->c_parts_streamed += !err && hi.streamed;
        e->c_parts_cpu_fallback += hi.cpu_fallback;
        e->c_device_errors += hi.device_failed;
        e->dev[dv].failed |= hi.device_failed;
        hist_add(&e->h[ST_DEVICE], p->stats.device_ms);
        if (!err && hi.gpu_ms > 0) {
            hist_add(&e->h[ST_UPLOAD], hi.upload_ms);
            hist_add(&e->h[ST_GPU], hi.gpu_ms);
            hist_add(&e->h[ST_KWAIT], hi.lock_wait_ms);
            e->dev[dv].kwait_ms += hi.lock_wait_ms;
            if (hi.kernels_end > hi.kernels_begin && hi.kernels_begin > 0) {
                hist_add(&e->h[ST_KERNELS], hi.kernels_end - hi.kernels_begin);
                e->dev[dv].kernel_ms += hi.kernels_end - hi.kernels_begin;
                e->dev[dv].kernel_gpu_ms += hi.kernel_gpu_ms;
                for (int i = 0; i < ENGINE_GPU_STAGES; i++)
                    e->dev[dv].stage_gpu_ms[i] += hi.stage_gpu_ms[i];
            }
        }
        e->dev[dv].parts += !err;
        if (err && hi.retry_elsewhere) {
            /* This worker cannot run the key's partitions and nothing ran:
             * another worker takes the partition, this one retires (its
             * device memory serves the others). The last one fails it. */
            if (e->n_worker_th - e->n_retired > 1 && heap_push(&e->ready, p)) {
                e->wcur[me].retired = 1;
                e->n_retired++;
                e->c_workers_retired++;
                pthread_cond_broadcast(&e->cv_ready);
                break;
            }
            groth16_work_consume(p->work, &p->msms, 0); /* wipes the w scalars */
            groth16_msms_clear(&p->msms);
        }
        work_return(e, k, p->work); /* consumed: only the MSM sums remain */
        p->work = NULL;
        if (err) {
            part_finish(e, p, P_FAILED, err, st.msg, 1);
            continue;
        }
        if (j->cancelled) {
            part_finish(e, p, P_CANCELLED, j->cancel_err, "cancelled after the device stage", 1);
            continue;
        }
        p->t_devdone = now_ms();
        if (!heap_push(&e->fin, p)) {
            part_finish(e, p, P_FAILED, G16_ERR_NOMEM, "engine: out of memory queueing a partition", 1);
            continue;
        }
        pthread_cond_signal(&e->cv_fin);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static void *fin_main(void *arg) {
    g16_engine *e = ((wctx *)arg)->eng;
    int me = ((wctx *)arg)->idx;
    free(arg);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->fin.n && !e->stop_fin)
            pthread_cond_wait(&e->cv_fin, &e->lock);
        if (!e->fin.n && e->stop_fin)
            break;
        part *p = heap_pop(&e->fin);
        job *j = p->job;
        hist_add(&e->h[ST_FWAIT], now_ms() - p->t_devdone);
        if (j->cancelled) {
            part_finish(e, p, P_CANCELLED, j->cancel_err, "cancelled before finalize", 1);
            continue;
        }
        const g16_key *key = j->key->key;
        int verify = !e->o.no_verify;
        pthread_mutex_unlock(&e->lock);

        g16_status st = {0};
        groth16_timings tm = {0};
        g16_result *res = NULL;
        tl(e, "finalize", 'B', p, "finalize", me);
        double t0 = now_ms();
        g16_err err = groth16_stage_finalize(e->ctx, &res, key, &p->msms, NULL, NULL, &tm, &st);
        double t1 = now_ms();
        int bad_proof = 0;
        if (!err && verify) {
            err = groth16_result_verify(key, res, &st);
            if (err == G16_ERR_INVALID_PROOF) {
                bad_proof = 1;
                g16_fail(&st, err, "the proof does not verify: the witness does not satisfy the circuit");
            }
        }
        double t2 = now_ms();
        tl(e, "finalize", 'E', p, "finalize", me);

        pthread_mutex_lock(&e->lock);
        p->stats.finalize_ms = t1 - t0;
        p->stats.verify_ms = verify ? t2 - t1 : 0;
        e->fin_busy_ms += t2 - t0;
        hist_add(&e->h[ST_FINALIZE], p->stats.finalize_ms);
        if (verify)
            hist_add(&e->h[ST_VERIFY], p->stats.verify_ms);
        if (bad_proof)
            e->c_verify_failed++;
        if (err) {
            g16_result_free(res);
            part_finish(e, p, P_FAILED, err, st.msg, 1);
        } else {
            p->res = res;
            part_finish(e, p, P_PROVED, G16_OK, NULL, 1);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Starts n threads fn(wctx {e, i}) into th[i], counting them in *started;
 * 0 when one could not start (the started ones run on: the caller stops them). */
static int start_threads(g16_engine *e, pthread_t *th, int n, int *started, void *(*fn)(void *)) {
    for (int i = 0; i < n; i++) {
        wctx *wc = malloc(sizeof *wc);
        if (!wc)
            return 0;
        wc->eng = e;
        wc->idx = i;
        if (pthread_create(&th[i], NULL, fn, wc) != 0) {
            free(wc);
            return 0;
        }
        (*started)++;
    }
    return 1;
}

size_t engine_test_work_unwiped(g16_engine *e, size_t *checked) {
    size_t bad = 0, n = 0;
    pthread_mutex_lock(&e->lock);
    for (ekey *k = e->keys; k; k = k->next)
        for (uint32_t i = 0; i < k->n_free; i++, n++)
            bad += !groth16_work_test_wiped(k->free_work[i]);
    pthread_mutex_unlock(&e->lock);
    if (checked)
        *checked = n;
    return bad;
}

void engine_test_refuse_workers(g16_engine *e, uint32_t mask) {
    pthread_mutex_lock(&e->lock);
    e->refuse_mask = mask;
    pthread_mutex_unlock(&e->lock);
}

void engine_hold_workers(g16_engine *e, int hold) {
    pthread_mutex_lock(&e->lock);
    e->hold_workers = hold;
    pthread_cond_broadcast(&e->cv_ready);
    pthread_mutex_unlock(&e->lock);
}

static void engine_stop_threads(g16_engine *e) {
    pthread_mutex_lock(&e->lock);
    e->stop_synth = 1;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->lock);
    for (int i = 0; i < e->n_synth_th; i++)
        pthread_join(e->synth_th[i], NULL);
    pthread_mutex_lock(&e->lock);
    e->stop_workers = 1;
    pthread_cond_broadcast(&e->cv_ready);
    pthread_mutex_unlock(&e->lock);
    for (int i = 0; i < e->n_worker_th; i++)
        pthread_join(e->worker_th[i], NULL);
    pthread_mutex_lock(&e->lock);
    e->stop_fin = 1;
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->lock);
    for (int i = 0; i < e->n_fin_th; i++)
        pthread_join(e->fin_th[i], NULL);
}

static void job_free(job *j) {
    for (uint32_t i = 0; i < j->n; i++) {
        part_free_input(&j->parts[i]);
        groth16_msms_clear(&j->parts[i].msms);
        g16_result_free(j->parts[i].res);
    }
    free(j->parts);
    free(j);
}

static void engine_free(g16_engine *e) {
    while (e->jobs) {
        job *j = e->jobs;
        e->jobs = j->next;
        job_free(j);
    }
    while (e->keys)
        key_forget(e, e->keys);
    G16_VERIFY_CHECK(e->budget_used == 0); /* reservations balanced */
    G16_VERIFY_CHECK(e->dev_keys == 0);
    if (e->wstate)
        for (int i = 0; i < e->n_worker_th; i++)
            e->be.worker_fini(e->be.self, e->wstate[i]);
    if (e->be.destroy)
        e->be.destroy(e->be.self);
    free(e->pending.v);
    free(e->ready.v);
    free(e->fin.v);
    free(e->synth_th);
    free(e->worker_th);
    free(e->fin_th);
    free(e->wstate);
    free(e->wcur);
    free(e->dev);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cv_synth);
    pthread_cond_destroy(&e->cv_ready);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_done);
    if (e->timeline)
        fclose(e->timeline);
    pthread_mutex_destroy(&e->tl_lock);
    free(e);
}

static g16_err engine_create(g16_ctx *ctx, g16_engine **out, const g16_engine_opts *opts, const engine_backend *custom) {
    if (!ctx || !out)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_engine_create: NULL argument");
    *out = NULL;
    g16_engine *e = calloc(1, sizeof *e);
    if (!e)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_engine_create: out of memory");
    e->ctx = ctx;
    if (opts)
        e->o = *opts;
    g16_status st = {0};
    engine_backend_cpu(&e->be);
    e->wpd = 1;
    if (custom) {
        int wpd = e->o.workers_per_device > 0 ? e->o.workers_per_device : 2;
        int nd = custom->devices > 0 ? custom->devices : 1;
        if (wpd > 64 || nd > 64) {
            if (custom->destroy)
                custom->destroy(custom->self);
            free(e);
            return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "engine_create_with_backend: too many workers");
        }
        e->be = *custom;
        e->be.devices = nd;
        e->wpd = wpd;
        e->o.workers = nd * wpd;
    } else if (e->o.backend == G16_ENGINE_BACKEND_CUDA ||
               (e->o.backend == G16_ENGINE_BACKEND_AUTO && g16_gpu_count() > 0)) {
        int wpd = e->o.workers_per_device > 0 ? e->o.workers_per_device : 2;
        if (wpd > 64) {
            free(e);
            return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_engine_create: workers_per_device too large");
        }
        if (engine_backend_cuda(&e->be, e->o.devices, wpd, e->o.gpu_tables, &st) == G16_OK) {
            e->wpd = wpd;
            e->o.workers = e->be.devices * wpd;
        } else if (e->o.backend == G16_ENGINE_BACKEND_CUDA) {
            free(e);
            return g16_ctx_report(ctx, &st);
        } else {
            engine_backend_cpu(&e->be); /* auto: no usable GPU after all */
            memset(&st, 0, sizeof st);
        }
    }
    if (e->o.workers <= 0)
        e->o.workers = 1;
    if (e->o.synth_threads <= 0) {
        /* On a GPU, synthesis (witness parsing is serial per partition) is
         * the bottleneck: measured on an H200 at 2^20, 70-84 ms per
         * partition against 39 ms of GPU stage. Two synthesis threads per
         * worker keep the workers fed; on the CPU one thread (the heavy
         * stage shares its cores). */
        e->o.synth_threads = e->be.key_prepare ? 2 * e->o.workers : 1;
        if (e->o.synth_threads > 64)
            e->o.synth_threads = 64;
    }
    /* The lookahead bounds partitions synthesizing + waiting for a worker:
     * on a GPU it must leave every synthesis thread busy. */
    if (e->o.lookahead <= 0)
        e->o.lookahead = e->be.key_prepare ? e->o.synth_threads + e->o.workers : e->o.workers;
    if (e->o.workers > 256 || e->o.synth_threads > 256 || e->o.lookahead > 4096) {
        if (e->be.destroy)
            e->be.destroy(e->be.self);
        free(e);
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_engine_create: workers, threads or lookahead too large");
    }
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cv_synth, NULL);
    pthread_cond_init(&e->cv_ready, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_done, NULL);
    pthread_mutex_init(&e->tl_lock, NULL);
    e->t_start = now_ms();
    if (e->o.timeline_path && !(e->timeline = fopen(e->o.timeline_path, "w"))) {
        engine_free(e);
        return g16_ctx_fail(ctx, G16_ERR_IO, "g16_engine_create: cannot open the timeline %s", opts->timeline_path);
    }
    e->o.timeline_path = NULL; /* not kept: the caller's string */
    e->synth_th = calloc((size_t)e->o.synth_threads, sizeof(pthread_t));
    e->worker_th = calloc((size_t)e->o.workers, sizeof(pthread_t));
    e->wstate = calloc((size_t)e->o.workers, sizeof(void *));
    e->wcur = calloc((size_t)e->o.workers, sizeof *e->wcur);
    e->n_dev = e->be.devices > 0 ? e->be.devices : 1;
    e->dev = calloc((size_t)e->n_dev, sizeof *e->dev);
    /* One finalize thread per device: each proof costs a finalize and a
     * verify (a 4-pairing multi-pairing) on the CPU, so one thread for all
     * devices would cap the throughput of many GPUs (docs/engine.md,
     * "Scaling over devices"); one device (and the CPU backend) keeps the
     * single thread. */
    int n_fin = e->n_dev;
    e->fin_th = calloc((size_t)n_fin, sizeof(pthread_t));
    if (!e->synth_th || !e->worker_th || !e->wstate || !e->wcur || !e->dev || !e->fin_th) {
        engine_free(e);
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_engine_create: out of memory");
    }
    for (int i = 0; i < e->o.workers; i++) {
        int d = e->be.worker_device(e->be.self, i);
        e->wcur[i].dev = d >= 0 && d < e->n_dev ? d : 0;
        e->dev[e->wcur[i].dev].workers++;
    }
    for (int i = 0; i < e->o.workers; i++) {
        if (e->be.worker_init(e->be.self, i, &e->wstate[i], &st)) {
            for (int k = 0; k < i; k++)
                e->be.worker_fini(e->be.self, e->wstate[k]);
            free(e->wstate);
            e->wstate = NULL;
            engine_free(e);
            return g16_ctx_report(ctx, &st);
        }
    }
    int ok = start_threads(e, e->worker_th, e->o.workers, &e->n_worker_th, worker_main) &&
             start_threads(e, e->synth_th, e->o.synth_threads, &e->n_synth_th, synth_main) &&
             start_threads(e, e->fin_th, n_fin, &e->n_fin_th, fin_main);
    if (!ok) {
        engine_stop_threads(e);
        engine_free(e);
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_engine_create: cannot start threads");
    }
    *out = e;
    return G16_OK;
}

g16_err g16_engine_create(g16_ctx *ctx, g16_engine **out, const g16_engine_opts *opts) {
    return engine_create(ctx, out, opts, NULL);
}

g16_err engine_create_with_backend(g16_ctx *ctx, g16_engine **out, const g16_engine_opts *opts,
                                   const engine_backend *be) {
    if (!be || !be->heavy || !be->worker_init || !be->worker_fini || !be->worker_device)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "engine_create_with_backend: incomplete backend");
    return engine_create(ctx, out, opts, be);
}

void g16_engine_destroy(g16_engine *e, int drain) {
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    e->hold_workers = 0;
    pthread_cond_broadcast(&e->cv_ready);
    if (!drain)
        for (job *j = e->jobs; j; j = j->next)
            job_cancel_locked(e, j, G16_ERR_CANCELLED);
    for (;;) {
        int busy = 0;
        for (job *j = e->jobs; j; j = j->next)
            busy |= j->n_finished < j->n;
        if (!busy)
            break;
        pthread_cond_wait(&e->cv_done, &e->lock);
    }
    pthread_mutex_unlock(&e->lock);
    engine_stop_threads(e);
    engine_free(e);
}

g16_err g16_engine_key_add(g16_engine *e, uint64_t *key_id, const char *path, unsigned flags, g16_key_tier tier) {
    if (!e || !key_id || !path)
        return g16_ctx_fail(e ? e->ctx : NULL, G16_ERR_INVALID_ARG, "g16_engine_key_add: NULL argument");
    if (tier != G16_TIER_MMAP && tier != G16_TIER_HOST)
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "g16_engine_key_add: tier must be mmap or host");
    pthread_mutex_lock(&e->lock);
    for (ekey *k = e->keys; k; k = k->next)
        if (!k->in_memory && !strcmp(k->path, path)) {
            k->users++;
            *key_id = k->id;
            pthread_mutex_unlock(&e->lock);
            return G16_OK;
        }
    ekey *k = calloc(1, sizeof *k);
    char *pc = strdup(path);
    if (!k || !pc) {
        free(k);
        free(pc);
        pthread_mutex_unlock(&e->lock);
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "g16_engine_key_add: out of memory");
    }
    k->id = ++e->next_key_id;
    k->path = pc;
    k->flags = flags;
    k->tier = tier;
    k->users = 1;
    k->next = e->keys;
    e->keys = k;
    *key_id = k->id;
    pthread_mutex_unlock(&e->lock);
    g16_err err = g16_engine_key_preload(e, k->id);
    if (err) {
        pthread_mutex_lock(&e->lock);
        key_forget(e, k);
        pthread_mutex_unlock(&e->lock);
        *key_id = 0;
    }
    return err;
}

/* An in-memory key (docs/engine.md, "In-memory keys"). Runs the steps of
 * key_ensure after the load: the device reservation and upload, then (on a
 * GPU backend that holds the key on every device) the host bases released,
 * the prover's rows built if deferred and the coefficient section
 * released; then the budget settles to what is left. The ekey is listed as
 * loading meanwhile, so no partition touches the key while its pages go. */
g16_err engine_key_add_loaded(g16_engine *e, uint64_t *key_id, g16_key *key, const char *name) {
    if (!e || !key_id || !key) {
        g16_key_free(key);
        return g16_ctx_fail(e ? e->ctx : NULL, G16_ERR_INVALID_ARG, "engine_key_add_loaded: NULL argument");
    }
    *key_id = 0;
    g16_status st = {0};
    ekey *k = calloc(1, sizeof *k);
    char *pc = strdup(name ? name : "(in memory)");
    if (!k || !pc) {
        free(k);
        free(pc);
        g16_key_free(key);
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "engine_key_add_loaded: out of memory");
    }
    k->path = pc;
    k->tier = G16_TIER_HOST;
    k->users = 1;
    k->in_memory = 1;
    k->loading = 1;
    pthread_mutex_lock(&e->lock);
    k->id = ++e->next_key_id;
    k->next = e->keys;
    e->keys = k;
    pthread_mutex_unlock(&e->lock);

    g16_err err = G16_OK;
    uint64_t kdev = 0;
    int to_device = 0, on_device = 0;
    if (e->be.key_prepare) {
        if (e->be.key_device_bytes)
            to_device = dev_reserve_key(e, k, key, &kdev);
        err = e->be.key_prepare(e->be.self, key, to_device, &on_device, &st);
        if (!err)
            dev_settle_key(e, key, on_device, &kdev);
    }
    /* Every device holds the bases (a GPU backend): their host pages can go,
     * and so can the coefficients once the rows are built. The key is then
     * pinned on the devices: nothing could upload it again. */
    int drop = !err && on_device && e->be.key_device_bytes;
    size_t released = 0, more = 0;
    if (drop && !err)
        err = groth16_key_drop_host(key, GROTH16_DROP_BASES, &released, &st);
    if (!err)
        err = groth16_key_prepare(key, &st); /* a no-op unless loaded with GROTH16_KEY_DEFER_PREP */
    /* Rows built just now join the bases on the devices when the device
     * budget and the devices have room (GPU synthesis; else the CPU's). */
    if (!err && drop && e->be.key_rows) {
        uint64_t rb = groth16_gpu_key_rows_bytes(key);
        pthread_mutex_lock(&e->lock);
        int room = rb && dev_fits(e, rb, e->dev_work);
        if (room)
            e->dev_keys += rb; /* reserved before the upload, as key_prepare's */
        pthread_mutex_unlock(&e->lock);
        int up = room && e->be.key_rows(e->be.self, key) != 0; /* rb bytes on each device, or none */
        pthread_mutex_lock(&e->lock);
        if (room && !up)
            e->dev_keys -= rb;
        if (up) {
            kdev += rb; /* released with the key's bases */
            if (e->dev_keys + e->dev_work > e->dev_peak)
                e->dev_peak = e->dev_keys + e->dev_work;
        }
        pthread_mutex_unlock(&e->lock);
    }
    if (drop && !err)
        err = groth16_key_drop_host(key, GROTH16_DROP_COEFS, &more, &st);
    unsigned sf = !err && e->be.synth_flags ? e->be.synth_flags(e->be.self, key) : 0;
    /* A key without host bases cannot fall back to the CPU heavy stage: its
     * working areas leave out what only that stage needs. */
    unsigned wflags = e->be.work_flags;
    if (drop)
        wflags |= sf & GROTH16_SYNTH_WS_ONLY ? GROTH16_WORK_WS_ONLY : GROTH16_WORK_NO_CPU_HEAVY;
    size_t wb = groth16_work_bytes_ex(e->ctx, key, wflags);
    groth16_key_mem m;
    groth16_key_memory(key, &m);
    uint64_t actual = m.heap_bytes + m.mapped_bytes;

    pthread_mutex_lock(&e->lock);
    k->loading = 0;
    if (to_device && (err || !on_device))
        e->dev_keys -= kdev;
    if (!err && e->be.key_prepare) {
        k->dev_bytes = on_device ? kdev : 0;
        k->streamed = !on_device;
        e->c_keys_streamed += !on_device;
    }
    if (!err && !budget_make_room(e, actual, k))
        err = g16_fail(&st, G16_ERR_NOMEM, "engine: in-memory key %s needs %llu bytes, over the budget (%llu bytes)",
                       k->path, (unsigned long long)actual, (unsigned long long)e->o.budget_bytes);
    if (err) {
        if (e->be.key_prepare && e->be.key_release)
            e->be.key_release(e->be.self, key);
        e->dev_keys -= k->dev_bytes;
        k->dev_bytes = 0;
        k->key = NULL;
        key_forget(e, k);
        pthread_cond_broadcast(&e->cv_synth);
        pthread_mutex_unlock(&e->lock);
        g16_key_free(key);
        return g16_ctx_report(e->ctx, &st);
    }
    key_resident(e, k, key, actual, wb, wflags);
    *key_id = k->id;
    k->released = released + more;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->lock);
    return G16_OK;
}

g16_err g16_engine_key_preload(g16_engine *e, uint64_t key_id) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    g16_status st = {0};
    g16_err err = G16_OK;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        ekey *k = key_find(e, key_id);
        if (!k) {
            err = g16_fail(&st, G16_ERR_INVALID_ARG, "engine: no key %llu", (unsigned long long)key_id);
            break;
        }
        int wait = 0;
        k->active++; /* not evicted while we wait */
        err = key_ensure(e, k, &wait, &st);
        k->active--;
        if (err || !wait)
            break;
        if (!k->loading && !eng_inflight(e)) {
            err = g16_fail(&st, G16_ERR_NOMEM, "engine: the budget cannot hold key %s", k->path);
            break;
        }
        cond_wait_ms(&e->cv_synth, &e->lock, 20);
    }
    pthread_mutex_unlock(&e->lock);
    return err ? g16_ctx_report(e->ctx, &st) : G16_OK;
}

g16_err engine_key_reserve_work(g16_engine *e, uint64_t key_id, uint32_t n, uint32_t *made) {
    if (made)
        *made = 0;
    if (!e)
        return G16_ERR_INVALID_ARG;
    g16_err err = g16_engine_key_preload(e, key_id);
    if (err)
        return err;
    g16_status st = {0};
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    if (!k) { /* removed meanwhile */
        pthread_mutex_unlock(&e->lock);
        return G16_ERR_INVALID_ARG;
    }
    k->active++; /* pinned while areas are made */
    while (!err && k->key && k->n_work < n) {
        /* Leave room for the witnesses the synthesis threads reserve: one
         * per synthesis in progress, and each holds a working area, so no
         * more than there are areas (a large key with many synthesis
         * threads would otherwise get none made ahead, and every area would
         * be a pinned allocation in the middle of the run). */
        uint64_t need = k->work_bytes + area_witness_room(e, k);
        if (!budget_fits(e, need))
            break;
        budget_take(e, k->work_bytes);
        k->n_work++;
        e->c_work_allocs++;
        pthread_mutex_unlock(&e->lock);
        groth16_work *w = NULL;
        err = groth16_work_create_ex(e->ctx, &w, k->key, k->work_flags, &st);
        pthread_mutex_lock(&e->lock);
        if (err) {
            k->n_work--;
            budget_give(e, k->work_bytes);
        } else {
            work_return(e, k, w);
            if (made)
                (*made)++;
        }
    }
    k->active--;
    k->last_use = ++e->tick;
    pthread_mutex_unlock(&e->lock);
    return err ? g16_ctx_report(e->ctx, &st) : G16_OK;
}

g16_err g16_engine_key_evict(g16_engine *e, uint64_t key_id) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    g16_err err = G16_OK;
    if (!k)
        err = G16_ERR_INVALID_ARG;
    else if (k->active || k->loading || k->in_memory)
        err = G16_ERR_INVALID_ARG;
    else if (k->key) {
        key_unload(e, k);
        k->evictions++;
        e->c_key_evictions++;
    }
    pthread_mutex_unlock(&e->lock);
    if (err && k && k->in_memory)
        return g16_ctx_fail(e->ctx, err,
                            "engine: key %llu is held in memory (no file to reload it from): it is never evicted; "
                            "g16_engine_key_remove frees it",
                            (unsigned long long)key_id);
    if (err)
        return g16_ctx_fail(e->ctx, err, k ? "engine: key %llu is in use" : "engine: no key %llu",
                            (unsigned long long)key_id);
    return G16_OK;
}

g16_err g16_engine_key_remove(g16_engine *e, uint64_t key_id) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    if (!k) {
        pthread_mutex_unlock(&e->lock);
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "engine: no key %llu", (unsigned long long)key_id);
    }
    if (k->users > 0)
        k->users--;
    /* The last reference unloads the key now if nothing uses it; a key still
     * used by unfinished jobs stays until g16_engine_destroy. */
    if (!k->users && !k->active && !k->loading && !job_has_refs(e, k)) {
        int referenced = 0;
        for (job *j = e->jobs; j; j = j->next)
            referenced |= j->key == k;
        if (referenced) {
            if (k->key)
                key_unload(e, k);
        } else {
            key_forget(e, k);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return G16_OK;
}

g16_err g16_engine_key_get_info(g16_engine *e, g16_engine_key_info *info, uint64_t key_id) {
    if (!e || !info)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    if (k) {
        info->tier = k->key ? k->tier : G16_TIER_NONE;
        info->bytes = k->key ? k->bytes : 0;
        info->work_bytes = k->work_bytes;
        info->work_areas = k->n_work;
        info->active = k->active;
        info->loads = k->loads;
        info->evictions = k->evictions;
    }
    pthread_mutex_unlock(&e->lock);
    if (!k)
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "engine: no key %llu", (unsigned long long)key_id);
    return G16_OK;
}

g16_err g16_engine_key_check(g16_engine *e, g16_key_state *state, uint64_t key_id) {
    if (state)
        *state = G16_KEY_FILE_INTACT;
    if (!e)
        return G16_ERR_INVALID_ARG;
    g16_status st = {0};
    g16_err err = G16_OK;
    pthread_mutex_lock(&e->lock); /* held: the check is an atomic load, an fstat and a stat */
    ekey *k = key_find(e, key_id);
    if (!k)
        err = g16_fail(&st, G16_ERR_INVALID_ARG, "engine: no key %llu", (unsigned long long)key_id);
    else if (k->key) /* not resident: INTACT (the next load reads the file as it is then) */
        err = groth16_key_check(k->key, state, &st);
    pthread_mutex_unlock(&e->lock);
    return err ? g16_ctx_report(e->ctx, &st) : G16_OK;
}

g16_err g16_engine_submit(g16_engine *e, uint64_t *job_id, uint64_t key_id, const g16_engine_witness *w, size_t n,
                          g16_priority prio, double timeout_ms) {
    return engine_submit_ex(e, job_id, key_id, w, n, prio, timeout_ms, 0);
}

g16_err engine_submit_ex(g16_engine *e, uint64_t *job_id, uint64_t key_id, const g16_engine_witness *w, size_t n,
                         g16_priority prio, double timeout_ms, unsigned flags) {
    if (!e || !job_id || (!w && n) || n == 0 || n > UINT32_MAX || prio < G16_PRIORITY_LOW ||
        prio > G16_PRIORITY_CRITICAL)
        return g16_ctx_fail(e ? e->ctx : NULL, G16_ERR_INVALID_ARG, "g16_engine_submit: bad argument");
    for (size_t i = 0; i < n; i++)
        if (!w[i].path && !w[i].data)
            return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "g16_engine_submit: witness %zu has no path or data", i);
    job *j = calloc(1, sizeof *j);
    part *ps = calloc(n, sizeof *ps);
    int ok = j && ps;
    for (size_t i = 0; ok && i < n; i++) {
        ps[i].job = j;
        ps[i].idx = (uint32_t)i;
        ps[i].stats.worker = -1;
        if (w[i].path)
            ok = (ps[i].path = strdup(w[i].path)) != NULL;
        else if (flags & ENGINE_SUBMIT_BORROW) {
            ps[i].data = (void *)(uintptr_t)w[i].data; /* read only; never freed here */
            ps[i].len = w[i].len;
            ps[i].borrowed = 1;
        } else if ((ps[i].data = malloc(w[i].len ? w[i].len : 1)) != NULL) {
            memcpy(ps[i].data, w[i].data, w[i].len);
            ps[i].len = w[i].len;
        } else
            ok = 0;
    }
    if (!ok) {
        if (j) {
            j->parts = ps;
            j->n = ps ? (uint32_t)n : 0;
            job_free(j);
        } else
            free(ps);
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "g16_engine_submit: out of memory");
    }
    j->parts = ps;
    j->n = (uint32_t)n;
    j->prio = prio;
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    if (!k) {
        pthread_mutex_unlock(&e->lock);
        job_free(j);
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "g16_engine_submit: no key %llu",
                            (unsigned long long)key_id);
    }
    j->key = k;
    j->id = ++e->next_job_id;
    j->seq = ++e->job_seq;
    j->t_submit = now_ms();
    j->deadline = timeout_ms > 0 ? j->t_submit + timeout_ms : 0;
    for (size_t i = 0; i < n; i++) {
        ps[i].t_queued = j->t_submit;
        if (!heap_push(&e->pending, &ps[i])) {
            /* Roll back this job's queued partitions. */
            part **tmp = malloc(n * sizeof *tmp);
            if (tmp)
                heap_remove_job(&e->pending, j, tmp);
            free(tmp);
            pthread_mutex_unlock(&e->lock);
            job_free(j);
            return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "g16_engine_submit: out of memory");
        }
    }
    j->next = e->jobs;
    e->jobs = j;
    e->c_jobs_submitted++;
    *job_id = j->id;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->lock);
    return G16_OK;
}

g16_err g16_engine_cancel(g16_engine *e, uint64_t job_id) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    job *j = job_find(e, job_id);
    if (j)
        job_cancel_locked(e, j, G16_ERR_CANCELLED);
    pthread_mutex_unlock(&e->lock);
    if (!j)
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "engine: no job %llu", (unsigned long long)job_id);
    return G16_OK;
}

g16_err g16_engine_wait(g16_engine *e, uint64_t job_id, double timeout_ms) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    double end = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
    g16_err err = G16_OK;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        job *j = job_find(e, job_id);
        if (!j) {
            err = G16_ERR_INVALID_ARG;
            break;
        }
        if (j->n_finished == j->n)
            break;
        double left = timeout_ms >= 0 ? end - now_ms() : 100;
        if (left <= 0) {
            err = G16_ERR_TIMEOUT;
            break;
        }
        cond_wait_ms(&e->cv_done, &e->lock, left < 100 ? left : 100);
    }
    pthread_mutex_unlock(&e->lock);
    if (err == G16_ERR_INVALID_ARG)
        return g16_ctx_fail(e->ctx, err, "engine: no job %llu", (unsigned long long)job_id);
    return err;
}

g16_err g16_engine_job_get_info(g16_engine *e, g16_engine_job_info *info, uint64_t job_id) {
    if (!e || !info)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    job *j = job_find(e, job_id);
    if (j) {
        memset(info, 0, sizeof *info);
        info->partitions = j->n;
        info->proved = j->n_proved;
        info->failed = j->n_failed;
        info->err = j->err ? j->err : (j->n_cancelled ? j->cancel_err : G16_OK);
        info->failed_partition = j->failed_partition;
        snprintf(info->msg, sizeof info->msg, "%.255s", j->err ? j->msg : "");
        info->finish_seq = j->finish_seq;
        if (j->n_finished == j->n) {
            info->state = j->n_failed ? G16_JOB_FAILED : j->n_cancelled ? G16_JOB_CANCELLED : G16_JOB_DONE;
            info->latency_ms = j->t_finish - j->t_submit;
        } else {
            info->state = j->n_started ? G16_JOB_RUNNING : G16_JOB_QUEUED;
            info->latency_ms = now_ms() - j->t_submit;
        }
    }
    pthread_mutex_unlock(&e->lock);
    if (!j)
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "engine: no job %llu", (unsigned long long)job_id);
    return G16_OK;
}

g16_err g16_engine_partition_result(g16_engine *e, char **proof_json, char **public_json, g16_partition_stats *stats,
                                    uint64_t job_id, uint32_t idx) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    if (proof_json)
        *proof_json = NULL;
    if (public_json)
        *public_json = NULL;
    pthread_mutex_lock(&e->lock);
    job *j = job_find(e, job_id);
    part *p = j && idx < j->n ? &j->parts[idx] : NULL;
    g16_status st = {0};
    g16_result *res = NULL;
    if (!p)
        g16_fail(&st, G16_ERR_INVALID_ARG, "engine: no job %llu partition %u", (unsigned long long)job_id, idx);
    else if (p->state == P_QUEUED || p->state == P_RUNNING)
        g16_fail(&st, G16_ERR_INVALID_ARG, "engine: job %llu partition %u is not finished",
                 (unsigned long long)job_id, idx);
    else if (p->state != P_PROVED)
        g16_fail(&st, p->err ? p->err : G16_ERR_CANCELLED, "partition %u: %s", idx, p->msg);
    else
        res = p->res;
    if (p && stats)
        *stats = p->stats;
    pthread_mutex_unlock(&e->lock);
    if (st.code)
        return g16_ctx_report(e->ctx, &st);
    /* The result stays valid: only g16_engine_job_release frees it. */
    return g16_result_json(e->ctx, proof_json, public_json, res);
}

g16_err g16_engine_job_release(g16_engine *e, uint64_t job_id) {
    if (!e)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    job *found = NULL;
    for (job **pp = &e->jobs; *pp; pp = &(*pp)->next)
        if ((*pp)->id == job_id) {
            if ((*pp)->n_finished == (*pp)->n) {
                found = *pp;
                *pp = found->next;
            }
            break;
        }
    if (found) {
        ekey *k = found->key;
        if (!k->users && !k->active && !k->loading) {
            int referenced = 0;
            for (job *j = e->jobs; j; j = j->next)
                referenced |= j->key == k;
            if (!referenced)
                key_forget(e, k);
        }
    }
    pthread_mutex_unlock(&e->lock);
    if (!found)
        return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG, "engine: job %llu unknown or not finished",
                            (unsigned long long)job_id);
    job_free(found);
    return G16_OK;
}

g16_err g16_engine_get_budget(g16_engine *e, g16_engine_budget *b) {
    if (!e || !b)
        return G16_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->lock);
    b->limit = e->o.budget_bytes;
    b->used = e->budget_used;
    b->peak = e->budget_peak;
    pthread_mutex_unlock(&e->lock);
    return G16_OK;
}

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (m < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)m < b->cap) {
            b->n += (size_t)m;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->n + (size_t)m)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static void sb_json_str(sbuf *b, const char *s) {
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 0x20)
            sb_printf(b, "\\u%04x", c);
        else
            sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

static g16_err sb_finish(g16_engine *e, sbuf *b, char **out) {
    if (b->oom || !b->p) {
        free(b->p);
        *out = NULL;
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "engine: out of memory");
    }
    *out = b->p;
    return G16_OK;
}

static double dev_busy_ms(const g16_engine *e, int d, double tnow) {
    return e->dev[d].busy_ms + (e->dev[d].n_busy ? tnow - e->dev[d].busy_since : 0);
}

static double dev_busy_fraction(const g16_engine *e, int d, double tnow) {
    double span = e->dev[d].first_ms > 0 ? tnow - e->dev[d].first_ms : 0;
    return span > 0 ? dev_busy_ms(e, d, tnow) / span : 0;
}

static const char *const PRIO_NAME[4] = {"low", "normal", "high", "critical"};

static void queue_depths(const g16_engine *e, uint64_t d[4]) {
    memset(d, 0, 4 * sizeof d[0]);
    for (size_t i = 0; i < e->pending.n; i++)
        d[e->pending.v[i]->job->prio]++;
}

g16_err g16_engine_metrics(g16_engine *e, char **text) {
    if (!e || !text)
        return G16_ERR_INVALID_ARG;
    sbuf b = {0};
    pthread_mutex_lock(&e->lock);
    struct {
        const char *name, *help;
        uint64_t v;
    } c[] = {
        {"g16_jobs_submitted_total", "Jobs accepted.", e->c_jobs_submitted},
        {"g16_jobs_completed_total", "Jobs with every partition proved.", e->c_jobs_done},
        {"g16_jobs_failed_total", "Jobs with a failed partition.", e->c_jobs_failed},
        {"g16_jobs_cancelled_total", "Jobs cancelled or timed out.", e->c_jobs_cancelled},
        {"g16_partitions_proved_total", "Partitions proved (and verified).", e->c_parts_proved},
        {"g16_partitions_failed_total", "Partitions failed.", e->c_parts_failed},
        {"g16_partitions_cancelled_total", "Partitions cancelled.", e->c_parts_cancelled},
        {"g16_verify_failures_total", "Proofs that failed verify-before-return.", e->c_verify_failed},
        {"g16_key_loads_total", "Key loads.", e->c_key_loads},
        {"g16_key_evictions_total", "Key evictions.", e->c_key_evictions},
        {"g16_work_area_allocs_total", "Working areas allocated.", e->c_work_allocs},
        {"g16_work_area_reclaims_total", "Cached working areas freed under budget pressure.", e->c_work_reclaims},
        {"g16_keys_streamed_total", "Key loads left off the GPUs (bases streamed from host memory).",
         e->c_keys_streamed},
        {"g16_partitions_streamed_total", "Partitions proved with bases streamed from host memory.",
         e->c_parts_streamed},
        {"g16_partitions_cpu_fallback_total",
         "Partitions a GPU worker ran on the CPU (no device working area, or its device out of service).",
         e->c_parts_cpu_fallback},
        {"g16_device_errors_total", "GPU stages that failed on a device (the device is then out of service).",
         e->c_device_errors},
        {"g16_workers_retired_total",
         "Workers that could not hold an in-memory key's device working area and left its partitions to the others.",
         e->c_workers_retired},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        sb_printf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", c[i].name, c[i].help, c[i].name, c[i].name,
                  (unsigned long long)c[i].v);
    sb_printf(&b, "# HELP g16_budget_bytes Byte budget (0 = unlimited), use and peak.\n# TYPE g16_budget_bytes gauge\n");
    sb_printf(&b, "g16_budget_bytes{kind=\"limit\"} %llu\ng16_budget_bytes{kind=\"used\"} %llu\n"
                  "g16_budget_bytes{kind=\"peak\"} %llu\n",
              (unsigned long long)e->o.budget_bytes, (unsigned long long)e->budget_used,
              (unsigned long long)e->budget_peak);
    sb_printf(&b, "# HELP g16_device_budget_bytes Per-device bytes (0 limit = unlimited): resident key bases, "
                  "worker areas, their sum and its peak.\n# TYPE g16_device_budget_bytes gauge\n");
    sb_printf(&b, "g16_device_budget_bytes{kind=\"limit\"} %llu\ng16_device_budget_bytes{kind=\"keys\"} %llu\n"
                  "g16_device_budget_bytes{kind=\"work\"} %llu\ng16_device_budget_bytes{kind=\"used\"} %llu\n"
                  "g16_device_budget_bytes{kind=\"peak\"} %llu\n",
              (unsigned long long)e->o.device_budget_bytes, (unsigned long long)e->dev_keys,
              (unsigned long long)e->dev_work, (unsigned long long)(e->dev_keys + e->dev_work),
              (unsigned long long)e->dev_peak);
    uint64_t tiers[3] = {0, 0, 0}; /* device, host, mmap */
    for (ekey *k = e->keys; k; k = k->next)
        if (k->key)
            tiers[k->dev_bytes ? 0 : k->tier == G16_TIER_HOST ? 1 : 2]++;
    sb_printf(&b, "# HELP g16_keys_resident Resident keys by tier (device: bases on the GPUs).\n"
                  "# TYPE g16_keys_resident gauge\ng16_keys_resident{tier=\"device\"} %llu\n"
                  "g16_keys_resident{tier=\"host\"} %llu\ng16_keys_resident{tier=\"mmap\"} %llu\n",
              (unsigned long long)tiers[0], (unsigned long long)tiers[1], (unsigned long long)tiers[2]);
    double tnow = now_ms();
    sb_printf(&b, "# HELP g16_worker_busy_ms_total Time each worker spent in heavy stages.\n"
                  "# TYPE g16_worker_busy_ms_total counter\n");
    for (int i = 0; i < e->n_worker_th; i++)
        sb_printf(&b, "g16_worker_busy_ms_total{worker=\"%d\",device=\"%d\"} %.3f\n", i, e->wcur[i].dev,
                  e->wcur[i].busy_ms);
    sb_printf(&b, "# HELP g16_device_busy_ms_total Time with at least one worker of the device in a heavy stage.\n"
                  "# TYPE g16_device_busy_ms_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_busy_ms_total{device=\"%d\"} %.3f\n", d, dev_busy_ms(e, d, tnow));
    sb_printf(&b, "# HELP g16_device_gpu_ms_total Sum of the device-timed (CUDA events) GPU stages.\n"
                  "# TYPE g16_device_gpu_ms_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_gpu_ms_total{device=\"%d\"} %.3f\n", d, e->dev[d].gpu_ms);
    sb_printf(&b, "# HELP g16_device_partitions_total Device stages that ended without error, per device.\n"
                  "# TYPE g16_device_partitions_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_partitions_total{device=\"%d\"} %llu\n", d, (unsigned long long)e->dev[d].parts);
    sb_printf(&b, "# HELP g16_device_kernel_ms_total Kernel sections (H and the MSMs, host clock) per device.\n"
                  "# TYPE g16_device_kernel_ms_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_kernel_ms_total{device=\"%d\"} %.3f\n", d, e->dev[d].kernel_ms);
    sb_printf(&b, "# HELP g16_device_kernel_gpu_ms_total CUDA-event time of the kernel sections' work per device "
                  "(less than g16_device_kernel_ms_total by the host's gaps).\n"
                  "# TYPE g16_device_kernel_gpu_ms_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_kernel_gpu_ms_total{device=\"%d\"} %.3f\n", d, e->dev[d].kernel_gpu_ms);
    sb_printf(&b, "# HELP g16_device_stage_gpu_ms_total The kernel sections' CUDA-event time by part (synthesis and H, "
                  "the MSMs A, B1, B2, C and H) per device.\n"
                  "# TYPE g16_device_stage_gpu_ms_total counter\n");
    static const char *const stage_names[ENGINE_GPU_STAGES] = ENGINE_GPU_STAGE_NAMES;
    for (int d = 0; d < e->n_dev; d++)
        for (int i = 0; i < ENGINE_GPU_STAGES; i++)
            sb_printf(&b, "g16_device_stage_gpu_ms_total{device=\"%d\",stage=\"%s\"} %.3f\n", d, stage_names[i],
                      e->dev[d].stage_gpu_ms[i]);
    sb_printf(&b, "# HELP g16_device_kernel_wait_ms_total Waits for the device's kernel mutex, summed.\n"
                  "# TYPE g16_device_kernel_wait_ms_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_device_kernel_wait_ms_total{device=\"%d\"} %.3f\n", d, e->dev[d].kwait_ms);
    sb_printf(&b, "# HELP g16_finalize_busy_ms_total Finalize + verify time of the finalize threads, summed.\n"
                  "# TYPE g16_finalize_busy_ms_total counter\ng16_finalize_busy_ms_total %.3f\n"
                  "# HELP g16_budget_wait_ms_total Time synthesis threads waited for budget room for a working "
                  "area or a witness, summed.\n# TYPE g16_budget_wait_ms_total counter\ng16_budget_wait_ms_total %.3f\n"
                  "# HELP g16_finalize_threads Finalize threads (one per device).\n"
                  "# TYPE g16_finalize_threads gauge\ng16_finalize_threads %d\n",
              e->fin_busy_ms, e->budget_wait_ms, e->n_fin_th);
    sb_printf(&b, "# HELP g16_gpu_busy_fraction Device busy time over the time since its first partition.\n"
                  "# TYPE g16_gpu_busy_fraction gauge\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b, "g16_gpu_busy_fraction{device=\"%d\"} %.4f\n", d, dev_busy_fraction(e, d, tnow));
    uint64_t d[4];
    queue_depths(e, d);
    sb_printf(&b, "# HELP g16_queue_depth Partitions waiting, by priority.\n# TYPE g16_queue_depth gauge\n");
    for (int p = 3; p >= 0; p--)
        sb_printf(&b, "g16_queue_depth{priority=\"%s\"} %llu\n", PRIO_NAME[p], (unsigned long long)d[p]);
    sb_printf(&b, "# HELP g16_ready_depth Synthesized partitions waiting for a worker.\n# TYPE g16_ready_depth gauge\n"
                  "g16_ready_depth %zu\n",
              e->ready.n);
    int busy = 0;
    for (int i = 0; i < e->n_worker_th; i++)
        busy += e->wcur[i].busy;
    sb_printf(&b, "# HELP g16_workers_busy Device workers running a partition.\n# TYPE g16_workers_busy gauge\n"
                  "g16_workers_busy %d\n",
              busy);
    sb_printf(&b, "# HELP g16_stage_ms Per-partition stage time (job: submit to finish), milliseconds.\n"
                  "# TYPE g16_stage_ms histogram\n");
    for (int s = 0; s < ST_COUNT; s++) {
        uint64_t cum = 0;
        for (size_t i = 0; i < NHB; i++) {
            cum += e->h[s].b[i];
            sb_printf(&b, "g16_stage_ms_bucket{stage=\"%s\",le=\"%g\"} %llu\n", ST_NAME[s], HB[i],
                      (unsigned long long)cum);
        }
        cum += e->h[s].b[NHB];
        sb_printf(&b, "g16_stage_ms_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n", ST_NAME[s], (unsigned long long)cum);
        sb_printf(&b, "g16_stage_ms_sum{stage=\"%s\"} %.3f\ng16_stage_ms_count{stage=\"%s\"} %llu\n", ST_NAME[s],
                  e->h[s].sum, ST_NAME[s], (unsigned long long)e->h[s].count);
    }
    pthread_mutex_unlock(&e->lock);
    return sb_finish(e, &b, text);
}

g16_err g16_engine_status_json(g16_engine *e, char **json) {
    if (!e || !json)
        return G16_ERR_INVALID_ARG;
    sbuf b = {0};
    pthread_mutex_lock(&e->lock);
    sb_printf(&b, "{\"backend\":\"%s\",\"budget\":{\"limit\":%llu,\"used\":%llu,\"peak\":%llu},", e->be.name,
              (unsigned long long)e->o.budget_bytes, (unsigned long long)e->budget_used,
              (unsigned long long)e->budget_peak);
    sb_printf(&b, "\"device_budget\":{\"limit\":%llu,\"keys\":%llu,\"work\":%llu,\"used\":%llu,\"peak\":%llu},",
              (unsigned long long)e->o.device_budget_bytes, (unsigned long long)e->dev_keys,
              (unsigned long long)e->dev_work, (unsigned long long)(e->dev_keys + e->dev_work),
              (unsigned long long)e->dev_peak);
    double tnow = now_ms();
    sb_printf(&b, "\"devices\":[");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b,
                  "%s{\"id\":%d,\"workers\":%d,\"failed\":%s,\"busy\":%d,\"busy_ms\":%.3f,\"gpu_ms\":%.3f,"
                  "\"partitions\":%llu,\"kernel_ms\":%.3f,\"kernel_wait_ms\":%.3f,\"busy_fraction\":%.4f}",
                  d ? "," : "", d, e->dev[d].workers, e->dev[d].failed ? "true" : "false", e->dev[d].n_busy,
                  dev_busy_ms(e, d, tnow), e->dev[d].gpu_ms, (unsigned long long)e->dev[d].parts,
                  e->dev[d].kernel_ms, e->dev[d].kwait_ms, dev_busy_fraction(e, d, tnow));
    sb_printf(&b, "],\"keys\":[");
    for (ekey *k = e->keys; k; k = k->next) {
        sb_printf(&b, "%s{\"id\":%llu,\"path\":", k == e->keys ? "" : ",", (unsigned long long)k->id);
        sb_json_str(&b, k->path);
        sb_printf(&b,
                  ",\"tier\":\"%s\",\"host_tier\":\"%s\",\"bytes\":%llu,\"device_bytes\":%llu,\"streamed\":%s,"
                  "\"work_areas\":%u,\"work_bytes\":%llu,\"active\":%u,\"refs\":%d,\"loads\":%u,\"evictions\":%u,"
                  "\"in_memory\":%s,\"host_released_bytes\":%llu,\"gpu_tables\":%d,\"gpu_synth\":%s}",
                  k->loading ? "loading" : !k->key ? "none" : k->dev_bytes ? "device" : k->tier == G16_TIER_HOST ? "host" : "mmap",
                  k->tier == G16_TIER_HOST ? "host" : "mmap", (unsigned long long)k->bytes,
                  (unsigned long long)k->dev_bytes, k->streamed ? "true" : "false", k->n_work,
                  (unsigned long long)k->work_bytes, k->active, k->users, k->loads, k->evictions,
                  k->in_memory ? "true" : "false", (unsigned long long)k->released,
                  k->key && k->dev_bytes && e->be.key_tables ? e->be.key_tables(e->be.self, k->key) : 0,
                  k->key && e->be.synth_flags && (e->be.synth_flags(e->be.self, k->key) & GROTH16_SYNTH_WS_ONLY)
                      ? "true"
                      : "false");
    }
    uint64_t d[4];
    queue_depths(e, d);
    sb_printf(&b, "],\"queue\":{\"critical\":%llu,\"high\":%llu,\"normal\":%llu,\"low\":%llu},\"synthesizing\":%u,"
                  "\"ready\":%zu,\"finalizing\":%zu,\"synth_threads\":%d,\"lookahead\":%d,\"finalize_threads\":%d,"
                  "\"finalize_busy_ms\":%.3f,\"workers\":[",
              (unsigned long long)d[3], (unsigned long long)d[2], (unsigned long long)d[1], (unsigned long long)d[0],
              e->n_synthesizing, e->ready.n, e->fin.n, e->o.synth_threads, e->o.lookahead, e->n_fin_th,
              e->fin_busy_ms);
    for (int i = 0; i < e->n_worker_th; i++) {
        sb_printf(&b, "%s{\"id\":%d,\"device\":%d,\"busy_ms\":%.3f,\"retired\":%s,\"msm_points\":%zu,", i ? "," : "",
                  i, e->wcur[i].dev, e->wcur[i].busy_ms, e->wcur[i].retired ? "true" : "false",
                  e->wcur[i].msm_points);
        if (e->wcur[i].msm_note[0]) {
            sb_printf(&b, "\"msm_note\":");
            sb_json_str(&b, e->wcur[i].msm_note);
            sb_printf(&b, ",");
        }
        if (e->wcur[i].busy)
            sb_printf(&b, "\"job\":%llu,\"partition\":%u}", (unsigned long long)e->wcur[i].job_id, e->wcur[i].part);
        else
            sb_printf(&b, "\"job\":null}");
    }
    sb_printf(&b, "]}");
    pthread_mutex_unlock(&e->lock);
    return sb_finish(e, &b, json);
}
