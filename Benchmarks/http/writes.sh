#!/usr/bin/env bash
# Todo writes and reads side by side: requests per second of GET /todos alone, POST /todos alone, and the
# two at once (each new version of the list is then read: its entity tag and body are made per version),
# at TODOS_SIZES todos in the list at the start (default 250 and 5000), on a fresh SQLite file each run.
# With LIVESTATE_OLD_BIN, every run is made on that binary too, the two taking turns (A B A B), and the
# table shows both and their ratio.
#
#   Benchmarks/http/writes.sh
#   LIVESTATE_BIN=.build/release/livestate LIVESTATE_OLD_BIN=/tmp/old/livestate Benchmarks/http/writes.sh
#   TODOS_SIZES="250 5000" ROUNDS=2 DURATION=5s
#
# Each run: wrk -t1 -c16 for one request alone; for both at once, wrk -t1 -c8 of each at the same time.
# Beside requests/s, each row gives wrk's median latency (p50, of the round with the best rate).
# A POST adds a todo (the list grows by the POSTs of the run; --max-todos is raised so none is refused).
# The best of ROUNDS runs is kept. The load average is printed: the machine may be shared.
# Needs: wrk, curl, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-2}
duration=${DURATION:-5s}
sizes=${TODOS_SIZES:-250 5000}

work=$(mktemp -d /tmp/http-writes.XXXXXX)
server_pid=""
stop() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    server_pid=""
}
trap 'stop; rm -rf "$work"' EXIT

source Benchmarks/common/builds.sh

cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"title":"Benchmark task: water the plants and answer the mail"}'
LUA

# start BUILD SIZE: a fresh server on a fresh SQLite file holding SIZE todos; sets port and server_pid.
start() {
    local dir
    dir=$(mktemp -d "$work/run.XXXXXX")
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    env LOG_LEVEL=warning "${binary[$1]}" --port "$port" --max-todos 1000000 --data "$dir/todos.sqlite" \
        >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 1 600); do
        curl -sf -o /dev/null "http://127.0.0.1:$port/todos" && break
        sleep 0.1
    done
    # One connection, each POST after the answer to the one before.
    python3 - "$port" "$2" <<'PY'
import http.client, json, sys
port, size = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
connection.request("GET", "/todos")
have = len(json.loads(connection.getresponse().read()))
for i in range(have, size):
    body = json.dumps({"title": f"Benchmark task {i:05d}: water the plants and answer the mail"})
    connection.request("POST", "/todos", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    assert response.status == 201, response.status
PY
}

rps() { awk '/requests in/ { requests = $1 } /Non-2xx/ { failed = $NF } /Requests\/sec/ { rate = $2 }
    END { if (failed > 0) print 0; else printf "%.0f\n", rate }'; }
count() { awk '/requests in/ { print $1 }'; }
# wrk's median latency (--latency) in milliseconds.
p50() { awk '$1 == "50%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
    printf "%.2f\n", v * (u == "us" ? 0.001 : u == "s" ? 1000 : u == "m" ? 60000 : 1) }'; }
# The server's CPU time so far (user and system), in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }
# us TICKS_BEFORE REQUESTS: the server's CPU per request since TICKS_BEFORE, in microseconds.
us() { awk -v a="$1" -v b="$(ticks)" -v n="$2" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { if (n > 0) printf "%.0f", (b - a) * 1000000 / hz / n; else print 0 }'; }

# measure BUILD SIZE CASE: prints the requests/s of CASE (get, post) or "post get" for both, then the
# server's CPU per request in microseconds.
measure() {
    local url before
    start "$1" "$2"
    url="http://127.0.0.1:$port/todos"
    before=$(ticks)
    case $3 in
        get | post)
            local script=()
            [ "$3" = post ] && script=(-s "$work/post.lua")
            wrk -t1 -c16 -d"$duration" --latency "${script[@]}" "$url" >"$work/wrk.out"
            printf '%s %s %s\n' "$(rps <"$work/wrk.out")" "$(us "$before" "$(count <"$work/wrk.out")")" \
                "$(p50 <"$work/wrk.out")"
            ;;
        both)
            wrk -t1 -c8 -d"$duration" --latency -s "$work/post.lua" "$url" >"$work/post.out" &
            local writer=$!
            wrk -t1 -c8 -d"$duration" --latency "$url" >"$work/get.out"
            wait "$writer"
            printf '%s %s %s %s %s\n' "$(rps <"$work/post.out")" "$(rps <"$work/get.out")" \
                "$(us "$before" $(($(count <"$work/post.out") + $(count <"$work/get.out"))))" \
                "$(p50 <"$work/post.out")" "$(p50 <"$work/get.out")"
            ;;
    esac
    stop
}

printf 'todo writes and reads: %s(%s rounds of %s each); %s cores\n' \
    "$(for b in "${builds[@]}"; do printf '%s=%s ' "$b" "${binary[$b]}"; done)" "$rounds" "$duration" "$(nproc)"
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
declare -A best cpu median
# keep ROW RATE P50: the best rate of the rounds, with that round's median latency.
keep() { [ -n "${best[$1]:-}" ] && [ "${best[$1]}" -ge "$2" ] || { best[$1]=$2; median[$1]=$3; }; }
# The lowest CPU per request of the rounds (0: a run with refused requests).
low() { [ "$2" -gt 0 ] && { [ -z "${cpu[$1]:-}" ] || [ "${cpu[$1]}" -gt "$2" ]; } && cpu[$1]=$2 || true; }
for size in $sizes; do
    for _ in $(seq 1 "$rounds"); do
        for build in "${builds[@]}"; do
            for one in get post; do
                read -r r c m <<<"$(measure "$build" "$size" "$one")"
                keep "$build $size $one" "$r" "$m"
                low "$build $size $one" "$c"
            done
            read -r p g c pm gm <<<"$(measure "$build" "$size" both)"
            keep "$build $size both-post" "$p" "$pm"
            keep "$build $size both-get" "$g" "$gm"
            low "$build $size both-post" "$c"
            low "$build $size both-get" "$c"
        done
    done
done
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '\nrequests/s (best of %s) with its p50 in ms, and the server CPU per request in us (lowest of %s;\n' \
    "$rounds" "$rounds"
printf 'both at once: per request of either kind)\n%-7s %-22s' todos row
for build in "${builds[@]}"; do printf ' %10s %8s %7s' "$build" "p50-ms" "cpu-us"; done
[ "${#builds[@]}" = 2 ] && printf ' %8s' new/old
printf '\n'
for size in $sizes; do
    for row in "get:GET alone" "post:POST alone" "both-post:POST while GETs" "both-get:GET while POSTs"; do
        printf '%-7s %-22s' "$size" "${row#*:}"
        for build in "${builds[@]}"; do
            printf ' %10s %8s %7s' "${best[$build $size ${row%%:*}]}" "${median[$build $size ${row%%:*}]:--}" \
                "${cpu[$build $size ${row%%:*}]:--}"
        done
        if [ "${#builds[@]}" = 2 ]; then
            awk -v a="${best[new $size ${row%%:*}]}" -v b="${best[old $size ${row%%:*}]}" \
                'BEGIN { if (b > 0) printf " %7.2fx", a / b; else printf " %8s", "-" }'
        fi
        printf '\n'
    done
done
