/* GPU MSM (msm.cuh), steps 0-1: the constants every part shares, the 0/1
 * split of the scalars (classes, one-block scan, scatter; the density
 * form's bit positions), the signed digits and the bucket ends. */
#ifndef G16_GPU_MSM_DIGITS_CUH
#define G16_GPU_MSM_DIGITS_CUH

#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "../ec/curve.cuh"
#include "../host/gpu_internal.cuh"

namespace g16gpu {

static const uint32_t NO_KEY = 0xffffffffu;
static const int MSM_THREADS = 128;

static inline unsigned blocks_for(size_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

/* 1. Signed digits of scalar i = idx[t] (t if idx is NULL): keys/vals[w*n + t].
 * Window w's keys start at w*wkey (nb; 0 with a table) and its values index
 * base w*wval + i (0; the table's stride). */
static __global__ void msm_digits_kernel(const uint64_t *__restrict__ scalars, const uint32_t *__restrict__ idx,
                                  const uint32_t *__restrict__ pos, uint32_t n, int c, int windows, uint32_t nb,
                                  uint32_t wkey, uint32_t wval, uint32_t zero_key, uint32_t *__restrict__ keys,
                                  uint32_t *__restrict__ vals) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    uint32_t i = idx ? idx[t] : t;
    uint32_t base = pos ? pos[i] : i; /* density form: the j-th set bit's base */
    uint64_t s[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
        s[j] = scalars[4 * (size_t)i + j];
    uint32_t carry = 0;
    const uint32_t mask = (1u << c) - 1;
    for (int w = 0; w < windows; w++) {
        int bit = w * c, limb = bit >> 6, off = bit & 63;
        uint64_t v = 0;
        if (limb < 4) {
            v = s[limb] >> off;
            if (off + c > 64 && limb + 1 < 4)
                v |= s[limb + 1] << (64 - off);
        }
        uint32_t d = ((uint32_t)v & mask) + carry; /* in [0, 2^c] */
        uint32_t neg = 0;
        if (d > nb) { /* d - 2^c, negative, and carry one */
            d = (1u << c) - d;
            neg = 1;
            carry = 1;
        } else {
            carry = 0;
        }
        size_t o = (size_t)w * n + t;
        keys[o] = d ? (uint32_t)w * wkey + d - 1 : zero_key;
        vals[o] = (((uint32_t)w * wval + base) << 1) | neg;
    }
}

/* Scalars equal to 1: one entry each in bucket 0 of window 0 (key 0). */
static __global__ void msm_ones_kernel(const uint32_t *__restrict__ one, const uint32_t *__restrict__ pos,
                                       uint32_t n1, uint32_t *__restrict__ keys, uint32_t *__restrict__ vals) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n1) {
        uint32_t i = one[t];
        keys[t] = 0;
        vals[t] = (pos ? pos[i] : i) << 1;
    }
}

/* 0. The 0/1 split: class 0 (zero), 1 (one) or 2 (larger) of scalar i. */
static const int CLS_THREADS = 256;
static __device__ __forceinline__ int scalar_class(const uint64_t *__restrict__ s, uint32_t i) {
    const ulonglong2 *p = (const ulonglong2 *)(s + 4 * (size_t)i);
    ulonglong2 a = p[0], b = p[1];
    if ((a.y | b.x | b.y) != 0 || a.x > 1)
        return 2;
    return (int)a.x;
}

/* cls[2b], cls[2b+1] = number of ones, of larger scalars in block b. */
static __global__ void __launch_bounds__(CLS_THREADS)
    msm_class_count_kernel(const uint64_t *__restrict__ s, uint32_t n, uint32_t *__restrict__ cls) {
    uint32_t i = blockIdx.x * CLS_THREADS + threadIdx.x;
    int c = i < n ? scalar_class(s, i) : 0;
    int c1 = __syncthreads_count(c == 1), c2 = __syncthreads_count(c == 2);
    if (threadIdx.x == 0) {
        cls[2 * blockIdx.x] = (uint32_t)c1;
        cls[2 * blockIdx.x + 1] = (uint32_t)c2;
    }
}

/* Exclusive scan of v over a block of 1024 threads (sh: 32 words); *total
 * receives the sum. Ends with a barrier, so sh can be reused at once. */
static __device__ uint32_t block_scan_1024(uint32_t v, uint32_t *sh, uint32_t *total) {
    uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5, x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= (uint32_t)o)
            x += y;
    }
    if (lane == 31)
        sh[warp] = x;
    __syncthreads();
    if (warp == 0) {
        uint32_t w = sh[lane];
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= (uint32_t)o)
                w += y;
        }
        sh[lane] = w;
    }
    __syncthreads();
    uint32_t r = x - v + (warp ? sh[warp - 1] : 0);
    *total = sh[31];
    __syncthreads();
    return r;
}

/* One block of 1024 threads: cls becomes the exclusive prefix sums (block
 * offsets) of both counts; count[0], count[1] = total ones, larger. */
static __global__ void __launch_bounds__(1024)
    msm_class_scan_kernel(uint32_t *__restrict__ cls, uint32_t blocks, uint32_t *__restrict__ count) {
    __shared__ uint32_t sh[32];
    uint32_t per = (blocks + 1023) / 1024, lo = threadIdx.x * per, hi = min(lo + per, blocks);
    uint32_t s1 = 0, s2 = 0;
    for (uint32_t b = lo; b < hi; b++)
        s1 += cls[2 * b], s2 += cls[2 * b + 1];
    uint32_t t1, t2;
    uint32_t o1 = block_scan_1024(s1, sh, &t1), o2 = block_scan_1024(s2, sh, &t2);
    for (uint32_t b = lo; b < hi; b++) {
        uint32_t a1 = cls[2 * b], a2 = cls[2 * b + 1];
        cls[2 * b] = o1, cls[2 * b + 1] = o2;
        o1 += a1, o2 += a2;
    }
    if (threadIdx.x == 0)
        count[0] = t1, count[1] = t2;
}

/* Writes the indices of the ones and of the larger scalars, in order. */
static __global__ void __launch_bounds__(CLS_THREADS)
    msm_class_scatter_kernel(const uint64_t *__restrict__ s, uint32_t n, const uint32_t *__restrict__ cls,
                             uint32_t *__restrict__ one, uint32_t *__restrict__ big) {
    __shared__ uint32_t w1[CLS_THREADS / 32], w2[CLS_THREADS / 32];
    uint32_t i = blockIdx.x * CLS_THREADS + threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int c = i < n ? scalar_class(s, i) : 0;
    uint32_t b1 = __ballot_sync(0xffffffffu, c == 1), b2 = __ballot_sync(0xffffffffu, c == 2);
    uint32_t below = (1u << lane) - 1;
    if (lane == 0)
        w1[warp] = __popc(b1), w2[warp] = __popc(b2);
    __syncthreads();
    uint32_t o1 = cls[2 * blockIdx.x], o2 = cls[2 * blockIdx.x + 1];
    for (uint32_t w = 0; w < warp; w++)
        o1 += w1[w], o2 += w2[w];
    if (c == 1)
        one[o1 + __popc(b1 & below)] = i;
    else if (c == 2)
        big[o2 + __popc(b2 & below)] = i;
}

/* Density form: word i of the bitmap (bits >= nbits cleared). */
static __device__ __forceinline__ uint32_t density_word(const uint32_t *__restrict__ w, size_t words, size_t nbits,
                                                        size_t i) {
    if (i >= words)
        return 0;
    uint32_t x = w[i];
    size_t lo = 32 * i;
    if (lo + 32 > nbits)
        x &= (1u << (nbits - lo)) - 1; /* nbits - lo in [1, 31] */
    return x;
}

/* cls[2b] = set bits in the 1024 words of block b, cls[2b+1] = 0. */
static __global__ void __launch_bounds__(1024)
    msm_density_count_kernel(const uint32_t *__restrict__ w, size_t words, size_t nbits, uint32_t *__restrict__ cls) {
    __shared__ uint32_t sh[32];
    uint32_t tot;
    block_scan_1024(__popc(density_word(w, words, nbits, (size_t)blockIdx.x * 1024 + threadIdx.x)), sh, &tot);
    if (threadIdx.x == 0)
        cls[2 * blockIdx.x] = tot, cls[2 * blockIdx.x + 1] = 0;
}

/* pos[j] = position of the j-th set bit, for j < limit (cls: block offsets). */
static __global__ void __launch_bounds__(1024)
    msm_density_scatter_kernel(const uint32_t *__restrict__ w, size_t words, size_t nbits,
                               const uint32_t *__restrict__ cls, uint32_t limit, uint32_t *__restrict__ pos) {
    __shared__ uint32_t sh[32];
    size_t i = (size_t)blockIdx.x * 1024 + threadIdx.x;
    uint32_t x = density_word(w, words, nbits, i), tot;
    uint32_t off = cls[2 * blockIdx.x] + block_scan_1024(__popc(x), sh, &tot);
    while (x) {
        uint32_t b = (uint32_t)__ffs(x) - 1;
        x &= x - 1;
        if (off < limit)
            pos[off] = (uint32_t)(32 * i) + b;
        off++;
    }
}

/* bucket_end[k] = one past the last sorted position of key k. */
static __global__ void msm_bucket_end_kernel(const uint32_t *__restrict__ keys, uint32_t m, uint32_t zero_key,
                                      uint32_t *__restrict__ bucket_end) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    uint32_t k = keys[j];
    if (k != zero_key && (j + 1 == m || keys[j + 1] != k))
        bucket_end[k] = j + 1;
}

} /* namespace g16gpu */

#endif
