/* Constant-time check of the r/s paths (run under valgrind memcheck by
 * tests/test_ctime.sh; built without sanitizers and with G16_CTIME, see
 * CMakeLists.txt). The secrets are marked undefined with
 * VALGRIND_MAKE_MEM_UNDEFINED; memcheck then reports every conditional jump
 * and every memory address computed from them ("Conditional jump or move
 * depends on uninitialised value(s)", "Use of uninitialised value of size
 * 8"), and the script fails on any report. Covered, on both curves:
 *   - scalar reduction: r s in Fr, Montgomery form -> integer (fr_to_scalar);
 *     bytes -> Fr for given r, s (fr_from_bytes_le_secret);
 *   - the fixed-base multiplications of a proof: r delta1, s delta2 (G2),
 *     s A, r B1, r s delta1 (G1_jac_mul), and their affine forms;
 *   - finalize as a whole: a real proof of a small synthetic circuit with
 *     secret r, s (g16_prove_with_rs_insecure: synthesis and MSMs see only
 *     the public witness; groth16_stage_finalize declassifies only the
 *     range flag of r, s and the finished proof), which must then verify
 *     and equal the proof made with the same r, s left defined.
 * Not covered: r, s from the OS CSPRNG (rejection sampling: only rejected
 * candidates influence the loop), and the INSECURE test setup's toxic waste,
 * whose fixed-base tables index memory by secret digits by design
 * (setup_impl.h; test keys only).
 * G16_CTIME_BRANCH=1 (the script's self-test) adds a deliberate branch on r,
 * which memcheck must report, and stops after the BN254 paths. Exit 0 when every result is right (memcheck's
 * findings go to its own exit code). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

#include "g16_testing.h"
#include "curve/curve.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "util/util.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures;
static int branch_on_r; /* the self-test's deliberate leak */
static volatile int sink;

#define FAIL(...)                                                                                                    \
    do {                                                                                                             \
        fprintf(stderr, "ctime_rs: " __VA_ARGS__);                                                                   \
        fputc('\n', stderr);                                                                                         \
        failures++;                                                                                                  \
    } while (0)

static const char *ctx_msg(g16_ctx *ctx) {
    static char buf[256];
    buf[0] = 0;
    (void)g16_ctx_last_error(ctx, buf, sizeof buf);
    return buf;
}

/* One curve's scalar and point paths. P1 = a public G1 point (delta1, A,
 * B1 all stand in as multiples of the generator), P2 = delta2. Results are
 * checked against the variable-time multiplication on defined copies. */
#define CURVE_PATHS(CV)                                                                                              \
    static void CV##_paths(g16_rng *rng) {                                                                           \
        CV##_fr r, s, rs, rd, sd, rsd;                                                                               \
        CV##_fr_random(&r, rng);                                                                                     \
        CV##_fr_random(&s, rng);                                                                                     \
        rd = r, sd = s;                                                                                              \
        CV##_fr_mul(&rsd, &rd, &sd);                                                                                 \
        SECRET(&r, sizeof r);                                                                                        \
        SECRET(&s, sizeof s);                                                                                        \
        if (branch_on_r && (r.l[0] & 1))                                                                             \
            sink++;                                                                                                  \
        /* scalar reduction */                                                                                       \
        CV##_fr_mul(&rs, &r, &s);                                                                                    \
        g16_scalar rk, sk, rsk, rkd, skd, rskd;                                                                      \
        CV##_fr_from_mont(rk.l, &r);                                                                                 \
        CV##_fr_from_mont(sk.l, &s);                                                                                 \
        CV##_fr_from_mont(rsk.l, &rs);                                                                               \
        CV##_fr_from_mont(rkd.l, &rd);                                                                               \
        CV##_fr_from_mont(skd.l, &sd);                                                                               \
        CV##_fr_from_mont(rskd.l, &rsd);                                                                             \
        uint8_t rb[32];                                                                                              \
        CV##_fr_to_bytes_le(rb, 32, &rd);                                                                            \
        SECRET(rb, sizeof rb);                                                                                       \
        CV##_fr r2;                                                                                                  \
        int ok = CV##_fr_from_bytes_le_secret(&r2, rb, 32);                                                          \
        PUBLIC(&ok, sizeof ok);                                                                                      \
        if (!ok)                                                                                                     \
            FAIL(#CV ": r's bytes rejected");                                                                        \
        CV##_fr_sub(&r2, &r2, &r);                                                                                   \
        int same = CV##_fr_is_zero(&r2);                                                                             \
        PUBLIC(&same, sizeof same);                                                                                  \
        if (!same)                                                                                                   \
            FAIL(#CV ": bytes -> Fr differs");                                                                       \
        /* fixed-base multiplications */                                                                             \
        CV##_g1_affine g1, out1, want1;                                                                              \
        CV##_g2_affine g2, out2, want2;                                                                              \
        CV##_g1_jac p1, t1, w1;                                                                                      \
        CV##_g2_jac p2, t2, w2;                                                                                      \
        g16_scalar pk = {{g16_rng_next(rng), g16_rng_next(rng), 0, 0}};                                              \
        CV##_g1_generator(&g1);                                                                                      \
        CV##_g2_generator(&g2);                                                                                      \
        CV##_g1_jac_from_affine(&p1, &g1);                                                                           \
        CV##_g2_jac_from_affine(&p2, &g2);                                                                           \
        CV##_g1_jac_mul_vartime(&p1, &p1, &pk);                                                                      \
        CV##_g2_jac_mul_vartime(&p2, &p2, &pk);                                                                      \
        const g16_scalar *k1[4] = {&rk, &sk, &rsk, &sk}, *k1d[4] = {&rkd, &skd, &rskd, &skd};                       \
        for (int i = 0; i < 4; i++) { /* r d1, s A, r s d1 (and s d1 of B1) */                                      \
            CV##_g1_jac_mul(&t1, &p1, k1[i]);                                                                        \
            CV##_g1_jac_to_affine(&out1, &t1);                                                                       \
            PUBLIC(&out1, sizeof out1);                                                                              \
            CV##_g1_jac_mul_vartime(&w1, &p1, k1d[i]);                                                               \
            CV##_g1_jac_to_affine(&want1, &w1);                                                                      \
            if (memcmp(&out1, &want1, sizeof out1))                                                                  \
                FAIL(#CV ": G1 multiplication %d differs", i);                                                       \
        }                                                                                                            \
        CV##_g2_jac_mul(&t2, &p2, &sk); /* s delta2 */                                                               \
        CV##_g2_jac_to_affine(&out2, &t2);                                                                           \
        PUBLIC(&out2, sizeof out2);                                                                                  \
        CV##_g2_jac_mul_vartime(&w2, &p2, &skd);                                                                     \
        CV##_g2_jac_to_affine(&want2, &w2);                                                                          \
        if (memcmp(&out2, &want2, sizeof out2))                                                                      \
            FAIL(#CV ": G2 multiplication differs");                                                                 \
        g16_wipe(&r, sizeof r);                                                                                      \
        g16_wipe(&s, sizeof s);                                                                                      \
        g16_wipe(&rs, sizeof rs);                                                                                    \
        g16_wipe(&rk, sizeof rk);                                                                                    \
        g16_wipe(&sk, sizeof sk);                                                                                    \
        g16_wipe(&rsk, sizeof rsk);                                                                                  \
        g16_wipe(&t1, sizeof t1);                                                                                    \
        g16_wipe(&t2, sizeof t2);                                                                                    \
        g16_wipe(rb, sizeof rb);                                                                                     \
    }
CURVE_PATHS(bn254)
CURVE_PATHS(bls381)

/* A whole proof with secret r, s on a 2^log_n synthetic circuit. */
static void prove_case(g16_ctx *ctx, const char *dir, g16_curve curve, int log_n, uint64_t seed) {
    const char *cn = curve == G16_CURVE_BN254 ? "bn254" : "bls12-381";
    char r1cs[256], wtns[256], zkey[256];
    snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", dir, cn);
    snprintf(wtns, sizeof wtns, "%s/%s.wtns", dir, cn);
    snprintf(zkey, sizeof zkey, "%s/%s.zkey", dir, cn);
    synth_opts so = {curve, log_n, SYNTH_FILECOIN, 1, seed, r1cs, wtns, NULL, NULL};
    g16_status st = {0};
    synth_stats ss;
    g16_r1cs cs;
    if (synth_generate(&so, &ss, &st) || g16_r1cs_read(&cs, r1cs, &st) ||
        groth16_setup_insecure(ctx, &cs, zkey, seed, &st)) {
        FAIL("%s: circuit: %s", cn, st.msg);
        return;
    }
    g16_r1cs_free(&cs);
    g16_key *key = NULL;
    g16_witness *w = NULL;
    if (g16_key_load(ctx, &key, zkey, 0) || g16_witness_load(ctx, &w, wtns)) {
        FAIL("%s: load: %s", cn, ctx_msg(ctx));
        g16_key_free(key);
        return;
    }
    /* r, s below both group orders (top byte clear). */
    uint8_t r_le[32], s_le[32], rp[32], sp[32];
    for (int i = 0; i < 32; i++) {
        r_le[i] = (uint8_t)(seed >> (i % 8 * 8)) ^ (uint8_t)(i * 37);
        s_le[i] = (uint8_t)(seed >> (i % 8 * 8)) ^ (uint8_t)(i * 91 + 5);
    }
    r_le[31] = s_le[31] = 0;
    memcpy(rp, r_le, 32);
    memcpy(sp, s_le, 32);
    SECRET(r_le, 32);
    SECRET(s_le, 32);
    if (branch_on_r && (r_le[0] & 1))
        sink++;
    g16_result *res = NULL, *ref = NULL;
    if (g16_prove_with_rs_insecure(ctx, &res, key, w, r_le, s_le)) {
        FAIL("%s: prove (secret r, s): %s", cn, ctx_msg(ctx));
    } else if (g16_prove_with_rs_insecure(ctx, &ref, key, w, rp, sp)) {
        FAIL("%s: prove (public r, s): %s", cn, ctx_msg(ctx));
    } else {
        char *pj = NULL, *rj = NULL;
        if (g16_result_verify(ctx, key, res))
            FAIL("%s: the proof with secret r, s does not verify: %s", cn, ctx_msg(ctx));
        if (g16_result_json(ctx, &pj, NULL, res) || g16_result_json(ctx, &rj, NULL, ref) || strcmp(pj, rj))
            FAIL("%s: the proofs with secret and public r, s differ", cn);
        g16_free(pj);
        g16_free(rj);
    }
    g16_wipe(r_le, 32);
    g16_wipe(s_le, 32);
    g16_result_free(res);
    g16_result_free(ref);
    g16_witness_free(w);
    g16_key_free(key);
    unlink(r1cs);
    unlink(wtns);
    unlink(zkey);
}

int main(void) {
    const char *b = getenv("G16_CTIME_BRANCH");
    branch_on_r = b && b[0] == '1';
    g16_rng rng;
    g16_rng_seed(&rng, 0x6374696d65ull);
    bn254_paths(&rng);
    if (branch_on_r) /* the self-test needs no more */
        return failures ? 1 : 0;
    bls381_paths(&rng);
    char dir[] = "/tmp/g16-ctime-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    g16_ctx_opts opts = {.threads = 1};
    g16_ctx *ctx = g16_ctx_create(&opts);
    if (!ctx) {
        fprintf(stderr, "ctime_rs: no context\n");
        return 1;
    }
    prove_case(ctx, dir, G16_CURVE_BN254, 6, 11);
    prove_case(ctx, dir, G16_CURVE_BLS12_381, 6, 12);
    g16_ctx_destroy(ctx);
    rmdir(dir);
    printf("ctime_rs: %s\n", failures ? "FAILED" : "results ok");
    return failures ? 1 : 0;
}
