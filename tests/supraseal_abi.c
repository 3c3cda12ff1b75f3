/* The program of tests/test_supraseal_abi.sh: drives libg16_supraseal
 * through g16_supraseal.h only, as bellperson's supraseal-c2 binding would,
 * on the toy key of tests/vectors/gen_params.mjs (x^3 + x + 5 = out, 4
 * constraints, 2 inputs, 4 aux). The partitions are built here with GMP
 * the way bellperson synthesizes them (rows: constraints, then Input(i) x 0
 * = 0; values in Montgomery form; densities from the circuit).
 * Usage: supraseal_abi VECTORS_DIR OUTDIR
 * Checks: the proof for x = 3 with params_toy.txt's r, s is noble's proof
 * (params_toy.txt's coordinates); a batch of three; the split API gives the
 * same proofs; bad partitions, scalars and handles give an error with a
 * message; the SRS cache, clone, evict and drop; two threads proving at
 * once. Writes OUTDIR/proof_<k>.raw (384 bytes) and OUTDIR/public_<k>.json
 * for the batch, for the noble checker. Prints "N passed, M failed"; exit 1
 * on any failure. */
#include <gmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_supraseal.h"

static int passed, failed;
#define CHECK(cond, ...)                                                                                             \
    do {                                                                                                             \
        if (cond) {                                                                                                  \
            passed++;                                                                                                \
        } else {                                                                                                     \
            failed++;                                                                                                \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                                   \
            printf(__VA_ARGS__);                                                                                     \
            printf("\n");                                                                                            \
        }                                                                                                            \
    } while (0)

static mpz_t R, P; /* BLS12-381's r and p */

/* v (any integer) as a Montgomery-form Fr: v 2^256 mod r. */
static void fr_mont(supraseal_fr *out, const mpz_t v) {
    mpz_t t;
    mpz_init(t);
    mpz_mul_2exp(t, v, 256);
    mpz_mod(t, t, R);
    memset(out, 0, sizeof *out);
    mpz_export(out->l, NULL, -1, 8, 0, 0, t);
    mpz_clear(t);
}
static void fr_mont_ui(supraseal_fr *out, unsigned long v) {
    mpz_t t;
    mpz_init_set_ui(t, v);
    fr_mont(out, t);
    mpz_clear(t);
}

/* A Montgomery-form Fp (6 limbs) as its decimal value. */
static void fp_dec(char *buf, size_t len, const uint64_t l[6]) {
    mpz_t x, rinv;
    mpz_inits(x, rinv, NULL);
    mpz_import(x, 6, -1, 8, 0, 0, l);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 384);
    mpz_invert(rinv, rinv, P);
    mpz_mul(x, x, rinv);
    mpz_mod(x, x, P);
    gmp_snprintf(buf, len, "%Zd", x);
    mpz_clears(x, rinv, NULL);
}

/* The proof's coordinates as params_toy.txt writes them: A "x y", B
 * "x.c0 x.c1 y.c0 y.c1", C "x y". */
static void proof_coords(char out[3][1024], const supraseal_proof *p) {
    char c[4][200];
    fp_dec(c[0], 200, p->a[0]), fp_dec(c[1], 200, p->a[1]);
    snprintf(out[0], 1024, "%s %s", c[0], c[1]);
    fp_dec(c[0], 200, p->b[0][0]), fp_dec(c[1], 200, p->b[0][1]);
    fp_dec(c[2], 200, p->b[1][0]), fp_dec(c[3], 200, p->b[1][1]);
    snprintf(out[1], 1024, "%s %s %s %s", c[0], c[1], c[2], c[3]);
    fp_dec(c[0], 200, p->c[0]), fp_dec(c[1], 200, p->c[1]);
    snprintf(out[2], 1024, "%s %s", c[0], c[1]);
}

/* What params_toy.txt says: r, s and the proof's coordinates for x = 3. */
static mpz_t g_r, g_s;
static char g_proof[3][1024];

static int read_txt(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[8192];
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char a[200], b[200];
        if (sscanf(line, "rs %199s %199s", a, b) == 2) {
            mpz_set_str(g_r, a, 10);
            mpz_set_str(g_s, b, 10);
            got |= 1;
        }
        static const char *names[3] = {"proof proof_a ", "proof proof_b ", "proof proof_c "};
        for (int k = 0; k < 3; k++)
            if (!strncmp(line, names[k], strlen(names[k]))) {
                /* the coordinates, without the trailing compressed hex */
                char *start = line + strlen(names[k]), *sp = strrchr(start, ' ');
                if (sp)
                    *sp = 0;
                snprintf(g_proof[k], sizeof g_proof[k], "%s", start);
                got |= 2 << k;
            }
    }
    fclose(f);
    return got == 15;
}

/* One toy partition, for x (out = x^3 + x + 5, unless out_delta shifts it). */
typedef struct toy {
    supraseal_fr a[6], b[6], c[6], inp[2], aux[4];
    uint64_t a_aux, b_inp, b_aux;
    supraseal_assignment as;
    unsigned long out;
} toy;

static void toy_make(toy *t, unsigned long x, long out_delta) {
    memset(t, 0, sizeof *t);
    unsigned long x2 = x * x, x3 = x2 * x, out = x3 + x + 5 + (unsigned long)out_delta;
    t->out = out;
    /* inputs one, out; aux x, x2, x3, t = x^2 */
    fr_mont_ui(&t->inp[0], 1), fr_mont_ui(&t->inp[1], out);
    fr_mont_ui(&t->aux[0], x), fr_mont_ui(&t->aux[1], x2), fr_mont_ui(&t->aux[2], x3), fr_mont_ui(&t->aux[3], x2);
    /* c0: x * x = x2; c1: x2 * x = x3; c2: (x3 + x + 5) * one = out; c3: x * x = t */
    fr_mont_ui(&t->a[0], x), fr_mont_ui(&t->b[0], x), fr_mont_ui(&t->c[0], x2);
    fr_mont_ui(&t->a[1], x2), fr_mont_ui(&t->b[1], x), fr_mont_ui(&t->c[1], x3);
    fr_mont_ui(&t->a[2], x3 + x + 5), fr_mont_ui(&t->b[2], 1), fr_mont_ui(&t->c[2], out);
    fr_mont_ui(&t->a[3], x), fr_mont_ui(&t->b[3], x), fr_mont_ui(&t->c[3], x2);
    /* the input rows: Input(i) x 0 = 0 */
    t->a[4] = t->inp[0], t->a[5] = t->inp[1];
    /* densities: aux x, x2, x3 in A (t is not); input one and aux x in B */
    t->a_aux = 0x7, t->b_inp = 0x1, t->b_aux = 0x1;
    t->as = (supraseal_assignment){
        .a_aux_density = &t->a_aux, .a_aux_bit_len = 4, .a_aux_popcount = 3,
        .b_inp_density = &t->b_inp, .b_inp_bit_len = 2, .b_inp_popcount = 1,
        .b_aux_density = &t->b_aux, .b_aux_bit_len = 4, .b_aux_popcount = 1,
        .a = t->a, .b = t->b, .c = t->c, .abc_size = 6,
        .inp_assignment_data = t->inp, .inp_assignment_size = 2,
        .aux_assignment_data = t->aux, .aux_assignment_size = 4,
    };
}

static supraseal_error gen(const supraseal_assignment *p, size_t n, const supraseal_fr *r, const supraseal_fr *s,
                           supraseal_proof *proofs, supraseal_srs *srs) {
#if defined(G16_SUPRASEAL_CURIO_ABI) && G16_SUPRASEAL_CURIO_ABI
    return generate_groth16_proofs_c(p, n, r, s, proofs, srs, NULL, -1);
#else
    return generate_groth16_proofs_c(p, n, r, s, proofs, srs);
#endif
}

/* An error: nonzero code and a message (freed here). */
static int is_error(supraseal_error e, const char *what) {
    int ok = e.code != 0 && e.message && e.message[0];
    if (ok)
        printf("ok %s: code %d: %s\n", what, e.code, e.message);
    else
        printf("FAIL %s: code %d, message %s\n", what, e.code, e.message ? e.message : "(null)");
    free(e.message);
    return ok;
}
static int is_ok(supraseal_error e, const char *what) {
    if (e.code != 0 || e.message)
        printf("FAIL %s: code %d: %s\n", what, e.code, e.message ? e.message : "(null)");
    int ok = e.code == 0 && !e.message;
    free(e.message);
    return ok;
}

typedef struct thread_job {
    supraseal_srs srs;
    const toy *t;
    supraseal_fr r, s;
    supraseal_proof proof;
    supraseal_error e;
} thread_job;

static void *thread_main(void *arg) {
    thread_job *j = arg;
    j->e = gen(&j->t->as, 1, &j->r, &j->s, &j->proof, &j->srs);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: supraseal_abi VECTORS_DIR OUTDIR\n");
        return 2;
    }
    const char *dir = argv[1], *outdir = argv[2];
    char params[1024], txt[1024], path[1100];
    snprintf(params, sizeof params, "%s/params_toy.params", dir);
    snprintf(txt, sizeof txt, "%s/params_toy.txt", dir);
    mpz_inits(R, P, g_r, g_s, NULL);
    mpz_set_str(R, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    mpz_set_str(P,
                "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
                16);
    if (!read_txt(txt)) {
        printf("FAIL: cannot read r, s and the proof from %s\n", txt);
        return 1;
    }
    gmp_randstate_t gr;
    gmp_randinit_default(gr);
    gmp_randseed_ui(gr, 12345);

    /* The SRS. */
    supraseal_srs srs = {NULL};
    CHECK(is_ok(create_SRS(&srs, params, false), "create_SRS"), "create_SRS");
    CHECK(srs.ptr != NULL, "no handle");
    if (!srs.ptr)
        return 1;

    /* x = 3 with params_toy.txt's r, s: noble's proof exactly. */
    toy t3, t4, t5, bad;
    toy_make(&t3, 3, 0), toy_make(&t4, 4, 0), toy_make(&t5, 5, 0);
    supraseal_fr r3, s3;
    fr_mont(&r3, g_r), fr_mont(&s3, g_s);
    supraseal_proof p1;
    char co[3][1024];
    CHECK(is_ok(gen(&t3.as, 1, &r3, &s3, &p1, &srs), "prove x = 3"), "prove");
    proof_coords(co, &p1);
    for (int k = 0; k < 3; k++)
        CHECK(!strcmp(co[k], g_proof[k]), "proof %c: %s, noble's %s", "ABC"[k], co[k], g_proof[k]);

    /* A batch of three: x = 3 (the same r, s), 4 and 5 (random r, s). */
    supraseal_assignment batch[3] = {t3.as, t4.as, t5.as};
    supraseal_fr rs[3], ss[3];
    rs[0] = r3, ss[0] = s3;
    for (int k = 1; k < 3; k++) {
        mpz_t v;
        mpz_init(v);
        mpz_urandomm(v, gr, R);
        fr_mont(&rs[k], v);
        mpz_urandomm(v, gr, R);
        fr_mont(&ss[k], v);
        mpz_clear(v);
    }
    supraseal_proof pb[3];
    CHECK(is_ok(gen(batch, 3, rs, ss, pb, &srs), "prove a batch of 3"), "batch");
    CHECK(!memcmp(&pb[0], &p1, sizeof p1), "batch proof 0 differs from the single proof");
    CHECK(memcmp(&pb[1], &pb[2], sizeof p1) != 0, "batch proofs 1 and 2 equal");
    const toy *bt[3] = {&t3, &t4, &t5};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/proof_%d.raw", outdir, k);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(&pb[k], sizeof pb[k], 1, f) == 1, "writing %s", path);
        if (f)
            fclose(f);
        snprintf(path, sizeof path, "%s/public_%d.json", outdir, k);
        f = fopen(path, "w");
        CHECK(f && fprintf(f, "[\"%lu\"]\n", bt[k]->out) > 0, "writing %s", path);
        if (f)
            fclose(f);
    }

    /* Bad partitions and arguments: an error naming the fault, never a crash. */
    supraseal_proof pz;
    toy_make(&bad, 3, 1); /* out = 36: not a solution */
    CHECK(is_error(gen(&bad.as, 1, &r3, &s3, &pz, &srs), "unsatisfied partition"), "unsatisfied");
    toy_make(&bad, 3, 0);
    bad.as.a_aux_popcount = 2;
    CHECK(is_error(gen(&bad.as, 1, &r3, &s3, &pz, &srs), "popcount"), "popcount");
    bad.as.a_aux_popcount = 3, bad.as.abc_size = 9;
    CHECK(is_error(gen(&bad.as, 1, &r3, &s3, &pz, &srs), "abc_size over the domain"), "abc_size");
    bad.as.abc_size = 6, bad.as.b_aux_bit_len = 5;
    CHECK(is_error(gen(&bad.as, 1, &r3, &s3, &pz, &srs), "bit length"), "bit_len");
    bad.as.b_aux_bit_len = 4, bad.as.aux_assignment_size = 3;
    CHECK(is_error(gen(&bad.as, 1, &r3, &s3, &pz, &srs), "aux count"), "aux count");
    supraseal_fr big;
    memset(&big, 0xff, sizeof big);
    CHECK(is_error(gen(&t3.as, 1, &big, &s3, &pz, &srs), "r not below the order"), "r");
    supraseal_assignment two[2] = {t3.as, bad.as};
    supraseal_proof p2[2];
    CHECK(is_error(gen(two, 2, rs, ss, p2, &srs), "second partition bad"), "batch with a bad one");
    supraseal_srs empty = {NULL};
    CHECK(is_error(gen(&t3.as, 1, &r3, &s3, &pz, &empty), "empty SRS"), "empty SRS");
    CHECK(is_error(gen(NULL, 1, &r3, &s3, &pz, &srs), "NULL provers"), "NULL provers");
    CHECK(is_ok(gen(NULL, 0, NULL, NULL, NULL, &srs), "no circuits"), "n = 0");

    /* create_SRS failures leave the handle empty. */
    supraseal_srs s2 = {NULL};
    snprintf(path, sizeof path, "%s/missing.params", outdir);
    CHECK(is_error(create_SRS(&s2, path, false), "missing file"), "missing");
    CHECK(is_error(create_SRS(&s2, path, true), "missing file, cached"), "missing cached");
    CHECK(s2.ptr == NULL, "handle set on failure");
    {
        FILE *in = fopen(params, "rb");
        snprintf(path, sizeof path, "%s/cut.params", outdir);
        FILE *out = fopen(path, "wb");
        char buf[2000];
        size_t got = in ? fread(buf, 1, sizeof buf, in) : 0;
        CHECK(out && got == sizeof buf && fwrite(buf, 1, got, out) == got, "writing %s", path);
        if (in)
            fclose(in);
        if (out)
            fclose(out);
        CHECK(is_error(create_SRS(&s2, path, false), "truncated .params"), "truncated");
        snprintf(path, sizeof path, "%s/params_toy.vk", dir);
        CHECK(is_error(create_SRS(&s2, path, false), "a .vk is no proving key"), ".vk");
        CHECK(s2.ptr == NULL, "handle set on failure");
    }
    CHECK(is_error(create_SRS(NULL, params, false), "NULL handle"), "NULL ret");
    drop_SRS(&empty); /* no-op */
    evict_SRS(&empty);
    supraseal_srs ce = clone_SRS(&empty);
    CHECK(ce.ptr == NULL, "clone of empty");

    /* The cache: one key per path until evicted; clones share it. */
    supraseal_srs c1 = {NULL}, c2 = {NULL}, c3 = {NULL};
    CHECK(is_ok(create_SRS(&c1, params, true), "cached create"), "cache 1");
    CHECK(is_ok(create_SRS(&c2, params, true), "cached create again"), "cache 2");
    CHECK(c1.ptr && c1.ptr == c2.ptr, "cache gave two keys");
    CHECK(c1.ptr != srs.ptr, "an uncached key is the cache's");
    supraseal_srs cl = clone_SRS(&c1);
    CHECK(cl.ptr == c1.ptr, "clone differs");
    drop_SRS(&c2);
    CHECK(c2.ptr == NULL, "drop left the handle set");
    evict_SRS(&c1);
    CHECK(is_ok(create_SRS(&c3, params, true), "create after evict"), "cache 3");
    CHECK(c3.ptr && c3.ptr != c1.ptr, "evict did not drop the cached key");
    CHECK(is_ok(gen(&t3.as, 1, &r3, &s3, &pz, &cl), "prove with a clone of an evicted key"), "clone prove");
    CHECK(!memcmp(&pz, &p1, sizeof pz), "clone's proof differs");
    CHECK(is_ok(gen(&t3.as, 1, &r3, &s3, &pz, &c3), "prove with the new cached key"), "c3 prove");
    CHECK(!memcmp(&pz, &p1, sizeof pz), "c3's proof differs");
    drop_SRS(&c1);
    drop_SRS(&cl);

    /* Two threads at once on one key. */
    {
        thread_job j[2] = {{.srs = c3, .t = &t4, .r = rs[1], .s = ss[1]}, {.srs = c3, .t = &t5, .r = rs[2], .s = ss[2]}};
        pthread_t th[2];
        int started[2];
        for (int k = 0; k < 2; k++)
            started[k] = pthread_create(&th[k], NULL, thread_main, &j[k]) == 0;
        for (int k = 0; k < 2; k++) {
            CHECK(started[k], "pthread_create");
            if (!started[k])
                continue;
            pthread_join(th[k], NULL);
            CHECK(is_ok(j[k].e, "threaded proof"), "thread %d", k);
            CHECK(!memcmp(&j[k].proof, &pb[k + 1], sizeof pz), "thread %d's proof differs", k);
        }
    }
    evict_SRS(&c3);
    drop_SRS(&c3);

    /* The curio split: start, then finalize gives the same proofs. */
    void *mtx = create_gpu_mutex();
    CHECK(mtx != NULL, "create_gpu_mutex");
    void *pend = (void *)1;
    CHECK(is_ok(generate_groth16_proofs_start_c(batch, 3, rs, ss, &srs, mtx, -1, &pend), "start"), "start");
    CHECK(pend != NULL && pend != (void *)1, "no pending handle");
    supraseal_proof pf[3];
    memset(pf, 0, sizeof pf);
    if (pend && pend != (void *)1) {
        CHECK(is_ok(finalize_groth16_proof_c(pend, pf), "finalize"), "finalize");
        CHECK(!memcmp(pf, pb, sizeof pf), "split proofs differ from generate_groth16_proofs_c's");
    }
    pend = NULL;
    CHECK(is_ok(generate_groth16_proofs_start_c(batch, 3, rs, ss, &srs, NULL, 0, &pend), "start on GPU 0"),
          "start 0");
    destroy_pending_proof(pend); /* abandoned */
    destroy_pending_proof(NULL);
    pend = (void *)1;
    CHECK(is_error(generate_groth16_proofs_start_c(&bad.as, 1, rs, ss, &srs, mtx, -1, &pend), "start, bad"),
          "start bad");
    CHECK(pend == NULL, "pending handle set on failure");
    CHECK(is_error(generate_groth16_proofs_start_c(batch, 1, rs, ss, &srs, mtx, -2, &pend), "gpu_index -2"),
          "gpu_index");
    CHECK(is_error(generate_groth16_proofs_start_c(batch, 1, rs, ss, &srs, mtx, -1, NULL), "NULL pending_out"),
          "pending_out");
    CHECK(is_error(finalize_groth16_proof_c(NULL, pf), "finalize NULL"), "finalize NULL");
    destroy_gpu_mutex(mtx);
    destroy_gpu_mutex(NULL);

    drop_SRS(&srs);
    gmp_randclear(gr);
    mpz_clears(R, P, g_r, g_s, NULL);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
