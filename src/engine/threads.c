/* The engine's threads: synthesis, device workers and finalize
 * (docs/engine.md, "Threads"), their start and stop, and the test hooks
 * that steer the workers. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_internal.h"

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
void engine_tl(g16_engine *e, const char *ev, char ph, const part *p, const char *kind, int idx) {
    if (e->timeline)
        tl_at(e, now_ms(), ev, ph, p, kind, idx);
}

void *synth_main(void *arg) {
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
        if (!err && !wait && !k->params && !k->n_free) {
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
        /* The witness's parsed bytes; an assignment partition's bytes
         * (assign.c: its copy and the heavy stage's scratch). */
        uint64_t wit_bytes = err ? 0 : k->params ? asg_part_bytes(k, p) : k->key ? k->wit_bytes : 0;
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
        if (k->params) {
            asg_synth(e, p, wit_bytes, me);
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

        engine_tl(e, "synthesis", 'B', p, "synth", me);
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
        engine_tl(e, "synthesis", 'E', p, "synth", me);
        engine_span_add(e->ring, ESPAN_SYNTH, ELANE_SYNTH, me, -1, j->id, p->idx, t0, t0 + p->stats.synth_ms);

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

void *worker_main(void *arg) {
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
            if (p->work)
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
        if (p->is_asg) {
            /* The backend's stage for assignment partitions (the CPU's
             * without one). */
            err = asg_heavy(e, p, me, &hi, &st);
        } else if (e->refuse_mask & (1u << (me & 31))) { /* test hook (read without the lock: set before submitting) */
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
        {
            int sd = e->ring_dev ? dv : -1;
            engine_span_add(e->ring, ESPAN_DEVICE, ELANE_WORKER, me, sd, p->job->id, p->idx, t0, t1);
            if (!err && hi.upload_end > 0 && hi.kernels_end > 0) {
                engine_span_add(e->ring, ESPAN_UPLOAD, ELANE_WORKER, me, sd, p->job->id, p->idx, hi.upload_begin,
                                hi.upload_end);
                engine_span_add(e->ring, ESPAN_KERNELS, ELANE_WORKER, me, sd, p->job->id, p->idx, hi.kernels_begin,
                                hi.kernels_end);
            }
        }

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
        if (p->is_asg) {
            budget_give(e, p->rsv); /* the assignment and the scratch are consumed */
            p->rsv = 0;
        }
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
        if (p->work)
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

void *fin_main(void *arg) {
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
        engine_tl(e, "finalize", 'B', p, "finalize", me);
        double t0 = now_ms(), t1;
        g16_err err;
        int bad_proof = 0;
        if (p->is_asg) {
            double vms = 0;
            err = asg_finish(e, p, verify, &vms, &st);
            bad_proof = err == G16_ERR_INVALID_PROOF;
            t1 = now_ms() - vms;
        } else {
            err = groth16_stage_finalize(e->ctx, &res, key, &p->msms, NULL, NULL, &tm, &st);
            t1 = now_ms();
        }
        if (!p->is_asg && !err && verify) {
            err = groth16_result_verify(key, res, &st);
            if (err == G16_ERR_INVALID_PROOF) {
                bad_proof = 1;
                g16_fail(&st, err, "the proof does not verify: the witness does not satisfy the circuit");
            }
        }
        double t2 = now_ms();
        engine_tl(e, "finalize", 'E', p, "finalize", me);
        engine_span_add(e->ring, ESPAN_FINALIZE, ELANE_FINALIZE, me, -1, p->job->id, p->idx, t0, t1);
        if (verify)
            engine_span_add(e->ring, ESPAN_VERIFY, ELANE_FINALIZE, me, -1, p->job->id, p->idx, t1, t2);

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
int start_threads(g16_engine *e, pthread_t *th, int n, int *started, void *(*fn)(void *)) {
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

void engine_stop_threads(g16_engine *e) {
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
