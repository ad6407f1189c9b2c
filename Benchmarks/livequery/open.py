"""How long a sorted live window takes to open on a large data file, per build: a fresh server on a copy of
FILE for each build given, then four live queries of one sort (`GET /posts?_sort=title&...` with
`Accept: text/event-stream`), each timed until its first `result` (asked again after a `503 busy` while
the sort order is built), with the server's CPU time for it (/proc/PID/stat).

usage: python3 Benchmarks/livequery/open.py WORKDIR FILE NAME=BINARY [NAME=BINARY ...]
  FILE: a data file with `posts` (Benchmarks/documents/generate.py FILE 50000)
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time

# The last has no window's end (`_start` alone): it holds every item from its start on (49,990 of 50,000).
PATHS = ["/posts?_sort=title&_limit=10", "/posts?_sort=title&_start=10&_end=20", "/posts?_sort=title&_page=3&_limit=10",
         "/posts?_sort=title&_start=49990"]


def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def open_live(port, path):
    """Seconds until the first result, the statuses answered, the result's total and the open connection."""
    start = time.monotonic()
    statuses = []
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", path, headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        statuses.append(response.status)
        if response.status == 200:
            data = b""
            while b"event: result" not in data or b"\n\n" not in data.split(b"event: result", 1)[1]:
                data += response.read1(65536)
            body = json.loads(data.split(b"data: ", 1)[1].split(b"\n", 1)[0])
            return time.monotonic() - start, statuses, body["total"], conn
        response.read()
        conn.close()
        if response.status != 503:
            return time.monotonic() - start, statuses, None, None
        time.sleep(0.2)


def main(work, source, builds):
    for build in builds:
        name, binary = build.split("=", 1)
        for leftover in ("db.json.livestate", "db.json.livestate-wal", "db.json.livestate-shm"):
            if os.path.exists(f"{work}/{leftover}"):
                os.remove(f"{work}/{leftover}")
        shutil.copy(source, f"{work}/db.json")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = subprocess.Popen([binary, "--port", str(port), f"{work}/db.json"],
                                  env={**os.environ, "LOG_LEVEL": "warning"},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        kept = []
        try:
            for _ in range(600):
                try:
                    probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                    probe.request("GET", "/posts/1")
                    probe.getresponse().read()
                    break
                except OSError:
                    time.sleep(0.1)
            for path in PATHS:
                before = cpu_ms(server.pid)
                seconds, statuses, total, conn = open_live(port, path)
                print(f"{name} {path}: {seconds * 1000:.1f} ms to the first result, statuses {statuses}, "
                      f"total {total}, server CPU {cpu_ms(server.pid) - before:.0f} ms", flush=True)
                if conn:
                    kept.append(conn)
        finally:
            for conn in kept:
                conn.close()
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
