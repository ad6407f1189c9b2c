"""json-server's snapshots (docs/own-data.md, "Snapshots"): `s` + Enter on the server's standard input saves
the data as it is at that moment into `--snapshots` as `db-<milliseconds>.json`."""
import json
import re
import subprocess
import time

from livestate import binary_path

DB = {"posts": [{"id": 1, "title": "a"}], "profile": {"name": "typicode"}, "tags": ["x", "y"]}


def snapshots(folder):
    return sorted(p for p in folder.iterdir() if re.fullmatch(r"db-\d{13}\.json", p.name))


def wait_for_snapshots(folder, count, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = snapshots(folder)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{count} snapshot(s) expected in {folder}, found {snapshots(folder)}")


def test_s_and_enter_saves_the_data_as_it_is_now(data_file, serve, tmp_path):
    folder = tmp_path / "snaps"
    folder.mkdir()
    path = data_file(DB)
    server = serve(path, "--snapshots", str(folder), stdin=subprocess.PIPE)
    assert server.call("POST", "/posts", {"title": "b"})[0] == 201
    server.proc.stdin.write(b"s\n")
    server.proc.stdin.flush()
    [first] = wait_for_snapshots(folder, 1)
    status, _, db = server.call("GET", "/db")
    assert status == 200
    # The snapshot shows the write at once, while the data file may not yet (it is rewritten within 1 s).
    assert json.loads(first.read_text()) == db
    assert db["posts"][-1]["title"] == "b" and db["tags"] == ["x", "y"]
    assert first.read_text().startswith('{\n  "posts": [\n    {\n      "id": 1,'), "laid out as the file is"
    assert f"saved a snapshot to {first}" in server.log() or f"saved a snapshot to snaps/{first.name}" in server.log()

    # Only a line that is `s` (case and spaces aside) is the command.
    time.sleep(0.002)  # a new millisecond, a new name
    server.proc.stdin.write(b"x\nss\n" + b"a" * 10_000 + b"s\n  S \r\n")
    server.proc.stdin.flush()
    found = wait_for_snapshots(folder, 2)
    time.sleep(0.3)
    assert len(snapshots(folder)) == 2, found
    assert server.call("DELETE", "/posts/1")[0] == 200
    time.sleep(0.002)
    server.proc.stdin.write(b"s\n")
    server.proc.stdin.flush()
    third = wait_for_snapshots(folder, 3)[-1]
    assert [p["id"] for p in json.loads(third.read_text())["posts"]] == [2]
    assert json.loads(first.read_text())["posts"][0]["id"] == 1, "an earlier snapshot is left as it was"

    # The end of a piped input ends the reading, not the server.
    server.proc.stdin.close()
    time.sleep(0.2)
    assert server.alive() and server.call("GET", "/posts")[0] == 200


def test_a_snapshot_that_cannot_be_written_is_logged_and_the_server_goes_on(data_file, serve, tmp_path):
    folder = tmp_path / "snaps"
    folder.mkdir()
    server = serve(data_file(DB), "-S", str(folder), stdin=subprocess.PIPE)
    folder.rmdir()  # the folder goes away while the server runs
    server.proc.stdin.write(b"s\n")
    server.proc.stdin.flush()
    deadline = time.monotonic() + 10
    while "no snapshot saved in" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert f"no snapshot saved in {folder}" in server.log()
    assert server.call("POST", "/posts", {"title": "still served"})[0] == 201
    folder.mkdir()  # and comes back: the next command saves
    server.proc.stdin.write(b"s\n")
    server.proc.stdin.flush()
    [snapshot] = wait_for_snapshots(folder, 1)
    assert json.loads(snapshot.read_text())["posts"][-1]["title"] == "still served"


def test_without_a_terminal_or_pipe_nothing_is_read(data_file, serve, tmp_path):
    server = serve(data_file(DB), "-S", str(tmp_path))
    assert server.call("GET", "/db")[0] == 200
    assert "snapshot" not in server.log()
    piped = serve(data_file(DB, name="other.json"), "-S", str(tmp_path), stdin=subprocess.PIPE)
    deadline = time.monotonic() + 5
    while "type s + Enter to save a snapshot" not in piped.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "type s + Enter to save a snapshot" in piped.log()
    piped.proc.stdin.close()


def test_a_missing_snapshots_folder_is_a_bad_option(data_file, tmp_path):
    path = data_file(DB)
    result = subprocess.run(
        [binary_path(), str(path), "--port", "0", "-S", str(tmp_path / "missing")],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert f"'{tmp_path / 'missing'}' is not a writable directory" in result.stderr
    assert result.stdout == ""
