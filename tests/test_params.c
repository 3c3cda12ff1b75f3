/* The bellperson .params / .vk reader (src/groth16/params.c) against the
 * @noble/curves-written toy key in tests/vectors/params_toy.* (written by
 * tests/vectors/gen_params.mjs): counts, every point's value, zcash bytes
 * both ways (compressed and uncompressed) against noble's, the .vk's digest;
 * then malformed files, each with its typed error and a message naming the
 * array and index: every count overflowing, truncation at every byte (array
 * boundaries and mid-point, in memory and a few through real files), a point
 * off the curve, non-canonical coordinates, wrong flag bits, infinity where
 * it is refused, points outside the subgroup (checks on and off), the first
 * failure in file order on a multi-task pool, and random byte flips. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "groth16/params.h"
#include "ntt/ntt.h"
#include "testutil.h"
#include "util/blake2b.h"

#define DIR "tests/vectors/"

static uint8_t *g_params, *g_vk;
static size_t g_params_len, g_vk_len;

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}
static size_t unhex(uint8_t *out, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap) return 0;
    for (size_t i = 0; i < n / 2; i++) {
        int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
        if (a < 0 || b < 0) return 0;
        out[i] = (uint8_t)(a * 16 + b);
    }
    return n / 2;
}

static int array_index(const char *name) {
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++)
        if (!strcmp(name, g16_params_array_name(a)))
            return a;
    return -1;
}

static g16_err load(g16_params *p, const uint8_t *b, size_t len, g16_params_kind kind, int subgroup,
                    g16_pool *pool, g16_status *st) {
    g16_params_opts o = {.kind = kind, .subgroup = subgroup};
    memset(st, 0, sizeof *st);
    return g16_params_load_mem(p, "t.params", b, len, &o, pool, st);
}

/* Loads a modified copy; checks the error code and that the message contains want. */
static void expect(const uint8_t *b, size_t len, g16_params_kind kind, int subgroup, g16_err code,
                   const char *want, const char *what) {
    g16_params p;
    g16_status st;
    g16_err e = load(&p, b, len, kind, subgroup, NULL, &st);
    CHECK_MSG(e == code, "%s: got %s (%s), want %s", what, g16_err_str(e), st.msg, g16_err_str(code));
    if (want)
        CHECK_MSG(strstr(st.msg, want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, st.msg, want);
    g16_params_free(&p);
}

/* ---- 1. the noble key loads and equals noble's values ------------------ */
static void check_point_line(const g16_params *p, char *line) {
    char *save, *name = strtok_r(line + 3, " ", &save), *idx = strtok_r(NULL, " ", &save);
    size_t i = (size_t)strtoul(idx, NULL, 10);
    int a = array_index(name);
    int g2 = a == G16_PARAMS_B_G2 || (a < 0 && strstr(name, "_g2"));
    const bls381_g1_affine *q1 = NULL;
    const bls381_g2_affine *q2 = NULL;
    uint64_t off = 0;
    if (a >= 0) {
        CHECK(i < p->n[a]);
        if (i >= p->n[a])
            return;
        const bls381_g1_affine *arr1[] = {p->ic, p->h, p->l, p->a, p->b_g1};
        if (g2)
            q2 = &p->b_g2[i];
        else
            q1 = &arr1[a][i];
        off = p->off[a] + i * (g2 ? 192 : 96);
    } else {
        static const char *vkn[6] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"};
        static const unsigned vko[6] = {0, 96, 192, 384, 576, 672};
        int k = -1;
        for (int j = 0; j < 6; j++)
            if (!strcmp(name, vkn[j]))
                k = j;
        CHECK_MSG(k >= 0, "unknown point %s", name);
        if (k < 0)
            return;
        off = vko[k];
        const bls381_g1_affine *v1[6] = {&p->alpha_g1, &p->beta_g1, NULL, NULL, &p->delta_g1, NULL};
        const bls381_g2_affine *v2[6] = {NULL, NULL, &p->beta_g2, &p->gamma_g2, NULL, &p->delta_g2};
        q1 = v1[k];
        q2 = v2[k];
    }
    uint8_t want_c[96], mine[192];
    if (!g2) {
        bls381_g1_affine w, back;
        CHECK(bls381_fp_from_dec(&w.x, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK(bls381_fp_from_dec(&w.y, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK_MSG(bls381_g1_affine_eq(&w, q1), "%s[%zu] differs from noble", name, i);
        size_t n = unhex(want_c, sizeof want_c, strtok_r(NULL, " ", &save));
        CHECK(n == 48);
        bls381_g1_to_zcash(mine, 48, q1);
        CHECK_MSG(memcmp(mine, want_c, 48) == 0, "%s[%zu] compressed encoding differs", name, i);
        CHECK(bls381_g1_from_zcash(&back, want_c, 48) == G16_OK && bls381_g1_affine_eq(&back, &w));
        bls381_g1_to_zcash(mine, 96, q1);
        CHECK_MSG(memcmp(mine, g_params + off, 96) == 0, "%s[%zu] uncompressed encoding differs", name, i);
    } else {
        bls381_g2_affine w, back;
        CHECK(bls381_fp_from_dec(&w.x.c0, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK(bls381_fp_from_dec(&w.x.c1, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK(bls381_fp_from_dec(&w.y.c0, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK(bls381_fp_from_dec(&w.y.c1, strtok_r(NULL, " ", &save)) == G16_OK);
        CHECK_MSG(bls381_g2_affine_eq(&w, q2), "%s[%zu] differs from noble", name, i);
        size_t n = unhex(want_c, sizeof want_c, strtok_r(NULL, " ", &save));
        CHECK(n == 96);
        bls381_g2_to_zcash(mine, 96, q2);
        CHECK_MSG(memcmp(mine, want_c, 96) == 0, "%s[%zu] compressed encoding differs", name, i);
        CHECK(bls381_g2_from_zcash(&back, want_c, 96) == G16_OK && bls381_g2_affine_eq(&back, &w));
        bls381_g2_to_zcash(mine, 192, q2);
        CHECK_MSG(memcmp(mine, g_params + off, 192) == 0, "%s[%zu] uncompressed encoding differs", name, i);
    }
}

static void test_noble_key(g16_pool *pool) {
    g16_params p, v;
    g16_status st = {0};
    CHECK_MSG(g16_params_load(&p, DIR "params_toy.params", NULL, pool, &st) == G16_OK, "%s", st.msg);
    CHECK(!p.is_vk_file && p.subgroup_checked && p.file_len == g_params_len && p.vk_len == g_vk_len);
    size_t len;
    char *txt = t_read_file(DIR "params_toy.txt", &len);
    CHECK(txt != NULL);
    if (!txt)
        return;
    long npts = 0, ncounts = 0;
    char *save, *line;
    for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "count ", 6)) {
            char name[16];
            unsigned n;
            CHECK(sscanf(line + 6, "%15s %u", name, &n) == 2);
            int a = array_index(name);
            CHECK_MSG(a >= 0 && p.n[a] == n, "count %s: %u, noble %u", name, a >= 0 ? p.n[a] : 0, n);
            ncounts++;
        } else if (!strncmp(line, "pt ", 3)) {
            check_point_line(&p, line);
            npts++;
        }
    }
    free(txt);
    CHECK(ncounts == 6);
    /* every point of the file has a line: 6 vk points + the arrays */
    long total = 6;
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++)
        total += p.n[a];
    CHECK_MSG(npts == total, "%ld point lines, %ld points", npts, total);

    /* the .vk: the same vk, the same digest, which is BLAKE2b-256 of its bytes */
    CHECK_MSG(g16_params_load(&v, DIR "params_toy.vk", NULL, pool, &st) == G16_OK, "%s", st.msg);
    CHECK(v.is_vk_file && v.n[G16_PARAMS_IC] == p.n[G16_PARAMS_IC] && v.h == NULL && v.n[G16_PARAMS_H] == 0);
    CHECK(memcmp(v.vk_digest, p.vk_digest, 32) == 0);
    uint8_t d[32];
    g16_blake2b h;
    g16_blake2b_init(&h, 32);
    g16_blake2b_update(&h, g_vk, g_vk_len);
    g16_blake2b_final(&h, d);
    CHECK(memcmp(d, v.vk_digest, 32) == 0);
    CHECK(bls381_g2_affine_eq(&v.delta_g2, &p.delta_g2) && bls381_g1_affine_eq(&v.alpha_g1, &p.alpha_g1));
    for (uint32_t i = 0; i < v.n[G16_PARAMS_IC]; i++)
        CHECK(bls381_g1_affine_eq(&v.ic[i], &p.ic[i]));
    g16_params_free(&v);

    /* vk_only: the layout is checked, only the vk and ic decoded */
    g16_params_opts o = {.kind = G16_PARAMS_KIND_FULL, .subgroup = 0, .vk_only = 1};
    CHECK(g16_params_load(&v, DIR "params_toy.params", &o, pool, &st) == G16_OK);
    CHECK(v.ic && !v.h && !v.b_g2 && v.n[G16_PARAMS_B_G2] == p.n[G16_PARAMS_B_G2]);
    g16_params_free(&v);
    g16_params_free(&p);

    /* the kind is honoured: a .vk is too short for a .params, a .params has trailing bytes for a .vk */
    expect(g_vk, g_vk_len, G16_PARAMS_KIND_FULL, 1, G16_ERR_TRUNCATED, "before the h count", "vk as params");
    expect(g_params, g_params_len, G16_PARAMS_KIND_VK, 1, G16_ERR_FORMAT, "trailing bytes", "params as vk");
    CHECK(g16_params_load(&p, DIR "no-such-file.params", NULL, NULL, &st) == G16_ERR_IO);
}

/* ---- 2. layout faults ---------------------------------------------------- */
static uint64_t count_off(const g16_params *p, int a) { return p->off[a] - 4; }

static void put_be32(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

static void test_layout(const g16_params *p) {
    uint8_t *b = malloc(g_params_len + 1);
    char what[64];
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++) {
        const uint32_t bad[] = {0xffffffffu, 0x80000000u, p->n[a] + 1};
        for (size_t k = 0; k < 3; k++) {
            memcpy(b, g_params, g_params_len);
            put_be32(b + count_off(p, a), bad[k]);
            snprintf(what, sizeof what, "%s count %u", g16_params_array_name(a), bad[k]);
            char want[32];
            snprintf(want, sizeof want, "%s declares", g16_params_array_name(a));
            if (k < 2) { /* more than the file holds: refused at this count */
                expect(b, g_params_len, G16_PARAMS_KIND_FULL, 1, G16_ERR_TRUNCATED, want, what);
                expect(b, g_params_len, G16_PARAMS_KIND_AUTO, 1, G16_ERR_TRUNCATED, want, what);
            } else { /* one too many: fits here, so a later count or the end is misread */
                g16_params q;
                g16_status st;
                g16_err e = load(&q, b, g_params_len, G16_PARAMS_KIND_FULL, 1, NULL, &st);
                CHECK_MSG(e == G16_ERR_TRUNCATED || e == G16_ERR_FORMAT, "%s: %s (%s)", what, g16_err_str(e), st.msg);
                g16_params_free(&q);
            }
        }
    }
    /* an empty ic (the count of the constant one is missing) */
    {
        g16_params q;
        g16_status st;
        uint8_t v[G16_PARAMS_VK_POINTS_SIZE + 4];
        memcpy(v, g_vk, G16_PARAMS_VK_POINTS_SIZE);
        put_be32(v + G16_PARAMS_VK_POINTS_SIZE, 0);
        CHECK(load(&q, v, sizeof v, G16_PARAMS_KIND_VK, 1, NULL, &st) == G16_ERR_FORMAT && strstr(st.msg, "ic is empty"));
        g16_params_free(&q);
    }
    /* truncation at every byte (every array boundary, inside every count and point) */
    long n_trunc = 0;
    for (size_t len = 0; len < g_params_len; len++) {
        g16_params q;
        g16_status st;
        g16_err e = load(&q, g_params, len, G16_PARAMS_KIND_FULL, 1, NULL, &st);
        CHECK_MSG(e == G16_ERR_TRUNCATED, "truncated to %zu: %s (%s)", len, g16_err_str(e), st.msg);
        g16_params_free(&q);
        n_trunc++;
    }
    for (size_t len = 0; len < g_vk_len; len++)
        expect(g_vk, len, G16_PARAMS_KIND_VK, 1, G16_ERR_TRUNCATED, NULL, "vk truncated");
    /* AUTO reads a .params cut right after ic as a valid .vk (that is what it is) */
    {
        g16_params q;
        g16_status st;
        CHECK(load(&q, g_params, g_vk_len, G16_PARAMS_KIND_AUTO, 1, NULL, &st) == G16_OK && q.is_vk_file);
        g16_params_free(&q);
    }
    /* trailing bytes */
    memcpy(b, g_params, g_params_len);
    b[g_params_len] = 0;
    expect(b, g_params_len + 1, G16_PARAMS_KIND_FULL, 1, G16_ERR_FORMAT, "1 trailing bytes after b_g2", "trailing");

    /* real files cut at each array boundary and in the middle of each array's first point */
    char path[] = "/tmp/g16_test_params_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        close(fd);
        for (int a = 0; a < G16_PARAMS_NARRAYS; a++) {
            uint64_t cuts[2] = {count_off(p, a), p->off[a] + (a == G16_PARAMS_B_G2 ? 100 : 50)};
            for (int k = 0; k < 2; k++) {
                FILE *f = fopen(path, "wb");
                CHECK(f && fwrite(g_params, 1, cuts[k], f) == cuts[k]);
                if (f)
                    fclose(f);
                g16_params q;
                g16_status st = {0};
                g16_params_opts o = {.kind = G16_PARAMS_KIND_FULL, .subgroup = -1};
                g16_err e = g16_params_load(&q, path, &o, NULL, &st);
                CHECK_MSG(e == G16_ERR_TRUNCATED, "file cut at %llu: %s (%s)", (unsigned long long)cuts[k],
                          g16_err_str(e), st.msg);
                g16_params_free(&q);
            }
        }
        unlink(path);
    }
    free(b);
    printf("test_params: %ld truncations\n", n_trunc);
}

/* ---- 3. point faults ----------------------------------------------------- */
/* A G1 / G2 point on the curve but outside the prime-order subgroup. */
static void nosub_g1(bls381_g1_affine *r) {
    for (uint64_t k = 1;; k++) {
        bls381_fp x;
        bls381_fp_from_u64(&x, k);
        if (bls381_g1_affine_from_x_vartime(r, &x) && !bls381_g1_affine_in_subgroup(r))
            return;
    }
}
static void nosub_g2(bls381_g2_affine *r) {
    for (uint64_t k = 1;; k++) {
        bls381_fp2 x;
        bls381_fp_from_u64(&x.c0, k);
        bls381_fp_from_u64(&x.c1, 1);
        if (bls381_g2_affine_from_x_vartime(r, &x) && !bls381_g2_affine_in_subgroup(r))
            return;
    }
}

static const uint8_t P_BE[48] = {0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6,
                                 0x43, 0x4b, 0xac, 0xd7, 0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf,
                                 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24, 0x1e, 0xab, 0xff, 0xfe,
                                 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};

static void test_points(const g16_params *p) {
    uint8_t *b = malloc(g_params_len);
    char what[96], want[96];
    /* one point per array (the last of each) and the vk's alpha_g1 / delta_g2 */
    struct {
        const char *label;
        uint64_t off;
        int g2;
    } sites[G16_PARAMS_NARRAYS + 2];
    int ns = 0;
    for (int a = 0; a < G16_PARAMS_NARRAYS; a++) {
        static char labels[G16_PARAMS_NARRAYS][24];
        uint32_t i = p->n[a] - 1;
        snprintf(labels[a], sizeof labels[a], "%s[%u]", g16_params_array_name(a), i);
        int g2 = a == G16_PARAMS_B_G2;
        sites[ns].label = labels[a], sites[ns].off = p->off[a] + (uint64_t)i * (g2 ? 192 : 96), sites[ns++].g2 = g2;
    }
    sites[ns].label = "vk alpha_g1", sites[ns].off = 0, sites[ns++].g2 = 0;
    sites[ns].label = "vk delta_g2", sites[ns].off = 672, sites[ns++].g2 = 1;

    for (int s = 0; s < ns; s++) {
        uint8_t *q = NULL;
        size_t psz = sites[s].g2 ? 192 : 96;
#define RESET() (memcpy(b, g_params, g_params_len), q = b + sites[s].off)
#define EXPECT(code, words, fault)                                                              \
    do {                                                                                        \
        snprintf(what, sizeof what, "%s %s", sites[s].label, fault);                            \
        snprintf(want, sizeof want, "%s: %s", sites[s].label, words);                           \
        expect(b, g_params_len, G16_PARAMS_KIND_FULL, 1, code, want, what);                     \
    } while (0)
        /* off the curve: the last byte of y changed (y + 1 stays < p: y's low byte is not 0xff
         * for these points, checked) */
        RESET();
        if (q[psz - 1] != 0xff) {
            q[psz - 1]++;
            EXPECT(G16_ERR_NOT_ON_CURVE, "not on curve", "y+1");
        }
        /* non-canonical: x = p; x = 2^381 - 1; y = p */
        RESET();
        memcpy(q, P_BE, 48);
        EXPECT(G16_ERR_NOT_CANONICAL, "not canonical", "x=p");
        RESET();
        memset(q, 0xff, 48);
        q[0] = 0x1f;
        EXPECT(G16_ERR_NOT_CANONICAL, "not canonical", "x=2^381-1");
        RESET();
        memcpy(q + psz - 48, P_BE, 48);
        EXPECT(G16_ERR_NOT_CANONICAL, "not canonical", "y.c0=p");
        /* flags */
        RESET();
        q[0] |= 0x80;
        EXPECT(G16_ERR_FORMAT, "compression flag", "compressed flag");
        RESET();
        q[0] |= 0x20;
        EXPECT(G16_ERR_FORMAT, "sort flag", "sort flag");
        RESET();
        q[0] |= 0x40;
        EXPECT(G16_ERR_FORMAT, "infinity flag with nonzero bits", "infinity flag on a finite point");
        RESET();
        memset(q, 0, psz);
        q[0] = 0x40;
        q[psz / 2] = 1;
        EXPECT(G16_ERR_FORMAT, "infinity flag with nonzero bits", "infinity with a nonzero byte");
        RESET();
        memset(q, 0, psz);
        q[0] = 0x41;
        EXPECT(G16_ERR_FORMAT, "infinity flag with nonzero bits", "infinity with a nonzero flag-byte bit");
        /* (0, 0) without the infinity flag is not a curve point */
        RESET();
        memset(q, 0, psz);
        EXPECT(G16_ERR_NOT_ON_CURVE, "not on curve", "all zero");
        /* a proper infinity: refused in the vk and ic, accepted in the other arrays */
        RESET();
        memset(q, 0, psz);
        q[0] = 0x40;
        int refused = sites[s].off < p->off[G16_PARAMS_H];
        if (refused) {
            EXPECT(G16_ERR_FORMAT, "point at infinity not allowed", "infinity");
        } else {
            g16_params r;
            g16_status st;
            CHECK_MSG(load(&r, b, g_params_len, G16_PARAMS_KIND_FULL, 1, NULL, &st) == G16_OK, "%s: infinity: %s",
                      sites[s].label, st.msg);
            g16_params_free(&r);
        }
        /* outside the subgroup: refused with checks on (and by default for a small file), accepted
         * with checks off -- except in the vk, whose six points are always checked */
        RESET();
        if (sites[s].g2) {
            bls381_g2_affine np;
            nosub_g2(&np);
            bls381_g2_to_zcash(q, 192, &np);
        } else {
            bls381_g1_affine np;
            nosub_g1(&np);
            bls381_g1_to_zcash(q, 96, &np);
        }
        EXPECT(G16_ERR_NOT_IN_SUBGROUP, "not in the prime-order subgroup", "nosub");
        {
            g16_params r;
            g16_status st;
            g16_err e = load(&r, b, g_params_len, G16_PARAMS_KIND_AUTO, -1, NULL, &st);
            CHECK_MSG(e == G16_ERR_NOT_IN_SUBGROUP, "%s: nosub, default checks: %s", sites[s].label, st.msg);
            g16_params_free(&r);
            int in_vk = sites[s].off < G16_PARAMS_VK_POINTS_SIZE;
            e = load(&r, b, g_params_len, G16_PARAMS_KIND_FULL, 0, NULL, &st);
            if (in_vk)
                CHECK_MSG(e == G16_ERR_NOT_IN_SUBGROUP, "%s: nosub, checks off: %s", sites[s].label, st.msg);
            else
                CHECK_MSG(e == G16_OK && !r.subgroup_checked, "%s: nosub, checks off: %s", sites[s].label, st.msg);
            g16_params_free(&r);
        }
#undef RESET
#undef EXPECT
    }
    free(b);
}

/* ---- 4. many points on a pool: the first failure in file order --------- */
static void test_pool(g16_pool *pool) {
    /* vk and ic from the toy key, then h of NH generator multiples, the rest empty */
    const uint32_t NH = 1000;
    size_t len = g_vk_len + 4 + (size_t)NH * 96 + 4 * 4;
    uint8_t *b = calloc(1, len);
    memcpy(b, g_vk, g_vk_len);
    uint8_t *o = b + g_vk_len;
    put_be32(o, NH);
    o += 4;
    bls381_g1_affine g;
    bls381_g1_jac acc, gj;
    bls381_g1_generator(&g);
    bls381_g1_jac_from_affine(&gj, &g);
    acc = gj;
    for (uint32_t i = 0; i < NH; i++) {
        bls381_g1_affine t;
        bls381_g1_jac_to_affine(&t, &acc);
        bls381_g1_to_zcash(o + (size_t)i * 96, 96, &t);
        bls381_g1_jac_add(&acc, &acc, &gj);
    }
    g16_params p;
    g16_status st;
    CHECK_MSG(load(&p, b, len, G16_PARAMS_KIND_FULL, 1, pool, &st) == G16_OK, "%s", st.msg);
    if (p.h) {
        bls381_g1_affine t;
        bls381_g1_jac k7;
        g16_scalar k = {{700, 0, 0, 0}};
        bls381_g1_jac_mul_vartime(&k7, &gj, &k);
        bls381_g1_jac_to_affine(&t, &k7);
        CHECK(bls381_g1_affine_eq(&p.h[699], &t));
    }
    g16_params_free(&p);
    /* damage h[900], h[613] and h[300]: h[300] is reported, whichever task finishes first */
    o[900 * 96 + 95] ^= 1;
    o[613 * 96] |= 0x80;
    o[300 * 96 + 95] ^= 1;
    CHECK(load(&p, b, len, G16_PARAMS_KIND_FULL, 1, pool, &st) == G16_ERR_NOT_ON_CURVE);
    CHECK_MSG(strstr(st.msg, "h[300]: not on curve") != NULL, "%s", st.msg);
    o[300 * 96 + 95] ^= 1;
    CHECK(load(&p, b, len, G16_PARAMS_KIND_FULL, 1, pool, &st) == G16_ERR_FORMAT);
    CHECK_MSG(strstr(st.msg, "h[613]: compression flag") != NULL, "%s", st.msg);
    free(b);
}

/* ---- the default: checked up to G16_PARAMS_CHECK_LIMIT bytes, unchecked above */
static void test_default_limit(g16_pool *pool) {
    bls381_g1_affine g, np;
    bls381_g1_generator(&g);
    nosub_g1(&np);
    for (int big = 0; big < 2; big++) {
        /* vk and ic, h with nh points (h[0] outside the subgroup), the rest empty */
        size_t fixed = g_vk_len + 4 + 16;
        size_t nh = ((size_t)G16_PARAMS_CHECK_LIMIT - fixed) / 96 + (size_t)big;
        size_t len = fixed + nh * 96;
        CHECK(big ? len > G16_PARAMS_CHECK_LIMIT : len <= G16_PARAMS_CHECK_LIMIT);
        uint8_t *b = calloc(1, len), *o = b + g_vk_len;
        memcpy(b, g_vk, g_vk_len);
        put_be32(o, (uint32_t)nh);
        o += 4;
        bls381_g1_to_zcash(o, 96, &np);
        for (size_t i = 1; i < nh; i++)
            bls381_g1_to_zcash(o + i * 96, 96, &g);
        g16_params p;
        g16_status st;
        g16_err e = load(&p, b, len, G16_PARAMS_KIND_AUTO, -1, pool, &st);
        if (big)
            CHECK_MSG(e == G16_OK && !p.subgroup_checked, "above the limit: %s", st.msg);
        else
            CHECK_MSG(e == G16_ERR_NOT_IN_SUBGROUP && strstr(st.msg, "h[0]"), "at the limit: %s", st.msg);
        g16_params_free(&p);
        free(b);
    }
}

/* ---- 6. the noble proof: it verifies, and a naive reference prover on the
 * loaded key reproduces it from the witness and noble's r, s ------------- */
/* The toy circuit of gen_params.mjs: variables i0 i1 x0 x1 x2 x3 = 0..5,
 * constraints c0..c3 and the input constraints c4, c5 (A only). */
#define NV 6
#define NC 6
typedef struct { int v; uint64_t c; } term;
static const term CA[NC][3] = {{{2, 1}}, {{3, 1}}, {{4, 1}, {2, 1}, {0, 5}}, {{2, 1}}, {{0, 1}}, {{1, 1}}};
static const term CB[NC][3] = {{{2, 1}}, {{2, 1}}, {{0, 1}}, {{2, 1}}, {{0, 0}}, {{0, 0}}};
static const term CC[NC][3] = {{{3, 1}}, {{4, 1}}, {{1, 1}}, {{5, 1}}, {{0, 0}}, {{0, 0}}};

static void fr_dec(bls381_fr *r, const char *tok) { CHECK(tok && bls381_fr_from_dec(r, tok) == G16_OK); }
static void fr_scalar(g16_scalar *k, const bls381_fr *a) { bls381_fr_from_mont(k->l, a); }
static void g1_madd(bls381_g1_jac *acc, const bls381_g1_affine *p, const bls381_fr *k) {
    g16_scalar s;
    bls381_g1_jac t;
    fr_scalar(&s, k);
    bls381_g1_jac_from_affine(&t, p);
    bls381_g1_jac_mul_vartime(&t, &t, &s);
    bls381_g1_jac_add(acc, acc, &t);
}
static void g2_madd(bls381_g2_jac *acc, const bls381_g2_affine *p, const bls381_fr *k) {
    g16_scalar s;
    bls381_g2_jac t;
    fr_scalar(&s, k);
    bls381_g2_jac_from_affine(&t, p);
    bls381_g2_jac_mul_vartime(&t, &t, &s);
    bls381_g2_jac_add(acc, acc, &t);
}
static void lc_eval(bls381_fr *r, const term *t, const bls381_fr *w) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < 3 && t[i].c; i++) {
        bls381_fr c, m;
        bls381_fr_from_u64(&c, t[i].c);
        bls381_fr_mul(&m, &c, &w[t[i].v]);
        bls381_fr_add(r, r, &m);
    }
}
static int var_of(const char *tok) { return tok[0] == 'i' ? atoi(tok + 1) : 2 + atoi(tok + 1); }

static void test_proof(const g16_params *p) {
    size_t len;
    uint8_t *pb = (uint8_t *)t_read_file(DIR "params_toy.proof", &len);
    char *txt = t_read_file(DIR "params_toy.txt", &len);
    CHECK(pb && txt);
    if (!pb || !txt) {
        free(pb), free(txt);
        return;
    }
    g16_params_proof pr;
    g16_status st = {0};
    CHECK_MSG(g16_params_proof_decode(&pr, pb, G16_PARAMS_PROOF_SIZE, &st) == G16_OK, "%s", st.msg);
    uint8_t enc[G16_PARAMS_PROOF_SIZE];
    g16_params_proof_encode(enc, &pr);
    CHECK(memcmp(enc, pb, sizeof enc) == 0);

    bls381_fr w[NV], rr, ss;
    int var_a[NV], var_b[NV], na = 0, nb = 0;
    char *save, *line;
    for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *s2, *tok = strtok_r(line, " ", &s2);
        if (!strcmp(tok, "witness"))
            for (int i = 0; i < NV; i++)
                fr_dec(&w[i], strtok_r(NULL, " ", &s2));
        else if (!strcmp(tok, "rs"))
            fr_dec(&rr, strtok_r(NULL, " ", &s2)), fr_dec(&ss, strtok_r(NULL, " ", &s2));
        else if (!strcmp(tok, "vars")) {
            char *arr = strtok_r(NULL, " ", &s2);
            int *dst = !strcmp(arr, "a") ? var_a : var_b, *cnt = dst == var_a ? &na : &nb;
            if (!strcmp(arr, "b_g2"))
                continue; /* the same variables as b_g1 */
            for (tok = strtok_r(NULL, " ", &s2); tok && *cnt < NV; tok = strtok_r(NULL, " ", &s2))
                dst[(*cnt)++] = var_of(tok);
        }
    }
    CHECK(na == (int)p->n[G16_PARAMS_A] && nb == (int)p->n[G16_PARAMS_B_G1] && nb == (int)p->n[G16_PARAMS_B_G2]);

    /* it verifies for out = 35, and not for 36 */
    CHECK_MSG(g16_params_verify(p, &pr, &w[1], 1, &st) == G16_OK, "%s", st.msg);
    bls381_fr bad;
    bls381_fr_from_u64(&bad, 36);
    CHECK(g16_params_verify(p, &pr, &bad, 1, &st) == G16_ERR_INVALID_PROOF);
    CHECK(g16_params_verify(p, &pr, w, 2, &st) == G16_ERR_SIZE_MISMATCH);

    /* the reference prover. H: the constraint evaluations a_j, b_j, c_j zero-padded to n,
     * interpolated (naive inverse DFT over omega = 7^((r-1)/n)), a(X) b(X) - c(X) divided
     * by X^n - 1: the n - 1 quotient coefficients pair with h (monomial basis). */
    const size_t n = p->n[G16_PARAMS_H] + 1;
    CHECK(n == 8);
    if (n != 8 || na > NV || nb > NV) {
        free(pb), free(txt);
        return;
    }
    bls381_fr ev[3][8], co[3][8], omega, oinv, ninv, seven;
    memset(ev, 0, sizeof ev);
    for (int j = 0; j < NC; j++) {
        lc_eval(&ev[0][j], CA[j], w);
        lc_eval(&ev[1][j], CB[j], w);
        lc_eval(&ev[2][j], CC[j], w);
    }
    static const limb_t rp[4] = BLS381_FR_P;
    limb_t e[4];
    memcpy(e, rp, sizeof e);
    e[0] -= 1; /* r is odd */
    for (int i = 0; i < 4; i++) /* (r - 1) / 8 */
        e[i] = (e[i] >> 3) | (i < 3 ? e[i + 1] << 61 : 0);
    bls381_fr_from_u64(&seven, 7);
    bls381_fr_pow(&omega, &seven, e, 4);
    /* bellperson's omega (from 7) is g16's NTT root (from 5, ntt_constants.h) to the odd power
     * m = 0xb766bfd: 5^(t m) = 7^t, r - 1 = 2^32 t. So bellperson's constraint j sits at
     * position m j mod n of g16's natural-order NTT (the plan for proving from .params). */
    {
        bls381_fr wg, wgm;
        const limb_t m[1] = {0xb766bfdu};
        CHECK(ntt_bls381_fr_root(&wg, 3));
        bls381_fr_pow(&wgm, &wg, m, 1);
        CHECK_MSG(bls381_fr_eq(&wgm, &omega), "bellperson's omega is not g16's root^0xb766bfd");
        limb_t t32[4];
        memcpy(t32, rp, sizeof t32);
        t32[0] -= 1;
        for (int i = 0; i < 4; i++) /* t = (r - 1) / 2^32 */
            t32[i] = (t32[i] >> 32) | (i < 3 ? t32[i + 1] << 32 : 0);
        bls381_fr five, a5, a7;
        bls381_fr_from_u64(&five, 5);
        bls381_fr_pow(&a5, &five, t32, 4);
        bls381_fr_pow(&a5, &a5, m, 1);
        bls381_fr_pow(&a7, &seven, t32, 4);
        CHECK(bls381_fr_eq(&a5, &a7));
    }
    bls381_fr_inv(&oinv, &omega);
    bls381_fr_from_u64(&ninv, (uint64_t)n);
    bls381_fr_inv(&ninv, &ninv);
    for (int m = 0; m < 3; m++)
        for (size_t k = 0; k < n; k++) {
            bls381_fr acc, wk, wjk, t;
            memset(&acc, 0, sizeof acc);
            bls381_fr_set_one(&wk);
            for (size_t i = 0; i < k; i++)
                bls381_fr_mul(&wk, &wk, &oinv); /* omega^-k */
            bls381_fr_set_one(&wjk);
            for (size_t j = 0; j < n; j++) {
                bls381_fr_mul(&t, &ev[m][j], &wjk);
                bls381_fr_add(&acc, &acc, &t);
                bls381_fr_mul(&wjk, &wjk, &wk);
            }
            bls381_fr_mul(&co[m][k], &acc, &ninv);
        }
    bls381_fr prod[15];
    memset(prod, 0, sizeof prod);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            bls381_fr t;
            bls381_fr_mul(&t, &co[0][i], &co[1][j]);
            bls381_fr_add(&prod[i + j], &prod[i + j], &t);
        }
    for (size_t i = 0; i < n; i++)
        bls381_fr_sub(&prod[i], &prod[i], &co[2][i]);
    bls381_fr q[7];
    for (size_t d = 2 * n - 2; d >= n; d--) { /* divide by X^n - 1 */
        q[d - n] = prod[d];
        bls381_fr_add(&prod[d - n], &prod[d - n], &prod[d]);
    }
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(bls381_fr_is_zero(&prod[i]), "remainder coefficient %zu nonzero: witness not satisfying?", i);

    bls381_g1_jac A, B1, C;
    bls381_g2_jac B2;
    bls381_g1_jac_from_affine(&A, &p->alpha_g1);
    for (int i = 0; i < na; i++)
        g1_madd(&A, &p->a[i], &w[var_a[i]]);
    g1_madd(&A, &p->delta_g1, &rr);
    bls381_g2_jac_from_affine(&B2, &p->beta_g2);
    bls381_g1_jac_from_affine(&B1, &p->beta_g1);
    for (int i = 0; i < nb; i++) {
        g2_madd(&B2, &p->b_g2[i], &w[var_b[i]]);
        g1_madd(&B1, &p->b_g1[i], &w[var_b[i]]);
    }
    g2_madd(&B2, &p->delta_g2, &ss);
    g1_madd(&B1, &p->delta_g1, &ss);
    bls381_g1_jac_set_inf(&C);
    for (size_t i = 0; i + 1 < n; i++)
        g1_madd(&C, &p->h[i], &q[i]);
    for (uint32_t i = 0; i < p->n[G16_PARAMS_L]; i++)
        g1_madd(&C, &p->l[i], &w[2 + i]);
    bls381_g1_affine Aa, B1a, Ca;
    bls381_g2_affine B2a;
    bls381_g1_jac_to_affine(&Aa, &A);
    bls381_g1_jac_to_affine(&B1a, &B1);
    bls381_g2_jac_to_affine(&B2a, &B2);
    g1_madd(&C, &Aa, &ss);
    g1_madd(&C, &B1a, &rr);
    bls381_fr rs;
    bls381_fr_mul(&rs, &rr, &ss);
    bls381_fr_neg(&rs, &rs);
    g1_madd(&C, &p->delta_g1, &rs);
    bls381_g1_jac_to_affine(&Ca, &C);
    CHECK_MSG(bls381_g1_affine_eq(&Aa, &pr.a), "reference A differs from noble's");
    CHECK_MSG(bls381_g2_affine_eq(&B2a, &pr.b), "reference B differs from noble's");
    CHECK_MSG(bls381_g1_affine_eq(&Ca, &pr.c), "reference C differs from noble's");

    /* damaged proofs */
    memcpy(enc, pb, sizeof enc);
    CHECK(g16_params_proof_decode(&pr, enc, 191, &st) == G16_ERR_TRUNCATED);
    enc[0] &= 0x7f; /* compressed flag cleared on a 48-byte point */
    CHECK(g16_params_proof_decode(&pr, enc, sizeof enc, &st) == G16_ERR_FORMAT && strstr(st.msg, "proof A"));
    memcpy(enc, pb, sizeof enc);
    bls381_g2_affine np2;
    nosub_g2(&np2);
    bls381_g2_to_zcash(enc + 48, 96, &np2);
    CHECK(g16_params_proof_decode(&pr, enc, sizeof enc, &st) == G16_ERR_NOT_IN_SUBGROUP && strstr(st.msg, "proof B"));
    free(pb);
    free(txt);
}

/* ---- 5. random byte flips: an error or a key, never a crash ------------- */
static void test_flips(g16_rng *rng) {
    uint8_t *b = malloc(g_params_len);
    long ok = 0;
    for (int it = 0; it < 300; it++) {
        memcpy(b, g_params, g_params_len);
        int nflip = 1 + (int)(g16_rng_next(rng) % 4);
        for (int k = 0; k < nflip; k++)
            b[g16_rng_next(rng) % g_params_len] ^= (uint8_t)(1u << (g16_rng_next(rng) % 8));
        size_t len = g16_rng_next(rng) % 8 == 0 ? (size_t)(g16_rng_next(rng) % g_params_len) : g_params_len;
        g16_params p;
        g16_status st;
        g16_err e = load(&p, b, len, G16_PARAMS_KIND_AUTO, (int)(g16_rng_next(rng) % 3) - 1, NULL, &st);
        ok += e == G16_OK;
        CHECK(e == G16_OK || st.msg[0]);
        g16_params_free(&p);
    }
    printf("test_params: 300 random corruptions, %ld still loaded\n", ok);
    free(b);
}

int main(void) {
    g16_rng rng;
    g16_rng_seed(&rng, t_seed("test_params"));
    g_params = (uint8_t *)t_read_file(DIR "params_toy.params", &g_params_len);
    g_vk = (uint8_t *)t_read_file(DIR "params_toy.vk", &g_vk_len);
    CHECK(g_params && g_vk);
    if (!g_params || !g_vk)
        return t_done("test_params");
    g16_pool *pool = g16_pool_create(3);
    test_noble_key(NULL);
    test_noble_key(pool);
    g16_params p;
    g16_status st;
    CHECK(load(&p, g_params, g_params_len, G16_PARAMS_KIND_FULL, 0, NULL, &st) == G16_OK);
    test_layout(&p);
    test_points(&p);
    test_proof(&p);
    g16_params_free(&p);
    test_pool(pool);
    test_pool(NULL);
    test_default_limit(pool);
    test_flips(&rng);
    g16_pool_destroy(pool);
    free(g_params);
    free(g_vk);
    return t_done("test_params");
}
