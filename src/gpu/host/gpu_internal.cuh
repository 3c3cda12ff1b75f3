/* Internal view of the GPU backend: the device context, error macros and the
 * per-curve entry points (msm_<curve>_<group>.cu). */
#ifndef G16_GPU_INTERNAL_CUH
#define G16_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include "../gpu.h"

/* Every CUDA call goes through CU(); a failure returns G16_ERR_DEVICE with
 * "call@file:line: message" (the call's text cut to 80 characters). */
#define CU(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess)                                                                 \
            return g16_fail(st, G16_ERR_DEVICE, "%.80s@%s:%d: %s", #call, __FILE__, __LINE__, \
                            cudaGetErrorString(e_));                                           \
    } while (0)
/* After a kernel launch: launch-configuration errors. */
#define CU_LAUNCH(name) CU(((void)(name), cudaGetLastError()))

/* MSM plan and scratch sizing: plain C, host only (msm_plan.h). */
#include "../msm_plan.h"

struct g16_gpu {
    int device;
    char name[192];
    int sms;
    cudaStream_t stream;
    cudaEvent_t ev[6]; /* start, kernels start, kernels end, end; sorted, accumulated */
    size_t max_points;
    size_t pt_bytes; /* largest XYZZ point served */
    size_t dev_bytes; /* device bytes allocated at create (g16_gpu_device_bytes) */
    /* scratch, sized at create for max_points */
    uint64_t *d_scalars;   /* max_points * 4; the density form's bitmap first (msm.cuh) */
    g16_scalar *h_scalars; /* pinned staging, max_points */
    uint32_t *d_keys[2], *d_vals[2];
    size_t max_entries;
    void *d_cub;
    size_t cub_bytes;
    uint32_t *d_bucket_end;
    void *d_buckets;
    size_t max_buckets;
    void *d_tree; /* segment partials H and their sum tree: 2*max_segs + 64 points */
    void *d_tail; /* tail partials: max_segs points */
    uint32_t *d_tkey;
    size_t max_segs;
    void *d_red; /* (R, W) per bucket chunk: 2 * max_buckets / chunk points */
    size_t max_red;
    void *d_win, *h_win; /* window sums: up to 64 points */
    g16_gpu_timing last;
    g16_config cfg; /* the options at create (g16_gpu_config); the knobs below come from it */
    int acc_minb; /* accumulation blocks/SM for 12+ limb fields, 0 = per-field rule (gpu.msm_acc_blocks) */
    unsigned ntt_cols_log; /* NTT tile columns of the first passes, 0 = NTT_COLS_LOG (gpu.ntt_cols_log) */
    unsigned ntt_threads;  /* NTT pass block size, 0 = by tile (gpu.ntt_threads) */
    void *d_ntt_scratch; /* coset shift tables of one NTT (ntt.cuh): G16GPU_NTT_SCRATCH Fr */
    /* MSM settings, from the options at create (msm.cuh, gpu.cu): */
    int plan_policy;     /* g16gpu_plan's policy (gpu.msm_window_bits forces c) */
    uint32_t seg_len;    /* entries per accumulating thread (gpu.msm_segment) */
    /* 0/1 split: scalar classes per block, index lists, the two counts. */
    uint32_t *d_cls;     /* 2 per block of max_points */
    uint32_t *d_big;     /* indices of scalars > 1 */
    uint32_t *d_one;     /* indices of scalars == 1 */
    uint32_t *d_count;   /* [ones, bigs, density bits, 0] */
    uint32_t *h_count;   /* pinned copy */
    uint32_t *d_pos;     /* density form: base index of scalar j (max_points) */
    /* Streaming (g16_gpu_msm_streamed): two staging buffers of max_points
     * affine points, a copy stream and its events; allocated once by
     * g16_gpu_stream_reserve (or the first streamed MSM). */
    void *d_stage[2];
    size_t stage_bytes;
    cudaStream_t copy_stream;
    cudaEvent_t ev_copy[2];
    /* An MSM of more than max_points resident bases runs in chunks whose
     * bucket reductions overlap the next chunk's sort and accumulation
     * (msm.cuh, "chunked MSMs"): on red_stream (the device's highest
     * priority), in one of two halves of the bucket, reduction and window
     * scratch; ev_acc[h] = half h accumulated, ev_red[h] = its windows on
     * the host; ev_pipe = the chunked MSM's start and end. Chunked dense
     * MSMs add each chunk's buckets into the first's (msm.cuh, msm_pipe). */
    cudaStream_t red_stream;
    cudaEvent_t ev_acc[2], ev_red[2], ev_pipe[2];
};

struct g16_gpu_bases {
    g16_curve curve;
    g16_gpu_group group;
    size_t n;
    void *d_points;
    /* After g16_gpu_bases_drop_infinity: the n kept points came from n_src,
     * d_kept[j] = the source index of point j (NULL: nothing dropped,
     * n_src = n). */
    size_t n_src;
    uint32_t *d_kept;
    /* After g16_gpu_bases_precompute, d_points holds table_windows windows of
     * table_stride points (window w = 2^(table_c w) times the bases, msm.cuh);
     * table_windows 0: plain bases. */
    int table_c, table_windows;
    size_t table_stride;
};

/* Per-curve entry points (msm_<curve>_g1.cu / _g2.cu). */
g16_err g16gpu_msm_bn254_g1(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                            g16_status *st);
g16_err g16gpu_msm_bn254_g2(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                            g16_status *st);
g16_err g16gpu_msm_bls381_g1(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                             g16_status *st);
g16_err g16gpu_msm_bls381_g2(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *k, size_t n,
                             g16_status *st);
/* Precomputed window tables (msm_<curve>_<group>.cu; g16_gpu_bases_precompute). */
g16_err g16gpu_table_bn254_g1(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st);
g16_err g16gpu_table_bn254_g2(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st);
g16_err g16gpu_table_bls381_g1(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st);
g16_err g16gpu_table_bls381_g2(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st);
/* Allocates the streaming buffers once (gpu.cu; g16_gpu_stream_reserve). */
g16_err g16gpu_stream_reserve(g16_gpu *g, g16_status *st);
/* Streamed forms: bases from host memory, chunks of max_points (msm.cuh). */
g16_err g16gpu_msm_streamed_bn254_g1(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                     g16_status *st);
g16_err g16gpu_msm_streamed_bn254_g2(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                     g16_status *st);
g16_err g16gpu_msm_streamed_bls381_g1(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                      g16_status *st);
g16_err g16gpu_msm_streamed_bls381_g2(g16_gpu *g, void *out, const void *hp, const g16_scalar *k, size_t n,
                                      g16_status *st);
g16_err g16gpu_field_op_bn254(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                              const void *b, size_t n, g16_status *st);
g16_err g16gpu_field_op_bls381(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                               const void *b, size_t n, g16_status *st);
g16_err g16gpu_field_op_bn254_fp2(g16_gpu *g, g16_gpu_op op, void *out, const void *a, const void *b, size_t n,
                                  g16_status *st);
g16_err g16gpu_field_op_bls381_fp2(g16_gpu *g, g16_gpu_op op, void *out, const void *a, const void *b, size_t n,
                                   g16_status *st);

/* ---- NTT over Fr (ntt.cuh, ntt.cu, ntt_<curve>.cu) ---- */
/* G16GPU_NTT_MAX_LOG (largest GPU domain) and G16GPU_NTT_SCRATCH: msm_plan.h. */

/* Twiddles of one (curve, log_n) on one device, in one allocation (ntt.cuh,
 * ntt_dom_layout). Immutable after creation. */
struct g16_gpu_domain {
    g16_curve curve;
    unsigned log_n;
    int device;
    void *d_mem;
    void *roots[2];                 /* per direction: 0 forward, 1 inverse */
    void *odd_s1, *odd_s2;          /* odd-coset scale tables; NULL if log_n = s */
    uint32_t ninv[8];               /* 2^-log_n, Montgomery */
    unsigned cols_log;              /* tile columns of the first passes (ntt_make_plan) */
    unsigned threads;               /* pass block size: 0 by tile (ntt_pass_launch), else forced */
    void *d_full, *tfull[2];        /* full inter-pass twiddles, n/2 per direction (log_n > tile) */
};

g16_err g16gpu_ntt_domain_init_bn254(g16_gpu *g, g16_gpu_domain *d, g16_status *st);
g16_err g16gpu_ntt_domain_init_bls381(g16_gpu *g, g16_gpu_domain *d, g16_status *st);
g16_err g16gpu_ntt_run_bn254(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind, int order,
                             const void *shift, g16_status *st);
g16_err g16gpu_ntt_run_bls381(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind, int order,
                              const void *shift, g16_status *st);
g16_err g16gpu_h_run_bn254(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c, g16_scalar *d_h,
                           g16_status *st);
g16_err g16gpu_h_run_bls381(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c, g16_scalar *d_h,
                            g16_status *st);

#endif
