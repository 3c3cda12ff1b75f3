/* g16_gpu_msm_streamed (gpu.h), the simple form: the bases go through one
 * device staging area in chunks of at most max_points, one MSM per chunk,
 * and the chunk sums are added on the host. The staging area is allocated
 * per call: this path serves keys that do not fit on the device, where the
 * copy of the bases dominates anyway. */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.cuh"

#define STREAMED_ADD(G)                                                                        \
    static void add_##G(void *acc, const void *part) {                                        \
        G##_jac_add((G##_jac *)acc, (const G##_jac *)acc, (const G##_jac *)part);              \
    }
STREAMED_ADD(bn254_g1)
STREAMED_ADD(bn254_g2)
STREAMED_ADD(bls381_g1)
STREAMED_ADD(bls381_g2)

static g16_err streamed(g16_gpu *g, void *out, g16_gpu_bases *stage, const uint8_t *pts, size_t pt_bytes,
                        size_t jac_bytes, void (*add)(void *, const void *), const g16_scalar *k, size_t n,
                        g16_status *st) {
    size_t chunk = g->max_points;
    uint8_t part[3 * 2 * 48 * 2]; /* the largest Jacobian point: BLS12-381 G2 */
    memset(out, 0, jac_bytes);    /* z = 0: infinity */
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        CU(cudaMemcpyAsync(stage->d_points, pts + off * pt_bytes, m * pt_bytes, cudaMemcpyDefault, g->stream));
        stage->n = m;
        g16_err rc = g16_gpu_msm(g, part, stage, k + off, m, NULL, st);
        if (rc != G16_OK)
            return rc;
        add(out, part);
    }
    return G16_OK;
}

extern "C" g16_err g16_gpu_msm_streamed(g16_gpu *g, void *out_jac, g16_curve curve, g16_gpu_group group,
                                        const void *host_points, const g16_scalar *scalars, size_t n,
                                        g16_gpu_timing *timing, g16_status *st) {
    if (!g || !out_jac || (n && (!host_points || !scalars)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu streamed msm: NULL argument");
    if ((curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381) || (group != G16_GPU_G1 && group != G16_GPU_G2))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu streamed msm: bad curve or group");
    size_t fp = curve == G16_CURVE_BN254 ? 32 : 48, ext = group == G16_GPU_G2 ? 2 : 1;
    size_t pt_bytes = 2 * fp * ext, jac_bytes = 3 * fp * ext;
    void (*add)(void *, const void *) =
        curve == G16_CURVE_BN254 ? (ext == 1 ? add_bn254_g1 : add_bn254_g2) : (ext == 1 ? add_bls381_g1 : add_bls381_g2);
    size_t cap = n < g->max_points ? n : g->max_points;
    g16_gpu_bases *stage = NULL;
    g16_err rc;
    try {
        rc = g16_gpu_bases_upload(g, &stage, curve, group, host_points, cap, st);
        if (rc == G16_OK)
            rc = streamed(g, out_jac, stage, (const uint8_t *)host_points, pt_bytes, jac_bytes, add, scalars, n, st);
    } catch (...) {
        rc = g16_fail(st, G16_ERR_INTERNAL, "gpu streamed msm: unexpected C++ exception");
    }
    if (stage) {
        stage->n = cap;
        g16_gpu_bases_free(g, stage);
    }
    if (rc == G16_OK && timing)
        *timing = g->last;
    return rc;
}
