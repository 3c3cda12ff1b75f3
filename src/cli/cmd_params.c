/* g16 info for bellperson keys (.params, .vk): layout, counts and the vk digest. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "groth16/params.h"

int cmd_info_is_params(const char *path) {
    size_t n = strlen(path);
    return (n > 7 && !strcmp(path + n - 7, ".params")) || (n > 3 && !strcmp(path + n - 3, ".vk"));
}

/* Decodes the vk and ic fully (subgroup included) and checks the layout of
 * the other arrays without decoding them, so that multi-GiB keys are
 * described in milliseconds. */
int cmd_info_params(const char *path) {
    g16_params p;
    g16_status st = {0};
    size_t n = strlen(path);
    g16_params_opts o = {.kind = n > 3 && !strcmp(path + n - 3, ".vk") ? G16_PARAMS_KIND_VK : G16_PARAMS_KIND_FULL,
                         .subgroup = 1,
                         .vk_only = 1};
    if (g16_params_load(&p, path, &o, NULL, &st) != G16_OK) {
        fprintf(stderr, "g16 info: %s (%s)\n", st.msg, g16_err_str(st.code));
        return 2;
    }
    printf("file: %s\ntype: bellperson %s (BLS12-381)\nsize: %llu bytes\n", path,
           p.is_vk_file ? "verifying key (.vk)" : "parameters (.params)", (unsigned long long)p.file_len);
    printf("vk: %llu bytes, blake2b-256 ", (unsigned long long)p.vk_len);
    for (size_t i = 0; i < sizeof p.vk_digest; i++)
        printf("%02x", p.vk_digest[i]);
    printf("\n");
    int last = p.is_vk_file ? G16_PARAMS_IC : G16_PARAMS_B_G2;
    for (int a = 0; a <= last; a++) {
        unsigned psz = a == G16_PARAMS_B_G2 ? G16_PARAMS_G2_SIZE : G16_PARAMS_G1_SIZE;
        printf("%s: %u points (%llu bytes at offset %llu)\n", g16_params_array_name(a), p.n[a],
               (unsigned long long)p.n[a] * psz, (unsigned long long)p.off[a]);
    }
    printf("public inputs: %u (ic - 1)\n", p.n[G16_PARAMS_IC] - 1);
    if (!p.is_vk_file)
        printf("private variables: %u (l)\ndomain: %llu (h + 1)\n", p.n[G16_PARAMS_L],
               (unsigned long long)p.n[G16_PARAMS_H] + 1);
    printf("checked: vk and ic points decoded and subgroup-checked%s\n",
           p.is_vk_file ? "" : "; h, l, a, b_g1, b_g2 layout only");
    g16_params_free(&p);
    return 0;
}
