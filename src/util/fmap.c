/* Guarded read-only file mappings: the registry, the SIGBUS handler, the
 * change checks (fmap.h has the contract).
 *
 * Registry: a fixed table of slots, each {state, base, len, poisoned}, all
 * lock-free atomics, so that the handler reads it without locks. A slot is
 * FREE, then CLAIMED by one registering thread (CAS), filled, then ACTIVE
 * (release store); unregistering goes ACTIVE -> CLAIMED -> FREE. The handler
 * looks only at ACTIVE slots below the high-water mark. */
#define _GNU_SOURCE
#include "fmap.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_ACTIVE = 2 };

typedef struct fmap_slot {
    atomic_int state;
    atomic_int poisoned;
    atomic_uintptr_t base;
    atomic_size_t len; /* whole pages */
} fmap_slot;

static fmap_slot g_slots[G16_FMAP_MAX];
static atomic_int g_hwm;            /* slots [0, g_hwm) may be in use */
static atomic_uint_fast64_t g_faults;
static struct sigaction g_prev;     /* the SIGBUS disposition before ours */
static atomic_int g_installed;      /* g_prev is valid */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "the SIGBUS handler needs lock-free atomics");

/* Anonymous zero pages over [base, base + len), at the same address. The raw
 * syscall: no libc or sanitizer interceptor runs inside the handler. */
static int replace_with_zeros(uintptr_t base, size_t len) {
#ifdef SYS_mmap
    long r = syscall(SYS_mmap, (void *)base, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    return r == (long)base;
#else
    return mmap((void *)base, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == (void *)base;
#endif
}

/* Hands a fault that is not ours to the previous disposition. */
static void chain(int sig, siginfo_t *si, void *uc) {
    if (atomic_load_explicit(&g_installed, memory_order_acquire)) {
        if (g_prev.sa_flags & SA_SIGINFO) {
            if (g_prev.sa_sigaction) {
                g_prev.sa_sigaction(sig, si, uc);
                return;
            }
        } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
            g_prev.sa_handler(sig);
            return;
        }
    }
    /* Default action: restore it. A fault re-executes and kills the process
     * as it would have without us; a signal sent by kill() is re-raised (it
     * stays pending, SIGBUS being blocked in here, until we return). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, NULL);
    if (!si || si->si_code <= 0)
        raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    /* si_code > 0: raised by the kernel for this access (not by kill()). */
    if (si && si->si_code > 0) {
        uintptr_t a = (uintptr_t)si->si_addr;
        int n = atomic_load_explicit(&g_hwm, memory_order_acquire);
        for (int i = 0; i < n; i++) {
            fmap_slot *s = &g_slots[i];
            if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_ACTIVE)
                continue;
            uintptr_t b = atomic_load_explicit(&s->base, memory_order_relaxed);
            size_t len = atomic_load_explicit(&s->len, memory_order_relaxed);
            if (a - b >= len)
                continue;
            /* Poisoned first: a consumer that sees zeros after this point
             * also sees the flag (it checks after its reads). */
            atomic_store_explicit(&s->poisoned, 1, memory_order_seq_cst);
            if (replace_with_zeros(b, len)) {
                atomic_fetch_add_explicit(&g_faults, 1, memory_order_relaxed);
                errno = saved;
                return; /* the load runs again and reads zero */
            }
            break; /* cannot recover: as if we were not here */
        }
    }
    errno = saved;
    chain(sig, si, uc);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    /* SA_ONSTACK: an alternate stack where the thread has one (sanitizers). */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &g_prev) == 0)
        atomic_store_explicit(&g_installed, 1, memory_order_release);
}

static int slot_claim(void) {
    for (int i = 0; i < G16_FMAP_MAX; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&g_slots[i].state, &expect, SLOT_CLAIMED)) {
            int h = atomic_load(&g_hwm);
            while (h < i + 1 && !atomic_compare_exchange_weak(&g_hwm, &h, i + 1))
                ;
            return i;
        }
    }
    return -1;
}

void g16_file_id_from_stat(g16_file_id *id, const struct stat *sb) {
    memset(id, 0, sizeof *id);
    id->dev = (uint64_t)sb->st_dev;
    id->ino = (uint64_t)sb->st_ino;
    id->size = (uint64_t)sb->st_size;
    id->mtime_s = (int64_t)sb->st_mtim.tv_sec;
    id->mtime_ns = sb->st_mtim.tv_nsec;
    id->valid = 1;
}

static int same_contents(const g16_file_id *a, const g16_file_id *b) {
    return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns;
}

void g16_fmap_init(g16_fmap *m) {
    memset(m, 0, sizeof *m);
    m->fd = -1;
    m->slot = -1;
}

g16_err g16_fmap_map(g16_fmap *m, int fd, const struct stat *sb, const char *path, const char *name,
                     g16_status *st) {
    g16_fmap_init(m);
    if (!name)
        name = "(file)";
    if (fd < 0 || !sb || sb->st_size <= 0) {
        if (fd >= 0)
            close(fd);
        return g16_fail(st, G16_ERR_INVALID_ARG, "%s: nothing to map", name);
    }
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)sb->st_size, pgsz = pg > 0 ? (size_t)pg : 4096;
    size_t map_len = (len + pgsz - 1) / pgsz * pgsz;
    pthread_once(&g_once, install);
    int slot = slot_claim();
    if (slot < 0) {
        close(fd);
        return g16_fail(st, G16_ERR_NOMEM, "%s: too many mapped files (%d)", name, G16_FMAP_MAX);
    }
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        atomic_store(&g_slots[slot].state, SLOT_FREE);
        close(fd);
        return g16_fail(st, G16_ERR_IO, "%s: mmap of %zu bytes failed: %s", name, len, strerror(err));
    }
    fmap_slot *s = &g_slots[slot];
    atomic_store_explicit(&s->poisoned, 0, memory_order_relaxed);
    atomic_store_explicit(&s->base, (uintptr_t)p, memory_order_relaxed);
    atomic_store_explicit(&s->len, map_len, memory_order_relaxed);
    atomic_store_explicit(&s->state, SLOT_ACTIVE, memory_order_release);
    m->used = 1;
    m->base = p;
    m->len = len;
    m->map_len = map_len;
    m->fd = fd;
    m->slot = slot;
    m->path = path ? strdup(path) : NULL; /* NULL on failure: no stale check, nothing else */
    g16_file_id_from_stat(&m->id, sb);
    return G16_OK;
}

g16_err g16_fmap_set_origin(g16_fmap *m, const char *path, const struct stat *sb) {
    if (!m->used)
        g16_fmap_init(m);
    m->used = 1;
    free(m->path);
    m->path = path ? strdup(path) : NULL;
    if (path && !m->path)
        return G16_ERR_NOMEM;
    if (sb)
        g16_file_id_from_stat(&m->id, sb);
    return G16_OK;
}

void g16_fmap_close(g16_fmap *m) {
    if (!m || !m->used) {
        if (m)
            g16_fmap_init(m);
        return;
    }
    if (m->slot >= 0) {
        fmap_slot *s = &g_slots[m->slot];
        /* Unregister before unmapping: the address range may be reused. */
        atomic_store_explicit(&s->state, SLOT_CLAIMED, memory_order_seq_cst);
    }
    if (m->base)
        munmap((void *)m->base, m->len);
    if (m->slot >= 0) {
        fmap_slot *s = &g_slots[m->slot];
        atomic_store_explicit(&s->poisoned, 0, memory_order_relaxed);
        atomic_store_explicit(&s->state, SLOT_FREE, memory_order_release);
    }
    if (m->fd >= 0)
        close(m->fd);
    free(m->path);
    g16_fmap_init(m);
}

int g16_fmap_poisoned(const g16_fmap *m) {
    return m && m->used && m->slot >= 0 && atomic_load_explicit(&g_slots[m->slot].poisoned, memory_order_seq_cst);
}

int g16_fmap_state(const g16_fmap *m, uint64_t *size_now) {
    if (size_now)
        *size_now = m ? m->len : 0;
    if (!m || !m->used || !m->base)
        return G16_FMAP_INTACT;
    int poisoned = g16_fmap_poisoned(m);
    struct stat sb;
    if (m->fd < 0 || fstat(m->fd, &sb) != 0) /* cannot tell: the fault flag still guards reads */
        return poisoned ? G16_FMAP_TRUNCATED : G16_FMAP_INTACT;
    g16_file_id now;
    g16_file_id_from_stat(&now, &sb);
    if (size_now)
        *size_now = now.size;
    if (poisoned || now.size < m->len)
        return G16_FMAP_TRUNCATED;
    return same_contents(&now, &m->id) ? G16_FMAP_INTACT : G16_FMAP_CHANGED;
}

int g16_fmap_stale(const g16_fmap *m) {
    if (!m || !m->used || !m->path || !m->id.valid)
        return 0;
    struct stat sb;
    if (stat(m->path, &sb) != 0)
        return 1;
    g16_file_id now;
    g16_file_id_from_stat(&now, &sb);
    return now.dev != m->id.dev || now.ino != m->id.ino || !same_contents(&now, &m->id);
}

uint64_t g16_fmap_faults(void) { return (uint64_t)atomic_load(&g_faults); }
