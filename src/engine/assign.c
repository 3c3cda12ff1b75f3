/* Assignment jobs (docs/engine.md, "Assignment jobs"): bellperson .params
 * keys and their pre-synthesized partitions through the engine's queues.
 *
 * A partition of such a job goes through the same three stages as a
 * witness partition, under the same lock, heaps and budget:
 *   synthesis thread: reserves the partition's bytes (asg_part_bytes), reads
 *       the .assignment file (or the copied bytes; a borrowed g16_assignment
 *       is used in place), checks it against the key (every count, bitmap
 *       and input 0) and copies its public inputs out; no working area;
 *   device worker:    the backend's params_heavy (H bellperson's way and
 *       the five MSMs: g16_params_heavy_gpu on a CUDA worker, whose device
 *       holds the key's bases from its first partition there on;
 *       g16_params_heavy_cpu on the CPU backend and as the GPU's fallback);
 *       then the assignment's copy is wiped and freed and the reservation
 *       given back;
 *   finalize thread:  r, s fresh, the proof assembled, verified against the
 *       key's vk (g16_params_verify) and encoded (192 bytes).
 * Cancellation, timeouts and priorities are the queues' own. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_internal.h"
#include "util/ctx.h"

static uint64_t file_bytes(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
}

/* The budget bytes of one partition of k (k resident): the heavy stage's
 * scratch (a, b, c over the domain, and the scalars of the inputs, of aux
 * and of the A and B queries, 32 bytes each) plus the partition's own
 * copy: the file (read whole) or twice the data (copied at submit, read
 * into place); a borrowed assignment is the caller's memory. */
uint64_t asg_part_bytes(const ekey *k, const part *p) {
    if (!k->pkey)
        return 0;
    const g16_params *pp = g16_params_key_params(k->pkey);
    size_t domain = 0;
    (void)g16_params_key_info(k->pkey, NULL, NULL, &domain);
    uint64_t scalars = (uint64_t)pp->n[G16_PARAMS_IC] + pp->n[G16_PARAMS_L] + pp->n[G16_PARAMS_A] +
                       pp->n[G16_PARAMS_B_G1] + 4;
    uint64_t b = (3 * (uint64_t)domain + scalars) * 32 + sizeof(g16_params_msms);
    if (p->path)
        b += file_bytes(p->path);
    else if (p->data)
        b += 2 * (uint64_t)p->len;
    return b;
}

/* Frees a partition's assignment state (witness-derived parts wiped): the
 * file copy, the MSM sums, the public inputs; keep_results: the proof and
 * its public.json stay. */
static void asg_free(part *p, int keep_results) {
    g16_assignment_file_free(&p->afile);
    p->asg = NULL;
    if (p->pm) {
        g16_wipe(p->pm, sizeof *p->pm);
        free(p->pm);
        p->pm = NULL;
    }
    g16_frvec_free(&p->pub);
    if (!keep_results) {
        free(p->pproof);
        p->pproof = NULL;
        free(p->pub_json);
        p->pub_json = NULL;
    }
}

void asg_part_clear(g16_engine *e, part *p) {
    budget_give(e, p->rsv);
    p->rsv = 0;
    asg_free(p, 1);
}

void asg_part_free(part *p) { asg_free(p, 0); }

g16_err asg_key_load(g16_engine *e, ekey *k, int *wait, g16_status *st) {
    /* Decoded points take as many bytes as their encoding (96 per G1, 192
     * per G2 affine point): the file's size is the key's. */
    uint64_t est = file_bytes(k->path) + 4096;
    if (!budget_make_room(e, est, k)) {
        *wait = 1;
        return G16_OK;
    }
    budget_take(e, est);
    k->bytes = est;
    k->loading = 1;
    pthread_mutex_unlock(&e->lock);
    g16_params_key *pk = NULL;
    g16_err err = g16_params_key_load_st(e->ctx, &pk, k->path, k->flags & G16_KEY_CHECK_SUBGROUP ? 1 : -1, st);
    pthread_mutex_lock(&e->lock);
    k->loading = 0;
    if (err) {
        budget_give(e, k->bytes);
        k->bytes = 0;
    } else {
        k->pkey = pk;
        k->work_bytes = 0;
        k->wit_bytes = 0;
        k->loads++;
        e->c_key_loads++;
        k->last_use = ++e->tick;
    }
    pthread_cond_broadcast(&e->cv_synth);
    return err;
}

static void who_of(char *who, size_t cap, const part *p) {
    snprintf(who, cap, "assignment %u", p->idx);
}

/* Called with the lock held, p popped from the pending heap, its key
 * resident and `bytes` (asg_part_bytes) known to fit; returns with the
 * lock held and p in the ready heap or finished. me: the synthesis
 * thread (timeline events). */
void asg_synth(g16_engine *e, part *p, uint64_t bytes, int me) {
    job *j = p->job;
    ekey *k = j->key;
    k->active++;
    k->last_use = ++e->tick;
    budget_take(e, bytes);
    p->rsv = bytes;
    p->state = P_RUNNING;
    j->n_started++;
    p->stats.queue_ms = now_ms() - p->t_queued;
    hist_add(&e->h[ST_QUEUE], p->stats.queue_ms);
    e->n_synthesizing++;
    pthread_mutex_unlock(&e->lock);

    engine_tl(e, "synthesis", 'B', p, "synth", me);
    double t0 = now_ms();
    g16_status st = {0};
    g16_err err = G16_OK;
    const g16_assignment *as = NULL;
    char who[64];
    who_of(who, sizeof who, p);
    if (p->path) {
        err = g16_assignment_read(&p->afile, p->path, &st);
        as = &p->afile.a;
    } else if (p->data) {
        err = g16_assignment_read_mem(&p->afile, who, p->data, p->len, &st);
        as = &p->afile.a;
    } else {
        as = &p->basg;
    }
    part_wipe_input(p, g16_ctx_threads(e->ctx)); /* the copy of the bytes is read */
    if (!err)
        err = g16_params_check_partition(k->pkey, as, who, &st);
    if (!err) {
        /* The public inputs after the constant one (public: not wiped). */
        p->pub.curve = G16_CURVE_BLS12_381;
        p->pub.n = as->inp_assignment_size - 1;
        if (p->pub.n && !(p->pub.bls381 = malloc(p->pub.n * sizeof *p->pub.bls381)))
            err = g16_fail(&st, G16_ERR_NOMEM, "%s: out of memory", who);
        else if (p->pub.n)
            memcpy(p->pub.bls381, as->inp_assignment + 1, p->pub.n * sizeof *p->pub.bls381);
        if (!err)
            err = g16_public_json_str(&p->pub_json, &p->pub, 0, p->pub.n, &st);
    }
    p->stats.synth_ms = now_ms() - t0;
    engine_tl(e, "synthesis", 'E', p, "synth", me);
    engine_span_add(e->ring, ESPAN_SYNTH, ELANE_SYNTH, me, -1, p->job->id, p->idx, t0, t0 + p->stats.synth_ms);

    pthread_mutex_lock(&e->lock);
    part_free_input(p);
    e->n_synthesizing--;
    hist_add(&e->h[ST_SYNTH], p->stats.synth_ms);
    if (err) {
        part_finish(e, p, P_FAILED, err, st.msg, 1);
        return;
    }
    if (j->cancelled) {
        part_finish(e, p, P_CANCELLED, j->cancel_err, "cancelled after reading the assignment", 1);
        return;
    }
    p->asg = as;
    p->t_ready = now_ms();
    if (!heap_push(&e->ready, p)) {
        part_finish(e, p, P_FAILED, G16_ERR_NOMEM, "engine: out of memory queueing a partition", 1);
        return;
    }
    pthread_cond_signal(&e->cv_ready);
}

/* The device worker's stage, without the lock: the MSM sums into p->pm,
 * then the assignment's copy wiped and freed (the caller gives p->rsv
 * back). */
g16_err asg_heavy(g16_engine *e, part *p, int worker, engine_heavy_info *hi, g16_status *st) {
    char who[64];
    who_of(who, sizeof who, p);
    g16_err err = G16_OK;
    if (!(p->pm = calloc(1, sizeof *p->pm)))
        err = g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", who);
    else if (e->be.params_heavy)
        err = e->be.params_heavy(e->be.self, e->wstate[worker], e->ctx, p->pm, p->job->key->pkey, p->asg, who, hi,
                                 st);
    else
        err = g16_params_heavy_cpu(e->ctx, p->pm, p->job->key->pkey, p->asg, who, st);
    /* A file truncated or rewritten under its mapping read as zeros: an IO
     * error naming it, not sums of other values (in-memory sources pass). */
    if (!err && p->afile.map.used)
        err = g16_assignment_file_intact(&p->afile, st);
    g16_assignment_file_free(&p->afile); /* wipes the values */
    p->asg = NULL;
    return err;
}

/* The finalize thread's stage, without the lock: r, s, the proof, its
 * check against the vk (verify), its encoding into p->pproof. */
g16_err asg_finish(g16_engine *e, part *p, int verify, double *verify_ms, g16_status *st) {
    (void)e;
    char who[64];
    who_of(who, sizeof who, p);
    uint8_t *proof = malloc(G16_PARAMS_PROOF_SIZE);
    if (!proof)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", who);
    g16_err err = g16_params_finish(proof, p->job->key->pkey, p->pm, p->pub.bls381, p->pub.n, verify, verify_ms,
                                    who, st);
    if (err) {
        free(proof);
        return err;
    }
    p->pproof = proof;
    return G16_OK;
}

g16_err g16_engine_submit_assignments(g16_engine *e, uint64_t *job_id, uint64_t key_id, const g16_engine_assignment *a,
                                      size_t n, g16_priority prio, double timeout_ms) {
    if (!e || !job_id || !a || n == 0 || n > UINT32_MAX || prio < G16_PRIORITY_LOW || prio > G16_PRIORITY_CRITICAL)
        return g16_ctx_fail(e ? e->ctx : NULL, G16_ERR_INVALID_ARG, "g16_engine_submit_assignments: bad argument");
    for (size_t i = 0; i < n; i++)
        if ((a[i].path != NULL) + (a[i].data != NULL) + (a[i].assignment != NULL) != 1)
            return g16_ctx_fail(e->ctx, G16_ERR_INVALID_ARG,
                                "g16_engine_submit_assignments: partition %zu needs exactly one of path, data, "
                                "assignment",
                                i);
    job *j = job_new(n);
    int ok = j != NULL;
    part *ps = j ? j->parts : NULL;
    for (size_t i = 0; ok && i < n; i++) {
        ps[i].is_asg = 1;
        if (a[i].path)
            ok = (ps[i].path = strdup(a[i].path)) != NULL;
        else if (a[i].assignment) {
            ps[i].basg = *a[i].assignment;
            ps[i].has_basg = 1;
        } else if ((ps[i].data = malloc(a[i].len ? a[i].len : 1)) != NULL) {
            memcpy(ps[i].data, a[i].data, a[i].len);
            ps[i].len = a[i].len;
        } else
            ok = 0;
    }
    return job_submit(e, j, ok, prio, key_id, 1, timeout_ms, job_id, "g16_engine_submit_assignments");
}

g16_err g16_engine_params_result(g16_engine *e, uint8_t proof[192], char **public_json, g16_partition_stats *stats,
                                 uint64_t job_id, uint32_t idx) {
    if (!e || !proof)
        return G16_ERR_INVALID_ARG;
    if (public_json)
        *public_json = NULL;
    g16_status st = {0};
    char *pj = NULL;
    pthread_mutex_lock(&e->lock);
    job *j = job_find(e, job_id);
    part *p = j && idx < j->n ? &j->parts[idx] : NULL;
    if (!p)
        g16_fail(&st, G16_ERR_INVALID_ARG, "engine: no job %llu partition %u", (unsigned long long)job_id, idx);
    else if (!p->is_asg)
        g16_fail(&st, G16_ERR_INVALID_ARG, "engine: job %llu is a witness job (g16_engine_partition_result)",
                 (unsigned long long)job_id);
    else if (p->state == P_QUEUED || p->state == P_RUNNING)
        g16_fail(&st, G16_ERR_INVALID_ARG, "engine: job %llu partition %u is not finished",
                 (unsigned long long)job_id, idx);
    else if (p->state != P_PROVED)
        g16_fail(&st, p->err ? p->err : G16_ERR_CANCELLED, "partition %u: %s", idx, p->msg);
    else {
        memcpy(proof, p->pproof, G16_PARAMS_PROOF_SIZE);
        if (public_json && !(pj = strdup(p->pub_json ? p->pub_json : "[]")))
            g16_fail(&st, G16_ERR_NOMEM, "engine: out of memory");
    }
    if (p && stats)
        *stats = p->stats;
    pthread_mutex_unlock(&e->lock);
    if (st.code)
        return g16_ctx_report(e->ctx, &st);
    if (public_json)
        *public_json = pj;
    return G16_OK;
}

/* g16_engine_partition_result's texts for a proved assignment partition
 * (lock held): {"format":"bellperson","proof":"<hex>"} and the public.json. */
g16_err asg_result_json(const part *p, char **proof_json, char **public_json, g16_status *st) {
    static const char hx[] = "0123456789abcdef";
    if (proof_json) {
        char *s = malloc(64 + 2 * G16_PARAMS_PROOF_SIZE);
        if (!s)
            return g16_fail(st, G16_ERR_NOMEM, "engine: out of memory");
        int o = sprintf(s, "{\"format\":\"bellperson\",\"proof\":\"");
        for (unsigned i = 0; i < G16_PARAMS_PROOF_SIZE; i++) {
            s[o++] = hx[p->pproof[i] >> 4];
            s[o++] = hx[p->pproof[i] & 15];
        }
        strcpy(s + o, "\"}");
        *proof_json = s;
    }
    if (public_json && !(*public_json = strdup(p->pub_json ? p->pub_json : "[]"))) {
        if (proof_json) {
            free(*proof_json);
            *proof_json = NULL;
        }
        return g16_fail(st, G16_ERR_NOMEM, "engine: out of memory");
    }
    return G16_OK;
}
