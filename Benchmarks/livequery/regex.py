#!/usr/bin/env python3
"""What one small write costs with 100 regex live queries open (`PARTS=regex Benchmarks/livequery/run.sh`).

A data file of SIZE posts (Benchmarks/documents/generate.py), 100 live queries
`GET /posts?title_like=benchmark.{0,K}&_limit=10` (K = 1..100: distinct regexes no index serves, held by
hold.c), then WRITES times: one `PATCH /posts/ID` of a title that every query passes (the item enters all
100 results: the most one write can touch) and, sent just after
it on another connection, an unrelated `GET /posts/ID2`. Per write: the server's CPU time (user + system,
from /proc, until it is idle again: the fan-out after the answer counts), the PATCH's latency and the
GET's. Prints the medians per build; with several builds (NAME=BINARY ...) they take turns (A B A B),
each run on a fresh copy of the file.

usage: regex.py WORK_DIR SIZE ROUNDS WRITES NAME=BINARY [NAME=BINARY ...]
"""
import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

work, size, rounds, writes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
builds = [arg.split("=", 1) for arg in sys.argv[5:]]
ticks = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks


def timed(method, port, path, body, out, key):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.monotonic()
    headers = {"Content-Type": "application/json"} if body else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    out[key] = (response.status, (time.monotonic() - start) * 1000)
    connection.close()


def idle_cpu(pid):
    """The process's CPU seconds once it stopped using any for 0.3 s."""
    last = cpu_seconds(pid)
    while True:
        time.sleep(0.3)
        now = cpu_seconds(pid)
        if now == last:
            return now
        last = now


def run(binary, data):
    folder = os.path.join(work, f"regex-{time.monotonic_ns()}")
    os.makedirs(folder)
    shutil.copy(data, os.path.join(folder, "db.json"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, LOG_LEVEL="warning")
    server = subprocess.Popen([binary, "--port", str(port), os.path.join(folder, "db.json")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hold = None
    try:
        for _ in range(600):
            try:
                out = {}
                timed("GET", port, "/posts/1", None, out, "get")
                break
            except OSError:
                time.sleep(0.1)
        hold = subprocess.Popen([os.path.join(work, "hold"), "127.0.0.1", str(port), "100", "regex"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if hold.stdout.readline().strip() != "ready":
            # NB: refused (400 query_too_expensive: the first evaluation outlasted the budget); the table says so.
            return []
        rows = []
        for write in range(writes):
            before = idle_cpu(server.pid)
            out = {}
            body = '{"title":"benchmark renamed %d"}' % write
            patch = threading.Thread(target=timed, args=("PATCH", port, f"/posts/{11 + write}", body, out, "patch"))
            patch.start()
            time.sleep(0.005)
            timed("GET", port, f"/posts/{size // 2}", None, out, "get")
            patch.join()
            spent = idle_cpu(server.pid) - before
            assert out["patch"][0] == 200 and out["get"][0] == 200, out
            rows.append((spent * 1000, out["patch"][1], out["get"][1]))
        return rows
    finally:
        for process in (hold, server):
            if process is not None:
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)


data = os.path.join(work, f"posts{size}.json")
subprocess.run([sys.executable, "Benchmarks/documents/generate.py", data, str(size)], check=True)
results = {name: [] for name, _ in builds}
for _ in range(rounds):
    for name, binary in builds:
        results[name] += run(binary, data)
print(f"\none PATCH with 100 regex live queries open on {size} posts (median of {rounds} x {writes} writes)")
print(f"{'build':<8} {'cpu_ms':>9} {'patch_ms':>9} {'get_ms':>9}")
for name, rows in results.items():
    if not rows:
        print(f"{name:<8} the live queries did not open")
        continue
    medians = [statistics.median(column) for column in zip(*rows)]
    print(f"{name:<8} {medians[0]:9.1f} {medians[1]:9.1f} {medians[2]:9.1f}")
