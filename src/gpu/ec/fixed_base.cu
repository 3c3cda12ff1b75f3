/* GPU fixed-base multiplication: the extern "C" entry of gpu.h, dispatching
 * to the per-curve instances (fixed_base_<curve>_<group>.cu). */
#include "fixed_base.cuh"

extern "C" g16_err g16_gpu_fixed_base(g16_gpu *g, g16_curve curve, g16_gpu_group group, const void *base,
                                      const g16_scalar *k, size_t n, void *out, g16_status *st) {
    if (!g || !base || (n && (!k || !out)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fixed base: NULL argument");
    if (group == G16_GPU_G1)
        return curve == G16_CURVE_BN254 ? g16gpu_fixed_base_bn254_g1(g, base, k, n, out, st)
                                        : g16gpu_fixed_base_bls381_g1(g, base, k, n, out, st);
    if (group == G16_GPU_G2)
        return curve == G16_CURVE_BN254 ? g16gpu_fixed_base_bn254_g2(g, base, k, n, out, st)
                                        : g16gpu_fixed_base_bls381_g2(g, base, k, n, out, st);
    return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fixed base: bad group %d", (int)group);
}
