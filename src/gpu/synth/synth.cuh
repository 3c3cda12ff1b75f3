/* GPU synthesis over Fr (BN254, BLS12-381): a = A.w, b = B.w, c = a*b on the
 * domain, as a sparse matrix-vector product over the key's coefficient rows
 * (the CSR that src/groth16/prove.c builds per key: groth16_prep). Contract:
 * src/gpu/gpu_synth.h. Templated over the field type F = fp_t<cfg>
 * (field.cuh), the same type and Montgomery form as the CPU's Fr, so the
 * results are bit for bit the CPU's (PN(synth_task) in prove_impl.h).
 *
 *   w[i]   = ws[i] * R^2 * R^-1 = ws[i] R        (to Montgomery form; ws < r)
 *   a[row] = sum_{e in [row_a[row], row_a[row+1])} coef[e] * w[signal[e]]
 *   b[row] = the same over row_b (indices into the same signal/coef arrays)
 *   c[row] = a[row] * b[row]
 * The sums run in the CPU's order (e ascending); field addition is exact, so
 * the order does not change the result, but keeping it costs nothing.
 *
 * The per-element functions are __host__ __device__: tests/gpu/synth_emul.cpp
 * runs them with plain g++ against the CPU synthesis. One thread per row
 * (grid-stride): the rows of a circuit are short (a few entries), so the
 * product is bound by the reads of coef (32 B per entry) and w. */
#ifndef G16_GPU_SYNTH_CUH
#define G16_GPU_SYNTH_CUH

#include <stdint.h>

#include "../ff/field.cuh"

namespace g16gpu {

/* One row's sum: coef[e] * w[signal[e]] for e in [lo, hi). */
template <class F>
G16_HD F synth_dot(uint32_t lo, uint32_t hi, const uint32_t *signal, const F *coef, const F *w) {
    F acc = F::zero();
    for (uint32_t e = lo; e < hi; e++)
        acc += coef[e] * w[signal[e]];
    return acc;
}

/* Row r of both matrices and their product; row_a[n] == row_b[0]. */
template <class F>
G16_HD void synth_row(uint32_t r, const uint32_t *row_a, const uint32_t *row_b, const uint32_t *signal,
                      const F *coef, const F *w, F *a, F *b, F *c) {
    F x = synth_dot<F>(row_a[r], row_a[r + 1], signal, coef, w);
    F y = synth_dot<F>(row_b[r], row_b[r + 1], signal, coef, w);
    a[r] = x;
    b[r] = y;
    c[r] = x * y;
}

/* A canonical scalar (< r, 8 little-endian 32-bit limbs) into Montgomery
 * form: the Montgomery product with R^2 mod r. */
template <class F> G16_HD F synth_to_mont(const F &ws, const F &r2) { return ws * r2; }

#ifdef __CUDACC__
template <class F> __global__ void synth_to_mont_kernel(const F *ws, F *w, F r2, uint32_t nv) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += gridDim.x * blockDim.x)
        w[i] = synth_to_mont<F>(ws[i], r2);
}

template <class F>
__global__ void synth_rows_kernel(const uint32_t *row_a, const uint32_t *row_b, const uint32_t *signal, const F *coef,
                                  const F *w, F *a, F *b, F *c, uint32_t n) {
    for (uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x)
        synth_row<F>(r, row_a, row_b, signal, coef, w, a, b, c);
}
#endif

} /* namespace g16gpu */

#endif
