"""A data file's resources on PostgreSQL, three instances (`livestate --data postgresql://… db.json`).

The file fills an empty database once; from then on the database is the truth for every instance, with
every rule of "Several instances" (docs/own-data.md). Each test gets a fresh cluster.
"""

import hashlib
import json
import os
import signal
import threading
import time

import pytest
from conftest import events_until
from livestate import Server, SSEClient, wait_until
from pgproxy import PATTERN, PostgresProxy

TOPICS = {"posts", "comments", "profile"}
# The file's own bytes: the items keep this member order (title before id) in every answer.
DB_TEXT = (
    '{\n  "posts": [\n    {"title": "json-server", "id": 1, "views": 1.5},\n'
    '    {"id": 2, "title": "typicode", "views": 2}\n  ],\n'
    '  "comments": [{"id": 1, "body": "some comment", "postId": 1}],\n'
    '  "profile": {"name": "typicode"}\n}\n'
)


@pytest.fixture()
def db_file(tmp_path):
    path = tmp_path / "db.json"
    path.write_text(DB_TEXT)
    return path


@pytest.fixture()
def start(cluster, binary):
    """Starts instances on `cluster` serving a data file (all at once when given several); kills them at the end."""
    servers = []
    # NB: an instance dies with the thread that started it (PR_SET_PDEATHSIG): the starting threads live
    # until the test ends.
    finished = threading.Event()

    def launch(path, count=1):
        started = [Server(str(path), binary=binary, data=cluster.uri, public=None) for _ in range(count)]
        servers.extend(started)
        ready = threading.Barrier(count + 1)

        def run(server):
            try:
                server.start()
            finally:
                ready.wait()
            finished.wait()

        for server in started:
            threading.Thread(target=run, args=(server,), daemon=True).start()
        ready.wait()
        for server in started:
            assert server.port, f"an instance did not start; log:\n{server.log()}"
        return started

    yield launch
    for server in servers:
        if server.alive():
            server.kill9()
    finished.set()


def get(server, path):
    status, _, body = server.call("GET", path)
    assert status == 200, (path, status, body)
    return body


def raw(server, path):
    response = server.request("GET", path)
    assert response.status == 200
    return response.body


def doc_events(client, count, timeout=20):
    """The next `count` resource events of `client` as (topic, id, data)."""
    events = events_until(client, lambda seen: len(seen) >= count, timeout, topic=None)
    return [(e.event, e.id, e.data) for e in events if e.event in TOPICS]


def test_three_instances_started_at_once_seed_the_database_once(start, db_file):
    servers = start(db_file, count=3)
    # NB: the log is written in batches (every 50 ms): wait until each start's line is there.
    for server in servers:
        wait_until(lambda: "the database is the truth" in server.log(), 5, message="the start's line")
    seeded = [s for s in servers if "seeded the database" in s.log()]
    assert len(seeded) == 1, [s.log() for s in servers]
    for server in servers:
        assert "the database is the truth, the file is not written back" in server.log()
        assert get(server, "/db") == json.loads(DB_TEXT)
        # Byte-exact: the member order the file wrote (jsonb would have put "id" first).
        assert b'{"title":"json-server","id":1,"views":1.5}' in raw(server, "/posts")
        assert len(get(server, "/posts")) == 2
    assert "504 storage_outcome_unknown" in get(servers[0], "/openapi.json")["info"]["description"]


def test_writes_through_one_instance_reach_the_others_with_the_same_events(start, db_file):
    a, b, c = start(db_file, count=3)
    streams = [SSEClient(s.host, s.port, "/events") for s in (a, b, c)]
    try:
        for stream in streams:
            assert stream.read_head() == 200
        # Replayed on connect: each stream's current state, then the writes.
        for stream in streams:
            stream.drain(quiet=0.5)
        status, _, created = a.call("POST", "/posts", {"title": "new", "views": 3})
        assert status == 201 and created["id"] == 3
        assert a.call("PUT", "/posts/3", {"title": "put", "views": 4})[0] == 200
        assert b.call("PATCH", "/posts/3", {"views": 5})[0] == 200
        assert c.call("PATCH", "/profile", {"age": 7})[0] == 200
        assert a.call("DELETE", "/posts/1")[0] == 200  # also deletes comment 1 (postId 1)
        seen = [doc_events(stream, 6) for stream in streams]
        assert seen[0] == seen[1] == seen[2], seen
        ids = [int(event_id) for _, event_id, _ in seen[0]]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        # Resume on another instance than the one whose events the client saw: exactly the events after.
        with SSEClient(b.host, b.port, "/events", headers={"Last-Event-ID": seen[0][2][1]}) as resumed:
            assert resumed.read_head() == 200
            assert doc_events(resumed, 3) == seen[0][3:]
        # A POST on another instance right after a write answered here: the stream here resumes after it.
        status, _, _ = a.call("POST", "/posts", {"title": "latest"})
        assert status == 201
        latest = doc_events(streams[0], 1)
        with SSEClient(c.host, c.port, "/events", headers={"Last-Event-ID": latest[0][1]}) as resumed:
            assert resumed.read_head() == 200
            assert c.call("POST", "/posts", {"title": "after latest"})[0] == 201
            (after,) = doc_events(resumed, 1)
            assert int(after[1]) > int(latest[0][1]) and "after latest" in after[2]
        for server in (a, b, c):
            wait_until(lambda: [p["title"] for p in get(server, "/posts")] == ["typicode", "put", "latest", "after latest"],
                       10, message="posts")
            assert get(server, "/posts/3") == {"title": "put", "views": 5, "id": 3}
            assert get(server, "/comments") == []
            assert get(server, "/profile") == {"name": "typicode", "age": 7}
    finally:
        for stream in streams:
            stream.close()


def test_concurrent_posts_on_three_instances_lose_nothing_and_share_no_id(start, db_file):
    servers = start(db_file, count=3)
    clients, writes = 4, 15
    answers = []
    lock = threading.Lock()

    def client(server, number):
        for index in range(writes):
            status, _, body = server.call("POST", "/posts", {"title": f"c{number}-{index}"})
            with lock:
                answers.append((status, body))

    threads = [threading.Thread(target=client, args=(servers[n % 3], n)) for n in range(3 * clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [status for status, _ in answers] == [201] * (3 * clients * writes)
    ids = [body["id"] for _, body in answers]
    assert len(set(ids)) == len(ids)
    expected = {body["id"]: body for _, body in answers}
    for server in servers:
        wait_until(lambda: len(get(server, "/posts")) == 2 + len(ids), 10, message="every post everywhere")
        listed = {post["id"]: post for post in get(server, "/posts")}
        assert all(listed[i] == body for i, body in expected.items())


def test_concurrent_patches_of_one_item_on_three_instances_lose_no_field(start, db_file):
    servers = start(db_file, count=3)
    fields = 20

    def patcher(number):
        server = servers[number % 3]
        for index in range(fields):
            assert server.call("PATCH", "/posts/2", {f"f{number}-{index}": index})[0] == 200

    threads = [threading.Thread(target=patcher, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each PATCH merged into the item as the database had it: no instance's field was lost to another's.
    expected = {f"f{n}-{i}" for n in range(6) for i in range(fields)} | {"id", "title", "views"}
    for server in servers:
        wait_until(lambda: set(get(server, "/posts/2")) == expected, 10, message="every field on every instance")


def test_an_acknowledged_post_survives_kill_9(start, db_file):
    a, b = start(db_file, count=2)
    status, _, created = a.call("POST", "/posts", {"title": "kept"})
    assert status == 201
    a.kill9()
    wait_until(lambda: any(p["title"] == "kept" for p in get(b, "/posts")), 10, message="the post on b")
    (restarted,) = start(db_file)
    assert get(restarted, f"/posts/{created['id']}") == created


@pytest.mark.parametrize("query", ["", "?diff=1"])
def test_a_client_resumes_on_a_restarted_instance_with_the_events_of_the_first_run(start, db_file, query):
    """Every instance killed with `kill -9` and started again: a client resumes on one of them with an id from
    before and gets exactly the events it missed, the ids and data the first run gave them (each entry keeps
    its item before it, so a start takes the items back and sends the newest entries through again)."""
    a, b = start(db_file, count=2)
    watcher = SSEClient.of(a, "/events" + query)
    assert watcher.read_head() == 200
    watcher.drain(quiet=0.5)
    assert b.call("POST", "/posts", {"title": "seen before the restart"})[0] == 201
    (seen,) = doc_events(watcher, 1)
    # Writes of every kind, on both instances: inserts, a PUT, PATCHes, a singular resource, a delete that
    # cascades to a comment, an item created and changed.
    status, _, created = a.call("POST", "/posts", {"title": "missed 1", "views": 3})
    assert status == 201
    assert b.call("POST", "/comments", {"body": "on missed 1", "postId": created["id"]})[0] == 201
    assert a.call("PUT", "/posts/2", {"title": "put", "views": 4})[0] == 200
    assert b.call("PATCH", f"/posts/{created['id']}", {"views": 5})[0] == 200
    assert a.call("PATCH", "/profile", {"age": 7})[0] == 200
    assert b.call("DELETE", "/posts/1")[0] == 200  # and comment 1 (postId 1)
    assert a.call("POST", "/posts", {"title": "missed last"})[0] == 201
    expected = doc_events(watcher, 8)
    watcher.close()
    state = {path: get(a, path) for path in ("/posts", "/comments", "/profile")}
    a.kill9()
    b.kill9()
    restarted = start(db_file, count=2)
    for server in restarted:
        wait_until(lambda: "go through the view models again" in server.log(), 5, message="the replay's line")
    for server in restarted:
        with SSEClient.of(server, "/events" + query, headers={"Last-Event-ID": seen[1]}) as resumed:
            assert resumed.read_head() == 200
            got = doc_events(resumed, len(expected))
            assert got == expected
            assert not [e for e in resumed.drain(quiet=0.5) if e.event in TOPICS]
        assert {path: get(server, path) for path in state} == state
    # The first run's events are numbered as before; the next write's is above them all, on every instance.
    status, _, after = restarted[0].call("POST", "/posts", {"title": "after the restart"})
    assert status == 201 and after["id"] > created["id"]
    with SSEClient.of(restarted[1], "/events" + query, headers={"Last-Event-ID": expected[-1][1]}) as resumed:
        assert resumed.read_head() == 200
        (next_event,) = doc_events(resumed, 1)
        assert int(next_event[1]) > int(expected[-1][1]) and "after the restart" in next_event[2]


def test_the_file_is_not_written_back_and_an_edit_does_not_override_the_database(start, db_file):
    before = hashlib.sha256(db_file.read_bytes()).hexdigest()
    (server,) = start(db_file)
    assert server.call("POST", "/posts", {"title": "in the database"})[0] == 201
    assert server.call("PATCH", "/profile", {"name": "changed"})[0] == 200
    time.sleep(1.5)  # longer than the SQLite write-back's second
    assert hashlib.sha256(db_file.read_bytes()).hexdigest() == before
    server.stop()
    db_file.write_text(json.dumps({"posts": [{"id": 9, "title": "edited"}], "profile": {"name": "edited"}}))
    (restarted,) = start(db_file)
    # NB: the log is written in batches (every 50 ms): wait for the line rather than read it once.
    wait_until(lambda: "the database already holds the data" in restarted.log(), 5, message="the start's line")
    titles = [p["title"] for p in get(restarted, "/posts")]
    assert titles == ["json-server", "typicode", "in the database"]
    assert get(restarted, "/profile") == {"name": "changed"}


def test_writes_answer_503_while_the_database_is_down_and_work_again_after(start, db_file, cluster):
    a, b = start(db_file, count=2)
    cluster.crash()
    try:
        began = time.monotonic()
        status, _, body = a.call("POST", "/posts", {"title": "while down"})
        assert status == 503 and body["error"] == "storage_unavailable"
        assert time.monotonic() - began < 5
        assert [p["title"] for p in get(b, "/posts")] == ["json-server", "typicode"]
    finally:
        cluster.resume()
    resumed = time.monotonic()

    def writes_again():
        status, _, _ = a.call("POST", "/posts", {"title": "after"})
        return status == 201

    wait_until(writes_again, 10, interval=0.2, message="a write after the database's return")
    assert time.monotonic() - resumed < 10
    wait_until(lambda: [p["title"] for p in get(b, "/posts")][-1] == "after", 10, message="b caught up")
    assert "while down" not in [p["title"] for p in get(b, "/posts")]


def test_read_only_serves_and_refuses_writes(start, db_file, cluster, binary):
    start(db_file)
    server = Server(str(db_file), "--read-only", binary=binary, data=cluster.uri, public=None).start()
    try:
        assert len(get(server, "/posts")) == 2
        assert server.call("POST", "/posts", {"title": "no"})[0] == 405
    finally:
        server.kill9()


def through_proxy(cluster, binary, db_file, pattern):
    """An instance whose connection to PostgreSQL goes through a proxy that misbehaves on `pattern`."""
    proxy = PostgresProxy(int(cluster.uri.rsplit(":", 1)[1].split("/")[0]), pattern=pattern)
    server = Server(str(db_file), binary=binary, data=proxy.uri(cluster.uri), public=None).start()
    return proxy, server


def test_a_batch_the_database_never_answers_is_503_within_5_s_and_never_applied(start, db_file, cluster, binary):
    (b,) = start(db_file)
    # The batch's first statement (a server's first batch reads under the writers' lock) is held: nothing of it
    # was written.
    proxy, a = through_proxy(cluster, binary, db_file, b"livestate_doc_read_v1")
    try:
        proxy.stall()
        began = time.monotonic()
        status, _, body = a.call("POST", "/posts", {"title": "held"})
        assert status == 503 and body["error"] == "storage_unavailable", body
        assert time.monotonic() - began < 5
        proxy.passing()
        wait_until(lambda: a.call("POST", "/posts", {"title": "after"})[0] == 201, 10, interval=0.2,
                   message="a write once the database answers again")
        wait_until(lambda: "after" in [p["title"] for p in get(b, "/posts")], 10, message="b has the write")
        time.sleep(0.5)
        for server in (a, b):
            assert "held" not in [p["title"] for p in get(server, "/posts")]
    finally:
        a.kill9()
        proxy.close()


def test_a_commit_whose_answer_is_lost_is_settled_before_it_is_answered(start, db_file, cluster, binary):
    (b,) = start(db_file)
    proxy, a = through_proxy(cluster, binary, db_file, PATTERN)
    try:
        proxy.cut_after_commit()
        status, _, created = a.call("POST", "/posts", {"title": "committed, answer lost"})
        assert status == 201, created
        assert proxy.cuts == 1
        for server in (a, b):
            wait_until(lambda: [p["title"] for p in get(server, "/posts")].count("committed, answer lost") == 1, 10,
                       message="the write once on each instance")
            assert get(server, f"/posts/{created['id']}") == created
    finally:
        a.kill9()
        proxy.close()


def test_an_instance_started_while_the_database_is_down_waits_and_says_so(start, db_file, cluster):
    start(db_file)
    cluster.crash()
    launched = []
    # NB: the instance prints its address once it serves, so it is started beside the test.
    starting = threading.Thread(target=lambda: launched.extend(start(db_file)))
    starting.start()
    try:
        time.sleep(3)
        assert not launched, "an instance served without its database"
    finally:
        cluster.resume()
    starting.join(30)
    (server,) = launched
    wait_until(lambda: "cannot open the documents connection" in server.log(), 5, message="the retries' line")
    assert [p["title"] for p in get(server, "/posts")] == ["json-server", "typicode"]


def test_an_instance_stopped_inside_a_batch_does_not_hold_the_others_writes(start, db_file, cluster, binary):
    (b,) = start(db_file)
    proxy, a = through_proxy(cluster, binary, db_file, PATTERN)
    answers = []
    try:
        # A's batch (a server's first reads under the writers' lock) holds the lock in PostgreSQL and its last
        # statement, which commits, is held on the way; A then stops.
        proxy.stall()
        writer = threading.Thread(target=lambda: answers.append(a.call("POST", "/posts", {"title": "stopped"})[0]))
        writer.start()
        wait_until(lambda: proxy.stalled == 1, 10, message="A's batch held")
        os.kill(a.proc.pid, signal.SIGSTOP)
        began = time.monotonic()
        wait_until(lambda: b.call("POST", "/posts", {"title": "b writes"})[0] == 201, 15, interval=0.2,
                   message="B writing while A is stopped")
        assert time.monotonic() - began < 10
    finally:
        os.kill(a.proc.pid, signal.SIGCONT)
        proxy.passing()
        writer.join(10)
        a.kill9()
        proxy.close()
    assert answers and answers[0] != 201
    assert "stopped" not in [p["title"] for p in get(b, "/posts")]


def test_a_keyed_write_sent_again_to_another_instance_is_answered_from_its_entry(start, db_file):
    servers = start(db_file, count=3)
    headers = {"Idempotency-Key": "doc-post-1"}
    first = servers[0].call("POST", "/posts", {"title": "once"}, headers=headers)
    assert first[0] == 201, first
    answers = []
    lock = threading.Lock()

    def again(server):
        answer = server.call("POST", "/posts", {"title": "once"}, headers=headers)
        with lock:
            answers.append(answer)

    # The same request at once on every instance, as a client retrying through a load balancer might.
    threads = [threading.Thread(target=again, args=(s,)) for s in servers for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a[0] for a in answers] == [201] * 9
    assert all(a[2] == first[2] and a[1]["Location"] == first[1]["Location"] for a in answers), answers
    for server in servers:
        wait_until(lambda: [p["title"] for p in get(server, "/posts")].count("once") == 1, 10,
                   message="the write once on each instance")
    status, _, body = servers[2].call("PATCH", "/posts/1", {"title": "x"}, headers=headers)
    assert status == 422 and body["error"] == "idempotency_key_reused", body


def test_a_504_names_the_key_that_settles_the_write_once(start, db_file, cluster, binary):
    (b,) = start(db_file)
    proxy, a = through_proxy(cluster, binary, db_file, PATTERN)
    try:
        # The commit reaches the database, its answer is lost, and the database cannot be reached again
        # within the 5 s a write is answered in: the outcome is unknown.
        proxy.cut_after_commit()
        proxy.refuse()
        status, headers, body = a.call("POST", "/posts", {"title": "outcome unknown"})
        assert status == 504 and body["error"] == "storage_outcome_unknown", (status, body)
        key = headers["Idempotency-Key"]
        assert key.startswith("livestate-"), headers
        proxy.refuse(False)
        # Sent again with that key, to either instance: answered from the write that did commit, applied once.
        for server in (a, b):
            wait_until(lambda: server.call("POST", "/posts", {"title": "outcome unknown"},
                                           headers={"Idempotency-Key": key})[0] == 201, 15, interval=0.3,
                       message=f"the key settles the write on :{server.port}")
            status, _, settled = server.call("POST", "/posts", {"title": "outcome unknown"},
                                             headers={"Idempotency-Key": key})
            assert status == 201 and settled["title"] == "outcome unknown", (status, settled)
        for server in (a, b):
            wait_until(lambda: [p["title"] for p in get(server, "/posts")].count("outcome unknown") == 1, 10,
                       message="the write once on each instance")
    finally:
        a.kill9()
        proxy.close()
