/* The options table (src/util/config.h) and its public face (g16.h
 * "options"): defaults, every row's bounds, the environment and its errors,
 * the JSON dump, the context API, and docs/config.md against the table.
 * `test_config --doc` prints the table as docs/config.md holds it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16.h"
#include "gpu/msm_plan.h"
#include "testutil.h"
#include "util/config.h"

/* The markdown table docs/config.md holds between its BEGIN/END markers. */
static char *doc_table(void) {
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "| key | environment | type | values | default | class | meaning |\n"
                            "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < g16_option_count(); i++) {
        g16_option_info in;
        if (g16_option_get_info(&in, i) != G16_OK)
            continue;
        const g16_opt_row *r = g16_opt_row_by_id((g16_opt_id)i);
        len += (size_t)snprintf(s + len, cap - len, "| `%s` | `%s` | %s | %s | %s | %s | %s |\n", in.name, in.env,
                                in.type, in.range[0] ? in.range : "text", in.default_value[0] ? in.default_value : "\"\"",
                                g16_opt_class_name(r->cls), in.doc);
    }
    return s;
}

static void expect_err(g16_config *c, const g16_opt_row *r, const char *text, const char *want) {
    g16_config before;
    memcpy(&before, c, sizeof before);
    g16_status st = {0};
    g16_err e = g16_config_set_row(c, r, text, G16_SRC_FLAG, &st);
    CHECK_MSG(e == G16_ERR_INVALID_ARG, "%s = '%s' accepted", r->key, text);
    CHECK_MSG(!strncmp(st.msg, r->key, strlen(r->key)) && st.msg[strlen(r->key)] == ':',
              "%s = '%s': message '%s' does not start with the key", r->key, text, st.msg);
    CHECK_MSG(!want || strstr(st.msg, want), "%s = '%s': message '%s' lacks '%s'", r->key, text, st.msg, want);
    CHECK_MSG(!memcmp(&before, c, sizeof before), "%s = '%s': a refused value changed the config", r->key, text);
}

static void expect_ok(g16_config *c, const g16_opt_row *r, const char *text, int64_t want) {
    g16_status st = {0};
    g16_err e = g16_config_set_row(c, r, text, G16_SRC_FLAG, &st);
    CHECK_MSG(e == G16_OK, "%s = '%s' refused: %s", r->key, text, st.msg);
    CHECK_MSG(e || r->type == G16_OPT_STRING || c->num[r->id] == want, "%s = '%s': %lld, want %lld", r->key, text,
              (long long)c->num[r->id], (long long)want);
    CHECK(e || g16_config_source(c, r->id) == G16_SRC_FLAG);
}

static void defaults_and_bounds(void) {
    g16_config c;
    g16_config_init(&c);
    const g16_opt_row *rows = g16_opt_rows();
    for (int i = 0; i < G16_OPT_COUNT; i++) {
        const g16_opt_row *r = &rows[i];
        CHECK_MSG(r->id == (g16_opt_id)i && g16_opt_row_by_id(r->id) == r, "row %d: id %d", i, (int)r->id);
        CHECK(g16_opt_find(r->key) == r && g16_opt_find_env(r->env) == r);
        CHECK(r->doc && r->doc[0] && strchr(r->key, '.'));
        CHECK(g16_config_source(&c, r->id) == G16_SRC_DEFAULT);
        CHECK(g16_config_int(&c, r->id) == (r->type == G16_OPT_STRING ? 0 : r->def));
        CHECK(g16_config_int(NULL, r->id) == (r->type == G16_OPT_STRING ? 0 : r->def));
        for (int j = 0; j < i; j++)
            CHECK_MSG(strcmp(rows[j].key, r->key) && strcmp(rows[j].env, r->env), "row %d duplicates row %d", i, j);
        char buf[64];
        if (r->type != G16_OPT_STRING)
            expect_err(&c, r, "", "empty value");
        if (r->type == G16_OPT_STRING) { /* "" is a value; only the length is bounded */
            g16_status st = {0};
            CHECK(g16_config_set_row(&c, r, "", G16_SRC_FLAG, &st) == G16_OK && !*g16_config_str(&c, r->id));
            char *big = malloc(G16_OPT_STR_MAX + 1);
            memset(big, 'x', G16_OPT_STR_MAX);
            big[G16_OPT_STR_MAX] = 0;
            expect_err(&c, r, big, "longer than");
            big[G16_OPT_STR_MAX - 1] = 0;
            expect_ok(&c, r, big, 0);
            CHECK(strlen(g16_config_str(&c, r->id)) == G16_OPT_STR_MAX - 1);
            free(big);
            expect_ok(&c, r, "http://h:1", 0);
            CHECK(!strcmp(g16_config_str(&c, r->id), "http://h:1"));
            continue;
        }
        expect_err(&c, r, "garbage", NULL);
        expect_err(&c, r, "12x", NULL);
        expect_err(&c, r, " 1", NULL);
        switch (r->type) {
        case G16_OPT_BOOL: {
            const char *on[] = {"1", "true", "on", "yes", "TRUE", "Yes"}, *off[] = {"0", "false", "off", "no", "OFF"};
            for (size_t k = 0; k < sizeof on / sizeof on[0]; k++)
                expect_ok(&c, r, on[k], 1);
            for (size_t k = 0; k < sizeof off / sizeof off[0]; k++)
                expect_ok(&c, r, off[k], 0);
            expect_err(&c, r, "2", "not a boolean");
            expect_err(&c, r, "-1", "not a boolean");
            break;
        }
        case G16_OPT_INT:
            snprintf(buf, sizeof buf, "%lld", (long long)r->min);
            expect_ok(&c, r, buf, r->min);
            snprintf(buf, sizeof buf, "%lld", (long long)r->max);
            expect_ok(&c, r, buf, r->max);
            snprintf(buf, sizeof buf, "%lld", (long long)r->max + 1);
            expect_err(&c, r, buf, "out of range");
            snprintf(buf, sizeof buf, "%lld", (long long)r->min - 1);
            expect_err(&c, r, buf, "out of range");
            expect_err(&c, r, "99999999999999999999999", "not an integer");
            if (r->min_nonzero > 1) {
                snprintf(buf, sizeof buf, "%lld", (long long)r->min_nonzero - 1);
                expect_err(&c, r, buf, "out of range: 0 or [");
                snprintf(buf, sizeof buf, "%lld", (long long)r->min_nonzero);
                expect_ok(&c, r, buf, r->min_nonzero);
                expect_ok(&c, r, "0", 0);
            }
            snprintf(buf, sizeof buf, "%lld", (long long)r->def);
            expect_ok(&c, r, buf, r->def);
            break;
        case G16_OPT_UINT64:
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->min);
            expect_ok(&c, r, buf, r->min);
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->max);
            expect_ok(&c, r, buf, r->max);
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)r->max);
            expect_ok(&c, r, buf, r->max);
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->max + 1);
            expect_err(&c, r, buf, "out of range");
            expect_err(&c, r, "-1", "not an unsigned integer");
            expect_err(&c, r, "99999999999999999999999", "not an unsigned integer");
            break;
        case G16_OPT_ENUM:
            CHECK(r->n_enum >= 2 && r->n_enum <= G16_OPT_ENUM_MAX);
            for (int k = 0; k < r->n_enum; k++) {
                expect_ok(&c, r, r->names[k].name, r->names[k].value);
                g16_config_format(&c, r, buf, sizeof buf);
                CHECK(!strcmp(buf, r->names[k].name));
                snprintf(buf, sizeof buf, "%lld", (long long)r->names[k].value);
                expect_ok(&c, r, buf, r->names[k].value);
            }
            expect_err(&c, r, "7777", "is not one of");
            break;
        default: CHECK(0);
        }
    }
    /* The example of the brief, word for word. */
    g16_status st = {0};
    g16_config_init(&c);
    CHECK(g16_config_set(&c, "gpu.msm_window_bits", "40", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    CHECK_MSG(!strcmp(st.msg, "gpu.msm_window_bits: 40 is out of range: 0 or [4, 22]"), "'%s'", st.msg);
    CHECK(g16_config_set(&c, "gpu.no_such", "1", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG &&
          strstr(st.msg, "unknown option 'gpu.no_such'"));
    CHECK(g16_config_set_row(&c, NULL, "1", G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    CHECK(g16_config_set_row(&c, g16_opt_find("engine.pin"), NULL, G16_SRC_FLAG, &st) == G16_ERR_INVALID_ARG);
    /* Wrong-type reads. */
    CHECK(g16_config_int(&c, G16_OPT_CLIENT_URL) == 0 && !strcmp(g16_config_str(&c, G16_OPT_GPU_SYNC), ""));
    CHECK(g16_opt_row_by_id(G16_OPT_COUNT) == NULL && g16_opt_find(NULL) == NULL);
}

/* The table's bounds are the GPU layer's constants (msm_plan.h). */
static void gpu_bounds(void) {
    const g16_opt_row *c = g16_opt_row_by_id(G16_OPT_GPU_MSM_C), *s = g16_opt_row_by_id(G16_OPT_GPU_MSM_SEG);
    CHECK(c->max == G16GPU_MAX_C && c->min == 0 && c->def == 0 && c->min_nonzero == 4);
    CHECK(s->min == G16GPU_MIN_SEG && s->max == G16GPU_MAX_SEG && s->def == G16GPU_SEG_DEFAULT);
}

static void unset_all(void) {
    for (int i = 0; i < G16_OPT_COUNT; i++)
        unsetenv(g16_opt_rows()[i].env);
}

static void environment(void) {
    unset_all();
    g16_config c;
    g16_status st = {0};
    g16_config_init(&c);
    CHECK(g16_config_from_env(&c, &st) == G16_OK);
    for (int i = 0; i < G16_OPT_COUNT; i++)
        CHECK(g16_config_source(&c, (g16_opt_id)i) == G16_SRC_DEFAULT);
    setenv("G16_GPU_MSM_C", "20", 1);
    setenv("G16_ENGINE_PIN", "yes", 1);
    setenv("G16_GPU_SYNC", "block", 1);
    setenv("G16D_TOKEN", "secret-token-value", 1);
    setenv("G16_GPU_MSM_SEG", "", 1); /* empty: unset */
    g16_config_init(&c);
    CHECK(g16_config_from_env(&c, &st) == G16_OK);
    CHECK(g16_config_int(&c, G16_OPT_GPU_MSM_C) == 20 && g16_config_source(&c, G16_OPT_GPU_MSM_C) == G16_SRC_ENV);
    CHECK(g16_config_bool(&c, G16_OPT_ENGINE_PIN) && g16_config_int(&c, G16_OPT_GPU_SYNC) == 3);
    CHECK(g16_config_source(&c, G16_OPT_GPU_MSM_SEG) == G16_SRC_DEFAULT);
    CHECK(!strcmp(g16_config_str(&c, G16_OPT_CLIENT_TOKEN), "secret-token-value"));
    /* The dump: sources, and the secret hidden. */
    char *js = g16_config_json_text(&c, 0, -1);
    json_t *o = js ? json_loads(js, 0, NULL) : NULL;
    CHECK(o && json_object_size(o) == G16_OPT_COUNT);
    json_t *e = json_object_get(o, "gpu.msm_window_bits");
    CHECK(e && json_integer_value(json_object_get(e, "value")) == 20 &&
          !strcmp(json_string_value(json_object_get(e, "source")), "env"));
    e = json_object_get(o, "gpu.sync");
    CHECK(e && !strcmp(json_string_value(json_object_get(e, "value")), "block"));
    e = json_object_get(o, "engine.pin");
    CHECK(e && json_is_true(json_object_get(e, "value")));
    e = json_object_get(o, "client.token");
    CHECK(e && !strcmp(json_string_value(json_object_get(e, "value")), "(set)") && !strstr(js, "secret-token"));
    json_decref(o);
    free(js);

    /* Through a context: seeded from the environment, then set by name. */
    g16_ctx *ctx = NULL;
    char msg[512];
    CHECK(g16_env_check(msg, sizeof msg) == G16_OK && !msg[0]);
    CHECK(g16_ctx_create_ex(&ctx, NULL, msg, sizeof msg) == G16_OK && ctx && !msg[0]);
    char buf[64];
    g16_option_source src = G16_OPTION_DEFAULT;
    CHECK(g16_ctx_get_option(ctx, "gpu.msm_window_bits", buf, sizeof buf, &src) == G16_OK && !strcmp(buf, "20") &&
          src == G16_OPTION_ENV);
    CHECK(g16_ctx_set_option(ctx, "gpu.msm_window_bits", "3", G16_OPTION_CONFIG) == G16_ERR_INVALID_ARG);
    CHECK(g16_ctx_last_error(ctx, msg, sizeof msg) == G16_ERR_INVALID_ARG &&
          !strcmp(msg, "gpu.msm_window_bits: 3 is out of range: 0 or [4, 22]"));
    CHECK(g16_ctx_get_option(ctx, "gpu.msm_window_bits", buf, sizeof buf, &src) == G16_OK && !strcmp(buf, "20") &&
          src == G16_OPTION_ENV);
    CHECK(g16_ctx_set_option(ctx, "gpu.msm_window_bits", "9", G16_OPTION_CONFIG) == G16_OK);
    CHECK(g16_ctx_set_option(ctx, "engine.gpu_shared", "off", G16_OPTION_FLAG) == G16_OK);
    CHECK(g16_ctx_set_option(ctx, "engine.gpu_shared", "off", (g16_option_source)9) == G16_ERR_INVALID_ARG);
    CHECK(g16_ctx_set_option(ctx, "nope", "1", G16_OPTION_FLAG) == G16_ERR_INVALID_ARG);
    CHECK(g16_ctx_get_option(ctx, "nope", buf, sizeof buf, NULL) == G16_ERR_INVALID_ARG);
    CHECK(g16_ctx_get_option(ctx, "gpu.msm_window_bits", buf, sizeof buf, &src) == G16_OK && !strcmp(buf, "9") &&
          src == G16_OPTION_CONFIG);
    CHECK(g16_ctx_get_option(ctx, "engine.gpu_shared", buf, sizeof buf, &src) == G16_OK &&
          !strcmp(buf, "false") && src == G16_OPTION_FLAG);
    js = NULL;
    CHECK(g16_ctx_options_json(ctx, &js, 1) == G16_OK && js);
    o = js ? json_loads(js, 0, NULL) : NULL;
    CHECK(o && json_object_size(o) == G16_OPT_COUNT);
    for (int i = 0; o && i < G16_OPT_COUNT; i++) {
        const g16_opt_row *r = g16_opt_row_by_id((g16_opt_id)i);
        e = json_object_get(o, r->key);
        CHECK_MSG(e && json_object_get(e, "value") && json_is_string(json_object_get(e, "source")) &&
                      !strcmp(json_string_value(json_object_get(e, "env")), r->env) &&
                      !strcmp(json_string_value(json_object_get(e, "doc")), r->doc) &&
                      json_is_string(json_object_get(e, "class")) && json_object_get(e, "default"),
                  "dump of %s", r->key);
        if (r->type == G16_OPT_INT || r->type == G16_OPT_UINT64)
            CHECK(json_integer_value(json_object_get(e, "max")) == r->max);
        if (r->type == G16_OPT_ENUM)
            CHECK(json_array_size(json_object_get(e, "values")) == (size_t)r->n_enum);
    }
    e = o ? json_object_get(o, "engine.gpu_shared") : NULL;
    CHECK(e && !strcmp(json_string_value(json_object_get(e, "source")), "flag"));
    json_decref(o);
    g16_free(js);
    g16_ctx_destroy(ctx);

    /* An invalid value: an error naming the variable, everywhere. */
    setenv("G16_GPU_MSM_SEG", "7", 1);
    g16_config_init(&c);
    CHECK(g16_config_from_env(&c, &st) == G16_ERR_INVALID_ARG);
    CHECK_MSG(!strcmp(st.msg, "G16_GPU_MSM_SEG=7: gpu.msm_segment: 7 is out of range [32, 256]"), "'%s'", st.msg);
    CHECK(g16_env_check(msg, sizeof msg) == G16_ERR_INVALID_ARG && strstr(msg, "G16_GPU_MSM_SEG=7"));
    ctx = (g16_ctx *)1;
    CHECK(g16_ctx_create_ex(&ctx, NULL, msg, sizeof msg) == G16_ERR_INVALID_ARG && ctx == NULL &&
          strstr(msg, "G16_GPU_MSM_SEG=7: gpu.msm_segment"));
    CHECK(g16_ctx_create(NULL) == NULL);
    setenv("G16_GPU_MSM_SEG", "64", 1);
    setenv("G16_ENGINE_GPU_SHARED", "maybe", 1);
    CHECK(g16_env_check(msg, sizeof msg) == G16_ERR_INVALID_ARG && strstr(msg, "G16_ENGINE_GPU_SHARED=maybe") &&
          strstr(msg, "not a boolean"));
    setenv("G16_ENGINE_GPU_SHARED", "0", 1);
    setenv("G16_GPU_NTT_THREADS", "100", 1);
    CHECK(g16_env_check(msg, sizeof msg) == G16_ERR_INVALID_ARG &&
          strstr(msg, "gpu.ntt_threads: '100' is not one of auto, 32, 64, 128, 256"));
    unset_all();
    CHECK(g16_env_check(NULL, 0) == G16_OK);
    ctx = g16_ctx_create(NULL);
    CHECK(ctx != NULL);
    g16_ctx_destroy(ctx);
}

static void option_info(void) {
    g16_option_info in;
    CHECK(g16_option_count() == G16_OPT_COUNT);
    CHECK(g16_option_get_info(&in, -1) == G16_ERR_INVALID_ARG && g16_option_get_info(&in, G16_OPT_COUNT));
    CHECK(g16_option_get_info(&in, G16_OPT_GPU_SYNC) == G16_OK && !strcmp(in.name, "gpu.sync") &&
          !strcmp(in.range, "auto, spin, yield, block") && !strcmp(in.default_value, "auto") && in.operational);
    CHECK(g16_option_get_info(&in, G16_OPT_GPU_MSM_C) == G16_OK && !strcmp(in.range, "0 or 4..22") &&
          !in.operational);
    char msg[256];
    CHECK(g16_option_check("gpu.sync", "spin", msg, sizeof msg) == G16_OK && !msg[0]);
    CHECK(g16_option_check("gpu.sync", "fast", msg, sizeof msg) == G16_ERR_INVALID_ARG &&
          !strcmp(msg, "gpu.sync: 'fast' is not one of auto, spin, yield, block"));
}

/* docs/config.md holds the table as doc_table prints it. */
static void doc_page(void) {
    FILE *f = fopen("docs/config.md", "r");
    CHECK_MSG(f != NULL, "docs/config.md: run from the repository root");
    if (!f)
        return;
    static char page[1 << 17];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = 0;
    char *want = doc_table();
    const char *b = strstr(page, "<!-- BEGIN options table"), *e = strstr(page, "<!-- END options table");
    const char *body = b ? strchr(b, '\n') : NULL;
    CHECK_MSG(body && e && (size_t)(e - (body + 1)) == strlen(want) && !strncmp(body + 1, want, strlen(want)),
              "docs/config.md's options table differs from the table (`test_config --doc` prints it):\n%s", want);
    for (int i = 0; i < G16_OPT_COUNT; i++)
        CHECK(strstr(page, g16_opt_rows()[i].key) && strstr(page, g16_opt_rows()[i].env));
    free(want);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--doc")) {
        char *t = doc_table();
        fputs(t ? t : "", stdout);
        free(t);
        return t ? 0 : 1;
    }
    defaults_and_bounds();
    gpu_bounds();
    environment();
    option_info();
    doc_page();
    return t_done("test_config");
}
