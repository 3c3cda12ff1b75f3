/* The engine's lifecycle (create, destroy, threads started and joined) and
 * its job API (g16_engine_submit .. g16_engine_get_budget), the timeline
 * events; the design overview is in engine_internal.h and docs/engine.md. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

void job_free(job *j) {
    if (!j)
        return;
    for (uint32_t i = 0; i < j->n; i++) {
        asg_part_free(&j->parts[i]);
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
    engine_ring_free(e->ring);
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
        g16_config cfg; /* the options (docs/config.md): the context's, at creation */
        g16_ctx_config_copy(ctx, &cfg);
        if (engine_backend_cuda(&e->be, e->o.devices, wpd, e->o.gpu_tables, &cfg, &st) == G16_OK) {
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
    if (engine_ring_create(&e->ring)) {
        engine_free(e);
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_engine_create: out of memory");
    }
    e->ring_dev = e->be.name && strcmp(e->be.name, "cpu") != 0;
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

void g16_engine_opts_init(g16_engine_opts *opts) { memset(opts, 0, sizeof *opts); }

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
    job *j = job_new(n);
    int ok = j != NULL;
    part *ps = j ? j->parts : NULL;
    for (size_t i = 0; ok && i < n; i++) {
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
    return job_submit(e, j, ok, prio, key_id, 0, timeout_ms, job_id, "g16_engine_submit");
}

job *job_new(size_t n) {
    job *j = calloc(1, sizeof *j);
    part *ps = calloc(n ? n : 1, sizeof *ps);
    if (!j || !ps) {
        free(j);
        free(ps);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        ps[i].job = j;
        ps[i].idx = (uint32_t)i;
        ps[i].stats.worker = -1;
    }
    j->parts = ps;
    j->n = (uint32_t)n;
    return j;
}

g16_err job_submit(g16_engine *e, job *j, int ok, g16_priority prio, uint64_t key_id, int params, double timeout_ms,
                   uint64_t *job_id, const char *who) {
    if (!ok) {
        job_free(j); /* NULL-safe: frees what the parts hold */
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "%s: out of memory", who);
    }
    j->prio = prio;
    return job_enqueue(e, j, key_id, params, timeout_ms, job_id);
}

/* Queues job j (its parts made, n and prio set; owned from here on,
 * freed on failure) against key_id, which must be a .params key iff
 * params. */
g16_err job_enqueue(g16_engine *e, job *j, uint64_t key_id, int params, double timeout_ms, uint64_t *job_id) {
    part *ps = j->parts;
    size_t n = j->n;
    pthread_mutex_lock(&e->lock);
    ekey *k = key_find(e, key_id);
    if (!k || k->params != params) {
        int wrong = k != NULL;
        pthread_mutex_unlock(&e->lock);
        job_free(j);
        if (wrong)
            return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG,
                                params ? "g16_engine_submit_assignments: key %llu is not a .params key"
                                       : "g16_engine_submit: key %llu is a .params key (submit assignments)",
                                (unsigned long long)key_id);
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
    else if (p->is_asg)
        asg_result_json(p, proof_json, public_json, &st);
    else
        res = p->res;
    if (p && stats)
        *stats = p->stats;
    int asg = p && p->is_asg;
    pthread_mutex_unlock(&e->lock);
    if (!st.code && asg)
        return G16_OK;
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
