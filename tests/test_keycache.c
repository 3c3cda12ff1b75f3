/* util layer: the checked-key cache (util/keycache.h). A record matches its
 * file only while the file is unchanged (an append, a same-size rewrite, a
 * replacement by rename each miss), only at its level or below, only of its
 * kind; a record or directory that others may write, a damaged record and a
 * file changed less than min_age_s ago are never trusted or written; the
 * option's values resolve as documented; store makes the missing
 * directories above its own. Files live in a fresh directory
 * under $TMPDIR (or /tmp). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "util/keycache.h"

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int stat_ok(const char *path, struct stat *sb) { return stat(path, sb) == 0; }

/* The one record file of dir ("" when none or more than one). */
static void only_record(const char *dir, char *out, size_t cap) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -1 '%s' 2>/dev/null", dir);
    out[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        if (++n == 1)
            snprintf(out, cap, "%s/%s", dir, line);
    }
    pclose(p);
    if (n != 1)
        out[0] = 0;
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    char root[512], dir[600], key[600], key2[600], rec[1200];
    snprintf(root, sizeof root, "%s/g16-keycache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL);
    snprintf(dir, sizeof dir, "%s/a/cache/g16/keys", root); /* four levels made by store */
    snprintf(key, sizeof key, "%s/a.zkey", root);
    snprintf(key2, sizeof key2, "%s/b.zkey", root);
    write_file(key, "key bytes, version 1");
    struct stat sb, sb2;
    CHECK(stat_ok(key, &sb));

    /* a file changed just now is not recorded with a minimum age */
    CHECK(g16_keycache_store(dir, &sb, "zkey", 1, 1000) == 0);
    CHECK(!g16_keycache_hit(dir, &sb, "zkey", 1));
    /* recorded at level 1: hits at 1 only, and for its kind only */
    CHECK(g16_keycache_store(dir, &sb, "zkey", 1, 0) == 1);
    struct stat ds;
    CHECK(stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode) && (ds.st_mode & 077) == 0);
    CHECK(g16_keycache_hit(dir, &sb, "zkey", 1));
    CHECK(!g16_keycache_hit(dir, &sb, "zkey", 2));
    CHECK(!g16_keycache_hit(dir, &sb, "params", 1));
    /* level 2 replaces it and covers level 1 */
    CHECK(g16_keycache_store(dir, &sb, "zkey", 2, 0) == 1);
    CHECK(g16_keycache_hit(dir, &sb, "zkey", 2) && g16_keycache_hit(dir, &sb, "zkey", 1));
    CHECK(g16_keycache_store(dir, &sb, "zkey", 1, 0) == 0); /* already covered */

    /* an append misses */
    sleep_ms(30);
    FILE *f = fopen(key, "ab");
    CHECK(f != NULL);
    if (f) {
        fputs("!", f);
        fclose(f);
    }
    CHECK(stat_ok(key, &sb2));
    CHECK(!g16_keycache_hit(dir, &sb2, "zkey", 1));
    CHECK(g16_keycache_same_file(&sb, &sb) && !g16_keycache_same_file(&sb, &sb2));
    /* a same-size rewrite in place misses (mtime and ctime move) */
    CHECK(g16_keycache_store(dir, &sb2, "zkey", 1, 0) == 1);
    sleep_ms(30);
    int fd = open(key, O_WRONLY);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(pwrite(fd, "K", 1, 0) == 1);
        close(fd);
    }
    struct stat sb3;
    CHECK(stat_ok(key, &sb3) && sb3.st_size == sb2.st_size);
    CHECK(!g16_keycache_hit(dir, &sb3, "zkey", 1));
    /* a chmod alone misses too (ctime) */
    CHECK(g16_keycache_store(dir, &sb3, "zkey", 1, 0) == 1);
    sleep_ms(30);
    CHECK(chmod(key, 0600) == 0);
    struct stat sb4;
    CHECK(stat_ok(key, &sb4));
    CHECK(!g16_keycache_hit(dir, &sb4, "zkey", 1));
    /* a replacement by rename (another inode) misses */
    CHECK(g16_keycache_store(dir, &sb4, "zkey", 1, 0) == 1);
    write_file(key2, "key bytes, version 2!");
    CHECK(rename(key2, key) == 0);
    struct stat sb5;
    CHECK(stat_ok(key, &sb5));
    CHECK(!g16_keycache_hit(dir, &sb5, "zkey", 1));

    /* the record of sb4: others may write it, or it is damaged: no hit */
    CHECK(g16_keycache_hit(dir, &sb4, "zkey", 1));
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dir);
    CHECK(system(cmd) == 0);
    CHECK(g16_keycache_store(dir, &sb4, "zkey", 1, 0) == 1);
    only_record(dir, rec, sizeof rec);
    CHECK_MSG(rec[0] != 0, "no single record in %s", dir);
    CHECK(chmod(rec, 0666) == 0);
    CHECK(!g16_keycache_hit(dir, &sb4, "zkey", 1));
    CHECK(chmod(rec, 0600) == 0);
    CHECK(g16_keycache_hit(dir, &sb4, "zkey", 1));
    fd = open(rec, O_RDWR);
    CHECK(fd >= 0);
    if (fd >= 0) { /* one byte of the ctime field */
        unsigned char b = 0;
        CHECK(pread(fd, &b, 1, 60) == 1);
        b ^= 1;
        CHECK(pwrite(fd, &b, 1, 60) == 1);
        close(fd);
    }
    CHECK(!g16_keycache_hit(dir, &sb4, "zkey", 1));
    /* a directory others may write: no hit, no store */
    CHECK(g16_keycache_store(dir, &sb5, "zkey", 1, 0) == 1);
    CHECK(g16_keycache_hit(dir, &sb5, "zkey", 1));
    CHECK(chmod(dir, 0777) == 0);
    CHECK(!g16_keycache_hit(dir, &sb5, "zkey", 1));
    CHECK(g16_keycache_store(dir, &sb5, "zkey", 2, 0) == 0);
    CHECK(chmod(dir, 0700) == 0);
    /* no directory: NULL is "none" */
    CHECK(!g16_keycache_hit(NULL, &sb5, "zkey", 1) && g16_keycache_store(NULL, &sb5, "zkey", 1, 0) == 0);

    /* the option's values */
    char buf[1024];
    CHECK(g16_keycache_dir("off", buf, sizeof buf) == NULL);
    CHECK(g16_keycache_dir("/some/dir", buf, sizeof buf) == buf && !strcmp(buf, "/some/dir"));
    const char *d = g16_keycache_dir("", buf, sizeof buf);
    CHECK_MSG(!d || (strlen(d) > 16 && !strcmp(d + strlen(d) - 16, "/.cache/g16/keys")), "default dir %s",
              d ? d : "(none)");
    CHECK(g16_keycache_dir("/some/dir", buf, 4) == NULL); /* does not fit */

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return t_done("test_keycache");
}
