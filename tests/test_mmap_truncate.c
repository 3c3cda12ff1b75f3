/* Mapped files that change while in use (src/util/fmap.h, g16_key_check):
 *  - a guarded mapping whose file is truncated reads zeros instead of
 *    killing the process with SIGBUS, is poisoned for good (TRUNCATED), and
 *    the fault count grows; a rewrite in place without shrinking is CHANGED;
 *    a rename over the path is STALE only (the mapping is intact); a fault
 *    in a mapping that is not ours reaches the handler installed before;
 *  - a key truncated by another thread while a thread proves in a loop:
 *    every g16_prove returns G16_OK (and the proof verifies) or G16_ERR_IO
 *    naming the file, never a crash; once IO, every later proof on that key
 *    is IO, also after the file is restored; g16_key_check says TRUNCATED;
 *    loading the key again after the restore proves and verifies;
 *  - a key rewritten in place with another key of the same size: CHANGED,
 *    proofs refused (IO), not a confusing verification failure;
 *  - a .wtns container truncated under its reader: IO, not its zeros' verdict;
 *  - the engine: a job on a truncated key fails every partition with
 *    G16_ERR_IO and the file's name, g16_engine_key_check says so, and an
 *    evict + preload after the restore proves again (with a GPU present,
 *    on the CUDA backend too: the key resident on the device).
 * Both key layouts run: aligned (the bases are read from the mapping by
 * every proof: the SIGBUS path) and snarkjs's misaligned one (the bases are
 * copied at load: only the fstat check can see the change). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"
#include "util/fmap.h"

#include "g16.h"

static char g_dir[256];

/* ---- the handler that was there before the library's ---------------------- */
static sigjmp_buf g_jmp;
static volatile sig_atomic_t g_foreign_faults;

static void prior_handler(int sig, siginfo_t *si, void *uc) {
    (void)sig, (void)si, (void)uc;
    g_foreign_faults++;
    siglongjmp(g_jmp, 1);
}

static int write_file(const char *path, const void *data, size_t len, int truncate_first) {
    int fd = open(path, O_WRONLY | O_CREAT | (truncate_first ? O_TRUNC : 0), 0644);
    if (fd < 0)
        return -1;
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, p + done, len - done, (off_t)done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return close(fd);
}

/* Sets path's mtime to `sec` seconds after the epoch (no reliance on the
 * clock's granularity to tell two writes apart). */
static void set_mtime(const char *path, time_t sec) {
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static void fmap_tests(void) {
    char path[320], path2[320];
    snprintf(path, sizeof path, "%s/f.bin", g_dir);
    snprintf(path2, sizeof path2, "%s/f2.bin", g_dir);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 4 * pg;
    uint8_t *buf = malloc(len);
    CHECK(buf != NULL);
    if (!buf)
        return;
    memset(buf, 0xa5, len);
    CHECK(write_file(path, buf, len, 1) == 0);
    set_mtime(path, 1000000);
    g16_status st = {0};
    g16_fmap m;
    struct stat sb;
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &sb) == 0);
    CHECK_MSG(g16_fmap_map(&m, fd, &sb, path, "f.bin", &st) == G16_OK, "%s", st.msg);
    const volatile uint8_t *p = m.base;
    CHECK(p[0] == 0xa5 && p[3 * pg] == 0xa5);
    CHECK(g16_fmap_state(&m, NULL) == G16_FMAP_INTACT && !g16_fmap_stale(&m));

    /* Truncated under the mapping: the read faults, reads zero, poisons. */
    uint64_t f0 = g16_fmap_faults();
    CHECK(truncate(path, (off_t)pg) == 0);
    CHECK(p[3 * pg] == 0);
    CHECK(p[0] == 0); /* the whole mapping was replaced */
    CHECK(g16_fmap_faults() == f0 + 1);
    CHECK(g16_fmap_poisoned(&m));
    uint64_t now = 0;
    CHECK(g16_fmap_state(&m, &now) == G16_FMAP_TRUNCATED && now == pg);
    /* Restoring the file does not heal the mapping. */
    CHECK(write_file(path, buf, len, 0) == 0);
    CHECK(g16_fmap_state(&m, NULL) == G16_FMAP_TRUNCATED && p[0] == 0);
    g16_fmap_close(&m);
    g16_fmap_close(&m); /* closed: a no-op */

    /* Rewritten in place without shrinking: CHANGED (no fault). */
    set_mtime(path, 1000000);
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &sb) == 0);
    CHECK(g16_fmap_map(&m, fd, &sb, path, "f.bin", &st) == G16_OK);
    p = m.base;
    CHECK(p[pg] == 0xa5);
    buf[pg] = 0x5a;
    CHECK(write_file(path, buf, len, 0) == 0);
    set_mtime(path, 1000001);
    CHECK(g16_fmap_state(&m, NULL) == G16_FMAP_CHANGED && !g16_fmap_poisoned(&m));
    CHECK(g16_fmap_stale(&m));
    g16_fmap_close(&m);

    /* Replaced by a rename: the mapping is intact, the path is stale. */
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &sb) == 0);
    CHECK(g16_fmap_map(&m, fd, &sb, path, "f.bin", &st) == G16_OK);
    CHECK(write_file(path2, buf, len / 2, 1) == 0);
    CHECK(rename(path2, path) == 0);
    CHECK(g16_fmap_state(&m, NULL) == G16_FMAP_INTACT && g16_fmap_stale(&m));
    CHECK(((const volatile uint8_t *)m.base)[3 * pg] == 0xa5);
    g16_fmap_close(&m);

    /* A fault in a mapping the library does not own goes to the handler
     * that was installed before the library's. */
    CHECK(write_file(path2, buf, len, 1) == 0);
    fd = open(path2, O_RDONLY);
    void *foreign = fd >= 0 ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    CHECK(foreign != MAP_FAILED);
    if (fd >= 0)
        close(fd);
    if (foreign != MAP_FAILED) {
        CHECK(truncate(path2, 0) == 0);
        uint64_t f1 = g16_fmap_faults();
        if (sigsetjmp(g_jmp, 1) == 0) {
            volatile uint8_t x = ((const volatile uint8_t *)foreign)[2 * pg];
            (void)x;
            CHECK_MSG(0, "read of a truncated foreign mapping did not fault");
        }
        CHECK(g_foreign_faults == 1 && g16_fmap_faults() == f1);
        munmap(foreign, len);
    }
    free(buf);
    printf("  fmap: truncation -> zeros + poisoned; in-place rewrite CHANGED; rename STALE; foreign faults chained\n");
}

/* A .wtns container truncated under its reader: the reader's own verdict
 * on the zeros (here: "FORMAT") gives way to IO naming the file. */
static void binfile_tests(const g16_frvec *wv) {
    char path[320];
    snprintf(path, sizeof path, "%s/w.wtns", g_dir);
    g16_status st = {0};
    g16_binfile bf;
    CHECK(g16_wtns_write(path, wv, &st) == G16_OK);
    CHECK_MSG(g16_binfile_open(&bf, path, "wtns", 2, &st) == G16_OK, "%s", st.msg);
    const g16_binfile_section *s2 = NULL;
    CHECK(g16_binfile_find(&bf, 2, &s2, &st) == G16_OK && s2 && s2->size >= 64);
    if (s2) {
        CHECK(g16_binfile_check(&bf, NULL, NULL, &st) == G16_OK);
        CHECK(g16_binfile_settle(&bf, G16_ERR_FORMAT, NULL, &st) == G16_ERR_FORMAT);
        CHECK(truncate(path, 0) == 0);
        const volatile uint8_t *v = s2->data + s2->size - 32;
        CHECK(v[0] == 0 && v[31] == 0);
        int state = -1;
        CHECK(g16_binfile_check(&bf, NULL, &state, &st) == G16_ERR_IO && state == G16_FMAP_TRUNCATED);
        st.msg[0] = 0;
        CHECK(g16_binfile_settle(&bf, G16_ERR_FORMAT, NULL, &st) == G16_ERR_IO);
        CHECK_MSG(strstr(st.msg, "w.wtns changed while in use (truncated") != NULL, "wtns message: %s", st.msg);
    }
    g16_binfile_close(&bf);
    /* An in-memory container is never "changed". */
    uint8_t hdr[12] = {'w', 't', 'n', 's', 2, 0, 0, 0, 0, 0, 0, 0};
    CHECK(g16_binfile_open_mem(&bf, "mem", hdr, sizeof hdr, "wtns", 2, &st) == G16_OK);
    CHECK(g16_binfile_check(&bf, NULL, NULL, &st) == G16_OK);
    g16_binfile_close(&bf);
    printf("  binfile: a .wtns truncated under its reader reports IO, not its zeros\n");
}

/* ---- keys ------------------------------------------------------------------ */

typedef struct prover_loop {
    g16_ctx *ctx;
    g16_key *key;
    const g16_frvec *wv;
    atomic_int done;       /* proofs finished so far */
    atomic_int stop;
    int ok, io, other, bad_verify, ok_after_io;
    char other_msg[256], io_msg[512];
} prover_loop;

static g16_witness *wit_copy(const g16_frvec *v) {
    g16_frvec c = *v;
    c.raw = malloc((size_t)v->n * 32);
    if (!c.raw)
        return NULL;
    memcpy(c.raw, v->raw, (size_t)v->n * 32);
    g16_witness *w = NULL;
    g16_status st = {0};
    if (groth16_witness_from_frvec(&w, &c, &st) != G16_OK)
        free(c.raw);
    return w;
}

static g16_err prove_once(g16_ctx *ctx, g16_key *key, const g16_frvec *wv, int *verified, char *msg, size_t mlen) {
    g16_witness *w = wit_copy(wv);
    g16_result *res = NULL;
    g16_status st = {0};
    *verified = 0;
    msg[0] = 0;
    g16_err e = w ? g16_prove(ctx, &res, key, w, NULL, NULL) : G16_ERR_NOMEM;
    if (e)
        g16_ctx_last_error(ctx, msg, mlen);
    else
        *verified = groth16_result_verify(key, res, &st) == G16_OK;
    g16_result_free(res);
    g16_witness_free(w);
    return e;
}

static void *prover_main(void *arg) {
    prover_loop *pl = arg;
    while (!atomic_load(&pl->stop)) {
        char msg[512];
        int verified;
        g16_err e = prove_once(pl->ctx, pl->key, pl->wv, &verified, msg, sizeof msg);
        if (e == G16_OK) {
            pl->ok++;
            pl->bad_verify += !verified;
            pl->ok_after_io += pl->io > 0;
        } else if (e == G16_ERR_IO) {
            if (!pl->io++)
                snprintf(pl->io_msg, sizeof pl->io_msg, "%s", msg);
        } else {
            if (!pl->other++)
                snprintf(pl->other_msg, sizeof pl->other_msg, "%s: %.200s", g16_err_str(e), msg);
        }
        atomic_fetch_add(&pl->done, 1);
    }
    return NULL;
}

static void wait_done(prover_loop *pl, int n) {
    for (int i = 0; i < 60000 && atomic_load(&pl->done) < n; i++)
        usleep(1000);
}

static void engine_test(g16_ctx *ctx, const char *kpath, const void *img, size_t len, const g16_frvec *wv,
                        const char *tag0, g16_engine_backend backend) {
    g16_status st = {0};
    g16_engine *eng = NULL;
    g16_engine_opts o = {.backend = backend, .workers = 2, .synth_threads = 2};
    char tag[96];
    snprintf(tag, sizeof tag, "%s, %s backend", tag0, backend == G16_ENGINE_BACKEND_CUDA ? "CUDA" : "CPU");
    void *wb = NULL;
    size_t wl = 0;
    CHECK(g16_wtns_encode(&wb, &wl, wv, &st) == G16_OK);
    if (g16_engine_create(ctx, &eng, &o) != G16_OK || !wb) {
        CHECK_MSG(0, "%s: engine create", tag);
        free(wb);
        return;
    }
    g16_engine_witness w[4];
    for (int i = 0; i < 4; i++)
        w[i] = (g16_engine_witness){.data = wb, .len = wl};
    uint64_t kid = 0, job = 0;
    g16_engine_job_info ji;
    g16_key_state ks;
    CHECK(g16_engine_key_add(eng, &kid, kpath, 0, G16_TIER_MMAP) == G16_OK);
    CHECK(g16_engine_key_check(eng, &ks, kid) == G16_OK && ks == G16_KEY_FILE_INTACT);
    CHECK(g16_engine_submit(eng, &job, kid, w, 1, G16_PRIORITY_NORMAL, 0) == G16_OK &&
          g16_engine_wait(eng, job, -1) == G16_OK && g16_engine_job_get_info(eng, &ji, job) == G16_OK);
    CHECK_MSG(ji.state == G16_JOB_DONE, "%s: engine job before the truncation: %s", tag, ji.msg);
    (void)!g16_engine_job_release(eng, job);

    CHECK(truncate(kpath, (off_t)(len / 3)) == 0);
    CHECK(g16_engine_submit(eng, &job, kid, w, 4, G16_PRIORITY_NORMAL, 0) == G16_OK &&
          g16_engine_wait(eng, job, -1) == G16_OK && g16_engine_job_get_info(eng, &ji, job) == G16_OK);
    CHECK_MSG(ji.state == G16_JOB_FAILED && ji.failed == 4 && ji.err == G16_ERR_IO && strstr(ji.msg, kpath) &&
                  strstr(ji.msg, "changed while in use"),
              "%s: engine job on a truncated key: state %d, %u failed, %s: %s", tag, (int)ji.state, ji.failed,
              g16_err_str(ji.err), ji.msg);
    for (uint32_t i = 0; i < 4; i++) {
        char *pj = NULL;
        CHECK(g16_engine_partition_result(eng, &pj, NULL, NULL, job, i) == G16_ERR_IO && pj == NULL);
    }
    (void)!g16_engine_job_release(eng, job);
    char msg[512];
    CHECK(g16_engine_key_check(eng, &ks, kid) == G16_ERR_IO && ks == G16_KEY_FILE_TRUNCATED);
    g16_ctx_last_error(ctx, msg, sizeof msg);
    CHECK_MSG(strstr(msg, "reload the key") != NULL, "%s: engine key check message: %s", tag, msg);

    /* Restored, then evicted and loaded again: proofs again. */
    CHECK(write_file(kpath, img, len, 1) == 0);
    set_mtime(kpath, 3000000);
    /* Still the damaged one where proofs read the mapping (CPU). A GPU
     * engine released the key's host bases after the upload and proves from
     * the device copy, which the truncation never reached: with the file
     * back as it was, its check may read intact (seen on the H200). */
    if (backend == G16_ENGINE_BACKEND_CPU)
        CHECK(g16_engine_key_check(eng, &ks, kid) == G16_ERR_IO);
    CHECK(g16_engine_key_evict(eng, kid) == G16_OK);
    CHECK(g16_engine_key_check(eng, &ks, kid) == G16_OK && ks == G16_KEY_FILE_INTACT);
    CHECK(g16_engine_key_preload(eng, kid) == G16_OK);
    CHECK(g16_engine_submit(eng, &job, kid, w, 2, G16_PRIORITY_NORMAL, 0) == G16_OK &&
          g16_engine_wait(eng, job, -1) == G16_OK && g16_engine_job_get_info(eng, &ji, job) == G16_OK);
    CHECK_MSG(ji.state == G16_JOB_DONE && ji.proved == 2, "%s: engine job after the reload: %s", tag, ji.msg);
    (void)!g16_engine_job_release(eng, job);
    g16_engine_destroy(eng, 1);
    free(wb);
    printf("  %s: engine: truncated key fails every partition (IO), evict + preload after restore proves\n", tag);
}

static void key_test(g16_ctx *ctx, g16_curve curve, int align, uint64_t seed) {
    char tag[64], kpath[320], kpath2[320];
    snprintf(tag, sizeof tag, "%s %s", curve == G16_CURVE_BN254 ? "bn254" : "bls12-381",
             align ? "aligned" : "snarkjs layout");
    snprintf(kpath, sizeof kpath, "%s/circuit-%d-%d.zkey", g_dir, (int)curve, align);
    snprintf(kpath2, sizeof kpath2, "%s/other-%d-%d.zkey", g_dir, (int)curve, align);
    synth_opts so = {.curve = curve, .log_n = 9, .profile = SYNTH_DENSE, .partitions = 1, .seed = seed};
    g16_status st = {0};
    g16_r1cs cs = {0};
    g16_frvec wv = {0};
    g16_key *key = NULL;
    void *img = NULL, *img2 = NULL;
    size_t len = 0, len2 = 0;
    char msg[512];
    int verified;
    if (synth_generate_mem(&so, &cs, &wv, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "synth: %s", st.msg);
        return;
    }
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU, .align = align};
    groth16_setup_opts o2 = {.seed = seed + 1, .backend = GROTH16_SETUP_CPU, .align = align};
    if (groth16_setup_insecure_ex(ctx, &cs, &o, kpath, NULL, NULL, NULL, &st) != G16_OK ||
        groth16_setup_insecure_ex(ctx, &cs, &o2, kpath2, NULL, NULL, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "%s: setup: %s", tag, st.msg);
        goto out;
    }
    img = t_read_file(kpath, &len);
    img2 = t_read_file(kpath2, &len2);
    CHECK(img && img2 && len == len2);
    if (!img || !img2 || len != len2)
        goto out;
    set_mtime(kpath, 2000000);
    if (align && curve == G16_CURVE_BN254)
        binfile_tests(&wv);

    /* Truncated by another thread while this one proves in a loop. */
    CHECK_MSG(g16_key_load(ctx, &key, kpath, 0) == G16_OK, "%s: load", tag);
    if (!key)
        goto out;
    uint64_t faults0 = g16_fmap_faults();
    prover_loop pl = {.ctx = ctx, .key = key, .wv = &wv};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, prover_main, &pl) == 0);
    wait_done(&pl, 2);
    CHECK(truncate(kpath, (off_t)(len / 2)) == 0);
    int at = atomic_load(&pl.done);
    wait_done(&pl, at + 4);
    atomic_store(&pl.stop, 1);
    pthread_join(th, NULL);
    CHECK_MSG(pl.other == 0, "%s: a proof returned neither OK nor IO: %s", tag, pl.other_msg);
    CHECK_MSG(pl.ok >= 2 && pl.bad_verify == 0, "%s: %d proofs OK, %d do not verify", tag, pl.ok, pl.bad_verify);
    CHECK_MSG(pl.io >= 3 && pl.ok_after_io == 0, "%s: %d IO, %d OK after an IO", tag, pl.io, pl.ok_after_io);
    CHECK_MSG(strstr(pl.io_msg, kpath) && strstr(pl.io_msg, "changed while in use") &&
                  strstr(pl.io_msg, "truncated") && strstr(pl.io_msg, "reload the key"),
              "%s: message: %s", tag, pl.io_msg);
    if (align) /* the bases are read in place: the SIGBUS path ran */
        CHECK_MSG(g16_fmap_faults() > faults0, "%s: no fault was recovered", tag);
    g16_key_state ks = G16_KEY_FILE_INTACT;
    CHECK(g16_key_check(ctx, &ks, key) == G16_ERR_IO && ks == G16_KEY_FILE_TRUNCATED);

    /* Restored in place: the loaded key stays damaged; a reload proves. */
    CHECK(write_file(kpath, img, len, 1) == 0);
    set_mtime(kpath, 2000002);
    CHECK(prove_once(ctx, key, &wv, &verified, msg, sizeof msg) == G16_ERR_IO);
    CHECK(g16_key_check(ctx, &ks, key) == G16_ERR_IO && ks == G16_KEY_FILE_TRUNCATED);
    g16_key_free(key);
    key = NULL;
    CHECK_MSG(g16_key_load(ctx, &key, kpath, 0) == G16_OK, "%s: reload", tag);
    if (!key)
        goto out;
    CHECK(g16_key_check(ctx, &ks, key) == G16_OK && ks == G16_KEY_FILE_INTACT);
    CHECK_MSG(prove_once(ctx, key, &wv, &verified, msg, sizeof msg) == G16_OK && verified, "%s: after reload: %s",
              tag, msg);

    /* Rewritten in place with another key of the same size (no fault): the
     * change check refuses, not the verification. */
    set_mtime(kpath, 2000000);
    g16_key_free(key);
    key = NULL;
    CHECK(g16_key_load(ctx, &key, kpath, 0) == G16_OK);
    if (!key)
        goto out;
    CHECK(write_file(kpath, img2, len2, 0) == 0);
    set_mtime(kpath, 2000001);
    CHECK(g16_key_check(ctx, &ks, key) == G16_ERR_IO && ks == G16_KEY_FILE_CHANGED);
    CHECK(prove_once(ctx, key, &wv, &verified, msg, sizeof msg) == G16_ERR_IO);
    CHECK_MSG(strstr(msg, "rewritten in place") != NULL, "%s: in-place message: %s", tag, msg);
    g16_key_free(key);
    key = NULL;

    /* Replaced by a rename (how g16 and careful tools write): the loaded key
     * is intact and proves; the path is STALE. */
    CHECK(write_file(kpath, img, len, 1) == 0);
    CHECK(g16_key_load(ctx, &key, kpath, 0) == G16_OK);
    if (!key)
        goto out;
    CHECK(write_file(kpath2, img2, len2, 1) == 0);
    CHECK(rename(kpath2, kpath) == 0);
    CHECK(g16_key_check(ctx, &ks, key) == G16_OK && ks == G16_KEY_FILE_STALE);
    CHECK_MSG(prove_once(ctx, key, &wv, &verified, msg, sizeof msg) == G16_OK && verified, "%s: renamed over: %s",
              tag, msg);
    g16_key_free(key);
    key = NULL;

    /* The host tier (a copy): a change of the file is STALE only. */
    CHECK(write_file(kpath, img, len, 1) == 0);
    CHECK(groth16_key_load_ex(ctx, &key, kpath, 0, 1, &st) == G16_OK);
    if (key) {
        CHECK(truncate(kpath, 100) == 0);
        CHECK(g16_key_check(ctx, &ks, key) == G16_OK && ks == G16_KEY_FILE_STALE);
        CHECK_MSG(prove_once(ctx, key, &wv, &verified, msg, sizeof msg) == G16_OK && verified, "%s: host copy: %s",
                  tag, msg);
        g16_key_free(key);
        key = NULL;
    }
    CHECK(write_file(kpath, img, len, 1) == 0);
    if (align && curve == G16_CURVE_BN254) {
        engine_test(ctx, kpath, img, len, &wv, tag, G16_ENGINE_BACKEND_CPU);
        if (g16_gpu_count() > 0) /* the key on the device: uploads from a changed file refused */
            engine_test(ctx, kpath, img, len, &wv, tag, G16_ENGINE_BACKEND_CUDA);
    }
    printf("  %s: %d proofs OK then %d IO under a truncation; reload proves; in-place rewrite and rename told apart\n",
           tag, pl.ok, pl.io);
out:
    g16_key_free(key);
    free(img);
    free(img2);
    g16_r1cs_free(&cs);
    g16_frvec_free(&wv);
}

int main(void) {
    uint64_t seed = t_seed("test_mmap_truncate");
    /* The application's own SIGBUS handler, there before the library maps
     * anything: the library chains to it for faults that are not its own. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prior_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    snprintf(g_dir, sizeof g_dir, "/tmp/g16-mmap-XXXXXX");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    g16_ctx *ctx = g16_ctx_create(&(g16_ctx_opts){.threads = 2});
    CHECK(ctx != NULL);
    fmap_tests();
    if (ctx) {
        key_test(ctx, G16_CURVE_BN254, 1, seed);
        key_test(ctx, G16_CURVE_BN254, 0, seed);
        key_test(ctx, G16_CURVE_BLS12_381, 1, seed);
    }
    g16_ctx_destroy(ctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return t_done("test_mmap_truncate");
}
