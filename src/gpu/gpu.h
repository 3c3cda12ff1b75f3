/* GPU backend (CUDA), beside the CPU ntt/msm layer. Plain C: no CUDA header
 * is needed to use it, and a build without CUDA links gpu_nocuda.c, whose
 * functions all return G16_ERR_NO_DEVICE (g16_gpu_count() returns 0).
 *
 * Execution model (docs DESIGN.md, "The GPU execution model"):
 *   - one g16_gpu per device, created once: it owns a stream, events and all
 *     scratch memory, sized up front for MSMs of up to max_points points;
 *   - bases are uploaded once (g16_gpu_bases_upload) and stay resident;
 *   - an MSM synchronizes only on the context's stream; it never calls
 *     cudaDeviceSynchronize, cudaMemGetInfo or cudaMalloc/cudaFree.
 * A g16_gpu is not thread-safe: one caller at a time (a worker owns it).
 *
 * Data layout is the CPU's (src/field, src/curve): field elements in
 * Montgomery form, little-endian 64-bit limbs, R = 2^256 or 2^384; on the GPU
 * the same bytes are read as 8 or 12 little-endian 32-bit limbs with the same
 * R, so buffers are exchanged without conversion and compare bit for bit.
 * Affine bases use (0, 0) for infinity. Scalars are canonical integers
 * (g16_scalar, below 2^254 for BN254 and 2^255 for BLS12-381: any value
 * below r is fine).
 *
 * Errors: every CUDA call is checked; a failure returns G16_ERR_DEVICE with
 * "call@file:line: cuda error string" in st->msg. Nothing aborts. */
#ifndef G16_GPU_H
#define G16_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Inside extern "C": the .cu files include this header as C++, and the
 * layers below (util.h's g16_fail, ...) are C. */
#include "../curve/curve.h"
#include "../util/config.h"

typedef struct g16_gpu g16_gpu;             /* device context */
typedef struct g16_gpu_bases g16_gpu_bases; /* resident affine bases */

typedef enum g16_gpu_group { G16_GPU_G1 = 1, G16_GPU_G2 = 2 } g16_gpu_group;

/* Number of usable CUDA devices (0 without CUDA, or if the driver fails). */
int g16_gpu_count(void);
/* The device count, as g16_gpu_count, with note (cap bytes) saying the CUDA
 * runtime and driver versions, or why no device is seen ("no CUDA driver",
 * the runtime's error). Never fails; creates no device context. */
int g16_gpu_probe(char *note, size_t cap);
/* One line about device `device` into buf (cap bytes): its name, compute
 * capability, SMs and memory, or the runtime's error. Creates no context. */
void g16_gpu_describe(int device, char *buf, size_t cap);

/* Creates the context for device `device`, with scratch for MSMs of up to
 * max_points points in G1 (and in G2 as well if with_g2). Its knobs (gpu.*
 * options: MSM window and segment, accumulation occupancy, NTT shape, the
 * device's sync mode, GPU synthesis) are copied from cfg (NULL: the
 * defaults; callers with a g16_ctx pass g16_ctx_config(ctx)). */
g16_err g16_gpu_create(g16_gpu **out, int device, size_t max_points, int with_g2, const g16_config *cfg,
                       g16_status *st);
/* The options g was created with (NULL for NULL or without CUDA: read as
 * the defaults by g16_config_*). */
const g16_config *g16_gpu_config(const g16_gpu *g);
void g16_gpu_destroy(g16_gpu *g);
/* One line describing the device (name, SMs, memory). */
const char *g16_gpu_name(const g16_gpu *g);

/* The context's pinned host buffer for max_points scalars, made on the
 * first call (NULL if that fails). Scalars written here go to the device at
 * full PCIe speed (g16_gpu_msm notices); other (pageable) scalar arrays are
 * copied 2-4 times slower. */
g16_scalar *g16_gpu_scalar_buffer(g16_gpu *g);

/* Zeroes every buffer of g's MSM scratch that holds witness-derived data
 * (the scalars, their digits and sort space, bucket and partial sums, the
 * window sums on device and host, the 0/1 split's index lists and counts,
 * the density positions): memsets queued on g's stream, the pinned window
 * sums cleared on the host. Call with no MSM of g in flight (every
 * g16_gpu_msm* call returns after its copies); the caller's scalar buffer
 * (g16_gpu_scalar_buffer) is the caller's to wipe. */
g16_err g16_gpu_scratch_wipe(g16_gpu *g, g16_status *st);
/* Tests: the number of nonzero bytes in that scratch (waits for g's
 * stream, copies every buffer back). */
g16_err g16_gpu_test_scratch_nonzero(g16_gpu *g, size_t *nonzero, g16_status *st);

/* Uploads n affine points of `group` on `curve` (the CPU's G_affine array)
 * and keeps them on the device until g16_gpu_bases_free. */
g16_err g16_gpu_bases_upload(g16_gpu *g, g16_gpu_bases **out, g16_curve curve, g16_gpu_group group,
                             const void *points, size_t n, g16_status *st);
void g16_gpu_bases_free(g16_gpu *g, g16_gpu_bases *b);
size_t g16_gpu_bases_count(const g16_gpu_bases *b);
/* Drops b's points at infinity ((0, 0), as snarkjs stores them) when there
 * are at least min_drop of them (0 counts as 1): b then holds the remaining
 * points, in order, and their source indices, and every count of b (MSMs,
 * g16_gpu_bases_count, density bitmaps, tables) is over the kept points; an
 * MSM over the n_src source scalars is g16_gpu_bases_gather, then an MSM of
 * count(b) points. Saves device memory and the additions of zero points
 * (Groth16's B columns of wires in no B term: most of a filecoin circuit's).
 * *dropped = the points removed (0: b unchanged). Allocates, frees and
 * synchronizes: once, at key load, before any g16_gpu_bases_precompute. */
g16_err g16_gpu_bases_drop_infinity(g16_gpu *g, g16_gpu_bases *b, size_t min_drop, size_t *dropped,
                                    g16_status *st);
/* The points b was uploaded with (= g16_gpu_bases_count unless some were dropped). */
size_t g16_gpu_bases_source_count(const g16_gpu_bases *b);
/* dst[j] = src[i_j] for the count(b) kept points' source indices i_j, queued
 * on g's stream (dst and src in device memory, dst not overlapping src);
 * G16_ERR_INVALID_ARG when b dropped nothing. */
g16_err g16_gpu_bases_gather(g16_gpu *g, const g16_gpu_bases *b, g16_scalar *dst, const g16_scalar *src,
                             g16_status *st);
/* Memory for speed (msm.cuh, "precomputed window multiples"): replaces b's
 * device copy by a table of W = nbits/c + 1 windows, window w holding
 * 2^(cw) times every base, so that an MSM over b sorts all windows' digits
 * into one set of buckets and reduces them once (no per-window reduction,
 * no Horner step). c = 0 takes the window that minimizes the additions for
 * b's n points in a context made for n points (msm_plan.h, g16gpu_table_c:
 * at 2^24, c = 22 and 12 windows); an MSM whose sort or buckets at that c
 * do not fit its context's scratch ignores the table (g16_gpu_timing.table
 * says which ran). Costs W times the bases' device memory (BLS12-381 G1 at
 * 2^24: 12 x 1.6 GB); allocates and synchronizes: call it once, at key
 * load. G16_ERR_NOMEM leaves b as it was. */
g16_err g16_gpu_bases_precompute(g16_gpu *g, g16_gpu_bases *b, int c, g16_status *st);
/* Device bytes held by b's points (the table's W windows after a precompute). */
size_t g16_gpu_bases_device_bytes(const g16_gpu_bases *b);
/* On the host (no device needed; 0 in a build without CUDA): the device
 * bytes of the table g16_gpu_bases_precompute(c = 0) makes over n bases of
 * curve/group, the W windows included, in a context created with cfg (NULL:
 * the defaults). */
size_t g16_gpu_table_bytes(g16_curve curve, g16_gpu_group group, size_t n, const g16_config *cfg);
/* Free and total memory of a device (cudaMemGetInfo: device-wide, so for
 * decisions at key load, never per proof). */
g16_err g16_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, g16_status *st);

/* Timings of the last MSM on a context, from CUDA events (milliseconds). */
typedef struct g16_gpu_timing {
    float total_ms;  /* scalar upload + all kernels + result download */
    float kernel_ms; /* from the first kernel to the last */
    /* kernel_ms in three stages (0 when no digit was sorted): the 0/1
     * split, digits and sort; the bucket accumulation; the bucket
     * reduction and window sums. Summed over chunks when streamed. */
    float sort_ms, acc_ms, reduce_ms;
    int table; /* 1: the MSM ran on the bases' window table */
} g16_gpu_timing;

/* r = sum_i scalars[i] * bases[i] for i < n (n <= the bases' count; above
 * the context's max_points, in chunks of it whose bucket reductions overlap
 * the next chunk's work, timing then giving the whole: total_ms = kernel_ms
 * = the device's span from the first chunk's start to the last one's end,
 * no stage times). scalars may be in host memory (pinned or not) or in
 * device memory (unified addressing: the copy direction is inferred), so a
 * prover can feed scalars it computed on the device. out_jac points to the CPU's G_jac of the bases' group
 * (bn254_g1_jac, ...); infinity is returned with z = 0. timing may be NULL. */
g16_err g16_gpu_msm(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const g16_scalar *scalars,
                    size_t n, g16_gpu_timing *timing, g16_status *st);

/* The same over the bases first .. first + n - 1 (first + n <= the bases'
 * count). */
g16_err g16_gpu_msm_at(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, size_t first, const g16_scalar *scalars,
                       size_t n, g16_gpu_timing *timing, g16_status *st);
/* The most points one MSM of g takes (g16_gpu_create's max_points). */
size_t g16_gpu_max_points(const g16_gpu *g);
/* Device bytes a context made with (max_points, with_g2, cfg) takes, computed
 * on the host (works without CUDA and without a device): an upper bound of
 * its scratch (msm_plan.h, g16gpu_ctx_device_bytes: the plan's buffers,
 * CUB's sort scratch bounded, each allocation rounded to 2 MiB), for the
 * engine's device budget. Not included: the pinned host buffers, the
 * streamed path's staging buffers, the CUDA context. */
size_t g16_gpu_ctx_bytes(size_t max_points, int with_g2, const g16_config *cfg);
/* The device bytes g's create asked cudaMalloc for (0 for NULL or without
 * CUDA): what g16_gpu_ctx_bytes bounds (tests compare them). */
size_t g16_gpu_device_bytes(const g16_gpu *g);
/* The PCI address of device `device` ("0000:1b:00.0", lower case, as in
 * /sys/bus/pci/devices), for placing host threads near it. */
g16_err g16_gpu_pci_address(int device, char *buf, size_t len, g16_status *st);

/* Density form (as the CPU's msm_<G>_density): density is a bitmap over the
 * bases' n points, bit i = (density[i / 8] >> (i % 8)) & 1, in host or
 * device memory; scalar j pairs with the base at the j-th set bit:
 *   out = sum_{j < n_scalars} scalars[j] * bases[pos_j].
 * The number of set bits must equal n_scalars (else G16_ERR_SIZE_MISMATCH);
 * n_scalars <= max_points, and the bases' n at most 128 * max_points. The
 * bitmap is staged in g's own scratch, so workers with their own contexts
 * may run density MSMs over one resident bases object at once. */
g16_err g16_gpu_msm_density(g16_gpu *g, void *out_jac, const g16_gpu_bases *b, const uint8_t *density,
                            const g16_scalar *scalars, size_t n_scalars, g16_gpu_timing *timing, g16_status *st);

/* Typed wrappers. */
static inline g16_err g16_gpu_msm_bn254_g1(g16_gpu *g, bn254_g1_jac *r, const g16_gpu_bases *b,
                                           const g16_scalar *k, size_t n, g16_status *st) {
    return g16_gpu_msm(g, r, b, k, n, NULL, st);
}
static inline g16_err g16_gpu_msm_bls381_g1(g16_gpu *g, bls381_g1_jac *r, const g16_gpu_bases *b,
                                            const g16_scalar *k, size_t n, g16_status *st) {
    return g16_gpu_msm(g, r, b, k, n, NULL, st);
}
static inline g16_err g16_gpu_msm_bn254_g2(g16_gpu *g, bn254_g2_jac *r, const g16_gpu_bases *b,
                                           const g16_scalar *k, size_t n, g16_status *st) {
    return g16_gpu_msm(g, r, b, k, n, NULL, st);
}
static inline g16_err g16_gpu_msm_bls381_g2(g16_gpu *g, bls381_g2_jac *r, const g16_gpu_bases *b,
                                            const g16_scalar *k, size_t n, g16_status *st) {
    return g16_gpu_msm(g, r, b, k, n, NULL, st);
}

/* ---- NTT over Fr (ntt.cuh, ntt_<curve>.cu) ----------------------------------
 * Same definitions, roots (snarkjs's 5^t convention) and orders as the CPU's
 * ntt layer (src/ntt/ntt.h); results equal the CPU's bit for bit (Montgomery
 * form, fully reduced). A domain holds the twiddles of one (curve, log_n) on
 * one device: it is created once (it allocates) and then serves any number
 * of transforms from any context on that device. log_n <= 28 (and <= the
 * field's two-adicity; G16_ERR_UNSUPPORTED above): twiddle memory is
 * O(2^(log_n/2)), a few MiB at most. Coset kinds build their shift tables
 * in the context's scratch, so a context runs one transform at a time
 * (stream order), while a domain may be shared by contexts. */
typedef struct g16_gpu_domain g16_gpu_domain;
g16_err g16_gpu_domain_create(g16_gpu *g, g16_gpu_domain **out, g16_curve curve, unsigned log_n,
                              g16_status *st);
void g16_gpu_domain_free(g16_gpu_domain *d);

typedef enum g16_gpu_ntt_kind {
    G16_GPU_NTT_FORWARD,       /* coefficients -> values */
    G16_GPU_NTT_INVERSE,       /* values -> coefficients */
    G16_GPU_NTT_COSET_FORWARD, /* values on the coset shift*omega^j */
    G16_GPU_NTT_COSET_INVERSE,
    G16_GPU_NTT_ODD_COSET      /* ntt_<fr>_odd_coset_from_evals (order must be NTT_NN) */
} g16_gpu_ntt_kind;

/* In place on device memory d_data (2^log_n Fr elements), queued on g's
 * stream (asynchronous: no host synchronization, no allocation). order is
 * an ntt_order value (0 NN, 1 NR, 2 RN, 3 RR); shift (host pointer to one Fr
 * element, Montgomery) is used by the coset kinds only. */
g16_err g16_gpu_ntt_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_data, g16_gpu_ntt_kind kind,
                        int order, const void *shift, g16_status *st);
/* The prover's H step on device memory, queued on g's stream: a, b, c hold
 * the evaluations of A, B, C on the domain (Montgomery, natural order); they
 * are overwritten with their odd-coset values, and d_h (2^log_n canonical
 * g16_scalar, may alias d_a) receives h_i = a_i*b_i - c_i in standard form. */
g16_err g16_gpu_h_dev(g16_gpu *g, const g16_gpu_domain *d, void *d_a, void *d_b, void *d_c,
                      g16_scalar *d_h, g16_status *st);
/* Host-memory forms for tests and benches: copy in, run, copy out, wait.
 * They allocate device memory per call (not for the proving path). timing
 * may be NULL. g16_gpu_h leaves a, b, c unchanged. */
g16_err g16_gpu_ntt(g16_gpu *g, const g16_gpu_domain *d, void *data, g16_gpu_ntt_kind kind, int order,
                    const void *shift, g16_gpu_timing *timing, g16_status *st);
g16_err g16_gpu_h(g16_gpu *g, const g16_gpu_domain *d, const void *a, const void *b, const void *c,
                  g16_scalar *h, g16_gpu_timing *timing, g16_status *st);

/* ---- Fr arrays on the device (ntt/fr_ops.cu) ---------------------------------
 * What a prover of pre-synthesized partitions (bellperson's assignments:
 * Fr values in Montgomery form, bitmaps of 64-bit words, LSB first) needs
 * around the NTTs and MSMs. Fr of curve (BN254 or BLS12-381), 32 bytes per
 * element, the CPU's bytes; pointers are device memory; every call is
 * queued on g's stream (no allocation, no host synchronization). */
/* *d_bad = min(*d_bad, i) for every i < n with x[i] >= r (not a reduced
 * Montgomery value): preset *d_bad to UINT64_MAX (a 0xff memset). */
g16_err g16_gpu_fr_check(g16_gpu *g, g16_curve curve, const void *d_x, size_t n, uint64_t *d_bad, g16_status *st);
/* d_out[i] = the canonical integer of x[i] (x[i] R^-1), i < n; d_out may
 * alias d_x. Values of x must be below r (g16_gpu_fr_check). */
g16_err g16_gpu_fr_to_scalar(g16_gpu *g, g16_curve curve, g16_scalar *d_out, const void *d_x, size_t n,
                             g16_status *st);
/* d_out[(m j) mod 2^log_n] = j < n_in ? d_in[j] : 0 for every j < 2^log_n
 * (m odd, so every position is written once; n_in <= 2^log_n; d_out and d_in
 * do not overlap). With m = g16_params_root_exponent's, transforms of d_out
 * under g16's roots of unity are bellperson's transforms of d_in. */
g16_err g16_gpu_fr_scatter(g16_gpu *g, g16_curve curve, void *d_out, const void *d_in, size_t n_in, unsigned log_n,
                           uint64_t m, g16_status *st);
/* d_a[i] = (d_a[i] d_b[i] - d_c[i]) * zinv, i < n; zinv is one Fr element
 * (Montgomery) in host memory. */
g16_err g16_gpu_fr_quotient(g16_gpu *g, g16_curve curve, void *d_a, const void *d_b, const void *d_c,
                            const void *zinv, size_t n, g16_status *st);
/* Compaction by a bitmap: d_out[j] = d_in[i_j] for the set bits i_0 < i_1 <
 * ... of d_bits below nbits (bits past nbits ignored; nbits < 2^32), for
 * 32-byte elements; d_out holds the set bits' count. d_tmp is device scratch
 * of g16_gpu_compact_tmp_bytes(nbits) bytes (host-computed, no device). */
size_t g16_gpu_compact_tmp_bytes(size_t nbits);
g16_err g16_gpu_compact(g16_gpu *g, g16_scalar *d_out, const g16_scalar *d_in, const uint64_t *d_bits, size_t nbits,
                        void *d_tmp, g16_status *st);

/* ---- MSM with bases streamed from host memory (msm.cuh) ------------------
 * For keys that do not fit on the device: the bases (the CPU's G_affine
 * array, ideally in pinned memory) are copied in double-buffered chunks of
 * at most the context's max_points, the copy of one chunk overlapping the
 * kernels of the previous one; the result equals g16_gpu_msm's. */
g16_err g16_gpu_msm_streamed(g16_gpu *g, void *out_jac, g16_curve curve, g16_gpu_group group,
                             const void *host_points, const g16_scalar *scalars, size_t n,
                             g16_gpu_timing *timing, g16_status *st);

/* Allocates the streamed MSM's two staging buffers (max_points affine points
 * each, of the largest group the context serves), its copy stream and
 * events, once: call it at set-up; otherwise the first streamed MSM does. */
g16_err g16_gpu_stream_reserve(g16_gpu *g, g16_status *st);
/* Page-locks host memory (cudaHostRegister), so that streamed bases copy at
 * full speed and their copies overlap the kernels; g16_gpu_host_unpin before
 * freeing it. Pinning is slow (call it once per key, not per proof). */
g16_err g16_gpu_host_pin(void *p, size_t bytes, g16_status *st);
void g16_gpu_host_unpin(void *p);

/* ---- backend choice ----------------------------------------------------------
 * "cpu", "cuda" or "auto" (NULL = "auto") -> *out CPU or CUDA: auto is CUDA
 * when g16_gpu_count() > 0; "cuda" without a device fails with
 * G16_ERR_NO_DEVICE, an unknown name with G16_ERR_INVALID_ARG. */
typedef enum g16_gpu_backend { G16_GPU_BACKEND_CPU = 0, G16_GPU_BACKEND_CUDA = 1 } g16_gpu_backend;
static inline g16_err g16_gpu_backend_choose(const char *name, g16_gpu_backend *out, g16_status *st) {
    int cpu = name && name[0] == 'c' && name[1] == 'p' && name[2] == 'u' && !name[3];
    int cuda = name && name[0] == 'c' && name[1] == 'u' && name[2] == 'd' && name[3] == 'a' && !name[4];
    int autom = !name || (name[0] == 'a' && name[1] == 'u' && name[2] == 't' && name[3] == 'o' && !name[4]);
    *out = G16_GPU_BACKEND_CPU;
    if (!cpu && !cuda && !autom)
        return g16_fail(st, G16_ERR_INVALID_ARG, "backend '%s': expected cpu, cuda or auto", name);
    if (cpu)
        return G16_OK;
    if (g16_gpu_count() > 0)
        *out = G16_GPU_BACKEND_CUDA;
    else if (cuda)
        return g16_fail(st, G16_ERR_NO_DEVICE, "backend cuda: no usable CUDA device");
    return G16_OK;
}

/* Device memory of a pointer-sized helper: allocate / free once (at worker
 * start or key upload, never per proof) and copy on g's stream. */
g16_err g16_gpu_alloc(g16_gpu *g, void **d_ptr, size_t bytes, g16_status *st);
void g16_gpu_free(g16_gpu *g, void *d_ptr);
g16_err g16_gpu_copy_async(g16_gpu *g, void *dst, const void *src, size_t bytes, g16_status *st);
g16_err g16_gpu_sync(g16_gpu *g, g16_status *st); /* waits for g's stream only */
/* Fills bytes of device memory with the byte value on g's stream
 * (asynchronous), e.g. to wipe witness-derived data after a proof. */
g16_err g16_gpu_memset_async(g16_gpu *g, void *d_ptr, int value, size_t bytes, g16_status *st);
/* Pinned (page-locked, portable) host memory for buffers that are copied to
 * a device on every proof: allocate once (a worker's working area), never
 * per proof (cudaHostAlloc is a device-global call). Without CUDA,
 * G16_ERR_NO_DEVICE: callers fall back to malloc. */
g16_err g16_gpu_host_alloc(void **p, size_t bytes, g16_status *st);
void g16_gpu_host_free(void *p);
/* Timing events on g's stream (created once, like the buffers): record
 * queues the event; elapsed waits for `to` (that event only) and gives the
 * milliseconds between two recorded events. */
typedef struct g16_gpu_event g16_gpu_event;
g16_err g16_gpu_event_create(g16_gpu *g, g16_gpu_event **ev, g16_status *st);
void g16_gpu_event_destroy(g16_gpu *g, g16_gpu_event *ev);
g16_err g16_gpu_event_record(g16_gpu *g, g16_gpu_event *ev, g16_status *st);
g16_err g16_gpu_event_elapsed(float *ms, g16_gpu_event *from, g16_gpu_event *to, g16_status *st);
/* Waits until ev's last recording has completed (that event only, not the
 * device; at once if it was never recorded). */
g16_err g16_gpu_event_wait(g16_gpu_event *ev, g16_status *st);

/* ---- test hooks -------------------------------------------------------------
 * Element-wise field arithmetic on the device, to compare with the CPU field
 * layer: out[i] = a[i] op b[i] for i < n (for SQR, b is ignored). Elements are
 * the CPU's types (bn254_fp, ..., bls381_fp2). Allocates device memory per
 * call: for tests only, not for the proving path. */
typedef enum g16_gpu_field {
    G16_GPU_BN254_FP,
    G16_GPU_BN254_FR,
    G16_GPU_BLS381_FP,
    G16_GPU_BLS381_FR,
    G16_GPU_BN254_FP2,
    G16_GPU_BLS381_FP2
} g16_gpu_field;
typedef enum g16_gpu_op { G16_GPU_ADD, G16_GPU_SUB, G16_GPU_MUL, G16_GPU_SQR } g16_gpu_op;
g16_err g16_gpu_field_op(g16_gpu *g, g16_gpu_field f, g16_gpu_op op, void *out, const void *a,
                         const void *b, size_t n, g16_status *st);

/* ---- arithmetic throughput probes (arith_bench.cu) ----
 * `g16 bench arith --backend cuda`: products, squares and mixed additions
 * in registers (the device's product, and fp_t::mul_cios for comparison),
 * per number of independent chains per thread (ilp). pts: n G1 points of the
 * curve as the device lays them out (xyzz: x, y, zz, zzz; affine: x, y;
 * Montgomery form), the madd inputs. Cases that compute the same values are
 * compared: match 1 equal, 0 different, -1 the reference. The pipe probes
 * (pipe_*, fp_mul+dfma_limbK: the integer and FP64 pipes' rates, alone and
 * side by side) are recomputed on the host instead. iters steps per chain;
 * about 2 s of device time in all at iters = 2000. */
typedef struct g16_gpu_arith_points {
    const unsigned char *xyzz, *affine;
    size_t n;
} g16_gpu_arith_points;
typedef struct g16_gpu_arith_result {
    char name[32];
    int ilp;           /* independent chains per thread */
    int blocks_per_sm; /* occupancy (128-thread blocks), from the CUDA runtime */
    float ms;          /* the timed kernel */
    double gops;       /* operations per second / 1e9 */
    double per_sm_clk; /* operations per SM per cycle at the rated (boost) clock */
    int match;
} g16_gpu_arith_result;
g16_err g16_gpu_arith_bench(g16_gpu *g, g16_curve curve, const g16_gpu_arith_points *pts, int iters, uint64_t seed,
                            g16_gpu_arith_result *out, int max, int *count, g16_status *st);

/* ---- fixed-base scalar multiplication (fixed_base.cuh, fixed_base_*.cu) ----
 * out[i] = k[i] * base for i < n: the test-only setup's key points. base is
 * one affine point of (curve, group) (the CPU's G_affine), k any 256-bit
 * integers (g16_scalar), out n affine points in the CPU's layout (Montgomery,
 * infinity (0, 0)), equal bit for bit to the CPU's. Host memory in and out;
 * runs in chunks on g's stream and returns when out is written. Allocates
 * device memory per call (setup only, not for the proving path). Variable
 * time in k (the test setup's toxic waste is not secret by design). */
g16_err g16_gpu_fixed_base(g16_gpu *g, g16_curve curve, g16_gpu_group group, const void *base,
                           const g16_scalar *k, size_t n, void *out, g16_status *st);

#ifdef __cplusplus
}
#endif
#endif
