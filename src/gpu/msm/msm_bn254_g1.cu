/* BN254 G1 instance of the GPU MSM, and the BN254 Fp/Fr test hook
 * (one translation unit per group keeps nvcc's compile time in check). */
#include "msm.cuh"

g16_err g16gpu_msm_bn254_g1(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                            g16_status *st) {
    return g16gpu::msm_run<g16gpu::bn254_fp>(g, out, b, density, k, n, 254, st);
}
g16_err g16gpu_table_bn254_g1(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st) {
    return g16gpu::msm_table_build<g16gpu::bn254_fp>(g, b, c, 254, st);
}
g16_err g16gpu_msm_streamed_bn254_g1(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                     g16_status *st) {
    return g16gpu::msm_streamed_run<g16gpu::bn254_fp>(g, out, hp, k, n, 254, st);
}
g16_err g16gpu_field_op_bn254(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                              const void *b, size_t n, g16_status *st) {
    switch (f) {
    case G16_GPU_BN254_FP: return g16gpu::field_op_run<g16gpu::bn254_fp>(g, op, out, a, b, n, st);
    case G16_GPU_BN254_FR: return g16gpu::field_op_run<g16gpu::bn254_fr>(g, op, out, a, b, n, st);
    case G16_GPU_BN254_FP2: return g16gpu_field_op_bn254_fp2(g, op, out, a, b, n, st);
    default: return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: not a BN254 field");
    }
}
