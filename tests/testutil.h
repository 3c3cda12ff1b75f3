/* Shared helpers for the C tests: a logged seed, check macros that count
 * failures, and GMP conversions for oracle tests. */
#ifndef G16_TESTUTIL_H
#define G16_TESTUTIL_H

#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "field/field.h"

extern int t_failures;
extern long t_checks;

/* Seed from $G16_SEED or the clock; printed so a failure can be replayed. */
uint64_t t_seed(const char *test_name);

#define CHECK(cond)                                                                   \
    do {                                                                              \
        t_checks++;                                                                   \
        if (!(cond)) {                                                                \
            if (t_failures++ < 20)                                                    \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                             \
    do {                                                                 \
        t_checks++;                                                      \
        if (!(cond)) {                                                   \
            if (t_failures++ < 20) {                                     \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                            \
                fputc('\n', stderr);                                     \
            }                                                            \
        }                                                                \
    } while (0)

/* Prints a summary and returns the process exit code. */
int t_done(const char *test_name);

/* limbs <-> mpz */
void t_limbs_to_mpz(mpz_t z, const limb_t *l, size_t n);
void t_mpz_to_limbs(limb_t *l, size_t n, const mpz_t z);

/* Reads a whole file; NULL on failure. */
char *t_read_file(const char *path, size_t *len);

/* The options (docs/config.md) at their defaults overridden by the
 * environment, for the GPU contexts a test makes, so that scripts can run a
 * test with tuning knobs (G16_GPU_MSM_C=20 ...). An invalid value exits 2
 * with the message. */
struct g16_config;
const struct g16_config *t_env_config(void);

#endif
