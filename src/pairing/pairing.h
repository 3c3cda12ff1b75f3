/* Pairing layer: the optimal ate pairing e: G1 x G2 -> GT (in Fp12) for
 * BN254 and BLS12-381, equal coefficient by coefficient to @noble/curves
 * (and so to snarkjs' vk_alphabeta_12).
 *
 * Per curve C in {bn254, bls381}:
 *   C_miller_loop(out, p, q, n)   product over i < n of the Miller values
 *                                 f(p[i], q[i]), sharing the Fp12 squarings
 *                                 (conjugated for BLS12-381's negative x)
 *   C_final_exp(out, f)           f^((p^12 - 1)/r * m), m fixed per curve:
 *                                 BN254 m = 2x(6x^2+3x+1) (Fuentes-Castaneda,
 *                                 Knapp, Rodriguez-Henriquez 2011), BLS12-381
 *                                 m = 3 (Hayashida, Hayasaka, Teruya 2020);
 *                                 the same powers as @noble/curves
 *   C_pairing(out, p, q)          final_exp(miller_loop(p, q, 1))
 *   C_multi_pairing(out, p, q, n) prod_i e(p[i], q[i]) with one final exp
 * Points are affine with Montgomery coordinates (curve.h); the point at
 * infinity (0, 0) contributes the factor 1, so e(O, Q) = e(P, O) = 1.
 * Inputs must be in the prime-order subgroups (not checked here; the curve
 * layer's decoders check it). n = 0 gives 1.
 *
 * Timing depends only on n and on which inputs are the point at infinity
 * (public data in verification), never on the coordinates. No allocation:
 * the loop walks the pairs in chunks of PAIRING_CHUNK on the stack. */
#ifndef G16_PAIRING_H
#define G16_PAIRING_H

#include "../curve/curve.h"

#define G16_PAIRING_DECLARE(C)                                                              \
    void C##_miller_loop(C##_fp12 *out, const C##_g1_affine *p, const C##_g2_affine *q,      \
                         size_t n);                                                         \
    void C##_final_exp(C##_fp12 *out, const C##_fp12 *f);                                   \
    void C##_pairing(C##_fp12 *out, const C##_g1_affine *p, const C##_g2_affine *q);         \
    void C##_multi_pairing(C##_fp12 *out, const C##_g1_affine *p, const C##_g2_affine *q,    \
                           size_t n);

G16_PAIRING_DECLARE(bn254)
G16_PAIRING_DECLARE(bls381)

#endif
