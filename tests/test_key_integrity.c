/* Keys that load but lie:
 *  - a BLS12-381 key whose A[0] (the constant wire's base) carries a point
 *    T of order 3 (T = [h/3][r]P for a point P of E(Fp), h the G1 cofactor):
 *    the proof's A then has a small-order component, which the pairing
 *    equation does not see but other verifiers reject; the prover's
 *    self-check (groth16_result_verify) must refuse it as NOT_IN_SUBGROUP,
 *    while the untouched key's proof passes;
 *  - a key with an IC point or a vk point (alpha1, delta2) at infinity (a key
 *    cut short by a full disk reads as zeros) is refused at load, and so is a
 *    verification_key.json with IC[1] or vk_gamma_2 at infinity. */
#include <string.h>

#include "curve/curve.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"

#include "g16.h"

static uint8_t *section_rw(void *mem, size_t len, uint32_t id, uint64_t *size) {
    g16_binfile bf;
    g16_status st = {0};
    uint8_t *p = NULL;
    if (g16_binfile_open_mem(&bf, "key", mem, len, "zkey", 2, &st) != G16_OK)
        return NULL;
    const g16_binfile_section *sec;
    if (g16_binfile_find(&bf, id, &sec, &st) == G16_OK) {
        p = (uint8_t *)mem + (sec->data - (const uint8_t *)mem);
        *size = sec->size;
    }
    g16_binfile_close(&bf);
    return p;
}

/* A point of order exactly 3 on E(Fp) of BLS12-381 G1. */
static void order3_point(bls381_g1_affine *t, g16_rng *rng) {
    static const g16_scalar r = {BLS381_FR_P};
    static const g16_scalar h3 = {{0x2eaae38e55558e39ULL, 0x13242eaac71ca072ULL, 0, 0}}; /* cofactor / 3 */
    static const g16_scalar three = {{3, 0, 0, 0}};
    for (;;) {
        bls381_fp x;
        bls381_g1_affine p;
        bls381_fp_random(&x, rng);
        if (!bls381_g1_affine_from_x_vartime(&p, &x))
            continue;
        bls381_g1_jac j, k;
        bls381_g1_jac_from_affine(&j, &p);
        bls381_g1_jac_mul_vartime(&j, &j, &r);
        bls381_g1_jac_mul_vartime(&j, &j, &h3);
        if (bls381_g1_jac_is_inf(&j))
            continue;
        bls381_g1_jac_mul_vartime(&k, &j, &three);
        CHECK(bls381_g1_jac_is_inf(&k));
        bls381_g1_jac_to_affine(t, &j);
        CHECK(bls381_g1_affine_is_on_curve(t) && !bls381_g1_affine_in_subgroup(t));
        return;
    }
}

static void torsion_test(g16_ctx *ctx, uint64_t seed) {
    g16_status st = {0};
    synth_opts so = {.curve = G16_CURVE_BLS12_381, .log_n = 6, .profile = SYNTH_DENSE, .partitions = 1, .seed = seed};
    g16_r1cs cs = {0}, cs2 = {0};
    g16_frvec wv = {0}, wv2 = {0};
    synth_stats ss;
    CHECK_MSG(synth_generate_mem(&so, &cs, &wv, &ss, &st) == G16_OK, "synth: %s", st.msg);
    CHECK_MSG(synth_generate_mem(&so, &cs2, &wv2, &ss, &st) == G16_OK, "synth: %s", st.msg);
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU};
    void *mem = NULL, *bad = NULL;
    size_t mlen = 0, blen = 0;
    CHECK_MSG(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &mem, &mlen, NULL, &st) == G16_OK, "setup: %s", st.msg);
    CHECK(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &bad, &blen, NULL, &st) == G16_OK);
    if (!mem || !bad)
        goto out;
    uint64_t asz = 0;
    uint8_t *A = section_rw(bad, blen, G16_ZKEY_SEC_A, &asz); /* may be misaligned: memcpy */
    CHECK(A && asz >= sizeof(bls381_g1_affine));
    if (!A)
        goto out;
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    bls381_g1_affine t;
    order3_point(&t, &rng);
    bls381_g1_affine a0;
    bls381_g1_jac j;
    memcpy(&a0, A, sizeof a0); /* the file layout is the struct's */
    bls381_g1_jac_from_affine(&j, &a0);
    bls381_g1_jac_add_affine(&j, &j, &t);
    bls381_g1_jac_to_affine(&a0, &j);
    memcpy(A, &a0, sizeof a0);

    g16_key *good = NULL, *tors = NULL;
    g16_witness *w = NULL, *w2 = NULL;
    CHECK_MSG(groth16_key_load_mem(ctx, &good, "good", mem, mlen, 0, &st) == G16_OK, "good key: %s", st.msg);
    /* The default load checks the curve equation only: the torsion key loads. */
    CHECK_MSG(groth16_key_load_mem(ctx, &tors, "torsion", bad, blen, 0, &st) == G16_OK, "torsion key: %s", st.msg);
    CHECK(groth16_witness_from_frvec(&w, &wv, &st) == G16_OK);
    CHECK(groth16_witness_from_frvec(&w2, &wv2, &st) == G16_OK);
    if (good && tors && w && w2) {
        g16_result *res = NULL;
        CHECK(g16_prove(ctx, &res, good, w, NULL, NULL) == G16_OK);
        if (res) {
            CHECK_MSG(groth16_result_verify(good, res, &st) == G16_OK, "good key's proof: %s", st.msg);
            g16_result_free(res);
            res = NULL;
        }
        /* g16_prove's own verify would refuse it (NOT_IN_SUBGROUP): prove
         * unverified to look at the proof a torsion key yields. */
        g16_prove_opts po;
        g16_prove_opts_init(&po);
        po.verify = 0;
        CHECK(g16_prove(ctx, &res, tors, w2, &po, NULL) == G16_OK);
        {
            g16_result *r2 = NULL;
            CHECK(g16_prove(ctx, &r2, tors, w2, NULL, NULL) == G16_ERR_NOT_IN_SUBGROUP && r2 == NULL);
            g16_result_free(r2);
        }
        if (res) {
            g16_err e = groth16_result_verify(tors, res, &st);
            CHECK_MSG(e == G16_ERR_NOT_IN_SUBGROUP, "torsion key's proof passed the self-check (%s: %s)",
                      g16_err_str(e), e ? st.msg : "");
            /* What an independent verifier (snarkjs, g16 verify) sees. */
            char *pj = NULL;
            g16_proof pp;
            CHECK(g16_result_json(ctx, &pj, NULL, res) == G16_OK);
            CHECK(pj && g16_proof_json_parse(&pp, pj, strlen(pj), -1, &st) == G16_ERR_NOT_IN_SUBGROUP);
            g16_free(pj);
            g16_result_free(res);
        }
    }
    g16_key_free(good);
    g16_key_free(tors);
    g16_witness_free(w);
    g16_witness_free(w2);
    printf("  bls12-381: a key with an order-3 point in A[0] gives a proof the self-check refuses\n");

    /* Infinity where no setup puts one: IC[1], alpha1, delta2 zeroed in the file. */
    {
        void *copy = malloc(mlen);
        static const struct {
            uint32_t sec;
            size_t off, len;
            const char *what;
        } cut[] = {
            {G16_ZKEY_SEC_IC, 96, 96, "IC[1]"},
            {G16_ZKEY_SEC_IC, 0, 96, "IC[0]"},
            /* section 2: n8q, q (48), n8r, r (32), nVars, nPublic, domainSize, then alpha1 ... */
            {G16_ZKEY_SEC_GROTH, 4 + 48 + 4 + 32 + 12, 96, "alpha1"},
            {G16_ZKEY_SEC_GROTH, 4 + 48 + 4 + 32 + 12 + 3 * 96 + 2 * 192, 192, "delta2"},
        };
        for (size_t c = 0; copy && c < sizeof cut / sizeof cut[0]; c++) {
            memcpy(copy, mem, mlen);
            uint64_t sz = 0;
            uint8_t *p = section_rw(copy, mlen, cut[c].sec, &sz);
            CHECK(p && sz >= cut[c].off + cut[c].len);
            if (!p)
                continue;
            memset(p + cut[c].off, 0, cut[c].len);
            g16_zkey z;
            g16_err e = g16_zkey_open_mem(&z, "cut", copy, mlen, G16_ZKEY_TRUSTED, ctx->pool, &st);
            CHECK_MSG(e == G16_ERR_FORMAT, "a key with %s at infinity: %s", cut[c].what,
                      e ? st.msg : "loaded");
            if (!e)
                g16_zkey_close(&z);
        }
        free(copy);
    }
    /* The same in verification_key.json. */
    {
        g16_zkey z;
        g16_vk vk = {0}, back = {0};
        char *js = NULL;
        CHECK(g16_zkey_open_mem(&z, "vk", mem, mlen, 0, ctx->pool, &st) == G16_OK);
        CHECK(g16_vk_from_zkey(&vk, &z, &st) == G16_OK);
        CHECK(g16_vk_json_str(&js, &vk, &st) == G16_OK);
        CHECK_MSG(js && g16_vk_json_parse(&back, js, strlen(js), -1, &st) == G16_OK, "vk json: %s", st.msg);
        g16_vk_free(&back);
        free(js);
        js = NULL;
        bls381_g1_affine_set_inf(&vk.bls381.IC[1]);
        CHECK(g16_vk_json_str(&js, &vk, &st) == G16_OK);
        g16_err e = js ? g16_vk_json_parse(&back, js, strlen(js), -1, &st) : G16_ERR_NOMEM;
        CHECK_MSG(e == G16_ERR_FORMAT, "a vk with IC[1] at infinity: %s", e ? st.msg : "parsed");
        g16_vk_free(&back);
        free(js);
        js = NULL;
        vk.bls381.IC[1] = vk.bls381.IC[0];
        bls381_g2_affine_set_inf(&vk.bls381.gamma2);
        CHECK(g16_vk_json_str(&js, &vk, &st) == G16_OK);
        e = js ? g16_vk_json_parse(&back, js, strlen(js), -1, &st) : G16_ERR_NOMEM;
        CHECK_MSG(e == G16_ERR_FORMAT, "a vk with gamma2 at infinity: %s", e ? st.msg : "parsed");
        g16_vk_free(&back);
        free(js);
        g16_vk_free(&vk);
        g16_zkey_close(&z);
    }
    printf("  keys and vks with an IC or vk point at infinity are refused\n");
out:
    groth16_setup_mem_free(mem, mlen);
    groth16_setup_mem_free(bad, blen);
    g16_r1cs_free(&cs);
    g16_r1cs_free(&cs2);
    g16_frvec_free(&wv);
    g16_frvec_free(&wv2);
}

int main(void) {
    uint64_t seed = t_seed("test_key_integrity");
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    if (ctx)
        torsion_test(ctx, seed);
    g16_ctx_destroy(ctx);
    return t_done("test_key_integrity");
}
