/* g16 testing interface: functions for tests and tools only, never for
 * production proofs. Exported by libg16 like g16.h's functions (same g16_
 * prefix), kept out of g16.h so that no application includes them by
 * accident. */
#ifndef G16_TESTING_H
#define G16_TESTING_H

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TESTS ONLY: proves w against key with the given r and s instead of fresh
 * random ones. The proof is deterministic and NOT zero-knowledge: whoever
 * knows r and s learns about the witness from it.
 * In: r_le, s_le: 32-byte little-endian integers below the group order.
 * Out: *out: the proof (free with g16_result_free), NULL on failure.
 * Runs on the CPU, without the verify-before-return check (the same three
 * stages as g16_prove's CPU path, so the bytes match any backend's for the
 * same r, s). Thread safety as g16_prove's.
 * Returns: G16_OK; G16_ERR_NOT_CANONICAL when r or s is not below the
 * order; g16_prove's input errors. */
G16_API g16_err g16_prove_with_rs_insecure(g16_ctx *ctx, g16_result **out, g16_key *key,
                                           const g16_witness *w, const uint8_t r_le[32],
                                           const uint8_t s_le[32]) G16_WARN_UNUSED_RESULT
    G16_NONNULL(1, 2, 3, 4, 5, 6);

#ifdef __cplusplus
}
#endif
#endif
