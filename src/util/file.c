/* Non-blocking input opens, capped reads, atomic outputs, output != input. */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_name(mode_t m) {
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a plain file";
}

g16_err g16_file_open_read(const char *path, int *fd, size_t *size, g16_status *st) {
    *fd = -1;
    if (!path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "NULL path");
    int d = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (d < 0)
        return g16_fail(st, G16_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(d, &sb) != 0) {
        int err = errno;
        close(d);
        return g16_fail(st, G16_ERR_IO, "%s: cannot stat: %s", path, strerror(err));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(d);
        return g16_fail(st, G16_ERR_IO, "%s: not a regular file (%s)", path, kind_name(sb.st_mode));
    }
    int fl = fcntl(d, F_GETFL);
    if (fl < 0 || fcntl(d, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int err = errno;
        close(d);
        return g16_fail(st, G16_ERR_IO, "%s: fcntl: %s", path, strerror(err));
    }
    if (size)
        *size = (size_t)sb.st_size;
    *fd = d;
    return G16_OK;
}

g16_err g16_file_fopen_read(const char *path, FILE **f, g16_status *st) {
    *f = NULL;
    int fd;
    g16_err e = g16_file_open_read(path, &fd, NULL, st);
    if (e)
        return e;
    *f = fdopen(fd, "rb");
    if (!*f) {
        close(fd);
        return g16_fail(st, G16_ERR_NOMEM, "%s: cannot make a stream", path);
    }
    return G16_OK;
}

g16_err g16_file_read_all(const char *path, size_t max, const char *what, char **buf, size_t *len,
                          g16_status *st) {
    *buf = NULL;
    *len = 0;
    int fd;
    size_t size;
    g16_err e = g16_file_open_read(path, &fd, &size, st);
    if (e)
        return e;
    if (size > max) {
        close(fd);
        return g16_fail(st, G16_ERR_FORMAT, "%s: %s of %zu bytes exceeds the %zu-byte limit", path, what, size,
                        max);
    }
    /* Read up to max + 1 bytes whatever the size said: a file that grows
     * while read (or lies, as /proc files do) is still capped. */
    size_t cap = size + 1 < 4096 ? 4096 : size + 1, n = 0;
    char *p = malloc(cap + 1);
    for (;;) {
        if (!p) {
            close(fd);
            return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory reading %s", path, what);
        }
        ssize_t got = read(fd, p + n, cap - n);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            free(p);
            close(fd);
            return g16_fail(st, G16_ERR_IO, "%s: read error: %s", path, strerror(err));
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            free(p);
            close(fd);
            return g16_fail(st, G16_ERR_FORMAT, "%s: %s exceeds the %zu-byte limit", path, what, max);
        }
        if (n == cap) {
            cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *q = realloc(p, cap + 1);
            if (!q)
                free(p);
            p = q;
        }
    }
    close(fd);
    p[n] = 0;
    *buf = p;
    *len = n;
    return G16_OK;
}

/* ---- atomic outputs ------------------------------------------------------ */

static atomic_uint tmp_counter;

static void af_release(g16_atomic_file *af) {
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->fd = -1;
    af->f = NULL;
}

g16_err g16_atomic_begin(g16_atomic_file *af, const char *path, g16_status *st) {
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (!path || !*path)
        return g16_fail(st, G16_ERR_INVALID_ARG, "NULL or empty output path");
    size_t n = strlen(path) + 64;
    af->path = strdup(path);
    af->tmp = malloc(n);
    if (!af->path || !af->tmp) {
        af_release(af);
        return g16_fail(st, G16_ERR_NOMEM, "%s: out of memory", path);
    }
    for (int tries = 0; tries < 100; tries++) {
        snprintf(af->tmp, n, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&tmp_counter, 1));
        af->fd = open(af->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* RDWR: setup maps it */
        if (af->fd >= 0)
            return G16_OK;
        if (errno != EEXIST)
            break;
    }
    int err = errno;
    g16_fail(st, G16_ERR_IO, "%s: cannot create a temporary file next to it: %s", path, strerror(err));
    af_release(af);
    return G16_ERR_IO;
}

FILE *g16_atomic_stream(g16_atomic_file *af) {
    if (!af->f && af->fd >= 0)
        af->f = fdopen(af->fd, "wb");
    return af->f;
}

g16_err g16_atomic_reserve(g16_atomic_file *af, size_t bytes, g16_status *st) {
    if (af->fd < 0)
        return g16_fail(st, G16_ERR_INVALID_ARG, "atomic file not open");
    if (bytes == 0)
        return G16_OK;
    int r = posix_fallocate(af->fd, 0, (off_t)bytes);
    if (r == EOPNOTSUPP || r == EINVAL) /* no fallocate on this filesystem: size it at least */
        r = ftruncate(af->fd, (off_t)bytes) == 0 ? 0 : errno;
    if (r)
        return g16_fail(st, G16_ERR_IO, "%s: cannot reserve %zu bytes: %s", af->path, bytes, strerror(r));
    return G16_OK;
}

g16_err g16_atomic_finish(g16_atomic_file *af, g16_status *st) {
    if (af->finished)
        return G16_OK;
    if (!af->tmp)
        return g16_fail(st, G16_ERR_INVALID_ARG, "atomic file not open");
    int err = 0;
    if (af->f) {
        if (fflush(af->f) != 0 || ferror(af->f))
            err = errno ? errno : EIO;
    }
    if (!err && fsync(af->fd) != 0 && errno != EINVAL)
        err = errno;
    int cerr = af->f ? fclose(af->f) : close(af->fd);
    if (cerr != 0 && !err)
        err = errno;
    af->f = NULL;
    af->fd = -1;
    if (af->failed && !err)
        err = EIO;
    if (err) {
        g16_fail(st, G16_ERR_IO, "%s: write failed: %s", af->path, strerror(err));
        g16_atomic_abort(af);
        return G16_ERR_IO;
    }
    af->finished = 1;
    return G16_OK;
}

static void fsync_dir_of(const char *path) {
    char *d = strdup(path);
    if (!d)
        return;
    char *slash = strrchr(d, '/');
    const char *dir = ".";
    if (slash) {
        slash[slash == d ? 1 : 0] = 0;
        dir = d;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: the file itself is already durable */
        close(fd);
    }
    free(d);
}

g16_err g16_atomic_commit(g16_atomic_file *af, g16_status *st) {
    g16_err e = g16_atomic_finish(af, st);
    if (e)
        return e;
    if (rename(af->tmp, af->path) != 0) {
        int err = errno;
        g16_fail(st, G16_ERR_IO, "%s: cannot rename the written file into place: %s", af->path, strerror(err));
        g16_atomic_abort(af);
        return G16_ERR_IO;
    }
    fsync_dir_of(af->path);
    af_release(af);
    return G16_OK;
}

void g16_atomic_abort(g16_atomic_file *af) {
    if (!af)
        return;
    if (af->f)
        fclose(af->f);
    else if (af->fd >= 0)
        close(af->fd);
    if (af->tmp)
        unlink(af->tmp);
    af_release(af);
}

g16_err g16_atomic_write(const char *path, const void *data, size_t len, g16_status *st) {
    g16_atomic_file af;
    g16_err e = g16_atomic_begin(&af, path, st);
    if (e)
        return e;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(af.fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = w < 0 ? errno : EIO;
            g16_fail(st, G16_ERR_IO, "%s: write failed: %s", path, strerror(err));
            g16_atomic_abort(&af);
            return G16_ERR_IO;
        }
        p += w;
        len -= (size_t)w;
    }
    return g16_atomic_commit(&af, st);
}

/* ---- outputs are not inputs ---------------------------------------------- */

typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char *canon; /* realpath(dirname) + "/" + basename, or NULL */
} file_id;

static void file_id_get(file_id *id, const char *path) {
    memset(id, 0, sizeof *id);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        id->exists = 1;
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
    }
    char *d = strdup(path);
    if (!d)
        return;
    char *slash = strrchr(d, '/');
    const char *dir = ".", *base = path;
    if (slash) {
        *slash = 0;
        dir = slash == d ? "/" : d;
        base = path + (slash - d) + 1;
    }
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        size_t n = strlen(real) + strlen(base) + 2;
        id->canon = malloc(n);
        if (id->canon)
            snprintf(id->canon, n, "%s/%s", real, base);
    }
    free(d);
}

static int file_id_same(const file_id *a, const file_id *b) {
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return a->canon && b->canon && strcmp(a->canon, b->canon) == 0;
}

g16_err g16_check_outputs(const char *const *inputs, size_t n_inputs, const char *const *outputs,
                          size_t n_outputs, g16_status *st) {
    size_t n = n_inputs + n_outputs;
    file_id *ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return g16_fail(st, G16_ERR_NOMEM, "out of memory checking paths");
    for (size_t i = 0; i < n; i++) {
        const char *p = i < n_inputs ? inputs[i] : outputs[i - n_inputs];
        if (p)
            file_id_get(&ids[i], p);
    }
    g16_err e = G16_OK;
    for (size_t o = 0; o < n_outputs && !e; o++) {
        const file_id *out = &ids[n_inputs + o];
        if (!outputs[o])
            continue;
        for (size_t i = 0; i < n_inputs + o && !e; i++) {
            const char *other = i < n_inputs ? inputs[i] : outputs[i - n_inputs];
            if (other && file_id_same(out, &ids[i]))
                e = g16_fail(st, G16_ERR_INVALID_ARG, "%s is the same file as the %s %s", outputs[o],
                             i < n_inputs ? "input" : "output", other);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(ids[i].canon);
    free(ids);
    return e;
}
