/* Template: non-inline operations of one prime field (see field_impl.h).
 * Included by fields.c once per field with F, F_UP, F_N defined. */

#define FN(name) G16_CAT(F, _##name)
#define FC(name) G16_CAT(F_UP, _##name)

#if G16_FIELD_ASM_X86
void FN(mul_portable_call)(F *r, const F *a, const F *b) { FN(mul_portable)(r, a, b); }
void FN(sqr_portable_call)(F *r, const F *a) { FN(sqr_portable)(r, a); }
void FN(mul_dispatch)(F *r, const F *a, const F *b) {
    if (G16_FIELD_USE_ADX())
        G16_CAT(mont_mul_adx_, F_N)(r->l, a->l, b->l, FN(pm_).p);
    else
        FN(mul_portable)(r, a, b);
}
void FN(sqr_dispatch)(F *r, const F *a) {
    if (G16_FIELD_USE_ADX())
        G16_CAT(mont_mul_adx_, F_N)(r->l, a->l, a->l, FN(pm_).p);
    else
        FN(sqr_portable)(r, a);
}
#endif

/* Fixed 4-bit window; the table lookup touches every entry, so time depends
 * on the exponent length alone, never on the base or the exponent bits. */
void FN(pow)(F *r, const F *a, const limb_t *e, size_t en) {
    F table[16], acc, sel;
    FN(set_one)(&table[0]);
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        FN(mul)(&table[i], &table[i - 1], a);
    FN(set_one)(&acc);
    for (size_t w = en * 16; w-- > 0;) {
        for (int k = 0; k < 4; k++)
            FN(sqr)(&acc, &acc);
        unsigned nib = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        FN(set_zero)(&sel);
        for (unsigned i = 0; i < 16; i++)
            FN(cmov)(&sel, &table[i], i == nib);
        FN(mul)(&acc, &acc, &sel);
    }
    *r = acc;
}

/* inv and inv_vartime: Bernstein-Yang safegcd. */
#include "inv_impl.c.h"

void FN(batch_inv)(F *out, const F *in, size_t n, F *scratch) {
    if (n == 0)
        return;
    F acc, one, t;
    FN(set_one)(&one);
    FN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) { /* scratch[i] = prod of in[0..i) (zeros as 1) */
        scratch[i] = acc;
        F x = in[i];
        FN(cmov)(&x, &one, FN(is_zero)(&in[i]));
        FN(mul)(&acc, &acc, &x);
    }
    FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        int z = FN(is_zero)(&in[i]);
        F x = in[i];
        FN(cmov)(&x, &one, z);
        FN(mul)(&t, &acc, &scratch[i]); /* t = 1/in[i] */
        FN(mul)(&acc, &acc, &x);
        F zero;
        FN(set_zero)(&zero);
        FN(cmov)(&t, &zero, z);
        out[i] = t;
    }
}

int FN(legendre)(const F *a) {
    static const limb_t e[F_N] = FC(P_MINUS_1_HALF);
    F t;
    FN(pow)(&t, a, e, F_N);
    if (FN(is_zero)(&t))
        return 0;
    return FN(is_one)(&t) ? 1 : -1;
}

int FN(sqrt)(F *r, const F *a) {
    F x, chk;
#ifdef G16_FIELD_P_IS_3_MOD_4
    static const limb_t e[F_N] = FC(P_PLUS_1_QUARTER);
    FN(pow)(&x, a, e, F_N); /* a^((p+1)/4) */
#else
    /* Constant-time Tonelli-Shanks (RFC 9380, appendix I.4). */
    static const limb_t c3[F_N] = FC(TS_T_MINUS_1_HALF);
    static const limb_t c5[F_N] = FC(TS_Z);
    F z, t, b, c, tv;
    FN(pow)(&z, a, c3, F_N);  /* a^((t-1)/2) */
    FN(sqr)(&t, &z);
    FN(mul)(&t, &t, a);       /* a^t */
    FN(mul)(&z, &z, a);       /* a^((t+1)/2) */
    b = t;
    for (int i = 0; i < F_N; i++)
        c.l[i] = c5[i];
    for (int k = FC(TS_S); k >= 2; k--) {
        for (int j = 1; j <= k - 2; j++)
            FN(sqr)(&b, &b);
        int e = FN(is_one)(&b);
        FN(mul)(&tv, &z, &c);
        FN(cmov)(&z, &tv, !e);
        FN(sqr)(&c, &c);
        FN(mul)(&tv, &t, &c);
        FN(cmov)(&t, &tv, !e);
        b = t;
    }
    x = z;
#endif
    FN(sqr)(&chk, &x);
    int ok = FN(eq)(&chk, a);
    *r = x;
    return ok;
}

int FN(from_bytes_le)(F *r, const uint8_t *b, size_t len) {
    limb_t x[F_N] = {0};
    if (len > (size_t)F_N * 8)
        return 0;
    for (size_t i = 0; i < len; i++)
        x[i / 8] |= (limb_t)b[i] << (8 * (i % 8));
    return FN(from_canon_vartime)(r, x);
}

int FN(from_bytes_le_secret)(F *r, const uint8_t *b, size_t len) {
    limb_t x[F_N] = {0}, t[F_N];
    if (len > (size_t)F_N * 8) /* public: the length */
        return 0;
    for (size_t i = 0; i < len; i++)
        x[i / 8] |= (limb_t)b[i] << (8 * (i % 8));
    limb_t ok = limbs_sub(t, x, FN(p_), F_N); /* borrow: x < p */
    limb_t zero[F_N] = {0};
    limbs_select(x, (limb_t)0 - ok, x, zero, F_N);
    FN(to_mont)(r, x);
    g16_wipe(x, sizeof x);
    g16_wipe(t, sizeof t);
    return (int)ok;
}

int FN(from_bytes_be)(F *r, const uint8_t *b, size_t len) {
    limb_t x[F_N] = {0};
    if (len > (size_t)F_N * 8)
        return 0;
    for (size_t i = 0; i < len; i++)
        x[i / 8] |= (limb_t)b[len - 1 - i] << (8 * (i % 8));
    return FN(from_canon_vartime)(r, x);
}

void FN(to_bytes_le)(uint8_t *b, size_t len, const F *a) {
    limb_t x[F_N];
    FN(from_mont)(x, a);
    for (size_t i = 0; i < len; i++)
        b[i] = i < (size_t)F_N * 8 ? (uint8_t)(x[i / 8] >> (8 * (i % 8))) : 0;
}

void FN(to_bytes_be)(uint8_t *b, size_t len, const F *a) {
    limb_t x[F_N];
    FN(from_mont)(x, a);
    for (size_t i = 0; i < len; i++)
        b[len - 1 - i] = i < (size_t)F_N * 8 ? (uint8_t)(x[i / 8] >> (8 * (i % 8))) : 0;
}

/* Rejection sampling of a raw limb vector below p; a uniform value below p
 * is a uniform Montgomery representative as well. */
void FN(random)(F *r, g16_rng *rng) {
    const int top_bits = FC(BITS) - 64 * (F_N - 1);
    const limb_t mask = top_bits == 64 ? ~(limb_t)0 : (((limb_t)1 << top_bits) - 1);
    for (;;) {
        for (int i = 0; i < F_N; i++)
            r->l[i] = g16_rng_next(rng);
        r->l[F_N - 1] &= mask;
        if (limbs_lt_vartime(r->l, FN(p_), F_N))
            return;
    }
}

g16_err FN(random_os)(F *r) {
    const int top_bits = FC(BITS) - 64 * (F_N - 1);
    const limb_t mask = top_bits == 64 ? ~(limb_t)0 : (((limb_t)1 << top_bits) - 1);
    for (;;) {
        g16_err err = g16_os_random(r->l, sizeof r->l);
        if (err != G16_OK)
            return err;
        r->l[F_N - 1] &= mask;
        if (limbs_lt_vartime(r->l, FN(p_), F_N))
            return G16_OK;
    }
}

#undef FN
#undef FC
