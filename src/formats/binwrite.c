#include "binwrite.h"

#include <errno.h>
#include <string.h>

g16_err binw_open(binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t nsections,
                  g16_status *st) {
    w->path = path;
    w->failed = 0;
    w->f = fopen(path, "wb");
    if (!w->f)
        return g16_fail(st, G16_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    binw_bytes(w, magic, 4);
    binw_u32(w, version);
    binw_u32(w, nsections);
    return G16_OK;
}

void binw_bytes(binwriter *w, const void *p, size_t n) {
    if (!w->failed && n && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

void binw_u32(binwriter *w, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    binw_bytes(w, b, 4);
}

void binw_u64(binwriter *w, uint64_t v) {
    binw_u32(w, (uint32_t)v);
    binw_u32(w, (uint32_t)(v >> 32));
}

long binw_section_begin(binwriter *w, uint32_t id) {
    binw_u32(w, id);
    long pos = ftell(w->f);
    binw_u64(w, 0);
    return pos;
}

void binw_section_end(binwriter *w, long size_pos) {
    long end = ftell(w->f);
    if (end < 0 || fseek(w->f, size_pos, SEEK_SET) != 0) {
        w->failed = 1;
        return;
    }
    binw_u64(w, (uint64_t)(end - size_pos - 8));
    if (fseek(w->f, end, SEEK_SET) != 0)
        w->failed = 1;
}

g16_err binw_close(binwriter *w, g16_status *st) {
    int bad = w->failed;
    if (w->f && fclose(w->f) != 0)
        bad = 1;
    w->f = NULL;
    if (bad)
        return g16_fail(st, G16_ERR_IO, "%s: write failed", w->path);
    return G16_OK;
}
