#!/usr/bin/env bash
# Cross-instance benchmark: 3 LiveState instances on one throw-away PostgreSQL (scripts/pg-test-cluster),
# CLIENTS SSE clients on each, writes at RATE/s round robin over the three (each title stamped with its
# send time): delivery latency p50/p99 (local = clients of the instance that took the write, cross =
# clients of the others), then a saturating write phase (CONCURRENCY writes in flight per instance for
# WRITE_SECONDS): acknowledged writes per second; and zero loss (every acknowledged write seen by every
# client). The same figures for one instance on a SQLite file, in the same run (the reference).
#
# usage: Benchmarks/instances/run.sh
#   INSTANCES_CLIENTS=1000 INSTANCES_EVENTS=1000 INSTANCES_RATE=100   clients per instance, writes, rate
#   INSTANCES_WRITE_SECONDS=10 INSTANCES_CONCURRENCY=16 INSTANCES_WATCHERS=10   saturating phase
#   INSTANCES_COUNT=3                 PostgreSQL instances
#   INSTANCES_THREADS=1               each instance's --threads
#   PG_TEST_FSYNC=on                  the cluster's fsync (SQLite writes with synchronous=FULL)
#   SWIFT_SCRATCH=.build-release      SwiftPM scratch path of the release build
#   LIVESTATE_BIN=path                skip the build and use this binary
# Stops by itself in about 1–2 minutes at the defaults (plus the release build the first time).
set -euo pipefail
cd "$(dirname "$0")/../.."
CLIENTS=${INSTANCES_CLIENTS:-1000}
EVENTS=${INSTANCES_EVENTS:-1000}
RATE=${INSTANCES_RATE:-100}
WRITE_SECONDS=${INSTANCES_WRITE_SECONDS:-10}
CONCURRENCY=${INSTANCES_CONCURRENCY:-16}
WATCHERS=${INSTANCES_WATCHERS:-10}
COUNT=${INSTANCES_COUNT:-3}
THREADS=${INSTANCES_THREADS:-1}
SCRATCH=${SWIFT_SCRATCH:-.build-release}
export PG_TEST_FSYNC=${PG_TEST_FSYNC:-on}

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
need=$(( CLIENTS * COUNT + COUNT * CONCURRENCY + 256 ))
if [ "$(ulimit -n)" -lt "$need" ]; then
    echo "run.sh: ulimit -n is $(ulimit -n), below the $need descriptors needed" >&2
    exit 1
fi
scripts/pg-test-cluster available || { echo "run.sh: no PostgreSQL binaries (Debian package postgresql)" >&2; exit 1; }

work=$(mktemp -d /tmp/instances-bench.XXXXXX)
chmod 755 "$work"
pids=()
cluster=""
stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}
cleanup() {
    stop_all
    [ -z "$cluster" ] || scripts/pg-test-cluster stop "$cluster"
    rm -rf "$work"
}
trap cleanup EXIT

cc -O2 -o "$work/client" Benchmarks/instances/client.c $(pkg-config --cflags --libs libevent)
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate --scratch-path "$SCRATCH" 2>&1 | tail -n 1
    LIVESTATE_BIN="$SCRATCH/release/livestate"
fi

# start NAME DATA: one instance on a free port; appends its port to `ports`.
ports=()
start() {
    local name=$1 data=$2 port=""
    LOG_LEVEL=warning "$LIVESTATE_BIN" --port 0 --data "$data" --public public --heartbeat 60 \
        --threads "$THREADS" > "$work/$name.out" 2> "$work/$name.err" &
    pids+=($!)
    for _ in $(seq 1 600); do   # an instance on PostgreSQL waits for its schema first
        port=$(sed -n 's/^listening on http:\/\/.*:\([0-9]*\)$/\1/p' "$work/$name.out" | head -1)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "run.sh: $name did not start" >&2; cat "$work/$name.err" >&2; exit 1; }
    ports+=("$port")
}

# measure NAME: the client against the instances in `ports`; prints "NAME key=value ...".
measure() {
    local line
    line=$("$work/client" 127.0.0.1 "$CLIENTS" "$EVENTS" "$RATE" "$WRITE_SECONDS" "$CONCURRENCY" "$WATCHERS" \
        "${ports[@]}" 2>"$work/client-$1.err" || true)
    if [ -z "$line" ]; then
        echo "run.sh: the client failed against $1:" >&2
        cat "$work/client-$1.err" >&2
        line="failed"
    else
        sed "s/^/  $1: /" "$work/client-$1.err" >&2   # progress, and the first refused writes
    fi
    echo "$1 $line"
}

echo "instances: $CLIENTS SSE clients per instance, $EVENTS writes at $RATE/s, then ${WRITE_SECONDS}s of" \
    "$CONCURRENCY writes in flight per instance ($WATCHERS watchers each); --threads $THREADS;" \
    "PostgreSQL fsync=$PG_TEST_FSYNC; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
results=()

out=$(scripts/pg-test-cluster start --owner $$)
cluster=$(sed -n 1p <<< "$out")
uri=$(sed -n 2p <<< "$out")
for i in $(seq 1 "$COUNT"); do start "pg$i" "$uri"; done
results+=("$(measure "postgres-x$COUNT")")
stop_all

ports=()
start sqlite "$work/livestate.sqlite"
results+=("$(measure sqlite-x1)")
stop_all

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }
format='%-12s %7s %9s %9s %9s %9s %9s %9s %5s %12s %8s %8s\n'
printf "\n$format" setup clients acked p50_ms p99_ms local_p50 cross_p50 cross_p99 lost deliveries/s acked/s sat_lost
for line in "${results[@]}"; do
    name=${line%% *}
    if [[ "$line" == *failed ]]; then printf '%-12s failed\n' "$name"; continue; fi
    # shellcheck disable=SC2059
    printf "$format" "$name" "$(field clients "$line")" "$(field acked "$line")/$(field writes "$line")" \
        "$(field p50_ms "$line")" "$(field p99_ms "$line")" "$(field local_p50_ms "$line")" \
        "$(field cross_p50_ms "$line")" "$(field cross_p99_ms "$line")" "$(field lost "$line")" \
        "$(field deliveries_per_s "$line")" "$(field acked_per_s "$line")" "$(field sat_lost "$line")"
done
echo "(latency: every delivery of an acknowledged write, send to read; local/cross: clients of the"
echo " instance that took the write / of the others; lost: deliveries of acknowledged writes missing;"
echo " deliveries/s: achieved, against clients x $RATE/s offered; acked/s and sat_lost: the saturating phase)"
echo "targets (across instances): p50 <= 5 ms, p99 <= 50 ms, >= 500 acknowledged writes/s, lost 0"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\nraw:\n'
printf '%s\n' "${results[@]}"
