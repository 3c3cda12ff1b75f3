/* Field layer: Fp and Fr of BN254 and BLS12-381 in Montgomery form, Fp2 for
 * both, and (tower.h) Fp6 and Fp12. One implementation, generic over the
 * modulus (limbs.h); each field is an instance of field_impl.h.
 *
 * Types: bn254_fp, bn254_fr, bn254_fp2, bls381_fp, bls381_fr, bls381_fp2.
 * Functions: <type>_add, _sub, _mul, ... (see field_impl.h/fp2_impl.h).
 * On x86-64, multiplication uses MULX/ADCX/ADOX asm when the CPU has it
 * (run-time check, limbs.h) and add/sub/neg use asm; inversion is safegcd
 * (inv_impl.c.h). docs/field.md has the details and the measurements. */
#ifndef G16_FIELD_H
#define G16_FIELD_H

#include "../util/util.h"
#include "field_constants.h"
#include "limbs.h"

#define G16_CAT_(a, b) a##b
#define G16_CAT(a, b) G16_CAT_(a, b)

#define F bn254_fp
#define F_UP BN254_FP
#define F_N 4
#include "field_impl.h"
#undef F
#undef F_UP
#undef F_N

#define F bn254_fr
#define F_UP BN254_FR
#define F_N 4
#include "field_impl.h"
#undef F
#undef F_UP
#undef F_N

#define F bls381_fp
#define F_UP BLS381_FP
#define F_N 6
#include "field_impl.h"
#undef F
#undef F_UP
#undef F_N

#define F bls381_fr
#define F_UP BLS381_FR
#define F_N 4
#include "field_impl.h"
#undef F
#undef F_UP
#undef F_N

#define F2 bn254_fp2
#define F bn254_fp
#include "fp2_impl.h"
#undef F2
#undef F

#define F2 bls381_fp2
#define F bls381_fp
#include "fp2_impl.h"
#undef F2
#undef F

#include "tower.h"

#endif
