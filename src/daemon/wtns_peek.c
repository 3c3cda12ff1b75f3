/* Admission check of a witness: its curve (the prime r in the header) and
 * nWitness, read from the .wtns header without touching the values (the
 * file is mapped, not read; only the header page is faulted in). The
 * container's section table must cover the file exactly, and section 2 must
 * hold nWitness values of n8 bytes. The full check (canonical values,
 * w[0] = 1) happens when the partition runs. */
#include "daemon.h"

#include <string.h>

static int le_equal(const uint8_t *b, const uint64_t p[4]) {
    for (int i = 0; i < 32; i++)
        if (b[i] != (uint8_t)(p[i / 8] >> (8 * (i % 8))))
            return 0;
    return 1;
}

g16_err g16d_wtns_peek(const char *path, const void *data, size_t len, g16_curve *curve,
                       uint32_t *n_witness, g16_status *st) {
    static const uint64_t r_bn[4] = BN254_FR_P, r_bls[4] = BLS381_FR_P;
    g16_binfile bf;
    g16_err err = path ? g16_binfile_open(&bf, path, "wtns", 2, st)
                       : g16_binfile_open_mem(&bf, "inline witness", data, len, "wtns", 2, st);
    if (err)
        return err;
    const g16_binfile_section *s1, *s2;
    if ((err = g16_binfile_find(&bf, 1, &s1, st)) || (err = g16_binfile_find(&bf, 2, &s2, st)))
        goto out;
    if (s1->size < 4) {
        err = g16_fail(st, G16_ERR_TRUNCATED, "%s: header section too short", bf.name);
        goto out;
    }
    uint32_t n8 = g16_le32(s1->data);
    if (n8 != 32 || s1->size != 4 + (uint64_t)n8 + 4) {
        err = g16_fail(st, G16_ERR_FORMAT, "%s: header: n8 = %u, section size %llu (expected 32, 40)", bf.name, n8,
                       (unsigned long long)s1->size);
        goto out;
    }
    if (le_equal(s1->data + 4, r_bn))
        *curve = G16_CURVE_BN254;
    else if (le_equal(s1->data + 4, r_bls))
        *curve = G16_CURVE_BLS12_381;
    else {
        err = g16_fail(st, G16_ERR_WRONG_CURVE, "%s: prime is neither BN254's nor BLS12-381's group order r",
                       bf.name);
        goto out;
    }
    *n_witness = g16_le32(s1->data + 4 + n8);
    if (s2->size != (uint64_t)*n_witness * n8) {
        err = g16_fail(st, G16_ERR_TRUNCATED, "%s: values section has %llu bytes, header says %u x %u", bf.name,
                       (unsigned long long)s2->size, *n_witness, n8);
        goto out;
    }
out:
    g16_binfile_close(&bf);
    return err;
}
