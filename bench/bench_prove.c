/* g16 bench prove --zkey K --wtns W [--reps R] [--threads T] [--backend cpu|cuda|auto] [--json]:
 * loads the key once, then proves R times (the first run is a warm-up that
 * builds the NTT twiddles) and reports the median and its stage times. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli/progress.h"
#include "gpu/gpu.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_prove(const bench_opts *o) {
    if (o->synthetic)
        return bench_prove_synthetic(o); /* bench_synthetic.c */
    if (!o->zkey || !o->wtns) {
        fprintf(stderr, "usage: g16 bench prove --zkey circuit.zkey --wtns witness.wtns [--reps R] [--json]\n"
                        "       g16 bench prove --synthetic --curve C --log-n K [--profile P] [--seed S] [--reps R]\n");
        return 2;
    }
    /* cuda (bench_prove_cuda.c); auto: cuda when a GPU is present. */
    int cuda = !strcmp(o->backend, "cuda") || (!strcmp(o->backend, "auto") && g16_gpu_count() > 0);
    if (!cuda && strcmp(o->backend, "cpu") != 0 && strcmp(o->backend, "auto") != 0) {
        fprintf(stderr, "g16 bench prove: unknown backend '%s' (cpu|cuda|auto)\n", o->backend);
        return 2;
    }
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    g16_key *key = NULL;
    g16_witness *w = NULL;
    int reps = o->reps > 0 ? o->reps : 3, rc = 2;
    double *total = calloc((size_t)reps, sizeof *total);
    g16_prove_stats *st = calloc((size_t)reps, sizeof *st);
    char msg[512];
    if (!ctx || !total || !st)
        goto done;
    if (g16_key_load(ctx, &key, o->zkey, 0) != G16_OK || g16_witness_load(ctx, &w, o->wtns) != G16_OK) {
        g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 bench prove: %s\n", msg);
        goto done;
    }
    if (cuda) {
        rc = bench_prove_cuda(o, ctx, key, w, NULL, 0);
        goto done;
    }
    g16_key_info info;
    (void)!g16_key_get_info(ctx, &info, key); /* a loaded key: cannot fail */
    /* The CPU figure: the three stages without the verify-before-return. */
    g16_prove_opts po;
    g16_prove_opts_init(&po);
    po.backend = G16_BACKEND_CPU;
    po.verify = 0;
    po.progress = cli_progress;
    for (int i = -1; i < reps; i++) {
        g16_result *res = NULL;
        g16_prove_stats s;
        if (g16_prove(ctx, &res, key, w, &po, &s) != G16_OK) {
            g16_ctx_last_error(ctx, msg, sizeof msg);
            fprintf(stderr, "g16 bench prove: %s\n", msg);
            goto done;
        }
        g16_result_free(res);
        if (i >= 0) {
            total[i] = s.total_ms;
            st[i] = s;
        }
    }
    /* Report the run whose total is the median. */
    double sorted[256];
    int n = reps < 256 ? reps : 256;
    memcpy(sorted, total, (size_t)n * sizeof(double));
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    double med = sorted[n / 2];
    int mi = 0;
    for (int i = 0; i < n; i++)
        if (total[i] == med)
            mi = i;
    char extra[512];
    snprintf(extra, sizeof extra,
             "\"log_n\":%d,\"wires\":%u,\"threads\":%d,\"reps\":%d,\"synth_ms\":%.2f,\"ntt_ms\":%.2f,"
             "\"msm_ms\":%.2f,\"finalize_ms\":%.2f,\"min_ms\":%.2f",
             __builtin_ctz(info.domain_size), info.n_vars, g16_ctx_threads(ctx), reps, st[mi].synth_ms,
             st[mi].ntt_ms, st[mi].msm_ms, st[mi].finalize_ms, sorted[0]);
    bench_opts ro = *o;
    ro.backend = "cpu"; /* also for auto without a GPU */
    bench_report(&ro, "prove", info.curve, extra, "ms", med);
    rc = 0;
done:
    free(total);
    free(st);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}
