#!/usr/bin/env bash
# Live-query benchmark: N live queries (GET /todos?id=K with Accept: text/event-stream) over F distinct
# filters on one instance, a publisher renaming the todos round robin at a fixed rate, beside the same
# run's plain /events topic fan-out (GET /events?topics=todos&diff=1) at the largest client count.
# Prints, per run, delivery p50/p99, events lost, the server's CPU per write (user + system time over
# the publishing phase / writes) and its memory per connection (RSS delta / N), for a release build of
# LiveState (LOG_LEVEL=warning, --max-live-queries raised to the client count). The load average is
# printed with the table: the machine may be shared.
#
# usage: Benchmarks/livequery/run.sh [CLIENTS ...]      default: 100 1000 10000 (live), then 10000 (topic)
#   LIVEQUERY_FILTERS=1000            distinct filters = todos, the same collection in every run: with fewer
#                                     clients than filters, the writes to the other todos match no query
#   LIVEQUERY_EVENTS=300 LIVEQUERY_RATE=100   writes and writes per second
#   LIVEQUERY_TOPIC=0                 leave the plain topic run out
#   FANOUT_LIMIT=60                   seconds one client run may last (what has not arrived is lost)
#   SWIFT_SCRATCH=.build              SwiftPM scratch path of the release build
#   LIVESTATE_BIN=path                skip the build and use this binary
#
#   PARTS=writes Benchmarks/livequery/run.sh   the write benchmark instead (acknowledged POSTs/s on a data
#                                     file with 0, 10 and 100 live queries open): Benchmarks/livequery/writes.sh
#   PARTS=regex Benchmarks/livequery/run.sh    what one PATCH costs with 100 regex live queries open on a data
#                                     file (server CPU, the PATCH's latency, an unrelated GET's wait):
#                                     Benchmarks/livequery/regex.py; REGEX_SIZE=50000 ROUNDS=2 REGEX_WRITES=5,
#                                     LIVESTATE_BIN (needed) and LIVESTATE_OLD_BIN, taking turns
#   PARTS="fanout writes"             both, the fan-out first (default: fanout)
#   Benchmarks/livequery/open.py      (run alone) how long a sorted live window takes to open on a large file
set -euo pipefail
cd "$(dirname "$0")/../.."
parts=${PARTS:-fanout}
if [ "$parts" = regex ]; then
    work=$(mktemp -d /tmp/livequery-regex.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    cc -O2 -o "$work/hold" Benchmarks/livequery/hold.c $(pkg-config --cflags --libs libevent)
    builds=("new=${LIVESTATE_BIN:?PARTS=regex needs LIVESTATE_BIN}")
    [ -z "${LIVESTATE_OLD_BIN:-}" ] || builds=("old=$LIVESTATE_OLD_BIN" "${builds[@]}")
    printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    python3 Benchmarks/livequery/regex.py "$work" "${REGEX_SIZE:-50000}" "${ROUNDS:-2}" "${REGEX_WRITES:-5}" "${builds[@]}"
    printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    exit
fi
if [[ " $parts " == *" writes "* ]]; then
    if [[ " $parts " == *" fanout "* ]]; then PARTS=fanout Benchmarks/livequery/run.sh "$@"; fi
    exec Benchmarks/livequery/writes.sh
fi
FILTERS=${LIVEQUERY_FILTERS:-1000}
EVENTS=${LIVEQUERY_EVENTS:-300}
RATE=${LIVEQUERY_RATE:-100}
export FANOUT_LIMIT=${FANOUT_LIMIT:-60}
SCRATCH=${SWIFT_SCRATCH:-.build}
if [ $# -gt 0 ]; then CLIENTS=("$@"); else CLIENTS=(100 1000 10000); fi
largest=$(printf '%s\n' "${CLIENTS[@]}" | sort -n | tail -1)

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" -lt $((largest + 64)) ]; then
    echo "run.sh: ulimit -n is $(ulimit -n), below the $((largest + 64)) descriptors needed" >&2
    exit 1
fi

work=$(mktemp -d /tmp/livequery.XXXXXX)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cc -O2 -o "$work/client" Benchmarks/livequery/client.c $(pkg-config --cflags --libs libevent)
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate --scratch-path "$SCRATCH" 2>&1 | tail -n 1
    LIVESTATE_BIN="$SCRATCH/release/livestate"
fi

start() {
    env LOG_LEVEL=warning "$LIVESTATE_BIN" --port 0 --data :memory: --public public --heartbeat 60 \
        --max-streams-per-peer 0 --max-live-queries $((largest + 16)) > "$work/server.out" 2> "$work/server.err" &
    server_pid=$!
    for _ in $(seq 1 200); do
        if grep -q '^listening on ' "$work/server.out" 2>/dev/null; then break; fi
        sleep 0.05
    done
    port=$(sed -n 's/^listening on http:\/\/.*:\([0-9]*\)$/\1/p' "$work/server.out" | head -1)
    [ -n "$port" ] || { echo "run.sh: livestate did not start" >&2; cat "$work/server.err" >&2; exit 1; }
}

stop() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# measure MODE N F: one client run against a fresh server; prints its result line.
measure() {
    local mode=$1 n=$2 f=$3 line
    start
    line=$("$work/client" "$mode" 127.0.0.1 "$port" "$n" "$f" "$EVENTS" "$RATE" "$server_pid" 2>"$work/client.err" || true)
    stop
    if [ -z "$line" ]; then
        echo "run.sh: the $mode client failed" >&2
        cat "$work/client.err" >&2
        line="failed"
    fi
    echo "$mode $line"
}

printf 'live queries: %s writes at %s/s over %s filters, clients: %s; %s cores; each run at most %s s\n' \
    "$EVENTS" "$RATE" "$FILTERS" "${CLIENTS[*]}" "$(nproc)" "$FANOUT_LIMIT"
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
results=()
for n in "${CLIENTS[@]}"; do
    results+=("$(measure live "$n" "$FILTERS")")
done
if [ "${LIVEQUERY_TOPIC:-1}" != "0" ]; then
    results+=("$(measure topic "$largest" "$FILTERS")")
fi
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }
printf '\n%-6s %7s %8s %9s %9s %7s %14s %9s\n' mode clients filters p50_ms p99_ms lost cpu_us/write kB/conn
for line in "${results[@]}"; do
    name=${line%% *}
    if [[ "$line" == *failed ]]; then printf '%-6s failed\n' "$name"; continue; fi
    printf '%-6s %7s %8s %9s %9s %7s %14s %9s\n' "$name" "$(field clients "$line")" "$(field filters "$line")" \
        "$(field p50_ms "$line")" "$(field p99_ms "$line")" "$(field lost "$line")" \
        "$(field cpu_per_write_us "$line")" "$(field rss_per_conn_kb "$line")"
done
printf '\nraw:\n'
printf '%s\n' "${results[@]}"
