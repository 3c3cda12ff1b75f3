/* g16d's pure parts: the .wtns header peek used for admission
 * (g16_witness_peek_bytes, checked
 * against the full reader, g16_wtns_read_mem, on random valid and mutated
 * files: whatever the full reader accepts, the peek accepts with the same
 * curve and length, and whatever the peek rejects, the full reader
 * rejects), byte-size parsing, and the option loader (file, flag
 * overrides, validation exit codes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "groth16/groth16.h"
#include "testutil.h"

static const uint64_t R_BN[4] = BN254_FR_P, R_BLS[4] = BLS381_FR_P;

/* A valid .wtns (version 2) with n values < r, w[0] = 1. */
static uint8_t *make_wtns(g16_rng *rng, const uint64_t r[4], uint32_t n, size_t *len) {
    size_t sz = 12 + 12 + 40 + 12 + (size_t)n * 32;
    uint8_t *b = calloc(1, sz), *p = b;
    memcpy(p, "wtns", 4);
    uint32_t v = 2, ns = 2, id1 = 1, id2 = 2, n8 = 32;
    uint64_t s1 = 40, s2 = (uint64_t)n * 32;
    memcpy(p + 4, &v, 4);
    memcpy(p + 8, &ns, 4);
    p += 12;
    memcpy(p, &id1, 4);
    memcpy(p + 4, &s1, 8);
    p += 12;
    memcpy(p, &n8, 4);
    memcpy(p + 4, r, 32);
    memcpy(p + 36, &n, 4);
    p += 40;
    memcpy(p, &id2, 4);
    memcpy(p + 4, &s2, 8);
    p += 12;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x[4] = {g16_rng_next(rng), g16_rng_next(rng), g16_rng_next(rng), g16_rng_next(rng) >> 4};
        if (i == 0)
            x[0] = 1, x[1] = x[2] = x[3] = 0;
        memcpy(p + 32 * (size_t)i, x, 32);
    }
    *len = sz;
    return b;
}

/* The daemon's admission peek: g16_witness_peek / _bytes (path NULL: bytes). */
static g16_err g16d_wtns_peek(const char *path, const void *data, size_t len, g16_curve *curve, uint32_t *n,
                              g16_status *st) {
    g16_ctx *ctx = g16_ctx_create(NULL);
    g16_witness_header h;
    g16_err e = ctx ? (path ? g16_witness_peek(ctx, &h, path) : g16_witness_peek_bytes(ctx, &h, data, len))
                    : G16_ERR_NOMEM;
    if (!e) {
        *curve = h.curve;
        *n = h.n_values;
    } else if (st) {
        st->code = e;
        (void)g16_ctx_last_error(ctx, st->msg, sizeof st->msg);
    }
    g16_ctx_destroy(ctx);
    return e;
}

static void test_peek(g16_rng *rng) {
    int accepted = 0, rejected = 0;
    for (int iter = 0; iter < 600; iter++) {
        int bls = (int)(g16_rng_next(rng) & 1);
        uint32_t n = 1 + (uint32_t)(g16_rng_next(rng) % 40);
        size_t len;
        uint8_t *b = make_wtns(rng, bls ? R_BLS : R_BN, n, &len);
        int mut = iter < 40 ? 0 : (int)(g16_rng_next(rng) % 5);
        if (mut == 1) /* truncate */
            len = (size_t)(g16_rng_next(rng) % len);
        else if (mut == 2) /* flip a header byte */
            b[g16_rng_next(rng) % 76] ^= (uint8_t)(1u << (g16_rng_next(rng) % 8));
        else if (mut == 3) /* another nWitness */
            b[24 + 36] = (uint8_t)(b[24 + 36] + 1 + g16_rng_next(rng) % 3);
        else if (mut == 4) /* a byte anywhere */
            b[g16_rng_next(rng) % len] ^= 0xff;
        g16_curve c = G16_CURVE_BN254;
        uint32_t pn = 0;
        g16_status st = {0}, st2 = {0};
        g16_err pe = g16d_wtns_peek(NULL, b, len, &c, &pn, &st);
        g16_frvec w;
        memset(&w, 0, sizeof w);
        g16_err fe = g16_wtns_read_mem(&w, "t.wtns", b, len, &st2);
        if (!fe) {
            CHECK_MSG(!pe, "iter %d mut %d: full reader accepts, peek says %s", iter, mut, st.msg);
            CHECK_MSG(!pe && c == w.curve && pn == w.n, "iter %d: peek curve %d n %u, reader %d %zu", iter, (int)c,
                      pn, (int)w.curve, w.n);
            g16_frvec_free(&w);
            accepted++;
        } else {
            rejected++;
        }
        if (pe)
            CHECK_MSG(fe, "iter %d mut %d: peek rejects (%s), full reader accepts", iter, mut, st.msg);
        if (mut == 0) {
            CHECK(!pe && c == (bls ? G16_CURVE_BLS12_381 : G16_CURVE_BN254) && pn == n);
        }
        free(b);
    }
    CHECK(accepted >= 40 && rejected > 100);
    /* A prime that is neither curve's r: WRONG_CURVE. */
    size_t len;
    uint8_t *b = make_wtns(rng, R_BN, 3, &len);
    b[24 + 4] ^= 2;
    g16_curve c;
    uint32_t pn;
    CHECK(g16d_wtns_peek(NULL, b, len, &c, &pn, NULL) == G16_ERR_WRONG_CURVE);
    free(b);
    /* From a file, and a missing file. */
    char path[] = "/tmp/g16d-unit-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    b = make_wtns(rng, R_BLS, 5, &len);
    CHECK(write(fd, b, len) == (ssize_t)len);
    close(fd);
    CHECK(g16d_wtns_peek(path, NULL, 0, &c, &pn, NULL) == G16_OK && c == G16_CURVE_BLS12_381 && pn == 5);
    unlink(path);
    CHECK(g16d_wtns_peek(path, NULL, 0, &c, &pn, NULL) == G16_ERR_IO);
    free(b);
}

static void test_bytes(void) {
    uint64_t v;
    CHECK(g16d_parse_bytes("1024", &v) == 0 && v == 1024);
    CHECK(g16d_parse_bytes("64M", &v) == 0 && v == 64ull << 20);
    CHECK(g16d_parse_bytes("2GiB", &v) == 0 && v == 2ull << 30);
    CHECK(g16d_parse_bytes("1.5k", &v) == 0 && v == 1536);
    CHECK(g16d_parse_bytes("1T", &v) == 0 && v == 1ull << 40);
    CHECK(g16d_parse_bytes("12Q", &v) == -1);
    CHECK(g16d_parse_bytes("-1", &v) == -1);
    CHECK(g16d_parse_bytes("", &v) == -1);
    CHECK(g16d_parse_bytes("M", &v) == -1);
    CHECK(g16d_parse_bytes("5MB x", &v) == -1);
}

static int load(g16d_config *c, const char *conf_text, int argc, char **argv) {
    char path[] = "/tmp/g16d-unit-conf-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fputs(conf_text, f);
    fclose(f);
    char *args[16] = {"g16d", "--config", path};
    for (int i = 0; i < argc && i < 13; i++)
        args[3 + i] = argv[i];
    g16d_config_defaults(c);
    int rc = g16d_config_load(c, 3 + argc, args);
    if (!rc)
        rc = g16d_config_validate(c);
    unlink(path);
    return rc;
}

static void test_config(void) {
    g16d_config c;
    char *a1[] = {"--workers", "3", "--max_body_bytes=2M", "--verify"};
    int rc = load(&c,
                  "# sample\nworkers = 2\nsynth-threads = 4   # trailing comment\nmax_body_bytes = 1M\n"
                  "key = a:/dev/null\nkey = b:/dev/null\ntoken = abcdefghijklmnop#q\nlisten = 127.0.0.1:0\n",
                  4, a1);
    CHECK(rc == 0);
    CHECK(c.workers == 3 && c.synth_threads == 4 && c.max_body_bytes == 2ull << 20 && c.verify == 1);
    CHECK(c.n_keys == 2 && !strcmp(c.keys[1].id, "b") && !strcmp(c.keys[1].path, "/dev/null"));
    CHECK(c.token && !strcmp(c.token, "abcdefghijklmnop#q"));
    CHECK(c.owner && strlen(c.owner) > 0 && !strcmp(c.listen, "127.0.0.1:0"));
    g16d_config_free(&c);

    fprintf(stderr, "(the following 'g16d:' messages are expected)\n");
    CHECK(load(&c, "workers = 0\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "nonsense\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "frobnicate = 1\n", 0, NULL) == 2);
    g16d_config_free(&c);
    /* Library options (docs/config.md): g16d's names and dotted keys, checked
     * at load, kept in order with their source. */
    char *al[] = {"--gpu-shared", "off", "--gpu.msm_window_bits=9"};
    CHECK(load(&c, "pin = on\ngpu_sync = block\ngpu.msm_segment = 64\n", 3, al) == 0);
    CHECK(c.n_lib_opts == 5 && !strcmp(c.lib_opts[0].name, "engine.pin") && !strcmp(c.lib_opts[0].value, "on") &&
          !c.lib_opts[0].from_flag && !strcmp(c.lib_opts[1].name, "gpu.sync") &&
          !strcmp(c.lib_opts[2].name, "gpu.msm_segment") && !strcmp(c.lib_opts[3].name, "engine.gpu_shared") &&
          !strcmp(c.lib_opts[3].value, "off") && c.lib_opts[3].from_flag &&
          !strcmp(c.lib_opts[4].name, "gpu.msm_window_bits") && !strcmp(c.lib_opts[4].value, "9"));
    g16d_config_free(&c);
    CHECK(load(&c, "gpu_sync = fast\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "gpu.msm_window_bits = 40\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "gpu.nonsense = 1\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "listen = 10.1.2.3:80\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "listen = 10.1.2.3:80\ntoken = abcdefghijklmnopq\n", 0, NULL) == 0);
    g16d_config_free(&c);
    CHECK(load(&c, "token = short\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "verify = off\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "verify = off\nbench = on\n", 0, NULL) == 0);
    g16d_config_free(&c);
    CHECK(load(&c, "listen = 127.0.0.1:99999\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "listen = unix:relative\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "lease_s = 5\nheartbeat_s = 5\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "key = a:/dev/null\nkey = a:/dev/null\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "key = a:/no/such/file.zkey\n", 0, NULL) == 2);
    g16d_config_free(&c);
    CHECK(load(&c, "max_inline_bytes = 2M\nmax_body_bytes = 1M\n", 0, NULL) == 0 && c.max_inline_bytes == 1u << 20);
    g16d_config_free(&c);
    char *a2[] = {"--workers"};
    CHECK(load(&c, "", 1, a2) == 2);
    g16d_config_free(&c);
    char *a3[] = {"--no-such-flag", "1"};
    CHECK(load(&c, "", 2, a3) == 2);
    g16d_config_free(&c);
    char *a4[] = {"--allowed-roots", "/tmp:/"};
    CHECK(load(&c, "", 2, a4) == 0 && c.n_roots == 2 && !strcmp(c.roots[1], "/"));
    g16d_config_free(&c);
}

int main(void) {
    uint64_t seed = t_seed("test_daemon_units");
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    test_peek(&rng);
    test_bytes();
    test_config();
    return t_done("test_daemon_units");
}
