/* g16 bench prove --backend cuda: proofs with the heavy stage on a GPU
 * through the device prover (groth16/prover.h), for a key and witness loaded
 * by bench_prove.
 *
 * Set-up, timed once: the device context (MSM scratch for the key), the key's
 * bases upload, the device working area (buffers and NTT twiddles) and the
 * pinned CPU working area. Then a warm-up proof and R timed proofs, each:
 * synthesis (CPU) -> GPU stage (copies a, b, c, w; NTT/H; five MSMs) ->
 * finalize (CPU, random r, s) -> verify (one multi-pairing). The figure is
 * the median end-to-end time; the fields give that run's stages and the
 * median GPU time. One more proof from a pageable (unpinned) working area
 * measures what pinning saves on the copies ("upload_pageable_ms").
 * Options (docs/config.md; --set KEY=VALUE or the environment):
 * bench.gpu_device ($G16_GPU_DEVICE, default 0); bench.stream_bases = 1
 * ($G16_BENCH_STREAM_BASES) streams the bases from host memory instead of
 * uploading the key; bench.no_pageable = 1 ($G16_BENCH_NO_PAGEABLE) skips
 * the pageable proof (reports 0 for it); bench.gpu_max_points = N
 * ($G16_GPU_MSM_MAX_POINTS) caps the context's MSM size (larger MSMs run in
 * chunks; it is also halved while the device lacks room, "msm_max_points").
 * From bench_synthetic (mem, drop_bases): per-phase peak RSS, and the key's
 * host bases released after the upload, its coefficients after the
 * preparation ("host_bytes_dropped").
 * Synthesis: with the key's coefficient rows resident (the default upload),
 * the CPU computes only the witness scalars ("synth_ms") and the GPU a, b, c
 * ("gpu_synth_ms", CUDA events; "gpu_synth":true); gpu.synth = 0 keeps
 * the whole synthesis on the CPU (gpu_synth_ms 0). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "util/util.h"

typedef struct run {
    double synth, finalize, verify, total;
    groth16_gpu_timings g;
} run;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One proof through the device prover (synthesis -> GPU stage -> finalize
 * -> verify); 0 on success. Under backend cuda a GPU failure or a proof
 * that does not verify is an error. */
static int one_proof(groth16_prover *pr, const g16_witness *w, run *r, g16_status *st) {
    groth16_prove_report rep;
    g16_result *res = NULL;
    memset(r, 0, sizeof *r);
    if (groth16_prover_prove(pr, &res, w, NULL, NULL, NULL, &rep, st))
        return 1;
    g16_result_free(res);
    r->synth = rep.synth_ms;
    r->finalize = rep.finalize_ms;
    r->verify = rep.verify_ms;
    r->total = rep.total_ms;
    r->g = rep.gtm;
    return 0;
}

int bench_prove_cuda(const bench_opts *o, g16_ctx *ctx, g16_key *key, g16_witness *w, bench_mem *mem,
                     int drop_bases) {
    const g16_zkey *zk = groth16_key_zkey(key);
    int device = (int)g16_config_int(&o->cfg, G16_OPT_BENCH_GPU_DEVICE);
    int stream = g16_config_bool(&o->cfg, G16_OPT_BENCH_STREAM_BASES);
    int reps = o->reps > 0 ? o->reps : 3, rc = 2;
    g16_status st = {0};
    g16_gpu *gl = NULL; /* the key's loader */
    groth16_gpu_key *gk = NULL;
    groth16_prover *pr = NULL, *pageable = NULL;
    groth16_prover_info pi;
    memset(&pi, 0, sizeof pi);
    run *runs = calloc((size_t)reps, sizeof *runs), rp;
    double *tot = calloc((size_t)reps, sizeof *tot), *gpu = calloc((size_t)reps, sizeof *gpu);
    if (!runs || !tot || !gpu)
        goto done;
    size_t maxp = zk->domainSize > zk->nVars ? zk->domainSize : zk->nVars;
    uint64_t cap = g16_config_u64(&o->cfg, G16_OPT_BENCH_GPU_MAX_POINTS);
    if (cap > 0 && cap < maxp)
        maxp = (size_t)cap;
    double t0 = g16_now_ms(), t_key = 0;
    size_t dropped = 0;
    int tables = 0; /* --precompute: base sets given a window table */
    /* The key goes up first, through a small loader context, so that the
     * prover's context (MSM scratch) is sized for what is left below. */
    if (g16_gpu_create(&gl, device, 1u << 12, 1, &o->cfg, &st))
        goto fail;
    if (!stream) {
        t0 = g16_now_ms();
        if (groth16_gpu_key_upload(gl, &gk, key, &st))
            goto fail;
        if (o->precompute && groth16_gpu_key_precompute(gl, gk, &tables, &st))
            goto fail;
        t_key = g16_now_ms() - t0;
        /* The proofs read the device copy only: the host pages can go. */
        if (drop_bases && groth16_key_drop_host(key, GROTH16_DROP_BASES, &dropped, &st))
            goto fail;
    }
    if (mem)
        bench_mem_phase(mem, "upload");
    /* The prover's coefficient rows (a key loaded with GROTH16_KEY_DEFER_PREP
     * gets them only now, without the bases beside them); then the key's
     * coefficient section has been read for good. */
    if (groth16_key_prepare(key, &st))
        goto fail;
    if (drop_bases && !stream) {
        size_t more = 0;
        if (groth16_key_drop_host(key, GROTH16_DROP_COEFS, &more, &st))
            goto fail;
        dropped += more;
    }
    if (mem)
        bench_mem_phase(mem, "prepare");
    /* The device prover over the borrowed device key: its own context and
     * device working area, MSMs of up to maxp points, halved while the
     * device cannot hold them beside the key (down to 2^20; larger MSMs
     * then run in chunks). */
    groth16_prover_opts po;
    groth16_prover_opts_init(&po);
    po.backend = G16_BACKEND_CUDA;
    po.device = device;
    po.stream_bases = stream;
    po.gpu_key = gk;
    po.msm_max_points = maxp;
    po.defer_host_work = 1;
    if (groth16_prover_create(ctx, &pr, key, &po, &st))
        goto fail;
    groth16_prover_get_info(pr, &pi);
    maxp = pi.msm_points;
    if (pi.note[0])
        fprintf(stderr, "g16 bench prove: %s\n", pi.note);
    if (mem)
        bench_mem_phase(mem, "gpu_work");
    /* GPU synthesis: the host working area holds the w scalars only. */
    if (groth16_prover_host_work(pr, &st))
        goto fail;
    groth16_prover_get_info(pr, &pi);
    if (mem)
        bench_mem_phase(mem, "host_work");
    for (int i = -1; i < reps; i++) {
        run r;
        if (one_proof(pr, w, &r, &st))
            goto fail;
        if (i >= 0) {
            runs[i] = r;
            tot[i] = r.total;
            gpu[i] = r.g.gpu_ms;
        }
    }
    /* The same proof from pageable host memory (copies only differ): a
     * second prover on the first one's context and device working area.
     * bench.no_pageable = 1 skips it: its working area is 4 x 32 bytes x n
     * more host memory (17 GB at 2^27), the margin of an in-memory 2^27 run. */
    memset(&rp, 0, sizeof rp);
    if (!g16_config_bool(&o->cfg, G16_OPT_BENCH_NO_PAGEABLE)) {
        groth16_prover_opts pp = po;
        pp.gpu = groth16_prover_gpu(pr);
        pp.gpu_work = groth16_prover_gpu_work(pr);
        pp.pageable = 1;
        pp.defer_host_work = 0;
        if (groth16_prover_create(ctx, &pageable, key, &pp, &st) || one_proof(pageable, w, &rp, &st))
            goto fail;
    }
    if (mem)
        bench_mem_phase(mem, "prove");

    qsort(tot, (size_t)reps, sizeof *tot, cmp_double);
    qsort(gpu, (size_t)reps, sizeof *gpu, cmp_double);
    double med = tot[reps / 2];
    int mi = 0;
    for (int i = 0; i < reps; i++)
        if (runs[i].total == med)
            mi = i;
    const run *m = &runs[mi];
    char extra[3072];
    snprintf(extra, sizeof extra,
             "\"log_n\":%u,\"wires\":%u,\"threads\":%d,\"reps\":%d,\"device\":\"%s\",\"bases\":\"%s\","
             "\"msm_max_points\":%zu,\"gpu_create_ms\":%.2f,\"key_upload_ms\":%.2f,\"key_bytes\":%zu,\"gpu_work_create_ms\":%.2f,"
             "\"host_work_create_ms\":%.2f,\"pinned\":%s,"
             "\"synth_ms\":%.2f,\"upload_ms\":%.2f,\"ntt_ms\":%.2f,\"msm_a_ms\":%.2f,\"msm_b1_ms\":%.2f,"
             "\"msm_b2_ms\":%.2f,\"msm_c_ms\":%.2f,\"msm_h_ms\":%.2f,\"gpu_ms\":%.2f,\"finalize_ms\":%.2f,"
             "\"verify_ms\":%.2f,\"gpu_median_ms\":%.2f,\"gpu_min_ms\":%.2f,\"min_ms\":%.2f,"
             "\"upload_pageable_ms\":%.2f,\"gpu_pageable_ms\":%.2f,\"gpu_synth\":%s,\"gpu_synth_ms\":%.2f,"
             "\"host_bytes_dropped\":%zu,\"tables\":%d,\"key_device_bytes\":%zu,\"b_kept\":%zu%s%s",
             zk->log2_domain, zk->nVars, g16_ctx_threads(ctx), reps, g16_gpu_name(groth16_prover_gpu(pr)), stream ? "streamed" : "resident",
             maxp, pi.gpu_create_ms, t_key, stream ? (size_t)0 : groth16_gpu_key_bytes(key), pi.gpu_work_ms,
             pi.host_work_ms, groth16_work_pinned(groth16_prover_work(pr)) ? "true" : "false", m->synth, m->g.upload_ms, m->g.ntt_ms, m->g.msm_ms[0],
             m->g.msm_ms[1], m->g.msm_ms[2], m->g.msm_ms[3], m->g.msm_ms[4], m->g.gpu_ms, m->finalize, m->verify,
             gpu[reps / 2], gpu[0], tot[0], rp.g.upload_ms, rp.g.gpu_ms,
             groth16_gpu_synth_flags(gk) & GROTH16_SYNTH_WS_ONLY ? "true" : "false", m->g.synth_ms, dropped,
             tables, groth16_gpu_key_device_bytes(gk), groth16_gpu_key_kept(gk, 2), mem ? "," : "",
             mem ? mem->json : "");
    bench_opts ro = *o;
    ro.backend = "cuda";
    bench_report(&ro, "prove", zk->curve, extra, "ms", med);
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "g16 bench prove --backend cuda: %s (%s)\n", st.msg[0] ? st.msg : g16_err_str(st.code),
            g16_err_str(st.code));
done:
    groth16_prover_free(pageable);
    groth16_prover_free(pr);
    groth16_gpu_key_free(gl, gk);
    g16_gpu_destroy(gl);
    free(runs);
    free(tot);
    free(gpu);
    return rc;
}
