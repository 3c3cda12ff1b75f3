/* Base utilities below the field layer: errors, deterministic and OS
 * randomness, a small thread pool, byte helpers. Included by every layer. */
#ifndef G16_UTIL_H
#define G16_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

/* ---- errors --------------------------------------------------------------
 * Internal code returns g16_err and fills an optional g16_status with a
 * message; the API boundary copies it into the context (see ctx.c). */
typedef struct g16_status {
    g16_err code;
    char msg[256];
} g16_status;

/* Sets st (if non-NULL) and returns code. printf-style message. */
g16_err g16_fail(g16_status *st, g16_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- invariant checks (test builds) ---------------------------------------
 * G16_VERIFY_CHECK(cond) states an internal invariant (a field element below
 * its modulus, the scheduler heap's order, the byte budget's balance, an
 * argument contract between layers). It is compiled in only when G16_VERIFY
 * is defined (CMake option G16_VERIFY, on in scripts/test.sh's sanitizer
 * build); a violation is a bug, not an input error, so it prints the file,
 * line and condition and aborts. Without G16_VERIFY, cond is not evaluated
 * (it must have no side effects the code relies on). */
#ifdef G16_VERIFY
void g16_verify_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
#define G16_VERIFY_CHECK(cond)                                                                                       \
    do {                                                                                                             \
        if (!(cond))                                                                                                 \
            g16_verify_fail(__FILE__, __LINE__, #cond);                                                              \
    } while (0)
#define G16_VERIFY_ON 1
#else
#define G16_VERIFY_CHECK(cond) ((void)sizeof(!(cond)))
#define G16_VERIFY_ON 0
#endif

/* ---- secrets: the constant-time test's hook -------------------------------
 * g16_declassify(p, len) marks len bytes derived from a secret as public at
 * a point where branching on them is part of the threat model (a flag that
 * a given r is below the group order). In the G16_CTIME build (the
 * valgrind constant-time test, tests/ctime_rs.c) it tells memcheck the
 * bytes are defined; elsewhere it is nothing. */
#ifdef G16_CTIME
#include <valgrind/memcheck.h>
#define g16_declassify(p, len) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (len)))
#else
#define g16_declassify(p, len) ((void)(p), (void)(len))
#endif

/* ---- deterministic RNG (tests, benches, insecure test setup) -------------
 * xoshiro256** seeded through splitmix64. Not for secrets. */
typedef struct g16_rng {
    uint64_t s[4];
} g16_rng;

void g16_rng_seed(g16_rng *rng, uint64_t seed);
uint64_t g16_rng_next(g16_rng *rng);

/* Fills buf from the OS CSPRNG (getrandom). Returns G16_OK or G16_ERR_IO. */
g16_err g16_os_random(void *buf, size_t len);

/* Zeroes memory in a way the compiler may not elide (for secrets). */
void g16_wipe(void *p, size_t len);
/* The same over up to `threads` threads (the caller and threads - 1 made
 * for the call; a slice whose thread cannot start is wiped by the caller):
 * for buffers of gigabytes whose wipe would otherwise hold up a GPU stage. */
void g16_wipe_threads(void *p, size_t len, int threads);

/* ---- thread pool ----------------------------------------------------------
 * Owned by a context; never global. g16_pool_run calls fn(arg, i) for i in
 * [0, ntasks) across the pool's threads plus the caller, and returns when all
 * tasks are done. Calls from inside a task run serially on the caller. */
typedef struct g16_pool g16_pool;

g16_pool *g16_pool_create(int nthreads);
void g16_pool_destroy(g16_pool *pool);
int g16_pool_threads(const g16_pool *pool); /* workers + caller, >= 1 */
void g16_pool_run(g16_pool *pool, size_t ntasks, void (*fn)(void *arg, size_t task), void *arg);

/* ---- time -------------------------------------------------------------- */
double g16_now_ms(void); /* monotonic clock in milliseconds */

#endif
