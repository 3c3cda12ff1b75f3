/* The device prover (prover.h) and the public g16_prove / g16_prove_batch
 * over it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover.h"
#include "g16_testing.h"
#include "gpu/gpu.h"
#include "util/ctx.h"

/* ---- one heavy stage ---------------------------------------------------- */

/* A ws-only synthesis completed on the CPU (no-op after a full one). */
static g16_err synth_complete(g16_ctx *ctx, groth16_work *w, const g16_key *key, g16_status *st) {
    groth16_work_bufs wb;
    g16_err err = groth16_work_buffers(w, key, &wb, st);
    if (!err && wb.ws_only)
        err = groth16_work_synth_complete(ctx, w, key, st);
    return err;
}

g16_err groth16_stage_heavy_on(g16_ctx *ctx, const groth16_heavy_dev *dev, groth16_msms *out, groth16_work *w,
                               const g16_key *key, groth16_timings *tm, groth16_gpu_timings *gtm, g16_status *st) {
    if (gtm)
        memset(gtm, 0, sizeof *gtm);
    memset(out, 0, sizeof *out);
    int on_gpu = dev && dev->g;
    if (!on_gpu || !groth16_gpu_key_synth(dev->gk)) {
        g16_err err = synth_complete(ctx, w, key, st);
        if (err) {
            groth16_work_discard(w);
            return err;
        }
    }
    if (!on_gpu)
        return groth16_stage_heavy(ctx, out, w, key, tm, st);
    return groth16_stage_heavy_gpu(ctx, dev->g, dev->gw, dev->gk, out, w, key, tm, gtm, st);
}

/* ---- the prover ------------------------------------------------------------ */

/* The smallest MSM context an own context shrinks to (larger MSMs then run
 * in chunks of it: prove_gpu.c). */
#define PROVER_MIN_CTX_POINTS ((size_t)1 << 20)

struct groth16_prover {
    g16_ctx *ctx;
    g16_key *key;
    groth16_prover_opts o;
    groth16_prover_info info;
    /* GPU (all NULL on the CPU); own_*: the prover frees it */
    g16_gpu *g;
    groth16_gpu_key *gk;
    groth16_gpu_work *gw;
    int own_g, own_gk, own_gw;
    /* host working area; work_gpu: made for the GPU stage */
    groth16_work *work;
    int work_gpu;
};

void groth16_prover_opts_init(groth16_prover_opts *o) {
    memset(o, 0, sizeof *o);
    o->backend = G16_BACKEND_AUTO;
    o->verify = 1;
}

/* Appends one formatted sentence (fmt takes two strings) to note, after a
 * "; "; cut at cap - 1 bytes. */
static void note_add(char *note, size_t cap, const char *fmt, const char *a, const char *b) {
    char line[512];
    size_t len = strlen(note);
    int n = snprintf(line, sizeof line, fmt, a, b);
    if (n < 0 || len + 3 >= cap)
        return;
    if (len) {
        memcpy(note + len, "; ", 3);
        len += 2;
    }
    size_t k = strlen(line) < cap - 1 - len ? strlen(line) : cap - 1 - len;
    memcpy(note + len, line, k);
    note[len + k] = 0;
}

/* Frees what the prover owns on the GPU and forgets what it borrowed:
 * the next proofs run on the CPU. */
static void gpu_drop(groth16_prover *p) {
    if (p->own_gw)
        groth16_gpu_work_free(p->g, p->gw);
    if (p->own_gk)
        groth16_gpu_key_free(p->g, p->gk);
    if (p->own_g)
        g16_gpu_destroy(p->g);
    p->g = NULL, p->gk = NULL, p->gw = NULL;
    p->own_g = p->own_gk = p->own_gw = 0;
    p->info.backend = G16_BACKEND_CPU;
    p->info.msm_points = 0;
}

/* The GPU set-up: context, device key, device working area. */
static g16_err gpu_setup(groth16_prover *p, g16_status *st) {
    const g16_zkey *zk = groth16_key_zkey(p->key);
    g16_err err = G16_OK;
    double t0;
    int upload = !p->o.gpu_key && !p->o.stream_bases;
    p->gk = p->o.gpu_key;
    if (p->o.gpu) { /* borrowed context: the key (unless given) and a working area through it */
        p->g = p->o.gpu;
        p->info.msm_points = g16_gpu_max_points(p->g);
        if (upload) {
            t0 = g16_now_ms();
            err = groth16_gpu_key_upload(p->g, &p->gk, p->key, st);
            p->info.key_upload_ms = g16_now_ms() - t0;
            if (err)
                return err;
            p->own_gk = p->info.key_owned = 1;
        }
        if (p->o.gpu_work) {
            p->gw = p->o.gpu_work;
            return G16_OK;
        }
        t0 = g16_now_ms();
        err = groth16_gpu_work_create(p->g, &p->gw, p->key, st);
        p->info.gpu_work_ms = g16_now_ms() - t0;
        p->own_gw = err == G16_OK;
        return err;
    }
    /* Own context: MSMs of up to maxp points, halved while the device cannot
     * hold the context beside the key and the working area (down to 2^20;
     * larger MSMs then run in chunks). A caller that wants the context
     * sized for the memory left beside the key uploads the key first
     * through a small loader context and lends it (gpu_key). */
    size_t maxp = zk->domainSize > zk->nVars ? zk->domainSize : zk->nVars;
    if (p->o.msm_max_points && p->o.msm_max_points < maxp)
        maxp = p->o.msm_max_points;
    for (;;) {
        t0 = g16_now_ms();
        err = g16_gpu_create(&p->g, p->o.device, maxp, 1, g16_ctx_config(p->ctx), st);
        p->info.gpu_create_ms = g16_now_ms() - t0;
        if (!err && upload) {
            t0 = g16_now_ms();
            err = groth16_gpu_key_upload(p->g, &p->gk, p->key, st);
            p->info.key_upload_ms = g16_now_ms() - t0;
        }
        t0 = g16_now_ms();
        if (!err)
            err = groth16_gpu_work_create(p->g, &p->gw, p->key, st);
        p->info.gpu_work_ms = g16_now_ms() - t0;
        if (!err)
            break;
        groth16_gpu_work_free(p->g, p->gw);
        if (upload)
            groth16_gpu_key_free(p->g, p->gk);
        g16_gpu_destroy(p->g);
        p->g = NULL, p->gw = NULL, p->gk = p->o.gpu_key;
        if (maxp <= PROVER_MIN_CTX_POINTS || err == G16_ERR_NO_DEVICE || err == G16_ERR_INVALID_ARG)
            return err;
        char pts[32];
        snprintf(pts, sizeof pts, "%zu", maxp / 2);
        note_add(p->info.note, sizeof p->info.note, "%s; again with MSMs of at most %s points", st->msg, pts);
        maxp /= 2;
    }
    p->own_g = p->own_gw = 1;
    p->own_gk = p->info.key_owned = upload;
    p->info.msm_points = maxp;
    return G16_OK;
}

/* The host working area for the current backend: pinned on the GPU, and
 * with the witness scalars only when the GPU synthesizes. */
static g16_err host_work(groth16_prover *p, g16_status *st) {
    int gpu = p->g != NULL;
    if (p->o.use_key_work && !gpu)
        return G16_OK; /* the key's own, taken per proof */
    if (p->work && p->work_gpu == gpu)
        return G16_OK;
    groth16_work_free(p->work);
    p->work = NULL;
    unsigned flags = 0;
    if (gpu) {
        flags = groth16_gpu_synth_flags(p->gk) & GROTH16_SYNTH_WS_ONLY ? GROTH16_WORK_WS_ONLY
                                                                       : GROTH16_WORK_NO_CPU_HEAVY;
        if (!p->o.pageable)
            flags |= GROTH16_WORK_PINNED;
    }
    double t0 = g16_now_ms();
    g16_err err = groth16_work_create_ex(p->ctx, &p->work, p->key, flags, st);
    p->info.host_work_ms = g16_now_ms() - t0;
    p->work_gpu = gpu;
    return err;
}

g16_err groth16_prover_host_work(groth16_prover *p, g16_status *st) { return host_work(p, st); }

/* AUTO's choice before any GPU set-up; returns 1 for the GPU, else writes
 * why not. The size comes first: asking for the devices initializes the
 * CUDA runtime (~140 ms on the H200 host), which a small proof must not pay. */
static int auto_wants_gpu(const groth16_prover *p, char *why, size_t cap) {
    const g16_zkey *zk = groth16_key_zkey(p->key);
    /* A key without host bases has no CPU stage: the GPU whatever its size. */
    if (!p->o.gpu && !(groth16_key_dropped(p->key) & GROTH16_DROP_BASES) &&
        zk->domainSize < G16_PROVE_AUTO_GPU_MIN_DOMAIN) {
        snprintf(why, cap, "auto: domain 2^%u is below 2^%d (G16_PROVE_AUTO_GPU_MIN_DOMAIN), where a fresh GPU "
                           "context costs more than the CPU proof",
                 zk->log2_domain, __builtin_ctz(G16_PROVE_AUTO_GPU_MIN_DOMAIN));
        return 0;
    }
    if (g16_gpu_count() <= 0) {
        snprintf(why, cap, "auto: no usable GPU (or a build without CUDA)");
        return 0;
    }
    return 1;
}

g16_err groth16_prover_create(g16_ctx *ctx, groth16_prover **out, g16_key *key, const groth16_prover_opts *o,
                              g16_status *st) {
    *out = NULL;
    if (!ctx || !key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "prover: NULL argument");
    groth16_prover *p = calloc(1, sizeof *p);
    if (!p)
        return g16_fail(st, G16_ERR_NOMEM, "prover: out of memory");
    p->ctx = ctx;
    p->key = key;
    if (o)
        p->o = *o;
    else
        groth16_prover_opts_init(&p->o);
    p->info.backend = G16_BACKEND_CPU;
    g16_err err = G16_OK;
    if (p->o.backend != G16_BACKEND_CPU && p->o.backend != G16_BACKEND_CUDA && p->o.backend != G16_BACKEND_AUTO)
        err = g16_fail(st, G16_ERR_INVALID_ARG, "prover: unknown backend %d", (int)p->o.backend);
    int want_gpu = p->o.backend == G16_BACKEND_CUDA ||
                   (p->o.backend == G16_BACKEND_AUTO && auto_wants_gpu(p, p->info.note, sizeof p->info.note));
    if (!err && want_gpu) {
        g16_status gst = {0};
        g16_err gerr = gpu_setup(p, &gst);
        if (!gerr) {
            p->info.backend = G16_BACKEND_CUDA;
        } else {
            gpu_drop(p);
            if (p->o.backend == G16_BACKEND_CUDA)
                err = g16_fail(st, gerr, "%s", gst.msg[0] ? gst.msg : g16_err_str(gerr));
            else
                note_add(p->info.note, sizeof p->info.note, "auto: GPU unavailable (%s%s); proving on the CPU",
                         gst.msg[0] ? gst.msg : g16_err_str(gerr), "");
        }
    }
    /* The prover's coefficient rows (a key loaded with GROTH16_KEY_DEFER_PREP
     * gets them now, after its bases went up). */
    if (!err)
        err = groth16_key_prepare(key, st);
    if (!err && !p->o.defer_host_work)
        err = host_work(p, st);
    if (err) {
        groth16_prover_free(p);
        return err;
    }
    *out = p;
    return G16_OK;
}

void groth16_prover_free(groth16_prover *p) {
    if (!p)
        return;
    groth16_work_free(p->work);
    gpu_drop(p);
    free(p);
}

void groth16_prover_get_info(const groth16_prover *p, groth16_prover_info *info) { *info = p->info; }
struct g16_gpu *groth16_prover_gpu(const groth16_prover *p) { return p->g; }
groth16_gpu_key *groth16_prover_gpu_key(const groth16_prover *p) { return p->gk; }
groth16_gpu_work *groth16_prover_gpu_work(const groth16_prover *p) { return p->gw; }
const groth16_work *groth16_prover_work(const groth16_prover *p) { return p->work; }

static void emit(groth16_prover *p, int ev, const groth16_prove_report *r) {
    if (p->o.event)
        p->o.event(p->o.event_user, ev, r);
}

/* AUTO leaves the GPU: notes why, tells the caller, drops the GPU. */
static void fall_back(groth16_prover *p, groth16_prove_report *r, const char *what, const char *msg) {
    note_add(r->note, sizeof r->note, "auto: %s%s; proving on the CPU", what, msg);
    memcpy(p->info.note, r->note, sizeof p->info.note); /* same size, NUL-terminated */
    emit(p, GROTH16_PROVER_EV_FALLBACK, r);
    gpu_drop(p);
}

g16_err groth16_prover_prove(groth16_prover *p, g16_result **out, const g16_witness *w, const char *wtns_path,
                             const uint8_t *r_le, const uint8_t *s_le, groth16_prove_report *report,
                             g16_status *st) {
    groth16_prove_report rl;
    groth16_prove_report *r = report ? report : &rl;
    memset(r, 0, sizeof *r);
    *out = NULL;
    if (!w && !wtns_path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "prover: no witness");
    snprintf(r->note, sizeof r->note, "%s", p->info.note);
    g16_witness *own_w = NULL;
    g16_result *res = NULL;
    groth16_msms m;
    memset(&m, 0, sizeof m);
    g16_err err;
    double t_start = g16_now_ms();
    int is_auto = p->o.backend == G16_BACKEND_AUTO;
    g16_progress pg;
    g16_progress_init(&pg, p->o.progress, p->o.progress_user);
again:
    memset(&r->tm, 0, sizeof r->tm);
    memset(&r->gtm, 0, sizeof r->gtm);
    r->backend = p->g ? G16_BACKEND_CUDA : G16_BACKEND_CPU;
    r->gpu_synth = 0;
    if ((err = host_work(p, st)))
        goto fail;
    groth16_work *work = p->work;
    int key_locked = 0;
    if (p->o.use_key_work && !p->g) {
        if ((err = groth16_key_work_acquire(p->ctx, p->key, &work, st)))
            goto fail;
        key_locked = 1;
    }
    /* Stage 1. With the key's coefficient rows on the GPU the CPU computes
     * only the witness scalars (read straight from the file when there is
     * no witness object) and the GPU a, b, c. */
    double t0 = g16_now_ms();
    g16_progress_stage(&pg, "synthesis", 1);
    unsigned sflags = p->g ? groth16_gpu_synth_flags(p->gk) : 0;
    if ((sflags & GROTH16_SYNTH_WS_ONLY) && !w) {
        err = groth16_stage_synth_wtns(p->ctx, work, p->key, wtns_path, NULL, 0, &r->tm, st);
    } else {
        if (!w && !own_w)
            err = groth16_witness_load_ctx(p->ctx, &own_w, wtns_path, NULL, 0, 0, st);
        if (!err)
            err = groth16_stage_synth_ex(p->ctx, work, p->key, w ? w : own_w, sflags, &r->tm, st);
    }
    r->synth_ms = g16_now_ms() - t0;
    if (err) {
        if (key_locked)
            groth16_key_work_release(p->key);
        goto fail;
    }
    r->gpu_synth = (sflags & GROTH16_SYNTH_WS_ONLY) != 0;
    g16_progress_end(&pg);
    emit(p, GROTH16_PROVER_EV_SYNTH, r);
    /* Stage 2 (the CPU stage reports "ntt" and "msm" itself). */
    t0 = g16_now_ms();
    groth16_heavy_dev dev = {p->g, p->gw, p->gk};
    if (p->g)
        g16_progress_stage(&pg, "gpu", 1);
    groth16_work_set_progress(work, pg.fn ? &pg : NULL);
    err = groth16_stage_heavy_on(p->ctx, p->g ? &dev : NULL, &m, work, p->key, &r->tm, &r->gtm, st);
    groth16_work_set_progress(work, NULL);
    if (!err)
        g16_progress_end(&pg);
    r->heavy_ms = g16_now_ms() - t0;
    if (key_locked)
        groth16_key_work_release(p->key);
    if (err && p->g && is_auto) {
        fall_back(p, r, "the GPU stage failed: ", st->msg);
        goto again;
    }
    if (err)
        goto fail;
    emit(p, GROTH16_PROVER_EV_HEAVY, r);
    /* Stage 3, and the check: a witness of another circuit with the right
     * length proves "fine" but yields an invalid proof; one multi-pairing
     * catches it. */
    t0 = g16_now_ms();
    if ((err = groth16_stage_finalize(p->ctx, &res, p->key, &m, r_le, s_le, &r->tm, st)))
        goto fail;
    r->finalize_ms = g16_now_ms() - t0;
    if (p->o.verify) {
        t0 = g16_now_ms();
        g16_status vst = {0};
        g16_progress_stage(&pg, "verify", 1);
        err = groth16_result_verify(p->key, res, &vst);
        if (!err)
            g16_progress_end(&pg);
        r->verify_ms = g16_now_ms() - t0;
        if (err) {
            g16_result_free(res);
            res = NULL;
            if (p->g && is_auto) {
                fall_back(p, r, "the GPU proof does not verify", "");
                goto again;
            }
            if (err == G16_ERR_INVALID_PROOF)
                err = g16_fail(st, G16_ERR_INVALID_PROOF,
                               "prove: the proof does not verify: the witness does not satisfy the key's circuit");
            else
                err = g16_fail(st, err, "%s", vst.msg);
            goto fail;
        }
    }
    r->total_ms = g16_now_ms() - t_start;
    emit(p, GROTH16_PROVER_EV_DONE, r);
    g16_witness_free(own_w);
    *out = res;
    return G16_OK;
fail:
    groth16_msms_clear(&m);
    g16_result_free(res);
    g16_witness_free(own_w);
    r->total_ms = g16_now_ms() - t_start;
    return err;
}

/* ---- public API ------------------------------------------------------------ */

void g16_prove_opts_init(g16_prove_opts *o) {
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->backend = G16_BACKEND_AUTO;
    o->verify = 1;
}

/* The caller's options over the defaults: the first o->size bytes count
 * (a caller built against an older, shorter struct gets defaults for the
 * rest). */
static g16_err opts_read(g16_ctx *ctx, groth16_prover_opts *po, const g16_prove_opts *o, const char *fn) {
    g16_prove_opts d;
    g16_prove_opts_init(&d);
    if (o) {
        if (o->size < offsetof(g16_prove_opts, backend) + sizeof o->backend || o->size > sizeof d)
            return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG,
                                "%s: opts->size is %zu (set it with g16_prove_opts_init)", fn, o->size);
        memcpy(&d, o, o->size);
    }
    if (d.backend != G16_BACKEND_CPU && d.backend != G16_BACKEND_CUDA && d.backend != G16_BACKEND_AUTO)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "%s: unknown backend %d", fn, (int)d.backend);
    if (d.device < 0)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "%s: device %d", fn, d.device);
    groth16_prover_opts_init(po);
    po->backend = d.backend;
    po->verify = d.verify != 0;
    po->device = d.device;
    po->stream_bases = d.stream_bases != 0;
    po->progress = d.progress;
    po->progress_user = d.progress_user;
    po->use_key_work = 1;
    return G16_OK;
}

static void stats_fill(g16_prove_stats *s, const groth16_prove_report *r) {
    memset(s, 0, sizeof *s);
    s->synth_ms = r->tm.synth_ms;
    s->ntt_ms = r->tm.ntt_ms;
    s->msm_ms = r->tm.msm_ms;
    s->finalize_ms = r->tm.finalize_ms;
    s->verify_ms = r->verify_ms;
    s->total_ms = r->total_ms;
    s->backend = r->backend;
    snprintf(s->backend_note, sizeof s->backend_note, "%s", r->note);
}

static g16_err prove_n(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *const *w, size_t n,
                       const groth16_prover_opts *po, const uint8_t *r_le, const uint8_t *s_le,
                       g16_prove_stats *stats) {
    g16_status st = {0};
    groth16_prover *p = NULL;
    double t0 = g16_now_ms();
    g16_err err = groth16_prover_create(ctx, &p, key, po, &st);
    double setup_ms = g16_now_ms() - t0; /* a GPU context and key upload: counted in the first total */
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    for (size_t i = 0; !err && i < n; i++) {
        groth16_prove_report r;
        err = groth16_prover_prove(p, &out[i], w[i], NULL, r_le, s_le, &r, &st);
        if (!err && stats) {
            stats_fill(&stats[i], &r);
            stats[i].total_ms += i == 0 ? setup_ms : 0.0;
        }
    }
    groth16_prover_free(p);
    if (err) {
        for (size_t i = 0; i < n; i++) {
            g16_result_free(out[i]);
            out[i] = NULL;
        }
        return g16_ctx_report(ctx, &st);
    }
    return G16_OK;
}

g16_err g16_prove(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *w, const g16_prove_opts *opts,
                  g16_prove_stats *stats) {
    if (!ctx || !out || !key || !w)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_prove: NULL argument");
    *out = NULL;
    groth16_prover_opts po;
    g16_err err = opts_read(ctx, &po, opts, "g16_prove");
    return err ? err : prove_n(ctx, out, key, &w, 1, &po, NULL, NULL, stats);
}

g16_err g16_prove_batch(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *const *w, size_t n,
                        const g16_prove_opts *opts, g16_prove_stats *stats) {
    if (!ctx || !out || !key || (!w && n))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_prove_batch: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (!w[i])
            return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_prove_batch: witness %zu is NULL", i);
    groth16_prover_opts po;
    g16_err err = opts_read(ctx, &po, opts, "g16_prove_batch");
    return err ? err : prove_n(ctx, out, key, w, n, &po, NULL, NULL, stats);
}

g16_err g16_prove_with_rs_insecure(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *w,
                                   const uint8_t r_le[32], const uint8_t s_le[32]) {
    if (!ctx || !out || !key || !w || !r_le || !s_le)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_prove_with_rs_insecure: NULL argument");
    *out = NULL;
    groth16_prover_opts po;
    groth16_prover_opts_init(&po);
    po.backend = G16_BACKEND_CPU;
    po.verify = 0;
    po.use_key_work = 1;
    return prove_n(ctx, out, key, &w, 1, &po, r_le, s_le, NULL);
}
