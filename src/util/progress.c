/* Progress reporting: rate limit and monotonic clamp (progress.h). */
#include "progress.h"

#include "util.h"

void g16_progress_init(g16_progress *p, g16_progress_fn fn, void *user) {
    p->fn = fn;
    p->user = user;
    p->owner = pthread_self();
    p->stage = "";
    p->total = 1;
    p->done = 0;
    p->next_ms = 0;
}

int g16_progress_owner(const g16_progress *p) { return p && p->fn && pthread_equal(p->owner, pthread_self()); }

void g16_progress_stage(g16_progress *p, const char *stage, uint64_t total) {
    if (!g16_progress_owner(p))
        return;
    p->stage = stage;
    p->total = total ? total : 1;
    p->done = 0;
    p->next_ms = g16_now_ms() + G16_PROGRESS_INTERVAL_MS;
    p->fn(p->user, p->stage, 0, p->total);
}

void g16_progress_at(g16_progress *p, uint64_t done) {
    if (!g16_progress_owner(p))
        return;
    if (done > p->total)
        done = p->total;
    if (done <= p->done)
        return;
    double now = done == p->total ? 0 : g16_now_ms();
    if (done < p->total && now < p->next_ms)
        return;
    p->done = done;
    if (done < p->total)
        p->next_ms = now + G16_PROGRESS_INTERVAL_MS;
    p->fn(p->user, p->stage, done, p->total);
}

void g16_progress_end(g16_progress *p) {
    if (g16_progress_owner(p))
        g16_progress_at(p, p->total);
}
