/* g16: a Groth16 zk-SNARK prover for BLS12-381 and BN254.
 *
 * This is the library's only public header. Every exported symbol starts
 * with g16_. Conventions (after libsecp256k1):
 *   - the context comes first, then outputs, then in/out, then inputs;
 *   - an array's length follows the array;
 *   - functions return g16_err; on failure the context's error callback is
 *     called and g16_ctx_last_error() holds a one-line message.
 * No function aborts the process or lets a C++ exception escape.
 */
#ifndef G16_H
#define G16_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define G16_API __attribute__((visibility("default")))
#define G16_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define G16_API
#define G16_WARN_UNUSED_RESULT
#endif

/* ---- errors -------------------------------------------------------------- */

typedef enum g16_err {
    G16_OK = 0,
    G16_ERR_INVALID_ARG,     /* a bad argument at the API (NULL, out of range) */
    G16_ERR_NOMEM,           /* allocation failed */
    G16_ERR_IO,              /* open/read/write/mmap failed */
    G16_ERR_TRUNCATED,       /* input ends before its declared contents */
    G16_ERR_FORMAT,          /* malformed input: bad magic, section, length, JSON */
    G16_ERR_NOT_CANONICAL,   /* field element encoding >= modulus */
    G16_ERR_NOT_ON_CURVE,    /* point does not satisfy the curve equation */
    G16_ERR_NOT_IN_SUBGROUP, /* point on the curve but not of prime order r */
    G16_ERR_WRONG_CURVE,     /* input belongs to the other curve / other prime */
    G16_ERR_SIZE_MISMATCH,   /* e.g. witness length differs from the key's */
    G16_ERR_UNSUPPORTED,     /* valid input that g16 does not handle */
    G16_ERR_INVALID_PROOF,   /* a proof failed verification */
    G16_ERR_DEVICE,          /* a GPU call failed (message has call@file:line) */
    G16_ERR_NO_DEVICE,       /* a GPU was requested but none is usable */
    G16_ERR_CANCELLED,
    G16_ERR_TIMEOUT,
    G16_ERR_INTERNAL         /* a broken invariant: a bug in g16 */
} g16_err;

/* Returns a static, human-readable name such as "not on curve". */
G16_API const char *g16_err_str(g16_err err);

/* ---- curves -------------------------------------------------------------- */

typedef enum g16_curve {
    G16_CURVE_BN254 = 0,     /* alt_bn128, snarkjs "bn128" */
    G16_CURVE_BLS12_381 = 1  /* snarkjs "bls12381" */
} g16_curve;

/* "bn254" / "bls12-381". */
G16_API const char *g16_curve_name(g16_curve curve);
/* Accepts bn254, bn128, alt_bn128, bls12-381, bls12_381, bls12381.
 * Returns G16_OK or G16_ERR_INVALID_ARG. */
G16_API g16_err g16_curve_from_name(g16_curve *curve, const char *name);

/* ---- context ------------------------------------------------------------- */

typedef struct g16_ctx g16_ctx;

/* Called on every error reported through a context, with the code and a
 * one-line message. Runs on the thread that hit the error. */
typedef void (*g16_error_cb)(g16_err err, const char *msg, void *user);

typedef struct g16_ctx_opts {
    int threads;             /* CPU threads; 0 = all online CPUs */
    g16_error_cb error_cb;   /* optional */
    void *error_cb_user;
} g16_ctx_opts;

/* Creates a context. opts may be NULL for defaults. Returns NULL only when
 * memory or threads cannot be had. */
G16_API g16_ctx *g16_ctx_create(const g16_ctx_opts *opts);
G16_API void g16_ctx_destroy(g16_ctx *ctx);
G16_API int g16_ctx_threads(const g16_ctx *ctx);

/* Copies the last error message reported through ctx into buf (always
 * NUL-terminated) and returns its code. Thread-safe. */
G16_API g16_err g16_ctx_last_error(g16_ctx *ctx, char *buf, size_t buf_len);

/* ---- self-check ---------------------------------------------------------- */

/* Runs a quick arithmetic self-check on both curves (field, group law,
 * pairing bilinearity). Writes a short human-readable summary into buf.
 * Returns G16_OK or G16_ERR_INTERNAL. */
G16_API g16_err g16_selfcheck(g16_ctx *ctx, char *buf, size_t buf_len) G16_WARN_UNUSED_RESULT;

G16_API const char *g16_version(void);

#ifdef __cplusplus
}
#endif
#endif
