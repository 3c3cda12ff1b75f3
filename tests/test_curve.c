/* Group law of G1/G2 of BN254 and BLS12-381 on random points from a logged
 * seed: properties (commutativity, associativity, identity, inverse,
 * dbl == P + P with differently scaled representatives), every addition
 * form against a naive affine (chord-and-tangent) reference, XYZZ ==
 * Jacobian, complete == _vartime additions, mul == mul_vartime,
 * [a]([b]P) == [ab mod r]P (GMP), [r]P = O, batch_to_affine, .zkey round trip
 * and its error codes. */
#include <string.h>

#include "curve/curve.h"
#include "testutil.h"

#define N_ITER 6

static void scalar_from_mpz(g16_scalar *k, const mpz_t z) { t_mpz_to_limbs(k->l, 4, z); }

#define GROUP_TEST(G, E, FR, ORDER)                                                          \
    /* Naive affine reference: chord and tangent with one inversion each. */                 \
    static void G##_ref_add(G##_affine *r, const G##_affine *p, const G##_affine *q) {       \
        if (G##_affine_is_inf(p)) { *r = *q; return; }                                       \
        if (G##_affine_is_inf(q)) { *r = *p; return; }                                       \
        E lam, t, u;                                                                         \
        if (E##_eq(&p->x, &q->x)) {                                                          \
            E##_add(&t, &p->y, &q->y);                                                       \
            if (E##_is_zero(&t)) { G##_affine_set_inf(r); return; }                          \
            E##_sqr(&t, &p->x);                                                              \
            E##_dbl(&u, &t); E##_add(&t, &t, &u); /* 3x^2 */                                 \
            E##_dbl(&u, &p->y);                                                              \
        } else {                                                                             \
            E##_sub(&t, &q->y, &p->y);                                                       \
            E##_sub(&u, &q->x, &p->x);                                                       \
        }                                                                                    \
        E##_inv(&u, &u);                                                                     \
        E##_mul(&lam, &t, &u);                                                               \
        G##_affine o;                                                                        \
        E##_sqr(&o.x, &lam); E##_sub(&o.x, &o.x, &p->x); E##_sub(&o.x, &o.x, &q->x);         \
        E##_sub(&t, &p->x, &o.x); E##_mul(&t, &t, &lam); E##_sub(&o.y, &t, &p->y);           \
        *r = o;                                                                              \
    }                                                                                        \
    /* Same point, other representative: (l^2 X, l^3 Y, l Z). */                            \
    static void G##_rescale(G##_jac *r, const G##_jac *p, g16_rng *rng) {                    \
        E l, l2, l3;                                                                         \
        E##_random(&l, rng);                                                                 \
        E##_sqr(&l2, &l); E##_mul(&l3, &l2, &l);                                             \
        E##_mul(&r->x, &p->x, &l2); E##_mul(&r->y, &p->y, &l3); E##_mul(&r->z, &p->z, &l);   \
    }                                                                                        \
    static int G##_jeqa(const G##_jac *j, const G##_affine *a) {                             \
        G##_affine t;                                                                        \
        G##_jac_to_affine(&t, j);                                                            \
        return G##_affine_eq(&t, a);                                                         \
    }                                                                                        \
    static int G##_xeqa(const G##_xyzz *x, const G##_affine *a) {                            \
        G##_affine t; G##_jac j;                                                             \
        G##_xyzz_to_affine(&t, x);                                                           \
        G##_xyzz_to_jac(&j, x);                                                              \
        return G##_affine_eq(&t, a) & G##_jeqa(&j, a);                                       \
    }                                                                                        \
    static void G##_rand_scalar(g16_scalar *k, g16_rng *rng) {                               \
        FR f; FR##_random(&f, rng); /* raw limbs: uniform below r */                         \
        memcpy(k->l, f.l, sizeof k->l);                                                      \
    }                                                                                        \
    static void test_##G(uint64_t seed) {                                                    \
        g16_rng rng; g16_rng_seed(&rng, seed);                                               \
        static const limb_t order_l[4] = ORDER;                                              \
        mpz_t r, a, b, c; mpz_inits(r, a, b, c, NULL);                                       \
        t_limbs_to_mpz(r, order_l, 4);                                                       \
        long f0 = t_failures;                                                                \
        G##_affine g, inf_a; G##_jac gj, inf_j, t1, t2, t3;                                  \
        G##_generator(&g);                                                                   \
        G##_affine_set_inf(&inf_a);                                                          \
        G##_jac_set_inf(&inf_j);                                                             \
        CHECK(G##_affine_is_on_curve(&g) && !G##_affine_is_inf(&g));                         \
        CHECK(G##_affine_in_subgroup_slow(&g) && G##_affine_in_subgroup(&g));                \
        CHECK(G##_affine_is_on_curve(&inf_a) && G##_affine_is_inf(&inf_a));                  \
        CHECK(G##_jac_is_inf(&inf_j));                                                       \
        G##_jac_from_affine(&gj, &g);                                                        \
        G##_jac_from_affine(&t1, &inf_a);                                                    \
        CHECK(G##_jac_is_inf(&t1));                                                          \
        G##_jac_to_affine(&inf_a, &inf_j);                                                   \
        CHECK(G##_affine_is_inf(&inf_a));                                                    \
        { /* G != -G, G + G */                                                               \
            G##_affine ng, g2, rg2; G##_affine_neg(&ng, &g);                                 \
            CHECK(!G##_affine_eq(&ng, &g));                                                  \
            G##_jac_dbl(&t1, &gj); G##_jac_to_affine(&g2, &t1);                              \
            G##_ref_add(&rg2, &g, &g);                                                       \
            CHECK(G##_affine_eq(&g2, &rg2) && G##_affine_is_on_curve(&g2));                  \
        }                                                                                    \
        for (int it = 0; it < N_ITER; it++) {                                                \
            g16_scalar kp, kq, kr;                                                           \
            G##_rand_scalar(&kp, &rng); G##_rand_scalar(&kq, &rng); G##_rand_scalar(&kr, &rng); \
            G##_jac P, Q, R, P2;                                                             \
            G##_affine pa, qa, ra, ref, npa;                                                 \
            G##_jac_mul_vartime(&P, &gj, &kp);                                               \
            G##_jac_mul_vartime(&Q, &gj, &kq);                                               \
            G##_jac_mul_vartime(&R, &gj, &kr);                                               \
            G##_rescale(&P, &P, &rng); G##_rescale(&Q, &Q, &rng);                            \
            G##_rescale(&P2, &P, &rng); /* P again, another Z */                             \
            G##_jac_to_affine(&pa, &P); G##_jac_to_affine(&qa, &Q); G##_jac_to_affine(&ra, &R); \
            G##_affine_neg(&npa, &pa);                                                       \
            CHECK(G##_affine_is_on_curve(&pa) && G##_affine_is_on_curve(&qa));               \
            CHECK(G##_jac_eq(&P, &P2) && !G##_jac_eq(&P, &Q));                               \
            CHECK(!G##_jac_eq(&P, &inf_j) && G##_jac_eq(&inf_j, &inf_j));                    \
            /* add vs naive reference, both orders */                                        \
            G##_ref_add(&ref, &pa, &qa);                                                     \
            G##_jac_add(&t1, &P, &Q); CHECK_MSG(G##_jeqa(&t1, &ref), "%s add it=%d", #G, it); \
            G##_jac_add(&t1, &Q, &P); CHECK(G##_jeqa(&t1, &ref));                            \
            G##_jac_add_vartime(&t1, &P, &Q); CHECK(G##_jeqa(&t1, &ref));                    \
            G##_jac_add_affine(&t1, &P, &qa); CHECK(G##_jeqa(&t1, &ref));                    \
            G##_jac_add_affine_vartime(&t1, &P, &qa); CHECK(G##_jeqa(&t1, &ref));            \
            /* associativity */                                                              \
            G##_jac_add(&t1, &P, &Q); G##_jac_add(&t1, &t1, &R);                             \
            G##_jac_add(&t2, &Q, &R); G##_jac_add(&t2, &P, &t2);                             \
            CHECK(G##_jac_eq(&t1, &t2));                                                     \
            /* doubling: dbl == P + P (other Z) == ref */                                    \
            G##_ref_add(&ref, &pa, &pa);                                                     \
            G##_jac_dbl(&t1, &P); CHECK(G##_jeqa(&t1, &ref));                                \
            G##_jac_add(&t2, &P, &P2); CHECK(G##_jeqa(&t2, &ref));                           \
            G##_jac_add_vartime(&t2, &P, &P2); CHECK(G##_jeqa(&t2, &ref));                   \
            G##_jac_add_affine(&t2, &P, &pa); CHECK(G##_jeqa(&t2, &ref));                    \
            G##_jac_add_affine_vartime(&t2, &P, &pa); CHECK(G##_jeqa(&t2, &ref));            \
            t3 = P; G##_jac_add(&t3, &t3, &t3); CHECK(G##_jeqa(&t3, &ref)); /* aliasing */   \
            t3 = P; G##_jac_dbl(&t3, &t3); CHECK(G##_jeqa(&t3, &ref));                       \
            /* identity and inverse */                                                       \
            G##_jac_add(&t1, &P, &inf_j); CHECK(G##_jac_eq(&t1, &P));                        \
            G##_jac_add(&t1, &inf_j, &P); CHECK(G##_jac_eq(&t1, &P));                        \
            G##_jac_add(&t1, &inf_j, &inf_j); CHECK(G##_jac_is_inf(&t1));                    \
            G##_jac_add_vartime(&t1, &P, &inf_j); CHECK(G##_jac_eq(&t1, &P));                \
            G##_jac_add_vartime(&t1, &inf_j, &P); CHECK(G##_jac_eq(&t1, &P));                \
            G##_jac_add_affine(&t1, &P, &inf_a); CHECK(G##_jac_eq(&t1, &P));                 \
            G##_jac_add_affine(&t1, &inf_j, &pa); CHECK(G##_jac_eq(&t1, &P));                \
            G##_jac_add_affine(&t1, &inf_j, &inf_a); CHECK(G##_jac_is_inf(&t1));             \
            G##_jac_add_affine_vartime(&t1, &P, &inf_a); CHECK(G##_jac_eq(&t1, &P));         \
            G##_jac_add_affine_vartime(&t1, &inf_j, &pa); CHECK(G##_jac_eq(&t1, &P));        \
            G##_jac_dbl(&t1, &inf_j); CHECK(G##_jac_is_inf(&t1));                            \
            G##_jac_neg(&t2, &P2);                                                           \
            G##_jac_add(&t1, &P, &t2); CHECK(G##_jac_is_inf(&t1));                           \
            G##_jac_add_vartime(&t1, &P, &t2); CHECK(G##_jac_is_inf(&t1));                   \
            G##_jac_add_affine(&t1, &P, &npa); CHECK(G##_jac_is_inf(&t1));                   \
            G##_jac_add_affine_vartime(&t1, &P, &npa); CHECK(G##_jac_is_inf(&t1));           \
            /* XYZZ: build non-trivial zz by a doubling and an addition */                   \
            {                                                                                \
                G##_xyzz X, Y, Xi, o;                                                        \
                G##_xyzz_set_inf(&Xi); CHECK(G##_xyzz_is_inf(&Xi));                          \
                G##_xyzz_from_affine(&X, &pa); CHECK(G##_xeqa(&X, &pa));                     \
                G##_xyzz_from_affine(&o, &inf_a); CHECK(G##_xyzz_is_inf(&o));                \
                G##_xyzz_to_affine(&ref, &Xi); CHECK(G##_affine_is_inf(&ref));               \
                G##_xyzz_to_jac(&t1, &Xi); CHECK(G##_jac_is_inf(&t1));                       \
                G##_xyzz_from_affine(&Y, &qa);                                               \
                G##_xyzz_dbl(&Y, &Y); G##_xyzz_add_affine(&Y, &Y, &qa); /* [3]Q */            \
                G##_xyzz_dbl(&X, &X); G##_xyzz_add_affine(&X, &X, &npa); /* P */             \
                CHECK(G##_xeqa(&X, &pa));                                                    \
                G##_jac_dbl(&t1, &Q); G##_jac_add(&t1, &t1, &Q); G##_jac_to_affine(&ref, &t1); \
                CHECK(G##_xeqa(&Y, &ref));                                                   \
                G##_jac_add(&t2, &P, &t1); G##_jac_to_affine(&ref, &t2);                     \
                G##_xyzz_add(&o, &X, &Y); CHECK(G##_xeqa(&o, &ref));                         \
                G##_xyzz_add(&o, &Y, &X); CHECK(G##_xeqa(&o, &ref));                         \
                G##_xyzz_add_vartime(&o, &X, &Y); CHECK(G##_xeqa(&o, &ref));                 \
                G##_ref_add(&ref, &pa, &qa);                                                 \
                G##_xyzz_add_affine(&o, &X, &qa); CHECK(G##_xeqa(&o, &ref));                 \
                G##_xyzz_add_affine_vartime(&o, &X, &qa); CHECK(G##_xeqa(&o, &ref));         \
                /* doubling cases */                                                         \
                G##_ref_add(&ref, &pa, &pa);                                                 \
                G##_xyzz_dbl(&o, &X); CHECK(G##_xeqa(&o, &ref));                             \
                G##_xyzz_add(&o, &X, &X); CHECK(G##_xeqa(&o, &ref));                         \
                G##_xyzz_add_vartime(&o, &X, &X); CHECK(G##_xeqa(&o, &ref));                 \
                G##_xyzz_add_affine(&o, &X, &pa); CHECK(G##_xeqa(&o, &ref));                 \
                G##_xyzz_add_affine_vartime(&o, &X, &pa); CHECK(G##_xeqa(&o, &ref));         \
                G##_xyzz_dbl(&o, &Xi); CHECK(G##_xyzz_is_inf(&o));                           \
                /* identity, inverse */                                                      \
                G##_xyzz_add(&o, &X, &Xi); CHECK(G##_xeqa(&o, &pa));                         \
                G##_xyzz_add(&o, &Xi, &X); CHECK(G##_xeqa(&o, &pa));                         \
                G##_xyzz_add(&o, &Xi, &Xi); CHECK(G##_xyzz_is_inf(&o));                      \
                G##_xyzz_add_vartime(&o, &X, &Xi); CHECK(G##_xeqa(&o, &pa));                 \
                G##_xyzz_add_vartime(&o, &Xi, &X); CHECK(G##_xeqa(&o, &pa));                 \
                G##_xyzz_add_affine(&o, &Xi, &pa); CHECK(G##_xeqa(&o, &pa));                 \
                G##_xyzz_add_affine(&o, &X, &inf_a); CHECK(G##_xeqa(&o, &pa));               \
                G##_xyzz_add_affine(&o, &Xi, &inf_a); CHECK(G##_xyzz_is_inf(&o));            \
                G##_xyzz_add_affine_vartime(&o, &Xi, &pa); CHECK(G##_xeqa(&o, &pa));         \
                G##_xyzz_add_affine_vartime(&o, &X, &inf_a); CHECK(G##_xeqa(&o, &pa));       \
                G##_xyzz_add_affine(&o, &X, &npa); CHECK(G##_xyzz_is_inf(&o));               \
                G##_xyzz_add_affine_vartime(&o, &X, &npa); CHECK(G##_xyzz_is_inf(&o));       \
                G##_xyzz_from_affine(&Y, &npa); G##_xyzz_dbl(&Y, &Y);                        \
                G##_xyzz_dbl(&o, &X); G##_xyzz_add(&o, &o, &Y); CHECK(G##_xyzz_is_inf(&o));  \
                G##_xyzz_dbl(&o, &X); G##_xyzz_add_vartime(&o, &o, &Y); CHECK(G##_xyzz_is_inf(&o)); \
            }                                                                                \
            /* scalar multiplication */                                                      \
            {                                                                                \
                g16_scalar ka, kb, kab;                                                      \
                G##_rand_scalar(&ka, &rng); G##_rand_scalar(&kb, &rng);                      \
                if (it == 0) memset(kb.l, 0xff, sizeof kb.l); /* 2^256 - 1 > r */            \
                t_limbs_to_mpz(a, ka.l, 4); t_limbs_to_mpz(b, kb.l, 4);                      \
                mpz_mul(c, a, b); mpz_mod(c, c, r); scalar_from_mpz(&kab, c);                \
                G##_jac_mul(&t1, &P, &kb);                                                   \
                G##_jac_mul_vartime(&t2, &P, &kb); CHECK(G##_jac_eq(&t1, &t2));              \
                G##_jac_mul(&t1, &t1, &ka);                                                  \
                G##_jac_mul_vartime(&t2, &P, &kab);                                          \
                CHECK_MSG(G##_jac_eq(&t1, &t2), "%s [a][b]P it=%d", #G, it);                 \
                G##_jac_mul(&t3, &P2, &kab); CHECK(G##_jac_eq(&t3, &t2));                    \
                /* small scalars against repeated addition */                                \
                g16_scalar ks = {{0}};                                                       \
                G##_jac_set_inf(&t3);                                                        \
                for (unsigned s = 0; s < 20; s++) {                                          \
                    ks.l[0] = s;                                                             \
                    G##_jac_mul(&t1, &P, &ks); G##_jac_mul_vartime(&t2, &P, &ks);            \
                    CHECK_MSG(G##_jac_eq(&t1, &t3) && G##_jac_eq(&t2, &t3), "%s [%u]P", #G, s); \
                    G##_jac_add(&t3, &t3, &P);                                               \
                }                                                                            \
                /* [r]P = O, [r-1]P = -P, [k]O = O */                                        \
                g16_scalar kr_ = {ORDER};                                                    \
                G##_jac_mul(&t1, &P, &kr_); CHECK(G##_jac_is_inf(&t1));                      \
                G##_jac_mul_vartime(&t1, &P, &kr_); CHECK(G##_jac_is_inf(&t1));              \
                kr_.l[0] -= 1;                                                               \
                G##_jac_mul(&t1, &P, &kr_); CHECK(G##_jeqa(&t1, &npa));                      \
                G##_jac_mul_vartime(&t1, &P, &kr_); CHECK(G##_jeqa(&t1, &npa));              \
                G##_jac_mul(&t1, &inf_j, &ka); CHECK(G##_jac_is_inf(&t1));                   \
                G##_jac_mul_vartime(&t1, &inf_j, &ka); CHECK(G##_jac_is_inf(&t1));           \
                CHECK(G##_affine_in_subgroup_slow(&pa) && G##_affine_in_subgroup(&pa));      \
            }                                                                                \
            /* batch_to_affine, with infinity inside */                                      \
            {                                                                                \
                G##_jac js[5] = {P, Q, inf_j, R, P2};                                        \
                G##_affine out[5], one; E scratch[5];                                        \
                G##_jac_batch_to_affine(out, js, 5, scratch);                                \
                for (int i = 0; i < 5; i++) {                                                \
                    G##_jac_to_affine(&one, &js[i]);                                         \
                    CHECK(G##_affine_eq(&one, &out[i]));                                     \
                }                                                                            \
                CHECK(G##_affine_is_inf(&out[2]));                                           \
            }                                                                                \
            /* .zkey round trip and errors */                                                \
            {                                                                                \
                size_t zs = G##_zkey_size();                                                 \
                uint8_t buf[192], buf2[192];                                                 \
                G##_affine back;                                                             \
                CHECK(zs == 2 * sizeof(E));                                                  \
                G##_to_zkey(buf, &pa);                                                       \
                CHECK(G##_from_zkey(&back, buf, 1) == G16_OK && G##_affine_eq(&back, &pa));  \
                CHECK(G##_from_zkey(&back, buf, 0) == G16_OK && G##_affine_eq(&back, &pa));  \
                G##_to_zkey(buf2, &inf_a);                                                   \
                int allz = 1;                                                                \
                for (size_t i = 0; i < zs; i++) allz &= buf2[i] == 0;                        \
                CHECK(allz);                                                                 \
                CHECK(G##_from_zkey(&back, buf2, 1) == G16_OK && G##_affine_is_inf(&back));  \
                memcpy(buf2, buf, zs);                                                       \
                buf2[zs / 2 - 1] = 0xff; /* top limb of x's last Fp >= p */                  \
                CHECK(G##_from_zkey(&back, buf2, 1) == G16_ERR_NOT_CANONICAL);               \
                memcpy(buf2, buf, zs);                                                       \
                buf2[zs - 1] = 0xff;                                                         \
                CHECK(G##_from_zkey(&back, buf2, 1) == G16_ERR_NOT_CANONICAL);               \
                memcpy(buf2, buf, zs);                                                       \
                buf2[zs / 2] ^= 1; /* y changed: off the curve */                            \
                CHECK(G##_from_zkey(&back, buf2, 0) == G16_ERR_NOT_ON_CURVE);                \
                memset(buf2, 0, zs); buf2[0] = 1; /* x = R^-1-ish, y = 0 */                  \
                CHECK(G##_from_zkey(&back, buf2, 0) == G16_ERR_NOT_ON_CURVE);                \
            }                                                                                \
        }                                                                                    \
        /* subgroup checks: fast == slow on curve points in and out of the                \
         * subgroup: random lifts Q, their cofactor parts [r]Q, P + [r]Q. */               \
        int outside = 0;                                                                     \
        for (int it = 0; it < 3 * N_ITER; it++) {                                            \
            E x; G##_affine q, q2, sub; G##_jac qj, pj;                                       \
            do { E##_random(&x, &rng); } while (!G##_affine_from_x_vartime(&q, &x));         \
            CHECK(G##_affine_is_on_curve(&q) && E##_eq(&q.x, &x));                           \
            int slow = G##_affine_in_subgroup_slow(&q);                                      \
            CHECK_MSG(G##_affine_in_subgroup(&q) == slow, "%s subgroup it=%d", #G, it);       \
            outside += !slow;                                                                \
            {                                                                                \
                uint8_t zb[192]; G##_affine back;                                            \
                G##_to_zkey(zb, &q);                                                         \
                CHECK(G##_from_zkey(&back, zb, 1) == (slow ? G16_OK : G16_ERR_NOT_IN_SUBGROUP)); \
                CHECK(G##_from_zkey(&back, zb, 0) == G16_OK && G##_affine_eq(&back, &q));    \
            }                                                                                \
            g16_scalar kr_ = {ORDER}, k;                                                     \
            G##_jac_from_affine(&qj, &q);                                                    \
            G##_jac_mul(&qj, &qj, &kr_); G##_jac_to_affine(&q2, &qj);                        \
            CHECK(G##_affine_in_subgroup(&q2) == G##_affine_in_subgroup_slow(&q2));          \
            CHECK(G##_affine_in_subgroup(&q2) == G##_affine_is_inf(&q2));                    \
            G##_rand_scalar(&k, &rng);                                                       \
            G##_jac_mul(&pj, &gj, &k); G##_jac_add(&pj, &pj, &qj); G##_jac_to_affine(&sub, &pj); \
            CHECK(G##_affine_in_subgroup(&sub) == G##_affine_in_subgroup_slow(&sub));        \
            CHECK(G##_affine_in_subgroup(&sub) == G##_affine_is_inf(&q2));                   \
            /* off the curve: neither check accepts */                                       \
            E##_add(&q.y, &q.y, &q.x);                                                       \
            CHECK(!G##_affine_in_subgroup(&q) && !G##_affine_in_subgroup_slow(&q));          \
        }                                                                                    \
        if (!HAS_COFACTOR_##G) CHECK(outside == 0);                                          \
        else CHECK(outside > 0);                                                             \
        mpz_clears(r, a, b, c, NULL);                                                        \
        printf("%s: %s\n", #G, t_failures == f0 ? "ok" : "FAILED");                          \
    }

#define HAS_COFACTOR_bn254_g1 0
#define HAS_COFACTOR_bn254_g2 1
#define HAS_COFACTOR_bls381_g1 1
#define HAS_COFACTOR_bls381_g2 1

GROUP_TEST(bn254_g1, bn254_fp, bn254_fr, BN254_FR_P)
GROUP_TEST(bn254_g2, bn254_fp2, bn254_fr, BN254_FR_P)
GROUP_TEST(bls381_g1, bls381_fp, bls381_fr, BLS381_FR_P)
GROUP_TEST(bls381_g2, bls381_fp2, bls381_fr, BLS381_FR_P)

int main(void) {
    uint64_t seed = t_seed("test_curve");
    test_bn254_g1(seed);
    test_bn254_g2(seed + 1);
    test_bls381_g1(seed + 2);
    test_bls381_g2(seed + 3);
    return t_done("test_curve");
}
