/* libg16_supraseal: the C entry points of supraseal-c2 (the CUDA Groth16
 * prover that bellperson's `cuda-supraseal` feature links), implemented over
 * g16's public API (include/g16.h), so that a program built against
 * supraseal-c2 can link this library instead (docs/supraseal.md).
 *
 * The names and argument lists are supraseal-c2's. Its C++ functions are
 * declared extern "C", so their symbols are the plain names below; its
 * `SRS&` parameters are pointers at the ABI level, and its by-value
 * results (sppark's RustError::by_value, SRS::by_value) are the small
 * structs below, returned in registers on x86-64 and AArch64 alike.
 *
 * Types (LP64 layouts; the library checks them against g16.h's):
 *   supraseal_error       {int32 code; char *message}: code 0 and message
 *                         NULL on success; else a nonzero g16_err and a
 *                         one-line message from malloc (strdup) that the
 *                         caller frees with free(), as supraseal-c2's Rust
 *                         binding does.
 *   supraseal_srs         an SRS handle: one pointer, NULL when empty.
 *   supraseal_fr          a BLS12-381 scalar as blst_fr (4 x u64
 *                         little-endian, Montgomery form, below r).
 *   supraseal_assignment  one pre-synthesized partition (17 eight-byte
 *                         words), supraseal-c2's Assignment<fr_t>.
 *   supraseal_proof       384 bytes: A (G1 affine x, y), B (G2 affine
 *                         x.c0, x.c1, y.c0, y.c1), C (G1 affine x, y), each
 *                         coordinate 6 x u64 little-endian Montgomery form;
 *                         a point at infinity is all zeros.
 *
 * ABI choice: supranational/supra_seal's generate_groth16_proofs_c has six
 * parameters, the curio fork's (filecoin-project/curio extern/supraseal-c2)
 * eight (a GPU mutex and a GPU index appended). One symbol cannot be both:
 * the library is built with the six-parameter form unless CMake's
 * G16_SUPRASEAL_CURIO_ABI is on, which also defines
 * G16_SUPRASEAL_CURIO_ABI=1 for users of this header. The curio fork's
 * other functions (the start / finalize split, the GPU mutex) do not clash
 * and are always exported. */
#ifndef G16_SUPRASEAL_H
#define G16_SUPRASEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct supraseal_error {
    int32_t code;
    char *message;
} supraseal_error;

typedef struct supraseal_srs {
    const void *ptr;
} supraseal_srs;

typedef struct supraseal_fr {
    uint64_t l[4];
} supraseal_fr;

typedef struct supraseal_assignment {
    /* density bitmaps: u64 words, bit i = (words[i / 64] >> (i % 64)) & 1 */
    const uint64_t *a_aux_density; /* aux variables in A */
    size_t a_aux_bit_len;          /* = the key's aux count */
    size_t a_aux_popcount;
    const uint64_t *b_inp_density; /* inputs in B */
    size_t b_inp_bit_len;          /* = the key's input count (the constant one included) */
    size_t b_inp_popcount;
    const uint64_t *b_aux_density; /* aux variables in B */
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    /* the rows' A, B, C evaluations: constraints, then one row per input */
    const supraseal_fr *a, *b, *c;
    size_t abc_size;               /* rows given (<= the domain; the rest are zero) */
    const supraseal_fr *inp_assignment_data; /* input 0 is one */
    size_t inp_assignment_size;
    const supraseal_fr *aux_assignment_data;
    size_t aux_assignment_size;
} supraseal_assignment;

typedef struct supraseal_proof {
    uint64_t a[2][6];
    uint64_t b[2][2][6];
    uint64_t c[2][6];
} supraseal_proof;

/* ---- SRS: a loaded .params key ----------------------------------------------
 * create_SRS loads the bellperson .params file at srs_path into *ret (whose
 * previous content is overwritten, not released: pass an empty handle).
 * Points are checked canonical and on the curve, and in the subgroup for
 * files up to 1 MiB (bellperson loads unchecked). cache true: handles for
 * the same path share one loaded key, kept by the library's cache until
 * evict_SRS; cache false: a key of this handle's own. On failure *ret is
 * left as it was. Thread-safe. */
supraseal_error create_SRS(supraseal_srs *ret, const char *srs_path, bool cache);
/* Removes srs's path from the cache (the key lives on while handles hold it). */
void evict_SRS(const supraseal_srs *srs);
/* Releases the handle (an empty one: no-op) and empties it; the key is freed
 * with its last handle (the cache's included). */
void drop_SRS(supraseal_srs *srs);
/* Another handle on the same key (an empty one for an empty srs). */
supraseal_srs clone_SRS(const supraseal_srs *srs);

/* ---- proofs -------------------------------------------------------------------
 * Proves num_circuits partitions with the key of srs: proofs[i] for
 * provers[i] with the blinding scalars r_s[i], s_s[i]. Every partition is
 * checked against the key first (bit lengths, popcounts, counts, abc_size,
 * canonical values) and every proof is verified against the key's vk
 * before return; a failure names the partition. Calls without a GPU mutex
 * are serialized by the library (as supraseal-c2 serializes them); calls
 * given one are serialized by it. num_circuits 0 succeeds and writes
 * nothing. */
#if defined(G16_SUPRASEAL_CURIO_ABI) && G16_SUPRASEAL_CURIO_ABI
/* curio's form: gpu_mtx from create_gpu_mutex or NULL; gpu_index: -1 or a
 * device index (see the start function). */
supraseal_error generate_groth16_proofs_c(const supraseal_assignment *provers, size_t num_circuits,
                                          const supraseal_fr *r_s, const supraseal_fr *s_s, supraseal_proof *proofs,
                                          supraseal_srs *srs, void *gpu_mtx, int gpu_index);
#else
supraseal_error generate_groth16_proofs_c(const supraseal_assignment *provers, size_t num_circuits,
                                          const supraseal_fr *r_s, const supraseal_fr *s_s, supraseal_proof *proofs,
                                          supraseal_srs *srs);
#endif

/* The curio fork's split. start proves (all of it: the pending handle
 * then holds the finished proofs, and nothing of provers, r_s, s_s is read
 * after it returns) and sets *pending_out; finalize writes the
 * num_circuits proofs into proofs and frees the handle (consumed, even on
 * error); destroy_pending_proof frees a handle that will not be finalized.
 * gpu_index: -1 lets g16 choose; >= 0 is accepted and g16 still chooses
 * (its assignment prover takes no device index). On failure *pending_out
 * is NULL. */
supraseal_error generate_groth16_proofs_start_c(const supraseal_assignment *provers, size_t num_circuits,
                                                const supraseal_fr *r_s, const supraseal_fr *s_s,
                                                supraseal_srs *srs, void *gpu_mtx, int gpu_index,
                                                void **pending_out);
supraseal_error finalize_groth16_proof_c(void *handle, supraseal_proof *proofs);
void destroy_pending_proof(void *handle);

/* A mutex for the gpu_mtx arguments (NULL when memory is short); free it
 * with destroy_gpu_mutex (NULL: no-op) once no call uses it. */
void *create_gpu_mutex(void);
void destroy_gpu_mutex(void *mtx);

#ifdef __cplusplus
}
#endif
#endif
