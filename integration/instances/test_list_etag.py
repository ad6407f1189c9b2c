"""The entity tag of `GET /todos` (docs/api.md "Compression, ETag and 304") names the list's bytes, whichever
way a server reached them: kept from each write, not a checksum of the body, yet the same on every
instance and after a restart, so `If-None-Match` answers `304` exactly when the body is the same.
"""

from livestate import Server, wait_until


def tag_of(server):
    response = server.request("GET", "/todos")
    assert response.status == 200
    return response.header("ETag"), response.body


def revalidated(server, tag):
    return server.request("GET", "/todos", headers={"If-None-Match": tag}).status


def test_every_instance_and_a_restart_answer_304_for_the_same_list_and_200_for_another(cluster, binary):
    a = Server(binary=binary, data=cluster.uri).start()
    b = Server(binary=binary, data=cluster.uri).start()
    try:
        todo = a.add_todo("Buy milk")
        a.add_todo("Walk the dog")
        wait_until(lambda: tag_of(b) == tag_of(a), 10, message="B shows A's list")
        first, body = tag_of(a)
        assert revalidated(b, first) == 304

        # A title of the same length: the body's length is the same, its tag is not.
        assert a.call("PATCH", f"/todos/{todo['id']}", {"title": "Buy eggs"})[0] == 200
        wait_until(lambda: tag_of(b)[1] != body, 10, message="B shows the change")
        for server in (a, b):
            changed, changed_body = tag_of(server)
            assert changed != first and len(changed_body) == len(body)
            assert revalidated(server, first) == 200
            assert revalidated(server, changed) == 304

        # Back to the first bytes by another write: the first tag names them again.
        assert b.call("PATCH", f"/todos/{todo['id']}", {"title": "Buy milk"})[0] == 200
        wait_until(lambda: tag_of(a)[1] == body, 10, message="A shows the title back")
        for server in (a, b):
            assert tag_of(server) == (first, body)
            assert revalidated(server, first) == 304

        # A restart reaches the list from storage, with no write after it.
        a.stop()
        a = Server(binary=binary, data=cluster.uri).start()
        assert tag_of(a) == (first, body)
        assert revalidated(a, first) == 304
    finally:
        for server in (a, b):
            if server.alive():
                server.stop()


def test_a_fresh_database_with_a_list_of_the_same_length_does_not_answer_304(tmp_path, binary):
    tags = []
    for name, title in (("one", "Buy milk"), ("two", "Buy eggs")):
        with Server(binary=binary, data=str(tmp_path / f"{name}.sqlite")) as server:
            server.add_todo(title)
            tags.append(tag_of(server))
            if len(tags) == 2:
                assert len(tags[0][1]) == len(tags[1][1]) and tags[0][1] != tags[1][1]
                assert revalidated(server, tags[0][0]) == 200
                assert revalidated(server, tags[1][0]) == 304
    # The first file again, after a restart: its own tag is answered 304.
    with Server(binary=binary, data=str(tmp_path / "one.sqlite")) as server:
        assert tag_of(server) == tags[0]
        assert revalidated(server, tags[0][0]) == 304
