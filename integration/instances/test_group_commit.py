"""Group commit: todo writes that reach one instance together share one PostgreSQL commit, and each keeps
its own answer (docs/architecture-instances.md, "Group commit")."""

import re
import signal
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

from conftest import WRITER_LOCK, events_until
from livestate import SSEClient, wait_until

WRITES = 120


def sql(cluster, query):
    """One row of `query` on the cluster, as strings (psql, unaligned)."""
    out = subprocess.run(["psql", cluster.uri, "-XAtc", query], capture_output=True, text=True, check=True)
    return out.stdout.strip().split("|")


def test_concurrent_writes_share_commits_and_a_bad_one_fails_alone(three, cluster):
    a, b, c = three
    clients = [SSEClientOn(server) for server in three]
    titles = [f"group commit {n:03d}" for n in range(WRITES)]
    start = threading.Barrier(WRITES)

    def send(n):
        start.wait(timeout=20)
        # Among the good writes: a title the rule refuses (422, before the database), a rename and a
        # delete of a todo that does not exist (404, inside the batch), and a key sent twice.
        if n % 40 == 7:
            return "refused", a.call("POST", "/todos", {"title": "ab"})[0]
        if n % 40 == 17:
            return "missing", a.call("PATCH", "/todos/999999999", {"title": "nobody's"})[0]
        if n % 40 == 27:
            return "missing", a.call("DELETE", "/todos/999999998")[0]
        title = "group commit twice" if n % 40 == 37 else titles[n]
        key = {"Idempotency-Key": title.replace(" ", "-")}
        status, _, body = a.call("POST", "/todos", {"title": title}, headers=key)
        return title, status, body

    before = int(sql(cluster, "SELECT count(*) FROM livestate_entries")[0])
    # A slow commit, as on a busy disk: another session holds the journal's writer lock for 2 s, so the first
    # batch waits and every write that arrives meanwhile queues for the next ones.
    holder = subprocess.Popen(
        ["psql", cluster.uri, "-XAtc", f"SELECT pg_advisory_lock({WRITER_LOCK}); SELECT pg_sleep(2)"],
        stdout=subprocess.DEVNULL)
    wait_until(lambda: sql(cluster, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(2)'"
                           " AND pid <> pg_backend_pid()")[0] == "1", 10, message="the lock holder")
    with ThreadPoolExecutor(WRITES) as pool:
        answers = list(pool.map(send, range(WRITES)))
    assert holder.wait(10) == 0
    assert [s for kind, s in (x[:2] for x in answers) if kind == "refused"] == [422] * 3
    assert [s for kind, s in (x[:2] for x in answers) if kind == "missing"] == [404] * 6
    written = [x for x in answers if x[0] not in ("refused", "missing")]
    assert all(status == 201 for _, status, _ in written), [s for _, s, _ in written]
    twice = [body for title, _, body in written if title == "group commit twice"]
    assert len(twice) == 3 and twice[0] == twice[1] == twice[2], "a key sent again gets the first answer"
    expected = sorted({title for title, _, _ in written})

    # Fewer commits than writes: the rows committed together share their transaction's start time.
    rows, commits = map(int, sql(
        cluster,
        "SELECT count(*), count(DISTINCT committed_at) FROM livestate_entries "
        "WHERE body LIKE '%group commit %'"))
    assert rows == len(expected) == int(sql(cluster, "SELECT count(*) FROM livestate_entries")[0]) - before
    print(f"{rows} writes in {commits} commits")
    assert commits <= 12, f"{rows} writes in {commits} commits"

    # Every acknowledged write exactly once, on every instance, in one order with the same ids.
    streams = [client.until_all(expected) for client in clients]
    for client in clients:
        client.close()
    assert [e.id for e in streams[0]] == [e.id for e in streams[1]] == [e.id for e in streams[2]]
    assert [e.data for e in streams[0]] == [e.data for e in streams[1]] == [e.data for e in streams[2]]
    for server in three:
        _, _, listed = server.call("GET", "/todos")
        mine = sorted(t["title"] for t in listed if t["title"].startswith("group commit"))
        assert mine == expected, f"{server.base}: {len(mine)} of {len(expected)}"

    # At a clean stop, A says how many todo writes it committed, in how many commits.
    a.proc.send_signal(signal.SIGTERM)
    a.proc.wait(10)
    said = re.search(r"postgres: (\d+) todo writes in (\d+) commits \(largest batch (\d+)\)", a.log())
    assert said, a.log()[-2000:]
    writes, shared, largest = map(int, said.groups())
    assert (writes, shared) == (rows, commits) and largest >= rows / commits, said.group(0)


class SSEClientOn:
    """An `/events?topics=todos` stream on a server, read until every title is listed."""

    def __init__(self, server):
        self.client = SSEClient.of(server, "/events?topics=todos")
        assert self.client.read_head() == 200

    def until_all(self, expected):
        def done(events):
            return bool(events) and set(expected) <= {t["title"] for t in events[-1].json()}

        return events_until(self.client, done, timeout=30, topic="todos")

    def close(self):
        self.client.close()
