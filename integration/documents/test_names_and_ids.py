"""A user's file as json-server 0.17.4 serves it: collections' singulars as `pluralize` gives them, items whose
id an earlier item has, new ids among the items there now, any number of resources, names in any case
(docs/own-data.md, "Resources", "Ids", "Relations")."""
import json

import pytest

from livestate import SSEClient, wait_until

# Collections whose parent field json-server names by `pluralize.singular`: (collection, singular). Each row
# was sent the requests of the test below by json-server 0.17.4 and LiveState side by side, which answered
# them alike (but the nested POST's parent id, which json-server stores as a string).
PARENTS = [
    ("dishes", "dish"), ("movies", "movie"), ("courses", "course"), ("houses", "house"), ("heroes", "hero"),
    ("matches", "match"), ("branches", "branch"), ("watches", "watch"), ("people", "person"),
    ("children", "child"), ("indices", "index"), ("data", "datum"), ("news", "news"), ("series", "series"),
    ("leaves", "leaf"), ("quizzes", "quiz"), ("categories", "category"), ("mice", "mouse"), ("geese", "goose"),
    ("criteria", "criterion"), ("statuses", "status"), ("addresses", "address"), ("wolves", "wolf"),
    ("knives", "knife"), ("analyses", "analysis"), ("cookies", "cooky"), ("buses", "bus"),
    ("blogPosts", "blogPost"), ("user-profiles", "user-profile"), ("order_items", "order_item"),
    ("sheep", "sheep"), ("aircraft", "aircraft"),
    # json-server reads `_expand=virus` and the cascade from the plural of `virus` (`viri`), which is not
    # the collection: it expands and cascades nothing there; LiveState uses the one rule both ways.
    ("viruses", "virus"), ("germans", "german"), ("indexes", "index"),
]

@pytest.mark.parametrize("collection, singular", PARENTS)
def test_relations_use_pluralizes_singular(data_file, serve, collection, singular):
    field = singular + "Id"
    server = serve(data_file({
        collection: [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}],
        "comments": [{"id": 1, field: 1, "body": "a"}, {"id": 2, field: 1, "body": "b"}, {"id": 3, field: 2}],
    }))
    assert server.call("GET", f"/{collection.upper()}/1")[2] == {"id": 1, "name": "one"}
    embedded = server.call("GET", f"/{collection}/1?_embed=comments")[2]
    assert [c["id"] for c in embedded["comments"]] == [1, 2]
    assert [c["id"] for c in server.call("GET", f"/{collection}/1/comments")[2]] == [1, 2]
    assert [c["id"] for c in server.call("GET", f"/{collection}/1/COMMENTS")[2]] == [1, 2]
    status, _, created = server.call("POST", f"/{collection}/2/comments", {"body": "nested"})
    assert status == 201 and created[field] == 2
    # `_expand` names the parent by its singular, irregular ones included (json-server pluralizes it back).
    status, _, expanded = server.call("GET", f"/comments/3?_expand={singular}")
    assert status == 200 and expanded[singular] == {"id": 2, "name": "two"}
    assert server.call("GET", f"/comments?_expand={singular}")[0] == 200
    assert server.call("DELETE", f"/{collection}/1")[0] == 200
    assert [c["id"] for c in server.call("GET", "/comments")[2]] == [3, created["id"]]


def test_duplicate_ids_get_new_ids_at_load_and_the_file_shows_them(data_file, serve):
    path = data_file({
        "songs": [
            {"id": 14, "title": "a"}, {"id": 14, "title": "b"}, {"id": "14", "title": "c"},
            {"id": 15, "title": "d"}, {"id": 15, "title": "e"}, {"title": "no id"},
        ],
        "cakes": [{"id": "truffle", "n": 1}, {"id": "truffle", "n": 2}],
    })
    server = serve(path)
    songs = server.call("GET", "/songs")[2]
    # Each later duplicate gets a new id as a POST would (the largest + 1), in place; so does the item without.
    assert [(s["id"], s["title"]) for s in songs] == [(14, "a"), (16, "b"), (17, "c"), (15, "d"), (18, "e"),
                                                      (19, "no id")]
    assert list(songs[1]) == ["id", "title"]  # the id stays where it was
    for song in songs:
        assert server.call("GET", f"/songs/{song['id']}")[2] == song
    cakes = server.call("GET", "/cakes")[2]
    assert cakes[0] == {"id": "truffle", "n": 1}
    assert isinstance(cakes[1]["id"], str) and cakes[1]["id"] != "truffle"
    assert server.call("GET", f"/cakes/{cakes[1]['id']}")[2]["n"] == 2
    log = server.log()
    for line in ["'songs'[1] had id 14", "it has id 16", "'songs'[2] had id 14", "it has id 17",
                 "'songs'[4] had id 15", "it has id 18", "'cakes'[1] had id truffle"]:
        assert line in log, log
    wait_until(lambda: json.loads(path.read_text())["songs"] == songs, 3, message="the file with the new ids")


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


def test_a_file_of_more_than_64_resources_is_served(data_file, serve):
    content = {f"r{n}": [{"id": 1, "n": n}] for n in range(100)}
    content["settings"] = {"theme": "dark"}
    server = serve(data_file(content))
    assert server.call("GET", "/r99/1")[2] == {"id": 1, "n": 99}
    assert server.call("GET", "/settings")[2] == {"theme": "dark"}
    with SSEClient.of(server, "/events?topics=r0,r99&diff=1") as client:
        assert client.read_head() == 200
        client.next(timeout=5)
        client.next(timeout=5)  # the two current lists
        assert server.call("POST", "/r64", {"n": "not asked for"})[0] == 201
        assert server.call("POST", "/r99", {"n": "asked for"})[0] == 201
        event = client.next(timeout=3)
        assert event.event == "r99" and json.loads(event.data)["inserted"] == [{"n": "asked for", "id": 2}]


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
