/* The public front door of witness generation (g16.h "witnesses from
 * inputs"): options resolved from the context, the runner of
 * formats/witgen.c, the generated .wtns checked (and loaded). */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/witgen.h"
#include "../util/ctx.h"

void g16_witgen_opts_init(g16_witgen_opts *opts) {
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

static void resolve(g16_ctx *ctx, witgen_limits *lim, const g16_witgen_opts *opts) {
    g16_config cfg;
    g16_ctx_config_copy(ctx, &cfg);
    witgen_limits_resolve(lim, &cfg, opts);
}

g16_err g16_witgen_check(g16_ctx *ctx, g16_witgen_kind *kind, const char *gen_path, const g16_witgen_opts *opts) {
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!gen_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witgen_check: NULL argument");
    witgen_limits lim;
    resolve(ctx, &lim, opts);
    g16_status st = {0};
    g16_witgen_kind k;
    char js[PATH_MAX];
    if (witgen_kind(gen_path, &lim, 1, &k, js, &st))
        return g16_ctx_report(ctx, &st);
    if (kind)
        *kind = k;
    return G16_OK;
}

g16_err g16_witness_generate_wtns(g16_ctx *ctx, void **wtns, size_t *wtns_len, const char *gen_path,
                                  const char *input_path, const void *input_json, size_t input_len,
                                  const g16_witgen_opts *opts) {
    if (wtns)
        *wtns = NULL;
    if (wtns_len)
        *wtns_len = 0;
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!wtns || !wtns_len || !gen_path || (!input_path && !input_json))
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_generate: NULL argument");
    witgen_limits lim;
    resolve(ctx, &lim, opts);
    const char *name = opts && opts->size >= offsetof(g16_witgen_opts, input_name) + sizeof opts->input_name
                           ? opts->input_name
                           : NULL;
    g16_status st = {0};
    uint8_t *b = NULL;
    size_t n = 0;
    if (witgen_run(&lim, gen_path, input_path, input_json, input_len, name, &b, &n, &st))
        return g16_ctx_report(ctx, &st);
    g16_witness_header wh;
    if (g16_witness_peek_bytes(ctx, &wh, b, n)) {
        char m[200];
        (void)g16_ctx_last_error(ctx, m, sizeof m);
        g16_wipe(b, n);
        free(b);
        return g16_ctx_fail(ctx, G16_ERR_WITNESS_GEN, "witness generator %.60s on %.60s wrote a bad .wtns: %.120s",
                            base_name(gen_path), base_name(input_path ? input_path : name ? name : "input"), m);
    }
    *wtns = b;
    *wtns_len = n;
    return G16_OK;
}

g16_err g16_witness_generate(g16_ctx *ctx, g16_witness **w, const char *gen_path, const char *input_path,
                             const void *input_json, size_t input_len, const g16_witgen_opts *opts) {
    if (w)
        *w = NULL;
    if (!ctx)
        return G16_ERR_INVALID_ARG;
    if (!w)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_generate: NULL argument");
    void *b = NULL;
    size_t n = 0;
    g16_err err = g16_witness_generate_wtns(ctx, &b, &n, gen_path, input_path, input_json, input_len, opts);
    if (err)
        return err;
    err = g16_witness_from_wtns_bytes(ctx, w, b, n);
    g16_wipe(b, n);
    free(b);
    return err;
}
