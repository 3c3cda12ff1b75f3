/* g16 prove --params / g16 verify --params over files (assignment.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/formats.h"
#include "../util/ctx.h"
#include "../util/file.h"
#include "assignment.h"

g16_err g16_fr_mont_from_dec(g16_fr_mont *out, const char *dec) {
    bls381_fr x;
    g16_err e = bls381_fr_from_dec(&x, dec);
    if (!e)
        memcpy(out->l, x.l, sizeof out->l);
    return e;
}

static g16_err pair_write(const char *path[2], const void *data[2], const size_t len[2], g16_status *st) {
    g16_atomic_file af[2];
    int open_n = 0;
    g16_err e = G16_OK;
    for (int k = 0; k < 2 && !e; k++) {
        if ((e = g16_atomic_begin(&af[k], path[k], st)))
            break;
        open_n = k + 1;
        FILE *f = g16_atomic_stream(&af[k]);
        af[k].failed = !f || fwrite(data[k], 1, len[k], f) != len[k];
        e = g16_atomic_finish(&af[k], st);
    }
    for (int k = 0; k < open_n; k++) { /* both complete on disk before either is renamed */
        if (!e)
            e = g16_atomic_commit(&af[k], st);
        else
            g16_atomic_abort(&af[k]);
    }
    return e;
}

g16_err g16_params_prove_file(g16_ctx *ctx, const g16_params_key *key, const char *asg_path, const char *proof_path,
                              const char *public_path, const g16_assignment_prove_opts *opts, g16_status *st) {
    g16_assignment_file af;
    g16_err e = g16_assignment_read(&af, asg_path, st);
    if (e)
        return e;
    g16_params_proof_raw raw;
    /* the mapped file must still be what the prover read */
    if ((e = g16_prove_assignments_st(ctx, key, &af.a, 1, opts, &raw, st)) ||
        (e = g16_assignment_file_intact(&af, st))) {
        char msg[sizeof st->msg];
        snprintf(msg, sizeof msg, "%s", st->msg);
        g16_assignment_file_free(&af);
        return g16_fail(st, e, "%s: %s", asg_path, msg);
    }
    uint8_t proof[G16_PARAMS_PROOF_SIZE];
    if ((e = g16_params_proof_raw_encode(proof, &raw))) {
        g16_assignment_file_free(&af);
        return g16_fail(st, G16_ERR_INTERNAL, "the prover's proof does not encode: %s", g16_err_str(e));
    }
    g16_frvec pub = {.curve = G16_CURVE_BLS12_381, .n = af.a.inp_assignment_size - 1};
    char *js = NULL;
    if (pub.n) {
        pub.bls381 = malloc(pub.n * sizeof *pub.bls381);
        if (!pub.bls381) {
            g16_assignment_file_free(&af);
            return g16_fail(st, G16_ERR_NOMEM, "out of memory");
        }
        memcpy(pub.bls381, af.a.inp_assignment + 1, pub.n * sizeof *pub.bls381);
    }
    e = g16_assignment_file_intact(&af, st); /* the inputs copied above */
    g16_assignment_file_free(&af);
    if (e) {
        g16_frvec_free(&pub);
        return e;
    }
    e = g16_public_json_str(&js, &pub, 0, pub.n, st);
    g16_frvec_free(&pub);
    if (e)
        return e;
    const char *paths[2] = {proof_path, public_path};
    const void *data[2] = {proof, js};
    size_t lens[2] = {sizeof proof, strlen(js)};
    e = pair_write(paths, data, lens, st);
    free(js);
    return e;
}

g16_err g16_params_verify_files(const char *key_path, const char *public_path, const char *proof_path,
                                g16_status *st) {
    g16_params p;
    g16_params_opts o = {.kind = G16_PARAMS_KIND_AUTO, .subgroup = 1, .vk_only = 1};
    g16_err e = g16_params_load(&p, key_path, &o, NULL, st);
    if (e)
        return e;
    g16_frvec pub;
    memset(&pub, 0, sizeof pub);
    char *buf = NULL;
    size_t len = 0;
    g16_params_proof pr;
    if ((e = g16_public_json_read(&pub, public_path, G16_CURVE_BLS12_381, st)))
        goto out;
    if ((e = g16_file_read_all(proof_path, 4096, "bellperson proof", &buf, &len, st)))
        goto out;
    if ((e = g16_params_proof_decode(&pr, (const uint8_t *)buf, len, st))) {
        char m[sizeof st->msg];
        snprintf(m, sizeof m, "%s", st->msg);
        e = g16_fail(st, e, "%s: %s", proof_path, m);
        goto out;
    }
    e = g16_params_verify(&p, &pr, pub.bls381, pub.n, st);
out:
    free(buf);
    g16_frvec_free(&pub);
    g16_params_free(&p);
    return e;
}
