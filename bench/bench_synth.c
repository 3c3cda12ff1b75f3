/* In-memory synthetic circuit, setup and key (bench_synth.h). */
#include <stdlib.h>
#include <string.h>

#include "bench_synth.h"

/* The setup is done with the circuit: free it before the key's points. */
static void free_cs(void *cs) { g16_r1cs_free(cs); }

g16_err bench_synth_key_make(g16_ctx *ctx, const synth_opts *so, unsigned load_flags, unsigned flags, bench_mem *bm,
                             bench_synth_key *out, g16_status *st) {
    memset(out, 0, sizeof *out);
    g16_r1cs cs = {0};
    double t0 = g16_now_ms();
    g16_err err = synth_generate_mem(so, &cs, &out->w0, &out->ss, st);
    if (err)
        goto fail;
    if (flags & BENCH_SYNTH_WTNS0) {
        err = g16_wtns_encode(&out->wtns0, &out->wtns0_len, &out->w0, st);
        g16_frvec_free(&out->w0);
        if (err)
            goto fail;
    }
    out->circuit_ms = g16_now_ms() - t0;
    if (bm)
        bench_mem_phase(bm, "circuit");
    groth16_setup_opts sopt = {.seed = so->seed, .backend = GROTH16_SETUP_AUTO, .align = 1, .cs_done = free_cs,
                               .cs_done_user = &cs, .progress = so->progress, .progress_user = so->progress_user};
    t0 = g16_now_ms();
    err = groth16_setup_insecure_ex(ctx, &cs, &sopt, NULL, &out->mem, &out->len, &out->si, st);
    g16_r1cs_free(&cs); /* freed already by free_cs (the key carries the coefficients) */
    if (err)
        goto fail;
    out->setup_ms = g16_now_ms() - t0;
    if (bm)
        bench_mem_phase(bm, "setup");
    t0 = g16_now_ms();
    err = groth16_key_load_mem(ctx, &out->key, "synthetic", out->mem, out->len, G16_KEY_TRUSTED | load_flags, st);
    if (err)
        goto fail;
    out->load_ms = g16_now_ms() - t0;
    return G16_OK;
fail:
    bench_synth_key_free(out);
    return err;
}

void bench_synth_key_free(bench_synth_key *out) {
    g16_key_free(out->key);
    out->key = NULL;
    groth16_setup_mem_free(out->mem, out->len);
    out->mem = NULL;
    out->len = 0;
    g16_frvec_free(&out->w0);
    free(out->wtns0);
    out->wtns0 = NULL;
    out->wtns0_len = 0;
}
