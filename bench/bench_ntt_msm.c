/* g16 bench ntt|msm (being written on the NTT/MSM branch). */
#include "bench.h"

int bench_ntt(const bench_opts *o) {
    (void)o;
    fprintf(stderr, "g16 bench ntt: not built yet\n");
    return 2;
}

int bench_msm(const bench_opts *o) {
    (void)o;
    fprintf(stderr, "g16 bench msm: not built yet\n");
    return 2;
}
