"""Resume on a PostgreSQL instance that started after the client's last event (docs/api.md, "Resume
survives a restart"): every instance killed with `kill -9` and started again, a client resumes on one of
them with an id from before and gets exactly the events it missed, with the ids the first run gave."""

from conftest import events_until
from livestate import Server, SSEClient


def test_a_client_resumes_on_a_restarted_instance_with_the_events_of_the_first_run(three, binary, cluster):
    a, b, c = three
    watcher = SSEClient.of(a, "/events?topics=todos")
    assert watcher.read_head() == 200
    events_until(watcher, lambda events: len(events) >= 1, topic="todos")
    client = SSEClient.of(b, "/events?topics=todos")
    assert client.read_head() == 200
    b.add_todo("seen before the restart")
    last = events_until(
        client, lambda es: bool(es) and any(t["title"] == "seen before the restart" for t in es[-1].json()),
        topic="todos")[-1]
    client.close()
    # Writes of every kind, round robin: inserts, a PATCH, a PUT, a DELETE.
    first = a.add_todo("missed 1")
    second = b.add_todo("missed 2")
    c.add_todo("missed 3")
    assert a.call("PATCH", f"/todos/{first['id']}", {"completed": True})[0] == 200
    assert b.call("PUT", f"/todos/{second['id']}", {"title": "missed 2, renamed", "completed": False})[0] == 200
    assert c.call("DELETE", f"/todos/{first['id']}")[0] in (200, 204)
    missed = 6
    expected = [e for e in events_until(
        watcher, lambda es: len([e for e in es if int(e.id) > int(last.id)]) >= missed, topic="todos")
        if int(e.id) > int(last.id)]
    watcher.close()
    for server in three:
        server.kill9()
    restarted = [Server(binary=binary, data=cluster.uri).start() for _ in range(3)]
    try:
        resumed = SSEClient.of(restarted[2], "/events?topics=todos", headers={"Last-Event-ID": last.id})
        assert resumed.read_head() == 200
        got = events_until(resumed, lambda es: len(es) >= missed, topic="todos")
        got += [e for e in resumed.drain(quiet=0.5) if e.event == "todos"]
        resumed.close()
        assert [e.id for e in got] == [e.id for e in expected]
        assert [e.json() for e in got] == [e.json() for e in expected]
    finally:
        for server in restarted:
            server.stop()
