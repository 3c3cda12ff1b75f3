/* bellperson (Filecoin) files: g16 info for .params, .vk and .assignment;
 * g16 prove --params, g16 verify --params, g16 synth --assignment. */
#include <stdio.h>
#include <string.h>

#include "args.h"
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

/* g16 prove --params and g16 verify --params: their own option tables
 * (the getopt_long parser of args.h: --opt value and --opt=value). */
enum { PP_PARAMS = CLI_ID, PP_BACKEND, PP_NO_VERIFY, PP_SUBGROUP, PP_NO_SUBGROUP, PP_TEST_RS };
static const cli_opt PROVE_PARAMS_OPTS[] = {
    {"params", PP_PARAMS, "key.params", "the bellperson key (this form)"},
    {"backend", PP_BACKEND, "cpu|cuda|auto",
     "where to prove (default auto: the GPU from a domain of 2^17 when there is one, else the CPU)"},
    {"no-verify", PP_NO_VERIFY, NULL, "write the proof without checking it against the key's vk first"},
    {"subgroup-check", PP_SUBGROUP, NULL, "subgroup-check every point of the key (default: files up to 1 GiB)"},
    {"no-subgroup-check", PP_NO_SUBGROUP, NULL, "skip the subgroup checks of the key's points"},
    {"insecure-test-rs", PP_TEST_RS, "R S", "tests only: fixed blinding scalars r and s (NOT zero-knowledge)"},
    {NULL, 0, NULL, NULL},
};
static const cli_cmd CLI_PROVE_PARAMS = {
    .name = "prove",
    .summary = "Prove a bellperson partition against a .params key.",
    .synopsis = "--params <key.params> [OPTIONS] <part.assignment> <proof.bin> <public.json>",
    .description = "proof.bin is the 192-byte bellperson proof (A, B, C compressed); public.json the public "
                   "inputs after the constant one, as decimal strings (docs/formats.md).",
    .opts = PROVE_PARAMS_OPTS,
    .example = "g16 prove --params key.params part.assignment proof.bin public.json",
};
static const cli_opt VERIFY_PARAMS_OPTS[] = {
    {"params", PP_PARAMS, "key.vk|key.params", "the bellperson key (this form)"},
    {NULL, 0, NULL, NULL},
};
static const cli_cmd CLI_VERIFY_PARAMS = {
    .name = "verify",
    .summary = "Verify a bellperson proof against a .vk or .params key.",
    .synopsis = "--params <key.vk|key.params> <public.json> <proof.bin>",
    .description = "Exit 0 valid, 1 invalid, 2 error.",
    .opts = VERIFY_PARAMS_OPTS,
    .example = "g16 verify --params key.vk public.json proof.bin",
};

/* --help or -h anywhere before "--" (also right after --params, which
 * takes a value): the form's help. */
static int wants_help(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int cmd_prove_params(int argc, char **argv) {
    int verify = 1, subgroup = -1, fixed_rs = 0;
    const char *key_path = NULL;
    g16_backend backend = G16_BACKEND_AUTO;
    g16_fr_mont r, s;
    if (wants_help(argc, argv)) {
        cli_help(stdout, &CLI_PROVE_PARAMS);
        return 0;
    }
    cli_parse p;
    cli_init(&p, &CLI_PROVE_PARAMS, argc, argv, 0);
    int c;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case PP_PARAMS: key_path = p.arg; break;
        case PP_BACKEND:
            if (!strcmp(p.arg, "cpu"))
                backend = G16_BACKEND_CPU;
            else if (!strcmp(p.arg, "cuda"))
                backend = G16_BACKEND_CUDA;
            else if (!strcmp(p.arg, "auto"))
                backend = G16_BACKEND_AUTO;
            else
                return cli_usage_error(&CLI_PROVE_PARAMS, "unknown backend '%s' (cpu|cuda|auto)", p.arg);
            break;
        case PP_NO_VERIFY: verify = 0; break;
        case PP_SUBGROUP: subgroup = 1; break;
        case PP_NO_SUBGROUP: subgroup = 0; break;
        case PP_TEST_RS: { /* tests only: deterministic, NOT zero-knowledge proofs */
            const char *rv = p.arg, *sv = cli_next_value(&p);
            if (!sv)
                return 2;
            if (g16_fr_mont_from_dec(&r, rv) || g16_fr_mont_from_dec(&s, sv))
                return cli_usage_error(&CLI_PROVE_PARAMS, "--insecure-test-rs takes two decimal integers below r");
            fixed_rs = 1;
            break;
        }
        }
    }
    if (c != CLI_END)
        return cli_exit(c);
    if (!key_path || argc - p.optind != 3)
        return cli_usage_error(&CLI_PROVE_PARAMS, "expected --params <key.params> <part.assignment> <proof.bin> "
                                                  "<public.json>");
    const char *pos[3] = {argv[p.optind], argv[p.optind + 1], argv[p.optind + 2]};
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

int cmd_verify_params(int argc, char **argv) {
    if (wants_help(argc, argv)) {
        cli_help(stdout, &CLI_VERIFY_PARAMS);
        return 0;
    }
    cli_parse p;
    cli_init(&p, &CLI_VERIFY_PARAMS, argc, argv, 0);
    int c;
    const char *key_path = NULL;
    while ((c = cli_next(&p)) > 0)
        if (c == PP_PARAMS)
            key_path = p.arg;
    if (c != CLI_END)
        return cli_exit(c);
    if (!key_path || argc - p.optind != 2)
        return cli_usage_error(&CLI_VERIFY_PARAMS, "expected --params <key.vk|key.params> <public.json> <proof.bin>");
    char **v = argv + p.optind;
    g16_status st = {0};
    g16_err e = g16_params_verify_files(key_path, v[0], v[1], &st);
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
