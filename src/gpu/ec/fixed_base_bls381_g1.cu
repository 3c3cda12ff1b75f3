/* bls381 G1 instance of the GPU fixed-base multiplication (fixed_base.cuh);
 * one translation unit per group keeps nvcc's compile time in check. */
#include "fixed_base.cuh"

g16_err g16gpu_fixed_base_bls381_g1(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                    g16_status *st) {
    return g16gpu::fixed_base_run<g16gpu::bls381_fp>(g, base, k, n, out, st);
}
