"""Live queries against the real binary (docs/api.md, "Live queries"): a list GET with
`Accept: text/event-stream` streams its result, and a client that applies each change holds what a
fresh GET answers, item for item and in order."""
import os
import random
import re
import time
import urllib.parse

import pytest

from livestate import LiveClient, fresh

# A seed per run, printed on failure, so a failing sequence can be replayed with LIVE_QUERY_SEED.
SEED = int(os.environ.get("LIVE_QUERY_SEED", time.time_ns() % 1_000_000))
TITLES = ["Apple pie", "apple tart", "Banana bread", "Buy milk", "Call Bob", "Zebra crossing", "Walk the dog",
          "Water plants", "Aardvark", "Mango", "Buy oat milk", "Call Alice"]


def random_query(rng):
    params = []
    kind = rng.random()
    if kind < 0.35:
        params.append(("completed", rng.choice(["true", "false"])))
    elif kind < 0.5:
        params.append(("title_like", rng.choice(["^a", "^b", "milk", "^c|^w"])))
    elif kind < 0.6:
        params.append(("id_gte", str(rng.randint(1, 12))))
    elif kind < 0.7:
        params.append(("q", rng.choice(["bu", "al", "er"])))
    if rng.random() < 0.8:
        fields = rng.sample(["title", "completed", "id"], rng.randint(1, 2))
        params.append(("_sort", ",".join(fields)))
        params.append(("_order", ",".join(rng.choice(["asc", "desc"]) for _ in fields)))
    window = rng.random()
    if window < 0.35:
        params += [("_page", str(rng.randint(1, 3))), ("_limit", str(rng.randint(2, 4)))]
    elif window < 0.6:
        start = rng.randint(0, 4)
        params += [("_start", str(start)), ("_end", str(start + rng.randint(1, 4)))]
    elif window < 0.7:
        params.append(("_limit", str(rng.randint(1, 5))))
    return "/todos" + ("?" + urllib.parse.urlencode(params) if params else "")


def passes_filter(path, item):
    """The filter part of the random queries, in Python: what a client may ever be sent."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
    if "completed" in query and str(item["completed"]).lower() not in query["completed"]:
        return False
    if "title_like" in query and not re.search(query["title_like"][0], item["title"], re.IGNORECASE):
        return False
    if "id_gte" in query and item["id"] < int(query["id_gte"][0]):
        return False
    if "q" in query and query["q"][0].lower() not in item["title"].lower():
        return False
    return True


def random_write(server, rng):
    status, _, todos = server.call("GET", "/todos")
    assert status == 200
    choice = rng.random()
    if choice < 0.35 or len(todos) < 3:
        status, _, _ = server.call("POST", "/todos", {"title": rng.choice(TITLES), "completed": rng.random() < 0.5})
        assert status == 201
        return
    todo = rng.choice(todos)
    if choice < 0.55:
        # Across the completed filter's boundary.
        body = {"completed": not todo["completed"]}
    elif choice < 0.8:
        # To another place in a title sort (and across the title filters).
        body = {"title": rng.choice(TITLES)}
    else:
        status, _, _ = server.call("DELETE", f"/todos/{todo['id']}")
        assert status == 204
        return
    status, _, _ = server.call("PATCH", f"/todos/{todo['id']}", body)
    assert status == 200


def test_model_check_random_writes_against_random_queries(fresh_server):
    rng = random.Random(SEED)
    server = fresh_server("--heartbeat", "60")
    for _ in range(8):
        server.call("POST", "/todos", {"title": rng.choice(TITLES), "completed": rng.random() < 0.5})
    paths = sorted({random_query(rng) for _ in range(24)}) + ["/todos", "/todos?completed=false"]
    clients = [LiveClient(server, path) for path in paths]
    try:
        for client in clients:
            assert client.first().event == "result"
            client.settle(server, note=f"seed {SEED}")
        for _ in range(60):
            random_write(server, rng)
            for client in clients:
                client.settle(server, note=f"seed {SEED}")
        for client in clients:
            client.settle(server, quiet=0.3, note=f"seed {SEED}")
            for event in client.events:
                body = event.json()
                for item in body.get("items", []) + body.get("inserted", []) + body.get("updated", []):
                    assert passes_filter(client.path, item), (SEED, client.path, item)
    finally:
        for client in clients:
            client.close()


def test_result_is_what_the_plain_get_answers_with_its_total(server):
    path = "/albums?albumId=3&_page=2&_limit=10"
    expected, total = fresh(server, path)
    client = LiveClient(server, path)
    try:
        event = client.first()
        assert client.sse.response_headers["content-type"].startswith("text/event-stream")
        assert event.event == "result"
        assert event.json() == {"items": expected, "total": total}
        assert total == 50
        status, _, _ = server.call("GET", "/photos?albumId=3&_page=2&_limit=10")
        assert status == 200
    finally:
        client.close()


def test_a_write_outside_the_query_sends_nothing(server):
    status, _, todo = server.call("POST", "/todos", {"title": "Outside check", "completed": True})
    assert status == 201
    client = LiveClient(server, "/todos?completed=false")
    other = LiveClient(server, "/todos?completed=true")
    try:
        client.first()
        other.first()
        status, _, _ = server.call("PATCH", f"/todos/{todo['id']}", {"title": "Outside check, renamed"})
        assert status == 200
        other.settle(server)
        assert any(item["title"] == "Outside check, renamed" for item in other.items)
        assert client.sse.next(timeout=0.5) is None, "a write outside the query reached its client"
    finally:
        client.close()
        other.close()


@pytest.mark.parametrize("query, code", [
    ("nope=1", "invalid_query"),
    ("_page=0", "invalid_query"),
    ("_sort=title&_order=sideways", "invalid_query"),
    ("title_like=" + urllib.parse.quote("(?#[)^(\\w+\\s?)*!$(?#])"), "query_too_expensive"),
])
def test_a_query_the_plain_get_refuses_is_refused_before_the_stream(server, query, code):
    # A title on which the backtracking pattern above passes its limit.
    server.add_todo("a title made for backtracking!x")
    plain_status, _, plain = server.call("GET", "/todos?" + query)
    response = server.request("GET", "/todos?" + query, headers={"Accept": "text/event-stream"})
    assert plain_status == response.status == 400
    assert plain["error"] == response.json()["error"] == code
    assert response.header("Content-Type").startswith("application/json")


def test_head_answers_the_stream_headers_only(server):
    response = server.request("HEAD", "/todos?completed=false", headers={"Accept": "text/event-stream"})
    assert response.status == 200
    assert response.header("Content-Type").startswith("text/event-stream")
    assert response.body == b""
    assert server.healthy()


def test_heartbeat_comments_keep_a_live_query_open(fresh_server):
    server = fresh_server("--heartbeat", "1")
    client = LiveClient(server, "/todos?completed=true")
    try:
        client.first()
        event = client.sse.next(timeout=3, comments=True)
        assert event is not None and event.comment == "keep-alive"
    finally:
        client.close()


def test_resume_gets_the_missed_change_and_no_duplicate(server):
    path = "/todos?_sort=title&_order=desc&_limit=3"
    client = LiveClient(server, path)
    client.first()
    client.close()
    server.add_todo("ZZZ resume check")
    server.add_todo("ZZZY resume check")
    resumed = LiveClient(server, path, last_event_id=client.last_id, items=client.items, total=client.total)
    try:
        assert resumed.sse.read_head() == 200
        event = resumed.sse.next(timeout=5)
        assert event is not None and event.event == "change", event
        resumed.take(event)
        assert (resumed.items, resumed.total) == fresh(server, path)
        assert resumed.sse.next(timeout=0.3) is None
    finally:
        resumed.close()
    # Nothing changed since: a resume sends nothing.
    again = LiveClient(server, path, last_event_id=resumed.last_id, items=resumed.items, total=resumed.total)
    try:
        assert again.sse.read_head() == 200
        assert again.sse.next(timeout=0.5) is None
    finally:
        again.close()


def test_resume_from_an_unknown_id_gets_a_new_result(server):
    client = LiveClient(server, "/todos?completed=false", last_event_id=7)
    try:
        assert client.first().event == "result"
        assert (client.items, client.total) == fresh(server, "/todos?completed=false")
    finally:
        client.close()


def test_resume_across_a_restart(fresh_server, tmp_path):
    data = str(tmp_path / "live.sqlite")
    path = "/todos?completed=false&_sort=title"
    first = fresh_server("--heartbeat", "60", data=data)
    first.add_todo("Before the restart")
    client = LiveClient(first, path)
    client.first()
    client.settle(first)
    client.close()
    assert first.stop() == 0
    second = fresh_server("--heartbeat", "60", data=data)
    # Nothing changed: the resume sends nothing (the version the client holds is the restarted server's).
    quiet = LiveClient(second, path, last_event_id=client.last_id, items=client.items, total=client.total)
    try:
        assert quiet.sse.read_head() == 200
        assert quiet.sse.next(timeout=0.5) is None
    finally:
        quiet.close()
    second.add_todo("After the restart")
    resumed = LiveClient(second, path, last_event_id=client.last_id, items=client.items, total=client.total)
    try:
        resumed.first()
        resumed.settle(second)
        assert any(item["title"] == "After the restart" for item in resumed.items)
    finally:
        resumed.close()


def test_the_server_holds_at_most_max_live_queries(fresh_server):
    server = fresh_server("--heartbeat", "60", "--max-live-queries", "2")
    clients = [LiveClient(server, "/todos"), LiveClient(server, "/todos?completed=true")]
    try:
        for client in clients:
            client.first()
        refused = server.request("GET", "/todos", headers={"Accept": "text/event-stream"})
        assert refused.status == 503
        assert refused.json()["error"] == "too_many_live_queries"
        assert refused.header("Retry-After") == "5"
        # A plain GET is not a live query.
        assert server.call("GET", "/todos")[0] == 200
        clients.pop().close()
        again = LiveClient(server, "/todos?completed=false")
        clients.append(again)
        deadline = time.monotonic() + 5
        while again.sse.read_head() != 200 and time.monotonic() < deadline:
            again.close()
            again = LiveClient(server, "/todos?completed=false")
            clients[-1] = again
        assert again.first().event == "result"
    finally:
        for client in clients:
            client.close()
