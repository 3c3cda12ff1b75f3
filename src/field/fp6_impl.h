/* Template: Fp6 = Fp2[v]/(v^3 - xi), plus the Fp2 helpers the tower needs.
 * Macros: F (base field), F2, F6 (type prefixes), T_UP (constant prefix in
 * tower_constants.h, e.g. BN254). xi = T_UP##_XI_A + u.
 * Formulas: Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and
 * squaring on pairing-friendly fields" (2006): Karatsuba multiplication
 * (6M2) and Chung-Hasan CH-SQR2 squaring (2M2 + 3S2). All operations are
 * constant time. */

#define FB(name) G16_CAT(F, _##name)
#define FN2(name) G16_CAT(F2, _##name)
#define FN6(name) G16_CAT(F6, _##name)
#define TC(name) G16_CAT(T_UP, _##name)

/* ---- Fp2 helpers ---------------------------------------------------------- */

/* r = k*a for a small public constant k, by doubling and adding. */
static inline void FB(mul_small)(F *r, const F *a, unsigned k) {
    F acc = *a;
    int top = 31;
    while (top > 0 && !((k >> top) & 1))
        top--;
    for (int i = top - 1; i >= 0; i--) {
        FB(dbl)(&acc, &acc);
        if ((k >> i) & 1)
            FB(add)(&acc, &acc, a);
    }
    *r = acc;
}

/* r = a/2 mod p: add p when a is odd, then shift (constant time). Halving
 * commutes with the Montgomery map, so it works on Montgomery values. */
static inline void FB(half)(F *r, const F *a) {
    limb_t t[G16_MAX_LIMBS], mask = (limb_t)0 - (a->l[0] & 1);
    limb_t pm[G16_MAX_LIMBS];
    for (size_t i = 0; i < sizeof a->l / sizeof a->l[0]; i++)
        pm[i] = FB(p_)[i] & mask;
    const size_t n = sizeof a->l / sizeof a->l[0];
    limb_t c = limbs_add(t, a->l, pm, n); /* < 2p < 2^(64n), c = 0 */
    (void)c;
    for (size_t i = 0; i + 1 < n; i++)
        r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[n - 1] = t[n - 1] >> 1;
}

static inline void FN2(half)(F2 *r, const F2 *a) {
    FB(half)(&r->c0, &a->c0);
    FB(half)(&r->c1, &a->c1);
}

/* r = a * xi, xi = A + u: (A a0 - a1) + (a0 + A a1) u. No multiplications. */
static inline void FN2(mul_by_xi)(F2 *r, const F2 *a) {
    F t0, t1;
    if (TC(XI_A) == 1) {
        FB(sub)(&t0, &a->c0, &a->c1);
        FB(add)(&r->c1, &a->c0, &a->c1);
        r->c0 = t0;
    } else {
        /* One Montgomery multiplication by the constant A: measured faster
         * than 8a + a by doublings (4 dependent modular additions) for
         * A = 9 once multiplication uses MULX (docs/pairing.md). */
        static const F A = TC(XI_A_MONT);
        FB(mul)(&t0, &a->c0, &A);
        FB(mul)(&t1, &a->c1, &A);
        FB(sub)(&t0, &t0, &a->c1);
        FB(add)(&r->c1, &t1, &a->c0);
        r->c0 = t0;
    }
}

/* r = a * k for a small constant k. */
static inline void FN2(mul_small)(F2 *r, const F2 *a, unsigned k) {
    FB(mul_small)(&r->c0, &a->c0, k);
    FB(mul_small)(&r->c1, &a->c1, k);
}

/* ---- Fp6 ------------------------------------------------------------------ */

typedef struct F6 {
    F2 c0, c1, c2; /* c0 + c1 v + c2 v^2 */
} F6;

static inline void FN6(set_zero)(F6 *r) {
    FN2(set_zero)(&r->c0);
    FN2(set_zero)(&r->c1);
    FN2(set_zero)(&r->c2);
}
static inline void FN6(set_one)(F6 *r) {
    FN2(set_one)(&r->c0);
    FN2(set_zero)(&r->c1);
    FN2(set_zero)(&r->c2);
}
static inline void FN6(add)(F6 *r, const F6 *a, const F6 *b) {
    FN2(add)(&r->c0, &a->c0, &b->c0);
    FN2(add)(&r->c1, &a->c1, &b->c1);
    FN2(add)(&r->c2, &a->c2, &b->c2);
}
static inline void FN6(sub)(F6 *r, const F6 *a, const F6 *b) {
    FN2(sub)(&r->c0, &a->c0, &b->c0);
    FN2(sub)(&r->c1, &a->c1, &b->c1);
    FN2(sub)(&r->c2, &a->c2, &b->c2);
}
static inline void FN6(dbl)(F6 *r, const F6 *a) {
    FN2(dbl)(&r->c0, &a->c0);
    FN2(dbl)(&r->c1, &a->c1);
    FN2(dbl)(&r->c2, &a->c2);
}
static inline void FN6(neg)(F6 *r, const F6 *a) {
    FN2(neg)(&r->c0, &a->c0);
    FN2(neg)(&r->c1, &a->c1);
    FN2(neg)(&r->c2, &a->c2);
}
/* r = a * v: (c0, c1, c2) -> (xi c2, c0, c1). */
static inline void FN6(mul_by_v)(F6 *r, const F6 *a) {
    F2 t;
    FN2(mul_by_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}
static inline int FN6(eq)(const F6 *a, const F6 *b) {
    return FN2(eq)(&a->c0, &b->c0) & FN2(eq)(&a->c1, &b->c1) & FN2(eq)(&a->c2, &b->c2);
}
static inline int FN6(is_zero)(const F6 *a) {
    return FN2(is_zero)(&a->c0) & FN2(is_zero)(&a->c1) & FN2(is_zero)(&a->c2);
}
static inline int FN6(is_one)(const F6 *a) {
    return FN2(is_one)(&a->c0) & FN2(is_zero)(&a->c1) & FN2(is_zero)(&a->c2);
}
static inline void FN6(cmov)(F6 *r, const F6 *a, int flag) {
    FN2(cmov)(&r->c0, &a->c0, flag);
    FN2(cmov)(&r->c1, &a->c1, flag);
    FN2(cmov)(&r->c2, &a->c2, flag);
}

/* Non-inline, in tower.c */
void FN6(mul)(F6 *r, const F6 *a, const F6 *b);     /* 6M2 (Karatsuba) */
void FN6(sqr)(F6 *r, const F6 *a);                  /* 2M2 + 3S2 (CH-SQR2) */
void FN6(inv)(F6 *r, const F6 *a);                  /* inv(0) = 0 */
void FN6(mul_by_fp2)(F6 *r, const F6 *a, const F2 *b); /* 3M2 */
void FN6(mul_by_01)(F6 *r, const F6 *a, const F2 *b0, const F2 *b1); /* b0 + b1 v, 5M2 */
void FN6(mul_by_1)(F6 *r, const F6 *a, const F2 *b1);                /* b1 v, 3M2 */
/* r = a^(p^k); k in {1, 2, 3} directly, other k (any sign) mod 6. */
void FN6(frobenius)(F6 *r, const F6 *a, int k);
void FN6(random)(F6 *r, g16_rng *rng);

#undef FB
#undef FN2
#undef FN6
#undef TC
