/* rapidsnark_prove.c: a program written against rapidsnark's C API
 * (prover.h and verifier.h, as rapidsnark's wrappers use them) that links
 * g16's librapidsnark_g16 in place of rapidsnark, unchanged
 * (docs/rapidsnark.md).
 *
 * Usage: rapidsnark_prove CIRCUIT.zkey WITNESS.wtns VERIFICATION_KEY.json PROOF.json PUBLIC.json
 *
 * Sizes the buffers for the key, proves from the key file and the witness
 * bytes, verifies the proof with groth16_verify, and writes the proof and
 * the public signals (rapidsnark's compact JSON, which snarkjs reads).
 * Build against an installed g16:
 *
 *     cc rapidsnark_prove.c -I/usr/local/include/rapidsnark -lrapidsnark_g16 -o rapidsnark_prove
 *
 * where rapidsnark's own build would link -lrapidsnark (and GMP, the C++
 * runtime). Exit status 0 when the proof was made and verifies. */
#include <stdio.h>
#include <stdlib.h>

#include "prover.h"
#include "verifier.h"

/* Reads a whole file into malloc'd memory, NUL-terminated; NULL on failure. */
static char *read_file(const char *path, unsigned long long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    char *p = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) == (size_t)n) {
        p[n] = 0;
        *len = (unsigned long long)n;
    } else {
        perror(path);
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s CIRCUIT.zkey WITNESS.wtns VERIFICATION_KEY.json PROOF.json PUBLIC.json\n", argv[0]);
        return 2;
    }
    char err[1024];
    unsigned long long wtns_len = 0, vk_len = 0, public_size = 0, proof_size = 0;
    char *wtns = read_file(argv[2], &wtns_len), *vk = read_file(argv[3], &vk_len);
    char *proof = NULL, *pub = NULL;
    int rc = 1;
    if (!wtns || !vk) goto out;

    if (groth16_public_size_for_zkey_file(argv[1], &public_size, err, sizeof err) != PROVER_OK) {
        fprintf(stderr, "groth16_public_size_for_zkey_file: %s\n", err);
        goto out;
    }
    groth16_proof_size(&proof_size);
    proof = malloc(proof_size);
    pub = malloc(public_size);
    if (!proof || !pub) goto out;

    int r = groth16_prover_zkey_file(argv[1], wtns, wtns_len, proof, &proof_size, pub, &public_size, err,
                                     sizeof err);
    if (r != PROVER_OK) {
        fprintf(stderr, "groth16_prover_zkey_file: code %d: %s\n", r, err);
        goto out;
    }
    printf("proof: %llu bytes, public signals: %llu bytes\n", proof_size, public_size);

    r = groth16_verify(proof, pub, vk, err, sizeof err);
    if (r != VERIFIER_VALID_PROOF) {
        fprintf(stderr, "groth16_verify: code %d: %s\n", r, r == VERIFIER_ERROR ? err : "invalid proof");
        goto out;
    }
    printf("groth16_verify: valid\n");
    if (write_file(argv[4], proof) == 0 && write_file(argv[5], pub) == 0) rc = 0;
out:
    free(proof);
    free(pub);
    free(wtns);
    free(vk);
    return rc;
}
