/* The CLI's progress line (progress.h).
 *
 * Reports only record the state under a mutex; a ticker thread draws it
 * every 100 ms (so a long step without reports still shows its time), each
 * draw one write(2) of "\r<line>\033[K" cut to the terminal's width, so the
 * line never wraps. Rate and ETA are those of the current stage: units per
 * second since the stage began, and the rest at that rate. */
#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int g16_cli_quiet;

void cli_quiet_take(int *argc, char **argv) {
    int out = 1, i = 1;
    for (; i < *argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            g16_cli_quiet = 1;
            continue;
        }
        argv[out++] = argv[i];
    }
    for (; i < *argc; i++)
        argv[out++] = argv[i];
    argv[out] = NULL;
    *argc = out;
}

#define TICK_MS 100
#define FIRST_DRAW_MS 200

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t ticker;
    int on, stop, armed, shown;
    char cmd[64], stage[96];
    uint64_t done, total;
    double t_begin, t_stage;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

int cli_progress_on(void) {
    pthread_mutex_lock(&P.lock);
    int on = P.on;
    pthread_mutex_unlock(&P.lock);
    return on;
}

static void fmt_count(char *b, size_t n, double v) {
    if (v >= 1e9)
        snprintf(b, n, "%.2fG", v / 1e9);
    else if (v >= 1e6)
        snprintf(b, n, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(b, n, "%.1fk", v / 1e3);
    else if (v >= 10)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.2f", v);
}

static void fmt_time(char *b, size_t n, double s) {
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(b, n, "%lds", t);
    else if (t < 3600)
        snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
    else
        snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

static int term_cols(void) {
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* The unit of a stage's rate: the library's stages count points (G1-point
 * units), rows or witnesses; the CLI's own count proofs or partitions. */
static const char *unit_of(const char *stage) {
    static const char *const map[][2] = {{"points", " pt"}, {"msm", " pt"},  {"rows", " rows"},
                                         {"proofs", " proofs"}, {"witnesses", " files"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(stage, map[i][0]))
            return map[i][1];
    return strstr(stage, "job ") == stage ? " partitions" : "";
}

/* Draws the state (lock held). */
static void draw(void) {
    double now = g16_cli_now_ms(), el = (now - P.t_stage) / 1e3;
    char line[512], tail[160] = "";
    if (P.total <= 1) {
        char t[32];
        fmt_time(t, sizeof t, el);
        snprintf(tail, sizeof tail, "  %s", t);
    } else {
        unsigned pct = (unsigned)(P.done * 100 / P.total);
        int n = snprintf(tail, sizeof tail, " %3u%%", pct);
        if (P.done > 0 && el >= 0.3 && n > 0) {
            double rate = (double)P.done / el;
            char r[32], eta[32];
            fmt_count(r, sizeof r, rate);
            fmt_time(eta, sizeof eta, (double)(P.total - P.done) / rate);
            snprintf(tail + n, sizeof tail - (size_t)n, "  %s%s/s  ETA %s", r, unit_of(P.stage), eta);
        }
    }
    int len = snprintf(line, sizeof line, "\r%s: %s%s", P.cmd, P.stage, tail);
    if (len < 0)
        return;
    int cols = term_cols() - 1; /* the cursor's cell: no wrap */
    if (len - 1 > cols)
        len = cols + 1;
    if ((size_t)len + 3 >= sizeof line)
        len = (int)sizeof line - 4;
    memcpy(line + len, "\033[K", 3);
    len += 3;
    ssize_t w = write(2, line, (size_t)len); /* a terminal: short writes are not retried */
    (void)w;
    P.shown = 1;
}

static void erase(void) {
    if (P.shown) {
        ssize_t w = write(2, "\r\033[K", 4);
        (void)w;
        P.shown = 0;
    }
}

static void *ticker_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&P.lock);
    while (!P.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += TICK_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&P.cv, &P.lock, &ts);
        if (!P.stop && P.armed && g16_cli_now_ms() - P.t_begin >= FIRST_DRAW_MS)
            draw();
    }
    pthread_mutex_unlock(&P.lock);
    return NULL;
}

void cli_progress_begin(const char *cmd) {
    cli_progress_end();
    if (g16_cli_quiet || !isatty(2))
        return;
    pthread_mutex_lock(&P.lock);
    snprintf(P.cmd, sizeof P.cmd, "%s", cmd);
    P.stage[0] = 0;
    P.done = 0;
    P.total = 1;
    P.armed = P.shown = P.stop = 0;
    P.t_begin = P.t_stage = g16_cli_now_ms();
    P.on = pthread_create(&P.ticker, NULL, ticker_main, NULL) == 0;
    pthread_mutex_unlock(&P.lock);
}

void cli_progress(void *user, const char *stage, uint64_t done, uint64_t total) {
    (void)user;
    pthread_mutex_lock(&P.lock);
    if (P.on) {
        if (strncmp(P.stage, stage, sizeof P.stage - 1) != 0 || done < P.done) {
            snprintf(P.stage, sizeof P.stage, "%s", stage);
            P.t_stage = g16_cli_now_ms();
        }
        P.done = done;
        P.total = total ? total : 1;
        P.armed = 1;
    }
    pthread_mutex_unlock(&P.lock);
}

void cli_progress_clear(void) {
    pthread_mutex_lock(&P.lock);
    if (P.on) {
        erase();
        P.armed = 0;
    }
    pthread_mutex_unlock(&P.lock);
}

void cli_progress_end(void) {
    pthread_mutex_lock(&P.lock);
    int on = P.on;
    if (on) {
        P.stop = 1;
        pthread_cond_signal(&P.cv);
    }
    pthread_mutex_unlock(&P.lock);
    if (!on)
        return;
    pthread_join(P.ticker, NULL);
    pthread_mutex_lock(&P.lock);
    erase();
    P.on = 0;
    pthread_mutex_unlock(&P.lock);
}
