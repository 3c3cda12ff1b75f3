/* bellperson (Filecoin) files: g16 info for .params, .vk and .assignment;
 * g16 prove --params, g16 verify --params, g16 synth --assignment. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "groth16/assignment.h"
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

/* ---- bellperson partitions: g16 info x.assignment, prove/verify --params ---- */
int cmd_info_is_assignment(const char *path) {
    size_t n = strlen(path);
    return n > 11 && !strcmp(path + n - 11, ".assignment");
}

int cmd_info_assignment(const char *path) {
    g16_assignment_file f;
    g16_status st = {0};
    if (g16_assignment_read(&f, path, &st) != G16_OK) {
        fprintf(stderr, "g16 info: %s (%s)\n", st.msg, g16_err_str(st.code));
        return 2;
    }
    const g16_assignment *a = &f.a;
    printf("file: %s\ntype: bellperson partition assignment (BLS12-381)\nsize: %zu bytes\n", path, f.len);
    printf("rows (abc_size): %zu\ninputs: %zu (the constant one included)\naux: %zu\n", a->abc_size,
           a->inp_assignment_size, a->aux_assignment_size);
    printf("a_aux density: %zu of %zu set\nb_inp density: %zu of %zu set\nb_aux density: %zu of %zu set\n",
           a->a_aux_popcount, a->a_aux_bit_len, a->b_inp_popcount, a->b_inp_bit_len, a->b_aux_popcount,
           a->b_aux_bit_len);
    size_t d = 1;
    while (d < a->abc_size)
        d *= 2;
    printf("domain: %zu (the smallest power of two >= rows)\n", d);
    g16_assignment_file_free(&f);
    return 0;
}

/* g16 prove --params key.params [--no-verify] [--subgroup-check|--no-subgroup-check]
 *           part.assignment proof.bin public.json */
int cmd_prove_params(int argc, char **argv) {
    const char *key_path = NULL, *pos[3];
    int npos = 0, verify = 1, subgroup = -1, fixed_rs = 0;
    g16_backend backend = G16_BACKEND_AUTO;
    g16_fr_mont r, s;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--params")) {
            if (i + 1 == argc) {
                key_path = NULL;
                break;
            }
            key_path = argv[++i];
        }
        else if (!strcmp(argv[i], "--no-verify"))
            verify = 0;
        else if (!strcmp(argv[i], "--insecure-test-rs") && i + 2 < argc) {
            /* Tests only: deterministic, NOT zero-knowledge proofs. */
            if (g16_fr_mont_from_dec(&r, argv[i + 1]) || g16_fr_mont_from_dec(&s, argv[i + 2])) {
                fprintf(stderr, "g16 prove: --insecure-test-rs takes two decimal integers below r\n");
                return 2;
            }
            fixed_rs = 1;
            i += 2;
        } else if (!strcmp(argv[i], "--subgroup-check"))
            subgroup = 1;
        else if (!strcmp(argv[i], "--no-subgroup-check"))
            subgroup = 0;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "cpu"))
                backend = G16_BACKEND_CPU;
            else if (!strcmp(argv[i], "cuda"))
                backend = G16_BACKEND_CUDA;
            else if (!strcmp(argv[i], "auto"))
                backend = G16_BACKEND_AUTO;
            else {
                fprintf(stderr, "g16 prove --params: unknown backend '%s' (cpu|cuda|auto)\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "g16 prove: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (npos < 3)
            pos[npos++] = argv[i];
        else
            npos = 4;
    }
    if (!key_path || npos != 3) {
        fprintf(stderr, "usage: g16 prove --params <key.params> [--no-verify] [--backend cpu|cuda|auto]\n"
                        "                 [--subgroup-check|--no-subgroup-check] [--insecure-test-rs R S]\n"
                        "                 <part.assignment> <proof.bin> <public.json>\n");
        return 2;
    }
    if (!g16_cli_outputs_ok("prove", (const char *[]){key_path, pos[0]}, 2, (const char *[]){pos[1], pos[2]}, 2))
        return 2;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx) {
        fprintf(stderr, "g16 prove: cannot create a context\n");
        return 2;
    }
    g16_params_key *key = NULL;
    g16_status st = {0};
    int rc = 2;
    if (g16_params_key_load(ctx, &key, key_path, subgroup) != G16_OK) {
        char msg[512];
        g16_err e = g16_ctx_last_error(ctx, msg, sizeof msg);
        fprintf(stderr, "g16 prove: %s (%s)\n", msg, g16_err_str(e));
        goto out;
    }
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    o.backend = backend;
    o.verify = verify;
    if (fixed_rs)
        o.r = &r, o.s = &s;
    g16_err e = g16_params_prove_file(ctx, key, pos[0], pos[1], pos[2], &o, &st);
    if (e) {
        fprintf(stderr, "g16 prove: %s (%s)\n", st.msg, g16_err_str(e));
        goto out;
    }
    rc = 0;
out:
    g16_params_key_free(key);
    g16_ctx_destroy(ctx);
    return rc;
}

/* g16 verify --params key.vk|key.params public.json proof.bin */
int cmd_verify_params(int argc, char **argv) {
    if (argc != 5 || strcmp(argv[1], "--params")) {
        fprintf(stderr, "usage: g16 verify --params <key.vk|key.params> <public.json> <proof.bin>\n");
        return 2;
    }
    g16_status st = {0};
    g16_err e = g16_params_verify_files(argv[2], argv[3], argv[4], &st);
    if (e == G16_OK) {
        printf("OK: proof is valid\n");
        return 0;
    }
    if (e == G16_ERR_INVALID_PROOF) {
        printf("INVALID: proof does not verify\n");
        return 1;
    }
    fprintf(stderr, "g16 verify: %s (%s)\n", st.msg, g16_err_str(e));
    return 2;
}

/* g16 synth --r1cs c.r1cs --wtns w.wtns --assignment part.assignment */
int cmd_synth_assignment(const char *r1cs, const char *wtns, const char *out, int quiet) {
    if (!g16_cli_outputs_ok("synth", (const char *[]){r1cs, wtns}, 2, (const char *[]){out}, 1))
        return 2;
    g16_assignment_file f;
    g16_status st = {0};
    if (g16_assignment_from_r1cs(&f, r1cs, wtns, &st) != G16_OK ||
        g16_assignment_write(out, &f.a, &st) != G16_OK) {
        g16_assignment_file_free(&f);
        fprintf(stderr, "g16 synth: %s (%s)\n", st.msg, g16_err_str(st.code));
        return 2;
    }
    if (!quiet)
        printf("{\"assignment\":\"%s\",\"rows\":%zu,\"inputs\":%zu,\"aux\":%zu,\"a_aux_popcount\":%zu,"
           "\"b_inp_popcount\":%zu,\"b_aux_popcount\":%zu}\n",
           out, f.a.abc_size, f.a.inp_assignment_size, f.a.aux_assignment_size, f.a.a_aux_popcount,
           f.a.b_inp_popcount, f.a.b_aux_popcount);
    g16_assignment_file_free(&f);
    return 0;
}
