"""A `Last-Event-ID` from before a restart (docs/own-data.md, "Live"): after a clean stop or a `kill -9`, the
events of the newest entries are made again by the same view models (the start undoes them from the state by
the items before them, test_resume_rewind.py), ids and data as they were; after an edit while stopped, it gets
current values, as an id older than the buffer does."""
import json
import sqlite3
from contextlib import closing

from livestate import SSEClient, wait_until

DB = {"posts": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}], "profile": {"name": "x"}}


def events(server, topics, last_event_id=None, count=None, quiet=0.5):
    headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
    with SSEClient.of(server, f"/events?topics={topics}", headers=headers) as client:
        assert client.read_head() == 200
        seen = []
        while count is None or len(seen) < count:
            event = client.next(timeout=quiet if count is None else 5)
            if event is None:
                break
            if event.comment is None:
                seen.append((event.id, event.event, event.json()))
        return seen


def writes(server):
    for title in ["one", "two", "three"]:
        assert server.call("PATCH", "/posts/1", {"title": title})[0] == 200
    assert server.call("PATCH", "/profile", {"age": 3})[0] == 200


def test_after_a_clean_stop_a_resume_gets_exactly_the_events_it_missed(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    with SSEClient.of(server, "/events?topics=posts,profile") as live:
        assert live.read_head() == 200
        writes(server)
        seen = []
        while len(seen) < 6:
            event = live.next(timeout=5)
            assert event is not None, seen
            if event.comment is None:
                seen.append((event.id, event.event, event.json()))
    seen = seen[2:]  # after the two current values, the four writes
    assert [e[2][0]["title"] if e[1] == "posts" else e[2] for e in seen] == \
        ["one", "two", "three", {"name": "x", "age": 3}]
    assert server.stop() == 0
    again = serve(path)
    # From the first write on: the three events after it, as the first run sent them.
    assert events(again, "posts,profile", last_event_id=seen[0][0], count=3) == seen[1:]
    # From the last: nothing was missed, so nothing is sent (no current values).
    assert events(again, "posts,profile", last_event_id=seen[-1][0]) == []
    # The next write's event comes after them.
    assert again.call("PATCH", "/posts/2", {"title": "later"})[0] == 200
    later = events(again, "posts", last_event_id=seen[-1][0], count=1)
    assert int(later[0][0]) > int(seen[-1][0]) and later[0][2][1]["title"] == "later"
    # A second restart has nothing saved from before the first one twice: only this run's events.
    assert again.stop() == 0
    third = serve(path)
    assert events(third, "posts", last_event_id=later[0][0]) == []


def journal_mark(path):
    """The entry the data file showed when it was last written, from its journal."""
    with closing(sqlite3.connect(f"{path}.livestate")) as db:
        return db.execute("SELECT seq FROM livestate_doc_file").fetchone()[0]


def live_events(client, count):
    seen = []
    while len(seen) < count:
        event = client.next(timeout=5)
        assert event is not None, seen
        if event.comment is None:
            seen.append((event.id, event.event, event.json()))
    return seen


def test_after_kill9_a_resume_gets_the_events_it_missed_made_again(data_file, serve):
    for attempt in range(3):
        path = data_file(DB, name=f"db{attempt}.json")
        server = serve(path)
        with SSEClient.of(server, "/events?topics=posts,profile") as live, \
                SSEClient.of(server, "/events?topics=posts&diff=1") as diff:
            assert live.read_head() == 200 and diff.read_head() == 200
            assert server.call("PATCH", "/posts/1", {"title": "shown"})[0] == 200
            wait_until(lambda: "shown" in path.read_text(), 5, message="the write-back")
            writes(server)
            seen = live_events(live, 7)[2:]  # after the two current values, the five writes
            diffs = live_events(diff, 5)[1:]
            server.kill9()
        # The writes after "shown" must not be in the file yet: the kill came before their write-back.
        shown = int(seen[0][0]) // 65536
        if journal_mark(path) == shown and "three" not in path.read_text():
            break
    else:
        raise AssertionError("the write-back ran before every kill -9: the machine is too slow for this test")
    assert [e[2][0]["title"] if e[1] == "posts" else e[2] for e in seen] == \
        ["shown", "one", "two", "three", {"name": "x", "age": 3}]

    again = serve(path)
    # The start makes the events of the entries the file did not show again, with their ids and data.
    assert events(again, "posts,profile", last_event_id=seen[0][0], count=4) == seen[1:]
    assert events(again, "posts", last_event_id=seen[0][0], count=3) == seen[1:4]
    resumed = []
    with SSEClient.of(again, "/events?topics=posts&diff=1", headers={"Last-Event-ID": diffs[0][0]}) as client:
        assert client.read_head() == 200
        resumed = live_events(client, 3)
    assert resumed == diffs[1:] and resumed[0][2]["updated"][0]["title"] == "one"
    # From the last: nothing was missed; from before the file's mark: current values, as before.
    assert events(again, "posts,profile", last_event_id=seen[-1][0]) == []
    current = events(again, "posts", last_event_id="1")
    assert [e[2][0]["title"] for e in current] == ["three"], current
    # The file shows them within a second, and the next write's event comes after them.
    wait_until(lambda: '"three"' in path.read_text() and '"age": 3' in path.read_text(), 5, message="the file")
    assert again.call("PATCH", "/posts/2", {"title": "later"})[0] == 200
    later = events(again, "posts", last_event_id=seen[-1][0], count=1)
    assert int(later[0][0]) > int(seen[-1][0]) and later[0][2][1]["title"] == "later"


def test_after_an_edit_while_stopped_a_resume_gets_current_values(data_file, serve):
    path = data_file(DB)
    again = serve(path)
    writes(again)
    with SSEClient.of(again, "/events?topics=posts") as live:
        assert live.read_head() == 200 and live.next(timeout=5).event == "posts"
        assert again.call("PATCH", "/posts/1", {"title": "four"})[0] == 200
        four = live.next(timeout=5)
    assert again.stop() == 0
    # The file is edited before the next start: the events of the entries before it no longer lead to what
    # the server serves, so a resume from the last of them gets current values, not nothing.
    edited = json.loads(path.read_text())
    edited["posts"][1]["title"] = "edited while stopped"
    path.write_text(json.dumps(edited, indent=2))
    third = serve(path)
    current = events(third, "posts", last_event_id=four.id)
    assert len(current) == 1 and current[0][2][1]["title"] == "edited while stopped", current


def test_after_kill9_with_more_changes_than_the_buffer_holds_the_newest_are_made_again(data_file, serve):
    """A file that could not be written for a while (a person's save that does not parse) misses more
    changes than the recent-events buffer holds: a start reads them a page at a time (256 entries), puts back
    the older ones at load and makes the events of the newest 1,024 again; every change is kept."""
    path = data_file(DB)
    server = serve(path)
    assert server.call("PATCH", "/posts/1", {"title": "shown"})[0] == 200
    wait_until(lambda: '"shown"' in path.read_text(), 5, message="the write-back")
    written = path.read_bytes()
    path.write_text('{"posts": [ this does not parse')
    wait_until(lambda: "cannot be loaded" in server.log(), 5, message="the broken save noticed")
    with SSEClient.of(server, "/events?topics=posts,profile&diff=1") as live:
        assert live.read_head() == 200
        live_events(live, 2)  # the current values
        for number in range(1300):
            assert server.call("POST", "/posts", {"title": f"p{number}"})[0] == 201
        assert server.call("PATCH", "/posts/1", {"title": "changed"})[0] == 200
        assert server.call("DELETE", "/posts/2")[0] == 200
        assert server.call("PATCH", "/profile", {"age": 3})[0] == 200
        seen = live_events(live, 1303)
        expected = {path_: server.call("GET", path_)[2] for path_ in ("/posts", "/profile")}
        server.kill9()
    # The person puts the file back as the server last wrote it: the newest changes are replayed.
    path.write_bytes(written)
    again = serve(path)
    wait_until(lambda: "1303 acknowledged change(s) the file did not show yet were put back" in again.log(), 5,
               message="the start's line")
    assert {path_: again.call("GET", path_)[2] for path_ in expected} == expected
    assert len(expected["/posts"]) == 1301 and expected["/posts"][0]["title"] == "changed"
    # The newest 1,024 changes were made again; the buffer keeps the newest of their events within its 16 MiB
    # (each holds a list of some 1,300 posts): a resume 300 events back gets them as the first run sent them.
    assert events(again, "posts,profile&diff=1", last_event_id=seen[-301][0], count=300) == seen[-300:]
    # From before them: current values, as an id older than the buffer gets.
    current = events(again, "posts,profile", last_event_id=seen[0][0])
    assert sorted(e[1] for e in current) == ["posts", "profile"] and len(current[0][2]) == 1301
