"""The one Python harness of the integration stages (live, hardening): a real `livestate`.

Nothing here is a test double: the server is the built binary on 127.0.0.1 with `--port 0`;
`Server.request` speaks bytes over a socket so that tests can send what no well-behaved
library would, `Server.call` is an ordinary client (urllib), and `SSEClient` reads
`/events` raw. Nothing here sleeps for a fixed time: reads wait with a deadline.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from contextlib import contextmanager
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# prctl(PR_SET_PDEATHSIG, …) for the servers started here, loaded before any fork.
_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1
CI = os.environ.get("CI") == "true"


@cache
def binary_path():
    """The `livestate` executable: LIVESTATE_BIN, or the debug build in LIVESTATE_SCRATCH/.build."""
    explicit = os.environ.get("LIVESTATE_BIN")
    if explicit:
        return explicit
    cmd = ["swift", "build", "--show-bin-path"]
    scratch = os.environ.get("LIVESTATE_SCRATCH")
    if scratch:
        cmd += ["--scratch-path", scratch]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path = os.path.join(out.strip().splitlines()[-1], "livestate")
    if not os.path.exists(path):
        raise RuntimeError(f"{path} missing: build it first (swift build --product livestate)")
    return path


def wait_until(predicate, timeout, interval=0.02, message="condition"):
    """Polls `predicate` until it returns a truthy value or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


class Server:
    """One `livestate` process on 127.0.0.1, port 0, with its stderr (the log) kept in a file.

    `flags` are extra command-line flags (`Server("--token", "s3cret")`). `host=None` leaves
    `--host` out (the default binding); `public=None` leaves `--public` out.
    """

    def __init__(self, *flags, binary=None, data=":memory:", env=None, nofile=None, host="127.0.0.1",
                 public=str(ROOT / "public"), stdin=subprocess.DEVNULL):
        self.binary = binary or binary_path()
        self.bind = host
        self.host = "127.0.0.1"
        self.data = data
        self.flags = [str(f) for f in flags]
        self.public = public
        self.env = env
        self.nofile = nofile
        self.stdin = stdin
        self.proc = None
        self.port = None
        self.base = ""
        self.stdout_lines = []
        self.log_path = None
        self._log = None

    # -- lifecycle -------------------------------------------------------

    def start(self, timeout=30):
        fd, self.log_path = tempfile.mkstemp(prefix="livestate-log-", suffix=".txt")
        os.close(fd)
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.pop("LIVESTATE_TOKEN", None)
        env.update(self.env or {})
        nofile = self.nofile

        def limits():
            os.setsid()
            # NB: the server dies with this process (a pytest killed by its timeout leaves none behind).
            # The signal comes when the thread that started it ends: tests start servers on the main thread.
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        cmd = [self.binary] + (["--host", self.bind] if self.bind else []) + ["--port", "0", "--data", self.data]
        cmd += (["--public", self.public] if self.public else []) + self.flags
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=self._log, stdin=self.stdin, preexec_fn=limits, env=env
        )
        first = []
        ready = threading.Event()

        def drain():
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self.stdout_lines.append(line)
                if not first:
                    first.append(line)
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(timeout) or not first:
            self.kill9()
            raise RuntimeError(f"livestate did not print its address; log:\n{self.log()}")
        m = re.fullmatch(r"listening on http://(?:127\.0\.0\.1|0\.0\.0\.0):(\d+)", first[0])
        if not m:
            self.kill9()
            raise RuntimeError(f"unexpected first line {first[0]!r}; log:\n{self.log()}")
        self.port = int(m.group(1))
        self.base = f"http://127.0.0.1:{self.port}"
        return self

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self, timeout=5):
        """SIGTERM, then SIGKILL if it has not exited within `timeout`; returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
            self._drop_log()
            return code
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"livestate ignored SIGTERM for {timeout}s")

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._drop_log()

    def _drop_log(self):
        """Removes the log file once the process is gone (LIVESTATE_KEEP_LOGS=1 keeps them)."""
        if self.proc and self.proc.poll() is not None and self.log_path and not os.environ.get("LIVESTATE_KEEP_LOGS"):
            if self._log:
                self._log.close()
            try:
                os.unlink(self.log_path)
            except OSError:
                pass

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""

    # -- /proc figures ---------------------------------------------------

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def fd_count(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    # -- clients ---------------------------------------------------------

    def connect(self, timeout=10):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def request(self, method, path, body=None, headers=None, timeout=10):
        """One well-formed request on a fresh connection; returns a Response."""
        hdrs = {"Host": f"127.0.0.1:{self.port}", "Connection": "close"}
        data = b""
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if data or method in ("POST", "PUT", "PATCH"):
            hdrs["Content-Length"] = str(len(data))
        hdrs.update(headers or {})
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
        with self.connect(timeout) as s:
            s.sendall(head.encode("latin-1") + data)
            return read_response(s, timeout=timeout)

    def healthy(self, timeout=5):
        """True when a fresh connection gets 200 from /healthz within `timeout`."""
        try:
            r = self.request("GET", "/healthz", timeout=timeout)
            return r.status == 200 and r.json() == {"status": "ok"}
        except (OSError, ValueError, Closed):
            # NB: Closed too: a server out of descriptors closes a new connection unanswered (not healthy yet).
            return False

    def call(self, method: str, path: str, body=None, headers: dict | None = None):
        """Returns (status, headers, decoded JSON or raw bytes)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers, _decode(response.read(), response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.headers, _decode(error.read(), error.headers)

    def add_todo(self, title: str) -> dict:
        status, _, body = self.call("POST", "/todos", {"title": title})
        assert status == 201, (status, body)
        return body


def _decode(raw: bytes, headers) -> object:
    if "json" in (headers.get("Content-Type") or ""):
        return json.loads(raw) if raw else None
    return raw


class Response:
    def __init__(self, status, reason, headers, body, version):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.version = version

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def __repr__(self):
        return f"<Response {self.status} {self.headers} {self.body[:200]!r}>"


class Closed(Exception):
    """The server closed the connection before a complete response."""


def _receive(sock, buf, deadline, missing):
    """Appends the next bytes from `sock` to `buf`; TimeoutError past `deadline`, Closed on EOF."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError(missing)
    sock.settimeout(remaining)
    chunk = sock.recv(65536)
    if not chunk:
        raise Closed(bytes(buf))
    buf += chunk


def read_exact_until(sock, buf, marker, deadline):
    while marker not in buf:
        _receive(sock, buf, deadline, "no complete response head")
    return buf


def read_response(sock, timeout=10, buf=None, head_only=False):
    """Reads one HTTP/1.x response (Content-Length, chunked or until close).

    Returns a Response; raises Closed when the peer closes before a full head, and
    leaves any bytes past the response in `buf` (a bytearray) for pipelining.
    """
    deadline = time.monotonic() + timeout
    if buf is None:
        buf = bytearray()
    read_exact_until(sock, buf, b"\r\n\r\n", deadline)
    end = buf.index(b"\r\n\r\n")
    head = bytes(buf[:end]).decode("latin-1")
    del buf[: end + 4]
    lines = head.split("\r\n")
    version, status, *reason = lines[0].split(" ", 2)
    headers = []
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.append((k.strip(), v.strip()))
    resp = Response(int(status), reason[0] if reason else "", headers, b"", version)
    if head_only:
        return resp
    length = resp.header("Content-Length")
    te = (resp.header("Transfer-Encoding") or "").lower()

    def fill(n):
        while len(buf) < n:
            _receive(sock, buf, deadline, "body incomplete")

    if resp.status in (204, 304) or 100 <= resp.status < 200:
        return resp
    if "chunked" in te:
        body = bytearray()
        while True:
            read_exact_until(sock, buf, b"\r\n", deadline)
            i = buf.index(b"\r\n")
            size = int(bytes(buf[:i]).split(b";")[0], 16)
            del buf[: i + 2]
            if size == 0:
                read_exact_until(sock, buf, b"\r\n", deadline)
                del buf[: buf.index(b"\r\n") + 2]
                break
            fill(size + 2)
            body += buf[:size]
            del buf[: size + 2]
        resp.body = bytes(body)
    elif length is not None:
        n = int(length)
        fill(n)
        resp.body = bytes(buf[:n])
        del buf[:n]
    else:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("body until close incomplete")
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf.extend(chunk)
        resp.body = bytes(buf)
        buf.clear()
    return resp


def raise_nofile(target):
    """Raises this process's soft RLIMIT_NOFILE to at least `target` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(max(soft, target), hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass
class Event:
    """One dispatched SSE event (or a comment, with `comment` set)."""
    id: str | None = None
    event: str = "message"
    data: str = ""
    comment: str | None = None
    retry: int | None = None

    def json(self):
        return json.loads(self.data)


@dataclass
class SSEClient:
    """A raw HTTP/1.1 client of /events: parses the status line, headers, chunked framing and SSE fields."""
    host: str
    port: int
    path: str = "/events"
    headers: dict = field(default_factory=dict)
    rcvbuf: int | None = None

    def __post_init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.rcvbuf:
            # Before connect, so the window stays small: a reader that never reads fills up fast.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect((self.host, self.port))
        lines = [f"GET {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in self.headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.raw = b""          # bytes read from the socket, not yet de-chunked
        self.body = b""         # de-chunked body not yet parsed into events
        self.closed = False     # the server ended the stream (EOF or last chunk)
        self.status = 0
        self.response_headers: dict[str, str] = {}
        self.chunked = False
        self.retry: int | None = None
        self.comments: list[str] = []
        self._pending = Event()
        self._ready: list[Event] = []
        self._head_done = False

    @classmethod
    def of(cls, server: Server, path: str = "/events", **kwargs) -> "SSEClient":
        return cls(server.host, server.port, path, **kwargs)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- reading ---

    def _fill(self, deadline: float) -> bool:
        """Reads what is there (waiting until `deadline`); False on timeout or EOF."""
        remaining = max(0.0, deadline - time.monotonic())
        if self.closed:
            return False
        ready, _, _ = select.select([self.sock], [], [], remaining)
        if not ready:
            return False
        try:
            chunk = self.sock.recv(1 << 20)
        except (ConnectionResetError, OSError):
            chunk = b""
        if not chunk:
            self.closed = True
            return False
        self.raw += chunk
        self._parse()
        return True

    def read_head(self, timeout: float = 5) -> int:
        deadline = time.monotonic() + timeout
        while not self._head_done:
            if not self._fill(deadline):
                raise TimeoutError("no response head")
        return self.status

    def _parse(self):
        if not self._head_done:
            end = self.raw.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.raw[:end].decode("latin-1").split("\r\n")
            self.raw = self.raw[end + 4:]
            self.status = int(head[0].split()[1])
            for line in head[1:]:
                name, _, value = line.partition(":")
                self.response_headers[name.strip().lower()] = value.strip()
            self.chunked = self.response_headers.get("transfer-encoding", "").lower() == "chunked"
            self._head_done = True
        if self.chunked:
            while True:
                line_end = self.raw.find(b"\r\n")
                if line_end < 0:
                    break
                size = int(self.raw[:line_end].split(b";")[0], 16)
                if size == 0:
                    self.closed = True
                    self.raw = b""
                    break
                if len(self.raw) < line_end + 2 + size + 2:
                    break
                self.body += self.raw[line_end + 2: line_end + 2 + size]
                self.raw = self.raw[line_end + 2 + size + 2:]
        else:
            self.body += self.raw
            self.raw = b""
        self._parse_events()

    def _parse_events(self):
        # WHATWG event-stream parsing, line by line.
        while True:
            positions = [p for p in (self.body.find(b"\n"), self.body.find(b"\r")) if p >= 0]
            if not positions:
                return
            end = min(positions)
            line = self.body[:end].decode("utf-8")
            skip = 2 if self.body[end:end + 2] == b"\r\n" else 1
            self.body = self.body[end + skip:]
            if line == "":
                if self._pending.data or self._pending.id is not None or self._pending.event != "message":
                    event = self._pending
                    if event.data.endswith("\n"):
                        event.data = event.data[:-1]
                    self._ready.append(event)
                self._pending = Event()
                continue
            if line.startswith(":"):
                comment = line[1:].strip()
                self.comments.append(comment)
                self._ready.append(Event(comment=comment))
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                self._pending.data += value + "\n"
            elif name == "event":
                self._pending.event = value
            elif name == "id":
                self._pending.id = value
            elif name == "retry":
                self.retry = int(value)

    def next(self, timeout: float = 5, comments: bool = False) -> Event | None:
        """The next event (skipping comments unless asked), or None when none came in time / the stream ended."""
        deadline = time.monotonic() + timeout
        while True:
            while self._ready:
                event = self._ready.pop(0)
                if event.comment is None or comments:
                    return event
            if not self._fill(deadline):
                if self._ready:
                    continue
                return None

    def pending_events(self) -> list[Event]:
        """The events parsed but not yet taken with next()."""
        return [event for event in self._ready if event.comment is None]

    def until(self, predicate, timeout: float = 5) -> Event:
        """Skips events until one matches; fails the test when none does in time."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.0, deadline - time.monotonic()))
            if event is None:
                raise AssertionError(f"no matching event within {timeout}s")
            if predicate(event):
                return event

    def drain(self, quiet: float = 0.3) -> list[Event]:
        """Every event that arrives until `quiet` seconds pass with none."""
        events = []
        while (event := self.next(quiet)) is not None:
            events.append(event)
        return events

    def wait_closed(self, timeout: float = 10) -> bool:
        """Reads (and drops) until the server ends the stream; True if it did in time."""
        deadline = time.monotonic() + timeout
        while not self.closed:
            if not self._fill(deadline) and not self.closed and time.monotonic() >= deadline:
                return False
        return True


@contextmanager
def fake_upstream():
    """integration/fake_upstream.py on loopback for the duration; yields its base URL."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "integration" / "fake_upstream.py"), "--exit-with-stdin"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line.startswith("listening on "), line
    try:
        yield line.removeprefix("listening on ")
    finally:
        proc.stdin.close()
        proc.wait(timeout=5)


def upstream_control(base, path, body=None):
    """POSTs `body` to the fake upstream's control `path` (GET when `body` is None); its JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method="POST" if data is not None else "GET")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


# ---------- live queries ----------

def apply_change(items, change):
    """The client algorithm of docs/api.md: drop the deleted and updated keys, then put the inserted and
    updated items at their indices, lowest index first."""
    gone = set(change["deleted"]) | {item["id"] for item in change["updated"]}
    kept = [item for item in items if item["id"] not in gone]
    placed = sorted(list(zip(change["insertedAt"], change["inserted"]))
                    + list(zip(change["updatedAt"], change["updated"])), key=lambda pair: pair[0])
    for index, item in placed:
        kept.insert(index, item)
    return kept


class LiveClient:
    """One live query (docs/api.md, "Live queries"): its stream, and the result it holds after applying
    every event; ids must grow, and a change must change something."""

    def __init__(self, server, path, last_event_id=None, items=None, total=None):
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        self.path = path
        self.sse = SSEClient.of(server, path, headers=headers)
        self.items = items
        self.total = total
        self.last_id = last_event_id
        self.events = []

    def take(self, event):
        assert event.id is not None, event
        event_id = int(event.id)
        assert self.last_id is None or event_id > self.last_id, (self.path, self.last_id, event_id)
        self.last_id = event_id
        self.events.append(event)
        if event.event == "result":
            body = event.json()
            self.items, self.total = body["items"], body["total"]
        else:
            assert event.event == "change", event
            body = event.json()
            assert self.items is not None, "a change before any result"
            assert body["inserted"] or body["updated"] or body["deleted"] or body["total"] != self.total, body
            self.items = apply_change(self.items, body)
            self.total = body["total"]
        return event

    def first(self, timeout=10):
        assert self.sse.read_head(timeout) == 200, self.sse.status
        event = self.sse.next(timeout=timeout)
        assert event is not None, f"no first event on {self.path}"
        return self.take(event)

    def settle(self, server, quiet=0.0, timeout=5, note=""):
        """Applies events until the held result equals a fresh GET of `server` (reading for `quiet` more)."""
        deadline = time.monotonic() + timeout
        while True:
            expected, total = fresh(server, self.path)
            while (event := self.sse.next(timeout=quiet)) is not None:
                self.take(event)
            if self.items == expected and self.total == total:
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{note}: {self.path} holds {ids(self.items)} (total {self.total}); a GET answers "
                    f"{ids(expected)} (total {total})")
            event = self.sse.next(timeout=0.2)
            if event is not None:
                self.take(event)

    def close(self):
        self.sse.close()


def ids(items):
    return None if items is None else [item["id"] for item in items]


def fresh(server, path):
    status, headers, body = server.call("GET", path)
    assert status == 200, (path, status, body)
    return body, int(headers["X-Total-Count"])
