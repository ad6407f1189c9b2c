#!/usr/bin/env bash
# Fan-out benchmark of GET /events: N clients hold /events?topics=todos open on loopback, a publisher
# renames one todo M times at a fixed rate (each title carries its send time), and every delivery's
# latency is measured. Prints p50/p99 latency, events lost, deliveries per second and server memory per
# connection (RSS delta / N), for LiveState (release build, its defaults but LOG_LEVEL=warning) and, in
# the same run, a plain C evhttp server forwarding the same bytes (reference.c) and nginx + nchan (its
# EventSource subscriber; a PATCH is turned into a POST to nchan's publisher), when the Debian module
# libnginx-mod-nchan is installed. The load average is printed with the table: the machine may be shared.
#
# usage: Benchmarks/fanout/run.sh [CLIENTS ...]        default: 1000 10000
#   FANOUT_EVENTS=100 FANOUT_RATE=20   changes and changes per second
#   FANOUT_THREADS=N                   LiveState's --threads (default: its own, one loop per processor)
#   FANOUT_LIMIT=60                    seconds one client run may last (what has not arrived is lost), so
#                                      the default run (2 client counts x 3 servers) ends within ~8 minutes
#   NCHAN=0 NCHAN_WORKERS=2            leave nginx + nchan out; its worker processes
#   SWIFT_SCRATCH=.build               SwiftPM scratch path of the release build
#   LIVESTATE_BIN=path                 skip the build and use this binary
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS=${FANOUT_EVENTS:-100}
RATE=${FANOUT_RATE:-20}
THREADS=${FANOUT_THREADS:-}
export FANOUT_LIMIT=${FANOUT_LIMIT:-60}
NCHAN_WORKERS=${NCHAN_WORKERS:-2}
nchan_module=/usr/lib/nginx/modules/ngx_nchan_module.so
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [ "${NCHAN:-1}" = "0" ] || [ ! -x "$nginx_bin" ] || [ ! -f "$nchan_module" ]; then nginx_bin=; fi
SCRATCH=${SWIFT_SCRATCH:-.build}
if [ $# -gt 0 ]; then CLIENTS=("$@"); else CLIENTS=(1000 10000); fi

# Each side needs a descriptor per connection.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
need=$(( $(printf '%s\n' "${CLIENTS[@]}" | sort -n | tail -1) + 64 ))
if [ "$(ulimit -n)" -lt "$need" ]; then
    echo "run.sh: ulimit -n is $(ulimit -n), below the $need descriptors needed" >&2
    exit 1
fi

work=$(mktemp -d /tmp/fanout.XXXXXX)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

libevent=$(pkg-config --cflags --libs libevent)
cc -O2 -o "$work/client" Benchmarks/fanout/client.c $libevent
cc -O2 -o "$work/reference" Benchmarks/fanout/reference.c $libevent
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate --scratch-path "$SCRATCH" 2>&1 | tail -n 1
    LIVESTATE_BIN="$SCRATCH/release/livestate"
fi

# start NAME COMMAND...: starts a server that prints "listening on http://HOST:PORT" first; sets port.
start() {
    local name=$1; shift
    "$@" > "$work/$name.out" 2> "$work/$name.err" &
    server_pid=$!
    for _ in $(seq 1 200); do
        if grep -q '^listening on ' "$work/$name.out" 2>/dev/null; then break; fi
        sleep 0.05
    done
    port=$(sed -n 's/^listening on http:\/\/.*:\([0-9]*\)$/\1/p' "$work/$name.out" | head -1)
    [ -n "$port" ] || { echo "run.sh: $name did not start" >&2; cat "$work/$name.err" >&2; exit 1; }
}

stop() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# nginx + nchan on loopback as the current user: POST /todos answers the id the client asks for, PATCH
# /todos/ID is passed to the publisher as a POST, /events subscribes (EventSource) from the newest message;
# sets port. The channel's first message is published here: the clients' replay.
start_nchan() {
    local dir="$work/nchan"
    mkdir -p "$dir/tmp"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$dir/nginx.conf" <<EOF
load_module $nchan_module;
worker_processes $NCHAN_WORKERS;
user $(id -un) $(id -gn);
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log error;
events { worker_connections $(( $(ulimit -n) - 64 )); }
http {
    access_log off;
    client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
    tcp_nodelay on;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port backlog=4096;
        location = /todos { default_type application/json; return 201 '{"id":1}'; }
        location /todos/ { proxy_method POST; rewrite ^ /pub break; proxy_pass http://127.0.0.1:$port; }
        location = /pub { nchan_publisher; nchan_channel_id todos; nchan_message_buffer_length 16; }
        location = /events {
            nchan_subscriber eventsource; nchan_channel_id todos; nchan_subscriber_first_message -1;
        }
    }
}
EOF
    "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" 2>"$dir/stderr" &
    server_pid=$!
    for _ in $(seq 1 100); do
        curl -sf -o /dev/null -X POST --data-binary '{"title":"bench seq=-1 t=0"}' "http://127.0.0.1:$port/pub" && return
        sleep 0.05
    done
    echo "run.sh: nginx + nchan did not start:" >&2; cat "$dir/stderr" "$dir/error.log" >&2; exit 1
}

# measure NAME N: one client run against the running server; prints its result line.
measure() {
    local name=$1 n=$2
    local line pids=$server_pid
    # nginx's memory is its workers' too.
    if [ "$name" = nginx-nchan ]; then pids=$(pgrep -d, -P "$server_pid" || true); pids="$server_pid${pids:+,$pids}"; fi
    line=$("$work/client" 127.0.0.1 "$port" "$n" "$EVENTS" "$RATE" "$pids" 2>"$work/client.err" || true)
    if [ -z "$line" ]; then
        echo "run.sh: the client failed against $name" >&2
        cat "$work/client.err" >&2
        line="failed"
    fi
    echo "$name $line"
}

printf 'fan-out: %s changes at %s/s, clients: %s; LiveState %s; %s cores' "$EVENTS" "$RATE" "${CLIENTS[*]}" \
    "$(if [ -n "$THREADS" ]; then echo "--threads $THREADS"; else echo "default loops"; fi)" "$(nproc)"
[ -n "$nginx_bin" ] && printf '; nginx %s + nchan, %s workers' "$("$nginx_bin" -v 2>&1 | sed 's/.*\///')" "$NCHAN_WORKERS"
printf '; each run at most %s s' "$FANOUT_LIMIT"
printf '\nload average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
results=()
for n in "${CLIENTS[@]}"; do
    start reference "$work/reference" 0
    results+=("$(measure plain-c-evhttp "$n")")
    stop
    start livestate env LOG_LEVEL=warning "$LIVESTATE_BIN" --port 0 --data :memory: --public public \
        --heartbeat 60 --max-streams-per-peer 0 ${THREADS:+--threads "$THREADS"}
    results+=("$(measure livestate "$n")")
    stop
    if [ -n "$nginx_bin" ]; then
        start_nchan
        results+=("$(measure nginx-nchan "$n")")
        stop
    fi
done
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }
printf '\n%-15s %7s %9s %9s %7s %13s %9s\n' server clients p50_ms p99_ms lost deliveries/s kB/conn
for line in "${results[@]}"; do
    name=${line%% *}
    if [[ "$line" == *failed ]]; then printf '%-15s failed\n' "$name"; continue; fi
    printf '%-15s %7s %9s %9s %7s %13s %9s\n' "$name" "$(field clients "$line")" "$(field p50_ms "$line")" \
        "$(field p99_ms "$line")" "$(field lost "$line")" "$(field deliveries_per_s "$line")" \
        "$(field rss_per_conn_kb "$line")"
done
printf '\nraw:\n'
printf '%s\n' "${results[@]}"
