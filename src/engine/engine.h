/* engine layer: key manager, scheduler, partition pipeline, device workers,
 * metrics (public API: the "engine" section of include/g16.h; design in
 * docs/engine.md).
 *
 * The device stage runs behind a small backend vtable, so that a CUDA
 * backend can plug in later without the engine including CUDA headers. A
 * backend owns per-worker state (on a GPU: the worker's stream, events and
 * pre-sized device working area, all created once in worker_init) and runs
 * the heavy stage of one partition: the three odd-coset NTTs, h and the
 * MSMs. Everything else (synthesis, finalize, verify) stays on the CPU. */
#ifndef G16_ENGINE_H
#define G16_ENGINE_H

#include "groth16/assignment.h"
#include "groth16/groth16.h"
#include "util/config.h"

/* The parts of a GPU stage's kernel time (engine_heavy_info.stage_gpu_ms),
 * named as in the metric g16_device_stage_gpu_ms_total{stage=...}. */
#define ENGINE_GPU_STAGES 6
#define ENGINE_GPU_STAGE_NAMES {"synth_h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h"}

/* What a heavy stage reports beside the MSM sums. */
typedef struct engine_heavy_info {
    double upload_ms;  /* host -> device copies of a, b, c, w (0 on the CPU) */
    double gpu_ms;     /* first copy to last result on the device, less the
                        * wait for the kernel mutex (0 on the CPU) */
    /* Host clock (g16_now_ms) of the upload (copies queued .. seen done) and
     * of the kernel section (H queued, under the device's kernel mutex
     * when kernel exclusivity is on, off by default, .. last MSM sum on the host); all 0 on
     * the CPU and when the stage failed before reaching them. */
    double upload_begin, upload_end, kernels_begin, kernels_end;
    double lock_wait_ms; /* waiting for the device's kernel mutex */
    double kernel_gpu_ms; /* CUDA-event time of the kernel section's work (GPU
                           * synthesis, H, the five MSMs); kernels_end -
                           * kernels_begin less this = the host's gaps
                           * between them (Horner sums, launches, waking up) */
    double stage_gpu_ms[6]; /* its parts (CUDA events; ENGINE_GPU_STAGE_NAMES):
                             * synthesis + H, MSMs A, B1, B2, C, H */
    size_t msm_points; /* the worker's MSM capacity (larger MSMs ran in
                        * chunks of it; 0 on the CPU) */
    const char *msm_note; /* NULL, or why that capacity is below the key's
                           * MSM size (valid until the worker's next stage) */
    int streamed;      /* the bases were streamed from host memory */
    int cpu_fallback;  /* a GPU worker ran it on the CPU (no device working
                        * area, or its device was taken out of service) */
    int device_failed; /* this stage failed on the device: the device is now
                        * out of service (its workers run the CPU stage) */
    int retry_elsewhere; /* with an error: this worker cannot run the key's
                          * partitions (no device working area beside an
                          * in-memory key that has no host bases, so no CPU
                          * fallback) and left the work untouched: the engine
                          * hands the partition to another worker and retires
                          * this one, or fails it when no other is left */
} engine_heavy_info;

typedef struct engine_backend {
    const char *name; /* "cpu" or "cuda" */
    void *self;
    int devices;      /* devices the workers spread over (1 on the CPU) */
    unsigned work_flags; /* groth16_work_create_ex flags of the host working areas */
    /* Per-worker state, created once when the engine starts (never per
     * partition: no device-global calls in the per-partition path). */
    g16_err (*worker_init)(void *self, int worker, void **wstate, g16_status *st);
    void (*worker_fini)(void *self, void *wstate);
    /* The device a worker runs on (0 .. devices-1). */
    int (*worker_device)(void *self, int worker);
    /* Optional (NULL on the CPU): bytes that one key's bases take on one
     * device, and one worker's device working area for the key's shape. */
    size_t (*key_device_bytes)(void *self, const g16_key *key);
    size_t (*work_device_bytes)(void *self, const g16_key *key);
    /* Optional (with key_device_bytes): one worker's MSM context (device
     * scratch) sized for key's MSMs; a worker's context grows to the
     * largest key it served and is kept. work_cache: device working areas a
     * worker keeps, one per key shape (0 = 1). The device budget counts,
     * per worker, the largest context plus the work_cache largest working
     * areas of the key shapes loaded so far (docs/engine.md). */
    size_t (*ctx_device_bytes)(void *self, const g16_key *key);
    int work_cache;
    /* Optional: prepares a loaded key. to_device & 1: upload its bases to
     * every device (the GPU tier); *on_device says whether that happened (a
     * failed upload leaves the key on the streamed path, not failed);
     * to_device & 2 as well: give them window tables (key_table_bytes were
     * reserved for them; tables that cannot be made are not an error).
     * to_device = 0: the bases are streamed from host memory per MSM. */
    g16_err (*key_prepare)(void *self, const g16_key *key, int to_device, int *on_device, g16_status *st);
    /* Optional (with key_device_bytes; NULL or 0: no tables): device bytes
     * that window tables of a key's bases add to key_device_bytes, and how
     * many of its base sets have one now (the status's "gpu_tables"). */
    size_t (*key_table_bytes)(void *self, const g16_key *key);
    int (*key_tables)(void *self, const g16_key *key);
    /* Optional (with key_device_bytes): the device bytes key's copies take
     * after key_prepare, on the device where they take the most (0:
     * unknown). The engine's reservation (key_device_bytes, and the tables'
     * bytes) is an upper bound; it gives back what this says is unused. */
    size_t (*key_device_used)(void *self, const g16_key *key);
    /* Optional: key's coefficient rows were built after key_prepare (a key
     * loaded with GROTH16_KEY_DEFER_PREP, prepared once its host bases were
     * released): uploads them beside the bases on every device when each
     * has room for them and for its workers' areas, so that synth_flags
     * turns to GPU synthesis. Returns the device bytes added on each device
     * (0: none, the CPU keeps synthesizing). */
    size_t (*key_rows)(void *self, const g16_key *key);
    /* Optional: the key is about to be unloaded (no partition uses it):
     * frees its device copies. */
    void (*key_release)(void *self, const g16_key *key);
    /* The device stage of one synthesized partition (see groth16.h). */
    g16_err (*heavy)(void *self, void *wstate, g16_ctx *ctx, groth16_msms *out, groth16_work *work,
                     const g16_key *key, groth16_timings *tm, engine_heavy_info *hi, g16_status *st);
    /* Optional (NULL: 0): the groth16_stage_synth_ex flags for key's
     * partitions: GROTH16_SYNTH_WS_ONLY when every device holds the key's
     * coefficient rows (the GPU computes a, b, c); heavy then completes a
     * ws-only synthesis on the CPU itself when it falls back. */
    unsigned (*synth_flags)(void *self, const g16_key *key);
    /* Optional (NULL: g16_params_heavy_cpu on the engine's context): the
     * device stage of one assignment partition of a .params key, checked at
     * synthesis; who names it in messages. A GPU backend uploads the key's
     * bases to the worker's device at its first partition there (and frees
     * them in params_release) and sets hi->cpu_fallback when the partition
     * ran on the CPU instead (no room on the device, device out of service). */
    g16_err (*params_heavy)(void *self, void *wstate, g16_ctx *ctx, g16_params_msms *out, const g16_params_key *key,
                            const g16_assignment *as, const char *who, engine_heavy_info *hi, g16_status *st);
    /* Optional: the .params key is about to be unloaded (no partition uses
     * it): frees its device copies. */
    void (*params_release)(void *self, const g16_params_key *key);
    void (*destroy)(void *self);
} engine_backend;

/* The CPU backend: workers share the context's thread pool. */
void engine_backend_cpu(engine_backend *be);

/* g16_engine_create over the given backend (copied; its destroy is called
 * at g16_engine_destroy) instead of one chosen by opts->backend: a seam for
 * tests, e.g. a CPU backend that reports device bytes, so that the device
 * budget is exercised without a GPU (tests/test_engine.c). Workers:
 * be->devices x workers_per_device (default 2). */
g16_err engine_create_with_backend(g16_ctx *ctx, g16_engine **out, const g16_engine_opts *opts,
                                   const engine_backend *be);

/* The CUDA backend over the first `devices` GPUs (0 = all), with
 * workers_per_device workers each (tables: g16_engine_opts.gpu_tables): one
 * g16_gpu context per worker, created
 * at the first partition of a key shape that outgrows it (never per
 * partition), its groth16_gpu_work cached; each key's bases uploaded once
 * per device (through a per-device loader context) and shared by that
 * device's workers; keys that do not fit stream their bases.
 * G16_ERR_NO_DEVICE without a usable GPU (and always in a build without
 * CUDA). */
g16_err engine_backend_cuda(engine_backend *be, int devices, int workers_per_device, int tables,
                            const g16_config *cfg, g16_status *st);

/* Parses a Linux CPU list ("0-15,32-47\n", as sysfs's local_cpulist) into
 * mask (CPU c: bit c % 8 of byte c / 8; CPUs beyond 8 * mask_len ignored);
 * returns how many CPUs it set, or -1 for a malformed list. Used by the CUDA
 * backend's G16_ENGINE_PIN=1. */
int engine_cpulist_parse(const char *s, unsigned char *mask, size_t mask_len);

/* Registers an already loaded key (in memory: no file to reload it from),
 * owned by the engine from this call on, whatever it returns (on failure
 * it is freed); make it own the bytes it was loaded over with
 * groth16_key_adopt_mem. Such a key is never evicted: not by the LRU of
 * the host budget or of the device budget, and g16_engine_key_evict
 * refuses it (G16_ERR_INVALID_ARG); g16_engine_key_remove (last
 * reference) or g16_engine_destroy frees it. Its bytes count against the
 * budget (tier "host", "in_memory":true in the status JSON); G16_ERR_NOMEM
 * when the budget cannot hold it beside the idle keys it may evict.
 * On a GPU backend that holds it on every device its host bases are
 * released (groth16_key_drop_host), then its rows are built if it was
 * loaded with GROTH16_KEY_DEFER_PREP and the coefficient section is
 * released: it stays pinned on the devices, its partitions cannot fall
 * back to the CPU heavy stage, and its working areas leave out that
 * stage's buffers. On the CPU backend (or when the upload failed and the
 * bases are streamed) the key stays whole (rows built if deferred).
 * Public name proposed: g16_engine_key_add_loaded. */
g16_err engine_key_add_loaded(g16_engine *e, uint64_t *key_id, g16_key *key, const char *name);

/* g16_engine_submit with flags: ENGINE_SUBMIT_BORROW takes the witnesses'
 * .wtns bytes (data, len) without copying them: they must stay valid and
 * unchanged until the job is finished (g16_engine_wait), and are never
 * wiped (a 2^27 witness is 4.3 GB; a benchmark submits the same ones again
 * and again). Public name proposed: g16_engine_submit_ex. */
enum { ENGINE_SUBMIT_BORROW = 1 };
g16_err engine_submit_ex(g16_engine *e, uint64_t *job_id, uint64_t key_id, const g16_engine_witness *w, size_t n,
                         g16_priority prio, double timeout_ms, unsigned flags);

/* Makes working areas for key (loading it first if needed) until it has n,
 * as far as the budget allows while leaving room for synth_threads parsed
 * witnesses, never evicting anything; *made (may be NULL) says how many
 * were made. With the CUDA backend each area is a pinned cudaHostAlloc, a
 * device-global call: made at start-up instead of under load, none stalls
 * the workers of every device (docs/engine.md, "Scaling over devices").
 * Areas are otherwise made on demand by the synthesis threads. Public name
 * proposed: g16_engine_key_reserve_work. */
g16_err engine_key_reserve_work(g16_engine *e, uint64_t key_id, uint32_t n, uint32_t *made);

/* Test hook: while held, device workers start no partition (synthesized
 * ones wait in the ready heap, up to the lookahead), so that a test can
 * queue a full pipeline and then release it at once. */
void engine_hold_workers(g16_engine *e, int hold);
/* Test hook: workers whose bit is set in mask answer every partition as a
 * backend that cannot hold it (engine_heavy_info.retry_elsewhere), without
 * running it. */
void engine_test_refuse_workers(g16_engine *e, uint32_t mask);
/* Test hook: the idle working areas of every key whose witness-derived
 * regions are not all zero bytes (groth16_work_test_wiped); *checked (may
 * be NULL) = the areas inspected. */
size_t engine_test_work_unwiped(g16_engine *e, size_t *checked);

/* ---- timeline analysis (timeline.c) ----------------------------------------
 * The CUDA backend's "upload" and "kernels" events of a timeline file
 * (g16_engine_opts.timeline_path) as spans, and how they overlap: what
 * `g16 bench engine` reports and test_engine_gpu checks. */
typedef struct engine_span {
    double b, e;   /* ms since the engine's start, b <= e */
    int worker, dev;
    uint64_t job;
    uint32_t part;
} engine_span;

#define ENGINE_OVERLAP_MAXDEV 16
typedef struct engine_overlap {
    double upload_ms;         /* the upload spans' lengths, summed */
    double upload_overlap_ms; /* of it: time during which another worker of
                               * the same device was inside a kernel span */
    double kernel_busy_fraction; /* per device: the union of its kernel spans
                                  * over wall_ms; averaged over the devices */
    double dev_kernel_busy[ENGINE_OVERLAP_MAXDEV]; /* that fraction of each
                                                    * device (the first 16) */
    size_t kernel_conflicts;  /* pairs of kernel spans of one device from
                               * different workers that overlap (by more
                               * than a point) */
} engine_overlap;

/* Computes r over the upload spans up and kernel spans kn of devices
 * 0 .. ndev-1 (spans of other devices are ignored), with wall_ms the
 * measured wall time (0: kernel_busy_fraction 0). G16_ERR_NOMEM only. */
g16_err engine_overlap_compute(engine_overlap *r, const engine_span *up, size_t nup, const engine_span *kn,
                               size_t nk, int ndev, double wall_ms, g16_status *st);

/* Reads the upload and kernel spans of the jobs with id >= min_job from a
 * timeline file (B and E matched by event, job, partition and worker;
 * unmatched events and other lines skipped). *up and *kn are malloc'd
 * (free them; NULL when empty). */
g16_err engine_tl_read(const char *path, uint64_t min_job, engine_span **up, size_t *nup, engine_span **kn,
                       size_t *nk, g16_status *st);

#endif
