/* GPU MSM (msm.cuh), step 2b: rounds of batch-affine pairwise additions
 * over the sorted entries, before the XYZZ accumulation (gpu.msm_affine_rounds;
 * docs/gpu.md, "Batch-affine rounds").
 *
 * A round's input is m sorted entries (key, value = 2i + sign) over affine
 * points pts (round 1: the bases or the window table; later rounds: the
 * previous round's output, value 2j for point j). Slot s holds entries 2s and
 * 2s+1. When both have the same key, their points P and Q have nonzero and
 * different x, the slot is *combined*: its output is the affine sum
 *   lambda = (yQ - yP) / (xQ - xP),  x3 = lambda^2 - xP - xQ,
 *   y3 = lambda (xP - x3) - yP,
 * one entry. Otherwise each of its entries whose key is not zero_key passes
 * through unchanged (a point with x = 0, equal x (P = Q or P = -Q) and the
 * point at infinity (0, 0) are left to the XYZZ accumulation, which handles
 * every case). The output is sorted by key (slot order), its values are 2j
 * (point j of the output), and each key's point sum is the input's.
 *
 * The inversions of a round are shared (Montgomery's trick) in three levels:
 * thread t of block b owns slots b*AFF_SLOTS + i*AFF_THREADS + t (i < AFF_K)
 * and keeps their running products pref[s] (d = xQ - xP for a combined
 * slot, 1 otherwise); the block multiplies its threads' totals in a binary
 * tree in shared memory (root: roots[b]); one thread of the invert kernel
 * inverts AFF_INV_G roots with one field inversion. The finish kernel walks
 * the tree back down (inv(left) = inv(node) * right, inv(right) = inv(node)
 * * left), and each thread walks its slots backwards: 1/d_i = inv * pref[i-1],
 * then inv *= d_i. Per combined slot that is 3 products (prefix, two in the
 * back walk) and the addition's 2M + 1S, against madd-2008-s's 8M + 2S; the
 * tree adds about 3 products per thread and the inversion 1/AFF_INV_G of one
 * per block.
 *
 * Everything below the kernels is __host__ __device__ (one thread's part of
 * each phase), so tests/gpu/msm_affine_emul.cpp runs the rounds on the host.
 * This is variable-time code over the digits' bucket pattern, like the rest
 * of the MSM (msm.cuh); the field inversion itself is Fermat's. */
#ifndef G16_GPU_MSM_AFFINE_CUH
#define G16_GPU_MSM_AFFINE_CUH

#include "../ec/curve.cuh"

namespace g16gpu {

static const uint32_t AFF_THREADS = 128; /* threads per block (the tree's leaves) */
static const uint32_t AFF_K = 8;         /* slots per thread */
static const uint32_t AFF_SLOTS = AFF_THREADS * AFF_K;
static const uint32_t AFF_INV_G = 16; /* block roots per inversion */

/* A round's input. */
template <class E> struct aff_in {
    const uint32_t *keys, *vals;
    uint32_t m, zero_key;
    const affine_t<E> *pts;
};
/* A round's output: keys, values (2j) and points, at the scanned positions. */
template <class E> struct aff_out {
    uint32_t *keys, *vals;
    affine_t<E> *pts;
};

/* Slot codes: 0 nothing (a zero digit), 1 one entry through, 2 two entries
 * through, 3 combined (one entry, d = xQ - xP). The output count is 1 for
 * code 3, else the code. */
static const uint32_t AFF_COMBINED = 3;
static G16_HD uint32_t aff_count(uint32_t code) { return code == AFF_COMBINED ? 1 : code; }

/* Slot s's code; d = xQ - xP when combined, else 1. Reads the x coordinates
 * only. */
template <class E> G16_HD uint32_t aff_slot(const aff_in<E> &in, uint32_t s, E &d) {
    d = E::one();
    uint32_t j = 2 * s, k0 = in.keys[j];
    if (k0 == in.zero_key)
        return 0;
    if (j + 1 >= in.m)
        return 1;
    uint32_t k1 = in.keys[j + 1];
    if (k1 != k0)
        return k1 == in.zero_key ? 1 : 2;
    const E x0 = in.pts[in.vals[j] >> 1].x, x1 = in.pts[in.vals[j + 1] >> 1].x;
    if (x0.is_zero() || x1.is_zero() || x0 == x1)
        return 2;
    d = x1 - x0;
    return AFF_COMBINED;
}

/* Entry j's point, its sign applied. */
template <class E> G16_HD affine_t<E> aff_load(const aff_in<E> &in, uint32_t j) {
    uint32_t v = in.vals[j];
    affine_t<E> p = in.pts[v >> 1];
    if (v & 1)
        p.y = p.y.neg();
    return p;
}

/* Phase 1, thread t of block blk: codes into counts[s], running products
 * into pref[s]; returns the thread's total. */
template <class E>
G16_HD E aff_prefix_thread(const aff_in<E> &in, uint32_t blk, uint32_t t, E *pref, uint32_t *counts) {
    uint32_t nslots = (in.m + 1) / 2;
    E acc = E::one();
    for (uint32_t i = 0; i < AFF_K; i++) {
        uint32_t s = blk * AFF_SLOTS + i * AFF_THREADS + t;
        if (s >= nslots)
            break;
        E d;
        uint32_t code = aff_slot(in, s, d);
        if (code == AFF_COMBINED)
            acc = acc * d;
        pref[s] = acc;
        counts[s] = aff_count(code);
    }
    return acc;
}

/* The block's product tree, a heap: tree[AFF_THREADS + t] = thread t's
 * total, tree[i] = tree[2i] * tree[2i+1], root tree[1]. One level per call
 * (w = AFF_THREADS/2 down to 1), threads t < w. */
template <class E> G16_HD void aff_tree_up(E *tree, uint32_t w, uint32_t t) {
    if (t < w)
        tree[w + t] = tree[2 * (w + t)] * tree[2 * (w + t) + 1];
}
/* Down the tree with tree[1] = 1/root (w = 1 up to AFF_THREADS/2): each
 * node's children become their inverses. */
template <class E> G16_HD void aff_tree_down(E *tree, uint32_t w, uint32_t t) {
    if (t < w) {
        uint32_t i = w + t;
        E inv = tree[i], a = tree[2 * i], b = tree[2 * i + 1];
        tree[2 * i] = inv * b;
        tree[2 * i + 1] = inv * a;
    }
}

/* Phase 2, thread t: roots[t*G .. t*G+G) replaced by their inverses (one
 * inversion; no root is zero, since every d is nonzero). */
template <class E> G16_HD void aff_invert_thread(E *roots, uint32_t n, uint32_t t) {
    uint32_t lo = t * AFF_INV_G;
    if (lo >= n)
        return;
    uint32_t hi = lo + AFF_INV_G < n ? lo + AFF_INV_G : n;
    E pre[AFF_INV_G];
    E acc = E::one();
    for (uint32_t i = lo; i < hi; i++) {
        pre[i - lo] = acc;
        acc = acc * roots[i];
    }
    E inv = acc.inv();
    for (uint32_t i = hi; i-- > lo;) {
        E r = roots[i];
        roots[i] = inv * pre[i - lo];
        inv = inv * r;
    }
}

/* Phase 3, thread t of block blk, inv = 1 / (its total): the outputs of its
 * slots at pos[s]. */
template <class E>
G16_HD void aff_finish_thread(const aff_in<E> &in, uint32_t blk, uint32_t t, E inv, const E *pref,
                              const uint32_t *pos, const aff_out<E> &out) {
    uint32_t nslots = (in.m + 1) / 2;
    for (uint32_t i = AFF_K; i-- > 0;) {
        uint32_t s = blk * AFF_SLOTS + i * AFF_THREADS + t;
        if (s >= nslots)
            continue;
        E d;
        uint32_t code = aff_slot(in, s, d), j = 2 * s, o = pos[s];
        if (code == AFF_COMBINED) {
            E dinv = i > 0 ? inv * pref[s - AFF_THREADS] : inv; /* 1/d */
            inv = inv * d;
            affine_t<E> p = aff_load(in, j), q = aff_load(in, j + 1);
            E lam = (q.y - p.y) * dinv;
            E x3 = lam.sqr() - p.x - q.x;
            E y3 = lam * (p.x - x3) - p.y;
            out.pts[o] = affine_t<E>{x3, y3};
            out.keys[o] = in.keys[j];
            out.vals[o] = 2 * o;
            continue;
        }
        for (uint32_t e = 0; e < code; e++) {
            out.pts[o + e] = aff_load(in, j + e);
            out.keys[o + e] = in.keys[j + e];
            out.vals[o + e] = 2 * (o + e);
        }
    }
}

#if defined(__CUDACC__)
template <class E>
__global__ void __launch_bounds__(AFF_THREADS)
    msm_aff_prefix_kernel(aff_in<E> in, E *__restrict__ pref, E *__restrict__ tot, E *__restrict__ roots,
                          uint32_t *__restrict__ counts) {
    __shared__ E tree[2 * AFF_THREADS];
    uint32_t t = threadIdx.x;
    E acc = aff_prefix_thread(in, blockIdx.x, t, pref, counts);
    tot[blockIdx.x * AFF_THREADS + t] = acc;
    tree[AFF_THREADS + t] = acc;
    __syncthreads();
    for (uint32_t w = AFF_THREADS / 2; w >= 1; w >>= 1) {
        aff_tree_up(tree, w, t);
        __syncthreads();
    }
    if (t == 0)
        roots[blockIdx.x] = tree[1];
}

template <class E> __global__ void msm_aff_invert_kernel(E *roots, uint32_t n) {
    aff_invert_thread(roots, n, blockIdx.x * blockDim.x + threadIdx.x);
}

template <class E>
__global__ void __launch_bounds__(AFF_THREADS)
    msm_aff_finish_kernel(aff_in<E> in, const E *__restrict__ pref, const E *__restrict__ tot,
                          const E *__restrict__ roots, const uint32_t *__restrict__ pos, aff_out<E> out) {
    __shared__ E tree[2 * AFF_THREADS];
    uint32_t t = threadIdx.x;
    tree[AFF_THREADS + t] = tot[blockIdx.x * AFF_THREADS + t];
    __syncthreads();
    for (uint32_t w = AFF_THREADS / 2; w >= 1; w >>= 1) {
        aff_tree_up(tree, w, t);
        __syncthreads();
    }
    if (t == 0)
        tree[1] = roots[blockIdx.x];
    __syncthreads();
    for (uint32_t w = 1; w < AFF_THREADS; w <<= 1) {
        aff_tree_down(tree, w, t);
        __syncthreads();
    }
    aff_finish_thread(in, blockIdx.x, t, tree[AFF_THREADS + t], pref, pos, out);
}
#endif

} /* namespace g16gpu */

#endif
