/* util layer: g16_wipe_threads zeroes every byte of a buffer, whatever the
 * length (not a multiple of the slice alignment, smaller than one slice,
 * zero) and thread count, and nothing past it; G16_VERIFY_CHECK aborts with
 * file:line and the condition in a G16_VERIFY build (an unreduced field
 * element handed to bn254_fp_add), and costs nothing without it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "field/field.h"
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

/* A child adds p (not below p) to 1: with G16_VERIFY it must die of
 * SIGABRT after printing the violated condition; without, it returns. */
static void verify_check_case(void) {
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid < 0)
        return;
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 2);
        bn254_fp a, b, r;
        for (int i = 0; i < 4; i++)
            a.l[i] = bn254_fp_p_[i]; /* = p: unreduced */
        bn254_fp_set_one(&b);
        bn254_fp_add(&r, &a, &b);
        _exit(r.l[0] == 0x1234567 ? 3 : 0);
    }
    close(fd[1]);
    char msg[512] = {0};
    size_t got = 0;
    ssize_t k;
    while (got < sizeof msg - 1 && (k = read(fd[0], msg + got, sizeof msg - 1 - got)) > 0)
        got += (size_t)k;
    close(fd[0]);
    int ws = 0;
    CHECK(waitpid(pid, &ws, 0) == pid);
    if (G16_VERIFY_ON) {
        CHECK_MSG(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGABRT, "G16_VERIFY_CHECK did not abort (status %d)", ws);
        CHECK_MSG(strstr(msg, "field_impl.h:") && strstr(msg, "invariant violated") && strstr(msg, "REDUCED"),
                  "G16_VERIFY_CHECK message: %s", msg);
    } else {
        CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "without G16_VERIFY the add must return (status %d)", ws);
    }
    printf("  G16_VERIFY_CHECK %s\n", G16_VERIFY_ON ? "on: aborts on an unreduced element" : "off");
}

int main(void) {
    g16_rng_seed(&rng, t_seed("test_util"));
    verify_check_case();
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
