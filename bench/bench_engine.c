/* g16 bench engine (--zkey|--key K --wtns W | --log-n N [--curve C])
 *                  [--jobs J] [--partitions P] [--backend cpu|cuda|auto]
 *                  [--workers W] [--workers-per-device W] [--synth-threads S]
 *                  [--threads T] [--no-verify] [--timeline FILE] [--json]:
 * J jobs of P partitions submitted at once to one engine with the key
 * resident (on the GPUs with --backend cuda); reports proofs per hour,
 * p50/p99 job latency (submit to finish), the GPU busy fraction (the union
 * of each device's heavy stages over the measured wall time), peak host RSS
 * and mean stage times (queue, synthesis, upload, GPU, device, finalize,
 * verify). From the engine's timeline (--timeline FILE keeps it, else a
 * temporary file): steady_proofs_per_hour (first proof done to last proof
 * done, without the pipeline's fill), and on the CUDA backend
 * upload_overlap_fraction (the share of upload time during which another
 * worker of the same device was inside its kernel section),
 * kernel_busy_fraction (each device's union of kernel sections over the
 * wall time, averaged; kernel_busy_steady_fraction: over the kernel
 * sections' own span, first begin to last end) and kernel_conflicts (pairs of one device's kernel
 * sections that overlap: 0 under the kernel mutex). Without --zkey, a synthetic circuit of 2^N rows (filecoin
 * profile, 4 distinct witnesses used in turn) and an insecure setup are
 * made in a temporary directory first (removed at the end). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "engine/engine.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#define SYN_W 4

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

/* Sum of every sample of a metric whose line starts with `prefix`
 * (e.g. "g16_device_busy_ms_total{" sums over devices). */
static double metric_sum(const char *text, const char *prefix) {
    double sum = 0;
    size_t l = strlen(prefix);
    for (const char *q = text; q && *q;) {
        if (!strncmp(q, prefix, l)) {
            const char *sp = strchr(q, ' ');
            const char *nl = strchr(q, '\n');
            if (sp && (!nl || sp < nl))
                sum += strtod(sp + 1, NULL);
        }
        q = strchr(q, '\n');
        if (q)
            q++;
    }
    return sum;
}

typedef struct snap {
    double busy_ms, up_sum, up_n, gpu_sum, gpu_n, kw_sum, kw_n, streamed, fallback;
} snap;

static int take_snap(g16_engine *eng, snap *s) {
    char *m = NULL;
    if (g16_engine_metrics(eng, &m) != G16_OK)
        return 0;
    s->busy_ms = metric_sum(m, "g16_device_busy_ms_total{");
    s->up_sum = metric_sum(m, "g16_stage_ms_sum{stage=\"upload\"}");
    s->up_n = metric_sum(m, "g16_stage_ms_count{stage=\"upload\"}");
    s->gpu_sum = metric_sum(m, "g16_stage_ms_sum{stage=\"gpu\"}");
    s->gpu_n = metric_sum(m, "g16_stage_ms_count{stage=\"gpu\"}");
    s->kw_sum = metric_sum(m, "g16_stage_ms_sum{stage=\"kernel_wait\"}");
    s->kw_n = metric_sum(m, "g16_stage_ms_count{stage=\"kernel_wait\"}");
    s->streamed = metric_sum(m, "g16_partitions_streamed_total ");
    s->fallback = metric_sum(m, "g16_partitions_cpu_fallback_total ");
    g16_free(m);
    return 1;
}

/* Workers and devices, from the status JSON. */
static void engine_shape(g16_engine *eng, char *backend, size_t blen, int *workers, int *devices, int *synth) {
    char *s = NULL;
    *workers = 1, *devices = 1, *synth = 1;
    snprintf(backend, blen, "?");
    if (g16_engine_status_json(eng, &s) != G16_OK)
        return;
    const char *b = strstr(s, "\"backend\":\"");
    if (b) {
        b += 11;
        size_t n = strcspn(b, "\"");
        snprintf(backend, blen, "%.*s", (int)(n < blen ? n : blen - 1), b);
    }
    const char *d = strstr(s, "\"devices\":["), *w = strstr(s, "\"workers\":[");
    int nd = 0, nw = 0;
    for (const char *q = d; q && (q = strstr(q, "\"busy_fraction\":")) != NULL; q++)
        nd++;
    for (const char *q = w; q && (q = strstr(q, "\"device\":")) != NULL; q++)
        nw++;
    *devices = nd > 0 ? nd : 1;
    *workers = nw > 0 ? nw : 1;
    const char *sy = strstr(s, "\"synth_threads\":");
    if (sy)
        *synth = atoi(sy + 16);
    g16_free(s);
}

/* First and last "finalize" end (a proof done) of the jobs >= min_job in
 * a timeline file; returns how many. */
static int done_span(const char *path, uint64_t min_job, double *first, double *last) {
    FILE *f = fopen(path, "r");
    int n = 0;
    *first = *last = 0;
    if (!f)
        return 0;
    char line[512], ev[16], ph;
    double t;
    unsigned long long job;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "{\"t\":%lf,\"ev\":\"%15[^\"]\",\"ph\":\"%c\",\"job\":%llu", &t, ev, &ph, &job) == 4 &&
            !strcmp(ev, "finalize") && ph == 'E' && job >= min_job) {
            if (!n++ || t < *first)
                *first = t;
            if (n == 1 || t > *last)
                *last = t;
        }
    fclose(f);
    return n;
}

static int nk_any(const engine_overlap *ov) { return ov->upload_ms > 0 || ov->kernel_busy_fraction > 0; }

/* A synthetic circuit in a fresh temporary directory. */
static int make_synthetic(g16_ctx *ctx, const bench_opts *o, char *dir, char *zkey, char (*wt)[512]) {
    char r1cs[512], stem[512];
    snprintf(dir, 256, "/tmp/g16-bench-engine-XXXXXX");
    if (!mkdtemp(dir))
        return 0;
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    snprintf(stem, sizeof stem, "%s/w.wtns", dir);
    snprintf(zkey, 512, "%s/c.zkey", dir);
    synth_opts so = {o->curve_set ? o->curve : G16_CURVE_BN254, o->log_n, SYNTH_FILECOIN, SYN_W, 1, r1cs, stem};
    g16_status st = {0};
    synth_stats ss;
    g16_r1cs cs;
    if (synth_generate(&so, &ss, &st) || g16_r1cs_read(&cs, r1cs, &st)) {
        fprintf(stderr, "g16 bench engine: synth: %s\n", st.msg);
        return 0;
    }
    g16_err err = groth16_setup_insecure(ctx, &cs, zkey, 1, &st);
    g16_r1cs_free(&cs);
    if (err) {
        fprintf(stderr, "g16 bench engine: setup: %s\n", st.msg);
        return 0;
    }
    for (int i = 0; i < SYN_W; i++)
        synth_wtns_path(wt[i], sizeof wt[i], stem, SYN_W, i);
    fprintf(stderr, "g16 bench engine: synthetic 2^%d circuit in %s\n", o->log_n, dir);
    return 1;
}

int bench_engine(const bench_opts *o) {
    if ((!o->zkey || !o->wtns) && o->log_n <= 0) {
        fprintf(stderr, "usage: g16 bench engine (--zkey|--key K --wtns W | --log-n N [--curve C]) [--jobs J] "
                        "[--partitions P] [--backend cpu|cuda|auto] [--workers W] [--workers-per-device W] "
                        "[--synth-threads S] [--threads T] [--no-verify] [--timeline FILE] [--json]\n");
        return 2;
    }
    g16_engine_backend backend;
    if (!strcmp(o->backend, "cpu"))
        backend = G16_ENGINE_BACKEND_CPU;
    else if (!strcmp(o->backend, "cuda"))
        backend = G16_ENGINE_BACKEND_CUDA;
    else if (!strcmp(o->backend, "auto"))
        backend = G16_ENGINE_BACKEND_AUTO;
    else {
        fprintf(stderr, "g16 bench engine: --backend must be cpu, cuda or auto\n");
        return 2;
    }
    int jobs = o->jobs > 0 ? o->jobs : 4, parts = o->partitions > 0 ? o->partitions : 2;
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = g16_ctx_create(&copts);
    /* The timeline: the caller's file, else a temporary one (removed). */
    char tlpath[512] = "";
    int tl_tmp = 0;
    if (o->timeline) {
        snprintf(tlpath, sizeof tlpath, "%s", o->timeline);
    } else {
        snprintf(tlpath, sizeof tlpath, "/tmp/g16-bench-engine-timeline-XXXXXX");
        int fd = mkstemp(tlpath);
        if (fd >= 0) {
            close(fd);
            tl_tmp = 1;
        } else {
            tlpath[0] = 0;
        }
    }
    g16_engine_opts eo = {.workers = o->workers > 0 ? o->workers : 2,
                          .synth_threads = o->synth_threads,
                          .no_verify = o->no_verify,
                          .backend = backend,
                          .workers_per_device = o->workers_per_device,
                          .timeline_path = tlpath[0] ? tlpath : NULL};
    g16_engine *eng = NULL;
    uint64_t key;
    uint64_t *ids = calloc((size_t)jobs, sizeof *ids);
    double *lat = calloc((size_t)jobs, sizeof *lat);
    g16_engine_witness *w = calloc((size_t)parts, sizeof *w);
    double sum[5] = {0};
    int rc = 2, n_wt = 1;
    char msg[512], dir[256] = "", zkey[512], wt[SYN_W][512];
    if (!ctx || !ids || !lat || !w)
        goto done;
    if (o->zkey && o->wtns) {
        snprintf(zkey, sizeof zkey, "%s", o->zkey);
        snprintf(wt[0], sizeof wt[0], "%s", o->wtns);
    } else if (!make_synthetic(ctx, o, dir, zkey, wt)) {
        goto done;
    } else {
        n_wt = SYN_W;
    }
    if (g16_engine_create(ctx, &eng, &eo) != G16_OK ||
        g16_engine_key_add(eng, &key, zkey, 0, G16_TIER_MMAP) != G16_OK)
        goto fail;
    char bname[16];
    int nworkers, ndev, nsynth;
    engine_shape(eng, bname, sizeof bname, &nworkers, &ndev, &nsynth);
    for (int i = 0; i < parts; i++)
        w[i].path = wt[i % n_wt];
    /* Warm-up: one partition per worker (each worker sizes its device
     * context and working area at its first partition of a key shape). */
    {
        int nwarm = nworkers < parts ? nworkers : parts;
        uint64_t warm;
        engine_hold_workers(eng, 1); /* released together: one each */
        if (g16_engine_submit(eng, &warm, key, w, (size_t)nwarm, G16_PRIORITY_NORMAL, 0) != G16_OK) {
            engine_hold_workers(eng, 0);
            goto fail;
        }
        for (double end = now_ms() + 600000; now_ms() < end;) {
            char *s = NULL;
            const char *r = g16_engine_status_json(eng, &s) == G16_OK ? strstr(s, "\"ready\":") : NULL;
            int ready = r ? atoi(r + 8) : -1;
            g16_free(s);
            g16_engine_job_info wi;
            if (ready < 0 || ready >= nwarm || g16_engine_job_get_info(eng, &wi, warm) != G16_OK ||
                (wi.state != G16_JOB_QUEUED && wi.state != G16_JOB_RUNNING))
                break;
            usleep(2000);
        }
        engine_hold_workers(eng, 0);
        if (g16_engine_wait(eng, warm, -1) != G16_OK)
            goto fail;
        g16_engine_job_info ji;
        if (g16_engine_job_get_info(eng, &ji, warm) != G16_OK || ji.state != G16_JOB_DONE) {
            fprintf(stderr, "g16 bench engine: warm-up: %s\n", ji.msg);
            goto done;
        }
        if (g16_engine_job_release(eng, warm) != G16_OK)
            goto fail;
    }
    snap s0, s1;
    if (!take_snap(eng, &s0))
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
    if (!take_snap(eng, &s1))
        goto fail;
    qsort(lat, (size_t)jobs, sizeof *lat, cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double np = (double)jobs * parts, pph = np / (wall / 3.6e6);
    double busy = (s1.busy_ms - s0.busy_ms) / (wall * ndev);
    double up = s1.up_n > s0.up_n ? (s1.up_sum - s0.up_sum) / (s1.up_n - s0.up_n) : 0;
    double gpu = s1.gpu_n > s0.gpu_n ? (s1.gpu_sum - s0.gpu_sum) / (s1.gpu_n - s0.gpu_n) : 0;
    double kw = s1.kw_n > s0.kw_n ? (s1.kw_sum - s0.kw_sum) / (s1.kw_n - s0.kw_n) : 0;
    /* The timeline, complete once the engine is gone (it closes the file). */
    g16_engine_destroy(eng, 0);
    eng = NULL;
    double steady = 0, d0, d1, kbusy_steady = 0;
    engine_overlap ov = {0};
    if (tlpath[0]) {
        int nd = done_span(tlpath, ids[0], &d0, &d1);
        steady = nd > 1 && d1 > d0 ? (nd - 1) / ((d1 - d0) / 3.6e6) : 0;
        engine_span *up = NULL, *kn = NULL;
        size_t nup = 0, nk = 0;
        g16_status tst = {0};
        if (engine_tl_read(tlpath, ids[0], &up, &nup, &kn, &nk, &tst) != G16_OK ||
            engine_overlap_compute(&ov, up, nup, kn, nk, ndev, wall, &tst) != G16_OK)
            fprintf(stderr, "g16 bench engine: timeline: %s\n", tst.msg);
        /* The same over the kernel sections' own span (first begin to last
         * end): the sustained-load figure, without the pipeline's fill. */
        double k0 = 0, k1 = 0;
        for (size_t i = 0; i < nk; i++) {
            k0 = !i || kn[i].b < k0 ? kn[i].b : k0;
            k1 = !i || kn[i].e > k1 ? kn[i].e : k1;
        }
        engine_overlap ovs;
        if (nk && k1 > k0 && engine_overlap_compute(&ovs, up, nup, kn, nk, ndev, k1 - k0, &tst) == G16_OK)
            kbusy_steady = ovs.kernel_busy_fraction;
        free(up);
        free(kn);
    }
    double upov = ov.upload_ms > 0 ? ov.upload_overlap_ms / ov.upload_ms : 0;
    if (o->json)
        printf("{\"bench\":\"engine\",\"backend\":\"%s\",\"devices\":%d,\"workers\":%d,\"workers_per_device\":%d,"
               "\"synth_threads\":%d,\"jobs\":%d,\"partitions\":%d,\"verify\":%s,\"wall_ms\":%.1f,\"proofs_per_hour\":%.0f,"
               "\"p50_job_ms\":%.2f,\"p99_job_ms\":%.2f,\"gpu_busy_fraction\":%.4f,\"mean_queue_ms\":%.2f,"
               "\"mean_synth_ms\":%.2f,\"mean_upload_ms\":%.3f,\"mean_gpu_ms\":%.2f,\"mean_device_ms\":%.2f,"
               "\"mean_finalize_ms\":%.2f,\"mean_verify_ms\":%.2f,\"streamed_partitions\":%.0f,"
               "\"cpu_fallback_partitions\":%.0f,\"peak_rss_mb\":%.1f,\"steady_proofs_per_hour\":%.0f,"
               "\"upload_overlap_fraction\":%.4f,\"kernel_busy_fraction\":%.4f,\"kernel_busy_steady_fraction\":%.4f,"
               "\"kernel_conflicts\":%zu,\"mean_kernel_wait_ms\":%.2f}\n",
               bname, ndev, nworkers, nworkers / ndev, nsynth, jobs, parts, o->no_verify ? "false" : "true", wall, pph,
               pct(lat, jobs, 0.5), pct(lat, jobs, 0.99), busy, sum[0] / np, sum[1] / np, up, gpu, sum[2] / np,
               sum[3] / np, sum[4] / np, s1.streamed - s0.streamed, s1.fallback - s0.fallback,
               ru.ru_maxrss / 1024.0, steady, upov, ov.kernel_busy_fraction, kbusy_steady, ov.kernel_conflicts, kw);
    else {
        printf("engine (%s, %d device%s, %d workers, %d synthesis threads): %d jobs x %d partitions: %.0f proofs/hour, job p50 %.1f ms "
               "p99 %.1f ms, busy %.1f%%, peak RSS %.1f MB\n",
               bname, ndev, ndev > 1 ? "s" : "", nworkers, nsynth, jobs, parts, pph, pct(lat, jobs, 0.5),
               pct(lat, jobs, 0.99), 100 * busy, ru.ru_maxrss / 1024.0);
        printf("  per partition (ms): queue %.2f | synth %.2f | upload %.3f | gpu %.2f | device %.2f | "
               "finalize %.2f | verify %.2f\n",
               sum[0] / np, sum[1] / np, up, gpu, sum[2] / np, sum[3] / np, sum[4] / np);
        printf("  steady state %.0f proofs/hour (first to last proof done)", steady);
        if (nk_any(&ov))
            printf("; kernels busy %.1f%% (%.1f%% of their own span), uploads overlapping another worker's kernels "
                   "%.1f%%, kernel conflicts %zu",
                   100 * ov.kernel_busy_fraction, 100 * kbusy_steady, 100 * upov, ov.kernel_conflicts);
        if (kw > 0)
            printf(", mean wait for the kernel mutex %.2f ms", kw);
        printf("\n");
        if (s1.streamed > s0.streamed || s1.fallback > s0.fallback)
            printf("  streamed bases: %.0f partitions, CPU fallback: %.0f partitions\n", s1.streamed - s0.streamed,
                   s1.fallback - s0.fallback);
    }
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
    if (tl_tmp)
        unlink(tlpath);
    if (dir[0]) { /* the synthetic circuit */
        char path[600];
        const char *names[] = {"c.r1cs", "c.zkey"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        for (int i = 0; i < n_wt; i++)
            unlink(wt[i]);
        rmdir(dir);
    }
    return rc;
}
