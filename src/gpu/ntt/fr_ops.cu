/* Element-wise Fr kernels and the bitmap compaction of gpu.h ("Fr arrays on
 * the device"): what a prover of pre-synthesized partitions (bellperson's
 * assignments) needs around the NTTs and MSMs. Every call is queued on g's
 * stream: no allocation, no host synchronization. */
#include <cub/block/block_scan.cuh>

#include "ntt.cuh" /* ntt_load, ntt_store; field.cuh, gpu_internal.cuh */

namespace g16gpu {

/* x < p, limb by limb from the top (variable time: the bound is public and
 * a value at or above it is an input error, reported). */
template <class C> __device__ __forceinline__ bool fr_below_p(const fp_t<C> &x) {
    for (int i = fp_t<C>::N - 1; i >= 0; i--) {
        if (x.l[i] != C::p(i))
            return x.l[i] < C::p(i);
    }
    return false;
}

template <class F> __global__ void fr_check_kernel(const F *x, uint64_t n, unsigned long long *bad) {
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !fr_below_p(ntt_load(x + i)))
        atomicMin(bad, (unsigned long long)i);
}

/* out[i] = x[i] R^-1 (the Montgomery product with the integer 1): the
 * canonical integer, as g16_scalar's bytes; out may alias x. */
template <class F> __global__ void fr_to_scalar_kernel(F *out, const F *x, uint64_t n) {
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    F one = F::zero();
    one.l[0] = 1;
    ntt_store(out + i, ntt_load(x + i) * one);
}

/* out[(m j) mod n] = j < n_in ? in[j] : 0, for every j < n (m odd: a
 * permutation of the positions). */
template <class F>
__global__ void fr_scatter_kernel(F *out, const F *in, uint64_t n_in, uint64_t n, uint64_t m) {
    uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    ntt_store(out + ((m * j) & (n - 1)), j < n_in ? ntt_load(in + j) : F::zero());
}

template <class F> __global__ void fr_quotient_kernel(F *a, const F *b, const F *c, F zinv, uint64_t n) {
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    ntt_store(a + i, (ntt_load(a + i) * ntt_load(b + i) - ntt_load(c + i)) * zinv);
}

/* ---- bitmap compaction -------------------------------------------------------
 * Pass 1: word w's set bits (past nbits masked off), exclusive prefix within
 * its block of CB_THREADS words (off[w]) and the block's total (tot[blk]).
 * Pass 2: one block: tot becomes the exclusive prefix over the blocks.
 * Pass 3: word w writes its elements from tot[blk] + off[w] on. */
static const unsigned CB_THREADS = 256, CB_SCAN = 1024;

/* One 32-byte element (g16_scalar's bytes), moved as two 16-byte words. */
struct cb_elem {
    uint4 lo, hi;
};

__device__ __forceinline__ uint64_t cb_word(const uint64_t *bits, uint64_t w, uint64_t nbits) {
    uint64_t m = bits[w];
    uint64_t lo = w * 64;
    if (lo + 64 > nbits) /* the last word: nbits - lo in 1..63 */
        m &= ~0ull >> (64 - (nbits - lo));
    return m;
}

__global__ void cb_count_kernel(const uint64_t *bits, uint64_t nw, uint64_t nbits, uint32_t *off, uint32_t *tot) {
    typedef cub::BlockScan<uint32_t, CB_THREADS> scan;
    __shared__ typename scan::TempStorage ts;
    uint64_t w = (uint64_t)blockIdx.x * CB_THREADS + threadIdx.x;
    uint32_t c = w < nw ? (uint32_t)__popcll(cb_word(bits, w, nbits)) : 0, ex, agg;
    scan(ts).ExclusiveSum(c, ex, agg);
    if (w < nw)
        off[w] = ex;
    if (threadIdx.x == 0)
        tot[blockIdx.x] = agg;
}

__global__ void cb_scan_kernel(uint32_t *tot, uint32_t nb) {
    typedef cub::BlockScan<uint32_t, CB_SCAN> scan;
    __shared__ typename scan::TempStorage ts;
    __shared__ uint32_t carry;
    if (threadIdx.x == 0)
        carry = 0;
    __syncthreads();
    for (uint32_t base = 0; base < nb; base += CB_SCAN) {
        uint32_t i = base + threadIdx.x, v = i < nb ? tot[i] : 0, ex, agg;
        scan(ts).ExclusiveSum(v, ex, agg);
        uint32_t c0 = carry;
        if (i < nb)
            tot[i] = ex + c0;
        __syncthreads();
        if (threadIdx.x == 0)
            carry = c0 + agg;
        __syncthreads();
    }
}

__global__ void cb_gather_kernel(const uint64_t *bits, uint64_t nw, uint64_t nbits, const uint32_t *off,
                                 const uint32_t *tot, const cb_elem *in, cb_elem *out) {
    uint64_t w = (uint64_t)blockIdx.x * CB_THREADS + threadIdx.x;
    if (w >= nw)
        return;
    uint64_t m = cb_word(bits, w, nbits);
    uint64_t o = (uint64_t)tot[w / CB_THREADS] + off[w];
    const cb_elem *src = in + 64 * w;
    while (m) {
        out[o++] = src[__ffsll((long long)m) - 1];
        m &= m - 1;
    }
}

} /* namespace g16gpu */

typedef g16gpu::bn254_fr dfr_bn;   /* the device's Fr types (the CPU's share their names) */
typedef g16gpu::bls381_fr dfr_bls;

/* The Fr type of a curve: 0 BN254, 1 BLS12-381, -1 neither. */
static int fr_of(g16_curve c) { return c == G16_CURVE_BN254 ? 0 : c == G16_CURVE_BLS12_381 ? 1 : -1; }

static g16_err fr_args(g16_gpu *g, g16_curve curve, size_t n, const char *who, g16_status *st) {
    if (!g)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu %s: NULL context", who);
    if (fr_of(curve) < 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu %s: bad curve", who);
    if (n > ((uint64_t)1 << 40))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu %s: %zu elements", who, n);
    CU(cudaSetDevice(g->device));
    return G16_OK;
}

#define FR_LAUNCH(K, N, ...)                                                                  \
    do {                                                                                      \
        if (N) {                                                                              \
            K<<<(unsigned)(((N) + 255) / 256), 256, 0, g->stream>>>(__VA_ARGS__);             \
            CU_LAUNCH(K);                                                                     \
        }                                                                                     \
    } while (0)

extern "C" g16_err g16_gpu_fr_check(g16_gpu *g, g16_curve curve, const void *d_x, size_t n, uint64_t *d_bad,
                                    g16_status *st) {
    g16_err rc = fr_args(g, curve, n, "fr check", st);
    if (rc)
        return rc;
    if (n && (!d_x || !d_bad))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fr check: NULL argument");
    unsigned long long *bad = (unsigned long long *)d_bad;
    if (fr_of(curve) == 0)
        FR_LAUNCH(g16gpu::fr_check_kernel<dfr_bn>, n, (const dfr_bn *)d_x, (uint64_t)n, bad);
    else
        FR_LAUNCH(g16gpu::fr_check_kernel<dfr_bls>, n, (const dfr_bls *)d_x, (uint64_t)n, bad);
    return G16_OK;
}

extern "C" g16_err g16_gpu_fr_to_scalar(g16_gpu *g, g16_curve curve, g16_scalar *d_out, const void *d_x, size_t n,
                                        g16_status *st) {
    g16_err rc = fr_args(g, curve, n, "fr to scalar", st);
    if (rc)
        return rc;
    if (n && (!d_x || !d_out))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fr to scalar: NULL argument");
    if (fr_of(curve) == 0)
        FR_LAUNCH(g16gpu::fr_to_scalar_kernel<dfr_bn>, n, (dfr_bn *)(void *)d_out, (const dfr_bn *)d_x, (uint64_t)n);
    else
        FR_LAUNCH(g16gpu::fr_to_scalar_kernel<dfr_bls>, n, (dfr_bls *)(void *)d_out, (const dfr_bls *)d_x,
                  (uint64_t)n);
    return G16_OK;
}

extern "C" g16_err g16_gpu_fr_scatter(g16_gpu *g, g16_curve curve, void *d_out, const void *d_in, size_t n_in,
                                      unsigned log_n, uint64_t m, g16_status *st) {
    g16_err rc = fr_args(g, curve, n_in, "fr scatter", st);
    if (rc)
        return rc;
    if (log_n > 40)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fr scatter: 2^%u elements", log_n);
    uint64_t n = (uint64_t)1 << log_n;
    if (!d_out || (n_in && !d_in) || n_in > n || (m & 1) == 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fr scatter: bad argument (NULL, %zu > 2^%u rows, or m even)",
                        n_in, log_n);
    if (fr_of(curve) == 0)
        FR_LAUNCH(g16gpu::fr_scatter_kernel<dfr_bn>, n, (dfr_bn *)d_out, (const dfr_bn *)d_in, (uint64_t)n_in, n, m);
    else
        FR_LAUNCH(g16gpu::fr_scatter_kernel<dfr_bls>, n, (dfr_bls *)d_out, (const dfr_bls *)d_in, (uint64_t)n_in, n,
                  m);
    return G16_OK;
}

extern "C" g16_err g16_gpu_fr_quotient(g16_gpu *g, g16_curve curve, void *d_a, const void *d_b, const void *d_c,
                                       const void *zinv, size_t n, g16_status *st) {
    g16_err rc = fr_args(g, curve, n, "fr quotient", st);
    if (rc)
        return rc;
    if (n && (!d_a || !d_b || !d_c || !zinv))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu fr quotient: NULL argument");
    if (fr_of(curve) == 0) {
        dfr_bn z;
        memcpy(&z, zinv, sizeof z);
        FR_LAUNCH(g16gpu::fr_quotient_kernel<dfr_bn>, n, (dfr_bn *)d_a, (const dfr_bn *)d_b, (const dfr_bn *)d_c, z,
                  (uint64_t)n);
    } else {
        dfr_bls z;
        memcpy(&z, zinv, sizeof z);
        FR_LAUNCH(g16gpu::fr_quotient_kernel<dfr_bls>, n, (dfr_bls *)d_a, (const dfr_bls *)d_b,
                  (const dfr_bls *)d_c, z, (uint64_t)n);
    }
    return G16_OK;
}

extern "C" size_t g16_gpu_compact_tmp_bytes(size_t nbits) {
    size_t nw = (nbits + 63) / 64, nb = (nw + g16gpu::CB_THREADS - 1) / g16gpu::CB_THREADS;
    return (nw + nb + 1) * sizeof(uint32_t);
}

extern "C" g16_err g16_gpu_compact(g16_gpu *g, g16_scalar *d_out, const g16_scalar *d_in, const uint64_t *d_bits,
                                   size_t nbits, void *d_tmp, g16_status *st) {
    if (!g || (nbits && (!d_out || !d_in || !d_bits || !d_tmp)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu compact: NULL argument");
    if (nbits > ((uint64_t)1 << 32) - 1)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu compact: %zu bits exceed 2^32 - 1", nbits);
    if (!nbits)
        return G16_OK;
    CU(cudaSetDevice(g->device));
    uint64_t nw = (nbits + 63) / 64, nb = (nw + g16gpu::CB_THREADS - 1) / g16gpu::CB_THREADS;
    uint32_t *off = (uint32_t *)d_tmp, *tot = off + nw;
    g16gpu::cb_count_kernel<<<(unsigned)nb, g16gpu::CB_THREADS, 0, g->stream>>>(d_bits, nw, nbits, off, tot);
    CU_LAUNCH(g16gpu::cb_count_kernel);
    g16gpu::cb_scan_kernel<<<1, g16gpu::CB_SCAN, 0, g->stream>>>(tot, (uint32_t)nb);
    CU_LAUNCH(g16gpu::cb_scan_kernel);
    g16gpu::cb_gather_kernel<<<(unsigned)nb, g16gpu::CB_THREADS, 0, g->stream>>>(d_bits, nw, nbits, off, tot,
                                                                 (const g16gpu::cb_elem *)d_in, (g16gpu::cb_elem *)d_out);
    CU_LAUNCH(g16gpu::cb_gather_kernel);
    return G16_OK;
}
