// The plain C reference for the fan-out benchmark: one libevent evhttp loop that serves the same bytes
// as LiveState for what the benchmark uses, and nothing else:
//   GET /events?topics=todos   chunked text/event-stream: "retry: 2000", the current todos, then each change
//   POST /todos {"title"}      201, adds the todo
//   PATCH /todos/ID {"title"}  200, renames it
// Each change is encoded once into `id: N\nevent: todos\ndata: [...]\n\n` and sent to every client.
//
// Usage: reference PORT   (prints "listening on http://127.0.0.1:PORT" like livestate)
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_TODOS 64

struct client {
    struct evhttp_request *req;
    struct client *prev, *next;
};

static struct client clients = {.prev = &clients, .next = &clients};
static char *titles[MAX_TODOS + 1];
static int n_todos = 1;
static unsigned long long next_id;

// One encoded frame, shared (not copied) by every client's output buffer until the last one sent it.
struct frame {
    int refs;
    size_t len;
    unsigned char bytes[];
};
static struct frame *current_frame;

static void release(const void *data, size_t len, void *arg) {
    (void)data; (void)len;
    struct frame *f = arg;
    if (--f->refs == 0) free(f);
}

static void encode_frame(void) {
    struct evbuffer *json = evbuffer_new();
    evbuffer_add(json, "[", 1);
    for (int id = 1; id <= n_todos; id++) {
        evbuffer_add_printf(json, "%s{\"id\":%d,\"title\":\"%s\",\"completed\":false}", id > 1 ? "," : "", id,
                            titles[id]);
    }
    evbuffer_add(json, "]", 1);
    struct evbuffer *out = evbuffer_new();
    evbuffer_add_printf(out, "id: %llu\nevent: todos\ndata: ", ++next_id);
    evbuffer_add_buffer(out, json);
    evbuffer_add(out, "\n\n", 2);
    evbuffer_free(json);
    size_t len = evbuffer_get_length(out);
    struct frame *f = malloc(sizeof *f + len);
    f->refs = 1;
    f->len = len;
    evbuffer_remove(out, f->bytes, len);
    evbuffer_free(out);
    if (current_frame && --current_frame->refs == 0) free(current_frame);
    current_frame = f;
}

static void broadcast(void) {
    struct frame *f = current_frame;
    for (struct client *c = clients.next; c != &clients; c = c->next) {
        struct evbuffer *chunk = evbuffer_new();
        f->refs++;
        evbuffer_add_reference(chunk, f->bytes, f->len, release, f);
        evhttp_send_reply_chunk(c->req, chunk);
        evbuffer_free(chunk);
    }
}

static void on_close(struct evhttp_connection *conn, void *arg) {
    (void)conn;
    struct client *c = arg;
    c->prev->next = c->next;
    c->next->prev = c->prev;
    free(c);
}

static char *title_of(struct evhttp_request *req) {
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    char *body = malloc(len + 1);
    evbuffer_copyout(in, body, len);
    body[len] = 0;
    char *start = strstr(body, "\"title\"");
    char *title = NULL;
    if (start && (start = strchr(start + 7, '"'))) {
        char *end = strchr(start + 1, '"');
        if (end) title = strndup(start + 1, end - start - 1);
    }
    free(body);
    return title;
}

static void answer_todo(struct evhttp_request *req, int id, int status) {
    struct evbuffer *out = evbuffer_new();
    evbuffer_add_printf(out, "{\"id\":%d,\"title\":\"%s\",\"completed\":false}", id, titles[id]);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json; charset=utf-8");
    evhttp_send_reply(req, status, status == 201 ? "Created" : "OK", out);
    evbuffer_free(out);
}

static void handle(struct evhttp_request *req, void *arg) {
    (void)arg;
    const char *uri = evhttp_request_get_uri(req);
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    if (method == EVHTTP_REQ_GET && strncmp(uri, "/events", 7) == 0) {
        struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
        evhttp_add_header(headers, "Content-Type", "text/event-stream; charset=utf-8");
        evhttp_add_header(headers, "Cache-Control", "no-cache");
        evhttp_add_header(headers, "X-Accel-Buffering", "no");
        evhttp_send_reply_start(req, 200, "OK");
        struct evbuffer *first = evbuffer_new();
        evbuffer_add(first, "retry: 2000\n\n", 13);
        evbuffer_add(first, current_frame->bytes, current_frame->len);
        evhttp_send_reply_chunk(req, first);
        evbuffer_free(first);
        struct client *c = calloc(1, sizeof *c);
        c->req = req;
        c->next = clients.next;
        c->prev = &clients;
        clients.next->prev = c;
        clients.next = c;
        struct evhttp_connection *conn = evhttp_request_get_connection(req);
        int one = 1;
        setsockopt(bufferevent_getfd(evhttp_connection_get_bufferevent(conn)), IPPROTO_TCP, TCP_NODELAY, &one,
                   sizeof one);
        evhttp_connection_set_closecb(conn, on_close, c);
        return;
    }
    if (method == EVHTTP_REQ_POST && strcmp(uri, "/todos") == 0 && n_todos < MAX_TODOS) {
        char *title = title_of(req);
        if (!title) { evhttp_send_error(req, 400, NULL); return; }
        titles[++n_todos] = title;
        encode_frame();
        answer_todo(req, n_todos, 201);
        broadcast();
        return;
    }
    int id;
    if (method == EVHTTP_REQ_PATCH && sscanf(uri, "/todos/%d", &id) == 1 && id >= 1 && id <= n_todos) {
        char *title = title_of(req);
        if (!title) { evhttp_send_error(req, 400, NULL); return; }
        free(titles[id]);
        titles[id] = title;
        encode_frame();
        answer_todo(req, id, 200);
        broadcast();
        return;
    }
    evhttp_send_error(req, 404, NULL);
}

static void on_signal(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what;
    event_base_loopexit(arg, NULL);
}

int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 0;
    titles[1] = strdup("Buy Milk");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    next_id = (unsigned long long)ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
    encode_frame();
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(http, handle, NULL);
    struct evhttp_bound_socket *bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", port);
    if (!bound) { perror("bind"); return 1; }
    struct sockaddr_in sin;
    socklen_t len = sizeof sin;
    getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&sin, &len);
    printf("listening on http://127.0.0.1:%d\n", ntohs(sin.sin_port));
    fflush(stdout);
    struct event *term = evsignal_new(base, SIGTERM, on_signal, base);
    event_add(term, NULL);
    signal(SIGPIPE, SIG_IGN);
    event_base_dispatch(base);
    return 0;
}
