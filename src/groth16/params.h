/* bellperson (Filecoin) Groth16 keys over BLS12-381: the `.params` file
 * (Parameters::write) and the `.vk` file (VerifyingKey::write).
 *
 * Layout (no header, no magic; every integer big-endian):
 *   vk:  alpha_g1 G1, beta_g1 G1, beta_g2 G2, gamma_g2 G2, delta_g1 G1,
 *        delta_g2 G2                                            (864 bytes)
 *        u32 n_ic, n_ic x G1 ic
 *   .params only, after the vk, in this order, each a u32 count and points:
 *        h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2)
 * Points are zcash/IETF uncompressed: G1 x || y (96 bytes), G2
 * x.c1 || x.c0 || y.c1 || y.c0 (192 bytes), each coordinate 48 bytes
 * big-endian; byte 0's top three bits are flags (0x80 compressed, 0x40
 * infinity, 0x20 sort) and must be 0, 0 or 1 with all else zero, and 0.
 *
 * Validation order (docs/formats.md "bellperson .params and .vk"):
 *   1. layout: every count is read and checked against the bytes left
 *      (count x point size <= remaining, in 64-bit arithmetic) before any
 *      allocation; a .params must end exactly after b_g2, a .vk after ic;
 *   2. the vk's six points: flags, canonical, on curve, in the subgroup,
 *      not infinity (always checked);
 *   3. every array point: flags, canonical (coordinates < p), on curve,
 *      then the subgroup when checks are on; ic points at infinity are
 *      refused. The first failure in file order is reported, with its array
 *      and index ("h[17]: not on curve").
 * Errors: TRUNCATED, FORMAT, NOT_CANONICAL, NOT_ON_CURVE, NOT_IN_SUBGROUP,
 * IO (open/map, or the file changed while it was read), NOMEM. */
#ifndef G16_GROTH16_PARAMS_H
#define G16_GROTH16_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "../curve/curve.h"
#include "../util/util.h"

#define G16_PARAMS_G1_SIZE 96u
#define G16_PARAMS_G2_SIZE 192u
#define G16_PARAMS_VK_POINTS_SIZE 864u /* 3 G1 + 3 G2 */

/* Files up to this size get the subgroup check by default; larger ones
 * (Filecoin's keys run to GiB) are loaded unchecked unless the caller asks,
 * as bellperson does. The checks cost about 200 us per point per core
 * (G1 and G2 alike; measured on the 2-core dev machine, release build), so
 * 1 MiB (about 11k G1 points) is about 2 s of one core, split over the
 * pool, while an unchecked load converts 1 MiB in about 15 ms. */
#define G16_PARAMS_CHECK_LIMIT ((uint64_t)1 << 20)

/* The arrays, in file order. */
enum {
    G16_PARAMS_IC = 0,
    G16_PARAMS_H,
    G16_PARAMS_L,
    G16_PARAMS_A,
    G16_PARAMS_B_G1,
    G16_PARAMS_B_G2,
    G16_PARAMS_NARRAYS
};

typedef enum g16_params_kind {
    G16_PARAMS_KIND_AUTO = 0, /* a .vk if the file ends right after ic, else a .params */
    G16_PARAMS_KIND_FULL = 1, /* .params */
    G16_PARAMS_KIND_VK = 2    /* .vk */
} g16_params_kind;

typedef struct g16_params_opts {
    g16_params_kind kind;
    int subgroup;  /* -1: checked iff the file is <= G16_PARAMS_CHECK_LIMIT; 0: off; 1: on */
    int vk_only;   /* 1: decode the vk and ic only; the other arrays' layout is still
                    * checked, their pointers stay NULL (cheap inspection: g16 info) */
} g16_params_opts;

typedef struct g16_params {
    int is_vk_file;            /* 1 when the file was a .vk */
    int subgroup_checked;      /* 1 when every decoded point passed the subgroup check */
    uint64_t file_len;
    uint64_t vk_len;           /* bytes of the vk: 864 + 4 + 96 n_ic (a .vk file's size) */
    uint8_t vk_digest[32];     /* BLAKE2b-256 of those vk_len bytes */
    bls381_g1_affine alpha_g1, beta_g1, delta_g1;
    bls381_g2_affine beta_g2, gamma_g2, delta_g2;
    uint32_t n[G16_PARAMS_NARRAYS];  /* counts (0 for the absent arrays of a .vk) */
    uint64_t off[G16_PARAMS_NARRAYS]; /* file offset of each array's first point */
    /* Montgomery-form affine points; infinity is (0, 0). NULL when the
     * count is 0, the file is a .vk, or vk_only was set (ic is always
     * decoded). Owned: g16_params_free. */
    bls381_g1_affine *ic, *h, *l, *a, *b_g1;
    bls381_g2_affine *b_g2;
} g16_params;

/* The array's name as used in messages: "ic", "h", "l", "a", "b_g1", "b_g2". */
const char *g16_params_array_name(int array);

/* Loads path (mapped read-only through g16_fmap; the mapping is closed
 * before return, as every point is converted). opts NULL: defaults (AUTO
 * kind, subgroup -1, everything decoded). Point conversion runs on pool
 * (NULL: the calling thread). On error *p is left empty (safe to free). */
g16_err g16_params_load(g16_params *p, const char *path, const g16_params_opts *opts, g16_pool *pool,
                        g16_status *st);
/* The same from memory; name is used in messages. */
g16_err g16_params_load_mem(g16_params *p, const char *name, const uint8_t *data, size_t len,
                            const g16_params_opts *opts, g16_pool *pool, g16_status *st);
void g16_params_free(g16_params *p);

/* ---- bellperson proofs ----------------------------------------------------
 * 192 bytes: A (G1 compressed, 48) || B (G2 compressed, 96) || C (G1
 * compressed, 48), zcash encoding. Decoding checks flags, canonical, on
 * curve and subgroup for each point (errors as the curve layer's decoders,
 * messages naming "proof A" etc.). */
#define G16_PARAMS_PROOF_SIZE 192u
typedef struct g16_params_proof {
    bls381_g1_affine a;
    bls381_g2_affine b;
    bls381_g1_affine c;
} g16_params_proof;
g16_err g16_params_proof_decode(g16_params_proof *pr, const uint8_t *buf, size_t len, g16_status *st);
void g16_params_proof_encode(uint8_t buf[G16_PARAMS_PROOF_SIZE], const g16_params_proof *pr);

/* Groth16 verification against a loaded .params or .vk:
 *   e(-A, B) e(vk_x, gamma_g2) e(C, delta_g2) e(alpha_g1, beta_g2) == 1,
 *   vk_x = ic[0] + sum_j pub[j] ic[j + 1]
 * pub: npub = n_ic - 1 public inputs (Montgomery Fr). Returns G16_OK,
 * G16_ERR_INVALID_PROOF, or SIZE_MISMATCH for a wrong npub. Variable time
 * (all inputs public). */
g16_err g16_params_verify(const g16_params *vk, const g16_params_proof *pr, const bls381_fr *pub, size_t npub,
                          g16_status *st);

#endif
