/* What every bench shares: printing one result (bench_report, with the
 * effective options), the scalar profile of --profile (bench_profile) and a
 * context carrying the bench's options (bench_ctx_create); declared in
 * bench.h. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench.h"
#include "cli/progress.h"
#include "util/ctx.h"

int bench_profile(const bench_opts *o) {
    if (!o->profile || !strcmp(o->profile, "random"))
        return 0;
    return !strcmp(o->profile, "filecoin") ? 1 : -1;
}

g16_ctx *bench_ctx_create(const bench_opts *o, const g16_ctx_opts *copts) {
    g16_ctx *ctx = g16_ctx_create(copts);
    g16_ctx_config_replace(ctx, &o->cfg);
    return ctx;
}

/* "options":{key:value,...} of every option but client.* (their effective values). */
static char *options_json(const bench_opts *o) {
    void *all = g16_config_json(&o->cfg, 0, -1);
    json_t *flat = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)all, k, v) {
        if (strncmp(k, "client.", 7))
            json_object_set(flat, k, json_object_get(v, "value"));
    }
    char *s = json_dumps(flat, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(flat);
    json_decref((json_t *)all);
    return s;
}

char *bench_json_string(const char *s) {
    json_t *j = json_string(s ? s : "");
    char *r = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    return r;
}

void bench_report(const bench_opts *o, const char *name, g16_curve curve, const char *extra,
                  const char *unit, double value) {
    cli_progress_clear(); /* stdout may be the same terminal */
    if (o->json) {
        char *opts = options_json(o);
        printf("{\"bench\":\"%s\",\"curve\":\"%s\",\"backend\":\"%s\",%s%s\"%s\":%.6g,\"options\":%s}\n", name,
               g16_curve_name(curve), o->backend, extra, extra[0] ? "," : "", unit, value, opts ? opts : "{}");
        free(opts);
    } else
        printf("%-18s %-10s %-5s %-40s %12.3f %s\n", name, g16_curve_name(curve), o->backend, extra,
               value, unit);
    fflush(stdout);
}

