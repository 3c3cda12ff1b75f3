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
 * profile, --witnesses K distinct witnesses used in turn, 4 by default; at
 * 2^27 each one after the first costs about a circuit's time, ~2 minutes
 * on 16 cores) and an insecure setup are
 * made in memory (bench_synth.c; no files: the 2^27 key is 92 GB): the key
 * is handed to the engine (engine_key_add_loaded; on a GPU it is pinned on
 * the devices and its host bases released; at 2^27 or with
 * bench.lowmem = 1 ($G16_BENCH_LOWMEM) it is loaded with GROTH16_KEY_DEFER_PREP, so its rows
 * are built only after that), partition 0's witness comes with the circuit
 * (as .wtns bytes before the setup) and the others are generated after the key is registered
 * (synth_generate_witnesses), all as .wtns bytes the jobs borrow
 * (ENGINE_SUBMIT_BORROW). Reports circuit_ms, setup_ms, key_ms (the
 * engine's registration: upload, release, rows), witness_ms and the peak
 * RSS of each phase (bench_mem.c: rss_circuit_kb, rss_setup_kb,
 * rss_load_kb, rss_key_kb, rss_witness_kb, rss_prove_kb). --budget BYTES
 * sets the engine's host budget; by default (--log-n above 20) 85% of the
 * physical memory less the witness bytes, so that the number of working
 * areas, not the synthesis threads, bounds the peak (docs/engine.md). The
 * timeline without --timeline is an anonymous memfd (Linux), no file. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_synth.h"
#include "cli/progress.h"
#include "engine/engine.h"
#include "gpu/gpu.h"
#include "util/ctx.h"
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
 * (e.g. "g16_device_busy_seconds_total{" sums over devices). */
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

#define SNAP_DEV ENGINE_OVERLAP_MAXDEV
typedef struct snap {
    double busy_ms, up_sum, up_n, gpu_sum, gpu_n, kw_sum, kw_n, streamed, fallback;
    double rw_sum, rw_n, fw_sum, fw_n, kern_sum, kern_n, fin_busy, work_allocs, budget_wait;
    /* per device: proofs (device stages without error), device-stage union,
     * GPU stages, kernel sections, kernel-mutex waits (ms, summed) */
    double d_parts[SNAP_DEV], d_busy[SNAP_DEV], d_gpu[SNAP_DEV], d_kern[SNAP_DEV], d_kwait[SNAP_DEV];
    double d_kgpu[SNAP_DEV]; /* CUDA-event time of the kernel sections */
    double d_stage[SNAP_DEV][ENGINE_GPU_STAGES]; /* and its parts */
} snap;

static double metric_dev(const char *text, const char *name, int d) {
    char pre[96];
    snprintf(pre, sizeof pre, "%s{device=\"%d\"} ", name, d);
    return metric_sum(text, pre);
}

static int take_snap(g16_engine *eng, snap *s) {
    char *m = NULL;
    if (g16_engine_metrics(eng, &m) != G16_OK)
        return 0;
    s->busy_ms = metric_sum(m, "g16_device_busy_seconds_total{");
    s->up_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"upload\"}");
    s->up_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"upload\"}");
    s->gpu_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"gpu\"}");
    s->gpu_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"gpu\"}");
    s->kw_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"kernel_wait\"}");
    s->kw_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"kernel_wait\"}");
    s->streamed = metric_sum(m, "g16_partitions_streamed_total ");
    s->fallback = metric_sum(m, "g16_partitions_cpu_fallback_total ");
    s->rw_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"ready_wait\"}");
    s->rw_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"ready_wait\"}");
    s->fw_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"fin_wait\"}");
    s->fw_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"fin_wait\"}");
    s->kern_sum = metric_sum(m, "g16_stage_duration_seconds_sum{stage=\"kernels\"}");
    s->kern_n = metric_sum(m, "g16_stage_duration_seconds_count{stage=\"kernels\"}");
    s->fin_busy = metric_sum(m, "g16_finalize_busy_seconds_total ");
    s->work_allocs = metric_sum(m, "g16_work_area_allocs_total ");
    s->budget_wait = metric_sum(m, "g16_budget_wait_seconds_total ");
    for (int d = 0; d < SNAP_DEV; d++) {
        s->d_parts[d] = metric_dev(m, "g16_device_partitions_total", d);
        s->d_busy[d] = metric_dev(m, "g16_device_busy_seconds_total", d);
        s->d_gpu[d] = metric_dev(m, "g16_device_gpu_seconds_total", d);
        s->d_kern[d] = metric_dev(m, "g16_device_kernel_seconds_total", d);
        s->d_kwait[d] = metric_dev(m, "g16_device_kernel_wait_seconds_total", d);
        s->d_kgpu[d] = metric_dev(m, "g16_device_kernel_gpu_seconds_total", d);
        static const char *const names[ENGINE_GPU_STAGES] = ENGINE_GPU_STAGE_NAMES;
        for (int i = 0; i < ENGINE_GPU_STAGES; i++) {
            char pre[128];
            snprintf(pre, sizeof pre, "g16_device_stage_gpu_seconds_total{device=\"%d\",stage=\"%s\"} ", d, names[i]);
            s->d_stage[d][i] = metric_sum(m, pre);
        }
    }
    /* The metrics are in seconds, the snapshot in ms. */
    double *sec[] = {&s->busy_ms, &s->up_sum, &s->gpu_sum, &s->kw_sum, &s->rw_sum,
                     &s->fw_sum,  &s->kern_sum, &s->fin_busy, &s->budget_wait};
    for (size_t i = 0; i < sizeof sec / sizeof sec[0]; i++)
        *sec[i] *= 1e3;
    for (int d = 0; d < SNAP_DEV; d++) {
        s->d_busy[d] *= 1e3, s->d_gpu[d] *= 1e3, s->d_kern[d] *= 1e3, s->d_kwait[d] *= 1e3, s->d_kgpu[d] *= 1e3;
        for (int i = 0; i < ENGINE_GPU_STAGES; i++)
            s->d_stage[d][i] *= 1e3;
    }
    g16_free(m);
    return 1;
}

/* Workers, devices, synthesis and finalize threads, from the status JSON. */
static void engine_shape(g16_engine *eng, char *backend, size_t blen, int *workers, int *devices, int *synth,
                         int *fin) {
    char *s = NULL;
    *workers = 1, *devices = 1, *synth = 1, *fin = 1;
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
    const char *fi = strstr(s, "\"finalize_threads\":");
    if (fi)
        *fin = atoi(fi + 19);
    g16_free(s);
}

/* The smallest MSM capacity of the workers that ran a device stage (the
 * status's "msm_points"; MSMs above it run in chunks), 0 if none did, and
 * the first worker's "msm_note" (why it is smaller; JSON-escaped as in the
 * status, "" if none). */
static double worker_msm_points(g16_engine *eng, char *note, size_t nlen) {
    char *s = NULL;
    note[0] = 0;
    if (g16_engine_status_json(eng, &s) != G16_OK)
        return 0;
    double lo = 0;
    for (const char *q = s; (q = strstr(q, "\"msm_points\":")) != NULL; q++) {
        double v = strtod(q + 13, NULL);
        if (v > 0 && (lo == 0 || v < lo))
            lo = v;
    }
    const char *n = strstr(s, "\"msm_note\":\"");
    if (n) {
        n += 12;
        size_t l = 0;
        while (n[l] && n[l] != '"' && l + 2 < nlen)
            l += n[l] == '\\' && n[l + 1] ? 2 : 1;
        snprintf(note, nlen, "%.*s", (int)l, n);
    }
    g16_free(s);
    return lo;
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

/* Which stage limits the measured rate (docs/engine.md, "Scaling over
 * devices"), from: fin_busy, the finalize threads' busy share of the wall
 * time; fwait and kern, the mean fin-heap wait and kernel section; per
 * device, dbusy (its device stages' union over the wall time) and kbusy
 * (its kernel sections' union over the kernels' steady span; CUDA only).
 * In this order: "finalize" when the finalize threads are 85% busy or a
 * device's result waits longer for them than a kernel section lasts;
 * "synthesis" when a device has no partition in its workers 15% of the
 * time (the ready heap ran empty), "host_budget" instead when the
 * synthesis threads spent a quarter of the time waiting for budget room
 * (bwait: their waits over the wall time and threads); on a GPU "device_host" when a device
 * held partitions but ran no kernels 15% of the steady span (copies,
 * wipes, the mutex hand-over, CPU fallbacks); "kernel_host_gaps" when a
 * device's kernel sections last 15% longer than their CUDA-event time
 * (kev: the GPU waits inside them for the host: syncs, Horner sums,
 * launches, a worker thread not scheduled); else "gpu_kernels" (CPU
 * backend: "device_stage"). */
static const char *bottleneck(int cuda, int ndev, double fin_busy, double fwait, double kern, const double *dbusy,
                              const double *kbusy, const double *kmean, const double *kev, double bwait) {
    if (fin_busy >= 0.85 || (kern > 0 && fwait > kern))
        return "finalize";
    for (int d = 0; d < ndev && d < SNAP_DEV; d++)
        if (dbusy[d] < 0.85)
            return bwait >= 0.25 ? "host_budget" : "synthesis";
    for (int d = 0; cuda && d < ndev && d < SNAP_DEV; d++)
        if (kbusy[d] > 0 && kbusy[d] < 0.85)
            return "device_host";
    for (int d = 0; cuda && d < ndev && d < SNAP_DEV; d++)
        if (kev[d] > 0 && kmean[d] > 1.15 * kev[d])
            return "kernel_host_gaps";
    return cuda ? "gpu_kernels" : "device_stage";
}

/* Distinct synthetic witnesses (--witnesses, 1..SYN_W). */
static int syn_witnesses(const bench_opts *o) {
    return o->witnesses >= 1 && o->witnesses <= SYN_W ? o->witnesses : SYN_W;
}

/* The synthetic circuit in memory: the key (engine_key_add_loaded) and
 * syn_witnesses(o) witnesses as .wtns bytes (wt[i], wl[i]; free()), phases in bm. */
typedef struct syn_mem {
    double circuit_ms, setup_ms, load_ms, key_ms, witness_ms;
    size_t key_bytes, wtns_bytes;
    int setup_gpu, deferred;
    synth_stats ss;
} syn_mem;

static g16_err encode_free(void **data, size_t *len, g16_frvec *w, g16_status *st) {
    g16_err err = g16_wtns_encode(data, len, w, st);
    g16_frvec_free(w);
    return err;
}

/* Physical memory in bytes (0 when unknown). */
static uint64_t phys_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
    return pages > 0 && pg > 0 ? (uint64_t)pages * (uint64_t)pg : 0;
}

/* The default host budget of an in-memory run above 2^20 (docs/engine.md,
 * "In-memory keys"): the key as the engine will hold it (on a GPU its rows
 * and what is left of the image once the bases and coefficients are
 * released; on the CPU the image and the rows), one working area per
 * worker plus one in synthesis, two parsed witnesses and 1 GB, so that the
 * working areas in flight (17 GB each at 2^27 on a GPU) are bounded
 * whatever the synthesis threads; capped at 85% of the physical memory
 * less the witness bytes held here and the workers' pinned MSM scalars. */
static uint64_t default_budget(g16_ctx *ctx, const bench_opts *o, int cuda, const g16_key *key, size_t image,
                               size_t wtns_bytes) {
    groth16_key_mem m;
    groth16_key_memory(key, &m); /* the rows and copies, not yet the image */
    g16_key_info ki;
    if (g16_key_get_info(ctx, &ki, key) != G16_OK)
        return 0;
    const g16_zkey *zk = groth16_key_zkey(key);
    uint64_t g1 = (uint64_t)zk->n8q * 2, n = ki.domain_size, nv = ki.n_vars;
    uint64_t bases = g1 * (3 * nv + n) + 2 * g1 * nv, coefs = (uint64_t)ki.n_coefficients * G16_ZKEY_COEF_SIZE;
    uint64_t rest = image > bases + coefs ? image - bases - coefs : 0;
    uint64_t keyb = m.heap_bytes + (cuda ? rest + (rest >> 4) + ((uint64_t)64 << 20) : image);
    int gpus = cuda ? g16_gpu_count() : 0;
    int workers = cuda ? (o->workers_per_device > 0 ? o->workers_per_device : 2) * (gpus > 0 ? gpus : 1)
                       : (o->workers > 0 ? o->workers : 2);
    uint64_t area = groth16_work_bytes_ex(ctx, key, cuda ? GROTH16_WORK_NO_CPU_HEAVY : 0);
    uint64_t want = keyb + (uint64_t)(workers + 1) * area + 2 * (nv * 32 + 64) + ((uint64_t)1 << 30);
    uint64_t phys = phys_bytes(), pinned = cuda ? (uint64_t)workers * 32 * (n > nv ? n : nv) : 0;
    uint64_t cap = (uint64_t)(0.85 * (double)phys);
    cap = cap > wtns_bytes + pinned ? cap - wtns_bytes - pinned : 0;
    if (phys && want > cap) {
        fprintf(stderr, "g16 bench engine: the default budget (%.1f GB: key, %d + 1 working areas of %.1f GB) is "
                        "capped at %.1f GB (85%% of %.1f GB less %.1f GB of witnesses and pinned scalars)\n",
                (double)want / 1e9, workers, (double)area / 1e9, (double)cap / 1e9, (double)phys / 1e9,
                (double)(wtns_bytes + pinned) / 1e9);
        want = cap;
    }
    return want;
}

/* Steps 1-2 (before the engine exists): circuit, setup, key load, witness 0. */
static int syn_build(g16_ctx *ctx, const bench_opts *o, int cuda, bench_mem *bm, bench_synth_key *sk, syn_mem *sm,
                     void **wt, size_t *wl) {
    synth_opts so = {.curve = o->curve_set ? o->curve : G16_CURVE_BN254, .log_n = o->log_n,
                     .profile = SYNTH_FILECOIN, .partitions = 1, .seed = 1, .progress = cli_progress};
    g16_status st = {0};
    /* As bench prove --synthetic: with the rows deferred they are built after
     * the bases' host pages are gone (2^27 fits 125 GiB), but then they are
     * not on the device (no GPU synthesis). */
    sm->deferred = cuda && (o->log_n >= 27 || g16_config_bool(&o->cfg, G16_OPT_BENCH_LOWMEM));
    g16_err kerr = bench_synth_key_make(ctx, &so, sm->deferred ? GROTH16_KEY_DEFER_PREP : 0, BENCH_SYNTH_WTNS0, bm,
                                        sk, &st);
    cli_progress_clear();
    if (kerr != G16_OK) {
        fprintf(stderr, "g16 bench engine: synthetic 2^%d circuit, setup or key: %s (%s)\n", o->log_n, st.msg,
                g16_err_str(st.code));
        return 0;
    }
    wt[0] = sk->wtns0; /* ours now */
    wl[0] = sk->wtns0_len;
    sk->wtns0 = NULL;
    sk->wtns0_len = 0;
    sm->circuit_ms = sk->circuit_ms;
    sm->setup_ms = sk->setup_ms;
    sm->load_ms = sk->load_ms;
    sm->key_bytes = sk->len;
    sm->setup_gpu = sk->si.used_gpu;
    sm->ss = sk->ss;
    sm->wtns_bytes = (size_t)syn_witnesses(o) * wl[0];
    bench_mem_phase(bm, "load");
    fprintf(stderr, "g16 bench engine: synthetic 2^%d circuit in memory: %u constraints, %u wires; circuit %.0f ms, "
                    "setup %.0f ms (%s), key %.2f GB%s\n",
            o->log_n, sk->ss.n_constraints, sk->ss.n_wires, sm->circuit_ms, sm->setup_ms,
            sk->si.used_gpu ? "cuda" : "cpu", (double)sk->len / 1e9, sm->deferred ? " (rows deferred)" : "");
    return 1;
}

/* Steps 3-4 (the engine exists): the key handed over, witnesses 1.. made. */
static int syn_register(g16_ctx *ctx, g16_engine *eng, const bench_opts *o, bench_mem *bm, bench_synth_key *sk,
                        syn_mem *sm, uint64_t *key, void **wt, size_t *wl) {
    char name[64], msg[512];
    snprintf(name, sizeof name, "synthetic-2^%d", o->log_n);
    groth16_key_adopt_mem(sk->key, sk->mem, sk->len);
    g16_key *k = sk->key;
    sk->key = NULL; /* the engine's from here on, with its image */
    sk->mem = NULL;
    sk->len = 0;
    double t0 = g16_now_ms();
    if (engine_key_add_loaded(eng, key, k, name) != G16_OK) {
        g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 bench engine: registering the in-memory key: %s\n", msg);
        return 0;
    }
    sm->key_ms = g16_now_ms() - t0;
    bench_mem_phase(bm, "key");
    /* Where the key went: on a GPU its tier must be "device" with its host
     * bases released; "host" with "streamed":true means the upload failed. */
    char *js = NULL;
    if (g16_engine_status_json(eng, &js) == G16_OK) {
        const char *k0 = strstr(js, "\"keys\":[");
        const char *t = k0 ? strstr(k0, "\"tier\":\"") : NULL, *r = k0 ? strstr(k0, "\"host_released_bytes\":") : NULL;
        const char *d = k0 ? strstr(k0, "\"device_bytes\":") : NULL, *sp = k0 ? strstr(k0, "\"streamed\":") : NULL;
        const char *gt = k0 ? strstr(k0, "\"gpu_tables\":") : NULL;
        fprintf(stderr, "g16 bench engine: in-memory key registered in %.0f ms: tier %.*s, %.2f GB on each device "
                        "(%d base sets with window tables), %.2f GB of host memory released%s\n",
                sm->key_ms, t ? (int)strcspn(t + 8, "\"") : 1, t ? t + 8 : "?", d ? strtod(d + 15, NULL) / 1e9 : -1,
                gt ? atoi(gt + 13) : -1, r ? strtod(r + 22, NULL) / 1e9 : -1,
                sp && !strncmp(sp + 11, "true", 4) ? " (NOT on the devices: its bases are streamed from host memory)"
                                                   : "");
        g16_free(js);
    }
    synth_opts so = {.curve = o->curve_set ? o->curve : G16_CURVE_BN254, .log_n = o->log_n,
                     .profile = SYNTH_FILECOIN, .partitions = 1, .seed = 1};
    g16_frvec wv[SYN_W - 1];
    g16_status st = {0};
    int nw = syn_witnesses(o);
    t0 = g16_now_ms();
    if (nw > 1 && synth_generate_witnesses(&so, 1, nw - 1, wv, ctx->pool, &st) != G16_OK) {
        fprintf(stderr, "g16 bench engine: witnesses: %s\n", st.msg);
        return 0;
    }
    int ok = 1;
    for (int i = 1; i < nw; i++) {
        if (ok && encode_free(&wt[i], &wl[i], &wv[i - 1], &st) != G16_OK) {
            fprintf(stderr, "g16 bench engine: witness %d: %s\n", i, st.msg);
            ok = 0;
        }
        g16_frvec_free(&wv[i - 1]); /* (already freed when encoded) */
    }
    sm->witness_ms = g16_now_ms() - t0;
    bench_mem_phase(bm, "witness");
    return ok;
}

/* The timeline without --timeline: an anonymous memory file (no file in
 * /tmp), read back through /proc/self/fd; else a temporary file. */
static int timeline_tmp(char *path, size_t len, int *fd_out) {
    *fd_out = -1;
#ifdef MFD_CLOEXEC
    int fd = memfd_create("g16-bench-engine-timeline", MFD_CLOEXEC);
    if (fd >= 0) {
        snprintf(path, len, "/proc/self/fd/%d", fd);
        *fd_out = fd;
        return 1;
    }
#endif
    snprintf(path, len, "/tmp/g16-bench-engine-timeline-XXXXXX");
    int tfd = mkstemp(path);
    if (tfd < 0) {
        path[0] = 0;
        return 0;
    }
    close(tfd);
    return 2;
}

/* --backend cpu|cuda|auto; 0 for anything else. */
static int parse_backend(const char *name, g16_engine_backend *backend) {
    if (!strcmp(name, "cpu"))
        *backend = G16_ENGINE_BACKEND_CPU;
    else if (!strcmp(name, "cuda"))
        *backend = G16_ENGINE_BACKEND_CUDA;
    else if (!strcmp(name, "auto"))
        *backend = G16_ENGINE_BACKEND_AUTO;
    else
        return 0;
    return 1;
}

/* The engine (*eng) with the key registered (*key): the synthetic circuit
 * in memory (in_mem: syn_build, syn_register) or --zkey mapped. 1 on
 * success, 0 after printing why, -1 for an error left in ctx. */
static int engine_with_key(g16_ctx *ctx, const bench_opts *o, int in_mem, int cuda, bench_mem *bm,
                           bench_synth_key *sk, syn_mem *sm, void **wdata, size_t *wlen, g16_engine_opts *eo,
                           g16_engine **eng, uint64_t *key) {
    if (in_mem) {
        if (o->log_n < 3 || o->log_n > 28) {
            fprintf(stderr, "g16 bench engine: --log-n must be in [3, 28]\n");
            return 0;
        }
        if (!syn_build(ctx, o, cuda, bm, sk, sm, wdata, wlen))
            return 0;
        if (o->budget)
            eo->budget_bytes = o->budget;
        else if (o->log_n > 20)
            eo->budget_bytes = default_budget(ctx, o, cuda, sk->key, sk->len, sm->wtns_bytes);
    } else if (o->budget) {
        eo->budget_bytes = o->budget;
    }
    if (g16_engine_create(ctx, eng, eo) != G16_OK)
        return -1;
    if (in_mem) {
        if (!syn_register(ctx, *eng, o, bm, sk, sm, key, wdata, wlen))
            return 0;
    } else {
        double tk = g16_now_ms();
        if (g16_engine_key_add(*eng, key, o->zkey, 0, G16_TIER_MMAP) != G16_OK)
            return -1;
        sm->key_ms = g16_now_ms() - tk;
        bench_mem_phase(bm, "key");
    }
    return 1;
}

/* Warm-up: one partition per worker (each worker sizes its device
 * context and working area at its first partition of a key shape). 1 on
 * success, 0 after printing why, -1 for an error left in the engine's ctx. */
static int warm_up(g16_engine *eng, uint64_t key, const g16_engine_witness *w, int nworkers, int parts,
                   unsigned sflags) {
    int nwarm = nworkers < parts ? nworkers : parts;
    uint64_t warm;
    engine_hold_workers(eng, 1); /* released together: one each */
    if (engine_submit_ex(eng, &warm, key, w, (size_t)nwarm, G16_PRIORITY_NORMAL, 0, sflags) != G16_OK) {
        engine_hold_workers(eng, 0);
        return -1;
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
        return -1;
    g16_engine_job_info ji;
    if (g16_engine_job_get_info(eng, &ji, warm) != G16_OK || ji.state != G16_JOB_DONE) {
        fprintf(stderr, "g16 bench engine: warm-up: %s\n", ji.msg);
        return 0;
    }
    if (g16_engine_job_release(eng, warm) != G16_OK)
        return -1;
    return 1;
}

/* Warm-up 2: the working areas of a full pipeline (lookahead + workers
 * partitions in flight), made now as far as the budget allows, so that
 * none is made during the measurement: with the CUDA backend each is a
 * pinned cudaHostAlloc, a device-global call that stalls the workers of
 * every device (docs/engine.md, "Scaling over devices"). 0 for an error left in
 * the engine's ctx. */
static int reserve_pipeline(g16_engine *eng, uint64_t key, int nworkers) {
    char *s = NULL;
    const char *la = g16_engine_status_json(eng, &s) == G16_OK ? strstr(s, "\"lookahead\":") : NULL;
    int nfill = (la ? atoi(la + 12) : 0) + nworkers;
    g16_free(s);
    uint32_t made = 0;
    if (engine_key_reserve_work(eng, key, (uint32_t)nfill, &made) != G16_OK)
        return 0;
    g16_engine_budget b0 = {0};
    g16_engine_key_info kinfo = {0};
    (void)!g16_engine_get_budget(eng, &b0);
    (void)!g16_engine_key_get_info(eng, &kinfo, key);
    fprintf(stderr,
            "g16 bench engine: %u working areas made before measuring (pipeline: %d); budget %.2f of %.2f GB "
            "used (key %.2f GB, one working area %.2f GB)\n",
            made, nfill, b0.used / 1e9, b0.limit / 1e9, kinfo.bytes / 1e9, kinfo.work_bytes / 1e9);
    return 1;
}

/* The measurement: jobs jobs of parts partitions submitted at once, then
 * waited for in turn: ids[j], lat[j] (latency, ms) and sum[] (queue, synth,
 * device, finalize, verify ms, summed over the partitions). 1 on success,
 * 0 after printing why, -1 for an error left in the engine's ctx. */
static int run_jobs(g16_engine *eng, uint64_t key, const g16_engine_witness *w, int jobs, int parts, unsigned sflags,
                    uint64_t *ids, double *lat, double *sum) {
    for (int j = 0; j < jobs; j++)
        if (engine_submit_ex(eng, &ids[j], key, w, (size_t)parts, G16_PRIORITY_NORMAL, 0, sflags) != G16_OK)
            return -1;
    for (int j = 0; j < jobs; j++) {
        g16_engine_job_info ji;
        g16_err werr;
        /* On a terminal: the proofs finished so far, polled (cli/progress.h). */
        while (cli_progress_on() && (werr = g16_engine_wait(eng, ids[j], 100)) == G16_ERR_TIMEOUT)
            if (g16_engine_job_get_info(eng, &ji, ids[j]) == G16_OK)
                cli_progress(NULL, "proofs", (uint64_t)j * (uint64_t)parts + ji.proved + ji.failed,
                             (uint64_t)jobs * (uint64_t)parts);
        if (g16_engine_wait(eng, ids[j], -1) != G16_OK || g16_engine_job_get_info(eng, &ji, ids[j]) != G16_OK)
            return -1;
        cli_progress(NULL, "proofs", (uint64_t)(j + 1) * (uint64_t)parts, (uint64_t)jobs * (uint64_t)parts);
        if (ji.state != G16_JOB_DONE) {
            cli_progress_clear();
            fprintf(stderr, "g16 bench engine: job %d: %s\n", j, ji.msg);
            return 0;
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
    return 1;
}

/* From the timeline at tlpath (jobs from min_job on; none when tlpath is
 * ""): *steady (proofs per hour, first to last proof done), *ov (uploads
 * and kernel sections over the wall time) and the kernels' busy fraction
 * over their own span (*kbusy_steady, kbusy_dev[SNAP_DEV] per device). */
static void timeline_stats(const char *tlpath, uint64_t min_job, int ndev, double wall, double *steady,
                           engine_overlap *ov, double *kbusy_steady, double *kbusy_dev) {
    if (!tlpath[0])
        return;
    double d0, d1;
    int nd = done_span(tlpath, min_job, &d0, &d1);
    *steady = nd > 1 && d1 > d0 ? (nd - 1) / ((d1 - d0) / 3.6e6) : 0;
    engine_span *up = NULL, *kn = NULL;
    size_t nup = 0, nk = 0;
    g16_status tst = {0};
    if (engine_tl_read(tlpath, min_job, &up, &nup, &kn, &nk, &tst) != G16_OK ||
        engine_overlap_compute(ov, up, nup, kn, nk, ndev, wall, &tst) != G16_OK)
        fprintf(stderr, "g16 bench engine: timeline: %s\n", tst.msg);
    /* The same over the kernel sections' own span (first begin to last
     * end): the sustained-load figure, without the pipeline's fill. */
    double k0 = 0, k1 = 0;
    for (size_t i = 0; i < nk; i++) {
        k0 = !i || kn[i].b < k0 ? kn[i].b : k0;
        k1 = !i || kn[i].e > k1 ? kn[i].e : k1;
    }
    engine_overlap ovs;
    if (nk && k1 > k0 && engine_overlap_compute(&ovs, up, nup, kn, nk, ndev, k1 - k0, &tst) == G16_OK) {
        *kbusy_steady = ovs.kernel_busy_fraction;
        memcpy(kbusy_dev, ovs.dev_kernel_busy, SNAP_DEV * sizeof *kbusy_dev);
    }
    free(up);
    free(kn);
}

/* Each device's figures between the snapshots s0 and s1 as a JSON list's
 * items in per_dev[cap]; dbusy, kmean and kev (SNAP_DEV each) get its
 * device-stage busy fraction and mean kernel section (host, CUDA events). */
static void per_device_json(char *per_dev, size_t cap, const snap *s0, const snap *s1, int ndev, double wall,
                            const double *kbusy_dev, double *dbusy, double *kmean, double *kev) {
    size_t pl = 0;
    per_dev[0] = 0;
    for (int d = 0; d < ndev && d < SNAP_DEV; d++) {
        double np_d = s1->d_parts[d] - s0->d_parts[d];
        dbusy[d] = wall > 0 ? (s1->d_busy[d] - s0->d_busy[d]) / wall : 0;
        kmean[d] = np_d > 0 ? (s1->d_kern[d] - s0->d_kern[d]) / np_d : 0;
        kev[d] = np_d > 0 ? (s1->d_kgpu[d] - s0->d_kgpu[d]) / np_d : 0;
        pl += (size_t)snprintf(per_dev + pl, cap - pl,
                               "%s{\"device\":%d,\"proofs\":%.0f,\"device_busy\":%.4f,\"kernel_busy_steady\":%.4f,"
                               "\"mean_gpu_ms\":%.2f,\"mean_kernel_ms\":%.2f,\"mean_kernel_event_ms\":%.2f,"
                               "\"mean_kernel_wait_ms\":%.2f,\"mean_stage_event_ms\":{",
                               d ? "," : "", d, np_d, dbusy[d], kbusy_dev[d],
                               np_d > 0 ? (s1->d_gpu[d] - s0->d_gpu[d]) / np_d : 0,
                               np_d > 0 ? (s1->d_kern[d] - s0->d_kern[d]) / np_d : 0,
                               np_d > 0 ? (s1->d_kgpu[d] - s0->d_kgpu[d]) / np_d : 0,
                               np_d > 0 ? (s1->d_kwait[d] - s0->d_kwait[d]) / np_d : 0);
        static const char *const names[ENGINE_GPU_STAGES] = ENGINE_GPU_STAGE_NAMES;
        for (int i = 0; i < ENGINE_GPU_STAGES && pl < cap; i++)
            pl += (size_t)snprintf(per_dev + pl, cap - pl, "%s\"%s\":%.2f", i ? "," : "", names[i],
                                   np_d > 0 ? (s1->d_stage[d][i] - s0->d_stage[d][i]) / np_d : 0);
        if (pl < cap)
            pl += (size_t)snprintf(per_dev + pl, cap - pl, "}}");
        if (pl >= cap)
            pl = cap - 1;
    }
}

/* The text report's per-device lines and streamed/fallback counts
 * between the snapshots s0 and s1. */
static void print_devices_text(const snap *s0, const snap *s1, int ndev, const double *dbusy,
                               const double *kbusy_dev) {
    for (int d = 0; d < ndev && d < SNAP_DEV; d++) {
        double np_d = s1->d_parts[d] - s0->d_parts[d];
        printf("  device %d: %.0f proofs, device stages %.1f%% of the wall time, kernels %.1f%% of their span, "
               "mean GPU stage %.2f ms, kernel section %.2f ms (CUDA events %.2f), kernel-mutex wait %.2f ms\n",
               d, np_d, 100 * dbusy[d], 100 * kbusy_dev[d], np_d > 0 ? (s1->d_gpu[d] - s0->d_gpu[d]) / np_d : 0,
               np_d > 0 ? (s1->d_kern[d] - s0->d_kern[d]) / np_d : 0,
               np_d > 0 ? (s1->d_kgpu[d] - s0->d_kgpu[d]) / np_d : 0,
               np_d > 0 ? (s1->d_kwait[d] - s0->d_kwait[d]) / np_d : 0);
    }
    if (s1->streamed > s0->streamed || s1->fallback > s0->fallback)
        printf("  streamed bases: %.0f partitions, CPU fallback: %.0f partitions\n", s1->streamed - s0->streamed,
               s1->fallback - s0->fallback);
}

/* Each partition's witness: the in-memory ones in turn (borrowed), else
 * the --wtns file. */
static void fill_witnesses(g16_engine_witness *w, int parts, const bench_opts *o, int in_mem, void **wdata,
                           const size_t *wlen) {
    for (int i = 0; i < parts; i++) {
        if (in_mem) {
            w[i].data = wdata[i % syn_witnesses(o)];
            w[i].len = wlen[i % syn_witnesses(o)];
        } else {
            w[i].path = o->wtns;
        }
    }
}

/* Warm-up, then the measured run between the snapshots *s0 and *s1 over
 * *wall ms (run_jobs). 1 on success, 0 after printing why, -1 for an error
 * left in the engine's ctx. */
static int measure(g16_engine *eng, uint64_t key, const g16_engine_witness *w, int nworkers, int jobs, int parts,
                   unsigned sflags, uint64_t *ids, double *lat, double *sum, snap *s0, snap *s1, double *wall) {
    int warmed = warm_up(eng, key, w, nworkers, parts, sflags);
    if (warmed < 0)
        return -1;
    if (!warmed)
        return 0;
    if (!reserve_pipeline(eng, key, nworkers))
        return -1;
    if (!take_snap(eng, s0))
        return -1;
    double t0 = now_ms();
    int ran = run_jobs(eng, key, w, jobs, parts, sflags, ids, lat, sum);
    cli_progress_clear(); /* the figures follow */
    if (ran < 0)
        return -1;
    if (!ran)
        return 0;
    *wall = now_ms() - t0;
    if (!take_snap(eng, s1))
        return -1;
    return 1;
}

/* The usage line and --backend (*backend); 0 after printing why. */
static int check_args(const bench_opts *o, g16_engine_backend *backend) {
    if ((!o->zkey || !o->wtns) && o->log_n <= 0) {
        fprintf(stderr, "usage: g16 bench engine (--zkey|--key K --wtns W | --log-n N [--curve C]) [--jobs J] "
                        "[--partitions P] [--backend cpu|cuda|auto] [--workers W] [--workers-per-device W] "
                        "[--synth-threads S] [--threads T] [--no-verify] [--timeline FILE] [--json]\n");
        return 0;
    }
    if (!parse_backend(o->backend, backend)) {
        fprintf(stderr, "g16 bench engine: --backend must be cpu, cuda or auto\n");
        return 0;
    }
    return 1;
}

/* The timeline's path in path[len]: --timeline FILE, else timeline_tmp
 * (*fd_out: its memfd or -1). 1 when it is a temporary file to remove. */
static int timeline_open(const bench_opts *o, char *path, size_t len, int *fd_out) {
    if (o->timeline) {
        snprintf(path, len, "%s", o->timeline);
        return 0;
    }
    return timeline_tmp(path, len, fd_out) == 2;
}

/* Undoes timeline_open: the temporary file removed (tmp), the memfd closed. */
static void timeline_close(const char *path, int tmp, int fd) {
    if (tmp)
        unlink(path);
    if (fd >= 0)
        close(fd);
}

int bench_engine(const bench_opts *o) {
    g16_engine_backend backend;
    if (!check_args(o, &backend))
        return 2;
    int jobs = o->jobs > 0 ? o->jobs : 4, parts = o->partitions > 0 ? o->partitions : 2;
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    /* The timeline: the caller's file, else a memfd (or a temporary file,
     * removed). */
    char tlpath[512] = "";
    int tl_fd = -1, tl_tmp = timeline_open(o, tlpath, sizeof tlpath, &tl_fd);
    int in_mem = !(o->zkey && o->wtns);
    int cuda = backend == G16_ENGINE_BACKEND_CUDA || (backend == G16_ENGINE_BACKEND_AUTO && g16_gpu_count() > 0);
    bench_mem bm = {.units = in_mem ? (double)(1ull << o->log_n) : 0};
    bench_mem_begin(&bm);
    bench_synth_key sk = {0};
    syn_mem sm = {0};
    void *wdata[SYN_W] = {0};
    size_t wlen[SYN_W] = {0};
    g16_engine_opts eo = {.workers = o->workers > 0 ? o->workers : 2,
                          .synth_threads = o->synth_threads,
                          .no_verify = o->no_verify,
                          .backend = backend,
                          .workers_per_device = o->workers_per_device,
                          .gpu_tables = o->precompute,
                          .timeline_path = tlpath[0] ? tlpath : NULL};
    g16_engine *eng = NULL;
    uint64_t key;
    uint64_t *ids = calloc((size_t)jobs, sizeof *ids);
    double *lat = calloc((size_t)jobs, sizeof *lat);
    g16_engine_witness *w = calloc((size_t)parts, sizeof *w);
    double sum[5] = {0};
    int rc = 2;
    char msg[512];
    unsigned sflags = in_mem ? ENGINE_SUBMIT_BORROW : 0;
    if (!ctx || !ids || !lat || !w)
        goto done;
    int got = engine_with_key(ctx, o, in_mem, cuda, &bm, &sk, &sm, wdata, wlen, &eo, &eng, &key);
    if (got < 0)
        goto fail;
    if (!got)
        goto done;
    char bname[16];
    int nworkers, ndev, nsynth, nfin;
    engine_shape(eng, bname, sizeof bname, &nworkers, &ndev, &nsynth, &nfin);
    fill_witnesses(w, parts, o, in_mem, wdata, wlen);
    snap s0, s1;
    double wall;
    int ran = measure(eng, key, w, nworkers, jobs, parts, sflags, ids, lat, sum, &s0, &s1, &wall);
    if (ran < 0)
        goto fail;
    if (!ran)
        goto done;
    char msm_note[256];
    double msm_points = worker_msm_points(eng, msm_note, sizeof msm_note);
    g16_engine_budget bud = {0};
    (void)!g16_engine_get_budget(eng, &bud);
    bench_mem_phase(&bm, "prove");
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
    double steady = 0, kbusy_steady = 0, kbusy_dev[SNAP_DEV] = {0};
    engine_overlap ov = {0};
    timeline_stats(tlpath, ids[0], ndev, wall, &steady, &ov, &kbusy_steady, kbusy_dev);
    double upov = ov.upload_ms > 0 ? ov.upload_overlap_ms / ov.upload_ms : 0;
    /* Per-stage queue waits, the finalize threads' load and each device's
     * share: what names the bottleneck (bottleneck() above). */
#define DMEAN(sum, n) ((s1.n > s0.n) ? (s1.sum - s0.sum) / (s1.n - s0.n) : 0)
    double rwait = DMEAN(rw_sum, rw_n), fwait = DMEAN(fw_sum, fw_n), kern = DMEAN(kern_sum, kern_n);
#undef DMEAN
    double fin_busy = wall > 0 && nfin > 0 ? (s1.fin_busy - s0.fin_busy) / (wall * nfin) : 0;
    double dbusy[SNAP_DEV] = {0}, kmean[SNAP_DEV] = {0}, kev[SNAP_DEV] = {0};
    char per_dev[384 * SNAP_DEV + 16];
    per_device_json(per_dev, sizeof per_dev, &s0, &s1, ndev, wall, kbusy_dev, dbusy, kmean, kev);
    int is_cuda = !strcmp(bname, "cuda");
    double bwait = wall > 0 && nsynth > 0 ? (s1.budget_wait - s0.budget_wait) / (wall * nsynth) : 0;
    const char *bneck = bottleneck(is_cuda, ndev, fin_busy, fwait, kern, dbusy, kbusy_dev, kmean, kev, bwait);
    if (o->json)
        printf("{\"bench\":\"engine\",\"backend\":\"%s\",\"devices\":%d,\"workers\":%d,\"workers_per_device\":%d,"
               "\"synth_threads\":%d,\"jobs\":%d,\"partitions\":%d,\"verify\":%s,\"wall_ms\":%.1f,\"proofs_per_hour\":%.0f,"
               "\"p50_job_ms\":%.2f,\"p99_job_ms\":%.2f,\"gpu_busy_fraction\":%.4f,\"mean_queue_ms\":%.2f,"
               "\"mean_synth_ms\":%.2f,\"mean_upload_ms\":%.3f,\"mean_gpu_ms\":%.2f,\"mean_device_ms\":%.2f,"
               "\"mean_finalize_ms\":%.2f,\"mean_verify_ms\":%.2f,\"streamed_partitions\":%.0f,"
               "\"cpu_fallback_partitions\":%.0f,\"peak_rss_mb\":%.1f,\"steady_proofs_per_hour\":%.0f,"
               "\"upload_overlap_fraction\":%.4f,\"kernel_busy_fraction\":%.4f,\"kernel_busy_steady_fraction\":%.4f,"
               "\"kernel_conflicts\":%zu,\"mean_kernel_wait_ms\":%.2f,\"in_memory\":%s,\"log_n\":%d,"
               "\"circuit_ms\":%.1f,\"setup_ms\":%.1f,\"setup_backend\":\"%s\",\"load_ms\":%.1f,\"key_ms\":%.1f,"
               "\"witness_ms\":%.1f,\"key_bytes\":%zu,\"wtns_bytes\":%zu,\"rows_deferred\":%s,"
               "\"budget_bytes\":%llu,\"budget_peak_bytes\":%llu,\"finalize_threads\":%d,"
               "\"finalize_busy\":%.4f,\"mean_ready_wait_ms\":%.2f,\"mean_fin_wait_ms\":%.2f,"
               "\"mean_kernel_ms\":%.2f,\"work_areas_made\":%.0f,\"synth_budget_wait\":%.4f,\"msm_points\":%.0f,"
               "\"msm_note\":\"%s\",\"per_device\":[%s],"
               "\"bottleneck\":\"%s\",%s}\n",
               bname, ndev, nworkers, nworkers / ndev, nsynth, jobs, parts, o->no_verify ? "false" : "true", wall, pph,
               pct(lat, jobs, 0.5), pct(lat, jobs, 0.99), busy, sum[0] / np, sum[1] / np, up, gpu, sum[2] / np,
               sum[3] / np, sum[4] / np, s1.streamed - s0.streamed, s1.fallback - s0.fallback,
               ru.ru_maxrss / 1024.0, steady, upov, ov.kernel_busy_fraction, kbusy_steady, ov.kernel_conflicts, kw,
               in_mem ? "true" : "false", in_mem ? o->log_n : -1, sm.circuit_ms, sm.setup_ms,
               !in_mem ? "none" : sm.setup_gpu ? "cuda" : "cpu", sm.load_ms, sm.key_ms, sm.witness_ms, sm.key_bytes,
               sm.wtns_bytes, sm.deferred ? "true" : "false", (unsigned long long)bud.limit,
               (unsigned long long)bud.peak, nfin, fin_busy, rwait, fwait, kern, s1.work_allocs - s0.work_allocs, bwait,
               msm_points, msm_note, per_dev, bneck, bm.json);
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
        printf("  waits (ms): ready heap %.2f | fin heap %.2f; %d finalize thread%s %.1f%% busy; synthesis waiting for "
               "budget %.1f%%; %.0f working areas made while measuring; bottleneck: %s\n",
               rwait, fwait, nfin, nfin > 1 ? "s" : "", 100 * fin_busy, 100 * bwait, s1.work_allocs - s0.work_allocs,
               bneck);
        print_devices_text(&s0, &s1, ndev, dbusy, kbusy_dev);
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
    for (int i = 0; i < SYN_W; i++)
        free(wdata[i]);
    bench_synth_key_free(&sk);
    timeline_close(tlpath, tl_tmp, tl_fd);
    return rc;
}
