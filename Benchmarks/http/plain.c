/*
 * The reference for Benchmarks/http/run.sh: a plain, tuned C evhttp server that answers
 * GET <path> with the bytes of a file, read once at start.
 *
 *   plain PORT /todos todos.json /albums albums.json ...
 *
 * Tuned as LiveState's listener is: TCP_NODELAY on the listening socket (accepted sockets inherit it
 * on Linux), 4 MiB single writes instead of libevent's 16 KiB, and the body added by reference (no
 * copy per request). One thread, one event_base. Prints "listening on http://127.0.0.1:PORT".
 */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct body {
    const char *path;
    char *bytes;
    size_t length;
};

static struct body bodies[16];
static int body_count;

static void no_cleanup(const void *data, size_t length, void *extra) {
    (void)data;
    (void)length;
    (void)extra;
}

static void answer(struct evhttp_request *req, void *arg) {
    (void)arg;
    const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
    for (int i = 0; i < body_count; i++) {
        if (path && strcmp(path, bodies[i].path) == 0) {
            evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                              "application/json; charset=utf-8");
            evbuffer_add_reference(evhttp_request_get_output_buffer(req), bodies[i].bytes, bodies[i].length,
                                   no_cleanup, NULL);
            evhttp_send_reply(req, 200, "OK", NULL);
            return;
        }
    }
    evhttp_send_error(req, 404, NULL);
}

static struct bufferevent *make_bufferevent(struct event_base *base, void *arg) {
    (void)arg;
    struct bufferevent *bev = bufferevent_socket_new(base, -1, 0);
    bufferevent_set_max_single_write(bev, 4 << 20);
    return bev;
}

static int load(struct body *body, const char *path, const char *file) {
    FILE *f = fopen(file, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    body->bytes = malloc(size > 0 ? (size_t)size : 1);
    body->length = fread(body->bytes, 1, (size_t)size, f);
    body->path = path;
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc % 2 != 0) {
        fprintf(stderr, "usage: %s PORT PATH FILE [PATH FILE ...]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    for (int i = 2; i + 1 < argc && body_count < 16; i += 2) {
        if (load(&bodies[body_count++], argv[i], argv[i + 1]) != 0) {
            fprintf(stderr, "cannot read %s\n", argv[i + 1]);
            return 1;
        }
    }
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    evhttp_set_gencb(http, answer, NULL);
    evhttp_set_bevcb(http, make_bufferevent, NULL);
    struct evhttp_bound_socket *bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", (ev_uint16_t)atoi(argv[1]));
    if (!bound) {
        fprintf(stderr, "cannot bind port %s\n", argv[1]);
        return 1;
    }
    int fd = evhttp_bound_socket_get_fd(bound);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    getsockname(fd, (struct sockaddr *)&address, &length);
    printf("listening on http://127.0.0.1:%d\n", ntohs(address.sin_port));
    fflush(stdout);
    event_base_dispatch(base);
    return 0;
}
