/* Template: the Groth16 prover and verifier for one curve, snarkjs-compatible.
 * Macros: CV (curve prefix: bn254 | bls381). See docs/groth16.md.
 *
 * Proof (ecosystem.md; Groth 2016 with snarkjs's H layout):
 *   A_T[c] = sum_{(0,c,s,v)} v*w_s,  B_T likewise (matrix 1),  C_T = A_T*B_T
 *   X_odd  = X on the odd coset g*omega^i (g = primitive 2n-th root), X in {A,B,C}
 *   h_i    = A_odd[i]*B_odd[i] - C_odd[i]   (the key's H points absorb 1/Z)
 *   piA = alpha1 + sum w_i A_i + r delta1
 *   piB = beta2  + sum w_i B2_i + s delta2,   B1 = beta1 + sum w_i B1_i + s delta1
 *   piC = sum_{i>nPub} w_i C_i + sum h_i H_i + s piA + r B1 - r s delta1 */

#define PN(name) G16_CAT(G16_CAT(groth16_, CV), _##name)
#define FR G16_CAT(CV, _fr)
#define FRN(name) G16_CAT(FR, _##name)
#define G1 G16_CAT(CV, _g1)
#define G2 G16_CAT(CV, _g2)
#define G1N(name) G16_CAT(G1, _##name)
#define G2N(name) G16_CAT(G2, _##name)
#define G1A G16_CAT(G1, _affine)
#define G2A G16_CAT(G2, _affine)
#define G1J G16_CAT(G1, _jac)
#define G2J G16_CAT(G2, _jac)
#define KEYPART(key) ((key)->CV)

/* ---- synthesis: A_T and B_T from the prepared coefficient rows ---------- */
typedef struct PN(synth_job) {
    const groth16_prep *prep;
    const FR *w;
    FR *a, *b, *c;
    uint32_t n, chunk;
} PN(synth_job);

static void PN(synth_task)(void *arg, size_t task) {
    const PN(synth_job) *j = arg;
    uint32_t lo = (uint32_t)task * j->chunk, hi = lo + j->chunk;
    if (hi > j->n)
        hi = j->n;
    const FR *coef = (const FR *)j->prep->coef;
    for (uint32_t row = lo; row < hi; row++) {
        FR acc, t;
        FRN(set_zero)(&acc);
        for (uint32_t e = j->prep->row[0][row]; e < j->prep->row[0][row + 1]; e++) {
            FRN(mul)(&t, &coef[e], &j->w[j->prep->signal[e]]);
            FRN(add)(&acc, &acc, &t);
        }
        j->a[row] = acc;
        FRN(set_zero)(&acc);
        for (uint32_t e = j->prep->row[1][row]; e < j->prep->row[1][row + 1]; e++) {
            FRN(mul)(&t, &coef[e], &j->w[j->prep->signal[e]]);
            FRN(add)(&acc, &acc, &t);
        }
        j->b[row] = acc;
        FRN(mul)(&j->c[row], &j->a[row], &acc);
    }
}

/* h[i] = a[i] b[i] - c[i], converted to canonical scalars. */
typedef struct PN(h_job) {
    FR *a, *b, *c;
    g16_scalar *h;
    uint32_t n, chunk;
} PN(h_job);

/* With AVX-512 IFMA the two products (a b, and the product by the integer 1
 * that leaves Montgomery form) go through <fr>_mul_batch, PN_H_BATCH at a
 * time: the same exact products as the loop below, so the same bits. */
#ifndef PN_H_BATCH
#define PN_H_BATCH 24 /* the IFMA kernel's 3 interleaved groups of 8 */
#endif
static void PN(h_task)(void *arg, size_t task) {
    const PN(h_job) *j = arg;
    uint64_t lo = (uint64_t)task * j->chunk, hi = lo + j->chunk;
    if (hi > j->n)
        hi = j->n;
    if (g16_field_ifma_active() && lo < hi) {
        FR t[PN_H_BATCH], one[PN_H_BATCH];
        for (int k = 0; k < PN_H_BATCH; k++)
            one[k] = (FR){{1}};
        for (uint64_t i = lo; i < hi; i += PN_H_BATCH) {
            size_t L = hi - i < PN_H_BATCH ? (size_t)(hi - i) : PN_H_BATCH;
            FRN(mul_batch)(t, &j->a[i], &j->b[i], L);
            for (size_t k = 0; k < L; k++)
                FRN(sub)(&t[k], &t[k], &j->c[i + k]);
            FRN(mul_batch)(t, t, one, L);
            for (size_t k = 0; k < L; k++)
                memcpy(j->h[i + k].l, t[k].l, sizeof t[k].l);
        }
        g16_wipe(t, sizeof t);
        return;
    }
    for (uint64_t i = lo; i < hi; i++) {
        FR t;
        FRN(mul)(&t, &j->a[i], &j->b[i]);
        FRN(sub)(&t, &t, &j->c[i]);
        FRN(from_mont)(j->h[i].l, &t);
    }
}

/* ws[i] = w[i] as a canonical scalar (the MSMs' input). */
typedef struct PN(ws_job) {
    const FR *w;
    g16_scalar *ws;
    uint32_t n, chunk;
} PN(ws_job);

static void PN(ws_task)(void *arg, size_t task) {
    const PN(ws_job) *j = arg;
    uint64_t lo = (uint64_t)task * j->chunk, hi = lo + j->chunk;
    for (uint64_t i = lo; i < hi && i < j->n; i++)
        FRN(from_mont)(j->ws[i].l, &j->w[i]);
}

static void PN(fr_to_scalar)(g16_scalar *s, const FR *a) { FRN(from_mont)(s->l, a); }

static uint32_t PN(chunk)(g16_ctx *ctx, uint32_t n, size_t *ntasks) {
    size_t t = (size_t)g16_ctx_threads(ctx) * 8;
    uint32_t chunk = (uint32_t)((n + t - 1) / t);
    if (chunk < 1024)
        chunk = 1024;
    *ntasks = (n + chunk - 1) / chunk;
    return chunk;
}

/* Stage 1, synthesis: a = A.w, b = B.w, c = a*b on the domain (unless
 * ws_only: the GPU computes them from ws, src/gpu/synth/synth.cuh), and the
 * witness as canonical scalars (ws). Afterwards the witness itself is no
 * longer needed. w: nVars Fr values (Montgomery), w[0] = 1. */
static void PN(synth)(g16_ctx *ctx, const g16_zkey *key, const groth16_prep *prep, const FR *w,
                      groth16_scratch *scr, int ws_only) {
    size_t nt;
    if (!ws_only) {
        PN(synth_job) sj = {prep, w, scr->fr[0], scr->fr[1], scr->fr[2], key->domainSize, 0};
        sj.chunk = PN(chunk)(ctx, key->domainSize, &nt);
        g16_pool_run(ctx->pool, nt, PN(synth_task), &sj);
    }
    PN(ws_job) wj = {w, scr->scalars[1], key->nVars, 0};
    wj.chunk = PN(chunk)(ctx, key->nVars, &nt);
    g16_pool_run(ctx->pool, nt, PN(ws_task), &wj);
}

/* ws-only synthesis from a witness kept in standard form (G16_WTNS_STANDARD:
 * checked canonical at load): ws is the witness itself, copied by the
 * pool, and only the public values become Montgomery Fr (pub, npub of
 * them, from ws[1]). Skips the conversion to Montgomery form at load and
 * back to scalars here, per wire. */
typedef struct PN(copy_job) {
    const g16_scalar *src;
    g16_scalar *dst;
    uint32_t n, chunk;
} PN(copy_job);

static void PN(copy_task)(void *arg, size_t task) {
    const PN(copy_job) *j = arg;
    uint64_t lo = (uint64_t)task * j->chunk, hi = lo + j->chunk;
    if (hi > j->n)
        hi = j->n;
    if (lo < hi)
        memcpy(j->dst + lo, j->src + lo, (size_t)(hi - lo) * sizeof *j->dst);
}

static void PN(synth_ws_standard)(g16_ctx *ctx, const g16_zkey *key, const g16_scalar *ws, groth16_scratch *scr,
                                  FR *pub, uint32_t npub) {
    size_t nt;
    PN(copy_job) cj = {ws, scr->scalars[1], key->nVars, 0};
    cj.chunk = PN(chunk)(ctx, key->nVars, &nt);
    g16_pool_run(ctx->pool, nt, PN(copy_task), &cj);
    for (uint32_t i = 0; i < npub; i++)
        FRN(to_mont)(&pub[i], ws[1 + i].l);
}

/* w[i] = ws[i] in Montgomery form again (ws canonical, < r). */
typedef struct PN(mont_job) {
    const g16_scalar *ws;
    FR *w;
    uint32_t n, chunk;
} PN(mont_job);

static void PN(mont_task)(void *arg, size_t task) {
    const PN(mont_job) *j = arg;
    uint64_t lo = (uint64_t)task * j->chunk, hi = lo + j->chunk;
    for (uint64_t i = lo; i < hi && i < j->n; i++)
        FRN(to_mont)(&j->w[i], j->ws[i].l);
}

/* Completes a ws-only synthesis on the CPU (a fallback when the GPU that
 * was to compute a, b, c cannot): a, b, c from the scalars ws, through tmp
 * (nVars Fr), which is wiped. */
static void PN(synth_from_ws)(g16_ctx *ctx, const g16_zkey *key, const groth16_prep *prep, groth16_scratch *scr,
                              FR *tmp) {
    size_t nt;
    PN(mont_job) mj = {scr->scalars[1], tmp, key->nVars, 0};
    mj.chunk = PN(chunk)(ctx, key->nVars, &nt);
    g16_pool_run(ctx->pool, nt, PN(mont_task), &mj);
    PN(synth_job) sj = {prep, tmp, scr->fr[0], scr->fr[1], scr->fr[2], key->domainSize, 0};
    sj.chunk = PN(chunk)(ctx, key->domainSize, &nt);
    g16_pool_run(ctx->pool, nt, PN(synth_task), &sj);
    g16_wipe(tmp, (size_t)key->nVars * sizeof(FR));
}

/* Stage 2, the heavy ("device") stage: the three odd-coset NTTs, h, and the
 * five MSMs, into m. Wipes the scalar copy of the witness when done. */
static g16_err PN(heavy)(g16_ctx *ctx, groth16_msms *m, const g16_zkey *key, groth16_scratch *scr,
                         groth16_timings *tm, g16_status *st) {
    const uint32_t n = key->domainSize, nv = key->nVars, npub = key->nPublic;
    const unsigned log_n = key->log2_domain;
    double t0 = g16_now_ms(), t;
    FR *a = scr->fr[0], *b = scr->fr[1], *c = scr->fr[2];
    g16_scalar *hs = scr->scalars[0], *ws = scr->scalars[1];
    g16_err err;
    g16_progress *pg = scr->progress;

    /* "ntt": the three odd-coset transforms, then h (4 units). */
    g16_progress_stage(pg, "ntt", 4);
    if ((err = G16_CAT(G16_CAT(ntt_, FR), _odd_coset_from_evals)(ctx, a, log_n)) ||
        (g16_progress_at(pg, 1), err = G16_CAT(G16_CAT(ntt_, FR), _odd_coset_from_evals)(ctx, b, log_n)) ||
        (g16_progress_at(pg, 2), err = G16_CAT(G16_CAT(ntt_, FR), _odd_coset_from_evals)(ctx, c, log_n))) {
        g16_wipe(ws, (size_t)nv * sizeof(g16_scalar));
        return g16_fail(st, err, "prove: NTT failed: %s", g16_err_str(err));
    }
    g16_progress_at(pg, 3);
    size_t nt;
    PN(h_job) hj = {a, b, c, hs, n, 0};
    hj.chunk = PN(chunk)(ctx, n, &nt);
    g16_pool_run(ctx->pool, nt, PN(h_task), &hj);
    g16_progress_end(pg);
    t = g16_now_ms();
    tm->ntt_ms += t - t0;
    t0 = t;

    /* "msm": the five MSMs in G1-point units (B2 weighted, see the adapters). */
    const uint64_t u_nv = nv, u_c = (uint64_t)nv - npub - 1;
    uint64_t pdone = 0;
    g16_progress_stage(pg, "msm", 2 * u_nv + PROVE_G2_WEIGHT * u_nv + u_c + n);
    m->curve = key->curve;
    if ((err = PN(msm_g1)(ctx, &KEYPART(m).a, KEYPART(key).A, ws, nv, scr, &pdone)) ||
        (pdone += u_nv, err = PN(msm_g1)(ctx, &KEYPART(m).b1, KEYPART(key).B1, ws, nv, scr, &pdone)) ||
        (pdone += u_nv, err = PN(msm_g2)(ctx, &KEYPART(m).b2, KEYPART(key).B2, ws, nv, scr, &pdone)) ||
        (pdone += PROVE_G2_WEIGHT * u_nv,
         err = PN(msm_g1)(ctx, &KEYPART(m).c, KEYPART(key).C, ws + npub + 1, nv - npub - 1, scr, &pdone)) ||
        (pdone += u_c, err = PN(msm_g1)(ctx, &KEYPART(m).h, KEYPART(key).H, hs, n, scr, &pdone))) {
        g16_wipe(ws, (size_t)nv * sizeof(g16_scalar));
        return g16_fail(st, err, "prove: MSM failed: %s", g16_err_str(err));
    }
    g16_progress_end(pg);
    g16_wipe(ws, (size_t)nv * sizeof(g16_scalar));
    tm->msm_ms += g16_now_ms() - t0;
    return G16_OK;
}

/* Stage 3, finalize: assembly with the secret r, s (constant-time scalar
 * multiplications). */
static void PN(finalize)(g16_proof *proof, const g16_zkey *key, const groth16_msms *m, const FR *r,
                         const FR *s) {
    g16_scalar rk, sk, rsk;
    FR rs;
    FRN(mul)(&rs, r, s);
    PN(fr_to_scalar)(&rk, r);
    PN(fr_to_scalar)(&sk, s);
    PN(fr_to_scalar)(&rsk, &rs);
    G1J pa, b1, pc, tj, d1;
    G2J pb, t2;
    G1N(jac_from_affine)(&d1, &KEYPART(key).delta1);
    /* piA = alpha1 + msmA + r delta1 */
    G1N(jac_mul)(&tj, &d1, &rk);
    G1N(jac_add_affine)(&pa, &KEYPART(m).a, &KEYPART(key).alpha1);
    G1N(jac_add)(&pa, &pa, &tj);
    /* B1 = beta1 + msmB1 + s delta1 */
    G1N(jac_mul)(&tj, &d1, &sk);
    G1N(jac_add_affine)(&b1, &KEYPART(m).b1, &KEYPART(key).beta1);
    G1N(jac_add)(&b1, &b1, &tj);
    /* piB = beta2 + msmB2 + s delta2 */
    G2N(jac_from_affine)(&t2, &KEYPART(key).delta2);
    G2N(jac_mul)(&t2, &t2, &sk);
    G2N(jac_add_affine)(&pb, &KEYPART(m).b2, &KEYPART(key).beta2);
    G2N(jac_add)(&pb, &pb, &t2);
    /* piC = msmC + msmH + s piA + r B1 - r s delta1 */
    G1N(jac_add)(&pc, &KEYPART(m).c, &KEYPART(m).h);
    G1N(jac_mul)(&tj, &pa, &sk);
    G1N(jac_add)(&pc, &pc, &tj);
    G1N(jac_mul)(&tj, &b1, &rk);
    G1N(jac_add)(&pc, &pc, &tj);
    G1N(jac_mul)(&tj, &d1, &rsk);
    G1N(jac_neg)(&tj, &tj);
    G1N(jac_add)(&pc, &pc, &tj);
    proof->curve = key->curve;
    G1N(jac_to_affine)(&KEYPART(proof).a, &pa);
    G2N(jac_to_affine)(&KEYPART(proof).b, &pb);
    G1N(jac_to_affine)(&KEYPART(proof).c, &pc);
    g16_wipe(&rk, sizeof rk);
    g16_wipe(&sk, sizeof sk);
    g16_wipe(&rsk, sizeof rsk);
    g16_wipe(&rs, sizeof rs);
    g16_wipe(&b1, sizeof b1);
    g16_wipe(&tj, sizeof tj);
    g16_wipe(&t2, sizeof t2);
}

/* ---- verification -------------------------------------------------------
 * e(-A, B) e(vk_x, gamma2) e(C, delta2) e(alpha1, beta2) == 1 with
 * vk_x = IC_0 + sum_j pub_j IC_{j+1}. Public inputs are canonical Fr (the
 * caller's frvec holds reduced elements). Returns G16_OK, or
 * G16_ERR_INVALID_PROOF. */
static g16_err PN(verify)(const g16_vk *vk, const FR *pub, size_t npub, const g16_proof *proof,
                          g16_status *st) {
    G1J acc, tj;
    G1N(jac_from_affine)(&acc, &KEYPART(vk).IC[0]);
    for (size_t j = 0; j < npub; j++) {
        g16_scalar k;
        PN(fr_to_scalar)(&k, &pub[j]);
        G1N(jac_from_affine)(&tj, &KEYPART(vk).IC[j + 1]);
        G1N(jac_mul_vartime)(&tj, &tj, &k); /* public inputs: variable time is fine */
        G1N(jac_add)(&acc, &acc, &tj);
    }
    G1A p[4];
    G2A q[4];
    G1N(affine_neg)(&p[0], &KEYPART(proof).a);
    q[0] = KEYPART(proof).b;
    G1N(jac_to_affine)(&p[1], &acc);
    q[1] = KEYPART(vk).gamma2;
    p[2] = KEYPART(proof).c;
    q[2] = KEYPART(vk).delta2;
    p[3] = KEYPART(vk).alpha1;
    q[3] = KEYPART(vk).beta2;
    G16_CAT(CV, _fp12) f;
    G16_CAT(CV, _multi_pairing)(&f, p, q, 4);
    if (!G16_CAT(CV, _fp12_is_one)(&f))
        return g16_fail(st, G16_ERR_INVALID_PROOF, "proof does not verify (pairing check failed)");
    return G16_OK;
}

#undef PN
#undef FR
#undef FRN
#undef G1
#undef G2
#undef G1N
#undef G2N
#undef G1A
#undef G2A
#undef G1J
#undef G2J
#undef KEYPART
