/* prove.c: prove and verify a circom/snarkjs Groth16 circuit with libg16.
 *
 * Usage: prove CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json [VK.json]
 *
 * Loads the proving key and the witness, proves (on the GPU when the build
 * has CUDA and the circuit is large, else on the CPU), checks the proof
 * against the key, and writes snarkjs's proof.json and public.json. With a
 * fifth argument it also writes the key's verification_key.json there and
 * verifies the written files from it, as `snarkjs groth16 verify` would.
 * Uses only the public API of g16.h. Build against an installed g16:
 *
 *     cc -std=c11 prove.c $(pkg-config --cflags --libs g16) -o prove
 *     ./prove examples/poseidon/bn128/circuit.zkey examples/poseidon/bn128/witness.wtns \
 *             proof.json public.json vk.json
 *
 * Exit status: 0 when the proof was made and verifies, 1 otherwise (the
 * library's message on standard error). */
#include <g16.h>
#include <stdio.h>

/* Prints what failed, the error's name and the library's one-line message. */
static int fail(const char *what, g16_err err) {
    char msg[512];
    (void)g16_last_error(msg, sizeof msg);
    fprintf(stderr, "prove: %s: %s: %s\n", what, g16_err_str(err), msg);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json [VK.json]\n", argv[0]);
        return 2;
    }
    const char *zkey = argv[1], *wtns = argv[2], *proof = argv[3], *pub = argv[4];
    const char *vk = argc == 6 ? argv[5] : NULL;

    /* A context: the thread pool (all CPUs) and the options from the
     * environment; g16_ctx_create_ex says why it cannot be made. */
    g16_ctx *ctx = NULL;
    char msg[512];
    g16_err err = g16_ctx_create_ex(&ctx, NULL, msg, sizeof msg);
    if (err != G16_OK) {
        fprintf(stderr, "prove: g16_ctx_create_ex: %s: %s\n", g16_err_str(err), msg);
        return 1;
    }
    g16_key *key = NULL;
    g16_witness *w = NULL;
    g16_result *res = NULL;
    int rc = 1;

    if ((err = g16_key_load(ctx, &key, zkey, 0)) != G16_OK) {
        rc = fail("g16_key_load", err);
        goto out;
    }
    g16_key_info info;
    if ((err = g16_key_get_info(ctx, &info, key)) != G16_OK) {
        rc = fail("g16_key_get_info", err);
        goto out;
    }
    printf("key %s: %s, %u wires, %u public signals, domain %u\n", zkey, g16_curve_name(info.curve),
           info.n_vars, info.n_public, info.domain_size);
    if ((err = g16_witness_load(ctx, &w, wtns)) != G16_OK) {
        rc = fail("g16_witness_load", err);
        goto out;
    }

    /* The defaults: backend auto, and every proof verified before it is
     * returned (a witness that does not satisfy the circuit gives
     * G16_ERR_INVALID_PROOF). */
    g16_prove_opts opts;
    g16_prove_opts_init(&opts);
    g16_prove_stats stats;
    if ((err = g16_prove(ctx, &res, key, w, &opts, &stats)) != G16_OK) {
        rc = fail("g16_prove", err);
        goto out;
    }
    printf("proved in %.1f ms on the %s\n", stats.total_ms, stats.backend == G16_BACKEND_CUDA ? "GPU" : "CPU");
    /* Checking the proof again costs one multi-pairing. */
    if ((err = g16_result_verify(ctx, key, res)) != G16_OK) {
        rc = fail("g16_result_verify", err);
        goto out;
    }
    if ((err = g16_result_write(ctx, res, proof, pub)) != G16_OK) {
        rc = fail("g16_result_write", err);
        goto out;
    }
    printf("wrote %s and %s\n", proof, pub);
    if (vk) {
        if ((err = g16_key_export_vk(ctx, key, vk)) != G16_OK) {
            rc = fail("g16_key_export_vk", err);
            goto out;
        }
        if ((err = g16_verify_files(ctx, vk, pub, proof)) != G16_OK) {
            rc = fail("g16_verify_files", err);
            goto out;
        }
        printf("wrote %s; the files verify\n", vk);
    }
    rc = 0;
out:
    g16_result_free(res);
    g16_witness_free(w);
    g16_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}
