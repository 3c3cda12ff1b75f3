/* `g16 bench ntt --backend cuda`: the GPU NTT (src/gpu/ntt/ntt.cuh) on random Fr.
 * Times come from CUDA events (g16_gpu_timing) after two warm-up runs, as
 * the median of --reps runs (default 7; above 2^24 one warm-up and 3 runs):
 *   "kernels": the device-resident transform alone (what the prover pays:
 *              its data stays on the device),
 *   "total":   with the host -> device and device -> host copies (pageable
 *              host memory, so copies run below full PCIe speed).
 * Figures: ntt (forward, natural -> natural), ntt_nr (forward, natural ->
 * bit-reversed: no permutation pass), ntt_odd_coset (the prover's
 * odd_coset_from_evals), h (the whole H step on three vectors: three odd
 * cosets and h = a*b - c out of Montgomery form). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "field/field.h"
#include "gpu/gpu.h"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int bench_ntt_cuda(const bench_opts *o) {
    g16_curve curve = o->curve_set ? o->curve : G16_CURVE_BLS12_381;
    int lg = o->log_n >= 0 ? o->log_n : 20;
    int reps = o->reps > 0 ? o->reps : (lg > 24 ? 3 : 7);
    int warm = lg > 24 ? 1 : 2;
    if (lg < 0 || lg > 28) {
        fprintf(stderr, "g16 bench ntt: bad --log-n\n");
        return 2;
    }
    size_t n = (size_t)1 << lg;
    if (g16_gpu_count() == 0) {
        fprintf(stderr, "g16 bench ntt: no GPU\n");
        return 1;
    }
    g16_status st = {0};
    g16_gpu *gpu = NULL;
    g16_gpu_domain *d = NULL;
    int rc = 1;
    /* 32-byte elements for both curves' Fr. */
    unsigned char *a = malloc(n * 32), *b = malloc(n * 32), *c = malloc(n * 32);
    g16_scalar *h = malloc(n * sizeof *h);
    float *tot = calloc((size_t)reps, sizeof *tot), *ker = calloc((size_t)reps, sizeof *ker);
    if (!a || !b || !c || !h || !tot || !ker) {
        fprintf(stderr, "g16 bench ntt: out of memory\n");
        goto done;
    }
    if (g16_gpu_create(&gpu, 0, 1, 0, &o->cfg, &st) != G16_OK || g16_gpu_domain_create(gpu, &d, curve, (unsigned)lg, &st) != G16_OK) {
        fprintf(stderr, "g16 bench ntt: %s\n", st.msg);
        goto done;
    }
    g16_rng rng;
    g16_rng_seed(&rng, 0x6e7474);
    /* 2^16 random elements per vector, repeated (the timing does not depend
     * on the values; random generation of 3 * 2^27 elements would take
     * longer than the benchmark). */
    size_t nr = n < ((size_t)1 << 16) ? n : ((size_t)1 << 16);
    for (size_t i = 0; i < nr; i++) {
        if (curve == G16_CURVE_BN254) {
            bn254_fr_random((bn254_fr *)(void *)(a + 32 * i), &rng);
            bn254_fr_random((bn254_fr *)(void *)(b + 32 * i), &rng);
            bn254_fr_random((bn254_fr *)(void *)(c + 32 * i), &rng);
        } else {
            bls381_fr_random((bls381_fr *)(void *)(a + 32 * i), &rng);
            bls381_fr_random((bls381_fr *)(void *)(b + 32 * i), &rng);
            bls381_fr_random((bls381_fr *)(void *)(c + 32 * i), &rng);
        }
    }
    for (size_t i = nr; i < n; i += nr) {
        memcpy(a + 32 * i, a, 32 * nr);
        memcpy(b + 32 * i, b, 32 * nr);
        memcpy(c + 32 * i, c, 32 * nr);
    }
    static const char *names[] = {"ntt", "ntt_nr", "ntt_odd_coset", "h"};
    for (int op = 0; op < 4; op++) {
        for (int r = -warm; r < reps; r++) {
            g16_gpu_timing tm;
            g16_err e;
            switch (op) {
            case 0: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_FORWARD, 0, NULL, &tm, &st); break;
            case 1: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_FORWARD, 1, NULL, &tm, &st); break;
            case 2: e = g16_gpu_ntt(gpu, d, a, G16_GPU_NTT_ODD_COSET, 0, NULL, &tm, &st); break;
            default: e = g16_gpu_h(gpu, d, a, b, c, h, &tm, &st); break;
            }
            if (e != G16_OK) {
                fprintf(stderr, "g16 bench ntt: %s: %s\n", names[op], st.msg);
                goto done;
            }
            if (r >= 0)
                tot[r] = tm.total_ms, ker[r] = tm.kernel_ms;
        }
        qsort(tot, (size_t)reps, sizeof *tot, cmp_float);
        qsort(ker, (size_t)reps, sizeof *ker, cmp_float);
        char extra[160];
        snprintf(extra, sizeof extra, "\"log_n\":%d,\"reps\":%d,\"what\":\"kernels\"", lg, reps);
        bench_report(o, names[op], curve, extra, "ms", ker[reps / 2]);
        snprintf(extra, sizeof extra, "\"log_n\":%d,\"reps\":%d,\"what\":\"total\"", lg, reps);
        bench_report(o, names[op], curve, extra, "ms", tot[reps / 2]);
    }
    rc = 0;
done:
    g16_gpu_domain_free(d);
    g16_gpu_destroy(gpu);
    free(a), free(b), free(c), free(h), free(tot), free(ker);
    return rc;
}
