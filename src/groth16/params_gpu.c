/* The heavy stage of a pre-synthesized (bellperson) partition on a GPU:
 * g16_params_heavy_gpu (assignment.h), the same sums as
 * g16_params_heavy_cpu (params_prove.c has the math). Plain C over
 * src/gpu/gpu.h; a build without CUDA links gpu_nocuda.c, whose calls fail
 * with G16_ERR_NO_DEVICE.
 *
 * One partition, all on g's stream, in two calls (g16_params_heavy_gpu
 * makes both):
 *   load (g16_params_gpu_load: copies only, so that a worker's copies can
 *   overlap another worker's kernels on the same device):
 *   0. the inputs, the aux values and the three bitmaps, and the rows of
 *      c, a and b, each into a landing buffer of its own (c in ABC0, a in
 *      ABC1, b in STAGE);
 *   compute (g16_params_gpu_compute):
 *   1. the inputs and aux checked (values below r); each of c, a, b
 *      checked and scattered from its landing buffer to index m j mod n of
 *      its domain buffer (c: ABC0 -> ABC2, a: ABC1 -> ABC0, b: STAGE ->
 *      ABC1; g16_gpu_fr_scatter: g16's roots then give bellperson's
 *      transform);
 *   2. H: inverse NTT, coset NTT with shift 7 (bit-reversed out), the
 *      quotient (a b - c) / (7^n - 1), coset inverse NTT (natural out),
 *      the canonical coefficients h_0 .. h_{n-2} over a;
 *   3. the checks' first bad indices read back (one wait): an error names
 *      the array and row as the CPU's does;
 *   4. the scalars: inputs and aux to canonical form; A's = every input,
 *      then the A-dense aux (compacted by the a_aux bitmap); B's = the
 *      B-dense inputs, then the B-dense aux (g16_gpu_compact); they go to
 *      ABC1 and ABC2, free after H, when they fit there (n_a, n_b below the
 *      domain: a PoRep partition's), else to buffers of their own;
 *   5. the five MSMs against the resident bases (h, l, a, b_g1 in G1, b_g2
 *      in G2; g16_gpu_msm chunks any above the context's max_points);
 *   6. every witness-derived device buffer zeroed, and the context's MSM
 *      scratch (g16_gpu_scratch_wipe), before return, on error too.
 * CUDA events time each step (g16_params_gpu_work_times).
 * Nothing here allocates device memory per partition: the working area is
 * made once per worker and key shape, the bases once per key and device
 * (DESIGN.md: no device-global calls in the per-partition path). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../field/field.h"
#include "../util/config.h"
#include "../util/util.h"
#include "assignment.h"
#include "gpu/gpu.h"

enum { PB_H, PB_L, PB_A, PB_B1, PB_B2, PB_COUNT };
static const int pb_array[PB_COUNT] = {G16_PARAMS_H, G16_PARAMS_L, G16_PARAMS_A, G16_PARAMS_B_G1, G16_PARAMS_B_G2};

struct g16_params_gpu_key {
    const g16_params_key *key; /* the key it was uploaded from (shape checks) */
    g16_gpu_bases *b[PB_COUNT];
};

/* The shape of a key's partitions. */
typedef struct pshape {
    size_t domain, n_inp, n_aux, n_a, n_b;
    unsigned log_n;
} pshape;

static void shape_of(pshape *s, const g16_params_key *k) {
    const g16_params *p = g16_params_key_params(k);
    memset(s, 0, sizeof *s);
    (void)g16_params_key_info(k, NULL, NULL, &s->domain);
    s->log_n = s->domain ? (unsigned)__builtin_ctzll((unsigned long long)s->domain) : 0;
    s->n_inp = p->n[G16_PARAMS_IC];
    s->n_aux = p->n[G16_PARAMS_L];
    s->n_a = p->n[G16_PARAMS_A];
    s->n_b = p->n[G16_PARAMS_B_G1];
}

/* Device buffers of a working area, in allocation order. */
enum { PW_ABC0, PW_ABC1, PW_ABC2, PW_STAGE, PW_INP, PW_AUX, PW_SA, PW_SB, PW_BITS, PW_CTMP, PW_BAD, PW_COUNT };

/* The events of a partition's compute, in order (g16_params_gpu_times). */
enum { EV_BEGIN, EV_PREP, EV_H, EV_SCALARS, EV_MSM0, EV_COUNT = EV_MSM0 + 5 };

struct g16_params_gpu_work {
    pshape s;
    void *d[PW_COUNT]; /* PW_SA / PW_SB: NULL when the scalars live in ABC1 / ABC2 */
    size_t bytes[PW_COUNT];
    g16_gpu_domain *dom;
    g16_gpu_event *ev[EV_COUNT];
    const g16_assignment *loaded; /* the partition whose copies are in (g16_params_gpu_load) */
    g16_params_gpu_times t;
    /* gpu.params_pinned: two pinned buffers of PIN_BYTES the host threads
     * fill while the other one's copy runs, and their copies' events */
    void *pin[2];
    g16_gpu_event *pin_ev[2];
    size_t piece; /* bytes per piece: PIN_BYTES (a test hook makes it smaller) */
};

#define PIN_BYTES ((size_t)64 << 20)
#define PIN_TASK ((size_t)1 << 20) /* bytes per host thread task */

/* Bad-index slots (PW_BAD): a, b, c, inputs, aux. */
enum { BAD_A, BAD_B, BAD_C, BAD_INP, BAD_AUX, BAD_COUNT };

static size_t words(size_t bits) { return (bits + 63) / 64; }

/* The A and B scalars reuse ABC1 and ABC2 (free once H is done) when they
 * fit: then PW_SA / PW_SB take no bytes. */
static void work_sizes(size_t out[PW_COUNT], const pshape *s) {
    size_t fr = 32, cbits = s->n_aux > s->n_inp ? s->n_aux : s->n_inp;
    out[PW_ABC0] = out[PW_ABC1] = out[PW_ABC2] = out[PW_STAGE] = s->domain * fr;
    out[PW_INP] = (s->n_inp + 1) * fr;
    out[PW_AUX] = (s->n_aux + 1) * fr;
    out[PW_SA] = s->n_a + 1 <= s->domain ? 0 : (s->n_a + 1) * fr;
    out[PW_SB] = s->n_b + 1 <= s->domain ? 0 : (s->n_b + 1) * fr;
    out[PW_BITS] = (2 * words(s->n_aux) + words(s->n_inp) + 1) * 8;
    out[PW_CTMP] = g16_gpu_compact_tmp_bytes(cbits);
    out[PW_BAD] = BAD_COUNT * 8;
}

size_t g16_params_gpu_work_bytes(const g16_params_key *key) {
    if (!key)
        return 0;
    pshape s;
    shape_of(&s, key);
    size_t b[PW_COUNT], t = 0;
    work_sizes(b, &s);
    for (int i = 0; i < PW_COUNT; i++)
        t += b[i];
    return t;
}

size_t g16_params_gpu_key_bytes(const g16_params_key *key) {
    if (!key)
        return 0;
    const g16_params *p = g16_params_key_params(key);
    size_t t = 0;
    for (int i = 0; i < PB_COUNT; i++)
        t += (size_t)p->n[pb_array[i]] * (i == PB_B2 ? sizeof(bls381_g2_affine) : sizeof(bls381_g1_affine));
    return t;
}

size_t g16_params_gpu_max_points(const g16_params_key *key) {
    if (!key)
        return 0;
    const g16_params *p = g16_params_key_params(key);
    size_t m = 1;
    for (int i = 0; i < PB_COUNT; i++)
        if (p->n[pb_array[i]] > m)
            m = p->n[pb_array[i]];
    return m;
}

void g16_params_gpu_key_free(g16_gpu *g, g16_params_gpu_key *gk) {
    if (!gk)
        return;
    for (int i = 0; i < PB_COUNT; i++)
        g16_gpu_bases_free(g, gk->b[i]);
    free(gk);
}

g16_err g16_params_gpu_key_upload(g16_gpu *g, g16_params_gpu_key **out, const g16_params_key *key, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu key: NULL argument");
    *out = NULL;
    if (!g || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu key: NULL argument");
    const g16_params *p = g16_params_key_params(key);
    if (p->is_vk_file || !p->h)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu key: a .vk has no proving arrays");
    g16_params_gpu_key *gk = calloc(1, sizeof *gk);
    if (!gk)
        return g16_fail(st, G16_ERR_NOMEM, "params gpu key: out of memory");
    gk->key = key;
    const void *pts[PB_COUNT] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    for (int i = 0; i < PB_COUNT; i++) {
        size_t n = p->n[pb_array[i]];
        if (n == 0)
            continue;
        g16_status s2 = {0};
        g16_err err = g16_gpu_bases_upload(g, &gk->b[i], G16_CURVE_BLS12_381, i == PB_B2 ? G16_GPU_G2 : G16_GPU_G1,
                                           pts[i], n, &s2);
        if (err) {
            gk->b[i] = NULL;
            g16_params_gpu_key_free(g, gk);
            return g16_fail(st, err, "params gpu key: uploading %s (%zu points): %s",
                            g16_params_array_name(pb_array[i]), n, s2.msg);
        }
    }
    *out = gk;
    return G16_OK;
}

void g16_params_gpu_work_free(g16_gpu *g, g16_params_gpu_work *w) {
    if (!w)
        return;
    for (int i = 0; i < PW_COUNT; i++)
        g16_gpu_free(g, w->d[i]);
    for (int i = 0; i < EV_COUNT; i++)
        g16_gpu_event_destroy(g, w->ev[i]);
    for (int i = 0; i < 2; i++) {
        g16_gpu_host_free(w->pin[i]);
        g16_gpu_event_destroy(g, w->pin_ev[i]);
    }
    g16_gpu_domain_free(w->dom);
    free(w);
}

g16_err g16_params_gpu_work_create(g16_gpu *g, g16_params_gpu_work **out, const g16_params_key *key,
                                   const g16_config *cfg, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu work: NULL argument");
    *out = NULL;
    if (!g || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu work: NULL argument");
    g16_params_gpu_work *w = calloc(1, sizeof *w);
    if (!w)
        return g16_fail(st, G16_ERR_NOMEM, "params gpu work: out of memory");
    shape_of(&w->s, key);
    work_sizes(w->bytes, &w->s);
    g16_err err = g16_gpu_domain_create(g, &w->dom, G16_CURVE_BLS12_381, w->s.log_n, st);
    for (int i = 0; i < PW_COUNT && !err; i++)
        if (w->bytes[i])
            err = g16_gpu_alloc(g, &w->d[i], w->bytes[i], st);
    for (int i = 0; i < EV_COUNT && !err; i++)
        err = g16_gpu_event_create(g, &w->ev[i], st);
    /* pinned host memory: once per working area (cudaHostAlloc is a
     * device-global call) */
    for (int i = 0; i < 2 && !err && g16_config_bool(cfg, G16_OPT_GPU_PARAMS_PINNED); i++)
        if (!(err = g16_gpu_host_alloc(&w->pin[i], PIN_BYTES, st)))
            err = g16_gpu_event_create(g, &w->pin_ev[i], st);
    w->piece = PIN_BYTES;
    if (err) {
        g16_params_gpu_work_free(g, w);
        return err;
    }
    *out = w;
    return G16_OK;
}

int g16_params_gpu_work_fits(const g16_params_gpu_work *w, const g16_params_key *key) {
    if (!w || !key)
        return 0;
    pshape s;
    shape_of(&s, key);
    return s.domain == w->s.domain && s.n_inp <= w->s.n_inp && s.n_aux <= w->s.n_aux && s.n_a <= w->s.n_a &&
           s.n_b <= w->s.n_b;
}

void g16_params_gpu_work_test_piece(g16_params_gpu_work *w, size_t bytes) {
    if (w)
        w->piece = bytes >= 16 && bytes <= PIN_BYTES ? bytes : PIN_BYTES;
}

void g16_params_gpu_work_times(const g16_params_gpu_work *w, g16_params_gpu_times *t) {
    if (t)
        *t = w ? w->t : (g16_params_gpu_times){0};
}

/* ---- one partition ---------------------------------------------------------- */

static g16_err copy_in(g16_gpu *g, void *dst, const void *src, size_t bytes, g16_status *st) {
    return bytes ? g16_gpu_copy_async(g, dst, src, bytes, st) : G16_OK;
}

/* The landing buffer of a, b, c (index 0, 1, 2) and their domain buffer. */
static const int land_of[3] = {PW_ABC1, PW_STAGE, PW_ABC0};
static const int dom_of[3] = {PW_ABC0, PW_ABC1, PW_ABC2};

static uint64_t *bits_at(const g16_params_gpu_work *w, int which) { /* 0 a_aux, 1 b_aux, 2 b_inp */
    uint64_t *b = w->d[PW_BITS];
    return b + (which >= 1 ? words(w->s.n_aux) : 0) + (which >= 2 ? words(w->s.n_aux) : 0);
}

/* Zeroes every witness-derived device buffer (not the key's, the domain's
 * or the bitmaps', which are public shape), then the MSM scratch, and waits. */
static g16_err wipe(g16_gpu *g, g16_params_gpu_work *w, g16_status *st) {
    g16_err err = G16_OK;
    for (int i = 0; i < PW_COUNT && !err; i++)
        if (i != PW_BITS && i != PW_CTMP && i != PW_BAD && w->d[i])
            err = g16_gpu_memset_async(g, w->d[i], 0, w->bytes[i], st);
    if (!err)
        err = g16_gpu_scratch_wipe(g, st);
    if (!err)
        err = g16_gpu_sync(g, st);
    return err;
}

static g16_err args(g16_gpu *g, g16_params_gpu_work *w, const g16_params_key *key, const g16_assignment *as,
                    const char *who, g16_status *st) {
    if (!g || !w || !key || !as)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu: NULL argument");
    if (!g16_params_gpu_work_fits(w, key))
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: the GPU working area was made for another key shape", who);
    return G16_OK;
}

typedef struct pin_job {
    uint8_t *dst;
    const uint8_t *src;
    size_t len;
} pin_job;

static void pin_task(void *arg, size_t t) {
    const pin_job *j = arg;
    size_t off = t * PIN_TASK, len = j->len - off < PIN_TASK ? j->len - off : PIN_TASK;
    memcpy(j->dst + off, j->src + off, len);
}

/* bytes from host memory to the device. With the pinned buffers: in
 * PIN_BYTES pieces, the pool's threads copying piece k into buffer k mod 2
 * while piece k - 1's DMA runs from the other (a buffer is refilled once
 * its last DMA is done: its event); else one cudaMemcpyAsync from the
 * source (pageable: the driver stages it, the host blocks meanwhile). */
static g16_err copy_big(g16_gpu *g, g16_params_gpu_work *w, void *dst, const void *src, size_t bytes,
                        g16_pool *pool, int *next, g16_status *st) {
    if (!w->pin[0])
        return copy_in(g, dst, src, bytes, st);
    g16_err err = G16_OK;
    for (size_t off = 0; off < bytes && !err; off += w->piece) {
        int b = (*next)++ & 1;
        pin_job j = {.dst = w->pin[b], .src = (const uint8_t *)src + off,
                     .len = bytes - off < w->piece ? bytes - off : w->piece};
        if ((err = g16_gpu_event_wait(w->pin_ev[b], st)))
            break;
        g16_pool_run(pool, (j.len + PIN_TASK - 1) / PIN_TASK, pin_task, &j);
        if (!(err = g16_gpu_copy_async(g, (uint8_t *)dst + off, w->pin[b], j.len, st)))
            err = g16_gpu_event_record(g, w->pin_ev[b], st);
    }
    return err;
}

/* Step 0: every copy in, waited for (the wait covers the last DMA); the
 * pinned buffers, which held witness data, wiped after it. */
static g16_err load(g16_gpu *g, g16_params_gpu_work *w, const g16_assignment *as, g16_pool *pool, g16_status *st) {
    g16_err err;
    int next = 0;
    const g16_fr_mont *src[3] = {as->a, as->b, as->c};
    (void)((err = copy_in(g, w->d[PW_INP], as->inp_assignment, as->inp_assignment_size * 32, st)) ||
           (err = copy_big(g, w, w->d[PW_AUX], as->aux_assignment, as->aux_assignment_size * 32, pool, &next, st)) ||
           (err = copy_in(g, bits_at(w, 0), as->a_aux_density, words(as->a_aux_bit_len) * 8, st)) ||
           (err = copy_in(g, bits_at(w, 1), as->b_aux_density, words(as->b_aux_bit_len) * 8, st)) ||
           (err = copy_in(g, bits_at(w, 2), as->b_inp_density, words(as->b_inp_bit_len) * 8, st)));
    for (int t = 0; t < 3 && !err; t++) {
        int i = (t + 2) % 3; /* c, a, b */
        err = copy_big(g, w, w->d[land_of[i]], src[i], as->abc_size * 32, pool, &next, st);
    }
    g16_status s2 = {0};
    g16_err serr = g16_gpu_sync(g, &s2); /* on error too: no DMA may still read a buffer being wiped */
    for (int i = 0; i < 2; i++)
        if (w->pin[i])
            g16_wipe(w->pin[i], PIN_BYTES);
    if (!err && serr)
        err = g16_fail(st, serr, "%s", s2.msg);
    return err;
}

g16_err g16_params_gpu_load(g16_gpu *g, g16_params_gpu_work *w, const g16_params_key *key, const g16_assignment *as,
                            g16_pool *pool, const char *who, g16_status *st) {
    if (!who)
        who = "assignment";
    g16_err err = args(g, w, key, as, who, st);
    if (err)
        return err;
    w->loaded = NULL;
    memset(&w->t, 0, sizeof w->t);
    /* The bitmaps' counts bound every write of the compaction and the
     * copies' sizes: the checks run here, whatever the caller did (cheap:
     * a pass over the bits). */
    if ((err = g16_params_check_partition(key, as, who, st)))
        return err;
    double t0 = g16_now_ms();
    err = load(g, w, as, pool, st);
    w->t.load_ms = g16_now_ms() - t0;
    if (err) {
        g16_status ws = {0};
        (void)wipe(g, w, &ws);
        return err;
    }
    w->loaded = as;
    return G16_OK;
}

static g16_err mark(g16_gpu *g, g16_params_gpu_work *w, int ev, g16_status *st) {
    return g16_gpu_event_record(g, w->ev[ev], st);
}

/* Steps 1-5 (the caller wipes). */
static g16_err compute(g16_gpu *g, g16_params_gpu_work *w, const g16_params_gpu_key *gk, g16_params_msms *m,
                       const g16_params_key *key, const g16_assignment *as, const char *who, g16_status *st) {
    const pshape *s = &w->s;
    const g16_curve cv = G16_CURVE_BLS12_381;
    uint64_t *bad = w->d[PW_BAD];
    size_t ni = as->inp_assignment_size, nx = as->aux_assignment_size;
    g16_err err;
    if ((err = mark(g, w, EV_BEGIN, st)) || (err = g16_gpu_memset_async(g, bad, 0xff, BAD_COUNT * 8, st)) ||
        (err = g16_gpu_fr_check(g, cv, w->d[PW_INP], ni, bad + BAD_INP, st)) ||
        (err = g16_gpu_fr_check(g, cv, w->d[PW_AUX], nx, bad + BAD_AUX, st)))
        return err;
    /* c, a, b from their landing buffers to their domain buffers: c's
     * domain buffer (ABC2) is free, and each scatter frees the landing
     * buffer the next one writes to (ABC0, then ABC1). */
    uint64_t mexp = g16_params_key_root_exponent(key);
    for (int t = 0; t < 3; t++) {
        int i = (t + 2) % 3; /* c, a, b */
        if ((err = g16_gpu_fr_check(g, cv, w->d[land_of[i]], as->abc_size, bad + BAD_A + i, st)) ||
            (err = g16_gpu_fr_scatter(g, cv, w->d[dom_of[i]], w->d[land_of[i]], as->abc_size, s->log_n, mexp, st)))
            return err;
    }
    if ((err = mark(g, w, EV_PREP, st)))
        return err;
    /* H (params_prove.c's compute_h, step for step) */
    bls381_fr g7, gn, zinv, one;
    bls381_fr_from_u64(&g7, 7);
    limb_t e[1] = {(limb_t)s->domain};
    bls381_fr_pow(&gn, &g7, e, 1);
    bls381_fr_set_one(&one);
    bls381_fr_sub(&gn, &gn, &one);
    bls381_fr_inv_vartime(&zinv, &gn); /* public: depends on n only */
    for (int i = 0; i < 3; i++)
        if ((err = g16_gpu_ntt_dev(g, w->dom, w->d[PW_ABC0 + i], G16_GPU_NTT_INVERSE, 0, NULL, st)) ||
            (err = g16_gpu_ntt_dev(g, w->dom, w->d[PW_ABC0 + i], G16_GPU_NTT_COSET_FORWARD, 1, &g7, st)))
            return err;
    if ((err = g16_gpu_fr_quotient(g, cv, w->d[PW_ABC0], w->d[PW_ABC1], w->d[PW_ABC2], &zinv, s->domain, st)) ||
        (err = g16_gpu_ntt_dev(g, w->dom, w->d[PW_ABC0], G16_GPU_NTT_COSET_INVERSE, 2, &g7, st)) ||
        (err = g16_gpu_fr_to_scalar(g, cv, w->d[PW_ABC0], w->d[PW_ABC0], s->domain, st)) ||
        (err = mark(g, w, EV_H, st)))
        return err;
    /* the checks, in the CPU's order: inputs, aux, then a, b, c */
    uint64_t hbad[BAD_COUNT];
    if ((err = g16_gpu_copy_async(g, hbad, bad, sizeof hbad, st)) || (err = g16_gpu_sync(g, st)))
        return err;
    if (hbad[BAD_INP] != UINT64_MAX || hbad[BAD_AUX] != UINT64_MAX) {
        int inp = hbad[BAD_INP] != UINT64_MAX;
        return g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: %s[%llu] is not below r (not a reduced Montgomery Fr)", who,
                        inp ? "inp_assignment" : "aux_assignment",
                        (unsigned long long)hbad[inp ? BAD_INP : BAD_AUX]);
    }
    for (int i = 0; i < 3; i++)
        if (hbad[BAD_A + i] != UINT64_MAX) {
            /* the CPU reports the lowest row over a, b, c (a first on a tie) */
            int lo = i;
            for (int j = 0; j < 3; j++)
                if (hbad[BAD_A + j] < hbad[BAD_A + lo])
                    lo = j;
            return g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: %c[%llu] is not below r (not a reduced Montgomery Fr)",
                            who, "abc"[lo], (unsigned long long)hbad[BAD_A + lo]);
        }
    /* the scalars (A's and B's in ABC1 and ABC2 when they fit: b and c are
     * spent once the quotient has run) */
    g16_scalar *si = w->d[PW_INP], *sx = w->d[PW_AUX];
    g16_scalar *sa = w->d[PW_SA] ? w->d[PW_SA] : w->d[PW_ABC1], *sb = w->d[PW_SB] ? w->d[PW_SB] : w->d[PW_ABC2];
    if ((err = g16_gpu_fr_to_scalar(g, cv, si, si, ni, st)) || (err = g16_gpu_fr_to_scalar(g, cv, sx, sx, nx, st)) ||
        (err = copy_in(g, sa, si, ni * 32, st)) ||
        (err = g16_gpu_compact(g, sa + ni, sx, bits_at(w, 0), nx, w->d[PW_CTMP], st)) ||
        (err = g16_gpu_compact(g, sb, si, bits_at(w, 2), ni, w->d[PW_CTMP], st)) ||
        (err = g16_gpu_compact(g, sb + as->b_inp_popcount, sx, bits_at(w, 1), nx, w->d[PW_CTMP], st)) ||
        (err = mark(g, w, EV_SCALARS, st)))
        return err;
    size_t na = ni + as->a_aux_popcount, nb = as->b_inp_popcount + as->b_aux_popcount;
    const g16_params *p = g16_params_key_params(key);
    if (na != p->n[G16_PARAMS_A] || nb != p->n[G16_PARAMS_B_G1] || nb != p->n[G16_PARAMS_B_G2] ||
        nx != p->n[G16_PARAMS_L])
        return g16_fail(st, G16_ERR_INTERNAL, "%s: %zu A, %zu B and %zu aux scalars against %u, %u and %u bases", who,
                        na, nb, nx, p->n[G16_PARAMS_A], p->n[G16_PARAMS_B_G1], p->n[G16_PARAMS_L]);
    /* the MSMs (an empty one stays the zeroed sum: infinity, z = 0), in
     * g16_params_gpu_times.msm_ms's order */
    struct {
        void *out;
        int b;
        const g16_scalar *k;
        size_t n;
    } msm[PB_COUNT] = {{&m->h, PB_H, w->d[PW_ABC0], s->domain - 1},
                       {&m->l, PB_L, sx, nx},
                       {&m->a, PB_A, sa, na},
                       {&m->b1, PB_B1, sb, nb},
                       {&m->b2, PB_B2, sb, nb}};
    for (int i = 0; i < PB_COUNT; i++) {
        g16_status s2 = {0};
        if (msm[i].n && (err = g16_gpu_msm(g, msm[i].out, gk->b[msm[i].b], msm[i].k, msm[i].n, NULL, &s2)))
            return g16_fail(st, err, "%s: GPU MSM over %s failed: %s", who, g16_params_array_name(pb_array[msm[i].b]),
                            s2.msg);
        if ((err = mark(g, w, EV_MSM0 + i, st)))
            return err;
    }
    /* the times (every event has completed: the last MSM's sum is home) */
    float ms[EV_COUNT] = {0};
    for (int i = 1; i < EV_COUNT && !err; i++)
        err = g16_gpu_event_elapsed(&ms[i], w->ev[i - 1], w->ev[i], st);
    if (err)
        return err;
    w->t.prep_ms = ms[EV_PREP];
    w->t.h_ms = ms[EV_H];
    w->t.scalars_ms = ms[EV_SCALARS];
    w->t.compute_ms = ms[EV_PREP] + ms[EV_H] + ms[EV_SCALARS];
    for (int i = 0; i < PB_COUNT; i++) {
        w->t.msm_ms[i] = ms[EV_MSM0 + i];
        w->t.compute_ms += ms[EV_MSM0 + i];
    }
    return G16_OK;
}

g16_err g16_params_gpu_compute(g16_gpu *g, g16_params_gpu_work *w, const g16_params_gpu_key *gk, g16_params_msms *m,
                               const g16_params_key *key, const g16_assignment *as, const char *who, g16_status *st) {
    if (!who)
        who = "assignment";
    if (!m)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu: NULL argument");
    memset(m, 0, sizeof *m);
    g16_err err = args(g, w, key, as, who, st);
    if (!err && !gk)
        err = g16_fail(st, G16_ERR_INVALID_ARG, "params gpu: NULL argument");
    if (err)
        return err;
    if (gk->key != key)
        err = g16_fail(st, G16_ERR_INVALID_ARG, "%s: the device bases belong to another key", who);
    else if (w->loaded != as)
        err = g16_fail(st, G16_ERR_INVALID_ARG, "%s: not loaded on this working area (g16_params_gpu_load first)", who);
    else
        err = compute(g, w, gk, m, key, as, who, st);
    w->loaded = NULL;
    g16_status ws = {0};
    g16_err werr = wipe(g, w, &ws);
    if (err) {
        memset(m, 0, sizeof *m);
        return err;
    }
    if (werr) {
        memset(m, 0, sizeof *m);
        return g16_fail(st, werr, "%s: wiping the GPU working area: %s", who, ws.msg);
    }
    return G16_OK;
}

g16_err g16_params_heavy_gpu(g16_gpu *g, g16_params_gpu_work *w, const g16_params_gpu_key *gk, g16_params_msms *m,
                             const g16_params_key *key, const g16_assignment *as, const char *who, g16_status *st) {
    if (!g || !w || !gk || !m || !key || !as)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params gpu heavy: NULL argument");
    memset(m, 0, sizeof *m);
    if (!who)
        who = "assignment";
    if (gk->key != key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: the device bases belong to another key", who);
    g16_err err = g16_params_gpu_load(g, w, key, as, NULL, who, st);
    return err ? err : g16_params_gpu_compute(g, w, gk, m, key, as, who, st);
}
