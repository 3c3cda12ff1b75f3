/* g16 prove | verify | info | zkey export-vk */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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

/* g16 prove --batch <zkey> <wtns...> --out-dir DIR: every witness a
 * partition of one engine job; writes proof-<i>.json and public-<i>.json
 * (i = the witness's position), each proof verified before it is written. */
static int cmd_prove_batch(int argc, char **argv) {
    const char *out_dir = NULL, *zkey = NULL, *timeline = NULL;
    int verbose = 0, trusted = 0, no_verify = 0, workers = 0, synth = 0, wpd = 0, devices = 0;
    unsigned long long budget = 0, dev_budget = 0;
    g16_engine_backend backend = G16_ENGINE_BACKEND_AUTO;
    const char **wtns = calloc((size_t)argc, sizeof *wtns);
    size_t n = 0;
    if (!wtns)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--batch"))
            continue;
        if (!strcmp(a, "--out-dir") && v)
            out_dir = v, i++;
        else if (!strcmp(a, "--workers") && v)
            workers = atoi(v), i++;
        else if (!strcmp(a, "--timeline") && v)
            timeline = v, i++;
        else if (!strcmp(a, "--synth-threads") && v)
            synth = atoi(v), i++;
        else if (!strcmp(a, "--budget") && v)
            budget = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--device-budget") && v)
            dev_budget = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--workers-per-device") && v)
            wpd = atoi(v), i++;
        else if (!strcmp(a, "--devices") && v)
            devices = atoi(v), i++;
        else if (!strcmp(a, "--backend") && v) {
            if (!strcmp(v, "cpu"))
                backend = G16_ENGINE_BACKEND_CPU;
            else if (!strcmp(v, "cuda"))
                backend = G16_ENGINE_BACKEND_CUDA;
            else if (!strcmp(v, "auto"))
                backend = G16_ENGINE_BACKEND_AUTO;
            else {
                fprintf(stderr, "g16 prove --batch: --backend must be cpu, cuda or auto\n");
                free(wtns);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
            verbose = 1;
        else if (!strcmp(a, "--trusted-key"))
            trusted = 1;
        else if (!strcmp(a, "--no-verify"))
            no_verify = 1;
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "g16 prove --batch: unknown option '%s'\n", a);
            free(wtns);
            return 2;
        } else if (!zkey)
            zkey = a;
        else
            wtns[n++] = a;
    }
    if (!zkey || !n || !out_dir) {
        fprintf(stderr, "usage: g16 prove --batch [--backend cpu|cuda|auto] [--workers W] [--workers-per-device W]\n"
                        "                 [--devices N] [--synth-threads S] [--budget BYTES] [--device-budget BYTES]\n"
                        "                 [--trusted-key] [--timeline FILE] [--no-verify] [--verbose] <circuit.zkey> <witness.wtns>... --out-dir DIR\n");
        free(wtns);
        return 2;
    }
    char (*outp)[4096] = NULL;
    if (!batch_out_paths(zkey, wtns, n, out_dir, &outp)) {
        free(outp);
        free(wtns);
        return 2;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    g16_engine *eng = NULL;
    g16_engine_witness *ws = calloc(n, sizeof *ws);
    int rc = 2;
    uint64_t key_id, job;
    double t0 = g16_cli_now_ms();
    g16_engine_opts eo = {.workers = workers, .synth_threads = synth, .budget_bytes = budget, .no_verify = no_verify,
                          .timeline_path = timeline, .backend = backend, .workers_per_device = wpd,
                          .devices = devices, .device_budget_bytes = dev_budget};
    if (!ctx || !ws || g16_engine_create(ctx, &eng, &eo) != G16_OK)
        goto fail;
    if (g16_engine_key_add(eng, &key_id, zkey, trusted ? G16_KEY_TRUSTED : 0, G16_TIER_MMAP) != G16_OK)
        goto fail;
    if (verbose) /* which backend the engine chose, and the key's tier */
        print_batch_engine(eng);
    for (size_t i = 0; i < n; i++)
        ws[i].path = wtns[i];
    if (g16_engine_submit(eng, &job, key_id, ws, n, G16_PRIORITY_NORMAL, 0) != G16_OK ||
        g16_engine_wait(eng, job, -1) != G16_OK)
        goto fail;
    g16_engine_job_info ji;
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
    if (verbose || ji.state != G16_JOB_DONE)
        fprintf(stderr, "g16 prove --batch: %u of %u proofs, %.0f ms%s%s\n", ji.proved, ji.partitions,
                g16_cli_now_ms() - t0, ji.msg[0] ? "; first failure: " : "", ji.msg);
    goto done;
fail:
    if (ctx)
        print_ctx_error(ctx, "prove --batch");
done:
    g16_engine_destroy(eng, 0);
    g16_ctx_destroy(ctx);
    free(ws);
    free(outp);
    free(wtns);
    return rc;
}

/* Progress lines of one proof (the device prover's events). */
typedef struct prove_ui {
    int progress, check;
} prove_ui;

static void prove_event(void *user, int ev, const groth16_prove_report *r) {
    const prove_ui *ui = user;
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
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--batch"))
            return cmd_prove_batch(argc, argv);
    int verbose = 0, trusted = 0, check = 1, device = 0, stream_bases = 0;
    const char *pos[4], *backend = "auto", *input = NULL, *witgen = NULL;
    int npos = 0, fixed_rs = 0;
    uint8_t r_le[32], s_le[32];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            backend = argv[++i];
            if (strcmp(backend, "cpu") && strcmp(backend, "cuda") && strcmp(backend, "auto")) {
                fprintf(stderr, "g16 prove: --backend takes cpu, cuda or auto\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            char *end;
            long d = strtol(argv[++i], &end, 10);
            if (*end || d < 0 || d > 1024) {
                fprintf(stderr, "g16 prove: --device takes a device number\n");
                return 2;
            }
            device = (int)d;
        } else if (!strcmp(argv[i], "--stream-bases"))
            stream_bases = 1;
        else if (!strcmp(argv[i], "--input") && i + 1 < argc)
            input = argv[++i];
        else if (!strcmp(argv[i], "--witness-gen") && i + 1 < argc)
            witgen = argv[++i];
        else if (!strcmp(argv[i], "--insecure-test-rs") && i + 2 < argc) {
            /* Tests only: deterministic, NOT zero-knowledge proofs. */
            if (!parse_u256(r_le, argv[i + 1]) || !parse_u256(s_le, argv[i + 2])) {
                fprintf(stderr, "g16 prove: --insecure-test-rs takes two integers below 2^256\n");
                return 2;
            }
            fixed_rs = 1;
            i += 2;
        } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "--trusted-key"))
            trusted = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            check = 0;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "g16 prove: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            npos = 5;
    }
    if (!input != !witgen) {
        fprintf(stderr, "g16 prove: --input and --witness-gen go together\n");
        return 2;
    }
    if (input && npos == 3) { /* no witness file: it is generated from the input */
        pos[3] = pos[2], pos[2] = pos[1], pos[1] = input;
        npos = 4;
    } else if (input)
        npos = 5;
    if (npos != 4) {
        fprintf(stderr, "usage: g16 prove [--verbose] [--trusted-key] [--no-verify] [--backend cpu|cuda|auto]\n"
                        "                 [--device N] [--stream-bases] <circuit.zkey> <witness.wtns> <proof.json> "
                        "<public.json>\n"
                        "       g16 prove [options] --input input.json --witness-gen GEN <circuit.zkey> <proof.json> "
                        "<public.json>\n"
                        "                 (GEN: circom's C++ witness binary or its .wasm; docs/witgen.md)\n");
        return 2;
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
    /* The key without a per-key working area: the prover brings its own. */
    if (groth16_key_load_ex(ctx, &key, pos[0], trusted ? G16_KEY_TRUSTED : 0, 0, &st) != G16_OK)
        goto fail_st;
    double t_key = g16_cli_now_ms();
    g16_key_info info;
    (void)!g16_key_get_info(ctx, &info, key); /* a loaded key: cannot fail */
    /* Progress lines on large circuits (or with --verbose), one per stage. */
    prove_ui ui = {.progress = verbose || info.domain_size >= (1u << 20), .check = check};
    if (ui.progress)
        fprintf(stderr, "g16 prove: %s, %u wires, domain 2^%d, key loaded in %.0f ms\n", g16_curve_name(info.curve),
                info.n_vars, __builtin_ctz(info.domain_size), t_key - t0);
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
    if (groth16_prover_create(ctx, &pr, key, &po, &st) != G16_OK)
        goto fail_st;
    groth16_prover_info pi;
    groth16_prover_get_info(pr, &pi);
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
    fprintf(stderr, "g16 prove: %s (%s)\n", st.msg[0] ? st.msg : g16_err_str(st.code), g16_err_str(st.code));
    goto done;
fail:
    print_ctx_error(ctx, "prove");
done:
    groth16_prover_free(pr);
    g16_result_free(res);
    g16_witness_free(gw);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}

int cmd_verify(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: g16 verify <verification_key.json> <public.json> <proof.json>\n");
        return 2;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    g16_err err = g16_verify_files(ctx, argv[1], argv[2], argv[3]);
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

int cmd_zkey(int argc, char **argv) {
    if (argc != 4 || strcmp(argv[1], "export-vk") != 0) {
        fprintf(stderr, "usage: g16 zkey export-vk <circuit.zkey> <verification_key.json>\n");
        return 2;
    }
    if (!g16_cli_outputs_ok("zkey export-vk", (const char *[]){argv[2]}, 1, (const char *[]){argv[3]}, 1))
        return 2;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    g16_key *key = NULL;
    int rc = 2;
    if (g16_key_load(ctx, &key, argv[2], 0) == G16_OK && g16_key_export_vk(ctx, key, argv[3]) == G16_OK)
        rc = 0;
    else
        print_ctx_error(ctx, "zkey export-vk");
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}

/* g16 info <file>: what a .zkey, .r1cs or .wtns file holds. */
int cmd_info(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: g16 info <file.zkey|file.r1cs|file.wtns|file.params|file.vk>\n");
        return 2;
    }
    const char *path = argv[1];
    if (cmd_info_is_params(path))
        return cmd_info_params(path);
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
    } else {
        printf("(no further details for '%s' files)\n", magic);
    }
    return rc;
}

/* g16 setup --insecure-test-setup [--curve C] circuit.r1cs out.zkey [--vk vk.json] [--seed S]
 *           [--backend cpu|cuda|auto] [--snarkjs-init] [--print-toxic] */
int cmd_setup(int argc, char **argv) {
    int insecure = 0, curve_set = 0, print_toxic = 0;
    groth16_setup_opts so = {.backend = GROTH16_SETUP_AUTO};
    g16_curve curve = G16_CURVE_BN254;
    const char *vk_path = NULL, *pos[2];
    int npos = 0;
    uint64_t seed = 0;
    int seed_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--insecure-test-setup")) {
            insecure = 1;
        } else if (!strcmp(a, "--curve") && v) {
            if (g16_curve_from_name(&curve, v) != G16_OK) {
                fprintf(stderr, "g16 setup: unknown curve '%s'\n", v);
                return 2;
            }
            curve_set = 1;
            i++;
        } else if (!strcmp(a, "--vk") && v) {
            vk_path = v;
            i++;
        } else if (!strcmp(a, "--backend") && v) {
            if (!strcmp(v, "cpu"))
                so.backend = GROTH16_SETUP_CPU;
            else if (!strcmp(v, "cuda"))
                so.backend = GROTH16_SETUP_CUDA;
            else if (!strcmp(v, "auto"))
                so.backend = GROTH16_SETUP_AUTO;
            else {
                fprintf(stderr, "g16 setup: unknown backend '%s' (cpu, cuda, auto)\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--snarkjs-init")) {
            so.snarkjs_init = 1;
        } else if (!strcmp(a, "--print-toxic")) {
            print_toxic = 1;
        } else if (!strcmp(a, "--seed") && v) {
            seed = strtoull(v, NULL, 0);
            seed_set = 1;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "g16 setup: unknown option '%s'\n", a);
            return 2;
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            npos = 3;
        }
    }
    if (npos != 2) {
        fprintf(stderr, "usage: g16 setup --insecure-test-setup [--curve C] <circuit.r1cs> <out.zkey> "
                        "[--vk vk.json] [--seed S]\n"
                        "                 [--backend cpu|cuda|auto] [--snarkjs-init] [--print-toxic]\n");
        return 2;
    }
    if (!g16_cli_outputs_ok("setup", (const char *[]){pos[0]}, 1, (const char *[]){pos[1], vk_path}, 2))
        return 2;
    if (!insecure) {
        fprintf(stderr, "g16 setup: refusing to run without --insecure-test-setup: this setup draws its toxic\n"
                        "waste from a seed, so anyone who knows the seed can forge proofs. Use a real\n"
                        "ceremony (snarkjs powersoftau + zkey contribute) for production keys.\n");
        return 2;
    }
    fprintf(stderr, "g16 setup: WARNING: insecure test-only key (toxic waste from a seed)\n");
    if (!seed_set) {
        if (g16_os_random(&seed, sizeof seed) != G16_OK) {
            fprintf(stderr, "g16 setup: getrandom failed\n");
            return 2;
        }
    }
    g16_status st = {0};
    g16_r1cs cs;
    if (g16_r1cs_read(&cs, pos[0], &st) != G16_OK) {
        fprintf(stderr, "g16 setup: %s\n", st.msg);
        return 2;
    }
    if (curve_set && cs.curve != curve) {
        fprintf(stderr, "g16 setup: %s is a %s circuit, not %s (wrong curve)\n", pos[0], g16_curve_name(cs.curve),
                g16_curve_name(curve));
        g16_r1cs_free(&cs);
        return 2;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    double t0 = g16_now_ms();
    so.seed = seed;
    groth16_setup_info info;
    g16_err err = ctx ? groth16_setup_insecure_ex(ctx, &cs, &so, pos[1], NULL, NULL, &info, &st) : G16_ERR_NOMEM;
    if (!err && print_toxic) {
        /* The toxic waste as hex (fast_ptau.mjs --tau/--alpha/--beta take it). */
        uint8_t tw[5][32];
        static const char *names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
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
        return 2;
    }
    fprintf(stderr, "g16 setup: wrote %s (%zu bytes) in %.0f ms (%s; lagrange %.0f ms, points %.0f ms%s)\n",
            pos[1], info.key_bytes, g16_now_ms() - t0, info.used_gpu ? "cuda" : "cpu", info.lagrange_ms,
            info.points_ms, so.snarkjs_init ? ", snarkjs init key" : "");
    int rc = 0;
    if (vk_path) {
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
