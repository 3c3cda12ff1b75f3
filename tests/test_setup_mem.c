/* The in-memory paths of the test setup (no GPU needed):
 *  - synth_generate_mem equals synth_generate's files read back (same CSR
 *    matrices, coefficients, witness), and its witness satisfies the circuit
 *    while a corrupted one does not;
 *  - groth16_setup_insecure_ex into memory equals the file it writes (same
 *    seed), for both curves;
 *  - an aligned in-memory key (align = 1) loads without copies (every point
 *    section 8-byte aligned, copied_bytes == 0), and its sections hold the
 *    same bytes as the unaligned key's; a proof against it verifies, and a
 *    proof with another seed's key does not;
 *  - the key's vk points follow the toxic waste groth16_setup_toxic reports
 *    (alpha1 = [alpha]G1, beta2 = [beta]G2), and snarkjs_init gives gamma2 =
 *    delta2 = G2, delta1 = G1;
 *  - the CPU backend and AUTO agree (AUTO is the GPU where one is present). */
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"
#include "util/ctx.h"

#include "g16.h"

static char dir[] = "/tmp/g16_setupmem_XXXXXX";

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void synth_mem_test(g16_curve curve, synth_profile prof, int log_n, uint64_t seed) {
    char r1cs[512], wtns[512];
    snprintf(r1cs, sizeof r1cs, "%s/s.r1cs", dir);
    snprintf(wtns, sizeof wtns, "%s/s.wtns", dir);
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = prof, .partitions = 1, .seed = seed,
                     .r1cs_path = r1cs, .wtns_path = wtns};
    g16_status st = {0};
    g16_r1cs fc = {0}, mc = {0};
    g16_frvec fw = {0}, mw = {0};
    synth_stats s1, s2;
    CHECK_MSG(synth_generate(&so, &s1, &st) == G16_OK, "synth: %s", st.msg);
    CHECK_MSG(g16_r1cs_read(&fc, r1cs, &st) == G16_OK, "r1cs read: %s", st.msg);
    CHECK_MSG(g16_wtns_read(&fw, wtns, &st) == G16_OK, "wtns read: %s", st.msg);
    CHECK_MSG(synth_generate_mem(&so, &mc, &mw, &s2, &st) == G16_OK, "synth mem: %s", st.msg);
    CHECK(memcmp(&s1, &s2, sizeof s1) == 0);
    CHECK(fc.curve == mc.curve && fc.nWires == mc.nWires && fc.nConstraints == mc.nConstraints &&
          fc.nPubOut == mc.nPubOut && fc.nPubIn == mc.nPubIn && fc.nPrvIn == mc.nPrvIn);
    for (int m = 0; m < 3 && fc.m[m].row && mc.m[m].row; m++) {
        CHECK_MSG(fc.nnz[m] == mc.nnz[m], "matrix %d: nnz %llu vs %llu", m, (unsigned long long)fc.nnz[m],
                  (unsigned long long)mc.nnz[m]);
        if (fc.nnz[m] != mc.nnz[m])
            continue;
        CHECK(!memcmp(fc.m[m].row, mc.m[m].row, ((size_t)fc.nConstraints + 1) * sizeof(uint64_t)));
        CHECK(!memcmp(fc.m[m].wire, mc.m[m].wire, fc.nnz[m] * sizeof(uint32_t)));
        CHECK(!memcmp(fc.m[m].coef, mc.m[m].coef, fc.nnz[m] * 32));
    }
    CHECK(fw.n == mw.n && mw.standard == 0 && fw.standard == 0 && !memcmp(fw.raw, mw.raw, fw.n * 32));
    uint32_t bad_row = 0;
    CHECK(g16_r1cs_check_witness(&mc, &mw, &bad_row, &st) == G16_OK);
    mw.raw[mw.n - 3][0] ^= 1; /* a private wire (still below r: low bit) */
    CHECK(g16_r1cs_check_witness(&mc, &mw, &bad_row, &st) == G16_ERR_INVALID_ARG);
    g16_r1cs_free(&fc);
    g16_r1cs_free(&mc);
    g16_frvec_free(&fw);
    g16_frvec_free(&mw);
    unlink(r1cs);
    unlink(wtns);
}

/* Data of section id in a zkey buffer (NULL if absent). */
static const uint8_t *section(const uint8_t *b, size_t len, uint32_t id, uint64_t *size) {
    uint32_t ns;
    memcpy(&ns, b + 8, 4);
    size_t pos = 12;
    for (uint32_t i = 0; i < ns && pos + 12 <= len; i++) {
        uint32_t sid;
        uint64_t sz;
        memcpy(&sid, b + pos, 4);
        memcpy(&sz, b + pos + 4, 8);
        if (sid == id) {
            *size = sz;
            return b + pos + 12;
        }
        pos += 12 + sz;
    }
    return NULL;
}

static void count_done(void *p) { ++*(int *)p; }

static void key_test(g16_ctx *ctx, g16_curve curve, int log_n, uint64_t seed) {
    const char *cn = curve == G16_CURVE_BN254 ? "bn254" : "bls12-381";
    synth_opts so = {.curve = curve, .log_n = log_n, .profile = SYNTH_FILECOIN, .partitions = 1, .seed = seed};
    g16_status st = {0};
    g16_r1cs cs = {0};
    g16_frvec wv = {0};
    if (synth_generate_mem(&so, &cs, &wv, NULL, &st) != G16_OK) {
        CHECK_MSG(0, "synth mem: %s", st.msg);
        return;
    }
    char zk[512];
    snprintf(zk, sizeof zk, "%s/k.zkey", dir);
    groth16_setup_opts o = {.seed = seed, .backend = GROTH16_SETUP_CPU};
    groth16_setup_info info;
    CHECK_MSG(groth16_setup_insecure_ex(ctx, &cs, &o, zk, NULL, NULL, &info, &st) == G16_OK, "setup file: %s", st.msg);
    size_t flen = 0;
    uint8_t *fbytes = read_file(zk, &flen);
    void *mem = NULL, *amem = NULL, *amem2 = NULL, *smem = NULL;
    size_t mlen = 0, alen = 0, alen2 = 0, slen = 0;
    o.backend = GROTH16_SETUP_AUTO;
    CHECK_MSG(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &mem, &mlen, &info, &st) == G16_OK, "setup mem: %s", st.msg);
    CHECK(info.key_bytes == mlen);
    if (g16_gpu_count() == 0) /* with a GPU, AUTO takes it, and the bytes must still match */
        CHECK(!info.used_gpu);
    CHECK_MSG(fbytes && mem && flen == mlen && !memcmp(fbytes, mem, flen), "%s: file key != memory key", cn);
    o.align = 1;
    int done_calls = 0;
    o.cs_done = count_done;
    o.cs_done_user = &done_calls;
    CHECK_MSG(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &amem, &alen, NULL, &st) == G16_OK, "setup aligned: %s",
              st.msg);
    CHECK(done_calls == 1);
    o.cs_done = NULL;
    o.align = 0;
    o.seed = seed + 1;
    CHECK(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &amem2, &alen2, NULL, &st) == G16_OK);
    o.seed = seed;
    o.snarkjs_init = 1;
    CHECK(groth16_setup_insecure_ex(ctx, &cs, &o, NULL, &smem, &slen, NULL, &st) == G16_OK);
    if (!mem || !amem || !amem2 || !smem)
        goto out;
    /* Same section contents, aligned or not. */
    for (uint32_t id = 1; id <= 10; id++) {
        uint64_t s1 = 0, s2 = 0;
        const uint8_t *a = section(mem, mlen, id, &s1), *b = section(amem, alen, id, &s2);
        CHECK_MSG(a && b && s1 == s2 && !memcmp(a, b, s1), "%s: section %u differs when aligned", cn, id);
        if (b && ((id == 3) || (id >= 5 && id <= 9)))
            CHECK_MSG(((uintptr_t)b & 7) == 0, "%s: aligned key's section %u at %p", cn, id, (const void *)b);
    }
    g16_zkey z;
    if (g16_zkey_open_mem(&z, "aligned", amem, alen, G16_ZKEY_CHECK_SUBGROUP, ctx->pool, &st) == G16_OK) {
        CHECK_MSG(z.copied_bytes == 0, "%s: aligned key copied %zu bytes on load", cn, z.copied_bytes);
        /* vk points from the toxic waste */
        uint8_t tw[5][32];
        groth16_setup_toxic(curve, seed, tw);
        g16_scalar ka, kb;
        memcpy(ka.l, tw[1], 32);
        memcpy(kb.l, tw[2], 32);
        if (curve == G16_CURVE_BN254) {
            bn254_g1_affine g1, e1;
            bn254_g2_affine g2, e2;
            bn254_g1_jac j1;
            bn254_g2_jac j2;
            bn254_g1_generator(&g1);
            bn254_g2_generator(&g2);
            bn254_g1_jac_from_affine(&j1, &g1);
            bn254_g2_jac_from_affine(&j2, &g2);
            bn254_g1_jac_mul_vartime(&j1, &j1, &ka);
            bn254_g2_jac_mul_vartime(&j2, &j2, &kb);
            bn254_g1_jac_to_affine(&e1, &j1);
            bn254_g2_jac_to_affine(&e2, &j2);
            CHECK_MSG(!memcmp(&e1, &z.bn254.alpha1, sizeof e1), "bn254: alpha1 != [alpha]G1");
            CHECK_MSG(!memcmp(&e2, &z.bn254.beta2, sizeof e2), "bn254: beta2 != [beta]G2");
            CHECK(memcmp(&g2, &z.bn254.gamma2, sizeof g2) != 0);
        } else {
            bls381_g1_affine g1, e1;
            bls381_g2_affine g2, e2;
            bls381_g1_jac j1;
            bls381_g2_jac j2;
            bls381_g1_generator(&g1);
            bls381_g2_generator(&g2);
            bls381_g1_jac_from_affine(&j1, &g1);
            bls381_g2_jac_from_affine(&j2, &g2);
            bls381_g1_jac_mul_vartime(&j1, &j1, &ka);
            bls381_g2_jac_mul_vartime(&j2, &j2, &kb);
            bls381_g1_jac_to_affine(&e1, &j1);
            bls381_g2_jac_to_affine(&e2, &j2);
            CHECK_MSG(!memcmp(&e1, &z.bls381.alpha1, sizeof e1), "bls381: alpha1 != [alpha]G1");
            CHECK_MSG(!memcmp(&e2, &z.bls381.beta2, sizeof e2), "bls381: beta2 != [beta]G2");
            CHECK(memcmp(&g2, &z.bls381.gamma2, sizeof g2) != 0);
        }
        g16_zkey_close(&z);
    } else {
        CHECK_MSG(0, "%s: aligned key does not load: %s", cn, st.msg);
    }
    /* snarkjs_init: gamma2 = delta2 = G2, delta1 = G1. */
    if (g16_zkey_open_mem(&z, "init", smem, slen, 0, ctx->pool, &st) == G16_OK) {
        if (curve == G16_CURVE_BN254) {
            bn254_g1_affine g1;
            bn254_g2_affine g2;
            bn254_g1_generator(&g1);
            bn254_g2_generator(&g2);
            CHECK(!memcmp(&g2, &z.bn254.gamma2, sizeof g2) && !memcmp(&g2, &z.bn254.delta2, sizeof g2) &&
                  !memcmp(&g1, &z.bn254.delta1, sizeof g1));
        } else {
            bls381_g1_affine g1;
            bls381_g2_affine g2;
            bls381_g1_generator(&g1);
            bls381_g2_generator(&g2);
            CHECK(!memcmp(&g2, &z.bls381.gamma2, sizeof g2) && !memcmp(&g2, &z.bls381.delta2, sizeof g2) &&
                  !memcmp(&g1, &z.bls381.delta1, sizeof g1));
        }
        g16_zkey_close(&z);
    } else {
        CHECK_MSG(0, "%s: snarkjs init key does not load: %s", cn, st.msg);
    }
    /* Prove against the aligned in-memory key; a key of another seed rejects the proof. */
    g16_key *key = NULL, *key2 = NULL;
    g16_witness *w = NULL;
    CHECK_MSG(groth16_key_load_mem(ctx, &key, "mem", amem, alen, 0, &st) == G16_OK, "key mem: %s", st.msg);
    CHECK_MSG(groth16_key_load_mem(ctx, &key2, "mem2", amem2, alen2, 0, &st) == G16_OK, "key mem2: %s", st.msg);
    CHECK(groth16_witness_from_frvec(&w, &wv, &st) == G16_OK && wv.raw == NULL);
    if (key && key2 && w) {
        g16_result *res = NULL;
        CHECK(g16_prove(ctx, &res, key, w, NULL, NULL) == G16_OK);
        if (res) {
            CHECK_MSG(groth16_result_verify(key, res, &st) == G16_OK, "%s: proof on the in-memory key: %s", cn,
                      st.msg);
            CHECK(groth16_result_verify(key2, res, &st) == G16_ERR_INVALID_PROOF);
            g16_result_free(res);
        }
    }
    g16_key_free(key);
    g16_key_free(key2);
    g16_witness_free(w);
    printf("  %s 2^%d: file == memory, aligned key loads without copies, proof verifies\n", cn, log_n);
out:
    free(fbytes);
    groth16_setup_mem_free(mem, mlen);
    groth16_setup_mem_free(amem, alen);
    groth16_setup_mem_free(amem2, alen2);
    groth16_setup_mem_free(smem, slen);
    g16_r1cs_free(&cs);
    g16_frvec_free(&wv);
    unlink(zk);
}

int main(void) {
    uint64_t seed = t_seed("test_setup_mem");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    g16_ctx *ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    synth_mem_test(G16_CURVE_BN254, SYNTH_FILECOIN, 8, seed);
    synth_mem_test(G16_CURVE_BLS12_381, SYNTH_DENSE, 8, seed + 1);
    synth_mem_test(G16_CURVE_BN254, SYNTH_SPARSE_B, 9, seed + 2);
    if (ctx) {
        key_test(ctx, G16_CURVE_BN254, 8, seed);
        key_test(ctx, G16_CURVE_BLS12_381, 8, seed);
    }
    g16_status st = {0};
    synth_opts bad = {.curve = G16_CURVE_BN254, .log_n = 8, .partitions = 2, .seed = 1};
    g16_r1cs cs;
    g16_frvec w;
    CHECK(synth_generate_mem(&bad, &cs, &w, NULL, &st) == G16_ERR_INVALID_ARG);
    g16_ctx_destroy(ctx);
    rmdir(dir);
    return t_done("test_setup_mem");
}
