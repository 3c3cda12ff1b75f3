/* Benchmarks run by `g16 bench <what> [options]`. Each prints one JSON object
 * per figure on stdout (with --json; a readable line otherwise), e.g.
 *   {"bench":"fp_mul","curve":"bls12-381","backend":"cpu","ns":24.1}
 * Each bench_* returns a process exit code (0 ok, 2 usage error). */
#ifndef G16_BENCH_H
#define G16_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "bench_main.h"
#include "g16.h"
#include "curve/curve.h"
#include "util/config.h"

typedef struct bench_opts {
    int curve_set;        /* --curve given */
    g16_curve curve;
    int log_n;            /* --log-n K (default per bench) */
    const char *group;    /* --group g1|g2 (default g1) */
    int threads;          /* --threads T (0 = all) */
    const char *backend;  /* --backend cpu|cuda|auto (default cpu) */
    int json;             /* --json */
    int reps;             /* --reps R (default per bench) */
    const char *zkey;     /* --zkey path (bench prove) */
    const char *wtns;     /* --wtns path (bench prove) */
    const char *assignment; /* --assignment path (bench params, with --key) */
    int jobs;             /* --jobs J (bench engine) */
    int partitions;       /* --partitions P (bench engine) */
    int workers;          /* --workers W (bench engine) */
    int no_verify;        /* --no-verify (bench engine) */
    int synthetic;        /* --synthetic (bench prove: circuit, key, witness in memory) */
    const char *profile;  /* --profile: prove --synthetic: dense|filecoin|sparse-b; msm: random|filecoin */
    int seed_set;         /* --seed S given */
    uint64_t seed;
    int workers_per_device; /* --workers-per-device W (bench engine, cuda) */
    int synth_threads;    /* --synth-threads S (bench engine) */
    const char *timeline; /* --timeline FILE (bench engine: the engine's event log) */
    int streamed;         /* --streamed (bench msm --backend cuda: bases from host memory) */
    int chunk_log;        /* --chunk-log K (bench msm --backend cuda: a context of 2^K points, the MSM in chunks) */
    int precompute;       /* --precompute (bench msm --backend cuda: window tables, g16_gpu_bases_precompute) */
    int table_c;          /* --table-c C (bench msm: the table's window; implies --precompute; 0 = the library's) */
    uint64_t budget;      /* --budget BYTES (bench engine: the engine's host byte budget; 0 = default) */
    int witnesses;        /* --witnesses K (bench engine --log-n: distinct witnesses, 1..4; 0 = 4) */
    /* The options (docs/config.md): defaults, the environment, then --set
     * KEY=VALUE flags. Every GPU context and g16_ctx of a bench takes them
     * (bench_ctx_create), and --json lines report them ("options"). */
    g16_config cfg;
    /* --ab KEY=VALUE (bench params --backend cuda): odd reps run with cfg_b,
     * cfg with that one option changed; ab names it (NULL: no A/B). */
    const char *ab;
    g16_config cfg_b;
    int argc;             /* remaining positional arguments */
    char **argv;
} bench_opts;

/* s as a JSON string (quoted and escaped, jansson), malloc'd; NULL when
 * out of memory. */
char *bench_json_string(const char *s);
/* Prints one result: name, curve, extra JSON fields (a preformatted
 * `"k":v,...` fragment or ""), the unit ("ns" or "ms") and the value. */
void bench_report(const bench_opts *o, const char *name, g16_curve curve, const char *extra,
                  const char *unit, double value);

/* A context with o's threads and options (NULL without memory or threads). */
g16_ctx *bench_ctx_create(const bench_opts *o, const g16_ctx_opts *copts);

int bench_arith(const bench_opts *o);
int bench_arith_cuda(const bench_opts *o); /* bench_gpu_arith.c: --backend cuda */
int bench_ntt(const bench_opts *o);
int bench_msm(const bench_opts *o);
int bench_msm_cuda(const bench_opts *o); /* bench_gpu.c: --backend cuda */
int bench_ntt_cuda(const bench_opts *o); /* bench_gpu_ntt.c: --backend cuda */
/* Scalar profile of --profile: 1 for "filecoin" (about 99% of the scalars in
 * {0, 1}, half each, the rest uniform), 0 for "random" or none, -1 unknown. */
int bench_profile(const bench_opts *o);
/* bench_msm_inputs.c: an MSM's inputs, n distinct bases d_i G of known logs
 * d_i, scalars (uniform, or with filecoin ~99% in {0, 1}) from seed, and
 * the expected sum (sum_i s_i d_i) G. bench_msm_inputs returns 0, or 1
 * without memory; bench_msm_check is 1 iff got (a Jacobian point of the
 * group) equals the expected sum. */
typedef struct bench_msm_in {
    g16_curve curve;
    int g2;
    size_t n;
    uint64_t seed;
    void *bases;     /* n affine points of the group (malloc) */
    g16_scalar *sc;  /* n canonical scalars (malloc) */
    union {
        bn254_g1_jac a;
        bn254_g2_jac b;
        bls381_g1_jac c;
        bls381_g2_jac d;
    } want;
} bench_msm_in;
int bench_msm_inputs(g16_ctx *ctx, g16_curve curve, int g2, size_t n, int filecoin, uint64_t seed,
                     bench_msm_in *in);
int bench_msm_check(const bench_msm_in *in, const void *got);
void bench_msm_inputs_free(bench_msm_in *in);
int bench_prove(const bench_opts *o);
int bench_prove_synthetic(const bench_opts *o); /* bench_synthetic.c: --synthetic */
/* bench_mem.c: per-phase peak resident memory (Linux /proc; -1 elsewhere).
 * bench_mem_begin resets the high-water mark; bench_mem_phase reads it,
 * appends "rss_<phase>_kb":K to json, prints the peak per unit (units > 0,
 * e.g. the constraints) on stderr and resets for the next phase. */
typedef struct bench_mem {
    char json[1024]; /* "rss_start_kb":K,"rss_circuit_kb":K,... (no leading comma) */
    double units;    /* divisor of the stderr figures (0: not printed) */
    long peak_kb;    /* the largest phase peak */
    long start_kb;   /* RSS at the first bench_mem_begin (binary, libraries, pool) */
} bench_mem;
void bench_mem_begin(bench_mem *m);
long bench_mem_phase(bench_mem *m, const char *phase);
long bench_rss_kb(void);

/* bench_prove_cuda.c: the GPU heavy stage for a loaded key and witness.
 * mem (or NULL): per-phase peaks of its set-up and proofs are appended
 * (phases upload, gpu_work, host_work, prove) and reported. drop_bases: after
 * the upload, release the host pages of the key's base sections
 * (groth16_key_drop_bases); the proofs then read the resident copy only. */
int bench_prove_cuda(const bench_opts *o, g16_ctx *ctx, g16_key *key, g16_witness *w, bench_mem *mem,
                     int drop_bases);
int bench_engine(const bench_opts *o);
/* bench_params.c: bellperson partitions (.params key, .assignment) on the CPU. */
int bench_params(const bench_opts *o);

#endif
