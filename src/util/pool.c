/* A small fork-join thread pool owned by a context.
 *
 * g16_pool_run publishes one batch of tasks; workers and the caller take
 * task indices from an atomic counter until none is left. One batch runs at a
 * time per pool (run_lock); a nested call from inside a task runs serially. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "util.h"

struct g16_pool {
    int nworkers;
    pthread_t *threads;
    pthread_mutex_t lock;     /* guards generation, fn, arg, ntasks, stop */
    pthread_cond_t wake;      /* workers wait for a new generation */
    pthread_cond_t done_cv;   /* caller waits for active == 0 */
    pthread_mutex_t run_lock; /* one batch at a time */
    uint64_t generation;
    void (*fn)(void *, size_t);
    void *arg;
    size_t ntasks;
    atomic_size_t next;
    int active; /* workers still in the current batch */
    int stop;
};

static _Thread_local const g16_pool *g16_pool_current;

static void take_tasks(g16_pool *pool, void (*fn)(void *, size_t), void *arg, size_t ntasks) {
    for (;;) {
        size_t i = atomic_fetch_add(&pool->next, 1);
        if (i >= ntasks)
            break;
        fn(arg, i);
    }
}

static void *worker_main(void *p) {
    g16_pool *pool = p;
    uint64_t seen = 0;
    g16_pool_current = pool;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stop && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stop)
            break;
        seen = pool->generation;
        void (*fn)(void *, size_t) = pool->fn;
        void *arg = pool->arg;
        size_t ntasks = pool->ntasks;
        pthread_mutex_unlock(&pool->lock);
        take_tasks(pool, fn, arg, ntasks);
        pthread_mutex_lock(&pool->lock);
        if (--pool->active == 0)
            pthread_cond_signal(&pool->done_cv);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

g16_pool *g16_pool_create(int nthreads) {
    g16_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->nworkers = nthreads > 1 ? nthreads - 1 : 0;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done_cv, NULL);
    atomic_init(&pool->next, 0);
    if (pool->nworkers) {
        pool->threads = calloc((size_t)pool->nworkers, sizeof(pthread_t));
        if (!pool->threads) {
            free(pool);
            return NULL;
        }
        for (int i = 0; i < pool->nworkers; i++) {
            if (pthread_create(&pool->threads[i], NULL, worker_main, pool) != 0) {
                pool->nworkers = i;
                g16_pool_destroy(pool);
                return NULL;
            }
        }
    }
    return pool;
}

void g16_pool_destroy(g16_pool *pool) {
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->nworkers; i++)
        pthread_join(pool->threads[i], NULL);
    free(pool->threads);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->run_lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done_cv);
    free(pool);
}

int g16_pool_threads(const g16_pool *pool) { return pool ? pool->nworkers + 1 : 1; }

void g16_pool_run(g16_pool *pool, size_t ntasks, void (*fn)(void *arg, size_t task), void *arg) {
    if (ntasks == 0)
        return;
    if (!pool || pool->nworkers == 0 || ntasks == 1 || g16_pool_current == pool) {
        for (size_t i = 0; i < ntasks; i++)
            fn(arg, i);
        return;
    }
    pthread_mutex_lock(&pool->run_lock);
    const g16_pool *prev = g16_pool_current;
    g16_pool_current = pool;
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->ntasks = ntasks;
    atomic_store(&pool->next, 0);
    pool->active = pool->nworkers;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    take_tasks(pool, fn, arg, ntasks);
    pthread_mutex_lock(&pool->lock);
    while (pool->active > 0)
        pthread_cond_wait(&pool->done_cv, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    g16_pool_current = prev;
    pthread_mutex_unlock(&pool->run_lock);
}
