/* The groth16 layer's file formats: .zkey, .wtns, .r1cs containers and the
 * snarkjs JSON files, for BN254 and BLS12-381.
 *
 * Synthetic files are built here byte by byte (points are i*G from the curve
 * layer, so they are valid), then loaded; every malformation (truncation at
 * every cut point, bad lengths, duplicate/missing sections, wrong magic,
 * version, curve, n8, points off the curve or the subgroup, non-canonical
 * values, bad indices, malformed JSON) must give its specific g16_err.
 *
 * If G16_FORMATS_OUT names a directory, the JSON this test writes is left
 * there (tests/test_formats_json.sh compares it byte for byte with snarkjs's
 * own writer). If examples/ holds snarkjs-made files, they are loaded too. */
#include <dirent.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "groth16/groth16.h"
#include "testutil.h"

static g16_rng RNG;
static char TMPDIR_[64];

/* ---- byte builder ------------------------------------------------------ */

typedef struct bbuf {
    uint8_t *p;
    size_t len, cap;
    size_t nsec_pos, nsec;
    size_t sec_off[128]; /* data offset by section id (ids < 128) */
    size_t size_pos[128];
} bbuf;

static void bput(bbuf *b, const void *d, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
}
static void bput32(bbuf *b, uint32_t v) { bput(b, &v, 4); }
static void bput64(bbuf *b, uint64_t v) { bput(b, &v, 8); }
static void bzero_(bbuf *b, size_t n) {
    uint8_t z[64] = {0};
    while (n) {
        size_t k = n < 64 ? n : 64;
        bput(b, z, k);
        n -= k;
    }
}
static void bbegin(bbuf *b, const char *magic, uint32_t version) {
    memset(b, 0, sizeof *b);
    bput(b, magic, 4);
    bput32(b, version);
    b->nsec_pos = b->len;
    bput32(b, 0);
}
static void bsec_start(bbuf *b, uint32_t id) {
    bput32(b, id);
    if (id < 128)
        b->size_pos[id] = b->len;
    bput64(b, 0);
    if (id < 128)
        b->sec_off[id] = b->len;
    b->nsec++;
    memcpy(b->p + b->nsec_pos, &(uint32_t){(uint32_t)b->nsec}, 4);
}
static void bsec_end(bbuf *b, uint32_t id) {
    uint64_t size = b->len - b->sec_off[id];
    memcpy(b->p + b->size_pos[id], &size, 8);
}
static void bsec(bbuf *b, uint32_t id, const void *d, size_t n) {
    bsec_start(b, id);
    bput(b, d, n);
    bsec_end(b, id);
}

static const char *tpath(const char *name) {
    static char buf[4][160];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", TMPDIR_, name);
    return buf[k];
}
static void write_file(const char *path, const void *d, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void save_out(const char *name, const char *text) {
    const char *dir = getenv("G16_FORMATS_OUT");
    if (!dir)
        return;
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    write_file(p, text, strlen(text));
}

static void save_out_bin(const char *name, const void *d, size_t n) {
    const char *dir = getenv("G16_FORMATS_OUT");
    if (!dir)
        return;
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    write_file(p, d, n);
}

static const char *nz(const char *s) { return s ? s : ""; }
static int has_needle(const char *msg, const char *needle) { return !needle || strstr(msg, needle); }

/* The expected error, with a message that mentions `needle` (if given). */
#define EXPECT(call, code, needle)                                                             \
    do {                                                                                       \
        g16_status st_ = {0};                                                                  \
        g16_status *st = &st_;                                                                 \
        g16_err e_ = (call);                                                                   \
        CHECK_MSG(e_ == (code), "%s: got %d (%s) \"%s\", want %d (%s)", #call, e_,             \
                  g16_err_str(e_), st_.msg, (int)(code), g16_err_str(code));                   \
        if ((code) != G16_OK)                                                                  \
            CHECK_MSG(has_needle(st_.msg, needle), "message \"%s\" lacks \"%s\"", st_.msg,   \
                      nz(needle));                                                              \
    } while (0)

static void limbs_to_le(uint8_t *out, const limb_t *l, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++)
        out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

/* ---- zkey builder --------------------------------------------------------- */

typedef struct zparams {
    uint32_t nvars, npub, domain;
    uint32_t omit, dup;       /* section id to leave out / write twice (0: none) */
    uint32_t q_pad, r_pad;    /* extra zero bytes after q / r (n8 inconsistency) */
    int wrong_q, wrong_r;     /* corrupt q / use the other curve's r */
    uint32_t protocol;        /* 0 -> 1 */
    uint32_t version;         /* 0 -> 1 */
    int align;                /* 0: snarkjs layout; 1: pad so every point section is 8-aligned */
    int order_rev;            /* write sections in reverse order */
} zparams;

typedef struct coef_rec {
    uint32_t m, c, s;
    uint8_t v[32];
} coef_rec;

#define NCOEF 12

#define ZKEY_CURVE(CV, CU, G1S, G2S)                                                            \
    typedef struct zk_##CV {                                                                     \
        CV##_g1_affine alpha1, beta1, delta1, *ic, *a, *b1, *c, *h;                               \
        CV##_g2_affine beta2, gamma2, delta2, *b2;                                               \
        coef_rec coef[NCOEF];                                                                   \
    } zk_##CV;                                                                                   \
    /* out[i] = (start + i) * G */                                                              \
    static void g1s_##CV(CV##_g1_affine *out, size_t n, unsigned start) {                         \
        CV##_g1_affine g;                                                                        \
        CV##_g1_jac G, P;                                                                        \
        CV##_g1_generator(&g);                                                                   \
        CV##_g1_jac_from_affine(&G, &g);                                                         \
        g16_scalar k = {{start, 0, 0, 0}};                                                      \
        CV##_g1_jac_mul_vartime(&P, &G, &k);                                                     \
        for (size_t i = 0; i < n; i++) {                                                        \
            CV##_g1_jac_to_affine(&out[i], &P);                                                  \
            CV##_g1_jac_add(&P, &P, &G);                                                         \
        }                                                                                       \
    }                                                                                           \
    static void g2s_##CV(CV##_g2_affine *out, size_t n, unsigned start) {                         \
        CV##_g2_affine g;                                                                        \
        CV##_g2_jac G, P;                                                                        \
        CV##_g2_generator(&g);                                                                   \
        CV##_g2_jac_from_affine(&G, &g);                                                         \
        g16_scalar k = {{start, 0, 0, 0}};                                                      \
        CV##_g2_jac_mul_vartime(&P, &G, &k);                                                     \
        for (size_t i = 0; i < n; i++) {                                                        \
            CV##_g2_jac_to_affine(&out[i], &P);                                                  \
            CV##_g2_jac_add(&P, &P, &G);                                                         \
        }                                                                                       \
    }                                                                                           \
    static void zk_make_##CV(zk_##CV *z, const zparams *zp) {                                     \
        CV##_g1_affine v1[3];                                                                    \
        CV##_g2_affine v2[3];                                                                    \
        g1s_##CV(v1, 3, 1 + (unsigned)(g16_rng_next(&RNG) % 1000));                              \
        g2s_##CV(v2, 3, 1 + (unsigned)(g16_rng_next(&RNG) % 1000));                              \
        z->alpha1 = v1[0], z->beta1 = v1[1], z->delta1 = v1[2];                                 \
        z->beta2 = v2[0], z->delta2 = v2[2];                                                    \
        CV##_g2_generator(&z->gamma2);                                                           \
        (void)v2[1];                                                                            \
        uint32_t nv = zp->nvars, np = zp->npub, nd = zp->domain;                                \
        z->ic = calloc(np + 1, sizeof *z->ic);                                                  \
        z->a = calloc(nv, sizeof *z->a);                                                        \
        z->b1 = calloc(nv, sizeof *z->b1);                                                      \
        z->b2 = calloc(nv, sizeof *z->b2);                                                      \
        z->c = calloc(nv - np - 1 + 1, sizeof *z->c);                                           \
        z->h = calloc(nd, sizeof *z->h);                                                        \
        g1s_##CV(z->ic, np + 1, 7);                                                              \
        g1s_##CV(z->a, nv, 20);                                                                  \
        g1s_##CV(z->b1, nv, 40);                                                                 \
        g2s_##CV(z->b2, nv, 60);                                                                 \
        g1s_##CV(z->c, nv - np - 1, 80);                                                         \
        g1s_##CV(z->h, nd, 100);                                                                 \
        /* unused wires have infinity, as in snarkjs keys */                                    \
        CV##_g1_affine_set_inf(&z->a[nv - 1]);                                                   \
        CV##_g1_affine_set_inf(&z->b1[nv - 1]);                                                  \
        CV##_g2_affine_set_inf(&z->b2[nv - 1]);                                                  \
        for (int i = 0; i < NCOEF; i++) {                                                       \
            CV##_fr v;                                                                           \
            CV##_fr_random(&v, &RNG);                                                            \
            z->coef[i].m = (uint32_t)(i & 1);                                                   \
            z->coef[i].c = (uint32_t)(g16_rng_next(&RNG) % nd);                                 \
            z->coef[i].s = (uint32_t)(g16_rng_next(&RNG) % nv);                                 \
            limbs_to_le(z->coef[i].v, v.l, 32);                                                 \
        }                                                                                       \
    }                                                                                           \
    static void zk_free_##CV(zk_##CV *z) {                                                        \
        free(z->ic), free(z->a), free(z->b1), free(z->b2), free(z->c), free(z->h);              \
    }                                                                                           \
    static void put_g1_##CV(bbuf *b, const CV##_g1_affine *p, size_t n) {                         \
        for (size_t i = 0; i < n; i++) {                                                        \
            uint8_t t[G1S];                                                                     \
            CV##_g1_to_zkey(t, &p[i]);                                                           \
            bput(b, t, G1S);                                                                    \
        }                                                                                       \
    }                                                                                           \
    static void put_g2_##CV(bbuf *b, const CV##_g2_affine *p, size_t n) {                         \
        for (size_t i = 0; i < n; i++) {                                                        \
            uint8_t t[G2S];                                                                     \
            CV##_g2_to_zkey(t, &p[i]);                                                           \
            bput(b, t, G2S);                                                                    \
        }                                                                                       \
    }                                                                                           \
    static void zk_section_##CV(bbuf *b, const zk_##CV *z, const zparams *zp, uint32_t id) {      \
        static const limb_t q[] = CU##_FP_P;                                                    \
        static const limb_t r_own[4] = CU##_FR_P, bn_r[4] = BN254_FR_P, bls_r[4] = BLS381_FR_P; \
        const limb_t *r = zp->wrong_r ? (r_own[0] == bn_r[0] ? bls_r : bn_r) : r_own;           \
        uint32_t nv = zp->nvars, np = zp->npub;                                                 \
        if (zp->align && b->len % 8 != 4) { /* empty pad section: next data offset % 8 == 0 */  \
            uint32_t pid = 100 + (uint32_t)b->nsec;                                             \
            bsec_start(b, pid);                                                                 \
            bsec_end(b, pid);                                                                   \
        }                                                                                       \
        bsec_start(b, id);                                                                      \
        switch (id) {                                                                           \
        case 1: bput32(b, zp->protocol ? zp->protocol : 1); break;                              \
        case 2: {                                                                               \
            uint8_t qb[sizeof q];                                                               \
            limbs_to_le(qb, q, sizeof q);                                                       \
            if (zp->wrong_q)                                                                    \
                qb[3] ^= 0x10;                                                                  \
            bput32(b, (uint32_t)sizeof q + zp->q_pad);                                          \
            bput(b, qb, sizeof q);                                                              \
            bzero_(b, zp->q_pad);                                                               \
            uint8_t rb[32];                                                                     \
            limbs_to_le(rb, r, 32);                                                             \
            bput32(b, 32 + zp->r_pad);                                                          \
            bput(b, rb, 32);                                                                    \
            bzero_(b, zp->r_pad);                                                               \
            bput32(b, nv);                                                                      \
            bput32(b, np);                                                                      \
            bput32(b, zp->domain);                                                              \
            put_g1_##CV(b, &z->alpha1, 1);                                                       \
            put_g1_##CV(b, &z->beta1, 1);                                                        \
            put_g2_##CV(b, &z->beta2, 1);                                                        \
            put_g2_##CV(b, &z->gamma2, 1);                                                       \
            put_g1_##CV(b, &z->delta1, 1);                                                       \
            put_g2_##CV(b, &z->delta2, 1);                                                       \
            break;                                                                              \
        }                                                                                       \
        case 3: put_g1_##CV(b, z->ic, np + 1); break;                                            \
        case 4:                                                                                 \
            bput32(b, NCOEF);                                                                   \
            for (int i = 0; i < NCOEF; i++) {                                                   \
                bput32(b, z->coef[i].m);                                                        \
                bput32(b, z->coef[i].c);                                                        \
                bput32(b, z->coef[i].s);                                                        \
                bput(b, z->coef[i].v, 32);                                                      \
            }                                                                                   \
            break;                                                                              \
        case 5: put_g1_##CV(b, z->a, nv); break;                                                 \
        case 6: put_g1_##CV(b, z->b1, nv); break;                                                \
        case 7: put_g2_##CV(b, z->b2, nv); break;                                                \
        case 8: put_g1_##CV(b, z->c, np + 1 <= nv ? nv - np - 1 : 0); break;                                        \
        case 9: put_g1_##CV(b, z->h, zp->domain); break;                                         \
        case 10: bput(b, zp->align ? "contribution" : "contributions", zp->align ? 12 : 13); break;                                           \
        }                                                                                       \
        bsec_end(b, id);                                                                        \
    }                                                                                           \
    static void zk_build_##CV(bbuf *b, const zk_##CV *z, const zparams *zp) {                     \
        static const uint32_t order[] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10}; /* snarkjs's */        \
        bbegin(b, "zkey", zp->version ? zp->version : 1);                                       \
        for (int k = 0; k < 10; k++) {                                                          \
            uint32_t id = order[zp->order_rev ? 9 - k : k];                                     \
            if (id == zp->omit)                                                                 \
                continue;                                                                       \
            zk_section_##CV(b, z, zp, id);                                                       \
            if (id == zp->dup)                                                                  \
                zk_section_##CV(b, z, zp, id);                                                   \
        }                                                                                       \
    }                                                                                           \
    static int zk_matches_##CV(const g16_zkey *k, const zk_##CV *z, const zparams *zp) {          \
        const g16_zkey_##CV *K = &k->CV;                                                          \
        int ok = k->nVars == zp->nvars && k->nPublic == zp->npub && k->domainSize == zp->domain; \
        ok &= CV##_g1_affine_eq(&K->alpha1, &z->alpha1) && CV##_g1_affine_eq(&K->beta1, &z->beta1); \
        ok &= CV##_g1_affine_eq(&K->delta1, &z->delta1) && CV##_g2_affine_eq(&K->beta2, &z->beta2); \
        ok &= CV##_g2_affine_eq(&K->gamma2, &z->gamma2) && CV##_g2_affine_eq(&K->delta2, &z->delta2); \
        for (uint32_t i = 0; i <= zp->npub; i++)                                                \
            ok &= CV##_g1_affine_eq(&K->IC[i], &z->ic[i]);                                       \
        for (uint32_t i = 0; i < zp->nvars; i++) {                                              \
            ok &= CV##_g1_affine_eq(&K->A[i], &z->a[i]) && CV##_g1_affine_eq(&K->B1[i], &z->b1[i]); \
            ok &= CV##_g2_affine_eq(&K->B2[i], &z->b2[i]);                                       \
        }                                                                                       \
        for (uint32_t i = 0; i < zp->nvars - zp->npub - 1; i++)                                 \
            ok &= CV##_g1_affine_eq(&K->C[i], &z->c[i]);                                         \
        for (uint32_t i = 0; i < zp->domain; i++)                                               \
            ok &= CV##_g1_affine_eq(&K->H[i], &z->h[i]);                                         \
        ok &= k->nCoef == NCOEF;                                                                \
        for (uint32_t i = 0; ok && i < k->nCoef; i++) {                                         \
            g16_zkey_coef c;                                                                    \
            g16_zkey_coef_get(k, i, &c);                                                        \
            ok &= c.matrix == z->coef[i].m && c.constraint == z->coef[i].c &&                   \
                  c.signal == z->coef[i].s && memcmp(c.value, z->coef[i].v, 32) == 0;           \
        }                                                                                       \
        return ok;                                                                              \
    }

ZKEY_CURVE(bn254, BN254, 64, 128)
ZKEY_CURVE(bls381, BLS381, 96, 192)

/* A point on the curve outside the prime-order subgroup (y^2 = x^3 + b with
 * small x; with a cofactor > 1 such a point is almost never in the group;
 * the test checks that with the slow reference check). */
static int bls381_g1_nonsub(bls381_g1_affine *p) {
    for (uint64_t x = 1; x < 1000; x++) {
        bls381_fp t, b;
        bls381_fp_from_u64(&p->x, x);
        bls381_fp_from_u64(&b, 4);
        bls381_fp_sqr(&t, &p->x);
        bls381_fp_mul(&t, &t, &p->x);
        bls381_fp_add(&t, &t, &b);
        if (bls381_fp_sqrt(&p->y, &t) && !bls381_g1_affine_in_subgroup_slow(p))
            return 1;
    }
    return 0;
}
static int bn254_g2_nonsub(bn254_g2_affine *p) {
    bn254_g2_affine g;
    bn254_g2_generator(&g);
    for (uint64_t x = 1; x < 1000; x++) {
        /* b' = y_g^2 - x_g^3 (the twist's b, derived from the generator) */
        bn254_fp2 t, b, u;
        bn254_fp2_sqr(&b, &g.y);
        bn254_fp2_sqr(&u, &g.x);
        bn254_fp2_mul(&u, &u, &g.x);
        bn254_fp2_sub(&b, &b, &u);
        bn254_fp_from_u64(&p->x.c0, x);
        bn254_fp_from_u64(&p->x.c1, 1);
        bn254_fp2_sqr(&t, &p->x);
        bn254_fp2_mul(&t, &t, &p->x);
        bn254_fp2_add(&t, &t, &b);
        if (bn254_fp2_sqrt_vartime(&p->y, &t) && bn254_g2_affine_is_on_curve(p) &&
            !bn254_g2_affine_in_subgroup_slow(p))
            return 1;
    }
    return 0;
}

static g16_pool *POOL;

/* Loads from memory; on success compares with z and closes. */
#define ZK_LOAD(C, buf, len, flags, code, needle, z, zp)                                        \
    do {                                                                                        \
        g16_zkey k_;                                                                            \
        EXPECT(g16_zkey_open_mem(&k_, "t.zkey", (buf), (len), (flags), POOL, st), code, needle); \
        if ((code) == G16_OK) {                                                                 \
            CHECK(zk_matches_##C(&k_, (z), (zp)));                                             \
            g16_zkey_close(&k_);                                                                \
        }                                                                                       \
    } while (0)

static void patch(uint8_t *p, const void *v, size_t n) { memcpy(p, v, n); }

#define TEST_ZKEY(C, CU, G1S, G2S, NQ)                                                          \
    static void test_zkey_##C(void) {                                                           \
        zparams zp = {.nvars = 7, .npub = 2, .domain = 8};                                     \
        zk_##C z;                                                                               \
        zk_make_##C(&z, &zp);                                                                   \
        bbuf b;                                                                                 \
        /* valid: snarkjs layout, from a file, serial and pooled */                              \
        zk_build_##C(&b, &z, &zp);                                                              \
        const char *path = tpath(#C ".zkey");                                                   \
        write_file(path, b.p, b.len);                                                           \
        {                                                                                       \
            g16_zkey k;                                                                         \
            g16_status st = {0};                                                                \
            CHECK_MSG(g16_zkey_open(&k, path, 0, NULL, &st) == G16_OK, "%s", st.msg);          \
            CHECK(k.curve == (strcmp(#C, "bn254") == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381)); \
            CHECK(zk_matches_##C(&k, &z, &zp));                                                 \
            CHECK(k.log2_domain == 3 && k.n8q == NQ && k.n8r == 32);                            \
            g16_zkey_close(&k);                                                                 \
            CHECK(g16_zkey_open(&k, path, G16_ZKEY_CHECK_SUBGROUP, POOL, &st) == G16_OK);       \
            CHECK(zk_matches_##C(&k, &z, &zp));                                                 \
            g16_zkey_close(&k);                                                                 \
        }                                                                                       \
        ZK_LOAD(C, b.p, b.len, 0, G16_OK, NULL, &z, &zp);                                      \
        ZK_LOAD(C, b.p, b.len, G16_ZKEY_TRUSTED, G16_OK, NULL, &z, &zp);                       \
        /* zero copy when aligned; copies otherwise (through the same accessors) */             \
        {                                                                                       \
            bbuf b2;                                                                            \
            zparams za = zp;                                                                    \
            za.align = 1;                                                                       \
            zk_build_##C(&b2, &z, &za);                                                         \
            uint8_t *al = aligned_alloc(64, (b2.len + 63) / 64 * 64);                           \
            memcpy(al, b2.p, b2.len);                                                           \
            g16_zkey k;                                                                         \
            g16_status st = {0};                                                                \
            CHECK(g16_zkey_open_mem(&k, "aligned", al, b2.len, 0, POOL, &st) == G16_OK);        \
            CHECK(zk_matches_##C(&k, &z, &zp));                                                 \
            CHECK(k.copied_bytes == 0);                                                         \
            CHECK((const uint8_t *)k.C.A == al + b2.sec_off[5]);                                \
            CHECK((const uint8_t *)k.C.B2 == al + b2.sec_off[7]);                               \
            g16_zkey_close(&k);                                                                 \
            /* shifted by 4: every point section misaligned, all copied */                      \
            uint8_t *mis = aligned_alloc(64, (b2.len + 4 + 63) / 64 * 64);                      \
            memcpy(mis + 4, b2.p, b2.len);                                                      \
            CHECK(g16_zkey_open_mem(&k, "misaligned", mis + 4, b2.len, 0, POOL, &st) == G16_OK); \
            CHECK(zk_matches_##C(&k, &z, &zp));                                                 \
            CHECK(k.copied_bytes > 0);                                                          \
            CHECK(((uintptr_t)k.C.A & 7) == 0 && ((uintptr_t)k.C.H & 7) == 0);                  \
            g16_zkey_close(&k);                                                                 \
            /* NO_COPY: the misaligned sections stay in place, bytes only */                    \
            CHECK(g16_zkey_open_mem(&k, "nocopy", mis + 4, b2.len, G16_ZKEY_NO_COPY, POOL, &st) == G16_OK); \
            CHECK(k.C.A == NULL && k.C.B2 == NULL && k.C.H == NULL && k.C.IC != NULL);          \
            CHECK(k.raw[1] == mis + 4 + b2.sec_off[5] && k.raw[3] == mis + 4 + b2.sec_off[7]);  \
            CHECK(k.copied_bytes == (zp.npub + 1) * (size_t)G1S); /* IC only */                 \
            CHECK(memcmp(k.raw[5], &z.h[0], G1S) == 0);                                         \
            g16_zkey_close(&k);                                                                 \
            CHECK(g16_zkey_open_mem(&k, "nocopy", al, b2.len, G16_ZKEY_NO_COPY, POOL, &st) == G16_OK); \
            CHECK(zk_matches_##C(&k, &z, &zp) && k.copied_bytes == 0);                          \
            g16_zkey_close(&k);                                                                 \
            free(al);                                                                           \
            free(mis);                                                                          \
            free(b2.p);                                                                         \
        }                                                                                       \
        /* any section order */                                                                 \
        {                                                                                       \
            bbuf b2;                                                                            \
            zparams zr = zp;                                                                    \
            zr.order_rev = 1;                                                                   \
            zk_build_##C(&b2, &z, &zr);                                                         \
            ZK_LOAD(C, b2.p, b2.len, 0, G16_OK, NULL, &z, &zp);                                \
            free(b2.p);                                                                         \
        }                                                                                       \
        /* truncation at every cut point: always TRUNCATED */                                   \
        for (size_t cut = 0; cut < b.len; cut += (cut < 300 ? 1 : 7)) {                        \
            g16_zkey k;                                                                         \
            g16_status st = {0};                                                                \
            g16_err e = g16_zkey_open_mem(&k, "cut", b.p, cut, 0, NULL, &st);                   \
            CHECK_MSG(e == G16_ERR_TRUNCATED, "cut at %zu of %zu: %d %s", cut, b.len, e, st.msg); \
        }                                                                                       \
        {                                                                                       \
            const char *cp = tpath("cut.zkey");                                                 \
            write_file(cp, b.p, b.len / 2);                                                     \
            g16_zkey k;                                                                         \
            EXPECT(g16_zkey_open(&k, cp, 0, POOL, st), G16_ERR_TRUNCATED, "cut.zkey");          \
            EXPECT(g16_zkey_open(&k, tpath("missing.zkey"), 0, POOL, st), G16_ERR_IO, "missing.zkey"); \
        }                                                                                       \
        uint8_t *m = malloc(b.len);                                                             \
        g16_zkey k;                                                                             \
        /* corrupted section lengths */                                                         \
        size_t s2 = b.size_pos[2];                                                              \
        uint64_t huge = 1ull << 62, ovf = ~0ull - 5, sz;                                        \
        memcpy(m, b.p, b.len), patch(m + s2, &huge, 8);                                         \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_TRUNCATED, "section 2"); \
        memcpy(m, b.p, b.len), patch(m + s2, &ovf, 8);                                          \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_TRUNCATED, NULL);     \
        memcpy(m, b.p, b.len), memcpy(&sz, m + b.size_pos[10], 8), sz -= 1, patch(m + b.size_pos[10], &sz, 8); \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "trailing");  \
        memcpy(m, b.p, b.len), memcpy(&sz, m + b.size_pos[10], 8), sz += 1, patch(m + b.size_pos[10], &sz, 8); \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_TRUNCATED, NULL);     \
        {                                                                                       \
            uint32_t nsec = 0x7fffffff;                                                         \
            memcpy(m, b.p, b.len), patch(m + 8, &nsec, 4);                                      \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_TRUNCATED, NULL); \
        }                                                                                       \
        /* magic, version, protocol */                                                          \
        memcpy(m, b.p, b.len), m[0] = 'Z';                                                      \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "magic");     \
        memcpy(m, b.p, b.len), patch(m + 4, &(uint32_t){3}, 4);                                 \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_UNSUPPORTED, "version"); \
        memcpy(m, b.p, b.len), patch(m + b.sec_off[1], &(uint32_t){2}, 4);                      \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_UNSUPPORTED, "PLONK"); \
        memcpy(m, b.p, b.len), patch(m + b.sec_off[1], &(uint32_t){7}, 4);                      \
        EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "protocol");  \
        /* structural variants built from parameters */                                         \
        struct {                                                                                \
            zparams p;                                                                          \
            g16_err code;                                                                       \
            const char *needle;                                                                 \
        } var[] = {                                                                             \
            {{.omit = 9}, G16_ERR_FORMAT, "missing section 9"},                                 \
            {{.omit = 4}, G16_ERR_FORMAT, "missing section 4"},                                 \
            {{.omit = 1}, G16_ERR_FORMAT, "missing section 1"},                                 \
            {{.dup = 3}, G16_ERR_FORMAT, "duplicate section 3"},                                \
            {{.dup = 10}, G16_ERR_FORMAT, "duplicate section 10"},                              \
            {{.wrong_q = 1}, G16_ERR_WRONG_CURVE, "q"},                                         \
            {{.wrong_r = 1}, G16_ERR_WRONG_CURVE, "order r"},                                   \
            {{.q_pad = 16}, G16_ERR_FORMAT, "n8q"},                                             \
            {{.r_pad = 8}, G16_ERR_FORMAT, "n8r"},                                              \
            {{.npub = 7}, G16_ERR_FORMAT, "nPublic"},                                           \
            {{.domain = 6}, G16_ERR_FORMAT, "power of two"},                                    \
        };                                                                                      \
        for (size_t i = 0; i < sizeof var / sizeof var[0]; i++) {                               \
            zparams v = var[i].p;                                                               \
            if (!v.nvars)                                                                       \
                v.nvars = zp.nvars;                                                             \
            if (!v.npub)                                                                        \
                v.npub = zp.npub;                                                               \
            if (!v.domain)                                                                      \
                v.domain = zp.domain;                                                           \
            bbuf bv;                                                                            \
            zk_##C zv = z;                                                                      \
            if (v.npub >= v.nvars) { /* keep the builder's arrays in range */                   \
                v.npub = v.nvars;                                                               \
                zv.ic = realloc(NULL, (v.npub + 1) * sizeof *z.ic);                              \
                g1s_##C(zv.ic, v.npub + 1, 7);                                                  \
            }                                                                                   \
            if (v.domain != zp.domain) {                                                        \
                zv.h = calloc(v.domain, sizeof *z.h);                                           \
                g1s_##C(zv.h, v.domain, 100);                                                   \
            }                                                                                   \
            zk_build_##C(&bv, &zv, &v);                                                         \
            EXPECT(g16_zkey_open_mem(&k, "t", bv.p, bv.len, 0, POOL, st), var[i].code, var[i].needle); \
            if (zv.ic != z.ic)                                                                  \
                free(zv.ic);                                                                    \
            if (zv.h != z.h)                                                                    \
                free(zv.h);                                                                     \
            free(bv.p);                                                                         \
        }                                                                                       \
        /* domain beyond the 2-adicity: huge domainSize in the header (sizes are checked later) */ \
        memcpy(m, b.p, b.len), patch(m + b.sec_off[2] + 4 + NQ + 4 + 32 + 8, &(uint32_t){1u << 31}, 4); \
        if (NQ == 32) /* BN254: 2-adicity 28; BLS12-381 (32) allows 2^31, then H's size is wrong */ \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_UNSUPPORTED, "domainSize"); \
        else                                                                                    \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "section 9 (H)"); \
        /* section sizes: one point short in A (shift the rest: rebuild with nvars - 1 in A) */ \
        {                                                                                       \
            bbuf bv;                                                                            \
            zk_build_##C(&bv, &z, &zp);                                                         \
            uint64_t s5;                                                                        \
            memcpy(&s5, bv.p + bv.size_pos[5], 8);                                              \
            s5 -= G1S; /* A now ends one point early; the last point becomes junk bytes */      \
            patch(bv.p + bv.size_pos[5], &s5, 8);                                               \
            /* re-frame: the G1S bytes left over must not parse as a header, so cut them out */ \
            memmove(bv.p + bv.sec_off[5] + s5, bv.p + bv.sec_off[5] + s5 + G1S,                 \
                    bv.len - (bv.sec_off[5] + s5 + G1S));                                       \
            bv.len -= G1S;                                                                      \
            EXPECT(g16_zkey_open_mem(&k, "t", bv.p, bv.len, 0, POOL, st), G16_ERR_FORMAT, "section 5 (A)"); \
            free(bv.p);                                                                         \
        }                                                                                       \
        /* points: non-canonical, off curve, off subgroup; vk points always checked */          \
        {                                                                                       \
            static const limb_t q[] = CU##_FP_P;                                                \
            uint8_t qb[NQ];                                                                     \
            limbs_to_le(qb, q, NQ);                                                             \
            memcpy(m, b.p, b.len), patch(m + b.sec_off[5] + 3 * G1S, qb, NQ);                   \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_CANONICAL, "point 3"); \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, G16_ZKEY_TRUSTED, POOL, st), G16_OK, NULL); \
            g16_zkey_close(&k);                                                                 \
            memcpy(m, b.p, b.len), m[b.sec_off[7] + 2 * G2S + NQ * 2] ^= 1;                     \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_ON_CURVE, "B2"); \
            memcpy(m, b.p, b.len), m[b.sec_off[9] + 5 * G1S + NQ] ^= 1;                         \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_ON_CURVE, "H"); \
            memcpy(m, b.p, b.len), m[b.sec_off[8] + NQ] ^= 1;                                   \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_ON_CURVE, "(C), point 0"); \
            memcpy(m, b.p, b.len), m[b.sec_off[3] + NQ] ^= 1; /* IC: checked even if trusted */ \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, G16_ZKEY_TRUSTED, POOL, st), G16_ERR_NOT_ON_CURVE, "IC"); \
            size_t vk = b.sec_off[2] + 4 + NQ + 4 + 32 + 12;                                    \
            memcpy(m, b.p, b.len), m[vk + NQ] ^= 1;                                             \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, G16_ZKEY_TRUSTED, POOL, st), G16_ERR_NOT_ON_CURVE, "alpha1"); \
            memcpy(m, b.p, b.len), patch(m + vk + 3 * G1S + 2 * G2S, qb, NQ);                   \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_CANONICAL, "delta2"); \
        }                                                                                       \
        /* coefficients */                                                                      \
        {                                                                                       \
            size_t c0 = b.sec_off[4] + 4 + 5 * G16_ZKEY_COEF_SIZE;                              \
            static const limb_t r[4] = CU##_FR_P;                                               \
            uint8_t rb[32];                                                                     \
            limbs_to_le(rb, r, 32);                                                             \
            memcpy(m, b.p, b.len), patch(m + c0, &(uint32_t){2}, 4);                            \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "coefficient 5: matrix"); \
            memcpy(m, b.p, b.len), patch(m + c0 + 4, &zp.domain, 4);                            \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "domainSize"); \
            memcpy(m, b.p, b.len), patch(m + c0 + 8, &zp.nvars, 4);                             \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, G16_ZKEY_TRUSTED, POOL, st), G16_ERR_FORMAT, "nVars"); \
            memcpy(m, b.p, b.len), patch(m + c0 + 12, rb, 32);                                  \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_CANONICAL, "coefficient 5"); \
            memcpy(m, b.p, b.len), patch(m + b.sec_off[4], &(uint32_t){NCOEF + 1}, 4);          \
            EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_FORMAT, "section 4"); \
        }                                                                                       \
        free(m);                                                                                \
        free(b.p);                                                                              \
        zk_free_##C(&z);                                                                        \
    }
TEST_ZKEY(bn254, BN254, 64, 128, 32)
TEST_ZKEY(bls381, BLS381, 96, 192, 48)

/* Subgroup checks: a point on the curve but outside the group is refused in
 * the vk part always, in the big sections only with G16_ZKEY_CHECK_SUBGROUP. */
static void test_zkey_subgroup(void) {
    {
        zparams zp = {.nvars = 5, .npub = 1, .domain = 4};
        zk_bls381 z;
        zk_make_bls381(&z, &zp);
        bls381_g1_affine bad;
        CHECK(bls381_g1_nonsub(&bad));
        CHECK(bls381_g1_affine_is_on_curve(&bad));
        z.a[1] = bad;
        bbuf b;
        zk_build_bls381(&b, &z, &zp);
        g16_zkey k;
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, 0, POOL, st), G16_OK, NULL);
        g16_zkey_close(&k);
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, G16_ZKEY_CHECK_SUBGROUP, POOL, st),
               G16_ERR_NOT_IN_SUBGROUP, "point 1");
        free(b.p);
        z.a[1] = z.a[0];
        z.alpha1 = bad;
        zk_build_bls381(&b, &z, &zp);
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, G16_ZKEY_TRUSTED, POOL, st),
               G16_ERR_NOT_IN_SUBGROUP, "alpha1");
        free(b.p);
        zk_free_bls381(&z);
    }
    {
        zparams zp = {.nvars = 5, .npub = 1, .domain = 4};
        zk_bn254 z;
        zk_make_bn254(&z, &zp);
        bn254_g2_affine bad;
        CHECK(bn254_g2_nonsub(&bad));
        z.b2[2] = bad;
        bbuf b;
        zk_build_bn254(&b, &z, &zp);
        g16_zkey k;
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, 0, POOL, st), G16_OK, NULL);
        g16_zkey_close(&k);
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, G16_ZKEY_CHECK_SUBGROUP, POOL, st),
               G16_ERR_NOT_IN_SUBGROUP, "B2");
        free(b.p);
        z.b2[2] = z.b2[0];
        z.delta2 = bad;
        zk_build_bn254(&b, &z, &zp);
        EXPECT(g16_zkey_open_mem(&k, "t", b.p, b.len, 0, POOL, st), G16_ERR_NOT_IN_SUBGROUP,
               "delta2");
        free(b.p);
        zk_free_bn254(&z);
    }
}

/* Several validation tasks per section: the error must name the lowest bad
 * index, whichever task finishes first; a copy of a misaligned key spans
 * the tasks correctly. */
static void test_zkey_chunks(void) {
    zparams small = {.nvars = 8, .npub = 1, .domain = 8};
    zk_bn254 z;
    zk_make_bn254(&z, &small);
    zparams zp = {.nvars = 3 * 4096 + 7, .npub = 1, .domain = 8};
    zk_bn254 big = z;
    big.a = malloc(zp.nvars * sizeof *big.a);
    big.b1 = malloc(zp.nvars * sizeof *big.b1);
    big.b2 = malloc(zp.nvars * sizeof *big.b2);
    big.c = malloc(zp.nvars * sizeof *big.c);
    for (uint32_t i = 0; i < zp.nvars; i++) {
        big.a[i] = z.a[i % 8];
        big.b1[i] = z.b1[(i + 3) % 8];
        big.b2[i] = z.b2[i % 8];
        big.c[i] = z.c[i % 6];
    }
    bbuf b;
    zk_build_bn254(&b, &big, &zp);
    ZK_LOAD(bn254, b.p, b.len, 0, G16_OK, NULL, &big, &zp);
    uint8_t *mis = malloc(b.len + 4);
    memcpy(mis + 4, b.p, b.len); /* +4: sections move to the other alignment */
    {
        g16_zkey k;
        g16_status st = {0};
        CHECK(g16_zkey_open_mem(&k, "mis", mis + 4, b.len, 0, POOL, &st) == G16_OK);
        CHECK(zk_matches_bn254(&k, &big, &zp));
        g16_zkey_close(&k);
    }
    uint8_t *m = malloc(b.len);
    memcpy(m, b.p, b.len);
    m[b.sec_off[6] + 9000 * 64 + 40] ^= 4;  /* B1 point 9000 (task 2) */
    m[b.sec_off[6] + 12290 * 64 + 40] ^= 4; /* B1 point 12290 (task 3) */
    m[b.sec_off[6] + 4100 * 64 + 40] ^= 4;  /* B1 point 4100 (task 1) */
    g16_zkey k;
    EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, POOL, st), G16_ERR_NOT_ON_CURVE, "(B1), point 4100 of 12295");
    EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, 0, NULL, st), G16_ERR_NOT_ON_CURVE, "(B1), point 4100 of 12295");
    EXPECT(g16_zkey_open_mem(&k, "t", m, b.len, G16_ZKEY_TRUSTED, POOL, st), G16_OK, NULL);
    g16_zkey_close(&k);
    free(m), free(mis), free(b.p);
    free(big.a), free(big.b1), free(big.b2), free(big.c);
    zk_free_bn254(&z);
}

/* ---- wtns ------------------------------------------------------------------ */

static void build_wtns(bbuf *b, const limb_t *prime, uint32_t n8, uint32_t n, const uint8_t *vals,
                       uint32_t version) {
    bbegin(b, "wtns", version);
    bsec_start(b, 1);
    bput32(b, n8);
    uint8_t pb[64] = {0};
    limbs_to_le(pb, prime, 32);
    bput(b, pb, n8);
    bput32(b, n);
    bsec_end(b, 1);
    bsec(b, 2, vals, (size_t)n * 32);
}

/* A witness of several read chunks (2^16 values each) on a pool: the values
 * equal the serial read's, in both forms, and of two values >= r in
 * different chunks the error names the first, whatever the threads. */
static void test_wtns_pool(g16_curve curve) {
    const limb_t *r = curve == G16_CURVE_BN254 ? (const limb_t[4])BN254_FR_P : (const limb_t[4])BLS381_FR_P;
    const uint32_t n = 3 * 65536 + 5;
    uint8_t *vals = malloc((size_t)n * 32);
    if (!vals) {
        CHECK(0);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        limb_t x[4] = {g16_rng_next(&RNG), g16_rng_next(&RNG), g16_rng_next(&RNG), g16_rng_next(&RNG) >> 4};
        limbs_to_le(vals + 32 * (size_t)i, x, 32); /* < 2^252 < r */
    }
    for (int std = 0; std < 2; std++) {
        unsigned fl = std ? G16_WTNS_STANDARD : 0;
        bbuf b;
        build_wtns(&b, r, 32, n, vals, 2);
        g16_frvec w1, w2;
        g16_status st0 = {0};
        CHECK(g16_wtns_read_mem_ex(&w1, "t", b.p, b.len, fl, NULL, &st0) == G16_OK);
        CHECK(g16_wtns_read_mem_ex(&w2, "t", b.p, b.len, fl, POOL, &st0) == G16_OK);
        CHECK(w1.raw && w2.raw && w1.n == n && w2.n == n && memcmp(w1.raw, w2.raw, (size_t)n * 32) == 0);
        CHECK(!std || (w2.raw && memcmp(w2.raw, vals, (size_t)n * 32) == 0));
        g16_frvec_free(&w1);
        g16_frvec_free(&w2);
        free(b.p);
        uint8_t *bad = malloc((size_t)n * 32);
        if (!bad) {
            CHECK(0);
            break;
        }
        memcpy(bad, vals, (size_t)n * 32);
        limbs_to_le(bad + 32 * (size_t)150001, r, 32);
        limbs_to_le(bad + 32 * (size_t)70000, r, 32);
        build_wtns(&b, r, 32, n, bad, 2);
        EXPECT(g16_wtns_read_mem_ex(&w1, "t", b.p, b.len, fl, POOL, st), G16_ERR_NOT_CANONICAL, "value 70000 ");
        free(b.p);
        free(bad);
    }
    free(vals);
}

static void test_wtns_curve(g16_curve curve) {
    const limb_t *r = curve == G16_CURVE_BN254 ? (const limb_t[4])BN254_FR_P : (const limb_t[4])BLS381_FR_P;
    const limb_t *other = curve == G16_CURVE_BN254 ? (const limb_t[4])BLS381_FR_P : (const limb_t[4])BN254_FR_P;
    static const limb_t bnq[4] = BN254_FP_P;
    enum { N = 9 };
    uint8_t vals[N * 32], badv[N * 32];
    limb_t mont[N][4];
    for (int i = 0; i < N; i++) {
        if (curve == G16_CURVE_BN254) {
            bn254_fr v;
            i == 0 ? bn254_fr_set_one(&v) : bn254_fr_random(&v, &RNG);
            memcpy(mont[i], v.l, 32);
            limb_t x[4];
            bn254_fr_from_mont(x, &v);
            limbs_to_le(vals + 32 * i, x, 32);
        } else {
            bls381_fr v;
            i == 0 ? bls381_fr_set_one(&v) : bls381_fr_random(&v, &RNG);
            memcpy(mont[i], v.l, 32);
            limb_t x[4];
            bls381_fr_from_mont(x, &v);
            limbs_to_le(vals + 32 * i, x, 32);
        }
    }
    bbuf b;
    build_wtns(&b, r, 32, N, vals, 2);
    g16_frvec w;
    g16_status st0 = {0};
    CHECK(g16_wtns_read_mem(&w, "t.wtns", b.p, b.len, &st0) == G16_OK);
    CHECK(w.curve == curve && w.n == N);
    for (int i = 0; i < N && w.raw; i++)
        CHECK(memcmp(w.raw[i], mont[i], 32) == 0);
    /* standard form: the file's integers, same JSON, same file when written back */
    {
        g16_frvec ws;
        CHECK(g16_wtns_read_mem_ex(&ws, "t.wtns", b.p, b.len, G16_WTNS_STANDARD, NULL, &st0) == G16_OK);
        CHECK(ws.standard == 1 && ws.n == N && ws.curve == curve);
        CHECK(ws.raw && memcmp(ws.raw, vals, sizeof vals) == 0);
        char *j1 = NULL, *j2 = NULL;
        CHECK(g16_public_json_str(&j1, &ws, 0, N, &st0) == G16_OK);
        CHECK(g16_public_json_str(&j2, &w, 0, N, &st0) == G16_OK);
        CHECK(j1 && j2 && strcmp(j1, j2) == 0);
        free(j1), free(j2);
        const char *ps = tpath("std.wtns");
        CHECK(g16_wtns_write(ps, &ws, &st0) == G16_OK);
        size_t sl = 0;
        char *sb = t_read_file(ps, &sl);
        CHECK(sb && sl == b.len && memcmp(sb, b.p, sl) == 0);
        free(sb);
        g16_zkey key;
        memset(&key, 0, sizeof key);
        key.curve = curve;
        key.nVars = N;
        EXPECT(g16_wtns_check_key(&ws, &key, st), G16_OK, NULL);
        ws.raw[0][0] = 2;
        EXPECT(g16_wtns_check_key(&ws, &key, st), G16_ERR_FORMAT, "value 0");
        g16_frvec_free(&ws);
        uint8_t big[N * 32];
        memcpy(big, vals, sizeof big);
        limbs_to_le(big + 32 * 7, r, 32);
        bbuf bb;
        build_wtns(&bb, r, 32, N, big, 2);
        EXPECT(g16_wtns_read_mem_ex(&ws, "t", bb.p, bb.len, G16_WTNS_STANDARD, NULL, st), G16_ERR_NOT_CANONICAL,
               "value 7");
        free(bb.p);
    }
    /* writer round trip, byte-identical to the hand-built file */
    const char *p = tpath("rt.wtns");
    CHECK(g16_wtns_write(p, &w, &st0) == G16_OK);
    size_t len = 0;
    char *back = t_read_file(p, &len);
    CHECK(back && len == b.len && memcmp(back, b.p, len) == 0);
    free(back);
    g16_frvec w2;
    CHECK(g16_wtns_read(&w2, p, &st0) == G16_OK && w2.n == N);
    g16_frvec_free(&w2);
    if (getenv("G16_FORMATS_OUT")) { /* for the snarkjs comparison (wtns export json) */
        char *js = NULL, name[64];
        snprintf(name, sizeof name, "%s.wtns", g16_snarkjs_curve_name(curve));
        save_out_bin(name, b.p, b.len);
        CHECK(g16_public_json_str(&js, &w, 0, w.n, &st0) == G16_OK);
        snprintf(name, sizeof name, "%s_wtns.json", g16_snarkjs_curve_name(curve));
        save_out(name, js);
        free(js);
    }
    /* size check against a key (only the fields it reads) */
    {
        g16_zkey key;
        memset(&key, 0, sizeof key);
        key.curve = curve;
        key.nVars = N;
        snprintf(key.file.name, sizeof key.file.name, "k.zkey");
        EXPECT(g16_wtns_check_key(&w, &key, st), G16_OK, NULL);
        key.nVars = N + 1;
        EXPECT(g16_wtns_check_key(&w, &key, st), G16_ERR_SIZE_MISMATCH, "nVars");
        key.nVars = N;
        key.curve = curve == G16_CURVE_BN254 ? G16_CURVE_BLS12_381 : G16_CURVE_BN254;
        EXPECT(g16_wtns_check_key(&w, &key, st), G16_ERR_WRONG_CURVE, NULL);
        key.curve = curve;
        memcpy(w.raw[0], mont[1], 32);
        EXPECT(g16_wtns_check_key(&w, &key, st), G16_ERR_FORMAT, "value 0");
    }
    g16_frvec_free(&w);
    for (size_t cut = 0; cut < b.len; cut++)
        EXPECT(g16_wtns_read_mem(&w, "cut", b.p, cut, st), G16_ERR_TRUNCATED, NULL);
    bbuf v;
    limb_t rx[4];
    memcpy(rx, r, 32);
    rx[2] ^= 0x100; /* a prime-sized number that is no known r */
    build_wtns(&v, rx, 32, N, vals, 2);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_WRONG_CURVE, "prime");
    free(v.p);
    /* the other curve's r: a valid header, so the values are checked against it */
    limbs_to_le(badv, other, 32);
    badv[0] -= 1; /* value 0 = other r - 1: fine */
    build_wtns(&v, other, 32, 1, badv, 2);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_OK, NULL);
    CHECK(w.curve != curve && w.n == 1);
    g16_frvec_free(&w);
    free(v.p);
    build_wtns(&v, bnq, 32, N, vals, 2);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_WRONG_CURVE, "prime");
    free(v.p);
    build_wtns(&v, r, 40, N, vals, 2);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_FORMAT, "n8");
    free(v.p);
    build_wtns(&v, r, 32, N, vals, 1);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_UNSUPPORTED, "version");
    free(v.p);
    build_wtns(&v, r, 32, N - 1, vals, 2); /* section 2 holds N - 1 values... */
    memcpy(v.p + v.sec_off[1] + 36, &(uint32_t){N}, 4); /* ...but the header says N */
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_FORMAT, "section 2");
    free(v.p);
    memcpy(badv, vals, sizeof badv);
    limbs_to_le(badv + 4 * 32, r, 32);
    build_wtns(&v, r, 32, N, badv, 2);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_NOT_CANONICAL, "value 4");
    free(v.p);
    bbegin(&v, "wtns", 2);
    bsec(&v, 2, vals, 32);
    EXPECT(g16_wtns_read_mem(&w, "t", v.p, v.len, st), G16_ERR_FORMAT, "missing section 1");
    free(v.p);
    free(b.p);
}

/* ---- r1cs ------------------------------------------------------------------ */

/* Circuit: wires 0 = 1, 1 = out (public), 2 = x (public in), 3 = y (private
 * in), 4 = z. Constraints: x * y = z; (z + 3) * z = out; 1 * (2x) = 2x. */
typedef struct term {
    uint32_t wire;
    uint64_t coef; /* small constant, or ~0: r - 1 (i.e. -1) */
} term;
typedef struct lc {
    int n;
    term t[3];
} lc;
static const lc R1CS_ROWS_[3][3] = {
    {{1, {{2, 1}}}, {1, {{3, 1}}}, {1, {{4, 1}}}},
    {{2, {{4, 1}, {0, 3}}}, {1, {{4, 1}}}, {1, {{1, 1}}}},
    {{1, {{0, 1}}}, {1, {{2, 2}}}, {2, {{2, 3}, {2, ~0ull}}}},
};

typedef struct rparams {
    const limb_t *prime;
    uint32_t n8;
    uint32_t nwires, npubin, nprvin;
    int bad_wire, bad_coef, extra_bytes, big_nterms, labels_short, custom_gates;
} rparams;

static void put_coef(bbuf *b, const limb_t *r, uint64_t c, uint32_t n8) {
    limb_t x[8] = {0};
    if (c == ~0ull) {
        memcpy(x, r, 32);
        x[0] -= 1;
    } else {
        x[0] = c;
    }
    uint8_t t[64] = {0};
    limbs_to_le(t, x, n8);
    bput(b, t, n8);
}

static void build_r1cs(bbuf *b, const rparams *rp) {
    bbegin(b, "r1cs", 1);
    /* circom's section order: 2, 1, 3 */
    bsec_start(b, 2);
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 3; m++) {
            const lc *l = &R1CS_ROWS_[i][m];
            bput32(b, (i == 1 && m == 0 && rp->big_nterms) ? 0x40000000u : (uint32_t)l->n);
            for (int k = 0; k < l->n; k++) {
                bput32(b, (i == 2 && m == 2 && k == 1 && rp->bad_wire) ? rp->nwires : l->t[k].wire);
                if (i == 1 && m == 1 && rp->bad_coef) {
                    uint8_t t[64] = {0};
                    limbs_to_le(t, rp->prime, 32);
                    bput(b, t, rp->n8);
                } else {
                    put_coef(b, rp->prime, l->t[k].coef, rp->n8);
                }
            }
        }
    bzero_(b, (size_t)rp->extra_bytes);
    bsec_end(b, 2);
    bsec_start(b, 1);
    bput32(b, rp->n8);
    uint8_t pb[64] = {0};
    limbs_to_le(pb, rp->prime, 32);
    bput(b, pb, rp->n8);
    bput32(b, rp->nwires);
    bput32(b, 1); /* nPubOut */
    bput32(b, rp->npubin);
    bput32(b, rp->nprvin);
    bput64(b, 7); /* nLabels */
    bput32(b, 3); /* nConstraints */
    bsec_end(b, 1);
    bsec_start(b, 3);
    for (uint32_t i = 0; i < rp->nwires - (uint32_t)rp->labels_short; i++)
        bput64(b, 100 + i);
    bsec_end(b, 3);
    if (rp->custom_gates)
        bsec(b, 4, "\0\0\0\0", 4);
}

#define R1CS_TEST(F)                                                                            \
    static void r1cs_witness_##F(g16_frvec *w, uint64_t x, uint64_t y) {                        \
        F v[5];                                                                                 \
        F##_set_one(&v[0]);                                                                     \
        F##_from_u64(&v[2], x);                                                                 \
        F##_from_u64(&v[3], y);                                                                 \
        F##_mul(&v[4], &v[2], &v[3]);                                                           \
        F t;                                                                                    \
        F##_from_u64(&t, 3);                                                                    \
        F##_add(&t, &t, &v[4]);                                                                 \
        F##_mul(&v[1], &t, &v[4]);                                                              \
        w->n = 5;                                                                               \
        w->raw = malloc(5 * 32);                                                                \
        memcpy(w->raw, v, sizeof v);                                                            \
    }
R1CS_TEST(bn254_fr)
R1CS_TEST(bls381_fr)

static void test_r1cs_curve(g16_curve curve) {
    const limb_t *r = curve == G16_CURVE_BN254 ? (const limb_t[4])BN254_FR_P : (const limb_t[4])BLS381_FR_P;
    static const limb_t bnq[4] = BN254_FP_P;
    rparams rp = {.prime = r, .n8 = 32, .nwires = 5, .npubin = 1, .nprvin = 1};
    bbuf b;
    build_r1cs(&b, &rp);
    const char *path = tpath("t.r1cs");
    write_file(path, b.p, b.len);
    g16_r1cs rc;
    g16_status st0 = {0};
    CHECK(g16_r1cs_read(&rc, path, &st0) == G16_OK);
    CHECK(rc.curve == curve && rc.nWires == 5 && rc.nConstraints == 3 && rc.nPubOut == 1 &&
          rc.nPubIn == 1 && rc.nPrvIn == 1 && rc.nLabels == 7 && g16_r1cs_npublic(&rc) == 2);
    CHECK(rc.nnz[0] == 4 && rc.nnz[1] == 3 && rc.nnz[2] == 4);
    CHECK(rc.labels && rc.labels[4] == 104);
    /* CSR content equals what was written */
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 3; m++) {
            const lc *l = &R1CS_ROWS_[i][m];
            CHECK(rc.m[m].row[i + 1] - rc.m[m].row[i] == (uint64_t)l->n);
            for (int k = 0; k < l->n; k++) {
                uint64_t j = rc.m[m].row[i] + (uint64_t)k;
                CHECK(rc.m[m].wire[j] == l->t[k].wire);
                limb_t want[4] = {l->t[k].coef, 0, 0, 0};
                if (l->t[k].coef == ~0ull)
                    memcpy(want, r, 32), want[0] -= 1;
                limb_t std[4];
                if (curve == G16_CURVE_BN254)
                    bn254_fr_from_mont(std, (const bn254_fr *)(const void *)rc.m[m].coef[j]);
                else
                    bls381_fr_from_mont(std, (const bls381_fr *)(const void *)rc.m[m].coef[j]);
                CHECK(limbs_eq(std, want, 4));
            }
        }
    /* satisfiability */
    g16_frvec w = {.curve = curve};
    uint64_t x = g16_rng_next(&RNG) >> 8, y = g16_rng_next(&RNG) >> 8;
    if (curve == G16_CURVE_BN254)
        r1cs_witness_bn254_fr(&w, x, y);
    else
        r1cs_witness_bls381_fr(&w, x, y);
    uint32_t bad = 0;
    EXPECT(g16_r1cs_check_witness(&rc, &w, &bad, st), G16_OK, NULL);
    CHECK(bad == UINT32_MAX);
    limb_t save[4];
    {   /* the same witness in standard form */
        g16_frvec ws = {.curve = curve, .standard = 1, .n = 5};
        ws.raw = malloc(5 * 32);
        for (int i = 0; i < 5; i++) {
            if (curve == G16_CURVE_BN254)
                bn254_fr_from_mont(ws.raw[i], &w.bn254[i]);
            else
                bls381_fr_from_mont(ws.raw[i], &w.bls381[i]);
        }
        EXPECT(g16_r1cs_check_witness(&rc, &ws, &bad, st), G16_OK, NULL);
        ws.raw[4][0] ^= 2; /* z wrong: row 0 fails first */
        EXPECT(g16_r1cs_check_witness(&rc, &ws, &bad, st), G16_ERR_INVALID_ARG, "constraint 0");
        CHECK(bad == 0);
        g16_frvec_free(&ws);
    }
    memcpy(save, w.raw[1], 32);
    w.raw[1][0] ^= 1; /* out wrong: row 1 fails */
    EXPECT(g16_r1cs_check_witness(&rc, &w, &bad, st), G16_ERR_INVALID_ARG, "constraint 1");
    CHECK(bad == 1);
    memcpy(w.raw[1], save, 32);
    memcpy(w.raw[0], w.raw[3], 32);
    EXPECT(g16_r1cs_check_witness(&rc, &w, &bad, st), G16_ERR_INVALID_ARG, "value 0");
    w.n = 4;
    EXPECT(g16_r1cs_check_witness(&rc, &w, &bad, st), G16_ERR_SIZE_MISMATCH, NULL);
    w.n = 5;
    w.curve = curve == G16_CURVE_BN254 ? G16_CURVE_BLS12_381 : G16_CURVE_BN254;
    EXPECT(g16_r1cs_check_witness(&rc, &w, &bad, st), G16_ERR_WRONG_CURVE, NULL);
    g16_frvec_free(&w);
    g16_r1cs_free(&rc);
    for (size_t cut = 0; cut < b.len; cut++)
        EXPECT(g16_r1cs_read_mem(&rc, "cut", b.p, cut, st), G16_ERR_TRUNCATED, NULL);
    free(b.p);
    struct {
        rparams p;
        g16_err code;
        const char *needle;
    } var[] = {
        {{.bad_wire = 1}, G16_ERR_FORMAT, "constraint 2 (C) term 1: wire 5 >= nWires 5"},
        {{.bad_coef = 1}, G16_ERR_NOT_CANONICAL, "constraint 1 (B)"},
        {{.extra_bytes = 5}, G16_ERR_FORMAT, "after the last constraint"},
        {{.big_nterms = 1}, G16_ERR_FORMAT, "terms"},
        {{.labels_short = 1}, G16_ERR_FORMAT, "section 3"},
        {{.custom_gates = 1}, G16_ERR_UNSUPPORTED, "custom gates"},
        {{.nprvin = 4}, G16_ERR_FORMAT, "exceeds nWires"},
        {{.prime = bnq}, G16_ERR_WRONG_CURVE, "prime"},
        {{.n8 = 40}, G16_ERR_FORMAT, "n8"},
    };
    for (size_t i = 0; i < sizeof var / sizeof var[0]; i++) {
        rparams v = var[i].p;
        if (!v.prime)
            v.prime = r;
        if (!v.n8)
            v.n8 = 32;
        v.nwires = 5;
        v.npubin = 1;
        if (!v.nprvin)
            v.nprvin = 1;
        bbuf bv;
        build_r1cs(&bv, &v);
        EXPECT(g16_r1cs_read_mem(&rc, "t.r1cs", bv.p, bv.len, st), var[i].code, var[i].needle);
        free(bv.p);
    }
}

/* ---- JSON ------------------------------------------------------------------ */

/* Replaces the first occurrence of `from` (must exist) in s. */
static char *subst(const char *s, const char *from, const char *to) {
    const char *at = strstr(s, from);
    CHECK_MSG(at != NULL, "subst: \"%s\" not found", from);
    if (!at)
        return strdup(s);
    size_t a = (size_t)(at - s), fl = strlen(from), tl = strlen(to), n = strlen(s);
    char *o = malloc(n - fl + tl + 1);
    memcpy(o, s, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, at + fl, n - a - fl + 1);
    return o;
}

static void appendf(char **s, size_t *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    *s = realloc(*s, *n + (size_t)k + 1);
    memcpy(*s + *n, tmp, (size_t)k + 1);
    *n += (size_t)k;
}

#define JSON_TEST(C, B, CNAME)                                                                  \
    static void test_json_##C(void) {                                                           \
        g16_curve curve = strcmp(#C, "bn254") == 0 ? G16_CURVE_BN254 : G16_CURVE_BLS12_381;     \
        g16_curve other = curve == G16_CURVE_BN254 ? G16_CURVE_BLS12_381 : G16_CURVE_BN254;     \
        g16_proof p = {.curve = curve};                                                         \
        C##_g1_affine g1[2];                                                                    \
        C##_g2_affine g2[1];                                                                    \
        g1s_##C(g1, 2, 5 + (unsigned)(g16_rng_next(&RNG) % 100));                               \
        g2s_##C(g2, 1, 9 + (unsigned)(g16_rng_next(&RNG) % 100));                               \
        p.C.a = g1[0], p.C.b = g2[0], p.C.c = g1[1];                                            \
        char *s = NULL;                                                                         \
        g16_status st0 = {0};                                                                   \
        CHECK(g16_proof_json_str(&s, &p, &st0) == G16_OK);                                      \
        /* the expected bytes, from bfj's layout (space 1, no final newline) */                 \
        char d[12][128];                                                                        \
        B##_to_dec(d[0], 128, &p.C.a.x), B##_to_dec(d[1], 128, &p.C.a.y);                       \
        B##_to_dec(d[2], 128, &p.C.b.x.c0), B##_to_dec(d[3], 128, &p.C.b.x.c1);                 \
        B##_to_dec(d[4], 128, &p.C.b.y.c0), B##_to_dec(d[5], 128, &p.C.b.y.c1);                 \
        B##_to_dec(d[6], 128, &p.C.c.x), B##_to_dec(d[7], 128, &p.C.c.y);                       \
        char *want = NULL;                                                                      \
        size_t wn = 0;                                                                          \
        appendf(&want, &wn, "{\n \"pi_a\": [\n  \"%s\",\n  \"%s\",\n  \"1\"\n ],\n", d[0], d[1]); \
        appendf(&want, &wn, " \"pi_b\": [\n  [\n   \"%s\",\n   \"%s\"\n  ],\n", d[2], d[3]);  \
        appendf(&want, &wn, "  [\n   \"%s\",\n   \"%s\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ]\n ],\n", d[4], d[5]); \
        appendf(&want, &wn, " \"pi_c\": [\n  \"%s\",\n  \"%s\",\n  \"1\"\n ],\n", d[6], d[7]); \
        appendf(&want, &wn, " \"protocol\": \"groth16\",\n \"curve\": \"%s\"\n}", CNAME);       \
        CHECK_MSG(s && strcmp(s, want) == 0, "proof.json layout:\n%s\nwant:\n%s", s, want);      \
        free(want);                                                                             \
        save_out(#C "_proof.json", s);                                                          \
        g16_proof q;                                                                            \
        EXPECT(g16_proof_json_parse(&q, s, strlen(s), -1, st), G16_OK, NULL);                   \
        CHECK(q.curve == curve && C##_g1_affine_eq(&q.C.a, &p.C.a) &&                           \
              C##_g2_affine_eq(&q.C.b, &p.C.b) && C##_g1_affine_eq(&q.C.c, &p.C.c));            \
        EXPECT(g16_proof_json_parse(&q, s, strlen(s), (int)curve, st), G16_OK, NULL);           \
        EXPECT(g16_proof_json_parse(&q, s, strlen(s), (int)other, st), G16_ERR_WRONG_CURVE, "curve"); \
        const char *pp = tpath(#C "_proof.json");                                               \
        CHECK(g16_proof_json_write(pp, &p, &st0) == G16_OK);                                    \
        EXPECT(g16_proof_json_read(&q, pp, -1, st), G16_OK, NULL);                              \
        EXPECT(g16_proof_json_read(&q, tpath("nope.json"), -1, st), G16_ERR_IO, "nope.json");   \
        /* infinity round trip */                                                               \
        {                                                                                       \
            g16_proof pi = p;                                                                   \
            C##_g1_affine_set_inf(&pi.C.a);                                                     \
            C##_g2_affine_set_inf(&pi.C.b);                                                     \
            char *si = NULL;                                                                    \
            CHECK(g16_proof_json_str(&si, &pi, &st0) == G16_OK);                                \
            CHECK(si && strstr(si, "\"pi_a\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]"));           \
            CHECK(si && strstr(si, "\"pi_b\": [\n  [\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ]")); \
            EXPECT(g16_proof_json_parse(&q, si, strlen(si), -1, st), G16_OK, NULL);             \
            CHECK(C##_g1_affine_is_inf(&q.C.a) && C##_g2_affine_is_inf(&q.C.b));                \
            save_out(#C "_proof_inf.json", si);                                                 \
            free(si);                                                                           \
        }                                                                                       \
        /* malformed variants */                                                                \
        char y1[160], ybad[160], pdec[160];                                                     \
        snprintf(y1, sizeof y1, "\"%s\",\n  \"1\"\n ],\n \"pi_b\"", d[1]);                     \
        {                                                                                       \
            B yy;                                                                               \
            B one;                                                                              \
            B##_set_one(&one);                                                                  \
            B##_add(&yy, &p.C.a.y, &one);                                                       \
            char t[128];                                                                        \
            B##_to_dec(t, sizeof t, &yy);                                                       \
            snprintf(ybad, sizeof ybad, "\"%s\",\n  \"1\"\n ],\n \"pi_b\"", t);                 \
            static const limb_t P[] = B##_P_LIMBS;                                              \
            mpz_t z;                                                                            \
            mpz_init(z);                                                                        \
            t_limbs_to_mpz(z, P, sizeof P / 8);                                                 \
            gmp_snprintf(pdec, sizeof pdec, "\"%Zd\"", z);                                      \
            mpz_clear(z);                                                                       \
        }                                                                                       \
        char xq[160];                                                                           \
        snprintf(xq, sizeof xq, "\"%s\"", d[0]);                                                \
        struct {                                                                                \
            const char *from, *to;                                                              \
            g16_err code;                                                                       \
            const char *needle;                                                                 \
        } bad[] = {                                                                             \
            {"\"pi_a\": [", "\"pi_a\": [[", G16_ERR_FORMAT, "invalid JSON"},                    \
            {"\"protocol\": \"groth16\"", "\"protocol\": \"plonk\"", G16_ERR_FORMAT, "protocol"}, \
            {"\"protocol\": \"groth16\"", "\"protocol\": 1", G16_ERR_FORMAT, "protocol"},       \
            {"\"curve\": \"" CNAME "\"", "\"curve\": \"secp256k1\"", G16_ERR_FORMAT, "curve"},  \
            {"\"protocol\": \"groth16\"", "\"pi_a\": 1", G16_ERR_FORMAT, "invalid JSON"},       \
            {"\"pi_c\"", "\"pi_x\"", G16_ERR_FORMAT, "missing \"pi_c\""},                       \
            {y1, "\"1\"\n ],\n \"pi_b\"", G16_ERR_FORMAT, "pi_a: expected"},                    \
            {xq, "17", G16_ERR_FORMAT, "pi_a[0]: expected a decimal string"},                   \
            {xq, "\"-1\"", G16_ERR_FORMAT, "pi_a[0]: not a decimal"},                           \
            {xq, "\"12a\"", G16_ERR_FORMAT, "pi_a[0]"},                                         \
            {xq, "\"0x10\"", G16_ERR_FORMAT, "pi_a[0]"},                                        \
            {xq, "\"\"", G16_ERR_FORMAT, "pi_a[0]"},                                            \
            {xq, pdec, G16_ERR_NOT_CANONICAL, "pi_a[0]"},                                       \
            {y1, ybad, G16_ERR_NOT_ON_CURVE, "pi_a"},                                           \
            {"\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"", G16_ERR_FORMAT, "z must"},       \
            {"\"1\",\n   \"0\"\n  ]\n ]", "\"1\",\n   \"1\"\n  ]\n ]", G16_ERR_FORMAT, "pi_b: z"}, \
            {"\"1\",\n   \"0\"\n  ]\n ]", "\"1\"\n  ]\n ]", G16_ERR_FORMAT, "pi_b[2]"},         \
            {"\"1\"\n ],\n \"protocol\"", "\"0\"\n ],\n \"protocol\"", G16_ERR_FORMAT, "infinity"}, \
        };                                                                                      \
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {                               \
            char *v = subst(s, bad[i].from, bad[i].to);                                         \
            EXPECT(g16_proof_json_parse(&q, v, strlen(v), -1, st), bad[i].code, bad[i].needle); \
            free(v);                                                                            \
        }                                                                                       \
        {                                                                                       \
            char zz[160];                                                                        \
            snprintf(zz, sizeof zz, "{\"pi_a\":[\"0\",\"0\",\"1\"],\"pi_b\":1,\"pi_c\":1,\"curve\":\"%s\"}", CNAME); \
            EXPECT(g16_proof_json_parse(&q, zz, strlen(zz), -1, st), G16_ERR_NOT_ON_CURVE, "pi_a"); \
            const char *dupk = "{\"pi_a\":1,\"pi_a\":2}";                                      \
            EXPECT(g16_proof_json_parse(&q, dupk, strlen(dupk), -1, st), G16_ERR_FORMAT, "duplicate"); \
            EXPECT(g16_proof_json_parse(&q, "[]", 2, -1, st), G16_ERR_FORMAT, "object");        \
            const char *nocurve = "{\"pi_a\":1}";                                               \
            EXPECT(g16_proof_json_parse(&q, nocurve, strlen(nocurve), -1, st), G16_ERR_FORMAT, "curve"); \
        }                                                                                       \
        free(s);                                                                                \
        /* public.json */                                                                       \
        {                                                                                       \
            g16_frvec w = {.curve = curve, .n = 4};                                             \
            w.raw = malloc(4 * 32);                                                             \
            for (int i = 0; i < 4; i++)                                                         \
                C##_fr_random((C##_fr *)(void *)w.raw[i], &RNG);                               \
            C##_fr_set_zero((C##_fr *)(void *)w.raw[3]);                                       \
            CHECK(g16_public_json_str(&s, &w, 1, 3, &st0) == G16_OK);                           \
            char e[3][128];                                                                     \
            for (int i = 0; i < 3; i++)                                                         \
                C##_fr_to_dec(e[i], 128, (C##_fr *)(void *)w.raw[i + 1]);                      \
            char *wp = NULL;                                                                    \
            size_t wl = 0;                                                                      \
            appendf(&wp, &wl, "[\n \"%s\",\n \"%s\",\n \"%s\"\n]", e[0], e[1], e[2]);           \
            CHECK_MSG(s && strcmp(s, wp) == 0, "public.json: %s", s);                           \
            CHECK(strcmp(e[2], "0") == 0);                                                      \
            free(wp);                                                                           \
            save_out(#C "_public.json", s);                                                     \
            g16_frvec pv;                                                                       \
            EXPECT(g16_public_json_parse(&pv, s, strlen(s), curve, st), G16_OK, NULL);          \
            CHECK(pv.n == 3 && memcmp(pv.raw, w.raw[1], 3 * 32) == 0);                          \
            g16_frvec_free(&pv);                                                                \
            const char *pubp = tpath("public.json");                                            \
            CHECK(g16_public_json_write(pubp, &w, 1, 3, &st0) == G16_OK);                       \
            EXPECT(g16_public_json_read(&pv, pubp, curve, st), G16_OK, NULL);                   \
            g16_frvec_free(&pv);                                                                \
            char *v;                                                                            \
            static const limb_t R[4] = B##_R_LIMBS;                                             \
            mpz_t z;                                                                            \
            mpz_init(z);                                                                        \
            t_limbs_to_mpz(z, R, 4);                                                            \
            char rdec[100];                                                                     \
            gmp_snprintf(rdec, sizeof rdec, "\"%Zd\"", z);                                      \
            mpz_clear(z);                                                                       \
            v = subst(s, "\"0\"", rdec);                                                        \
            EXPECT(g16_public_json_parse(&pv, v, strlen(v), curve, st), G16_ERR_NOT_CANONICAL, "[2]"); \
            free(v);                                                                            \
            v = subst(s, "\"0\"", "0");                                                         \
            EXPECT(g16_public_json_parse(&pv, v, strlen(v), curve, st), G16_ERR_FORMAT, "[2]"); \
            free(v);                                                                            \
            EXPECT(g16_public_json_parse(&pv, "{}", 2, curve, st), G16_ERR_FORMAT, "array");    \
            EXPECT(g16_public_json_parse(&pv, "[\"1\",", 5, curve, st), G16_ERR_FORMAT, "invalid JSON"); \
            EXPECT(g16_public_json_str(&v, &w, 2, 3, st), G16_ERR_INVALID_ARG, NULL);           \
            free(s);                                                                            \
            CHECK(g16_public_json_str(&s, &w, 1, 0, &st0) == G16_OK);                           \
            CHECK(s && strcmp(s, "[\n]") == 0);                                                 \
            EXPECT(g16_public_json_parse(&pv, s, strlen(s), curve, st), G16_OK, NULL);          \
            CHECK(pv.n == 0);                                                                   \
            g16_frvec_free(&pv);                                                                \
            save_out(#C "_public_empty.json", s);                                               \
            free(s);                                                                            \
            g16_frvec_free(&w);                                                                 \
        }                                                                                       \
        /* verification_key.json: from a key (alphabeta by the pairing) */                     \
        {                                                                                       \
            zparams zp = {.nvars = 6, .npub = 2, .domain = 8};                                 \
            zk_##C z;                                                                           \
            zk_make_##C(&z, &zp);                                                               \
            bbuf b;                                                                             \
            zk_build_##C(&b, &z, &zp);                                                          \
            g16_zkey k;                                                                         \
            CHECK(g16_zkey_open_mem(&k, "vk.zkey", b.p, b.len, 0, NULL, &st0) == G16_OK);       \
            g16_vk vk;                                                                          \
            CHECK(g16_vk_from_zkey(&vk, &k, &st0) == G16_OK);                                   \
            g16_zkey_close(&k);                                                                 \
            CHECK(vk.nPublic == 2 && C##_g1_affine_eq(&vk.C.IC[2], &z.ic[2]));                  \
            CHECK(vk.has_alphabeta);                                                            \
            {                                                                                   \
                C##_fp12 e;                                                                     \
                C##_pairing(&e, &z.alpha1, &z.beta2);                                           \
                CHECK(memcmp(&e, &vk.C.alphabeta, sizeof e) == 0);                              \
            }                                                                                   \
            vk.has_alphabeta = 0;                                                               \
            EXPECT(g16_vk_json_str(&s, &vk, st), G16_ERR_INVALID_ARG, "alphabeta");             \
            vk.has_alphabeta = 1;                                                               \
            CHECK(g16_vk_json_str(&s, &vk, &st0) == G16_OK);                                    \
            save_out(#C "_vk.json", s);                                                         \
            save_out_bin(#C "_vk.zkey", b.p, b.len);                                            \
            CHECK(s && strncmp(s, "{\n \"protocol\": \"groth16\",\n \"curve\": \"" CNAME "\",\n \"nPublic\": 2,\n \"vk_alpha_1\": [\n", \
                               strlen("{\n \"protocol\": \"groth16\",\n \"curve\": \"" CNAME "\",\n \"nPublic\": 2,\n \"vk_alpha_1\": [\n")) == 0); \
            g16_vk v2;                                                                          \
            EXPECT(g16_vk_json_parse(&v2, s, strlen(s), -1, st), G16_OK, NULL);                 \
            CHECK(v2.curve == curve && v2.nPublic == 2 && v2.has_alphabeta);                    \
            CHECK(C##_g1_affine_eq(&v2.C.alpha1, &vk.C.alpha1) && C##_g2_affine_eq(&v2.C.beta2, &vk.C.beta2)); \
            CHECK(C##_g2_affine_eq(&v2.C.gamma2, &vk.C.gamma2) && C##_g2_affine_eq(&v2.C.delta2, &vk.C.delta2)); \
            for (int i = 0; i < 3; i++)                                                         \
                CHECK(C##_g1_affine_eq(&v2.C.IC[i], &vk.C.IC[i]));                              \
            CHECK(memcmp(&v2.C.alphabeta, &vk.C.alphabeta, sizeof vk.C.alphabeta) == 0);        \
            g16_vk_free(&v2);                                                                   \
            const char *vkp = tpath("vk.json");                                                 \
            CHECK(g16_vk_json_write(vkp, &vk, &st0) == G16_OK);                                 \
            EXPECT(g16_vk_json_read(&v2, vkp, (int)curve, st), G16_OK, NULL);                   \
            g16_vk_free(&v2);                                                                   \
            EXPECT(g16_vk_json_read(&v2, vkp, (int)other, st), G16_ERR_WRONG_CURVE, NULL);      \
            struct {                                                                            \
                const char *from, *to;                                                          \
                g16_err code;                                                                   \
                const char *needle;                                                             \
            } badv[] = {                                                                        \
                {"\"nPublic\": 2", "\"nPublic\": 3", G16_ERR_FORMAT, "IC"},                     \
                {"\"nPublic\": 2", "\"nPublic\": \"2\"", G16_ERR_FORMAT, "nPublic"},            \
                {"\"nPublic\": 2", "\"nPublic\": -1", G16_ERR_FORMAT, "nPublic"},               \
                {"\"nPublic\": 2", "\"nPubli\": 2", G16_ERR_FORMAT, "missing \"nPublic\""},     \
                {"\"protocol\": \"groth16\"", "\"protocl\": \"groth16\"", G16_ERR_FORMAT, "protocol"}, \
                {"\"curve\": \"" CNAME "\"", "\"curv\": \"" CNAME "\"", G16_ERR_FORMAT, "curve"}, \
                {"\"vk_gamma_2\"", "\"vk_gamma_3\"", G16_ERR_FORMAT, "vk_gamma_2"},             \
                {"\"vk_alphabeta_12\": [\n  [\n", "\"vk_alphabeta_12\": [\n  [\n[\"1\",\"1\"],\n", G16_ERR_FORMAT, "vk_alphabeta_12[0]"}, \
                {"\"IC\": [\n  [\n   \"", "\"IC\": [\n  [\n   \"0x", G16_ERR_FORMAT, "IC[0][0]"}, \
            };                                                                                  \
            for (size_t i = 0; i < sizeof badv / sizeof badv[0]; i++) {                         \
                char *v = subst(s, badv[i].from, badv[i].to);                                   \
                EXPECT(g16_vk_json_parse(&v2, v, strlen(v), -1, st), badv[i].code, badv[i].needle); \
                free(v);                                                                        \
            }                                                                                   \
            free(s);                                                                            \
            /* a vk point outside the subgroup (BLS12-381 G1 / BN254 G2) */                      \
            {                                                                                   \
                g16_vk vb = vk;                                                                 \
                int have = nonsub_##C(&vb);                                                     \
                CHECK(have);                                                                    \
                CHECK(g16_vk_json_str(&s, &vb, &st0) == G16_OK);                                \
                EXPECT(g16_vk_json_parse(&v2, s, strlen(s), -1, st), G16_ERR_NOT_IN_SUBGROUP, "subgroup"); \
                free(s);                                                                        \
            }                                                                                   \
            g16_vk_free(&vk);                                                                   \
            free(b.p);                                                                          \
            zk_free_##C(&z);                                                                    \
        }                                                                                       \
    }

#define BN254_FP_P_LIMBS BN254_FP_P
#define BLS381_FP_P_LIMBS BLS381_FP_P
#define bn254_fp_P_LIMBS BN254_FP_P
#define bls381_fp_P_LIMBS BLS381_FP_P
#define bn254_fp_R_LIMBS BN254_FR_P
#define bls381_fp_R_LIMBS BLS381_FR_P
static int nonsub_bn254(g16_vk *vk) { return bn254_g2_nonsub(&vk->bn254.delta2); }
static int nonsub_bls381(g16_vk *vk) { return bls381_g1_nonsub(&vk->bls381.alpha1); }
JSON_TEST(bn254, bn254_fp, "bn128")
JSON_TEST(bls381, bls381_fp, "bls12381")

/* ---- mutation smoke fuzz ----------------------------------------------------
 * Random byte flips, u32/u64 field overwrites (0, 1, -1, 2^31, random) and
 * truncations of valid files: every reader must return a known code (and
 * free everything: ASan/LSan watch), never crash or hang. */

static int reader_code_ok(g16_err e) {
    return e == G16_OK || e == G16_ERR_TRUNCATED || e == G16_ERR_FORMAT ||
           e == G16_ERR_NOT_CANONICAL || e == G16_ERR_NOT_ON_CURVE || e == G16_ERR_NOT_IN_SUBGROUP ||
           e == G16_ERR_WRONG_CURVE || e == G16_ERR_UNSUPPORTED;
}

static size_t mutate(uint8_t *m, const uint8_t *src, size_t len, int text) {
    memcpy(m, src, len);
    int nmut = 1 + (int)(g16_rng_next(&RNG) % 3);
    for (int i = 0; i < nmut && len > 0; i++) {
        size_t at = (size_t)(g16_rng_next(&RNG) % len);
        switch (g16_rng_next(&RNG) % (text ? 3 : 5)) {
        case 0: m[at] ^= (uint8_t)(1u << (g16_rng_next(&RNG) % 8)); break;
        case 1: m[at] = (uint8_t)g16_rng_next(&RNG); break;
        case 2:
            if (text) { /* a structural character */
                static const char cs[] = "[]{}\",:0-1\\ ";
                m[at] = (uint8_t)cs[g16_rng_next(&RNG) % (sizeof cs - 1)];
            } else {
                len = at; /* truncate */
            }
            break;
        default: { /* overwrite an aligned-ish integer field with an extreme value */
            static const uint64_t ext[] = {0, 1, 0xffffffffull, 0x80000000ull, ~0ull, 1ull << 40};
            uint64_t v = ext[g16_rng_next(&RNG) % 6];
            size_t w = (g16_rng_next(&RNG) & 1) ? 8 : 4;
            at &= ~(size_t)3;
            if (at + w <= len)
                memcpy(m + at, &v, w);
        }
        }
    }
    return len;
}

static void fuzz_formats(void) {
    enum { ITERS = 400 };
    /* binary inputs */
    zparams zp = {.nvars = 6, .npub = 2, .domain = 8};
    zk_bn254 zb;
    zk_bls381 zl;
    zk_make_bn254(&zb, &zp);
    zk_make_bls381(&zl, &zp);
    bbuf kb, kl, wb, rb;
    zk_build_bn254(&kb, &zb, &zp);
    zk_build_bls381(&kl, &zl, &zp);
    uint8_t vals[3 * 32] = {1};
    static const limb_t r[4] = BN254_FR_P;
    build_wtns(&wb, r, 32, 3, vals, 2);
    rparams rp = {.prime = r, .n8 = 32, .nwires = 5, .npubin = 1, .nprvin = 1};
    build_r1cs(&rb, &rp);
    const bbuf *bins[4] = {&kb, &kl, &wb, &rb};
    size_t ok = 0, total = 0;
    for (int f = 0; f < 4; f++) {
        uint8_t *m = malloc(bins[f]->len);
        for (int it = 0; it < ITERS; it++) {
            size_t len = mutate(m, bins[f]->p, bins[f]->len, 0);
            g16_status st = {0};
            g16_err e;
            if (f < 2) {
                g16_zkey k;
                e = g16_zkey_open_mem(&k, "fz", m, len, it & 1 ? G16_ZKEY_CHECK_SUBGROUP : 0, POOL, &st);
                if (!e)
                    g16_zkey_close(&k);
            } else if (f == 2) {
                g16_frvec w;
                e = g16_wtns_read_mem(&w, "fz", m, len, &st);
                if (!e)
                    g16_frvec_free(&w);
            } else {
                g16_r1cs rc;
                e = g16_r1cs_read_mem(&rc, "fz", m, len, &st);
                if (!e)
                    g16_r1cs_free(&rc);
            }
            CHECK_MSG(reader_code_ok(e) && (e == G16_OK || st.msg[0]), "file %d iter %d: %d %s", f, it,
                      e, st.msg);
            ok += e == G16_OK;
            total++;
        }
        free(m);
    }
    /* JSON inputs */
    g16_proof p = {.curve = G16_CURVE_BN254};
    g1s_bn254(&p.bn254.a, 1, 3);
    g2s_bn254(&p.bn254.b, 1, 4);
    g1s_bn254(&p.bn254.c, 1, 5);
    g16_vk vk;
    g16_zkey k;
    g16_status st0 = {0};
    CHECK(g16_zkey_open_mem(&k, "fz", kl.p, kl.len, 0, NULL, &st0) == G16_OK);
    CHECK(g16_vk_from_zkey(&vk, &k, &st0) == G16_OK);
    g16_zkey_close(&k);
    char *js[2] = {NULL, NULL};
    CHECK(g16_proof_json_str(&js[0], &p, &st0) == G16_OK);
    CHECK(g16_vk_json_str(&js[1], &vk, &st0) == G16_OK);
    g16_vk_free(&vk);
    for (int f = 0; f < 2; f++) {
        size_t L = strlen(js[f]);
        uint8_t *m = malloc(L + 1);
        for (int it = 0; it < ITERS; it++) {
            size_t len = mutate(m, (const uint8_t *)js[f], L, 1);
            g16_status st = {0};
            g16_err e;
            if (f == 0) {
                g16_proof q;
                e = g16_proof_json_parse(&q, (const char *)m, len, -1, &st);
            } else {
                g16_vk v;
                e = g16_vk_json_parse(&v, (const char *)m, len, -1, &st);
                if (!e)
                    g16_vk_free(&v);
            }
            CHECK_MSG(reader_code_ok(e) && (e == G16_OK || st.msg[0]), "json %d iter %d: %d %s", f, it,
                      e, st.msg);
            ok += e == G16_OK;
            total++;
        }
        free(m);
        free(js[f]);
    }
    printf("fuzz: %zu mutated inputs, %zu accepted\n", total, ok);
    free(kb.p), free(kl.p), free(wb.p), free(rb.p);
    zk_free_bn254(&zb);
    zk_free_bls381(&zl);
}

/* ---- a big key: load time ---------------------------------------------------
 * G16_FORMATS_BIG=k builds a BN254 key with 2^k vars/constraints (the same
 * valid points repeated) and times g16_zkey_open (checked and trusted). */
static void big_key(int lg) {
    uint32_t n = 1u << lg;
    zparams zp = {.nvars = n, .npub = 1, .domain = n};
    bn254_g1_affine g1[4];
    bn254_g2_affine g2[4];
    g1s_bn254(g1, 4, 3);
    g2s_bn254(g2, 4, 3);
    const char *path = tpath("big.zkey");
    FILE *f = fopen(path, "wb");
    bbuf b;
    bbegin(&b, "zkey", 1);
    bsec(&b, 1, &(uint32_t){1}, 4);
    fwrite(b.p, 1, b.len, f);
    (void)zp;
    /* header section by hand */
    bbuf h = {0};
    bput32(&h, 32);
    static const limb_t q[4] = BN254_FP_P, r[4] = BN254_FR_P;
    uint8_t t[32];
    limbs_to_le(t, q, 32);
    bput(&h, t, 32);
    bput32(&h, 32);
    limbs_to_le(t, r, 32);
    bput(&h, t, 32);
    bput32(&h, n), bput32(&h, 1), bput32(&h, n);
    bput(&h, &g1[0], 64), bput(&h, &g1[1], 64), bput(&h, &g2[0], 128), bput(&h, &g2[1], 128);
    bput(&h, &g1[2], 64), bput(&h, &g2[2], 128);
    uint32_t nsec = 9;
    struct {
        uint32_t id;
        uint64_t cnt;
        int g2;
    } secs[] = {{3, 2, 0}, {5, n, 0}, {6, n, 0}, {7, n, 1}, {8, n - 2, 0}, {9, n, 0}};
    uint32_t hid = 2;
    uint64_t hsz = h.len;
    fwrite(&hid, 4, 1, f), fwrite(&hsz, 8, 1, f), fwrite(h.p, 1, h.len, f);
    uint32_t cid = 4;
    uint64_t ncoef = n, csz = 4 + ncoef * 44;
    fwrite(&cid, 4, 1, f), fwrite(&csz, 8, 1, f), fwrite(&(uint32_t){n}, 4, 1, f);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e[3] = {i & 1, i, i};
        fwrite(e, 4, 3, f);
        fwrite(t, 1, 31, f), fputc(0, f);
    }
    for (size_t s = 0; s < 6; s++) {
        size_t ps = secs[s].g2 ? 128 : 64;
        uint64_t sz = secs[s].cnt * ps;
        fwrite(&secs[s].id, 4, 1, f), fwrite(&sz, 8, 1, f);
        for (uint64_t i = 0; i < secs[s].cnt; i++)
            fwrite(secs[s].g2 ? (const void *)&g2[i & 3] : (const void *)&g1[i & 3], 1, ps, f);
    }
    fclose(f);
    {
        FILE *g = fopen(path, "r+b");
        fseek(g, 8, SEEK_SET);
        fwrite(&nsec, 4, 1, g);
        fclose(g);
    }
    free(b.p), free(h.p);
    for (int trusted = 1; trusted >= 0; trusted--) {
        g16_zkey k;
        g16_status st = {0};
        struct timespec c0, c1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        double t0 = g16_now_ms();
        g16_err e = g16_zkey_open(&k, path, trusted ? G16_ZKEY_TRUSTED : 0, POOL, &st);
        double ms = g16_now_ms() - t0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        double cpu = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
        CHECK_MSG(e == G16_OK, "big key: %s", st.msg);
        printf("big key 2^%d (bn254, %d threads): open %s %.1f ms wall, %.1f ms cpu, copied %zu bytes\n",
               lg, g16_pool_threads(POOL), trusted ? "trusted" : "checked", ms, cpu, k.copied_bytes);
        g16_zkey_close(&k);
    }
    remove(path);
}

/* ---- snarkjs-made fixtures ---------------------------------------------------
 * scripts/interop/build_fixtures.sh leaves, per curve and circuit,
 * <cache>/<curve>/<name>/{circuit.r1cs, circuit.zkey, witness.wtns, vk.json,
 * proof.json, public.json} (cache: $G16_INTEROP_CACHE or .cache/interop).
 * Each is loaded, cross-checked, and our writers must reproduce snarkjs's
 * vk.json, proof.json and public.json byte for byte. */

static int text_equals_file(const char *text, const char *path) {
    size_t len = 0;
    char *f = t_read_file(path, &len);
    int ok = f && text && strlen(text) == len && memcmp(f, text, len) == 0;
    if (!ok && f && text)
        fprintf(stderr, "%s differs:\n--- ours ---\n%.400s\n--- file ---\n%.400s\n", path, text, f);
    free(f);
    return ok;
}

static int check_fixture(const char *dir) {
    char p[6][900];
    const char *names[6] = {"circuit.zkey", "witness.wtns", "circuit.r1cs", "vk.json", "proof.json", "public.json"};
    for (int i = 0; i < 6; i++) {
        snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
        if (access(p[i], R_OK) != 0)
            return 0;
    }
    g16_status st = {0};
    g16_zkey k;
    g16_err e = g16_zkey_open(&k, p[0], G16_ZKEY_CHECK_SUBGROUP, POOL, &st);
    CHECK_MSG(e == G16_OK, "%s", st.msg);
    if (e)
        return 0;
    printf("  %s: %s nVars %u nPublic %u domain 2^%u nCoef %u, copied %zu bytes\n", dir,
           g16_curve_name(k.curve), k.nVars, k.nPublic, k.log2_domain, k.nCoef, k.copied_bytes);
    g16_frvec w;
    e = g16_wtns_read(&w, p[1], &st);
    CHECK_MSG(e == G16_OK, "%s", st.msg);
    if (!e) {
        CHECK_MSG(g16_wtns_check_key(&w, &k, &st) == G16_OK, "%s", st.msg);
        g16_r1cs r;
        e = g16_r1cs_read(&r, p[2], &st);
        CHECK_MSG(e == G16_OK, "%s", st.msg);
        if (!e) {
            CHECK(r.curve == k.curve && r.nWires == k.nVars && g16_r1cs_npublic(&r) == k.nPublic);
            /* snarkjs appends nPublic + 1 rows to the constraints */
            CHECK((uint64_t)r.nConstraints + k.nPublic + 1 <= k.domainSize);
            uint32_t bad;
            CHECK_MSG(g16_r1cs_check_witness(&r, &w, &bad, &st) == G16_OK, "%s", st.msg);
            g16_r1cs_free(&r);
        }
        char *s = NULL;
        CHECK(g16_public_json_str(&s, &w, 1, k.nPublic, &st) == G16_OK);
        CHECK(text_equals_file(s, p[5]));
        free(s);
        g16_frvec pub;
        CHECK_MSG(g16_public_json_read(&pub, p[5], k.curve, &st) == G16_OK, "%s", st.msg);
        CHECK(pub.n == k.nPublic && (pub.n == 0 || memcmp(pub.raw, w.raw[1], pub.n * 32) == 0));
        g16_frvec_free(&pub);
        g16_frvec_free(&w);
    }
    g16_vk vk, vk2;
    CHECK(g16_vk_from_zkey(&vk, &k, &st) == G16_OK);
    char *s = NULL;
    CHECK(g16_vk_json_str(&s, &vk, &st) == G16_OK);
    CHECK(text_equals_file(s, p[3]));
    free(s);
    e = g16_vk_json_read(&vk2, p[3], (int)k.curve, &st);
    CHECK_MSG(e == G16_OK, "%s", st.msg);
    if (!e) {
        CHECK(vk2.nPublic == vk.nPublic && vk2.has_alphabeta);
        g16_vk_free(&vk2);
    }
    g16_vk_free(&vk);
    g16_proof pr;
    e = g16_proof_json_read(&pr, p[4], -1, &st);
    CHECK_MSG(e == G16_OK, "%s", st.msg);
    if (!e) {
        CHECK(pr.curve == k.curve);
        CHECK(g16_proof_json_str(&s, &pr, &st) == G16_OK);
        CHECK(text_equals_file(s, p[4]));
        free(s);
    }
    g16_zkey_close(&k);
    /* the real key, corrupted: a point of B2 off the curve, a truncation */
    size_t len = 0;
    char *raw = t_read_file(p[0], &len);
    if (raw) {
        g16_zkey k2;
        EXPECT(g16_zkey_open_mem(&k2, "real", raw, len / 3, 0, POOL, st), G16_ERR_TRUNCATED, NULL);
        g16_binfile bf;
        if (g16_binfile_open_mem(&bf, "real", raw, len, "zkey", 2, &st) == G16_OK) {
            const g16_binfile_section *b2;
            if (g16_binfile_find(&bf, G16_ZKEY_SEC_B2, &b2, &st) == G16_OK && b2->size > 0) {
                size_t off = (size_t)(b2->data - (const uint8_t *)raw) + b2->size / 2 + 1;
                raw[off] ^= 0x01; /* inside the middle point's coordinates */
                g16_err e2 = g16_zkey_open_mem(&k2, "real", raw, len, 0, POOL, &st);
                CHECK_MSG(e2 == G16_ERR_NOT_ON_CURVE || e2 == G16_ERR_NOT_CANONICAL, "%d %s", e2, st.msg);
                CHECK(strstr(st.msg, "B2") != NULL);
                raw[off] ^= 0x01;
            }
            g16_binfile_close(&bf);
        }
        free(raw);
    }
    return 1;
}

static int load_fixtures(const char *root) {
    int n = 0;
    const char *curves[2] = {"bn128", "bls12381"};
    for (int c = 0; c < 2; c++) {
        char cd[512];
        snprintf(cd, sizeof cd, "%s/%s", root, curves[c]);
        DIR *d = opendir(cd);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            char dir[800];
            snprintf(dir, sizeof dir, "%s/%s", cd, de->d_name);
            n += check_fixture(dir);
        }
        closedir(d);
    }
    return n;
}

int main(void) {
    uint64_t seed = t_seed("test_formats");
    g16_rng_seed(&RNG, seed);
    snprintf(TMPDIR_, sizeof TMPDIR_, "/tmp/g16_formats_XXXXXX");
    if (!mkdtemp(TMPDIR_)) {
        perror("mkdtemp");
        return 1;
    }
    POOL = g16_pool_create(2);
    test_zkey_bn254();
    test_zkey_bls381();
    test_zkey_subgroup();
    test_zkey_chunks();
    test_wtns_curve(G16_CURVE_BN254);
    test_wtns_curve(G16_CURVE_BLS12_381);
    test_wtns_pool(G16_CURVE_BN254);
    test_wtns_pool(G16_CURVE_BLS12_381);
    test_r1cs_curve(G16_CURVE_BN254);
    test_r1cs_curve(G16_CURVE_BLS12_381);
    test_json_bn254();
    test_json_bls381();
    fuzz_formats();
    const char *big = getenv("G16_FORMATS_BIG");
    if (big)
        big_key(atoi(big));
    const char *cache = getenv("G16_INTEROP_CACHE");
    int n = load_fixtures(cache ? cache : ".cache/interop");
    printf("test_formats: %d snarkjs-made fixtures checked%s\n", n,
           n ? "" : " (none: run scripts/interop/build_fixtures.sh)");
    g16_pool_destroy(POOL);
    /* clean the temp dir */
    DIR *d = opendir(TMPDIR_);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.')
            remove(tpath(de->d_name));
    if (d)
        closedir(d);
    rmdir(TMPDIR_);
    return t_done("test_formats");
}
