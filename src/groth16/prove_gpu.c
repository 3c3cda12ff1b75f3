/* The Groth16 heavy stage on a GPU (groth16.h, "the heavy stage on a GPU").
 * Plain C over src/gpu/gpu.h: no CUDA header here, and a build without CUDA
 * links gpu_nocuda.c, whose calls fail with G16_ERR_NO_DEVICE.
 *
 * One proof, all on g's stream (prove_impl.h has the math):
 *   1. copy a, b, c (n Fr, Montgomery) and the w scalars (nVars canonical)
 *      from the CPU working area to the device working area; or, after a
 *      ws-only synthesis (GROTH16_SYNTH_WS_ONLY), copy the w scalars only and
 *      compute a, b, c on the device from the key's resident coefficient
 *      rows (g16_gpu_synth_dev, queued with H: w to Montgomery form into
 *      d_wm, then one thread per row; bit for bit the CPU's a, b, c);
 *   2. g16_gpu_h_dev: the three odd-coset NTTs and h_i = a_i b_i - c_i as
 *      canonical scalars, written over a (h aliases a);
 *   3. the five MSMs with device scalars, in the CPU's order A, B1, B2, C, H
 *      (C over the private wires w[nPublic+1 ..], as the CPU does), against
 *      the key's resident bases, or streamed from host memory (gkey NULL);
 *   4. wipe the device copies of a, b, c, h and w (queued on the stream);
 *      the host's w scalars are wiped as soon as their copy is done, while
 *      the GPU computes H.
 * With an exclusive mutex on the working area (groth16_gpu_work_set_exclusive)
 * the host waits for step 1 first, then holds the mutex over steps 2-3 only:
 * the copies and the wipes stay outside it.
 * The MSM sums are the same group elements as the CPU's (the Jacobian
 * representation may differ): finalize normalizes to affine, so the proof
 * bytes are identical for the same r, s.
 *
 * Nothing in the per-proof path allocates device or pinned memory or calls
 * a device-global CUDA function: the device working area (buffers and the
 * domain's twiddles) is created once per worker, the bases once per key and
 * device; synchronization is on g's stream only (docs DESIGN.md). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16.h"
#include "gpu/gpu.h"
#include "gpu/gpu_synth.h"

enum { GK_A, GK_B1, GK_B2, GK_C, GK_H, GK_COUNT };
static const char *const gk_name[GK_COUNT] = {"A", "B1", "B2", "C", "H"};

struct groth16_gpu_key {
    g16_curve curve;
    uint32_t n, nv, npub;
    uint8_t delta1[96]; /* the key's delta1 (affine bytes): tells keys of one shape apart */
    size_t delta1_len;
    g16_gpu_bases *b[GK_COUNT];
    g16_gpu_synth *syn; /* the coefficient rows (GROTH16_GPU_KEY_SYNTH), else NULL */
    size_t syn_bytes;   /* their device bytes */
    int no_synth;       /* gpu.synth = 0 in the uploading context's options: CPU synthesis */
};

struct groth16_gpu_work {
    g16_curve curve;
    uint32_t n, nv;
    unsigned log_n;
    void *d_abc[3];    /* a (then h), b, c: n Fr each */
    g16_scalar *d_w;   /* nv scalars */
    void *d_wm;        /* nv Fr: w in Montgomery form, for the GPU synthesis */
    g16_gpu_domain *dom;
    g16_gpu_event *ev[4]; /* before the copies (with a mutex: again before the kernels),
                           * after the copies, after H, before H (after the GPU synthesis) */
    pthread_mutex_t *excl; /* kernel exclusivity (groth16_gpu_work_set_exclusive), NULL = none */
};

/* ---- the key's bases --------------------------------------------------- */

static size_t g1_affine_bytes(g16_curve c) { return c == G16_CURVE_BN254 ? 64 : 96; }

static size_t base_count(const g16_zkey *zk, int i) {
    switch (i) {
    case GK_C: return (size_t)zk->nVars - zk->nPublic - 1;
    case GK_H: return zk->domainSize;
    default: return zk->nVars;
    }
}

static g16_gpu_group base_group(int i) { return i == GK_B2 ? G16_GPU_G2 : G16_GPU_G1; }

static size_t base_bytes(const g16_zkey *zk, int i) {
    return base_count(zk, i) * g1_affine_bytes(zk->curve) * (i == GK_B2 ? 2 : 1);
}

/* The host points of base i: the typed array, or the raw section bytes (same
 * layout, any alignment) when the key was opened without copying. */
static const void *base_points(const g16_zkey *zk, int i) {
    const void *p;
    if (zk->curve == G16_CURVE_BN254) {
        const void *t[GK_COUNT] = {zk->bn254.A, zk->bn254.B1, zk->bn254.B2, zk->bn254.C, zk->bn254.H};
        p = t[i];
    } else {
        const void *t[GK_COUNT] = {zk->bls381.A, zk->bls381.B1, zk->bls381.B2, zk->bls381.C, zk->bls381.H};
        p = t[i];
    }
    return p ? p : zk->raw[i + 1]; /* raw[]: IC, A, B1, B2, C, H */
}

static const void *key_delta1(const g16_zkey *zk, size_t *len) {
    *len = g1_affine_bytes(zk->curve);
    return zk->curve == G16_CURVE_BN254 ? (const void *)&zk->bn254.delta1 : (const void *)&zk->bls381.delta1;
}

size_t groth16_gpu_key_bytes_ex(const g16_key *key, unsigned flags) {
    const g16_zkey *zk = groth16_key_zkey(key);
    size_t t = 0;
    for (int i = 0; i < GK_COUNT; i++)
        t += base_bytes(zk, i);
    if (flags & GROTH16_GPU_KEY_SYNTH)
        t += groth16_gpu_key_rows_bytes(key); /* 0 before a deferred prepare: no rows to upload */
    return t;
}

size_t groth16_gpu_key_bytes(const g16_key *key) { return groth16_gpu_key_bytes_ex(key, GROTH16_GPU_KEY_SYNTH); }

g16_err groth16_gpu_key_upload(struct g16_gpu *g, groth16_gpu_key **out, const g16_key *key, g16_status *st) {
    return groth16_gpu_key_upload_ex(g, out, key, GROTH16_GPU_KEY_SYNTH, st);
}

int groth16_gpu_key_synth(const groth16_gpu_key *gk) { return gk && gk->syn; }

size_t groth16_gpu_key_rows_bytes(const g16_key *key) {
    groth16_csr c;
    groth16_key_csr(key, &c);
    return c.n ? g16_gpu_synth_bytes(c.n, c.nnz) : 0;
}

static int gpu_key_matches(const groth16_gpu_key *gk, const g16_zkey *zk);

void groth16_gpu_key_drop_rows(struct g16_gpu *g, groth16_gpu_key *gk) {
    if (!gk || !gk->syn)
        return;
    g16_gpu_synth_free(g, gk->syn);
    gk->syn = NULL;
    gk->syn_bytes = 0;
}

g16_err groth16_gpu_key_add_rows(struct g16_gpu *g, groth16_gpu_key *gk, const g16_key *key, g16_status *st) {
    if (!g || !gk || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key rows: NULL argument");
    if (gk->syn)
        return G16_OK;
    const g16_zkey *zk = groth16_key_zkey(key);
    groth16_csr c;
    groth16_key_csr(key, &c);
    if (!gpu_key_matches(gk, zk))
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key rows: the device key holds another key's bases");
    if (!c.n)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key rows: the key has no rows yet (groth16_key_prepare)");
    g16_status s2 = {0};
    g16_err err = g16_gpu_synth_upload(g, &gk->syn, zk->curve, c.n, zk->nVars, c.row[0], c.row[1], c.nnz, c.signal,
                                       c.coef, &s2);
    if (err) {
        gk->syn = NULL;
        return g16_fail(st, err, "gpu key rows: coefficient rows (%u entries): %s", c.nnz, s2.msg);
    }
    gk->syn_bytes = g16_gpu_synth_bytes(c.n, c.nnz);
    return G16_OK;
}

size_t groth16_gpu_key_kept(const groth16_gpu_key *gk, int set) {
    return gk && set >= 0 && set < GK_COUNT ? g16_gpu_bases_count(gk->b[set]) : 0;
}

size_t groth16_gpu_key_device_bytes(const groth16_gpu_key *gk) {
    size_t t = 0;
    for (int i = 0; gk && i < GK_COUNT; i++)
        t += g16_gpu_bases_device_bytes(gk->b[i]);
    return t + (gk && gk->syn ? gk->syn_bytes : 0);
}

unsigned groth16_gpu_synth_flags(const groth16_gpu_key *gk) {
    if (!gk || gk->no_synth)
        return 0;
    return groth16_gpu_key_synth(gk) ? GROTH16_SYNTH_WS_ONLY : 0;
}

g16_err groth16_gpu_key_upload_ex(struct g16_gpu *g, groth16_gpu_key **out, const g16_key *key, unsigned flags,
                                  g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key upload: NULL argument");
    *out = NULL;
    if (!g || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key upload: NULL argument");
    const g16_zkey *zk = groth16_key_zkey(key);
    if (groth16_key_dropped(key) & GROTH16_DROP_BASES)
        return g16_fail(st, G16_ERR_UNSUPPORTED,
                        "gpu key upload: the key's host bases were released (groth16_key_drop_host); reload the key");
    groth16_gpu_key *gk = calloc(1, sizeof *gk);
    if (!gk)
        return g16_fail(st, G16_ERR_NOMEM, "gpu key upload: out of memory");
    gk->curve = zk->curve;
    gk->no_synth = !g16_config_bool(g16_gpu_config(g), G16_OPT_GPU_SYNTH);
    gk->n = zk->domainSize;
    gk->nv = zk->nVars;
    gk->npub = zk->nPublic;
    const void *d1 = key_delta1(zk, &gk->delta1_len);
    memcpy(gk->delta1, d1, gk->delta1_len);
    for (int i = 0; i < GK_COUNT; i++) {
        g16_err err = g16_gpu_bases_upload(g, &gk->b[i], zk->curve, base_group(i), base_points(zk, i),
                                           base_count(zk, i), st);
        size_t dropped = 0;
        /* A, B1, B2, C: the points at infinity go when they are 1/16 or more
         * (wires in no term of that column; H has none) */
        if (!err && i != GK_H)
            err = g16_gpu_bases_drop_infinity(g, gk->b[i], base_count(zk, i) / 16, &dropped, st);
        if (err) {
            char msg[sizeof st->msg];
            snprintf(msg, sizeof msg, "%s", st ? st->msg : "");
            groth16_gpu_key_free(g, gk);
            return g16_fail(st, err, "gpu key upload: bases %s (%zu points): %s", gk_name[i], base_count(zk, i),
                            msg);
        }
    }
    groth16_csr c;
    groth16_key_csr(key, &c);
    /* The rows exist once the key is prepared (not under
     * GROTH16_KEY_DEFER_PREP until groth16_key_prepare): else no GPU synthesis. */
    if ((flags & GROTH16_GPU_KEY_SYNTH) && c.n) {
        g16_err err = g16_gpu_synth_upload(g, &gk->syn, zk->curve, c.n, zk->nVars, c.row[0], c.row[1], c.nnz,
                                           c.signal, c.coef, st);
        if (err) {
            char msg[sizeof st->msg];
            snprintf(msg, sizeof msg, "%s", st ? st->msg : "");
            groth16_gpu_key_free(g, gk);
            return g16_fail(st, err, "gpu key upload: coefficient rows (%u entries): %s", c.nnz, msg);
        }
        gk->syn_bytes = g16_gpu_synth_bytes(c.n, c.nnz);
    }
    /* The bases were copied from the key's mapping: from a file that changed
     * under the copy, the device would hold zeros (or a mix) for good. */
    g16_err kerr = groth16_key_check(key, NULL, st);
    if (kerr) {
        groth16_gpu_key_free(g, gk);
        return kerr;
    }
    *out = gk;
    return G16_OK;
}

g16_err groth16_gpu_key_precompute(struct g16_gpu *g, groth16_gpu_key *gk, int *made, g16_status *st) {
    if (made)
        *made = 0;
    if (!g || !gk)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu key precompute: NULL argument");
    for (int i = 0; i < GK_COUNT; i++) {
        g16_status s2 = {0};
        g16_err err = g16_gpu_bases_precompute(g, gk->b[i], 0, &s2);
        if (err == G16_ERR_NOMEM)
            break;
        if (err)
            return g16_fail(st, err, "gpu key precompute: bases %s: %s", gk_name[i], s2.msg);
        if (made)
            (*made)++;
    }
    return G16_OK;
}

size_t groth16_gpu_key_table_bytes(const g16_key *key) {
    const g16_zkey *zk = groth16_key_zkey(key);
    size_t t = 0;
    for (int i = 0; i < GK_COUNT; i++) {
        size_t tb = g16_gpu_table_bytes(zk->curve, base_group(i), base_count(zk, i), NULL), bb = base_bytes(zk, i);
        t += tb > bb ? tb - bb : 0;
    }
    return t;
}

void groth16_gpu_key_free(struct g16_gpu *g, groth16_gpu_key *gk) {
    if (!gk)
        return;
    for (int i = 0; i < GK_COUNT; i++)
        g16_gpu_bases_free(g, gk->b[i]);
    g16_gpu_synth_free(g, gk->syn);
    free(gk);
}

/* gk holds key's bases: same curve, shape and delta1. */
static int gpu_key_matches(const groth16_gpu_key *gk, const g16_zkey *zk) {
    size_t len;
    const void *d1 = key_delta1(zk, &len);
    return gk->curve == zk->curve && gk->n == zk->domainSize && gk->nv == zk->nVars && gk->npub == zk->nPublic &&
           gk->delta1_len == len && memcmp(gk->delta1, d1, len) == 0;
}

/* ---- the device working area ------------------------------------------- */

size_t groth16_gpu_work_bytes(const g16_key *key) {
    const g16_zkey *zk = groth16_key_zkey(key);
    /* a, b, c, w (scalars and Montgomery form), and the domain's tables (ntt.cuh): 2^10 level twiddles,
     * three pairs of 2^ceil(k/2) + 2^floor(k/2) tables, and above 2^11 the
     * full inter-pass table of n elements; bounded here with room to spare. */
    unsigned k = zk->log2_domain, cb = (k + 1) / 2;
    size_t dom = ((size_t)2048 + 3 * (((size_t)1 << cb) + ((size_t)1 << (k - cb)))) * 32 + 4096;
    if (k > 11)
        dom += (size_t)zk->domainSize * 32;
    return (size_t)zk->domainSize * 32 * 3 + (size_t)zk->nVars * (sizeof(g16_scalar) + 32) + dom +
           sizeof(groth16_gpu_work);
}

g16_err groth16_gpu_work_create(struct g16_gpu *g, groth16_gpu_work **out, const g16_key *key, g16_status *st) {
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu work create: NULL argument");
    *out = NULL;
    if (!g || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "gpu work create: NULL argument");
    const g16_zkey *zk = groth16_key_zkey(key);
    groth16_gpu_work *gw = calloc(1, sizeof *gw);
    if (!gw)
        return g16_fail(st, G16_ERR_NOMEM, "gpu work create: out of memory");
    gw->curve = zk->curve;
    gw->n = zk->domainSize;
    gw->nv = zk->nVars;
    gw->log_n = zk->log2_domain;
    g16_err err = G16_OK;
    for (int i = 0; i < 3 && !err; i++)
        err = g16_gpu_alloc(g, &gw->d_abc[i], (size_t)gw->n * 32, st);
    if (!err)
        err = g16_gpu_alloc(g, (void **)&gw->d_w, (size_t)gw->nv * sizeof(g16_scalar), st);
    if (!err)
        err = g16_gpu_alloc(g, &gw->d_wm, (size_t)gw->nv * 32, st);
    if (!err)
        err = g16_gpu_domain_create(g, &gw->dom, zk->curve, zk->log2_domain, st);
    for (int i = 0; i < 4 && !err; i++)
        err = g16_gpu_event_create(g, &gw->ev[i], st);
    if (err) {
        groth16_gpu_work_free(g, gw);
        return err;
    }
    *out = gw;
    return G16_OK;
}

void groth16_gpu_work_free(struct g16_gpu *g, groth16_gpu_work *gw) {
    if (!gw)
        return;
    g16_gpu_domain_free(gw->dom);
    for (int i = 0; i < 4; i++)
        g16_gpu_event_destroy(g, gw->ev[i]);
    for (int i = 0; i < 3; i++)
        g16_gpu_free(g, gw->d_abc[i]);
    g16_gpu_free(g, gw->d_w);
    g16_gpu_free(g, gw->d_wm);
    free(gw);
}

g16_err groth16_gpu_work_wipe(struct g16_gpu *g, groth16_gpu_work *gw, g16_status *st) {
    if (!g || !gw)
        return G16_OK;
    g16_err err = G16_OK;
    for (int i = 0; i < 3 && !err; i++)
        if (gw->d_abc[i])
            err = g16_gpu_memset_async(g, gw->d_abc[i], 0, (size_t)gw->n * 32, st);
    if (!err && gw->d_w)
        err = g16_gpu_memset_async(g, gw->d_w, 0, (size_t)gw->nv * sizeof(g16_scalar), st);
    if (!err && gw->d_wm)
        err = g16_gpu_memset_async(g, gw->d_wm, 0, (size_t)gw->nv * 32, st);
    return err;
}

g16_err groth16_gpu_work_test_nonzero(struct g16_gpu *g, const groth16_gpu_work *gw, size_t *nonzero,
                                      g16_status *st) {
    *nonzero = 0;
    if (!g || !gw)
        return G16_OK;
    g16_err err = g16_gpu_sync(g, st);
    const void *p[5] = {gw->d_abc[0], gw->d_abc[1], gw->d_abc[2], gw->d_w, gw->d_wm};
    size_t len[5] = {(size_t)gw->n * 32, (size_t)gw->n * 32, (size_t)gw->n * 32, (size_t)gw->nv * sizeof(g16_scalar),
                     (size_t)gw->nv * 32};
    for (int i = 0; i < 5 && !err; i++) {
        if (!p[i])
            continue;
        uint8_t *h = malloc(len[i] ? len[i] : 1);
        if (!h)
            return g16_fail(st, G16_ERR_NOMEM, "prove (gpu): out of memory");
        err = g16_gpu_copy_async(g, h, p[i], len[i], st);
        if (!err)
            err = g16_gpu_sync(g, st);
        for (size_t j = 0; !err && j < len[i]; j++)
            *nonzero += h[j] != 0;
        free(h);
    }
    return err;
}

void groth16_gpu_work_set_exclusive(groth16_gpu_work *gw, pthread_mutex_t *mu) {
    if (gw)
        gw->excl = mu;
}

int groth16_gpu_work_fits(const groth16_gpu_work *gw, const g16_key *key) {
    const g16_zkey *zk = groth16_key_zkey(key);
    return gw && gw->curve == zk->curve && gw->n == zk->domainSize && gw->nv == zk->nVars &&
           gw->log_n == zk->log2_domain;
}

/* ---- the stage ------------------------------------------------------------ */

/* The five results' CPU Jacobian points in out, in GK_ order. */
static void msm_outputs(groth16_msms *out, void *res[GK_COUNT]) {
    if (out->curve == G16_CURVE_BN254) {
        res[GK_A] = &out->bn254.a, res[GK_B1] = &out->bn254.b1, res[GK_B2] = &out->bn254.b2;
        res[GK_C] = &out->bn254.c, res[GK_H] = &out->bn254.h;
    } else {
        res[GK_A] = &out->bls381.a, res[GK_B1] = &out->bls381.b1, res[GK_B2] = &out->bls381.b2;
        res[GK_C] = &out->bls381.c, res[GK_H] = &out->bls381.h;
    }
}

/* Step 2: after a ws-only synthesis, queues the GPU synthesis of a, b, c
 * from the key's rows (gkey->syn: checked by the caller); then the event
 * before H, H over a, b, c (h written over a), and the event after it. */
static g16_err queue_h(g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey, const groth16_work_bufs *b,
                       g16_status *st) {
    g16_err err;
    if (b->ws_only &&
        (err = g16_gpu_synth_dev(g, gkey->syn, gw->d_w, b->nv, gw->d_wm, gw->d_abc[0], gw->d_abc[1], gw->d_abc[2], st))) {
        char msg[sizeof st->msg];
        snprintf(msg, sizeof msg, "%s", st ? st->msg : "");
        return g16_fail(st, err, "prove (gpu): synthesis failed: %s", msg);
    }
    if ((err = g16_gpu_event_record(g, gw->ev[3], st)))
        return err;
    err = g16_gpu_h_dev(g, gw->dom, gw->d_abc[0], gw->d_abc[1], gw->d_abc[2], (g16_scalar *)gw->d_abc[0], st);
    if (err) {
        char msg[sizeof st->msg];
        snprintf(msg, sizeof msg, "%s", st ? st->msg : "");
        return g16_fail(st, err, "prove (gpu): NTT/H failed: %s", msg);
    }
    return g16_gpu_event_record(g, gw->ev[2], st);
}

/* Waits for the copies (their event only), then wipes the host's w scalars
 * (the MSMs read the device copy) on wipe_threads threads: with H already
 * queued the wipe overlaps it and leaves the serial path (4.3 GB at 2^27,
 * whose wipe on one thread outlasted H by about 100 ms). */
static g16_err copies_done(groth16_gpu_work *gw, const groth16_work_bufs *b, groth16_gpu_timings *gt,
                           int *ws_wiped, int wipe_threads, g16_status *st) {
    float up = 0;
    g16_err err = g16_gpu_event_elapsed(&up, gw->ev[0], gw->ev[1], st);
    if (err)
        return err;
    gt->upload_end = g16_now_ms();
    gt->upload_ms = up;
    g16_wipe_threads(b->ws, (size_t)b->nv * sizeof(g16_scalar), wipe_threads);
    *ws_wiped = 1;
    return G16_OK;
}

/* Step 3: the five MSMs (H queued before them on the stream). */
static g16_err run_msms(g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey, groth16_msms *out,
                        const groth16_work_bufs *b, const g16_zkey *zk, groth16_gpu_timings *gt, g16_status *st) {
    g16_err err;
    const g16_scalar *d_h = (const g16_scalar *)gw->d_abc[0];
    void *res[GK_COUNT];
    msm_outputs(out, res);
    for (int i = 0; i < GK_COUNT; i++) {
        const g16_scalar *k = i == GK_H ? d_h : i == GK_C ? gw->d_w + b->npub + 1 : gw->d_w;
        size_t cnt = base_count(zk, i);
        g16_gpu_timing tmg = {0};
        double tm0 = g16_now_ms();
        if (gkey && g16_gpu_bases_count(gkey->b[i]) < cnt) {
            /* points at infinity dropped: the kept points' scalars into d_wm
             * (free after the GPU synthesis; nv >= kept), stream-ordered */
            g16_scalar *kept = (g16_scalar *)gw->d_wm;
            err = g16_gpu_bases_gather(g, gkey->b[i], kept, k, st);
            k = kept;
            cnt = g16_gpu_bases_count(gkey->b[i]);
            if (!err)
                err = g16_gpu_msm(g, res[i], gkey->b[i], k, cnt, &tmg, st);
        } else if (gkey)
            /* above the context's max_points, in chunks (g16_gpu_msm) */
            err = g16_gpu_msm(g, res[i], gkey->b[i], k, cnt, &tmg, st);
        else
            err = g16_gpu_msm_streamed(g, res[i], zk->curve, base_group(i), base_points(zk, i), k, cnt, &tmg, st);
        if (err) {
            char msg[sizeof st->msg];
            snprintf(msg, sizeof msg, "%s", st ? st->msg : "");
            return g16_fail(st, err, "prove (gpu): MSM %s (%zu points%s) failed: %s", gk_name[i], cnt,
                            gkey ? "" : ", streamed", msg);
        }
        /* The MSM's own CUDA-event time when it reports one, else the host clock. */
        gt->msm_ms[i] = tmg.total_ms > 0 ? (double)tmg.total_ms : g16_now_ms() - tm0;
        if (i == 0) {
            float ntt = 0, syn = 0;
            /* The kernels began at ev[1] (copies done), or with the mutex at
             * ev[0] re-recorded once it was taken (not counting the wait):
             * the GPU synthesis (if any) up to ev[3], then H up to ev[2]. */
            if ((err = g16_gpu_event_elapsed(&syn, gw->ev[gw->excl ? 0 : 1], gw->ev[3], st)) ||
                (err = g16_gpu_event_elapsed(&ntt, gw->ev[3], gw->ev[2], st)))
                return err;
            gt->ntt_ms = ntt;
            gt->synth_ms = b->ws_only ? syn : 0;
        }
    }
    gt->kernels_end = g16_now_ms();
    return G16_OK;
}

/* Copies, H and the MSMs (steps 1-3 of the header). Without a mutex, H is
 * queued right behind the copies (no host wait between them); with one
 * (gw->excl), the host waits for the copies first and holds the mutex from
 * queuing H to the last MSM sum, released on every path. */
static g16_err heavy_run(g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey, groth16_msms *out,
                         const groth16_work_bufs *b, const g16_zkey *zk, groth16_gpu_timings *gt, int *ws_wiped,
                         int wipe_threads, g16_status *st) {
    g16_err err;
    double t0 = g16_now_ms();
    gt->upload_begin = t0;
    /* Copies (and H) are queued without a host wait: events time them. */
    if ((err = g16_gpu_event_record(g, gw->ev[0], st)))
        return err;
    for (int i = 0; i < 3 && !b->ws_only; i++) /* ws-only: a, b, c are made on the device */
        if ((err = g16_gpu_copy_async(g, gw->d_abc[i], b->abc[i], (size_t)b->n * 32, st)))
            return err;
    if ((err = g16_gpu_copy_async(g, gw->d_w, b->ws, (size_t)b->nv * sizeof(g16_scalar), st)) ||
        (err = g16_gpu_event_record(g, gw->ev[1], st)))
        return err;

    if (!gw->excl) {
        if ((err = queue_h(g, gw, gkey, b, st)) || (err = copies_done(gw, b, gt, ws_wiped, wipe_threads, st)))
            return err;
        gt->kernels_begin = gt->upload_end;
        err = run_msms(g, gw, gkey, out, b, zk, gt, st);
    } else {
        if ((err = copies_done(gw, b, gt, ws_wiped, wipe_threads, st)))
            return err;
        double tl = g16_now_ms();
        pthread_mutex_lock(gw->excl);
        gt->kernels_begin = g16_now_ms();
        gt->lock_wait_ms = gt->kernels_begin - tl;
        err = g16_gpu_event_record(g, gw->ev[0], st);
        if (!err)
            err = queue_h(g, gw, gkey, b, st);
        if (!err)
            err = run_msms(g, gw, gkey, out, b, zk, gt, st);
        pthread_mutex_unlock(gw->excl);
    }
    if (err)
        return err;
    /* The device-side time of this partition: the wait for the mutex is
     * another worker's kernels, not this one's. */
    gt->gpu_ms = gt->kernels_end - t0 - gt->lock_wait_ms;
    return G16_OK;
}

g16_err groth16_stage_heavy_gpu(g16_ctx *ctx, struct g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey,
                                groth16_msms *out, groth16_work *w, const g16_key *key, groth16_timings *tm,
                                groth16_gpu_timings *gtm, g16_status *st) {
    (void)ctx;
    groth16_gpu_timings gt;
    memset(&gt, 0, sizeof gt);
    if (gtm)
        *gtm = gt;
    if (!out)
        return g16_fail(st, G16_ERR_INVALID_ARG, "prove (gpu): NULL argument");
    memset(out, 0, sizeof *out);
    if (!g || !gw || !w || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "prove (gpu): NULL argument");
    const g16_zkey *zk = groth16_key_zkey(key);
    groth16_work_bufs b;
    g16_err err = groth16_work_buffers(w, key, &b, st);
    int ws_wiped = 0;
    if (err)
        return err;
    out->curve = zk->curve;
    if (!groth16_gpu_work_fits(gw, key))
        err = g16_fail(st, G16_ERR_INTERNAL,
                       "prove (gpu): device working area sized for another key shape (domain %u, %u wires; key: "
                       "domain %u, %u wires)",
                       gw->n, gw->nv, zk->domainSize, zk->nVars);
    else if (!gkey && (groth16_key_dropped(key) & GROTH16_DROP_BASES))
        err = g16_fail(st, G16_ERR_UNSUPPORTED,
                       "prove (gpu): cannot stream the bases: the key's host bases were released "
                       "(groth16_key_drop_host); use the device copy uploaded before");
    else if (gkey && !gpu_key_matches(gkey, zk))
        err = g16_fail(st, G16_ERR_INTERNAL, "prove (gpu): the device bases belong to another key");
    else if (b.ws_only && !groth16_gpu_key_synth(gkey))
        err = g16_fail(st, G16_ERR_INTERNAL,
                       "prove (gpu): the working area was synthesized for the GPU synthesis (ws only), but %s",
                       gkey ? "the device key has no coefficient rows" : "no device key is resident (streamed bases)");
    else
        err = heavy_run(g, gw, gkey, out, &b, zk, &gt, &ws_wiped, g16_ctx_threads(ctx), st);

    /* Wipe the device copies of witness-derived data (queued behind the
     * MSMs; also after a failure). The host's w scalars were wiped during
     * H (heavy_run), else (a failure before) groth16_work_consume does it,
     * with the host's a, b, c (pinned or not). */
    g16_status wst = {0};
    g16_err werr = groth16_gpu_work_wipe(g, gw, &wst);
    if (!werr) /* the MSM scratch: digits and bucket sums of the w and h scalars */
        werr = g16_gpu_scratch_wipe(g, &wst);
    if (!err && werr)
        err = g16_fail(st, werr, "prove (gpu): wiping device buffers: %s", wst.msg);
    /* After a failure the copies from the (pinned) host buffers may still be
     * in flight: wait before the host wipes and reuses them. */
    if (err)
        (void)g16_gpu_sync(g, &wst);

    groth16_work_consume(w, out, ws_wiped);
    if (err) {
        groth16_msms_clear(out);
        return err;
    }
    if (tm) {
        tm->synth_ms += gt.synth_ms; /* the device's part of the synthesis */
        tm->ntt_ms += gt.ntt_ms;
        tm->msm_ms += gt.gpu_ms - gt.upload_ms - gt.synth_ms - gt.ntt_ms;
    }
    if (gtm)
        *gtm = gt;
    return G16_OK;
}
