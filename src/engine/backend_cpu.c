/* The CPU backend of the engine: the heavy stage on the context's thread pool
 * (engine_backend, engine.h). */
#include <string.h>

#include "engine_internal.h"

static g16_err cpu_worker_init(void *self, int worker, void **wstate, g16_status *st) {
    (void)self, (void)worker, (void)st;
    *wstate = NULL;
    return G16_OK;
}
static void cpu_worker_fini(void *self, void *wstate) { (void)self, (void)wstate; }
static int cpu_worker_device(void *self, int worker) {
    (void)self, (void)worker;
    return 0;
}
static g16_err cpu_heavy(void *self, void *wstate, g16_ctx *ctx, groth16_msms *out, groth16_work *work,
                         const g16_key *key, groth16_timings *tm, engine_heavy_info *hi, g16_status *st) {
    (void)self, (void)wstate, (void)hi;
    return groth16_stage_heavy(ctx, out, work, key, tm, st);
}
static void cpu_destroy(void *self) { (void)self; }

void engine_backend_cpu(engine_backend *be) {
    memset(be, 0, sizeof *be);
    be->name = "cpu";
    be->devices = 1;
    be->worker_init = cpu_worker_init;
    be->worker_device = cpu_worker_device;
    be->worker_fini = cpu_worker_fini;
    be->heavy = cpu_heavy;
    be->destroy = cpu_destroy;
}
