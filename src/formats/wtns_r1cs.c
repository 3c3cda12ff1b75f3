/* .wtns (version 2) and .r1cs (version 1) readers, a .wtns writer, and the
 * R1CS satisfiability check. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt_internal.h"
#include "util/file.h"

void g16_frvec_free(g16_frvec *v) {
    if (!v)
        return;
    free(v->raw);
    v->raw = NULL;
    v->n = 0;
}

/* ---- .wtns --------------------------------------------------------------- */

/* Section 2 into w->raw in chunks on a pool: each value copied (standard
 * form) or converted, and checked < r; bad = the first value that is not
 * (n when none): the smallest failing index of every chunk, so the error
 * names the same value whatever the thread count. */
#define WTNS_CHUNK ((size_t)1 << 16)
typedef struct wtns_job {
    g16_frvec *w;
    const uint8_t *src;
    const limb_t *r;
    _Atomic size_t bad;
} wtns_job;

static void wtns_task(void *arg, size_t task) {
    wtns_job *j = arg;
    size_t lo = task * WTNS_CHUNK, hi = lo + WTNS_CHUNK < j->w->n ? lo + WTNS_CHUNK : j->w->n;
    for (size_t i = lo; i < hi; i++) {
        const uint8_t *src = j->src + i * 32;
        int ok;
        if (j->w->standard) {
            memcpy(j->w->raw[i], src, 32);
            ok = limbs_lt_vartime(j->w->raw[i], j->r, 4); /* public bound, secret value: only its validity leaks */
        } else {
            ok = g16_fr_from_le32(j->w->curve, j->w->raw[i], src);
        }
        if (!ok) {
            size_t cur = atomic_load(&j->bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
            return;
        }
    }
}

/* into: the caller's buffer of cap values (then w->raw = into, borrowed),
 * else w->raw is allocated. */
static g16_err wtns_load(g16_frvec *w, g16_binfile *bf, unsigned flags, g16_pool *pool, g16_scalar *into,
                         size_t cap, g16_status *st) {
    const char *nm = bf->name;
    const g16_binfile_section *s1, *s2;
    g16_err e;
    if (bf->version != 2)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: wtns version %u, only version 2 is supported",
                        nm, bf->version);
    if ((e = g16_binfile_find(bf, 1, &s1, st)) || (e = g16_binfile_find(bf, 2, &s2, st)))
        return e;
    if (s1->size < 4)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, too short", nm,
                        (unsigned long long)s1->size);
    uint32_t n8 = g16_le32(s1->data);
    if (n8 == 0 || n8 > 64 || n8 % 8)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8 = %u is not a size of a prime here", nm, n8);
    if (s1->size != 4 + (uint64_t)n8 + 4)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, expected %u", nm,
                        (unsigned long long)s1->size, 4 + n8 + 4);
    int curve = g16_curve_from_r_bytes(s1->data + 4, n8);
    if (curve < 0)
        return g16_fail(st, G16_ERR_WRONG_CURVE,
                        "%s: prime is neither BN254's nor BLS12-381's group order r", nm);
    if (n8 != 32)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8 = %u inconsistent with the prime (32)", nm, n8);
    uint32_t n = g16_le32(s1->data + 4 + n8);
    if (s2->size != (uint64_t)n * 32)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 2 is %llu bytes, expected %u x 32", nm,
                        (unsigned long long)s2->size, n);
    if (flags & G16_WTNS_HEADER_ONLY) {
        w->curve = (g16_curve)curve;
        w->n = n;
        return G16_OK;
    }
    if (into && n > cap)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "%s: witness has %u values, room for %zu", nm, n, cap);
    w->curve = (g16_curve)curve;
    w->n = n;
    w->raw = into ? (limb_t(*)[4])into->l : malloc(n ? (size_t)n * 32 : 1);
    if (!w->raw)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for %u witness values", nm, n);
    w->standard = (flags & G16_WTNS_STANDARD) != 0;
    wtns_job j = {w, s2->data, g16_curve_r(w->curve), n};
    g16_pool_run(pool, (n + WTNS_CHUNK - 1) / WTNS_CHUNK, wtns_task, &j);
    size_t bad = atomic_load(&j.bad);
    if (bad < n)
        return g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: witness value %zu is >= r", nm, bad);
    return G16_OK;
}

g16_err g16_wtns_read_mem_ex(g16_frvec *w, const char *name, const void *data, size_t len,
                             unsigned flags, g16_pool *pool, g16_status *st) {
    memset(w, 0, sizeof *w);
    g16_binfile bf;
    g16_err e = g16_binfile_open_mem(&bf, name, data, len, "wtns", 2, st);
    if (e)
        return e;
    if ((e = wtns_load(w, &bf, flags, pool, NULL, 0, st)))
        g16_frvec_free(w);
    g16_binfile_close(&bf);
    return e;
}

g16_err g16_wtns_read_ex(g16_frvec *w, const char *path, unsigned flags, g16_pool *pool, g16_status *st) {
    memset(w, 0, sizeof *w);
    g16_binfile bf;
    g16_err e = g16_binfile_open(&bf, path, "wtns", 2, st);
    if (e)
        return e;
    /* A file changed under the reads: that, not what its zeros look like. */
    if ((e = g16_binfile_settle(&bf, wtns_load(w, &bf, flags, pool, NULL, 0, st), NULL, st)))
        g16_frvec_free(w);
    g16_binfile_close(&bf);
    return e;
}

g16_err g16_wtns_read_into(g16_frvec *w, const char *path, const void *data, size_t len, g16_scalar *dst,
                           size_t cap, g16_pool *pool, g16_status *st) {
    memset(w, 0, sizeof *w);
    g16_binfile bf;
    g16_err e = path ? g16_binfile_open(&bf, path, "wtns", 2, st)
                     : g16_binfile_open_mem(&bf, "witness", data, len, "wtns", 2, st);
    if (e)
        return e;
    e = g16_binfile_settle(&bf, wtns_load(w, &bf, G16_WTNS_STANDARD, pool, dst, cap, st), NULL, st);
    g16_binfile_close(&bf);
    if (e)
        memset(w, 0, sizeof *w); /* nothing to free: dst is the caller's */
    return e;
}

g16_err g16_wtns_read_mem(g16_frvec *w, const char *name, const void *data, size_t len,
                          g16_status *st) {
    return g16_wtns_read_mem_ex(w, name, data, len, 0, NULL, st);
}

g16_err g16_wtns_read(g16_frvec *w, const char *path, g16_status *st) {
    return g16_wtns_read_ex(w, path, 0, NULL, st);
}

/* w[i] == 1 in w's form. */
static int frvec_is_one(const g16_frvec *w, size_t i) {
    const limb_t *v = w->raw[i];
    if (w->standard) {
        static const limb_t one[4] = {1, 0, 0, 0};
        return limbs_eq(v, one, 4);
    }
    return w->curve == G16_CURVE_BN254 ? bn254_fr_is_one((const bn254_fr *)(const void *)v)
                                       : bls381_fr_is_one((const bls381_fr *)(const void *)v);
}

g16_err g16_wtns_check_key(const g16_frvec *w, const g16_zkey *key, g16_status *st) {
    if (w->curve != key->curve)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "witness is for %s, key %s is for %s",
                        g16_curve_name(w->curve), key->file.name, g16_curve_name(key->curve));
    if (w->n != key->nVars)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "witness has %zu values, key %s has nVars = %u",
                        w->n, key->file.name, key->nVars);
    if (!frvec_is_one(w, 0))
        return g16_fail(st, G16_ERR_FORMAT, "witness value 0 is not 1");
    return G16_OK;
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The .wtns (version 2) header of w: magic, version, 2 sections; section 1
 * (n8 = 32, the prime, the count) and section 2's header. */
#define WTNS_HDR (12 + 12 + 40 + 12)
static void wtns_header(uint8_t hdr[WTNS_HDR], const g16_frvec *w) {
    memcpy(hdr, "wtns", 4);
    put32(hdr + 4, 2);
    put32(hdr + 8, 2);
    put32(hdr + 12, 1);
    put64(hdr + 16, 40);
    put32(hdr + 24, 32);
    memcpy(hdr + 28, g16_curve_r(w->curve), 32);
    put32(hdr + 60, (uint32_t)w->n);
    put32(hdr + 64, 2);
    put64(hdr + 68, (uint64_t)w->n * 32);
}

/* Value i of w as 32 little-endian bytes (canonical). */
static void wtns_value(uint8_t b[32], const g16_frvec *w, size_t i) {
    if (w->standard)
        memcpy(b, w->raw[i], 32);
    else
        g16_fr_to_le32(w->curve, b, w->raw[i]);
}

g16_err g16_wtns_write(const char *path, const g16_frvec *w, g16_status *st) {
    g16_atomic_file af;
    g16_err e = g16_atomic_begin(&af, path, st);
    if (e)
        return e;
    FILE *f = g16_atomic_stream(&af);
    if (!f) {
        g16_atomic_abort(&af);
        return g16_fail(st, G16_ERR_NOMEM, "%s: cannot make a stream", path);
    }
    uint8_t hdr[WTNS_HDR];
    wtns_header(hdr, w);
    int ok = fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr;
    for (size_t i = 0; ok && i < w->n; i++) {
        uint8_t b[32];
        wtns_value(b, w, i);
        ok = fwrite(b, 1, 32, f) == 32;
    }
    af.failed |= !ok;
    return g16_atomic_commit(&af, st);
}

g16_err g16_wtns_encode(void **out, size_t *len, const g16_frvec *w, g16_status *st) {
    *out = NULL;
    *len = 0;
    size_t n = WTNS_HDR + w->n * 32;
    uint8_t *p = malloc(n);
    if (!p)
        return g16_fail(st, G16_ERR_NOMEM, "wtns: out of memory for %zu bytes", n);
    wtns_header(p, w);
    for (size_t i = 0; i < w->n; i++)
        wtns_value(p + WTNS_HDR + 32 * i, w, i);
    *out = p;
    *len = n;
    return G16_OK;
}

/* ---- .r1cs --------------------------------------------------------------- */

void g16_r1cs_free(g16_r1cs *r) {
    if (!r)
        return;
    for (int m = 0; m < 3; m++) {
        free(r->m[m].row);
        free(r->m[m].wire);
        free(r->m[m].coef);
    }
    free(r->labels);
    memset(r, 0, sizeof *r);
}

static const char *const LC_NAME[3] = {"A", "B", "C"};

/* Walks section 2. fill = 0: validates and counts terms per matrix;
 * fill = 1: stores them (the arrays are sized by the first pass). */
static g16_err r1cs_walk(g16_r1cs *r, const char *nm, const uint8_t *p, uint64_t size, int fill,
                         g16_status *st) {
    const limb_t *rr = g16_curve_r(r->curve);
    uint64_t off = 0, cnt[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->nConstraints; i++) {
        for (int m = 0; m < 3; m++) {
            if (fill)
                r->m[m].row[i] = cnt[m];
            if (size - off < 4)
                return g16_fail(st, G16_ERR_FORMAT, "%s: section 2 ends inside constraint %u (%s)",
                                nm, i, LC_NAME[m]);
            uint32_t nt = g16_le32(p + off);
            off += 4;
            if ((uint64_t)nt * 36 > size - off)
                return g16_fail(st, G16_ERR_FORMAT,
                                "%s: constraint %u (%s) has %u terms, more than section 2 holds", nm,
                                i, LC_NAME[m], nt);
            for (uint32_t k = 0; k < nt; k++, off += 36) {
                uint32_t wire = g16_le32(p + off);
                if (wire >= r->nWires)
                    return g16_fail(st, G16_ERR_FORMAT,
                                    "%s: constraint %u (%s) term %u: wire %u >= nWires %u", nm, i,
                                    LC_NAME[m], k, wire, r->nWires);
                if (fill) {
                    r->m[m].wire[cnt[m]] = wire;
                    g16_fr_from_le32(r->curve, r->m[m].coef[cnt[m]], p + off + 4);
                } else {
                    limb_t x[4];
                    memcpy(x, p + off + 4, 32);
                    if (!limbs_lt_vartime(x, rr, 4))
                        return g16_fail(st, G16_ERR_NOT_CANONICAL,
                                        "%s: constraint %u (%s) term %u: coefficient >= r", nm, i,
                                        LC_NAME[m], k);
                }
                cnt[m]++;
            }
        }
    }
    if (off != size)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 2 has %llu bytes after the last constraint",
                        nm, (unsigned long long)(size - off));
    for (int m = 0; m < 3; m++) {
        if (fill)
            r->m[m].row[r->nConstraints] = cnt[m];
        else
            r->nnz[m] = cnt[m];
    }
    return G16_OK;
}

static g16_err r1cs_load(g16_r1cs *r, g16_binfile *bf, g16_status *st) {
    const char *nm = bf->name;
    const g16_binfile_section *s1, *s2;
    g16_err e;
    if (g16_binfile_has(bf, 4) || g16_binfile_has(bf, 5))
        return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: custom gates (sections 4/5) are not supported",
                        nm);
    if ((e = g16_binfile_find(bf, 1, &s1, st)) || (e = g16_binfile_find(bf, 2, &s2, st)))
        return e;
    if (s1->size < 4)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, too short", nm,
                        (unsigned long long)s1->size);
    uint32_t n8 = g16_le32(s1->data);
    if (n8 == 0 || n8 > 64 || n8 % 8)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8 = %u is not a size of a prime here", nm, n8);
    if (s1->size != (uint64_t)n8 + 32)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, expected %u", nm,
                        (unsigned long long)s1->size, n8 + 32);
    const uint8_t *h = s1->data + 4;
    int curve = g16_curve_from_r_bytes(h, n8);
    if (curve < 0)
        return g16_fail(st, G16_ERR_WRONG_CURVE,
                        "%s: prime is neither BN254's nor BLS12-381's group order r", nm);
    if (n8 != 32)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8 = %u inconsistent with the prime (32)", nm, n8);
    h += n8;
    r->curve = (g16_curve)curve;
    r->n8 = n8;
    r->nWires = g16_le32(h);
    r->nPubOut = g16_le32(h + 4);
    r->nPubIn = g16_le32(h + 8);
    r->nPrvIn = g16_le32(h + 12);
    r->nLabels = g16_le64(h + 16);
    r->nConstraints = g16_le32(h + 24);
    if (1 + (uint64_t)r->nPubOut + r->nPubIn + r->nPrvIn > r->nWires)
        return g16_fail(st, G16_ERR_FORMAT,
                        "%s: 1 + nPubOut %u + nPubIn %u + nPrvIn %u exceeds nWires %u", nm,
                        r->nPubOut, r->nPubIn, r->nPrvIn, r->nWires);
    if ((uint64_t)r->nConstraints * 12 > s2->size)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %u constraints cannot fit in section 2 (%llu bytes)",
                        nm, r->nConstraints, (unsigned long long)s2->size);
    if ((e = r1cs_walk(r, nm, s2->data, s2->size, 0, st)))
        return e;
    for (int m = 0; m < 3; m++) {
        r->m[m].row = malloc(((size_t)r->nConstraints + 1) * sizeof *r->m[m].row);
        r->m[m].wire = malloc((r->nnz[m] ? r->nnz[m] : 1) * sizeof *r->m[m].wire);
        r->m[m].coef = malloc((r->nnz[m] ? r->nnz[m] : 1) * sizeof *r->m[m].coef);
        if (!r->m[m].row || !r->m[m].wire || !r->m[m].coef)
            return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for the constraints", nm);
    }
    if ((e = r1cs_walk(r, nm, s2->data, s2->size, 1, st)))
        return e;
    if (g16_binfile_has(bf, 3)) {
        const g16_binfile_section *s3;
        if ((e = g16_binfile_find(bf, 3, &s3, st)))
            return e;
        if (s3->size != (uint64_t)r->nWires * 8)
            return g16_fail(st, G16_ERR_FORMAT, "%s: section 3 (labels) is %llu bytes, expected %u x 8",
                            nm, (unsigned long long)s3->size, r->nWires);
        r->labels = malloc(s3->size ? (size_t)s3->size : 1);
        if (!r->labels)
            return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for labels", nm);
        memcpy(r->labels, s3->data, (size_t)s3->size);
    }
    return G16_OK;
}

g16_err g16_r1cs_read_mem(g16_r1cs *r, const char *name, const void *data, size_t len,
                          g16_status *st) {
    memset(r, 0, sizeof *r);
    g16_binfile bf;
    g16_err e = g16_binfile_open_mem(&bf, name, data, len, "r1cs", 1, st);
    if (e)
        return e;
    if ((e = r1cs_load(r, &bf, st)))
        g16_r1cs_free(r);
    g16_binfile_close(&bf);
    return e;
}

g16_err g16_r1cs_read(g16_r1cs *r, const char *path, g16_status *st) {
    memset(r, 0, sizeof *r);
    g16_binfile bf;
    g16_err e = g16_binfile_open(&bf, path, "r1cs", 1, st);
    if (e)
        return e;
    if ((e = g16_binfile_settle(&bf, r1cs_load(r, &bf, st), NULL, st)))
        g16_r1cs_free(r);
    g16_binfile_close(&bf);
    return e;
}

/* Returns the first row i with <A_i,w> * <B_i,w> != <C_i,w>, or UINT32_MAX. */
#define R1CS_ROWS(F)                                                                  \
    static uint32_t rows_##F(const g16_r1cs *r, const F *w) {                        \
        for (uint32_t i = 0; i < r->nConstraints; i++) {                              \
            F v[3];                                                                   \
            for (int m = 0; m < 3; m++) {                                             \
                const g16_r1cs_matrix *M = &r->m[m];                                  \
                F##_set_zero(&v[m]);                                                  \
                for (uint64_t k = M->row[i]; k < M->row[i + 1]; k++) {                \
                    F t;                                                              \
                    F##_mul(&t, (const F *)(const void *)M->coef[k], &w[M->wire[k]]); \
                    F##_add(&v[m], &v[m], &t);                                        \
                }                                                                     \
            }                                                                         \
            F##_mul(&v[0], &v[0], &v[1]);                                             \
            if (!F##_eq(&v[0], &v[2]))                                                \
                return i;                                                             \
        }                                                                             \
        return UINT32_MAX;                                                            \
    }
R1CS_ROWS(bn254_fr)
R1CS_ROWS(bls381_fr)

g16_err g16_r1cs_check_witness(const g16_r1cs *r, const g16_frvec *w, uint32_t *bad_row,
                               g16_status *st) {
    if (bad_row)
        *bad_row = UINT32_MAX;
    if (w->curve != r->curve)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "witness is for %s, r1cs for %s",
                        g16_curve_name(w->curve), g16_curve_name(r->curve));
    if (w->n != r->nWires)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "witness has %zu values, r1cs has %u wires", w->n,
                        r->nWires);
    if (!frvec_is_one(w, 0))
        return g16_fail(st, G16_ERR_INVALID_ARG, "witness value 0 is not 1");
    g16_frvec m = *w; /* Montgomery view (converted copy for a standard-form witness) */
    if (w->standard) {
        m.standard = 0;
        m.raw = malloc(w->n * sizeof *m.raw);
        if (!m.raw)
            return g16_fail(st, G16_ERR_NOMEM, "out of memory for %zu witness values", w->n);
        for (size_t i = 0; i < w->n; i++) {
            if (w->curve == G16_CURVE_BN254)
                bn254_fr_to_mont(&m.bn254[i], w->raw[i]);
            else
                bls381_fr_to_mont(&m.bls381[i], w->raw[i]);
        }
    }
    uint32_t bad = w->curve == G16_CURVE_BN254 ? rows_bn254_fr(r, m.bn254) : rows_bls381_fr(r, m.bls381);
    if (w->standard)
        free(m.raw);
    if (bad != UINT32_MAX) {
        if (bad_row)
            *bad_row = bad;
        return g16_fail(st, G16_ERR_INVALID_ARG, "witness does not satisfy constraint %u", bad);
    }
    return G16_OK;
}
