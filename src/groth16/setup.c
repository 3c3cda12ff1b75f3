/* INSECURE test-only Groth16 setup: writes a snarkjs-layout .zkey for an
 * R1CS from toxic waste (tau, alpha, beta, gamma, delta) drawn from a seed.
 * Whoever knows the seed can forge proofs; it exists for tests and
 * benchmarks at sizes where a ceremony is impractical.
 *
 * With the n-domain Lagrange basis L_c at tau and snarkjs's extra rows
 * (A[ncons+s] = w_s for s <= nPublic), A_i(tau) = sum_c A[c][i] L_c(tau) and
 * likewise B_i, C_i. The key holds (snarkjs layout):
 *   A[i] = A_i(tau) G1, B1[i] = B_i(tau) G1, B2[i] = B_i(tau) G2,
 *   IC[i] = (beta A_i + alpha B_i + C_i)(tau)/gamma G1   (i <= nPublic)
 *   C[i]  = (beta A_i + alpha B_i + C_i)(tau)/delta G1   (i >  nPublic)
 *   H[j]  = L^{2n}_{2j+1}(tau)/delta G1: the odd-index Lagrange basis of the
 *           2n-domain, which turns the prover's odd-coset values
 *           h_j = (AB - C)(g omega^j) into H(tau) Z(tau)/delta, since
 *           Z(g omega^j) = -2 (docs/groth16.md derives it). */
#include <stdlib.h>
#include <string.h>

#include "binwrite.h"
#include "groth16.h"
#include "ntt/ntt.h"
#include "util/ctx.h"

#define FB_W 8        /* fixed-base window bits: 32 windows of 255 points */
#define FB_WINDOWS 32 /* 256-bit scalars */
#define FB_CHUNK 4096 /* points per pool task */

#define CV bn254
#define SETUP_FP_UP BN254_FP
#define SETUP_FR_UP BN254_FR
#include "setup_impl.h"
#undef CV
#undef SETUP_FP_UP
#undef SETUP_FR_UP

#define CV bls381
#define SETUP_FP_UP BLS381_FP
#define SETUP_FR_UP BLS381_FR
#include "setup_impl.h"
#undef CV
#undef SETUP_FP_UP
#undef SETUP_FR_UP

g16_err groth16_setup_insecure(g16_ctx *ctx, const g16_r1cs *cs, const char *out_path, uint64_t seed,
                               g16_status *st) {
    if (!ctx || !cs || !out_path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "setup: NULL argument");
    if (cs->nPubOut + cs->nPubIn + 1 > cs->nWires)
        return g16_fail(st, G16_ERR_FORMAT, "setup: more public signals than wires");
    if (cs->curve == G16_CURVE_BN254)
        return groth16_bn254_setup(ctx, cs, out_path, seed, st);
    return groth16_bls381_setup(ctx, cs, out_path, seed, st);
}
