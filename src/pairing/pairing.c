/* Optimal ate pairing for BN254 and BLS12-381: one template
 * (pairing_impl.c.h) instantiated per curve. */
#include "pairing.h"

/* BN254, D-type twist y^2 = x^3 + 3/xi: 3b' = 9/(9+u) is a general Fp2
 * constant, one Fp2 multiplication. */
static inline void bn254_mul_by_3b_(bn254_fp2 *r, const bn254_fp2 *a) {
    static const bn254_fp2 b3 = BN254_TWIST_3B;
    bn254_fp2_mul(r, a, &b3);
}

/* BLS12-381, M-type twist y^2 = x^3 + 4(1+u): 3b' = 12(1+u), no
 * multiplications. */
static inline void bls381_mul_by_3b_(bls381_fp2 *r, const bls381_fp2 *a) {
    bls381_fp2 t;
    bls381_fp2_mul_by_xi(&t, a); /* (1+u) a */
    bls381_fp2_mul_small(r, &t, 12);
}

#define C bn254
#define F bn254_fp
#define F2 bn254_fp2
#define F12 bn254_fp12
#define T_UP BN254
#define TWIST_D 1
#define PAIRING_BN
#include "pairing_impl.c.h"
#undef C
#undef F
#undef F2
#undef F12
#undef T_UP
#undef TWIST_D
#undef PAIRING_BN

#define C bls381
#define F bls381_fp
#define F2 bls381_fp2
#define F12 bls381_fp12
#define T_UP BLS381
#define TWIST_D 0
#include "pairing_impl.c.h"
#undef C
#undef F
#undef F2
#undef F12
#undef T_UP
#undef TWIST_D
