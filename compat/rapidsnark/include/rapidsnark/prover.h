/* rapidsnark's prover C ABI (iden3/rapidsnark src/prover.h, v0.0.8,
 * commit 81eddf1), implemented by librapidsnark_g16 over g16 (docs/rapidsnark.md).
 * The same function names, argument lists, codes and buffer rules, so that
 * code written for rapidsnark builds and links against this library.
 *
 * Buffers: every *_size argument of a prove call is in/out. On entry it is
 * the capacity of its buffer in bytes; on PROVER_OK it is the length of the
 * JSON text written (the terminating NUL not counted); on
 * PROVER_ERROR_SHORT_BUFFER both sizes hold the capacities needed (NUL
 * counted) and nothing is written to the buffers. error_msg (may be NULL,
 * or error_msg_maxsize 0) receives a NUL-terminated one-line message on
 * every failure.
 *
 * Output: the proof as compact JSON with sorted keys,
 *   {"pi_a":["x","y","1"],"pi_b":[["x0","x1"],["y0","y1"],["1","0"]],"pi_c":["x","y","1"],"protocol":"groth16"}
 * and the public signals as a compact JSON array of decimal strings.
 *
 * Curves: BN254 and BLS12-381 keys and witnesses (rapidsnark: BN254 only).
 * Thread safety: a prover object may be used by several threads at once. */
#ifndef G16_RAPIDSNARK_PROVER_H
#define G16_RAPIDSNARK_PROVER_H

#ifdef __cplusplus
extern "C" {
#endif

#define PROVER_OK                     0x0
#define PROVER_ERROR                  0x1 /* any other failure: see error_msg */
#define PROVER_ERROR_SHORT_BUFFER     0x2 /* a buffer is too small: sizes say what is needed */
#define PROVER_INVALID_WITNESS_LENGTH 0x3 /* the witness's value count differs from the key's nVars */

/* The capacity a public-signals buffer needs for this key (82 bytes per
 * public signal, plus 4), from the .zkey's header in memory / in a file.
 * Returns PROVER_OK (*public_size set) or PROVER_ERROR (a bad key). */
int
groth16_public_size_for_zkey_buf(
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_public_size_for_zkey_file(
    const char          *zkey_fname,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* A proof-buffer capacity that holds any proof of either curve. */
void
groth16_proof_size(
    unsigned long long *proof_size);

/* Makes a prover object holding a loaded key: from .zkey bytes (copied; the
 * buffer may be freed afterwards) or a .zkey file (memory-mapped).
 * *prover_object: free with groth16_prover_destroy.
 * Returns PROVER_OK or PROVER_ERROR. */
int
groth16_prover_create(
    void                **prover_object,
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_prover_create_zkey_file(
    void                **prover_object,
    const char          *zkey_file_path,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* Proves the .wtns bytes with the prover object's key.
 * Returns PROVER_OK, PROVER_ERROR_SHORT_BUFFER, PROVER_INVALID_WITNESS_LENGTH,
 * or PROVER_ERROR (NULL argument, malformed witness, witness of another
 * curve, a witness that does not satisfy the circuit). */
int
groth16_prover_prove(
    void                *prover_object,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* Frees a prover object (NULL: no-op). No call may be using it. */
void
groth16_prover_destroy(void *prover_object);

/* One proof from .zkey bytes / a .zkey file: groth16_prover_create (or
 * _create_zkey_file), groth16_prover_prove, groth16_prover_destroy; the
 * same codes. */
int
groth16_prover(
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_prover_zkey_file(
    const char          *zkey_file_path,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif
