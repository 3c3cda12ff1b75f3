/* Errors, RNGs, wipe, time. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

g16_err g16_fail(g16_status *st, g16_err code, const char *fmt, ...) {
    if (st) {
        va_list ap;
        va_start(ap, fmt);
        st->code = code;
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *g16_err_str(g16_err err) {
    switch (err) {
    case G16_OK: return "ok";
    case G16_ERR_INVALID_ARG: return "invalid argument";
    case G16_ERR_NOMEM: return "out of memory";
    case G16_ERR_IO: return "i/o error";
    case G16_ERR_TRUNCATED: return "truncated input";
    case G16_ERR_FORMAT: return "malformed input";
    case G16_ERR_NOT_CANONICAL: return "non-canonical field element";
    case G16_ERR_NOT_ON_CURVE: return "point not on curve";
    case G16_ERR_NOT_IN_SUBGROUP: return "point not in prime-order subgroup";
    case G16_ERR_WRONG_CURVE: return "wrong curve";
    case G16_ERR_SIZE_MISMATCH: return "size mismatch";
    case G16_ERR_UNSUPPORTED: return "unsupported";
    case G16_ERR_INVALID_PROOF: return "invalid proof";
    case G16_ERR_DEVICE: return "device error";
    case G16_ERR_NO_DEVICE: return "no usable device";
    case G16_ERR_CANCELLED: return "cancelled";
    case G16_ERR_TIMEOUT: return "timed out";
    case G16_ERR_INTERNAL: return "internal error";
    case G16_ERR_WITNESS_GEN: return "witness generator failed";
    }
    return "unknown error";
}

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void g16_rng_seed(g16_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman, Vigna 2018). */
uint64_t g16_rng_next(g16_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

g16_err g16_os_random(void *buf, size_t len) {
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return G16_ERR_IO;
        }
        p += got;
        len -= (size_t)got;
    }
    return G16_OK;
}

#ifdef G16_VERIFY
void g16_verify_fail(const char *file, int line, const char *cond) {
    fprintf(stderr, "%s:%d: g16 invariant violated: %s\n", file, line, cond);
    fflush(stderr);
    abort();
}
#endif

/* memset, then a compiler barrier that "reads" p (as Linux's
 * memzero_explicit): the stores cannot be elided as dead, and the wipe runs
 * at memset speed (the byte-wise volatile loop it replaces cost ~12 ms per
 * 32 MB witness, twice per partition, in the engine's measured 2^20 runs). */
void g16_wipe(void *p, size_t len) {
    if (!p || !len)
        return;
    memset(p, 0, len);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

typedef struct wipe_slice {
    unsigned char *p;
    size_t len;
} wipe_slice;

static void *wipe_main(void *arg) {
    const wipe_slice *w = arg;
    g16_wipe(w->p, w->len);
    return NULL;
}

/* Threads of its own rather than a context's pool: a pool runs one batch
 * at a time, and the engine's synthesis threads run theirs on it, so a wipe
 * queued there during H could wait behind them. */
void g16_wipe_threads(void *p, size_t len, int threads) {
    enum { MAX_WIPE_THREADS = 16 };
    size_t min_slice = (size_t)64 << 20; /* below this a thread is not worth starting */
    if (threads > MAX_WIPE_THREADS)
        threads = MAX_WIPE_THREADS;
    if (threads > 1 && len / min_slice < (size_t)threads)
        threads = (int)(len / min_slice);
    if (!p || threads <= 1) {
        g16_wipe(p, len);
        return;
    }
    pthread_t th[MAX_WIPE_THREADS];
    wipe_slice sl[MAX_WIPE_THREADS];
    int started[MAX_WIPE_THREADS] = {0};
    size_t per = (len / (size_t)threads + 63) & ~(size_t)63;
    for (int i = 0; i < threads; i++) {
        size_t lo = (size_t)i * per, hi = lo + per < len ? lo + per : len;
        sl[i] = (wipe_slice){(unsigned char *)p + lo, lo < len ? hi - lo : 0};
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, wipe_main, &sl[i]) == 0;
    }
    g16_wipe(sl[0].p, sl[0].len);
    for (int i = 1; i < threads; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            g16_wipe(sl[i].p, sl[i].len);
    }
}

double g16_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
