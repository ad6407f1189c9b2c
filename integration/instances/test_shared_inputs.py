"""Every input of the view models, not only todo writes, is one change for every instance
(docs/api.md, "Several instances"; docs/architecture-instances.md): selections, the movie keyword and
refreshes through one instance reach the clients of all three with the same ids, the album image is
the same bytes everywhere, and a client that is ahead of a lagging instance is held until it caught up.
"""

import os
import re
import signal
import time

from conftest import events_until
from livestate import SSEClient, wait_until

TOPICS = "/events?topics=frameworks,movies,image,posts"


def test_selections_keyword_and_refresh_through_one_instance_reach_all_with_identical_ids(three):
    a, b, c = three
    clients = [SSEClient.of(server, TOPICS) for server in three]
    for client in clients:
        assert client.read_head() == 200
        client.drain(quiet=0.5)  # the current values of this instance (its own start)
    assert a.call("POST", "/frameworks/selection", {"name": "Combine"})[0] == 202
    assert b.call("PUT", "/movies/keyword", {"keyword": "godfather"})[0] == 202
    assert c.call("POST", "/albums/selection", {"id": 1})[0] == 202
    assert a.call("POST", "/posts/refresh")[0] == 200
    kinds = {"frameworks", "movies", "image", "posts"}
    streams = [events_until(client, lambda es: kinds <= {e.event for e in es}) for client in clients]
    for client, stream in zip(clients, streams):
        stream += client.drain(quiet=0.5)
        client.close()
    seen = [[(e.id, e.event, e.data) for e in stream] for stream in streams]
    assert seen[0] == seen[1] == seen[2]
    assert [e.event for e in streams[0]].count("frameworks") == 1
    selected = next(e for e in streams[0] if e.event == "frameworks").json()
    assert selected["selected"]["name"] == "Combine"
    movies = next(e for e in streams[0] if e.event == "movies").json()
    assert movies["expression"] == "godfather" and movies["results"]
    # The image was downloaded once (by C) and every instance serves the same bytes and selection.
    images = [server.request("GET", "/albums/selection/image") for server in three]
    assert all(r.status == 200 for r in images)
    assert images[0].body == images[1].body == images[2].body and len(images[0].body) > 0
    selections = [server.call("GET", "/albums/selection")[2] for server in three]
    assert selections[0] == selections[1] == selections[2]


def test_a_refused_selection_changes_nothing_anywhere(three):
    a, b, c = three
    client = SSEClient.of(b, TOPICS)
    assert client.read_head() == 200
    client.drain(quiet=0.5)
    assert a.call("POST", "/frameworks/selection", {"name": "NoSuchKit"})[0] == 404
    assert a.call("POST", "/albums/selection", {"url": "ftp://example.com/x.png"})[0] == 422
    assert client.drain(quiet=1.0) == []
    client.close()
    assert c.call("GET", "/albums/selection")[0] == 404


def held_counts(server):
    """The catch-up queries `server` sent only because held clients asked (its log's figure)."""
    return [int(n) for n in re.findall(r"(\d+) for held clients", server.log())]


def test_clients_ahead_of_a_lagging_instance_are_held_then_a_storm_costs_no_query(three):
    a, b, _ = three
    watcher = SSEClient.of(a, "/events?topics=todos")
    assert watcher.read_head() == 200
    events_until(watcher, lambda es: any(e.event == "todos" for e in es))
    os.kill(b.proc.pid, signal.SIGSTOP)
    try:
        for n in range(5):
            a.add_todo(f"while B lags {n}")
        last = events_until(watcher, lambda es: any("while B lags 4" in e.data for e in es))[-1]
        # Twenty clients come to B with the id they saw on A, while B has not applied it.
        held = [SSEClient.of(b, "/events?topics=todos", headers={"Last-Event-ID": last.id}) for _ in range(20)]
    finally:
        os.kill(b.proc.pid, signal.SIGCONT)
    for client in held:
        assert client.read_head(timeout=10) == 200
    a.add_todo("after B caught up")
    for client in held:
        got = [e for e in events_until(client, lambda es: any("after B caught up" in e.data for e in es))
               if e.event == "todos"]
        # Never the older list B held when they came: only the event after theirs.
        assert [int(e.id) > int(last.id) for e in got] == [True] * len(got)
        titles = [t["title"] for t in got[0].json()]
        assert "while B lags 4" in titles and "after B caught up" in titles
    # B logs each catch-up a held client started (none when its own wake-up won the race after SIGCONT).
    # Held clients share a catch-up: one queued serves every client that comes before it starts, so 20
    # clients cost a few queries at most, never one each.
    time.sleep(0.2)
    before = max(held_counts(b) or [0])
    assert before <= 3, held_counts(b)
    resume_at = events_until(watcher, lambda es: any("after B caught up" in e.data for e in es))[-1]
    for client in held:
        client.close()
    missed = [f"storm {n}" for n in range(3)]
    for title in missed:
        a.add_todo(title)
    expected = events_until(watcher, lambda es: any("storm 2" in e.data for e in es))[-3:]
    wait_until(lambda: "storm 2" in str(b.call("GET", "/todos")[2]), 10, message="B applied the writes")
    # The storm: every client of B reconnects at once with an id B holds in memory.
    storm = [SSEClient.of(b, "/events?topics=todos", headers={"Last-Event-ID": resume_at.id}) for _ in range(30)]
    for client in storm:
        assert client.read_head() == 200
        got = events_until(client, lambda es: len([e for e in es if e.event == "todos"]) >= 3)
        got += client.drain(quiet=0.2)
        assert [(e.id, e.data) for e in got if e.event == "todos"] == [(e.id, e.data) for e in expected]
        client.close()
    watcher.close()
    assert max(held_counts(b) or [0]) == before, "a resume from memory sent a catch-up query"
