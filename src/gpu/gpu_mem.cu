/* GPU backend: device memset and pinned host memory (gpu.h), for the
 * prover's per-worker buffers (src/groth16/prove_gpu.c). */
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
