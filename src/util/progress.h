/* Progress reporting (the library side of g16_progress_fn, g16.h).
 *
 * A g16_progress belongs to one call of a long operation (setup, synthesis,
 * a proof, a batch): it is made on the calling thread (its owner) with the
 * caller's callback. The owner names each stage with its total
 * (g16_progress_stage) and moves it on (g16_progress_at); pool tasks on
 * other threads may call g16_progress_at too, which does nothing there, so
 * that a task loop needs no test of its own: the callback always runs on
 * the owner, which takes its share of every g16_pool_run. Within a stage
 * the reported done never decreases and never exceeds total; calls between
 * stage boundaries are rate-limited (G16_PROGRESS_INTERVAL_MS), so they cost
 * one clock read on the owner per call and nothing on other threads: call
 * it per task or per chunk of points, never per point.
 *
 * A NULL g16_progress, or one without a callback, makes every function a
 * no-op. Nothing here changes what the operation computes. */
#ifndef G16_UTIL_PROGRESS_H
#define G16_UTIL_PROGRESS_H

#include <pthread.h>
#include <stdint.h>

#include "g16.h"

#define G16_PROGRESS_INTERVAL_MS 50.0

typedef struct g16_progress {
    g16_progress_fn fn; /* NULL: off */
    void *user;
    pthread_t owner;
    const char *stage;
    uint64_t total, done; /* of the current stage; done as last reported */
    double next_ms;       /* no rate-limited report before this */
} g16_progress;

/* Makes p for the calling thread (fn may be NULL: off). */
void g16_progress_init(g16_progress *p, g16_progress_fn fn, void *user);
/* 1 when p reports and the calling thread is its owner. */
int g16_progress_owner(const g16_progress *p);
/* Starts a stage (static name, total >= 1 units) and reports done = 0.
 * Owner only (a no-op elsewhere). */
void g16_progress_stage(g16_progress *p, const char *stage, uint64_t total);
/* The stage has done units (clamped to [last reported, total]): reported
 * when the interval has passed since the last report, or done = total.
 * A no-op on other threads than the owner. */
void g16_progress_at(g16_progress *p, uint64_t done);
/* Reports the stage complete (done = total). Owner only. */
void g16_progress_end(g16_progress *p);

#endif
