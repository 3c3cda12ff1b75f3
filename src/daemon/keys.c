/* The daemon's proving keys: its own ids (the names clients use and the
 * store records) mapped to engine keys, with the header facts the API
 * reports and admission checks use (curve, nVars). Keys live in memory:
 * config `key = id:path` lines register them at every start. */
#include "daemon.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_err(g16d_api_err *e, int http, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_err(g16d_api_err *e, int http, const char *code, const char *fmt, ...) {
    e->http = http;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

static int under_root(const g16d *d, const char *path) {
    for (size_t i = 0; i < d->cfg->n_roots; i++) {
        const char *r = d->cfg->roots[i];
        size_t n = strlen(r);
        if (!strcmp(r, "/") || (!strncmp(path, r, n) && (path[n] == '/' || path[n] == 0)))
            return 1;
    }
    return 0;
}

/* An absolute path with ".", ".." and repeated slashes resolved textually
 * (no symlinks), into out (PATH_MAX bytes). */
static int lexical_normalize(const char *p, char *out) {
    size_t n = 0;
    out[0] = 0;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t len = (size_t)(p - s);
        if (!len || (len == 1 && s[0] == '.'))
            continue;
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (n && out[n - 1] != '/')
                n--;
            if (n)
                n--;
            out[n] = 0;
            continue;
        }
        if (n + 1 + len >= PATH_MAX)
            return -1;
        out[n++] = '/';
        memcpy(out + n, s, len);
        n += len;
        out[n] = 0;
    }
    if (!n) {
        out[0] = '/';
        out[1] = 0;
    }
    return 0;
}

int g16d_path_check(const g16d *d, const char *p, char *out, g16d_api_err *e) {
    if (!p || p[0] != '/') {
        set_err(e, 400, "invalid_arg", "path '%s' is not absolute", p ? p : "");
        return -1;
    }
    if (!d->cfg->n_roots) {
        set_err(e, 403, "forbidden_path", "path '%s': no allowed_roots are configured", p);
        return -1;
    }
    if (!realpath(p, out)) {
        int en = errno;
        /* A missing file is 404 only if its path lies under a root (taken
         * lexically); else 403, so as not to reveal what exists elsewhere. */
        if ((en == ENOENT || en == ENOTDIR) && lexical_normalize(p, out) == 0 && under_root(d, out))
            set_err(e, 404, "not_found", "path '%s': %s", p, strerror(en));
        else if (en == ENOENT || en == ENOTDIR)
            set_err(e, 403, "forbidden_path", "path '%s' is outside the allowed roots", p);
        else
            set_err(e, 403, "forbidden_path", "path '%s': %s", p, strerror(en));
        return -1;
    }
    if (!under_root(d, out)) {
        set_err(e, 403, "forbidden_path", "path '%s' is outside the allowed roots", p);
        return -1;
    }
    struct stat sb;
    if (stat(out, &sb)) {
        int en = errno;
        set_err(e, en == ENOENT ? 404 : 403, en == ENOENT ? "not_found" : "forbidden_path", "path '%s': %s", p,
                strerror(en));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        set_err(e, 400, "invalid_arg", "path '%s' is %s, not a regular file", p,
                S_ISDIR(sb.st_mode) ? "a directory" : "a special file");
        return -1;
    }
    return 0;
}

static int valid_id(const char *id) {
    size_t n = strlen(id);
    if (!n || n >= 128)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return 0;
    }
    return 1;
}

static g16d_key *find(g16d *d, const char *id) {
    for (size_t i = 0; i < d->n_keys; i++)
        if (!strcmp(d->keys[i].id, id))
            return &d->keys[i];
    return NULL;
}

int g16d_key_find(g16d *d, const char *id, g16d_key *out) {
    pthread_mutex_lock(&d->mtx);
    g16d_key *k = find(d, id);
    if (k && out)
        *out = *k;
    pthread_mutex_unlock(&d->mtx);
    return k != NULL;
}

/* The key file's header facts (curve, nVars, nPublic, domain) into k. */
static int is_params_path(const char *path) {
    size_t n = strlen(path);
    return n >= 7 && !strcmp(path + n - 7, ".params");
}

static g16_err key_shape(g16_ctx *ctx, const char *path, g16d_key *k, g16_status *st) {
    k->params = is_params_path(path);
    if (k->params) {
        size_t ni = 0, na = 0, dom = 0;
        g16_err err = g16_params_key_peek(ctx, path, &ni, &na, &dom);
        if (err)
            return g16_fail(st, err, "%s", g16d_last_engine_error());
        if (ni < 1 || ni + na > UINT32_MAX || dom > UINT32_MAX)
            return g16_fail(st, G16_ERR_UNSUPPORTED, "%s: %zu inputs, %zu aux, domain %zu: too large", path, ni, na,
                            dom);
        k->curve = G16_CURVE_BLS12_381;
        k->n_vars = (uint32_t)(ni + na);
        k->n_public = (uint32_t)(ni - 1);
        k->domain = (uint32_t)dom;
        return G16_OK;
    }
    g16_key_header kh;
    g16_err err = g16_key_peek(ctx, &kh, path);
    if (err)
        return g16_fail(st, err, "%s", g16d_last_engine_error());
    k->curve = kh.curve;
    k->n_vars = kh.n_vars;
    k->n_public = kh.n_public;
    k->domain = kh.domain_size;
    return G16_OK;
}

/* stat() facts of path into k; 0, or -1 with errno. */
static int file_facts(const char *path, g16d_key *k) {
    struct stat sb;
    if (stat(path, &sb))
        return -1;
    k->f_dev = (uint64_t)sb.st_dev;
    k->f_ino = (uint64_t)sb.st_ino;
    k->f_size = (uint64_t)sb.st_size;
    k->f_mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    return 0;
}

int g16d_key_register(g16d *d, const char *id, const char *path, const char *witgen, g16_key_tier tier,
                      int check_roots, g16d_key *out, int *existed, g16d_api_err *e) {
    char rp[PATH_MAX], gp[PATH_MAX] = "";
    *existed = 0;
    if (!id || !valid_id(id)) {
        set_err(e, 400, "invalid_arg", "key id '%s': 1-127 characters of A-Z a-z 0-9 . _ -", id ? id : "");
        return -1;
    }
    if (check_roots) {
        if (g16d_path_check(d, path, rp, e))
            return -1;
    } else if (!realpath(path, rp)) {
        set_err(e, 404, "not_found", "key path '%s': %s", path, strerror(errno));
        return -1;
    }
    if (witgen && witgen[0] && is_params_path(rp)) {
        set_err(e, 400, "invalid_arg", "key '%s' is a .params key: its jobs carry assignments, not inputs for a "
                "witness generator", id);
        return -1;
    }
    if (witgen && witgen[0]) {
        if (check_roots) {
            if (g16d_path_check(d, witgen, gp, e))
                return -1;
        } else if (!realpath(witgen, gp)) {
            set_err(e, 404, "not_found", "witness generator '%s': %s", witgen, strerror(errno));
            return -1;
        }
        if (g16_witgen_check(d->ctx, NULL, gp, NULL)) {
            set_err(e, 422, "witness_generator", "%s", g16d_last_engine_error());
            return -1;
        }
    }
    pthread_mutex_lock(&d->mtx);
    g16d_key *k = find(d, id);
    if (k) {
        int same = !strcmp(k->path, rp) && !strcmp(k->witgen, gp);
        if (same) {
            *out = *k;
            *existed = 1;
        }
        pthread_mutex_unlock(&d->mtx);
        if (same)
            return 0;
        if (!strcmp(k->path, rp))
            set_err(e, 409, "conflict", "key id '%s' is registered with another witness generator (%s)", id,
                    k->witgen[0] ? k->witgen : "none");
        else
            set_err(e, 409, "conflict", "key id '%s' is registered with another path (%s)", id, k->path);
        return -1;
    }
    pthread_mutex_unlock(&d->mtx);

    /* The header (and the coefficient section) is checked here for a precise
     * error; the engine then loads the key with the configured checks. */
    g16d_key nk;
    memset(&nk, 0, sizeof nk);
    snprintf(nk.id, sizeof nk.id, "%s", id);
    snprintf(nk.path, sizeof nk.path, "%s", rp);
    snprintf(nk.witgen, sizeof nk.witgen, "%s", gp);
    nk.tier = tier;
    g16_status st = {0};
    file_facts(rp, &nk);
    g16_err err = key_shape(d->ctx, rp, &nk, &st);
    if (err) {
        set_err(e, err == G16_ERR_IO ? 403 : 422, err == G16_ERR_IO ? "forbidden_path" : g16d_err_code(err), "%s",
                st.msg);
        return -1;
    }
    err = g16_engine_key_add(d->eng, &nk.eng_id, rp,
                             (d->cfg->trusted_keys ? G16_KEY_TRUSTED : 0) | (nk.params ? G16_KEY_PARAMS : 0), tier);
    if (err) {
        set_err(e, err == G16_ERR_NOMEM ? 507 : 422, g16d_err_code(err), "%s", g16d_last_engine_error());
        return -1;
    }
    pthread_mutex_lock(&d->mtx);
    k = find(d, id);
    int rc = 0;
    if (k) { /* registered concurrently */
        if (!strcmp(k->path, rp) && !strcmp(k->witgen, gp)) {
            *out = *k;
            *existed = 1;
        } else {
            set_err(e, 409, "conflict", "key id '%s' is registered with another path (%s)", id, k->path);
            rc = -1;
        }
    } else if (d->n_keys == d->cap_keys) {
        size_t nc = d->cap_keys ? 2 * d->cap_keys : 8;
        g16d_key *nk2 = realloc(d->keys, nc * sizeof *nk2);
        if (!nk2) {
            set_err(e, 503, "nomem", "out of memory");
            rc = -1;
        } else {
            d->keys = nk2;
            d->cap_keys = nc;
        }
    }
    if (!rc && !k) {
        nk.from_config = !check_roots;
        d->keys[d->n_keys++] = nk;
        *out = nk;
    }
    pthread_mutex_unlock(&d->mtx);
    if (rc || k)
        (void)!g16_engine_key_remove(d->eng, nk.eng_id);
    if (!rc && !k)
        g16d_dispatch_wake(d); /* jobs of this key may be waiting */
    return rc;
}

int g16d_key_remove(g16d *d, const char *id, g16d_api_err *e) {
    pthread_mutex_lock(&d->mtx);
    g16d_key *k = find(d, id);
    if (!k) {
        pthread_mutex_unlock(&d->mtx);
        set_err(e, 404, "not_found", "no key '%s'", id);
        return -1;
    }
    if (k->inflight) {
        unsigned n = k->inflight;
        pthread_mutex_unlock(&d->mtx);
        set_err(e, 409, "conflict", "key '%s' is in use by %u running partitions", id, n);
        return -1;
    }
    uint64_t eid = k->eng_id;
    *k = d->keys[--d->n_keys];
    pthread_mutex_unlock(&d->mtx);
    (void)!g16_engine_key_remove(d->eng, eid);
    g16d_keys_save(d);
    return 0;
}

static pthread_mutex_t keys_file_mtx = PTHREAD_MUTEX_INITIALIZER;

void g16d_keys_save(g16d *d) {
    const char *path = d->cfg->keys_file;
    if (!path)
        return;
    pthread_mutex_lock(&keys_file_mtx);
    json_t *arr = json_array();
    pthread_mutex_lock(&d->mtx);
    for (size_t i = 0; i < d->n_keys; i++)
        if (!d->keys[i].from_config) {
            json_t *k = json_pack("{s:s,s:s,s:s}", "id", d->keys[i].id, "path", d->keys[i].path, "tier",
                                  d->keys[i].tier == G16_TIER_HOST ? "host" : "mmap");
            if (k && d->keys[i].witgen[0])
                json_object_set_new(k, "witness_generator", json_string(d->keys[i].witgen));
            json_array_append_new(arr, k);
        }
    pthread_mutex_unlock(&d->mtx);
    json_t *o = json_pack("{s:o}", "keys", arr);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int ok = 0;
    FILE *f = fopen(tmp, "w");
    if (f) {
        ok = json_dumpf(o, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', f) != EOF;
        ok = fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
        ok = fclose(f) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    json_decref(o);
    pthread_mutex_unlock(&keys_file_mtx);
    if (!ok)
        g16d_log(G16D_ERROR, "keys_file", json_pack("{s:s,s:s}", "path", path, "error", strerror(errno)));
}

void g16d_keys_restore(g16d *d) {
    const char *path = d->cfg->keys_file;
    if (!path)
        return;
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        if (access(path, F_OK) == 0)
            g16d_log(G16D_ERROR, "keys_file", json_pack("{s:s,s:s}", "path", path, "error", je.text));
        return;
    }
    json_t *arr = json_object_get(o, "keys");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *k = json_array_get(arr, i);
        const char *id = json_string_value(json_object_get(k, "id"));
        const char *kp = json_string_value(json_object_get(k, "path"));
        const char *tier = json_string_value(json_object_get(k, "tier"));
        const char *gen = json_string_value(json_object_get(k, "witness_generator"));
        g16d_key out;
        g16d_api_err e = {0};
        int existed = 0;
        if (!id || !kp) {
            g16d_log(G16D_WARN, "key_restore_failed", json_pack("{s:s,s:i}", "path", path, "entry", (int)i));
            continue;
        }
        if (g16d_key_register(d, id, kp, gen, tier && !strcmp(tier, "host") ? G16_TIER_HOST : G16_TIER_MMAP, 1,
                              &out, &existed, &e))
            g16d_log(G16D_WARN, "key_restore_failed",
                     json_pack("{s:s,s:s,s:s,s:s}", "key", id, "path", kp, "code", e.code, "message", e.msg));
        else
            g16d_log(G16D_INFO, "key_restored", json_pack("{s:s,s:s}", "key", id, "path", kp));
    }
    json_decref(o);
}

char **g16d_key_ids(g16d *d, size_t *n) {
    pthread_mutex_lock(&d->mtx);
    *n = d->n_keys;
    char **v = NULL;
    if (d->n_keys) {
        v = malloc(d->n_keys * (sizeof(char *) + 128));
        if (v) {
            char *blk = (char *)(v + d->n_keys);
            for (size_t i = 0; i < d->n_keys; i++) {
                v[i] = blk + 128 * i;
                memcpy(v[i], d->keys[i].id, 128);
            }
        } else {
            *n = 0;
        }
    }
    pthread_mutex_unlock(&d->mtx);
    return v;
}

/* Key files changed on disk. The facts of the file last loaded are kept in
 * the key; a change of inode, size or mtime is examined once (the new facts
 * are then the reference): a file of the same shape is reloaded (the engine
 * key is evicted when no partition uses it and loaded again from the path,
 * checked by a preload), anything else leaves the key broken until its file
 * changes again to one that loads. */
int g16d_key_check(g16d *d, const char *id, char *msg, size_t cap) {
    g16d_key old;
    pthread_mutex_lock(&d->mtx);
    g16d_key *k = find(d, id);
    if (!k) {
        pthread_mutex_unlock(&d->mtx);
        snprintf(msg, cap, "key '%s' is not registered", id);
        return -1;
    }
    old = *k;
    pthread_mutex_unlock(&d->mtx);

    g16d_key now = old;
    char why[512] = "";
    int changed = 0, broken = old.broken, reload = old.reload;
    if (file_facts(old.path, &now)) {
        snprintf(why, sizeof why, "key '%.100s': its file %.150s: %.60s", id, old.path, strerror(errno));
        changed = !old.broken || strcmp(why, old.broken_msg);
        broken = 1;
    } else if (now.f_dev != old.f_dev || now.f_ino != old.f_ino || now.f_size != old.f_size ||
               now.f_mtime_ns != old.f_mtime_ns) {
        changed = 1;
        g16_status st = {0};
        g16d_key shape = now;
        if (key_shape(d->ctx, old.path, &shape, &st)) {
            snprintf(why, sizeof why, "key '%.100s': its file %.150s changed under g16d and cannot be used: %.120s", id, old.path,
                     st.msg);
            broken = 1;
        } else if (shape.curve != old.curve || shape.n_vars != old.n_vars || shape.n_public != old.n_public ||
                   shape.domain != old.domain) {
            snprintf(why, sizeof why,
                     "key '%.100s': its file %.150s changed under g16d to another circuit (%u wires, %u public, domain %u; "
                     "registered: %u, %u, %u): register it under a new id",
                     id, old.path, shape.n_vars, shape.n_public, shape.domain, old.n_vars, old.n_public, old.domain);
            broken = 1;
        } else {
            broken = 0;
            reload = 1;
        }
        g16d_log(G16D_WARN, "key_file_changed",
                 json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:s}", "key", id, "path", old.path, "old_size",
                           (json_int_t)old.f_size, "size", (json_int_t)now.f_size, "old_inode", (json_int_t)old.f_ino,
                           "inode", (json_int_t)now.f_ino, "action", broken ? "refused" : "reload"));
    }
    if (reload && !broken) {
        /* Evict (refused while a partition uses it: tried again at the next
         * check), then load the new file now to check it. */
        if (!g16_engine_key_evict(d->eng, old.eng_id)) {
            reload = 0;
            if (g16_engine_key_preload(d->eng, old.eng_id)) {
                snprintf(why, sizeof why, "key '%.100s': its file %.150s changed under g16d and does not load: %.120s", id,
                         old.path, g16d_last_engine_error());
                broken = 1;
                changed = 1;
            } else {
                g16d_log(G16D_INFO, "key_reloaded", json_pack("{s:s,s:s}", "key", id, "path", old.path));
            }
        }
    }
    if (changed && broken)
        g16d_log(G16D_ERROR, "key_file_refused", json_pack("{s:s,s:s,s:s}", "key", id, "path", old.path, "reason", why));
    pthread_mutex_lock(&d->mtx);
    k = find(d, id);
    if (k && k->eng_id == old.eng_id) {
        if (changed) {
            k->f_dev = now.f_dev;
            k->f_ino = now.f_ino;
            k->f_size = now.f_size;
            k->f_mtime_ns = now.f_mtime_ns;
        }
        k->broken = broken;
        k->reload = reload;
        if (broken && why[0])
            snprintf(k->broken_msg, sizeof k->broken_msg, "%s", why);
        if (broken)
            snprintf(msg, cap, "%s", k->broken_msg);
    }
    pthread_mutex_unlock(&d->mtx);
    return broken ? -1 : 0;
}

void g16d_keys_check_all(g16d *d) {
    size_t n = 0;
    char **ids = g16d_key_ids(d, &n);
    char msg[400];
    for (size_t i = 0; i < n; i++)
        (void)g16d_key_check(d, ids[i], msg, sizeof msg);
    free(ids);
}
