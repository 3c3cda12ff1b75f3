/* Template: optimal ate pairing for one curve. Included by pairing.c with
 *   C       prefix (bn254, bls381)
 *   F, F2, F12  field types; T_UP constant prefix (tower_constants.h)
 *   TWIST_D 1 for a D-type twist (BN254), 0 for M-type (BLS12-381)
 *   PAIRING_BN  defined for BN curves (extra Frobenius lines, BN hard part)
 * and a function C##_mul_by_3b_(F2 *r, const F2 *a): r = 3b' a.
 *
 * G2 accumulator T = (X : Y : Z) in homogeneous projective coordinates on the
 * twist E': y^2 = x^3 + b', line formulas of Costello, Lange, Naehrig
 * ("Faster pairing computations on curves with high-degree twists", PKC 2010)
 * as written by Aranha, Karabina, Longa, Gebotys, Lopez ("Faster explicit
 * formulas for computing pairings over ordinary curves", EUROCRYPT 2011,
 * eq. (11) doubling and (13) mixed addition).
 *
 * Line values: a line is a + b w^j + c w^k, stored as (a, b, c) with b, c
 * already multiplied by the G1 point's coordinates. With P = (xP, yP):
 *   doubling:  a = Y^2 - 3b'Z^2, b = -3X^2 xP, c = 2YZ yP
 *   addition:  a = theta x2 - lambda y2, b = -theta xP, c = lambda yP
 * D-type (untwist (x, y) -> (x w^2, y w^3)): l = c + b w + a w^3, slots 0,3,4
 * M-type (untwist (x, y) -> (x w^-2, y w^-3), times w^3): l = a + b w^2 + c w^3,
 * slots 0,1,4. Each line is defined up to a factor in a proper subfield of
 * Fp12 (Fp2, and w^3 in Fp4), which the final exponentiation removes. */

#define CN(name) G16_CAT(C, _##name)
#define FB(name) G16_CAT(F, _##name)
#define FN2(name) G16_CAT(F2, _##name)
#define FN12(name) G16_CAT(F12, _##name)
#define TC(name) G16_CAT(T_UP, _##name)

typedef struct CN(g2_proj_) {
    F2 x, y, z;
} CN(g2_proj_);

typedef struct CN(line_) {
    F2 a, b, c;
} CN(line_);

/* Per-pair state of the Miller loop. */
typedef struct CN(pair_state_) {
    CN(g2_proj_) t;
    F2 qx, qy, nqy; /* Q and -Q's y */
    F nx, nx3, y;   /* -xP, -3xP, yP */
} CN(pair_state_);

/* Doubling step (Aranha et al. 2011, eq. (11)): 3M2 + 6S2 + mul by 3b'
 *   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B + F)/2,
 *   H = (Y + Z)^2 - (B + C), I = E - B, J = X^2
 *   X3 = A(B - F), Y3 = G^2 - 3E^2, Z3 = BH
 * line (negated, a subfield factor): a = -I = B - E, b = J(-3xP), c = H yP. */
static void CN(dbl_step_)(CN(g2_proj_) *t, CN(line_) *l, const F *nx3, const F *y) {
    F2 A, B, Cc, E, Ff, G, H, J, s;
    FN2(mul)(&A, &t->x, &t->y);
    FN2(half)(&A, &A);
    FN2(sqr)(&B, &t->y);
    FN2(sqr)(&Cc, &t->z);
    CN(mul_by_3b_)(&E, &Cc);
    FN2(dbl)(&Ff, &E);
    FN2(add)(&Ff, &Ff, &E);
    FN2(add)(&G, &B, &Ff);
    FN2(half)(&G, &G);
    FN2(add)(&H, &t->y, &t->z);
    FN2(sqr)(&H, &H);
    FN2(add)(&s, &B, &Cc);
    FN2(sub)(&H, &H, &s);
    FN2(sqr)(&J, &t->x);

    FN2(sub)(&l->a, &B, &E);
    FN2(mul_fp)(&l->b, &J, nx3);
    FN2(mul_fp)(&l->c, &H, y);

    FN2(sub)(&s, &B, &Ff);
    FN2(mul)(&t->x, &A, &s);
    FN2(sqr)(&E, &E);
    FN2(dbl)(&s, &E);
    FN2(add)(&s, &s, &E); /* 3E^2 */
    FN2(sqr)(&G, &G);
    FN2(sub)(&t->y, &G, &s);
    FN2(mul)(&t->z, &B, &H);
}

/* Mixed addition step T + (x2, y2) (Aranha et al. 2011, eq. (13)): 11M2 + 2S2
 *   theta = Y - y2 Z, lambda = X - x2 Z, C = theta^2, D = lambda^2,
 *   E = lambda D, F = Z C, G = X D, H = E + F - 2G,
 *   X3 = lambda H, Y3 = theta(G - H) - Y E, Z3 = Z E
 * line: a = theta x2 - lambda y2, b = theta(-xP), c = lambda yP.
 * Requires T != +-(x2, y2) as points, which holds inside the Miller loop for
 * points of prime order r. */
static void CN(add_step_)(CN(g2_proj_) *t, CN(line_) *l, const F2 *x2, const F2 *y2, const F *nx,
                          const F *y) {
    F2 th, la, Cc, D, E, Ff, G, H, s;
    FN2(mul)(&s, y2, &t->z);
    FN2(sub)(&th, &t->y, &s);
    FN2(mul)(&s, x2, &t->z);
    FN2(sub)(&la, &t->x, &s);

    FN2(mul)(&l->a, &th, x2);
    FN2(mul)(&s, &la, y2);
    FN2(sub)(&l->a, &l->a, &s);
    FN2(mul_fp)(&l->b, &th, nx);
    FN2(mul_fp)(&l->c, &la, y);

    FN2(sqr)(&Cc, &th);
    FN2(sqr)(&D, &la);
    FN2(mul)(&E, &la, &D);
    FN2(mul)(&Ff, &t->z, &Cc);
    FN2(mul)(&G, &t->x, &D);
    FN2(dbl)(&s, &G);
    FN2(add)(&H, &E, &Ff);
    FN2(sub)(&H, &H, &s);
    FN2(mul)(&t->x, &la, &H);
    FN2(sub)(&s, &G, &H);
    FN2(mul)(&s, &th, &s);
    FN2(mul)(&G, &t->y, &E); /* G no longer needed */
    FN2(sub)(&t->y, &s, &G);
    FN2(mul)(&t->z, &t->z, &E);
}

static inline void CN(line_mul_)(F12 *f, const CN(line_) *l) {
#if TWIST_D
    FN12(mul_by_034)(f, f, &l->c, &l->b, &l->a);
#else
    FN12(mul_by_014)(f, f, &l->a, &l->b, &l->c);
#endif
}

static int CN(g1_inf_)(const CN(g1_affine) *p) { return FB(is_zero)(&p->x) & FB(is_zero)(&p->y); }
static int CN(g2_inf_)(const CN(g2_affine) *q) { return FN2(is_zero)(&q->x) & FN2(is_zero)(&q->y); }

/* Miller loop over m pairs sharing the squarings of f. */
static void CN(miller_chunk_)(F12 *out, CN(pair_state_) *st, size_t m) {
    static const char digits[] = TC(ATE_DIGITS);
    CN(line_) l;
    F12 f;
    FN12(set_one)(&f);
    for (size_t i = 1; i + 1 < sizeof digits; i++) {
        if (i > 1)
            FN12(sqr)(&f, &f);
        for (size_t j = 0; j < m; j++) {
            CN(dbl_step_)(&st[j].t, &l, &st[j].nx3, &st[j].y);
            CN(line_mul_)(&f, &l);
        }
        if (digits[i] != '0') { /* public loop digits */
            for (size_t j = 0; j < m; j++) {
                CN(add_step_)(&st[j].t, &l, &st[j].qx, digits[i] == '+' ? &st[j].qy : &st[j].nqy,
                              &st[j].nx, &st[j].y);
                CN(line_mul_)(&f, &l);
            }
        }
    }
#ifdef PAIRING_BN
    /* BN optimal ate (Vercauteren 2010): times l_{T,Q1} l_{T+Q1,-Q2} with
     * Q1 = pi(Q), Q2 = pi^2(Q), pi the p-power Frobenius carried to the twist:
     * pi(x, y) = (conj(x) gamma_{1,2}, conj(y) gamma_{1,3}),
     * pi^2(x, y) = (x gamma_{2,2}, y gamma_{2,3}). */
    static const F2 g12 = TC(FROB1_2), g13 = TC(FROB1_3), g22 = TC(FROB2_2), g23 = TC(FROB2_3);
    for (size_t j = 0; j < m; j++) {
        F2 x1, y1, x2, y2;
        FN2(conj)(&x1, &st[j].qx);
        FN2(mul)(&x1, &x1, &g12);
        FN2(conj)(&y1, &st[j].qy);
        FN2(mul)(&y1, &y1, &g13);
        FN2(mul_fp)(&x2, &st[j].qx, &g22.c0);
        FN2(mul_fp)(&y2, &st[j].nqy, &g23.c0);
        CN(add_step_)(&st[j].t, &l, &x1, &y1, &st[j].nx, &st[j].y);
        CN(line_mul_)(&f, &l);
        CN(add_step_)(&st[j].t, &l, &x2, &y2, &st[j].nx, &st[j].y);
        CN(line_mul_)(&f, &l);
    }
#endif
    *out = f;
}

#define PAIRING_CHUNK 8

void CN(miller_loop)(F12 *out, const CN(g1_affine) *p, const CN(g2_affine) *q, size_t n) {
    CN(pair_state_) st[PAIRING_CHUNK];
    F12 f, g;
    FN12(set_one)(&f);
    size_t i = 0;
    while (i < n) {
        size_t m = 0;
        for (; i < n && m < PAIRING_CHUNK; i++) {
            /* infinity contributes 1 (public data) */
            if (CN(g1_inf_)(&p[i]) || CN(g2_inf_)(&q[i]))
                continue;
            CN(pair_state_) *s = &st[m++];
            s->qx = q[i].x;
            s->qy = q[i].y;
            FN2(neg)(&s->nqy, &q[i].y);
            s->t.x = q[i].x;
            s->t.y = q[i].y;
            FN2(set_one)(&s->t.z);
            FB(neg)(&s->nx, &p[i].x);
            FB(dbl)(&s->nx3, &s->nx);
            FB(add)(&s->nx3, &s->nx3, &s->nx);
            s->y = p[i].y;
        }
        if (m == 0)
            break;
        CN(miller_chunk_)(&g, st, m);
        FN12(mul)(&f, &f, &g);
    }
    /* x < 0: f_{x,Q} = 1/f_{|x|,Q} up to vertical lines, and conj is the
     * inverse once the easy part of the final exponentiation is applied. */
    if (TC(X_NEGATIVE))
        FN12(conj)(&f, &f);
    *out = f;
}

/* y^x for y in the cyclotomic subgroup (conjugating for x < 0). */
static void CN(exp_x_)(F12 *r, const F12 *y) {
    FN12(cyclotomic_exp_x)(r, y);
    if (TC(X_NEGATIVE))
        FN12(conj)(r, r);
}

void CN(final_exp)(F12 *out, const F12 *f) {
    F12 t, u;
    /* Easy part: t = f^((p^6 - 1)(p^2 + 1)); afterwards t is in the
     * cyclotomic subgroup, where conj is the inverse. */
    FN12(inv)(&u, f);
    FN12(conj)(&t, f);
    FN12(mul)(&t, &t, &u);
    FN12(frobenius)(&u, &t, 2);
    FN12(mul)(&t, &t, &u);
#ifdef PAIRING_BN
    /* Hard part, Fuentes-Castaneda, Knapp, Rodriguez-Henriquez ("Faster
     * hashing to G2", SAC 2011, section 6): t^(m (p^4 - p^2 + 1)/r),
     * m = 2x(6x^2 + 3x + 1), equals t^(l0 + l1 p + l2 p^2 + l3 p^3) with
     *   l0 = 1 + 6x + 12x^2 + 12x^3, l1 = 4x + 6x^2 + 12x^3,
     *   l2 = 6x + 6x^2 + 12x^3,      l3 = -1 + 4x + 6x^2 + 12x^3.
     * (Asserted in scripts/gen_tower_constants.py, check_final_exp, and
     * checked against the noble vectors.) 3 exponentiations by x. */
    F12 a, b, c, a2, a4, b2, b6, c12, T0, T1, T2, T3;
    CN(exp_x_)(&a, &t); /* t^x */
    CN(exp_x_)(&b, &a); /* t^(x^2) */
    CN(exp_x_)(&c, &b); /* t^(x^3) */
    FN12(cyclotomic_sqr)(&a2, &a);
    FN12(cyclotomic_sqr)(&a4, &a2);
    FN12(cyclotomic_sqr)(&b2, &b);
    FN12(cyclotomic_sqr)(&b6, &b2);
    FN12(mul)(&b6, &b6, &b2);      /* t^(6x^2) */
    FN12(cyclotomic_sqr)(&c12, &c);
    FN12(mul)(&c12, &c12, &c);
    FN12(cyclotomic_sqr)(&c12, &c12);
    FN12(cyclotomic_sqr)(&c12, &c12); /* t^(12x^3) */
    FN12(mul)(&T1, &a4, &b6);
    FN12(mul)(&T1, &T1, &c12);     /* l1 */
    FN12(mul)(&T2, &T1, &a2);      /* l2 */
    FN12(mul)(&T0, &T2, &b6);
    FN12(mul)(&T0, &T0, &t);       /* l0 */
    FN12(conj)(&u, &t);
    FN12(mul)(&T3, &T1, &u);       /* l3 */
    FN12(frobenius)(&T1, &T1, 1);
    FN12(frobenius)(&T2, &T2, 2);
    FN12(frobenius)(&T3, &T3, 3);
    FN12(mul)(&T0, &T0, &T1);
    FN12(mul)(&T0, &T0, &T2);
    FN12(mul)(out, &T0, &T3);
#else
    /* Hard part, Hayashida, Hayasaka, Teruya ("Efficient final
     * exponentiation via cyclotomic structure for pairings over families of
     * elliptic curves", 2020): 3 (p^4 - p^2 + 1)/r
     *   = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 (asserted in
     * scripts/gen_tower_constants.py). 5 exponentiations by x. */
    F12 a, b, c;
    CN(exp_x_)(&a, &t);
    FN12(conj)(&u, &t);
    FN12(mul)(&a, &a, &u);         /* t^(x-1) */
    CN(exp_x_)(&b, &a);
    FN12(conj)(&u, &a);
    FN12(mul)(&a, &b, &u);         /* t^((x-1)^2) */
    CN(exp_x_)(&b, &a);
    FN12(frobenius)(&u, &a, 1);
    FN12(mul)(&b, &b, &u);         /* a^(x+p) */
    CN(exp_x_)(&c, &b);
    CN(exp_x_)(&c, &c);
    FN12(frobenius)(&u, &b, 2);
    FN12(mul)(&c, &c, &u);
    FN12(conj)(&u, &b);
    FN12(mul)(&c, &c, &u);         /* b^(x^2 + p^2 - 1) */
    FN12(cyclotomic_sqr)(&u, &t);
    FN12(mul)(&u, &u, &t);         /* t^3 */
    FN12(mul)(out, &c, &u);
#endif
}

void CN(pairing)(F12 *out, const CN(g1_affine) *p, const CN(g2_affine) *q) {
    F12 f;
    CN(miller_loop)(&f, p, q, 1);
    CN(final_exp)(out, &f);
}

void CN(multi_pairing)(F12 *out, const CN(g1_affine) *p, const CN(g2_affine) *q, size_t n) {
    F12 f;
    CN(miller_loop)(&f, p, q, n);
    CN(final_exp)(out, &f);
}

#undef CN
#undef FB
#undef FN2
#undef FN12
#undef TC
#undef PAIRING_CHUNK
