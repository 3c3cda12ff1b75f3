/* What the CUDA runtime sees, for `g16 --version`: the runtime and driver
 * versions and each device's properties, without creating a device context
 * (gpu.h: g16_gpu_probe, g16_gpu_describe). */
#include <cuda_runtime.h>
#include <stdio.h>

#include "../gpu.h"

/* "13.0" from CUDA's 1000 * major + 10 * minor. */
static void version_text(char *b, size_t cap, int v) { snprintf(b, cap, "%d.%d", v / 1000, v % 1000 / 10); }

extern "C" int g16_gpu_probe(char *note, size_t cap) {
    int rt = 0, drv = 0, n = 0;
    char rts[16], drvs[16];
    (void)cudaRuntimeGetVersion(&rt);
    version_text(rts, sizeof rts, rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0) {
        (void)cudaGetLastError();
        if (note && cap)
            snprintf(note, cap, "CUDA runtime %s, no CUDA driver", rts);
        return 0;
    }
    version_text(drvs, sizeof drvs, drv);
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (note && cap)
            snprintf(note, cap, "CUDA runtime %s, driver %s: %s", rts, drvs, cudaGetErrorString(e));
        return 0;
    }
    if (note && cap)
        snprintf(note, cap, "CUDA runtime %s, driver %s", rts, drvs);
    return n;
}

extern "C" void g16_gpu_describe(int device, char *buf, size_t cap) {
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, device);
    if (!buf || !cap)
        return;
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(buf, cap, "device %d: %s", device, cudaGetErrorString(e));
        return;
    }
    snprintf(buf, cap, "%.120s (sm_%d%d, %d SMs, %.0f MiB)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, (double)prop.totalGlobalMem / (1024.0 * 1024.0));
}
