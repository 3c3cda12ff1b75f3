/* rapidsnark's verifier C ABI (iden3/rapidsnark src/verifier.h, v0.0.8,
 * commit 81eddf1), implemented by librapidsnark_g16 over g16 (docs/rapidsnark.md). */
#ifndef G16_RAPIDSNARK_VERIFIER_H
#define G16_RAPIDSNARK_VERIFIER_H

#ifdef __cplusplus
extern "C" {
#endif

#define VERIFIER_VALID_PROOF   0x0
#define VERIFIER_INVALID_PROOF 0x1
#define VERIFIER_ERROR         0x2 /* malformed input: see error_msg */

/* Verifies a Groth16 proof. proof, inputs and verification_key are
 * NUL-terminated JSON texts: a proof (rapidsnark's or snarkjs's form), the
 * public signals (a non-empty array of decimal strings) and snarkjs's
 * verification_key.json (curve "bn128" or "bls12381"). error_msg (may be
 * NULL) receives a NUL-terminated message on VERIFIER_ERROR. */
int
groth16_verify(const char    *proof,
               const char    *inputs,
               const char    *verification_key,
               char          *error_msg,
               unsigned long  error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif
