/* CPU-feature detection for the field layer's asm path (see limbs.h). */
#include <stdlib.h>
#include <string.h>

#include "field.h"

#if G16_FIELD_ASM_X86
#include <cpuid.h>

/* Written once, by the constructor below, before main(); read-only after. */
int g16_field_adx;
int g16_field_ifma;
static int ifma_supported;

/* BMI2 (MULX) is CPUID.(EAX=7,ECX=0):EBX bit 8, ADX (ADCX/ADOX) bit 19. */
static int cpu_has_bmi2_adx(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
}

/* The IFMA kernels (field_ifma.c) need:
 *  - CPUID.(EAX=7,ECX=0):EBX bit 16 AVX512F, bit 21 AVX512IFMA, bit 31
 *    AVX512VL;
 *  - the OS to save the AVX-512 state: CPUID.1:ECX bit 27 (OSXSAVE, XGETBV
 *    usable), then XCR0 bits 1 (SSE), 2 (AVX), 5 (opmask), 6 (ZMM0-15 upper
 *    halves) and 7 (ZMM16-31) all set (mask 0xe6). */
static int cpu_has_avx512_ifma(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1))
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    if (!((b >> 16 & 1) && (b >> 21 & 1) && (b >> 31 & 1)))
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return (lo & 0xe6) == 0xe6;
}

__attribute__((constructor)) static void g16_field_cpu_init(void) {
    ifma_supported = cpu_has_avx512_ifma();
    /* The portable-field test switch (docs/field.md): G16_FIELD_ASM=0 the
     * portable C code only; =noifma MULX/ADX without the IFMA batches (for
     * A/B runs); unset or anything else: what the CPU has. */
    const char *env = getenv("G16_FIELD_ASM");
    if (env && !strcmp(env, "0"))
        return;
    g16_field_adx = cpu_has_bmi2_adx();
    g16_field_ifma = ifma_supported && !(env && !strcmp(env, "noifma"));
}

int g16_field_asm_active(void) { return g16_field_adx; }
int g16_field_ifma_active(void) { return g16_field_ifma; }
int g16_field_ifma_supported(void) { return ifma_supported; }
#else
int g16_field_asm_active(void) { return 0; }
int g16_field_ifma_active(void) { return 0; }
int g16_field_ifma_supported(void) { return 0; }
#endif
