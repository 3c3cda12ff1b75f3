/* The CLI's clock, for the subcommands' timings (declared in cli.h). */
#include <time.h>

#include "cli.h"

double g16_cli_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
