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

/* Creates a context. opts may be NULL for defaults. The context's options
 * (below) start at their defaults overridden by the environment. Returns
 * NULL when memory or threads cannot be had, or when an option's
 * environment variable holds an invalid value: g16_ctx_create_ex says
 * which, and g16_env_check checks the environment alone. */
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
G16_API void g16_ctx_destroy(g16_ctx *ctx);
G16_API int g16_ctx_threads(const g16_ctx *ctx);

/* Copies the last error message reported through ctx into buf (always
 * NUL-terminated) and returns its code. Thread-safe. */
G16_API g16_err g16_ctx_last_error(g16_ctx *ctx, char *buf, size_t buf_len);

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
    G16_KEY_CHECK_SUBGROUP = 2
};

typedef struct g16_key_info {
    g16_curve curve;
    uint32_t n_vars;        /* wires, w[0] = 1 included */
    uint32_t n_public;      /* public signals (outputs, then inputs) */
    uint32_t domain_size;   /* power of two */
    uint32_t n_coefficients;
} g16_key_info;

/* Per-proof stage timings in milliseconds. */
typedef struct g16_prove_stats {
    double synth_ms, ntt_ms, msm_ms, finalize_ms, total_ms;
} g16_prove_stats;

/* Loads a snarkjs Groth16 .zkey (memory-mapped). flags: G16_KEY_*. */
G16_API g16_err g16_key_load(g16_ctx *ctx, g16_key **key, const char *zkey_path, unsigned flags)
    G16_WARN_UNUSED_RESULT;
G16_API void g16_key_free(g16_key *key);
G16_API g16_err g16_key_get_info(g16_ctx *ctx, g16_key_info *info, const g16_key *key);
/* Writes snarkjs's verification_key.json for the key. */
G16_API g16_err g16_key_export_vk(g16_ctx *ctx, const g16_key *key, const char *vk_path);

/* Loads a circom .wtns file, or the same bytes from memory. */
G16_API g16_err g16_witness_load(g16_ctx *ctx, g16_witness **w, const char *wtns_path)
    G16_WARN_UNUSED_RESULT;
G16_API g16_err g16_witness_from_wtns_bytes(g16_ctx *ctx, g16_witness **w, const void *data, size_t len)
    G16_WARN_UNUSED_RESULT;
/* Wipes and frees. */
G16_API void g16_witness_free(g16_witness *w);

/* Proves w against key with fresh r, s from the OS CSPRNG (wiped after use).
 * The witness must belong to the key (curve, length, w[0] = 1). stats may be
 * NULL. One key proves one witness at a time (calls are serialized per key). */
G16_API g16_err g16_prove(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *w,
                          g16_prove_stats *stats) G16_WARN_UNUSED_RESULT;
/* Proves n witnesses (partitions) against one key, reusing its prepared data
 * and working memory. out and stats (optional) have n entries. On failure no
 * result is returned. */
G16_API g16_err g16_prove_batch(g16_ctx *ctx, g16_result **out, g16_key *key, const g16_witness *const *w,
                                size_t n, g16_prove_stats *stats) G16_WARN_UNUSED_RESULT;
/* TESTS ONLY: proves with the given r and s (32-byte little-endian, below the
 * group order). The proof is deterministic and NOT zero-knowledge. */
G16_API g16_err g16_prove_with_rs_insecure(g16_ctx *ctx, g16_result **out, g16_key *key,
                                           const g16_witness *w, const uint8_t r_le[32],
                                           const uint8_t s_le[32]) G16_WARN_UNUSED_RESULT;
/* Checks a result against the key it was proved with (one multi-pairing). */
G16_API g16_err g16_result_verify(g16_ctx *ctx, const g16_key *key, const g16_result *res);
/* Writes proof.json and public.json (either path may be NULL). */
G16_API g16_err g16_result_write(g16_ctx *ctx, const g16_result *res, const char *proof_path,
                                 const char *public_path);
/* The same JSON texts, malloc'd (free with g16_free); either may be NULL. */
G16_API g16_err g16_result_json(g16_ctx *ctx, char **proof_json, char **public_json, const g16_result *res);
G16_API void g16_result_free(g16_result *res);
G16_API void g16_free(void *p);

/* Verifies snarkjs JSON files/texts. Returns G16_OK for a valid proof,
 * G16_ERR_INVALID_PROOF for an invalid one, and other codes for bad input
 * (public inputs must be canonical field elements, points on the curve and
 * in the subgroup). */
G16_API g16_err g16_verify_files(g16_ctx *ctx, const char *vk_path, const char *public_path,
                                 const char *proof_path);
G16_API g16_err g16_verify_json(g16_ctx *ctx, const char *vk_json, const char *public_json,
                                const char *proof_json);

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

/* Creates an engine on ctx (which must outlive it). opts may be NULL. The
 * CUDA backend takes its operational options from ctx's options as they are
 * now (docs/config.md): engine.gpu_shared (kernels of a device's workers
 * concurrent, else a per-device mutex), engine.pin (worker threads pinned
 * near their GPU), gpu.sync and gpu.synth, and the gpu.* tuning knobs for
 * every GPU context it makes; set them with g16_ctx_set_option first. */
G16_API g16_err g16_engine_create(g16_ctx *ctx, g16_engine **eng, const g16_engine_opts *opts)
    G16_WARN_UNUSED_RESULT;
/* Shuts down: drain = 1 finishes every accepted job first, drain = 0 cancels
 * them (running partitions stop at their next stage boundary). Frees all. */
G16_API void g16_engine_destroy(g16_engine *eng, int drain);

/* Registers a zkey by path and loads it (tier: G16_TIER_MMAP or _HOST);
 * the same path again returns the same id with one more reference.
 * flags: G16_KEY_*. */
G16_API g16_err g16_engine_key_add(g16_engine *eng, uint64_t *key_id, const char *zkey_path, unsigned flags,
                                   g16_key_tier tier) G16_WARN_UNUSED_RESULT;
/* Drops one reference; the last one unloads the key once no job uses it. */
G16_API g16_err g16_engine_key_remove(g16_engine *eng, uint64_t key_id);
/* Makes the key resident now (evicting idle keys if the budget needs it). */
G16_API g16_err g16_engine_key_preload(g16_engine *eng, uint64_t key_id);
/* Unloads a resident key; G16_ERR_INVALID_ARG while a partition uses it. */
G16_API g16_err g16_engine_key_evict(g16_engine *eng, uint64_t key_id);

typedef struct g16_engine_key_info {
    g16_key_tier tier;    /* G16_TIER_NONE when not resident */
    uint64_t bytes;       /* accounted bytes while resident */
    uint64_t work_bytes;  /* one working area for this key */
    uint32_t work_areas;  /* working areas allocated for it now */
    uint32_t active;      /* partitions using it now */
    uint32_t loads, evictions;
} g16_engine_key_info;
G16_API g16_err g16_engine_key_get_info(g16_engine *eng, g16_engine_key_info *info, uint64_t key_id);

/* One partition's witness: a .wtns path, or .wtns bytes (copied). */
typedef struct g16_engine_witness {
    const char *path;
    const void *data;
    size_t len;
} g16_engine_witness;

/* Submits a job: n witnesses against key_id. timeout_ms > 0 cancels the job
 * with G16_ERR_TIMEOUT when it is not done by then. */
G16_API g16_err g16_engine_submit(g16_engine *eng, uint64_t *job_id, uint64_t key_id,
                                  const g16_engine_witness *w, size_t n, g16_priority priority,
                                  double timeout_ms) G16_WARN_UNUSED_RESULT;
/* Cancels a job: queued partitions never start, running ones stop at their
 * next stage boundary, reservations are released. */
G16_API g16_err g16_engine_cancel(g16_engine *eng, uint64_t job_id);
/* Waits until the job is finished (timeout_ms < 0: no limit). Returns G16_OK
 * when it is (see g16_engine_job_get_info for its outcome), G16_ERR_TIMEOUT
 * when the wait ran out. */
G16_API g16_err g16_engine_wait(g16_engine *eng, uint64_t job_id, double timeout_ms);

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
G16_API g16_err g16_engine_job_get_info(g16_engine *eng, g16_engine_job_info *info, uint64_t job_id);

/* Per-partition stage timings (milliseconds). */
typedef struct g16_partition_stats {
    double queue_ms, synth_ms, device_ms, finalize_ms, verify_ms;
    int worker; /* the device worker that ran it, -1 if none */
} g16_partition_stats;
/* A partition's proof.json / public.json texts (malloc'd, free with
 * g16_free; either may be NULL) and timings (may be NULL). Returns the
 * partition's error when it failed (message through the context). */
G16_API g16_err g16_engine_partition_result(g16_engine *eng, char **proof_json, char **public_json,
                                            g16_partition_stats *stats, uint64_t job_id, uint32_t partition);
/* Forgets a finished job and frees its results. */
G16_API g16_err g16_engine_job_release(g16_engine *eng, uint64_t job_id);

typedef struct g16_engine_budget {
    uint64_t limit, used, peak; /* limit 0 = unlimited */
} g16_engine_budget;
G16_API g16_err g16_engine_get_budget(g16_engine *eng, g16_engine_budget *b);
/* Counters and histograms in Prometheus text format (malloc'd). */
G16_API g16_err g16_engine_metrics(g16_engine *eng, char **text) G16_WARN_UNUSED_RESULT;
/* A status snapshot as JSON (malloc'd): keys and tiers, budget, queue depth
 * per priority, each worker's current job. */
G16_API g16_err g16_engine_status_json(g16_engine *eng, char **json) G16_WARN_UNUSED_RESULT;

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
