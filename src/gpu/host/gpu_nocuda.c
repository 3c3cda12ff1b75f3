/* The GPU interface in a build without CUDA: no devices, every call fails
 * with G16_ERR_NO_DEVICE. */
#include <stdio.h>

#include "../gpu.h"
#include "../msm_plan.h"

int g16_gpu_count(void) { return 0; }

int g16_gpu_probe(char *note, size_t cap) {
    if (note && cap)
        snprintf(note, cap, "this build has no CUDA backend");
    return 0;
}

void g16_gpu_describe(int device, char *buf, size_t cap) {
    if (buf && cap)
        snprintf(buf, cap, "device %d: this build has no CUDA backend", device);
}

g16_err g16_gpu_create(g16_gpu **out, int device, size_t max_points, int with_g2, const g16_config *cfg,
                       g16_status *st) {
    (void)cfg;
    (void)device, (void)max_points, (void)with_g2;
    if (out)
        *out = NULL;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

void g16_gpu_destroy(g16_gpu *g) { (void)g; }

const char *g16_gpu_name(const g16_gpu *g) {
    (void)g;
    return "none";
}

g16_scalar *g16_gpu_scalar_buffer(g16_gpu *g) {
    (void)g;
    return NULL;
}

g16_err g16_gpu_bases_upload(g16_gpu *g, g16_gpu_bases **out, g16_curve curve, g16_gpu_group group,
                             const void *points, size_t n, g16_status *st) {
    (void)g, (void)curve, (void)group, (void)points, (void)n;
    if (out)
        *out = NULL;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

void g16_gpu_bases_free(g16_gpu *g, g16_gpu_bases *b) { (void)g, (void)b; }

size_t g16_gpu_bases_count(const g16_gpu_bases *b) {
    (void)b;
    return 0;
}

g16_err g16_gpu_bases_drop_infinity(g16_gpu *g, g16_gpu_bases *b, size_t min_drop, size_t *dropped,
                                    g16_status *st) {
    (void)g, (void)b, (void)min_drop;
    if (dropped)
        *dropped = 0;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

size_t g16_gpu_bases_source_count(const g16_gpu_bases *b) {
    (void)b;
    return 0;
}

g16_err g16_gpu_bases_gather(g16_gpu *g, const g16_gpu_bases *b, g16_scalar *dst, const g16_scalar *src,
                             g16_status *st) {
    (void)g, (void)b, (void)dst, (void)src;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_msm(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const g16_scalar *scalars, size_t n,
                    g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)out_jac, (void)b, (void)scalars, (void)n, (void)timing;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_msm_at(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, size_t first, const g16_scalar *scalars,
                       size_t n, g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)out_jac, (void)b, (void)first, (void)scalars, (void)n, (void)timing;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_scratch_wipe(g16_gpu *g, g16_status *st) {
    (void)g, (void)st;
    return G16_OK; /* no context exists in this build */
}

g16_err g16_gpu_test_scratch_nonzero(g16_gpu *g, size_t *nonzero, g16_status *st) {
    (void)g, (void)st;
    *nonzero = 0;
    return G16_OK;
}

const g16_config *g16_gpu_config(const g16_gpu *g) {
    (void)g;
    return NULL;
}

size_t g16_gpu_ctx_bytes(size_t max_points, int with_g2, const g16_config *cfg) {
    int policy;
    uint32_t seg;
    g16gpu_cfg_plan(cfg, &policy, &seg);
    return g16gpu_ctx_device_bytes(max_points, with_g2, policy, seg);
}

size_t g16_gpu_table_bytes(g16_curve curve, g16_gpu_group group, size_t n, const g16_config *cfg) {
    (void)curve, (void)group, (void)n, (void)cfg;
    return 0;
}

g16_err g16_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, g16_status *st) {
    (void)device;
    *free_bytes = *total_bytes = 0;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_pci_address(int device, char *buf, size_t len, g16_status *st) {
    (void)device;
    if (buf && len)
        buf[0] = 0;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

size_t g16_gpu_device_bytes(const g16_gpu *g) {
    (void)g;
    return 0;
}

size_t g16_gpu_max_points(const g16_gpu *g) {
    (void)g;
    return 0;
}

g16_err g16_gpu_bases_precompute(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st) {
    (void)g, (void)b, (void)c;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

size_t g16_gpu_bases_device_bytes(const g16_gpu_bases *b) {
    (void)b;
    return 0;
}

g16_err g16_gpu_field_op(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a, const void *b,
                         size_t n, g16_status *st) {
    (void)g, (void)f, (void)op, (void)out, (void)a, (void)b, (void)n;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_arith_bench(g16_gpu *g, g16_curve curve, const g16_gpu_arith_points *pts, int iters, uint64_t seed,
                            g16_gpu_arith_result *out, int max, int *count, g16_status *st) {
    (void)g, (void)curve, (void)pts, (void)iters, (void)seed, (void)out, (void)max;
    *count = 0;
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

/* ---- NTT, streamed MSM and memory helpers (declared in gpu.h) ---- */
static g16_err no_device(g16_status *st) {
    return g16_fail(st, G16_ERR_NO_DEVICE, "gpu: this build of g16 has no CUDA backend");
}

g16_err g16_gpu_domain_create(g16_gpu *g, g16_gpu_domain **out, g16_curve curve, unsigned log_n,
                              g16_status *st) {
    (void)g, (void)curve, (void)log_n;
    if (out)
        *out = NULL;
    return no_device(st);
}

void g16_gpu_domain_free(g16_gpu_domain *d) { (void)d; }

g16_err g16_gpu_ntt_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind,
                        int order, const void *shift, g16_status *st) {
    (void)g, (void)d, (void)d_data, (void)kind, (void)order, (void)shift;
    return no_device(st);
}

g16_err g16_gpu_h_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c,
                      g16_scalar *d_h, g16_status *st) {
    (void)g, (void)d, (void)d_a, (void)d_b, (void)d_c, (void)d_h;
    return no_device(st);
}

g16_err g16_gpu_fr_check(g16_gpu *g, g16_curve curve, const void *d_x, size_t n, uint64_t *d_bad, g16_status *st) {
    (void)g, (void)curve, (void)d_x, (void)n, (void)d_bad;
    return no_device(st);
}

g16_err g16_gpu_fr_to_scalar(g16_gpu *g, g16_curve curve, g16_scalar *d_out, const void *d_x, size_t n,
                             g16_status *st) {
    (void)g, (void)curve, (void)d_out, (void)d_x, (void)n;
    return no_device(st);
}

g16_err g16_gpu_fr_scatter(g16_gpu *g, g16_curve curve, void *d_out, const void *d_in, size_t n_in, unsigned log_n,
                           uint64_t m, g16_status *st) {
    (void)g, (void)curve, (void)d_out, (void)d_in, (void)n_in, (void)log_n, (void)m;
    return no_device(st);
}

g16_err g16_gpu_fr_quotient(g16_gpu *g, g16_curve curve, void *d_a, const void *d_b, const void *d_c,
                            const void *zinv, size_t n, g16_status *st) {
    (void)g, (void)curve, (void)d_a, (void)d_b, (void)d_c, (void)zinv, (void)n;
    return no_device(st);
}

size_t g16_gpu_compact_tmp_bytes(size_t nbits) {
    size_t nw = (nbits + 63) / 64;
    return (nw + (nw + 255) / 256 + 1) * sizeof(uint32_t);
}

g16_err g16_gpu_compact(g16_gpu *g, g16_scalar *d_out, const g16_scalar *d_in, const uint64_t *d_bits, size_t nbits,
                        void *d_tmp, g16_status *st) {
    (void)g, (void)d_out, (void)d_in, (void)d_bits, (void)nbits, (void)d_tmp;
    return no_device(st);
}

g16_err g16_gpu_ntt(g16_gpu *g, const g16_gpu_domain *d, void *data, g16_gpu_ntt_kind kind, int order,
                    const void *shift, g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)d, (void)data, (void)kind, (void)order, (void)shift, (void)timing;
    return no_device(st);
}

g16_err g16_gpu_h(g16_gpu *g, const g16_gpu_domain *d, const void *a, const void *b, const void *c,
                  g16_scalar *h, g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)d, (void)a, (void)b, (void)c, (void)h, (void)timing;
    return no_device(st);
}

g16_err g16_gpu_msm_streamed(g16_gpu *g, void *out_jac, g16_curve curve, g16_gpu_group group,
                             const void *host_points, const g16_scalar *scalars, size_t n,
                             g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)out_jac, (void)curve, (void)group, (void)host_points, (void)scalars, (void)n,
        (void)timing;
    return no_device(st);
}

g16_err g16_gpu_msm_density(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *scalars, size_t n_scalars, g16_gpu_timing *timing, g16_status *st) {
    (void)g, (void)out_jac, (void)b, (void)density, (void)scalars, (void)n_scalars, (void)timing;
    return no_device(st);
}

g16_err g16_gpu_stream_reserve(g16_gpu *g, g16_status *st) {
    (void)g;
    return no_device(st);
}

g16_err g16_gpu_host_pin(void *p, size_t bytes, g16_status *st) {
    (void)p, (void)bytes;
    return no_device(st);
}

void g16_gpu_host_unpin(void *p) { (void)p; }

g16_err g16_gpu_alloc(g16_gpu *g, void **d_ptr, size_t bytes, g16_status *st) {
    (void)g, (void)bytes;
    if (d_ptr)
        *d_ptr = NULL;
    return no_device(st);
}

void g16_gpu_free(g16_gpu *g, void *d_ptr) { (void)g, (void)d_ptr; }

g16_err g16_gpu_copy_async(g16_gpu *g, void *dst, const void *src, size_t bytes, g16_status *st) {
    (void)g, (void)dst, (void)src, (void)bytes;
    return no_device(st);
}

g16_err g16_gpu_sync(g16_gpu *g, g16_status *st) {
    (void)g;
    return no_device(st);
}
