/* The GPU MSM's plan and scratch sizing (src/gpu/msm_plan.h), on the host:
 * no GPU needed. The invariant: for every context size max_points, window
 * policy and segment length, every MSM of n <= max_points points (either
 * scalar width, any 0/1 split nbig + n1 <= n) fits the scratch that
 * g16gpu_scratch reserves. Regression: BN254 at 2^22 picks c = 17, wider
 * than the c = 16 of 255-bit scalars the first sizing loop assumed ("plan
 * ... exceeds the context's scratch" on the H200, 2026-11-30). Also checks
 * the window choices against values derived by hand from the cost model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/msm_plan.h"
#include "testutil.h"

static g16_rng rng;

/* One MSM shape against the scratch; returns 0 and describes the first
 * violation in why. */
static int fits(const g16gpu_msm_scratch *sc, size_t nbig, size_t n1, int nbits, int policy, uint32_t seg,
                char *why, size_t wlen) {
    g16gpu_msm_plan p = g16gpu_plan(nbig ? nbig : 1, nbits, policy);
    size_t m = nbig * (size_t)p.windows + n1;
    size_t segs = (m + seg - 1) / seg;
    size_t buckets = (size_t)p.windows * p.nb;
    const char *bad = NULL;
    if (p.c < 4 || p.c > G16GPU_MAX_C)
        bad = "c out of range";
    else if (p.windows > 64)
        bad = "more than 64 windows";
    else if (p.windows * p.c <= nbits || (p.windows - 1) * p.c > nbits)
        bad = "windows do not cover nbits + 1 bits tightly";
    else if (p.zero_key >= 0x80000000u || p.key_bits > 31 || (1ull << p.key_bits) <= p.zero_key)
        bad = "key bits";
    else if (m > sc->entries)
        bad = "entries";
    else if (segs > sc->segs)
        bad = "segments";
    else if (buckets > sc->buckets)
        bad = "buckets";
    else if (2 * buckets / p.chunk > sc->red)
        bad = "reduction partials";
    else if (p.windows > sc->windows)
        bad = "windows";
    if (bad)
        snprintf(why, wlen, "%s: nbig %zu n1 %zu nbits %d policy %d seg %u (c %d, W %d, m %zu; scratch "
                 "entries %zu buckets %zu segs %zu)", bad, nbig, n1, nbits, policy, seg, p.c, p.windows, m,
                 sc->entries, sc->buckets, sc->segs);
    return bad == NULL;
}

static size_t checked;

static void sweep(size_t max_points, int policy, uint32_t seg) {
    g16gpu_msm_scratch sc = g16gpu_scratch(max_points, policy, seg, NULL, NULL);
    char why[256] = "";
    size_t bad = 0;
    size_t ns[1024];
    size_t cnt = 0;
    for (size_t n = 1; n <= max_points && n <= 600; n++)
        ns[cnt++] = n;
    for (int k = 10; k < 40 && ((size_t)1 << k) - 1 <= max_points; k++)
        for (int d = -1; d <= 1; d++) {
            size_t n = ((size_t)1 << k) + (size_t)(ptrdiff_t)d;
            if (n >= 1 && n <= max_points && n > 600 && cnt < 900)
                ns[cnt++] = n;
        }
    ns[cnt++] = max_points;
    for (int r = 0; r < 64; r++)
        ns[cnt++] = 1 + (size_t)(g16_rng_next(&rng) % max_points);
    for (size_t i = 0; i < cnt; i++) {
        size_t n = ns[i];
        size_t splits[5][2] = {{n, 0}, {0, n}, {n / 2, n - n / 2}, {1, n - 1}, {n - 1, 1}};
        for (int nbits = 254; nbits <= 255; nbits++)
            for (int s = 0; s < 5; s++) {
                checked++;
                if (!fits(&sc, splits[s][0], splits[s][1], nbits, policy, seg, why, sizeof why) && !bad++)
                    printf("  first violation at max_points %zu: %s\n", max_points, why);
            }
    }
    CHECK_MSG(bad == 0, "max_points %zu policy %d seg %u: %zu shapes exceed the scratch: %s", max_points, policy,
              seg, bad, why);
}

/* g16gpu_ctx_device_bytes (the engine's device budget for a worker's MSM
 * context) against the buffers of gpu_create listed here by hand, and
 * g16gpu_cfg_plan against the options' rules. */
static void ctx_bytes_tests(void) {
    const size_t gran = (size_t)2 << 20;
    size_t prev = 0;
    for (int lg = 0; lg <= 27; lg++) {
        size_t mp = ((size_t)1 << lg) + (lg & 1 ? 64 : 0);
        for (int g2 = 0; g2 <= 1; g2++) {
            size_t got = g16gpu_ctx_device_bytes(mp, g2, 0, 64);
            g16gpu_msm_scratch sc = g16gpu_scratch(mp, 0, 64, NULL, NULL);
            size_t pt = g2 ? 384 : 192;
            /* d_scalars 32/point; keys and values 2 x 2 x 4 per entry; CUB
             * bound 1/entry + 1 MiB with 1/16 + 1 MiB margin; bucket ends
             * 4 and buckets pt per bucket; tree (2 segs + 64), tail segs
             * points and 4 per seg; reduction red points; 64 window points;
             * 2^15 Fr of NTT tables; 2 x 4 per 256 points of classes;
             * big/one/pos 3 x 4 per point; 16 bytes of counts. */
            size_t cub = sc.entries + ((size_t)1 << 20);
            size_t raw = mp * 32 + sc.entries * 16 + cub + cub / 16 + ((size_t)1 << 20) + sc.buckets * (4 + pt) +
                         (2 * sc.segs + 64) * pt + sc.segs * (pt + 4) + sc.red * pt + 64 * pt + ((size_t)1 << 15) * 32 +
                         2 * ((mp + 255) / 256) * 4 + 3 * mp * 4 + 16;
            CHECK_MSG(got % gran == 0 && got >= raw && got <= raw + G16GPU_CTX_ALLOCS * gran,
                      "ctx bytes(%zu points, g2 %d) = %zu, buffers %zu", mp, g2, got, raw);
            if (g2)
                CHECK_MSG(got >= g16gpu_ctx_device_bytes(mp, 0, 0, 64), "G2 below G1 at %zu points", mp);
            else
                CHECK_MSG(got >= prev, "not monotone at %zu points: %zu < %zu", mp, got, prev);
            if (!g2)
                prev = got;
        }
        /* smaller segments: more accumulating threads, more partials */
        CHECK(g16gpu_ctx_device_bytes(mp, 1, 0, 32) >= g16gpu_ctx_device_bytes(mp, 1, 0, 64));
    }
    printf("  context bytes: 2^22 + G2 %.2f GB, 2^24 %.2f GB, 2^27 %.2f GB\n",
           (double)g16gpu_ctx_device_bytes((size_t)1 << 22, 1, 0, G16GPU_SEG_DEFAULT) / 1e9,
           (double)g16gpu_ctx_device_bytes((size_t)1 << 24, 1, 0, G16GPU_SEG_DEFAULT) / 1e9,
           (double)g16gpu_ctx_device_bytes((size_t)1 << 27, 1, 0, G16GPU_SEG_DEFAULT) / 1e9);
    /* The options' rules (gpu_create's plan). */
    int pol;
    uint32_t seg;
    g16_config cfg;
    g16_status st = {0};
    g16_config_init(&cfg);
    g16gpu_cfg_plan(NULL, &pol, &seg);
    CHECK(pol == 0 && seg == G16GPU_SEG_DEFAULT);
    g16gpu_cfg_plan(&cfg, &pol, &seg);
    CHECK(pol == 0 && seg == G16GPU_SEG_DEFAULT);
    CHECK(g16_config_set(&cfg, "gpu.msm_segment", "32", G16_SRC_FLAG, &st) == G16_OK);
    g16gpu_cfg_plan(&cfg, &pol, &seg);
    CHECK(pol == 0 && seg == 32);
    CHECK(g16_config_set(&cfg, "gpu.msm_window_bits", "9", G16_SRC_FLAG, &st) == G16_OK);
    CHECK(g16_config_set(&cfg, "gpu.msm_segment", "1000", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    g16gpu_cfg_plan(&cfg, &pol, &seg);
    CHECK_MSG(pol == 9 && seg == 32, "policy %d seg %u", pol, seg);
    CHECK(g16_config_set(&cfg, "gpu.msm_window_bits", "3", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_config_set(&cfg, "gpu.msm_window_bits", "23", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_config_set(&cfg, "gpu.msm_window_bits", "22", G16_SRC_FLAG, &st) == G16_OK);
    g16gpu_cfg_plan(&cfg, &pol, &seg);
    CHECK(pol == G16GPU_MAX_C);
}

/* g16gpu_table_c: by hand, 255 bits at n = 2^24: c = 22 (12 windows,
 * 12 * 2^24 + 3 * 2^21 = 207.6M) beats c = 20 (13, 219.7M) and c = 21 (13,
 * 221.3M); 2^24 + 1 points (a key's A, wires = 2^24 + 1) get the same. For
 * random n and every policy and segment length: the table's MSM of n points
 * fits the scratch of a context made for n points, and costs no more than a
 * table at the plan's own c (which always fits). */
static void table_c_tests(void) {
    struct {
        size_t n;
        int nbits, c;
    } want[] = {
        {(size_t)1 << 24, 255, 22},
        {((size_t)1 << 24) + 1, 255, 22},
        {(size_t)1 << 24, 254, 22},
        {1, 255, 4},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int c = g16gpu_table_c(want[i].n, want[i].nbits, 0, 64);
        CHECK_MSG(c == want[i].c, "table_c(n %zu, nbits %d) = %d, want %d", want[i].n, want[i].nbits, c,
                  want[i].c);
    }
    static const int policies[] = {0, 4, 9, 20};
    static const uint32_t segs[] = {G16GPU_MIN_SEG, 64, G16GPU_MAX_SEG};
    size_t cases = 0;
    for (int r = 0; r < 300; r++) {
        size_t n = 1 + (size_t)(g16_rng_next(&rng) % (((size_t)1 << (1 + r % 27)) - 1 + 1));
        int nbits = 254 + (int)(g16_rng_next(&rng) & 1);
        int policy = policies[r % 4];
        uint32_t seg = segs[(r / 4) % 3];
        g16gpu_msm_scratch sc = g16gpu_scratch(n, policy, seg, NULL, NULL);
        int c = g16gpu_table_c(n, nbits, policy, seg);
        g16gpu_msm_plan t = g16gpu_plan(n, nbits, c), own = g16gpu_plan(n, nbits, policy);
        size_t m = n * (size_t)t.windows;
        CHECK_MSG(c >= 4 && c <= G16GPU_MAX_C && t.c == c, "table_c(n %zu) = %d out of range", n, c);
        CHECK_MSG(m <= sc.entries && t.nb <= sc.buckets && (m + seg - 1) / seg <= sc.segs &&
                      2 * (size_t)t.nb / t.chunk <= sc.red,
                  "table_c(n %zu, nbits %d, policy %d, seg %u) = %d does not fit the n-point context", n, nbits,
                  policy, seg, c);
        double cost = (double)t.windows * (double)n + 3.0 * t.nb;
        double cost_own = (double)own.windows * (double)n + 3.0 * own.nb;
        CHECK_MSG(cost <= cost_own, "table_c(n %zu) = %d costs %.0f, the plan's c = %d %.0f", n, c, cost, own.c,
                  cost_own);
        cases++;
    }
    printf("  table windows: %zu cases\n", cases + sizeof want / sizeof want[0]);
}

int main(void) {
    g16_rng_seed(&rng, t_seed("test_gpu_plan"));
    /* The sizing invariant. */
    static const size_t maxes[] = {1, 2, 3, 5, 100, 1000, 1025, 4096, 65536 + 64, 131073, ((size_t)1 << 20) + 64,
                                   (size_t)1 << 22, ((size_t)1 << 22) + 1, (size_t)1 << 24, (size_t)1 << 26};
    static const int policies[] = {0, 4, 9, 16, 20, 22};
    static const uint32_t segs[] = {G16GPU_MIN_SEG, 64, G16GPU_MAX_SEG};
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++)
        for (size_t j = 0; j < sizeof policies / sizeof policies[0]; j++)
            for (size_t k = 0; k < sizeof segs / sizeof segs[0]; k++)
                sweep(maxes[i], policies[j], segs[k]);
    printf("  sizing: %zu MSM shapes fit their context's scratch\n", checked);

    /* Window choices (cost model: windows(c) * (2^lg + 3 * 2^(c-1))), by hand:
     * 2^20, 255 bits: c = 16 -> 16 * (2^20 + 3 * 2^15) = 18.35M beats c = 15
     * (18 windows, 19.76M) and c = 17 (16 windows, 19.92M); 2^22, 254 bits:
     * c = 17 (15 windows, 65.8M) beats c = 16 (16 windows, 68.7M); 2^24, 255
     * bits: c = 20 (13 windows, 238.6M) beats c = 19 (14, 246.4M), c = 21 (13,
     * 259.0M), c = 16 (16, 270.0M). */
    struct {
        size_t n;
        int nbits, policy, c, windows;
    } want[] = {
        {1, 255, 0, 4, 64},
        {128, 254, 0, 4, 64},
        {(size_t)1 << 20, 255, 0, 16, 16},
        {((size_t)1 << 19) + 1, 255, 0, 16, 16}, /* the plan depends on ceil(log2 n) only */
        {(size_t)1 << 22, 254, 0, 17, 15},
        {(size_t)1 << 22, 255, 0, 16, 16},
        {(size_t)1 << 24, 255, 0, 20, 13},
        {(size_t)1 << 24, 254, 0, 20, 13},
        {(size_t)1 << 16, 255, 4, 4, 64},   /* forced */
        {1000, 254, 9, 9, 29},              /* forced */
        {(size_t)1 << 26, 255, 30, 22, 12}, /* forced, clamped to G16GPU_MAX_C */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        g16gpu_msm_plan p = g16gpu_plan(want[i].n, want[i].nbits, want[i].policy);
        CHECK_MSG(p.c == want[i].c && p.windows == want[i].windows,
                  "plan(n %zu, nbits %d, policy %d): c %d windows %d, want c %d windows %d", want[i].n,
                  want[i].nbits, want[i].policy, p.c, p.windows, want[i].c, want[i].windows);
        CHECK(p.nb == 1u << (p.c - 1) && p.zero_key == (uint32_t)p.windows * p.nb &&
              p.entries == want[i].n * (size_t)p.windows);
    }
    printf("  window choices: %zu cases\n", sizeof want / sizeof want[0]);

    /* The failing case of an H200 run: a sizing over 255-bit scalars only
     * (n = min(2^lg, max_points)) missed BN254's wider window at 2^22. */
    size_t mp = (size_t)1 << 22;
    g16gpu_msm_scratch sc = g16gpu_scratch(mp, 0, 32, NULL, NULL);
    g16gpu_msm_plan bn = g16gpu_plan(mp, 254, 0), bls = g16gpu_plan(mp, 255, 0);
    CHECK((size_t)bn.windows * bn.nb <= sc.buckets);
    CHECK_MSG((size_t)bn.windows * bn.nb > (size_t)bls.windows * bls.nb,
              "the regression case no longer differs (BN254 %d x 2^%d vs BLS %d x 2^%d buckets)", bn.windows,
              bn.c - 1, bls.windows, bls.c - 1);
    table_c_tests();
    ctx_bytes_tests();
    return t_done("test_gpu_plan");
}
