/* Template: inline operations of one prime field in Montgomery form.
 * Included by field.h once per field with these macros defined:
 *   F        the type and function prefix (e.g. bn254_fp)
 *   F_UP     the upper-case constant prefix (e.g. BN254_FP)
 *   F_N      limbs
 * All operations are constant time unless named _vartime. */

#define FN(name) G16_CAT(F, _##name)
#define FC(name) G16_CAT(F_UP, _##name)

typedef struct F {
    limb_t l[F_N];
} F;

static const limb_t FN(p_)[F_N] = FC(P);
/* {p, n0, 0}: the constant block read by the asm kernels (limbs_x86.h). */
static const struct {
    limb_t p[F_N], n0, zero;
} FN(pm_) = {FC(P), FC(N0), 0};

static inline void FN(set_zero)(F *r) {
    for (int i = 0; i < F_N; i++)
        r->l[i] = 0;
}
static inline void FN(set_one)(F *r) {
    static const limb_t one[F_N] = FC(R);
    for (int i = 0; i < F_N; i++)
        r->l[i] = one[i];
}
/* Invariant (G16_VERIFY builds): every element is fully reduced, a < p.
 * Checked on entry and exit of add, sub, neg, mul and sqr, so that both the
 * portable and the asm paths are watched. Variable time: test builds only. */
#define FN_REDUCED(a) limbs_lt_vartime((a)->l, FN(p_), F_N)
/* Addition and subtraction: on x86-64 the asm of limbs_x86.h (baseline
 * instructions only, so no run-time dispatch), else the portable code. */
static inline void FN(add)(F *r, const F *a, const F *b) {
    G16_VERIFY_CHECK(FN_REDUCED(a) && FN_REDUCED(b));
#if G16_FIELD_ASM_X86
    G16_CAT(mod_add_x86_, F_N)(r->l, a->l, b->l, FN(pm_).p);
#else
    mod_add(r->l, a->l, b->l, FN(p_), F_N);
#endif
    G16_VERIFY_CHECK(FN_REDUCED(r));
}
static inline void FN(sub)(F *r, const F *a, const F *b) {
    G16_VERIFY_CHECK(FN_REDUCED(a) && FN_REDUCED(b));
#if G16_FIELD_ASM_X86
    G16_CAT(mod_sub_x86_, F_N)(r->l, a->l, b->l, FN(pm_).p);
#else
    mod_sub(r->l, a->l, b->l, FN(p_), F_N);
#endif
    G16_VERIFY_CHECK(FN_REDUCED(r));
}
static inline void FN(dbl)(F *r, const F *a) { FN(add)(r, a, a); }
static inline void FN(neg)(F *r, const F *a) {
    G16_VERIFY_CHECK(FN_REDUCED(a));
#if G16_FIELD_ASM_X86
    G16_CAT(mod_neg_x86_, F_N)(r->l, a->l, FN(pm_).p);
#else
    mod_neg(r->l, a->l, FN(p_), F_N);
#endif
    G16_VERIFY_CHECK(FN_REDUCED(r));
}
/* Portable multiplication and squaring (limbs.h), always available. */
static inline void FN(mul_portable)(F *r, const F *a, const F *b) {
    mont_mul(r->l, a->l, b->l, FN(p_), FC(N0), F_N);
}
static inline void FN(sqr_portable)(F *r, const F *a) { mont_mul(r->l, a->l, a->l, FN(p_), FC(N0), F_N); }
#if G16_FIELD_ASM_X86
/* Out-of-line (fields.c): the portable code, and for more than 4 limbs the
 * whole dispatch. Measured (docs/field.md): a call costs ~0.3 ns (4 limbs)
 * and < 0.5 ns (6 limbs) per multiplication, while an inlined 6-limb kernel
 * is ~1.5 KB of code at every call site; 4-limb kernels (~0.7 KB) are
 * inlined. */
void FN(mul_portable_call)(F *r, const F *a, const F *b);
void FN(sqr_portable_call)(F *r, const F *a);
void FN(mul_dispatch)(F *r, const F *a, const F *b);
void FN(sqr_dispatch)(F *r, const F *a);
#endif
/* Dispatched multiplication and squaring: the asm kernel when
 * g16_field_adx is set (one predictable branch on a load-time constant),
 * else the portable code. */
static inline void FN(mul)(F *r, const F *a, const F *b) {
    G16_VERIFY_CHECK(FN_REDUCED(a) && FN_REDUCED(b));
#if G16_FIELD_ASM_X86 && F_N == 4
    if (G16_FIELD_USE_ADX())
        mont_mul_adx_4(r->l, a->l, b->l, FN(pm_).p);
    else
        FN(mul_portable_call)(r, a, b);
#elif G16_FIELD_ASM_X86
    FN(mul_dispatch)(r, a, b);
#else
    FN(mul_portable)(r, a, b);
#endif
    G16_VERIFY_CHECK(FN_REDUCED(r));
}
static inline void FN(sqr)(F *r, const F *a) {
    G16_VERIFY_CHECK(FN_REDUCED(a));
#if G16_FIELD_ASM_X86 && F_N == 4
    if (G16_FIELD_USE_ADX())
        mont_sqr_adx_4(r->l, a->l, FN(pm_).p);
    else
        FN(sqr_portable_call)(r, a);
#elif G16_FIELD_ASM_X86
    FN(sqr_dispatch)(r, a);
#else
    FN(sqr_portable)(r, a);
#endif
    G16_VERIFY_CHECK(FN_REDUCED(r));
}
static inline int FN(eq)(const F *a, const F *b) { return limbs_eq(a->l, b->l, F_N); }
static inline int FN(is_zero)(const F *a) { return limbs_is_zero(a->l, F_N); }
static inline int FN(is_one)(const F *a) {
    static const limb_t one[F_N] = FC(R);
    return limbs_eq(a->l, one, F_N);
}
/* r = flag ? a : r, flag in {0,1}. */
static inline void FN(cmov)(F *r, const F *a, int flag) {
    limbs_select(r->l, (limb_t)0 - (limb_t)(flag & 1), a->l, r->l, F_N);
}

/* Montgomery form <-> canonical integer (little-endian limbs). */
/* Requires x < p. */
static inline void FN(to_mont)(F *r, const limb_t *x) {
    static const F r2 = {FC(R2)};
    F t;
    for (int i = 0; i < F_N; i++)
        t.l[i] = x[i];
    FN(mul)(r, &t, &r2);
}
static inline void FN(from_mont)(limb_t *x, const F *a) {
    static const F one = {{1}};
    F t;
    FN(mul)(&t, a, &one);
    for (int i = 0; i < F_N; i++)
        x[i] = t.l[i];
}
/* Returns 1 and sets r if x < p; returns 0 (r untouched) otherwise. */
static inline int FN(from_canon_vartime)(F *r, const limb_t *x) {
    if (!limbs_lt_vartime(x, FN(p_), F_N))
        return 0;
    FN(to_mont)(r, x);
    return 1;
}
static inline void FN(from_u64)(F *r, uint64_t v) {
    limb_t x[F_N] = {v};
    FN(to_mont)(r, x);
}

/* Batched multiplication (field_ifma.c): out[i] = a[i] * b[i] * R^-1 mod p
 * for i < n, bit-identical to <f>_mul (same Montgomery form, R = 2^(64*F_N),
 * fully reduced). Contract: inputs reduced; out may be the same array as a
 * or b (out == a), but must not overlap them otherwise. Constant time in the
 * values (time depends on n only).
 *   mul_batch         dispatched: the AVX-512 IFMA kernel (8 products per
 *                     vector, radix 2^52) when g16_field_ifma is set, else
 *                     mul_batch_scalar;
 *   mul_x8            mul_batch with n = 8;
 *   mul_batch_scalar  a loop of <f>_mul (itself MULX or portable), always
 *                     available;
 *   mul_batch_ifma    the IFMA kernel itself; requires
 *                     g16_field_ifma_supported() (x86-64 builds only). */
void FN(mul_batch)(F *out, const F *a, const F *b, size_t n);
void FN(mul_x8)(F out[8], const F a[8], const F b[8]);
void FN(mul_batch_scalar)(F *out, const F *a, const F *b, size_t n);
#if G16_FIELD_ASM_X86
void FN(mul_batch_ifma)(F *out, const F *a, const F *b, size_t n);
#endif
/* Batched radix-2 butterflies (the NTT's stages), the same three paths
 * (dispatched, _scalar, _ifma), bit-identical to <f>_add, <f>_sub, <f>_mul:
 *   bfly_dif_batch  (x[i], y[i]) <- (x[i] + y[i], (x[i] - y[i]) * w[i])
 *   bfly_dit_batch  v = y[i] * w[i]; (x[i], y[i]) <- (x[i] + v, x[i] - v)
 * for i < n. Contract: inputs reduced; x, y and w do not overlap. Constant
 * time in the values. */
void FN(bfly_dif_batch)(F *x, F *y, const F *w, size_t n);
void FN(bfly_dit_batch)(F *x, F *y, const F *w, size_t n);
void FN(bfly_dif_batch_scalar)(F *x, F *y, const F *w, size_t n);
void FN(bfly_dit_batch_scalar)(F *x, F *y, const F *w, size_t n);
#if G16_FIELD_ASM_X86
void FN(bfly_dif_batch_ifma)(F *x, F *y, const F *w, size_t n);
void FN(bfly_dit_batch_ifma)(F *x, F *y, const F *w, size_t n);
#endif

/* Non-inline operations, in fields.c. */
/* r = a^e, e little-endian limbs of length en. Time depends on en only. */
void FN(pow)(F *r, const F *a, const limb_t *e, size_t en);
/* a^-1, inv(0) = 0. Bernstein-Yang safegcd (inv_impl.c.h); constant time. */
void FN(inv)(F *r, const F *a);
/* The same, variable time (skips zero runs, stops early): public data only. */
void FN(inv_vartime)(F *r, const F *a);
/* out[i] = in[i]^-1 (0 -> 0), Montgomery's trick: 3(n-1) mul + 1 inv.
 * out may alias in; scratch holds n elements. Constant time. */
void FN(batch_inv)(F *out, const F *in, size_t n, F *scratch);
int FN(legendre)(const F *a); /* 1 square, -1 non-square, 0 zero */
/* Returns 1 and r = a square root of a if a is a square, else 0. Constant
 * time in a (Tonelli-Shanks with a fixed loop count, or (p+1)/4). */
int FN(sqrt)(F *r, const F *a);
/* Little-/big-endian canonical bytes (length F_N*8 ... trimmed to n8).
 * from_* return 0 for values >= p. */
int FN(from_bytes_le)(F *r, const uint8_t *b, size_t len);
/* The same for secrets (r, s): constant time in the bytes' value (the range
 * check is a borrow, not a compare loop), r = 0 when they are not below p.
 * The caller declassifies the returned flag before branching on it. */
int FN(from_bytes_le_secret)(F *r, const uint8_t *b, size_t len);
int FN(from_bytes_be)(F *r, const uint8_t *b, size_t len);
void FN(to_bytes_le)(uint8_t *b, size_t len, const F *a);
void FN(to_bytes_be)(uint8_t *b, size_t len, const F *a);
/* Uniform element: deterministic RNG, or the OS CSPRNG (returns G16_OK or
 * G16_ERR_IO). */
void FN(random)(F *r, g16_rng *rng);
g16_err FN(random_os)(F *r);

#undef FN_REDUCED
#undef FN
#undef FC
