"""One client cannot take every stream: `--max-streams-per-peer` caps the open streams (`/events` and live
queries together) of each client address, answered with 429 `too_many_streams` (docs/security.md).

The address is the connection's own; on loopback, another address of 127.0.0.0/8 stands for another client.
"""

import socket

from livestate import Server, read_response, wait_until

ORIGIN = "http://localhost:5173"


def ask_stream(server, path, source="127.0.0.1"):
    """A socket from `source` that sent a stream request for `path`."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", server.port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAccept: text/event-stream\r\n"
              f"Origin: {ORIGIN}\r\n\r\n".encode())
    return s


def open_stream(server, path, source="127.0.0.1"):
    """An open stream's socket; its status must be 200."""
    s = ask_stream(server, path, source)
    head = read_response(s, head_only=True)
    assert head.status == 200, head
    return s


def refused(server, path, source="127.0.0.1"):
    """The complete answer to a stream request that must not open."""
    with ask_stream(server, path, source) as s:
        return read_response(s)


def test_one_address_holds_at_most_its_cap_of_streams():
    with Server("--max-streams-per-peer", "3") as server:
        held = [open_stream(server, "/events"), open_stream(server, "/events?topics=todos"),
                open_stream(server, "/todos")]
        try:
            for path in ("/events", "/todos?_sort=title"):
                r = refused(server, path)
                assert r.status == 429, r
                assert r.json()["error"] == "too_many_streams" and "(3)" in r.json()["message"], r
                assert r.header("Retry-After") == "5", r
                assert r.header("Access-Control-Allow-Origin") == ORIGIN, "a page can read why"
            # Plain requests and HEAD (no stream) are answered as ever.
            assert server.request("GET", "/todos").status == 200
            assert server.request("HEAD", "/events").status == 200
            # Another client is not shut out by the first.
            other = [open_stream(server, "/events", source="127.0.0.2") for _ in range(3)]
            assert refused(server, "/events", source="127.0.0.2").status == 429
            for s in other:
                s.close()
            # A stream that ends gives its slot back.
            held.pop().close()

            def reopened():
                s = ask_stream(server, "/events")
                head = read_response(s, head_only=True)
                if head.status == 200:
                    held.append(s)
                    return True
                s.close()
                return False

            wait_until(reopened, 10, interval=0.1, message="the closed stream's slot given back")
        finally:
            for s in held:
                s.close()


def test_the_default_cap_leaves_room_for_many_streams_of_one_client():
    with Server() as server:
        held = [open_stream(server, "/events") for _ in range(40)]
        try:
            assert server.request("GET", "/healthz").status == 200
        finally:
            for s in held:
                s.close()
