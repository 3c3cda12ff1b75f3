/* Template: the NTT over one scalar field (see ntt.h for the contract).
 * Included by ntt.c once per field with F (type prefix), F_UP (constant
 * prefix) and F_IDX (cache slot) defined. Transforms are not secret-dependent
 * in their control flow (sizes only). */

#define FN(name) G16_CAT(F, _##name)
#define NN(name) G16_CAT(G16_CAT(ntt_, F), _##name)
#define NC(name) G16_CAT(F_UP, _NTT_##name)

static const limb_t NN(roots_)[NC(S) + 1][4] = NC(ROOTS);
static const limb_t NN(roots_inv_)[NC(S) + 1][4] = NC(ROOTS_INV);
static const limb_t NN(inv2pow_)[NC(S) + 1][4] = NC(INV_2POW);

static inline void NN(load_)(F *r, const limb_t *l) {
    for (int i = 0; i < 4; i++)
        r->l[i] = l[i];
}

unsigned NN(max_log)(void) { return NC(S); }

int NN(root)(F *r, unsigned k) {
    if (k > NC(S))
        return 0;
    NN(load_)(r, NN(roots_)[k]);
    return 1;
}

/* ---- radix-2 kernels on a contiguous block of m = 2^j elements ------------
 * T[i] = w^i for i < m/2, w a primitive m-th root. */

/* Decimation in frequency (Gentleman-Sande): natural in, bit-reversed out.
 * Butterfly (x, y) -> (x + y, (x - y) * w_{2h}^i). */
static void NN(dif_block)(F *a, unsigned j, const F *T) {
    size_t m = (size_t)1 << j;
    for (size_t h = m >> 1, st = 1; h >= 1; h >>= 1, st <<= 1) {
        for (size_t s = 0; s < m; s += 2 * h) {
            F *x = a + s, *y = a + s + h;
            F u = x[0], v = y[0], t;
            FN(add)(&x[0], &u, &v);
            FN(sub)(&y[0], &u, &v);
            for (size_t i = 1; i < h; i++) {
                u = x[i];
                v = y[i];
                FN(add)(&x[i], &u, &v);
                FN(sub)(&t, &u, &v);
                FN(mul)(&y[i], &t, &T[i * st]);
            }
        }
    }
}

/* Decimation in time (Cooley-Tukey): bit-reversed in, natural out.
 * Butterfly (x, y) -> (x + y*w_{2h}^i, x - y*w_{2h}^i). */
static void NN(dit_block)(F *a, unsigned j, const F *T) {
    size_t m = (size_t)1 << j;
    for (size_t h = 1, st = m >> 1; h < m; h <<= 1, st >>= 1) {
        for (size_t s = 0; s < m; s += 2 * h) {
            F *x = a + s, *y = a + s + h;
            F u = x[0], v = y[0];
            FN(add)(&x[0], &u, &v);
            FN(sub)(&y[0], &u, &v);
            for (size_t i = 1; i < h; i++) {
                u = x[i];
                FN(mul)(&v, &y[i], &T[i * st]);
                FN(add)(&x[i], &u, &v);
                FN(sub)(&y[i], &u, &v);
            }
        }
    }
}

/* ---- the batched path: the same butterflies, products in batches ----------
 * Used while g16_field_ifma_active() (and not turned off on the context):
 * each stage's twiddle products go through <fr>_mul_batch (the AVX-512 IFMA
 * kernel, 8 products per vector, 24 in flight) instead of one <fr>_mul per
 * butterfly. Every product is the same exact Montgomery product a*b*R^-1
 * mod p, fully reduced, so the output is bit-identical to the scalar path.
 * The stage table S (ntt.c, "stg") holds stage h's twiddles w_(2h)^i
 * contiguously at S[h + i]. Stages of half-size h >= NN_BFLY_MIN run whole
 * butterflies in the kernel, one call per block (<fr>_bfly_dif_batch /
 * _dit_batch over x = a + s, y = a + s + h, w = S + h; the i = 0 product by
 * S[h] = 1 included). Smaller stages (h = 2, 4) are split in an add/sub pass
 * and a product pass, which the stage's independence allows: DIF (x, y) ->
 * (x + y, x - y) then y *= w; DIT y *= w then (x, y) -> (x + y, x - y); their
 * products with i >= 1 are gathered from consecutive blocks into batches of
 * NN_GATHER (stage_mul_). h = 1 has no product. */

#define NN_GATHER 24    /* the IFMA kernel's 3 interleaved groups of 8 */
#ifndef NN_BFLY_MIN
#define NN_BFLY_MIN 8 /* whole butterflies in the IFMA kernel from this half-size on */
#endif

typedef struct NN(gather) {
    F v[NN_GATHER], w[NN_GATHER];
    F *dst[NN_GATHER];
    size_t n;
} NN(gather);

static void NN(gather_flush_)(NN(gather) *g) {
    FN(mul_batch)(g->v, g->v, g->w, g->n);
    for (size_t i = 0; i < g->n; i++)
        *g->dst[i] = g->v[i];
    g->n = 0;
}

static inline void NN(gather_push_)(NN(gather) *g, F *y, const F *w) {
    g->v[g->n] = *y;
    g->w[g->n] = *w;
    g->dst[g->n] = y;
    if (++g->n == NN_GATHER)
        NN(gather_flush_)(g);
}

/* a[s + h + i] *= S[h + i] for every block s (step 2h) of a size-m array and
 * 1 <= i < h (i = 0 is a product by one). */
static void NN(stage_mul_)(F *a, size_t m, size_t h, const F *S) {
    if (h == 1)
        return;
    NN(gather) g;
    g.n = 0;
    for (size_t s = 0; s < m; s += 2 * h)
        for (size_t i = 1; i < h; i++)
            NN(gather_push_)(&g, &a[s + h + i], &S[h + i]);
    if (g.n)
        NN(gather_flush_)(&g);
}

static void NN(dif_block_b)(F *a, unsigned j, const F *S) {
    size_t m = (size_t)1 << j;
    for (size_t h = m >> 1; h >= 1; h >>= 1) {
        if (h >= NN_BFLY_MIN) {
            for (size_t s = 0; s < m; s += 2 * h)
                FN(bfly_dif_batch)(a + s, a + s + h, S + h, h);
            continue;
        }
        for (size_t s = 0; s < m; s += 2 * h) {
            F *x = a + s, *y = a + s + h;
            for (size_t i = 0; i < h; i++) {
                F u = x[i], v = y[i];
                FN(add)(&x[i], &u, &v);
                FN(sub)(&y[i], &u, &v);
            }
        }
        NN(stage_mul_)(a, m, h, S);
    }
}

static void NN(dit_block_b)(F *a, unsigned j, const F *S) {
    size_t m = (size_t)1 << j;
    for (size_t h = 1; h < m; h <<= 1) {
        if (h >= NN_BFLY_MIN) {
            for (size_t s = 0; s < m; s += 2 * h)
                FN(bfly_dit_batch)(a + s, a + s + h, S + h, h);
            continue;
        }
        NN(stage_mul_)(a, m, h, S);
        for (size_t s = 0; s < m; s += 2 * h) {
            F *x = a + s, *y = a + s + h;
            for (size_t i = 0; i < h; i++) {
                F u = x[i], v = y[i];
                FN(add)(&x[i], &u, &v);
                FN(sub)(&y[i], &u, &v);
            }
        }
    }
}

/* a[i] *= c for i < n, batched. */
static void NN(mul_const_b)(F *a, size_t n, const F *c) {
    F cc[NN_GATHER];
    for (size_t i = 0; i < NN_GATHER; i++)
        cc[i] = *c;
    for (size_t i = 0; i < n; i += NN_GATHER)
        FN(mul_batch)(a + i, a + i, cc, n - i < NN_GATHER ? n - i : NN_GATHER);
}

/* out[i] = c * g^i for i < n (c NULL: 1), batched: NN_GATHER chains in
 * steps of g^NN_GATHER. */
static void NN(powers_b)(F *out, size_t n, const F *c, const F *g) {
    F step[NN_GATHER];
    if (!n)
        return;
    if (c)
        out[0] = *c;
    else
        FN(set_one)(&out[0]);
    size_t n0 = n < NN_GATHER ? n : NN_GATHER;
    for (size_t i = 1; i < n0; i++)
        FN(mul)(&out[i], &out[i - 1], g);
    if (n0 == n)
        return;
    F gp = *g; /* g^NN_GATHER */
    for (size_t i = 1; i < NN_GATHER; i++)
        FN(mul)(&gp, &gp, g);
    for (size_t i = 0; i < NN_GATHER; i++)
        step[i] = gp;
    for (size_t i = NN_GATHER; i < n; i += NN_GATHER)
        FN(mul_batch)(out + i, out + i - NN_GATHER, step, n - i < NN_GATHER ? n - i : NN_GATHER);
}

/* ---- twiddle tables (cached in the context) -------------------------------- */

static F *NN(powers_)(const limb_t *base, size_t count) {
    F *t = malloc((count ? count : 1) * sizeof(F));
    if (!t)
        return NULL;
    F w;
    NN(load_)(&w, base);
    FN(set_one)(&t[0]);
    for (size_t i = 1; i < count; i++)
        FN(mul)(&t[i], &t[i - 1], &w);
    return t;
}

/* Fetches (building if needed) the tables of a size-2^k transform in
 * direction dir: sub1/sub2 for the column/row sizes k1/k2 (or sub1 for the
 * direct size), col for the four-step twiddle base; with batch set, stg1/stg2
 * (the stage layout of sub1/sub2) for the batched path. */
typedef struct NN(tabs) {
    const F *sub1, *sub2, *col, *full;
    const F *stg1, *stg2; /* NULL unless batch */
    int batch;            /* the batched products (ntt_batch_on) */
} NN(tabs);

static const F *NN(sub_locked_)(ntt_cache *c, int dir, unsigned j) {
    if (j == 0)
        return NULL;
    if (!c->sub[F_IDX][dir][j])
        c->sub[F_IDX][dir][j] =
            NN(powers_)(dir ? NN(roots_inv_)[j] : NN(roots_)[j], (size_t)1 << (j - 1));
    return c->sub[F_IDX][dir][j];
}

/* S[h + i] = T[i * 2^j / 2h] (T = the sub table) for h = 1 .. 2^(j-1), i < h. */
static const F *NN(stg_locked_)(ntt_cache *c, int dir, unsigned j, const F *T) {
    if (j == 0 || !T)
        return NULL;
    if (!c->stg[F_IDX][dir][j]) {
        size_t m = (size_t)1 << j;
        F *S = malloc(m * sizeof(F));
        if (S) {
            FN(set_one)(&S[0]);
            for (size_t h = 1, st = m >> 1; h < m; h <<= 1, st >>= 1)
                for (size_t i = 0; i < h; i++)
                    S[h + i] = T[i * st];
        }
        c->stg[F_IDX][dir][j] = S;
    }
    return c->stg[F_IDX][dir][j];
}

static g16_err NN(get_tabs)(g16_ctx *ctx, NN(tabs) *t, int dir, unsigned k, unsigned k1,
                            unsigned k2, int batch) {
    g16_err err = G16_OK;
    pthread_mutex_lock(&ctx->lock);
    ntt_cache *c = ntt_cache_get_locked(ctx);
    if (!c) {
        err = G16_ERR_NOMEM;
        goto out;
    }
    t->sub1 = NN(sub_locked_)(c, dir, k1);
    t->sub2 = NN(sub_locked_)(c, dir, k2);
    t->col = NULL;
    t->full = NULL;
    t->stg1 = t->stg2 = NULL;
    t->batch = batch;
    if ((k1 && !t->sub1) || (k2 && !t->sub2)) {
        err = G16_ERR_NOMEM;
        goto out;
    }
    if (batch) {
        t->stg1 = NN(stg_locked_)(c, dir, k1, t->sub1);
        t->stg2 = NN(stg_locked_)(c, dir, k2, t->sub2);
        if ((k1 && !t->stg1) || (k2 && !t->stg2)) {
            err = G16_ERR_NOMEM;
            goto out;
        }
    }
    if (k2) { /* four-step */
        if (!c->col[F_IDX][dir][k])
            c->col[F_IDX][dir][k] =
                NN(powers_)(dir ? NN(roots_inv_)[k] : NN(roots_)[k], (size_t)1 << k2);
        t->col = c->col[F_IDX][dir][k];
        if (!t->col) {
            err = G16_ERR_NOMEM;
            goto out;
        }
        if (k <= NTT_FULL_TW_MAX_LOG && !c->no_full) {
            if (!c->full[F_IDX][dir][k]) {
                size_t n1 = (size_t)1 << k1, n2 = (size_t)1 << k2;
                F *T = malloc(n1 * n2 * sizeof(F));
                if (T) {
                    for (size_t cc = 0; cc < n2; cc++) {
                        F cur;
                        if (dir)
                            NN(load_)(&cur, NN(inv2pow_)[k]);
                        else
                            FN(set_one)(&cur);
                        for (size_t i = 0; i < n1; i++) {
                            T[cc * n1 + ntt_bitrev32((uint32_t)i, k1)] = cur;
                            FN(mul)(&cur, &cur, &t->col[cc]);
                        }
                    }
                }
                c->full[F_IDX][dir][k] = T; /* NULL: fall back to per-column powers */
            }
            t->full = c->full[F_IDX][dir][k];
        }
    }
out:
    pthread_mutex_unlock(&ctx->lock);
    return err;
}

/* ---- the transform core ------------------------------------------------------ */

#define NN_COLS 8 /* columns gathered per batch: 8 * 32 B = 4 cache lines a row */

typedef struct NN(job) {
    F *a;
    unsigned k, k1, k2;
    int dit;
    const F *scale; /* n^-1 for the inverse direction, folded into the twiddles */
    NN(tabs) tb;
    F *scratch;       /* ntasks * task_elems elements */
    size_t task_elems; /* NN_COLS * n1, plus 2 n1 for the batched per-column twiddles */
    size_t per_task;  /* column batches per task */
    size_t nbatch;    /* total column batches */
    size_t rows_per_task;
} NN(job);

/* col[rev(i)] *= scale * (omega^c)^i for i < n1: the four-step twiddle for
 * column c (positions are bit-reversed because the column transform is). */
static void NN(twiddle_col)(const NN(job) *jb, F *col, size_t c) {
    size_t n1 = (size_t)1 << jb->k1;
    if (jb->tb.full) { /* cached matrix, scale included */
        const F *T = jb->tb.full + c * n1;
        if (c || jb->scale)
            for (size_t r = 0; r < n1; r++)
                FN(mul)(&col[r], &col[r], &T[r]);
        return;
    }
    if (c == 0) {
        if (jb->scale)
            for (size_t i = 0; i < n1; i++)
                FN(mul)(&col[i], &col[i], jb->scale);
        return;
    }
    F cur, t = jb->tb.col[c];
    if (jb->scale)
        cur = *jb->scale;
    else
        FN(set_one)(&cur);
    for (size_t i = 0; i < n1; i++) {
        F *x = &col[ntt_bitrev32((uint32_t)i, jb->k1)];
        FN(mul)(x, x, &cur);
        FN(mul)(&cur, &cur, &t);
    }
}

/* The same product, batched; tmp holds 2 n1 elements when there is no cached
 * matrix: the powers scale * (omega^c)^i in natural order, then at rev(i). */
static void NN(twiddle_col_b)(const NN(job) *jb, F *col, size_t c, F *tmp) {
    size_t n1 = (size_t)1 << jb->k1;
    if (jb->tb.full) {
        if (c || jb->scale)
            FN(mul_batch)(col, col, jb->tb.full + c * n1, n1);
        return;
    }
    if (c == 0) {
        if (jb->scale)
            NN(mul_const_b)(col, n1, jb->scale);
        return;
    }
    F *pw = tmp, *pr = tmp + n1;
    NN(powers_b)(pw, n1, jb->scale, &jb->tb.col[c]);
    for (size_t i = 0; i < n1; i++)
        pr[ntt_bitrev32((uint32_t)i, jb->k1)] = pw[i];
    FN(mul_batch)(col, col, pr, n1);
}

/* One radix-2 block, on the path the tables chose. */
static void NN(dif_)(const NN(tabs) *tb, F *a, unsigned j, const F *T, const F *S) {
    if (tb->batch)
        NN(dif_block_b)(a, j, S);
    else
        NN(dif_block)(a, j, T);
}

static void NN(dit_)(const NN(tabs) *tb, F *a, unsigned j, const F *T, const F *S) {
    if (tb->batch)
        NN(dit_block_b)(a, j, S);
    else
        NN(dit_block)(a, j, T);
}

static void NN(col_task)(void *arg, size_t task) {
    const NN(job) *jb = arg;
    size_t n1 = (size_t)1 << jb->k1, n2 = (size_t)1 << jb->k2;
    F *S = jb->scratch + task * jb->task_elems;
    F *tmp = S + NN_COLS * n1;
    size_t b0 = task * jb->per_task, b1 = b0 + jb->per_task;
    if (b1 > jb->nbatch)
        b1 = jb->nbatch;
    size_t B = n2 < NN_COLS ? n2 : NN_COLS;
    for (size_t bt = b0; bt < b1; bt++) {
        size_t c0 = bt * B;
        for (size_t r = 0; r < n1; r++) {
            const F *src = jb->a + r * n2 + c0;
            for (size_t b = 0; b < B; b++)
                S[b * n1 + r] = src[b];
        }
        for (size_t b = 0; b < B; b++) {
            F *col = S + b * n1;
            if (jb->dit) {
                if (jb->tb.batch)
                    NN(twiddle_col_b)(jb, col, c0 + b, tmp);
                else
                    NN(twiddle_col)(jb, col, c0 + b);
                NN(dit_)(&jb->tb, col, jb->k1, jb->tb.sub1, jb->tb.stg1);
            } else {
                NN(dif_)(&jb->tb, col, jb->k1, jb->tb.sub1, jb->tb.stg1);
                if (jb->tb.batch)
                    NN(twiddle_col_b)(jb, col, c0 + b, tmp);
                else
                    NN(twiddle_col)(jb, col, c0 + b);
            }
        }
        for (size_t r = 0; r < n1; r++) {
            F *dst = jb->a + r * n2 + c0;
            for (size_t b = 0; b < B; b++)
                dst[b] = S[b * n1 + r];
        }
    }
}

static void NN(row_task)(void *arg, size_t task) {
    const NN(job) *jb = arg;
    size_t n1 = (size_t)1 << jb->k1, n2 = (size_t)1 << jb->k2;
    size_t r0 = task * jb->rows_per_task, r1 = r0 + jb->rows_per_task;
    if (r1 > n1)
        r1 = n1;
    for (size_t r = r0; r < r1; r++) {
        if (jb->dit)
            NN(dit_)(&jb->tb, jb->a + r * n2, jb->k2, jb->tb.sub2, jb->tb.stg2);
        else
            NN(dif_)(&jb->tb, jb->a + r * n2, jb->k2, jb->tb.sub2, jb->tb.stg2);
    }
}

typedef struct NN(scale_job) {
    F *a;
    size_t n, chunk;
    unsigned k, b;
    const F *g;     /* ratio; NULL for a constant factor */
    const F *extra; /* optional constant factor */
    int rev;        /* the element of index j sits at position rev_k(j) */
    const F *t1, *t2; /* rev: factor at position p = t1[p mod 2^b] * t2[p >> b] */
    int batch;        /* the batched products */
} NN(scale_job);

/* Natural: a[j] *= extra * g^j. Bit-reversed: a[p] *= extra * g^rev_k(p),
 * walking p in memory order with rev_k(hi 2^b + lo) = rev_b(lo) 2^(k-b) +
 * rev_(k-b)(hi), so g^rev_k(p) = t1[lo] * t2[hi] (two sqrt(n) tables). */
static void NN(scale_task_b)(const NN(scale_job) *sj, size_t j0, size_t j1);

static void NN(scale_task)(void *arg, size_t task) {
    const NN(scale_job) *sj = arg;
    size_t j0 = task * sj->chunk, j1 = j0 + sj->chunk;
    if (j1 > sj->n)
        j1 = sj->n;
    if (sj->batch) {
        NN(scale_task_b)(sj, j0, j1);
        return;
    }
    F cur;
    if (sj->rev) {
        size_t mask = ((size_t)1 << sj->b) - 1;
        for (size_t p = j0; p < j1; p++) {
            FN(mul)(&cur, &sj->t1[p & mask], &sj->t2[p >> sj->b]);
            FN(mul)(&sj->a[p], &sj->a[p], &cur);
        }
        return;
    }
    if (sj->g) {
        limb_t e[1] = {(limb_t)j0};
        FN(pow)(&cur, sj->g, e, 1);
        if (sj->extra)
            FN(mul)(&cur, &cur, sj->extra);
    } else {
        cur = *sj->extra;
    }
    for (size_t j = j0; j < j1; j++) {
        FN(mul)(&sj->a[j], &sj->a[j], &cur);
        if (sj->g)
            FN(mul)(&cur, &cur, sj->g);
    }
}

/* The same products on [j0, j1), batched. Bit-reversed: runs of positions
 * with one p >> b read t1 contiguously, f = t1[lo] * t2[hi], a[p] *= f.
 * Natural: NN_GATHER factors extra * g^j at once, each batch of them times
 * g^NN_GATHER for the next. */
static void NN(scale_task_b)(const NN(scale_job) *sj, size_t j0, size_t j1) {
    F f[NN_GATHER], c[NN_GATHER];
    if (sj->rev) {
        size_t mask = ((size_t)1 << sj->b) - 1;
        for (size_t p = j0; p < j1;) {
            size_t hi = p >> sj->b, lo = p & mask;
            size_t run = mask + 1 - lo;
            if (run > j1 - p)
                run = j1 - p;
            for (size_t i = 0; i < NN_GATHER; i++)
                c[i] = sj->t2[hi];
            for (size_t i = 0; i < run; i += NN_GATHER) {
                size_t L = run - i < NN_GATHER ? run - i : NN_GATHER;
                FN(mul_batch)(f, sj->t1 + lo + i, c, L);
                FN(mul_batch)(sj->a + p + i, sj->a + p + i, f, L);
            }
            p += run;
        }
        return;
    }
    if (!sj->g) {
        NN(mul_const_b)(sj->a + j0, j1 - j0, sj->extra);
        return;
    }
    F start;
    limb_t e[1] = {(limb_t)j0};
    FN(pow)(&start, sj->g, e, 1);
    if (sj->extra)
        FN(mul)(&start, &start, sj->extra);
    size_t n = j1 - j0, n0 = n < NN_GATHER ? n : NN_GATHER;
    NN(powers_b)(f, n0, &start, sj->g); /* f[i] = extra g^(j0 + i) */
    if (n0 < n) {
        F gp = *sj->g; /* g^NN_GATHER */
        for (size_t i = 1; i < NN_GATHER; i++)
            FN(mul)(&gp, &gp, sj->g);
        for (size_t i = 0; i < NN_GATHER; i++)
            c[i] = gp;
    }
    for (size_t i = 0; i < n; i += NN_GATHER) {
        size_t L = n - i < NN_GATHER ? n - i : NN_GATHER;
        FN(mul_batch)(sj->a + j0 + i, sj->a + j0 + i, f, L);
        if (i + NN_GATHER < n)
            FN(mul_batch)(f, f, c, NN_GATHER);
    }
}

static size_t NN(ntasks_)(g16_ctx *ctx, size_t n, size_t min_chunk) {
    size_t t = (size_t)g16_pool_threads(ctx->pool) * 4;
    size_t max = (n + min_chunk - 1) / min_chunk;
    if (t > max)
        t = max;
    return t ? t : 1;
}

static g16_err NN(scale_pass)(g16_ctx *ctx, F *a, unsigned k, const F *g, const F *extra,
                              int rev, int batch) {
    size_t n = (size_t)1 << k;
    if (!g && !extra)
        return G16_OK;
    F one;
    FN(set_one)(&one);
    size_t nt = NN(ntasks_)(ctx, n, 4096);
    NN(scale_job) sj = {.a = a, .n = n, .chunk = (n + nt - 1) / nt, .k = k, .g = g, .extra = extra,
                        .rev = rev && g, .batch = batch};
    F *tabs = NULL;
    if (sj.rev) {
        sj.b = k / 2;
        size_t n1 = (size_t)1 << sj.b, n2 = (size_t)1 << (k - sj.b);
        tabs = malloc((2 * (n1 + n2)) * sizeof(F));
        if (!tabs)
            return G16_ERR_NOMEM;
        F *p1 = tabs, *p2 = tabs + n1, *t1 = tabs + n1 + n2, *t2 = t1 + n1;
        F g1 = *g; /* g^(2^(k-b)) */
        for (unsigned i = sj.b; i < k; i++)
            FN(sqr)(&g1, &g1);
        p1[0] = extra ? *extra : one;
        for (size_t i = 1; i < n1; i++)
            FN(mul)(&p1[i], &p1[i - 1], &g1);
        p2[0] = one;
        for (size_t i = 1; i < n2; i++)
            FN(mul)(&p2[i], &p2[i - 1], g);
        for (size_t i = 0; i < n1; i++)
            t1[i] = p1[ntt_bitrev32((uint32_t)i, sj.b)];
        for (size_t i = 0; i < n2; i++)
            t2[i] = p2[ntt_bitrev32((uint32_t)i, k - sj.b)];
        sj.t1 = t1;
        sj.t2 = t2;
    }
    g16_pool_run(ctx->pool, nt, NN(scale_task), &sj);
    free(tabs);
    return G16_OK;
}

/* The unpermuted transform: DIF (natural -> bit-reversed) or DIT (bit-
 * reversed -> natural) of size 2^k with root w[k] (dir 0), or with root
 * w[k]^-1 and every output times 2^-k (dir 1: the inverse). */
static g16_err NN(core)(g16_ctx *ctx, F *a, unsigned k, int dir, int dit, int batch) {
    /* Contract (the entry points' checks): a non-NULL, k within the field's
     * two-adicity, dir and dit flags. */
    G16_VERIFY_CHECK(a && k <= NC(S) && (dir == 0 || dir == 1) && (dit == 0 || dit == 1));
    F ninv;
    NN(load_)(&ninv, NN(inv2pow_)[k]);
    const F *scale = dir ? &ninv : NULL;
    NN(job) jb = {.a = a, .k = k, .dit = dit, .scale = scale};
    if (k <= NTT_DIRECT_LOG) {
        g16_err err = NN(get_tabs)(ctx, &jb.tb, dir, k, k, 0, batch);
        if (err)
            return err;
        if (dit)
            NN(dit_)(&jb.tb, a, k, jb.tb.sub1, jb.tb.stg1);
        else
            NN(dif_)(&jb.tb, a, k, jb.tb.sub1, jb.tb.stg1);
        if (scale && batch)
            NN(mul_const_b)(a, (size_t)1 << k, scale);
        else if (scale)
            for (size_t i = 0; i < ((size_t)1 << k); i++)
                FN(mul)(&a[i], &a[i], scale);
        return G16_OK;
    }
    jb.k1 = (k + 1) / 2;
    jb.k2 = k / 2;
    g16_err err = NN(get_tabs)(ctx, &jb.tb, dir, k, jb.k1, jb.k2, batch);
    if (err)
        return err;
    size_t n1 = (size_t)1 << jb.k1, n2 = (size_t)1 << jb.k2;
    G16_VERIFY_CHECK(jb.k1 + jb.k2 == k && n2 % NN_COLS == 0 && n2 >= NN_COLS);
    jb.nbatch = n2 / NN_COLS; /* n2 >= 2^5 here, a multiple of NN_COLS */
    size_t ncol_tasks = NN(ntasks_)(ctx, jb.nbatch, 1);
    jb.per_task = (jb.nbatch + ncol_tasks - 1) / ncol_tasks;
    ncol_tasks = (jb.nbatch + jb.per_task - 1) / jb.per_task;
    jb.task_elems = (NN_COLS + (batch && !jb.tb.full ? 2 : 0)) * n1;
    jb.scratch = malloc(ncol_tasks * jb.task_elems * sizeof(F));
    if (!jb.scratch)
        return G16_ERR_NOMEM;
    size_t nrow_tasks = NN(ntasks_)(ctx, n1, 1);
    jb.rows_per_task = (n1 + nrow_tasks - 1) / nrow_tasks;
    nrow_tasks = (n1 + jb.rows_per_task - 1) / jb.rows_per_task;
    if (dit) {
        g16_pool_run(ctx->pool, nrow_tasks, NN(row_task), &jb);
        g16_pool_run(ctx->pool, ncol_tasks, NN(col_task), &jb);
    } else {
        g16_pool_run(ctx->pool, ncol_tasks, NN(col_task), &jb);
        g16_pool_run(ctx->pool, nrow_tasks, NN(row_task), &jb);
    }
    free(jb.scratch);
    return G16_OK;
}

typedef struct NN(rev_job) {
    F *a;
    size_t n, chunk;
    unsigned k;
} NN(rev_job);

static void NN(rev_task)(void *arg, size_t task) {
    const NN(rev_job) *rj = arg;
    size_t i0 = task * rj->chunk, i1 = i0 + rj->chunk;
    if (i1 > rj->n)
        i1 = rj->n;
    for (size_t i = i0; i < i1; i++) {
        size_t j = ntt_bitrev32((uint32_t)i, rj->k);
        G16_VERIFY_CHECK(j < rj->n);
        if (i < j) {
            F t = rj->a[i];
            rj->a[i] = rj->a[j];
            rj->a[j] = t;
        }
    }
}

static void NN(bitrev_)(g16_ctx *ctx, F *a, unsigned k) {
    size_t n = (size_t)1 << k;
    size_t nt = NN(ntasks_)(ctx, n, 8192);
    NN(rev_job) rj = {.a = a, .n = n, .chunk = (n + nt - 1) / nt, .k = k};
    g16_pool_run(ctx->pool, nt, NN(rev_task), &rj);
}

/* Transform in the given order; dir as in core. */
static g16_err NN(transform)(g16_ctx *ctx, F *a, unsigned k, int dir, ntt_order ord, int batch) {
    g16_err err;
    switch (ord) {
    case NTT_NR:
        return NN(core)(ctx, a, k, dir, 0, batch);
    case NTT_RN:
        return NN(core)(ctx, a, k, dir, 1, batch);
    case NTT_NN:
        if ((err = NN(core)(ctx, a, k, dir, 0, batch)))
            return err;
        NN(bitrev_)(ctx, a, k);
        return G16_OK;
    case NTT_RR:
        NN(bitrev_)(ctx, a, k);
        return NN(core)(ctx, a, k, dir, 0, batch);
    }
    return G16_ERR_INVALID_ARG;
}

static g16_err NN(check_)(g16_ctx *ctx, const F *a, unsigned log_n, int ord, unsigned max_log) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!a)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "ntt: NULL array");
    if (ord < 0 || ord > 3)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "ntt: bad order %d", ord);
    if (log_n > max_log)
        return g16_ctx_fail(ctx, G16_ERR_UNSUPPORTED, "ntt: domain 2^%u exceeds 2^%u for %s",
                            log_n, max_log, NTT_STR(F));
    return G16_OK;
}

static g16_err NN(done_)(g16_ctx *ctx, g16_err err) {
    if (err)
        return g16_ctx_fail(ctx, err, "ntt: %s", g16_err_str(err));
    return G16_OK;
}

g16_err NN(forward)(g16_ctx *ctx, F *a, unsigned log_n, ntt_order ord) {
    g16_err err = NN(check_)(ctx, a, log_n, (int)ord, NC(S));
    if (err)
        return err;
    return NN(done_)(ctx, NN(transform)(ctx, a, log_n, 0, ord, ntt_batch_on(ctx)));
}

g16_err NN(inverse)(g16_ctx *ctx, F *a, unsigned log_n, ntt_order ord) {
    g16_err err = NN(check_)(ctx, a, log_n, (int)ord, NC(S));
    if (err)
        return err;
    return NN(done_)(ctx, NN(transform)(ctx, a, log_n, 1, ord, ntt_batch_on(ctx)));
}

g16_err NN(coset_forward)(g16_ctx *ctx, F *a, unsigned log_n, const F *g, ntt_order ord) {
    g16_err err = NN(check_)(ctx, a, log_n, (int)ord, NC(S));
    if (err)
        return err;
    if (!g)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "ntt: NULL coset shift");
    F gg = *g; /* g may alias a */
    int batch = ntt_batch_on(ctx);
    if ((err = NN(scale_pass)(ctx, a, log_n, &gg, NULL, (int)ord >> 1, batch)))
        return NN(done_)(ctx, err);
    return NN(done_)(ctx, NN(transform)(ctx, a, log_n, 0, ord, batch));
}

g16_err NN(coset_inverse)(g16_ctx *ctx, F *a, unsigned log_n, const F *g, ntt_order ord) {
    g16_err err = NN(check_)(ctx, a, log_n, (int)ord, NC(S));
    if (err)
        return err;
    if (!g)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "ntt: NULL coset shift");
    F ginv;
    FN(inv)(&ginv, g);
    int batch = ntt_batch_on(ctx);
    if ((err = NN(transform)(ctx, a, log_n, 1, ord, batch)))
        return NN(done_)(ctx, err);
    return NN(done_)(ctx, NN(scale_pass)(ctx, a, log_n, &ginv, NULL, (int)ord & 1, batch));
}

g16_err NN(odd_coset_from_evals)(g16_ctx *ctx, F *a, unsigned log_n) {
    g16_err err = NN(check_)(ctx, a, log_n, 0, NC(S) - 1);
    if (err)
        return err;
    F g;
    NN(load_)(&g, NN(roots_)[log_n + 1]);
    /* values (natural) -> coefficients (bit-reversed) */
    int batch = ntt_batch_on(ctx);
    if ((err = NN(core)(ctx, a, log_n, 1, 0, batch)))
        return NN(done_)(ctx, err);
    /* coefficient j (at position rev(j)) times g^j */
    if ((err = NN(scale_pass)(ctx, a, log_n, &g, NULL, 1, batch)))
        return NN(done_)(ctx, err);
    /* coefficients (bit-reversed) -> values at g*omega^i (natural) */
    return NN(done_)(ctx, NN(core)(ctx, a, log_n, 0, 1, batch));
}

g16_err NN(bitrev)(g16_ctx *ctx, F *a, unsigned log_n) {
    g16_err err = NN(check_)(ctx, a, log_n, 0, NC(S));
    if (err)
        return err;
    NN(bitrev_)(ctx, a, log_n);
    return G16_OK;
}

#undef FN
#undef NN
#undef NC
