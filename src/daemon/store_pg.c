/* daemon layer: the PostgreSQL job store (being written: a placeholder that
 * refuses to open). */
#include "store_impl.h"

static g16_err pg_open(void **self, const char *target, const char *owner, g16_status *st) {
    (void)self;
    (void)target;
    (void)owner;
    return g16_fail(st, G16_ERR_UNSUPPORTED, "store: the PostgreSQL backend is not written yet");
}
static void pg_close(void *self) { (void)self; }

const store_ops store_pg_ops = {.name = "postgresql", .open = pg_open, .close = pg_close};
