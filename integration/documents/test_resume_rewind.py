"""A `Last-Event-ID` from before a restart (docs/own-data.md, "Live") on a data file's SQLite journal: each entry
keeps the item before it, so a start undoes the newest entries from the state and sends them through the view
models again. A resume then gets every event it missed, ids and data as the first run sent them, after a clean
stop and after `kill -9` alike, also for entries the file already showed when the server died (or had just been
renamed into place, its mark not written yet), for new items, deletes (a cascade's too) and an id deleted and
made again. No restart undoes an entry from before a start that found the file edited while stopped (the
journal's floor). A journal of an older LiveState (the migration fixture) has no item before its entries: a
resume from before the upgrade gets current values once its clean stop's saved events are spent, and one from
after it resumes as any other."""
import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from livestate import Server, SSEClient, wait_until

FIXTURES = Path(__file__).resolve().parents[1] / "hardening" / "fixtures" / "migrations"

DB = {
    "posts": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}, {"id": 3, "title": "c"}],
    "comments": [{"id": 1, "postId": 2, "body": "x"}, {"id": 2, "postId": 2, "body": "y"},
                 {"id": 3, "postId": 1, "body": "z"}],
    "profile": {"name": "x"},
}
TOPICS = "posts,comments,profile"


def drain(client, quiet=1.0):
    """Every event until none comes for `quiet` seconds: (id, topic, data)."""
    seen = []
    while (event := client.next(timeout=quiet)) is not None:
        if event.comment is None:
            seen.append((event.id, event.event, event.json()))
    return seen


def resume(server, path, last_event_id):
    with SSEClient.of(server, path, headers={"Last-Event-ID": last_event_id}) as client:
        assert client.read_head() == 200
        return drain(client, quiet=0.7)


def wait_for_the_mark(server, seen):
    """Until the server's log (at debug) says the journal marks the file as showing the newest of `seen`'s
    entries (an event's id is its entry's times 65536): the mark is written just after the file."""
    newest = max(int(event[0]) for event in seen) // 65536

    def marked():
        return any(int(seq) >= newest for seq in re.findall(r"as it shows every entry up to (\d+)", server.log()))

    wait_until(marked, 5, message="the file's mark in the journal")


def writes(server):
    assert server.call("POST", "/posts", {"title": "d"})[0] == 201
    assert server.call("DELETE", "/posts/2")[0] == 200  # and its comments 1 and 2
    assert server.call("PATCH", "/posts/1", {"title": "a2"})[0] == 200
    assert server.call("PUT", "/profile", {"name": "y"})[0] == 200
    assert server.call("POST", "/comments", {"postId": 3, "body": "w"})[0] == 201
    assert server.call("DELETE", "/comments/3")[0] == 200
    assert server.call("POST", "/posts", {"id": 2, "title": "b again"})[0] == 201
    assert server.call("DELETE", "/posts/1")[0] == 200


@pytest.mark.parametrize("stop", ["clean stop", "kill -9"])
def test_a_resume_after_a_restart_gets_every_event_it_missed_as_the_first_run_sent_it(data_file, serve, stop):
    path = data_file(DB)
    server = serve(path, env={"LOG_LEVEL": "debug"})
    with SSEClient.of(server, f"/events?topics={TOPICS}") as live, \
            SSEClient.of(server, f"/events?topics={TOPICS}&diff=1") as diff:
        assert live.read_head() == 200 and diff.read_head() == 200
        writes(server)
        seen = drain(live)[3:]  # after the three current values
        diffs = drain(diff)[3:]
    expected = {p: server.call("GET", p)[2] for p in ("/posts", "/comments", "/profile")}
    assert [post["title"] for post in expected["/posts"]] == ["c", "d", "b again"]
    assert len(seen) == len(diffs) >= 9, seen
    # The file shows every write before the server goes, and the journal's mark says so (written just after
    # the file): nothing is left for a start to put back.
    wait_until(lambda: {f"/{k}": v for k, v in json.loads(path.read_text()).items()} == expected, 5,
               message="the write-back")
    wait_for_the_mark(server, seen)
    if stop == "kill -9":
        server.kill9()
    else:
        assert server.stop() == 0
    again = serve(path)
    assert {p: again.call("GET", p)[2] for p in expected} == expected
    # From each of the first run's events: the ones after it, exactly as sent, and no current values.
    for start in (0, 1, 4, len(seen) - 2):
        assert resume(again, f"/events?topics={TOPICS}", seen[start][0]) == seen[start + 1:], start
    assert resume(again, f"/events?topics={TOPICS}&diff=1", diffs[0][0]) == diffs[1:]
    assert resume(again, "/events?topics=comments", seen[0][0]) == [e for e in seen[1:] if e[1] == "comments"]
    assert resume(again, f"/events?topics={TOPICS}", seen[-1][0]) == []
    # The next write's event comes after them, and a second restart still resumes from the first run's.
    assert again.call("PATCH", "/posts/3", {"title": "later"})[0] == 200
    later = resume(again, "/events?topics=posts", seen[-1][0])
    assert len(later) == 1 and int(later[0][0]) > int(seen[-1][0])
    assert again.stop() == 0
    third = serve(path)
    assert resume(third, "/events?topics=posts", seen[0][0]) == [e for e in seen[1:] if e[1] == "posts"] + later


def test_a_kill_between_the_files_rename_and_its_mark_still_resumes_every_event(data_file, serve):
    """`kill -9` after a write-back renamed the new file into place and before the journal marked it (the window
    held open by the test-only pause, docs/testing.md): the next start knows the file as the server's own, not
    as edited while stopped, so it puts back the acknowledged changes the file did not show yet and a resume
    from any of the first run's events gets the ones after it, exactly as sent."""
    path = data_file(DB)
    original = path.read_text()
    server = serve(path, env={"LOG_LEVEL": "debug", "LIVESTATE_TEST_PAUSE_BEFORE_FILE_MARK_MS": "60000"})
    with SSEClient.of(server, f"/events?topics={TOPICS}") as live:
        assert live.read_head() == 200
        writes(server)
        seen = drain(live)[3:]
    expected = {p: server.call("GET", p)[2] for p in ("/posts", "/comments", "/profile")}
    wait_until(lambda: "its mark waits" in server.log(), 10, message="the first write-back's rename")
    # In the window: the file was replaced, and no write-back has been marked yet.
    assert path.read_text() != original
    assert "as it shows every entry up to" not in server.log()
    server.kill9()
    again = serve(path)
    assert {p: again.call("GET", p)[2] for p in expected} == expected
    for start in (0, 1, 4, len(seen) - 2):
        assert resume(again, f"/events?topics={TOPICS}", seen[start][0]) == seen[start + 1:], start
    assert resume(again, f"/events?topics={TOPICS}", seen[-1][0]) == []
    # The file is brought up to date, and the start after a clean stop finds it as the server wrote it.
    wait_until(lambda: {f"/{k}": v for k, v in json.loads(path.read_text()).items()} == expected, 5,
               message="the write-back")
    assert again.stop() == 0
    third = serve(path)
    assert resume(third, "/events?topics=posts", seen[0][0]) == [e for e in seen[1:] if e[1] == "posts"]


def test_after_the_upgrade_of_an_older_journal_a_restart_resumes_this_runs_events(tmp_path):
    for name in ("db.json", "db.json.livestate"):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    path, journal = tmp_path / "db.json", str(tmp_path / "db.json.livestate")
    with closing(sqlite3.connect(journal)) as db:
        older = [str(id) for (id,) in db.execute("SELECT id FROM livestate_doc_events ORDER BY id")]
    with Server(str(path), data=journal) as server:
        # The first start serves the older binary's saved events once.
        assert resume(server, "/events?topics=posts,comments,profile", older[-2])[0][0] == older[-1]
        with SSEClient.of(server, "/events?topics=posts,comments") as live:
            assert live.read_head() == 200
            assert server.call("PATCH", "/posts/1", {"title": "upgraded"})[0] == 200
            assert server.call("DELETE", "/comments/2")[0] == 200
            assert server.call("POST", "/posts", {"title": "new"})[0] == 201
            seen = drain(live)[2:]
    assert len(seen) == 3
    with Server(str(path), data=journal) as again:
        assert resume(again, "/events?topics=posts,comments", seen[0][0]) == seen[1:]
        # From before the upgrade: the older entries keep no item before them, so current values.
        current = resume(again, "/events?topics=posts,comments", older[-2])
        assert sorted(e[1] for e in current) == ["comments", "posts"]
        assert current[0][2] == again.call("GET", f"/{current[0][1]}")[2]


def test_no_restart_undoes_the_entries_from_before_an_edit_made_while_stopped(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    with SSEClient.of(server, "/events?topics=posts") as live:
        assert live.read_head() == 200
        assert server.call("PATCH", "/posts/1", {"title": "before the edit"})[0] == 200
        old = drain(live)[1:]
    assert server.stop() == 0
    edited = json.loads(path.read_text())
    edited["posts"][2]["title"] = "edited while stopped"
    path.write_text(json.dumps(edited, indent=2))
    again = serve(path)
    with SSEClient.of(again, "/events?topics=posts") as live:
        assert live.read_head() == 200
        assert again.call("PATCH", "/posts/2", {"title": "after the edit"})[0] == 200
        assert again.call("PATCH", "/posts/1", {"title": "after the edit too"})[0] == 200
        new = drain(live)[1:]
    assert again.stop() == 0
    third = serve(path)
    # This run's entries are made again; the ones before the edit are not (their items before are of the
    # file as it was): a resume from there gets the current values, with the edit.
    assert resume(third, "/events?topics=posts", new[0][0]) == new[1:]
    current = resume(third, "/events?topics=posts", old[0][0])
    assert len(current) == 1 and [p["title"] for p in current[0][2]] == \
        ["after the edit too", "after the edit", "edited while stopped"], current
