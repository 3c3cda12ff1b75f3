/* groth16 layer: keys, the prover (in stages, for the engine; on a GPU
 * through src/gpu/gpu.h), verification and the insecure test setup, over
 * the formats layer (src/formats/formats.h: containers, .zkey, .wtns, .r1cs,
 * JSON), which this header includes. The public API is include/g16.h. */
#ifndef G16_GROTH16_H
#define G16_GROTH16_H

#include <pthread.h>
#include <stdint.h>

#include "../formats/formats.h"
#include "../util/progress.h"

/* ======================================================================
 * PROVER / VERIFIER (prove.c, prove_impl.h; public API in include/g16.h)
 * ====================================================================== */

/* INSECURE test-only setup (setup.c): writes a snarkjs-layout Groth16 .zkey
 * for cs with toxic waste drawn from seed; whoever knows the seed can forge
 * proofs. Errors: UNSUPPORTED (domain above the 2-adicity), NOMEM, IO. */
g16_err groth16_setup_insecure(g16_ctx *ctx, const g16_r1cs *cs, const char *out_path, uint64_t seed,
                               g16_status *st);

/* The same with options. The key is built in one buffer of its exact size:
 * with out_path, a shared mapping of that file; with out_path NULL, an
 * anonymous mapping returned in *mem / *mem_len (free it with
 * groth16_setup_mem_free), for in-memory keys (g16_zkey_open_mem). */
enum { GROTH16_SETUP_AUTO = 0, GROTH16_SETUP_CPU = 1, GROTH16_SETUP_CUDA = 2 };
typedef struct groth16_setup_opts {
    uint64_t seed;
    int backend;      /* GROTH16_SETUP_*: AUTO takes the GPU when one is present, else the CPU */
    int snarkjs_init; /* gamma = delta = 1 and snarkjs's circuit hash: byte for byte the key
                         `snarkjs zkey new` makes from a prepared ptau with the same tau, alpha,
                         beta (scripts/interop/fast_ptau.mjs), which `snarkjs zkey verify` accepts */
    int align;        /* insert zero-size padding sections (ids 0x1000..) so that every point
                         section starts 8-byte aligned: the key loads without copies */
    /* Called once the setup no longer reads the circuit (after the column
     * sums and the coefficient section), so a caller can free it before the
     * key's points are made (lower peak memory at 2^27); may be NULL. */
    void (*cs_done)(void *user);
    void *cs_done_user;
    /* NULL: the toxic waste comes from seed (groth16_setup_toxic). Else tau,
     * alpha, beta, gamma, delta given as canonical little-endian integers,
     * each nonzero and below the group order (INVALID_ARG otherwise): tests
     * reproducing a key made elsewhere. */
    const uint8_t (*toxic)[32];
    /* Optional progress (g16.h's g16_progress_fn, on the calling thread):
     * stages "lagrange" (1 unit), "points" (the fixed-base multiplications
     * in G1-point units, a G2 point counting 3), "hash" (snarkjs_init, 1). */
    g16_progress_fn progress;
    void *progress_user;
} groth16_setup_opts;
typedef struct groth16_setup_info {
    int used_gpu;
    size_t key_bytes;
    double lagrange_ms; /* Lagrange basis and column sums */
    double points_ms;   /* fixed-base multiplications (IC, C, A, B1, B2, H) */
    double hash_ms;     /* snarkjs_init's circuit hash */
    double total_ms;
} groth16_setup_info;
g16_err groth16_setup_insecure_ex(g16_ctx *ctx, const g16_r1cs *cs, const groth16_setup_opts *o,
                                  const char *out_path, void **mem, size_t *mem_len, groth16_setup_info *info,
                                  g16_status *st);
void groth16_setup_mem_free(void *mem, size_t len);
/* The toxic waste a seed gives: tau, alpha, beta, gamma, delta as canonical
 * little-endian 32-byte integers (for fast_ptau.mjs --tau/--alpha/--beta). */
void groth16_setup_toxic(g16_curve curve, uint64_t seed, uint8_t out[5][32]);

/* INSECURE test-only setup of a bellperson (Filecoin) Groth16 key for a
 * BLS12-381 circuit (setup_params_impl.h gives the math; params.h the
 * layout): writes params_path (.params) and vk_path (.vk, the vk and ic
 * alone), each atomically, both renamed into place only when both are
 * complete. Toxic waste: o->toxic, else from o->seed exactly as
 * groth16_setup_insecure draws it (the same five values for the same
 * seed). o->backend picks the fixed-base engine; o->snarkjs_init, align and
 * cs_done are not used. Errors: WRONG_CURVE (not BLS12-381), FORMAT,
 * UNSUPPORTED (domain of 2^32 rows or more), INVALID_ARG (bad toxic
 * values; tau a root of unity of the domain), NOMEM, IO, NO_DEVICE. */
g16_err groth16_setup_params_insecure(g16_ctx *ctx, const g16_r1cs *cs, const groth16_setup_opts *o,
                                      const char *params_path, const char *vk_path, groth16_setup_info *info,
                                      g16_status *st);


/* ---- the prover in stages (for the engine) --------------------------------
 * A proof is three stages over a per-worker working area (groth16_work),
 * which is separate from the key so that many workers prove against one key
 * at once:
 *   1. synthesis:  a = A.w, b = B.w, c = a*b on the domain; w as scalars;
 *                  the public signals copied out. The witness may be freed
 *                  afterwards.
 *   2. heavy:      the three odd-coset NTTs, h, the five MSMs (the stage a
 *                  device worker runs); results go to the work's msms.
 *   3. finalize:   assembly with r, s (OS CSPRNG, wiped) into a g16_result;
 *                  needs only the msms (the working area is free again).
 * A working area is sized once for a key's shape (domain, nVars) and reused
 * for any number of proofs of keys of that shape. */
typedef struct groth16_timings {
    double synth_ms, ntt_ms, msm_ms, finalize_ms;
} groth16_timings;

/* The heavy stage's output: the five MSM sums and the public signals. The
 * sums are witness-derived: groth16_msms_clear wipes them. */
typedef struct groth16_msms {
    g16_curve curve;
    union {
        struct {
            bn254_g1_jac a, b1, c, h;
            bn254_g2_jac b2;
        } bn254;
        struct {
            bls381_g1_jac a, b1, c, h;
            bls381_g2_jac b2;
        } bls381;
    };
    g16_frvec pub; /* nPublic values (Montgomery), owned */
} groth16_msms;
void groth16_msms_clear(groth16_msms *m);

typedef struct groth16_work groth16_work;

/* Bytes a working area for key takes (what the engine reserves). */
size_t groth16_work_bytes(g16_ctx *ctx, const g16_key *key);
g16_err groth16_work_create(g16_ctx *ctx, groth16_work **w, const g16_key *key, g16_status *st);
/* flags: GROTH16_WORK_PINNED allocates the buffers a GPU heavy stage copies
 * to the device (a, b, c, w scalars) in pinned host memory (once, here;
 * silently malloc without CUDA or when pinning fails: see
 * groth16_work_pinned); GROTH16_WORK_NO_CPU_HEAVY leaves out what only the
 * CPU heavy stage needs (h and the MSM scratch): such a working area serves
 * groth16_stage_heavy_gpu only (groth16_stage_heavy refuses it);
 * GROTH16_WORK_WS_ONLY leaves out a, b, c as well (the w scalars only):
 * such a working area takes only GROTH16_SYNTH_WS_ONLY synthesis (a full one
 * is refused, G16_ERR_INTERNAL), for a key with rows on the device. */
enum { GROTH16_WORK_PINNED = 1, GROTH16_WORK_NO_CPU_HEAVY = 2, GROTH16_WORK_WS_ONLY = 4 };
g16_err groth16_work_create_ex(g16_ctx *ctx, groth16_work **w, const g16_key *key, unsigned flags,
                               g16_status *st);
size_t groth16_work_bytes_ex(g16_ctx *ctx, const g16_key *key, unsigned flags);
/* 1 if all of a, b, c (those allocated) and the w scalars are in pinned host memory. */
int groth16_work_pinned(const groth16_work *w);
void groth16_work_free(groth16_work *w);
/* The progress that the CPU heavy stage on w reports (its stages "ntt" and
 * "msm"; util/progress.h), or NULL for none: set by the caller that owns
 * the progress, before the stage, and reset after it. */
void groth16_work_set_progress(groth16_work *w, g16_progress *p);
/* Zeroes every witness-derived region of w (a, b, c, h, the w scalars, the
 * MSM scratch) at memset speed over the creating context's threads, and
 * leaves it unsynthesized; nothing when nothing was synthesized since the
 * last wipe. groth16_stage_heavy (at its end, also after a failure),
 * groth16_work_consume and groth16_work_free call it; a caller that drops a
 * synthesized area without a heavy stage (a failure, a cancellation) calls
 * it before the area is reused or kept. */
void groth16_work_wipe(groth16_work *w);
/* Test-only inspection: 1 if every witness-derived region of w is zero bytes
 * (reads them all). */
int groth16_work_test_wiped(const groth16_work *w);
/* Whether w was sized for key's shape (same curve, domain and nVars). */
int groth16_work_fits(const groth16_work *w, const g16_key *key);

/* Stage 1. Checks that wit belongs to key (curve, length, w[0] = 1). */
g16_err groth16_stage_synth(g16_ctx *ctx, groth16_work *w, const g16_key *key, const g16_witness *wit,
                            groth16_timings *tm, g16_status *st);
/* The same with flags: GROTH16_SYNTH_WS_ONLY computes only the witness
 * scalars (and the public signals), for a GPU heavy stage that synthesizes
 * a, b, c on the device from the key's resident coefficient rows
 * (groth16_gpu_key_synth); groth16_stage_heavy refuses such a work
 * (G16_ERR_INTERNAL), and so does groth16_stage_heavy_gpu without the rows. */
enum { GROTH16_SYNTH_WS_ONLY = 1 };
g16_err groth16_stage_synth_ex(g16_ctx *ctx, groth16_work *w, const g16_key *key, const g16_witness *wit,
                               unsigned flags, groth16_timings *tm, g16_status *st);
/* A GROTH16_SYNTH_WS_ONLY synthesis straight from a .wtns (path, or data/len
 * in memory when path is NULL): its values go into the area's scalars on
 * ctx's threads, checked as g16_wtns_read and groth16_stage_synth check
 * them (no witness object, no copy in between: at 2^27, 4.3 GB read and
 * written once instead of five times). On an error the area's scalars are
 * wiped and it is left unsynthesized. */
g16_err groth16_stage_synth_wtns(g16_ctx *ctx, groth16_work *w, const g16_key *key, const char *path,
                                 const void *data, size_t len, groth16_timings *tm, g16_status *st);
/* Turns a ws-only synthesized work into a fully synthesized one (a, b, c
 * on the CPU from the scalars: the fallback when the device that was to
 * synthesize cannot run the stage), so that groth16_stage_heavy (or
 * groth16_stage_heavy_gpu without rows) takes it. Needs a working area with
 * a, b, c (not GROTH16_WORK_WS_ONLY); G16_ERR_INTERNAL otherwise, NOMEM. */
g16_err groth16_work_synth_complete(g16_ctx *ctx, groth16_work *w, const g16_key *key, g16_status *st);
/* Stage 2: moves the results into *out (the work is then free for reuse). */
g16_err groth16_stage_heavy(g16_ctx *ctx, groth16_msms *out, groth16_work *w, const g16_key *key,
                            groth16_timings *tm, g16_status *st);
/* Stage 3: r_le/s_le NULL draws r, s from the OS CSPRNG (else tests' fixed
 * values). Clears m (its pub moves into the result). */
g16_err groth16_stage_finalize(g16_ctx *ctx, g16_result **out, const g16_key *key, groth16_msms *m,
                               const uint8_t *r_le, const uint8_t *s_le, groth16_timings *tm,
                               g16_status *st);
/* ---- the heavy stage on a GPU (prove_gpu.c; src/gpu/gpu.h) -----------------
 * A key's bases on one device (A, B1, B2, C, H), uploaded once and shared by
 * every worker context on that device; and a worker's device working area
 * (a, b, c, w and h on the device, the domain's twiddles), created once per
 * worker for a key shape. Without CUDA every call returns G16_ERR_NO_DEVICE.
 * groth16_stage_heavy_gpu replaces groth16_stage_heavy: it takes the CPU
 * working area after groth16_stage_synth, runs the odd-coset NTTs, h and the
 * five MSMs on g's stream, and leaves exactly the CPU stage's results in
 * *out (bit for bit). gkey NULL streams the bases from host memory (a key
 * that does not fit on the device). */
typedef struct groth16_gpu_key groth16_gpu_key;
typedef struct groth16_gpu_work groth16_gpu_work;
struct g16_gpu;
/* Device bytes a key takes at most (what a budget reserves): its bases and its
 * coefficient rows (GROTH16_GPU_KEY_SYNTH, (2(n+1) + nnz) x 4 + nnz x 32
 * bytes). groth16_gpu_key_upload / _bytes = the _ex forms with
 * GROTH16_GPU_KEY_SYNTH; flags 0 uploads the bases only. */
enum { GROTH16_GPU_KEY_SYNTH = 1 };
size_t groth16_gpu_key_bytes(const g16_key *key);
size_t groth16_gpu_key_bytes_ex(const g16_key *key, unsigned flags);
g16_err groth16_gpu_key_upload(struct g16_gpu *g, groth16_gpu_key **out, const g16_key *key, g16_status *st);
g16_err groth16_gpu_key_upload_ex(struct g16_gpu *g, groth16_gpu_key **out, const g16_key *key, unsigned flags,
                                  g16_status *st);
/* Nonzero when gk holds the key's coefficient rows (GPU synthesis possible). */
int groth16_gpu_key_synth(const groth16_gpu_key *gk);
/* The upload drops each of A, B1, B2, C's points at infinity (wires in no
 * term of that column) when they are 1/16 of the set or more
 * (g16_gpu_bases_drop_infinity), and each
 * MSM gathers the kept points' scalars first: so groth16_gpu_key_bytes is
 * an upper bound. Points kept of set 0..4 (A, B1, B2, C, H); what gk takes
 * on its device (bases, indices, rows, tables). */
size_t groth16_gpu_key_kept(const groth16_gpu_key *gk, int set);
size_t groth16_gpu_key_device_bytes(const groth16_gpu_key *gk);
/* Device bytes of key's coefficient rows alone (0 while a key loaded with
 * GROTH16_KEY_DEFER_PREP is not yet prepared). */
size_t groth16_gpu_key_rows_bytes(const g16_key *key);
/* Uploads key's coefficient rows into gk (which holds key's bases) when gk
 * has none: for a key loaded with GROTH16_KEY_DEFER_PREP, whose rows exist
 * only after groth16_key_prepare, that is after its bases went up. No-op
 * when gk has the rows already; G16_ERR_INVALID_ARG when gk is another
 * key's or key is not prepared; a failed upload (e.g. G16_ERR_NOMEM)
 * leaves gk as it was (bases only: CPU synthesis). */
g16_err groth16_gpu_key_add_rows(struct g16_gpu *g, groth16_gpu_key *gk, const g16_key *key, g16_status *st);
/* Frees gk's coefficient rows, if any (gk keeps its bases). */
void groth16_gpu_key_drop_rows(struct g16_gpu *g, groth16_gpu_key *gk);
/* The synthesis flags a single-proof caller passes to groth16_stage_synth_ex
 * before groth16_stage_heavy_gpu with gk: GROTH16_SYNTH_WS_ONLY when gk has
 * the rows, unless the context gk was uploaded with has gpu.synth = 0 (the
 * CPU synthesis: comparisons, kill switch; docs/config.md); else 0. */
unsigned groth16_gpu_synth_flags(const groth16_gpu_key *gk);
void groth16_gpu_key_free(struct g16_gpu *g, groth16_gpu_key *gk);
/* Memory for speed: replaces each base set of gk (A, B1, B2, C, H) by its
 * precomputed window table (g16_gpu_bases_precompute, ~13x its memory) while
 * the device has room; *made (may be NULL) receives how many sets got one.
 * Out of device memory is not an error (the rest stay plain). Not counted
 * by groth16_gpu_key_bytes (groth16_gpu_key_table_bytes is): `g16 bench
 * prove --precompute`, and the engine's keys with g16_engine_opts.gpu_tables. */
g16_err groth16_gpu_key_precompute(struct g16_gpu *g, groth16_gpu_key *gk, int *made, g16_status *st);
/* Device bytes that groth16_gpu_key_precompute's tables add to the key's
 * bases when every base set gets one (0 in a build without CUDA). */
size_t groth16_gpu_key_table_bytes(const g16_key *key);
size_t groth16_gpu_work_bytes(const g16_key *key);
g16_err groth16_gpu_work_create(struct g16_gpu *g, groth16_gpu_work **out, const g16_key *key, g16_status *st);
void groth16_gpu_work_free(struct g16_gpu *g, groth16_gpu_work *gw);
int groth16_gpu_work_fits(const groth16_gpu_work *gw, const g16_key *key);
/* Queues on g's stream the zeroing of gw's witness-derived device buffers
 * (a/h, b, c, the w scalars and their Montgomery copy): cudaMemsetAsync at
 * device memory speed, no device-global call. groth16_stage_heavy_gpu calls
 * it at its end, also after a failure. */
g16_err groth16_gpu_work_wipe(struct g16_gpu *g, groth16_gpu_work *gw, g16_status *st);
/* Tests: the nonzero bytes in gw's device buffers (waits for g's stream). */
g16_err groth16_gpu_work_test_nonzero(struct g16_gpu *g, const groth16_gpu_work *gw, size_t *nonzero,
                                      g16_status *st);
/* Kernel exclusivity (optional; NULL, the default, = none): with a mutex
 * set, groth16_stage_heavy_gpu on gw queues the copies of a, b, c, w, waits
 * for them on the host (that copy event only), then holds *mu while it runs
 * H and the five MSMs (they end with host reads of the sums), and releases
 * it on every path, failures included. Workers of one device that share one
 * mutex thus run their kernels one after the other while one worker's
 * copies and CPU work overlap another's kernels (two MSMs interleaved on
 * one GPU thrash it: docs/engine.md "Kernel exclusivity"). The mutex is the
 * caller's and must outlive gw's use; the lock is never held across a
 * device wait other than the MSMs' own. */
void groth16_gpu_work_set_exclusive(groth16_gpu_work *gw, pthread_mutex_t *mu);
typedef struct groth16_gpu_timings {
    double upload_ms, ntt_ms, msm_ms[5], gpu_ms; /* msm: A, B1, B2, C, H; gpu: first copy to last result */
    double synth_ms; /* the GPU synthesis (to_mont + rows; event-timed), 0 after a CPU synthesis */
    /* Host clock (g16_now_ms) of the stage's phases, 0 when not reached:
     * upload_begin when the copies are queued, upload_end when the host saw
     * them done; kernels_begin when H is queued (after taking the exclusive
     * mutex, if any), kernels_end when the last MSM sum is on the host
     * (before the mutex is released). Without a mutex H is queued behind the
     * copies before the host waits, so kernels_begin = upload_end there. */
    double upload_begin, upload_end, kernels_begin, kernels_end;
    double lock_wait_ms; /* waiting for the exclusive mutex (0 without) */
} groth16_gpu_timings;
g16_err groth16_stage_heavy_gpu(g16_ctx *ctx, struct g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey,
                                groth16_msms *out, groth16_work *w, const g16_key *key, groth16_timings *tm,
                                groth16_gpu_timings *gtm, g16_status *st);

/* A key over caller-owned zkey bytes (not copied; data must outlive the
 * key), flags G16_KEY_*; the working area is made by g16_prove on first use.
 * GROTH16_KEY_DEFER_PREP (a flag of this function only) leaves out the
 * prover's coefficient rows (36 bytes per coefficient), so that they never
 * coexist with the bases in host memory: upload and drop the bases first
 * (groth16_key_drop_host), then groth16_key_prepare (g16_prove prepares on
 * first use; groth16_stage_synth refuses an unprepared key). */
enum { GROTH16_KEY_DEFER_PREP = 1u << 16 };
g16_err groth16_key_prepare(g16_key *key, g16_status *st);
g16_err groth16_key_load_mem(g16_ctx *ctx, g16_key **key, const char *name, const void *data, size_t len,
                             unsigned flags, g16_status *st);
/* A witness from a vector (moved: *v is left empty). */
g16_err groth16_witness_from_frvec(g16_witness **w, g16_frvec *v, g16_status *st);
/* Internal (prove.c -> prove_gpu.c): the CPU working area's buffers after
 * groth16_stage_synth (G16_ERR_INTERNAL if not synthesized for key's
 * shape), and the end of a heavy stage run elsewhere: wipes the w scalars
 * (unless the caller already did: ws_wiped), marks the area free and moves
 * the public signals into out->pub. */
typedef struct groth16_work_bufs {
    void *abc[3];   /* a, b, c: n Fr each (Montgomery, the domain's values); unset when ws_only */
    g16_scalar *ws; /* nv canonical scalars */
    uint32_t n, nv, npub;
    int pinned;
    int ws_only; /* synthesized with GROTH16_SYNTH_WS_ONLY: only ws holds this proof's data */
} groth16_work_bufs;
g16_err groth16_work_buffers(groth16_work *w, const g16_key *key, groth16_work_bufs *b, g16_status *st);
void groth16_work_consume(groth16_work *w, groth16_msms *out, int ws_wiped);
const g16_zkey *groth16_key_zkey(const g16_key *key);
/* The key's coefficient rows as prepared for synthesis (a CSR over the
 * domain's n rows; src/gpu/gpu_synth.h has the layout): borrowed pointers,
 * valid while the key lives. coef: nnz Fr (Montgomery, 32 bytes each). */
typedef struct groth16_csr {
    uint32_t n, nnz;
    const uint32_t *row[2]; /* A's and B's row offsets, n + 1 each */
    const uint32_t *signal;
    const void *coef;
} groth16_csr;
void groth16_key_csr(const g16_key *key, groth16_csr *csr);

/* Releases host memory of a loaded key that a GPU prover no longer reads
 * (an in-memory 2^27 key is 50-80 GB; g16 bench prove --synthetic):
 * GROTH16_DROP_BASES: the A, B1, B2, C and H points, once a device holds
 * them (groth16_gpu_key_upload); GROTH16_DROP_COEFS: the coefficient
 * section, which the prover read once at load. The page-aligned interior
 * of each section gets madvise(MADV_DONTNEED) (of the aligned copy and of
 * the key's bytes): an anonymous mapping's pages are freed and read back as
 * zeros (a file mapping's are only unmapped). Then whatever would read
 * those bytes refuses with G16_ERR_UNSUPPORTED and a message: the CPU heavy
 * stage (g16_prove), another upload, streamed bases (gkey NULL). The key
 * must not be shared by a concurrent prover. */
enum { GROTH16_DROP_BASES = 1, GROTH16_DROP_COEFS = 2 };
g16_err groth16_key_drop_host(g16_key *key, unsigned what, size_t *released, g16_status *st);
/* The GROTH16_DROP_* bits dropped so far (0: the key is whole). */
unsigned groth16_key_dropped(const g16_key *key);

/* g16_key_check with the error in st (key_check.c): G16_OK (INTACT, STALE)
 * or G16_ERR_IO naming the file. Every path that returns a proof calls it
 * after the key's bytes were read: groth16_stage_finalize (before the
 * proof is assembled), groth16_result_verify, the loaders after their
 * checks, groth16_gpu_key_upload after copying the bases, and the engine
 * before each partition. */
g16_err groth16_key_check(const g16_key *key, g16_key_state *state, g16_status *st);
/* err after reading key's bytes: the check's G16_ERR_IO (in st) when the
 * key is damaged (err's own diagnosis, e.g. "invalid proof", would
 * mislead), else err unchanged. */
g16_err groth16_key_settle(const g16_key *key, g16_err err, g16_status *st);

/* Verifies res against key (verification key cached in the key). */
g16_err groth16_result_verify(const g16_key *key, const g16_result *res, g16_status *st);

/* Loads a witness from a .wtns path, or from bytes when path is NULL, with
 * the error in st (not through a shared context). */
g16_err groth16_witness_load(g16_witness **w, const char *path, const void *data, size_t len, g16_status *st);
/* The same with the wtns flags: G16_WTNS_STANDARD keeps the values in
 * standard form (a canonical check and a copy), for a synthesis with
 * GROTH16_SYNTH_WS_ONLY only (the GPU computes a, b, c): its scalars are
 * that form, so the wires skip the round trip through Montgomery form. */
g16_err groth16_witness_load_ex(g16_witness **w, const char *path, const void *data, size_t len, unsigned flags,
                                g16_status *st);
/* The same on ctx's threads (the values read in parallel); and the free that
 * wipes them on `threads` threads (g16_wipe_threads). For the engine's large
 * witnesses (4.3 GB at 2^27), whose serial read and wipe held up the first
 * partition. */
g16_err groth16_witness_load_ctx(g16_ctx *ctx, g16_witness **w, const char *path, const void *data, size_t len,
                                 unsigned flags, g16_status *st);
void groth16_witness_free_threads(g16_witness *w, int threads);

/* Key internals the engine needs: bytes held in memory (copied sections,
 * prepared coefficients, a host-tier copy) and in the file mapping. */
typedef struct groth16_key_mem {
    size_t heap_bytes, mapped_bytes;
} groth16_key_mem;
void groth16_key_memory(const g16_key *key, groth16_key_mem *m);
/* Makes key own the bytes it was loaded over (groth16_key_load_mem from
 * groth16_setup_insecure_ex's anonymous mapping): g16_key_free then releases
 * them with groth16_setup_mem_free, and groth16_key_memory counts them (less
 * what groth16_key_drop_host gave back), for the engine's in-memory keys. */
void groth16_key_adopt_mem(g16_key *key, void *mem, size_t len);
/* Loads a key; host_copy = 1 reads the whole file into host memory (the
 * "host" tier) instead of mapping it. No per-key working area is allocated
 * (the engine brings its own); g16_prove on such a key allocates one. */
g16_err groth16_key_load_ex(g16_ctx *ctx, g16_key **key, const char *path, unsigned flags, int host_copy,
                            g16_status *st);

#endif
