/* The engine's key manager (loading, eviction) and the key API of
 * include/g16.h (g16_engine_key_*). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_internal.h"
#include "util/ctx.h"

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
    if (k->pkey && e->be.params_release)
        e->be.params_release(e->be.self, k->pkey); /* its device copies */
    g16_params_key_free(k->pkey);
    k->pkey = NULL;
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
g16_err key_ensure(g16_engine *e, ekey *k, int *wait, g16_status *st) {
    *wait = 0;
    if (ekey_resident(k))
        return G16_OK;
    if (k->loading) {
        *wait = 1;
        return G16_OK;
    }
    if (k->in_memory)
        return g16_fail(st, G16_ERR_INVALID_ARG,
                        "engine: key %s was held in memory and has been removed (no file to reload it from)",
                        k->path);
    if (k->params)
        return asg_key_load(e, k, wait, st);
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

ekey *key_find(g16_engine *e, uint64_t id) {
    for (ekey *k = e->keys; k; k = k->next)
        if (k->id == id)
            return k;
    return NULL;
}

void key_forget(g16_engine *e, ekey *k) {
    for (ekey **pp = &e->keys; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    if (ekey_resident(k))
        key_unload(e, k);
    free(k->free_work);
    free(k->path);
    free(k);
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
    size_t pl = strlen(pc);
    k->params = (flags & G16_KEY_PARAMS) || (pl >= 7 && !strcmp(pc + pl - 7, ".params"));
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
    else if (ekey_resident(k)) {
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
            if (ekey_resident(k))
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
        info->tier = ekey_resident(k) ? k->tier : G16_TIER_NONE;
        info->bytes = ekey_resident(k) ? k->bytes : 0;
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
