/* Template: non-inline Fp12 operations (see fp12_impl.h). Needs F, F2, F6,
 * F12, T_UP. */

#define FN2(name) G16_CAT(F2, _##name)
#define FN6(name) G16_CAT(F6, _##name)
#define FN12(name) G16_CAT(F12, _##name)
#define TC(name) G16_CAT(T_UP, _##name)

/* Karatsuba: t0 = a0 b0, t1 = a1 b1,
 *   c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1. */
void FN12(mul)(F12 *r, const F12 *a, const F12 *b) {
    F6 t0, t1, s, u;
    FN6(mul)(&t0, &a->c0, &b->c0);
    FN6(mul)(&t1, &a->c1, &b->c1);
    FN6(add)(&s, &a->c0, &a->c1);
    FN6(add)(&u, &b->c0, &b->c1);
    FN6(mul)(&s, &s, &u);
    FN6(sub)(&s, &s, &t0);
    FN6(sub)(&r->c1, &s, &t1);
    FN6(mul_by_v)(&t1, &t1);
    FN6(add)(&r->c0, &t0, &t1);
}

/* Complex squaring: t = a0 a1,
 *   c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2t. */
void FN12(sqr)(F12 *r, const F12 *a) {
    F6 t, s, u;
    FN6(mul)(&t, &a->c0, &a->c1);
    FN6(add)(&s, &a->c0, &a->c1);
    FN6(mul_by_v)(&u, &a->c1);
    FN6(add)(&u, &u, &a->c0);
    FN6(mul)(&s, &s, &u);
    FN6(sub)(&s, &s, &t);
    FN6(mul_by_v)(&u, &t);
    FN6(sub)(&r->c0, &s, &u);
    FN6(dbl)(&r->c1, &t);
}

void FN12(inv)(F12 *r, const F12 *a) {
    F6 t0, t1;
    FN6(sqr)(&t0, &a->c0);
    FN6(sqr)(&t1, &a->c1);
    FN6(mul_by_v)(&t1, &t1);
    FN6(sub)(&t0, &t0, &t1); /* norm to Fp6: a0^2 - v a1^2 */
    FN6(inv)(&t0, &t0);
    FN6(mul)(&r->c0, &a->c0, &t0);
    FN6(mul)(&t1, &a->c1, &t0);
    FN6(neg)(&r->c1, &t1);
}

/* b = B0 + B1 w with B0 = b0 (in Fp2), B1 = b3 + b4 v:
 *   t0 = a0 b0 (3M2), t1 = a1 B1 (5M2),
 *   c1 = (a0 + a1)(b0 + b3 + b4 v) - t0 - t1 (5M2), c0 = t0 + v t1. */
void FN12(mul_by_034)(F12 *r, const F12 *a, const F2 *b0, const F2 *b3, const F2 *b4) {
    F6 t0, t1, s;
    F2 u;
    FN6(mul_by_fp2)(&t0, &a->c0, b0);
    FN6(mul_by_01)(&t1, &a->c1, b3, b4);
    FN6(add)(&s, &a->c0, &a->c1);
    FN2(add)(&u, b0, b3);
    FN6(mul_by_01)(&s, &s, &u, b4);
    FN6(sub)(&s, &s, &t0);
    FN6(sub)(&r->c1, &s, &t1);
    FN6(mul_by_v)(&t1, &t1);
    FN6(add)(&r->c0, &t0, &t1);
}

/* b = B0 + B1 w with B0 = b0 + b1 v, B1 = b4 v:
 *   t0 = a0 B0 (5M2), t1 = a1 B1 (3M2),
 *   c1 = (a0 + a1)(b0 + (b1 + b4) v) - t0 - t1 (5M2), c0 = t0 + v t1. */
void FN12(mul_by_014)(F12 *r, const F12 *a, const F2 *b0, const F2 *b1, const F2 *b4) {
    F6 t0, t1, s;
    F2 u;
    FN6(mul_by_01)(&t0, &a->c0, b0, b1);
    FN6(mul_by_1)(&t1, &a->c1, b4);
    FN6(add)(&s, &a->c0, &a->c1);
    FN2(add)(&u, b1, b4);
    FN6(mul_by_01)(&s, &s, b0, &u);
    FN6(sub)(&s, &s, &t0);
    FN6(sub)(&r->c1, &s, &t1);
    FN6(mul_by_v)(&t1, &t1);
    FN6(add)(&r->c0, &t0, &t1);
}

/* c0 holds g_0, g_2, g_4 (the Fp6 Frobenius); c1 holds g_1, g_3, g_5, each
 * times gamma_{k,i} = xi^(i(p^k - 1)/6) after conjugation for odd k. */
static void FN12(frobenius_)(F12 *r, const F12 *a, int k);
void FN12(frobenius)(F12 *r, const F12 *a, int k) {
    k %= 12; /* the map has order 12 on Fp12 */
    if (k < 0)
        k += 12;
    *r = *a;
    while (k > 3) {
        FN12(frobenius_)(r, r, 3);
        k -= 3;
    }
    if (k > 0)
        FN12(frobenius_)(r, r, k);
}

static void FN12(frobenius_)(F12 *r, const F12 *a, int k) {
    static const F2 g[3][3] = {
        {TC(FROB1_1), TC(FROB1_3), TC(FROB1_5)},
        {TC(FROB2_1), TC(FROB2_3), TC(FROB2_5)},
        {TC(FROB3_1), TC(FROB3_3), TC(FROB3_5)},
    };
    F6 c1 = a->c1;
    FN6(frobenius_)(&r->c0, &a->c0, k);
    if (k & 1) { /* public k */
        FN2(conj)(&c1.c0, &c1.c0);
        FN2(conj)(&c1.c1, &c1.c1);
        FN2(conj)(&c1.c2, &c1.c2);
    }
    if (k == 2) {
        FN2(mul_fp)(&r->c1.c0, &c1.c0, &g[1][0].c0);
        FN2(mul_fp)(&r->c1.c1, &c1.c1, &g[1][1].c0);
        FN2(mul_fp)(&r->c1.c2, &c1.c2, &g[1][2].c0);
    } else {
        FN2(mul)(&r->c1.c0, &c1.c0, &g[k - 1][0]);
        FN2(mul)(&r->c1.c1, &c1.c1, &g[k - 1][1]);
        FN2(mul)(&r->c1.c2, &c1.c2, &g[k - 1][2]);
    }
}

/* Squaring in Fp4 = Fp2[s]/(s^2 - xi): (a + b s)^2 = (a^2 + xi b^2) + 2ab s,
 * 3S2 with 2ab = (a + b)^2 - a^2 - b^2. */
static inline void FN12(fp4_sqr_)(F2 *r0, F2 *r1, const F2 *a, const F2 *b) {
    F2 t0, t1, t2;
    FN2(sqr)(&t0, a);
    FN2(sqr)(&t1, b);
    FN2(add)(&t2, a, b);
    FN2(sqr)(&t2, &t2);
    FN2(sub)(&t2, &t2, &t0);
    FN2(sub)(r1, &t2, &t1);
    FN2(mul_by_xi)(&t1, &t1);
    FN2(add)(r0, &t0, &t1);
}

/* Granger-Scott: view Fp12 = Fp4[w]/(w^3 - s), s = w^3, element
 * A + B w + C w^2 with A = g0 + g3 s, B = g1 + g4 s, C = g2 + g5 s. On the
 * cyclotomic subgroup
 *   (A + B w + C w^2)^2 = (3A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w
 *                         + (3B^2 - 2 conj(C)) w^2,
 * conj(x + y s) = x - y s. */
void FN12(cyclotomic_sqr)(F12 *r, const F12 *a) {
    F2 a0, a1, b0, b1, c0, c1, t;
    FN12(fp4_sqr_)(&a0, &a1, &a->c0.c0, &a->c1.c1); /* A^2 */
    FN12(fp4_sqr_)(&b0, &b1, &a->c1.c0, &a->c0.c2); /* B^2 */
    FN12(fp4_sqr_)(&c0, &c1, &a->c0.c1, &a->c1.c2); /* C^2 */

    /* g0' = 3 A^2_0 - 2 g0, g3' = 3 A^2_1 + 2 g3 */
    FN2(sub)(&t, &a0, &a->c0.c0);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c0.c0, &t, &a0);
    FN2(add)(&t, &a1, &a->c1.c1);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c1.c1, &t, &a1);

    /* s C^2 = xi C^2_1 + C^2_0 s:
     * g1' = 3 xi C^2_1 + 2 g1, g4' = 3 C^2_0 - 2 g4 */
    FN2(mul_by_xi)(&c1, &c1);
    FN2(add)(&t, &c1, &a->c1.c0);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c1.c0, &t, &c1);
    FN2(sub)(&t, &c0, &a->c0.c2);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c0.c2, &t, &c0);

    /* g2' = 3 B^2_0 - 2 g2, g5' = 3 B^2_1 + 2 g5 */
    FN2(sub)(&t, &b0, &a->c0.c1);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c0.c1, &t, &b0);
    FN2(add)(&t, &b1, &a->c1.c2);
    FN2(dbl)(&t, &t);
    FN2(add)(&r->c1.c2, &t, &b1);
}

/* Signed sliding window of width 3 over the public signed digits of |x|
 * (Cohen, Frey et al., Handbook of Elliptic and Hyperelliptic Curve
 * Cryptography, alg. 9.10, on a NAF): windows start and end at nonzero digits,
 * so their values are odd, and |value| <= 7. A negative window multiplies by
 * the conjugate, the inverse on the cyclotomic subgroup. BN254's x (NAF, 24
 * nonzero digits) takes 16 multiplications instead of 23; BLS12-381's sparse
 * x is unchanged at 5. */
#define TOWER_EXP_W 3
void FN12(cyclotomic_exp_x)(F12 *r, const F12 *a) {
    static const char d[] = TC(X_DIGITS);
    const size_t nd = sizeof d - 1;
    F12 tab[4], a2, acc, t; /* tab[k] = a^(2k+1) */
    int maxv = 1, first = 1;
    for (size_t i = 0; i < nd;) { /* pass 1: the largest window value */
        if (d[i] == '0') {
            i++;
            continue;
        }
        size_t j = i + TOWER_EXP_W < nd ? i + TOWER_EXP_W : nd;
        while (d[j - 1] == '0')
            j--;
        int v = 0;
        for (size_t k = i; k < j; k++)
            v = 2 * v + (d[k] == '+') - (d[k] == '-');
        if ((v < 0 ? -v : v) > maxv)
            maxv = v < 0 ? -v : v;
        i = j;
    }
    tab[0] = *a;
    if (maxv > 1) {
        FN12(cyclotomic_sqr)(&a2, a);
        for (int k = 1; 2 * k + 1 <= maxv; k++)
            FN12(mul)(&tab[k], &tab[k - 1], &a2);
    }
    FN12(set_one)(&acc);
    for (size_t i = 0; i < nd;) { /* pass 2 */
        if (d[i] == '0') {
            if (!first)
                FN12(cyclotomic_sqr)(&acc, &acc);
            i++;
            continue;
        }
        size_t j = i + TOWER_EXP_W < nd ? i + TOWER_EXP_W : nd;
        while (d[j - 1] == '0')
            j--;
        int v = 0;
        for (size_t k = i; k < j; k++)
            v = 2 * v + (d[k] == '+') - (d[k] == '-');
        const F12 *e = &tab[(v < 0 ? -v : v) / 2];
        if (v < 0) {
            FN12(conj)(&t, e);
            e = &t;
        }
        if (first) {
            acc = *e;
            first = 0;
        } else {
            for (size_t k = i; k < j; k++)
                FN12(cyclotomic_sqr)(&acc, &acc);
            FN12(mul)(&acc, &acc, e);
        }
        i = j;
    }
    *r = acc;
}
#undef TOWER_EXP_W

void FN12(pow)(F12 *r, const F12 *a, const limb_t *e, size_t en) {
    F12 acc, t;
    FN12(set_one)(&acc);
    for (size_t i = en * 64; i-- > 0;) {
        FN12(sqr)(&acc, &acc);
        FN12(mul)(&t, &acc, a);
        FN12(cmov)(&acc, &t, (int)((e[i / 64] >> (i % 64)) & 1));
    }
    *r = acc;
}

void FN12(random)(F12 *r, g16_rng *rng) {
    FN6(random)(&r->c0, rng);
    FN6(random)(&r->c1, rng);
}

#undef FN2
#undef FN6
#undef FN12
#undef TC
