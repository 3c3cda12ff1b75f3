/* The engine's timeline analysis (src/engine/timeline.c): the overlap
 * metrics against a brute-force oracle on a grid, a worked example, and
 * reading spans back from a timeline file in the engine's format (matched
 * B/E pairs, other lines and jobs skipped).
 *
 * Oracle: spans with integer endpoints in [0, T]; every measure is then the
 * number of half-integer points k + 1/2 covered, counted point by point
 * (no sorting or merging as in the code under test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "testutil.h"

#define T 120

static uint64_t rng;
static uint64_t rnd(void) { /* xorshift64* */
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}
static int rint_(int n) { return (int)(rnd() % (uint64_t)n); }

static int covers(const engine_span *s, double t) { return s->b < t && t < s->e; }

static engine_span rand_span(int nworkers, int ndev) {
    engine_span s;
    int a = rint_(T + 1), len = rint_(4) == 0 ? 0 : rint_(30);
    s.b = a, s.e = a + len > T ? T : a + len;
    s.worker = rint_(nworkers);
    /* dev = worker % ndev, and now and then a device out of range (ignored) */
    s.dev = rint_(16) == 0 ? ndev : s.worker % ndev;
    s.job = 1 + (uint64_t)rint_(3);
    s.part = (uint32_t)rint_(8);
    return s;
}

static void test_random(void) {
    int bad = 0;
    for (int trial = 0; trial < 400; trial++) {
        int ndev = 1 + rint_(3), nworkers = 1 + rint_(6);
        size_t nup = (size_t)rint_(12), nk = (size_t)rint_(12);
        engine_span up[12], kn[12];
        for (size_t i = 0; i < nup; i++)
            up[i] = rand_span(nworkers, ndev);
        for (size_t i = 0; i < nk; i++)
            kn[i] = rand_span(nworkers, ndev);
        double wall = T;
        engine_overlap r;
        g16_status st = {0};
        CHECK(engine_overlap_compute(&r, up, nup, kn, nk, ndev, wall, &st) == G16_OK);

        double e_up = 0, e_ov = 0, e_busy = 0, e_dev[3] = {0, 0, 0};
        size_t e_conf = 0;
        for (size_t i = 0; i < nup; i++) {
            if (up[i].dev >= ndev)
                continue;
            for (int k = 0; k < T; k++) {
                double t = k + 0.5;
                if (!covers(&up[i], t))
                    continue;
                e_up += 1;
                int other = 0;
                for (size_t j = 0; j < nk && !other; j++)
                    other = kn[j].dev == up[i].dev && kn[j].worker != up[i].worker && covers(&kn[j], t);
                e_ov += other;
            }
        }
        for (int d = 0; d < ndev; d++) {
            int c = 0;
            for (int k = 0; k < T; k++) {
                int any = 0;
                for (size_t j = 0; j < nk && !any; j++)
                    any = kn[j].dev == d && covers(&kn[j], k + 0.5);
                c += any;
            }
            e_busy += c / wall;
            e_dev[d] = c / wall;
        }
        e_busy /= ndev;
        int dev_ok = 1; /* each device's own fraction (dev_kernel_busy) */
        for (int d = 0; d < ndev; d++)
            dev_ok &= r.dev_kernel_busy[d] > e_dev[d] - 1e-12 && r.dev_kernel_busy[d] < e_dev[d] + 1e-12;
        if (!dev_ok && bad < 3)
            fprintf(stderr, "  trial %d: per-device busy %.6f %.6f %.6f, expected %.6f %.6f %.6f\n", trial,
                    r.dev_kernel_busy[0], r.dev_kernel_busy[1], r.dev_kernel_busy[2], e_dev[0], e_dev[1], e_dev[2]);
        for (size_t i = 0; i < nk; i++)
            for (size_t j = i + 1; j < nk; j++) {
                if (kn[i].dev != kn[j].dev || kn[i].dev >= ndev || kn[i].worker == kn[j].worker)
                    continue;
                int shared = 0;
                for (int k = 0; k < T && !shared; k++)
                    shared = covers(&kn[i], k + 0.5) && covers(&kn[j], k + 0.5);
                e_conf += shared;
            }
        int ok = dev_ok && r.upload_ms == e_up && r.upload_overlap_ms == e_ov && r.kernel_conflicts == e_conf &&
                 r.kernel_busy_fraction > e_busy - 1e-12 && r.kernel_busy_fraction < e_busy + 1e-12;
        if (!ok && bad++ < 3)
            fprintf(stderr,
                    "  trial %d (%d devices, %d workers, %zu uploads, %zu kernels): upload %.1f/%.1f overlap "
                    "%.1f/%.1f busy %.6f/%.6f conflicts %zu/%zu (got/expected)\n",
                    trial, ndev, nworkers, nup, nk, r.upload_ms, e_up, r.upload_overlap_ms, e_ov,
                    r.kernel_busy_fraction, e_busy, r.kernel_conflicts, e_conf);
    }
    CHECK_MSG(bad == 0, "%d of 400 random trials disagree with the grid oracle", bad);
}

/* Two workers on one device taking turns, as under the kernel mutex. */
static void test_example(void) {
    engine_span kn[] = {{0, 10, 0, 0, 1, 0}, {10, 20, 1, 0, 1, 1}, {20, 26, 0, 0, 1, 2}};
    engine_span up[] = {{5, 12, 1, 0, 1, 1}, {15, 18, 0, 0, 1, 2}, {30, 31, 1, 0, 1, 3}};
    engine_overlap r;
    g16_status st = {0};
    CHECK(engine_overlap_compute(&r, up, 3, kn, 3, 1, 40, &st) == G16_OK);
    /* worker 1's upload [5, 12] meets worker 0's kernels [0, 10] for 5 ms
     * (not its own [10, 20]); worker 0's [15, 18] lies in worker 1's [10, 20] */
    CHECK_MSG(r.upload_ms == 11 && r.upload_overlap_ms == 8, "upload %.3f overlap %.3f", r.upload_ms,
              r.upload_overlap_ms);
    CHECK_MSG(r.kernel_conflicts == 0, "touching sections counted as conflicts: %zu", r.kernel_conflicts);
    CHECK_MSG(r.kernel_busy_fraction == 26.0 / 40, "busy %.6f", r.kernel_busy_fraction);
    CHECK_MSG(r.dev_kernel_busy[0] == 26.0 / 40, "device 0 busy %.6f", r.dev_kernel_busy[0]);
    kn[1].b = 9.5; /* now overlapping worker 0's first section */
    CHECK(engine_overlap_compute(&r, up, 3, kn, 3, 1, 40, &st) == G16_OK);
    CHECK_MSG(r.kernel_conflicts == 1, "conflicts %zu", r.kernel_conflicts);
    CHECK(engine_overlap_compute(&r, NULL, 0, NULL, 0, 2, 0, &st) == G16_OK);
    CHECK(r.upload_ms == 0 && r.kernel_busy_fraction == 0 && r.kernel_conflicts == 0);
}

typedef struct tev {
    double t;
    int kind; /* 0 upload, 1 kernels */
    char ph;
    const engine_span *s;
} tev;

static int tev_cmp(const void *x, const void *y) {
    const tev *a = x, *b = y;
    if (a->t != b->t)
        return (a->t > b->t) - (a->t < b->t);
    return (a->ph > b->ph) - (a->ph < b->ph); /* B before E: zero-length spans */
}

static int span_cmp(const void *x, const void *y) {
    const engine_span *a = x, *b = y;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    return a->worker - b->worker;
}

static int same_spans(const char *what, engine_span *got, size_t ng, engine_span *want, size_t nw) {
    if (ng != nw) {
        fprintf(stderr, "  %s: %zu spans read, %zu expected\n", what, ng, nw);
        return 0;
    }
    qsort(got, ng, sizeof *got, span_cmp);
    qsort(want, nw, sizeof *want, span_cmp);
    for (size_t i = 0; i < ng; i++)
        if (got[i].b != want[i].b || got[i].e != want[i].e || got[i].worker != want[i].worker ||
            got[i].dev != want[i].dev || got[i].job != want[i].job || got[i].part != want[i].part) {
            fprintf(stderr, "  %s: span %zu: [%.3f, %.3f] worker %d dev %d job %llu part %u, expected [%.3f, %.3f] "
                            "worker %d dev %d job %llu part %u\n",
                    what, i, got[i].b, got[i].e, got[i].worker, got[i].dev, (unsigned long long)got[i].job,
                    got[i].part, want[i].b, want[i].e, want[i].worker, want[i].dev,
                    (unsigned long long)want[i].job, want[i].part);
            return 0;
        }
    return 1;
}

/* Spans written as the engine writes them (events in time order, other
 * events between), read back. */
static void test_read(void) {
    char path[] = "/tmp/g16-test-timeline-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    enum { NS = 40 };
    engine_span sp[2][NS], want[2][NS];
    size_t nwant[2] = {0, 0};
    tev ev[4 * NS];
    int nev = 0;
    const uint64_t min_job = 3;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NS; i++) {
            engine_span s;
            /* distinct (job, part, worker) per kind: part = i */
            s.job = 1 + (uint64_t)rint_(5);
            s.part = (uint32_t)i;
            s.worker = rint_(4);
            s.dev = s.worker % 2;
            s.b = rint_(4000) * 0.25;
            s.e = s.b + rint_(400) * 0.25;
            sp[k][i] = s;
            ev[nev++] = (tev){s.b, k, 'B', &sp[k][i]};
            if (i % 13 != 5) /* some never end: dropped */
                ev[nev++] = (tev){s.e, k, 'E', &sp[k][i]};
            if (s.job >= min_job && i % 13 != 5)
                want[k][nwant[k]++] = s;
        }
    qsort(ev, (size_t)nev, sizeof *ev, tev_cmp);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "not json\n{\"t\":0.500,\"ev\":\"synthesis\",\"ph\":\"B\",\"job\":4,\"part\":0,\"thread\":\"synth0\"}\n");
    for (int i = 0; i < nev; i++) {
        const engine_span *s = ev[i].s;
        fprintf(f, "{\"t\":%.3f,\"ev\":\"%s\",\"ph\":\"%c\",\"job\":%llu,\"part\":%u,\"thread\":\"worker%d\",\"dev\":%d}\n",
                ev[i].t, ev[i].kind ? "kernels" : "upload", ev[i].ph, (unsigned long long)s->job, s->part, s->worker,
                s->dev);
        if (i % 7 == 0) /* device stages carry no "dev": skipped */
            fprintf(f, "{\"t\":%.3f,\"ev\":\"device\",\"ph\":\"B\",\"job\":4,\"part\":%d,\"thread\":\"worker1\"}\n",
                    ev[i].t, i);
    }
    fclose(f);
    engine_span *up = NULL, *kn = NULL;
    size_t nup = 0, nk = 0;
    g16_status st = {0};
    CHECK(engine_tl_read(path, min_job, &up, &nup, &kn, &nk, &st) == G16_OK);
    CHECK(same_spans("uploads", up, nup, want[0], nwant[0]));
    CHECK(same_spans("kernels", kn, nk, want[1], nwant[1]));
    free(up);
    free(kn);
    unlink(path);
    CHECK(engine_tl_read(path, 0, &up, &nup, &kn, &nk, &st) == G16_ERR_IO && !up && !kn && !nup && !nk);
}

int main(void) {
    rng = t_seed("test_engine_timeline") | 1;
    test_example();
    test_random();
    test_read();
    return t_done("test_engine_timeline");
}
