/* GPU synthesis: a = A.w, b = B.w, c = a*b over the key's coefficient rows
 * on the device (synth.cuh, synth.cu; docs/gpu.md "A proof on the device").
 * Plain C, separate from gpu.h (which every MSM unit includes). Without CUDA
 * (synth_nocuda.c) every call fails with G16_ERR_NO_DEVICE.
 *
 * The coefficient rows are a CSR over the domain's n rows: matrix A's
 * entries of row r are [row_a[r], row_a[r+1]), B's [row_b[r], row_b[r+1]),
 * both indexing one pair of arrays signal[nnz] (wire index < nv) and
 * coef[nnz] (Fr, Montgomery form, 32 bytes each); row_a[0] = 0,
 * row_a[n] = row_b[0], row_b[n] = nnz, non-decreasing. */
#ifndef G16_GPU_SYNTH_H
#define G16_GPU_SYNTH_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct g16_gpu_synth g16_gpu_synth; /* a key's CSR, resident on one device */

/* Device bytes a CSR takes: (2(n+1) + nnz) * 4 + nnz * 32 (+ the handle). */
size_t g16_gpu_synth_bytes(uint32_t n, uint32_t nnz);

/* Copies the CSR to g's device (once per key: key-load time; synchronous).
 * Checks the row offsets' shape (monotonic, ends as above) and every signal
 * against nv, so that the kernel never reads out of bounds. Errors:
 * INVALID_ARG (NULL, bad curve, malformed rows or signals), DEVICE,
 * NO_DEVICE. */
g16_err g16_gpu_synth_upload(g16_gpu *g, g16_gpu_synth **out, g16_curve curve, uint32_t n, uint32_t nv,
                             const uint32_t *row_a, const uint32_t *row_b, uint32_t nnz, const uint32_t *signal,
                             const void *coef, g16_status *st);
void g16_gpu_synth_free(g16_gpu *g, g16_gpu_synth *s);

/* Queued on g's stream, no allocation, no host wait: d_w (nv Fr) = d_ws
 * (nv canonical scalars) in Montgomery form; then d_a, d_b, d_c (n Fr each,
 * Montgomery) = A.w, B.w and their product, bit for bit the CPU's
 * synthesis. nv must be the upload's. All pointers are device memory of
 * g's device. */
g16_err g16_gpu_synth_dev(g16_gpu *g, const g16_gpu_synth *s, const g16_scalar *d_ws, uint32_t nv, void *d_w,
                          void *d_a, void *d_b, void *d_c, g16_status *st);

#ifdef __cplusplus
}
#endif

#endif
