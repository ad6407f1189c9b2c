// Holds N live queries open on a data file's /posts for the write benchmark (run.sh, PARTS=writes):
// connection k (1..N) asks
//   userId  GET /posts?userId=K&_limit=10                 (an equality filter, indexed by the server)
//   regex   GET /posts?title_like=benchmark.{0,K}&_limit=10  (a regex, which no index serves; every POST of
//           the benchmark passes it, so every write touches every one of these queries)
//   sorted  GET /posts?_sort=title&_start=K                (no window's end: it holds every item from K on,
//           and each POST of the benchmark goes near the front of it, before the others' titles)
// with Accept: text/event-stream, prints "ready" once each has its first event (`event: result`), then
// reads and drops whatever comes (so no connection is cut off as a slow reader) until it is killed.
//
// Usage: hold HOST PORT N userId|regex|sorted
#define _GNU_SOURCE
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct event_base *base;
static const char *host;
static int port, n, regex, sorted, n_ready;

struct conn {
    int index;
    int ready;
};

static void on_read(struct bufferevent *bev, void *arg) {
    struct conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    if (!c->ready) {
        struct evbuffer_ptr found = evbuffer_search(in, "event: result", 13, NULL);
        if (found.pos < 0) {
            char status[16] = {0};
            evbuffer_copyout(in, status, 12);
            if (evbuffer_get_length(in) >= 12 && strncmp(status + 9, "200", 3) != 0) {
                fprintf(stderr, "hold: query %d answered %.3s\n", c->index, status + 9);
                exit(2);
            }
            return;
        }
        c->ready = 1;
        if (++n_ready == n) {
            printf("ready\n");
            fflush(stdout);
        }
    }
    evbuffer_drain(in, evbuffer_get_length(in));
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    struct conn *c = arg;
    if (what & BEV_EVENT_CONNECTED) {
        int one = 1;
        setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char request[256];
        int len = sorted
            ? snprintf(request, sizeof request,
                       "GET /posts?_sort=title&_start=%d HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                       c->index, host, port)
            : regex
            ? snprintf(request, sizeof request,
                       "GET /posts?title_like=benchmark.%%7B0,%d%%7D&_limit=10 HTTP/1.1\r\nHost: %s:%d\r\n"
                       "Accept: text/event-stream\r\n\r\n", c->index, host, port)
            : snprintf(request, sizeof request,
                       "GET /posts?userId=%d&_limit=10 HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                       c->index, host, port);
        bufferevent_write(bev, request, len);
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        fprintf(stderr, "hold: query %d closed\n", c->index);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s HOST PORT N userId|regex|sorted\n", argv[0]);
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    n = atoi(argv[3]);
    regex = strcmp(argv[4], "regex") == 0;
    sorted = strcmp(argv[4], "sorted") == 0;
    base = event_base_new();
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    for (int k = 1; k <= n; k++) {
        struct conn *c = calloc(1, sizeof *c);
        c->index = k;
        struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
        bufferevent_setcb(bev, on_read, NULL, on_event, c);
        bufferevent_enable(bev, EV_READ);
        if (bufferevent_socket_connect(bev, (struct sockaddr *)&address, sizeof address) < 0) {
            fprintf(stderr, "hold: connect %d failed\n", k);
            return 1;
        }
    }
    if (n == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    event_base_dispatch(base);
    return 0;
}
