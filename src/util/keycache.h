/* The checked-key cache: a record that a key file passed its point checks,
 * so that the next load of the same, unchanged file can skip them
 * (key.check_cache_dir; docs/formats.md, "The checked-key cache").
 *
 * A record names the file by device, inode, size, mtime and ctime (ctime
 * cannot be set back by an unprivileged writer, and every write, rename,
 * chmod or truncate moves it) and holds the kind of key and the level of
 * the checks that passed. It lives in its own file, <dir>/<hash>, written
 * to a temporary file and renamed. Lookups trust a record only when the
 * directory and the record are owned by the effective user and writable by
 * nobody else, and when every field matches. A file changed within
 * min_age_s seconds of its check is not recorded: file times move in
 * coarse steps, so a write just after the check could leave them equal.
 *
 * Skipping the checks never makes a wrong proof: the prover verifies every
 * proof before it returns it (the self-check), so a key that went bad
 * anyway gives an error; the checks only make that error name the point.
 * Every failure here (no home, no permission, a full disk) is silent: the
 * key is then checked as without the cache. */
#ifndef G16_UTIL_KEYCACHE_H
#define G16_UTIL_KEYCACHE_H

#include <stddef.h>
#include <sys/stat.h>

/* The directory of option value opt (key.check_cache_dir) in buf: "" means
 * <the effective user's home>/.cache/g16/keys (from the password database,
 * not the environment), "off" none; else opt itself. Returns buf, or NULL
 * for none (off, or no home). */
const char *g16_keycache_dir(const char *opt, char *buf, size_t cap);

/* Whether a and b (fstat of one file, earlier and later) show the same
 * identity: device, inode, size, mtime and ctime, as a record holds them. */
int g16_keycache_same_file(const struct stat *a, const struct stat *b);

/* Whether dir holds a record for the file of sb, of kind (at most 15
 * characters) and a level >= level. */
int g16_keycache_hit(const char *dir, const struct stat *sb, const char *kind, int level);

/* Records that the file of sb passed the checks of kind at level (a higher
 * level of an existing record is kept). Creates dir and the directories
 * above it that are missing (0700). Nothing when the file changed less
 * than min_age_s seconds ago. Returns 1 if a record was written. */
int g16_keycache_store(const char *dir, const struct stat *sb, const char *kind, int level, int min_age_s);

#endif
