"""Storage that cannot lie: every 2xx is true of the SQLite file, or the server says it cannot be.

- a title with a NUL survives a restart byte for byte (or is refused; never cut);
- a data file deleted or replaced under the running server: no write is acknowledged, the log says why;
- a second server on the same file exits 1 with one line naming it; the first goes on serving;
- a damaged file (a page overwritten) is refused at start with one line, not served as empty rows.
"""

import os
import shutil
import sqlite3
import subprocess

import pytest

from livestate import Server


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
