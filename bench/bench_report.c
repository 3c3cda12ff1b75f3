/* What every bench shares: printing one result (bench_report) and the
 * scalar profile of --profile (bench_profile); declared in bench.h. */
#include <string.h>

#include "bench.h"

int bench_profile(const bench_opts *o) {
    if (!o->profile || !strcmp(o->profile, "random"))
        return 0;
    return !strcmp(o->profile, "filecoin") ? 1 : -1;
}

void bench_report(const bench_opts *o, const char *name, g16_curve curve, const char *extra,
                  const char *unit, double value) {
    if (o->json)
        printf("{\"bench\":\"%s\",\"curve\":\"%s\",\"backend\":\"%s\",%s%s\"%s\":%.6g}\n", name,
               g16_curve_name(curve), o->backend, extra, extra[0] ? "," : "", unit, value);
    else
        printf("%-18s %-10s %-5s %-40s %12.3f %s\n", name, g16_curve_name(curve), o->backend, extra,
               value, unit);
    fflush(stdout);
}
