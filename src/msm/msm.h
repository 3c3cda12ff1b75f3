/* MSM layer: multi-scalar multiplication sum_i k_i * P_i on the CPU for
 * bn254_g1, bn254_g2, bls381_g1 and bls381_g2 (one template, msm_impl.c.h).
 *
 * Algorithm: Pippenger's bucket method with signed (Booth) digits. A scalar
 * k < 2^b (b = 254 BN254, 255 BLS12-381) is written k = sum_w d_w 2^(wc),
 *   d_w = bits[wc, wc+c) + bit[wc-1] - 2^c * bit[wc+c-1]  in [-2^(c-1), 2^(c-1)],
 * over ceil((b+1)/c) windows; each digit is computed on the fly from the
 * scalar (no digit array). Each window adds +-P_i into one of 2^(c-1)
 * buckets: XYZZ buckets with mixed additions for small c, affine buckets with
 * batched inversions (Montgomery's trick) for c >= 10, where that is cheaper;
 * the context's option msm.batch_affine (docs/config.md) turns the affine
 * buckets on at every c or off (XYZZ only, the window then planned with
 * XYZZ costs); the result is the same group element in every mode;
 * then reduces the buckets with running sums (2 additions per bucket);
 * windows are combined by Horner (c doublings each). Work items are (window, point range) pairs pulled by the context's
 * pool threads, each with its own buckets; (c, ranges) minimize a cost model
 * of the critical path (docs/ntt-msm.md has the measurements behind it).
 *
 * Scalars are canonical little-endian integers below r (g16_scalar); not
 * Montgomery form: use msm_<fr>_to_scalars to convert. Bases are affine; the
 * point at infinity (0, 0) is allowed anywhere, as are repeated points.
 *
 * {0,1} split: every entry point first classifies the scalars: zeros are
 * skipped, ones are summed by plain additions ("batch addition", one mixed
 * addition per one), and only the rest go through Pippenger, with the window
 * chosen from their count. Real witnesses are full of 0 and 1.
 *
 * Scratch: msm_<G>_scratch_size(ctx, n) bytes suffice for any call with at
 * most n scalars on ctx (and for the density form with n_scalars <= n). Pass
 * scratch = NULL to have the call allocate it once (outside the hot loop).
 * Nothing is allocated per point or per window. A scratch buffer must not be
 * shared by concurrent calls; calls on one ctx may run concurrently.
 *
 * Errors: G16_ERR_INVALID_ARG (NULL pointers with n > 0, scratch too small),
 * G16_ERR_NOT_CANONICAL (a scalar >= 2^bits(r); values in [r, 2^bits) are
 * reduced implicitly, since r P = O),
 * G16_ERR_SIZE_MISMATCH (density popcount != n_scalars), G16_ERR_NOMEM.
 * Everything here is variable time in the scalars and points (bucket choice,
 * skipped zeros, batched-inversion collisions): the timing depends on the
 * witness. Every prover in the ecosystem (snarkjs, rapidsnark, bellperson)
 * does the same; the prover is assumed to run where its timing is not
 * observed by an adversary. r and s never go through these functions. */
#ifndef G16_MSM_H
#define G16_MSM_H

#include "../curve/curve.h"
#include "../util/ctx.h"
#include "../util/progress.h"

#define G16_MSM_DECLARE(G)                                                                      \
    /* Scratch bytes for any MSM of up to n scalars on ctx. */                                  \
    size_t msm_##G##_scratch_size(const g16_ctx *ctx, size_t n);                                \
    /* out = sum_{i<n} scalars[i] * bases[i]. _vartime in the scalars (see above). */           \
    g16_err msm_##G(g16_ctx *ctx, G##_jac *out, const G##_affine *bases,                        \
                    const g16_scalar *scalars, size_t n, void *scratch, size_t scratch_len);    \
    /* msm_G reporting its progress: the current stage of prog (may be NULL)                   \
     * moves from pbase to pbase + punits as the Pippenger jobs finish                          \
     * (util/progress.h: on prog's owner thread only, rate-limited).                            \
     * Same result as msm_G. */                                                                 \
    g16_err msm_##G##_progress(g16_ctx *ctx, G##_jac *out, const G##_affine *bases,             \
                               const g16_scalar *scalars, size_t n, void *scratch,              \
                               size_t scratch_len, g16_progress *prog, uint64_t pbase,          \
                               uint64_t punits);                                                \
    /* Density form (Filecoin style). density is a bitmap over the n_bases bases,               \
     * bit i = (density[i / 8] >> (i % 8)) & 1 (LSB first). Scalar j pairs with                 \
     * the base at the position of the j-th SET bit (j = 0, 1, ...):                            \
     *   out = sum_{j < n_scalars} scalars[j] * bases[pos_j],                                   \
     * pos_0 < pos_1 < ... the set positions. The number of set bits must equal                 \
     * n_scalars (else G16_ERR_SIZE_MISMATCH); n_bases < 2^32. */                               \
    g16_err msm_##G##_density(g16_ctx *ctx, G##_jac *out, const G##_affine *bases,              \
                              size_t n_bases, const uint8_t *density,                           \
                              const g16_scalar *scalars, size_t n_scalars, void *scratch,       \
                              size_t scratch_len);                                              \
    /* Batch addition: out = sum of bases[i] over i < n with bit i of select set                \
     * (LSB first, as above), or of all n bases when select is NULL. */                         \
    g16_err msm_##G##_sum(g16_ctx *ctx, G##_jac *out, const G##_affine *bases, size_t n,        \
                          const uint8_t *select);                                               \
    /* Tuning/testing entry: window c (0 = automatic, else 1..MSM_MAX_WINDOW)                   \
     * and flags: MSM_SPLIT (the {0,1} split above; without it every nonzero                    \
     * scalar goes through Pippenger), MSM_NO_AFFINE (XYZZ buckets even where                   \
     * batch-affine ones would be used), MSM_FORCE_AFFINE (batch-affine at any                 \
     * c); either overrides msm.batch_affine. Allocates its own scratch. */                     \
    g16_err msm_##G##_tuned(g16_ctx *ctx, G##_jac *out, const G##_affine *bases,                \
                            const g16_scalar *scalars, size_t n, unsigned c, int flags);

#define MSM_MAX_WINDOW 20
#define MSM_AFFINE_MIN_C 10 /* batch-affine buckets from this window size on */
#define MSM_BATCH_CAP 1024  /* most batch-affine additions per flush (a quarter of the buckets if fewer) */
enum { MSM_SPLIT = 1, MSM_NO_AFFINE = 2, MSM_FORCE_AFFINE = 4 };

G16_MSM_DECLARE(bn254_g1)
G16_MSM_DECLARE(bn254_g2)
G16_MSM_DECLARE(bls381_g1)
G16_MSM_DECLARE(bls381_g2)

/* Window size the automatic choice makes for m Pippenger scalars on
 * `workers` threads, for a group whose scalars have `bits` bits and whose
 * affine points take pt_bytes (sizeof(G_affine)). */
unsigned msm_window_for(size_t m, int workers, unsigned bits, size_t pt_bytes);
/* The same under ctx's msm.batch_affine option (off: the XYZZ costs at
 * every window); ctx NULL: as msm_window_for. */
unsigned msm_window_for_ctx(g16_ctx *ctx, size_t m, int workers, unsigned bits, size_t pt_bytes);

/* out[i] = canonical integer of the Montgomery-form in[i], in parallel over
 * ctx's pool (ctx may be NULL: serial). out may alias in. */
void msm_bn254_fr_to_scalars(g16_ctx *ctx, g16_scalar *out, const bn254_fr *in, size_t n);
void msm_bls381_fr_to_scalars(g16_ctx *ctx, g16_scalar *out, const bls381_fr *in, size_t n);

#endif
