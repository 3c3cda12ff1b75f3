/* Instantiates the non-inline Fp6 and Fp12 operations for both curves. */
#include "field.h"

#define F bn254_fp
#define F2 bn254_fp2
#define F6 bn254_fp6
#define F12 bn254_fp12
#define T_UP BN254
#include "fp6_impl.c.h"
#include "fp12_impl.c.h"
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
#include "fp6_impl.c.h"
#include "fp12_impl.c.h"
#undef F
#undef F2
#undef F6
#undef F12
#undef T_UP
