"""A save the server cannot take is the user's until they fix it: one it cannot load (not JSON, past
--max-file-mb, past what a start reads) is reported and never overwritten, and a data file swapped for a
symbolic link to a file elsewhere is reported and never written through (docs/own-data.md, "The file stays
yours")."""
import json
import os
import time

import pytest

from livestate import wait_until

DB = {"posts": [{"id": 1, "title": "a"}], "profile": {"name": "x"}}


def save(path, text):
    """Saves `text` over `path` as an editor does: a temporary file renamed over it."""
    temp = path.with_name(".db.json.swp")
    temp.write_text(text)
    os.rename(temp, path)


def large_save():
    """A valid file of about 2.7 MB."""
    return json.dumps({"posts": [{"id": i, "title": "t" * 250} for i in range(1, 10_001)], "profile": {}}, indent=2)


@pytest.mark.parametrize(
    "saved, flags, words",
    [
        ('{"posts": [1,]', [], "line 1, column"),
        (large_save(), ["--max-file-mb", "1"], "--max-file-mb"),
    ],
    ids=["not-json", "past-max-file-mb"],
)
def test_a_save_that_cannot_be_loaded_is_kept_through_writes_and_loaded_once_fixed(
        data_file, serve, saved, flags, words):
    path = data_file(DB)
    server = serve(path, *flags)
    save(path, saved)
    wait_until(lambda: "cannot be loaded" in server.log(), 2, message="the save reported")
    assert words in server.log()
    assert len([line for line in server.log().splitlines() if "cannot be loaded" in line]) == 1
    # The server serves the last good state and keeps taking writes, journaled, without writing the file.
    status, _, made = server.call("POST", "/posts", {"title": "while broken"})
    assert status == 201
    assert [p["title"] for p in server.call("GET", "/posts")[2]] == ["a", "while broken"]
    time.sleep(1.5)
    assert path.read_text() == saved
    # The user's fix is loaded, and the write made meanwhile is kept on top of it and written back.
    fixed = {"posts": [{"id": 1, "title": "fixed by hand"}], "profile": {"name": "y"}}
    save(path, json.dumps(fixed, indent=2))
    wait_until(lambda: server.call("GET", "/posts/1")[2]["title"] == "fixed by hand", 2, message="fix loaded")
    assert server.call("GET", f"/posts/{made['id']}")[2]["title"] == "while broken"
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == ["fixed by hand", "while broken"],
               2, message="the file shows the fix and the write")
    assert json.loads(path.read_text())["profile"] == {"name": "y"}


def test_a_save_past_what_a_start_reads_is_reported_and_kept(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    temp = path.with_name(".db.json.swp")
    with open(temp, "wb") as f:
        f.truncate(1_100 << 20)  # sparse: 1.1 GB that take no disk
    os.rename(temp, path)
    wait_until(lambda: "cannot be loaded" in server.log(), 2, message="the save reported")
    assert server.call("POST", "/posts", {"title": "while too large"})[0] == 201
    time.sleep(1.5)
    assert path.stat().st_size == 1_100 << 20
    path.write_text(json.dumps(DB))
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == ["a", "while too large"], 2,
               message="the write written back once the file loads")


def test_a_save_back_to_the_last_written_bytes_ends_the_hold(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    assert server.call("POST", "/posts", {"title": "one"})[0] == 201
    wait_until(lambda: len(json.loads(path.read_text())["posts"]) == 2, 2, message="written back")
    good = path.read_text()
    save(path, "{oops")
    wait_until(lambda: "cannot be loaded" in server.log(), 2, message="the save reported")
    assert server.call("POST", "/posts", {"title": "two"})[0] == 201
    save(path, good)  # undone in the editor: the bytes the server wrote last
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == ["a", "one", "two"], 2,
               message="the write written back")


def test_a_data_file_swapped_for_a_link_elsewhere_is_not_written_through(tmp_path, data_file, serve):
    path = data_file(DB)
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir()
    other = elsewhere / "other.json"
    other.write_text(json.dumps({"secrets": [{"id": 1, "key": "k"}]}))
    before = other.read_bytes()
    server = serve(path)
    link = path.with_name(".db.json.link")
    link.symlink_to(other)
    os.rename(link, path)
    wait_until(lambda: "symbolic link" in server.log(), 2, message="the swap reported")
    assert str(other) in server.log()
    assert server.call("POST", "/posts", {"title": "not through the link"})[0] == 201
    assert server.call("GET", "/secrets")[0] == 404  # the file outside is not loaded either
    time.sleep(1.5)
    assert other.read_bytes() == before and path.is_symlink()
    # A file in its place again is loaded, and the writes made meanwhile are written into it.
    path.unlink()
    path.write_text(json.dumps(DB, indent=2))
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == ["a", "not through the link"],
               2, message="written back into the file")
    assert other.read_bytes() == before
