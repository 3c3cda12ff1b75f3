/* g16 bench prove --synthetic --curve C --log-n K --profile P [--seed S]
 *                  [--reps R] [--threads T] [--backend cpu|cuda|auto] [--json]
 * Everything in memory, no files (at 2^27 a key is 50-100 GB): a synthetic
 * circuit and witness (synth_generate_mem), the insecure test setup into an
 * anonymous mapping (aligned sections, GPU fixed-base when a device is
 * present), the key loaded over those bytes (no copy), the circuit freed,
 * then R proofs after a warm-up, the first verified. Reports the setup,
 * synthesis and load times, the median proof's stages, the peak RSS and the
 * peak RSS of each phase (bench_mem.c; docs/groth16.md has the model).
 * cuda: the key is loaded without the prover's coefficient rows
 * (GROTH16_KEY_DEFER_PREP); bench_prove_cuda uploads the bases, releases
 * their host pages, then prepares the rows and releases the coefficient
 * section, so the peak is the key image + witness (2^27 fits 125 GiB).
 * bench.keep_bases = 1 ($G16_BENCH_KEEP_BASES) keeps the whole key (no
 * deferral, no drop). The deferral applies at 2^27 and with bench.lowmem = 1
 * only: a deferred
 * key's rows are built after the upload, so the GPU synthesis is off. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "bench_synth.h"
#include "cli/progress.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long peak_rss_kb(void) {
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int bench_prove_synthetic(const bench_opts *o) {
    if (o->log_n < 3 || o->log_n > 28) {
        fprintf(stderr, "usage: g16 bench prove --synthetic --curve C --log-n K (3..28) [--profile dense|filecoin|"
                        "sparse-b|porep] [--seed S] [--reps R] [--json]\n");
        return 2;
    }
    /* The prover's backend as bench_prove's: cuda (bench_prove_cuda.c), or
     * auto = cuda when a GPU is present. The setup takes the GPU whenever one
     * is present. */
    int cuda = !strcmp(o->backend, "cuda") || (!strcmp(o->backend, "auto") && g16_gpu_count() > 0);
    if (!cuda && strcmp(o->backend, "cpu") != 0 && strcmp(o->backend, "auto") != 0) {
        fprintf(stderr, "g16 bench prove: unknown backend '%s' (cpu|cuda|auto)\n", o->backend);
        return 2;
    }
    synth_opts so = {.curve = o->curve_set ? o->curve : G16_CURVE_BN254, .log_n = o->log_n,
                     .profile = SYNTH_FILECOIN, .partitions = 1, .seed = o->seed_set ? o->seed : 1,
                     .progress = cli_progress};
    if (o->profile && synth_profile_from_name(&so.profile, o->profile) != G16_OK) {
        fprintf(stderr, "g16 bench prove: unknown profile '%s' (dense, filecoin, sparse-b, porep)\n", o->profile);
        return 2;
    }
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    g16_status st = {0};
    bench_synth_key sk = {0};
    g16_witness *w = NULL;
    int reps = o->reps > 0 ? o->reps : 3, rc = 2, verified = 0;
    if (reps > 256)
        reps = 256;
    g16_prove_stats s[256];
    double total[256];
    if (!ctx)
        return 2;

    /* cuda: the bases go to the device and their host pages are released
     * (bench.keep_bases = 1 keeps them) before the prover's coefficient
     * rows are built (GROTH16_KEY_DEFER_PREP), so the two never coexist. */
    int keep = g16_config_bool(&o->cfg, G16_OPT_BENCH_KEEP_BASES);
    int stream = g16_config_bool(&o->cfg, G16_OPT_BENCH_STREAM_BASES);
    int drop = cuda && !keep && !stream;
    /* Deferring the rows also leaves them off the device (no GPU synthesis):
     * only where host memory needs it, 2^27 or bench.lowmem = 1. */
    int defer = drop && (o->log_n >= 27 || g16_config_bool(&o->cfg, G16_OPT_BENCH_LOWMEM));
    /* Per-phase peak RSS (bench_mem.c), in bytes per domain point. */
    bench_mem bm = {.units = (double)(1ull << o->log_n)};
    bench_mem_begin(&bm);
    if (bench_synth_key_make(ctx, &so, defer ? GROTH16_KEY_DEFER_PREP : 0, 0, &bm, &sk, &st) != G16_OK)
        goto fail;
    double t0 = g16_now_ms();
    if (groth16_witness_from_frvec(&w, &sk.w0, &st) != G16_OK)
        goto fail;
    double synth_ms = sk.circuit_ms, setup_ms = sk.setup_ms, load_ms = sk.load_ms + (g16_now_ms() - t0);
    const synth_stats ss = sk.ss;
    const groth16_setup_info si = sk.si;
    g16_key *key = sk.key;
    size_t len = sk.len;
    bench_mem_phase(&bm, "load");
    cli_progress_clear();
    fprintf(stderr, "bench prove --synthetic: 2^%d %s: synth %.0f ms, setup %.0f ms (%s), load %.0f ms, key %.2f GB\n",
            o->log_n, o->profile ? o->profile : "filecoin", synth_ms, setup_ms, si.used_gpu ? "cuda" : "cpu", load_ms,
            (double)len / 1e9);
    if (cuda) {
        /* bench_prove_cuda verifies each of its proofs. */
        rc = bench_prove_cuda(o, ctx, key, w, &bm, drop);
        char extra[2048];
        snprintf(extra, sizeof extra,
                 "\"synthetic\":true,\"profile\":\"%s\",\"log_n\":%d,\"constraints\":%u,\"wires\":%u,"
                 "\"circuit_ms\":%.1f,\"setup_backend\":\"%s\",\"setup_lagrange_ms\":%.1f,\"setup_points_ms\":%.1f,"
                 "\"key_bytes\":%zu,\"load_ms\":%.1f,\"peak_rss_kb\":%ld,%s",
                 o->profile ? o->profile : "filecoin", o->log_n, ss.n_constraints, ss.n_wires, synth_ms,
                 si.used_gpu ? "cuda" : "cpu", si.lagrange_ms, si.points_ms, len, load_ms, peak_rss_kb(), bm.json);
        bench_report(o, "setup_synthetic", so.curve, extra, "ms", setup_ms);
        goto done;
    }
    /* The CPU figure: the three stages; the first proof verified below. */
    g16_prove_opts po;
    g16_prove_opts_init(&po);
    po.backend = G16_BACKEND_CPU;
    po.verify = 0;
    po.progress = cli_progress;
    for (int i = -1; i < reps; i++) {
        g16_result *res = NULL;
        g16_prove_stats ps;
        if (g16_prove(ctx, &res, key, w, &po, &ps) != G16_OK) {
            g16_ctx_last_error(ctx, st.msg, sizeof st.msg);
            goto fail;
        }
        if (i == -1) {
            g16_err ve = groth16_result_verify(key, res, &st);
            verified = ve == G16_OK;
            if (!verified) {
                g16_result_free(res);
                goto fail;
            }
        } else {
            s[i] = ps;
            total[i] = ps.total_ms;
        }
        g16_result_free(res);
    }
    bench_mem_phase(&bm, "prove");
    double sorted[256];
    memcpy(sorted, total, (size_t)reps * sizeof(double));
    qsort(sorted, (size_t)reps, sizeof(double), cmp_dbl);
    double med = sorted[reps / 2];
    int mi = 0;
    for (int i = 0; i < reps; i++)
        if (total[i] == med)
            mi = i;
    char extra[2048];
    snprintf(extra, sizeof extra,
             "\"synthetic\":true,\"profile\":\"%s\",\"log_n\":%d,\"constraints\":%u,\"wires\":%u,\"threads\":%d,"
             "\"reps\":%d,\"circuit_ms\":%.1f,\"setup_ms\":%.1f,\"setup_backend\":\"%s\",\"setup_lagrange_ms\":%.1f,"
             "\"setup_points_ms\":%.1f,\"key_bytes\":%zu,\"load_ms\":%.1f,\"verified\":%s,\"synth_ms\":%.2f,"
             "\"ntt_ms\":%.2f,\"msm_ms\":%.2f,\"finalize_ms\":%.2f,\"min_ms\":%.2f,\"peak_rss_kb\":%ld,%s",
             o->profile ? o->profile : "filecoin", o->log_n, ss.n_constraints, ss.n_wires, g16_ctx_threads(ctx), reps,
             synth_ms, setup_ms, si.used_gpu ? "cuda" : "cpu", si.lagrange_ms, si.points_ms, len, load_ms,
             verified ? "true" : "false", s[mi].synth_ms, s[mi].ntt_ms, s[mi].msm_ms, s[mi].finalize_ms, sorted[0],
             peak_rss_kb(), bm.json);
    bench_report(o, "prove", so.curve, extra, "ms", med);
    rc = 0;
    goto done;
fail:
    cli_progress_clear();
    fprintf(stderr, "g16 bench prove --synthetic: %s\n", st.msg[0] ? st.msg : "failed");
done:
    g16_witness_free(w);
    bench_synth_key_free(&sk);
    g16_ctx_destroy(ctx);
    return rc;
}
