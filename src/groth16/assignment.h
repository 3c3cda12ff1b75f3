/* Pre-synthesized bellperson partitions (g16_assignment, include/g16.h):
 * their checks, the `.assignment` file, and the computation of one from a
 * circom R1CS and witness.
 *
 * The `.assignment` file (docs/formats.md "Assignment files"), all
 * little-endian, no padding:
 *    0  8 bytes  magic "g16asgn\0"
 *    8  u32      version = 1
 *   12  u32      curve = 2 (BLS12-381; no other value is valid)
 *   16  u64 x 9  abc_size, n_inputs, n_aux, a_aux_bit_len, a_aux_popcount,
 *                b_inp_bit_len, b_inp_popcount, b_aux_bit_len, b_aux_popcount
 *   88  a[abc_size], b[abc_size], c[abc_size], inputs[n_inputs], aux[n_aux]
 *       (32-byte g16_fr_mont each), then the a_aux density words
 *       [ceil(a_aux_bit_len / 64)], the b_inp words, the b_aux words (u64);
 *       the file ends there exactly.
 * Reading checks, in this order, before anything is allocated: the length
 * is at least the header's, magic, version, curve, every count against the
 * bytes left (64-bit arithmetic that cannot overflow), the exact length;
 * then each bitmap (set bits = its popcount, no bit past its bit length).
 * Values are checked against r where they are used (the prover). */
#ifndef G16_GROTH16_ASSIGNMENT_H
#define G16_GROTH16_ASSIGNMENT_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"
#include "../util/config.h"
#include "../util/fmap.h"
#include "../util/util.h"
#include "params.h"

#define G16_ASSIGNMENT_MAGIC "g16asgn"
#define G16_ASSIGNMENT_VERSION 1u
#define G16_ASSIGNMENT_CURVE_BLS12_381 2u
#define G16_ASSIGNMENT_HEADER_SIZE 88u

/* A partition read from a file or memory: the view `a` points into buf
 * (owned, malloc'd) or, for a file, into map (a read-only g16_fmap mapping;
 * buf is NULL). len is the file's length either way. */
typedef struct g16_assignment_file {
    g16_assignment a;
    const uint8_t *data; /* the file's len bytes: buf (from memory) or the mapping (a file); NULL when empty */
    void *buf;           /* the owned copy (g16_assignment_load_mem, ...), else NULL */
    size_t len;
    g16_fmap map;
} g16_assignment_file;

/* Reads path (a regular file), mapped read-only (util/fmap.h: no copy; the
 * pages are read where the prover reads them). The checks are those of the
 * header comment, on the mapping, and then the mapping's state. The mapping
 * lives until g16_assignment_file_free; a consumer checks
 * g16_assignment_file_intact after its reads (the file may be truncated or
 * rewritten in place under it: the guarded mapping reads zeros then, which
 * must not leave as a result). On error *f is left empty (safe to free).
 * Errors: IO (also: the file changed while it was read), TRUNCATED (shorter
 * than the header or than its counts declare), FORMAT (magic, version,
 * trailing bytes, a bitmap whose popcount or tail bits are wrong),
 * WRONG_CURVE, NOMEM. Messages name the file and the field. */
g16_err g16_assignment_read(g16_assignment_file *f, const char *path, g16_status *st);
/* G16_OK when f's bytes are still those its checks saw (always for memory
 * and computed partitions); IO naming the file when the mapped file was
 * truncated or rewritten since it was mapped. */
g16_err g16_assignment_file_intact(const g16_assignment_file *f, g16_status *st);
/* The same from memory (copied); name is used in messages. */
g16_err g16_assignment_read_mem(g16_assignment_file *f, const char *name, const void *data, size_t len,
                                g16_status *st);
/* Wipes (the values are witness data) and frees. */
void g16_assignment_file_free(g16_assignment_file *f);

/* Writes a to path atomically (util/file.h). Checks a's bitmaps first. */
g16_err g16_assignment_write(const char *path, const g16_assignment *a, g16_status *st);

/* Key-independent checks of a: non-NULL arrays where sizes are nonzero,
 * each bitmap's set bits = its popcount and no bit set past its bit length.
 * what names the partition in messages ("assignment 3"). Errors:
 * INVALID_ARG, FORMAT. */
g16_err g16_assignment_check_bits(const g16_assignment *a, const char *what, g16_status *st);
/* The checks against a key (after check_bits): a_aux_bit_len = b_aux_bit_len
 * = n_aux = aux_assignment_size, b_inp_bit_len = n_inputs =
 * inp_assignment_size, n_inputs + a_aux_popcount = the key's a count,
 * b_inp_popcount + b_aux_popcount = its b_g1 and b_g2 counts, abc_size <=
 * domain. Errors: SIZE_MISMATCH naming the field and both values. */
g16_err g16_assignment_check_key(const g16_params *p, const g16_assignment *a, const char *what, g16_status *st);

/* g16_params_key_load with the error in st rather than in ctx. */
g16_err g16_params_key_load_st(g16_ctx *ctx, g16_params_key **out, const char *path, int subgroup, g16_status *st);
/* The loaded key's decoded .params (for its vk) and the exponent m with
 * omega_b = omega_g^m over its domain (params_prove.c; tests). */
const g16_params *g16_params_key_params(const g16_params_key *key);
uint32_t g16_params_key_root_exponent(const g16_params_key *key);
/* The heavy stage of one checked partition (g16_assignment_check_bits and
 * _check_key passed, input 0 = one): H bellperson's way and the five MSM
 * sums, before r and s enter (params_prove.c has the math). A GPU backend
 * provides the same function over the same inputs; the finalize and the
 * verify stay shared. Witness-derived scratch is wiped before return.
 * Errors: NOT_CANONICAL (a value not below r, named), NOMEM, the NTT's and
 * MSMs'. */
typedef struct g16_params_msms {
    bls381_g1_jac a, b1, l, h; /* over the key's a, b_g1, l, h */
    bls381_g2_jac b2;          /* over b_g2 */
} g16_params_msms;
g16_err g16_params_heavy_cpu(g16_ctx *ctx, g16_params_msms *m, const g16_params_key *key, const g16_assignment *as,
                             const char *who, g16_status *st);

/* Every check g16_prove_assignments makes of a partition before its heavy
 * stage: check_bits, check_key, input 0 = one (values below r are checked
 * by the heavy stage). Errors as theirs, FORMAT for input 0. */
g16_err g16_params_check_partition(const g16_params_key *key, const g16_assignment *as, const char *who,
                                   g16_status *st);
/* ---- the heavy stage on a GPU (params_gpu.c) ---------------------------------
 * The same sums as g16_params_heavy_cpu from a GPU: the key's h, l, a, b_g1
 * (G1) and b_g2 (G2) bases resident on the device (uploaded once per key
 * and device), a working area per worker and key shape (made once: a, b, c
 * over the domain, a staging buffer, the scalars, the bitmaps), and a
 * context (g16_gpu_create with G2) whose max_points is best
 * g16_params_gpu_max_points (larger MSMs run in chunks). The sums are the
 * same group elements as the CPU's, so finalize gives the same proof for
 * the same r, s. Thread safety: one call at a time per context and working
 * area; a device key serves any number of contexts of its device. */
struct g16_gpu;
typedef struct g16_params_gpu_key g16_params_gpu_key;
typedef struct g16_params_gpu_work g16_params_gpu_work;
/* Device bytes of the key's bases, of one working area, and the largest
 * MSM (points), computed on the host. */
size_t g16_params_gpu_key_bytes(const g16_params_key *key);
size_t g16_params_gpu_work_bytes(const g16_params_key *key);
size_t g16_params_gpu_max_points(const g16_params_key *key);
/* Uploads the key's proving bases through g (allocates and synchronizes:
 * at key load, never per partition). Errors: the upload's, naming the array. */
g16_err g16_params_gpu_key_upload(struct g16_gpu *g, g16_params_gpu_key **out, const g16_params_key *key,
                                  g16_status *st);
void g16_params_gpu_key_free(struct g16_gpu *g, g16_params_gpu_key *gk);
/* A working area for key's partitions (allocates: once per worker and
 * shape). cfg (NULL: the defaults): gpu.params_pinned gives it two pinned
 * host buffers of 64 MiB through which g16_params_gpu_load copies. */
g16_err g16_params_gpu_work_create(struct g16_gpu *g, g16_params_gpu_work **out, const g16_params_key *key,
                                   const g16_config *cfg, g16_status *st);
/* 1 when w serves key's partitions (same domain, counts within its sizes). */
int g16_params_gpu_work_fits(const g16_params_gpu_work *w, const g16_params_key *key);
void g16_params_gpu_work_free(struct g16_gpu *g, g16_params_gpu_work *w);
/* The heavy stage of one partition on g (params_gpu.c has the steps). It
 * runs g16_params_check_partition first (the bitmaps bound the device's
 * writes). Every witness-derived device buffer and the context's MSM scratch
 * are zeroed before return, on error as well. Errors: the checks',
 * NOT_CANONICAL (a value not below r, named as the CPU names it),
 * INVALID_ARG (gk or w made for another key), DEVICE (a CUDA fault: the
 * context is unusable), NOMEM. */
g16_err g16_params_heavy_gpu(struct g16_gpu *g, g16_params_gpu_work *w, const g16_params_gpu_key *gk,
                             g16_params_msms *m, const g16_params_key *key, const g16_assignment *as, const char *who,
                             g16_status *st);
/* The same in two calls, so that a worker's copies can overlap another
 * worker's kernels: load runs g16_params_check_partition and copies the
 * partition's rows, inputs, aux values and bitmaps into w (it returns when
 * they have landed; as must stay valid and unchanged until compute
 * returns); compute runs the rest on what load put there (INVALID_ARG if
 * as is not what w holds) and wipes as above. A failed load wipes too.
 * pool (NULL: the calling thread) fills the pinned buffers when w has them.
 * g16_params_heavy_gpu loads with no pool. */
g16_err g16_params_gpu_load(struct g16_gpu *g, g16_params_gpu_work *w, const g16_params_key *key,
                            const g16_assignment *as, g16_pool *pool, const char *who, g16_status *st);
g16_err g16_params_gpu_compute(struct g16_gpu *g, g16_params_gpu_work *w, const g16_params_gpu_key *gk,
                               g16_params_msms *m, const g16_params_key *key, const g16_assignment *as,
                               const char *who, g16_status *st);
/* The times of the last partition on w, in milliseconds: load_ms the host's
 * clock over g16_params_gpu_load's copies; the rest CUDA events of the
 * compute on the device: prep_ms the checks and scatters, h_ms the seven
 * NTTs and the quotient, scalars_ms the canonical forms and compaction
 * (and the checks' read-back), msm_ms the MSMs over h, l, a, b_g1, b_g2
 * (each from the end of the one before: its launch and result wait
 * included), compute_ms their sum. All 0 before the first partition. */
typedef struct g16_params_gpu_times {
    double load_ms;
    float prep_ms, h_ms, scalars_ms, msm_ms[5], compute_ms;
} g16_params_gpu_times;
void g16_params_gpu_work_times(const g16_params_gpu_work *w, g16_params_gpu_times *t);
/* Test hook: the pinned copies in pieces of bytes (16 .. 64 MiB; else the
 * default 64 MiB), so that a small partition takes many pieces. */
void g16_params_gpu_work_test_piece(g16_params_gpu_work *w, size_t bytes);

/* The stages after g16_params_heavy_cpu (the engine's finalize thread): r
 * and s fresh from the OS CSPRNG (used in constant time, wiped), the proof
 * assembled from m, verified against the key's vk with the public inputs
 * pub[0 .. npub-1] (the inputs after the constant one, Montgomery form)
 * when verify is set, and encoded (192 bytes, bellperson's). Errors: IO
 * (getrandom), INVALID_PROOF (naming who), g16_params_verify's.
 * *verify_ms (may be NULL): the verify's milliseconds (0 without it). */
g16_err g16_params_finish(uint8_t proof[G16_PARAMS_PROOF_SIZE], const g16_params_key *key, const g16_params_msms *m,
                          const bls381_fr *pub, size_t npub, int verify, double *verify_ms, const char *who,
                          g16_status *st);

/* g16_prove_assignments with the error in st rather than in ctx. */
g16_err g16_prove_assignments_st(g16_ctx *ctx, const g16_params_key *key, const g16_assignment *assignments,
                                 size_t n, const g16_assignment_prove_opts *opts, g16_params_proof_raw *proofs,
                                 g16_status *st);
/* m (mod 2^k, odd for k >= 1) with bellperson's 7^((r-1)/2^k) = w[k]^m, w[k]
 * g16's root of unity of order 2^k (ntt.h). */
uint32_t g16_params_root_exponent(unsigned k);

/* A partition computed bellperson's way from a circom R1CS over BLS12-381
 * and a satisfying-or-not witness of it: inputs = wires 0 .. nPubOut+nPubIn,
 * aux = the rest; rows = the constraints, then one row A = input_i per
 * input; a/b/c = the rows' evaluations <A_j, w>, <B_j, w>, <C_j, w>; the
 * densities from which variables the rows name (a zero coefficient still
 * names its wire). The arrays live in `own` (freed with
 * g16_assignment_file_free). Errors: the R1CS and .wtns readers', WRONG_CURVE
 * (not BLS12-381), SIZE_MISMATCH (witness length), NOMEM. */
g16_err g16_assignment_from_r1cs(g16_assignment_file *own, const char *r1cs_path, const char *wtns_path,
                                 g16_status *st);
struct g16_r1cs;
struct g16_frvec;
/* The same from a circuit and witness in memory (not taken over; name is
 * used in messages): for circuits too large to write out (g16 bench params
 * --in-memory). */
g16_err g16_assignment_from_mem(g16_assignment_file *own, const struct g16_r1cs *r, const struct g16_frvec *w,
                                const char *name, g16_status *st);

/* A decimal integer below r as a g16_fr_mont (tests' fixed r, s).
 * Errors: FORMAT, NOT_CANONICAL (as bls381_fr_from_dec). */
g16_err g16_fr_mont_from_dec(g16_fr_mont *out, const char *dec);

/* ---- files end to end (g16 prove --params, g16 verify --params) -----------
 * Proves the partition in asg_path with the key and writes proof_path (the
 * 192-byte bellperson proof) and public_path (the inputs after the constant
 * one, a JSON list of decimal strings, snarkjs's public.json layout) as a
 * pair: both complete on disk before either is renamed into place. opts as
 * g16_prove_assignments'. Errors: the reader's, the prover's, IO. */
g16_err g16_params_prove_file(g16_ctx *ctx, const g16_params_key *key, const char *asg_path, const char *proof_path,
                              const char *public_path, const g16_assignment_prove_opts *opts, g16_status *st);
/* Verifies proof_path against key_path (a .vk or a .params: only its vk and
 * ic are decoded) and public_path. Returns G16_OK (valid),
 * G16_ERR_INVALID_PROOF (not valid), or the readers' errors. */
g16_err g16_params_verify_files(const char *key_path, const char *public_path, const char *proof_path,
                                g16_status *st);

#endif
