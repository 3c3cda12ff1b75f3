/* proof.json, public.json and verification_key.json, as snarkjs 0.7 reads
 * and writes them.
 *
 * Reading uses jansson (duplicate keys rejected). Writing builds a jansson
 * tree and prints it with our own printer in exactly the layout snarkjs's CLI
 * produces: bfj.write(file, obj, {space: 1}), which equals
 * JSON.stringify(obj, null, 1) except that an empty array prints as "[\n]"
 * (indented like a closing bracket), and no newline ends the file. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt_internal.h"
#include "util/file.h"

/* vk_alphabeta_12 is read and written as the 12 Fp coefficients of the
 * tower, in memory order (c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1). */
_Static_assert(sizeof(bn254_fp12) == 12 * sizeof(bn254_fp), "bn254 fp12 layout");
_Static_assert(sizeof(bls381_fp12) == 12 * sizeof(bls381_fp), "bls381 fp12 layout");

const char *g16_snarkjs_curve_name(g16_curve curve) {
    return curve == G16_CURVE_BN254 ? "bn128" : "bls12381";
}

/* ---- the printer ---------------------------------------------------------- */

static void sb_indent(sbuf *b, int depth) {
    for (int i = 0; i < depth; i++)
        sb_put(b, " ", 1);
}
static void sb_quoted(sbuf *b, const char *s) {
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            sb_put(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            sb_str(b, esc);
        } else {
            sb_put(b, (const char *)&c, 1);
        }
    }
    sb_put(b, "\"", 1);
}

/* JSON.stringify(v, null, 1) layout, bfj's empty arrays/objects. */
static void emit(sbuf *b, json_t *v, int depth) {
    char num[32];
    switch (json_typeof(v)) {
    case JSON_STRING: sb_quoted(b, json_string_value(v)); break;
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        sb_str(b, num);
        break;
    case JSON_ARRAY: {
        sb_str(b, "[\n");
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n; i++) {
            sb_indent(b, depth + 1);
            emit(b, json_array_get(v, i), depth + 1);
            sb_str(b, i + 1 < n ? ",\n" : "\n");
        }
        sb_indent(b, depth);
        sb_str(b, "]");
        break;
    }
    case JSON_OBJECT: {
        sb_str(b, "{\n");
        const char *key;
        json_t *val;
        size_t i = 0, n = json_object_size(v);
        json_object_foreach(v, key, val) { /* insertion order (jansson >= 2.8) */
            sb_indent(b, depth + 1);
            sb_quoted(b, key);
            sb_str(b, ": ");
            emit(b, val, depth + 1);
            sb_str(b, ++i < n ? ",\n" : "\n");
        }
        sb_indent(b, depth);
        sb_str(b, "}");
        break;
    }
    case JSON_TRUE: sb_str(b, "true"); break;
    case JSON_FALSE: sb_str(b, "false"); break;
    default: sb_str(b, "null"); break;
    }
}

/* Prints and frees the tree (root may be NULL after an allocation failure). */
static g16_err finish(char **out, json_t *root, g16_status *st) {
    *out = NULL;
    if (!root)
        return g16_fail(st, G16_ERR_NOMEM, "out of memory building JSON");
    sbuf b = {0};
    emit(&b, root, 0);
    json_decref(root);
    if (b.oom || !b.p) {
        free(b.p);
        return g16_fail(st, G16_ERR_NOMEM, "out of memory printing JSON");
    }
    *out = b.p;
    return G16_OK;
}

static g16_err write_text(const char *path, const char *text, g16_status *st) {
    return g16_atomic_write(path, text, strlen(text), st);
}

/* ---- tree builders (NULL-safe: a failed allocation propagates NULL) ------ */

static json_t *arr_add(json_t *a, json_t *v) {
    if (!a || !v || json_array_append_new(a, v) != 0) {
        json_decref(a);
        if (!a)
            json_decref(v);
        return NULL;
    }
    return a;
}
static json_t *obj_add(json_t *o, const char *k, json_t *v) {
    if (!o || !v || json_object_set_new(o, k, v) != 0) {
        json_decref(o);
        if (!o)
            json_decref(v);
        return NULL;
    }
    return o;
}

#define FE_JSON(E)                                 \
    static json_t *json_##E(const E *a) {          \
        char buf[128];                             \
        E##_to_dec(buf, sizeof buf, a);            \
        return json_string(buf);                   \
    }
FE_JSON(bn254_fp)
FE_JSON(bls381_fp)
FE_JSON(bn254_fr)
FE_JSON(bls381_fr)

/* [x, y, "1"], or ["0", "1", "0"] for infinity. G2: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]. */
#define PT_JSON(C, B)                                                                       \
    static json_t *json_##C##_g1(const C##_g1_affine *p) {                                  \
        json_t *a = json_array();                                                           \
        if (C##_g1_affine_is_inf(p))                                                        \
            return arr_add(arr_add(arr_add(a, json_string("0")), json_string("1")),         \
                           json_string("0"));                                               \
        return arr_add(arr_add(arr_add(a, json_##B(&p->x)), json_##B(&p->y)), json_string("1")); \
    }                                                                                       \
    static json_t *json_pair_##C(json_t *x, json_t *y) {                                    \
        return arr_add(arr_add(json_array(), x), y);                                        \
    }                                                                                       \
    static json_t *json_##C##_g2(const C##_g2_affine *p) {                                  \
        json_t *a = json_array();                                                           \
        if (C##_g2_affine_is_inf(p))                                                        \
            return arr_add(                                                                 \
                arr_add(arr_add(a, json_pair_##C(json_string("0"), json_string("0"))),      \
                        json_pair_##C(json_string("1"), json_string("0"))),                 \
                json_pair_##C(json_string("0"), json_string("0")));                         \
        return arr_add(arr_add(arr_add(a, json_pair_##C(json_##B(&p->x.c0), json_##B(&p->x.c1))), \
                               json_pair_##C(json_##B(&p->y.c0), json_##B(&p->y.c1))),      \
                       json_pair_##C(json_string("1"), json_string("0")));                  \
    }
PT_JSON(bn254, bn254_fp)
PT_JSON(bls381, bls381_fp)

g16_err g16_proof_json_str(char **out, const g16_proof *p, g16_status *st) {
    json_t *o = json_object();
    if (p->curve == G16_CURVE_BN254) {
        o = obj_add(o, "pi_a", json_bn254_g1(&p->bn254.a));
        o = obj_add(o, "pi_b", json_bn254_g2(&p->bn254.b));
        o = obj_add(o, "pi_c", json_bn254_g1(&p->bn254.c));
    } else {
        o = obj_add(o, "pi_a", json_bls381_g1(&p->bls381.a));
        o = obj_add(o, "pi_b", json_bls381_g2(&p->bls381.b));
        o = obj_add(o, "pi_c", json_bls381_g1(&p->bls381.c));
    }
    o = obj_add(o, "protocol", json_string("groth16"));
    o = obj_add(o, "curve", json_string(g16_snarkjs_curve_name(p->curve)));
    return finish(out, o, st);
}

g16_err g16_public_json_str(char **out, const g16_frvec *v, size_t first, size_t count,
                            g16_status *st) {
    *out = NULL;
    if (first > v->n || count > v->n - first)
        return g16_fail(st, G16_ERR_INVALID_ARG, "public signals [%zu, %zu) outside a vector of %zu",
                        first, first + count, v->n);
    json_t *a = json_array();
    for (size_t i = first; i < first + count; i++) {
        if (v->curve == G16_CURVE_BN254) {
            bn254_fr x = v->bn254[i];
            if (v->standard)
                bn254_fr_to_mont(&x, v->raw[i]);
            a = arr_add(a, json_bn254_fr(&x));
        } else {
            bls381_fr x = v->bls381[i];
            if (v->standard)
                bls381_fr_to_mont(&x, v->raw[i]);
            a = arr_add(a, json_bls381_fr(&x));
        }
    }
    return finish(out, a, st);
}

#define VK_JSON(C)                                                                            \
    static json_t *vk_json_##C(const g16_vk *vk) {                                            \
        json_t *o = json_object();                                                            \
        o = obj_add(o, "protocol", json_string("groth16"));                                   \
        o = obj_add(o, "curve", json_string(g16_snarkjs_curve_name(vk->curve)));              \
        o = obj_add(o, "nPublic", json_integer(vk->nPublic));                                 \
        o = obj_add(o, "vk_alpha_1", json_##C##_g1(&vk->C.alpha1));                          \
        o = obj_add(o, "vk_beta_2", json_##C##_g2(&vk->C.beta2));                            \
        o = obj_add(o, "vk_gamma_2", json_##C##_g2(&vk->C.gamma2));                          \
        o = obj_add(o, "vk_delta_2", json_##C##_g2(&vk->C.delta2));                          \
        json_t *ab = json_array();                                                            \
        const C##_fp *ab12 = (const C##_fp *)(const void *)&vk->C.alphabeta;                  \
        for (int i = 0; i < 2; i++) {                                                         \
            json_t *f6 = json_array();                                                        \
            for (int j = 0; j < 3; j++)                                                       \
                f6 = arr_add(f6, json_pair_##C(json_##C##_fp(&ab12[6 * i + 2 * j]),                  \
                                               json_##C##_fp(&ab12[6 * i + 2 * j + 1])));             \
            ab = arr_add(ab, f6);                                                             \
        }                                                                                     \
        o = obj_add(o, "vk_alphabeta_12", ab);                                                \
        json_t *ic = json_array();                                                            \
        for (uint32_t i = 0; i <= vk->nPublic; i++)                                           \
            ic = arr_add(ic, json_##C##_g1(&vk->C.IC[i]));                                   \
        return obj_add(o, "IC", ic);                                                          \
    }
VK_JSON(bn254)
VK_JSON(bls381)

g16_err g16_vk_json_str(char **out, const g16_vk *vk, g16_status *st) {
    *out = NULL;
    if (!vk->has_alphabeta)
        return g16_fail(st, G16_ERR_INVALID_ARG,
                        "verification key: vk_alphabeta_12 = e(alpha1, beta2) not set");
    return finish(out, vk->curve == G16_CURVE_BN254 ? vk_json_bn254(vk) : vk_json_bls381(vk), st);
}

g16_err g16_proof_check_subgroup(const g16_proof *p, g16_status *st) {
    int ok_a, ok_b, ok_c;
#define PROOF_SUB(C)                                                                                 \
    do {                                                                                             \
        ok_a = C##_g1_affine_is_on_curve(&p->C.a) && C##_g1_affine_in_subgroup(&p->C.a);             \
        ok_b = C##_g2_affine_is_on_curve(&p->C.b) && C##_g2_affine_in_subgroup(&p->C.b);             \
        ok_c = C##_g1_affine_is_on_curve(&p->C.c) && C##_g1_affine_in_subgroup(&p->C.c);             \
    } while (0)
    if (p->curve == G16_CURVE_BN254)
        PROOF_SUB(bn254);
    else
        PROOF_SUB(bls381);
#undef PROOF_SUB
    if (!(ok_a && ok_b && ok_c))
        return g16_fail(st, G16_ERR_NOT_IN_SUBGROUP,
                        "proof: %s is not in the prime-order subgroup (the key's bases have a small-order "
                        "component)", !ok_a ? "pi_a" : !ok_b ? "pi_b" : "pi_c");
    return G16_OK;
}

g16_err g16_result_files_write(const char *proof_path, const g16_proof *p, const char *public_path,
                               const g16_frvec *pub, g16_status *st) {
    char *s[2] = {NULL, NULL};
    g16_atomic_file af[2];
    const char *path[2] = {proof_path, public_path};
    int open_n = 0;
    g16_err e = G16_OK;
    if (proof_path)
        e = g16_proof_json_str(&s[0], p, st);
    if (!e && public_path)
        e = g16_public_json_str(&s[1], pub, 0, pub->n, st);
    for (int k = 0; k < 2 && !e; k++) {
        if (!path[k])
            continue;
        if ((e = g16_atomic_begin(&af[k], path[k], st)))
            break;
        open_n = k + 1;
        FILE *f = g16_atomic_stream(&af[k]);
        size_t n = strlen(s[k]);
        af[k].failed = !f || fwrite(s[k], 1, n, f) != n;
        e = g16_atomic_finish(&af[k], st);
    }
    /* Both complete on disk before either is renamed into place. */
    for (int k = 0; k < open_n; k++) {
        if (!path[k])
            continue;
        if (!e)
            e = g16_atomic_commit(&af[k], st);
        else
            g16_atomic_abort(&af[k]);
    }
    free(s[0]);
    free(s[1]);
    return e;
}

g16_err g16_proof_json_write(const char *path, const g16_proof *p, g16_status *st) {
    char *s;
    g16_err e = g16_proof_json_str(&s, p, st);
    if (!e)
        e = write_text(path, s, st);
    free(s);
    return e;
}
g16_err g16_public_json_write(const char *path, const g16_frvec *v, size_t first, size_t count,
                              g16_status *st) {
    char *s;
    g16_err e = g16_public_json_str(&s, v, first, count, st);
    if (!e)
        e = write_text(path, s, st);
    free(s);
    return e;
}
g16_err g16_vk_json_write(const char *path, const g16_vk *vk, g16_status *st) {
    char *s;
    g16_err e = g16_vk_json_str(&s, vk, st);
    if (!e)
        e = write_text(path, s, st);
    free(s);
    return e;
}

/* ---- vk from a zkey -------------------------------------------------------- */

void g16_vk_free(g16_vk *vk) {
    if (!vk)
        return;
    free(vk->curve == G16_CURVE_BN254 ? (void *)vk->bn254.IC : (void *)vk->bls381.IC);
    memset(vk, 0, sizeof *vk);
}

g16_err g16_vk_from_zkey(g16_vk *vk, const g16_zkey *key, g16_status *st) {
    memset(vk, 0, sizeof *vk);
    vk->curve = key->curve;
    vk->nPublic = key->nPublic;
    size_t n = (size_t)key->nPublic + 1;
#define COPY_VK(C)                                                                 \
    do {                                                                           \
        vk->C.alpha1 = key->C.alpha1;                                              \
        vk->C.beta2 = key->C.beta2;                                                \
        vk->C.gamma2 = key->C.gamma2;                                              \
        vk->C.delta2 = key->C.delta2;                                              \
        vk->C.IC = malloc(n * sizeof *vk->C.IC);                                   \
        if (!vk->C.IC)                                                             \
            return g16_fail(st, G16_ERR_NOMEM, "out of memory for %zu IC points", n); \
        memcpy(vk->C.IC, key->C.IC, n * sizeof *vk->C.IC);                         \
        C##_pairing(&vk->C.alphabeta, &vk->C.alpha1, &vk->C.beta2);                \
        vk->has_alphabeta = 1;                                                     \
    } while (0)
    if (key->curve == G16_CURVE_BN254)
        COPY_VK(bn254);
    else
        COPY_VK(bls381);
#undef COPY_VK
    return G16_OK;
}

/* ---- readers ------------------------------------------------------------- */

static g16_err read_text(const char *path, size_t max, const char *what, char **text, size_t *len,
                         g16_status *st) {
    return g16_file_read_all(path, max, what, text, len, st);
}

static g16_err parse_root(json_t **root, const char *text, size_t len, const char *nm,
                          g16_status *st) {
    json_error_t je;
    *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*root)
        return g16_fail(st, G16_ERR_FORMAT, "%s: invalid JSON at line %d, column %d: %s", nm, je.line,
                        je.column, je.text);
    return G16_OK;
}

/* Field element from a decimal string (path names it in messages). */
#define FE_PARSE(E)                                                                            \
    static g16_err parse_##E(E *out, json_t *s, const char *nm, const char *path, g16_status *st) { \
        if (!json_is_string(s))                                                                \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: expected a decimal string", nm, path);  \
        g16_err e = E##_from_dec(out, json_string_value(s));                                   \
        if (e == G16_ERR_NOT_CANONICAL)                                                        \
            return g16_fail(st, e, "%s: %s: value is not below the modulus", nm, path);        \
        if (e)                                                                                 \
            return g16_fail(st, e, "%s: %s: not a decimal number: \"%.40s\"", nm, path,          \
                            json_string_value(s));                                             \
        return G16_OK;                                                                         \
    }
FE_PARSE(bn254_fp)
FE_PARSE(bls381_fp)
FE_PARSE(bn254_fr)
FE_PARSE(bls381_fr)

static int is_arr(json_t *v, size_t n) { return json_is_array(v) && json_array_size(v) == n; }

/* Points: G1 [x, y, z] with z = "1" (affine) or z = "0" with (x, y) = (0, 1)
 * (infinity); G2 the same over Fp2 pairs, z = ["1","0"] or ["0","0"].
 * Then: on the curve, in the subgroup. (0, 0, 1) is off the curve (it would
 * alias our internal infinity encoding, so it is rejected explicitly). */
#define PT_PARSE(C, B)                                                                         \
    static g16_err parse_fp2_##C(B *c0, B *c1, json_t *v, const char *nm, const char *path,    \
                                 g16_status *st) {                                             \
        char sub[96];                                                                          \
        g16_err e;                                                                             \
        if (!is_arr(v, 2))                                                                     \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: expected an array of 2 strings", nm, path); \
        snprintf(sub, sizeof sub, "%.80s[0]", path);                                              \
        if ((e = parse_##B(c0, json_array_get(v, 0), nm, sub, st)))                            \
            return e;                                                                          \
        snprintf(sub, sizeof sub, "%.80s[1]", path);                                              \
        return parse_##B(c1, json_array_get(v, 1), nm, sub, st);                               \
    }                                                                                          \
    static g16_err check_pt_##C(int on, int sub_ok, const char *nm, const char *path,          \
                                g16_status *st) {                                              \
        if (!on)                                                                               \
            return g16_fail(st, G16_ERR_NOT_ON_CURVE, "%s: %s: point is not on the curve", nm, path); \
        if (!sub_ok)                                                                           \
            return g16_fail(st, G16_ERR_NOT_IN_SUBGROUP, "%s: %s: point is not in the subgroup", \
                            nm, path);                                                         \
        return G16_OK;                                                                         \
    }                                                                                          \
    static g16_err parse_##C##_g1(C##_g1_affine *p, json_t *v, const char *nm, const char *path, \
                                  g16_status *st) {                                            \
        char sub[96];                                                                          \
        B c[3], one;                                                                           \
        g16_err e;                                                                             \
        if (!is_arr(v, 3))                                                                     \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: expected a G1 point [x, y, z]", nm, path); \
        for (int i = 0; i < 3; i++) {                                                          \
            snprintf(sub, sizeof sub, "%.80s[%d]", path, i);                                      \
            if ((e = parse_##B(&c[i], json_array_get(v, (size_t)i), nm, sub, st)))           \
                return e;                                                                      \
        }                                                                                      \
        B##_set_one(&one);                                                                     \
        if (B##_is_zero(&c[2])) {                                                              \
            if (!B##_is_zero(&c[0]) || !B##_eq(&c[1], &one))                                   \
                return g16_fail(st, G16_ERR_FORMAT, "%s: %s: infinity must be [\"0\", \"1\", \"0\"]", \
                                nm, path);                                                     \
            C##_g1_affine_set_inf(p);                                                          \
            return G16_OK;                                                                     \
        }                                                                                      \
        if (!B##_eq(&c[2], &one))                                                              \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: z must be \"1\" (affine) or \"0\"", nm, path); \
        p->x = c[0];                                                                           \
        p->y = c[1];                                                                           \
        int on = !C##_g1_affine_is_inf(p) && C##_g1_affine_is_on_curve(p);                    \
        return check_pt_##C(on, on && C##_g1_affine_in_subgroup(p), nm, path, st);             \
    }                                                                                          \
    static g16_err parse_##C##_g2(C##_g2_affine *p, json_t *v, const char *nm, const char *path, \
                                  g16_status *st) {                                            \
        char sub[96];                                                                          \
        B c[6], one;                                                                           \
        g16_err e;                                                                             \
        if (!is_arr(v, 3))                                                                     \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: expected a G2 point [x, y, z]", nm, path); \
        for (int i = 0; i < 3; i++) {                                                          \
            snprintf(sub, sizeof sub, "%.80s[%d]", path, i);                                      \
            if ((e = parse_fp2_##C(&c[2 * i], &c[2 * i + 1], json_array_get(v, (size_t)i), nm, sub, st))) \
                return e;                                                                      \
        }                                                                                      \
        B##_set_one(&one);                                                                     \
        if (!B##_is_zero(&c[5]))                                                               \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: z must be [\"1\", \"0\"] or [\"0\", \"0\"]", \
                            nm, path);                                                         \
        if (B##_is_zero(&c[4])) {                                                              \
            if (!B##_is_zero(&c[0]) || !B##_is_zero(&c[1]) || !B##_eq(&c[2], &one) ||          \
                !B##_is_zero(&c[3]))                                                           \
                return g16_fail(st, G16_ERR_FORMAT,                                            \
                                "%s: %s: infinity must be [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]", \
                                nm, path);                                                     \
            C##_g2_affine_set_inf(p);                                                          \
            return G16_OK;                                                                     \
        }                                                                                      \
        if (!B##_eq(&c[4], &one))                                                              \
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s: z must be [\"1\", \"0\"] or [\"0\", \"0\"]", \
                            nm, path);                                                         \
        p->x.c0 = c[0];                                                                        \
        p->x.c1 = c[1];                                                                        \
        p->y.c0 = c[2];                                                                        \
        p->y.c1 = c[3];                                                                        \
        int on = !C##_g2_affine_is_inf(p) && C##_g2_affine_is_on_curve(p);                    \
        return check_pt_##C(on, on && C##_g2_affine_in_subgroup(p), nm, path, st);             \
    }
PT_PARSE(bn254, bn254_fp)
PT_PARSE(bls381, bls381_fp)

/* protocol (if required or present) must be "groth16"; the curve comes from
 * the file's "curve" (if present) and/or the caller's expectation. */
static g16_err parse_header(json_t *root, const char *nm, int need_protocol, int want,
                            g16_curve *curve, g16_status *st) {
    if (!json_is_object(root))
        return g16_fail(st, G16_ERR_FORMAT, "%s: expected a JSON object", nm);
    json_t *pr = json_object_get(root, "protocol");
    if (!pr && need_protocol)
        return g16_fail(st, G16_ERR_FORMAT, "%s: missing \"protocol\"", nm);
    if (pr && (!json_is_string(pr) || strcmp(json_string_value(pr), "groth16") != 0))
        return g16_fail(st, G16_ERR_FORMAT, "%s: protocol is not \"groth16\"", nm);
    json_t *cv = json_object_get(root, "curve");
    if (cv) {
        g16_curve c;
        if (!json_is_string(cv) || g16_curve_from_name(&c, json_string_value(cv)) != G16_OK)
            return g16_fail(st, G16_ERR_FORMAT, "%s: unknown curve", nm);
        if (want >= 0 && (int)c != want)
            return g16_fail(st, G16_ERR_WRONG_CURVE, "%s: curve is %s, expected %s", nm,
                            json_string_value(cv), g16_snarkjs_curve_name((g16_curve)want));
        *curve = c;
        return G16_OK;
    }
    if (want < 0 || want > 1)
        return g16_fail(st, G16_ERR_FORMAT, "%s: missing \"curve\"", nm);
    *curve = (g16_curve)want;
    return G16_OK;
}

static json_t *need(json_t *o, const char *k, const char *nm, g16_status *st) {
    json_t *v = json_object_get(o, k);
    if (!v)
        g16_fail(st, G16_ERR_FORMAT, "%s: missing \"%s\"", nm, k);
    return v;
}

static g16_err proof_from_json(g16_proof *p, json_t *root, const char *nm, int want,
                               g16_status *st) {
    memset(p, 0, sizeof *p);
    g16_err e = parse_header(root, nm, 0, want, &p->curve, st);
    if (e)
        return e;
    json_t *a = need(root, "pi_a", nm, st), *b, *c;
    if (!a || !(b = need(root, "pi_b", nm, st)) || !(c = need(root, "pi_c", nm, st)))
        return G16_ERR_FORMAT;
    if (p->curve == G16_CURVE_BN254) {
        if ((e = parse_bn254_g1(&p->bn254.a, a, nm, "pi_a", st)) ||
            (e = parse_bn254_g2(&p->bn254.b, b, nm, "pi_b", st)) ||
            (e = parse_bn254_g1(&p->bn254.c, c, nm, "pi_c", st)))
            return e;
    } else {
        if ((e = parse_bls381_g1(&p->bls381.a, a, nm, "pi_a", st)) ||
            (e = parse_bls381_g2(&p->bls381.b, b, nm, "pi_b", st)) ||
            (e = parse_bls381_g1(&p->bls381.c, c, nm, "pi_c", st)))
            return e;
    }
    return G16_OK;
}

static g16_err public_from_json(g16_frvec *v, json_t *root, const char *nm, g16_curve curve,
                                g16_status *st) {
    memset(v, 0, sizeof *v);
    if (curve != G16_CURVE_BN254 && curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: unknown curve %d", nm, (int)curve);
    v->curve = curve;
    if (!json_is_array(root))
        return g16_fail(st, G16_ERR_FORMAT, "%s: expected a JSON array of decimal strings", nm);
    size_t n = json_array_size(root);
    v->raw = malloc(n ? n * sizeof *v->raw : 1);
    if (!v->raw)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", nm);
    v->n = n;
    for (size_t i = 0; i < n; i++) {
        char path[32];
        snprintf(path, sizeof path, "[%zu]", i);
        g16_err e = curve == G16_CURVE_BN254
                        ? parse_bn254_fr(&v->bn254[i], json_array_get(root, i), nm, path, st)
                        : parse_bls381_fr(&v->bls381[i], json_array_get(root, i), nm, path, st);
        if (e)
            return e;
    }
    return G16_OK;
}

#define VK_PARSE(C)                                                                            \
    static g16_err vk_points_##C(g16_vk *vk, json_t *root, json_t *ic, const char *nm,         \
                                 g16_status *st) {                                             \
        g16_err e;                                                                             \
        json_t *al = need(root, "vk_alpha_1", nm, st), *be, *ga, *de;                          \
        if (!al || !(be = need(root, "vk_beta_2", nm, st)) ||                                  \
            !(ga = need(root, "vk_gamma_2", nm, st)) || !(de = need(root, "vk_delta_2", nm, st))) \
            return G16_ERR_FORMAT;                                                             \
        if ((e = parse_##C##_g1(&vk->C.alpha1, al, nm, "vk_alpha_1", st)) ||                   \
            (e = parse_##C##_g2(&vk->C.beta2, be, nm, "vk_beta_2", st)) ||                     \
            (e = parse_##C##_g2(&vk->C.gamma2, ga, nm, "vk_gamma_2", st)) ||                   \
            (e = parse_##C##_g2(&vk->C.delta2, de, nm, "vk_delta_2", st)))                     \
            return e;                                                                          \
        if (C##_g1_affine_is_inf(&vk->C.alpha1) || C##_g2_affine_is_inf(&vk->C.beta2) ||       \
            C##_g2_affine_is_inf(&vk->C.gamma2) || C##_g2_affine_is_inf(&vk->C.delta2))        \
            return g16_fail(st, G16_ERR_FORMAT, "%s: vk_%s is the point at infinity (no setup makes one)", \
                            nm,                                                                \
                            C##_g1_affine_is_inf(&vk->C.alpha1)   ? "alpha_1"                  \
                            : C##_g2_affine_is_inf(&vk->C.beta2)  ? "beta_2"                   \
                            : C##_g2_affine_is_inf(&vk->C.gamma2) ? "gamma_2"                  \
                                                                  : "delta_2");                \
        json_t *ab = json_object_get(root, "vk_alphabeta_12");                                 \
        if (ab) {                                                                              \
            if (!is_arr(ab, 2))                                                                \
                return g16_fail(st, G16_ERR_FORMAT, "%s: vk_alphabeta_12: expected [[c0,c1]x3]x2", nm); \
            C##_fp *ab12 = (C##_fp *)(void *)&vk->C.alphabeta;                                 \
            for (int i = 0; i < 2; i++) {                                                      \
                json_t *f6 = json_array_get(ab, (size_t)i);                                    \
                if (!is_arr(f6, 3))                                                            \
                    return g16_fail(st, G16_ERR_FORMAT, "%s: vk_alphabeta_12[%d]: expected 3 Fp2 pairs", \
                                    nm, i);                                                    \
                for (int j = 0; j < 3; j++) {                                                  \
                    char path[64];                                                             \
                    snprintf(path, sizeof path, "vk_alphabeta_12[%d][%d]", i, j);              \
                    if ((e = parse_fp2_##C(&ab12[6 * i + 2 * j], &ab12[6 * i + 2 * j + 1],     \
                                           json_array_get(f6, (size_t)j), nm, path, st)))      \
                        return e;                                                              \
                }                                                                              \
            }                                                                                  \
            vk->has_alphabeta = 1;                                                             \
        }                                                                                      \
        size_t n = json_array_size(ic);                                                        \
        vk->C.IC = malloc(n * sizeof *vk->C.IC);                                               \
        if (!vk->C.IC)                                                                         \
            return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", nm);                       \
        for (size_t i = 0; i < n; i++) {                                                       \
            char path[32];                                                                     \
            snprintf(path, sizeof path, "IC[%zu]", i);                                         \
            if ((e = parse_##C##_g1(&vk->C.IC[i], json_array_get(ic, i), nm, path, st)))       \
                return e;                                                                      \
            if (C##_g1_affine_is_inf(&vk->C.IC[i]))                                            \
                return g16_fail(st, G16_ERR_FORMAT,                                            \
                                "%s: %s is the point at infinity (no setup makes one; any public " \
                                "input would verify)", nm, path);                              \
        }                                                                                      \
        return G16_OK;                                                                         \
    }
VK_PARSE(bn254)
VK_PARSE(bls381)

static g16_err vk_from_json(g16_vk *vk, json_t *root, const char *nm, int want, g16_status *st) {
    memset(vk, 0, sizeof *vk);
    g16_err e = parse_header(root, nm, 1, want, &vk->curve, st);
    if (e)
        return e;
    if (!json_object_get(root, "curve"))
        return g16_fail(st, G16_ERR_FORMAT, "%s: missing \"curve\"", nm);
    json_t *np = need(root, "nPublic", nm, st), *ic;
    if (!np || !(ic = need(root, "IC", nm, st)))
        return G16_ERR_FORMAT;
    if (!json_is_integer(np) || json_integer_value(np) < 0 || json_integer_value(np) > UINT32_MAX - 1)
        return g16_fail(st, G16_ERR_FORMAT, "%s: nPublic must be a non-negative integer", nm);
    vk->nPublic = (uint32_t)json_integer_value(np);
    if (!json_is_array(ic) || json_array_size(ic) != (size_t)vk->nPublic + 1)
        return g16_fail(st, G16_ERR_FORMAT, "%s: IC must be an array of nPublic + 1 = %u points", nm,
                        vk->nPublic + 1);
    return vk->curve == G16_CURVE_BN254 ? vk_points_bn254(vk, root, ic, nm, st)
                                        : vk_points_bls381(vk, root, ic, nm, st);
}

/* Parse text (named nm) with the reader fn; frees the tree. */
#define READER(NAME, T, ARG, FROM, CLEANUP, MAXLEN)                                                     \
    g16_err g16_##NAME##_json_parse(T *out, const char *text, size_t len, ARG, g16_status *st) { \
        json_t *root;                                                                           \
        g16_err e = parse_root(&root, text, len, "(json)", st);                                 \
        if (e) {                                                                                \
            memset(out, 0, sizeof *out);                                                        \
            return e;                                                                           \
        }                                                                                       \
        e = FROM(out, root, "(json)", curve, st);                                               \
        json_decref(root);                                                                      \
        if (e)                                                                                  \
            CLEANUP;                                                                            \
        return e;                                                                               \
    }                                                                                           \
    g16_err g16_##NAME##_json_read(T *out, const char *path, ARG, g16_status *st) {             \
        char *text;                                                                             \
        size_t len;                                                                             \
        memset(out, 0, sizeof *out);                                                            \
        g16_err e = read_text(path, MAXLEN, #NAME, &text, &len, st);                                           \
        if (e)                                                                                  \
            return e;                                                                           \
        json_t *root;                                                                           \
        e = parse_root(&root, text, len, path, st);                                             \
        free(text);                                                                             \
        if (e)                                                                                  \
            return e;                                                                           \
        e = FROM(out, root, path, curve, st);                                                   \
        json_decref(root);                                                                      \
        if (e)                                                                                  \
            CLEANUP;                                                                            \
        return e;                                                                               \
    }
READER(proof, g16_proof, int curve, proof_from_json, (void)0, G16_PROOF_JSON_MAX)
READER(public, g16_frvec, g16_curve curve, public_from_json, g16_frvec_free(out), G16_PUBLIC_JSON_MAX)
READER(vk, g16_vk, int curve, vk_from_json, g16_vk_free(out), G16_VK_JSON_MAX)
