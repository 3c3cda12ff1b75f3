/* BLAKE2b (src/util/blake2b.c) against Python hashlib's vectors (RFC 7693
 * implementation in CPython): message i has bytes (7i + 1) mod 256; lengths
 * around the 128-byte block edge. Also split updates and a 32-byte digest. */
#include <string.h>

#include "testutil.h"
#include "util/blake2b.h"

static const struct {
    size_t len;
    const char *hex;
} vec[] = {
    {0, "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"},
    {3, "4626590fff3d43a38276d9e6f87b5a3c2f654490369d1e14a24f9094ff1e8341540c7fdf1f5aa0652c565cf76b7bba22799d3b892d4a187303d9ef4c4193c24a"},
    {127, "d073fb3259c723b20a64ecf77083891a157c81c1882da42060222dfc7ebbda6da1b8ed55197aabd0ab17cf935499d8e4f6d93a4bb83a1aa5670a1612c70df1bb"},
    {128, "c6d375fd4421510489194b8ccd9b1fc9e96dd25eab56f33bd698266fb38d8fbde447b617cdb5779c5fbeafe53fae640c85c457f6449ce307a11d88d18788d7f0"},
    {129, "7cb95d837c7ccea0f9137c7bcdca4cd71152aa6ca7bf16d399d261191bd7f919c5c7699d0fd0c6ad98d98eae7ee3f0f0fa1e9fc35d84410886343ffc79624765"},
    {256, "add2f992dacfe7e31e9fc9f0a0b7b2740e95691ac93f9888ed292517a5d2db501aa2383e8b1a3685a628a1f06456debac9dd0fd9a3603f12f285a238b2771f72"},
    {1000, "4b224da8bd3bfeeca3969a38269efce82ea8100d95a2b9c42e286203259c934dd2ac7ec381af4bc71013eed10ab5221d56691712a66f3f1ad2fb30c470b3da33"},
};

static void hex(char *out, const uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

int main(void) {
    uint64_t seed = t_seed("test_blake2b");
    g16_rng rng;
    g16_rng_seed(&rng, seed);
    uint8_t msg[1000], d[64];
    char h[129];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 7 + 1);
    for (size_t v = 0; v < sizeof vec / sizeof vec[0]; v++) {
        g16_blake2b s;
        g16_blake2b_init(&s, 64);
        g16_blake2b_update(&s, msg, vec[v].len);
        g16_blake2b_final(&s, d);
        hex(h, d, 64);
        CHECK_MSG(!strcmp(h, vec[v].hex), "len %zu: got %s want %s", vec[v].len, h, vec[v].hex);
        /* the same in random pieces */
        g16_blake2b_init(&s, 64);
        size_t pos = 0;
        while (pos < vec[v].len) {
            size_t take = (size_t)(g16_rng_next(&rng) % 200);
            if (take > vec[v].len - pos)
                take = vec[v].len - pos;
            g16_blake2b_update(&s, msg + pos, take);
            pos += take;
        }
        g16_blake2b_final(&s, d);
        hex(h, d, 64);
        CHECK_MSG(!strcmp(h, vec[v].hex), "len %zu in pieces: got %s", vec[v].len, h);
    }
    g16_blake2b s;
    g16_blake2b_init(&s, 32);
    g16_blake2b_update(&s, msg, 200);
    g16_blake2b_final(&s, d);
    hex(h, d, 32);
    CHECK_MSG(!strcmp(h, "68750259ede3be4895b7b2daee7657821d094106e8378ee645c1f10a4e205c4c"), "32-byte digest: got %s", h);
    return t_done("test_blake2b");
}
