/* The engine's metrics: the stage histograms, the Prometheus text
 * (g16_engine_metrics) and the status JSON (g16_engine_status_json). */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "util/ctx.h"

static const char *const ST_NAME[ST_COUNT] = {"queue",       "synthesis",  "device",   "finalize",
                                              "verify",      "job",        "upload",   "gpu",
                                              "kernel_wait", "ready_wait", "fin_wait", "kernels"};

void hist_add(hist *h, double v) {
    size_t i = 0;
    while (i < NHB && v > HB[i])
        i++;
    h->b[i]++;
    h->count++;
    h->sum += v;
}

void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (m < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)m < b->cap) {
            b->n += (size_t)m;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->n + (size_t)m)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static void sb_json_str(sbuf *b, const char *s) {
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 0x20)
            sb_printf(b, "\\u%04x", c);
        else
            sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

static g16_err sb_finish(g16_engine *e, sbuf *b, char **out) {
    if (b->oom || !b->p) {
        free(b->p);
        *out = NULL;
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "engine: out of memory");
    }
    *out = b->p;
    return G16_OK;
}

static double dev_busy_ms(const g16_engine *e, int d, double tnow) {
    return e->dev[d].busy_ms + (e->dev[d].n_busy ? tnow - e->dev[d].busy_since : 0);
}

static double dev_busy_fraction(const g16_engine *e, int d, double tnow) {
    double span = e->dev[d].first_ms > 0 ? tnow - e->dev[d].first_ms : 0;
    return span > 0 ? dev_busy_ms(e, d, tnow) / span : 0;
}

static const char *const PRIO_NAME[4] = {"low", "normal", "high", "critical"};

static void queue_depths(const g16_engine *e, uint64_t d[4]) {
    memset(d, 0, 4 * sizeof d[0]);
    for (size_t i = 0; i < e->pending.n; i++)
        d[e->pending.v[i]->job->prio]++;
}

/* g16_engine_metrics in sections (under e->lock): the counters, the budgets
 * and the resident keys by tier; */
static void metrics_counters(const g16_engine *e, sbuf *b) {
    struct {
        const char *name, *help;
        uint64_t v;
        int gpu; /* 1: only where a GPU backend runs */
    } c[] = {
        {"g16_jobs_submitted_total", "Jobs accepted.", e->c_jobs_submitted, 0},
        {"g16_jobs_completed_total", "Jobs with every partition proved.", e->c_jobs_done, 0},
        {"g16_jobs_failed_total", "Jobs with a failed partition.", e->c_jobs_failed, 0},
        {"g16_jobs_cancelled_total", "Jobs cancelled or timed out.", e->c_jobs_cancelled, 0},
        {"g16_partitions_proved_total", "Partitions proved (and verified).", e->c_parts_proved, 0},
        {"g16_partitions_failed_total", "Partitions failed.", e->c_parts_failed, 0},
        {"g16_partitions_cancelled_total", "Partitions cancelled.", e->c_parts_cancelled, 0},
        {"g16_verify_failures_total", "Proofs that failed verify-before-return.", e->c_verify_failed, 0},
        {"g16_key_loads_total", "Key loads.", e->c_key_loads, 0},
        {"g16_key_evictions_total", "Key evictions.", e->c_key_evictions, 0},
        {"g16_work_area_allocs_total", "Working areas allocated.", e->c_work_allocs, 0},
        {"g16_work_area_reclaims_total", "Cached working areas freed under budget pressure.", e->c_work_reclaims, 0},
        {"g16_keys_streamed_total", "Key loads left off the GPUs (bases streamed from host memory).",
         e->c_keys_streamed, 1},
        {"g16_partitions_streamed_total", "Partitions proved with bases streamed from host memory.",
         e->c_parts_streamed, 1},
        {"g16_partitions_cpu_fallback_total",
         "Partitions a GPU worker ran on the CPU (no device working area, or its device out of service).",
         e->c_parts_cpu_fallback, 1},
        {"g16_device_errors_total", "GPU stages that failed on a device (the device is then out of service).",
         e->c_device_errors, 1},
        {"g16_workers_retired_total",
         "Workers that could not hold an in-memory key's device working area and left its partitions to the others.",
         e->c_workers_retired, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (!c[i].gpu || e->ring_dev)
            sb_printf(b, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", c[i].name, c[i].help, c[i].name, c[i].name,
                      (unsigned long long)c[i].v);
    sb_printf(b, "# HELP g16_budget_bytes Byte budget (0 = unlimited), use and peak.\n# TYPE g16_budget_bytes gauge\n");
    sb_printf(b, "g16_budget_bytes{kind=\"limit\"} %llu\ng16_budget_bytes{kind=\"used\"} %llu\n"
                  "g16_budget_bytes{kind=\"peak\"} %llu\n",
              (unsigned long long)e->o.budget_bytes, (unsigned long long)e->budget_used,
              (unsigned long long)e->budget_peak);
    if (e->ring_dev) {
        sb_printf(b, "# HELP g16_device_budget_bytes Per-device bytes (0 limit = unlimited): resident key bases, "
                      "worker areas, their sum and its peak.\n# TYPE g16_device_budget_bytes gauge\n");
        sb_printf(b, "g16_device_budget_bytes{kind=\"limit\"} %llu\ng16_device_budget_bytes{kind=\"keys\"} %llu\n"
                      "g16_device_budget_bytes{kind=\"work\"} %llu\ng16_device_budget_bytes{kind=\"used\"} %llu\n"
                      "g16_device_budget_bytes{kind=\"peak\"} %llu\n",
                  (unsigned long long)e->o.device_budget_bytes, (unsigned long long)e->dev_keys,
                  (unsigned long long)e->dev_work, (unsigned long long)(e->dev_keys + e->dev_work),
                  (unsigned long long)e->dev_peak);
    }
    uint64_t tiers[3] = {0, 0, 0}; /* device, host, mmap */
    for (ekey *k = e->keys; k; k = k->next)
        if (ekey_resident(k))
            tiers[k->dev_bytes ? 0 : k->tier == G16_TIER_HOST ? 1 : 2]++;
    sb_printf(b, "# HELP g16_keys_resident Resident keys by tier (device: bases on the GPUs).\n"
                  "# TYPE g16_keys_resident gauge\n");
    if (e->ring_dev)
        sb_printf(b, "g16_keys_resident{tier=\"device\"} %llu\n", (unsigned long long)tiers[0]);
    sb_printf(b, "g16_keys_resident{tier=\"host\"} %llu\ng16_keys_resident{tier=\"mmap\"} %llu\n",
              (unsigned long long)tiers[1], (unsigned long long)tiers[2]);
}

/* the per-worker and per-device series (seconds; the device series only
 * where a GPU backend runs); */
static void metrics_devices(const g16_engine *e, sbuf *b) {
    double tnow = now_ms();
    sb_printf(b, "# HELP g16_worker_busy_seconds_total Time each worker spent in heavy stages.\n"
                  "# TYPE g16_worker_busy_seconds_total counter\n");
    for (int i = 0; i < e->n_worker_th; i++) {
        if (e->ring_dev)
            sb_printf(b, "g16_worker_busy_seconds_total{worker=\"%d\",device=\"%d\"} %.6f\n", i, e->wcur[i].dev,
                      e->wcur[i].busy_ms / 1e3);
        else
            sb_printf(b, "g16_worker_busy_seconds_total{worker=\"%d\"} %.6f\n", i, e->wcur[i].busy_ms / 1e3);
    }
    sb_printf(b, "# HELP g16_finalize_busy_seconds_total Finalize + verify time of the finalize threads, summed.\n"
                  "# TYPE g16_finalize_busy_seconds_total counter\ng16_finalize_busy_seconds_total %.6f\n"
                  "# HELP g16_budget_wait_seconds_total Time synthesis threads waited for budget room for a working "
                  "area or a witness, summed.\n# TYPE g16_budget_wait_seconds_total counter\n"
                  "g16_budget_wait_seconds_total %.6f\n"
                  "# HELP g16_finalize_threads Finalize threads (one per device).\n"
                  "# TYPE g16_finalize_threads gauge\ng16_finalize_threads %d\n",
              e->fin_busy_ms / 1e3, e->budget_wait_ms / 1e3, e->n_fin_th);
    if (!e->ring_dev)
        return;
    struct {
        const char *name, *help;
    } ser[] = {
        {"g16_device_gpu_seconds_total", "Sum of the device-timed (CUDA events) GPU stages."},
        {"g16_device_kernel_seconds_total", "Kernel sections (H and the MSMs, host clock) per device."},
        {"g16_device_kernel_gpu_seconds_total",
         "CUDA-event time of the kernel sections' work per device (less than g16_device_kernel_seconds_total by the "
         "host's gaps)."},
        {"g16_device_kernel_wait_seconds_total", "Waits for the device's kernel mutex, summed."},
    };
    sb_printf(b, "# HELP g16_device_busy_seconds_total Time with at least one worker of the device in a heavy "
                  "stage.\n# TYPE g16_device_busy_seconds_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(b, "g16_device_busy_seconds_total{device=\"%d\"} %.6f\n", d, dev_busy_ms(e, d, tnow) / 1e3);
    for (size_t k = 0; k < sizeof ser / sizeof ser[0]; k++) {
        sb_printf(b, "# HELP %s %s\n# TYPE %s counter\n", ser[k].name, ser[k].help, ser[k].name);
        for (int d = 0; d < e->n_dev; d++)
            sb_printf(b, "%s{device=\"%d\"} %.6f\n", ser[k].name, d,
                      (k == 0 ? e->dev[d].gpu_ms : k == 1 ? e->dev[d].kernel_ms : k == 2 ? e->dev[d].kernel_gpu_ms
                                                                                        : e->dev[d].kwait_ms) / 1e3);
    }
    sb_printf(b, "# HELP g16_device_partitions_total Device stages that ended without error, per device.\n"
                  "# TYPE g16_device_partitions_total counter\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(b, "g16_device_partitions_total{device=\"%d\"} %llu\n", d, (unsigned long long)e->dev[d].parts);
    sb_printf(b, "# HELP g16_device_stage_gpu_seconds_total The kernel sections' CUDA-event time by part (synthesis "
                  "and H, the MSMs A, B1, B2, C and H) per device.\n"
                  "# TYPE g16_device_stage_gpu_seconds_total counter\n");
    static const char *const stage_names[ENGINE_GPU_STAGES] = ENGINE_GPU_STAGE_NAMES;
    for (int d = 0; d < e->n_dev; d++)
        for (int i = 0; i < ENGINE_GPU_STAGES; i++)
            sb_printf(b, "g16_device_stage_gpu_seconds_total{device=\"%d\",stage=\"%s\"} %.6f\n", d, stage_names[i],
                      e->dev[d].stage_gpu_ms[i] / 1e3);
    sb_printf(b, "# HELP g16_gpu_busy_fraction Device busy time over the time since its first partition.\n"
                  "# TYPE g16_gpu_busy_fraction gauge\n");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(b, "g16_gpu_busy_fraction{device=\"%d\"} %.4f\n", d, dev_busy_fraction(e, d, tnow));
}

/* One histogram (h: milliseconds) in seconds; label: "" or `stage="x",`. */
static void hist_print(sbuf *b, const char *name, const char *label, const hist *h) {
    uint64_t cum = 0;
    for (size_t i = 0; i < NHB; i++) {
        cum += h->b[i];
        sb_printf(b, "%s_bucket{%sle=\"%g\"} %llu\n", name, label, HB[i] / 1e3, (unsigned long long)cum);
    }
    cum += h->b[NHB];
    sb_printf(b, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, label, (unsigned long long)cum);
    size_t ll = strlen(label);
    /* label without its trailing comma, in braces, for _sum and _count */
    sb_printf(b, "%s_sum%s%.*s%s %.6f\n%s_count%s%.*s%s %llu\n", name, ll ? "{" : "", ll ? (int)ll - 1 : 0, label,
              ll ? "}" : "", h->sum / 1e3, name, ll ? "{" : "", ll ? (int)ll - 1 : 0, label, ll ? "}" : "",
              (unsigned long long)h->count);
}

/* the queue depths, busy workers and the histograms: queue wait, job
 * duration (submit to finish) and the other stages by name. */
static void metrics_queues(const g16_engine *e, sbuf *b) {
    uint64_t d[4];
    queue_depths(e, d);
    sb_printf(b, "# HELP g16_queue_depth Partitions waiting, by priority.\n# TYPE g16_queue_depth gauge\n");
    for (int p = 3; p >= 0; p--)
        sb_printf(b, "g16_queue_depth{priority=\"%s\"} %llu\n", PRIO_NAME[p], (unsigned long long)d[p]);
    sb_printf(b, "# HELP g16_ready_depth Synthesized partitions waiting for a worker.\n# TYPE g16_ready_depth gauge\n"
                  "g16_ready_depth %zu\n",
              e->ready.n);
    int busy = 0;
    for (int i = 0; i < e->n_worker_th; i++)
        busy += e->wcur[i].busy;
    sb_printf(b, "# HELP g16_workers_busy Device workers running a partition.\n# TYPE g16_workers_busy gauge\n"
                  "g16_workers_busy %d\n",
              busy);
    sb_printf(b, "# HELP g16_queue_wait_seconds Partition wait from submission to the start of its synthesis.\n"
                  "# TYPE g16_queue_wait_seconds histogram\n");
    hist_print(b, "g16_queue_wait_seconds", "", &e->h[ST_QUEUE]);
    sb_printf(b, "# HELP g16_job_duration_seconds Job time from submission to its last partition's end.\n"
                  "# TYPE g16_job_duration_seconds histogram\n");
    hist_print(b, "g16_job_duration_seconds", "", &e->h[ST_JOB]);
    sb_printf(b, "# HELP g16_stage_duration_seconds Per-partition stage time.\n"
                  "# TYPE g16_stage_duration_seconds histogram\n");
    for (int s = 0; s < ST_COUNT; s++) {
        if (s == ST_QUEUE || s == ST_JOB)
            continue;
        if (!e->ring_dev && (s == ST_UPLOAD || s == ST_GPU || s == ST_KWAIT || s == ST_KERNELS))
            continue; /* GPU stages */
        char label[48];
        snprintf(label, sizeof label, "stage=\"%s\",", ST_NAME[s]);
        hist_print(b, "g16_stage_duration_seconds", label, &e->h[s]);
    }
}

g16_err g16_engine_metrics(g16_engine *e, char **text) {
    if (!e || !text)
        return G16_ERR_INVALID_ARG;
    sbuf b = {0};
    pthread_mutex_lock(&e->lock);
    metrics_counters(e, &b);
    metrics_devices(e, &b);
    metrics_queues(e, &b);
    pthread_mutex_unlock(&e->lock);
    return sb_finish(e, &b, text);
}

g16_err g16_engine_status_json(g16_engine *e, char **json) {
    if (!e || !json)
        return G16_ERR_INVALID_ARG;
    sbuf b = {0};
    pthread_mutex_lock(&e->lock);
    sb_printf(&b, "{\"backend\":\"%s\",\"budget\":{\"limit\":%llu,\"used\":%llu,\"peak\":%llu},", e->be.name,
              (unsigned long long)e->o.budget_bytes, (unsigned long long)e->budget_used,
              (unsigned long long)e->budget_peak);
    sb_printf(&b, "\"device_budget\":{\"limit\":%llu,\"keys\":%llu,\"work\":%llu,\"used\":%llu,\"peak\":%llu},",
              (unsigned long long)e->o.device_budget_bytes, (unsigned long long)e->dev_keys,
              (unsigned long long)e->dev_work, (unsigned long long)(e->dev_keys + e->dev_work),
              (unsigned long long)e->dev_peak);
    double tnow = now_ms();
    sb_printf(&b, "\"devices\":[");
    for (int d = 0; d < e->n_dev; d++)
        sb_printf(&b,
                  "%s{\"id\":%d,\"workers\":%d,\"failed\":%s,\"busy\":%d,\"busy_ms\":%.3f,\"gpu_ms\":%.3f,"
                  "\"partitions\":%llu,\"kernel_ms\":%.3f,\"kernel_wait_ms\":%.3f,\"busy_fraction\":%.4f}",
                  d ? "," : "", d, e->dev[d].workers, e->dev[d].failed ? "true" : "false", e->dev[d].n_busy,
                  dev_busy_ms(e, d, tnow), e->dev[d].gpu_ms, (unsigned long long)e->dev[d].parts,
                  e->dev[d].kernel_ms, e->dev[d].kwait_ms, dev_busy_fraction(e, d, tnow));
    sb_printf(&b, "],\"keys\":[");
    for (ekey *k = e->keys; k; k = k->next) {
        sb_printf(&b, "%s{\"id\":%llu,\"path\":", k == e->keys ? "" : ",", (unsigned long long)k->id);
        sb_json_str(&b, k->path);
        sb_printf(&b,
                  ",\"tier\":\"%s\",\"host_tier\":\"%s\",\"bytes\":%llu,\"device_bytes\":%llu,\"streamed\":%s,"
                  "\"work_areas\":%u,\"work_bytes\":%llu,\"active\":%u,\"refs\":%d,\"loads\":%u,\"evictions\":%u,"
                  "\"in_memory\":%s,\"host_released_bytes\":%llu,\"gpu_tables\":%d,\"gpu_synth\":%s,"
                  "\"format\":\"%s\"}",
                  k->loading ? "loading" : !ekey_resident(k) ? "none" : k->dev_bytes ? "device" : k->tier == G16_TIER_HOST ? "host" : "mmap",
                  k->tier == G16_TIER_HOST ? "host" : "mmap", (unsigned long long)k->bytes,
                  (unsigned long long)k->dev_bytes, k->streamed ? "true" : "false", k->n_work,
                  (unsigned long long)k->work_bytes, k->active, k->users, k->loads, k->evictions,
                  k->in_memory ? "true" : "false", (unsigned long long)k->released,
                  k->key && k->dev_bytes && e->be.key_tables ? e->be.key_tables(e->be.self, k->key) : 0,
                  k->key && e->be.synth_flags && (e->be.synth_flags(e->be.self, k->key) & GROTH16_SYNTH_WS_ONLY)
                      ? "true"
                      : "false",
                  k->params ? "params" : "zkey");
    }
    uint64_t d[4];
    queue_depths(e, d);
    sb_printf(&b, "],\"queue\":{\"critical\":%llu,\"high\":%llu,\"normal\":%llu,\"low\":%llu},\"synthesizing\":%u,"
                  "\"ready\":%zu,\"finalizing\":%zu,\"synth_threads\":%d,\"lookahead\":%d,\"finalize_threads\":%d,"
                  "\"finalize_busy_ms\":%.3f,\"workers\":[",
              (unsigned long long)d[3], (unsigned long long)d[2], (unsigned long long)d[1], (unsigned long long)d[0],
              e->n_synthesizing, e->ready.n, e->fin.n, e->o.synth_threads, e->o.lookahead, e->n_fin_th,
              e->fin_busy_ms);
    for (int i = 0; i < e->n_worker_th; i++) {
        sb_printf(&b, "%s{\"id\":%d,\"device\":%d,\"busy_ms\":%.3f,\"retired\":%s,\"msm_points\":%zu,", i ? "," : "",
                  i, e->wcur[i].dev, e->wcur[i].busy_ms, e->wcur[i].retired ? "true" : "false",
                  e->wcur[i].msm_points);
        if (e->wcur[i].msm_note[0]) {
            sb_printf(&b, "\"msm_note\":");
            sb_json_str(&b, e->wcur[i].msm_note);
            sb_printf(&b, ",");
        }
        if (e->wcur[i].busy)
            sb_printf(&b, "\"job\":%llu,\"partition\":%u}", (unsigned long long)e->wcur[i].job_id, e->wcur[i].part);
        else
            sb_printf(&b, "\"job\":null}");
    }
    sb_printf(&b, "]}");
    pthread_mutex_unlock(&e->lock);
    return sb_finish(e, &b, json);
}
