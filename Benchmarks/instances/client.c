// Cross-instance benchmark client (libevent, one loop). Against one or more LiveState instances that
// share their todos (PostgreSQL), or one instance alone:
//
//   1. latency: CLIENTS connections to GET /events?topics=todos on every instance; then EVENTS renames
//      of one todo at RATE per second, round robin over the instances (PATCH /todos/ID), each title
//      "bench seq=S t=T" carrying its send time (CLOCK_MONOTONIC, system-wide). For every delivery of
//      every acknowledged write to every client: the latency from just before the PATCH was sent to the
//      moment its bytes were read here, split into clients of the instance that took the write (local)
//      and clients of the others (cross). Loss: an acknowledged write some client never saw.
//   2. throughput: those clients close; WATCHERS connections per instance stay; for WRITE_SECONDS
//      every instance gets CONCURRENCY writes in flight at all times (a new one as soon as one is
//      answered). Acknowledged writes per second, and every acknowledged write checked on every watcher.
//      WRITE_SECONDS 0 skips this phase.
//
// A server that cannot keep up would make phase 1 last as long as its queue: INSTANCES_PHASE_LIMIT
// (seconds after the last write was sent, default 20) ends it then. Every delivery still missing counts
// in the percentiles with its latency at that moment (so they are lower bounds, flagged saturated=1),
// as "behind" rather than lost, and writes not answered by then count as not acknowledged.
//
// Usage: client HOST CLIENTS EVENTS RATE WRITE_SECONDS CONCURRENCY WATCHERS PORT [PORT ...]
// Prints one line of key=value results (see run.sh); exits 1 when anything acknowledged was lost.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "../common/sse-marker.h"

#define MAX_PENDING_CONNECTS 256
#define MAX_PORTS 16
#define MAX_WRITES 400000   // phase 2 stops sending at this many writes
#define MAX_WRITERS 16384   // connections for writes in flight

// An SSE connection: a plain non-blocking socket under one persistent read event, read with one recv
// per wake-up into a shared buffer (a bufferevent costs an ioctl(FIONREAD) and an evbuffer copy per read:
// this client is the measuring instrument, so it does as little as reading every byte can). What a read
// leaves unfinished (a response head or marker split across reads) waits in `carry`.
#define CARRY 2048
struct conn {
    int fd;
    struct event *ev;
    int index, instance;
    int connected, ready, closed;
    uint8_t *seen;   // one bit per write sequence number
    int carried;
    char carry[CARRY];
};

struct writer {
    struct evhttp_connection *http;
    int instance, busy;
};

static struct event_base *base;
static const char *host;
static int ports[MAX_PORTS], n_ports;
static int per_instance, n_events, write_seconds, concurrency, watchers_per_instance;
static double rate;
static int phase;   // 1 latency, 2 throughput, 3 done
static int todo_id = -1;

static struct conn *conns;   // the open set of the current phase
static int n_conns, next_to_open, pending_connects, n_ready, n_closed_early;
static uint64_t connect_start_ns;
static double connect_seconds;

static int n_writes;            // sequence numbers handed out
static int n_answered, n_acked, n_failed;
static uint64_t *send_ns;       // per sequence number
static uint8_t *acked, *taken_by;   // per sequence number: 2xx, and which instance took it
static uint8_t *answers_left, *refused;   // per sequence number: answers still due, any non-2xx
static int broadcast, n_created;   // INSTANCES_BROADCAST: every write to every server (the reference)
static int phase2_first_seq;
static uint64_t phase2_start_ns, phase2_end_ns, phase2_last_ack_ns;
static int sending;

static struct writer writers[MAX_WRITERS];
static int n_writers;

static uint32_t *lat_local, *lat_cross;   // microseconds
static long n_local, n_cross, cap_local, cap_cross;
static uint32_t *lat_ack;   // microseconds from a phase-1 write's send to its 2xx (the commit path)
static long n_ack, cap_ack;
static long first_sightings;
static uint64_t last_delivery_ns;
static double phase_limit = 20;
static long behind1;
static int saturated1, unanswered1;
static struct event *publish_timer, *tick_timer;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void push(uint32_t **a, long *n, long *cap, uint32_t v) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1 << 16;
        *a = realloc(*a, (size_t)*cap * sizeof **a);
    }
    (*a)[(*n)++] = v;
}

static void open_more(void);
static void phase_ready(void);

// CPU seconds, and seconds spent runnable but waiting for a core (the kernel's schedstat, summed over
// every thread), during the latency phase: of the servers (INSTANCES_CPU_PIDS), of PostgreSQL
// (INSTANCES_PG_PID: the postmaster, whose children are the backends) and of this client. The wait says
// how much of a latency is the machine's other load rather than the work itself.
struct times { double cpu, wait; };

static void add_task_times(long pid, struct times *into) {
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return;
    for (struct dirent *task; (task = readdir(tasks));) {
        if (task->d_name[0] == '.') continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%ld/task/%s/schedstat", pid, task->d_name);
        FILE *f = fopen(file, "r");
        if (!f) continue;
        unsigned long long cpu = 0, wait = 0;
        if (fscanf(f, "%llu %llu", &cpu, &wait) == 2) {
            into->cpu += cpu / 1e9;
            into->wait += wait / 1e9;
        }
        fclose(f);
    }
    closedir(tasks);
}

static struct times servers_times(void) {
    struct times sum = {0, 0};
    const char *list = getenv("INSTANCES_CPU_PIDS");
    for (char *end; list && *list; list = end) {
        long pid = strtol(list, &end, 10);
        if (end == list) break;
        add_task_times(pid, &sum);
    }
    return sum;
}

static struct times pg_times(void) {
    struct times sum = {0, 0};
    long pm = getenv("INSTANCES_PG_PID") ? atol(getenv("INSTANCES_PG_PID")) : 0;
    if (pm <= 0) return sum;
    add_task_times(pm, &sum);
    char path[96], text[8192];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pm, pm);
    FILE *f = fopen(path, "r");
    if (!f) return sum;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    for (char *p = text, *end; *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p) break;
        add_task_times(pid, &sum);
    }
    return sum;
}

// wall, then cpu and wait of: client, servers, PostgreSQL
static double cpu_at[7], cpu_used[7];
static void cpu_sample(double *into) {
    struct times self = {0, 0}, servers = servers_times(), pg = pg_times();
    add_task_times((long)getpid(), &self);
    double values[7] = {now_ns() / 1e9, self.cpu, self.wait, servers.cpu, servers.wait, pg.cpu, pg.wait};
    memcpy(into, values, sizeof values);
}

// A delivery: the first sight of sequence number `seq` on this connection counts, repeats do not
// (an event carries the whole list, so an older title can come again). Only a marker whose time is the
// send time of that write counts: the list also holds the todos of earlier runs against the same
// servers, whose last titles carry the same sequence numbers with older times (counted, they gave
// latencies longer than the run and hid the loss of those writes).
static void delivered(struct conn *c, int seq, uint64_t t, uint64_t now) {
    if (seq < 0 || seq >= n_writes || t != send_ns[seq] || (c->seen[seq >> 3] & (1 << (seq & 7)))) return;
    c->seen[seq >> 3] |= (uint8_t)(1 << (seq & 7));
    first_sightings++;
    last_delivery_ns = now;
    uint32_t us = (uint32_t)((now > t ? now - t : 0) / 1000);
    if (phase == 1) {
        if (taken_by[seq] == c->instance) push(&lat_local, &n_local, &cap_local, us);
        else push(&lat_cross, &n_cross, &cap_cross, us);
    }
}

// Scans what arrived for "bench seq=S t=T" markers; everything else (frame syntax, chunk sizes, the
// rest of the JSON) is skipped, and a marker split across reads is kept for the next read.
static void close_conn(struct conn *c) {
    if (c->fd < 0) return;
    event_free(c->ev);
    close(c->fd);
    c->fd = -1;
}

// Scans `data` (the carried bytes, then what was read) for the response head, then for every complete
// "bench seq=S t=T" marker; keeps what may be the start of an unfinished one for the next read.
static void scan(struct conn *c, char *data, size_t n, uint64_t now) {
    static const size_t mlen = sizeof MARKER - 1;
    size_t pos = 0;
    if (!c->connected) {
        char *end = memmem(data, n, "\r\n\r\n", 4);
        if (!end) {
            if (n > CARRY) { fprintf(stderr, "connection %d: response head too long\n", c->index); exit(2); }
            memmove(c->carry, data, n);
            c->carried = (int)n;
            return;
        }
        if (n < 12 || memcmp(data + 9, "200", 3) != 0) {
            fprintf(stderr, "connection %d: HTTP status %.3s\n", c->index, n >= 12 ? data + 9 : "?");
            exit(2);
        }
        c->connected = 1;
        pending_connects--;
        pos = (size_t)(end - data) + 4;
        open_more();
    }
    size_t keep_from = n;
    while (pos < n) {
        char *m = memmem(data + pos, n - pos, MARKER, mlen);
        if (!m) { keep_from = n - pos < mlen ? pos : n - (mlen - 1); break; }
        size_t at = (size_t)(m - data);
        char *quote = memchr(data + at + mlen, '"', n - at - mlen < 64 ? n - at - mlen : 64);
        if (!quote) {
            if (n - at < 64) { keep_from = at; break; }   // the rest of the title has not arrived yet
            pos = at + mlen;                              // not a marker of ours: unreadable, skip it
            continue;
        }
        char text[80];
        size_t len = (size_t)(quote - (data + at + mlen));
        memcpy(text, data + at + mlen, len);
        text[len] = 0;
        int seq = -2;
        unsigned long long t = 0;
        sscanf(text, "%d t=%llu", &seq, &t);
        if (!c->ready) {
            c->ready = 1;
            if (++n_ready == n_conns) phase_ready();
        }
        delivered(c, seq, t, now);
        pos = (size_t)(quote - data) + 1;
        keep_from = n;
    }
    c->carried = (int)(n - keep_from);
    memmove(c->carry, data + keep_from, (size_t)c->carried);
}

static void on_read(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    static char buffer[CARRY + 65536];
    struct conn *c = arg;
    memcpy(buffer, c->carry, (size_t)c->carried);
    ssize_t got = recv(fd, buffer + c->carried, sizeof buffer - (size_t)c->carried, 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (got <= 0) {
        if (!c->connected) {
            fprintf(stderr, "connection %d to port %d failed\n", c->index, ports[c->instance]);
            exit(2);
        }
        c->closed = 1;
        n_closed_early++;
        close_conn(c);
        return;
    }
    scan(c, buffer, (size_t)c->carried + (size_t)got, now_ns());
}

// The connect finished (or failed): send the request, then read for good.
static void on_connect(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    struct conn *c = arg;
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    char request[256];
    int len = snprintf(request, sizeof request,
                       "GET /events?topics=todos HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n",
                       host, ports[c->instance]);
    if (error != 0 || send(fd, request, (size_t)len, MSG_NOSIGNAL) != len) {
        fprintf(stderr, "connection %d to port %d failed: %s\n", c->index, ports[c->instance], strerror(error));
        exit(2);
    }
    event_assign(c->ev, base, fd, EV_READ | EV_PERSIST, on_read, c);
    event_add(c->ev, NULL);
}

static void open_more(void) {
    while (next_to_open < n_conns && pending_connects < MAX_PENDING_CONNECTS) {
        struct conn *c = &conns[next_to_open];
        c->index = next_to_open++;
        c->instance = c->index % n_ports;
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(ports[c->instance])};
        inet_pton(AF_INET, host, &sin.sin_addr);
        pending_connects++;
        if (c->fd < 0 || (connect(c->fd, (struct sockaddr *)&sin, sizeof sin) < 0 && errno != EINPROGRESS)) {
            fprintf(stderr, "connect failed: %s\n", strerror(errno));
            exit(2);
        }
        c->ev = event_new(base, c->fd, EV_WRITE, on_connect, c);
        event_add(c->ev, NULL);
    }
}

// Opens `count` connections (spread over the instances) with room for `bits` sequence numbers each.
static void open_set(int count, int bits) {
    conns = calloc(count, sizeof *conns);
    for (int i = 0; i < count; i++) {
        conns[i].seen = calloc((bits + 7) / 8, 1);
        conns[i].fd = -1;
    }
    n_conns = count;
    next_to_open = n_ready = pending_connects = 0;
    connect_start_ns = now_ns();
    open_more();
}

static void close_set(void) {
    for (int i = 0; i < n_conns; i++) {
        close_conn(&conns[i]);
        free(conns[i].seen);
    }
    free(conns);
    conns = NULL;
    n_conns = 0;
}

// Loss: acknowledged writes in [from, to) some open connection never saw.
static long count_lost(int from, int to) {
    long lost = 0;
    for (int i = 0; i < n_conns; i++) {   // a connection that closed early counts: it missed them
        for (int s = from; s < to; s++)
            if (acked[s] && !(conns[i].seen[s >> 3] & (1 << (s & 7)))) lost++;
    }
    return lost;
}

static void send_write(struct writer *w);
static struct writer *idle_writer(int instance);

// A write's answer; with INSTANCES_BROADCAST a write counts as answered (and acknowledged) once every
// server answered it (2xx from all).
static void on_answer(struct evhttp_request *req, void *arg) {
    intptr_t tag = (intptr_t)arg;
    int seq = (int)(tag & 0xFFFFF);
    struct writer *w = &writers[tag >> 20];
    int code = req ? evhttp_request_get_response_code(req) : -1;
    w->busy = 0;
    if (phase >= 2 && seq < phase2_first_seq) return;   // phase 1 gave up on it at its limit
    if (code < 200 || code >= 300) refused[seq] = 1;
    if (--answers_left[seq] > 0) return;
    n_answered++;
    if (!refused[seq]) {
        acked[seq] = 1;
        n_acked++;
        if (phase == 1) push(&lat_ack, &n_ack, &cap_ack, (uint32_t)((now_ns() - send_ns[seq]) / 1000));
        phase2_last_ack_ns = now_ns();
    } else {
        n_failed++;
        if (n_failed <= 5) fprintf(stderr, "PATCH seq %d: %d\n", seq, code);
    }
    if (phase == 2 && sending) send_write(w);
}

// Sends write `seq` (its send time already taken) through `w`.
static void send_request(struct writer *w, int seq) {
    struct evhttp_request *req = evhttp_request_new(on_answer, (void *)(((intptr_t)(w - writers) << 20) | seq));
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    char hostport[64], body[128], length[16], path[64];
    snprintf(hostport, sizeof hostport, "%s:%d", host, ports[w->instance]);
    evhttp_add_header(headers, "Host", hostport);
    evhttp_add_header(headers, "Content-Type", "application/json");
    int len = snprintf(body, sizeof body, "{\"title\":\"" MARKER "%d t=%llu\"}", seq, (unsigned long long)send_ns[seq]);
    evbuffer_add(evhttp_request_get_output_buffer(req), body, len);
    snprintf(length, sizeof length, "%d", len);   // evhttp adds Content-Length for POST and PUT only
    evhttp_add_header(headers, "Content-Length", length);
    snprintf(path, sizeof path, "/todos/%d", todo_id);
    w->busy = 1;
    evhttp_make_request(w->http, req, EVHTTP_REQ_PATCH, path);
}

// A new write through `w` (through every server with INSTANCES_BROADCAST, phase 1).
static void send_write(struct writer *w) {
    if (n_writes >= MAX_WRITES) { sending = 0; return; }
    int seq = n_writes++;
    send_ns[seq] = now_ns();
    taken_by[seq] = (uint8_t)w->instance;
    if (broadcast && phase == 1) {
        answers_left[seq] = (uint8_t)n_ports;
        for (int i = 0; i < n_ports; i++) send_request(i == w->instance ? w : idle_writer(i), seq);
    } else {
        answers_left[seq] = 1;
        send_request(w, seq);
    }
}

// An idle writer of that instance, a new connection when all are busy (a write never waits behind
// another one on the same connection, so its send time is the time it left).
static struct writer *idle_writer(int instance) {
    for (int i = 0; i < n_writers; i++)
        if (writers[i].instance == instance && !writers[i].busy) return &writers[i];
    if (n_writers == MAX_WRITERS) {
        fprintf(stderr, "more than %d writes in flight\n", MAX_WRITERS);
        exit(2);
    }
    struct writer *w = &writers[n_writers++];   // a fixed array: a writer's address never moves
    w->instance = instance;
    w->busy = 0;
    w->http = evhttp_connection_base_new(base, NULL, host, ports[instance]);
    return w;
}

// Every 1/RATE s: the writes due by now. NB: a timer that fires late (this process waited for a core)
// sends the overdue writes at once, so the offered rate stays RATE on average instead of quietly sinking
// with the machine's load (it did: 1,000 writes took 58-71 s at load 10, at a 100/s timer).
static uint64_t publish_start_ns;
static void publish_one(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    long due = 1 + (long)((now_ns() - publish_start_ns) / 1e9 * rate);
    while (n_writes < n_events && n_writes < due) send_write(idle_writer(n_writes % n_ports));
    if (n_writes >= n_events) event_del(publish_timer);
}

static void phase_ready(void) {
    connect_seconds = (now_ns() - connect_start_ns) / 1e9;
    if (phase == 1) {
        fprintf(stderr, "%d clients ready in %.2fs; %d writes at %.0f/s over %d instance(s)\n", n_conns,
                connect_seconds, n_events, rate, n_ports);
        cpu_sample(cpu_at);
        struct timeval every = {(int)(1 / rate), (int)(1e6 / rate) % 1000000};
        publish_timer = event_new(base, -1, EV_PERSIST, publish_one, NULL);
        event_add(publish_timer, &every);
        publish_start_ns = now_ns();
        publish_one(-1, 0, NULL);
    } else {
        fprintf(stderr, "%d watchers ready; %d s of writes, %d in flight per instance\n", n_conns, write_seconds,
                concurrency);
        phase2_first_seq = n_writes;
        phase2_start_ns = now_ns();
        sending = 1;
        for (int i = 0; i < n_ports; i++)
            for (int k = 0; k < concurrency; k++) send_write(idle_writer(i));
    }
}

static double pct(uint32_t *a, long n, double q) { return n ? a[(long)((n - 1) * q)] / 1000.0 : 0; }
static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static long lost1 = -1, lost2 = -1;
static int phase1_acked, phase1_failed, closed1;
static double phase1_seconds, connect1_seconds;

// Every 20 ms: a phase ends once everything was answered and every acknowledged write reached every
// client, or when nothing arrived for 5 s after the last answer (what is missing then is lost).
static void tick(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    uint64_t now = now_ns();
    if (phase == 2 && sending && now - phase2_start_ns >= (uint64_t)write_seconds * 1000000000ull) {
        sending = 0;
        phase2_end_ns = now;
    }
    int all_sent = phase == 1 ? n_writes >= n_events : !sending && phase2_start_ns;
    if (!all_sent) return;
    int at_limit = phase == 1 && now - send_ns[n_writes - 1] >= (uint64_t)(phase_limit * 1e9);
    if (at_limit) {
        // Saturated: what has not arrived yet counts at its latency now; unanswered writes as not acked.
        saturated1 = 1;
        unanswered1 = n_writes - n_answered;
        for (int i = 0; i < n_conns; i++)
            for (int s = 0; s < n_writes; s++)
                if (acked[s] && !(conns[i].seen[s >> 3] & (1 << (s & 7)))) {
                    uint32_t us = (uint32_t)((now - send_ns[s]) / 1000);
                    if (taken_by[s] == conns[i].instance) push(&lat_local, &n_local, &cap_local, us);
                    else push(&lat_cross, &n_cross, &cap_cross, us);
                    behind1++;
                }
        last_delivery_ns = now;
    } else if (n_answered < n_writes) {
        return;
    }
    int from = phase == 1 ? 0 : phase2_first_seq;
    long acked_here = 0;
    for (int s = from; s < n_writes; s++) acked_here += acked[s];
    uint64_t quiet = now - (last_delivery_ns > send_ns[n_writes - 1] ? last_delivery_ns : send_ns[n_writes - 1]);
    static long sightings_at_start;
    int timed_out = quiet >= 5000000000ull;
    // Sightings include writes answered non-2xx that were applied all the same: count exactly then.
    if (first_sightings - sightings_at_start < (long)n_conns * acked_here && !timed_out && !at_limit) return;
    long lost = at_limit ? 0 : count_lost(from, n_writes);
    if (lost > 0 && !timed_out) return;
    if (phase == 1) {
        cpu_sample(cpu_used);
        for (int i = 0; i < 7; i++) cpu_used[i] -= cpu_at[i];
        lost1 = lost;
        connect1_seconds = connect_seconds;
        phase1_acked = n_acked;
        phase1_failed = n_failed;
        closed1 = n_closed_early;
        phase1_seconds = (last_delivery_ns - send_ns[0]) / 1e9;
        close_set();
        phase2_first_seq = n_writes;
        if (write_seconds == 0) {
            lost2 = 0;
            phase = 3;
            event_base_loopexit(base, NULL);
            return;
        }
        phase = 2;
        n_closed_early = 0;
        sightings_at_start = first_sightings;
        open_set(watchers_per_instance * n_ports, MAX_WRITES);
    } else {
        lost2 = lost;
        phase = 3;
        event_base_loopexit(base, NULL);
    }
}

static void give_up(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    fprintf(stderr, "the overall limit (600 s) ran out in phase %d\n", phase);
    event_base_loopexit(base, NULL);
}

static void on_created(struct evhttp_request *req, void *arg) {
    (void)arg;
    int id = created_todo_id(req);
    if (todo_id >= 0 && id != todo_id) {
        fprintf(stderr, "the servers made the todo with different ids (%d, %d)\n", todo_id, id);
        exit(2);
    }
    todo_id = id;
    if (++n_created < (broadcast ? n_ports : 1)) return;
    phase = 1;
    open_set(per_instance * n_ports, n_events);
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: %s HOST CLIENTS EVENTS RATE WRITE_SECONDS CONCURRENCY WATCHERS PORT [PORT ...]\n",
                argv[0]);
        return 2;
    }
    host = argv[1];
    per_instance = atoi(argv[2]);
    n_events = atoi(argv[3]);
    rate = atof(argv[4]);
    if (getenv("INSTANCES_PHASE_LIMIT")) phase_limit = atof(getenv("INSTANCES_PHASE_LIMIT"));
    write_seconds = atoi(argv[5]);
    concurrency = atoi(argv[6]);
    watchers_per_instance = atoi(argv[7]);
    for (int i = 8; i < argc && n_ports < MAX_PORTS; i++) ports[n_ports++] = atoi(argv[i]);
    if (n_events < 1 || n_events > MAX_WRITES / 2 || rate <= 0 || per_instance < 1 || watchers_per_instance < 1 ||
        phase_limit <= 0) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    send_ns = calloc(MAX_WRITES, sizeof *send_ns);
    acked = calloc(MAX_WRITES, 1);
    answers_left = calloc(MAX_WRITES, 1);
    refused = calloc(MAX_WRITES, 1);
    broadcast = getenv("INSTANCES_BROADCAST") && atoi(getenv("INSTANCES_BROADCAST"));
    taken_by = calloc(MAX_WRITES, 1);
    base = event_base_new();
    tick_timer = event_new(base, -1, EV_PERSIST, tick, NULL);
    struct timeval every = {0, 20000};
    event_add(tick_timer, &every);
    struct timeval limit = {600, 0};
    event_add(evtimer_new(base, give_up, NULL), &limit);

    // The todo whose title every write replaces, made on the first instance (on every server when
    // broadcasting: they share nothing).
    for (int i = 0; i < (broadcast ? n_ports : 1); i++) {
        struct evhttp_connection *setup = evhttp_connection_base_new(base, NULL, host, ports[i]);
        struct evhttp_request *req = evhttp_request_new(on_created, NULL);
        char hostport[64];
        snprintf(hostport, sizeof hostport, "%s:%d", host, ports[i]);
        evhttp_add_header(evhttp_request_get_output_headers(req), "Host", hostport);
        evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
        const char *body = "{\"title\":\"" MARKER "-1 t=0\"}";
        evbuffer_add(evhttp_request_get_output_buffer(req), body, strlen(body));
        evhttp_make_request(setup, req, EVHTTP_REQ_POST, "/todos");
    }
    event_base_dispatch(base);
    if (phase != 3) return 2;

    qsort(lat_local, n_local, sizeof *lat_local, cmp_u32);
    qsort(lat_cross, n_cross, sizeof *lat_cross, cmp_u32);
    qsort(lat_ack, n_ack, sizeof *lat_ack, cmp_u32);
    uint32_t *all = malloc((size_t)(n_local + n_cross + 1) * sizeof *all);
    memcpy(all, lat_local, (size_t)n_local * sizeof *all);
    memcpy(all + n_local, lat_cross, (size_t)n_cross * sizeof *all);
    long n_all = n_local + n_cross;
    qsort(all, n_all, sizeof *all, cmp_u32);
    int phase2_writes = n_writes - phase2_first_seq, phase2_acked = n_acked - phase1_acked;
    double window = ((phase2_last_ack_ns > phase2_start_ns ? phase2_last_ack_ns : phase2_end_ns) - phase2_start_ns) / 1e9;
    printf("instances=%d clients=%d writes=%d acked=%d failed=%d deliveries=%ld lost=%ld closed_early=%d "
           "p50_ms=%.2f p99_ms=%.2f max_ms=%.2f local_p50_ms=%.2f local_p99_ms=%.2f cross_p50_ms=%.2f "
           "cross_p99_ms=%.2f connect_s=%.2f phase1_s=%.2f deliveries_per_s=%.0f "
           "sat_writes=%d sat_acked=%d sat_failed=%d acked_per_s=%.0f sat_watchers=%d sat_lost=%ld "
           "saturated=%d behind=%ld unanswered=%d cpu_wall_s=%.2f cpu_client_s=%.2f wait_client_s=%.2f "
           "cpu_servers_s=%.2f wait_servers_s=%.2f cpu_pg_s=%.2f wait_pg_s=%.2f ack_p50_ms=%.2f ack_p99_ms=%.2f sent_per_s=%.1f\n",
           n_ports, per_instance * n_ports, n_events, phase1_acked, phase1_failed, n_all - behind1, lost1, closed1,
           pct(all, n_all, 0.5), pct(all, n_all, 0.99), n_all ? all[n_all - 1] / 1000.0 : 0,
           pct(lat_local, n_local, 0.5), pct(lat_local, n_local, 0.99), pct(lat_cross, n_cross, 0.5),
           pct(lat_cross, n_cross, 0.99), connect1_seconds, phase1_seconds,
           phase1_seconds > 0 ? (n_all - behind1) / phase1_seconds : 0, phase2_writes, phase2_acked,
           n_failed - phase1_failed, window > 0 ? phase2_acked / window : 0, watchers_per_instance * n_ports,
           lost2, saturated1, behind1, unanswered1, cpu_used[0], cpu_used[1], cpu_used[2], cpu_used[3],
           cpu_used[4], cpu_used[5], cpu_used[6],
           pct(lat_ack, n_ack, 0.5), pct(lat_ack, n_ack, 0.99),
           n_events > 1 ? (n_events - 1) / ((send_ns[n_events - 1] - send_ns[0]) / 1e9) : 0);
    return lost1 == 0 && lost2 == 0 ? 0 : 1;   // at the limit nothing counts as lost: see "behind"
}
