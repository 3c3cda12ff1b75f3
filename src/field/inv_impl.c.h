/* Template: modular inversion by Bernstein-Yang safegcd ("Fast constant-time
 * gcd computation and modular inversion", TCHES 2019), included by
 * field_impl.c.h with F, F_UP, F_N, FN, FC defined.
 *
 * divstep(delta, f, g) = (1 - delta, g, (g - f)/2)  if delta > 0 and g odd,
 *                        (1 + delta, f, (g + f)/2)  if g odd,
 *                        (1 + delta, f, g/2)        otherwise.
 * Starting from (1, p, x) with p odd, x < p < 2^d, g reaches 0 after at
 * most floor((49d + 57)/17) divsteps (d >= 46; the paper's theorem 11.2),
 * and then f = +-gcd(p, x) = +-1 (or f = p for x = 0).
 *
 * Divsteps run in batches of 62 on the low 64 bits of f and g only; a batch
 * yields the matrix T = [u v; q r] (|u|+|v|, |q|+|r| <= 2^62) with
 * 2^62 (f', g') = T (f, g), which is then applied to the full-length f, g
 * and to d, e with f = d x, g = e x (mod p), starting from d = 0, e = 1.
 * The division by 2^62 of d, e is exact modulo p: add m p with
 * m = -(u d + v e) p^-1 mod 2^62. Finally x^-1 = d * f = +-d (mod p).
 *
 * Numbers are in signed 62-bit limbs (SG_L of them): limbs 0..SG_L-2 in
 * [0, 2^62), the top limb signed. Invariants: |f|, |g| <= p and
 * d, e in (-2p, p): before the update a negative d (e) is replaced by
 * d + p, so |u d + v e| < 2^62 p, and m is taken in (-2^62, 0], so the new
 * d = (u d + v e + m p) / 2^62 lies in (-2p, p) again.
 *
 * The constant-time version runs the full bound of divsteps with no
 * data-dependent branches; the _vartime one skips runs of zero bits and
 * stops as soon as g = 0 (for public inputs only).
 *
 * Right shifts of negative int64_t/__int128 are arithmetic in GCC and Clang
 * (implementation-defined in C11, not undefined). */

#define SG_L ((FC(BITS) + 63) / 62)                        /* limbs for (-2^(BITS+1), 2^(BITS+1)) */
#define SG_BATCHES (((49 * FC(BITS) + 57) / 17 + 61) / 62) /* ceil(bound / 62) */
#define SG_M62 (((uint64_t)1 << 62) - 1)

typedef __int128 FN(sg_i128_);

/* r = x in signed-62 limbs, x < 2^(64 F_N). */
static void FN(sg_from)(int64_t *r, const limb_t *x) {
    for (int i = 0; i < SG_L; i++) {
        int bit = 62 * i, w = bit / 64, off = bit % 64;
        uint64_t v = w < F_N ? x[w] >> off : 0;
        if (off > 2 && w + 1 < F_N)
            v |= x[w + 1] << (64 - off);
        r[i] = (int64_t)(v & SG_M62);
    }
}

/* x = r, r normalised with 0 <= r < 2^(64 F_N). */
static void FN(sg_to)(limb_t *x, const int64_t *r) {
    unsigned __int128 acc = 0;
    int bits = 0, j = 0;
    for (int i = 0; i < SG_L; i++) {
        acc |= (unsigned __int128)(uint64_t)r[i] << bits;
        bits += 62;
        if (bits >= 64) {
            if (j < F_N)
                x[j++] = (limb_t)acc;
            acc >>= 64;
            bits -= 64;
        }
    }
    while (j < F_N) {
        x[j++] = (limb_t)acc;
        acc >>= 64;
    }
}

/* Brings limbs 0..SG_L-2 into [0, 2^62), carrying into the signed top limb. */
static inline void FN(sg_carry)(int64_t *d) {
    int64_t c = 0;
    for (int i = 0; i < SG_L - 1; i++) {
        c += d[i];
        d[i] = c & (int64_t)SG_M62;
        c >>= 62;
    }
    d[SG_L - 1] += c;
}

/* 62 divsteps on the low bits of f and g, constant time. Returns the new
 * delta; t = {u, v, q, r}. Per step, branch-free: if delta > 0 and g is odd,
 * (delta, f, g, u, v, q, r) <- (-delta, g, -f, q, r, -u, -v); then
 * delta += 1, and if g is odd (g, q, r) += (f, u, v); then g /= 2 and
 * (u, v) *= 2, which keeps 2^k (f_k, g_k) = T_k (f_0, g_0). */
static int64_t FN(sg_divsteps)(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]) {
    uint64_t u = 1, v = 0, q = 0, r = 1, x;
    for (int i = 0; i < 62; i++) {
        uint64_t c1 = (uint64_t)0 - (uint64_t)((delta > 0) & (int)(g & 1));
        x = (f ^ g) & c1, f ^= x, g ^= x, g = (g ^ c1) - c1;
        x = (u ^ q) & c1, u ^= x, q ^= x, q = (q ^ c1) - c1;
        x = (v ^ r) & c1, v ^= x, r ^= x, r = (r ^ c1) - c1;
        delta = (delta ^ (int64_t)c1) - (int64_t)c1 + 1;
        uint64_t c2 = (uint64_t)0 - (g & 1);
        g += f & c2, q += u & c2, r += v & c2;
        g >>= 1, u <<= 1, v <<= 1;
    }
    t[0] = (int64_t)u, t[1] = (int64_t)v, t[2] = (int64_t)q, t[3] = (int64_t)r;
    return delta;
}

/* The same 62 divsteps, variable time: runs of even g are skipped with one
 * count-trailing-zeros. */
static int64_t FN(sg_divsteps_vartime)(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]) {
    uint64_t u = 1, v = 0, q = 0, r = 1, x;
    int left = 62;
    for (;;) {
        int z = __builtin_ctzll(g | ((uint64_t)1 << left)); /* <= left */
        g >>= z, u <<= z, v <<= z;
        delta += z;
        left -= z;
        if (left == 0)
            break;
        /* g is odd */
        if (delta > 0) {
            delta = -delta;
            x = f, f = g, g = 0 - x;
            x = u, u = q, q = 0 - x;
            x = v, v = r, r = 0 - x;
        }
        delta += 1;
        g += f, q += u, r += v;
        g >>= 1, u <<= 1, v <<= 1;
        left -= 1;
    }
    t[0] = (int64_t)u, t[1] = (int64_t)v, t[2] = (int64_t)q, t[3] = (int64_t)r;
    return delta;
}

/* (f, g) = T (f, g) / 2^62 (exact). */
static void FN(sg_update_fg)(int64_t *f, int64_t *g, const int64_t t[4]) {
    const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
    FN(sg_i128_) cf = (FN(sg_i128_))u * f[0] + (FN(sg_i128_))v * g[0];
    FN(sg_i128_) cg = (FN(sg_i128_))q * f[0] + (FN(sg_i128_))r * g[0];
    cf >>= 62, cg >>= 62; /* the low 62 bits are zero */
    for (int i = 1; i < SG_L; i++) {
        cf += (FN(sg_i128_))u * f[i] + (FN(sg_i128_))v * g[i];
        cg += (FN(sg_i128_))q * f[i] + (FN(sg_i128_))r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & SG_M62);
        g[i - 1] = (int64_t)((uint64_t)cg & SG_M62);
        cf >>= 62, cg >>= 62;
    }
    f[SG_L - 1] = (int64_t)cf;
    g[SG_L - 1] = (int64_t)cg;
}

/* (d, e) = T (d, e) / 2^62 mod p, keeping d, e in (-2p, p); pinv = p^-1 mod 2^62. */
static void FN(sg_update_de)(int64_t *d, int64_t *e, const int64_t t[4], const int64_t *p, uint64_t pinv) {
    const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
    const int64_t sd = d[SG_L - 1] >> 63, se = e[SG_L - 1] >> 63; /* all-ones if negative */
    /* Multiples of p to add: first + p for each negative input ... */
    int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    FN(sg_i128_) cd = (FN(sg_i128_))u * d[0] + (FN(sg_i128_))v * e[0];
    FN(sg_i128_) ce = (FN(sg_i128_))q * d[0] + (FN(sg_i128_))r * e[0];
    /* ... then minus k in [0, 2^62) making the low 62 bits vanish. */
    md -= (int64_t)((pinv * (uint64_t)cd + (uint64_t)md) & SG_M62);
    me -= (int64_t)((pinv * (uint64_t)ce + (uint64_t)me) & SG_M62);
    cd += (FN(sg_i128_))p[0] * md;
    ce += (FN(sg_i128_))p[0] * me;
    cd >>= 62, ce >>= 62;
    for (int i = 1; i < SG_L; i++) {
        cd += (FN(sg_i128_))u * d[i] + (FN(sg_i128_))v * e[i] + (FN(sg_i128_))p[i] * md;
        ce += (FN(sg_i128_))q * d[i] + (FN(sg_i128_))r * e[i] + (FN(sg_i128_))p[i] * me;
        d[i - 1] = (int64_t)((uint64_t)cd & SG_M62);
        e[i - 1] = (int64_t)((uint64_t)ce & SG_M62);
        cd >>= 62, ce >>= 62;
    }
    d[SG_L - 1] = (int64_t)cd;
    e[SG_L - 1] = (int64_t)ce;
}

/* Given d in (-2p, p) and f = +-1 (or f = p, d = 0 for input 0), sets x to
 * d * sign(f) mod p in [0, p), constant time. */
static void FN(sg_finish)(limb_t *x, int64_t *d, const int64_t *f, const int64_t *p) {
    int64_t neg = f[SG_L - 1] >> 63;
    for (int i = 0; i < SG_L; i++)
        d[i] = (d[i] ^ neg) - neg; /* now in (-2p, 2p) */
    FN(sg_carry)(d);
    for (int k = 0; k < 2; k++) { /* + p while negative: [0, 2p) */
        int64_t m = d[SG_L - 1] >> 63;
        for (int i = 0; i < SG_L; i++)
            d[i] += p[i] & m;
        FN(sg_carry)(d);
    }
    for (int i = 0; i < SG_L; i++) /* - p, + p back if that went negative */
        d[i] -= p[i];
    FN(sg_carry)(d);
    int64_t m = d[SG_L - 1] >> 63;
    for (int i = 0; i < SG_L; i++)
        d[i] += p[i] & m;
    FN(sg_carry)(d);
    FN(sg_to)(x, d);
}

/* x^-1 mod p of the plain integer x < p (0 -> 0). */
static void FN(sg_inv)(limb_t *out, const limb_t *x, int vartime) {
    int64_t f[SG_L], g[SG_L], d[SG_L] = {0}, e[SG_L] = {0}, p[SG_L], t[4];
    const uint64_t pinv = ((uint64_t)0 - FC(N0)) & SG_M62; /* n0 = -p^-1 mod 2^64 */
    FN(sg_from)(p, FN(p_));
    FN(sg_from)(g, x);
    for (int i = 0; i < SG_L; i++)
        f[i] = p[i];
    e[0] = 1;
    int64_t delta = 1;
    for (int b = 0; b < SG_BATCHES; b++) {
        if (vartime) {
            delta = FN(sg_divsteps_vartime)(delta, (uint64_t)f[0], (uint64_t)g[0], t);
        } else {
            delta = FN(sg_divsteps)(delta, (uint64_t)f[0], (uint64_t)g[0], t);
        }
        FN(sg_update_de)(d, e, t, p, pinv);
        FN(sg_update_fg)(f, g, t);
        if (vartime) {
            int64_t nz = 0;
            for (int i = 0; i < SG_L; i++)
                nz |= g[i];
            if (nz == 0)
                break;
        }
    }
    FN(sg_finish)(out, d, f, p);
}

/* Montgomery form: a = x R, so (x R)^-1 * R^3 * R^-1 = x^-1 R. */
static void FN(inv_mont)(F *r, const F *a, int vartime) {
    static const F r2 = {FC(R2)};
    F y, r3;
    FN(sg_inv)(y.l, a->l, vartime);
    FN(mul)(&r3, &r2, &r2); /* R^3 mod p */
    FN(mul)(r, &y, &r3);
}

void FN(inv)(F *r, const F *a) { FN(inv_mont)(r, a, 0); }

/* Variable time in a (divstep count and branches): public inputs only. */
void FN(inv_vartime)(F *r, const F *a) { FN(inv_mont)(r, a, 1); }

#undef SG_L
#undef SG_BATCHES
#undef SG_M62
