/* Template: the insecure test-only Groth16 setup for one curve (CV).
 * See setup.c for the math. Defines groth16_<CV>_setup(). */

#define SP(name) G16_CAT(G16_CAT(setup_, CV), _##name)
#define SPX(x) G16_CAT(G16_CAT(setup_, CV), G16_CAT(_, x))
#define FR G16_CAT(CV, _fr)
#define FRN(name) G16_CAT(FR, _##name)

/* ---- fixed-base scalar multiplication (one template per group) ------------ */
#define FB_GROUP_(G)                                                                                \
    typedef struct SP(G##_table) {                                                                  \
        G##_affine *t; /* FB_WINDOWS x (2^FB_W - 1): t[win][d-1] = d 2^(FB_W win) B */              \
    } SP(G##_table);                                                                                \
                                                                                                    \
    static g16_err SP(G##_table_build)(SP(G##_table) *tb, const G##_affine *base) {                 \
        const size_t per = ((size_t)1 << FB_W) - 1, total = per * FB_WINDOWS;                       \
        G##_jac *j = malloc(total * sizeof *j);                                                     \
        void *scratch = malloc(total * sizeof(j->z));                                               \
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
        const g16_scalar *k;                                                                        \
        G##_affine *out;                                                                            \
        size_t n;                                                                                   \
        int failed;                                                                                 \
    } SP(G##_job);                                                                                  \
                                                                                                    \
    static void SP(G##_task)(void *arg, size_t task) {                                              \
        SP(G##_job) *jb = arg;                                                                      \
        size_t lo = task * FB_CHUNK, hi = lo + FB_CHUNK < jb->n ? lo + FB_CHUNK : jb->n;            \
        G##_jac *j = malloc((hi - lo) * sizeof *j);                                                 \
        void *scratch = malloc((hi - lo) * sizeof(j->z));                                           \
        if (!j || !scratch) {                                                                       \
            jb->failed = 1;                                                                         \
            free(j);                                                                                \
            free(scratch);                                                                          \
            return;                                                                                 \
        }                                                                                           \
        for (size_t i = lo; i < hi; i++)                                                            \
            SP(G##_mul_vartime)(&j[i - lo], jb->tb, &jb->k[i]);                                     \
        G##_jac_batch_to_affine(jb->out + lo, j, hi - lo, scratch);                                 \
        free(j);                                                                                    \
        free(scratch);                                                                              \
    }                                                                                               \
                                                                                                    \
    /* out[i] = k[i] B for i < n, across the pool. */                                               \
    static g16_err SP(G##_batch)(g16_ctx *ctx, G##_affine *out, const SP(G##_table) *tb,            \
                                 const g16_scalar *k, size_t n) {                                   \
        SP(G##_job) jb = {tb, k, out, n, 0};                                                        \
        g16_pool_run(ctx->pool, (n + FB_CHUNK - 1) / FB_CHUNK, SP(G##_task), &jb);                  \
        return jb.failed ? G16_ERR_NOMEM : G16_OK;                                                  \
    }

#define FB_GROUP(G) FB_GROUP_(G)
FB_GROUP(G16_CAT(CV, _g1))
FB_GROUP(G16_CAT(CV, _g2))
#undef FB_GROUP

#define G1 G16_CAT(CV, _g1)
#define G2 G16_CAT(CV, _g2)
#define G1N(name) G16_CAT(G1, _##name)
#define G2N(name) G16_CAT(G2, _##name)

static void SP(write_g1)(binwriter *w, const G16_CAT(G1, _affine) *p, size_t n) {
    uint8_t buf[2 * 48];
    for (size_t i = 0; i < n; i++) {
        G1N(to_zkey)(buf, &p[i]);
        binw_bytes(w, buf, G1N(zkey_size)());
    }
}
static void SP(write_g2)(binwriter *w, const G16_CAT(G2, _affine) *p, size_t n) {
    uint8_t buf[4 * 48];
    for (size_t i = 0; i < n; i++) {
        G2N(to_zkey)(buf, &p[i]);
        binw_bytes(w, buf, G2N(zkey_size)());
    }
}

static g16_err G16_CAT(G16_CAT(groth16_, CV), _setup)(g16_ctx *ctx, const g16_r1cs *cs, const char *out_path,
                                                       uint64_t seed, g16_status *st) {
    static const limb_t q_limbs[] = G16_CAT(SETUP_FP_UP, _P);
    static const limb_t r_limbs[4] = G16_CAT(SETUP_FR_UP, _P);
    const uint32_t npub = cs->nPubOut + cs->nPubIn, nvars = cs->nWires, ncons = cs->nConstraints;
    const uint64_t rows = (uint64_t)ncons + npub + 1;
    unsigned log_n = 0;
    while (((uint64_t)1 << log_n) < rows)
        log_n++;
    if (log_n + 1 > G16_CAT(G16_CAT(ntt_, FR), _max_log)())
        return g16_fail(st, G16_ERR_UNSUPPORTED, "setup: %llu rows exceed the field's 2-adicity",
                        (unsigned long long)rows);
    const uint32_t n = 1u << log_n;
    g16_err err = G16_OK;
    FR *lag = NULL, *den = NULL, *scr = NULL, *ea = NULL, *eb = NULL, *ec = NULL;
    g16_scalar *k = NULL;
    G16_CAT(G1, _affine) *p1 = NULL;
    G16_CAT(G2, _affine) *p2 = NULL;
    SPX(G16_CAT(G1, _table)) t1 = {0};
    SPX(G16_CAT(G2, _table)) t2 = {0};
    binwriter w = {0};
    const size_t big = n > nvars ? n : nvars;

    /* Toxic waste from the seed: whoever knows the seed can forge proofs. */
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    FR tau, alpha, beta, gamma, delta, gamma_inv, delta_inv, one, t, u;
    FR *const toxic[] = {&tau, &alpha, &beta, &gamma, &delta};
    for (size_t i = 0; i < sizeof toxic / sizeof toxic[0]; i++)
        do
            FRN(random)(toxic[i], &rng);
        while (FRN(is_zero)(toxic[i]));
    FRN(inv)(&gamma_inv, &gamma);
    FRN(inv)(&delta_inv, &delta);
    FRN(set_one)(&one);

    lag = malloc((size_t)n * sizeof *lag);
    den = malloc((size_t)n * sizeof *den);
    scr = malloc((size_t)n * sizeof *scr);
    ea = calloc(nvars, sizeof *ea);
    eb = calloc(nvars, sizeof *eb);
    ec = calloc(nvars, sizeof *ec);
    k = malloc(big * sizeof *k);
    p1 = malloc(big * sizeof *p1);
    p2 = malloc((size_t)nvars * sizeof *p2);
    if (!lag || !den || !scr || !ea || !eb || !ec || !k || !p1 || !p2) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for a domain of %u", n);
        goto done;
    }

    /* L_c(tau) = (tau^n - 1)/n * omega^c / (tau - omega^c), c < n. */
    FR omega, g, x, tn, zn, ninv;
    G16_CAT(G16_CAT(ntt_, FR), _root)(&omega, log_n);
    G16_CAT(G16_CAT(ntt_, FR), _root)(&g, log_n + 1);
    tn = tau;
    for (unsigned i = 0; i < log_n; i++)
        FRN(sqr)(&tn, &tn);                /* tau^n */
    FRN(from_u64)(&ninv, n);
    FRN(inv)(&ninv, &ninv);
    FRN(sub)(&zn, &tn, &one);
    FRN(mul)(&zn, &zn, &ninv);             /* (tau^n - 1)/n */
    FRN(set_one)(&x);
    for (uint32_t c = 0; c < n; c++) {
        FRN(sub)(&den[c], &tau, &x);
        lag[c] = x;
        FRN(mul)(&x, &x, &omega);
    }
    FRN(batch_inv)(den, den, n, scr);
    for (uint32_t c = 0; c < n; c++) {
        if (FRN(is_zero)(&den[c])) {
            err = g16_fail(st, G16_ERR_INTERNAL, "setup: tau hit a root of unity; use another seed");
            goto done;
        }
        FRN(mul)(&lag[c], &lag[c], &den[c]);
        FRN(mul)(&lag[c], &lag[c], &zn);
    }

    /* Column sums: a_i = A_i(tau) etc., with snarkjs's extra rows A[ncons+s] = w_s. */
    const g16_r1cs_matrix *mat[3] = {&cs->m[0], &cs->m[1], &cs->m[2]};
    FR *acc[3] = {ea, eb, ec};
    for (int m = 0; m < 3; m++)
        for (uint32_t c = 0; c < ncons; c++)
            for (uint64_t e = mat[m]->row[c]; e < mat[m]->row[c + 1]; e++) {
                FRN(mul)(&t, (const FR *)mat[m]->coef[e], &lag[c]);
                FRN(add)(&acc[m][mat[m]->wire[e]], &acc[m][mat[m]->wire[e]], &t);
            }
    for (uint32_t s = 0; s <= npub; s++)
        FRN(add)(&ea[s], &ea[s], &lag[ncons + s]);

    /* Fixed-base tables for the generators. */
    G16_CAT(G1, _affine) gen1, alpha1, beta1, delta1;
    G16_CAT(G2, _affine) gen2, beta2, gamma2, delta2;
    G1N(generator)(&gen1);
    G2N(generator)(&gen2);
    if (SPX(G16_CAT(G1, _table_build))(&t1, &gen1) || SPX(G16_CAT(G2, _table_build))(&t2, &gen2)) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for tables");
        goto done;
    }
    {
        g16_scalar ks[6];
        G16_CAT(G1, _affine) a1[3];
        G16_CAT(G2, _affine) a2[3];
        FRN(from_mont)(ks[0].l, &alpha);
        FRN(from_mont)(ks[1].l, &beta);
        FRN(from_mont)(ks[2].l, &delta);
        FRN(from_mont)(ks[3].l, &beta);
        FRN(from_mont)(ks[4].l, &gamma);
        FRN(from_mont)(ks[5].l, &delta);
        if (SPX(G16_CAT(G1, _batch))(ctx, a1, &t1, ks, 3) || SPX(G16_CAT(G2, _batch))(ctx, a2, &t2, ks + 3, 3)) {
            err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
            goto done;
        }
        alpha1 = a1[0], beta1 = a1[1], delta1 = a1[2];
        beta2 = a2[0], gamma2 = a2[1], delta2 = a2[2];
    }

    if ((err = binw_open(&w, out_path, "zkey", 1, 10, st)))
        goto done;
    long pos = binw_section_begin(&w, 1); /* protocol */
    binw_u32(&w, 1);
    binw_section_end(&w, pos);
    pos = binw_section_begin(&w, 2);      /* Groth16 header */
    binw_u32(&w, (uint32_t)sizeof q_limbs);
    binw_bytes(&w, q_limbs, sizeof q_limbs);
    binw_u32(&w, 32);
    binw_bytes(&w, r_limbs, 32);
    binw_u32(&w, nvars);
    binw_u32(&w, npub);
    binw_u32(&w, n);
    SP(write_g1)(&w, &alpha1, 1);
    SP(write_g1)(&w, &beta1, 1);
    SP(write_g2)(&w, &beta2, 1);
    SP(write_g2)(&w, &gamma2, 1);
    SP(write_g1)(&w, &delta1, 1);
    SP(write_g2)(&w, &delta2, 1);
    binw_section_end(&w, pos);

    /* IC (public wires, / gamma) and C (private wires, / delta):
     * (beta a_i + alpha b_i + c_i). */
    for (uint32_t i = 0; i < nvars; i++) {
        FRN(mul)(&t, &beta, &ea[i]);
        FRN(mul)(&u, &alpha, &eb[i]);
        FRN(add)(&t, &t, &u);
        FRN(add)(&t, &t, &ec[i]);
        FRN(mul)(&t, &t, i <= npub ? &gamma_inv : &delta_inv);
        FRN(from_mont)(k[i].l, &t);
    }
    if ((err = SPX(G16_CAT(G1, _batch))(ctx, p1, &t1, k, nvars)))
        goto nomem;
    pos = binw_section_begin(&w, 3);
    SP(write_g1)(&w, p1, npub + 1);
    binw_section_end(&w, pos);
    pos = binw_section_begin(&w, 8);
    SP(write_g1)(&w, p1 + npub + 1, nvars - npub - 1);
    binw_section_end(&w, pos);

    /* Coefficients: A and B entries as c R^2 mod r (R = 2^256). */
    pos = binw_section_begin(&w, 4);
    binw_u32(&w, (uint32_t)(cs->nnz[0] + cs->nnz[1] + npub + 1));
    for (uint32_t m = 0; m < 2; m++)
        for (uint32_t c = 0; c < ncons; c++)
            for (uint64_t e = mat[m]->row[c]; e < mat[m]->row[c + 1]; e++) {
                FR v;
                FRN(to_mont)(&v, mat[m]->coef[e]); /* Montgomery limbs of c, times R again */
                binw_u32(&w, m);
                binw_u32(&w, c);
                binw_u32(&w, mat[m]->wire[e]);
                binw_bytes(&w, v.l, 32);
            }
    for (uint32_t s = 0; s <= npub; s++) {
        FR v;
        FRN(to_mont)(&v, one.l);
        binw_u32(&w, 0);
        binw_u32(&w, ncons + s);
        binw_u32(&w, s);
        binw_bytes(&w, v.l, 32);
    }
    binw_section_end(&w, pos);

    /* A, B1, B2 */
    for (uint32_t i = 0; i < nvars; i++)
        FRN(from_mont)(k[i].l, &ea[i]);
    if ((err = SPX(G16_CAT(G1, _batch))(ctx, p1, &t1, k, nvars)))
        goto nomem;
    pos = binw_section_begin(&w, 5);
    SP(write_g1)(&w, p1, nvars);
    binw_section_end(&w, pos);
    for (uint32_t i = 0; i < nvars; i++)
        FRN(from_mont)(k[i].l, &eb[i]);
    if ((err = SPX(G16_CAT(G1, _batch))(ctx, p1, &t1, k, nvars)) ||
        (err = SPX(G16_CAT(G2, _batch))(ctx, p2, &t2, k, nvars)))
        goto nomem;
    pos = binw_section_begin(&w, 6);
    SP(write_g1)(&w, p1, nvars);
    binw_section_end(&w, pos);
    pos = binw_section_begin(&w, 7);
    SP(write_g2)(&w, p2, nvars);
    binw_section_end(&w, pos);

    /* H_j = L^{2n}_{2j+1}(tau) / delta = (tau^{2n} - 1)/(2n) z_j/(tau - z_j) / delta,
     * z_j = g omega^j: the odd points of the 2n-domain (docs/groth16.md). */
    FR z2n;
    FRN(sqr)(&z2n, &tn);
    FRN(sub)(&z2n, &z2n, &one);
    FRN(mul)(&z2n, &z2n, &ninv);
    FRN(from_u64)(&t, 2);
    FRN(inv)(&t, &t);
    FRN(mul)(&z2n, &z2n, &t);
    FRN(mul)(&z2n, &z2n, &delta_inv);
    x = g;
    for (uint32_t j = 0; j < n; j++) {
        FRN(sub)(&den[j], &tau, &x);
        lag[j] = x;
        FRN(mul)(&x, &x, &omega);
    }
    FRN(batch_inv)(den, den, n, scr);
    for (uint32_t j = 0; j < n; j++) {
        FRN(mul)(&t, &lag[j], &den[j]);
        FRN(mul)(&t, &t, &z2n);
        FRN(from_mont)(k[j].l, &t);
    }
    if ((err = SPX(G16_CAT(G1, _batch))(ctx, p1, &t1, k, n)))
        goto nomem;
    pos = binw_section_begin(&w, 9);
    SP(write_g1)(&w, p1, n);
    binw_section_end(&w, pos);

    /* Section 10: MPC parameters with no contributions (a zero circuit hash). */
    pos = binw_section_begin(&w, 10);
    {
        uint8_t hash[64] = {0};
        binw_bytes(&w, hash, sizeof hash);
        binw_u32(&w, 0);
    }
    binw_section_end(&w, pos);
    err = binw_close(&w, st);
    goto done;
nomem:
    err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
done:
    if (w.f)
        binw_close(&w, NULL);
    for (size_t i = 0; i < sizeof toxic / sizeof toxic[0]; i++)
        g16_wipe(toxic[i], sizeof(FR));
    free(lag);
    free(den);
    free(scr);
    free(ea);
    free(eb);
    free(ec);
    free(k);
    free(p1);
    free(p2);
    free(t1.t);
    free(t2.t);
    return err;
}

#undef SP
#undef SPX
#undef FR
#undef FRN
#undef G1
#undef G2
#undef G1N
#undef G2N
