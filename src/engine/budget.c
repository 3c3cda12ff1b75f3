/* The engine's host and device byte budgets: reservations, making room,
 * the device budget's key shapes, and the per-key cache of working areas
 * (all under eng->lock; docs/engine.md, "Budget"). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

int budget_fits(const g16_engine *e, uint64_t bytes) {
    return !e->o.budget_bytes || e->budget_used + bytes <= e->o.budget_bytes;
}

/* Invariants (G16_VERIFY builds): every take follows a budget_make_room or
 * budget_fits for its bytes, so used <= limit after it; a give returns bytes
 * that were taken (used never wraps below 0); at engine_free, after the
 * keys went, every reservation has been given back (used == 0). */
void budget_take(g16_engine *e, uint64_t bytes) {
    G16_VERIFY_CHECK(e->budget_used + bytes >= e->budget_used);
    e->budget_used += bytes;
    G16_VERIFY_CHECK(!e->o.budget_bytes || e->budget_used <= e->o.budget_bytes);
    if (e->budget_used > e->budget_peak)
        e->budget_peak = e->budget_used;
}

void budget_give(g16_engine *e, uint64_t bytes) {
    G16_VERIFY_CHECK(bytes <= e->budget_used);
    e->budget_used -= bytes;
}

/* Frees budget until `bytes` fit: first cached working areas of other keys,
 * then idle resident keys other than `keep`, least recently used first.
 * Returns whether they fit. */
int budget_make_room(g16_engine *e, uint64_t bytes, const ekey *keep) {
    if (budget_fits(e, bytes))
        return 1;
    for (ekey *k = e->keys; k && !budget_fits(e, bytes); k = k->next)
        if (k != keep)
            key_drop_free_work(e, k);
    while (!budget_fits(e, bytes)) {
        ekey *lru = NULL;
        for (ekey *k = e->keys; k; k = k->next)
            if (k != keep && ekey_resident(k) && !k->in_memory && !k->active && !k->loading &&
                (!lru || k->last_use < lru->last_use))
                lru = k;
        if (!lru)
            return 0;
        key_unload(e, lru);
        lru->evictions++;
        e->c_key_evictions++;
    }
    return 1;
}

/* Device side of the budget (per device, lock held). */

/* The workers' device bytes per device if a key of shape sh (NULL: none)
 * and MSM context ctx joined what was seen: each worker keeps a context as
 * large as the largest key's and up to be.work_cache working areas, one
 * per shape, so wpd x (largest context + the work_cache largest areas). */
static uint64_t dev_work_if(const g16_engine *e, const dev_shape *sh, uint64_t ctx) {
    uint64_t w[DEV_SHAPES + 1];
    int n = 0, dup = 0;
    for (int i = 0; i < e->n_dev_shapes; i++) {
        const dev_shape *d = &e->dev_shapes[i];
        dup |= sh && d->curve == sh->curve && d->n == sh->n && d->nv == sh->nv;
        w[n++] = d->work;
    }
    if (sh && !dup)
        w[n++] = sh->work;
    int keep = e->be.work_cache > 0 ? e->be.work_cache : 1;
    uint64_t sum = 0;
    for (int k = 0; k < keep && n > 0; k++) { /* the keep largest */
        int m = 0;
        for (int i = 1; i < n; i++)
            if (w[i] > w[m])
                m = i;
        sum += w[m];
        w[m] = w[--n];
    }
    uint64_t c = ctx > e->dev_ctx ? ctx : e->dev_ctx;
    return (uint64_t)e->wpd * (c + sum);
}

int dev_fits(const g16_engine *e, uint64_t key_bytes, uint64_t work) {
    return !e->o.device_budget_bytes || e->dev_keys + key_bytes + work <= e->o.device_budget_bytes;
}

/* Records shape sh and context ctx as seen (the list keeps the DEV_SHAPES
 * largest areas: the sum of the work_cache largest needs no other). */
static void dev_shape_add(g16_engine *e, const dev_shape *sh, uint64_t ctx) {
    if (ctx > e->dev_ctx)
        e->dev_ctx = ctx;
    int small = -1;
    for (int i = 0; i < e->n_dev_shapes; i++) {
        const dev_shape *d = &e->dev_shapes[i];
        if (d->curve == sh->curve && d->n == sh->n && d->nv == sh->nv)
            return;
        if (small < 0 || d->work < e->dev_shapes[small].work)
            small = i;
    }
    if (e->n_dev_shapes < DEV_SHAPES)
        e->dev_shapes[e->n_dev_shapes++] = *sh;
    else if (sh->work > e->dev_shapes[small].work)
        e->dev_shapes[small] = *sh;
}

/* Makes room on the devices for a key of key_bytes whose workers need an
 * area of shape sh and an MSM context of ctx bytes, evicting idle
 * device-resident keys other than keep (LRU), and reserves it. Returns 0
 * (nothing reserved) when it cannot fit: the key is then streamed from
 * host memory. key_bytes 0: the workers' areas alone (a streamed key). */
static int dev_reserve(g16_engine *e, const ekey *keep, uint64_t key_bytes, const dev_shape *sh, uint64_t ctx) {
    uint64_t work = dev_work_if(e, sh, ctx);
    while (!dev_fits(e, key_bytes, work)) {
        ekey *lru = NULL;
        for (ekey *k = e->keys; k; k = k->next)
            if (k != keep && k->key && k->dev_bytes && !k->in_memory && !k->active && !k->loading &&
                (!lru || k->last_use < lru->last_use))
                lru = k;
        if (!lru)
            return 0;
        key_unload(e, lru);
        lru->evictions++;
        e->c_key_evictions++;
    }
    e->dev_keys += key_bytes;
    dev_shape_add(e, sh, ctx);
    e->dev_work = work;
    if (e->dev_keys + e->dev_work > e->dev_peak)
        e->dev_peak = e->dev_keys + e->dev_work;
    return 1;
}

/* key's device shape (curve, domain, wires, one worker's working area) and
 * one worker's MSM context, from the backend (no lock needed). */
static void dev_shape_of(const g16_engine *e, const g16_key *key, dev_shape *sh, uint64_t *ctx) {
    memset(sh, 0, sizeof *sh);
    g16_key_info ki;
    if (g16_key_get_info(NULL, &ki, key) == G16_OK) {
        sh->curve = (int)ki.curve;
        sh->n = (uint32_t)ki.domain_size;
        sh->nv = (uint32_t)ki.n_vars;
    }
    sh->work = e->be.work_device_bytes ? e->be.work_device_bytes(e->be.self, key) : 0;
    *ctx = e->be.ctx_device_bytes ? e->be.ctx_device_bytes(e->be.self, key) : 0;
}

/* The device reservation of key k before key_prepare (e->lock not held):
 * *kdev receives the bytes reserved; returns key_prepare's to_device flags:
 * 0 (streamed: the workers' areas alone reserved), 1 (the bases) or
 * 1 | 2 (the bases and their window tables, when the backend makes tables
 * and the budget holds them as it is: no key is evicted for tables; else
 * the bases alone, evicting idle keys as usual). */
int dev_reserve_key(g16_engine *e, ekey *k, const g16_key *key, uint64_t *kdev) {
    *kdev = e->be.key_device_bytes(e->be.self, key);
    uint64_t tb = e->be.key_table_bytes ? e->be.key_table_bytes(e->be.self, key) : 0, ctxb;
    dev_shape sh;
    dev_shape_of(e, key, &sh, &ctxb);
    int to = 0;
    pthread_mutex_lock(&e->lock);
    if (tb && dev_fits(e, *kdev + tb, dev_work_if(e, &sh, ctxb)) && dev_reserve(e, k, *kdev + tb, &sh, ctxb)) {
        *kdev += tb;
        to = 1 | 2;
    } else if (dev_reserve(e, k, *kdev, &sh, ctxb)) {
        to = 1;
    } else {
        (void)dev_reserve(e, k, 0, &sh, ctxb); /* streamed: its workers still hold areas and contexts */
    }
    pthread_mutex_unlock(&e->lock);
    return to;
}

/* After an upload (lock not held): the key's reservation of *kdev device
 * bytes settles to what its device copies take when that is less (the
 * points at infinity a GPU backend dropped); never more. */
void dev_settle_key(g16_engine *e, const g16_key *key, int on_device, uint64_t *kdev) {
    if (!on_device || !e->be.key_device_used)
        return;
    uint64_t used = e->be.key_device_used(e->be.self, key);
    pthread_mutex_lock(&e->lock);
    if (used && used < *kdev) {
        e->dev_keys -= *kdev - used;
        *kdev = used;
    }
    pthread_mutex_unlock(&e->lock);
}

/* Every area comes back here wiped: after a heavy stage it already is (a
 * no-op then); after a failure or a cancellation its witness-derived data is
 * zeroed now (under the lock: those paths are rare). */
void work_return(g16_engine *e, ekey *k, groth16_work *w) {
    groth16_work_wipe(w);
    if (k->n_free == k->cap_free) {
        uint32_t cap = k->cap_free ? 2 * k->cap_free : 4;
        groth16_work **v = realloc(k->free_work, cap * sizeof *v);
        if (!v) {
            groth16_work_free(w);
            k->n_work--;
            budget_give(e, k->work_bytes);
            return;
        }
        k->free_work = v;
        k->cap_free = cap;
    }
    k->free_work[k->n_free++] = w;
    pthread_cond_broadcast(&e->cv_synth);
}

/* The witness bytes a new working area of k must leave free: a witness for
 * each area, the new one included, up to one per synthesis thread, less
 * those reserved now (they are in the budget already); at least one. Areas
 * made while room for a single witness was left let one synthesis run at a
 * time (2^27 with GPU synthesis: 9 areas and 4.3 GB witnesses in a 57 GB
 * budget, the syntheses one after the other). */
uint64_t area_witness_room(const g16_engine *e, const ekey *k) {
    uint64_t wits = (uint64_t)k->n_work + 1 < (uint64_t)e->o.synth_threads ? (uint64_t)k->n_work + 1
                                                                            : (uint64_t)e->o.synth_threads;
    wits = wits > e->n_synthesizing ? wits - e->n_synthesizing : 1;
    return wits * k->wit_bytes;
}
