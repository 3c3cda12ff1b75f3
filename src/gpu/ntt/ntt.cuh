/* GPU NTT over Fr (BN254, BLS12-381), templated over the field type F =
 * fp_t<..._fr_cfg> (8 limbs of 32 bits, the CPU's Montgomery form and bytes).
 * Contract: src/gpu/gpu.h ("NTT over Fr"); definitions, roots and orders are
 * the CPU's (src/ntt/ntt.h). Field arithmetic is exact, so any network
 * computing the same transform gives the CPU's bytes (fully reduced).
 *
 * Network. A transform of size n = 2^k is a radix-2 DIF (natural in,
 * bit-reversed out) or DIT (bit-reversed in, natural out) network, cut into
 * at most 3 passes over global memory (plan below). A pass works on the
 * contiguous sub-problems of size M = 2^m (m = k for the first DIF pass) and
 * does the B butterfly levels of the top B index bits: a position of a
 * sub-problem is P = j*2^(m-B) + lo (j < 2^B), and for each lo the pass runs
 * a size-2^B DIF (or DIT) over j, the "column" of stride 2^(m-B). The four-
 * step identity (Bailey; for DIF, with x = j*2^(m-B) + lo,
 *   X[k1 + 2^B k2] = sum_lo w_{2^(m-B)}^(lo k2) w_M^(lo k1) sum_j a[x] w_{2^B}^(j k1))
 * gives the twiddle between passes: after a DIF pass (before a DIT pass) the
 * element at (j, lo) is multiplied by w_M^(lo * rev_B(j)). The remaining
 * levels are the same problem on the contiguous blocks of 2^(m-B).
 *
 * Kernel. One thread block loads a tile of 2^B rows (j) x 2^t columns
 * (consecutive lo: 2^t * 32 bytes contiguous per row, t = 2 -> 128-byte
 * lines) into shared memory, stored as 8 planes of 32-bit limbs (limb i of
 * tile element e at S[i*tile + e]: consecutive elements are consecutive
 * banks), runs the B levels with a __syncthreads between levels, and writes
 * the tile back. Level twiddles w_{2h}^u come from a per-domain table of the
 * powers of w_{2^L}, L = min(k, 11); the inter-pass twiddle w_n^E (E < n)
 * is +-tfull[E mod n/2], a table of the n/2 powers w_n^i per direction
 * (w_n^(n/2) = -1), one load where a pair of O(sqrt n) tables costs a
 * product more per element.
 *
 * Scaling (inverse's n^-1, coset shifts, odd coset) is folded into the first
 * pass's load (pre) or the last pass's store (post): factor(P) = s1[P mod
 * 2^c] * s2[P >> c] for the global position P, where the two tables hold
 * g^P (natural positions) or g^rev_k(P) (bit-reversed positions: rev_k(hi
 * 2^c + lo) = rev_c(lo) 2^(k-c) + rev_(k-c)(hi)), a constant folded into s1.
 * Tables for a caller's shift are built per call in the context's scratch
 * (g->d_ntt_scratch) by a small kernel, on the stream.
 *
 * Everything is queued on g->stream; the *_dev paths neither allocate nor
 * synchronize with the host. */
#ifndef G16_GPU_NTT_CUH
#define G16_GPU_NTT_CUH

#include <stdlib.h>
#include <string.h>

#include "../ff/field.cuh"
#ifdef G16_NTT_EMUL
#include "ntt_emul.h" /* host emulation of the kernels (tests/gpu/ntt_emul.cpp) */
#else
#include "../host/gpu_internal.cuh"
/* Launch on g's stream; _SYNC marks kernels with __syncthreads (the host
 * emulation runs those with one thread per block). */
#define NTT_LAUNCH(K, GRID, THREADS, SMEM, ...)                      \
    do {                                                             \
        K<<<(GRID), (THREADS), (SMEM), g->stream>>>(__VA_ARGS__);     \
        CU_LAUNCH(K);                                                \
    } while (0)
#define NTT_LAUNCH_SYNC NTT_LAUNCH
#endif

namespace g16gpu {

enum { NTT_NN_ = 0, NTT_NR_ = 1, NTT_RN_ = 2, NTT_RR_ = 3 }; /* ntt_order (src/ntt/ntt.h) */

/* Tile shape; the host emulation also runs with tiny tiles (many passes at
 * small sizes) to exercise the multi-pass logic. */
#ifndef G16_NTT_TILE_LOG
#define G16_NTT_TILE_LOG 11
#define G16_NTT_PASS_MAX_B 9
#define G16_NTT_COLS_LOG 2
#endif
static const unsigned NTT_TILE_LOG = G16_NTT_TILE_LOG;     /* elements per tile, at most: 64 KiB of shared memory */
static const unsigned NTT_PASS_MAX_B = G16_NTT_PASS_MAX_B; /* levels of a pass that is not the last (DIF order) */
static const unsigned NTT_COLS_LOG = G16_NTT_COLS_LOG;     /* columns of such a pass's tile */
static const unsigned NTT_THREADS = 256;       /* pass blocks: at most (the kernel's bound), and above 2^10 */
static const unsigned NTT_THREADS_SMALL = 128; /* pass blocks of tiles up to 2^10 elements */

/* factor(P): mode 0 none, 1 the constant c, 2 s1[P & (2^bits-1)] * s2[P >> bits]. */
template <class F> struct ntt_scale {
    const F *s1, *s2;
    unsigned bits;
    int mode;
    F c;
};

template <class F> struct ntt_pass_args {
    F *a;
    unsigned k;       /* log2 n */
    unsigned m, B, t; /* sub-problem 2^m, levels B, tile columns 2^t */
    const F *roots;   /* roots[x] = w_{2^L}^x, x < 2^(L-1) (direction's root) */
    unsigned L;
    const F *tfull;   /* inter-pass twiddle w_n^E = +-tfull[E mod n/2] (n/2 elements; tw only) */
    int tw;  /* apply the inter-pass twiddle (m > B) */
    int dit; /* DIT (twiddle on load) or DIF (twiddle on store) */
    ntt_scale<F> pre, post;
    /* Fused pass (odd coset): after the B DIF levels, scale by mid and run
     * B DIT levels with roots2 on the same tile (m == B, t == 0). */
    int fuse;
    const F *roots2;
    ntt_scale<F> mid;
};

template <class F> __device__ __forceinline__ F ntt_gload(const F *p) {
    static_assert(F::N % 4 == 0, "ntt: limbs in uint4 units");
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    F r;
G16_UNROLL
    for (int i = 0; i < F::N / 4; i++) {
        uint4 u = __ldg(q + i);
        r.l[4 * i] = u.x, r.l[4 * i + 1] = u.y, r.l[4 * i + 2] = u.z, r.l[4 * i + 3] = u.w;
    }
    return r;
}
/* Plain load (data that the same kernel sequence rewrites: no __ldg). */
template <class F> __device__ __forceinline__ F ntt_load(const F *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    F r;
G16_UNROLL
    for (int i = 0; i < F::N / 4; i++) {
        uint4 u = q[i];
        r.l[4 * i] = u.x, r.l[4 * i + 1] = u.y, r.l[4 * i + 2] = u.z, r.l[4 * i + 3] = u.w;
    }
    return r;
}
template <class F> __device__ __forceinline__ void ntt_store(F *p, const F &x) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
G16_UNROLL
    for (int i = 0; i < F::N / 4; i++)
        q[i] = make_uint4(x.l[4 * i], x.l[4 * i + 1], x.l[4 * i + 2], x.l[4 * i + 3]);
}
template <class F> __device__ __forceinline__ F ntt_sget(const uint32_t *S, unsigned e, unsigned tile) {
    F r;
G16_UNROLL
    for (int i = 0; i < F::N; i++)
        r.l[i] = S[i * tile + e];
    return r;
}
template <class F> __device__ __forceinline__ void ntt_sput(uint32_t *S, unsigned e, unsigned tile, const F &x) {
G16_UNROLL
    for (int i = 0; i < F::N; i++)
        S[i * tile + e] = x.l[i];
}

template <class F> __device__ __forceinline__ F ntt_factor(const ntt_scale<F> &s, uint32_t P) {
    if (s.mode == 1)
        return s.c;
    return ntt_gload(s.s1 + (P & ((1u << s.bits) - 1))) * ntt_gload(s.s2 + (P >> s.bits));
}

/* w_M^(lo * rev_B(j)) as w_n^E, E = (lo * rev_B(j)) << (k - m) < n. */
template <class F>
__device__ __forceinline__ F ntt_twiddle(const ntt_pass_args<F> &p, uint32_t j, uint32_t lo) {
    uint32_t E = (lo * (__brev(j) >> (32 - p.B))) << (p.k - p.m);
    const uint32_t hn = 1u << (p.k - 1); /* w_n^(n/2) = -1 */
    F w = ntt_gload(p.tfull + (E & (hn - 1)));
    return (E & hn) ? w.neg() : w;
}

/* The B butterfly levels of a pass on the tile in shared memory (layout in
 * the top comment): DIF from the top level down, DIT from the bottom up;
 * roots[x] = w_{2^L}^x. Butterfly b of a level of half distance h = 2^lh
 * takes column b mod 2^t of the rows jx = (i >> lh) 2^(lh+1) + u and jx + h,
 * i = b >> t, u = i mod h, and twiddle w_2h^u (none at lh = 0, where u = 0).
 * Starts with a barrier (the tile's loads). */
template <class F>
__device__ __forceinline__ void ntt_levels(uint32_t *S, unsigned tile, unsigned B, unsigned t, int dit,
                                           const F *roots, unsigned L) {
    const uint32_t tmask = (1u << t) - 1;
    const unsigned half = tile >> 1;
    for (unsigned s = 0; s < B; s++) {
        __syncthreads();
        const unsigned lh = dit ? s : B - 1 - s;
        const uint32_t h = 1u << lh;
        for (unsigned b = threadIdx.x; b < half; b += blockDim.x) {
            uint32_t col = b & tmask, i = b >> t;
            uint32_t u = i & (h - 1);
            uint32_t jx = ((i >> lh) << (lh + 1)) + u;
            uint32_t ex = (jx << t) + col, ey = ex + (h << t);
            F x = ntt_sget<F>(S, ex, tile), y = ntt_sget<F>(S, ey, tile);
            if (dit) {
                if (lh)
                    y = y * ntt_gload(roots + (u << (L - 1 - lh)));
                ntt_sput(S, ex, tile, x + y);
                ntt_sput(S, ey, tile, x - y);
            } else {
                F d = x - y;
                if (lh)
                    d = d * ntt_gload(roots + (u << (L - 1 - lh)));
                ntt_sput(S, ex, tile, x + y);
                ntt_sput(S, ey, tile, d);
            }
        }
    }
}

/* One pass (see the top comment). Grid: n / 2^(B+t) blocks of at most
 * g16_gpu_domain.threads threads; dynamic shared memory 2^(B+t) elements.
 * Bounded to 64 registers (256 x 4 per SM's 65536), no spills on sm_90: 1-2%
 * faster than 72-80 registers (H200, 2026-12-01). */
template <class F> __global__ void __launch_bounds__(NTT_THREADS, 4) ntt_pass_kernel(ntt_pass_args<F> p) {
    extern __shared__ uint32_t S[];
    const unsigned tile = 1u << (p.B + p.t);
    const unsigned lo_bits = p.m - p.B;
    const unsigned chunks_log = lo_bits - p.t;
    const uint32_t tmask = (1u << p.t) - 1;
    const uint32_t bid = blockIdx.x;
    const uint32_t base = (bid >> chunks_log) << p.m;
    const uint32_t lo0 = (bid & ((1u << chunks_log) - 1)) << p.t;

    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        uint32_t j = e >> p.t, lo = lo0 + (e & tmask);
        uint32_t P = base + (j << lo_bits) + lo;
        F x = ntt_load(p.a + P);
        if (p.dit && p.tw)
            x = x * ntt_twiddle(p, j, lo);
        if (p.pre.mode)
            x = x * ntt_factor(p.pre, P);
        ntt_sput(S, e, tile, x);
    }
    ntt_levels<F>(S, tile, p.B, p.t, p.dit, p.roots, p.L);
    if (p.fuse) {
        if (p.mid.mode) {
            __syncthreads();
            for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
                uint32_t j = e >> p.t, lo = lo0 + (e & tmask);
                uint32_t P = base + (j << lo_bits) + lo;
                ntt_sput(S, e, tile, ntt_sget<F>(S, e, tile) * ntt_factor(p.mid, P));
            }
        }
        ntt_levels<F>(S, tile, p.B, p.t, 1, p.roots2, p.L);
    }
    __syncthreads();
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        uint32_t j = e >> p.t, lo = lo0 + (e & tmask);
        uint32_t P = base + (j << lo_bits) + lo;
        F x = ntt_sget<F>(S, e, tile);
        if (!p.dit && p.tw)
            x = x * ntt_twiddle(p, j, lo);
        if (p.post.mode)
            x = x * ntt_factor(p.post, P);
        ntt_store(p.a + P, x);
    }
}

/* In-place bit-reversal permutation of 2^k elements, k >= 1. */
template <class F> __global__ void ntt_bitrev_kernel(F *a, unsigned k, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t j = __brev(i) >> (32 - k);
    if (i < j) {
        F x = ntt_load(a + i), y = ntt_load(a + j);
        ntt_store(a + i, y);
        ntt_store(a + j, x);
    }
}

/* In-place bit reversal by 16 x 16 tiles, k >= 8: an index is (a, b, c)
 * with a the top 4 bits, c the low 4, b the k-8 middle ones, and
 * rev_k(a, b, c) = (rev_4 c, rev b, rev_4 a). Block b (with b <= b' = rev b)
 * loads the tiles X = {(a, b, c)} and Y = {(a, b', c)} (rows of 16
 * consecutive elements: 512-byte runs), transposes them through shared
 * memory and writes X to {(r, b', q)}, Y to {(r, b, q)}, again in rows. */
template <class F> __global__ void ntt_bitrev_tile_kernel(F *a, unsigned k) {
    extern __shared__ uint32_t S[]; /* 2 tiles of 256 elements, limb planes */
    const uint32_t mb = k - 8, b = blockIdx.x;
    const uint32_t b2 = mb ? __brev(b) >> (32 - mb) : 0;
    if (b > b2)
        return;
    const unsigned rs = k - 4; /* row stride log */
    for (unsigned t = threadIdx.x; t < 256; t += blockDim.x) {
        uint32_t r = t >> 4, q = t & 15;
        F x = ntt_load(a + (((size_t)r << rs) + (b << 4) + q));
        F y = ntt_load(a + (((size_t)r << rs) + (b2 << 4) + q));
        uint32_t e = ((__brev(q) >> 28) << 4) + (__brev(r) >> 28); /* (rev c, rev a) */
        ntt_sput(S, e, 512, x);
        ntt_sput(S, 256 + e, 512, y);
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < 256; t += blockDim.x) {
        uint32_t r = t >> 4, q = t & 15;
        ntt_store(a + (((size_t)r << rs) + (b2 << 4) + q), ntt_sget<F>(S, t, 512));
        ntt_store(a + (((size_t)r << rs) + (b << 4) + q), ntt_sget<F>(S, 256 + t, 512));
    }
}

/* out[i] = c * base^e(i), e(i) = rev_revbits(i) (revbits > 0) or i, for
 * i < cnt. Square-and-multiply, variable time in the exponent e(i): the
 * position, public. */
template <class F> __global__ void ntt_powers_kernel(F *out, uint32_t cnt, F base, F c, unsigned revbits) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cnt)
        return;
    uint32_t e = revbits ? __brev(i) >> (32 - revbits) : i;
    F r = c, b = base;
    while (e) {
        if (e & 1)
            r = r * b;
        e >>= 1;
        if (e)
            b = b.sqr();
    }
    ntt_store(out + i, r);
}

/* h_i = a_i * b_i - c_i, out of Montgomery form (times the integer 1, i.e.
 * * R^-1): the canonical little-endian integer, as g16_scalar. h may alias a. */
template <class F> __global__ void ntt_h_kernel(const F *a, const F *b, const F *c, F *h, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    F x = ntt_load(a + i) * ntt_load(b + i) - ntt_load(c + i);
    F one = F::zero();
    one.l[0] = 1;
    ntt_store(h + i, x * one);
}

/* ---- host side ---------------------------------------------------------------- */

/* Passes in DIF order (first = the top bits): np <= 3 for k <= 28 with the
 * default shape. Passes before the last take at most NTT_TILE_LOG - cols
 * levels (tile 2^(B+t), t = cols columns), the last one up to NTT_TILE_LOG
 * (t = 0). */
struct ntt_plan {
    int np;
    unsigned m[32], B[32], t[32];
};
static inline ntt_plan ntt_make_plan(unsigned k, unsigned cols) {
    ntt_plan pl;
    unsigned maxb = NTT_TILE_LOG - cols;
    pl.np = k <= NTT_TILE_LOG ? 1 : 1 + (int)((k - NTT_TILE_LOG + maxb - 1) / maxb);
    unsigned q = (k + (unsigned)pl.np - 1) / (unsigned)pl.np, m = k;
    for (int i = 0; i < pl.np; i++) {
        unsigned B = m;
        if (i < pl.np - 1)
            B = q < maxb ? q : maxb;
        pl.m[i] = m;
        pl.B[i] = B;
        pl.t[i] = m - B < cols ? m - B : cols;
        m -= B;
    }
    return pl;
}

template <class F> static F ntt_host_load(const uint64_t v[4]) {
    F r;
    for (int i = 0; i < F::N; i++)
        r.l[i] = (i & 1) ? (uint32_t)(v[i >> 1] >> 32) : (uint32_t)v[i >> 1];
    return r;
}
template <class F> static F ntt_pow2k(F x, unsigned s) { /* x^(2^s) */
    for (unsigned i = 0; i < s; i++)
        x = x.sqr();
    return x;
}
static inline unsigned ntt_blocks(size_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

template <class F>
static g16_err ntt_powers(g16_gpu *g, F *out, size_t cnt, const F &base, const F &c, unsigned revbits,
                          g16_status *st) {
    NTT_LAUNCH(ntt_powers_kernel<F>, ntt_blocks(cnt, 128), 128, 0, out, (uint32_t)cnt, base, c, revbits);
    return G16_OK;
}

/* Element counts of a domain's tables (one allocation, in this order): the
 * pass roots of both directions (nr each), the odd-coset scale tables (ntl
 * and nth: 2^cb and 2^(k-cb)). */
struct ntt_dom_sizes {
    unsigned L, cb;
    size_t nr, ntl, nth, total;
};
static inline ntt_dom_sizes ntt_dom_layout(unsigned k) {
    ntt_dom_sizes z;
    z.L = k < NTT_TILE_LOG ? k : NTT_TILE_LOG;
    z.nr = z.L ? (size_t)1 << (z.L - 1) : 1;
    z.cb = (k + 1) / 2;
    z.ntl = (size_t)1 << z.cb;
    z.nth = (size_t)1 << (k - z.cb);
    z.total = 2 * z.nr + z.ntl + z.nth;
    return z;
}

/* Fills d (log_n, curve set) from the CPU's root tables (ntt_constants.h):
 * roots[i] = w[i], roots_inv[i] = w[i]^-1, inv2pow[i] = 2^-i, i <= s. */
template <class F>
g16_err ntt_domain_init(g16_gpu *g, g16_gpu_domain *d, const uint64_t (*roots)[4], const uint64_t (*roots_inv)[4],
                        const uint64_t (*inv2pow)[4], unsigned s, g16_status *st) {
    unsigned k = d->log_n;
    ntt_dom_sizes z = ntt_dom_layout(k);
    /* Columns per tile of the passes before the last: 2^NTT_COLS_LOG, or
     * the creating context's gpu.ntt_cols_log (1..4, for measurements; the
     * levels per pass shrink as the columns grow, the tile staying
     * 2^NTT_TILE_LOG). */
    d->cols_log = NTT_COLS_LOG;
    if (g->ntt_cols_log >= 1 && g->ntt_cols_log <= 4 && g->ntt_cols_log < NTT_TILE_LOG)
        d->cols_log = g->ntt_cols_log;
    /* Threads per pass block (ntt_pass_launch): by tile size, or all
     * gpu.ntt_threads (32..256, a power of two), for measurements. */
    d->threads = 0;
    if (g->ntt_threads >= 32 && g->ntt_threads <= NTT_THREADS && !(g->ntt_threads & (g->ntt_threads - 1)))
        d->threads = g->ntt_threads;
    /* Inter-pass twiddles from a full table of n/2 elements per direction
     * (one multiplication per element where O(sqrt n) tables take two, 32
     * more bytes read), for multi-pass sizes: 10% faster at 2^24 (2026-11-30), for n x 32 bytes (counted in groth16_gpu_work_bytes). A
     * single-pass size (k <= NTT_TILE_LOG) has no inter-pass twiddle. */
    d->d_full = d->tfull[0] = d->tfull[1] = NULL;
    if (k > NTT_TILE_LOG)
        CU(cudaMalloc(&d->d_full, ((size_t)1 << k) * sizeof(F)));
    CU(cudaMalloc(&d->d_mem, z.total * sizeof(F)));
    F *p = (F *)d->d_mem;
    for (int dir = 0; dir < 2; dir++)
        d->roots[dir] = p, p += z.nr;
    F *os1 = p, *os2 = p + z.ntl;
    F one = F::one(), ninv = ntt_host_load<F>(inv2pow[k]);
    memcpy(d->ninv, &ninv, sizeof ninv);
    for (int dir = 0; dir < 2; dir++) {
        const uint64_t(*R)[4] = dir ? roots_inv : roots;
        F wL = ntt_host_load<F>(R[z.L]), wn = ntt_host_load<F>(R[k]);
        g16_err rc;
        if (d->d_full) {
            d->tfull[dir] = (F *)d->d_full + (dir ? (size_t)1 << (k - 1) : 0);
            if ((rc = ntt_powers(g, (F *)d->tfull[dir], (size_t)1 << (k - 1), wn, one, 0, st)))
                return rc;
        }
        if ((rc = ntt_powers(g, (F *)d->roots[dir], z.nr, wL, one, 0, st)))
            return rc;
    }
    d->odd_s1 = d->odd_s2 = NULL;
    if (k < s) { /* odd coset: g = w[k+1]; factor(P) = n^-1 g^rev_k(P) */
        F go = ntt_host_load<F>(roots[k + 1]);
        g16_err rc;
        if ((rc = ntt_powers(g, os1, z.ntl, ntt_pow2k(go, k - z.cb), ninv, z.cb, st)) ||
            (rc = ntt_powers(g, os2, z.nth, go, one, k - z.cb, st)))
            return rc;
        d->odd_s1 = os1;
        d->odd_s2 = os2;
    }
    CU(cudaFuncSetAttribute(ntt_pass_kernel<F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)(((size_t)1 << NTT_TILE_LOG) * sizeof(F))));
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

/* Arguments of pass i (DIF order) of the network in direction dir. */
template <class F>
static ntt_pass_args<F> ntt_pass_make(const g16_gpu_domain *d, F *a, const ntt_plan &pl, int i, int dir, int dit) {
    ntt_dom_sizes z = ntt_dom_layout(d->log_n);
    ntt_pass_args<F> p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.k = d->log_n;
    p.m = pl.m[i];
    p.B = pl.B[i];
    p.t = pl.t[i];
    p.roots = (const F *)d->roots[dir];
    p.L = z.L;
    p.tfull = (const F *)d->tfull[dir];
    p.tw = p.m > p.B;
    p.dit = dit;
    return p;
}

template <class F> static g16_err ntt_pass_launch(g16_gpu *g, const g16_gpu_domain *d, const ntt_pass_args<F> &p,
                                                  g16_status *st) {
    unsigned tile = 1u << (p.B + p.t);
    /* 128 threads for tiles of up to 2^10 elements, 256 above (at most one
     * per butterfly). H200, 2026-12-01: 128 beat 256 by 1.5-2% at 2^24
     * (tiles of 2^10 and 2^8), where a barrier then waits for fewer warps
     * and six blocks (32 KiB of tile each) still fill an SM; with 2^11 tiles
     * (64 KiB: three blocks per SM) 128 threads lost 5-20% (2^20, 2^26,
     * 2^27), too few warps per SM. 64 threads lost 11% at 2^24. */
    unsigned threads = d->threads ? d->threads : tile <= 1024 ? NTT_THREADS_SMALL : NTT_THREADS;
    if (threads > tile / 2)
        threads = tile / 2 ? tile / 2 : 1;
    unsigned blocks = (unsigned)(((size_t)1 << p.k) >> (p.B + p.t));
    NTT_LAUNCH_SYNC(ntt_pass_kernel<F>, blocks, threads, tile * sizeof(F), p);
    return G16_OK;
}

/* The unpermuted network (DIF natural -> bit-reversed, DIT bit-reversed ->
 * natural) in direction dir (0: w_n, 1: w_n^-1, without the n^-1), with pre
 * applied on load and post on store. */
template <class F>
static g16_err ntt_core(g16_gpu *g, const g16_gpu_domain *d, F *a, int dir, int dit, const ntt_scale<F> &pre,
                        const ntt_scale<F> &post, g16_status *st) {
    ntt_plan pl = ntt_make_plan(d->log_n, d->cols_log);
    for (int s = 0; s < pl.np; s++) {
        ntt_pass_args<F> p = ntt_pass_make<F>(d, a, pl, dit ? pl.np - 1 - s : s, dir, dit);
        if (s == 0)
            p.pre = pre;
        if (s == pl.np - 1)
            p.post = post;
        g16_err rc = ntt_pass_launch<F>(g, d, p, st);
        if (rc)
            return rc;
    }
    return G16_OK;
}

template <class F> static g16_err ntt_bitrev(g16_gpu *g, const g16_gpu_domain *d, F *a, g16_status *st) {
    unsigned k = d->log_n;
    if (k == 0)
        return G16_OK;
    size_t n = (size_t)1 << k;
    if (k >= 8) { /* the tiled kernel: NN 2^24 6% faster than the swap (H200, 2026-11-30) */
        NTT_LAUNCH_SYNC(ntt_bitrev_tile_kernel<F>, (unsigned)(n >> 8), 256, 512 * sizeof(F), a, k);
        return G16_OK;
    }
    NTT_LAUNCH(ntt_bitrev_kernel<F>, ntt_blocks(n, 256), 256, 0, a, k, (uint32_t)n);
    return G16_OK;
}

/* Values on the domain -> values on the odd coset g*omega^i (g = w_2n):
 * the inverse DIF network with the scale n^-1 g^rev_k(P) on its last store
 * (coefficients times g^j, bit-reversed), then the forward DIT network.
 * Both networks' passes over the contiguous blocks of 2^B (the DIF's last,
 * the DIT's first) run as one fused pass: one read and write of the array
 * fewer. */
template <class F> static g16_err ntt_odd_coset(g16_gpu *g, const g16_gpu_domain *d, F *a, g16_status *st) {
    ntt_scale<F> odd;
    memset(&odd, 0, sizeof odd);
    odd.mode = 2;
    odd.s1 = (const F *)d->odd_s1;
    odd.s2 = (const F *)d->odd_s2;
    odd.bits = ntt_dom_layout(d->log_n).cb;
    ntt_plan pl = ntt_make_plan(d->log_n, d->cols_log);
    for (int i = 0; i < pl.np; i++) { /* the inverse DIF, its last pass fused */
        ntt_pass_args<F> p = ntt_pass_make<F>(d, a, pl, i, 1, 0);
        if (i == pl.np - 1) {
            p.fuse = 1;
            p.roots2 = (const F *)d->roots[0];
            p.mid = odd;
        }
        g16_err rc = ntt_pass_launch<F>(g, d, p, st);
        if (rc)
            return rc;
    }
    for (int i = pl.np - 2; i >= 0; i--) { /* the rest of the forward DIT */
        g16_err rc = ntt_pass_launch<F>(g, d, ntt_pass_make<F>(d, a, pl, i, 0, 1), st);
        if (rc)
            return rc;
    }
    return G16_OK;
}

/* g16_gpu_ntt_dev, arguments checked by the caller (ntt.cu). */
template <class F>
g16_err ntt_run(g16_gpu *g, const g16_gpu_domain *d, void *data, g16_gpu_ntt_kind kind, int order,
                const void *shift, g16_status *st) {
    F *a = (F *)data;
    unsigned k = d->log_n;
    if (kind == G16_GPU_NTT_ODD_COSET)
        return ntt_odd_coset<F>(g, d, a, st);
    int dir = kind == G16_GPU_NTT_INVERSE || kind == G16_GPU_NTT_COSET_INVERSE;
    F ninv;
    memcpy(&ninv, d->ninv, sizeof ninv);
    ntt_scale<F> pre, post;
    memset(&pre, 0, sizeof pre);
    post = pre;
    if (kind == G16_GPU_NTT_COSET_FORWARD || kind == G16_GPU_NTT_COSET_INVERSE) {
        F gs, one = F::one();
        memcpy(&gs, shift, sizeof gs);
        F base = dir ? gs.inv() : gs, c = dir ? ninv : one;
        /* Positions scaled: forward, the DIF/DIT input (bit-reversed for RN
         * only: RR permutes first); inverse, the network's output
         * (natural for RN only: NN permutes after). */
        int rev = dir ? order != NTT_RN_ : order == NTT_RN_;
        unsigned cb = ntt_dom_layout(k).cb;
        F *s1 = (F *)g->d_ntt_scratch, *s2 = s1 + ((size_t)1 << cb);
        g16_err rc;
        if (rev)
            rc = ntt_powers(g, s1, (size_t)1 << cb, ntt_pow2k(base, k - cb), c, cb, st);
        else
            rc = ntt_powers(g, s1, (size_t)1 << cb, base, c, 0, st);
        if (rc)
            return rc;
        if (rev)
            rc = ntt_powers(g, s2, (size_t)1 << (k - cb), base, one, k - cb, st);
        else
            rc = ntt_powers(g, s2, (size_t)1 << (k - cb), ntt_pow2k(base, cb), one, 0, st);
        if (rc)
            return rc;
        ntt_scale<F> sc = pre;
        sc.mode = 2;
        sc.s1 = s1;
        sc.s2 = s2;
        sc.bits = cb;
        if (dir)
            post = sc;
        else
            pre = sc;
    } else if (dir) {
        post.mode = 1;
        post.c = ninv;
    }
    g16_err rc;
    switch (order) {
    case NTT_NR_: return ntt_core<F>(g, d, a, dir, 0, pre, post, st);
    case NTT_RN_: return ntt_core<F>(g, d, a, dir, 1, pre, post, st);
    case NTT_NN_:
        if ((rc = ntt_core<F>(g, d, a, dir, 0, pre, post, st)))
            return rc;
        return ntt_bitrev<F>(g, d, a, st);
    default: /* RR */
        if ((rc = ntt_bitrev<F>(g, d, a, st)))
            return rc;
        return ntt_core<F>(g, d, a, dir, 0, pre, post, st);
    }
}

/* g16_gpu_h_dev, arguments checked by the caller. */
template <class F>
g16_err ntt_h_run(g16_gpu *g, const g16_gpu_domain *d, void *da, void *db, void *dc, g16_scalar *dh,
                  g16_status *st) {
    g16_err rc;
    if ((rc = ntt_odd_coset<F>(g, d, (F *)da, st)) || (rc = ntt_odd_coset<F>(g, d, (F *)db, st)) ||
        (rc = ntt_odd_coset<F>(g, d, (F *)dc, st)))
        return rc;
    size_t n = (size_t)1 << d->log_n;
    NTT_LAUNCH(ntt_h_kernel<F>, ntt_blocks(n, 256), 256, 0, (const F *)da, (const F *)db, (const F *)dc,
               (F *)(void *)dh, (uint32_t)n);
    return G16_OK;
}

} /* namespace g16gpu */

#endif
