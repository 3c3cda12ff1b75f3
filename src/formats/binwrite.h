/* Writing the iden3 binary container (.r1cs, .wtns, .zkey): little-endian
 * integers and sections whose size is patched when the section ends. */
#ifndef G16_BINWRITE_H
#define G16_BINWRITE_H

#include <stdint.h>
#include <stdio.h>

#include "../util/file.h"
#include "../util/util.h"

/* The file is written to a temporary file beside path and renamed into
 * place by binw_close (util/file.h): a failed write leaves path as it was. */
typedef struct binwriter {
    g16_atomic_file af;
    FILE *f;
    const char *path;
    int failed;
} binwriter;

/* Creates path and writes magic, version and the section count. */
g16_err binw_open(binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t nsections,
                  g16_status *st);
void binw_bytes(binwriter *w, const void *p, size_t n);
void binw_u32(binwriter *w, uint32_t v);
void binw_u64(binwriter *w, uint64_t v);
/* Starts section id; returns the offset of its size field for binw_section_end. */
long binw_section_begin(binwriter *w, uint32_t id);
void binw_section_end(binwriter *w, long size_pos);
/* Completes the file and renames it into place; G16_ERR_IO (and path
 * untouched) if any write failed. */
g16_err binw_close(binwriter *w, g16_status *st);
/* Drops the partial file (path untouched). Safe after close or on a zeroed w. */
void binw_abort(binwriter *w);

#endif
