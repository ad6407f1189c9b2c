"""Lists of values and `$schema` with `--data postgresql://…` (docs/own-data.md, "Lists of values and $schema"):
the database holds resources of items only, so each instance serves the lists of values of its own file, as read
at start, read-only; the resources stay shared."""

import json

import pytest
from livestate import Server, wait_until


def write(folder, db):
    folder.mkdir(exist_ok=True)
    path = folder / "db.json"
    path.write_text(json.dumps(db, indent=2) + "\n")
    return path


@pytest.fixture()
def launch(cluster, binary):
    servers = []

    def start(path):
        server = Server(str(path), binary=binary, data=cluster.uri, public=None)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        if server.alive():
            server.kill9()


def test_each_instance_serves_its_own_files_lists_of_values_and_shares_the_resources(tmp_path, launch):
    first = write(tmp_path / "a", {"$schema": "./schema.json", "posts": [{"id": 1, "title": "a"}], "tags": ["a"]})
    second = write(tmp_path / "b", {"posts": [], "tags": ["b", 2], "posts2": [{"id": 1}]})
    seeding = launch(first)
    following = launch(second)
    assert "served as this file holds them" in seeding.log()
    assert seeding.call("GET", "/tags")[2] == ["a"]
    assert following.call("GET", "/tags")[2] == ["b", 2]
    # The resources are the database's: the first file's, on both.
    assert following.call("GET", "/posts")[2] == [{"id": 1, "title": "a"}]
    assert following.call("GET", "/posts2")[0] == 404
    assert following.call("GET", "/db")[2] == {"posts": [{"id": 1, "title": "a"}], "tags": ["b", 2]}
    assert seeding.call("GET", "/db")[2] == {"$schema": "./schema.json", "posts": [{"id": 1, "title": "a"}],
                                            "tags": ["a"]}
    for server in (seeding, following):
        status, headers, body = server.call("POST", "/tags", {"x": 1})
        assert (status, headers["Allow"], body["error"]) == (405, "GET, HEAD", "method_not_allowed")
    assert following.call("POST", "/posts", {"title": "b"})[0] == 201
    wait_until(lambda: seeding.call("GET", "/posts/2")[0] == 200, 10, message="the write shared")


def test_a_list_of_values_named_as_a_resource_of_the_database_is_the_databases(tmp_path, launch):
    launch(write(tmp_path / "a", {"posts": [{"id": 1}]}))
    other = launch(write(tmp_path / "b", {"posts": ["not", "items"]}))
    assert other.call("GET", "/posts")[2] == [{"id": 1}]
    assert other.call("POST", "/posts", {"title": "x"})[0] == 201


def test_an_instance_without_its_file_or_with_a_broken_one_serves_no_lists_of_values(tmp_path, launch):
    launch(write(tmp_path / "a", {"posts": [], "tags": ["a"]}))
    missing = launch(tmp_path / "none" / "db.json")
    assert missing.call("GET", "/tags")[0] == 404
    broken = tmp_path / "c" / "db.json"
    broken.parent.mkdir()
    broken.write_text('{"tags": [1,')
    served = launch(broken)
    assert served.call("GET", "/tags")[0] == 404
    assert "lists of values are not served" in served.log()
    assert served.call("GET", "/posts")[2] == []
