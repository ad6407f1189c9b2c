"""Live queries on three instances of one PostgreSQL database (docs/api.md, "Live queries"): a write
through any instance reaches the live queries of every instance, with the same event ids, and a client
resumes on another instance with the change it missed."""

from livestate import LiveClient, fresh

PATH = "/todos?completed=false&_sort=title&_limit=3"


def test_a_write_through_any_instance_reaches_every_instances_live_queries(three):
    clients = [LiveClient(server, PATH) for server in three]
    done = [LiveClient(server, "/todos?completed=true") for server in three]
    try:
        for client in clients + done:
            assert client.first().event == "result"
        a, b, c = three
        first = a.add_todo("Apricot")
        b.add_todo("Aardvark")
        assert c.call("PATCH", f"/todos/{first['id']}", {"completed": True})[0] == 200
        c.add_todo("Avocado")
        # NB: against c, which answered the last write and so has applied every one; another instance may
        # still be applying it, and its own GET would then agree with a client that is behind too.
        for client in clients + done:
            client.settle(c, note="three instances")
        assert clients[0].items == clients[1].items == clients[2].items
        assert [item["title"] for item in clients[0].items][:2] == ["Aardvark", "Avocado"]
        # One id per change, the journal's, on every instance.
        assert len({tuple(int(e.id) for e in client.events) for client in clients}) == 1, \
            [[e.id for e in client.events] for client in clients]
    finally:
        for client in clients + done:
            client.close()


def test_a_client_resumes_on_another_instance(three):
    a, b, c = three
    client = LiveClient(a, PATH)
    client.first()
    client.settle(a, note="before")
    client.close()
    b.add_todo("Aaa first now")
    resumed = LiveClient(c, PATH, last_event_id=client.last_id, items=client.items, total=client.total)
    try:
        resumed.first()
        resumed.settle(c, note="resumed on another instance")
        assert resumed.items[0]["title"] == "Aaa first now"
        assert (resumed.items, resumed.total) == fresh(c, PATH)
    finally:
        resumed.close()
