/* Template for synth.c: the generator over one scalar field FR (with its
 * constant prefix FR_UP). Defines synth_<FR>(). */

#define SN(name) G16_CAT(G16_CAT(synth_, FR), _##name)
#define FO(name) G16_CAT(FR, _##name)

typedef struct SN(lc) {
    int n;
    uint32_t wire[SYNTH_MAX_TERMS];
    FR c[SYNTH_MAX_TERMS];
} SN(lc);

static void SN(lc_add)(SN(lc) *l, uint32_t wire, const FR *c) {
    for (int i = 0; i < l->n; i++)
        if (l->wire[i] == wire) {
            FO(add)(&l->c[i], &l->c[i], c);
            return;
        }
    l->wire[l->n] = wire;
    l->c[l->n] = *c;
    l->n++;
}

static void SN(lc_eval)(FR *out, const SN(lc) *l, const FR *w) {
    FR t;
    FO(set_zero)(out);
    for (int i = 0; i < l->n; i++) {
        FO(mul)(&t, &l->c[i], &w[l->wire[i]]);
        FO(add)(out, out, &t);
    }
}

static void SN(lc_write)(binwriter *wr, const SN(lc) *l) {
    binw_u32(wr, (uint32_t)l->n);
    for (int i = 0; i < l->n; i++) {
        uint8_t b[32];
        FO(to_bytes_le)(b, 32, &l->c[i]);
        binw_u32(wr, l->wire[i]);
        binw_bytes(wr, b, 32);
    }
}

/* Appends a row's terms to an in-memory CSR matrix (capacity *cap, grown
 * by half: glibc's realloc of large blocks remaps instead of copying). */
static int SN(lc_append)(g16_r1cs_matrix *mat, uint64_t *nnz, uint64_t *cap, uint32_t row, const SN(lc) *l) {
    if (*nnz + (uint64_t)l->n > *cap) {
        uint64_t nc = *cap < 4096 ? 4096 : *cap + *cap / 2;
        uint32_t *wire = realloc(mat->wire, nc * sizeof *wire);
        if (!wire)
            return -1;
        mat->wire = wire;
        limb_t(*coef)[4] = realloc(mat->coef, nc * sizeof *coef);
        if (!coef)
            return -1;
        mat->coef = coef;
        *cap = nc;
    }
    for (int i = 0; i < l->n; i++) {
        mat->wire[*nnz] = l->wire[i];
        memcpy(mat->coef[*nnz], l->c[i].l, 32);
        (*nnz)++;
    }
    mat->row[row + 1] = *nnz;
    return 0;
}

static void SN(small)(FR *r, uint64_t v) { FO(from_u64)(r, v); }

/* Picks an operand: the oldest wire of the queue not yet used in A, else a
 * random element of the list. */
typedef struct SN(pool) {
    uint32_t *v;
    size_t n, head;
} SN(pool);

static uint32_t SN(take)(SN(pool) *p, g16_rng *rng, int from_queue) {
    if (from_queue && p->head < p->n)
        return p->v[p->head++];
    return p->v[g16_rng_next(rng) % p->n];
}

static g16_err SN(write_wtns)(const char *path, const FR *w, uint32_t n_wires, g16_status *st) {
    static const limb_t prime[4] = G16_CAT(FR_UP, _P);
    binwriter wr;
    g16_err err = binw_open(&wr, path, "wtns", 2, 2, st);
    if (err)
        return err;
    long s1 = binw_section_begin(&wr, 1);
    binw_u32(&wr, 32);
    for (int i = 0; i < 4; i++)
        binw_u64(&wr, prime[i]);
    binw_u32(&wr, n_wires);
    binw_section_end(&wr, s1);
    long s2 = binw_section_begin(&wr, 2);
    for (uint32_t i = 0; i < n_wires; i++) {
        uint8_t b[32];
        FO(to_bytes_le)(b, 32, &w[i]);
        binw_bytes(&wr, b, 32);
    }
    binw_section_end(&wr, s2);
    return binw_close(&wr, st);
}

/* The linear combinations of one row whose output wire is v (rows 0 and
 * m - 1 fixed, the others drawn by the profile from srng and the pools of
 * bit and full-width wires): *fresh_bit says v is a new bit (v (v - 1) = 0,
 * C empty), *is_bit that v is 0 or 1, *gamma_neg that C = Cpart - v. */
static void SN(row_lcs)(const synth_opts *o, uint32_t row, uint32_t m, uint32_t v, uint32_t first, g16_rng *srng,
                        SN(pool) *bits, SN(pool) *bits_b, SN(pool) *full, SN(lc) *A, SN(lc) *B, SN(lc) *C,
                        int *fresh_bit, int *is_bit, int *gamma_neg, int *dead) {
    const int last = row == m - 1;
    FR one, minus_one, two;
    FO(set_one)(&one);
    FO(neg)(&minus_one, &one);
    FO(add)(&two, &one, &one);
    uint32_t r = (uint32_t)(g16_rng_next(srng) % 100);
    FR k, k2;
    if (last) {
        SN(lc_add)(A, first + m - 2, &one);
        SN(lc_add)(B, 0, &one);
    } else if (row == 0) { /* uses the public input: (w2 + w3) * w4 = v */
        SN(lc_add)(A, 2, &one);
        SN(lc_add)(A, 3, &one);
        SN(lc_add)(B, 4, &one);
    } else if (o->profile == SYNTH_FILECOIN) {
        if ((v % 4 == 0 && (bits->n < 2 || r < 40)) || bits->n < 2) {
            *fresh_bit = *is_bit = 1; /* v (v - 1) = 0 */
            SN(lc_add)(A, v, &one);
            SN(lc_add)(B, v, &one);
            SN(lc_add)(B, 0, &minus_one);
        } else if (r < 94 || full->n < 2) {
            uint32_t a = SN(take)(bits, srng, 1);
            uint32_t b = bits_b->n ? SN(take)(bits_b, srng, 0) : SN(take)(bits, srng, 0);
            *is_bit = 1;
            if (r < 70) { /* XOR: 2a * b = a + b - v */
                SN(lc_add)(A, a, &two);
                SN(lc_add)(B, b, &one);
                SN(lc_add)(C, a, &one);
                SN(lc_add)(C, b, &one);
                *gamma_neg = 1;
            } else { /* AND: a * b = v */
                SN(lc_add)(A, a, &one);
                SN(lc_add)(B, b, &one);
            }
        } else if (r < 99) { /* pack 8 bits plus a full-width wire: (sum 2^j b_j + f) * 1 = v */
            for (int j = 0; j < 8; j++) {
                SN(small)(&k, 1ull << j);
                SN(lc_add)(A, SN(take)(bits, srng, 1), &k);
            }
            SN(lc_add)(A, SN(take)(full, srng, 1), &one);
            SN(lc_add)(B, 0, &one);
        } else { /* full-width product */
            SN(lc_add)(A, SN(take)(full, srng, 1), &one);
            SN(lc_add)(B, SN(take)(full, srng, 0), &one);
        }
    } else if (o->profile == SYNTH_POREP) {
        /* per mille of rows (docs/groth16.md "Synthetic circuits"): 200
         * allocated bits, 700 XOR/AND of bits (3 of them dead ends, used by
         * no later row), 54 squarings, 20 selections, 16 linear
         * combinations, 10 packings. bits holds the XOR/AND outputs (taken
         * into A once each, oldest first), bits_b the allocated bits (in A
         * and B by their boolean constraint: the B operands of bit rows). */
        uint32_t q = (uint32_t)(g16_rng_next(srng) % 1000);
        if (bits_b->n < 2 || q < 200) {
            *fresh_bit = *is_bit = 1; /* v (v - 1) = 0 */
            SN(lc_add)(A, v, &one);
            SN(lc_add)(B, v, &one);
            SN(lc_add)(B, 0, &minus_one);
        } else if (q < 900) {
            uint32_t a = bits->head < bits->n ? SN(take)(bits, srng, 1) : SN(take)(bits_b, srng, 0);
            uint32_t b = SN(take)(bits_b, srng, 0);
            *is_bit = 1;
            *dead = q < 203;
            if (q < 750) { /* XOR: 2a * b = a + b - v */
                SN(lc_add)(A, a, &two);
                SN(lc_add)(B, b, &one);
                SN(lc_add)(C, a, &one);
                SN(lc_add)(C, b, &one);
                *gamma_neg = 1;
            } else { /* AND: a * b = v */
                SN(lc_add)(A, a, &one);
                SN(lc_add)(B, b, &one);
            }
        } else if (q < 954) { /* S-box step: x * x = v, x the newest full-width wire */
            uint32_t x = full->v[full->n - 1];
            SN(lc_add)(A, x, &one);
            SN(lc_add)(B, x, &one);
        } else if (q < 974) { /* select: (x - y) * b = v - y */
            uint32_t x = SN(take)(full, srng, 1), y = SN(take)(full, srng, 1);
            if (y == x)
                y = 0;
            SN(lc_add)(A, x, &one);
            SN(lc_add)(A, y, &minus_one);
            SN(lc_add)(B, SN(take)(bits_b, srng, 0), &one);
            SN(lc_add)(C, y, &one);
        } else if (q < 990) { /* round constants and MDS: (x + k y + k2 z) * 1 = v */
            uint32_t x = SN(take)(full, srng, 1), y = SN(take)(full, srng, 1);
            SN(small)(&k, 1 + g16_rng_next(srng) % 1000);
            SN(small)(&k2, 1 + g16_rng_next(srng) % 1000);
            SN(lc_add)(A, x, &one);
            SN(lc_add)(A, y, &k);
            SN(lc_add)(A, SN(take)(full, srng, 1), &k2);
            SN(lc_add)(B, 0, &one);
        } else { /* pack 7 bits and three full-width wires: (sum 2^j b_j + x + y + z) * 1 = v */
            for (int j = 0; j < 7; j++) {
                SN(small)(&k, 1ull << j);
                SN(lc_add)(A, bits->head < bits->n ? SN(take)(bits, srng, 1) : SN(take)(bits_b, srng, 0), &k);
            }
            for (int j = 0; j < 3; j++)
                SN(lc_add)(A, SN(take)(full, srng, 1), &one);
            SN(lc_add)(B, 0, &one);
        }
    } else if (o->profile == SYNTH_SPARSE_B) {
        if (r < 95) { /* (a + k b) * k2 = v */
            uint32_t a = SN(take)(full, srng, 1), b = SN(take)(full, srng, 0);
            SN(small)(&k, 1 + g16_rng_next(srng) % 1000);
            SN(small)(&k2, 1 + g16_rng_next(srng) % 1000);
            SN(lc_add)(A, a, &one);
            SN(lc_add)(A, b, &k);
            SN(lc_add)(B, 0, &k2);
        } else { /* a * w3 = v: B only ever touches wires 0, 3, 4 */
            SN(lc_add)(A, SN(take)(full, srng, 1), &one);
            SN(lc_add)(B, 3 + (uint32_t)(g16_rng_next(srng) & 1), &one);
        }
    } else { /* dense */
        uint32_t a = SN(take)(full, srng, 1), b = SN(take)(full, srng, 0);
        FO(random)(&k, srng);
        FO(random)(&k2, srng);
        if (r < 50) { /* a * b = v */
            SN(lc_add)(A, a, &one);
            SN(lc_add)(B, b, &one);
        } else if (r < 80) { /* (a + k b + k2) * 1 = v */
            SN(lc_add)(A, a, &one);
            SN(lc_add)(A, b, &k);
            SN(lc_add)(A, 0, &k2);
            SN(lc_add)(B, 0, &one);
        } else { /* k a * (b + k2) = v */
            SN(lc_add)(A, a, &k);
            SN(lc_add)(B, b, &one);
            SN(lc_add)(B, 0, &k2);
        }
    }
}

/* Opens the .r1cs file at path: its header section (1) written and the
 * constraints section (2) begun (*s2). */
static g16_err SN(r1cs_begin)(binwriter *wr, const char *path, uint32_t n_wires, uint32_t m, uint32_t n_pub_in,
                              long *s2, g16_status *st) {
    static const limb_t prime[4] = G16_CAT(FR_UP, _P);
    g16_err err = binw_open(wr, path, "r1cs", 1, 3, st);
    if (err)
        return err;
    long s1 = binw_section_begin(wr, 1);
    binw_u32(wr, 32);
    for (int i = 0; i < 4; i++)
        binw_u64(wr, prime[i]);
    binw_u32(wr, n_wires);
    binw_u32(wr, N_PUB_OUT);
    binw_u32(wr, n_pub_in);
    binw_u32(wr, N_PRV_IN);
    binw_u64(wr, n_wires);
    binw_u32(wr, m);
    binw_section_end(wr, s1);
    *s2 = binw_section_begin(wr, 2);
    return G16_OK;
}

/* Wire v of row `row` (A B = C, C holding gamma v) in each partition's
 * witness w[0 .. np-1]: a random bit (fresh_bit) or solved from the row;
 * then the row is checked. */
static g16_err SN(row_values)(FR **w, g16_rng *vrng, int np, uint32_t row, uint32_t v, int fresh_bit, int gamma_neg,
                              const SN(lc) *A, const SN(lc) *B, const SN(lc) *C, g16_status *st) {
    for (int p = 0; p < np; p++) {
        FR *wp = w[p], av, bv, cv, t;
        if (fresh_bit) {
            if (g16_rng_next(&vrng[p]) & 1)
                FO(set_one)(&wp[v]);
            else
                FO(set_zero)(&wp[v]);
        } else {
            FO(set_zero)(&wp[v]);
            SN(lc_eval)(&av, A, wp);
            SN(lc_eval)(&bv, B, wp);
            SN(lc_eval)(&cv, C, wp); /* Cpart, since w[v] = 0 for now */
            FO(mul)(&t, &av, &bv);
            FO(sub)(&t, &t, &cv);     /* gamma v = A B - Cpart */
            if (gamma_neg)
                FO(neg)(&t, &t);
            wp[v] = t;
        }
        SN(lc_eval)(&av, A, wp);
        SN(lc_eval)(&bv, B, wp);
        SN(lc_eval)(&cv, C, wp);
        FO(mul)(&t, &av, &bv);
        if (!FO(eq)(&t, &cv))
            return g16_fail(st, G16_ERR_INTERNAL, "synth: row %u not satisfied", row);
    }
    return G16_OK;
}

/* The circuit's shape into stats: sizes, the share of wires used in A and
 * in B (used[]: bit 0, bit 1), and of 0/1 values in the witness w0. */
static void SN(shape_stats)(synth_stats *stats, const uint8_t *used, const FR *w0, uint32_t n_wires, uint32_t m,
                            uint32_t n_public) {
    uint64_t in_a = 0, in_b = 0, zero_one = 0, aux_a = 0, aux_b = 0, aux_01 = 0;
    for (uint32_t i = 0; i < n_wires; i++) {
        int ia = used[i] & 1, ib = (used[i] >> 1) & 1, z = FO(is_zero)(&w0[i]) | FO(is_one)(&w0[i]);
        in_a += (uint64_t)ia;
        in_b += (uint64_t)ib;
        zero_one += (uint64_t)z;
        if (i > n_public) {
            aux_a += (uint64_t)ia;
            aux_b += (uint64_t)ib;
            aux_01 += (uint64_t)z;
        }
    }
    const double n_aux = (double)(n_wires - n_public - 1);
    stats->a_aux_density = (double)aux_a / n_aux;
    stats->b_aux_density = (double)aux_b / n_aux;
    stats->aux_zero_one_fraction = (double)aux_01 / n_aux;
    stats->n_constraints = m;
    stats->n_wires = n_wires;
    stats->n_public = n_public;
    stats->a_wire_density = (double)in_a / n_wires;
    stats->b_wire_density = (double)in_b / n_wires;
    stats->zero_one_fraction = (double)zero_one / n_wires;
}

/* wout non-NULL: in memory (no files): the circuit into cs (unless NULL:
 * witnesses only) and the witnesses of partitions p0 .. p0 + partitions - 1
 * into wout[0 ..]. */
static g16_err SN(run)(const synth_opts *o, g16_r1cs *cs, g16_frvec *wout, int p0, synth_stats *stats,
                       g16_progress *pg, g16_status *st) {
    uint32_t n_public = N_PUB_OUT + 1, m = (1u << o->log_n) - n_public - 1; /* m: rows */
    if (o->profile == SYNTH_POREP)
        synth_porep_shape(o->log_n, &m, &n_public);
    const uint32_t first = 1 + n_public + N_PRV_IN; /* the first row's output wire */
    const uint32_t n_wires = first + m - 1;
    const int np = o->partitions;
    g16_err err = G16_OK;
    FR **w = calloc((size_t)np, sizeof *w);
    g16_rng *vrng = calloc((size_t)np, sizeof *vrng);
    uint8_t *used = calloc(n_wires, 1); /* bit 0: in A, bit 1: in B */
    SN(pool) bits = {0}, bits_b = {0}, full = {0};
    bits.v = malloc(n_wires * sizeof(uint32_t));
    bits_b.v = malloc(n_wires * sizeof(uint32_t));
    full.v = malloc(n_wires * sizeof(uint32_t));
    binwriter wr = {0};
    const int mem = wout != NULL, keep_cs = cs != NULL;
    uint64_t cap[3] = {0, 0, 0};
    if (keep_cs) {
        memset(cs, 0, sizeof *cs);
        for (int x = 0; x < 3; x++)
            if (!(cs->m[x].row = calloc((size_t)m + 1, sizeof(uint64_t)))) {
                err = g16_fail(st, G16_ERR_NOMEM, "synth: out of memory");
                goto done;
            }
    }
    if (!w || !vrng || !used || !bits.v || !bits_b.v || !full.v) {
        err = g16_fail(st, G16_ERR_NOMEM, "synth: out of memory");
        goto done;
    }
    for (int p = 0; p < np; p++) {
        w[p] = malloc((size_t)n_wires * sizeof(FR));
        if (!w[p]) {
            err = g16_fail(st, G16_ERR_NOMEM, "synth: out of memory for %u wires", n_wires);
            goto done;
        }
        g16_rng_seed(&vrng[p], o->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(p0 + p + 1)));
        FO(set_one)(&w[p][0]);
        for (uint32_t i = 2; i < first; i++)
            FO(random)(&w[p][i], &vrng[p]);
    }
    g16_rng srng;
    g16_rng_seed(&srng, o->seed);
    for (uint32_t i = 2; i < first; i++)
        full.v[full.n++] = i;

    long s2 = 0;
    if (!mem) {
        err = SN(r1cs_begin)(&wr, o->r1cs_path, n_wires, m, n_public - N_PUB_OUT, &s2, st);
        if (err)
            goto done;
    }

    FR one, minus_one;
    FO(set_one)(&one);
    FO(neg)(&minus_one, &one);
    g16_progress_stage(pg, "rows", m);
    for (uint32_t row = 0; row < m; row++) {
        if (row % 1024 == 0)
            g16_progress_at(pg, row);
        const int last = row == m - 1;
        const uint32_t v = last ? 1 : first + row;
        SN(lc) A = {0}, B = {0}, C = {0};
        int fresh_bit = 0, is_bit = 0, gamma_neg = 0, dead = 0; /* C = Cpart + (gamma_neg ? -1 : 1) v */
        SN(row_lcs)(o, row, m, v, first, &srng, &bits, &bits_b, &full, &A, &B, &C, &fresh_bit, &is_bit, &gamma_neg,
                    &dead);
        if (!fresh_bit)
            SN(lc_add)(&C, v, gamma_neg ? &minus_one : &one);
        /* Witness values: v from the row, then the row is checked. */
        err = SN(row_values)(w, vrng, np, row, v, fresh_bit, gamma_neg, &A, &B, &C, st);
        if (err)
            goto done;
        if (!last && !dead) {
            if (o->profile == SYNTH_POREP && fresh_bit) {
                bits_b.v[bits_b.n++] = v;
            } else if (is_bit) {
                bits.v[bits.n++] = v;
                if (o->profile != SYNTH_POREP && v % 4 == 0)
                    bits_b.v[bits_b.n++] = v;
            } else {
                full.v[full.n++] = v;
            }
        }
        for (int i = 0; i < A.n; i++)
            used[A.wire[i]] |= 1;
        for (int i = 0; i < B.n; i++)
            used[B.wire[i]] |= 2;
        stats->a_terms += (uint64_t)A.n;
        stats->b_terms += (uint64_t)B.n;
        stats->c_terms += (uint64_t)C.n;
        if (keep_cs) {
            if (SN(lc_append)(&cs->m[0], &cs->nnz[0], &cap[0], row, &A) ||
                SN(lc_append)(&cs->m[1], &cs->nnz[1], &cap[1], row, &B) ||
                SN(lc_append)(&cs->m[2], &cs->nnz[2], &cap[2], row, &C)) {
                err = g16_fail(st, G16_ERR_NOMEM, "synth: out of memory at row %u", row);
                goto done;
            }
        } else if (!mem) {
            SN(lc_write)(&wr, &A);
            SN(lc_write)(&wr, &B);
            SN(lc_write)(&wr, &C);
        }
    }
    g16_progress_end(pg);
    if (!mem) {
        binw_section_end(&wr, s2);
        long s3 = binw_section_begin(&wr, 3);
        for (uint32_t i = 0; i < n_wires; i++)
            binw_u64(&wr, i);
        binw_section_end(&wr, s3);
        err = binw_close(&wr, st);
        wr.f = NULL;
        if (err)
            goto done;
    }

    SN(shape_stats)(stats, used, w[0], n_wires, m, n_public);

    if (keep_cs) {
        cs->curve = G16_CAT(FR_UP, _CURVE_ID);
        cs->n8 = 32;
        cs->nWires = n_wires;
        cs->nPubOut = N_PUB_OUT;
        cs->nPubIn = n_public - N_PUB_OUT;
        cs->nPrvIn = N_PRV_IN;
        cs->nConstraints = m;
    }
    for (int p = 0; mem && p < np; p++) {
        wout[p].curve = G16_CAT(FR_UP, _CURVE_ID);
        wout[p].standard = 0;
        wout[p].n = n_wires;
        wout[p].raw = (limb_t(*)[4])w[p];
        w[p] = NULL;
    }
    if (!mem)
        g16_progress_stage(pg, "witnesses", (uint64_t)np);
    for (int p = 0; p < np && !err && !mem; p++) {
        char path[4096];
        synth_wtns_path(path, sizeof path, o->wtns_path, np, p);
        err = SN(write_wtns)(path, w[p], n_wires, st);
        g16_progress_at(pg, (uint64_t)p + 1);
    }
done:
    if (err && keep_cs)
        g16_r1cs_free(cs);
    binw_abort(&wr);
    if (w)
        for (int p = 0; p < np; p++)
            free(w[p]);
    free(w);
    free(vrng);
    free(used);
    free(bits.v);
    free(bits_b.v);
    free(full.v);
    return err;
}

static g16_err G16_CAT(synth_, FR)(const synth_opts *o, g16_r1cs *cs, g16_frvec *w, synth_stats *stats,
                                   int p0, g16_progress *pg, g16_status *st) {
    return SN(run)(o, cs, w, p0, stats, pg, st);
}

#undef SN
#undef FO
