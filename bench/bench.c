/* `g16 bench`: option parsing and the dispatch to each bench (bench_main). */
#include "bench.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/progress.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

static int usage(void) {
    fprintf(stderr,
            "usage: g16 bench <arith|ntt|msm|prove|engine> [--curve bn254|bls12-381] [--log-n K]\n"
            "                 [--group g1|g2] [--threads T] [--backend cpu|cuda|auto]\n"
            "                 [--reps R] [--zkey K --wtns W] [--json]\n"
            "                 prove --synthetic --curve C --log-n K [--profile P] [--seed S]: all in memory\n"
            "                 engine: (--zkey|--key K --wtns W | --log-n N [--curve C]) [--jobs J] [--partitions P]\n"
            "                         [--workers W] [--workers-per-device W] [--synth-threads S] [--no-verify]\n"
            "                         [--timeline FILE] [--budget BYTES] [--witnesses 1..4]: --log-n builds all\n"
            "                         in memory; --precompute (cuda): window tables of the key's bases\n"
            "                 msm: [--profile random|filecoin] [--streamed | --precompute [--table-c C] (cuda)]\n"
            "                      [--chunk-log K] (cuda: a context of 2^K points, resident bases in chunks)\n"
            "                 prove --backend cuda: [--precompute] (window tables of the key's bases)\n"
            "                 any: [--set KEY=VALUE]... (options, docs/config.md: gpu.msm_window_bits=20,\n"
            "                      bench.gpu_device=1, bench.stream_bases=1, ...; over the environment)\n");
    return 2;
}

#define BENCH_MAX_LOG_N 30

static int bench_run(bench_opts *op, const char *what);

int bench_main(int argc, char **argv) {
    if (argc < 2)
        return usage();
    bench_opts o = {.group = "g1", .backend = "cpu", .log_n = -1};
    g16_status cst = {0};
    g16_config_init(&o.cfg);
    if (g16_config_from_env(&o.cfg, &cst) != G16_OK) {
        fprintf(stderr, "g16 bench: %s\n", cst.msg);
        return 2;
    }
    const char *what = argv[1];
    int i;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--curve") && v) {
            if (g16_curve_from_name(&o.curve, v) != G16_OK) {
                fprintf(stderr, "g16 bench: unknown curve '%s'\n", v);
                return 2;
            }
            o.curve_set = 1;
            i++;
        } else if (!strcmp(a, "--log-n") && v) {
            /* 2^log_n points or rows: 1 .. BENCH_MAX_LOG_N (a shift of a
             * wider exponent is undefined, and no bench fits 2^31 anyway). */
            char *end;
            long k = strtol(v, &end, 10);
            if (end == v || *end || k < 1 || k > BENCH_MAX_LOG_N) {
                fprintf(stderr, "g16 bench: --log-n takes an integer in 1..%d, not '%s'\n", BENCH_MAX_LOG_N, v);
                return 2;
            }
            o.log_n = (int)k;
            i++;
        } else if (!strcmp(a, "--group") && v) {
            o.group = v;
            i++;
        } else if (!strcmp(a, "--threads") && v) {
            o.threads = atoi(v);
            i++;
        } else if (!strcmp(a, "--backend") && v) {
            o.backend = v;
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            o.reps = atoi(v);
            i++;
        } else if ((!strcmp(a, "--zkey") || !strcmp(a, "--key")) && v) {
            o.zkey = v;
            i++;
        } else if (!strcmp(a, "--wtns") && v) {
            o.wtns = v;
            i++;
        } else if (!strcmp(a, "--jobs") && v) {
            o.jobs = atoi(v);
            i++;
        } else if (!strcmp(a, "--partitions") && v) {
            o.partitions = atoi(v);
            i++;
        } else if (!strcmp(a, "--workers") && v) {
            o.workers = atoi(v);
            i++;
        } else if (!strcmp(a, "--workers-per-device") && v) {
            o.workers_per_device = atoi(v);
            i++;
        } else if (!strcmp(a, "--synth-threads") && v) {
            o.synth_threads = atoi(v);
            i++;
        } else if (!strcmp(a, "--timeline") && v) {
            o.timeline = v;
            i++;
        } else if (!strcmp(a, "--budget") && v) {
            o.budget = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--witnesses") && v) {
            o.witnesses = atoi(v);
            i++;
        } else if (!strcmp(a, "--profile") && v) {
            o.profile = v;
            i++;
        } else if (!strcmp(a, "--precompute")) {
            o.precompute = 1;
        } else if (!strcmp(a, "--table-c") && v) {
            o.precompute = 1;
            o.table_c = atoi(v);
            i++;
        } else if (!strcmp(a, "--streamed")) {
            o.streamed = 1;
        } else if (!strcmp(a, "--chunk-log") && v) {
            o.chunk_log = atoi(v);
            i++;
        } else if (!strcmp(a, "--no-verify")) {
            o.no_verify = 1;
        } else if (!strcmp(a, "--synthetic")) {
            o.synthetic = 1;
        } else if (!strcmp(a, "--set") && v) {
            char key[128];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof key) {
                fprintf(stderr, "g16 bench: --set '%s': expected KEY=VALUE\n", v);
                return 2;
            }
            memcpy(key, v, (size_t)(eq - v));
            key[eq - v] = 0;
            if (g16_config_set(&o.cfg, key, eq + 1, G16_SRC_FLAG, &cst) != G16_OK) {
                fprintf(stderr, "g16 bench: --set: %s\n", cst.msg);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            o.seed = strtoull(v, NULL, 0);
            o.seed_set = 1;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "g16 bench: unknown option '%s'\n", a);
            return usage();
        } else {
            break;
        }
    }
    o.argc = argc - i;
    o.argv = argv + i;
    /* The progress line on a terminal (cli/progress.h): setup, synthesis,
     * proofs and engine jobs report to it; the results stay on stdout. */
    char title[64];
    snprintf(title, sizeof title, "g16 bench %s", what);
    cli_progress_begin(title);
    int rc = bench_run(&o, what);
    cli_progress_end();
    return rc;
}

static int bench_run(bench_opts *op, const char *what) {
    bench_opts o = *op;
    if (!strcmp(what, "arith"))
        return !strcmp(o.backend, "cuda") ? bench_arith_cuda(&o) : bench_arith(&o);
    if (!strcmp(what, "ntt"))
        return !strcmp(o.backend, "cuda") ? bench_ntt_cuda(&o) : bench_ntt(&o);
    if (!strcmp(what, "msm")) {
        if (bench_profile(&o) < 0) {
            fprintf(stderr, "g16 bench msm: unknown --profile '%s'\n", o.profile);
            return 2;
        }
        g16_gpu_backend be;
        g16_status st = {0};
        if (g16_gpu_backend_choose(o.backend, &be, &st) != G16_OK) {
            fprintf(stderr, "g16 bench msm: %s\n", st.msg);
            return st.code == G16_ERR_INVALID_ARG ? 2 : 1;
        }
        o.backend = be == G16_GPU_BACKEND_CUDA ? "cuda" : "cpu";
        return be == G16_GPU_BACKEND_CUDA ? bench_msm_cuda(&o) : bench_msm(&o);
    }
    if (!strcmp(what, "prove"))
        return bench_prove(&o);
    if (!strcmp(what, "engine"))
        return bench_engine(&o);
    return usage();
}
