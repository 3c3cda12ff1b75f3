/* The HTTP API, v1 (docs/api.md; /work/briefs/api-spec.md): routes over
 * the key registry, the job store and the engine. Every reply is JSON
 * (except /metrics); errors are {"error":{"code","message"}} with a precise
 * 4xx/5xx status. The job view is read from the store, so results survive
 * restarts. */
#include "daemon.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const PRIO_NAMES[4] = {"low", "normal", "high", "critical"};

static char *dump(json_t *o, int status, int *out_status) {
    *out_status = status;
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!s) {
        *out_status = 500;
        s = strdup("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
    }
    return s;
}

char *g16d_api_error(int http, const char *code, const char *msg, int *status) {
    return dump(json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg ? msg : ""), http, status);
}

static char *errf(int *status, int http, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static char *errf(int *status, int http, const char *code, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return g16d_api_error(http, code, msg, status);
}

/* A store failure as a reply: 507 insufficient_storage when the store is
 * full (store_error_is_full: disk, file-size limit, quota), else 503. */
static char *store_fail(g16d *d, const char *op, const g16_status *st, int *status) {
    g16d_store_error(d, op, st);
    if (store_error_is_full(st))
        return errf(status, 507, "insufficient_storage", "job store: %s", st->msg);
    return errf(status, 503, "unavailable", "job store: %s", st->msg);
}

/* Curves are named as everywhere in g16's output: bn254, bls12-381 (proof
 * JSON keeps snarkjs's "bn128" / "bls12381"). */
static const char *curve_name(g16_curve c) { return g16_curve_name(c); }

/* ---- base64 (RFC 4648; also the URL-safe alphabet; padding optional) ---- */
static int b64_val(unsigned char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Decodes s (n chars) into a malloc'd buffer. -1: not base64; -2: decoded
 * size above max; -3: out of memory. */
static int b64_decode(const char *s, size_t n, uint64_t max, uint8_t **out, size_t *out_len) {
    while (n && s[n - 1] == '=')
        n--;
    if (n % 4 == 1)
        return -1;
    size_t len = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    if (len > max)
        return -2;
    uint8_t *b = malloc(len ? len : 1);
    if (!b)
        return -3;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_val((unsigned char)s[i]);
        if (v < 0) {
            free(b);
            return -1;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            b[o++] = (uint8_t)(acc >> bits);
        }
    }
    *out = b;
    *out_len = o;
    return 0;
}

/* Inline witnesses and inputs are secret: zeroed before they are freed. */
static void wipe_free(void *p, size_t n) {
    if (!p)
        return;
    volatile unsigned char *v = p;
    for (size_t i = 0; i < n; i++)
        v[i] = 0;
    free(p);
}

/* ---- keys ----------------------------------------------------------------- */

static json_t *key_json(g16d *d, const g16d_key *k, int full) {
    json_t *o = json_pack("{s:s}", "id", k->id);
    if (full)
        json_object_set_new(o, "path", json_string(k->path));
    json_object_set_new(o, "format", json_string(k->params ? "params" : "zkey"));
    json_object_set_new(o, "curve", json_string(curve_name(k->curve)));
    json_object_set_new(o, "n_public", json_integer(k->n_public));
    json_object_set_new(o, "n_vars", json_integer(k->n_vars));
    json_object_set_new(o, "domain", json_integer(k->domain));
    json_object_set_new(o, "tier", json_string(k->tier == G16_TIER_HOST ? "host" : "mmap"));
    json_object_set_new(o, "witness_generator", k->witgen[0] ? json_string(k->witgen) : json_null());
    if (full) {
        g16_engine_key_info ki;
        memset(&ki, 0, sizeof ki);
        (void)!g16_engine_key_get_info(d->eng, &ki, k->eng_id);
        json_object_set_new(o, "resident", json_string(ki.tier == G16_TIER_NONE   ? "none"
                                                       : ki.tier == G16_TIER_HOST ? "host"
                                                                                  : "mmap"));
        json_object_set_new(o, "bytes", json_integer((json_int_t)ki.bytes));
        json_object_set_new(o, "refs", json_integer(k->inflight));
        json_object_set_new(o, "error", k->broken ? json_string(k->broken_msg) : json_null());
    }
    return o;
}

static char *keys_post(g16d *d, json_t *body, int *status) {
    const char *id = json_string_value(json_object_get(body, "id"));
    const char *path = json_string_value(json_object_get(body, "path"));
    json_t *tj = json_object_get(body, "tier");
    json_t *gj = json_object_get(body, "witness_generator");
    if (!id || !path)
        return errf(status, 400, "invalid_arg", "POST /v1/keys needs string fields \"id\" and \"path\"");
    if (gj && !json_is_null(gj) && !json_is_string(gj))
        return errf(status, 400, "invalid_arg", "witness_generator: a path (string)");
    g16_key_tier tier = G16_TIER_MMAP;
    if (tj) {
        const char *t = json_string_value(tj);
        if (t && !strcmp(t, "host"))
            tier = G16_TIER_HOST;
        else if (!t || strcmp(t, "mmap"))
            return errf(status, 400, "invalid_arg", "tier: expected \"mmap\" or \"host\"");
    }
    g16d_key k;
    g16d_api_err e = {0};
    int existed = 0;
    if (g16d_key_register(d, id, path, json_string_value(gj), tier, 1, &k, &existed, &e))
        return g16d_api_error(e.http, e.code, e.msg, status);
    if (!existed)
        g16d_keys_save(d);
    if (!existed)
        g16d_log(G16D_INFO, "key_registered", json_pack("{s:s,s:s,s:s,s:i}", "key", k.id, "path", k.path, "curve",
                                                         curve_name(k.curve), "domain", (int)k.domain));
    return dump(key_json(d, &k, 0), existed ? 200 : 201, status);
}

static char *keys_get(g16d *d, int *status) {
    json_t *arr = json_array();
    pthread_mutex_lock(&d->mtx);
    size_t n = d->n_keys;
    g16d_key *copy = n ? malloc(n * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, d->keys, n * sizeof *copy);
    else
        n = 0;
    pthread_mutex_unlock(&d->mtx);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, key_json(d, &copy[i], 1));
    free(copy);
    return dump(json_pack("{s:o}", "keys", arr), 200, status);
}

static char *keys_delete(g16d *d, const char *id, int *status) {
    g16d_api_err e = {0};
    if (g16d_key_remove(d, id, &e))
        return g16d_api_error(e.http, e.code, e.msg, status);
    g16d_log(G16D_INFO, "key_removed", json_pack("{s:s}", "key", id));
    return dump(json_pack("{s:s,s:b}", "id", id, "evicted", 1), 200, status);
}

/* ---- jobs ----------------------------------------------------------------- */

static int parse_priority(const char *s) {
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, PRIO_NAMES[i]))
            return i;
    return -1;
}

static json_t *job_json(const store_job_info *j, int with_results) {
    json_t *parts = json_array();
    for (uint32_t i = 0; i < j->n_partitions; i++) {
        const store_part_info *p = &j->parts[i];
        json_t *pj = json_pack("{s:i,s:s,s:i}", "index", (int)i, "state", store_state_name(p->state), "attempts",
                               (int)p->attempts);
        if (p->state == STORE_FAILED || p->err_code)
            json_object_set_new(pj, "error",
                                json_pack("{s:s,s:s}", "code", g16d_err_code((g16_err)p->err_code), "message",
                                          p->error ? p->error : g16_err_str((g16_err)p->err_code)));
        else
            json_object_set_new(pj, "error", json_null());
        json_t *stats = p->stats_json ? json_loads(p->stats_json, 0, NULL) : NULL;
        json_object_set_new(pj, "stats", stats ? stats : json_null());
        if (with_results) {
            json_t *proof = p->proof_json ? json_loads(p->proof_json, 0, NULL) : NULL;
            json_t *pub = p->public_json ? json_loads(p->public_json, 0, NULL) : NULL;
            json_object_set_new(pj, "proof", proof ? proof : json_null());
            json_object_set_new(pj, "public", pub ? pub : json_null());
        }
        json_array_append_new(parts, pj);
    }
    json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:I}", "id", (json_int_t)j->id, "key", j->key_id, "priority",
                          PRIO_NAMES[j->priority < 0 ? 0 : j->priority > 3 ? 3 : j->priority], "state",
                          store_state_name(j->state), "created", (json_int_t)j->created);
    if (j->idempotency_key[0])
        json_object_set_new(o, "idempotency_key", json_string(j->idempotency_key));
    json_object_set_new(o, "started", j->started > 0 ? json_integer((json_int_t)j->started) : json_null());
    json_object_set_new(o, "finished", j->finished > 0 ? json_integer((json_int_t)j->finished) : json_null());
    json_object_set_new(o, "partitions", parts);
    json_object_set_new(o, "progress", json_pack("{s:i,s:i,s:i,s:i}", "done", (int)j->n_done, "failed",
                                                 (int)j->n_failed, "cancelled", (int)j->n_cancelled, "total",
                                                 (int)j->n_partitions));
    json_object_set_new(o, "queue_position", json_integer((json_int_t)j->queue_position));
    return o;
}

static int finished(store_state s) { return s == STORE_DONE || s == STORE_FAILED || s == STORE_CANCELLED; }

/* The header of an .assignment file (docs/formats.md, "Assignment files":
 * magic, version 1, curve 2, then abc_size, n_inputs, n_aux as u64 LE at
 * 16, 24, 32) against key: NULL when it matches, else the error reply. The
 * rest of the file is checked when the partition runs (its error is the
 * partition's). */
/* Partition i's inline {"data": base64} (dj) decoded into *data (malloc'd,
 * caller frees) and recorded in sw; NULL, or the error reply: 400 not
 * base64, 413 over max_inline_bytes, 503 out of memory. */
static char *inline_data(g16d *d, json_t *dj, size_t i, uint8_t **data, store_witness *sw, int *status) {
    size_t len = 0;
    int rc = b64_decode(json_string_value(dj), json_string_length(dj), d->cfg->max_inline_bytes, data, &len);
    if (rc == -1)
        return errf(status, 400, "invalid_arg", "witness %zu: data is not base64", i);
    if (rc == -2)
        return errf(status, 413, "too_large", "witness %zu: inline data exceeds max_inline_bytes = %llu", i,
                    (unsigned long long)d->cfg->max_inline_bytes);
    if (rc)
        return errf(status, 503, "nomem", "out of memory");
    sw->data = *data;
    sw->len = len;
    return NULL;
}

static char *asg_header_check(const uint8_t *h, size_t len, size_t i, const g16d_key *key, int *status) {
    if (len < 88 || memcmp(h, "g16asgn", 8))
        return errf(status, 422, "format", "witness %zu: not an .assignment file (magic \"g16asgn\")", i);
    uint64_t v[3];
    for (int k = 0; k < 3; k++) {
        v[k] = 0;
        for (int b = 7; b >= 0; b--)
            v[k] = v[k] << 8 | h[16 + 8 * k + b];
    }
    uint64_t ni = (uint64_t)key->n_public + 1, na = (uint64_t)key->n_vars - ni;
    if (v[1] != ni || v[2] != na)
        return errf(status, 422, "size_mismatch",
                    "witness %zu: the assignment has %llu inputs and %llu aux; key '%s' has %llu and %llu", i,
                    (unsigned long long)v[1], (unsigned long long)v[2], key->id, (unsigned long long)ni,
                    (unsigned long long)na);
    if (v[0] > key->domain)
        return errf(status, 422, "size_mismatch", "witness %zu: abc_size %llu is over key '%s''s domain %u", i,
                    (unsigned long long)v[0], key->id, key->domain);
    return NULL;
}

/* Partition i of a job on a .params key: {"assignment": path} (or
 * {"path": path}; checked against the allowed roots) or {"data": base64 of
 * an .assignment file}, kept in the store as a witness path or inline data
 * is. Its header must match the key. NULL when usable, else the reply. */
static char *assignment_load(g16d *d, json_t *w, size_t i, const g16d_key *key, store_witness *sw, char **path,
                             uint8_t **data, int *status) {
    const char *p = json_string_value(json_object_get(w, "assignment"));
    const char *p2 = json_string_value(json_object_get(w, "path"));
    json_t *dj = json_object_get(w, "data");
    int nsrc = (json_object_get(w, "assignment") != NULL) + (json_object_get(w, "path") != NULL) + (dj != NULL);
    if (!json_is_object(w) || nsrc != 1 || (dj && !json_is_string(dj)) || (!dj && !p && !p2) ||
        json_object_get(w, "inputs"))
        return errf(status, 400, "invalid_arg",
                    "witness %zu: key '%s' is a .params key: expected {\"assignment\": path} or {\"data\": base64 "
                    "of an .assignment file}",
                    i, key->id);
    uint8_t head[88];
    if (!dj) {
        char rp[PATH_MAX];
        g16d_api_err e = {0};
        if (g16d_path_check(d, p ? p : p2, rp, &e))
            return errf(status, e.http, e.code, "witness %zu: %s", i, e.msg);
        FILE *f = fopen(rp, "rb");
        size_t got = f ? fread(head, 1, sizeof head, f) : 0;
        if (f)
            fclose(f);
        else
            return errf(status, 403, "forbidden_path", "witness %zu: %s: %s", i, rp, strerror(errno));
        char *r = asg_header_check(head, got, i, key, status);
        if (r)
            return r;
        if (!(*path = strdup(rp)))
            return errf(status, 503, "nomem", "out of memory");
        sw->path = *path;
        return NULL;
    }
    char *r = inline_data(d, dj, i, data, sw, status);
    return r ? r : asg_header_check(*data, sw->len, i, key, status);
}

/* Witness i of a POST /v1/jobs body, w: {"path": string} (checked,
 * *path: its real path, malloc'd) or {"data": base64} (*data: decoded,
 * malloc'd), set in *sw; its header must match key. NULL when it is
 * usable, else the error reply. */
static char *witness_load(g16d *d, json_t *w, size_t i, const g16d_key *key, store_witness *sw, char **path,
                          uint8_t **data, int *status) {
    if (key->params)
        return assignment_load(d, w, i, key, sw, path, data, status);
    const char *p = json_string_value(json_object_get(w, "path"));
    json_t *dj = json_object_get(w, "data");
    json_t *inj = json_object_get(w, "inputs");
    if (json_is_object(w) && inj && !p && !dj) {
        /* Inputs for the key's generator: kept in the store as their
         * compact JSON (inline data that starts with '{', where a .wtns
         * starts with "wtns"); the generator runs when the partition does. */
        if (!json_is_object(inj))
            return errf(status, 400, "invalid_arg", "witness %zu: inputs must be a JSON object", i);
        if (!key->witgen[0])
            return errf(status, 422, "no_witness_generator",
                        "witness %zu: key '%s' has no witness generator (POST /v1/keys with \"witness_generator\")",
                        i, key->id);
        char *txt = json_dumps(inj, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!txt)
            return errf(status, 503, "nomem", "out of memory");
        size_t len = strlen(txt);
        if (len > d->cfg->max_inline_bytes) {
            wipe_free(txt, len);
            return errf(status, 413, "too_large", "witness %zu: inputs exceed max_inline_bytes = %llu", i,
                        (unsigned long long)d->cfg->max_inline_bytes);
        }
        *data = (uint8_t *)txt;
        sw->data = txt;
        sw->len = len;
        return NULL;
    }
    if (!json_is_object(w) || (!p == !dj) || (dj && !json_is_string(dj)) || inj)
        return errf(status, 400, "invalid_arg",
                    "witness %zu: expected {\"path\": string}, {\"data\": base64} or {\"inputs\": object}", i);
    g16_witness_header wh = {G16_CURVE_BN254, 0};
    g16_err err;
    if (p) {
        char rp[PATH_MAX];
        g16d_api_err e = {0};
        if (g16d_path_check(d, p, rp, &e))
            return errf(status, e.http, e.code, "witness %zu: %s", i, e.msg);
        if (!(*path = strdup(rp)))
            return errf(status, 503, "nomem", "out of memory");
        sw->path = *path;
        err = g16_witness_peek(d->ctx, &wh, rp);
    } else {
        char *r = inline_data(d, dj, i, data, sw, status);
        if (r)
            return r;
        err = g16_witness_peek_bytes(d->ctx, &wh, *data, sw->len);
    }
    if (err) {
        /* A file that passed the path check but cannot be read is
         * 403 forbidden_path; a bad .wtns is 422 with the g16 code. */
        if (err == G16_ERR_IO)
            return errf(status, 403, "forbidden_path", "witness %zu: %s", i, g16d_last_engine_error());
        else if (err == G16_ERR_NOMEM)
            return errf(status, 503, "nomem", "witness %zu: %s", i, g16d_last_engine_error());
        else
            return errf(status, 422, g16d_err_code(err), "witness %zu: %s", i, g16d_last_engine_error());
    }
    if (wh.curve != key->curve)
        return errf(status, 422, "wrong_curve", "witness %zu is a %s witness; key '%s' is %s", i,
                    curve_name(wh.curve), key->id, curve_name(key->curve));
    if (wh.n_values != key->n_vars)
        return errf(status, 422, "size_mismatch", "witness %zu has %u values; key '%s' has %u wires", i,
                    wh.n_values, key->id, key->n_vars);
    return NULL;
}

static char *jobs_post(g16d *d, json_t *body, int *status) {
    pthread_mutex_lock(&d->mtx);
    int draining = d->draining;
    pthread_mutex_unlock(&d->mtx);
    if (draining)
        return errf(status, 503, "unavailable", "g16d is shutting down; not accepting jobs");
    const char *key_id = json_string_value(json_object_get(body, "key"));
    if (!key_id)
        return errf(status, 400, "invalid_arg", "POST /v1/jobs needs a string field \"key\"");
    int prio = G16_PRIORITY_NORMAL;
    json_t *pj = json_object_get(body, "priority");
    if (pj) {
        if (!json_is_string(pj) || (prio = parse_priority(json_string_value(pj))) < 0)
            return errf(status, 400, "invalid_arg", "priority: expected low, normal, high or critical");
    }
    const char *idem = NULL;
    json_t *ij = json_object_get(body, "idempotency_key");
    if (ij && !json_is_null(ij)) {
        idem = json_string_value(ij);
        if (!idem || !*idem || strlen(idem) >= 128)
            return errf(status, 400, "invalid_arg", "idempotency_key: a string of 1-127 bytes");
    }
    double timeout_s = 0;
    json_t *tj = json_object_get(body, "timeout_s");
    if (tj && !json_is_null(tj)) {
        if (!json_is_number(tj) || json_number_value(tj) < 0 || !isfinite(json_number_value(tj)))
            return errf(status, 400, "invalid_arg", "timeout_s: a number >= 0 (0: none)");
        timeout_s = json_number_value(tj);
    }
    json_t *wj = json_object_get(body, "witnesses");
    if (!json_is_array(wj))
        return errf(status, 400, "invalid_arg", "POST /v1/jobs needs an array \"witnesses\"");
    size_t n = json_array_size(wj);
    if (n == 0)
        return errf(status, 400, "invalid_arg", "witnesses: at least one");
    if (n > d->cfg->max_witnesses)
        return errf(status, 413, "too_large", "witnesses: %zu exceeds max_witnesses = %u", n, d->cfg->max_witnesses);
    g16d_key key;
    if (!g16d_key_find(d, key_id, &key))
        return errf(status, 404, "unknown_key", "no key '%s' is registered (POST /v1/keys)", key_id);
    char kmsg[512];
    if (g16d_key_check(d, key_id, kmsg, sizeof kmsg))
        return errf(status, 409, "key_unusable", "%s", kmsg);
    (void)g16d_key_find(d, key_id, &key);

    store_witness *sw = calloc(n, sizeof *sw);
    char **paths = calloc(n, sizeof *paths);
    uint8_t **datas = calloc(n, sizeof *datas);
    char *reply = NULL;
    if (!sw || !paths || !datas) {
        reply = errf(status, 503, "nomem", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        reply = witness_load(d, json_array_get(wj, i), i, &key, &sw[i], &paths[i], &datas[i], status);
        if (reply)
            goto out;
    }
    store_job_new jn = {idem, key.id, prio, (uint32_t)n, sw, timeout_s};
    int64_t id = 0;
    int existed = 0;
    g16_status st = {0};
    g16_err err = store_job_create(d->st, &jn, &id, &existed, &st);
    if (err == G16_ERR_INVALID_ARG) {
        reply = errf(status, 409, "conflict", "%s", st.msg);
        goto out;
    }
    if (err) {
        reply = store_fail(d, "job_create", &st, status);
        goto out;
    }
    g16d_store_success(d);
    store_job_info ji;
    memset(&ji, 0, sizeof ji);
    if (store_job_get(d->st, id, 0, &ji, &st)) {
        ji.state = STORE_QUEUED;
        ji.n_partitions = (uint32_t)n;
    }
    if (!existed) {
        g16d_log(G16D_INFO, "job_accepted", json_pack("{s:I,s:s,s:s,s:i}", "job", (json_int_t)id, "key", key.id,
                                                       "priority", PRIO_NAMES[prio], "partitions", (int)n));
        g16d_dispatch_wake(d);
    }
    reply = dump(json_pack("{s:I,s:s,s:i,s:I,s:b}", "id", (json_int_t)id, "state", store_state_name(ji.state),
                           "partitions", (int)ji.n_partitions, "queue_position", (json_int_t)ji.queue_position,
                           "existing", existed),
                 existed ? 200 : 202, status);
    store_job_info_free(&ji);
out:
    for (size_t i = 0; i < n && paths; i++)
        free(paths[i]);
    for (size_t i = 0; i < n && datas; i++)
        wipe_free(datas[i], sw ? sw[i].len : 0);
    free(paths);
    free(datas);
    free(sw);
    return reply;
}

static int parse_job_id(const char *s, int64_t *id) {
    if (!*s || *s == '0' || strlen(s) > 18)
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
    }
    *id = v;
    return 0;
}

static char *jobs_get(g16d *d, int64_t id, g16d_query_fn query, void *conn, int *status) {
    const char *ws = query(conn, "wait"), *rs = query(conn, "results");
    double wait = 0;
    if (ws) {
        char *end;
        errno = 0;
        wait = strtod(ws, &end);
        if (errno || end == ws || *end || !(wait >= 0))
            return errf(status, 400, "invalid_arg", "wait: seconds >= 0 (at most 60)");
        wait = fmin(wait, 60);
    }
    int with_results = 1;
    if (rs) {
        if (!strcmp(rs, "0") || !strcmp(rs, "false"))
            with_results = 0;
        else if (strcmp(rs, "1") && strcmp(rs, "true"))
            return errf(status, 400, "invalid_arg", "results: 0 or 1");
    }
    double end = g16d_unix_now() + wait;
    for (;;) {
        pthread_mutex_lock(&d->mtx);
        uint64_t gen = d->change_gen;
        pthread_mutex_unlock(&d->mtx);
        store_job_info ji;
        g16_status st = {0};
        g16_err err = store_job_get(d->st, id, 0, &ji, &st);
        if (err == G16_ERR_INVALID_ARG)
            return errf(status, 404, "not_found", "no job %lld", (long long)id);
        if (err)
            return store_fail(d, "job_get", &st, status);
        int fin = finished(ji.state);
        store_job_info_free(&ji);
        double left = end - g16d_unix_now();
        if (fin || left <= 0)
            break;
        /* Wait for a partition to finish here (or 1 s, for work finished by
         * other daemons sharing the store, and timeouts). */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double w = fmin(left, 1.0);
        ts.tv_sec += (time_t)w;
        ts.tv_nsec += (long)((w - floor(w)) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&d->mtx);
        while (d->change_gen == gen && !d->stopping)
            if (pthread_cond_timedwait(&d->change, &d->mtx, &ts) == ETIMEDOUT)
                break;
        int stopping = d->stopping;
        pthread_mutex_unlock(&d->mtx);
        if (stopping)
            break;
    }
    store_job_info ji;
    g16_status st = {0};
    g16_err err = store_job_get(d->st, id, with_results, &ji, &st);
    if (err == G16_ERR_INVALID_ARG)
        return errf(status, 404, "not_found", "no job %lld", (long long)id);
    if (err)
        return store_fail(d, "job_get", &st, status);
    char *r = dump(job_json(&ji, with_results), 200, status);
    store_job_info_free(&ji);
    return r;
}

static char *jobs_delete(g16d *d, int64_t id, int *status) {
    store_state s = STORE_QUEUED;
    g16_status st = {0};
    g16_err err = store_job_cancel(d->st, id, &s, &st);
    if (err == G16_ERR_INVALID_ARG)
        return errf(status, 404, "not_found", "no job %lld", (long long)id);
    if (err)
        return store_fail(d, "job_cancel", &st, status);
    g16d_dispatch_cancel(d, id);
    g16d_notify_change(d);
    g16d_log(G16D_INFO, "job_cancel", json_pack("{s:I,s:s}", "job", (json_int_t)id, "state", store_state_name(s)));
    return dump(json_pack("{s:I,s:s}", "id", (json_int_t)id, "state", store_state_name(s)), 200, status);
}

/* ---- status, metrics, health --------------------------------------------- */

static char *status_get(g16d *d, int *status) {
    char *ej = NULL;
    json_t *o = NULL;
    if (!g16_engine_status_json(d->eng, &ej) && ej)
        o = json_loads(ej, 0, NULL);
    g16_free(ej);
    if (!o)
        o = json_object();
    json_t *ekeys = json_object_get(o, "keys");
    if (ekeys) {
        json_incref(ekeys);
        json_object_del(o, "keys");
    }
    json_t *top = json_pack("{s:s,s:s,s:s,s:s,s:I}", "version", g16_version(), "backend",
                            json_string_value(json_object_get(o, "backend")) ? json_string_value(json_object_get(o, "backend")) : "cpu",
                            "store", store_backend(d->st), "owner", d->cfg->owner, "uptime_s",
                            (json_int_t)(g16d_unix_now() - d->start_time));
    pthread_mutex_lock(&d->mtx);
    json_object_set_new(top, "draining", json_boolean(d->draining));
    int busy = 0;
    for (int i = 0; i < d->n_slots; i++)
        busy += d->slots[i].used;
    json_object_set_new(top, "inflight", json_integer(busy));
    pthread_mutex_unlock(&d->mtx);
    int sc = 0;
    char *kb = keys_get(d, &sc);
    json_t *kj = kb ? json_loads(kb, 0, NULL) : NULL;
    free(kb);
    json_object_set(top, "keys", kj ? json_object_get(kj, "keys") : json_array());
    json_decref(kj);
    if (ekeys)
        json_object_set_new(top, "engine_keys", ekeys);
    /* The library options in effect, with their sources (docs/config.md). */
    char *oj = NULL;
    json_t *opts = !g16_ctx_options_json(d->ctx, &oj, 0) && oj ? json_loads(oj, 0, NULL) : NULL;
    g16_free(oj);
    json_object_set_new(top, "options", opts ? opts : json_object());
    store_counts c;
    g16_status st = {0};
    if (!store_get_counts(d->st, &c, &st)) {
        json_t *q = json_object();
        for (int p = 3; p >= 0; p--)
            json_object_set_new(q, PRIO_NAMES[p], json_integer((json_int_t)c.partitions[STORE_QUEUED][p]));
        json_object_set_new(top, "queues", q);
    } else {
        json_object_set_new(top, "queues", json_null());
    }
    json_object_update_missing(top, o);
    json_decref(o);
    return dump(top, 200, status);
}

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            return;
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap + (size_t)k + 1) * 2;
        char *np = realloc(b->p, nc);
        if (!np)
            return;
        b->p = np;
        b->cap = nc;
    }
}

static char *metrics_get(g16d *d, int *status) {
    sbuf b = {0};
    char *em = NULL;
    if (!g16_engine_metrics(d->eng, &em) && em)
        sb_printf(&b, "%s", em);
    g16_free(em);
    pthread_mutex_lock(&d->mtx);
    g16d_counters c = d->cnt;
    int busy = 0;
    for (int i = 0; i < d->n_slots; i++)
        busy += d->slots[i].used;
    int draining = d->draining;
    pthread_mutex_unlock(&d->mtx);
    sb_printf(&b, "# HELP g16d_up 1 while g16d serves.\n# TYPE g16d_up gauge\ng16d_up 1\n");
    char *extra = g16d_metrics_extra(d);
    if (extra)
        sb_printf(&b, "%s", extra);
    free(extra);
    sb_printf(&b, "# HELP g16d_draining 1 while g16d shuts down.\n# TYPE g16d_draining gauge\ng16d_draining %d\n",
              draining);
    sb_printf(&b, "# HELP g16d_http_requests_total HTTP requests answered, by status code.\n"
                  "# TYPE g16d_http_requests_total counter\n");
    for (int i = 100; i < 600; i++)
        if (c.http[i])
            sb_printf(&b, "g16d_http_requests_total{code=\"%d\"} %llu\n", i, (unsigned long long)c.http[i]);
    sb_printf(&b, "# HELP g16d_store_errors_total Failed job-store calls.\n# TYPE g16d_store_errors_total counter\n"
                  "g16d_store_errors_total %llu\n",
              (unsigned long long)c.store_errors);
    sb_printf(&b,
              "# HELP g16d_partitions_recorded_total Partition outcomes this process wrote to the store.\n"
              "# TYPE g16d_partitions_recorded_total counter\n"
              "g16d_partitions_recorded_total{outcome=\"done\"} %llu\n"
              "g16d_partitions_recorded_total{outcome=\"failed\"} %llu\n"
              "g16d_partitions_recorded_total{outcome=\"released\"} %llu\n"
              "g16d_partitions_recorded_total{outcome=\"unrecorded\"} %llu\n",
              (unsigned long long)c.parts_done, (unsigned long long)c.parts_failed,
              (unsigned long long)c.parts_released, (unsigned long long)c.record_errors);
    sb_printf(&b, "# HELP g16d_inflight_partitions Partitions claimed by this daemon and in the engine.\n"
                  "# TYPE g16d_inflight_partitions gauge\ng16d_inflight_partitions %d\n",
              busy);
    store_counts sc;
    g16_status st = {0};
    if (!store_get_counts(d->st, &sc, &st)) {
        sb_printf(&b, "# HELP g16d_jobs Jobs in the store, by state.\n# TYPE g16d_jobs gauge\n");
        for (int s = 0; s < 5; s++) {
            uint64_t t = 0;
            for (int p = 0; p < 4; p++)
                t += sc.jobs[s][p];
            sb_printf(&b, "g16d_jobs{state=\"%s\"} %llu\n", store_state_name((store_state)s),
                      (unsigned long long)t);
        }
        sb_printf(&b, "# HELP g16d_partitions Partitions in the store, by state and priority.\n"
                      "# TYPE g16d_partitions gauge\n");
        for (int s = 0; s < 5; s++)
            for (int p = 0; p < 4; p++)
                sb_printf(&b, "g16d_partitions{state=\"%s\",priority=\"%s\"} %llu\n",
                          store_state_name((store_state)s), PRIO_NAMES[p], (unsigned long long)sc.partitions[s][p]);
    } else {
        g16d_store_error(d, "get_counts", &st);
    }
    *status = 200;
    if (!b.p)
        return strdup("");
    return b.p;
}

/* 503 while draining, while the last store write failed (until a write,
 * e.g. the heartbeat's probe, succeeds; without touching the store, which
 * may be stuck), or when the store cannot be read; else 200. */
static char *healthz(g16d *d, int *status) {
    store_counts c;
    g16_status st = {0};
    pthread_mutex_lock(&d->mtx);
    int draining = d->draining, store_ok = d->store_ok;
    char why[300];
    snprintf(why, sizeof why, "%s", d->store_err_msg[0] ? d->store_err_msg : "job store: a write failed");
    pthread_mutex_unlock(&d->mtx);
    if (draining)
        return dump(json_pack("{s:b,s:b}", "ok", 0, "draining", 1), 503, status);
    if (!store_ok)
        return dump(json_pack("{s:b,s:s,s:s}", "ok", 0, "store", store_backend(d->st), "error", why), 503, status);
    if (store_get_counts(d->st, &c, &st)) {
        g16d_store_error(d, "get_counts", &st);
        return dump(json_pack("{s:b,s:s,s:s}", "ok", 0, "store", store_backend(d->st), "error", st.msg), 503,
                    status);
    }
    return dump(json_pack("{s:b,s:s}", "ok", 1, "store", store_backend(d->st)), 200, status);
}

/* ---- routing ---------------------------------------------------------------- */

static char *method_not_allowed(const char *method, const char *url, int *status) {
    return errf(status, 405, "method_not_allowed", "%s is not allowed on %s", method, url);
}

char *g16d_api_handle(g16d *d, const char *method, const char *url, g16d_query_fn query, void *conn,
                      const char *body, size_t body_len, int *status, const char **ctype) {
    *ctype = "application/json";
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST"),
        del = !strcmp(method, "DELETE");
    if (!strcmp(url, "/healthz"))
        return get ? healthz(d, status) : method_not_allowed(method, url, status);
    if (!strcmp(url, "/metrics")) {
        if (!get)
            return method_not_allowed(method, url, status);
        *ctype = "text/plain; version=0.0.4";
        return metrics_get(d, status);
    }
    if (!strcmp(url, "/v1/status"))
        return get ? status_get(d, status) : method_not_allowed(method, url, status);
    if (!strcmp(url, "/v1/timeline"))
        return get ? g16d_api_timeline(d, query, conn, status) : method_not_allowed(method, url, status);
    json_t *jb = NULL;
    if (post) {
        json_error_t je;
        jb = body ? json_loadb(body, body_len, JSON_REJECT_DUPLICATES, &je) : NULL;
        if (!jb)
            return errf(status, 400, "invalid_json", "request body: %s (line %d, column %d)",
                        body ? je.text : "empty body", body ? je.line : 0, body ? je.column : 0);
        if (!json_is_object(jb)) {
            json_decref(jb);
            return errf(status, 400, "invalid_json", "request body: expected a JSON object");
        }
    }
    char *r = NULL;
    if (!strcmp(url, "/v1/keys")) {
        r = post ? keys_post(d, jb, status) : get ? keys_get(d, status) : method_not_allowed(method, url, status);
    } else if (!strncmp(url, "/v1/keys/", 9) && url[9] && !strchr(url + 9, '/')) {
        r = del ? keys_delete(d, url + 9, status) : method_not_allowed(method, url, status);
    } else if (!strcmp(url, "/v1/jobs")) {
        r = post ? jobs_post(d, jb, status)
            : get ? g16d_api_jobs_list(d, query, conn, status)
                  : method_not_allowed(method, url, status);
    } else if (!strncmp(url, "/v1/jobs/", 9)) {
        int64_t id;
        if (parse_job_id(url + 9, &id))
            r = errf(status, 404, "not_found", "no job '%s'", url + 9);
        else if (get)
            r = jobs_get(d, id, query, conn, status);
        else if (del)
            r = jobs_delete(d, id, status);
        else
            r = method_not_allowed(method, url, status);
    } else {
        r = errf(status, 404, "not_found", "no route %s %s", method, url);
    }
    json_decref(jb);
    return r;
}
