/* librapidsnark_g16: rapidsnark's prover.h / verifier.h C ABI over the
 * public g16 API (include/g16.h) alone. The JSON texts are re-emitted in
 * rapidsnark's layout: compact, keys sorted, the proof without "curve". */
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16.h"
#include "rapidsnark/prover.h"
#include "rapidsnark/verifier.h"

#define RS_EXPORT __attribute__((visibility("default")))

/* The longest proof text, NUL included: 95 bytes of structure and 8 base
 * field numbers of at most 115 decimal digits (BLS12-381's q; BN254's has
 * 77, whose longest proof needs 712). */
#define RS_PROOF_CAPACITY 1016ull

/* A prover object: a context of its own (all CPUs) and a loaded key. */
typedef struct rs_prover {
    g16_ctx *ctx;
    g16_key *key;
    g16_key_info info;
} rs_prover;

static void put_msg(char *buf, unsigned long long cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put_msg(char *buf, unsigned long long cap, const char *fmt, ...) {
    if (!buf || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap > SIZE_MAX ? SIZE_MAX : (size_t)cap, fmt, ap);
    va_end(ap);
}

/* The context's last error message (it names the input and the fault;
 * else `what` and the code's name) into buf, returning code. */
static int put_ctx_error(g16_ctx *ctx, char *buf, unsigned long long cap, const char *what, int code) {
    char m[512];
    g16_err e = g16_ctx_last_error(ctx, m, sizeof m);
    if (m[0])
        put_msg(buf, cap, "%s", m);
    else
        put_msg(buf, cap, "%s: %s", what, g16_err_str(e));
    return code;
}

static g16_ctx *new_ctx(int threads, char *buf, unsigned long long cap) {
    g16_ctx_opts o = {.threads = threads};
    g16_ctx *ctx = NULL;
    char m[512] = "";
    if (g16_ctx_create_ex(&ctx, &o, m, sizeof m) != G16_OK) {
        put_msg(buf, cap, "g16 context: %s", m[0] ? m : "out of memory");
        return NULL;
    }
    return ctx;
}

static unsigned long long public_capacity(uint32_t n_public) {
    return (unsigned long long)n_public * 82 + 4;
}

RS_EXPORT int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
                                               unsigned long long *public_size, char *error_msg,
                                               unsigned long long error_msg_maxsize) {
    if (!zkey_buffer || !public_size) {
        put_msg(error_msg, error_msg_maxsize, "NULL %s", zkey_buffer ? "public_size" : "zkey buffer");
        return PROVER_ERROR;
    }
    if (zkey_size > SIZE_MAX) {
        put_msg(error_msg, error_msg_maxsize, "zkey size %llu too large", zkey_size);
        return PROVER_ERROR;
    }
    g16_ctx *ctx = new_ctx(1, error_msg, error_msg_maxsize);
    if (!ctx)
        return PROVER_ERROR;
    g16_key_header h;
    int rc = PROVER_OK;
    if (g16_key_peek_bytes(ctx, &h, zkey_buffer, (size_t)zkey_size) != G16_OK)
        rc = put_ctx_error(ctx, error_msg, error_msg_maxsize, "zkey", PROVER_ERROR);
    else
        *public_size = public_capacity(h.n_public);
    g16_ctx_destroy(ctx);
    return rc;
}

RS_EXPORT int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size,
                                                char *error_msg, unsigned long long error_msg_maxsize) {
    if (!zkey_fname || !public_size) {
        put_msg(error_msg, error_msg_maxsize, "NULL %s", zkey_fname ? "public_size" : "zkey file name");
        return PROVER_ERROR;
    }
    g16_ctx *ctx = new_ctx(1, error_msg, error_msg_maxsize);
    if (!ctx)
        return PROVER_ERROR;
    g16_key_header h;
    int rc = PROVER_OK;
    if (g16_key_peek(ctx, &h, zkey_fname) != G16_OK)
        rc = put_ctx_error(ctx, error_msg, error_msg_maxsize, zkey_fname, PROVER_ERROR);
    else
        *public_size = public_capacity(h.n_public);
    g16_ctx_destroy(ctx);
    return rc;
}

RS_EXPORT void groth16_proof_size(unsigned long long *proof_size) {
    if (proof_size)
        *proof_size = RS_PROOF_CAPACITY;
}

/* A prover object without its key yet: NULL (message in error_msg) when
 * prover_object is NULL or memory or the context cannot be had. */
static rs_prover *prover_new(void **prover_object, char *error_msg, unsigned long long error_msg_maxsize) {
    if (!prover_object) {
        put_msg(error_msg, error_msg_maxsize, "NULL prover object");
        return NULL;
    }
    *prover_object = NULL;
    rs_prover *p = calloc(1, sizeof *p);
    if (!p) {
        put_msg(error_msg, error_msg_maxsize, "out of memory");
        return NULL;
    }
    if (!(p->ctx = new_ctx(0, error_msg, error_msg_maxsize))) {
        free(p);
        return NULL;
    }
    return p;
}

/* Ends a create call: e is the key load's code. */
static int prover_finish(void **prover_object, rs_prover *p, g16_err e, const char *what, char *error_msg,
                         unsigned long long error_msg_maxsize) {
    if (e == G16_OK)
        e = g16_key_get_info(p->ctx, &p->info, p->key);
    if (e != G16_OK) {
        put_ctx_error(p->ctx, error_msg, error_msg_maxsize, what, PROVER_ERROR);
        g16_key_free(p->key);
        g16_ctx_destroy(p->ctx);
        free(p);
        return PROVER_ERROR;
    }
    *prover_object = p;
    return PROVER_OK;
}

RS_EXPORT int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
                                    char *error_msg, unsigned long long error_msg_maxsize) {
    if (prover_object)
        *prover_object = NULL;
    if (!zkey_buffer || zkey_size > SIZE_MAX) {
        put_msg(error_msg, error_msg_maxsize, zkey_buffer ? "zkey size too large" : "NULL zkey buffer");
        return PROVER_ERROR;
    }
    rs_prover *p = prover_new(prover_object, error_msg, error_msg_maxsize);
    if (!p)
        return PROVER_ERROR;
    g16_err e = g16_key_load_mem(p->ctx, &p->key, "zkey", zkey_buffer, (size_t)zkey_size, 0);
    return prover_finish(prover_object, p, e, "zkey", error_msg, error_msg_maxsize);
}

RS_EXPORT int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                              unsigned long long error_msg_maxsize) {
    if (prover_object)
        *prover_object = NULL;
    if (!zkey_file_path) {
        put_msg(error_msg, error_msg_maxsize, "NULL zkey file path");
        return PROVER_ERROR;
    }
    rs_prover *p = prover_new(prover_object, error_msg, error_msg_maxsize);
    if (!p)
        return PROVER_ERROR;
    g16_err e = g16_key_load(p->ctx, &p->key, zkey_file_path, 0);
    return prover_finish(prover_object, p, e, zkey_file_path, error_msg, error_msg_maxsize);
}

RS_EXPORT void groth16_prover_destroy(void *prover_object) {
    rs_prover *p = prover_object;
    if (!p)
        return;
    g16_key_free(p->key);
    g16_ctx_destroy(p->ctx);
    free(p);
}

/* g16's snarkjs JSON texts re-emitted compact with sorted keys, the proof
 * with pi_a, pi_b, pi_c and protocol only. An empty public array is "null"
 * (as rapidsnark writes it). *proof_out, *pub_out: malloc'd. */
static int rapidsnark_json(const char *proof_json, const char *public_json, char **proof_out, char **pub_out) {
    *proof_out = *pub_out = NULL;
    json_t *pj = json_loads(proof_json, 0, NULL), *uj = json_loads(public_json, 0, NULL);
    json_t *out = json_object();
    int ok = pj && uj && out && json_is_array(uj);
    static const char *const keys[] = {"pi_a", "pi_b", "pi_c", "protocol"};
    for (size_t i = 0; ok && i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(pj, keys[i]);
        ok = v && json_object_set(out, keys[i], v) == 0;
    }
    if (ok) {
        *proof_out = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
        *pub_out = json_dumps(json_array_size(uj) ? uj : json_null(), JSON_COMPACT | JSON_ENCODE_ANY);
        ok = *proof_out && *pub_out;
    }
    json_decref(pj);
    json_decref(uj);
    json_decref(out);
    if (!ok) {
        free(*proof_out);
        free(*pub_out);
        *proof_out = *pub_out = NULL;
    }
    return ok;
}

RS_EXPORT int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
                                   char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                                   unsigned long long *public_size, char *error_msg,
                                   unsigned long long error_msg_maxsize) {
    const char *null_arg = !prover_object ? "prover object"
                           : !wtns_buffer ? "witness buffer"
                           : !proof_buffer ? "proof buffer"
                           : !proof_size   ? "proof size"
                           : !public_buffer ? "public buffer"
                           : !public_size   ? "public size"
                                            : NULL;
    if (null_arg) {
        put_msg(error_msg, error_msg_maxsize, "NULL %s", null_arg);
        return PROVER_ERROR;
    }
    if (wtns_size > SIZE_MAX) {
        put_msg(error_msg, error_msg_maxsize, "witness size %llu too large", wtns_size);
        return PROVER_ERROR;
    }
    rs_prover *p = prover_object;
    g16_witness_header wh;
    if (g16_witness_peek_bytes(p->ctx, &wh, wtns_buffer, (size_t)wtns_size) != G16_OK)
        return put_ctx_error(p->ctx, error_msg, error_msg_maxsize, "witness", PROVER_ERROR);
    if (wh.n_values != p->info.n_vars) {
        put_msg(error_msg, error_msg_maxsize, "witness has %u values, the circuit %u", wh.n_values, p->info.n_vars);
        return PROVER_INVALID_WITNESS_LENGTH;
    }
    if (wh.curve != p->info.curve) {
        put_msg(error_msg, error_msg_maxsize, "witness of curve %s, key of curve %s", g16_curve_name(wh.curve),
                g16_curve_name(p->info.curve));
        return PROVER_ERROR;
    }
    g16_witness *w = NULL;
    g16_result *res = NULL;
    char *pj = NULL, *uj = NULL, *proof = NULL, *pub = NULL;
    int rc = PROVER_OK;
    if (g16_witness_from_wtns_bytes(p->ctx, &w, wtns_buffer, (size_t)wtns_size) != G16_OK)
        rc = put_ctx_error(p->ctx, error_msg, error_msg_maxsize, "witness", PROVER_ERROR);
    else if (g16_prove(p->ctx, &res, p->key, w, NULL, NULL) != G16_OK)
        rc = put_ctx_error(p->ctx, error_msg, error_msg_maxsize, "prove", PROVER_ERROR);
    else if (g16_result_json(p->ctx, &pj, &uj, res) != G16_OK)
        rc = put_ctx_error(p->ctx, error_msg, error_msg_maxsize, "proof JSON", PROVER_ERROR);
    else if (!rapidsnark_json(pj, uj, &proof, &pub)) {
        put_msg(error_msg, error_msg_maxsize, "proof JSON: out of memory");
        rc = PROVER_ERROR;
    }
    g16_witness_free(w);
    g16_result_free(res);
    g16_free(pj);
    g16_free(uj);
    if (rc != PROVER_OK)
        return rc;
    unsigned long long need_proof = strlen(proof) + 1, need_pub = strlen(pub) + 1;
    if (*proof_size < need_proof || *public_size < need_pub) {
        put_msg(error_msg, error_msg_maxsize,
                "buffer too small: proof needs %llu bytes (has %llu), public signals %llu (has %llu)", need_proof,
                *proof_size, need_pub, *public_size);
        *proof_size = need_proof;
        *public_size = need_pub;
        rc = PROVER_ERROR_SHORT_BUFFER;
    } else {
        memcpy(proof_buffer, proof, need_proof);
        memcpy(public_buffer, pub, need_pub);
        *proof_size = need_proof - 1;
        *public_size = need_pub - 1;
    }
    free(proof);
    free(pub);
    return rc;
}

RS_EXPORT int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
                             unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                             char *public_buffer, unsigned long long *public_size, char *error_msg,
                             unsigned long long error_msg_maxsize) {
    void *p = NULL;
    int rc = groth16_prover_create(&p, zkey_buffer, zkey_size, error_msg, error_msg_maxsize);
    if (rc != PROVER_OK)
        return rc;
    rc = groth16_prover_prove(p, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                              error_msg, error_msg_maxsize);
    groth16_prover_destroy(p);
    return rc;
}

RS_EXPORT int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer,
                                       unsigned long long wtns_size, char *proof_buffer,
                                       unsigned long long *proof_size, char *public_buffer,
                                       unsigned long long *public_size, char *error_msg,
                                       unsigned long long error_msg_maxsize) {
    void *p = NULL;
    int rc = groth16_prover_create_zkey_file(&p, zkey_file_path, error_msg, error_msg_maxsize);
    if (rc != PROVER_OK)
        return rc;
    rc = groth16_prover_prove(p, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                              error_msg, error_msg_maxsize);
    groth16_prover_destroy(p);
    return rc;
}

RS_EXPORT int groth16_verify(const char *proof, const char *inputs, const char *verification_key, char *error_msg,
                             unsigned long error_msg_maxsize) {
    if (!proof || !inputs || !verification_key) {
        put_msg(error_msg, error_msg_maxsize, "NULL %s",
                !proof ? "proof" : !inputs ? "inputs" : "verification key");
        return VERIFIER_ERROR;
    }
    /* rapidsnark refuses an empty inputs array; g16 would take one for a
     * circuit without public signals. */
    json_t *in = json_loads(inputs, 0, NULL);
    int empty = !json_is_array(in) || json_array_size(in) == 0;
    json_decref(in);
    if (empty) {
        put_msg(error_msg, error_msg_maxsize, "inputs: not a non-empty JSON array");
        return VERIFIER_ERROR;
    }
    g16_ctx *ctx = new_ctx(1, error_msg, error_msg_maxsize);
    if (!ctx)
        return VERIFIER_ERROR;
    g16_err e = g16_verify_json(ctx, verification_key, inputs, proof);
    int rc = e == G16_OK                  ? VERIFIER_VALID_PROOF
             : e == G16_ERR_INVALID_PROOF ? VERIFIER_INVALID_PROOF
                                          : put_ctx_error(ctx, error_msg, error_msg_maxsize, "verify", VERIFIER_ERROR);
    g16_ctx_destroy(ctx);
    return rc;
}
