/* A synthetic circuit, its insecure test setup and the key, all in memory
 * (no files: at 2^27 the key is 92 GB), shared by `g16 bench prove
 * --synthetic` (bench_synthetic.c) and `g16 bench engine --log-n N`
 * (bench_engine.c). */
#ifndef G16_BENCH_SYNTH_H
#define G16_BENCH_SYNTH_H

#include "bench.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

typedef struct bench_synth_key {
    synth_stats ss;
    groth16_setup_info si;
    double circuit_ms, setup_ms, load_ms;
    void *mem;  /* the key image (an anonymous mapping; groth16_setup_mem_free) */
    size_t len;
    g16_key *key;
    g16_frvec w0; /* partition 0's witness (Montgomery form) */
    void *wtns0;  /* or its .wtns bytes (BENCH_SYNTH_WTNS0; free()) */
    size_t wtns0_len;
} bench_synth_key;

/* bench_synth_key_make flags: BENCH_SYNTH_WTNS0 turns partition 0's witness
 * into .wtns bytes (out->wtns0) right after the circuit, before the setup,
 * so that the witness never exists twice beside the key image. */
enum { BENCH_SYNTH_WTNS0 = 1 };

/* The circuit of so (partition 0's witness into out->w0), the setup into an
 * anonymous mapping (the circuit freed as soon as the setup is done with it,
 * before the key's points), and the key loaded over those bytes with
 * G16_KEY_TRUSTED | load_flags (e.g. GROTH16_KEY_DEFER_PREP). bm (may be
 * NULL) records the phases "circuit" and "setup" (the load's phase is the
 * caller's: it may add to it). On failure st says why and out holds
 * nothing. */
g16_err bench_synth_key_make(g16_ctx *ctx, const synth_opts *so, unsigned load_flags, unsigned flags, bench_mem *bm,
                             bench_synth_key *out, g16_status *st);
/* Frees what out still holds (the key, then the image unless the key
 * adopted it: out->mem is NULL then), w0 and wtns0. */
void bench_synth_key_free(bench_synth_key *out);

#endif
