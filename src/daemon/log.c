/* g16d's event log: one JSON object per line,
 *   {"ts":"2026-11-30T06:00:00.123Z","level":"info","event":"job_accepted",...}
 * to stderr or log_file (appended; SIGHUP reopens it for log rotation). The
 * sink is process state of the daemon binary, guarded by one mutex. */
#include "daemon.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static pthread_mutex_t log_mtx = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_fp;
static char *log_path;
static int log_min = G16D_INFO;

static const char *const LEVELS[] = {"debug", "info", "warn", "error"};

int g16d_log_open(const char *path, int min_level) {
    pthread_mutex_lock(&log_mtx);
    log_min = min_level;
    free(log_path);
    log_path = path ? strdup(path) : NULL;
    int rc = 0;
    if (path) {
        FILE *f = fopen(path, "a");
        if (!f)
            rc = -1;
        else
            log_fp = f;
    }
    pthread_mutex_unlock(&log_mtx);
    return rc;
}

int g16d_log_reopen(void) {
    pthread_mutex_lock(&log_mtx);
    int rc = 0;
    if (log_path) {
        FILE *f = fopen(log_path, "a");
        if (!f) {
            rc = -1; /* keep writing to the old file */
        } else {
            if (log_fp)
                fclose(log_fp);
            log_fp = f;
        }
    }
    pthread_mutex_unlock(&log_mtx);
    return rc;
}

void g16d_log_close(void) {
    pthread_mutex_lock(&log_mtx);
    if (log_fp)
        fclose(log_fp);
    log_fp = NULL;
    free(log_path);
    log_path = NULL;
    pthread_mutex_unlock(&log_mtx);
}

void g16d_log(int level, const char *event, json_t *fields) {
    if (level < log_min) {
        json_decref(fields);
        return;
    }
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[96];
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000));
    json_t *o = json_object();
    if (!o) {
        json_decref(fields);
        return;
    }
    json_object_set_new(o, "ts", json_string(ts));
    json_object_set_new(o, "level", json_string(LEVELS[level < 0 ? 0 : level > 3 ? 3 : level]));
    json_object_set_new(o, "event", json_string(event));
    if (fields && json_is_object(fields))
        json_object_update(o, fields);
    json_decref(fields);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(o);
    if (!s)
        return;
    pthread_mutex_lock(&log_mtx);
    FILE *f = log_fp ? log_fp : stderr;
    fputs(s, f);
    fputc('\n', f);
    fflush(f);
    pthread_mutex_unlock(&log_mtx);
    free(s);
}
