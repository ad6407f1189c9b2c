"""The Origin rule and CORS on every answer (docs/security.md): a write from a foreign web page changes
nothing, pages opened from a file are admitted by `--cors null`, errors carry the CORS headers."""
from livestate import Server, read_response, wait_until

DATA = {"posts": [{"id": 1, "title": "kept"}], "profile": {"name": "me"}}
FOREIGN = "http://evil.example"


def test_a_write_from_a_foreign_page_is_refused_and_changes_nothing(data_file, serve):
    path = data_file(DATA)
    server = serve(path)
    writes = [("POST", "/posts", {"title": "x"}), ("PUT", "/posts/1", {"title": "x"}),
              ("PATCH", "/posts/1", {"title": "x"}), ("DELETE", "/posts/1", None),
              ("PUT", "/profile", {"name": "x"}), ("POST", "/posts/1/comments", {"body": "x"})]
    for method, target, body in writes:
        for origin in (FOREIGN, "null", f"http://127.0.0.1:{server.port + 1}x", "https://localhost.evil.example"):
            status, headers, answer = server.call(method, target, body, {"Origin": origin})
            assert status == 403 and answer["error"] == "origin_not_allowed", (method, target, origin, answer)
            assert headers["Access-Control-Allow-Origin"] is None
    assert server.call("GET", "/db")[2] == DATA
    # Reads stay open to any page (it cannot read the answer without CORS headers).
    status, headers, _ = server.call("GET", "/posts", headers={"Origin": FOREIGN})
    assert status == 200 and headers["Access-Control-Allow-Origin"] is None
    # The server's own pages, a loopback dev server, and no Origin at all (curl) may write.
    own = f"http://127.0.0.1:{server.port}"
    status, headers, _ = server.call("POST", "/posts", {"title": "own"}, {"Origin": own})
    assert status == 201, headers
    status, headers, _ = server.call("PATCH", "/posts/1", {"title": "dev"}, {"Origin": "http://localhost:5173"})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    assert server.call("DELETE", "/posts/2")[0] == 200


def test_seed_writes_follow_the_origin_rule_too():
    with Server() as seeds:
        status, _, body = seeds.call("POST", "/todos", {"title": "from a foreign form"}, {"Origin": FOREIGN})
        assert status == 403 and body["error"] == "origin_not_allowed"
        assert all(todo["title"] != "from a foreign form" for todo in seeds.call("GET", "/todos")[2])


def test_errors_carry_the_cors_headers_for_an_allowed_origin(data_file, serve):
    server = serve(data_file(DATA))
    origin = "http://localhost:3000"
    for method, target, body in [("GET", "/posts/9", None), ("GET", "/nothing", None),
                                 ("POST", "/posts", [1]), ("GET", "/posts?_page=0", None),
                                 ("GET", "/posts?_delay=99999", None)]:
        status, headers, _ = server.call(method, target, body, {"Origin": origin})
        assert status >= 400 and headers["Access-Control-Allow-Origin"] == origin, (method, target, status)


def test_a_page_opened_from_a_file_is_refused_with_a_hint_and_admitted_by_cors_null(data_file, serve):
    path = data_file(DATA)
    server = serve(path)
    for _ in range(3):
        status, headers, _ = server.call("GET", "/posts", headers={"Origin": "null"})
        assert status == 200 and headers["Access-Control-Allow-Origin"] is None
    wait_until(lambda: "--cors null" in server.log(), 10, message="the hint")
    assert server.log().count("--cors null") == 1
    server.stop()
    admitted = serve(path, "--cors", "null,http://localhost:3000", data=":memory:")
    status, headers, _ = admitted.call("GET", "/posts", headers={"Origin": "null"})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "null"
    status, headers, _ = admitted.call("POST", "/posts", {"title": "from a file"}, {"Origin": "null"})
    assert status == 201 and headers["Access-Control-Allow-Origin"] == "null"
    status, _, _ = admitted.call("POST", "/posts", {"title": "x"}, {"Origin": "http://localhost:5173"})
    assert status == 403


def test_a_body_over_the_limit_is_a_413_an_allowed_page_can_read(data_file, serve):
    # The books app's 1.47 MB cover: without CORS headers the page saw only "Failed to fetch".
    server = serve(data_file(DATA))
    cover = b'{"title": "book", "cover": "' + b"A" * 1_470_000 + b'"}'
    for origin, allowed in (("http://localhost:5173", True), (FOREIGN, False)):
        response = server.request("POST", "/posts", cover, headers={"Origin": origin}, timeout=30)
        assert response.status == 413 and response.json()["error"] == "payload_too_large", response
        assert response.header("Access-Control-Allow-Origin") == (origin if allowed else None), response
    assert server.call("GET", "/posts")[2] == DATA["posts"]
    assert server.healthy()


def test_a_chunked_body_over_the_limit_is_a_413_an_allowed_page_can_read(data_file, serve):
    # The same cover sent in chunks (a fetch of a stream, a client that does not count its body first): the 413
    # comes as soon as the chunk sizes pass 1 MiB, with the CORS headers of an allowed page.
    server = serve(data_file(DATA))
    for origin, allowed in (("http://localhost:5173", True), (FOREIGN, False)):
        head = (f"POST /posts HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {origin}\r\n"
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
        chunk = b'{"title": "book", "cover": "' + b"A" * (64 * 1024 - 28)
        with server.connect(timeout=30) as sock:
            sock.sendall(head)
            try:
                for _ in range(23):  # 1.47 MB
                    sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                    chunk = b"A" * (64 * 1024)
            except OSError:
                pass  # the server answered and stopped reading
            response = read_response(sock, timeout=30)
        assert response.status == 413 and response.json()["error"] == "payload_too_large", response
        assert response.header("Access-Control-Allow-Origin") == (origin if allowed else None), response
    # A chunked body within the limit is taken.
    with server.connect(timeout=30) as sock:
        body = b'{"title": "chunked"}'
        sock.sendall((f"POST /posts HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n").encode() + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        assert read_response(sock, timeout=30).status == 201
    assert [post["title"] for post in server.call("GET", "/posts")[2]] == ["kept", "chunked"]
    assert server.healthy()
