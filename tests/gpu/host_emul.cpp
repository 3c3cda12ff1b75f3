/* Host-side check of the GPU field/curve templates (src/gpu, .cuh files) against
 * the CPU field layer, without a GPU: build with plain g++ and run, e.g.
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/host_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/emul
 * The device build uses PTX carry chains for add/sub instead of this
 * portable path; tests/test_gpu_msm.c checks that path on a GPU. */
#include <cstdio>
#include <cstring>
extern "C" {
#include "curve/curve.h"
}
#include "gpu/ec/curve.cuh"

static int fails = 0;
#define EXPECT(c) do { if (!(c)) { if (fails++ < 10) printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

template <class G, class C>
static void field_test(const char *name, void (*rnd)(C *, g16_rng *), void (*mul)(C *, const C *, const C *),
                       void (*add)(C *, const C *, const C *), void (*sub)(C *, const C *, const C *), g16_rng *rng) {
    static_assert(sizeof(G) == sizeof(C), "layout");
    for (int it = 0; it < 20000; it++) {
        C a, b, r;
        rnd(&a, rng);
        rnd(&b, rng);
        if (it == 0) memset(&a, 0, sizeof a);
        G ga, gb;
        memcpy(&ga, &a, sizeof a);
        memcpy(&gb, &b, sizeof b);
        G gr = ga * gb; mul(&r, &a, &b); EXPECT(!memcmp(&gr, &r, sizeof r));
        gr = ga + gb; add(&r, &a, &b); EXPECT(!memcmp(&gr, &r, sizeof r));
        gr = ga - gb; sub(&r, &a, &b); EXPECT(!memcmp(&gr, &r, sizeof r));
        gr = gb - ga; sub(&r, &b, &a); EXPECT(!memcmp(&gr, &r, sizeof r));
        gr = ga.sqr(); mul(&r, &a, &a); EXPECT(!memcmp(&gr, &r, sizeof r));
        if (!ga.is_zero()) { G gi = ga.inv(); EXPECT(gi * ga == G::one()); EXPECT(ga.inv_vartime() == gi); }
        else EXPECT(ga.inv_vartime().is_zero());
        if (it < 3) { /* the binary inverse at 1 and at -1, -2 */
            G e = it == 0 ? G::one() : G::zero() - (it == 1 ? G::one() : G::one().dbl());
            EXPECT(e.inv_vartime() * e == G::one());
        }
    }
    printf("%s ok\n", name);
}

/* Carry-heavy values: 0, 1, -1, -2, words of all ones or all zeros below
 * p, and single bits; up to 4 + 2N of them. */
template <class G> static int edge_values(G *edge) {
    const int N = G::N;
    int ne = 0;
    edge[ne++] = G::zero();
    edge[ne++] = G::one();
    edge[ne++] = G::zero() - G::one();
    edge[ne++] = G::zero() - G::one().dbl();
    for (int w = 0; w < N; w++) {
        /* p - 1 with words 0..w all ones and word w + 1 one less: below p */
        G x = G::zero() - G::one();
        G y = G::zero();
        y.l[w] = 0x80000000u >> (w % 31);
        if (w + 1 < N && x.l[w + 1] > 0) {
            x.l[w + 1]--;
            for (int k = 0; k <= w; k++)
                x.l[k] = 0xffffffffu;
            edge[ne++] = x;
        }
        edge[ne++] = y;
    }
    return ne;
}

/* fp_t::mul_wide (the device's product, PTX carry chains there; the same
 * chain steps with an explicit carry here) against mul_cios, on random
 * values and on the carry-heavy ones. */
template <class G, class C>
static void wide_test(const char *name, void (*rnd)(C *, g16_rng *), g16_rng *rng) {
    static_assert(sizeof(G) == sizeof(C), "layout");
    G edge[4 + 2 * G::N];
    int ne = edge_values(edge);
    long bad = 0, n = 0;
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++, n++)
            bad += !(G::mul_wide(edge[i], edge[j]) == G::mul_cios(edge[i], edge[j]));
    for (int it = 0; it < 100000; it++, n++) {
        C a, b;
        rnd(&a, rng);
        rnd(&b, rng);
        G ga, gb;
        memcpy(&ga, &a, sizeof a);
        memcpy(&gb, &b, sizeof b);
        if (it & 1)
            ga = edge[it % ne];
        bad += !(G::mul_wide(ga, gb) == G::mul_cios(ga, gb));
    }
    EXPECT(bad == 0);
    printf("%s mul_wide: %ld products, %ld differ\n", name, n, bad);
}

/* p - k as raw words (k < p's low word), and p's top word */
template <class C> static g16gpu::fp_t<C> p_minus(g16gpu::fp_t<C> *, uint32_t k) {
    g16gpu::fp_t<C> r;
    for (int i = 0; i < C::N; i++)
        r.l[i] = C::p(i) - (i == 0 ? k : 0);
    return r;
}
template <class C> static uint32_t p_top(g16gpu::fp_t<C> *) { return C::p(C::N - 1); }

/* fp_t::sqr_wide (the device's squaring) against mul_cios(x, x): the edge
 * values above, p - 1 and p - 2, words alternating all ones and all zeros
 * (in runs of 1, 2 and 3 words, both phases; the top word kept below p's),
 * and random values. */
template <class G, class C>
static void sqr_test(const char *name, void (*rnd)(C *, g16_rng *), g16_rng *rng) {
    static_assert(sizeof(G) == sizeof(C), "layout");
    const int N = G::N;
    G vals[4 + 2 * N + 8];
    int nv = edge_values(vals);
    vals[nv++] = p_minus((G *)nullptr, 1);
    vals[nv++] = p_minus((G *)nullptr, 2);
    uint32_t ptop = p_top((G *)nullptr);
    for (int run = 1; run <= 3; run++)
        for (int ph = 0; ph < 2; ph++) {
            G x;
            for (int k = 0; k < N; k++)
                x.l[k] = ((k / run + ph) & 1) ? 0xffffffffu : 0;
            if (x.l[N - 1] >= ptop)
                x.l[N - 1] = ptop - 1;
            vals[nv++] = x;
        }
    long bad = 0, n = 0;
    for (int i = 0; i < nv; i++, n++)
        bad += !(G::sqr_wide(vals[i]) == G::mul_cios(vals[i], vals[i]));
    for (int it = 0; it < 100000; it++, n++) {
        C a;
        rnd(&a, rng);
        G ga;
        memcpy(&ga, &a, sizeof a);
        bad += !(G::sqr_wide(ga) == G::mul_cios(ga, ga));
    }
    EXPECT(bad == 0);
    printf("%s sqr_wide: %ld squares, %ld differ\n", name, n, bad);
}

static void fp2r_bn(bn254_fp2 *r, g16_rng *g) { bn254_fp_random(&r->c0, g); bn254_fp_random(&r->c1, g); }
static void fp2r_bls(bls381_fp2 *r, g16_rng *g) { bls381_fp_random(&r->c0, g); bls381_fp_random(&r->c1, g); }

/* y^2 == x^3 + b for an XYZZ point: (Y/ZZZ)^2 = (X/ZZ)^3 + b. */
template <class E>
static bool on_curve(const g16gpu::xyzz_t<E> &p, const E &b) {
    if (p.is_inf()) return true;
    E x = p.x * p.zz.inv(), y = p.y * p.zzz.inv();
    return y.sqr() == x.sqr() * x + b;
}

template <class E>
static void curve_test(const char *name, const g16gpu::affine_t<E> &g, const E &b) {
    using P = g16gpu::xyzz_t<E>;
    P acc = P::from_affine(g);
    P two = acc.dbl();
    P t = acc; t.add_affine(g); /* doubling through madd */
    P t2 = acc; t2.add(acc);    /* doubling through add */
    auto eqp = [](const P &a, const P &c) { /* X1*ZZ2 == X2*ZZ1 and Y1*ZZZ2 == Y2*ZZZ1 */
        if (a.is_inf() || c.is_inf()) return a.is_inf() && c.is_inf();
        return a.x * c.zz == c.x * a.zz && a.y * c.zzz == c.y * a.zzz; };
    EXPECT(on_curve(two, b)); EXPECT(eqp(two, t)); EXPECT(eqp(two, t2));
    /* 3G three ways; (2G + G) - G == 2G; G + (-G) == inf */
    P three = two; three.add_affine(g);
    P three2 = acc; three2.add(two);
    EXPECT(on_curve(three, b)); EXPECT(eqp(three, three2));
    P s = three; s.add_affine(g.x, g.y.neg()); EXPECT(eqp(s, two));
    P z = acc; z.add_affine(g.x, g.y.neg()); EXPECT(z.is_inf());
    P w = acc; w.add(acc.neg()); EXPECT(w.is_inf());
    /* sum of 1..40 times G = 820 G = via doubling chain */
    P sum = P::inf(), cur = P::inf();
    for (int i = 1; i <= 40; i++) { cur.add_affine(g); sum.add(cur); }
    P ref = P::inf(); P base = acc;
    for (int bit = 0; bit < 10; bit++) { if ((820 >> bit) & 1) ref.add(base); base = base.dbl(); }
    EXPECT(on_curve(sum, b)); EXPECT(eqp(sum, ref));
    /* add_mem (the reduction's memory-operand add) == add, word for word,
     * through every case: generic, the same point, its negative, infinity
     * on either side. */
    P cases[][2] = {{three, two}, {two, two}, {two, two.neg()}, {P::inf(), three}, {three, P::inf()},
                    {sum, cur}, {cur, sum}};
    for (auto &c : cases) {
        P r1 = c[0], r2 = c[0];
        r1.add(c[1]);
        r2.add_mem(&c[1]);
        EXPECT(!memcmp(&r1, &r2, sizeof r1));
    }
    printf("%s curve ok\n", name);
}

/* p's Jacobian coordinates into the CPU's Jacobian point j (same layout). */
template <class P, class J> static void jac_out(const P &p, J *j) {
    decltype(p.x) X, Y, Z;
    p.to_jac(X, Y, Z);
    memcpy(&j->x, &X, sizeof X);
    memcpy(&j->y, &Y, sizeof Y);
    memcpy(&j->z, &Z, sizeof Z);
}

/* 820 G by the GPU templates (sums and doublings) == [820] G on the CPU. */
#define CROSS(G, E)                                                                   \
    {                                                                                 \
        using GE = g16gpu::E;                                                         \
        using P = g16gpu::xyzz_t<GE>;                                                 \
        G##_affine ga;                                                                \
        G##_generator(&ga);                                                           \
        g16gpu::affine_t<GE> g;                                                       \
        memcpy(&g, &ga, sizeof g);                                                    \
        P sum = P::inf(), cur = P::inf();                                             \
        for (int i = 1; i <= 40; i++) { cur.add_affine(g); sum.add_cold(cur); }       \
        P dd = P::from_affine(g); dd.dbl_cold(); dd.add_affine(g.x, g.y.neg());       \
        P one = P::from_affine(g);                                                    \
        G##_jac j, ref, jg;                                                           \
        jac_out(sum, &j);                                                             \
        g16_scalar k = {{820, 0, 0, 0}};                                              \
        G##_jac_from_affine(&jg, &ga);                                                \
        G##_jac_mul_vartime(&ref, &jg, &k);                                           \
        G##_affine a1, a2;                                                            \
        G##_jac_to_affine(&a1, &j);                                                   \
        G##_jac_to_affine(&a2, &ref);                                                 \
        EXPECT(G##_affine_eq(&a1, &a2));                                              \
        jac_out(dd, &j);                                                              \
        G##_jac_to_affine(&a1, &j);                                                   \
        jac_out(one, &j);                                                             \
        G##_jac_to_affine(&a2, &j);                                                   \
        EXPECT(G##_affine_eq(&a1, &a2) && G##_affine_eq(&a2, &ga));                   \
        printf("%s cross-check ok\n", #G);                                           \
    }

int main() {
    g16_rng rng;
    g16_rng_seed(&rng, 12345);
    field_test<g16gpu::bn254_fp, bn254_fp>("bn254_fp", bn254_fp_random, bn254_fp_mul, bn254_fp_add, bn254_fp_sub, &rng);
    field_test<g16gpu::bn254_fr, bn254_fr>("bn254_fr", bn254_fr_random, bn254_fr_mul, bn254_fr_add, bn254_fr_sub, &rng);
    field_test<g16gpu::bls381_fp, bls381_fp>("bls381_fp", bls381_fp_random, bls381_fp_mul, bls381_fp_add, bls381_fp_sub, &rng);
    field_test<g16gpu::bls381_fr, bls381_fr>("bls381_fr", bls381_fr_random, bls381_fr_mul, bls381_fr_add, bls381_fr_sub, &rng);
    wide_test<g16gpu::bn254_fp, bn254_fp>("bn254_fp", bn254_fp_random, &rng);
    sqr_test<g16gpu::bn254_fp, bn254_fp>("bn254_fp", bn254_fp_random, &rng);
    wide_test<g16gpu::bn254_fr, bn254_fr>("bn254_fr", bn254_fr_random, &rng);
    sqr_test<g16gpu::bn254_fr, bn254_fr>("bn254_fr", bn254_fr_random, &rng);
    wide_test<g16gpu::bls381_fp, bls381_fp>("bls381_fp", bls381_fp_random, &rng);
    sqr_test<g16gpu::bls381_fp, bls381_fp>("bls381_fp", bls381_fp_random, &rng);
    wide_test<g16gpu::bls381_fr, bls381_fr>("bls381_fr", bls381_fr_random, &rng);
    sqr_test<g16gpu::bls381_fr, bls381_fr>("bls381_fr", bls381_fr_random, &rng);
    field_test<g16gpu::bn254_fp2, bn254_fp2>("bn254_fp2", fp2r_bn, bn254_fp2_mul, bn254_fp2_add, bn254_fp2_sub, &rng);
    field_test<g16gpu::bls381_fp2, bls381_fp2>("bls381_fp2", fp2r_bls, bls381_fp2_mul, bls381_fp2_add, bls381_fp2_sub, &rng);
    /* BN254 G1 generator (1, 2), b = 3 */
    {
        using E = g16gpu::bn254_fp;
        bn254_fp x, y, bb; bn254_fp_from_u64(&x, 1); bn254_fp_from_u64(&y, 2); bn254_fp_from_u64(&bb, 3);
        g16gpu::affine_t<E> g; memcpy(&g.x, &x, sizeof x); memcpy(&g.y, &y, sizeof y);
        E b; memcpy(&b, &bb, sizeof bb);
        curve_test("bn254_g1", g, b);
    }
    CROSS(bn254_g1, bn254_fp)
    CROSS(bls381_g1, bls381_fp)
    CROSS(bn254_g2, bn254_fp2)
    CROSS(bls381_g2, bls381_fp2)
    printf(fails ? "FAILED (%d)\n" : "all ok\n", fails);
    return fails != 0;
}
