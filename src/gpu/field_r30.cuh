/* Experimental: Montgomery multiplication in radix 2^30, for the MSM's
 * accumulation. Measured against fp_t's product by `g16 bench arith
 * --backend cuda` (arith_bench.cu); not used by any kernel yet.
 *
 * Why: with 30-bit limbs every partial product a_i*b_j is below 2^60, so up
 * to 15 of them (plus a carry below 2^35) add up in one 64-bit register
 * with no carry handling: one mad.wide per partial product in PTX, which
 * ptxas turns into a wide product plus a share of a 3-input add (about one
 * ALU instruction per product), where fp_t's 32-bit CIOS needs about two
 * carry-propagating additions per product. BLS12-381 Fp (nvdisasm of the
 * sm_90 code, docs/gpu-notes.md): 910 instructions per product (340 wide
 * products), 750 per square, against 1065 for fp_t's product.
 *
 * Representation (r30_t<C>, C an fp_t constants struct): L = ceil(32N/30)
 * limbs of 30 bits in 32-bit words, little endian, each below 2^30; the
 * value is x * R' mod p with R' = 2^(30L) (Montgomery form), kept below 2p
 * (not fully reduced). fp_t values (R = 2^(32N)) convert with one product
 * each way (from_fp / to_fp) by the constants of r30_consts.
 *
 * Product: FIPS, finely integrated product scanning (Koc, Acar, Kaliski
 * 1996, "Analyzing and comparing Montgomery multiplication algorithms"),
 * column by column: column k adds a_i*b_(k-i) and m_i*p_(k-i), picks
 * m_k = (column mod 2^30) * (-p^-1) mod 2^30 for k < L so that the column's
 * low 30 bits vanish, and shifts 30 bits into the next column. Inputs below
 * 2p give T = a*b + m*p < 4p^2 + R'p, and T/R' < 2p because 4p < R'. */
#ifndef G16_GPU_FIELD_R30_CUH
#define G16_GPU_FIELD_R30_CUH

#include "field.cuh"

namespace g16gpu {

template <class C> struct r30_t {
    static constexpr int N32 = C::N;
    static constexpr int L = (32 * N32 + 29) / 30;
    static constexpr uint32_t MASK = (1u << 30) - 1;
    static constexpr uint32_t n0 = C::n0 & MASK; /* -p^-1 mod 2^30 */
    /* Units of 2^60 (one partial product) one 64-bit accumulator takes
     * before the column spills into a second one: 15 * 2^60 + 2^36 < 2^64. */
    static constexpr int ACC_MAX = 15;
    uint32_t l[L];

    /* Limb k of p (bits 30k .. 30k+29); folds to an immediate when k is a
     * compile-time constant (unrolled loops). */
    static G16_HD uint32_t p(int k) {
        int bit = 30 * k, w = bit >> 5, s = bit & 31;
        uint64_t v = C::p(w);
        if (w + 1 < N32)
            v |= (uint64_t)C::p(w + 1) << 32;
        return (uint32_t)(v >> s) & MASK;
    }

    /* Repacks N32 32-bit words (any value below 2^(32N)) into 30-bit limbs. */
    static G16_HD r30_t from_words(const uint32_t w[N32]) {
        r30_t r;
G16_UNROLL
        for (int k = 0; k < L; k++) {
            int bit = 30 * k, i = bit >> 5, s = bit & 31;
            uint64_t v = w[i];
            if (i + 1 < N32)
                v |= (uint64_t)w[i + 1] << 32;
            r.l[k] = (uint32_t)(v >> s) & MASK;
        }
        return r;
    }
    /* The inverse of from_words for a value below 2^(32N). */
    G16_HD void to_words(uint32_t w[N32]) const {
G16_UNROLL
        for (int i = 0; i < N32; i++)
            w[i] = 0;
G16_UNROLL
        for (int k = 0; k < L; k++) {
            int bit = 30 * k, i = bit >> 5, s = bit & 31;
            uint64_t v = (uint64_t)l[k] << s;
            w[i] |= (uint32_t)v;
            if (i + 1 < N32)
                w[i + 1] |= (uint32_t)(v >> 32);
        }
    }

    /* Adds the partial product x*y (u units of 2^60: 1, or 2 for a doubled
     * cross term of a square) into column accumulator acc while it holds at
     * most ACC_MAX units, else into acc2 (used2 says so). The counts are
     * compile-time constants in the unrolled loops. */
    static G16_HD void col_add(uint64_t &acc, uint64_t &acc2, int &units, bool &used2, uint32_t x, uint32_t y,
                               int u) {
        if (units + u <= ACC_MAX) {
            mad_wide(acc, x, y);
            units += u;
        } else {
            mad_wide(acc2, x, y);
            used2 = true;
        }
    }
    /* acc += x*y (no overflow by the callers' bounds). One mad.wide on the
     * device, written in PTX because nvcc's 64-bit form adds the (known
     * zero) high cross terms with extra instructions. */
    static G16_HD void mad_wide(uint64_t &acc, uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
        asm("mad.wide.u32 %0, %1, %2, %0;" : "+l"(acc) : "r"(x), "r"(y));
#else
        acc += (uint64_t)x * y;
#endif
    }

    /* a * b / R' mod p (b = a for SQ: the cross terms a_i a_j, i < j, once,
     * as (2 a_i) a_j < 2^61), FIPS (see the top). Below 2p when a b < R' p:
     * inputs below 2p, or below 16p (the lazy additions below). */
    template <bool SQ> static G16_HD r30_t redc_product(const r30_t &a, const r30_t &b) {
        uint32_t m[L], a2[L];
        if (SQ) {
G16_UNROLL
            for (int i = 0; i < L; i++)
                a2[i] = a.l[i] << 1;
        }
        r30_t r;
        uint64_t acc = 0; /* the running column sum, carry included */
G16_UNROLL
        for (int k = 0; k < 2 * L - 1; k++) {
            uint64_t acc2 = 0;
            int units = 0;
            bool used2 = false;
            /* fixed trip counts, so that both loops unroll completely */
G16_UNROLL
            for (int i = 0; i < L; i++) {
                int j = k - i;
                if (j < 0 || j >= L)
                    continue;
                if (!SQ)
                    col_add(acc, acc2, units, used2, a.l[i], b.l[j], 1);
                else if (i < j)
                    col_add(acc, acc2, units, used2, a2[i], a.l[j], 2);
                else if (i == j)
                    col_add(acc, acc2, units, used2, a.l[i], a.l[i], 1);
            }
G16_UNROLL
            for (int i = 0; i < L; i++)
                if (i < k && k - i < L)
                    col_add(acc, acc2, units, used2, m[i], p(k - i), 1);
            if (k < L) {
                uint32_t low = (uint32_t)acc + (uint32_t)acc2;
                m[k] = (low * n0) & MASK;
                col_add(acc, acc2, units, used2, m[k], p(0), 1);
            }
            uint32_t digit;
            if (used2) {
                uint64_t t = (acc & MASK) + acc2;
                acc = (acc >> 30) + (t >> 30);
                digit = (uint32_t)t & MASK;
            } else {
                digit = (uint32_t)acc & MASK;
                acc >>= 30;
            }
            if (k >= L)
                r.l[k - L] = digit; /* columns below L end in zero digits */
        }
        r.l[L - 1] = (uint32_t)acc; /* below 2^30: the result is below 2p */
        return r;
    }
    static G16_HD r30_t mul(const r30_t &a, const r30_t &b) { return redc_product<false>(a, b); }
    G16_HD r30_t sqr() const { return redc_product<true>(*this, *this); }
    friend G16_HD r30_t operator*(const r30_t &a, const r30_t &b) { return mul(a, b); }

    static G16_HD r30_t zero() {
        r30_t r;
G16_UNROLL
        for (int k = 0; k < L; k++)
            r.l[k] = 0;
        return r;
    }
    G16_HD bool is_zero() const { /* the exact value 0 (not 0 mod p) */
        uint32_t d = 0;
G16_UNROLL
        for (int k = 0; k < L; k++)
            d |= l[k];
        return d == 0;
    }
    /* The exact value p (a value below 4p is 0 mod p iff it is 0, p, 2p or
     * 3p; the callers test squares, below 2p). */
    G16_HD bool equals_p() const {
        uint32_t d = 0;
G16_UNROLL
        for (int k = 0; k < L; k++)
            d |= l[k] ^ p(k);
        return d == 0;
    }

    /* Lazy additions: values add up without reduction (the caller keeps
     * them below 2^(30L) and below 16p where they feed a product: then the
     * product is below 2p, as (16p)^2 < R'p for both curves' p). Limbs are
     * carried back below 2^30. */
    friend G16_HD r30_t operator+(const r30_t &a, const r30_t &b) {
        r30_t r;
        uint32_t c = 0;
G16_UNROLL
        for (int k = 0; k < L; k++) {
            uint32_t v = a.l[k] + b.l[k] + c;
            r.l[k] = v & MASK;
            c = v >> 30;
        }
        return r;
    }
    /* a - b + K*p, for b's value at most K*p (K <= 16). The limbs of K*p
     * are added unnormalized (K p_k < 2^34), so the carry is signed and
     * may reach K: 64-bit limb sums. */
    template <int K> static G16_HD r30_t sub(const r30_t &a, const r30_t &b) {
        static_assert(K >= 1 && K <= 16, "K");
        r30_t r;
        int64_t c = 0;
G16_UNROLL
        for (int k = 0; k < L; k++) {
            int64_t v = (int64_t)a.l[k] - (int64_t)b.l[k] + (int64_t)K * p(k) + c;
            r.l[k] = (uint32_t)v & MASK;
            c = v >> 30; /* arithmetic shift */
        }
        return r;
    }

    /* The value mod p as fully reduced limbs (t - p when t >= p; t < 2p). */
    G16_HD r30_t reduced() const {
        r30_t s;
        int64_t borrow = 0;
G16_UNROLL
        for (int k = 0; k < L; k++) {
            int64_t d = (int64_t)l[k] - p(k) + borrow;
            s.l[k] = (uint32_t)d & MASK;
            borrow = d >> 30; /* 0 or -1 */
        }
        return borrow ? *this : s;
    }
};

/* The accumulation's mixed addition in r30_t (experimental, measured by
 * the arith bench against xyzz_t<fp_t>::add_affine). Same formulas as
 * curve.cuh (EFD madd-2008-s, mdbl-2008-s), with lazy reduction: products
 * are below 2p, differences carry a multiple of p (bounds in the comments:
 * x < 8p, y < 4p, zz, zzz < 2p; affine inputs below 2p). The zero tests
 * use the squares: P = 0 mod p iff P^2 (< 2p) is 0 or p. */
template <class C> struct r30_xyzz {
    typedef r30_t<C> E;
    E x, y, zz, zzz;

    static G16_HD r30_xyzz inf() { return r30_xyzz{E::zero(), E::zero(), E::zero(), E::zero()}; }
    G16_HD bool is_inf() const { return zz.is_zero(); }
    static G16_HD bool zero_mod_p(const E &sq) { return sq.is_zero() || sq.equals_p(); }

    /* mdbl-2008-s: 2 * (ax, ay), not infinity. */
    static G16_HD r30_xyzz dbl_affine(const E &ax, const E &ay) {
        E U = ay + ay;                               /* < 4p */
        E V = U.sqr(), W = U * V;                      /* < 2p */
        E S = ax * V, X2 = ax.sqr();                  /* < 2p */
        E M = X2 + X2 + X2;                          /* < 6p (a = 0) */
        E X3 = E::template sub<4>(M.sqr(), S + S);     /* M^2 - 2S < 6p */
        E Y3 = E::template sub<2>(M * E::template sub<6>(S, X3), W * ay); /* < 4p */
        return r30_xyzz{X3, Y3, V, W};
    }

    /* this + (ax, ay); one = R' mod p (r30_consts::one). */
    G16_HD void add_affine(const E &ax, const E &ay, const E &one) {
        if (ax.is_zero() && ay.is_zero())
            return; /* adding infinity */
        if (is_inf()) {
            *this = r30_xyzz{ax, ay, one, one};
            return;
        }
        E P = E::template sub<8>(ax * zz, x);  /* U2 - X1 < 10p */
        E R = E::template sub<4>(ay * zzz, y); /* S2 - Y1 < 6p */
        E PP = P.sqr();                        /* < 2p */
        E RR = R.sqr();
        if (zero_mod_p(PP)) {
            if (zero_mod_p(RR))
                *this = dbl_affine(ax, ay);
            else
                *this = inf();
            return;
        }
        E PPP = P * PP;
        zz = zz * PP;
        zzz = zzz * PPP;
        E Q = x * PP;
        x = E::template sub<6>(RR, PPP + Q + Q);                          /* R^2 - PPP - 2Q < 8p */
        y = E::template sub<2>(R * E::template sub<8>(Q, x), y * PPP);   /* R(Q - X3) - Y1 PPP < 4p */
    }
};

/* Conversion constants between fp_t (R = 2^(32N)) and r30_t (R' = 2^(30L)),
 * as r30 limbs: up = 2^(60L - 32N) mod p, down = 2^(32N) mod p. Then
 * from_fp(x) = words(x) * up / R' = x R' and to_fp(y) = y * down / R' =
 * x R. Computed on the host by doubling (host code, not a hot path). */
template <class C> struct r30_consts {
    r30_t<C> up, down;
    r30_t<C> one; /* R' mod p: the Montgomery one */
};

template <class C> static G16_HD r30_t<C> r30_from_fp(const fp_t<C> &x, const r30_consts<C> &k) {
    return r30_t<C>::from_words(x.l) * k.up;
}

template <class C> static G16_HD fp_t<C> r30_to_fp(const r30_t<C> &y, const r30_consts<C> &k) {
    fp_t<C> r;
    (y * k.down).reduced().to_words(r.l);
    return r;
}

template <class C> static inline r30_consts<C> r30_make_consts() {
    typedef fp_t<C> F;
    /* 2^e mod p as a plain integer in 32-bit words, by e modular doublings
     * of 1 (fp_t's + is a modular addition of the integers it holds). */
    auto pow2 = [](int e) {
        F x = F::zero();
        x.l[0] = 1;
        for (int i = 0; i < e; i++)
            x = x + x;
        return r30_t<C>::from_words(x.l);
    };
    r30_consts<C> c;
    c.up = pow2(60 * r30_t<C>::L - 32 * C::N);
    c.down = pow2(32 * C::N);
    c.one = r30_from_fp(F::one(), c);
    return c;
}

} /* namespace g16gpu */

#endif
