/* g16: a Groth16 zk-SNARK prover for BLS12-381 and BN254.
 *
 * This is the library's only public header. Every exported symbol starts
 * with g16_. Conventions (after libsecp256k1):
 *   - the context comes first, then outputs, then in/out, then inputs;
 *   - an array's length follows the array;
 *   - functions return g16_err (G16_WARN_UNUSED_RESULT: check it, or say
 *     that it is ignored on purpose with `(void)!call(...)`); on
 *     failure the context's error callback is called, g16_ctx_last_error()
 *     holds a one-line message, and g16_last_error() holds it for the
 *     calling thread;
 *   - G16_NONNULL marks the pointer arguments that may not be NULL;
 *   - each function's block says what it does, its arguments, who owns what
 *     it returns, whether it is thread-safe, and what it returns.
 * Test-only functions are in g16_testing.h.
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
/* G16_NONNULL(i, ...): the arguments at those (1-based) positions must not
 * be NULL; the compiler warns where a caller passes NULL. The library itself
 * is built with G16_NO_NONNULL, so that its own checks stay (a NULL that
 * slips through still gets G16_ERR_INVALID_ARG, never a crash); a test that
 * passes NULL on purpose defines it too. */
#if defined(__GNUC__) && !defined(G16_NO_NONNULL)
#define G16_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#else
#define G16_NONNULL(...)
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
    G16_ERR_INTERNAL,        /* a broken invariant: a bug in g16 */
    G16_ERR_WITNESS_GEN      /* a witness generator failed: its exit status or signal, the time or
                              * memory limit, no or a malformed witness; the message names the
                              * generator and the input, with the last lines of its output */
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
/* The curve of a name: bn254, bn128, alt_bn128, bls12-381, bls12_381 or
 * bls12381 (any case) into *curve. Thread-safe. Returns G16_OK, or
 * G16_ERR_INVALID_ARG for another name (recorded for g16_last_error). */
G16_API g16_err g16_curve_from_name(g16_curve *curve, const char *name)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);

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

/* Sets *opts to the defaults (all online CPUs, no callback). Start from it
 * rather than from a brace initializer, so that fields appended later get
 * their defaults. opts may not be NULL. */
G16_API void g16_ctx_opts_init(g16_ctx_opts *opts) G16_NONNULL(1);

/* Creates a context: a thread pool of opts->threads threads, the error
 * callback, caches (NTT twiddles, GPU devices). opts may be NULL for the
 * defaults (all online CPUs, no callback). Ownership: the caller's; free
 * with g16_ctx_destroy after everything made with it (keys, engines).
 * Thread safety: a context may be shared by threads; its functions are
 * thread-safe. The context's options (below) start at their defaults
 * overridden by the environment. Returns NULL when memory or threads cannot
 * be had, or when an option's environment variable holds an invalid value:
 * g16_ctx_create_ex says which, and g16_env_check checks the environment
 * alone. */
G16_API g16_ctx *g16_ctx_create(const g16_ctx_opts *opts);
/* The same with the reason for a failure.
 * Returns: G16_OK (*ctx set), G16_ERR_INVALID_ARG (an invalid environment
 *          value: msg names the variable, the option and the rule, e.g.
 *          "G16_GPU_MSM_C=40: gpu.msm_window_bits: 40 is out of range: 0 or
 *          [4, 22]"), G16_ERR_NOMEM.
 * Out: ctx; msg (may be NULL): a NUL-terminated line, "" on success. */
G16_API g16_err g16_ctx_create_ex(g16_ctx **ctx, const g16_ctx_opts *opts, char *msg, size_t msg_len)
    G16_WARN_UNUSED_RESULT;
/* Checks every option's environment variable (docs/config.md) without
 * creating anything; programs call it first and print msg on failure.
 * Returns: G16_OK or G16_ERR_INVALID_ARG (msg as g16_ctx_create_ex's). */
G16_API g16_err g16_env_check(char *msg, size_t msg_len);
/* Frees ctx (NULL: no-op); nothing may use it any more. */
G16_API void g16_ctx_destroy(g16_ctx *ctx);
/* The context's thread count (0 for NULL). */
G16_API int g16_ctx_threads(const g16_ctx *ctx);

/* The last error reported through ctx, by any thread.
 * Out: buf (may be NULL when buf_len is 0): its one-line message, always
 *      NUL-terminated, truncated to buf_len - 1 bytes.
 * Returns: its code (G16_OK when none yet); G16_ERR_INVALID_ARG for a NULL
 * ctx. Thread-safe; with several threads on one context prefer
 * g16_last_error, which is per thread. */
G16_API g16_err g16_ctx_last_error(g16_ctx *ctx, char *buf, size_t buf_len) G16_NONNULL(1);

/* The last error of a g16 call on the calling thread (whatever its context,
 * also calls without one): its code and, in buf, its one-line message
 * (always NUL-terminated when buf_len > 0; buf may be NULL when buf_len is
 * 0). A successful call does not clear it. Returns G16_OK when this thread
 * has had no error. Thread-safe (thread-local). */
G16_API g16_err g16_last_error(char *buf, size_t buf_len);

/* ---- progress ------------------------------------------------------------
 * Long operations (g16_prove, g16_prove_batch; the CLI's setup and
 * synthesis) report their progress through an optional callback in their
 * options. It is called on the thread that made the call, never on a pool
 * thread and never concurrently for one call: at each stage boundary, and
 * inside long loops (the MSMs, setup's fixed-base multiplications) at most
 * every 50 ms, never per point. stage is a static string ("synthesis",
 * "ntt", "msm", "verify", ...); within one stage total is fixed and done
 * runs from 0 up to total without decreasing (the stages and their units:
 * docs/groth16.md "Progress"). A stage may end early when the call fails. The callback must
 * not call back into the library on the same objects; it does not change
 * what is computed. */
typedef void (*g16_progress_fn)(void *user, const char *stage, uint64_t done, uint64_t total);

/* ---- options (docs/config.md) -----------------------------------------------
 * One table of typed options, each with a config key ("gpu.msm_window_bits"),
 * an environment variable ("G16_GPU_MSM_C"), bounds, a default and a class
 * (operational, or tuning/debug: speed only, never results). A context holds
 * one value per option and where it came from. Objects take their options
 * when they are created (a GPU context, an engine): set options first. */
typedef enum g16_option_source {
    G16_OPTION_DEFAULT = 0,
    G16_OPTION_ENV = 1,
    G16_OPTION_CONFIG = 2, /* a configuration file (g16d) or an API caller */
    G16_OPTION_FLAG = 3    /* a command-line flag */
} g16_option_source;

/* Sets option `name` from its text form (bool: 0/1, false/true, off/on,
 * no/yes; enum: one of its names). Thread-safe.
 * Returns: G16_OK, or G16_ERR_INVALID_ARG for an unknown name or a value
 *          of the wrong type or out of bounds, ctx's last error then saying
 *          so ("gpu.msm_window_bits: 40 is out of range: 0 or [4, 22]");
 *          the option keeps its value. */
G16_API g16_err g16_ctx_set_option(g16_ctx *ctx, const char *name, const char *value, g16_option_source source)
    G16_WARN_UNUSED_RESULT;
/* The option's value as text into buf (NUL-terminated; secrets too: the
 * JSON dumps hide them) and its source (may be NULL).
 * Returns: G16_OK, or G16_ERR_INVALID_ARG for an unknown name. */
G16_API g16_err g16_ctx_get_option(g16_ctx *ctx, const char *name, char *buf, size_t buf_len,
                                   g16_option_source *source);
/* Every option's effective value as a JSON object keyed by name:
 * {"gpu.sync": {"value": "auto", "source": "default"}, ...}; full = 1 adds
 * "env", "type", "class", "default", "doc" and the bounds ("min"/"max" or
 * "values"). ctx NULL: the defaults. *json malloc'd (g16_free).
 * Returns: G16_OK or G16_ERR_NOMEM. */
G16_API g16_err g16_ctx_options_json(g16_ctx *ctx, char **json, int full) G16_WARN_UNUSED_RESULT;

/* The table, for help texts: options 0 .. g16_option_count() - 1. */
typedef struct g16_option_info {
    const char *name;       /* config key */
    const char *env;        /* environment variable */
    const char *type;       /* "bool", "int", "uint64", "enum", "string" */
    const char *doc;        /* one line */
    int operational;        /* 1: for production use; 0: tuning or debug */
    char default_value[64]; /* text form */
    char range[128];        /* "4..22", "0 or 4..22", "auto, spin, yield, block", "true, false", "" */
} g16_option_info;
G16_API int g16_option_count(void);
/* Checks that value is valid for option `name` without setting anything
 * (for configuration files read before a context exists).
 * Returns: G16_OK or G16_ERR_INVALID_ARG, msg (may be NULL) saying why as
 *          g16_ctx_set_option's last error would. */
G16_API g16_err g16_option_check(const char *name, const char *value, char *msg, size_t msg_len);
/* Returns: G16_OK, or G16_ERR_INVALID_ARG when i is out of range. */
G16_API g16_err g16_option_get_info(g16_option_info *info, int i);

/* ---- Groth16: keys, witnesses, proofs --------------------------------------
 * Files are snarkjs/circom's: .zkey (proving key), .wtns (witness),
 * proof.json, public.json, verification_key.json, on BN254 ("bn128") and
 * BLS12-381 ("bls12381"). Every reader validates its input; a bad file gives
 * a specific g16_err and a message naming the file and the fault. */

typedef struct g16_key g16_key;         /* a loaded proving key */
typedef struct g16_witness g16_witness; /* a loaded witness (secret) */
typedef struct g16_result g16_result;   /* a proof and its public signals */

enum {
    /* Skip the curve checks of the key's large point sections (for keys that
     * g16 wrote or already checked). Header, vk points and IC are checked. */
    G16_KEY_TRUSTED = 1,
    /* Also check every large-section point for prime-order subgroup
     * membership (costly on BLS12-381 and on G2). */
    G16_KEY_CHECK_SUBGROUP = 2,
    /* g16_engine_key_add: the file is a bellperson .params key (also
     * assumed for a path ending in ".params"); its jobs are
     * g16_engine_submit_assignments'. */
    G16_KEY_PARAMS = 4
};

typedef struct g16_key_info {
    g16_curve curve;
    uint32_t n_vars;        /* wires, w[0] = 1 included */
    uint32_t n_public;      /* public signals (outputs, then inputs) */
    uint32_t domain_size;   /* power of two */
    uint32_t n_coefficients;
} g16_key_info;

/* Where a proof's heavy stage (NTTs, h, MSMs) runs. */
typedef enum g16_backend {
    G16_BACKEND_AUTO = 0, /* the GPU when the build has CUDA, a device is present and the
                           * domain is at least G16_PROVE_AUTO_GPU_MIN_DOMAIN; else the CPU.
                           * A GPU that fails (set-up, stage, or a proof that does not
                           * verify) is replaced by the CPU for that call. */
    G16_BACKEND_CPU = 1,
    G16_BACKEND_CUDA = 2  /* the GPU or an error (G16_ERR_NO_DEVICE without one) */
} g16_backend;

/* G16_BACKEND_AUTO proves domains below this on the CPU without touching
 * the GPU. g16_prove makes a fresh GPU context per call (CUDA start-up,
 * context, key upload). One-shot `g16 prove`, BN254 dense circuits, best of
 * 3 wall times on the H200 host (16 cores, 2026-12-01): 2^16 CPU 204 ms
 * against GPU 369 ms; 2^18 CPU 707 ms against GPU 442 ms. The crossing lies
 * between, at about 2^17; a host with fewer cores crosses earlier. */
#define G16_PROVE_AUTO_GPU_MIN_DOMAIN (1u << 17)

/* Options of g16_prove / g16_prove_batch. Initialize with
 * g16_prove_opts_init (it sets size, so that fields appended later get
 * their defaults for a caller built against this version). */
typedef struct g16_prove_opts {
    size_t size;         /* sizeof(g16_prove_opts) */
    g16_backend backend; /* default G16_BACKEND_AUTO */
    int verify;          /* default 1: each proof is verified (one multi-pairing) before it
                          * is returned; 0 skips that (benchmarks) */
    int device;          /* the GPU to use; default 0 */
    int stream_bases;    /* 1: stream the key's bases from host memory per MSM instead of
                          * uploading the key (a key larger than the GPU); default 0 */
    g16_progress_fn progress; /* optional (see "progress" above); default NULL */
    void *progress_user;
} g16_prove_opts;

/* Sets *opts to the defaults above. opts may not be NULL. */
G16_API void g16_prove_opts_init(g16_prove_opts *opts) G16_NONNULL(1);

/* One proof's account: stage timings in milliseconds, and where it ran. */
typedef struct g16_prove_stats {
    double synth_ms, ntt_ms, msm_ms, finalize_ms;
    double total_ms;         /* the whole proof; the first of a call also counts the set-up
                              * (on a GPU: context, key upload, working areas) */
    double verify_ms;        /* 0 when not verified */
    g16_backend backend;     /* G16_BACKEND_CPU or G16_BACKEND_CUDA: what made the proof */
    char backend_note[256];  /* why that backend, and any fallback ("" when as asked) */
} g16_prove_stats;

/* Loads a snarkjs Groth16 .zkey (memory-mapped) and validates it. A file
 * that passed the point checks before and has not changed since (device,
 * inode, size, mtime, ctime) skips the checks of its large sections, as
 * the checked-key cache records (option key.check_cache_dir; "off" turns
 * it off; g16_key_checks_cached tells).
 * Args: flags: G16_KEY_* (0: every check). Out: *key (free with
 * g16_key_free), NULL on failure. Ownership: the key is the caller's; it
 * keeps the file mapped until freed. Thread safety: a key may be used by
 * several threads (g16_prove serializes the CPU proofs of one key).
 * Returns: G16_OK; G16_ERR_IO, TRUNCATED, FORMAT, NOT_CANONICAL,
 * NOT_ON_CURVE, NOT_IN_SUBGROUP, WRONG_CURVE, UNSUPPORTED (message names the
 * file and the fault); INVALID_ARG, NOMEM. */
G16_API g16_err g16_key_load(g16_ctx *ctx, g16_key **key, const char *zkey_path, unsigned flags)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
/* Loads a .zkey from memory, as g16_key_load does from a file: the bytes
 * are copied (data may be freed after the call) and validated the same way.
 * Args: name: used in messages (NULL: "zkey"); flags: G16_KEY_*. Out: *key
 * (free with g16_key_free), NULL on failure. Thread safety as g16_key_load's.
 * Returns: G16_OK; g16_key_load's errors for bad bytes (TRUNCATED, FORMAT,
 * NOT_CANONICAL, NOT_ON_CURVE, NOT_IN_SUBGROUP, WRONG_CURVE, UNSUPPORTED);
 * INVALID_ARG, NOMEM. */
G16_API g16_err g16_key_load_mem(g16_ctx *ctx, g16_key **key, const char *name, const void *data, size_t len,
                                 unsigned flags) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 4);
/* Frees a key (NULL: no-op). No proof may be using it. */
G16_API void g16_key_free(g16_key *key);
/* 1 when loading key skipped the point checks of its large sections
 * because the checked-key cache recorded the unchanged file (g16_key_load),
 * else 0 (NULL: 0). */
G16_API int g16_key_checks_cached(const g16_key *key);
/* The key's curve and sizes into *info. ctx may be NULL (then no error is
 * recorded in a context). Thread-safe. Returns G16_OK, or INVALID_ARG. */
G16_API g16_err g16_key_get_info(g16_ctx *ctx, g16_key_info *info, const g16_key *key)
    G16_WARN_UNUSED_RESULT G16_NONNULL(2, 3);
/* Writes snarkjs's verification_key.json for the key at vk_path
 * (atomically, as g16_result_write). Thread-safe. Returns G16_OK, G16_ERR_IO, NOMEM, INVALID_ARG. */
G16_API g16_err g16_key_export_vk(g16_ctx *ctx, const g16_key *key, const char *vk_path)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);

/* ---- Solidity: snarkjs's verifier contract and calldata --------------------
 * The texts snarkjs 0.7.6 makes, byte for byte. The contract (snarkjs's
 * Groth16Verifier) checks BN254 proofs with the EVM's precompiles; for a
 * BLS12-381 key these functions return the text snarkjs writes, the same
 * contract with BLS12-381's numbers, which exceed uint256 (it does not
 * compile; `g16 zkey export solidityverifier` warns, as it does for a key
 * without public inputs). */

/* The contract "snarkjs zkey export solidityverifier" writes for a key:
 *   - g16_export_solidity_verifier: from a loaded key;
 *   - _json: from a verification_key.json text;
 *   - _file: from a file, either a .zkey (told apart by its magic; only its
 *     header, vk points and IC are read and checked, so a key of any size
 *     exports at once) or a verification_key.json. When sol_path is not
 *     NULL the contract is also written there, atomically (as
 *     g16_result_write); a sol_path naming the input file is refused with
 *     INVALID_ARG before anything is read.
 * Out: *sol: NUL-terminated, malloc'd (g16_free); NULL on failure. _file
 *      takes sol NULL (nothing returned), and fills *curve and *n_public
 *      (either may be NULL) with the key's curve and public input count
 *      (with none, snarkjs's contract declares uint[0], which solc rejects).
 * Thread-safe. Returns: G16_OK; for a bad key or JSON the errors of
 * g16_key_load and g16_verify_files (IO, TRUNCATED, FORMAT, NOT_CANONICAL,
 * NOT_ON_CURVE, NOT_IN_SUBGROUP, WRONG_CURVE, UNSUPPORTED); IO for a failed
 * write; NOMEM, INVALID_ARG. */
G16_API g16_err g16_export_solidity_verifier(g16_ctx *ctx, char **sol, const g16_key *key)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
G16_API g16_err g16_export_solidity_verifier_json(g16_ctx *ctx, char **sol, const char *vk_json)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
G16_API g16_err g16_export_solidity_verifier_file(g16_ctx *ctx, char **sol, g16_curve *curve, uint32_t *n_public,
                                                  const char *path, const char *sol_path) G16_WARN_UNUSED_RESULT
    G16_NONNULL(1, 5);
/* The call arguments "snarkjs zkey export soliditycalldata public.json
 * proof.json" prints, without the newline it ends the line with:
 * ["0x<A.x>", "0x<A.y>"],[["0x<B.x.c1>", "0x<B.x.c0>"],["0x<B.y.c1>",
 * "0x<B.y.c0>"]],["0x<C.x>", "0x<C.y>"],["0x<in0>","0x<in1>",...], each
 * number in lowercase hex of at least 64 digits. From NUL-terminated texts,
 * or from files (_files, messages name them). The proof must say protocol
 * "groth16" (FORMAT when missing, UNSUPPORTED for another protocol); one
 * that names no curve (rapidsnark's) is read as BN254; the public inputs are
 * read on the proof's curve. Both are validated as g16_verify_files does.
 * Out: *calldata: NUL-terminated, malloc'd (g16_free); NULL on failure.
 * Thread-safe. Returns: G16_OK; IO, FORMAT, NOT_CANONICAL, NOT_ON_CURVE,
 * NOT_IN_SUBGROUP, WRONG_CURVE, UNSUPPORTED; NOMEM, INVALID_ARG. */
G16_API g16_err g16_export_solidity_calldata(g16_ctx *ctx, char **calldata, const char *public_json,
                                             const char *proof_json) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3, 4);
G16_API g16_err g16_export_solidity_calldata_files(g16_ctx *ctx, char **calldata, const char *public_path,
                                                   const char *proof_path) G16_WARN_UNUSED_RESULT
    G16_NONNULL(1, 2, 3, 4);


/* What became of a loaded key's file (docs/formats.md "Mapped files that
 * change"). A key is memory-mapped: a file truncated or rewritten in place
 * under it (snarkjs and `g16 setup` rewrite keys in place, so does `cp`)
 * does not crash the process; the key is then damaged for good, and every
 * proof on it fails with G16_ERR_IO until it is loaded again. */
typedef enum g16_key_state {
    G16_KEY_FILE_INTACT = 0,   /* the file is as it was when loaded */
    G16_KEY_FILE_STALE = 1,    /* the path names other contents now (renamed over, deleted, or
                                * changed under a host-memory copy), but the loaded key does not
                                * depend on them: it stays usable; load again to pick them up */
    G16_KEY_FILE_CHANGED = 2,  /* the mapped file was rewritten in place (size or mtime differ):
                                * the key may hold a mix of old and new bytes */
    G16_KEY_FILE_TRUNCATED = 3 /* the mapped file is shorter than the key, or a read of it faulted
                                * (its pages read as zeros now) */
} g16_key_state;

/* Checks whether key is still intact: an atomic flag and one fstat(2) of the
 * mapped file, then one stat(2) of its path (for STALE); cheap enough to call
 * before every job. The same check runs inside the library before a proof is
 * returned (and after a key load and a GPU upload), so a damaged key never
 * yields a proof.
 * Returns: G16_OK for INTACT and STALE; G16_ERR_IO for CHANGED and TRUNCATED,
 *          with a message through ctx such as "circuit.zkey changed while in
 *          use (truncated: 1048576 bytes mapped, 0 now; its pages read as
 *          zeros); reload the key"; G16_ERR_INVALID_ARG for a NULL key.
 * Args:    ctx:   a context (errors are reported through it).
 * Out:     state: (may be NULL) the g16_key_state.
 * In:      key:   a key from g16_key_load. */
G16_API g16_err g16_key_check(g16_ctx *ctx, g16_key_state *state, const g16_key *key)
    G16_WARN_UNUSED_RESULT G16_NONNULL(3);

/* The header facts of a .zkey, read without loading the key. */
typedef struct g16_key_header {
    g16_curve curve;
    uint32_t n_vars;      /* wires, w[0] = 1 included */
    uint32_t n_public;    /* public signals (outputs, then inputs) */
    uint32_t domain_size; /* power of two */
} g16_key_header;

/* Reads a .zkey's header without loading the key: the file is mapped and
 * only the container's section table, section 1 (protocol) and section 2
 * (curve, counts, the six vk points) are read; the sizes of sections 3..9
 * are checked against the counts. The IC, coefficient and point sections are
 * not read, so a key that peeks well may still fail g16_key_load.
 * Returns: G16_OK, or the error g16_key_load gives for the same header
 * (IO, TRUNCATED, FORMAT, WRONG_CURVE, UNSUPPORTED, NOT_ON_CURVE, ...), with
 * a message through ctx; G16_ERR_INVALID_ARG for a NULL argument.
 * Args: ctx:  a context (messages, error callback).
 * Out:  hdr:  the header facts (unchanged on error).
 * In:   zkey_path: the .zkey file. */
G16_API g16_err g16_key_peek(g16_ctx *ctx, g16_key_header *hdr, const char *zkey_path) G16_WARN_UNUSED_RESULT;
/* g16_key_peek over .zkey bytes in memory (not copied, not kept). */
G16_API g16_err g16_key_peek_bytes(g16_ctx *ctx, g16_key_header *hdr, const void *data, size_t len)
    G16_WARN_UNUSED_RESULT;

/* Loads a circom .wtns file (g16_witness_load), or the same bytes from
 * memory (copied: data may be freed afterwards), and validates it (known
 * prime, 32-byte values, each below the group order).
 * Out: *w (free with g16_witness_free, which wipes it), NULL on failure.
 * Thread-safe (a witness is read-only once loaded).
 * Returns: G16_OK; G16_ERR_IO, TRUNCATED, FORMAT, WRONG_CURVE,
 * NOT_CANONICAL; INVALID_ARG, NOMEM. */
G16_API g16_err g16_witness_load(g16_ctx *ctx, g16_witness **w, const char *wtns_path)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
G16_API g16_err g16_witness_from_wtns_bytes(g16_ctx *ctx, g16_witness **w, const void *data, size_t len)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* Wipes and frees a witness (NULL: no-op). */
G16_API void g16_witness_free(g16_witness *w);

/* The header facts of a .wtns, read without loading its values. */
typedef struct g16_witness_header {
    g16_curve curve;   /* from the header's prime r */
    uint32_t n_values; /* nWitness: values, w[0] = 1 included */
} g16_witness_header;

/* Reads a .wtns's header without reading its values: the container's
 * section table must cover the input exactly, section 1 must name BN254's
 * or BLS12-381's r with n8 = 32, and section 2 must hold n_values values of
 * 32 bytes. The values themselves (canonical form, w[0] = 1) are checked
 * only by g16_witness_load. g16_witness_peek_bytes reads the same from
 * memory (not copied, not kept).
 * Returns: G16_OK, or the error g16_witness_load gives for the same header
 * (IO, TRUNCATED, FORMAT, WRONG_CURVE, UNSUPPORTED), with a message through
 * ctx; G16_ERR_INVALID_ARG for a NULL argument.
 * Args: ctx:  a context (messages, error callback).
 * Out:  hdr:  the header facts (unchanged on error).
 * In:   wtns_path: the .wtns file; data, len: its bytes. */
G16_API g16_err g16_witness_peek(g16_ctx *ctx, g16_witness_header *hdr, const char *wtns_path)
    G16_WARN_UNUSED_RESULT;
G16_API g16_err g16_witness_peek_bytes(g16_ctx *ctx, g16_witness_header *hdr, const void *data, size_t len)
    G16_WARN_UNUSED_RESULT;

/* ---- witnesses from inputs (docs/witgen.md) -------------------------------
 * A circom witness generator turns an input.json into a .wtns. g16 runs it
 * as a child process (no shell) in a private scratch directory (mode 0700,
 * removed afterwards; the input it wrote there and the witness are
 * overwritten with zeros before they are unlinked), with its standard input
 * /dev/null and a time limit (killed, with its process group, on expiry)
 * and a memory limit (setrlimit in the child). Generators, told apart by the
 * file's first bytes:
 *   - circom's .wasm ("\0asm"): run as `NODE generate_witness.js GEN
 *     INPUT OUT` with the generate_witness.js that circom writes beside it;
 *     the memory limit is node's data size (RLIMIT_DATA: node reserves about
 *     10 GiB of address space for a wasm instance);
 *   - anything else executable (circom's C++ witness binary, a script with
 *     #!): run as `GEN INPUT OUT`; the memory limit is its address space
 *     (RLIMIT_AS).
 * Options (0 / NULL: the context's option, docs/config.md): */
typedef struct g16_witgen_opts {
    size_t size;           /* sizeof(g16_witgen_opts) (g16_witgen_opts_init sets it) */
    double timeout_s;      /* time limit; 0: witgen.timeout_s */
    uint64_t memory_bytes; /* memory limit; 0: witgen.memory_mb (which may be 0: none) */
    const char *node;      /* node for a .wasm; NULL: witgen.node (empty: node on PATH) */
    const char *input_name; /* names in-memory input in messages; NULL: "input" */
} g16_witgen_opts;
/* Sets *opts to the defaults (every limit from the context). */
G16_API void g16_witgen_opts_init(g16_witgen_opts *opts) G16_NONNULL(1);

typedef enum g16_witgen_kind {
    G16_WITGEN_NATIVE = 1, /* an executable: GEN INPUT OUT */
    G16_WITGEN_WASM = 2    /* a circom .wasm run by node through generate_witness.js */
} g16_witgen_kind;

/* Checks that gen_path names a usable generator without running it: a
 * .wasm with a readable generate_witness.js beside it and a node that can
 * be found (a NODE with a slash: executable; else on PATH), or an
 * executable regular file. Thread-safe.
 * Returns: G16_OK (*kind set; kind may be NULL), G16_ERR_IO (no such file,
 *          not readable or executable, no generate_witness.js, no node),
 *          G16_ERR_INVALID_ARG (NULL, a directory). */
G16_API g16_err g16_witgen_check(g16_ctx *ctx, g16_witgen_kind *kind, const char *gen_path,
                                 const g16_witgen_opts *opts) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 3);

/* Runs generator gen_path on one input and returns the witness it wrote:
 * g16_witness_generate loads it (as g16_witness_from_wtns_bytes), and
 * g16_witness_generate_wtns returns the .wtns bytes (its header checked
 * as g16_witness_peek_bytes does). The input is a file (input_path) or a
 * JSON text in memory (input_path NULL; input_json, input_len: copied into
 * the scratch directory); either must be a JSON object, checked before the
 * generator runs. Blocks the calling thread for up to the time limit.
 * Thread-safe: calls may run concurrently (each has its own directory).
 * Out: *w (free with g16_witness_free); *wtns, *wtns_len (malloc'd secret
 *      bytes: wipe them, then g16_free); NULL on failure.
 * Returns: G16_OK; G16_ERR_WITNESS_GEN (the generator failed: exit status
 *      or signal, killed at the time limit, ran out of its memory limit,
 *      wrote no witness or a malformed one; the message names the generator
 *      and the input and ends with the last lines of its output);
 *      G16_ERR_FORMAT (the input is not a JSON object), G16_ERR_IO (the
 *      generator or input cannot be used, the scratch directory cannot be
 *      made), G16_ERR_INVALID_ARG, G16_ERR_NOMEM. */
G16_API g16_err g16_witness_generate(g16_ctx *ctx, g16_witness **w, const char *gen_path, const char *input_path,
                                     const void *input_json, size_t input_len, const g16_witgen_opts *opts)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
G16_API g16_err g16_witness_generate_wtns(g16_ctx *ctx, void **wtns, size_t *wtns_len, const char *gen_path,
                                          const char *input_path, const void *input_json, size_t input_len,
                                          const g16_witgen_opts *opts) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3, 4);

/* Proves w against key with fresh r, s from the OS CSPRNG (wiped after use).
 * Args: ctx: the context (threads, errors); key: a loaded key; w: a witness
 *       of key's circuit (same curve, length, w[0] = 1); opts: NULL for the
 *       defaults (backend auto, verify on, device 0), else initialized by
 *       g16_prove_opts_init; stats: NULL, or receives the timings and the
 *       backend that ran, with the reason.
 * Out:  *out: the proof (free with g16_result_free), NULL on failure.
 * Ownership: key and w stay the caller's; the result is the caller's.
 * Thread safety: calls on one key are serialized on the CPU (one working
 *       area per key); different keys prove in parallel. A GPU call makes
 *       its own device context for the call.
 * Returns: G16_OK; G16_ERR_INVALID_PROOF when the proof does not verify
 *       (verify on: the witness does not satisfy the circuit);
 *       G16_ERR_WRONG_CURVE / SIZE_MISMATCH / FORMAT for a witness of
 *       another key shape; G16_ERR_NO_DEVICE / DEVICE under
 *       G16_BACKEND_CUDA; G16_ERR_INVALID_ARG, G16_ERR_NOMEM. */
G16_API g16_err g16_prove(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *w,
                          const g16_prove_opts *opts, g16_prove_stats *stats) G16_WARN_UNUSED_RESULT
    G16_NONNULL(1, 2, 3, 4);
/* Proves n witnesses (partitions) against one key with one set-up (on a GPU:
 * one context and one key upload for all). out and stats (optional) have n
 * entries; opts as g16_prove's. On failure no result is returned (every
 * out[i] NULL). Thread safety and errors as g16_prove's. */
G16_API g16_err g16_prove_batch(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *const *w,
                                size_t n, const g16_prove_opts *opts, g16_prove_stats *stats)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
/* Checks a result against the key it was proved with: A, B and C in the
 * prime-order subgroup (G16_ERR_NOT_IN_SUBGROUP for a key whose bases carry
 * a small-order component), then one multi-pairing (the verification key is
 * derived once and cached in the key); G16_ERR_IO when the key's file
 * changed while in use (g16_key_check).
 * Thread-safe. Returns: G16_OK for a valid proof, G16_ERR_INVALID_PROOF
 * for an invalid one; WRONG_CURVE / SIZE_MISMATCH for a result of another
 * key; INVALID_ARG. */
G16_API g16_err g16_result_verify(g16_ctx *ctx, const g16_key *key, const g16_result *res)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
/* Writes snarkjs's proof.json and public.json of res (either path may be
 * NULL: not written), each to a temporary file renamed into place once both
 * are complete and synced: on an error the old files are untouched.
 * Thread-safe. Returns G16_OK, G16_ERR_IO, NOMEM,
 * INVALID_ARG. */
G16_API g16_err g16_result_write(g16_ctx *ctx, const g16_result *res, const char *proof_path,
                                 const char *public_path) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* The same JSON texts in memory. Out: *proof_json, *public_json (either
 * pointer may be NULL: not made): NUL-terminated, malloc'd, the caller frees
 * them with g16_free; both NULL on failure. Thread-safe. Returns G16_OK,
 * NOMEM, INVALID_ARG. */
G16_API g16_err g16_result_json(g16_ctx *ctx, char **proof_json, char **public_json, const g16_result *res)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 4);
/* Frees a result (NULL: no-op). */
G16_API void g16_result_free(g16_result *res);
/* Frees memory the library returned (JSON texts, metrics, status). */
G16_API void g16_free(void *p);

/* Verifies snarkjs JSON: files (g16_verify_files) or NUL-terminated texts
 * (g16_verify_json) of verification_key.json, public.json and proof.json.
 * Thread-safe. Returns G16_OK for a valid proof, G16_ERR_INVALID_PROOF for
 * an invalid one, and other codes for bad input: IO, FORMAT, NOT_CANONICAL
 * (public inputs must be canonical field elements), NOT_ON_CURVE,
 * NOT_IN_SUBGROUP (points), WRONG_CURVE, SIZE_MISMATCH (count of public
 * inputs), INVALID_ARG. */
G16_API g16_err g16_verify_files(g16_ctx *ctx, const char *vk_path, const char *public_path,
                                 const char *proof_path) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3, 4);
G16_API g16_err g16_verify_json(g16_ctx *ctx, const char *vk_json, const char *public_json,
                                const char *proof_json) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3, 4);

/* ---- bellperson (Filecoin) keys and pre-synthesized partitions -------------
 * A bellperson Groth16 key over BLS12-381 (a `.params` file, no header:
 * docs/formats.md "bellperson .params and .vk") proves partitions that the
 * caller has already synthesized: the row evaluations a, b, c and the
 * assignment, as bellperson's prover hands them to supraseal-c2. The
 * assignment file (`.assignment`, docs/formats.md) holds the same in a file.
 *
 * Variables are bellperson's: inputs (input 0 is the constant one, then the
 * public inputs), then aux. Rows: the circuit's constraints, then one row
 * "input_i * 0 = 0" per input; the domain n is the key's (h count + 1).
 * Densities: a_aux bit v is set iff aux v appears in an A row, b_inp bit i
 * iff input i appears in a B row, b_aux likewise for aux in B; the key's a
 * array holds every input then the A-dense aux, b_g1 and b_g2 the B-dense
 * inputs then the B-dense aux. H is computed bellperson's way (coset of the
 * multiplicative generator 7, monomial-basis h points). */

/* A bellperson key loaded for proving (its points decoded, Montgomery form). */
typedef struct g16_params_key g16_params_key;

/* Loads a bellperson .params file (mapped while read; every count is checked
 * against the file size before anything is allocated; every point checked
 * canonical and on the curve).
 * Args: ctx: the context (threads for the point conversion, errors);
 *       subgroup: -1 checks subgroup membership iff the file is small
 *       (1 MiB or less; bellperson itself loads unchecked), 0 off, 1 on.
 * Out:  *out: the key (free with g16_params_key_free), NULL on failure.
 * Thread safety: a loaded key is read-only; any number of threads may prove
 *       with it at once.
 * Returns: G16_OK; G16_ERR_IO, TRUNCATED, FORMAT, NOT_CANONICAL,
 *       NOT_ON_CURVE, NOT_IN_SUBGROUP (the message names the array and the
 *       index, "h[17]: not on curve"); G16_ERR_FORMAT for a .vk (no proving
 *       arrays) or a domain (h + 1) that is not a power of two;
 *       INVALID_ARG, NOMEM. */
G16_API g16_err g16_params_key_load(g16_ctx *ctx, g16_params_key **out, const char *path, int subgroup)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
/* Frees a key (NULL: no-op). No proof may be using it. */
G16_API void g16_params_key_free(g16_params_key *key);
/* The key's counts, for callers sizing buffers. Thread-safe.
 * Out: n_inputs: public inputs including the constant one (ic count);
 *      n_aux: aux variables (l count); domain: n = h count + 1. Each may be NULL.
 * Returns: G16_OK, or INVALID_ARG for a NULL key (so it cannot fail for a
 *      loaded key, and its result may be ignored). */
G16_API g16_err g16_params_key_info(const g16_params_key *key, size_t *n_inputs, size_t *n_aux, size_t *domain);

/* The counts of a .params file without loading its proving arrays (the vk
 * and ic are decoded and checked, the other arrays' counts checked against
 * the file size): for callers that want a key's shape cheaply (g16d's key
 * registration). Out: as g16_params_key_info (each may be NULL). Returns:
 * G16_OK; g16_params_key_load's errors for the file (FORMAT for a .vk or a
 * domain that is not a power of two). Errors through ctx. */
G16_API g16_err g16_params_key_peek(g16_ctx *ctx, const char *path, size_t *n_inputs, size_t *n_aux, size_t *domain)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);

/* A BLS12-381 scalar as blst's blst_fr: 4 x u64 little-endian limbs,
 * Montgomery form (R = 2^256), fully reduced (below r). */
typedef struct g16_fr_mont {
    uint64_t l[4];
} g16_fr_mont;

/* One pre-synthesized partition. The field order and types are
 * supraseal-c2's Assignment (17 eight-byte words on LP64). Bitmaps are u64
 * words, bit i = (words[i / 64] >> (i % 64)) & 1; bits past bit_len must be
 * zero. Everything is borrowed: the caller's memory, only read. */
typedef struct g16_assignment {
    const uint64_t *a_aux_density; size_t a_aux_bit_len; size_t a_aux_popcount; /* bit_len = n_aux */
    const uint64_t *b_inp_density; size_t b_inp_bit_len; size_t b_inp_popcount; /* bit_len = n_inputs */
    const uint64_t *b_aux_density; size_t b_aux_bit_len; size_t b_aux_popcount; /* bit_len = n_aux */
    const g16_fr_mont *a, *b, *c;   /* abc_size rows each: constraints, then one row per input */
    size_t abc_size;                 /* <= domain; rows past it are zero */
    const g16_fr_mont *inp_assignment; size_t inp_assignment_size; /* n_inputs; input 0 is one */
    const g16_fr_mont *aux_assignment; size_t aux_assignment_size; /* n_aux */
} g16_assignment;

/* A proof in memory: affine points, Montgomery-form Fp limbs (6 x u64
 * little-endian each, R = 2^384), the layout of supraseal-c2's groth16_proof
 * (384 bytes): A G1 (x, y), B G2 (x.c0, x.c1, y.c0, y.c1), C G1 (x, y); a
 * point at infinity is all zeros. */
typedef struct g16_params_proof_raw {
    uint64_t a[2][6];
    uint64_t b[2][2][6];
    uint64_t c[2][6];
} g16_params_proof_raw;

/* Options of g16_prove_assignments. Initialize with
 * g16_assignment_prove_opts_init (it sets size). */
typedef struct g16_assignment_prove_opts {
    size_t size;              /* sizeof(g16_assignment_prove_opts) */
    g16_backend backend;      /* default G16_BACKEND_AUTO: the GPU (device 0) for domains from
                               * G16_PROVE_AUTO_GPU_MIN_DOMAIN up when one is present and its
                               * set-up succeeds, else the CPU; CUDA: the GPU or an error
                               * (G16_ERR_NO_DEVICE without one); CPU: the CPU. Proofs are
                               * the same for the same r, s on either */
    int verify;               /* default 1: each proof is verified against the key's vk */
    const g16_fr_mont *r, *s; /* NULL (default): r, s drawn from the OS CSPRNG; else n each
                               * (tests, reproducible proofs), below r */
} g16_assignment_prove_opts;

/* Sets *o to the defaults above. o may not be NULL. */
G16_API void g16_assignment_prove_opts_init(g16_assignment_prove_opts *o) G16_NONNULL(1);

/* Proves n partitions of one key: proofs[i] for assignments[i], in order.
 * Each assignment is first checked against the key (bit lengths, popcounts
 * = the set bits and = the key's a / b_g1 / b_g2 counts, abc_size <= the
 * domain, input and aux counts, every value below r, input 0 = one); the
 * first mismatch fails the call with a message naming the partition and the
 * field. Witness-derived scratch is wiped before return; r and s are used
 * in constant time and wiped.
 * Args: ctx: the context (threads, errors); key: from g16_params_key_load;
 *       assignments: n partitions (n >= 1); opts: NULL for the defaults.
 * Out:  proofs: n proofs (unchanged ones past a failure are zeroed).
 * Thread safety: calls on one key may run concurrently.
 * Returns: G16_OK; G16_ERR_SIZE_MISMATCH (a count that does not match the
 *       key), G16_ERR_FORMAT (a bitmap's popcount differs from its set bits,
 *       bits past bit_len, input 0 not one), G16_ERR_NOT_CANONICAL (a value
 *       or r, s not below r), G16_ERR_INVALID_PROOF (verify on: the partition
 *       does not satisfy the key's circuit), G16_ERR_UNSUPPORTED (backend
 *       CUDA), G16_ERR_IO (getrandom), INVALID_ARG, NOMEM. */
G16_API g16_err g16_prove_assignments(g16_ctx *ctx, const g16_params_key *key, const g16_assignment *assignments,
                                      size_t n, const g16_assignment_prove_opts *opts, g16_params_proof_raw *proofs)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3, 6);

/* The 192-byte bellperson encoding of a proof: A (G1 compressed, 48 bytes)
 * || B (G2 compressed, 96) || C (G1 compressed, 48), zcash flags.
 * Returns: G16_OK; G16_ERR_NOT_CANONICAL (a limb vector not below p),
 *       G16_ERR_NOT_ON_CURVE (a point off its curve); INVALID_ARG. */
G16_API g16_err g16_params_proof_raw_encode(uint8_t out[192], const g16_params_proof_raw *p)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);

/* ---- engine --------------------------------------------------------------
 * A proving engine (docs/engine.md): keys loaded once and kept resident
 * under one byte budget, jobs of N witnesses ("partitions") scheduled by
 * priority, a synthesis stage running ahead of device workers (CPU workers
 * on a machine without a GPU), a finalize stage, and every proof verified
 * before it is returned. All functions are thread-safe. Errors are reported
 * through the engine's context. */

typedef struct g16_engine g16_engine;

typedef enum g16_priority {
    G16_PRIORITY_LOW = 0,
    G16_PRIORITY_NORMAL = 1,
    G16_PRIORITY_HIGH = 2,
    G16_PRIORITY_CRITICAL = 3
} g16_priority;

/* Where a resident key lives. */
typedef enum g16_key_tier {
    G16_TIER_NONE = 0, /* not resident (evicted or not loaded yet) */
    G16_TIER_MMAP = 1, /* the file is memory-mapped (default) */
    G16_TIER_HOST = 2  /* the file is read into host memory */
} g16_key_tier;

/* Where the heavy stage (NTTs, h, MSMs) runs: AUTO picks CUDA when the
 * build has it and a GPU is present, else the CPU. */
typedef enum g16_engine_backend {
    G16_ENGINE_BACKEND_AUTO = 0,
    G16_ENGINE_BACKEND_CPU = 1,
    G16_ENGINE_BACKEND_CUDA = 2 /* G16_ERR_NO_DEVICE at create without a GPU */
} g16_engine_backend;

typedef struct g16_engine_opts {
    uint64_t budget_bytes; /* keys + working sets; 0 = unlimited */
    int workers;           /* device workers (CPU workers without a GPU); 0 = 1 */
    int synth_threads;     /* synthesis threads; 0 = 1 (CUDA backend: 2 x workers) */
    int lookahead;         /* partitions synthesizing or waiting for a worker; 0 = workers
                            * (CUDA backend: synth_threads + workers) */
    int no_verify;         /* 1: skip verify-before-return (benchmarks only) */
    const char *timeline_path; /* optional: JSON lines, one per stage start/end */
    /* Appended in the CUDA round (zero = defaults). With the CUDA backend
     * the workers are devices x workers_per_device (`workers` is ignored),
     * worker i on GPU i % devices. */
    g16_engine_backend backend;
    int workers_per_device;       /* 0 = 2 */
    int devices;                  /* GPUs to use, the first ones; 0 = all */
    uint64_t device_budget_bytes; /* per GPU: resident keys + worker areas; 0 = unlimited */
    /* 1: device-resident keys get window tables of their bases (about 12x
     * their bases' device bytes, counted in device_budget_bytes; built at
     * key load; measured: ~10% off each MSM at 2^24, +4% proofs/h at BN254
     * 2^22). A key whose tables do not fit the budget, or the device beside
     * the workers' areas, is resident without them. */
    int gpu_tables;
} g16_engine_opts;

/* Sets *opts to the defaults above (every field 0: unlimited budgets, one
 * CPU worker or two per GPU, AUTO backend, verify before return). Start
 * from it, so that fields appended later get their defaults. opts may not
 * be NULL. */
G16_API void g16_engine_opts_init(g16_engine_opts *opts) G16_NONNULL(1);

/* Creates an engine on ctx (which must outlive it): its worker, synthesis
 * and finalize threads start here. opts may be NULL for the defaults.
 * Out: *eng (free with g16_engine_destroy), NULL on failure.
 * Returns: G16_OK; G16_ERR_NO_DEVICE (backend CUDA without a usable GPU),
 * INVALID_ARG (bad options), NOMEM. The
 * CUDA backend takes its operational options from ctx's options as they are
 * now (docs/config.md): engine.gpu_shared (kernels of a device's workers
 * concurrent, else a per-device mutex), engine.pin (worker threads pinned
 * near their GPU), gpu.sync and gpu.synth, and the gpu.* tuning knobs for
 * every GPU context it makes; set them with g16_ctx_set_option first. */
G16_API g16_err g16_engine_create(g16_ctx *ctx, g16_engine **eng, const g16_engine_opts *opts)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* Shuts down: drain = 1 finishes every accepted job first, drain = 0 cancels
 * them (running partitions stop at their next stage boundary). Frees all:
 * keys, jobs, results (NULL: no-op). No other call on eng may be running
 * or follow. */
G16_API void g16_engine_destroy(g16_engine *eng, int drain);

/* Registers a zkey by path and loads it (tier: G16_TIER_MMAP or _HOST); a
 * bellperson .params key with flags & G16_KEY_PARAMS or a path ending in
 * ".params" (its jobs: g16_engine_submit_assignments; docs/engine.md);
 * the same path again returns the same id with one more reference.
 * flags: G16_KEY_*. Out: *key_id. Returns: G16_OK; g16_key_load's errors
 * for the file; G16_ERR_NOMEM when the budget cannot hold it. */
G16_API g16_err g16_engine_key_add(g16_engine *eng, uint64_t *key_id, const char *zkey_path, unsigned flags,
                                   g16_key_tier tier) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2, 3);
/* Drops one reference; the last one unloads the key once no job uses it. */
G16_API g16_err g16_engine_key_remove(g16_engine *eng, uint64_t key_id) G16_WARN_UNUSED_RESULT G16_NONNULL(1);
/* Makes the key resident now (evicting idle keys if the budget needs it). */
G16_API g16_err g16_engine_key_preload(g16_engine *eng, uint64_t key_id) G16_WARN_UNUSED_RESULT G16_NONNULL(1);
/* Unloads a resident key; G16_ERR_INVALID_ARG while a partition uses it. */
G16_API g16_err g16_engine_key_evict(g16_engine *eng, uint64_t key_id) G16_WARN_UNUSED_RESULT G16_NONNULL(1);

typedef struct g16_engine_key_info {
    g16_key_tier tier;    /* G16_TIER_NONE when not resident */
    uint64_t bytes;       /* accounted bytes while resident */
    uint64_t work_bytes;  /* one working area for this key */
    uint32_t work_areas;  /* working areas allocated for it now */
    uint32_t active;      /* partitions using it now */
    uint32_t loads, evictions;
} g16_engine_key_info;
G16_API g16_err g16_engine_key_get_info(g16_engine *eng, g16_engine_key_info *info, uint64_t key_id)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* g16_key_check on an engine key. A key that is not resident is INTACT (the
 * next load reads the file as it is then). A damaged key (CHANGED,
 * TRUNCATED) stays resident and fails each partition that uses it with
 * G16_ERR_IO and the same message; reload it with g16_engine_key_evict
 * (once no partition uses it) and g16_engine_key_preload (or the next job).
 * Returns: G16_OK (INTACT, STALE), G16_ERR_IO (CHANGED, TRUNCATED),
 *          G16_ERR_INVALID_ARG (unknown key_id).
 * Out:     state: (may be NULL) the g16_key_state.
 * In:      key_id: from g16_engine_key_add. */
G16_API g16_err g16_engine_key_check(g16_engine *eng, g16_key_state *state, uint64_t key_id)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1);

/* One partition's witness: a .wtns path, or .wtns bytes (copied). */
typedef struct g16_engine_witness {
    const char *path;
    const void *data;
    size_t len;
} g16_engine_witness;

/* Submits a job: n witnesses against key_id (paths are read, and bytes
 * copied, by the synthesis threads: the caller's w may go after the call).
 * timeout_ms > 0 cancels the job with G16_ERR_TIMEOUT when it is not done
 * by then. Out: *job_id (release it with g16_engine_job_release once
 * finished). Returns: G16_OK; INVALID_ARG (unknown key, n = 0, a witness
 * with neither path nor data); NOMEM. A witness's own faults are reported
 * per partition (g16_engine_partition_result). */
G16_API g16_err g16_engine_submit(g16_engine *eng, uint64_t *job_id, uint64_t key_id,
                                  const g16_engine_witness *w, size_t n, g16_priority priority,
                                  double timeout_ms) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* One pre-synthesized partition of a job on a .params key: exactly one of
 *   path:       an .assignment file (docs/formats.md), read by the engine
 *               when the partition starts (the string is copied);
 *   data, len:  .assignment file bytes, copied at submit (the caller's
 *               buffer may go after the call; the copy is wiped when the
 *               partition is done);
 *   assignment: a g16_assignment in memory. The struct is copied; the
 *               arrays it points to are borrowed: they must stay valid and
 *               unchanged until the job is finished (g16_engine_wait has
 *               returned G16_OK, or g16_engine_job_get_info shows it DONE,
 *               FAILED or CANCELLED), and are only read, never wiped (they
 *               are the caller's to wipe). */
typedef struct g16_engine_assignment {
    const char *path;
    const void *data;
    size_t len;
    const g16_assignment *assignment;
} g16_engine_assignment;

/* Submits a job of n pre-synthesized partitions against a .params key
 * (G16_KEY_PARAMS): scheduled as witness jobs are (priority, then age, then
 * index; the budget reserves each partition's bytes: its file or data and
 * the heavy stage's scratch, 3 x domain x 32 bytes plus its scalars), each
 * proof verified against the key's vk before it is returned (unless
 * no_verify). The heavy stage runs where the engine's workers run: on a
 * CUDA worker on its GPU (the key's bases uploaded to that device at its
 * first partition there, kept until the key is unloaded; a device without
 * room runs the partition on the CPU), else on the CPU. A partition that is
 * malformed or does not match the key fails alone, with the reader's or the
 * checker's message naming it. Results:
 * g16_engine_params_result (or g16_engine_partition_result, whose
 * proof_json is then {"format":"bellperson","proof":"<384 hex digits>"}).
 * Returns: G16_OK; INVALID_ARG (unknown key, a key that is not a .params
 * one, n = 0, a partition with not exactly one source); NOMEM.
 * g16_engine_submit on a .params key is INVALID_ARG as well. */
G16_API g16_err g16_engine_submit_assignments(g16_engine *eng, uint64_t *job_id, uint64_t key_id,
                                              const g16_engine_assignment *a, size_t n, g16_priority priority,
                                              double timeout_ms) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* Cancels a job: queued partitions never start, running ones stop at their
 * next stage boundary, reservations are released. */
G16_API g16_err g16_engine_cancel(g16_engine *eng, uint64_t job_id) G16_WARN_UNUSED_RESULT G16_NONNULL(1);
/* Waits until the job is finished (timeout_ms < 0: no limit). Returns G16_OK
 * when it is (see g16_engine_job_get_info for its outcome), G16_ERR_TIMEOUT
 * when the wait ran out. */
G16_API g16_err g16_engine_wait(g16_engine *eng, uint64_t job_id, double timeout_ms)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1);

typedef enum g16_job_state {
    G16_JOB_QUEUED = 0,
    G16_JOB_RUNNING,
    G16_JOB_DONE,      /* every partition has a (verified) proof */
    G16_JOB_FAILED,    /* some partition failed: see err, failed_partition */
    G16_JOB_CANCELLED  /* cancelled or timed out */
} g16_job_state;

typedef struct g16_engine_job_info {
    g16_job_state state;
    uint32_t partitions, proved, failed;
    g16_err err;               /* first failure's code (G16_OK if none) */
    uint32_t failed_partition; /* its partition index */
    char msg[256];             /* its message */
    uint64_t finish_seq;       /* 1, 2, ...: order in which jobs finished; 0 while not */
    double latency_ms;         /* submit to finish */
} g16_engine_job_info;
G16_API g16_err g16_engine_job_get_info(g16_engine *eng, g16_engine_job_info *info, uint64_t job_id)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);

/* Per-partition stage timings (milliseconds). */
typedef struct g16_partition_stats {
    double queue_ms, synth_ms, device_ms, finalize_ms, verify_ms;
    int worker; /* the device worker that ran it, -1 if none */
} g16_partition_stats;
/* A partition's proof.json / public.json texts (malloc'd, free with
 * g16_free; either may be NULL) and timings (may be NULL). Returns the
 * partition's error when it failed (message through the context). */
G16_API g16_err g16_engine_partition_result(g16_engine *eng, char **proof_json, char **public_json,
                                            g16_partition_stats *stats, uint64_t job_id, uint32_t partition)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1);
/* A proved partition of a .params job: proof = the 192-byte bellperson
 * proof (A || B || C compressed, zcash flags); *public_json (may be NULL;
 * malloc'd, free with g16_free) = the public inputs after the constant one,
 * a JSON list of decimal strings; stats may be NULL. Returns the
 * partition's error when it failed (message through the context),
 * INVALID_ARG for an unknown, unfinished or witness partition. */
G16_API g16_err g16_engine_params_result(g16_engine *eng, uint8_t proof[192], char **public_json,
                                         g16_partition_stats *stats, uint64_t job_id, uint32_t partition)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* Forgets a finished job and frees its results. Returns G16_OK, or
 * INVALID_ARG for an unknown or unfinished job. */
G16_API g16_err g16_engine_job_release(g16_engine *eng, uint64_t job_id) G16_WARN_UNUSED_RESULT G16_NONNULL(1);

typedef struct g16_engine_budget {
    uint64_t limit, used, peak; /* limit 0 = unlimited */
} g16_engine_budget;
G16_API g16_err g16_engine_get_budget(g16_engine *eng, g16_engine_budget *b)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* Counters and histograms in Prometheus text format. Out: *text,
 * NUL-terminated, malloc'd: free with g16_free. Returns G16_OK or NOMEM. */
G16_API g16_err g16_engine_metrics(g16_engine *eng, char **text) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* A status snapshot as JSON: keys and tiers, budget, queue depth per
 * priority, each worker's current job. Out: *json, NUL-terminated,
 * malloc'd: free with g16_free. Returns G16_OK or NOMEM. */
G16_API g16_err g16_engine_status_json(g16_engine *eng, char **json) G16_WARN_UNUSED_RESULT G16_NONNULL(1, 2);
/* The engine's recent stage spans: a ring of the last 65536 spans (synth,
 * device, upload, kernels, finalize, verify; docs/engine.md "Recent
 * spans"), those ending at or after since (Unix seconds; 0: all held).
 * format G16_TIMELINE_SPANS: {"now", "capacity", "dropped", "spans": [{"job",
 * "partition", "worker", "thread", "device" (null on the CPU), "stage",
 * "start", "end"}]} in Unix seconds, ordered by start;
 * G16_TIMELINE_CHROME: Chrome trace event JSON ({"traceEvents": [...]},
 * complete events with ts/dur in microseconds). Out: *json, malloc'd: free
 * with g16_free. Returns G16_OK, INVALID_ARG or NOMEM. Thread-safe. */
#define G16_TIMELINE_SPANS 0
#define G16_TIMELINE_CHROME 1
G16_API g16_err g16_engine_timeline_json(g16_engine *eng, double since, int format, char **json)
    G16_WARN_UNUSED_RESULT G16_NONNULL(1, 4);

/* ---- self-check ---------------------------------------------------------- */

/* Runs a quick arithmetic self-check on both curves (field, group law,
 * pairing bilinearity). Writes a short human-readable summary into buf.
 * Returns G16_OK or G16_ERR_INTERNAL. */
G16_API g16_err g16_selfcheck(g16_ctx *ctx, char *buf, size_t buf_len) G16_WARN_UNUSED_RESULT G16_NONNULL(1);

G16_API const char *g16_version(void);

#ifdef __cplusplus
}
#endif
#endif
