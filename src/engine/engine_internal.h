/* The engine's internals, shared by its files (docs/engine.md): the types,
 * the engine struct and the functions one file calls in another (hidden:
 * none is exported from libg16).
 *
 * Threads: S synthesis threads, W device workers, F finalize threads (one per
 * device: each proof is finalized and verified, a multi-pairing, on the CPU). One
 * mutex (eng->lock) guards every queue, key, job and the budget; heavy work
 * runs with it released. Queues:
 *   pending  (heap)  partitions not started, by (priority desc, job seq asc,
 *                    partition index asc): unique keys, a total order;
 *   ready    (heap)  synthesized partitions (each holding a working area),
 *                    same order; at most `lookahead` of them (plus those in
 *                    synthesis);
 *   fin      (heap)  partitions whose device stage is done (MSM sums only).
 * Budget: one byte count over resident keys, working areas and witnesses in
 * synthesis; a reservation is taken before the memory is, and released as
 * soon as its data is consumed (a witness right after synthesis). Free
 * working areas are a per-key cache and are reclaimed under pressure before
 * idle keys are evicted (LRU; a key with partitions in flight never is).
 * Each function declared below states its contract at its definition. */
#ifndef G16_ENGINE_INTERNAL_H
#define G16_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "groth16/assignment.h"

enum { P_QUEUED, P_RUNNING, P_PROVED, P_FAILED, P_CANCELLED };

typedef struct engine_ring engine_ring;

typedef struct ekey {
    uint64_t id;
    char *path;
    unsigned flags;
    g16_key_tier tier;
    int users;        /* g16_engine_key_add references */
    g16_key *key;     /* NULL while not resident */
    size_t bytes;     /* reserved while resident (or loading) */
    size_t dev_bytes; /* its bases on each device (0: streamed, or the CPU) */
    int streamed;     /* resident, on a GPU backend, but not on the devices */
    int loading;      /* a thread is loading it */
    int in_memory;    /* engine_key_add_loaded: no file to reload it from, so
                       * never evicted (host or devices); freed by
                       * g16_engine_key_remove or g16_engine_destroy */
    unsigned work_flags; /* groth16_work_create_ex flags of its working areas */
    size_t released;     /* host bytes given back once on the devices (in-memory keys) */
    uint32_t active;  /* partitions in flight (popped, not finished) */
    uint64_t last_use;
    size_t work_bytes; /* one working area (known once loaded) */
    size_t wit_bytes;  /* one parsed witness (nVars Fr) */
    groth16_work **free_work;
    uint32_t n_free, cap_free, n_work;
    uint32_t loads, evictions;
    /* A bellperson .params key (G16_KEY_PARAMS or a ".params" path): pkey
     * while resident, key stays NULL; its partitions are assignments and
     * take no working area (docs/engine.md, "Assignment jobs"). */
    int params;
    g16_params_key *pkey;
    struct ekey *next;
} ekey;

struct job;
typedef struct part {
    struct job *job;
    uint32_t idx;
    int state;
    g16_err err;
    char msg[256];
    char *path;   /* witness (path or bytes, owned until synthesized) */
    void *data;
    size_t len;
    int borrowed; /* data is the caller's (ENGINE_SUBMIT_BORROW): not wiped or freed */
    groth16_work *work;
    groth16_msms msms;
    g16_result *res;
    double t_queued;
    double t_ready, t_devdone; /* pushed to the ready heap / the fin heap */
    g16_partition_stats stats;
    /* An assignment partition (its job's key is a .params one): the source
     * is path or data (an .assignment file, read into afile at synthesis)
     * or basg (the caller's, borrowed: never written or wiped); asg points
     * at the one in use from synthesis on. rsv: budget bytes reserved from
     * synthesis to the end of the heavy stage. pm: the MSM sums (wiped when
     * freed); pub: the public inputs after the constant one; pproof: the
     * 192-byte proof once proved; pub_json its public.json text. */
    int is_asg;
    g16_assignment basg;
    int has_basg;
    g16_assignment_file afile;
    const g16_assignment *asg;
    uint64_t rsv;
    g16_params_msms *pm;
    g16_frvec pub;
    uint8_t *pproof;
    char *pub_json;
} part;

typedef struct job {
    uint64_t id, seq;
    int prio;
    ekey *key;
    uint32_t n, n_finished, n_proved, n_failed, n_cancelled, n_started;
    part *parts;
    int cancelled;
    g16_err cancel_err;
    double t_submit, t_finish, deadline;
    uint64_t finish_seq;
    g16_err err;
    uint32_t failed_partition;
    char msg[300];
    struct job *next;
} job;

typedef struct pheap {
    part **v;
    size_t n, cap;
} pheap;

/* Distinct key shapes the device budget remembers (the largest ones). */
#define DEV_SHAPES 64

/* Histogram buckets (ms) of the stage timings. */
static const double HB[] = {1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 60000};
#define NHB (sizeof HB / sizeof HB[0])
/* ready_wait: synthesized, waiting in the ready heap for a worker (long =
 * the devices are the bottleneck; near 0 with idle devices = synthesis is);
 * fin_wait: device stage done, waiting in the fin heap for a finalize
 * thread (long = finalize/verify is the bottleneck); kernels: the kernel
 * section on the host clock (H and the MSMs, under the kernel mutex). */
enum {
    ST_QUEUE,
    ST_SYNTH,
    ST_DEVICE,
    ST_FINALIZE,
    ST_VERIFY,
    ST_JOB,
    ST_UPLOAD,
    ST_GPU,
    ST_KWAIT,
    ST_RWAIT,
    ST_FWAIT,
    ST_KERNELS,
    ST_COUNT
};

typedef struct hist {
    uint64_t b[NHB + 1];
    uint64_t count;
    double sum;
} hist;

struct g16_engine {
    g16_ctx *ctx;
    g16_engine_opts o;
    engine_backend be;
    pthread_mutex_t lock;
    pthread_cond_t cv_synth, cv_ready, cv_fin, cv_done;
    FILE *timeline; /* optional event log (its own lock: tl_lock) */
    engine_ring *ring; /* recent spans (spans.c; its own lock) */
    int ring_dev;      /* 1: spans name their device (a GPU backend), 0: device null */
    pthread_mutex_t tl_lock;
    double t_start;
    pheap pending, ready, fin;
    uint32_t n_synthesizing;
    ekey *keys;
    job *jobs;
    uint64_t next_key_id, next_job_id, job_seq, finish_seq, tick;
    uint64_t budget_used, budget_peak;
    int stop_synth, stop_workers, stop_fin;
    int hold_workers; /* test hook: workers take nothing from the ready heap */
    uint32_t refuse_mask; /* test hook: these workers answer retry_elsewhere */
    int n_retired;        /* workers retired (engine_heavy_info.retry_elsewhere) */
    pthread_t *synth_th, *worker_th, *fin_th;
    int n_synth_th, n_worker_th, n_fin_th;
    double fin_busy_ms; /* the finalize threads' finalize + verify time, summed */
    double budget_wait_ms; /* synthesis threads waiting for budget room (areas, witnesses), summed */
    void **wstate;
    struct {
        uint64_t job_id;
        uint32_t part;
        int busy;
        int retired; /* handed a partition back for good (retry_elsewhere) */
        int dev;        /* the device it runs on */
        size_t msm_points; /* its MSM capacity at its last device stage (engine_heavy_info) */
        char msm_note[200]; /* and why it is smaller than asked ("" if not) */
        double busy_ms; /* sum of its heavy stages */
    } *wcur;
    /* Devices (one "device" for the CPU backend): busy = at least one of
     * its workers in a heavy stage; busy_ms is the union of those
     * intervals, gpu_ms the sum of the device-timed GPU stages. */
    struct {
        int n_busy, workers;
        int failed; /* a GPU stage failed: out of service */
        double busy_since, busy_ms, first_ms, gpu_ms;
        uint64_t parts;  /* heavy stages that ended here without error */
        double kernel_ms, kwait_ms; /* kernel sections (host clock) and mutex waits, summed */
        double kernel_gpu_ms;       /* their CUDA-event time (engine_heavy_info.kernel_gpu_ms) */
        double stage_gpu_ms[ENGINE_GPU_STAGES]; /* its parts (engine_heavy_info.stage_gpu_ms) */
    } *dev;
    int n_dev, wpd;
    /* Device bytes, per device (every device holds the same keys): resident
     * key bases plus the workers' device areas: wpd x (the largest MSM
     * context + the be.work_cache largest working areas of the key shapes
     * seen, dev_shapes), dev_work = dev_work_if(e, NULL, 0). */
    uint64_t dev_keys, dev_work, dev_peak, dev_ctx;
    struct dev_shape {
        int curve;
        uint32_t n, nv;
        uint64_t work;
    } dev_shapes[DEV_SHAPES];
    int n_dev_shapes;
    /* metrics */
    uint64_t c_jobs_submitted, c_jobs_done, c_jobs_failed, c_jobs_cancelled;
    uint64_t c_parts_proved, c_parts_failed, c_parts_cancelled, c_verify_failed;
    uint64_t c_key_loads, c_key_evictions, c_work_allocs, c_work_reclaims;
    uint64_t c_keys_streamed, c_parts_streamed, c_parts_cpu_fallback, c_device_errors, c_workers_retired;
    hist h[ST_COUNT];
};

typedef struct dev_shape dev_shape;

typedef struct wctx { /* a thread's argument */
    g16_engine *eng;
    int idx;
} wctx;

static inline double now_ms(void) { return g16_now_ms(); }
/* The key is resident: a zkey (key) or a .params key (pkey). */
static inline int ekey_resident(const ekey *k) { return k->key != NULL || k->pkey != NULL; }

/* The span ring (spans.c): the last ENGINE_RING_CAP stage spans. */
#define ENGINE_RING_CAP 65536
enum { ESPAN_SYNTH, ESPAN_DEVICE, ESPAN_UPLOAD, ESPAN_KERNELS, ESPAN_FINALIZE, ESPAN_VERIFY };
enum { ELANE_SYNTH, ELANE_WORKER, ELANE_FINALIZE };
g16_err engine_ring_create(engine_ring **r);
void engine_ring_free(engine_ring *r);
/* Records a span [b, e] (now_ms clock) of thread idx of kind (ELANE_*),
 * stage (ESPAN_*), on device dev (-1: none); r NULL: nothing. */
void engine_span_add(engine_ring *r, int stage, int kind, int idx, int dev, uint64_t job, uint32_t part, double b,
                     double e);

/* metrics.c: a growing string (oom set on any failure; p NULL until the
 * first write), shared by the metrics, status and timeline writers. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sched.c */
int heap_push(pheap *h, part *p);
part *heap_pop(pheap *h);
size_t heap_remove_job(pheap *h, const job *j, part **out);
job *job_find(g16_engine *e, uint64_t id);
int job_has_refs(const g16_engine *e, const ekey *k);
void part_free_input(part *p);
void part_wipe_input(part *p, int threads);
void part_finish(g16_engine *e, part *p, int state, g16_err err, const char *msg, int popped);
void job_cancel_locked(g16_engine *e, job *j, g16_err why);
void sweep_timeouts(g16_engine *e);
void cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *m, double ms);
uint32_t eng_inflight(const g16_engine *e);

/* budget.c */
int budget_fits(const g16_engine *e, uint64_t bytes);
void budget_take(g16_engine *e, uint64_t bytes);
void budget_give(g16_engine *e, uint64_t bytes);
int budget_make_room(g16_engine *e, uint64_t bytes, const ekey *keep);
int dev_fits(const g16_engine *e, uint64_t key_bytes, uint64_t work);
int dev_reserve_key(g16_engine *e, ekey *k, const g16_key *key, uint64_t *kdev);
void dev_settle_key(g16_engine *e, const g16_key *key, int on_device, uint64_t *kdev);
void work_return(g16_engine *e, ekey *k, groth16_work *w);
uint64_t area_witness_room(const g16_engine *e, const ekey *k);

/* keys.c */
void key_drop_free_work(g16_engine *e, ekey *k);
void key_unload(g16_engine *e, ekey *k);
g16_err key_ensure(g16_engine *e, ekey *k, int *wait, g16_status *st);
ekey *key_find(g16_engine *e, uint64_t id);
void key_forget(g16_engine *e, ekey *k);

/* engine.c */
void job_free(job *j);
/* A job of n zeroed parts (job, idx and stats.worker set), or NULL. */
job *job_new(size_t n);
/* Submits a job made by job_new whose parts' sources were filled (ok = 0:
 * a copy ran out of memory: j is freed, NOMEM naming who): sets prio and
 * queues it (job_enqueue). */
g16_err job_submit(g16_engine *e, job *j, int ok, g16_priority prio, uint64_t key_id, int params, double timeout_ms,
                   uint64_t *job_id, const char *who);
g16_err job_enqueue(g16_engine *e, job *j, uint64_t key_id, int params, double timeout_ms, uint64_t *job_id);

/* assign.c */
uint64_t asg_part_bytes(const ekey *k, const part *p);
void asg_part_clear(g16_engine *e, part *p);
void asg_part_free(part *p);
g16_err asg_key_load(g16_engine *e, ekey *k, int *wait, g16_status *st);
void asg_synth(g16_engine *e, part *p, uint64_t bytes, int me);
g16_err asg_heavy(g16_engine *e, part *p, int worker, engine_heavy_info *hi, g16_status *st);
g16_err asg_finish(g16_engine *e, part *p, int verify, double *verify_ms, g16_status *st);
g16_err asg_result_json(const part *p, char **proof_json, char **public_json, g16_status *st);

/* threads.c */
void engine_tl(g16_engine *e, const char *ev, char ph, const part *p, const char *kind, int idx);
void *synth_main(void *arg);
void *worker_main(void *arg);
void *fin_main(void *arg);
int start_threads(g16_engine *e, pthread_t *th, int n, int *started, void *(*fn)(void *));
void engine_stop_threads(g16_engine *e);

/* metrics.c */
void hist_add(hist *h, double v);

#endif
