/* GPU field arithmetic: Fp and Fr of BN254 and BLS12-381, and Fp2, in
 * Montgomery form with 32-bit limbs. One template over a constants struct
 * (the modulus, -p^-1 mod 2^32, R mod p), instantiated per field.
 *
 * Representation: the CPU stores little-endian 64-bit limbs with R = 2^256
 * (4 limbs) or 2^384 (6 limbs). Here the same bytes are N = 8 or 12
 * little-endian 32-bit limbs with the same R = 2^(32N), so a CPU buffer is a
 * GPU buffer and results compare bit for bit.
 *
 * Everything is __host__ __device__: the host instance is the portable
 * reference the device code is tested against (and is used for the last few
 * point operations of an MSM). On the device, add/sub use PTX carry chains
 * (add.cc/addc, sub.cc/subc); the product uses 32x32->64 multiply-adds
 * ((uint64_t)a*b + c), which compile to IMAD.WIDE.U32, measured at the full
 * rate on the H200 (IMAD.HI runs at half rate).
 *
 * Contract (as limbs.h): inputs fully reduced (< p), outputs fully reduced.
 * The modulus must leave the top bit of the top 32-bit limb free and the top
 * limb below 2^31 - 1 (true for all four fields), for the no-carry CIOS. */
#ifndef G16_GPU_FIELD_CUH
#define G16_GPU_FIELD_CUH

#include <stdint.h>

#include "../../field/field_constants.h"

#ifdef __CUDACC__
#ifdef __CUDA_ARCH__
#define G16_UNROLL _Pragma("unroll")
#else
#define G16_UNROLL /* host pass: gcc warns on unknown pragmas */
#endif
#define G16_NOINLINE __noinline__
#else
#define G16_NOINLINE
/* Plain C++ host build (tests of the templates without nvcc). */
#define __host__
#define __device__
#define __forceinline__ inline
#define G16_UNROLL
#endif

/* Carry chains on the PTX carry flag (device) or in C (host; on the device
 * too with G16_GPU_PORTABLE_CARRY, an experiment of scripts/gpu-addcold.sh,
 * never in the library build). */
#if defined(__CUDA_ARCH__) && !defined(G16_GPU_PORTABLE_CARRY)
#define G16_PTX_CARRY 1
#else
#define G16_PTX_CARRY 0
#endif

#define G16_HD __host__ __device__ __forceinline__
#define G16_HD_NI __host__ __device__

namespace g16gpu {

/* Constants struct per field: N limbs, p(i), one(i) = R mod p, n0. Loops over
 * limbs are fully unrolled, so p(i) folds to an immediate. */
#define G16_FIELD_CFG(NAME, UP, NL)                                                  \
    struct NAME##_cfg {                                                              \
        static constexpr int N = NL;                                                 \
        static G16_HD uint32_t p(int i) {                                            \
            const uint64_t v[] = UP##_P;                                             \
            return (i & 1) ? (uint32_t)(v[i >> 1] >> 32) : (uint32_t)v[i >> 1];      \
        }                                                                            \
        static G16_HD uint32_t one(int i) {                                          \
            const uint64_t v[] = UP##_R;                                             \
            return (i & 1) ? (uint32_t)(v[i >> 1] >> 32) : (uint32_t)v[i >> 1];      \
        }                                                                            \
        static G16_HD uint32_t r2(int i) {                                           \
            const uint64_t v[] = UP##_R2;                                            \
            return (i & 1) ? (uint32_t)(v[i >> 1] >> 32) : (uint32_t)v[i >> 1];      \
        }                                                                            \
        static constexpr uint32_t n0 = (uint32_t)(UP##_N0 & 0xffffffffu);            \
    };

G16_FIELD_CFG(bn254_fp, BN254_FP, 8)
G16_FIELD_CFG(bn254_fr, BN254_FR, 8)
G16_FIELD_CFG(bls381_fp, BLS381_FP, 12)
G16_FIELD_CFG(bls381_fr, BLS381_FR, 8)

/* One carry chain of fp_t::mul_wide and sqr_wide: PTX carry-flag
 * instructions on the device (consecutive asm statements, as in
 * operator+), an explicit carry bit on the host. Each call but the first of
 * a chain takes the carry in (first = true: none) and every call but
 * carry/add_carry/mad_last passes one on. */
struct wide_chain {
#if !G16_PTX_CARRY
    uint32_t cf = 0;
#endif
    /* (dlo, dhi) = x * y + (slo, shi) + carry */
    G16_HD void mad_to(uint32_t &dlo, uint32_t &dhi, uint32_t x, uint32_t y, uint32_t slo, uint32_t shi,
                       bool first) {
#if G16_PTX_CARRY
        if (first)
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(dlo) : "r"(x), "r"(y), "r"(slo));
        else
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(dlo) : "r"(x), "r"(y), "r"(slo));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(dhi) : "r"(x), "r"(y), "r"(shi));
#else
        uint64_t xy = (uint64_t)x * y;
        uint64_t s = (uint64_t)slo + (uint32_t)xy + (first ? 0 : cf);
        dlo = (uint32_t)s;
        s = (uint64_t)shi + (uint32_t)(xy >> 32) + (s >> 32);
        dhi = (uint32_t)s;
        cf = (uint32_t)(s >> 32);
#endif
    }
    /* (dlo, dhi) = x * y + (slo, shi) + carry, the chain's last step: no
     * carry out (the caller's bounds keep the sum below 2^64; on the host
     * too, what overflows is dropped, as on the device) */
    G16_HD void mad_last(uint32_t &dlo, uint32_t &dhi, uint32_t x, uint32_t y, uint32_t slo, uint32_t shi,
                         bool first) {
#if G16_PTX_CARRY
        if (first)
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(dlo) : "r"(x), "r"(y), "r"(slo));
        else
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(dlo) : "r"(x), "r"(y), "r"(slo));
        asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(dhi) : "r"(x), "r"(y), "r"(shi));
#else
        mad_to(dlo, dhi, x, y, slo, shi, first);
        cf = 0;
#endif
    }
    /* x + y (+ carry unless first) */
    G16_HD uint32_t add(uint32_t x, uint32_t y, bool first) {
        uint32_t r;
#if G16_PTX_CARRY
        if (first)
            asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
        else
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
#else
        uint64_t s = (uint64_t)x + y + (first ? 0 : cf);
        r = (uint32_t)s;
        cf = (uint32_t)(s >> 32);
#endif
        return r;
    }
    G16_HD uint32_t add3(uint32_t x, uint32_t y) { return add(x, y, false); }
    /* the chain's last step: x + carry, no carry out */
    G16_HD uint32_t add_carry(uint32_t x) {
#if G16_PTX_CARRY
        uint32_t r;
        asm volatile("addc.u32 %0, %1, 0;" : "=r"(r) : "r"(x));
        return r;
#else
        uint32_t r = x + cf;
        cf = 0;
        return r;
#endif
    }
    G16_HD uint32_t carry() { return add_carry(0); }
};

template <class C> struct fp_t {
    static constexpr int N = C::N;
    uint32_t l[N];

    static G16_HD fp_t zero() {
        fp_t r;
G16_UNROLL
        for (int i = 0; i < N; i++)
            r.l[i] = 0;
        return r;
    }
    static G16_HD fp_t one() {
        fp_t r;
G16_UNROLL
        for (int i = 0; i < N; i++)
            r.l[i] = C::one(i);
        return r;
    }
    G16_HD bool is_zero() const {
        uint32_t d = 0;
G16_UNROLL
        for (int i = 0; i < N; i++)
            d |= l[i];
        return d == 0;
    }
    G16_HD bool operator==(const fp_t &b) const {
        uint32_t d = 0;
G16_UNROLL
        for (int i = 0; i < N; i++)
            d |= l[i] ^ b.l[i];
        return d == 0;
    }
    G16_HD bool operator!=(const fp_t &b) const { return !(*this == b); }

    /* t = t - p if t >= p (t < 2p). */
    static G16_HD void reduce_once(uint32_t t[N]) {
        uint32_t s[N];
#if G16_PTX_CARRY
        uint32_t borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(C::p(0)));
G16_UNROLL
        for (int i = 1; i < N; i++)
            asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(C::p(i)));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
        /* borrow is 0xffffffff when t < p: keep t. */
G16_UNROLL
        for (int i = 0; i < N; i++)
            t[i] = borrow ? t[i] : s[i];
#else
        uint64_t b = 0;
        for (int i = 0; i < N; i++) {
            uint64_t d = (uint64_t)t[i] - C::p(i) - b;
            s[i] = (uint32_t)d;
            b = (d >> 32) & 1;
        }
        for (int i = 0; i < N; i++)
            t[i] = b ? t[i] : s[i];
#endif
    }

    friend G16_HD fp_t operator+(const fp_t &a, const fp_t &b) {
        fp_t r;
#if G16_PTX_CARRY
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(a.l[0]), "r"(b.l[0]));
G16_UNROLL
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(a.l[i]), "r"(b.l[i]));
#else
        uint64_t c = 0;
        for (int i = 0; i < N; i++) {
            uint64_t s = (uint64_t)a.l[i] + b.l[i] + c;
            r.l[i] = (uint32_t)s;
            c = s >> 32;
        }
#endif
        /* a + b < 2p < 2^(32N): no carry out. */
        reduce_once(r.l);
        return r;
    }

    friend G16_HD fp_t operator-(const fp_t &a, const fp_t &b) {
        fp_t r;
#if G16_PTX_CARRY
        uint32_t borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(a.l[0]), "r"(b.l[0]));
G16_UNROLL
        for (int i = 1; i < N; i++)
            asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(a.l[i]), "r"(b.l[i]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
        /* if a < b, add p back (masked by the borrow). */
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.l[0]) : "r"(C::p(0) & borrow));
G16_UNROLL
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.l[i]) : "r"(C::p(i) & borrow));
#else
        uint64_t bw = 0;
        for (int i = 0; i < N; i++) {
            uint64_t d = (uint64_t)a.l[i] - b.l[i] - bw;
            r.l[i] = (uint32_t)d;
            bw = (d >> 32) & 1;
        }
        uint32_t mask = (uint32_t)0 - (uint32_t)bw;
        uint64_t c = 0;
        for (int i = 0; i < N; i++) {
            uint64_t s = (uint64_t)r.l[i] + (C::p(i) & mask) + c;
            r.l[i] = (uint32_t)s;
            c = s >> 32;
        }
#endif
        return r;
    }

    G16_HD fp_t &operator+=(const fp_t &b) { return *this = *this + b; }
    G16_HD fp_t &operator-=(const fp_t &b) { return *this = *this - b; }

    G16_HD fp_t dbl() const { return *this + *this; }
    G16_HD fp_t neg() const { return zero() - *this; }

    /* a * b * R^-1 mod p: mul_wide on the device, mul_cios on the host (the
     * two are equal bit for bit; tests/gpu/host_emul.cpp checks it). */
    friend G16_HD fp_t operator*(const fp_t &a, const fp_t &b) {
#if defined(__CUDA_ARCH__)
        return mul_wide(a, b);
#else
        return mul_cios(a, b);
#endif
    }
    /* CIOS (Koc, Acar, Kaliski 1996), no-carry variant, with 32x32+64 -> 64
     * multiply-adds. Each inner step computes a_j*b_i + t_j + A and
     * m*p_j + lo + C, both < 2^64. */
    static G16_HD fp_t mul_cios(const fp_t &a, const fp_t &b) {
        uint32_t t[N];
G16_UNROLL
        for (int i = 0; i < N; i++)
            t[i] = 0;
G16_UNROLL
        for (int i = 0; i < N; i++) {
            uint64_t ab = (uint64_t)a.l[0] * b.l[i] + t[0];
            uint32_t A = (uint32_t)(ab >> 32);
            uint32_t lo = (uint32_t)ab;
            uint32_t m = lo * C::n0;
            uint64_t mp = (uint64_t)m * C::p(0) + lo;
            uint32_t Cc = (uint32_t)(mp >> 32);
G16_UNROLL
            for (int j = 1; j < N; j++) {
                ab = (uint64_t)a.l[j] * b.l[i] + t[j] + A;
                A = (uint32_t)(ab >> 32);
                mp = (uint64_t)m * C::p(j) + (uint32_t)ab + Cc;
                Cc = (uint32_t)(mp >> 32);
                t[j - 1] = (uint32_t)mp;
            }
            t[N - 1] = Cc + A;
        }
        reduce_once(t);
        fp_t r;
G16_UNROLL
        for (int i = 0; i < N; i++)
            r.l[i] = t[i];
        return r;
    }
    G16_HD fp_t &operator*=(const fp_t &b) { return *this = *this * b; }
    /* a^2: sqr_wide on the device; on the host the product (mul_cios), the
     * reference of the emulation tests. */
    G16_HD fp_t sqr() const {
#if defined(__CUDA_ARCH__)
        return sqr_wide(*this);
#else
        return *this * *this;
#endif
    }

    /* The CIOS product again, laid out for the hardware's wide multiply-add
     * with carry in and out (IMAD.WIDE.U32.X on sm_90). The running sum is
     * T = e + 2^32 o (N+1 words each): e takes the products of a's and p's
     * even words, o those of the odd words, so that every product a_j b_i
     * lands on an aligned register pair and one carry chain runs along each
     * array. Per word b_i, after the previous word's reduction (e_0 = 0):
     *   T / 2^32 = (o + e_1) + 2^32 (e >> 64),
     * so o plus the single word e_1 becomes the new e, and e shifted by two
     * words (a renaming of register pairs) the new o; the carry of o_0 + e_1
     * belongs to word 1, which is where the new o starts, so it enters o's
     * multiply chain (b_i times a's odd words) as that chain's carry in.
     * Then e += a_even b_i, m = e_0 n0, e += p_even m, o += p_odd m.
     * Bounds (a, b < p < 2^(32N-1): all four fields): T < 2p between
     * words, and e grows by at most (2^32 - 1)(a_even + p_even) < 2p 2^32
     * per word, so e < 2p 2^32 < 2^(32N+32) and o < 2^(32N+1): no array
     * needs more than N+1 words and no chain carries out of its top word.
     * 2N + 6
     * instructions per word of b against ~8N for mul_cios
     * (docs/gpu.md, "MSM"). wide_chain (above) runs the same steps on the
     * host, for the emulation tests. Equal to mul_cios, bit for bit. */
    static G16_HD fp_t mul_wide(const fp_t &a, const fp_t &b) {
        static_assert(N % 2 == 0, "mul_wide: even limb count");
        uint32_t e[N + 1], o[N + 1];
G16_UNROLL
        for (int j = 0; j <= N; j++)
            e[j] = o[j] = 0;
G16_UNROLL
        for (int i = 0; i < N; i++) {
            uint32_t bi = b.l[i];
            uint32_t ne[N + 1], no[N + 1];
            /* new e = o + e_1, new o = (e >> 64) + a_odd b_i: one chain */
            wide_chain c;
            ne[0] = c.add(o[0], e[1], true);
G16_UNROLL
            for (int k = 0; k < N; k += 2)
                c.mad_to(no[k], no[k + 1], a.l[k + 1], bi, e[k + 2], k + 3 <= N ? e[k + 3] : 0u, false);
            no[N] = c.carry();
G16_UNROLL
            for (int j = 1; j <= N; j++)
                ne[j] = o[j];
            /* one chain at a time: the device has one carry flag */
G16_UNROLL
            for (int k = 0; k < N; k += 2)
                c.mad_to(ne[k], ne[k + 1], a.l[k], bi, ne[k], ne[k + 1], k == 0);
            ne[N] = c.add_carry(ne[N]);
            uint32_t m = ne[0] * C::n0;
G16_UNROLL
            for (int k = 0; k < N; k += 2)
                c.mad_to(ne[k], ne[k + 1], C::p(k), m, ne[k], ne[k + 1], k == 0);
            ne[N] = c.add_carry(ne[N]);
G16_UNROLL
            for (int k = 0; k < N; k += 2)
                c.mad_to(no[k], no[k + 1], C::p(k + 1), m, no[k], no[k + 1], k == 0);
            no[N] = c.add_carry(no[N]);
G16_UNROLL
            for (int j = 0; j <= N; j++)
                e[j] = ne[j], o[j] = no[j];
        }
        /* the last word's shift: T / 2^32 = (o + e_1) + 2^32 (e >> 64) < 2p */
        fp_t r;
        wide_chain c;
        r.l[0] = c.add(o[0], e[1], true);
G16_UNROLL
        for (int j = 1; j < N; j++)
            r.l[j] = c.add3(o[j], e[j + 1]);
        reduce_once(r.l);
        return r;
    }

    /* a^2 R^-1 mod p, equal to mul_cios(a, a) bit for bit, for a < p: SOS
     * (separated operand scanning: the square, then its Montgomery
     * reduction; Koc, Acar, Kaliski 1996) on mul_wide's aligned pairs. B =
     * 2^32; arrays e and o hold 2N words by position, e the pairs (lo, hi)
     * that start at even positions, o those at odd ones; the value is the
     * sum of both. Needs a < 2^(32N-1) (a < p, all four fields).
     * Square (Handbook of Applied Cryptography 14.16: each a_i a_j, i < j,
     * once, doubled): X = sum_i a_i B^i (a_i B^i + 2 a_>i B^(i+1)), where
     * 2 a_>i B^(i+1) = (a_(i+1) << 1) B^(i+1) + sum_(j >= i+2) a2_j B^j,
     * a2 = 2a (N words: a's top bit is 0): the multiplier is doubled, not X.
     * Chain d (d = N-1 down to 0) adds a_i b_(i+d) at position 2i + d for
     * every i (b: a2 for d >= 2, a << 1 for d = 1, a for d = 0; into e for
     * even d, o for odd d). It spans positions d .. 2N-d-1, chain d + 2 one
     * pair less on each side, so its first and last pairs are new words:
     * the last pair is at most (B-1)^2 + 1 < B^2, no carry out.
     * Reduction: the words at positions >= N move to h (h <= X/R < B^N: one
     * N-word add) and the low half L (< 2R) is reduced in N rounds: the two
     * words at position i are added, m = t_i n0 (a mul.lo: the carry flag
     * stays), and the add's carry, which belongs to position i + 1, is the
     * carry in of the chain of m p_k, k odd, into the array whose pairs
     * start at i + 1; its last pair (i+N-1, i+N) holds at most a carry bit
     * below (at i = 0 a word of L) and a new word above: no carry out. Then
     * m p_k, k even, into the other array: its last pair is the first
     * chain's of round i - 1, so it carries into the new word i + N. The
     * result (X + M p)/R, M < R, is h plus the words >= N of e and o, below
     * p^2/R + p < 2p: two N-word adds (partial sums below 2p: no carry out)
     * and reduce_once. N = 12 on sm_90 (nvcc 13): 353 instructions, 234 of
     * them IMADs, against mul_wide(a, a)'s 395 and 300. */
    static G16_HD fp_t sqr_wide(const fp_t &a) {
        static_assert(N % 2 == 0 && N >= 4, "sqr_wide: even limb count");
        uint32_t e[2 * N], o[2 * N], a2[N];
G16_UNROLL
        for (int j = 0; j < 2 * N; j++)
            e[j] = o[j] = 0;
        a2[0] = a2[1] = 0; /* unused */
G16_UNROLL
        for (int j = 2; j < N; j++) {
#if defined(__CUDA_ARCH__)
            a2[j] = __funnelshift_l(a.l[j - 1], a.l[j], 1);
#else
            a2[j] = (a.l[j] << 1) | (a.l[j - 1] >> 31);
#endif
        }
        /* the square X */
G16_UNROLL
        for (int d = N - 1; d >= 0; d--) {
            uint32_t(&t)[2 * N] = (d & 1) ? o : e;
            wide_chain c;
G16_UNROLL
            for (int i = 0; i + d < N; i++) {
                int q = 2 * i + d;
                uint32_t y = d == 0 ? a.l[i] : d == 1 ? a.l[i + 1] << 1 : a2[i + d];
                if (i + d < N - 1)
                    c.mad_to(t[q], t[q + 1], a.l[i], y, t[q], t[q + 1], i == 0);
                else
                    c.mad_last(t[q], t[q + 1], a.l[i], y, t[q], t[q + 1], i == 0);
            }
        }
        /* h: X's words >= N */
        uint32_t h[N];
        {
            wide_chain c; /* o[2N-1] is 0 */
            h[0] = c.add(e[N], o[N], true);
G16_UNROLL
            for (int k = 1; k < N - 1; k++)
                h[k] = c.add3(e[N + k], o[N + k]);
            h[N - 1] = c.add_carry(e[2 * N - 1]);
        }
G16_UNROLL
        for (int j = N; j < 2 * N; j++)
            e[j] = o[j] = 0;
        /* the reduction of the low half */
G16_UNROLL
        for (int i = 0; i < N; i++) {
            uint32_t(&t)[2 * N] = (i & 1) ? o : e; /* pairs from i */
            uint32_t(&u)[2 * N] = (i & 1) ? e : o; /* pairs from i + 1 */
            wide_chain c;
            uint32_t w = i == 0 ? t[0] : c.add(t[i], u[i], true);
            uint32_t m = w * C::n0;
G16_UNROLL
            for (int k = 1; k < N; k += 2) {
                if (k < N - 1)
                    c.mad_to(u[i + k], u[i + k + 1], C::p(k), m, u[i + k], u[i + k + 1], i == 0 && k == 1);
                else
                    c.mad_last(u[i + k], u[i + k + 1], C::p(k), m, u[i + k], u[i + k + 1], false);
            }
            c.mad_to(t[i], t[i + 1], C::p(0), m, w, t[i + 1], true); /* t[i] becomes 0 */
G16_UNROLL
            for (int k = 2; k < N; k += 2)
                c.mad_to(t[i + k], t[i + k + 1], C::p(k), m, t[i + k], t[i + k + 1], false);
            t[i + N] = c.carry();
        }
        /* the words >= N of e, o and h */
        fp_t r;
        wide_chain c;
        r.l[0] = c.add(e[N], o[N], true);
G16_UNROLL
        for (int k = 1; k < N; k++)
            r.l[k] = c.add3(e[N + k], o[N + k]);
        r.l[0] = c.add(r.l[0], h[0], true);
G16_UNROLL
        for (int k = 1; k < N; k++)
            r.l[k] = c.add3(r.l[k], h[k]);
        reduce_once(r.l);
        return r;
    }

    /* a^e for a small public exponent list (host use: inversion). */
    G16_HD fp_t pow_vartime(const uint32_t *e, int en) const {
        fp_t r = one();
        for (int i = en * 32 - 1; i >= 0; i--) {
            r = r.sqr();
            if ((e[i >> 5] >> (i & 31)) & 1)
                r = r * *this;
        }
        return r;
    }
    /* Fermat inverse a^(p-2); 0 -> 0. Variable time in nothing secret: the
     * exponent is public (used on the host for results only). */
    G16_HD fp_t inv() const {
        uint32_t e[N];
        uint32_t bw = 2;
        for (int i = 0; i < N; i++) { /* e = p - 2 */
            uint64_t d = (uint64_t)C::p(i) - bw;
            e[i] = (uint32_t)d;
            bw = (uint32_t)(d >> 63);
        }
        return pow_vartime(e, N);
    }

    /* Inverse by the binary extended Euclidean algorithm (Menezes et al.,
     * Handbook of Applied Cryptography, alg. 14.61 with the modular halving
     * of Guide to ECC, alg. 2.22), then two products by R^2 for the
     * Montgomery form: about 2 log2 p steps of N-limb shifts and
     * subtractions instead of inv()'s ~1.5 log2 p products. 0 -> 0.
     * Variable time in the value: for public values only (the window
     * tables of public bases, msm.cuh). */
    G16_HD fp_t inv_vartime() const {
        if (is_zero())
            return *this;
        uint32_t u[N], v[N], x1[N], x2[N];
        for (int i = 0; i < N; i++)
            u[i] = l[i], v[i] = C::p(i), x1[i] = i == 0, x2[i] = 0;
        /* Invariants: x1 a = u, x2 a = v (mod p); u, v > 0; gcd(u, v) = 1. */
        while (!limbs_is_one(u) && !limbs_is_one(v)) {
            while (!(u[0] & 1))
                limbs_shr1(u), half_mod(x1);
            while (!(v[0] & 1))
                limbs_shr1(v), half_mod(x2);
            if (limbs_geq(u, v)) {
                limbs_sub(u, v);
                sub_mod(x1, x2);
            } else {
                limbs_sub(v, u);
                sub_mod(x2, x1);
            }
        }
        fp_t r, r2;
        for (int i = 0; i < N; i++)
            r.l[i] = limbs_is_one(u) ? x1[i] : x2[i], r2.l[i] = C::r2(i);
        /* r = (a R)^-1; the Montgomery form of a^-1 is a^-1 R = r R^2. */
        return r * r2 * r2;
    }

  private:
    static G16_HD bool limbs_is_one(const uint32_t a[N]) {
        uint32_t d = a[0] ^ 1;
        for (int i = 1; i < N; i++)
            d |= a[i];
        return d == 0;
    }
    static G16_HD bool limbs_geq(const uint32_t a[N], const uint32_t b[N]) {
        for (int i = N - 1; i >= 0; i--)
            if (a[i] != b[i])
                return a[i] > b[i];
        return true;
    }
    static G16_HD void limbs_shr1(uint32_t a[N]) {
        for (int i = 0; i < N - 1; i++)
            a[i] = (a[i] >> 1) | (a[i + 1] << 31);
        a[N - 1] >>= 1;
    }
    static G16_HD void limbs_sub(uint32_t a[N], const uint32_t b[N]) { /* a -= b, a >= b */
        uint64_t bw = 0;
        for (int i = 0; i < N; i++) {
            uint64_t d = (uint64_t)a[i] - b[i] - bw;
            a[i] = (uint32_t)d;
            bw = (d >> 32) & 1;
        }
    }
    /* x = x/2 mod p, x < p: (x + p)/2 for odd x (x + p < 2p < 2^(32N)). */
    static G16_HD void half_mod(uint32_t x[N]) {
        uint32_t odd = 0u - (x[0] & 1);
        uint64_t c = 0;
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)x[i] + (C::p(i) & odd) + c;
            x[i] = (uint32_t)t;
            c = t >> 32;
        }
        limbs_shr1(x);
    }
    /* x = x - y mod p, both < p. */
    static G16_HD void sub_mod(uint32_t x[N], const uint32_t y[N]) {
        uint64_t bw = 0;
        for (int i = 0; i < N; i++) {
            uint64_t d = (uint64_t)x[i] - y[i] - bw;
            x[i] = (uint32_t)d;
            bw = (d >> 32) & 1;
        }
        uint32_t mask = 0u - (uint32_t)bw;
        uint64_t c = 0;
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)x[i] + (C::p(i) & mask) + c;
            x[i] = (uint32_t)t;
            c = t >> 32;
        }
    }
};

/* Fp2 = Fp[u]/(u^2 + 1) for both curves (as src/field/fp2_impl.h). */
template <class F> struct fp2_t {
    F c0, c1;
    static constexpr int N = 2 * F::N;

    static G16_HD fp2_t zero() { return fp2_t{F::zero(), F::zero()}; }
    static G16_HD fp2_t one() { return fp2_t{F::one(), F::zero()}; }
    G16_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    G16_HD bool operator==(const fp2_t &b) const { return c0 == b.c0 && c1 == b.c1; }
    G16_HD bool operator!=(const fp2_t &b) const { return !(*this == b); }
    friend G16_HD fp2_t operator+(const fp2_t &a, const fp2_t &b) { return fp2_t{a.c0 + b.c0, a.c1 + b.c1}; }
    friend G16_HD fp2_t operator-(const fp2_t &a, const fp2_t &b) { return fp2_t{a.c0 - b.c0, a.c1 - b.c1}; }
    G16_HD fp2_t &operator+=(const fp2_t &b) { return *this = *this + b; }
    G16_HD fp2_t &operator-=(const fp2_t &b) { return *this = *this - b; }
    G16_HD fp2_t dbl() const { return fp2_t{c0.dbl(), c1.dbl()}; }
    G16_HD fp2_t neg() const { return fp2_t{c0.neg(), c1.neg()}; }
    /* Karatsuba, 3M: (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
    friend G16_HD fp2_t operator*(const fp2_t &a, const fp2_t &b) {
        F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
        F s = (a.c0 + a.c1) * (b.c0 + b.c1);
        return fp2_t{t0 - t1, s - t0 - t1};
    }
    G16_HD fp2_t &operator*=(const fp2_t &b) { return *this = *this * b; }
    /* Complex squaring, 2M: (a0+a1)(a0-a1) + 2 a0 a1 u */
    G16_HD fp2_t sqr() const {
        F m = c0 * c1;
        return fp2_t{(c0 + c1) * (c0 - c1), m.dbl()};
    }
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    G16_HD fp2_t inv() const {
        F d = (c0.sqr() + c1.sqr()).inv();
        return fp2_t{c0 * d, (c1 * d).neg()};
    }
    G16_HD fp2_t inv_vartime() const { /* as inv(), F's binary inverse (variable time) */
        F d = (c0.sqr() + c1.sqr()).inv_vartime();
        return fp2_t{c0 * d, (c1 * d).neg()};
    }
};

/* Device types, named like the CPU ones (src/field/field.h). */
typedef fp_t<bn254_fp_cfg> bn254_fp;
typedef fp_t<bn254_fr_cfg> bn254_fr;
typedef fp_t<bls381_fp_cfg> bls381_fp;
typedef fp_t<bls381_fr_cfg> bls381_fr;
typedef fp2_t<bn254_fp> bn254_fp2;
typedef fp2_t<bls381_fp> bls381_fp2;

} /* namespace g16gpu */

#endif
