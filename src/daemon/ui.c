/* Static dashboard files (src/daemon/ui/, embedded at build time). */
#include "ui.h"

#include <string.h>

static const char *mime_of(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot)
        return "application/octet-stream";
    if (!strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    return "application/octet-stream";
}

int g16d_ui_asset(const char *name, const unsigned char **data, size_t *len, const char **mime) {
    if (!name)
        return 0;
    for (const g16d_ui_file *f = g16d_ui_files; f->name; f++) {
        if (!strcmp(f->name, name)) {
            *data = f->data;
            *len = f->len;
            *mime = mime_of(f->name);
            return 1;
        }
    }
    return 0;
}
