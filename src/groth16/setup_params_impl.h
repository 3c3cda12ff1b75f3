/* INSECURE test-only setup of a bellperson (Filecoin) key: the .params and
 * .vk files (layout: params.h) for a BLS12-381 R1CS, computed the way
 * bellperson's generator does. Included by setup.c after the BLS12-381
 * instance of setup_impl.h, whose fixed-base tables, emitters, Lagrange
 * basis and column sums it uses.
 *
 * Variables: the inputs are wires 0 .. nPubOut+nPubIn (wire 0 = one), the
 * aux variables the remaining wires in wire order. Rows: the circuit's
 * constraints in order, then one row per input i with A = Input(i), B = C = 0.
 * Domain: n = the smallest power of two >= rows, omega_b = bellperson's root
 * 7^((r-1)/2^32) squared down to order n (not snarkjs's root). With L_j the
 * Lagrange basis of <omega_b> at tau and, for each variable v,
 *   at_v = sum_j A_j[v] L_j(tau), bt_v and ct_v likewise,
 * the key is
 *   vk: [alpha]1, [beta]1, [beta]2, [gamma]2, [delta]1, [delta]2,
 *   ic[i] = [(beta at_i + alpha bt_i + ct_i)/gamma]1       inputs i
 *   h[i]  = [tau^i (tau^n - 1)/delta]1                       i < n - 1
 *   l[v]  = [(beta at_v + alpha bt_v + ct_v)/delta]1       aux v
 *   a     = [at]1 for every input, then for the aux in A
 *   b_g1, b_g2 = [bt]1, [bt]2 for the inputs in B, then the aux in B.
 * "In A" means named by a term of some A row, whatever its coefficient: the
 * structural density that bellperson's prover and g16_assignment_from_r1cs
 * build, so key and partitions agree. bellperson's generator drops the
 * points at infinity instead, the same set unless at_v is zero (a variable
 * whose only terms have coefficient zero, or a vanishing at tau of
 * probability about 1/r); such a variable keeps its point, the point at
 * infinity, which the prover's sums are right with. */

/* The names the BLS12-381 instance of setup_impl.h gave its helpers. */
#define PS_G1T setup_bls381_bls381_g1_table
#define PS_G2T setup_bls381_bls381_g2_table

/* bellperson's primitive 2^log_n-th root of unity: 7^((r-1)/2^32), squared
 * 32 - log_n times. (r - 1) / 2^32 is r's limbs shifted right by 32, since
 * the low 32 bits of r - 1 are zero (2-adicity 32). */
static void params_omega(bls381_fr *w, unsigned log_n) {
    static const limb_t r[4] = BLS381_FR_P;
    limb_t e[4];
    for (int i = 0; i < 4; i++)
        e[i] = (r[i] >> 32) | (i < 3 ? r[i + 1] << 32 : 0);
    bls381_fr seven;
    bls381_fr_from_u64(&seven, 7);
    bls381_fr_pow(w, &seven, e, 4);
    for (unsigned k = log_n; k < 32; k++)
        bls381_fr_sqr(w, w);
}

/* Encodes m Montgomery affine points (our layout) into the zcash
 * uncompressed form at out. */
static void params_encode_g1(uint8_t *out, const bls381_g1_affine *p, size_t m) {
    for (size_t i = 0; i < m; i++)
        bls381_g1_to_zcash(out + i * G16_PARAMS_G1_SIZE, G16_PARAMS_G1_SIZE, &p[i]);
}
static void params_encode_g2(uint8_t *out, const bls381_g2_affine *p, size_t m) {
    for (size_t i = 0; i < m; i++)
        bls381_g2_to_zcash(out + i * G16_PARAMS_G2_SIZE, G16_PARAMS_G2_SIZE, &p[i]);
}

static uint8_t *params_put_count(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
    return p + 4;
}

/* Points per emit-and-encode block: 2^20 (96 MiB of G1 staging, 192 MiB of
 * G2; less for smaller keys) keeps 256 pool tasks of FB_CHUNK per block. */
#define PARAMS_BLOCK ((size_t)1 << 20)

/* cnt points k_i B (scalars from vals, or for h from fill_hh blocks) into
 * out in zcash form, PARAMS_BLOCK at a time through tmp. */
static g16_err params_emit_g1(setup_env *e, const PS_G1T *t1, uint8_t *out, const bls381_fr *vals,
                              const setup_bls381_hh_job *hh, size_t cnt, bls381_g1_affine *tmp, g16_status *st) {
    for (size_t lo = 0; lo < cnt; lo += PARAMS_BLOCK) {
        size_t m = cnt - lo < PARAMS_BLOCK ? cnt - lo : PARAMS_BLOCK;
        g16_err err;
        if (vals) {
            err = setup_bls381_bls381_g1_emit(e, t1, (uint8_t *)tmp, m, setup_bls381_fill_array,
                                              (void *)(vals + lo), st);
        } else {
            /* fill_hh counts from 0: shift by tau^lo. */
            setup_bls381_hh_job sh = *hh;
            bls381_fr tl;
            setup_bls381_pow_u64(&tl, &hh->tau, lo);
            bls381_fr_mul(&sh.zn, &hh->zn, &tl);
            err = setup_bls381_bls381_g1_emit(e, t1, (uint8_t *)tmp, m, setup_bls381_fill_hh, &sh, st);
        }
        if (err)
            return err;
        params_encode_g1(out + lo * G16_PARAMS_G1_SIZE, tmp, m);
    }
    return G16_OK;
}

static g16_err params_emit_g2(setup_env *e, const PS_G2T *t2, uint8_t *out, const bls381_fr *vals, size_t cnt,
                              bls381_g2_affine *tmp, g16_status *st) {
    for (size_t lo = 0; lo < cnt; lo += PARAMS_BLOCK) {
        size_t m = cnt - lo < PARAMS_BLOCK ? cnt - lo : PARAMS_BLOCK;
        g16_err err = setup_bls381_bls381_g2_emit(e, t2, (uint8_t *)tmp, m, setup_bls381_fill_array,
                                                  (void *)(vals + lo), st);
        if (err)
            return err;
        params_encode_g2(out + lo * G16_PARAMS_G2_SIZE, tmp, m);
    }
    return G16_OK;
}

/* Marks in[w] for every wire named by a term of matrix m. */
static void params_presence(const g16_r1cs *cs, int m, uint8_t *in) {
    const g16_r1cs_matrix *mat = &cs->m[m];
    for (uint64_t e = 0; e < cs->nnz[m]; e++)
        in[mat->wire[e]] = 1;
}

/* Writes the key into buf (exactly the size the counts give). Frees *lag
 * (the Lagrange basis) once the column sums are made, and the per-variable
 * evaluations once the point scalars are, to lower the peak memory. */
static g16_err params_build(setup_env *e, const g16_r1cs *cs, const bls381_fr tw[5], uint8_t *buf, size_t total,
                            const uint32_t cnt[G16_PARAMS_NARRAYS], const uint8_t *in_a, const uint8_t *in_b,
                            bls381_fr **lag, unsigned log_n, g16_status *st) {
    const uint32_t ninp = cs->nPubOut + cs->nPubIn + 1, nvars = cs->nWires, naux = nvars - ninp;
    const bls381_fr *const tau = &tw[0], *const alpha = &tw[1], *const beta = &tw[2], *const gamma = &tw[3],
                           *const delta = &tw[4];
    g16_err err = G16_OK;
    bls381_fr *ea = calloc(nvars, sizeof *ea), *eb = calloc(nvars, sizeof *eb), *ec = calloc(nvars, sizeof *ec);
    bls381_fr *va = malloc(((size_t)cnt[G16_PARAMS_A] + 1) * sizeof *va);
    bls381_fr *vb = malloc(((size_t)cnt[G16_PARAMS_B_G1] + 1) * sizeof *vb);
    size_t most = 1; /* the largest array: the staging size */
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++)
        most = cnt[a] > most ? cnt[a] : most;
    most = most < PARAMS_BLOCK ? most : PARAMS_BLOCK;
    bls381_g1_affine *tmp1 = malloc(most * sizeof *tmp1);
    bls381_g2_affine *tmp2 = malloc((cnt[G16_PARAMS_B_G2] < most ? cnt[G16_PARAMS_B_G2] + 1 : most) * sizeof *tmp2);
    PS_G1T t1 = {0};
    PS_G2T t2 = {0};
    bls381_fr gamma_inv, delta_inv, one;
    if (!ea || !eb || !ec || !va || !vb || !tmp1 || !tmp2) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for %u variables", nvars);
        goto done;
    }
    bls381_fr_set_one(&one);
    bls381_fr_inv(&gamma_inv, gamma);
    bls381_fr_inv(&delta_inv, delta);

    /* Column sums, then the input rows A = Input(i). */
    {
        setup_bls381_col_job cj = {cs, *lag, {ea, eb, ec}};
        g16_pool_run(e->ctx->pool, 3, setup_bls381_col_task, &cj);
    }
    for (uint32_t i = 0; i < ninp; i++)
        bls381_fr_add(&ea[i], &ea[i], &(*lag)[cs->nConstraints + i]);
    free(*lag);
    *lag = NULL;

    /* The a and b values of the variables present, in variable order. */
    size_t na = 0, nb = 0;
    for (uint32_t v = 0; v < nvars; v++) {
        if (v < ninp || in_a[v])
            va[na++] = ea[v];
        if (in_b[v])
            vb[nb++] = eb[v];
    }

    /* ext_v = (beta at + alpha bt + ct) / (gamma for inputs, delta for aux), into ec. */
    {
        setup_bls381_comb_job cj = {ea, eb, ec, *alpha, *beta, gamma_inv, delta_inv, ninp - 1, nvars};
        g16_pool_run(e->ctx->pool, ((size_t)nvars + FB_CHUNK - 1) / FB_CHUNK, setup_bls381_comb_task, &cj);
    }
    free(ea);
    free(eb);
    ea = eb = NULL;

    bls381_g1_affine gen1;
    bls381_g2_affine gen2;
    bls381_g1_generator(&gen1);
    bls381_g2_generator(&gen2);
    if (setup_bls381_bls381_g1_table_build(&t1, &gen1) || setup_bls381_bls381_g2_table_build(&t2, &gen2)) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for tables");
        goto done;
    }
    setup_bls381_vk vk;
    setup_bls381_vk_points(&vk, &t1, &t2, alpha, beta, gamma, delta);

    uint8_t *p = buf;
    bls381_g1_to_zcash(p, 96, &vk.alpha1), p += 96;
    bls381_g1_to_zcash(p, 96, &vk.beta1), p += 96;
    bls381_g2_to_zcash(p, 192, &vk.beta2), p += 192;
    bls381_g2_to_zcash(p, 192, &vk.gamma2), p += 192;
    bls381_g1_to_zcash(p, 96, &vk.delta1), p += 96;
    bls381_g2_to_zcash(p, 192, &vk.delta2), p += 192;

    double tp = g16_now_ms();
    /* ic */
    p = params_put_count(p, cnt[G16_PARAMS_IC]);
    if ((err = params_emit_g1(e, &t1, p, ec, NULL, ninp, tmp1, st)))
        goto done;
    p += (size_t)ninp * G16_PARAMS_G1_SIZE;
    /* h: tau^i (tau^n - 1) / delta, i < n - 1 */
    p = params_put_count(p, cnt[G16_PARAMS_H]);
    {
        setup_bls381_hh_job hh = {.tau = *tau};
        bls381_fr tn = *tau;
        for (unsigned i = 0; i < log_n; i++)
            bls381_fr_sqr(&tn, &tn);
        bls381_fr_sub(&hh.zn, &tn, &one);
        bls381_fr_mul(&hh.zn, &hh.zn, &delta_inv);
        if ((err = params_emit_g1(e, &t1, p, NULL, &hh, cnt[G16_PARAMS_H], tmp1, st)))
            goto done;
        g16_wipe(&hh, sizeof hh);
    }
    p += (size_t)cnt[G16_PARAMS_H] * G16_PARAMS_G1_SIZE;
    /* l */
    p = params_put_count(p, naux);
    if ((err = params_emit_g1(e, &t1, p, ec + ninp, NULL, naux, tmp1, st)))
        goto done;
    p += (size_t)naux * G16_PARAMS_G1_SIZE;
    /* a, b_g1, b_g2 */
    p = params_put_count(p, (uint32_t)na);
    if ((err = params_emit_g1(e, &t1, p, va, NULL, na, tmp1, st)))
        goto done;
    p += na * G16_PARAMS_G1_SIZE;
    p = params_put_count(p, (uint32_t)nb);
    if ((err = params_emit_g1(e, &t1, p, vb, NULL, nb, tmp1, st)))
        goto done;
    p += nb * G16_PARAMS_G1_SIZE;
    p = params_put_count(p, (uint32_t)nb);
    if ((err = params_emit_g2(e, &t2, p, vb, nb, tmp2, st)))
        goto done;
    p += nb * G16_PARAMS_G2_SIZE;
    e->info->points_ms = g16_now_ms() - tp;
    if ((size_t)(p - buf) != total)
        err = g16_fail(st, G16_ERR_INTERNAL, "setup: wrote %zu bytes of a %zu-byte key", (size_t)(p - buf), total);
done:
    g16_wipe(&gamma_inv, sizeof gamma_inv);
    g16_wipe(&delta_inv, sizeof delta_inv);
    free(ea);
    free(eb);
    free(ec);
    free(va);
    free(vb);
    free(tmp1);
    free(tmp2);
    free(t1.t);
    free(t2.t);
    return err;
}

/* Writes vk_len bytes of buf (the vk and ic) to vk_path and commits both
 * files (the .params mapped in af) only when both are complete; releases af
 * either way. */
static g16_err params_commit(g16_atomic_file *af, const char *vk_path, const uint8_t *buf, size_t vk_len,
                             g16_status *st) {
    g16_atomic_file vf = {.fd = -1};
    g16_err err;
    if ((err = g16_atomic_begin(&vf, vk_path, st))) {
        g16_atomic_abort(af);
        return err;
    }
    size_t off = 0;
    while (off < vk_len) {
        ssize_t w = write(vf.fd, buf + off, vk_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = g16_fail(st, G16_ERR_IO, "setup: writing %s: %s", vk_path, strerror(errno));
            g16_atomic_abort(&vf);
            g16_atomic_abort(af);
            return err;
        }
        off += (size_t)w;
    }
    if ((err = g16_atomic_finish(&vf, st)) || (err = g16_atomic_finish(af, st))) {
        g16_atomic_abort(&vf);
        g16_atomic_abort(af);
        return err;
    }
    if ((err = g16_atomic_commit(af, st))) {
        g16_atomic_abort(&vf);
        return err;
    }
    return g16_atomic_commit(&vf, st);
}

g16_err groth16_setup_params_insecure(g16_ctx *ctx, const g16_r1cs *cs, const groth16_setup_opts *o,
                                      const char *params_path, const char *vk_path, groth16_setup_info *info,
                                      g16_status *st) {
    groth16_setup_info tmp_info;
    if (!info)
        info = &tmp_info;
    memset(info, 0, sizeof *info);
    if (!ctx || !cs || !o || !params_path || !vk_path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "setup: NULL argument");
    if (cs->curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "setup: a bellperson .params key is BLS12-381; the circuit is %s",
                        g16_curve_name(cs->curve));
    if ((uint64_t)cs->nPubOut + cs->nPubIn + 1 > cs->nWires)
        return g16_fail(st, G16_ERR_FORMAT, "setup: more public signals than wires");
    const uint32_t ninp = cs->nPubOut + cs->nPubIn + 1, nvars = cs->nWires;
    const uint64_t rows = (uint64_t)cs->nConstraints + ninp;
    unsigned log_n = 0;
    while (((uint64_t)1 << log_n) < rows)
        log_n++;
    if (log_n >= 32) /* bellperson's domains stop below 2^32 */
        return g16_fail(st, G16_ERR_UNSUPPORTED, "setup: %llu rows exceed bellperson's largest domain (2^31)",
                        (unsigned long long)rows);
    const uint64_t n = (uint64_t)1 << log_n;

    g16_err err = G16_OK;
    uint8_t *in_a = calloc(nvars, 1), *in_b = calloc(nvars, 1);
    bls381_fr *lag = malloc((size_t)n * sizeof *lag);
    bls381_fr tw[5];
    setup_env e = {.ctx = ctx, .o = o, .info = info};
    g16_atomic_file af = {.fd = -1};
    int have_file = 0;
    void *map = MAP_FAILED;
    size_t total = 0;
    if (!in_a || !in_b || !lag) {
        err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory for a domain of %llu", (unsigned long long)n);
        goto done;
    }

    /* Toxic waste: tau, alpha, beta, gamma, delta, given or from the seed. */
    if (setup_bls381_toxic_from(o, tw) != 0) {
        err = g16_fail(st, G16_ERR_INVALID_ARG, "setup: a toxic value is zero or not below r");
        goto done;
    }

    /* Counts, hence the file's size, before anything is computed. */
    params_presence(cs, 0, in_a);
    params_presence(cs, 1, in_b);
    uint32_t cnt[G16_PARAMS_NARRAYS];
    cnt[G16_PARAMS_IC] = ninp;
    cnt[G16_PARAMS_H] = (uint32_t)(n - 1);
    cnt[G16_PARAMS_L] = nvars - ninp;
    cnt[G16_PARAMS_A] = ninp;
    cnt[G16_PARAMS_B_G1] = 0;
    for (uint32_t v = 0; v < nvars; v++) {
        cnt[G16_PARAMS_A] += v >= ninp && in_a[v];
        cnt[G16_PARAMS_B_G1] += in_b[v];
    }
    cnt[G16_PARAMS_B_G2] = cnt[G16_PARAMS_B_G1];
    const size_t vk_len = G16_PARAMS_VK_POINTS_SIZE + 4 + (size_t)ninp * G16_PARAMS_G1_SIZE;
    total = vk_len;
    for (int a = G16_PARAMS_H; a < G16_PARAMS_NARRAYS; a++)
        total += 4 + (size_t)cnt[a] * (a == G16_PARAMS_B_G2 ? G16_PARAMS_G2_SIZE : G16_PARAMS_G1_SIZE);
    info->key_bytes = total;

    /* The GPU, when asked for or (auto) when one is present. */
    if (o->backend != GROTH16_SETUP_CPU) {
        if (g16_gpu_count() > 0) {
            err = g16_gpu_create(&e.gpu, 0, 1, 1, g16_ctx_config(ctx), st);
            if (err && o->backend == GROTH16_SETUP_CUDA)
                goto done;
            if (err)
                e.gpu = NULL;
            err = G16_OK;
        } else if (o->backend == GROTH16_SETUP_CUDA) {
            err = g16_fail(st, G16_ERR_NO_DEVICE, "setup: --backend cuda but no CUDA device");
            goto done;
        }
    }
    info->used_gpu = e.gpu != NULL;

    /* L_j(tau) = (tau^n - 1)/n * omega^j / (tau - omega^j), j < n. */
    double t0 = g16_now_ms();
    {
        bls381_fr one, ninv, tn;
        bls381_fr_set_one(&one);
        setup_bls381_lag_job lj = {.x0 = one, .tau = tw[0], .out = lag};
        params_omega(&lj.omega, log_n);
        tn = tw[0];
        for (unsigned i = 0; i < log_n; i++)
            bls381_fr_sqr(&tn, &tn);
        bls381_fr_from_u64(&ninv, n);
        bls381_fr_inv(&ninv, &ninv);
        bls381_fr_sub(&lj.c, &tn, &one);
        bls381_fr_mul(&lj.c, &lj.c, &ninv);
        if (n < FB_CHUNK) {
            if (setup_bls381_lag_range(&lj, lag, 0, n) != 0)
                lj.failed = 1;
        } else {
            g16_pool_run(ctx->pool, (size_t)n / FB_CHUNK, setup_bls381_lag_task, &lj);
        }
        int failed = lj.failed, zero_den = lj.zero_den;
        g16_wipe(&lj, sizeof lj);
        g16_wipe(&tn, sizeof tn);
        if (failed) {
            err = g16_fail(st, G16_ERR_NOMEM, "setup: out of memory");
            goto done;
        }
        if (zero_den) {
            err = g16_fail(st, G16_ERR_INVALID_ARG, "setup: tau is a root of unity of the domain; use another seed");
            goto done;
        }
    }
    info->lagrange_ms = g16_now_ms() - t0;

    /* The .params goes to a temporary file beside params_path with its space
     * reserved, and is renamed into place (with the .vk) only when complete. */
    if ((err = g16_atomic_begin(&af, params_path, st)))
        goto done;
    have_file = 1;
    if ((err = g16_atomic_reserve(&af, total, st)))
        goto done;
    map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, af.fd, 0);
    if (map == MAP_FAILED) {
        err = g16_fail(st, G16_ERR_IO, "setup: cannot map %zu bytes for the key: %s", total, strerror(errno));
        goto done;
    }
    if ((err = params_build(&e, cs, tw, map, total, cnt, in_a, in_b, &lag, log_n, st)))
        goto done;
    if (msync(map, total, MS_SYNC) != 0) {
        err = g16_fail(st, G16_ERR_IO, "setup: writing %s: %s", params_path, strerror(errno));
        goto done;
    }
    err = params_commit(&af, vk_path, map, vk_len, st); /* af is released either way */
    info->total_ms = g16_now_ms() - t0;
done:
    if (map != MAP_FAILED)
        munmap(map, total);
    if (have_file)
        g16_atomic_abort(&af);
    g16_wipe(tw, sizeof tw);
    g16_gpu_destroy(e.gpu);
    free(in_a);
    free(in_b);
    free(lag);
    return err;
}

#undef PS_G1T
#undef PS_G2T
#undef PARAMS_BLOCK
