"""The events journal in the SQLite file (docs/architecture-instances.md, "SQLite"): `Last-Event-ID`
resume survives a restart, old clock-based ids compare below the new sequence, a todo and its event are
one transaction (kill -9 cannot split them), and `--journal-retention` keeps the table bounded.

Real binary, real SQLite file, the file read back with Python's sqlite3. LIVESTATE_JOURNAL_KILLS scales
the kill -9 cycles (default 4).
"""

import json
import os
import random
import sqlite3
import threading
import time

import pytest

from livestate import Server, SSEClient, fake_upstream, upstream_control

KILLS = int(os.environ.get("LIVESTATE_JOURNAL_KILLS", "4"))


@pytest.fixture()
def data(tmp_path):
    return str(tmp_path / "todos.sqlite")


def todos_events(client, until, timeout=10):
    """The todos events of `client` until `until(events)` holds."""
    events = []
    deadline = time.monotonic() + timeout
    while not until(events):
        assert time.monotonic() < deadline, f"timed out with {[(e.id, e.data) for e in events]}"
        event = client.next(timeout=max(0.1, deadline - time.monotonic()))
        if event is not None and event.event == "todos":
            events.append(event)
    return events


def has_title(title):
    return lambda events: bool(events) and any(t["title"] == title for t in events[-1].json())


def frames(events):
    return [(e.id, e.event, e.data) for e in events]


def test_resume_after_a_restart_gets_exactly_the_missed_events_with_their_ids(binary, data):
    server = Server(binary=binary, data=data).start()
    witness = SSEClient.of(server, "/events?topics=todos")
    client = SSEClient.of(server, "/events?topics=todos")
    assert witness.read_head() == 200 and client.read_head() == 200
    server.add_todo("seen before")
    last = todos_events(client, has_title("seen before"))[-1]
    client.close()
    # Missed before the restart: an insert, an update and a delete.
    missed = server.add_todo("missed insert")
    assert server.call("PATCH", f"/todos/{missed['id']}", {"completed": True})[0] == 200
    assert server.call("DELETE", "/todos/1")[0] == 204
    seen = todos_events(witness, lambda events: bool(events) and all(t["id"] != 1 for t in events[-1].json()))
    witness.close()
    before_restart = [e for e in seen if int(e.id) > int(last.id)]
    assert len(before_restart) == 3, frames(seen)
    server.kill9()  # every 2xx above is on disk, and so are their events

    with Server(binary=binary, data=data) as again:
        after = again.add_todo("missed after the restart")
        resumed = SSEClient.of(again, "/events?topics=todos", headers={"Last-Event-ID": last.id})
        assert resumed.read_head() == 200
        events = todos_events(resumed, has_title(after["title"]))
        resumed.close()
        # The three missed before the restart, byte for byte with their ids, then the one after it.
        assert frames(events[:3]) == frames(before_restart)
        assert len(events) == 4, frames(events)
        assert int(events[3].id) > int(events[2].id)
        assert [t["title"] for t in events[3].json()] == ["seen before", "missed insert", after["title"]]
        # A resume with ?diff=1 gets the same missed events as changes.
        diff = SSEClient.of(again, "/events?topics=todos&diff=1", headers={"Last-Event-ID": last.id})
        assert diff.read_head() == 200
        changes = [e.json() for e in todos_events(diff, lambda events: len(events) >= 4)]
        diff.close()
        assert changes[0]["inserted"][0]["title"] == "missed insert"
        assert changes[1]["updated"] == [dict(missed, completed=True)]
        assert changes[2] == {"deleted": [1], "inserted": [], "updated": []}


def test_a_restart_without_writes_repeats_no_id_and_a_first_connect_gets_the_current_list(binary, data):
    with Server(binary=binary, data=data) as server:
        server.add_todo("written once")
        with SSEClient.of(server, "/events") as client:
            assert client.read_head() == 200
            first_run = {e.id: (e.event, e.data) for e in client.drain(0.5) if e.id}
    with Server(binary=binary, data=data) as server:
        with SSEClient.of(server, "/events") as client:
            assert client.read_head() == 200
            second_run = {e.id: (e.event, e.data) for e in client.drain(0.5) if e.id}
    todos = [data for event, data in second_run.values() if event == "todos"]
    assert len(todos) == 1 and "written once" in todos[0]
    # The todos event is the same event (id and data); every other id of the second run is new.
    for event_id, value in second_run.items():
        if event_id in first_run:
            assert value == first_run[event_id] and value[0] == "todos"


def test_a_file_of_the_old_schema_keeps_its_todos_and_an_old_clock_id_gets_a_fresh_snapshot(binary, data):
    # The file as the binary before the journal wrote it: schema version 1, todos only.
    db = sqlite3.connect(data)
    db.executescript(
        """
        PRAGMA journal_mode=WAL;
        CREATE TABLE todos (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
                            completed INTEGER NOT NULL DEFAULT 0);
        INSERT INTO todos (title, completed) VALUES ('Buy Milk', 0), ('From the old binary', 1);
        PRAGMA user_version = 1;
        """)
    db.close()
    clock_id = str(int(time.time() * 1_000_000))  # what the old binary's EventIDSource handed out
    with Server(binary=binary, data=data) as server:
        assert [t["title"] for t in server.call("GET", "/todos")[2]] == ["Buy Milk", "From the old binary"]
        with SSEClient.of(server, "/events?topics=todos", headers={"Last-Event-ID": clock_id}) as client:
            assert client.read_head() == 200
            snapshot = todos_events(client, lambda events: len(events) >= 1)[0]
            assert [t["title"] for t in snapshot.json()] == ["Buy Milk", "From the old binary"]
            assert int(snapshot.id) > int(clock_id)
            server.add_todo("after the upgrade")
            live = todos_events(client, has_title("after the upgrade"))[-1]
            assert int(live.id) > int(snapshot.id)
    db = sqlite3.connect(data)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 5
    assert db.execute("SELECT count(*) FROM livestate_entries WHERE resource <> ''").fetchone()[0] == 1
    db.close()


def test_kill_9_mid_burst_never_leaves_a_todo_without_its_event(binary, data):
    sent = 0
    for cycle in range(KILLS):
        server = Server(binary=binary, data=data).start()
        stop = threading.Event()

        def writer():
            nonlocal sent
            while not stop.is_set():
                try:
                    server.call("POST", "/todos", {"title": f"burst {cycle} {sent}"})
                    sent += 1
                except OSError:
                    return

        threads = [threading.Thread(target=writer) for _ in range(3)]
        for thread in threads:
            thread.start()
        time.sleep(random.uniform(0.3, 1.0))
        server.kill9()
        stop.set()
        for thread in threads:
            thread.join(10)
        db = sqlite3.connect(data)
        todo_ids = {row[0] for row in db.execute("SELECT id FROM todos WHERE id > 1")}
        event_ids = set()
        for (key,) in db.execute("SELECT key FROM livestate_entries WHERE resource = 'todos'"):
            event_ids.add(int(key))
        db.close()
        assert todo_ids == event_ids, (sorted(todo_ids ^ event_ids), cycle)
    assert sent > 0
    with Server(binary=binary, data=data) as server:
        assert len(server.call("GET", "/todos")[2]) == len(todo_ids) + 1


def test_the_journal_stays_bounded_and_an_id_older_than_it_gets_current_values(binary, data):
    with Server("--journal-retention", "20", binary=binary, data=data) as server:
        with SSEClient.of(server, "/events?topics=todos") as client:
            assert client.read_head() == 200
            server.add_todo("the oldest write")
            oldest = todos_events(client, has_title("the oldest write"))[-1]
            for n in range(60):
                server.add_todo(f"write {n:02d}")
            recent = todos_events(client, has_title("write 49"))[-1]
    db = sqlite3.connect(data)
    assert db.execute("SELECT count(*) FROM livestate_entries WHERE resource <> ''").fetchone()[0] == 20
    db.close()
    with Server("--journal-retention", "20", binary=binary, data=data) as server:
        with SSEClient.of(server, "/events?topics=todos", headers={"Last-Event-ID": oldest.id}) as client:
            assert client.read_head() == 200
            events = todos_events(client, lambda events: len(events) >= 1)
            # Older than the journal: the current list once, as on a first connect.
            assert len(events[0].json()) == 62 and client.drain(0.3) == []
        with SSEClient.of(server, "/events?topics=todos", headers={"Last-Event-ID": recent.id}) as client:
            assert client.read_head() == 200
            events = todos_events(client, has_title("write 59"))
            assert [e.json()[-1]["title"] for e in events] == [f"write {n:02d}" for n in range(50, 60)]



def collect(client, seen, predicate, timeout=15):
    """Appends `client`'s events to `seen` until one satisfies `predicate`."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"timed out with {frames(seen)}"
        event = client.next(timeout=max(0.1, deadline - time.monotonic()))
        if event is not None and event.id:
            seen.append(event)
            if predicate(event):
                return event


def test_every_input_survives_a_kill_and_a_resume_gets_exactly_the_missed_events_of_every_topic(binary, data):
    """An album selection (the server downloads the photo's placeholder from itself, on loopback), a movie
    keyword and a framework selection are journal entries in the file: after kill -9 and a restart on the
    same file the selection, its image and the keyword's result are what they were, and a client resuming
    with its Last-Event-ID gets exactly the events it missed, every topic, with their original ids."""
    topics = "/events?topics=todos,image,movies,frameworks"
    server = Server(binary=binary, data=data).start()
    witness = SSEClient.of(server, topics)
    client = SSEClient.of(server, topics)
    assert witness.read_head() == 200 and client.read_head() == 200
    server.add_todo("seen before")
    last = client.until(lambda e: e.event == "todos" and "seen before" in e.data)
    client.close()
    seen = []
    collect(witness, seen, lambda e: e.id == last.id)
    # Missed: the image of album 2, a keyword (searched after its 0.5 s debounce), a framework, a todo.
    assert server.call("POST", "/albums/selection", {"id": 2})[0] == 202
    collect(witness, seen, lambda e: e.event == "image")
    assert server.call("PUT", "/movies/keyword", {"keyword": "alien"})[0] == 202
    collect(witness, seen, lambda e: e.event == "movies")
    assert server.call("POST", "/frameworks/selection", {"name": "Combine"})[0] == 202
    collect(witness, seen, lambda e: e.event == "frameworks")
    server.add_todo("missed todo")
    collect(witness, seen, lambda e: e.event == "todos" and "missed todo" in e.data)
    witness.close()
    missed = [e for e in seen if int(e.id) > int(last.id)]
    assert [e.event for e in missed] == ["image", "movies", "frameworks", "todos"], frames(missed)
    status, _, selection = server.call("GET", "/albums/selection")
    assert status == 200
    image = server.request("GET", "/albums/selection/image")
    assert image.status == 200 and len(image.body) == selection["bytes"]
    server.kill9()

    with Server(binary=binary, data=data) as again:
        # What the server shows is what it showed.
        assert again.call("GET", "/albums/selection")[2] == selection
        assert again.request("GET", "/albums/selection/image").body == image.body
        with SSEClient.of(again, "/events?topics=movies") as first:
            assert first.read_head() == 200
            keyword = first.until(lambda e: e.event == "movies").json()
        assert keyword["expression"] == "alien" and keyword["results"]
        # A resume gets the missed events byte for byte, with their ids, and nothing else.
        resumed = SSEClient.of(again, topics, headers={"Last-Event-ID": last.id})
        assert resumed.read_head() == 200
        events = [e for e in resumed.drain(1.0) if e.id]
        resumed.close()
    assert [(e.id, e.event) for e in events] == [(e.id, e.event) for e in missed]
    assert frames(events) == frames(missed)


def test_a_selection_whose_download_the_kill_interrupted_is_downloaded_after_the_restart(binary, data):
    """kill -9 while the selected image is still downloading: the restarted server shows the selection as
    pending and downloads it again itself (one process: nobody else would), instead of pending forever."""
    with fake_upstream() as upstream:
        url = upstream + "/images/00ff00.png"
        upstream_control(upstream, "/_control", {"path": "/images/00ff00.png", "mode": "hang"})
        server = Server(binary=binary, data=data).start()
        assert server.call("POST", "/albums/selection", {"url": url})[0] == 202
        deadline = time.monotonic() + 10
        while "/images/00ff00.png" not in upstream_control(upstream, "/_control/log")["requests"]:
            assert time.monotonic() < deadline, "the download never reached the upstream"
            time.sleep(0.05)
        assert server.call("GET", "/albums/selection")[2].get("pending", {}).get("url") == url
        server.kill9()
        upstream_control(upstream, "/_control", {"path": "/images/00ff00.png", "mode": "ok"})

        with Server(binary=binary, data=data) as again:
            deadline = time.monotonic() + 15
            while True:
                status, _, state = again.call("GET", "/albums/selection")
                if status == 200 and state.get("contentType") == "image/png":
                    break
                assert time.monotonic() < deadline, f"still not shown after the restart: {status} {state}"
                time.sleep(0.1)
            assert state["url"] == url
            image = again.request("GET", "/albums/selection/image")
            assert image.status == 200 and image.body[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_write_sent_again_with_its_key_is_answered_from_the_first_also_after_a_restart(binary, data):
    # The client whose answer was lost (a dropped connection, or the server killed between its commit and
    # its answer) sends the same request again with the same Idempotency-Key: applied once.
    posted = {"Idempotency-Key": "post-1"}
    with Server(binary=binary, data=data) as server:
        status, headers, first = server.call("POST", "/todos", {"title": "Walk the dog"}, headers=posted)
        assert status == 201, first
        again = server.call("POST", "/todos", {"title": "Walk the dog"}, headers=posted)
        assert (again[0], again[2], again[1]["Location"]) == (201, first, headers["Location"])
        patched = server.call("PATCH", f"/todos/{first['id']}", {"completed": True}, headers={"Idempotency-Key": "patch-1"})
        assert patched[0] == 200 and patched[2]["completed"] is True
        assert server.call("POST", "/frameworks/selection", {"name": "Combine"},
                           headers={"Idempotency-Key": "select-1"})[0] == 202
        server.kill9()
    with Server(binary=binary, data=data) as server:
        with SSEClient.of(server, "/events?topics=todos,frameworks") as client:
            assert client.read_head() == 200
            again = server.call("POST", "/todos", {"title": "Walk the dog"}, headers=posted)
            assert (again[0], again[2]) == (201, first)
            # The repeat of the PATCH answers what the first one wrote, though its body asks otherwise.
            repeat = server.call("PATCH", f"/todos/{first['id']}", {"completed": False},
                                 headers={"Idempotency-Key": "patch-1"})
            assert repeat[0] == 200 and repeat[2]["completed"] is True, repeat
            selected = server.call("POST", "/frameworks/selection", {"name": "SwiftUI"},
                                   headers={"Idempotency-Key": "select-1"})
            assert selected[0] == 202 and "Combine" in json.dumps(selected[2]), selected
            # A key committed by another kind of request is refused and changes nothing.
            reused = server.call("POST", "/frameworks/selection", {"name": "UIKit"}, headers=posted)
            assert reused[0] == 422 and reused[2]["error"] == "idempotency_key_reused", reused
            todos = server.call("GET", "/todos")[2]
            assert [t for t in todos if t["title"] == "Walk the dog"] == [dict(first, completed=True)]
            # The repeats caused no event: the next one a client sees is a new write's.
            server.add_todo("a new write")
            seen = todos_events(client, has_title("a new write"))
            assert len(seen) == 2, [(e.id, e.data) for e in seen]  # the current list, then the new write
    db = sqlite3.connect(data)
    keys = [row[0] for row in db.execute("SELECT write_key FROM livestate_entries WHERE write_key IS NOT NULL ORDER BY seq")]
    db.close()
    assert keys == ["post-1", "patch-1", "select-1"]
