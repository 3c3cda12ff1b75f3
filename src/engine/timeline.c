/* Timeline analysis (engine.h, "timeline analysis"; docs/engine.md
 * "Kernel exclusivity"): spans of the CUDA backend's upload and kernel
 * sections read back from a timeline file, and their overlap metrics.
 *
 * All measures are of unions of closed intervals on the real line: a set of
 * spans is sorted by start and merged (adjacent or overlapping spans join),
 * then lengths are summed. n spans cost O(n log n) per union; the upload
 * overlap is one union per upload span (O(nup * nk log nk) at worst, a few
 * thousand spans for a long benchmark). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

typedef struct ival {
    double b, e;
} ival;

static int ival_cmp(const void *x, const void *y) {
    const ival *a = x, *b = y;
    return (a->b > b->b) - (a->b < b->b);
}

/* Length of the union of v[0 .. n-1] (sorted in place). */
static double union_len(ival *v, size_t n) {
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, ival_cmp);
    double total = 0, cb = v[0].b, ce = v[0].e;
    for (size_t i = 1; i < n; i++) {
        if (v[i].b > ce) {
            total += ce - cb;
            cb = v[i].b, ce = v[i].e;
        } else if (v[i].e > ce) {
            ce = v[i].e;
        }
    }
    return total + (ce - cb);
}

g16_err engine_overlap_compute(engine_overlap *r, const engine_span *up, size_t nup, const engine_span *kn,
                               size_t nk, int ndev, double wall_ms, g16_status *st) {
    memset(r, 0, sizeof *r);
    ival *tmp = malloc((nk ? nk : 1) * sizeof *tmp);
    if (!tmp)
        return g16_fail(st, G16_ERR_NOMEM, "timeline: out of memory");
    /* Upload time inside another worker's kernel section (same device):
     * the union of those kernel spans clipped to the upload span. */
    for (size_t i = 0; i < nup; i++) {
        const engine_span *u = &up[i];
        if (u->dev < 0 || u->dev >= ndev || u->e <= u->b)
            continue;
        r->upload_ms += u->e - u->b;
        size_t m = 0;
        for (size_t j = 0; j < nk; j++) {
            const engine_span *k = &kn[j];
            if (k->dev != u->dev || k->worker == u->worker)
                continue;
            double b = k->b > u->b ? k->b : u->b, e = k->e < u->e ? k->e : u->e;
            if (e > b)
                tmp[m++] = (ival){b, e};
        }
        r->upload_overlap_ms += union_len(tmp, m);
    }
    /* Each device's kernel union, and the pairs of its kernel spans of
     * different workers that overlap. */
    double frac = 0;
    for (int d = 0; d < ndev; d++) {
        size_t m = 0;
        for (size_t j = 0; j < nk; j++)
            if (kn[j].dev == d && kn[j].e > kn[j].b)
                tmp[m++] = (ival){kn[j].b, kn[j].e};
        double f = wall_ms > 0 ? union_len(tmp, m) / wall_ms : 0;
        frac += f;
        if (d < ENGINE_OVERLAP_MAXDEV)
            r->dev_kernel_busy[d] = f;
    }
    for (size_t i = 0; i < nk; i++)
        for (size_t j = i + 1; j < nk; j++) {
            const engine_span *a = &kn[i], *b = &kn[j];
            if (a->dev != b->dev || a->worker == b->worker || a->dev < 0 || a->dev >= ndev)
                continue;
            double lo = a->b > b->b ? a->b : b->b, hi = a->e < b->e ? a->e : b->e;
            r->kernel_conflicts += hi > lo;
        }
    r->kernel_busy_fraction = ndev > 0 ? frac / ndev : 0;
    free(tmp);
    return G16_OK;
}

/* A growing span array. */
typedef struct spanv {
    engine_span *v;
    size_t n, cap;
} spanv;

static int spanv_push(spanv *s, engine_span x) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        engine_span *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return 0;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = x;
    return 1;
}

g16_err engine_tl_read(const char *path, uint64_t min_job, engine_span **up, size_t *nup, engine_span **kn,
                       size_t *nk, g16_status *st) {
    *up = *kn = NULL;
    *nup = *nk = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return g16_fail(st, G16_ERR_IO, "timeline: cannot open %s", path);
    spanv sv[2] = {{0}};
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        double t;
        char ev[16], ph;
        unsigned long long job;
        unsigned part;
        int worker, dev;
        if (sscanf(line, "{\"t\":%lf,\"ev\":\"%15[^\"]\",\"ph\":\"%c\",\"job\":%llu,\"part\":%u,\"thread\":\"worker%d\",\"dev\":%d}",
                   &t, ev, &ph, &job, &part, &worker, &dev) != 7 ||
            job < min_job)
            continue;
        int kind = !strcmp(ev, "upload") ? 0 : !strcmp(ev, "kernels") ? 1 : -1;
        if (kind < 0)
            continue;
        spanv *s = &sv[kind];
        if (ph == 'B') {
            ok = spanv_push(s, (engine_span){t, -1, worker, dev, job, part});
        } else if (ph == 'E') {
            /* The latest open span of the same partition and worker (e < 0:
             * still open; times are >= 0). */
            for (size_t i = s->n; i-- > 0;)
                if (s->v[i].e < 0 && s->v[i].job == job && s->v[i].part == part && s->v[i].worker == worker) {
                    s->v[i].e = t >= s->v[i].b ? t : s->v[i].b;
                    break;
                }
        }
    }
    fclose(f);
    if (!ok) {
        free(sv[0].v);
        free(sv[1].v);
        return g16_fail(st, G16_ERR_NOMEM, "timeline: out of memory");
    }
    /* Drop the spans never closed. */
    for (int k = 0; k < 2; k++) {
        size_t m = 0;
        for (size_t i = 0; i < sv[k].n; i++)
            if (sv[k].v[i].e >= 0)
                sv[k].v[m++] = sv[k].v[i];
        sv[k].n = m;
        if (!m) {
            free(sv[k].v);
            sv[k].v = NULL;
        }
    }
    *up = sv[0].v, *nup = sv[0].n;
    *kn = sv[1].v, *nk = sv[1].n;
    return G16_OK;
}
