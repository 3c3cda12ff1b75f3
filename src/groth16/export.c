/* g16_export_solidity_*: snarkjs's Solidity verifier and calldata through the
 * public API (the rendering is the formats layer's, src/formats/solidity.c). */
#include <stdlib.h>

#include "groth16.h"
#include "util/ctx.h"
#include "util/file.h"

/* The contract for vk into *sol (NULL on failure); vk is freed either way. */
static g16_err verifier_from_vk(g16_ctx *ctx, char **sol, g16_vk *vk, g16_err err, g16_status *st) {
    if (!err)
        err = g16_solidity_verifier_str(sol, vk, st);
    g16_vk_free(vk);
    return err ? g16_ctx_report(ctx, st) : G16_OK;
}

g16_err g16_export_solidity_verifier(g16_ctx *ctx, char **sol, const g16_key *key) {
    if (sol)
        *sol = NULL;
    if (!ctx || !sol || !key)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_export_solidity_verifier: NULL argument");
    g16_status st = {0};
    g16_vk vk = {0};
    /* IC comes from the key's file: not from one that changed under the read */
    g16_err err = groth16_key_settle(key, g16_vk_from_zkey(&vk, groth16_key_zkey(key), &st), &st);
    return verifier_from_vk(ctx, sol, &vk, err, &st);
}

g16_err g16_export_solidity_verifier_json(g16_ctx *ctx, char **sol, const char *vk_json) {
    if (sol)
        *sol = NULL;
    if (!ctx || !sol || !vk_json)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_export_solidity_verifier_json: NULL argument");
    g16_status st = {0};
    g16_vk vk = {0};
    g16_err err = g16_vk_json_parse(&vk, vk_json, strlen(vk_json), -1, &st);
    return verifier_from_vk(ctx, sol, &vk, err, &st);
}

g16_err g16_export_solidity_verifier_file(g16_ctx *ctx, char **sol, g16_curve *curve, uint32_t *n_public,
                                          const char *path, const char *sol_path) {
    if (sol)
        *sol = NULL;
    if (!ctx || !path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_export_solidity_verifier_file: NULL argument");
    g16_status st = {0};
    if (sol_path && g16_check_outputs((const char *[]){path}, 1, (const char *[]){sol_path}, 1, &st))
        return g16_ctx_report(ctx, &st);
    char magic[4] = {0};
    FILE *f = NULL;
    if (g16_file_fopen_read(path, &f, &st))
        return g16_ctx_report(ctx, &st);
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    g16_vk vk = {0};
    g16_err err;
    if (got == sizeof magic && !memcmp(magic, "zkey", 4)) {
        /* header, vk points and IC only (all checked): the rest of a large key is not read */
        g16_zkey zk;
        err = g16_zkey_open(&zk, path, G16_ZKEY_VK_ONLY | G16_ZKEY_NO_COPY, ctx->pool, &st);
        if (!err) {
            err = g16_vk_from_zkey(&vk, &zk, &st);
            err = g16_binfile_settle(&zk.file, err, "; export again", &st);
            g16_zkey_close(&zk);
        }
    } else {
        err = g16_vk_json_read(&vk, path, -1, &st);
    }
    if (!err && curve)
        *curve = vk.curve;
    if (!err && n_public)
        *n_public = vk.nPublic;
    char *text = NULL;
    err = verifier_from_vk(ctx, &text, &vk, err, &st);
    if (!err && sol_path && g16_atomic_write(sol_path, text, strlen(text), &st))
        err = g16_ctx_report(ctx, &st);
    if (!err && sol)
        *sol = text;
    else
        free(text);
    return err;
}

g16_err g16_export_solidity_calldata(g16_ctx *ctx, char **calldata, const char *public_json, const char *proof_json) {
    if (calldata)
        *calldata = NULL;
    if (!ctx || !calldata || !public_json || !proof_json)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_export_solidity_calldata: NULL argument");
    g16_status st = {0};
    g16_err err = g16_solidity_calldata_parse(calldata, public_json, strlen(public_json), proof_json,
                                              strlen(proof_json), &st);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}

g16_err g16_export_solidity_calldata_files(g16_ctx *ctx, char **calldata, const char *public_path,
                                           const char *proof_path) {
    if (calldata)
        *calldata = NULL;
    if (!ctx || !calldata || !public_path || !proof_path)
        return g16_ctx_fail(ctx, G16_ERR_INVALID_ARG, "g16_export_solidity_calldata_files: NULL argument");
    g16_status st = {0};
    g16_err err = g16_solidity_calldata_files(calldata, public_path, proof_path, &st);
    return err ? g16_ctx_report(ctx, &st) : G16_OK;
}
