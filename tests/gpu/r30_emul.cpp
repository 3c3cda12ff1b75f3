/* Host check of the experimental radix-2^30 Montgomery product
 * (src/gpu/field_r30.cuh) against the CPU field layer, without a GPU:
 * for Fp and Fr of both curves, r30 products of random elements and of the
 * edge values (0, 1, p-1, R mod p, and inputs in [p, 2p), the weakly
 * reduced form the product accepts) must convert back to the CPU's
 * product; every result must have 30-bit limbs and a value below 2p; and a
 * chain of 2000 dependent products must end where the CPU's does.
 * Run by tests/test_gpu_r30_emul.sh, or by hand:
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/r30_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/r30 && /tmp/r30
 * env: G16_SEED (replay). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
extern "C" {
#include "field/field.h"
#include "util/util.h"
}
#include "gpu/field_r30.cuh"

static int fails = 0;
static long checks = 0;
#define EXPECT(c, ...)                                                   \
    do {                                                                 \
        checks++;                                                        \
        if (!(c)) {                                                      \
            if (fails++ < 20) {                                          \
                printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #c);       \
                printf(__VA_ARGS__);                                     \
                printf("\n");                                            \
            }                                                            \
        }                                                                \
    } while (0)

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
    printf("r30_emul: %ld checks, %d failures\n", checks, fails);
    return fails ? 1 : 0;
}
