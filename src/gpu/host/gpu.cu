/* GPU backend: device context, resident bases, the extern "C" interface of
 * gpu.h. Per-curve kernels live in msm_<curve>_<group>.cu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utility>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "../ec/curve.cuh"
#include "gpu_internal.cuh"

/* Largest CUB sort scratch over the plans g16gpu_scratch visits. */
struct sort_sizer {
    size_t bytes;
    cudaError_t err;
    int too_big;
    cudaStream_t s;
};
static void size_sort(void *arg, const g16gpu_msm_plan *p, size_t entries) {
    sort_sizer *z = (sort_sizer *)arg;
    if (entries >= 0x80000000u) {
        z->too_big = 1;
        return;
    }
    if (z->err != cudaSuccess)
        return;
    cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
    size_t tmp = 0;
    z->err = cub::DeviceRadixSort::SortPairs(NULL, tmp, dk, dv, (uint32_t)entries, 0, p->key_bits, z->s);
    if (tmp > z->bytes)
        z->bytes = tmp;
}

extern "C" int g16_gpu_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

static void gpu_free_all(g16_gpu *g) {
    /* Errors are ignored here: nothing useful can be done with them. */
    cudaFree(g->d_scalars);
    cudaFreeHost(g->h_scalars);
    for (int i = 0; i < 2; i++) {
        cudaFree(g->d_keys[i]);
        cudaFree(g->d_vals[i]);
    }
    cudaFree(g->d_cub);
    cudaFree(g->d_bucket_end);
    cudaFree(g->d_buckets);
    cudaFree(g->d_tree);
    cudaFree(g->d_tail);
    cudaFree(g->d_tkey);
    cudaFree(g->d_red);
    cudaFree(g->d_win);
    cudaFreeHost(g->h_win);
    cudaFree(g->d_ntt_scratch);
    cudaFree(g->d_cls);
    cudaFree(g->d_big);
    cudaFree(g->d_one);
    cudaFree(g->d_count);
    cudaFreeHost(g->h_count);
    cudaFree(g->d_pos);
    for (int i = 0; i < 2; i++) {
        cudaFree(g->d_stage[i]);
        if (g->ev_copy[i])
            cudaEventDestroy(g->ev_copy[i]);
    }
    if (g->copy_stream)
        cudaStreamDestroy(g->copy_stream);
    for (int i = 0; i < 2; i++) {
        if (g->ev_acc[i])
            cudaEventDestroy(g->ev_acc[i]);
        if (g->ev_red[i])
            cudaEventDestroy(g->ev_red[i]);
        if (g->ev_pipe[i])
            cudaEventDestroy(g->ev_pipe[i]);
    }
    if (g->red_stream)
        cudaStreamDestroy(g->red_stream);
    for (int i = 0; i < 6; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
}

static_assert(sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp>) == G16GPU_PT_BYTES_G1, "msm_plan.h's G1 point size");
static_assert(sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp2>) == G16GPU_PT_BYTES_G2, "msm_plan.h's G2 point size");

/* cudaMalloc of one of the context's buffers, counted in g->dev_bytes. */
static cudaError_t ctx_malloc(g16_gpu *g, void **p, size_t bytes) {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess)
        g->dev_bytes += bytes;
    return e;
}

static g16_err gpu_create(g16_gpu *g, int device, size_t max_points, int with_g2, const g16_config *cfg,
                          g16_status *st) {
    if (cfg)
        g->cfg = *cfg;
    else
        g16_config_init(&g->cfg);
    int count = 0;
    CU(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: device %d not present (%d devices)", device, count);
    g->device = device;
    CU(cudaSetDevice(device));
    (void)cudaGetLastError(); /* an earlier call's error must not surface in CUB's queries below */
    /* How host threads wait for this device (cudaStreamSynchronize and
     * cudaEventSynchronize in every MSM): CUDA's default heuristic spins
     * while the process has fewer contexts than cores, so each waiting
     * worker holds a core that synthesis could use. gpu.sync = spin, yield
     * or block forces a mode for the device (cudaSetDeviceFlags; it
     * applies to the device's primary context, so every context of the
     * process on this device), to measure that trade on a many-GPU host
     * (docs/engine.md, "Scaling over devices"). A refusal is ignored. */
    int64_t sync = g16_config_int(&g->cfg, G16_OPT_GPU_SYNC); /* auto 0, spin 1, yield 2, block 3 */
    if (sync) {
        unsigned fl = sync == 1 ? cudaDeviceScheduleSpin
                      : sync == 2 ? cudaDeviceScheduleYield
                                  : cudaDeviceScheduleBlockingSync;
        if (cudaSetDeviceFlags(fl) != cudaSuccess)
            (void)cudaGetLastError();
    }
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, device));
    g->sms = prop.multiProcessorCount;
    snprintf(g->name, sizeof g->name, "%.120s (sm_%d%d, %d SMs, %.0f MiB)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, (double)prop.totalGlobalMem / (1024.0 * 1024.0));
    if (prop.major < 9)
        return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: %s: built for sm_90, device is sm_%d%d", prop.name,
                        prop.major, prop.minor);
    CU(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    for (int i = 0; i < 6; i++)
        CU(cudaEventCreate(&g->ev[i]));
    /* Chunked MSMs (msm.cuh): the reductions' stream gets the highest
     * priority, so that its few blocks go first whenever the next chunk's
     * accumulation frees a slot. */
    int prio_least = 0, prio_greatest = 0;
    CU(cudaDeviceGetStreamPriorityRange(&prio_least, &prio_greatest));
    CU(cudaStreamCreateWithPriority(&g->red_stream, cudaStreamNonBlocking, prio_greatest));
    for (int i = 0; i < 2; i++) {
        CU(cudaEventCreateWithFlags(&g->ev_acc[i], cudaEventDisableTiming));
        CU(cudaEventCreate(&g->ev_red[i]));
        CU(cudaEventCreate(&g->ev_pipe[i]));
    }

    /* Accumulation occupancy for fields of 12+ limbs (msm.cuh), measured on
     * the H200 (docs/gpu.md, "Tuning knobs"): 3 blocks per SM beat 1 by 19-25% for
     * BLS12-381 G1 (run 2) and by 16% for BN254 G2, 1 beat 3 by 22% for
     * BLS12-381 G2 (2026-11-30); 4 blocks (128 registers) lost 6% to 3 for
     * BLS12-381 G1 (2026-11-30). 0 = that rule; gpu.msm_acc_blocks = 1 or 3
     * forces. */
    g->acc_minb = (int)g16_config_int(&g->cfg, G16_OPT_GPU_ACC_MINB);
    /* NTT shape (ntt.cuh, ntt_domain_init): 0 = the built-in rule. */
    g->ntt_cols_log = (unsigned)g16_config_int(&g->cfg, G16_OPT_GPU_NTT_COLS);
    g->ntt_threads = (unsigned)g16_config_int(&g->cfg, G16_OPT_GPU_NTT_THREADS);
    /* gpu.msm_window_bits = c forces the window width and gpu.msm_segment = L
     * the entries per accumulating thread (msm_plan.h, g16gpu_cfg_plan, which
     * the host's sizing uses too: g16_gpu_ctx_bytes). The product is
     * fp_t::mul_wide everywhere (H200, 2026-11-30: 1.6x the CIOS product with
     * 64-bit additions; the carry-chain, rolled and CIOS variants that lost
     * were removed on 2026-12-01, their figures are in BENCHMARKS.md). */
    g16gpu_cfg_plan(&g->cfg, &g->plan_policy, &g->seg_len);
    /* seg_len: G16GPU_SEG_DEFAULT = 128 entries per accumulating thread
     * (g16gpu_cfg_plan): 64 was 11% faster than 32 for BLS12-381 G1 at 2^24
     * (2026-11-30); 128 beat 64 by 0-7% in every MSM measured later that day
     * (the segment sum tree halves), 256 gained nothing more. */

    g->max_points = max_points ? max_points : 1;
    g->pt_bytes = with_g2 ? sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp2>) : sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp>);
    /* Scratch for every plan of an MSM of n <= max_points points, both
     * scalar widths (msm_plan.h; a smaller n can have a wider window). */
    sort_sizer z = {0, cudaSuccess, 0, g->stream};
    g16gpu_msm_scratch sc = g16gpu_scratch(g->max_points, g->plan_policy, g->seg_len, size_sort, &z);
    if (z.too_big)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu: max_points %zu too large for one MSM", max_points);
    CU(z.err);
    g->max_entries = sc.entries;
    g->max_buckets = sc.buckets;
    g->max_segs = sc.segs;
    g->max_red = sc.red;
    /* CUB's scratch grows with the item count: the sizes above are at each
     * plan's largest count; a margin guards against non-monotone steps. */
    size_t cub_bytes = z.bytes + z.bytes / 16 + ((size_t)1 << 20);
    g->cub_bytes = cub_bytes;
    size_t pt = g->pt_bytes;
    CU(ctx_malloc(g, (void **)&g->d_scalars, g->max_points * sizeof(g16_scalar)));
    for (int i = 0; i < 2; i++) {
        CU(ctx_malloc(g, (void **)&g->d_keys[i], g->max_entries * sizeof(uint32_t)));
        CU(ctx_malloc(g, (void **)&g->d_vals[i], g->max_entries * sizeof(uint32_t)));
    }
    CU(ctx_malloc(g, (void **)&g->d_cub, g->cub_bytes ? g->cub_bytes : 16));
    CU(ctx_malloc(g, (void **)&g->d_bucket_end, g->max_buckets * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_buckets, g->max_buckets * pt));
    CU(ctx_malloc(g, (void **)&g->d_tree, (2 * g->max_segs + 64) * pt));
    CU(ctx_malloc(g, (void **)&g->d_tail, g->max_segs * pt));
    CU(ctx_malloc(g, (void **)&g->d_tkey, g->max_segs * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_red, g->max_red * pt));
    CU(ctx_malloc(g, (void **)&g->d_win, 64 * pt));
    CU(cudaMallocHost(&g->h_win, 64 * pt));
    CU(ctx_malloc(g, (void **)&g->d_ntt_scratch, G16GPU_NTT_SCRATCH * 32)); /* 32 bytes per Fr */
    size_t cls_blocks = (g->max_points + 255) / 256;
    CU(ctx_malloc(g, (void **)&g->d_cls, 2 * cls_blocks * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_big, g->max_points * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_one, g->max_points * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_count, 4 * sizeof(uint32_t)));
    CU(cudaMallocHost(&g->h_count, 4 * sizeof(uint32_t)));
    CU(ctx_malloc(g, (void **)&g->d_pos, g->max_points * sizeof(uint32_t)));
    return G16_OK;
}

/* Streaming buffers (msm.cuh, msm_streamed_run): two staging buffers of
 * max_points affine points of the largest group served, a copy stream and
 * two events. Partial allocations are kept and freed at destroy. */
g16_err g16gpu_stream_reserve(g16_gpu *g, g16_status *st) {
    if (g->d_stage[0] && g->d_stage[1])
        return G16_OK;
    CU(cudaSetDevice(g->device));
    size_t pb = g->pt_bytes / 2; /* an affine point is half an XYZZ one */
    g->stage_bytes = g->max_points * pb;
    if (!g->copy_stream)
        CU(cudaStreamCreateWithFlags(&g->copy_stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        if (!g->ev_copy[i])
            CU(cudaEventCreateWithFlags(&g->ev_copy[i], cudaEventDisableTiming));
        if (!g->d_stage[i])
            CU(cudaMalloc(&g->d_stage[i], g->stage_bytes));
    }
    return G16_OK;
}

extern "C" g16_err g16_gpu_create(g16_gpu **out, int device, size_t max_points, int with_g2, const g16_config *cfg,
                                  g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu create: out is NULL");
    *out = NULL;
    g16_gpu *g = (g16_gpu *)calloc(1, sizeof *g);
    if (!g)
        return g16_fail(st, G16_ERR_NOMEM, "gpu create: out of memory");
    g16_err rc;
    try {
        rc = gpu_create(g, device, max_points, with_g2, cfg, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu create: unexpected C++ exception");
    }
    if (rc != G16_OK) {
        if (rc == G16_ERR_DEVICE && g16_gpu_count() == 0) { /* no driver or no device */
            rc = G16_ERR_NO_DEVICE;
            if (st)
                st->code = rc;
        }
        gpu_free_all(g);
        free(g);
        /* Clear the failed call's error: on the H200 the next, smaller
         * create's first CUB query returned "invalid device ordinal" after
         * an out-of-memory create (2026-11-30). */
        (void)cudaGetLastError();
        return rc;
    }
    *out = g;
    return G16_OK;
}

extern "C" void g16_gpu_destroy(g16_gpu *g) {
    if (!g)
        return;
    cudaSetDevice(g->device);
    if (g->stream)
        cudaStreamSynchronize(g->stream);
    gpu_free_all(g);
    free(g);
}

extern "C" const char *g16_gpu_name(const g16_gpu *g) { return g ? g->name : "none"; }

/* Made on first use: the prover never asks for it, and at 2^27 it would be
 * 4 GiB of pinned memory per context. */
extern "C" g16_scalar *g16_gpu_scalar_buffer(g16_gpu *g) {
    if (!g)
        return NULL;
    if (!g->h_scalars && (cudaSetDevice(g->device) != cudaSuccess ||
                          cudaMallocHost(&g->h_scalars, g->max_points * sizeof(g16_scalar)) != cudaSuccess)) {
        (void)cudaGetLastError();
        g->h_scalars = NULL;
    }
    return g->h_scalars;
}

/* The witness-derived scratch: every buffer an MSM writes from the scalars
 * (the scalars, digit keys and values and CUB's sort space, bucket ends,
 * bucket, segment, tail and reduction sums, window sums, the 0/1 split's
 * classes, index lists and counts, the density positions). Not the NTT's
 * shift tables or the streaming stages (public data). */
typedef struct scratch_region {
    void *p;
    size_t bytes;
} scratch_region;

static int scratch_regions(const g16_gpu *g, scratch_region r[16]) {
    size_t pt = g->pt_bytes, cls_blocks = (g->max_points + 255) / 256;
    int n = 0;
    r[n++] = (scratch_region){g->d_scalars, g->max_points * sizeof(g16_scalar)};
    for (int i = 0; i < 2; i++) {
        r[n++] = (scratch_region){g->d_keys[i], g->max_entries * sizeof(uint32_t)};
        r[n++] = (scratch_region){g->d_vals[i], g->max_entries * sizeof(uint32_t)};
    }
    r[n++] = (scratch_region){g->d_cub, g->cub_bytes};
    r[n++] = (scratch_region){g->d_bucket_end, g->max_buckets * sizeof(uint32_t)};
    r[n++] = (scratch_region){g->d_buckets, g->max_buckets * pt};
    r[n++] = (scratch_region){g->d_tree, (2 * g->max_segs + 64) * pt};
    r[n++] = (scratch_region){g->d_tail, g->max_segs * pt};
    r[n++] = (scratch_region){g->d_tkey, g->max_segs * sizeof(uint32_t)};
    r[n++] = (scratch_region){g->d_red, g->max_red * pt};
    r[n++] = (scratch_region){g->d_win, 64 * pt};
    r[n++] = (scratch_region){g->d_cls, 2 * cls_blocks * sizeof(uint32_t)};
    r[n++] = (scratch_region){g->d_big, g->max_points * sizeof(uint32_t)};
    r[n++] = (scratch_region){g->d_one, g->max_points * sizeof(uint32_t)};
    return n;
}

extern "C" g16_err g16_gpu_scratch_wipe(g16_gpu *g, g16_status *st) {
    if (!g)
        return G16_OK;
    CU(cudaSetDevice(g->device));
    scratch_region r[16];
    int n = scratch_regions(g, r);
    for (int i = 0; i < n; i++)
        if (r[i].p && r[i].bytes)
            CU(cudaMemsetAsync(r[i].p, 0, r[i].bytes, g->stream));
    CU(cudaMemsetAsync(g->d_pos, 0, g->max_points * sizeof(uint32_t), g->stream));
    CU(cudaMemsetAsync(g->d_count, 0, 4 * sizeof(uint32_t), g->stream));
    /* No copy into these is in flight: every MSM returns after its own. */
    if (g->h_win)
        g16_wipe(g->h_win, 64 * g->pt_bytes);
    if (g->h_count)
        g16_wipe(g->h_count, 4 * sizeof(uint32_t));
    return G16_OK;
}

extern "C" g16_err g16_gpu_test_scratch_nonzero(g16_gpu *g, size_t *nonzero, g16_status *st) {
    *nonzero = 0;
    if (!g)
        return G16_OK;
    CU(cudaSetDevice(g->device));
    CU(cudaStreamSynchronize(g->stream));
    scratch_region r[18];
    int n = scratch_regions(g, r);
    r[n++] = (scratch_region){g->d_pos, g->max_points * sizeof(uint32_t)};
    r[n++] = (scratch_region){g->d_count, 4 * sizeof(uint32_t)};
    for (int i = 0; i < n; i++) {
        if (!r[i].p || !r[i].bytes)
            continue;
        unsigned char *h = (unsigned char *)malloc(r[i].bytes);
        if (!h)
            return g16_fail(st, G16_ERR_NOMEM, "gpu: out of memory reading the scratch back");
        cudaError_t e = cudaMemcpy(h, r[i].p, r[i].bytes, cudaMemcpyDeviceToHost);
        for (size_t j = 0; e == cudaSuccess && j < r[i].bytes; j++)
            *nonzero += h[j] != 0;
        free(h);
        if (e != cudaSuccess)
            return g16_fail(st, G16_ERR_DEVICE, "gpu: reading the scratch back: %s", cudaGetErrorString(e));
    }
    for (size_t j = 0; g->h_win && j < 64 * g->pt_bytes; j++)
        *nonzero += ((const unsigned char *)g->h_win)[j] != 0;
    return G16_OK;
}

static size_t affine_bytes(g16_curve curve, g16_gpu_group group) {
    size_t fp = curve == G16_CURVE_BN254 ? 32 : 48;
    return 2 * fp * (group == G16_GPU_G2 ? 2 : 1);
}

static g16_err bases_upload(g16_gpu *g, g16_gpu_bases *b, const void *points, size_t n, g16_status *st) {
    CU(cudaSetDevice(g->device));
    size_t bytes = n * affine_bytes(b->curve, b->group);
    CU(cudaMalloc(&b->d_points, bytes ? bytes : 16));
    if (bytes)
        CU(cudaMemcpyAsync(b->d_points, points, bytes, cudaMemcpyHostToDevice, g->stream));
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_bases_upload(g16_gpu *g, g16_gpu_bases **out, g16_curve curve, g16_gpu_group group,
                                        const void *points, size_t n, g16_status *st) {
    if (!g || !out || (!points && n))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu bases upload: NULL argument");
    *out = NULL;
    if ((curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381) || (group != G16_GPU_G1 && group != G16_GPU_G2))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu bases upload: bad curve or group");
    if (n >= 0x80000000u)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu bases upload: too many points (%zu)", n);
    g16_gpu_bases *b = (g16_gpu_bases *)calloc(1, sizeof *b);
    if (!b)
        return g16_fail(st, G16_ERR_NOMEM, "gpu bases upload: out of memory");
    b->curve = curve;
    b->group = group;
    b->n = b->n_src = n;
    g16_err rc;
    try {
        rc = bases_upload(g, b, points, n, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu bases upload: unexpected C++ exception");
    }
    if (rc != G16_OK) {
        cudaFree(b->d_points);
        free(b);
        return rc;
    }
    *out = b;
    return G16_OK;
}

extern "C" void g16_gpu_bases_free(g16_gpu *g, g16_gpu_bases *b) {
    if (!b)
        return;
    if (g) {
        cudaSetDevice(g->device);
        cudaStreamSynchronize(g->stream);
    }
    cudaFree(b->d_points);
    cudaFree(b->d_kept);
    free(b);
}

extern "C" size_t g16_gpu_bases_count(const g16_gpu_bases *b) { return b ? b->n : 0; }

extern "C" size_t g16_gpu_bases_source_count(const g16_gpu_bases *b) { return b ? b->n_src : 0; }

/* ---- dropping the points at infinity ------------------------------------
 * A point is (0, 0) when it is at infinity (snarkjs's encoding; (0, 0) is on
 * neither curve). Points and scalars are moved as 16-byte words: every
 * affine size (64, 96, 128, 192 bytes) and g16_scalar (32) is a multiple. */

/* flag[i] = 1 unless point i (words 16-byte words) is all zero. */
static __global__ void bases_flag_kernel(const uint4 *__restrict__ pts, size_t n, unsigned words,
                                         uint8_t *__restrict__ flag) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint4 *p = pts + i * words;
    uint32_t any = 0;
    for (unsigned w = 0; w < words; w++) {
        uint4 v = p[w];
        any |= v.x | v.y | v.z | v.w;
    }
    flag[i] = any != 0;
}

/* dst item j = src item idx[j] for j < n, items of `words` 16-byte words;
 * one thread per word. */
static __global__ void gather_words_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src,
                                           const uint32_t *__restrict__ idx, size_t n, unsigned words) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * words)
        return;
    size_t j = t / words, w = t % words;
    dst[t] = src[(size_t)idx[j] * words + w];
}

static unsigned grid_for(size_t threads, unsigned block) { return (unsigned)((threads + block - 1) / block); }

/* Temporaries of one drop: freed on every path. */
struct drop_tmp {
    uint8_t *flag = NULL;
    uint32_t *sel = NULL, *kept = NULL, *count = NULL;
    void *cub = NULL, *points = NULL;
    ~drop_tmp() {
        cudaFree(flag);
        cudaFree(sel);
        cudaFree(kept);
        cudaFree(count);
        cudaFree(cub);
        cudaFree(points);
    }
};

static g16_err bases_drop(g16_gpu *g, g16_gpu_bases *b, size_t min_drop, size_t *dropped, g16_status *st) {
    CU(cudaSetDevice(g->device));
    cudaStream_t s = g->stream;
    size_t n = b->n, pb = affine_bytes(b->curve, b->group);
    unsigned words = (unsigned)(pb / 16);
    drop_tmp t;
    /* 1. the kept indices, in order (CUB's stable selection over 0..n-1) */
    CU(cudaMalloc(&t.flag, n));
    CU(cudaMalloc(&t.sel, n * sizeof(uint32_t)));
    CU(cudaMalloc(&t.count, sizeof(uint32_t)));
    bases_flag_kernel<<<grid_for(n, 256), 256, 0, s>>>((const uint4 *)b->d_points, n, words, t.flag);
    CU_LAUNCH("bases_flag_kernel");
    thrust::counting_iterator<uint32_t> idx(0);
    size_t cub_bytes = 0;
    CU(cub::DeviceSelect::Flagged(NULL, cub_bytes, idx, t.flag, t.sel, t.count, (int)n, s));
    CU(cudaMalloc(&t.cub, cub_bytes ? cub_bytes : 16));
    CU(cub::DeviceSelect::Flagged(t.cub, cub_bytes, idx, t.flag, t.sel, t.count, (int)n, s));
    uint32_t m = 0;
    CU(cudaMemcpyAsync(&m, t.count, sizeof m, cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));
    if (m > n || n - m < min_drop)
        return G16_OK; /* not worth it: b unchanged */
    /* 2. the kept points and indices in allocations of their size, swapped in */
    CU(cudaMalloc(&t.points, m ? m * pb : 16));
    CU(cudaMalloc(&t.kept, m ? m * sizeof(uint32_t) : 16));
    if (m) {
        gather_words_kernel<<<grid_for((size_t)m * words, 256), 256, 0, s>>>((uint4 *)t.points,
                                                                             (const uint4 *)b->d_points, t.sel,
                                                                             m, words);
        CU_LAUNCH("gather_words_kernel");
        CU(cudaMemcpyAsync(t.kept, t.sel, m * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
    }
    CU(cudaStreamSynchronize(s));
    std::swap(b->d_points, t.points); /* the full set is freed with the temporaries */
    std::swap(b->d_kept, t.kept);
    b->n = m;
    *dropped = n - m;
    return G16_OK;
}

extern "C" g16_err g16_gpu_bases_drop_infinity(g16_gpu *g, g16_gpu_bases *b, size_t min_drop, size_t *dropped,
                                               g16_status *st) {
    if (dropped)
        *dropped = 0;
    if (!g || !b || !dropped)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu drop infinity: NULL argument");
    if (b->table_windows || b->d_kept)
        return g16_fail(st, G16_ERR_INVALID_ARG,
                        "gpu drop infinity: the bases have a table or were compacted already");
    if (b->n == 0)
        return G16_OK;
    try {
        return bases_drop(g, b, min_drop ? min_drop : 1, dropped, st);
    } catch (...) {
        return g16_fail(st, G16_ERR_INTERNAL, "gpu drop infinity: unexpected C++ exception");
    }
}

extern "C" g16_err g16_gpu_bases_gather(g16_gpu *g, const g16_gpu_bases *b, g16_scalar *dst, const g16_scalar *src,
                                        g16_status *st) {
    if (!g || !b || !dst || !src)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu gather: NULL argument");
    if (!b->d_kept)
        return g16_fail(st, G16_ERR_INVALID_ARG,
                        "gpu gather: the bases dropped no point (g16_gpu_bases_drop_infinity)");
    if (b->n == 0)
        return G16_OK;
    CU(cudaSetDevice(g->device));
    /* Pageable host memory is refused where the device cannot address it
     * (without HMM the driver calls it unregistered; with HMM, as on the
     * H200 machine, it reports it as managed and the kernel may read it). */
    cudaPointerAttributes ad, as;
    CU(cudaPointerGetAttributes(&ad, dst));
    CU(cudaPointerGetAttributes(&as, src));
    if ((ad.type != cudaMemoryTypeDevice && ad.type != cudaMemoryTypeManaged) ||
        (as.type != cudaMemoryTypeDevice && as.type != cudaMemoryTypeManaged))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu gather: scalars not in device memory");
    const unsigned words = sizeof(g16_scalar) / 16;
    gather_words_kernel<<<grid_for(b->n * words, 256), 256, 0, g->stream>>>((uint4 *)dst, (const uint4 *)src,
                                                                          b->d_kept, b->n, words);
    CU_LAUNCH("gather_words_kernel");
    return G16_OK;
}

extern "C" g16_err g16_gpu_bases_precompute(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st) {
    if (!g || !b)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu precompute: NULL argument");
    if (c != 0 && (c < 4 || c > G16GPU_MAX_C))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu precompute: window %d outside 4..%d", c, G16GPU_MAX_C);
    if (b->table_windows)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu precompute: the bases already have a table");
    g16_err rc;
    try {
        CU(cudaSetDevice(g->device));
        if (b->curve == G16_CURVE_BN254)
            rc = b->group == G16_GPU_G1 ? g16gpu_table_bn254_g1(g, b, c, st) : g16gpu_table_bn254_g2(g, b, c, st);
        else
            rc = b->group == G16_GPU_G1 ? g16gpu_table_bls381_g1(g, b, c, st)
                                        : g16gpu_table_bls381_g2(g, b, c, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu precompute: unexpected C++ exception");
    }
    return rc;
}

extern "C" size_t g16_gpu_bases_device_bytes(const g16_gpu_bases *b) {
    if (!b)
        return 0;
    size_t windows = b->table_windows ? (size_t)b->table_windows : 1;
    return windows * b->n * affine_bytes(b->curve, b->group) + (b->d_kept ? b->n * sizeof(uint32_t) : 0);
}

extern "C" size_t g16_gpu_table_bytes(g16_curve curve, g16_gpu_group group, size_t n, const g16_config *cfg) {
    int policy;
    uint32_t seg;
    g16gpu_cfg_plan(cfg, &policy, &seg); /* as a context created with cfg (msm_table_build's c) */
    int nbits = curve == G16_CURVE_BN254 ? 254 : 255;
    g16gpu_msm_plan pl = g16gpu_plan(n ? n : 1, nbits, g16gpu_table_c(n, nbits, policy, seg));
    return (size_t)pl.windows * n * affine_bytes(curve, group);
}

extern "C" g16_err g16_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, g16_status *st) {
    *free_bytes = *total_bytes = 0;
    CU(cudaSetDevice(device));
    CU(cudaMemGetInfo(free_bytes, total_bytes));
    return G16_OK;
}

static g16_err msm_dispatch(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *d, const g16_scalar *k,
                            size_t n, g16_status *st) {
    CU(cudaSetDevice(g->device));
    if (b->curve == G16_CURVE_BN254)
        return b->group == G16_GPU_G1 ? g16gpu_msm_bn254_g1(g, out, b, d, k, n, st)
                                      : g16gpu_msm_bn254_g2(g, out, b, d, k, n, st);
    return b->group == G16_GPU_G1 ? g16gpu_msm_bls381_g1(g, out, b, d, k, n, st)
                                  : g16gpu_msm_bls381_g2(g, out, b, d, k, n, st);
}

extern "C" g16_err g16_gpu_msm(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const g16_scalar *scalars,
                               size_t n, g16_gpu_timing *timing, g16_status *st) {
    if (!g || !out_jac || !b || (!scalars && n))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: NULL argument");
    if (n > b->n)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm: %zu scalars for %zu bases", n, b->n);
    /* More than max_points: chunks of it (msm.cuh, msm_run). */
    g16_err rc;
    try {
        rc = msm_dispatch(g, out_jac, b, NULL, scalars, n, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu msm: unexpected C++ exception");
    }
    if (rc == G16_OK && timing)
        *timing = g->last;
    return rc;
}

extern "C" g16_err g16_gpu_msm_at(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, size_t first,
                                  const g16_scalar *scalars, size_t n, g16_gpu_timing *timing, g16_status *st) {
    if (!b)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: NULL argument");
    if (first > b->n || n > b->n - first)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm: bases %zu..%zu of %zu", first, first + n, b->n);
    g16_gpu_bases view = *b; /* the same device points from first on */
    view.d_points = (char *)b->d_points + first * affine_bytes(b->curve, b->group);
    view.n = n;
    return g16_gpu_msm(g, out_jac, &view, scalars, n, timing, st);
}

extern "C" size_t g16_gpu_max_points(const g16_gpu *g) { return g ? g->max_points : 0; }

extern "C" const g16_config *g16_gpu_config(const g16_gpu *g) { return g ? &g->cfg : NULL; }

extern "C" size_t g16_gpu_ctx_bytes(size_t max_points, int with_g2, const g16_config *cfg) {
    int policy;
    uint32_t seg;
    g16gpu_cfg_plan(cfg, &policy, &seg);
    return g16gpu_ctx_device_bytes(max_points, with_g2, policy, seg);
}

extern "C" size_t g16_gpu_device_bytes(const g16_gpu *g) { return g ? g->dev_bytes : 0; }

static g16_err pci_address(int device, char *buf, size_t len, g16_status *st) {
    CU(cudaDeviceGetPCIBusId(buf, (int)len, device));
    for (char *c = buf; *c; c++)
        if (*c >= 'A' && *c <= 'F')
            *c = (char)(*c - 'A' + 'a');
    return G16_OK;
}

extern "C" g16_err g16_gpu_pci_address(int device, char *buf, size_t len, g16_status *st) {
    if (!buf || len < 16 || len > 4096)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu pci address: buffer");
    buf[0] = 0;
    return pci_address(device, buf, len, st);
}

extern "C" g16_err g16_gpu_msm_density(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const uint8_t *density,
                                       const g16_scalar *scalars, size_t n_scalars, g16_gpu_timing *timing,
                                       g16_status *st) {
    if (!g || !out_jac || !b || (!density && b->n) || (!scalars && n_scalars))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm density: NULL argument");
    if (n_scalars > b->n)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm density: %zu scalars for %zu bases", n_scalars, b->n);
    if (n_scalars > g->max_points)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm density: %zu points exceed the context's %zu", n_scalars,
                        g->max_points);
    g16_err rc;
    try {
        rc = msm_dispatch(g, out_jac, b, density, scalars, n_scalars, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu msm density: unexpected C++ exception");
    }
    if (rc == G16_OK && timing)
        *timing = g->last;
    return rc;
}

extern "C" g16_err g16_gpu_stream_reserve(g16_gpu *g, g16_status *st) {
    if (!g)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu stream reserve: NULL context");
    return g16gpu_stream_reserve(g, st);
}

static g16_err host_pin(void *p, size_t bytes, g16_status *st) {
    CU(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    return G16_OK;
}

extern "C" g16_err g16_gpu_host_pin(void *p, size_t bytes, g16_status *st) {
    if (!p || !bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu host pin: empty range");
    return host_pin(p, bytes, st);
}

extern "C" void g16_gpu_host_unpin(void *p) {
    if (p && cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError();
}

static g16_err msm_streamed_dispatch(g16_gpu *g, void *out, g16_curve curve, g16_gpu_group group, const void *hp,
                                     const g16_scalar *k, size_t n, g16_status *st) {
    CU(cudaSetDevice(g->device));
    if (curve == G16_CURVE_BN254)
        return group == G16_GPU_G1 ? g16gpu_msm_streamed_bn254_g1(g, out, hp, k, n, st)
                                   : g16gpu_msm_streamed_bn254_g2(g, out, hp, k, n, st);
    return group == G16_GPU_G1 ? g16gpu_msm_streamed_bls381_g1(g, out, hp, k, n, st)
                               : g16gpu_msm_streamed_bls381_g2(g, out, hp, k, n, st);
}

extern "C" g16_err g16_gpu_msm_streamed(g16_gpu *g, void *out_jac, g16_curve curve, g16_gpu_group group,
                                        const void *host_points, const g16_scalar *scalars, size_t n,
                                        g16_gpu_timing *timing, g16_status *st) {
    if (!g || !out_jac || ((!host_points || !scalars) && n))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm streamed: NULL argument");
    if ((curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381) || (group != G16_GPU_G1 && group != G16_GPU_G2))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm streamed: bad curve or group");
    g16_err rc;
    try {
        rc = msm_streamed_dispatch(g, out_jac, curve, group, host_points, scalars, n, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu msm streamed: unexpected C++ exception");
    }
    if (rc == G16_OK && timing)
        *timing = g->last;
    return rc;
}

extern "C" g16_err g16_gpu_field_op(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                                    const void *b, size_t n, g16_status *st) {
    if (!g || (n && (!out || !a || (!b && op != G16_GPU_SQR))))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: NULL argument");
    try {
        cudaError_t e = cudaSetDevice(g->device);
        if (e != cudaSuccess)
            return g16_fail(st, G16_ERR_DEVICE, "cudaSetDevice@%s:%d: %s", __FILE__, __LINE__,
                            cudaGetErrorString(e));
        switch (f) {
        case G16_GPU_BN254_FP:
        case G16_GPU_BN254_FR:
        case G16_GPU_BN254_FP2: return g16gpu_field_op_bn254(g, f, op, out, a, b, n, st);
        case G16_GPU_BLS381_FP:
        case G16_GPU_BLS381_FR:
        case G16_GPU_BLS381_FP2: return g16gpu_field_op_bls381(g, f, op, out, a, b, n, st);
        }
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: bad field");
    } catch (...) {
        return g16_fail(st, G16_ERR_INTERNAL, "gpu field op: unexpected C++ exception");
    }
}

/* ---- device memory helpers (gpu.h): for set-up paths, not per proof ---- */
static g16_err gpu_alloc(g16_gpu *g, void **d_ptr, size_t bytes, g16_status *st) {
    CU(cudaSetDevice(g->device));
    CU(cudaMalloc(d_ptr, bytes ? bytes : 16));
    return G16_OK;
}

extern "C" g16_err g16_gpu_alloc(g16_gpu *g, void **d_ptr, size_t bytes, g16_status *st) {
    if (!g || !d_ptr)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu alloc: NULL argument");
    *d_ptr = NULL;
    g16_err rc = gpu_alloc(g, d_ptr, bytes, st);
    if (rc != G16_OK)
        *d_ptr = NULL;
    return rc;
}

extern "C" void g16_gpu_free(g16_gpu *g, void *d_ptr) {
    if (!d_ptr)
        return;
    if (g) {
        cudaSetDevice(g->device);
        cudaStreamSynchronize(g->stream);
    }
    cudaFree(d_ptr);
}

static g16_err gpu_copy(g16_gpu *g, void *dst, const void *src, size_t bytes, g16_status *st) {
    CU(cudaSetDevice(g->device));
    if (bytes)
        CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_copy_async(g16_gpu *g, void *dst, const void *src, size_t bytes, g16_status *st) {
    if (!g || (bytes && (!dst || !src)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu copy: NULL argument");
    return gpu_copy(g, dst, src, bytes, st);
}

static g16_err gpu_sync(g16_gpu *g, g16_status *st) {
    CU(cudaSetDevice(g->device));
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_sync(g16_gpu *g, g16_status *st) {
    if (!g)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu sync: NULL context");
    return gpu_sync(g, st);
}
