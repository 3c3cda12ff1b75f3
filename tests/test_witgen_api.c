/* The witness-generation API (include/g16.h, docs/witgen.md) with stand-in
 * generators (/bin/sh scripts that follow circom's C++ generator's calling
 * convention, GEN input.json out.wtns):
 *  - g16_witgen_opts_init; g16_witgen_check tells a script (native), a
 *    .wasm with generate_witness.js beside it (wasm; its node must run: a
 *    stand-in node, and one that does not exist), and refuses a .wasm
 *    without the .js, a file that is not executable, a directory;
 *  - g16_witness_generate_wtns hands in-memory input to the generator
 *    byte for byte (the script compares) and returns the .wtns it wrote
 *    unchanged; g16_witness_generate loads it; a path input works too;
 *  - a failure names the in-memory input by opts.input_name; the time
 *    limit (opts.timeout_s) and the memory limit (opts.memory_bytes)
 *    override the context's options and fail with G16_ERR_WITNESS_GEN;
 *    input that is not a JSON object is G16_ERR_FORMAT; NULL arguments are
 *    G16_ERR_INVALID_ARG;
 *  - a generator that leaves FIFOs (for the witness, too) fails without
 *    hanging the caller;
 *  - concurrent calls from several threads all succeed.
 * Runs from the repository root (the bundled examples/poseidon witness). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define G16_NO_NONNULL /* NULL arguments on purpose */
#include "g16.h"
#include "testutil.h"

static char dir[256];
static unsigned char *wtns;
static size_t wtns_len;

static void write_file(const char *name, const char *text, int exec) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    CHECK(chmod(p, exec ? 0700 : 0600) == 0);
}

static const char *path_of(const char *name) {
    static __thread char p[8][512];
    static __thread int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static int msg_has(g16_ctx *ctx, const char *what) {
    char m[512];
    (void)g16_ctx_last_error(ctx, m, sizeof m);
    if (strstr(m, what))
        return 1;
    fprintf(stderr, "message without '%s': %s\n", what, m);
    return 0;
}

static const char INPUT[] = "{\"a\": \"3\", \"b\": [1, 2, {\"c\": \"11\"}]}";

typedef struct thr {
    g16_ctx *ctx;
    int ok;
} thr;

static void *thread_main(void *arg) {
    thr *t = arg;
    t->ok = 1;
    for (int i = 0; i < 3; i++) {
        void *b = NULL;
        size_t n = 0;
        if (g16_witness_generate_wtns(t->ctx, &b, &n, path_of("copy.sh"), NULL, INPUT, strlen(INPUT), NULL) ||
            n != wtns_len || memcmp(b, wtns, n))
            t->ok = 0;
        g16_free(b);
    }
    return NULL;
}

int main(void) {
    (void)t_seed("test_witgen_api");
    wtns = (unsigned char *)t_read_file("examples/poseidon/bn128/witness.wtns", &wtns_len);
    CHECK(wtns != NULL);
    snprintf(dir, sizeof dir, "/tmp/g16-witgen-api.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    if (!ctx || !wtns)
        return t_done("test_witgen_api");
    char cwd[400], script[2048];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    /* copy.sh: the input must equal expected.json byte for byte. */
    write_file("expected.json", INPUT, 0);
    snprintf(script, sizeof script, "#!/bin/sh\ncmp -s \"$1\" %s/expected.json || { echo 'input differs' >&2; exit 4; }\n"
             "cp %s/examples/poseidon/bn128/witness.wtns \"$2\"\n", dir, cwd);
    write_file("copy.sh", script, 1);
    write_file("fail.sh", "#!/bin/sh\necho 'first line'\necho 'Error: assertion 7 failed' >&2\nexit 3\n", 1);
    write_file("hang.sh", "#!/bin/sh\nsleep 30\n", 1);
    write_file("fifo.sh", "#!/bin/sh\nmkfifo \"$2\"\nmkfifo extra.fifo\n", 1);
    write_file("hog.sh", "#!/bin/sh\nawk 'BEGIN { s = \"x\"; for (i = 0; i < 27; i++) s = s s }' || exit 5\n"
               "cp \"$0.wtns\" \"$2\"\n", 1);
    write_file("plain.txt", "not a generator\n", 0);
    write_file("node.sh", "#!/bin/sh\necho v20\n", 1);
    write_file("c.wasm", "", 0);
    {
        FILE *f = fopen(path_of("c.wasm"), "wb");
        CHECK(f && fwrite("\0asm\1\0\0\0", 1, 8, f) == 8);
        if (f)
            fclose(f);
    }

    /* ---- options and the check ---- */
    g16_witgen_opts o;
    memset(&o, 0xff, sizeof o);
    g16_witgen_opts_init(&o);
    CHECK(o.size == sizeof o && o.timeout_s == 0 && o.memory_bytes == 0 && !o.node && !o.input_name);
    g16_witgen_kind kind = 0;
    CHECK(g16_witgen_check(ctx, &kind, path_of("copy.sh"), NULL) == G16_OK && kind == G16_WITGEN_NATIVE);
    CHECK(g16_witgen_check(ctx, &kind, path_of("plain.txt"), NULL) == G16_ERR_IO &&
          msg_has(ctx, "neither a circom .wasm nor executable"));
    CHECK(g16_witgen_check(ctx, &kind, dir, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_witgen_check(ctx, &kind, path_of("missing"), NULL) == G16_ERR_IO);
    CHECK(g16_witgen_check(ctx, &kind, path_of("c.wasm"), NULL) == G16_ERR_IO && msg_has(ctx, "generate_witness.js"));
    write_file("generate_witness.js", "// stand-in\n", 0);
    o.node = path_of("node.sh");
    kind = 0;
    CHECK(g16_witgen_check(ctx, &kind, path_of("c.wasm"), &o) == G16_OK && kind == G16_WITGEN_WASM);
    o.node = "/nonexistent/node";
    CHECK(g16_witgen_check(ctx, &kind, path_of("c.wasm"), &o) == G16_ERR_IO && msg_has(ctx, "/nonexistent/node"));
    CHECK(g16_ctx_set_option(ctx, "witgen.node", path_of("node.sh"), G16_OPTION_CONFIG) == G16_OK);
    CHECK(g16_witgen_check(ctx, &kind, path_of("c.wasm"), NULL) == G16_OK && kind == G16_WITGEN_WASM);
    CHECK(g16_ctx_set_option(ctx, "witgen.node", "", G16_OPTION_CONFIG) == G16_OK);
    CHECK(g16_ctx_set_option(ctx, "witgen.timeout_s", "0", G16_OPTION_CONFIG) == G16_ERR_INVALID_ARG);
    CHECK(g16_ctx_set_option(ctx, "witgen.memory_mb", "8", G16_OPTION_CONFIG) == G16_ERR_INVALID_ARG);

    /* ---- generating ---- */
    void *b = NULL;
    size_t n = 0;
    CHECK(g16_witness_generate_wtns(ctx, &b, &n, path_of("copy.sh"), NULL, INPUT, strlen(INPUT), NULL) == G16_OK);
    CHECK(b && n == wtns_len && !memcmp(b, wtns, n));
    g16_free(b);
    g16_witness *w = NULL;
    CHECK(g16_witness_generate(ctx, &w, path_of("copy.sh"), path_of("expected.json"), NULL, 0, NULL) == G16_OK &&
          w != NULL);
    g16_witness_free(w);
    w = NULL;
    /* The bytes reach the generator as given: one byte more and it refuses. */
    char longer[sizeof INPUT + 1];
    snprintf(longer, sizeof longer, "%s ", INPUT);
    g16_witgen_opts_init(&o);
    o.input_name = "job 9 partition 4 inputs";
    CHECK(g16_witness_generate(ctx, &w, path_of("copy.sh"), NULL, longer, strlen(longer), &o) ==
              G16_ERR_WITNESS_GEN &&
          msg_has(ctx, "copy.sh failed on job 9 partition 4 inputs: exit status 4: input differs") && !w);
    CHECK(g16_witness_generate(ctx, &w, path_of("fail.sh"), path_of("expected.json"), NULL, 0, NULL) ==
              G16_ERR_WITNESS_GEN &&
          msg_has(ctx, "fail.sh failed on expected.json: exit status 3: Error: assertion 7 failed"));
    /* A FIFO for a witness (and one beside it): refused, and nothing waits on them. */
    CHECK(g16_witness_generate(ctx, &w, path_of("fifo.sh"), NULL, INPUT, strlen(INPUT), NULL) ==
              G16_ERR_WITNESS_GEN &&
          msg_has(ctx, "wrote no witness"));
    CHECK(g16_witness_generate(ctx, &w, path_of("copy.sh"), NULL, "[1, 2]", 6, NULL) == G16_ERR_FORMAT &&
          msg_has(ctx, "not a JSON object"));
    CHECK(g16_witness_generate(ctx, &w, path_of("copy.sh"), NULL, "{\"a\": ", 6, &o) == G16_ERR_FORMAT &&
          msg_has(ctx, "job 9 partition 4 inputs is not JSON"));

    /* The call's limits over the context's. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    g16_witgen_opts_init(&o);
    o.timeout_s = 0.5;
    CHECK(g16_witness_generate(ctx, &w, path_of("hang.sh"), NULL, INPUT, strlen(INPUT), &o) == G16_ERR_WITNESS_GEN &&
          msg_has(ctx, "killed at the time limit of 0.5 s"));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK_MSG(dt < 5.0, "the hanging generator took %.1f s", dt);
    {
        char src[512], dst[600];
        snprintf(src, sizeof src, "%s/examples/poseidon/bn128/witness.wtns", cwd);
        snprintf(dst, sizeof dst, "cp %s %s.wtns", src, path_of("hog.sh"));
        CHECK(system(dst) == 0);
    }
    g16_witgen_opts_init(&o);
    o.memory_bytes = 32u << 20;
    CHECK(g16_witness_generate(ctx, &w, path_of("hog.sh"), NULL, INPUT, strlen(INPUT), &o) == G16_ERR_WITNESS_GEN &&
          msg_has(ctx, "out of memory"));
    CHECK(g16_ctx_set_option(ctx, "witgen.memory_mb", "0", G16_OPTION_CONFIG) == G16_OK);
    CHECK(g16_witness_generate(ctx, &w, path_of("hog.sh"), NULL, INPUT, strlen(INPUT), NULL) == G16_OK && w);
    g16_witness_free(w);
    w = NULL;

    /* Arguments. */
    CHECK(g16_witness_generate(ctx, &w, path_of("copy.sh"), NULL, NULL, 0, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_witness_generate(NULL, &w, path_of("copy.sh"), NULL, INPUT, 1, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_witness_generate_wtns(ctx, &b, NULL, path_of("copy.sh"), NULL, INPUT, 1, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_witgen_check(ctx, NULL, NULL, NULL) == G16_ERR_INVALID_ARG);

    /* Several threads at once. */
    thr t[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        t[i].ctx = ctx;
        CHECK(pthread_create(&th[i], NULL, thread_main, &t[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_MSG(t[i].ok, "thread %d", i);
    }

    g16_ctx_destroy(ctx);
    free(wtns);
    char rm[400];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CHECK(system(rm) == 0);
    return t_done("test_witgen_api");
}
