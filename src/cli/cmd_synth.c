/* g16 synth: write a synthetic circuit and satisfying witnesses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "groth16/synth.h"

int cmd_synth(int argc, char **argv) {
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
        } else {
            fprintf(stderr, "g16 synth: unknown option '%s'\n", a);
            return 2;
        }
        i++;
    }
    if (!o.r1cs_path || !o.wtns_path) {
        fprintf(stderr, "usage: g16 synth --curve C --log-n K --profile dense|filecoin|sparse-b\n"
                        "                 --out circuit.r1cs --witness out.wtns [--partitions N] [--seed S]\n");
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
    o.progress = cli_progress;
    cli_progress_begin("g16 synth");
    g16_err err = synth_generate(&o, &s, &st);
    cli_progress_end();
    if (err != G16_OK) {
        fprintf(stderr, "g16 synth: %s\n", st.msg);
        return 2;
    }
    printf("{\"constraints\":%u,\"wires\":%u,\"public\":%u,\"a_terms\":%llu,\"b_terms\":%llu,"
           "\"c_terms\":%llu,\"a_wire_density\":%.4f,\"b_wire_density\":%.4f,\"zero_one_fraction\":%.4f}\n",
           s.n_constraints, s.n_wires, s.n_public, (unsigned long long)s.a_terms,
           (unsigned long long)s.b_terms, (unsigned long long)s.c_terms, s.a_wire_density,
           s.b_wire_density, s.zero_one_fraction);
    return 0;
}
