/* The engine's span ring (docs/engine.md, "Recent spans"): the last
 * ENGINE_RING_CAP stage spans of every thread, read as JSON or as Chrome
 * trace event JSON (g16_engine_timeline_json).
 *
 * A span is recorded when it ends (engine_span_add), under the ring's own
 * mutex, so a reader never holds the engine lock. Times are the monotonic
 * clock (now_ms); the ring keeps the offset to the Unix epoch read once at
 * creation, so spans are reported in Unix seconds without being skewed by
 * a later wall-clock step. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "util/ctx.h"

typedef struct rspan {
    double b, e; /* now_ms clock */
    uint64_t job;
    uint32_t part;
    int16_t idx, dev; /* thread index within its kind; device, -1 = none (CPU) */
    uint8_t kind, stage;
} rspan;

struct engine_ring {
    pthread_mutex_t lock;
    double unix_off_ms; /* Unix ms = now_ms + unix_off_ms */
    uint64_t added;     /* spans ever added; the ring holds the last min(added, CAP) */
    rspan v[ENGINE_RING_CAP];
};

static const char *const STAGE_NAME[] = {"synth", "device", "upload", "kernels", "finalize", "verify"};
static const char *const KIND_NAME[] = {"synth", "worker", "finalize"};

g16_err engine_ring_create(engine_ring **r) {
    engine_ring *g = calloc(1, sizeof *g);
    if (!(*r = g))
        return G16_ERR_NOMEM;
    pthread_mutex_init(&g->lock, NULL);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g->unix_off_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 - now_ms();
    return G16_OK;
}

void engine_ring_free(engine_ring *r) {
    if (!r)
        return;
    pthread_mutex_destroy(&r->lock);
    free(r);
}

void engine_span_add(engine_ring *r, int stage, int kind, int idx, int dev, uint64_t job, uint32_t part, double b,
                     double e) {
    if (!r || e < b)
        return;
    rspan s = {b, e, job, part, (int16_t)idx, (int16_t)dev, (uint8_t)kind, (uint8_t)stage};
    pthread_mutex_lock(&r->lock);
    r->v[r->added++ % ENGINE_RING_CAP] = s;
    pthread_mutex_unlock(&r->lock);
}

/* Start order; ties by lane, then end, so that the order is total. */
static int rspan_cmp(const void *x, const void *y) {
    const rspan *a = x, *b = y;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->idx != b->idx)
        return a->idx - b->idx;
    return (a->e > b->e) - (a->e < b->e);
}


/* The Chrome trace's thread id of a lane: device workers keep their index;
 * synthesis threads are 1000 + i, finalize threads 2000 + i. */
static int lane_tid(const rspan *s) { return s->kind * 1000 + s->idx; }

g16_err g16_engine_timeline_json(g16_engine *e, double since, int format, char **json) {
    if (!e || !json || (format != G16_TIMELINE_SPANS && format != G16_TIMELINE_CHROME))
        return G16_ERR_INVALID_ARG;
    *json = NULL;
    engine_ring *r = e->ring;
    size_t n = 0;
    rspan *v = NULL;
    uint64_t added = 0;
    double off = 0;
    if (r) {
        pthread_mutex_lock(&r->lock);
        added = r->added;
        off = r->unix_off_ms;
        size_t held = added < ENGINE_RING_CAP ? (size_t)added : ENGINE_RING_CAP;
        v = malloc((held ? held : 1) * sizeof *v);
        if (v) {
            double since_ms = since * 1e3 - off; /* in the ring's clock */
            for (size_t i = 0; i < held; i++)
                if (r->v[i].e >= since_ms)
                    v[n++] = r->v[i];
        }
        pthread_mutex_unlock(&r->lock);
        if (!v)
            return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "engine: out of memory");
    }
    qsort(v, n, sizeof *v, rspan_cmp);
    double now_unix = (now_ms() + off) / 1e3;
    uint64_t dropped = added > ENGINE_RING_CAP ? added - ENGINE_RING_CAP : 0;
    sbuf b = {0};
    if (format == G16_TIMELINE_SPANS) {
        sb_printf(&b, "{\"now\":%.6f,\"capacity\":%d,\"dropped\":%llu,\"spans\":[", now_unix, ENGINE_RING_CAP,
                  (unsigned long long)dropped);
        for (size_t i = 0; i < n; i++) {
            const rspan *s = &v[i];
            char dev[16] = "null";
            if (s->dev >= 0)
                snprintf(dev, sizeof dev, "%d", s->dev);
            sb_printf(&b,
                      "%s{\"job\":%llu,\"partition\":%u,\"worker\":%d,\"thread\":\"%s%d\",\"device\":%s,"
                      "\"stage\":\"%s\",\"start\":%.6f,\"end\":%.6f}",
                      i ? "," : "", (unsigned long long)s->job, s->part, s->idx, KIND_NAME[s->kind], s->idx, dev,
                      STAGE_NAME[s->stage], (s->b + off) / 1e3, (s->e + off) / 1e3);
        }
        sb_printf(&b, "]}");
    } else {
        /* Complete events ("X"), then one thread_name metadata event per
         * lane seen (pid = device, 0 for CPU lanes). */
        sb_printf(&b, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"dropped\":%llu},\"traceEvents\":[",
                  (unsigned long long)dropped);
        for (size_t i = 0; i < n; i++) {
            const rspan *s = &v[i];
            sb_printf(&b,
                      "%s{\"name\":\"%s\",\"cat\":\"g16\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d,"
                      "\"args\":{\"job\":%llu,\"partition\":%u}}",
                      i ? "," : "", STAGE_NAME[s->stage], (s->b + off) * 1e3, (s->e - s->b) * 1e3,
                      s->dev >= 0 ? s->dev : 0, lane_tid(s), (unsigned long long)s->job, s->part);
        }
        /* Lanes: (pid, tid) pairs, each named once (a few dozen lanes). */
        int lanes[512][2], nl = 0;
        for (size_t i = 0; i < n; i++) {
            int pid = v[i].dev >= 0 ? v[i].dev : 0, tid = lane_tid(&v[i]), seen = 0;
            for (int j = 0; j < nl && !seen; j++)
                seen = lanes[j][0] == pid && lanes[j][1] == tid;
            if (seen || nl == 512)
                continue;
            lanes[nl][0] = pid, lanes[nl][1] = tid, nl++;
            sb_printf(&b, ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s%d\"}}",
                      pid, tid, KIND_NAME[v[i].kind], v[i].idx);
        }
        sb_printf(&b, "]}");
    }
    free(v);
    if (b.oom || !b.p) {
        free(b.p);
        return g16_ctx_fail(e->ctx, G16_ERR_NOMEM, "engine: out of memory");
    }
    *json = b.p;
    return G16_OK;
}
