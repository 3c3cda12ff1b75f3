/* Template: non-inline Fp6 operations (see fp6_impl.h). Needs F, F2, F6, T_UP. */

#define FB(name) G16_CAT(F, _##name)
#define FN2(name) G16_CAT(F2, _##name)
#define FN6(name) G16_CAT(F6, _##name)
#define TC(name) G16_CAT(T_UP, _##name)

/* Karatsuba (Devegili et al. 2006, section 4):
 *   v0 = a0 b0, v1 = a1 b1, v2 = a2 b2
 *   c0 = v0 + xi((a1 + a2)(b1 + b2) - v1 - v2)
 *   c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2
 *   c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1 */
void FN6(mul)(F6 *r, const F6 *a, const F6 *b) {
    F2 v0, v1, v2, s, t, c0, c1, c2;
    FN2(mul)(&v0, &a->c0, &b->c0);
    FN2(mul)(&v1, &a->c1, &b->c1);
    FN2(mul)(&v2, &a->c2, &b->c2);

    FN2(add)(&s, &a->c1, &a->c2);
    FN2(add)(&t, &b->c1, &b->c2);
    FN2(mul)(&c0, &s, &t);
    FN2(sub)(&c0, &c0, &v1);
    FN2(sub)(&c0, &c0, &v2);
    FN2(mul_by_xi)(&c0, &c0);
    FN2(add)(&c0, &c0, &v0);

    FN2(add)(&s, &a->c0, &a->c1);
    FN2(add)(&t, &b->c0, &b->c1);
    FN2(mul)(&c1, &s, &t);
    FN2(sub)(&c1, &c1, &v0);
    FN2(sub)(&c1, &c1, &v1);
    FN2(mul_by_xi)(&s, &v2);
    FN2(add)(&c1, &c1, &s);

    FN2(add)(&s, &a->c0, &a->c2);
    FN2(add)(&t, &b->c0, &b->c2);
    FN2(mul)(&c2, &s, &t);
    FN2(sub)(&c2, &c2, &v0);
    FN2(sub)(&c2, &c2, &v2);
    FN2(add)(&r->c2, &c2, &v1);
    r->c0 = c0;
    r->c1 = c1;
}

/* CH-SQR2 (Chung, Hasan 2007; Devegili et al. 2006):
 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
 *   c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4 */
void FN6(sqr)(F6 *r, const F6 *a) {
    F2 s0, s1, s2, s3, s4, t;
    FN2(sqr)(&s0, &a->c0);
    FN2(mul)(&s1, &a->c0, &a->c1);
    FN2(dbl)(&s1, &s1);
    FN2(sub)(&t, &a->c0, &a->c1);
    FN2(add)(&t, &t, &a->c2);
    FN2(sqr)(&s2, &t);
    FN2(mul)(&s3, &a->c1, &a->c2);
    FN2(dbl)(&s3, &s3);
    FN2(sqr)(&s4, &a->c2);

    FN2(mul_by_xi)(&t, &s3);
    FN2(add)(&r->c0, &s0, &t);
    FN2(add)(&s2, &s2, &s1);
    FN2(add)(&s2, &s2, &s3);
    FN2(sub)(&s2, &s2, &s0);
    FN2(sub)(&r->c2, &s2, &s4);
    FN2(mul_by_xi)(&t, &s4);
    FN2(add)(&r->c1, &s1, &t);
}

/* Adjugate over the norm: with
 *   t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2,
 * a (t0 + t1 v + t2 v^2) = a0 t0 + xi (a2 t1 + a1 t2) in Fp2. */
void FN6(inv)(F6 *r, const F6 *a) {
    F2 t0, t1, t2, u, d;
    FN2(sqr)(&t0, &a->c0);
    FN2(mul)(&u, &a->c1, &a->c2);
    FN2(mul_by_xi)(&u, &u);
    FN2(sub)(&t0, &t0, &u);

    FN2(sqr)(&t1, &a->c2);
    FN2(mul_by_xi)(&t1, &t1);
    FN2(mul)(&u, &a->c0, &a->c1);
    FN2(sub)(&t1, &t1, &u);

    FN2(sqr)(&t2, &a->c1);
    FN2(mul)(&u, &a->c0, &a->c2);
    FN2(sub)(&t2, &t2, &u);

    FN2(mul)(&d, &a->c2, &t1);
    FN2(mul)(&u, &a->c1, &t2);
    FN2(add)(&d, &d, &u);
    FN2(mul_by_xi)(&d, &d);
    FN2(mul)(&u, &a->c0, &t0);
    FN2(add)(&d, &d, &u);
    FN2(inv)(&d, &d);

    FN2(mul)(&r->c0, &t0, &d);
    FN2(mul)(&r->c1, &t1, &d);
    FN2(mul)(&r->c2, &t2, &d);
}

void FN6(mul_by_fp2)(F6 *r, const F6 *a, const F2 *b) {
    FN2(mul)(&r->c0, &a->c0, b);
    FN2(mul)(&r->c1, &a->c1, b);
    FN2(mul)(&r->c2, &a->c2, b);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v)
 *   = (a0 b0 + xi a2 b1) + (a0 b1 + a1 b0) v + (a1 b1 + a2 b0) v^2, with
 * t0 = a0 b0, t1 = a1 b1 and Karatsuba for the cross terms. */
void FN6(mul_by_01)(F6 *r, const F6 *a, const F2 *b0, const F2 *b1) {
    F2 t0, t1, s, u, c0, c1, c2;
    FN2(mul)(&t0, &a->c0, b0);
    FN2(mul)(&t1, &a->c1, b1);

    FN2(add)(&s, &a->c1, &a->c2);
    FN2(mul)(&c0, &s, b1);
    FN2(sub)(&c0, &c0, &t1);
    FN2(mul_by_xi)(&c0, &c0);
    FN2(add)(&c0, &c0, &t0);

    FN2(add)(&s, &a->c0, &a->c1);
    FN2(add)(&u, b0, b1);
    FN2(mul)(&c1, &s, &u);
    FN2(sub)(&c1, &c1, &t0);
    FN2(sub)(&c1, &c1, &t1);

    FN2(add)(&s, &a->c0, &a->c2);
    FN2(mul)(&c2, &s, b0);
    FN2(sub)(&c2, &c2, &t0);
    FN2(add)(&c2, &c2, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2. */
void FN6(mul_by_1)(F6 *r, const F6 *a, const F2 *b1) {
    F2 c0, c1, c2;
    FN2(mul)(&c0, &a->c2, b1);
    FN2(mul_by_xi)(&c0, &c0);
    FN2(mul)(&c1, &a->c0, b1);
    FN2(mul)(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* v = w^2, so (c_j v^j)^(p^k) = c_j^(p^k) gamma_{k,2j} v^j. k = 1, 2, 3
 * directly; any other k through k mod 6 (the map has order 6 on Fp6). */
static void FN6(frobenius_)(F6 *r, const F6 *a, int k);
void FN6(frobenius)(F6 *r, const F6 *a, int k) {
    k %= 6;
    if (k < 0)
        k += 6;
    if (k == 0) {
        *r = *a;
        return;
    }
    if (k > 3) {
        FN6(frobenius_)(r, a, 3);
        FN6(frobenius_)(r, r, k - 3);
        return;
    }
    FN6(frobenius_)(r, a, k);
}

static void FN6(frobenius_)(F6 *r, const F6 *a, int k) {
    static const F2 g[3][2] = {
        {TC(FROB1_2), TC(FROB1_4)},
        {TC(FROB2_2), TC(FROB2_4)},
        {TC(FROB3_2), TC(FROB3_4)},
    };
    F2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) { /* public k */
        FN2(conj)(&c0, &c0);
        FN2(conj)(&c1, &c1);
        FN2(conj)(&c2, &c2);
    }
    if (k == 2) { /* gamma_{2,i} lies in Fp */
        FN2(mul_fp)(&c1, &c1, &g[1][0].c0);
        FN2(mul_fp)(&c2, &c2, &g[1][1].c0);
    } else {
        FN2(mul)(&c1, &c1, &g[k - 1][0]);
        FN2(mul)(&c2, &c2, &g[k - 1][1]);
    }
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void FN6(random)(F6 *r, g16_rng *rng) {
    FN2(random)(&r->c0, rng);
    FN2(random)(&r->c1, rng);
    FN2(random)(&r->c2, rng);
}

#undef FB
#undef FN2
#undef FN6
#undef TC
