/* The Solidity exports of the public API (include/g16.h), on the bundled
 * example keys (examples/poseidon, both curves):
 *   - the contract is one text whichever way the key comes (a loaded key,
 *     verification_key.json text, the .zkey file, the vk file), with the
 *     key's numbers in it, and _file reports the curve and public count;
 *   - the calldata of proofs with r, s from the logged seed (and of proofs
 *     with A or B at infinity) equals an independent rendering of snarkjs's
 *     rule (GMP: decimal -> hex, at least 64 digits) over the JSON strings;
 *     the text and file forms agree;
 *   - refusals: NULL arguments, a plonk proof, no protocol, a public input
 *     >= r, a public input count on the wrong curve, bad JSON. */
#define G16_NO_NONNULL 1
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16.h"
#include "g16_testing.h"
#include "testutil.h"

/* snarkjs's p256 over a decimal string: "0x" + hex, zero-padded to 64 digits, quoted. */
static void p256(char *out, size_t cap, const char *dec) {
    mpz_t z;
    mpz_init(z);
    if (mpz_set_str(z, dec, 10) != 0)
        mpz_set_ui(z, 0xbad);
    char *h = mpz_get_str(NULL, 16, z);
    size_t n = strlen(h);
    snprintf(out, cap, "\"0x%.*s%s\"", n < 64 ? (int)(64 - n) : 0,
             "0000000000000000000000000000000000000000000000000000000000000000", h);
    free(h);
    mpz_clear(z);
}

static const char *jstr(json_t *root, const char *key, int i, int j) {
    json_t *v = json_array_get(json_object_get(root, key), (size_t)i);
    if (j >= 0)
        v = json_array_get(v, (size_t)j);
    return json_is_string(v) ? json_string_value(v) : "bad";
}

/* The expected calldata, from the JSON texts. Caller frees. */
static char *oracle(const char *proof_json, const char *public_json) {
    json_t *p = json_loads(proof_json, 0, NULL), *pub = json_loads(public_json, 0, NULL);
    size_t cap = 4096 + 80 * json_array_size(pub);
    char *s = malloc(cap), a[8][256];
    if (!s || !p || !pub) {
        free(s);
        json_decref(p);
        json_decref(pub);
        return NULL;
    }
    p256(a[0], 256, jstr(p, "pi_a", 0, -1));
    p256(a[1], 256, jstr(p, "pi_a", 1, -1));
    p256(a[2], 256, jstr(p, "pi_b", 0, 1));
    p256(a[3], 256, jstr(p, "pi_b", 0, 0));
    p256(a[4], 256, jstr(p, "pi_b", 1, 1));
    p256(a[5], 256, jstr(p, "pi_b", 1, 0));
    p256(a[6], 256, jstr(p, "pi_c", 0, -1));
    p256(a[7], 256, jstr(p, "pi_c", 1, -1));
    int n = snprintf(s, cap, "[%s, %s],[[%s, %s],[%s, %s]],[%s, %s],[", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    for (size_t i = 0; i < json_array_size(pub); i++) {
        char h[256];
        p256(h, sizeof h, json_string_value(json_array_get(pub, i)));
        n += snprintf(s + n, cap - (size_t)n, "%s%s", i ? "," : "", h);
    }
    snprintf(s + n, cap - (size_t)n, "]");
    json_decref(p);
    json_decref(pub);
    return s;
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* proof_json with one member (pi_a or pi_b) replaced by infinity. Caller frees. */
static char *with_infinity(const char *proof_json, const char *member) {
    json_t *p = json_loads(proof_json, 0, NULL);
    if (!p)
        return NULL;
    json_t *inf = !strcmp(member, "pi_a") ? json_pack("[sss]", "0", "1", "0")
                                          : json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    json_object_set_new(p, member, inf);
    char *s = json_dumps(p, 0);
    json_decref(p);
    return s;
}

static void calldata_checks(g16_ctx *ctx, const char *proof, const char *pub, const char *tag) {
    char *cd = NULL, *want = oracle(proof, pub);
    CHECK(want != NULL);
    CHECK_MSG(g16_export_solidity_calldata(ctx, &cd, pub, proof) == G16_OK, "%s", tag);
    CHECK_MSG(cd && want && !strcmp(cd, want), "%s: calldata\n  %s\nwanted\n  %s", tag, cd ? cd : "(null)",
              want ? want : "(null)");
    char pp[64], qp[64];
    snprintf(pp, sizeof pp, "/tmp/g16_solapi_p.%d.json", (int)getpid());
    snprintf(qp, sizeof qp, "/tmp/g16_solapi_q.%d.json", (int)getpid());
    char *cf = NULL;
    CHECK(write_file(pp, proof) && write_file(qp, pub));
    CHECK_MSG(g16_export_solidity_calldata_files(ctx, &cf, qp, pp) == G16_OK, "%s: files", tag);
    CHECK(cf && cd && !strcmp(cf, cd));
    unlink(pp);
    unlink(qp);
    g16_free(cd);
    g16_free(cf);
    free(want);
}

static void run_curve(const char *dir, uint64_t seed) {
    char zkey[256], wtns[256], vkp[256];
    snprintf(zkey, sizeof zkey, "examples/poseidon/%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "examples/poseidon/%s/witness.wtns", dir);
    snprintf(vkp, sizeof vkp, "examples/poseidon/%s/verification_key.json", dir);
    int bn = dir[1] == 'n';
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    g16_key *key = NULL;
    g16_witness *w = NULL;
    CHECK(g16_key_load(ctx, &key, zkey, 0) == G16_OK);
    CHECK(g16_witness_load(ctx, &w, wtns) == G16_OK);
    char *vk_json = t_read_file(vkp, NULL);
    CHECK(vk_json != NULL);
    if (!key || !w || !vk_json) {
        g16_key_free(key);
        g16_witness_free(w);
        free(vk_json);
        g16_ctx_destroy(ctx);
        return;
    }

    /* ---- the contract, four ways ---- */
    char *s_key = NULL, *s_json = NULL, *s_zfile = NULL, *s_vfile = NULL;
    g16_curve cv = (g16_curve)-1;
    uint32_t npub = 99;
    CHECK(g16_export_solidity_verifier(ctx, &s_key, key) == G16_OK);
    CHECK(g16_export_solidity_verifier_json(ctx, &s_json, vk_json) == G16_OK);
    CHECK(g16_export_solidity_verifier_file(ctx, &s_zfile, &cv, &npub, zkey, NULL) == G16_OK);
    CHECK(cv == (bn ? G16_CURVE_BN254 : G16_CURVE_BLS12_381) && npub == 2);
    CHECK(g16_export_solidity_verifier_file(ctx, &s_vfile, NULL, NULL, vkp, NULL) == G16_OK);
    /* written to a file (no text returned); a path naming the input is refused */
    char solp[64];
    snprintf(solp, sizeof solp, "/tmp/g16_solapi_v.%d.sol", (int)getpid());
    CHECK(g16_export_solidity_verifier_file(ctx, NULL, NULL, NULL, zkey, solp) == G16_OK);
    char *s_written = t_read_file(solp, NULL);
    unlink(solp);
    CHECK(s_written && s_key && !strcmp(s_written, s_key));
    free(s_written);
    CHECK(g16_export_solidity_verifier_file(ctx, NULL, NULL, NULL, zkey, zkey) == G16_ERR_INVALID_ARG);
    CHECK(s_key && s_json && s_zfile && s_vfile);
    if (s_key && s_json && s_zfile && s_vfile) {
        CHECK(!strcmp(s_key, s_json) && !strcmp(s_key, s_zfile) && !strcmp(s_key, s_vfile));
        /* the key's numbers: alpha's x and IC[2]'s y as verification_key.json has them */
        json_t *vk = json_loads(vk_json, 0, NULL);
        char line[400];
        snprintf(line, sizeof line, "    uint256 constant alphax  = %s;\n", jstr(vk, "vk_alpha_1", 0, -1));
        CHECK(strstr(s_key, line) != NULL);
        snprintf(line, sizeof line, "    uint256 constant betax1  = %s;\n", jstr(vk, "vk_beta_2", 0, 1));
        CHECK(strstr(s_key, line) != NULL);
        snprintf(line, sizeof line, "    uint256 constant IC2y = %s;\n", jstr(vk, "IC", 2, 1));
        CHECK(strstr(s_key, line) != NULL);
        CHECK(strstr(s_key, "uint[2] calldata _pubSignals") != NULL);
        CHECK(strstr(s_key, "checkField(calldataload(add(_pubSignals, 32)))") != NULL);
        CHECK(strstr(s_key, "IC3x") == NULL);
        json_decref(vk);
        size_t n = strlen(s_key);
        CHECK(n > 6000 && s_key[n - 1] == '\n' && s_key[n - 2] == '}');
    }
    g16_free(s_key);
    g16_free(s_json);
    g16_free(s_zfile);
    g16_free(s_vfile);

    /* ---- calldata of seeded proofs, and of A or B at infinity ---- */
    for (int k = 0; k < 2; k++) {
        uint8_t r[32] = {0}, s[32] = {0};
        for (int i = 0; i < 8; i++) {
            r[i] = (uint8_t)((seed + (uint64_t)k) >> (8 * i));
            s[i] = (uint8_t)(((seed + (uint64_t)k) * 31 + 7) >> (8 * i));
        }
        g16_result *res = NULL;
        char *proof = NULL, *pub = NULL;
        CHECK(g16_prove_with_rs_insecure(ctx, &res, key, w, r, s) == G16_OK);
        CHECK(res && g16_result_json(ctx, &proof, &pub, res) == G16_OK);
        if (proof && pub) {
            calldata_checks(ctx, proof, pub, dir);
            char *pa = with_infinity(proof, "pi_a"), *pb = with_infinity(proof, "pi_b");
            CHECK(pa && pb);
            if (pa && pb) {
                calldata_checks(ctx, pa, pub, "A at infinity");
                calldata_checks(ctx, pb, pub, "B at infinity");
            }
            free(pa);
            free(pb);
            /* refusals */
            char *cd = (char *)1;
            CHECK(g16_export_solidity_calldata(ctx, &cd, pub, NULL) == G16_ERR_INVALID_ARG && cd == NULL);
            CHECK(g16_export_solidity_calldata(ctx, NULL, pub, proof) == G16_ERR_INVALID_ARG);
            json_t *pj = json_loads(proof, 0, NULL);
            json_object_set_new(pj, "protocol", json_string("plonk"));
            char *plonk = json_dumps(pj, 0);
            json_object_del(pj, "protocol");
            char *noproto = json_dumps(pj, 0);
            json_decref(pj);
            CHECK(g16_export_solidity_calldata(ctx, &cd, pub, plonk) == G16_ERR_UNSUPPORTED && cd == NULL);
            CHECK(g16_export_solidity_calldata(ctx, &cd, pub, noproto) == G16_ERR_FORMAT);
            free(plonk);
            free(noproto);
            const char *big = bn ? "[\"21888242871839275222246405745257275088548364400416034343698204186575808495617\", \"1\"]"
                                 : "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\", \"1\"]";
            CHECK(g16_export_solidity_calldata(ctx, &cd, big, proof) == G16_ERR_NOT_CANONICAL);
            CHECK(g16_export_solidity_calldata(ctx, &cd, "[\"1\",", proof) == G16_ERR_FORMAT);
            CHECK(g16_export_solidity_calldata(ctx, &cd, pub, "{\"pi_a\": 1, \"protocol\": \"groth16\"}") ==
                  G16_ERR_FORMAT);
            char msg[256];
            CHECK(g16_ctx_last_error(ctx, msg, sizeof msg) == G16_ERR_FORMAT && msg[0]);
        }
        g16_free(proof);
        g16_free(pub);
        g16_result_free(res);
    }
    char *sol = (char *)1;
    CHECK(g16_export_solidity_verifier(ctx, &sol, NULL) == G16_ERR_INVALID_ARG && sol == NULL);
    CHECK(g16_export_solidity_verifier_json(ctx, &sol, "{}") == G16_ERR_FORMAT && sol == NULL);
    CHECK(g16_export_solidity_verifier_file(ctx, &sol, NULL, NULL, "/nonexistent/circuit.zkey", NULL) == G16_ERR_IO);
    free(vk_json);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
}

int main(void) {
    uint64_t seed = t_seed("test_solidity_api");
    run_curve("bn128", seed);
    run_curve("bls12381", seed);
    return t_done("test_solidity_api");
}
