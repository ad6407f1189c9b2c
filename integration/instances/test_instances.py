"""Three instances on one PostgreSQL behave as one server (docs/api.md, "Several instances").

Each test gets a fresh cluster and three `livestate --data postgresql://…` processes on it, and
watches them from outside: HTTP writes, `/events` streams, `kill -9`, `pg_ctl stop -m immediate`,
SIGSTOP. LIVESTATE_INSTANCES_WRITES scales the bursts (default 60).
"""

import os
import signal
import threading
import time

from conftest import events_until
from livestate import Server, SSEClient, wait_until

WRITES = int(os.environ.get("LIVESTATE_INSTANCES_WRITES", "60"))


def todos_events(client, until, timeout=20):
    """The todos events of `client` until `until(events)` holds."""
    return events_until(client, until, timeout, topic="todos")


def titles(events):
    return [[todo["title"] for todo in event.json()] for event in events]


def has_title(title):
    return lambda events: bool(events) and any(t["title"] == title for t in events[-1].json())


def post(server, title, timeout=10):
    """POST /todos with the title as its Idempotency-Key; (status, seconds) — 0 when the connection failed."""
    start = time.monotonic()
    try:
        key = {"Idempotency-Key": title.replace(" ", "_")}
        status, _, _ = server.call("POST", "/todos", {"title": title}, headers=key)
    except OSError:
        status = 0
    return status, time.monotonic() - start


def post_until_taken(server, title, within=10):
    """`post`, sent again while `server` answers 503 (not applied) for up to `within` seconds: its status."""
    deadline = time.monotonic() + within
    while True:
        status = post(server, title)[0]
        if status != 503 or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def listed(server):
    status, _, body = server.call("GET", "/todos")
    assert status == 200
    return [todo["title"] for todo in body]


def test_round_robin_writes_reach_every_instance_in_one_order_with_identical_ids(three):
    clients = [SSEClient.of(server, "/events?topics=todos") for server in three]
    for client in clients:
        assert client.read_head() == 200
        todos_events(client, lambda events: len(events) >= 1)
    sent = [f"round robin {n:03d}" for n in range(WRITES)]
    for n, title in enumerate(sent):
        assert three[n % 3].call("POST", "/todos", {"title": title})[0] == 201
    streams = [todos_events(client, has_title(sent[-1])) for client in clients]
    for client in clients:
        client.close()
    ids = [[event.id for event in stream] for stream in streams]
    assert ids[0] == ids[1] == ids[2]
    assert [int(i) for i in ids[0]] == sorted({int(i) for i in ids[0]})
    assert titles(streams[0]) == titles(streams[1]) == titles(streams[2])
    # Each event is the list after exactly one more write, in the order they were acknowledged.
    assert [t[1:] for t in titles(streams[0])] == [sent[:n + 1] for n in range(WRITES)]


def test_resume_on_another_instance_gets_exactly_the_missed_events(three):
    a, b, c = three
    watcher = SSEClient.of(b, "/events?topics=todos")
    assert watcher.read_head() == 200
    todos_events(watcher, lambda events: len(events) >= 1)
    client = SSEClient.of(a, "/events?topics=todos")
    assert client.read_head() == 200
    a.add_todo("seen on A")
    last = todos_events(client, has_title("seen on A"))[-1]
    client.close()
    missed = [f"missed {n}" for n in range(5)]
    for title in missed:
        b.add_todo(title)
    expected = todos_events(watcher, has_title(missed[-1]))[-5:]
    watcher.close()
    resumed = SSEClient.of(c, "/events?topics=todos", headers={"Last-Event-ID": last.id})
    assert resumed.read_head() == 200
    got = todos_events(resumed, has_title(missed[-1]))
    got += [e for e in resumed.drain(quiet=0.5) if e.event == "todos"]
    resumed.close()
    assert [e.id for e in got] == [e.id for e in expected]
    assert [e.data for e in got] == [e.data for e in expected]


def burst(servers, prefix, stop, acknowledged, refused, lock, timeout_seen):
    """Writes round-robin until `stop`; records each title by its answer."""
    n = 0
    while not stop.is_set():
        server = servers[n % len(servers)]
        title = f"{prefix} {n:05d}"
        status, seconds = post(server, title)
        if status == 0 and not server.alive():
            return  # the instance was killed: its clients go elsewhere (the load balancer's part)
        with lock:
            timeout_seen.append(seconds)
            (acknowledged if status == 201 else refused).append((title, status))
        n += 1


def start_writers(servers):
    """One writer thread per instance; returns (stop, threads, acknowledged, refused, seconds)."""
    stop, lock = threading.Event(), threading.Lock()
    acknowledged, refused, seconds = [], [], []
    writers = [threading.Thread(target=burst, args=([s], f"w{i}", stop, acknowledged, refused, lock, seconds))
               for i, s in enumerate(servers)]
    for writer in writers:
        writer.start()
    return stop, writers, acknowledged, refused, seconds


def test_kill_9_of_one_instance_mid_burst_loses_no_acknowledged_write(three, binary, cluster):
    a, b, c = three
    stop, writers, acknowledged, refused, seconds = start_writers(three)
    wait_until(lambda: len(acknowledged) >= WRITES, 30, message="writes before the kill")
    a.kill9()
    wait_until(lambda: len(acknowledged) >= 2 * WRITES, 60, message="writes after the kill")
    stop.set()
    for writer in writers:
        writer.join(15)
    restarted = Server(binary=binary, data=cluster.uri).start()
    try:
        wanted = {title for title, _ in acknowledged}
        for server in (b, c, restarted):
            wait_until(lambda: wanted <= set(listed(server)), 10, message=f"every 2xx on :{server.port}")
            assert len(listed(server)) == len(set(listed(server)))
    finally:
        restarted.stop()


def test_database_crash_answers_503_fast_then_every_instance_catches_up(three, cluster):
    stop, writers, acknowledged, refused, seconds = start_writers(three)
    wait_until(lambda: len(acknowledged) >= WRITES // 2, 30, message="writes before the crash")
    cluster.crash()
    wait_until(lambda: sum(1 for _, s in refused if s == 503) >= 9, 20, message="503s while down")
    # Reads and open streams go on from the last state.
    for server in three:
        assert server.call("GET", "/todos")[0] == 200
    time.sleep(1)
    cluster.resume()
    back = time.monotonic()
    count = len(acknowledged)
    wait_until(lambda: len(acknowledged) >= count + 30, 30, message="writes after the database returned")
    stop.set()
    for writer in writers:
        writer.join(15)
    assert max(seconds) < 5.5, f"slowest answer {max(seconds):.1f} s"
    # 503: not applied, never later; 504 (a batch in flight when the database went away): outcome unknown.
    assert all(status in (503, 504) for _, status in refused), refused[:5]
    acked = {title for title, _ in acknowledged}
    for server in three:
        wait_until(lambda: acked <= set(listed(server)), 10, message=f"every 2xx on :{server.port}")
        assert not {title for title, status in refused if status == 503} & set(listed(server)), "a 503 applied"
    assert time.monotonic() - back < 30
    # Each is settled by sending it again with its key: applied once whether or not it had committed. The
    # writes above may all have gone through the instances that were back first: one still in its
    # reconnect backoff (up to 2 s) answers 503 at once, which is final (never applied), so it is sent again.
    for n, (title, _) in enumerate(refused):
        assert post_until_taken(three[n % 3], title) == 201, title
    wanted = {title for title, _ in acknowledged + refused}
    for server in three:
        wait_until(lambda: wanted <= set(listed(server)), 10, message=f"every write on :{server.port}")
        present = listed(server)
        assert len(present) == len(set(present)), "a todo appears twice"


def test_a_stopped_instance_catches_up_in_order_after_sigcont(three):
    a, b, c = three
    clients = [SSEClient.of(server, "/events?topics=todos") for server in (a, b)]
    for client in clients:
        assert client.read_head() == 200
        todos_events(client, lambda events: len(events) >= 1)
    os.kill(b.proc.pid, signal.SIGSTOP)
    try:
        sent = []
        deadline = time.monotonic() + 5
        n = 0
        while time.monotonic() < deadline:
            title = f"while B sleeps {n:04d}"
            assert (a if n % 2 else c).call("POST", "/todos", {"title": title})[0] == 201
            sent.append(title)
            n += 1
            time.sleep(0.02)
    finally:
        os.kill(b.proc.pid, signal.SIGCONT)
    streams = [todos_events(client, has_title(sent[-1]), timeout=30) for client in clients]
    for client in clients:
        client.close()
    assert [e.id for e in streams[1]] == [e.id for e in streams[0]]
    assert titles(streams[1]) == titles(streams[0])
    assert listed(b) == listed(a)


def test_a_write_sent_again_with_its_key_through_another_instance_is_applied_once(three):
    a, b, _ = three
    key = {"Idempotency-Key": "retry-0001"}
    status, _, first = a.call("POST", "/todos", {"title": "sent twice"}, headers=key)
    assert status == 201
    status, _, again = b.call("POST", "/todos", {"title": "sent twice"}, headers=key)
    assert status == 201 and again == first
    assert listed(a).count("sent twice") == 1 and listed(b).count("sent twice") == 1
    assert a.call("POST", "/todos", {"title": "x"}, headers={"Idempotency-Key": "bad key"})[0] == 400
