/* `g16 bench arith --backend cuda`: the device's arithmetic rates
 * (g16_gpu_arith_bench, src/gpu/host/arith_bench.cu): field products per
 * variant and per independent chains per thread, squarings, Fp2 products
 * and G1 mixed additions, each in Gop/s over the whole GPU, with the
 * occupancy it ran at and whether it equals the reference variant; the
 * pipe probes (IMAD.WIDE, IMAD, DFMA, the pair, the FP64 limb product, the
 * product with FP64 limb products beside it), recomputed on the host.
 * --reps sets the products per chain in hundreds (default 20: 2000). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "curve/curve.h"
#include "gpu/gpu.h"

/* n G1 points in the device's XYZZ and affine layouts: affine P_i = (2+i)G
 * and XYZZ Q_i = (1000+3i)G with random-looking Z (Jacobian Z of a sum). */
#define ARITH_POINTS(G, E)                                                                         \
    static int G##_arith_points(size_t n, unsigned char **xyzz, unsigned char **aff) {             \
        *xyzz = malloc(n * 4 * sizeof(E));                                                         \
        *aff = malloc(n * 2 * sizeof(E));                                                          \
        if (!*xyzz || !*aff)                                                                       \
            return -1;                                                                             \
        G##_affine gen;                                                                            \
        G##_jac g, p, q, step3;                                                                    \
        G##_generator(&gen);                                                                       \
        G##_jac_from_affine(&g, &gen);                                                             \
        G##_jac_add_vartime(&p, &g, &g);          /* 2G */                                         \
        G##_jac_add_vartime(&step3, &p, &g);      /* 3G */                                         \
        g16_scalar k = {{1000, 0, 0, 0}};                                                          \
        G##_jac_mul_vartime(&q, &g, &k);                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            G##_affine a;                                                                          \
            G##_jac_to_affine(&a, &p);                                                             \
            memcpy(*aff + i * 2 * sizeof(E), &a.x, sizeof(E));                                     \
            memcpy(*aff + (i * 2 + 1) * sizeof(E), &a.y, sizeof(E));                               \
            E zz, zzz;                                                                             \
            E##_sqr(&zz, &q.z);                                                                    \
            E##_mul(&zzz, &zz, &q.z);                                                              \
            unsigned char *o = *xyzz + i * 4 * sizeof(E);                                          \
            memcpy(o, &q.x, sizeof(E));                                                            \
            memcpy(o + sizeof(E), &q.y, sizeof(E));                                                \
            memcpy(o + 2 * sizeof(E), &zz, sizeof(E));                                             \
            memcpy(o + 3 * sizeof(E), &zzz, sizeof(E));                                            \
            G##_jac_add_vartime(&p, &p, &g);                                                       \
            G##_jac_add_vartime(&q, &q, &step3);                                                   \
        }                                                                                          \
        return 0;                                                                                  \
    }
ARITH_POINTS(bn254_g1, bn254_fp)
ARITH_POINTS(bls381_g1, bls381_fp)

int bench_arith_cuda(const bench_opts *o) {
    g16_status st = {0};
    g16_gpu *gpu = NULL;
    if (g16_gpu_count() == 0) {
        fprintf(stderr, "g16 bench arith: backend cuda: no usable CUDA device\n");
        return 1;
    }
    if (g16_gpu_create(&gpu, 0, 1024, 0, &o->cfg, &st) != G16_OK) {
        fprintf(stderr, "g16 bench arith: %s\n", st.msg);
        return 1;
    }
    uint64_t seed = o->seed_set ? o->seed : (uint64_t)g16_now_ms();
    fprintf(stderr, "bench arith --backend cuda: seed %llu\n", (unsigned long long)seed);
    int iters = o->reps > 0 ? o->reps * 100 : 2000;
    int rc = 0;
    for (int c = 0; c < 2 && !rc; c++) {
        g16_curve curve = c == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;
        if (o->curve_set && o->curve != curve)
            continue;
        const size_t n = 64;
        unsigned char *xyzz = NULL, *aff = NULL;
        int bad = c == 0 ? bn254_g1_arith_points(n, &xyzz, &aff) : bls381_g1_arith_points(n, &xyzz, &aff);
        g16_gpu_arith_result res[32];
        int count = 0;
        g16_gpu_arith_points pts = {xyzz, aff, n};
        if (bad) {
            fprintf(stderr, "g16 bench arith: out of memory\n");
            rc = 1;
        } else if (g16_gpu_arith_bench(gpu, curve, &pts, iters, seed, res, 32, &count, &st) != G16_OK) {
            fprintf(stderr, "g16 bench arith: %s\n", st.msg);
            rc = 1;
        }
        for (int i = 0; i < count; i++) {
            char extra[200];
            snprintf(extra, sizeof extra,
                     "\"ilp\":%d,\"blocks_per_sm\":%d,\"iters\":%d,\"ms\":%.3f,\"per_sm_clk\":%.2f,\"match\":%d",
                     res[i].ilp, res[i].blocks_per_sm, iters, res[i].ms, res[i].per_sm_clk, res[i].match);
            bench_report(o, res[i].name, curve, extra, "gops", res[i].gops);
            if (res[i].match == 0) {
                fprintf(stderr, "g16 bench arith: %s (ilp %d) differs from the reference\n", res[i].name,
                        res[i].ilp);
                rc = 1;
            }
        }
        free(xyzz);
        free(aff);
    }
    g16_gpu_destroy(gpu);
    return rc;
}
