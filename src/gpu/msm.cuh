/* GPU multi-scalar multiplication, Pippenger's bucket method with signed
 * digits, generic over the point's coordinate field E (G1: fp_t, G2: fp2_t).
 *
 * Pipeline for n points and window width c (plan in gpu.cu), all on the
 * context's stream:
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
 *     (madd-2008-s). A run wholly inside the segment is a finished bucket.
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
 * The group law here is variable time (it branches on equal or opposite
 * points), which is fine for MSMs over public bases; the scalars decide which
 * points meet in a bucket, so timing may leak digits: the prover's secret
 * scalars (r, s) are not passed through here. */
#ifndef G16_GPU_MSM_CUH
#define G16_GPU_MSM_CUH

#include <cub/device/device_radix_sort.cuh>

#include "curve.cuh"
#include "gpu_internal.cuh"

namespace g16gpu {

static const uint32_t NO_KEY = 0xffffffffu;
static const int MSM_THREADS = 128;

/* Point additions in the kernels off the hot path (tree, fix-up, bucket
 * reduction). G1 calls the out-of-line add_cold/dbl_cold (small code, fast
 * compiles; verified on the H200). G2 inlines them: with the out-of-line
 * versions, msm_chunk_kernel for BN254 G2 faulted on the H200 (2026-11-30,
 * compute-sanitizer: invalid __local__ read in add_cold's doubling branch,
 * cause not found yet), while the inlined G2 code passed every test. */
template <class E> G16_HD void red_add(xyzz_t<E> &a, const xyzz_t<E> &b) {
    if constexpr (E::N <= 12)
        a.add_cold(b);
    else
        a.add(b);
}
template <class E> G16_HD void red_dbl(xyzz_t<E> &a) {
    if constexpr (E::N <= 12)
        a.dbl_cold();
    else
        a = a.dbl();
}

static inline unsigned blocks_for(size_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

/* 1. Signed digits. keys/vals[w*n + i]. */
static __global__ void msm_digits_kernel(const uint64_t *__restrict__ scalars, uint32_t n, int c, int windows,
                                  uint32_t nb, uint32_t zero_key, uint32_t *__restrict__ keys,
                                  uint32_t *__restrict__ vals) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
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
        size_t o = (size_t)w * n + i;
        keys[o] = d ? (uint32_t)w * nb + d - 1 : zero_key;
        vals[o] = (i << 1) | neg;
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
 * 72 bytes of spills). Measured on the H200 (run 2): MINB 3 is 19-25%
 * faster for BLS12-381 G1 and 7% for G2, so the context uses 3 unless
 * $G16_GPU_ACC_MINB=1 (g16_gpu.acc_minb). 8-limb fields use 4 (128
 * registers, no spills). */
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
    uint32_t k0 = keys[start];
    bool cross_start = start > 0 && keys[start - 1] == k0;
    uint32_t j = start;
    while (j < end) {
        uint32_t k = keys[j];
        if (k == zero_key)
            break;
        uint32_t run_start = j;
        xyzz_t<E> acc = xyzz_t<E>::inf();
        do {
            uint32_t v = vals[j];
            affine_t<E> p = bases[v >> 1];
            if (v & 1)
                p.y = p.y.neg();
            acc.add_affine(p.x, p.y);
            j++;
        } while (j < end && keys[j] == k);
        bool cross_end = j == end && end < m && keys[end] == k;
        if (run_start == start && cross_start) {
            head[t] = acc;
        } else if (cross_end) {
            tail[t] = acc;
            tkey[t] = k;
        } else {
            buckets[k] = acc;
        }
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
        red_add(a, tree[off_prev + 2 * i + 1]);
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
            red_add(acc, tree[lv.off[level] + idx]);
        }
        l >>= 1;
        r >>= 1;
    }
    buckets[k] = acc;
}

/* 4a. Per chunk of `chunk` buckets: R = sum B_b, W = sum (b+1) B_b. */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_chunk_kernel(const xyzz_t<E> *__restrict__ buckets, uint32_t total_chunks, uint32_t chunk,
                     xyzz_t<E> *__restrict__ red) {
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= total_chunks)
        return;
    const xyzz_t<E> *b = buckets + (size_t)id * chunk;
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

/* The whole MSM for points over E; out receives the CPU's Jacobian (x, y, z). */
template <class E>
g16_err msm_run(g16_gpu *g, void *out, const g16_gpu_bases *b, const g16_scalar *scalars, size_t n, int nbits,
                g16_status *st) {
    typedef xyzz_t<E> P;
    if (sizeof(P) > g->pt_bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: context was created without G2 scratch");
    E *o = (E *)out;
    if (n == 0) {
        P::inf().to_jac(o[0], o[1], o[2]);
        g->last.total_ms = g->last.kernel_ms = 0;
        return G16_OK;
    }
    g16gpu_msm_plan pl = g16gpu_plan(n, nbits);
    if (pl.entries > g->max_entries || (size_t)pl.windows * pl.nb > g->max_buckets || pl.segs > g->max_segs ||
        2 * (size_t)pl.windows * pl.nb / pl.chunk > g->max_red || pl.windows > 64)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: plan for n=%zu exceeds the context's scratch", n);
    cudaStream_t s = g->stream;
    uint32_t m = (uint32_t)pl.entries, S = (uint32_t)pl.segs;
    P *buckets = (P *)g->d_buckets, *tree = (P *)g->d_tree, *tail = (P *)g->d_tail, *red = (P *)g->d_red;

    CU(cudaEventRecord(g->ev[0], s));
    CU(cudaMemcpyAsync(g->d_scalars, scalars, n * sizeof(g16_scalar), cudaMemcpyDefault, s));
    CU(cudaEventRecord(g->ev[1], s));

    msm_digits_kernel<<<blocks_for(n, 256), 256, 0, s>>>(g->d_scalars, (uint32_t)n, pl.c, pl.windows, pl.nb,
                                                         pl.zero_key, g->d_keys[0], g->d_vals[0]);
    CU_LAUNCH("msm_digits_kernel");

    cub::DoubleBuffer<uint32_t> dk(g->d_keys[0], g->d_keys[1]), dv(g->d_vals[0], g->d_vals[1]);
    size_t tmp = 0;
    CU(cub::DeviceRadixSort::SortPairs(NULL, tmp, dk, dv, m, 0, pl.key_bits, s));
    if (tmp > g->cub_bytes)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: sort needs %zu bytes of scratch, have %zu", tmp,
                        g->cub_bytes);
    tmp = g->cub_bytes;
    CU(cub::DeviceRadixSort::SortPairs(g->d_cub, tmp, dk, dv, m, 0, pl.key_bits, s));
    const uint32_t *keys = dk.Current(), *vals = dv.Current();

    CU(cudaMemsetAsync(buckets, 0, (size_t)pl.windows * pl.nb * sizeof(P), s));
    msm_bucket_end_kernel<<<blocks_for(m, 256), 256, 0, s>>>(keys, m, pl.zero_key, g->d_bucket_end);
    CU_LAUNCH("msm_bucket_end_kernel");

    const affine_t<E> *bases = (const affine_t<E> *)b->d_points;
    unsigned acc_blocks = blocks_for(S, MSM_THREADS);
    if constexpr (E::N < 12)
        msm_accumulate_kernel<E, 4><<<acc_blocks, MSM_THREADS, 0, s>>>(keys, vals, m, pl.seg_len, S, pl.zero_key,
                                                                       bases, buckets, tree, tail, g->d_tkey);
    else if (g->acc_minb == 3)
        msm_accumulate_kernel<E, 3><<<acc_blocks, MSM_THREADS, 0, s>>>(keys, vals, m, pl.seg_len, S, pl.zero_key,
                                                                       bases, buckets, tree, tail, g->d_tkey);
    else
        msm_accumulate_kernel<E, 1><<<acc_blocks, MSM_THREADS, 0, s>>>(keys, vals, m, pl.seg_len, S, pl.zero_key,
                                                                       bases, buckets, tree, tail, g->d_tkey);
    CU_LAUNCH("msm_accumulate_kernel");

    tree_levels lv;
    lv.count = 1;
    lv.off[0] = 0;
    uint32_t size = S, off = 0;
    while (size > 1 && lv.count < 40) {
        uint32_t next = (size + 1) / 2;
        msm_tree_kernel<E><<<blocks_for(next, MSM_THREADS), MSM_THREADS, 0, s>>>(tree, off, size, off + size,
                                                                                  next);
        CU_LAUNCH("msm_tree_kernel");
        off += size;
        size = next;
        lv.off[lv.count++] = off;
    }
    msm_fixup_kernel<E><<<blocks_for(S, MSM_THREADS), MSM_THREADS, 0, s>>>(tree, tail, g->d_tkey, g->d_bucket_end,
                                                                          S, pl.seg_len, lv, buckets);
    CU_LAUNCH("msm_fixup_kernel");

    uint32_t cpw = pl.nb / pl.chunk, total_chunks = (uint32_t)pl.windows * cpw;
    msm_chunk_kernel<E><<<blocks_for(total_chunks, MSM_THREADS), MSM_THREADS, 0, s>>>(buckets, total_chunks,
                                                                                     pl.chunk, red);
    CU_LAUNCH("msm_chunk_kernel");
    int lg_chunk = ilog2_u32(pl.chunk);
    for (uint32_t half = 1, lvl = 0; half < cpw; half *= 2, lvl++) {
        uint32_t threads = (uint32_t)pl.windows * (cpw / (2 * half));
        msm_merge_kernel<E><<<blocks_for(threads, MSM_THREADS), MSM_THREADS, 0, s>>>(
            red, (uint32_t)pl.windows, cpw, half, lg_chunk + (int)lvl);
        CU_LAUNCH("msm_merge_kernel");
    }
    msm_gather_kernel<E><<<1, 64, 0, s>>>(red, (uint32_t)pl.windows, cpw, (P *)g->d_win);
    CU_LAUNCH("msm_gather_kernel");
    CU(cudaEventRecord(g->ev[2], s));
    CU(cudaMemcpyAsync(g->h_win, g->d_win, (size_t)pl.windows * sizeof(P), cudaMemcpyDeviceToHost, s));
    CU(cudaEventRecord(g->ev[3], s));
    CU(cudaEventSynchronize(g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.total_ms, g->ev[0], g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.kernel_ms, g->ev[1], g->ev[2]));

    /* 5. Horner over the windows: sum_w 2^(cw) S_w. */
    const P *win = (const P *)g->h_win;
    P acc = win[pl.windows - 1];
    for (int w = pl.windows - 2; w >= 0; w--) {
        for (int d = 0; d < pl.c; d++)
            acc = acc.dbl();
        acc.add(win[w]);
    }
    acc.to_jac(o[0], o[1], o[2]);
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
