#!/usr/bin/env bash
# Own-data benchmark: `livestate FILE.json` beside json-server 0.17.4 on the same generated files, in the
# same run, on loopback, the two sides taking turns (A B A B) with a fresh copy of the file each time:
#
#   get     GET /posts?userId=3&_sort=id on 10,000 posts (100 match), wrk -t2 -c64: requests/s
#   post    POST /posts on a 50,000-post file (~10 MB), wrk -t2 -c16 with a JSON body: acknowledged (2xx)
#           POSTs per second
#   load    a ~100 MB file: seconds from the start until GET /posts/1 answers, and the resident memory
#           then (VmRSS, and VmHWM, the peak) against the file's size
#   fanout  one item renamed EVENTS times while 1,000 clients hold /events?topics=posts&diff=1 open (a
#           10,000-post file): delivery latency p50/p99, beside the same run's seed todos (the topic
#           `todos`, without and with diff=1) on LiveState without a file, in memory, and (LIVESTATE_DATA=
#           journal) with diff=1 on a durable SQLite file, as the posts are. json-server has no /events.
#
#   JSON_SERVER_CMD="node /path/to/json-server/lib/cli/bin.js" Benchmarks/documents/run.sh
#   PARTS="get post" ROUNDS=1 DURATION=5s Benchmarks/documents/run.sh
#
#   JSON_SERVER_CMD   how to start json-server (given `--port P --host 127.0.0.1 FILE` after it, or, when it
#                     holds `{file}` and `{port}`, with those replaced: `node run.js {file} {port}`); unset:
#                     LiveState alone, the peer's columns "-"
#   LIVESTATE_BIN     the release binary (default: built with swift build -c release)
#   LIVESTATE_DATA    journal (default: the durable SQLite journal beside the file) or memory
#                     (--data :memory:, nothing kept)
#   PARTS             which parts, in order (default: get post load fanout)
#   ROUNDS=2 DURATION=10s LOAD_MB=100 FANOUT_CLIENTS=1000 FANOUT_EVENTS=100 FANOUT_RATE=20
#
# Both servers run on their defaults, each logging its requests to a file (LiveState's request log at
# info, json-server's morgan lines on stdout), except in the fan-out part, where LiveState runs at
# LOG_LEVEL=warning as in Benchmarks/fanout. The load average is printed: the machine may be shared.
# Needs: wrk, curl, python3, cc, pkg-config, libevent-dev.
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=${ROUNDS:-2}
duration=${DURATION:-10s}
[ "${CI:-}" = "true" ] && duration=${DURATION:-3s}
load_mb=${LOAD_MB:-100}
parts=${PARTS:-get post load fanout}
fanout_clients=${FANOUT_CLIENTS:-1000}
fanout_events=${FANOUT_EVENTS:-100}
fanout_rate=${FANOUT_RATE:-20}
data_mode=${LIVESTATE_DATA:-journal}
peer=${JSON_SERVER_CMD:-}
case "$data_mode" in
    journal) data_flags=() ;;
    memory) data_flags=(--data :memory:) ;;
    *) echo "run.sh: LIVESTATE_DATA is journal or memory, not '$data_mode'" >&2; exit 2 ;;
esac

for tool in wrk curl python3 cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (scripts/install-deps)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/documents-bench.XXXXXX)
server_pid=""
cleanup() {
    stop
    rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build -c release --product livestate >&2
    LIVESTATE_BIN="$(swift build -c release --show-bin-path)/livestate"
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Seconds since the epoch, as a decimal.
now() { date +%s.%N; }

# start SIDE FILE: starts LiveState or json-server on a free port, serving FILE (LiveState with no FILE:
# its seed resources); sets port and server_pid. Extra environment for LiveState: $live_env.
start() {
    local side=$1 file=${2:-}
    port=$(free_port)
    if [ "$side" = livestate ]; then
        local args=(--port "$port")
        [ -n "$file" ] && args+=("${data_flags[@]}" "$file")
        [ -z "$file" ] && args+=(--data "${seed_data:-:memory:}")
        # NB: without this script's LIVESTATE_DATA, which the server reads as its --data: `journal` made it
        # keep one journal named so in the current folder for every round, not one beside each copy.
        env -u LIVESTATE_DATA ${live_env:-} "$LIVESTATE_BIN" "${args[@]}" ${live_args:-} \
            >"$work/$side.out" 2>"$work/$side.err" </dev/null &
    elif [[ "$peer" == *"{file}"* ]]; then
        local command=${peer//\{file\}/$file}
        # NB: word splitting on purpose: the command carries its own arguments.
        ${command//\{port\}/$port} >"$work/$side.out" 2>"$work/$side.err" </dev/null &
    else
        # NB: word splitting on purpose: the command may carry its own arguments.
        $peer --port "$port" --host 127.0.0.1 "$file" >"$work/$side.out" 2>"$work/$side.err" </dev/null &
    fi
    server_pid=$!
}

stop() {
    if [ -n "$server_pid" ]; then
        # The peer's command may be a wrapper: its children go too.
        pkill -P "$server_pid" 2>/dev/null || true
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}

# wait_ready PATH LIMIT: waits (polling every 10 ms) until GET PATH answers 2xx on $port; prints the
# moment it did (seconds since the epoch), or fails after LIMIT seconds.
wait_ready() {
    python3 - "$port" "$1" "$2" <<'EOF'
import http.client, sys, time
port, path, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
deadline = time.time() + limit
while time.time() < deadline:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)
        connection.request("GET", path)
        if connection.getresponse().status // 100 == 2:
            print("%.3f" % time.time())
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.01)
sys.exit(1)
EOF
}

# ready SIDE PATH [LIMIT]: wait_ready, or the server's error output and exit.
ready() {
    local side=$1 path=$2 limit=${3:-120}
    wait_ready "$path" "$limit" || {
        echo "run.sh: $side did not answer $path within $limit s:" >&2
        tail -n 5 "$work/$side.err" "$work/$side.out" >&2
        exit 1
    }
}

# memory_kb PID FIELD: FIELD (VmRSS or VmHWM) of PID and its descendants, added up.
memory_kb() {
    local total=0 pid
    for pid in $1 $(pgrep -P "$1" 2>/dev/null || true); do
        total=$((total + $(awk -v f="$2:" '$1 == f { v = $2 } END { print v + 0 }' "/proc/$pid/status" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

# A fresh copy of a generated file in its own folder (the journal goes beside it).
fresh() {
    local name=$1 dir
    dir=$(mktemp -d "$work/run.XXXXXX")
    cp "$work/$name" "$dir/db.json"
    echo "$dir/db.json"
}

generate() {
    [ -f "$work/$1" ] || python3 Benchmarks/documents/generate.py "$work/$1" "$2"
}

# ok_per_second WRK_OUTPUT: the 2xx answers per second of a wrk run (its requests less the non-2xx ones,
# over its duration).
ok_per_second() {
    awk '/requests in/ { requests = $1; seconds = $4; sub(/s,?$/, "", seconds) }
        /Non-2xx/ { failed = $NF }
        END { if (seconds > 0) printf "%.0f", (requests - failed) / seconds; else print 0 }' <<<"$1"
}

best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 > b + 0 ? a : b) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b + 0 > 0) printf "%.1fx", a / b; else printf "-" }'; }
sides() { if [ -n "$peer" ]; then echo livestate json-server; else echo livestate; fi; }

printf 'own data: livestate %s (%s) beside %s; A B A B, %s rounds; %s cores\n' "$LIVESTATE_BIN" \
    "$( [ "$data_mode" = journal ] && echo 'durable journal beside the file' || echo '--data :memory:')" \
    "${peer:-no peer (JSON_SERVER_CMD unset)}" "$rounds" "$(nproc)"
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

# The best 2xx answers per second of each side in wrk_sides, and that run's non-2xx answers.
declare -A top refused

# wrk_sides FILE PATH CHECK WRK_ARGUMENTS...: A B A B, each side on a fresh copy of FILE: CHECK SIDE (a
# function, or "") once it answers, then wrk with WRK_ARGUMENTS on PATH; fills top and refused.
wrk_sides() {
    local file=$1 path=$2 check=$3 side output rps
    shift 3
    top=()
    refused=()
    for _ in $(seq 1 "$rounds"); do
        for side in $(sides); do
            start "$side" "$(fresh "$file")"
            ready "$side" /posts/1 >/dev/null
            [ -z "$check" ] || "$check" "$side"
            output=$(wrk "$@" "http://127.0.0.1:$port$path")
            rps=$(ok_per_second "$output")
            if [ -z "${top[$side]:-}" ] || [ "$(best "${top[$side]}" "$rps")" != "${top[$side]}" ]; then
                top[$side]=$rps
                refused[$side]=$(awk '/Non-2xx/ { n = $NF } END { print n + 0 }' <<<"$output")
            fi
            stop
        done
    done
}

# wrk_table LABEL: the table of wrk_sides' figures.
wrk_table() {
    printf '%-24s %12s %12s %8s\n' '' livestate json-server ratio
    printf '%-24s %12s %12s %8s\n' "$1" "${top[livestate]}" "${top[json-server]:--}" \
        "$(ratio "${top[livestate]}" "${top[json-server]:-}")"
    printf '%-24s %12s %12s\n' 'non-2xx answers' "${refused[livestate]}" "${refused[json-server]:--}"
}

query='/posts?userId=3&_sort=id'

# Both sides answer the query with the same 100 posts, in order, or the comparison means nothing.
check_query() {
    local result
    result=$(curl -sf "http://127.0.0.1:$port$query" | python3 -c \
        'import json, sys; items = json.load(sys.stdin); print(len(items), [i["id"] for i in items][:3])')
    [ "$result" = "100 [3, 103, 203]" ] || { echo "run.sh: $1 answered $query with $result" >&2; exit 1; }
}

part_get() {
    generate posts10k.json 10000
    wrk_sides posts10k.json "$query" check_query -t2 -c64 -d"$duration"
    printf '\n(a) GET %s, 10,000 posts, 100 match (wrk -t2 -c64 -d%s, best run)\n' "$query" "$duration"
    wrk_table '2xx answers/s'
}

part_post() {
    generate posts50k.json 50000
    cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"userId":3,"title":"a post written by the benchmark","body":"sixteen clients post at once into a file of fifty thousand posts"}'
EOF
    wrk_sides posts50k.json /posts "" -t2 -c16 -d"$duration" --timeout 60s -s "$work/post.lua"
    printf '\n(b) POST /posts into 50,000 posts (%s MB), 16 clients (wrk -t2 -c16 -d%s, best run)\n' \
        "$(awk -v b="$(wc -c <"$work/posts50k.json")" 'BEGIN { printf "%.1f", b / 1e6 }')" "$duration"
    wrk_table 'acknowledged POSTs/s'
}

part_load() {
    local posts=$((load_mb * 4630)) side started answered seconds rss hwm bytes
    generate "load.json" "$posts"
    bytes=$(wc -c <"$work/load.json")
    declare -A fastest=() rss_of=() hwm_of=() each=()
    for _ in $(seq 1 "$rounds"); do
        for side in $(sides); do
            local file
            file=$(fresh load.json)
            sync
            started=$(now)
            start "$side" "$file"
            answered=$(ready "$side" /posts/1 300)
            seconds=$(awk -v a="$answered" -v s="$started" 'BEGIN { printf "%.2f", a - s }')
            rss=$(memory_kb "$server_pid" VmRSS)
            hwm=$(memory_kb "$server_pid" VmHWM)
            each[$side]="${each[$side]:-}${each[$side]:+ }$seconds"
            if [ -z "${fastest[$side]:-}" ] || [ "$(best "${fastest[$side]}" "$seconds")" = "${fastest[$side]}" ]; then
                fastest[$side]=$seconds
                rss_of[$side]=$rss
                hwm_of[$side]=$hwm
            fi
            stop
        done
    done
    mb() { awk -v k="${1:-0}" 'BEGIN { if (k > 0) printf "%.0f", k / 1024; else printf "-" }'; }
    times() { awk -v k="${1:-0}" -v b="$bytes" 'BEGIN { if (k > 0) printf "%.2fx", k * 1024 / b; else printf "-" }'; }
    printf '\n(c) load of a %s MB file (%s posts): until GET /posts/1 answers; memory then (fastest run;\n' \
        "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')" "$posts"
    printf '    the ratio is json-server'"'"'s seconds over LiveState'"'"'s)\n'
    printf '%-24s %12s %12s %8s\n' '' livestate json-server ratio
    printf '%-24s %12s %12s %8s\n' 'load seconds' "${fastest[livestate]}" "${fastest[json-server]:--}" \
        "$(ratio "${fastest[json-server]:-}" "${fastest[livestate]}")"
    local peer_rounds=${each[json-server]:--}
    printf '%-24s %12s %12s\n' 'each round, seconds' "${each[livestate]// /,}" "${peer_rounds// /,}"
    printf '%-24s %12s %12s\n' 'VmRSS MB' "$(mb "${rss_of[livestate]:-}")" "$(mb "${rss_of[json-server]:-}")"
    printf '%-24s %12s %12s\n' 'VmHWM MB' "$(mb "${hwm_of[livestate]:-}")" "$(mb "${hwm_of[json-server]:-}")"
    printf '%-24s %12s %12s\n' 'VmHWM / file size' "$(times "${hwm_of[livestate]:-}")" "$(times "${hwm_of[json-server]:-}")"
}

part_fanout() {
    generate posts10k.json 10000
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    if [ "$(ulimit -n)" -lt $((fanout_clients + 64)) ]; then
        echo "run.sh: ulimit -n is $(ulimit -n), below the $((fanout_clients + 64)) descriptors needed" >&2
        exit 1
    fi
    cc -O2 -o "$work/client" Benchmarks/fanout/client.c $(pkg-config --cflags --libs libevent)
    local rows=() name line
    # measure NAME COLLECTION QUERY [FILE [SEED_DATA]]: one client run against a fresh LiveState (the seeds on
    # SEED_DATA, :memory: by default).
    measure() {
        seed_data=${5:-} live_env="LOG_LEVEL=warning" live_args="--heartbeat 60 --max-streams-per-peer 0" start livestate "${4:-}"
        ready livestate "/$2" >/dev/null
        line=$(FANOUT_COLLECTION=$2 FANOUT_QUERY=$3 FANOUT_LIMIT=60 "$work/client" 127.0.0.1 "$port" \
            "$fanout_clients" "$fanout_events" "$fanout_rate" "$server_pid" 2>"$work/client.err" || true)
        [ -n "$line" ] || { line=failed; tail -n 3 "$work/client.err" >&2; }
        rows+=("$1 $line")
        stop
    }
    local round
    for round in $(seq 1 "$rounds"); do
        measure seed-todos todos ""
        measure seed-todos-diff todos "&diff=1"
        # The todos on a durable SQLite file as well, the storage the file's posts have: each write waits for
        # the journal's flush before its event, as a post's does.
        [ "$data_mode" = journal ] && measure todos-diff-durable todos "&diff=1" "" "$work/todos-$round.sqlite"
        measure file-posts-diff posts "&diff=1" "$(fresh posts10k.json)"
    done
    field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
    printf '\n(d) a write to %s clients of /events (%s changes at %s/s; livestate only: json-server has no /events)\n' \
        "$fanout_clients" "$fanout_events" "$fanout_rate"
    printf '%-18s %9s %9s %7s %11s\n' run p50_ms p99_ms lost write_avg_ms
    # NB: seed-todos* hold their todos in memory (--data :memory:); todos-diff-durable on a durable file.
    for line in "${rows[@]}"; do
        name=${line%% *}
        if [[ "$line" == *failed ]]; then printf '%-18s failed\n' "$name"; continue; fi
        printf '%-18s %9s %9s %7s %11s\n' "$name" "$(field p50_ms "$line")" "$(field p99_ms "$line")" \
            "$(field lost "$line")" "$(field patch_avg_ms "$line")"
    done
}

for part in $parts; do
    case "$part" in
        get | post | load | fanout) "part_$part" ;;
        *) echo "run.sh: unknown part '$part' (get post load fanout)" >&2; exit 2 ;;
    esac
done
printf '\nload average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
