/* circom witness generators as child processes (witgen.h, docs/witgen.md).
 *
 * One run: a scratch directory made by mkdtemp (mode 0700) under
 * witgen.scratch_dir; the input (a file read whole, or bytes) checked as a
 * JSON object and written there as input.json (mode 0600); the generator forked
 * and exec'd without a shell, in its own process group, cwd the scratch
 * directory, stdin /dev/null, stdout and stderr one pipe whose last bytes
 * are kept for the message, every other descriptor closed, the environment
 * without g16's G16* variables, the memory limit
 * set by setrlimit between fork and exec; the parent drains the pipe until
 * the deadline and then kills the group (SIGKILL). Afterwards the witness
 * is read and every regular file of the directory is overwritten with
 * zeros and unlinked, then the directory is removed.
 *
 * Between fork and exec the child calls only async-signal-safe functions
 * (everything it needs is prepared before the fork), so the runner may be
 * called from any thread of a multithreaded process (g16d's runners). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "witgen.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#define TAIL_MAX 2048 /* bytes of the generator's output kept for the message */

void witgen_limits_resolve(witgen_limits *lim, const g16_config *cfg, const g16_witgen_opts *opts) {
    memset(lim, 0, sizeof *lim);
    lim->timeout_s = (double)g16_config_int(cfg, G16_OPT_WITGEN_TIMEOUT_S);
    lim->memory_bytes = (uint64_t)g16_config_int(cfg, G16_OPT_WITGEN_MEMORY_MB) << 20;
    snprintf(lim->node, sizeof lim->node, "%s", g16_config_str(cfg, G16_OPT_WITGEN_NODE));
    snprintf(lim->scratch, sizeof lim->scratch, "%s", g16_config_str(cfg, G16_OPT_WITGEN_SCRATCH));
    /* Fields of opts that the caller's version has (size), when nonzero. */
    if (!opts || opts->size < offsetof(g16_witgen_opts, timeout_s) + sizeof opts->timeout_s)
        return;
    if (opts->timeout_s > 0) /* within the option's bounds */
        lim->timeout_s = opts->timeout_s < 86400.0 ? opts->timeout_s : 86400.0;
    if (opts->size >= offsetof(g16_witgen_opts, memory_bytes) + sizeof opts->memory_bytes && opts->memory_bytes)
        lim->memory_bytes = opts->memory_bytes;
    if (opts->size >= offsetof(g16_witgen_opts, node) + sizeof opts->node && opts->node)
        snprintf(lim->node, sizeof lim->node, "%s", opts->node);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The last path component, for messages. */
static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

static g16_err node_check(const witgen_limits *lim, const char *gen, g16_status *st);

g16_err witgen_kind(const char *gen, const witgen_limits *lim, int check_node, g16_witgen_kind *kind, char *js,
                    g16_status *st) {
    js[0] = 0;
    struct stat sb;
    if (stat(gen, &sb))
        return g16_fail(st, G16_ERR_IO, "witness generator %.150s: %s", gen, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return g16_fail(st, G16_ERR_INVALID_ARG, "witness generator %.150s is not a regular file", gen);
    int fd = open(gen, O_RDONLY | O_CLOEXEC);
    unsigned char magic[4] = {0};
    ssize_t n = fd >= 0 ? read(fd, magic, sizeof magic) : -1;
    int en = errno;
    if (fd >= 0)
        close(fd);
    if (fd < 0 && access(gen, X_OK) != 0)
        return g16_fail(st, G16_ERR_IO, "witness generator %.150s: %s", gen, strerror(en));
    if (n == 4 && !memcmp(magic, "\0asm", 4)) {
        char dir[PATH_MAX];
        if (!realpath(gen, dir))
            return g16_fail(st, G16_ERR_IO, "witness generator %.150s: %s", gen, strerror(errno));
        char *slash = strrchr(dir, '/');
        *slash = 0;
        if ((size_t)snprintf(js, PATH_MAX, "%s/generate_witness.js", dir[0] ? dir : "") >= PATH_MAX)
            return g16_fail(st, G16_ERR_IO, "witness generator %.150s: path too long", gen);
        if (access(js, R_OK))
            return g16_fail(st, G16_ERR_IO,
                            "witness generator %.120s is a circom .wasm, but %.100s: %s (circom writes it beside "
                            "the .wasm)",
                            gen, js, strerror(errno));
        *kind = G16_WITGEN_WASM;
        return check_node ? node_check(lim, gen, st) : G16_OK;
    }
    if (access(gen, X_OK))
        return g16_fail(st, G16_ERR_IO,
                        "witness generator %.150s is neither a circom .wasm nor executable (%s)", gen,
                        strerror(errno));
    *kind = G16_WITGEN_NATIVE;
    return G16_OK;
}

/* ---- the child ------------------------------------------------------------ */

typedef struct child_spec {
    char *const *argv;
    char *const *envp; /* the environment, without g16's own G16* variables (tokens, options) */
    int use_path;     /* execvp (argv[0] without a slash) */
    const char *cwd;  /* NULL: unchanged */
    int rlimit;       /* -1: none, else RLIMIT_AS or RLIMIT_DATA */
    uint64_t limit;   /* bytes */
    double timeout_s;
} child_spec;

typedef struct child_result {
    int exec_errno; /* the exec failed with this (then nothing ran) */
    int timed_out;
    int status;     /* waitpid's */
    char tail[TAIL_MAX + 1];
    size_t tail_len;
} child_result;

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(const child_spec *cs, int devnull, int out_w, int err_w, int max_fd) {
    setpgid(0, 0);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    /* Ignored signals stay ignored across exec (g16d ignores SIGPIPE and
     * SIGXFSZ): give the generator the defaults. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0)
        goto fail;
    if (cs->cwd && chdir(cs->cwd))
        goto fail;
    if (cs->rlimit >= 0 && cs->limit) {
        struct rlimit rl = {(rlim_t)cs->limit, (rlim_t)cs->limit};
        if (setrlimit(cs->rlimit, &rl))
            goto fail;
    }
    /* Every descriptor above 2 closes at the exec (err_w is CLOEXEC already). */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */))
#endif
        for (int fd = 3; fd <= max_fd; fd++)
            if (fd != err_w)
                close(fd);
    if (cs->use_path)
        execvpe(cs->argv[0], cs->argv, cs->envp);
    else
        execve(cs->argv[0], cs->argv, cs->envp);
fail:;
    int e = errno;
    ssize_t r = write(err_w, &e, sizeof e);
    (void)r;
    _exit(127);
}

static void tail_add(child_result *r, const char *buf, size_t n) {
    if (n >= TAIL_MAX) {
        memcpy(r->tail, buf + n - TAIL_MAX, TAIL_MAX);
        r->tail_len = TAIL_MAX;
        return;
    }
    if (r->tail_len + n > TAIL_MAX) {
        size_t drop = r->tail_len + n - TAIL_MAX;
        memmove(r->tail, r->tail + drop, r->tail_len - drop);
        r->tail_len -= drop;
    }
    memcpy(r->tail + r->tail_len, buf, n);
    r->tail_len += n;
}

/* Runs the child to its end or its deadline. G16_ERR_IO / NOMEM when it
 * cannot be started (r->exec_errno for a failed exec is not an error here). */
/* environ without the G16* variables, into a malloc'd array (the strings
 * are environ's); NULL without memory. */
extern char **environ;
static char **child_env(void) {
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **e = malloc((n + 1) * sizeof *e);
    if (!e)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "G16", 3))
            e[k++] = environ[i];
    e[k] = NULL;
    return e;
}

static g16_err run_child_env(const child_spec *cs, child_result *r, g16_status *st);

static g16_err run_child(const child_spec *cs0, child_result *r, g16_status *st) {
    child_spec cs = *cs0;
    char **env = child_env();
    if (!env)
        return g16_fail(st, G16_ERR_NOMEM, "witness generator: out of memory");
    cs.envp = env;
    g16_err err = run_child_env(&cs, r, st);
    free(env);
    return err;
}

static g16_err run_child_env(const child_spec *cs, child_result *r, g16_status *st) {
    memset(r, 0, sizeof *r);
    int out[2] = {-1, -1}, errp[2] = {-1, -1};
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0 || pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
        int en = errno;
        if (devnull >= 0)
            close(devnull);
        for (int i = 0; i < 2; i++) {
            if (out[i] >= 0)
                close(out[i]);
            if (errp[i] >= 0)
                close(errp[i]);
        }
        return g16_fail(st, G16_ERR_IO, "witness generator: cannot make its pipes: %s", strerror(en));
    }
    long mx = sysconf(_SC_OPEN_MAX);
    int max_fd = mx < 0 || mx > 65536 ? 65536 : (int)mx;
    pid_t pid = fork();
    if (pid == 0)
        child_exec(cs, devnull, out[1], errp[1], max_fd);
    int fork_errno = errno;
    close(devnull);
    close(out[1]);
    close(errp[1]);
    if (pid < 0) {
        close(out[0]);
        close(errp[0]);
        return g16_fail(st, G16_ERR_IO, "witness generator: fork: %s", strerror(fork_errno));
    }
    setpgid(pid, pid); /* also in the child: whichever runs first */
    /* The exec's outcome: EOF (exec'd, the CLOEXEC pipe closed) or an errno. */
    int e = 0;
    ssize_t got;
    do
        got = read(errp[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    close(errp[0]);
    if (got == (ssize_t)sizeof e)
        r->exec_errno = e ? e : EINVAL;

    double deadline = now_s() + cs->timeout_s;
    int open_out = 1, done = 0;
    char buf[4096];
    while (!done) {
        double left = deadline - now_s();
        if (left <= 0) {
            r->timed_out = 1;
            break;
        }
        if (open_out) {
            struct pollfd p = {.fd = out[0], .events = POLLIN};
            int ms = left > 1000.0 ? 1000 : (int)(left * 1000.0) + 1;
            int pr = poll(&p, 1, ms);
            if (pr < 0 && errno != EINTR)
                open_out = 0;
            if (pr > 0) {
                ssize_t n = read(out[0], buf, sizeof buf);
                if (n > 0)
                    tail_add(r, buf, (size_t)n);
                else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                    open_out = 0;
            }
        }
        pid_t w = waitpid(pid, &r->status, WNOHANG);
        if (w == pid)
            done = 1;
        else if (w < 0 && errno != EINTR) {
            done = 1; /* cannot happen for our own child; treat as gone */
            r->status = 0x7f00; /* exit status 127 */
        } else if (!open_out) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (done && open_out) { /* what it wrote just before exiting */
        int fl = fcntl(out[0], F_GETFL);
        if (fl >= 0)
            (void)fcntl(out[0], F_SETFL, fl | O_NONBLOCK);
        ssize_t n;
        while ((n = read(out[0], buf, sizeof buf)) > 0)
            tail_add(r, buf, (size_t)n);
    }
    /* The group: the generator on a timeout, what it left behind otherwise. */
    kill(-pid, SIGKILL);
    if (!done) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
            ;
    }
    close(out[0]);
    return G16_OK;
}

/* ---- scratch directory ------------------------------------------------------ */

/* Overwrites the regular file at dir/name with zeros (its current size). */
static void wipe_file(int dirfd, const char *name) {
    int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* a FIFO: ENXIO, no wait */
    if (fd < 0)
        return;
    struct stat sb;
    if (!fstat(fd, &sb) && S_ISREG(sb.st_mode)) {
        static const char zeros[65536];
        off_t left = sb.st_size, off = 0;
        while (left > 0) {
            size_t k = left > (off_t)sizeof zeros ? sizeof zeros : (size_t)left;
            ssize_t w = pwrite(fd, zeros, k, off);
            if (w <= 0)
                break;
            off += w;
            left -= w;
        }
        (void)fdatasync(fd);
    }
    close(fd);
}

/* Removes dir and everything in it (regular files wiped first); depth-bounded. */
static void remove_tree(int parent, const char *name, int depth) {
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && depth < 16) {
        DIR *d = fdopendir(fd);
        if (d) {
            struct dirent *e;
            /* Unlinking while reading may skip entries: read again, a few
             * times at most (an entry that cannot be removed stays). */
            for (int pass = 0; pass < 4; pass++) {
                rewinddir(d);
                int removed = 0;
                while ((e = readdir(d)) != NULL) {
                    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                        continue;
                    struct stat sb;
                    if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW))
                        continue;
                    if (S_ISDIR(sb.st_mode)) {
                        remove_tree(dirfd(d), e->d_name, depth + 1);
                    } else {
                        if (S_ISREG(sb.st_mode))
                            wipe_file(dirfd(d), e->d_name);
                        unlinkat(dirfd(d), e->d_name, 0);
                    }
                    removed++;
                }
                if (!removed)
                    break;
            }
            closedir(d); /* closes fd */
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    unlinkat(parent, name, AT_REMOVEDIR);
}

/* Writes len bytes into a new file dir/name (0600). */
static int write_new(const char *path, const void *data, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const uint8_t *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return close(fd);
}

/* Reads the whole regular file path (no symlink) into *out. */
static int read_all(const char *path, uint8_t **out, size_t *len) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* a FIFO: no wait for a writer */
    if (fd < 0)
        return -1;
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    size_t n = (size_t)sb.st_size, o = 0;
    uint8_t *b = malloc(n);
    if (!b) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    while (o < n) {
        ssize_t r = read(fd, b + o, n - o);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        o += (size_t)r;
    }
    close(fd);
    if (o != n) {
        g16_wipe(b, n);
        free(b);
        errno = EIO;
        return -1;
    }
    *out = b;
    *len = n;
    return 0;
}

/* Line [s, e) of the output, trimmed, is worth showing: not empty, not a
 * stack frame ("at ..."), not node's version banner, not a caret line. */
static int line_useful(const char *t, size_t s, size_t e) {
    while (s < e && (t[s] == ' ' || t[s] == '\t' || t[s] == '\r'))
        s++;
    while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t' || t[e - 1] == '\r'))
        e--;
    if (s == e || (e - s >= 3 && !memcmp(t + s, "at ", 3)) || (e - s >= 9 && !memcmp(t + s, "Node.js v", 9)))
        return 0;
    for (size_t i = s; i < e; i++)
        if (t[i] != '^' && t[i] != '~' && t[i] != ' ')
            return 1;
    return 0;
}

static int line_has(const char *t, size_t s, size_t e, const char *w) {
    size_t n = strlen(w);
    for (size_t i = s; i + n <= e; i++)
        if (!memcmp(t + i, w, n))
            return 1;
    return 0;
}

/* What the generator said, for the message (one line into out, cap bytes,
 * "" when nothing): the last line naming an error ("Error: ...", node's
 * uncaught exceptions), else its last two useful lines. */
static void last_lines(const child_result *r, char *out, size_t cap) {
    const char *t = r->tail;
    size_t n = r->tail_len, pick_s[2] = {0, 0}, pick_e[2] = {0, 0};
    int npick = 0, err_line = 0;
    size_t e = n;
    while (e > 0 && !err_line) {
        size_t s = e;
        while (s && t[s - 1] != '\n')
            s--;
        if (line_useful(t, s, e)) {
            if (line_has(t, s, e, "Error")) {
                pick_s[0] = s, pick_e[0] = e, npick = 1, err_line = 1;
            } else if (npick < 2) {
                pick_s[1] = pick_s[0], pick_e[1] = pick_e[0];
                pick_s[0] = s, pick_e[0] = e;
                npick++;
            }
        }
        e = s ? s - 1 : 0;
    }
    size_t o = 0;
    out[0] = 0;
    for (int k = 0; k < npick; k++) {
        if (k && o + 3 < cap) {
            memcpy(out + o, " / ", 3);
            o += 3;
        }
        for (size_t i = pick_s[k]; i < pick_e[k] && o + 1 < cap; i++) {
            unsigned char c = (unsigned char)t[i];
            if (c == '\t' || c == '\r')
                c = ' ';
            else if (c < 0x20 || c == 0x7f)
                continue; /* colour escapes and the like */
            if (c == ' ' && (!o || out[o - 1] == ' '))
                continue;
            out[o++] = (char)c;
        }
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = 0;
    /* Keep the end of a long text: that is where the reason usually is. */
    size_t keep = 150;
    if (o > keep) {
        memmove(out + 3, out + o - (keep - 3), keep - 3);
        memcpy(out, "...", 3);
        out[keep] = 0;
    }
}

#define INPUT_MAX ((size_t)1 << 30) /* bytes of an input file */

/* Reads the input file whole, whatever it is (a pipe from process
 * substitution too), into *out (malloc'd, secret), at most INPUT_MAX. */
static g16_err read_input(const char *path, uint8_t **out, size_t *len, g16_status *st) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return g16_fail(st, G16_ERR_IO, "input %.150s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    g16_err err = b ? G16_OK : g16_fail(st, G16_ERR_NOMEM, "input %.150s: out of memory", path);
    while (!err) {
        if (n == cap) {
            uint8_t *nb = cap < INPUT_MAX ? malloc(cap * 2) : NULL;
            if (!nb) {
                err = cap < INPUT_MAX ? g16_fail(st, G16_ERR_NOMEM, "input %.150s: out of memory", path)
                                      : g16_fail(st, G16_ERR_FORMAT, "input %.150s: over 1 GiB", path);
                break;
            }
            memcpy(nb, b, n);
            g16_wipe(b, n);
            free(b);
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            err = g16_fail(st, G16_ERR_IO, "input %.150s: %s", path, strerror(errno));
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (err) {
        if (b)
            g16_wipe(b, cap);
        free(b);
        return err;
    }
    *out = b;
    *len = n;
    return G16_OK;
}

static g16_err check_input(const void *data, size_t len, const char *name, g16_status *st) {
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_DECODE_ANY, &je);
    if (!j)
        return g16_fail(st, G16_ERR_FORMAT, "input %.120s is not JSON: %.80s (line %d)", name, je.text, je.line);
    int obj = json_is_object(j);
    json_decref(j);
    if (!obj)
        return g16_fail(st, G16_ERR_FORMAT, "input %.150s is not a JSON object", name);
    return G16_OK;
}

g16_err witgen_run(const witgen_limits *lim, const char *gen, const char *input_path, const void *input_json,
                   size_t input_len, const char *input_name, uint8_t **out, size_t *out_len, g16_status *st) {
    *out = NULL;
    *out_len = 0;
    if (!input_path && !input_json)
        return g16_fail(st, G16_ERR_INVALID_ARG, "witness generator: no input (a path or JSON bytes)");
    const char *iname = input_path ? input_path : input_name && input_name[0] ? input_name : "input";
    g16_witgen_kind kind;
    char js[PATH_MAX], gen_abs[PATH_MAX];
    g16_err err = witgen_kind(gen, lim, 0, &kind, js, st);
    if (err)
        return err;
    if (!realpath(gen, gen_abs))
        return g16_fail(st, G16_ERR_IO, "witness generator %.150s: %s", gen, strerror(errno));
    /* The input always goes into the scratch directory: a file is read first
     * (so that a pipe works, and the copy is wiped with the rest). */
    uint8_t *file_in = NULL;
    size_t file_len = 0;
    if (input_path) {
        if ((err = read_input(input_path, &file_in, &file_len, st)))
            return err;
        input_json = file_in;
        input_len = file_len;
    }
    if ((err = check_input(input_json, input_len, iname, st))) {
        if (file_in)
            g16_wipe(file_in, file_len);
        free(file_in);
        return err;
    }

    char dir[PATH_MAX + 32];
    const char *root = lim->scratch[0] ? lim->scratch : "/tmp";
    if ((size_t)snprintf(dir, sizeof dir, "%s/g16-witgen-XXXXXX", root) >= sizeof dir || !mkdtemp(dir)) {
        err = g16_fail(st, G16_ERR_IO, "witness generator: cannot make a scratch directory in %.150s: %s", root,
                       strerror(errno));
        if (file_in)
            g16_wipe(file_in, file_len);
        free(file_in);
        return err;
    }
    char in_path[PATH_MAX + 64], wtns_path[PATH_MAX + 64];
    snprintf(in_path, sizeof in_path, "%s/input.json", dir);
    snprintf(wtns_path, sizeof wtns_path, "%s/witness.wtns", dir);
    int wr = write_new(in_path, input_json, input_len);
    if (file_in)
        g16_wipe(file_in, file_len);
    free(file_in);
    if (wr) {
        err = g16_fail(st, G16_ERR_IO, "witness generator: cannot write the input into %.150s: %s", dir,
                       strerror(errno));
        goto done;
    }
    const char *inp = in_path;
    const char *node = lim->node[0] ? lim->node : "node";
    char *argv[6];
    child_spec cs = {.argv = argv, .cwd = dir, .limit = lim->memory_bytes, .timeout_s = lim->timeout_s};
    if (kind == G16_WITGEN_WASM) {
        argv[0] = (char *)node;
        argv[1] = js;
        argv[2] = gen_abs;
        argv[3] = (char *)inp;
        argv[4] = wtns_path;
        argv[5] = NULL;
        cs.use_path = !strchr(node, '/');
        cs.rlimit = RLIMIT_DATA;
    } else {
        argv[0] = gen_abs;
        argv[1] = (char *)inp;
        argv[2] = wtns_path;
        argv[3] = NULL;
        cs.rlimit = RLIMIT_AS;
    }
    child_result r;
    if ((err = run_child(&cs, &r, st)))
        goto done;
    char lines[160], how[120];
    last_lines(&r, lines, sizeof lines);
    const char *gname = base_name(gen);
    if (r.exec_errno) {
        err = g16_fail(st, G16_ERR_IO, "witness generator %.100s: cannot run %.100s: %s%s", gname, argv[0],
                       strerror(r.exec_errno),
                       kind == G16_WITGEN_WASM ? " (witgen.node names the node to use)" : "");
        goto done;
    }
    how[0] = 0;
    if (r.timed_out)
        snprintf(how, sizeof how, "killed at the time limit of %g s (witgen.timeout_s)", lim->timeout_s);
    else if (WIFSIGNALED(r.status))
    {
        char ml[48] = "";
        if (lim->memory_bytes)
            snprintf(ml, sizeof ml, "; memory limit %llu MiB", (unsigned long long)(lim->memory_bytes >> 20));
        snprintf(how, sizeof how, "killed by signal %d (%s%s)", WTERMSIG(r.status), strsignal(WTERMSIG(r.status)), ml);
    }
    else if (WIFEXITED(r.status) && WEXITSTATUS(r.status))
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(r.status));
    if (how[0]) {
        err = g16_fail(st, G16_ERR_WITNESS_GEN, "witness generator %.60s failed on %.60s: %s%s%s", gname,
                       base_name(iname), how, lines[0] ? ": " : "", lines);
        goto done;
    }
    if (read_all(wtns_path, out, out_len)) {
        err = g16_fail(st, G16_ERR_WITNESS_GEN, "witness generator %.60s on %.60s exited 0 but wrote no witness%s%s",
                       gname, base_name(iname), lines[0] ? ": " : "", lines);
        goto done;
    }
done:
    remove_tree(AT_FDCWD, dir, 0);
    return err;
}

/* node can be run: `NODE --version` exits 0 within 30 s. */
static g16_err node_check(const witgen_limits *lim, const char *gen, g16_status *st) {
    const char *node = lim->node[0] ? lim->node : "node";
    char *argv[] = {(char *)node, "--version", NULL};
    child_spec cs = {.argv = argv, .use_path = !strchr(node, '/'), .rlimit = -1, .timeout_s = 30};
    child_result r;
    g16_err err = run_child(&cs, &r, st);
    if (err)
        return err;
    if (r.exec_errno)
        return g16_fail(st, G16_ERR_IO, "witness generator %.120s is a circom .wasm, but %.100s cannot run: %s "
                        "(witgen.node names the node to use)", gen, node, strerror(r.exec_errno));
    if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status))
        return g16_fail(st, G16_ERR_IO, "witness generator %.120s is a circom .wasm, but '%.100s --version' failed",
                        gen, node);
    return G16_OK;
}
