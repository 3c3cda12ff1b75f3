/* Template: Fp12 = Fp6[w]/(w^2 - v), so w^6 = xi. Macros: F, F2, F6, F12,
 * T_UP (see fp6_impl.h). An element c0 + c1 w has, in the power basis
 * sum_{i<6} g_i w^i of Fp12/Fp2, g_0 = c0.c0, g_2 = c0.c1, g_4 = c0.c2,
 * g_1 = c1.c0, g_3 = c1.c1, g_5 = c1.c2: the layout of @noble/curves and of
 * snarkjs' vk_alphabeta_12. Constant time unless named _vartime. */

#define FN2(name) G16_CAT(F2, _##name)
#define FN6(name) G16_CAT(F6, _##name)
#define FN12(name) G16_CAT(F12, _##name)

typedef struct F12 {
    F6 c0, c1; /* c0 + c1 w */
} F12;

static inline void FN12(set_zero)(F12 *r) {
    FN6(set_zero)(&r->c0);
    FN6(set_zero)(&r->c1);
}
static inline void FN12(set_one)(F12 *r) {
    FN6(set_one)(&r->c0);
    FN6(set_zero)(&r->c1);
}
static inline void FN12(add)(F12 *r, const F12 *a, const F12 *b) {
    FN6(add)(&r->c0, &a->c0, &b->c0);
    FN6(add)(&r->c1, &a->c1, &b->c1);
}
static inline void FN12(sub)(F12 *r, const F12 *a, const F12 *b) {
    FN6(sub)(&r->c0, &a->c0, &b->c0);
    FN6(sub)(&r->c1, &a->c1, &b->c1);
}
static inline void FN12(dbl)(F12 *r, const F12 *a) {
    FN6(dbl)(&r->c0, &a->c0);
    FN6(dbl)(&r->c1, &a->c1);
}
static inline void FN12(neg)(F12 *r, const F12 *a) {
    FN6(neg)(&r->c0, &a->c0);
    FN6(neg)(&r->c1, &a->c1);
}
/* Conjugation c0 - c1 w = a^(p^6); the inverse on the cyclotomic subgroup. */
static inline void FN12(conj)(F12 *r, const F12 *a) {
    r->c0 = a->c0;
    FN6(neg)(&r->c1, &a->c1);
}
static inline int FN12(eq)(const F12 *a, const F12 *b) {
    return FN6(eq)(&a->c0, &b->c0) & FN6(eq)(&a->c1, &b->c1);
}
static inline int FN12(is_zero)(const F12 *a) {
    return FN6(is_zero)(&a->c0) & FN6(is_zero)(&a->c1);
}
static inline int FN12(is_one)(const F12 *a) { return FN6(is_one)(&a->c0) & FN6(is_zero)(&a->c1); }
static inline void FN12(cmov)(F12 *r, const F12 *a, int flag) {
    FN6(cmov)(&r->c0, &a->c0, flag);
    FN6(cmov)(&r->c1, &a->c1, flag);
}

/* Non-inline, in tower.c */
void FN12(mul)(F12 *r, const F12 *a, const F12 *b); /* Karatsuba, 3 Fp6 mul = 18M2 */
void FN12(sqr)(F12 *r, const F12 *a);               /* complex squaring, 2 Fp6 mul */
void FN12(inv)(F12 *r, const F12 *a);               /* (c0 - c1 w)/(c0^2 - v c1^2); inv(0) = 0 */
/* Sparse products with line values (13M2 each). The names give the nonzero
 * power-basis slots of b in gnark's numbering (c0.c0, c0.c1, c0.c2, c1.c0,
 * c1.c1, c1.c2) = (0, 1, 2, 3, 4, 5):
 *   mul_by_034: b = b0 + b3 w + b4 v w     (D-type twist lines, BN254)
 *   mul_by_014: b = b0 + b1 v + b4 v w     (M-type twist lines, BLS12-381) */
void FN12(mul_by_034)(F12 *r, const F12 *a, const F2 *b0, const F2 *b3, const F2 *b4);
void FN12(mul_by_014)(F12 *r, const F12 *a, const F2 *b0, const F2 *b1, const F2 *b4);
/* r = a^(p^k): g_i w^i -> g_i^(p^k) gamma_{k,i} w^i; k in {1, 2, 3}
 * directly, other k (any sign) mod 12 by composition. */
void FN12(frobenius)(F12 *r, const F12 *a, int k);
/* Granger-Scott (PKC 2010, section 3.1) squaring, valid only for a in the
 * cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1): 9S2 instead of 12M2. */
void FN12(cyclotomic_sqr)(F12 *r, const F12 *a);
/* r = a^|x| for the curve parameter x (public digit string in
 * tower_constants.h), using cyclotomic squarings; a in the cyclotomic
 * subgroup. The caller conjugates for negative x. */
void FN12(cyclotomic_exp_x)(F12 *r, const F12 *a);
/* r = a^e, e little-endian limbs (generic square-and-multiply, constant time
 * in a, time depends on en): a reference for tests. */
void FN12(pow)(F12 *r, const F12 *a, const limb_t *e, size_t en);
void FN12(random)(F12 *r, g16_rng *rng);

#undef FN2
#undef FN6
#undef FN12
