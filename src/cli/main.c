/* g16: command-line front end. */
#include <stdio.h>
#include <string.h>

#include "../../bench/bench.h"
#include "cli.h"
#include "g16.h"
#include "util/file.h"
#include "util/util.h"

double g16_cli_now_ms(void) { return g16_now_ms(); }

int g16_cli_outputs_ok(const char *cmd, const char *const *inputs, size_t n_inputs, const char *const *outputs,
                       size_t n_outputs) {
    g16_status st = {0};
    if (g16_check_outputs(inputs, n_inputs, outputs, n_outputs, &st) == G16_OK)
        return 1;
    fprintf(stderr, "g16 %s: %s; refusing to overwrite it\n", cmd, st.msg);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: g16 <prove|verify|info|zkey|setup|synth|client|bench|selfcheck> ...\n");
        return 2;
    }
    if (!strcmp(argv[1], "selfcheck")) {
        g16_ctx *ctx = g16_ctx_create(NULL);
        char buf[2048];
        g16_err err = g16_selfcheck(ctx, buf, sizeof buf);
        fputs(buf, stdout);
        g16_ctx_destroy(ctx);
        return err == G16_OK ? 0 : 1;
    }
    if (!strcmp(argv[1], "prove"))
        return cmd_prove(argc - 1, argv + 1);
    if (!strcmp(argv[1], "verify"))
        return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(argv[1], "zkey"))
        return cmd_zkey(argc - 1, argv + 1);
    if (!strcmp(argv[1], "info"))
        return cmd_info(argc - 1, argv + 1);
    if (!strcmp(argv[1], "setup"))
        return cmd_setup(argc - 1, argv + 1);
    if (!strcmp(argv[1], "synth"))
        return cmd_synth(argc - 1, argv + 1);
    if (!strcmp(argv[1], "client")) {
#ifdef G16_HAVE_CLIENT
        return cmd_client(argc - 1, argv + 1);
#else
        fputs("g16 client: this build has no daemon support\n", stderr);
        return 2;
#endif
    }
    if (!strcmp(argv[1], "bench"))
        return bench_main(argc - 1, argv + 1);
    fprintf(stderr, "g16: unknown command '%s'\n", argv[1]);
    return 2;
}
