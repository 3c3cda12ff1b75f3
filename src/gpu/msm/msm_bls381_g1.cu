/* BLS12-381 G1 instance of the GPU MSM, and the BLS12-381 Fp/Fr test hook
 * (one translation unit per group keeps nvcc's compile time in check). */
#include "msm.cuh"

g16_err g16gpu_msm_bls381_g1(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                            g16_status *st) {
    return g16gpu::msm_run<g16gpu::bls381_fp>(g, out, b, density, k, n, 255, st);
}
g16_err g16gpu_table_bls381_g1(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st) {
    return g16gpu::msm_table_build<g16gpu::bls381_fp>(g, b, c, 255, st);
}
g16_err g16gpu_msm_streamed_bls381_g1(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                     g16_status *st) {
    return g16gpu::msm_streamed_run<g16gpu::bls381_fp>(g, out, hp, k, n, 255, st);
}
g16_err g16gpu_field_op_bls381(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                              const void *b, size_t n, g16_status *st) {
    switch (f) {
    case G16_GPU_BLS381_FP: return g16gpu::field_op_run<g16gpu::bls381_fp>(g, op, out, a, b, n, st);
    case G16_GPU_BLS381_FR: return g16gpu::field_op_run<g16gpu::bls381_fr>(g, op, out, a, b, n, st);
    case G16_GPU_BLS381_FP2: return g16gpu_field_op_bls381_fp2(g, op, out, a, b, n, st);
    default: return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: not a BLS12-381 field");
    }
}
