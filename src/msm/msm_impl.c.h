/* Template: Pippenger MSM for one group (see msm.h for the contract).
 * Included by msm.c with G (group prefix), E (coordinate field), M_BITS
 * (bit length of the group order r) and MN_BATCH_E (1 when E is a prime
 * field with <E>_mul_batch, else 0) defined.
 * Variable time in the scalars and points: bases and the MSM's scalar vector
 * are not secret in the Groth16 prover's model (see msm.h). */

#define GN(name) G16_CAT(G, _##name)
#define MN(name) G16_CAT(G16_CAT(msm_, G), _##name)
#define EN(name) G16_CAT(E, _##name)
#define GA GN(affine)
#define GX GN(xyzz)
#define GJ GN(jac)

#define MN_BLOCK 64 /* digits computed (and buckets prefetched) ahead */

typedef struct MN(job) {
    const GA *bases;
    const uint32_t *idx; /* scalar i pairs with bases[idx[i]]; NULL: bases[i] */
    const g16_scalar *sc;
    const uint8_t *select; /* sum mode: bitmap over i, NULL = all */
    size_t n;
    int split;
    /* pass 1: chunks */
    size_t chunk, nchunks;
    GX *chunk_sum;
    size_t *chunk_big;
    /* pass 2: Pippenger */
    msm_plan pl;
    size_t nb; /* buckets per worker, 2^(c-1) */
    int affine; /* batch-affine accumulation (c >= MSM_AFFINE_MIN_C) */
    uint8_t *wbase; /* worker t's region: wbase + t * wbytes */
    size_t wbytes;
    GX *res; /* per job */
    atomic_size_t next;
    /* progress (NULL: none): the stage moves from pbase to pbase + punits
     * as jobs finish (jobs_done / pl.jobs), reported on its owner thread */
    g16_progress *prog;
    uint64_t pbase, punits;
    atomic_size_t jobs_done;
} MN(job);

static inline const GA *MN(base_)(const MN(job) *jb, size_t i) {
    return &jb->bases[jb->idx ? jb->idx[i] : i];
}

/* Pass 1 over a chunk: counts the Pippenger scalars and adds up the bases of
 * the scalars equal to 1 (split mode) or of the selected bases (sum mode). */
static void MN(pre_task)(void *arg, size_t t) {
    MN(job) *jb = arg;
    size_t i0 = t * jb->chunk, i1 = i0 + jb->chunk;
    if (i1 > jb->n)
        i1 = jb->n;
    GX acc;
    GN(xyzz_set_inf)(&acc);
    size_t big = 0;
    for (size_t i = i0; i < i1; i++) {
        if (!jb->sc) {
            if (!jb->select || msm_bit(jb->select, i))
                GN(xyzz_add_affine_vartime)(&acc, &acc, MN(base_)(jb, i));
            continue;
        }
        const g16_scalar *k = &jb->sc[i];
        if (k->l[3] >> (M_BITS - 192)) { /* >= 2^bits(r): the digits would lose it */
            big = SIZE_MAX;
            break;
        }
        if (msm_is_zero(k))
            continue;
        if (jb->split && msm_is_one(k))
            GN(xyzz_add_affine_vartime)(&acc, &acc, MN(base_)(jb, i));
        else
            big++;
    }
    jb->chunk_sum[t] = acc;
    jb->chunk_big[t] = big;
}

/* Adds +-P for the scalars [i0, i1) of window w into the buckets B. */
static void MN(accumulate)(const MN(job) *jb, GX *B, unsigned w, size_t i0, size_t i1) {
    unsigned c = jb->pl.c, lo = w * c;
    int32_t dg[MN_BLOCK];
    for (size_t i = i0; i < i1; i += MN_BLOCK) {
        size_t e = i + MN_BLOCK < i1 ? i + MN_BLOCK : i1;
        for (size_t j = i; j < e; j++) {
            const g16_scalar *k = &jb->sc[j];
            int32_t d = 0;
            if (!(jb->split ? (k->l[1] | k->l[2] | k->l[3]) == 0 && k->l[0] <= 1 : msm_is_zero(k)))
                d = msm_booth(k, lo, c);
            /* signed digit in [-2^(c-1), 2^(c-1)]: bucket |d| - 1 < nb */
            G16_VERIFY_CHECK((uint32_t)(d > 0 ? d : -d) <= jb->nb);
            dg[j - i] = d;
            if (d)
                __builtin_prefetch(&B[(d > 0 ? d : -d) - 1], 1);
        }
        for (size_t j = i; j < e; j++) {
            int32_t d = dg[j - i];
            if (!d)
                continue;
            const GA *p = MN(base_)(jb, j);
            if (d > 0) {
                GN(xyzz_add_affine_vartime)(&B[d - 1], &B[d - 1], p);
            } else {
                GA q;
                q.x = p->x;
                EN(neg)(&q.y, &p->y); /* -(0, 0) is still (0, 0) */
                GN(xyzz_add_affine_vartime)(&B[-d - 1], &B[-d - 1], &q);
            }
        }
    }
}

/* ---- batch-affine accumulation ------------------------------------------------
 * Buckets are affine points; additions into distinct buckets are queued and
 * done together with one inversion (Montgomery's trick: 3M per element), so an
 * addition costs about 3M + 2M + 1S plus 1/MN_PCAP of an inversion, against
 * 8M + 2S for the XYZZ mixed addition. A point whose bucket already has an
 * addition queued waits in a deferred list until the next flush. Used for
 * c >= MSM_AFFINE_MIN_C, where the buckets are many and collisions rare. */
#define MN_PCAP MSM_BATCH_CAP /* most additions queued at once (nb/4 if smaller) */
#define MN_QCAP 1024
#define MN_FLUSH_AHEAD 8 /* buckets prefetched ahead in a flush's back pass */

typedef struct MN(ws) {
    GA *bk;      /* bucket points */
    uint8_t *st; /* bucket state: bit 0 non-empty, bit 1 addition queued */
    uint32_t *pb; /* queued additions: bucket, point, denominator, prefix */
    GA *pq;
    E *den, *pre;
#if MN_BATCH_E
    E *tmp; /* flush_batch_'s third array */
#endif
    uint8_t *pdbl;
    size_t np, pcap;
    uint32_t *qb[2]; /* deferred points (list 0 active) */
    GA *qq[2];
    size_t nq;
    int draining;
    GX *small; /* XYZZ buckets for the top windows (few digits, see worker) */
} MN(ws);

#define MN_SMALL_LOG (MSM_AFFINE_MIN_C - 1) /* top windows with <= this many bits */

static size_t MN(ws_bytes_)(size_t nb) {
    return msm_align(nb * sizeof(GA)) + msm_align(nb) + msm_align(MN_PCAP * sizeof(uint32_t)) +
           msm_align(MN_PCAP * sizeof(GA)) + 2 * msm_align(MN_PCAP * sizeof(E)) +
           msm_align(MN_PCAP) + 2 * msm_align(MN_QCAP * sizeof(uint32_t)) +
           2 * msm_align(MN_QCAP * sizeof(GA)) +
           msm_align(((size_t)1 << MN_SMALL_LOG) * sizeof(GX)) + MN_BATCH_E * msm_align(MN_PCAP * sizeof(E));
}

static void MN(ws_init_)(MN(ws) *s, uint8_t *p, size_t nb) {
    memset(s, 0, sizeof *s);
    s->bk = (GA *)p, p += msm_align(nb * sizeof(GA));
    s->st = p, p += msm_align(nb);
    s->pb = (uint32_t *)p, p += msm_align(MN_PCAP * sizeof(uint32_t));
    s->pq = (GA *)p, p += msm_align(MN_PCAP * sizeof(GA));
    s->den = (E *)p, p += msm_align(MN_PCAP * sizeof(E));
    s->pre = (E *)p, p += msm_align(MN_PCAP * sizeof(E));
    s->pdbl = p, p += msm_align(MN_PCAP);
    for (int i = 0; i < 2; i++) {
        s->qb[i] = (uint32_t *)p, p += msm_align(MN_QCAP * sizeof(uint32_t));
        s->qq[i] = (GA *)p, p += msm_align(MN_QCAP * sizeof(GA));
    }
    s->small = (GX *)p;
#if MN_BATCH_E
    s->tmp = (E *)(p + msm_align(((size_t)1 << MN_SMALL_LOG) * sizeof(GX)));
#endif
    for (size_t b = 0; b < ((size_t)1 << MN_SMALL_LOG); b++)
        GN(xyzz_set_inf)(&s->small[b]);
    memset(s->st, 0, nb);
    s->pcap = nb / 4 < MN_PCAP ? (nb / 4 ? nb / 4 : 1) : MN_PCAP;
}

#if MN_BATCH_E
/* flush_ with the products that do not lie on the two Montgomery-trick
 * chains done as batches (<E>_mul_batch: the AVX-512 IFMA kernel), in
 * passes over the queue; used when g16_field_ifma_active(). The two chains
 * (prefix products forward, the running inverse backward) stay scalar. No
 * bucket occurs twice in a queue (schedule_ defers the second addition), so
 * the passes may visit the buckets in any order. Arrays: pre[i] = prod of
 * den[0..i), then 1/den[i]; tmp[i] = 1/prod den[0..i], then lambda^2, then
 * x1 - x3 and lambda (x1 - x3); den[i] becomes the slope's numerator, then
 * lambda; pq[i].x becomes x3. */
static void MN(flush_batch_)(MN(ws) *s) {
    size_t n = s->np;
    E acc, t;
    EN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        s->pre[i] = acc;
        EN(mul)(&acc, &acc, &s->den[i]);
    }
    G16_CAT(msm_inv_, E)(&acc, &acc);
    for (size_t i = n; i-- > 0;) { /* tmp[i] = 1 / prod den[0..i] */
        s->tmp[i] = acc;
        EN(mul)(&acc, &acc, &s->den[i]);
    }
    EN(mul_batch)(s->pre, s->pre, s->tmp, n); /* pre[i] = 1 / den[i] */
    for (size_t i = 0; i < n; i++) {
        if (i + MN_FLUSH_AHEAD < n)
            __builtin_prefetch(&s->bk[s->pb[i + MN_FLUSH_AHEAD]], 1);
        const GA *B = &s->bk[s->pb[i]];
        if (s->pdbl[i]) { /* lambda = 3 x^2 / 2y */
            EN(sqr)(&t, &B->x);
            EN(dbl)(&s->den[i], &t);
            EN(add)(&s->den[i], &s->den[i], &t);
        } else { /* lambda = (y2 - y1) / (x2 - x1) */
            EN(sub)(&s->den[i], &s->pq[i].y, &B->y);
        }
    }
    EN(mul_batch)(s->den, s->den, s->pre, n); /* den[i] = lambda */
    EN(mul_batch)(s->tmp, s->den, s->den, n); /* tmp[i] = lambda^2 */
    for (size_t i = 0; i < n; i++) { /* x3 = lambda^2 - x1 - x2 into pq[i].x, tmp[i] = x1 - x3 */
        const GA *B = &s->bk[s->pb[i]];
        EN(sub)(&t, &s->tmp[i], &B->x);
        EN(sub)(&s->pq[i].x, &t, &s->pq[i].x);
        EN(sub)(&s->tmp[i], &B->x, &s->pq[i].x);
    }
    EN(mul_batch)(s->tmp, s->den, s->tmp, n); /* lambda (x1 - x3) */
    for (size_t i = 0; i < n; i++) { /* y3 = lambda (x1 - x3) - y1 */
        GA *B = &s->bk[s->pb[i]];
        EN(sub)(&B->y, &s->tmp[i], &B->y);
        B->x = s->pq[i].x;
        s->st[s->pb[i]] = 1;
    }
    s->np = 0;
}
#endif

/* Performs the queued additions: one inversion for all denominators. */
static void MN(flush_)(MN(ws) *s) {
    size_t n = s->np;
    if (!n)
        return;
#if MN_BATCH_E
    if (g16_field_ifma_active()) {
        MN(flush_batch_)(s);
        return;
    }
#endif
    E acc, inv, lam, t, x3;
    EN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        s->pre[i] = acc;
        EN(mul)(&acc, &acc, &s->den[i]);
    }
    G16_CAT(msm_inv_, E)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (i >= MN_FLUSH_AHEAD) /* the bucket a few entries on (it may have left L1) */
            __builtin_prefetch(&s->bk[s->pb[i - MN_FLUSH_AHEAD]], 1);
        EN(mul)(&inv, &acc, &s->pre[i]); /* 1 / den[i] */
        EN(mul)(&acc, &acc, &s->den[i]);
        GA *B = &s->bk[s->pb[i]];
        const GA *q = &s->pq[i];
        if (s->pdbl[i]) { /* lambda = 3 x^2 / 2y */
            EN(sqr)(&t, &B->x);
            EN(dbl)(&lam, &t);
            EN(add)(&t, &lam, &t);
        } else { /* lambda = (y2 - y1) / (x2 - x1) */
            EN(sub)(&t, &q->y, &B->y);
        }
        EN(mul)(&lam, &t, &inv);
        EN(sqr)(&x3, &lam);
        EN(sub)(&x3, &x3, &B->x);
        EN(sub)(&x3, &x3, &q->x);
        EN(sub)(&t, &B->x, &x3);
        EN(mul)(&t, &lam, &t);
        EN(sub)(&B->y, &t, &B->y);
        B->x = x3;
        s->st[s->pb[i]] = 1;
    }
    s->np = 0;
}

static void MN(requeue_)(MN(ws) *s);

/* p is the point at infinity (0, 0): all words zero. Inline and early-out
 * (a base's first word is almost never zero), unlike the curve layer's
 * constant-time affine_is_inf. */
static inline int MN(inf_vartime_)(const GA *p) {
    uint64_t w[sizeof(GA) / 8];
    memcpy(w, p, sizeof w);
    for (size_t i = 0; i < sizeof w / 8; i++)
        if (w[i])
            return 0;
    return 1;
}

/* Bucket b += q (q not infinity). */
static void MN(schedule_)(MN(ws) *s, const GA *q, uint32_t b) {
    uint8_t st = s->st[b];
    if (!(st & 1)) {
        s->bk[b] = *q;
        s->st[b] = 1;
        return;
    }
    if (st & 2) { /* an addition into b is queued: defer */
        G16_VERIFY_CHECK(s->nq < MN_QCAP); /* requeue_ defers at most nq - 1 */
        s->qb[0][s->nq] = b;
        s->qq[0][s->nq] = *q;
        if (++s->nq == MN_QCAP && !s->draining) { /* rare: flush a partial batch */
            MN(flush_)(s);
            MN(requeue_)(s);
        }
        return;
    }
    const GA *B = &s->bk[b];
    size_t i = s->np;
    G16_VERIFY_CHECK(i < s->pcap);
    if (EN(eq)(&B->x, &q->x)) {
        if (!EN(eq)(&B->y, &q->y) || EN(is_zero)(&q->y)) { /* B + (-B), or 2B = O */
            s->st[b] = 0;
            return;
        }
        EN(dbl)(&s->den[i], &q->y);
        s->pdbl[i] = 1;
    } else {
        EN(sub)(&s->den[i], &q->x, &B->x);
        s->pdbl[i] = 0;
    }
    s->pb[i] = b;
    s->pq[i] = *q;
    s->st[b] = 3;
    if (++s->np == s->pcap) {
        MN(flush_)(s);
        if (!s->draining) /* the deferred points go first into the next batch */
            MN(requeue_)(s);
    }
}

/* Reschedules the deferred points once (after a flush freed their buckets);
 * those that collide again stay deferred: at most all but one of them, so
 * the list cannot overflow while it is walked. */
static void MN(requeue_)(MN(ws) *s) {
    s->draining = 1;
    size_t n = s->nq;
    uint32_t *tb = s->qb[0];
    GA *tq = s->qq[0];
    s->qb[0] = s->qb[1], s->qq[0] = s->qq[1];
    s->qb[1] = tb, s->qq[1] = tq;
    s->nq = 0;
    for (size_t j = 0; j < n; j++)
        MN(schedule_)(s, &tq[j], tb[j]);
    s->draining = 0;
}

/* End of a job: until nothing is queued or deferred. Each round schedules
 * at least the first deferred point of every bucket, so it terminates. */
static void MN(drain_)(MN(ws) *s) {
    while (s->np || s->nq) {
        MN(flush_)(s);
        MN(requeue_)(s);
    }
}

static void MN(accumulate_affine)(const MN(job) *jb, MN(ws) *s, unsigned w, size_t i0,
                                  size_t i1) {
    unsigned c = jb->pl.c, lo = w * c;
    int32_t dg[MN_BLOCK];
    for (size_t i = i0; i < i1; i += MN_BLOCK) {
        size_t e = i + MN_BLOCK < i1 ? i + MN_BLOCK : i1;
        for (size_t j = i; j < e; j++) {
            const g16_scalar *k = &jb->sc[j];
            int32_t d = 0;
            if (!(jb->split ? (k->l[1] | k->l[2] | k->l[3]) == 0 && k->l[0] <= 1 : msm_is_zero(k)))
                d = msm_booth(k, lo, c);
            G16_VERIFY_CHECK((uint32_t)(d > 0 ? d : -d) <= jb->nb);
            dg[j - i] = d;
            if (d) {
                __builtin_prefetch(&s->bk[(d > 0 ? d : -d) - 1], 1);
                __builtin_prefetch(&s->st[(d > 0 ? d : -d) - 1], 1);
            }
        }
        for (size_t j = i; j < e; j++) {
            int32_t d = dg[j - i];
            if (!d)
                continue;
            const GA *p = MN(base_)(jb, j);
            if (MN(inf_vartime_)(p))
                continue;
            if (d > 0) {
                MN(schedule_)(s, p, (uint32_t)(d - 1));
            } else {
                GA q;
                q.x = p->x;
                EN(neg)(&q.y, &p->y);
                MN(schedule_)(s, &q, (uint32_t)(-d - 1));
            }
        }
    }
    MN(drain_)(s);
}

/* Pass 2 worker t: pulls (window, range) jobs; its buckets stay all-infinity
 * between jobs (the reduction resets them). */
static void MN(worker)(void *arg, size_t t) {
    MN(job) *jb = arg;
    uint8_t *region = jb->wbase + t * jb->wbytes;
    GX *B = (GX *)region;
    MN(ws) ws;
    if (jb->affine)
        MN(ws_init_)(&ws, region, jb->nb);
    else
        for (size_t b = 0; b < jb->nb; b++)
            GN(xyzz_set_inf)(&B[b]);
    for (;;) {
        size_t job = atomic_fetch_add(&jb->next, 1);
        if (job >= jb->pl.jobs)
            break;
        unsigned w = (unsigned)(job / jb->pl.P), p = (unsigned)(job % jb->pl.P);
        size_t i0 = jb->n * p / jb->pl.P, i1 = jb->n * (p + 1) / jb->pl.P;
        /* running sums: run = B[nb-1] + ... + B[j], acc = sum_j (j+1) B[j];
         * each reduction leaves the buckets empty for the next job */
        GX run, acc;
        GN(xyzz_set_inf)(&run);
        GN(xyzz_set_inf)(&acc);
        /* Top window: only bits [wc, M_BITS) are set, so digits lie in
         * [0, 2^eb], eb = M_BITS - wc. With few buckets, batch-affine additions
         * would mostly collide: use XYZZ buckets there. */
        unsigned lo = w * jb->pl.c;
        unsigned eb = M_BITS > lo ? M_BITS - lo : 0;
        if (jb->affine && eb < MN_SMALL_LOG) {
            size_t ns = (size_t)1 << eb; /* digits 1..2^eb -> buckets 0..2^eb-1 */
            MN(accumulate)(jb, ws.small, w, i0, i1);
            for (size_t j = ns; j-- > 0;) {
                GN(xyzz_add_vartime)(&run, &run, &ws.small[j]);
                GN(xyzz_set_inf)(&ws.small[j]);
                GN(xyzz_add_vartime)(&acc, &acc, &run);
            }
        } else if (jb->affine) {
            ws.pcap = (size_t)1 << (eb < jb->pl.c ? eb : jb->pl.c - 1) >> 2;
            if (ws.pcap > MN_PCAP)
                ws.pcap = MN_PCAP;
            if (ws.pcap < 1)
                ws.pcap = 1;
            MN(accumulate_affine)(jb, &ws, w, i0, i1);
            for (size_t j = jb->nb; j-- > 0;) {
                if (ws.st[j] & 1)
                    GN(xyzz_add_affine_vartime)(&run, &run, &ws.bk[j]);
                ws.st[j] = 0;
                GN(xyzz_add_vartime)(&acc, &acc, &run);
            }
        } else {
            MN(accumulate)(jb, B, w, i0, i1);
            for (size_t j = jb->nb; j-- > 0;) {
                GN(xyzz_add_vartime)(&run, &run, &B[j]);
                GN(xyzz_set_inf)(&B[j]);
                GN(xyzz_add_vartime)(&acc, &acc, &run);
            }
        }
        jb->res[job] = acc;
        if (jb->prog) {
            size_t d = atomic_fetch_add(&jb->jobs_done, 1) + 1;
            g16_progress_at(jb->prog, jb->pbase + jb->punits * d / jb->pl.jobs);
        }
    }
}

/* Bytes of one worker's region for window c: XYZZ buckets, or the
 * batch-affine state, whichever is larger. */
static size_t MN(wbytes_)(unsigned c) {
    size_t nb = (size_t)1 << (c - 1), x = msm_align(nb * sizeof(GX));
    size_t a = MN(ws_bytes_)(nb);
    return x > a ? x : a;
}

/* Scratch layout: chunk sums | chunk counts | buckets | job results | idx. */
static size_t MN(need_)(int threads, size_t n, size_t nidx, unsigned cmax) {
    size_t nch = msm_nchunks(n, threads);
    size_t T = (size_t)(threads < 1 ? 1 : threads);
    return msm_align(nch * sizeof(GX)) + msm_align(nch * sizeof(size_t)) +
           T * MN(wbytes_)(cmax) +
           msm_align((M_BITS + 1 + 4 * T) * sizeof(GX)) + msm_align(nidx * sizeof(uint32_t));
}

size_t MN(scratch_size)(const g16_ctx *ctx, size_t n) {
    int T = ctx ? g16_pool_threads(ctx->pool) : 1;
    return MN(need_)(T, n, n, msm_max_auto_window(n, T, M_BITS, sizeof(GA)));
}

/* The MSM proper. scratch is at least need_(threads, n, 0, c) bytes with
 * c = c_force or the automatic bound; idx (if any) lives elsewhere. */
static g16_err MN(run_)(g16_ctx *ctx, GJ *out, const GA *bases, const uint32_t *idx,
                        const g16_scalar *sc, const uint8_t *select, size_t n, uint8_t *scratch,
                        unsigned c_force, int flags, g16_progress *prog, uint64_t pbase, uint64_t punits) {
    int split = flags & MSM_SPLIT;
    int T = g16_pool_threads(ctx->pool);
    MN(job) jb = {.bases = bases, .idx = idx, .sc = sc, .select = select, .n = n, .split = split,
                  .prog = prog, .pbase = pbase, .punits = punits};
    if (n == 0) {
        GN(jac_set_inf)(out);
        return G16_OK;
    }
    jb.nchunks = msm_nchunks(n, T);
    jb.chunk = (n + jb.nchunks - 1) / jb.nchunks;
    jb.nchunks = (n + jb.chunk - 1) / jb.chunk;
    uint8_t *p = scratch;
    jb.chunk_sum = (GX *)p;
    p += msm_align(msm_nchunks(n, T) * sizeof(GX));
    jb.chunk_big = (size_t *)p;
    p += msm_align(msm_nchunks(n, T) * sizeof(size_t));
    g16_pool_run(ctx->pool, jb.nchunks, MN(pre_task), &jb);
    size_t m = 0;
    GX total;
    GN(xyzz_set_inf)(&total);
    for (size_t t = 0; t < jb.nchunks; t++) {
        if (jb.chunk_big[t] == SIZE_MAX)
            return g16_ctx_fail(ctx, G16_ERR_NOT_CANONICAL,
                                "msm: a scalar is not below 2^%d (scalars must be canonical, < r)",
                                M_BITS);
        m += jb.chunk_big[t];
        GN(xyzz_add_vartime)(&total, &total, &jb.chunk_sum[t]);
    }
    if (m > 0) {
        unsigned cmax = c_force ? c_force : msm_max_auto_window(n, T, M_BITS, sizeof(GA));
        /* bucket kind: the flags, else the context's msm.batch_affine */
        int mode = msm_affine_option(ctx);
        if (flags & MSM_NO_AFFINE)
            mode = 2;
        else if (flags & MSM_FORCE_AFFINE)
            mode = 1;
        msm_make_plan(&jb.pl, m, T, M_BITS, sizeof(GA), c_force, mode == 2);
        if (jb.pl.c > cmax) /* keep within the scratch sized for n */
            msm_make_plan(&jb.pl, m, T, M_BITS, sizeof(GA), cmax, mode == 2);
        jb.nb = (size_t)1 << (jb.pl.c - 1);
        jb.affine = mode == 1 || (mode == 0 && jb.pl.c >= MSM_AFFINE_MIN_C);
        jb.wbase = p;
        jb.wbytes = MN(wbytes_)(jb.pl.c);
        p += (size_t)T * MN(wbytes_)(cmax);
        jb.res = (GX *)p;
        atomic_init(&jb.next, 0);
        atomic_init(&jb.jobs_done, 0);
        g16_pool_run(ctx->pool, (size_t)jb.pl.workers, MN(worker), &jb);
        /* Horner over windows: sum_w 2^(wc) W_w */
        GX acc;
        GN(xyzz_set_inf)(&acc);
        for (unsigned w = jb.pl.nw; w-- > 0;) {
            if (w + 1 < jb.pl.nw)
                for (unsigned i = 0; i < jb.pl.c; i++)
                    GN(xyzz_dbl)(&acc, &acc);
            for (unsigned q = 0; q < jb.pl.P; q++)
                GN(xyzz_add_vartime)(&acc, &acc, &jb.res[(size_t)w * jb.pl.P + q]);
        }
        GN(xyzz_add_vartime)(&total, &total, &acc);
    }
    GN(xyzz_to_jac)(out, &total);
    g16_progress_at(prog, pbase + punits);
    return G16_OK;
}

static g16_err MN(scratch_)(g16_ctx *ctx, void **scratch, size_t scratch_len, size_t need,
                            void **owned) {
    *owned = NULL;
    if (*scratch) {
        if (scratch_len < need)
            return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG,
                                "msm: scratch of %zu bytes, %zu needed (msm_*_scratch_size)",
                                scratch_len, need);
        return G16_OK;
    }
    *owned = *scratch = malloc(need);
    if (!*owned)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "msm: cannot allocate %zu bytes of scratch", need);
    return G16_OK;
}

g16_err MN(tuned)(g16_ctx *ctx, GJ *out, const GA *bases, const g16_scalar *scalars, size_t n,
                  unsigned c, int flags) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!out || (n && (!bases || !scalars)) || c > MSM_MAX_WINDOW)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "msm: bad arguments");
    int T = g16_pool_threads(ctx->pool);
    void *scratch = NULL, *owned;
    g16_err err = MN(scratch_)(ctx, &scratch, 0,
                               MN(need_)(T, n, 0, c ? c : msm_max_auto_window(n, T, M_BITS, sizeof(GA))),
                               &owned);
    if (err)
        return err;
    err = MN(run_)(ctx, out, bases, NULL, scalars, NULL, n, scratch, c, flags, NULL, 0, 0);
    free(owned);
    return err;
}

g16_err G16_CAT(msm_, G)(g16_ctx *ctx, GJ *out, const GA *bases, const g16_scalar *scalars,
                         size_t n, void *scratch, size_t scratch_len) {
    return MN(progress)(ctx, out, bases, scalars, n, scratch, scratch_len, NULL, 0, 0);
}

g16_err MN(progress)(g16_ctx *ctx, GJ *out, const GA *bases, const g16_scalar *scalars, size_t n,
                     void *scratch, size_t scratch_len, g16_progress *prog, uint64_t pbase, uint64_t punits) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!out || (n && (!bases || !scalars)))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "msm: NULL argument");
    int T = g16_pool_threads(ctx->pool);
    void *owned;
    g16_err err = MN(scratch_)(ctx, &scratch, scratch_len,
                               MN(need_)(T, n, 0, msm_max_auto_window(n, T, M_BITS, sizeof(GA))), &owned);
    if (err)
        return err;
    err = MN(run_)(ctx, out, bases, NULL, scalars, NULL, n, scratch, 0, MSM_SPLIT, prog, pbase, punits);
    free(owned);
    return err;
}

g16_err MN(density)(g16_ctx *ctx, GJ *out, const GA *bases, size_t n_bases,
                    const uint8_t *density, const g16_scalar *scalars, size_t n_scalars,
                    void *scratch, size_t scratch_len) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!out || (n_bases && (!bases || !density)) || (n_scalars && !scalars))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "msm: NULL argument");
    if (n_bases >= ((size_t)1 << 32))
        return g16_ctx_fail(ctx, G16_ERR_UNSUPPORTED, "msm: density form needs < 2^32 bases");
    int T = g16_pool_threads(ctx->pool);
    void *owned;
    size_t need = MN(need_)(T, n_scalars, n_scalars, msm_max_auto_window(n_scalars, T, M_BITS, sizeof(GA)));
    g16_err err = MN(scratch_)(ctx, &scratch, scratch_len, need, &owned);
    if (err)
        return err;
    /* idx sits at the end of the scratch */
    uint32_t *idx = (uint32_t *)((uint8_t *)scratch + need - msm_align(n_scalars * sizeof(uint32_t)));
    size_t j = 0;
    for (size_t i = 0; i < n_bases; i++)
        if (msm_bit(density, i)) {
            if (j < n_scalars)
                idx[j] = (uint32_t)i;
            j++;
        }
    if (j != n_scalars) {
        free(owned);
        return g16_ctx_fail(ctx, G16_ERR_SIZE_MISMATCH,
                            "msm: density has %zu set bits for %zu scalars", j, n_scalars);
    }
    err = MN(run_)(ctx, out, bases, idx, scalars, NULL, n_scalars, scratch, 0, MSM_SPLIT, NULL, 0, 0);
    free(owned);
    return err;
}

g16_err MN(sum)(g16_ctx *ctx, GJ *out, const GA *bases, size_t n, const uint8_t *select) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!out || (n && !bases))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "msm: NULL argument");
    int T = g16_pool_threads(ctx->pool);
    size_t nch = msm_nchunks(n, T);
    void *scratch = malloc(msm_align(nch * sizeof(GX)) + msm_align(nch * sizeof(size_t)));
    if (!scratch)
        return g16_ctx_fail(ctx, G16_ERR_NOMEM, "msm: out of memory");
    g16_err err = MN(run_)(ctx, out, bases, NULL, NULL, select, n, scratch, 0, 0, NULL, 0, 0);
    free(scratch);
    return err;
}

#undef GN
#undef MN
#undef EN
#undef GA
#undef GX
#undef GJ
#undef MN_BLOCK
#undef MN_PCAP
#undef MN_SMALL_LOG
#undef MN_QCAP
#undef MN_FLUSH_AHEAD
