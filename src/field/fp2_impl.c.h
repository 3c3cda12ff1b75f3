/* Template: non-inline Fp2 operations (see fp2_impl.h). Needs F2, F, F_UP. */

#define FN2(name) G16_CAT(F2, _##name)
#define FB(name) G16_CAT(F, _##name)
#define FC(name) G16_CAT(F_UP, _##name)

void FN2(inv)(F2 *r, const F2 *a) {
    F t0, t1;
    FB(sqr)(&t0, &a->c0);
    FB(sqr)(&t1, &a->c1);
    FB(add)(&t0, &t0, &t1); /* norm a0^2 + a1^2 (u^2 = -1) */
    FB(inv)(&t0, &t0);
    FB(mul)(&r->c0, &a->c0, &t0);
    FB(mul)(&t1, &a->c1, &t0);
    FB(neg)(&r->c1, &t1);
}

void FN2(pow)(F2 *r, const F2 *a, const limb_t *e, size_t en) {
    F2 acc, base = *a;
    FN2(set_one)(&acc);
    for (size_t i = en * 64; i-- > 0;) {
        FN2(sqr)(&acc, &acc);
        F2 t;
        FN2(mul)(&t, &acc, &base);
        FN2(cmov)(&acc, &t, (int)((e[i / 64] >> (i % 64)) & 1));
    }
    *r = acc;
}

int FN2(sqrt_vartime)(F2 *r, const F2 *a) {
    static const limb_t e1[] = FC(P_MINUS_3_QUARTER);
    static const limb_t e2[] = FC(P_MINUS_1_HALF);
    const size_t n = sizeof e1 / sizeof e1[0];
    F2 a1, alpha, x0, a0, minus_one, t;
    if (FN2(is_zero)(a)) {
        FN2(set_zero)(r);
        return 1;
    }
    FN2(pow)(&a1, a, e1, n);        /* a1 = a^((p-3)/4) */
    FN2(mul)(&alpha, &a1, a);
    FN2(mul)(&alpha, &alpha, &a1);  /* alpha = a1^2 a */
    FN2(conj)(&a0, &alpha);
    FN2(mul)(&a0, &a0, &alpha);     /* a0 = alpha^(p+1), the norm */
    FN2(set_one)(&minus_one);
    FN2(neg)(&minus_one, &minus_one);
    if (FN2(eq)(&a0, &minus_one))
        return 0;
    FN2(mul)(&x0, &a1, a);
    if (FN2(eq)(&alpha, &minus_one)) { /* x = u * x0 */
        t.c0 = x0.c1;
        FB(neg)(&t.c0, &t.c0);
        t.c1 = x0.c0;
    } else {
        F2 b;
        FN2(set_one)(&b);
        FN2(add)(&b, &b, &alpha);
        FN2(pow)(&b, &b, e2, n);      /* (1 + alpha)^((p-1)/2) */
        FN2(mul)(&t, &b, &x0);
    }
    F2 chk;
    FN2(sqr)(&chk, &t);
    if (!FN2(eq)(&chk, a))
        return 0;
    *r = t;
    return 1;
}

void FN2(random)(F2 *r, g16_rng *rng) {
    FB(random)(&r->c0, rng);
    FB(random)(&r->c1, rng);
}

#undef FN2
#undef FB
#undef FC
