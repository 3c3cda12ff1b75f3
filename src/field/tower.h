/* Fp6 = Fp2[v]/(v^3 - xi) and Fp12 = Fp6[w]/(w^2 - v) for both curves
 * (xi = 9+u for BN254, 1+u for BLS12-381): the tower of @noble/curves and
 * snarkjs, so values compare coefficient by coefficient.
 *
 * Types: bn254_fp6, bn254_fp12, bls381_fp6, bls381_fp12 (fp6_impl.h,
 * fp12_impl.h), plus Fp2 helpers <fp2>_mul_by_xi, _half, _mul_small.
 * Constants (Frobenius coefficients, twist b', loop digits) come from
 * scripts/gen_tower_constants.py via tower_constants.h.
 *
 * Included at the end of field.h (needs the Fp and Fp2 types; does not
 * include field.h itself). */
#ifndef G16_FIELD_TOWER_H
#define G16_FIELD_TOWER_H

#include "tower_constants.h"

#define F bn254_fp
#define F2 bn254_fp2
#define F6 bn254_fp6
#define F12 bn254_fp12
#define T_UP BN254
#include "fp6_impl.h"
#include "fp12_impl.h"
#undef F
#undef F2
#undef F6
#undef F12
#undef T_UP

#define F bls381_fp
#define F2 bls381_fp2
#define F6 bls381_fp6
#define F12 bls381_fp12
#define T_UP BLS381
#include "fp6_impl.h"
#include "fp12_impl.h"
#undef F
#undef F2
#undef F6
#undef F12
#undef T_UP

#endif
