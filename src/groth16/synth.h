/* Synthetic R1CS circuits and satisfying witnesses (for benchmarks and
 * engine tests at sizes circom cannot reach), written as circom .r1cs and
 * .wtns files. Part of the groth16 layer. */
#ifndef G16_SYNTH_H
#define G16_SYNTH_H

#include "../field/field.h"

typedef enum synth_profile {
    SYNTH_DENSE = 0,  /* random full-width witness values */
    SYNTH_FILECOIN,   /* mostly 0/1 values (boolean gadgets), A dense, B ~25% */
    SYNTH_SPARSE_B,   /* B is touched by few wires (mostly constant B rows) */
    SYNTH_POREP       /* a Filecoin PoRep partition's shape (docs/groth16.md "Synthetic circuits") */
} synth_profile;

/* The porep profile's targets at full size (2^27): constraints, bellperson
 * inputs (the constant one included), and the per-mille shares of aux
 * variables in A, in B, and with 0/1 values. */
#define SYNTH_POREP_CONSTRAINTS 130278869u
#define SYNTH_POREP_INPUTS 328u
#define SYNTH_POREP_A_AUX_PERMILLE 997
#define SYNTH_POREP_B_AUX_PERMILLE 254
#define SYNTH_POREP_BITS_PERMILLE 900

typedef struct synth_opts {
    g16_curve curve;
    int log_n;             /* domain 2^log_n; constraints = 2^log_n - nPublic - 1, except porep:
                            * round(130,278,869 2^(log_n - 27)) and nPublic = 327 (fewer where
                            * they do not fit: synth_porep_shape) */
    synth_profile profile;
    int partitions;        /* number of witnesses (>= 1) */
    uint64_t seed;
    const char *r1cs_path;
    const char *wtns_path; /* with partitions > 1: "<stem>.<i>.wtns" per partition */
    /* Optional progress of synth_generate / synth_generate_mem (g16.h's
     * g16_progress_fn, on the calling thread): stages "rows" (one unit per
     * constraint) and, for files, "witnesses" (one per partition). */
    g16_progress_fn progress;
    void *progress_user;
} synth_opts;

typedef struct synth_stats {
    uint32_t n_constraints, n_wires, n_public;
    uint64_t a_terms, b_terms, c_terms;
    double a_wire_density, b_wire_density; /* fraction of wires used in A / B */
    double zero_one_fraction;              /* fraction of witness values in {0,1} */
    /* the same over the aux wires only (after the constant one and the
     * public wires: bellperson's aux assignment) */
    double a_aux_density, b_aux_density, aux_zero_one_fraction;
} synth_stats;

/* The porep profile's circuit size at log_n: *m constraints =
 * round(130,278,869 2^(log_n - 27)) and *n_public = 327 public wires, or,
 * where m + 328 exceeds 2^log_n (log_n < 14), the public wires that fit
 * (2^log_n - m - 1, at least 2, m lowered to make room). */
void synth_porep_shape(int log_n, uint32_t *m, uint32_t *n_public);

/* Generates the circuit and witnesses and writes the files. Every row is
 * checked ((A.w)(B.w) = C.w) as it is generated. */
g16_err synth_generate(const synth_opts *opts, synth_stats *stats, g16_status *st);

/* The same in memory (o's paths are ignored, partitions must be 1): the
 * circuit into *cs (free with g16_r1cs_free) and the witness into *w
 * (Montgomery form; free with g16_frvec_free). No file is written. */
struct g16_r1cs;
struct g16_frvec;
g16_err synth_generate_mem(const synth_opts *opts, struct g16_r1cs *cs, struct g16_frvec *w, synth_stats *stats,
                           g16_status *st);

/* The witnesses of partitions first .. first + count - 1 of o's circuit
 * (o->partitions is ignored), in memory, without the circuit: w[i] is
 * partition first + i's witness, the values synth_generate writes to that
 * partition's .wtns file (Montgomery form; free each with g16_frvec_free).
 * Costs one pass over the rows (about the circuit's generation time) and
 * count witnesses of memory; with a pool (may be NULL) one pass per witness
 * in parallel (each with its own row state, 13 bytes per wire). */
g16_err synth_generate_witnesses(const synth_opts *opts, int first, int count, struct g16_frvec *w,
                                 g16_pool *pool, g16_status *st);

g16_err synth_profile_from_name(synth_profile *p, const char *name);

/* Path of partition i's witness file (see synth_opts.wtns_path). */
void synth_wtns_path(char *buf, size_t len, const char *wtns_path, int partitions, int i);

#endif
