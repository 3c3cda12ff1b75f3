/* Host check of the GPU MSM's batch-affine rounds (src/gpu/msm/msm_affine.cuh),
 * without a GPU: the rounds' three phases run here thread by thread, block
 * by block, in the order the kernels impose (the tree levels as barriers),
 * with the host scan between them, as msm_affine_rounds (msm_driver.cuh)
 * launches them. For every group, on sorted entries with runs of random
 * length, random signs, zero-digit entries at the end and the special cases
 * (a base twice in a run, a base and its negative, the point at infinity,
 * and for BLS12-381 G1 the point (0, 2) with x = 0), each round must keep
 * every key's point sum (against XYZZ sums of the input), keep the output
 * sorted with values 2j, and shrink it as the counts say. Sizes cross the
 * 1024-slot block and the 16-root inversion group. Seed: $G16_TEST_SEED
 * or a fixed one, printed. */
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "curve/curve.h"
#include "util/util.h"
}
#include "emul_check.h"
#include "gpu/msm/msm_affine.cuh"

using g16gpu::aff_finish_thread;
using g16gpu::aff_in;
using g16gpu::aff_invert_thread;
using g16gpu::aff_load;
using g16gpu::aff_out;
using g16gpu::aff_prefix_thread;
using g16gpu::aff_tree_down;
using g16gpu::aff_tree_up;
using g16gpu::affine_t;
using g16gpu::AFF_INV_G;
using g16gpu::AFF_SLOTS;
using g16gpu::AFF_THREADS;
using g16gpu::xyzz_t;

template <class E> static bool xyzz_eq(const xyzz_t<E> &a, const xyzz_t<E> &b) {
    if (a.is_inf() || b.is_inf())
        return a.is_inf() && b.is_inf();
    return a.x * b.zz == b.x * a.zz && a.y * b.zzz == b.y * a.zzz;
}

/* One round as msm_affine_rounds runs it; returns the output count (the
 * input count when the round would stop: nothing is written then). */
template <class E>
static uint32_t round_emul(const aff_in<E> &in, std::vector<uint32_t> &ko, std::vector<uint32_t> &vo,
                           std::vector<affine_t<E>> &po, bool force) {
    uint32_t nslots = (in.m + 1) / 2, nblk = (nslots + AFF_SLOTS - 1) / AFF_SLOTS;
    std::vector<E> pref(nslots), tot((size_t)nblk * AFF_THREADS), roots(nblk);
    std::vector<uint32_t> counts(nslots + 1), pos(nslots + 1);
    std::vector<E> tree(2 * AFF_THREADS);
    for (uint32_t b = 0; b < nblk; b++) {
        for (uint32_t t = 0; t < AFF_THREADS; t++) {
            E acc = aff_prefix_thread(in, b, t, pref.data(), counts.data());
            tot[(size_t)b * AFF_THREADS + t] = acc;
            tree[AFF_THREADS + t] = acc;
        }
        for (uint32_t w = AFF_THREADS / 2; w >= 1; w >>= 1)
            for (uint32_t t = 0; t < AFF_THREADS; t++)
                aff_tree_up(tree.data(), w, t);
        roots[b] = tree[1];
    }
    counts[nslots] = 0;
    uint32_t run = 0;
    for (uint32_t s = 0; s <= nslots; s++) {
        pos[s] = run;
        run += counts[s];
    }
    uint32_t mn = pos[nslots];
    if (!force && (mn == 0 || (uint64_t)mn * 8 > (uint64_t)in.m * 7))
        return in.m;
    for (uint32_t t = 0; t * AFF_INV_G < nblk; t++)
        aff_invert_thread(roots.data(), nblk, t);
    ko.assign(mn, 0);
    vo.assign(mn, 0);
    po.assign(mn, affine_t<E>{});
    aff_out<E> out = {ko.data(), vo.data(), po.data()};
    for (uint32_t b = 0; b < nblk; b++) {
        for (uint32_t t = 0; t < AFF_THREADS; t++)
            tree[AFF_THREADS + t] = tot[(size_t)b * AFF_THREADS + t];
        for (uint32_t w = AFF_THREADS / 2; w >= 1; w >>= 1)
            for (uint32_t t = 0; t < AFF_THREADS; t++)
                aff_tree_up(tree.data(), w, t);
        tree[1] = roots[b];
        for (uint32_t w = 1; w < AFF_THREADS; w <<= 1)
            for (uint32_t t = 0; t < AFF_THREADS; t++)
                aff_tree_down(tree.data(), w, t);
        for (uint32_t t = 0; t < AFF_THREADS; t++)
            aff_finish_thread(in, b, t, tree[AFF_THREADS + t], pref.data(), pos.data(), out);
    }
    return mn;
}

/* Per-key XYZZ sums of the entries (key < nkeys). */
template <class E>
static std::vector<xyzz_t<E>> key_sums(const aff_in<E> &in, uint32_t nkeys) {
    std::vector<xyzz_t<E>> s(nkeys, xyzz_t<E>::inf());
    for (uint32_t j = 0; j < in.m; j++)
        if (in.keys[j] != in.zero_key)
            s[in.keys[j]].add_affine(aff_load(in, j));
    return s;
}

template <class E, class A, class J>
static void group_test(const char *name, void (*gen)(A *), void (*from_aff)(J *, const A *),
                       void (*mul)(J *, const J *, const g16_scalar *), void (*to_aff)(A *, const J *),
                       const affine_t<E> *xzero, g16_rng *rng, const uint32_t *sizes, int nsizes) {
    static_assert(sizeof(A) == sizeof(affine_t<E>), "layout");
    const uint32_t nbases = 600;
    std::vector<affine_t<E>> bases(nbases);
    A ga;
    gen(&ga);
    J gj;
    from_aff(&gj, &ga);
    for (uint32_t i = 0; i < nbases; i++) {
        g16_scalar k;
        for (int w = 0; w < 4; w++)
            k.l[w] = g16_rng_next(rng);
        k.l[3] >>= 4;
        J pj;
        mul(&pj, &gj, &k);
        A pa;
        to_aff(&pa, &pj);
        memcpy(&bases[i], &pa, sizeof pa);
    }
    memset(&bases[0], 0, sizeof bases[0]); /* the point at infinity */
    if (xzero)
        bases[1] = *xzero;
    long rounds_run = 0;
    for (int si = 0; si < nsizes; si++) {
        uint32_t m = sizes[si];
        /* Sorted keys: runs of 1..40 (some long), the last ~5% zero digits. */
        std::vector<uint32_t> keys(m), vals(m);
        uint32_t zero_key = 0, key = 0, left = 0;
        uint32_t nz = m > 20 ? m - m / 20 : m;
        for (uint32_t j = 0; j < m; j++) {
            if (left == 0) {
                key += 1 + (uint32_t)(g16_rng_next(rng) % 3);
                uint64_t r = g16_rng_next(rng);
                left = 1 + (uint32_t)(r % 40);
                if (r % 97 == 0)
                    left = 3000; /* a long run: crosses threads and blocks */
            }
            keys[j] = key;
            left--;
            uint32_t b = (uint32_t)(g16_rng_next(rng) % nbases);
            vals[j] = 2 * b + (uint32_t)(g16_rng_next(rng) & 1);
            if (j > 0 && keys[j - 1] == key && g16_rng_next(rng) % 16 == 0) /* P + P or P + (-P) */
                vals[j] = (vals[j - 1] & ~1u) | (uint32_t)(g16_rng_next(rng) & 1);
        }
        zero_key = key + 1;
        for (uint32_t j = nz; j < m; j++)
            keys[j] = zero_key;
        uint32_t nkeys = zero_key;
        aff_in<E> in = {keys.data(), vals.data(), m, zero_key, bases.data()};
        std::vector<xyzz_t<E>> want = key_sums(in, nkeys);
        std::vector<uint32_t> k[2], v[2];
        std::vector<affine_t<E>> p[2];
        for (int r = 0; r < 6; r++) {
            std::vector<uint32_t> &ko = k[r & 1], &vo = v[r & 1];
            std::vector<affine_t<E>> &po = p[r & 1];
            uint32_t mn = round_emul(in, ko, vo, po, r == 0);
            if (mn == in.m && r > 0)
                break;
            rounds_run++;
            EXPECT(mn <= in.m, "%s m=%u round %d: %u entries out of %u", name, m, r, mn, in.m);
            bool sorted = true, valsok = true;
            for (uint32_t j = 0; j < mn; j++) {
                sorted &= ko[j] != zero_key && (j == 0 || ko[j - 1] <= ko[j]);
                valsok &= vo[j] == 2 * j;
            }
            EXPECT(sorted && valsok, "%s m=%u round %d: output not sorted (%d) or values not 2j (%d)", name, m, r,
                   sorted, valsok);
            aff_in<E> next = {ko.data(), vo.data(), mn, zero_key, po.data()};
            std::vector<xyzz_t<E>> got = key_sums(next, nkeys);
            uint32_t bad = 0;
            for (uint32_t q = 0; q < nkeys; q++)
                bad += !xyzz_eq(got[q], want[q]);
            EXPECT(bad == 0, "%s m=%u round %d: %u of %u key sums differ", name, m, r, bad, nkeys);
            in = next;
        }
    }
    printf("%s: %d sizes, %ld rounds\n", name, nsizes, rounds_run);
}

int main() {
    uint64_t seed = 0x6166666e65u;
    const char *e = getenv("G16_TEST_SEED");
    if (e && *e)
        seed = strtoull(e, NULL, 0);
    printf("msm_affine_emul: seed %llu\n", (unsigned long long)seed);
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    static const uint32_t g1[] = {1, 2, 3, 5, 64, 255, 2047, 2048, 2049, 4097, 33000, 70001};
    static const uint32_t g2[] = {1, 2, 7, 2049, 9000};
    /* BLS12-381 G1 holds (0, 2): 2^2 = 0^3 + 4. */
    bls381_fp two;
    bls381_fp_from_u64(&two, 2);
    affine_t<g16gpu::bls381_fp> xz = {};
    memcpy(&xz.y, &two, sizeof two);
    group_test<g16gpu::bn254_fp, bn254_g1_affine, bn254_g1_jac>("bn254 g1", bn254_g1_generator, bn254_g1_jac_from_affine,
                                                                bn254_g1_jac_mul_vartime, bn254_g1_jac_to_affine, NULL,
                                                                &rng, g1, 12);
    group_test<g16gpu::bls381_fp, bls381_g1_affine, bls381_g1_jac>(
        "bls12-381 g1", bls381_g1_generator, bls381_g1_jac_from_affine, bls381_g1_jac_mul_vartime,
        bls381_g1_jac_to_affine, &xz, &rng, g1, 12);
    group_test<g16gpu::bn254_fp2, bn254_g2_affine, bn254_g2_jac>("bn254 g2", bn254_g2_generator, bn254_g2_jac_from_affine,
                                                                 bn254_g2_jac_mul_vartime, bn254_g2_jac_to_affine, NULL,
                                                                 &rng, g2, 5);
    group_test<g16gpu::bls381_fp2, bls381_g2_affine, bls381_g2_jac>(
        "bls12-381 g2", bls381_g2_generator, bls381_g2_jac_from_affine, bls381_g2_jac_mul_vartime,
        bls381_g2_jac_to_affine, NULL, &rng, g2, 5);
    if (fails)
        printf("FAILED (%d of %ld checks)\n", fails, checks);
    else
        printf("all ok (%ld checks)\n", checks);
    return fails != 0;
}
