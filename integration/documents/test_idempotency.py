"""A data file's writes take an `Idempotency-Key`, as the seeds' writes do (docs/own-data.md, "Writes"): the
same request sent again with the key of a write that committed is answered with what that write did and
changes nothing, also after a `kill -9` and a restart; a key used by another request is a 422."""
import json
import threading

DB = {"posts": [{"id": 1, "title": "a"}], "comments": [{"id": 1, "postId": 1, "body": "c"}], "profile": {"n": 1}}


def keyed(server, method, path, body, key):
    return server.call(method, path, body, headers={"Idempotency-Key": key})


def test_a_post_sent_again_with_its_key_is_answered_the_same_and_adds_nothing_also_after_kill9(data_file, serve):
    path = data_file(DB)
    server = serve(path)
    first = keyed(server, "POST", "/posts", {"title": "retried"}, "post-1")
    assert first[0] == 201 and first[2] == {"title": "retried", "id": 2}, first
    again = keyed(server, "POST", "/posts", {"title": "retried"}, "post-1")
    assert again[0] == 201 and again[2] == first[2] and again[1]["Location"] == first[1]["Location"] == "/posts/2"
    assert [p["title"] for p in server.call("GET", "/posts")[2]] == ["a", "retried"]
    # A lost answer, then the server dies before the client retries: the key is in the journal with the write.
    server.kill9()
    restarted = serve(path)
    after = keyed(restarted, "POST", "/posts", {"title": "retried"}, "post-1")
    assert after[0] == 201 and after[2] == first[2], after
    assert [p["title"] for p in restarted.call("GET", "/posts")[2]] == ["a", "retried"]
    # Another key is another write.
    assert keyed(restarted, "POST", "/posts", {"title": "retried"}, "post-2")[2]["id"] == 3


def test_a_repeat_answers_what_the_first_write_did_and_undoes_no_later_write(data_file, serve):
    server = serve(data_file(DB))
    assert keyed(server, "PUT", "/posts/1", {"title": "first"}, "put-1")[2] == {"title": "first", "id": 1}
    assert server.call("PATCH", "/posts/1", {"title": "later"})[0] == 200
    status, _, body = keyed(server, "PUT", "/posts/1", {"title": "first"}, "put-1")
    assert status == 200 and body == {"title": "first", "id": 1}
    assert server.call("GET", "/posts/1")[2] == {"id": 1, "title": "later"}
    # A singular resource's replace and merge, and json-server's 201 for `POST /profile`.
    assert keyed(server, "POST", "/profile", {"n": 2}, "profile-1")[0] == 201
    assert server.call("PATCH", "/profile", {"n": 3})[0] == 200
    assert keyed(server, "POST", "/profile", {"n": 2}, "profile-1")[:3:2] == (201, {"n": 2})
    assert server.call("GET", "/profile")[2] == {"n": 3}


def test_a_delete_sent_again_is_200_not_404_and_its_cascade_happens_once(data_file, serve):
    server = serve(data_file(DB))
    assert keyed(server, "DELETE", "/posts/1", None, "delete-1")[:3:2] == (200, {})
    assert server.call("GET", "/comments")[2] == []
    assert keyed(server, "DELETE", "/posts/1", None, "delete-1")[:3:2] == (200, {})
    assert server.call("DELETE", "/posts/1")[0] == 404


def test_a_key_used_by_another_request_is_422_and_changes_nothing(data_file, serve):
    server = serve(data_file(DB))
    assert keyed(server, "POST", "/posts", {"title": "b"}, "shared")[0] == 201
    before = server.call("GET", "/db")[2]
    for method, target, body in [("PATCH", "/posts/1", {"title": "x"}), ("POST", "/comments", {"body": "x"}),
                                 ("DELETE", "/posts/2", None)]:
        status, _, answer = keyed(server, method, target, body, "shared")
        assert status == 422 and answer["error"] == "idempotency_key_reused", (method, status, answer)
    assert server.call("GET", "/db")[2] == before


def test_a_key_that_is_not_1_to_128_visible_characters_is_400(data_file, serve):
    server = serve(data_file(DB))
    for key in ["", "a b", "x" * 129, "é"]:
        response = server.request("POST", "/posts", {"title": "k"}, headers={"Idempotency-Key": key})
        assert response.status == 400 and response.json()["error"] == "invalid_header", (key, response.status)
    assert len(server.call("GET", "/posts")[2]) == 1


def test_the_same_keyed_post_sent_16_times_at_once_is_applied_once(data_file, serve):
    server = serve(data_file(DB))
    answers = []
    lock = threading.Lock()

    def send():
        answer = keyed(server, "POST", "/posts", {"title": "burst"}, "burst-1")
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=send) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a[0] for a in answers] == [201] * 16
    assert {json.dumps(a[2], sort_keys=True) for a in answers} == {json.dumps({"title": "burst", "id": 2}, sort_keys=True)}
    assert [p["title"] for p in server.call("GET", "/posts")[2]] == ["a", "burst"]
