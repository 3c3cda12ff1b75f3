/* g16 prove | verify | info | zkey export-vk | setup */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "cli.h"
#include "progress.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "util/file.h"
#include "groth16/prover.h"
#include "util/util.h"

int g16_cli_outputs_ok(const char *cmd, const char *const *inputs, size_t n_inputs, const char *const *outputs,
                       size_t n_outputs) {
    g16_status st = {0};
    if (g16_check_outputs(inputs, n_inputs, outputs, n_outputs, &st) == G16_OK)
        return 1;
    fprintf(stderr, "g16 %s: %s; refusing to overwrite it\n", cmd, st.msg);
    return 0;
}

int g16_cli_mkdirs(const char *dir, char *why, size_t why_len) {
    char p[PATH_MAX];
    struct stat sb;
    if (!*dir) {
        snprintf(why, why_len, "empty folder name");
        return -1;
    }
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        snprintf(why, why_len, "%s", strerror(ENAMETOOLONG));
        return -1;
    }
    for (char *s = p + 1;; s++) {
        int end = !*s;
        if (*s == '/' || end) {
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST) {
                snprintf(why, why_len, "cannot create %s: %s", p, strerror(errno));
                return -1;
            }
            if (stat(p, &sb) || !S_ISDIR(sb.st_mode)) {
                snprintf(why, why_len, "%s exists and is not a folder", p);
                return -1;
            }
            if (end)
                break;
            *s = '/';
        }
    }
    return 0;
}

static void print_ctx_error(g16_ctx *ctx, const char *cmd) {
    char msg[512];
    g16_err e = g16_ctx_last_error(ctx, msg, sizeof msg);
    fprintf(stderr, "g16 %s: %s (%s)\n", cmd, msg[0] ? msg : g16_err_str(e), g16_err_str(e));
}

/* Decimal (or 0x-hex) integer below 2^256 into 32 little-endian bytes. */
static int parse_u256(uint8_t out[32], const char *s) {
    memset(out, 0, 32);
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned base = hex ? 16 : 10;
    const char *p = hex ? s + 2 : s;
    if (!*p)
        return 0;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (hex && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (hex && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return 0;
        unsigned carry = d;
        for (int i = 0; i < 32; i++) {
            unsigned v = out[i] * base + carry;
            out[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry)
            return 0;
    }
    return 1;
}

/* Outputs proof-<i>.json, public-<i>.json in out_dir (*outp_out: 2 n
 * paths, proof then public, calloc'd; the caller frees it either way):
 * none may be an input. 0 when out of memory or one is an input
 * (g16_cli_outputs_ok says which). */
static int batch_out_paths(const char *zkey, const char **wtns, size_t n, const char *out_dir,
                           char (**outp_out)[4096]) {
    const char **outs = calloc(2 * n, sizeof *outs);
    char (*outp)[4096] = calloc(2 * n, sizeof *outp);
    int paths_ok = outs && outp;
    for (size_t i = 0; paths_ok && i < 2 * n; i++) {
        snprintf(outp[i], sizeof outp[i], "%s/%s-%zu.json", out_dir, i % 2 ? "public" : "proof", i / 2);
        outs[i] = outp[i];
    }
    const char **ins = calloc(n + 1, sizeof *ins);
    if (paths_ok && ins) {
        ins[0] = zkey;
        memcpy(ins + 1, wtns, n * sizeof *ins);
        paths_ok = g16_cli_outputs_ok("prove --batch", ins, n + 1, outs, 2 * n);
    }
    free(ins);
    free(outs);
    *outp_out = outp;
    return paths_ok;
}

/* --verbose: the engine's backend, its number of workers and the key's tier. */
static void print_batch_engine(g16_engine *eng) {
    char *sj = NULL;
    if (g16_engine_status_json(eng, &sj) == G16_OK && sj) {
        const char *b = strstr(sj, "\"backend\":\""), *t = strstr(sj, "\"tier\":\"");
        int nw = 0;
        for (const char *q = strstr(sj, "\"workers\":["); q && (q = strstr(q, "\"device\":")) != NULL; q++)
            nw++;
        fprintf(stderr, "g16 prove --batch: backend %.*s, %d workers, key tier %.*s\n", b ? (int)strcspn(b + 11, "\"") : 1,
                b ? b + 11 : "?", nw, t ? (int)strcspn(t + 8, "\"") : 1, t ? t + 8 : "?");
    }
    g16_free(sj);
}

/* Writes proof to paths[0] and pub to paths[1]; nonzero after printing
 * why. The pair: both files complete on disk before either is renamed in. */
static int write_pair(char (*paths)[4096], const char *proof, const char *pub) {
    const char *texts[2] = {proof, pub};
    g16_atomic_file af[2];
    g16_status wst = {0};
    int opened = 0;
    g16_err werr = G16_OK;
    for (int k = 0; k < 2 && !werr; k++) {
        if ((werr = g16_atomic_begin(&af[k], paths[k], &wst)))
            break;
        opened = k + 1;
        FILE *f = g16_atomic_stream(&af[k]);
        af[k].failed = !f || fputs(texts[k], f) < 0;
        werr = g16_atomic_finish(&af[k], &wst);
    }
    for (int k = 0; k < opened; k++) {
        if (!werr)
            werr = g16_atomic_commit(&af[k], &wst);
        else
            g16_atomic_abort(&af[k]);
    }
    if (werr) {
        fprintf(stderr, "g16 prove --batch: %s\n", wst.msg);
        return 1;
    }
    return 0;
}

/* g16 prove's options (both forms; the batch ones need --batch). */
enum {
    P_TRUSTED = CLI_ID, P_NO_VERIFY, P_BACKEND, P_DEVICE, P_STREAM_BASES, P_TEST_RS, P_BATCH, P_OUT_DIR,
    P_WORKERS, P_WPD, P_DEVICES, P_SYNTH_THREADS, P_BUDGET, P_DEVICE_BUDGET, P_TIMELINE, P_PARAMS, P_INPUT, P_WITGEN,
    P_EVENTS,
};
static const cli_opt PROVE_OPTS[] = {
    {"verbose", 'v', NULL, "print the stages and their timings on stderr"},
    {"backend", P_BACKEND, "cpu|cuda|auto", "where to prove (default auto: the GPU when there is one, else the CPU)"},
    {"device", P_DEVICE, "N", "the GPU to use (default 0)"},
    {"stream-bases", P_STREAM_BASES, NULL, "cuda: stream the key's points from host memory instead of uploading them"},
    {"trusted-key", P_TRUSTED, NULL, "skip the point checks of the key's large sections (a key you made)"},
    {"no-verify", P_NO_VERIFY, NULL, "write the proof without checking it first (default: every proof is checked)"},
    {"insecure-test-rs", P_TEST_RS, "R S", "tests only: fixed blinding scalars r and s (NOT zero-knowledge)"},
    {"batch", P_BATCH, NULL, "prove every witness against the one key (an engine job; see --out-dir)"},
    {"out-dir", P_OUT_DIR, "DIR", "--batch: write proof-<i>.json and public-<i>.json here (created if missing)"},
    {"workers", P_WORKERS, "W", "--batch: CPU prover workers (default 1)"},
    {"workers-per-device", P_WPD, "W", "--batch, cuda: workers per GPU (default 2)"},
    {"devices", P_DEVICES, "N", "--batch, cuda: use the first N GPUs (default all)"},
    {"synth-threads", P_SYNTH_THREADS, "S", "--batch: synthesis threads (default 1)"},
    {"budget", P_BUDGET, "BYTES", "--batch: the engine's byte budget for keys and working sets (0: no limit)"},
    {"device-budget", P_DEVICE_BUDGET, "BYTES", "--batch, cuda: bytes per GPU (0: no limit)"},
    {"timeline", P_TIMELINE, "FILE", "--batch: write the stage spans here (Chrome trace event JSON)"},
    {"events", P_EVENTS, "FILE", "--batch: stream each stage's begin and end here as they happen (JSON lines, "
                                 "docs/engine.md)"},
    {"input", P_INPUT, "input.json", "the circuit's inputs: the witness is generated (with --witness-gen; then "
                                     "no witness operand)"},
    {"witness-gen", P_WITGEN, "GEN", "circom's witness generator for --input: its .wasm (run by node) or C++ binary "
                                     "(docs/witgen.md)"},
    {"params", P_PARAMS, "key.params", "a bellperson partition: --params <key.params> <part.assignment> <proof.bin> "
                                       "<public.json> (docs/formats.md; its options: --backend, --no-verify, "
                                       "--subgroup-check, --no-subgroup-check, --insecure-test-rs)"},
    {NULL, 0, NULL, NULL},
};
const cli_cmd CLI_PROVE = {
    .name = "prove",
    .summary = "Prove: a .zkey and a .wtns in, proof.json and public.json out (rapidsnark's and snarkjs's arguments).",
    .synopsis = "[OPTIONS] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
                "--batch [OPTIONS] <circuit.zkey> <witness.wtns>... --out-dir DIR\n"
                "--params <key.params> [OPTIONS] <part.assignment> <proof.bin> <public.json>\n"
                "--input input.json --witness-gen GEN [OPTIONS] <circuit.zkey> <proof.json> <public.json>",
    .description = "The proof is checked against the key's verification key before it is written (--no-verify "
                   "skips that); proof.json and public.json are byte-for-byte what snarkjs writes. The key's "
                   "points are checked on load (canonical and on the curve; the proof's points are subgroup-checked before it "
                   "is written) unless --trusted-key, or unless the same "
                   "unchanged file passed those checks before (the checked-key cache, key.check_cache_dir).\n\n"
                   "With --batch every witness is one partition of one engine job; the i-th witness's proof goes "
                   "to DIR/proof-<i>.json and DIR/public-<i>.json (i from 0). Exit status 2 when any proof "
                   "failed; the others are written.",
    .opts = PROVE_OPTS,
    .example = "g16 prove circuit.zkey witness.wtns proof.json public.json\n"
               "g16 prove --batch circuit.zkey w0.wtns w1.wtns --out-dir proofs",
};

typedef struct prove_args {
    int verbose, trusted, no_verify, device, stream_bases, fixed_rs, batch;
    g16_engine_backend engine_backend;
    const char *backend, *out_dir, *timeline, *events;
    int workers, wpd, devices, synth;
    unsigned long long budget, dev_budget;
    uint8_t r_le[32], s_le[32];
    char **ops; /* the operands */
    int nops;
} prove_args;

/* --timeline FILE: the engine's spans as Chrome trace event JSON (the ring
 * holds the last 65536 spans: a larger batch keeps its end, with a warning).
 * Returns 0, or 1 after a message. */
static int write_trace(g16_engine *eng, const char *path) {
    char *tr = NULL;
    if (g16_engine_timeline_json(eng, 0, G16_TIMELINE_CHROME, &tr) != G16_OK) {
        fprintf(stderr, "g16 prove --batch: --timeline: out of memory\n");
        return 1;
    }
    if (strstr(tr, "\"dropped\":0}") == NULL)
        fprintf(stderr, "g16 prove --batch: --timeline: only the last 65536 spans are kept\n");
    FILE *f = fopen(path, "w");
    int bad = !f || fputs(tr, f) < 0 || fputc('\n', f) < 0;
    if (f && fclose(f))
        bad = 1;
    if (bad)
        fprintf(stderr, "g16 prove --batch: --timeline %s: %s\n", path, strerror(errno));
    g16_free(tr);
    return bad;
}

/* g16 prove --batch <zkey> <wtns...> --out-dir DIR: every witness a
 * partition of one engine job; writes proof-<i>.json and public-<i>.json
 * (i = the witness's position), each proof verified before it is written. */
static int cmd_prove_batch(const prove_args *pa) {
    const char *out_dir = pa->out_dir, *zkey = pa->nops ? pa->ops[0] : NULL, *timeline = pa->timeline;
    const char *events = pa->events;
    int verbose = pa->verbose, trusted = pa->trusted, no_verify = pa->no_verify, workers = pa->workers,
        synth = pa->synth, wpd = pa->wpd, devices = pa->devices;
    unsigned long long budget = pa->budget, dev_budget = pa->dev_budget;
    g16_engine_backend backend = pa->engine_backend;
    const char **wtns = (const char **)(pa->ops + 1);
    size_t n = pa->nops > 1 ? (size_t)pa->nops - 1 : 0;
    if (!zkey || !n || !out_dir) {
        cli_usage(stderr, &CLI_PROVE);
        return cli_usage_error(&CLI_PROVE, "--batch needs a key, at least one witness and --out-dir DIR");
    }
    if (pa->fixed_rs || pa->stream_bases || pa->device)
        return cli_usage_error(&CLI_PROVE, "--insecure-test-rs, --stream-bases and --device are not --batch options");
    char (*outp)[4096] = NULL;
    if (!batch_out_paths(zkey, wtns, n, out_dir, &outp)) {
        free(outp);
        return 2;
    }
    char why[PATH_MAX + 128];
    if (g16_cli_mkdirs(out_dir, why, sizeof why)) {
        fprintf(stderr, "g16 prove --batch: --out-dir %s: %s\n", out_dir, why);
        free(outp);
        return 2;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    g16_engine *eng = NULL;
    g16_engine_witness *ws = calloc(n, sizeof *ws);
    int rc = 2;
    uint64_t key_id, job;
    double t0 = g16_cli_now_ms();
    g16_engine_opts eo = {.workers = workers, .synth_threads = synth, .budget_bytes = budget, .no_verify = no_verify,
                          .backend = backend, .workers_per_device = wpd,
                          .devices = devices, .device_budget_bytes = dev_budget, .timeline_path = events};
    cli_progress_begin("g16 prove --batch");
    cli_progress(NULL, "loading the key", 0, 1);
    if (!ctx || !ws || g16_engine_create(ctx, &eng, &eo) != G16_OK)
        goto fail;
    if (g16_engine_key_add(eng, &key_id, zkey, trusted ? G16_KEY_TRUSTED : 0, G16_TIER_MMAP) != G16_OK)
        goto fail;
    if (verbose) { /* which backend the engine chose, and the key's tier */
        cli_progress_clear();
        print_batch_engine(eng);
    }
    for (size_t i = 0; i < n; i++)
        ws[i].path = wtns[i];
    if (g16_engine_submit(eng, &job, key_id, ws, n, G16_PRIORITY_NORMAL, 0) != G16_OK)
        goto fail;
    g16_engine_job_info ji;
    if (cli_progress_on()) { /* the finished partitions, polled */
        g16_err werr;
        cli_progress(NULL, "proofs", 0, n);
        while ((werr = g16_engine_wait(eng, job, 100)) == G16_ERR_TIMEOUT)
            if (g16_engine_job_get_info(eng, &ji, job) == G16_OK)
                cli_progress(NULL, "proofs", ji.proved + ji.failed, ji.partitions);
        cli_progress_end();
        if (werr != G16_OK)
            goto fail;
    } else if (g16_engine_wait(eng, job, -1) != G16_OK)
        goto fail;
    if (g16_engine_job_get_info(eng, &ji, job) != G16_OK)
        goto fail;
    rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        char *proof = NULL, *pub = NULL;
        g16_partition_stats ps;
        if (g16_engine_partition_result(eng, &proof, &pub, &ps, job, i) != G16_OK) {
            char msg[512];
            g16_ctx_last_error(ctx, msg, sizeof msg);
            fprintf(stderr, "g16 prove --batch: %s: %s\n", wtns[i], msg);
            rc = 2;
            continue;
        }
        if (write_pair(outp + 2 * i, proof, pub))
            rc = 2;
        if (verbose)
            fprintf(stderr,
                    "g16 prove --batch: %u (%s): queue %.1f ms, synthesis %.1f ms, device %.1f ms, finalize %.1f ms, "
                    "verify %.1f ms, worker %d\n",
                    i, wtns[i], ps.queue_ms, ps.synth_ms, ps.device_ms, ps.finalize_ms, ps.verify_ms, ps.worker);
        g16_free(proof);
        g16_free(pub);
    }
    if (timeline && write_trace(eng, timeline))
        rc = 2;
    if (verbose || ji.state != G16_JOB_DONE)
        fprintf(stderr, "g16 prove --batch: %u of %u proofs, %.0f ms%s%s\n", ji.proved, ji.partitions,
                g16_cli_now_ms() - t0, ji.msg[0] ? "; first failure: " : "", ji.msg);
    goto done;
fail:
    cli_progress_end();
    if (ctx)
        print_ctx_error(ctx, "prove --batch");
done:
    cli_progress_end();
    g16_engine_destroy(eng, 0);
    g16_ctx_destroy(ctx);
    free(ws);
    free(outp);
    return rc;
}

/* Progress lines of one proof (the device prover's events). */
typedef struct prove_ui {
    int progress, check;
} prove_ui;

static void prove_event(void *user, int ev, const groth16_prove_report *r) {
    const prove_ui *ui = user;
    if (ev == GROTH16_PROVER_EV_FALLBACK || ui->progress)
        cli_progress_clear(); /* a line below: the progress line gives way; the next stage redraws it */
    if (ev == GROTH16_PROVER_EV_FALLBACK) { /* auto: the GPU failed; the proof is redone on the CPU */
        const char *last = r->note;
        for (const char *q = r->note; (q = strstr(q, "auto: the GPU")) != NULL; q++)
            last = q + 6;
        fprintf(stderr, "g16 prove: %s\n", last);
        return;
    }
    if (!ui->progress)
        return;
    if (ev == GROTH16_PROVER_EV_SYNTH)
        fprintf(stderr, "g16 prove: [1/3] synthesis done (%.0f ms%s)\n", r->tm.synth_ms,
                r->gpu_synth ? ", witness scalars; A.w, B.w on the GPU" : "");
    else if (ev == GROTH16_PROVER_EV_HEAVY && r->backend == G16_BACKEND_CUDA)
        fprintf(stderr,
                "g16 prove: [2/3] GPU: upload %.1f ms, synthesis %.1f ms, NTT/H %.1f ms, MSM A %.1f, B1 %.1f, "
                "B2 %.1f, C %.1f, H %.1f ms (%.1f ms in all)\n",
                r->gtm.upload_ms, r->gtm.synth_ms, r->gtm.ntt_ms, r->gtm.msm_ms[0], r->gtm.msm_ms[1],
                r->gtm.msm_ms[2], r->gtm.msm_ms[3], r->gtm.msm_ms[4], r->gtm.gpu_ms);
    else if (ev == GROTH16_PROVER_EV_HEAVY)
        fprintf(stderr, "g16 prove: [2/3] NTT and MSM done (%.0f + %.0f ms)\n", r->tm.ntt_ms, r->tm.msm_ms);
    else if (ev == GROTH16_PROVER_EV_DONE)
        fprintf(stderr, "g16 prove: [3/3] assembled%s (%.0f ms)\n", ui->check ? " and verified" : "",
                r->tm.finalize_ms + (ui->check ? r->verify_ms : 0.0));
}

int cmd_prove(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--params") || !strncmp(argv[i], "--params=", 9))
            return cmd_prove_params(argc, argv); /* a bellperson key and a partition (cmd_params.c) */
    prove_args a = {.backend = "auto", .engine_backend = G16_ENGINE_BACKEND_AUTO};
    int batch_only = 0; /* an option that needs --batch */
    const char *input = NULL, *witgen = NULL; /* --input, --witness-gen (docs/witgen.md) */
    cli_parse p;
    cli_init(&p, &CLI_PROVE, argc, argv, 0);
    int c;
    long long v;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case 'v': a.verbose = 1; break;
        case P_TRUSTED: a.trusted = 1; break;
        case P_NO_VERIFY: a.no_verify = 1; break;
        case P_STREAM_BASES: a.stream_bases = 1; break;
        case P_BATCH: a.batch = 1; break;
        case P_INPUT: input = p.arg; break;
        case P_WITGEN: witgen = p.arg; break;
        case P_BACKEND:
            a.backend = p.arg;
            if (strcmp(p.arg, "cpu") && strcmp(p.arg, "cuda") && strcmp(p.arg, "auto"))
                return cli_usage_error(&CLI_PROVE, "--backend takes cpu, cuda or auto, not '%s'", p.arg);
            a.engine_backend = !strcmp(p.arg, "cpu")    ? G16_ENGINE_BACKEND_CPU
                               : !strcmp(p.arg, "cuda") ? G16_ENGINE_BACKEND_CUDA
                                                        : G16_ENGINE_BACKEND_AUTO;
            break;
        case P_DEVICE:
            if (!cli_int(&p, 0, 1024, &v))
                return 2;
            a.device = (int)v;
            break;
        case P_TEST_RS: { /* tests only: deterministic, NOT zero-knowledge proofs */
            const char *r = p.arg, *sv = cli_next_value(&p);
            if (!sv)
                return 2;
            if (!parse_u256(a.r_le, r) || !parse_u256(a.s_le, sv))
                return cli_usage_error(&CLI_PROVE, "--insecure-test-rs takes two integers below 2^256");
            a.fixed_rs = 1;
            break;
        }
        case P_OUT_DIR: a.out_dir = p.arg, batch_only = 1; break;
        case P_TIMELINE: a.timeline = p.arg, batch_only = 1; break;
        case P_EVENTS: a.events = p.arg, batch_only = 1; break;
        case P_WORKERS:
        case P_WPD:
        case P_DEVICES:
        case P_SYNTH_THREADS:
            if (!cli_int(&p, 0, 4096, &v))
                return 2;
            *(c == P_WORKERS ? &a.workers : c == P_WPD ? &a.wpd : c == P_DEVICES ? &a.devices : &a.synth) = (int)v;
            batch_only = 1;
            break;
        case P_BUDGET:
        case P_DEVICE_BUDGET:
            if (!cli_u64(&p, c == P_BUDGET ? &a.budget : &a.dev_budget))
                return 2;
            batch_only = 1;
            break;
        }
    }
    if (c != CLI_END)
        return cli_exit(c);
    a.ops = argv + p.optind;
    a.nops = argc - p.optind;
    if (!input != !witgen)
        return cli_usage_error(&CLI_PROVE, "--input and --witness-gen go together");
    if (input && a.batch)
        return cli_usage_error(&CLI_PROVE, "--input takes one input.json (not --batch)");
    if (a.batch)
        return cmd_prove_batch(&a);
    if (batch_only)
        return cli_usage_error(&CLI_PROVE, "--out-dir, --workers, --workers-per-device, --devices, --synth-threads, "
                                           "--budget, --device-budget, --timeline and --events go with --batch");
    int verbose = a.verbose, trusted = a.trusted, check = !a.no_verify, device = a.device,
        stream_bases = a.stream_bases, fixed_rs = a.fixed_rs;
    const char *backend = a.backend;
    const uint8_t *r_le = a.r_le, *s_le = a.s_le;
    const char *pos[4];
    if (input) { /* no witness file: it is generated from the input */
        if (a.nops != 3) {
            cli_usage(stderr, &CLI_PROVE);
            return cli_usage_error(&CLI_PROVE, "with --input takes 3 operands (key, proof, public), not %d", a.nops);
        }
        pos[0] = a.ops[0], pos[1] = input, pos[2] = a.ops[1], pos[3] = a.ops[2];
    } else if (a.nops != 4) {
        cli_usage(stderr, &CLI_PROVE);
        return cli_usage_error(&CLI_PROVE, "takes 4 operands (key, witness, proof, public), not %d", a.nops);
    } else {
        for (int i = 0; i < 4; i++)
            pos[i] = a.ops[i];
    }
    if (!g16_cli_outputs_ok("prove", (const char *[]){pos[0], pos[1], witgen}, witgen ? 3 : 2,
                            (const char *[]){pos[2], pos[3]}, 2))
        return 2;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx) {
        fprintf(stderr, "g16 prove: cannot create a context\n");
        return 2;
    }
    g16_key *key = NULL;
    g16_result *res = NULL;
    g16_witness *gw = NULL; /* generated from --input */
    groth16_prover *pr = NULL;
    groth16_prove_report rep;
    g16_status st = {0};
    int rc = 2;
    double t0 = g16_cli_now_ms();
    cli_progress_begin("g16 prove");
    cli_progress(NULL, "loading the key", 0, 1);
    /* The key without a per-key working area: the prover brings its own. */
    if (groth16_key_load_ex(ctx, &key, pos[0], trusted ? G16_KEY_TRUSTED : 0, 0, &st) != G16_OK)
        goto fail_st;
    double t_key = g16_cli_now_ms();
    g16_key_info info;
    (void)!g16_key_get_info(ctx, &info, key); /* a loaded key: cannot fail */
    /* Stage lines with --verbose, and on large circuits where no progress
     * line is drawn (not a terminal) unless --quiet. */
    prove_ui ui = {.progress = verbose || (info.domain_size >= (1u << 20) && !g16_cli_quiet && !cli_progress_on()),
                   .check = check};
    cli_progress_clear();
    if (ui.progress)
        fprintf(stderr, "g16 prove: %s, %u wires, domain 2^%d, key loaded in %.0f ms%s\n", g16_curve_name(info.curve),
                info.n_vars, __builtin_ctz(info.domain_size), t_key - t0,
                g16_key_checks_cached(key) ? " (point checks passed before: skipped, key.check_cache_dir)" : "");
    /* The device prover: the GPU set-up, the auto fallback to the CPU (a GPU
     * that cannot be set up, a failed GPU stage, or a GPU proof that does
     * not verify), and the verify-before-write. */
    groth16_prover_opts po;
    groth16_prover_opts_init(&po);
    po.backend = !strcmp(backend, "cpu") ? G16_BACKEND_CPU : !strcmp(backend, "cuda") ? G16_BACKEND_CUDA
                                                                                       : G16_BACKEND_AUTO;
    po.verify = check;
    po.device = device;
    po.stream_bases = stream_bases;
    po.event = prove_event;
    po.event_user = &ui;
    po.progress = cli_progress;
    cli_progress(NULL, "setting up the prover", 0, 1);
    if (groth16_prover_create(ctx, &pr, key, &po, &st) != G16_OK)
        goto fail_st;
    groth16_prover_info pi;
    groth16_prover_get_info(pr, &pi);
    cli_progress_clear();
    const char *unavail = strstr(pi.note, "auto: GPU unavailable");
    if (pi.backend == G16_BACKEND_CPU && unavail) /* a warning: auto wanted the GPU */
        fprintf(stderr, "g16 prove: %s\n", unavail + 6);
    else if (ui.progress && pi.note[0])
        fprintf(stderr, "g16 prove: %s\n", pi.note);
    if (pi.backend == G16_BACKEND_CUDA && ui.progress)
        fprintf(stderr, "g16 prove: GPU %s%s (%.0f ms)\n", g16_gpu_name(groth16_prover_gpu(pr)),
                stream_bases ? ", bases streamed" : ", key uploaded", pi.key_upload_ms);
    /* With the key's coefficient rows on the GPU the witness is read
     * straight from the file into the pinned working area (no witness
     * object); the CPU path loads it. */
    if (witgen) {
        double tg = g16_cli_now_ms();
        if (g16_witness_generate(ctx, &gw, witgen, input, NULL, 0, NULL) != G16_OK)
            goto fail;
        if (ui.progress)
            fprintf(stderr, "g16 prove: witness generated from %s by %s (%.0f ms)\n", input, witgen,
                    g16_cli_now_ms() - tg);
    }
    g16_err err = groth16_prover_prove(pr, &res, gw, gw ? NULL : pos[1], fixed_rs ? r_le : NULL,
                                       fixed_rs ? s_le : NULL, &rep, &st);
    cli_progress_end();
    if (err == G16_ERR_INVALID_PROOF) {
        fprintf(stderr, "g16 prove: the proof does not verify: the witness %s%s does not satisfy the circuit of %s\n",
                witgen ? "generated from " : "", pos[1], pos[0]);
        goto done;
    }
    if (err)
        goto fail_st;
    if (g16_result_write(ctx, res, pos[2], pos[3]) != G16_OK)
        goto fail;
    if (verbose)
        fprintf(stderr,
                "g16 prove: backend %s, synthesis %.1f ms, ntt %.1f ms, msm %.1f ms, finalize %.1f ms, "
                "verify %.1f ms, total %.1f ms\n",
                rep.backend == G16_BACKEND_CUDA ? "cuda" : "cpu", rep.tm.synth_ms, rep.tm.ntt_ms, rep.tm.msm_ms,
                rep.tm.finalize_ms, rep.verify_ms, g16_cli_now_ms() - t0);
    rc = 0;
    goto done;
fail_st:
    cli_progress_end();
    fprintf(stderr, "g16 prove: %s (%s)\n", st.msg[0] ? st.msg : g16_err_str(st.code), g16_err_str(st.code));
    goto done;
fail:
    print_ctx_error(ctx, "prove");
done:
    cli_progress_end();
    groth16_prover_free(pr);
    g16_result_free(res);
    g16_witness_free(gw);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}

/* Parses a command without options of its own: the operands in *ops, and
 * -1 to go on, else the exit code (help printed, or a usage error). */
static int operands_only(const cli_cmd *cmd, int argc, char **argv, int want, char ***ops) {
    cli_parse p;
    cli_init(&p, cmd, argc, argv, 0);
    int c = cli_next(&p);
    if (c != CLI_END)
        return c > 0 ? 2 : cli_exit(c);
    *ops = argv + p.optind;
    if (argc - p.optind != want) {
        cli_usage(stderr, cmd);
        return cli_usage_error(cmd, "takes %d operand%s, not %d", want, want == 1 ? "" : "s", argc - p.optind);
    }
    return -1;
}

const cli_cmd CLI_VERIFY = {
    .name = "verify",
    .summary = "Verify a proof: snarkjs's verification_key.json, public.json and proof.json (as snarkjs groth16 verify).",
    .synopsis = "<verification_key.json> <public.json> <proof.json>\n"
                "--params <key.vk|key.params> <public.json> <proof.bin>",
    .description = "Prints \"OK: proof is valid\" and exits 0, or \"INVALID: proof does not verify\" and exits 1; "
                   "a malformed file is an error (exit status 2).",
    .example = "g16 verify verification_key.json public.json proof.json",
};

int cmd_verify(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--params") || !strncmp(argv[i], "--params=", 9))
            return cmd_verify_params(argc, argv); /* a bellperson vk and proof (cmd_params.c) */
    char **ops;
    int prc = operands_only(&CLI_VERIFY, argc, argv, 3, &ops);
    if (prc >= 0)
        return prc;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    g16_err err = g16_verify_files(ctx, ops[0], ops[1], ops[2]);
    int rc;
    if (err == G16_OK) {
        printf("OK: proof is valid\n");
        rc = 0;
    } else if (err == G16_ERR_INVALID_PROOF) {
        printf("INVALID: proof does not verify\n");
        rc = 1;
    } else {
        print_ctx_error(ctx, "verify");
        rc = 2;
    }
    g16_ctx_destroy(ctx);
    return rc;
}

const cli_cmd CLI_ZKEY_EXPORT_VK = {
    .name = "zkey export-vk",
    .summary = "Write the key's verification_key.json (as snarkjs zkey export verificationkey).",
    .synopsis = "<circuit.zkey> <verification_key.json>",
    .description = "snarkjs's spelling is the same command: g16 zkey export verificationkey "
                   "[circuit_final.zkey] [verification_key.json], with snarkjs's default file names.",
    .example = "g16 zkey export-vk circuit.zkey verification_key.json\n"
               "g16 zkey export verificationkey circuit.zkey verification_key.json",
};
const cli_cmd CLI_ZKEY_EXPORT = {
    .name = "zkey export",
    .summary = "snarkjs's exports: verificationkey (as zkey export-vk), and the Solidity ones byte for "
               "byte: solidityverifier (the verifier contract of a key or verification_key.json) and "
               "soliditycalldata (a proof's verifyProof arguments).",
    .synopsis = "verificationkey [circuit_final.zkey] [verification_key.json]\n"
                "solidityverifier [circuit_final.zkey] [verifier.sol]\n"
                "soliditycalldata [public.json] [proof.json]",
    .example = "g16 zkey export solidityverifier circuit.zkey verifier.sol",
};
static const cli_cmd *const ZKEY_SUBS[] = {&CLI_ZKEY_EXPORT_VK, &CLI_ZKEY_EXPORT, NULL};
const cli_cmd CLI_ZKEY = {
    .name = "zkey",
    .summary = "Proving key tools: export-vk, export solidityverifier|soliditycalldata.",
    .synopsis = "COMMAND ...",
    .subs = ZKEY_SUBS,
    .example = "g16 zkey export-vk circuit.zkey verification_key.json",
};

/* g16 zkey export-vk ZKEY VK, and snarkjs's spelling `zkey export
 * verificationkey [ZKEY] [VK]` (snarkjs = 1: argv from "verificationkey",
 * missing operands take snarkjs's defaults). */
static int cmd_zkey_export_vk(int argc, char **argv, int snarkjs) {
    cli_parse p;
    cli_init(&p, &CLI_ZKEY_EXPORT_VK, argc, argv, 0);
    int c = cli_next(&p);
    if (c != CLI_END)
        return c > 0 ? 2 : cli_exit(c);
    int n = argc - p.optind;
    if (snarkjs ? n > 2 : n != 2) {
        cli_usage(stderr, &CLI_ZKEY_EXPORT_VK);
        return snarkjs ? cli_usage_error(&CLI_ZKEY_EXPORT_VK, "takes at most 2 operands, not %d", n)
                       : cli_usage_error(&CLI_ZKEY_EXPORT_VK, "takes 2 operands, not %d", n);
    }
    const char *ops[2] = {n > 0 ? argv[p.optind] : "circuit_final.zkey",
                          n > 1 ? argv[p.optind + 1] : "verification_key.json"};
    if (!g16_cli_outputs_ok("zkey export-vk", (const char *[]){ops[0]}, 1, (const char *[]){ops[1]}, 1))
        return 2;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    g16_key *key = NULL;
    int rc = 2;
    if (g16_key_load(ctx, &key, ops[0], 0) == G16_OK && g16_key_export_vk(ctx, key, ops[1]) == G16_OK)
        rc = 0;
    else
        print_ctx_error(ctx, "zkey export-vk");
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}

int cmd_zkey(int argc, char **argv) {
    cli_parse p;
    cli_init(&p, &CLI_ZKEY, argc, argv, CLI_STOP_AT_OPERAND);
    int c = cli_next(&p);
    if (c != CLI_END)
        return c > 0 ? 2 : cli_exit(c);
    if (p.optind >= argc) {
        cli_usage(stderr, &CLI_ZKEY);
        return cli_usage_error(&CLI_ZKEY, "needs a command (export-vk)");
    }
    const char *sub = argv[p.optind];
    if (!strcmp(sub, "export-vk"))
        return cmd_zkey_export_vk(argc - p.optind, argv + p.optind, 0);
    if (!strcmp(sub, "export") && p.optind + 1 < argc && !strcmp(argv[p.optind + 1], "verificationkey"))
        return cmd_zkey_export_vk(argc - p.optind - 1, argv + p.optind + 1, 1);
    if (!strcmp(sub, "export"))
        return cmd_zkey_export(argc - p.optind, argv + p.optind);
    const char *names[] = {"export-vk", "export"};
    const char *near = cli_nearest(sub, names, 2);
    return cli_usage_error(&CLI_ZKEY, "unknown command '%s'%s%s%s", sub, near ? "; did you mean '" : "",
                           near ? near : "", near ? "'?" : "");
}

/* g16 info on a JSON file: which snarkjs file it is (0), or why it is none
 * that g16 reads (2). */
static int info_json(const char *path) {
    json_error_t je;
    json_t *j = json_load_file(path, JSON_DECODE_ANY, &je);
    if (!j) {
        fprintf(stderr, "g16 info: %s: starts like JSON but does not parse (line %d: %s); not a binary "
                        ".zkey, .r1cs or .wtns file either\n", path, je.line, je.text);
        return 2;
    }
    const char *what = NULL;
    json_t *cv = json_object_get(j, "curve");
    g16_curve curve;
    const char *cname = json_is_string(cv) && g16_curve_from_name(&curve, json_string_value(cv)) == G16_OK
                            ? g16_curve_name(curve) : NULL;
    if (json_is_object(j) && json_object_get(j, "pi_a"))
        what = "snarkjs proof (proof.json)";
    else if (json_is_object(j) && json_object_get(j, "vk_alpha_1"))
        what = "snarkjs verification key (verification_key.json)";
    else if (json_is_array(j)) {
        size_t i;
        json_t *e;
        int strings = 1;
        json_array_foreach(j, i, e) strings &= json_is_string(e);
        if (strings)
            what = "public signals (public.json)";
    } else if (json_is_object(j))
        what = "JSON object (circuit inputs, input.json, or another file)";
    if (!what) {
        fprintf(stderr, "g16 info: %s is JSON but none of the files g16 reads (proof, verification key, public "
                        "signals); g16 info describes binary .zkey, .r1cs, .wtns, .params and .vk files\n", path);
        json_decref(j);
        return 2;
    }
    printf("file: %s\ntype: %s\n", path, what);
    if (cname)
        printf("curve: %s\n", cname);
    const char *proto = json_string_value(json_object_get(j, "protocol"));
    if (proto)
        printf("protocol: %s\n", proto);
    json_t *np = json_object_get(j, "nPublic");
    if (json_is_integer(np))
        printf("public: %lld\n", (long long)json_integer_value(np));
    if (json_is_array(j))
        printf("values: %zu\n", json_array_size(j));
    printf("note: a JSON file, not a binary key; g16 prove takes the .zkey, g16 verify this kind of file\n");
    json_decref(j);
    return 0;
}

const cli_cmd CLI_INFO = {
    .name = "info",
    .summary = "Describe a file: .zkey, .r1cs, .wtns, bellperson .params and .vk, or snarkjs's JSON files.",
    .synopsis = "<file>",
    .description = "Binary files: the header, the sections and the counts (curve, wires, public signals, domain). "
                   "A .params or .vk file (by its extension) is checked as bellperson's layout. A JSON file is "
                   "named for what it is (proof, verification key, public signals).",
    .example = "g16 info circuit.zkey",
};

/* g16 info <file>: what a .zkey, .r1cs or .wtns file holds. */
int cmd_info(int argc, char **argv) {
    char **ops;
    int prc = operands_only(&CLI_INFO, argc, argv, 1, &ops);
    if (prc >= 0)
        return prc;
    const char *path = ops[0];
    if (cmd_info_is_params(path))
        return cmd_info_params(path);
    if (cmd_info_is_assignment(path))
        return cmd_info_assignment(path);
    g16_status st = {0};
    g16_binfile bf;
    char magic[5] = {0};
    FILE *f = NULL;
    if (g16_file_fopen_read(path, &f, &st) != G16_OK) {
        fprintf(stderr, "g16 info: %s\n", st.msg);
        return 2;
    }
    if (fread(magic, 1, 4, f) != 4) {
        if (f)
            fclose(f);
        fprintf(stderr, "g16 info: %s: cannot read the file's magic\n", path);
        return 2;
    }
    fclose(f);
    size_t lead = strspn(magic, " \t\r\n");
    if (lead < 4 && (magic[lead] == '{' || magic[lead] == '['))
        return info_json(path);
    if (!memcmp(magic, "g16a", 4)) /* an assignment file under another name */
        return cmd_info_assignment(path);
    if (strcmp(magic, "zkey") && strcmp(magic, "r1cs") && strcmp(magic, "wtns")) {
        fprintf(stderr, "g16 info: %s: not a .zkey, .r1cs or .wtns file (its first bytes are no such magic)\n", path);
        return 2;
    }
    if (g16_binfile_open(&bf, path, magic, 1000, &st) != G16_OK) {
        fprintf(stderr, "g16 info: %s\n", st.msg);
        return 2;
    }
    printf("file: %s\ntype: %s (version %u)\nsections:", path, bf.magic, bf.version);
    for (uint32_t i = 0; i < bf.nsections; i++)
        printf(" %u(%llu B)", bf.sec[i].id, (unsigned long long)bf.sec[i].size);
    printf("\n");
    g16_binfile_close(&bf);
    int rc = 0;
    if (!strcmp(magic, "zkey")) {
        g16_zkey key;
        if (g16_zkey_open(&key, path, G16_ZKEY_TRUSTED, NULL, &st) != G16_OK) {
            fprintf(stderr, "g16 info: %s\n", st.msg);
            return 2;
        }
        printf("protocol: groth16\ncurve: %s\nwires: %u\npublic: %u\ndomain: %u (2^%u)\ncoefficients: %u\n",
               g16_curve_name(key.curve), key.nVars, key.nPublic, key.domainSize, key.log2_domain, key.nCoef);
        g16_zkey_close(&key);
    } else if (!strcmp(magic, "r1cs")) {
        g16_r1cs r;
        if (g16_r1cs_read(&r, path, &st) != G16_OK) {
            fprintf(stderr, "g16 info: %s\n", st.msg);
            return 2;
        }
        printf("curve: %s\nconstraints: %u\nwires: %u\npublic outputs: %u\npublic inputs: %u\n"
               "private inputs: %u\nlabels: %llu\n",
               g16_curve_name(r.curve), r.nConstraints, r.nWires, r.nPubOut, r.nPubIn, r.nPrvIn,
               (unsigned long long)r.nLabels);
        g16_r1cs_free(&r);
    } else if (!strcmp(magic, "wtns")) {
        g16_frvec w = {0};
        if (g16_wtns_read(&w, path, &st) != G16_OK) {
            fprintf(stderr, "g16 info: %s\n", st.msg);
            return 2;
        }
        printf("curve: %s\nwitness values: %zu\n", g16_curve_name(w.curve), w.n);
        g16_frvec_free(&w);
    }
    return rc;
}

enum { S_INSECURE = CLI_ID, S_CURVE, S_VK, S_BACKEND, S_SNARKJS_INIT, S_PRINT_TOXIC, S_SEED, S_FORMAT, S_TOXIC };
static const cli_opt SETUP_OPTS[] = {
    {"insecure-test-setup", S_INSECURE, NULL, "required: acknowledge that the toxic waste comes from a seed"},
    {"curve", S_CURVE, "bn254|bls12-381", "check that the circuit is on this curve"},
    {"vk", S_VK, "FILE", "also write the verification key (verification_key.json)"},
    {"seed", S_SEED, "S", "the seed of the toxic waste (default: random)"},
    {"backend", S_BACKEND, "cpu|cuda|auto", "where to compute the key's points (default auto)"},
    {"snarkjs-init", S_SNARKJS_INIT, NULL, "write the key as snarkjs's init key (before contributions), as snarkjs groth16 setup"},
    {"print-toxic", S_PRINT_TOXIC, NULL, "print tau, alpha, beta, gamma and delta (hex) on stdout"},
    {"format", S_FORMAT, "zkey|params", "zkey (snarkjs, default) or params: a bellperson key (BLS12-381) and its "
                                        ".vk beside it (or --vk)"},
    {"insecure-toxic", S_TOXIC, "T,A,B,G,D", "tests only: tau, alpha, beta, gamma, delta (decimal, BLS12-381) "
                                             "instead of the seed"},
    {NULL, 0, NULL, NULL},
};
const cli_cmd CLI_SETUP = {
    .name = "setup",
    .summary = "Make an INSECURE test key for a circuit (toxic waste from a seed): for tests and benchmarks only.",
    .synopsis = "--insecure-test-setup [OPTIONS] <circuit.r1cs> <out.zkey>\n"
                "--insecure-test-setup --format params [OPTIONS] <circuit.r1cs> <key.params>",
    .description = "Anyone who knows the seed can forge proofs for the key. Production keys come from a ceremony "
                   "(snarkjs powersoftau and zkey contribute).",
    .opts = SETUP_OPTS,
    .example = "g16 setup --insecure-test-setup --seed 1 circuit.r1cs circuit.zkey --vk verification_key.json",
};

/* "--insecure-toxic tau,alpha,beta,gamma,delta" (decimal) into the 32-byte
 * little-endian values of groth16_setup_opts.toxic; 0 on success. */
static int parse_toxic(const char *v, uint8_t out[5][32]) {
    const char *p = v;
    for (int i = 0; i < 5; i++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char num[100];
        if (len == 0 || len >= sizeof num || (i < 4) != (end != NULL))
            return -1;
        memcpy(num, p, len);
        num[len] = 0;
        bls381_fr f;
        limb_t l[4];
        if (bls381_fr_from_dec(&f, num) != G16_OK)
            return -1;
        bls381_fr_from_mont(l, &f);
        memcpy(out[i], l, 32);
        p = end ? end + 1 : p + len;
    }
    return 0;
}

/* g16 setup --insecure-test-setup [--format zkey|params] [--curve C] circuit.r1cs out.zkey [--vk vk.json] [--seed S]
 *           [--backend cpu|cuda|auto] [--snarkjs-init] [--print-toxic] */
int cmd_setup(int argc, char **argv) {
    int insecure = 0, curve_set = 0, print_toxic = 0, params = 0;
    groth16_setup_opts so = {.backend = GROTH16_SETUP_AUTO};
    g16_curve curve = G16_CURVE_BN254;
    const char *vk_path = NULL;
    unsigned long long seed = 0;
    int seed_set = 0;
    uint8_t toxic[5][32];
    cli_parse p;
    cli_init(&p, &CLI_SETUP, argc, argv, 0);
    int c;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case S_INSECURE: insecure = 1; break;
        case S_FORMAT:
            if (!strcmp(p.arg, "params") || !strcmp(p.arg, "zkey"))
                params = !strcmp(p.arg, "params");
            else
                return cli_usage_error(&CLI_SETUP, "unknown format '%s' (zkey, params)", p.arg);
            break;
        case S_TOXIC:
            if (parse_toxic(p.arg, toxic) != 0)
                return cli_usage_error(&CLI_SETUP, "--insecure-toxic wants five decimal values "
                                                   "tau,alpha,beta,gamma,delta");
            so.toxic = (const uint8_t(*)[32])toxic;
            break;
        case S_CURVE:
            if (g16_curve_from_name(&curve, p.arg) != G16_OK)
                return cli_usage_error(&CLI_SETUP, "unknown curve '%s' (bn254, bls12-381)", p.arg);
            curve_set = 1;
            break;
        case S_VK: vk_path = p.arg; break;
        case S_BACKEND:
            if (!strcmp(p.arg, "cpu"))
                so.backend = GROTH16_SETUP_CPU;
            else if (!strcmp(p.arg, "cuda"))
                so.backend = GROTH16_SETUP_CUDA;
            else if (!strcmp(p.arg, "auto"))
                so.backend = GROTH16_SETUP_AUTO;
            else
                return cli_usage_error(&CLI_SETUP, "unknown backend '%s' (cpu, cuda, auto)", p.arg);
            break;
        case S_SNARKJS_INIT: so.snarkjs_init = 1; break;
        case S_PRINT_TOXIC: print_toxic = 1; break;
        case S_SEED:
            if (!cli_u64(&p, &seed))
                return 2;
            seed_set = 1;
            break;
        }
    }
    if (c != CLI_END)
        return cli_exit(c);
    const char *const *pos = (const char *const *)argv + p.optind;
    if (argc - p.optind != 2) {
        cli_usage(stderr, &CLI_SETUP);
        return cli_usage_error(&CLI_SETUP, "takes 2 operands (circuit.r1cs, out.zkey or key.params), not %d", argc - p.optind);
    }
    char *vk_auto = NULL;
    if (params) {
        if (so.snarkjs_init) {
            fprintf(stderr, "g16 setup: --snarkjs-init is for zkey keys only\n");
            return 2;
        }
        if (curve_set && curve != G16_CURVE_BLS12_381) {
            fprintf(stderr, "g16 setup: --format params keys are BLS12-381 only\n");
            return 2;
        }
        if (!vk_path) { /* key.params -> key.vk; any other name gets .vk appended */
            size_t n = strlen(pos[1]), stem = n > 7 && !strcmp(pos[1] + n - 7, ".params") ? n - 7 : n;
            vk_auto = malloc(stem + 4);
            if (!vk_auto)
                return 2;
            memcpy(vk_auto, pos[1], stem);
            memcpy(vk_auto + stem, ".vk", 4);
            vk_path = vk_auto;
        }
    }
    if (!g16_cli_outputs_ok("setup", (const char *[]){pos[0]}, 1, (const char *[]){pos[1], vk_path}, 2)) {
        free(vk_auto);
        return 2;
    }
    if (!insecure) {
        fprintf(stderr, "g16 setup: refusing to run without --insecure-test-setup: this setup draws its toxic\n"
                        "waste from a seed, so anyone who knows the seed can forge proofs. Use a real\n"
                        "ceremony (snarkjs powersoftau + zkey contribute) for production keys.\n");
        free(vk_auto);
        return 2;
    }
    fprintf(stderr, "g16 setup: WARNING: insecure test-only key (toxic waste %s)\n",
            so.toxic ? "given on the command line" : "from a seed");
    if (!seed_set) {
        if (g16_os_random(&seed, sizeof seed) != G16_OK) {
            fprintf(stderr, "g16 setup: getrandom failed\n");
            free(vk_auto);
            return 2;
        }
    }
    g16_status st = {0};
    g16_r1cs cs;
    cli_progress_begin("g16 setup");
    cli_progress(NULL, "reading the circuit", 0, 1);
    if (g16_r1cs_read(&cs, pos[0], &st) != G16_OK) {
        cli_progress_end();
        fprintf(stderr, "g16 setup: %s\n", st.msg);
        free(vk_auto);
        return 2;
    }
    if (curve_set && cs.curve != curve) {
        cli_progress_end();
        fprintf(stderr, "g16 setup: %s is a %s circuit, not %s (wrong curve)\n", pos[0], g16_curve_name(cs.curve),
                g16_curve_name(curve));
        g16_r1cs_free(&cs);
        free(vk_auto);
        return 2;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    double t0 = g16_now_ms();
    so.seed = seed;
    so.progress = cli_progress;
    groth16_setup_info info;
    g16_err err = !ctx     ? G16_ERR_NOMEM
                  : params ? groth16_setup_params_insecure(ctx, &cs, &so, pos[1], vk_path, &info, &st)
                           : groth16_setup_insecure_ex(ctx, &cs, &so, pos[1], NULL, NULL, &info, &st);
    cli_progress_end();
    if (!err && print_toxic) {
        /* The toxic waste as hex (fast_ptau.mjs --tau/--alpha/--beta take it). */
        uint8_t tw[5][32];
        static const char *names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
        if (so.toxic)
            memcpy(tw, so.toxic, sizeof tw);
        else
            groth16_setup_toxic(cs.curve, seed, tw);
        for (int t = 0; t < 5; t++) {
            printf("%s=0x", names[t]);
            for (int b = 31; b >= 0; b--)
                printf("%02x", tw[t][b]);
            printf("\n");
        }
    }
    g16_r1cs_free(&cs);
    if (err) {
        fprintf(stderr, "g16 setup: %s\n", st.msg[0] ? st.msg : g16_err_str(err));
        g16_ctx_destroy(ctx);
        free(vk_auto);
        return 2;
    }
    fprintf(stderr, "g16 setup: wrote %s (%zu bytes) in %.0f ms (%s; lagrange %.0f ms, points %.0f ms%s)\n",
            pos[1], info.key_bytes, g16_now_ms() - t0, info.used_gpu ? "cuda" : "cpu", info.lagrange_ms,
            info.points_ms, params ? ", bellperson .params" : so.snarkjs_init ? ", snarkjs init key" : "");
    if (params)
        fprintf(stderr, "g16 setup: wrote %s\n", vk_path);
    free(vk_auto);
    int rc = 0;
    if (vk_path && !params) {
        g16_key *key = NULL;
        if (g16_key_load(ctx, &key, pos[1], G16_KEY_TRUSTED) != G16_OK || g16_key_export_vk(ctx, key, vk_path) != G16_OK) {
            print_ctx_error(ctx, "setup");
            rc = 2;
        }
        g16_key_free(key);
    }
    g16_ctx_destroy(ctx);
    return rc;
}
