"""A user's file as json-server 0.17.4 serves it: collections' singulars as `pluralize` gives them,
new ids among the items there now, names in any case
(docs/own-data.md, "Resources", "Ids", "Relations")."""
import pytest


# Collections whose parent field json-server names by `pluralize.singular`: (collection, singular).
PARENTS = [
    ("dishes", "dish"), ("movies", "movie"), ("courses", "course"), ("heroes", "hero"), ("matches", "match"),
    ("people", "person"), ("children", "child"), ("indices", "index"), ("data", "datum"), ("leaves", "leaf"),
    ("quizzes", "quiz"), ("series", "series"), ("news", "news"), ("categories", "category"),
]


@pytest.mark.parametrize("collection, singular", PARENTS)
def test_relations_use_pluralizes_singular(data_file, serve, collection, singular):
    field = singular + "Id"
    server = serve(data_file({
        collection: [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}],
        "comments": [{"id": 1, field: 1, "body": "a"}, {"id": 2, field: 1, "body": "b"}, {"id": 3, field: 2}],
    }))
    embedded = server.call("GET", f"/{collection}/1?_embed=comments")[2]
    assert [c["id"] for c in embedded["comments"]] == [1, 2]
    assert [c["id"] for c in server.call("GET", f"/{collection}/1/comments")[2]] == [1, 2]
    status, _, created = server.call("POST", f"/{collection}/2/comments", {"body": "nested"})
    assert status == 201 and created[field] == 2
    # `_expand` names the parent by its singular, irregular ones included (json-server pluralizes it back).
    status, _, expanded = server.call("GET", f"/comments/3?_expand={singular}")
    assert status == 200 and expanded[singular] == {"id": 2, "name": "two"}
    assert server.call("GET", f"/comments?_expand={singular}")[0] == 200
    assert server.call("DELETE", f"/{collection}/1")[0] == 200
    assert [c["id"] for c in server.call("GET", "/comments")[2]] == [3, created["id"]]


def test_a_new_id_is_the_largest_among_the_items_there_now(data_file, serve):
    server = serve(data_file({
        "comments": [{"id": 1}, {"id": 2}, {"id": 3}],
        "sparse": [{"id": 1}, {"id": 1000000}],
        "words": [{"id": "a"}, {"id": "b"}],
    }))
    assert server.call("DELETE", "/comments/3")[0] == 200
    assert server.call("POST", "/comments", {"body": "x"})[2]["id"] == 3
    for id in (1, 2, 3):
        assert server.call("DELETE", f"/comments/{id}")[0] == 200
    assert server.call("POST", "/comments", {"body": "first again"})[2]["id"] == 1
    assert server.call("DELETE", "/sparse/1000000")[0] == 200
    assert server.call("POST", "/sparse", {})[2]["id"] == 2
    # An emptied collection starts again at 1 whatever its ids were, as json-server's does.
    for id in ("a", "b"):
        assert server.call("DELETE", f"/words/{id}")[0] == 200
    assert server.call("POST", "/words", {})[2]["id"] == 1


def test_resource_names_match_in_any_case(data_file, serve):
    server = serve(data_file({
        "posts": [{"id": 1, "title": "a"}],
        "Posts": [{"id": 1, "title": "capital"}],
        "comments": [{"id": 1, "postId": 1}],
        "profile": {"name": "x"},
    }))
    assert server.call("GET", "/POSTS/1")[2] == {"id": 1, "title": "a"}
    # A name spelled exactly as a resource's is that one.
    assert server.call("GET", "/Posts/1")[2] == {"id": 1, "title": "capital"}
    assert server.call("GET", "/Comments?postId=1")[2] == [{"id": 1, "postId": 1}]
    assert server.call("GET", "/posts/1/COMMENTS")[2] == [{"id": 1, "postId": 1}]
    assert server.call("PATCH", "/POSTS/1", {"title": "b"})[2] == {"id": 1, "title": "b"}
    assert server.call("GET", "/PROFILE")[2] == {"name": "x"}
    assert server.call("GET", "/nothing")[0] == 404
