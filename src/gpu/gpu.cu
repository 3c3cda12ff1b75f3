/* GPU backend: device context, resident bases, the extern "C" interface of
 * gpu.h. Per-curve kernels live in msm_<curve>_<group>.cu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "curve.cuh"
#include "gpu_internal.cuh"

/* Window width c: about log2(n) - 3 (measured choices to be tuned), at least
 * 4 and at most 16 (2^15 buckets per window). */
g16gpu_msm_plan g16gpu_plan(size_t n, int nbits) {
    g16gpu_msm_plan p;
    int lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    p.c = lg <= 7 ? 4 : lg - 3;
    if (p.c > 16)
        p.c = 16;
    p.windows = nbits / p.c + 1;
    p.nb = 1u << (p.c - 1);
    p.zero_key = (uint32_t)p.windows * p.nb;
    p.key_bits = 0;
    while ((1ull << p.key_bits) <= p.zero_key)
        p.key_bits++;
    p.entries = n * (size_t)p.windows;
    p.seg_len = 32;
    p.segs = (p.entries + p.seg_len - 1) / p.seg_len;
    p.chunk = p.nb < 16 ? p.nb : 16;
    return p;
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
    for (int i = 0; i < 4; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
}

static g16_err gpu_create(g16_gpu *g, int device, size_t max_points, int with_g2, g16_status *st) {
    int count = 0;
    CU(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: device %d not present (%d devices)", device, count);
    g->device = device;
    CU(cudaSetDevice(device));
    cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, device));
    g->sms = prop.multiProcessorCount;
    snprintf(g->name, sizeof g->name, "%.120s (sm_%d%d, %d SMs, %.0f MiB)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, (double)prop.totalGlobalMem / (1024.0 * 1024.0));
    if (prop.major < 9)
        return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: %s: built for sm_90, device is sm_%d%d", prop.name,
                        prop.major, prop.minor);
    CU(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        CU(cudaEventCreate(&g->ev[i]));

    /* Accumulation variant for 12-limb fields (msm.cuh): 3 blocks per SM
     * measured 19-25% faster than 1 on the H200 (docs/gpu-notes.md, run 2);
     * $G16_GPU_ACC_MINB=1 selects the other for comparison. */
    const char *minb = getenv("G16_GPU_ACC_MINB");
    g->acc_minb = minb && atoi(minb) == 1 ? 1 : 3;

    g->max_points = max_points ? max_points : 1;
    g->pt_bytes = with_g2 ? sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp2>) : sizeof(g16gpu::xyzz_t<g16gpu::bls381_fp>);
    /* Scratch for the largest plan over every n <= max_points (BLS12-381's
     * 255-bit scalars need at least as many windows as BN254's). */
    size_t cub_bytes = 0;
    for (int lg = 0;; lg++) {
        size_t n = (size_t)1 << lg;
        if (n > g->max_points)
            n = g->max_points;
        g16gpu_msm_plan p = g16gpu_plan(n, 255);
        size_t buckets = (size_t)p.windows * p.nb;
        if (p.entries > g->max_entries)
            g->max_entries = p.entries;
        if (buckets > g->max_buckets)
            g->max_buckets = buckets;
        if (p.segs > g->max_segs)
            g->max_segs = p.segs;
        if (2 * buckets / p.chunk > g->max_red)
            g->max_red = 2 * buckets / p.chunk;
        cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
        size_t tmp = 0;
        CU(cub::DeviceRadixSort::SortPairs(NULL, tmp, dk, dv, (uint32_t)p.entries, 0, p.key_bits, g->stream));
        if (tmp > cub_bytes)
            cub_bytes = tmp;
        if (n == g->max_points)
            break;
    }
    if (g->max_entries >= 0x80000000u)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu: max_points %zu too large for one MSM", max_points);
    g->cub_bytes = cub_bytes;
    size_t pt = g->pt_bytes;
    CU(cudaMalloc(&g->d_scalars, g->max_points * sizeof(g16_scalar)));
    CU(cudaMallocHost(&g->h_scalars, g->max_points * sizeof(g16_scalar)));
    for (int i = 0; i < 2; i++) {
        CU(cudaMalloc(&g->d_keys[i], g->max_entries * sizeof(uint32_t)));
        CU(cudaMalloc(&g->d_vals[i], g->max_entries * sizeof(uint32_t)));
    }
    CU(cudaMalloc(&g->d_cub, g->cub_bytes ? g->cub_bytes : 16));
    CU(cudaMalloc(&g->d_bucket_end, g->max_buckets * sizeof(uint32_t)));
    CU(cudaMalloc(&g->d_buckets, g->max_buckets * pt));
    CU(cudaMalloc(&g->d_tree, (2 * g->max_segs + 64) * pt));
    CU(cudaMalloc(&g->d_tail, g->max_segs * pt));
    CU(cudaMalloc(&g->d_tkey, g->max_segs * sizeof(uint32_t)));
    CU(cudaMalloc(&g->d_red, g->max_red * pt));
    CU(cudaMalloc(&g->d_win, 64 * pt));
    CU(cudaMallocHost(&g->h_win, 64 * pt));
    CU(cudaMalloc(&g->d_ntt_scratch, G16GPU_NTT_SCRATCH * 32)); /* 32 bytes per Fr */
    return G16_OK;
}

extern "C" g16_err g16_gpu_create(g16_gpu **out, int device, size_t max_points, int with_g2, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu create: out is NULL");
    *out = NULL;
    g16_gpu *g = (g16_gpu *)calloc(1, sizeof *g);
    if (!g)
        return g16_fail(st, G16_ERR_NOMEM, "gpu create: out of memory");
    g16_err rc;
    try {
        rc = gpu_create(g, device, max_points, with_g2, st);
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

extern "C" g16_scalar *g16_gpu_scalar_buffer(g16_gpu *g) { return g ? g->h_scalars : NULL; }

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
    b->n = n;
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
    free(b);
}

extern "C" size_t g16_gpu_bases_count(const g16_gpu_bases *b) { return b ? b->n : 0; }

static g16_err msm_dispatch(g16_gpu *g, void *out, const g16_gpu_bases *b, const g16_scalar *k, size_t n,
                            g16_status *st) {
    CU(cudaSetDevice(g->device));
    if (b->curve == G16_CURVE_BN254)
        return b->group == G16_GPU_G1 ? g16gpu_msm_bn254_g1(g, out, b, k, n, st)
                                      : g16gpu_msm_bn254_g2(g, out, b, k, n, st);
    return b->group == G16_GPU_G1 ? g16gpu_msm_bls381_g1(g, out, b, k, n, st)
                                  : g16gpu_msm_bls381_g2(g, out, b, k, n, st);
}

extern "C" g16_err g16_gpu_msm(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const g16_scalar *scalars,
                               size_t n, g16_gpu_timing *timing, g16_status *st) {
    if (!g || !out_jac || !b || (!scalars && n))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: NULL argument");
    if (n > b->n)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm: %zu scalars for %zu bases", n, b->n);
    if (n > g->max_points)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: %zu points exceed the context's %zu", n,
                        g->max_points);
    g16_err rc;
    try {
        rc = msm_dispatch(g, out_jac, b, scalars, n, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu msm: unexpected C++ exception");
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
