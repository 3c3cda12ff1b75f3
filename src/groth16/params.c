/* bellperson .params / .vk reader (layout and validation order: params.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pairing/pairing.h"
#include "../util/blake2b.h"
#include "../util/fmap.h"
#include "params.h"

#define ZC_COMPRESSED 0x80
#define ZC_INFINITY 0x40
#define ZC_SORT 0x20

/* Points per pool task: big enough that the task overhead is noise. */
#define PARAMS_CHUNK 256u

static const char *const k_names[G16_PARAMS_NARRAYS] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

const char *g16_params_array_name(int array) {
    return array >= 0 && array < G16_PARAMS_NARRAYS ? k_names[array] : "?";
}

static int array_is_g2(int array) { return array == G16_PARAMS_B_G2; }
static size_t point_size(int g2) { return g2 ? G16_PARAMS_G2_SIZE : G16_PARAMS_G1_SIZE; }

static uint32_t be32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* One uncompressed point: the flag bits first (with a reason for FORMAT),
 * then the curve layer's canonical / on-curve / subgroup checks. */
static g16_err decode_point(void *dst, const uint8_t *b, int g2, int check_subgroup, int allow_inf,
                            const char **why) {
    size_t len = point_size(g2);
    uint8_t f = b[0];
    *why = NULL;
    if (f & ZC_COMPRESSED) {
        *why = "compression flag set on an uncompressed point";
        return G16_ERR_FORMAT;
    }
    if (f & ZC_SORT) {
        *why = "sort flag set on an uncompressed point";
        return G16_ERR_FORMAT;
    }
    if (f & ZC_INFINITY) {
        if (f & 0x1f)
            goto bad_inf;
        for (size_t i = 1; i < len; i++)
            if (b[i])
                goto bad_inf;
        if (!allow_inf) {
            *why = "point at infinity not allowed here";
            return G16_ERR_FORMAT;
        }
    }
    g16_err e = g2 ? bls381_g2_from_zcash_ex(dst, b, len, check_subgroup)
                   : bls381_g1_from_zcash_ex(dst, b, len, check_subgroup);
    if (e == G16_ERR_FORMAT && !*why)
        *why = "bad flag bits";
    return e;
bad_inf:
    *why = "infinity flag with nonzero bits";
    return G16_ERR_FORMAT;
}

static const char *err_words(g16_err e, const char *why) {
    switch (e) {
    case G16_ERR_NOT_CANONICAL:
        return "not canonical (a coordinate >= p)";
    case G16_ERR_NOT_ON_CURVE:
        return "not on curve";
    case G16_ERR_NOT_IN_SUBGROUP:
        return "not in the prime-order subgroup";
    case G16_ERR_FORMAT:
        return why ? why : "bad encoding";
    default:
        return g16_err_str(e);
    }
}

/* ---- parallel conversion of one array ----------------------------------- */
typedef struct conv_job {
    const uint8_t *src;
    uint8_t *dst;
    size_t n, dst_size;
    int g2, check, allow_inf;
    /* the lowest failing index found so far (n: none): tasks above it stop */
    atomic_size_t first_bad;
    /* per task: first failure (index n = none) */
    size_t *bad_idx;
    g16_err *bad_err;
    const char **bad_why;
} conv_job;

static void conv_task(void *arg, size_t t) {
    conv_job *j = arg;
    size_t lo = t * PARAMS_CHUNK, hi = lo + PARAMS_CHUNK < j->n ? lo + PARAMS_CHUNK : j->n;
    size_t psz = point_size(j->g2);
    j->bad_idx[t] = j->n;
    for (size_t i = lo; i < hi; i++) {
        /* a failure below i is already known: nothing here can be the first */
        if (atomic_load_explicit(&j->first_bad, memory_order_relaxed) < i)
            return;
        const char *why;
        g16_err e = decode_point(j->dst + i * j->dst_size, j->src + i * psz, j->g2, j->check, j->allow_inf, &why);
        if (e != G16_OK) {
            j->bad_idx[t] = i;
            j->bad_err[t] = e;
            j->bad_why[t] = why;
            size_t cur = atomic_load_explicit(&j->first_bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, i))
                ;
            return;
        }
    }
}

static g16_err convert_array(g16_params *p, int array, const uint8_t *base, void **out, int check,
                             g16_pool *pool, const char *name, g16_status *st) {
    size_t n = p->n[array];
    int g2 = array_is_g2(array);
    size_t dsz = g2 ? sizeof(bls381_g2_affine) : sizeof(bls381_g1_affine);
    *out = NULL;
    if (n == 0)
        return G16_OK;
    uint8_t *dst = malloc(n * dsz); /* n * dsz <= 2 x the array's bytes: bounded by the file */
    size_t ntasks = (n + PARAMS_CHUNK - 1) / PARAMS_CHUNK;
    size_t *bi = malloc(ntasks * sizeof *bi);
    g16_err *be = malloc(ntasks * sizeof *be);
    const char **bw = malloc(ntasks * sizeof *bw);
    if (!dst || !bi || !be || !bw) {
        free(dst), free(bi), free(be), free(bw);
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for %zu %s points", name, n, k_names[array]);
    }
    conv_job j = {.src = base + p->off[array], .dst = dst, .n = n, .dst_size = dsz, .g2 = g2, .check = check,
                  .allow_inf = array != G16_PARAMS_IC, .bad_idx = bi, .bad_err = be, .bad_why = bw};
    atomic_init(&j.first_bad, n);
    g16_pool_run(pool, ntasks, conv_task, &j);
    g16_err e = G16_OK;
    for (size_t t = 0; t < ntasks; t++)
        if (bi[t] < n) { /* tasks cover increasing ranges, and a task stops only above a
                          * known failure: the first hit is the lowest failing index */
            e = g16_fail(st, be[t], "%s: %s[%zu]: %s", name, k_names[array], bi[t], err_words(be[t], bw[t]));
            break;
        }
    free(bi), free(be), free(bw);
    if (e != G16_OK) {
        free(dst);
        return e;
    }
    *out = dst;
    return G16_OK;
}

/* ---- layout ------------------------------------------------------------- */
/* Reads every count and checks it against the bytes left (by division on
 * 64-bit values: no product can overflow), recording offsets. */
static g16_err scan_layout(g16_params *p, const uint8_t *b, uint64_t len, g16_params_kind kind, const char *name,
                           g16_status *st) {
    uint64_t off = G16_PARAMS_VK_POINTS_SIZE;
    if (len < off)
        return g16_fail(st, G16_ERR_TRUNCATED, "%s: %llu bytes, shorter than the %u-byte verifying key", name,
                        (unsigned long long)len, G16_PARAMS_VK_POINTS_SIZE);
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++) {
        if (a == G16_PARAMS_H) { /* the vk ends here */
            p->vk_len = off;
            if (kind == G16_PARAMS_KIND_VK || (kind == G16_PARAMS_KIND_AUTO && off == len)) {
                p->is_vk_file = 1;
                break;
            }
        }
        if (len - off < 4)
            return g16_fail(st, G16_ERR_TRUNCATED, "%s: file ends before the %s count (offset %llu)", name,
                            k_names[a], (unsigned long long)off);
        uint32_t n = be32(b + off);
        off += 4;
        uint64_t psz = point_size(array_is_g2(a));
        if ((uint64_t)n > (len - off) / psz)
            return g16_fail(st, G16_ERR_TRUNCATED,
                            "%s: %s declares %u points (%llu bytes) but only %llu bytes remain", name, k_names[a],
                            n, (unsigned long long)((uint64_t)n * psz), (unsigned long long)(len - off));
        p->n[a] = n;
        p->off[a] = off;
        off += (uint64_t)n * psz;
    }
    if (off != len)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %llu trailing bytes after %s", name,
                        (unsigned long long)(len - off), p->is_vk_file ? "the verifying key's ic" : "b_g2");
    if (p->n[G16_PARAMS_IC] == 0)
        return g16_fail(st, G16_ERR_FORMAT, "%s: ic is empty (it holds one point per public input and the constant one)",
                        name);
    return G16_OK;
}

/* Drops the pages of [b + off, b + off + n) (whole pages inside it) from a
 * read-only file mapping: they are still in the page cache, no longer in
 * this process's resident set. */
static void release_pages(const uint8_t *b, uint64_t off, uint64_t n) {
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)b + (uintptr_t)off + pg - 1) & ~(pg - 1);
    uintptr_t hi = ((uintptr_t)b + (uintptr_t)(off + n)) & ~(pg - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* release: b is a file mapping whose pages may be dropped once converted
 * (each array's, after its conversion: the load never holds both forms of
 * more than one array). */
static g16_err load_bytes(g16_params *p, const char *name, const uint8_t *b, size_t len, const g16_params_opts *opts,
                          g16_pool *pool, int release, g16_status *st) {
    g16_params_opts def = {.kind = G16_PARAMS_KIND_AUTO, .subgroup = -1, .vk_only = 0};
    if (!opts)
        opts = &def;
    p->file_len = len;
    g16_err e = scan_layout(p, b, len, opts->kind, name, st);
    if (e)
        return e;
    int check = opts->subgroup < 0 ? (uint64_t)len <= G16_PARAMS_CHECK_LIMIT : opts->subgroup != 0;

    /* the vk's six points: always fully checked, never infinity */
    static const struct {
        const char *name;
        int g2;
        size_t field;
    } vkp[6] = {
        {"alpha_g1", 0, offsetof(g16_params, alpha_g1)}, {"beta_g1", 0, offsetof(g16_params, beta_g1)},
        {"beta_g2", 1, offsetof(g16_params, beta_g2)},   {"gamma_g2", 1, offsetof(g16_params, gamma_g2)},
        {"delta_g1", 0, offsetof(g16_params, delta_g1)}, {"delta_g2", 1, offsetof(g16_params, delta_g2)},
    };
    size_t off = 0;
    for (int i = 0; i < 6; i++) {
        const char *why;
        e = decode_point((uint8_t *)p + vkp[i].field, b + off, vkp[i].g2, 1, 0, &why);
        if (e)
            return g16_fail(st, e, "%s: vk %s: %s", name, vkp[i].name, err_words(e, why));
        off += point_size(vkp[i].g2);
    }
    g16_blake2b h;
    g16_blake2b_init(&h, sizeof p->vk_digest);
    g16_blake2b_update(&h, b, (size_t)p->vk_len);
    g16_blake2b_final(&h, p->vk_digest);

    void **dst[G16_PARAMS_NARRAYS] = {(void **)&p->ic, (void **)&p->h,    (void **)&p->l,
                                      (void **)&p->a,  (void **)&p->b_g1, (void **)&p->b_g2};
    int last = p->is_vk_file || opts->vk_only ? G16_PARAMS_IC : G16_PARAMS_B_G2;
    for (int a = 0; a <= last; a++) {
        e = convert_array(p, a, b, dst[a], check, pool, name, st);
        if (e)
            return e;
        if (release)
            release_pages(b, p->off[a], (uint64_t)p->n[a] * point_size(array_is_g2(a)));
    }
    p->subgroup_checked = check;
    return G16_OK;
}

void g16_params_free(g16_params *p) {
    if (!p)
        return;
    free(p->ic), free(p->h), free(p->l), free(p->a), free(p->b_g1), free(p->b_g2);
    memset(p, 0, sizeof *p);
}

g16_err g16_params_load_mem(g16_params *p, const char *name, const uint8_t *data, size_t len,
                            const g16_params_opts *opts, g16_pool *pool, g16_status *st) {
    if (!p)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params: NULL output");
    memset(p, 0, sizeof *p);
    if (!name)
        name = "(memory)";
    if (!data && len)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: NULL buffer", name);
    g16_err e = load_bytes(p, name, data, len, opts, pool, 0, st);
    if (e)
        g16_params_free(p);
    return e;
}

g16_err g16_params_load(g16_params *p, const char *path, const g16_params_opts *opts, g16_pool *pool,
                        g16_status *st) {
    if (!p || !path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "params: NULL output or path");
    memset(p, 0, sizeof *p);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return g16_fail(st, G16_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int err = errno;
        close(fd);
        return g16_fail(st, G16_ERR_IO, "%s: cannot stat: %s", path, strerror(err));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return g16_fail(st, G16_ERR_IO, "%s: not a regular file", path);
    }
    if (sb.st_size < (off_t)G16_PARAMS_VK_POINTS_SIZE) {
        close(fd);
        return g16_fail(st, G16_ERR_TRUNCATED, "%s: %lld bytes, shorter than the %u-byte verifying key", path,
                        (long long)sb.st_size, G16_PARAMS_VK_POINTS_SIZE);
    }
    g16_fmap m;
    g16_err e = g16_fmap_map(&m, fd, &sb, path, path, st); /* takes fd */
    if (e)
        return e;
    e = load_bytes(p, path, m.base, m.len, opts, pool, 1, st);
    /* bytes read from a file that changed under us are not trusted, whatever they decoded to */
    uint64_t now = 0;
    int state = g16_fmap_state(&m, &now);
    if (state != G16_FMAP_INTACT)
        e = g16_fail(st, G16_ERR_IO, "%s changed while it was read (%s; %llu bytes mapped, %llu now)", path,
                     state == G16_FMAP_TRUNCATED ? "truncated" : "rewritten in place", (unsigned long long)m.len,
                     (unsigned long long)now);
    g16_fmap_close(&m);
    if (e)
        g16_params_free(p);
    return e;
}

/* ---- proofs --------------------------------------------------------------- */
g16_err g16_params_proof_decode(g16_params_proof *pr, const uint8_t *buf, size_t len, g16_status *st) {
    if (!pr || (!buf && len))
        return g16_fail(st, G16_ERR_INVALID_ARG, "proof: NULL argument");
    if (len != G16_PARAMS_PROOF_SIZE)
        return g16_fail(st, len < G16_PARAMS_PROOF_SIZE ? G16_ERR_TRUNCATED : G16_ERR_FORMAT,
                        "proof: %zu bytes, a bellperson proof is %u", len, G16_PARAMS_PROOF_SIZE);
    g16_err e = bls381_g1_from_zcash(&pr->a, buf, 48);
    if (e)
        return g16_fail(st, e, "proof A: %s", err_words(e, "bad flag bits"));
    e = bls381_g2_from_zcash(&pr->b, buf + 48, 96);
    if (e)
        return g16_fail(st, e, "proof B: %s", err_words(e, "bad flag bits"));
    e = bls381_g1_from_zcash(&pr->c, buf + 144, 48);
    if (e)
        return g16_fail(st, e, "proof C: %s", err_words(e, "bad flag bits"));
    return G16_OK;
}

void g16_params_proof_encode(uint8_t buf[G16_PARAMS_PROOF_SIZE], const g16_params_proof *pr) {
    bls381_g1_to_zcash(buf, 48, &pr->a);
    bls381_g2_to_zcash(buf + 48, 96, &pr->b);
    bls381_g1_to_zcash(buf + 144, 48, &pr->c);
}

g16_err g16_params_verify(const g16_params *vk, const g16_params_proof *pr, const bls381_fr *pub, size_t npub,
                          g16_status *st) {
    if (!vk || !pr || (!pub && npub) || !vk->ic)
        return g16_fail(st, G16_ERR_INVALID_ARG, "verify: NULL argument or no ic");
    if ((uint64_t)npub + 1 != vk->n[G16_PARAMS_IC])
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "verify: %zu public inputs, the key has %u", npub,
                        vk->n[G16_PARAMS_IC] - 1);
    bls381_g1_jac acc, t;
    bls381_g1_jac_from_affine(&acc, &vk->ic[0]);
    for (size_t j = 0; j < npub; j++) {
        g16_scalar k;
        bls381_fr_from_mont(k.l, &pub[j]);
        bls381_g1_jac_from_affine(&t, &vk->ic[j + 1]);
        bls381_g1_jac_mul_vartime(&t, &t, &k);
        bls381_g1_jac_add(&acc, &acc, &t);
    }
    bls381_g1_affine p[4];
    bls381_g2_affine q[4];
    bls381_g1_affine_neg(&p[0], &pr->a);
    q[0] = pr->b;
    bls381_g1_jac_to_affine(&p[1], &acc);
    q[1] = vk->gamma_g2;
    p[2] = pr->c;
    q[2] = vk->delta_g2;
    p[3] = vk->alpha_g1;
    q[3] = vk->beta_g2;
    bls381_fp12 f;
    bls381_multi_pairing(&f, p, q, 4);
    if (!bls381_fp12_is_one(&f))
        return g16_fail(st, G16_ERR_INVALID_PROOF, "proof does not verify (pairing check failed)");
    return G16_OK;
}
