/* g16d: the proving daemon (docs/daemon.md). Being written: see issue #9. */
#include <stdio.h>

int main(void) {
    fputs("g16d: not built yet\n", stderr);
    return 1;
}
