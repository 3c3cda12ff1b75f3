/* Guarded read-only file mappings (fmap.c).
 *
 * A file mapped with g16_fmap_map is registered in a process-wide table, and
 * the first mapping installs a SIGBUS handler (once per process; the
 * previous handler is kept and called for every fault this table does not
 * own). When a read of a registered mapping faults (the file was truncated
 * under it, or the page cannot be read back), the handler replaces the whole
 * mapping, at the same address, by anonymous zero pages, marks it poisoned
 * and returns: the faulting load runs again and reads zero. Whoever consumes
 * the mapping checks g16_fmap_state after its reads and turns a damaged
 * mapping into G16_ERR_IO: the zeros never leave the library as a result.
 *
 * The table and the handler are the one piece of process state in the
 * library (a signal disposition is process-wide by nature). Contract:
 *   - a mapping is closed only when no thread reads it any more;
 *   - an application that installs its own SIGBUS handler after the library
 *     mapped a file must call the previous handler for faults it does not
 *     own (as this one does), or mapped files are no longer guarded.
 * The handler uses only lock-free atomics and raw syscalls (async-signal-
 * safe). docs/formats.md "Mapped files that change" has the whole story. */
#ifndef G16_UTIL_FMAP_H
#define G16_UTIL_FMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

/* What identifies a file's contents cheaply: device, inode, size, mtime. */
typedef struct g16_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_s;
    long mtime_ns;
    int valid;
} g16_file_id;
void g16_file_id_from_stat(g16_file_id *id, const struct stat *sb);

typedef struct g16_fmap {
    int used;            /* 0: empty (all-zero is a valid empty g16_fmap); the rest is set */
    const uint8_t *base; /* the mapping (NULL when none) */
    size_t len;          /* the file's size when it was mapped */
    size_t map_len;      /* len rounded up to whole pages */
    int fd;              /* kept open for the change check; -1 when none */
    int slot;            /* registry slot; -1 when not registered */
    char *path;          /* the path it was opened by (NULL: unknown), for g16_fmap_stale */
    g16_file_id id;      /* the file's identity at map time */
} g16_fmap;

/* An empty g16_fmap (no mapping, no fd), like an all-zero one: safe to close. */
void g16_fmap_init(g16_fmap *m);

/* Maps the whole regular file open on fd (sb: its fstat, len = sb->st_size
 * > 0) read-only and registers it. Takes fd: it stays open for the change
 * check and is closed by g16_fmap_close (and here on error). path (may be
 * NULL) is remembered for g16_fmap_stale. Errors: IO (mmap failed; message
 * names `name`), NOMEM (no registry slot left: G16_FMAP_MAX mappings). */
#define G16_FMAP_MAX 4096
g16_err g16_fmap_map(g16_fmap *m, int fd, const struct stat *sb, const char *path, const char *name,
                     g16_status *st);
/* Records path and sb as the origin of bytes that were copied out of the
 * file (no mapping, no fd): only g16_fmap_stale uses them. */
g16_err g16_fmap_set_origin(g16_fmap *m, const char *path, const struct stat *sb);
/* Unregisters, unmaps, closes fd, frees path; leaves m empty. */
void g16_fmap_close(g16_fmap *m);

/* The mapping's state, cheapest checks first (an atomic load, then one
 * fstat of the kept fd):
 *   G16_FMAP_INTACT    the file's size and mtime are those at map time;
 *   G16_FMAP_CHANGED   they differ (rewritten in place; the mapping may hold
 *                      a mix of old and new bytes);
 *   G16_FMAP_TRUNCATED a read faulted and the mapping reads zeros now
 *                      (poisoned: final until closed), or the file is now
 *                      shorter than the mapping.
 * A g16_fmap without a mapping is INTACT. *size_now (may be NULL) gets the
 * file's current size (the mapped size when unknown). */
enum { G16_FMAP_INTACT = 0, G16_FMAP_CHANGED = 1, G16_FMAP_TRUNCATED = 2 };
int g16_fmap_state(const g16_fmap *m, uint64_t *size_now);
/* 1 once a fault in this mapping was recovered (then it reads zeros). */
int g16_fmap_poisoned(const g16_fmap *m);
/* 1 when the path it was opened by no longer names the same contents
 * (another inode, size or mtime, or no file at all): the bytes already in
 * memory are not affected by that (a rename over it, a host copy). 0 when
 * the path is unknown. */
int g16_fmap_stale(const g16_fmap *m);

/* Faults recovered by the handler in this process so far (tests, metrics). */
uint64_t g16_fmap_faults(void);

#endif
