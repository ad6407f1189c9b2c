"""Raw-socket abuse: what no HTTP library would send, against a real `livestate` on loopback.

Each case must end in the contract's error (a 4xx, JSON `{"error","message"}` when the request
reached the router) or a closed connection, within the server's configured timeouts, and the
server must keep answering other clients while the bad one is open and afterwards.
"""

import json
import os
import socket
import threading
import time

import pytest

from livestate import CI, Closed, raise_nofile, read_response, wait_until

# The server's idle/read timeout for a connection that stops sending (Configuration.timeout, 60 s,
# given to evhttp_set_timeout). A stalled connection must be closed within this plus a margin.
READ_TIMEOUT = float(os.environ.get("LIVESTATE_TEST_READ_TIMEOUT", "60"))
MARGIN = 5.0
# A request head must arrive within this of its first byte (ListenerLimits.headTimeout).
HEAD_TIMEOUT = 10.0
TOTAL_BODY_LIMIT = 1 << 20


@pytest.fixture(autouse=True)
def still_healthy(server):
    """Every case leaves a server that is alive and answers a fresh client."""
    yield
    assert server.alive(), f"livestate died; log tail:\n{server.log()[-3000:]}"
    assert server.healthy(timeout=5), "livestate stopped answering /healthz"


def outcome(sock, timeout):
    """The server's reaction to what was sent: a Response, or "closed" when it hung up."""
    try:
        return read_response(sock, timeout=timeout)
    except (Closed, ConnectionResetError, BrokenPipeError):
        return "closed"


def send_raw(server, data, timeout=10):
    with server.connect(timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            return "closed"
        return outcome(s, timeout)


def is_json_error(r):
    try:
        body = r.json()
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("error"), str) and isinstance(body.get("message"), str)


def assert_rejected(r, statuses=(400,), json_body=True, allow_close=True):
    """A 4xx from `statuses` (JSON error body when `json_body`) or, when allowed, a closed connection."""
    if r == "closed":
        assert allow_close, "connection closed where an error response was due"
        return
    assert r.status in statuses, f"status {r.status}, wanted one of {statuses}: {r!r}"
    if json_body:
        assert is_json_error(r), f"error body is not the contract's JSON: {r!r}"
        assert (r.header("Content-Type") or "").startswith("application/json"), r.headers


def assert_no_5xx(r):
    if r != "closed":
        assert r.status < 500, f"server error {r!r}"


class Probe:
    """Polls /healthz from another thread while a hostile connection is open."""

    def __init__(self, server, period=0.25):
        self.server = server
        self.period = period
        self.failures = []
        self.successes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            start = time.monotonic()
            ok = self.server.healthy(timeout=3)
            if ok:
                self.successes += 1
            else:
                self.failures.append(time.monotonic())
            self._stop.wait(max(0, self.period - (time.monotonic() - start)))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        assert not self.failures, f"{len(self.failures)} /healthz probes failed while the bad client was open"
        assert self.successes > 0


# --- request line -----------------------------------------------------------

MALFORMED_REQUEST_LINES = [
    b"GARBAGE\r\n\r\n",
    b"GET\r\n\r\n",
    b"GET /todos\r\n\r\n",
    b" / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    b"GET /todos HTTP/9.9\r\nHost: localhost\r\n\r\n",
    b"GET /todos HTTP/1.1 extra\r\nHost: localhost\r\n\r\n",
    b"GET /todos HTTX/1.1\r\nHost: localhost\r\n\r\n",
    b"GET /todos HTTP/1.x\r\nHost: localhost\r\n\r\n",
    b"GET /to\x00dos HTTP/1.1\r\nHost: localhost\r\n\r\n",
    b"GET /to dos HTTP/1.1\r\nHost: localhost\r\n\r\n",
    b"GET /todos\x7f HTTP/1.1\r\nHost: localhost\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(32)) + b"\r\n\r\n",  # a TLS ClientHello
    b"GET /\xff\xfe HTTP/1.1\r\nHost: localhost\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nNoColonHere\r\n\r\n",
    b"\x00" * 64 + b"\r\n\r\n",
    b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n",
]


@pytest.mark.parametrize("data", MALFORMED_REQUEST_LINES, ids=lambda d: repr(d[:24]))
def test_malformed_request_line_is_rejected_or_closed(server, data):
    r = send_raw(server, data)
    # Wire-level errors are answered by libevent itself (its own body), so only the status is checked;
    # some of these are legal enough to reach the router and get a 404.
    assert_rejected(r, statuses=(400, 404, 405, 413, 414, 431, 501), json_body=False)


# Header oddities libevent tolerates (an empty name, an obsolete folded line, control bytes in a value,
# two Hosts): the framing check refuses all but the bytes above 0x7F (obs-text, which RFC 9110 allows in
# a value). One sane answer either way, and the connection stays in step (test_framing.py is stricter).
LENIENT_HEADERS = [
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n: empty-name\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n folded-continuation\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Bin: \x00\x01\x02\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Utf8: \xff\xfe\xc0\xaf\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
]


@pytest.mark.parametrize("data", LENIENT_HEADERS, ids=lambda d: repr(d[22:40]))
def test_tolerated_header_oddities_get_one_sane_answer(server, data):
    with server.connect(10) as s:
        s.sendall(data + b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        buf = bytearray()
        first = read_response(s, timeout=10, buf=buf)
        assert first.status in (200, 400), first
        if first.status == 200:
            assert first.json() == {"status": "ok"}
            second = read_response(s, timeout=10, buf=buf)
            assert second.status == 200 and second.json() == {"status": "ok"}


@pytest.mark.parametrize("method", [b"BREW", b"QUERY", b"TRACE", b"PROPFIND", b"get"])
def test_unknown_method_is_405_with_allow(server, method):
    r = send_raw(server, method + b" /todos HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
    assert_rejected(r, statuses=(405,), allow_close=False)
    assert {m.strip() for m in r.header("Allow").split(",")} == {"GET", "HEAD", "POST"}, r.headers


@pytest.mark.parametrize("method", [b"QUERY", b"TRACE", b"BREW"])
def test_body_of_an_unserved_method_is_never_read_as_a_request(server, method):
    """evhttp reads no body for these methods: the answer must close the connection, not parse the body."""
    smuggled = b"DELETE /todos/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
    with server.connect(10) as s:
        s.sendall(method + b" /todos HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled)
        buf = bytearray()
        first = read_response(s, timeout=10, buf=buf)
        assert first.status == 405, first
        second = outcome(s, 5) if not buf else read_response(s, timeout=5, buf=buf)
        assert second == "closed", f"the body was served as a request: {second!r}"
    assert server.request("GET", "/todos/1").status == 200, "todo 1 was deleted by a smuggled request"


def test_connect_is_refused(server):
    """CONNECT (a proxy's tunnel) is not served: evhttp's 501, in the contract's JSON."""
    r = send_raw(server, b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n")
    assert_rejected(r, statuses=(400, 405, 501))


def test_known_method_on_wrong_route_is_405_with_allow(server):
    r = server.request("DELETE", "/todos")
    assert_rejected(r, statuses=(405,))
    allow = {m.strip() for m in (r.header("Allow") or "").split(",")}
    assert {"GET", "POST"} <= allow, r.headers


# --- percent-encoding and path traversal --------------------------------------

BAD_PATHS = [
    "/todos/%",
    "/todos/%4",
    "/todos/%zz",
    "/todos/%00",
    "/todos/%FF",
    "/todos/%C0%AF",
    "/todos/1%00",
    "/todos/%31%",
    "/todos/99999999999999999999999999",
    "/todos/-1",
    "/todos/1.5",
    "/todos/%20",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2f..%2fetc%2fpasswd",
    "/../../../etc/passwd",
    "/%2E%2E%2F%2E%2E%2Fetc/passwd",
    "/.git/config",
    "/.%2e/.%2e/etc/passwd",
    "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
    "/placeholder/%/%",
    "/placeholder/99999999/ff0000",
    "/placeholder/100/zzzzzz",
    "/events?topics=%",
    "/events?topics=%FF",
    "/todos?q=%",
    "/todos?q=%zz",
    "/todos?q=%FF%FE",
    "/todos?_page=%",
    "/todos?_page=abc",
    "/todos?_page=1&_limit=%FF",
    "/todos?_start=x&_end=y",
    "/todos?nosuchfield=1",
    "/todos?title=%00",
    "/todos?q=her%00%00%00",
    "/posts?q=%00%CC%81",
    "/movies?q=her%00%00%00",
    "/movies?q=%C3%9F%00%07",
    "/albums?albumId=%",
    "/albums?_sort=%FF",
]


@pytest.mark.parametrize("path", BAD_PATHS)
def test_bad_percent_encoding_and_traversal_get_an_error_not_a_file(server, path):
    head = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode("latin-1")
    r = send_raw(server, head)
    assert_no_5xx(r)
    if r == "closed":
        return
    assert b"root:" not in r.body and b"[core]" not in r.body, "served a file outside public/"
    if r.status >= 400:
        assert is_json_error(r), f"error body is not the contract's JSON: {r!r}"
    # A 2xx only for a list whose query holds a stray escape: PercentDecoding keeps an invalid escape as
    # written (a documented choice), so `?albumId=%` filters for the text "%" and finds nothing.
    if r.status < 400:
        assert "?" in path and not path.startswith("/events"), f"{path} answered {r.status}"


# --- JSON bodies ------------------------------------------------------------------

def post_raw(server, path, body, content_type="application/json", method="POST", timeout=15):
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return send_raw(server, head + body, timeout=timeout)


INVALID_UTF8_BODIES = [
    b'{"title":"\xff\xfe milk"}',
    b'{"title":"\xc0\xaf\xc0\xaf milk"}',
    b'{"title":"\xed\xa0\x80 lone surrogate bytes"}',
    b'{"title":"\xf8\x88\x80\x80\x80 five-byte"}',
    b'{"title":"milk \xe2\x82"}',
    b'{"ti\xfftle":"milk and more"}',
    b"\xef\xbb\xbf\xff",
    b'\xff\xfe{\x00"\x00t\x00',
]


@pytest.mark.parametrize("body", INVALID_UTF8_BODIES, ids=lambda b: repr(b[:16]))
def test_invalid_utf8_in_json_is_400(server, body):
    r = post_raw(server, "/todos", body)
    assert_rejected(r, statuses=(400,), allow_close=False)


ODD_BUT_VALID_STRINGS = [
    b'{"title":"\\ud800 lone surrogate escape"}',
    b'{"title":"\\udfff\\ud800 reversed pair"}',
    b'{"title":"nul \\u0000 inside"}',
    b'{"title":"\\u202e\\u0041\\u0301\\ufeff marks"}',
    b'{"title":"' + "é".encode() * 10 + b'"}',
]


@pytest.mark.parametrize("body", ODD_BUT_VALID_STRINGS, ids=lambda b: repr(b[:20]))
def test_escaped_oddities_are_rejected_or_stored_and_served_as_valid_json(server, body):
    r = post_raw(server, "/todos", body)
    assert r != "closed"
    assert r.status in (201, 400, 422), r
    if r.status >= 400:
        assert is_json_error(r), r
    listing = server.request("GET", "/todos")
    assert listing.status == 200
    listing.body.decode("utf-8")  # strict: the server never emits invalid UTF-8
    assert isinstance(listing.json(), list)


NESTED = [
    ("10k [", b"[" * 10_000),
    ("10k [] closed", b"[" * 10_000 + b"]" * 10_000),
    ("100k [", b"[" * 100_000),
    ('10k {"a":', b'{"a":' * 10_000),
    ("title inside 10k", b'{"title":' + b"[" * 10_000 + b"]" * 10_000 + b"}"),
    ("almost 1 MiB [", b"[" * (TOTAL_BODY_LIMIT - 16)),
]


@pytest.mark.parametrize("body", [b for _, b in NESTED], ids=[n for n, _ in NESTED])
def test_deeply_nested_json_is_400_not_a_stack_overflow(server, body):
    for path, method in (("/todos", "POST"), ("/todos/1", "PATCH"), ("/movies/keyword", "PUT")):
        r = post_raw(server, path, body, method=method, timeout=30)
        assert_rejected(r, statuses=(400, 404, 422), allow_close=False)
        assert server.alive(), f"crashed on {method} {path}"


@pytest.mark.parametrize("content_type", ["text/plain", "", "; charset=utf-8"])
def test_wrong_content_type_is_415(server, content_type):
    # An empty value once crashed the server (found by stage 80's fuzzer).
    for path, method in (("/todos", "POST"), ("/todos/1", "PATCH"), ("/movies/keyword", "PUT")):
        r = post_raw(server, path, b'{"title":"milk and honey"}', content_type=content_type, method=method)
        assert_rejected(r, statuses=(415,), allow_close=False)
        assert server.alive(), f"crashed on {method} {path} with Content-Type {content_type!r}"


def test_body_over_one_mebibyte_is_413(server):
    body = b'{"title":"' + b"x" * (TOTAL_BODY_LIMIT + 10) + b'"}'
    r = post_raw(server, "/todos", body, timeout=30)
    assert_rejected(r, statuses=(413,), json_body=False)


# --- headers ---------------------------------------------------------------------

def test_huge_header_value_is_rejected_or_closed(server):
    data = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
    r = send_raw(server, data, timeout=20)
    assert_rejected(r, statuses=(400, 413, 431), json_body=False)


def test_ten_thousand_headers_are_rejected_or_closed(server):
    data = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(10_000)) + b"\r\n"
    r = send_raw(server, data, timeout=20)
    assert_rejected(r, statuses=(400, 413, 431), json_body=False)


def test_endless_header_stream_is_cut_off(server):
    """A client that keeps sending header lines without the blank line is stopped before 8 MiB."""
    with server.connect(20) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        sent = 0
        line = b"X-Pad: " + b"p" * 1000 + b"\r\n"
        try:
            while sent < 8 << 20:
                s.sendall(line * 64)
                sent += len(line) * 64
        except (BrokenPipeError, ConnectionResetError):
            return
        r = outcome(s, 10)
        assert_rejected(r, statuses=(400, 413, 431), json_body=False)


# --- Content-Length lies -----------------------------------------------------------

def test_content_length_shorter_than_body_does_not_smuggle_a_request(server):
    before = server.request("GET", "/todos").json()
    body = b'{"title":"short one"}'
    smuggled = b"DELETE /todos/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
    with server.connect(10) as s:
        s.sendall(b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body + smuggled)
        first = outcome(s, 10)
        assert first != "closed" and first.status == 201, first
        # The rest is a second, pipelined request on the same connection, handled as such: that is
        # HTTP/1.1, not smuggling. What must not happen is a 5xx or a mangled first request.
        second = outcome(s, 10)
        assert_no_5xx(second)
    assert server.alive()
    del before


@pytest.mark.parametrize("value", [b"-1", b"abc", b"1e3", b"0x10", b"99999999999999999999999", b" 5 5", b"+5"])
def test_invalid_content_length_is_rejected(server, value):
    r = send_raw(server, b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                 + value + b"\r\n\r\n{\"title\":\"milk!\"}", timeout=READ_TIMEOUT + MARGIN)
    assert_rejected(r, statuses=(400, 411, 413), json_body=False)


def test_conflicting_content_lengths_are_rejected(server):
    body = b'{"title":"two lengths"}'
    r = send_raw(server, b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\nContent-Length: 5\r\n\r\n" % len(body) + body, timeout=READ_TIMEOUT + MARGIN)
    assert_rejected(r, statuses=(400,), json_body=False)


def test_huge_content_length_is_413_without_waiting_for_the_body(server):
    with server.connect(10) as s:
        s.sendall(b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 10000000000\r\n\r\n{")
        r = outcome(s, 5)
        assert_rejected(r, statuses=(413,), json_body=False)


# --- chunked bodies --------------------------------------------------------------------

def test_chunked_body_past_one_mebibyte_is_cut_off(server):
    with server.connect(30) as s:
        s.sendall(b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"4000\r\n" + b"[" * 0x4000 + b"\r\n"
        sent = 0
        try:
            while sent < 4 * TOTAL_BODY_LIMIT:
                s.sendall(chunk)
                sent += 0x4000
        except (BrokenPipeError, ConnectionResetError):
            return
        r = outcome(s, 10)
        assert_rejected(r, statuses=(413,), json_body=False)


@pytest.mark.parametrize("chunks", [
    b"zz\r\nabc\r\n0\r\n\r\n",
    b"-5\r\nabc\r\n0\r\n\r\n",
    b"ffffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
])
def test_malformed_chunk_sizes_are_rejected(server, chunks):
    r = send_raw(server, b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n" + chunks, timeout=READ_TIMEOUT + MARGIN)
    assert_rejected(r, statuses=(400, 413), json_body=False)


def test_valid_chunked_post_is_accepted(server):
    body = b'{"title":"chunked milk"}'
    r = send_raw(server, b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
    assert r != "closed" and r.status == 201, r
    assert r.json()["title"] == "chunked milk"


# --- pipelining, HTTP/1.0, keep-alive ----------------------------------------------------

def test_pipelined_requests_are_answered_in_order(server):
    n = 50
    reqs = b""
    for i in range(n):
        reqs += b"GET /todos/%d HTTP/1.1\r\nHost: localhost\r\n\r\n" % (999_000 + i) if i % 2 else b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
    with server.connect(20) as s:
        s.sendall(reqs)
        buf = bytearray()
        for i in range(n):
            r = read_response(s, timeout=20, buf=buf)
            assert r.status == (404 if i % 2 else 200), (i, r)


def test_pipelined_posts_each_store_once(server):
    titles = [f"pipelined {i} {time.monotonic_ns()}" for i in range(10)]
    data = b""
    for t in titles:
        body = json.dumps({"title": t}).encode()
        data += (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                 % len(body) + body)
    with server.connect(20) as s:
        s.sendall(data)
        buf = bytearray()
        got = [read_response(s, timeout=20, buf=buf) for _ in titles]
    assert [r.status for r in got] == [201] * len(titles)
    assert [r.json()["title"] for r in got] == titles
    stored = [t["title"] for t in server.request("GET", "/todos").json()]
    for t in titles:
        assert stored.count(t) == 1


def test_http10_gets_an_answer_then_close(server):
    with server.connect(10) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        r = read_response(s, timeout=10)
        assert r.status == 200 and r.json() == {"status": "ok"}
        s.settimeout(READ_TIMEOUT + MARGIN)
        assert s.recv(1) == b"", "HTTP/1.0 without keep-alive must be closed after the response"


def test_http10_keep_alive_serves_two_requests_or_closes_cleanly(server):
    with server.connect(10) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        buf = bytearray()
        r = read_response(s, timeout=10, buf=buf)
        assert r.status == 200
        if (r.header("Connection") or "").lower() == "keep-alive":
            s.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            assert read_response(s, timeout=10, buf=buf).status == 200
        else:
            s.settimeout(5)
            assert s.recv(1) == b""


def test_http11_connection_close_is_honoured(server):
    with server.connect(10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        assert read_response(s, timeout=10).status == 200
        s.settimeout(5)
        assert s.recv(1) == b""


def test_http11_keep_alive_reuses_the_connection(server):
    with server.connect(10) as s:
        buf = bytearray()
        for _ in range(20):
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert read_response(s, timeout=10, buf=buf).status == 200


def test_request_after_half_close_is_answered_or_dropped(server):
    with server.connect(10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        r = outcome(s, 10)
        assert r == "closed" or r.status == 200


def test_client_vanishing_mid_response_does_not_hurt(server):
    """Ask for the 5,000 albums and reset the connection before reading: the server copes."""
    for _ in range(20):
        s = server.connect(10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.sendall(b"GET /albums HTTP/1.1\r\nHost: localhost\r\n\r\n")
        s.close()
    assert server.healthy()


# --- slow and idle clients -----------------------------------------------------------------

STALLS = {
    "content-length longer than the body": b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                           b"Content-Length: 100\r\n\r\n{\"title\":",
    "chunked body that never ends": b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                    b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"tit\r\n",
    # libevent reads "def" as the next chunk's size (0xdef bytes) and waits for them.
    "chunk longer than its size": b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                  b"Transfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
    "headers never finished": b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n",
    "request line never finished": b"GET /healthz HTT",
    "silent after connect": b"",
    "idle after a keep-alive response": b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n",
}


def test_stalled_clients_are_closed_within_the_timeout(server):
    """Every way of stopping mid-request, all at once: each is closed by the server's timeout."""
    results = {}

    def stall(name, data):
        start = time.monotonic()
        try:
            with server.connect(READ_TIMEOUT + MARGIN + 5) as s:
                s.sendall(data)
                buf = bytearray()
                deadline = start + READ_TIMEOUT + MARGIN
                while time.monotonic() < deadline:
                    s.settimeout(max(0.1, deadline - time.monotonic()))
                    try:
                        chunk = s.recv(65536)
                    except socket.timeout:
                        break
                    if not chunk:
                        results[name] = ("closed", time.monotonic() - start, bytes(buf[:60]))
                        return
                    buf += chunk
                results[name] = ("open", time.monotonic() - start, bytes(buf[:60]))
        except (ConnectionResetError, BrokenPipeError):
            results[name] = ("closed", time.monotonic() - start, b"reset")

    threads = [threading.Thread(target=stall, args=item) for item in STALLS.items()]
    with Probe(server):
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    still_open = {name: r for name, r in results.items() if r[0] != "closed"}
    assert not still_open, f"not closed within {READ_TIMEOUT + MARGIN}s: {still_open}"
    for name, (_, elapsed, head) in results.items():
        if head.startswith(b"HTTP/"):
            status = int(head.split(b" ")[1])
            assert status in (200, 400, 408, 413) if name.startswith("idle") else status in (400, 408, 413), (name, head)


def test_slowloris_is_cut_off_within_the_timeout(server):
    """Headers one byte a second: the head deadline (10 s from its first byte) closes the connection.

    evhttp's own read timeout restarts at every byte, so without the deadline a byte a second would keep
    the connection for up to 64 KiB of headers."""
    header = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"s" * 1000
    bound = HEAD_TIMEOUT + MARGIN
    start = time.monotonic()
    closed = False
    with Probe(server), server.connect(5) as s:
        for byte in header:
            if time.monotonic() - start > bound:
                break
            try:
                s.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            s.settimeout(1.0)
            try:
                data = s.recv(4096)
                if data == b"" or data.startswith(b"HTTP/1.1 4"):
                    closed = True
                    break
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed = True
                break
    assert closed, f"slowloris connection still open after {bound}s"


def test_two_thousand_idle_connections_do_not_block_others(server):
    n = 2000
    raise_nofile(n + 200)
    socks = []
    opened = []
    try:
        for i in range(n):
            socks.append(server.connect(10))
            opened.append(time.monotonic())
            if i % 200 == 199:
                assert server.healthy(timeout=5), f"no answer with {i + 1} idle connections open"
        start = time.monotonic()
        assert server.healthy(timeout=5)
        assert time.monotonic() - start < 2.0, "a fresh client waited over 2 s behind idle connections"
        # Every other one still inside its head deadline (10 s from the accept) sends a request: all answered.
        young = [s for s, at in list(zip(socks, opened))[::2] if time.monotonic() - at < HEAD_TIMEOUT - 3]
        buf = {}
        for s in young:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        for s in young:
            assert read_response(s, timeout=20, buf=buf.setdefault(s.fileno(), bytearray())).status == 200
        # The rest never sent a head: the server closes them itself, though the client keeps them open.
        wait_until(lambda: server.fd_count() < len(young) + 200, timeout=HEAD_TIMEOUT + 20,
                   message="server to close the connections that never sent a head")
    finally:
        for s in socks:
            s.close()
    wait_until(lambda: server.fd_count() < 200, timeout=15, message="server to release 2,000 descriptors")


# --- hostile list queries ----------------------------------------------------------------------

BIG = 9223372036854775807  # Int.max
HOSTILE_QUERIES = [
    f"/albums?_page=1&_limit={BIG}",
    f"/albums?_page=2&_limit={BIG}",
    f"/albums?_page=3&_limit={BIG // 2 + 1}",
    f"/albums?_page={BIG}&_limit=2",
    f"/albums?_page={BIG}&_limit={BIG}",
    f"/albums?_page={BIG + 1}",
    f"/albums?_start={BIG}&_limit={BIG}",
    f"/albums?_start={BIG}&_end={BIG}",
    "/albums?_start=5&_end=2",
    "/albums?_limit=-1",
    "/albums?_page=-1",
    f"/todos?_page=2&_limit={BIG}",
    f"/posts?_page=2&_limit={BIG}",
    f"/frameworks?_page=2&_limit={BIG}",
    f"/albums?id_gte={BIG}1&id_lte=-{BIG}1",
    "/albums?_sort=" + ",".join(["id"] * 1000),
    "/albums?_sort=id&_order=" + ",".join(["asc"] * 1000),
    "/albums?" + "&".join(f"albumId={i}" for i in range(2000)),
    "/albums?" + "&".join(f"q={chr(97 + i % 26)}" for i in range(2000)),
    "/albums?q=" + "%F0%9F%98%80" * 2000,
]
EXTREME_IDS = [f"/{kind}/{n}" for kind in ("todos", "posts", "albums") for n in (-BIG - 1, -BIG, -1, 0, BIG)]


@pytest.mark.parametrize("target", EXTREME_IDS)
def test_extreme_ids_are_404_not_a_crash(server, target):
    r = send_raw(server, f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    assert r != "closed", "connection dropped (did the server crash?)"
    assert r.status == 404 and is_json_error(r), r


@pytest.mark.parametrize("target", HOSTILE_QUERIES, ids=lambda t: t[:60])
def test_hostile_list_queries_get_200_or_400_quickly(server, target):
    start = time.monotonic()
    r = send_raw(server, f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode(), timeout=10)
    assert r != "closed", "connection dropped (did the server crash?)"
    assert r.status in (200, 400, 414, 431), r
    if r.status == 400:
        assert is_json_error(r), r
    else:
        assert isinstance(r.json(), list)
    assert time.monotonic() - start < 5


REDOS_PATTERNS = [
    r"^(\w+\s?)*!$",
    r"^(a|a)*(a|a)*(a|a)*(a|a)*b$",
    r"(.*a){20}",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
]


@pytest.mark.parametrize("pattern", REDOS_PATTERNS)
def test_like_patterns_cannot_pin_the_server(binary, pattern):
    """`?field_like=` must not let one request hold a loop for long (catastrophic backtracking)."""
    from urllib.parse import quote

    from livestate import Server

    server = Server(binary=binary).start()
    try:
        start = time.monotonic()
        try:
            r = send_raw(server, f"GET /albums?title_like={quote(pattern)} HTTP/1.1\r\nHost: localhost\r\n"
                                 f"Connection: close\r\n\r\n".encode(), timeout=10)
        except TimeoutError:
            r = "timeout"
        elapsed = time.monotonic() - start
        assert r != "timeout", f"GET /albums?title_like={pattern} still running after {elapsed:.0f}s"
        assert r != "closed" and r.status in (200, 400), r
        assert elapsed < 5, f"{elapsed:.1f}s for one _like query"
        assert server.healthy(timeout=2)
    finally:
        server.kill9()
