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

#define G16GPU_MAX_C 22  /* widest window of any policy */
#define G16GPU_MIN_SEG 32 /* entries per accumulating thread: allowed range */
#define G16GPU_MAX_SEG 256

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

/* Window width c: policy 1 is the first version's rule, lg - 3, at least 4
 * and at most 16; policy 0 (the default) takes, among c in [4, min(lg - 3,
 * 22)], the one minimizing the number of point additions at n = 2^lg,
 * windows(c) * (2^lg + 3 * 2^(c-1)) (accumulation plus the bucket
 * reduction's two full additions per bucket, weighted 1.5 mixed ones);
 * policy >= 4 forces that width (at most G16GPU_MAX_C). n >= 1. */
static inline g16gpu_msm_plan g16gpu_plan(size_t n, int nbits, int policy) {
    g16gpu_msm_plan p;
    int lg = g16gpu_ceil_log2(n);
    if (policy >= 4) {
        p.c = policy > G16GPU_MAX_C ? G16GPU_MAX_C : policy;
    } else if (policy == 1 || lg <= 7) {
        p.c = lg <= 7 ? 4 : lg - 3;
        if (p.c > 16)
            p.c = 16;
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

#endif
