/* Assignment jobs in the engine (src/engine/assign.c, docs/engine.md
 * "Assignment jobs"), on a bellperson .params key:
 *   - a job of partitions from files, from copied bytes and from borrowed
 *     g16_assignment structs: every one proved, its 192-byte proof checked
 *     with g16_params_verify (through g16_params_verify_files) and, when an
 *     output folder is given, written there for the noble verifier
 *     (tests/test_engine_params.sh);
 *   - a job mixing good and bad partitions (a popcount that disagrees, a
 *     truncated file, a missing file, an aux value changed so that the
 *     partition does not satisfy the circuit): each bad one fails alone with
 *     its own error and message, the good ones are proved, and the engine
 *     then proves the next job;
 *   - priorities: a CRITICAL job submitted after a LOW one finishes first;
 *   - cancellation and timeouts: queued partitions never run, the budget
 *     returns to the key's bytes;
 *   - argument checks: witness jobs on a .params key, assignment jobs on a
 *     zkey, partitions with no or two sources.
 * Usage: test_engine_params [KEY.params ASSIGNMENT [OUTDIR [cuda]]] (default:
 * the toy vectors, no output folder, the CPU backend; "cuda": the main
 * engine on the CUDA backend, whose workers run these partitions on the GPU
 * (the metrics count no CPU fallback); exit 77 without a GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "g16.h"
#include "groth16/assignment.h"
#include "testutil.h"

static g16_ctx *g_ctx;
static char g_tmp[256];
static const char *g_key = "tests/vectors/params_toy.params";
static const char *g_asg = "tests/vectors/params_toy.assignment";
static char g_vk[600];
static const char *g_out;
static int g_nout;

static const char *last(void) {
    static char buf[512];
    (void)g16_ctx_last_error(g_ctx, buf, sizeof buf);
    return buf;
}

static int write_file(const char *path, const void *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Checks a proved partition: its proof verifies against the vk (g16's
 * verifier, from files), the JSON form agrees, and the pair is written to
 * g_out for noble. */
static void check_proved(g16_engine *e, uint64_t job, uint32_t i) {
    uint8_t proof[192];
    char *pub = NULL;
    g16_partition_stats ps;
    g16_err err = g16_engine_params_result(e, proof, &pub, &ps, job, i);
    CHECK_MSG(err == G16_OK, "partition %u: %s", i, last());
    if (err)
        return;
    CHECK(ps.worker >= 0);
    char pp[600], jp[600];
    snprintf(pp, sizeof pp, "%s/p.bin", g_tmp);
    snprintf(jp, sizeof jp, "%s/p.json", g_tmp);
    CHECK(write_file(pp, proof, sizeof proof) && write_file(jp, pub, strlen(pub)));
    g16_status st = {0};
    CHECK_MSG(g16_params_verify_files(g_vk, jp, pp, &st) == G16_OK, "partition %u: %s", i, st.msg);
    /* a changed public input is rejected (the check can fail) */
    if (strchr(pub, '"')) {
        char *bad = strdup(pub);
        char *q = strchr(bad, '"') + 1;
        *q = *q == '1' ? '2' : '1';
        CHECK(write_file(jp, bad, strlen(bad)));
        memset(&st, 0, sizeof st);
        CHECK(g16_params_verify_files(g_vk, jp, pp, &st) == G16_ERR_INVALID_PROOF);
        free(bad);
    }
    char *pj = NULL, *pub2 = NULL;
    CHECK(g16_engine_partition_result(e, &pj, &pub2, NULL, job, i) == G16_OK);
    if (pj && pub2) {
        char hex[385];
        for (int k = 0; k < 192; k++)
            sprintf(hex + 2 * k, "%02x", proof[k]);
        CHECK(strstr(pj, "\"format\":\"bellperson\"") && strstr(pj, hex));
        CHECK(!strcmp(pub, pub2));
    }
    g16_free(pj);
    g16_free(pub2);
    if (g_out) {
        snprintf(pp, sizeof pp, "%s/proof-%d.bin", g_out, g_nout);
        snprintf(jp, sizeof jp, "%s/public-%d.json", g_out, g_nout);
        CHECK(write_file(pp, proof, sizeof proof) && write_file(jp, pub, strlen(pub)));
        g_nout++;
    }
    g16_free(pub);
}

static g16_job_state job_state(g16_engine *e, uint64_t job, g16_engine_job_info *ji) {
    memset(ji, 0, sizeof *ji);
    CHECK(g16_engine_job_get_info(e, ji, job) == G16_OK);
    return ji->state;
}

static void *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void test_sources(g16_engine *e, uint64_t kid, const g16_assignment *mem, const void *bytes, size_t len) {
    g16_engine_assignment a[6] = {
        {.path = g_asg}, {.assignment = mem}, {.data = bytes, .len = len},
        {.assignment = mem}, {.path = g_asg}, {.data = bytes, .len = len},
    };
    uint64_t job = 0;
    CHECK_MSG(g16_engine_submit_assignments(e, &job, kid, a, 6, G16_PRIORITY_NORMAL, 0) == G16_OK, "%s", last());
    CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
    g16_engine_job_info ji;
    CHECK_MSG(job_state(e, job, &ji) == G16_JOB_DONE, "state %d: %s", ji.state, ji.msg);
    CHECK(ji.proved == 6 && ji.failed == 0);
    for (uint32_t i = 0; i < 6; i++)
        check_proved(e, job, i);
    /* two proofs of one partition differ (fresh r, s) */
    uint8_t p0[192], p1[192];
    CHECK(g16_engine_params_result(e, p0, NULL, NULL, job, 0) == G16_OK);
    CHECK(g16_engine_params_result(e, p1, NULL, NULL, job, 4) == G16_OK);
    CHECK(memcmp(p0, p1, 192) != 0);
    CHECK(g16_engine_job_release(e, job) == G16_OK);
}

static void test_bad(g16_engine *e, uint64_t kid, const g16_assignment *mem, const void *bytes, size_t len) {
    /* a_aux_popcount (offset 48) one less */
    unsigned char *pop = malloc(len);
    memcpy(pop, bytes, len);
    uint64_t pc;
    memcpy(&pc, pop + 48, 8);
    pc--;
    memcpy(pop + 48, &pc, 8);
    /* an unsatisfying partition: aux value 0 changed (in a copy of the
     * borrowed arrays) */
    g16_fr_mont *aux = malloc(mem->aux_assignment_size * sizeof *aux);
    memcpy(aux, mem->aux_assignment, mem->aux_assignment_size * sizeof *aux);
    aux[0].l[0] ^= 1;
    g16_assignment bad = *mem;
    bad.aux_assignment = aux;
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.assignment", g_tmp);
    g16_engine_assignment a[6] = {
        {.path = g_asg},        {.data = pop, .len = len}, {.data = bytes, .len = len / 2},
        {.path = missing},      {.assignment = &bad},      {.assignment = mem},
    };
    uint64_t job = 0;
    CHECK_MSG(g16_engine_submit_assignments(e, &job, kid, a, 6, G16_PRIORITY_HIGH, 0) == G16_OK, "%s", last());
    free(pop); /* copied at submit */
    CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
    g16_engine_job_info ji;
    CHECK(job_state(e, job, &ji) == G16_JOB_FAILED);
    CHECK_MSG(ji.proved == 2 && ji.failed == 4, "proved %u failed %u", ji.proved, ji.failed);
    check_proved(e, job, 0);
    check_proved(e, job, 5);
    struct {
        uint32_t i;
        g16_err err;
        const char *msg;
    } want[] = {
        {1, G16_ERR_FORMAT, "a_aux_popcount"},
        {2, G16_ERR_TRUNCATED, "assignment 2"},
        {3, G16_ERR_IO, "none.assignment"},
        {4, G16_ERR_INVALID_PROOF, "does not verify"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint8_t pr[192];
        g16_err err = g16_engine_params_result(e, pr, NULL, NULL, job, want[k].i);
        const char *m = last();
        CHECK_MSG(err == want[k].err && strstr(m, want[k].msg), "partition %u: %s (%s), want %s '%s'", want[k].i,
                  g16_err_str(err), m, g16_err_str(want[k].err), want[k].msg);
    }
    CHECK(g16_engine_job_release(e, job) == G16_OK);
    free(aux);
    /* the engine keeps serving */
    g16_engine_assignment ok = {.assignment = mem};
    CHECK(g16_engine_submit_assignments(e, &job, kid, &ok, 1, G16_PRIORITY_NORMAL, 0) == G16_OK);
    CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
    CHECK(job_state(e, job, &ji) == G16_JOB_DONE);
    check_proved(e, job, 0);
    CHECK(g16_engine_job_release(e, job) == G16_OK);
}

/* One worker, lookahead 1: while held, a LOW job then a CRITICAL one; the
 * CRITICAL one finishes first. Then cancellation and a timeout while held. */
static void test_sched(const g16_assignment *mem) {
    g16_engine_opts o;
    g16_engine_opts_init(&o);
    o.backend = G16_ENGINE_BACKEND_CPU;
    o.workers = 1;
    o.lookahead = 1;
    char tlp[600];
    snprintf(tlp, sizeof tlp, "%s/timeline.jsonl", g_tmp);
    o.timeline_path = tlp;
    g16_engine *e = NULL;
    CHECK(g16_engine_create(g_ctx, &e, &o) == G16_OK);
    if (!e)
        return;
    uint64_t kid = 0;
    CHECK_MSG(g16_engine_key_add(e, &kid, g_key, G16_KEY_PARAMS, G16_TIER_MMAP) == G16_OK, "%s", last());
    g16_engine_budget b0, b1;
    CHECK(g16_engine_get_budget(e, &b0) == G16_OK);
    g16_engine_assignment a[4] = {{.assignment = mem}, {.path = g_asg}, {.assignment = mem}, {.path = g_asg}};
    engine_hold_workers(e, 1);
    uint64_t low = 0, crit = 0;
    CHECK(g16_engine_submit_assignments(e, &low, kid, a, 4, G16_PRIORITY_LOW, 0) == G16_OK);
    CHECK(g16_engine_submit_assignments(e, &crit, kid, a, 4, G16_PRIORITY_CRITICAL, 0) == G16_OK);
    engine_hold_workers(e, 0);
    CHECK(g16_engine_wait(e, low, 60000) == G16_OK && g16_engine_wait(e, crit, 60000) == G16_OK);
    g16_engine_job_info jl, jc;
    CHECK(job_state(e, low, &jl) == G16_JOB_DONE && job_state(e, crit, &jc) == G16_JOB_DONE);
    CHECK_MSG(jc.finish_seq < jl.finish_seq, "critical finished %llu, low %llu", (unsigned long long)jc.finish_seq,
              (unsigned long long)jl.finish_seq);
    for (uint32_t i = 0; i < 4; i++)
        check_proved(e, crit, i);
    CHECK(g16_engine_job_release(e, low) == G16_OK && g16_engine_job_release(e, crit) == G16_OK);

    /* cancel while held: nothing of it runs */
    engine_hold_workers(e, 1);
    uint64_t cj = 0, tj = 0;
    CHECK(g16_engine_submit_assignments(e, &cj, kid, a, 4, G16_PRIORITY_NORMAL, 0) == G16_OK);
    CHECK(g16_engine_submit_assignments(e, &tj, kid, a, 4, G16_PRIORITY_LOW, 50) == G16_OK);
    usleep(100 * 1000);
    CHECK(g16_engine_cancel(e, cj) == G16_OK);
    CHECK(g16_engine_wait(e, cj, 60000) == G16_OK);
    CHECK(g16_engine_wait(e, tj, 60000) == G16_OK);
    engine_hold_workers(e, 0);
    g16_engine_job_info ji;
    CHECK(job_state(e, cj, &ji) == G16_JOB_CANCELLED && ji.proved == 0);
    CHECK(job_state(e, tj, &ji) == G16_JOB_CANCELLED && ji.proved == 0 && ji.err == G16_ERR_TIMEOUT);
    uint8_t pr[192];
    CHECK(g16_engine_params_result(e, pr, NULL, NULL, cj, 0) == G16_ERR_CANCELLED);
    CHECK(g16_engine_job_release(e, cj) == G16_OK && g16_engine_job_release(e, tj) == G16_OK);
    CHECK(g16_engine_get_budget(e, &b1) == G16_OK);
    CHECK_MSG(b1.used == b0.used, "budget used %llu after the jobs, %llu before", (unsigned long long)b1.used,
              (unsigned long long)b0.used);
    char *js = NULL;
    CHECK(g16_engine_status_json(e, &js) == G16_OK && js && strstr(js, "\"format\":\"params\""));
    g16_free(js);
    g16_engine_destroy(e, 1);
    /* the stages are in the timeline as a witness partition's are */
    size_t tl_len = 0;
    char *tl = read_all(tlp, &tl_len);
    CHECK(tl != NULL);
    if (tl) {
        tl[tl_len ? tl_len - 1 : 0] = 0;
        CHECK(strstr(tl, "\"ev\":\"synthesis\",\"ph\":\"B\"") && strstr(tl, "\"ev\":\"device\",\"ph\":\"E\"") &&
              strstr(tl, "\"ev\":\"finalize\",\"ph\":\"E\""));
    }
    free(tl);
}

static void test_args(g16_engine *e, uint64_t kid, const g16_assignment *mem) {
    uint64_t job = 0;
    g16_engine_witness w = {.path = "tests/vectors/params_toy.wtns"};
    CHECK(g16_engine_submit(e, &job, kid, &w, 1, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
    CHECK(strstr(last(), ".params key"));
    g16_engine_assignment none = {0};
    CHECK(g16_engine_submit_assignments(e, &job, kid, &none, 1, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
    g16_engine_assignment two = {.path = g_asg, .assignment = mem};
    CHECK(g16_engine_submit_assignments(e, &job, kid, &two, 1, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
    CHECK(g16_engine_submit_assignments(e, &job, kid + 100, &two, 0, G16_PRIORITY_NORMAL, 0) == G16_ERR_INVALID_ARG);
}

int main(int argc, char **argv) {
    if (argc >= 3) {
        g_key = argv[1];
        g_asg = argv[2];
    }
    if (argc >= 4 && argv[3][0])
        g_out = argv[3];
    int cuda = argc >= 5 && !strcmp(argv[4], "cuda");
    /* the vk beside the key (setup writes x.vk for x.params) */
    snprintf(g_vk, sizeof g_vk, "%s", g_key);
    char *dot = strrchr(g_vk, '.');
    if (dot && !strcmp(dot, ".params"))
        strcpy(dot, ".vk");
    g16_ctx_opts co;
    g16_ctx_opts_init(&co);
    co.threads = 2;
    g_ctx = g16_ctx_create(&co);
    CHECK(g_ctx != NULL);
    if (!g_ctx)
        return t_done("test_engine_params");
    snprintf(g_tmp, sizeof g_tmp, "/tmp/g16_engine_params.XXXXXX");
    CHECK(mkdtemp(g_tmp) != NULL);
    g16_assignment_file af;
    g16_status st = {0};
    g16_err rerr = g16_assignment_read(&af, g_asg, &st);
    CHECK_MSG(rerr == G16_OK, "%s", st.msg);
    size_t len = 0;
    void *bytes = read_all(g_asg, &len);
    CHECK(bytes != NULL);

    g16_engine_opts o;
    g16_engine_opts_init(&o);
    o.backend = cuda ? G16_ENGINE_BACKEND_CUDA : G16_ENGINE_BACKEND_CPU;
    o.workers = 2;
    o.synth_threads = 2;
    g16_engine *e = NULL;
    g16_err cerr = g16_engine_create(g_ctx, &e, &o);
    if (cuda && cerr == G16_ERR_NO_DEVICE) {
        fprintf(stderr, "test_engine_params: skipped: no GPU\n");
        g16_assignment_file_free(&af);
        free(bytes);
        rmdir(g_tmp);
        g16_ctx_destroy(g_ctx);
        return 77;
    }
    CHECK(cerr == G16_OK);
    uint64_t kid = 0;
    if (e && rerr == G16_OK && bytes) { /* af is mapped (af.buf NULL) or copied */
        /* detected by the name (".params"), no flag */
        CHECK_MSG(g16_engine_key_add(e, &kid, g_key, 0, G16_TIER_MMAP) == G16_OK, "%s", last());
        g16_engine_key_info ki;
        CHECK(g16_engine_key_get_info(e, &ki, kid) == G16_OK && ki.tier == G16_TIER_MMAP && ki.bytes > 0);
        test_args(e, kid, &af.a);
        test_sources(e, kid, &af.a, bytes, len);
        test_bad(e, kid, &af.a, bytes, len);
        test_sched(&af.a);
        if (cuda) { /* the GPU ran them: no CPU fallback counted */
            char *mt = NULL;
            CHECK(g16_engine_metrics(e, &mt) == G16_OK && mt);
            const char *fb = mt ? strstr(mt, "\ng16_partitions_cpu_fallback_total ") : NULL;
            CHECK_MSG(fb && !strncmp(fb + strlen("\ng16_partitions_cpu_fallback_total "), "0\n", 2),
                      "params partitions fell back to the CPU: %.80s", fb ? fb + 1 : "(no such metric)");
            g16_free(mt);
        }
        /* evict and reload through a job */
        CHECK(g16_engine_key_evict(e, kid) == G16_OK);
        CHECK(g16_engine_key_get_info(e, &ki, kid) == G16_OK && ki.tier == G16_TIER_NONE);
        g16_engine_assignment one = {.path = g_asg};
        uint64_t job = 0;
        CHECK(g16_engine_submit_assignments(e, &job, kid, &one, 1, G16_PRIORITY_NORMAL, 0) == G16_OK);
        CHECK(g16_engine_wait(e, job, 60000) == G16_OK);
        check_proved(e, job, 0);
        CHECK(g16_engine_job_release(e, job) == G16_OK);
        CHECK(g16_engine_key_get_info(e, &ki, kid) == G16_OK && ki.loads == 2);
        /* a file that is not a .params key fails at add */
        uint64_t bad = 0;
        CHECK(g16_engine_key_add(e, &bad, g_asg, G16_KEY_PARAMS, G16_TIER_MMAP) != G16_OK);
    }
    g16_engine_destroy(e, 1);
    g16_assignment_file_free(&af);
    free(bytes);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    (void)!system(cmd);
    if (g_out)
        fprintf(stderr, "test_engine_params: %d proofs in %s\n", g_nout, g_out);
    g16_ctx_destroy(g_ctx);
    return t_done("test_engine_params");
}
