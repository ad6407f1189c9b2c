"""Reset and checkpoints of a data file on PostgreSQL, two instances (docs/own-data.md, "Reset and
checkpoints"): a reset or a restore through one instance reaches the other's clients as ordinary changes,
every instance resets to the same state (the first instance's start, saved in the database) and lists and
restores the same checkpoints, also after both restart."""
import json

from livestate import LiveClient, SSEClient, wait_until
from test_documents import DB_TEXT, db_file, get, start  # noqa: F401 (fixtures)

STARTED = json.loads(DB_TEXT)


def scribble(server):
    assert server.call("POST", "/posts", {"title": "new"})[0] == 201
    assert server.call("PATCH", "/posts/2", {"title": "changed"})[0] == 200
    assert server.call("DELETE", "/posts/1")[0] == 200
    assert server.call("PATCH", "/profile", {"name": "someone"})[0] == 200


def test_a_reset_through_one_instance_reaches_the_other_as_changes_and_every_instance_resets_alike(db_file, start):
    (first,) = start(db_file)
    scribble(first)
    # The second starts after the changes: its own start is not the file's, the database's saved start is.
    (second,) = start(db_file)
    events = SSEClient.of(second, "/events?topics=posts&diff=1")
    assert events.read_head() == 200
    events.next()
    query = LiveClient(second, "/posts?_sort=id")
    query.first()
    status, _, body = second.call("POST", "/db/reset")
    assert status == 200 and body["changes"] > 0, body
    for server in (first, second):
        wait_until(lambda server=server: get(server, "/db") == STARTED, 5, message="every instance reset")
    diffs = [event.json() for event in events.drain(quiet=0.5)]
    assert diffs and all(set(diff) == {"inserted", "updated", "deleted"} for diff in diffs), diffs
    query.settle(second, quiet=0.3, note="the other instance's reset")
    assert all(event.event == "change" for event in query.events[1:]), "a reset is never a new result"
    # Again through the first: the same state, and nothing left to change.
    scribble(second)
    assert first.call("POST", "/db/reset")[0] == 200
    wait_until(lambda: get(second, "/db") == STARTED, 5, message="the second reset reached the other")
    events.close()
    query.close()


def test_checkpoints_are_shared_and_survive_both_instances_restarting(db_file, start):
    first, second = start(db_file, count=2)
    assert first.call("PATCH", "/posts/1", {"title": "saved"})[0] == 200
    wait_until(lambda: get(second, "/posts/1")["title"] == "saved", 5)
    saved = get(first, "/db")
    status, _, checkpoint = first.call("POST", "/db/checkpoints", {"name": "logged in"})
    assert status == 201, checkpoint
    assert get(second, "/db/checkpoints") == [checkpoint]
    assert get(second, f"/db/checkpoints/{checkpoint['id']}") == checkpoint
    scribble(first)
    first.kill9()
    second.kill9()
    again, other = start(db_file, count=2)
    assert get(other, "/db/checkpoints") == [checkpoint]
    assert again.call("POST", f"/db/checkpoints/{checkpoint['id']}/restore")[0] == 200
    for server in (again, other):
        wait_until(lambda server=server: get(server, "/db") == saved, 5, message="the restore on every instance")
    assert other.call("DELETE", f"/db/checkpoints/{checkpoint['id']}")[0] == 200
    assert again.call("POST", f"/db/checkpoints/{checkpoint['id']}/restore")[0] == 404
    assert get(again, "/db/checkpoints") == []
    # The reset still goes back to the file as the database was first filled.
    assert again.call("POST", "/db/reset")[0] == 200
    wait_until(lambda: get(other, "/db") == STARTED, 5, message="the reset after the restarts")
