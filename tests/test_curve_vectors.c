/* Checks g16's curve layer exactly against the @noble/curves vectors in
 * tests/vectors/curve_*.txt (format: tests/vectors/gen_curve.mjs): [k]G by
 * both multiplications, sums by every addition form, decimal printing of the
 * coordinates, zcash bytes both ways (BLS12-381), and rejection of points
 * outside the prime-order subgroup by in_subgroup, from_zkey and from_zcash. */
#include <string.h>

#include "curve/curve.h"
#include "testutil.h"

static long n_mul, n_sum, n_zc, n_nosub, n_nosubzc;

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}
/* Hex token to bytes; returns the length or 0 on error. */
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

static void scalar_from_dec(g16_scalar *k, const char *tok) {
    mpz_t z;
    mpz_init(z);
    CHECK(mpz_set_str(z, tok, 10) == 0);
    t_mpz_to_limbs(k->l, 4, z);
    mpz_clear(z);
}

/* Base-field element from a decimal token: through GMP (the oracle path) and
 * through F_from_dec, which must agree; then F_to_dec must print the token. */
#define PARSE_FP(F, NL)                                                     \
    static int parse_##F(F *r, const char *tok) {                           \
        if (tok == NULL) return 0;                                          \
        mpz_t z; mpz_init(z);                                               \
        int ok = mpz_set_str(z, tok, 10) == 0;                              \
        limb_t l[NL];                                                       \
        t_mpz_to_limbs(l, NL, z);                                           \
        mpz_clear(z);                                                       \
        ok = ok && F##_from_canon_vartime(r, l);                            \
        F d; char buf[128];                                                 \
        CHECK(F##_from_dec(&d, tok) == G16_OK && F##_eq(&d, r));            \
        F##_to_dec(buf, sizeof buf, r);                                     \
        CHECK_MSG(strcmp(buf, tok) == 0, "to_dec %s != %s", buf, tok);      \
        return ok;                                                          \
    }
PARSE_FP(bn254_fp, 4)
PARSE_FP(bls381_fp, 6)
#define PARSE_FP2(F2, F)                                                    \
    static int parse_##F2(F2 *r, char **save) {                             \
        int a = parse_##F(&r->c0, strtok_r(NULL, " ", save));              \
        return a & parse_##F(&r->c1, strtok_r(NULL, " ", save));            \
    }
PARSE_FP2(bn254_fp2, bn254_fp)
PARSE_FP2(bls381_fp2, bls381_fp)
static int parse_bn254_fp_tok(bn254_fp *r, char **save) { return parse_bn254_fp(r, strtok_r(NULL, " ", save)); }
static int parse_bls381_fp_tok(bls381_fp *r, char **save) { return parse_bls381_fp(r, strtok_r(NULL, " ", save)); }

#define VEC_GROUP(G, E, PARSE_E)                                                            \
    /* A point: "inf" or its coordinates. */                                                \
    static int G##_parse(G##_affine *p, char **save) {                                      \
        while (**save == ' ') (*save)++; /* peek without strtok_r: it writes NULs */         \
        if (strncmp(*save, "inf", 3) == 0) {                                                \
            strtok_r(NULL, " ", save); G##_affine_set_inf(p); return 1;                     \
        }                                                                                   \
        int ok = PARSE_E(&p->x, save);                                                      \
        return ok & PARSE_E(&p->y, save);                                                   \
    }                                                                                       \
    static G##_affine G##_last_nosub;                                                       \
    static void G##_line(const char *kind, char **save) {                                   \
        G##_affine g, want, got; G##_jac gj, t1, t2;                                        \
        G##_generator(&g); G##_jac_from_affine(&gj, &g);                                    \
        if (strcmp(kind, "mul") == 0) {                                                     \
            g16_scalar k; scalar_from_dec(&k, strtok_r(NULL, " ", save));                   \
            CHECK(G##_parse(&want, save));                                                  \
            G##_jac_mul(&t1, &gj, &k); G##_jac_to_affine(&got, &t1);                        \
            CHECK_MSG(G##_affine_eq(&got, &want), "%s mul", #G);                            \
            G##_jac_mul_vartime(&t1, &gj, &k); G##_jac_to_affine(&got, &t1);                \
            CHECK_MSG(G##_affine_eq(&got, &want), "%s mul_vartime", #G);                    \
            CHECK(G##_affine_is_on_curve(&want) && G##_affine_in_subgroup(&want));          \
            n_mul++;                                                                        \
        } else if (strcmp(kind, "sum") == 0) {                                              \
            g16_scalar a, b; G##_affine pa, pb; G##_xyzz xa, xb;                            \
            scalar_from_dec(&a, strtok_r(NULL, " ", save));                                 \
            scalar_from_dec(&b, strtok_r(NULL, " ", save));                                 \
            CHECK(G##_parse(&want, save));                                                  \
            G##_jac_mul_vartime(&t1, &gj, &a); G##_jac_mul_vartime(&t2, &gj, &b);           \
            G##_jac_to_affine(&pa, &t1); G##_jac_to_affine(&pb, &t2);                       \
            G##_jac add; G##_jac_add(&add, &t1, &t2);                                       \
            G##_jac_to_affine(&got, &add); CHECK(G##_affine_eq(&got, &want));               \
            G##_jac_add_vartime(&add, &t1, &t2);                                            \
            G##_jac_to_affine(&got, &add); CHECK(G##_affine_eq(&got, &want));               \
            G##_jac_add_affine(&add, &t1, &pb);                                             \
            G##_jac_to_affine(&got, &add); CHECK(G##_affine_eq(&got, &want));               \
            G##_xyzz_from_affine(&xa, &pa); G##_xyzz_from_affine(&xb, &pb);                 \
            G##_xyzz_add(&xa, &xa, &xb);                                                    \
            G##_xyzz_to_affine(&got, &xa); CHECK(G##_affine_eq(&got, &want));               \
            G##_xyzz_from_affine(&xa, &pa); G##_xyzz_add_affine(&xa, &xa, &pb);             \
            G##_xyzz_to_affine(&got, &xa); CHECK(G##_affine_eq(&got, &want));               \
            n_sum++;                                                                        \
        } else if (strcmp(kind, "nosub") == 0) {                                            \
            uint8_t z[192];                                                                 \
            CHECK(G##_parse(&want, save));                                                  \
            CHECK(G##_affine_is_on_curve(&want));                                           \
            CHECK(!G##_affine_in_subgroup(&want) && !G##_affine_in_subgroup_slow(&want));   \
            G##_to_zkey(z, &want);                                                          \
            CHECK(G##_from_zkey(&got, z, 1) == G16_ERR_NOT_IN_SUBGROUP);                    \
            CHECK(G##_from_zkey(&got, z, 0) == G16_OK && G##_affine_eq(&got, &want));       \
            G##_last_nosub = want;                                                          \
            n_nosub++;                                                                      \
        } else {                                                                            \
            CHECK_MSG(0, "unknown record %s", kind);                                        \
        }                                                                                   \
    }
VEC_GROUP(bn254_g1, bn254_fp, parse_bn254_fp_tok)
VEC_GROUP(bn254_g2, bn254_fp2, parse_bn254_fp2)
VEC_GROUP(bls381_g1, bls381_fp, parse_bls381_fp_tok)
VEC_GROUP(bls381_g2, bls381_fp2, parse_bls381_fp2)

/* zc / nosubzc records: BLS12-381 only. */
#define ZC_GROUP(G, CLEN)                                                                    \
    static void G##_zc(const char *kind, char **save) {                                      \
        uint8_t c[CLEN], u[2 * CLEN], mine[2 * CLEN];                                        \
        G##_affine want, got;                                                                \
        if (strcmp(kind, "zc") == 0) {                                                       \
            g16_scalar k; G##_jac t; G##_affine g;                                           \
            scalar_from_dec(&k, strtok_r(NULL, " ", save));                                  \
            CHECK(unhex(c, CLEN, strtok_r(NULL, " ", save)) == CLEN);                        \
            CHECK(unhex(u, 2 * CLEN, strtok_r(NULL, " ", save)) == 2 * CLEN);                \
            G##_generator(&g); G##_jac_from_affine(&t, &g);                                  \
            G##_jac_mul_vartime(&t, &t, &k); G##_jac_to_affine(&want, &t);                   \
            CHECK(G##_from_zcash(&got, c, CLEN) == G16_OK && G##_affine_eq(&got, &want));    \
            CHECK(G##_from_zcash(&got, u, 2 * CLEN) == G16_OK && G##_affine_eq(&got, &want)); \
            G##_to_zcash(mine, CLEN, &want); CHECK(memcmp(mine, c, CLEN) == 0);              \
            G##_to_zcash(mine, 2 * CLEN, &want); CHECK(memcmp(mine, u, 2 * CLEN) == 0);      \
            n_zc++;                                                                          \
        } else {                                                                             \
            CHECK(unhex(c, CLEN, strtok_r(NULL, " ", save)) == CLEN);                        \
            CHECK(unhex(u, 2 * CLEN, strtok_r(NULL, " ", save)) == 2 * CLEN);                \
            CHECK(G##_from_zcash(&got, c, CLEN) == G16_ERR_NOT_IN_SUBGROUP);                 \
            CHECK(G##_from_zcash(&got, u, 2 * CLEN) == G16_ERR_NOT_IN_SUBGROUP);             \
            G##_to_zcash(mine, CLEN, &G##_last_nosub); CHECK(memcmp(mine, c, CLEN) == 0);    \
            G##_to_zcash(mine, 2 * CLEN, &G##_last_nosub); CHECK(memcmp(mine, u, 2 * CLEN) == 0); \
            n_nosubzc++;                                                                     \
        }                                                                                    \
    }
ZC_GROUP(bls381_g1, 48)
ZC_GROUP(bls381_g2, 96)

static void run_file(const char *path, int bls) {
    size_t len;
    char *text = t_read_file(path, &len);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) return;
    char *save_line;
    for (char *line = strtok_r(text, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
        if (line[0] == '#' || line[0] == '\0') continue;
        char *save;
        char *kind = strtok_r(line, " ", &save);
        char *grp = strtok_r(NULL, " ", &save);
        if (!kind || !grp) { CHECK_MSG(0, "bad line"); continue; }
        int g2 = strcmp(grp, "g2") == 0;
        if (strcmp(kind, "zc") == 0 || strcmp(kind, "nosubzc") == 0) {
            CHECK(bls);
            if (g2) bls381_g2_zc(kind, &save); else bls381_g1_zc(kind, &save);
        } else if (bls) {
            if (g2) bls381_g2_line(kind, &save); else bls381_g1_line(kind, &save);
        } else {
            if (g2) bn254_g2_line(kind, &save); else bn254_g1_line(kind, &save);
        }
    }
    free(text);
}

int main(void) {
    t_seed("test_curve_vectors"); /* no randomness; printed for uniformity */
    run_file("tests/vectors/curve_bn254.txt", 0);
    long bn_nosub = n_nosub;
    run_file("tests/vectors/curve_bls12_381.txt", 1);
    printf("records: mul %ld, sum %ld, zc %ld, nosub %ld, nosubzc %ld\n", n_mul, n_sum, n_zc, n_nosub, n_nosubzc);
    CHECK(n_mul >= 40 && n_sum >= 20 && n_zc >= 16 && bn_nosub >= 4 && n_nosub >= 12 && n_nosubzc >= 8);
    return t_done("test_curve_vectors");
}
