/* Host-side check of the GPU fixed-base kernels' math (src/gpu/ec/fixed_base.cuh:
 * fb_table_entry, fb_mul_thread run as plain C++ on the CPU) against the CPU
 * curve layer, without a GPU:
 *   g++ -O2 -std=c++17 -Iinclude -Isrc tests/gpu/fixed_base_emul.cpp build-rel/libg16_core.a -lpthread -o /tmp/fbemul && /tmp/fbemul
 * Emulates T threads over n points (interleaved as on the device), edge and
 * random scalars, both curves, G1 and G2. tests/test_gpu_fixed_base.c is the
 * device test. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
extern "C" {
#include "curve/curve.h"
}
#include "gpu/ec/fixed_base.cuh"

using g16gpu::affine_t;
using g16gpu::xyzz_t;
using g16gpu::FB_TABLE;
using g16gpu::FB_PER_THREAD;
static int fails = 0;

template <class E, class GA, class GJ>
static void run(const char *name, void (*gen)(GA *), void (*from_aff)(GJ *, const GA *),
                void (*mul)(GJ *, const GJ *, const g16_scalar *), void (*to_aff)(GA *, const GJ *), g16_rng *rng,
                int hard_top) {
    static_assert(sizeof(affine_t<E>) == sizeof(GA), "layout");
    GA g;
    gen(&g);
    GJ gj, bj;
    from_aff(&gj, &g);
    g16_scalar s = {{g16_rng_next(rng), g16_rng_next(rng), g16_rng_next(rng), g16_rng_next(rng) >> 4}};
    mul(&bj, &gj, &s);
    GA base;
    to_aff(&base, &bj);
    std::vector<affine_t<E>> table(FB_TABLE);
    affine_t<E> b;
    memcpy(&b, &base, sizeof b);
    for (int t = 0; t < FB_TABLE; t++)
        g16gpu::fb_table_entry<E>(b, table.data(), t);
    const uint32_t n = 61;
    std::vector<g16_scalar> k(n);
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            k[i].l[j] = g16_rng_next(rng) >> (j == 3 ? hard_top : 0);
    memset(&k[0], 0, sizeof k[0]);
    memset(&k[1], 0, sizeof k[1]);
    k[1].l[0] = 1;
    for (int j = 0; j < 4; j++)
        k[2].l[j] = ~0ull;
    memset(&k[3], 0, sizeof k[3]);
    memset(&k[9], 0, sizeof k[9]);
    std::vector<xyzz_t<E>> scratch(n);
    std::vector<E> prefix(n);
    std::vector<affine_t<E>> out(n);
    const uint32_t T = (n + FB_PER_THREAD - 1) / FB_PER_THREAD;
    for (uint32_t t = 0; t < T; t++)
        g16gpu::fb_mul_thread<E>(table.data(), (const uint64_t *)k.data(), n, scratch.data(), prefix.data(), out.data(), t, T);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        GJ r;
        GA ra;
        mul(&r, &bj, &k[i]);
        to_aff(&ra, &r);
        if (memcmp(&ra, &out[i], sizeof ra) != 0 && bad++ < 3)
            printf("  %s: point %u differs\n", name, i);
    }
    fails += bad;
    printf("%s: %s\n", name, bad ? "FAIL" : "ok");
}

int main() {
    g16_rng rng;
    g16_rng_seed(&rng, 42);
    run<g16gpu::bn254_fp>("bn254 g1", bn254_g1_generator, bn254_g1_jac_from_affine, bn254_g1_jac_mul_vartime,
                  bn254_g1_jac_to_affine, &rng, 0);
    run<g16gpu::bls381_fp>("bls381 g1", bls381_g1_generator, bls381_g1_jac_from_affine, bls381_g1_jac_mul_vartime,
                   bls381_g1_jac_to_affine, &rng, 0);
    run<g16gpu::bn254_fp2>("bn254 g2", bn254_g2_generator, bn254_g2_jac_from_affine, bn254_g2_jac_mul_vartime,
                   bn254_g2_jac_to_affine, &rng, 0);
    run<g16gpu::bls381_fp2>("bls381 g2", bls381_g2_generator, bls381_g2_jac_from_affine, bls381_g2_jac_mul_vartime,
                    bls381_g2_jac_to_affine, &rng, 0);
    return fails ? 1 : 0;
}
