"""Deeply nested items against the file's rewrite: an item is bounded by what it takes in the file as
written (indented, each value on a line of its own at its depth), not only by its body's bytes, so that one
1 MiB body cannot make some 70 MB of file that every later rewrite writes again (docs/own-data.md, "Limits")."""
import http.client
import json

from livestate import wait_until


def nested(levels, zeros):
    """An object nested `levels` deep whose innermost member is an array of `zeros` zeros, as compact text."""
    text = "[" + ",".join(["0"] * zeros) + "]"
    for _ in range(levels - 1):
        text = '{"a":' + text + "}"
    return text


def send(server, method, path, text):
    """Sends the JSON `text` as it is (the harness would parse and re-encode a dict); (status, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request(method, path, body=text, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_a_body_that_would_take_tens_of_megabytes_of_the_file_is_refused_and_changes_nothing(data_file, serve):
    path = data_file({"deep": [{"id": 1, "a": 0}]})
    server = serve(path)
    bomb = nested(62, 520_000)  # 1 MiB, some 65 MB as written
    assert len(bomb) < 1 << 20
    status, body = send(server, "POST", "/deep", bomb)
    assert status == 413, body
    assert body["error"] == "payload_too_large" and "MB" in body["message"]
    # A PATCH that would grow an item as much is refused the same way.
    status, body = send(server, "PATCH", "/deep/1", '{"b":' + nested(61, 520_000) + "}")
    assert status == 413, body
    assert server.call("GET", "/deep")[2] == [{"id": 1, "a": 0}]
    assert server.call("POST", "/deep", {"small": True})[0] == 201
    wait_until(lambda: len(json.loads(path.read_text())["deep"]) == 2, 2, message="the small write written back")
    assert path.stat().st_size < 1000


def test_a_deep_item_within_the_bound_is_kept_and_written_back_as_json_server_writes_it(data_file, serve):
    path = data_file({"deep": []})
    server = serve(path)
    item = nested(60, 20_000)  # some 2.5 MB as written
    status, created = send(server, "POST", "/deep", item)
    assert status == 201, created
    wait_until(lambda: path.stat().st_size > 2_000_000, 10, message="the item written back")
    assert json.loads(path.read_text()) == {"deep": [created]}
    assert path.read_text() == json.dumps({"deep": [created]}, indent=2) + "\n"
