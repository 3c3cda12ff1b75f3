/* The bellperson-format test setup (groth16_setup_params_insecure):
 *  - the toy R1CS (tests/vectors/params_toy.r1cs) with the toxic waste of
 *    tests/vectors/gen_params.mjs gives params_toy.params and params_toy.vk
 *    byte for byte (the @noble/curves-written key);
 *  - a random R1CS of 5000 constraints (domain 8192: the Lagrange basis and
 *    the point emitters run as several pool tasks) from a logged seed: the
 *    counts and densities, and for sampled variables and h indices every
 *    point against a GMP oracle (bellperson's omega, the Lagrange basis at
 *    tau, the column sums, the scalars of params.h's formulas) times the
 *    generators; a term of coefficient zero makes its variable present,
 *    with the point at infinity (the prover's structural density);
 *  - the same seed gives the same key as the same toxic waste given
 *    explicitly (groth16_setup_toxic's values), and another seed another key;
 *  - errors: a BN254 circuit (WRONG_CURVE), a toxic value >= r or zero
 *    (INVALID_ARG), and a failed run leaves an existing output untouched. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "groth16/groth16.h"
#include "groth16/params.h"
#include "testutil.h"
#include "util/ctx.h"

#define DIR "tests/vectors/"

static mpz_t R; /* BLS12-381's r */

static void mont_to_mpz(mpz_t z, const limb_t *mont) {
    bls381_fr f;
    limb_t l[4];
    memcpy(f.l, mont, 32);
    bls381_fr_from_mont(l, &f);
    t_limbs_to_mpz(z, l, 4);
}

static void mpz_to_le32(uint8_t out[32], const mpz_t z) {
    limb_t l[4];
    t_mpz_to_limbs(l, 4, z);
    memcpy(out, l, 32);
}

static void g1_expect(bls381_g1_affine *r, const mpz_t k) {
    bls381_g1_affine g;
    bls381_g1_jac j, o;
    g16_scalar s;
    bls381_g1_generator(&g);
    bls381_g1_jac_from_affine(&j, &g);
    t_mpz_to_limbs(s.l, 4, k);
    bls381_g1_jac_mul_vartime(&o, &j, &s);
    bls381_g1_jac_to_affine(r, &o);
}
static void g2_expect(bls381_g2_affine *r, const mpz_t k) {
    bls381_g2_affine g;
    bls381_g2_jac j, o;
    g16_scalar s;
    bls381_g2_generator(&g);
    bls381_g2_jac_from_affine(&j, &g);
    t_mpz_to_limbs(s.l, 4, k);
    bls381_g2_jac_mul_vartime(&o, &j, &s);
    bls381_g2_jac_to_affine(r, &o);
}

static uint8_t *read_all(const char *path, size_t *len) { return (uint8_t *)t_read_file(path, len); }

/* params_toy.txt's "toxic alpha beta gamma delta tau" as tau, alpha, beta, gamma, delta. */
static int toy_toxic(uint8_t tw[5][32]) {
    FILE *f = fopen(DIR "params_toy.txt", "r");
    char line[4096];
    int ok = 0;
    while (f && fgets(line, sizeof line, f)) {
        char v[5][100];
        if (sscanf(line, "toxic %99s %99s %99s %99s %99s", v[0], v[1], v[2], v[3], v[4]) == 5) {
            static const int order[5] = {4, 0, 1, 2, 3};
            for (int i = 0; i < 5; i++) {
                mpz_t z;
                mpz_init_set_str(z, v[order[i]], 10);
                mpz_to_le32(tw[i], z);
                mpz_clear(z);
            }
            ok = 1;
        }
    }
    if (f)
        fclose(f);
    return ok;
}

static void test_toy(g16_ctx *ctx, const char *tmp) {
    uint8_t tw[5][32];
    CHECK(toy_toxic(tw));
    g16_r1cs cs;
    g16_status st = {0};
    if (g16_r1cs_read(&cs, DIR "params_toy.r1cs", &st) != G16_OK) {
        CHECK_MSG(0, "%s", st.msg);
        return;
    }
    char pp[512], vp[512];
    snprintf(pp, sizeof pp, "%s/toy.params", tmp);
    snprintf(vp, sizeof vp, "%s/toy.vk", tmp);
    groth16_setup_opts o = {.backend = GROTH16_SETUP_CPU, .toxic = (const uint8_t(*)[32])tw};
    groth16_setup_info info;
    g16_err err = groth16_setup_params_insecure(ctx, &cs, &o, pp, vp, &info, &st);
    CHECK_MSG(err == G16_OK, "%s", st.msg);
    size_t a_len, b_len, c_len, d_len;
    uint8_t *a = read_all(pp, &a_len), *b = read_all(DIR "params_toy.params", &b_len);
    uint8_t *c = read_all(vp, &c_len), *d = read_all(DIR "params_toy.vk", &d_len);
    CHECK(a && b && a_len == b_len && !memcmp(a, b, a_len));
    CHECK(c && d && c_len == d_len && !memcmp(c, d, c_len));
    CHECK(info.key_bytes == b_len);

    /* A toxic value >= r, or zero: refused, and the outputs stay as they were. */
    uint8_t bad[5][32];
    memcpy(bad, tw, sizeof bad);
    mpz_to_le32(bad[2], R);
    o.toxic = (const uint8_t(*)[32])bad;
    CHECK(groth16_setup_params_insecure(ctx, &cs, &o, pp, vp, NULL, &st) == G16_ERR_INVALID_ARG);
    memset(bad[2], 0, 32);
    CHECK(groth16_setup_params_insecure(ctx, &cs, &o, pp, vp, NULL, &st) == G16_ERR_INVALID_ARG);
    free(a);
    a = read_all(pp, &a_len);
    CHECK(a && a_len == b_len && !memcmp(a, b, a_len));

    /* A BN254 circuit: WRONG_CURVE. */
    cs.curve = G16_CURVE_BN254;
    o.toxic = NULL;
    CHECK(groth16_setup_params_insecure(ctx, &cs, &o, pp, vp, NULL, &st) == G16_ERR_WRONG_CURVE);
    cs.curve = G16_CURVE_BLS12_381;
    free(a);
    free(b);
    free(c);
    free(d);
    g16_r1cs_free(&cs);
}

/* A random BLS12-381 R1CS: ncons rows over nwires wires (ninp inputs). A
 * terms avoid wires = 0 mod 5 among the aux (absent from A), B terms use
 * wires < 400 only, plus one term of coefficient zero on the last wire (in
 * B, with B evaluation zero). */
static void random_r1cs(g16_r1cs *cs, g16_rng *rng, uint32_t ncons, uint32_t nwires, uint32_t npubout,
                        uint32_t npubin) {
    memset(cs, 0, sizeof *cs);
    cs->curve = G16_CURVE_BLS12_381;
    cs->n8 = 32;
    cs->nWires = nwires, cs->nPubOut = npubout, cs->nPubIn = npubin, cs->nPrvIn = 1, cs->nConstraints = ncons;
    const uint32_t ninp = npubout + npubin + 1;
    for (int m = 0; m < 3; m++) {
        cs->m[m].row = calloc((size_t)ncons + 1, sizeof *cs->m[m].row);
        cs->m[m].wire = malloc((size_t)ncons * 4 * sizeof *cs->m[m].wire);
        cs->m[m].coef = malloc((size_t)ncons * 4 * sizeof *cs->m[m].coef);
    }
    for (uint32_t c = 0; c < ncons; c++) {
        for (int m = 0; m < 3; m++) {
            g16_r1cs_matrix *mat = &cs->m[m];
            uint64_t e = mat->row[c];
            int nt = m == 0 ? 1 + (int)(g16_rng_next(rng) % 3) : m == 1 ? (g16_rng_next(rng) % 5 == 0) : 1;
            for (int t = 0; t < nt; t++) {
                uint32_t w;
                if (m == 0) {
                    do
                        w = (uint32_t)(g16_rng_next(rng) % nwires);
                    while (w >= ninp && w % 5 == 0);
                } else if (m == 1) {
                    w = (uint32_t)(g16_rng_next(rng) % 400);
                } else {
                    w = (uint32_t)(g16_rng_next(rng) % nwires);
                }
                bls381_fr f;
                if (g16_rng_next(rng) % 2)
                    bls381_fr_set_one(&f);
                else
                    bls381_fr_random(&f, rng);
                mat->wire[e] = w;
                memcpy(mat->coef[e], f.l, 32);
                e++;
            }
            if (m == 1 && c == 0) { /* coefficient zero: present, evaluation zero */
                mat->wire[e] = nwires - 1;
                memset(mat->coef[e], 0, 32);
                e++;
            }
            mat->row[c + 1] = e;
        }
    }
    for (int m = 0; m < 3; m++)
        cs->nnz[m] = cs->m[m].row[ncons];
}

static void test_random(g16_ctx *ctx, const char *tmp, g16_rng *rng) {
    const uint32_t ncons = 5000, nwires = 3000, npubout = 4, npubin = 1, ninp = npubout + npubin + 1;
    const uint32_t n = 8192, log_n = 13;
    g16_r1cs cs;
    random_r1cs(&cs, rng, ncons, nwires, npubout, npubin);

    /* Toxic waste: random below r (from the seed). */
    mpz_t tw[5];
    uint8_t twb[5][32];
    gmp_randstate_t gr;
    gmp_randinit_default(gr);
    gmp_randseed_ui(gr, (unsigned long)g16_rng_next(rng));
    for (int i = 0; i < 5; i++) {
        mpz_init(tw[i]);
        do
            mpz_urandomm(tw[i], gr, R);
        while (mpz_sgn(tw[i]) == 0);
        mpz_to_le32(twb[i], tw[i]);
    }
    char pp[512], vp[512];
    snprintf(pp, sizeof pp, "%s/rnd.params", tmp);
    snprintf(vp, sizeof vp, "%s/rnd.vk", tmp);
    groth16_setup_opts o = {.backend = GROTH16_SETUP_CPU, .toxic = (const uint8_t(*)[32])twb};
    g16_status st = {0};
    double t0 = g16_now_ms();
    g16_err err = groth16_setup_params_insecure(ctx, &cs, &o, pp, vp, NULL, &st);
    CHECK_MSG(err == G16_OK, "%s", st.msg);
    fprintf(stderr, "test_setup_params: random setup (%u constraints, %u wires) %.0f ms\n", ncons, nwires,
            g16_now_ms() - t0);
    g16_params p;
    g16_params_opts po = {.kind = G16_PARAMS_KIND_FULL, .subgroup = 1};
    if (err || g16_params_load(&p, pp, &po, ctx->pool, &st) != G16_OK) {
        CHECK_MSG(0, "load: %s", st.msg);
        goto out;
    }
    {
        g16_params v;
        g16_params_opts vo = {.kind = G16_PARAMS_KIND_VK, .subgroup = 1};
        CHECK_MSG(g16_params_load(&v, vp, &vo, NULL, &st) == G16_OK, "%s", st.msg);
        CHECK(!memcmp(v.vk_digest, p.vk_digest, 32));
        g16_params_free(&v);
    }

    /* Oracle: presence, Lagrange basis at tau over bellperson's omega. */
    uint8_t *in_a = calloc(nwires, 1), *in_b = calloc(nwires, 1);
    for (int m = 0; m < 2; m++)
        for (uint64_t e = 0; e < cs.nnz[m]; e++)
            (m ? in_b : in_a)[cs.m[m].wire[e]] = 1;
    for (uint32_t i = 0; i < ninp; i++)
        in_a[i] = 1;
    CHECK(in_b[nwires - 1]);
    uint32_t na = 0, nb = 0;
    for (uint32_t v = 0; v < nwires; v++)
        na += in_a[v], nb += in_b[v];
    CHECK(p.n[G16_PARAMS_IC] == ninp && p.n[G16_PARAMS_H] == n - 1 && p.n[G16_PARAMS_L] == nwires - ninp);
    const int counts_ok = p.n[G16_PARAMS_A] == na && p.n[G16_PARAMS_B_G1] == nb && p.n[G16_PARAMS_B_G2] == nb;
    CHECK_MSG(counts_ok, "a %u (want %u), b_g1 %u, b_g2 %u (want %u)", p.n[G16_PARAMS_A], na, p.n[G16_PARAMS_B_G1],
              p.n[G16_PARAMS_B_G2], nb);
    CHECK(na < nwires && nb <= 401);

    mpz_t *tau = &tw[0], *alpha = &tw[1], *beta = &tw[2], *gamma = &tw[3], *delta = &tw[4];
    mpz_t w, e, t, u, zt, ninv, gi, di;
    mpz_inits(w, e, t, u, zt, ninv, gi, di, NULL);
    mpz_sub_ui(e, R, 1);
    mpz_fdiv_q_2exp(e, e, 32);
    mpz_set_ui(w, 7);
    mpz_powm(w, w, e, R);
    for (uint32_t k = log_n; k < 32; k++)
        mpz_powm_ui(w, w, 2, R);
    mpz_powm_ui(t, w, n, R);
    CHECK(mpz_cmp_ui(t, 1) == 0);
    mpz_powm_ui(t, w, n / 2, R);
    CHECK(mpz_cmp_ui(t, 1) != 0);
    mpz_powm_ui(zt, *tau, n, R);
    mpz_sub_ui(zt, zt, 1);
    mpz_set_ui(ninv, n);
    mpz_invert(ninv, ninv, R);
    mpz_invert(gi, *gamma, R);
    mpz_invert(di, *delta, R);
    mpz_t *lag = malloc(n * sizeof *lag);
    mpz_set_ui(u, 1); /* omega^j */
    for (uint32_t j = 0; j < n; j++) {
        mpz_init(lag[j]);
        mpz_sub(t, *tau, u);
        mpz_invert(t, t, R);
        mpz_mul(t, t, u);
        mpz_mul(t, t, zt);
        mpz_mul(t, t, ninv);
        mpz_mod(lag[j], t, R);
        mpz_mul(u, u, w);
        mpz_mod(u, u, R);
    }

    /* Sampled variables: the first inputs and aux, the last, and random ones. */
    uint32_t sample[24];
    int ns = 0;
    sample[ns++] = 0, sample[ns++] = 1, sample[ns++] = ninp - 1, sample[ns++] = ninp, sample[ns++] = nwires - 1;
    sample[ns++] = 5 * 100; /* an aux absent from A */
    while (ns < 24)
        sample[ns++] = (uint32_t)(g16_rng_next(rng) % nwires);
    mpz_t ev[3], coef;
    mpz_inits(ev[0], ev[1], ev[2], coef, NULL);
    for (int s = 0; s < ns; s++) {
        uint32_t v = sample[s];
        for (int m = 0; m < 3; m++) {
            mpz_set_ui(ev[m], 0);
            for (uint32_t c = 0; c < ncons; c++)
                for (uint64_t k = cs.m[m].row[c]; k < cs.m[m].row[c + 1]; k++)
                    if (cs.m[m].wire[k] == v) {
                        mont_to_mpz(coef, cs.m[m].coef[k]);
                        mpz_addmul(ev[m], coef, lag[c]);
                    }
        }
        if (v < ninp)
            mpz_add(ev[0], ev[0], lag[ncons + v]); /* the input rows A = Input(v) */
        for (int m = 0; m < 3; m++)
            mpz_mod(ev[m], ev[m], R);
        /* ext = (beta at + alpha bt + ct) / (gamma | delta) */
        mpz_mul(t, *beta, ev[0]);
        mpz_addmul(t, *alpha, ev[1]);
        mpz_add(t, t, ev[2]);
        mpz_mul(t, t, v < ninp ? gi : di);
        mpz_mod(t, t, R);
        bls381_g1_affine x1;
        bls381_g2_affine x2;
        g1_expect(&x1, t);
        CHECK_MSG(bls381_g1_affine_eq(&x1, v < ninp ? &p.ic[v] : &p.l[v - ninp]), "%s of variable %u",
                  v < ninp ? "ic" : "l", v);
        uint32_t ia = 0, ib = 0;
        for (uint32_t k = 0; k < v; k++)
            ia += in_a[k], ib += in_b[k];
        if (!counts_ok) /* the a / b indices below would not be this layout's */
            continue;
        if (in_a[v]) {
            g1_expect(&x1, ev[0]);
            CHECK_MSG(bls381_g1_affine_eq(&x1, &p.a[ia]), "a[%u] (variable %u)", ia, v);
        } else {
            CHECK(mpz_sgn(ev[0]) == 0);
        }
        if (in_b[v]) {
            g1_expect(&x1, ev[1]);
            g2_expect(&x2, ev[1]);
            CHECK_MSG(bls381_g1_affine_eq(&x1, &p.b_g1[ib]), "b_g1[%u] (variable %u)", ib, v);
            CHECK_MSG(bls381_g2_affine_eq(&x2, &p.b_g2[ib]), "b_g2[%u] (variable %u)", ib, v);
            if (v == nwires - 1) /* named only with coefficient zero */
                CHECK(bls381_g1_affine_is_inf(&p.b_g1[ib]) && bls381_g2_affine_is_inf(&p.b_g2[ib]));
        }
    }
    /* h[i] = tau^i (tau^n - 1) / delta */
    uint32_t hs[6] = {0, 1, 4095, 4096, n - 2, (uint32_t)(g16_rng_next(rng) % (n - 1))};
    for (int s = 0; s < 6; s++) {
        mpz_powm_ui(t, *tau, hs[s], R);
        mpz_mul(t, t, zt);
        mpz_mul(t, t, di);
        mpz_mod(t, t, R);
        bls381_g1_affine x1;
        g1_expect(&x1, t);
        CHECK_MSG(bls381_g1_affine_eq(&x1, &p.h[hs[s]]), "h[%u]", hs[s]);
    }
    /* vk */
    {
        bls381_g1_affine x1;
        bls381_g2_affine x2;
        g1_expect(&x1, *alpha);
        CHECK(bls381_g1_affine_eq(&x1, &p.alpha_g1));
        g1_expect(&x1, *beta);
        CHECK(bls381_g1_affine_eq(&x1, &p.beta_g1));
        g1_expect(&x1, *delta);
        CHECK(bls381_g1_affine_eq(&x1, &p.delta_g1));
        g2_expect(&x2, *beta);
        CHECK(bls381_g2_affine_eq(&x2, &p.beta_g2));
        g2_expect(&x2, *gamma);
        CHECK(bls381_g2_affine_eq(&x2, &p.gamma_g2));
        g2_expect(&x2, *delta);
        CHECK(bls381_g2_affine_eq(&x2, &p.delta_g2));
    }
    for (uint32_t j = 0; j < n; j++)
        mpz_clear(lag[j]);
    free(lag);
    free(in_a);
    free(in_b);
    mpz_clears(ev[0], ev[1], ev[2], coef, w, e, t, u, zt, ninv, gi, di, NULL);
    g16_params_free(&p);
out:
    for (int i = 0; i < 5; i++)
        mpz_clear(tw[i]);
    gmp_randclear(gr);
    g16_r1cs_free(&cs);
}

/* The same seed: the key of groth16_setup_toxic's values; another seed differs. */
static void test_seed(g16_ctx *ctx, const char *tmp, uint64_t seed) {
    g16_r1cs cs;
    g16_status st = {0};
    if (g16_r1cs_read(&cs, DIR "params_toy.r1cs", &st) != G16_OK) {
        CHECK_MSG(0, "%s", st.msg);
        return;
    }
    char p1[512], v1[512], p2[512], v2[512];
    snprintf(p1, sizeof p1, "%s/s1.params", tmp);
    snprintf(v1, sizeof v1, "%s/s1.vk", tmp);
    snprintf(p2, sizeof p2, "%s/s2.params", tmp);
    snprintf(v2, sizeof v2, "%s/s2.vk", tmp);
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU};
    CHECK_MSG(groth16_setup_params_insecure(ctx, &cs, &o, p1, v1, NULL, &st) == G16_OK, "%s", st.msg);
    uint8_t tw[5][32];
    groth16_setup_toxic(G16_CURVE_BLS12_381, seed, tw);
    o.toxic = (const uint8_t(*)[32])tw;
    CHECK_MSG(groth16_setup_params_insecure(ctx, &cs, &o, p2, v2, NULL, &st) == G16_OK, "%s", st.msg);
    size_t l1, l2;
    uint8_t *a = read_all(p1, &l1), *b = read_all(p2, &l2);
    CHECK(a && b && l1 == l2 && !memcmp(a, b, l1));
    free(b);
    o.toxic = NULL;
    o.seed = seed + 1;
    CHECK_MSG(groth16_setup_params_insecure(ctx, &cs, &o, p2, v2, NULL, &st) == G16_OK, "%s", st.msg);
    b = read_all(p2, &l2);
    CHECK(a && b && l1 == l2 && memcmp(a, b, l1) != 0);
    free(a);
    free(b);
    g16_r1cs_free(&cs);
}

int main(void) {
    uint64_t seed = t_seed("test_setup_params");
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    mpz_init_set_str(R, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    char tmp[] = "/tmp/g16_setup_params_XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    if (ctx) {
        test_toy(ctx, tmp);
        test_seed(ctx, tmp, seed);
        test_random(ctx, tmp, &rng);
        g16_ctx_destroy(ctx);
    }
    static const char *names[] = {"toy.params", "toy.vk", "s1.params", "s1.vk", "s2.params", "s2.vk",
                                  "rnd.params", "rnd.vk"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", tmp, names[i]);
        unlink(p);
    }
    rmdir(tmp);
    mpz_clear(R);
    return t_done("test_setup_params");
}
