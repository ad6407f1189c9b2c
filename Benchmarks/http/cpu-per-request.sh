#!/usr/bin/env bash
# CPU per request of a running server, user and kernel apart: runs wrk on URL and divides the growth of
# the server processes' utime and stime (/proc/PID/stat) by wrk's request count.
#
#   Benchmarks/http/cpu-per-request.sh URL PID [PID ...]
#   Benchmarks/http/cpu-per-request.sh http://127.0.0.1:8080/albums "$(pgrep -x livestate)"
#   WRK="-t2 -c64 -d5s" Benchmarks/http/cpu-per-request.sh http://127.0.0.1:8081/albums $(pgrep -f 'nginx: worker')
#
# Prints `req/s N  user U sys S us/req`. Give every process that serves (nginx: its workers). The
# figures are the server's alone: on loopback the client's receive copy is charged to the client.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
url=$1; shift
ticks=$(getconf CLK_TCK)
cpu() {
    local user=0 sys=0 pid
    for pid in "$@"; do
        read -r u s < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
        user=$((user + u)); sys=$((sys + s))
    done
    echo "$user $sys"
}
read -r user0 sys0 < <(cpu "$@")
# shellcheck disable=SC2086 # WRK is a list of wrk's options
out=$(wrk ${WRK:--t2 -c64 -d5s} "$url")
read -r user1 sys1 < <(cpu "$@")
requests=$(awk '/requests in/ { print $1 }' <<<"$out")
rate=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
awk -v u=$((user1 - user0)) -v s=$((sys1 - sys0)) -v n="$requests" -v t="$ticks" -v r="$rate" \
    'BEGIN { printf "req/s %s  user %.1f sys %.1f us/req\n", r, u / t * 1e6 / n, s / t * 1e6 / n }'
