/* The device prover (prover.c): one object that runs a whole Groth16 proof,
 * synthesis -> heavy stage (GPU or CPU) -> finalize -> verify, with the
 * backend choice, the CPU fallback and the verify-and-retry policy in one
 * place. g16_prove / g16_prove_batch, `g16 prove`, `g16 bench prove
 * --backend cuda` run on it; the engine's CUDA workers use its heavy-stage
 * piece (groth16_stage_heavy_on) and keep their own scheduling.
 *
 * A prover serves one key. It owns, or borrows from the caller:
 *   - a GPU context (g16_gpu: stream, events, MSM scratch);
 *   - the key's device copy (groth16_gpu_key), which may belong to another
 *     context of the same device (a loader context; several provers and
 *     workers of one device share one), or none (bases streamed);
 *   - a device working area (groth16_gpu_work);
 *   - the host working area (groth16_work; pinned when on the GPU), or the
 *     key's own working area under the key's lock (g16_prove on the CPU).
 * Borrowed objects must outlive the prover and are not freed by it.
 *
 * Backends: CPU always proves on the CPU. CUDA proves on the GPU, and any
 * GPU failure is an error. AUTO takes the GPU when the build has CUDA, a
 * device is present and the domain is at least G16_PROVE_AUTO_GPU_MIN_DOMAIN
 * (g16.h; a borrowed context skips that test), else the CPU; under AUTO a
 * GPU set-up failure, a GPU stage failure, or a GPU proof that does not
 * verify is redone on the CPU and the prover stays there. Each choice and
 * fallback is said in a note (groth16_prover_info.note,
 * groth16_prove_report.note).
 *
 * Not thread-safe: one proof at a time per prover (one per worker). */
#ifndef G16_GROTH16_PROVER_H
#define G16_GROTH16_PROVER_H

#include "groth16.h"

struct g16_gpu;

/* ---- from prove.c ----------------------------------------------------------
 * The key's own working area (made on first use, the key prepared), held
 * under the key's lock until groth16_key_work_release: one proof at a time
 * per key. On an error the lock is not held. */
g16_err groth16_key_work_acquire(g16_ctx *ctx, g16_key *key, groth16_work **w, g16_status *st);
void groth16_key_work_release(g16_key *key);
/* Drops what a synthesis left in w (wipes the scalars, frees the public
 * signals): w is free again, as after a failed heavy stage. */
void groth16_work_discard(groth16_work *w);

/* ---- one heavy stage, on a device or on the CPU ----------------------------
 * dev NULL (or dev->g NULL): the CPU stage (groth16_stage_heavy), after
 * completing a ws-only synthesis on the CPU (groth16_work_synth_complete).
 * Else groth16_stage_heavy_gpu on dev's context, working area and device key
 * (gk NULL: streamed bases), after completing a ws-only synthesis on the CPU
 * when gk holds no coefficient rows. gtm may be NULL. On every failure the
 * work is left free and wiped (no witness data in it) and out is cleared. */
typedef struct groth16_heavy_dev {
    struct g16_gpu *g;
    groth16_gpu_work *gw;
    const groth16_gpu_key *gk;
} groth16_heavy_dev;
g16_err groth16_stage_heavy_on(g16_ctx *ctx, const groth16_heavy_dev *dev, groth16_msms *out, groth16_work *w,
                               const g16_key *key, groth16_timings *tm, groth16_gpu_timings *gtm, g16_status *st);

/* ---- the prover ------------------------------------------------------------ */
typedef struct groth16_prover groth16_prover;
typedef struct groth16_prove_report groth16_prove_report;

/* Events of groth16_prover_opts.event, in order per attempt: SYNTH after
 * synthesis, HEAVY after the heavy stage, DONE after finalize and verify;
 * FALLBACK when AUTO leaves the GPU (report->note says why) before the
 * proof is redone on the CPU. */
enum { GROTH16_PROVER_EV_SYNTH = 1, GROTH16_PROVER_EV_HEAVY, GROTH16_PROVER_EV_DONE, GROTH16_PROVER_EV_FALLBACK };

typedef struct groth16_prover_opts {
    g16_backend backend; /* G16_BACKEND_CPU / _CUDA / _AUTO */
    int verify;          /* 1: verify each proof (a failure is G16_ERR_INVALID_PROOF) */
    int device;          /* the GPU when the prover makes its own context */
    int stream_bases;    /* 1: no device key of its own: bases streamed from host memory */
    int pageable;        /* 1: the host working area in pageable memory (bench comparison) */
    size_t msm_max_points; /* own context: MSM capacity (0: the key's largest MSM); halved
                            * down to 2^20 while the device cannot hold it beside the key */
    struct g16_gpu *gpu;         /* borrowed context (then gpu_work may be borrowed too), or NULL */
    groth16_gpu_key *gpu_key;    /* borrowed device key (any context of the same device), or NULL */
    groth16_gpu_work *gpu_work;  /* borrowed device working area (made through gpu), or NULL */
    int use_key_work;    /* CPU: prove on the key's own working area, under its lock */
    int defer_host_work; /* 1: the host working area is made by groth16_prover_host_work or the first proof */
    /* Optional progress callback (on the proving thread). */
    void (*event)(void *user, int ev, const groth16_prove_report *r);
    void *event_user;
    /* Optional progress of each proof (g16.h's g16_progress_fn, on the
     * proving thread): stages "synthesis" (1 unit), then on the CPU "ntt"
     * (4) and "msm" (G1-point units, a G2 point counting 3), on the GPU
     * "gpu" (1); "verify" (1) when verifying. A fallback to the CPU starts
     * the stages again. */
    g16_progress_fn progress;
    void *progress_user;
} groth16_prover_opts;

/* Defaults: AUTO, verify on, device 0, everything else off. */
void groth16_prover_opts_init(groth16_prover_opts *o);

/* What the set-up did (groth16_prover_get_info). */
typedef struct groth16_prover_info {
    g16_backend backend;  /* CPU or CUDA: where the next proof runs */
    char note[256];       /* why (e.g. "auto: no usable GPU"), "" when as asked */
    double gpu_create_ms, key_upload_ms, gpu_work_ms, host_work_ms;
    size_t msm_points;    /* the context's MSM capacity (0 on the CPU) */
    int key_owned;        /* the prover uploaded the device key itself */
} groth16_prover_info;

/* One proof's account (groth16_prover_prove). */
struct groth16_prove_report {
    g16_backend backend;   /* CPU or CUDA: what made the proof */
    char note[256];        /* the choice and every fallback of this proof ("" if as asked) */
    int gpu_synth;         /* a, b, c were computed on the GPU */
    groth16_timings tm;    /* the stages' own timings (as groth16_stage_* add them) */
    groth16_gpu_timings gtm; /* the GPU stage's (zero on the CPU) */
    /* Host wall clock of the last attempt's stages, and of the whole call. */
    double synth_ms, heavy_ms, finalize_ms, verify_ms, total_ms;
};

/* Creates a prover for key on ctx (both must outlive it). Sets up the GPU
 * per o->backend (see above): own context sized for the key (with the
 * halving retry), the device key uploaded (with its coefficient rows:
 * GPU synthesis) unless borrowed or streamed, the device working area; and
 * the host working area unless deferred. Errors: CUDA's set-up failure
 * (G16_ERR_NO_DEVICE without a GPU, G16_ERR_DEVICE, G16_ERR_NOMEM), NOMEM,
 * the key's preparation (groth16_key_prepare). */
g16_err groth16_prover_create(g16_ctx *ctx, groth16_prover **out, g16_key *key, const groth16_prover_opts *o,
                              g16_status *st);
void groth16_prover_free(groth16_prover *p);
/* Makes the host working area now (if not yet made). */
g16_err groth16_prover_host_work(groth16_prover *p, g16_status *st);

/* Runs one proof: the witness w, or (w NULL) the .wtns at wtns_path, read
 * straight into the working area for a GPU synthesis or loaded otherwise.
 * r_le/s_le: NULL for fresh r, s from the OS CSPRNG, else tests' fixed
 * values (g16_testing.h). report may be NULL. On success *out is the proof
 * (verified when o->verify); on failure *out is NULL and st has the
 * reason: G16_ERR_INVALID_PROOF when the proof does not verify (a witness
 * of another circuit with the right length), the stages' errors otherwise. */
g16_err groth16_prover_prove(groth16_prover *p, g16_result **out, const g16_witness *w, const char *wtns_path,
                             const uint8_t *r_le, const uint8_t *s_le, groth16_prove_report *report,
                             g16_status *st);

void groth16_prover_get_info(const groth16_prover *p, groth16_prover_info *info);
/* The GPU objects in use (NULL on the CPU), and the host working area (NULL
 * before it is made, or while the key's own is used). Borrowed. */
struct g16_gpu *groth16_prover_gpu(const groth16_prover *p);
groth16_gpu_key *groth16_prover_gpu_key(const groth16_prover *p);
groth16_gpu_work *groth16_prover_gpu_work(const groth16_prover *p);
const groth16_work *groth16_prover_work(const groth16_prover *p);

#endif
