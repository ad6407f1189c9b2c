"""A write whose commit outcome is unknown is settled before it is answered (docs/architecture-instances.md,
"Faults"): a 503 is never applied later.

- The commit happened and its answer was lost: a proxy between instance A and PostgreSQL (pgproxy.py)
  forwards a batch, lets it commit, and cuts the connection before its answer reaches A. A resends the
  batch with the same keys once reconnected, and answers each write with its true outcome, once.
- PostgreSQL stays away past the 5 s bound (`pg_ctl stop -m immediate` with a batch in flight): the
  batch's writes answer 504 `storage_outcome_unknown` with their key; the writes never sent answer 503
  and are never applied; each 504, sent again with its key, is applied once.
"""

import asyncio
import subprocess
import time

from burst import in_thread, listed, post, post_all
from conftest import todos_in_database
from livestate import Server, wait_until
from pgproxy import PostgresProxy


def sql(cluster, query):
    out = subprocess.run(["psql", cluster.uri, "-XAtc", query], capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:-1]


def test_a_commit_whose_answer_was_lost_is_resent_with_its_keys_and_answered_once(cluster, binary):
    proxy = PostgresProxy(int(cluster.uri.rsplit(":", 1)[1].split("/")[0]))
    a = Server(binary=binary, data=proxy.uri(cluster.uri)).start()
    b = Server(binary=binary, data=cluster.uri).start()
    try:
        # One batch held, so that the next writes all go in the second; that one commits and loses its answer.
        proxy.stall()
        first = in_thread(lambda: post_all(a.port, ["lost answer first"])[0])
        wait_until(lambda: proxy.stalled == 1, 10, message="the first batch held")
        titles = [f"lost answer {n:02d}" for n in range(40)]
        # Half carry a client's key, half get the server's.
        keys = [f"lost-answer-{n}" if n % 2 else None for n in range(40)]

        async def burst():
            writes = [post(a.port, t, headers={"Idempotency-Key": k} if k else None) for t, k in zip(titles, keys)]
            inputs = [post(a.port, "", path="/frameworks/selection", body={"name": "Combine"},
                           headers={"Idempotency-Key": "lost-answer-framework"}),
                      post(a.port, "", path="/posts/refresh", body={})]

            async def release():
                await asyncio.sleep(1)
                proxy.cut_after_commit()
                proxy.release()

            answers = await asyncio.gather(*writes, *inputs, release())
            return answers[:-1]

        answers = asyncio.run(burst())
        answers.append(first())
        assert proxy.cuts == 1, "the proxy cut no commit"
        assert all(x.status in (200, 201, 202) for x in answers), [x for x in answers if x.status >= 300]
        todos = {x.title: x.body for x in answers if x.status == 201}
        assert "outcome unknown" in a.log()

        # Each write applied exactly once, with the todo its answer named, on every instance.
        rows = todos_in_database(cluster.uri, "lost answer %")
        assert [title for _, title in rows] == sorted(todos), rows
        assert {title: id for id, title in rows} == {t: b["id"] for t, b in todos.items()}
        assert sql(cluster, "SELECT count(*) FROM livestate_entries WHERE resource = 'frameworks'") == ["1"]
        assert sql(cluster, "SELECT count(*) FROM livestate_entries WHERE resource = 'posts'") == ["1"]
        for server in (a, b):
            wait_until(lambda: sorted(listed(server, "lost answer ")) == sorted(todos), 10,
                       message=f"every write once on :{server.port}")
        # A client's repeat of a write whose answer the instance settled gets that same answer.
        status, _, again = b.call("POST", "/todos", {"title": "lost answer 01"},
                                  headers={"Idempotency-Key": "lost-answer-1"})
        assert status == 201 and again == todos["lost answer 01"]
    finally:
        proxy.passing()
        a.stop()
        b.stop()
        proxy.close()


def test_a_database_away_past_the_bound_answers_504_with_the_key_and_no_503_is_applied(cluster, binary):
    proxy = PostgresProxy(int(cluster.uri.rsplit(":", 1)[1].split("/")[0]))
    a = Server(binary=binary, data=proxy.uri(cluster.uri)).start()
    b = Server(binary=binary, data=cluster.uri).start()
    try:
        # A batch in flight for sure: the proxy holds A's commit, so the database never answers it.
        proxy.stall()
        in_flight = in_thread(lambda: post_all(a.port, ["away in flight"])[0])
        wait_until(lambda: proxy.stalled == 1, 10, message="A's commit held")
        queued = in_thread(lambda: post_all(a.port, [f"away queued {n}" for n in range(5)]))
        time.sleep(0.3)
        cluster.crash()
        proxy.passing()
        while_down = post_all(b.port, [f"away down {n}" for n in range(5)])
        unknown = in_flight()
        never_sent = queued() + while_down
        time.sleep(2)  # past the bound: the database stays away
        cluster.resume()

        assert unknown.status == 504 and unknown.code == "storage_outcome_unknown", unknown
        assert unknown.seconds < 5.5, unknown
        key = unknown.headers.get("idempotency-key")
        assert key, unknown.headers
        for answer in never_sent:
            assert answer.status == 503 and answer.code == "storage_unavailable", answer
            assert answer.seconds < 5.5, answer

        for server in (a, b):
            wait_until(lambda: server.call("POST", "/todos", {"title": f"away back {server.port}"})[0] == 201, 15,
                       message=f":{server.port} writes again")
        time.sleep(1)
        refused = todos_in_database(cluster.uri, "away queued %") + todos_in_database(cluster.uri, "away down %")
        assert refused == [], "a write answered 503 was applied"
        # The 504 is settled by sending the write again with its key: applied once, whatever the first did.
        for server in (a, b):
            status, _, body = server.call("POST", "/todos", {"title": "away in flight"},
                                          headers={"Idempotency-Key": key})
            assert status == 201 and body["title"] == "away in flight", (status, body)
        assert [title for _, title in todos_in_database(cluster.uri, "away in flight")] == ["away in flight"]
        for server in (a, b):
            wait_until(lambda: listed(server, "away in flight") == ["away in flight"], 10,
                       message=f"the settled write once on :{server.port}")
    finally:
        proxy.passing()
        a.stop()
        b.stop()
        proxy.close()
