"""The bounds of the write queue on PostgreSQL (docs/architecture-instances.md, "Group commit"): beyond
1,024 waiting writes a write answers 503 `storage_busy` at once, with `Retry-After: 1`; a write still
waiting behind a stuck batch when its 5 s run out answers 503 `storage_unavailable`. Neither is ever
applied later; the stuck batch's write, whose outcome the instance cannot know, answers 504
`storage_outcome_unknown` with its key. A proxy between instance A and PostgreSQL (pgproxy.py) makes the batch stall."""

import time

from burst import in_thread, listed, post_all
from conftest import todos_in_database
from livestate import Server, wait_until
from pgproxy import PostgresProxy

QUEUE = 1024
BUSY = 76


def titles_in_database(cluster, prefix):
    return [title for _, title in todos_in_database(cluster.uri, f"{prefix}%")]


def proxied(cluster, binary):
    proxy = PostgresProxy(int(cluster.uri.rsplit(":", 1)[1].split("/")[0]))
    return proxy, Server(binary=binary, data=proxy.uri(cluster.uri)).start()


def test_writes_past_the_queue_bound_answer_storage_busy_at_once_and_are_never_applied(cluster, binary):
    proxy, a = proxied(cluster, binary)
    b = Server(binary=binary, data=cluster.uri).start()
    try:
        # The first write's batch is held by the proxy (the database never sees it, the instance waits for
        # it), so the next 1,024 writes wait in A's queue and the rest find it full.
        proxy.stall()
        first = in_thread(lambda: post_all(a.port, ["bound first"])[0])
        wait_until(lambda: proxy.stalled == 1, 10, message="the first batch held")
        titles = [f"bound {n:04d}" for n in range(QUEUE + BUSY)]
        released = []

        def watch(answers):
            if not released and sum(1 for x in answers if x.status == 503) >= BUSY:
                released.append(time.monotonic())
                proxy.release()

        answers = post_all(a.port, titles, watch=watch)
        answers.append(first())
        assert released, "fewer 503s than writes past the bound"
        busy = [x for x in answers if x.status == 503]
        assert len(busy) == BUSY, busy[:5]
        for answer in busy:
            assert answer.code == "storage_busy", answer
            assert answer.headers.get("retry-after") == "1", answer.headers
            assert answer.answered <= released[0], f"{answer} waited for the database"
        acknowledged = sorted(x.title for x in answers if x.status == 201)
        assert len(acknowledged) == QUEUE + 1, [x for x in answers if x.status not in (201, 503)][:5]

        # Every 2xx exactly once, in the database and on both instances; no 503 ever.
        time.sleep(1)
        assert sorted(titles_in_database(cluster, "bound ")) == acknowledged
        for server in (a, b):
            wait_until(lambda: sorted(listed(server, "bound ")) == acknowledged, 10,
                       message=f"the acknowledged writes on :{server.port}")
    finally:
        proxy.passing()
        a.stop()
        b.stop()
        proxy.close()


def test_a_write_queued_behind_a_stuck_batch_answers_503_within_its_5_s_and_is_never_applied(cluster, binary):
    proxy, a = proxied(cluster, binary)
    try:
        proxy.stall()
        first = in_thread(lambda: post_all(a.port, ["stuck first"])[0])
        wait_until(lambda: proxy.stalled == 1, 10, message="the first batch held")
        # Its commit is held, and the database cannot be reached to learn whether it committed.
        proxy.refuse()
        queued = post_all(a.port, [f"stuck queued {n}" for n in range(5)])
        for answer in queued:
            assert answer.status == 503 and answer.code == "storage_unavailable", answer
            assert answer.seconds < 5.5, answer
        stuck = first()
        # The batch in flight has no answer within 5 s (its resend neither): the instance cannot know its
        # outcome, so it says so, with the key it sent the write under — never a 503.
        assert stuck.status == 504 and stuck.code == "storage_outcome_unknown", stuck
        assert stuck.seconds < 5.5, stuck
        key = stuck.headers.get("idempotency-key")
        assert key, stuck.headers

        # The database is reachable again: A writes again, and nothing refused is applied, ever; the write of
        # unknown outcome, sent again with its key, is applied once.
        proxy.refuse(False)
        proxy.passing()
        wait_until(lambda: a.call("POST", "/todos", {"title": "stuck after"})[0] == 201, 10,
                   message="a write after the stall")
        time.sleep(1)
        assert titles_in_database(cluster, "stuck ") == ["stuck after"]
        for _ in range(2):
            status, _, body = a.call("POST", "/todos", {"title": "stuck first"}, headers={"Idempotency-Key": key})
            assert status == 201 and body["title"] == "stuck first", (status, body)
        assert sorted(titles_in_database(cluster, "stuck ")) == ["stuck after", "stuck first"]
        assert sorted(listed(a, "stuck ")) == ["stuck after", "stuck first"]
    finally:
        proxy.passing()
        a.stop()
        proxy.close()
