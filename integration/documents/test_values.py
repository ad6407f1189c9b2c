"""What a data file holds besides resources of items (docs/own-data.md, "Lists of values and $schema"): json-server's
`$schema` line, kept and not served; an array whose elements are not all objects, served read-only as a list of
values; a string, number, boolean or null under a key, refused at start."""
import json
import os
import subprocess

import pytest

from livestate import SSEClient, binary_path, wait_until

SCHEMA = "./node_modules/json-server/schema.json"
DB = {
    "$schema": SCHEMA,
    "posts": [{"id": 1, "title": "a"}],
    "tags": ["a", "b", "c"],
    "scores": [1, 2.5, -3],
    "mixed": [None, True, {"x": 1}, [1, []], "é ∑ \"q\""],
    "profile": {"name": "x"},
}


def as_json_server_writes(db):
    """`JSON.stringify(db, null, 2)` and a final newline."""
    return json.dumps(db, indent=2, ensure_ascii=False) + "\n"


def save(path, db):
    """Saves `db` the way an editor does: a new file renamed over the old one."""
    temp = path.with_name(".db.json.edit")
    temp.write_text(as_json_server_writes(db))
    os.rename(temp, path)


def written_back(path, titles):
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == titles, 1.5,
               message="file written back")


def test_schema_is_no_route_but_is_in_db_and_kept_in_place_by_a_rewrite(data_file, serve):
    path = data_file(as_json_server_writes(DB))
    server = serve(path)
    assert server.call("GET", "/%24schema")[0] == 404
    # json-server's /db answers its whole state, `$schema` included; LiveState's too, in the file's order.
    status, _, db = server.call("GET", "/db")
    assert status == 200 and list(db) == list(DB) and db == DB
    assert "$schema" not in json.dumps(server.call("GET", "/openapi.json")[2]["paths"])
    assert server.call("GET", "/events?topics=%24schema")[0] == 400
    assert server.call("POST", "/posts", {"title": "b"})[0] == 201
    written_back(path, ["a", "b"])
    assert path.read_text() == as_json_server_writes({**DB, "posts": DB["posts"] + [{"id": 2, "title": "b"}]})


@pytest.mark.parametrize("name", ["tags", "scores", "mixed"])
def test_a_list_of_values_is_served_whole_with_its_count(data_file, serve, name):
    server = serve(data_file(DB))
    status, headers, body = server.call("GET", f"/{name}")
    assert status == 200 and body == DB[name]
    assert headers["X-Total-Count"] == str(len(DB[name]))
    status, headers, body = server.call("HEAD", f"/{name}")
    assert (status, body) == (200, None) and headers["X-Total-Count"] == str(len(DB[name]))


@pytest.mark.parametrize(
    "query, expected, link",
    [
        ("_start=1&_end=3", ["b", "c"], False),
        ("_start=1&_limit=1", ["b"], False),
        ("_limit=2", ["a", "b"], False),
        ("_page=2&_limit=2", ["c"], True),
        ("_limit=0", [], False),
        ("_start=9", [], False),
    ],
)
def test_a_list_of_values_takes_slices_and_pages(data_file, serve, query, expected, link):
    server = serve(data_file(DB))
    status, headers, body = server.call("GET", f"/tags?{query}")
    assert (status, body) == (200, expected)
    assert headers["X-Total-Count"] == "3"
    assert ('rel="next"' in (headers["Link"] or "") or 'rel="first"' in (headers["Link"] or "")) == link


def test_q_keeps_the_elements_holding_the_text_at_any_depth_as_json_servers_does(data_file, serve):
    server = serve(data_file(DB))
    status, headers, body = server.call("GET", "/tags?q=B")
    assert (status, body, headers["X-Total-Count"]) == (200, ["b"], "1")
    assert server.call("GET", "/mixed?q=%E2%88%91")[2] == ["é ∑ \"q\""]
    assert server.call("GET", "/mixed?q=x")[2] == []  # a key is not searched, only string values
    assert server.call("GET", "/tags?q=zz")[2] == []
    assert server.call("GET", "/tags?q=a&_limit=0")[1]["X-Total-Count"] == "1"


@pytest.mark.parametrize("query", ["_sort=x", "x=1", "_embed=posts", "_page=0", "_limit=-1", "_bogus=1"])
def test_a_query_a_list_of_values_cannot_take_is_a_400(data_file, serve, query):
    server = serve(data_file(DB))
    status, _, body = server.call("GET", f"/tags?{query}")
    assert status == 400 and body["error"] == "invalid_query", body


def test_an_element_of_a_list_of_values_is_a_404_that_says_why(data_file, serve):
    server = serve(data_file(DB))
    status, _, body = server.call("GET", "/tags/0")
    assert status == 404 and "list of values" in body["message"]


@pytest.mark.parametrize("flags", [(), ("--read-only",)])
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("target", ["/tags", "/tags/0", "/tags/a"])
def test_every_write_to_a_list_of_values_is_a_405_that_says_why(data_file, serve, flags, method, target):
    path = data_file(as_json_server_writes(DB))
    server = serve(path, *flags)
    status, headers, body = server.call(method, target, None if method == "DELETE" else {"x": 1})
    assert status == 405, body
    assert headers["Allow"] == "GET, HEAD"
    assert body["error"] == "method_not_allowed"
    assert "list of values" in body["message"] and "edit it in the data file" in body["message"]
    assert server.call("GET", "/tags")[2] == DB["tags"]
    assert path.read_text() == as_json_server_writes(DB)


def test_options_of_a_list_of_values_names_only_its_reads(data_file, serve):
    server = serve(data_file(DB))
    response = server.request("OPTIONS", "/tags")
    assert response.status == 204 and response.header("Allow") == "GET, HEAD"


def test_lists_of_values_stay_byte_exact_across_rewrites(data_file, serve):
    path = data_file(as_json_server_writes(DB))
    server = serve(path)
    for title in ["b", "c"]:
        assert server.call("POST", "/posts", {"title": title})[0] == 201
    assert server.call("PATCH", "/profile", {"age": 1})[0] == 200
    expected = {**DB, "posts": DB["posts"] + [{"id": 2, "title": "b"}, {"id": 3, "title": "c"}],
                "profile": {"name": "x", "age": 1}}
    wait_until(lambda: path.read_text() == as_json_server_writes(expected), 1.5, message="file written back")


def test_an_edit_of_a_list_of_values_is_served_and_kept_by_the_next_rewrite(data_file, serve):
    path = data_file(as_json_server_writes(DB))
    server = serve(path)
    with SSEClient.of(server, "/events?topics=posts") as events:
        assert events.next().event == "posts"
        edited = {**DB, "tags": ["z", 1, None], "$schema": "./other.json"}
        save(path, edited)
        wait_until(lambda: server.call("GET", "/tags")[2] == ["z", 1, None], 1.5, message="the edit served")
        assert server.call("GET", "/tags")[1]["X-Total-Count"] == "3"
        assert server.call("GET", "/db")[2] == edited
        # A list of values is no topic: its edit sends nothing to the resources' streams.
        assert events.drain() == []
    assert server.call("GET", "/events?topics=tags")[0] == 400
    assert server.call("POST", "/posts", {"title": "b"})[0] == 201
    written_back(path, ["a", "b"])
    assert path.read_text() == as_json_server_writes({**edited, "posts": DB["posts"] + [{"id": 2, "title": "b"}]})


def test_a_save_that_drops_schema_drops_it_from_the_next_rewrite(data_file, serve):
    path = data_file(as_json_server_writes(DB))
    server = serve(path)
    edited = {key: value for key, value in DB.items() if key != "$schema"}
    save(path, edited)
    wait_until(lambda: "$schema" not in server.call("GET", "/db")[2], 1.5, message="the edit loaded")
    assert server.call("POST", "/posts", {"title": "b"})[0] == 201
    written_back(path, ["a", "b"])
    assert "$schema" not in json.loads(path.read_text())


def test_a_list_of_values_saved_as_items_keeps_being_served_until_a_restart(data_file, serve):
    path = data_file(as_json_server_writes(DB))
    server = serve(path)
    save(path, {**DB, "tags": [{"id": 1}]})
    wait_until(lambda: "'tags' is new or changed kind" in server.log(), 1.5, message="the log line")
    assert server.call("GET", "/tags")[2] == DB["tags"]
    assert server.alive()


def test_an_empty_array_stays_a_collection(data_file, serve):
    server = serve(data_file({"things": [], "tags": ["a"]}))
    assert server.call("POST", "/things", {"name": "first"})[0] == 201
    assert server.call("GET", "/things")[2] == [{"id": 1, "name": "first"}]


def test_the_openapi_document_gives_a_list_of_values_its_get_alone(data_file, serve):
    server = serve(data_file(DB))
    paths = server.call("GET", "/openapi.json")[2]["paths"]
    assert set(paths["/tags"]) == {"get"}
    assert "/tags/{id}" not in paths
    assert {p["name"] for p in paths["/tags"]["get"]["parameters"]} == {"q", "_page", "_limit", "_start", "_end"}


@pytest.mark.parametrize(
    "content, key, kind",
    [
        ('{"posts": [], "version": 3}', "version", "an integer"),
        ('{"title": "x"}', "title", "a string"),
        ('{"flag": true}', "flag", "a boolean"),
        ('{"nothing": null}', "nothing", "null"),
        ('{"ratio": 0.5}', "ratio", "a number"),
    ],
)
def test_a_string_number_boolean_or_null_under_a_key_refuses_the_start_naming_it(data_file, content, key, kind):
    path = data_file(content)
    run = subprocess.run([binary_path(), "--port", "0", "--data", ":memory:", str(path)], capture_output=True,
                         text=True, timeout=20)
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert f"'{key}' holds {kind}" in lines[0]
    assert "array" in lines[0] and "object" in lines[0]
