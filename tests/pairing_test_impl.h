/* Template of tests/test_pairing.c, included once per curve with
 *   C (bn254, bls381), F, F2, F6, F12 (types), NL (Fp limbs), FR_P (the
 *   limb initializer of r), VEC (vector file), FP_P (limb initializer of p),
 *   SPARSE_034 (1 if the curve's lines are 034-sparse, else 014). */

#define CN(name) G16_CAT(C, _##name)
#define FB(name) G16_CAT(F, _##name)
#define FN2(name) G16_CAT(F2, _##name)
#define FN6(name) G16_CAT(F6, _##name)
#define FN12(name) G16_CAT(F12, _##name)
#define G1A CN(g1_affine)
#define G2A CN(g2_affine)

/* ---- parsing ---------------------------------------------------------------- */

static int CN(t_fp)(F *r, tok_state *ts) {
    const char *s = tok_next(ts);
    mpz_t z;
    limb_t l[NL];
    if (!s)
        return 0;
    mpz_init(z);
    int ok = mpz_set_str(z, s, 16) == 0 && mpz_sizeinbase(z, 2) <= 64 * NL;
    if (ok) {
        t_mpz_to_limbs(l, NL, z);
        ok = FB(from_canon_vartime)(r, l);
    }
    mpz_clear(z);
    return ok;
}
static int CN(t_fp2)(F2 *r, tok_state *ts) { return CN(t_fp)(&r->c0, ts) & CN(t_fp)(&r->c1, ts); }
static int CN(t_fp6)(F6 *r, tok_state *ts) {
    return CN(t_fp2)(&r->c0, ts) & CN(t_fp2)(&r->c1, ts) & CN(t_fp2)(&r->c2, ts);
}
static int CN(t_fp12)(F12 *r, tok_state *ts) { return CN(t_fp6)(&r->c0, ts) & CN(t_fp6)(&r->c1, ts); }
static int CN(t_g1)(G1A *r, tok_state *ts) { return CN(t_fp)(&r->x, ts) & CN(t_fp)(&r->y, ts); }
static int CN(t_g2)(G2A *r, tok_state *ts) { return CN(t_fp2)(&r->x, ts) & CN(t_fp2)(&r->y, ts); }
static int CN(t_scalar)(limb_t s[4], tok_state *ts) {
    const char *t = tok_next(ts);
    mpz_t z;
    if (!t)
        return 0;
    mpz_init(z);
    int ok = mpz_set_str(z, t, 16) == 0 && mpz_sizeinbase(z, 2) <= 256;
    if (ok)
        t_mpz_to_limbs(s, 4, z);
    mpz_clear(z);
    return ok;
}

/* ---- naive affine reference arithmetic (test only, variable time) ---------- */

#define NAIVE_SMUL(NM, G, E, EN)                                                                  \
    static void G16_CAT(NM, _add)(G *r, const G *a, const G *b) {                                     \
        E lam, t, x3, y3;                                                                     \
        if (EN(is_zero)(&a->x) && EN(is_zero)(&a->y)) { *r = *b; return; }                   \
        if (EN(is_zero)(&b->x) && EN(is_zero)(&b->y)) { *r = *a; return; }                   \
        if (EN(eq)(&a->x, &b->x)) {                                                           \
            if (!EN(eq)(&a->y, &b->y) || EN(is_zero)(&a->y)) {                                \
                EN(set_zero)(&r->x); EN(set_zero)(&r->y); return;                             \
            }                                                                                 \
            EN(sqr)(&lam, &a->x); EN(dbl)(&t, &lam); EN(add)(&lam, &lam, &t); /* 3x^2 */       \
            EN(dbl)(&t, &a->y); EN(inv)(&t, &t); EN(mul)(&lam, &lam, &t);                     \
        } else {                                                                              \
            EN(sub)(&lam, &b->y, &a->y); EN(sub)(&t, &b->x, &a->x);                           \
            EN(inv)(&t, &t); EN(mul)(&lam, &lam, &t);                                         \
        }                                                                                     \
        EN(sqr)(&x3, &lam); EN(sub)(&x3, &x3, &a->x); EN(sub)(&x3, &x3, &b->x);               \
        EN(sub)(&t, &a->x, &x3); EN(mul)(&y3, &lam, &t); EN(sub)(&y3, &y3, &a->y);            \
        r->x = x3; r->y = y3;                                                                 \
    }                                                                                         \
    static void G16_CAT(NM, _smul)(G *r, const G *p, const limb_t k[4]) {                             \
        G acc;                                                                                \
        EN(set_zero)(&acc.x); EN(set_zero)(&acc.y);                                           \
        for (int i = 255; i >= 0; i--) {                                                      \
            G16_CAT(NM, _add)(&acc, &acc, &acc);                                                      \
            if ((k[i / 64] >> (i % 64)) & 1) G16_CAT(NM, _add)(&acc, &acc, p);                        \
        }                                                                                     \
        *r = acc;                                                                             \
    }
NAIVE_SMUL(CN(t_g1), G1A, F, FB)
NAIVE_SMUL(CN(t_g2), G2A, F2, FN2)

static void CN(t_g1_neg)(G1A *r, const G1A *p) { r->x = p->x; FB(neg)(&r->y, &p->y); }

/* ---- tower: vectors and algebra ------------------------------------------- */

static void CN(t_sparse_034)(F12 *b, const F2 *b0, const F2 *b3, const F2 *b4) {
    FN12(set_zero)(b);
    b->c0.c0 = *b0;
    b->c1.c0 = *b3;
    b->c1.c1 = *b4;
}
static void CN(t_sparse_014)(F12 *b, const F2 *b0, const F2 *b1, const F2 *b4) {
    FN12(set_zero)(b);
    b->c0.c0 = *b0;
    b->c0.c1 = *b1;
    b->c1.c1 = *b4;
}

static void CN(test_tower_algebra)(g16_rng *rng) {
    static const limb_t P[NL] = FP_P;
    for (int it = 0; it < 8; it++) {
        F6 a6, b6, c6, x6, y6;
        F12 a, b, c, x, y, z;
        F2 s0, s1, s2;
        FN6(random)(&a6, rng);
        FN6(random)(&b6, rng);
        FN6(random)(&c6, rng);
        FN12(random)(&a, rng);
        FN12(random)(&b, rng);
        FN12(random)(&c, rng);
        FN2(random)(&s0, rng);
        FN2(random)(&s1, rng);
        FN2(random)(&s2, rng);

        /* Fp6: associativity, commutativity, distributivity, sqr, inv */
        FN6(mul)(&x6, &a6, &b6); FN6(mul)(&x6, &x6, &c6);
        FN6(mul)(&y6, &b6, &c6); FN6(mul)(&y6, &a6, &y6);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(mul)(&x6, &a6, &b6); FN6(mul)(&y6, &b6, &a6);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(add)(&x6, &b6, &c6); FN6(mul)(&x6, &a6, &x6);
        FN6(mul)(&y6, &a6, &b6); FN6(mul)(&c6, &a6, &c6); FN6(add)(&y6, &y6, &c6);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(sqr)(&x6, &a6); FN6(mul)(&y6, &a6, &a6);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(inv)(&x6, &a6); FN6(mul)(&x6, &x6, &a6);
        CHECK(FN6(is_one)(&x6));
        /* Fp6 sparse products against the full product */
        F6 sp;
        FN6(set_zero)(&sp); sp.c0 = s0; sp.c1 = s1;
        FN6(mul_by_01)(&x6, &a6, &s0, &s1); FN6(mul)(&y6, &a6, &sp);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(set_zero)(&sp); sp.c1 = s1;
        FN6(mul_by_1)(&x6, &a6, &s1); FN6(mul)(&y6, &a6, &sp);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(set_zero)(&sp); sp.c0 = s2;
        FN6(mul_by_fp2)(&x6, &a6, &s2); FN6(mul)(&y6, &a6, &sp);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(set_zero)(&sp); sp.c1.c0 = sp.c0.c0; FB(set_one)(&sp.c1.c0); /* sp = v */
        FN6(mul_by_v)(&x6, &a6); FN6(mul)(&y6, &a6, &sp);
        CHECK(FN6(eq)(&x6, &y6));
        /* Fp6 Frobenius: k-fold composition, ^6 = id */
        FN6(frobenius)(&x6, &a6, 1); FN6(frobenius)(&x6, &x6, 1);
        FN6(frobenius)(&y6, &a6, 2);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(frobenius)(&x6, &x6, 1); FN6(frobenius)(&y6, &a6, 3);
        CHECK(FN6(eq)(&x6, &y6));
        FN6(frobenius)(&x6, &y6, 3);
        CHECK(FN6(eq)(&x6, &a6));
        FN6(frobenius)(&x6, &a6, 1); CHECK(!FN6(eq)(&x6, &a6));

        /* Fp2 helpers */
        F2 xi, t2, u2;
        FN2(set_zero)(&xi);
        FB(from_u64)(&xi.c0, XI_A_VALUE);
        FB(set_one)(&xi.c1);
        FN2(mul_by_xi)(&t2, &s0); FN2(mul)(&u2, &s0, &xi);
        CHECK(FN2(eq)(&t2, &u2));
        FN2(half)(&t2, &s0); FN2(dbl)(&t2, &t2);
        CHECK(FN2(eq)(&t2, &s0));

        /* Fp12 */
        FN12(mul)(&x, &a, &b); FN12(mul)(&x, &x, &c);
        FN12(mul)(&y, &b, &c); FN12(mul)(&y, &a, &y);
        CHECK(FN12(eq)(&x, &y));
        FN12(mul)(&x, &a, &b); FN12(mul)(&y, &b, &a);
        CHECK(FN12(eq)(&x, &y));
        FN12(add)(&x, &b, &c); FN12(mul)(&x, &a, &x);
        FN12(mul)(&y, &a, &b); FN12(mul)(&z, &a, &c); FN12(add)(&y, &y, &z);
        CHECK(FN12(eq)(&x, &y));
        FN12(sub)(&x, &b, &c); FN12(mul)(&x, &x, &a);
        FN12(mul)(&y, &a, &b); FN12(mul)(&z, &a, &c); FN12(sub)(&y, &y, &z);
        CHECK(FN12(eq)(&x, &y));
        FN12(sqr)(&x, &a); FN12(mul)(&y, &a, &a);
        CHECK(FN12(eq)(&x, &y));
        FN12(inv)(&x, &a); FN12(mul)(&x, &x, &a);
        CHECK(FN12(is_one)(&x));
        FN12(set_zero)(&z); FN12(inv)(&x, &z);
        CHECK(FN12(is_zero)(&x));
        /* sparse line products */
        FN12(mul_by_034)(&x, &a, &s0, &s1, &s2);
        CN(t_sparse_034)(&z, &s0, &s1, &s2); FN12(mul)(&y, &a, &z);
        CHECK(FN12(eq)(&x, &y));
        FN12(mul_by_014)(&x, &a, &s0, &s1, &s2);
        CN(t_sparse_014)(&z, &s0, &s1, &s2); FN12(mul)(&y, &a, &z);
        CHECK(FN12(eq)(&x, &y));
        /* Frobenius: compositions, ^12 = id, multiplicative, conj = frob^6 */
        x = a;
        for (int k = 0; k < 12; k++) {
            FN12(frobenius)(&x, &x, 1);
            if (k == 0) CHECK(!FN12(eq)(&x, &a));
            if (k == 1) { FN12(frobenius)(&y, &a, 2); CHECK(FN12(eq)(&x, &y)); }
            if (k == 2) { FN12(frobenius)(&y, &a, 3); CHECK(FN12(eq)(&x, &y)); }
            if (k == 5) { FN12(conj)(&y, &a); CHECK(FN12(eq)(&x, &y)); }
        }
        CHECK(FN12(eq)(&x, &a));
        x = a;
        for (int k = 0; k < 6; k++) FN12(frobenius)(&x, &x, 2);
        CHECK(FN12(eq)(&x, &a));
        x = a;
        for (int k = 0; k < 4; k++) FN12(frobenius)(&x, &x, 3);
        CHECK(FN12(eq)(&x, &a));
        /* any k (mod 12 / mod 6) equals k-fold composition of k = 1 */
        x = a;
        x6 = a6;
        for (int k = 0; k < 14; k++) {
            FN12(frobenius)(&y, &a, k);
            CHECK_MSG(FN12(eq)(&x, &y), "%s fp12 frobenius k=%d", CS, k);
            FN6(frobenius)(&y6, &a6, k);
            CHECK_MSG(FN6(eq)(&x6, &y6), "%s fp6 frobenius k=%d", CS, k);
            FN12(frobenius)(&x, &x, 1);
            FN6(frobenius)(&x6, &x6, 1);
        }
        FN12(frobenius)(&x, &a, -1);
        FN12(frobenius)(&y, &a, 11);
        CHECK(FN12(eq)(&x, &y));
        FN12(mul)(&x, &a, &b); FN12(frobenius)(&x, &x, 1);
        FN12(frobenius)(&y, &a, 1); FN12(frobenius)(&z, &b, 1); FN12(mul)(&y, &y, &z);
        CHECK(FN12(eq)(&x, &y));
        if (it < 2) { /* Frobenius equals the p-th power (slow reference) */
            FN12(frobenius)(&x, &a, 1);
            FN12(pow)(&y, &a, P, NL);
            CHECK(FN12(eq)(&x, &y));
        }
        /* cyclotomic subgroup: t = a^((p^6-1)(p^2+1)) */
        F12 t;
        FN12(inv)(&x, &a); FN12(conj)(&t, &a); FN12(mul)(&t, &t, &x);
        FN12(frobenius)(&x, &t, 2); FN12(mul)(&t, &t, &x);
        FN12(cyclotomic_sqr)(&x, &t); FN12(sqr)(&y, &t);
        CHECK(FN12(eq)(&x, &y));
        FN12(conj)(&x, &t); FN12(mul)(&x, &x, &t);
        CHECK(FN12(is_one)(&x)); /* conj = inverse there */
        if (it < 2) {
            limb_t xabs[1] = {X_ABS_VALUE};
            FN12(cyclotomic_exp_x)(&x, &t);
            FN12(pow)(&y, &t, xabs, 1);
            CHECK(FN12(eq)(&x, &y));
        }
    }
}

/* Consistency with the curve layer: its generators are the vector file's,
 * and e([k]g1, g2) = e(g1, [k]g2) = e(g1, g2)^k with its scalar
 * multiplication (Jacobian, constant time) for random k. */
static void CN(test_with_curve)(const G1A *g1, const G2A *g2, const F12 *egen,
                               gmp_randstate_t rs) {
    static const limb_t R[4] = FR_P;
    G1A c1, kp;
    G2A c2, kq;
    CN(g1_generator)(&c1);
    CN(g2_generator)(&c2);
    CHECK_MSG(FB(eq)(&c1.x, &g1->x) && FB(eq)(&c1.y, &g1->y), "%s curve g1", CS);
    CHECK_MSG(FN2(eq)(&c2.x, &g2->x) && FN2(eq)(&c2.y, &g2->y), "%s curve g2", CS);
    mpz_t r, k;
    mpz_inits(r, k, NULL);
    t_limbs_to_mpz(r, R, 4);
    for (int it = 0; it < 2; it++) {
        g16_scalar sk;
        mpz_urandomm(k, rs, r);
        t_mpz_to_limbs(sk.l, 4, k);
        G16_CAT(CN(g1), _jac) j1, o1;
        G16_CAT(CN(g2), _jac) j2, o2;
        CN(g1_jac_from_affine)(&j1, &c1);
        CN(g1_jac_mul)(&o1, &j1, &sk);
        CN(g1_jac_to_affine)(&kp, &o1);
        CN(g2_jac_from_affine)(&j2, &c2);
        CN(g2_jac_mul)(&o2, &j2, &sk);
        CN(g2_jac_to_affine)(&kq, &o2);
        F12 x, y, z;
        CN(pairing)(&x, &kp, &c2);
        CN(pairing)(&y, &c1, &kq);
        FN12(pow)(&z, egen, sk.l, 4);
        CHECK_MSG(FN12(eq)(&x, &y) && FN12(eq)(&x, &z), "%s e(kP,Q) = e(P,kQ) = e^k", CS);
    }
    mpz_clears(r, k, NULL);
}

static void CN(test_vectors)(const char *path, g16_rng *rng, gmp_randstate_t rs) {
    size_t len;
    char *text = t_read_file(path, &len);
    CHECK_MSG(text != NULL, "cannot read %s (run from the repo root)", path);
    if (!text)
        return;
    static const limb_t R[4] = FR_P;
    mpz_t r, za, zb, zc;
    mpz_inits(r, za, zb, zc, NULL);
    t_limbs_to_mpz(r, R, 4);
    G1A g1 = {0};
    G2A g2 = {0};
    F12 egen, one;
    FN12(set_one)(&one);
    FN12(set_zero)(&egen);
    int have_gen = 0, n_rec = 0, n_pair = 0, n_multi = 0, n_tower = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == 0)
            continue;
        tok_state ts = {line, 0};
        const char *tag = tok_next(&ts);
        int ok = 1;
        n_rec++;
        if (!strcmp(tag, "g1")) {
            ok = CN(t_g1)(&g1, &ts);
        } else if (!strcmp(tag, "g2")) {
            ok = CN(t_g2)(&g2, &ts);
        } else if (!strcmp(tag, "e_gen")) {
            F12 e;
            ok = CN(t_fp12)(&egen, &ts);
            have_gen = 1;
            CN(pairing)(&e, &g1, &g2);
            CHECK_MSG(FN12(eq)(&e, &egen), "%s e(g1, g2)", CS);
            CHECK(!FN12(is_one)(&e)); /* non-degenerate */
            F12 er; /* e^r = 1 */
            FN12(pow)(&er, &e, R, 4);
            CHECK(FN12(is_one)(&er));
            CN(test_with_curve)(&g1, &g2, &egen, rs);
        } else if (!strcmp(tag, "pair")) {
            limb_t a[4], b[4], ab[4];
            G1A aP, P2;
            G2A bQ, Q2;
            F12 e, epow, x, y;
            ok = CN(t_scalar)(a, &ts) & CN(t_scalar)(b, &ts) & CN(t_g1)(&aP, &ts) &
                 CN(t_g2)(&bQ, &ts) & CN(t_fp12)(&e, &ts) & CN(t_fp12)(&epow, &ts);
            if (!ok)
                break;
            n_pair++;
            CN(pairing)(&x, &aP, &bQ);
            CHECK_MSG(FN12(eq)(&x, &e), "%s e(aP, bQ) vs noble", CS);
            CHECK(FN12(eq)(&x, &epow));
            /* e(g1, g2)^(ab) computed here */
            t_limbs_to_mpz(za, a, 4);
            t_limbs_to_mpz(zb, b, 4);
            mpz_mul(zc, za, zb);
            mpz_mod(zc, zc, r);
            t_mpz_to_limbs(ab, 4, zc);
            FN12(pow)(&y, &egen, ab, 4);
            CHECK(have_gen && FN12(eq)(&y, &epow));
            /* the reference scalar multiplication reproduces noble's points */
            if (n_pair == 1) {
                CN(t_g1_smul)(&P2, &g1, a);
                CN(t_g2_smul)(&Q2, &g2, b);
                CHECK(FB(eq)(&P2.x, &aP.x) && FB(eq)(&P2.y, &aP.y));
                CHECK(FN2(eq)(&Q2.x, &bQ.x) && FN2(eq)(&Q2.y, &bQ.y));
            }
            /* bilinearity on fresh random c, d: e(c aP, d bQ) = e(aP, bQ)^(cd) */
            limb_t c[4], d[4], cd[4];
            mpz_urandomm(za, rs, r);
            mpz_urandomm(zb, rs, r);
            t_mpz_to_limbs(c, 4, za);
            t_mpz_to_limbs(d, 4, zb);
            mpz_mul(zc, za, zb);
            mpz_mod(zc, zc, r);
            t_mpz_to_limbs(cd, 4, zc);
            CN(t_g1_smul)(&P2, &aP, c);
            CN(t_g2_smul)(&Q2, &bQ, d);
            CN(pairing)(&x, &P2, &Q2);
            FN12(pow)(&y, &e, cd, 4);
            CHECK_MSG(FN12(eq)(&x, &y), "%s bilinearity", CS);
            /* e(aP, bQ) e(-aP, bQ) = 1 */
            G1A ps[2];
            G2A qs[2] = {bQ, bQ};
            ps[0] = aP;
            CN(t_g1_neg)(&ps[1], &aP);
            CN(multi_pairing)(&x, ps, qs, 2);
            CHECK(FN12(is_one)(&x));
            CN(pairing)(&x, &ps[1], &bQ);
            FN12(conj)(&y, &e);
            CHECK(FN12(eq)(&x, &y)); /* e(-P, Q) = e(P, Q)^-1 */
        } else if (!strcmp(tag, "multi3")) {
            G1A ps[3];
            G2A qs[3];
            F12 want, x, y, s;
            for (int i = 0; i < 3 && ok; i++)
                ok = CN(t_g1)(&ps[i], &ts) & CN(t_g2)(&qs[i], &ts);
            ok = ok && CN(t_fp12)(&want, &ts);
            if (!ok)
                break;
            n_multi++;
            CN(multi_pairing)(&x, ps, qs, 3);
            CHECK_MSG(FN12(eq)(&x, &want), "%s multi3 vs noble", CS);
            FN12(set_one)(&y);
            for (int i = 0; i < 3; i++) {
                CN(pairing)(&s, &ps[i], &qs[i]);
                FN12(mul)(&y, &y, &s);
            }
            CHECK(FN12(eq)(&x, &y));
            /* infinity: extra (O, Q) and (P, O) pairs contribute 1 */
            G1A ps5[5] = {ps[0], {{{0}}, {{0}}}, ps[1], ps[2], ps[0]};
            G2A qs5[5] = {qs[0], qs[1], qs[1], qs[2], {{{{0}}, {{0}}}, {{{0}}, {{0}}}}};
            CN(multi_pairing)(&y, ps5, qs5, 5);
            CHECK(FN12(eq)(&x, &y));
            CN(pairing)(&y, &ps5[1], &qs[0]);
            CHECK(FN12(is_one)(&y));
            CN(pairing)(&y, &ps[0], &qs5[4]);
            CHECK(FN12(is_one)(&y));
            CN(multi_pairing)(&y, ps, qs, 0);
            CHECK(FN12(is_one)(&y));
            /* more pairs than one chunk: 3 pairs, their negations, repeated */
            G1A pl[20];
            G2A ql[20];
            for (int i = 0; i < 20; i++) {
                pl[i] = ps[i % 3];
                ql[i] = qs[i % 3];
                if (i % 2)
                    CN(t_g1_neg)(&pl[i], &pl[i]);
                if (i == 13)
                    FB(set_zero)(&pl[i].x), FB(set_zero)(&pl[i].y);
            }
            /* pairs 0..11 cancel (i and i+3 have opposite signs); 12..19 are
             * 12:+p0 13:O 14:+p2 15:-p0 16:+p1 17:-p2 18:+p0 19:-p1 -> p0 */
            CN(multi_pairing)(&y, pl, ql, 20);
            CN(pairing)(&s, &ps[0], &qs[0]);
            CHECK_MSG(FN12(eq)(&y, &s), "%s 20-pair product", CS);
            /* timing (reported, not checked) */
            int reps = t_reps();
            double t0 = t_now();
            for (int i = 0; i < reps; i++)
                CN(pairing)(&y, &ps[0], &qs[0]);
            double t1 = t_now();
            for (int i = 0; i < reps; i++)
                CN(multi_pairing)(&y, ps, qs, 3);
            double t2 = t_now();
            printf("%s: pairing %.3f ms, multi_pairing_3 %.3f ms (%d reps)\n", CS,
                   (t1 - t0) * 1e3 / reps, (t2 - t1) * 1e3 / reps, reps);
        } else {
            n_tower++;
            F6 a6, b6, c6, x6;
            F12 a, b, c, x;
            if (!strcmp(tag, "fp6_mul")) {
                ok = CN(t_fp6)(&a6, &ts) & CN(t_fp6)(&b6, &ts) & CN(t_fp6)(&c6, &ts);
                FN6(mul)(&x6, &a6, &b6);
                CHECK_MSG(ok && FN6(eq)(&x6, &c6), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp6_sqr")) {
                ok = CN(t_fp6)(&a6, &ts) & CN(t_fp6)(&c6, &ts);
                FN6(sqr)(&x6, &a6);
                CHECK_MSG(ok && FN6(eq)(&x6, &c6), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp6_inv")) {
                ok = CN(t_fp6)(&a6, &ts) & CN(t_fp6)(&c6, &ts);
                FN6(inv)(&x6, &a6);
                CHECK_MSG(ok && FN6(eq)(&x6, &c6), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp6_frob")) {
                const char *k = tok_next(&ts);
                ok = k && CN(t_fp6)(&a6, &ts) & CN(t_fp6)(&c6, &ts);
                if (ok) FN6(frobenius)(&x6, &a6, atoi(k));
                CHECK_MSG(ok && FN6(eq)(&x6, &c6), "%s %s %s", CS, tag, k);
            } else if (!strcmp(tag, "fp12_mul")) {
                ok = CN(t_fp12)(&a, &ts) & CN(t_fp12)(&b, &ts) & CN(t_fp12)(&c, &ts);
                FN12(mul)(&x, &a, &b);
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp12_sqr")) {
                ok = CN(t_fp12)(&a, &ts) & CN(t_fp12)(&c, &ts);
                FN12(sqr)(&x, &a);
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp12_inv")) {
                ok = CN(t_fp12)(&a, &ts) & CN(t_fp12)(&c, &ts);
                FN12(inv)(&x, &a);
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s", CS, tag);
            } else if (!strcmp(tag, "fp12_frob")) {
                const char *k = tok_next(&ts);
                ok = k && CN(t_fp12)(&a, &ts) & CN(t_fp12)(&c, &ts);
                if (ok) FN12(frobenius)(&x, &a, atoi(k));
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s %s", CS, tag, k);
            } else if (!strcmp(tag, "final_exp")) {
                ok = CN(t_fp12)(&a, &ts) & CN(t_fp12)(&c, &ts);
                CN(final_exp)(&x, &a);
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s", CS, tag);
            } else if (!strcmp(tag, "cyclo_sqr")) {
                ok = CN(t_fp12)(&a, &ts) & CN(t_fp12)(&c, &ts);
                FN12(cyclotomic_sqr)(&x, &a);
                CHECK_MSG(ok && FN12(eq)(&x, &c), "%s %s", CS, tag);
            } else {
                CHECK_MSG(0, "%s: unknown record %s", path, tag);
                n_tower--;
            }
        }
        CHECK_MSG(ok && tok_next(&ts) == NULL, "%s: bad record %s", path, tag);
    }
    CHECK_MSG(have_gen && n_pair >= 3 && n_multi >= 1 && n_tower >= 20,
              "%s: too few records (%d)", path, n_rec);
    (void)rng;
    (void)one;
    mpz_clears(r, za, zb, zc, NULL);
    free(text);
}

#undef CN
#undef FB
#undef FN2
#undef FN6
#undef FN12
#undef G1A
#undef G2A
