/* The iden3 binary container (.zkey, .wtns, .r1cs, .ptau), mapped read-only.
 *
 *   char magic[4]; u32 version; u32 nSections;
 *   nSections x { u32 id; u64 size; u8 data[size] }
 *
 * Every header and size is checked against the bytes left in the file by
 * subtraction (never by adding a file-controlled size to an offset), so no
 * value can overflow. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats.h"
#include "util/file.h"

/* Real files have at most a few dozen sections; the cap keeps the duplicate
 * check (quadratic) cheap on hostile input. */
#define G16_BINFILE_MAX_SECTIONS 1024u

static void set_name(g16_binfile *bf, const char *name) {
    snprintf(bf->name, sizeof bf->name, "%s", name ? name : "(memory)");
}

/* Indexes the sections of bf->base[0 .. bf->len). */
static g16_err index_sections(g16_binfile *bf, const char *magic, uint32_t max_version,
                              g16_status *st) {
    const uint8_t *p = bf->base;
    size_t len = bf->len;
    if (len < 12)
        return g16_fail(st, G16_ERR_TRUNCATED, "%s: file is %zu bytes, shorter than the 12-byte header",
                        bf->name, len);
    if (memcmp(p, magic, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++)
            got[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
        got[4] = 0;
        return g16_fail(st, G16_ERR_FORMAT, "%s: bad magic \"%s\", expected a \"%s\" file", bf->name,
                        got, magic);
    }
    memcpy(bf->magic, p, 4);
    bf->magic[4] = 0;
    bf->version = g16_le32(p + 4);
    if (bf->version < 1 || bf->version > max_version)
        return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: %s version %u not supported (1..%u)", bf->name,
                        magic, bf->version, max_version);
    uint32_t ns = g16_le32(p + 8);
    size_t left = len - 12;
    /* Each section needs at least its 12-byte header: bounds the allocation. */
    if ((uint64_t)ns * 12 > left)
        return g16_fail(st, G16_ERR_TRUNCATED,
                        "%s: %u sections declared but only %zu bytes follow the header", bf->name, ns,
                        left);
    if (ns > G16_BINFILE_MAX_SECTIONS)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %u sections declared (at most %u accepted)",
                        bf->name, ns, G16_BINFILE_MAX_SECTIONS);
    bf->sec = calloc(ns ? ns : 1, sizeof *bf->sec);
    if (!bf->sec)
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory indexing sections", bf->name);
    size_t off = 12;
    for (uint32_t i = 0; i < ns; i++) {
        left = len - off;
        if (left < 12)
            return g16_fail(st, G16_ERR_TRUNCATED, "%s: file ends inside the header of section #%u",
                            bf->name, i);
        uint32_t id = g16_le32(p + off);
        uint64_t size = g16_le64(p + off + 4);
        off += 12;
        left -= 12;
        if (size > left)
            return g16_fail(st, G16_ERR_TRUNCATED,
                            "%s: section %u (#%u) declares %llu bytes but only %zu remain", bf->name,
                            id, i, (unsigned long long)size, left);
        for (uint32_t j = 0; j < i; j++)
            if (bf->sec[j].id == id)
                return g16_fail(st, G16_ERR_FORMAT, "%s: duplicate section %u", bf->name, id);
        bf->sec[i].id = id;
        bf->sec[i].size = size;
        bf->sec[i].data = p + off;
        off += (size_t)size;
        bf->nsections = i + 1;
    }
    if (off != len)
        return g16_fail(st, G16_ERR_FORMAT, "%s: %zu trailing bytes after the last section", bf->name,
                        len - off);
    return G16_OK;
}

g16_err g16_binfile_open_mem(g16_binfile *bf, const char *name, const void *data, size_t len,
                             const char *magic, uint32_t max_version, g16_status *st) {
    memset(bf, 0, sizeof *bf);
    g16_fmap_init(&bf->map);
    set_name(bf, name);
    if ((!data && len) || !magic)
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: NULL buffer or magic", bf->name);
    bf->base = data;
    bf->len = len;
    g16_err e = index_sections(bf, magic, max_version, st);
    if (e)
        g16_binfile_close(bf);
    return e;
}

g16_err g16_binfile_open(g16_binfile *bf, const char *path, const char *magic, uint32_t max_version,
                         g16_status *st) {
    memset(bf, 0, sizeof *bf);
    g16_fmap_init(&bf->map);
    set_name(bf, path);
    if (!path || !magic)
        return g16_fail(st, G16_ERR_INVALID_ARG, "binfile: NULL path or magic");
    int fd;
    size_t len;
    g16_err oe = g16_file_open_read(path, &fd, &len, st); /* regular files only, never blocks */
    if (oe)
        return oe;
    if (len >= 12) {
        /* A guarded mapping; it keeps fd for the change check. */
        struct stat sb;
        if (fstat(fd, &sb) != 0) {
            close(fd);
            return g16_fail(st, G16_ERR_IO, "%s: cannot stat", bf->name);
        }
        g16_err e = g16_fmap_map(&bf->map, fd, &sb, path, bf->name, st);
        if (e)
            return e;
        bf->base = bf->map.base;
        bf->mapped = 1;
    } else {
        close(fd);
    }
    bf->len = len;
    g16_err e = index_sections(bf, magic, max_version, st);
    if (e)
        g16_binfile_close(bf);
    return e;
}

void g16_binfile_close(g16_binfile *bf) {
    if (!bf)
        return;
    g16_fmap_close(&bf->map); /* the mapping, if any (and a copy's origin) */
    free(bf->sec);
    bf->sec = NULL;
    bf->base = NULL;
    bf->len = 0;
    bf->mapped = 0;
    bf->nsections = 0;
}

int g16_binfile_has(const g16_binfile *bf, uint32_t id) {
    for (uint32_t i = 0; i < bf->nsections; i++)
        if (bf->sec[i].id == id)
            return 1;
    return 0;
}

g16_err g16_binfile_find(const g16_binfile *bf, uint32_t id, const g16_binfile_section **sec,
                            g16_status *st) {
    for (uint32_t i = 0; i < bf->nsections; i++)
        if (bf->sec[i].id == id) {
            *sec = &bf->sec[i];
            return G16_OK;
        }
    *sec = NULL;
    return g16_fail(st, G16_ERR_FORMAT, "%s: missing section %u", bf->name, id);
}

g16_err g16_binfile_check(const g16_binfile *bf, const char *advice, int *state, g16_status *st) {
    uint64_t now = 0;
    int s = bf && bf->mapped ? g16_fmap_state(&bf->map, &now) : G16_FMAP_INTACT;
    if (state)
        *state = s;
    if (s == G16_FMAP_INTACT)
        return G16_OK;
    if (!advice)
        advice = "";
    if (s == G16_FMAP_TRUNCATED) {
        if (g16_fmap_poisoned(&bf->map))
            return g16_fail(st, G16_ERR_IO,
                            "%s changed while in use (truncated: %zu bytes mapped, %llu now; its pages read "
                            "as zeros)%s",
                            bf->name, bf->len, (unsigned long long)now, advice);
        return g16_fail(st, G16_ERR_IO, "%s changed while in use (truncated: %zu bytes mapped, %llu now)%s",
                        bf->name, bf->len, (unsigned long long)now, advice);
    }
    return g16_fail(st, G16_ERR_IO, "%s changed while in use (rewritten in place: its size or mtime differ)%s",
                    bf->name, advice);
}

g16_err g16_binfile_settle(const g16_binfile *bf, g16_err err, const char *advice, g16_status *st) {
    g16_status cs = {0};
    if (g16_binfile_check(bf, advice, NULL, &cs) == G16_OK)
        return err;
    if (st)
        *st = cs;
    return cs.code;
}
