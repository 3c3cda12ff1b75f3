/* The dashboard's embedded files (src/daemon/ui.c, cmake/embed_ui.cmake):
 * every file of src/daemon/ui/ is in the table byte for byte under its
 * name, index.html is there, types by extension, and no other name (a
 * traversal, a URL instead of a name, an unknown name) finds anything.
 * Run from the source folder (ctest's working directory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ui.h"
#include "testutil.h"

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

int main(void) {
    const unsigned char *d = NULL;
    size_t n = 0;
    const char *m = NULL;
    int files = 0;
    for (const g16d_ui_file *f = g16d_ui_files; f->name; f++, files++) {
        char path[512];
        snprintf(path, sizeof path, "src/daemon/ui/%s", f->name);
        size_t len = 0;
        unsigned char *want = slurp(path, &len);
        CHECK_MSG(want != NULL, "%s", path);
        CHECK(g16d_ui_asset(f->name, &d, &n, &m) == 1);
        CHECK_MSG(want && n == len && !memcmp(d, want, len), "%s differs from its embedded copy", path);
        free(want);
    }
    CHECK(files >= 3);
    d = NULL;
    CHECK(g16d_ui_asset("index.html", &d, &n, &m) == 1);
    CHECK(d && n > 100 && !strcmp(m, "text/html; charset=utf-8") && !memcmp(d, "<!DOCTYPE html>", 15));
    CHECK(g16d_ui_asset("app.js", &d, &n, &m) == 1 && !strcmp(m, "text/javascript; charset=utf-8"));
    CHECK(g16d_ui_asset("style.css", &d, &n, &m) == 1 && !strcmp(m, "text/css; charset=utf-8"));
    const char *none[] = {"nope.js", "../ui.c", "/app.js", "/ui/app.js", "app.js/", "APP.JS", "", "/", "ui/app.js",
                          "app.js\n"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        d = (const unsigned char *)"x";
        CHECK_MSG(g16d_ui_asset(none[i], &d, &n, &m) == 0 && !strcmp((const char *)d, "x"), "'%s'", none[i]);
    }
    CHECK(g16d_ui_asset(NULL, &d, &n, &m) == 0);
    return t_done("test_ui");
}
