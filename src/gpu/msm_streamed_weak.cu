/* A stand-in for g16_gpu_msm_streamed (gpu.h) until the streamed MSM (the
 * "gpumsm" work: double-buffered chunks of bases from host memory) is in the
 * tree: a WEAK definition, so that the real one, wherever it is defined,
 * replaces it at link time. It uploads the bases into a temporary device
 * buffer (a cudaMalloc per call: not for the proving path's steady state),
 * runs g16_gpu_msm and frees the buffer, so its result is the resident
 * MSM's. Delete this file once the real one has landed. */
#include "gpu_internal.cuh"

extern "C" __attribute__((weak)) g16_err g16_gpu_msm_streamed(g16_gpu *g, void *out_jac, g16_curve curve,
                                                             g16_gpu_group group, const void *host_points,
                                                             const g16_scalar *scalars, size_t n,
                                                             g16_gpu_timing *timing, g16_status *st) {
    g16_gpu_bases *b = NULL;
    g16_err rc = g16_gpu_bases_upload(g, &b, curve, group, host_points, n, st);
    if (rc != G16_OK)
        return rc;
    rc = g16_gpu_msm(g, out_jac, b, scalars, n, timing, st);
    g16_gpu_bases_free(g, b);
    return rc;
}
