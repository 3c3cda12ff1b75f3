/* GPU fixed-base scalar multiplication: out[i] = k[i] * P for one fixed point
 * P and many scalars (the test-only setup's key points), generic over the
 * coordinate field E (G1: fp_t, G2: fp2_t).
 *
 * Method (the CPU's, src/groth16/setup_impl.h, so the results agree bit for
 * bit once normalized): a window table of P with FB_W = 8-bit windows,
 *   T[w][d-1] = d * 2^(8w) * P    (w < 32, 1 <= d <= 255),
 * so k * P = sum_w T[w][k_w - 1] over the nonzero bytes k_w of k: at most 32
 * mixed additions (madd-2008-s, XYZZ) per scalar and no doublings.
 *  1. table kernel: one thread per entry computes d * 2^(8w) * P by
 *     doublings and a double-and-add over d's 8 bits, and normalizes it with
 *     its own Fermat inversion (8160 threads; microseconds);
 *  2. mul kernel: thread t handles the points i = t + j*T (j < FB_PER_THREAD,
 *     T threads: neighbouring threads touch neighbouring points, so loads and
 *     stores coalesce); it sums the table entries into XYZZ points, keeps
 *     them in a device scratch array with the prefix products of
 *     ZZ_i * ZZZ_i (Montgomery's trick), inverts once, and walks back
 *     writing affine x = X/ZZ, y = Y/ZZZ (1/ZZ = ZZZ/(ZZ ZZZ), 1/ZZZ =
 *     ZZ/(ZZ ZZZ)). Infinity (k = 0, or k a multiple of r) is written (0, 0).
 * Affine coordinates are unique (fully reduced Montgomery limbs), so this
 * equals the CPU's Jacobian-then-batch-normalized result exactly.
 * Variable time in k (it skips zero bytes and branches in the group law):
 * the test setup's toxic waste is not secret by design (_vartime in spirit).
 *
 * Host driver: the table once per call, then chunks of at most FB_CHUNK_MAX
 * points: copy scalars in, run, copy the affine points out, on g's stream.
 * Device memory is allocated per call (setup only, never the proving path). */
#ifndef G16_GPU_FIXED_BASE_CUH
#define G16_GPU_FIXED_BASE_CUH

#include "curve.cuh"
#ifdef __CUDACC__
#include "../host/gpu_internal.cuh"
#endif

namespace g16gpu {

static const int FB_W = 8;
static const int FB_WINDOWS = 32;                     /* 256-bit scalars */
static const int FB_PER = (1 << FB_W) - 1;            /* entries per window */
static const int FB_TABLE = FB_WINDOWS * FB_PER;      /* 8160 */
static const int FB_PER_THREAD = 8;                   /* points per thread (one inversion each) */
static const int FB_THREADS = 128;
static const size_t FB_CHUNK_MAX = (size_t)1 << 22;   /* points per device round */

/* Affine (x, y) from XYZZ given inv = 1/(ZZ * ZZZ); infinity -> (0, 0). */
template <class E> G16_HD affine_t<E> fb_normalize(const xyzz_t<E> &p, const E &inv) {
    affine_t<E> a;
    if (p.is_inf()) {
        a.x = E::zero();
        a.y = E::zero();
        return a;
    }
    a.x = p.x * (inv * p.zzz);
    a.y = p.y * (inv * p.zz);
    return a;
}

/* Table entry t (the table kernel's thread t). */
template <class E> G16_HD void fb_table_entry(const affine_t<E> &base, affine_t<E> *table, int t) {
    int win = t / FB_PER, d = t % FB_PER + 1;
    xyzz_t<E> q = xyzz_t<E>::from_affine(base);
    for (int i = 0; i < FB_W * win; i++)
        q = q.dbl();
    xyzz_t<E> r = xyzz_t<E>::inf();
    for (int bit = FB_W - 1; bit >= 0; bit--) {
        r = r.dbl();
        if ((d >> bit) & 1)
            r.add(q);
    }
    E z = r.is_inf() ? E::one() : r.zz * r.zzz;
    table[t] = fb_normalize(r, z.inv());
}

/* Points t + j*T (j < FB_PER_THREAD, below n): the mul kernel's thread t of T. */
template <class E>
G16_HD void fb_mul_thread(const affine_t<E> *table, const uint64_t *k, uint32_t n, xyzz_t<E> *scratch, E *prefix,
                          affine_t<E> *out, uint32_t t, uint32_t T) {
    E acc = E::one();
    for (int j = 0; j < FB_PER_THREAD; j++) {
        uint32_t i = t + (uint32_t)j * T;
        if (i >= n)
            break;
        xyzz_t<E> r = xyzz_t<E>::inf();
        for (int l = 0; l < 4; l++) {
            uint64_t limb = k[4 * (size_t)i + l];
            for (int b = 0; b < 8; b++) {
                uint32_t d = (uint32_t)(limb >> (8 * b)) & 0xff;
                if (d)
                    r.add_affine(table[(8 * l + b) * FB_PER + d - 1]);
            }
        }
        scratch[i] = r;
        prefix[i] = acc;
        if (!r.is_inf())
            acc = acc * (r.zz * r.zzz);
    }
    E inv = acc.inv();
    for (int j = FB_PER_THREAD - 1; j >= 0; j--) {
        uint32_t i = t + (uint32_t)j * T;
        if (i >= n)
            continue;
        xyzz_t<E> r = scratch[i];
        if (r.is_inf()) {
            out[i] = fb_normalize(r, inv);
            continue;
        }
        E z = r.zz * r.zzz;
        E zi = inv * prefix[i]; /* 1/z_i */
        inv = inv * z;          /* 1/(product of this thread's earlier z's) */
        out[i] = fb_normalize(r, zi);
    }
}

#ifdef __CUDACC__
template <class E> __global__ void fb_table_kernel(const affine_t<E> *__restrict__ base, affine_t<E> *__restrict__ table) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < FB_TABLE)
        fb_table_entry(*base, table, t);
}

template <class E>
__global__ void __launch_bounds__(FB_THREADS)
    fb_mul_kernel(const affine_t<E> *__restrict__ table, const uint64_t *__restrict__ k, uint32_t n,
                  xyzz_t<E> *__restrict__ scratch, E *__restrict__ prefix, affine_t<E> *__restrict__ out) {
    uint32_t T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        fb_mul_thread(table, k, n, scratch, prefix, out, t, T);
}

/* Frees on every path (the macro CU returns early, so no CU here). */
struct fb_bufs {
    void *table = nullptr, *base = nullptr, *k = nullptr, *scratch = nullptr, *prefix = nullptr, *out = nullptr;
    ~fb_bufs() {
        cudaFree(table);
        cudaFree(base);
        cudaFree(k);
        cudaFree(scratch);
        cudaFree(prefix);
        cudaFree(out);
    }
};

template <class E>
g16_err fixed_base_run(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out, g16_status *st) {
    if (n == 0)
        return G16_OK;
    CU(cudaSetDevice(g->device));
    cudaStream_t s = g->stream;
    size_t chunk = n < FB_CHUNK_MAX ? n : FB_CHUNK_MAX;
    fb_bufs b;
    CU(cudaMalloc(&b.table, FB_TABLE * sizeof(affine_t<E>)));
    CU(cudaMalloc(&b.base, sizeof(affine_t<E>)));
    CU(cudaMalloc(&b.k, chunk * sizeof(g16_scalar)));
    CU(cudaMalloc(&b.scratch, chunk * sizeof(xyzz_t<E>)));
    CU(cudaMalloc(&b.prefix, chunk * sizeof(E)));
    CU(cudaMalloc(&b.out, chunk * sizeof(affine_t<E>)));
    CU(cudaMemcpyAsync(b.base, base, sizeof(affine_t<E>), cudaMemcpyHostToDevice, s));
    fb_table_kernel<E><<<(FB_TABLE + 127) / 128, 128, 0, s>>>((const affine_t<E> *)b.base, (affine_t<E> *)b.table);
    CU(cudaGetLastError()); /* launch errors */
    for (size_t lo = 0; lo < n; lo += chunk) {
        uint32_t m = (uint32_t)(n - lo < chunk ? n - lo : chunk);
        uint32_t threads = (m + FB_PER_THREAD - 1) / FB_PER_THREAD;
        uint32_t blocks = (threads + FB_THREADS - 1) / FB_THREADS;
        CU(cudaMemcpyAsync(b.k, k + lo, m * sizeof(g16_scalar), cudaMemcpyHostToDevice, s));
        fb_mul_kernel<E><<<blocks, FB_THREADS, 0, s>>>((const affine_t<E> *)b.table, (const uint64_t *)b.k, m,
                                                       (xyzz_t<E> *)b.scratch, (E *)b.prefix,
                                                       (affine_t<E> *)b.out);
        CU(cudaGetLastError());
        CU(cudaMemcpyAsync((char *)out + lo * sizeof(affine_t<E>), b.out, m * sizeof(affine_t<E>),
                           cudaMemcpyDeviceToHost, s));
        CU(cudaStreamSynchronize(s));
    }
    return G16_OK;
}

#endif /* __CUDACC__ */

} /* namespace g16gpu */

#ifdef __CUDACC__
/* Per-curve, per-group entry points (fixed_base_<curve>[_g2].cu). */
g16_err g16gpu_fixed_base_bn254_g1(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                   g16_status *st);
g16_err g16gpu_fixed_base_bn254_g2(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                   g16_status *st);
g16_err g16gpu_fixed_base_bls381_g1(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                    g16_status *st);
g16_err g16gpu_fixed_base_bls381_g2(g16_gpu *g, const void *base, const g16_scalar *k, size_t n, void *out,
                                    g16_status *st);
#endif

#endif
