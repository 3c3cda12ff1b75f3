/* formats layer: the circom/snarkjs file formats, below the groth16 layer
 * (prove, verify, setup: src/groth16/groth16.h, which includes this header).
 *
 * Formats (docs/formats.md has the validation order and error codes):
 *   - the iden3 binary container shared by .zkey/.wtns/.r1cs/.ptau (binfile.c;
 *     writing it: binwrite.h)
 *   - .zkey (Groth16 proving key, snarkjs 0.7 layout)                (zkey.c)
 *   - .wtns (version 2) and .r1cs (version 1)                        (wtns_r1cs.c)
 *   - proof.json, public.json, verification_key.json                 (json.c)
 *   - Fr vectors (witness, public signals)
 * Every reader treats its input as untrusted: every length is checked
 * against the bytes actually present (without integer overflow), every field
 * element for canonical form, every point for the curve equation and (unless
 * the caller says the file is trusted) the prime-order subgroup. Errors are
 * g16_err codes with a message naming the file and the fault (g16_status). */
#ifndef G16_FORMATS_H
#define G16_FORMATS_H

#include <stdint.h>
#include <string.h>

#include "../curve/curve.h"
#include "../pairing/pairing.h" /* g16_vk_from_zkey: alphabeta = e(alpha1, beta2) */
#include "../util/fmap.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "g16's file formats assume a little-endian host (zero-copy key points)"
#endif

/* ---- the binary container ----------------------------------------------
 *   char magic[4]; u32 version; u32 nSections;
 *   nSections x { u32 id; u64 size; u8 data[size] }      (little-endian)
 * The file is mapped read-only (mmap, a guarded mapping: src/util/fmap.h);
 * section data are pointers into the mapping and stay valid until
 * g16_binfile_close. Sections may come in any order; a repeated id is
 * rejected; the sections must cover the file exactly (no trailing bytes).
 * A file truncated while mapped does not kill the process: its pages read
 * as zeros from then on and g16_binfile_check reports it (docs/formats.md
 * "Mapped files that change"). */
typedef struct g16_binfile_section {
    uint32_t id;
    uint64_t size;
    const uint8_t *data;
} g16_binfile_section;

typedef struct g16_binfile {
    char name[192];          /* file name (for messages), maybe truncated */
    const uint8_t *base;     /* the whole file */
    size_t len;
    int mapped;              /* 1: base is our mmap, unmapped on close */
    char magic[5];
    uint32_t version;
    uint32_t nsections;
    g16_binfile_section *sec; /* nsections entries, file order */
    g16_fmap map;            /* the guarded mapping (when mapped), or the origin of a copy */
} g16_binfile;

/* Maps path and indexes its sections. magic is the expected 4-char type,
 * versions outside [1, max_version] give G16_ERR_UNSUPPORTED.
 * Errors: IO (open/mmap), TRUNCATED (file ends inside a header or a section),
 * FORMAT (magic, duplicate section, trailing bytes), NOMEM. On error bf is
 * left closed (safe to close again). */
g16_err g16_binfile_open(g16_binfile *bf, const char *path, const char *magic, uint32_t max_version,
                         g16_status *st);
/* The same over a caller-owned buffer (not copied; must outlive bf). */
g16_err g16_binfile_open_mem(g16_binfile *bf, const char *name, const void *data, size_t len,
                             const char *magic, uint32_t max_version, g16_status *st);
void g16_binfile_close(g16_binfile *bf);
/* Finds section id. Returns G16_OK, or G16_ERR_FORMAT "missing section". */
g16_err g16_binfile_find(const g16_binfile *bf, uint32_t id, const g16_binfile_section **sec,
                            g16_status *st);
int g16_binfile_has(const g16_binfile *bf, uint32_t id);
/* Whether the mapped file is still what was mapped (g16_fmap_state):
 * G16_OK, or G16_ERR_IO with "<name> changed while in use (truncated ... |
 * rewritten in place ...)<advice>" (advice: e.g. "; reload the key", may be
 * NULL). A buffer (open_mem) is always G16_OK. *state (may be NULL) gets the
 * G16_FMAP_* state. Cheap: an atomic load and one fstat. */
g16_err g16_binfile_check(const g16_binfile *bf, const char *advice, int *state, g16_status *st);
/* err after reading bf: the check's G16_ERR_IO when the file changed (the
 * reads may have seen zeros or new bytes, so err's own diagnosis would
 * mislead), else err unchanged. */
g16_err g16_binfile_settle(const g16_binfile *bf, g16_err err, const char *advice, g16_status *st);

/* Little-endian loads from possibly unaligned bytes. */
static inline uint32_t g16_le32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t g16_le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* ---- Fr vectors (witness, public signals) ------------------------------
 * Both curves' Fr have 4 limbs. Values are in Montgomery form of the curve's
 * Fr (bn254_fr or bls381_fr), unless `standard` is set: then each is the
 * canonical integer (< r) as little-endian limbs, i.e. a g16_scalar, which
 * is what the MSMs take and what snarkjs's synthesis multiplies (Montgomery)
 * with the key's c*R^2 coefficients. */
typedef struct g16_frvec {
    g16_curve curve;
    int standard; /* 0: Montgomery (default), 1: standard form */
    size_t n;
    union {
        bn254_fr *bn254;
        bls381_fr *bls381;
        limb_t (*raw)[4];
    };
} g16_frvec;
void g16_frvec_free(g16_frvec *v);

/* ---- .zkey (Groth16) ---------------------------------------------------- */
enum {
    /* Skip canonical/on-curve/subgroup checks of the big point sections
     * (A, B1, B2, C, H). The header, vk points and IC are always fully
     * checked, and the coefficient section is always validated. */
    G16_ZKEY_TRUSTED = 1,
    /* Also check every point of the big sections for subgroup membership
     * (costly: ~a scalar multiplication's worth per point on BLS12-381 G1
     * and on G2; BN254 G1 is prime order so it is free there). Ignored with
     * G16_ZKEY_TRUSTED. */
    G16_ZKEY_CHECK_SUBGROUP = 2,
    /* Never copy: a misaligned point section gets a NULL typed pointer and
     * is reachable only through key->raw[] (bytes in the mapping), e.g. for
     * a GPU upload that does not care about host alignment. Keeps a big key
     * entirely in the (reclaimable, shareable) file mapping. */
    G16_ZKEY_NO_COPY = 4,
    /* Stop after the header: container, protocol, section 2 (curve, counts,
     * vk points) and the sizes of sections 3..9; IC, the coefficients and
     * the big sections are neither read nor checked, and the point and
     * coefficient pointers stay NULL (g16_key_peek). */
    G16_ZKEY_HEADER_ONLY = 8,
    /* Stop after IC (the verification key: header, vk points, IC, all
     * checked): the coefficients and the big sections are neither read nor
     * checked, and their pointers stay NULL (the Solidity export). */
    G16_ZKEY_VK_ONLY = 16
};

/* One entry of section 4: value = c * R^2 mod r with R = 2^256, i.e. the
 * Montgomery form of c*R, so mont_mul(value, w) = (c*w) in Montgomery form
 * for w in standard form. */
#define G16_ZKEY_COEF_SIZE 44 /* u32 matrix, u32 constraint, u32 signal, 32-byte value */
typedef struct g16_zkey_coef {
    uint32_t matrix; /* 0 = A, 1 = B */
    uint32_t constraint;
    uint32_t signal;
    limb_t value[4];
} g16_zkey_coef;

#define G16_ZKEY_CURVE_DECLARE(CV)                                                          \
    typedef struct g16_zkey_##CV {                                                          \
        CV##_g1_affine alpha1, beta1, delta1;                                               \
        CV##_g2_affine beta2, gamma2, delta2;                                               \
        /* nPublic+1, nVars, nVars, nVars, nVars-nPublic-1, domainSize points. */          \
        const CV##_g1_affine *IC, *A, *B1, *C, *H;                                          \
        const CV##_g2_affine *B2;                                                           \
    } g16_zkey_##CV;
G16_ZKEY_CURVE_DECLARE(bn254)
G16_ZKEY_CURVE_DECLARE(bls381)

/* Section ids of a Groth16 zkey. */
enum {
    G16_ZKEY_SEC_HEADER = 1,
    G16_ZKEY_SEC_GROTH = 2,
    G16_ZKEY_SEC_IC = 3,
    G16_ZKEY_SEC_COEFS = 4,
    G16_ZKEY_SEC_A = 5,
    G16_ZKEY_SEC_B1 = 6,
    G16_ZKEY_SEC_B2 = 7,
    G16_ZKEY_SEC_C = 8,
    G16_ZKEY_SEC_H = 9
};

/* A loaded Groth16 proving key. The point arrays (IC, A, B1, B2, C, H) point
 * straight into the mapped file whenever the section's data is 8-byte
 * aligned in the file: snarkjs stores each coordinate as little-endian
 * Montgomery limbs, which is exactly our affine struct layout (checked by
 * static asserts in zkey.c). A misaligned section (snarkjs's layout leaves
 * about half of them at offset 4 mod 8) is copied, fused with its validation
 * pass, into an aligned anonymous mapping; copied_bytes reports how much
 * (G16_ZKEY_NO_COPY leaves it in place, reachable through raw[] only). */
typedef struct g16_zkey {
    g16_curve curve;
    uint32_t n8q, n8r;
    uint32_t nVars, nPublic, domainSize, log2_domain;
    uint32_t nCoef;
    const uint8_t *coefs; /* nCoef x G16_ZKEY_COEF_SIZE bytes; read with g16_zkey_coef_get */
    union {
        g16_zkey_bn254 bn254;
        g16_zkey_bls381 bls381;
    };
    size_t copied_bytes;
    /* The point sections' bytes in the mapping, in the order IC, A, B1, B2,
     * C, H (index = section id - 3, skipping 4): always set, any alignment. */
    const uint8_t *raw[6];
    /* 1: the big sections' point checks were skipped because the checked-key
     * cache holds this unchanged file (g16_zkey_open_ex) */
    int checks_cached;
    /* private */
    g16_binfile file;
    void *copy[6];
    size_t copy_len[6];
} g16_zkey;

/* Loads and validates a zkey (see flags above). pool may be NULL (serial).
 * Errors: those of g16_binfile_open; FORMAT (protocol != 1, missing or
 * wrongly sized section, bad counts, coefficient out of range);
 * WRONG_CURVE (q not BN254's or BLS12-381's base prime, r not the matching
 * group order); NOT_CANONICAL / NOT_ON_CURVE / NOT_IN_SUBGROUP (points,
 * coefficient values); UNSUPPORTED (domain too large for the field's
 * 2-adicity). On error key is left closed. */
g16_err g16_zkey_open(g16_zkey *key, const char *path, unsigned flags, g16_pool *pool,
                      g16_status *st);
/* g16_zkey_open with the checked-key cache (util/keycache.h) in directory
 * cache_dir (NULL: none): when it records this file, unchanged, as checked
 * at the level the flags ask for (on the curve; with
 * G16_ZKEY_CHECK_SUBGROUP, in the subgroup too), the big sections are not
 * checked (checks_cached = 1; the header, IC and coefficients still are);
 * a load that checked them, and found the file the same before and after,
 * records it. */
g16_err g16_zkey_open_ex(g16_zkey *key, const char *path, unsigned flags, const char *cache_dir, g16_pool *pool,
                         g16_status *st);
g16_err g16_zkey_open_mem(g16_zkey *key, const char *name, const void *data, size_t len,
                          unsigned flags, g16_pool *pool, g16_status *st);
void g16_zkey_close(g16_zkey *key);
/* Whether the key's file is still what was loaded: G16_OK, or G16_ERR_IO
 * ("<file> changed while in use (...); reload the key") once a mapped key's
 * file was truncated or rewritten in place (g16_binfile_check). *state (may
 * be NULL) gets a g16_key_state (include/g16.h): G16_KEY_FILE_STALE (with
 * G16_OK) when the path names other contents now but the loaded bytes do
 * not depend on them (renamed over, or a copy: g16_fmap_stale). */
g16_err g16_zkey_check(const g16_zkey *key, int *state, g16_status *st);

static inline void g16_zkey_coef_get(const g16_zkey *key, size_t i, g16_zkey_coef *c) {
    const uint8_t *p = key->coefs + i * G16_ZKEY_COEF_SIZE;
    c->matrix = g16_le32(p);
    c->constraint = g16_le32(p + 4);
    c->signal = g16_le32(p + 8);
    memcpy(c->value, p + 12, 32);
}
static inline uint32_t g16_zkey_nC(const g16_zkey *key) { return key->nVars - key->nPublic - 1; }

/* ---- .wtns (version 2) -------------------------------------------------
 * Section 1: u32 n8, prime[n8], u32 nWitness; section 2: nWitness x n8
 * bytes, standard form. The prime selects the curve (it must be BN254's or
 * BLS12-381's r: else WRONG_CURVE); n8 must be 32; values must be < r
 * (NOT_CANONICAL). Output values are Montgomery form. */
g16_err g16_wtns_read(g16_frvec *w, const char *path, g16_status *st);
g16_err g16_wtns_read_mem(g16_frvec *w, const char *name, const void *data, size_t len,
                          g16_status *st);
/* The same with flags: G16_WTNS_STANDARD keeps the values in standard form
 * (w->standard = 1; a canonical check and a copy, no conversion); and the
 * values read in chunks on pool's threads (NULL: the caller's thread).
 * G16_WTNS_HEADER_ONLY checks the container and the header (section 1, and
 * section 2's size against nWitness) and sets w->curve and w->n only: no
 * value is read (w->raw stays NULL; g16_witness_peek). */
enum { G16_WTNS_STANDARD = 1, G16_WTNS_HEADER_ONLY = 2 };
g16_err g16_wtns_read_ex(g16_frvec *w, const char *path, unsigned flags, struct g16_pool *pool, g16_status *st);
g16_err g16_wtns_read_mem_ex(g16_frvec *w, const char *name, const void *data, size_t len,
                             unsigned flags, struct g16_pool *pool, g16_status *st);
/* A .wtns (path, or data/len in memory when path is NULL) read straight
 * into the caller's dst of cap values, in standard form (no copy of the
 * witness in between): w->raw = dst (borrowed: not g16_frvec_free'd). More
 * than cap values: G16_ERR_SIZE_MISMATCH before any is written; after
 * another error dst may hold some values (the caller wipes it). */
g16_err g16_wtns_read_into(g16_frvec *w, const char *path, const void *data, size_t len, g16_scalar *dst,
                           size_t cap, struct g16_pool *pool, g16_status *st);
/* Checks a witness against a key: same curve (WRONG_CURVE), nWitness ==
 * nVars (SIZE_MISMATCH), w[0] == 1 (FORMAT). */
g16_err g16_wtns_check_key(const g16_frvec *w, const g16_zkey *key, g16_status *st);
/* Writes a .wtns (version 2) file from either form (tests, tools). */
g16_err g16_wtns_write(const char *path, const g16_frvec *w, g16_status *st);
/* The same file's bytes in memory (*out malloc'd, *len bytes; free()). */
g16_err g16_wtns_encode(void **out, size_t *len, const g16_frvec *w, g16_status *st);

/* ---- .r1cs (version 1) -------------------------------------------------
 * In memory as three CSR matrices (A, B, C) of nConstraints rows: row i's
 * terms are wire[row[i] .. row[i+1]) with coef[...] (Fr, Montgomery). */
typedef struct g16_r1cs_matrix {
    uint64_t *row; /* nConstraints + 1 offsets */
    uint32_t *wire;
    limb_t (*coef)[4]; /* Montgomery form in the curve's Fr */
} g16_r1cs_matrix;

typedef struct g16_r1cs {
    g16_curve curve;
    uint32_t n8;
    uint32_t nWires, nPubOut, nPubIn, nPrvIn, nConstraints;
    uint64_t nLabels;
    uint64_t nnz[3];
    g16_r1cs_matrix m[3]; /* 0 = A, 1 = B, 2 = C */
    uint64_t *labels;      /* section 3: nWires label ids, or NULL if absent */
} g16_r1cs;

/* Reads an .r1cs. Validates: header sizes and counts (1 + nPubOut + nPubIn +
 * nPrvIn <= nWires), prime = a known r (WRONG_CURVE), n8 = 32, every term's
 * wire < nWires and coefficient < r, section 2 length = the constraints'
 * encoded length exactly, section 3 (if present) = nWires x u64. Custom-gate
 * sections (4, 5) give UNSUPPORTED. */
g16_err g16_r1cs_read(g16_r1cs *r, const char *path, g16_status *st);
g16_err g16_r1cs_read_mem(g16_r1cs *r, const char *name, const void *data, size_t len,
                          g16_status *st);
void g16_r1cs_free(g16_r1cs *r);
static inline uint32_t g16_r1cs_npublic(const g16_r1cs *r) { return r->nPubOut + r->nPubIn; }
/* Checks <A_i,w> * <B_i,w> == <C_i,w> for every row, and w[0] == 1 (w in
 * either form).
 * Returns G16_OK; WRONG_CURVE / SIZE_MISMATCH (nWitness != nWires);
 * G16_ERR_INVALID_ARG with *bad_row (if non-NULL) = the first failing row
 * (w[0] != 1 reports UINT32_MAX). */
g16_err g16_r1cs_check_witness(const g16_r1cs *r, const g16_frvec *w, uint32_t *bad_row,
                               g16_status *st);

/* ---- JSON: proof.json, public.json, verification_key.json ---------------
 * Layouts are snarkjs's (bfj.write(..., {space: 1}), i.e. JSON.stringify(x,
 * null, 1) except an empty array is "[\n]"; no trailing newline). Numbers
 * are decimal strings in standard form; points are affine with a projective
 * third coordinate "1" (G2: ["1","0"]); infinity is ["0","1","0"] (G2:
 * [["0","0"],["1","0"],["0","0"]]). Curve names "bn128" and "bls12381".
 * Readers check: valid JSON, no duplicate keys (FORMAT); protocol "groth16"
 * and a known curve (FORMAT; WRONG_CURVE when it differs from the caller's);
 * array lengths and element types (FORMAT); decimal syntax (FORMAT),
 * canonical (NOT_CANONICAL); points on curve (NOT_ON_CURVE) and in the
 * subgroup (NOT_IN_SUBGROUP). Writers return NOMEM or IO. */
typedef struct g16_proof {
    g16_curve curve;
    union {
        struct {
            bn254_g1_affine a;
            bn254_g2_affine b;
            bn254_g1_affine c;
        } bn254;
        struct {
            bls381_g1_affine a;
            bls381_g2_affine b;
            bls381_g1_affine c;
        } bls381;
    };
} g16_proof;

typedef struct g16_vk {
    g16_curve curve;
    uint32_t nPublic;
    int has_alphabeta; /* alphabeta set (from the key, from JSON, or by the caller) */
    union {
        struct {
            bn254_g1_affine alpha1;
            bn254_g2_affine beta2, gamma2, delta2;
            bn254_g1_affine *IC; /* nPublic + 1, malloc'd */
            /* e(alpha1, beta2) in Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - xi);
             * JSON: [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], Fp2 as [c0, c1]. */
            bn254_fp12 alphabeta;
        } bn254;
        struct {
            bls381_g1_affine alpha1;
            bls381_g2_affine beta2, gamma2, delta2;
            bls381_g1_affine *IC;
            bls381_fp12 alphabeta;
        } bls381;
    };
} g16_vk;
void g16_vk_free(g16_vk *vk);
/* Copies the verification part of a key (IC is copied, malloc'd) and
 * computes alphabeta = e(alpha1, beta2) (has_alphabeta = 1), as snarkjs's
 * "zkey export verificationkey" does. */
g16_err g16_vk_from_zkey(g16_vk *vk, const g16_zkey *key, g16_status *st);

/* curve: the expected curve, or -1 to take it from the file (proof.json and
 * verification_key.json carry it; public.json does not and needs a curve).
 * A file over its kind's size limit is refused (G16_ERR_FORMAT) before it
 * is read; so is anything but a regular file (G16_ERR_IO). A verification
 * key whose alpha, beta, gamma, delta or IC point is infinity is refused
 * (G16_ERR_FORMAT): no real setup produces one, and with IC at infinity a
 * proof verifies for any public input. */
#define G16_PROOF_JSON_MAX ((size_t)1 << 20)   /* proof.json: 1 MiB */
#define G16_VK_JSON_MAX ((size_t)64 << 20)     /* verification_key.json: 64 MiB */
#define G16_PUBLIC_JSON_MAX ((size_t)64 << 20) /* public.json: 64 MiB */
g16_err g16_proof_json_read(g16_proof *p, const char *path, int curve, g16_status *st);
g16_err g16_proof_json_parse(g16_proof *p, const char *text, size_t len, int curve, g16_status *st);
g16_err g16_public_json_read(g16_frvec *pub, const char *path, g16_curve curve, g16_status *st);
g16_err g16_public_json_parse(g16_frvec *pub, const char *text, size_t len, g16_curve curve,
                              g16_status *st);
g16_err g16_vk_json_read(g16_vk *vk, const char *path, int curve, g16_status *st);
g16_err g16_vk_json_parse(g16_vk *vk, const char *text, size_t len, int curve, g16_status *st);

/* Writers produce a malloc'd NUL-terminated string (free with free()), or a
 * file with exactly those bytes. public.json holds v[first .. first+count)
 * (for a witness: first = 1, count = nPublic). The vk writer needs
 * has_alphabeta (else INVALID_ARG). */
g16_err g16_proof_json_str(char **out, const g16_proof *p, g16_status *st);
g16_err g16_public_json_str(char **out, const g16_frvec *v, size_t first, size_t count,
                            g16_status *st);
g16_err g16_vk_json_str(char **out, const g16_vk *vk, g16_status *st);
g16_err g16_proof_json_write(const char *path, const g16_proof *p, g16_status *st);
g16_err g16_public_json_write(const char *path, const g16_frvec *v, size_t first, size_t count,
                              g16_status *st);
g16_err g16_vk_json_write(const char *path, const g16_vk *vk, g16_status *st);
/* A, B and C on the curve and in the prime-order subgroup, else
 * G16_ERR_NOT_IN_SUBGROUP naming the point: a proof made from a key whose
 * bases carry a small-order component (a point of order 3 or 11 added to a
 * BLS12-381 base) passes the pairing check but not this one. */
g16_err g16_proof_check_subgroup(const g16_proof *p, g16_status *st);
/* proof.json and public.json (all of pub) as a pair: both are written and
 * fsync'd before either is renamed into place (util/file.h); on an error
 * neither old file is touched. A NULL path skips that file. */
g16_err g16_result_files_write(const char *proof_path, const g16_proof *p, const char *public_path,
                               const g16_frvec *pub, g16_status *st);

/* ---- Solidity (solidity.c): snarkjs 0.7.6's exports, byte for byte --------
 * g16_solidity_verifier_str: the Groth16Verifier contract that "snarkjs zkey
 * export solidityverifier" writes for vk (its verifier_groth16.sol.ejs,
 * rendered). The contract calls the EVM's BN254 precompiles; snarkjs renders
 * a BLS12-381 key into the same text all the same (its numbers exceed
 * uint256, so that contract does not compile), and so does this.
 * g16_solidity_calldata_*: the line "snarkjs zkey export soliditycalldata"
 * prints, without its newline: [A],[[B]],[C],[public inputs] as quoted
 * "0x" hex of at least 64 digits (G2 as c1, c0). The proof must name
 * protocol "groth16" (FORMAT when missing, UNSUPPORTED for another); one
 * without "curve" is read as BN254; proof and public inputs are validated
 * as g16_proof_json_read / g16_public_json_read do (the public inputs on
 * the proof's curve). *out is malloc'd (free()). */
g16_err g16_solidity_verifier_str(char **out, const g16_vk *vk, g16_status *st);
g16_err g16_solidity_calldata_str(char **out, const g16_proof *p, const g16_frvec *pub, g16_status *st);
g16_err g16_solidity_calldata_parse(char **out, const char *public_json, size_t public_len, const char *proof_json,
                                    size_t proof_len, g16_status *st);
g16_err g16_solidity_calldata_files(char **out, const char *public_path, const char *proof_path, g16_status *st);

/* snarkjs's curve name: "bn128" / "bls12381". */
const char *g16_snarkjs_curve_name(g16_curve curve);

#endif
