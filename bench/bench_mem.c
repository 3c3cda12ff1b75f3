/* Per-phase peak RSS for the benchmarks (Linux): bench_mem_begin resets the
 * kernel's high-water mark (writing "5" to /proc/self/clear_refs sets VmHWM
 * to the current RSS), bench_mem_phase reads VmHWM back after the phase.
 * Each phase's peak goes to stderr (GB and bytes per unit, e.g. per
 * constraint, above the RSS at the first bench_mem_begin) and into a JSON
 * fragment "rss_start_kb":K,"rss_<phase>_kb":K,... for the report. Elsewhere the readings are -1 and nothing fails. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli/progress.h"

/* "Key:   123 kB" from /proc/self/status, -1 if absent. */
static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') {
            if (sscanf(line + kl + 1, "%ld", &v) != 1)
                v = -1;
            break;
        }
    fclose(f);
    return v;
}

long bench_rss_kb(void) { return status_kb("VmRSS"); }

void bench_mem_begin(bench_mem *m) {
    if (!m->start_kb) { /* the first call: the process before the phases */
        m->start_kb = bench_rss_kb();
        size_t len = strlen(m->json);
        snprintf(m->json + len, sizeof m->json - len, "%s\"rss_start_kb\":%ld", len ? "," : "", m->start_kb);
    }
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    (void)m;
}

long bench_mem_phase(bench_mem *m, const char *phase) {
    long hwm = status_kb("VmHWM"), rss = bench_rss_kb();
    if (hwm > m->peak_kb)
        m->peak_kb = hwm;
    size_t len = strlen(m->json);
    snprintf(m->json + len, sizeof m->json - len, "%s\"rss_%s_kb\":%ld", len ? "," : "", phase, hwm);
    if (m->units > 0) {
        cli_progress_clear();
        fprintf(stderr, "  rss %-10s peak %7.2f GB (%6.0f B/constraint above the start), after %7.2f GB\n", phase,
                (double)hwm * 1024 / 1e9, (double)(hwm - m->start_kb) * 1024 / m->units, (double)rss * 1024 / 1e9);
    }
    bench_mem_begin(m); /* the next phase's peak starts from here */
    return hwm;
}
