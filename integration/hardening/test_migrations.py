"""Stores written by an older LiveState, started with this one (SQLite; PostgreSQL: instances/test_migrations.py).

The fixtures (fixtures/migrations/README.md says how each was made) were written by the binary from before the
schema steps were recorded in `livestate_migrations`: a seeds' file of `user_version` 4, and a data file with
its journal. This binary must migrate each in place, keep every todo, item, key and checkpoint, and write; a
store whose `livestate_migrations` names a step it does not know (a newer LiveState's) is refused at start
with one line, the file unchanged.
"""

import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from livestate import Server, SSEClient

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "migrations"

SEEDS_TODOS = [
    {"completed": False, "id": 1, "title": "Buy Milk"},
    {"completed": True, "id": 2, "title": "Walk the dog"},
    {"completed": False, "id": 3, "title": "Ünïcode ✓ title"},
    {"completed": False, "id": 5, "title": "Keyed write"},
]
SEEDS_STEPS = ["todos", "journal", "journal write keys", "entries", "items", "items by entry"]
FILE_STEPS = ["file mark", "entries", "file mark top", "saved events and checkpoints", "items before entries",
              "file mark without top", "pending file mark"]


def applied_steps(path):
    db = sqlite3.connect(path)
    try:
        return [name for (name,) in db.execute("SELECT name FROM livestate_migrations ORDER BY rowid")]
    finally:
        db.close()


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def resume(server, last_event_id):
    """The events of posts, comments and profile a client resuming from `last_event_id` gets: (id, topic, data)."""
    seen = []
    with SSEClient.of(server, "/events?topics=posts,comments,profile",
                      headers={"Last-Event-ID": last_event_id}) as client:
        assert client.read_head() == 200
        while (event := client.next(timeout=0.7)) is not None:
            if event.comment is None:
                seen.append((event.id, event.event, event.json()))
    return seen


@pytest.fixture
def seeds_file(tmp_path):
    path = tmp_path / "seeds.sqlite"
    shutil.copyfile(FIXTURES / "seeds-v4.sqlite", path)
    return str(path)


@pytest.fixture
def data_file(tmp_path):
    for name in ("db.json", "db.json.livestate"):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    return tmp_path / "db.json"


def test_a_seeds_file_of_the_older_binary_keeps_its_todos_and_keys_and_writes(binary, seeds_file):
    with Server(binary=binary, data=seeds_file) as server:
        assert server.call("GET", "/todos")[2] == SEEDS_TODOS
        # The key of a write before the upgrade still answers it, without a second todo.
        status, _, body = server.call(
            "POST", "/todos", {"title": "Keyed write"}, headers={"Idempotency-Key": "fixture-key-1"})
        assert (status, body["id"]) == (201, 5)
        status, _, body = server.call("POST", "/todos", {"title": "after the upgrade"})
        assert (status, body["id"]) == (201, 6)
    assert applied_steps(seeds_file) == SEEDS_STEPS
    with Server(binary=binary, data=seeds_file) as server:
        titles = [todo["title"] for todo in server.call("GET", "/todos")[2]]
        assert titles == [todo["title"] for todo in SEEDS_TODOS] + ["after the upgrade"]
    assert applied_steps(seeds_file) == SEEDS_STEPS


def test_a_data_files_journal_of_the_older_binary_keeps_its_keys_and_checkpoints_and_writes(binary, data_file):
    journal = str(data_file) + ".livestate"
    with Server(str(data_file), binary=binary, data=journal) as server:
        posts = server.call("GET", "/posts")[2]
        assert [post["title"] for post in posts] == ["json-server", "second post", "third ✓", "after checkpoint"]
        assert posts[1]["views"] == 11
        assert server.call("GET", "/comments")[2] == [{"id": 2, "body": "keyed", "postId": "2"}]
        assert server.call("GET", "/profile")[2] == {"name": "fixture"}
        assert [c["name"] for c in server.call("GET", "/db/checkpoints")[2]] == ["before-fixture"]
        status, _, body = server.call(
            "POST", "/comments", {"body": "keyed", "postId": "2"}, headers={"Idempotency-Key": "fixture-file-key"})
        assert (status, body["id"]) == (201, 2)
        assert server.call("POST", "/posts", {"id": "4", "title": "after the upgrade"})[0] == 201
        # The checkpoint saved by the older binary restores its state: "after checkpoint" goes.
        checkpoint = server.call("GET", "/db/checkpoints")[2][0]["id"]
        assert server.call("POST", f"/db/checkpoints/{checkpoint}/restore")[0] == 200
        titles = [post["title"] for post in server.call("GET", "/posts")[2]]
        assert titles == ["json-server", "second post", "third ✓"]
    assert applied_steps(journal) == FILE_STEPS
    with Server(str(data_file), binary=binary, data=journal) as server:
        titles = [post["title"] for post in server.call("GET", "/posts")[2]]
        assert titles == ["json-server", "second post", "third ✓"]
        assert server.call("POST", "/posts", {"title": "after a restart"})[0] == 201
    assert applied_steps(journal) == FILE_STEPS


def test_a_resume_from_before_the_upgrade_gets_the_events_the_older_binarys_clean_stop_saved(binary, data_file):
    # The older binary marked its journal with a hash of another form; the file is as it left it, so the
    # events its clean stop saved still lead here: a client that saw them all is sent nothing, and one that
    # missed the last gets exactly that event, not the current values of every topic.
    journal = str(data_file) + ".livestate"
    db = sqlite3.connect(journal)
    saved = [(str(id), topic) for (id, topic) in db.execute("SELECT id, topic FROM livestate_doc_events ORDER BY id")]
    db.close()
    assert len(saved) == 6
    with Server(str(data_file), binary=binary, data=journal) as server:
        assert resume(server, saved[-1][0]) == []
        assert [event[:2] for event in resume(server, saved[-2][0])] == [saved[-1]]


def test_a_journal_whose_entries_keep_their_items_before_migrates_and_its_events_are_made_again(binary, tmp_path):
    # Written by 33496c5 (steps up to `items before entries`, a file mark with its `top`): the first start of
    # this binary drops the `top` and still takes the state back before those entries, so a resume from any
    # of that binary's events gets the ones after it exactly as it sent them.
    for name in ("items-before.json", "items-before.json.livestate"):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    path, journal = tmp_path / "items-before.json", str(tmp_path / "items-before.json.livestate")
    sent = [(e["id"], e["event"], e["data"]) for e in json.loads((FIXTURES / "items-before-events.json").read_text())]
    assert len(sent) == 8
    with Server(str(path), binary=binary, data=journal) as server:
        for start in range(len(sent)):
            assert resume(server, sent[start][0]) == sent[start + 1:], start
        assert server.call("GET", "/posts")[2] == [{"id": 1, "title": "a2"}, {"id": 4, "title": "d"}]
    assert applied_steps(journal) == FILE_STEPS
    db = sqlite3.connect(journal)
    columns = [row[1] for row in db.execute("PRAGMA table_info(livestate_doc_file)")]
    db.close()
    assert "top" not in columns and "floor" in columns


@pytest.mark.parametrize("kind", ["seeds", "data file"])
def test_a_store_marked_by_a_newer_livestate_is_refused_with_one_line_and_left_unchanged(
        binary, kind, seeds_file, data_file):
    args = [str(data_file)] if kind == "data file" else []
    store = str(data_file) + ".livestate" if kind == "data file" else seeds_file
    with Server(*args, binary=binary, data=store):
        pass
    db = sqlite3.connect(store)
    db.execute("INSERT INTO livestate_migrations(name) VALUES ('a step of a newer LiveState')")
    db.commit()
    db.close()
    before = digest(store)
    out = subprocess.run([binary, "--port", "0", "--data", store, *args], capture_output=True, text=True,
                         timeout=20)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode != 0, out.stderr
    assert len(lines) == 1 and "written by a newer LiveState" in lines[0], lines
    assert '"a step of a newer LiveState"' in lines[0]
    assert digest(store) == before
