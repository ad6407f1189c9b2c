"""json-server's custom routes (`--routes routes.json`, docs/own-data.md "Custom routes"): the rules of its
README against the real binary, with the answers json-server 0.17.4 gives on the same file and rules; and
its options file, `json-server.json`."""
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request

from livestate import binary_path

DB = {
    "posts": [{"id": 1, "title": "a", "category": "javascript"}, {"id": 2, "title": "b", "category": "1"}],
    "comments": [{"id": 1, "postId": 1}],
}
RULES = {
    "/api/*": "/$1",
    "/:resource/:id/show": "/:resource/:id",
    "/posts/:category": "/posts?category=:category",
    "/articles\\?id=:id": "/posts/:id",
}


def routes_file(tmp_path, rules):
    path = tmp_path / "routes.json"
    path.write_text(rules if isinstance(rules, str) else json.dumps(rules, indent=2))
    return path


def test_the_readmes_rules_answer_as_json_server_does(data_file, serve, tmp_path):
    server = serve(data_file(DB), "--routes", str(routes_file(tmp_path, RULES)))
    titles = lambda path: [p["title"] for p in server.call("GET", path)[2]]  # noqa: E731
    assert titles("/api/posts") == ["a", "b"]
    assert titles("/api/posts?_limit=1") == ["a"]
    assert titles("/posts/javascript") == ["a"]
    # The rules are chained, as json-server's middlewares are: /posts/1 goes on to /posts?category=1.
    assert titles("/api/posts/1") == ["b"]
    assert titles("/posts/1/show") == ["b"]
    assert server.call("GET", "/articles?id=1")[2] == DB["posts"][0]
    assert server.call("GET", "/comments/1/show")[2] == {"id": 1, "postId": 1}
    status, _, rules = server.call("GET", "/__rules")
    assert status == 200 and rules == RULES and list(rules) == list(RULES)
    # Writes go through the rules too, and their events are the resource's.
    status, headers, created = server.call("POST", "/api/comments", {"postId": 2})
    assert status == 201 and created == {"postId": 2, "id": 2} and headers["Location"] == "/comments/2"
    assert server.call("GET", "/comments/2")[2] == created


def test_without_routes_there_is_no_rules_list(data_file, serve):
    server = serve(data_file(DB))
    assert server.call("GET", "/__rules")[0] == 404
    assert server.call("GET", "/api/posts")[0] == 404


def test_a_routes_file_that_cannot_be_used_stops_the_start_with_one_line(data_file, tmp_path):
    path = data_file(DB)
    for rules, words in [("{\"api/*\": \"/$1\"}", "must start with '/'"), ("[1]", "JSON object"),
                         ("{\"/a\": \"/b\",}", "line 1"), ("{\"/x/:id([)\": \"/y\"}", "cannot be used")]:
        run = subprocess.run([binary_path(), "--port", "0", "--data", ":memory:", "--routes",
                              str(routes_file(tmp_path, rules)), str(path)], capture_output=True, text=True, timeout=20)
        assert run.returncode == 1, (rules, run.returncode, run.stderr)
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "routes.json" in lines[0], (rules, run.stderr)


def test_json_server_json_in_the_working_folder_gives_the_options_a_flag_does_not(data_file, tmp_path):
    path = data_file(DB)
    routes_file(tmp_path, {"/api/*": "/$1"})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "json-server.json").write_text(json.dumps(
        {"port": port, "routes": "routes.json", "readOnly": True, "snapshots": "./snapshots", "quiet": True}))
    # As a json-server user runs it: the file's name alone, in its folder; the journal beside it.
    server = subprocess.Popen([binary_path(), "db.json", "--data", ":memory:", "--host", "127.0.0.1"], cwd=tmp_path,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == f"listening on http://127.0.0.1:{port}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/posts", timeout=5) as response:
            assert [p["title"] for p in json.loads(response.read())] == ["a", "b"]
        request = urllib.request.Request(f"http://127.0.0.1:{port}/posts", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=5)
            raise AssertionError("a write was accepted with readOnly")
        except urllib.error.HTTPError as error:
            assert error.code == 405
        server.stdin.write("s\n")  # json-server's snapshot, into the file's "snapshots" folder
        server.stdin.flush()
        deadline = time.monotonic() + 10
        while not list((tmp_path / "snapshots").glob("db-*.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(list((tmp_path / "snapshots").glob("db-*.json"))) == 1
        time.sleep(0.2)
    finally:
        server.terminate()
        _, log = server.communicate(timeout=10)
    assert "GET /api/posts" not in log, "quiet: no request lines"


def test_a_resource_named_like_the_rules_list_is_refused_at_start(data_file):
    run = subprocess.run([binary_path(), "--port", "0", "--data", ":memory:", str(data_file({"__rules": []}))],
                         capture_output=True, text=True, timeout=20)
    assert run.returncode == 1 and "own routes" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_a_saved_routes_file_applies_to_the_next_requests_and_a_broken_save_keeps_the_rules(
        data_file, serve, tmp_path):
    from livestate import wait_until
    routes = routes_file(tmp_path, {"/api/*": "/$1"})
    server = serve(data_file(DB), "--routes", str(routes))
    assert server.call("GET", "/api/posts/1")[0] == 200
    temp = tmp_path / ".routes.json.swp"
    temp.write_text(json.dumps({"/v2/*": "/$1"}))
    temp.rename(routes)  # as an editor saves
    wait_until(lambda: server.call("GET", "/v2/posts/1")[0] == 200, 2, message="the new rules in force")
    assert server.call("GET", "/api/posts/1")[0] == 404
    assert server.call("GET", "/__rules")[2] == {"/v2/*": "/$1"}
    routes.write_text('{"/v3/*": ')  # a save that does not parse
    wait_until(lambda: "routes before this save stay" in server.log(), 2, message="the broken save reported")
    assert server.call("GET", "/v2/posts/1")[0] == 200
    assert server.call("GET", "/__rules")[2] == {"/v2/*": "/$1"}
