/* GPU synthesis (gpu_synth.h): the key's CSR on the device, and the to_mont
 * and row kernels of synth.cuh for both curves' Fr. */
#include <stdlib.h>
#include <string.h>

#include "../host/gpu_internal.cuh"
#include "../gpu_synth.h"
#include "synth.cuh"

struct g16_gpu_synth {
    g16_curve curve;
    int device;
    uint32_t n, nv, nnz;
    uint32_t *d_row; /* 2(n+1): row_a then row_b */
    uint32_t *d_signal;
    void *d_coef; /* nnz Fr */
};

static const unsigned SYNTH_THREADS = 256;

extern "C" size_t g16_gpu_synth_bytes(uint32_t n, uint32_t nnz) {
    return (2 * ((size_t)n + 1) + nnz) * 4 + (size_t)nnz * 32 + 64; /* + the handle, rounded */
}

/* The CSR's shape (gpu_synth.h): the kernel trusts it for its bounds. */
static int csr_valid(uint32_t n, uint32_t nv, const uint32_t *row_a, const uint32_t *row_b, uint32_t nnz,
                     const uint32_t *signal) {
    if (row_a[0] != 0 || row_a[n] != row_b[0] || row_b[n] != nnz)
        return 0;
    for (uint32_t r = 0; r < n; r++)
        if (row_a[r + 1] < row_a[r] || row_b[r + 1] < row_b[r])
            return 0;
    for (uint32_t e = 0; e < nnz; e++)
        if (signal[e] >= nv)
            return 0;
    return 1;
}

static g16_err synth_upload(g16_gpu *g, g16_gpu_synth *s, const uint32_t *row_a, const uint32_t *row_b,
                            const uint32_t *signal, const void *coef, g16_status *st) {
    size_t rows = (size_t)s->n + 1;
    CU(cudaSetDevice(g->device));
    CU(cudaMalloc((void **)&s->d_row, 2 * rows * sizeof(uint32_t)));
    CU(cudaMalloc((void **)&s->d_signal, s->nnz ? (size_t)s->nnz * sizeof(uint32_t) : 16));
    CU(cudaMalloc(&s->d_coef, s->nnz ? (size_t)s->nnz * 32 : 16));
    CU(cudaMemcpyAsync(s->d_row, row_a, rows * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream));
    CU(cudaMemcpyAsync(s->d_row + rows, row_b, rows * sizeof(uint32_t), cudaMemcpyHostToDevice, g->stream));
    if (s->nnz) {
        CU(cudaMemcpyAsync(s->d_signal, signal, (size_t)s->nnz * sizeof(uint32_t), cudaMemcpyHostToDevice,
                           g->stream));
        CU(cudaMemcpyAsync(s->d_coef, coef, (size_t)s->nnz * 32, cudaMemcpyHostToDevice, g->stream));
    }
    CU(cudaStreamSynchronize(g->stream));
    return G16_OK;
}

static void synth_release(g16_gpu_synth *s) {
    cudaSetDevice(s->device);
    cudaFree(s->d_row); /* cudaFree waits for the device's work that may still use it */
    cudaFree(s->d_signal);
    cudaFree(s->d_coef);
    free(s);
}

extern "C" g16_err g16_gpu_synth_upload(g16_gpu *g, g16_gpu_synth **out, g16_curve curve, uint32_t n, uint32_t nv,
                                        const uint32_t *row_a, const uint32_t *row_b, uint32_t nnz,
                                        const uint32_t *signal, const void *coef, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth upload: NULL argument");
    *out = NULL;
    if (!g || !row_a || !row_b || (nnz && (!signal || !coef)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth upload: NULL argument");
    if (curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth upload: bad curve");
    if (n == 0 || n >= 0x80000000u || nv == 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth upload: bad shape (%u rows, %u wires)", n, nv);
    if (!csr_valid(n, nv, row_a, row_b, nnz, signal))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth upload: malformed coefficient rows (%u rows, %u entries)",
                        n, nnz);
    g16_gpu_synth *s = (g16_gpu_synth *)calloc(1, sizeof *s);
    if (!s)
        return g16_fail(st, G16_ERR_NOMEM, "gpu synth upload: out of memory");
    s->curve = curve;
    s->device = g->device;
    s->n = n;
    s->nv = nv;
    s->nnz = nnz;
    g16_err rc;
    try {
        rc = synth_upload(g, s, row_a, row_b, signal, coef, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu synth upload: unexpected C++ exception");
    }
    if (rc != G16_OK) {
        synth_release(s);
        (void)cudaGetLastError(); /* clear a failed allocation's error */
        return rc;
    }
    *out = s;
    return G16_OK;
}

extern "C" void g16_gpu_synth_free(g16_gpu *g, g16_gpu_synth *s) {
    (void)g;
    if (s)
        synth_release(s);
}

static unsigned synth_blocks(const g16_gpu *g, size_t n) {
    size_t b = (n + SYNTH_THREADS - 1) / SYNTH_THREADS, cap = (size_t)(g->sms > 0 ? g->sms : 1) * 64;
    return (unsigned)(b < 1 ? 1 : b > cap ? cap : b); /* grid-stride beyond 64 blocks per SM */
}

template <class F>
static g16_err synth_run(g16_gpu *g, const g16_gpu_synth *s, const uint64_t r2v[4], const g16_scalar *d_ws,
                         void *d_w, void *d_a, void *d_b, void *d_c, g16_status *st) {
    F r2;
    for (int i = 0; i < 4; i++) {
        r2.l[2 * i] = (uint32_t)r2v[i];
        r2.l[2 * i + 1] = (uint32_t)(r2v[i] >> 32);
    }
    CU(cudaSetDevice(g->device));
    g16gpu::synth_to_mont_kernel<F>
        <<<synth_blocks(g, s->nv), SYNTH_THREADS, 0, g->stream>>>((const F *)(const void *)d_ws, (F *)d_w, r2, s->nv);
    CU_LAUNCH(g16gpu::synth_to_mont_kernel<F>);
    const uint32_t *row = s->d_row;
    g16gpu::synth_rows_kernel<F><<<synth_blocks(g, s->n), SYNTH_THREADS, 0, g->stream>>>(
        row, row + (size_t)s->n + 1, s->d_signal, (const F *)s->d_coef, (const F *)d_w, (F *)d_a, (F *)d_b,
        (F *)d_c, s->n);
    CU_LAUNCH(g16gpu::synth_rows_kernel<F>);
    return G16_OK;
}

extern "C" g16_err g16_gpu_synth_dev(g16_gpu *g, const g16_gpu_synth *s, const g16_scalar *d_ws, uint32_t nv,
                                     void *d_w, void *d_a, void *d_b, void *d_c, g16_status *st) {
    if (!g || !s || !d_ws || !d_w || !d_a || !d_b || !d_c)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth: NULL argument");
    if (s->device != g->device)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu synth: rows of device %d used on device %d", s->device,
                        g->device);
    if (nv != s->nv)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu synth: %u wires, the rows were uploaded for %u", nv, s->nv);
    static const uint64_t bn254_r2[4] = BN254_FR_R2, bls381_r2[4] = BLS381_FR_R2;
    g16_err rc;
    try {
        rc = s->curve == G16_CURVE_BN254
                 ? synth_run<g16gpu::bn254_fr>(g, s, bn254_r2, d_ws, d_w, d_a, d_b, d_c, st)
                 : synth_run<g16gpu::bls381_fr>(g, s, bls381_r2, d_ws, d_w, d_a, d_b, d_c, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu synth: unexpected C++ exception");
    }
    return rc;
}
