/* Template: the group law of one short-Weierstrass curve y^2 = x^3 + b
 * (a = 0) over a field E (Fp or Fp2). Included by curve.c once per group
 * with these macros defined:
 *   G        group prefix (e.g. bn254_g1); types G_affine, G_jac, G_xyzz
 *   E        coordinate field type/prefix (bn254_fp, bn254_fp2, ...)
 *   G_B      initializer of b (Montgomery form)
 *   G_GX/GY  initializers of the generator's coordinates
 *   G_ORDER  limb initializer of the group order r (4 limbs)
 *   E_BYTES  bytes of one coordinate in the .zkey layout (n8 * degree)
 *   E_READ   int E_READ(E *r, const uint8_t *b): raw little-endian
 *            Montgomery limbs, returns 0 if not below p (non-canonical)
 *   E_WRITE  void E_WRITE(uint8_t *b, const E *a)
 *   E_SQRT   int E_SQRT(E *r, const E *a): a square root, 0 if none
 * Formula names refer to the Explicit-Formulas Database (EFD,
 * hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html and
 * auto-shortw-xyzz.html); costs count field M(ultiplications) and
 * S(quarings) of E.
 *
 * Constant time: every function without _vartime runs the same sequence of
 * field operations whatever the inputs; exceptional cases (infinity, P == Q,
 * P == -Q) are handled by computing the alternatives and selecting with
 * cmov. The _vartime variants branch on the points (public data only). */

#define GN(name) G16_CAT(G, _##name)
#define EF(name) G16_CAT(E, _##name)
#define GA GN(affine)
#define GJ GN(jac)
#define GX GN(xyzz)

static const E GN(b_) = G_B;

/* ---- small helpers ------------------------------------------------------ */
static inline void GN(jac_cmov)(GJ *r, const GJ *a, int flag) {
    EF(cmov)(&r->x, &a->x, flag);
    EF(cmov)(&r->y, &a->y, flag);
    EF(cmov)(&r->z, &a->z, flag);
}
static inline void GN(xyzz_cmov)(GX *r, const GX *a, int flag) {
    EF(cmov)(&r->x, &a->x, flag);
    EF(cmov)(&r->y, &a->y, flag);
    EF(cmov)(&r->zz, &a->zz, flag);
    EF(cmov)(&r->zzz, &a->zzz, flag);
}
static inline void GN(e_mul3)(E *r, const E *a) { /* r = 3a */
    E t;
    EF(dbl)(&t, a);
    EF(add)(r, &t, a);
}

void GN(generator)(GA *r) {
    static const GA g = {G_GX, G_GY};
    *r = g;
}

/* ---- affine ------------------------------------------------------------- */
int GN(affine_is_inf)(const GA *p) { return EF(is_zero)(&p->x) & EF(is_zero)(&p->y); }
void GN(affine_set_inf)(GA *p) {
    EF(set_zero)(&p->x);
    EF(set_zero)(&p->y);
}
int GN(affine_eq)(const GA *a, const GA *b) { return EF(eq)(&a->x, &b->x) & EF(eq)(&a->y, &b->y); }
void GN(affine_neg)(GA *r, const GA *p) { /* -(0,0) = (0,0) since neg(0) = 0 */
    r->x = p->x;
    EF(neg)(&r->y, &p->y);
}
int GN(affine_is_on_curve)(const GA *p) {
    E l, t;
    EF(sqr)(&l, &p->y);
    EF(sqr)(&t, &p->x);
    EF(mul)(&t, &t, &p->x);
    EF(add)(&t, &t, &GN(b_));
    return EF(eq)(&l, &t) | GN(affine_is_inf)(p);
}

/* Sets r = (x, y) with y^2 = x^3 + b for one of the two roots y (which one
 * is up to E_SQRT); returns 0 (r untouched) if x^3 + b is not a square.
 * Variable time: used on public encodings and in tests. */
int GN(affine_from_x_vartime)(GA *r, const E *x) {
    E t, y;
    EF(sqr)(&t, x);
    EF(mul)(&t, &t, x);
    EF(add)(&t, &t, &GN(b_));
    if (!E_SQRT(&y, &t))
        return 0;
    r->x = *x;
    r->y = y;
    return 1;
}

/* ---- Jacobian ----------------------------------------------------------- */
void GN(jac_set_inf)(GJ *r) {
    EF(set_one)(&r->x);
    EF(set_one)(&r->y);
    EF(set_zero)(&r->z);
}
int GN(jac_is_inf)(const GJ *p) { return EF(is_zero)(&p->z); }
void GN(jac_from_affine)(GJ *r, const GA *p) {
    E zero;
    int inf = GN(affine_is_inf)(p);
    EF(set_zero)(&zero);
    r->x = p->x;
    r->y = p->y;
    EF(set_one)(&r->z);
    EF(cmov)(&r->x, &r->z, inf); /* infinity as (1, 1, 0) */
    EF(cmov)(&r->y, &r->z, inf);
    EF(cmov)(&r->z, &zero, inf);
}
/* (X/Z^2, Y/Z^3); Z = 0 gives inv(0) = 0 and so (0, 0), the affine infinity. */
void GN(jac_to_affine)(GA *r, const GJ *p) {
    E zi, zi2, zi3;
    EF(inv)(&zi, &p->z);
    EF(sqr)(&zi2, &zi);
    EF(mul)(&zi3, &zi2, &zi);
    EF(mul)(&r->x, &p->x, &zi2);
    EF(mul)(&r->y, &p->y, &zi3);
}
/* Montgomery's trick: prefix products of the Z's (zeros counted as 1), one
 * inversion, then a backward pass; 3(n-1) M + 1 inversion for the Z's. */
void GN(jac_batch_to_affine)(GA *r, const GJ *p, size_t n, E *scratch) {
    if (n == 0)
        return;
    E acc, one, zi, zi2, z;
    EF(set_one)(&one);
    EF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        z = p[i].z;
        EF(cmov)(&z, &one, EF(is_zero)(&z));
        EF(mul)(&acc, &acc, &z);
    }
    EF(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        int inf = EF(is_zero)(&p[i].z);
        z = p[i].z;
        EF(cmov)(&z, &one, inf);
        EF(mul)(&zi, &acc, &scratch[i]); /* 1/Z_i */
        EF(mul)(&acc, &acc, &z);
        EF(sqr)(&zi2, &zi);
        EF(mul)(&r[i].x, &p[i].x, &zi2);
        EF(mul)(&zi2, &zi2, &zi);
        EF(mul)(&r[i].y, &p[i].y, &zi2);
        GA inf_pt;
        GN(affine_set_inf)(&inf_pt);
        EF(cmov)(&r[i].x, &inf_pt.x, inf);
        EF(cmov)(&r[i].y, &inf_pt.y, inf);
    }
}
/* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3, or both at infinity. */
int GN(jac_eq)(const GJ *a, const GJ *b) {
    E z1z1, z2z2, u1, u2, s1, s2;
    EF(sqr)(&z1z1, &a->z);
    EF(sqr)(&z2z2, &b->z);
    EF(mul)(&u1, &a->x, &z2z2);
    EF(mul)(&u2, &b->x, &z1z1);
    EF(mul)(&s1, &a->y, &z2z2);
    EF(mul)(&s1, &s1, &b->z);
    EF(mul)(&s2, &b->y, &z1z1);
    EF(mul)(&s2, &s2, &a->z);
    int ia = GN(jac_is_inf)(a), ib = GN(jac_is_inf)(b);
    return (ia & ib) | (((ia | ib) ^ 1) & EF(eq)(&u1, &u2) & EF(eq)(&s1, &s2));
}
void GN(jac_neg)(GJ *r, const GJ *p) {
    r->x = p->x;
    EF(neg)(&r->y, &p->y);
    r->z = p->z;
}
/* dbl-2009-l (a = 0), 2M + 5S:
 *   A = X1^2, B = Y1^2, C = B^2, D = 2((X1+B)^2 - A - C), E = 3A, F = E^2,
 *   X3 = F - 2D, Y3 = E(D - X3) - 8C, Z3 = 2 Y1 Z1.
 * Infinity (Z1 = 0) maps to Z3 = 0; so does a point with Y1 = 0 (order 2). */
void GN(jac_dbl)(GJ *r, const GJ *p) {
    E A, B, C, D, Ee, Ff, t;
    EF(sqr)(&A, &p->x);
    EF(sqr)(&B, &p->y);
    EF(sqr)(&C, &B);
    EF(add)(&t, &p->x, &B);
    EF(sqr)(&t, &t);
    EF(sub)(&t, &t, &A);
    EF(sub)(&t, &t, &C);
    EF(dbl)(&D, &t);
    GN(e_mul3)(&Ee, &A);
    EF(sqr)(&Ff, &Ee);
    EF(mul)(&r->z, &p->y, &p->z); /* before X3/Y3: r may alias p */
    EF(dbl)(&r->z, &r->z);
    EF(dbl)(&t, &D);
    EF(sub)(&r->x, &Ff, &t);
    EF(sub)(&t, &D, &r->x);
    EF(mul)(&t, &Ee, &t);
    EF(dbl)(&C, &C);
    EF(dbl)(&C, &C);
    EF(dbl)(&C, &C);
    EF(sub)(&r->y, &t, &C);
}
/* add-2007-bl, 11M + 5S:
 *   Z1Z1 = Z1^2, Z2Z2 = Z2^2, U1 = X1 Z2Z2, U2 = X2 Z1Z1,
 *   S1 = Y1 Z2 Z2Z2, S2 = Y2 Z1 Z1Z1, H = U2 - U1, I = (2H)^2, J = H I,
 *   r = 2(S2 - S1), V = U1 I, X3 = r^2 - J - 2V, Y3 = r(V - X3) - 2 S1 J,
 *   Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H.
 * Generic formula only: H = 0 gives Z3 = 0, which is right for P == -Q but
 * wrong for P == Q and for infinite inputs. Outputs H and r for the caller. */
static inline void GN(jac_add_generic)(GJ *o, E *Hout, E *rout, const GJ *a, const GJ *b) {
    E z1z1, z2z2, u1, u2, s1, s2, H, I, J, rr, V, t;
    EF(sqr)(&z1z1, &a->z);
    EF(sqr)(&z2z2, &b->z);
    EF(mul)(&u1, &a->x, &z2z2);
    EF(mul)(&u2, &b->x, &z1z1);
    EF(mul)(&s1, &a->y, &b->z);
    EF(mul)(&s1, &s1, &z2z2);
    EF(mul)(&s2, &b->y, &a->z);
    EF(mul)(&s2, &s2, &z1z1);
    EF(sub)(&H, &u2, &u1);
    EF(dbl)(&I, &H);
    EF(sqr)(&I, &I);
    EF(mul)(&J, &H, &I);
    EF(sub)(&rr, &s2, &s1);
    EF(dbl)(&rr, &rr);
    EF(mul)(&V, &u1, &I);
    EF(add)(&t, &a->z, &b->z);
    EF(sqr)(&t, &t);
    EF(sub)(&t, &t, &z1z1);
    EF(sub)(&t, &t, &z2z2);
    EF(mul)(&o->z, &t, &H);
    EF(sqr)(&o->x, &rr);
    EF(sub)(&o->x, &o->x, &J);
    EF(dbl)(&t, &V);
    EF(sub)(&o->x, &o->x, &t);
    EF(sub)(&t, &V, &o->x);
    EF(mul)(&t, &rr, &t);
    EF(mul)(&s1, &s1, &J);
    EF(dbl)(&s1, &s1);
    EF(sub)(&o->y, &t, &s1);
    *Hout = H;
    *rout = rr;
}
/* Complete: add-2007-bl plus dbl-2009-l of a, selected by cmov
 * (11M + 5S + 2M + 5S whatever the inputs). */
void GN(jac_add)(GJ *r, const GJ *a, const GJ *b) {
    GJ s, d;
    E H, rr;
    GN(jac_add_generic)(&s, &H, &rr, a, b);
    GN(jac_dbl)(&d, a);
    int ia = GN(jac_is_inf)(a), ib = GN(jac_is_inf)(b);
    GN(jac_cmov)(&s, &d, EF(is_zero)(&H) & EF(is_zero)(&rr)); /* P == Q */
    GN(jac_cmov)(&s, b, ia);
    GN(jac_cmov)(&s, a, ib);
    *r = s;
}
void GN(jac_add_vartime)(GJ *r, const GJ *a, const GJ *b) {
    if (GN(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (GN(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    GJ s;
    E H, rr;
    GN(jac_add_generic)(&s, &H, &rr, a, b);
    if (EF(is_zero)(&H) && EF(is_zero)(&rr))
        GN(jac_dbl)(&s, a);
    *r = s;
}
/* madd-2007-bl (Z2 = 1), 7M + 4S:
 *   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1, H = U2 - X1, HH = H^2,
 *   I = 4HH, J = H I, r = 2(S2 - Y1), V = X1 I, X3 = r^2 - J - 2V,
 *   Y3 = r(V - X3) - 2 Y1 J, Z3 = (Z1 + H)^2 - Z1Z1 - HH. */
static inline void GN(jac_madd_generic)(GJ *o, E *Hout, E *rout, const GJ *a, const GA *b) {
    E z1z1, u2, s2, H, HH, I, J, rr, V, t, y1j;
    EF(sqr)(&z1z1, &a->z);
    EF(mul)(&u2, &b->x, &z1z1);
    EF(mul)(&s2, &b->y, &a->z);
    EF(mul)(&s2, &s2, &z1z1);
    EF(sub)(&H, &u2, &a->x);
    EF(sqr)(&HH, &H);
    EF(dbl)(&I, &HH);
    EF(dbl)(&I, &I);
    EF(mul)(&J, &H, &I);
    EF(sub)(&rr, &s2, &a->y);
    EF(dbl)(&rr, &rr);
    EF(mul)(&V, &a->x, &I);
    EF(mul)(&y1j, &a->y, &J);
    EF(dbl)(&y1j, &y1j);
    EF(add)(&t, &a->z, &H);
    EF(sqr)(&t, &t);
    EF(sub)(&t, &t, &z1z1);
    EF(sub)(&o->z, &t, &HH);
    EF(sqr)(&o->x, &rr);
    EF(sub)(&o->x, &o->x, &J);
    EF(dbl)(&t, &V);
    EF(sub)(&o->x, &o->x, &t);
    EF(sub)(&t, &V, &o->x);
    EF(mul)(&t, &rr, &t);
    EF(sub)(&o->y, &t, &y1j);
    *Hout = H;
    *rout = rr;
}
void GN(jac_add_affine)(GJ *r, const GJ *a, const GA *b) {
    GJ s, d, bj;
    E H, rr;
    GN(jac_madd_generic)(&s, &H, &rr, a, b);
    GN(jac_dbl)(&d, a);
    GN(jac_from_affine)(&bj, b);
    int ia = GN(jac_is_inf)(a), ib = GN(affine_is_inf)(b);
    GN(jac_cmov)(&s, &d, EF(is_zero)(&H) & EF(is_zero)(&rr));
    GN(jac_cmov)(&s, &bj, ia);
    GN(jac_cmov)(&s, a, ib);
    *r = s;
}
void GN(jac_add_affine_vartime)(GJ *r, const GJ *a, const GA *b) {
    if (GN(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (GN(jac_is_inf)(a)) {
        GN(jac_from_affine)(r, b);
        return;
    }
    GJ s;
    E H, rr;
    GN(jac_madd_generic)(&s, &H, &rr, a, b);
    if (EF(is_zero)(&H) && EF(is_zero)(&rr))
        GN(jac_dbl)(&s, a);
    *r = s;
}

/* Constant time in k and P: fixed 4-bit windows over all 256 bits, a table
 * of [0..15]P built with complete additions, every entry touched on each
 * lookup, complete additions in the loop. 256 dbl + 78 add. */
void GN(jac_mul)(GJ *r, const GJ *p, const g16_scalar *k) {
    GJ table[16], acc, sel;
    GN(jac_set_inf)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i++)
        GN(jac_add)(&table[i], &table[i - 1], p);
    GN(jac_set_inf)(&acc);
    for (int w = 63; w >= 0; w--) {
        for (int j = 0; j < 4; j++)
            GN(jac_dbl)(&acc, &acc);
        unsigned nib = (unsigned)(k->l[w / 16] >> (4 * (w % 16))) & 15;
        GN(jac_set_inf)(&sel);
        for (unsigned i = 0; i < 16; i++)
            GN(jac_cmov)(&sel, &table[i], i == nib);
        GN(jac_add)(&acc, &acc, &sel);
    }
    *r = acc;
    g16_wipe(table, sizeof table);
    g16_wipe(&sel, sizeof sel);
}

/* Width-5 NAF of k (digits odd in [-15, 15] or 0, at most 257 of them);
 * returns the digit count. Variable time: k is public here. */
static int GN(wnaf5_vartime)(int8_t *naf, const g16_scalar *k) {
    limb_t t[5] = {k->l[0], k->l[1], k->l[2], k->l[3], 0};
    int n = 0;
    while ((t[0] | t[1] | t[2] | t[3] | t[4]) != 0) {
        int d = 0;
        if (t[0] & 1) {
            d = (int)(t[0] & 31);
            if (d >= 16)
                d -= 32;
            /* t -= d */
            limb_t c = (limb_t)(d < 0 ? -d : d);
            if (d > 0) {
                for (int i = 0; i < 5 && c; i++) {
                    limb_t o = t[i];
                    t[i] -= c;
                    c = o < c;
                }
            } else {
                for (int i = 0; i < 5 && c; i++) {
                    t[i] += c;
                    c = t[i] < c;
                }
            }
        }
        naf[n++] = (int8_t)d;
        for (int i = 0; i < 4; i++)
            t[i] = (t[i] >> 1) | (t[i + 1] << 63);
        t[4] >>= 1;
    }
    return n;
}

/* wNAF, w = 5: table of odd multiples P, 3P, ..., 15P; about 256 dbl and
 * 256/6 additions. Variable time in k and P (public inputs only). */
void GN(jac_mul_vartime)(GJ *r, const GJ *p, const g16_scalar *k) {
    int8_t naf[260];
    GJ table[8], p2, acc, t;
    int n = GN(wnaf5_vartime)(naf, k);
    table[0] = *p;
    GN(jac_dbl)(&p2, p);
    for (int i = 1; i < 8; i++)
        GN(jac_add_vartime)(&table[i], &table[i - 1], &p2);
    GN(jac_set_inf)(&acc);
    for (int i = n - 1; i >= 0; i--) {
        GN(jac_dbl)(&acc, &acc);
        int d = naf[i];
        if (d > 0) {
            GN(jac_add_vartime)(&acc, &acc, &table[(d - 1) / 2]);
        } else if (d < 0) {
            GN(jac_neg)(&t, &table[(-d - 1) / 2]);
            GN(jac_add_vartime)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

/* [k]P for a public constant k of nbits bits: MSB-first double-and-add with
 * complete additions, so time depends on k only, never on P. */
static void GN(jac_mul_const)(GJ *r, const GJ *p, const limb_t *k, int nbits) {
    GJ acc;
    GN(jac_set_inf)(&acc);
    for (int i = nbits - 1; i >= 0; i--) {
        GN(jac_dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) /* public constant bit */
            GN(jac_add)(&acc, &acc, p);
    }
    *r = acc;
}

int GN(affine_in_subgroup_slow)(const GA *p) {
    static const limb_t order[4] = G_ORDER;
    GJ pj, t;
    GN(jac_from_affine)(&pj, p);
    GN(jac_mul_const)(&t, &pj, order, 256);
    return GN(affine_is_on_curve)(p) & GN(jac_is_inf)(&t);
}

/* ---- XYZZ ---------------------------------------------------------------- */
void GN(xyzz_set_inf)(GX *r) {
    EF(set_one)(&r->x);
    EF(set_one)(&r->y);
    EF(set_zero)(&r->zz);
    EF(set_zero)(&r->zzz);
}
int GN(xyzz_is_inf)(const GX *p) { return EF(is_zero)(&p->zz); }
void GN(xyzz_from_affine)(GX *r, const GA *p) {
    GJ j;
    GN(jac_from_affine)(&j, p); /* z in {0, 1}: zz = zzz = z */
    r->x = j.x;
    r->y = j.y;
    r->zz = j.z;
    r->zzz = j.z;
}
/* One inversion t = 1/(ZZ ZZZ); 1/ZZ = t ZZZ, 1/ZZZ = t ZZ. Infinity -> (0,0). */
void GN(xyzz_to_affine)(GA *r, const GX *p) {
    E t, u;
    EF(mul)(&t, &p->zz, &p->zzz);
    EF(inv)(&t, &t);
    EF(mul)(&u, &t, &p->zzz);
    EF(mul)(&r->x, &p->x, &u);
    EF(mul)(&u, &t, &p->zz);
    EF(mul)(&r->y, &p->y, &u);
}
/* Z = ZZZ: since ZZ^3 = ZZZ^2, X/ZZ = (X ZZ^2)/ZZZ^2 and Y/ZZZ = (Y ZZZ^2)/ZZZ^3. */
void GN(xyzz_to_jac)(GJ *r, const GX *p) {
    E t, zzz = p->zzz;
    EF(sqr)(&t, &p->zz);
    EF(mul)(&r->x, &p->x, &t);
    EF(sqr)(&t, &zzz);
    EF(mul)(&r->y, &p->y, &t);
    r->z = zzz;
    GJ inf;
    GN(jac_set_inf)(&inf);
    GN(jac_cmov)(r, &inf, EF(is_zero)(&p->zz));
}
/* dbl-2008-s (a = 0), 6M + 3S:
 *   U = 2Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2, X3 = M^2 - 2S,
 *   Y3 = M(S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1. */
void GN(xyzz_dbl)(GX *r, const GX *p) {
    E U, V, W, S, M, t;
    EF(dbl)(&U, &p->y);
    EF(sqr)(&V, &U);
    EF(mul)(&W, &U, &V);
    EF(mul)(&S, &p->x, &V);
    EF(sqr)(&M, &p->x);
    GN(e_mul3)(&M, &M);
    EF(mul)(&r->zz, &V, &p->zz);
    EF(mul)(&r->zzz, &W, &p->zzz);
    EF(mul)(&W, &W, &p->y);
    EF(sqr)(&r->x, &M);
    EF(dbl)(&t, &S);
    EF(sub)(&r->x, &r->x, &t);
    EF(sub)(&t, &S, &r->x);
    EF(mul)(&t, &M, &t);
    EF(sub)(&r->y, &t, &W);
}
/* mdbl-2008-s (ZZ1 = ZZZ1 = 1), 4M + 2S: as above with ZZ3 = V, ZZZ3 = W.
 * The affine infinity (0, 0) gives V = 0, i.e. infinity. */
static void GN(xyzz_mdbl)(GX *r, const GA *p) {
    E U, V, W, S, M, t;
    EF(dbl)(&U, &p->y);
    EF(sqr)(&V, &U);
    EF(mul)(&W, &U, &V);
    EF(mul)(&S, &p->x, &V);
    EF(sqr)(&M, &p->x);
    GN(e_mul3)(&M, &M);
    r->zz = V;
    r->zzz = W;
    EF(mul)(&W, &W, &p->y);
    EF(sqr)(&r->x, &M);
    EF(dbl)(&t, &S);
    EF(sub)(&r->x, &r->x, &t);
    EF(sub)(&t, &S, &r->x);
    EF(mul)(&t, &M, &t);
    EF(sub)(&r->y, &t, &W);
    GX inf;
    GN(xyzz_set_inf)(&inf);
    GN(xyzz_cmov)(r, &inf, EF(is_zero)(&V));
}
/* add-2008-s, 12M + 2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1,
 *   R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q,
 *   Y3 = R(Q - X3) - S1 PPP, ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 * P = 0, R != 0 (P == -Q) gives ZZ3 = 0; P = R = 0 (P == Q) needs dbl. */
static inline void GN(xyzz_add_generic)(GX *o, E *Pout, E *Rout, const GX *a, const GX *b) {
    E u1, u2, s1, s2, P, R, PP, PPP, Q, t;
    EF(mul)(&u1, &a->x, &b->zz);
    EF(mul)(&u2, &b->x, &a->zz);
    EF(mul)(&s1, &a->y, &b->zzz);
    EF(mul)(&s2, &b->y, &a->zzz);
    EF(sub)(&P, &u2, &u1);
    EF(sub)(&R, &s2, &s1);
    EF(sqr)(&PP, &P);
    EF(mul)(&PPP, &P, &PP);
    EF(mul)(&Q, &u1, &PP);
    EF(mul)(&t, &a->zz, &b->zz);
    EF(mul)(&o->zz, &t, &PP);
    EF(mul)(&t, &a->zzz, &b->zzz);
    EF(mul)(&o->zzz, &t, &PPP);
    EF(sqr)(&o->x, &R);
    EF(sub)(&o->x, &o->x, &PPP);
    EF(dbl)(&t, &Q);
    EF(sub)(&o->x, &o->x, &t);
    EF(sub)(&t, &Q, &o->x);
    EF(mul)(&t, &R, &t);
    EF(mul)(&s1, &s1, &PPP);
    EF(sub)(&o->y, &t, &s1);
    *Pout = P;
    *Rout = R;
}
void GN(xyzz_add)(GX *r, const GX *a, const GX *b) {
    GX s, d;
    E P, R;
    GN(xyzz_add_generic)(&s, &P, &R, a, b);
    GN(xyzz_dbl)(&d, a);
    int ia = GN(xyzz_is_inf)(a), ib = GN(xyzz_is_inf)(b);
    GN(xyzz_cmov)(&s, &d, EF(is_zero)(&P) & EF(is_zero)(&R));
    GN(xyzz_cmov)(&s, b, ia);
    GN(xyzz_cmov)(&s, a, ib);
    *r = s;
}
void GN(xyzz_add_vartime)(GX *r, const GX *a, const GX *b) {
    if (GN(xyzz_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (GN(xyzz_is_inf)(b)) {
        *r = *a;
        return;
    }
    GX s;
    E P, R;
    GN(xyzz_add_generic)(&s, &P, &R, a, b);
    if (EF(is_zero)(&P) && EF(is_zero)(&R))
        GN(xyzz_dbl)(&s, a);
    *r = s;
}
/* madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2,
 *   PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - Y1 PPP,
 *   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP. */
static inline void GN(xyzz_madd_generic)(GX *o, E *Pout, E *Rout, const GX *a, const GA *b) {
    E u2, s2, P, R, PP, PPP, Q, t, y1;
    EF(mul)(&u2, &b->x, &a->zz);
    EF(mul)(&s2, &b->y, &a->zzz);
    EF(sub)(&P, &u2, &a->x);
    EF(sub)(&R, &s2, &a->y);
    EF(sqr)(&PP, &P);
    EF(mul)(&PPP, &P, &PP);
    EF(mul)(&Q, &a->x, &PP);
    EF(mul)(&y1, &a->y, &PPP);
    EF(mul)(&o->zz, &a->zz, &PP);
    EF(mul)(&o->zzz, &a->zzz, &PPP);
    EF(sqr)(&o->x, &R);
    EF(sub)(&o->x, &o->x, &PPP);
    EF(dbl)(&t, &Q);
    EF(sub)(&o->x, &o->x, &t);
    EF(sub)(&t, &Q, &o->x);
    EF(mul)(&t, &R, &t);
    EF(sub)(&o->y, &t, &y1);
    *Pout = P;
    *Rout = R;
}
void GN(xyzz_add_affine)(GX *r, const GX *a, const GA *b) {
    GX s, d, bx;
    E P, R;
    GN(xyzz_madd_generic)(&s, &P, &R, a, b);
    GN(xyzz_mdbl)(&d, b);
    GN(xyzz_from_affine)(&bx, b);
    int ia = GN(xyzz_is_inf)(a), ib = GN(affine_is_inf)(b);
    GN(xyzz_cmov)(&s, &d, EF(is_zero)(&P) & EF(is_zero)(&R));
    GN(xyzz_cmov)(&s, &bx, ia);
    GN(xyzz_cmov)(&s, a, ib);
    *r = s;
}
void GN(xyzz_add_affine_vartime)(GX *r, const GX *a, const GA *b) {
    if (GN(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (GN(xyzz_is_inf)(a)) {
        GN(xyzz_from_affine)(r, b);
        return;
    }
    GX s;
    E P, R;
    GN(xyzz_madd_generic)(&s, &P, &R, a, b);
    if (EF(is_zero)(&P) && EF(is_zero)(&R))
        GN(xyzz_mdbl)(&s, b);
    *r = s;
}

/* ---- .zkey layout --------------------------------------------------------- */
size_t GN(zkey_size)(void) { return 2 * (size_t)E_BYTES; }

g16_err GN(from_zkey)(GA *r, const uint8_t *buf, int check_subgroup) {
    GA p;
    if (!E_READ(&p.x, buf) || !E_READ(&p.y, buf + E_BYTES))
        return G16_ERR_NOT_CANONICAL;
    if (!GN(affine_is_on_curve)(&p)) /* (0, 0), all zero bytes, passes as infinity */
        return G16_ERR_NOT_ON_CURVE;
    if (check_subgroup && !GN(affine_in_subgroup)(&p))
        return G16_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return G16_OK;
}

void GN(to_zkey)(uint8_t *buf, const GA *p) {
    E_WRITE(buf, &p->x);
    E_WRITE(buf + E_BYTES, &p->y);
}

#undef GN
#undef EF
#undef GA
#undef GJ
#undef GX
