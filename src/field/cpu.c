/* CPU-feature detection for the field layer's asm path (see limbs.h). */
#include <stdlib.h>
#include <string.h>

#include "field.h"

#if G16_FIELD_ASM_X86
#include <cpuid.h>

/* Written once, by the constructor below, before main(); read-only after. */
int g16_field_adx;

/* BMI2 (MULX) is CPUID.(EAX=7,ECX=0):EBX bit 8, ADX (ADCX/ADOX) bit 19. */
static int cpu_has_bmi2_adx(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
}

__attribute__((constructor)) static void g16_field_cpu_init(void) {
    const char *env = getenv("G16_FIELD_ASM");
    if (env && !strcmp(env, "0"))
        return;
    g16_field_adx = cpu_has_bmi2_adx();
}

int g16_field_asm_active(void) { return g16_field_adx; }
#else
int g16_field_asm_active(void) { return 0; }
#endif
