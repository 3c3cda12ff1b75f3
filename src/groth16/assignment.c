/* Pre-synthesized partitions: checks, the .assignment file, and the
 * computation from a circom R1CS (layout and rules: assignment.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/formats.h"
#include "../util/file.h"
#include "assignment.h"

static uint64_t le64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}
static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static void put64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
static void put32(uint8_t *b, uint32_t v) {
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static size_t words_of(size_t bits) { return bits / 64 + (bits % 64 != 0); }

/* ---- checks ---------------------------------------------------------------- */
static g16_err check_bitmap(const uint64_t *w, size_t bit_len, size_t popcount, const char *name, const char *what,
                            g16_status *st) {
    if (!w && bit_len)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: %s_density is NULL with %s_bit_len %zu", what, name, name,
                        bit_len);
    size_t nw = words_of(bit_len), pc = 0;
    for (size_t i = 0; i < nw; i++)
        pc += (size_t)__builtin_popcountll(w[i]);
    if (bit_len % 64 && w[nw - 1] >> (bit_len % 64))
        return g16_fail(st, G16_ERR_FORMAT, "%s: %s_density has bits set past its %s_bit_len %zu", what, name, name,
                        bit_len);
    if (pc != popcount)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %s_popcount is %zu but %s_density has %zu bits set", what, name,
                        popcount, name, pc);
    return G16_OK;
}

g16_err g16_assignment_check_bits(const g16_assignment *a, const char *what, g16_status *st) {
    if (!a)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: NULL assignment", what);
    if ((!a->a || !a->b || !a->c) && a->abc_size)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: a, b or c is NULL with abc_size %zu", what, a->abc_size);
    if (!a->inp_assignment || a->inp_assignment_size == 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: no inp_assignment (input 0, the constant one, is required)",
                        what);
    if (!a->aux_assignment && a->aux_assignment_size)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: aux_assignment is NULL with aux_assignment_size %zu", what,
                        a->aux_assignment_size);
    g16_err e;
    if ((e = check_bitmap(a->a_aux_density, a->a_aux_bit_len, a->a_aux_popcount, "a_aux", what, st)) ||
        (e = check_bitmap(a->b_inp_density, a->b_inp_bit_len, a->b_inp_popcount, "b_inp", what, st)) ||
        (e = check_bitmap(a->b_aux_density, a->b_aux_bit_len, a->b_aux_popcount, "b_aux", what, st)))
        return e;
    return G16_OK;
}

g16_err g16_assignment_check_key(const g16_params *p, const g16_assignment *a, const char *what, g16_status *st) {
    size_t n_inp = p->n[G16_PARAMS_IC], n_aux = p->n[G16_PARAMS_L], domain = (size_t)p->n[G16_PARAMS_H] + 1;
#define MUST(cond, fmt, ...)                                                                             \
    do {                                                                                                 \
        if (!(cond))                                                                                     \
            return g16_fail(st, G16_ERR_SIZE_MISMATCH, "%s: " fmt, what, __VA_ARGS__);                   \
    } while (0)
    MUST(a->inp_assignment_size == n_inp, "inp_assignment_size is %zu, the key has %zu inputs (ic)",
         a->inp_assignment_size, n_inp);
    MUST(a->aux_assignment_size == n_aux, "aux_assignment_size is %zu, the key has %zu aux variables (l)",
         a->aux_assignment_size, n_aux);
    MUST(a->a_aux_bit_len == n_aux, "a_aux_bit_len is %zu, the key has %zu aux variables (l)", a->a_aux_bit_len,
         n_aux);
    MUST(a->b_aux_bit_len == n_aux, "b_aux_bit_len is %zu, the key has %zu aux variables (l)", a->b_aux_bit_len,
         n_aux);
    MUST(a->b_inp_bit_len == n_inp, "b_inp_bit_len is %zu, the key has %zu inputs (ic)", a->b_inp_bit_len, n_inp);
    MUST(n_inp + a->a_aux_popcount == p->n[G16_PARAMS_A],
         "a_aux_popcount is %zu: inputs + A-dense aux = %zu, the key's a has %u points", a->a_aux_popcount,
         n_inp + a->a_aux_popcount, p->n[G16_PARAMS_A]);
    MUST(a->b_inp_popcount + a->b_aux_popcount == p->n[G16_PARAMS_B_G1],
         "b_inp_popcount + b_aux_popcount is %zu, the key's b_g1 has %u points",
         a->b_inp_popcount + a->b_aux_popcount, p->n[G16_PARAMS_B_G1]);
    MUST(a->b_inp_popcount + a->b_aux_popcount == p->n[G16_PARAMS_B_G2],
         "b_inp_popcount + b_aux_popcount is %zu, the key's b_g2 has %u points",
         a->b_inp_popcount + a->b_aux_popcount, p->n[G16_PARAMS_B_G2]);
    MUST(a->abc_size <= domain, "abc_size is %zu, over the key's domain of %zu", a->abc_size, domain);
#undef MUST
    return G16_OK;
}

/* ---- the file ---------------------------------------------------------------- */
typedef struct asg_counts {
    uint64_t v[9]; /* abc, inputs, aux, a_aux bits, pop, b_inp bits, pop, b_aux bits, pop */
} asg_counts;
static const char *const k_count_names[9] = {"abc_size",      "n_inputs",       "n_aux",
                                             "a_aux_bit_len", "a_aux_popcount", "b_inp_bit_len",
                                             "b_inp_popcount", "b_aux_bit_len",  "b_aux_popcount"};

/* Header checks and the exact length the counts imply (no product can
 * overflow: each term is checked against the bytes left by division). */
static g16_err parse_header(asg_counts *c, const uint8_t *h, uint64_t len, const char *name, g16_status *st) {
    if (len < G16_ASSIGNMENT_HEADER_SIZE)
        return g16_fail(st, G16_ERR_TRUNCATED, "%s: %llu bytes, shorter than the %u-byte assignment header", name,
                        (unsigned long long)len, G16_ASSIGNMENT_HEADER_SIZE);
    if (memcmp(h, G16_ASSIGNMENT_MAGIC, 8))
        return g16_fail(st, G16_ERR_FORMAT, "%s: not an assignment file (bad magic)", name);
    uint32_t ver = le32(h + 8), curve = le32(h + 12);
    if (ver != G16_ASSIGNMENT_VERSION)
        return g16_fail(st, G16_ERR_FORMAT, "%s: assignment version %u, this build reads version %u", name, ver,
                        G16_ASSIGNMENT_VERSION);
    if (curve != G16_ASSIGNMENT_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "%s: curve %u; assignments are BLS12-381 (curve 2) only", name,
                        curve);
    for (int i = 0; i < 9; i++)
        c->v[i] = le64(h + 16 + 8 * i);
    for (int i = 0; i < 9; i += 1)
        if (i == 4 || i == 6 || i == 8) {
            if (c->v[i] > c->v[i - 1])
                return g16_fail(st, G16_ERR_FORMAT, "%s: %s %llu is over %s %llu", name, k_count_names[i],
                                (unsigned long long)c->v[i], k_count_names[i - 1], (unsigned long long)c->v[i - 1]);
        }
    if (c->v[1] == 0)
        return g16_fail(st, G16_ERR_FORMAT, "%s: n_inputs is 0 (input 0, the constant one, is required)", name);
    uint64_t left = len - G16_ASSIGNMENT_HEADER_SIZE;
    struct {
        uint64_t count, size;
        const char *what;
    } parts[8] = {{c->v[0], 32, "a"},          {c->v[0], 32, "b"},          {c->v[0], 32, "c"},
                  {c->v[1], 32, "inputs"},     {c->v[2], 32, "aux"},        {words_of(c->v[3]), 8, "a_aux density"},
                  {words_of(c->v[5]), 8, "b_inp density"}, {words_of(c->v[7]), 8, "b_aux density"}};
    for (int i = 0; i < 8; i++) {
        if (parts[i].count > left / parts[i].size)
            return g16_fail(st, G16_ERR_TRUNCATED,
                            "%s: %s declares %llu entries of %llu bytes but only %llu bytes remain", name,
                            parts[i].what, (unsigned long long)parts[i].count, (unsigned long long)parts[i].size,
                            (unsigned long long)left);
        left -= parts[i].count * parts[i].size;
    }
    if (left)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %llu trailing bytes after the b_aux density", name,
                        (unsigned long long)left);
    return G16_OK;
}

/* Sets f->a's pointers into base, the file's bytes (its counts parsed),
 * then checks the bitmaps. */
static g16_err bind(g16_assignment_file *f, const uint8_t *base, const asg_counts *c, const char *name,
                    g16_status *st) {
    const uint8_t *p = base + G16_ASSIGNMENT_HEADER_SIZE;
    g16_assignment *a = &f->a;
    size_t abc = (size_t)c->v[0];
    a->abc_size = abc;
    a->a = (const g16_fr_mont *)(const void *)p, p += 32 * abc;
    a->b = (const g16_fr_mont *)(const void *)p, p += 32 * abc;
    a->c = (const g16_fr_mont *)(const void *)p, p += 32 * abc;
    a->inp_assignment = (const g16_fr_mont *)(const void *)p, a->inp_assignment_size = (size_t)c->v[1];
    p += 32 * a->inp_assignment_size;
    a->aux_assignment = (const g16_fr_mont *)(const void *)p, a->aux_assignment_size = (size_t)c->v[2];
    p += 32 * a->aux_assignment_size;
    a->a_aux_density = (const uint64_t *)(const void *)p, a->a_aux_bit_len = (size_t)c->v[3];
    a->a_aux_popcount = (size_t)c->v[4];
    p += 8 * words_of(a->a_aux_bit_len);
    a->b_inp_density = (const uint64_t *)(const void *)p, a->b_inp_bit_len = (size_t)c->v[5];
    a->b_inp_popcount = (size_t)c->v[6];
    p += 8 * words_of(a->b_inp_bit_len);
    a->b_aux_density = (const uint64_t *)(const void *)p, a->b_aux_bit_len = (size_t)c->v[7];
    a->b_aux_popcount = (size_t)c->v[8];
    return g16_assignment_check_bits(a, name, st);
}

void g16_assignment_file_free(g16_assignment_file *f) {
    if (!f)
        return;
    if (f->buf) {
        g16_wipe(f->buf, f->len);
        free(f->buf);
    }
    g16_fmap_close(&f->map); /* a file's pages are not ours to wipe */
    memset(f, 0, sizeof *f);
}

g16_err g16_assignment_file_intact(const g16_assignment_file *f, g16_status *st) {
    if (!f)
        return g16_fail(st, G16_ERR_INVALID_ARG, "assignment: NULL");
    uint64_t now = 0;
    int state = g16_fmap_state(&f->map, &now);
    if (state == G16_FMAP_INTACT)
        return G16_OK;
    return g16_fail(st, G16_ERR_IO, "%s changed while it was read (%s; %zu bytes mapped, %llu now)",
                    f->map.path ? f->map.path : "the assignment",
                    state == G16_FMAP_TRUNCATED ? "truncated" : "rewritten in place", f->map.len,
                    (unsigned long long)now);
}

g16_err g16_assignment_read_mem(g16_assignment_file *f, const char *name, const void *data, size_t len,
                                g16_status *st) {
    if (!f)
        return g16_fail(st, G16_ERR_INVALID_ARG, "assignment: NULL output");
    memset(f, 0, sizeof *f);
    if (!name)
        name = "(memory)";
    if (!data && len)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: NULL buffer", name);
    asg_counts c;
    g16_err e = parse_header(&c, data, len, name, st);
    if (e)
        return e;
    f->buf = malloc(len);
    if (!f->buf)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory (%zu bytes)", name, len);
    f->len = len;
    memcpy(f->buf, data, len);
    f->data = f->buf;
    if ((e = bind(f, f->buf, &c, name, st)))
        g16_assignment_file_free(f);
    return e;
}

g16_err g16_assignment_read(g16_assignment_file *f, const char *path, g16_status *st) {
    if (!f || !path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "assignment: NULL output or path");
    memset(f, 0, sizeof *f);
    int fd;
    size_t len;
    g16_err e = g16_file_open_read(path, &fd, &len, st);
    if (e)
        return e;
    asg_counts c;
    if (len < G16_ASSIGNMENT_HEADER_SIZE) { /* reads nothing: the length alone fails it */
        close(fd);
        return parse_header(&c, NULL, len, path, st);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        e = g16_fail(st, G16_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return e;
    }
    if ((e = g16_fmap_map(&f->map, fd, &sb, path, path, st))) /* takes fd */
        return e;
    f->len = f->map.len;
    f->data = f->map.base;
    if (!(e = parse_header(&c, f->map.base, f->len, path, st)))
        e = bind(f, f->map.base, &c, path, st);
    /* what the checks read must be what the file held */
    if (!e)
        e = g16_assignment_file_intact(f, st);
    if (e)
        g16_assignment_file_free(f);
    return e;
}

g16_err g16_assignment_write(const char *path, const g16_assignment *a, g16_status *st) {
    g16_err e = g16_assignment_check_bits(a, path, st);
    if (e)
        return e;
    uint8_t h[G16_ASSIGNMENT_HEADER_SIZE];
    memcpy(h, G16_ASSIGNMENT_MAGIC "", 8);
    put32(h + 8, G16_ASSIGNMENT_VERSION);
    put32(h + 12, G16_ASSIGNMENT_CURVE_BLS12_381);
    uint64_t v[9] = {a->abc_size,      a->inp_assignment_size, a->aux_assignment_size,
                     a->a_aux_bit_len, a->a_aux_popcount,      a->b_inp_bit_len,
                     a->b_inp_popcount, a->b_aux_bit_len,      a->b_aux_popcount};
    for (int i = 0; i < 9; i++)
        put64(h + 16 + 8 * i, v[i]);
    g16_atomic_file af;
    if ((e = g16_atomic_begin(&af, path, st)))
        return e;
    FILE *fp = g16_atomic_stream(&af);
    if (!fp) {
        g16_atomic_abort(&af);
        return g16_fail(st, G16_ERR_IO, "%s: cannot open a stream on the temporary file", path);
    }
    struct {
        const void *p;
        size_t n;
    } parts[9] = {{h, sizeof h},
                  {a->a, 32 * a->abc_size},
                  {a->b, 32 * a->abc_size},
                  {a->c, 32 * a->abc_size},
                  {a->inp_assignment, 32 * a->inp_assignment_size},
                  {a->aux_assignment, 32 * a->aux_assignment_size},
                  {a->a_aux_density, 8 * words_of(a->a_aux_bit_len)},
                  {a->b_inp_density, 8 * words_of(a->b_inp_bit_len)},
                  {a->b_aux_density, 8 * words_of(a->b_aux_bit_len)}};
    /* little-endian host assumed for the limb and word arrays (x86-64, aarch64) */
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "assignment files are written in host order");
    for (int i = 0; i < 9; i++)
        if (parts[i].n && fwrite(parts[i].p, 1, parts[i].n, fp) != parts[i].n) {
            af.failed = 1;
            break;
        }
    return g16_atomic_commit(&af, st);
}

/* ---- from a circom R1CS ---------------------------------------------------------- */
/* <row, w> over one CSR row (Montgomery). */
static void row_eval(bls381_fr *out, const g16_r1cs_matrix *m, uint32_t row, const bls381_fr *w) {
    bls381_fr acc, t, co;
    bls381_fr_set_zero(&acc);
    for (uint64_t e = m->row[row]; e < m->row[row + 1]; e++) {
        memcpy(co.l, m->coef[e], sizeof co.l);
        bls381_fr_mul(&t, &co, &w[m->wire[e]]);
        bls381_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void set_bit(uint64_t *w, size_t i) { w[i / 64] |= (uint64_t)1 << (i % 64); }

g16_err g16_assignment_from_mem(g16_assignment_file *own, const struct g16_r1cs *rp, const struct g16_frvec *wp,
                                const char *name, g16_status *st) {
    memset(own, 0, sizeof *own);
    if (!rp || !wp)
        return g16_fail(st, G16_ERR_INVALID_ARG, "assignment: NULL circuit or witness");
    if (!name)
        name = "circuit";
    const g16_r1cs r = *rp;
    const g16_frvec w = *wp;
    const char *r1cs_path = name, *wtns_path = name;
    g16_err e = G16_OK;
    if (r.curve != G16_CURVE_BLS12_381 || w.curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "%s: bellperson partitions are BLS12-381 only (the %s is %s)", name,
                        r.curve != G16_CURVE_BLS12_381 ? "circuit" : "witness",
                        g16_curve_name(r.curve != G16_CURVE_BLS12_381 ? r.curve : w.curve));
    if (w.n != r.nWires)
        return g16_fail(st, G16_ERR_SIZE_MISMATCH, "%s: %zu witness values, the circuit has %u wires", name, w.n,
                        r.nWires);
    size_t n_inp = 1 + (size_t)g16_r1cs_npublic(&r), n_aux = r.nWires - n_inp;
    size_t rows = (size_t)r.nConstraints + n_inp;
    size_t aw = words_of(n_aux), iw = words_of(n_inp);
    size_t bytes = G16_ASSIGNMENT_HEADER_SIZE + 32 * (3 * rows + n_inp + n_aux) + 8 * (2 * aw + iw);
    own->buf = calloc(1, bytes);
    if (!own->buf) {
        e = g16_fail(st, G16_ERR_NOMEM, "%s: out of memory for %zu rows", r1cs_path, rows);
        goto out;
    }
    own->data = own->buf;
    own->len = bytes;
    /* lay it out as the file would be (bind() reads the counts back) */
    uint8_t *base = own->buf;
    bls381_fr *fa = (bls381_fr *)(void *)(base + G16_ASSIGNMENT_HEADER_SIZE), *fb = fa + rows, *fc = fb + rows;
    bls381_fr *inp = fc + rows, *aux = inp + n_inp;
    uint64_t *da = (uint64_t *)(void *)(aux + n_aux), *dbi = da + aw, *dba = dbi + iw;
    for (uint32_t j = 0; j < r.nConstraints; j++) {
        row_eval(&fa[j], &r.m[0], j, w.bls381);
        row_eval(&fb[j], &r.m[1], j, w.bls381);
        row_eval(&fc[j], &r.m[2], j, w.bls381);
    }
    for (size_t i = 0; i < n_inp; i++) { /* input_i * 0 = 0 */
        fa[r.nConstraints + i] = w.bls381[i];
        bls381_fr_set_zero(&fb[r.nConstraints + i]);
        bls381_fr_set_zero(&fc[r.nConstraints + i]);
    }
    memcpy(inp, w.bls381, n_inp * sizeof *inp);
    memcpy(aux, w.bls381 + n_inp, n_aux * sizeof *aux);
    size_t pa = 0, pbi = 0, pba = 0;
    for (int mat = 0; mat < 2; mat++)
        for (uint64_t e2 = 0; e2 < r.m[mat].row[r.nConstraints]; e2++) {
            uint32_t v = r.m[mat].wire[e2];
            if (mat == 0 && v >= n_inp)
                set_bit(da, v - n_inp);
            else if (mat == 1)
                v < n_inp ? set_bit(dbi, v) : set_bit(dba, v - n_inp);
        }
    for (size_t i = 0; i < aw; i++)
        pa += (size_t)__builtin_popcountll(da[i]), pba += (size_t)__builtin_popcountll(dba[i]);
    for (size_t i = 0; i < iw; i++)
        pbi += (size_t)__builtin_popcountll(dbi[i]);
    uint8_t *h = base;
    memcpy(h, G16_ASSIGNMENT_MAGIC "", 8);
    put32(h + 8, G16_ASSIGNMENT_VERSION);
    put32(h + 12, G16_ASSIGNMENT_CURVE_BLS12_381);
    asg_counts c = {{rows, n_inp, n_aux, n_aux, pa, n_inp, pbi, n_aux, pba}};
    for (int i = 0; i < 9; i++)
        put64(h + 16 + 8 * i, c.v[i]);
    e = bind(own, own->buf, &c, r1cs_path, st);
out:
    if (e)
        g16_assignment_file_free(own);
    (void)wtns_path;
    return e;
}

g16_err g16_assignment_from_r1cs(g16_assignment_file *own, const char *r1cs_path, const char *wtns_path,
                                 g16_status *st) {
    memset(own, 0, sizeof *own);
    g16_r1cs r;
    g16_frvec w;
    memset(&w, 0, sizeof w);
    g16_err e = g16_r1cs_read(&r, r1cs_path, st);
    if (e)
        return e;
    if ((e = g16_wtns_read(&w, wtns_path, st))) {
        g16_r1cs_free(&r);
        return e;
    }
    if (r.curve != G16_CURVE_BLS12_381 || w.curve != G16_CURVE_BLS12_381)
        e = g16_fail(st, G16_ERR_WRONG_CURVE, "%s: bellperson partitions are BLS12-381 only (the %s is %s)",
                     r.curve != G16_CURVE_BLS12_381 ? r1cs_path : wtns_path,
                     r.curve != G16_CURVE_BLS12_381 ? "circuit" : "witness",
                     g16_curve_name(r.curve != G16_CURVE_BLS12_381 ? r.curve : w.curve));
    else if (w.n != r.nWires)
        e = g16_fail(st, G16_ERR_SIZE_MISMATCH, "%s: %zu values, the circuit %s has %u wires", wtns_path, w.n,
                     r1cs_path, r.nWires);
    else
        e = g16_assignment_from_mem(own, &r, &w, r1cs_path, st);
    if (w.raw)
        g16_wipe(w.raw, w.n * sizeof *w.raw);
    g16_frvec_free(&w);
    g16_r1cs_free(&r);
    return e;
}
