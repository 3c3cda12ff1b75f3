/* g16_gpu_fixed_base in a build without CUDA (gpu.h): no device. */
#include "../gpu.h"

g16_err g16_gpu_fixed_base(g16_gpu *g, g16_curve curve, g16_gpu_group group, const void *base,
                           const g16_scalar *k, size_t n, void *out, g16_status *st) {
    (void)g, (void)curve, (void)group, (void)base, (void)k, (void)n, (void)out;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}
