/* GPU MSM plan (window width, entry and bucket counts) and the context's
 * scratch sizing: plain C, host only, shared by gpu.cu (C++) and the host
 * test tests/test_gpu_plan.c (runs without a GPU).
 *
 * The plan depends on lg = ceil(log2 n), nbits and the policy only (not on n
 * itself), except for the entry and segment counts, which grow with n. So
 * the scratch for every n <= max_points and both scalar widths (254, 255
 * bits) is the maximum over the finitely many (lg, nbits) pairs, each taken
 * at its largest n, min(2^lg, max_points). An MSM of n points needs at most
 * plan(nbig).entries + n1 entries (0/1 split: nbig scalars > 1 with digits,
 * n1 ones, nbig + n1 <= n), hence the + max_points in the entries. */
#ifndef G16_GPU_MSM_PLAN_H
#define G16_GPU_MSM_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../util/config.h"

#define G16GPU_MAX_C 22  /* widest window of any policy */
#define G16GPU_MIN_SEG 32 /* entries per accumulating thread: allowed range */
#define G16GPU_MAX_SEG 256
#define G16GPU_SEG_DEFAULT 128 /* entries per accumulating thread (H200: docs/gpu.md, "Tuning knobs") */

typedef struct g16gpu_msm_plan {
    int c;             /* window bits */
    int windows;       /* nbits / c + 1 */
    uint32_t nb;       /* buckets per window, 2^(c-1) */
    uint32_t zero_key; /* windows * nb: the key of a zero digit */
    int key_bits;      /* bits to sort */
    size_t entries;    /* n * windows */
    uint32_t chunk;    /* C0: buckets per reducing thread */
} g16gpu_msm_plan;

static inline int g16gpu_ceil_log2(size_t n) {
    int lg = 0;
    while (lg < 63 && ((size_t)1 << lg) < n)
        lg++;
    return lg;
}

/* Window width c: policy 0 (the default) takes c = 4 for lg <= 7 and
 * otherwise, among c in [4, min(lg - 3, 22)], the one minimizing the number
 * of point additions at n = 2^lg, windows(c) * (2^lg + 3 * 2^(c-1))
 * (accumulation plus the bucket reduction's two full additions per bucket,
 * weighted 1.5 mixed ones); policy >= 4 forces that width (at most
 * G16GPU_MAX_C). n >= 1. */
static inline g16gpu_msm_plan g16gpu_plan(size_t n, int nbits, int policy) {
    g16gpu_msm_plan p;
    int lg = g16gpu_ceil_log2(n);
    if (policy >= 4) {
        p.c = policy > G16GPU_MAX_C ? G16GPU_MAX_C : policy;
    } else if (lg <= 7) {
        p.c = 4;
    } else {
        int hi = lg - 3 < G16GPU_MAX_C ? lg - 3 : G16GPU_MAX_C;
        double best = 0, pts = (double)((size_t)1 << lg);
        p.c = 4;
        for (int c = 4; c <= hi; c++) {
            double cost = (double)(nbits / c + 1) * (pts + 3.0 * (double)(1u << (c - 1)));
            if (c == 4 || cost < best)
                best = cost, p.c = c;
        }
    }
    p.windows = nbits / p.c + 1;
    p.nb = 1u << (p.c - 1);
    p.zero_key = (uint32_t)p.windows * p.nb;
    p.key_bits = 0;
    while ((1ull << p.key_bits) <= p.zero_key)
        p.key_bits++;
    p.entries = n * (size_t)p.windows;
    p.chunk = p.nb < 16 ? p.nb : 16;
    return p;
}

/* Scratch for every MSM of n <= max_points points (both scalar widths). */
typedef struct g16gpu_msm_scratch {
    size_t entries; /* sorted entries (keys, values) */
    size_t buckets; /* windows * nb */
    size_t segs;    /* accumulating threads at seg_len entries each */
    size_t red;     /* reduction partials: 2 * buckets / chunk */
    int windows;    /* most windows */
} g16gpu_msm_scratch;

/* Calls visit(arg, plan at the largest n of its lg, entries incl. the ones)
 * for every (lg, nbits) an MSM of <= max_points points can use; returns the
 * maximum of each count. */
static inline g16gpu_msm_scratch g16gpu_scratch(size_t max_points, int policy, uint32_t seg_len,
                                                void (*visit)(void *, const g16gpu_msm_plan *, size_t),
                                                void *arg) {
    g16gpu_msm_scratch s = {0, 0, 0, 0, 0};
    if (max_points == 0)
        max_points = 1;
    int top = g16gpu_ceil_log2(max_points);
    for (int lg = 0; lg <= top; lg++) {
        size_t n = (size_t)1 << lg;
        if (n > max_points)
            n = max_points;
        for (int nbits = 254; nbits <= 255; nbits++) {
            g16gpu_msm_plan p = g16gpu_plan(n, nbits, policy);
            size_t entries = p.entries + max_points;
            size_t buckets = (size_t)p.windows * p.nb;
            size_t segs = (entries + seg_len - 1) / seg_len;
            size_t red = 2 * buckets / p.chunk;
            if (entries > s.entries)
                s.entries = entries;
            if (buckets > s.buckets)
                s.buckets = buckets;
            if (segs > s.segs)
                s.segs = segs;
            if (red > s.red)
                s.red = red;
            if (p.windows > s.windows)
                s.windows = p.windows;
            if (visit)
                visit(arg, &p, entries);
        }
    }
    return s;
}

/* The window of a precomputed table over n bases (msm.cuh, "precomputed
 * window multiples"): the c in [4, G16GPU_MAX_C] minimizing
 * windows(c) * n + 3 * 2^(c-1) (the accumulation plus one bucket
 * reduction, weighed as in g16gpu_plan; no reduction per window, so wider
 * than the plan's c), among those whose one-bucket-set MSM of n points
 * fits the scratch of a context made for n points (policy, seg_len). It
 * depends on n only, not on the context that builds the table; an MSM
 * checks its own context's scratch before it uses a table. 255-bit
 * scalars at n = 2^24: c = 22, 12 windows (the plan: 20 and 13). */
static inline int g16gpu_table_c(size_t n, int nbits, int policy, uint32_t seg_len) {
    if (n == 0)
        n = 1;
    g16gpu_msm_scratch sc = g16gpu_scratch(n, policy, seg_len, NULL, NULL);
    int best_c = 4;
    double best = -1;
    for (int c = 4; c <= G16GPU_MAX_C; c++) {
        g16gpu_msm_plan p = g16gpu_plan(n, nbits, c);
        size_t m = n * (size_t)p.windows;
        if (m > sc.entries || p.nb > sc.buckets || (m + seg_len - 1) / seg_len > sc.segs ||
            2 * (size_t)p.nb / p.chunk > sc.red)
            continue;
        double cost = (double)p.windows * (double)n + 3.0 * (double)p.nb;
        if (best < 0 || cost < best)
            best = cost, best_c = c;
    }
    return best_c;
}

/* ---- a context's memory, on the host (no CUDA needed) -----------------------
 * What g16_gpu_create (gpu.cu) allocates for max_points, so that the engine
 * can count a worker's MSM context in its device budget before creating it
 * (docs/engine.md, "Budget accounting"). Kept in step with gpu_create: the
 * same plan policy and segment length (g16gpu_cfg_plan, which gpu_create
 * uses too), the same buffers. */

/* Bytes of the largest XYZZ point a context serves: 4 coordinates of
 * BLS12-381 Fp (48 bytes) or, with G2, of its Fp2 (96 bytes); gpu.cu
 * static_asserts them against sizeof(xyzz_t<...>). */
#define G16GPU_PT_BYTES_G1 ((size_t)4 * 48)
#define G16GPU_PT_BYTES_G2 ((size_t)4 * 96)
#define G16GPU_NTT_MAX_LOG 28 /* largest GPU domain */
#define G16GPU_NTT_SCRATCH ((size_t)2 << ((G16GPU_NTT_MAX_LOG + 1) / 2)) /* Fr elements of coset tables */
#define G16GPU_CTX_ALLOCS 19 /* device allocations of gpu_create (d_scalars .. d_pos) */

/* The plan policy and segment length of a context created with cfg (NULL:
 * the defaults): policy = gpu.msm_window_bits (0: the cost model, else a
 * forced width in 4..G16GPU_MAX_C) and seg_len = gpu.msm_segment
 * (G16GPU_MIN_SEG..G16GPU_MAX_SEG, default G16GPU_SEG_DEFAULT); the table's
 * bounds guarantee the ranges, which tests/test_config.c checks. */
static inline void g16gpu_cfg_plan(const g16_config *cfg, int *policy, uint32_t *seg_len) {
    *policy = (int)g16_config_int(cfg, G16_OPT_GPU_MSM_C);
    if (*policy < 4 || *policy > G16GPU_MAX_C)
        *policy = 0;
    int64_t sl = g16_config_int(cfg, G16_OPT_GPU_MSM_SEG);
    *seg_len = sl >= G16GPU_MIN_SEG && sl <= G16GPU_MAX_SEG ? (uint32_t)sl : G16GPU_SEG_DEFAULT;
}

/* An upper bound of CUB's radix-sort scratch for `entries` key-value pairs
 * sorted through a DoubleBuffer (nothing copied aside): the one-sweep
 * lookback holds 256 digit counters of at most 8 bytes per tile of at least
 * 2048 items (<= 1 byte per entry), plus per-pass bins and counters
 * (< 1 MiB for the <= 4 passes of <= 31 key bits). gpu_create asks CUB for
 * the exact size; the GPU test checks this bound against it. */
static inline size_t g16gpu_cub_bound(size_t entries) { return entries + ((size_t)1 << 20); }

/* Device bytes of one context for MSMs of up to max_points points (with_g2:
 * G2 too), plan policy and seg_len as g16gpu_cfg_plan gives them; each
 * allocation rounded up to the driver's 2 MiB granularity, so this is an
 * upper bound of what gpu_create takes (CUB's part bounded as above). Not
 * included: the pinned host buffers (32 bytes per point + 64 points), the
 * streamed path's staging buffers (g16_gpu_stream_reserve: max_points
 * affine points, only when bases are streamed) and the CUDA context itself
 * (once per device and process). */
static inline size_t g16gpu_ctx_device_bytes(size_t max_points, int with_g2, int policy, uint32_t seg_len) {
    if (max_points == 0)
        max_points = 1;
    if (seg_len < G16GPU_MIN_SEG || seg_len > G16GPU_MAX_SEG)
        seg_len = G16GPU_SEG_DEFAULT;
    g16gpu_msm_scratch sc = g16gpu_scratch(max_points, policy, seg_len, NULL, NULL);
    size_t pt = with_g2 ? G16GPU_PT_BYTES_G2 : G16GPU_PT_BYTES_G1;
    size_t cub = g16gpu_cub_bound(sc.entries);
    cub += cub / 16 + ((size_t)1 << 20); /* gpu_create's margin over CUB's figure */
    size_t cls_blocks = (max_points + 255) / 256;
    const size_t a[G16GPU_CTX_ALLOCS] = {
        max_points * 32,                /* d_scalars */
        sc.entries * 4, sc.entries * 4, /* d_keys[0..1] */
        sc.entries * 4, sc.entries * 4, /* d_vals[0..1] */
        cub,                            /* d_cub */
        sc.buckets * 4,                 /* d_bucket_end */
        sc.buckets * pt,                /* d_buckets */
        (2 * sc.segs + 64) * pt,        /* d_tree */
        sc.segs * pt,                   /* d_tail */
        sc.segs * 4,                    /* d_tkey */
        sc.red * pt,                    /* d_red */
        64 * pt,                        /* d_win */
        G16GPU_NTT_SCRATCH * 32,        /* d_ntt_scratch */
        2 * cls_blocks * 4,             /* d_cls */
        max_points * 4,                 /* d_big */
        max_points * 4,                 /* d_one */
        16,                             /* d_count */
        max_points * 4,                 /* d_pos */
    };
    const size_t gran = (size_t)2 << 20;
    size_t total = 0;
    for (int i = 0; i < G16GPU_CTX_ALLOCS; i++)
        total += (a[i] + gran - 1) / gran * gran;
    return total;
}

#endif
