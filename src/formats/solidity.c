/* snarkjs 0.7.6's Solidity exports for Groth16:
 *   - the verifier contract of "snarkjs zkey export solidityverifier", which
 *     renders its verifier_groth16.sol.ejs over the verification key;
 *   - the call arguments of "snarkjs zkey export soliditycalldata".
 * Both are reproduced byte for byte.
 *
 * The contract text below is the output format itself. It is written here
 * with {{...}} markers for the values: {{name}} is one verification-key
 * number or a count, {{#IC}} ... {{/IC}} repeats its body for IC[0 ..
 * nPublic], {{#PUB}} ... {{/PUB}} for the public inputs 0 .. nPublic-1;
 * inside a loop {{i}} is the index, {{i1}} the index + 1, {{off}} 32 x the
 * index (a calldata offset), {{x}} and {{y}} IC[i]'s coordinates. snarkjs's
 * template leaves the whitespace around its loop tags in place, so each loop
 * body here starts with the rest of the line of its opening tag.
 *
 * Numbers are the decimal standard forms snarkjs prints (no leading zeros);
 * G2 coordinates appear as (x.c1, x.c0, y.c1, y.c0), the EVM precompile's
 * order. The point at infinity renders as snarkjs's object form does: G1
 * (0, 1), G2 x = (0, 0), y = (1, 0). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt_internal.h"
#include "util/file.h"

static const char verifier_template[] =
    "// SPDX-License-Identifier: GPL-3.0\n"
    "/*\n"
    "    Copyright 2021 0KIMS association.\n"
    "\n"
    "    This file is generated with [snarkJS](https://github.com/iden3/snarkjs).\n"
    "\n"
    "    snarkJS is a free software: you can redistribute it and/or modify it\n"
    "    under the terms of the GNU General Public License as published by\n"
    "    the Free Software Foundation, either version 3 of the License, or\n"
    "    (at your option) any later version.\n"
    "\n"
    "    snarkJS is distributed in the hope that it will be useful, but WITHOUT\n"
    "    ANY WARRANTY; without even the implied warranty of MERCHANTABILITY\n"
    "    or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public\n"
    "    License for more details.\n"
    "\n"
    "    You should have received a copy of the GNU General Public License\n"
    "    along with snarkJS. If not, see <https://www.gnu.org/licenses/>.\n"
    "*/\n"
    "\n"
    "pragma solidity >=0.7.0 <0.9.0;\n"
    "\n"
    "contract Groth16Verifier {\n"
    "    // Scalar field size\n"
    "    uint256 constant r    = 21888242871839275222246405745257275088548364400416034343698204186575808495617;\n"
    "    // Base field size\n"
    "    uint256 constant q   = 21888242871839275222246405745257275088696311157297823662689037894645226208583;\n"
    "\n"
    "    // Verification Key data\n"
    "    uint256 constant alphax  = {{alphax}};\n"
    "    uint256 constant alphay  = {{alphay}};\n"
    "    uint256 constant betax1  = {{betax1}};\n"
    "    uint256 constant betax2  = {{betax2}};\n"
    "    uint256 constant betay1  = {{betay1}};\n"
    "    uint256 constant betay2  = {{betay2}};\n"
    "    uint256 constant gammax1 = {{gammax1}};\n"
    "    uint256 constant gammax2 = {{gammax2}};\n"
    "    uint256 constant gammay1 = {{gammay1}};\n"
    "    uint256 constant gammay2 = {{gammay2}};\n"
    "    uint256 constant deltax1 = {{deltax1}};\n"
    "    uint256 constant deltax2 = {{deltax2}};\n"
    "    uint256 constant deltay1 = {{deltay1}};\n"
    "    uint256 constant deltay2 = {{deltay2}};\n"
    "\n"
    "    {{#IC}}\n"
    "    uint256 constant IC{{i}}x = {{x}};\n"
    "    uint256 constant IC{{i}}y = {{y}};\n"
    "    {{/IC}}\n"
    " \n"
    "    // Memory data\n"
    "    uint16 constant pVk = 0;\n"
    "    uint16 constant pPairing = 128;\n"
    "\n"
    "    uint16 constant pLastMem = 896;\n"
    "\n"
    "    function verifyProof(uint[2] calldata _pA, uint[2][2] calldata _pB, uint[2] calldata _pC, uint[{{nPublic}}] calldata _pubSignals) public view returns (bool) {\n"
    "        assembly {\n"
    "            function checkField(v) {\n"
    "                if iszero(lt(v, r)) {\n"
    "                    mstore(0, 0)\n"
    "                    return(0, 0x20)\n"
    "                }\n"
    "            }\n"
    "            \n"
    "            // G1 function to multiply a G1 value(x,y) to value in an address\n"
    "            function g1_mulAccC(pR, x, y, s) {\n"
    "                let success\n"
    "                let mIn := mload(0x40)\n"
    "                mstore(mIn, x)\n"
    "                mstore(add(mIn, 32), y)\n"
    "                mstore(add(mIn, 64), s)\n"
    "\n"
    "                success := staticcall(sub(gas(), 2000), 7, mIn, 96, mIn, 64)\n"
    "\n"
    "                if iszero(success) {\n"
    "                    mstore(0, 0)\n"
    "                    return(0, 0x20)\n"
    "                }\n"
    "\n"
    "                mstore(add(mIn, 64), mload(pR))\n"
    "                mstore(add(mIn, 96), mload(add(pR, 32)))\n"
    "\n"
    "                success := staticcall(sub(gas(), 2000), 6, mIn, 128, pR, 64)\n"
    "\n"
    "                if iszero(success) {\n"
    "                    mstore(0, 0)\n"
    "                    return(0, 0x20)\n"
    "                }\n"
    "            }\n"
    "\n"
    "            function checkPairing(pA, pB, pC, pubSignals, pMem) -> isOk {\n"
    "                let _pPairing := add(pMem, pPairing)\n"
    "                let _pVk := add(pMem, pVk)\n"
    "\n"
    "                mstore(_pVk, IC0x)\n"
    "                mstore(add(_pVk, 32), IC0y)\n"
    "\n"
    "                // Compute the linear combination vk_x\n"
    "                {{#PUB}}\n"
    "                g1_mulAccC(_pVk, IC{{i1}}x, IC{{i1}}y, calldataload(add(pubSignals, {{off}})))\n"
    "                {{/PUB}}\n"
    "\n"
    "                // -A\n"
    "                mstore(_pPairing, calldataload(pA))\n"
    "                mstore(add(_pPairing, 32), mod(sub(q, calldataload(add(pA, 32))), q))\n"
    "\n"
    "                // B\n"
    "                mstore(add(_pPairing, 64), calldataload(pB))\n"
    "                mstore(add(_pPairing, 96), calldataload(add(pB, 32)))\n"
    "                mstore(add(_pPairing, 128), calldataload(add(pB, 64)))\n"
    "                mstore(add(_pPairing, 160), calldataload(add(pB, 96)))\n"
    "\n"
    "                // alpha1\n"
    "                mstore(add(_pPairing, 192), alphax)\n"
    "                mstore(add(_pPairing, 224), alphay)\n"
    "\n"
    "                // beta2\n"
    "                mstore(add(_pPairing, 256), betax1)\n"
    "                mstore(add(_pPairing, 288), betax2)\n"
    "                mstore(add(_pPairing, 320), betay1)\n"
    "                mstore(add(_pPairing, 352), betay2)\n"
    "\n"
    "                // vk_x\n"
    "                mstore(add(_pPairing, 384), mload(add(pMem, pVk)))\n"
    "                mstore(add(_pPairing, 416), mload(add(pMem, add(pVk, 32))))\n"
    "\n"
    "\n"
    "                // gamma2\n"
    "                mstore(add(_pPairing, 448), gammax1)\n"
    "                mstore(add(_pPairing, 480), gammax2)\n"
    "                mstore(add(_pPairing, 512), gammay1)\n"
    "                mstore(add(_pPairing, 544), gammay2)\n"
    "\n"
    "                // C\n"
    "                mstore(add(_pPairing, 576), calldataload(pC))\n"
    "                mstore(add(_pPairing, 608), calldataload(add(pC, 32)))\n"
    "\n"
    "                // delta2\n"
    "                mstore(add(_pPairing, 640), deltax1)\n"
    "                mstore(add(_pPairing, 672), deltax2)\n"
    "                mstore(add(_pPairing, 704), deltay1)\n"
    "                mstore(add(_pPairing, 736), deltay2)\n"
    "\n"
    "\n"
    "                let success := staticcall(sub(gas(), 2000), 8, _pPairing, 768, _pPairing, 0x20)\n"
    "\n"
    "                isOk := and(success, mload(_pPairing))\n"
    "            }\n"
    "\n"
    "            let pMem := mload(0x40)\n"
    "            mstore(0x40, add(pMem, pLastMem))\n"
    "\n"
    "            // Validate that all evaluations \xe2\x88\x88 F\n"
    "            {{#PUB}}\n"
    "            checkField(calldataload(add(_pubSignals, {{off}})))\n"
    "            {{/PUB}}\n"
    "\n"
    "            // Validate all evaluations\n"
    "            let isValid := checkPairing(_pA, _pB, _pC, _pubSignals, pMem)\n"
    "\n"
    "            mstore(0, isValid)\n"
    "             return(0, 0x20)\n"
    "         }\n"
    "     }\n"
    " }\n";

/* ---- a growable string ------------------------------------------------------ */

static void sb_u64(sbuf *b, unsigned long long v) {
    char t[24];
    snprintf(t, sizeof t, "%llu", v);
    sb_str(b, t);
}
static g16_err sb_finish(char **out, sbuf *b, g16_status *st) {
    if (b->oom || !b->p) {
        free(b->p);
        *out = NULL;
        return g16_fail(st, G16_ERR_NOMEM, "solidity: out of memory");
    }
    *out = b->p;
    return G16_OK;
}

/* ---- the verification key's numbers as decimal strings ----------------------- */

#define SOL_DEC 128 /* a decimal Fp of either curve (BLS12-381's p has 115 digits) */
typedef char sol_dec[SOL_DEC];

/* The 14 fixed numbers, in the order of the names below, and IC. */
static const char *const vk_names[14] = {"alphax",  "alphay",  "betax1",  "betax2",  "betay1",
                                         "betay2",  "gammax1", "gammax2", "gammay1", "gammay2",
                                         "deltax1", "deltax2", "deltay1", "deltay2"};
typedef struct sol_vk {
    sol_dec fixed[14];
    sol_dec (*ic)[2]; /* nPublic + 1 (x, y) */
    uint32_t nPublic;
} sol_vk;

#define SOL_VK_FILL(C)                                                                             \
    static void g1_dec_##C(sol_dec x, sol_dec y, const C##_g1_affine *p) {                         \
        if (C##_g1_affine_is_inf(p)) {                                                             \
            strcpy(x, "0");                                                                        \
            strcpy(y, "1");                                                                        \
            return;                                                                                \
        }                                                                                          \
        C##_fp_to_dec(x, SOL_DEC, &p->x);                                                          \
        C##_fp_to_dec(y, SOL_DEC, &p->y);                                                          \
    }                                                                                              \
    /* x1 = x.c1, x2 = x.c0, y1 = y.c1, y2 = y.c0 (the template's vk_*_2[0][1], [0][0], ...) */    \
    static void g2_dec_##C(sol_dec *out4, const C##_g2_affine *p) {                                \
        if (C##_g2_affine_is_inf(p)) {                                                             \
            strcpy(out4[0], "0");                                                                  \
            strcpy(out4[1], "0");                                                                  \
            strcpy(out4[2], "0");                                                                  \
            strcpy(out4[3], "1");                                                                  \
            return;                                                                                \
        }                                                                                          \
        C##_fp_to_dec(out4[0], SOL_DEC, &p->x.c1);                                                 \
        C##_fp_to_dec(out4[1], SOL_DEC, &p->x.c0);                                                 \
        C##_fp_to_dec(out4[2], SOL_DEC, &p->y.c1);                                                 \
        C##_fp_to_dec(out4[3], SOL_DEC, &p->y.c0);                                                 \
    }                                                                                              \
    static void sol_vk_fill_##C(sol_vk *s, const g16_vk *vk) {                                     \
        g1_dec_##C(s->fixed[0], s->fixed[1], &vk->C.alpha1);                                       \
        g2_dec_##C(&s->fixed[2], &vk->C.beta2);                                                    \
        g2_dec_##C(&s->fixed[6], &vk->C.gamma2);                                                   \
        g2_dec_##C(&s->fixed[10], &vk->C.delta2);                                                  \
        for (uint32_t i = 0; i <= vk->nPublic; i++)                                                \
            g1_dec_##C(s->ic[i][0], s->ic[i][1], &vk->C.IC[i]);                                    \
    }
SOL_VK_FILL(bn254)
SOL_VK_FILL(bls381)

/* ---- the renderer ------------------------------------------------------------ */

/* The marker at p ("{{" already seen): its name into name (NUL-terminated),
 * and the text after "}}". NULL when the template is malformed (a bug). */
static const char *marker(const char *p, char *name, size_t cap) {
    const char *e = strstr(p + 2, "}}");
    size_t n = e ? (size_t)(e - (p + 2)) : 0;
    if (!e || n + 1 > cap)
        return NULL;
    memcpy(name, p + 2, n);
    name[n] = 0;
    return e + 2;
}

/* Renders template text t[0 .. end) into b. loop_i < 0 outside a loop. */
static int render(sbuf *b, const char *t, const char *end, const sol_vk *s, long loop_i) {
    while (t < end) {
        const char *m = strstr(t, "{{");
        if (!m || m >= end) {
            sb_put(b, t, (size_t)(end - t));
            return 1;
        }
        sb_put(b, t, (size_t)(m - t));
        char name[32];
        const char *after = marker(m, name, sizeof name);
        if (!after)
            return 0;
        if (name[0] == '#') { /* a loop: its body runs to the matching close marker */
            char close[40];
            snprintf(close, sizeof close, "{{/%s}}", name + 1);
            const char *body_end = strstr(after, close);
            if (!body_end || loop_i >= 0)
                return 0;
            long n;
            if (!strcmp(name + 1, "IC"))
                n = (long)s->nPublic + 1;
            else if (!strcmp(name + 1, "PUB"))
                n = (long)s->nPublic;
            else
                return 0;
            for (long i = 0; i < n; i++)
                if (!render(b, after, body_end, s, i))
                    return 0;
            t = body_end + strlen(close);
            continue;
        }
        int done = 0;
        for (int k = 0; k < 14 && !done; k++)
            if (!strcmp(name, vk_names[k])) {
                sb_str(b, s->fixed[k]);
                done = 1;
            }
        if (!done && !strcmp(name, "nPublic")) {
            sb_u64(b, s->nPublic);
            done = 1;
        }
        if (!done && loop_i >= 0) {
            if (!strcmp(name, "i"))
                sb_u64(b, (unsigned long long)loop_i);
            else if (!strcmp(name, "i1"))
                sb_u64(b, (unsigned long long)loop_i + 1);
            else if (!strcmp(name, "off"))
                sb_u64(b, 32ull * (unsigned long long)loop_i);
            else if (!strcmp(name, "x") && loop_i <= (long)s->nPublic)
                sb_str(b, s->ic[loop_i][0]);
            else if (!strcmp(name, "y") && loop_i <= (long)s->nPublic)
                sb_str(b, s->ic[loop_i][1]);
            else
                return 0;
            done = 1;
        }
        if (!done)
            return 0;
        t = after;
    }
    return 1;
}

g16_err g16_solidity_verifier_str(char **out, const g16_vk *vk, g16_status *st) {
    *out = NULL;
    if (vk->curve != G16_CURVE_BN254 && vk->curve != G16_CURVE_BLS12_381)
        return g16_fail(st, G16_ERR_INVALID_ARG, "solidity verifier: unknown curve %d", (int)vk->curve);
    if ((vk->curve == G16_CURVE_BN254 ? (const void *)vk->bn254.IC : (const void *)vk->bls381.IC) == NULL)
        return g16_fail(st, G16_ERR_INVALID_ARG, "solidity verifier: the verification key has no IC points");
    sol_vk s = {.nPublic = vk->nPublic};
    s.ic = malloc(((size_t)vk->nPublic + 1) * sizeof *s.ic);
    if (!s.ic)
        return g16_fail(st, G16_ERR_NOMEM, "solidity verifier: out of memory for %u IC points", vk->nPublic + 1);
    if (vk->curve == G16_CURVE_BN254)
        sol_vk_fill_bn254(&s, vk);
    else
        sol_vk_fill_bls381(&s, vk);
    sbuf b = {0};
    int ok = render(&b, verifier_template, verifier_template + sizeof verifier_template - 1, &s, -1);
    free(s.ic);
    if (!ok) {
        free(b.p);
        return g16_fail(st, G16_ERR_INTERNAL, "solidity verifier: malformed template (a bug)");
    }
    return sb_finish(out, &b, st);
}

/* ---- calldata ------------------------------------------------------------------ */

/* snarkjs's p256: "0x" and the lowercase hex digits of the standard form,
 * with leading zeros to 64 digits (a longer number keeps its length), quoted. */
static void sb_hex(sbuf *b, const limb_t *x, size_t nlimbs) {
    char digits[6 * 16 + 1];
    size_t n = 0;
    for (size_t i = nlimbs; i-- > 0;)
        for (int k = 60; k >= 0; k -= 4)
            digits[n++] = "0123456789abcdef"[(x[i] >> k) & 0xf];
    digits[n] = 0;
    size_t lead = 0;
    while (lead + 1 < n && digits[lead] == '0')
        lead++;
    size_t len = n - lead;
    sb_str(b, "\"0x");
    for (size_t k = len; k < 64; k++)
        sb_put(b, "0", 1);
    sb_put(b, digits + lead, len);
    sb_str(b, "\"");
}

#define SOL_HEX(C, NL)                                                                            \
    static void hex_fp_##C(sbuf *b, const C##_fp *a) {                                          \
        limb_t x[NL];                                                                              \
        C##_fp_from_mont(x, a);                                                                    \
        sb_hex(b, x, NL);                                                                          \
    }                                                                                              \
    static void hex_small_##C(sbuf *b, limb_t v) {                                              \
        limb_t x[NL] = {v};                                                                        \
        sb_hex(b, x, NL);                                                                          \
    }                                                                                              \
    /* [x, y] of a G1 point (infinity: [0, 1]) */                                                  \
    static void hex_g1_##C(sbuf *b, const C##_g1_affine *p) {                                   \
        sb_str(b, "[");                                                                            \
        if (C##_g1_affine_is_inf(p)) {                                                             \
            hex_small_##C(b, 0);                                                                   \
            sb_str(b, ", ");                                                                       \
            hex_small_##C(b, 1);                                                                   \
        } else {                                                                                   \
            hex_fp_##C(b, &p->x);                                                                  \
            sb_str(b, ", ");                                                                       \
            hex_fp_##C(b, &p->y);                                                                  \
        }                                                                                          \
        sb_str(b, "]");                                                                            \
    }                                                                                              \
    /* [[x.c1, x.c0],[y.c1, y.c0]] (infinity: x = (0, 0), y = (1, 0)) */                           \
    static void hex_g2_##C(sbuf *b, const C##_g2_affine *p) {                                   \
        if (C##_g2_affine_is_inf(p)) {                                                             \
            sb_str(b, "[[");                                                                       \
            hex_small_##C(b, 0);                                                                   \
            sb_str(b, ", ");                                                                       \
            hex_small_##C(b, 0);                                                                   \
            sb_str(b, "],[");                                                                      \
            hex_small_##C(b, 0);                                                                   \
            sb_str(b, ", ");                                                                       \
            hex_small_##C(b, 1);                                                                   \
            sb_str(b, "]]");                                                                       \
            return;                                                                                \
        }                                                                                          \
        sb_str(b, "[[");                                                                           \
        hex_fp_##C(b, &p->x.c1);                                                                   \
        sb_str(b, ", ");                                                                           \
        hex_fp_##C(b, &p->x.c0);                                                                   \
        sb_str(b, "],[");                                                                          \
        hex_fp_##C(b, &p->y.c1);                                                                   \
        sb_str(b, ", ");                                                                           \
        hex_fp_##C(b, &p->y.c0);                                                                   \
        sb_str(b, "]]");                                                                           \
    }
SOL_HEX(bn254, 4)
SOL_HEX(bls381, 6)

g16_err g16_solidity_calldata_str(char **out, const g16_proof *p, const g16_frvec *pub, g16_status *st) {
    *out = NULL;
    if (p->curve != pub->curve)
        return g16_fail(st, G16_ERR_WRONG_CURVE, "solidity calldata: the proof is on %s, the public inputs on %s",
                        g16_snarkjs_curve_name(p->curve), g16_snarkjs_curve_name(pub->curve));
    sbuf b = {0};
    if (p->curve == G16_CURVE_BN254) {
        hex_g1_bn254(&b, &p->bn254.a);
        sb_str(&b, ",");
        hex_g2_bn254(&b, &p->bn254.b);
        sb_str(&b, ",");
        hex_g1_bn254(&b, &p->bn254.c);
    } else {
        hex_g1_bls381(&b, &p->bls381.a);
        sb_str(&b, ",");
        hex_g2_bls381(&b, &p->bls381.b);
        sb_str(&b, ",");
        hex_g1_bls381(&b, &p->bls381.c);
    }
    sb_str(&b, ",[");
    for (size_t i = 0; i < pub->n; i++) {
        limb_t x[4];
        if (pub->standard)
            memcpy(x, pub->raw[i], sizeof x);
        else if (pub->curve == G16_CURVE_BN254)
            bn254_fr_from_mont(x, &pub->bn254[i]);
        else
            bls381_fr_from_mont(x, &pub->bls381[i]);
        if (i)
            sb_str(&b, ",");
        sb_hex(&b, x, 4);
    }
    sb_str(&b, "]");
    return sb_finish(out, &b, st);
}

/* The curve to read the proof on: the one it names, else BN254 (rapidsnark
 * writes no "curve"). The proof must name its protocol, as snarkjs, which
 * picks its exporter by it, requires. */
static g16_err proof_hint(int *want, const char *text, size_t len, const char *nm, g16_status *st) {
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return g16_fail(st, G16_ERR_FORMAT, "%s: invalid JSON at line %d, column %d: %s", nm, je.line, je.column,
                        je.text);
    g16_err err = G16_OK;
    json_t *pr = json_object_get(root, "protocol"); /* NULL for a non-object */
    if (!json_is_object(root))
        err = g16_fail(st, G16_ERR_FORMAT, "%s: expected a JSON object", nm);
    else if (!pr)
        err = g16_fail(st, G16_ERR_FORMAT, "%s: missing \"protocol\"", nm);
    else if (!json_is_string(pr) || strcmp(json_string_value(pr), "groth16") != 0)
        err = g16_fail(st, G16_ERR_UNSUPPORTED, "%s: protocol is not \"groth16\" (g16 exports Groth16 calldata only)",
                       nm);
    else
        *want = json_object_get(root, "curve") ? -1 : (int)G16_CURVE_BN254;
    json_decref(root);
    return err;
}

g16_err g16_solidity_calldata_parse(char **out, const char *public_json, size_t public_len, const char *proof_json,
                                    size_t proof_len, g16_status *st) {
    *out = NULL;
    int want = -1;
    g16_proof p;
    g16_frvec pub = {0};
    g16_err err = proof_hint(&want, proof_json, proof_len, "proof (json)", st);
    if (!err)
        err = g16_proof_json_parse(&p, proof_json, proof_len, want, st);
    if (!err)
        err = g16_public_json_parse(&pub, public_json, public_len, p.curve, st);
    if (!err)
        err = g16_solidity_calldata_str(out, &p, &pub, st);
    g16_frvec_free(&pub);
    return err;
}

g16_err g16_solidity_calldata_files(char **out, const char *public_path, const char *proof_path, g16_status *st) {
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    int want = -1;
    g16_proof p;
    g16_frvec pub = {0};
    g16_err err = g16_file_read_all(proof_path, G16_PROOF_JSON_MAX, "proof", &text, &len, st);
    if (!err)
        err = proof_hint(&want, text, len, proof_path, st);
    free(text);
    if (!err)
        err = g16_proof_json_read(&p, proof_path, want, st);
    if (!err)
        err = g16_public_json_read(&pub, public_path, p.curve, st);
    if (!err)
        err = g16_solidity_calldata_str(out, &p, &pub, st);
    g16_frvec_free(&pub);
    return err;
}
