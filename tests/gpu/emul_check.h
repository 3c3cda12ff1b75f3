/* Checks of the host emulations (tests/gpu/NAME_emul.cpp): EXPECT(cond, fmt, ...)
 * counts a check and prints the first 20 failures with a message. */
#ifndef G16_TESTS_GPU_EMUL_CHECK_H
#define G16_TESTS_GPU_EMUL_CHECK_H

#include <cstdio>

static int fails = 0;
static long checks = 0;
#define EXPECT(c, ...)                                                   \
    do {                                                                 \
        checks++;                                                        \
        if (!(c)) {                                                      \
            if (fails++ < 20) {                                          \
                printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #c);       \
                printf(__VA_ARGS__);                                     \
                printf("\n");                                            \
            }                                                            \
        }                                                                \
    } while (0)

#endif
