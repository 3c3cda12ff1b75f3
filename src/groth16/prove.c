/* Groth16 prover and verifier (both curves), and the public API around them:
 * keys, witnesses, proofs, JSON files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16.h"
#include "gpu/gpu.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"
#include "util/ctx.h"
#include "util/file.h"
#include "util/keycache.h"

/* ---- per-key preparation ------------------------------------------------- */

/* Coefficient rows grouped by constraint: matrix m's entries for row c are
 * [row[m][c], row[m][c+1]) in signal[] / coef[] (Fr, Montgomery form of c). */
typedef struct groth16_prep {
    uint32_t n;
    uint32_t *row[2];
    uint32_t *signal;
    limb_t (*coef)[4];
} groth16_prep;

static void prep_free(groth16_prep *p) {
    free(p->row[0]);
    free(p->row[1]);
    free(p->signal);
    free(p->coef);
    memset(p, 0, sizeof *p);
}

/* Counting sort of the key's section-4 entries by (matrix, constraint). A
 * value v = c R^2 (R = 2^256) is the Montgomery form of c R; one Montgomery
 * reduction (from_mont) gives the Montgomery form of c. The zkey reader has
 * validated matrix, constraint, signal and v < r. */
static g16_err prep_build(groth16_prep *p, const g16_zkey *key, g16_status *st) {
    const uint32_t n = key->domainSize;
    uint32_t *cursor = NULL;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->row[0] = calloc((size_t)n + 1, sizeof(uint32_t));
    p->row[1] = calloc((size_t)n + 1, sizeof(uint32_t));
    p->signal = malloc((size_t)key->nCoef * sizeof(uint32_t) + 1);
    p->coef = malloc((size_t)key->nCoef * sizeof *p->coef + 1);
    cursor = malloc(2 * (size_t)n * sizeof(uint32_t));
    if (!p->row[0] || !p->row[1] || !p->signal || !p->coef || !cursor) {
        free(cursor);
        prep_free(p);
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory preparing %u coefficients", key->nCoef);
    }
    g16_zkey_coef c;
    for (uint32_t i = 0; i < key->nCoef; i++) {
        g16_zkey_coef_get(key, i, &c);
        p->row[c.matrix][c.constraint + 1]++;
    }
    p->row[1][0] = 0;
    for (uint32_t r = 0; r < n; r++)
        p->row[0][r + 1] += p->row[0][r];
    p->row[1][0] = p->row[0][n];
    for (uint32_t r = 0; r < n; r++)
        p->row[1][r + 1] += p->row[1][r];
    for (int m = 0; m < 2; m++)
        memcpy(cursor + (size_t)m * n, p->row[m], (size_t)n * sizeof(uint32_t));
    for (uint32_t i = 0; i < key->nCoef; i++) {
        g16_zkey_coef_get(key, i, &c);
        uint32_t pos = cursor[(size_t)c.matrix * n + c.constraint]++;
        p->signal[pos] = c.signal;
        if (key->curve == G16_CURVE_BN254)
            bn254_fr_from_mont(p->coef[pos], (const bn254_fr *)c.value);
        else
            bls381_fr_from_mont(p->coef[pos], (const bls381_fr *)c.value);
    }
    free(cursor);
    return G16_OK;
}

/* Per-proof working memory, sized once per key and reused. */
typedef struct groth16_scratch {
    void *fr[3];            /* a, b, c: domainSize Fr each */
    g16_scalar *scalars[2]; /* h (domainSize), w (nVars) */
    void *msm;              /* MSM scratch for up to max(domainSize, nVars) scalars */
    size_t msm_len;
    unsigned pinned;        /* bit i: fr[i] (i < 3) / scalars[1] (bit 3) is pinned host memory */
    int no_cpu_heavy;       /* no h buffer nor MSM scratch (GROTH16_WORK_NO_CPU_HEAVY) */
    int ws_only;            /* no a, b, c either (GROTH16_WORK_WS_ONLY) */
    g16_progress *progress; /* the heavy stage's stages "ntt" and "msm" (NULL: none) */
} groth16_scratch;

static void scratch_free(groth16_scratch *s) {
    for (int i = 0; i < 3; i++) {
        if (s->pinned & (1u << i))
            g16_gpu_host_free(s->fr[i]);
        else
            free(s->fr[i]);
    }
    free(s->scalars[0]);
    if (s->pinned & 8u)
        g16_gpu_host_free(s->scalars[1]);
    else
        free(s->scalars[1]);
    free(s->msm);
    memset(s, 0, sizeof *s);
}

/* A buffer that is copied to a device on every proof: pinned host memory
 * when asked and available (one cudaHostAlloc per working area, at
 * creation), else malloc. */
static void *scratch_buf(groth16_scratch *s, size_t bytes, unsigned bit, unsigned flags) {
    if (flags & GROTH16_WORK_PINNED) {
        void *p = NULL;
        g16_status ignored = {0};
        if (g16_gpu_host_alloc(&p, bytes, &ignored) == G16_OK && p) {
            s->pinned |= bit;
            return p;
        }
    }
    return calloc(1, bytes ? bytes : 1);
}

/* A new working area holds zeros only (the wipe invariant of
 * groth16_work_test_wiped): calloc, whose large blocks are fresh mappings
 * and cost no memset; pinned blocks are new pages, which the kernel
 * zero-fills. Reused heap memory could otherwise carry another buffer's
 * bytes into an area that is never written before it is freed. */
static g16_err scratch_alloc(groth16_scratch *s, g16_ctx *ctx, const g16_zkey *key, unsigned flags,
                             g16_status *st) {
    memset(s, 0, sizeof *s);
    if (flags & (GROTH16_WORK_NO_CPU_HEAVY | GROTH16_WORK_WS_ONLY)) {
        s->no_cpu_heavy = 1;
        s->ws_only = (flags & GROTH16_WORK_WS_ONLY) != 0;
        for (int i = 0; i < 3 && !s->ws_only; i++)
            s->fr[i] = scratch_buf(s, (size_t)key->domainSize * 32, 1u << i, flags);
        s->scalars[1] = scratch_buf(s, (size_t)key->nVars * sizeof(g16_scalar), 8u, flags);
        if ((!s->ws_only && (!s->fr[0] || !s->fr[1] || !s->fr[2])) || !s->scalars[1]) {
            scratch_free(s);
            return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory for a domain of %u", key->domainSize);
        }
        return G16_OK;
    }
    size_t big = key->domainSize > key->nVars ? key->domainSize : key->nVars, l1, l2;
    if (key->curve == G16_CURVE_BN254) {
        l1 = msm_bn254_g1_scratch_size(ctx, big);
        l2 = msm_bn254_g2_scratch_size(ctx, key->nVars);
    } else {
        l1 = msm_bls381_g1_scratch_size(ctx, big);
        l2 = msm_bls381_g2_scratch_size(ctx, key->nVars);
    }
    s->msm_len = l1 > l2 ? l1 : l2;
    s->msm = calloc(1, s->msm_len ? s->msm_len : 1);
    for (int i = 0; i < 3; i++)
        s->fr[i] = scratch_buf(s, (size_t)key->domainSize * 32, 1u << i, flags);
    s->scalars[0] = calloc(key->domainSize, sizeof(g16_scalar));
    s->scalars[1] = scratch_buf(s, (size_t)key->nVars * sizeof(g16_scalar), 8u, flags);
    if (!s->fr[0] || !s->fr[1] || !s->fr[2] || !s->scalars[0] || !s->scalars[1] || !s->msm) {
        scratch_free(s);
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory for a domain of %u", key->domainSize);
    }
    return G16_OK;
}

/* ---- MSM adapters: the prover's view of the msm layer ----------------------
 * Progress of the "msm" stage in G1-point units: a G2 point counts
 * PROVE_G2_WEIGHT (an Fp2 product is about three Fp products); *pdone is
 * the stage's units before this MSM. */
#define PROVE_G2_WEIGHT 3u
#define MSM_ADAPTER(CV)                                                                        \
    static g16_err groth16_##CV##_msm_g1(g16_ctx *ctx, CV##_g1_jac *out, const CV##_g1_affine *bases, \
                                         const g16_scalar *k, size_t n, groth16_scratch *scr,         \
                                         const uint64_t *pdone) {                                     \
        return msm_##CV##_g1_progress(ctx, out, bases, k, n, scr->msm, scr->msm_len, scr->progress, \
                                      *pdone, n);                                              \
    }                                                                                          \
    static g16_err groth16_##CV##_msm_g2(g16_ctx *ctx, CV##_g2_jac *out, const CV##_g2_affine *bases, \
                                         const g16_scalar *k, size_t n, groth16_scratch *scr,         \
                                         const uint64_t *pdone) {                                     \
        return msm_##CV##_g2_progress(ctx, out, bases, k, n, scr->msm, scr->msm_len, scr->progress, \
                                      *pdone, PROVE_G2_WEIGHT * (uint64_t)n);                  \
    }
MSM_ADAPTER(bn254)
MSM_ADAPTER(bls381)

#define CV bn254
#include "prove_impl.h"
#undef CV
#define CV bls381
#include "prove_impl.h"
#undef CV

/* ---- public API ---------------------------------------------------------- */

struct groth16_work {
    g16_curve curve;
    uint32_t n, nv, npub;
    groth16_scratch scr;
    g16_frvec pub; /* the public signals of the proof being made */
    int synthesized; /* 0 no, 1 a, b, c and ws, 2 ws only (GROTH16_SYNTH_WS_ONLY) */
    int dirty;       /* witness-derived bytes may be in the buffers (groth16_work_wipe) */
    int threads;     /* the creating context's, for the wipes */
};

struct g16_key {
    g16_zkey zk;
    groth16_prep prep;
    void *host_buf; /* the host tier's copy of the file (else the key maps it) */
    size_t host_len;
    pthread_mutex_t lock; /* g16_prove: one proof at a time uses work */
    groth16_work *work;   /* g16_prove's working area (lazily created) */
    pthread_mutex_t vk_lock;
    int vk_ready;
    g16_vk vk; /* cached verification key (verify before return) */
    unsigned dropped; /* GROTH16_DROP_* (groth16_key_drop_host): those host bytes are gone */
    size_t released;  /* bytes groth16_key_drop_host gave back so far */
    void *own_mem;    /* groth16_key_adopt_mem: the setup's mapping under zk */
    size_t own_len;
};

struct g16_witness {
    g16_frvec w;
};

struct g16_result {
    g16_proof proof;
    g16_frvec pub; /* w[1 .. nPublic] */
};

void g16_free(void *p) { free(p); }

size_t groth16_work_bytes_ex(g16_ctx *ctx, const g16_key *key, unsigned flags) {
    const g16_zkey *zk = &key->zk;
    if (flags & GROTH16_WORK_WS_ONLY)
        return (size_t)zk->nVars * sizeof(g16_scalar) + (size_t)zk->nPublic * 32 + sizeof(groth16_work);
    if (flags & GROTH16_WORK_NO_CPU_HEAVY)
        return (size_t)zk->domainSize * 32 * 3 + (size_t)zk->nVars * sizeof(g16_scalar) +
               (size_t)zk->nPublic * 32 + sizeof(groth16_work);
    return groth16_work_bytes(ctx, key);
}

size_t groth16_work_bytes(g16_ctx *ctx, const g16_key *key) {
    const g16_zkey *zk = &key->zk;
    size_t big = zk->domainSize > zk->nVars ? zk->domainSize : zk->nVars, l1, l2;
    if (zk->curve == G16_CURVE_BN254) {
        l1 = msm_bn254_g1_scratch_size(ctx, big);
        l2 = msm_bn254_g2_scratch_size(ctx, zk->nVars);
    } else {
        l1 = msm_bls381_g1_scratch_size(ctx, big);
        l2 = msm_bls381_g2_scratch_size(ctx, zk->nVars);
    }
    return (l1 > l2 ? l1 : l2) + (size_t)zk->domainSize * 32 * 4 + (size_t)zk->nVars * sizeof(g16_scalar) +
           (size_t)zk->nPublic * 32 + sizeof(groth16_work);
}

g16_err groth16_work_create(g16_ctx *ctx, groth16_work **out, const g16_key *key, g16_status *st) {
    return groth16_work_create_ex(ctx, out, key, 0, st);
}

g16_err groth16_work_create_ex(g16_ctx *ctx, groth16_work **out, const g16_key *key, unsigned flags,
                               g16_status *st) {
    *out = NULL;
    groth16_work *w = calloc(1, sizeof *w);
    if (!w)
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory for a working area");
    g16_err err = scratch_alloc(&w->scr, ctx, &key->zk, flags, st);
    if (err) {
        free(w);
        return err;
    }
    w->curve = key->zk.curve;
    w->n = key->zk.domainSize;
    w->nv = key->zk.nVars;
    w->npub = key->zk.nPublic;
    w->threads = g16_ctx_threads(ctx) > 1 ? g16_ctx_threads(ctx) : 1;
    *out = w;
    return G16_OK;
}

/* Every witness-derived region: a = A.w, b = B.w, c (then their coset
 * evaluations), h, the w scalars (unless skip_ws: already wiped) and the MSM
 * scratch (bucket sums of the w and h scalars). */
static void work_wipe(groth16_work *w, int skip_ws) {
    if (!w || !w->dirty)
        return;
    groth16_scratch *s = &w->scr;
    for (int i = 0; i < 3; i++)
        if (s->fr[i])
            g16_wipe_threads(s->fr[i], (size_t)w->n * 32, w->threads);
    if (s->scalars[0])
        g16_wipe_threads(s->scalars[0], (size_t)w->n * sizeof(g16_scalar), w->threads);
    if (s->scalars[1] && !skip_ws)
        g16_wipe_threads(s->scalars[1], (size_t)w->nv * sizeof(g16_scalar), w->threads);
    if (s->msm)
        g16_wipe_threads(s->msm, s->msm_len, w->threads);
    w->dirty = 0;
    w->synthesized = 0;
}

void groth16_work_wipe(groth16_work *w) { work_wipe(w, 0); }

int groth16_work_test_wiped(const groth16_work *w) {
    if (!w)
        return 1;
    const groth16_scratch *s = &w->scr;
    const void *p[6] = {s->fr[0], s->fr[1], s->fr[2], s->scalars[0], s->scalars[1], s->msm};
    size_t len[6] = {(size_t)w->n * 32, (size_t)w->n * 32, (size_t)w->n * 32, (size_t)w->n * sizeof(g16_scalar),
                     (size_t)w->nv * sizeof(g16_scalar), s->msm_len};
    for (int i = 0; i < 6; i++) {
        const uint8_t *b = p[i];
        for (size_t j = 0; b && j < len[i]; j++)
            if (b[j])
                return 0;
    }
    return 1;
}

void groth16_work_set_progress(groth16_work *w, g16_progress *p) {
    if (w)
        w->scr.progress = p;
}

void groth16_work_free(groth16_work *w) {
    if (!w)
        return;
    groth16_work_wipe(w);
    g16_frvec_free(&w->pub);
    scratch_free(&w->scr);
    free(w);
}

int groth16_work_fits(const groth16_work *w, const g16_key *key) {
    return w && w->curve == key->zk.curve && w->n == key->zk.domainSize && w->nv == key->zk.nVars &&
           w->npub == key->zk.nPublic;
}

int groth16_work_pinned(const groth16_work *w) {
    return w && w->scr.pinned == (w->scr.ws_only ? 8u : 15u);
}

g16_err groth16_work_buffers(groth16_work *w, const g16_key *key, groth16_work_bufs *b, g16_status *st) {
    memset(b, 0, sizeof *b);
    if (!groth16_work_fits(w, key) || !w->synthesized)
        return g16_fail(st, G16_ERR_INTERNAL, "prove: heavy stage on an unsynthesized working area");
    for (int i = 0; i < 3; i++)
        b->abc[i] = w->scr.fr[i];
    b->ws_only = w->synthesized == 2;
    b->ws = w->scr.scalars[1];
    b->n = w->n;
    b->nv = w->nv;
    b->npub = w->npub;
    b->pinned = groth16_work_pinned(w);
    return G16_OK;
}

void groth16_work_consume(groth16_work *w, groth16_msms *out, int ws_wiped) {
    if (!ws_wiped)
        g16_wipe(w->scr.scalars[1], (size_t)w->nv * sizeof(g16_scalar));
    work_wipe(w, 1);
    w->synthesized = 0;
    out->pub = w->pub; /* moved */
    memset(&w->pub, 0, sizeof w->pub);
}

const g16_zkey *groth16_key_zkey(const g16_key *key) { return &key->zk; }

unsigned groth16_key_dropped(const g16_key *key) { return key ? key->dropped : 0; }

/* The prover's coefficient rows (prep), once; caller holds key->lock. */
static g16_err key_prepare_locked(g16_key *key, g16_status *st) {
    if (key->prep.row[0])
        return G16_OK;
    if (key->dropped & GROTH16_DROP_COEFS)
        return g16_fail(st, G16_ERR_UNSUPPORTED,
                        "prove: the key's coefficients were released before it was prepared; reload the key");
    return prep_build(&key->prep, &key->zk, st);
}

g16_err groth16_key_prepare(g16_key *key, g16_status *st) {
    if (!key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "key prepare: NULL key");
    pthread_mutex_lock(&key->lock);
    g16_err err = key_prepare_locked(key, st);
    pthread_mutex_unlock(&key->lock);
    return err;
}

/* MADV_DONTNEED on the whole pages inside [p, p + len); returns their bytes. */
static size_t drop_range(const void *p, size_t len) {
    long pg = sysconf(_SC_PAGESIZE);
    if (!p || !len || pg <= 0)
        return 0;
    uintptr_t lo = ((uintptr_t)p + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
    uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(pg - 1);
    if (hi <= lo)
        return 0;
    /* Advisory: on failure the pages just stay. The bytes are never read
     * again (key->dropped gates every reader), so zero-fill is harmless. */
    return madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0 ? hi - lo : 0;
}

g16_err groth16_key_drop_host(g16_key *key, unsigned what, size_t *released, g16_status *st) {
    if (released)
        *released = 0;
    if (!key || (what & ~(unsigned)(GROTH16_DROP_BASES | GROTH16_DROP_COEFS)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "key drop: NULL key or unknown flags");
    const g16_zkey *zk = &key->zk;
    size_t freed = 0, g1 = (size_t)zk->n8q * 2;
    pthread_mutex_lock(&key->lock); /* no g16_prove in flight while the pages go */
    key->dropped |= what; /* first: a reader sees the flag before zeroed pages */
    if (what & GROTH16_DROP_BASES) {
        /* A, B1, B2, C, H: the typed arrays (maybe aligned copies), else raw. */
        const void *pts[5];
        if (zk->curve == G16_CURVE_BN254) {
            const void *t[5] = {zk->bn254.A, zk->bn254.B1, zk->bn254.B2, zk->bn254.C, zk->bn254.H};
            memcpy(pts, t, sizeof t);
        } else {
            const void *t[5] = {zk->bls381.A, zk->bls381.B1, zk->bls381.B2, zk->bls381.C, zk->bls381.H};
            memcpy(pts, t, sizeof t);
        }
        const size_t cnt[5] = {zk->nVars, zk->nVars, zk->nVars, g16_zkey_nC(zk), zk->domainSize};
        for (int i = 0; i < 5; i++) {
            size_t bytes = cnt[i] * g1 * (i == 2 ? 2 : 1);
            const void *p = pts[i] ? pts[i] : zk->raw[i + 1];
            freed += drop_range(p, bytes);
            if (p != zk->raw[i + 1] && zk->raw[i + 1]) /* an aligned copy: the original bytes too */
                freed += drop_range(zk->raw[i + 1], bytes);
        }
    }
    if (what & GROTH16_DROP_COEFS)
        freed += drop_range(zk->coefs, (size_t)zk->nCoef * G16_ZKEY_COEF_SIZE);
    key->released += freed;
    pthread_mutex_unlock(&key->lock);
    if (released)
        *released = freed;
    return G16_OK;
}

void groth16_key_csr(const g16_key *key, groth16_csr *csr) {
    const groth16_prep *p = &key->prep;
    memset(csr, 0, sizeof *csr);
    if (!p->row[0]) /* not prepared (GROTH16_KEY_DEFER_PREP): no rows */
        return;
    csr->n = p->n;
    csr->nnz = p->row[1][p->n];
    csr->row[0] = p->row[0];
    csr->row[1] = p->row[1];
    csr->signal = p->signal;
    csr->coef = p->coef;
}

void groth16_msms_clear(groth16_msms *m) {
    g16_frvec_free(&m->pub);
    g16_wipe(m, sizeof *m);
}

g16_err groth16_stage_synth(g16_ctx *ctx, groth16_work *w, const g16_key *key, const g16_witness *wit,
                            groth16_timings *tm, g16_status *st) {
    return groth16_stage_synth_ex(ctx, w, key, wit, 0, tm, st);
}

/* What every synthesis checks first: the area's shape, a prepared key, a
 * ws-only area only for a ws-only synthesis. */
static g16_err synth_precheck(const groth16_work *w, const g16_key *key, int ws_only, g16_status *st) {
    if (!groth16_work_fits(w, key))
        return g16_fail(st, G16_ERR_INTERNAL, "prove: working area sized for another key shape");
    if (!key->prep.row[0])
        return g16_fail(st, G16_ERR_INTERNAL,
                        "prove: the key was loaded with GROTH16_KEY_DEFER_PREP and not prepared "
                        "(groth16_key_prepare)");
    if (w->scr.ws_only && !ws_only)
        return g16_fail(st, G16_ERR_INTERNAL,
                        "prove: this working area holds the witness scalars only (GROTH16_WORK_WS_ONLY): it needs "
                        "GROTH16_SYNTH_WS_ONLY");
    return G16_OK;
}

/* The public inputs in Montgomery form from the canonical scalars ws. */
static g16_err synth_pub(groth16_work *w, const g16_key *key, const g16_scalar *ws, g16_status *st) {
    g16_frvec_free(&w->pub);
    w->pub.curve = key->zk.curve;
    w->pub.n = key->zk.nPublic;
    w->pub.raw = malloc(((size_t)key->zk.nPublic + 1) * 32);
    if (!w->pub.raw)
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory");
    for (uint32_t i = 0; i < key->zk.nPublic; i++) {
        if (key->zk.curve == G16_CURVE_BN254)
            bn254_fr_to_mont(&w->pub.bn254[i], ws[1 + i].l);
        else
            bls381_fr_to_mont(&w->pub.bls381[i], ws[1 + i].l);
    }
    return G16_OK;
}

g16_err groth16_stage_synth_wtns(g16_ctx *ctx, groth16_work *w, const g16_key *key, const char *path,
                                 const void *data, size_t len, groth16_timings *tm, g16_status *st) {
    g16_err err;
    double t0 = g16_now_ms();
    if ((err = synth_precheck(w, key, 1, st)))
        return err;
    w->synthesized = 0;
    w->dirty = 1;
    g16_scalar *ws = w->scr.scalars[1];
    g16_frvec view;
    err = g16_wtns_read_into(&view, path, data, len, ws, key->zk.nVars, ctx ? ctx->pool : NULL, st);
    if (!err)
        err = g16_wtns_check_key(&view, &key->zk, st);
    if (!err)
        err = synth_pub(w, key, ws, st);
    if (err) { /* the values read so far are the witness's: gone before the area is used again */
        g16_wipe_threads(ws, (size_t)key->zk.nVars * sizeof *ws, g16_ctx_threads(ctx));
        return err;
    }
    w->synthesized = 2;
    tm->synth_ms += g16_now_ms() - t0;
    return G16_OK;
}

g16_err groth16_stage_synth_ex(g16_ctx *ctx, groth16_work *w, const g16_key *key, const g16_witness *wit,
                               unsigned flags, groth16_timings *tm, g16_status *st) {
    g16_err err;
    int ws_only = (flags & GROTH16_SYNTH_WS_ONLY) != 0;
    double t0 = g16_now_ms();
    if ((err = synth_precheck(w, key, ws_only, st)))
        return err;
    if (wit->w.standard && !ws_only)
        return g16_fail(st, G16_ERR_INTERNAL,
                        "prove: a witness in standard form (G16_WTNS_STANDARD) takes GROTH16_SYNTH_WS_ONLY only");
    if ((err = g16_wtns_check_key(&wit->w, &key->zk, st)))
        return err;
    g16_frvec_free(&w->pub);
    w->synthesized = 0;
    w->dirty = 1;
    w->pub.curve = key->zk.curve;
    w->pub.n = key->zk.nPublic;
    w->pub.raw = malloc(((size_t)key->zk.nPublic + 1) * 32);
    if (!w->pub.raw)
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory");
    if (wit->w.standard) { /* G16_WTNS_STANDARD: ws is the witness (ws_only checked above) */
        const g16_scalar *ws = (const g16_scalar *)wit->w.raw;
        if (key->zk.curve == G16_CURVE_BN254)
            groth16_bn254_synth_ws_standard(ctx, &key->zk, ws, &w->scr, w->pub.bn254, key->zk.nPublic);
        else
            groth16_bls381_synth_ws_standard(ctx, &key->zk, ws, &w->scr, w->pub.bls381, key->zk.nPublic);
    } else {
        memcpy(w->pub.raw, wit->w.raw + 1, (size_t)key->zk.nPublic * 32);
        if (key->zk.curve == G16_CURVE_BN254)
            groth16_bn254_synth(ctx, &key->zk, &key->prep, wit->w.bn254, &w->scr, ws_only);
        else
            groth16_bls381_synth(ctx, &key->zk, &key->prep, wit->w.bls381, &w->scr, ws_only);
    }
    w->synthesized = ws_only ? 2 : 1;
    tm->synth_ms += g16_now_ms() - t0;
    return G16_OK;
}

g16_err groth16_work_synth_complete(g16_ctx *ctx, groth16_work *w, const g16_key *key, g16_status *st) {
    if (!groth16_work_fits(w, key) || w->synthesized != 2 || w->scr.ws_only)
        return g16_fail(st, G16_ERR_INTERNAL,
                        "prove: completing a synthesis needs a ws-only synthesized working area with a, b, c buffers");
    void *tmp = malloc((size_t)key->zk.nVars * 32 + 1);
    if (!tmp)
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory for %u wires", key->zk.nVars);
    if (key->zk.curve == G16_CURVE_BN254)
        groth16_bn254_synth_from_ws(ctx, &key->zk, &key->prep, &w->scr, tmp);
    else
        groth16_bls381_synth_from_ws(ctx, &key->zk, &key->prep, &w->scr, tmp);
    free(tmp);
    w->synthesized = 1;
    return G16_OK;
}

g16_err groth16_stage_heavy(g16_ctx *ctx, groth16_msms *out, groth16_work *w, const g16_key *key,
                            groth16_timings *tm, g16_status *st) {
    g16_err err;
    memset(out, 0, sizeof *out);
    if (!groth16_work_fits(w, key) || !w->synthesized)
        return g16_fail(st, G16_ERR_INTERNAL, "prove: heavy stage on an unsynthesized working area");
    if (w->scr.no_cpu_heavy)
        return g16_fail(st, G16_ERR_INTERNAL, "prove: this working area was created for the GPU heavy stage only");
    if (key->dropped & GROTH16_DROP_BASES)
        return g16_fail(st, G16_ERR_UNSUPPORTED,
                        "prove: the key's host bases were released after the GPU upload; the CPU heavy stage "
                        "cannot run (prove on the GPU that holds them)");
    if (w->synthesized == 2)
        return g16_fail(st, G16_ERR_INTERNAL,
                        "prove: the working area holds the witness scalars only (GPU synthesis): the CPU heavy "
                        "stage needs a full synthesis");
    w->synthesized = 0;
    if (key->zk.curve == G16_CURVE_BN254)
        err = groth16_bn254_heavy(ctx, out, &key->zk, &w->scr, tm, st);
    else
        err = groth16_bls381_heavy(ctx, out, &key->zk, &w->scr, tm, st);
    out->pub = w->pub; /* moved */
    memset(&w->pub, 0, sizeof w->pub);
    groth16_work_wipe(w); /* a, b, c, h, MSM scratch: done with */
    if (err)
        groth16_msms_clear(out);
    return err;
}

g16_err groth16_stage_finalize(g16_ctx *ctx, g16_result **out, const g16_key *key, groth16_msms *m,
                               const uint8_t *r_le, const uint8_t *s_le, groth16_timings *tm,
                               g16_status *st) {
    (void)ctx;
    double t0 = g16_now_ms();
    g16_err err = G16_OK;
    *out = NULL;
    if (m->curve != key->zk.curve || m->pub.n != key->zk.nPublic || !m->pub.raw) {
        groth16_msms_clear(m);
        return g16_fail(st, G16_ERR_INTERNAL, "prove: finalize without the heavy stage's results");
    }
    /* The heavy stage read the key's bases: from a file that changed under
     * it (zeros after a truncation) the sums are garbage, and no proof. */
    if ((err = groth16_key_check(key, NULL, st))) {
        groth16_msms_clear(m);
        return err;
    }
    g16_result *res = calloc(1, sizeof *res);
    if (!res) {
        groth16_msms_clear(m);
        return g16_fail(st, G16_ERR_NOMEM, "prove: out of memory");
    }
    if (key->zk.curve == G16_CURVE_BN254) {
        bn254_fr r, s;
        if (r_le) {
            int ok = bn254_fr_from_bytes_le_secret(&r, r_le, 32) & bn254_fr_from_bytes_le_secret(&s, s_le, 32);
            g16_declassify(&ok, sizeof ok);
            if (!ok)
                err = g16_fail(st, G16_ERR_NOT_CANONICAL, "prove: r or s not below the group order");
        } else if (bn254_fr_random_os(&r) || bn254_fr_random_os(&s)) {
            err = g16_fail(st, G16_ERR_IO, "prove: getrandom failed");
        }
        if (!err)
            groth16_bn254_finalize(&res->proof, &key->zk, m, &r, &s);
        g16_wipe(&r, sizeof r);
        g16_wipe(&s, sizeof s);
    } else {
        bls381_fr r, s;
        if (r_le) {
            int ok = bls381_fr_from_bytes_le_secret(&r, r_le, 32) & bls381_fr_from_bytes_le_secret(&s, s_le, 32);
            g16_declassify(&ok, sizeof ok);
            if (!ok)
                err = g16_fail(st, G16_ERR_NOT_CANONICAL, "prove: r or s not below the group order");
        } else if (bls381_fr_random_os(&r) || bls381_fr_random_os(&s)) {
            err = g16_fail(st, G16_ERR_IO, "prove: getrandom failed");
        }
        if (!err)
            groth16_bls381_finalize(&res->proof, &key->zk, m, &r, &s);
        g16_wipe(&r, sizeof r);
        g16_wipe(&s, sizeof s);
    }
    g16_declassify(&res->proof, sizeof res->proof); /* the proof is public output */
    res->pub = m->pub; /* moved */
    memset(&m->pub, 0, sizeof m->pub);
    groth16_msms_clear(m);
    if (err) {
        g16_result_free(res);
        return err;
    }
    tm->finalize_ms += g16_now_ms() - t0;
    *out = res;
    return G16_OK;
}

void groth16_key_memory(const g16_key *key, groth16_key_mem *m) {
    const g16_zkey *zk = &key->zk;
    m->heap_bytes = key->host_len + zk->copied_bytes + sizeof *key +
                    ((size_t)zk->domainSize + 1) * 2 * sizeof(uint32_t) +
                    (size_t)zk->nCoef * (sizeof(uint32_t) + 32);
    m->mapped_bytes = zk->file.mapped ? zk->file.len : 0;
    /* An adopted image counts as heap; pages given back by
     * groth16_key_drop_host (of it or of aligned copies) do not. */
    m->heap_bytes += key->own_len;
    m->heap_bytes -= key->released < m->heap_bytes ? key->released : m->heap_bytes;
}

void groth16_key_adopt_mem(g16_key *key, void *mem, size_t len) {
    key->own_mem = mem;
    key->own_len = len;
}

/* The whole file into a malloc'd buffer; *sbo: its fstat, which must be
 * the same after the read (else it changed while being read: IO). */
static g16_err read_whole_file(const char *path, void **buf, size_t *len, struct stat *sbo, g16_status *st) {
    *buf = NULL;
    *len = 0;
    FILE *f;
    g16_err oe = g16_file_fopen_read(path, &f, st);
    if (oe)
        return oe;
    struct stat sb, sb2;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size <= 0) {
        fclose(f);
        return g16_fail(st, G16_ERR_IO, "%s: cannot stat or empty", path);
    }
    size_t n = (size_t)sb.st_size;
    void *p = malloc(n);
    if (!p) {
        fclose(f);
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for %zu bytes", path, n);
    }
    if (fread(p, 1, n, f) != n) {
        free(p);
        fclose(f);
        return g16_fail(st, G16_ERR_IO, "%s: read failed", path);
    }
    if (fstat(fileno(f), &sb2) != 0 || sb2.st_size != sb.st_size || sb2.st_mtim.tv_sec != sb.st_mtim.tv_sec ||
        sb2.st_mtim.tv_nsec != sb.st_mtim.tv_nsec) {
        free(p);
        fclose(f);
        return g16_fail(st, G16_ERR_IO, "%s changed while being read (truncated or rewritten); load it again", path);
    }
    fclose(f);
    *buf = p;
    *len = n;
    *sbo = sb;
    return G16_OK;
}

g16_err groth16_key_load_ex(g16_ctx *ctx, g16_key **out, const char *zkey_path, unsigned flags, int host_copy,
                            g16_status *st) {
    *out = NULL;
    g16_key *key = calloc(1, sizeof *key);
    if (!key)
        return g16_fail(st, G16_ERR_NOMEM, "g16_key_load: out of memory");
    unsigned zflags = (flags & G16_KEY_TRUSTED ? G16_ZKEY_TRUSTED : 0) |
                      (flags & G16_KEY_CHECK_SUBGROUP ? G16_ZKEY_CHECK_SUBGROUP : 0);
    g16_err err;
    if (host_copy) {
        struct stat sb;
        err = read_whole_file(zkey_path, &key->host_buf, &key->host_len, &sb, st);
        if (!err)
            err = g16_zkey_open_mem(&key->zk, zkey_path, key->host_buf, key->host_len, zflags, ctx->pool, st);
        if (!err && g16_fmap_set_origin(&key->zk.file.map, zkey_path, &sb)) /* for g16_key_check's STALE */
            err = g16_fail(st, G16_ERR_NOMEM, "g16_key_load: out of memory");
    } else {
        /* key.check_cache_dir: an unchanged file checked before skips its
         * points' checks (util/keycache.h; the self-check still verifies
         * every proof) */
        g16_config cfg;
        g16_ctx_config_copy(ctx, &cfg);
        char dirbuf[1024];
        const char *cache = g16_keycache_dir(g16_config_str(&cfg, G16_OPT_KEY_CHECK_CACHE), dirbuf, sizeof dirbuf);
        err = g16_zkey_open_ex(&key->zk, zkey_path, zflags, cache, ctx->pool, st);
    }
    if (!err) /* prep_build reads the coefficient section of the file */
        err = groth16_key_settle(key, prep_build(&key->prep, &key->zk, st), st);
    if (err) {
        if (key->prep.row[0])
            prep_free(&key->prep);
        g16_zkey_close(&key->zk);
        free(key->host_buf);
        free(key);
        return err;
    }
    pthread_mutex_init(&key->lock, NULL);
    pthread_mutex_init(&key->vk_lock, NULL);
    *out = key;
    return G16_OK;
}

/* A key over caller-owned bytes (an in-memory key from the test setup): not
 * copied (aligned point sections are used in place); no working area yet
 * (g16_prove makes one on first use). data must outlive the key. */
g16_err groth16_key_load_mem(g16_ctx *ctx, g16_key **out, const char *name, const void *data, size_t len,
                             unsigned flags, g16_status *st) {
    *out = NULL;
    g16_key *key = calloc(1, sizeof *key);
    if (!key)
        return g16_fail(st, G16_ERR_NOMEM, "g16_key_load: out of memory");
    unsigned zflags = (flags & G16_KEY_TRUSTED ? G16_ZKEY_TRUSTED : 0) |
                      (flags & G16_KEY_CHECK_SUBGROUP ? G16_ZKEY_CHECK_SUBGROUP : 0);
    g16_err err = g16_zkey_open_mem(&key->zk, name, data, len, zflags, ctx->pool, st);
    if (!err && !(flags & GROTH16_KEY_DEFER_PREP) && (err = prep_build(&key->prep, &key->zk, st))) {
        if (key->prep.row[0])
            prep_free(&key->prep);
        g16_zkey_close(&key->zk);
    }
    if (err) {
        free(key);
        return err;
    }
    pthread_mutex_init(&key->lock, NULL);
    pthread_mutex_init(&key->vk_lock, NULL);
    /* no working area: g16_prove creates one on first use (a GPU bench brings its own) */
    *out = key;
    return G16_OK;
}

g16_err groth16_witness_from_frvec(g16_witness **out, g16_frvec *v, g16_status *st) {
    *out = NULL;
    g16_witness *w = calloc(1, sizeof *w);
    if (!w)
        return g16_fail(st, G16_ERR_NOMEM, "witness: out of memory");
    w->w = *v;
    memset(v, 0, sizeof *v);
    *out = w;
    return G16_OK;
}

g16_err g16_key_load(g16_ctx *ctx, g16_key **out, const char *zkey_path, unsigned flags) {
    if (!ctx || !out || !zkey_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_load: NULL argument");
    g16_status st = {0};
    g16_err err = groth16_key_load_ex(ctx, out, zkey_path, flags, 0, &st);
    if (!err && (err = groth16_work_create(ctx, &(*out)->work, *out, &st))) {
        g16_key_free(*out);
        *out = NULL;
    }
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err g16_key_load_mem(g16_ctx *ctx, g16_key **out, const char *name, const void *data, size_t len,
                         unsigned flags) {
    if (!ctx || !out || !data)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_load_mem: NULL argument");
    *out = NULL;
    g16_status st = {0};
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_key_load_mem: out of memory (%zu bytes)", len);
    memcpy(copy, data, len);
    g16_err err = groth16_key_load_mem(ctx, out, name ? name : "zkey", copy, len, flags & ~GROTH16_KEY_DEFER_PREP,
                                       &st);
    if (err) {
        free(copy);
        return g16_ctx_report(ctx, &st);
    }
    (*out)->host_buf = copy; /* freed by g16_key_free after the zkey over it */
    (*out)->host_len = len;
    if ((err = groth16_work_create(ctx, &(*out)->work, *out, &st))) {
        g16_key_free(*out);
        *out = NULL;
        return g16_ctx_report(ctx, &st);
    }
    return G16_OK;
}

void g16_key_free(g16_key *key) {
    if (!key)
        return;
    groth16_work_free(key->work);
    prep_free(&key->prep);
    g16_zkey_close(&key->zk);
    free(key->host_buf);
    groth16_setup_mem_free(key->own_mem, key->own_len); /* after the zkey that points into it */
    if (key->vk_ready)
        g16_vk_free(&key->vk);
    pthread_mutex_destroy(&key->lock);
    pthread_mutex_destroy(&key->vk_lock);
    free(key);
}

int g16_key_checks_cached(const g16_key *key) { return key ? key->zk.checks_cached : 0; }

g16_err g16_key_get_info(g16_ctx *ctx, g16_key_info *info, const g16_key *key) {
    if (!info || !key)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_get_info: NULL argument");
    info->curve = key->zk.curve;
    info->n_vars = key->zk.nVars;
    info->n_public = key->zk.nPublic;
    info->domain_size = key->zk.domainSize;
    info->n_coefficients = key->zk.nCoef;
    return G16_OK;
}

g16_err g16_witness_load(g16_ctx *ctx, g16_witness **out, const char *wtns_path) {
    if (!ctx || !out || !wtns_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_load: NULL argument");
    *out = NULL;
    g16_witness *w = calloc(1, sizeof *w);
    if (!w)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_witness_load: out of memory");
    g16_status st = {0};
    if (g16_wtns_read_ex(&w->w, wtns_path, 0, ctx->pool, &st) != G16_OK) { /* on ctx's threads */
        free(w);
        return g16_ctx_report(ctx, &st);
    }
    *out = w;
    return G16_OK;
}

g16_err g16_witness_from_wtns_bytes(g16_ctx *ctx, g16_witness **out, const void *data, size_t len) {
    if (!ctx || !out || (!data && len))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_from_wtns_bytes: NULL argument");
    *out = NULL;
    g16_witness *w = calloc(1, sizeof *w);
    if (!w)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "g16_witness_from_wtns_bytes: out of memory");
    g16_status st = {0};
    if (g16_wtns_read_mem_ex(&w->w, "witness", data, len, 0, ctx->pool, &st) != G16_OK) {
        free(w);
        return g16_ctx_report(ctx, &st);
    }
    *out = w;
    return G16_OK;
}

g16_err groth16_witness_load(g16_witness **out, const char *path, const void *data, size_t len, g16_status *st) {
    return groth16_witness_load_ex(out, path, data, len, 0, st);
}

static g16_err witness_load(g16_pool *pool, g16_witness **out, const char *path, const void *data, size_t len,
                            unsigned flags, g16_status *st) {
    *out = NULL;
    g16_witness *w = calloc(1, sizeof *w);
    if (!w)
        return g16_fail(st, G16_ERR_NOMEM, "witness: out of memory");
    g16_err err = path ? g16_wtns_read_ex(&w->w, path, flags, pool, st)
                       : g16_wtns_read_mem_ex(&w->w, "witness", data, len, flags, pool, st);
    if (err) {
        free(w);
        return err;
    }
    *out = w;
    return G16_OK;
}

g16_err groth16_witness_load_ex(g16_witness **out, const char *path, const void *data, size_t len, unsigned flags,
                                g16_status *st) {
    return witness_load(NULL, out, path, data, len, flags, st);
}

g16_err groth16_witness_load_ctx(g16_ctx *ctx, g16_witness **out, const char *path, const void *data, size_t len,
                                 unsigned flags, g16_status *st) {
    return witness_load(ctx ? ctx->pool : NULL, out, path, data, len, flags, st);
}

void groth16_witness_free_threads(g16_witness *w, int threads) {
    if (!w)
        return;
    if (w->w.raw)
        g16_wipe_threads(w->w.raw, w->w.n * 32, threads);
    g16_frvec_free(&w->w);
    free(w);
}

void g16_witness_free(g16_witness *w) { groth16_witness_free_threads(w, 1); }

void g16_result_free(g16_result *res) {
    if (!res)
        return;
    g16_frvec_free(&res->pub);
    free(res);
}

/* The key's own working area for one proof (g16_prove on the CPU): taken
 * under the key's lock, prepared and created on first use. */
g16_err groth16_key_work_acquire(g16_ctx *ctx, g16_key *key, groth16_work **w, g16_status *st) {
    g16_err err = G16_OK;
    *w = NULL;
    pthread_mutex_lock(&key->lock);
    if (!key->prep.row[0])
        err = key_prepare_locked(key, st);
    if (!err && !key->work)
        err = groth16_work_create(ctx, &key->work, key, st);
    if (err) {
        pthread_mutex_unlock(&key->lock);
        return err;
    }
    *w = key->work;
    return G16_OK;
}

void groth16_key_work_release(g16_key *key) { pthread_mutex_unlock(&key->lock); }

void groth16_work_discard(groth16_work *w) {
    groth16_msms m;
    memset(&m, 0, sizeof m);
    groth16_work_consume(w, &m, 0);
    groth16_msms_clear(&m);
}

g16_err g16_result_write(g16_ctx *ctx, const g16_result *res, const char *proof_path, const char *public_path) {
    if (!res)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_result_write: NULL result");
    g16_status st = {0};
    if (g16_result_files_write(proof_path, &res->proof, public_path, &res->pub, &st))
        return g16_ctx_report(ctx, &st);
    return G16_OK;
}

g16_err g16_result_json(g16_ctx *ctx, char **proof_json, char **public_json, const g16_result *res) {
    if (!res)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_result_json: NULL result");
    g16_status st = {0};
    if (proof_json)
        *proof_json = NULL;
    if (public_json)
        *public_json = NULL;
    if (proof_json && g16_proof_json_str(proof_json, &res->proof, &st))
        return g16_ctx_report(ctx, &st);
    if (public_json && g16_public_json_str(public_json, &res->pub, 0, res->pub.n, &st)) {
        if (proof_json) {
            free(*proof_json);
            *proof_json = NULL;
        }
        return g16_ctx_report(ctx, &st);
    }
    return G16_OK;
}

/* ---- verification ------------------------------------------------------- */

static g16_err verify_parsed(const g16_vk *vk, const g16_frvec *pub, const g16_proof *proof, g16_status *st) {
    if (vk->curve != proof->curve || vk->curve != pub->curve)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "verify: key, public inputs and proof are not on one curve");
    if (pub->n != vk->nPublic)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "verify: %zu public inputs, the key expects %u", pub->n,
                        vk->nPublic);
    if (vk->curve == G16_CURVE_BN254)
        return groth16_bn254_verify(vk, pub->bn254, pub->n, proof, st);
    return groth16_bls381_verify(vk, pub->bls381, pub->n, proof, st);
}

g16_err g16_verify_json(g16_ctx *ctx, const char *vk_json, const char *public_json, const char *proof_json) {
    if (!ctx || !vk_json || !public_json || !proof_json)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_verify_json: NULL argument");
    g16_status st = {0};
    g16_vk vk = {0};
    g16_proof proof;
    g16_frvec pub = {0};
    g16_err err = g16_vk_json_parse(&vk, vk_json, strlen(vk_json), -1, &st);
    if (!err)
        err = g16_proof_json_parse(&proof, proof_json, strlen(proof_json), (int)vk.curve, &st);
    if (!err)
        err = g16_public_json_parse(&pub, public_json, strlen(public_json), vk.curve, &st);
    if (!err)
        err = verify_parsed(&vk, &pub, &proof, &st);
    g16_vk_free(&vk);
    g16_frvec_free(&pub);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err g16_verify_files(g16_ctx *ctx, const char *vk_path, const char *public_path, const char *proof_path) {
    if (!ctx || !vk_path || !public_path || !proof_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_verify_files: NULL argument");
    g16_status st = {0};
    g16_vk vk = {0};
    g16_proof proof;
    g16_frvec pub = {0};
    g16_err err = g16_vk_json_read(&vk, vk_path, -1, &st);
    if (!err)
        err = g16_proof_json_read(&proof, proof_path, (int)vk.curve, &st);
    if (!err)
        err = g16_public_json_read(&pub, public_path, vk.curve, &st);
    if (!err)
        err = verify_parsed(&vk, &pub, &proof, &st);
    g16_vk_free(&vk);
    g16_frvec_free(&pub);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err groth16_result_verify(const g16_key *key, const g16_result *res, g16_status *st) {
    g16_key *k = (g16_key *)key; /* the cache is logically const */
    g16_err err = G16_OK;
    pthread_mutex_lock(&k->vk_lock);
    if (!k->vk_ready) {
        memset(&k->vk, 0, sizeof k->vk);
        err = g16_vk_from_zkey(&k->vk, &k->zk, st);
        k->vk_ready = err == G16_OK;
    }
    pthread_mutex_unlock(&k->vk_lock);
    /* The pairing equation alone accepts a proof with a small-order
     * component (from a key's torsion bases), which other verifiers reject. */
    if (!err)
        err = g16_proof_check_subgroup(&res->proof, st);
    if (!err)
        err = verify_parsed(&k->vk, &res->pub, &res->proof, st);
    return groth16_key_settle(key, err, st); /* IC from a file that changed: not "invalid proof" */
}

/* Verifies a result against its own key (the engine's verify-before-return). */
g16_err g16_result_verify(g16_ctx *ctx, const g16_key *key, const g16_result *res) {
    if (!ctx || !key || !res)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_result_verify: NULL argument");
    g16_status st = {0};
    g16_err err = groth16_result_verify(key, res, &st);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err g16_key_export_vk(g16_ctx *ctx, const g16_key *key, const char *vk_path) {
    if (!ctx || !key || !vk_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_export_vk: NULL argument");
    g16_status st = {0};
    g16_vk vk = {0};
    /* IC comes from the key's file: not from one that changed under the read */
    g16_err err = groth16_key_settle(key, g16_vk_from_zkey(&vk, &key->zk, &st), &st);
    if (!err)
        err = g16_vk_json_write(vk_path, &vk, &st);
    g16_vk_free(&vk);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}
