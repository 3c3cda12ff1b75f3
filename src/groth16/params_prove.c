/* Proving pre-synthesized bellperson partitions (g16_prove_assignments,
 * include/g16.h) against a .params key, on the CPU (params_gpu.c: the
 * heavy stage on a GPU).
 *
 * Per partition, with n the key's domain and w the assignment (inputs then
 * aux, Montgomery Fr):
 *   1. checks (assignment.h): counts against the key, bitmaps, values < r;
 *   2. H, bellperson's way: a, b, c are the rows' values at omega_b^j
 *      (j < abc_size, zero above), omega_b = 7^((r-1)/n) (bellperson's
 *      ROOT_OF_UNITY 7^((r-1)/2^32) squared down). g16's NTT uses
 *      omega_g = 5^((r-1)/n) (ntt.h). Both generate the same cyclic group of
 *      order n, so omega_b = omega_g^m for an odd m (computed once per key,
 *      root_exponent below), and the value at omega_b^j is the value at
 *      omega_g^(m j mod n): scattering a[j] to index m j mod n gives the
 *      evaluation vector in g16's order. Then
 *        inverse NTT                 -> coefficients of A(X) (basis-free)
 *        coset NTT, shift g = 7      -> A(g omega^i)      (likewise B, C)
 *        q_i = (A B - C)(g omega^i) / (g^n - 1)   (Z(X) = X^n - 1 is g^n - 1
 *                                                  on the whole coset)
 *        coset inverse NTT            -> coefficients of H(X) = (AB - C)/Z
 *      and h_i (i < n - 1) are the scalars of the key's h points
 *      tau^i Z(tau) / delta. For a satisfying w, AB - C = H Z with deg H <=
 *      n - 2, so the n values on the coset determine H exactly. The forward
 *      coset transform leaves its values bit-reversed and the inverse takes
 *      them so: the pointwise step does not care.
 *   3. MSMs (steps 2 and 3 are the heavy stage, g16_params_heavy_cpu: the
 *      piece a GPU backend replaces):
 *        msm_a  = sum over inputs and A-dense aux of w_v a_v   (key a)
 *        msm_b1 = sum over B-dense inputs and aux of w_v b_v   (key b_g1)
 *        msm_b2 = the same over b_g2
 *        msm_l  = sum over aux of w_v l_v
 *        msm_h  = sum_{i < n-1} h_i H_i
 *   4. finalize (constant time in r, s):
 *        A = alpha_g1 + msm_a + r delta_g1
 *        B = beta_g2 + msm_b2 + s delta_g2,   B1 = beta_g1 + msm_b1 + s delta_g1
 *        C = msm_l + msm_h + s A + r B1 - r s delta_g1
 *   5. verify against the key's vk (g16_params_verify) when asked.
 * The witness-derived buffers (a, b, c copies, h, the scalars) are wiped
 * before they are freed. The MSMs and the value checks are variable time in
 * the witness, as every prover's are (msm.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../msm/msm.h"
#include "../ntt/ntt.h"
#include "../util/ctx.h"
#include "assignment.h"
#include "gpu/gpu.h"
#include "params.h"

struct g16_params_key {
    g16_params p;
    unsigned log_n;
    size_t domain;
    uint32_t root_m; /* omega_b = omega_g^root_m for this domain (odd; 1 when n <= 2) */
};

/* ---- roots ----------------------------------------------------------------
 * m with 7^((r-1)/2^k) = w[k]^m, by the bits of m from the lowest: with the
 * low i bits m_i known, u = 7^((r-1)/2^k) w[k]^(-m_i) has order dividing
 * 2^(k-i), and u^(2^(k-i-1)) is 1 iff bit i of m is 0 (else it is -1). */
uint32_t g16_params_root_exponent(unsigned k) {
    if (k == 0)
        return 0;
    bls381_fr seven, wb, wg, wginv, u, t;
    bls381_fr_from_u64(&seven, 7);
    /* (r - 1) / 2^k: r - 1 shifted right, as limbs */
    static const limb_t rp[4] = BLS381_FR_P;
    limb_t e[4] = {rp[0] - 1, rp[1], rp[2], rp[3]};
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++)
            e[i] = e[i] >> 1 | e[i + 1] << 63;
        e[3] >>= 1;
    }
    bls381_fr_pow(&wb, &seven, e, 4);
    ntt_bls381_fr_root(&wg, k);
    bls381_fr_inv_vartime(&wginv, &wg);
    uint32_t m = 0;
    bls381_fr wpow; /* wginv^(2^i) */
    wpow = wginv;
    u = wb;
    for (unsigned i = 0; i < k; i++) {
        t = u;
        for (unsigned j = 0; j + 1 + i < k; j++)
            bls381_fr_sqr(&t, &t);
        if (!bls381_fr_is_one(&t)) {
            m |= (uint32_t)1 << i;
            bls381_fr_mul(&u, &u, &wpow);
        }
        bls381_fr_sqr(&wpow, &wpow);
    }
    return m;
}

/* ---- key ---------------------------------------------------------------- */
g16_err g16_params_key_load_st(g16_ctx *ctx, g16_params_key **out, const char *path, int subgroup, g16_status *st) {
    if (!ctx || !out || !path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "g16_params_key_load: NULL argument");
    *out = NULL;
    g16_params_key *k = calloc(1, sizeof *k);
    if (!k)
        return g16_fail(st, G16_ERR_NOMEM, "g16_params_key_load: out of memory");
    g16_params_opts o = {.kind = G16_PARAMS_KIND_FULL, .subgroup = subgroup < 0 ? -1 : subgroup != 0};
    g16_err err = g16_params_load(&k->p, path, &o, ctx->pool, st);
    if (err) {
        free(k);
        return err;
    }
    uint64_t n = (uint64_t)k->p.n[G16_PARAMS_H] + 1;
    if (n & (n - 1) || n > ((uint64_t)1 << ntt_bls381_fr_max_log())) {
        g16_params_free(&k->p);
        free(k);
        return g16_fail(st, G16_ERR_FORMAT, "%s: h has %llu points: the domain (h + 1) is not a power of two", path,
                        (unsigned long long)(n - 1));
    }
    k->domain = (size_t)n;
    k->log_n = (unsigned)__builtin_ctzll(n);
    k->root_m = g16_params_root_exponent(k->log_n);
    *out = k;
    return G16_OK;
}

g16_err g16_params_key_peek(g16_ctx *ctx, const char *path, size_t *n_inputs, size_t *n_aux, size_t *domain) {
    if (!ctx || !path)
        return ctx ? g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_params_key_peek: NULL argument") : G16_ERR_INVALID_ARG;
    g16_status st = {0};
    g16_params p;
    g16_params_opts o = {.kind = G16_PARAMS_KIND_FULL, .subgroup = 0, .vk_only = 1};
    g16_err err = g16_params_load(&p, path, &o, NULL, &st);
    if (err)
        return g16_ctx_report(ctx, &st);
    uint64_t n = (uint64_t)p.n[G16_PARAMS_H] + 1;
    if (n & (n - 1) || n > ((uint64_t)1 << ntt_bls381_fr_max_log())) {
        g16_params_free(&p);
        return g16_ctx_fail(ctx, G16_ERR_FORMAT, "%s: h has %llu points: the domain (h + 1) is not a power of two",
                            path, (unsigned long long)(n - 1));
    }
    if (n_inputs)
        *n_inputs = p.n[G16_PARAMS_IC];
    if (n_aux)
        *n_aux = p.n[G16_PARAMS_L];
    if (domain)
        *domain = (size_t)n;
    g16_params_free(&p);
    return G16_OK;
}

g16_err g16_params_key_load(g16_ctx *ctx, g16_params_key **out, const char *path, int subgroup) {
    if (!ctx || !out || !path)
        return ctx ? g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_params_key_load: NULL argument")
                   : G16_ERR_INVALID_ARG;
    g16_status st = {0};
    g16_err err = g16_params_key_load_st(ctx, out, path, subgroup, &st);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

void g16_params_key_free(g16_params_key *key) {
    if (!key)
        return;
    g16_params_free(&key->p);
    free(key);
}

g16_err g16_params_key_info(const g16_params_key *key, size_t *n_inputs, size_t *n_aux, size_t *domain) {
    if (!key)
        return G16_ERR_INVALID_ARG;
    if (n_inputs)
        *n_inputs = key->p.n[G16_PARAMS_IC];
    if (n_aux)
        *n_aux = key->p.n[G16_PARAMS_L];
    if (domain)
        *domain = key->domain;
    return G16_OK;
}

const g16_params *g16_params_key_params(const g16_params_key *key) { return key ? &key->p : NULL; }
uint32_t g16_params_key_root_exponent(const g16_params_key *key) { return key->root_m; }

void g16_assignment_prove_opts_init(g16_assignment_prove_opts *o) {
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->backend = G16_BACKEND_AUTO;
    o->verify = 1;
}

/* ---- parallel passes ------------------------------------------------------ */
static const limb_t k_fr_p[4] = BLS381_FR_P;
static int fr_canonical(const g16_fr_mont *v) { return limbs_lt_vartime(v->l, k_fr_p, 4); }

/* Elements per pool task: about 8 tasks per thread, at least 256 (task
 * overhead) and at most 2^16 (balance). */
static size_t chunk_for(const g16_ctx *ctx, size_t n) {
    size_t c = n / (8 * (size_t)g16_ctx_threads(ctx));
    return c < 256 ? 256 : c > 65536 ? 65536 : c;
}

/* dst[m j mod n] = src[j] for j < abc_size, zero elsewhere, for a, b, c;
 * bad_row[t] = the first row of task t holding a value >= r (SIZE_MAX:
 * none), bad_arr[t] which of a, b, c it is in. */
typedef struct scatter_job {
    const g16_fr_mont *src[3];
    bls381_fr *dst[3];
    size_t n, abc;
    uint64_t m;
    size_t *bad_row;
    int *bad_arr;
    size_t chunk;
} scatter_job;

static void scatter_task(void *arg, size_t t) {
    scatter_job *j = arg;
    size_t lo = t * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    j->bad_row[t] = SIZE_MAX;
    for (size_t i = lo; i < hi; i++) {
        size_t pos = (size_t)((j->m * (uint64_t)i) & (uint64_t)(j->n - 1));
        for (int s = 0; s < 3; s++) {
            if (i < j->abc) {
                if (!fr_canonical(&j->src[s][i]) && j->bad_row[t] == SIZE_MAX) {
                    j->bad_row[t] = i;
                    j->bad_arr[t] = s;
                }
                memcpy(&j->dst[s][pos], &j->src[s][i], sizeof(bls381_fr));
            } else {
                bls381_fr_set_zero(&j->dst[s][pos]);
            }
        }
    }
}

/* a[i] = (a[i] b[i] - c[i]) zinv */
typedef struct quot_job {
    bls381_fr *a;
    const bls381_fr *b, *c, *zinv;
    size_t n;
    size_t chunk;
} quot_job;

/* With AVX-512 IFMA the products go through bls381_fr_mul_batch, QUOT_BATCH
 * at a time: the same exact products, so the same bits. */
#define QUOT_BATCH 24
static void quot_task(void *arg, size_t t) {
    quot_job *j = arg;
    size_t lo = t * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    if (g16_field_ifma_active() && lo < hi) {
        bls381_fr x[QUOT_BATCH], z[QUOT_BATCH];
        for (int k = 0; k < QUOT_BATCH; k++)
            z[k] = *j->zinv;
        for (size_t i = lo; i < hi; i += QUOT_BATCH) {
            size_t L = hi - i < QUOT_BATCH ? hi - i : QUOT_BATCH;
            bls381_fr_mul_batch(x, &j->a[i], &j->b[i], L);
            for (size_t k = 0; k < L; k++)
                bls381_fr_sub(&x[k], &x[k], &j->c[i + k]);
            bls381_fr_mul_batch(&j->a[i], x, z, L);
        }
        g16_wipe(x, sizeof x);
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        bls381_fr x;
        bls381_fr_mul(&x, &j->a[i], &j->b[i]);
        bls381_fr_sub(&x, &x, &j->c[i]);
        bls381_fr_mul(&j->a[i], &x, j->zinv);
    }
}

/* out[i] = canonical integer of in[i] (i < n); bad[t] = the first index of
 * task t holding a value >= r (SIZE_MAX: none). */
typedef struct conv_job {
    const g16_fr_mont *in;
    g16_scalar *out;
    size_t n;
    size_t *bad;
    size_t chunk;
} conv_job;

static void conv_task(void *arg, size_t t) {
    conv_job *j = arg;
    size_t lo = t * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    j->bad[t] = SIZE_MAX;
    for (size_t i = lo; i < hi; i++) {
        if (!fr_canonical(&j->in[i])) {
            if (j->bad[t] == SIZE_MAX)
                j->bad[t] = i;
            memset(&j->out[i], 0, sizeof j->out[i]);
            continue;
        }
        bls381_fr x;
        memcpy(&x, &j->in[i], sizeof x);
        bls381_fr_from_mont(j->out[i].l, &x);
    }
}

/* out[i] = canonical integer of in[i] (values already reduced) */
typedef struct hconv_job {
    const bls381_fr *in;
    g16_scalar *out;
    size_t n;
    size_t chunk;
} hconv_job;

static void hconv_task(void *arg, size_t t) {
    hconv_job *j = arg;
    size_t lo = t * j->chunk, hi = lo + j->chunk < j->n ? lo + j->chunk : j->n;
    if (g16_field_ifma_active() && lo < hi) { /* from_mont = the product by the integer 1 */
        bls381_fr x[QUOT_BATCH], one[QUOT_BATCH];
        for (int k = 0; k < QUOT_BATCH; k++)
            one[k] = (bls381_fr){{1}};
        for (size_t i = lo; i < hi; i += QUOT_BATCH) {
            size_t L = hi - i < QUOT_BATCH ? hi - i : QUOT_BATCH;
            bls381_fr_mul_batch(x, &j->in[i], one, L);
            for (size_t k = 0; k < L; k++)
                memcpy(j->out[i + k].l, x[k].l, sizeof x[k].l);
        }
        g16_wipe(x, sizeof x);
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        g16_scalar x;
        bls381_fr_from_mont(x.l, &j->in[i]);
        memcpy(&j->out[i], &x, sizeof x);
    }
}

static size_t ntasks_for(size_t n, size_t chunk) { return (n + chunk - 1) / chunk; }

static size_t first_bad(const size_t *bad, size_t nt, size_t *task) {
    for (size_t t = 0; t < nt; t++)
        if (bad[t] != SIZE_MAX) {
            if (task)
                *task = t;
            return bad[t];
        }
    return SIZE_MAX;
}

/* Converts in[0..n) to scalars in out; NOT_CANONICAL naming what[index]. */
static g16_err to_scalars(g16_ctx *ctx, g16_scalar *out, const g16_fr_mont *in, size_t n, const char *who,
                          const char *what, g16_status *st) {
    if (n == 0)
        return G16_OK;
    size_t chunk = chunk_for(ctx, n), nt = ntasks_for(n, chunk);
    size_t *bad = malloc(nt * sizeof *bad);
    if (!bad)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", who);
    conv_job j = {in, out, n, bad, chunk};
    g16_pool_run(ctx->pool, nt, conv_task, &j);
    size_t b = first_bad(bad, nt, NULL);
    free(bad);
    if (b != SIZE_MAX)
        return g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: %s[%zu] is not below r (not a reduced Montgomery Fr)", who,
                        what, b);
    return G16_OK;
}

static int bit_at(const uint64_t *w, size_t i) { return (int)(w[i / 64] >> (i % 64) & 1); }

/* ---- the heavy stage (g16_params_heavy_cpu, assignment.h) ------------------ */
typedef g16_params_msms params_msms;

typedef struct params_scratch {
    bls381_fr *abc[3];    /* n each */
    g16_scalar *sa, *sb; /* A's and B's scalars, gathered */
    g16_scalar *si, *sl; /* inputs, aux as scalars */
    size_t n_abc, n_sa, n_sb, n_si, n_sl;
} params_scratch;

/* The aux scalars of the A-dense (B-dense) variables, in order, into sa
 * from index a0 (sb from b0), on the pool: task t covers the aux variables
 * [64 t w, 64 (t + 1) w) (w density words per task); a first pass counts
 * each task's set bits, their prefix sums give each task's first output
 * index, a second pass copies. The bitmaps' popcounts are checked
 * (check_bits), so the totals are a_aux_popcount and b_aux_popcount. */
typedef struct gather_job {
    const uint64_t *da, *db;
    const g16_scalar *sl;
    g16_scalar *sa, *sb;
    size_t n, words; /* aux variables; density words per task */
    size_t *oa, *ob; /* per task: set bits (pass 1), then the first output index */
    int pass;
} gather_job;

static void gather_task(void *arg, size_t t) {
    gather_job *j = arg;
    size_t nw = (j->n + 63) / 64, w0 = t * j->words, w1 = w0 + j->words < nw ? w0 + j->words : nw;
    if (j->pass == 0) {
        size_t ca = 0, cb = 0;
        for (size_t w = w0; w < w1; w++) {
            ca += (size_t)__builtin_popcountll(j->da[w]);
            cb += (size_t)__builtin_popcountll(j->db[w]);
        }
        j->oa[t] = ca, j->ob[t] = cb;
        return;
    }
    size_t ia = j->oa[t], ib = j->ob[t];
    for (size_t w = w0; w < w1; w++) {
        uint64_t ma = j->da[w], mb = j->db[w];
        const g16_scalar *src = j->sl + 64 * w;
        while (ma) {
            j->sa[ia++] = src[__builtin_ctzll(ma)];
            ma &= ma - 1;
        }
        while (mb) {
            j->sb[ib++] = src[__builtin_ctzll(mb)];
            mb &= mb - 1;
        }
    }
}

static g16_err gather_aux(g16_ctx *ctx, params_scratch *scr, const g16_assignment *as, size_t a0, size_t b0,
                          const char *who, g16_status *st) {
    size_t n = as->aux_assignment_size;
    if (n == 0)
        return G16_OK;
    size_t nw = (n + 63) / 64, words = chunk_for(ctx, n) / 64, nt = ntasks_for(nw, words);
    size_t *o = malloc(2 * nt * sizeof *o);
    if (!o)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", who);
    gather_job j = {as->a_aux_density, as->b_aux_density, scr->sl, scr->sa, scr->sb, n, words, o, o + nt, 0};
    g16_pool_run(ctx->pool, nt, gather_task, &j);
    size_t ia = a0, ib = b0;
    for (size_t t = 0; t < nt; t++) {
        size_t ca = j.oa[t], cb = j.ob[t];
        j.oa[t] = ia, j.ob[t] = ib;
        ia += ca, ib += cb;
    }
    j.pass = 1;
    if (ia - a0 == as->a_aux_popcount && ib - b0 == as->b_aux_popcount)
        g16_pool_run(ctx->pool, nt, gather_task, &j);
    free(o);
    if (ia - a0 != as->a_aux_popcount || ib - b0 != as->b_aux_popcount)
        return g16_fail(st, G16_ERR_INTERNAL, "%s: the densities have %zu and %zu bits set, not their popcounts",
                        who, ia - a0, ib - b0);
    return G16_OK;
}

static void scratch_free(params_scratch *s) {
    for (int i = 0; i < 3; i++)
        if (s->abc[i]) {
            g16_wipe(s->abc[i], s->n_abc * sizeof(bls381_fr));
            free(s->abc[i]);
        }
    if (s->sa)
        g16_wipe(s->sa, s->n_sa * sizeof(g16_scalar)), free(s->sa);
    if (s->sb)
        g16_wipe(s->sb, s->n_sb * sizeof(g16_scalar)), free(s->sb);
    if (s->si)
        g16_wipe(s->si, s->n_si * sizeof(g16_scalar)), free(s->si);
    if (s->sl)
        g16_wipe(s->sl, s->n_sl * sizeof(g16_scalar)), free(s->sl);
    memset(s, 0, sizeof *s);
}

static g16_err scratch_alloc(params_scratch *s, const g16_params_key *k, const g16_assignment *as, const char *who,
                             g16_status *st) {
    memset(s, 0, sizeof *s);
    s->n_abc = k->domain;
    s->n_si = as->inp_assignment_size;
    s->n_sl = as->aux_assignment_size;
    s->n_sa = as->inp_assignment_size + as->a_aux_popcount;
    s->n_sb = as->b_inp_popcount + as->b_aux_popcount;
    for (int i = 0; i < 3; i++)
        s->abc[i] = malloc(s->n_abc * sizeof(bls381_fr));
    /* + 1: malloc(0) may return NULL */
    s->sa = malloc((s->n_sa + 1) * sizeof(g16_scalar));
    s->sb = malloc((s->n_sb + 1) * sizeof(g16_scalar));
    s->si = malloc((s->n_si + 1) * sizeof(g16_scalar));
    s->sl = malloc((s->n_sl + 1) * sizeof(g16_scalar));
    if (!s->abc[0] || !s->abc[1] || !s->abc[2] || !s->sa || !s->sb || !s->si || !s->sl) {
        for (int i = 0; i < 3; i++)
            free(s->abc[i]);
        free(s->sa), free(s->sb), free(s->si), free(s->sl);
        memset(s, 0, sizeof *s);
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for the domain of %zu", who, k->domain);
    }
    return G16_OK;
}

/* Step 2 of the header: H's coefficients h_0 .. h_{n-2} as canonical
 * scalars, in *h_out, which points into abc[1]'s memory (abc[0] and abc[2]
 * are wiped; scratch_free wipes abc[1]). NOT_CANONICAL names the first row
 * of a, b or c not below r. */
static g16_err compute_h(g16_ctx *ctx, const g16_params_key *k, const g16_assignment *as, params_scratch *scr,
                         g16_scalar **h_out, const char *who, g16_status *st) {
    size_t n = k->domain;
    unsigned log_n = k->log_n;
    size_t chunk = chunk_for(ctx, n), nt = ntasks_for(n, chunk);
    size_t *bad = malloc(nt * sizeof *bad);
    int *bad_arr = malloc(nt * sizeof *bad_arr);
    if (!bad || !bad_arr) {
        free(bad), free(bad_arr);
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", who);
    }
    scatter_job sj = {{as->a, as->b, as->c}, {scr->abc[0], scr->abc[1], scr->abc[2]}, n, as->abc_size, k->root_m,
                      bad, bad_arr, chunk};
    g16_pool_run(ctx->pool, nt, scatter_task, &sj);
    size_t task = 0, b = first_bad(bad, nt, &task);
    int arr = b != SIZE_MAX ? bad_arr[task] : 0;
    free(bad), free(bad_arr);
    if (b != SIZE_MAX)
        return g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: %c[%zu] is not below r (not a reduced Montgomery Fr)", who,
                        "abc"[arr], b);
    bls381_fr g, gn, zinv;
    bls381_fr_from_u64(&g, 7);
    limb_t e[1] = {(limb_t)n};
    bls381_fr_pow(&gn, &g, e, 1);
    bls381_fr one;
    bls381_fr_set_one(&one);
    bls381_fr_sub(&gn, &gn, &one);
    bls381_fr_inv_vartime(&zinv, &gn); /* g^n != 1: 7 is not a root of unity of order n */
    g16_err err = G16_OK;
    for (int i = 0; i < 3 && !err; i++)
        if ((err = ntt_bls381_fr_inverse(ctx, scr->abc[i], log_n, NTT_NN)) ||
            (err = ntt_bls381_fr_coset_forward(ctx, scr->abc[i], log_n, &g, NTT_NR)))
            break;
    if (err)
        return g16_fail(st, err, "%s: NTT failed: %s", who, g16_err_str(err));
    quot_job qj = {scr->abc[0], scr->abc[1], scr->abc[2], &zinv, n, chunk};
    g16_pool_run(ctx->pool, nt, quot_task, &qj);
    if ((err = ntt_bls381_fr_coset_inverse(ctx, scr->abc[0], log_n, &g, NTT_RN)))
        return g16_fail(st, err, "%s: NTT failed: %s", who, g16_err_str(err));
    /* h_i = canonical coefficient i, i < n - 1, into abc[1]'s memory */
    g16_scalar *h = (g16_scalar *)(void *)scr->abc[1];
    hconv_job hj = {scr->abc[0], h, n - 1, chunk};
    g16_pool_run(ctx->pool, ntasks_for(n - 1, chunk), hconv_task, &hj);
    g16_wipe(scr->abc[0], n * sizeof(bls381_fr));
    g16_wipe(scr->abc[2], n * sizeof(bls381_fr));
    *h_out = h;
    return G16_OK;
}

static g16_err heavy_cpu(g16_ctx *ctx, params_msms *m, const g16_params_key *k, const g16_assignment *as,
                         params_scratch *scr, const char *who, g16_status *st) {
    const g16_params *p = &k->p;
    g16_scalar *h = NULL;
    g16_err err;
    if ((err = to_scalars(ctx, scr->si, as->inp_assignment, as->inp_assignment_size, who, "inp_assignment", st)) ||
        (err = to_scalars(ctx, scr->sl, as->aux_assignment, as->aux_assignment_size, who, "aux_assignment", st)) ||
        (err = compute_h(ctx, k, as, scr, &h, who, st)))
        return err;
    /* A: every input, then the A-dense aux; B: the B-dense inputs, then aux */
    size_t na = 0, nb = 0;
    memcpy(scr->sa, scr->si, as->inp_assignment_size * sizeof(g16_scalar));
    na = as->inp_assignment_size;
    for (size_t i = 0; i < as->inp_assignment_size; i++)
        if (bit_at(as->b_inp_density, i))
            scr->sb[nb++] = scr->si[i];
    if ((err = gather_aux(ctx, scr, as, na, nb, who, st)))
        return err;
    na += as->a_aux_popcount;
    nb += as->b_aux_popcount;
    if (na != p->n[G16_PARAMS_A] || nb != p->n[G16_PARAMS_B_G1] || nb != p->n[G16_PARAMS_B_G2])
        return g16_fail(st, G16_ERR_INTERNAL, "%s: gathered %zu A and %zu B scalars against %u and %u bases", who, na,
                        nb, p->n[G16_PARAMS_A], p->n[G16_PARAMS_B_G1]);
    if ((err = msm_bls381_g1(ctx, &m->a, p->a, scr->sa, na, NULL, 0)) ||
        (err = msm_bls381_g1(ctx, &m->b1, p->b_g1, scr->sb, nb, NULL, 0)) ||
        (err = msm_bls381_g2(ctx, &m->b2, p->b_g2, scr->sb, nb, NULL, 0)) ||
        (err = msm_bls381_g1(ctx, &m->l, p->l, scr->sl, as->aux_assignment_size, NULL, 0)) ||
        (err = msm_bls381_g1(ctx, &m->h, p->h, h, k->domain - 1, NULL, 0)))
        return g16_fail(st, err, "%s: MSM failed: %s", who, g16_err_str(err));
    return G16_OK;
}

g16_err g16_params_heavy_cpu(g16_ctx *ctx, g16_params_msms *m, const g16_params_key *k, const g16_assignment *as,
                             const char *who, g16_status *st) {
    params_scratch scr;
    g16_err err = scratch_alloc(&scr, k, as, who, st);
    if (err)
        return err;
    err = heavy_cpu(ctx, m, k, as, &scr, who, st);
    scratch_free(&scr);
    return err;
}

/* ---- finalize -------------------------------------------------------------- */
static void params_finalize(g16_params_proof *pr, const g16_params *p, const params_msms *m, const bls381_fr *r,
                            const bls381_fr *s) {
    g16_scalar rk, sk, rsk;
    bls381_fr rs;
    bls381_fr_mul(&rs, r, s);
    bls381_fr_from_mont(rk.l, r);
    bls381_fr_from_mont(sk.l, s);
    bls381_fr_from_mont(rsk.l, &rs);
    bls381_g1_jac pa, b1, pc, tj, d1;
    bls381_g2_jac pb, t2;
    bls381_g1_jac_from_affine(&d1, &p->delta_g1);
    /* A = alpha_g1 + msm_a + r delta_g1 */
    bls381_g1_jac_mul(&tj, &d1, &rk);
    bls381_g1_jac_add_affine(&pa, &m->a, &p->alpha_g1);
    bls381_g1_jac_add(&pa, &pa, &tj);
    /* B1 = beta_g1 + msm_b1 + s delta_g1 */
    bls381_g1_jac_mul(&tj, &d1, &sk);
    bls381_g1_jac_add_affine(&b1, &m->b1, &p->beta_g1);
    bls381_g1_jac_add(&b1, &b1, &tj);
    /* B = beta_g2 + msm_b2 + s delta_g2 */
    bls381_g2_jac_from_affine(&t2, &p->delta_g2);
    bls381_g2_jac_mul(&t2, &t2, &sk);
    bls381_g2_jac_add_affine(&pb, &m->b2, &p->beta_g2);
    bls381_g2_jac_add(&pb, &pb, &t2);
    /* C = msm_l + msm_h + s A + r B1 - r s delta_g1 */
    bls381_g1_jac_add(&pc, &m->l, &m->h);
    bls381_g1_jac_mul(&tj, &pa, &sk);
    bls381_g1_jac_add(&pc, &pc, &tj);
    bls381_g1_jac_mul(&tj, &b1, &rk);
    bls381_g1_jac_add(&pc, &pc, &tj);
    bls381_g1_jac_mul(&tj, &d1, &rsk);
    bls381_g1_jac_neg(&tj, &tj);
    bls381_g1_jac_add(&pc, &pc, &tj);
    bls381_g1_jac_to_affine(&pr->a, &pa);
    bls381_g2_jac_to_affine(&pr->b, &pb);
    bls381_g1_jac_to_affine(&pr->c, &pc);
    g16_wipe(&rk, sizeof rk);
    g16_wipe(&sk, sizeof sk);
    g16_wipe(&rsk, sizeof rsk);
    g16_wipe(&rs, sizeof rs);
    g16_wipe(&b1, sizeof b1);
    g16_wipe(&tj, sizeof tj);
    g16_wipe(&t2, sizeof t2);
}

static void proof_to_raw(g16_params_proof_raw *raw, const g16_params_proof *pr) {
    memcpy(raw->a[0], pr->a.x.l, 48);
    memcpy(raw->a[1], pr->a.y.l, 48);
    memcpy(raw->b[0][0], pr->b.x.c0.l, 48);
    memcpy(raw->b[0][1], pr->b.x.c1.l, 48);
    memcpy(raw->b[1][0], pr->b.y.c0.l, 48);
    memcpy(raw->b[1][1], pr->b.y.c1.l, 48);
    memcpy(raw->c[0], pr->c.x.l, 48);
    memcpy(raw->c[1], pr->c.y.l, 48);
}

g16_err g16_params_proof_raw_encode(uint8_t out[192], const g16_params_proof_raw *raw) {
    if (!out || !raw)
        return G16_ERR_INVALID_ARG;
    static const limb_t fp_p[6] = BLS381_FP_P;
    const uint64_t *limbs[8] = {raw->a[0], raw->a[1], raw->b[0][0], raw->b[0][1],
                                raw->b[1][0], raw->b[1][1], raw->c[0], raw->c[1]};
    for (int i = 0; i < 8; i++)
        if (!limbs_lt_vartime(limbs[i], fp_p, 6))
            return G16_ERR_NOT_CANONICAL;
    g16_params_proof pr;
    memcpy(pr.a.x.l, raw->a[0], 48);
    memcpy(pr.a.y.l, raw->a[1], 48);
    memcpy(pr.b.x.c0.l, raw->b[0][0], 48);
    memcpy(pr.b.x.c1.l, raw->b[0][1], 48);
    memcpy(pr.b.y.c0.l, raw->b[1][0], 48);
    memcpy(pr.b.y.c1.l, raw->b[1][1], 48);
    memcpy(pr.c.x.l, raw->c[0], 48);
    memcpy(pr.c.y.l, raw->c[1], 48);
    if (!bls381_g1_affine_is_on_curve(&pr.a) || !bls381_g2_affine_is_on_curve(&pr.b) ||
        !bls381_g1_affine_is_on_curve(&pr.c))
        return G16_ERR_NOT_ON_CURVE;
    g16_params_proof_encode(out, &pr);
    return G16_OK;
}

/* ---- one partition ---------------------------------------------------------- */
g16_err g16_params_check_partition(const g16_params_key *k, const g16_assignment *as, const char *who,
                                   g16_status *st) {
    g16_err err;
    if ((err = g16_assignment_check_bits(as, who, st)) || (err = g16_assignment_check_key(&k->p, as, who, st)))
        return err;
    bls381_fr one;
    bls381_fr_set_one(&one);
    if (memcmp(as->inp_assignment[0].l, one.l, sizeof one.l))
        return g16_fail(st, G16_ERR_FORMAT, "%s: inp_assignment[0] is not one (Montgomery 1, the constant input)",
                        who);
    return G16_OK;
}

g16_err g16_params_finish(uint8_t proof[G16_PARAMS_PROOF_SIZE], const g16_params_key *k, const g16_params_msms *m,
                          const bls381_fr *pub, size_t npub, int verify, double *verify_ms, const char *who,
                          g16_status *st) {
    if (verify_ms)
        *verify_ms = 0;
    bls381_fr r, s;
    if (bls381_fr_random_os(&r) || bls381_fr_random_os(&s)) {
        g16_wipe(&r, sizeof r);
        return g16_fail(st, G16_ERR_IO, "%s: getrandom failed", who);
    }
    g16_params_proof pr;
    params_finalize(&pr, &k->p, m, &r, &s);
    g16_wipe(&r, sizeof r);
    g16_wipe(&s, sizeof s);
    g16_declassify(&pr, sizeof pr); /* the proof is public output */
    if (verify) {
        double t0 = g16_now_ms();
        g16_err err = g16_params_verify(&k->p, &pr, pub, npub, st);
        if (verify_ms)
            *verify_ms = g16_now_ms() - t0;
        if (err == G16_ERR_INVALID_PROOF)
            return g16_fail(st, err, "%s: the proof does not verify against the key's vk (the assignment does not "
                                     "satisfy the key's circuit)",
                            who);
        if (err)
            return err;
    }
    g16_params_proof_encode(proof, &pr);
    return G16_OK;
}

/* The GPU of one g16_prove_assignments call (g NULL: the CPU). */
typedef struct params_dev {
    g16_gpu *g;
    g16_params_gpu_key *gk;
    g16_params_gpu_work *gw;
} params_dev;

static void dev_drop(params_dev *d) {
    g16_params_gpu_work_free(d->g, d->gw);
    g16_params_gpu_key_free(d->g, d->gk);
    g16_gpu_destroy(d->g);
    memset(d, 0, sizeof *d);
}

/* A context sized for the key's largest MSM, its bases and a working area:
 * once per call (allocates and uploads: a one-shot proof pays for them). */
static g16_err dev_setup(g16_ctx *ctx, params_dev *d, const g16_params_key *k, g16_status *st) {
    memset(d, 0, sizeof *d);
    if (g16_gpu_count() <= 0)
        return g16_fail(st, G16_ERR_NO_DEVICE, "no usable GPU (or a build without CUDA)");
    g16_err err;
    if ((err = g16_gpu_create(&d->g, 0, g16_params_gpu_max_points(k), 1, g16_ctx_config(ctx), st)) ||
        (err = g16_params_gpu_key_upload(d->g, &d->gk, k, st)) ||
        (err = g16_params_gpu_work_create(d->g, &d->gw, k, g16_ctx_config(ctx), st)))
        dev_drop(d);
    return err;
}

static g16_err prove_one(g16_ctx *ctx, const params_dev *dev, g16_params_proof *pr, const g16_params_key *k,
                         const g16_assignment *as, const bls381_fr *r, const bls381_fr *s, int verify, const char *who,
                         g16_status *st) {
    g16_err err;
    if ((err = g16_params_check_partition(k, as, who, st)))
        return err;
    params_msms m;
    if (dev->g) {
        if (!(err = g16_params_gpu_load(dev->g, dev->gw, k, as, ctx->pool, who, st)))
            err = g16_params_gpu_compute(dev->g, dev->gw, dev->gk, &m, k, as, who, st);
    }
    else
        err = g16_params_heavy_cpu(ctx, &m, k, as, who, st);
    if (err)
        return err;
    params_finalize(pr, &k->p, &m, r, s);
    g16_wipe(&m, sizeof m);
    g16_declassify(pr, sizeof *pr); /* the proof is public output */
    if (verify) {
        const bls381_fr *pub = (const bls381_fr *)(const void *)(as->inp_assignment + 1);
        err = g16_params_verify(&k->p, pr, pub, as->inp_assignment_size - 1, st);
        if (err == G16_ERR_INVALID_PROOF)
            return g16_fail(st, err, "%s: the proof does not verify against the key's vk (the assignment does not "
                                     "satisfy the key's circuit)",
                            who);
    }
    return err;
}

g16_err g16_prove_assignments_st(g16_ctx *ctx, const g16_params_key *key, const g16_assignment *assignments,
                                 size_t n, const g16_assignment_prove_opts *opts, g16_params_proof_raw *proofs,
                                 g16_status *st) {
    if (!ctx || !key || !assignments || !proofs || n == 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "g16_prove_assignments: NULL argument or n = 0");
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    if (opts) {
        if (opts->size < offsetof(g16_assignment_prove_opts, backend) + sizeof opts->backend || opts->size > sizeof o)
            return g16_fail(st, G16_ERR_INVALID_ARG,
                            "g16_prove_assignments: opts->size is %zu (set it with g16_assignment_prove_opts_init)",
                            opts->size);
        memcpy(&o, opts, opts->size);
    }
    if (o.backend != G16_BACKEND_CPU && o.backend != G16_BACKEND_AUTO && o.backend != G16_BACKEND_CUDA)
        return g16_fail(st, G16_ERR_INVALID_ARG, "g16_prove_assignments: unknown backend %d", (int)o.backend);
    memset(proofs, 0, n * sizeof *proofs);
    /* cuda: the GPU or an error; auto: the GPU from the zkey prover's
     * break-even domain up when one is present, else (or when its set-up
     * fails) the CPU. */
    params_dev dev = {0};
    if (o.backend == G16_BACKEND_CUDA ||
        (o.backend == G16_BACKEND_AUTO && key->domain >= G16_PROVE_AUTO_GPU_MIN_DOMAIN && g16_gpu_count() > 0)) {
        g16_status gst = {0};
        g16_err gerr = dev_setup(ctx, &dev, key, &gst);
        if (gerr && o.backend == G16_BACKEND_CUDA)
            return g16_fail(st, gerr, "g16_prove_assignments: GPU set-up: %s", gst.msg);
    }
    g16_err err = G16_OK;
    for (size_t i = 0; i < n && !err; i++) {
        char who[64];
        snprintf(who, sizeof who, n > 1 ? "assignment %zu" : "assignment", i);
        bls381_fr r, s;
        if (o.r) {
            int ok = fr_canonical(&o.r[i]) && fr_canonical(o.s ? &o.s[i] : &o.r[i]);
            if (!o.s || !ok) {
                err = g16_fail(st, o.s ? G16_ERR_NOT_CANONICAL : G16_ERR_INVALID_ARG,
                               "%s: r or s %s", who, o.s ? "not below r" : "missing (give both or neither)");
                break;
            }
            memcpy(&r, &o.r[i], sizeof r);
            memcpy(&s, &o.s[i], sizeof s);
        } else if (o.s) {
            err = g16_fail(st, G16_ERR_INVALID_ARG, "%s: r missing (give both r and s or neither)", who);
            break;
        } else if (bls381_fr_random_os(&r) || bls381_fr_random_os(&s)) {
            err = g16_fail(st, G16_ERR_IO, "%s: getrandom failed", who);
            break;
        }
        g16_params_proof pr;
        err = prove_one(ctx, &dev, &pr, key, &assignments[i], &r, &s, o.verify != 0, who, st);
        g16_wipe(&r, sizeof r);
        g16_wipe(&s, sizeof s);
        if (!err)
            proof_to_raw(&proofs[i], &pr);
    }
    dev_drop(&dev);
    if (err)
        memset(proofs, 0, n * sizeof *proofs);
    return err;
}

g16_err g16_prove_assignments(g16_ctx *ctx, const g16_params_key *key, const g16_assignment *assignments, size_t n,
                              const g16_assignment_prove_opts *opts, g16_params_proof_raw *proofs) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    g16_status st = {0};
    g16_err err = g16_prove_assignments_st(ctx, key, assignments, n, opts, proofs, &st);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}
