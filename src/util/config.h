/* The options table: every run-time setting of the library, the CLI, g16d
 * and the benches, one row each (docs/config.md lists them all; a test
 * checks that page against the table).
 *
 * A row names the option twice: a config key ("gpu.msm_window_bits", used by
 * g16_ctx_set_option, g16d's config file and the JSON dumps) and an
 * environment variable ("G16_GPU_MSM_C"). A g16_config holds one value per
 * row and where it came from (default, environment, config file, command
 * line). Values are set by name from a string and checked against the row's
 * type and bounds; nothing out of range is ever stored.
 *
 * Who reads what: each g16_ctx owns a g16_config, seeded from the defaults and
 * the environment at creation (g16_config_from_env is the only place in the
 * library that reads the environment). A GPU context copies its knobs from
 * the config it is created with (g16_gpu_create), the engine's CUDA backend
 * the operational ones (engine.*, gpu.sync, gpu.synth).
 *
 * Classes: OPERATIONAL options are meant for production (g16d config keys,
 * shown in /v1/status); TUNING ones change speed only (kernel shapes, for
 * measurements); DEBUG ones serve benches and tests. None changes a result. */
#ifndef G16_UTIL_CONFIG_H
#define G16_UTIL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One id per row, in table order. */
typedef enum g16_opt_id {
    G16_OPT_ENGINE_GPU_SHARED = 0,
    G16_OPT_ENGINE_PIN,
    G16_OPT_GPU_SYNC,
    G16_OPT_GPU_SYNTH,
    G16_OPT_GPU_MSM_C,
    G16_OPT_GPU_MSM_SEG,
    G16_OPT_GPU_ACC_MINB,
    G16_OPT_GPU_NTT_COLS,
    G16_OPT_GPU_NTT_THREADS,
    G16_OPT_GPU_PARAMS_PINNED,
    G16_OPT_MSM_BATCH_AFFINE,
    G16_OPT_CLIENT_URL,
    G16_OPT_CLIENT_TOKEN,
    G16_OPT_WITGEN_TIMEOUT_S,
    G16_OPT_WITGEN_MEMORY_MB,
    G16_OPT_WITGEN_NODE,
    G16_OPT_WITGEN_SCRATCH,
    G16_OPT_KEY_CHECK_CACHE,
    G16_OPT_BENCH_GPU_DEVICE,
    G16_OPT_BENCH_GPU_MAX_POINTS,
    G16_OPT_BENCH_LOWMEM,
    G16_OPT_BENCH_STREAM_BASES,
    G16_OPT_BENCH_KEEP_BASES,
    G16_OPT_BENCH_NO_PAGEABLE,
    G16_OPT_BENCH_MSM_WINDOW,
    G16_OPT_BENCH_MSM_FLAGS,
    G16_OPT_COUNT
} g16_opt_id;

typedef enum g16_opt_type {
    G16_OPT_BOOL,   /* 0/1, false/true, off/on, no/yes */
    G16_OPT_INT,    /* decimal int64 in [min, max] */
    G16_OPT_UINT64, /* decimal (or 0x hex) uint64 in [min, max] */
    G16_OPT_ENUM,   /* one of the row's names (or the decimal value of one) */
    G16_OPT_STRING  /* free text up to G16_OPT_STR_MAX - 1 bytes */
} g16_opt_type;

typedef enum g16_opt_class { G16_OPT_OPERATIONAL = 0, G16_OPT_TUNING, G16_OPT_DEBUG } g16_opt_class;

/* Where a value came from (a later source overrides an earlier one). */
typedef enum g16_opt_source { G16_SRC_DEFAULT = 0, G16_SRC_ENV, G16_SRC_CONFIG, G16_SRC_FLAG } g16_opt_source;

#define G16_OPT_STR_MAX 512 /* bytes of a string value, NUL included */
#define G16_OPT_ENUM_MAX 6  /* names of an enum row */
#define G16_OPT_NSTR 5      /* STRING rows */

typedef struct g16_opt_enum {
    const char *name;
    int64_t value;
} g16_opt_enum;

/* One row of the table (static, immutable). */
typedef struct g16_opt_row {
    g16_opt_id id;
    const char *key; /* "gpu.msm_window_bits" */
    const char *env; /* "G16_GPU_MSM_C" */
    g16_opt_type type;
    g16_opt_class cls;
    /* INT/UINT64 bounds (inclusive; UINT64 rows store them as uint64 bits).
     * min_nonzero > 0: a value in (0, min_nonzero) is refused too (0 means
     * "automatic", real values start at min_nonzero). */
    int64_t min, max, min_nonzero;
    int64_t def; /* BOOL/INT/UINT64/ENUM default; strings default to "" */
    int n_enum;
    g16_opt_enum names[G16_OPT_ENUM_MAX];
    int secret;   /* STRING: the JSON dump says "(set)" instead of the value */
    int str_slot; /* STRING: index into g16_config.str */
    const char *doc; /* one line */
} g16_opt_row;

/* Values of every row. Plain data: copy it by assignment. */
typedef struct g16_config {
    int64_t num[G16_OPT_COUNT]; /* BOOL/INT/ENUM value; UINT64 as its bits */
    uint8_t src[G16_OPT_COUNT]; /* g16_opt_source */
    char str[G16_OPT_NSTR][G16_OPT_STR_MAX]; /* the STRING rows' values, by str_slot */
} g16_config;

/* The table: G16_OPT_COUNT rows, row i has id i. */
const g16_opt_row *g16_opt_rows(void);
const g16_opt_row *g16_opt_row_by_id(g16_opt_id id);
/* NULL when no row has that config key (or that environment name). */
const g16_opt_row *g16_opt_find(const char *key);
const g16_opt_row *g16_opt_find_env(const char *env);
const char *g16_opt_type_name(g16_opt_type t);
const char *g16_opt_class_name(g16_opt_class c);
const char *g16_opt_source_name(g16_opt_source s);

/* Every row at its default, source G16_SRC_DEFAULT. */
void g16_config_init(g16_config *cfg);
/* Parses text for row `row` and stores it with source src. Errors
 * (G16_ERR_INVALID_ARG, cfg unchanged), the message naming the key:
 *   "gpu.msm_window_bits: 40 is out of range [0, 22]"
 *   "engine.pin: 'maybe' is not a boolean (0/1, false/true, off/on, no/yes)"
 *   "gpu.sync: 'fast' is not one of auto, spin, yield, block"
 *   "gpu.msm_segment: empty value" */
g16_err g16_config_set_row(g16_config *cfg, const g16_opt_row *row, const char *text, g16_opt_source src,
                           g16_status *st);
/* The same by config key; an unknown key is G16_ERR_INVALID_ARG. */
g16_err g16_config_set(g16_config *cfg, const char *key, const char *text, g16_opt_source src, g16_status *st);
/* Reads every row's environment variable that is set (an empty variable
 * counts as unset) and stores it with source G16_SRC_ENV. The first invalid
 * one stops the scan: G16_ERR_INVALID_ARG, the message naming the variable
 * and the key ("G16_GPU_MSM_C=40: gpu.msm_window_bits: 40 is out of range
 * [0, 22]"); rows before it keep what they read. The only getenv of the
 * library (besides the field layer's portable-code test switch). */
g16_err g16_config_from_env(g16_config *cfg, g16_status *st);

/* Typed reads by id (a wrong-type read returns 0 / ""). */
int64_t g16_config_int(const g16_config *cfg, g16_opt_id id);
uint64_t g16_config_u64(const g16_config *cfg, g16_opt_id id);
int g16_config_bool(const g16_config *cfg, g16_opt_id id);
const char *g16_config_str(const g16_config *cfg, g16_opt_id id); /* "" when unset */
g16_opt_source g16_config_source(const g16_config *cfg, g16_opt_id id);
/* The value as text (enum: its name; bool: "true"/"false"), into buf. */
void g16_config_format(const g16_config *cfg, const g16_opt_row *row, char *buf, size_t len);

/* JSON of the effective values (jansson; json_t * cast to void * so that this
 * header needs no jansson): an object keyed by config key, each
 * {"value": typed value, "source": "default"|"env"|"config"|"flag"}; with
 * full = 1 also "env", "type", "class", "min"/"max" or "values", "default"
 * and "doc". only_cls < 0: every row, else that class's rows. New reference,
 * NULL without memory. */
void *g16_config_json(const g16_config *cfg, int full, int only_cls);
/* The same as a malloc'd compact string (NULL without memory). */
char *g16_config_json_text(const g16_config *cfg, int full, int only_cls);

#ifdef __cplusplus
}
#endif
#endif
