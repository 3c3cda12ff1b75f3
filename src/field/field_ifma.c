/* Batched Montgomery multiplication, <f>_mul_batch (declared in
 * field_impl.h): a loop of the scalar <f>_mul everywhere, and on x86-64 an
 * AVX-512 IFMA kernel (ifma_impl.c.h) chosen at run time by g16_field_ifma
 * (cpu.c). The IFMA code is compiled with function-level target attributes,
 * so the rest of the build keeps the baseline ISA; nothing here runs an
 * AVX-512 instruction unless the CPU check passed (or a test that checked
 * g16_field_ifma_supported() calls <f>_mul_batch_ifma). */
#include "field.h"

#if G16_FIELD_ASM_X86
#include <immintrin.h>

#define G16_IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512vl")))
#define G16_IFMA_INLINE static inline G16_IFMA_TARGET __attribute__((always_inline))

typedef __m512i v8;

/* Shifts of each lane by a count n that may be negative (the other way) or
 * reach 64 or more (result 0): x * 2^n, truncated to 64 bits, floor for
 * n < 0. The counts are compile-time constants after unrolling. */
G16_IFMA_INLINE v8 ifma_shift(v8 x, int n) {
    return n >= 0 ? _mm512_sllv_epi64(x, _mm512_set1_epi64(n)) : _mm512_srlv_epi64(x, _mm512_set1_epi64(-n));
}

/* 8x8 transpose of 64-bit words: c[j] lane e = r[e] lane j. Three stages:
 * unpacklo/hi interleave words of row pairs within 128-bit lanes, then two
 * rounds of shuffle_i64x2 gather 128-bit lanes (0x88 takes lanes 0,2 of each
 * source, 0xdd lanes 1,3). Columns the caller does not use are dead code
 * after inlining. */
G16_IFMA_INLINE void ifma_transpose(v8 c[8], const v8 r[8]) {
    v8 u[8], s[8];
    for (int i = 0; i < 4; i++) {
        u[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);     /* words 0,2,4,6 */
        u[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]); /* words 1,3,5,7 */
    }
    /* s[4h + 2q + o]: rows 4q..4q+3, word parity h, o=0 words {0,4}+h, o=1 {2,6}+h */
    for (int h = 0; h < 2; h++)
        for (int q = 0; q < 2; q++) {
            s[4 * h + 2 * q] = _mm512_shuffle_i64x2(u[4 * q + h], u[4 * q + 2 + h], 0x88);
            s[4 * h + 2 * q + 1] = _mm512_shuffle_i64x2(u[4 * q + h], u[4 * q + 2 + h], 0xdd);
        }
    for (int h = 0; h < 2; h++)
        for (int o = 0; o < 2; o++) {
            c[h + 2 * o] = _mm512_shuffle_i64x2(s[4 * h + o], s[4 * h + 2 + o], 0x88);
            c[h + 2 * o + 4] = _mm512_shuffle_i64x2(s[4 * h + o], s[4 * h + 2 + o], 0xdd);
        }
}
#endif

#define F bn254_fp
#define F_UP BN254_FP
#define F_N 4
#include "ifma_impl.c.h"
#undef F
#undef F_UP
#undef F_N

#define F bn254_fr
#define F_UP BN254_FR
#define F_N 4
#include "ifma_impl.c.h"
#undef F
#undef F_UP
#undef F_N

#define F bls381_fp
#define F_UP BLS381_FP
#define F_N 6
#include "ifma_impl.c.h"
#undef F
#undef F_UP
#undef F_N

#define F bls381_fr
#define F_UP BLS381_FR
#define F_N 4
#include "ifma_impl.c.h"
#undef F
#undef F_UP
#undef F_N
