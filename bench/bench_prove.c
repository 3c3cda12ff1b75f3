/* g16 bench prove (needs the Groth16 prover). */
#include "bench.h"

int bench_prove(const bench_opts *o) {
    (void)o;
    fprintf(stderr, "g16 bench prove: not built yet\n");
    return 2;
}
