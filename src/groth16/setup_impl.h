/* Template: the insecure test-only Groth16 setup for one curve (CV).
 * See setup.c for the math and the layout. Defines groth16_<CV>_setup() and
 * setup_<CV>_toxic_bytes(). */

#define SP(name) G16_CAT(G16_CAT(setup_, CV), _##name)
#define SPX(x) G16_CAT(G16_CAT(setup_, CV), G16_CAT(_, x))
#define FR G16_CAT(CV, _fr)
#define FRN(name) G16_CAT(FR, _##name)
#define FP G16_CAT(CV, _fp)
#define FPN(name) G16_CAT(FP, _##name)
#define NTTN(name) G16_CAT(G16_CAT(ntt_, FR), _##name)

/* ---- fixed-base scalar multiplication (one template per group) ------------
 * out[i] = k_i B with a window table of B (FB_W-bit windows), on the pool,
 * or on the GPU (g16_gpu_fixed_base, the same table method; equal results:
 * affine coordinates are unique). Points are written straight into the key
 * buffer (the zkey's point layout is our affine layout, setup.c asserts). */
#define FB_GROUP_(G, GROUP_ID, GROUP_UNITS)                                                         \
    typedef struct SP(G##_table) {                                                                  \
        G##_affine base;                                                                            \
        G##_affine *t; /* FB_WINDOWS x (2^FB_W - 1): t[win][d-1] = d 2^(FB_W win) B */              \
    } SP(G##_table);                                                                                \
                                                                                                    \
    static g16_err SP(G##_table_build)(SP(G##_table) *tb, const G##_affine *base) {                 \
        const size_t per = ((size_t)1 << FB_W) - 1, total = per * FB_WINDOWS;                       \
        G##_jac *j = malloc(total * sizeof *j);                                                     \
        void *scratch = malloc(total * sizeof(j->z));                                               \
        tb->base = *base;                                                                           \
        tb->t = malloc(total * sizeof *tb->t);                                                      \
        if (!j || !scratch || !tb->t) {                                                             \
            free(j);                                                                                \
            free(scratch);                                                                          \
            free(tb->t);                                                                            \
            tb->t = NULL;                                                                           \
            return G16_ERR_NOMEM;                                                                   \
        }                                                                                           \
        G##_jac p;                                                                                  \
        G##_jac_from_affine(&p, base);                                                              \
        for (int win = 0; win < FB_WINDOWS; win++) {                                                \
            G##_jac *row = j + (size_t)win * per;                                                   \
            row[0] = p;                                                                             \
            for (size_t d = 1; d < per; d++)                                                        \
                G##_jac_add(&row[d], &row[d - 1], &p);                                              \
            for (int k = 0; k < FB_W; k++)                                                          \
                G##_jac_dbl(&p, &p);                                                                \
        }                                                                                           \
        G##_jac_batch_to_affine(tb->t, j, total, scratch);                                          \
        free(j);                                                                                    \
        free(scratch);                                                                              \
        return G16_OK;                                                                              \
    }                                                                                               \
                                                                                                    \
    /* Variable time in k: the test setup's toxic waste is not secret by design. */                 \
    static void SP(G##_mul_vartime)(G##_jac *r, const SP(G##_table) *tb, const g16_scalar *k) {     \
        const size_t per = ((size_t)1 << FB_W) - 1;                                                 \
        G##_jac_set_inf(r);                                                                         \
        for (int win = 0; win < FB_WINDOWS; win++) {                                                \
            unsigned bit = (unsigned)win * FB_W;                                                    \
            unsigned d = (unsigned)(k->l[bit / 64] >> (bit % 64)) & ((1u << FB_W) - 1);             \
            if (d)                                                                                  \
                G##_jac_add_affine(r, r, &tb->t[(size_t)win * per + d - 1]);                        \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    typedef struct SP(G##_job) {                                                                    \
        const SP(G##_table) *tb;                                                                    \
        setup_fill_fn fill;                                                                         \
        void *arg;                                                                                  \
        g16_scalar *k; /* GPU rounds: the round's scalars; NULL: compute the points here */         \
        uint8_t *dst;  /* the round's first point */                                                \
        size_t lo, m;  /* the round: points lo..lo+m of the section */                              \
        int failed;                                                                                 \
        g16_progress *prog; /* CPU: tasks move the "points" stage (owner thread only) */            \
        uint64_t pbase;     /* its units before this section */                                     \
        atomic_uint_fast64_t pdone; /* points of this section made so far */                        \
    } SP(G##_job);                                                                                  \
                                                                                                    \
    static void SP(G##_task)(void *arg, size_t task) {                                              \
        SP(G##_job) *jb = arg;                                                                      \
        size_t lo = task * FB_CHUNK, hi = lo + FB_CHUNK < jb->m ? lo + FB_CHUNK : jb->m;            \
        if (jb->k) {                                                                                \
            jb->fill(jb->arg, jb->k + lo, jb->lo + lo, hi - lo);                                    \
            return;                                                                                 \
        }                                                                                           \
        g16_scalar *k = malloc((hi - lo) * sizeof *k);                                              \
        G##_jac *j = malloc((hi - lo) * sizeof *j);                                                 \
        G##_affine *a = malloc((hi - lo) * sizeof *a);                                              \
        void *scratch = malloc((hi - lo) * sizeof(j->z));                                           \
        if (k && j && a && scratch) {                                                               \
            jb->fill(jb->arg, k, jb->lo + lo, hi - lo);                                             \
            for (size_t i = 0; i < hi - lo; i++)                                                    \
                SP(G##_mul_vartime)(&j[i], jb->tb, &k[i]);                                          \
            G##_jac_batch_to_affine(a, j, hi - lo, scratch);                                        \
            for (size_t i = 0; i < hi - lo; i++)                                                    \
                G##_to_zkey(jb->dst + (lo + i) * sizeof(G##_affine), &a[i]);                        \
            uint64_t d = atomic_fetch_add(&jb->pdone, hi - lo) + (hi - lo);                         \
            g16_progress_at(jb->prog, jb->pbase + d * GROUP_UNITS);                                 \
        } else {                                                                                    \
            jb->failed = 1;                                                                         \
        }                                                                                           \
        free(k);                                                                                    \
        free(j);                                                                                    \
        free(a);                                                                                    \
        free(scratch);                                                                              \
    }                                                                                               \
                                                                                                    \
    /* Points 0..n of a section at dst: k_i B with k_i from fill. */                                \
    static g16_err SP(G##_emit)(setup_env *e, const SP(G##_table) *tb, uint8_t *dst, size_t n,      \
                                setup_fill_fn fill, void *arg, g16_status *st) {                    \
        SP(G##_job) jb = {tb, fill, arg, NULL, NULL, 0, 0, 0, &e->prog, e->pdone, 0};               \
        e->pdone += (uint64_t)n * GROUP_UNITS;                                                      \
        if (!e->gpu) {                                                                              \
            jb.dst = dst;                                                                           \
            jb.m = n;                                                                               \
            g16_pool_run(e->ctx->pool, (n + FB_CHUNK - 1) / FB_CHUNK, SP(G##_task), &jb);           \
            g16_progress_at(&e->prog, e->pdone);                                                    \
            return jb.failed ? g16_fail(st, G16_ERR_NOMEM, "setup: out of memory") : G16_OK;        \
        }                                                                                           \
        size_t round = n < EMIT_CHUNK ? n : EMIT_CHUNK;                                             \
        jb.k = malloc((round ? round : 1) * sizeof *jb.k);                                          \
        if (!jb.k)                                                                                  \
            return g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");                             \
        g16_err err = G16_OK;                                                                       \
        for (size_t lo = 0; lo < n && !err; lo += round) {                                          \
            jb.lo = lo;                                                                             \
            jb.m = n - lo < round ? n - lo : round;                                                 \
            g16_pool_run(e->ctx->pool, (jb.m + FB_CHUNK - 1) / FB_CHUNK, SP(G##_task), &jb);        \
            err = g16_gpu_fixed_base(e->gpu, G16_CAT(SETUP_FR_UP, _CURVE_ID), GROUP_ID, &tb->base,  \
                                     jb.k, jb.m, dst + lo * sizeof(G##_affine), st);                \
            g16_progress_at(&e->prog, jb.pbase + (lo + jb.m) * GROUP_UNITS);                        \
        }                                                                                           \
        free(jb.k);                                                                                 \
        return err;                                                                                 \
    }

#define BN254_FR_CURVE_ID G16_CURVE_BN254
#define BLS381_FR_CURVE_ID G16_CURVE_BLS12_381
#define FB_GROUP(G, ID, UNITS) FB_GROUP_(G, ID, UNITS)
FB_GROUP(G16_CAT(CV, _g1), G16_GPU_G1, SETUP_G1_UNITS)
FB_GROUP(G16_CAT(CV, _g2), G16_GPU_G2, SETUP_G2_UNITS)
#undef FB_GROUP

#define G1 G16_CAT(CV, _g1)
#define G2 G16_CAT(CV, _g2)
#define G1A G16_CAT(G1, _affine)
#define G2A G16_CAT(G2, _affine)
#define G1N(name) G16_CAT(G1, _##name)
#define G2N(name) G16_CAT(G2, _##name)

/* ---- scalar producers ---------------------------------------------------- */
/* From an array of Montgomery Fr values. */
static void SP(fill_array)(void *arg, g16_scalar *k, size_t lo, size_t m) {
    const FR *v = arg;
    for (size_t i = 0; i < m; i++)
        FRN(from_mont)(k[i].l, &v[lo + i]);
}

/* x^e for a small exponent e. */
static void SP(pow_u64)(FR *r, const FR *x, uint64_t e) {
    limb_t el[1] = {e};
    FRN(pow)(r, x, el, 1);
}

/* Values c * x_j / (tau - x_j) with x_j = x0 omega^j, j in lo..lo+m: the
 * Lagrange basis at tau (x0 = 1, c = (tau^n - 1)/n) and the H points'
 * scalars (x0 = g, c = (tau^2n - 1)/(2n delta)). zero_den is set if tau is
 * one of the x_j. */
typedef struct SP(lag_job) {
    FR x0, omega, tau, c;
    FR *out;        /* Montgomery values (lag), or NULL: k as scalars */
    int zero_den;
    int failed;
} SP(lag_job);

static int SP(lag_range)(SP(lag_job) *jb, FR *val, size_t lo, size_t m) {
    FR *den = malloc(2 * m * sizeof *den);
    if (!den)
        return -1;
    FR x, t;
    SP(pow_u64)(&x, &jb->omega, lo);
    FRN(mul)(&x, &x, &jb->x0);
    for (size_t j = 0; j < m; j++) {
        FRN(sub)(&den[j], &jb->tau, &x);
        if (FRN(is_zero)(&den[j]))
            jb->zero_den = 1;
        val[j] = x;
        FRN(mul)(&x, &x, &jb->omega);
    }
    FRN(batch_inv)(den, den, m, den + m);
    for (size_t j = 0; j < m; j++) {
        FRN(mul)(&t, &val[j], &den[j]);
        FRN(mul)(&val[j], &t, &jb->c);
    }
    free(den);
    return 0;
}

static void SP(lag_task)(void *arg, size_t task) {
    SP(lag_job) *jb = arg;
    size_t lo = task * FB_CHUNK;
    if (SP(lag_range)(jb, jb->out + lo, lo, FB_CHUNK) != 0)
        jb->failed = 1;
}

static void SP(fill_h)(void *arg, g16_scalar *k, size_t lo, size_t m) {
    SP(lag_job) *jb = arg;
    FR *v = malloc(m * sizeof *v);
    if (!v || SP(lag_range)(jb, v, lo, m) != 0) {
        jb->failed = 1;
        memset(k, 0, m * sizeof *k);
        free(v);
        return;
    }
    for (size_t i = 0; i < m; i++)
        FRN(from_mont)(k[i].l, &v[i]);
    free(v);
}

/* Scalars tau^j (tau^n - 1) of the points snarkjs hashes for H (hashHPoints). */
typedef struct SP(hh_job) {
    FR tau, zn;
} SP(hh_job);
static void SP(fill_hh)(void *arg, g16_scalar *k, size_t lo, size_t m) {
    SP(hh_job) *jb = arg;
    FR x, t;
    SP(pow_u64)(&x, &jb->tau, lo);
    for (size_t i = 0; i < m; i++) {
        FRN(mul)(&t, &x, &jb->zn);
        FRN(from_mont)(k[i].l, &t);
        FRN(mul)(&x, &x, &jb->tau);
    }
}

/* ---- column sums -------------------------------------------------------- */
typedef struct SP(col_job) {
    const g16_r1cs *cs;
    const FR *lag;
    FR *acc[3];
} SP(col_job);

/* acc[m][i] = sum_c M[c][i] L_c(tau), one matrix per task. */
static void SP(col_task)(void *arg, size_t m) {
    SP(col_job) *jb = arg;
    const g16_r1cs_matrix *mat = &jb->cs->m[m];
    FR *acc = jb->acc[m], t;
    for (uint32_t c = 0; c < jb->cs->nConstraints; c++)
        for (uint64_t e = mat->row[c]; e < mat->row[c + 1]; e++) {
            FRN(mul)(&t, (const FR *)mat->coef[e], &jb->lag[c]);
            FRN(add)(&acc[mat->wire[e]], &acc[mat->wire[e]], &t);
        }
}

/* ---- coefficients (section 4) --------------------------------------------- */
typedef struct SP(coef_job) {
    const g16_r1cs *cs;
    uint8_t *dst; /* first entry */
} SP(coef_job);

/* Rows task*FB_CHUNK.. : entry index of row c's first A term is A.row[c] + B.row[c]. */
static void SP(coef_task)(void *arg, size_t task) {
    SP(coef_job) *jb = arg;
    const g16_r1cs *cs = jb->cs;
    uint32_t lo = (uint32_t)(task * FB_CHUNK), hi = lo + FB_CHUNK < cs->nConstraints ? lo + FB_CHUNK : cs->nConstraints;
    uint8_t *p = jb->dst + (cs->m[0].row[lo] + cs->m[1].row[lo]) * G16_ZKEY_COEF_SIZE;
    for (uint32_t c = lo; c < hi; c++)
        for (uint32_t m = 0; m < 2; m++)
            for (uint64_t e = cs->m[m].row[c]; e < cs->m[m].row[c + 1]; e++) {
                FR v;
                FRN(to_mont)(&v, cs->m[m].coef[e]); /* Montgomery limbs of c, times R again */
                put32(p, m);
                put32(p + 4, c);
                put32(p + 8, cs->m[m].wire[e]);
                memcpy(p + 12, v.l, 32);
                p += G16_ZKEY_COEF_SIZE;
            }
}

/* ---- combine: IC/C scalars ---------------------------------------------- */
typedef struct SP(comb_job) {
    FR *ea, *eb, *ec;
    FR alpha, beta, gamma_inv, delta_inv;
    uint32_t npub, nvars;
} SP(comb_job);
static void SP(comb_task)(void *arg, size_t task) {
    SP(comb_job) *jb = arg;
    size_t lo = task * FB_CHUNK, hi = lo + FB_CHUNK < jb->nvars ? lo + FB_CHUNK : jb->nvars;
    FR t, u;
    for (size_t i = lo; i < hi; i++) {
        FRN(mul)(&t, &jb->beta, &jb->ea[i]);
        FRN(mul)(&u, &jb->alpha, &jb->eb[i]);
        FRN(add)(&t, &t, &u);
        FRN(add)(&t, &t, &jb->ec[i]);
        FRN(mul)(&jb->ec[i], &t, i <= jb->npub ? &jb->gamma_inv : &jb->delta_inv);
    }
}

/* ---- snarkjs's uncompressed encoding (LEMtoU) for the circuit hash --------
 * Big-endian standard-form coordinates, G2's Fp2 as c1 || c0; infinity is
 * all zeros. */
static void SP(hash_g1)(g16_blake2b *h, const uint8_t *zk, size_t n) {
    const size_t nb = sizeof(FP);
    uint8_t u[2 * sizeof(FP)];
    for (size_t i = 0; i < n; i++) {
        G1A p;
        memcpy(&p, zk + i * sizeof p, sizeof p);
        if (G1N(affine_is_inf)(&p)) {
            memset(u, 0, sizeof u);
        } else {
            FPN(to_bytes_be)(u, nb, &p.x);
            FPN(to_bytes_be)(u + nb, nb, &p.y);
        }
        g16_blake2b_update(h, u, sizeof u);
    }
}
static void SP(hash_g2)(g16_blake2b *h, const uint8_t *zk, size_t n) {
    const size_t nb = sizeof(FP);
    uint8_t u[4 * sizeof(FP)];
    for (size_t i = 0; i < n; i++) {
        G2A p;
        memcpy(&p, zk + i * sizeof p, sizeof p);
        if (G2N(affine_is_inf)(&p)) {
            memset(u, 0, sizeof u);
        } else {
            FPN(to_bytes_be)(u, nb, &p.x.c1);
            FPN(to_bytes_be)(u + nb, nb, &p.x.c0);
            FPN(to_bytes_be)(u + 2 * nb, nb, &p.y.c1);
            FPN(to_bytes_be)(u + 3 * nb, nb, &p.y.c0);
        }
        g16_blake2b_update(h, u, sizeof u);
    }
}

/* ---- toxic waste ---------------------------------------------------------- */
/* tau, alpha, beta, gamma, delta from the seed (nonzero). */
static void SP(toxic)(uint64_t seed, FR tw[5]) {
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    for (int i = 0; i < 5; i++)
        do
            FRN(random)(&tw[i], &rng);
        while (FRN(is_zero)(&tw[i]));
}

/* The toxic waste of a run: o->toxic (canonical little-endian, each nonzero
 * and below r; -1 if not), else from o->seed. */
static int SP(toxic_from)(const groth16_setup_opts *o, FR tw[5]) {
    if (!o->toxic) {
        SP(toxic)(o->seed, tw);
        return 0;
    }
    /* Variable time in the values: an insecure test setup's given toxic
     * waste, already on the command line, has nothing left to hide. */
    for (int i = 0; i < 5; i++) {
        limb_t x[4];
        memcpy(x, o->toxic[i], 32);
        if (!FRN(from_canon_vartime)(&tw[i], x) || FRN(is_zero)(&tw[i])) {
            g16_wipe(tw, 5 * sizeof *tw);
            return -1;
        }
    }
    return 0;
}

static void SP(toxic_bytes)(uint64_t seed, uint8_t out[5][32]) {
    FR tw[5];
    SP(toxic)(seed, tw);
    for (int i = 0; i < 5; i++) {
        limb_t l[4];
        FRN(from_mont)(l, &tw[i]);
        memcpy(out[i], l, 32);
    }
    g16_wipe(tw, sizeof tw);
}

/* The verification key's points: alpha1, beta1, delta1 in G1 and beta2,
 * gamma2, delta2 in G2, from the generators' tables. */
typedef struct SP(vk) {
    G1A alpha1, beta1, delta1;
    G2A beta2, gamma2, delta2;
} SP(vk);

static void SP(vk_points)(SP(vk) *vk, const SPX(G16_CAT(G1, _table)) *t1, const SPX(G16_CAT(G2, _table)) *t2,
                          const FR *alpha, const FR *beta, const FR *gamma, const FR *delta) {
    g16_scalar ks[6];
    G1A a1[3];
    G2A a2[3];
    FRN(from_mont)(ks[0].l, alpha);
    FRN(from_mont)(ks[1].l, beta);
    FRN(from_mont)(ks[2].l, delta);
    FRN(from_mont)(ks[3].l, beta);
    FRN(from_mont)(ks[4].l, gamma);
    FRN(from_mont)(ks[5].l, delta);
    for (int i = 0; i < 3; i++) {
        G16_CAT(G1, _jac) j1;
        G16_CAT(G2, _jac) j2;
        SPX(G16_CAT(G1, _mul_vartime))(&j1, t1, &ks[i]);
        SPX(G16_CAT(G2, _mul_vartime))(&j2, t2, &ks[3 + i]);
        G1N(jac_to_affine)(&a1[i], &j1);
        G2N(jac_to_affine)(&a2[i], &j2);
    }
    vk->alpha1 = a1[0], vk->beta1 = a1[1], vk->delta1 = a1[2];
    vk->beta2 = a2[0], vk->gamma2 = a2[1], vk->delta2 = a2[2];
}

/* Sections 1 (protocol) and 2 (Groth16 header). */
static void SP(write_header)(setup_env *e, const SP(vk) *vk, uint32_t nvars, uint32_t npub, uint32_t n) {
    static const limb_t q_limbs[] = G16_CAT(SETUP_FP_UP, _P);
    static const limb_t r_limbs[4] = G16_CAT(SETUP_FR_UP, _P);
    uint8_t *const buf = e->buf;
    put32(buf + e->L.off[1], 1);
    uint8_t *p = buf + e->L.off[2];
    put32(p, (uint32_t)sizeof q_limbs);
    memcpy(p + 4, q_limbs, sizeof q_limbs);
    p += 4 + sizeof q_limbs;
    put32(p, 32);
    memcpy(p + 4, r_limbs, 32);
    p += 36;
    put32(p, nvars);
    put32(p + 4, npub);
    put32(p + 8, n);
    p += 12;
    G1N(to_zkey)(p, &vk->alpha1), p += sizeof(G1A);
    G1N(to_zkey)(p, &vk->beta1), p += sizeof(G1A);
    G2N(to_zkey)(p, &vk->beta2), p += sizeof(G2A);
    G2N(to_zkey)(p, &vk->gamma2), p += sizeof(G2A);
    G1N(to_zkey)(p, &vk->delta1), p += sizeof(G1A);
    G2N(to_zkey)(p, &vk->delta2), p += sizeof(G2A);
}

/* Section 4: A and B entries as c R^2 mod r (R = 2^256), snarkjs's order,
 * then the extra rows A[ncons+s] = w_s (coefficient 1). */
static void SP(write_coefs)(setup_env *e, const g16_r1cs *cs, uint32_t npub) {
    const uint32_t ncons = cs->nConstraints;
    FR one;
    FRN(set_one)(&one);
    uint8_t *p = e->buf + e->L.off[4];
    put32(p, (uint32_t)(cs->nnz[0] + cs->nnz[1] + npub + 1));
    SP(coef_job) cj = {cs, p + 4};
    g16_pool_run(e->ctx->pool, ((size_t)ncons + FB_CHUNK - 1) / FB_CHUNK, SP(coef_task), &cj);
    p += 4 + (cs->nnz[0] + cs->nnz[1]) * G16_ZKEY_COEF_SIZE;
    for (uint32_t s = 0; s <= npub; s++) {
        FR v;
        FRN(to_mont)(&v, one.l);
        put32(p, 0);
        put32(p + 4, ncons + s);
        put32(p + 8, s);
        memcpy(p + 12, v.l, 32);
        p += G16_ZKEY_COEF_SIZE;
    }
}

/* Section 10's circuit hash, as snarkjs zkey new computes its csHash: the vk
 * points, IC, the H points [tau^j (tau^n - 1)] G1 (made again here, in
 * blocks), C, A, B1, B2, all in snarkjs's uncompressed encoding. Needs
 * sections 3 and 5..8 written; tn = tau^n. */
static g16_err SP(circuit_hash)(setup_env *e, const SPX(G16_CAT(G1, _table)) *t1, const SP(vk) *vk, const FR *tau,
                                const FR *tn, uint32_t npub, uint32_t nvars, uint32_t n, uint8_t hash[64],
                                g16_status *st) {
    uint8_t *const buf = e->buf;
    g16_err err = G16_OK;
    FR one;
    FRN(set_one)(&one);
    double th = g16_now_ms();
    g16_blake2b h;
    g16_blake2b_init(&h, 64);
    SP(hash_g1)(&h, (const uint8_t *)&vk->alpha1, 1);
    SP(hash_g1)(&h, (const uint8_t *)&vk->beta1, 1);
    SP(hash_g2)(&h, (const uint8_t *)&vk->beta2, 1);
    SP(hash_g2)(&h, (const uint8_t *)&vk->gamma2, 1);
    SP(hash_g1)(&h, (const uint8_t *)&vk->delta1, 1);
    SP(hash_g2)(&h, (const uint8_t *)&vk->delta2, 1);
    hash_u32be(&h, npub + 1);
    SP(hash_g1)(&h, buf + e->L.off[3], npub + 1);
    /* hashHPoints: u32 n-1, then [tau^j (tau^n - 1)] G1 in chunks of
     * min(n-1, 2^14) points starting at multiples of 2^14 below n-1
     * (so the last chunk may run past n-2, as snarkjs's does). */
    hash_u32be(&h, n - 1);
    const size_t hc = 1u << 14, per = (size_t)n - 1 < hc ? (size_t)n - 1 : hc;
    size_t total = 0;
    for (size_t i = 0; i < (size_t)n - 1; i += hc)
        total += per;
    SP(hh_job) hh = {.tau = *tau};
    FRN(sub)(&hh.zn, tn, &one);
    const size_t blk = (size_t)1 << 16;
    uint8_t *tmp = malloc((total < blk ? total : blk) * sizeof(G1A) + 1);
    if (!tmp)
        return g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
    for (size_t lo = 0; lo < total && !err; lo += blk) {
        size_t m = total - lo < blk ? total - lo : blk;
        hh.tau = *tau;
        /* fill_hh counts from 0: shift by lo through tau^lo. */
        SP(hh_job) sh = hh;
        FR tl;
        SP(pow_u64)(&tl, tau, lo);
        FRN(mul)(&sh.zn, &hh.zn, &tl);
        if (!(err = SPX(G16_CAT(G1, _emit))(e, t1, tmp, m, SP(fill_hh), &sh, st)))
            SP(hash_g1)(&h, tmp, m);
    }
    free(tmp);
    if (err)
        return err;
    hash_u32be(&h, nvars - npub - 1);
    SP(hash_g1)(&h, buf + e->L.off[8], nvars - npub - 1);
    hash_u32be(&h, nvars);
    SP(hash_g1)(&h, buf + e->L.off[5], nvars);
    hash_u32be(&h, nvars);
    SP(hash_g1)(&h, buf + e->L.off[6], nvars);
    hash_u32be(&h, nvars);
    SP(hash_g2)(&h, buf + e->L.off[7], nvars);
    g16_blake2b_final(&h, hash);
    e->info->hash_ms = g16_now_ms() - th;
    return G16_OK;
}

static g16_err G16_CAT(G16_CAT(groth16_, CV), _setup)(setup_env *e, const g16_r1cs *cs, unsigned log_n,
                                                       g16_status *st) {
    const uint32_t npub = cs->nPubOut + cs->nPubIn, nvars = cs->nWires, ncons = cs->nConstraints;
    const uint32_t n = 1u << log_n;
    const int sj = e->o->snarkjs_init;
    uint8_t *const buf = e->buf;
    g16_err err = G16_OK;
    FR *lag = NULL, *ea = NULL, *eb = NULL, *ec = NULL;
    SPX(G16_CAT(G1, _table)) t1 = {0};
    SPX(G16_CAT(G2, _table)) t2 = {0};
    double t0 = g16_now_ms();
    g16_progress_stage(&e->prog, "lagrange", 1);

    /* Toxic waste from the seed: whoever knows the seed can forge proofs. */
    FR tw[5], gamma_inv, delta_inv, one, t;
    if (SP(toxic_from)(e->o, tw) != 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "setup: a toxic value is zero or not below r");
    FR *const tau = &tw[0], *const alpha = &tw[1], *const beta = &tw[2], *const gamma = &tw[3], *const delta = &tw[4];
    FRN(set_one)(&one);
    if (sj) {
        *gamma = one;
        *delta = one;
    }
    FRN(inv)(&gamma_inv, gamma);
    FRN(inv)(&delta_inv, delta);

    lag = malloc((size_t)n * sizeof *lag);
    ea = calloc(nvars, sizeof *ea);
    eb = calloc(nvars, sizeof *eb);
    ec = calloc(nvars, sizeof *ec);
    if (!lag || !ea || !eb || !ec) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for a domain of %u", n);
        goto done;
    }

    /* L_c(tau) = (tau^n - 1)/n * omega^c / (tau - omega^c), c < n. */
    FR omega, g, tn, zn, ninv;
    NTTN(root)(&omega, log_n);
    NTTN(root)(&g, log_n + 1);
    tn = *tau;
    for (unsigned i = 0; i < log_n; i++)
        FRN(sqr)(&tn, &tn); /* tau^n */
    FRN(from_u64)(&ninv, n);
    FRN(inv)(&ninv, &ninv);
    FRN(sub)(&zn, &tn, &one);
    FRN(mul)(&zn, &zn, &ninv); /* (tau^n - 1)/n */
    {
        SP(lag_job) lj = {.x0 = one, .omega = omega, .tau = *tau, .c = zn, .out = lag};
        size_t tasks = ((size_t)n + FB_CHUNK - 1) / FB_CHUNK;
        if (n < FB_CHUNK) { /* one short task */
            if (SP(lag_range)(&lj, lag, 0, n) != 0)
                lj.failed = 1;
        } else {
            g16_pool_run(e->ctx->pool, tasks, SP(lag_task), &lj);
        }
        if (lj.failed) {
            err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
            goto done;
        }
        if (lj.zero_den) {
            err = g16_fail(st, G16_ERR_INTERNAL, "setup: tau hit a root of unity; use another seed");
            goto done;
        }
    }

    /* Column sums, one matrix per task; snarkjs's extra rows A[ncons+s] = w_s. */
    {
        SP(col_job) cj = {cs, lag, {ea, eb, ec}};
        g16_pool_run(e->ctx->pool, 3, SP(col_task), &cj);
    }
    for (uint32_t s = 0; s <= npub; s++)
        FRN(add)(&ea[s], &ea[s], &lag[ncons + s]);
    free(lag);
    lag = NULL;
    e->info->lagrange_ms = g16_now_ms() - t0;

    /* Fixed-base tables for the generators, and the vk points. */
    G1A gen1;
    G2A gen2;
    SP(vk) vk;
    G1N(generator)(&gen1);
    G2N(generator)(&gen2);
    if (SPX(G16_CAT(G1, _table_build))(&t1, &gen1) || SPX(G16_CAT(G2, _table_build))(&t2, &gen2)) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for tables");
        goto done;
    }
    SP(vk_points)(&vk, &t1, &t2, alpha, beta, gamma, delta);
    SP(write_header)(e, &vk, nvars, npub, n);
    SP(write_coefs)(e, cs, npub);

    if (e->o->cs_done) /* cs is not read below */
        e->o->cs_done(e->o->cs_done_user);

    /* IC and C scalars: (beta a_i + alpha b_i + c_i) / (gamma or delta), into ec. */
    {
        SP(comb_job) cj = {ea, eb, ec, *alpha, *beta, gamma_inv, delta_inv, npub, nvars};
        g16_pool_run(e->ctx->pool, ((size_t)nvars + FB_CHUNK - 1) / FB_CHUNK, SP(comb_task), &cj);
    }
    double t1ms = g16_now_ms();
    g16_progress_end(&e->prog);
    /* "points": IC, C, A, B1 and H in G1, B2 in G2. */
    e->pdone = 0;
    g16_progress_stage(&e->prog, "points",
                       SETUP_G1_UNITS * (3 * (uint64_t)nvars + n) + SETUP_G2_UNITS * (uint64_t)nvars);
    if ((err = SPX(G16_CAT(G1, _emit))(e, &t1, buf + e->L.off[3], npub + 1, SP(fill_array), ec, st)) ||
        (err = SPX(G16_CAT(G1, _emit))(e, &t1, buf + e->L.off[8], nvars - npub - 1, SP(fill_array), ec + npub + 1,
                                       st)))
        goto done;
    free(ec);
    ec = NULL;
    if ((err = SPX(G16_CAT(G1, _emit))(e, &t1, buf + e->L.off[5], nvars, SP(fill_array), ea, st)))
        goto done;
    free(ea);
    ea = NULL;
    if ((err = SPX(G16_CAT(G1, _emit))(e, &t1, buf + e->L.off[6], nvars, SP(fill_array), eb, st)) ||
        (err = SPX(G16_CAT(G2, _emit))(e, &t2, buf + e->L.off[7], nvars, SP(fill_array), eb, st)))
        goto done;
    free(eb);
    eb = NULL;

    /* H_j = L^{2n}_{2j+1}(tau) / delta = (tau^{2n} - 1)/(2n) z_j/(tau - z_j) / delta,
     * z_j = g omega^j: the odd points of the 2n-domain (docs/groth16.md). */
    {
        SP(lag_job) hj = {.x0 = g, .omega = omega, .tau = *tau};
        FRN(sqr)(&hj.c, &tn);
        FRN(sub)(&hj.c, &hj.c, &one);
        FRN(mul)(&hj.c, &hj.c, &ninv);
        FRN(from_u64)(&t, 2);
        FRN(inv)(&t, &t);
        FRN(mul)(&hj.c, &hj.c, &t);
        FRN(mul)(&hj.c, &hj.c, &delta_inv);
        if ((err = SPX(G16_CAT(G1, _emit))(e, &t1, buf + e->L.off[9], n, SP(fill_h), &hj, st)))
            goto done;
        if (hj.failed) {
            err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
            goto done;
        }
        if (hj.zero_den) {
            err = g16_fail(st, G16_ERR_INTERNAL, "setup: tau hit a root of unity; use another seed");
            goto done;
        }
    }
    e->info->points_ms = g16_now_ms() - t1ms;
    g16_progress_end(&e->prog);

    /* Section 10: the circuit hash (snarkjs_init: snarkjs zkey new's csHash;
     * else zeros) and no contributions. */
    {
        uint8_t hash[64] = {0};
        if (sj)
            g16_progress_stage(&e->prog, "hash", 1);
        if (sj && (err = SP(circuit_hash)(e, &t1, &vk, tau, &tn, npub, nvars, n, hash, st)))
            goto done;
        if (sj)
            g16_progress_end(&e->prog);
        memcpy(buf + e->L.off[10], hash, 64);
        put32(buf + e->L.off[10] + 64, 0);
    }
done:
    g16_wipe(tw, sizeof tw);
    g16_wipe(&gamma_inv, sizeof gamma_inv);
    g16_wipe(&delta_inv, sizeof delta_inv);
    free(lag);
    free(ea);
    free(eb);
    free(ec);
    free(t1.t);
    free(t2.t);
    return err;
}

#undef SP
#undef SPX
#undef FR
#undef FRN
#undef FP
#undef FPN
#undef NTTN
#undef G1
#undef G2
#undef G1A
#undef G2A
#undef G1N
#undef G2N
#undef BN254_FR_CURVE_ID
#undef BLS381_FR_CURVE_ID
