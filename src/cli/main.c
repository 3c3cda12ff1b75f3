/* g16: command-line front end. */
#include <stdio.h>
#include <string.h>

#include "../../bench/bench_main.h"
#include "cli.h"
#include "g16.h"
#include "progress.h"

int main(int argc, char **argv) {
    cli_quiet_take(&argc, argv); /* --quiet / -q, any command (progress.h) */
    if (argc < 2) {
        fprintf(stderr, "usage: g16 <prove|verify|info|zkey|setup|synth|client|bench|selfcheck|options> ...\n");
        return 2;
    }
    /* Every option's environment variable is checked first (docs/config.md). */
    char emsg[512];
    if (g16_env_check(emsg, sizeof emsg) != G16_OK) {
        fprintf(stderr, "g16: %s\n", emsg);
        return 2;
    }
    if (!strcmp(argv[1], "options")) { /* the table and the effective values (JSON) */
        char *js = NULL;
        g16_ctx *ctx = g16_ctx_create(NULL);
        g16_err err = ctx ? g16_ctx_options_json(ctx, &js, 1) : G16_ERR_NOMEM;
        if (js)
            puts(js);
        g16_free(js);
        g16_ctx_destroy(ctx);
        return err == G16_OK ? 0 : 1;
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
