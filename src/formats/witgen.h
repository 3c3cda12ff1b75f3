/* formats layer: circom witness generators run as child processes
 * (docs/witgen.md). The runner below is the one place that starts a
 * generator; the public g16_witgen_check / g16_witness_generate_wtns
 * (witgen.c) and g16_witness_generate (groth16/witgen.c) wrap it. */
#ifndef G16_FORMATS_WITGEN_H
#define G16_FORMATS_WITGEN_H

#include <stddef.h>
#include <stdint.h>

#include "../util/config.h"
#include "../util/util.h"

/* The limits of one run, resolved from the options and the call's opts. */
typedef struct witgen_limits {
    double timeout_s;      /* > 0 */
    uint64_t memory_bytes; /* 0: none */
    char node[G16_OPT_STR_MAX];    /* "": node on PATH */
    char scratch[G16_OPT_STR_MAX]; /* "": /tmp */
} witgen_limits;

/* Fills lim from cfg, overridden by opts' nonzero fields (opts may be NULL). */
void witgen_limits_resolve(witgen_limits *lim, const g16_config *cfg, const g16_witgen_opts *opts);

/* The generator's kind (file's first bytes, see g16.h); for a .wasm also
 * the absolute path of the generate_witness.js beside it (js: PATH_MAX
 * bytes, "" for a native one) and, with check_node, that node resolves.
 * G16_ERR_IO / INVALID_ARG with a message naming gen. */
g16_err witgen_kind(const char *gen, const witgen_limits *lim, int check_node, g16_witgen_kind *kind, char *js,
                    g16_status *st);

/* Runs gen on the input (a file, or input_json/input_len written into the
 * scratch directory) and returns the .wtns it wrote, unchecked: *out
 * malloc'd (secret: the caller wipes it), *out_len. input_name names the
 * in-memory input in messages. Errors as g16_witness_generate_wtns's. */
g16_err witgen_run(const witgen_limits *lim, const char *gen, const char *input_path, const void *input_json,
                   size_t input_len, const char *input_name, uint8_t **out, size_t *out_len, g16_status *st);

#endif
