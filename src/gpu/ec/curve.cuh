/* GPU curve arithmetic: short Weierstrass curves y^2 = x^3 + b (a = 0) over a
 * field E (fp_t or fp2_t), in XYZZ coordinates (X/ZZ, Y/ZZZ, ZZ^3 = ZZZ^2).
 * Formulas from the EFD (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html):
 *   madd-2008-s  XYZZ + affine      8M + 2S
 *   add-2008-s   XYZZ + XYZZ       12M + 2S
 *   mdbl-2008-s  2 * affine         3M + 5S (as dbl with ZZ = ZZZ = 1)
 *   dbl-2008-s   2 * XYZZ           6M + 3S
 * None of them uses b, so one template serves all four groups. The special
 * cases (infinity, P == Q, P == -Q) are handled by branches: this is
 * variable-time code (_vartime in spirit), used only for MSMs over public
 * bases, where the branch pattern depends on the scalars' digits.
 *
 * Affine points are the CPU's G_affine layout {x, y}, (0, 0) = infinity.
 * XYZZ infinity is ZZ = 0 (ZZZ = 0), so zeroed memory is infinity. */
#ifndef G16_GPU_CURVE_CUH
#define G16_GPU_CURVE_CUH

#include "../ff/field.cuh"

namespace g16gpu {

/* 16-byte alignment (sizes are multiples of 16 for all four groups, so the
 * layout stays the CPU's): point loads and stores become 16-byte accesses. */
template <class E> struct alignas(16) affine_t {
    E x, y;
    G16_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

/* *p read word by word through volatile loads on the device (at the point
 * of use: see xyzz_t::add_mem); a plain copy on the host. */
template <class T> G16_HD T vload(const T *p) {
#if defined(__CUDA_ARCH__)
    static_assert(sizeof(T) % 4 == 0, "vload: whole words");
    T r;
    const volatile uint32_t *src = reinterpret_cast<const volatile uint32_t *>(p);
    uint32_t *dst = reinterpret_cast<uint32_t *>(&r);
G16_UNROLL
    for (unsigned i = 0; i < sizeof(T) / 4; i++)
        dst[i] = src[i];
    return r;
#else
    return *p;
#endif
}

template <class E> struct alignas(16) xyzz_t {
    E x, y, zz, zzz;

    static G16_HD xyzz_t inf() { return xyzz_t{E::zero(), E::zero(), E::zero(), E::zero()}; }
    G16_HD bool is_inf() const { return zz.is_zero(); }
    static G16_HD xyzz_t from_affine(const affine_t<E> &a) {
        if (a.is_inf())
            return inf();
        return xyzz_t{a.x, a.y, E::one(), E::one()};
    }
    G16_HD xyzz_t neg() const { return xyzz_t{x, y.neg(), zz, zzz}; }

    /* mdbl-2008-s: 2 * (ax, ay), affine input not infinity. */
    static G16_HD xyzz_t dbl_affine(const E &ax, const E &ay) {
        E U = ay.dbl();          /* U = 2*Y1 */
        E V = U.sqr();           /* V = U^2 */
        E W = U * V;             /* W = U*V */
        E S = ax * V;            /* S = X1*V */
        E X2 = ax.sqr();
        E M = X2.dbl() + X2;     /* M = 3*X1^2 (a = 0) */
        E X3 = M.sqr() - S.dbl(); /* X3 = M^2 - 2*S */
        E Y3 = M * (S - X3) - W * ay; /* Y3 = M*(S-X3) - W*Y1 */
        return xyzz_t{X3, Y3, V, W};  /* ZZ3 = V, ZZZ3 = W */
    }

    /* dbl-2008-s: 2 * this (infinity maps to infinity). */
    G16_HD xyzz_t dbl() const {
        if (is_inf())
            return *this;
        E U = y.dbl();           /* U = 2*Y1 */
        E V = U.sqr();           /* V = U^2 */
        E W = U * V;             /* W = U*V */
        E S = x * V;             /* S = X1*V */
        E X2 = x.sqr();
        E M = X2.dbl() + X2;     /* M = 3*X1^2 + a*ZZ1^2, a = 0 */
        E X3 = M.sqr() - S.dbl(); /* X3 = M^2 - 2*S */
        E Y3 = M * (S - X3) - W * y; /* Y3 = M*(S-X3) - W*Y1 */
        return xyzz_t{X3, Y3, V * zz, W * zzz}; /* ZZ3 = V*ZZ1, ZZZ3 = W*ZZZ1 */
    }

    /* madd-2008-s: this + (ax, ay), handling every special case. */
    G16_HD void add_affine(const E &ax, const E &ay) {
        if (ax.is_zero() && ay.is_zero())
            return; /* adding infinity */
        if (is_inf()) {
            *this = xyzz_t{ax, ay, E::one(), E::one()};
            return;
        }
        /* Ordered to keep few temporaries live (register pressure). */
        E P = ax * zz - x;  /* P = U2 - X1, U2 = X2*ZZ1 */
        E R = ay * zzz - y; /* R = S2 - Y1, S2 = Y2*ZZZ1 */
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl_affine(ax, ay); /* same point */
            else
                *this = inf(); /* opposite points */
            return;
        }
        E PP = P.sqr();     /* PP = P^2 */
        E PPP = P * PP;     /* PPP = P*PP */
        zz = zz * PP;       /* ZZ3 = ZZ1*PP */
        zzz = zzz * PPP;    /* ZZZ3 = ZZZ1*PPP */
        E Q = x * PP;       /* Q = X1*PP */
        x = R.sqr() - PPP - Q.dbl();  /* X3 = R^2 - PPP - 2*Q */
        y = R * (Q - x) - y * PPP;    /* Y3 = R*(Q-X3) - Y1*PPP */
    }
    G16_HD void add_affine(const affine_t<E> &a) { add_affine(a.x, a.y); }

    /* add-2008-s: this + q, handling every special case. */
    G16_HD void add(const xyzz_t &q) {
        if (q.is_inf())
            return;
        if (is_inf()) {
            *this = q;
            return;
        }
        E U1 = x * q.zz;         /* U1 = X1*ZZ2 */
        E S1 = y * q.zzz;        /* S1 = Y1*ZZZ2 */
        E P = q.x * zz - U1;     /* P = U2 - U1, U2 = X2*ZZ1 */
        E R = q.y * zzz - S1;    /* R = S2 - S1, S2 = Y2*ZZZ1 */
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        E PP = P.sqr();          /* PP = P^2 */
        E PPP = P * PP;          /* PPP = P*PP */
        zz = zz * q.zz * PP;     /* ZZ3 = ZZ1*ZZ2*PP */
        zzz = zzz * q.zzz * PPP; /* ZZZ3 = ZZZ1*ZZZ2*PPP */
        E Q = U1 * PP;           /* Q = U1*PP */
        x = R.sqr() - PPP - Q.dbl();  /* X3 = R^2 - PPP - 2*Q */
        y = R * (Q - x) - S1 * PPP;   /* Y3 = R*(Q-X3) - S1*PPP */
    }

    /* add-2008-s with q in device memory, its coordinates read where they
     * are used (vload: volatile loads, so the compiler neither hoists nor
     * keeps them): only this, the temporaries and one coordinate of q are
     * live, where add() holds all of q. For the bucket reduction over Fp2,
     * whose kernels spilled kilobytes per thread with add() (ptxas, sm_90).
     * Same results as add(*q). */
    G16_HD void add_mem(const xyzz_t *q) {
        if (vload(&q->zz).is_zero())
            return;
        if (is_inf()) {
            *this = xyzz_t{vload(&q->x), vload(&q->y), vload(&q->zz), vload(&q->zzz)};
            return;
        }
        E U1 = x * vload(&q->zz);      /* U1 = X1*ZZ2 */
        E S1 = y * vload(&q->zzz);     /* S1 = Y1*ZZZ2 */
        E P = vload(&q->x) * zz - U1;  /* P = U2 - U1 */
        E R = vload(&q->y) * zzz - S1; /* R = S2 - S1 */
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        E PP = P.sqr();
        E PPP = P * PP;
        zz = zz * vload(&q->zz) * PP;    /* ZZ3 = ZZ1*ZZ2*PP */
        zzz = zzz * vload(&q->zzz) * PPP; /* ZZZ3 = ZZZ1*ZZZ2*PPP */
        E Q = U1 * PP;
        x = R.sqr() - PPP - Q.dbl();
        y = R * (Q - x) - S1 * PPP;
    }

    /* Out-of-line copies for the kernels off the hot path (tree, fix-up,
     * bucket reduction): one body per kernel instead of one per call site
     * keeps nvcc's compile time and the code size down. */
    G16_NOINLINE G16_HD_NI void add_cold(const xyzz_t &q) { add(q); }
    G16_NOINLINE G16_HD_NI void dbl_cold() { *this = dbl(); }
    /* scripts/gpu-addcold.sh's variant 2: q by value, the sum in a local. */
    G16_NOINLINE G16_HD_NI void add_cold_val(xyzz_t q) {
        xyzz_t t = *this;
        t.add(q);
        *this = t;
    }

    /* Jacobian (X, Y, Z) with Z = ZZZ: X = x*ZZ^2... precisely, with
     * x = X/ZZ and ZZZ^2 = ZZ^3: Xj = X*ZZ^2, Yj = Y*ZZZ^2, Zj = ZZZ (then
     * Xj/Zj^2 = X*ZZ^2/ZZ^3 = X/ZZ and Yj/Zj^3 = Y/ZZZ). Infinity: Z = 0. */
    G16_HD void to_jac(E &X, E &Y, E &Z) const {
        if (is_inf()) {
            X = E::one();
            Y = E::one();
            Z = E::zero();
            return;
        }
        X = x * zz.sqr();
        Y = y * zzz.sqr();
        Z = zzz;
    }
};

} /* namespace g16gpu */

#endif
