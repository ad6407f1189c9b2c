"""The file stays the user's: loaded and checked at start, written back whole within a second, a person's
edit loaded and broadcast, acknowledged writes kept through kill -9 (docs/own-data.md)."""
import json
import os
import random
import subprocess
import threading
import time

import pytest

from livestate import Server, SSEClient, binary_path, wait_until

DB = {"posts": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}], "comments": [], "profile": {"name": "x"}}


def start_fails(path, *flags):
    """Runs the binary on `path` and returns (exit status, stderr), expecting it to refuse to start."""
    run = subprocess.run(
        [binary_path(), "--port", "0", str(path), *flags], capture_output=True, text=True, timeout=20)
    return run.returncode, run.stderr


@pytest.mark.parametrize(
    "content, words",
    [
        ("", "empty"),
        ("{\n  \"posts\": [1,]\n}", "line 2"),
        ("[1, 2]", "JSON object"),
        ('{"bad key": []}', "bad key"),
        ('{"title": "x"}', "'title'"),
        ('{"version": 3}', "'version' holds an integer"),
        ('{"posts": [{"id": 1.5}]}', "id"),
        ('{"db": []}', "own routes"),
    ],
)
def test_a_file_that_cannot_be_served_exits_1_with_one_line(data_file, content, words):
    path = data_file(content)
    status, stderr = start_fails(path)
    assert status == 1, stderr
    assert words in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert path.read_text() == content  # untouched


def test_a_missing_file_is_created_with_an_example(tmp_path, serve):
    path = tmp_path / "new.json"
    server = serve(path)
    assert set(json.loads(path.read_text())) == {"posts", "comments", "profile"}
    wait_until(lambda: "created it with an example" in server.log(), 2, message="the log line")
    assert server.call("GET", "/posts")[0] == 200


def test_a_later_item_with_a_taken_id_gets_a_new_one_and_the_file_starts(data_file, serve):
    # `1` and `"1"` are one id: the later item gets the next one, as an item without an id does.
    path = data_file('{"posts": [{"id": 1}, {"id": "1"}, {"id": 1, "t": 3}]}')
    server = serve(path)
    assert server.call("GET", "/posts")[2] == [{"id": 1}, {"id": 2}, {"id": 3, "t": 3}]
    assert "'posts'[1] had id 1" in server.log()
    wait_until(lambda: json.loads(path.read_text())["posts"][2] == {"id": 3, "t": 3}, 3, message="the new ids")


def test_items_without_ids_get_them_at_load(data_file, serve):
    server = serve(data_file({"posts": [{"id": 5, "t": 1}, {"t": 2}, {"t": 3, "id": None}]}))
    # A null id is none (json-server's): the item gets one, in the place its null held.
    assert server.call("GET", "/posts")[2] == [{"id": 5, "t": 1}, {"id": 6, "t": 2}, {"t": 3, "id": 7}]


def test_kill9_after_a_first_start_that_gave_ids_keeps_the_writes_acknowledged_before_the_write_back(
        data_file, serve):
    # The file shows the ids it was given at load only once written back; a write acknowledged before that
    # stays through kill -9 (the next start gives the same ids again and puts the write back on top).
    path = data_file({"posts": [{"t": 1}, {"id": 1, "t": 2}, {"id": 1, "t": 3}]})
    server = serve(path)
    assert server.call("POST", "/posts", {"t": 4})[0] == 201
    expected = server.call("GET", "/db")[2]
    assert expected["posts"][-1] == {"t": 4, "id": 4}
    server.kill9()  # right after the answer: the file may not show the ids yet
    again = serve(path)
    assert again.call("GET", "/db")[2] == expected
    wait_until(lambda: json.loads(path.read_text()) == expected, 1.5, message="file caught up")


def test_writes_reach_the_file_within_a_second_in_json_server_form(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    server.call("POST", "/posts", {"title": "c"})
    server.call("PATCH", "/profile", {"age": 1})
    expected = {**DB, "posts": DB["posts"] + [{"id": 3, "title": "c"}], "profile": {"name": "x", "age": 1}}
    wait_until(lambda: json.loads(path.read_text()) == expected, 1.5, message="file written back")
    assert path.read_text() == json.dumps(expected, indent=2) + "\n"


def test_kill9_after_each_kind_of_write_loses_nothing(data_file, serve):
    path = data_file(DB)
    writes = [
        ("POST", "/posts", {"title": "new"}),
        ("PUT", "/posts/1", {"title": "put"}),
        ("PATCH", "/posts/2", {"extra": True}),
        ("DELETE", "/posts/1", None),
        ("PATCH", "/profile", {"age": 7}),
        ("POST", "/comments", {"body": "c", "postId": 2}),
    ]
    for method, target, body in writes:
        server = serve(path)
        status, _, _ = server.call(method, target, body)
        assert status in (200, 201)
        expected = server.call("GET", "/db")[2]
        server.kill9()  # right after the answer: the file may not show it yet
        again = serve(path)
        assert again.call("GET", "/db")[2] == expected
        wait_until(lambda: json.loads(path.read_text()) == expected, 1.5, message="file caught up")
        again.kill9()


def test_a_person_edit_is_loaded_and_broadcast(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    with SSEClient.of(server, "/events?topics=posts&diff=1") as client:
        assert client.read_head() == 200
        client.next(timeout=5)  # the current list
        edited = json.loads(path.read_text())
        edited["posts"][0]["title"] = "by hand"
        edited["posts"].append({"id": 9, "title": "added by hand"})
        temp = path.with_name(".db.json.swp")
        temp.write_text(json.dumps(edited, indent=2))
        os.rename(temp, path)  # as an editor saves
        changes = [json.loads(client.next(timeout=3).data), json.loads(client.next(timeout=3).data)]
        assert {"id": 1, "title": "by hand"} in changes[0]["updated"] + changes[1]["updated"]
        assert {"id": 9, "title": "added by hand"} in changes[0]["inserted"] + changes[1]["inserted"]
    assert server.call("GET", "/posts/9")[2]["title"] == "added by hand"


def test_a_save_that_does_not_parse_is_reported_and_survived(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    path.write_text('{"posts": [1,]')
    wait_until(lambda: "cannot be loaded" in server.log(), 2, message="log line")
    assert "line 1, column" in server.log()
    assert [p["id"] for p in server.call("GET", "/posts")[2]] == [1, 2]
    assert server.call("POST", "/posts", {"title": "still writable"})[0] == 201
    path.write_text(json.dumps({**DB, "posts": [{"id": 1, "title": "fixed"}]}))
    wait_until(lambda: server.call("GET", "/posts/1")[2]["title"] == "fixed", 2, message="fixed file loaded")


def test_edits_while_clients_write_lose_nothing(data_file, serve):
    path = data_file({"posts": [], "notes": [{"id": 1, "text": "person"}]})
    server = serve(path)
    created = []
    stop = threading.Event()

    def client():
        while not stop.is_set():
            status, _, body = server.call("POST", "/posts", {"title": "client"})
            assert status == 201
            created.append(body["id"])

    thread = threading.Thread(target=client)
    thread.start()
    for i in range(5):
        time.sleep(0.3)
        text = json.loads(path.read_text())
        text["notes"].append({"id": 100 + i, "text": "by hand"})
        temp = path.with_name(f".edit{i}")
        temp.write_text(json.dumps(text, indent=2))
        os.rename(temp, path)
    time.sleep(0.5)
    stop.set()
    thread.join()
    posts = {p["id"] for p in server.call("GET", "/posts")[2]}
    assert set(created) <= posts
    wait_until(lambda: {p["id"] for p in json.loads(path.read_text())["posts"]} >= set(created), 2,
               message="file shows every acknowledged post")
    # NB: the last edit is loaded within 1 s of its save, which may be later than the posts' check.
    wait_until(lambda: {100, 101, 102, 103, 104} <= {n["id"] for n in server.call("GET", "/notes")[2]}
               or "changed both" in server.log(), 2, message="every edit loaded")


def test_two_servers_on_one_file_the_second_refuses(data_file, serve):
    path = data_file(DB)
    serve(path)
    status, stderr = start_fails(path, "--data", f"{path}.livestate")
    assert status == 1 and "in use by another livestate server" in stderr


def test_the_seeds_storage_and_a_data_files_journal_are_not_taken_for_each_other(data_file, tmp_path):
    # One table of entries holds either data set: a server started on the other kind of file refuses, and
    # neither file is changed by it.
    seeds = tmp_path / "livestate.sqlite"
    with Server(binary=binary_path(), data=str(seeds)) as server:
        assert server.call("POST", "/todos", {"title": "kept"})[0] == 201
    before = seeds.read_bytes()
    path = data_file(DB)
    status, stderr = start_fails(path, "--data", str(seeds))
    assert status == 1 and "the file holds the seeds' data" in stderr, stderr
    assert seeds.read_bytes() == before
    with Server(binary=binary_path(), data=str(seeds)) as server:
        assert [t["title"] for t in server.call("GET", "/todos")[2]] == ["Buy Milk", "kept"]
    journal = tmp_path / "db.json.livestate"
    with Server(str(path), binary=binary_path(), data=str(journal)):
        pass
    run = subprocess.run(
        [binary_path(), "--port", "0", "--data", str(journal)], capture_output=True, text=True, timeout=20)
    assert run.returncode == 1 and "the file is a data file's journal" in run.stderr, run.stderr


def test_a_file_deleted_or_replaced_by_a_directory_keeps_serving(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    path.unlink()
    wait_until(lambda: "is gone" in server.log(), 2, message="the deletion noticed")
    assert server.call("GET", "/posts")[0] == 200
    assert server.call("POST", "/posts", {"title": "after delete"})[0] == 201
    wait_until(lambda: path.exists(), 2, message="file written again")
    path.unlink()
    path.mkdir()
    wait_until(lambda: "no longer a regular file" in server.log(), 2, message="the folder noticed")
    assert server.call("GET", "/posts")[0] == 200
    path.rmdir()


def test_memory_data_leaves_the_file_untouched(data_file, serve):
    path = data_file(DB)
    before = path.read_text()
    server = serve(path, data=":memory:")
    assert server.call("POST", "/posts", {"title": "x"})[0] == 201
    time.sleep(1.2)
    assert path.read_text() == before


def test_kill9_during_rewrites_leaves_a_whole_file(data_file, serve):
    posts = [{"id": i, "title": "x" * 200} for i in range(1, 20_001)]
    path = data_file({"posts": posts})
    for round in range(3):
        server = serve(path)
        for i in range(20):
            server.call("PATCH", f"/posts/{random.randint(1, 20_000)}", {"round": round, "i": i})
        time.sleep(random.uniform(0.2, 0.9))
        server.kill9()
        data = json.loads(path.read_text())  # never a part
        assert len(data["posts"]) == 20_000


def test_a_full_disk_refuses_the_write_and_changes_nothing(tmp_path, serve):
    folder = tmp_path / "small"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(folder)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        path = folder / "db.json"
        path.write_text(json.dumps({"posts": []}))
        server = serve(path)
        status = 201
        count = 0
        while status == 201 and count < 2000:
            status, _, body = server.call("POST", "/posts", {"text": "y" * 2000})
            count += 1
        assert status == 503, (status, body)
        assert body["error"] == "storage_unavailable"
        listed = server.call("GET", "/posts")[2]
        assert len(listed) == count - 1  # the refused write changed nothing
        assert server.call("GET", "/healthz")[0] == 200
    finally:
        subprocess.run(["umount", "-l", str(folder)])


def test_an_edit_while_stopped_keeps_the_changes_the_file_did_not_show(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    wait_until(lambda: server.call("GET", "/posts")[0] == 200, 2)
    assert server.call("POST", "/posts", {"title": "acknowledged"})[0] == 201
    server.kill9()  # at once: the file may not show the post yet
    edited = json.loads(path.read_text())
    edited["posts"] = [p for p in edited["posts"] if p["title"] != "acknowledged"]
    edited["posts"].append({"id": 50, "title": "by hand while stopped"})
    path.write_text(json.dumps(edited, indent=2))
    again = serve(path)
    titles = {p["title"] for p in again.call("GET", "/posts")[2]}
    assert {"acknowledged", "by hand while stopped"} <= titles
    wait_until(lambda: {p["title"] for p in json.loads(path.read_text())["posts"]} >= titles, 2,
               message="the file shows both")
