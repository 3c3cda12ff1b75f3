/* Arithmetic throughput probes (`g16 bench arith --backend cuda`): how fast
 * the device runs one field product or one mixed point addition when
 * nothing else (memory, sorting, divergence) is in the way, per number of
 * independent chains per thread (ILP), each at the occupancy its registers
 * allow (reported). The MSM's accumulation runs ~10 products per mixed
 * addition with 3 blocks of 128 threads per SM (12 warps); comparing its
 * time with these rates says whether it is bound by the arithmetic's issue
 * rate, by latency (few warps, serial carry chains) or by something else.
 *
 * The pipe probes (below the field operations) measure the issue rates of
 * IMAD.WIDE, IMAD and DFMA alone and side by side, the FP64 pipe's exact
 * limb product, and the product with FP64 work beside it.
 *
 * Each thread holds ILP independent values x_j and one multiplier y and
 * runs x_j = x_j * y (or x_j = x_j + P for points) `iters` times. Results
 * are written back and compared across cases that compute the same values
 * (fp_t::mul_cios against the default product, the squaring against x * x),
 * so a figure always belongs to a correct result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ec/curve.cuh"
#include "gpu_internal.cuh"

namespace g16gpu {

/* ---- operations: T the per-thread value, step(x, y) one operation ----
 * OPS: operations counted per step; prep_x, prep_y: what a loaded value
 * becomes before the chain starts (the pipe probes make valid doubles and
 * field elements of random words there). */
struct op_base {
    static constexpr int OPS = 1;
    template <class V> static G16_HD V prep_x(const V &v) { return v; }
    template <class V> static G16_HD V prep_y(const V &v) { return v; }
};
template <class F> struct op_mul : op_base {
    typedef F T;
    typedef F Y;
    static __device__ __forceinline__ T step(const T &x, const Y &y) { return x * y; }
};
template <class F> struct op_mul_cios : op_base {
    typedef F T;
    typedef F Y;
    static __device__ __forceinline__ T step(const T &x, const Y &y) { return F::mul_cios(x, y); }
};
/* x^2 (fp_t::sqr_wide on the device) */
template <class F> struct op_sqr : op_base {
    typedef F T;
    typedef F Y;
    static __device__ __forceinline__ T step(const T &x, const Y &) { return x.sqr(); }
};
/* x^2 by the product x * x: the squares' reference */
template <class F> struct op_sqr_by_mul : op_base {
    typedef F T;
    typedef F Y;
    static __device__ __forceinline__ T step(const T &x, const Y &) { return x * x; }
};
/* x + P (XYZZ plus affine, madd-2008-s): the accumulation's step. */
template <class F> struct op_madd : op_base {
    typedef xyzz_t<F> T;
    typedef affine_t<F> Y;
    static __device__ __forceinline__ T step(T x, const Y &y) {
        x.add_affine(y.x, y.y);
        return x;
    }
};

/* ---- pipe probes: the issue rates that bound a product ----
 * What the FP64 pipe could add beside the integer pipe's products (docs/
 * gpu.md, "Roofline"). Each step runs 8 dependent operations per chain;
 * values are made valid by prep_x/prep_y from the random words, and every
 * probe is recomputed on the host (host_check below), bit for bit. */
static G16_HD uint64_t dbits(double v) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}
/* a double in [0, 1) from the bits of v */
static G16_HD double unit_of(double v) { return (double)(dbits(v) >> 11) * 0x1p-53; }
/* a 48-bit limb (an integer below 2^48, exact as a double) from the bits of v */
static G16_HD double limb48_of(double v) { return (double)(dbits(v) >> 16); }

/* IMAD.WIDE.U32: x = lo(x) * y + x, 64-bit accumulate */
struct op_imad_wide : op_base {
    typedef uint64_t T;
    typedef uint32_t Y;
    static constexpr int OPS = 8;
    static G16_HD Y prep_y(const Y &y) { return y | 1; }
    static G16_HD T step(T x, const Y &y) {
G16_UNROLL
        for (int k = 0; k < 8; k++)
            x = (uint64_t)(uint32_t)x * y + x;
        return x;
    }
};
/* IMAD (32-bit, low half) */
struct op_imad : op_base {
    typedef uint32_t T;
    typedef uint32_t Y;
    static constexpr int OPS = 8;
    static G16_HD T step(T x, const Y &y) {
G16_UNROLL
        for (int k = 0; k < 8; k++)
            x = x * y + 0x9e3779b9u;
        return x;
    }
};
/* DFMA: x = x * y + 1/4, y in [1/2, 9/16) */
struct op_dfma : op_base {
    typedef double T;
    typedef double Y;
    static constexpr int OPS = 8;
    static G16_HD T prep_x(const T &x) { return unit_of(x); }
    static G16_HD Y prep_y(const Y &y) { return 0.5 + unit_of(y) * 0.0625; }
    static G16_HD T step(T x, const Y &y) {
G16_UNROLL
        for (int k = 0; k < 8; k++)
            x = fma(x, y, 0.25);
        return x;
    }
};
/* one IMAD.WIDE chain and one DFMA chain side by side: 16 operations per
 * step; at the sum of the two rates if the pipes issue independently */
struct pipe_mix_t {
    uint64_t i;
    double d;
};
struct pipe_mix_y {
    uint32_t m, pad;
    double y;
};
struct op_mix : op_base {
    typedef pipe_mix_t T;
    typedef pipe_mix_y Y;
    static constexpr int OPS = 16;
    static G16_HD T prep_x(const T &x) { return T{x.i, unit_of(x.d)}; }
    static G16_HD Y prep_y(const Y &y) { return Y{y.m | 1, 0, 0.5 + unit_of(y.y) * 0.0625}; }
    static G16_HD T step(T x, const Y &y) {
G16_UNROLL
        for (int k = 0; k < 8; k++) {
            x.i = (uint64_t)(uint32_t)x.i * y.m + x.i;
            x.d = fma(x.d, y.y, 0.25);
        }
        return x;
    }
};
/* The exact limb product on the FP64 pipe, one 48 x 48-bit product into a
 * column per operation: with the column's high accumulator h at a fixed
 * binade (h = 2^100 + sum, ulp 2^48 while the sum stays below 2^100),
 *   h' = fma(a, b, h)     the product rounded to a multiple of 2^48, added
 *   d  = h' - h           exactly that multiple (Sterbenz)
 *   lo = fma(a, b, -d)    the rest, exact: |lo| <= 2^47
 *   l  = l + lo           the low accumulator, exact for 2^5 terms
 * so that (h - 2^100) + l is the column's exact sum: four FP64 operations
 * per limb product and no integer ones. In the probe the chain runs long
 * enough for h to leave its binade; the rounding then differs from the
 * method's, not the instructions or their rate. */
struct pipe_col_t {
    double h, l;
};
struct pipe_limbs_y {
    double a[4], b;
};
template <int K> struct limb_steps {
    static G16_HD void run(pipe_col_t &x, const pipe_limbs_y &y) {
G16_UNROLL
        for (int k = 0; k < K; k++) {
            double a = y.a[k & 3];
            double h = fma(a, y.b, x.h);
            double d = h - x.h;
            x.l = x.l + fma(a, y.b, -d);
            x.h = h;
        }
    }
    static G16_HD pipe_limbs_y prep(const pipe_limbs_y &y) {
        pipe_limbs_y r;
        for (int k = 0; k < 4; k++)
            r.a[k] = limb48_of(y.a[k]);
        r.b = limb48_of(y.b);
        return r;
    }
};
struct op_dfma_limb : op_base {
    typedef pipe_col_t T;
    typedef pipe_limbs_y Y;
    static constexpr int OPS = 8;
    static G16_HD T prep_x(const T &) { return T{0x1p100, 0.0}; }
    static G16_HD Y prep_y(const Y &y) { return limb_steps<8>::prep(y); }
    static G16_HD T step(T x, const Y &y) {
        limb_steps<8>::run(x, y);
        return x;
    }
};
/* One field product (the device's, mul_wide) and K FP64 limb products
 * beside it in the same thread: the product rate as K grows says how many
 * limb products the FP64 pipe takes on beside the integer pipe's work:
 * the room for a product that shares its limb products between the two
 * (docs/gpu.md, "Roofline": one that moved a * b there lost). */
template <class F> struct pipe_mul_col_t {
    F x;
    pipe_col_t c;
};
template <class F> struct pipe_mul_limbs_y {
    F f;
    pipe_limbs_y l;
};
template <class F> static G16_HD F below_p(F v) {
    v.l[F::N - 1] &= 0x0fffffffu; /* below every field's top word */
    return v;
}
/* (K = 0: the product alone, with the same layout: the reference rate) */
template <class F, int K> struct op_mul_limbs : op_base {
    typedef pipe_mul_col_t<F> T;
    typedef pipe_mul_limbs_y<F> Y;
    static G16_HD T prep_x(const T &x) { return T{below_p(x.x), {0x1p100, 0.0}}; }
    static G16_HD Y prep_y(const Y &y) { return Y{below_p(y.f), limb_steps<4>::prep(y.l)}; }
    static G16_HD T step(T x, const Y &y) {
        x.x = x.x * y.f;
        limb_steps<K>::run(x.c, y.l);
        return x;
    }
};
/* Host recomputation of the first threads of a probe (its step on the
 * host: the field product there is mul_cios, equal to the device's bit for
 * bit; fma is correctly rounded on both). 1: equal. */
template <class OP, int ILP> static int host_check(const void *out, const void *x0, const void *ys, int iters) {
    typedef typename OP::T T;
    typedef typename OP::Y Y;
    for (size_t t = 0; t < 128; t++) {
        Y y = OP::prep_y(((const Y *)ys)[t]);
        for (int j = 0; j < ILP; j++) {
            T x = OP::prep_x(((const T *)x0)[t * ILP + j]);
            for (int i = 0; i < iters; i++)
                x = OP::step(x, y);
            if (memcmp(&x, (const T *)out + t * ILP + j, sizeof x))
                return 0;
        }
    }
    return 1;
}

template <class OP, int ILP>
__global__ void __launch_bounds__(128) arith_kernel(typename OP::T *xs, const typename OP::Y *ys, int iters) {
    typedef typename OP::T T;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    T x[ILP];
G16_UNROLL
    for (int j = 0; j < ILP; j++)
        x[j] = OP::prep_x(xs[(size_t)t * ILP + j]);
    typename OP::Y y = OP::prep_y(ys[t]);
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
G16_UNROLL
        for (int j = 0; j < ILP; j++)
            x[j] = OP::step(x[j], y);
    }
G16_UNROLL
    for (int j = 0; j < ILP; j++)
        xs[(size_t)t * ILP + j] = x[j];
}

/* One measured configuration. */
struct arith_case {
    const char *name;
    int ilp;
    size_t t_bytes, y_bytes; /* per value, per multiplier */
    const void *kernel;
    int group; /* cases of one group compute the same values: compared */
    int ops;   /* operations per step */
    /* the pipe probes: recomputed on the host (NULL: compared in the group) */
    int (*check)(const void *out, const void *x0, const void *ys, int iters);
};

template <class OP, int ILP> static arith_case mk(const char *name, int group) {
    return arith_case{name, ILP, sizeof(typename OP::T), sizeof(typename OP::Y),
                      (const void *)arith_kernel<OP, ILP>, group, OP::OPS, NULL};
}
template <class OP, int ILP> static arith_case mk_checked(const char *name, int group) {
    arith_case c = mk<OP, ILP>(name, group);
    c.check = host_check<OP, ILP>;
    return c;
}
/* The measured cases of one curve (C: its Fp constants), in groups of
 * cases that compute the same values: 1 Fp products, 2 squares (the
 * reference x * x, then sqr_wide), 3 G1 mixed additions, 4 Fp2 products;
 * then the pipe probes, each checked on the host: 5 IMAD.WIDE, IMAD,
 * DFMA and the IMAD.WIDE + DFMA pair (curve-independent: run with the
 * BN254 cases only), 6 the FP64 limb product, 7 the field product with
 * K = 0, 8, 16, 32 FP64 limb products beside it. Returns the count. */
template <class C> static int arith_cases(arith_case *cases) {
    typedef fp_t<C> F;
    int nc = 0;
    cases[nc++] = mk<op_mul<F>, 1>("fp_mul", 1);
    cases[nc++] = mk<op_mul<F>, 2>("fp_mul", 1);
    cases[nc++] = mk<op_mul<F>, 4>("fp_mul", 1);
    cases[nc++] = mk<op_mul_cios<F>, 2>("fp_mul_cios", 1);
    cases[nc++] = mk<op_sqr_by_mul<F>, 1>("fp_sqr_by_mul", 2);
    cases[nc++] = mk<op_sqr_by_mul<F>, 2>("fp_sqr_by_mul", 2);
    cases[nc++] = mk<op_sqr_by_mul<F>, 4>("fp_sqr_by_mul", 2);
    cases[nc++] = mk<op_sqr<F>, 1>("fp_sqr", 2);
    cases[nc++] = mk<op_sqr<F>, 2>("fp_sqr", 2);
    cases[nc++] = mk<op_sqr<F>, 4>("fp_sqr", 2);
    cases[nc++] = mk<op_madd<F>, 1>("g1_madd", 3);
    cases[nc++] = mk<op_madd<F>, 2>("g1_madd", 3);
    cases[nc++] = mk<op_mul<fp2_t<F>>, 1>("fp2_mul", 4);
    cases[nc++] = mk<op_mul<fp2_t<F>>, 2>("fp2_mul", 4);
    if (F::N == 8) {
        cases[nc++] = mk_checked<op_imad_wide, 4>("pipe_imad_wide", 5);
        cases[nc++] = mk_checked<op_imad, 4>("pipe_imad", 5);
        cases[nc++] = mk_checked<op_dfma, 4>("pipe_dfma", 5);
        cases[nc++] = mk_checked<op_mix, 4>("pipe_imad_wide+dfma", 5);
        cases[nc++] = mk_checked<op_dfma_limb, 4>("pipe_dfma_limb48", 6);
    }
    cases[nc++] = mk_checked<op_mul_limbs<F, 0>, 2>("fp_mul+dfma_limb0", 7);
    cases[nc++] = mk_checked<op_mul_limbs<F, 8>, 2>("fp_mul+dfma_limb8", 7);
    cases[nc++] = mk_checked<op_mul_limbs<F, 16>, 2>("fp_mul+dfma_limb16", 7);
    cases[nc++] = mk_checked<op_mul_limbs<F, 32>, 2>("fp_mul+dfma_limb32", 7);
    return nc;
}

} /* namespace g16gpu */

/* Pseudo-random words from a logged seed (a 64-bit LCG: inputs only). */
static void fill_words(uint32_t *w, size_t words, uint64_t *seed) {
    for (size_t i = 0; i < words; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (uint32_t)(*seed >> 33);
    }
}

extern "C" g16_err g16_gpu_arith_bench(g16_gpu *g, g16_curve curve, const g16_gpu_arith_points *pts,
                                       int iters, uint64_t seed, g16_gpu_arith_result *out, int max,
                                       int *count, g16_status *st) {
    using g16gpu::arith_case;
    *count = 0;
    bool bls = curve == G16_CURVE_BLS12_381;
    arith_case cases[32];
    int nc = bls ? g16gpu::arith_cases<g16gpu::bls381_fp_cfg>(cases)
                 : g16gpu::arith_cases<g16gpu::bn254_fp_cfg>(cases);
    const int threads = 128;
    const int max_ilp = 4;
    size_t max_t = 0;
    for (int c = 0; c < nc; c++)
        max_t = cases[c].t_bytes > max_t ? cases[c].t_bytes : max_t;
    /* Every case runs the same number of threads: enough blocks for 3
     * waves at the largest occupancy any case reaches (16 blocks/SM). */
    int blocks = g->sms * 16 * 3;
    size_t nthreads = (size_t)blocks * threads;
    size_t x_bytes = nthreads * max_ilp * max_t, y_bytes = nthreads * max_t;
    uint32_t *h_x0 = (uint32_t *)malloc(x_bytes), *h_y = (uint32_t *)malloc(y_bytes);
    uint32_t *h_out = (uint32_t *)malloc(x_bytes);
    void *d_x = NULL, *d_y = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    g16_err rc = G16_OK;
    cudaError_t e = cudaSuccess;
    /* refs[group][ilp]: the first case's results, the others compared */
    uint32_t *refs[8][max_ilp + 1] = {};
    int clock_khz = 0;
    if (!h_x0 || !h_y || !h_out) {
        rc = g16_fail(st, G16_ERR_NOMEM, "gpu arith bench: out of host memory");
        goto done;
    }
    if ((e = cudaSetDevice(g->device)) != cudaSuccess || (e = cudaMalloc(&d_x, x_bytes)) != cudaSuccess ||
        (e = cudaMalloc(&d_y, y_bytes)) != cudaSuccess || (e = cudaEventCreate(&e0)) != cudaSuccess ||
        (e = cudaEventCreate(&e1)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, g->device)) != cudaSuccess) {
        rc = g16_fail(st, G16_ERR_DEVICE, "gpu arith bench setup@%s:%d: %s", __FILE__, __LINE__,
                      cudaGetErrorString(e));
        goto done;
    }
    for (int c = 0; c < nc && *count < max; c++) {
        const arith_case &k = cases[c];
        int group = k.group;
        bool point = group == 3;
        size_t tb = k.t_bytes, yb = k.y_bytes;
        size_t n_x = nthreads * k.ilp;
        /* inputs: field words below p's top word (so below p: every field's
         * top word is below 2^31), or copies of the caller's points */
        uint64_t s = seed + (uint64_t)group * 0x9e3779b97f4a7c15ull;
        if (point) {
            for (size_t i = 0; i < n_x; i++)
                memcpy((char *)h_x0 + i * tb, pts->xyzz + (i % pts->n) * tb, tb);
            for (size_t i = 0; i < nthreads; i++)
                memcpy((char *)h_y + i * yb, pts->affine + (i % pts->n) * yb, yb);
        } else {
            size_t words_x = n_x * tb / 4, words_y = nthreads * yb / 4;
            fill_words(h_x0, words_x, &s);
            fill_words(h_y, words_y, &s);
            int limbs = bls ? 12 : 8; /* Fp limbs; Fp2 = two of them */
            for (size_t i = 0; i < words_x; i++)
                if (i % limbs == (size_t)limbs - 1)
                    h_x0[i] &= bls ? 0x0fffffffu : 0x1fffffffu;
            for (size_t i = 0; i < words_y; i++)
                if (i % limbs == (size_t)limbs - 1)
                    h_y[i] &= bls ? 0x0fffffffu : 0x1fffffffu;
        }
        if ((e = cudaMemcpy(d_y, h_y, nthreads * yb, cudaMemcpyHostToDevice)) != cudaSuccess)
            break;
        int occ = 0;
        if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k.kernel, threads, 0)) != cudaSuccess)
            break;
        /* warm-up (iters/8), then the timed run */
        float ms = 0;
        for (int rep = 0; rep < 2 && e == cudaSuccess; rep++) {
            int it = rep == 0 ? (iters / 8 > 0 ? iters / 8 : 1) : iters;
            if ((e = cudaMemcpy(d_x, h_x0, n_x * tb, cudaMemcpyHostToDevice)) != cudaSuccess)
                break;
            if ((e = cudaEventRecord(e0, 0)) != cudaSuccess)
                break;
            void *args[] = {&d_x, &d_y, &it};
            e = cudaLaunchKernel(k.kernel, blocks, threads, args, 0, 0);
            if (e != cudaSuccess || (e = cudaEventRecord(e1, 0)) != cudaSuccess ||
                (e = cudaEventSynchronize(e1)) != cudaSuccess || (e = cudaEventElapsedTime(&ms, e0, e1)) != cudaSuccess)
                break;
        }
        if (e != cudaSuccess)
            break;
        if ((e = cudaMemcpy(h_out, d_x, n_x * tb, cudaMemcpyDeviceToHost)) != cudaSuccess)
            break;
        /* The first case of a group at an ILP is the reference of the
         * others there (same inputs, same values): match 1 or 0, -1 for the
         * reference itself. */
        int match = -1;
        uint32_t *&ref = refs[group][k.ilp];
        if (k.check) {
            match = k.check(h_out, h_x0, h_y, iters);
        } else if (!ref) {
            if ((ref = (uint32_t *)malloc(n_x * tb)) != NULL)
                memcpy(ref, h_out, n_x * tb);
        } else {
            match = !memcmp(ref, h_out, n_x * tb);
        }
        g16_gpu_arith_result *r = &out[(*count)++];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "%s", k.name);
        r->ilp = k.ilp;
        r->blocks_per_sm = occ;
        r->ms = ms;
        double ops = (double)nthreads * k.ilp * iters * k.ops;
        r->gops = ops / (ms * 1e-3) / 1e9;
        /* per SM and clock at the device's rated clock (its boost clock:
         * the rate per SM per cycle if the kernel ran at it) */
        r->per_sm_clk = clock_khz > 0 ? r->gops * 1e9 / ((double)g->sms * clock_khz * 1e3) : 0;
        r->match = match;
    }
    if (e != cudaSuccess)
        rc = g16_fail(st, G16_ERR_DEVICE, "gpu arith bench@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
done:
    for (int i = 0; i < 8; i++)
        for (int j = 0; j <= max_ilp; j++)
            free(refs[i][j]);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_x0), free(h_y), free(h_out);
    return rc;
}
