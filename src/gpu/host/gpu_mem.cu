/* GPU backend: device memset, pinned host memory and timing events (gpu.h),
 * for the prover's per-worker buffers (src/groth16/prove_gpu.c). A
 * g16_gpu_event is a cudaEvent_t (a pointer type) under another name. */
#include "gpu_internal.cuh"

static g16_err gpu_memset(g16_gpu *g, void *d_ptr, int value, size_t bytes, g16_status *st) {
    CU(cudaSetDevice(g->device));
    if (bytes)
        CU(cudaMemsetAsync(d_ptr, value, bytes, g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_memset_async(g16_gpu *g, void *d_ptr, int value, size_t bytes, g16_status *st) {
    if (!g || (bytes && !d_ptr))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu memset: NULL argument");
    return gpu_memset(g, d_ptr, value, bytes, st);
}

static g16_err host_alloc(void **p, size_t bytes, g16_status *st) {
    CU(cudaHostAlloc(p, bytes ? bytes : 16, cudaHostAllocPortable));
    return G16_OK;
}

extern "C" g16_err g16_gpu_host_alloc(void **p, size_t bytes, g16_status *st) {
    if (!p)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu host alloc: NULL argument");
    *p = NULL;
    g16_err rc = host_alloc(p, bytes, st);
    if (rc != G16_OK) {
        *p = NULL;
        (void)cudaGetLastError(); /* clear a sticky allocation error */
        if (rc == G16_ERR_DEVICE && g16_gpu_count() == 0) {
            rc = G16_ERR_NO_DEVICE;
            if (st)
                st->code = rc;
        }
    }
    return rc;
}

extern "C" void g16_gpu_host_free(void *p) {
    if (p)
        cudaFreeHost(p);
}

static g16_err event_create(g16_gpu *g, g16_gpu_event **ev, g16_status *st) {
    cudaEvent_t e;
    CU(cudaSetDevice(g->device));
    CU(cudaEventCreate(&e));
    *ev = (g16_gpu_event *)e;
    return G16_OK;
}

extern "C" g16_err g16_gpu_event_create(g16_gpu *g, g16_gpu_event **ev, g16_status *st) {
    if (!g || !ev)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu event: NULL argument");
    *ev = NULL;
    return event_create(g, ev, st);
}

extern "C" void g16_gpu_event_destroy(g16_gpu *g, g16_gpu_event *ev) {
    if (!ev)
        return;
    if (g)
        cudaSetDevice(g->device);
    cudaEventDestroy((cudaEvent_t)ev);
}

static g16_err event_record(g16_gpu *g, g16_gpu_event *ev, g16_status *st) {
    CU(cudaEventRecord((cudaEvent_t)ev, g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_event_record(g16_gpu *g, g16_gpu_event *ev, g16_status *st) {
    if (!g || !ev)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu event: NULL argument");
    return event_record(g, ev, st);
}

static g16_err event_elapsed(float *ms, g16_gpu_event *from, g16_gpu_event *to, g16_status *st) {
    CU(cudaEventSynchronize((cudaEvent_t)to));
    CU(cudaEventElapsedTime(ms, (cudaEvent_t)from, (cudaEvent_t)to));
    return G16_OK;
}

extern "C" g16_err g16_gpu_event_elapsed(float *ms, g16_gpu_event *from, g16_gpu_event *to, g16_status *st) {
    if (!ms || !from || !to)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu event: NULL argument");
    *ms = 0;
    return event_elapsed(ms, from, to, st);
}

static g16_err event_wait(g16_gpu_event *ev, g16_status *st) {
    CU(cudaEventSynchronize((cudaEvent_t)ev));
    return G16_OK;
}

extern "C" g16_err g16_gpu_event_wait(g16_gpu_event *ev, g16_status *st) {
    if (!ev)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu event: NULL argument");
    return event_wait(ev, st);
}
