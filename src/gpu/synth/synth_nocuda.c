/* GPU synthesis (gpu_synth.h) in a build without CUDA: G16_ERR_NO_DEVICE. */
#include "../gpu_synth.h"

size_t g16_gpu_synth_bytes(uint32_t n, uint32_t nnz) {
    return (2 * ((size_t)n + 1) + nnz) * 4 + (size_t)nnz * 32 + 64;
}

g16_err g16_gpu_synth_upload(g16_gpu *g, g16_gpu_synth **out, g16_curve curve, uint32_t n, uint32_t nv,
                             const uint32_t *row_a, const uint32_t *row_b, uint32_t nnz, const uint32_t *signal,
                             const void *coef, g16_status *st) {
    (void)g, (void)curve, (void)n, (void)nv, (void)row_a, (void)row_b, (void)nnz, (void)signal, (void)coef;
    if (out)
        *out = NULL;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

void g16_gpu_synth_free(g16_gpu *g, g16_gpu_synth *s) { (void)g, (void)s; }

g16_err g16_gpu_synth_dev(g16_gpu *g, const g16_gpu_synth *s, const g16_scalar *d_ws, uint32_t nv, void *d_w,
                          void *d_a, void *d_b, void *d_c, g16_status *st) {
    (void)g, (void)s, (void)d_ws, (void)nv, (void)d_w, (void)d_a, (void)d_b, (void)d_c;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}
