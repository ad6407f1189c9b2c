"""Strict HTTP/1.1 framing, over raw sockets against a real `livestate` on loopback.

LiveState may sit behind a proxy, so a request whose framing is ambiguous must get its error and a
closed connection: no byte of it may ever be read as a second request. Each smuggling case here
carries a `DELETE` of a todo the test created, and asserts both what the client sees and that the
todo still exists afterwards. The last part is a differential check against `h11`, a strict HTTP/1.1
parser: LiveState never accepts a request that h11 rejects as malformed.
"""

import http.client
import json
import os
import socket
import subprocess
import time

import h11
import pytest

from livestate import Closed, Server, read_response

TOTAL_BODY_LIMIT = 1 << 20
# The request head must arrive within this (Configuration.headTimeout); MARGIN covers a loaded machine.
HEAD_TIMEOUT = 10.0
MARGIN = 5.0
# The write timeout for a response nobody reads (Configuration.timeout).
WRITE_TIMEOUT = float(os.environ.get("LIVESTATE_TEST_READ_TIMEOUT", "60"))
# What a framing error is answered with (a 400 saying `bad_request`, or a bare close); anything else means
# the request was served.
REJECTIONS = {400, 408, 413, 414, 431, 501, 505}


@pytest.fixture(autouse=True)
def still_healthy(server):
    yield
    assert server.alive(), f"livestate died; log tail:\n{server.log()[-3000:]}"
    assert server.healthy(timeout=5), "livestate stopped answering /healthz"


@pytest.fixture(scope="module")
def guarded(binary):
    """A server with `--token s3cret`."""
    with Server("--token", "s3cret", binary=binary) as running:
        yield running


def exchange(server, data, timeout=10):
    """Sends `data` on one connection; returns (responses read until the server closed, closed?)."""
    responses = []
    with server.connect(timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            return responses, True
        buf = bytearray()
        # A HEAD's answer has no body, whatever its Content-Length says; what follows is another answer.
        head_only = data.startswith(b"HEAD ")
        while True:
            try:
                responses.append(read_response(s, timeout=timeout, buf=buf, head_only=head_only))
            except (Closed, ConnectionResetError, BrokenPipeError):
                return responses, True
            except (TimeoutError, socket.timeout):
                return responses, False
            head_only = False


def new_todo(server, title="keep me, I am not smuggled"):
    r = server.request("POST", "/todos", {"title": title})
    assert r.status == 201, r
    return r.json()["id"]


def smuggled_delete(todo, host="x"):
    return b"DELETE /todos/%d HTTP/1.1\r\nHost: %s\r\n\r\n" % (todo, host.encode())


def assert_refused_and_closed(server, data, todo, statuses=(400,), timeout=10):
    """One error answer (the contract's JSON), then the server closes; the smuggled DELETE never ran."""
    responses, closed = exchange(server, data, timeout)
    assert responses, "no answer at all"
    first = responses[0]
    assert first.status in statuses, f"status {first.status}, wanted {statuses}: {first!r}"
    if data.startswith(b"HEAD "):
        assert (first.header("Content-Type") or "").startswith("application/json"), first
    else:
        body = first.json()
        assert isinstance(body.get("error"), str) and isinstance(body.get("message"), str), first
    assert len(responses) == 1, f"a second request was served: {responses[1:]!r}"
    assert closed, "the connection stayed open after a framing error"
    assert server.request("GET", f"/todos/{todo}").status == 200, "the smuggled DELETE ran"
    return first


# --- a body on a method whose body evhttp does not read ------------------------------------------

@pytest.mark.parametrize("method", [b"HEAD"])
def test_head_with_a_content_length_is_400_and_its_body_never_runs(server, method):
    todo = new_todo(server)
    smuggled = smuggled_delete(todo)
    data = method + b" /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled
    assert_refused_and_closed(server, data, todo)


def test_head_with_transfer_encoding_is_400_and_its_body_never_runs(server):
    todo = new_todo(server)
    chunk = smuggled_delete(todo)
    data = (b"HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"%x\r\n" % len(chunk) + chunk + b"\r\n0\r\n\r\n" + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo)


# --- transfer codings ----------------------------------------------------------------------------

@pytest.mark.parametrize("coding", [b"identity", b"xchunked", b"gzip", b"chunked, identity", b"gzip, chunked"])
def test_an_unknown_transfer_coding_is_501_and_the_body_never_runs(server, coding):
    todo = new_todo(server)
    data = (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: "
            + coding + b"\r\n\r\n" + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo, statuses=(501,))


@pytest.mark.parametrize("value", [b"chunked, chunked", b"", b"chunked;q=1"])
def test_a_malformed_transfer_encoding_is_400_or_501(server, value):
    todo = new_todo(server)
    data = (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: "
            + value + b"\r\n\r\n0\r\n\r\n" + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo, statuses=(400, 501))


def test_transfer_encoding_and_content_length_together_is_400(server):
    todo = new_todo(server)
    body = b"0\r\n\r\n"
    data = (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + body + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo)


def test_transfer_encoding_in_http10_is_400(server):
    todo = new_todo(server)
    data = (b"POST /todos HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"0\r\n\r\n" + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo)


# --- header syntax -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [b"Content-Length ", b"Content-Length\t", b" Content-Length", b"Content Length"])
def test_whitespace_in_a_header_name_is_400(server, name):
    todo = new_todo(server)
    smuggled = smuggled_delete(todo)
    data = b"HEAD /healthz HTTP/1.1\r\nHost: localhost\r\n" + name + b": %d\r\n\r\n" % len(smuggled) + smuggled
    assert_refused_and_closed(server, data, todo)


def test_nul_in_content_length_is_400(server):
    todo = new_todo(server)
    body = b'{"title":"nul in the length"}'
    data = (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\x00999\r\n\r\n"
            % len(body) + body + smuggled_delete(todo))
    assert_refused_and_closed(server, data, todo)
    titles = [t["title"] for t in server.request("GET", "/todos").json()]
    assert "nul in the length" not in titles, "the request with a NUL in its head was served"


@pytest.mark.parametrize("value", [b"a\x00b", b"a\rb", b"\x00"])
def test_nul_or_cr_in_any_header_value_is_400(server, value):
    todo = new_todo(server)
    data = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Odd: " + value + b"\r\n\r\n" + smuggled_delete(todo)
    assert_refused_and_closed(server, data, todo)


def test_nul_in_authorization_is_400_before_authentication(guarded):
    todo = guarded.request("POST", "/todos", {"title": "guarded todo"}, headers={"Authorization": "Bearer s3cret"})
    assert todo.status == 201, todo
    todo = todo.json()["id"]
    data = (b"DELETE /todos/%d HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret\x00x\r\n\r\n" % todo)
    responses, closed = exchange(guarded, data)
    assert responses and responses[0].status == 400, responses
    assert closed
    assert guarded.request("GET", f"/todos/{todo}").status == 200, "the DELETE ran"


def test_an_empty_header_name_is_400(server):
    todo = new_todo(server)
    data = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n: no name\r\n\r\n" + smuggled_delete(todo)
    assert_refused_and_closed(server, data, todo)


# --- Host ----------------------------------------------------------------------------------------

def test_http11_without_host_is_400(server):
    todo = new_todo(server)
    data = b"DELETE /todos/%d HTTP/1.1\r\nContent-Length: 0\r\n\r\n" % todo
    assert_refused_and_closed(server, data, todo)


def test_http11_with_two_hosts_is_400(server):
    todo = new_todo(server)
    data = b"DELETE /todos/%d HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" % todo
    assert_refused_and_closed(server, data, todo)


def test_http10_without_host_is_served(server):
    responses, _ = exchange(server, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert [r.status for r in responses] == [200], responses


# --- what a strict server still accepts ----------------------------------------------------------

def test_chunk_extensions_are_accepted_and_ignored(server):
    body = b'{"title":"chunk extensions"}'
    data = (b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n"
            + b"%x;name=value\r\n" % 10 + body[:10] + b"\r\n"
            + b"%x;quoted=\"a;b\";flag\r\n" % (len(body) - 10) + body[10:] + b"\r\n"
            + b"0;last\r\n\r\n")
    responses, _ = exchange(server, data)
    assert [r.status for r in responses] == [201], responses
    assert responses[0].json()["title"] == "chunk extensions"


def test_the_absolute_form_of_a_target_is_accepted(server):
    todo = new_todo(server, "absolute form target")
    data = (b"GET http://127.0.0.1:%d/todos/%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
            % (server.port, todo, server.port))
    responses, _ = exchange(server, data)
    assert [r.status for r in responses] == [200], responses
    assert responses[0].json()["title"] == "absolute form target"


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer", "bEaReR"])
def test_the_auth_scheme_is_case_insensitive(guarded, scheme):
    r = guarded.request("POST", "/todos", {"title": f"{scheme} scheme works"},
                        headers={"Authorization": f"{scheme} s3cret"})
    assert r.status == 201, r


def test_a_wrong_token_is_still_401(guarded):
    r = guarded.request("POST", "/todos", {"title": "wrong token here"}, headers={"Authorization": "bearer s3cre"})
    assert r.status == 401, r


def test_head_events_answers_the_stream_headers_and_the_next_request(server):
    data = (b"HEAD /events HTTP/1.1\r\nHost: localhost\r\n\r\n"
            b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    with server.connect(10) as s:
        s.sendall(data)
        buf = bytearray()
        head = read_response(s, timeout=10, buf=buf, head_only=True)
        assert head.status == 200, head
        assert (head.header("Content-Type") or "").startswith("text/event-stream"), head.headers
        # HEAD has no body, whatever its headers say: the next bytes are the GET's answer.
        nxt = read_response(s, timeout=5, buf=buf)
        assert nxt.status == 200 and nxt.json() == {"status": "ok"}, nxt


# --- errors sent before the body was read reach the client (lingering close) -------------------

OVERSIZED = b"x" * (TOTAL_BODY_LIMIT + 10)


def test_python_http_client_gets_the_413_twenty_times_of_twenty(server):
    outcomes = []
    for _ in range(20):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            conn.request("POST", "/todos", body=OVERSIZED, headers={"Content-Type": "application/json"})
            outcomes.append(conn.getresponse().status)
        except OSError as error:
            outcomes.append(type(error).__name__)
        finally:
            conn.close()
    assert outcomes == [413] * 20, outcomes


@pytest.mark.parametrize("expect", ["default", "no Expect"])
def test_curl_gets_the_413_twenty_times_of_twenty(server, tmp_path, expect):
    payload = tmp_path / "big.json"
    payload.write_bytes(OVERSIZED)
    extra = ["-H", "Expect:"] if expect == "no Expect" else []
    outcomes = []
    for _ in range(20):
        done = subprocess.run(
            ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30",
             "-H", "Content-Type: application/json", "--data-binary", f"@{payload}", *extra,
             f"http://127.0.0.1:{server.port}/todos"], capture_output=True, text=True)
        outcomes.append(done.stdout.strip() or done.stderr.strip())
    assert outcomes == ["413"] * 20, outcomes


# --- deadlines -----------------------------------------------------------------------------------

def test_a_connection_that_never_sends_is_closed_at_the_head_deadline(server):
    """A client that connects and sends nothing holds a descriptor only until the head deadline (10 s
    from the accept, not the 60 s idle timeout); there is no request, so nothing is answered."""
    start = time.monotonic()
    with server.connect(HEAD_TIMEOUT + 3 * MARGIN) as s:
        try:
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
    elapsed = time.monotonic() - start
    assert data == b"", data
    assert HEAD_TIMEOUT - 1 < elapsed < HEAD_TIMEOUT + 2 * MARGIN, elapsed


def test_a_body_at_a_byte_every_twenty_seconds_is_dropped(server):
    """The body's deadline grows with its declared length; a trickle far below any sane rate is cut."""
    todo_title = f"trickle {time.monotonic_ns()}"
    body = json.dumps({"title": todo_title}).encode()
    bound = HEAD_TIMEOUT + 2 * MARGIN + 20
    start = time.monotonic()
    closed_after = None
    with server.connect(5) as s:
        s.sendall(b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body))
        for byte in body:
            try:
                s.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - start
                break
            s.settimeout(20)
            try:
                data = s.recv(4096)
            except socket.timeout:
                data = None
            except ConnectionResetError:
                data = b""
            if data is not None:
                closed_after = time.monotonic() - start
                assert data == b"" or data.startswith(b"HTTP/1.1 408"), data
                break
            if time.monotonic() - start > bound:
                break
    assert closed_after is not None, f"a byte every 20 s was still being read after {bound:.0f}s"
    assert closed_after < bound
    titles = [t["title"] for t in server.request("GET", "/todos").json()]
    assert todo_title not in titles


def test_a_response_nobody_reads_is_dropped_after_the_write_timeout(server):
    """Twenty pipelined GET /albums (~20 MB) on a socket that never reads: the server gives up."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", server.port))
    try:
        s.sendall(b"GET /albums HTTP/1.1\r\nHost: localhost\r\n\r\n" * 20)
        time.sleep(WRITE_TIMEOUT + MARGIN)
        received = 0
        ended = False
        s.settimeout(5)
        try:
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    ended = True
                    break
                received += len(chunk)
        except ConnectionResetError:
            ended = True
        except socket.timeout:
            pass
        full = len(server.request("GET", "/albums").body) * 20
        assert ended and received < full, f"still served after {WRITE_TIMEOUT + MARGIN:.0f}s: {received} of {full} bytes"
    finally:
        s.close()


# --- a differential check against h11 ------------------------------------------------------------

def h11_verdict(data):
    """What h11 (a strict HTTP/1.1 server parser) makes of the first request in `data`."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=1 << 22)
    conn.receive_data(data)
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                return "incomplete"
            if isinstance(event, h11.EndOfMessage):
                return "accepted"
    except h11.RemoteProtocolError as error:
        return f"rejected: {error}"


def livestate_verdict(server, data):
    """'accepted' when LiveState served the first request (any status but a framing error), else 'rejected'."""
    responses, closed = exchange(server, data, timeout=5)
    if not responses:
        return "rejected" if closed else "no answer"
    first = responses[0]
    # A 400 from a route (a body that is not a todo) served the request; a framing refusal says bad_request
    # (or, answering HEAD, has no body to say it in, and closes).
    said = b'"bad_request"' in first.body or not first.body and closed
    framing = first.status in REJECTIONS and (first.status != 400 or said)
    return "rejected" if framing else f"accepted ({first.status})"


def corpus():
    """Every raw request of the abuse and framing suites, with a stand-in todo id and port."""
    from test_abuse import LENIENT_HEADERS, MALFORMED_REQUEST_LINES

    smuggled = b"DELETE /todos/1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
    cases = {f"abuse request line {d[:24]!r}": d for d in MALFORMED_REQUEST_LINES}
    cases.update({f"abuse header {d[16:40]!r}": d for d in LENIENT_HEADERS})
    head = b"HEAD /healthz HTTP/1.1\r\nHost: localhost\r\n"
    post = b"POST /todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    cases.update({
        "HEAD + Content-Length": head + b"Content-Length: %d\r\n\r\n" % len(smuggled) + smuggled,
        "HEAD + chunked": head + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "TE identity": post + b"Transfer-Encoding: identity\r\n\r\n" + smuggled,
        "TE xchunked": post + b"Transfer-Encoding: xchunked\r\n\r\n" + smuggled,
        "TE gzip, chunked": post + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        "TE + CL": post + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        "Content-Length : 35": head + b"Content-Length : %d\r\n\r\n" % len(smuggled) + smuggled,
        "Content-Length NUL": post + b"Content-Length: 2\x00999\r\n\r\n{}" + smuggled,
        "Authorization NUL": b"GET /todos HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer T0ken\x00x\r\n\r\n",
        "CR in a value": b"GET /todos HTTP/1.1\r\nHost: localhost\r\nX-Odd: a\rb\r\n\r\n",
        "empty header name": b"GET /todos HTTP/1.1\r\nHost: localhost\r\n: v\r\n\r\n",
        "no Host": b"GET /todos HTTP/1.1\r\n\r\n",
        "two Hosts": b"GET /todos HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "Content-Length +5": post + b"Content-Length: +5\r\n\r\n{}   ",
        "Content-Length 5, 5": post + b"Content-Length: 5, 5\r\n\r\n{}   ",
        "two Content-Lengths": post + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} ",
        "chunk extension": post + b"Transfer-Encoding: chunked\r\n\r\n2;a=b\r\n{}\r\n0\r\n\r\n",
        "bad chunk size": post + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        "absolute form": b"GET http://x/todos HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "bare LF lines": b"GET /todos HTTP/1.1\nHost: localhost\n\n",
        "obs-fold": b"GET /todos HTTP/1.1\r\nHost: localhost\r\nX-A: a\r\n b\r\n\r\n",
        "target with a space": b"GET /to dos HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "target with 0xff": b"GET /\xff HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "HTTP/1.0 no Host": b"GET /todos HTTP/1.0\r\n\r\n",
        "HTTP/1.0 + TE": b"POST /todos HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "valid GET": b"GET /todos HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "valid POST": post + b"Content-Length: 27\r\n\r\n" + b'{"title":"differential ok"}',
    })
    return cases


CORPUS = corpus()
DIFFERENTIAL = os.path.join(os.path.dirname(__file__), "..", "..", "artifacts", "framing-differential.jsonl")


@pytest.fixture(scope="module")
def differential_record():
    """artifacts/framing-differential.jsonl: one line per case, both verdicts (written afresh each run)."""
    os.makedirs(os.path.dirname(DIFFERENTIAL), exist_ok=True)
    with open(DIFFERENTIAL, "w") as record:
        yield record


@pytest.mark.parametrize("name", list(CORPUS))
def test_livestate_never_accepts_what_h11_rejects(server, differential_record, name):
    data = CORPUS[name]
    strict = h11_verdict(data)
    ours = livestate_verdict(server, data)
    differential_record.write(json.dumps({"case": name, "h11": strict, "livestate": ours}) + "\n")
    differential_record.flush()
    if strict.startswith("rejected"):
        assert not ours.startswith("accepted"), f"h11 {strict}; LiveState {ours}"


def test_the_corpus_holds_requests_both_sides_accept_and_reject():
    """The differential means something only if h11 rejects some cases and accepts others."""
    verdicts = {h11_verdict(d).split(":")[0] for d in CORPUS.values()}
    assert {"accepted", "rejected"} <= verdicts, verdicts

