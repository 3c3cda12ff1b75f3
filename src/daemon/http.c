/* g16d's HTTP server on libmicrohttpd: a thread per connection (so a
 * long-poll blocks only its own connection), a connection limit and an
 * idle timeout, the request body capped while it is received (413, before
 * any byte of an oversized Content-Length is read), bearer-token auth
 * compared in constant time. The listening socket is made here (TCP or a
 * Unix socket) and handed to MHD, so that port 0 can pick a free port. */
#include "daemon.h"
#include "ui.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct http_srv {
    struct MHD_Daemon *mhd;
    int fd;
    char unix_path[120];
} http_srv;

typedef struct req {
    double t0; /* first call, ms (g16_now_ms) */
    char *buf;
    size_t len, cap;
    int too_large;
    int replied; /* an early reply (401, 413) is queued */
} req;

/* Constant time in the secret's length and contents: every byte of the
 * expected token is compared whatever the given one is. */
static int token_equal(const char *given, const char *expected) {
    size_t gl = strlen(given), el = strlen(expected);
    unsigned char diff = (unsigned char)(gl != el);
    for (size_t i = 0; i < el; i++) {
        unsigned char g = i < gl ? (unsigned char)given[i] : 0;
        diff |= (unsigned char)(g ^ (unsigned char)expected[i]);
    }
    return diff == 0;
}

static const char *query_fn(void *conn, const char *name) {
    return MHD_lookup_connection_value((struct MHD_Connection *)conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result send_reply(g16d *d, struct MHD_Connection *conn, int status, char *body, const char *ctype,
                                  int head) {
    size_t len = body ? strlen(body) : 0;
    struct MHD_Response *r = MHD_create_response_from_buffer(head ? 0 : len, body, MHD_RESPMEM_MUST_COPY);
    free(body);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    pthread_mutex_lock(&d->mtx);
    if (status >= 100 && status < 600)
        d->cnt.http[status]++;
    pthread_mutex_unlock(&d->mtx);
    return ret;
}

/* GET / and GET /ui/<name>: the dashboard's assets (ui.h), no token. */
static int is_static(const char *url) { return !strcmp(url, "/") || !strncmp(url, "/ui/", 4); }

static enum MHD_Result send_static(g16d *d, struct MHD_Connection *conn, const char *url, const char *method) {
    int status = 404;
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        char *b = g16d_api_error(405, "method_not_allowed", "only GET and HEAD are allowed here", &status);
        return send_reply(d, conn, status, b, "application/json", 0);
    }
    const unsigned char *data = NULL;
    size_t len = 0;
    const char *mime = NULL;
    const char *name = !strcmp(url, "/") ? "index.html" : url + 4;
    if (!*name || strstr(name, "..") || !g16d_ui_asset(name, &data, &len, &mime)) {
        char *b = g16d_api_error(404, "not_found", "no such asset", &status);
        return send_reply(d, conn, status, b, "application/json", 0);
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strcmp(method, "HEAD") ? len : 0, (void *)data, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, mime ? mime : "application/octet-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    enum MHD_Result ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    pthread_mutex_lock(&d->mtx);
    d->cnt.http[200]++;
    pthread_mutex_unlock(&d->mtx);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **con_cls) {
    (void)version;
    g16d *d = cls;
    req *rq = *con_cls;
    int status = 500;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *con_cls = rq;
        rq->t0 = g16_now_ms();
        if (is_static(url)) {
            rq->replied = 1;
            return send_static(d, conn, url, method);
        }
        if (d->cfg->token && strcmp(url, "/healthz")) {
            const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
            int ok = auth && !strncmp(auth, "Bearer ", 7) && token_equal(auth + 7, d->cfg->token);
            if (!ok) {
                rq->replied = 1;
                char *b = g16d_api_error(401, "unauthorized", "missing or wrong bearer token", &status);
                return send_reply(d, conn, status, b, "application/json", 0);
            }
        }
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > d->cfg->max_body_bytes) {
            rq->replied = 1;
            char msg[128];
            snprintf(msg, sizeof msg, "request body exceeds max_body_bytes = %llu",
                     (unsigned long long)d->cfg->max_body_bytes);
            char *b = g16d_api_error(413, "too_large", msg, &status);
            return send_reply(d, conn, status, b, "application/json", 0);
        }
        return MHD_YES;
    }
    if (rq->replied) { /* discard the rest of an already-answered request */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        /* A body trickling in slower than request_timeout_s in total: drop
         * the connection (the idle timeout alone never fires for it). */
        if (g16_now_ms() - rq->t0 > 1000.0 * d->cfg->request_timeout_s) {
            g16d_log(G16D_WARN, "http_request_timeout", json_pack("{s:s,s:s}", "method", method, "url", url));
            return MHD_NO;
        }
        if (rq->too_large || rq->len + n > d->cfg->max_body_bytes) {
            rq->too_large = 1;
            free(rq->buf);
            rq->buf = NULL;
            rq->len = rq->cap = 0;
            return MHD_YES;
        }
        if (rq->len + n + 1 > rq->cap) {
            size_t nc = rq->cap ? rq->cap : 4096;
            while (nc < rq->len + n + 1)
                nc *= 2;
            char *nb = realloc(rq->buf, nc);
            if (!nb)
                return MHD_NO;
            rq->buf = nb;
            rq->cap = nc;
        }
        memcpy(rq->buf + rq->len, upload_data, n);
        rq->len += n;
        rq->buf[rq->len] = 0;
        return MHD_YES;
    }
    rq->replied = 1;
    if (rq->too_large) {
        char msg[128];
        snprintf(msg, sizeof msg, "request body exceeds max_body_bytes = %llu",
                 (unsigned long long)d->cfg->max_body_bytes);
        return send_reply(d, conn, 413, g16d_api_error(413, "too_large", msg, &status), "application/json", 0);
    }
    const char *ctype = "application/json";
    double t0 = g16_now_ms();
    char *body = g16d_api_handle(d, method, url, query_fn, conn, rq->buf, rq->len, &status, &ctype);
    g16d_log(G16D_DEBUG, "http", json_pack("{s:s,s:s,s:i,s:f}", "method", method, "url", url, "status", status, "ms",
                                          g16_now_ms() - t0));
    return send_reply(d, conn, status, body, ctype, !strcmp(method, "HEAD"));
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)conn;
    (void)toe;
    req *rq = *con_cls;
    if (rq) {
        free(rq->buf);
        free(rq);
    }
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = 0;
    g16d_log(G16D_WARN, "http_server", json_pack("{s:s}", "message", msg));
}

static int listen_socket(const char *listen_addr, unsigned perm, char *bound, size_t bound_len, char *unix_path) {
    int fd = -1;
    if (!strncmp(listen_addr, "unix:", 5)) {
        const char *p = listen_addr + 5;
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", p);
        struct stat sb;
        if (!lstat(p, &sb) && S_ISSOCK(sb.st_mode))
            unlink(p); /* a stale socket of a previous run */
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        /* Created owner-only (umask 0177, at start-up before any other
         * thread makes files), then given socket_mode exactly. */
        mode_t um = umask(0177);
        int bad = fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa);
        int en = errno;
        umask(um);
        if (!bad && chmod(p, (mode_t)perm)) {
            bad = 1;
            en = errno;
        }
        if (!bad && listen(fd, 128)) {
            bad = 1;
            en = errno;
        }
        if (bad) {
            fprintf(stderr, "g16d: listen %s: %s\n", listen_addr, strerror(en));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        snprintf(unix_path, 120, "%s", p);
        snprintf(bound, bound_len, "unix:%s", p);
        return fd;
    }
    const char *colon = strrchr(listen_addr, ':');
    char host[256], port[16];
    size_t hl = (size_t)(colon - listen_addr);
    const char *h = listen_addr;
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    snprintf(host, sizeof host, "%.*s", (int)hl, h);
    snprintf(port, sizeof port, "%s", colon + 1);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai) {
        fprintf(stderr, "g16d: listen %s: %s\n", listen_addr, gai_strerror(gai));
        return -1;
    }
    int err = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 128))
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "g16d: listen %s: %s\n", listen_addr, strerror(err));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "?";
    int bport = 0;
    if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof ip);
            bport = ntohs(s4->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof ip);
            bport = ntohs(s6->sin6_port);
        }
    }
    if (ss.ss_family == AF_INET6)
        snprintf(bound, bound_len, "[%s]:%d", ip, bport);
    else
        snprintf(bound, bound_len, "%s:%d", ip, bport);
    return fd;
}

int g16d_http_start(g16d *d, char *bound, size_t bound_len) {
    http_srv *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    h->fd = listen_socket(d->cfg->listen, d->cfg->socket_perm, bound, bound_len, h->unix_path);
    if (h->fd < 0) {
        free(h);
        return -1;
    }
    h->mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                                  MHD_USE_ERROR_LOG,
                              0, NULL, NULL, handler, d, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, d,
                              MHD_OPTION_LISTEN_SOCKET, h->fd,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)d->cfg->max_connections,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)d->cfg->connection_timeout_s,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, d, MHD_OPTION_END);
    if (!h->mhd) {
        fprintf(stderr, "g16d: could not start the HTTP server on %s\n", bound);
        close(h->fd);
        if (h->unix_path[0])
            unlink(h->unix_path);
        free(h);
        return -1;
    }
    d->http = h;
    return 0;
}

void g16d_http_stop(g16d *d) {
    http_srv *h = d->http;
    if (!h)
        return;
    MHD_stop_daemon(h->mhd); /* closes the listening socket too */
    if (h->unix_path[0])
        unlink(h->unix_path);
    free(h);
    d->http = NULL;
}
