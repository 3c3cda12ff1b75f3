/* `g16 bench`: option parsing and the dispatch to each bench (bench_main). */
#include "bench.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/progress.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

enum {
    B_JSON = CLI_ID, B_CURVE, B_LOG_N, B_GROUP, B_THREADS, B_BACKEND, B_REPS, B_ZKEY, B_KEY, B_WTNS, B_JOBS,
    B_PARTITIONS, B_WORKERS, B_WPD, B_SYNTH_THREADS, B_TIMELINE, B_BUDGET, B_WITNESSES, B_PROFILE, B_PRECOMPUTE,
    B_TABLE_C, B_STREAMED, B_CHUNK_LOG, B_NO_VERIFY, B_SYNTHETIC, B_SET, B_AB, B_SEED, B_ASSIGNMENT,
};
static const cli_opt BENCH_OPTS[] = {
    {"curve", B_CURVE, "bn254|bls12-381", "the curve (default bn254)"},
    {"log-n", B_LOG_N, "K", "2^K points, rows or constraints (1..30)"},
    {"json", B_JSON, NULL, "print the results as JSON"},
    {"backend", B_BACKEND, "cpu|cuda|auto", "where to run (default cpu)"},
    {"threads", B_THREADS, "T", "CPU threads (default: all)"},
    {"reps", B_REPS, "R", "repetitions"},
    {"group", B_GROUP, "g1|g2", "msm: the group (default g1)"},
    {"profile", B_PROFILE, "P", "msm: random|filecoin; prove --synthetic: dense|filecoin|sparse-b|porep"},
    {"seed", B_SEED, "S", "the seed of the random inputs"},
    {"zkey", B_ZKEY, "FILE", "prove, engine: the key (else a synthetic circuit)"},
    {"key", B_KEY, "FILE", "the same as --zkey; params: a bellperson .params (with --assignment)"},
    {"assignment", B_ASSIGNMENT, "FILE", "params: the partition (.assignment) to prove with --key"},
    {"wtns", B_WTNS, "FILE", "prove, engine: the witness"},
    {"synthetic", B_SYNTHETIC, NULL, "prove: a synthetic circuit, all in memory (--curve, --log-n, --profile)"},
    {"jobs", B_JOBS, "J", "engine: jobs"},
    {"partitions", B_PARTITIONS, "P", "engine: partitions per job"},
    {"workers", B_WORKERS, "W", "engine: workers"},
    {"workers-per-device", B_WPD, "W", "engine, cuda: workers per GPU"},
    {"synth-threads", B_SYNTH_THREADS, "S", "engine: synthesis threads"},
    {"witnesses", B_WITNESSES, "1..4", "engine: distinct witnesses"},
    {"timeline", B_TIMELINE, "FILE", "engine, params --partitions: per-partition stage timings (JSON lines)"},
    {"budget", B_BUDGET, "BYTES", "engine: the byte budget"},
    {"no-verify", B_NO_VERIFY, NULL, "engine: skip the verification of each proof"},
    {"precompute", B_PRECOMPUTE, NULL, "cuda: window tables of the key's bases"},
    {"table-c", B_TABLE_C, "C", "msm, cuda: the window tables' c (implies --precompute)"},
    {"streamed", B_STREAMED, NULL, "msm, cuda: bases streamed from host memory"},
    {"chunk-log", B_CHUNK_LOG, "K", "msm, cuda: a context of 2^K points, resident bases in chunks"},
    {"set", B_SET, "KEY=VALUE", "a library option (docs/config.md), over the environment; repeatable"},
    {"ab", B_AB, "KEY=VALUE", "params, msm (cuda): odd reps with this option changed (A/B in one run)"},
    {NULL, 0, NULL, NULL},
};
const cli_cmd CLI_BENCH = {
    .name = "bench",
    .summary = "Benchmarks: arith, ntt, msm, prove, params, engine.",
    .synopsis = "arith|ntt|msm|prove|params|engine [OPTIONS]",
    .description = "prove --synthetic --curve C --log-n K builds the circuit in memory; engine takes --zkey and "
                   "--wtns, or --log-n to build all in memory. Options name the benches they apply to.",
    .opts = BENCH_OPTS,
    .example = "g16 bench msm --curve bn254 --log-n 16 --json\n"
               "g16 bench prove --synthetic --curve bls12-381 --log-n 14\n"
               "g16 bench params --log-n 14 --reps 3 --json\n"
               "g16 bench engine --log-n 10 --jobs 2 --partitions 4 --backend cpu",
};

#define BENCH_MAX_LOG_N 30

static int bench_run(bench_opts *op, const char *what);

int bench_main(int argc, char **argv) {
    bench_opts o = {.group = "g1", .backend = "cpu", .log_n = -1};
    g16_status cst = {0};
    g16_config_init(&o.cfg);
    if (g16_config_from_env(&o.cfg, &cst) != G16_OK) {
        fprintf(stderr, "g16 bench: %s\n", cst.msg);
        return 2;
    }
    cli_parse p;
    cli_init(&p, &CLI_BENCH, argc, argv, 0);
    int c;
    long long v;
    unsigned long long u;
    while ((c = cli_next(&p)) > 0) {
        const char *a = p.arg;
        switch (c) {
        case B_JSON: o.json = 1; break;
        case B_CURVE:
            if (g16_curve_from_name(&o.curve, a) != G16_OK)
                return cli_usage_error(&CLI_BENCH, "unknown curve '%s' (bn254, bls12-381)", a);
            o.curve_set = 1;
            break;
        case B_LOG_N:
            /* 2^log_n points or rows: 1 .. BENCH_MAX_LOG_N (a shift of a
             * wider exponent is undefined, and no bench fits 2^31 anyway). */
            if (!cli_int(&p, 1, BENCH_MAX_LOG_N, &v))
                return 2;
            o.log_n = (int)v;
            break;
        case B_GROUP: o.group = a; break;
        case B_BACKEND: o.backend = a; break;
        case B_ZKEY:
        case B_KEY: o.zkey = a; break;
        case B_WTNS: o.wtns = a; break;
        case B_ASSIGNMENT: o.assignment = a; break;
        case B_TIMELINE: o.timeline = a; break;
        case B_PROFILE: o.profile = a; break;
        case B_PRECOMPUTE: o.precompute = 1; break;
        case B_STREAMED: o.streamed = 1; break;
        case B_NO_VERIFY: o.no_verify = 1; break;
        case B_SYNTHETIC: o.synthetic = 1; break;
        case B_THREADS:
        case B_REPS:
        case B_JOBS:
        case B_PARTITIONS:
        case B_WORKERS:
        case B_WPD:
        case B_SYNTH_THREADS:
        case B_WITNESSES:
        case B_TABLE_C:
        case B_CHUNK_LOG: {
            if (!cli_int(&p, 0, 1 << 20, &v))
                return 2;
            int *dst = c == B_THREADS ? &o.threads : c == B_REPS ? &o.reps : c == B_JOBS ? &o.jobs
                       : c == B_PARTITIONS ? &o.partitions : c == B_WORKERS ? &o.workers
                       : c == B_WPD ? &o.workers_per_device : c == B_SYNTH_THREADS ? &o.synth_threads
                       : c == B_WITNESSES ? &o.witnesses : c == B_TABLE_C ? &o.table_c : &o.chunk_log;
            *dst = (int)v;
            if (c == B_TABLE_C)
                o.precompute = 1;
            break;
        }
        case B_BUDGET:
            if (!cli_u64(&p, &u))
                return 2;
            o.budget = u;
            break;
        case B_SEED:
            if (!cli_u64(&p, &u))
                return 2;
            o.seed = u;
            o.seed_set = 1;
            break;
        case B_AB:
            o.ab = a;
            break;
        case B_SET: {
            char key[128];
            const char *eq = strchr(a, '=');
            if (!eq || (size_t)(eq - a) >= sizeof key)
                return cli_usage_error(&CLI_BENCH, "--set '%s': expected KEY=VALUE", a);
            memcpy(key, a, (size_t)(eq - a));
            key[eq - a] = 0;
            if (g16_config_set(&o.cfg, key, eq + 1, G16_SRC_FLAG, &cst) != G16_OK)
                return cli_usage_error(&CLI_BENCH, "--set: %s", cst.msg);
            break;
        }
        }
    }
    if (c != CLI_END)
        return cli_exit(c);
    if (o.ab) { /* after every --set: B is A with this one option changed */
        char key[128];
        const char *eq = strchr(o.ab, '=');
        if (!eq || (size_t)(eq - o.ab) >= sizeof key)
            return cli_usage_error(&CLI_BENCH, "--ab '%s': expected KEY=VALUE", o.ab);
        memcpy(key, o.ab, (size_t)(eq - o.ab));
        key[eq - o.ab] = 0;
        o.cfg_b = o.cfg;
        if (g16_config_set(&o.cfg_b, key, eq + 1, G16_SRC_FLAG, &cst) != G16_OK)
            return cli_usage_error(&CLI_BENCH, "--ab: %s", cst.msg);
    }
    int i = p.optind;
    if (i >= argc) {
        cli_usage(stderr, &CLI_BENCH);
        return cli_usage_error(&CLI_BENCH, "needs a bench: arith, ntt, msm, prove, params or engine");
    }
    const char *what = argv[i++];
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
    if (!strcmp(what, "params"))
        return bench_params(&o);
    if (!strcmp(what, "engine"))
        return bench_engine(&o);
    static const char *const names[] = {"arith", "ntt", "msm", "prove", "params", "engine"};
    const char *near = cli_nearest(what, names, 6);
    return cli_usage_error(&CLI_BENCH, "unknown bench '%s'%s%s%s", what, near ? "; did you mean '" : "",
                           near ? near : "", near ? "'?" : "");
}
