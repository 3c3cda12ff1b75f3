/* g16 synth: write a synthetic circuit and satisfying witnesses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "progress.h"
#include "groth16/synth.h"

enum { Y_CURVE = CLI_ID, Y_LOG_N, Y_PROFILE, Y_PARTITIONS, Y_SEED, Y_OUT, Y_WITNESS, Y_ASSIGNMENT, Y_R1CS, Y_WTNS };
static const cli_opt SYNTH_OPTS[] = {
    {"curve", Y_CURVE, "bn254|bls12-381", "the curve (default bn254)"},
    {"log-n", Y_LOG_N, "K", "2^K constraints (default 10)"},
    {"profile", Y_PROFILE, "dense|filecoin|sparse-b|porep", "the shape of the rows and the witness (default dense)"},
    {"partitions", Y_PARTITIONS, "N", "write N witnesses (out.0.wtns ... when N > 1; default 1)"},
    {"seed", Y_SEED, "S", "the seed of the random circuit (default 1)"},
    {"out", Y_OUT, "FILE", "required: the circuit (.r1cs)"},
    {"witness", Y_WITNESS, "FILE", "required: the witness (.wtns)"},
    {"assignment", Y_ASSIGNMENT, "FILE", "also write each witness as a bellperson partition (.assignment; "
                                         "BLS12-381), or with --r1cs and --wtns that of an existing circuit"},
    {"r1cs", Y_R1CS, "FILE", "an existing circuit (with --wtns and --assignment, instead of --out)"},
    {"wtns", Y_WTNS, "FILE", "its witness"},
    {NULL, 0, NULL, NULL},
};
const cli_cmd CLI_SYNTH = {
    .name = "synth",
    .summary = "Write a synthetic circuit (.r1cs) and witnesses that satisfy it, for tests and benchmarks.",
    .synopsis = "--out circuit.r1cs --witness out.wtns [OPTIONS] | --r1cs c.r1cs --wtns w.wtns --assignment p.assignment",
    .description = "Prints the circuit's statistics as one JSON line.",
    .opts = SYNTH_OPTS,
    .example = "g16 synth --curve bls12-381 --log-n 12 --profile filecoin --out c.r1cs --witness w.wtns",
};

int cmd_synth(int argc, char **argv) {
    const char *asg_path = NULL, *r1cs_in = NULL, *wtns_in = NULL;
    synth_opts o = {.curve = G16_CURVE_BN254, .log_n = 10, .profile = SYNTH_DENSE, .partitions = 1, .seed = 1};
    cli_parse p;
    cli_init(&p, &CLI_SYNTH, argc, argv, 0);
    int c;
    long long v;
    unsigned long long u;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case Y_CURVE:
            if (g16_curve_from_name(&o.curve, p.arg) != G16_OK)
                return cli_usage_error(&CLI_SYNTH, "unknown curve '%s' (bn254, bls12-381)", p.arg);
            break;
        case Y_LOG_N:
            if (!cli_int(&p, 0, 40, &v))
                return 2;
            o.log_n = (int)v;
            break;
        case Y_PROFILE:
            if (synth_profile_from_name(&o.profile, p.arg) != G16_OK)
                return cli_usage_error(&CLI_SYNTH, "unknown profile '%s' (dense, filecoin, sparse-b, porep)", p.arg);
            break;
        case Y_PARTITIONS:
            if (!cli_int(&p, 0, 1 << 20, &v))
                return 2;
            o.partitions = (int)v;
            break;
        case Y_SEED:
            if (!cli_u64(&p, &u))
                return 2;
            o.seed = u;
            break;
        case Y_OUT: o.r1cs_path = p.arg; break;
        case Y_WITNESS: o.wtns_path = p.arg; break;
        case Y_ASSIGNMENT: asg_path = p.arg; break;
        case Y_R1CS: r1cs_in = p.arg; break;
        case Y_WTNS: wtns_in = p.arg; break;
        }
    }
    if (c != CLI_END)
        return cli_exit(c);
    if (p.optind < argc)
        return cli_usage_error(&CLI_SYNTH, "takes no operands ('%s'); the files are --out and --witness",
                               argv[p.optind]);
    /* A bellperson partition of an existing circuit and witness (cmd_params.c). */
    if (r1cs_in || wtns_in) {
        if (!r1cs_in || !wtns_in || !asg_path || o.r1cs_path || o.wtns_path)
            return cli_usage_error(&CLI_SYNTH, "--r1cs and --wtns go together, with --assignment, and "
                                               "without --out and --witness");
        return cmd_synth_assignment(r1cs_in, wtns_in, asg_path, 0);
    }
    if (!o.r1cs_path || !o.wtns_path) {
        cli_usage(stderr, &CLI_SYNTH);
        return cli_usage_error(&CLI_SYNTH, "needs --out and --witness (or --r1cs, --wtns and --assignment)");
    }
    if (asg_path && o.curve != G16_CURVE_BLS12_381)
        return cli_usage_error(&CLI_SYNTH, "--assignment needs --curve bls12-381 (bellperson partitions)");
    {
        const char *outs[1 + 64] = {o.r1cs_path};
        char paths[64][4096];
        int np = o.partitions < 1 ? 1 : o.partitions > 64 ? 64 : o.partitions; /* the first 64 suffice: the names differ by index */
        for (int p = 0; p < np; p++) {
            synth_wtns_path(paths[p], sizeof paths[p], o.wtns_path, o.partitions, p);
            outs[1 + p] = paths[p];
        }
        if (!g16_cli_outputs_ok("synth", NULL, 0, outs, 1 + (size_t)np))
            return 2;
    }
    g16_status st = {0};
    synth_stats s;
    o.progress = cli_progress;
    cli_progress_begin("g16 synth");
    g16_err err = synth_generate(&o, &s, &st);
    cli_progress_end();
    if (err != G16_OK) {
        fprintf(stderr, "g16 synth: %s\n", st.msg);
        return 2;
    }
    printf("{\"constraints\":%u,\"wires\":%u,\"public\":%u,\"a_terms\":%llu,\"b_terms\":%llu,"
           "\"c_terms\":%llu,\"a_wire_density\":%.4f,\"b_wire_density\":%.4f,\"zero_one_fraction\":%.4f,"
           "\"a_aux_density\":%.4f,\"b_aux_density\":%.4f,\"aux_zero_one_fraction\":%.4f}\n",
           s.n_constraints, s.n_wires, s.n_public, (unsigned long long)s.a_terms,
           (unsigned long long)s.b_terms, (unsigned long long)s.c_terms, s.a_wire_density,
           s.b_wire_density, s.zero_one_fraction, s.a_aux_density, s.b_aux_density, s.aux_zero_one_fraction);
    /* each partition's witness as a bellperson assignment, named as the witnesses are */
    for (int p = 0; asg_path && p < (o.partitions < 1 ? 1 : o.partitions); p++) {
        char wp[4096], ap[4096];
        synth_wtns_path(wp, sizeof wp, o.wtns_path, o.partitions, p);
        synth_wtns_path(ap, sizeof ap, asg_path, o.partitions, p);
        int rc = cmd_synth_assignment(o.r1cs_path, wp, ap, 1);
        if (rc)
            return rc;
    }
    return 0;
}
