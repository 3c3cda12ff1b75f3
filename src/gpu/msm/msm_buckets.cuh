/* GPU MSM (msm.cuh), steps 3-5: the reduction's point additions, the
 * segmented accumulation into buckets, the sum tree and fix-up of split
 * buckets, the chunked bucket reduction per window and the host's Horner
 * step. */
#ifndef G16_GPU_MSM_BUCKETS_CUH
#define G16_GPU_MSM_BUCKETS_CUH

#include "msm_digits.cuh"

namespace g16gpu {

/* Point additions in the kernels off the hot path (tree, fix-up, bucket
 * reduction), inlined for every group. The out-of-line add_cold/dbl_cold
 * faulted on the H200 when a reduction took the doubling branch (first seen
 * for BN254 G2, 2026-11-30; then for G1 in the prover, where keys with many
 * infinity bases make equal partial sums common): compute-sanitizer reported
 * an invalid __local__ read in add_cold's doubling branch. The cause is
 * ptxas's (CUDA 13.0): in the out-of-line clone it holds `this` (a pointer
 * into the kernel's frame) in a uniform register that it also reuses as a
 * zero on another path, so the doubling branch loads this->zz from local
 * address 0x80 (the same tree built -Xptxas -O0 passes, memcheck clean).
 * No pointer into a frame crosses a call here. docs/gpu.md,
 * "The add_cold experiment", has the SASS and the variants measured. */
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

} /* namespace g16gpu */

#endif
