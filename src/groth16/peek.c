/* g16_key_peek(_bytes), g16_witness_peek(_bytes): the header facts of a .zkey or a
 * .wtns through the format readers' header-only modes
 * (G16_ZKEY_HEADER_ONLY, G16_WTNS_HEADER_ONLY), so that a peek accepts
 * exactly the headers that a load accepts. */
#include "groth16.h"
#include "util/ctx.h"

/* The header facts of a .zkey at path, or of its bytes (data, len) when
 * path is NULL. */
static g16_err key_peek(g16_ctx *ctx, g16_key_header *hdr, const char *path, const void *data, size_t len) {
    const unsigned flags = G16_ZKEY_HEADER_ONLY | G16_ZKEY_TRUSTED | G16_ZKEY_NO_COPY;
    g16_zkey zk;
    g16_status st = {0};
    g16_err err = path ? g16_zkey_open(&zk, path, flags, NULL, &st)
                       : g16_zkey_open_mem(&zk, "zkey", data, len, flags, NULL, &st);
    if (err)
        return g16_ctx_report(ctx, &st);
    hdr->curve = zk.curve;
    hdr->n_vars = zk.nVars;
    hdr->n_public = zk.nPublic;
    hdr->domain_size = zk.domainSize;
    g16_zkey_close(&zk);
    return G16_OK;
}

g16_err g16_key_peek(g16_ctx *ctx, g16_key_header *hdr, const char *zkey_path) {
    if (!ctx || !hdr || !zkey_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_peek: NULL argument");
    return key_peek(ctx, hdr, zkey_path, NULL, 0);
}

g16_err g16_key_peek_bytes(g16_ctx *ctx, g16_key_header *hdr, const void *data, size_t len) {
    if (!ctx || !hdr || !data)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_key_peek_bytes: NULL argument");
    return key_peek(ctx, hdr, NULL, data, len);
}

static g16_err witness_peek(g16_ctx *ctx, g16_witness_header *hdr, const char *path, const void *data,
                            size_t len) {
    g16_frvec w;
    g16_status st = {0};
    g16_err err = path ? g16_wtns_read_ex(&w, path, G16_WTNS_HEADER_ONLY, NULL, &st)
                       : g16_wtns_read_mem_ex(&w, "witness", data, len, G16_WTNS_HEADER_ONLY, NULL, &st);
    if (err)
        return g16_ctx_report(ctx, &st);
    hdr->curve = w.curve;
    hdr->n_values = (uint32_t)w.n;
    g16_frvec_free(&w);
    return G16_OK;
}

g16_err g16_witness_peek(g16_ctx *ctx, g16_witness_header *hdr, const char *wtns_path) {
    if (!ctx || !hdr || !wtns_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_peek: NULL argument");
    return witness_peek(ctx, hdr, wtns_path, NULL, 0);
}

g16_err g16_witness_peek_bytes(g16_ctx *ctx, g16_witness_header *hdr, const void *data, size_t len) {
    if (!ctx || !hdr || !data)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_witness_peek_bytes: NULL argument");
    return witness_peek(ctx, hdr, NULL, data, len);
}
