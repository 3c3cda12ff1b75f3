/* The small pieces every part of g16d shares (declared in daemon.h, "base"):
 * the wall clock, the message of the last engine error on this thread, the
 * API's name of a g16_err, and the wake-ups of the daemon's two condition
 * variables. They live here, below api, dispatch, keys and main, so that
 * those call downwards only. */
#include "daemon.h"

#include <stdio.h>
#include <time.h>

static __thread char tls_err[512];

void g16d_error_cb(g16_err err, const char *msg, void *user) {
    (void)user;
    snprintf(tls_err, sizeof tls_err, "%s", msg ? msg : g16_err_str(err));
}

const char *g16d_last_engine_error(void) { return tls_err[0] ? tls_err : "engine error"; }

double g16d_unix_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *g16d_err_code(g16_err e) {
    switch (e) {
    case G16_OK: return "ok";
    case G16_ERR_INVALID_ARG: return "invalid_arg";
    case G16_ERR_NOMEM: return "nomem";
    case G16_ERR_IO: return "io";
    case G16_ERR_TRUNCATED: return "truncated";
    case G16_ERR_FORMAT: return "format";
    case G16_ERR_NOT_CANONICAL: return "not_canonical";
    case G16_ERR_NOT_ON_CURVE: return "not_on_curve";
    case G16_ERR_NOT_IN_SUBGROUP: return "not_in_subgroup";
    case G16_ERR_WRONG_CURVE: return "wrong_curve";
    case G16_ERR_SIZE_MISMATCH: return "size_mismatch";
    case G16_ERR_UNSUPPORTED: return "unsupported";
    case G16_ERR_INVALID_PROOF: return "invalid_proof";
    case G16_ERR_DEVICE: return "device";
    case G16_ERR_NO_DEVICE: return "no_device";
    case G16_ERR_CANCELLED: return "cancelled";
    case G16_ERR_TIMEOUT: return "timeout";
    case G16_ERR_INTERNAL: return "internal";
    case G16_ERR_WITNESS_GEN: return "witness_generator";
    }
    return "internal";
}

void g16d_notify_change(g16d *d) {
    pthread_mutex_lock(&d->mtx);
    d->change_gen++;
    pthread_cond_broadcast(&d->change);
    pthread_mutex_unlock(&d->mtx);
}

void g16d_dispatch_wake(g16d *d) {
    pthread_mutex_lock(&d->mtx);
    pthread_cond_broadcast(&d->work);
    pthread_mutex_unlock(&d->mtx);
}
