/* The benches' one entry point for the CLI (`g16 bench <what> [options]`,
 * bench/bench.c). The CLI includes this header only; the benches' own
 * declarations are in bench.h. */
#ifndef G16_BENCH_MAIN_H
#define G16_BENCH_MAIN_H

#include "cli/args.h"

/* Its options, --help and man page text (bench.c). */
extern const cli_cmd CLI_BENCH;

/* argv[0] is "bench". Returns the process exit code (0 ok, 2 usage error). */
int bench_main(int argc, char **argv);

#endif
