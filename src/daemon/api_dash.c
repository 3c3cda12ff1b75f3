/* The dashboard's routes (docs/api.md): GET /v1/jobs (a filtered, paged
 * listing) and GET /v1/timeline (the engine's recent spans, JSON or Chrome
 * trace event JSON). api.c routes to them. */
#include "daemon.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PRIO[4] = {"low", "normal", "high", "critical"};

static char *bad_arg(int *status, const char *msg) { return g16d_api_error(400, "invalid_arg", msg, status); }

/* A failed store read: 503 unavailable, as api.c answers. */
static char *store_read_fail(g16d *d, const char *op, const g16_status *st, int *status) {
    char msg[sizeof st->msg + 16];
    g16d_store_error(d, op, st);
    snprintf(msg, sizeof msg, "job store: %s", st->msg);
    return g16d_api_error(503, "unavailable", msg, status);
}

/* A comma list of names (of names[0 .. n-1]) as a bit set; -1 if a name is
 * unknown or the list empty. */
static int name_set(const char *s, const char *const *names, int n) {
    int set = 0;
    while (*s) {
        const char *c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        int hit = -1;
        for (int i = 0; i < n && hit < 0; i++)
            if (strlen(names[i]) == len && !strncmp(s, names[i], len))
                hit = i;
        if (hit < 0)
            return -1;
        set |= 1 << hit;
        if (!c)
            break;
        s = c + 1;
        if (!*s)
            return -1;
    }
    return set ? set : -1;
}

/* A decimal integer in [lo, hi] (the whole string); 0 on success. */
static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static json_t *summary_json(const store_job_info *j) {
    json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:f}", "id", (json_int_t)j->id, "key", j->key_id,
                          "priority", PRIO[j->priority < 0 ? 0 : j->priority > 3 ? 3 : j->priority], "state",
                          store_state_name(j->state), "partitions", (int)j->n_partitions, "proved", (int)j->n_done,
                          "failed", (int)j->n_failed, "cancelled", (int)j->n_cancelled, "submitted_at", j->created);
    /* started_at: the job's first claim (a partition handed to an engine) */
    json_object_set_new(o, "started_at", j->started > 0 ? json_real(j->started) : json_null());
    json_object_set_new(o, "finished_at", j->finished > 0 ? json_real(j->finished) : json_null());
    return o;
}

char *g16d_api_jobs_list(g16d *d, g16d_query_fn query, void *conn, int *status) {
    static const char *const states[5] = {"queued", "running", "done", "failed", "cancelled"};
    const char *ss = query(conn, "state"), *ps = query(conn, "priority"), *ks = query(conn, "key"),
               *ls = query(conn, "limit"), *as = query(conn, "after");
    store_job_filter f = {0};
    int set;
    if (ss && (set = name_set(ss, states, 5)) < 0)
        return bad_arg(status, "state: a comma list of queued, running, done, failed, cancelled");
    if (ss)
        f.states = (unsigned)set;
    if (ps && (set = name_set(ps, PRIO, 4)) < 0)
        return bad_arg(status, "priority: a comma list of low, normal, high, critical");
    if (ps)
        f.priorities = (unsigned)set;
    if (ks && (!*ks || strlen(ks) >= sizeof ((store_job_info *)0)->key_id))
        return bad_arg(status, "key: a key id");
    f.key_id = ks;
    long long limit = 100, after = 0;
    if (ls && parse_int(ls, 1, 1000, &limit))
        return bad_arg(status, "limit: an integer from 1 to 1000");
    if (as && parse_int(as, 0, INT64_MAX, &after))
        return bad_arg(status, "after: a job id (an integer >= 0)");
    f.after = (int64_t)after;
    /* One more than asked: whether a next page exists. */
    int64_t *ids = malloc((size_t)(limit + 1) * sizeof *ids);
    if (!ids)
        return g16d_api_error(500, "internal", "out of memory", status);
    size_t n = 0;
    g16_status st = {0};
    if (store_job_list(d->st, &f, ids, (size_t)limit + 1, &n, &st)) {
        free(ids);
        return store_read_fail(d, "job_list", &st, status);
    }
    json_t *jobs = json_array();
    size_t shown = n > (size_t)limit ? (size_t)limit : n;
    for (size_t i = 0; i < shown; i++) {
        store_job_info ji;
        g16_err err = store_job_get(d->st, ids[i], 0, &ji, &st);
        if (err == G16_ERR_INVALID_ARG) /* deleted in between */
            continue;
        if (err) {
            free(ids);
            json_decref(jobs);
            return store_read_fail(d, "job_get", &st, status);
        }
        json_array_append_new(jobs, summary_json(&ji));
        store_job_info_free(&ji);
    }
    json_t *o = json_pack("{s:o}", "jobs", jobs);
    json_object_set_new(o, "next_after", n > (size_t)limit ? json_integer((json_int_t)ids[limit - 1]) : json_null());
    free(ids);
    char *r = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!r)
        return g16d_api_error(500, "internal", "out of memory", status);
    *status = 200;
    return r;
}

char *g16d_api_timeline(g16d *d, g16d_query_fn query, void *conn, int *status) {
    const char *ss = query(conn, "since"), *fs = query(conn, "format");
    double since = g16d_unix_now() - 300;
    if (ss) {
        char *end;
        errno = 0;
        since = strtod(ss, &end);
        if (errno || end == ss || *end || !isfinite(since) || since < 0)
            return bad_arg(status, "since: unix seconds (a number >= 0)");
    }
    int fmt = G16_TIMELINE_SPANS;
    if (fs && !strcmp(fs, "chrome"))
        fmt = G16_TIMELINE_CHROME;
    else if (fs && strcmp(fs, "json"))
        return bad_arg(status, "format: json or chrome");
    char *tj = NULL;
    if (g16_engine_timeline_json(d->eng, since, fmt, &tj) != G16_OK || !tj)
        return g16d_api_error(500, "internal", "out of memory", status);
    /* The engine names its own jobs (one per partition here): each span
     * gets the store's job and partition instead, "engine_job" keeps the
     * engine's id; a span whose engine job is no longer in the map (older
     * than G16D_EJMAP partitions) gets job null. */
    json_error_t je;
    json_t *root = json_loads(tj, 0, &je);
    g16_free(tj);
    if (!root)
        return g16d_api_error(500, "internal", "timeline: the engine's JSON does not parse", status);
    json_t *arr = json_object_get(root, fmt == G16_TIMELINE_CHROME ? "traceEvents" : "spans");
    size_t i;
    json_t *sp;
    pthread_mutex_lock(&d->mtx);
    json_array_foreach(arr, i, sp) {
        json_t *o = fmt == G16_TIMELINE_CHROME ? json_object_get(sp, "args") : sp;
        json_t *jj = json_object_get(o, "job");
        if (!json_is_object(o) || !json_is_integer(jj))
            continue;
        uint64_t ej = (uint64_t)json_integer_value(jj);
        const g16d_ejmap *m = d->ejmap && ej ? &d->ejmap[ej % G16D_EJMAP] : NULL;
        json_object_set_new(o, "engine_job", json_integer((json_int_t)ej));
        if (m && m->eng_job == ej) {
            json_object_set_new(o, "job", json_integer((json_int_t)m->job));
            json_object_set_new(o, "partition", json_integer((json_int_t)m->part));
        } else {
            json_object_set_new(o, "job", json_null());
        }
    }
    pthread_mutex_unlock(&d->mtx);
    char *r = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (!r)
        return g16d_api_error(500, "internal", "out of memory", status);
    *status = 200;
    return r;
}

void g16d_ejmap_put(g16d *d, uint64_t eng_job, int64_t job, uint32_t part) {
    if (!d->ejmap)
        d->ejmap = calloc(G16D_EJMAP, sizeof *d->ejmap);
    if (d->ejmap && eng_job)
        d->ejmap[eng_job % G16D_EJMAP] = (g16d_ejmap){eng_job, job, part};
}

/* The label value v with \\, " and newlines escaped (text format). */
static void label_value(char *out, size_t cap, const char *v) {
    size_t n = 0;
    for (; *v && n + 3 < cap; v++) {
        if (*v == '\\' || *v == '"')
            out[n++] = '\\', out[n++] = *v;
        else if (*v == '\n')
            out[n++] = '\\', out[n++] = 'n';
        else
            out[n++] = *v;
    }
    out[n] = 0;
}

char *g16d_metrics_extra(g16d *d) {
#ifdef G16_HAVE_CUDA
    const char *cuda = "true";
#else
    const char *cuda = "false";
#endif
    char commit[128];
    label_value(commit, sizeof commit, d->commit && *d->commit ? d->commit : "unknown");
    /* The oldest queued job: the lowest queued id (ids ascend with creation). */
    double age = 0;
    store_job_filter f = {.states = 1u << STORE_QUEUED};
    int64_t id;
    size_t n = 0;
    g16_status st = {0};
    if (store_job_list(d->st, &f, &id, 1, &n, &st)) {
        g16d_store_error(d, "job_list", &st);
    } else if (n) {
        store_job_info ji;
        if (!store_job_get(d->st, id, 0, &ji, &st)) {
            age = g16d_unix_now() - ji.created;
            store_job_info_free(&ji);
        } else if (st.code != G16_ERR_INVALID_ARG) {
            g16d_store_error(d, "job_get", &st);
        }
    }
    size_t cap = 1024 + 2 * sizeof commit;
    char *r = malloc(cap);
    if (!r || snprintf(r, cap,
                 "# HELP g16d_build_info The build: version, git commit, CUDA backend compiled in.\n"
                 "# TYPE g16d_build_info gauge\ng16d_build_info{version=\"%s\",commit=\"%s\",cuda=\"%s\"} 1\n"
                 "# HELP g16d_start_time_seconds Unix time g16d started.\n"
                 "# TYPE g16d_start_time_seconds gauge\ng16d_start_time_seconds %.3f\n"
                 "# HELP g16d_oldest_queued_job_age_seconds Age of the oldest job none of whose partitions has "
                 "started (0: none queued).\n"
                 "# TYPE g16d_oldest_queued_job_age_seconds gauge\ng16d_oldest_queued_job_age_seconds %.3f\n",
                 g16_version(), commit, cuda, d->start_time, age > 0 ? age : 0) < 0) {
        free(r);
        return NULL;
    }
    return r;
}
