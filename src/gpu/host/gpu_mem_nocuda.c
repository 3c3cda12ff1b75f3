/* device memset and pinned host memory (gpu.h) in a build without CUDA:
 * G16_ERR_NO_DEVICE (callers of g16_gpu_host_alloc fall back to malloc). */
#include "../gpu.h"

static g16_err no_device(g16_status *st) {
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_memset_async(g16_gpu *g, void *d_ptr, int value, size_t bytes, g16_status *st) {
    (void)g, (void)d_ptr, (void)value, (void)bytes;
    return no_device(st);
}

g16_err g16_gpu_host_alloc(void **p, size_t bytes, g16_status *st) {
    (void)bytes;
    if (p)
        *p = NULL;
    return no_device(st);
}

void g16_gpu_host_free(void *p) { (void)p; }

g16_err g16_gpu_event_create(g16_gpu *g, g16_gpu_event **ev, g16_status *st) {
    (void)g;
    if (ev)
        *ev = NULL;
    return no_device(st);
}

void g16_gpu_event_destroy(g16_gpu *g, g16_gpu_event *ev) { (void)g, (void)ev; }

g16_err g16_gpu_event_record(g16_gpu *g, g16_gpu_event *ev, g16_status *st) {
    (void)g, (void)ev;
    return no_device(st);
}

g16_err g16_gpu_event_elapsed(float *ms, g16_gpu_event *from, g16_gpu_event *to, g16_status *st) {
    (void)from, (void)to;
    if (ms)
        *ms = 0;
    return no_device(st);
}

g16_err g16_gpu_event_wait(g16_gpu_event *ev, g16_status *st) {
    (void)ev;
    return no_device(st);
}
