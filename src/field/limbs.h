/* Multi-limb Montgomery arithmetic, generic over the modulus.
 *
 * Every routine takes the modulus p, its limb count n and, where needed,
 * n0 = -p^-1 mod 2^64, in the manner of blst's mul_mont_n(). Per-field code
 * (field.h) calls these with compile-time constants, so the compiler unrolls
 * each loop for 4 or 6 limbs. Values are little-endian arrays of 64-bit limbs.
 *
 * Contract: inputs are fully reduced (< p) and outputs are fully reduced.
 * All routines run in time independent of the values (no secret branches);
 * their timing depends only on n. Requires p < 2^(64n-1) with the top limb
 * below 2^63-1 (true for every field here), which lets the CIOS loop skip the
 * extra carry word (the "no-carry" optimisation of gnark-crypto).
 */
#ifndef G16_FIELD_LIMBS_H
#define G16_FIELD_LIMBS_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t limb_t;
typedef unsigned __int128 dlimb_t;

#define G16_MAX_LIMBS 6

/* r = a - b over n limbs; returns the borrow (0 or 1). */
static inline limb_t limbs_sub(limb_t *r, const limb_t *a, const limb_t *b, size_t n) {
    limb_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t d = (dlimb_t)a[i] - b[i] - borrow;
        r[i] = (limb_t)d;
        borrow = (limb_t)(d >> 64) & 1;
    }
    return borrow;
}

/* r = a + b over n limbs; returns the carry. */
static inline limb_t limbs_add(limb_t *r, const limb_t *a, const limb_t *b, size_t n) {
    limb_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t s = (dlimb_t)a[i] + b[i] + carry;
        r[i] = (limb_t)s;
        carry = (limb_t)(s >> 64);
    }
    return carry;
}

/* r = mask ? a : b, mask all-ones or zero. */
static inline void limbs_select(limb_t *r, limb_t mask, const limb_t *a, const limb_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* r = a if a < p, else a - p. Requires a < 2p. */
static inline void limbs_reduce_once(limb_t *r, const limb_t *a, const limb_t *p, size_t n) {
    limb_t t[G16_MAX_LIMBS];
    limb_t borrow = limbs_sub(t, a, p, n);
    limbs_select(r, (limb_t)0 - borrow, a, t, n);
}

/* r = a + b mod p. */
static inline void mod_add(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p, size_t n) {
    limb_t t[G16_MAX_LIMBS];
    limbs_add(t, a, b, n); /* no carry out: a + b < 2p < 2^(64n) */
    limbs_reduce_once(r, t, p, n);
}

/* r = a - b mod p. */
static inline void mod_sub(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p, size_t n) {
    limb_t t[G16_MAX_LIMBS], u[G16_MAX_LIMBS];
    limb_t borrow = limbs_sub(t, a, b, n);
    limbs_add(u, t, p, n);
    limbs_select(r, (limb_t)0 - borrow, u, t, n);
}

/* r = -a mod p (0 maps to 0). */
static inline void mod_neg(limb_t *r, const limb_t *a, const limb_t *p, size_t n) {
    limb_t t[G16_MAX_LIMBS], nz = 0;
    for (size_t i = 0; i < n; i++)
        nz |= a[i];
    limb_t mask = (limb_t)0 - (limb_t)(nz != 0);
    limbs_sub(t, p, a, n);
    for (size_t i = 0; i < n; i++)
        r[i] = t[i] & mask;
}

/* r = a * b * R^-1 mod p, R = 2^(64n). CIOS (Koc, Acar, Kaliski 1996) with
 * the no-carry variant: t never exceeds n limbs because p's top bit is free. */
static inline void mont_mul(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p, limb_t n0,
                            size_t n) {
    limb_t t[G16_MAX_LIMBS] = {0};
    for (size_t i = 0; i < n; i++) {
        dlimb_t ab = (dlimb_t)a[0] * b[i] + t[0];
        limb_t A = (limb_t)(ab >> 64);
        limb_t lo = (limb_t)ab;
        limb_t m = lo * n0;
        dlimb_t mp = (dlimb_t)m * p[0] + lo;
        limb_t C = (limb_t)(mp >> 64);
        for (size_t j = 1; j < n; j++) {
            ab = (dlimb_t)a[j] * b[i] + t[j] + A;
            A = (limb_t)(ab >> 64);
            mp = (dlimb_t)m * p[j] + (limb_t)ab + C;
            C = (limb_t)(mp >> 64);
            t[j - 1] = (limb_t)mp;
        }
        t[n - 1] = C + A;
    }
    limbs_reduce_once(r, t, p, n);
}

/* a == b over n limbs, constant time; returns 1 or 0. */
static inline int limbs_eq(const limb_t *a, const limb_t *b, size_t n) {
    limb_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

static inline int limbs_is_zero(const limb_t *a, size_t n) {
    limb_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i];
    return d == 0;
}

/* a < b as integers (variable time is fine: used on public encodings). */
static inline int limbs_lt_vartime(const limb_t *a, const limb_t *b, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* x86-64 fast path (limbs_x86.h): MULX/ADCX/ADOX Montgomery multiplication
 * for 4 and 6 limbs, used when the CPU has BMI2 and ADX; modular addition
 * and subtraction in baseline x86-64 asm, always used on x86-64. g16_field_adx is
 * the one CPU-feature flag: 0 until a load-time constructor (cpu.c) sets it
 * from CPUID, written once, read-only afterwards, so reading it needs no
 * synchronisation. 0 means the portable code above is used, so the library
 * stays correct even if something runs before the constructor. Setting the
 * environment variable G16_FIELD_ASM=0 keeps it 0 (tests of the portable
 * path). Build with -DG16_NO_ASM to leave the asm out entirely; CUDA
 * translation units (nvcc) always use the portable code. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(G16_NO_ASM) && !defined(__CUDACC__)
#define G16_FIELD_ASM_X86 1
extern int g16_field_adx;
/* -DG16_FIELD_ASSUME_ADX compiles the check out (for machines known to have
 * BMI2+ADX; measured gain in docs/field.md). */
#ifdef G16_FIELD_ASSUME_ADX
#define G16_FIELD_USE_ADX() 1
#else
#define G16_FIELD_USE_ADX() __builtin_expect(g16_field_adx, 1)
#endif
#include "limbs_x86.h"
#else
#define G16_FIELD_ASM_X86 0
#endif

/* 1 when field multiplications use the x86-64 asm path. */
int g16_field_asm_active(void);

/* AVX-512 IFMA batch multiplication (<f>_mul_batch, field_ifma.c). On x86-64
 * g16_field_ifma is its dispatch flag, set like g16_field_adx by the
 * load-time constructor of cpu.c (written once before main(), read-only
 * afterwards): 1 when the CPU has AVX-512F, AVX-512IFMA and AVX-512VL and
 * the OS saves the ZMM and opmask state (XCR0), unless the environment sets
 * G16_FIELD_ASM=noifma or G16_FIELD_ASM=0. 0 means the batch functions loop
 * over the scalar <f>_mul. */
#if G16_FIELD_ASM_X86
extern int g16_field_ifma;
#endif
/* 1 when <f>_mul_batch uses the IFMA kernels (the dispatch flag). */
int g16_field_ifma_active(void);
/* 1 when the CPU and OS support the IFMA kernels, whatever the environment
 * says (tests call <f>_mul_batch_ifma directly when this is 1). */
int g16_field_ifma_supported(void);

#endif
