#!/usr/bin/env bash
# HTTP benchmark: LiveState next to a plain, tuned C evhttp server (plain.c) serving the same bytes.
#
#   Benchmarks/http/run.sh                 # wrk -t2 -c64 -d10s per run (CI=true: -d3s)
#   DURATION=5s ROUNDS=2 THREADS=2 Benchmarks/http/run.sh
#
# Builds the release livestate (or uses $LIVESTATE_BIN), seeds 250 todos (~23 KB of JSON) through
# POST /todos into a temporary SQLite file, fetches GET /todos and GET /albums (5000 items, ~1 MB)
# from LiveState, starts plain.c on those bytes, then runs wrk on each path against each server,
# one run at a time, alternating the two servers ROUNDS times (default 1) and keeping each one's best
# run (on a shared machine a neighbour's burst then hurts both sides alike). Prints requests/s and the
# ratio LiveState / plain C (target: >= 0.9).
# Needs: wrk, curl, cc, pkg-config, libevent-dev (scripts/apt-packages.txt).
set -euo pipefail
cd "$(dirname "$0")/../.."

duration=${DURATION:-10s}
[ "${CI:-}" = "true" ] && duration=${DURATION:-3s}
connections=${CONNECTIONS:-64}
rounds=${ROUNDS:-1}
server_threads=${THREADS:-1}
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

LOG_LEVEL=warning start "$work/live.out" "$LIVESTATE_BIN" --port 0 --threads "$server_threads" \
    --data "$work/bench.sqlite"
live="http://127.0.0.1:$port"

# ~23 KB of todos: the first one plus 249 titled like a real list.
for i in $(seq 1 249); do
    printf '{"title":"Benchmark task %03d: water the plants and answer the mail"}' "$i" |
        curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @- "$live/todos"
done
curl -sf "$live/todos" -o "$work/todos.json"
curl -sf "$live/albums" -o "$work/albums.json"

start "$work/plain.out" "$work/plain" 0 /todos "$work/todos.json" /albums "$work/albums.json"
plain="http://127.0.0.1:$port"

# Same bytes from both servers, or the comparison means nothing.
for path in todos albums; do
    curl -sf "$plain/$path" | cmp -s - "$work/$path.json" || { echo "run.sh: /$path differs" >&2; exit 1; }
done

rps() { wrk -t2 -c"$connections" -d"$duration" "$1" | awk '/Requests\/sec/ { print $2 }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }

printf 'wrk -t2 -c%s -d%s, best of %s, livestate --threads %s (LOG_LEVEL=warning), plain C evhttp (1 thread)\n' \
    "$connections" "$duration" "$rounds" "$server_threads"
printf '%-8s %10s %14s %14s %7s\n' path bytes livestate plain-C ratio
for path in todos albums; do
    bytes=$(wc -c <"$work/$path.json")
    ours=0
    theirs=0
    for _ in $(seq 1 "$rounds"); do
        ours=$(best "$ours" "$(rps "$live/$path")")
        theirs=$(best "$theirs" "$(rps "$plain/$path")")
    done
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-8s %10s %14s %14s %7s\n' "/$path" "$bytes" "$ours" "$theirs" "${ratio}x"
done
