/* g16 bench params [--key K.params --assignment P.assignment | --log-n K [--seed S]] [--reps R] [--threads T]
 * [--backend cpu|cuda] [--json]: bellperson partitions on the CPU or on a GPU (the key's bases resident there,
 * uploaded once and timed apart: gpu_upload_ms). --partitions P: then one engine job of P partitions on the
 * resident key, end to end (job_ms), each proof verified. --synthetic (with --log-n): the circuit and the
 * partition stay in memory; only the key is written (to the temporary directory). Without --key, makes a porep-profile circuit (synth.h) at 2^K
 * (default 14), its INSECURE test key (.params) and its partition (.assignment) in a temporary directory.
 * Loads the key (timed), reads the partition (mapped), proves it R times (default 3; timed, without the
 * prover's own verify) and verifies each proof against the key's vk; reports min / median / max, the key
 * load time and the peak RSS of the load and of the proofs. On cuda also the GPU stage times of the median
 * proof (g16_params_gpu_times: gpu_load_ms the copies in, gpu_compute_ms the device's work, and its parts);
 * with --partitions the job's CPU fallbacks (job_cpu_fallbacks) and, on stderr, each worker's MSM capacity
 * and note. The engine job runs after the bench's own key is freed (the engine loads its own; the proofs
 * are checked against the vk). --ab KEY=VALUE (cuda): an A/B of a working-area option (gpu.params_pinned)
 * in one run: R reps each, alternating, the working area remade with the other options between reps (outside
 * the timing; both areas at once would not fit beside a 2^27 key); "ab" reports B's min / median / max. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bench.h"
#include "cli/progress.h"
#include "groth16/assignment.h"
#include "groth16/groth16.h"
#include "engine/engine.h"
#include "groth16/synth.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The porep circuit, its key and partition in dir: key.params, key.vk and
 * part.assignment. in_mem (--synthetic): the circuit and witness stay in
 * memory (no .r1cs or .wtns), the partition is made from them into *af (no
 * .assignment written) and the circuit is freed before the key is loaded:
 * only the key goes to disk, for sizes whose files would not fit. */
static int make_inputs(const bench_opts *o, g16_ctx *ctx, const char *dir, char *key, char *asg, size_t len,
                       int in_mem, g16_assignment_file *af, synth_stats *ss, g16_status *st) {
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
    g16_r1cs cs;
    g16_frvec w;
    memset(&cs, 0, sizeof cs);
    memset(&w, 0, sizeof w);
    if (in_mem) {
        if (synth_generate_mem(&so, &cs, &w, ss, st))
            return -1;
    } else if (synth_generate(&so, ss, st) || g16_r1cs_read(&cs, r1cs, st)) {
        return -1;
    }
    groth16_setup_opts sopt = {.seed = seed, .backend = GROTH16_SETUP_AUTO};
    g16_err e = groth16_setup_params_insecure(ctx, &cs, &sopt, key, vk, NULL, st);
    if (!e && in_mem)
        e = g16_assignment_from_mem(af, &cs, &w, "synthetic porep circuit", st);
    if (w.raw)
        g16_wipe(w.raw, w.n * sizeof *w.raw);
    g16_frvec_free(&w);
    g16_r1cs_free(&cs);
    if (e || in_mem)
        return e ? -1 : 0;
    g16_assignment_file f;
    e = g16_assignment_from_r1cs(&f, r1cs, wtns, st);
    if (!e)
        e = g16_assignment_write(asg, &f.a, st);
    g16_assignment_file_free(&f);
    unlink(r1cs);
    unlink(wtns);
    return e ? -1 : 0;
}

/* --partitions P: one engine job of P partitions (the assignment, borrowed,
 * P times) on a key the engine holds resident (HOST tier; on the CUDA
 * backend its bases reach the device at the first partition there: a
 * warm-up job of one partition runs first, untimed). Each proof is checked
 * against the key's vk here as well. *job_ms: submit to finish of the P
 * partitions; *peak_mb: the engine's budget peak over the key (the
 * partitions in flight: their heavy-stage scratch; the borrowed
 * assignment itself is the caller's). */
static int engine_job(const bench_opts *o, g16_ctx *ctx, const char *keyp, const g16_params *kp,
                      const g16_assignment *as, int gpu, double *job_ms, double *peak_mb, int *inflight,
                      int *fallbacks) {
    g16_engine_opts eo;
    g16_engine_opts_init(&eo);
    eo.backend = gpu ? G16_ENGINE_BACKEND_CUDA : G16_ENGINE_BACKEND_CPU;
    if (gpu)
        eo.workers_per_device = o->workers_per_device > 0 ? o->workers_per_device : 1;
    if (o->synth_threads > 0)
        eo.synth_threads = o->synth_threads;
    eo.timeline_path = o->timeline; /* --timeline: the job's stage spans */
    g16_engine *e = NULL;
    char msg[512];
    int rc = -1, np = o->partitions;
    if (g16_engine_create(ctx, &e, &eo) != G16_OK) {
        g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 bench params: engine: %s\n", msg);
        return -1;
    }
    uint64_t kid = 0, job = 0;
    g16_engine_assignment *a = calloc((size_t)np, sizeof *a);
    const bls381_fr *pub = (const bls381_fr *)(const void *)(as->inp_assignment + 1);
    g16_engine_budget b0 = {0}, b1 = {0};
    if (!a || g16_engine_key_add(e, &kid, keyp, G16_KEY_PARAMS, G16_TIER_HOST) != G16_OK) {
        g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 bench params: engine key: %s\n", a ? msg : "out of memory");
        goto out;
    }
    for (int i = 0; i < np; i++)
        a[i].assignment = as;
    for (int pass = 0; pass < 2; pass++) { /* 0: the warm-up job of one partition */
        int n = pass ? np : 1;
        if (pass)
            (void)!g16_engine_get_budget(e, &b0);
        double t0 = g16_now_ms();
        g16_engine_job_info ji;
        if (g16_engine_submit_assignments(e, &job, kid, a, (size_t)n, G16_PRIORITY_NORMAL, 0) != G16_OK ||
            g16_engine_wait(e, job, -1) != G16_OK || g16_engine_job_get_info(e, &ji, job) != G16_OK) {
            g16_ctx_last_error(ctx, msg, sizeof msg);
            fprintf(stderr, "g16 bench params: engine job: %s\n", msg);
            goto out;
        }
        if (pass) {
            *job_ms = g16_now_ms() - t0;
            (void)!g16_engine_get_budget(e, &b1);
        }
        if (ji.state != G16_JOB_DONE || ji.proved != (uint32_t)n) {
            fprintf(stderr, "g16 bench params: engine job: %u of %d proved: %s\n", ji.proved, n, ji.msg);
            goto out;
        }
        for (int i = 0; i < n; i++) {
            uint8_t proof[G16_PARAMS_PROOF_SIZE];
            char *pj = NULL;
            g16_params_proof pr;
            g16_status st = {0};
            if (g16_engine_params_result(e, proof, &pj, NULL, job, (uint32_t)i) != G16_OK ||
                g16_params_proof_decode(&pr, proof, sizeof proof, &st) != G16_OK ||
                g16_params_verify(kp, &pr, pub, as->inp_assignment_size - 1, &st) != G16_OK) {
                fprintf(stderr, "g16 bench params: engine proof %d does not verify: %s\n", i, st.msg);
                g16_free(pj);
                goto out;
            }
            g16_free(pj);
        }
        (void)!g16_engine_job_release(e, job);
    }
    *peak_mb = b1.peak > b0.used ? (double)(b1.peak - b0.used) / 1e6 : 0;
    *inflight = 0;
    *fallbacks = 0;
    {
        /* the status: lookahead, and each worker's MSM capacity and note
         * (why its context is smaller, or why it ran a partition on the CPU) */
        char *js = NULL, *mt = NULL;
        json_t *root = g16_engine_status_json(e, &js) == G16_OK && js ? json_loads(js, 0, NULL) : NULL;
        json_t *la = json_object_get(root, "lookahead"), *ws = json_object_get(root, "workers");
        if (json_is_integer(la))
            *inflight = (int)json_integer_value(la);
        size_t wi;
        json_t *wk;
        json_array_foreach(ws, wi, wk) {
            const char *note = json_string_value(json_object_get(wk, "msm_note"));
            fprintf(stderr, "g16 bench params: engine worker %zu: %lld MSM points%s%s\n", wi,
                    (long long)json_integer_value(json_object_get(wk, "msm_points")), note ? ": " : "",
                    note ? note : "");
        }
        json_decref(root);
        /* partitions a GPU worker ran on the CPU (warm-up job included) */
        static const char fb[] = "\ng16_partitions_cpu_fallback_total ";
        if (g16_engine_metrics(e, &mt) == G16_OK && mt) {
            const char *f = strstr(mt, fb);
            if (f)
                *fallbacks = atoi(f + strlen(fb));
        }
        g16_free(js);
        g16_free(mt);
    }
    rc = 0;
out:
    g16_engine_destroy(e, 1);
    free(a);
    return rc;
}

/* sorted = ms[0..reps) in increasing order; returns the index of a median rep. */
static int median_rep(const double *ms, int reps, double *sorted) {
    memcpy(sorted, ms, (size_t)reps * sizeof *ms);
    qsort(sorted, (size_t)reps, sizeof *sorted, cmp_double);
    int med = 0;
    for (int i = 0; i < reps; i++)
        if (ms[i] == sorted[reps / 2])
            med = i;
    return med;
}

/* The GPU's stage times of one rep as JSON members, after lead ("," or ""). */
static void gpu_stages(char *buf, size_t len, const char *lead, const g16_params_gpu_times *t) {
    snprintf(buf, len,
             "%s\"gpu_load_ms\":%.2f,\"gpu_compute_ms\":%.2f,\"gpu_prep_ms\":%.2f,\"gpu_h_ms\":%.2f,"
             "\"gpu_scalars_ms\":%.2f,\"gpu_msm_h_ms\":%.2f,\"gpu_msm_l_ms\":%.2f,\"gpu_msm_a_ms\":%.2f,"
             "\"gpu_msm_b1_ms\":%.2f,\"gpu_msm_b2_ms\":%.2f",
             lead, t->load_ms, t->compute_ms, t->prep_ms, t->h_ms, t->scalars_ms, t->msm_ms[0], t->msm_ms[1],
             t->msm_ms[2], t->msm_ms[3], t->msm_ms[4]);
}

int bench_params(const bench_opts *o) {
    if ((o->zkey != NULL) != (o->assignment != NULL) || (o->zkey && (o->log_n > 0 || o->synthetic)) ||
        (o->log_n > 0 && o->log_n < 3) || o->log_n > 28) {
        fprintf(stderr, "usage: g16 bench params [--key key.params --assignment part.assignment | --log-n K (3..28) "
                        "[--seed S] [--synthetic]] [--reps R] [--threads T] [--backend cpu|cuda] [--partitions P] [--ab KEY=VALUE] [--json]\n");
        return 2;
    }
    int gpu = !strcmp(o->backend, "cuda");
    if (!gpu && strcmp(o->backend, "cpu") != 0) {
        fprintf(stderr, "g16 bench params: --backend cpu or cuda\n");
        return 2;
    }
    if (o->ab && !gpu) {
        fprintf(stderr, "g16 bench params: --ab applies to --backend cuda (the GPU working area's options)\n");
        return 2;
    }
    g16_ctx_opts copts = {.threads = o->threads};
    g16_ctx *ctx = bench_ctx_create(o, &copts);
    if (!ctx)
        return 2;
    int reps = o->reps > 0 ? (o->reps < 256 ? o->reps : 256) : 3, rc = 2;
    double ms[256], sorted[256], ms_b[256];
    int side = 0; /* the options the working area pg.gw was made with: 0 o->cfg, 1 o->cfg_b */
    char dir[] = "/tmp/g16-bench-params-XXXXXX", keyp[4096], asgp[4096], msg[512];
    int made = 0;
    g16_status st = {0};
    g16_params_key *key = NULL;
    g16_params vkp;
    int have_vkp = 0;
    g16_assignment_file af = {0};
    synth_stats ss = {0};
    bench_mem mem;
    struct {
        g16_gpu *g;
        g16_params_gpu_key *gk;
        g16_params_gpu_work *gw;
    } pg = {0};
    if (!o->zkey) {
        if (!mkdtemp(dir)) {
            fprintf(stderr, "g16 bench params: cannot make a temporary directory\n");
            goto done;
        }
        made = 1;
        if (make_inputs(o, ctx, dir, keyp, asgp, sizeof keyp, o->synthetic, &af, &ss, &st)) {
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
    if (!o->synthetic && g16_assignment_read(&af, asgp, &st) != G16_OK) {
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
    const bls381_fr *pub = (const bls381_fr *)(const void *)(af.a.inp_assignment + 1);
    /* cuda: the key resident on the device (uploaded once, timed apart), one
     * context and working area; each rep is the checks, the GPU heavy stage
     * and the finalize (g16_params_finish, its verify off), as a daemon's
     * worker runs a partition. */
    double upload_ms = 0;
    if (gpu) {
        t0 = g16_now_ms();
        if (g16_gpu_create(&pg.g, 0, g16_params_gpu_max_points(key), 1, g16_ctx_config(ctx), &st) != G16_OK ||
            g16_params_gpu_key_upload(pg.g, &pg.gk, key, &st) != G16_OK ||
            g16_params_gpu_work_create(pg.g, &pg.gw, key, g16_ctx_config(ctx), &st) != G16_OK) {
            fprintf(stderr, "g16 bench params: GPU set-up: %s\n", st.msg);
            goto done;
        }
        upload_ms = g16_now_ms() - t0;
    }
    long rss_upload = bench_mem_phase(&mem, "upload");
    g16_params_gpu_times gt[256], gt_b[256];
    memset(gt, 0, sizeof gt);
    memset(gt_b, 0, sizeof gt_b);
    const int ab = o->ab != NULL;
    for (int j = -1; j < (ab ? 2 * reps : reps); j++) { /* j = -1: a warm-up (the NTT's twiddles) */
        uint8_t enc[G16_PARAMS_PROOF_SIZE];
        const int want = ab && j >= 0 && (j & 1), i = ab && j >= 0 ? j / 2 : j;
        if (gpu && want != side) { /* A/B: remake the working area with the other side's options */
            g16_params_gpu_work_free(pg.g, pg.gw);
            pg.gw = NULL;
            if (g16_params_gpu_work_create(pg.g, &pg.gw, key, want ? &o->cfg_b : g16_ctx_config(ctx), &st) != G16_OK) {
                fprintf(stderr, "g16 bench params: GPU working area (--ab): %s\n", st.msg);
                goto done;
            }
            side = want;
        }
        t0 = g16_now_ms();
        if (gpu) {
            g16_params_msms m;
            if (g16_params_gpu_load(pg.g, pg.gw, key, &af.a, ctx->pool, "assignment", &st) != G16_OK ||
                g16_params_gpu_compute(pg.g, pg.gw, pg.gk, &m, key, &af.a, "assignment", &st) != G16_OK ||
                g16_params_finish(enc, key, &m, pub, af.a.inp_assignment_size - 1, 0, NULL, "assignment", &st) !=
                    G16_OK) {
                fprintf(stderr, "g16 bench params: %s\n", st.msg);
                goto done;
            }
        } else {
            g16_params_proof_raw raw;
            if (g16_prove_assignments_st(ctx, key, &af.a, 1, &po, &raw, &st) != G16_OK ||
                g16_params_proof_raw_encode(enc, &raw) != G16_OK) {
                fprintf(stderr, "g16 bench params: %s\n", st.msg);
                goto done;
            }
        }
        double dt = g16_now_ms() - t0;
        g16_params_proof pr;
        if (g16_params_proof_decode(&pr, enc, sizeof enc, &st) != G16_OK ||
            g16_params_verify(kp, &pr, pub, af.a.inp_assignment_size - 1, &st) != G16_OK ||
            g16_assignment_file_intact(&af, &st) != G16_OK) {
            fprintf(stderr, "g16 bench params: proof %d does not verify: %s\n", i, st.msg);
            rc = 1;
            goto done;
        }
        if (i >= 0) {
            (want ? ms_b : ms)[i] = dt;
            g16_params_gpu_work_times(pg.gw, want ? &gt_b[i] : &gt[i]);
        }
    }
    long rss_prove = bench_mem_phase(&mem, "prove");
    size_t gpu_key_b = gpu ? g16_params_gpu_key_bytes(key) : 0, gpu_work_b = gpu ? g16_params_gpu_work_bytes(key) : 0;
    double job_ms = 0, peak_mb = 0;
    int lookahead = 0, fallbacks = 0;
    if (o->partitions > 0) {
        /* the single-proof GPU state and key first: the engine loads its
         * own (two copies of a 2^27 key are 100 GB); the proofs are checked
         * against the vk alone */
        g16_params_gpu_work_free(pg.g, pg.gw);
        g16_params_gpu_key_free(pg.g, pg.gk);
        g16_gpu_destroy(pg.g);
        memset(&pg, 0, sizeof pg);
        g16_params_key_free(key);
        key = NULL;
        g16_params_opts vo = {.kind = G16_PARAMS_KIND_FULL, .subgroup = 0, .vk_only = 1};
        if (g16_params_load(&vkp, keyp, &vo, NULL, &st) != G16_OK) {
            fprintf(stderr, "g16 bench params: the vk of %s: %s\n", keyp, st.msg);
            goto done;
        }
        have_vkp = 1;
        if (engine_job(o, ctx, keyp, &vkp, &af.a, gpu, &job_ms, &peak_mb, &lookahead, &fallbacks))
            goto done;
    }
    long rss_job = o->partitions > 0 ? bench_mem_phase(&mem, "engine_job") : 0;
    int med = median_rep(ms, reps, sorted);
    char stages[512] = "", abj[1024] = "";
    if (gpu)
        gpu_stages(stages, sizeof stages, ",", &gt[med]);
    if (ab) {
        double sorted_b[256];
        char st_b[512];
        int med_b = median_rep(ms_b, reps, sorted_b);
        gpu_stages(st_b, sizeof st_b, "", &gt_b[med_b]);
        char *set = bench_json_string(o->ab);
        snprintf(abj, sizeof abj, ",\"ab\":{\"set\":%.400s,\"min_ms\":%.6g,\"median_ms\":%.6g,\"max_ms\":%.6g,%s}",
                 set ? set : "null", sorted_b[0], sorted_b[reps / 2], sorted_b[reps - 1], st_b);
        free(set);
    }
    char extra[4096];
    snprintf(extra, sizeof extra,
             "\"profile\":\"%s\",\"log_n\":%d,\"constraints\":%zu,\"inputs\":%zu,\"aux\":%zu,"
             "\"a_aux_popcount\":%zu,\"b_aux_popcount\":%zu,\"threads\":%d,\"reps\":%d,\"verified\":%d,"
             "\"min_ms\":%.6g,\"median_ms\":%.6g,\"max_ms\":%.6g,\"key_load_ms\":%.2f,\"assignment_read_ms\":%.2f,"
             "\"rss_key_load_kb\":%ld,\"rss_prove_kb\":%ld,\"rss_peak_kb\":%ld,\"gpu_upload_ms\":%.2f,"
             "\"gpu_key_bytes\":%zu,\"gpu_work_bytes\":%zu,\"rss_upload_kb\":%ld,\"job_partitions\":%d,"
             "\"job_ms\":%.2f,\"job_ms_per_partition\":%.2f,\"job_budget_peak_mb\":%.1f,\"job_lookahead\":%d,"
             "\"rss_job_kb\":%ld,\"job_cpu_fallbacks\":%d%s%s",
             o->zkey ? "file" : o->synthetic ? "porep-in-memory" : "porep", __builtin_ctzll((unsigned long long)domain), af.a.abc_size - n_inp, n_inp,
             n_aux, af.a.a_aux_popcount, af.a.b_aux_popcount, g16_ctx_threads(ctx), reps, ab ? 2 * reps : reps, sorted[0],
             sorted[reps / 2], sorted[reps - 1], load_ms, read_ms, rss_load, rss_prove, mem.peak_kb, upload_ms,
             gpu_key_b, gpu_work_b, rss_upload,
             o->partitions, job_ms, o->partitions > 0 ? job_ms / o->partitions : 0, peak_mb, lookahead, rss_job, fallbacks, stages, abj);
    bench_opts ro = *o;
    ro.backend = gpu ? "cuda" : "cpu";
    bench_report(&ro, "params", G16_CURVE_BLS12_381, extra, "ms", sorted[reps / 2]);
    rc = 0;
done:
    if (have_vkp)
        g16_params_free(&vkp);
    g16_params_gpu_work_free(pg.g, pg.gw);
    g16_params_gpu_key_free(pg.g, pg.gk);
    g16_gpu_destroy(pg.g);
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
