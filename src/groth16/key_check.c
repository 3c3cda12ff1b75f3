/* Whether a loaded key's file is still what was loaded (g16_key_check and
 * the library's own checks before a proof leaves it). The mechanism is the
 * guarded mapping of src/util/fmap.h; docs/formats.md "Mapped files that
 * change" describes it. */
#include "groth16.h"
#include "util/ctx.h"

g16_err groth16_key_check(const g16_key *key, g16_key_state *state, g16_status *st) {
    if (state)
        *state = G16_KEY_FILE_INTACT;
    if (!key)
        return g16_fail(st, G16_ERR_INVALID_ARG, "key check: NULL key");
    int s = G16_KEY_FILE_INTACT;
    g16_err e = g16_zkey_check(groth16_key_zkey(key), &s, st);
    if (state)
        *state = (g16_key_state)s;
    return e;
}

g16_err g16_key_check(g16_ctx *ctx, g16_key_state *state, const g16_key *key) {
    g16_status st = {0};
    if (groth16_key_check(key, state, &st) != G16_OK)
        return g16_ctx_report(ctx, &st);
    return G16_OK;
}

g16_err groth16_key_settle(const g16_key *key, g16_err err, g16_status *st) {
    g16_status cs = {0};
    if (!key || groth16_key_check(key, NULL, &cs) == G16_OK)
        return err;
    if (st)
        *st = cs;
    return cs.code;
}
