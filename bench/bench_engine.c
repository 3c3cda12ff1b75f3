/* g16 bench engine --zkey K --wtns W [--jobs J] [--partitions P]
 *                  [--workers W] [--threads T] [--no-verify] [--json]:
 * J jobs of P partitions (each the witness W) submitted at once to one
 * engine with the key resident; reports proofs per hour, p50/p99 job
 * latency (submit to finish), mean stage times and peak RSS. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *v, int n, double p) {
    int i = (int)(p * (n - 1) + 0.5);
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

int bench_engine(const bench_opts *o) {
    if (!o->zkey || !o->wtns) {
        fprintf(stderr, "usage: g16 bench engine --zkey K --wtns W [--jobs J] [--partitions P] [--workers W] "
                        "[--threads T] [--no-verify] [--json]\n");
        return 2;
    }
    if (strcmp(o->backend, "cpu") != 0) {
        fprintf(stderr, "g16 bench engine: backend '%s' is not available (cpu only)\n", o->backend);
        return 2;
    }
    int jobs = o->jobs > 0 ? o->jobs : 4, parts = o->partitions > 0 ? o->partitions : 2;
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = g16_ctx_create(&copts);
    g16_engine_opts eo = {.workers = o->workers > 0 ? o->workers : 2, .no_verify = o->no_verify};
    g16_engine *eng = NULL;
    uint64_t key;
    uint64_t *ids = calloc((size_t)jobs, sizeof *ids);
    double *lat = calloc((size_t)jobs, sizeof *lat);
    g16_engine_witness *w = calloc((size_t)parts, sizeof *w);
    double sum[5] = {0};
    int rc = 2;
    char msg[512];
    if (!ctx || !ids || !lat || !w)
        goto done;
    if (g16_engine_create(ctx, &eng, &eo) != G16_OK ||
        g16_engine_key_add(eng, &key, o->zkey, 0, G16_TIER_MMAP) != G16_OK)
        goto fail;
    for (int i = 0; i < parts; i++)
        w[i].path = o->wtns;
    /* Warm-up (NTT twiddles, first working areas). */
    uint64_t warm;
    if (g16_engine_submit(eng, &warm, key, w, 1, G16_PRIORITY_NORMAL, 0) != G16_OK ||
        g16_engine_wait(eng, warm, -1) != G16_OK || g16_engine_job_release(eng, warm) != G16_OK)
        goto fail;
    double t0 = now_ms();
    for (int j = 0; j < jobs; j++)
        if (g16_engine_submit(eng, &ids[j], key, w, (size_t)parts, G16_PRIORITY_NORMAL, 0) != G16_OK)
            goto fail;
    for (int j = 0; j < jobs; j++) {
        g16_engine_job_info ji;
        if (g16_engine_wait(eng, ids[j], -1) != G16_OK || g16_engine_job_get_info(eng, &ji, ids[j]) != G16_OK)
            goto fail;
        if (ji.state != G16_JOB_DONE) {
            fprintf(stderr, "g16 bench engine: job %d: %s\n", j, ji.msg);
            goto done;
        }
        lat[j] = ji.latency_ms;
        for (int p = 0; p < parts; p++) {
            g16_partition_stats ps;
            if (g16_engine_partition_result(eng, NULL, NULL, &ps, ids[j], (uint32_t)p) == G16_OK) {
                sum[0] += ps.queue_ms, sum[1] += ps.synth_ms, sum[2] += ps.device_ms;
                sum[3] += ps.finalize_ms, sum[4] += ps.verify_ms;
            }
        }
    }
    double wall = now_ms() - t0;
    qsort(lat, (size_t)jobs, sizeof *lat, cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double np = (double)jobs * parts, pph = np / (wall / 3.6e6);
    if (o->json)
        printf("{\"bench\":\"engine\",\"backend\":\"cpu\",\"jobs\":%d,\"partitions\":%d,\"workers\":%d,"
               "\"verify\":%s,\"wall_ms\":%.1f,\"proofs_per_hour\":%.0f,\"p50_job_ms\":%.2f,\"p99_job_ms\":%.2f,"
               "\"mean_queue_ms\":%.2f,\"mean_synth_ms\":%.2f,\"mean_device_ms\":%.2f,\"mean_finalize_ms\":%.2f,"
               "\"mean_verify_ms\":%.2f,\"peak_rss_mb\":%.1f}\n",
               jobs, parts, eo.workers, o->no_verify ? "false" : "true", wall, pph, pct(lat, jobs, 0.5),
               pct(lat, jobs, 0.99), sum[0] / np, sum[1] / np, sum[2] / np, sum[3] / np, sum[4] / np,
               ru.ru_maxrss / 1024.0);
    else
        printf("engine: %d jobs x %d partitions, %d workers: %.0f proofs/hour, job p50 %.1f ms p99 %.1f ms; "
               "per partition: queue %.1f synth %.1f device %.1f finalize %.1f verify %.1f ms; peak RSS %.1f MB\n",
               jobs, parts, eo.workers, pph, pct(lat, jobs, 0.5), pct(lat, jobs, 0.99), sum[0] / np, sum[1] / np,
               sum[2] / np, sum[3] / np, sum[4] / np, ru.ru_maxrss / 1024.0);
    rc = 0;
    goto done;
fail:
    g16_ctx_last_error(ctx, msg, sizeof msg);
    fprintf(stderr, "g16 bench engine: %s\n", msg);
done:
    g16_engine_destroy(eng, 0);
    g16_ctx_destroy(ctx);
    free(ids);
    free(lat);
    free(w);
    return rc;
}
