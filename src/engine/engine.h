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

#include "groth16/groth16.h"

typedef struct engine_backend {
    const char *name; /* "cpu", later "cuda" */
    void *self;
    /* Per-worker state, created once when the engine starts (never per
     * partition: no device-global calls in the per-partition path). */
    g16_err (*worker_init)(void *self, int worker, void **wstate, g16_status *st);
    void (*worker_fini)(void *self, void *wstate);
    /* Optional: prepares a key for the backend's fastest tier (on a GPU: the
     * one-time upload of the bases); NULL on the CPU. */
    g16_err (*key_prepare)(void *self, const g16_key *key, g16_status *st);
    /* The device stage of one synthesized partition (see groth16.h). */
    g16_err (*heavy)(void *self, void *wstate, g16_ctx *ctx, groth16_msms *out, groth16_work *work,
                     const g16_key *key, groth16_timings *tm, g16_status *st);
    void (*destroy)(void *self);
} engine_backend;

/* The CPU backend: workers share the context's thread pool. */
void engine_backend_cpu(engine_backend *be);

#endif
