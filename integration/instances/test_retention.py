"""An instance away longer than the journal's retention reloads the whole list (docs/architecture-instances.md,
"Faults"): it never applies the entries that are left after a gap as if nothing were missing.

Retention is made small with the operator option `--journal-retention`; the retention job runs 5 s after
an instance starts and then every minute, so a third instance started after the writes prunes them.
"""

import os
import signal

from conftest import events_until, psql
from livestate import Server, SSEClient, wait_until

RETENTION = ("--journal-retention", "10")


def listed(server):
    status, _, body = server.call("GET", "/todos")
    assert status == 200
    return body


def test_an_instance_stopped_past_retention_reloads_the_whole_list_and_its_clients_get_it(cluster, binary):
    a = Server(*RETENTION, binary=binary, data=cluster.uri).start()
    b = Server(*RETENTION, binary=binary, data=cluster.uri).start()
    servers = [a, b]
    try:
        on_a = SSEClient.of(a, "/events?topics=todos")
        on_b = SSEClient.of(b, "/events?topics=todos")
        assert on_a.read_head() == 200 and on_b.read_head() == 200
        first = a.add_todo("before the stop")
        has_first = lambda events: bool(events) and any(t["title"] == first["title"] for t in events[-1].json())  # noqa: E731
        before = events_until(on_b, has_first, topic="todos")[-1]
        os.kill(b.proc.pid, signal.SIGSTOP)
        try:
            # Far past retention, with deletes and updates in the gap: skipping it would leave B wrong.
            for n in range(30):
                a.add_todo(f"during the stop {n:02d}")
            assert a.call("DELETE", f"/todos/{first['id']}")[0] == 204
            assert a.call("DELETE", "/todos/1")[0] == 204
            assert a.call("PATCH", f"/todos/{first['id'] + 1}", {"completed": True})[0] == 200
            expected = listed(a)
            last_on_a = events_until(on_a, lambda events: bool(events) and events[-1].json() == expected,
                                     topic="todos")[-1]
            servers.append(Server(*RETENTION, binary=binary, data=cluster.uri).start())
            position = int(before.id) // 65536
            pruned = "SELECT coalesce(max(below), 0) FROM livestate_doc_pruned"
            wait_until(lambda: int(psql(cluster.uri, pruned)) > position + 1,
                       30, interval=0.2, message="retention deleted the entries B missed")
        finally:
            os.kill(b.proc.pid, signal.SIGCONT)
        wait_until(lambda: listed(b) == expected, 20, interval=0.1, message="B has A's list")
        assert "deleted by retention before this server applied them" in b.log()
        # B's client gets the whole list once, with A's id for it: no partial list, no skipped gap.
        after = events_until(on_b, lambda events: bool(events), topic="todos")
        assert [e.json() for e in after] == [expected]
        assert after[0].id == last_on_a.id
        assert on_b.drain(0.5) == []
        # A client that resumes on B from before the stop gets that list as well.
        with SSEClient.of(b, "/events?topics=todos", headers={"Last-Event-ID": before.id}) as resumed:
            assert resumed.read_head() == 200
            assert events_until(resumed, lambda events: bool(events), topic="todos")[0].json() == expected
        on_a.close()
        on_b.close()
    finally:
        for server in servers:
            if server.alive():
                try:
                    os.kill(server.proc.pid, signal.SIGCONT)
                except OSError:
                    pass
                server.stop()
