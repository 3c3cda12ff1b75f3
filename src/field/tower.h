/* Fp6 = Fp2[v]/(v^3 - xi) and Fp12 = Fp6[w]/(w^2 - v) for both curves
 * (xi = 9+u for BN254, 1+u for BLS12-381). Filled in by the tower work. */
#ifndef G16_FIELD_TOWER_H
#define G16_FIELD_TOWER_H
#endif
