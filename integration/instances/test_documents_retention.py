"""A data file on PostgreSQL keeps its journal bounded, and an instance away longer than that catches up
(docs/own-data.md, "Several instances"): retention deletes all but the newest `--journal-retention`
entries (5 s after an instance starts, then every minute), and an instance that missed deleted entries takes
the items as the database holds them instead of applying what is left after the gap.
"""

import os
import signal

from conftest import events_until, psql
from livestate import Server, SSEClient, wait_until

RETENTION = ("--journal-retention", "10")
DB_TEXT = '{"posts": [{"id": 1, "title": "first"}, {"id": 2, "title": "second"}], "profile": {"name": "a"}}\n'


def posts(server):
    status, _, body = server.call("GET", "/posts")
    assert status == 200
    return body


def test_an_instance_stopped_past_retention_takes_the_items_as_they_are(cluster, binary, tmp_path):
    path = tmp_path / "db.json"
    path.write_text(DB_TEXT)
    start = lambda: Server(*RETENTION, str(path), binary=binary, data=cluster.uri, public=None).start()  # noqa: E731
    a, b = start(), start()
    servers = [a, b]
    try:
        on_b = SSEClient.of(b, "/events?topics=posts")
        assert on_b.read_head() == 200
        events_until(on_b, lambda events: bool(events), topic="posts")
        os.kill(b.proc.pid, signal.SIGSTOP)
        try:
            # Far past retention, with a delete, an update and a singular change in the gap.
            for n in range(30):
                assert a.call("POST", "/posts", {"title": f"during the stop {n:02d}"})[0] == 201
            assert a.call("DELETE", "/posts/1")[0] == 200
            assert a.call("PATCH", "/posts/2", {"title": "second, renamed"})[0] == 200
            assert a.call("PUT", "/profile", {"name": "b"})[0] == 200
            expected = posts(a)
            servers.append(start())  # its retention runs 5 s after its start
            wait_until(lambda: int(psql(cluster.uri, "SELECT coalesce(max(below), 0) FROM livestate_doc_pruned")) > 10,
                       30, interval=0.2, message="retention deleted the entries B missed")
            # Bounded: the newest 10 entries are left (and the start markers after them).
            assert int(psql(cluster.uri, "SELECT count(*) FROM livestate_entries")) <= 12
        finally:
            os.kill(b.proc.pid, signal.SIGCONT)
        wait_until(lambda: posts(b) == expected, 20, interval=0.1, message="B has A's posts")
        assert b.call("GET", "/profile")[2] == {"name": "b"}
        # NB: waited for: the log is read from the process's pipe by a thread of the test.
        wait_until(lambda: "deleted by retention before this server applied them" in b.log(), 5, interval=0.1,
                   message="B said why it took the items")
        # B's client saw the gap closed: its last list is A's.
        wait_until(lambda: any(e.json() == expected for e in on_b.drain(0.3)), 10, interval=0.1,
                   message="B's client got A's list")
        # B writes again, and A sees it: B follows the journal from where it caught up.
        status, _, created = b.call("POST", "/posts", {"title": "after the catch-up"})
        assert status == 201
        wait_until(lambda: created in posts(a), 10, interval=0.1, message="A has B's new post")
        ids = [post["id"] for post in posts(a)]
        assert len(ids) == len(set(ids)), f"an id given twice: {ids}"
    finally:
        for server in servers:
            if server.alive():
                server.kill9()
