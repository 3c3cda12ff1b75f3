/* GPU MSM (msm.cuh): the host driver. msm_core runs the pipeline on up to
 * max_points points (density form included), one helper per step
 * (msm_core_*); msm_chunked and its pipe run larger MSMs in chunks; msm_run
 * and msm_streamed_run are the entry points over resident and host bases;
 * field_op_run is a test hook. */
#ifndef G16_GPU_MSM_DRIVER_CUH
#define G16_GPU_MSM_DRIVER_CUH

#include "msm_table.cuh"

namespace g16gpu {

/* Density form of msm_core: bits (host or device) over n_bases bases. They
 * are copied into the context's own scratch (its d_scalars, n_bases/32 + 1
 * words, before the scalars go there), never into the shared bases object:
 * workers with their own contexts run density MSMs on one resident key at
 * once. */
struct msm_density {
    const uint8_t *bits;
    size_t n_bases;
};

/* Chunked MSMs (more points than the context's max_points; msm_chunked):
 * chunk k's bucket reduction (step 4) runs on g->red_stream in one half of
 * the bucket, reduction and window scratch while chunk k+1's split, sort
 * and accumulation run on g->stream in the other half (H200, 2026-11-30:
 * 15-20% off 0/1-heavy MSMs of 4 chunks, nothing off dense ones, whose
 * reductions fill the device anyway). A chunk whose
 * plan does not fit a half (G2 near the context's size) waits for the
 * pending halves and runs over the whole scratch. pending[h]: half h's
 * windows are on their way to the host (g->ev_red[h]); msm_pipe_drain adds
 * their Horner sum to total.
 * Merging (dense chunks): when the first chunk's scalars need the plan of
 * all its points (few zeros and ones), every chunk takes that plan, the
 * first accumulates into half 0 and each later one into half 1, whose
 * buckets are then added into half 0's (msm_merge_buckets_kernel: one per
 * bucket); half 0 is reduced once, after the last chunk. That replaces a
 * bucket reduction per chunk (BLS12-381 G1, 2^26 points, c = 22: 49 ms) by
 * a merge (one XYZZ addition per bucket). msm_chunked allows it when every
 * chunk holds at least half a context of points, so that the merge costs
 * less than the reduction it saves (2^27 partition: 1459.9 -> 1440.0 ms). */
template <class E> struct msm_pipe {
    int next; /* the half of the next chunk */
    bool pending[2], table[2];
    int windows[2], c[2];
    bool merge_ok; /* msm_chunked: chunks may merge */
    bool merge;    /* they do: the plan is mplan, half 0 holds the sum */
    int chunks;    /* chunks queued so far */
    g16gpu_msm_plan mplan;
    xyzz_t<E> total;
};

/* acc[i] += add[i] for count buckets (merging a chunk into the first). */
template <class E>
__global__ void __launch_bounds__(MSM_THREADS)
    msm_merge_buckets_kernel(xyzz_t<E> *__restrict__ acc, const xyzz_t<E> *__restrict__ add, uint32_t count) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    xyzz_t<E> a = acc[i];
    red_add_mem(a, &add[i]);
    acc[i] = a;
}

static inline char *pipe_half(void *base, size_t bytes, int h) {
    return (char *)base + (h > 0 ? bytes / 2 : 0);
}

template <class E> g16_err msm_pipe_drain(g16_gpu *g, msm_pipe<E> *pp, int h, g16_status *st) {
    if (!pp->pending[h])
        return G16_OK;
    pp->pending[h] = false;
    CU(cudaEventSynchronize(g->ev_red[h]));
    const xyzz_t<E> *win = (const xyzz_t<E> *)pipe_half(g->h_win, 64 * g->pt_bytes, h);
    pp->total.add(msm_horner(win, pp->windows[h], pp->c[h], pp->table[h]));
    return G16_OK;
}

/* msm_core, density form: pos = the j-th set bit, for j < the bit count
 * (d_count[2]). The bitmap is staged in d_scalars (the context's, so per
 * worker): the scatter kernel has read it before the scalars overwrite it
 * (one stream). */
static inline g16_err msm_core_density(g16_gpu *g, const msm_density *dn, size_t n, cudaStream_t s,
                                       const uint32_t *&pos, g16_status *st) {
    size_t words = dn->n_bases / 32 + 1;
    unsigned db = blocks_for(words, 1024);
    if (2 * (size_t)db > 2 * ((g->max_points + 255) / 256) ||
        words * sizeof(uint32_t) > g->max_points * sizeof(g16_scalar))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm density: %zu bases too many for the context",
                        dn->n_bases);
    uint32_t *d_words = (uint32_t *)g->d_scalars;
    CU(cudaMemsetAsync(d_words + words - 1, 0, sizeof(uint32_t), s));
    if (dn->n_bases)
        CU(cudaMemcpyAsync(d_words, dn->bits, (dn->n_bases + 7) / 8, cudaMemcpyDefault, s));
    msm_density_count_kernel<<<db, 1024, 0, s>>>(d_words, words, dn->n_bases, g->d_cls);
    CU_LAUNCH("msm_density_count_kernel");
    msm_class_scan_kernel<<<1, 1024, 0, s>>>(g->d_cls, db, g->d_count + 2);
    CU_LAUNCH("msm_class_scan_kernel");
    msm_density_scatter_kernel<<<db, 1024, 0, s>>>(d_words, words, dn->n_bases, g->d_cls, (uint32_t)n,
                                                   g->d_pos);
    CU_LAUNCH("msm_density_scatter_kernel");
    pos = g->d_pos;
    return G16_OK;
}

/* msm_core: the scalars' device address sc. Scalars in this device's
 * memory (the prover's w and h) are read where they are; others are
 * copied into the context. */
static inline g16_err msm_core_scalars(g16_gpu *g, const g16_scalar *scalars, size_t n, cudaStream_t s,
                                       const uint64_t *&sc, g16_status *st) {
    sc = g->d_scalars;
    if (n) {
        cudaPointerAttributes pa;
        if (cudaPointerGetAttributes(&pa, scalars) == cudaSuccess && pa.type == cudaMemoryTypeDevice &&
            pa.device == g->device)
            sc = (const uint64_t *)scalars;
        else
            CU(cudaMemcpyAsync(g->d_scalars, scalars, n * sizeof(g16_scalar), cudaMemcpyDefault, s));
    }
    return G16_OK;
}

/* msm_core, step 0 (n > 0): the 0/1 split; n1 ones, nbig larger scalars
 * at idx. With the density form (dn), the bit count must be n. */
static inline g16_err msm_core_split(g16_gpu *g, const uint64_t *sc, const msm_density *dn, size_t n,
                                     cudaStream_t s, size_t &n1, size_t &nbig, const uint32_t *&idx,
                                     g16_status *st) {
    unsigned cb = blocks_for(n, CLS_THREADS);
    msm_class_count_kernel<<<cb, CLS_THREADS, 0, s>>>(sc, (uint32_t)n, g->d_cls);
    CU_LAUNCH("msm_class_count_kernel");
    msm_class_scan_kernel<<<1, 1024, 0, s>>>(g->d_cls, cb, g->d_count);
    CU_LAUNCH("msm_class_scan_kernel");
    msm_class_scatter_kernel<<<cb, CLS_THREADS, 0, s>>>(sc, (uint32_t)n, g->d_cls, g->d_one,
                                                        g->d_big);
    CU_LAUNCH("msm_class_scatter_kernel");
    CU(cudaMemcpyAsync(g->h_count, g->d_count, 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));
    if (dn && g->h_count[2] != n)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm density: %u bits set, %zu scalars", g->h_count[2],
                        n);
    n1 = g->h_count[0];
    nbig = g->h_count[1];
    idx = g->d_big;
    if (n1 + nbig > n)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: 0/1 split counted %zu + %zu of %zu", n1, nbig, n);
    return G16_OK;
}

/* msm_core's plans. With a table: its c (digits) and one window of buckets
 * (plr, the plan of the sort and the reduction); without, plr = pl. A table
 * whose plan does not fit the context's scratch is not used. A merging
 * chunk takes pp->mplan. m entries in S segments of L. */
template <class E>
g16_err msm_core_plan(const g16_gpu *g, const msm_pipe<E> *pp, size_t n, size_t nbig, size_t n1, int nbits,
                      const msm_table *tb, bool merge_chunk, uint32_t L, g16gpu_msm_plan &pl,
                      g16gpu_msm_plan &plr, bool &use_table, uint32_t &m, uint32_t &S, g16_status *st) {
    pl = g16gpu_plan(nbig ? nbig : 1, nbits, g->plan_policy);
    use_table = false;
    if (merge_chunk) {
        pl = pp->mplan;
    } else if (tb) {
        g16gpu_msm_plan pt = g16gpu_plan(nbig ? nbig : 1, nbits, tb->c);
        if (pt.c == tb->c && pt.windows == tb->windows && table_fits(g, pt, nbig, n1)) {
            pl = pt;
            use_table = true;
        }
    }
    plr = pl;
    if (use_table) {
        plr.windows = 1;
        plr.zero_key = pl.nb;
        plr.key_bits = 0;
        while ((1ull << plr.key_bits) <= plr.zero_key)
            plr.key_bits++;
    }
    size_t m64 = nbig * (size_t)pl.windows + n1;
    size_t S64 = (m64 + L - 1) / L;
    if (m64 > g->max_entries || (size_t)plr.windows * plr.nb > g->max_buckets || S64 > g->max_segs ||
        2 * (size_t)plr.windows * plr.nb / plr.chunk > g->max_red || pl.windows > 64)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: plan for n=%zu (c=%d) exceeds the context's scratch", n,
                        pl.c);
    m = (uint32_t)m64, S = (uint32_t)S64;
    return G16_OK;
}

/* msm_core, a chunk (pp): half = the half of the scratch it takes when the
 * plan fits one, else -1, the whole (after the pending halves are done
 * with it). The first chunk decides on merging (merge_chunk). */
template <class E>
g16_err msm_core_half(g16_gpu *g, msm_pipe<E> *pp, size_t n, int nbits, const g16gpu_msm_plan &pl,
                      const g16gpu_msm_plan &plr, bool use_table, bool &merge_chunk, int &half,
                      g16_status *st) {
    typedef xyzz_t<E> P;
    size_t nbk = (size_t)plr.windows * plr.nb, nred = 2 * nbk / plr.chunk;
    bool fits = 2 * nbk * sizeof(P) <= g->max_buckets * g->pt_bytes &&
                2 * nred * sizeof(P) <= g->max_red * g->pt_bytes &&
                (size_t)plr.windows * sizeof(P) <= 32 * g->pt_bytes;
    /* The first chunk decides on merging: dense scalars (their plan is
     * that of all n points), no table, halves that hold the plan. */
    if (!merge_chunk && pp->merge_ok && pp->chunks == 0 && fits && !use_table &&
        pl.c == g16gpu_plan(n, nbits, g->plan_policy).c) {
        pp->merge = merge_chunk = true;
        pp->mplan = pl;
    }
    if (merge_chunk) {
        half = pp->chunks == 0 ? 0 : 1; /* nothing is pending in merge mode */
    } else {
        for (int h = 0; h < 2; h++)
            if (!fits || h == pp->next) {
                g16_err rc = msm_pipe_drain<E>(g, pp, h, st);
                if (rc != G16_OK)
                    return rc;
            }
        half = fits ? pp->next : -1;
    }
    return G16_OK;
}

/* msm_core, steps 1-3 (m > 0): digits, sort, bucket ends and accumulation
 * into buckets; half >= 0 first waits for the reduction that used it. */
template <class E>
g16_err msm_core_accumulate(g16_gpu *g, cudaStream_t s, const affine_t<E> *bases, const uint64_t *sc,
                            const uint32_t *idx, const uint32_t *pos, size_t nbig, size_t n1,
                            const g16gpu_msm_plan &pl, const g16gpu_msm_plan &plr, bool use_table,
                            const msm_table *tb, uint32_t m, uint32_t L, uint32_t S, int half,
                            xyzz_t<E> *buckets, g16_status *st) {
    typedef xyzz_t<E> P;
    P *tree = (P *)g->d_tree, *tail = (P *)g->d_tail;
    if (nbig)
        msm_digits_kernel<<<blocks_for(nbig, 256), 256, 0, s>>>(
            sc, idx, pos, (uint32_t)nbig, pl.c, pl.windows, pl.nb, use_table ? 0 : pl.nb,
            use_table ? (uint32_t)tb->stride : 0, plr.zero_key, g->d_keys[0], g->d_vals[0]);
    CU_LAUNCH("msm_digits_kernel");
    size_t o1 = nbig * (size_t)pl.windows;
    if (n1)
        msm_ones_kernel<<<blocks_for(n1, 256), 256, 0, s>>>(g->d_one, pos, (uint32_t)n1, g->d_keys[0] + o1,
                                                            g->d_vals[0] + o1);
    CU_LAUNCH("msm_ones_kernel");

    cub::DoubleBuffer<uint32_t> dk(g->d_keys[0], g->d_keys[1]), dv(g->d_vals[0], g->d_vals[1]);
    size_t tmp = 0;
    CU(cub::DeviceRadixSort::SortPairs(NULL, tmp, dk, dv, m, 0, plr.key_bits, s));
    if (tmp > g->cub_bytes)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm: sort needs %zu bytes of scratch, have %zu", tmp,
                        g->cub_bytes);
    tmp = g->cub_bytes;
    CU(cub::DeviceRadixSort::SortPairs(g->d_cub, tmp, dk, dv, m, 0, plr.key_bits, s));
    const uint32_t *keys = dk.Current(), *vals = dv.Current();
    CU(cudaEventRecord(g->ev[4], s));

    if (half >= 0) /* the reduction two chunks back used this half */
        CU(cudaStreamWaitEvent(s, g->ev_red[half], 0));
    CU(cudaMemsetAsync(buckets, 0, (size_t)plr.windows * plr.nb * sizeof(P), s));
    msm_bucket_end_kernel<<<blocks_for(m, 256), 256, 0, s>>>(keys, m, plr.zero_key, g->d_bucket_end);
    CU_LAUNCH("msm_bucket_end_kernel");

    msm_accumulate_launch<E>(g, blocks_for(S, MSM_THREADS), s, keys, vals, m, L, S, plr.zero_key, bases,
                             buckets, tree, tail, g->d_tkey);
    CU_LAUNCH("msm_accumulate_kernel");
    CU(cudaEventRecord(g->ev[5], s));
    return G16_OK;
}

/* msm_core, steps 3b-4 (m > 0): a merging chunk's fix-up and merge into
 * half 0; a chunk in a half: its fix-up, then the reduction and the
 * windows' copy left running on red_stream (pp->pending); else both over
 * the whole scratch on s. queued: the first two (no windows to wait for). */
template <class E>
g16_err msm_core_reduce(g16_gpu *g, msm_pipe<E> *pp, cudaStream_t s, const g16gpu_msm_plan &pl,
                        const g16gpu_msm_plan &plr, bool use_table, bool merge_chunk, int half, uint32_t L,
                        uint32_t S, xyzz_t<E> *buckets, bool &queued, g16_status *st) {
    typedef xyzz_t<E> P;
    if (merge_chunk) {
        /* Step 3b, then (later chunks) the merge into half 0. */
        g16_err rerr = msm_fixup<E>(g, S, L, buckets, st);
        if (rerr != G16_OK)
            return rerr;
        if (half == 1) {
            uint32_t count = (uint32_t)((size_t)plr.windows * plr.nb);
            msm_merge_buckets_kernel<E><<<blocks_for(count, MSM_THREADS), MSM_THREADS, 0, s>>>(
                (P *)g->d_buckets, buckets, count);
            CU_LAUNCH("msm_merge_buckets_kernel");
        }
        pp->chunks++;
        queued = true;
        return G16_OK;
    }
    if (half >= 0) {
        /* Step 3b here, step 4 and the windows' copy on red_stream. */
        size_t wbytes = (size_t)plr.windows * sizeof(P);
        void *red = pipe_half(g->d_red, g->max_red * g->pt_bytes, half);
        void *win = pipe_half(g->d_win, 64 * g->pt_bytes, half);
        void *hwin = pipe_half(g->h_win, 64 * g->pt_bytes, half);
        g16_err rerr = msm_fixup<E>(g, S, L, buckets, st);
        if (rerr != G16_OK)
            return rerr;
        CU(cudaEventRecord(g->ev_acc[half], s));
        CU(cudaStreamWaitEvent(g->red_stream, g->ev_acc[half], 0));
        rerr = msm_reduce_windows<E>(plr, buckets, red, win, g->red_stream, st);
        if (rerr != G16_OK)
            return rerr;
        CU(cudaMemcpyAsync(hwin, win, wbytes, cudaMemcpyDeviceToHost, g->red_stream));
        CU(cudaEventRecord(g->ev_red[half], g->red_stream));
        pp->pending[half] = true;
        pp->windows[half] = pl.windows;
        pp->c[half] = pl.c;
        pp->table[half] = use_table;
        pp->next = half ^ 1;
        pp->chunks++;
        g->last.table = use_table;
        queued = true;
        return G16_OK;
    }
    g16_err rerr = msm_reduce<E>(g, plr, S, L, st);
    if (rerr != G16_OK)
        return rerr;
    return G16_OK;
}

/* The MSM of n <= max_points points at device address bases (affine_t<E>,
 * at least n of them); *res receives the sum (XYZZ, on the host). Times in
 * g->last. With pp (a chunk of msm_chunked), the reduction may be left
 * running in a half of the scratch (*res = infinity; pp->pending), or, when
 * the chunks merge, the chunk's buckets are added into half 0's and
 * msm_chunked reduces them once (*res = infinity). */
template <class E>
g16_err msm_core(g16_gpu *g, xyzz_t<E> *res, const affine_t<E> *bases, const msm_density *dn,
                 const g16_scalar *scalars, size_t n, int nbits, const msm_table *tb, g16_status *st,
                 msm_pipe<E> *pp = nullptr) {
    typedef xyzz_t<E> P;
    *res = P::inf();
    g->last = g16_gpu_timing{};
    if (n == 0 && !dn)
        return G16_OK;
    cudaStream_t s = g->stream;
    CU(cudaEventRecord(g->ev[0], s));

    const uint32_t *pos = NULL;
    if (dn) {
        g16_err rc = msm_core_density(g, dn, n, s, pos, st);
        if (rc != G16_OK)
            return rc;
    }

    const uint64_t *sc;
    g16_err rc = msm_core_scalars(g, scalars, n, s, sc, st);
    if (rc != G16_OK)
        return rc;
    CU(cudaEventRecord(g->ev[1], s));

    /* 0. The 0/1 split. */
    size_t nbig = n, n1 = 0;
    const uint32_t *idx = NULL;
    if (n == 0) { /* density form with no scalars: only the bit count matters */
        CU(cudaMemcpyAsync(g->h_count, g->d_count, 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
        CU(cudaStreamSynchronize(s));
        if (g->h_count[2] != 0)
            return g16_fail(st, G16_ERR_SIZE_MISMATCH, "gpu msm density: %u bits set, 0 scalars", g->h_count[2]);
        return G16_OK;
    }
    rc = msm_core_split(g, sc, dn, n, s, n1, nbig, idx, st);
    if (rc != G16_OK)
        return rc;

    g16gpu_msm_plan pl, plr;
    bool use_table = false;
    bool merge_chunk = pp && pp->merge;
    uint32_t L = g->seg_len, m = 0, S = 0;
    rc = msm_core_plan<E>(g, pp, n, nbig, n1, nbits, tb, merge_chunk, L, pl, plr, use_table, m, S, st);
    if (rc != G16_OK)
        return rc;

    int half = -1;
    if (pp && m > 0) {
        rc = msm_core_half<E>(g, pp, n, nbits, pl, plr, use_table, merge_chunk, half, st);
        if (rc != G16_OK)
            return rc;
    }
    P *buckets = (P *)pipe_half(g->d_buckets, half >= 0 ? g->max_buckets * g->pt_bytes : 0, half);

    if (m > 0) {
        rc = msm_core_accumulate<E>(g, s, bases, sc, idx, pos, nbig, n1, pl, plr, use_table, tb, m, L, S, half,
                                    buckets, st);
        if (rc != G16_OK)
            return rc;
        bool queued = false;
        rc = msm_core_reduce<E>(g, pp, s, pl, plr, use_table, merge_chunk, half, L, S, buckets, queued, st);
        if (rc != G16_OK || queued)
            return rc;
    }
    CU(cudaEventRecord(g->ev[2], s));
    if (m > 0)
        CU(cudaMemcpyAsync(g->h_win, g->d_win, (size_t)plr.windows * sizeof(P), cudaMemcpyDeviceToHost, s));
    CU(cudaEventRecord(g->ev[3], s));
    CU(cudaEventSynchronize(g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.total_ms, g->ev[0], g->ev[3]));
    CU(cudaEventElapsedTime(&g->last.kernel_ms, g->ev[1], g->ev[2]));
    if (m == 0)
        return G16_OK;
    CU(cudaEventElapsedTime(&g->last.sort_ms, g->ev[1], g->ev[4]));
    CU(cudaEventElapsedTime(&g->last.acc_ms, g->ev[4], g->ev[5]));
    CU(cudaEventElapsedTime(&g->last.reduce_ms, g->ev[5], g->ev[2]));
    g->last.table = use_table;

    *res = msm_horner((const P *)g->h_win, pl.windows, pl.c, use_table);
    return G16_OK;
}

/* The MSM of n > max_points resident bases (no density form), in chunks of
 * max_points (see msm_pipe); *res receives the sum. g->last: total_ms and
 * kernel_ms both the span on the device from the first chunk's start (after
 * the work queued before it on the stream) to the last reduction's end
 * (CUDA events; the host clock would count that earlier work when the host
 * gets here first), no stage times. */
template <class E>
g16_err msm_chunked(g16_gpu *g, xyzz_t<E> *res, const g16_gpu_bases *b, const g16_scalar *scalars, size_t n,
                    int nbits, g16_status *st) {
    typedef xyzz_t<E> P;
    msm_pipe<E> pp = {};
    pp.total = P::inf();
    size_t cap = g->max_points;
    pp.merge_ok = n % cap == 0 || n % cap >= cap / 2;
    msm_table tb = {b->table_c, b->table_windows, b->table_stride};
    const affine_t<E> *pts = (const affine_t<E> *)b->d_points;
    int tables = 0;
    CU(cudaEventRecord(g->ev_pipe[0], g->stream));
    g16_err rc = G16_OK;
    for (size_t first = 0; first < n && rc == G16_OK; first += cap) {
        size_t len = n - first < cap ? n - first : cap;
        P part;
        rc = msm_core<E>(g, &part, pts + first, NULL, scalars + first, len, nbits, b->table_windows ? &tb : NULL, st,
                         &pp);
        if (rc == G16_OK) {
            pp.total.add(part); /* infinity when the chunk's reduction is pending */
            g16_wipe(&part, sizeof part); /* witness-derived, as the sums are */
            tables |= g->last.table;
            rc = msm_pipe_drain<E>(g, &pp, pp.next, st); /* the chunk before, while this one runs */
        }
    }
    if (rc == G16_OK && pp.merge) { /* the one reduction, of half 0, on the stream */
        const g16gpu_msm_plan &pl = pp.mplan;
        rc = msm_reduce_windows<E>(pl, g->d_buckets, g->d_red, g->d_win, g->stream, st);
        cudaError_t e = cudaSuccess;
        if (rc == G16_OK)
            e = cudaMemcpyAsync(g->h_win, g->d_win, (size_t)pl.windows * sizeof(P), cudaMemcpyDeviceToHost,
                                g->stream);
        if (rc == G16_OK && e == cudaSuccess)
            e = cudaEventRecord(g->ev_red[0], g->stream);
        if (e != cudaSuccess)
            rc = g16_fail(st, G16_ERR_DEVICE, "gpu msm merged chunks@%s:%d: %s", __FILE__, __LINE__,
                          cudaGetErrorString(e));
        if (rc == G16_OK) {
            pp.pending[0] = true;
            pp.windows[0] = pl.windows;
            pp.c[0] = pl.c;
            pp.table[0] = false;
        }
    }
    if (rc == G16_OK) {
        cudaError_t e = cudaSuccess;
        for (int h = 0; h < 2 && e == cudaSuccess; h++)
            if (pp.pending[h])
                e = cudaStreamWaitEvent(g->stream, g->ev_red[h], 0);
        if (e == cudaSuccess)
            e = cudaEventRecord(g->ev_pipe[1], g->stream);
        if (e != cudaSuccess)
            rc = g16_fail(st, G16_ERR_DEVICE, "gpu msm chunks@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
        for (int h = 0; h < 2 && rc == G16_OK; h++)
            rc = msm_pipe_drain<E>(g, &pp, h, st);
    }
    if (rc != G16_OK) { /* nothing queued may outlive the call */
        (void)cudaStreamSynchronize(g->red_stream);
        (void)cudaStreamSynchronize(g->stream);
        g16_wipe(&pp, sizeof pp);
        return rc;
    }
    float kms = 0;
    CU(cudaEventSynchronize(g->ev_pipe[1]));
    CU(cudaEventElapsedTime(&kms, g->ev_pipe[0], g->ev_pipe[1]));
    g->last = g16_gpu_timing{};
    g->last.kernel_ms = kms;
    g->last.total_ms = kms;
    g->last.table = tables;
    *res = pp.total;
    g16_wipe(&pp, sizeof pp);
    return G16_OK;
}

/* The whole MSM over resident bases; out receives the CPU's Jacobian (x, y, z). */
template <class E>
g16_err msm_run(g16_gpu *g, void *out, const g16_gpu_bases *b, const uint8_t *density, const g16_scalar *scalars,
                size_t n, int nbits, g16_status *st) {
    if (sizeof(xyzz_t<E>) > g->pt_bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: context was created without G2 scratch");
    xyzz_t<E> r;
    msm_density dn = {density, b->n};
    msm_table tb = {b->table_c, b->table_windows, b->table_stride};
    if (n > g->max_points && density)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: %zu points exceed the context's %zu", n, g->max_points);
    g16_err rc = n > g->max_points ? msm_chunked<E>(g, &r, b, scalars, n, nbits, st)
                                   : msm_core<E>(g, &r, (const affine_t<E> *)b->d_points, density ? &dn : NULL,
                                                 scalars, n, nbits, b->table_windows ? &tb : NULL, st);
    if (rc != G16_OK)
        return rc;
    E *o = (E *)out;
    r.to_jac(o[0], o[1], o[2]);
    return G16_OK;
}

/* Bases from host memory hp (the CPU's G_affine array), in chunks of
 * max_points: chunk k+1 is copied on the copy stream into the other staging
 * buffer while chunk k's kernels run (its buffer was last read by chunk k-1,
 * which msm_core waited for). The chunk sums are added on the host. */
template <class E>
g16_err msm_streamed_run(g16_gpu *g, void *out, const void *hp, const g16_scalar *scalars, size_t n, int nbits,
                         g16_status *st) {
    typedef affine_t<E> A;
    if (sizeof(xyzz_t<E>) > g->pt_bytes)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu msm: context was created without G2 scratch");
    if (!g->d_stage[0]) {
        g16_err rc = g16gpu_stream_reserve(g, st);
        if (rc != G16_OK)
            return rc;
    }
    size_t chunk = g->max_points;
    if (chunk * sizeof(A) > g->stage_bytes)
        return g16_fail(st, G16_ERR_INTERNAL, "gpu msm streamed: staging buffers too small");
    double t0 = g16_now_ms();
    const char *h = (const char *)hp;
    size_t chunks = (n + chunk - 1) / chunk;
    xyzz_t<E> total = xyzz_t<E>::inf();
    g16_gpu_timing sum = {};
    g16_err rc = G16_OK;
    cudaError_t e = cudaSuccess;
    if (chunks) {
        size_t len = n < chunk ? n : chunk;
        if ((e = cudaMemcpyAsync(g->d_stage[0], h, len * sizeof(A), cudaMemcpyHostToDevice, g->copy_stream)) ==
            cudaSuccess)
            e = cudaEventRecord(g->ev_copy[0], g->copy_stream);
    }
    for (size_t c = 0; c < chunks && e == cudaSuccess && rc == G16_OK; c++) {
        size_t off = c * chunk, len = n - off < chunk ? n - off : chunk;
        if (c + 1 < chunks) {
            size_t off2 = off + chunk, len2 = n - off2 < chunk ? n - off2 : chunk;
            if ((e = cudaMemcpyAsync(g->d_stage[(c + 1) & 1], h + off2 * sizeof(A), len2 * sizeof(A),
                                     cudaMemcpyHostToDevice, g->copy_stream)) != cudaSuccess)
                break;
            if ((e = cudaEventRecord(g->ev_copy[(c + 1) & 1], g->copy_stream)) != cudaSuccess)
                break;
        }
        if ((e = cudaStreamWaitEvent(g->stream, g->ev_copy[c & 1], 0)) != cudaSuccess)
            break;
        xyzz_t<E> part;
        rc = msm_core<E>(g, &part, (const A *)g->d_stage[c & 1], NULL, scalars + off, len, nbits, NULL, st);
        if (rc == G16_OK) {
            total.add(part);
            sum.kernel_ms += g->last.kernel_ms;
            sum.sort_ms += g->last.sort_ms;
            sum.acc_ms += g->last.acc_ms;
            sum.reduce_ms += g->last.reduce_ms;
        }
    }
    cudaError_t e2 = cudaStreamSynchronize(g->copy_stream); /* no copy may outlive the call */
    if (e == cudaSuccess)
        e = e2;
    if (rc != G16_OK)
        return rc;
    if (e != cudaSuccess)
        return g16_fail(st, G16_ERR_DEVICE, "gpu msm streamed@%s:%d: %s", __FILE__, __LINE__,
                        cudaGetErrorString(e));
    sum.total_ms = (float)(g16_now_ms() - t0);
    g->last = sum;
    E *o = (E *)out;
    total.to_jac(o[0], o[1], o[2]);
    return G16_OK;
}

/* Element-wise field operations (test hook). */
template <class E>
__global__ void field_op_kernel(int op, E *out, const E *a, const E *b, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    E x = a[i];
    switch (op) {
    case G16_GPU_ADD: out[i] = x + b[i]; break;
    case G16_GPU_SUB: out[i] = x - b[i]; break;
    case G16_GPU_MUL: out[i] = x * b[i]; break;
    default: out[i] = x.sqr(); break;
    }
}

template <class E>
g16_err field_op_run(g16_gpu *g, g16_gpu_op op, void *out, const void *a, const void *b, size_t n,
                     g16_status *st) {
    if (n == 0)
        return G16_OK;
    if (!b)
        b = a; /* SQR ignores b */
    if (n > 0xffffffffu)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu field op: n too large");
    size_t bytes = n * sizeof(E);
    E *d = NULL;
    cudaError_t e = cudaMalloc(&d, 3 * bytes);
    if (e != cudaSuccess)
        return g16_fail(st, G16_ERR_DEVICE, "cudaMalloc@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    g16_err rc = G16_OK;
    do {
        cudaStream_t s = g->stream;
        if ((e = cudaMemcpyAsync(d + n, a, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess)
            break;
        if ((e = cudaMemcpyAsync(d + 2 * n, b, bytes, cudaMemcpyHostToDevice, s)) != cudaSuccess)
            break;
        field_op_kernel<E><<<blocks_for(n, 256), 256, 0, s>>>((int)op, d, d + n, d + 2 * n, (uint32_t)n);
        if ((e = cudaGetLastError()) != cudaSuccess)
            break;
        if ((e = cudaMemcpyAsync(out, d, bytes, cudaMemcpyDeviceToHost, s)) != cudaSuccess)
            break;
        e = cudaStreamSynchronize(s);
    } while (0);
    if (e != cudaSuccess)
        rc = g16_fail(st, G16_ERR_DEVICE, "field_op_kernel@%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    cudaFree(d);
    return rc;
}

} /* namespace g16gpu */

#endif
