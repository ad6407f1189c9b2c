#!/usr/bin/env bash
# HTTP benchmark: LiveState on its defaults (request log on, to a file) next to a plain, tuned C evhttp
# server (plain.c) and nginx (1 and 2 workers, access log on, sendfile) serving the same bytes.
#
#   Benchmarks/http/run.sh                 # wrk -t2 -c64 -d10s per run (CI=true: -d3s)
#   DURATION=5s ROUNDS=3 Benchmarks/http/run.sh
#   THREADS=2 LOG_LEVEL=warning NGINX=0 Benchmarks/http/run.sh   # --threads 2, log off, no nginx
#
# Builds the release livestate (or uses $LIVESTATE_BIN), seeds 250 todos (~23 KB of JSON) through
# POST /todos into a temporary SQLite file, fetches GET /todos and GET /albums (5000 items, ~1 MB)
# from LiveState, starts plain.c on those bytes, then runs wrk on each path against each server,
# one run at a time, alternating the two servers ROUNDS times (default 1) and keeping each one's best
# run (on a shared machine a neighbour's burst then hurts both sides alike). Prints requests/s and the
# ratios LiveState / plain C and LiveState / nginx. The `/albums gzip` row asks with
# `Accept-Encoding: gzip` (LiveState's cached gzip against nginx's gzip_static of the same .gz file; the
# plain C server has no gzip). The load average is printed with the table: the machine may be shared.
# Needs: wrk, curl, cc, pkg-config, libevent-dev, nginx (scripts/install-deps --test).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${DURATION:-10s}
[ "${CI:-}" = "true" ] && duration=${DURATION:-3s}
connections=${CONNECTIONS:-64}
rounds=${ROUNDS:-1}
server_threads=${THREADS:-}
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [ "${NGINX:-1}" = "0" ] || [ ! -x "$nginx_bin" ]; then nginx_bin=; fi
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk curl cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (scripts/install-deps)" >&2; exit 1; }
done

if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate ${SCRATCH:+--scratch-path "$SCRATCH"} >&2
    LIVESTATE_BIN="$(swift build -c release --show-bin-path ${SCRATCH:+--scratch-path "$SCRATCH"})/livestate"
fi
cc -O2 Benchmarks/http/plain.c $(pkg-config --cflags --libs libevent) -o "$work/plain"

# Starts a server whose first stdout line is "listening on http://HOST:PORT"; sets $port to the port.
start() {
    local log=$1; shift
    "$@" >"$log" 2>"$log.err" &
    pids+=($!)
    for _ in $(seq 1 200); do
        if grep -q '^listening on' "$log" 2>/dev/null; then
            port=$(sed -n '1s/.*:\([0-9]*\)$/\1/p' "$log")
            return
        fi
        sleep 0.05
    done
    echo "run.sh: $* did not start:" >&2; cat "$log.err" >&2; exit 1
}

start "$work/live.out" "$LIVESTATE_BIN" --port 0 ${server_threads:+--threads "$server_threads"} \
    --data "$work/bench.sqlite"
live="http://127.0.0.1:$port"

# ~23 KB of todos: the first one plus 249 titled like a real list.
for i in $(seq 1 249); do
    printf '{"title":"Benchmark task %03d: water the plants and answer the mail"}' "$i" |
        curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @- "$live/todos"
done
curl -sf "$live/todos" -o "$work/todos.json"
curl -sf "$live/albums" -o "$work/albums.json"
curl -sf -H 'Accept-Encoding: gzip' "$live/albums" -o "$work/albums.json.gz"

start "$work/plain.out" "$work/plain" 0 /todos "$work/todos.json" /albums "$work/albums.json"
plain="http://127.0.0.1:$port"

# Same bytes from both servers, or the comparison means nothing.
for path in todos albums; do
    curl -sf "$plain/$path" | cmp -s - "$work/$path.json" || { echo "run.sh: /$path differs" >&2; exit 1; }
done

# nginx on loopback as the current user (its workers too: `user`, for the 0700 $work): a temporary
# config, prefix and log files in $work.
nginx_urls=()
start_nginx() {
    local workers=$1 dir="$work/nginx$1"
    mkdir -p "$dir/www" "$dir/tmp"
    cp "$work/todos.json" "$dir/www/todos"
    cp "$work/albums.json" "$dir/www/albums"
    cp "$work/albums.json.gz" "$dir/www/albums.gz"
    local nport
    nport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$dir/nginx.conf" <<EOF
worker_processes $workers;
user $(id -un) $(id -gn);
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log $dir/access.log;
    client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
    sendfile on; tcp_nopush on; tcp_nodelay on;
    keepalive_requests 1000000; keepalive_timeout 60s;
    default_type application/json;
    charset utf-8; charset_types application/json;
    server {
        listen 127.0.0.1:$nport;
        root $dir/www;
        location / { gzip_static on; gzip_vary on; }
    }
}
EOF
    "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" 2>"$dir/stderr" &
    pids+=($!)
    for _ in $(seq 1 100); do
        curl -sf -o /dev/null "http://127.0.0.1:$nport/todos" && break
        sleep 0.05
    done
    curl -sf "http://127.0.0.1:$nport/todos" | cmp -s - "$work/todos.json" || {
        echo "run.sh: nginx did not start:" >&2; tail -n 5 "$dir/stderr" "$dir/error.log" >&2; exit 1; }
    nginx_urls+=("http://127.0.0.1:$nport")
}
if [ -n "$nginx_bin" ]; then start_nginx 1; start_nginx 2; fi

rps() { wrk -t2 -c"$connections" -d"$duration" "$@" | awk '/Requests\/sec/ { print $2 }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "-" }'; }

printf 'wrk -t2 -c%s -d%s, best of %s; livestate %s(LOG_LEVEL=%s, log to a file); plain C evhttp (1 thread)' \
    "$connections" "$duration" "$rounds" "${server_threads:+--threads $server_threads }" "${LOG_LEVEL:-info}"
[ -n "$nginx_bin" ] && printf '; nginx %s, 1 and 2 workers (access log on)' "$("$nginx_bin" -v 2>&1 | sed 's/.*\///')"
printf '\nload average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-13s %8s %11s %11s %11s %11s %8s %8s %8s\n' \
    path bytes livestate plain-C nginx-1w nginx-2w vs-C vs-ng1 vs-ng2
for row in todos albums albums-gzip; do
    path=/${row%-gzip}
    file="$work/${row%-gzip}.json"
    headers=()
    if [ "$row" = albums-gzip ]; then headers=(-H 'Accept-Encoding: gzip'); file="$work/albums.json.gz"; fi
    bytes=$(wc -c <"$file")
    ours=0 theirs=0 ng1=0 ng2=0
    for _ in $(seq 1 "$rounds"); do
        ours=$(best "$ours" "$(rps "${headers[@]}" "$live$path")")
        [ "$row" = albums-gzip ] || theirs=$(best "$theirs" "$(rps "$plain$path")")
        if [ -n "$nginx_bin" ]; then
            ng1=$(best "$ng1" "$(rps "${headers[@]}" "${nginx_urls[0]}$path")")
            ng2=$(best "$ng2" "$(rps "${headers[@]}" "${nginx_urls[1]}$path")")
        fi
    done
    label=$path
    [ "$row" = albums-gzip ] && label="$path gzip"
    printf '%-13s %8s %11s %11s %11s %11s %8s %8s %8s\n' "$label" "$bytes" "$ours" \
        "$theirs" "$ng1" "$ng2" "$(ratio "$ours" "$theirs")" "$(ratio "$ours" "$ng1")" "$(ratio "$ours" "$ng2")"
done
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
