/* libFuzzer target for the file-format readers. The first input byte picks
 * the reader, the rest is the file's bytes:
 *   0     .zkey (g16_zkey_open_mem: header, sections, counts, coefficients,
 *         every point validated)
 *   1     .wtns (g16_wtns_read_mem)
 *   2     .r1cs (g16_r1cs_read_mem)
 *   3..5  proof.json with curve -1 (from the file), BN254, BLS12-381
 *   6, 7  public.json for BN254, BLS12-381
 *   8..10 verification_key.json with curve -1, BN254, BLS12-381
 *   11    .assignment (g16_assignment_read_mem: header, counts, bitmaps)
 * Every reader must succeed or return an input-error code with a message;
 * any other code (INTERNAL, NOMEM on a small input, ...) traps, and the
 * sanitizers catch memory errors and leaks. Build and run:
 * tests/test_fuzz_smoke.sh. */
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"
#include "groth16/assignment.h"

#define REQUIRE(c)                 \
    do {                           \
        if (!(c))                  \
            __builtin_trap();      \
    } while (0)

static int input_err(g16_err e) {
    return e == G16_ERR_TRUNCATED || e == G16_ERR_FORMAT || e == G16_ERR_NOT_CANONICAL ||
           e == G16_ERR_NOT_ON_CURVE || e == G16_ERR_NOT_IN_SUBGROUP || e == G16_ERR_WRONG_CURVE ||
           e == G16_ERR_SIZE_MISMATCH || e == G16_ERR_UNSUPPORTED;
}

static void check(g16_err e, const g16_status *st) {
    REQUIRE(e == G16_OK || input_err(e));
    REQUIRE(e == G16_OK || st->msg[0] != 0); /* an error says what was wrong */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    unsigned sel = data[0];
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    g16_status st;
    memset(&st, 0, sizeof st);
    static const int curves[3] = {-1, G16_CURVE_BN254, G16_CURVE_BLS12_381};
    switch (sel) {
    case 0: {
        g16_zkey key;
        g16_err e = g16_zkey_open_mem(&key, "fuzz.zkey", d, n, 0, NULL, &st);
        check(e, &st);
        if (e == G16_OK)
            g16_zkey_close(&key);
        break;
    }
    case 1: {
        g16_frvec w;
        memset(&w, 0, sizeof w);
        g16_err e = g16_wtns_read_mem(&w, "fuzz.wtns", d, n, &st);
        check(e, &st);
        if (e == G16_OK)
            g16_frvec_free(&w);
        break;
    }
    case 2: {
        g16_r1cs r;
        memset(&r, 0, sizeof r);
        g16_err e = g16_r1cs_read_mem(&r, "fuzz.r1cs", d, n, &st);
        check(e, &st);
        if (e == G16_OK)
            g16_r1cs_free(&r);
        break;
    }
    case 3:
    case 4:
    case 5: {
        g16_proof p;
        check(g16_proof_json_parse(&p, (const char *)d, n, curves[sel - 3], &st), &st);
        break;
    }
    case 6:
    case 7: {
        g16_frvec pub;
        memset(&pub, 0, sizeof pub);
        g16_err e = g16_public_json_parse(&pub, (const char *)d, n, (g16_curve)curves[sel - 5], &st);
        check(e, &st);
        if (e == G16_OK)
            g16_frvec_free(&pub);
        break;
    }
    case 8:
    case 9:
    case 10: {
        g16_vk vk;
        memset(&vk, 0, sizeof vk);
        g16_err e = g16_vk_json_parse(&vk, (const char *)d, n, curves[sel - 8], &st);
        check(e, &st);
        if (e == G16_OK)
            g16_vk_free(&vk);
        break;
    }
    case 11: {
        g16_assignment_file f;
        g16_err e = g16_assignment_read_mem(&f, "fuzz.assignment", d, n, &st);
        check(e, &st);
        if (e == G16_OK)
            g16_assignment_file_free(&f);
        break;
    }
    default:
        break;
    }
    return 0;
}
