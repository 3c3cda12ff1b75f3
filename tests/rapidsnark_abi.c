/* The program of tests/test_rapidsnark_abi.sh: drives librapidsnark_g16
 * through rapidsnark's prover.h / verifier.h only, as a rapidsnark user
 * would, on one fixture.
 * Usage: rapidsnark_abi ZKEY WTNS VK_JSON OUTDIR WTNS_OTHER_LENGTH WTNS_OTHER_CURVE
 * (either of the last two may be "-"). Writes OUTDIR/{proof,public}_{mem,file,
 * obj,objfile}.json, prints one "ok"/"FAIL" line per check and ends with
 * "N passed, M failed"; exit 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rapidsnark/prover.h"
#include "rapidsnark/verifier.h"

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

static char *slurp(const char *path, unsigned long long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(2);
    }
    p[n] = 0;
    fclose(f);
    *len = (unsigned long long)n;
    return p;
}

static void spill(const char *dir, const char *name, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s ZKEY WTNS VK_JSON OUTDIR WTNS_OTHER_LENGTH WTNS_OTHER_CURVE\n", argv[0]);
        return 2;
    }
    const char *zkey_path = argv[1], *out = argv[4];
    unsigned long long zlen, wlen, vlen;
    char *zkey = slurp(zkey_path, &zlen), *wtns = slurp(argv[2], &wlen), *vk = slurp(argv[3], &vlen);
    char err[512];

    unsigned long long pub_cap = 0, pub_cap_file = 0, proof_cap = 0;
    CHECK(groth16_public_size_for_zkey_buf(zkey, zlen, &pub_cap, err, sizeof err) == PROVER_OK, "%s", err);
    CHECK(groth16_public_size_for_zkey_file(zkey_path, &pub_cap_file, err, sizeof err) == PROVER_OK, "%s", err);
    CHECK(pub_cap == pub_cap_file && pub_cap >= 4 && (pub_cap - 4) % 82 == 0, "%llu %llu", pub_cap, pub_cap_file);
    printf("public_size %llu\n", pub_cap);
    groth16_proof_size(&proof_cap);
    CHECK(proof_cap >= 810, "%llu", proof_cap);
    printf("proof_size %llu\n", proof_cap);

    char *proof = malloc(proof_cap), *pub = malloc(pub_cap);
    unsigned long long ps, us;
    const char *modes[] = {"mem", "file", "obj", "objfile"};
    void *obj = NULL, *objfile = NULL;
    CHECK(groth16_prover_create(&obj, zkey, zlen, err, sizeof err) == PROVER_OK && obj, "%s", err);
    CHECK(groth16_prover_create_zkey_file(&objfile, zkey_path, err, sizeof err) == PROVER_OK && objfile, "%s", err);
    /* the key bytes are copied by groth16_prover_create: the buffer may go */
    char *zcopy = malloc(zlen);
    memcpy(zcopy, zkey, zlen);
    for (int m = 0; m < 4; m++) {
        ps = proof_cap;
        us = pub_cap;
        err[0] = 0;
        int rc = m == 0   ? groth16_prover(zcopy, zlen, wtns, wlen, proof, &ps, pub, &us, err, sizeof err)
                 : m == 1 ? groth16_prover_zkey_file(zkey_path, wtns, wlen, proof, &ps, pub, &us, err, sizeof err)
                          : groth16_prover_prove(m == 2 ? obj : objfile, wtns, wlen, proof, &ps, pub, &us, err,
                                                 sizeof err);
        CHECK(rc == PROVER_OK, "%s: rc %d: %s", modes[m], rc, err);
        if (rc != PROVER_OK)
            continue;
        CHECK(ps == strlen(proof) && us == strlen(pub), "%s: sizes %llu %llu, texts %zu %zu", modes[m], ps, us,
              strlen(proof), strlen(pub));
        CHECK(groth16_verify(proof, pub, vk, err, sizeof err) == VERIFIER_VALID_PROOF, "%s: %s", modes[m], err);
        char name[64];
        snprintf(name, sizeof name, "proof_%s.json", modes[m]);
        spill(out, name, proof);
        snprintf(name, sizeof name, "public_%s.json", modes[m]);
        spill(out, name, pub);
        if (m == 0)
            memset(zcopy, 0, zlen); /* later proofs must not depend on it */
    }
    free(zcopy);

    /* Short buffers: nothing written, both sizes become the capacities needed. */
    unsigned long long need_pub = strlen(pub) + 1;
    ps = 10;
    us = pub_cap;
    err[0] = 0;
    memset(proof, 'x', 10);
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR_SHORT_BUFFER,
          "short proof buffer");
    CHECK(ps > 10 && ps <= proof_cap && us == need_pub && err[0], "sizes %llu %llu, msg '%s'", ps, us, err);
    CHECK(proof[0] == 'x', "proof buffer written on a short buffer");
    unsigned long long want_proof = ps;
    ps = proof_cap;
    us = need_pub - 1;
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR_SHORT_BUFFER,
          "public buffer one short");
    CHECK(us == need_pub && ps > 10 && ps <= proof_cap, "sizes %llu %llu", ps, us);
    ps = proof_cap;
    us = need_pub; /* exactly enough */
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_OK, "%s", err);
    CHECK(us == need_pub - 1, "%llu", us);
    /* the proof's length varies with r and s; a buffer of the reported size
     * fits that proof, and one of proof_size fits any */
    CHECK(want_proof <= proof_cap, "%llu", want_proof);

    /* Bad witnesses. */
    ps = proof_cap;
    us = pub_cap;
    err[0] = 0;
    CHECK(groth16_prover_prove(obj, wtns, wlen / 2, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR && err[0],
          "truncated witness: '%s'", err);
    printf("truncated witness: %s\n", err);
    /* the last value changed (its low bit): the witness no longer satisfies
     * the circuit, and no proof is returned */
    char *unsat = malloc(wlen);
    memcpy(unsat, wtns, wlen);
    unsat[wlen - 32] ^= 1;
    err[0] = 0;
    CHECK(groth16_prover_prove(obj, unsat, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR && err[0],
          "unsatisfying witness: '%s'", err);
    printf("unsatisfying witness: %s\n", err);
    free(unsat);
    char *garbage = calloc(1, 256);
    CHECK(groth16_prover_prove(obj, garbage, 256, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR,
          "zero witness");
    if (strcmp(argv[5], "-") != 0) {
        unsigned long long olen;
        char *other = slurp(argv[5], &olen);
        err[0] = 0;
        CHECK(groth16_prover_prove(obj, other, olen, proof, &ps, pub, &us, err, sizeof err) ==
                  PROVER_INVALID_WITNESS_LENGTH && err[0],
              "witness of another length: '%s'", err);
        printf("other length: %s\n", err);
        CHECK(groth16_prover(zkey, zlen, other, olen, proof, &ps, pub, &us, err, sizeof err) ==
                  PROVER_INVALID_WITNESS_LENGTH,
              "one-shot, witness of another length");
        free(other);
    }
    if (strcmp(argv[6], "-") != 0) {
        unsigned long long olen;
        char *other = slurp(argv[6], &olen);
        err[0] = 0;
        int rc = groth16_prover_prove(obj, other, olen, proof, &ps, pub, &us, err, sizeof err);
        CHECK(rc == PROVER_ERROR && err[0], "witness of the other curve: rc %d '%s'", rc, err);
        printf("other curve: %s\n", err);
        free(other);
    }

    /* Bad keys and NULL arguments. */
    void *bad = (void *)1;
    err[0] = 0;
    CHECK(groth16_prover_create(&bad, garbage, 256, err, sizeof err) == PROVER_ERROR && bad == NULL && err[0],
          "garbage key: '%s'", err);
    printf("garbage key: %s\n", err);
    CHECK(groth16_prover_create(&bad, zkey, zlen / 2, err, sizeof err) == PROVER_ERROR && !bad, "truncated key");
    CHECK(groth16_prover_create_zkey_file(&bad, "no/such.zkey", err, sizeof err) == PROVER_ERROR && !bad,
          "missing key file");
    CHECK(groth16_prover(garbage, 256, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR,
          "one-shot garbage key");
    CHECK(groth16_prover_zkey_file("no/such.zkey", wtns, wlen, proof, &ps, pub, &us, err, sizeof err) ==
              PROVER_ERROR,
          "one-shot missing key");
    CHECK(groth16_public_size_for_zkey_buf(garbage, 256, &us, err, sizeof err) == PROVER_ERROR, "public size");
    CHECK(groth16_public_size_for_zkey_file("no/such.zkey", &us, err, sizeof err) == PROVER_ERROR, "public size");
    CHECK(groth16_prover_create(NULL, zkey, zlen, err, sizeof err) == PROVER_ERROR, "NULL object");
    CHECK(groth16_prover_create(&bad, NULL, zlen, err, sizeof err) == PROVER_ERROR, "NULL key");
    CHECK(groth16_prover_prove(NULL, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "NULL");
    CHECK(groth16_prover_prove(obj, NULL, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "NULL");
    CHECK(groth16_prover_prove(obj, wtns, wlen, NULL, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "NULL");
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, NULL, pub, &us, err, sizeof err) == PROVER_ERROR, "NULL");
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, &ps, NULL, &us, err, sizeof err) == PROVER_ERROR, "NULL");
    CHECK(groth16_prover_prove(obj, wtns, wlen, proof, &ps, pub, NULL, err, sizeof err) == PROVER_ERROR, "NULL");
    /* no message buffer at all: still the codes */
    CHECK(groth16_prover_prove(obj, garbage, 256, proof, &ps, pub, &us, NULL, 0) == PROVER_ERROR, "NULL msg");
    CHECK(groth16_prover_create(&bad, garbage, 256, err, 0) == PROVER_ERROR, "msg size 0");
    groth16_prover_destroy(NULL);

    /* The verifier: a good proof, then altered inputs and malformed texts. */
    ps = proof_cap;
    us = pub_cap;
    CHECK(groth16_prover_prove(objfile, wtns, wlen, proof, &ps, pub, &us, err, sizeof err) == PROVER_OK, "%s", err);
    CHECK(groth16_verify(proof, pub, vk, err, sizeof err) == VERIFIER_VALID_PROOF, "%s", err);
    char *alt = malloc(strlen(pub) + 1);
    strcpy(alt, pub);
    char *digit = strchr(strchr(alt, '"') + 1, '"') - 1; /* the first signal's last digit: +-1 */
    *digit ^= 1;
    CHECK(groth16_verify(proof, alt, vk, err, sizeof err) == VERIFIER_INVALID_PROOF, "altered input");
    err[0] = 0;
    CHECK(groth16_verify("{\"pi_a\": [", pub, vk, err, sizeof err) == VERIFIER_ERROR && err[0], "bad proof");
    CHECK(groth16_verify(proof, "[]", vk, err, sizeof err) == VERIFIER_ERROR, "empty inputs");
    CHECK(groth16_verify(proof, "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]", vk, err, sizeof err) ==
              VERIFIER_ERROR,
          "input count");
    CHECK(groth16_verify(proof, pub, "{}", err, sizeof err) == VERIFIER_ERROR, "bad vk");
    CHECK(groth16_verify(NULL, pub, vk, err, sizeof err) == VERIFIER_ERROR, "NULL proof");
    CHECK(groth16_verify(proof, pub, vk, NULL, 0) == VERIFIER_VALID_PROOF, "no message buffer");
    free(alt);

    groth16_prover_destroy(obj);
    groth16_prover_destroy(objfile);
    free(garbage);
    free(proof);
    free(pub);
    free(zkey);
    free(wtns);
    free(vk);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
