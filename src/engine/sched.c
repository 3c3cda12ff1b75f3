/* The engine's queues and partition/job state: the three partition heaps,
 * finishing and cancelling partitions and jobs (all under eng->lock;
 * docs/engine.md). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine_internal.h"

/* a before b: higher priority, then older job, then lower partition index. */
static int part_before(const part *a, const part *b) {
    if (a->job->prio != b->job->prio)
        return a->job->prio > b->job->prio;
    if (a->job->seq != b->job->seq)
        return a->job->seq < b->job->seq;
    return a->idx < b->idx;
}

/* Invariant (G16_VERIFY builds): no entry comes before its parent. O(n),
 * checked after every push, pop and removal; test builds only. */
static __attribute__((unused)) int heap_ordered(const pheap *h) {
    for (size_t i = 1; i < h->n; i++)
        if (part_before(h->v[i], h->v[(i - 1) / 2]))
            return 0;
    return 1;
}

int heap_push(pheap *h, part *p) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        part **v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return 0;
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!part_before(p, h->v[up]))
            break;
        h->v[i] = h->v[up];
        i = up;
    }
    h->v[i] = p;
    G16_VERIFY_CHECK(heap_ordered(h));
    return 1;
}

static void heap_sift_down(pheap *h, size_t i) {
    part *p = h->v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && part_before(h->v[c + 1], h->v[c]))
            c++;
        if (!part_before(h->v[c], p))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    h->v[i] = p;
}

part *heap_pop(pheap *h) {
    if (!h->n)
        return NULL;
    part *top = h->v[0];
    h->v[0] = h->v[--h->n];
    if (h->n)
        heap_sift_down(h, 0);
    G16_VERIFY_CHECK(heap_ordered(h));
    return top;
}

/* Removes every entry of job j (rebuilds the heap), returning them in out. */
size_t heap_remove_job(pheap *h, const job *j, part **out) {
    size_t k = 0, m = 0;
    for (size_t i = 0; i < h->n; i++) {
        if (h->v[i]->job == j)
            out[m++] = h->v[i];
        else
            h->v[k++] = h->v[i];
    }
    h->n = k;
    for (size_t i = h->n / 2; i-- > 0;)
        heap_sift_down(h, i);
    G16_VERIFY_CHECK(heap_ordered(h));
    return m;
}

job *job_find(g16_engine *e, uint64_t id) {
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

int job_has_refs(const g16_engine *e, const ekey *k) {
    for (const job *j = e->jobs; j; j = j->next)
        if (j->key == k && j->n_finished < j->n)
            return 1;
    return 0;
}

void part_free_input(part *p) {
    free(p->path);
    p->path = NULL;
    if (p->borrowed) {
        p->data = NULL;
        return;
    }
    if (p->data)
        g16_wipe(p->data, p->len);
    free(p->data);
    p->data = NULL;
}

/* The synthesis thread's early release of a partition's witness bytes,
 * outside the lock (the only other user of p->data is part_free_input,
 * later on that same thread or after the job ended): a daemon's witness of
 * gigabytes was wiped under the engine lock before. */
void part_wipe_input(part *p, int threads) {
    if (p->borrowed || !p->data)
        return;
    g16_wipe_threads(p->data, p->len, threads);
    free(p->data);
    p->data = NULL;
}

/* Records a partition's end (lock held). `popped`: it was taken from the
 * pending queue (it holds a reference on its key). */
void part_finish(g16_engine *e, part *p, int state, g16_err err, const char *msg, int popped) {
    job *j = p->job;
    p->state = state;
    p->err = err;
    if (msg)
        snprintf(p->msg, sizeof p->msg, "%s", msg);
    part_free_input(p);
    groth16_msms_clear(&p->msms);
    if (p->is_asg)
        asg_part_clear(e, p);
    if (popped) {
        j->key->active--;
        j->key->last_use = ++e->tick;
    }
    j->n_finished++;
    if (state == P_PROVED) {
        j->n_proved++;
        e->c_parts_proved++;
    } else if (state == P_FAILED) {
        j->n_failed++;
        e->c_parts_failed++;
        if (!j->err) {
            j->err = err;
            j->failed_partition = p->idx;
            snprintf(j->msg, sizeof j->msg, "partition %u: %s", p->idx, p->msg);
        }
    } else {
        j->n_cancelled++;
        e->c_parts_cancelled++;
    }
    if (j->n_finished == j->n) {
        j->t_finish = now_ms();
        j->finish_seq = ++e->finish_seq;
        hist_add(&e->h[ST_JOB], j->t_finish - j->t_submit);
        if (j->n_failed)
            e->c_jobs_failed++;
        else if (j->n_cancelled)
            e->c_jobs_cancelled++;
        else
            e->c_jobs_done++;
        pthread_cond_broadcast(&e->cv_done);
    }
    pthread_cond_broadcast(&e->cv_synth); /* resources may have been freed */
}

void job_cancel_locked(g16_engine *e, job *j, g16_err why) {
    if (j->cancelled || j->n_finished == j->n)
        return;
    j->cancelled = 1;
    j->cancel_err = why;
    part **tmp = malloc(j->n * sizeof *tmp);
    if (!tmp)
        return; /* the queued partitions are dropped when popped instead */
    size_t m = heap_remove_job(&e->pending, j, tmp);
    for (size_t i = 0; i < m; i++)
        part_finish(e, tmp[i], P_CANCELLED, why, why == G16_ERR_TIMEOUT ? "timed out" : "cancelled", 0);
    /* Synthesized partitions waiting for a worker give back their working
     * area (and their pin on the key) now, not when a worker pops them. */
    m = heap_remove_job(&e->ready, j, tmp);
    for (size_t i = 0; i < m; i++) {
        if (tmp[i]->work)
            work_return(e, j->key, tmp[i]->work);
        tmp[i]->work = NULL;
        part_finish(e, tmp[i], P_CANCELLED, why, why == G16_ERR_TIMEOUT ? "timed out" : "cancelled before the device stage", 1);
    }
    free(tmp);
}

void sweep_timeouts(g16_engine *e) {
    double t = now_ms();
    for (job *j = e->jobs; j; j = j->next)
        if (j->deadline > 0 && t > j->deadline && j->n_finished < j->n)
            job_cancel_locked(e, j, G16_ERR_TIMEOUT);
}

void cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *m, double ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)(ms * 1e6);
    ts.tv_sec += ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(cv, m, &ts);
}

uint32_t eng_inflight(const g16_engine *e) {
    uint32_t n = 0;
    for (const ekey *k = e->keys; k; k = k->next)
        n += k->active + (uint32_t)k->loading;
    return n;
}
