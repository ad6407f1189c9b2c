#!/usr/bin/env bash
# Fan-out benchmark of GET /events: N clients hold /events?topics=todos open on loopback, a publisher
# renames one todo M times at a fixed rate (each title carries its send time), and every delivery's
# latency is measured. Prints p50/p99 latency, events lost, deliveries per second and server memory per
# connection (RSS delta / N), for LiveState (release build) and, in the same run, a plain C evhttp
# server forwarding the same bytes (reference.c).
#
# usage: Benchmarks/fanout/run.sh [CLIENTS ...]        default: 1000 10000
#   FANOUT_EVENTS=100 FANOUT_RATE=20   changes and changes per second
#   FANOUT_THREADS=2                   LiveState's --threads (the reference has one loop)
#   SWIFT_SCRATCH=.build               SwiftPM scratch path of the release build
#   LIVESTATE_BIN=path                 skip the build and use this binary
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS=${FANOUT_EVENTS:-100}
RATE=${FANOUT_RATE:-20}
THREADS=${FANOUT_THREADS:-2}
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

# measure NAME N: one client run against the running server; prints its result line.
measure() {
    local name=$1 n=$2
    local line
    line=$("$work/client" 127.0.0.1 "$port" "$n" "$EVENTS" "$RATE" "$server_pid" 2>"$work/client.err" || true)
    if [ -z "$line" ]; then
        echo "run.sh: the client failed against $name" >&2
        cat "$work/client.err" >&2
        line="failed"
    fi
    echo "$name $line"
}

echo "fan-out: $EVENTS changes at $RATE/s, clients: ${CLIENTS[*]}; LiveState --threads $THREADS; $(nproc) cores"
results=()
for n in "${CLIENTS[@]}"; do
    start reference "$work/reference" 0
    results+=("$(measure plain-c-evhttp "$n")")
    stop
    start livestate env LOG_LEVEL=warning "$LIVESTATE_BIN" --port 0 --data :memory: --public public \
        --heartbeat 60 --threads "$THREADS"
    results+=("$(measure livestate "$n")")
    stop
done

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
