/* Files: opening inputs without blocking, whole-file reads with a cap,
 * atomic replacement of outputs, and the output-is-an-input check.
 * Every reader and writer of the library and the CLI goes through these. */
#ifndef G16_UTIL_FILE_H
#define G16_UTIL_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* ---- inputs ----------------------------------------------------------------
 * Opens path read-only, refusing anything but a regular file before any
 * call that could block: the open itself is O_NONBLOCK (a FIFO without a
 * writer would otherwise block it forever), then fstat, then O_NONBLOCK is
 * cleared. *fd is the open descriptor (O_CLOEXEC) on success, -1 on error.
 * size (may be NULL) gets the file's size. Errors: G16_ERR_IO, with the
 * path and "not a regular file (a FIFO)" and the like in st's message. */
g16_err g16_file_open_read(const char *path, int *fd, size_t *size, g16_status *st);

/* The same as a stdio stream ("rb"). */
g16_err g16_file_fopen_read(const char *path, FILE **f, g16_status *st);

/* Reads the whole of the regular file path into a malloc'd buffer with a
 * terminating NUL (not counted in *len). A file larger than max bytes is
 * refused (G16_ERR_FORMAT: "<path>: <what> of N bytes exceeds the M-byte
 * limit") before anything is read; so is one that grows past max while
 * it is read. */
g16_err g16_file_read_all(const char *path, size_t max, const char *what, char **buf, size_t *len,
                          g16_status *st);

/* ---- outputs ---------------------------------------------------------------
 * An output is written to a temporary file next to its final path
 * ("<path>.tmp.<pid>.<n>", created O_EXCL with mode 0666 less the umask),
 * and only a complete, fsync'd file is renamed over path (then the
 * directory is fsync'd). Until then the old file at path is untouched, and
 * on any error (ENOSPC, EFBIG, EIO) it stays: g16_atomic_abort removes the
 * temporary file only.
 *
 *   g16_atomic_file af;
 *   if (g16_atomic_begin(&af, path, st)) return st->code;
 *   fwrite(..., g16_atomic_stream(&af));  // or write(af.fd), mmap(af.fd)
 *   return g16_atomic_commit(&af, st);    // or g16_atomic_abort(&af)
 *
 * Files written as a set (a proof and its public inputs) call
 * g16_atomic_finish on each, then g16_atomic_commit on each: no rename
 * happens before every file of the set is complete on disk. */
typedef struct g16_atomic_file {
    char *path;   /* final path (a copy) */
    char *tmp;    /* temporary path */
    int fd;       /* -1 once closed */
    FILE *f;      /* lazily made by g16_atomic_stream */
    int finished; /* flushed, fsync'd and closed */
    int failed;   /* a write through the stream failed (set by the caller or by finish) */
} g16_atomic_file;

g16_err g16_atomic_begin(g16_atomic_file *af, const char *path, g16_status *st);
/* A stdio stream on the temporary file (NULL if it cannot be made). */
FILE *g16_atomic_stream(g16_atomic_file *af);
/* Reserves bytes of disk space for the file (posix_fallocate; the file's
 * size becomes bytes): a full disk is a clean G16_ERR_IO here rather than a
 * SIGBUS in a mapping of a sparse file later. */
g16_err g16_atomic_reserve(g16_atomic_file *af, size_t bytes, g16_status *st);
/* Flushes, fsyncs and closes the temporary file. Errors: G16_ERR_IO (the
 * temporary file is then removed and af released, as by abort). */
g16_err g16_atomic_finish(g16_atomic_file *af, g16_status *st);
/* finish (if not done), then renames the file into place and fsyncs the
 * directory. Releases af either way. */
g16_err g16_atomic_commit(g16_atomic_file *af, g16_status *st);
/* Closes and removes the temporary file; path is left as it was. Safe on a
 * zeroed or already released af. */
void g16_atomic_abort(g16_atomic_file *af);

/* The whole of data[0 .. len) to path, atomically as above. */
g16_err g16_atomic_write(const char *path, const void *data, size_t len, g16_status *st);

/* ---- outputs are not inputs ------------------------------------------------
 * Refuses (G16_ERR_INVALID_ARG, "<out> is the same file as the input <in>"
 * or "... as the output <out2>") when an output names the same file as an
 * input or as another output: the same st_dev/st_ino where both exist, or
 * the same path once the directory is resolved (realpath) for the rest.
 * NULL entries are skipped. Called before any work, so nothing is read or
 * written when it fails. */
g16_err g16_check_outputs(const char *const *inputs, size_t n_inputs, const char *const *outputs,
                          size_t n_outputs, g16_status *st);

#endif
