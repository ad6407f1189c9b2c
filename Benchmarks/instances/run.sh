#!/usr/bin/env bash
# Cross-instance benchmark: 3 LiveState instances on one throw-away PostgreSQL (scripts/pg-test-cluster),
# CLIENTS SSE clients on each, writes at RATE/s round robin over the three (each title stamped with its
# send time): delivery latency p50/p99 (local = clients of the instance that took the write, cross =
# clients of the others), then a saturating write phase (CONCURRENCY writes in flight per instance for
# WRITE_SECONDS): acknowledged writes per second; and zero loss (every acknowledged write seen by every
# client). In the same run, the same figures for one instance on a SQLite file, and for COUNT plain C
# evhttp servers of Benchmarks/fanout (reference.c, in memory, no database; every write sent to all of
# them by the load generator) with the same clients: what this machine can deliver at all.
#
# usage: Benchmarks/instances/run.sh
#   INSTANCES_CLIENTS="100 1000" INSTANCES_EVENTS=1000 INSTANCES_RATE=100   clients per instance (each
#                                     count measured in turn), writes, rate
#   INSTANCES_PHASE_LIMIT=20          seconds after the last write after which the latency phase ends
#                                     (what has not arrived counts at its latency then: "behind")
#   INSTANCES_WRITE_SECONDS=10 INSTANCES_CONCURRENCY=16 INSTANCES_WATCHERS=10   saturating phase (after
#                                     the last client count only)
#   INSTANCES_COUNT=3                 PostgreSQL instances
#   INSTANCES_THREADS=1               each instance's --threads
#   INSTANCES_SETUPS="postgres sqlite reference"   which setups run
#   PG_TEST_FSYNC=on                  the cluster's fsync (SQLite writes with synchronous=FULL)
#   SWIFT_SCRATCH=.build-release      SwiftPM scratch path of the release build
#   LIVESTATE_BIN=path                skip the build and use this binary
#   LIVESTATE_BASELINE_BIN=path       also run the PostgreSQL setup with this binary (before/after)
#   INSTANCES_LOG_LEVEL=warning       the instances' LOG_LEVEL; with info (a line per request, which costs
#                                     a little), each PostgreSQL instance's shutdown line (how its batches
#                                     went in: at once by attempt, under the writers' lock, catch-ups) is shown
# Besides the latencies the table shows the achieved write rate (sent/s), a write's send-to-2xx p50, and
# the CPU time and the time waiting for a core of the load generator, the servers and PostgreSQL during
# the latency phase (docs/benchmarks.md).
# Stops by itself in about 3 minutes at the defaults (each client run is cut at 150 s; plus the release
# build the first time).
set -euo pipefail
cd "$(dirname "$0")/../.."
CLIENT_COUNTS=(${INSTANCES_CLIENTS:-100 1000})
EVENTS=${INSTANCES_EVENTS:-1000}
RATE=${INSTANCES_RATE:-100}
WRITE_SECONDS=${INSTANCES_WRITE_SECONDS:-10}
CONCURRENCY=${INSTANCES_CONCURRENCY:-16}
WATCHERS=${INSTANCES_WATCHERS:-10}
COUNT=${INSTANCES_COUNT:-3}
THREADS=${INSTANCES_THREADS:-1}
SETUPS=" ${INSTANCES_SETUPS:-postgres sqlite reference} "
SCRATCH=${SWIFT_SCRATCH:-.build-release}
export INSTANCES_PHASE_LIMIT=${INSTANCES_PHASE_LIMIT:-20}
export PG_TEST_FSYNC=${PG_TEST_FSYNC:-on}

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
most=0
for n in "${CLIENT_COUNTS[@]}"; do [ "$n" -gt "$most" ] && most=$n; done
need=$(( most * COUNT + COUNT * CONCURRENCY + 256 ))
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
cc -O2 -o "$work/reference" Benchmarks/fanout/reference.c $(pkg-config --cflags --libs libevent)
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate --scratch-path "$SCRATCH" 2>&1 | tail -n 1
    LIVESTATE_BIN="$SCRATCH/release/livestate"
fi

# start NAME DATA [BIN]: one instance on a free port; appends its port to `ports`.
ports=()
pg_pid=0   # the running cluster's postmaster (its children are the backends), for the CPU columns
start() {
    local name=$1 data=$2 bin=${3:-$LIVESTATE_BIN} port=""
    if [ "$data" = reference ]; then
        "$work/reference" 0 > "$work/$name.out" 2> "$work/$name.err" &
    else
        LOG_LEVEL=${INSTANCES_LOG_LEVEL:-warning} "$bin" --port 0 --data "$data" --public public --heartbeat 60 \
            --max-streams-per-peer 0 --threads "$THREADS" > "$work/$name.out" 2> "$work/$name.err" &
    fi
    pids+=($!)
    for _ in $(seq 1 600); do   # an instance on PostgreSQL waits for its schema first
        # NB: the instance (started in the background) may not have made its output file yet.
        port=$(sed -n 's/^listening on http:\/\/.*:\([0-9]*\)$/\1/p' "$work/$name.out" 2>/dev/null | head -1 || true)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { echo "run.sh: $name did not start" >&2; cat "$work/$name.err" >&2; exit 1; }
    ports+=("$port")
}

# measure NAME CLIENTS WRITE_SECONDS: the client against the instances in `ports`; prints "NAME key=value ...".
measure() {
    local line
    line=$(INSTANCES_CPU_PIDS="${pids[*]}" INSTANCES_PG_PID="$pg_pid" timeout 150 "$work/client" 127.0.0.1 "$2" "$EVENTS" "$RATE" "$3" "$CONCURRENCY" "$WATCHERS" \
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

# each NAME [WRITE_SECONDS]: measures the running setup at every client count (the saturating phase
# after the last).
results=()
each() {
    local i last=$(( ${#CLIENT_COUNTS[@]} - 1 ))
    for i in "${!CLIENT_COUNTS[@]}"; do
        results+=("$(measure "$1" "${CLIENT_COUNTS[$i]}" "$([ "$i" = "$last" ] && echo "${2:-$WRITE_SECONDS}" || echo 0)")")
    done
}

echo "instances: ${CLIENT_COUNTS[*]} SSE clients per instance, $EVENTS writes at $RATE/s, then ${WRITE_SECONDS}s of" \
    "$CONCURRENCY writes in flight per instance ($WATCHERS watchers each); --threads $THREADS;" \
    "PostgreSQL fsync=$PG_TEST_FSYNC; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# postgres NAME BIN: COUNT instances of BIN on a fresh database.
postgres() {
    local out i
    out=$(scripts/pg-test-cluster start --owner $$)
    cluster=$(sed -n 1p <<< "$out")
    uri=$(sed -n 2p <<< "$out")
    pg_pid=$(head -n 1 "$cluster/data/postmaster.pid" 2>/dev/null || echo 0)
    ports=()
    for i in $(seq 1 "$COUNT"); do start "$1-$i" "$uri" "$2"; done
    each "$1"
    stop_all
    for i in $(seq 1 "$COUNT"); do
        sed -n "s/.* postgres: \(.* commits .*\)/  $1-$i: \1/p" "$work/$1-$i.err" >&2
    done
    scripts/pg-test-cluster stop "$cluster"
    cluster=""
    pg_pid=0
}
if [[ "$SETUPS" == *" postgres "* ]]; then
    [ -z "${LIVESTATE_BASELINE_BIN:-}" ] || postgres "base-pg-x$COUNT" "$LIVESTATE_BASELINE_BIN"
    postgres "postgres-x$COUNT" "$LIVESTATE_BIN"
fi
if [[ "$SETUPS" == *" sqlite "* ]]; then
    ports=()
    start sqlite "$work/livestate.sqlite"
    each sqlite-x1
    stop_all
fi
if [[ "$SETUPS" == *" reference "* ]]; then
    # COUNT C processes that share nothing, with the same clients on each; the load generator sends every
    # write to all of them at once (INSTANCES_BROADCAST), so this is the fan-out with replication for
    # free: what the machine can deliver at all. No saturating phase: in memory, its rate says nothing.
    ports=()
    for i in $(seq 1 "$COUNT"); do start "reference-$i" reference; done
    INSTANCES_BROADCAST=1 each "reference-c" 0
    stop_all
fi

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$2"; }
format='%-13s %8s %9s %7s %9s %9s %9s %9s %9s %9s %9s %12s %8s %8s %11s %11s %11s\n'
printf "\n$format" setup clients acked sent/s p50_ms p99_ms local_p50 cross_p50 cross_p99 ack_p50 lost deliveries/s acked/s \
    sat_lost cli_cpu/wait srv_cpu/wait pg_cpu/wait
percent() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else printf "-" }'; }
usage() { echo "$(percent "$(field "cpu_$1_s" "$2")" "$(field cpu_wall_s "$2")")/$(percent "$(field "wait_$1_s" "$2")" "$(field cpu_wall_s "$2")")"; }
for line in "${results[@]}"; do
    name=${line%% *}
    if [[ "$line" == *failed ]]; then printf '%-13s failed\n' "$name"; continue; fi
    lost=$(field lost "$line")
    p50=$(field p50_ms "$line")
    p99=$(field p99_ms "$line")
    if [ "$(field saturated "$line")" = 1 ]; then   # lower bounds: deliveries were still queued
        lost="behind:$(field behind "$line")"
        p50=">=$p50"
        p99=">=$p99"
    fi
    sat=$(field sat_writes "$line")
    # shellcheck disable=SC2059
    printf "$format" "$name" "$(field clients "$line")" "$(field acked "$line")/$(field writes "$line")" \
        "$(field sent_per_s "$line")" \
        "$p50" "$p99" "$(field local_p50_ms "$line")" \
        "$(field cross_p50_ms "$line")" "$(field cross_p99_ms "$line")" "$(field ack_p50_ms "$line")" "$lost" \
        "$(field deliveries_per_s "$line")" "$([ "$sat" = 0 ] && echo - || field acked_per_s "$line")" \
        "$([ "$sat" = 0 ] && echo - || field sat_lost "$line")" \
        "$(usage client "$line")" "$(usage servers "$line")" "$(usage pg "$line")"
done
echo "(latency: every delivery of an acknowledged write, send to read; local/cross: clients of the"
echo " instance that took the write / of the others; lost: deliveries of acknowledged writes missing;"
echo " sent/s: the write rate achieved in the latency phase (a late timer sends the overdue writes at once);"
echo " ack_p50: a write's send to its 2xx (with the reference: to the last of the three answers);"
echo " behind:N and >=: the phase reached INSTANCES_PHASE_LIMIT=${INSTANCES_PHASE_LIMIT}s with N deliveries still"
echo " queued, counted at their latency then; deliveries/s: achieved, against clients x $RATE/s offered;"
echo " acked/s and sat_lost: the saturating phase; reference-c: $COUNT plain C servers, in memory, no database,"
echo " each write sent to all of them: local/cross mean nothing there; cli/srv/pg cpu/wait: CPU time, and time"
echo " runnable but waiting for a core (schedstat, all threads), of the load generator / all servers / all"
echo " PostgreSQL processes during the latency phase, in % of one core ($(nproc) cores in all))"
echo "targets (across instances): p50 <= 5 ms, p99 <= 50 ms, >= 500 acknowledged writes/s, lost 0"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\nraw:\n'
printf '%s\n' "${results[@]}"
