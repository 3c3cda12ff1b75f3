/* Template: batched multiplication of one prime field (see field_impl.h),
 * included by field_ifma.c once per field with F, F_UP, F_N defined.
 *
 * ---- The IFMA kernel: math ------------------------------------------------
 * An element is stored as A = a·R mod p, R = 2^(64N) (N = F_N 64-bit limbs).
 * The kernel works in radix 2^52 with K = ceil(64N/52) limbs (K = 5 for
 * N = 4, K = 8 for N = 6), eight products at once: lane e of vector x[i] is
 * limb i of element e. VPMADD52LUQ / VPMADD52HUQ (z += lo52(x·y), z +=
 * hi52(x·y), x, y < 2^52, z a full 64-bit lane) give the 104-bit products.
 *
 * Radix-2^52 Montgomery multiplication (CIOS, one 52-bit word of y per
 * step) computes, for x, y < 2^(52K),
 *     t = (x·y + M·p) / R',  R' = 2^(52K),  M < R' chosen so R' | x·y + M·p,
 * so t ≡ x·y·R'^-1 (mod p) and t < x·y/R' + p. R' differs from the
 * library's R: R' = R·2^D, D = 52K - 64N (4 for N = 4, 32 for N = 6). The
 * compensation is a pre-scaling of one operand by 2^D, free in the 64->52
 * limb conversion (it is a shift of the bit positions):
 *     x = A·2^D (as an integer, not reduced), y = B
 *     t ≡ A·2^D·B·R'^-1 = A·B·2^D/(R·2^D) = A·B·R^-1  (mod p),
 * which is exactly what the scalar <f>_mul returns (a·b·R mod p).
 * Bounds: A, B < p < 2^(64N), so x < 2^D·2^(64N) = R' (x fits K limbs) and
 * x·y/R' < 2^D·p·p/R' = p·(p/2^(64N)) < p, hence t < 2p; one conditional
 * subtraction of p gives the fully reduced value, bit-identical to the
 * scalar result.
 *
 * Step i (i = 0..K-1), on accumulators T[0..K] (64-bit lanes, unnormalised
 * digits of weight 2^(52j)):
 *     T += x·y_i             (K lo52 products into T[j], K hi52 into T[j+1])
 *     m  = lo52(T[0]·n0'),   n0' = -p^-1 mod 2^52 (= N0 mod 2^52)
 *     T += m·p               (likewise; now T[0] ≡ 0 mod 2^52)
 *     T  = T / 2^52          (T[j] = T[j+1], T[0] += old T[0] >> 52)
 * VPMADD52 reads only the low 52 bits of its multiplicands: x_j, y_i, m and
 * the digits of p are all < 2^52, and T[0]'s low 52 bits are what m needs.
 * Each step adds at most four terms < 2^52 to a digit, and a digit lives
 * through at most K steps, so digits stay below 4K·2^52 + 2^12 < 2^58: no
 * lane overflows. After K steps T[0..K-1] hold t in unnormalised digits; a
 * carry pass normalises them (t < 2p < R' so the top digit fits 52 bits),
 * a borrow pass computes t - p, and a mask select keeps t - p unless it
 * borrowed.
 *
 * Data movement: eight elements are loaded as rows (masked loads of N
 * words), transposed 8x8 (field_ifma.c) into N column vectors of 64-bit
 * limbs, cut into K 52-bit digits with shifts (x shifted left by D bits on
 * the way), and the result goes the reverse way. No branches or memory
 * indices depend on the values: constant time. */

#define FN(name) G16_CAT(F, _##name)
#define FC(name) G16_CAT(F_UP, _##name)
#define F_K ((64 * F_N + 51) / 52)
#define F_D (52 * F_K - 64 * F_N)

void FN(mul_batch_scalar)(F *out, const F *a, const F *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        FN(mul)(&out[i], &a[i], &b[i]);
}

void FN(bfly_dif_batch_scalar)(F *x, F *y, const F *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        F u = x[i], v = y[i], t;
        FN(add)(&x[i], &u, &v);
        FN(sub)(&t, &u, &v);
        FN(mul)(&y[i], &t, &w[i]);
    }
}

void FN(bfly_dit_batch_scalar)(F *x, F *y, const F *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        F u = x[i], v;
        FN(mul)(&v, &y[i], &w[i]);
        FN(add)(&x[i], &u, &v);
        FN(sub)(&y[i], &u, &v);
    }
}

#if G16_FIELD_ASM_X86

#define M52 ((uint64_t)0xfffffffffffff)

/* The modulus in K digits of 52 bits, each broadcast to the 8 lanes. */
typedef struct {
    v8 p[F_K];
} FN(ifma_consts_);

G16_IFMA_INLINE void FN(ifma_consts_init_)(FN(ifma_consts_) *c) {
    for (int i = 0; i < F_K; i++) {
        uint64_t d = 0;
        for (int w = 0; w < F_N; w++) {
            int sh = 64 * w - 52 * i; /* weight of word w in digit i's units */
            if (sh >= 52 || sh <= -64)
                continue;
            d |= sh >= 0 ? FN(p_)[w] << sh : FN(p_)[w] >> -sh;
        }
        c->p[i] = _mm512_set1_epi64((long long)(d & M52));
    }
}

/* Loads 8 elements and returns digit i of v·2^shift (shift = 0 or F_D):
 * bits [52i - shift, 52i - shift + 52) of v, v < 2^(64N). */
G16_IFMA_INLINE void FN(ifma_load_)(v8 x[F_K], const F *a, int shift) {
    v8 r[8], col[8];
    for (int e = 0; e < 8; e++)
        r[e] = _mm512_maskz_loadu_epi64((__mmask8)((1u << F_N) - 1), a[e].l);
    ifma_transpose(col, r);
    const v8 mask = _mm512_set1_epi64((long long)M52);
    for (int i = 0; i < F_K; i++) {
        int s = 52 * i - shift; /* bit of v at the bottom of digit i */
        v8 d = _mm512_setzero_si512();
        for (int w = 0; w < F_N; w++) {
            int sh = 64 * w - s; /* word w's bit 0 lands at digit bit sh */
            if (sh >= 52 || sh <= -64)
                continue;
            d = _mm512_or_si512(d, ifma_shift(col[w], sh));
        }
        x[i] = _mm512_and_si512(d, mask);
    }
}

/* Stores 8 elements from K normalised digits t < 2^(64N). */
G16_IFMA_INLINE void FN(ifma_store_)(F *out, const v8 t[F_K]) {
    v8 col[8], r[8];
    for (int w = 0; w < 8; w++)
        col[w] = _mm512_setzero_si512();
    for (int w = 0; w < F_N; w++)
        for (int i = 0; i < F_K; i++) {
            int sh = 52 * i - 64 * w; /* digit i's bit 0 lands at word bit sh */
            if (sh >= 64 || sh <= -52)
                continue;
            col[w] = _mm512_or_si512(col[w], ifma_shift(t[i], sh));
        }
    ifma_transpose(r, col);
    for (int e = 0; e < 8; e++)
        _mm512_mask_storeu_epi64(out[e].l, (__mmask8)((1u << F_N) - 1), r[e]);
}

/* r[g] = x[g]·y[g]·2^(-52K) mod p, fully reduced, for x < 2^D·p, y < p
 * (see the header comment for the bounds), for G <= IFMA_G independent
 * groups of 8 lanes whose instruction streams are interleaved: the step's
 * chain t[0] -> m -> t[0] is latency-bound, and G = 3 groups at once were
 * measured faster per product than 1 or 2 (docs/field.md). G is a constant
 * at every call (the function is always inlined). */
#define IFMA_G 3
G16_IFMA_INLINE void FN(ifma_montmul_)(v8 r[][F_K], v8 x[][F_K], v8 y[][F_K], const FN(ifma_consts_) *c,
                                       const int G) {
    const v8 zero = _mm512_setzero_si512();
    const v8 mask = _mm512_set1_epi64((long long)M52);
    const v8 n0 = _mm512_set1_epi64((long long)(FC(N0) & M52));
    v8 t[IFMA_G][F_K + 1];
    for (int g = 0; g < G; g++)
        for (int j = 0; j <= F_K; j++)
            t[g][j] = zero;
    for (int i = 0; i < F_K; i++) {
        for (int j = 0; j < F_K; j++)
            for (int g = 0; g < G; g++) {
                t[g][j] = _mm512_madd52lo_epu64(t[g][j], x[g][j], y[g][i]);
                t[g][j + 1] = _mm512_madd52hi_epu64(t[g][j + 1], x[g][j], y[g][i]);
            }
        v8 m[IFMA_G];
        for (int g = 0; g < G; g++)
            m[g] = _mm512_madd52lo_epu64(zero, t[g][0], n0);
        for (int j = 0; j < F_K; j++)
            for (int g = 0; g < G; g++) {
                t[g][j] = _mm512_madd52lo_epu64(t[g][j], m[g], c->p[j]);
                t[g][j + 1] = _mm512_madd52hi_epu64(t[g][j + 1], m[g], c->p[j]);
            }
        for (int g = 0; g < G; g++) {
            v8 carry = _mm512_srli_epi64(t[g][0], 52); /* t[0] mod 2^52 == 0 */
            for (int j = 0; j < F_K; j++)
                t[g][j] = t[g][j + 1];
            t[g][0] = _mm512_add_epi64(t[g][0], carry);
            t[g][F_K] = zero;
        }
    }
    for (int g = 0; g < G; g++) {
        /* Normalise: digits < 2^52, t < 2p < 2^(52K). */
        for (int j = 0; j < F_K - 1; j++) {
            t[g][j + 1] = _mm512_add_epi64(t[g][j + 1], _mm512_srli_epi64(t[g][j], 52));
            t[g][j] = _mm512_and_si512(t[g][j], mask);
        }
        /* d = t - p; a final borrow (t < p) keeps t. */
        v8 d[F_K], borrow = zero;
        for (int j = 0; j < F_K; j++) {
            v8 s = _mm512_sub_epi64(_mm512_sub_epi64(t[g][j], c->p[j]), borrow);
            borrow = _mm512_srli_epi64(s, 63);
            d[j] = _mm512_and_si512(s, mask);
        }
        __mmask8 lt = _mm512_test_epi64_mask(borrow, borrow);
        for (int j = 0; j < F_K; j++)
            r[g][j] = _mm512_mask_blend_epi64(lt, d[j], t[g][j]);
    }
}

/* 8·G products: out[i] = a[i]·b[i]·R^-1 for i < 8·G, G <= IFMA_G. */
G16_IFMA_INLINE void FN(ifma_group_)(F *out, const F *a, const F *b, const FN(ifma_consts_) *c,
                                     const int G) {
    v8 x[IFMA_G][F_K], y[IFMA_G][F_K], r[IFMA_G][F_K];
    for (int g = 0; g < G; g++) {
        FN(ifma_load_)(x[g], a + 8 * g, F_D); /* x = A·2^D */
        FN(ifma_load_)(y[g], b + 8 * g, 0);
    }
    FN(ifma_montmul_)(r, x, y, c, G);
    for (int g = 0; g < G; g++)
        FN(ifma_store_)(out + 8 * g, r[g]);
}

/* ---- Butterflies: the sum and difference mod p in digit form --------------
 * On normalised digits (each < 2^52) of values a, b < p:
 *   a + b: digit sums < 2^53, one carry pass (a + b < 2p < 2^(52K), so the
 *          top digit keeps it), then the conditional subtraction of p as in
 *          the product;
 *   a - b: digit differences with a borrow chain (each digit is taken mod
 *          2^52, the borrow is the sign bit of the 64-bit lane); when the
 *          chain borrows out (a < b) the digits hold a - b + 2^(52K), and
 *          adding p with a carry chain, dropping the carry out, gives
 *          a - b + p.
 * Both results are fully reduced, so they equal <f>_add and <f>_sub. */
G16_IFMA_INLINE void FN(ifma_addmod_)(v8 r[F_K], const v8 a[F_K], const v8 b[F_K], const FN(ifma_consts_) *c) {
    const v8 zero = _mm512_setzero_si512();
    const v8 mask = _mm512_set1_epi64((long long)M52);
    v8 t[F_K], d[F_K], borrow = zero;
    for (int j = 0; j < F_K; j++)
        t[j] = _mm512_add_epi64(a[j], b[j]);
    for (int j = 0; j < F_K - 1; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    for (int j = 0; j < F_K; j++) {
        v8 s = _mm512_sub_epi64(_mm512_sub_epi64(t[j], c->p[j]), borrow);
        borrow = _mm512_srli_epi64(s, 63);
        d[j] = _mm512_and_si512(s, mask);
    }
    __mmask8 lt = _mm512_test_epi64_mask(borrow, borrow); /* a + b < p: keep it */
    for (int j = 0; j < F_K; j++)
        r[j] = _mm512_mask_blend_epi64(lt, d[j], t[j]);
}

G16_IFMA_INLINE void FN(ifma_submod_)(v8 r[F_K], const v8 a[F_K], const v8 b[F_K], const FN(ifma_consts_) *c) {
    const v8 zero = _mm512_setzero_si512();
    const v8 mask = _mm512_set1_epi64((long long)M52);
    v8 t[F_K], u[F_K], borrow = zero, carry = zero;
    for (int j = 0; j < F_K; j++) {
        v8 s = _mm512_sub_epi64(_mm512_sub_epi64(a[j], b[j]), borrow);
        borrow = _mm512_srli_epi64(s, 63);
        t[j] = _mm512_and_si512(s, mask);
    }
    __mmask8 lt = _mm512_test_epi64_mask(borrow, borrow); /* a < b: add p */
    for (int j = 0; j < F_K; j++) {
        v8 s = _mm512_add_epi64(_mm512_add_epi64(t[j], c->p[j]), carry);
        carry = _mm512_srli_epi64(s, 52);
        u[j] = _mm512_and_si512(s, mask);
    }
    for (int j = 0; j < F_K; j++)
        r[j] = _mm512_mask_blend_epi64(lt, t[j], u[j]);
}

/* 8·G butterflies at x, y, w (G <= IFMA_G). DIF: (x, y) <- (x + y,
 * (x - y)·w); the product takes w·2^D as its pre-scaled operand. DIT:
 * v = y·w (y pre-scaled), (x, y) <- (x + v, x - v). */
G16_IFMA_INLINE void FN(ifma_bfly_group_)(F *x, F *y, const F *w, const FN(ifma_consts_) *c, const int G,
                                          const int dit) {
    v8 a[IFMA_G][F_K], b[IFMA_G][F_K], m[IFMA_G][F_K], r[IFMA_G][F_K];
    if (!dit) {
        for (int g = 0; g < G; g++) {
            FN(ifma_load_)(a[g], x + 8 * g, 0);
            FN(ifma_load_)(b[g], y + 8 * g, 0);
            FN(ifma_load_)(m[g], w + 8 * g, F_D);
            v8 s[F_K];
            FN(ifma_addmod_)(s, a[g], b[g], c);
            FN(ifma_store_)(x + 8 * g, s);
            FN(ifma_submod_)(b[g], a[g], b[g], c);
        }
        FN(ifma_montmul_)(r, m, b, c, G);
        for (int g = 0; g < G; g++)
            FN(ifma_store_)(y + 8 * g, r[g]);
        return;
    }
    for (int g = 0; g < G; g++) {
        FN(ifma_load_)(b[g], y + 8 * g, F_D);
        FN(ifma_load_)(m[g], w + 8 * g, 0);
    }
    FN(ifma_montmul_)(r, b, m, c, G);
    for (int g = 0; g < G; g++) {
        v8 s[F_K];
        FN(ifma_load_)(a[g], x + 8 * g, 0);
        FN(ifma_addmod_)(s, a[g], r[g], c);
        FN(ifma_store_)(x + 8 * g, s);
        FN(ifma_submod_)(s, a[g], r[g], c);
        FN(ifma_store_)(y + 8 * g, s);
    }
}

/* Groups of 24, then 16, then 8, then the last n mod 8 padded with zeros. */
G16_IFMA_INLINE void FN(ifma_bfly_)(F *x, F *y, const F *w, size_t n, const int dit) {
    FN(ifma_consts_) c;
    FN(ifma_consts_init_)(&c);
    size_t i = 0;
    for (; i + 8 * IFMA_G <= n; i += 8 * IFMA_G)
        FN(ifma_bfly_group_)(x + i, y + i, w + i, &c, IFMA_G, dit);
    if (i + 16 <= n) {
        FN(ifma_bfly_group_)(x + i, y + i, w + i, &c, 2, dit);
        i += 16;
    }
    if (i + 8 <= n) {
        FN(ifma_bfly_group_)(x + i, y + i, w + i, &c, 1, dit);
        i += 8;
    }
    if (i < n) {
        F tx[8] = {{{0}}}, ty[8] = {{{0}}}, tw[8] = {{{0}}};
        for (size_t k = 0; k < n - i; k++) {
            tx[k] = x[i + k];
            ty[k] = y[i + k];
            tw[k] = w[i + k];
        }
        FN(ifma_bfly_group_)(tx, ty, tw, &c, 1, dit);
        for (size_t k = 0; k < n - i; k++) {
            x[i + k] = tx[k];
            y[i + k] = ty[k];
        }
    }
}

G16_IFMA_TARGET void FN(bfly_dif_batch_ifma)(F *x, F *y, const F *w, size_t n) { FN(ifma_bfly_)(x, y, w, n, 0); }
G16_IFMA_TARGET void FN(bfly_dit_batch_ifma)(F *x, F *y, const F *w, size_t n) { FN(ifma_bfly_)(x, y, w, n, 1); }

G16_IFMA_TARGET void FN(mul_batch_ifma)(F *out, const F *a, const F *b, size_t n) {
    FN(ifma_consts_) c;
    FN(ifma_consts_init_)(&c);
    size_t i = 0;
    for (; i + 8 * IFMA_G <= n; i += 8 * IFMA_G)
        FN(ifma_group_)(out + i, a + i, b + i, &c, IFMA_G);
    for (; i + 8 <= n; i += 8)
        FN(ifma_group_)(out + i, a + i, b + i, &c, 1);
    if (i < n) { /* the last n mod 8, padded with zeros */
        F ta[8] = {{{0}}}, tb[8] = {{{0}}}, to[8];
        for (size_t k = 0; k < n - i; k++) {
            ta[k] = a[i + k];
            tb[k] = b[i + k];
        }
        FN(ifma_group_)(to, ta, tb, &c, 1);
        for (size_t k = 0; k < n - i; k++)
            out[i + k] = to[k];
    }
}
#undef M52
#undef IFMA_G
#endif

void FN(mul_batch)(F *out, const F *a, const F *b, size_t n) {
#if G16_VERIFY_ON
    for (size_t i = 0; i < n; i++)
        G16_VERIFY_CHECK(limbs_lt_vartime(a[i].l, FN(p_), F_N) && limbs_lt_vartime(b[i].l, FN(p_), F_N));
#endif
#if G16_FIELD_ASM_X86
    if (g16_field_ifma) {
        FN(mul_batch_ifma)(out, a, b, n);
        return;
    }
#endif
    FN(mul_batch_scalar)(out, a, b, n);
}

void FN(mul_x8)(F out[8], const F a[8], const F b[8]) { FN(mul_batch)(out, a, b, 8); }

void FN(bfly_dif_batch)(F *x, F *y, const F *w, size_t n) {
#if G16_VERIFY_ON
    for (size_t i = 0; i < n; i++)
        G16_VERIFY_CHECK(limbs_lt_vartime(x[i].l, FN(p_), F_N) && limbs_lt_vartime(y[i].l, FN(p_), F_N) &&
                         limbs_lt_vartime(w[i].l, FN(p_), F_N));
#endif
#if G16_FIELD_ASM_X86
    if (g16_field_ifma) {
        FN(bfly_dif_batch_ifma)(x, y, w, n);
        return;
    }
#endif
    FN(bfly_dif_batch_scalar)(x, y, w, n);
}

void FN(bfly_dit_batch)(F *x, F *y, const F *w, size_t n) {
#if G16_VERIFY_ON
    for (size_t i = 0; i < n; i++)
        G16_VERIFY_CHECK(limbs_lt_vartime(x[i].l, FN(p_), F_N) && limbs_lt_vartime(y[i].l, FN(p_), F_N) &&
                         limbs_lt_vartime(w[i].l, FN(p_), F_N));
#endif
#if G16_FIELD_ASM_X86
    if (g16_field_ifma) {
        FN(bfly_dit_batch_ifma)(x, y, w, n);
        return;
    }
#endif
    FN(bfly_dit_batch_scalar)(x, y, w, n);
}

#undef F_K
#undef F_D
#undef FN
#undef FC
