#include "binwrite.h"

#include <string.h>

g16_err binw_open(binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t nsections,
                  g16_status *st) {
    w->path = path;
    w->failed = 0;
    w->f = NULL;
    g16_err e = g16_atomic_begin(&w->af, path, st);
    if (e)
        return e;
    w->f = g16_atomic_stream(&w->af);
    if (!w->f) {
        g16_atomic_abort(&w->af);
        return g16_fail(st, G16_ERR_NOMEM, "%s: cannot make a stream", path);
    }
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
    if (!w->f)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: not open", w->path ? w->path : "(binwriter)");
    w->f = NULL;
    w->af.failed |= w->failed;
    return g16_atomic_commit(&w->af, st);
}

void binw_abort(binwriter *w) {
    if (w->f)
        g16_atomic_abort(&w->af);
    w->f = NULL;
}
