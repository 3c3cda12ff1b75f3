/* Template: Fp2 = Fp[u]/(u^2 + 1), the same for both curves.
 * Macros: F2 (type/prefix), F (base field). */

#define FN2(name) G16_CAT(F2, _##name)
#define FB(name) G16_CAT(F, _##name)

typedef struct F2 {
    F c0, c1; /* c0 + c1*u */
} F2;

static inline void FN2(set_zero)(F2 *r) { FB(set_zero)(&r->c0); FB(set_zero)(&r->c1); }
static inline void FN2(set_one)(F2 *r) { FB(set_one)(&r->c0); FB(set_zero)(&r->c1); }
static inline void FN2(add)(F2 *r, const F2 *a, const F2 *b) {
    FB(add)(&r->c0, &a->c0, &b->c0);
    FB(add)(&r->c1, &a->c1, &b->c1);
}
static inline void FN2(sub)(F2 *r, const F2 *a, const F2 *b) {
    FB(sub)(&r->c0, &a->c0, &b->c0);
    FB(sub)(&r->c1, &a->c1, &b->c1);
}
static inline void FN2(dbl)(F2 *r, const F2 *a) {
    FB(dbl)(&r->c0, &a->c0);
    FB(dbl)(&r->c1, &a->c1);
}
static inline void FN2(neg)(F2 *r, const F2 *a) {
    FB(neg)(&r->c0, &a->c0);
    FB(neg)(&r->c1, &a->c1);
}
/* Conjugate a0 - a1 u = a^p (the Frobenius map on Fp2). */
static inline void FN2(conj)(F2 *r, const F2 *a) {
    r->c0 = a->c0;
    FB(neg)(&r->c1, &a->c1);
}
/* Karatsuba, 3M: (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
static inline void FN2(mul)(F2 *r, const F2 *a, const F2 *b) {
    F t0, t1, s0, s1;
    FB(mul)(&t0, &a->c0, &b->c0);
    FB(mul)(&t1, &a->c1, &b->c1);
    FB(add)(&s0, &a->c0, &a->c1);
    FB(add)(&s1, &b->c0, &b->c1);
    FB(mul)(&s0, &s0, &s1);
    FB(sub)(&r->c0, &t0, &t1);
    FB(sub)(&s0, &s0, &t0);
    FB(sub)(&r->c1, &s0, &t1);
}
/* Complex squaring, 2M: (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u */
static inline void FN2(sqr)(F2 *r, const F2 *a) {
    F s, d, m;
    FB(add)(&s, &a->c0, &a->c1);
    FB(sub)(&d, &a->c0, &a->c1);
    FB(mul)(&m, &a->c0, &a->c1);
    FB(mul)(&r->c0, &s, &d);
    FB(dbl)(&r->c1, &m);
}
/* r = a * b with b in the base field. */
static inline void FN2(mul_fp)(F2 *r, const F2 *a, const F *b) {
    FB(mul)(&r->c0, &a->c0, b);
    FB(mul)(&r->c1, &a->c1, b);
}
static inline int FN2(eq)(const F2 *a, const F2 *b) { return FB(eq)(&a->c0, &b->c0) & FB(eq)(&a->c1, &b->c1); }
static inline int FN2(is_zero)(const F2 *a) { return FB(is_zero)(&a->c0) & FB(is_zero)(&a->c1); }
static inline int FN2(is_one)(const F2 *a) { return FB(is_one)(&a->c0) & FB(is_zero)(&a->c1); }
static inline void FN2(cmov)(F2 *r, const F2 *a, int flag) {
    FB(cmov)(&r->c0, &a->c0, flag);
    FB(cmov)(&r->c1, &a->c1, flag);
}

/* Non-inline, in fields.c */
void FN2(inv)(F2 *r, const F2 *a); /* 1/(a0+a1u) = (a0-a1u)/(a0^2+a1^2); inv(0) = 0 */
void FN2(pow)(F2 *r, const F2 *a, const limb_t *e, size_t en);
/* Square root for p = 3 mod 4 (Adj, Rodriguez-Henriquez 2012, alg. 9).
 * Returns 1 and sets r if a is a square, else 0. Not constant time (used on
 * public point encodings only). */
int FN2(sqrt_vartime)(F2 *r, const F2 *a);
void FN2(random)(F2 *r, g16_rng *rng);

#undef FN2
#undef FB
