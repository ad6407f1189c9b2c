// Live-query benchmark client: F todos, N connections on loopback, then M title changes at a fixed rate
// (PATCH /todos/ID, round robin over the todos), measuring the latency of every delivery of every change
// from just before the PATCH was sent to the moment its bytes were read here, and the server's CPU time
// per change. Two modes, the same changes:
//   live   connection i holds the live query GET /todos?id=<todo i mod F> (Accept: text/event-stream):
//          F distinct filters, and each change reaches the N/F connections of its todo;
//   topic  connection i holds GET /events?topics=todos&diff=1: each change reaches every connection.
// Each title carries its sequence number and send time (CLOCK_MONOTONIC, system-wide).
//
// Usage: client live|topic HOST PORT CLIENTS FILTERS EVENTS RATE [SERVER_PID[,PID...]]
// The whole run stops after FANOUT_LIMIT seconds (default 300): what has not arrived by then is lost.
// Prints one line of key=value results (see run.sh).
#define _GNU_SOURCE
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../common/sse-marker.h"

#define MAX_PENDING_CONNECTS 256

struct conn {
    struct bufferevent *bev;
    int index;
    int connected;   // response head read
    int ready;       // first (replay) event seen
    int last_seq;    // newest sequence seen
    long delivered;
    int closed;
};

static struct event_base *base;
static const char *host;
static int port;
static int n_clients, n_events, n_filters, live_mode;
static int *todo_ids, n_created;
static long expected_deliveries;
static double cpu_start_s, cpu_end_s;
static double rate;
static int server_pids[16], n_server_pids;
static struct conn *conns;
static int next_to_open, pending_connects, n_ready, n_closed_early;
static int sent;
static uint64_t *send_ns;
static uint32_t *latencies_us;   // n_clients * n_events
static long n_latencies;
static uint64_t first_send_ns, last_delivery_ns;
static long total_delivered;
static struct event *publish_timer, *progress_timer;
static struct evhttp_connection *api;
static long rss_before_kb, rss_connected_kb, rss_end_kb;
static uint64_t connect_start_ns;
static double connect_seconds;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long rss_kb(void) {
    long kb = 0;
    for (int i = 0; i < n_server_pids; i++) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/status", server_pids[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "VmRSS:", 6) == 0) { kb += strtol(line + 6, NULL, 10); break; }
        }
        fclose(f);
    }
    return kb;
}

// The server's user + system CPU seconds (all PIDs), from /proc/PID/stat.
static double cpu_seconds(void) {
    double total = 0;
    long ticks = sysconf(_SC_CLK_TCK);
    for (int i = 0; i < n_server_pids; i++) {
        char path[64], text[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", server_pids[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = 0;
        char *p = strrchr(text, ')');
        unsigned long utime = 0, stime = 0;
        // After the command: state, then fields 4..13, then utime (14) and stime (15).
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) == 2) {
            total += (double)(utime + stime) / ticks;
        }
    }
    return total;
}

static void open_more(void);
static void start_publishing(void);

// Scans what arrived for "bench seq=S t=T" markers; everything else (frame syntax, chunk sizes,
// the rest of the JSON) is skipped, so a marker split across reads is kept for the next read.
static void on_read(struct bufferevent *bev, void *arg) {
    struct conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    uint64_t now = now_ns();
    if (!c->connected) {
        if (!sse_read_head(in, c->index)) return;
        c->connected = 1;
        pending_connects--;
        open_more();
    }
    int seq;
    unsigned long long t;
    while (sse_next_marker(in, &seq, &t)) {
        if (!c->ready) {
            c->ready = 1;
            if (++n_ready == n_clients) {
                rss_connected_kb = rss_kb();
                connect_seconds = (now - connect_start_ns) / 1e9;
                start_publishing();
            }
        }
        if (seq >= 0 && seq > c->last_seq) {
            c->delivered++;
            total_delivered++;
            c->last_seq = seq;
            uint64_t lat = now > t ? now - t : 0;
            if (n_latencies < expected_deliveries) latencies_us[n_latencies++] = (uint32_t)(lat / 1000);
            last_delivery_ns = now;
        }
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    struct conn *c = arg;
    if (what & BEV_EVENT_CONNECTED) {
        int one = 1;
        setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char request[256];
        int len = live_mode
            ? snprintf(request, sizeof request,
                       "GET /todos?id=%d HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                       todo_ids[c->index % n_filters], host, port)
            : snprintf(request, sizeof request,
                       "GET /events?topics=todos&diff=1 HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                       host, port);
        bufferevent_write(bev, request, len);
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        if (!c->connected) {
            fprintf(stderr, "connection %d failed: %s\n", c->index, strerror(EVUTIL_SOCKET_ERROR()));
            exit(1);
        }
        c->closed = 1;
        n_closed_early++;
        bufferevent_free(bev);
        c->bev = NULL;
    }
}

static void open_more(void) {
    while (next_to_open < n_clients && pending_connects < MAX_PENDING_CONNECTS) {
        struct conn *c = &conns[next_to_open];
        c->index = next_to_open++;
        c->last_seq = -1;
        c->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
        bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
        bufferevent_enable(c->bev, EV_READ);
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
        inet_pton(AF_INET, host, &sin.sin_addr);
        pending_connects++;
        if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&sin, sizeof sin) < 0) {
            fprintf(stderr, "connect failed\n");
            exit(1);
        }
    }
}

static double patch_ms_total, patch_ms_max;
static int patch_done;

static void on_patch_done(struct evhttp_request *req, void *arg) {
    int seq = (int)(intptr_t)arg;
    double ms = (now_ns() - send_ns[seq]) / 1e6;
    patch_ms_total += ms;
    if (ms > patch_ms_max) patch_ms_max = ms;
    patch_done++;
    if (!req || evhttp_request_get_response_code(req) / 100 != 2) {
        fprintf(stderr, "PATCH failed: %d\n", req ? evhttp_request_get_response_code(req) : -1);
    }
}

static void publish_one(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    if (sent >= n_events) {
        event_del(publish_timer);
        return;
    }
    struct evhttp_request *req = evhttp_request_new(on_patch_done, (void *)(intptr_t)sent);
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    char hostport[64];
    snprintf(hostport, sizeof hostport, "%s:%d", host, port);
    evhttp_add_header(headers, "Host", hostport);
    evhttp_add_header(headers, "Content-Type", "application/json");
    uint64_t t = now_ns();
    if (sent == 0) first_send_ns = t;
    send_ns[sent] = t;
    char body[128];
    int len = snprintf(body, sizeof body, "{\"title\":\"" MARKER "%d t=%llu\"}", sent, (unsigned long long)t);
    evbuffer_add(evhttp_request_get_output_buffer(req), body, len);
    // NB: evhttp adds Content-Length by itself for POST and PUT only.
    char length[16];
    snprintf(length, sizeof length, "%d", len);
    evhttp_add_header(headers, "Content-Length", length);
    char path[64];
    snprintf(path, sizeof path, "/todos/%d", todo_ids[sent % n_filters]);
    evhttp_make_request(api, req, EVHTTP_REQ_PATCH, path);
    sent++;
}

static void start_publishing(void) {
    fprintf(stderr, "%d clients ready in %.2fs; publishing %d events at %.0f/s\n", n_clients, connect_seconds,
            n_events, rate);
    struct timeval every = {0, (int)(1e6 / rate)};
    if (rate <= 1) { every.tv_sec = (int)(1 / rate); every.tv_usec = 0; }
    cpu_start_s = cpu_seconds();
    publish_timer = event_new(base, -1, EV_PERSIST, publish_one, NULL);
    event_add(publish_timer, &every);
    publish_one(-1, 0, NULL);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void finish(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    // The overall limit ran out: whatever is missing is lost.
    event_base_loopexit(base, NULL);
}

static void check_done(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    if (sent < n_events) return;
    // Done when every delivery arrived, or when none arrived for 5 s after the last change was sent:
    // what is missing then is lost (a slow server is measured by its latency, not counted as loss).
    uint64_t now = now_ns(), last = last_delivery_ns > send_ns[n_events - 1] ? last_delivery_ns : send_ns[n_events - 1];
    if (total_delivered >= expected_deliveries || now - last > 5000000000ull) {
        cpu_end_s = cpu_seconds();
        event_base_loopexit(base, NULL);
    }
}

static void create_next(void);

static void on_created(struct evhttp_request *req, void *arg) {
    (void)arg;
    todo_ids[n_created++] = created_todo_id(req);
    if (n_created < n_filters) {
        create_next();
        return;
    }
    rss_before_kb = rss_kb();
    connect_start_ns = now_ns();
    open_more();
}

// One of the todos whose titles the changes rewrite.
static void create_next(void) {
    struct evhttp_request *req = evhttp_request_new(on_created, NULL);
    char hostport[64];
    snprintf(hostport, sizeof hostport, "%s:%d", host, port);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Host", hostport);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
    const char *body = "{\"title\":\"" MARKER "-1 t=0\"}";
    evbuffer_add(evhttp_request_get_output_buffer(req), body, strlen(body));
    evhttp_make_request(api, req, EVHTTP_REQ_POST, "/todos");
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s live|topic HOST PORT CLIENTS FILTERS EVENTS RATE [SERVER_PID[,PID...]]\n", argv[0]);
        return 2;
    }
    live_mode = strcmp(argv[1], "live") == 0;
    host = argv[2];
    port = atoi(argv[3]);
    n_clients = atoi(argv[4]);
    n_filters = atoi(argv[5]);
    n_events = atoi(argv[6]);
    rate = atof(argv[7]);
    for (char *pid = argc > 8 ? argv[8] : NULL; pid && *pid && n_server_pids < 16; pid = strchr(pid, ',')) {
        if (*pid == ',') pid++;
        server_pids[n_server_pids++] = atoi(pid);
    }
    (void)sse_send_request;  // the shared header's /events request; this client writes its own
    todo_ids = calloc(n_filters, sizeof *todo_ids);
    // Change s rewrites todo s mod F: in live mode it reaches the connections i with i mod F == s mod F.
    for (int s = 0; s < n_events; s++) {
        expected_deliveries += live_mode ? n_clients / n_filters + (s % n_filters < n_clients % n_filters) : n_clients;
    }
    conns = calloc(n_clients, sizeof *conns);
    send_ns = calloc(n_events, sizeof *send_ns);
    latencies_us = calloc((size_t)expected_deliveries + 1, sizeof *latencies_us);
    base = event_base_new();
    api = evhttp_connection_base_new(base, NULL, host, port);
    progress_timer = event_new(base, -1, EV_PERSIST, check_done, NULL);
    struct timeval tick = {0, 20000};
    event_add(progress_timer, &tick);

    create_next();

    const char *limit_env = getenv("FANOUT_LIMIT");
    struct timeval limit = {limit_env && atoi(limit_env) > 0 ? atoi(limit_env) : 300, 0};
    struct event *deadline = evtimer_new(base, finish, NULL);
    event_add(deadline, &limit);
    event_base_dispatch(base);
    rss_end_kb = rss_kb();

    if (cpu_end_s == 0) cpu_end_s = cpu_seconds();
    long lost = expected_deliveries - total_delivered;
    qsort(latencies_us, n_latencies, sizeof *latencies_us, cmp_u32);
    double p50 = n_latencies ? latencies_us[(long)(n_latencies * 0.50)] / 1000.0 : 0;
    double p99 = n_latencies ? latencies_us[(long)(n_latencies * 0.99)] / 1000.0 : 0;
    double max = n_latencies ? latencies_us[n_latencies - 1] / 1000.0 : 0;
    double span = (last_delivery_ns > first_send_ns ? last_delivery_ns - first_send_ns : 1) / 1e9;
    long rss_delta = rss_connected_kb - rss_before_kb;
    printf("mode=%s filters=%d cpu_per_write_us=%.0f clients=%d events=%d rate=%.0f delivered=%ld lost=%ld p50_ms=%.2f p99_ms=%.2f max_ms=%.2f "
           "deliveries_per_s=%.0f connect_s=%.2f rss_before_kb=%ld rss_connected_kb=%ld rss_end_kb=%ld "
           "rss_per_conn_kb=%.2f closed_early=%d patch_avg_ms=%.2f patch_max_ms=%.2f\n",
           live_mode ? "live" : "topic", n_filters, (cpu_end_s - cpu_start_s) * 1e6 / n_events,
           n_clients, n_events, rate, total_delivered, lost, p50, p99, max, total_delivered / span, connect_seconds,
           rss_before_kb, rss_connected_kb, rss_end_kb, n_clients ? (double)rss_delta / n_clients : 0,
           n_closed_early, patch_done ? patch_ms_total / patch_done : 0, patch_ms_max);
    return lost == 0 ? 0 : 1;
}
