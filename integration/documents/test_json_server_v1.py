"""Code written for json-server v1 (its README): the `_per_page` envelope, `_where`, `_embed` of a parent,
`DELETE …?_dependent=`, against the real binary on a real file (docs/own-data.md)."""
import json
import urllib.parse

import pytest

DATA = {
    "posts": [
        {"id": 1, "title": "json-server", "views": 100, "author": {"name": "typicode"}},
        {"id": 2, "title": "lowdb", "views": 250, "author": {"name": "zed"}},
        {"id": 3, "title": "Hotel", "views": 50, "author": {"name": "alice"}},
        {"id": 4, "title": "steno", "views": "120", "author": {"name": "bob"}},
        {"id": 5, "title": "husky", "views": 300},
    ],
    "comments": [
        {"id": 1, "body": "first", "postId": 1},
        {"id": 2, "body": "second", "postId": 1},
        {"id": 3, "body": "third", "postId": 2},
    ],
}


@pytest.fixture
def server(data_file, serve):
    return serve(data_file(DATA))


def ids(body):
    return [item["id"] for item in body]


def where(condition):
    return "_where=" + urllib.parse.quote(json.dumps(condition))


def test_page_with_per_page_answers_the_v1_envelope(server):
    status, headers, body = server.call("GET", "/posts?_page=2&_per_page=2")
    assert status == 200, body
    assert body == {"first": 1, "prev": 1, "next": 3, "last": 3, "pages": 3, "items": 5,
                    "data": [DATA["posts"][2], DATA["posts"][3]]}
    assert headers["X-Total-Count"] == "5"
    first = server.call("GET", "/posts?_page=1&_per_page=25")[2]
    assert first["prev"] is None and first["next"] is None and first["pages"] == 1 and len(first["data"]) == 5
    # A page past the last answers the last, as v1's does; filters and sort apply first.
    past = server.call("GET", "/posts?_page=9&_per_page=2&_sort=-id")[2]
    assert past["prev"] == 2 and past["next"] is None and ids(past["data"]) == [1]
    empty = server.call("GET", "/posts?title=nothing&_page=1&_per_page=10")[2]
    assert empty == {"first": 1, "prev": None, "next": None, "last": 1, "pages": 1, "items": 0, "data": []}
    # 0.17's `_page` with `_limit` keeps its plain list and Link.
    status, headers, body = server.call("GET", "/posts?_page=1&_limit=2")
    assert ids(body) == [1, 2] and "rel=\"next\"" in headers["Link"]
    assert server.call("GET", "/posts?_page=1&_per_page=0")[0] == 400


@pytest.mark.parametrize("condition, expected", [
    ({"views": {"gt": 100}}, [2, 4, 5]),
    ({"views": {"gte": 100, "lt": 300}}, [1, 2, 4]),
    ({"or": [{"views": {"gt": 260}}, {"author": {"name": {"lt": "b"}}}]}, [3, 5]),
    ({"and": [{"views": {"gt": 60}}, {"not": {"title": {"startsWith": "JSON"}}}]}, [2, 4, 5]),
    ({"title": {"contains": "OTE"}}, [3]),
    ({"title": {"endsWith": "y"}}, [5]),
    ({"id": {"in": [1, 3, "5"]}}, [1, 3]),
    ({"views": {"eq": "120"}}, [4]),
    ({"views": {"ne": 100}}, [2, 3, 4, 5]),
    ({"author": {"name": {"eq": "zed"}}}, [2, 5]),
    ({"or": []}, []),
])
def test_where_filters_as_v1(server, condition, expected):
    status, _, body = server.call("GET", "/posts?" + where(condition))
    assert status == 200 and ids(body) == expected, (condition, body)


def test_where_replaces_the_filters_and_is_refused_when_malformed(server):
    assert ids(server.call("GET", "/posts?title=lowdb&" + where({"views": {"lt": 60}}))[2]) == [3]
    for bad in ("{", "[1]", json.dumps({"or": {"a": 1}}), json.dumps({"a": {"gt": i} for i in range(1)} | {
            f"f{i}": {"eq": i} for i in range(30)})):
        status, _, body = server.call("GET", "/posts?_where=" + urllib.parse.quote(bad))
        assert status == 400 and body["error"] in ("invalid_query", "query_too_expensive"), (bad, body)
    # The envelope takes `_where` too.
    body = server.call("GET", "/posts?_page=1&_per_page=2&" + where({"views": {"gt": 100}}))[2]
    assert body["items"] == 3 and ids(body["data"]) == [2, 4]


def test_embed_names_a_parent_as_well_as_children(server):
    status, _, body = server.call("GET", "/comments?_embed=post")
    assert status == 200, body
    assert [comment["post"]["title"] for comment in body] == ["json-server", "json-server", "lowdb"]
    assert server.call("GET", "/comments/3?_embed=post")[2]["post"] == DATA["posts"][1]
    assert [len(post["comments"]) for post in server.call("GET", "/posts?_embed=comments")[2]] == [2, 1, 0, 0, 0]
    assert server.call("GET", "/comments?_embed=nothing")[0] == 400


def test_delete_with_dependent_deletes_the_dependents(server):
    status, _, body = server.call("DELETE", "/posts/1?_dependent=comments")
    assert status == 200 and body == {}
    assert ids(server.call("GET", "/comments")[2]) == [3]
    assert server.call("GET", "/posts/1")[0] == 404
