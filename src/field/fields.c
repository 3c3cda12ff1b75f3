/* Instantiates the non-inline field operations for the four prime fields and
 * the two Fp2 extensions. */
#include "field.h"

#define F bn254_fp
#define F_UP BN254_FP
#define F_N 4
#define G16_FIELD_P_IS_3_MOD_4
#include "field_impl.c.h"
#define F2 bn254_fp2
#include "fp2_impl.c.h"
#undef F2
#undef G16_FIELD_P_IS_3_MOD_4
#undef F
#undef F_UP
#undef F_N

#define F bls381_fp
#define F_UP BLS381_FP
#define F_N 6
#define G16_FIELD_P_IS_3_MOD_4
#include "field_impl.c.h"
#define F2 bls381_fp2
#include "fp2_impl.c.h"
#undef F2
#undef G16_FIELD_P_IS_3_MOD_4
#undef F
#undef F_UP
#undef F_N

#define F bn254_fr
#define F_UP BN254_FR
#define F_N 4
#include "field_impl.c.h"
#undef F
#undef F_UP
#undef F_N

#define F bls381_fr
#define F_UP BLS381_FR
#define F_N 4
#include "field_impl.c.h"
#undef F
#undef F_UP
#undef F_N
