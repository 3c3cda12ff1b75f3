/* BLS12-381 Fr instance of the GPU NTT (ntt.cuh): domain tables from the CPU's
 * root constants (src/ntt/ntt_constants.h), transforms and the H step. */
#include "../../ntt/ntt_constants.h"
#include "ntt.cuh"

static const uint64_t bls381_roots[][4] = BLS381_FR_NTT_ROOTS;
static const uint64_t bls381_roots_inv[][4] = BLS381_FR_NTT_ROOTS_INV;
static const uint64_t bls381_inv2pow[][4] = BLS381_FR_NTT_INV_2POW;

g16_err g16gpu_ntt_domain_init_bls381(g16_gpu *g, g16_gpu_domain *d, g16_status *st) {
    return g16gpu::ntt_domain_init<g16gpu::bls381_fr>(g, d, bls381_roots, bls381_roots_inv, bls381_inv2pow,
                                                   BLS381_FR_NTT_S, st);
}
g16_err g16gpu_ntt_run_bls381(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind, int order,
                             const void *shift, g16_status *st) {
    return g16gpu::ntt_run<g16gpu::bls381_fr>(g, d, d_data, kind, order, shift, st);
}
g16_err g16gpu_h_run_bls381(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c, g16_scalar *d_h,
                           g16_status *st) {
    return g16gpu::ntt_h_run<g16gpu::bls381_fr>(g, d, d_a, d_b, d_c, d_h, st);
}
