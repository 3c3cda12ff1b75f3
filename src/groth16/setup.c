/* INSECURE test-only Groth16 setup: a snarkjs-layout .zkey for an R1CS from
 * toxic waste (tau, alpha, beta, gamma, delta) drawn from a seed. Whoever
 * knows the seed can forge proofs; it exists for tests and benchmarks at
 * sizes where a ceremony is impractical.
 *
 * With the n-domain Lagrange basis L_c at tau and snarkjs's extra rows
 * (A[ncons+s] = w_s for s <= nPublic), A_i(tau) = sum_c A[c][i] L_c(tau) and
 * likewise B_i, C_i. The key holds (snarkjs layout):
 *   A[i] = A_i(tau) G1, B1[i] = B_i(tau) G1, B2[i] = B_i(tau) G2,
 *   IC[i] = (beta A_i + alpha B_i + C_i)(tau)/gamma G1   (i <= nPublic)
 *   C[i]  = (beta A_i + alpha B_i + C_i)(tau)/delta G1   (i >  nPublic)
 *   H[j]  = L^{2n}_{2j+1}(tau)/delta G1: the odd-index Lagrange basis of the
 *           2n-domain, which turns the prover's odd-coset values
 *           h_j = (AB - C)(g omega^j) into H(tau) Z(tau)/delta, since
 *           Z(g omega^j) = -2 (docs/groth16.md derives it).
 *
 * The key is built in one buffer of its exact size: a shared mapping of the
 * output file, or an anonymous mapping for in-memory keys (g16 bench prove
 * --synthetic), so no section is staged in a second copy. Sections are in
 * snarkjs's order (1, 2, 4, 3, 9, 8, 5, 6, 7, 10) and coefficients in its
 * order (per constraint: A terms, then B terms; then the public rows).
 *
 * snarkjs_init mode: gamma = delta = 1 and section 10 carries snarkjs's
 * circuit hash, so the key is exactly what `snarkjs zkey new` makes from a
 * prepared ptau with the same tau, alpha, beta (fast_ptau.mjs), and
 * `snarkjs zkey verify` accepts it (docs/interop.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/binwrite.h"
#include "gpu/gpu.h"
#include "groth16.h"
#include "ntt/ntt.h"
#include "params.h"
#include "util/blake2b.h"
#include "util/ctx.h"
#include "util/file.h"

_Static_assert(sizeof(bn254_g1_affine) == 64 && sizeof(bn254_g2_affine) == 128, "zkey point layout");
_Static_assert(sizeof(bls381_g1_affine) == 96 && sizeof(bls381_g2_affine) == 192, "zkey point layout");

#define FB_W 8          /* fixed-base window bits: 32 windows of 255 points */
#define FB_WINDOWS 32   /* 256-bit scalars */
#define FB_CHUNK 4096   /* points per pool task */
#define EMIT_CHUNK (1u << 22) /* points per GPU round (scalar buffer: 128 MiB) */
#define PAD_ID 0x1000   /* first id of the alignment padding sections */

/* Section layout: data offset and size of sections 1..10, in file order
 * 1, 2, 4, 3, 9, 8, 5, 6, 7, 10 (snarkjs's), with a zero-size padding
 * section before a point section whose data would start at 4 mod 8 when
 * aligning. */
typedef struct setup_layout {
    uint64_t off[11], size[11];
    int pad_before[11];
    uint32_t nsec;
    size_t total;
} setup_layout;

static const int setup_order[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

static void setup_plan(setup_layout *L, int align) {
    uint64_t pos = 12;
    L->nsec = 0;
    for (int i = 0; i < 10; i++) {
        int id = setup_order[i];
        int point = id == 3 || (id >= 5 && id <= 9);
        L->pad_before[id] = align && point && (pos + 12) % 8 != 0;
        if (L->pad_before[id]) {
            pos += 12;
            L->nsec++;
        }
        L->off[id] = pos + 12;
        pos += 12 + L->size[id];
        L->nsec++;
    }
    L->total = pos;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Container header and every section header (sizes known up front). */
static void setup_write_headers(uint8_t *buf, const setup_layout *L) {
    memcpy(buf, "zkey", 4);
    put32(buf + 4, 1);
    put32(buf + 8, L->nsec);
    uint32_t pad = PAD_ID;
    for (int i = 0; i < 10; i++) {
        int id = setup_order[i];
        uint8_t *h = buf + L->off[id] - 12;
        if (L->pad_before[id]) {
            put32(h - 12, pad++);
            put64(h - 8, 0);
        }
        put32(h, (uint32_t)id);
        put64(h + 4, L->size[id]);
    }
}

/* The per-run environment the curve templates share. */
typedef struct setup_env {
    g16_ctx *ctx;
    g16_gpu *gpu; /* NULL: CPU fixed-base */
    uint8_t *buf; /* the key bytes */
    setup_layout L;
    const groth16_setup_opts *o;
    groth16_setup_info *info;
    g16_progress prog;  /* the caller's progress (util/progress.h) */
    uint64_t pdone;     /* units of the "points" stage before the current section */
} setup_env;

/* Progress units of one point of a group in the "points" stage. */
#define SETUP_G1_UNITS 1u
#define SETUP_G2_UNITS 3u

/* Fills k[0..m) with the scalars of points lo..lo+m of a section. */
typedef void (*setup_fill_fn)(void *arg, g16_scalar *k, size_t lo, size_t m);

/* Big-endian u32 into the circuit hash (snarkjs's hashU32). */
static void hash_u32be(g16_blake2b *h, uint32_t v) {
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    g16_blake2b_update(h, b, 4);
}

#define CV bn254
#define SETUP_FP_UP BN254_FP
#define SETUP_FR_UP BN254_FR
#include "setup_impl.h"
#undef CV
#undef SETUP_FP_UP
#undef SETUP_FR_UP

#define CV bls381
#define SETUP_FP_UP BLS381_FP
#define SETUP_FR_UP BLS381_FR
#include "setup_impl.h"
#undef CV
#undef SETUP_FP_UP
#undef SETUP_FR_UP

/* groth16_setup_params_insecure: bellperson .params keys (BLS12-381). */
#include "setup_params_impl.h"

void groth16_setup_toxic(g16_curve curve, uint64_t seed, uint8_t out[5][32]) {
    if (curve == G16_CURVE_BN254)
        setup_bn254_toxic_bytes(seed, out);
    else
        setup_bls381_toxic_bytes(seed, out);
}

void groth16_setup_mem_free(void *mem, size_t len) {
    if (mem && len)
        munmap(mem, len);
}

g16_err groth16_setup_insecure_ex(g16_ctx *ctx, const g16_r1cs *cs, const groth16_setup_opts *o,
                                  const char *out_path, void **mem, size_t *mem_len, groth16_setup_info *info,
                                  g16_status *st) {
    groth16_setup_info tmp_info;
    if (!info)
        info = &tmp_info;
    memset(info, 0, sizeof *info);
    if (!ctx || !cs || !o || (!out_path && (!mem || !mem_len)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "setup: NULL argument");
    if (mem)
        *mem = NULL;
    if (mem_len)
        *mem_len = 0;
    if ((uint64_t)cs->nPubOut + cs->nPubIn + 1 > cs->nWires)
        return g16_fail(st, G16_ERR_FORMAT, "setup: more public signals than wires");
    const uint32_t npub = cs->nPubOut + cs->nPubIn, nvars = cs->nWires;
    const uint64_t rows = (uint64_t)cs->nConstraints + npub + 1;
    unsigned log_n = 0;
    while (((uint64_t)1 << log_n) < rows)
        log_n++;
    unsigned max_log = cs->curve == G16_CURVE_BN254 ? ntt_bn254_fr_max_log() : ntt_bls381_fr_max_log();
    if (log_n + 1 > max_log)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "setup: %llu rows exceed the field's 2-adicity",
                        (unsigned long long)rows);
    const uint64_t ncoef = cs->nnz[0] + cs->nnz[1] + npub + 1;
    if (ncoef > UINT32_MAX)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "setup: %llu coefficients do not fit the zkey's u32 count",
                        (unsigned long long)ncoef);

    setup_env e = {.ctx = ctx, .o = o, .info = info};
    g16_progress_init(&e.prog, o->progress, o->progress_user);
    const uint64_t n8q = cs->curve == G16_CURVE_BN254 ? 32 : 48, g1 = 2 * n8q, g2 = 4 * n8q, n = 1ull << log_n;
    e.L.size[1] = 4;
    e.L.size[2] = 4 + n8q + 4 + 32 + 12 + 3 * g1 + 3 * g2;
    e.L.size[3] = (npub + 1) * g1;
    e.L.size[4] = 4 + ncoef * G16_ZKEY_COEF_SIZE;
    e.L.size[5] = nvars * g1;
    e.L.size[6] = nvars * g1;
    e.L.size[7] = nvars * g2;
    e.L.size[8] = (nvars - npub - 1) * g1;
    e.L.size[9] = n * g1;
    e.L.size[10] = 64 + 4;
    setup_plan(&e.L, o->align);
    info->key_bytes = e.L.total;

    /* The GPU, when asked for or (auto) when one is present. */
    g16_err err = G16_OK;
    if (o->backend != GROTH16_SETUP_CPU) {
        if (g16_gpu_count() > 0) {
            err = g16_gpu_create(&e.gpu, 0, 1, 1, g16_ctx_config(ctx), st);
            if (err && o->backend == GROTH16_SETUP_CUDA)
                return err;
            if (err)
                e.gpu = NULL; /* auto: fall back to the CPU */
            err = G16_OK;
        } else if (o->backend == GROTH16_SETUP_CUDA) {
            return g16_fail(st, G16_ERR_NO_DEVICE, "setup: --backend cuda but no CUDA device");
        }
    }
    info->used_gpu = e.gpu != NULL;

    /* The key goes to a temporary file beside out_path, with its space
     * reserved up front (a full disk is a clean error here, not a SIGBUS in
     * the mapping), and is renamed over out_path only when complete and
     * synced: a failed setup leaves the old file at out_path as it was. */
    g16_atomic_file af = {.fd = -1};
    int have_file = 0;
    void *map = MAP_FAILED;
    if (out_path) {
        if ((err = g16_atomic_begin(&af, out_path, st)))
            goto done;
        have_file = 1;
        if ((err = g16_atomic_reserve(&af, e.L.total, st)))
            goto done;
        map = mmap(NULL, e.L.total, PROT_READ | PROT_WRITE, MAP_SHARED, af.fd, 0);
    } else {
        map = mmap(NULL, e.L.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
#ifdef MADV_HUGEPAGE
        if (map != MAP_FAILED)
            (void)madvise(map, e.L.total, MADV_HUGEPAGE); /* fewer faults for 10-100 GB keys; advisory */
#endif
    }
    if (map == MAP_FAILED) {
        err = g16_fail(st, out_path ? G16_ERR_IO : G16_ERR_NOMEM, "setup: cannot map %zu bytes for the key: %s",
                       e.L.total, strerror(errno));
        goto done;
    }
    e.buf = map;
    setup_write_headers(e.buf, &e.L);
    double t0 = g16_now_ms();
    err = cs->curve == G16_CURVE_BN254 ? groth16_bn254_setup(&e, cs, log_n, st) : groth16_bls381_setup(&e, cs, log_n, st);
    info->total_ms = g16_now_ms() - t0;
    if (out_path) {
        if (!err && msync(map, e.L.total, MS_SYNC) != 0)
            err = g16_fail(st, G16_ERR_IO, "setup: writing %s: %s", out_path, strerror(errno));
        if (munmap(map, e.L.total) != 0 && !err)
            err = g16_fail(st, G16_ERR_IO, "setup: writing %s: %s", out_path, strerror(errno));
        map = MAP_FAILED;
        if (!err) {
            have_file = 0;
            err = g16_atomic_commit(&af, st);
        }
    } else if (!err) {
        *mem = map;
        *mem_len = e.L.total;
        map = MAP_FAILED;
    }
done:
    if (map != MAP_FAILED)
        munmap(map, e.L.total);
    if (have_file)
        g16_atomic_abort(&af);
    g16_gpu_destroy(e.gpu);
    return err;
}

g16_err groth16_setup_insecure(g16_ctx *ctx, const g16_r1cs *cs, const char *out_path, uint64_t seed,
                               g16_status *st) {
    if (!out_path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "setup: NULL argument");
    groth16_setup_opts o = {.seed = seed};
    return groth16_setup_insecure_ex(ctx, cs, &o, out_path, NULL, NULL, NULL, st);
}
