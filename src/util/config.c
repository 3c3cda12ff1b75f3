/* The options table (config.h) and its values. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BOOLROW(ID, KEY, ENV, CLS, DEF, DOC) \
    {.id = ID, .key = KEY, .env = ENV, .type = G16_OPT_BOOL, .cls = CLS, .min = 0, .max = 1, .def = DEF, .doc = DOC}
#define INTROW(ID, KEY, ENV, CLS, MIN, MAX, MINNZ, DEF, DOC)                                                  \
    {.id = ID, .key = KEY, .env = ENV, .type = G16_OPT_INT, .cls = CLS, .min = MIN, .max = MAX, .min_nonzero = MINNZ, \
     .def = DEF, .doc = DOC}

/* Bounds mirror the GPU layer's constants (msm_plan.h: G16GPU_MAX_C,
 * G16GPU_MIN_SEG, G16GPU_MAX_SEG, G16GPU_SEG_DEFAULT; ntt.cuh:
 * G16_NTT_TILE_LOG, NTT_THREADS); tests/test_config.c checks them. */
static const g16_opt_row rows[G16_OPT_COUNT] = {
    BOOLROW(G16_OPT_ENGINE_GPU_SHARED, "engine.gpu_shared", "G16_ENGINE_GPU_SHARED", G16_OPT_OPERATIONAL, 1,
            "CUDA engine: a device's workers run their kernels concurrently (0: one at a time, a per-device mutex)"),
    BOOLROW(G16_OPT_ENGINE_PIN, "engine.pin", "G16_ENGINE_PIN", G16_OPT_OPERATIONAL, 0,
            "CUDA engine: pin each worker thread to the CPUs near its GPU"),
    {.id = G16_OPT_GPU_SYNC,
     .key = "gpu.sync",
     .env = "G16_GPU_SYNC",
     .type = G16_OPT_ENUM,
     .cls = G16_OPT_OPERATIONAL,
     .def = 0,
     .n_enum = 4,
     .names = {{"auto", 0}, {"spin", 1}, {"yield", 2}, {"block", 3}},
     .doc = "how host threads wait for a GPU (cudaSetDeviceFlags for the device; auto: CUDA's heuristic)"},
    BOOLROW(G16_OPT_GPU_SYNTH, "gpu.synth", "G16_GPU_SYNTH", G16_OPT_OPERATIONAL, 1,
            "R1CS synthesis (a, b, c) on the GPU when the key's rows are resident (0: on the CPU)"),
    INTROW(G16_OPT_GPU_MSM_C, "gpu.msm_window_bits", "G16_GPU_MSM_C", G16_OPT_TUNING, 0, 22, 4, 0,
           "GPU MSM window width c (0: the cost model picks it per MSM)"),
    INTROW(G16_OPT_GPU_MSM_SEG, "gpu.msm_segment", "G16_GPU_MSM_SEG", G16_OPT_TUNING, 32, 256, 0, 128,
           "GPU MSM bucket entries per accumulating thread"),
    {.id = G16_OPT_GPU_ACC_MINB,
     .key = "gpu.msm_acc_blocks",
     .env = "G16_GPU_ACC_MINB",
     .type = G16_OPT_ENUM,
     .cls = G16_OPT_TUNING,
     .def = 0,
     .n_enum = 3,
     .names = {{"auto", 0}, {"1", 1}, {"3", 3}},
     .doc = "GPU MSM accumulation blocks per SM for 12+ limb fields (auto: per field, docs/gpu.md)"},
    INTROW(G16_OPT_GPU_NTT_COLS, "gpu.ntt_cols_log", "G16_GPU_NTT_COLS", G16_OPT_TUNING, 0, 4, 0, 0,
           "GPU NTT: log2 of the tile columns of the passes before the last (0: built-in, 2)"),
    {.id = G16_OPT_GPU_NTT_THREADS,
     .key = "gpu.ntt_threads",
     .env = "G16_GPU_NTT_THREADS",
     .type = G16_OPT_ENUM,
     .cls = G16_OPT_TUNING,
     .def = 0,
     .n_enum = 5,
     .names = {{"auto", 0}, {"32", 32}, {"64", 64}, {"128", 128}, {"256", 256}},
     .doc = "GPU NTT threads per pass block (auto: by tile size)"},
    BOOLROW(G16_OPT_GPU_PARAMS_PINNED, "gpu.params_pinned", "G16_GPU_PARAMS_PINNED", G16_OPT_TUNING, 1,
            ".params partitions on a GPU: copy the rows and aux values in through two pinned buffers that the "
            "context's threads fill (0: cudaMemcpyAsync from the caller's pageable memory: a 2^27 load in "
            "2254 ms, against 332 ms pinned; BENCHMARKS.md)"),
    {.id = G16_OPT_MSM_BATCH_AFFINE,
     .key = "msm.batch_affine",
     .env = "G16_MSM_BATCH_AFFINE",
     .type = G16_OPT_ENUM,
     .cls = G16_OPT_TUNING,
     .def = 0,
     .n_enum = 3,
     .names = {{"auto", 0}, {"on", 1}, {"off", 2}},
     .doc = "CPU MSM buckets: batch-affine (auto: for windows c >= 10, docs/ntt-msm.md; on: at any window; off: XYZZ only)"},
    {.id = G16_OPT_CLIENT_URL,
     .key = "client.url",
     .env = "G16D_URL",
     .type = G16_OPT_STRING,
     .cls = G16_OPT_OPERATIONAL,
     .str_slot = 0,
     .doc = "g16 client: g16d's base URL (--url overrides; empty: http://127.0.0.1:8416)"},
    {.id = G16_OPT_CLIENT_TOKEN,
     .key = "client.token",
     .env = "G16D_TOKEN",
     .type = G16_OPT_STRING,
     .cls = G16_OPT_OPERATIONAL,
     .secret = 1,
     .str_slot = 1,
     .doc = "g16 client: bearer token for g16d (--token overrides; empty: none)"},
    INTROW(G16_OPT_WITGEN_TIMEOUT_S, "witgen.timeout_s", "G16_WITGEN_TIMEOUT_S", G16_OPT_OPERATIONAL, 1, 86400, 0,
           300, "witness generator (prove --input, g16d inputs): seconds it may run before it is killed"),
    INTROW(G16_OPT_WITGEN_MEMORY_MB, "witgen.memory_mb", "G16_WITGEN_MEMORY_MB", G16_OPT_OPERATIONAL, 0, 1048576, 16,
           8192, "witness generator: memory limit in MiB (a native one's address space, node's data; 0: none)"),
    {.id = G16_OPT_WITGEN_NODE,
     .key = "witgen.node",
     .env = "G16_WITGEN_NODE",
     .type = G16_OPT_STRING,
     .cls = G16_OPT_OPERATIONAL,
     .str_slot = 2,
     .doc = "witness generator: the node that runs a circom .wasm's generate_witness.js (empty: node on PATH)"},
    {.id = G16_OPT_WITGEN_SCRATCH,
     .key = "witgen.scratch_dir",
     .env = "G16_WITGEN_SCRATCH_DIR",
     .type = G16_OPT_STRING,
     .cls = G16_OPT_OPERATIONAL,
     .str_slot = 3,
     .doc = "witness generator: where its private scratch directories are made (empty: /tmp)"},
    {.id = G16_OPT_KEY_CHECK_CACHE,
     .key = "key.check_cache_dir",
     .env = "G16_KEY_CHECK_CACHE_DIR",
     .type = G16_OPT_STRING,
     .cls = G16_OPT_OPERATIONAL,
     .str_slot = 4,
     .doc = "where .zkey files that passed their point checks are recorded, so that loading the same unchanged "
            "file again skips them (empty: ~/.cache/g16/keys of the effective user; off: none; docs/formats.md)"},
    INTROW(G16_OPT_BENCH_GPU_DEVICE, "bench.gpu_device", "G16_GPU_DEVICE", G16_OPT_DEBUG, 0, 255, 0, 0,
           "g16 bench prove --backend cuda: the GPU to use"),
    {.id = G16_OPT_BENCH_GPU_MAX_POINTS,
     .key = "bench.gpu_max_points",
     .env = "G16_GPU_MSM_MAX_POINTS",
     .type = G16_OPT_UINT64,
     .cls = G16_OPT_DEBUG,
     .min = 0,
     .max = (int64_t)((uint64_t)1 << 32),
     .def = 0,
     .doc = "g16 bench prove --backend cuda: cap of the MSM context's points, chunking larger MSMs (0: no cap)"},
    BOOLROW(G16_OPT_BENCH_LOWMEM, "bench.lowmem", "G16_BENCH_LOWMEM", G16_OPT_DEBUG, 0,
            "g16 bench engine/synthetic: the low-memory (deferred) working set below 2^27 too"),
    BOOLROW(G16_OPT_BENCH_STREAM_BASES, "bench.stream_bases", "G16_BENCH_STREAM_BASES", G16_OPT_DEBUG, 0,
            "g16 bench prove/synthetic --backend cuda: stream the bases from host memory instead of uploading"),
    BOOLROW(G16_OPT_BENCH_KEEP_BASES, "bench.keep_bases", "G16_BENCH_KEEP_BASES", G16_OPT_DEBUG, 0,
            "g16 bench synthetic: keep the key's host bases after the upload"),
    BOOLROW(G16_OPT_BENCH_NO_PAGEABLE, "bench.no_pageable", "G16_BENCH_NO_PAGEABLE", G16_OPT_DEBUG, 0,
            "g16 bench prove --backend cuda: skip the proof from pageable host memory"),
    INTROW(G16_OPT_BENCH_MSM_WINDOW, "bench.msm_window", "G16_MSM_WINDOW", G16_OPT_DEBUG, 0, 20, 0, 0,
           "g16 bench msm: CPU MSM window (0: the library's choice; else msm_*_tuned with bench.msm_flags)"),
    INTROW(G16_OPT_BENCH_MSM_FLAGS, "bench.msm_flags", "G16_MSM_FLAGS", G16_OPT_DEBUG, 0, 7, 0, 1,
           "g16 bench msm: MSM_* flags with bench.msm_window (1 split, 2 no affine, 4 force affine)"),
};

const g16_opt_row *g16_opt_rows(void) { return rows; }

const g16_opt_row *g16_opt_row_by_id(g16_opt_id id) {
    return (int)id >= 0 && id < G16_OPT_COUNT ? &rows[id] : NULL;
}

const g16_opt_row *g16_opt_find(const char *key) {
    for (int i = 0; key && i < G16_OPT_COUNT; i++)
        if (!strcmp(rows[i].key, key))
            return &rows[i];
    return NULL;
}

const g16_opt_row *g16_opt_find_env(const char *env) {
    for (int i = 0; env && i < G16_OPT_COUNT; i++)
        if (!strcmp(rows[i].env, env))
            return &rows[i];
    return NULL;
}

const char *g16_opt_type_name(g16_opt_type t) {
    static const char *n[] = {"bool", "int", "uint64", "enum", "string"};
    return (unsigned)t < 5 ? n[t] : "?";
}

const char *g16_opt_class_name(g16_opt_class c) {
    static const char *n[] = {"operational", "tuning", "debug"};
    return (unsigned)c < 3 ? n[c] : "?";
}

const char *g16_opt_source_name(g16_opt_source s) {
    static const char *n[] = {"default", "env", "config", "flag"};
    return (unsigned)s < 4 ? n[s] : "?";
}

void g16_config_init(g16_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    for (int i = 0; i < G16_OPT_COUNT; i++)
        cfg->num[i] = rows[i].def;
}

static void enum_list(const g16_opt_row *r, char *buf, size_t len) {
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < r->n_enum && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", r->names[i].name);
}

/* A decimal integer, the whole text (no blanks, no '+'). */
static int parse_i64(const char *t, int64_t *out) {
    if (!(*t == '-' || (*t >= '0' && *t <= '9')))
        return 0;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (errno || end == t || *end)
        return 0;
    *out = v;
    return 1;
}

/* A decimal (or 0x hexadecimal) unsigned integer, the whole text. */
static int parse_u64(const char *t, uint64_t *out) {
    if (!(*t >= '0' && *t <= '9'))
        return 0;
    int hex = t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
    if (hex && !((t[2] >= '0' && t[2] <= '9') || (t[2] >= 'a' && t[2] <= 'f') || (t[2] >= 'A' && t[2] <= 'F')))
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(t, &end, hex ? 16 : 10);
    if (errno || end == t || *end)
        return 0;
    *out = v;
    return 1;
}

g16_err g16_config_set_row(g16_config *cfg, const g16_opt_row *r, const char *t, g16_opt_source src,
                           g16_status *st) {
    if (!cfg || !r)
        return g16_fail(st, G16_ERR_INVALID_ARG, "config: NULL argument");
    if (!t)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: no value", r->key);
    if (r->type == G16_OPT_STRING) {
        size_t n = strlen(t);
        if (n >= G16_OPT_STR_MAX)
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: value of %zu bytes is longer than %d", r->key, n,
                            G16_OPT_STR_MAX - 1);
        memcpy(cfg->str[r->str_slot], t, n + 1);
        cfg->src[r->id] = (uint8_t)src;
        return G16_OK;
    }
    if (!*t)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: empty value", r->key);
    int64_t v = 0;
    switch (r->type) {
    case G16_OPT_BOOL: {
        static const char *on[] = {"1", "true", "on", "yes"}, *off[] = {"0", "false", "off", "no"};
        int found = -1;
        for (int i = 0; i < 4 && found < 0; i++)
            if (!strcasecmp(t, on[i]))
                found = 1;
            else if (!strcasecmp(t, off[i]))
                found = 0;
        if (found < 0)
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: '%.64s' is not a boolean (0/1, false/true, off/on, no/yes)",
                            r->key, t);
        v = found;
        break;
    }
    case G16_OPT_INT:
        if (!parse_i64(t, &v))
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: '%.64s' is not an integer", r->key, t);
        if (v < r->min || v > r->max || (v != 0 && v < r->min_nonzero)) {
            if (r->min_nonzero > 0)
                return g16_fail(st, G16_ERR_INVALID_ARG, "%s: %" PRId64 " is out of range: 0 or [%" PRId64
                                ", %" PRId64 "]", r->key, v, r->min_nonzero, r->max);
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]",
                            r->key, v, r->min, r->max);
        }
        break;
    case G16_OPT_UINT64: {
        uint64_t u = 0;
        if (!parse_u64(t, &u))
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: '%.64s' is not an unsigned integer", r->key, t);
        if (u < (uint64_t)r->min || u > (uint64_t)r->max)
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: %" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64 "]",
                            r->key, u, (uint64_t)r->min, (uint64_t)r->max);
        v = (int64_t)u;
        break;
    }
    case G16_OPT_ENUM: {
        int found = 0;
        for (int i = 0; i < r->n_enum && !found; i++)
            if (!strcasecmp(t, r->names[i].name))
                v = r->names[i].value, found = 1;
        int64_t d;
        for (int i = 0; i < r->n_enum && !found; i++)
            if (parse_i64(t, &d) && d == r->names[i].value)
                v = d, found = 1;
        if (!found) {
            char list[256];
            enum_list(r, list, sizeof list);
            return g16_fail(st, G16_ERR_INVALID_ARG, "%s: '%.64s' is not one of %s", r->key, t, list);
        }
        break;
    }
    default:
        return g16_fail(st, G16_ERR_INTERNAL, "%s: unknown type", r->key);
    }
    cfg->num[r->id] = v;
    cfg->src[r->id] = (uint8_t)src;
    return G16_OK;
}

g16_err g16_config_set(g16_config *cfg, const char *key, const char *text, g16_opt_source src, g16_status *st) {
    const g16_opt_row *r = g16_opt_find(key);
    if (!r)
        return g16_fail(st, G16_ERR_INVALID_ARG, "unknown option '%.80s' (docs/config.md lists them)",
                        key ? key : "(null)");
    return g16_config_set_row(cfg, r, text, src, st);
}

g16_err g16_config_from_env(g16_config *cfg, g16_status *st) {
    for (int i = 0; i < G16_OPT_COUNT; i++) {
        const char *v = getenv(rows[i].env);
        if (!v || !*v)
            continue;
        g16_status s2 = {0};
        if (g16_config_set_row(cfg, &rows[i], v, G16_SRC_ENV, &s2) != G16_OK)
            return g16_fail(st, s2.code, "%s=%.64s: %s", rows[i].env, v, s2.msg);
    }
    return G16_OK;
}

int64_t g16_config_int(const g16_config *cfg, g16_opt_id id) {
    const g16_opt_row *r = g16_opt_row_by_id(id);
    if (!r || r->type == G16_OPT_STRING)
        return 0;
    return cfg ? cfg->num[id] : r->def;
}

uint64_t g16_config_u64(const g16_config *cfg, g16_opt_id id) { return (uint64_t)g16_config_int(cfg, id); }

int g16_config_bool(const g16_config *cfg, g16_opt_id id) { return g16_config_int(cfg, id) != 0; }

const char *g16_config_str(const g16_config *cfg, g16_opt_id id) {
    const g16_opt_row *r = g16_opt_row_by_id(id);
    if (!cfg || !r || r->type != G16_OPT_STRING)
        return "";
    return cfg->str[r->str_slot];
}

g16_opt_source g16_config_source(const g16_config *cfg, g16_opt_id id) {
    return cfg && (int)id >= 0 && id < G16_OPT_COUNT ? (g16_opt_source)cfg->src[id] : G16_SRC_DEFAULT;
}

static const char *enum_name(const g16_opt_row *r, int64_t v) {
    for (int i = 0; i < r->n_enum; i++)
        if (r->names[i].value == v)
            return r->names[i].name;
    return "?";
}

void g16_config_format(const g16_config *cfg, const g16_opt_row *r, char *buf, size_t len) {
    if (!buf || !len)
        return;
    int64_t v = cfg ? cfg->num[r->id] : r->def;
    switch (r->type) {
    case G16_OPT_BOOL: snprintf(buf, len, "%s", v ? "true" : "false"); break;
    case G16_OPT_INT: snprintf(buf, len, "%" PRId64, v); break;
    case G16_OPT_UINT64: snprintf(buf, len, "%" PRIu64, (uint64_t)v); break;
    case G16_OPT_ENUM: snprintf(buf, len, "%s", enum_name(r, v)); break;
    default: snprintf(buf, len, "%s", cfg ? cfg->str[r->str_slot] : ""); break;
    }
}

static json_t *typed(const g16_opt_row *r, int64_t v, const char *s) {
    switch (r->type) {
    case G16_OPT_BOOL: return json_boolean(v);
    case G16_OPT_INT: return json_integer((json_int_t)v);
    case G16_OPT_UINT64: return json_integer((json_int_t)v); /* bounds keep it below 2^63 */
    case G16_OPT_ENUM: return json_string(enum_name(r, v));
    default: return json_string(r->secret && s[0] ? "(set)" : s);
    }
}

void *g16_config_json(const g16_config *cfg, int full, int only_cls) {
    json_t *o = json_object();
    for (int i = 0; o && i < G16_OPT_COUNT; i++) {
        const g16_opt_row *r = &rows[i];
        if (only_cls >= 0 && (int)r->cls != only_cls)
            continue;
        int64_t v = cfg ? cfg->num[i] : r->def;
        const char *s = cfg && r->type == G16_OPT_STRING ? cfg->str[r->str_slot] : "";
        json_t *e = json_object();
        if (!e || json_object_set_new(e, "value", typed(r, v, s)) ||
            json_object_set_new(e, "source", json_string(g16_opt_source_name(cfg ? cfg->src[i] : 0)))) {
            json_decref(e);
            json_decref(o);
            return NULL;
        }
        if (full) {
            int bad = json_object_set_new(e, "env", json_string(r->env)) ||
                      json_object_set_new(e, "type", json_string(g16_opt_type_name(r->type))) ||
                      json_object_set_new(e, "class", json_string(g16_opt_class_name(r->cls))) ||
                      json_object_set_new(e, "default", typed(r, r->def, "")) ||
                      json_object_set_new(e, "doc", json_string(r->doc));
            if (!bad && (r->type == G16_OPT_INT || r->type == G16_OPT_UINT64))
                bad = json_object_set_new(e, "min", json_integer((json_int_t)r->min)) ||
                      json_object_set_new(e, "max", json_integer((json_int_t)r->max));
            if (!bad && r->type == G16_OPT_ENUM) {
                json_t *a = json_array();
                for (int k = 0; a && k < r->n_enum; k++)
                    json_array_append_new(a, json_string(r->names[k].name));
                bad = json_object_set_new(e, "values", a);
            }
            if (bad) {
                json_decref(e);
                json_decref(o);
                return NULL;
            }
        }
        if (json_object_set_new(o, r->key, e)) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

char *g16_config_json_text(const g16_config *cfg, int full, int only_cls) {
    json_t *o = g16_config_json(cfg, full, only_cls);
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}
