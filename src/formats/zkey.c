/* .zkey (Groth16, snarkjs 0.7) reader.
 *
 * Validation order (docs/formats.md): container -> section 1 (protocol) ->
 * presence of sections 2..9 -> section 2 (n8q, q => curve, n8r, r, counts,
 * vk points with subgroup check) -> sizes of sections 3..9 -> IC points
 * (full check) -> coefficients (section 4) -> big point sections (A, B1, B2,
 * C, H), multi-threaded over the pool, unless G16_ZKEY_TRUSTED.
 *
 * Zero copy: a point section whose data is 8-byte aligned in the mapping is
 * used in place (the file's bytes are our affine structs, see the static
 * asserts); a misaligned one is copied into an aligned anonymous mapping
 * during its validation pass. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fmt_internal.h"
#include "../util/keycache.h"

/* The file layout (x || y, Montgomery LE limbs; G2 coordinates c0 || c1)
 * must be the in-memory layout of our affine structs. */
_Static_assert(sizeof(bn254_g1_affine) == 64, "bn254 g1 affine layout");
_Static_assert(offsetof(bn254_g1_affine, y) == 32, "bn254 g1 affine layout");
_Static_assert(sizeof(bn254_g2_affine) == 128, "bn254 g2 affine layout");
_Static_assert(offsetof(bn254_g2_affine, y) == 64, "bn254 g2 affine layout");
_Static_assert(offsetof(bn254_fp2, c1) == 32, "bn254 fp2 layout");
_Static_assert(sizeof(bls381_g1_affine) == 96, "bls381 g1 affine layout");
_Static_assert(offsetof(bls381_g1_affine, y) == 48, "bls381 g1 affine layout");
_Static_assert(sizeof(bls381_g2_affine) == 192, "bls381 g2 affine layout");
_Static_assert(offsetof(bls381_g2_affine, y) == 96, "bls381 g2 affine layout");
_Static_assert(offsetof(bls381_fp2, c1) == 48, "bls381 fp2 layout");
_Static_assert(sizeof(bn254_fr) == 32 && sizeof(bls381_fr) == 32, "fr layout");

typedef g16_err (*pt_dec_fn)(void *out, const uint8_t *buf, int check_subgroup);
#define DEC_WRAP(G)                                                           \
    static g16_err dec_##G(void *out, const uint8_t *buf, int check_subgroup) { \
        return G##_from_zkey((G##_affine *)out, buf, check_subgroup);        \
    }
DEC_WRAP(bn254_g1)
DEC_WRAP(bn254_g2)
DEC_WRAP(bls381_g1)
DEC_WRAP(bls381_g2)

typedef struct curve_desc {
    g16_curve curve;
    const char *name;
    uint32_t n8q;
    limb_t q[6];
    limb_t r[4];
    size_t g1, g2; /* point sizes in the file = struct sizes */
    pt_dec_fn dec1, dec2;
    unsigned two_adicity; /* of r - 1 */
} curve_desc;

static const curve_desc CURVES[2] = {
    {G16_CURVE_BN254, "bn254", 32, BN254_FP_P, BN254_FR_P, sizeof(bn254_g1_affine),
     sizeof(bn254_g2_affine), dec_bn254_g1, dec_bn254_g2, BN254_FR_TS_S},
    {G16_CURVE_BLS12_381, "bls12-381", 48, BLS381_FP_P, BLS381_FR_P, sizeof(bls381_g1_affine),
     sizeof(bls381_g2_affine), dec_bls381_g1, dec_bls381_g2, BLS381_FR_TS_S},
};

/* b[0..32) little-endian < r (4 limbs)? */
static int le32_below(const uint8_t *b, const limb_t *r) {
    limb_t x[4];
    memcpy(x, b, 32);
    return limbs_lt_vartime(x, r, 4);
}

/* ---- parallel section validation --------------------------------------- */

#define CHUNK 4096

typedef struct task_err {
    g16_err code;
    size_t idx;
    uint32_t what; /* coefficients: which check failed */
} task_err;

typedef struct pts_job {
    const uint8_t *src;
    uint8_t *dst; /* aligned copy target, or NULL */
    size_t n, psize;
    pt_dec_fn dec;
    int check, subgroup;
    task_err *err; /* one per task */
} pts_job;

static void pts_task(void *arg, size_t t) {
    pts_job *j = arg;
    size_t begin = t * CHUNK, end = begin + CHUNK < j->n ? begin + CHUNK : j->n;
    j->err[t].code = G16_OK;
    if (j->check) {
        bls381_g2_affine tmp; /* the largest affine type */
        for (size_t i = begin; i < end; i++) {
            g16_err e = j->dec(&tmp, j->src + i * j->psize, j->subgroup);
            if (e) {
                j->err[t].code = e;
                j->err[t].idx = i;
                return;
            }
        }
    }
    if (j->dst && end > begin)
        memcpy(j->dst + begin * j->psize, j->src + begin * j->psize, (end - begin) * j->psize);
}

typedef struct coef_job {
    const uint8_t *src;
    size_t n;
    uint32_t domain, nvars;
    const limb_t *r;
    task_err *err;
} coef_job;

static void coef_task(void *arg, size_t t) {
    coef_job *j = arg;
    size_t begin = t * CHUNK, end = begin + CHUNK < j->n ? begin + CHUNK : j->n;
    j->err[t].code = G16_OK;
    for (size_t i = begin; i < end; i++) {
        const uint8_t *p = j->src + i * G16_ZKEY_COEF_SIZE;
        uint32_t what = 0;
        g16_err e = G16_OK;
        if (g16_le32(p) > 1)
            what = 1, e = G16_ERR_FORMAT;
        else if (g16_le32(p + 4) >= j->domain)
            what = 2, e = G16_ERR_FORMAT;
        else if (g16_le32(p + 8) >= j->nvars)
            what = 3, e = G16_ERR_FORMAT;
        else if (!le32_below(p + 12, j->r))
            what = 4, e = G16_ERR_NOT_CANONICAL;
        if (e) {
            j->err[t].code = e;
            j->err[t].idx = i;
            j->err[t].what = what;
            return;
        }
    }
}

static const task_err *first_err(const task_err *errs, size_t ntasks) {
    for (size_t t = 0; t < ntasks; t++)
        if (errs[t].code)
            return &errs[t];
    return NULL;
}

static const char *sec_name(int id) {
    switch (id) {
    case G16_ZKEY_SEC_IC: return "IC";
    case G16_ZKEY_SEC_A: return "A";
    case G16_ZKEY_SEC_B1: return "B1";
    case G16_ZKEY_SEC_B2: return "B2";
    case G16_ZKEY_SEC_C: return "C";
    case G16_ZKEY_SEC_H: return "H";
    }
    return "?";
}

/* Validates (per flags) the n points of section id and sets *out to an
 * aligned array of them (in place or copied). slot indexes key->copy. */
static g16_err load_points(g16_zkey *key, int id, int slot, size_t n, int g2, int check,
                           int subgroup, int no_copy, const curve_desc *cd, g16_pool *pool,
                           const void **out, g16_status *st) {
    const g16_binfile_section *sec = NULL;
    g16_err e = g16_binfile_find(&key->file, (uint32_t)id, &sec, st);
    if (e)
        return e;
    size_t psize = g2 ? cd->g2 : cd->g1;
    pts_job j = {sec->data, NULL, n, psize, g2 ? cd->dec2 : cd->dec1, check, subgroup, NULL};
    key->raw[slot] = sec->data;
    int misaligned = ((uintptr_t)sec->data & 7) != 0;
    if (misaligned && n > 0 && !no_copy) {
        size_t len = n * psize;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return g16_fail(st, G16_ERR_NOMEM, "%s: cannot map %zu bytes for section %s",
                            key->file.name, len, sec_name(id));
        key->copy[slot] = m;
        key->copy_len[slot] = len;
        key->copied_bytes += len;
        j.dst = m;
    }
    size_t ntasks = (n + CHUNK - 1) / CHUNK;
    j.err = calloc(ntasks ? ntasks : 1, sizeof *j.err);
    if (!j.err)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", key->file.name);
    g16_pool_run(pool, ntasks, pts_task, &j);
    const task_err *fe = first_err(j.err, ntasks);
    if (fe) {
        e = g16_fail(st, fe->code, "%s: section %d (%s), point %zu of %zu: %s", key->file.name, id,
                     sec_name(id), fe->idx, n, g16_err_str(fe->code));
        free(j.err);
        return e;
    }
    free(j.err);
    if (key->copy[slot])
        mprotect(key->copy[slot], key->copy_len[slot], PROT_READ);
    /* An empty section yields NULL rather than a possibly misaligned pointer. */
    *out = n == 0 ? NULL : j.dst ? (const void *)j.dst : misaligned ? NULL : (const void *)sec->data;
    return G16_OK;
}

static g16_err load_coefs(g16_zkey *key, const curve_desc *cd, g16_pool *pool, g16_status *st) {
    const g16_binfile_section *sec = NULL;
    g16_err e = g16_binfile_find(&key->file, G16_ZKEY_SEC_COEFS, &sec, st);
    if (e)
        return e;
    if (sec->size < 4)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 4 (coefficients) is %llu bytes, too short",
                        key->file.name, (unsigned long long)sec->size);
    uint32_t ncoef = g16_le32(sec->data);
    if ((uint64_t)ncoef * G16_ZKEY_COEF_SIZE != sec->size - 4)
        return g16_fail(st, G16_ERR_FORMAT,
                        "%s: section 4 (coefficients) is %llu bytes, expected 4 + %u x %d",
                        key->file.name, (unsigned long long)sec->size, ncoef, G16_ZKEY_COEF_SIZE);
    key->nCoef = ncoef;
    key->coefs = sec->data + 4;
    coef_job j = {key->coefs, ncoef, key->domainSize, key->nVars, cd->r, NULL};
    size_t ntasks = ((size_t)ncoef + CHUNK - 1) / CHUNK;
    j.err = calloc(ntasks ? ntasks : 1, sizeof *j.err);
    if (!j.err)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", key->file.name);
    g16_pool_run(pool, ntasks, coef_task, &j);
    const task_err *fe = first_err(j.err, ntasks);
    if (fe) {
        g16_zkey_coef c;
        g16_zkey_coef_get(key, fe->idx, &c);
        switch (fe->what) {
        case 1:
            e = g16_fail(st, G16_ERR_FORMAT, "%s: coefficient %zu: matrix %u is not 0 (A) or 1 (B)",
                         key->file.name, fe->idx, c.matrix);
            break;
        case 2:
            e = g16_fail(st, G16_ERR_FORMAT, "%s: coefficient %zu: constraint %u >= domainSize %u",
                         key->file.name, fe->idx, c.constraint, key->domainSize);
            break;
        case 3:
            e = g16_fail(st, G16_ERR_FORMAT, "%s: coefficient %zu: signal %u >= nVars %u",
                         key->file.name, fe->idx, c.signal, key->nVars);
            break;
        default:
            e = g16_fail(st, G16_ERR_NOT_CANONICAL, "%s: coefficient %zu: value >= r",
                         key->file.name, fe->idx);
        }
    }
    free(j.err);
    return e;
}

/* Decodes one vk point of section 2 (always with the subgroup check). */
/* Infinity is (0, 0), all-zero limbs in memory as in the file. */
static int pt_is_zero(const void *p, size_t size) {
    const uint8_t *b = p;
    uint8_t acc = 0;
    for (size_t i = 0; i < size; i++)
        acc |= b[i];
    return acc == 0;
}

static g16_err vk_point(g16_zkey *key, pt_dec_fn dec, void *out, size_t size, const uint8_t *buf,
                        const char *what, g16_status *st) {
    g16_err e = dec(out, buf, 1);
    if (e)
        return g16_fail(st, e, "%s: section 2: %s: %s", key->file.name, what, g16_err_str(e));
    /* The file's infinity is all-zero bytes (as snarkjs writes it). No setup
     * makes a vk point at infinity; a key cut short by a full disk does. */
    if (pt_is_zero(out, size))
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 2: %s is the point at infinity (no setup makes one)",
                        key->file.name, what);
    return G16_OK;
}

static g16_err parse_groth_header(g16_zkey *key, const curve_desc **cdp, g16_status *st) {
    const g16_binfile_section *sec = NULL;
    g16_err e = g16_binfile_find(&key->file, G16_ZKEY_SEC_GROTH, &sec, st);
    if (e)
        return e;
    const uint8_t *p = sec->data;
    uint64_t left = sec->size;
    const char *nm = key->file.name;
#define NEED(k, what)                                                                            \
    do {                                                                                         \
        if (left < (uint64_t)(k))                                                                \
            return g16_fail(st, G16_ERR_FORMAT, "%s: section 2 (header) ends inside %s", nm, what); \
    } while (0)
    NEED(4, "n8q");
    uint32_t n8q = g16_le32(p);
    p += 4, left -= 4;
    if (n8q == 0 || n8q > 64 || n8q % 8)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 2: n8q = %u is not a size of a prime here",
                        nm, n8q);
    NEED(n8q, "q");
    const uint8_t *q = p;
    p += n8q, left -= n8q;
    NEED(4, "n8r");
    uint32_t n8r = g16_le32(p);
    p += 4, left -= 4;
    if (n8r == 0 || n8r > 64 || n8r % 8)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 2: n8r = %u is not a size of a prime here",
                        nm, n8r);
    NEED(n8r, "r");
    const uint8_t *r = p;
    p += n8r, left -= n8r;
    NEED(12, "nVars/nPublic/domainSize");
    uint32_t nvars = g16_le32(p), npub = g16_le32(p + 4), dom = g16_le32(p + 8);
    p += 12, left -= 12;
#undef NEED
    const curve_desc *cd = NULL;
    for (int i = 0; i < 2; i++)
        if (g16_le_bytes_equal(q, n8q, CURVES[i].q, CURVES[i].n8q / 8))
            cd = &CURVES[i];
    if (!cd)
        return g16_fail(st, G16_ERR_WRONG_CURVE,
                        "%s: base field prime q is neither BN254's nor BLS12-381's", nm);
    if (n8q != cd->n8q)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8q = %u inconsistent with %s (%u)", nm, n8q,
                        cd->name, cd->n8q);
    if (!g16_le_bytes_equal(r, n8r, cd->r, 4))
        return g16_fail(st, G16_ERR_WRONG_CURVE, "%s: group order r is not %s's", nm, cd->name);
    if (n8r != 32)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n8r = %u inconsistent with %s (32)", nm, n8r,
                        cd->name);
    if ((uint64_t)npub + 1 > nvars)
        return g16_fail(st, G16_ERR_FORMAT, "%s: nPublic = %u needs nVars > nPublic, nVars = %u", nm,
                        npub, nvars);
    if (dom == 0 || (dom & (dom - 1)) != 0)
        return g16_fail(st, G16_ERR_FORMAT, "%s: domainSize = %u is not a power of two", nm, dom);
    unsigned lg = 0;
    while ((1u << lg) < dom)
        lg++;
    if (lg + 1 > cd->two_adicity)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: domainSize 2^%u too large for %s (max 2^%u)",
                        nm, lg, cd->name, cd->two_adicity - 1);
    uint64_t want = 3 * (uint64_t)cd->g1 + 3 * (uint64_t)cd->g2;
    if (left != want)
        return g16_fail(st, G16_ERR_FORMAT,
                        "%s: section 2 (header) has %llu bytes of vk points, expected %llu", nm,
                        (unsigned long long)left, (unsigned long long)want);
    key->curve = cd->curve;
    key->n8q = n8q;
    key->n8r = n8r;
    key->nVars = nvars;
    key->nPublic = npub;
    key->domainSize = dom;
    key->log2_domain = lg;
    size_t g1 = cd->g1, g2 = cd->g2;
#define VK_POINTS(CV)                                                                        \
    do {                                                                                     \
        if ((e = vk_point(key, cd->dec1, &key->CV.alpha1, g1, p, "alpha1", st)) ||               \
            (e = vk_point(key, cd->dec1, &key->CV.beta1, g1, p + g1, "beta1", st)) ||            \
            (e = vk_point(key, cd->dec2, &key->CV.beta2, g2, p + 2 * g1, "beta2", st)) ||        \
            (e = vk_point(key, cd->dec2, &key->CV.gamma2, g2, p + 2 * g1 + g2, "gamma2", st)) || \
            (e = vk_point(key, cd->dec1, &key->CV.delta1, g1, p + 2 * g1 + 2 * g2, "delta1", st)) || \
            (e = vk_point(key, cd->dec2, &key->CV.delta2, g2, p + 3 * g1 + 2 * g2, "delta2", st)))  \
            return e;                                                                        \
    } while (0)
    if (cd->curve == G16_CURVE_BN254)
        VK_POINTS(bn254);
    else
        VK_POINTS(bls381);
#undef VK_POINTS
    *cdp = cd;
    return G16_OK;
}

static g16_err check_size(g16_zkey *key, int id, uint64_t want, g16_status *st) {
    const g16_binfile_section *sec = NULL;
    g16_err e = g16_binfile_find(&key->file, (uint32_t)id, &sec, st);
    if (e)
        return e;
    if (sec->size != want)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section %d (%s) is %llu bytes, expected %llu",
                        key->file.name, id, sec_name(id), (unsigned long long)sec->size,
                        (unsigned long long)want);
    return G16_OK;
}

static g16_err zkey_load(g16_zkey *key, unsigned flags, g16_pool *pool, g16_status *st) {
    const char *nm = key->file.name;
    const g16_binfile_section *sec = NULL;
    g16_err e = g16_binfile_find(&key->file, G16_ZKEY_SEC_HEADER, &sec, st);
    if (e)
        return e;
    if (sec->size != 4)
        return g16_fail(st, G16_ERR_FORMAT, "%s: section 1 is %llu bytes, expected 4", nm,
                        (unsigned long long)sec->size);
    uint32_t proto = g16_le32(sec->data);
    if (proto == 2 || proto == 10)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: a %s key, not Groth16", nm,
                        proto == 2 ? "PLONK" : "FFLONK");
    if (proto != 1)
        return g16_fail(st, G16_ERR_FORMAT, "%s: protocol %u, expected 1 (Groth16)", nm, proto);
    for (uint32_t id = 2; id <= 9; id++)
        if ((e = g16_binfile_find(&key->file, id, &sec, st)))
            return e;
    const curve_desc *cd = NULL;
    if ((e = parse_groth_header(key, &cd, st)))
        return e;
    uint64_t nv = key->nVars, npub = key->nPublic;
    if ((e = check_size(key, G16_ZKEY_SEC_IC, (npub + 1) * cd->g1, st)) ||
        (e = check_size(key, G16_ZKEY_SEC_A, nv * cd->g1, st)) ||
        (e = check_size(key, G16_ZKEY_SEC_B1, nv * cd->g1, st)) ||
        (e = check_size(key, G16_ZKEY_SEC_B2, nv * cd->g2, st)) ||
        (e = check_size(key, G16_ZKEY_SEC_C, (nv - npub - 1) * cd->g1, st)) ||
        (e = check_size(key, G16_ZKEY_SEC_H, (uint64_t)key->domainSize * cd->g1, st)))
        return e;
    if (flags & G16_ZKEY_HEADER_ONLY)
        return G16_OK;
    const void *ic, *a, *b1, *b2, *c, *h;
    int nc = (flags & G16_ZKEY_NO_COPY) != 0;
    if ((e = load_points(key, G16_ZKEY_SEC_IC, 0, npub + 1, 0, 1, 1, 0, cd, pool, &ic, st)))
        return e;
    for (uint64_t i = 0; i <= npub; i++) /* see vk_point: with IC at infinity any input verifies */
        if (pt_is_zero((const uint8_t *)ic + i * cd->g1, cd->g1))
            return g16_fail(st, G16_ERR_FORMAT, "%s: section 3: IC[%llu] is the point at infinity (no setup makes one)",
                            nm, (unsigned long long)i);
    if (flags & G16_ZKEY_VK_ONLY) {
        if (key->curve == G16_CURVE_BN254)
            key->bn254.IC = ic;
        else
            key->bls381.IC = ic;
        return G16_OK;
    }
    if ((e = load_coefs(key, cd, pool, st)))
        return e;
    int check = !(flags & G16_ZKEY_TRUSTED), sub = check && (flags & G16_ZKEY_CHECK_SUBGROUP);
    if ((e = load_points(key, G16_ZKEY_SEC_A, 1, nv, 0, check, sub, nc, cd, pool, &a, st)) ||
        (e = load_points(key, G16_ZKEY_SEC_B1, 2, nv, 0, check, sub, nc, cd, pool, &b1, st)) ||
        (e = load_points(key, G16_ZKEY_SEC_B2, 3, nv, 1, check, sub, nc, cd, pool, &b2, st)) ||
        (e = load_points(key, G16_ZKEY_SEC_C, 4, nv - npub - 1, 0, check, sub, nc, cd, pool, &c, st)) ||
        (e = load_points(key, G16_ZKEY_SEC_H, 5, key->domainSize, 0, check, sub, nc, cd, pool, &h, st)))
        return e;
#define SET_PTRS(CV)                      \
    do {                                  \
        key->CV.IC = ic;                  \
        key->CV.A = a;                    \
        key->CV.B1 = b1;                  \
        key->CV.B2 = b2;                  \
        key->CV.C = c;                    \
        key->CV.H = h;                    \
    } while (0)
    if (key->curve == G16_CURVE_BN254)
        SET_PTRS(bn254);
    else
        SET_PTRS(bls381);
#undef SET_PTRS
    return G16_OK;
}

#define RELOAD_ADVICE "; reload the key"

#define KEYCACHE_KIND "zkey"
#define KEYCACHE_MIN_AGE_S 2 /* keycache.h: file times move in coarse steps */

g16_err g16_zkey_open_ex(g16_zkey *key, const char *path, unsigned flags, const char *cache_dir, g16_pool *pool,
                         g16_status *st) {
    memset(key, 0, sizeof *key);
    g16_err e = g16_binfile_open(&key->file, path, "zkey", 2, st);
    if (e)
        return e;
    struct stat sb0;
    int level = flags & G16_ZKEY_CHECK_SUBGROUP ? 2 : 1;
    int cache = cache_dir && !(flags & (G16_ZKEY_TRUSTED | G16_ZKEY_HEADER_ONLY | G16_ZKEY_VK_ONLY)) &&
                key->file.map.fd >= 0 && fstat(key->file.map.fd, &sb0) == 0;
    unsigned f = flags;
    if (cache && g16_keycache_hit(cache_dir, &sb0, KEYCACHE_KIND, level)) {
        f |= G16_ZKEY_TRUSTED;
        key->checks_cached = 1;
    }
    /* The checks read the file: a change under them (zeros after a
     * truncation) is reported as that, not as a bad point or section. */
    e = g16_binfile_settle(&key->file, zkey_load(key, f, pool, st), RELOAD_ADVICE, st);
    if (e) {
        g16_zkey_close(key);
        return e;
    }
    struct stat sb1;
    if (cache && !key->checks_cached && fstat(key->file.map.fd, &sb1) == 0 &&
        g16_keycache_same_file(&sb0, &sb1))
        (void)g16_keycache_store(cache_dir, &sb0, KEYCACHE_KIND, level, KEYCACHE_MIN_AGE_S);
    return G16_OK;
}

g16_err g16_zkey_open(g16_zkey *key, const char *path, unsigned flags, g16_pool *pool,
                      g16_status *st) {
    return g16_zkey_open_ex(key, path, flags, NULL, pool, st);
}

g16_err g16_zkey_check(const g16_zkey *key, int *state, g16_status *st) {
    int fs = G16_FMAP_INTACT;
    g16_err e = g16_binfile_check(&key->file, RELOAD_ADVICE, &fs, st);
    if (state)
        *state = fs == G16_FMAP_TRUNCATED ? G16_KEY_FILE_TRUNCATED
                 : fs == G16_FMAP_CHANGED ? G16_KEY_FILE_CHANGED
                 : g16_fmap_stale(&key->file.map) ? G16_KEY_FILE_STALE
                                                  : G16_KEY_FILE_INTACT;
    return e;
}

g16_err g16_zkey_open_mem(g16_zkey *key, const char *name, const void *data, size_t len,
                          unsigned flags, g16_pool *pool, g16_status *st) {
    memset(key, 0, sizeof *key);
    g16_err e = g16_binfile_open_mem(&key->file, name, data, len, "zkey", 2, st);
    if (!e && (e = zkey_load(key, flags, pool, st)))
        g16_zkey_close(key);
    return e;
}

void g16_zkey_close(g16_zkey *key) {
    if (!key)
        return;
    for (int i = 0; i < 6; i++)
        if (key->copy[i])
            munmap(key->copy[i], key->copy_len[i]);
    g16_binfile_close(&key->file);
    memset(key, 0, sizeof *key);
}
