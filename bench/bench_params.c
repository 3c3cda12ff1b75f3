/* g16 bench params [--key K.params --assignment P.assignment | --log-n K [--seed S]] [--reps R] [--threads T]
 * [--json]: bellperson partitions on the CPU. Without --key, makes a porep-profile circuit (synth.h) at 2^K
 * (default 14), its INSECURE test key (.params) and its partition (.assignment) in a temporary directory.
 * Loads the key (timed), reads the partition (mapped), proves it R times (default 3; timed, without the
 * prover's own verify) and verifies each proof against the key's vk; reports min / median / max, the key
 * load time and the peak RSS of the load and of the proofs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli/progress.h"
#include "groth16/assignment.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "util/ctx.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The porep circuit, its key and partition in dir: key.params, key.vk, part.assignment. */
static int make_inputs(const bench_opts *o, g16_ctx *ctx, const char *dir, char *key, char *asg, size_t len,
                       synth_stats *ss, g16_status *st) {
    char r1cs[4096], wtns[4096];
    snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
    snprintf(wtns, sizeof wtns, "%s/w.wtns", dir);
    snprintf(key, len, "%s/key.params", dir);
    char vk[4096];
    snprintf(vk, sizeof vk, "%s/key.vk", dir);
    snprintf(asg, len, "%s/part.assignment", dir);
    uint64_t seed = o->seed_set ? o->seed : 1;
    synth_opts so = {.curve = G16_CURVE_BLS12_381, .log_n = o->log_n > 0 ? o->log_n : 14, .profile = SYNTH_POREP,
                     .partitions = 1, .seed = seed, .r1cs_path = r1cs, .wtns_path = wtns, .progress = cli_progress};
    if (synth_generate(&so, ss, st))
        return -1;
    g16_r1cs cs;
    if (g16_r1cs_read(&cs, r1cs, st))
        return -1;
    groth16_setup_opts sopt = {.seed = seed, .backend = GROTH16_SETUP_CPU};
    g16_err e = groth16_setup_params_insecure(ctx, &cs, &sopt, key, vk, NULL, st);
    g16_r1cs_free(&cs);
    if (e)
        return -1;
    g16_assignment_file af;
    e = g16_assignment_from_r1cs(&af, r1cs, wtns, st);
    if (!e)
        e = g16_assignment_write(asg, &af.a, st);
    g16_assignment_file_free(&af);
    unlink(r1cs);
    unlink(wtns);
    return e ? -1 : 0;
}

int bench_params(const bench_opts *o) {
    if ((o->zkey != NULL) != (o->assignment != NULL) || (o->zkey && o->log_n > 0) || (o->log_n > 0 && o->log_n < 3) ||
        o->log_n > 28) {
        fprintf(stderr, "usage: g16 bench params [--key key.params --assignment part.assignment | --log-n K (3..28) "
                        "[--seed S]] [--reps R] [--threads T] [--json]\n");
        return 2;
    }
    if (strcmp(o->backend, "cpu") != 0) {
        fprintf(stderr, "g16 bench params: only --backend cpu (the GPU does not prove assignments yet)\n");
        return 2;
    }
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    if (!ctx)
        return 2;
    int reps = o->reps > 0 ? (o->reps < 256 ? o->reps : 256) : 3, rc = 2;
    double ms[256], sorted[256];
    char dir[] = "/tmp/g16-bench-params-XXXXXX", keyp[4096], asgp[4096], msg[512];
    int made = 0;
    g16_status st = {0};
    g16_params_key *key = NULL;
    g16_assignment_file af = {0};
    synth_stats ss = {0};
    bench_mem mem;
    if (!o->zkey) {
        if (!mkdtemp(dir)) {
            fprintf(stderr, "g16 bench params: cannot make a temporary directory\n");
            goto done;
        }
        made = 1;
        if (make_inputs(o, ctx, dir, keyp, asgp, sizeof keyp, &ss, &st)) {
            fprintf(stderr, "g16 bench params: %s\n", st.msg);
            goto done;
        }
    } else {
        snprintf(keyp, sizeof keyp, "%s", o->zkey);
        snprintf(asgp, sizeof asgp, "%s", o->assignment);
    }
    bench_mem_begin(&mem);
    double t0 = g16_now_ms();
    if (g16_params_key_load(ctx, &key, keyp, -1) != G16_OK) {
        g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 bench params: %s\n", msg);
        goto done;
    }
    double load_ms = g16_now_ms() - t0;
    long rss_load = bench_mem_phase(&mem, "key_load");
    t0 = g16_now_ms();
    if (g16_assignment_read(&af, asgp, &st) != G16_OK) {
        fprintf(stderr, "g16 bench params: %s\n", st.msg);
        goto done;
    }
    double read_ms = g16_now_ms() - t0;
    size_t n_inp = 0, n_aux = 0, domain = 0;
    (void)!g16_params_key_info(key, &n_inp, &n_aux, &domain);
    g16_assignment_prove_opts po;
    g16_assignment_prove_opts_init(&po);
    po.backend = G16_BACKEND_CPU;
    po.verify = 0; /* verified below, outside the timing */
    const g16_params *kp = g16_params_key_params(key);
    for (int i = -1; i < reps; i++) { /* i = -1: a warm-up (the NTT's twiddles) */
        g16_params_proof_raw raw;
        t0 = g16_now_ms();
        if (g16_prove_assignments_st(ctx, key, &af.a, 1, &po, &raw, &st) != G16_OK) {
            fprintf(stderr, "g16 bench params: %s\n", st.msg);
            goto done;
        }
        double dt = g16_now_ms() - t0;
        uint8_t enc[G16_PARAMS_PROOF_SIZE];
        g16_params_proof pr;
        const bls381_fr *pub = (const bls381_fr *)(const void *)(af.a.inp_assignment + 1);
        if (g16_params_proof_raw_encode(enc, &raw) != G16_OK ||
            g16_params_proof_decode(&pr, enc, sizeof enc, &st) != G16_OK ||
            g16_params_verify(kp, &pr, pub, af.a.inp_assignment_size - 1, &st) != G16_OK ||
            g16_assignment_file_intact(&af, &st) != G16_OK) {
            fprintf(stderr, "g16 bench params: proof %d does not verify: %s\n", i, st.msg);
            rc = 1;
            goto done;
        }
        if (i >= 0)
            ms[i] = dt;
    }
    long rss_prove = bench_mem_phase(&mem, "prove");
    memcpy(sorted, ms, (size_t)reps * sizeof *ms);
    qsort(sorted, (size_t)reps, sizeof *sorted, cmp_double);
    char extra[1024];
    snprintf(extra, sizeof extra,
             "\"profile\":\"%s\",\"log_n\":%d,\"constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,"
             "\"a_aux_popcount\":%zu,\"b_aux_popcount\":%zu,\"threads\":%d,\"reps\":%d,\"verified\":%d,"
             "\"min_ms\":%.6g,\"median_ms\":%.6g,\"max_ms\":%.6g,\"key_load_ms\":%.2f,\"assignment_read_ms\":%.2f,"
             "\"rss_key_load_kb\":%ld,\"rss_prove_kb\":%ld,\"rss_peak_kb\":%ld",
             o->zkey ? "file" : "porep", __builtin_ctzll((unsigned long long)domain), af.a.abc_size - n_inp, n_inp,
             n_aux, af.a.a_aux_popcount, af.a.b_aux_popcount, g16_ctx_threads(ctx), reps, reps, sorted[0],
             sorted[reps / 2], sorted[reps - 1], load_ms, read_ms, rss_load, rss_prove, mem.peak_kb);
    bench_opts ro = *o;
    ro.backend = "cpu";
    bench_report(&ro, "params", G16_CURVE_BLS12_381, extra, "ms", sorted[reps / 2]);
    rc = 0;
done:
    g16_assignment_file_free(&af);
    g16_params_key_free(key);
    g16_ctx_destroy(ctx);
    if (made) {
        unlink(keyp);
        char vk[4096];
        snprintf(vk, sizeof vk, "%s/key.vk", dir);
        unlink(vk);
        unlink(asgp);
        rmdir(dir);
    }
    return rc;
}
