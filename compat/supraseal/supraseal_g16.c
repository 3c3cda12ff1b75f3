/* libg16_supraseal: supraseal-c2's C entry points (g16_supraseal.h) over
 * the public g16 API (include/g16.h) alone: an SRS is a reference-counted
 * g16_params_key, a proof call is g16_prove_assignments with the caller's
 * r and s and verification on.
 *
 * Process state, as supraseal-c2 has it: one g16 context for every call
 * (made on first use, all online CPUs, never freed), the SRS cache (path
 * -> key, under a mutex) and the mutex that serializes proof calls given
 * no GPU mutex. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16.h"
#include "g16_supraseal.h"

#define SS_EXPORT __attribute__((visibility("default")))

/* The layouts are g16.h's (which documents them as supraseal-c2's). */
_Static_assert(sizeof(supraseal_fr) == sizeof(g16_fr_mont) && sizeof(supraseal_fr) == 32, "fr_t layout");
_Static_assert(sizeof(supraseal_proof) == sizeof(g16_params_proof_raw) && sizeof(supraseal_proof) == 384,
               "groth16_proof layout");
_Static_assert(sizeof(supraseal_assignment) == sizeof(g16_assignment) && sizeof(supraseal_assignment) == 17 * 8,
               "Assignment layout");
#define SS_SAME_FIELD(a, b)                                                                                   \
    _Static_assert(offsetof(supraseal_assignment, a) == offsetof(g16_assignment, b), "Assignment field " #a)
SS_SAME_FIELD(a_aux_density, a_aux_density);
SS_SAME_FIELD(a_aux_popcount, a_aux_popcount);
SS_SAME_FIELD(b_inp_density, b_inp_density);
SS_SAME_FIELD(b_aux_popcount, b_aux_popcount);
SS_SAME_FIELD(a, a);
SS_SAME_FIELD(c, c);
SS_SAME_FIELD(abc_size, abc_size);
SS_SAME_FIELD(inp_assignment_data, inp_assignment);
SS_SAME_FIELD(aux_assignment_data, aux_assignment);
SS_SAME_FIELD(aux_assignment_size, aux_assignment_size);
_Static_assert(sizeof(supraseal_error) == 16 && sizeof(supraseal_srs) == sizeof(void *), "by-value results");

/* A loaded key and its handles. */
typedef struct ss_srs {
    atomic_long refs;
    char *path;
    g16_params_key *key;
} ss_srs;

/* The SRS cache: a list of (path, key) holding one reference each. */
typedef struct ss_cache_entry {
    ss_srs *srs;
    struct ss_cache_entry *next;
} ss_cache_entry;

static pthread_once_t g_ctx_once = PTHREAD_ONCE_INIT;
static g16_ctx *g_ctx;
static char g_ctx_msg[256];
static pthread_mutex_t g_cache_mtx = PTHREAD_MUTEX_INITIALIZER;
static ss_cache_entry *g_cache;
static pthread_mutex_t g_prove_mtx = PTHREAD_MUTEX_INITIALIZER;

static void ctx_init(void) {
    if (g16_ctx_create_ex(&g_ctx, NULL, g_ctx_msg, sizeof g_ctx_msg) != G16_OK)
        g_ctx = NULL;
}

static supraseal_error ok(void) { return (supraseal_error){0, NULL}; }

static supraseal_error fail(g16_err code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static supraseal_error fail(g16_err code, const char *fmt, ...) {
    char m[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    /* code is never 0 here; a failed strdup leaves the message NULL */
    return (supraseal_error){code ? (int32_t)code : (int32_t)G16_ERR_INTERNAL, strdup(m)};
}

/* The calling thread's last g16 error, as a supraseal_error. */
static supraseal_error fail_g16(g16_err code, const char *what) {
    char m[512] = "";
    (void)g16_last_error(m, sizeof m);
    return fail(code, "%s: %s", what, m[0] ? m : g16_err_str(code));
}

static g16_ctx *shared_ctx(void) {
    pthread_once(&g_ctx_once, ctx_init);
    return g_ctx;
}

static void srs_release(ss_srs *s) {
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        g16_params_key_free(s->key);
        free(s->path);
        free(s);
    }
}

static supraseal_error srs_load(ss_srs **out, const char *path) {
    g16_ctx *ctx = shared_ctx();
    if (!ctx)
        return fail(G16_ERR_NOMEM, "create_SRS: g16 context: %s", g_ctx_msg[0] ? g_ctx_msg : "out of memory");
    ss_srs *s = calloc(1, sizeof *s);
    char *p = strdup(path);
    if (!s || !p) {
        free(s);
        free(p);
        return fail(G16_ERR_NOMEM, "create_SRS: out of memory");
    }
    g16_err e = g16_params_key_load(ctx, &s->key, path, -1);
    if (e != G16_OK) {
        free(s);
        free(p);
        return fail_g16(e, "create_SRS");
    }
    s->path = p;
    atomic_init(&s->refs, 1);
    *out = s;
    return ok();
}

SS_EXPORT supraseal_error create_SRS(supraseal_srs *ret, const char *srs_path, bool cache) {
    if (!ret || !srs_path)
        return fail(G16_ERR_INVALID_ARG, "create_SRS: NULL argument");
    if (!cache) {
        ss_srs *s = NULL;
        supraseal_error e = srs_load(&s, srs_path);
        if (!e.code)
            ret->ptr = s;
        return e;
    }
    pthread_mutex_lock(&g_cache_mtx);
    for (ss_cache_entry *c = g_cache; c; c = c->next)
        if (!strcmp(c->srs->path, srs_path)) {
            atomic_fetch_add(&c->srs->refs, 1);
            ret->ptr = c->srs;
            pthread_mutex_unlock(&g_cache_mtx);
            return ok();
        }
    /* Loaded under the lock, as the same path from two threads must give one key. */
    ss_srs *s = NULL;
    ss_cache_entry *c = malloc(sizeof *c);
    supraseal_error e = c ? srs_load(&s, srs_path) : fail(G16_ERR_NOMEM, "create_SRS: out of memory");
    if (e.code) {
        free(c);
    } else {
        atomic_fetch_add(&s->refs, 1); /* the cache's and the handle's */
        c->srs = s;
        c->next = g_cache;
        g_cache = c;
        ret->ptr = s;
    }
    pthread_mutex_unlock(&g_cache_mtx);
    return e;
}

SS_EXPORT void evict_SRS(const supraseal_srs *srs) {
    if (!srs || !srs->ptr)
        return;
    const ss_srs *me = srs->ptr;
    pthread_mutex_lock(&g_cache_mtx);
    for (ss_cache_entry **pc = &g_cache; *pc;) {
        ss_cache_entry *c = *pc;
        if (!strcmp(c->srs->path, me->path)) {
            *pc = c->next;
            srs_release(c->srs); /* the cache's reference; me's handle keeps its own */
            free(c);
        } else {
            pc = &c->next;
        }
    }
    pthread_mutex_unlock(&g_cache_mtx);
}

SS_EXPORT void drop_SRS(supraseal_srs *srs) {
    if (!srs || !srs->ptr)
        return;
    srs_release((ss_srs *)srs->ptr);
    srs->ptr = NULL;
}

SS_EXPORT supraseal_srs clone_SRS(const supraseal_srs *srs) {
    if (!srs || !srs->ptr)
        return (supraseal_srs){NULL};
    atomic_fetch_add(&((ss_srs *)srs->ptr)->refs, 1);
    return *srs;
}

SS_EXPORT void *create_gpu_mutex(void) {
    pthread_mutex_t *m = malloc(sizeof *m);
    if (m && pthread_mutex_init(m, NULL) != 0) {
        free(m);
        m = NULL;
    }
    return m;
}

SS_EXPORT void destroy_gpu_mutex(void *mtx) {
    if (!mtx)
        return;
    pthread_mutex_destroy(mtx);
    free(mtx);
}

/* The proof call shared by the entry points: proofs for n partitions. */
static supraseal_error prove(const char *fn, const supraseal_assignment *provers, size_t n, const supraseal_fr *r_s,
                             const supraseal_fr *s_s, supraseal_proof *proofs, const supraseal_srs *srs,
                             void *gpu_mtx, int gpu_index) {
    if (!srs || !srs->ptr)
        return fail(G16_ERR_INVALID_ARG, "%s: empty SRS handle", fn);
    if (n == 0)
        return ok();
    if (!provers || !r_s || !s_s || !proofs)
        return fail(G16_ERR_INVALID_ARG, "%s: NULL argument", fn);
    if (gpu_index < -1)
        return fail(G16_ERR_INVALID_ARG, "%s: gpu_index %d (want -1 or a device index)", fn, gpu_index);
    g16_ctx *ctx = shared_ctx();
    if (!ctx)
        return fail(G16_ERR_NOMEM, "%s: g16 context: %s", fn, g_ctx_msg[0] ? g_ctx_msg : "out of memory");
    g16_assignment_prove_opts o;
    g16_assignment_prove_opts_init(&o);
    o.r = (const g16_fr_mont *)r_s;
    o.s = (const g16_fr_mont *)s_s;
    pthread_mutex_t *m = gpu_mtx ? (pthread_mutex_t *)gpu_mtx : &g_prove_mtx;
    pthread_mutex_lock(m);
    g16_err e = g16_prove_assignments(ctx, ((const ss_srs *)srs->ptr)->key, (const g16_assignment *)provers, n, &o,
                                      (g16_params_proof_raw *)proofs);
    pthread_mutex_unlock(m);
    return e == G16_OK ? ok() : fail_g16(e, fn);
}

#if defined(G16_SUPRASEAL_CURIO_ABI) && G16_SUPRASEAL_CURIO_ABI
SS_EXPORT supraseal_error generate_groth16_proofs_c(const supraseal_assignment *provers, size_t num_circuits,
                                                    const supraseal_fr *r_s, const supraseal_fr *s_s,
                                                    supraseal_proof *proofs, supraseal_srs *srs, void *gpu_mtx,
                                                    int gpu_index) {
    return prove("generate_groth16_proofs_c", provers, num_circuits, r_s, s_s, proofs, srs, gpu_mtx, gpu_index);
}
#else
SS_EXPORT supraseal_error generate_groth16_proofs_c(const supraseal_assignment *provers, size_t num_circuits,
                                                    const supraseal_fr *r_s, const supraseal_fr *s_s,
                                                    supraseal_proof *proofs, supraseal_srs *srs) {
    return prove("generate_groth16_proofs_c", provers, num_circuits, r_s, s_s, proofs, srs, NULL, -1);
}
#endif

/* A started proof: the finished proofs, waiting for finalize. */
typedef struct ss_pending {
    size_t n;
    supraseal_proof proofs[];
} ss_pending;

SS_EXPORT supraseal_error generate_groth16_proofs_start_c(const supraseal_assignment *provers, size_t num_circuits,
                                                          const supraseal_fr *r_s, const supraseal_fr *s_s,
                                                          supraseal_srs *srs, void *gpu_mtx, int gpu_index,
                                                          void **pending_out) {
    static const char fn[] = "generate_groth16_proofs_start_c";
    if (!pending_out)
        return fail(G16_ERR_INVALID_ARG, "%s: NULL pending_out", fn);
    *pending_out = NULL;
    if (num_circuits > (SIZE_MAX - sizeof(ss_pending)) / sizeof(supraseal_proof))
        return fail(G16_ERR_INVALID_ARG, "%s: %zu circuits", fn, num_circuits);
    ss_pending *p = calloc(1, sizeof *p + num_circuits * sizeof(supraseal_proof));
    if (!p)
        return fail(G16_ERR_NOMEM, "%s: out of memory for %zu proofs", fn, num_circuits);
    p->n = num_circuits;
    supraseal_error e = prove(fn, provers, num_circuits, r_s, s_s, p->proofs, srs, gpu_mtx, gpu_index);
    if (e.code) {
        free(p);
        return e;
    }
    *pending_out = p;
    return ok();
}

SS_EXPORT supraseal_error finalize_groth16_proof_c(void *handle, supraseal_proof *proofs) {
    ss_pending *p = handle;
    if (!p)
        return fail(G16_ERR_INVALID_ARG, "finalize_groth16_proof_c: NULL handle");
    if (!proofs && p->n) {
        free(p);
        return fail(G16_ERR_INVALID_ARG, "finalize_groth16_proof_c: NULL proofs");
    }
    if (p->n)
        memcpy(proofs, p->proofs, p->n * sizeof *proofs);
    free(p);
    return ok();
}

SS_EXPORT void destroy_pending_proof(void *handle) { free(handle); }
