/* GPU density MSMs from two workers at once on one resident key: two
 * threads, each with its own context (g16_gpu, as the engine's workers),
 * run density-form MSMs (g16_gpu_msm_density) over ONE shared bases object
 * at the same time, each with its own bitmap and scalars, and every result
 * must equal the CPU's msm_bn254_g1_density bit for bit. The density bitmap
 * must therefore live in per-context scratch: a bitmap kept in the shared
 * bases object is overwritten by the other thread's between its upload and
 * its use, and the sums come out wrong. BN254 G1, 2^14 + 3 bases (a
 * progression P_i = A + i D), bitmaps of about 1/2 and 3/4 density, ROUNDS
 * MSMs per thread started together behind a barrier.
 * Without a usable GPU it prints "skipped: no GPU" and exits 77. */
#include <pthread.h>
#include <string.h>

#include "curve/curve.h"
#include "gpu/gpu.h"
#include "msm/msm.h"
#include "testutil.h"
#include "util/ctx.h"

#define NB (((size_t)1 << 14) + 3)
#define ROUNDS 200
#define VARIANTS 4 /* bitmaps per thread, used in turn */

typedef struct tjob {
    g16_gpu *g;
    const g16_gpu_bases *b;
    pthread_barrier_t *bar;
    uint8_t *bits[VARIANTS];
    g16_scalar *sc[VARIANTS];
    size_t m[VARIANTS];
    bn254_g1_affine want[VARIANTS];
    int bad, errors;
    char msg[256];
} tjob;

static void *thread_main(void *arg) {
    tjob *t = arg;
    pthread_barrier_wait(t->bar);
    for (int r = 0; r < ROUNDS; r++) {
        int v = r % VARIANTS;
        bn254_g1_jac out;
        g16_status st = {0};
        if (g16_gpu_msm_density(t->g, &out, t->b, t->bits[v], t->sc[v], t->m[v], NULL, &st) != G16_OK) {
            t->errors++;
            snprintf(t->msg, sizeof t->msg, "%s", st.msg);
            continue;
        }
        bn254_g1_affine a;
        bn254_g1_jac_to_affine(&a, &out);
        t->bad += memcmp(&a, &t->want[v], sizeof a) != 0;
    }
    return NULL;
}

int main(void) {
    uint64_t seed = t_seed("test_gpu_density");
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    if (g16_gpu_count() == 0) {
        printf("test_gpu_density: skipped: no GPU\n");
        return 77;
    }
    g16_status st = {0};
    g16_gpu *g[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        g16_err rc = g16_gpu_create(&g[i], 0, NB, 0, NULL, &st);
        if (rc == G16_ERR_NO_DEVICE) {
            printf("test_gpu_density: skipped: no GPU (%s)\n", st.msg);
            return 77;
        }
        CHECK_MSG(rc == G16_OK, "create: %s", st.msg);
        if (rc)
            return t_done("test_gpu_density");
    }
    g16_ctx_opts opts = {.threads = 2};
    g16_ctx *ctx = g16_ctx_create(&opts);
    CHECK(ctx != NULL);

    /* Bases: A + i D, A and D random multiples of the generator. */
    bn254_g1_affine *bases = malloc(NB * sizeof *bases);
    bn254_g1_jac *jac = malloc(NB * sizeof *jac);
    bn254_fp *scratch = malloc(NB * sizeof *scratch);
    CHECK(bases && jac && scratch);
    bn254_g1_affine gen;
    bn254_g1_jac gj, A, D;
    bn254_g1_generator(&gen);
    bn254_g1_jac_from_affine(&gj, &gen);
    g16_scalar ka = {{g16_rng_next(&rng), g16_rng_next(&rng), g16_rng_next(&rng), g16_rng_next(&rng) >> 4}};
    g16_scalar kd = {{g16_rng_next(&rng), g16_rng_next(&rng), g16_rng_next(&rng), g16_rng_next(&rng) >> 4}};
    bn254_g1_jac_mul_vartime(&A, &gj, &ka);
    bn254_g1_jac_mul_vartime(&D, &gj, &kd);
    jac[0] = A;
    for (size_t i = 1; i < NB; i++)
        bn254_g1_jac_add_vartime(&jac[i], &jac[i - 1], &D);
    bn254_g1_jac_batch_to_affine(bases, jac, NB, scratch);
    free(jac);
    free(scratch);

    g16_gpu_bases *gb = NULL;
    g16_err rc = g16_gpu_bases_upload(g[0], &gb, G16_CURVE_BN254, G16_GPU_G1, bases, NB, &st);
    CHECK_MSG(rc == G16_OK, "upload: %s", st.msg);

    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    tjob tj[2];
    memset(tj, 0, sizeof tj);
    for (int t = 0; t < 2 && rc == G16_OK; t++) {
        tj[t].g = g[t];
        tj[t].b = gb;
        tj[t].bar = &bar;
        for (int v = 0; v < VARIANTS; v++) {
            uint8_t *bits = calloc(NB / 8 + 1, 1);
            g16_scalar *sc = malloc(NB * sizeof *sc);
            CHECK(bits && sc);
            size_t m = 0;
            for (size_t i = 0; i < NB; i++) {
                /* thread 0: about 1/2 of the bits, thread 1: about 3/4 */
                uint64_t x = g16_rng_next(&rng);
                if (t == 0 ? (x & 1) : (x & 3) == 0)
                    continue;
                bits[i / 8] |= (uint8_t)(1u << (i % 8));
                g16_scalar *k = &sc[m++];
                for (int l = 0; l < 4; l++)
                    k->l[l] = g16_rng_next(&rng);
                k->l[3] >>= 3; /* below 2^253 < r */
                if (x >> 60 == 0) /* some zeros and ones, as witnesses have */
                    memset(k, 0, sizeof *k);
                else if (x >> 60 == 1)
                    memset(k, 0, sizeof *k), k->l[0] = 1;
            }
            tj[t].bits[v] = bits;
            tj[t].sc[v] = sc;
            tj[t].m[v] = m;
            bn254_g1_jac ref;
            g16_err e = msm_bn254_g1_density(ctx, &ref, bases, NB, bits, sc, m, NULL, 0);
            CHECK(e == G16_OK);
            bn254_g1_jac_to_affine(&tj[t].want[v], &ref);
        }
    }
    if (rc == G16_OK) {
        pthread_t th[2];
        for (int t = 0; t < 2; t++)
            CHECK(pthread_create(&th[t], NULL, thread_main, &tj[t]) == 0);
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        for (int t = 0; t < 2; t++) {
            CHECK_MSG(tj[t].errors == 0, "thread %d: %d MSMs failed: %s", t, tj[t].errors, tj[t].msg);
            CHECK_MSG(tj[t].bad == 0, "thread %d: %d of %d density MSMs differ from the CPU", t, tj[t].bad, ROUNDS);
            printf("  thread %d: %d density MSMs (m = %zu..), %d differ from the CPU\n", t, ROUNDS, tj[t].m[0],
                   tj[t].bad);
        }
    }
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < 2; t++)
        for (int v = 0; v < VARIANTS; v++)
            free(tj[t].bits[v]), free(tj[t].sc[v]);
    g16_gpu_bases_free(g[0], gb);
    for (int i = 0; i < 2; i++)
        g16_gpu_destroy(g[i]);
    g16_ctx_destroy(ctx);
    free(bases);
    return t_done("test_gpu_density");
}
