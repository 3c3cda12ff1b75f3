/* The extern "C" NTT interface of gpu.h ("NTT over Fr"): argument checks,
 * dispatch to the per-curve instances (ntt_<curve>.cu), and the host-memory
 * forms with their timing. Kernels: ntt.cuh. */
#include <stdlib.h>
#include <string.h>

#include "../host/gpu_internal.cuh"

static unsigned ntt_two_adicity(g16_curve c) { return c == G16_CURVE_BN254 ? 28 : 32; }

static g16_err domain_create(g16_gpu *g, g16_gpu_domain *d, g16_status *st) {
    CU(cudaSetDevice(g->device));
    return d->curve == G16_CURVE_BN254 ? g16gpu_ntt_domain_init_bn254(g, d, st)
                                       : g16gpu_ntt_domain_init_bls381(g, d, st);
}

extern "C" g16_err g16_gpu_domain_create(g16_gpu *g, g16_gpu_domain **out, g16_curve curve, unsigned log_n,
                                         g16_status *st) {
    if (!g || !out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu domain: NULL argument");
    *out = NULL;
    if (curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu domain: bad curve");
    if (log_n > G16GPU_NTT_MAX_LOG || log_n > ntt_two_adicity(curve))
        return g16_fail(st, G16_ERR_UNSUPPORTED, "gpu domain: 2^%u exceeds the GPU NTT's 2^%u", log_n,
                        G16GPU_NTT_MAX_LOG);
    g16_gpu_domain *d = (g16_gpu_domain *)calloc(1, sizeof *d);
    if (!d)
        return g16_fail(st, G16_ERR_NOMEM, "gpu domain: out of memory");
    d->curve = curve;
    d->log_n = log_n;
    d->device = g->device;
    g16_err rc;
    try {
        rc = domain_create(g, d, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu domain: unexpected C++ exception");
    }
    if (rc != G16_OK) {
        cudaFree(d->d_mem);
        cudaFree(d->d_full);
        free(d);
        return rc;
    }
    *out = d;
    return G16_OK;
}

extern "C" void g16_gpu_domain_free(g16_gpu_domain *d) {
    if (!d)
        return;
    cudaSetDevice(d->device);
    cudaFree(d->d_mem); /* waits for the device's work that may still use it */
    cudaFree(d->d_full);
    free(d);
}

static g16_err ntt_check(g16_gpu *g, const g16_gpu_domain *d, const void *data, g16_gpu_ntt_kind kind, int order,
                         const void *shift, g16_status *st) {
    if (!g || !d || !data)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: NULL argument");
    if (d->device != g->device)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: domain of device %d used on device %d", d->device,
                        g->device);
    if (order < 0 || order > 3)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: bad order %d", order);
    switch (kind) {
    case G16_GPU_NTT_FORWARD:
    case G16_GPU_NTT_INVERSE: return G16_OK;
    case G16_GPU_NTT_COSET_FORWARD:
    case G16_GPU_NTT_COSET_INVERSE:
        if (!shift)
            return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: NULL coset shift");
        return G16_OK;
    case G16_GPU_NTT_ODD_COSET:
        if (order != 0)
            return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: the odd coset is natural order only");
        if (!d->odd_s1)
            return g16_fail(st, G16_ERR_UNSUPPORTED, "gpu ntt: no odd coset at the two-adicity 2^%u", d->log_n);
        return G16_OK;
    }
    return g16_fail(st, G16_ERR_INVALID_ARG, "gpu ntt: bad kind %d", (int)kind);
}

static g16_err ntt_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind, int order,
                       const void *shift, g16_status *st) {
    CU(cudaSetDevice(g->device));
    return d->curve == G16_CURVE_BN254 ? g16gpu_ntt_run_bn254(g, d, d_data, kind, order, shift, st)
                                       : g16gpu_ntt_run_bls381(g, d, d_data, kind, order, shift, st);
}

extern "C" g16_err g16_gpu_ntt_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind,
                                   int order, const void *shift, g16_status *st) {
    g16_err rc = ntt_check(g, d, d_data, kind, order, shift, st);
    if (rc)
        return rc;
    try {
        return ntt_dev(g, d, d_data, kind, order, shift, st);
    } catch (...) {
        return g16_fail(st, G16_ERR_INTERNAL, "gpu ntt: unexpected C++ exception");
    }
}

static g16_err h_dev(g16_gpu *g, const g16_gpu_domain *d, void *a, void *b, void *c, g16_scalar *h,
                     g16_status *st) {
    CU(cudaSetDevice(g->device));
    return d->curve == G16_CURVE_BN254 ? g16gpu_h_run_bn254(g, d, a, b, c, h, st)
                                       : g16gpu_h_run_bls381(g, d, a, b, c, h, st);
}

static g16_err h_check(g16_gpu *g, const g16_gpu_domain *d, const void *a, const void *b, const void *c,
                       const void *h, g16_status *st) {
    if (!g || !d || !a || !b || !c || !h)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu h: NULL argument");
    if (d->device != g->device)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu h: domain of device %d used on device %d", d->device,
                        g->device);
    if (!d->odd_s1)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "gpu h: no odd coset at the two-adicity 2^%u", d->log_n);
    return G16_OK;
}

extern "C" g16_err g16_gpu_h_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c,
                                 g16_scalar *d_h, g16_status *st) {
    g16_err rc = h_check(g, d, d_a, d_b, d_c, d_h, st);
    if (rc)
        return rc;
    try {
        return h_dev(g, d, d_a, d_b, d_c, d_h, st);
    } catch (...) {
        return g16_fail(st, G16_ERR_INTERNAL, "gpu h: unexpected C++ exception");
    }
}

/* ---- host-memory forms (tests, benches): allocate, copy, run, copy, wait ---- */

/* Elapsed times of g->ev[0..3] (start, kernels start, kernels end, end). */
static g16_err read_timing(g16_gpu *g, g16_gpu_timing *t, g16_status *st) {
    CU(cudaEventSynchronize(g->ev[3]));
    if (t) {
        *t = g16_gpu_timing{};
        CU(cudaEventElapsedTime(&t->total_ms, g->ev[0], g->ev[3]));
        CU(cudaEventElapsedTime(&t->kernel_ms, g->ev[1], g->ev[2]));
    }
    return G16_OK;
}

static g16_err ntt_host(g16_gpu *g, const g16_gpu_domain *d, void *data, g16_gpu_ntt_kind kind, int order,
                        const void *shift, g16_gpu_timing *timing, void **dbuf, g16_status *st) {
    size_t bytes = ((size_t)32) << d->log_n;
    CU(cudaSetDevice(g->device));
    CU(cudaMalloc(dbuf, bytes));
    CU(cudaEventRecord(g->ev[0], g->stream));
    CU(cudaMemcpyAsync(*dbuf, data, bytes, cudaMemcpyHostToDevice, g->stream));
    CU(cudaEventRecord(g->ev[1], g->stream));
    g16_err rc = ntt_dev(g, d, *dbuf, kind, order, shift, st);
    if (rc)
        return rc;
    CU(cudaEventRecord(g->ev[2], g->stream));
    CU(cudaMemcpyAsync(data, *dbuf, bytes, cudaMemcpyDeviceToHost, g->stream));
    CU(cudaEventRecord(g->ev[3], g->stream));
    rc = read_timing(g, timing, st);
    if (rc)
        return rc;
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_ntt(g16_gpu *g, const g16_gpu_domain *d, void *data, g16_gpu_ntt_kind kind, int order,
                               const void *shift, g16_gpu_timing *timing, g16_status *st) {
    g16_err rc = ntt_check(g, d, data, kind, order, shift, st);
    if (rc)
        return rc;
    void *dbuf = NULL;
    try {
        rc = ntt_host(g, d, data, kind, order, shift, timing, &dbuf, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu ntt: unexpected C++ exception");
    }
    if (rc != G16_OK)
        cudaStreamSynchronize(g->stream); /* the buffer may still be in use */
    cudaFree(dbuf);
    return rc;
}

static g16_err h_host(g16_gpu *g, const g16_gpu_domain *d, const void *a, const void *b, const void *c,
                      g16_scalar *h, g16_gpu_timing *timing, void **dbuf, g16_status *st) {
    size_t bytes = ((size_t)32) << d->log_n;
    CU(cudaSetDevice(g->device));
    CU(cudaMalloc(dbuf, 3 * bytes));
    char *da = (char *)*dbuf, *db = da + bytes, *dc = db + bytes;
    CU(cudaEventRecord(g->ev[0], g->stream));
    CU(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, g->stream));
    CU(cudaMemcpyAsync(db, b, bytes, cudaMemcpyHostToDevice, g->stream));
    CU(cudaMemcpyAsync(dc, c, bytes, cudaMemcpyHostToDevice, g->stream));
    CU(cudaEventRecord(g->ev[1], g->stream));
    g16_err rc = h_dev(g, d, da, db, dc, (g16_scalar *)(void *)da, st);
    if (rc)
        return rc;
    CU(cudaEventRecord(g->ev[2], g->stream));
    CU(cudaMemcpyAsync(h, da, bytes, cudaMemcpyDeviceToHost, g->stream));
    CU(cudaEventRecord(g->ev[3], g->stream));
    rc = read_timing(g, timing, st);
    if (rc)
        return rc;
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

extern "C" g16_err g16_gpu_h(g16_gpu *g, const g16_gpu_domain *d, const void *a, const void *b, const void *c,
                             g16_scalar *h, g16_gpu_timing *timing, g16_status *st) {
    g16_err rc = h_check(g, d, a, b, c, h, st);
    if (rc)
        return rc;
    void *dbuf = NULL;
    try {
        rc = h_host(g, d, a, b, c, h, timing, &dbuf, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu h: unexpected C++ exception");
    }
    if (rc != G16_OK)
        cudaStreamSynchronize(g->stream);
    cudaFree(dbuf);
    return rc;
}
