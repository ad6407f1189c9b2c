"""Storage that cannot lie: every 2xx is true of the SQLite file, or the server says it cannot be.

- a title with a NUL survives a restart byte for byte (or is refused; never cut);
- a data file deleted or replaced under the running server: no write is acknowledged, the log says why;
- a second server on the same file exits 1 with one line naming it; the first goes on serving;
- a damaged file (a page overwritten) is refused at start with one line, not served as empty rows;
- a data file's journal truncated, overwritten, or its WAL truncated under the running server: every write
  is answered 503 and the log says why; its -shm emptied: nothing changes (no crash);
- two servers started at once on a file without a journal: one serves and writes, the other exits;
- a commit's disk flush runs on the thread made for it (`livestate-write`), never on an event loop, as
  `strace -f` of a running server under writes shows (each thread's name from /proc/PID/task/TID/comm).
"""

import ctypes
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from livestate import Server, wait_until


@pytest.fixture()
def data(tmp_path):
    return str(tmp_path / "todos.sqlite")


def refused_start(binary, data):
    """Starts a server that must refuse: (exit code, stderr lines)."""
    out = subprocess.run([binary, "--port", "0", "--data", data], capture_output=True, text=True, timeout=20)
    return out.returncode, [line for line in out.stderr.splitlines() if line.strip()]


def titles(server):
    status, _, body = server.call("GET", "/todos")
    assert status == 200
    return [todo["title"] for todo in body]


def test_a_title_with_a_nul_survives_a_restart_or_is_refused(binary, data):
    title = "abc\u0000def"
    with Server(binary=binary, data=data) as server:
        status, _, body = server.call("POST", "/todos", {"title": title})
        if status != 201:
            # The contract allows a refusal (422 title_invalid); then nothing may be stored.
            assert 400 <= status < 500, (status, body)
            assert title not in titles(server) and "abc" not in titles(server)
            return
        assert body["title"] == title
    with Server(binary=binary, data=data) as server:
        assert title in titles(server)
        # A PATCH of the completion must not write a cut title back.
        todo = next(t for t in server.call("GET", "/todos")[2] if t["title"] == title)
        assert server.call("PATCH", f"/todos/{todo['id']}", {"completed": True})[0] == 200
    with Server(binary=binary, data=data) as server:
        assert title in titles(server)


def test_a_deleted_data_file_gets_no_2xx_and_an_error_line(binary, data):
    with Server(binary=binary, data=data) as server:
        server.add_todo("before the delete")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(data + suffix):
                os.unlink(data + suffix)
        statuses = [server.call("POST", "/todos", {"title": f"into nothing {n}"})[0] for n in range(5)]
        assert statuses == [503] * 5
        assert "was deleted" in server.log()
        assert server.call("GET", "/healthz")[0] == 200


def test_a_replaced_data_file_gets_no_2xx(binary, data, tmp_path):
    other = str(tmp_path / "other.sqlite")
    sqlite3.connect(other).close()
    with Server(binary=binary, data=data) as server:
        server.add_todo("before the swap")
        shutil.move(other, data)
        assert server.call("POST", "/todos", {"title": "into the wrong file"})[0] == 503
        assert "was replaced" in server.log()


def test_a_second_server_on_the_same_file_is_refused(binary, data):
    with Server(binary=binary, data=data) as first:
        first.add_todo("held by the first")
        code, lines = refused_start(binary, data)
        assert code == 1
        assert len(lines) == 1 and data in lines[0], lines
        assert first.call("POST", "/todos", {"title": "still served"})[0] == 201
        assert "still served" in titles(first)


def test_a_damaged_file_is_refused_at_start(binary, data):
    with Server(binary=binary, data=data) as server:
        for n in range(300):
            server.add_todo(f"todo number {n} " + "x" * 200)
    # Checkpointed into the main file by the clean stop; overwrite a page in the middle.
    size = os.path.getsize(data)
    assert size > 8 * 4096
    with open(data, "r+b") as f:
        f.seek(4096 * 3)
        f.write(b"\xa5" * 4096)
    code, lines = refused_start(binary, data)
    assert code == 1
    assert len(lines) == 1 and data in lines[0], lines


# -- A data file's journal (db.json.livestate) changed under the running server --------------------------


def data_file(tmp_path, posts=2):
    path = tmp_path / "db.json"
    path.write_text(json.dumps({"posts": [{"id": str(n), "title": f"post {n}"} for n in range(1, posts + 1)]}))
    return path


def serve_file(path):
    return Server(str(path), data=f"{path}.livestate", public=None).start()


def written_back(path, title):
    """Waits until the file shows a post titled `title` (the write-back follows within a second)."""
    wait_until(lambda: title in path.read_text(), 5, message=f"{title!r} written back")


def titles_after_restart(path):
    """The posts' titles served by a new server on `path` after the last one was killed."""
    with Server(str(path), data=f"{path}.livestate", public=None) as again:
        status, _, posts = again.call("GET", "/posts")
        assert status == 200, (status, posts)
        return {post["title"] for post in posts}


@pytest.mark.parametrize("how", ["truncated", "overwritten in place", "wal truncated"])
def test_a_journal_changed_under_the_server_acknowledges_no_write(binary, tmp_path, how):
    path = data_file(tmp_path)
    journal = f"{path}.livestate"
    other = str(tmp_path / "other.sqlite")
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t(x)")
    db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
    db.commit()
    db.close()
    server = serve_file(path)
    try:
        assert server.call("POST", "/posts", {"title": "kept"})[0] == 201
        written_back(path, "kept")
        if how == "truncated":
            os.truncate(journal, 0)
        elif how == "overwritten in place":
            shutil.copyfile(other, journal)  # the same inode, other bytes
        else:
            assert os.path.getsize(journal + "-wal") > 0
            os.truncate(journal + "-wal", 0)
        statuses = [server.call("POST", "/posts", {"title": f"lost {n}"})[0] for n in range(20)]
        assert statuses == [503] * 20
        assert "writes are refused" in server.log(), server.log()
        assert server.call("GET", "/posts/1")[0] == 200 and server.call("GET", "/healthz")[0] == 200
    finally:
        server.kill9()
    # Nothing answered 201 is missing, nothing answered 503 appears.
    shown = json.loads(path.read_text())["posts"]
    assert "kept" in {post["title"] for post in shown}
    assert not any(post["title"].startswith("lost") for post in shown)


def test_a_truncated_shm_file_never_crashes_the_server(binary, tmp_path):
    path = data_file(tmp_path)
    journal = f"{path}.livestate"
    server = serve_file(path)
    try:
        assert server.call("POST", "/posts", {"title": "first"})[0] == 201
        # The WAL index lives in the server's memory, not in a mapped -shm file a truncation could pull
        # from under it (SIGBUS): a -shm made or emptied beside the journal changes nothing.
        with open(journal + "-shm", "wb"):
            pass
        statuses = [server.call("POST", "/posts", {"title": f"after {n}"})[0] for n in range(20)]
        assert server.alive(), server.log()
        assert statuses == [201] * 20
    finally:
        server.kill9()
    assert {"first", *(f"after {n}" for n in range(20))} <= titles_after_restart(path)


def start_unwaited(binary, path):
    """Starts a server on `path` without waiting for it (its stdout, stderr in files)."""
    out = open(f"{path}.{time.monotonic_ns()}.out", "w+b")

    def session():
        os.setsid()
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: dies with the test

    proc = subprocess.Popen(
        [binary, str(path), "--port", "0", "--host", "127.0.0.1", "--data", f"{path}.livestate"],
        stdout=out, stderr=subprocess.STDOUT, preexec_fn=session)
    return proc, out


def listening_port(out):
    out.seek(0)
    match = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", out.read())
    return int(match.group(1)) if match else None


def test_two_servers_started_at_once_on_a_new_journal_leave_one_that_writes(binary, tmp_path):
    for trial in range(8):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        path = data_file(folder)
        started = [start_unwaited(binary, path) for _ in range(2)]
        try:
            wait_until(
                lambda: all(proc.poll() is not None or listening_port(out) for proc, out in started), 30,
                message="both servers listening or gone")
            # The loser says so and exits 1; it does not take the journal from the winner.
            wait_until(lambda: sum(proc.poll() is None for proc, _ in started) <= 1, 10, message="one server left")
            alive = [(proc, out) for proc, out in started if proc.poll() is None]
            assert len(alive) == 1, (trial, [out.read() for _, out in started])
            loser = next(out for proc, out in started if proc.poll() is not None)
            loser.seek(0)
            assert b"in use by another livestate server" in loser.read()
            port = listening_port(alive[0][1])
            winner = Server(binary=binary)
            winner.port, winner.base = port, f"http://127.0.0.1:{port}"
            status, _, body = winner.call("POST", "/posts", {"title": f"trial {trial}"})
            assert status == 201, (trial, status, body)
            assert os.path.exists(f"{path}.livestate")
        finally:
            for proc, out in started:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                out.close()
        assert f"trial {trial}" in titles_after_restart(path)


# -- Where a commit's disk flush runs -------------------------------------------------------------------


FLUSH = re.compile(r"^(\d+)\s+(fsync|fdatasync)\((\d+)<([^>]*)>\)")


@pytest.mark.parametrize("kind", ["data file", "seeds"])
def test_no_event_loop_waits_for_a_commits_disk_flush(binary, tmp_path, kind):
    assert shutil.which("strace"), "strace is missing (scripts/apt-packages-test.txt)"
    if kind == "data file":
        path = data_file(tmp_path)
        journal, args, target = f"{path}.livestate", [str(path), "--data", f"{path}.livestate"], "/posts"
    else:
        journal = str(tmp_path / "todos.sqlite")
        args, target = ["--data", journal], "/todos"
    trace = tmp_path / "trace.txt"
    out = open(tmp_path / "stdout.txt", "w+b")

    def session():
        os.setsid()
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: dies with the test

    tracer = subprocess.Popen(
        ["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-e", "signal=none", "-o", str(trace),
         binary, "--port", "0", "--host", "127.0.0.1", "--threads", "2", *args],
        stdout=out, stderr=subprocess.DEVNULL, preexec_fn=session)
    try:
        wait_until(lambda: listening_port(out), 60, message="the traced server listening")
        pid = int((Path(f"/proc/{tracer.pid}/task/{tracer.pid}/children").read_text().split() or ["0"])[0])
        assert pid, "the traced server's pid"
        started = trace.stat().st_size
        server = Server(binary=binary)
        server.port = listening_port(out)
        server.base = f"http://127.0.0.1:{server.port}"
        for n in range(30):
            status, _, body = server.call("POST", target, {"title": f"flushed {n}"})
            assert status == 201, (status, body)
        # Every thread's name while the server still runs: a loop is `livestate-http-N`, cut by the kernel.
        names = {}
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                names[int(task.name)] = (task / "comm").read_text().strip()
            except OSError:
                pass
        time.sleep(0.2)  # strace's last lines reach its file
        # The stop's own flushes (the WAL copied into the file, on the main thread) are not a request's.
        served = trace.stat().st_size
        os.kill(pid, signal.SIGTERM)
        tracer.wait(30)
    finally:
        if tracer.poll() is None:
            tracer.kill()
            tracer.wait()
        out.close()
    with open(trace) as lines:
        lines.seek(started)
        flushes = [match.groups() for match in map(FLUSH.match, lines.read(served - started).splitlines()) if match]
    by_journal = [(int(tid), names.get(int(tid), "?")) for tid, _, _, name in flushes if name.startswith(journal)]
    assert len(by_journal) >= 30, flushes
    # Each commit's flush runs on the thread made for it; no event loop ever waits for a disk.
    assert {name for _, name in by_journal} == {"livestate-write"}, (by_journal, names)
    on_loops = [flush for flush in flushes if names.get(int(flush[0]), "").startswith("livestate-http")]
    assert on_loops == [], (on_loops, names)
