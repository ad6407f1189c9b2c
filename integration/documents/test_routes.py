"""json-server 0.17.4's documented behaviour (its README), against the real binary on a real file."""
import json
import os
import time

import pytest

from livestate import wait_until

BLOG = {
    "posts": [
        {"id": 1, "title": "json-server", "author": {"name": "typicode"}, "views": 100, "tags": ["a", "b"]},
        {"id": 2, "title": "lowdb", "author": {"name": "typicode"}, "views": 50, "tags": ["b"]},
        {"id": 3, "title": "hotel", "author": {"name": "other"}, "views": 75, "tags": []},
    ],
    "comments": [
        {"id": 1, "body": "some comment", "postId": 1},
        {"id": 2, "body": "another", "postId": 1},
        {"id": 3, "body": "third", "postId": 2},
    ],
    "profile": {"name": "typicode"},
}


@pytest.fixture
def blog(data_file, serve):
    return serve(data_file(BLOG))


def ids(body):
    return [item["id"] for item in body]


def test_lists_items_and_whole_db(blog):
    status, headers, body = blog.call("GET", "/posts")
    assert status == 200 and ids(body) == [1, 2, 3]
    assert blog.call("GET", "/posts/2")[2]["title"] == "lowdb"
    assert blog.call("GET", "/profile")[2] == {"name": "typicode"}
    assert blog.call("GET", "/db")[2] == BLOG
    status, _, body = blog.call("GET", "/posts/9")
    assert status == 404 and body["error"] == "not_found"


@pytest.mark.parametrize(
    "query, expected",
    [
        ("title=json-server", [1]),
        ("author.name=typicode", [1, 2]),
        ("id=1&id=3", [1, 3]),
        ("views_gte=75", [1, 3]),
        ("views_lte=75", [2, 3]),
        ("id_ne=2", [1, 3]),
        ("id_ne=2&id_ne=3", [1]),  # a repeated _ne excludes each value, as json-server's
        ("views:ne=100&views:ne=50", [3]),
        ("title_like=^LOW", [2]),
        ("q=HOT", [3]),
        ("q=typicode", [1, 2]),
        ("views:gt=50", [1, 3]),
        ("views:lt=75", [2]),
        ("id:in=1,2", [1, 2]),
        ("title:startsWith=json", [1]),
        ("title:endsWith=db", [2]),
        ("title:contains=otel", [3]),
        ("tags:contains=b", [1, 2]),
        ("views:eq=100", [1]),
        ("views:ne=100", [2, 3]),
        ("nosuchfield=1", [1, 2, 3]),  # a field no item has is ignored, as json-server does
        ("_sort=views", [2, 3, 1]),
        ("_sort=views&_order=desc", [1, 3, 2]),
        ("_sort=-views", [1, 3, 2]),
        ("_sort=author.name,views&_order=desc,asc", [2, 1, 3]),
        ("_start=1&_end=3", [2, 3]),
        ("_start=1&_limit=1", [2]),
        ("_limit=2", [1, 2]),
    ],
)
def test_list_queries(blog, query, expected):
    status, headers, body = blog.call("GET", f"/posts?{query}")
    assert status == 200, body
    assert ids(body) == expected


def test_pages_carry_total_and_links(blog):
    status, headers, body = blog.call("GET", "/posts?_page=2&_limit=1")
    assert ids(body) == [2]
    assert headers["X-Total-Count"] == "3"
    link = headers["Link"]
    assert 'rel="first"' in link and 'rel="prev"' in link and 'rel="next"' in link and 'rel="last"' in link


def test_bad_queries_are_400(blog):
    assert blog.call("GET", "/posts?_page=x")[0] == 400
    assert blog.call("GET", "/posts?_bogus=1")[0] == 400
    assert blog.call("GET", "/posts?id:between=1")[0] == 400
    status, _, body = blog.call("GET", "/posts?title_like=(")
    assert status == 400 and body["error"] == "invalid_query"


def test_embed_expand_and_nested_routes(blog):
    post = blog.call("GET", "/posts/1?_embed=comments")[2]
    assert [c["id"] for c in post["comments"]] == [1, 2]
    listed = blog.call("GET", "/posts?_embed=comments")[2]
    assert [len(p["comments"]) for p in listed] == [2, 1, 0]
    comment = blog.call("GET", "/comments/3?_expand=post")[2]
    assert comment["post"]["title"] == "lowdb"
    assert ids(blog.call("GET", "/posts/1/comments")[2]) == [1, 2]
    status, headers, created = blog.call("POST", "/posts/2/comments", {"body": "nested"})
    assert status == 201 and created["postId"] == 2  # a number stays a number
    assert blog.call("GET", "/posts/2?_embed=comments")[2]["comments"][-1]["body"] == "nested"
    assert blog.call("POST", "/posts/99/comments", {"body": "orphan"})[0] == 404
    assert blog.call("GET", "/posts/99/comments")[0] == 404


@pytest.mark.parametrize("path", [
    "/posts?_embed=coments", "/posts/1?_embed=profile", "/comments/1?_expand=pst", "/posts/1/comments?_embed=x",
])
def test_a_relation_naming_no_collection_is_400(blog, path):
    # json-server would add an empty list or nothing; a typo there is never right, since a file gains no
    # collection while it runs.
    status, _, body = blog.call("GET", path)
    assert status == 400 and body["error"] == "invalid_query"
    assert "posts, comments" in body["message"]


def test_post_assigns_ids_and_refuses_taken_ones(blog):
    status, headers, body = blog.call("POST", "/posts", {"title": "new"})
    assert status == 201 and body == {"id": 4, "title": "new"}
    assert headers["Location"] == "/posts/4"
    status, _, body = blog.call("POST", "/posts", {"id": 10, "title": "mine"})
    assert status == 201 and body["id"] == 10
    assert blog.call("POST", "/posts", {"title": "next"})[2]["id"] == 11
    # `"id": null` is no id given, as json-server takes it (a front end's form for a new item often sends it).
    status, _, body = blog.call("POST", "/posts", {"id": None, "title": "form"})
    assert status == 201 and body == {"id": 12, "title": "form"}
    status, _, body = blog.call("POST", "/posts", {"id": 2, "title": "taken"})
    assert status == 409 and body["error"] == "duplicate_id"
    assert blog.call("GET", "/posts/2")[2]["title"] == "lowdb"
    status, _, body = blog.call("POST", "/posts", {"id": "x-1", "title": "string id"})
    assert status == 201 and blog.call("GET", "/posts/x-1")[2]["title"] == "string id"


def test_put_replaces_patch_merges_and_ids_never_change(blog):
    status, _, body = blog.call("PUT", "/posts/1", {"id": 77, "title": "replaced"})
    assert status == 200 and body == {"id": 1, "title": "replaced"}
    status, _, body = blog.call("PATCH", "/posts/2", {"id": 78, "views": 51})
    assert status == 200 and body["id"] == 2 and body["views"] == 51 and body["title"] == "lowdb"
    assert blog.call("PATCH", "/posts/99", {"views": 1})[0] == 404
    assert blog.call("PUT", "/posts/99", {"views": 1})[0] == 404


def test_delete_answers_empty_object_and_cascades(blog):
    status, _, body = blog.call("DELETE", "/posts/1")
    assert status == 200 and body == {}
    assert ids(blog.call("GET", "/comments")[2]) == [3]
    assert blog.call("DELETE", "/posts/1")[0] == 404


def test_singular_resource_writes(blog):
    assert blog.call("PATCH", "/profile", {"age": 3})[2] == {"name": "typicode", "age": 3}
    assert blog.call("PUT", "/profile", {"name": "new"})[2] == {"name": "new"}
    # json-server 0.17 answers a singular POST (a replace) with 201, PUT and PATCH with 200.
    assert blog.call("PUT", "/profile", {"name": "put"})[0] == 200
    status, _, body = blog.call("POST", "/profile", {"name": "posted"})
    assert (status, body) == (201, {"name": "posted"})
    assert blog.call("GET", "/profile")[2] == {"name": "posted"}
    assert blog.call("DELETE", "/profile")[0] == 405


def test_items_are_kept_as_written(blog):
    item = {"zeta": 1, "alpha": {"nested": [1, 2.5, None, True, "ü"]}, "id": 50}
    blog.call("POST", "/posts", item)
    status, _, raw = blog.call("GET", "/posts/50", headers={"Accept": "application/json"})
    text = json.dumps(raw, separators=(",", ":"))
    assert text == '{"zeta":1,"alpha":{"nested":[1,2.5,null,true,"\\u00fc"]},"id":50}'


@pytest.mark.parametrize(
    "body, status",
    [
        (b"[1,2]", 400),
        (b'"text"', 400),
        (b"{,}", 400),
        (b'{"a":1,"a":2}', 400),
    ],
)
def test_bad_bodies_change_nothing(blog, body, status):
    before = blog.call("GET", "/db")[2]
    response = blog.request("POST", "/posts", body=body, headers={"Content-Type": "application/json"})
    assert response.status == status
    assert blog.call("GET", "/db")[2] == before


def test_large_and_deep_items(blog):
    deep = current = {}
    for _ in range(39):
        current["next"] = {}
        current = current["next"]
    assert blog.call("POST", "/posts", {"deep": deep})[0] == 201
    wide = {f"k{i}": i for i in range(10_000)}
    status, _, body = blog.call("POST", "/posts", wide)
    assert status == 201 and len(body) == 10_001
    huge = blog.request("POST", "/posts", body={"s": "x" * (1 << 20)})
    assert huge.status == 413
    too_deep = current = {}
    for _ in range(80):
        current["n"] = {}
        current = current["n"]
    assert blog.call("POST", "/posts", too_deep)[0] == 400


def test_the_file_cannot_be_grown_past_its_limit(data_file, serve):
    # A deep item costs its depth in indentation on every value's line: under 1 MiB of body, some 60 MB of
    # file. Without a limit, a few of them make a file too large to load again at the next start.
    path = data_file(BLOG)
    server = serve(path, "--max-file-mb", "2")
    deep = "[" * 60 + ",".join(["1"] * 30_000) + "]" * 60
    response = server.request("POST", "/posts", body=('{"x":' + deep + "}").encode())
    assert response.status == 507 and response.json()["error"] == "data_file_full"
    assert "--max-file-mb" in response.json()["message"]
    for _ in range(3):
        assert server.call("POST", "/posts", {"text": "y" * 500_000})[0] == 201
    status, _, body = server.call("PUT", "/profile", {"text": "y" * 900_000})
    assert (status, body["error"]) == (507, "data_file_full")
    assert server.call("GET", "/profile")[2] == BLOG["profile"], "a refused write changes nothing"
    assert server.call("DELETE", "/posts/4")[0] == 200, "a write that shrinks the file always passes"
    assert server.call("PUT", "/profile", {"text": "y" * 900_000})[0] == 200
    wait_until(lambda: os.path.getsize(path) > 1_000_000, 5, message="the file rewritten")
    assert os.path.getsize(path) <= 2 << 20
    server.stop()
    again = serve(path, "--max-file-mb", "2")
    assert len(again.call("GET", "/posts")[2]) == 5


def test_string_ids_get_string_ids(data_file, serve):
    server = serve(data_file({"notes": [{"id": "a1", "text": "x"}]}))
    status, _, body = server.call("POST", "/notes", {"text": "y"})
    assert status == 201 and isinstance(body["id"], str) and len(body["id"]) >= 8


def test_custom_id_and_foreign_key_suffix(data_file, serve):
    server = serve(
        data_file({"users": [{"_id": 1, "name": "a"}], "todos": [{"_id": 1, "user_id": 1}]}),
        "--id", "_id", "--foreignKeySuffix", "_id")
    assert server.call("GET", "/users/1?_embed=todos")[2]["todos"] == [{"_id": 1, "user_id": 1}]
    assert server.call("POST", "/users", {"name": "b"})[2]["_id"] == 2


def test_read_only_refuses_writes(data_file, serve):
    server = serve(data_file(BLOG), "--read-only")
    status, headers, body = server.call("POST", "/posts", {"title": "x"})
    assert status == 405 and "GET" in headers["Allow"]
    assert server.call("DELETE", "/posts/1")[0] == 405
    assert server.call("GET", "/posts/1")[0] == 200


def test_delay_quiet_and_no_cors_as_json_server(data_file, serve):
    from livestate import SSEClient

    server = serve(data_file(BLOG), "--delay", "400", "--quiet", "--no-cors")
    with SSEClient.of(server, "/events?topics=posts") as client:
        opened = time.monotonic()
        assert client.read_head() == 200
        client.next(timeout=5)
        assert time.monotonic() - opened < 0.35, "an event stream is not delayed"
        # With CORS off no page of another origin may write (the Origin rule), and none gets CORS headers.
        status, headers, _ = server.call("POST", "/posts", {"title": "no"}, {"Origin": "http://localhost:5173"})
        assert status == 403 and "Access-Control-Allow-Origin" not in headers, "--no-cors sends no CORS headers"
        sent = time.monotonic()
        status, headers, _ = server.call("GET", "/posts", headers={"Origin": "http://localhost:5173"})
        assert status == 200 and "Access-Control-Allow-Origin" not in headers, "--no-cors sends no CORS headers"
        status, headers, _ = server.call("POST", "/posts", {"title": "late"})
        assert status == 201 and time.monotonic() - sent >= 0.8
        assert json.loads(client.next(timeout=5).data)[-1]["title"] == "late"
    sent = time.monotonic()
    assert server.call("GET", "/posts/1")[0] == 200 and time.monotonic() - sent >= 0.4
    assert "GET /posts/1" not in server.log() and "POST /posts" not in server.log(), "--quiet logs no requests"


def test_events_name_each_change(blog):
    from livestate import SSEClient

    with SSEClient.of(blog, "/events?topics=posts&diff=1") as client:
        assert client.read_head() == 200
        first = client.next(timeout=5)
        assert first.event == "posts" and len(json.loads(first.data)) == 3
        blog.call("PATCH", "/posts/1", {"views": 101})
        change = json.loads(client.next(timeout=5).data)
        assert change == {"inserted": [], "updated": [{**BLOG["posts"][0], "views": 101}], "deleted": []}
        blog.call("PATCH", "/posts/1", {"views": 101})  # changes nothing: no event
        blog.call("DELETE", "/posts/3")
        change = json.loads(client.next(timeout=5).data)
        assert change == {"inserted": [], "updated": [], "deleted": [3]}
    assert blog.call("GET", "/events?topics=todos")[0] == 400


def test_fifty_concurrent_writers_lose_nothing(blog):
    import threading

    results = []

    def writer(n):
        for i in range(10):
            status, _, body = blog.call("POST", "/comments", {"body": f"w{n}-{i}", "postId": 1})
            results.append((status, body["id"] if status == 201 else None))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [s for s, _ in results] == [201] * 500
    created = {i for _, i in results}
    assert len(created) == 500
    listed = {c["id"] for c in blog.call("GET", "/comments")[2]}
    assert created <= listed and len(listed) == 503
