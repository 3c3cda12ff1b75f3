/* g16 synth: write a synthetic circuit and satisfying witnesses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "groth16/synth.h"

int cmd_synth(int argc, char **argv) {
    const char *asg_path = NULL, *r1cs_in = NULL, *wtns_in = NULL;
    synth_opts o = {.curve = G16_CURVE_BN254, .log_n = 10, .profile = SYNTH_DENSE, .partitions = 1, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "g16 synth: option %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--curve")) {
            if (g16_curve_from_name(&o.curve, v) != G16_OK) {
                fprintf(stderr, "g16 synth: unknown curve '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--log-n")) {
            o.log_n = atoi(v);
        } else if (!strcmp(a, "--profile")) {
            if (synth_profile_from_name(&o.profile, v) != G16_OK) {
                fprintf(stderr, "g16 synth: unknown profile '%s' (dense, filecoin, sparse-b)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--partitions")) {
            o.partitions = atoi(v);
        } else if (!strcmp(a, "--seed")) {
            o.seed = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--out")) {
            o.r1cs_path = v;
        } else if (!strcmp(a, "--witness")) {
            o.wtns_path = v;
        } else if (!strcmp(a, "--assignment")) {
            asg_path = v;
        } else if (!strcmp(a, "--r1cs")) {
            r1cs_in = v;
        } else if (!strcmp(a, "--wtns")) {
            wtns_in = v;
        } else {
            fprintf(stderr, "g16 synth: unknown option '%s'\n", a);
            return 2;
        }
        i++;
    }
    /* A bellperson partition of an existing circuit and witness (cmd_params.c). */
    if (r1cs_in || wtns_in) {
        if (!r1cs_in || !wtns_in || !asg_path || o.r1cs_path || o.wtns_path) {
            fprintf(stderr, "usage: g16 synth --r1cs circuit.r1cs --wtns witness.wtns --assignment part.assignment\n");
            return 2;
        }
        return cmd_synth_assignment(r1cs_in, wtns_in, asg_path, 0);
    }
    if (!o.r1cs_path || !o.wtns_path) {
        fprintf(stderr, "usage: g16 synth --curve C --log-n K --profile dense|filecoin|sparse-b\n"
                        "                 --out circuit.r1cs --witness out.wtns [--assignment part.assignment]\n"
                        "                 [--partitions N] [--seed S]\n"
                        "       g16 synth --r1cs circuit.r1cs --wtns witness.wtns --assignment part.assignment\n");
        return 2;
    }
    if (asg_path && o.curve != G16_CURVE_BLS12_381) {
        fprintf(stderr, "g16 synth: --assignment needs --curve bls12-381 (bellperson partitions)\n");
        return 2;
    }
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
    if (synth_generate(&o, &s, &st) != G16_OK) {
        fprintf(stderr, "g16 synth: %s\n", st.msg);
        return 2;
    }
    printf("{\"constraints\":%u,\"wires\":%u,\"public\":%u,\"a_terms\":%llu,\"b_terms\":%llu,"
           "\"c_terms\":%llu,\"a_wire_density\":%.4f,\"b_wire_density\":%.4f,\"zero_one_fraction\":%.4f}\n",
           s.n_constraints, s.n_wires, s.n_public, (unsigned long long)s.a_terms,
           (unsigned long long)s.b_terms, (unsigned long long)s.c_terms, s.a_wire_density,
           s.b_wire_density, s.zero_one_fraction);
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
