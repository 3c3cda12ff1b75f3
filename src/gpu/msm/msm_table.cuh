/* GPU MSM (msm.cuh): precomputed window tables over the bases (the kernel
 * that fills them, their build, and whether an MSM over one fits the
 * context's scratch). */
#ifndef G16_GPU_MSM_TABLE_CUH
#define G16_GPU_MSM_TABLE_CUH

#include "msm_buckets.cuh"

namespace g16gpu {

/* A precomputed table over the bases (see the top): windows multiples per
 * base, window w of base i at w*stride + i. */
struct msm_table {
    int c, windows;
    size_t stride;
};

/* Whether g's scratch holds an MSM over a table of plan pt: nbig scalars
 * with digits in every window, n1 ones, one set of pt.nb buckets. */
static inline bool table_fits(const g16_gpu *g, const g16gpu_msm_plan &pt, size_t nbig, size_t n1) {
    size_t mt = nbig * (size_t)pt.windows + n1;
    return mt <= g->max_entries && pt.nb <= g->max_buckets && (mt + g->seg_len - 1) / g->seg_len <= g->max_segs &&
           2 * (size_t)pt.nb / pt.chunk <= g->max_red;
}

/* The table kernel's inverse: the binary one (fp_t::inv_vartime; the bases
 * are public) over Fp, where it made the BLS12-381 G1 2^24 table 2.3x
 * faster to build than Fermat's inverse; Fermat's over Fp2, where the
 * binary one made the BN254 G2 2^22 table 1.9x slower (H200, 2026-11-30). */
template <class F> G16_HD F table_inv(const F &x) { return x.inv_vartime(); }
template <class F> G16_HD fp2_t<F> table_inv(const fp2_t<F> &x) { return x.inv(); }

/* table[w*n + i] = 2^(cw) table[i] for 0 < w < windows: c doublings (XYZZ,
 * dbl-2008-s) per window, then x = X/ZZ, y = Y/ZZZ from one inversion of
 * ZZ*ZZZ (table_inv). Infinity stays (0, 0); a base of prime order r never
 * doubles into infinity. One-time work per key (variable time: public
 * bases). */
template <class E> __global__ void msm_table_kernel(affine_t<E> *table, size_t n, int c, int windows) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    affine_t<E> p = table[i];
    xyzz_t<E> a = xyzz_t<E>::from_affine(p);
    for (int w = 1; w < windows; w++) {
        if (!p.is_inf()) {
            for (int d = 0; d < c; d++)
                a = a.dbl();
            E zi = table_inv(a.zz * a.zzz); /* 1/(ZZ ZZZ) */
            p.x = a.x * (zi * a.zzz);    /* X/ZZ */
            p.y = a.y * (zi * a.zz);     /* Y/ZZZ */
        }
        table[(size_t)w * n + i] = p;
    }
}

/* Builds the table of b's n bases in a new device buffer of windows*n
 * points (window 0 a copy of the bases), which replaces b->d_points; the
 * old buffer is freed. c: the window (0: g16gpu_table_c's). Allocates and
 * synchronizes: once per key, never per proof. */
template <class E> g16_err msm_table_build(g16_gpu *g, g16_gpu_bases *b, int c, int nbits, g16_status *st) {
    typedef affine_t<E> A;
    if (c == 0)
        c = g16gpu_table_c(b->n, nbits, g->plan_policy, g->seg_len);
    g16gpu_msm_plan pl = g16gpu_plan(b->n ? b->n : 1, nbits, c);
    size_t cells = (size_t)pl.windows * b->n;
    if (cells >= 0x80000000u)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu precompute: %d windows of %zu bases exceed 2^31 entries",
                        pl.windows, b->n);
    A *t = NULL;
    cudaError_t e = cudaMalloc(&t, cells * sizeof(A));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return g16_fail(st, e == cudaErrorMemoryAllocation ? G16_ERR_NOMEM : G16_ERR_DEVICE,
                        "gpu precompute: cudaMalloc of %zu bytes@%s:%d: %s", cells * sizeof(A), __FILE__, __LINE__,
                        cudaGetErrorString(e));
    }
    cudaStream_t s = g->stream;
    if (b->n && (e = cudaMemcpyAsync(t, b->d_points, b->n * sizeof(A), cudaMemcpyDeviceToDevice, s)) == cudaSuccess) {
        msm_table_kernel<E><<<blocks_for(b->n, 128), 128, 0, s>>>(t, b->n, pl.c, pl.windows);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        cudaFree(t);
        return g16_fail(st, G16_ERR_DEVICE, "gpu precompute@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    }
    cudaFree(b->d_points);
    b->d_points = t;
    b->table_c = pl.c;
    b->table_windows = pl.windows;
    b->table_stride = b->n;
    return G16_OK;
}

} /* namespace g16gpu */

#endif
