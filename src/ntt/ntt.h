/* NTT layer: number-theoretic transforms over Fr of BN254 and BLS12-381.
 *
 * Domains are powers of two, n = 2^k with k <= s (s = 28 for BN254, 32 for
 * BLS12-381). Roots of unity follow ffjavascript/snarkjs (ntt_constants.h):
 * omega = w[k], w[s] = 5^t with r-1 = 2^s t, w[i] = w[i+1]^2.
 *
 * Definitions (all arrays hold Montgomery-form elements, length n):
 *   forward:  A[j] = sum_i a[i] * omega^(i*j)           (coefficients -> values)
 *   inverse:  a[i] = n^-1 * sum_j A[j] * omega^(-i*j)    (values -> coefficients)
 *   coset forward with shift g:  A[j] = P(g * omega^j), P(X) = sum_i a[i] X^i
 *   coset inverse with shift g:  the a with P(g * omega^j) = A[j]
 *
 * Orders. ntt_order names the (input, output) order of the array; "R" means
 * bit-reversed: the element of index i is stored at position rev_k(i).
 *   NTT_NN  natural in, natural out (one bit-reversal pass)
 *   NTT_NR  natural in, bit-reversed out (DIF network, no permutation)
 *   NTT_RN  bit-reversed in, natural out (DIT network, no permutation)
 *   NTT_RR  bit-reversed in and out (one bit-reversal pass)
 * This applies to every entry point: for the coset ones the input of a
 * forward transform is the coefficient vector, its output the values.
 *
 * Algorithm: radix-2 in place for n <= 2^NTT_DIRECT_LOG; above that the
 * four-step (Bailey) split n = n1*n2 with column transforms of size n1 run in
 * a gathered per-task buffer, the twiddle omega^(i1*i2) folded into the
 * column pass (with the inverse's n^-1; the n-element twiddle matrix is cached
 * for n <= 2^NTT_FULL_TW_MAX_LOG), and in-place row transforms of size n2. The DIF form outputs exactly the bit-reversed order, so no transpose is
 * needed. Work is spread over the context's pool. Twiddle tables (O(sqrt n)
 * per domain) are cached in ctx->cache[G16_CACHE_NTT], built under ctx->lock;
 * concurrent calls on one context are safe.
 *
 * Batched products: while g16_field_ifma_active() (AVX-512 IFMA, docs/field.md)
 * the butterfly stages, the four-step twiddles and the coset scaling go
 * through the field layer's batched kernels (<fr>_bfly_*_batch,
 * <fr>_mul_batch) instead of one <fr>_mul at a time; the results are the
 * same bits (ntt_set_batch_mul turns it off per context, for tests).
 *
 * Errors: G16_ERR_INVALID_ARG (NULL ctx or array with n > 0, bad order),
 * G16_ERR_UNSUPPORTED (k above the field's two-adicity), G16_ERR_NOMEM. */
#ifndef G16_NTT_H
#define G16_NTT_H

#include "../field/field.h"
#include "../util/ctx.h"
#include "ntt_constants.h"

typedef enum ntt_order { NTT_NN = 0, NTT_NR = 1, NTT_RN = 2, NTT_RR = 3 } ntt_order;

/* Transforms of size <= 2^NTT_DIRECT_LOG run as one radix-2 pass on the
 * calling thread (see docs/ntt-msm.md for the measurement). */
#ifndef NTT_DIRECT_LOG
#define NTT_DIRECT_LOG 10
#endif
/* Up to this size the four-step twiddle matrix (n elements) is cached per
 * domain and direction, saving one multiplication per element per transform;
 * above it the twiddles are generated per column (O(sqrt n) memory). */
#define NTT_FULL_TW_MAX_LOG 22

#define G16_NTT_DECLARE(F)                                                                     \
    /* Largest supported log2 domain size (the two-adicity s). */                              \
    unsigned ntt_##F##_max_log(void);                                                          \
    /* r = w[k], the primitive 2^k-th root of unity of the snarkjs convention;                 \
     * returns 0 (r untouched) if k > s. */                                                    \
    int ntt_##F##_root(F *r, unsigned k);                                                      \
    g16_err ntt_##F##_forward(g16_ctx *ctx, F *a, unsigned log_n, ntt_order ord);              \
    g16_err ntt_##F##_inverse(g16_ctx *ctx, F *a, unsigned log_n, ntt_order ord);              \
    g16_err ntt_##F##_coset_forward(g16_ctx *ctx, F *a, unsigned log_n, const F *g,            \
                                    ntt_order ord);                                            \
    g16_err ntt_##F##_coset_inverse(g16_ctx *ctx, F *a, unsigned log_n, const F *g,            \
                                    ntt_order ord);                                            \
    /* snarkjs's odd-coset step: a holds e[i] = P(omega^i), deg P < n, natural                 \
     * order; on return a[i] = P(g * omega^i) with g = w[log_n + 1], natural                   \
     * order. Same as inverse(NN), a[j] *= g^j, forward(NN), in two passes and                 \
     * no permutation. Needs log_n < s. */                                                     \
    g16_err ntt_##F##_odd_coset_from_evals(g16_ctx *ctx, F *a, unsigned log_n);                \
    /* In-place bit-reversal permutation of 2^log_n elements (its own inverse). */             \
    g16_err ntt_##F##_bitrev(g16_ctx *ctx, F *a, unsigned log_n);

/* Enables (default) or disables the cached twiddle matrix on ctx (tests use
 * it to exercise the per-column path of large sizes). */
g16_err ntt_set_full_twiddles(g16_ctx *ctx, int on);
/* Enables (default) or disables on ctx the batched twiddle and scaling
 * products (<fr>_mul_batch, the AVX-512 IFMA kernel), which transforms use
 * only while g16_field_ifma_active(); off, or without IFMA, every product is
 * the scalar <fr>_mul. Both give the same bits (tests compare them). */
g16_err ntt_set_batch_mul(g16_ctx *ctx, int on);

G16_NTT_DECLARE(bn254_fr)
G16_NTT_DECLARE(bls381_fr)

/* rev_k(i): the low k bits of i reversed (k <= 32). */
static inline uint32_t ntt_bitrev32(uint32_t x, unsigned k) {
    if (k == 0)
        return 0;
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = __builtin_bswap32(x);
    return x >> (32 - k);
}

#endif
