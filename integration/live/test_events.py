"""GET /events against the real binary, with a raw SSE client on loopback (docs/api.md, "Live updates")."""
import errno
import json
import os
import signal
import socket
import time

import pytest

from livestate import SSEClient, Server

CURRENT_VALUE_TOPICS = {"todos", "posts", "albums"}


def unique(prefix: str) -> str:
    return f"{prefix} {time.monotonic_ns()}"


def read_replay_then(client: SSEClient, server: Server, title: str):
    """Adds a todo titled `title` and returns (events before it, its event): what came first is the replay.

    The todo is added only once the stream's head arrived (the server has subscribed the client by then):
    added earlier, on a loaded machine the write could reach the list before the stream connected, and the
    replay's own todos event would then already hold it."""
    assert client.read_head() == 200
    server.add_todo(title)
    before = []
    while True:
        event = client.next(timeout=5)
        assert event is not None, f"no todos event for {title!r}; got {[e.event for e in before]}"
        if event.event == "todos" and any(t["title"] == title for t in event.json()):
            return before, event
        before.append(event)


def test_answers_an_open_event_stream_with_the_contract_headers(server):
    with SSEClient.of(server) as client:
        assert client.read_head() == 200
        headers = client.response_headers
        assert headers["content-type"].startswith("text/event-stream")
        assert headers["cache-control"] == "no-cache"
        assert headers["x-accel-buffering"] == "no"
        first = client.next()
        assert first is not None
        assert client.retry == 2000
        assert not client.closed


def test_replays_current_values_first_and_no_passthrough_topic(server):
    status, _, _ = server.call("POST", "/frameworks/selection", {"name": "SwiftUI"})
    assert status == 202
    with SSEClient.of(server) as client:
        replay, live = read_replay_then(client, server, unique("Replay check"))
    topics = [event.event for event in replay]
    assert CURRENT_VALUE_TOPICS <= set(topics), topics
    assert "frameworks" not in topics
    assert len(topics) == len(set(topics)), f"a topic replayed twice: {topics}"
    ids = [int(event.id) for event in replay + [live]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    todos = next(event for event in replay if event.event == "todos").json()
    assert isinstance(todos, list) and all({"id", "title", "completed"} <= set(t) for t in todos)
    assert len(next(event for event in replay if event.event == "posts").json()) == 100
    assert len(next(event for event in replay if event.event == "albums").json()) == 5000


def test_every_todo_change_reaches_every_client_with_growing_ids(server):
    with SSEClient.of(server, "/events?topics=todos") as a, SSEClient.of(server, "/events?topics=todos") as b:
        for client in (a, b):
            client.until(lambda e: e.event == "todos")
        title = unique("Water the plants")
        todo = server.add_todo(title)
        server.call("PATCH", f"/todos/{todo['id']}", {"completed": True})
        server.call("DELETE", f"/todos/{todo['id']}")
        for client in (a, b):
            added = client.until(lambda e: any(t["title"] == title for t in e.json()))
            done = client.next()
            gone = client.next()
            assert [t["completed"] for t in done.json() if t["id"] == todo["id"]] == [True]
            assert all(t["id"] != todo["id"] for t in gone.json())
            assert int(added.id) < int(done.id) < int(gone.id)


def test_topics_selects_what_is_sent(server):
    with SSEClient.of(server, "/events?topics=posts,todos") as client:
        replay, _ = read_replay_then(client, server, unique("Topic check"))
    assert {event.event for event in replay} == {"posts", "todos"}


@pytest.mark.parametrize("query", ["topics=todos,nope", "topics=", "topics=Todos"])
def test_unknown_topic_is_a_400_naming_it(server, query):
    status, headers, body = server.call("GET", f"/events?{query}")
    assert status == 400
    assert body["error"] and "topic" in body["message"]


def test_frameworks_selection_is_sent_live_but_not_replayed(server):
    with SSEClient.of(server, "/events?topics=frameworks,todos") as client:
        client.until(lambda e: e.event == "todos")
        status, _, _ = server.call("POST", "/frameworks/selection", {"name": "Combine"})
        assert status == 202
        event = client.until(lambda e: e.event == "frameworks")
        selected = event.json()["selected"]
        assert selected["name"] == "Combine" and selected["urlString"].startswith("https://")
    with SSEClient.of(server, "/events?topics=frameworks,todos") as later:
        replay, _ = read_replay_then(later, server, unique("After selection"))
    assert [event.event for event in replay] == ["todos"]


def test_resume_sends_exactly_the_missed_events_in_order(server):
    with SSEClient.of(server, "/events?topics=todos") as client:
        seen = client.until(lambda e: e.event == "todos")
    titles = [unique(f"Missed {n}") for n in range(3)]
    for title in titles:
        server.add_todo(title)
    with SSEClient.of(server, "/events?topics=todos", headers={"Last-Event-ID": seen.id}) as client:
        missed = [client.next() for _ in titles]
        assert all(event is not None and event.event == "todos" for event in missed)
        for count, event in enumerate(missed, start=1):
            present = {t["title"] for t in event.json()}
            assert set(titles[:count]) <= present and not set(titles[count:]) & present
        ids = [int(event.id) for event in missed]
        assert ids == sorted(ids) and ids[0] > int(seen.id)
        # Nothing more: the next event is the next change, not a duplicate or a replay.
        after = unique("After resume")
        server.add_todo(after)
        following = client.next()
        assert any(t["title"] == after for t in following.json())
        assert int(following.id) > ids[-1]


def test_resume_from_an_unknown_id_sends_current_values(server):
    with SSEClient.of(server, headers={"Last-Event-ID": "1"}) as client:
        replay, _ = read_replay_then(client, server, unique("Old id"))
    assert CURRENT_VALUE_TOPICS <= {event.event for event in replay}


def test_resume_from_an_id_older_than_the_buffer_sends_current_values(fresh_server):
    server = fresh_server("--heartbeat", "60")
    with SSEClient.of(server, "/events?topics=todos") as client:
        oldest = client.until(lambda e: e.event == "todos")
    # 1030 events push the remembered one out of the 1024-event buffer.
    for n in range(1030):
        server.call("POST", "/frameworks/selection", {"name": "SwiftUI"})
    with SSEClient.of(server, "/events?topics=todos,frameworks", headers={"Last-Event-ID": oldest.id}) as client:
        replay, _ = read_replay_then(client, server, unique("Too old"))
    assert [event.event for event in replay] == ["todos"]


def test_ids_continue_across_a_restart(fresh_server, tmp_path):
    data = str(tmp_path / "ids.sqlite")
    first = fresh_server("--heartbeat", "60", data=data)
    with SSEClient.of(first, "/events?topics=todos") as client:
        server_id = int(client.until(lambda e: e.event == "todos").id)
        first.add_todo(unique("Before restart"))
        last = int(client.next().id)
    assert first.stop() == 0
    second = fresh_server("--heartbeat", "60", data=data)
    with SSEClient.of(second, "/events?topics=todos") as client:
        snapshot = int(client.until(lambda e: e.event == "todos").id)
        second.add_todo(unique("After restart"))
        after = int(client.next().id)
    # The SQLite journal keeps the id of the change that made the list: after the restart the list is
    # that same event (so a client holding it misses nothing), and the next change's id is above every
    # id of the previous run.
    assert snapshot == last > server_id
    assert after > last


def test_heartbeat_comment_arrives_every_heartbeat_seconds(fresh_server):
    server = fresh_server("--heartbeat", "1")
    with SSEClient.of(server, "/events?topics=frameworks") as client:
        start = time.monotonic()
        beats = []
        while len(beats) < 2:
            event = client.next(timeout=3, comments=True)
            assert event is not None, "no keep-alive within 3 s"
            if event.comment is not None:
                beats.append(time.monotonic() - start)
        assert client.comments[:2] == ["keep-alive", "keep-alive"]
        assert beats[1] < 3.5


def test_a_reader_that_never_reads_is_cut_off_and_the_others_get_everything(fresh_server):
    server = fresh_server("--heartbeat", "60")
    slow = SSEClient.of(server, "/events?topics=todos", rcvbuf=4096)
    fast = SSEClient.of(server, "/events?topics=todos")
    try:
        slow.read_head()
        fast.until(lambda e: e.event == "todos")
        # Each todos event carries the whole list: with 400-character titles, 250 additions make about
        # 13 MB of output, far past the 1 MiB cap plus the socket buffers.
        count = 250
        received = []
        for n in range(1, count + 1):
            server.add_todo(f"{n:04d} " + "x" * 395)
            while (event := fast.next(timeout=0)) is not None:
                received.append(event)
        while len(received) < count:
            event = fast.next(timeout=5)
            assert event is not None, (
                f"fast reader got {len(received)} of {count} events; its stream "
                + ("was ended by the server" if fast.closed else "is open but silent for 5 s"))
            received.append(event)
        lengths = [len(event.json()) for event in received]
        assert lengths == sorted(lengths) and len(set(lengths)) == count, "the reading client missed an event"
        # Cut off at once, while it still reads nothing: the server resets the connection and drops what
        # it had not sent, so no memory stays held for a reader that stopped.
        assert reset_by_server(slow.sock, timeout=15), "the client that never reads was not cut off"
        slow.wait_closed(timeout=5)
        slow_events = [e for e in slow.pending_events() if e.event == "todos"]
        assert len(slow_events) < count, len(slow_events)
        assert not fast.closed
    finally:
        slow.close()
        fast.close()


def test_diff_sends_changes_after_a_whole_list(server):
    with SSEClient.of(server, "/events?topics=todos&diff=1") as client:
        snapshot = client.until(lambda e: e.event == "todos").json()
        assert isinstance(snapshot, list)
        todo = server.add_todo(unique("Diffed"))
        inserted = client.next().json()
        assert inserted == {"inserted": [todo], "updated": [], "deleted": []}
        server.call("PATCH", f"/todos/{todo['id']}", {"completed": True})
        assert client.next().json() == {"inserted": [], "updated": [dict(todo, completed=True)], "deleted": []}
        server.call("DELETE", f"/todos/{todo['id']}")
        assert client.next().json() == {"inserted": [], "updated": [], "deleted": [todo["id"]]}


def test_movies_search_result_arrives_after_the_debounce_and_is_replayed(server):
    with SSEClient.of(server, "/events?topics=movies") as client:
        for keyword in ["T", "Th", "The"]:
            status, _, _ = server.call("PUT", "/movies/keyword", {"keyword": keyword})
            assert status in (200, 202, 204)
        sent = time.monotonic()
        event = client.until(lambda e: e.event == "movies", timeout=5)
        assert time.monotonic() - sent >= 0.3
        result = event.json()
        assert result["expression"] == "The" and result["searchType"] == "Movie"
        assert client.next(timeout=1) is None, "one search for keywords typed inside the debounce"
    with SSEClient.of(server, "/events?topics=movies") as later:
        assert later.next().json()["expression"] == "The"


def test_album_selection_emits_the_image(server):
    with SSEClient.of(server, "/events?topics=image,todos") as client:
        client.until(lambda e: e.event == "todos")
        status, _, _ = server.call("POST", "/albums/selection", {"id": 3})
        assert status == 202
        image = client.until(lambda e: e.event == "image", timeout=10).json()
        assert set(image) == {"url", "contentType", "bytes"}
        assert image["contentType"].startswith("image/") and image["bytes"] > 0
    status, headers, body = server.call("GET", "/albums/selection/image")
    assert status == 200 and len(body) == image["bytes"]


def test_shutdown_ends_every_stream_and_exits_cleanly(fresh_server):
    server = fresh_server("--heartbeat", "60")
    clients = [SSEClient.of(server, "/events?topics=todos") for _ in range(3)]
    try:
        for client in clients:
            client.until(lambda e: e.event == "todos")
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        for client in clients:
            assert client.wait_closed(timeout=3), "a stream stayed open after SIGTERM"
        assert server.proc.wait(timeout=3) == 0
        assert time.monotonic() - started < 2.5
    finally:
        for client in clients:
            client.close()


def test_every_thread_leaves_sigint_and_sigterm_to_the_shutdown(fresh_server):
    """Every thread blocks SIGINT and SIGTERM, so that the shutdown's signal source (a signalfd) takes them: a
    thread that did not block them could be handed SIGTERM and drop it (they are SIG_IGN), and the server
    would go on running (it did, about once in 30 starts under load)."""
    server = fresh_server()
    assert server.call("POST", "/todos", {"title": "wakes the workers"})[0] == 201
    assert server.call("GET", "/placeholder/200/336699")[0] == 200
    tasks = os.listdir(f"/proc/{server.proc.pid}/task")
    assert len(tasks) > 3
    wanted = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    for task in tasks:
        with open(f"/proc/{server.proc.pid}/task/{task}/status") as status:
            fields = dict(line.split(":", 1) for line in status.read().splitlines() if ":" in line)
        blocked = int(fields["SigBlk"].strip(), 16)
        assert blocked & wanted == wanted, f"thread {task} ({fields['Name'].strip()}) takes SIGINT or SIGTERM"
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=3) == 0


def reset_by_server(sock, timeout: float) -> bool:
    """True once the peer has reset `sock` (SO_ERROR turns ECONNRESET), without reading from it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNRESET:
            return True
        time.sleep(0.05)
    return False
