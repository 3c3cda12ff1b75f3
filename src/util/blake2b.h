/* BLAKE2b (RFC 7693), unkeyed, any digest length 1..64: snarkjs hashes a
 * zkey's circuit (csHash) and its contributions with BLAKE2b-512. */
#ifndef G16_BLAKE2B_H
#define G16_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct g16_blake2b {
    uint64_t h[8], t[2];
    uint8_t buf[128];
    size_t fill, outlen;
} g16_blake2b;

void g16_blake2b_init(g16_blake2b *s, size_t outlen);
void g16_blake2b_update(g16_blake2b *s, const void *data, size_t len);
void g16_blake2b_final(g16_blake2b *s, uint8_t *out); /* outlen bytes */

#endif
