/* The checked-key cache (keycache.h). */
#define _GNU_SOURCE
#include "keycache.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blake2b.h"

#define REC_MAGIC "g16kc\0\0\1"

/* One record, written and read as these bytes (one machine: no byte order
 * concerns); sum = BLAKE2b-128 of the bytes before it. */
typedef struct rec {
    char magic[8];
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
    int32_t level, pad;
    char kind[16];
    uint8_t sum[16];
} rec;

const char *g16_keycache_dir(const char *opt, char *buf, size_t cap) {
    if (!buf || cap == 0)
        return NULL;
    if (opt && !strcmp(opt, "off"))
        return NULL;
    if (opt && *opt) {
        if (strlen(opt) >= cap)
            return NULL;
        memcpy(buf, opt, strlen(opt) + 1);
        return buf;
    }
    char pw_buf[4096];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(geteuid(), &pw, pw_buf, sizeof pw_buf, &res) != 0 || !res || !res->pw_dir || !*res->pw_dir)
        return NULL;
    int n = snprintf(buf, cap, "%s/.cache/g16/keys", res->pw_dir);
    return n > 0 && (size_t)n < cap ? buf : NULL;
}

static void rec_fill(rec *r, const struct stat *sb, const char *kind, int level) {
    memset(r, 0, sizeof *r);
    memcpy(r->magic, REC_MAGIC, 8);
    r->dev = (uint64_t)sb->st_dev;
    r->ino = (uint64_t)sb->st_ino;
    r->size = (uint64_t)sb->st_size;
    r->mtime_s = (int64_t)sb->st_mtim.tv_sec;
    r->mtime_ns = (int64_t)sb->st_mtim.tv_nsec;
    r->ctime_s = (int64_t)sb->st_ctim.tv_sec;
    r->ctime_ns = (int64_t)sb->st_ctim.tv_nsec;
    r->level = level;
    snprintf(r->kind, sizeof r->kind, "%s", kind ? kind : "");
}

static void rec_sum(const rec *r, uint8_t out[16]) {
    g16_blake2b h;
    g16_blake2b_init(&h, 16);
    g16_blake2b_update(&h, r, offsetof(rec, sum));
    g16_blake2b_final(&h, out);
}

/* <dir>/<BLAKE2b-128 of (dev, ino, kind) in hex> */
static int rec_path(char *out, size_t cap, const char *dir, const struct stat *sb, const char *kind) {
    uint64_t id[2] = {(uint64_t)sb->st_dev, (uint64_t)sb->st_ino};
    char k[16] = {0};
    snprintf(k, sizeof k, "%s", kind ? kind : "");
    uint8_t d[16];
    g16_blake2b h;
    g16_blake2b_init(&h, 16);
    g16_blake2b_update(&h, id, sizeof id);
    g16_blake2b_update(&h, k, sizeof k);
    g16_blake2b_final(&h, d);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    int n = snprintf(out, cap, "%s/%s", dir, hex);
    return n > 0 && (size_t)n < cap;
}

/* dir exists, is a directory owned by the effective user, writable by no one else. */
static int dir_private(const char *dir) {
    struct stat ds;
    return lstat(dir, &ds) == 0 && S_ISDIR(ds.st_mode) && ds.st_uid == geteuid() && (ds.st_mode & 022) == 0;
}

/* The record at path, when it is a private regular file of the right size
 * whose checksum holds. */
static int rec_read(const char *path, rec *r) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat rs;
    int ok = fstat(fd, &rs) == 0 && S_ISREG(rs.st_mode) && rs.st_uid == geteuid() && (rs.st_mode & 022) == 0 &&
             rs.st_size == (off_t)sizeof *r && read(fd, r, sizeof *r) == (ssize_t)sizeof *r;
    close(fd);
    if (!ok || memcmp(r->magic, REC_MAGIC, 8) != 0)
        return 0;
    uint8_t s[16];
    rec_sum(r, s);
    return memcmp(s, r->sum, 16) == 0;
}

int g16_keycache_same_file(const struct stat *a, const struct stat *b) {
    rec ra, rb;
    rec_fill(&ra, a, "", 0);
    rec_fill(&rb, b, "", 0);
    return memcmp(&ra, &rb, sizeof ra) == 0;
}

int g16_keycache_hit(const char *dir, const struct stat *sb, const char *kind, int level) {
    char path[4096];
    if (!dir || !sb || !S_ISREG(sb->st_mode) || !rec_path(path, sizeof path, dir, sb, kind) || !dir_private(dir))
        return 0;
    rec r, want;
    if (!rec_read(path, &r))
        return 0;
    rec_fill(&want, sb, kind, r.level);
    return r.level >= level && memcmp(&r, &want, offsetof(rec, sum)) == 0;
}

/* mkdir -p of dir, each missing directory 0700; dir itself must end up private. */
static int dir_make(const char *dir) {
    if (dir_private(dir))
        return 1;
    char p[4096];
    int n = snprintf(p, sizeof p, "%s", dir);
    if (n <= 0 || (size_t)n >= sizeof p)
        return 0;
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(p, 0700) != 0 && errno != EEXIST)
                return 0;
            *c = '/';
        }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return 0;
    return dir_private(dir);
}

int g16_keycache_store(const char *dir, const struct stat *sb, const char *kind, int level, int min_age_s) {
    char path[4096], tmp[4200];
    if (!dir || !sb || !S_ISREG(sb->st_mode) || !rec_path(path, sizeof path, dir, sb, kind))
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t changed = sb->st_mtim.tv_sec > sb->st_ctim.tv_sec ? sb->st_mtim.tv_sec : sb->st_ctim.tv_sec;
    if ((int64_t)now.tv_sec - changed < min_age_s)
        return 0;
    if (g16_keycache_hit(dir, sb, kind, level))
        return 0; /* already recorded at this level or higher */
    if (!dir_make(dir))
        return 0;
    rec r;
    rec_fill(&r, sb, kind, level);
    rec_sum(&r, r.sum);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    (void)unlink(tmp); /* one left by a process that died with this pid (the directory is ours alone) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    int ok = write(fd, &r, sizeof r) == (ssize_t)sizeof r;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return 0;
    }
    return 1;
}
