/* Host emulation of the CUDA constructs used by src/gpu/ntt.cuh, so that its
 * kernels and host driver run on the CPU with plain g++ (G16_NTT_EMUL; see
 * tests/gpu/ntt_emul.cpp). Kernels with __syncthreads run with one thread per block
 * (each level's loop then covers the whole tile before the next), the others
 * with every thread of every block, serially. Device memory is host memory. */
#ifndef G16_NTT_EMUL_H
#define G16_NTT_EMUL_H

#include <stdlib.h>

extern "C" {
#include "../gpu.h"
}

struct uint4 {
    uint32_t x, y, z, w;
};
static inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return uint4{x, y, z, w}; }
static inline uint4 __ldg(const uint4 *p) { return *p; }
static inline uint32_t __brev(uint32_t x) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
struct emul_dim {
    unsigned x;
};
extern emul_dim threadIdx, blockIdx, blockDim;
#define __global__
#define __launch_bounds__(...)
#define __shared__
#define __syncthreads() ((void)0)

/* The parts of the context and domain the NTT uses (gpu_internal.cuh). */
struct g16_gpu {
    int device;
    int stream;
    void *d_ntt_scratch;
    unsigned ntt_cols_log, ntt_threads; /* gpu.ntt_cols_log, gpu.ntt_threads (0: built-in) */
};
#define G16GPU_NTT_MAX_LOG 28
#define G16GPU_NTT_SCRATCH ((size_t)2 << ((G16GPU_NTT_MAX_LOG + 1) / 2))
struct g16_gpu_domain {
    g16_curve curve;
    unsigned log_n;
    int device;
    void *d_mem;
    void *roots[2];
    void *odd_s1, *odd_s2;
    uint32_t ninv[8];
    unsigned cols_log;
    unsigned threads;
    void *d_full, *tfull[2];
};

static inline int cudaMalloc(void **p, size_t bytes) {
    *p = malloc(bytes);
    return *p == NULL;
}
static inline int cudaStreamSynchronize(int) { return 0; }
#define cudaFuncSetAttribute(K, ...) ((void)(K), 0)
#define CU(call)                                                                         \
    do {                                                                                 \
        if ((call) != 0)                                                                 \
            return g16_fail(st, G16_ERR_DEVICE, "%s@%s:%d", #call, __FILE__, __LINE__);  \
    } while (0)

#define NTT_LAUNCH(K, GRID, THREADS, SMEM, ...)                                           \
    do {                                                                                 \
        (void)g, (void)st;                                                               \
        blockDim.x = (THREADS);                                                          \
        for (blockIdx.x = 0; blockIdx.x < (unsigned)(GRID); blockIdx.x++)                \
            for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)               \
                K(__VA_ARGS__);                                                          \
    } while (0)
#define NTT_LAUNCH_SYNC(K, GRID, THREADS, SMEM, ...)                                      \
    do {                                                                                 \
        (void)g, (void)st, (void)(THREADS);                                              \
        blockDim.x = 1;                                                                  \
        threadIdx.x = 0;                                                                 \
        for (blockIdx.x = 0; blockIdx.x < (unsigned)(GRID); blockIdx.x++)                \
            K(__VA_ARGS__);                                                              \
    } while (0)

#endif
