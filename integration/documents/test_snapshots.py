"""json-server's snapshots (docs/own-data.md, "Snapshots"): `s` + Enter on the server's standard input saves
the data as it is at that moment into `--snapshots` as `db-<milliseconds>.json`."""
import json
import re
import subprocess
import time

from livestate import binary_path, wait_until

DB = {"posts": [{"id": 1, "title": "a"}], "profile": {"name": "typicode"}, "tags": ["x", "y"]}


def snapshots(folder):
    return sorted(p for p in folder.iterdir() if re.fullmatch(r"db-\d{13}\.json", p.name))


def wait_for_snapshots(folder, count):
    return wait_until(lambda: len(snapshots(folder)) >= count and snapshots(folder), 10,
                      message=f"{count} snapshot(s) in {folder}")


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
    # NB: the line is logged once the file is written: waited for, not read at once.
    logged = wait_until(lambda: "saved a snapshot to" in server.log() and server.log(), 5, message="the log line")
    assert f"saved a snapshot to {first}" in logged or f"saved a snapshot to snaps/{first.name}" in logged

    # Only a line that is `s` (case and spaces aside) is the command.
    time.sleep(0.002)  # a new millisecond, a new name
    server.proc.stdin.write(b"x\nss\n" + b"a" * 10_000 + b"s\n  S \r\n")
    server.proc.stdin.flush()
    # NB: the lines are read in order, so once the `S` line's snapshot exists the others were read too.
    found = wait_for_snapshots(folder, 2)
    assert len(found) == 2, found
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
    wait_until(lambda: "no snapshot saved in" in server.log(), 10, message="the error line")
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
    wait_until(lambda: "type s + Enter to save a snapshot" in piped.log(), 5, message="the start line")
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
