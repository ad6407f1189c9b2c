// What the benchmark clients (fanout, instances) share: the todo they rename, the /events request,
// its response head, then the "bench seq=S t=T" markers that the clients write into todo titles. Everything else in the
// stream (frame syntax, chunk sizes, the rest of the JSON) is skipped; a marker split across reads
// stays in the buffer for the next read.
#ifndef LIVESTATE_BENCH_SSE_MARKER_H
#define LIVESTATE_BENCH_SSE_MARKER_H

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER "bench seq="

// 1 once the response head was read and drained, 0 while it is incomplete; exits on a status
// other than 200 (connection `index` in the message).
static int sse_read_head(struct evbuffer *in, int index) {
    struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
    if (end.pos < 0) return 0;
    char status[16] = {0};
    evbuffer_copyout(in, status, 12);
    if (strncmp(status + 9, "200", 3) != 0) {
        fprintf(stderr, "connection %d: HTTP status %.3s\n", index, status + 9);
        exit(2);
    }
    evbuffer_drain(in, end.pos + 4);
    return 1;
}

// Takes the next complete marker out of `in`: 1 with *seq and *t set (seq -2 when unreadable),
// 0 when there is none yet.
static int sse_next_marker(struct evbuffer *in, int *seq, unsigned long long *t) {
    struct evbuffer_ptr p = evbuffer_search(in, MARKER, sizeof MARKER - 1, NULL);
    if (p.pos < 0) {
        size_t len = evbuffer_get_length(in);
        if (len > 64) evbuffer_drain(in, len - 64);
        return 0;
    }
    size_t avail = evbuffer_get_length(in) - p.pos;
    char text[64];
    if (avail < sizeof MARKER - 1 + 4) { evbuffer_drain(in, p.pos); return 0; }
    size_t take = avail < sizeof text - 1 ? avail : sizeof text - 1;
    evbuffer_drain(in, p.pos);
    evbuffer_copyout(in, text, take);
    text[take] = 0;
    char *end = memchr(text, '"', take);
    if (!end) return 0;  // the rest of the title has not arrived yet
    *seq = -2;
    *t = 0;
    sscanf(text + sizeof MARKER - 1, "%d t=%llu", seq, t);
    evbuffer_drain(in, (size_t)(end - text));
    return 1;
}

// On a connected socket: TCP_NODELAY, then the GET request of `target` (/events?topics=todos).
static void sse_send_request(struct bufferevent *bev, const char *host, int port, const char *target) {
    int one = 1;
    setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char request[512];
    int len = snprintf(request, sizeof request,
                       "GET %s HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n", target, host, port);
    bufferevent_write(bev, request, len);
}

// The id of the todo a POST /todos made; exits unless it answered 201 with an id.
static int created_todo_id(struct evhttp_request *req) {
    if (!req || evhttp_request_get_response_code(req) != 201) {
        fprintf(stderr, "POST /todos failed: %d\n", req ? evhttp_request_get_response_code(req) : -1);
        exit(2);
    }
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    char *text = calloc(len + 1, 1);
    evbuffer_copyout(in, text, len);
    int id = -1;
    char *field = strstr(text, "\"id\"");
    if (!field || sscanf(strchr(field, ':') + 1, "%d", &id) != 1) {
        fprintf(stderr, "no id in %s\n", text);
        exit(2);
    }
    free(text);
    return id;
}

#endif
