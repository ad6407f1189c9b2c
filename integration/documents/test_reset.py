"""Reset and checkpoints, for a front end's tests (docs/own-data.md, "Reset and checkpoints"): `POST /db/reset`
puts every resource back as the file was when the server started (a JSON body: just the resources it names),
checkpoints save the state and restore it; each reset or restore is one journaled change, durable when
answered, written back to the file, and seen by /events clients and live queries as the ordinary changes it
makes. They are writes: --read-only, --token, Origin, Host and CORS rules apply."""
import json
import subprocess
import time

from livestate import LiveClient, SSEClient, Server, binary_path, wait_until

DB = {
    "posts": [{"id": i, "title": f"post {i}"} for i in range(1, 6)],
    "comments": [{"id": 1, "postId": 1, "body": "c"}],
    "profile": {"name": "typicode"},
}


def scribble(server):
    """What a test does to the data: a new item, a changed one, a deleted one (and its cascade), the profile."""
    assert server.call("POST", "/posts", {"title": "new"})[0] == 201
    assert server.call("PATCH", "/posts/3", {"title": "changed"})[0] == 200
    assert server.call("DELETE", "/posts/1")[0] == 200
    assert server.call("PUT", "/profile", {"name": "someone"})[0] == 200
    assert server.call("GET", "/comments")[2] == []


def state(server):
    return server.call("GET", "/db")[2]


def test_a_reset_puts_back_the_file_as_it_started_in_its_order_and_writes_it_back_durably(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    scribble(server)
    status, _, body = server.call("POST", "/db/reset")
    assert status == 200 and body["changes"] > 0, (status, body)
    # Item for item and in the file's order: post 1 goes back first, not after the others.
    assert state(server) == DB
    wait_until(lambda: json.loads(path.read_text()) == DB, 3, message="the file written back")
    # A reset of what is already the start changes nothing.
    assert server.call("POST", "/db/reset")[2] == {"changes": 0}
    # Durable when answered: kill -9 right after the answer keeps it.
    scribble(server)
    assert server.call("POST", "/db/reset")[0] == 200
    server.kill9()
    assert state(serve(path)) == DB


def test_a_body_replaces_just_the_resources_it_names_as_json_server_reset_does(data_file, serve):
    server = serve(data_file(DB))
    scribble(server)
    fixture = {"posts": [{"id": 7, "title": "fixture"}, {"id": 8, "title": "two"}], "profile": {"name": "f"}}
    status, _, _ = server.call("POST", "/db/reset", fixture)
    assert status == 200
    now = state(server)
    assert now["posts"] == fixture["posts"] and now["profile"] == fixture["profile"]
    assert now["comments"] == [], "a resource the body does not name stays as it was"
    assert server.call("GET", "/posts/7")[2] == {"id": 7, "title": "fixture"}
    # The next reset without a body goes back to the file as the server started.
    server.call("POST", "/db/reset")
    assert state(server) == DB


def test_a_bad_reset_body_is_a_clear_error_and_changes_nothing(data_file, serve):
    server = serve(data_file(DB))
    server.call("PATCH", "/posts/2", {"title": "kept"})
    before = state(server)
    for body, code in [({"nope": []}, "invalid_reset"), ({"profile": [{"id": 1}]}, "invalid_reset"),
                       ({"posts": {"id": 1}}, "invalid_reset"), ({"posts": [1, 2]}, "invalid_reset"),
                       ([{"id": 1}], "invalid_json")]:
        status, _, answer = server.call("POST", "/db/reset", body)
        assert status == 400 and answer["error"] == code, (body, status, answer)
    response = server.request("POST", "/db/reset", b"{\"posts\": [],}", headers={"Content-Type": "application/json"})
    assert response.status == 400 and response.json()["error"] == "invalid_json"
    response = server.request("POST", "/db/reset", b"posts=1", headers={"Content-Type": "text/plain"})
    assert response.status == 415
    assert state(server) == before


def test_clients_see_a_reset_as_the_ordinary_changes_it_makes_never_a_reload(data_file, serve):
    server = serve(data_file(DB))
    scribble(server)
    events = SSEClient.of(server, "/events?topics=posts&diff=1")
    assert events.read_head() == 200
    first = events.next()
    assert first.event == "posts"
    live = LiveClient(server, "/posts?_sort=id&_order=desc&_limit=3")
    live.first()
    page = LiveClient(server, "/posts")
    page.first()
    assert server.call("POST", "/db/reset")[0] == 200
    changes = events.drain(quiet=0.5)
    diffs = [event.json() for event in changes]
    assert diffs and all(set(diff) == {"inserted", "updated", "deleted"} for diff in diffs), diffs
    assert sum(len(d["inserted"]) + len(d["updated"]) + len(d["deleted"]) for d in diffs) == len(diffs)
    for client in (live, page):
        client.settle(server, quiet=0.3, note="after the reset")
        assert all(event.event == "change" for event in client.events[1:]), "a reset is never a new result"
    assert page.items == DB["posts"]
    events.close()
    live.close()
    page.close()


def test_a_checkpoint_is_saved_listed_restored_and_dropped(data_file, serve):
    server = serve(data_file(DB))
    server.call("PATCH", "/posts/2", {"title": "logged in"})
    saved = state(server)
    status, headers, checkpoint = server.call("POST", "/db/checkpoints", {"name": "logged in"})
    assert status == 201 and set(checkpoint) == {"id", "name", "eventId", "createdAt"}, checkpoint
    assert checkpoint["name"] == "logged in" and headers["Location"] == f"/db/checkpoints/{checkpoint['id']}"
    assert checkpoint["createdAt"].endswith("Z") and isinstance(checkpoint["eventId"], int)
    unnamed = server.call("POST", "/db/checkpoints")[2]
    assert unnamed["name"] == "" and unnamed["id"] != checkpoint["id"]
    assert unnamed["eventId"] == checkpoint["eventId"], "nothing changed between the two"
    listed = server.call("GET", "/db/checkpoints")[2]
    assert listed == [checkpoint, unnamed]
    assert server.call("GET", f"/db/checkpoints/{checkpoint['id']}")[2] == checkpoint
    scribble(server)
    status, _, body = server.call("POST", f"/db/checkpoints/{checkpoint['id']}/restore")
    assert status == 200 and body["changes"] > 0
    assert state(server) == saved
    assert server.call("DELETE", f"/db/checkpoints/{checkpoint['id']}")[:3:2] == (200, {})
    for method, path in [("DELETE", f"/db/checkpoints/{checkpoint['id']}"), ("GET", "/db/checkpoints/999"),
                         ("POST", f"/db/checkpoints/{checkpoint['id']}/restore"), ("POST", "/db/checkpoints/x/restore")]:
        status, _, body = server.call(method, path)
        assert status == 404 and body["error"] == "not_found", (method, path, status, body)
    assert server.call("GET", "/db/checkpoints")[2] == [unnamed]
    for body in [{"title": "x"}, {"name": 3}, {"name": "x" * 201}]:
        status, _, answer = server.call("POST", "/db/checkpoints", body)
        assert status == 400, (body, status, answer)
    assert len(server.call("GET", "/db/checkpoints")[2]) == 1


def test_checkpoints_are_bounded_by_max_checkpoints_and_one_past_it_saves_nothing(data_file, serve):
    server = serve(data_file(DB), "--max-checkpoints", "2")
    first, second = (server.call("POST", "/db/checkpoints", {"name": name})[2] for name in ("a", "b"))
    status, _, body = server.call("POST", "/db/checkpoints", {"name": "c"})
    assert status == 507 and body["error"] == "too_many_checkpoints" and "--max-checkpoints" in body["message"]
    assert server.call("GET", "/db/checkpoints")[2] == [first, second]
    assert server.call("DELETE", f"/db/checkpoints/{first['id']}")[0] == 200
    status, _, third = server.call("POST", "/db/checkpoints", {"name": "c"})
    assert status == 201 and server.call("GET", "/db/checkpoints")[2] == [second, third]
    refused = subprocess.run([binary_path(), "--port", "0", str(data_file(DB)), "--max-checkpoints", "10001"],
                             capture_output=True, text=True, timeout=20)
    assert refused.returncode != 0 and "max-checkpoints" in refused.stderr


def test_a_checkpoint_survives_a_restart_and_the_journals_retention(data_file, serve):
    path = data_file(DB)
    server = serve(path, "--journal-retention", "5")
    server.call("PATCH", "/posts/2", {"title": "saved"})
    saved = state(server)
    checkpoint = server.call("POST", "/db/checkpoints", {"name": "before"})[2]
    # Far more changes than retention keeps (the SQLite journal prunes every 1,024 entries).
    for i in range(1100):
        assert server.call("PATCH", "/posts/4", {"title": f"edit {i}"})[0] == 200
    server.kill9()
    restarted = serve(path, "--journal-retention", "5")
    assert restarted.call("GET", "/db/checkpoints")[2] == [checkpoint]
    assert restarted.call("POST", f"/db/checkpoints/{checkpoint['id']}/restore")[0] == 200
    assert state(restarted) == saved
    wait_until(lambda: json.loads(path.read_text()) == saved, 3, message="the restore written back")


def test_resets_and_checkpoints_are_writes_read_only_token_origin_and_host_apply(data_file, serve):
    path = data_file(DB)
    read_only = serve(path, "--read-only", data=":memory:")
    for method, target in [("POST", "/db/reset"), ("POST", "/db/checkpoints"), ("POST", "/db/checkpoints/1/restore"),
                           ("DELETE", "/db/checkpoints/1")]:
        status, headers, body = read_only.call(method, target)
        assert status == 405 and "Allow" in headers and "POST" not in headers["Allow"], (method, target, status)
    assert read_only.call("GET", "/db/checkpoints")[:3:2] == (200, [])
    read_only.stop()

    guarded = serve(path, "--token", "s3cret", data=":memory:")
    guarded.call("PATCH", "/posts/2", {"title": "x"}, {"Authorization": "Bearer s3cret"})
    for method, target in [("POST", "/db/reset"), ("POST", "/db/checkpoints")]:
        assert guarded.call(method, target)[0] == 401, (method, target)
    assert guarded.call("GET", "/db/checkpoints")[2] == []
    for target in ("/db/reset", "/db/checkpoints"):
        status, _, body = guarded.call("POST", target, headers={"Origin": "https://evil.example",
                                                                "Authorization": "Bearer s3cret"})
        assert status == 403 and body["error"] == "origin_not_allowed", (target, status, body)
    response = guarded.request("POST", "/db/reset", headers={"Host": "evil.example",
                                                             "Authorization": "Bearer s3cret"})
    assert response.status == 403 and response.json()["error"] == "host_not_allowed"
    assert guarded.call("GET", "/posts/2")[2]["title"] == "x", "nothing refused changed anything"
    status, headers, _ = guarded.call("POST", "/db/reset", headers={"Origin": "http://localhost:5173",
                                                                    "Authorization": "Bearer s3cret"})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    assert guarded.call("GET", "/posts/2")[2]["title"] == "post 2"


def test_a_reset_of_50000_items_answers_within_a_second_and_sends_the_changes_not_the_list(data_file, serve):
    big = {"items": [{"id": i, "name": f"item {i}", "n": i} for i in range(1, 50001)]}
    server = serve(data_file(big), data=":memory:")
    for i in range(50):
        server.call("POST", "/items", {"name": f"extra {i}"})
        assert server.call("PATCH", f"/items/{1000 * i + 500}", {"name": "changed"})[0] == 200
        server.call("DELETE", f"/items/{50000 - i}")
    events = SSEClient.of(server, "/events?topics=items&diff=1")
    assert events.read_head() == 200
    events.next(timeout=10)
    started = time.monotonic()
    status, _, body = server.call("POST", "/db/reset")
    elapsed = time.monotonic() - started
    assert status == 200 and body == {"changes": 150}, body
    assert elapsed < 1.0, f"the reset took {elapsed:.2f} s"
    sent = events.drain(quiet=0.5)
    assert len(sent) == 150 and all(len(event.data) < 200 for event in sent), len(sent)
    assert server.call("GET", "/items")[2] == big["items"]
    events.close()
    # The first item deleted: keeping the order would send the collection again; it goes to the end instead.
    server.call("DELETE", "/items/1")
    assert server.call("POST", "/db/reset")[2] == {"changes": 1}
    assert server.call("GET", "/items")[2] == big["items"][1:] + big["items"][:1]


def test_a_save_that_adds_a_resource_leaves_the_start_a_reset_goes_back_to(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    scribble(server)
    changed = state(server)
    wait_until(lambda: json.loads(path.read_text()) == changed, 3, message="the changes written back")
    # A person's save adds a resource: the server serves it from then on (its routes are built again).
    path.write_text(json.dumps({**changed, "tags": [{"id": 1, "label": "new"}]}, indent=2))
    wait_until(lambda: server.call("GET", "/tags")[0] == 200, 5, message="the added resource served")
    assert server.call("POST", "/db/reset")[0] == 200
    now = state(server)
    assert {name: now[name] for name in DB} == DB, "the reset goes back to the file as the server started"
    assert now["tags"] == [{"id": 1, "label": "new"}], "a resource added since is left as it is"
