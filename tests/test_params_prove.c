/* Proving bellperson partitions (src/groth16/params_prove.c, assignment.c):
 *   - the root exponent: bellperson's 7^((r-1)/2^k) = g16's w[k]^m, m odd,
 *     for every k, and m mod n != 1 for the domains proved below (so the
 *     scatter into g16's order is exercised, not the identity);
 *   - the noble toy (tests/vectors/params_toy.*): the C API with noble's r, s
 *     gives noble's proof byte for byte (params_toy.proof), and verifies;
 *     fresh r, s give another proof that verifies;
 *   - a random circuit (logged seed) with a key made here from toxic waste
 *     (bellperson's formulas, domain 2^10: several scatter tasks, m mod n
 *     far from 1), sparse B, aux absent from A: proofs verify, through the
 *     file writer and reader too, and a changed aux value is INVALID_PROOF;
 *   - a synthetic Filecoin-profile circuit (synth.h, 2^9) through
 *     g16_assignment_from_r1cs, a key made here from its R1CS: it verifies;
 *   - bad assignments: each count, bitmap and value fault gives its typed
 *     error naming the field;
 *   - bad files: truncation at every byte, magic, version, curve, counts that
 *     overflow, trailing bytes, popcount fields, tail bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "g16.h"
#include "gpu/gpu.h"
#include "groth16/assignment.h"
#include "formats/formats.h"
#include "groth16/params.h"
#include "groth16/synth.h"
#include "ntt/ntt.h"
#include "testutil.h"

#define DIR "tests/vectors/"

static g16_ctx *g_ctx;
static char g_tmp[256];

static int has(const char *msg, const char *sub) { return strstr(msg, sub) != NULL; }
static const char *last(void) {
    static char buf[512];
    (void)g16_ctx_last_error(g_ctx, buf, sizeof buf);
    return buf;
}

/* ---- root exponent ----------------------------------------------------------- */
static void fr_pow_u(bls381_fr *r, const bls381_fr *a, uint64_t e) {
    limb_t x[1] = {e};
    bls381_fr_pow(r, a, x, 1);
}

static void seven_root(bls381_fr *wb, unsigned k) {
    static const limb_t rp[4] = BLS381_FR_P;
    limb_t e[4] = {rp[0] - 1, rp[1], rp[2], rp[3]};
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++)
            e[i] = e[i] >> 1 | e[i + 1] << 63;
        e[3] >>= 1;
    }
    bls381_fr seven;
    bls381_fr_from_u64(&seven, 7);
    bls381_fr_pow(wb, &seven, e, 4);
}

static void test_root_exponent(void) {
    for (unsigned k = 1; k <= 32; k++) {
        uint32_t m = g16_params_root_exponent(k);
        bls381_fr wb, wg, t;
        seven_root(&wb, k);
        ntt_bls381_fr_root(&wg, k);
        fr_pow_u(&t, &wg, m);
        CHECK_MSG(bls381_fr_eq(&t, &wb), "k %u: w[k]^%u != 7^((r-1)/2^k)", k, m);
        CHECK(m & 1);
        if (k < 32)
            CHECK(m < (1u << k));
    }
    /* the domains below: the scatter is a real permutation there */
    CHECK(g16_params_root_exponent(3) != 1);
    CHECK(g16_params_root_exponent(10) % 1024 != 1);
    fprintf(stderr, "root exponent: m = %u (2^32), %u (2^10), %u (2^3)\n", g16_params_root_exponent(32),
            g16_params_root_exponent(10), g16_params_root_exponent(3));
}

/* ---- the noble toy ------------------------------------------------------------- */
static int read_rs(g16_fr_mont *r, g16_fr_mont *s) {
    size_t len;
    char *txt = t_read_file(DIR "params_toy.txt", &len);
    if (!txt)
        return 0;
    char *line = strstr(txt, "\nrs ");
    int ok = 0;
    if (line) {
        char a[100], b[100];
        if (sscanf(line + 4, "%99s %99s", a, b) == 2) {
            bls381_fr x, y;
            ok = bls381_fr_from_dec(&x, a) == G16_OK && bls381_fr_from_dec(&y, b) == G16_OK;
            memcpy(r->l, x.l, 32);
            memcpy(s->l, y.l, 32);
        }
    }
    free(txt);
    return ok;
}

/* The raw proof's limbs against noble's coordinates (params_toy.txt "proof"
 * lines: decimal x y, or x.c0 x.c1 y.c0 y.c1): Montgomery Fp, c0 before c1. */
static void check_raw_layout(const g16_params_proof_raw *raw) {
    size_t len;
    char *txt = t_read_file(DIR "params_toy.txt", &len);
    CHECK(txt != NULL);
    if (!txt)
        return;
    static const char *names[3] = {"proof_a", "proof_b", "proof_c"};
    const uint64_t *limbs[3][4] = {{raw->a[0], raw->a[1]},
                                   {raw->b[0][0], raw->b[0][1], raw->b[1][0], raw->b[1][1]},
                                   {raw->c[0], raw->c[1]}};
    for (int p = 0; p < 3; p++) {
        char key[32];
        snprintf(key, sizeof key, "\nproof %s ", names[p]);
        char *line = strstr(txt, key);
        CHECK(line != NULL);
        if (!line)
            continue;
        line += strlen(key);
        int nc = p == 1 ? 4 : 2;
        for (int c = 0; c < nc; c++) {
            char dec[140];
            int used = 0;
            CHECK(sscanf(line, "%139s%n", dec, &used) == 1);
            line += used;
            bls381_fp x;
            CHECK(bls381_fp_from_dec(&x, dec) == G16_OK);
            CHECK_MSG(!memcmp(x.l, limbs[p][c], 48), "%s coordinate %d", names[p], c);
        }
    }
    free(txt);
}

static void test_toy(g16_params_key *key, const g16_assignment_file *af) {
    g16_fr_mont r, s;
    CHECK(read_rs(&r, &s));
    size_t ni, na, d;
    CHECK(g16_params_key_info(key, &ni, &na, &d) == G16_OK);
    CHECK(ni == 2 && na == 4 && d == 8);
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    o.r = &r;
    o.s = &s;
    g16_params_proof_raw raw;
    CHECK_MSG(g16_prove_assignments(g_ctx, key, &af->a, 1, &o, &raw) == G16_OK, "%s", last());
    uint8_t enc[192];
    CHECK(g16_params_proof_raw_encode(enc, &raw) == G16_OK);
    size_t plen;
    char *want = t_read_file(DIR "params_toy.proof", &plen);
    CHECK(want && plen == 192 && !memcmp(enc, want, 192)); /* noble's proof, byte for byte */
    free(want);
    check_raw_layout(&raw);
    /* fresh r, s: a different proof that verifies */
    o.r = o.s = NULL;
    g16_params_proof_raw raw2;
    CHECK_MSG(g16_prove_assignments(g_ctx, key, &af->a, 1, &o, &raw2) == G16_OK, "%s", last());
    uint8_t enc2[192];
    CHECK(g16_params_proof_raw_encode(enc2, &raw2) == G16_OK);
    CHECK(memcmp(enc, enc2, 192) != 0);
    g16_params_proof pr;
    g16_status st = {0};
    CHECK(g16_params_proof_decode(&pr, enc2, 192, &st) == G16_OK);
    bls381_fr pub;
    memcpy(pub.l, af->a.inp_assignment[1].l, 32);
    CHECK(g16_params_verify(g16_params_key_params(key), &pr, &pub, 1, &st) == G16_OK);
    /* a raw proof off the curve, or not canonical, does not encode */
    raw2.a[1][0] ^= 1;
    CHECK(g16_params_proof_raw_encode(enc2, &raw2) == G16_ERR_NOT_ON_CURVE);
    memset(raw2.c[0], 0xff, 48);
    CHECK(g16_params_proof_raw_encode(enc2, &raw2) == G16_ERR_NOT_CANONICAL);
    /* two partitions in one call; r given without s is refused */
    g16_assignment two[2] = {af->a, af->a};
    g16_params_proof_raw rr[2];
    g16_fr_mont r2[2] = {r, s}, s2[2] = {s, r};
    o.r = r2;
    o.s = s2;
    CHECK_MSG(g16_prove_assignments(g_ctx, key, two, 2, &o, rr) == G16_OK, "%s", last());
    CHECK(!memcmp(&rr[0], &raw, sizeof raw) && memcmp(&rr[1], &raw, sizeof raw));
    o.s = NULL;
    CHECK(g16_prove_assignments(g_ctx, key, two, 2, &o, rr) == G16_ERR_INVALID_ARG);
    o.r = r2;
    o.s = s2;
    o.backend = G16_BACKEND_CUDA; /* the GPU, or NO_DEVICE (tests/test_params_gpu.c runs it on one) */
    g16_err ge = g16_prove_assignments(g_ctx, key, two, 1, &o, rr);
    CHECK_MSG(g16_gpu_count() > 0 ? ge == G16_OK && !memcmp(&rr[0], &raw, sizeof raw) : ge == G16_ERR_NO_DEVICE,
              "cuda backend: %s (%s)", g16_err_str(ge), last());
}

/* ---- bad assignments ----------------------------------------------------------- */
typedef struct bad_case {
    const char *name;
    g16_err want;
    const char *msg;
} bad_case;

static void expect(g16_params_key *key, const g16_assignment *a, g16_err want, const char *msg, const char *name) {
    g16_params_proof_raw raw;
    g16_err e = g16_prove_assignments(g_ctx, key, a, 1, NULL, &raw);
    CHECK_MSG(e == want && has(last(), msg), "%s: got %s '%s', want %s '%s'", name, g16_err_str(e), last(),
              g16_err_str(want), msg);
}

static void test_bad_assignments(g16_params_key *key, const g16_assignment_file *af) {
    const g16_assignment base = af->a;
    g16_assignment a;
    uint64_t w[4];
    g16_fr_mont v[8];
#define CASE(mut, want, msg)                                                                            \
    do {                                                                                                 \
        a = base;                                                                                        \
        mut;                                                                                             \
        expect(key, &a, want, msg, #mut);                                                                \
    } while (0)
    CASE(a.a_aux_popcount = 2, G16_ERR_FORMAT, "a_aux_popcount is 2 but a_aux_density has 3 bits set");
    CASE(a.b_aux_popcount = 0, G16_ERR_FORMAT, "b_aux_popcount is 0");
    CASE(a.b_inp_popcount = 2, G16_ERR_FORMAT, "b_inp_popcount");
    CASE((w[0] = base.a_aux_density[0] | 1u << 5, a.a_aux_density = w), G16_ERR_FORMAT,
         "a_aux_density has bits set past its a_aux_bit_len 4");
    CASE(a.a_aux_bit_len = 5, G16_ERR_SIZE_MISMATCH, "a_aux_bit_len is 5, the key has 4 aux");
    CASE(a.b_aux_bit_len = 3, G16_ERR_SIZE_MISMATCH, "b_aux_bit_len is 3");
    CASE(a.b_inp_bit_len = 1, G16_ERR_SIZE_MISMATCH, "b_inp_bit_len is 1");
    CASE(a.aux_assignment_size = 3, G16_ERR_SIZE_MISMATCH, "aux_assignment_size is 3");
    CASE(a.inp_assignment_size = 1, G16_ERR_SIZE_MISMATCH, "inp_assignment_size is 1");
    /* set bits that agree with the popcount but not with the key's a / b counts */
    CASE((w[0] = 0xf, a.a_aux_density = w, a.a_aux_popcount = 4), G16_ERR_SIZE_MISMATCH,
         "the key's a has 5 points");
    CASE((w[0] = 0x3, a.b_aux_density = w, a.b_aux_popcount = 2), G16_ERR_SIZE_MISMATCH,
         "the key's b_g1 has 2 points");
    CASE((w[0] = 0x0, a.b_inp_density = w, a.b_inp_popcount = 0), G16_ERR_SIZE_MISMATCH, "b_g1");
    CASE(a.abc_size = 9, G16_ERR_SIZE_MISMATCH, "abc_size is 9, over the key's domain of 8");
    CASE(a.abc_size = (size_t)-1, G16_ERR_SIZE_MISMATCH, "over the key's domain");
    CASE(a.a = NULL, G16_ERR_INVALID_ARG, "a, b or c is NULL");
    CASE(a.a_aux_density = NULL, G16_ERR_INVALID_ARG, "a_aux_density is NULL");
    CASE(a.inp_assignment = NULL, G16_ERR_INVALID_ARG, "no inp_assignment");
    /* values: not below r, input 0 not one */
    memcpy(v, base.aux_assignment, 4 * sizeof *v);
    CASE((v[2].l[3] = ~0ull, a.aux_assignment = v), G16_ERR_NOT_CANONICAL, "aux_assignment[2] is not below r");
    memcpy(v, base.b, 6 * sizeof *v);
    CASE((v[5].l[3] = ~0ull, a.b = v), G16_ERR_NOT_CANONICAL, "b[5] is not below r");
    memcpy(v, base.inp_assignment, 2 * sizeof *v);
    CASE((v[0] = v[1], a.inp_assignment = v), G16_ERR_FORMAT, "inp_assignment[0] is not one");
    /* a value changed: the proof is made but does not verify */
    memcpy(v, base.aux_assignment, 4 * sizeof *v);
    CASE((v[3] = v[0], a.aux_assignment = v), G16_ERR_INVALID_PROOF, "does not verify");
    memcpy(v, base.c, 6 * sizeof *v);
    CASE((v[1] = v[0], a.c = v), G16_ERR_INVALID_PROOF, "does not verify");
#undef CASE
    /* verify off: that proof comes back, and the verifier rejects it */
    a = base;
    a.aux_assignment = v;
    memcpy(v, base.aux_assignment, 4 * sizeof *v);
    v[3] = v[0];
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    o.verify = 0;
    g16_params_proof_raw raw;
    CHECK(g16_prove_assignments(g_ctx, key, &a, 1, &o, &raw) == G16_OK);
    uint8_t enc[192];
    g16_params_proof pr;
    g16_status st = {0};
    CHECK(g16_params_proof_raw_encode(enc, &raw) == G16_OK && g16_params_proof_decode(&pr, enc, 192, &st) == G16_OK);
    bls381_fr pub;
    memcpy(pub.l, base.inp_assignment[1].l, 32);
    CHECK(g16_params_verify(g16_params_key_params(key), &pr, &pub, 1, &st) == G16_ERR_INVALID_PROOF);
}

/* ---- bad files ------------------------------------------------------------------ */
static void put64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* data as a file in g_tmp (path into buf) */
static void write_tmp(char *path, size_t n, const char *name, const uint8_t *data, size_t len) {
    snprintf(path, n, "%s/%s", g_tmp, name);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && (len == 0 || fwrite(data, 1, len, fp) == len));
    if (fp)
        fclose(fp);
}

/* Each malformed case through memory and through the mapped file reader. */
static void expect_file(const uint8_t *data, size_t len, g16_err want, const char *msg, const char *name) {
    g16_assignment_file f;
    g16_status st = {0};
    g16_err e = g16_assignment_read_mem(&f, "x.assignment", data, len, &st);
    CHECK_MSG(e == want && has(st.msg, msg), "%s: got %s '%s', want %s '%s'", name, g16_err_str(e), st.msg,
              g16_err_str(want), msg);
    g16_assignment_file_free(&f);
    char path[300];
    write_tmp(path, sizeof path, "bad.assignment", data, len);
    memset(&st, 0, sizeof st);
    e = g16_assignment_read(&f, path, &st);
    CHECK_MSG(e == want && has(st.msg, msg), "%s (file): got %s '%s', want %s '%s'", name, g16_err_str(e),
              st.msg, g16_err_str(want), msg);
    CHECK(f.map.base == NULL && f.buf == NULL); /* left empty */
    g16_assignment_file_free(&f);
}

static void test_bad_files(const uint8_t *good, size_t len) {
    uint8_t *b = malloc(len + 8);
    /* every truncation */
    for (size_t n = 0; n < len; n++) {
        g16_assignment_file f;
        g16_status st = {0};
        g16_err e = g16_assignment_read_mem(&f, "x", good, n, &st);
        CHECK_MSG(e == G16_ERR_TRUNCATED, "cut at %zu: %s '%s'", n, g16_err_str(e), st.msg);
        g16_assignment_file_free(&f);
    }
    memcpy(b, good, len);
    b[len] = 0;
    expect_file(b, len + 1, G16_ERR_FORMAT, "1 trailing bytes", "trailing");
#define FCASE(mut, want, msg)                       \
    do {                                            \
        memcpy(b, good, len);                       \
        mut;                                        \
        expect_file(b, len, want, msg, #mut);       \
    } while (0)
    FCASE(b[0] = 'G', G16_ERR_FORMAT, "bad magic");
    FCASE(b[7] = 1, G16_ERR_FORMAT, "bad magic");
    FCASE(b[8] = 2, G16_ERR_FORMAT, "assignment version 2");
    FCASE(b[12] = 1, G16_ERR_WRONG_CURVE, "curve 1");
    FCASE(b[12] = 0, G16_ERR_WRONG_CURVE, "curve 0");
    /* counts overflowing 64-bit products, or merely too large */
    FCASE(put64(b + 16, UINT64_MAX), G16_ERR_TRUNCATED, "a declares 18446744073709551615 entries");
    FCASE(put64(b + 16, (uint64_t)1 << 59), G16_ERR_TRUNCATED, "a declares");
    FCASE(put64(b + 24, (uint64_t)1 << 62), G16_ERR_TRUNCATED, "inputs declares");
    FCASE(put64(b + 32, UINT64_MAX / 32 + 1), G16_ERR_TRUNCATED, "aux declares");
    FCASE((put64(b + 40, UINT64_MAX), put64(b + 48, 0)), G16_ERR_TRUNCATED, "a_aux density declares");
    FCASE(put64(b + 56, UINT64_MAX - 62), G16_ERR_TRUNCATED, "b_inp density declares 288230376151711744");
    FCASE(put64(b + 56, 0), G16_ERR_FORMAT, "b_inp_popcount 1 is over b_inp_bit_len 0");
    FCASE(put64(b + 72, 1u << 20), G16_ERR_TRUNCATED, "b_aux density declares");
    FCASE(put64(b + 16, 5), G16_ERR_FORMAT, "trailing bytes"); /* abc 6 -> 5: 96 bytes left over */
    FCASE(put64(b + 24, 0), G16_ERR_FORMAT, "n_inputs is 0");
    FCASE(put64(b + 48, 5), G16_ERR_FORMAT, "a_aux_popcount 5 is over a_aux_bit_len 4");
    FCASE(put64(b + 48, 2), G16_ERR_FORMAT, "a_aux_popcount is 2 but a_aux_density has 3 bits set");
    FCASE(b[len - 24] |= 0x10, G16_ERR_FORMAT, "a_aux_density has bits set past"); /* a_aux word, bit 4 */
    FCASE(b[len - 8] |= 0x02, G16_ERR_FORMAT, "b_aux_popcount is 1 but b_aux_density has 2 bits set");
#undef FCASE
    /* random byte flips in the header never crash */
    g16_rng rng;
    g16_rng_seed(&rng, 7);
    for (int i = 0; i < 2000; i++) {
        memcpy(b, good, len);
        b[g16_rng_next(&rng) % 88] ^= (uint8_t)(1 + g16_rng_next(&rng) % 255);
        g16_assignment_file f;
        g16_status st = {0};
        if (g16_assignment_read_mem(&f, "x", b, len, &st) == G16_OK)
            g16_assignment_file_free(&f);
    }
    free(b);
    /* a real file: truncated copy, and round trip through the writer */
    g16_assignment_file f;
    g16_status st = {0};
    char path[300];
    snprintf(path, sizeof path, "%s/cut.assignment", g_tmp);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(good, 1, len - 1, fp) == len - 1);
    if (fp)
        fclose(fp);
    CHECK(g16_assignment_read(&f, path, &st) == G16_ERR_TRUNCATED);
    g16_assignment_file_free(&f);
    /* every truncation of the file (shorter than the header: nothing is mapped) */
    for (size_t n = 0; n < len; n += 1 + n / 8) {
        write_tmp(path, sizeof path, "cut.assignment", good, n);
        memset(&st, 0, sizeof st);
        g16_err e = g16_assignment_read(&f, path, &st);
        CHECK_MSG(e == G16_ERR_TRUNCATED, "file cut at %zu: %s '%s'", n, g16_err_str(e), st.msg);
        g16_assignment_file_free(&f);
    }
    /* mapped, not copied; a file truncated after the read is caught by the
     * intact check (the guarded mapping reads zeros past the new end) */
    write_tmp(path, sizeof path, "cut.assignment", good, len);
    CHECK(g16_assignment_read(&f, path, &st) == G16_OK && f.buf == NULL && f.map.base != NULL);
    CHECK(g16_assignment_file_intact(&f, &st) == G16_OK);
    CHECK(truncate(path, 100) == 0);
    volatile uint64_t sink = f.a.b_aux_density[0]; /* past the new end: recovered by the handler */
    (void)sink;
    CHECK(g16_assignment_file_intact(&f, &st) == G16_ERR_IO && has(st.msg, "changed while it was read"));
    g16_assignment_file_free(&f);
    CHECK(g16_assignment_read(&f, "/nonexistent/x.assignment", &st) == G16_ERR_IO);
    CHECK(g16_assignment_read(&f, g_tmp, &st) == G16_ERR_IO); /* a directory */
}

/* ---- a random circuit with a key made here ---------------------------------------- */
typedef struct term {
    uint32_t v; /* variable: inputs 0..ni-1, then aux */
    bls381_fr c;
} term;
typedef struct row {
    term t[3][4];
    int n[3];
} row;

static void rnd_fr(bls381_fr *x, g16_rng *rng) { bls381_fr_random(x, rng); }

static void lc_eval(bls381_fr *out, const term *t, int n, const bls381_fr *w) {
    bls381_fr acc, x;
    bls381_fr_set_zero(&acc);
    for (int i = 0; i < n; i++) {
        bls381_fr_mul(&x, &t[i].c, &w[t[i].v]);
        bls381_fr_add(&acc, &acc, &x);
    }
    *out = acc;
}

static void g1_of(uint8_t out[96], const bls381_fr *k) {
    bls381_g1_affine g, a;
    bls381_g1_jac j;
    g16_scalar s;
    bls381_g1_generator(&g);
    bls381_fr_from_mont(s.l, k);
    bls381_g1_jac_from_affine(&j, &g);
    bls381_g1_jac_mul_vartime(&j, &j, &s);
    bls381_g1_jac_to_affine(&a, &j);
    bls381_g1_to_zcash(out, 96, &a);
}
static void g2_of(uint8_t out[192], const bls381_fr *k) {
    bls381_g2_affine g, a;
    bls381_g2_jac j;
    g16_scalar s;
    bls381_g2_generator(&g);
    bls381_fr_from_mont(s.l, k);
    bls381_g2_jac_from_affine(&j, &g);
    bls381_g2_jac_mul_vartime(&j, &j, &s);
    bls381_g2_jac_to_affine(&a, &j);
    bls381_g2_to_zcash(out, 192, &a);
}
static void be32(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

/* One term of a circuit: matrix m (0 A, 1 B, 2 C), row, variable, coefficient. */
typedef struct trip {
    uint32_t row, v;
    int m;
    bls381_fr c;
} trip;

/* Writes the bellperson key of the terms t[0..nt) (the input rows included)
 * over ni inputs and nx aux, domain 2^log_n, from random toxic waste:
 * bellperson's formulas (docs/formats.md), the a/b points at infinity left out. */
static int write_key(const char *path, const trip *tr, size_t ntr, size_t ni, size_t nx, unsigned log_n,
                     g16_rng *rng) {
    size_t n = (size_t)1 << log_n, nv = ni + nx;
    bls381_fr alpha, beta, gamma, delta, tau;
    rnd_fr(&alpha, rng), rnd_fr(&beta, rng), rnd_fr(&gamma, rng), rnd_fr(&delta, rng), rnd_fr(&tau, rng);
    bls381_fr wb, zt, one, nfr, x, y;
    seven_root(&wb, log_n);
    bls381_fr_set_one(&one);
    fr_pow_u(&zt, &tau, n);
    bls381_fr_sub(&zt, &zt, &one);
    bls381_fr_from_u64(&nfr, n);
    /* L_j(tau) = w^j Z(tau) / (n (tau - w^j)) */
    bls381_fr *lag = malloc(n * sizeof *lag), wj = one;
    for (size_t j = 0; j < n; j++) {
        bls381_fr_sub(&x, &tau, &wj);
        bls381_fr_mul(&x, &x, &nfr);
        bls381_fr_inv_vartime(&x, &x);
        bls381_fr_mul(&y, &wj, &zt);
        bls381_fr_mul(&lag[j], &y, &x);
        bls381_fr_mul(&wj, &wj, &wb);
    }
    bls381_fr *ev[3];
    for (int m = 0; m < 3; m++)
        ev[m] = calloc(nv, sizeof(bls381_fr));
    for (size_t i = 0; i < ntr; i++) {
        bls381_fr_mul(&x, &tr[i].c, &lag[tr[i].row]);
        bls381_fr_add(&ev[tr[i].m][tr[i].v], &ev[tr[i].m][tr[i].v], &x);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    uint8_t p1[96], p2[192], cnt[4];
    bls381_fr gi, di;
    bls381_fr_inv_vartime(&gi, &gamma);
    bls381_fr_inv_vartime(&di, &delta);
    g1_of(p1, &alpha), fwrite(p1, 1, 96, f);
    g1_of(p1, &beta), fwrite(p1, 1, 96, f);
    g2_of(p2, &beta), fwrite(p2, 1, 192, f);
    g2_of(p2, &gamma), fwrite(p2, 1, 192, f);
    g1_of(p1, &delta), fwrite(p1, 1, 96, f);
    g2_of(p2, &delta), fwrite(p2, 1, 192, f);
    /* ext_v = beta at + alpha bt + ct */
#define EXT(v)                                     \
    (bls381_fr_mul(&x, &beta, &ev[0][v]), bls381_fr_mul(&y, &alpha, &ev[1][v]), bls381_fr_add(&x, &x, &y), \
     bls381_fr_add(&x, &x, &ev[2][v]))
    be32(cnt, (uint32_t)ni), fwrite(cnt, 1, 4, f);
    for (size_t v = 0; v < ni; v++) {
        EXT(v);
        bls381_fr_mul(&x, &x, &gi);
        g1_of(p1, &x), fwrite(p1, 1, 96, f);
    }
    be32(cnt, (uint32_t)(n - 1)), fwrite(cnt, 1, 4, f);
    bls381_fr ti = one;
    for (size_t i = 0; i + 1 < n; i++) {
        bls381_fr_mul(&x, &ti, &zt);
        bls381_fr_mul(&x, &x, &di);
        g1_of(p1, &x), fwrite(p1, 1, 96, f);
        bls381_fr_mul(&ti, &ti, &tau);
    }
    be32(cnt, (uint32_t)nx), fwrite(cnt, 1, 4, f);
    for (size_t v = ni; v < nv; v++) {
        EXT(v);
        bls381_fr_mul(&x, &x, &di);
        g1_of(p1, &x), fwrite(p1, 1, 96, f);
    }
#undef EXT
    size_t na = 0, nb = 0;
    for (size_t v = 0; v < nv; v++)
        na += !bls381_fr_is_zero(&ev[0][v]), nb += !bls381_fr_is_zero(&ev[1][v]);
    be32(cnt, (uint32_t)na), fwrite(cnt, 1, 4, f);
    for (size_t v = 0; v < nv; v++)
        if (!bls381_fr_is_zero(&ev[0][v]))
            g1_of(p1, &ev[0][v]), fwrite(p1, 1, 96, f);
    be32(cnt, (uint32_t)nb), fwrite(cnt, 1, 4, f);
    for (size_t v = 0; v < nv; v++)
        if (!bls381_fr_is_zero(&ev[1][v]))
            g1_of(p1, &ev[1][v]), fwrite(p1, 1, 96, f);
    be32(cnt, (uint32_t)nb), fwrite(cnt, 1, 4, f);
    for (size_t v = 0; v < nv; v++)
        if (!bls381_fr_is_zero(&ev[1][v]))
            g2_of(p2, &ev[1][v]), fwrite(p2, 1, 192, f);
    int ok = fclose(f) == 0;
    for (int m = 0; m < 3; m++)
        free(ev[m]);
    free(lag);
    return ok;
}

static void set_bit(uint64_t *w, size_t i) { w[i / 64] |= (uint64_t)1 << (i % 64); }

static void test_random_circuit(uint64_t seed) {
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    const unsigned log_n = 10;
    const size_t ni = 4, nfree = 40, ncons = 1000 - ni, nx = nfree + ncons, nv = ni + nx, nr = ncons + ni;
    row *rows = calloc(nr, sizeof *rows);
    bls381_fr *w = malloc(nv * sizeof *w);
    bls381_fr_set_one(&w[0]);
    for (size_t v = 1; v < ni + nfree; v++)
        rnd_fr(&w[v], &rng);
    /* constraint j defines aux nfree + j = A_j . B_j from earlier variables;
     * B draws only on variables of index divisible by 3 (sparse B), and the
     * last 100 outputs are never used again (absent from A) */
    for (size_t j = 0; j < ncons; j++) {
        size_t out = ni + nfree + j, avail = out < ni + nfree + ncons - 100 ? out : ni + nfree + ncons - 100;
        row *r = &rows[j];
        r->n[0] = 1 + (int)(g16_rng_next(&rng) % 3);
        r->n[1] = 1 + (int)(g16_rng_next(&rng) % 2);
        for (int i = 0; i < r->n[0]; i++) {
            r->t[0][i].v = (uint32_t)(g16_rng_next(&rng) % (avail < out ? avail : out));
            rnd_fr(&r->t[0][i].c, &rng);
        }
        for (int i = 0; i < r->n[1]; i++) {
            size_t v = g16_rng_next(&rng) % out;
            r->t[1][i].v = (uint32_t)(v - v % 3);
            rnd_fr(&r->t[1][i].c, &rng);
        }
        r->n[2] = 1;
        r->t[2][0].v = (uint32_t)out;
        bls381_fr_set_one(&r->t[2][0].c);
        bls381_fr a, b;
        lc_eval(&a, r->t[0], r->n[0], w);
        lc_eval(&b, r->t[1], r->n[1], w);
        bls381_fr_mul(&w[out], &a, &b);
    }
    for (size_t i = 0; i < ni; i++) { /* bellperson's input rows */
        rows[ncons + i].n[0] = 1;
        rows[ncons + i].t[0][0].v = (uint32_t)i;
        bls381_fr_set_one(&rows[ncons + i].t[0][0].c);
    }
    char kpath[300];
    snprintf(kpath, sizeof kpath, "%s/rand.params", g_tmp);
    double t0 = g16_now_ms();
    trip *tr = malloc(nr * 12 * sizeof *tr);
    size_t ntr = 0;
    for (size_t j = 0; j < nr; j++)
        for (int m = 0; m < 3; m++)
            for (int i = 0; i < rows[j].n[m]; i++)
                tr[ntr++] = (trip){(uint32_t)j, rows[j].t[m][i].v, m, rows[j].t[m][i].c};
    CHECK(write_key(kpath, tr, ntr, ni, nx, log_n, &rng));
    free(tr);
    fprintf(stderr, "random key: %zu rows, %zu variables, written in %.0f ms\n", nr, nv, g16_now_ms() - t0);
    /* the assignment, bellperson's way */
    bls381_fr *abc = malloc(3 * nr * sizeof *abc);
    size_t aw = (nx + 63) / 64;
    uint64_t *da = calloc(aw, 8), *dbi = calloc(1, 8), *dbx = calloc(aw, 8);
    for (size_t j = 0; j < nr; j++)
        for (int m = 0; m < 3; m++) {
            lc_eval(&abc[m * nr + j], rows[j].t[m], rows[j].n[m], w);
            for (int i = 0; i < rows[j].n[m]; i++) {
                uint32_t v = rows[j].t[m][i].v;
                if (m == 0 && v >= ni)
                    set_bit(da, v - ni);
                if (m == 1)
                    v < ni ? set_bit(dbi, v) : set_bit(dbx, v - ni);
            }
        }
    size_t pa = 0, pbi = (size_t)__builtin_popcountll(dbi[0]), pbx = 0;
    for (size_t i = 0; i < aw; i++)
        pa += (size_t)__builtin_popcountll(da[i]), pbx += (size_t)__builtin_popcountll(dbx[i]);
    CHECK(pa < nx && pbx < nx / 2);
    g16_assignment as = {
        .a_aux_density = da, .a_aux_bit_len = nx, .a_aux_popcount = pa,
        .b_inp_density = dbi, .b_inp_bit_len = ni, .b_inp_popcount = pbi,
        .b_aux_density = dbx, .b_aux_bit_len = nx, .b_aux_popcount = pbx,
        .a = (const g16_fr_mont *)(void *)abc, .b = (const g16_fr_mont *)(void *)(abc + nr),
        .c = (const g16_fr_mont *)(void *)(abc + 2 * nr), .abc_size = nr,
        .inp_assignment = (const g16_fr_mont *)(void *)w, .inp_assignment_size = ni,
        .aux_assignment = (const g16_fr_mont *)(void *)(w + ni), .aux_assignment_size = nx,
    };
    g16_params_key *key = NULL;
    CHECK_MSG(g16_params_key_load(g_ctx, &key, kpath, 1) == G16_OK, "%s", last());
    if (key) {
        CHECK(g16_params_key_root_exponent(key) % 1024 != 1);
        g16_params_proof_raw raw;
        t0 = g16_now_ms();
        CHECK_MSG(g16_prove_assignments(g_ctx, key, &as, 1, NULL, &raw) == G16_OK, "%s", last());
        fprintf(stderr, "random circuit: proved and verified in %.0f ms\n", g16_now_ms() - t0);
        /* through the file */
        char apath[300], ppath[300], jpath[300];
        snprintf(apath, sizeof apath, "%s/rand.assignment", g_tmp);
        snprintf(ppath, sizeof ppath, "%s/rand.proof", g_tmp);
        snprintf(jpath, sizeof jpath, "%s/rand.json", g_tmp);
        g16_status st = {0};
        CHECK(g16_assignment_write(apath, &as, &st) == G16_OK);
        g16_assignment_file f;
        CHECK(g16_assignment_read(&f, apath, &st) == G16_OK);
        CHECK(f.a.abc_size == nr && f.a.a_aux_popcount == pa && !memcmp(f.a.c, as.c, nr * 32));
        g16_assignment_file_free(&f);
        CHECK_MSG(g16_params_prove_file(g_ctx, key, apath, ppath, jpath, NULL, &st) == G16_OK, "%s", st.msg);
        CHECK_MSG(g16_params_verify_files(kpath, jpath, ppath, &st) == G16_OK, "%s", st.msg);
        /* an aux value changed: not a proof */
        bls381_fr keep = w[ni + 7];
        bls381_fr_add(&w[ni + 7], &w[ni + 7], &w[0]);
        CHECK(g16_prove_assignments(g_ctx, key, &as, 1, NULL, &raw) == G16_ERR_INVALID_PROOF);
        w[ni + 7] = keep;
        /* abc_size short of the rows (the input rows left out): not a proof */
        as.abc_size = ncons;
        CHECK(g16_prove_assignments(g_ctx, key, &as, 1, NULL, &raw) == G16_ERR_INVALID_PROOF);
        as.abc_size = nr;
    }
    g16_params_key_free(key);
    free(rows), free(w), free(abc), free(da), free(dbi), free(dbx);
}

/* A synthetic Filecoin-profile circuit (g16 synth's generator: mostly 0/1
 * values, A dense, B about a quarter) through g16_assignment_from_r1cs, with
 * a key made here from the same R1CS: the proof verifies. */
static void test_synth_filecoin(uint64_t seed) {
    char rpath[300], wpath[300], kpath[300];
    snprintf(rpath, sizeof rpath, "%s/fc.r1cs", g_tmp);
    snprintf(wpath, sizeof wpath, "%s/fc.wtns", g_tmp);
    snprintf(kpath, sizeof kpath, "%s/fc.params", g_tmp);
    synth_opts so = {.curve = G16_CURVE_BLS12_381, .log_n = 9, .profile = SYNTH_FILECOIN, .partitions = 1,
                     .seed = seed, .r1cs_path = rpath, .wtns_path = wpath};
    synth_stats ss;
    g16_status st = {0};
    CHECK_MSG(synth_generate(&so, &ss, &st) == G16_OK, "%s", st.msg);
    g16_assignment_file af;
    CHECK_MSG(g16_assignment_from_r1cs(&af, rpath, wpath, &st) == G16_OK, "%s", st.msg);
    g16_r1cs r;
    CHECK_MSG(g16_r1cs_read(&r, rpath, &st) == G16_OK, "%s", st.msg);
    if (!af.data || !r.m[0].row) {
        g16_assignment_file_free(&af);
        return;
    }
    size_t ni = 1 + (size_t)g16_r1cs_npublic(&r), nx = r.nWires - ni;
    size_t nnz = r.m[0].row[r.nConstraints] + r.m[1].row[r.nConstraints] + r.m[2].row[r.nConstraints];
    trip *tr = malloc((nnz + ni) * sizeof *tr);
    size_t ntr = 0;
    for (int m = 0; m < 3; m++)
        for (uint32_t j = 0; j < r.nConstraints; j++)
            for (uint64_t e = r.m[m].row[j]; e < r.m[m].row[j + 1]; e++) {
                tr[ntr] = (trip){j, r.m[m].wire[e], m, {{0}}};
                memcpy(tr[ntr].c.l, r.m[m].coef[e], 32);
                ntr++;
            }
    for (size_t i = 0; i < ni; i++) {
        tr[ntr] = (trip){(uint32_t)(r.nConstraints + i), (uint32_t)i, 0, {{0}}};
        bls381_fr_set_one(&tr[ntr].c);
        ntr++;
    }
    g16_rng rng;
    g16_rng_seed(&rng, seed + 1);
    CHECK(write_key(kpath, tr, ntr, ni, nx, 9, &rng));
    free(tr);
    CHECK(af.a.abc_size == 512 && af.a.inp_assignment_size == ni && af.a.aux_assignment_size == nx);
    CHECK(af.a.b_aux_popcount < nx / 2 && af.a.a_aux_popcount > nx / 2); /* the profile's shape */
    g16_params_key *key = NULL;
    CHECK_MSG(g16_params_key_load(g_ctx, &key, kpath, 1) == G16_OK, "%s", last());
    if (key) {
        g16_params_proof_raw raw;
        CHECK_MSG(g16_prove_assignments(g_ctx, key, &af.a, 1, NULL, &raw) == G16_OK, "filecoin profile: %s",
                  last());
    }
    g16_params_key_free(key);
    g16_r1cs_free(&r);
    g16_assignment_file_free(&af);
}

_Static_assert(sizeof(g16_assignment) == 17 * 8, "supraseal-c2's Assignment is 17 words");
_Static_assert(sizeof(g16_params_proof_raw) == 384, "supraseal-c2's groth16_proof is 384 bytes");
_Static_assert(sizeof(g16_fr_mont) == sizeof(bls381_fr), "g16_fr_mont is a bls381_fr");

int main(void) {
    uint64_t seed = t_seed("test_params_prove");
    g16_ctx_opts co;
    g16_ctx_opts_init(&co);
    co.threads = 3; /* several tasks even on small machines */
    g_ctx = g16_ctx_create(&co);
    CHECK(g_ctx != NULL);
    if (!g_ctx)
        return t_done("test_params_prove");
    snprintf(g_tmp, sizeof g_tmp, "/tmp/g16_params_prove.XXXXXX");
    CHECK(mkdtemp(g_tmp) != NULL);
    test_root_exponent();
    g16_params_key *key = NULL;
    CHECK_MSG(g16_params_key_load(g_ctx, &key, DIR "params_toy.params", -1) == G16_OK, "%s", last());
    g16_assignment_file af;
    g16_status st = {0};
    CHECK_MSG(g16_assignment_read(&af, DIR "params_toy.assignment", &st) == G16_OK, "%s", st.msg);
    CHECK(af.data != NULL && af.len > 0);
    if (key && af.data) {
        test_toy(key, &af);
        test_bad_assignments(key, &af);
        test_bad_files(af.data, af.len);
    }
    /* a .vk is not a proving key */
    g16_params_key *vk = NULL;
    CHECK(g16_params_key_load(g_ctx, &vk, DIR "params_toy.vk", -1) != G16_OK && !vk);
    g16_assignment_file_free(&af);
    g16_params_key_free(key);
    test_random_circuit(seed);
    test_synth_filecoin(seed);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    CHECK(system(cmd) == 0);
    g16_ctx_destroy(g_ctx);
    return t_done("test_params_prove");
}
