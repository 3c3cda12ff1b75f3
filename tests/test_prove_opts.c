/* g16_prove's options and the per-thread error (include/g16.h):
 *  - defaults (NULL opts, and g16_prove_opts_init) verify; backend cpu
 *    proves on the CPU and says so in the stats;
 *  - auto picks the CPU for the example and says why: its domain is below
 *    G16_PROVE_AUTO_GPU_MIN_DOMAIN, which is decided before any GPU is
 *    asked for (on a GPU host too); cuda without a GPU is G16_ERR_NO_DEVICE;
 *  - verify on by default catches a witness that does not satisfy the
 *    circuit (right curve and length, some private values changed, so every
 *    stage runs and only the pairing check can tell): G16_ERR_INVALID_PROOF
 *    and no result; with verify off the same call returns a proof that
 *    g16_result_verify rejects;
 *  - opts->size is checked; g16_prove_batch takes the options;
 *  - g16_last_error holds the calling thread's last failure (also of calls
 *    without a context) and another thread's failures do not show.
 * Uses the bundled example keys in examples/poseidon. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16.h"
#include "gpu/gpu.h"
#include "testutil.h"

/* The .wtns bytes with private values changed: the last half of the wires
 * get +1 on their lowest byte where that byte is below 0xff (the value stays
 * canonical). Returns the number changed; 0 if the file is not as expected. */
static size_t corrupt_wtns(unsigned char *b, size_t len, uint64_t seed) {
    if (len < 12 || memcmp(b, "wtns", 4) != 0)
        return 0;
    uint32_t nsec;
    memcpy(&nsec, b + 8, 4);
    size_t off = 12, n8 = 32, nw = 0, changed = 0;
    for (uint32_t s = 0; s < nsec && off + 12 <= len; s++) {
        uint32_t id;
        uint64_t size;
        memcpy(&id, b + off, 4);
        memcpy(&size, b + off + 4, 8);
        off += 12;
        if (off + size > len)
            return 0;
        if (id == 1) {
            uint32_t v;
            memcpy(&v, b + off, 4);
            n8 = v;
            memcpy(&v, b + off + 4 + n8, 4);
            nw = v;
        } else if (id == 2 && nw && n8 == 32 && size == nw * n8) {
            for (size_t i = nw / 2 + (seed % 2); i < nw; i++) {
                unsigned char *lo = b + off + i * n8;
                if (*lo < 0xff) {
                    (*lo)++;
                    changed++;
                }
            }
        }
        off += size;
    }
    return changed;
}

typedef struct thread_probe {
    g16_err before, after;
    char msg[256];
} thread_probe;

static void *other_thread(void *arg) {
    thread_probe *t = arg;
    t->before = g16_last_error(NULL, 0); /* nothing failed on this thread yet */
    g16_curve c;
    g16_err e = g16_curve_from_name(&c, "no-such-curve");
    (void)e;
    t->after = g16_last_error(t->msg, sizeof t->msg);
    return NULL;
}

static void run_curve(const char *dir, uint64_t seed) {
    char zkey[256], wtns[256];
    snprintf(zkey, sizeof zkey, "examples/poseidon/%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "examples/poseidon/%s/witness.wtns", dir);
    g16_ctx_opts co = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&co);
    CHECK(ctx != NULL);
    g16_key *key = NULL;
    g16_witness *w = NULL, *bad = NULL;
    CHECK(g16_key_load(ctx, &key, zkey, 0) == G16_OK);
    CHECK(g16_witness_load(ctx, &w, wtns) == G16_OK);
    if (!key || !w)
        goto out;
    g16_key_info ki;
    CHECK(g16_key_get_info(ctx, &ki, key) == G16_OK);

    /* The defaults. */
    g16_prove_opts o;
    memset(&o, 0x5a, sizeof o);
    g16_prove_opts_init(&o);
    CHECK(o.size == sizeof o && o.backend == G16_BACKEND_AUTO && o.verify == 1 && o.device == 0 &&
          o.stream_bases == 0);

    /* cpu */
    g16_result *res = NULL;
    g16_prove_stats s;
    o.backend = G16_BACKEND_CPU;
    CHECK(g16_prove(ctx, &res, key, w, &o, &s) == G16_OK && res != NULL);
    CHECK(s.backend == G16_BACKEND_CPU);
    CHECK(s.total_ms > 0 && s.verify_ms > 0); /* verified by default */
    CHECK(g16_result_verify(ctx, key, res) == G16_OK);
    g16_result_free(res);
    res = NULL;

    /* auto: the CPU here, and why. */
    CHECK(g16_prove(ctx, &res, key, w, NULL, &s) == G16_OK && res != NULL);
    CHECK_MSG(s.backend == G16_BACKEND_CPU, "auto ran on backend %d", (int)s.backend);
    /* The example is far below the threshold: the size decides, before any
     * GPU is asked for (a GPU host or not). */
    CHECK_MSG(ki.domain_size < G16_PROVE_AUTO_GPU_MIN_DOMAIN &&
                  strstr(s.backend_note, "G16_PROVE_AUTO_GPU_MIN_DOMAIN") != NULL,
              "note: '%s'", s.backend_note);
    g16_result_free(res);
    res = NULL;

    /* cuda: an error without a GPU, a verified proof with one. */
    o.backend = G16_BACKEND_CUDA;
    g16_err ce = g16_prove(ctx, &res, key, w, &o, &s);
    if (g16_gpu_count() == 0) {
        CHECK(ce == G16_ERR_NO_DEVICE && res == NULL);
        char msg[512];
        CHECK(g16_last_error(msg, sizeof msg) == G16_ERR_NO_DEVICE && msg[0]);
    } else {
        CHECK(ce == G16_OK && res != NULL && s.backend == G16_BACKEND_CUDA);
    }
    g16_result_free(res);
    res = NULL;

    /* A witness that does not satisfy the circuit. */
    size_t len = 0;
    unsigned char *wb = (unsigned char *)t_read_file(wtns, &len);
    CHECK(wb != NULL);
    size_t changed = wb ? corrupt_wtns(wb, len, seed) : 0;
    CHECK(changed > 0);
    CHECK(wb && g16_witness_from_wtns_bytes(ctx, &bad, wb, len) == G16_OK);
    free(wb);
    if (bad) {
        CHECK(g16_prove(ctx, &res, key, bad, NULL, NULL) == G16_ERR_INVALID_PROOF && res == NULL);
        char msg[512], cmsg[512];
        CHECK(g16_last_error(msg, sizeof msg) == G16_ERR_INVALID_PROOF);
        CHECK_MSG(strstr(msg, "does not verify") != NULL, "message: '%s'", msg);
        /* the context's record agrees */
        CHECK(g16_ctx_last_error(ctx, cmsg, sizeof cmsg) == G16_ERR_INVALID_PROOF && !strcmp(msg, cmsg));
        g16_prove_opts_init(&o);
        o.backend = G16_BACKEND_CPU;
        o.verify = 0;
        CHECK(g16_prove(ctx, &res, key, bad, &o, &s) == G16_OK && res != NULL && s.verify_ms == 0);
        CHECK(res && g16_result_verify(ctx, key, res) == G16_ERR_INVALID_PROOF);
        g16_result_free(res);
        res = NULL;
    }

    /* opts->size: 0 (not initialized) and too large are refused. */
    g16_prove_opts_init(&o);
    o.size = 0;
    CHECK(g16_prove(ctx, &res, key, w, &o, NULL) == G16_ERR_INVALID_ARG && res == NULL);
    o.size = sizeof o + 8;
    CHECK(g16_prove(ctx, &res, key, w, &o, NULL) == G16_ERR_INVALID_ARG && res == NULL);
    g16_prove_opts_init(&o);
    o.backend = (g16_backend)7;
    CHECK(g16_prove(ctx, &res, key, w, &o, NULL) == G16_ERR_INVALID_ARG && res == NULL);

    /* batch with options; one bad witness fails the batch, no results. */
    g16_prove_opts_init(&o);
    o.backend = G16_BACKEND_CPU;
    g16_result *rb[2] = {NULL, NULL};
    g16_prove_stats sb[2];
    const g16_witness *ws[2] = {w, w};
    CHECK(g16_prove_batch(ctx, rb, key, ws, 2, &o, sb) == G16_OK && rb[0] && rb[1]);
    CHECK(sb[0].backend == G16_BACKEND_CPU && sb[1].backend == G16_BACKEND_CPU);
    for (int i = 0; i < 2; i++) {
        CHECK(rb[i] && g16_result_verify(ctx, key, rb[i]) == G16_OK);
        g16_result_free(rb[i]);
        rb[i] = NULL;
    }
    if (bad) {
        const g16_witness *wm[2] = {w, bad};
        CHECK(g16_prove_batch(ctx, rb, key, wm, 2, &o, NULL) == G16_ERR_INVALID_PROOF && !rb[0] && !rb[1]);
    }

    /* The thread-local error: this thread's last failure stays; another
     * thread starts clean and keeps its own. */
    g16_curve c;
    CHECK(g16_curve_from_name(&c, "not-a-curve") == G16_ERR_INVALID_ARG);
    char msg[256];
    CHECK(g16_last_error(msg, sizeof msg) == G16_ERR_INVALID_ARG && strstr(msg, "not-a-curve") != NULL);
    CHECK(g16_curve_from_name(&c, "bn254") == G16_OK);
    CHECK(g16_last_error(NULL, 0) == G16_ERR_INVALID_ARG); /* a success does not clear it */
    CHECK(g16_key_get_info(ctx, &ki, key) == G16_OK);
    thread_probe tp;
    memset(&tp, 0, sizeof tp);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, &tp) == 0);
    pthread_join(th, NULL);
    CHECK(tp.before == G16_OK && tp.after == G16_ERR_INVALID_ARG && strstr(tp.msg, "no-such-curve"));
    CHECK(g16_last_error(msg, sizeof msg) == G16_ERR_INVALID_ARG && strstr(msg, "not-a-curve") != NULL);
    /* truncation: always NUL-terminated */
    char tiny[4];
    memset(tiny, 'x', sizeof tiny);
    CHECK(g16_last_error(tiny, sizeof tiny) == G16_ERR_INVALID_ARG && tiny[3] == 0);
out:
    g16_witness_free(bad);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
}

int main(void) {
    uint64_t seed = t_seed("test_prove_opts");
    run_curve("bn128", seed);
    run_curve("bls12381", seed);
    return t_done("test_prove_opts");
}
