/* TEMPORARY (branch h-gpuengine): link stand-ins for the GPU heavy-stage
 * contract of groth16.h until prove_gpu.c (helper gpuprove) lands in main.
 * Every call fails with G16_ERR_NO_DEVICE, as the contract says a build
 * without CUDA does. Delete this file when merging prove_gpu.c. */
#include "groth16.h"

size_t groth16_gpu_key_bytes(const g16_key *key) {
    (void)key;
    return 0;
}
g16_err groth16_gpu_key_upload(struct g16_gpu *g, groth16_gpu_key **out, const g16_key *key, g16_status *st) {
    (void)g, (void)key;
    *out = NULL;
    return g16_fail(st, G16_ERR_NO_DEVICE, "groth16: the GPU prover is not built");
}
void groth16_gpu_key_free(struct g16_gpu *g, groth16_gpu_key *gk) { (void)g, (void)gk; }
size_t groth16_gpu_work_bytes(const g16_key *key) {
    (void)key;
    return 0;
}
g16_err groth16_gpu_work_create(struct g16_gpu *g, groth16_gpu_work **out, const g16_key *key, g16_status *st) {
    (void)g, (void)key;
    *out = NULL;
    return g16_fail(st, G16_ERR_NO_DEVICE, "groth16: the GPU prover is not built");
}
void groth16_gpu_work_free(struct g16_gpu *g, groth16_gpu_work *gw) { (void)g, (void)gw; }
int groth16_gpu_work_fits(const groth16_gpu_work *gw, const g16_key *key) {
    (void)gw, (void)key;
    return 0;
}
g16_err groth16_stage_heavy_gpu(g16_ctx *ctx, struct g16_gpu *g, groth16_gpu_work *gw, const groth16_gpu_key *gkey,
                                groth16_msms *out, groth16_work *w, const g16_key *key, groth16_timings *tm,
                                groth16_gpu_timings *gtm, g16_status *st) {
    (void)ctx, (void)g, (void)gw, (void)gkey, (void)out, (void)w, (void)key, (void)tm, (void)gtm;
    return g16_fail(st, G16_ERR_NO_DEVICE, "groth16: the GPU prover is not built");
}
