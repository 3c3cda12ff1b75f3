/* The engine's CUDA backend (docs/engine.md, "CUDA workers").
 *
 * Devices and workers: worker i runs on device i % ndev, so the workers of a
 * device are i = d, d + ndev, ...; each owns one g16_gpu context (its own
 * stream, events and MSM scratch) and one cached device working area
 * (groth16_gpu_work: a, b, c, w, h and the domain's twiddles). Both are made
 * at the first partition whose key shape outgrows them and then reused:
 * nothing is allocated on the device per partition (DESIGN.md: no
 * device-global calls in the per-partition path).
 *
 * Keys: key_prepare uploads a key's bases once per device through that
 * device's loader context (a small g16_gpu used only for uploads and frees,
 * under the device's lock, so that a load never touches a worker's
 * context); every worker of the device then proves against the same
 * groth16_gpu_key. A key the engine's device budget cannot hold, or whose
 * upload fails, takes the streamed path (gkey NULL: bases copied from host
 * memory in double-buffered chunks). key_release frees the device copies
 * once the engine unloads the key (it guarantees no partition uses it).
 *
 * Kernel exclusivity: each worker queues on its own stream and waits on it
 * only, so one worker's copies and CPU work overlap another's kernels. By
 * default the kernels of a device's workers run concurrently too: measured
 * on the H200 (2026-11-30), two workers with concurrent kernels proved
 * 1.27x (BN254 2^22) and 1.95x (2^17) as fast as with the kernels of a
 * partition (H and the five MSMs) under a per-device mutex
 * (groth16_gpu_work_set_exclusive; docs/engine.md "Kernel exclusivity").
 * G16_ENGINE_GPU_SHARED=0, read once here at creation, takes the mutex
 * again, for comparison.
 *
 * G16_ENGINE_PIN=1, also read once at creation, pins each worker thread to
 * the CPUs of its GPU's NUMA node (sysfs local_cpulist of the GPU's PCI
 * address, within the process' affinity) at its first partition: an
 * experiment for many-GPU hosts, where workers float across sockets
 * (docs/engine.md, "Scaling over devices"). */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np, CPU_* */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "gpu/gpu.h"
#include "groth16/prover.h"
#include "util/ctx.h"

typedef struct cdev {
    int device;
    g16_gpu *loader; /* uploads and frees key bases (lock held) */
    pthread_mutex_t lock;
    int failed;      /* a GPU stage failed here (lock held to read/write) */
    pthread_mutex_t kern; /* kernel exclusivity among the device's workers */
    atomic_int unfitted; /* workers here that made no context yet */
} cdev;

typedef struct ckey {
    const g16_key *key;
    groth16_gpu_key **gk; /* per device; all NULL: streamed */
    int tables;           /* base sets with a window table (the fewest over the devices) */
    struct ckey *next;
} ckey;

/* A .params key's device bases, per device (NULL: not uploaded yet;
 * failed[d]: the upload failed there, its partitions run on the CPU). */
typedef struct cpkey {
    const g16_params_key *key;
    g16_params_gpu_key **gk;
    int *failed;
    struct cpkey *next;
} cpkey;

typedef struct cuda_be {
    int ndev, wpd;
    int tables; /* g16_engine_opts.gpu_tables: window tables for device keys */
    int shared; /* engine.gpu_shared: 1 (default) no kernel exclusivity, 0 the mutex */
    int pin;    /* engine.pin: workers pinned near their GPU */
    g16_config cfg; /* the engine's context's options at creation (every g16_gpu_create) */
    cdev *dev;
    pthread_mutex_t lock; /* the key lists */
    ckey *keys;
    cpkey *pkeys;
} cuda_be;

/* Device working areas a worker keeps, one per key shape (curve, domain,
 * wires), least recently used replaced. */
#define GW_CACHE 4

typedef struct cworker {
    cuda_be *be;
    int idx, dev;
    g16_gpu *g;
    size_t g_points; /* MSM capacity of g */
    size_t g_max;    /* 0, or the largest context the device held (worker_fit) */
    groth16_gpu_work *gw[GW_CACHE];
    uint64_t gw_use[GW_CACHE], tick;
    /* Shapes the device could not hold (a context of fail_points points, a
     * working area for domain fail_n / fail_nv wires): not retried per
     * partition (each try is a large cudaMalloc, a device-global call). */
    size_t fail_points;
    uint32_t fail_n, fail_nv;
    int pin_tried; /* engine.pin: done at the first partition */
    int fitted;    /* made a context once (dev->unfitted counts the others) */
    char fit_note[200]; /* why worker_fit last made the context smaller ("" if never) */
    g16_params_gpu_work *pw; /* the working area of .params partitions (one shape cached) */
} cworker;

int engine_cpulist_parse(const char *s, unsigned char *mask, size_t mask_len) {
    int count = 0;
    memset(mask, 0, mask_len);
    while (*s && *s != '\n') {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            return -1;
        s = end;
        if (*s == '-') {
            b = strtoul(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -1;
            s = end;
        }
        for (unsigned long c = a; c <= b && c < 8 * (unsigned long)mask_len; c++)
            if (!(mask[c / 8] & (1u << (c % 8)))) {
                mask[c / 8] |= (unsigned char)(1u << (c % 8));
                count++;
            }
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return count;
}

/* Pins the calling (worker) thread to its GPU's local CPUs that the process
 * may use; says so on stderr (an opt-in experiment). Failures leave the
 * thread as it was. */
static void worker_pin(cworker *w) {
    char addr[64], path[160], list[2048];
    g16_status st = {0};
    int device = w->be->dev[w->dev].device;
    if (g16_gpu_pci_address(device, addr, sizeof addr, &st) != G16_OK)
        return;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", addr);
    FILE *f = fopen(path, "r");
    if (!f && strlen(addr) > 12 && addr[8] == ':') { /* an 8-digit PCI domain: sysfs has 4 */
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", addr + 4);
        f = fopen(path, "r");
    }
    if (!f)
        return;
    size_t n = fread(list, 1, sizeof list - 1, f);
    fclose(f);
    list[n] = 0;
    unsigned char mask[CPU_SETSIZE / 8];
    cpu_set_t cur, set;
    CPU_ZERO(&set);
    if (engine_cpulist_parse(list, mask, sizeof mask) <= 0 || sched_getaffinity(0, sizeof cur, &cur) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (((mask[c / 8] >> (c % 8)) & 1) && CPU_ISSET(c, &cur))
            CPU_SET(c, &set);
    if (CPU_COUNT(&set) > 0 && pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0)
        fprintf(stderr, "engine: worker %d (GPU %d, %s) pinned to its %d local CPUs\n", w->idx, device, addr,
                CPU_COUNT(&set));
}

/* MSM points a proof on key needs: the wires (A, B1, B2, C over n_vars)
 * and the domain (H). */
static size_t key_points(const g16_key *key) {
    g16_key_info ki;
    if (g16_key_get_info(NULL, &ki, key) != G16_OK)
        return 0;
    return ki.n_vars > ki.domain_size ? ki.n_vars : ki.domain_size;
}

static int cuda_worker_device(void *self, int worker) {
    cuda_be *b = self;
    return worker % b->ndev;
}

static g16_err cuda_worker_init(void *self, int worker, void **wstate, g16_status *st) {
    cuda_be *b = self;
    cworker *w = calloc(1, sizeof *w);
    if (!w)
        return g16_fail(st, G16_ERR_NOMEM, "engine: out of memory");
    w->be = b;
    w->idx = worker;
    w->dev = worker % b->ndev;
    *wstate = w;
    return G16_OK;
}

static void worker_drop_works(cworker *w, int keep) {
    for (int i = 0; i < GW_CACHE; i++)
        if (i != keep && w->gw[i]) {
            groth16_gpu_work_free(w->g, w->gw[i]);
            w->gw[i] = NULL;
        }
}

static void worker_drop_device(cworker *w) {
    worker_drop_works(w, -1);
    g16_params_gpu_work_free(w->g, w->pw);
    w->pw = NULL;
    g16_gpu_destroy(w->g);
    w->g = NULL;
    w->g_points = 0;
}

static void cuda_worker_fini(void *self, void *wstate) {
    (void)self;
    cworker *w = wstate;
    if (!w)
        return;
    worker_drop_device(w);
    free(w);
}

static size_t cuda_key_device_bytes(void *self, const g16_key *key) {
    (void)self;
    return groth16_gpu_key_bytes(key);
}

static size_t cuda_work_device_bytes(void *self, const g16_key *key) {
    (void)self;
    return groth16_gpu_work_bytes(key);
}

/* One worker's MSM context for key (worker_fit sizes it for key_points,
 * G2 included), computed on the host: what the engine's device budget
 * counts per worker beside the working areas (a context shrunk by
 * worker_fit takes less). */
static size_t cuda_ctx_device_bytes(void *self, const g16_key *key) {
    return g16_gpu_ctx_bytes(key_points(key), 1, &((cuda_be *)self)->cfg);
}

static size_t cuda_key_table_bytes(void *self, const g16_key *key) {
    cuda_be *b = self;
    return b->tables ? groth16_gpu_key_table_bytes(key) : 0;
}

static ckey *ckey_find(cuda_be *b, const g16_key *key) {
    for (ckey *c = b->keys; c; c = c->next)
        if (c->key == key)
            return c;
    return NULL;
}

static void ckey_free_device(cuda_be *b, ckey *c) {
    for (int d = 0; d < b->ndev; d++) {
        if (!c->gk[d])
            continue;
        pthread_mutex_lock(&b->dev[d].lock);
        groth16_gpu_key_free(b->dev[d].loader, c->gk[d]);
        pthread_mutex_unlock(&b->dev[d].lock);
        c->gk[d] = NULL;
    }
}

/* Window tables for key's bases on device d (lock held), when the device's
 * free memory holds them beside its workers' MSM contexts and working areas
 * for this key shape (made at their first partition, after this) and 1 GiB
 * to spare; returns the base sets given one. */
static int tables_on_device(cuda_be *b, int d, const g16_key *key, groth16_gpu_key *gk) {
    size_t free_b = 0, total_b = 0;
    g16_status st = {0};
    if (g16_gpu_mem_info(b->dev[d].device, &free_b, &total_b, &st) != G16_OK)
        return 0;
    size_t need = groth16_gpu_key_table_bytes(key) +
                  (size_t)b->wpd * (cuda_ctx_device_bytes(b, key) + groth16_gpu_work_bytes(key)) + ((size_t)1 << 30);
    if (free_b < need)
        return 0;
    int n = 0;
    if (groth16_gpu_key_precompute(b->dev[d].loader, gk, &n, &st) != G16_OK)
        return 0; /* a failed set leaves it plain; the sets before keep theirs */
    return n;
}

/* The smallest context a worker beside late rows should keep: MSM chunks of
 * 2^24 points (smaller chunks cost more than the CPU synthesis saves). */
#define ROWS_CTX_POINTS ((size_t)1 << 24)

static size_t cuda_key_rows(void *self, const g16_key *key) {
    cuda_be *b = self;
    size_t rows = groth16_gpu_key_rows_bytes(key);
    size_t pts = key_points(key) < ROWS_CTX_POINTS ? key_points(key) : ROWS_CTX_POINTS;
    size_t need = rows + (size_t)b->wpd * (g16_gpu_ctx_bytes(pts, 1, &b->cfg) + groth16_gpu_work_bytes(key)) + ((size_t)1 << 30);
    /* The engine calls this while the key is loading: nothing releases it
     * meanwhile, so its device copies can be used outside the list lock. */
    pthread_mutex_lock(&b->lock);
    ckey *c = ckey_find(b, key);
    groth16_gpu_key **gk = c ? c->gk : NULL;
    pthread_mutex_unlock(&b->lock);
    int ok = rows && gk && gk[0], added = 0;
    for (int d = 0; ok && d < b->ndev; d++) {
        size_t free_b = 0, total_b = 0;
        g16_status st = {0};
        pthread_mutex_lock(&b->dev[d].lock);
        if (groth16_gpu_key_synth(gk[d])) {
            ok = 0; /* uploaded with its rows already: not a late prepare */
        } else {
            /* key load time, not a per-partition path: the free-memory query is fine here */
            ok = !b->dev[d].failed && gk[d] && g16_gpu_mem_info(b->dev[d].device, &free_b, &total_b, &st) == G16_OK &&
                 free_b >= need && groth16_gpu_key_add_rows(b->dev[d].loader, gk[d], key, &st) == G16_OK;
            added += ok;
        }
        pthread_mutex_unlock(&b->dev[d].lock);
    }
    if (!ok) /* all or none (synth_flags wants the rows on every device): undo the devices done */
        for (int d = 0; d < added; d++) {
            pthread_mutex_lock(&b->dev[d].lock);
            groth16_gpu_key_drop_rows(b->dev[d].loader, gk[d]);
            pthread_mutex_unlock(&b->dev[d].lock);
        }
    return ok ? rows : 0;
}

static g16_err cuda_key_prepare(void *self, const g16_key *key, int to_device, int *on_device, g16_status *st) {
    cuda_be *b = self;
    *on_device = 0;
    ckey *c = calloc(1, sizeof *c);
    groth16_gpu_key **gk = calloc((size_t)b->ndev, sizeof *gk);
    if (!c || !gk) {
        free(c);
        free(gk);
        return g16_fail(st, G16_ERR_NOMEM, "engine: out of memory");
    }
    c->key = key;
    c->gk = gk;
    int ok = (to_device & 1) != 0;
    for (int d = 0; ok && d < b->ndev; d++) {
        g16_status ust = {0};
        pthread_mutex_lock(&b->dev[d].lock);
        /* With the coefficient rows (GPU synthesis), else the bases alone. */
        ok = !b->dev[d].failed && (groth16_gpu_key_upload(b->dev[d].loader, &c->gk[d], key, &ust) == G16_OK ||
                                   groth16_gpu_key_upload_ex(b->dev[d].loader, &c->gk[d], key, 0, &ust) == G16_OK);
        pthread_mutex_unlock(&b->dev[d].lock);
    }
    if (!ok)
        ckey_free_device(b, c); /* the streamed path serves it instead */
    for (int d = 0; ok && (to_device & 2) && b->tables && d < b->ndev; d++) {
        pthread_mutex_lock(&b->dev[d].lock);
        int n = tables_on_device(b, d, key, c->gk[d]);
        pthread_mutex_unlock(&b->dev[d].lock);
        c->tables = d == 0 || n < c->tables ? n : c->tables;
    }
    *on_device = ok;
    pthread_mutex_lock(&b->lock);
    c->next = b->keys;
    b->keys = c;
    pthread_mutex_unlock(&b->lock);
    return G16_OK;
}

static size_t cuda_key_device_used(void *self, const g16_key *key) {
    cuda_be *b = self;
    /* Called while the key is loading, as cuda_key_rows: its device copies
     * are not released meanwhile. */
    pthread_mutex_lock(&b->lock);
    ckey *c = ckey_find(b, key);
    groth16_gpu_key **gk = c ? c->gk : NULL;
    pthread_mutex_unlock(&b->lock);
    size_t most = 0;
    for (int d = 0; gk && d < b->ndev; d++) {
        pthread_mutex_lock(&b->dev[d].lock);
        size_t u = groth16_gpu_key_device_bytes(gk[d]);
        pthread_mutex_unlock(&b->dev[d].lock);
        most = u > most ? u : most;
    }
    return most;
}

static int cuda_key_tables(void *self, const g16_key *key) {
    cuda_be *b = self;
    pthread_mutex_lock(&b->lock);
    ckey *c = ckey_find(b, key);
    int n = c ? c->tables : 0;
    pthread_mutex_unlock(&b->lock);
    return n;
}

static void cuda_key_release(void *self, const g16_key *key) {
    cuda_be *b = self;
    pthread_mutex_lock(&b->lock);
    ckey *found = NULL;
    for (ckey **pp = &b->keys; *pp; pp = &(*pp)->next)
        if ((*pp)->key == key) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&b->lock);
    if (!found)
        return;
    ckey_free_device(b, found);
    free(found->gk);
    free(found);
}

/* The smallest MSM context worker_fit shrinks to (larger MSMs run in
 * chunks of it: prove_gpu.c). */
#define MIN_CTX_POINTS ((size_t)1 << 20)

/* w's context and device working area for key: the context grows when a
 * key needs more MSM points than it has (dropping the cached areas made
 * through it), the area is created at the first partition of a key shape
 * and cached (GW_CACHE shapes, LRU). A failed creation first frees the other
 * cached areas and retries; when the device still lacks room (a large key
 * resident beside them: 77 GB of bases at 2^27), the context is remade at
 * half the points, down to MIN_CTX_POINTS, and the worker keeps that cap
 * (g_max). NULL when the device cannot hold them (the partition then runs
 * on the CPU). */
static groth16_gpu_work *worker_fit(cworker *w, const g16_key *key, g16_status *st) {
    g16_key_info ki;
    if (g16_key_get_info(NULL, &ki, key) != G16_OK)
        return NULL;
    size_t need = key_points(key);
    if ((w->fail_points && need >= w->fail_points) || (ki.domain_size == w->fail_n && ki.n_vars == w->fail_nv))
        return NULL;
    for (;;) {
        size_t want = w->g_max && w->g_max < need ? w->g_max : need;
        if (!w->g || w->g_points < want) {
            worker_drop_device(w);
            /* Start from the largest context that fits beside the working
             * area in the device's free memory (once per context made, not
             * per partition), rather than from failed allocations: at 2^27
             * after 2^27 and 2^26 attempts had run out of memory, the 2^25
             * context's first CUB query failed with "invalid device
             * ordinal" (H200, 2026-11-30) and the worker settled at 2^24. */
            size_t free_b = 0, total_b = 0, area = groth16_gpu_work_bytes(key);
            g16_status mst = {0};
            cdev *dv = &w->be->dev[w->dev];
            int left = atomic_load(&dv->unfitted), share = !w->fitted && left > 1 ? left : 1;
            if (g16_gpu_mem_info(dv->device, &free_b, &total_b, &mst) == G16_OK) {
                /* A first context takes its share of the free memory among
                 * the device's workers still to make theirs (so that the
                 * first does not leave the others too little for an area). */
                free_b /= (size_t)share;
                size_t asked = want;
                while (want > MIN_CTX_POINTS && g16_gpu_ctx_bytes(want, 1, &w->be->cfg) + area + ((size_t)1 << 30) > free_b) {
                    want /= 2;
                    w->g_max = want;
                }
                if (want < asked)
                    snprintf(w->fit_note, sizeof w->fit_note,
                             "context of %zu points (not %zu): %.1f GB of device memory free for it and a %.1f GB "
                             "working area%s",
                             want, asked, free_b / 1e9, area / 1e9, share > 1 ? " (its share)" : "");
            }
            while (g16_gpu_create(&w->g, w->be->dev[w->dev].device, want, 1, &w->be->cfg, st) != G16_OK) {
                w->g = NULL;
                snprintf(w->fit_note, sizeof w->fit_note, "context of %zu points: %.150s", want, st ? st->msg : "");
                if (want <= MIN_CTX_POINTS) {
                    w->fail_points = need;
                    return NULL;
                }
                want /= 2;
                w->g_max = want;
            }
            if (!w->fitted) {
                w->fitted = 1;
                atomic_fetch_sub(&dv->unfitted, 1);
            }
            w->g_points = want;
        }
        int slot = -1;
        for (int i = 0; i < GW_CACHE && slot < 0; i++)
            if (w->gw[i] && groth16_gpu_work_fits(w->gw[i], key))
                slot = i;
        if (slot >= 0) {
            w->gw_use[slot] = ++w->tick;
            return w->gw[slot];
        }
        slot = 0; /* the first free slot, else the least recently used */
        for (int i = 0; i < GW_CACHE; i++) {
            if (!w->gw[i]) {
                slot = i;
                break;
            }
            if (w->gw_use[i] < w->gw_use[slot])
                slot = i;
        }
        if (w->gw[slot])
            groth16_gpu_work_free(w->g, w->gw[slot]);
        w->gw[slot] = NULL;
        if (groth16_gpu_work_create(w->g, &w->gw[slot], key, st) != G16_OK) {
            w->gw[slot] = NULL;
            worker_drop_works(w, -1);
            if (groth16_gpu_work_create(w->g, &w->gw[slot], key, st) != G16_OK) {
                w->gw[slot] = NULL;
                if (w->g_points > MIN_CTX_POINTS) { /* make room: a smaller context */
                    snprintf(w->fit_note, sizeof w->fit_note, "working area beside a context of %zu points: %.120s",
                             w->g_points, st ? st->msg : "");
                    w->g_max = w->g_points / 2;
                    worker_drop_device(w);
                    continue;
                }
                w->fail_n = ki.domain_size, w->fail_nv = ki.n_vars;
                return NULL;
            }
        }
        w->gw_use[slot] = ++w->tick;
        return w->gw[slot];
    }
}

/* GPU synthesis (GROTH16_SYNTH_WS_ONLY) when every device holds key's
 * coefficient rows and none is out of service; else the CPU synthesizes. */
static unsigned cuda_synth_flags(void *self, const g16_key *key) {
    cuda_be *b = self;
    unsigned flags = 0;
    pthread_mutex_lock(&b->lock);
    ckey *c = ckey_find(b, key);
    if (c && c->gk[0]) {
        flags = groth16_gpu_synth_flags(c->gk[0]);
        for (int d = 0; d < b->ndev; d++)
            if (!groth16_gpu_key_synth(c->gk[d]))
                flags = 0;
    }
    pthread_mutex_unlock(&b->lock);
    for (int d = 0; flags && d < b->ndev; d++) {
        pthread_mutex_lock(&b->dev[d].lock);
        if (b->dev[d].failed)
            flags = 0;
        pthread_mutex_unlock(&b->dev[d].lock);
    }
    return flags;
}

/* The CPU heavy stage for a GPU worker (the device prover's piece: a
 * ws-only synthesis completed on the CPU first). */
static g16_err cpu_heavy(g16_ctx *ctx, groth16_msms *out, groth16_work *work, const g16_key *key,
                         groth16_timings *tm, engine_heavy_info *hi, g16_status *st) {
    hi->cpu_fallback = 1;
    return groth16_stage_heavy_on(ctx, NULL, out, work, key, tm, NULL, st);
}

/* A worker's device stage starts: its pinning at the first one
 * (engine.pin), then whether its device is out of service. */
static int worker_begin(cuda_be *b, cworker *w) {
    cdev *dv = &b->dev[w->dev];
    if (b->pin && !w->pin_tried) {
        w->pin_tried = 1;
        worker_pin(w);
    }
    pthread_mutex_lock(&dv->lock);
    int failed = dv->failed;
    pthread_mutex_unlock(&dv->lock);
    return failed;
}

static g16_err cuda_heavy(void *self, void *wstate, g16_ctx *ctx, groth16_msms *out, groth16_work *work,
                          const g16_key *key, groth16_timings *tm, engine_heavy_info *hi, g16_status *st) {
    cuda_be *b = self;
    cworker *w = wstate;
    cdev *dv = &b->dev[w->dev];
    int failed = worker_begin(b, w);
    /* An in-memory key whose host bases were released (engine_key_add_loaded)
     * has no CPU fallback: say why instead of the CPU stage's refusal. */
    int dropped = (groth16_key_dropped(key) & GROTH16_DROP_BASES) != 0;
    if (failed && dropped) {
        groth16_work_discard(work);
        memset(out, 0, sizeof *out);
        return g16_fail(st, G16_ERR_UNSUPPORTED,
                        "engine: device %d is out of service after a GPU fault and the in-memory key's host bases "
                        "were released, so worker %d cannot run the partition on the CPU",
                        dv->device, w->idx);
    }
    if (failed) /* out of service (a CUDA fault is sticky: the context is dead) */
        return cpu_heavy(ctx, out, work, key, tm, hi, st);
    g16_status fst = {0};
    groth16_gpu_work *gw = worker_fit(w, key, &fst);
    if (!gw && dropped) { /* the work is left as it is: another worker takes it */
        hi->retry_elsewhere = 1;
        return g16_fail(st, G16_ERR_NOMEM,
                        "engine: worker %d cannot hold an MSM context and a device working area for this key on "
                        "device %d beside the resident keys (%s), and the in-memory key's host bases were released "
                        "(no CPU fallback): use fewer workers per device",
                        w->idx, dv->device, fst.msg[0] ? fst.msg : "out of device memory");
    }
    if (!gw) /* no device working area for this shape: the CPU stage instead of
              * a failure (DESIGN.md "Fallback"; counted by the engine) */
        return cpu_heavy(ctx, out, work, key, tm, hi, st);
    pthread_mutex_lock(&b->lock);
    ckey *c = ckey_find(b, key);
    const groth16_gpu_key *gk = c ? c->gk[w->dev] : NULL;
    pthread_mutex_unlock(&b->lock);
    groth16_gpu_timings gtm = {0};
    groth16_gpu_work_set_exclusive(gw, b->shared ? NULL : &dv->kern);
    /* The device prover's heavy stage (a ws-only synthesis is completed on
     * the CPU first when gk holds no rows: streamed bases). */
    groth16_heavy_dev hd = {w->g, gw, gk};
    g16_err err = groth16_stage_heavy_on(ctx, &hd, out, work, key, tm, &gtm, st);
    hi->upload_ms = gtm.upload_ms;
    hi->gpu_ms = gtm.gpu_ms;
    hi->upload_begin = gtm.upload_begin, hi->upload_end = gtm.upload_end;
    hi->kernels_begin = gtm.kernels_begin, hi->kernels_end = gtm.kernels_end;
    hi->lock_wait_ms = gtm.lock_wait_ms;
    hi->stage_gpu_ms[0] = gtm.synth_ms + gtm.ntt_ms;
    hi->kernel_gpu_ms = hi->stage_gpu_ms[0];
    for (int i = 0; i < 5; i++) {
        hi->stage_gpu_ms[1 + i] = gtm.msm_ms[i];
        hi->kernel_gpu_ms += gtm.msm_ms[i];
    }
    hi->msm_points = w->g_points;
    hi->msm_note = w->fit_note;
    hi->streamed = gk == NULL;
    if (err == G16_ERR_DEVICE) {
        /* This partition fails (its working area is consumed); the next
         * ones of this device run on the CPU. */
        hi->device_failed = 1;
        pthread_mutex_lock(&dv->lock);
        dv->failed = 1;
        pthread_mutex_unlock(&dv->lock);
    }
    return err;
}

/* ---- .params partitions ------------------------------------------------------ */

/* The device bases of key on device d, uploaded at the first partition
 * there through the device's loader context (NULL: no room, or a failed
 * upload before; the partition then runs on the CPU). The upload runs under
 * the device's lock, so the device's other workers wait for it once. */
static g16_params_gpu_key *pkey_on(cuda_be *b, const g16_params_key *key, int d, char *why, size_t wlen) {
    pthread_mutex_lock(&b->lock);
    cpkey *c = b->pkeys;
    while (c && c->key != key)
        c = c->next;
    if (!c && (c = calloc(1, sizeof *c))) {
        c->key = key;
        c->gk = calloc((size_t)b->ndev, sizeof *c->gk);
        c->failed = calloc((size_t)b->ndev, sizeof *c->failed);
        if (!c->gk || !c->failed) {
            free(c->gk), free(c->failed), free(c);
            c = NULL;
        } else {
            c->next = b->pkeys;
            b->pkeys = c;
        }
    }
    pthread_mutex_unlock(&b->lock);
    if (!c) {
        snprintf(why, wlen, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&b->dev[d].lock);
    if (!c->gk[d] && !c->failed[d]) {
        g16_status st = {0};
        if (g16_params_gpu_key_upload(b->dev[d].loader, &c->gk[d], key, &st) != G16_OK) {
            c->gk[d] = NULL;
            c->failed[d] = 1;
            snprintf(why, wlen, "%.150s", st.msg);
        }
    } else if (c->failed[d]) {
        snprintf(why, wlen, "the key's bases did not fit on device %d", b->dev[d].device);
    }
    g16_params_gpu_key *gk = c->gk[d];
    pthread_mutex_unlock(&b->dev[d].lock);
    return gk;
}

static void cuda_params_release(void *self, const g16_params_key *key) {
    cuda_be *b = self;
    pthread_mutex_lock(&b->lock);
    cpkey **pp = &b->pkeys, *c = NULL;
    while (*pp && (*pp)->key != key)
        pp = &(*pp)->next;
    if (*pp) {
        c = *pp;
        *pp = c->next;
    }
    pthread_mutex_unlock(&b->lock);
    if (!c)
        return;
    for (int d = 0; d < b->ndev; d++) {
        pthread_mutex_lock(&b->dev[d].lock);
        g16_params_gpu_key_free(b->dev[d].loader, c->gk[d]);
        pthread_mutex_unlock(&b->dev[d].lock);
    }
    free(c->gk), free(c->failed), free(c);
}

/* The worker's context (the key's largest MSM, or fewer points: larger
 * MSMs run in chunks) and its .params working area; 0 when the device
 * cannot hold them. As worker_fit does for zkeys, a first context starts
 * from the largest that fits beside the working area in the worker's share
 * of the free memory (the device's workers still to make theirs split it:
 * at 2^27, beside 47 GB of bases, the first of two workers takes 2^25
 * points rather than 2^27, which would leave the second no room for its
 * area), then halves on failure, and when the area does not fit beside
 * it, down to MIN_CTX_POINTS. */
static int worker_fit_params(cworker *w, const g16_params_key *key, char *why, size_t wlen) {
    size_t need = g16_params_gpu_max_points(key);
    if (w->g_max && w->g_max < need)
        need = w->g_max;
    if (need < MIN_CTX_POINTS)
        need = MIN_CTX_POINTS;
    g16_status st = {0};
    if (!w->g || w->g_points < need) {
        worker_drop_device(w);
        size_t want = need;
        cdev *dv = &w->be->dev[w->dev];
        size_t free_b = 0, total_b = 0, area = w->pw && g16_params_gpu_work_fits(w->pw, key) ? 0
                                                : g16_params_gpu_work_bytes(key);
        int left = atomic_load(&dv->unfitted), share = !w->fitted && left > 1 ? left : 1;
        g16_status mst = {0};
        if (g16_gpu_mem_info(dv->device, &free_b, &total_b, &mst) == G16_OK) { /* once per context made */
            free_b /= (size_t)share;
            size_t asked = want;
            while (want > MIN_CTX_POINTS &&
                   g16_gpu_ctx_bytes(want, 1, &w->be->cfg) + area + ((size_t)1 << 30) > free_b) {
                want /= 2;
                w->g_max = want;
            }
            if (want < asked)
                snprintf(w->fit_note, sizeof w->fit_note,
                         "context of %zu points (not %zu): %.1f GB of device memory free for it and a %.1f GB "
                         ".params working area%s",
                         want, asked, free_b / 1e9, area / 1e9, share > 1 ? " (its share)" : "");
        }
        while (g16_gpu_create(&w->g, w->be->dev[w->dev].device, want, 1, &w->be->cfg, &st) != G16_OK) {
            w->g = NULL;
            if (want <= MIN_CTX_POINTS) {
                snprintf(why, wlen, "no MSM context: %.150s", st.msg);
                return 0;
            }
            want /= 2;
            w->g_max = want;
        }
        if (!w->fitted) {
            w->fitted = 1;
            atomic_fetch_sub(&w->be->dev[w->dev].unfitted, 1);
        }
        w->g_points = want;
    }
    if (w->pw && !g16_params_gpu_work_fits(w->pw, key)) {
        g16_params_gpu_work_free(w->g, w->pw);
        w->pw = NULL;
    }
    if (!w->pw && g16_params_gpu_work_create(w->g, &w->pw, key, &w->be->cfg, &st) != G16_OK) {
        worker_drop_works(w, -1); /* the zkey areas make room */
        if (g16_params_gpu_work_create(w->g, &w->pw, key, &w->be->cfg, &st) != G16_OK) {
            w->pw = NULL;
            if (w->g_points > MIN_CTX_POINTS) {
                /* a smaller context makes room (the estimate above left
                 * too little: the device's other allocations), rather than
                 * a partition on the CPU */
                size_t half = w->g_points / 2;
                worker_drop_device(w);
                w->g_max = half;
                snprintf(w->fit_note, sizeof w->fit_note,
                         "context of %zu points: no room for the %.1f GB .params working area beside a larger one",
                         half, g16_params_gpu_work_bytes(key) / 1e9);
                return worker_fit_params(w, key, why, wlen);
            }
            snprintf(why, wlen, "no working area (%.1f GB): %.120s", g16_params_gpu_work_bytes(key) / 1e9, st.msg);
            return 0;
        }
    }
    return 1;
}

static g16_err cuda_params_heavy(void *self, void *wstate, g16_ctx *ctx, g16_params_msms *out,
                                 const g16_params_key *key, const g16_assignment *as, const char *who,
                                 engine_heavy_info *hi, g16_status *st) {
    cuda_be *b = self;
    cworker *w = wstate;
    cdev *dv = &b->dev[w->dev];
    int failed = worker_begin(b, w);
    char why[200] = "";
    g16_params_gpu_key *gk = failed ? NULL : pkey_on(b, key, w->dev, why, sizeof why);
    if (!gk && !failed) /* the status's msm_note says why the CPU ran it */
        snprintf(w->fit_note, sizeof w->fit_note, ".params bases not on device %d: %.150s", dv->device, why);
    if (!gk || !worker_fit_params(w, key, w->fit_note, sizeof w->fit_note)) {
        hi->msm_note = w->fit_note;
        hi->cpu_fallback = 1;
        return g16_params_heavy_cpu(ctx, out, key, as, who, st);
    }
    /* The copies outside the kernel mutex: they overlap the kernels of the
     * device's other workers. */
    double tu = g16_now_ms();
    g16_err err = g16_params_gpu_load(w->g, w->pw, key, as, ctx ? ctx->pool : NULL, who, st);
    double t0 = g16_now_ms();
    pthread_mutex_t *kern = b->shared ? NULL : &dv->kern;
    int locked = kern && !err;
    if (locked)
        pthread_mutex_lock(kern);
    double t1 = g16_now_ms();
    if (!err)
        err = g16_params_gpu_compute(w->g, w->pw, gk, out, key, as, who, st);
    double t2 = g16_now_ms();
    if (locked)
        pthread_mutex_unlock(kern);
    hi->upload_begin = tu, hi->upload_end = t0;
    hi->upload_ms = t0 - tu;
    hi->lock_wait_ms = t1 - t0;
    hi->gpu_ms = (t0 - tu) + (t2 - t1);
    hi->kernels_begin = t1, hi->kernels_end = t2;
    g16_params_gpu_times pt;
    g16_params_gpu_work_times(w->pw, &pt);
    hi->kernel_gpu_ms = pt.compute_ms;
    /* ENGINE_GPU_STAGE_NAMES: before the MSMs, then A, B1, B2, C (l), H */
    hi->stage_gpu_ms[0] = pt.prep_ms + pt.h_ms + pt.scalars_ms;
    hi->stage_gpu_ms[1] = pt.msm_ms[2], hi->stage_gpu_ms[2] = pt.msm_ms[3], hi->stage_gpu_ms[3] = pt.msm_ms[4];
    hi->stage_gpu_ms[4] = pt.msm_ms[1], hi->stage_gpu_ms[5] = pt.msm_ms[0];
    hi->msm_points = w->g_points;
    hi->msm_note = w->fit_note;
    if (err == G16_ERR_DEVICE) {
        hi->device_failed = 1;
        pthread_mutex_lock(&dv->lock);
        dv->failed = 1;
        pthread_mutex_unlock(&dv->lock);
    }
    return err;
}

static void cuda_destroy(void *self) {
    cuda_be *b = self;
    if (!b)
        return;
    while (b->pkeys)
        cuda_params_release(b, b->pkeys->key);
    while (b->keys) {
        ckey *c = b->keys;
        b->keys = c->next;
        ckey_free_device(b, c);
        free(c->gk);
        free(c);
    }
    for (int d = 0; d < b->ndev; d++) {
        g16_gpu_destroy(b->dev[d].loader);
        pthread_mutex_destroy(&b->dev[d].lock);
        pthread_mutex_destroy(&b->dev[d].kern);
    }
    pthread_mutex_destroy(&b->lock);
    free(b->dev);
    free(b);
}

/* The loader context only copies bases; its MSM scratch is kept small. */
#define LOADER_POINTS ((size_t)1 << 12)

g16_err engine_backend_cuda(engine_backend *be, int devices, int workers_per_device, int tables,
                            const g16_config *cfg, g16_status *st) {
    memset(be, 0, sizeof *be);
    int n = g16_gpu_count();
    if (n <= 0)
        return g16_fail(st, G16_ERR_NO_DEVICE, "engine: the CUDA backend needs a GPU and none is usable");
    if (devices > 0 && devices < n)
        n = devices;
    cuda_be *b = calloc(1, sizeof *b);
    cdev *dv = calloc((size_t)n, sizeof *dv);
    if (!b || !dv) {
        free(b);
        free(dv);
        return g16_fail(st, G16_ERR_NOMEM, "engine: out of memory");
    }
    b->dev = dv;
    b->wpd = workers_per_device > 0 ? workers_per_device : 2;
    b->tables = tables != 0;
    if (cfg)
        b->cfg = *cfg;
    else
        g16_config_init(&b->cfg);
    b->shared = g16_config_bool(&b->cfg, G16_OPT_ENGINE_GPU_SHARED);
    b->pin = g16_config_bool(&b->cfg, G16_OPT_ENGINE_PIN);
    pthread_mutex_init(&b->lock, NULL);
    for (int d = 0; d < n; d++) {
        dv[d].device = d;
        atomic_init(&dv[d].unfitted, b->wpd);
        pthread_mutex_init(&dv[d].lock, NULL);
        pthread_mutex_init(&dv[d].kern, NULL);
        b->ndev = d + 1;
        if (g16_gpu_create(&dv[d].loader, d, LOADER_POINTS, 1, &b->cfg, st) != G16_OK) {
            dv[d].loader = NULL;
            cuda_destroy(b);
            return st->code;
        }
    }
    be->name = "cuda";
    be->self = b;
    be->devices = n;
    /* Synthesis writes a, b, c, w straight into pinned host buffers (one
     * cudaHostAlloc per working area, at its creation; the engine caches
     * the areas), so the per-partition copies run at full PCIe speed. */
    be->work_flags = GROTH16_WORK_PINNED;
    be->worker_init = cuda_worker_init;
    be->worker_fini = cuda_worker_fini;
    be->worker_device = cuda_worker_device;
    be->key_device_bytes = cuda_key_device_bytes;
    be->work_device_bytes = cuda_work_device_bytes;
    be->ctx_device_bytes = cuda_ctx_device_bytes;
    be->key_device_used = cuda_key_device_used;
    be->work_cache = GW_CACHE;
    be->key_prepare = cuda_key_prepare;
    be->key_release = cuda_key_release;
    be->key_table_bytes = cuda_key_table_bytes;
    be->key_tables = cuda_key_tables;
    be->heavy = cuda_heavy;
    be->synth_flags = cuda_synth_flags;
    be->key_rows = cuda_key_rows;
    be->params_heavy = cuda_params_heavy;
    be->params_release = cuda_params_release;
    be->destroy = cuda_destroy;
    return G16_OK;
}
