/* BLS12-381 G2 instance of the GPU MSM, and the BLS12-381 Fp2 test hook. */
#include "msm.cuh"

g16_err g16gpu_msm_bls381_g2(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                            g16_status *st) {
    return g16gpu::msm_run<g16gpu::bls381_fp2>(g, out, b, density, k, n, 255, st);
}
g16_err g16gpu_table_bls381_g2(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st) {
    return g16gpu::msm_table_build<g16gpu::bls381_fp2>(g, b, c, 255, st);
}
g16_err g16gpu_msm_streamed_bls381_g2(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                     g16_status *st) {
    return g16gpu::msm_streamed_run<g16gpu::bls381_fp2>(g, out, hp, k, n, 255, st);
}
g16_err g16gpu_field_op_bls381_fp2(g16_gpu *g, g16_gpu_op op, void *out, const void *a, const void *b, size_t n,
                                  g16_status *st) {
    return g16gpu::field_op_run<g16gpu::bls381_fp2>(g, op, out, a, b, n, st);
}
