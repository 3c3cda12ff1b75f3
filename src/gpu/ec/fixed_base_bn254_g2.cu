/* bn254 G2 instance of the GPU fixed-base multiplication (fixed_base.cuh);
 * one translation unit per group keeps nvcc's compile time in check. */
#include "fixed_base.cuh"

g16_err g16gpu_fixed_base_bn254_g2(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                   g16_status *st) {
    return g16gpu::fixed_base_run<g16gpu::bn254_fp2>(g, base, k, n, out, st);
}
