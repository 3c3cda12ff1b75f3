/* util layer: g16_wipe_threads zeroes every byte of a buffer, whatever the
 * length (not a multiple of the slice alignment, smaller than one slice,
 * zero) and thread count, and nothing past it. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/util.h"

static g16_rng rng;

static void wipe_case(size_t len, int threads) {
    size_t guard = 64;
    unsigned char *buf = malloc(len + 2 * guard);
    CHECK(buf != NULL);
    if (!buf)
        return;
    for (size_t i = 0; i < len + 2 * guard; i++)
        buf[i] = (unsigned char)(g16_rng_next(&rng) | 1); /* never zero */
    g16_wipe_threads(buf + guard, len, threads);
    size_t bad = 0, first = len;
    for (size_t i = 0; i < len; i++)
        if (buf[guard + i]) {
            bad++;
            if (first == len)
                first = i;
        }
    int guards_kept = 1;
    for (size_t i = 0; i < guard; i++)
        guards_kept &= buf[i] != 0 && buf[guard + len + i] != 0;
    CHECK_MSG(bad == 0 && guards_kept, "wipe of %zu bytes on %d threads: %zu bytes left (first at %zu), guards %s",
              len, threads, bad, first, guards_kept ? "kept" : "overwritten");
    free(buf);
}

int main(void) {
    g16_rng_seed(&rng, t_seed("test_util"));
    size_t mb = (size_t)1 << 20;
    wipe_case(0, 4);
    wipe_case(1, 4);
    wipe_case(1000, 1);
    wipe_case(64 * mb - 3, 4);          /* below two slices: one thread */
    wipe_case(300 * mb + 17, 4);        /* four slices, the last one short */
    wipe_case(130 * mb + 5, 64);        /* more threads asked than slices or the cap */
    wipe_case(128 * mb + 100, 2);       /* two slices, the second one 100 bytes longer */
    g16_wipe_threads(NULL, 100, 4);     /* NULL: nothing happens */
    return t_done("test_util");
}
