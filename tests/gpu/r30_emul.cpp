/* Host check of the experimental radix-2^30 Montgomery product
 * (src/gpu/field_r30.cuh) against the CPU field layer, without a GPU:
 * for Fp and Fr of both curves, r30 products and squares of random elements and of the
 * edge values (0, 1, p-1, R mod p, and inputs in [p, 2p), the weakly
 * reduced form the product accepts) must convert back to the CPU's
 * product; every result must have 30-bit limbs and a value below 2p; and a
 * chain of 2000 dependent products must end where the CPU's does. The
 * lazy-reduction mixed addition (r30_xyzz::add_affine) must follow the
 * CPU's G1 XYZZ additions step by step (as affine points), through the
 * special cases: from infinity, the doubling (P + P), the opposite point
 * (back to infinity) and adding the point at infinity.
 * Run by tests/test_gpu_r30_emul.sh, or by hand:
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/r30_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/r30 && /tmp/r30
 * env: G16_SEED (replay). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
extern "C" {
#include "curve/curve.h"
#include "field/field.h"
#include "util/util.h"
}
#include "gpu/field_r30.cuh"
#include "emul_check.h"


/* value(y) < 2p and every limb below 2^30 */
template <class C> static bool r30_bounded(const g16gpu::r30_t<C> &y) {
    typedef g16gpu::r30_t<C> R;
    for (int k = 0; k < R::L; k++)
        if (y.l[k] >> 30)
            return false;
    /* y - 2p must borrow */
    int64_t borrow = 0;
    uint32_t carry2 = 0; /* 2p limb by limb: p(k) * 2 + carry */
    for (int k = 0; k < R::L; k++) {
        uint32_t p2 = R::p(k) * 2 + carry2;
        carry2 = p2 >> 30;
        p2 &= R::MASK;
        int64_t d = (int64_t)y.l[k] - p2 + borrow;
        borrow = d >> 30;
    }
    return borrow != 0;
}

/* y + p, limbs normalized (the caller keeps y below p: the sum is below 2p) */
template <class C> static g16gpu::r30_t<C> r30_plus_p(const g16gpu::r30_t<C> &y) {
    typedef g16gpu::r30_t<C> R;
    R r;
    uint32_t c = 0;
    for (int k = 0; k < R::L; k++) {
        uint32_t s = y.l[k] + R::p(k) + c;
        r.l[k] = s & R::MASK;
        c = s >> 30;
    }
    return r;
}

/* CF: the CPU field type with F##_mul, F##_random, F##_set_one, F##_sub. */
#define FIELD_CASE(NAME, CF, CFG)                                                                     \
    static void NAME##_case(g16_rng *rng) {                                                           \
        typedef g16gpu::CFG C;                                                                        \
        typedef g16gpu::fp_t<C> G;                                                                    \
        typedef g16gpu::r30_t<C> R;                                                                   \
        static_assert(sizeof(G) == sizeof(CF), "layout");                                            \
        const g16gpu::r30_consts<C> k = g16gpu::r30_make_consts<C>();                                 \
        CF edge[4];                                                                                   \
        memset(&edge[0], 0, sizeof(CF));                                                              \
        CF##_set_one(&edge[1]);                                                                       \
        CF##_sub(&edge[2], &edge[0], &edge[1]); /* -1 = p - 1 as an element */                        \
        CF##_from_u64(&edge[3], ~0ull); /* 2^64 - 1 */                                             \
        long before = checks;                                                                         \
        for (int it = 0; it < 20000; it++) {                                                          \
            CF a, b, want;                                                                            \
            CF##_random(&a, rng);                                                                     \
            CF##_random(&b, rng);                                                                     \
            if (it < 16) {                                                                            \
                a = edge[it & 3];                                                                     \
                b = edge[it >> 2];                                                                    \
            }                                                                                         \
            CF##_mul(&want, &a, &b);                                                                  \
            G ga, gb, got;                                                                            \
            memcpy(&ga, &a, sizeof a);                                                                \
            memcpy(&gb, &b, sizeof b);                                                                \
            R ra = g16gpu::r30_from_fp(ga, k), rb = g16gpu::r30_from_fp(gb, k);                       \
            R rp = ra * rb;                                                                           \
            EXPECT(r30_bounded(rp), "%s product out of range (it %d)", #NAME, it);                    \
            got = g16gpu::r30_to_fp(rp, k);                                                           \
            EXPECT(!memcmp(&got, &want, sizeof want), "%s a*b (it %d)", #NAME, it);                  \
            CF##_sqr(&want, &a);                                                                      \
            R rs = ra.sqr();                                                                          \
            EXPECT(r30_bounded(rs), "%s square out of range (it %d)", #NAME, it);                     \
            got = g16gpu::r30_to_fp(rs, k);                                                           \
            EXPECT(!memcmp(&got, &want, sizeof want), "%s a^2 (it %d)", #NAME, it);                  \
            got = g16gpu::r30_to_fp(r30_plus_p(ra).sqr(), k);                                         \
            EXPECT(!memcmp(&got, &want, sizeof want), "%s (a+p)^2 (it %d)", #NAME, it);              \
            CF##_mul(&want, &a, &b);                                                                  \
            got = g16gpu::r30_to_fp(ra, k);                                                           \
            EXPECT(!memcmp(&got, &a, sizeof a), "%s round trip (it %d)", #NAME, it);                 \
            /* weakly reduced inputs: a + p, b + p */                                                 \
            R wa = r30_plus_p(ra), wb = r30_plus_p(rb);                                               \
            R wp = wa * wb;                                                                           \
            EXPECT(r30_bounded(wp), "%s weak product out of range (it %d)", #NAME, it);               \
            got = g16gpu::r30_to_fp(wp, k);                                                           \
            EXPECT(!memcmp(&got, &want, sizeof want), "%s (a+p)*(b+p) (it %d)", #NAME, it);          \
        }                                                                                             \
        /* a dependent chain, as the benchmark runs it */                                             \
        CF x, y;                                                                                      \
        CF##_random(&x, rng);                                                                         \
        CF##_random(&y, rng);                                                                         \
        G gx, gy;                                                                                     \
        memcpy(&gx, &x, sizeof x);                                                                    \
        memcpy(&gy, &y, sizeof y);                                                                    \
        R rx = g16gpu::r30_from_fp(gx, k), ry = g16gpu::r30_from_fp(gy, k);                           \
        bool in_range = true;                                                                         \
        for (int i = 0; i < 2000; i++) {                                                              \
            CF##_mul(&x, &x, &y);                                                                     \
            rx = rx * ry;                                                                             \
            in_range = in_range && r30_bounded(rx);                                                   \
        }                                                                                             \
        EXPECT(in_range, "%s chain left [0, 2p)", #NAME);                                             \
        G got = g16gpu::r30_to_fp(rx, k);                                                             \
        EXPECT(!memcmp(&got, &x, sizeof x), "%s chain of 2000 products", #NAME);                     \
        printf("%s: L = %d limbs, %ld checks\n", #NAME, R::L, checks - before);                       \
    }

FIELD_CASE(bn254_fp, bn254_fp, bn254_fp_cfg)
FIELD_CASE(bn254_fr, bn254_fr, bn254_fr_cfg)
FIELD_CASE(bls381_fp, bls381_fp, bls381_fp_cfg)
FIELD_CASE(bls381_fr, bls381_fr, bls381_fr_cfg)

/* G: CPU group prefix, E: CPU Fp type, CFG: device constants of Fp. */
#define MADD_CASE(G, E, CFG)                                                                          \
    static void G##_madd_case(g16_rng *rng) {                                                         \
        typedef g16gpu::CFG C;                                                                        \
        typedef g16gpu::fp_t<C> F;                                                                    \
        typedef g16gpu::r30_t<C> R;                                                                   \
        const g16gpu::r30_consts<C> k = g16gpu::r30_make_consts<C>();                                 \
        auto in = [&](const E &v) { F f; memcpy(&f, &v, sizeof v); return g16gpu::r30_from_fp(f, k); }; \
        auto out = [&](const R &v) { E e; F f = g16gpu::r30_to_fp(v, k); memcpy(&e, &f, sizeof e); return e; }; \
        G##_affine gen, pts[256];                                                                     \
        G##_jac g, j;                                                                                 \
        G##_generator(&gen);                                                                          \
        G##_jac_from_affine(&g, &gen);                                                                \
        for (int i = 0; i < 256; i++) {                                                               \
            g16_scalar s = {{g16_rng_next(rng), g16_rng_next(rng), 0, 0}};                            \
            G##_jac_mul_vartime(&j, &g, &s);                                                          \
            G##_jac_to_affine(&pts[i], &j);                                                           \
        }                                                                                             \
        /* the sequence: P, P (doubling), -2P (infinity), O, then random */                           \
        G##_affine seq[260];                                                                          \
        seq[0] = pts[0];                                                                              \
        seq[1] = pts[0];                                                                              \
        G##_jac_from_affine(&j, &pts[0]);                                                             \
        G##_jac_dbl(&j, &j);                                                                          \
        G##_jac_to_affine(&seq[2], &j);                                                               \
        G##_affine_neg(&seq[2], &seq[2]);                                                             \
        G##_affine_set_inf(&seq[3]);                                                                  \
        for (int i = 4; i < 260; i++)                                                                 \
            seq[i] = pts[i - 4];                                                                      \
        G##_xyzz cpu;                                                                                 \
        G##_xyzz_set_inf(&cpu);                                                                       \
        g16gpu::r30_xyzz<C> acc = g16gpu::r30_xyzz<C>::inf();                                         \
        long before = checks;                                                                         \
        for (int i = 0; i < 260; i++) {                                                               \
            G##_xyzz_add_affine(&cpu, &cpu, &seq[i]);                                                 \
            acc.add_affine(in(seq[i].x), in(seq[i].y), k.one);                                        \
            G##_xyzz got;                                                                             \
            got.x = out(acc.x), got.y = out(acc.y), got.zz = out(acc.zz), got.zzz = out(acc.zzz);     \
            G##_affine a, b;                                                                          \
            G##_xyzz_to_affine(&a, &cpu);                                                             \
            G##_xyzz_to_affine(&b, &got);                                                             \
            EXPECT(G##_affine_eq(&a, &b), "%s madd step %d", #G, i);                                  \
            EXPECT(G##_xyzz_is_inf(&cpu) == acc.is_inf(), "%s infinity at step %d", #G, i);           \
        }                                                                                             \
        EXPECT(G##_xyzz_is_inf(&cpu) == 0, "%s: the sequence should not end at infinity", #G);        \
        printf("%s r30 madd: %ld checks\n", #G, checks - before);                                     \
    }

MADD_CASE(bn254_g1, bn254_fp, bn254_fp_cfg)
MADD_CASE(bls381_g1, bls381_fp, bls381_fp_cfg)

int main() {
    const char *env = getenv("G16_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("r30_emul: seed %llu (replay with G16_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    bn254_fp_case(&rng);
    bn254_fr_case(&rng);
    bls381_fp_case(&rng);
    bls381_fr_case(&rng);
    bn254_g1_madd_case(&rng);
    bls381_g1_madd_case(&rng);
    printf("r30_emul: %ld checks, %d failures\n", checks, fails);
    return fails ? 1 : 0;
}
