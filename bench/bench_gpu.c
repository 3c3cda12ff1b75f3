/* `g16 bench msm --backend cuda`: the GPU MSM with bases resident on the
 * device and scalars in the context's pinned buffer. Times come from CUDA
 * events (g16_gpu_timing), after two warm-up runs, as the median of --reps
 * runs (default 7): "total" includes the scalar upload and the result
 * download, "kernels" is the device work alone (the figure comparable with
 * sppark's, which starts with the scalars on the device).
 * Inputs: bench_msm_inputs (bench_msm_inputs.c): 2^K distinct bases d_i G
 * of known logs, scalars uniform below r, or with --profile filecoin about
 * 99% in {0, 1} (half each) and the rest uniform (seed --seed, default
 * 0x6d736d); every run's sum, warm-ups included, is checked against
 * (sum_i s_i d_i) G (exit 1 when it differs). Prints min / median / max.
 * --streamed: bases stay in (pinned) host memory and g16_gpu_msm_streamed
 * copies them in 4 chunks (the context's max_points is n/4); "total" is then
 * the host's wall time of the call, "kernels" the sum of the chunks' kernels.
 * --chunk-log K: resident bases, a context of 2^K < n points, so that the MSM
 * runs in chunks (g16_gpu_msm: reductions pipelined, dense chunks merged);
 * the scalars are copied to the device first, "total" and
 * "kernels" are both the chunks' span on the device.
 * --ab KEY=VALUE: a second context made with that option changed runs every
 * other rep over the same resident bases (warm-ups for both), so that an
 * MSM variant is measured against the default in one run, interleaved; the
 * kernels record gets "ab" with B's min / median / max and stage medians. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "curve/curve.h"
#include "gpu/gpu.h"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int bench_msm_cuda(const bench_opts *o) {
    g16_curve curve = o->curve_set ? o->curve : G16_CURVE_BLS12_381;
    int lg = o->log_n >= 0 ? o->log_n : 20;
    int g2 = o->group && !strcmp(o->group, "g2");
    int reps = o->reps > 0 ? o->reps : 7;
    if (lg < 0 || lg > 28 || (o->group && strcmp(o->group, "g1") && !g2)) {
        fprintf(stderr, "g16 bench msm: bad --log-n or --group\n");
        return 2;
    }
    size_t n = (size_t)1 << lg;
    int filecoin = bench_profile(o) == 1, streamed = o->streamed;
    int chunked = !streamed && o->chunk_log > 0 && o->chunk_log < lg;
    size_t cap = streamed ? (n >= 4 ? n / 4 : 1) : chunked ? (size_t)1 << o->chunk_log : n;
    if (g16_gpu_count() == 0) {
        fprintf(stderr, "g16 bench msm: no GPU\n");
        return 1;
    }
    g16_status st = {0};
    g16_gpu *gpu = NULL, *gpu_b = NULL;
    if (g16_gpu_create(&gpu, 0, cap, g2, &o->cfg, &st) != G16_OK ||
        (o->ab && g16_gpu_create(&gpu_b, 0, cap, g2, &o->cfg_b, &st) != G16_OK)) {
        fprintf(stderr, "g16 bench msm: %s%s\n", gpu ? "--ab context: " : "", st.msg);
        g16_gpu_destroy(gpu);
        return 1;
    }
    const int ab = gpu_b != NULL;
    int bn = curve == G16_CURVE_BN254;
    uint64_t seed = o->seed_set ? o->seed : 0x6d736d;
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    bench_msm_in in = {0};
    double t_in = g16_now_ms();
    if (!ctx || bench_msm_inputs(ctx, curve, g2, n, filecoin, seed, &in)) {
        fprintf(stderr, "g16 bench msm: out of memory\n");
        g16_ctx_destroy(ctx);
        g16_gpu_destroy(gpu);
        g16_gpu_destroy(gpu_b);
        return 1;
    }
    t_in = g16_now_ms() - t_in;
    void *bases = in.bases;
    /* Streamed or chunked: the context's pinned buffer holds fewer scalars. */
    g16_scalar *kbuf = streamed || chunked ? malloc(n * sizeof *kbuf) : NULL;
    g16_scalar *k = streamed || chunked ? kbuf : g16_gpu_scalar_buffer(gpu);
    g16_scalar *d_k = NULL; /* chunked: the scalars on the device */
    g16_gpu_bases *gb = NULL;
    int rc = 1, pinned_k = 0, pinned_b = 0;
    size_t pt_bytes = (bn ? 64 : 96) * (g2 ? 2 : 1);
    float *tot = calloc((size_t)reps, sizeof *tot), *ker = calloc((size_t)reps, sizeof *ker);
    float *stage = calloc(3 * (size_t)reps, sizeof *stage); /* sort, accumulation, reduction */
    float *ker_b = calloc((size_t)reps, sizeof *ker_b), *stage_b = calloc(3 * (size_t)reps, sizeof *stage_b);
    int table_ran = 0;
    if (!bases || !tot || !ker || !stage || !k || !ker_b || !stage_b) {
        fprintf(stderr, "g16 bench msm: out of memory\n");
        goto done;
    }
    memcpy(k, in.sc, n * sizeof *k);
    if (streamed) {
        pinned_b = g16_gpu_host_pin(bases, n * pt_bytes, &st) == G16_OK;
        pinned_k = g16_gpu_host_pin(k, n * sizeof *k, &st) == G16_OK;
        if (g16_gpu_stream_reserve(gpu, &st) != G16_OK) {
            fprintf(stderr, "g16 bench msm: %s\n", st.msg);
            goto done;
        }
    } else if (g16_gpu_bases_upload(gpu, &gb, curve, g2 ? G16_GPU_G2 : G16_GPU_G1, bases, n, &st) != G16_OK) {
        fprintf(stderr, "g16 bench msm: %s\n", st.msg);
        goto done;
    }
    if (chunked && (g16_gpu_alloc(gpu, (void **)&d_k, n * sizeof *k, &st) != G16_OK ||
                    g16_gpu_copy_async(gpu, d_k, k, n * sizeof *k, &st) != G16_OK || g16_gpu_sync(gpu, &st) != G16_OK)) {
        fprintf(stderr, "g16 bench msm: %s\n", st.msg);
        goto done;
    }
    if (o->precompute && !streamed) {
        double t0 = g16_now_ms();
        if (g16_gpu_bases_precompute(gpu, gb, o->table_c, &st) != G16_OK) {
            fprintf(stderr, "g16 bench msm: %s\n", st.msg);
            goto done;
        }
        char pe[160];
        size_t tb = g16_gpu_bases_device_bytes(gb);
        snprintf(pe, sizeof pe, "\"group\":\"%s\",\"log_n\":%d,\"table_bytes\":%zu,\"table_windows\":%zu",
                 g2 ? "g2" : "g1", lg, tb, tb / (n * pt_bytes));
        bench_report(o, "msm_precompute", curve, pe, "ms", g16_now_ms() - t0);
    }
    union {
        bls381_g2_jac a;
        bn254_g2_jac b;
        bls381_g1_jac c;
        bn254_g1_jac d;
    } out;
    /* Streamed MSMs need the B context's staging buffers too. */
    if (ab && streamed && g16_gpu_stream_reserve(gpu_b, &st) != G16_OK) {
        fprintf(stderr, "g16 bench msm: %s\n", st.msg);
        goto done;
    }
    for (int j = -4; j < (ab ? 2 * reps : reps); j++) { /* j < 0: warm-ups */
        int side = ab && (j & 1), r = j < 0 ? -1 : ab ? j / 2 : j;
        if (!ab && j < -2)
            continue;
        g16_gpu *gg = side ? gpu_b : gpu;
        g16_gpu_timing tm;
        g16_err e = streamed ? g16_gpu_msm_streamed(gg, &out, curve, g2 ? G16_GPU_G2 : G16_GPU_G1, bases, k, n,
                                                    &tm, &st)
                             : g16_gpu_msm(gg, &out, gb, chunked ? d_k : k, n, &tm, &st);
        if (e != G16_OK) {
            fprintf(stderr, "g16 bench msm: %s%s\n", side ? "--ab context: " : "", st.msg);
            goto done;
        }
        if (!bench_msm_check(&in, &out)) {
            fprintf(stderr, "g16 bench msm: run %d%s: the sum differs from (sum s_i d_i) G\n", r,
                    side ? " (--ab context)" : "");
            goto done;
        }
        if (r >= 0 && side) {
            ker_b[r] = tm.kernel_ms;
            stage_b[r] = tm.sort_ms, stage_b[reps + r] = tm.acc_ms, stage_b[2 * reps + r] = tm.reduce_ms;
        } else if (r >= 0) {
            tot[r] = tm.total_ms, ker[r] = tm.kernel_ms;
            stage[r] = tm.sort_ms, stage[reps + r] = tm.acc_ms, stage[2 * reps + r] = tm.reduce_ms;
            table_ran = tm.table;
        }
    }
    qsort(tot, (size_t)reps, sizeof *tot, cmp_float);
    qsort(ker, (size_t)reps, sizeof *ker, cmp_float);
    qsort(ker_b, (size_t)reps, sizeof *ker_b, cmp_float);
    for (int i = 0; i < 3; i++) {
        qsort(stage + (size_t)i * reps, (size_t)reps, sizeof *stage, cmp_float);
        qsort(stage_b + (size_t)i * reps, (size_t)reps, sizeof *stage_b, cmp_float);
    }
    char extra[1024], chv[64], mm[2][160], abj[320] = "";
    if (ab) {
        char *set = bench_json_string(o->ab);
        snprintf(abj, sizeof abj,
                 ",\"ab\":{\"set\":%.120s,\"min_ms\":%.4f,\"median_ms\":%.4f,\"max_ms\":%.4f,\"sort_ms\":%.3f,"
                 "\"acc_ms\":%.3f,\"reduce_ms\":%.3f}",
                 set ? set : "null", ker_b[0], ker_b[reps / 2], ker_b[reps - 1], stage_b[reps / 2],
                 stage_b[reps + reps / 2], stage_b[2 * reps + reps / 2]);
        free(set);
    }
    for (int w = 0; w < 2; w++) {
        const float *t = w ? tot : ker;
        snprintf(mm[w], sizeof mm[w],
                 ",\"min_ms\":%.4f,\"median_ms\":%.4f,\"max_ms\":%.4f,\"seed\":%llu,\"checked\":true,\"inputs_ms\":%.0f",
                 t[0], t[reps / 2], t[reps - 1], (unsigned long long)seed, t_in);
    }
    snprintf(chv, sizeof chv, ",\"variant\":\"chunks\",\"chunk_log\":%d", o->chunk_log);
    const char *var = streamed ? ",\"variant\":\"streamed\"" : chunked ? chv : o->precompute ? ",\"variant\":\"table\"" : "";
    const char *prof = filecoin ? ",\"profile\":\"filecoin\"" : "";
    /* The kernels' median, and the medians of its three stages (each its own
     * median, so they need not add up exactly). */
    snprintf(extra, sizeof extra,
             "\"group\":\"%s\",\"log_n\":%d,\"reps\":%d%s%s,\"sort_ms\":%.3f,\"acc_ms\":%.3f,"
             "\"reduce_ms\":%.3f,\"table_ran\":%d,\"what\":\"kernels\"%s%s",
             g2 ? "g2" : "g1", lg, reps, var, prof, stage[reps / 2], stage[reps + reps / 2],
             stage[2 * reps + reps / 2], table_ran, mm[0], abj);
    bench_report(o, "msm", curve, extra, "ms", ker[reps / 2]);
    snprintf(extra, sizeof extra, "\"group\":\"%s\",\"log_n\":%d,\"reps\":%d%s%s,\"what\":\"total\"%s",
             g2 ? "g2" : "g1", lg, reps, var, prof, mm[1]);
    bench_report(o, "msm", curve, extra, "ms", tot[reps / 2]);
    rc = 0;
done:
    if (pinned_b)
        g16_gpu_host_unpin(bases);
    if (pinned_k)
        g16_gpu_host_unpin(k);
    free(kbuf);
    g16_gpu_free(gpu, d_k);
    g16_gpu_bases_free(gpu, gb);
    g16_gpu_destroy(gpu_b);
    g16_gpu_destroy(gpu);
    bench_msm_inputs_free(&in);
    g16_ctx_destroy(ctx);
    free(tot);
    free(ker);
    free(stage);
    free(ker_b);
    free(stage_b);
    return rc;
}
