/* GPU multi-scalar multiplication, Pippenger's bucket method with signed
 * digits, generic over the point's coordinate field E (G1: fp_t, G2: fp2_t).
 *
 * Pipeline for n points and window width c (plan in msm_plan.h), all on the
 * context's stream:
 *  0. the 0/1 split: scalars are classified as 0, 1
 *     or larger, and the indices of the last two classes are compacted in
 *     order (block counts, one-block scan, scatter); the host reads the two
 *     counts (one synchronization). Zeros cost nothing more; each 1 becomes
 *     a single entry of bucket 0 in window 0 (the segmented accumulation
 *     below then sums them with perfect balance); only the scalars > 1 get
 *     digits. So a mostly-0/1 vector (the "filecoin" profile) costs about
 *     its full-width tail.
 *  1. digits: each scalar k < 2^nbits is written in W = nbits/c + 1 signed
 *     digits d_w in [-2^(c-1), 2^(c-1)] (k = sum d_w 2^(cw); a digit above
 *     2^(c-1) becomes d - 2^c with a carry into the next window; the last
 *     window cannot carry out because it holds at most c-1 bits). Each nonzero
 *     digit gives an entry (key = w*2^(c-1) + |d|-1, value = 2*i + sign);
 *     a zero digit gets the key W*2^(c-1), which sorts last and is skipped.
 *  2. sort the n*W entries by key (CUB radix sort over the key's bits only):
 *     each bucket's points are now one run of the sorted array.
 *  3. accumulate with perfect load balance: thread t takes the L sorted
 *     entries [tL, tL+L) and sums each run it sees with mixed additions
 *     (madd-2008-s), in one flat loop of exactly L mixed additions per
 *     thread that flushes a finished run from inside it, so the threads of
 *     a warp stay converged (a loop per run made a warp wait for the
 *     longest run of each round: up to ~2x the additions). A run wholly
 *     inside the segment is a finished bucket.
 *     A run that began in an earlier segment gives a head partial H[t]; one
 *     that begins here and continues past the segment gives a tail partial
 *     T[t]. A bucket spread over segments s0..s1 is then
 *     T[s0] + H[s0+1] + ... + H[s1], where the middle H's are whole-segment
 *     sums: a range sum, answered in O(log S) additions from a sum tree built
 *     over H (so a bucket holding all n points, e.g. all scalars equal, costs
 *     no long serial chain).
 *  4. per window, sum_b (b+1) B_b: threads sum chunks of C0 buckets as
 *     running sums (R = sum B_b, W = sum (b+1) B_b, local weights), then
 *     chunks merge pairwise in a tree: [lo,mid) + [mid,hi) gives
 *     R = R1 + R2 and W = W1 + W2 + (mid-lo) R2, where mid-lo is a power of
 *     two, so the product is doublings.
 *  5. the W window sums come back to the host, which combines them by Horner
 *     (c doublings per window) and returns Jacobian coordinates.
 * Precomputed window multiples (g16_gpu_bases_precompute, msm_table): with
 * table[w*stride + i] = 2^(cw) P_i resident, k P = sum_w d_w (2^(cw) P), so
 * the digits of every window go into one set of 2^(c-1) buckets (key |d|-1,
 * value the table index): the accumulation does the same additions, the
 * bucket reduction runs once instead of W times, and there is no Horner step.
 * With one reduction a wider c pays (g16gpu_table_c: fewer windows, so fewer
 * additions). It costs W times the bases' memory; used by every MSM whose
 * sort and buckets fit the context's scratch at the table's c.
 * Window width (msm_plan.h, g16gpu_plan): the c minimizing
 * windows(c) * (2^lg + 3 * 2^(c-1)), lg = ceil(log2 n) (accumulation +
 * bucket reduction, in mixed additions), c <= min(lg - 3, 22): for 255-bit
 * scalars c = 16 at 2^20 and 2^22, 20 at 2^24 (13 windows instead of 16),
 * 22 at 2^26; 254-bit ones take c = 17 at 2^22. The context's scratch
 * covers every plan of n <= max_points (g16gpu_scratch).
 * Streaming (msm_streamed_run): bases from host memory in chunks of the
 * context's max_points, copied on a second stream into two staging buffers
 * (the copy of chunk k+1 overlaps the kernels of chunk k); the chunk sums
 * are added on the host.
 * The group law here is variable time (it branches on equal or opposite
 * points), which is fine for MSMs over public bases; the scalars decide which
 * points meet in a bucket, so timing may leak digits: the prover's secret
 * scalars (r, s) are not passed through here. */
#ifndef G16_GPU_MSM_CUH
#define G16_GPU_MSM_CUH

#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "../ec/curve.cuh"
#include "../host/gpu_internal.cuh"

namespace g16gpu {

static const uint32_t NO_KEY = 0xffffffffu;
static const int MSM_THREADS = 128;

/* Point additions in the kernels off the hot path (tree, fix-up, bucket
 * reduction), inlined for every group. The out-of-line add_cold/dbl_cold
 * faulted on the H200 when a reduction took the doubling branch (first seen
 * for BN254 G2, 2026-11-30; then for G1 in the prover, where keys with many
 * infinity bases make equal partial sums common): compute-sanitizer reported
 * an invalid __local__ read in add_cold's doubling branch; cause not found. */
#if defined(G16_GPU_ADD_COLD)
/* The experiment of scripts/gpu-addcold.sh (never in the library build):
 * G16_GPU_ADD_COLD=1 calls the out-of-line add_cold/dbl_cold as the faulting
 * builds did; =2 an out-of-line copy that works on a local and takes q by
 * value (no pointer into the caller's frame but this). */
#if G16_GPU_ADD_COLD == 2
template <class E> G16_HD void red_add(xyzz_t<E> &a, const xyzz_t<E> &b) { a.add_cold_val(b); }
#else
template <class E> G16_HD void red_add(xyzz_t<E> &a, const xyzz_t<E> &b) { a.add_cold(b); }
#endif
template <class E> G16_HD void red_dbl(xyzz_t<E> &a) { a.dbl_cold(); }
#else
template <class E> G16_HD void red_add(xyzz_t<E> &a, const xyzz_t<E> &b) { a.add(b); }
template <class E> G16_HD void red_dbl(xyzz_t<E> &a) { a = a.dbl(); }
#endif
/* Whether the reduction reads its operands from memory where they are used
 * (xyzz_t::add_mem, and the two-pass msm_chunk_kernel): for BLS12-381's Fp2
 * (24 words), whose kernels spilled 1-7 KB per thread otherwise (H200,
 * 2026-11-30); its G2 reduction at 2^24 went from 87.7 to 74.4 ms, while
 * BN254's G2 (16 words) was 1-2% slower with it and keeps the plain add. */
template <class E> constexpr bool red_from_mem = E::N >= 24;
/* a += *b with b in device memory. */
template <class E> G16_HD void red_add_mem(xyzz_t<E> &a, const xyzz_t<E> *b) {
    if constexpr (red_from_mem<E>)
        a.add_mem(b);
    else
        a.add(*b);
}

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

/* 3. Segment accumulation (see the header comment). */
/* MINB: minimum resident 128-thread blocks per SM for the accumulation
 * kernel (__launch_bounds__). For 12-limb fields, MINB 1 lets ptxas use 184
 * registers (2 blocks/SM, no spills) and MINB 3 caps them at 168 (3 blocks,
 * 72 bytes of spills). Measured on the H200: MINB 3 is 19-25% faster for
 * BLS12-381 G1 (run 2) and 16% for BN254 G2, MINB 1 22% faster for
 * BLS12-381 G2 (2026-11-30, this flat kernel), so the context picks 1 for
 * 24-limb Fp2 and 3 otherwise unless $G16_GPU_ACC_MINB says (g16_gpu.acc_minb).
 * 8-limb fields use 4 (128 registers, no spills). */
/* One flat loop of (at most) L mixed additions per thread; a run is flushed
 * (bucket, head or tail) at the entry that ends it, inside the loop, so
 * warps stay converged. */
template <class E, int MINB>
__global__ void __launch_bounds__(MSM_THREADS, MINB)
    msm_accumulate_kernel(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals, uint32_t m,
                           uint32_t seg_len, uint32_t segs, uint32_t zero_key,
                           const affine_t<E> *__restrict__ bases, xyzz_t<E> *__restrict__ buckets,
                           xyzz_t<E> *__restrict__ head, xyzz_t<E> *__restrict__ tail,
                           uint32_t *__restrict__ tkey) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= segs)
        return;
    uint32_t start = t * seg_len, end = min(start + seg_len, m);
    head[t] = xyzz_t<E>::inf();
    tkey[t] = NO_KEY;
    uint32_t k = keys[start];
    bool first = start > 0 && keys[start - 1] == k; /* the first run continues a bucket */
    xyzz_t<E> acc = xyzz_t<E>::inf();
#pragma unroll 1
    for (uint32_t j = start; j < end; j++) {
        if (k == zero_key)
            break; /* zero digits sort last */
        uint32_t v = vals[j];
        uint32_t kn = j + 1 < m ? keys[j + 1] : NO_KEY;
        affine_t<E> p = bases[v >> 1];
        if (v & 1)
            p.y = p.y.neg();
        acc.add_affine(p.x, p.y);
        if (kn != k || j + 1 == end) { /* the run ends here, or the segment does */
            if (first)
                head[t] = acc;
            else if (kn == k) { /* continues past the segment */
                tail[t] = acc;
                tkey[t] = k;
            } else
                buckets[k] = acc;
            acc = xyzz_t<E>::inf();
            first = false;
        }
        k = kn;
    }
}

/* Sum tree over the head partials: level l+1 node i = level l nodes 2i, 2i+1. */
template <class E>
__global__ void msm_tree_kernel(xyzz_t<E> *tree, uint32_t off_prev, uint32_t size_prev, uint32_t off_cur,
                                uint32_t size_cur) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size_cur)
        return;
    xyzz_t<E> a = tree[off_prev + 2 * i];
    if (2 * i + 1 < size_prev)
        red_add(a, tree[off_prev + 2 * i + 1]); /* add_mem spilled more here (ptxas) */
    tree[off_cur + i] = a;
}

struct tree_levels {
    uint32_t off[40];
    int count;
};

/* Buckets spread over several segments: T[s0] + H[s0+1 .. s1]. */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_fixup_kernel(const xyzz_t<E> *__restrict__ tree, const xyzz_t<E> *__restrict__ tail,
                     const uint32_t *__restrict__ tkey, const uint32_t *__restrict__ bucket_end, uint32_t segs,
                     uint32_t seg_len, tree_levels lv, xyzz_t<E> *__restrict__ buckets) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= segs)
        return;
    uint32_t k = tkey[t];
    if (k == NO_KEY)
        return;
    uint32_t s1 = (bucket_end[k] - 1) / seg_len;
    xyzz_t<E> acc = tail[t];
    uint32_t l = t + 1, r = s1 + 1; /* H[l, r) */
    /* Standard bottom-up range query; one add call site keeps the kernel small. */
    for (int level = 0; l < r && level < lv.count; level++) {
#pragma unroll 1
        for (int side = 0; side < 2; side++) {
            uint32_t idx;
            if (side == 0 && (l & 1))
                idx = l++;
            else if (side == 1 && (r & 1))
                idx = --r;
            else
                continue;
            red_add_mem(acc, &tree[lv.off[level] + idx]);
        }
        l >>= 1;
        r >>= 1;
    }
    buckets[k] = acc;
}

/* 4a. Per chunk of `chunk` buckets: R = sum B_b, W = sum (b+1) B_b, as the
 * running sums R_i = B_i + R_(i+1) from the top down and W = sum R_i. With
 * red_from_mem in two passes, the R_i written over the buckets (scratch,
 * not read again) and summed back from memory, so that one point and the operand's
 * coordinates are live, not R and W and B (one pass took 1152 bytes of stack
 * and 7 KB of spill loads per thread for BLS12-381 G2 in one pass). */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_chunk_kernel(xyzz_t<E> *__restrict__ buckets, uint32_t total_chunks, uint32_t chunk,
                     xyzz_t<E> *__restrict__ red) {
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= total_chunks)
        return;
    xyzz_t<E> *b = buckets + (size_t)id * chunk;
    if constexpr (red_from_mem<E>) {
        xyzz_t<E> R = xyzz_t<E>::inf();
#pragma unroll 1
        for (int i = (int)chunk - 1; i >= 0; i--) {
            red_add_mem(R, &b[i]);
            b[i] = R;
        }
        red[2 * (size_t)id] = R;
        xyzz_t<E> W = xyzz_t<E>::inf();
#pragma unroll 1
        for (int i = (int)chunk - 1; i >= 0; i--)
            red_add_mem(W, &b[i]);
        red[2 * (size_t)id + 1] = W;
    } else {
        xyzz_t<E> R = xyzz_t<E>::inf(), W = xyzz_t<E>::inf();
        /* Running sums: R += B_i, then W += R, for i from the top down. */
#pragma unroll 1
        for (int s = 2 * (int)chunk - 1; s >= 0; s--) {
            if (s & 1)
                red_add(R, b[s >> 1]);
            else
                red_add(W, R);
        }
        red[2 * (size_t)id] = R;
        red[2 * (size_t)id + 1] = W;
    }
}

/* 4b. Merge level: chunk pairs (a, b) with a's bucket count 2^lg_left. */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_merge_kernel(xyzz_t<E> *red, uint32_t windows, uint32_t chunks_per_window, uint32_t half,
                     int lg_left) {
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t per_window = chunks_per_window / (2 * half);
    if (id >= windows * per_window)
        return;
    uint32_t w = id / per_window, i = id % per_window;
    size_t ia = (size_t)w * chunks_per_window + (size_t)i * 2 * half, ib = ia + half;
    xyzz_t<E> Ra = red[2 * ia], Wa = red[2 * ia + 1];
    xyzz_t<E> Rb = red[2 * ib], Wb = red[2 * ib + 1];
    /* W = Wa + Wb + 2^lg_left Rb, R = Ra + Rb (one add call site). */
    xyzz_t<E> Rs = Rb;
#pragma unroll 1
    for (int d = 0; d < lg_left; d++)
        red_dbl(Rs);
    xyzz_t<E> x = Wa;
#pragma unroll 1
    for (int q = 0; q < 3; q++) {
        xyzz_t<E> y = q == 0 ? Wb : q == 1 ? Rs : Rb;
        if (q == 2)
            x = Ra;
        red_add(x, y);
        if (q == 1)
            red[2 * ia + 1] = x;
    }
    red[2 * ia] = x;
}

template <class E>
__global__ void msm_gather_kernel(const xyzz_t<E> *red, uint32_t windows, uint32_t chunks_per_window,
                                  xyzz_t<E> *win) {
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < windows)
        win[w] = red[2 * (size_t)w * chunks_per_window + 1];
}

static inline int ilog2_u32(uint32_t x) {
    int l = 0;
    while ((1u << (l + 1)) <= x && l < 31)
        l++;
    return l;
}

/* Launches the flat accumulation with the context's blocks/SM rule. */
template <class E>
void msm_accumulate_launch(const g16_gpu *g, unsigned blocks, cudaStream_t s, const uint32_t *keys,
                           const uint32_t *vals, uint32_t m, uint32_t L, uint32_t S, uint32_t zero_key,
                           const affine_t<E> *bases, xyzz_t<E> *buckets, xyzz_t<E> *head, xyzz_t<E> *tail,
                           uint32_t *tkey) {
    if constexpr (E::N < 12)
        msm_accumulate_kernel<E, 4>
            <<<blocks, MSM_THREADS, 0, s>>>(keys, vals, m, L, S, zero_key, bases, buckets, head, tail, tkey);
    else if ((g->acc_minb ? g->acc_minb : E::N >= 24 ? 1 : 3) == 3)
        msm_accumulate_kernel<E, 3>
            <<<blocks, MSM_THREADS, 0, s>>>(keys, vals, m, L, S, zero_key, bases, buckets, head, tail, tkey);
    else
        msm_accumulate_kernel<E, 1>
            <<<blocks, MSM_THREADS, 0, s>>>(keys, vals, m, L, S, zero_key, bases, buckets, head, tail, tkey);
}

/* Step 3b after the accumulation: the sum tree over the head partials and
 * the fix-up of buckets spread over segments, into buckets. Queued on g's
 * stream. */
template <class E> g16_err msm_fixup(g16_gpu *g, uint32_t S, uint32_t L, void *bucket_mem, g16_status *st) {
    typedef xyzz_t<E> P;
    cudaStream_t s = g->stream;
    P *buckets = (P *)bucket_mem, *tree = (P *)g->d_tree, *tail = (P *)g->d_tail;
    tree_levels lv;
    lv.count = 1;
    lv.off[0] = 0;
    uint32_t size = S, off = 0;
    while (size > 1 && lv.count < 40) {
        uint32_t next = (size + 1) / 2;
        msm_tree_kernel<E><<<blocks_for(next, MSM_THREADS), MSM_THREADS, 0, s>>>(tree, off, size, off + size, next);
        CU_LAUNCH("msm_tree_kernel");
        off += size;
        size = next;
        lv.off[lv.count++] = off;
    }
    msm_fixup_kernel<E><<<blocks_for(S, MSM_THREADS), MSM_THREADS, 0, s>>>(tree, tail, g->d_tkey, g->d_bucket_end, S,
                                                                         L, lv, buckets);
    CU_LAUNCH("msm_fixup_kernel");
    return G16_OK;
}

/* Step 4: the chunked bucket reduction of buckets (overwritten) and its
 * merge tree in red, the window sums into win; queued on stream s. */
template <class E>
g16_err msm_reduce_windows(const g16gpu_msm_plan &pl, void *bucket_mem, void *red_mem, void *win, cudaStream_t s,
                           g16_status *st) {
    typedef xyzz_t<E> P;
    P *buckets = (P *)bucket_mem, *red = (P *)red_mem;
    uint32_t cpw = pl.nb / pl.chunk, total_chunks = (uint32_t)pl.windows * cpw;
    msm_chunk_kernel<E><<<blocks_for(total_chunks, MSM_THREADS), MSM_THREADS, 0, s>>>(buckets, total_chunks, pl.chunk,
                                                                                    red);
    CU_LAUNCH("msm_chunk_kernel");
    int lg_chunk = ilog2_u32(pl.chunk);
    for (uint32_t half = 1, lvl = 0; half < cpw; half *= 2, lvl++) {
        uint32_t threads = (uint32_t)pl.windows * (cpw / (2 * half));
        msm_merge_kernel<E><<<blocks_for(threads, MSM_THREADS), MSM_THREADS, 0, s>>>(
            red, (uint32_t)pl.windows, cpw, half, lg_chunk + (int)lvl);
        CU_LAUNCH("msm_merge_kernel");
    }
    msm_gather_kernel<E><<<1, 64, 0, s>>>(red, (uint32_t)pl.windows, cpw, (P *)win);
    CU_LAUNCH("msm_gather_kernel");
    return G16_OK;
}

/* Steps 3b-4 over the context's whole scratch, on g's stream. */
template <class E>
g16_err msm_reduce(g16_gpu *g, const g16gpu_msm_plan &pl, uint32_t S, uint32_t L, g16_status *st) {
    g16_err rc = msm_fixup<E>(g, S, L, g->d_buckets, st);
    return rc != G16_OK ? rc : msm_reduce_windows<E>(pl, g->d_buckets, g->d_red, g->d_win, g->stream, st);
}

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

/* Density form of msm_core: bits (host or device) over n_bases bases. They
 * are copied into the context's own scratch (its d_scalars, n_bases/32 + 1
 * words, before the scalars go there), never into the shared bases object:
 * workers with their own contexts run density MSMs on one resident key at
 * once. */
struct msm_density {
    const uint8_t *bits;
    size_t n_bases;
};

/* 5. Horner over the windows: sum_w 2^(cw) S_w (with a table, one window:
 * the sum itself). Host. */
template <class E> xyzz_t<E> msm_horner(const xyzz_t<E> *win, int windows, int c, bool table) {
    if (table)
        return win[0];
    xyzz_t<E> acc = win[windows - 1];
    for (int w = windows - 2; w >= 0; w--) {
        for (int d = 0; d < c; d++)
            acc = acc.dbl();
        acc.add(win[w]);
    }
    return acc;
}

/* Chunked MSMs (more points than the context's max_points; msm_chunked):
 * chunk k's bucket reduction (step 4) runs on g->red_stream in one half of
 * the bucket, reduction and window scratch while chunk k+1's split, sort
 * and accumulation run on g->stream in the other half (H200, 2026-11-30:
 * 15-20% off 0/1-heavy MSMs of 4 chunks, nothing off dense ones, whose
 * reductions fill the device anyway). A chunk whose
 * plan does not fit a half (G2 near the context's size) waits for the
 * pending halves and runs over the whole scratch. pending[h]: half h's
 * windows are on their way to the host (g->ev_red[h]); msm_pipe_drain adds
 * their Horner sum to total.
 * Merging (dense chunks): when the first chunk's scalars need the plan of
 * all its points (few zeros and ones), every chunk takes that plan, the
 * first accumulates into half 0 and each later one into half 1, whose
 * buckets are then added into half 0's (msm_merge_buckets_kernel: one per
 * bucket); half 0 is reduced once, after the last chunk. That replaces a
 * bucket reduction per chunk (BLS12-381 G1, 2^26 points, c = 22: 49 ms) by
 * a merge (one XYZZ addition per bucket). msm_chunked allows it when every
 * chunk holds at least half a context of points, so that the merge costs
 * less than the reduction it saves (2^27 partition: 1459.9 -> 1440.0 ms). */
template <class E> struct msm_pipe {
    int next; /* the half of the next chunk */
    bool pending[2], table[2];
    int windows[2], c[2];
    bool merge_ok; /* msm_chunked: chunks may merge */
    bool merge;    /* they do: the plan is mplan, half 0 holds the sum */
    int chunks;    /* chunks queued so far */
    g16gpu_msm_plan mplan;
    xyzz_t<E> total;
};

/* acc[i] += add[i] for count buckets (merging a chunk into the first). */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_merge_buckets_kernel(xyzz_t<E> *__restrict__ acc, const xyzz_t<E> *__restrict__ add, uint32_t count) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    xyzz_t<E> a = acc[i];
    red_add_mem(a, &add[i]);
    acc[i] = a;
}

static inline char *pipe_half(void *base, size_t bytes, int h) {
    return (char *)base + (h > 0 ? bytes / 2 : 0);
}

template <class E> g16_err msm_pipe_drain(g16_gpu *g, msm_pipe<E> *pp, int h, g16_status *st) {
    if (!pp->pending[h])
        return G16_OK;
    pp->pending[h] = false;
    CU(cudaEventSynchronize(g->ev_red[h]));
    const xyzz_t<E> *win = (const xyzz_t<E> *)pipe_half(g->h_win, 64 * g->pt_bytes, h);
    pp->total.add(msm_horner(win, pp->windows[h], pp->c[h], pp->table[h]));
    return G16_OK;
}

/* The MSM of n <= max_points points at device address bases (affine_t<E>,
 * at least n of them); *res receives the sum (XYZZ, on the host). Times in
 * g->last. With pp (a chunk of msm_chunked), the reduction may be left
 * running in a half of the scratch (*res = infinity; pp->pending), or, when
 * the chunks merge, the chunk's buckets are added into half 0's and
 * msm_chunked reduces them once (*res = infinity). */
template <class E>
g16_err msm_core(g16_gpu *g, xyzz_t<E> *res, const affine_t<E> *bases, const msm_density *dn,
                 const g16_scalar *scalars, size_t n, int nbits, const msm_table *tb, g16_status *st,
                 msm_pipe<E> *pp = nullptr) {
    typedef xyzz_t<E> P;
    *res = P::inf();
    g->last = g16_gpu_timing{};
    if (n == 0 && !dn)
        return G16_OK;
    cudaStream_t s = g->stream;
    CU(cudaEventRecord(g->ev[0], s));

    /* Density form: pos[j] = the j-th set bit, and the bit count. The bitmap
     * is staged in d_scalars (the context's, so per worker): the scatter
     * kernel has read it before the scalars below overwrite it (one stream). */
    const uint32_t *pos = NULL;
    if (dn) {
        size_t words = dn->n_bases / 32 + 1;
        unsigned db = blocks_for(words, 1024);
        if (2 * (size_t)db > 2 * ((g->max_points + 255) / 256) ||
            words * sizeof(uint32_t) > g->max_points * sizeof(g16_scalar))
            return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm density: %zu bases too many for the context",
                            dn->n_bases);
        uint32_t *d_words = (uint32_t *)g->d_scalars;
        CU(cudaMemsetAsync(d_words + words - 1, 0, sizeof(uint32_t), s));
        if (dn->n_bases)
            CU(cudaMemcpyAsync(d_words, dn->bits, (dn->n_bases + 7) / 8, cudaMemcpyDefault, s));
        msm_density_count_kernel<<<db, 1024, 0, s>>>(d_words, words, dn->n_bases, g->d_cls);
        CU_LAUNCH("msm_density_count_kernel");
        msm_class_scan_kernel<<<1, 1024, 0, s>>>(g->d_cls, db, g->d_count + 2);
        CU_LAUNCH("msm_class_scan_kernel");
        msm_density_scatter_kernel<<<db, 1024, 0, s>>>(d_words, words, dn->n_bases, g->d_cls, (uint32_t)n,
                                                       g->d_pos);
        CU_LAUNCH("msm_density_scatter_kernel");
        pos = g->d_pos;
    }

    /* Scalars in this device's memory (the prover's w and h) are read where
     * they are; others are copied into the context. */
    const uint64_t *sc = g->d_scalars;
    if (n) {
        cudaPointerAttributes pa;
        if (cudaPointerGetAttributes(&pa, scalars) == cudaSuccess && pa.type == cudaMemoryTypeDevice &&
            pa.device == g->device)
            sc = (const uint64_t *)scalars;
        else
            CU(cudaMemcpyAsync(g->d_scalars, scalars, n * sizeof(g16_scalar), cudaMemcpyDefault, s));
    }
    CU(cudaEventRecord(g->ev[1], s));

    /* 0. The 0/1 split. */
    size_t nbig = n, n1 = 0;
    const uint32_t *idx = NULL;
    if (n == 0) { /* density form with no scalars: only the bit count matters */
        CU(cudaMemcpyAsync(g->h_count, g->d_count, 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
        CU(cudaStreamSynchronize(s));
        if (g->h_count[2] != 0)
            return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm density: %u bits set, 0 scalars", g->h_count[2]);
        return G16_OK;
    }
    {
        unsigned cb = blocks_for(n, CLS_THREADS);
        msm_class_count_kernel<<<cb, CLS_THREADS, 0, s>>>(sc, (uint32_t)n, g->d_cls);
        CU_LAUNCH("msm_class_count_kernel");
        msm_class_scan_kernel<<<1, 1024, 0, s>>>(g->d_cls, cb, g->d_count);
        CU_LAUNCH("msm_class_scan_kernel");
        msm_class_scatter_kernel<<<cb, CLS_THREADS, 0, s>>>(sc, (uint32_t)n, g->d_cls, g->d_one,
                                                            g->d_big);
        CU_LAUNCH("msm_class_scatter_kernel");
        CU(cudaMemcpyAsync(g->h_count, g->d_count, 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
        CU(cudaStreamSynchronize(s));
        if (dn && g->h_count[2] != n)
            return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm density: %u bits set, %zu scalars", g->h_count[2],
                            n);
        n1 = g->h_count[0];
        nbig = g->h_count[1];
        idx = g->d_big;
        if (n1 + nbig > n)
            return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: 0/1 split counted %zu + %zu of %zu", n1, nbig, n);
    }

    /* With a table: its c (digits) and one window of buckets (plr, the
     * plan of the sort and the reduction); without, plr = pl. A table
     * whose plan does not fit the context's scratch is not used. */
    g16gpu_msm_plan pl = g16gpu_plan(nbig ? nbig : 1, nbits, g->plan_policy);
    bool use_table = false;
    bool merge_chunk = pp && pp->merge;
    if (merge_chunk) {
        pl = pp->mplan;
    } else if (tb) {
        g16gpu_msm_plan pt = g16gpu_plan(nbig ? nbig : 1, nbits, tb->c);
        if (pt.c == tb->c && pt.windows == tb->windows && table_fits(g, pt, nbig, n1)) {
            pl = pt;
            use_table = true;
        }
    }
    g16gpu_msm_plan plr = pl;
    if (use_table) {
        plr.windows = 1;
        plr.zero_key = pl.nb;
        plr.key_bits = 0;
        while ((1ull << plr.key_bits) <= plr.zero_key)
            plr.key_bits++;
    }
    size_t m64 = nbig * (size_t)pl.windows + n1;
    uint32_t L = g->seg_len;
    size_t S64 = (m64 + L - 1) / L;
    if (m64 > g->max_entries || (size_t)plr.windows * plr.nb > g->max_buckets || S64 > g->max_segs ||
        2 * (size_t)plr.windows * plr.nb / plr.chunk > g->max_red || pl.windows > 64)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: plan for n=%zu (c=%d) exceeds the context's scratch", n,
                        pl.c);
    uint32_t m = (uint32_t)m64, S = (uint32_t)S64;

    /* A chunk: a half of the scratch when the plan fits one, else the
     * whole (after the pending halves are done with it). */
    int half = -1;
    if (pp && m > 0) {
        size_t nbk = (size_t)plr.windows * plr.nb, nred = 2 * nbk / plr.chunk;
        bool fits = 2 * nbk * sizeof(P) <= g->max_buckets * g->pt_bytes &&
                    2 * nred * sizeof(P) <= g->max_red * g->pt_bytes &&
                    (size_t)plr.windows * sizeof(P) <= 32 * g->pt_bytes;
        /* The first chunk decides on merging: dense scalars (their plan is
         * that of all n points), no table, halves that hold the plan. */
        if (!merge_chunk && pp->merge_ok && pp->chunks == 0 && fits && !use_table &&
            pl.c == g16gpu_plan(n, nbits, g->plan_policy).c) {
            pp->merge = merge_chunk = true;
            pp->mplan = pl;
        }
        if (merge_chunk) {
            half = pp->chunks == 0 ? 0 : 1; /* nothing is pending in merge mode */
        } else {
            for (int h = 0; h < 2; h++)
                if (!fits || h == pp->next) {
                    g16_err rc = msm_pipe_drain<E>(g, pp, h, st);
                    if (rc != G16_OK)
                        return rc;
                }
            half = fits ? pp->next : -1;
        }
    }
    P *buckets = (P *)pipe_half(g->d_buckets, half >= 0 ? g->max_buckets * g->pt_bytes : 0, half);
    P *tree = (P *)g->d_tree, *tail = (P *)g->d_tail;

    if (m > 0) {
        if (nbig)
            msm_digits_kernel<<<blocks_for(nbig, 256), 256, 0, s>>>(
                sc, idx, pos, (uint32_t)nbig, pl.c, pl.windows, pl.nb, use_table ? 0 : pl.nb,
                use_table ? (uint32_t)tb->stride : 0, plr.zero_key, g->d_keys[0], g->d_vals[0]);
        CU_LAUNCH("msm_digits_kernel");
        size_t o1 = nbig * (size_t)pl.windows;
        if (n1)
            msm_ones_kernel<<<blocks_for(n1, 256), 256, 0, s>>>(g->d_one, pos, (uint32_t)n1, g->d_keys[0] + o1,
                                                                g->d_vals[0] + o1);
        CU_LAUNCH("msm_ones_kernel");

        cub::DoubleBuffer<uint32_t> dk(g->d_keys[0], g->d_keys[1]), dv(g->d_vals[0], g->d_vals[1]);
        size_t tmp = 0;
        CU(cub::DeviceRadixSort::SortPairs(NULL, tmp, dk, dv, m, 0, plr.key_bits, s));
        if (tmp > g->cub_bytes)
            return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: sort needs %zu bytes of scratch, have %zu", tmp,
                            g->cub_bytes);
        tmp = g->cub_bytes;
        CU(cub::DeviceRadixSort::SortPairs(g->d_cub, tmp, dk, dv, m, 0, plr.key_bits, s));
        const uint32_t *keys = dk.Current(), *vals = dv.Current();
        CU(cudaEventRecord(g->ev[4], s));

        if (half >= 0) /* the reduction two chunks back used this half */
            CU(cudaStreamWaitEvent(s, g->ev_red[half], 0));
        CU(cudaMemsetAsync(buckets, 0, (size_t)plr.windows * plr.nb * sizeof(P), s));
        msm_bucket_end_kernel<<<blocks_for(m, 256), 256, 0, s>>>(keys, m, plr.zero_key, g->d_bucket_end);
        CU_LAUNCH("msm_bucket_end_kernel");

        msm_accumulate_launch<E>(g, blocks_for(S, MSM_THREADS), s, keys, vals, m, L, S, plr.zero_key, bases,
                                 buckets, tree, tail, g->d_tkey);
        CU_LAUNCH("msm_accumulate_kernel");
        CU(cudaEventRecord(g->ev[5], s));

        if (merge_chunk) {
            /* Step 3b, then (later chunks) the merge into half 0. */
            g16_err rerr = msm_fixup<E>(g, S, L, buckets, st);
            if (rerr != G16_OK)
                return rerr;
            if (half == 1) {
                uint32_t count = (uint32_t)((size_t)plr.windows * plr.nb);
                msm_merge_buckets_kernel<E><<<blocks_for(count, MSM_THREADS), MSM_THREADS, 0, s>>>(
                    (P *)g->d_buckets, buckets, count);
                CU_LAUNCH("msm_merge_buckets_kernel");
            }
            pp->chunks++;
            return G16_OK;
        }
        if (half >= 0) {
            /* Step 3b here, step 4 and the windows' copy on red_stream. */
            size_t wbytes = (size_t)plr.windows * sizeof(P);
            void *red = pipe_half(g->d_red, g->max_red * g->pt_bytes, half);
            void *win = pipe_half(g->d_win, 64 * g->pt_bytes, half);
            void *hwin = pipe_half(g->h_win, 64 * g->pt_bytes, half);
            g16_err rerr = msm_fixup<E>(g, S, L, buckets, st);
            if (rerr != G16_OK)
                return rerr;
            CU(cudaEventRecord(g->ev_acc[half], s));
            CU(cudaStreamWaitEvent(g->red_stream, g->ev_acc[half], 0));
            rerr = msm_reduce_windows<E>(plr, buckets, red, win, g->red_stream, st);
            if (rerr != G16_OK)
                return rerr;
            CU(cudaMemcpyAsync(hwin, win, wbytes, cudaMemcpyDeviceToHost, g->red_stream));
            CU(cudaEventRecord(g->ev_red[half], g->red_stream));
            pp->pending[half] = true;
            pp->windows[half] = pl.windows;
            pp->c[half] = pl.c;
            pp->table[half] = use_table;
            pp->next = half ^ 1;
            pp->chunks++;
            g->last.table = use_table;
            return G16_OK;
        }
        g16_err rerr = msm_reduce<E>(g, plr, S, L, st);
        if (rerr != G16_OK)
            return rerr;
    }
    CU(cudaEventRecord(g->ev[2], s));
    if (m > 0)
        CU(cudaMemcpyAsync(g->h_win, g->d_win, (size_t)plr.windows * sizeof(P), cudaMemcpyDeviceToHost, s));
    CU(cudaEventRecord(g->ev[3], s));
    CU(cudaEventSynchronize(g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.total_ms, g->ev[0], g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.kernel_ms, g->ev[1], g->ev[2]));
    if (m == 0)
        return G16_OK;
    CU(cudaEventElapsedTime(&g->last.sort_ms, g->ev[1], g->ev[4]));
    CU(cudaEventElapsedTime(&g->last.acc_ms, g->ev[4], g->ev[5]));
    CU(cudaEventElapsedTime(&g->last.reduce_ms, g->ev[5], g->ev[2]));
    g->last.table = use_table;

    *res = msm_horner((const P *)g->h_win, pl.windows, pl.c, use_table);
    return G16_OK;
}

/* The MSM of n > max_points resident bases (no density form), in chunks of
 * max_points (see msm_pipe); *res receives the sum. g->last: total_ms and
 * kernel_ms both the span on the device from the first chunk's start (after
 * the work queued before it on the stream) to the last reduction's end
 * (CUDA events; the host clock would count that earlier work when the host
 * gets here first), no stage times. */
template <class E>
g16_err msm_chunked(g16_gpu *g, xyzz_t<E> *res, const g16_gpu_bases *b, const g16_scalar *scalars, size_t n,
                    int nbits, g16_status *st) {
    typedef xyzz_t<E> P;
    msm_pipe<E> pp = {};
    pp.total = P::inf();
    size_t cap = g->max_points;
    pp.merge_ok = n % cap == 0 || n % cap >= cap / 2;
    msm_table tb = {b->table_c, b->table_windows, b->table_stride};
    const affine_t<E> *pts = (const affine_t<E> *)b->d_points;
    int tables = 0;
    CU(cudaEventRecord(g->ev_pipe[0], g->stream));
    g16_err rc = G16_OK;
    for (size_t first = 0; first < n && rc == G16_OK; first += cap) {
        size_t len = n - first < cap ? n - first : cap;
        P part;
        rc = msm_core<E>(g, &part, pts + first, NULL, scalars + first, len, nbits, b->table_windows ? &tb : NULL, st,
                         &pp);
        if (rc == G16_OK) {
            pp.total.add(part); /* infinity when the chunk's reduction is pending */
            g16_wipe(&part, sizeof part); /* witness-derived, as the sums are */
            tables |= g->last.table;
            rc = msm_pipe_drain<E>(g, &pp, pp.next, st); /* the chunk before, while this one runs */
        }
    }
    if (rc == G16_OK && pp.merge) { /* the one reduction, of half 0, on the stream */
        const g16gpu_msm_plan &pl = pp.mplan;
        rc = msm_reduce_windows<E>(pl, g->d_buckets, g->d_red, g->d_win, g->stream, st);
        cudaError_t e = cudaSuccess;
        if (rc == G16_OK)
            e = cudaMemcpyAsync(g->h_win, g->d_win, (size_t)pl.windows * sizeof(P), cudaMemcpyDeviceToHost,
                                g->stream);
        if (rc == G16_OK && e == cudaSuccess)
            e = cudaEventRecord(g->ev_red[0], g->stream);
        if (e != cudaSuccess)
            rc = g16_fail(st, G16_ERR_DEVICE, "gpu msm merged chunks@%s:%d: %s", __FILE__, __LINE__,
                          cudaGetErrorString(e));
        if (rc == G16_OK) {
            pp.pending[0] = true;
            pp.windows[0] = pl.windows;
            pp.c[0] = pl.c;
            pp.table[0] = false;
        }
    }
    if (rc == G16_OK) {
        cudaError_t e = cudaSuccess;
        for (int h = 0; h < 2 && e == cudaSuccess; h++)
            if (pp.pending[h])
                e = cudaStreamWaitEvent(g->stream, g->ev_red[h], 0);
        if (e == cudaSuccess)
            e = cudaEventRecord(g->ev_pipe[1], g->stream);
        if (e != cudaSuccess)
            rc = g16_fail(st, G16_ERR_DEVICE, "gpu msm chunks@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
        for (int h = 0; h < 2 && rc == G16_OK; h++)
            rc = msm_pipe_drain<E>(g, &pp, h, st);
    }
    if (rc != G16_OK) { /* nothing queued may outlive the call */
        (void)cudaStreamSynchronize(g->red_stream);
        (void)cudaStreamSynchronize(g->stream);
        g16_wipe(&pp, sizeof pp);
        return rc;
    }
    float kms = 0;
    CU(cudaEventSynchronize(g->ev_pipe[1]));
    CU(cudaEventElapsedTime(&kms, g->ev_pipe[0], g->ev_pipe[1]));
    g->last = g16_gpu_timing{};
    g->last.kernel_ms = kms;
    g->last.total_ms = kms;
    g->last.table = tables;
    *res = pp.total;
    g16_wipe(&pp, sizeof pp);
    return G16_OK;
}

/* The whole MSM over resident bases; out receives the CPU's Jacobian (x, y, z). */
template <class E>
g16_err msm_run(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density, const g16_scalar *scalars,
                size_t n, int nbits, g16_status *st) {
    if (sizeof(xyzz_t<E>) > g->pt_bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: context was created without G2 scratch");
    xyzz_t<E> r;
    msm_density dn = {density, b->n};
    msm_table tb = {b->table_c, b->table_windows, b->table_stride};
    if (n > g->max_points && density)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: %zu points exceed the context's %zu", n, g->max_points);
    g16_err rc = n > g->max_points ? msm_chunked<E>(g, &r, b, scalars, n, nbits, st)
                                   : msm_core<E>(g, &r, (const affine_t<E> *)b->d_points, density ? &dn : NULL,
                                                 scalars, n, nbits, b->table_windows ? &tb : NULL, st);
    if (rc != G16_OK)
        return rc;
    E *o = (E *)out;
    r.to_jac(o[0], o[1], o[2]);
    return G16_OK;
}

/* Bases from host memory hp (the CPU's G_affine array), in chunks of
 * max_points: chunk k+1 is copied on the copy stream into the other staging
 * buffer while chunk k's kernels run (its buffer was last read by chunk k-1,
 * which msm_core waited for). The chunk sums are added on the host. */
template <class E>
g16_err msm_streamed_run(g16_gpu *g, void *out, const void *hp, const g16_scalar *scalars, size_t n, int nbits,
                         g16_status *st) {
    typedef affine_t<E> A;
    if (sizeof(xyzz_t<E>) > g->pt_bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: context was created without G2 scratch");
    if (!g->d_stage[0]) {
        g16_err rc = g16gpu_stream_reserve(g, st);
        if (rc != G16_OK)
            return rc;
    }
    size_t chunk = g->max_points;
    if (chunk * sizeof(A) > g->stage_bytes)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm streamed: staging buffers too small");
    double t0 = g16_now_ms();
    const char *h = (const char *)hp;
    size_t chunks = (n + chunk - 1) / chunk;
    xyzz_t<E> total = xyzz_t<E>::inf();
    g16_gpu_timing sum = {};
    g16_err rc = G16_OK;
    cudaError_t e = cudaSuccess;
    if (chunks) {
        size_t len = n < chunk ? n : chunk;
        if ((e = cudaMemcpyAsync(g->d_stage[0], h, len * sizeof(A), cudaMemcpyHostToDevice, g->copy_stream)) ==
            cudaSuccess)
            e = cudaEventRecord(g->ev_copy[0], g->copy_stream);
    }
    for (size_t c = 0; c < chunks && e == cudaSuccess && rc == G16_OK; c++) {
        size_t off = c * chunk, len = n - off < chunk ? n - off : chunk;
        if (c + 1 < chunks) {
            size_t off2 = off + chunk, len2 = n - off2 < chunk ? n - off2 : chunk;
            if ((e = cudaMemcpyAsync(g->d_stage[(c + 1) & 1], h + off2 * sizeof(A), len2 * sizeof(A),
                                     cudaMemcpyHostToDevice, g->copy_stream)) != cudaSuccess)
                break;
            if ((e = cudaEventRecord(g->ev_copy[(c + 1) & 1], g->copy_stream)) != cudaSuccess)
                break;
        }
        if ((e = cudaStreamWaitEvent(g->stream, g->ev_copy[c & 1], 0)) != cudaSuccess)
            break;
        xyzz_t<E> part;
        rc = msm_core<E>(g, &part, (const A *)g->d_stage[c & 1], NULL, scalars + off, len, nbits, NULL, st);
        if (rc == G16_OK) {
            total.add(part);
            sum.kernel_ms += g->last.kernel_ms;
            sum.sort_ms += g->last.sort_ms;
            sum.acc_ms += g->last.acc_ms;
            sum.reduce_ms += g->last.reduce_ms;
        }
    }
    cudaError_t e2 = cudaStreamSynchronize(g->copy_stream); /* no copy may outlive the call */
    if (e == cudaSuccess)
        e = e2;
    if (rc != G16_OK)
        return rc;
    if (e != cudaSuccess)
        return g16_fail(st, G16_ERR_DEVICE, "gpu msm streamed@%s:%d: %s", __FILE__, __LINE__,
                        cudaGetErrorString(e));
    sum.total_ms = (float)(g16_now_ms() - t0);
    g->last = sum;
    E *o = (E *)out;
    total.to_jac(o[0], o[1], o[2]);
    return G16_OK;
}

/* Element-wise field operations (test hook). */
template <class E>
__global__ void field_op_kernel(int op, E *out, const E *a, const E *b, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    E x = a[i];
    switch (op) {
    case G16_GPU_ADD: out[i] = x + b[i]; break;
    case G16_GPU_SUB: out[i] = x - b[i]; break;
    case G16_GPU_MUL: out[i] = x * b[i]; break;
    default: out[i] = x.sqr(); break;
    }
}

template <class E>
g16_err field_op_run(g16_gpu *g, g16_gpu_op op, void *out, const void *a, const void *b, size_t n,
                     g16_status *st) {
    if (n == 0)
        return G16_OK;
    if (!b)
        b = a; /* SQR ignores b */
    if (n > 0xffffffffu)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: n too large");
    size_t bytes = n * sizeof(E);
    E *d = NULL;
    cudaError_t e = cudaMalloc(&d, 3 * bytes);
    if (e != cudaSuccess)
        return g16_fail(st, G16_ERR_DEVICE, "cudaMalloc@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    g16_err rc = G16_OK;
    do {
        cudaStream_t s = g->stream;
        if ((e = cudaMemcpyAsync(d + n, a, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess)
            break;
        if ((e = cudaMemcpyAsync(d + 2 * n, b, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess)
            break;
        field_op_kernel<E><<<blocks_for(n, 256), 256, 0, s>>>((int)op, d, d + n, d + 2 * n, (uint32_t)n);
        if ((e = cudaGetLastError()) != cudaSuccess)
            break;
        if ((e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s)) != cudaSuccess)
            break;
        e = cudaStreamSynchronize(s);
    } while (0);
    if (e != cudaSuccess)
        rc = g16_fail(st, G16_ERR_DEVICE, "field_op_kernel@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    cudaFree(d);
    return rc;
}

} /* namespace g16gpu */

#endif
