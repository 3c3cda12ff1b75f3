/* Synthetic R1CS generator (see synth.h).
 *
 * Wires: 0 = the constant 1, 1 = the public output, 2 .. n_public = the
 * public inputs (one, or 326 for porep), then 2 private inputs, then one new
 * wire per row. The last row copies the
 * newest wire into the output. Row shapes come from a structure RNG (the same
 * for every partition); witness values of inputs and fresh bits come from one
 * RNG per partition, so all partitions satisfy the same circuit. */
#include "synth.h"

#include "formats/binwrite.h"
#include "groth16.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYNTH_MAX_TERMS 10
#define N_PUB_OUT 1
#define N_PRV_IN 2

g16_err synth_profile_from_name(synth_profile *p, const char *name) {
    if (!strcmp(name, "dense"))
        *p = SYNTH_DENSE;
    else if (!strcmp(name, "filecoin"))
        *p = SYNTH_FILECOIN;
    else if (!strcmp(name, "sparse-b"))
        *p = SYNTH_SPARSE_B;
    else if (!strcmp(name, "porep"))
        *p = SYNTH_POREP;
    else
        return G16_ERR_INVALID_ARG;
    return G16_OK;
}

void synth_porep_shape(int log_n, uint32_t *m, uint32_t *n_public) {
    const uint64_t n = (uint64_t)1 << log_n;
    uint64_t mm = (((uint64_t)SYNTH_POREP_CONSTRAINTS << log_n) + ((uint64_t)1 << 26)) >> 27;
    uint64_t pub = SYNTH_POREP_INPUTS - 1;
    if (mm + pub + 1 > n)
        pub = n > mm + 1 ? n - mm - 1 : 0;
    if (pub < 2) {
        pub = 2;
        mm = n - 3;
    }
    *m = (uint32_t)mm;
    *n_public = (uint32_t)pub;
}

void synth_wtns_path(char *buf, size_t len, const char *wtns_path, int partitions, int i) {
    if (partitions <= 1) {
        snprintf(buf, len, "%s", wtns_path);
        return;
    }
    const char *dot = strrchr(wtns_path, '.');
    const char *slash = strrchr(wtns_path, '/');
    if (!dot || (slash && dot < slash))
        snprintf(buf, len, "%s.%d", wtns_path, i);
    else
        snprintf(buf, len, "%.*s.%d%s", (int)(dot - wtns_path), wtns_path, i, dot);
}

#define BN254_FR_CURVE_ID G16_CURVE_BN254
#define BLS381_FR_CURVE_ID G16_CURVE_BLS12_381

#define FR bn254_fr
#define FR_UP BN254_FR
#include "synth_impl.h"
#undef FR
#undef FR_UP

#define FR bls381_fr
#define FR_UP BLS381_FR
#include "synth_impl.h"
#undef FR
#undef FR_UP

static g16_err synth_check(const synth_opts *o, int mem, g16_status *st) {
    if (!o || o->partitions < 1 || o->partitions > 1024 || (mem && o->partitions != 1) ||
        (!mem && (!o->r1cs_path || !o->wtns_path)))
        return g16_fail(st, G16_ERR_INVALID_ARG, "synth: bad options");
    if (o->log_n < 3 || o->log_n > 28)
        return g16_fail(st, G16_ERR_INVALID_ARG, "synth: log-n must be in [3, 28]");
    return G16_OK;
}

g16_err synth_generate(const synth_opts *o, synth_stats *stats, g16_status *st) {
    g16_err err = synth_check(o, 0, st);
    if (err)
        return err;
    synth_stats tmp;
    if (!stats)
        stats = &tmp;
    memset(stats, 0, sizeof *stats);
    g16_progress pg;
    g16_progress_init(&pg, o->progress, o->progress_user);
    return o->curve == G16_CURVE_BN254 ? synth_bn254_fr(o, NULL, NULL, stats, 0, &pg, st)
                                       : synth_bls381_fr(o, NULL, NULL, stats, 0, &pg, st);
}

g16_err synth_generate_mem(const synth_opts *o, g16_r1cs *cs, g16_frvec *w, synth_stats *stats, g16_status *st) {
    g16_err err = synth_check(o, 1, st);
    if (err)
        return err;
    if (!cs || !w)
        return g16_fail(st, G16_ERR_INVALID_ARG, "synth: NULL output");
    synth_stats tmp;
    if (!stats)
        stats = &tmp;
    memset(stats, 0, sizeof *stats);
    g16_progress pg;
    g16_progress_init(&pg, o->progress, o->progress_user);
    return o->curve == G16_CURVE_BN254 ? synth_bn254_fr(o, cs, w, stats, 0, &pg, st)
                                       : synth_bls381_fr(o, cs, w, stats, 0, &pg, st);
}

/* One witness per task (synth_generate_witnesses with a pool). */
typedef struct wit_job {
    synth_opts o; /* partitions = 1 */
    int first;
    g16_frvec *w;
    g16_status *st;
    g16_err *err;
} wit_job;

static void wit_task(void *arg, size_t i) {
    const wit_job *j = arg;
    synth_stats stats;
    memset(&stats, 0, sizeof stats);
    int p = j->first + (int)i;
    j->err[i] = j->o.curve == G16_CURVE_BN254 ? synth_bn254_fr(&j->o, NULL, &j->w[i], &stats, p, NULL, &j->st[i])
                                              : synth_bls381_fr(&j->o, NULL, &j->w[i], &stats, p, NULL, &j->st[i]);
}

g16_err synth_generate_witnesses(const synth_opts *o, int first, int count, g16_frvec *w, g16_pool *pool,
                                 g16_status *st) {
    if (!o || !w || first < 0 || count < 1 || first + count > 1024)
        return g16_fail(st, G16_ERR_INVALID_ARG, "synth: bad options");
    if (o->log_n < 3 || o->log_n > 28)
        return g16_fail(st, G16_ERR_INVALID_ARG, "synth: log-n must be in [3, 28]");
    memset(w, 0, (size_t)count * sizeof *w);
    synth_opts oo = *o;
    if (!pool || count == 1 || g16_pool_threads(pool) < 2) { /* one pass for all */
        oo.partitions = count;
        synth_stats stats;
        memset(&stats, 0, sizeof stats);
        return o->curve == G16_CURVE_BN254 ? synth_bn254_fr(&oo, NULL, w, &stats, first, NULL, st)
                                           : synth_bls381_fr(&oo, NULL, w, &stats, first, NULL, st);
    }
    oo.partitions = 1;
    g16_status *sts = calloc((size_t)count, sizeof *sts);
    g16_err *errs = calloc((size_t)count, sizeof *errs);
    if (!sts || !errs) {
        free(sts);
        free(errs);
        return g16_fail(st, G16_ERR_NOMEM, "synth: out of memory");
    }
    wit_job j = {oo, first, w, sts, errs};
    g16_pool_run(pool, (size_t)count, wit_task, &j);
    g16_err err = G16_OK;
    for (int i = 0; i < count && !err; i++)
        if (errs[i]) {
            err = errs[i];
            *st = sts[i];
        }
    if (err)
        for (int i = 0; i < count; i++)
            g16_frvec_free(&w[i]);
    free(sts);
    free(errs);
    return err;
}
