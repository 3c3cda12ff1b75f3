/* g16 zkey export solidityverifier | soliditycalldata: snarkjs 0.7's commands
 * with its arguments and defaults, and its output byte for byte. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char sol_usage[] =
    "usage: g16 zkey export solidityverifier [circuit_final.zkey] [verifier.sol]\n"
    "       g16 zkey export soliditycalldata [public.json] [proof.json]\n"
    "       g16 zkey export verificationkey [circuit_final.zkey] [verification_key.json]\n"
    "  solidityverifier writes snarkjs's Groth16Verifier contract for the key (a .zkey,\n"
    "  or a verification_key.json); soliditycalldata prints the verifyProof arguments\n"
    "  for a proof; verificationkey is g16 zkey export-vk. Defaults are snarkjs's file\n"
    "  names; -v/--verbose is accepted (snarkjs's).\n"
    "  example: g16 zkey export solidityverifier circuit.zkey verifier.sol\n";

static void print_error(g16_ctx *ctx, const char *cmd) {
    char msg[512];
    g16_err e = g16_ctx_last_error(ctx, msg, sizeof msg);
    fprintf(stderr, "g16 zkey export %s: %s (%s)\n", cmd, msg[0] ? msg : g16_err_str(e), g16_err_str(e));
}

static int export_verifier(const char *in, const char *out) {
    if (!g16_cli_outputs_ok("zkey export solidityverifier", (const char *[]){in}, 1, (const char *[]){out}, 1))
        return 2;
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    g16_curve curve = G16_CURVE_BN254;
    uint32_t npub = 1;
    int rc = 2;
    if (g16_export_solidity_verifier_file(ctx, NULL, &curve, &npub, in, out) != G16_OK) {
        print_error(ctx, "solidityverifier");
    } else {
        rc = 0;
        if (curve != G16_CURVE_BN254)
            fprintf(stderr,
                    "g16 zkey export solidityverifier: warning: %s is a %s key; the contract (snarkjs's, "
                    "for BN254's EVM precompiles) holds its numbers as snarkjs writes them, which do not "
                    "fit uint256: it will not compile\n",
                    in, g16_curve_name(curve));
        if (npub == 0)
            fprintf(stderr,
                    "g16 zkey export solidityverifier: warning: %s has no public inputs; the contract "
                    "(snarkjs's) declares uint[0] _pubSignals, which solc rejects\n",
                    in);
    }
    g16_ctx_destroy(ctx);
    return rc;
}

static int export_calldata(const char *pub, const char *proof) {
    g16_ctx *ctx = g16_ctx_create(NULL);
    if (!ctx)
        return 2;
    char *cd = NULL;
    int rc = 2;
    if (g16_export_solidity_calldata_files(ctx, &cd, pub, proof) != G16_OK)
        print_error(ctx, "soliditycalldata");
    else if (printf("%s\n", cd) < 0 || fflush(stdout) != 0)
        fprintf(stderr, "g16 zkey export soliditycalldata: writing to stdout failed\n");
    else
        rc = 0;
    g16_free(cd);
    g16_ctx_destroy(ctx);
    return rc;
}

int cmd_zkey_export(int argc, char **argv) {
    const char *what = argc >= 2 ? argv[1] : "";
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        fputs(sol_usage, stdout);
        return 0;
    }
    if (strcmp(what, "solidityverifier") != 0 && strcmp(what, "soliditycalldata") != 0) {
        fprintf(stderr, "%s", sol_usage);
        return 2;
    }
    /* --verbose is snarkjs's logging switch: accepted, nothing to log */
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"verbose", no_argument, NULL, 'v'}, {NULL, 0, NULL, 0}};
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1; /* from the subcommand's name */
    optind = 0;                 /* (glibc) a fresh scan */
    opterr = 0;
    int c;
    while ((c = getopt_long(sub_argc, sub_argv, "hv", opts, NULL)) != -1) {
        if (c == 'v')
            continue;
        if (c == 'h') {
            fputs(sol_usage, stdout);
            return 0;
        }
        fprintf(stderr, "g16 zkey export %s: unknown option '%s'\n%s", what, sub_argv[optind - 1], sol_usage);
        return 2;
    }
    if (sub_argc - optind > 2) {
        fprintf(stderr, "g16 zkey export %s: too many arguments\n%s", what, sol_usage);
        return 2;
    }
    const char *a = optind < sub_argc ? sub_argv[optind] : NULL;
    const char *b = optind + 1 < sub_argc ? sub_argv[optind + 1] : NULL;
    if (!strcmp(what, "solidityverifier"))
        return export_verifier(a ? a : "circuit_final.zkey", b ? b : "verifier.sol");
    return export_calldata(a ? a : "public.json", b ? b : "proof.json");
}
