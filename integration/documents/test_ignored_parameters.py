"""What json-server ignores, LiveState ignores: parameters naming no field, `_`, `callback`, `_delay`,
absolute `Link` URLs and `Cache-Control` (docs/own-data.md), against the real binary on a real file."""
import threading
import time

from livestate import LiveClient, Server, wait_until

BLOG = {
    "posts": [
        {"id": 1, "title": "The ninja & co story", "author": {"name": "typicode"}, "views": 100},
        {"id": 2, "title": "lowdb", "author": {"name": "typicode"}, "views": 50},
        {"id": 3, "title": "Ninja & co, part two", "author": {"name": "other"}, "views": 75},
        {"id": 4, "title": "hotel", "author": {"name": "other"}, "views": None, "draft": True},
    ],
    "comments": [{"id": 1, "body": "first", "postId": 1}],
}


def ids(body):
    return [item["id"] for item in body]


def test_a_parameter_naming_no_field_is_ignored_and_logged_once(data_file, serve):
    server = serve(data_file(BLOG))
    for path in ("/posts?t=1733460000000", "/posts?_=1733460000000", "/posts?callback=cb",
                 "/posts?t=1&_=2&callback=x", "/posts?t=1733460000001"):
        status, headers, body = server.call("GET", path)
        assert status == 200 and ids(body) == [1, 2, 3, 4], (path, status, body)
        assert headers["Content-Type"].startswith("application/json"), path
        assert headers["X-Total-Count"] == "4"
    # A field some item has still filters, beside an ignored one; so do deep paths and a field whose only
    # value is null (`_.has` is true for it).
    assert ids(server.call("GET", "/posts?title=lowdb&t=1")[2]) == [2]
    assert ids(server.call("GET", "/posts?author.name=other&cachebust=9")[2]) == [3, 4]
    assert ids(server.call("GET", "/posts?draft=true")[2]) == [4]
    assert server.call("GET", "/posts?views=1")[2] == []
    # json-server keeps the operators on a field no item has: they match nothing.
    assert server.call("GET", "/posts?missing_like=x")[2] == []
    wait_until(lambda: "query parameter 'cachebust'" in server.log(), 10, message="the log")
    log = server.log()
    assert log.count("query parameter 't'") == 1, log
    assert log.count("query parameter 'cachebust'") == 1, log
    assert "query parameter '_'" in log and "query parameter 'callback'" in log, log


def test_a_search_with_an_unencoded_ampersand_keeps_its_first_half(data_file, serve):
    # The blog front end sends `q=ninja%20&%20co`: `q` is "ninja ", and " co" is a parameter of its own.
    server = serve(data_file(BLOG))
    status, _, body = server.call("GET", "/posts?q=ninja%20&%20co")
    assert status == 200 and ids(body) == [1, 3], body
    assert ids(server.call("GET", "/posts/1/comments?t=5")[2]) == [1]


def test_seed_lists_keep_their_400_for_unknown_fields():
    with Server() as seeds:
        status, _, body = seeds.call("GET", "/todos?t=1733460000000")
        assert status == 400 and body["error"] == "invalid_query", body


def test_a_live_query_ignores_what_the_get_ignores(data_file, serve):
    server = serve(data_file(BLOG))
    live = LiveClient(server, "/posts?t=1733460000000&_=3")
    try:
        live.first()
        assert ids(live.items) == [1, 2, 3, 4] and live.total == 4
        assert server.call("POST", "/posts", {"title": "new"})[0] == 201
        live.settle(server)
        assert ids(live.items) == [1, 2, 3, 4, 5]
    finally:
        live.close()


def test_a_live_query_ignores_a_parameter_only_while_no_item_has_its_field(data_file, serve):
    # The rule holds at every version: once an item gains the field, the GET filters by it and so does the
    # live query; once no item has it any more, both ignore it again. A client resuming across such a
    # write gets the result the GET answers too.
    server = serve(data_file(BLOG))
    paths = ["/posts?flag=on&t=5", "/posts?flag=on&_sort=title&_limit=2", "/posts?draft=true&flag=on"]
    clients = [LiveClient(server, path) for path in paths]
    try:
        for client in clients:
            client.first()
        assert ids(clients[0].items) == [1, 2, 3, 4]
        assert server.call("PATCH", "/posts/2", {"flag": "on"})[0] == 200
        assert ids(server.call("GET", paths[0])[2]) == [2]
        for client in clients:
            client.settle(server, note="the field appeared")
        assert ids(clients[0].items) == [2] and clients[0].total == 1
        assert server.call("PATCH", "/posts/3", {"flag": "off"})[0] == 200
        assert server.call("POST", "/posts", {"title": "a", "flag": "on", "draft": True})[0] == 201
        for client in clients:
            client.settle(server, note="writes with the field")
        seen, seen_items, seen_total = clients[0].last_id, clients[0].items, clients[0].total
        post2 = server.call("GET", "/posts/2")[2]
        post3 = server.call("GET", "/posts/3")[2]
        del post2["flag"], post3["flag"]
        assert server.call("PUT", "/posts/2", post2)[0] == 200
        assert server.call("PUT", "/posts/3", post3)[0] == 200
        assert server.call("DELETE", "/posts/5")[0] == 200
        assert ids(server.call("GET", paths[0])[2]) == [1, 2, 3, 4]
        for client in clients:
            client.settle(server, note="the field is gone again")
        assert ids(clients[0].items) == [1, 2, 3, 4] and clients[0].total == 4
    finally:
        for client in clients:
            client.close()
    resumed = LiveClient(server, paths[0], last_event_id=seen, items=seen_items, total=seen_total)
    try:
        resumed.sse.read_head(10)
        resumed.settle(server, note="resumed across the writes")
    finally:
        resumed.close()


def test_delay_delays_that_answer_without_holding_the_loop(data_file, serve):
    server = serve(data_file(BLOG), "--threads", "1")
    timings = {}

    def timed(name, method, path, body=None):
        start = time.monotonic()
        timings[name] = (server.call(method, path, body), time.monotonic() - start)

    delayed = [threading.Thread(target=timed, args=("list", "GET", "/posts?_delay=1200")),
               threading.Thread(target=timed, args=("item", "GET", "/posts/2?_delay=1200")),
               threading.Thread(target=timed, args=("write", "PATCH", "/posts/2?_delay=1200", {"views": 7}))]
    for thread in delayed:
        thread.start()
    time.sleep(0.2)
    # Meanwhile the one loop answers others at once, and the delayed write has not happened yet.
    start = time.monotonic()
    status, _, body = server.call("GET", "/posts/2")
    assert status == 200 and body["views"] == 50 and time.monotonic() - start < 0.5
    for thread in delayed:
        thread.join()
    (status, _, body), took = timings["list"]
    assert status == 200 and ids(body) == [1, 2, 3, 4] and took >= 1.2
    (status, _, body), took = timings["item"]
    assert status == 200 and body["id"] == 2 and took >= 1.2
    (status, _, body), took = timings["write"]
    assert status == 200 and body["views"] == 7 and took >= 1.2
    for bad in ("10001", "-1", "soon", "1.5"):
        status, _, body = server.call("GET", f"/posts?_delay={bad}")
        assert status == 400 and "_delay" in body["message"], (bad, body)


def test_link_urls_are_absolute_and_json_answers_are_not_cached(data_file, serve):
    server = serve(data_file(BLOG))
    response = server.request("GET", "/posts?_page=2&_limit=1",
                              headers={"Host": f"localhost:{server.port}"})
    assert response.status == 200
    link = response.header("Link")
    base = f"http://localhost:{server.port}/posts?"
    assert f'<{base}_page=1&_limit=1>; rel="first"' in link, link
    assert f'<{base}_page=3&_limit=1>; rel="next"' in link, link
    assert f'<{base}_page=4&_limit=1>; rel="last"' in link, link
    for path in ("/posts", "/posts/1", "/posts?_page=1", "/db", "/nothing"):
        response = server.request("GET", path)
        assert response.header("Cache-Control") == "no-cache", (path, response)
    etag = server.request("GET", "/posts").header("ETag")
    again = server.request("GET", "/posts", headers={"If-None-Match": etag})
    assert again.status == 304 and again.header("Cache-Control") == "no-cache", again
