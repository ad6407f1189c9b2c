"""A save that adds or removes a resource while the server runs: an added one is served from then on, a
removed one answers 404, and its live streams (`/events` clients of its topic, live queries on it) get a
last `removed` event and end (docs/own-data.md, "Edited by a person")."""
import json
import os

from livestate import SSEClient, wait_until

DB = {"posts": [{"id": 1, "title": "a"}], "comments": [{"id": 1, "postId": 1, "body": "c"}]}


def save(path, content):
    """Saves `content` over `path` as an editor does: a temporary file renamed over it."""
    temp = path.with_name(".db.json.swp")
    temp.write_text(json.dumps(content, indent=2))
    os.rename(temp, path)


def test_a_resource_added_to_the_file_is_served_and_one_removed_answers_404(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    assert server.call("GET", "/notes")[0] == 404
    save(path, {"posts": DB["posts"], "notes": [{"id": 7, "text": "new"}], "profile": {"name": "p"}})
    wait_until(lambda: server.call("GET", "/notes")[0] == 200, 2, message="the new collection served")
    assert server.call("GET", "/notes")[2] == [{"id": 7, "text": "new"}]
    assert server.call("GET", "/profile")[2] == {"name": "p"}
    assert server.call("GET", "/comments")[0] == 404
    assert server.call("GET", "/comments/1")[0] == 404
    wait_until(lambda: "'comments' is no longer in the file" in server.log(), 2, message="the removal logged")
    # The new resources take writes, have topics, and are written back in the file's order.
    status, _, made = server.call("POST", "/notes", {"text": "posted"})
    assert status == 201 and made["id"] == 8
    with SSEClient.of(server, "/events?topics=notes,profile") as client:
        assert client.read_head() == 200
    assert server.call("GET", "/events?topics=comments")[0] == 400
    wait_until(lambda: json.loads(path.read_text()).get("notes", [])[-1:] == [made], 2, message="written back")
    assert list(json.loads(path.read_text())) == ["posts", "notes", "profile"]
    assert list(server.call("GET", "/db")[2]) == ["posts", "notes", "profile"]


def test_the_live_streams_of_a_removed_resource_get_a_last_event_and_end(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    events = SSEClient.of(server, "/events?topics=comments")
    live = SSEClient.of(server, "/comments?postId=1")
    other = SSEClient.of(server, "/events?topics=posts")
    try:
        for client in (events, live, other):
            assert client.read_head() == 200
            client.next(timeout=5)  # the current list, or the live query's result
        save(path, {"posts": DB["posts"]})
        for client in (events, live):
            last = client.until(lambda event: event.event == "removed", timeout=3)
            assert json.loads(last.data)["resource"] == "comments"
            assert client.wait_closed(timeout=3)
        # A client of another topic keeps its stream and its events.
        assert server.call("POST", "/posts", {"title": "b"})[0] == 201
        assert other.until(lambda event: event.event == "posts", timeout=3)
        assert not other.closed
    finally:
        for client in (events, live, other):
            client.close()
