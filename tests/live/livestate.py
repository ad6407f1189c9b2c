"""Helpers for the live tests: start the real binary on port 0, call its API, read /events raw.

Everything runs on loopback; nothing here sleeps for a fixed time: reads wait with a deadline.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def binary() -> str:
    """The livestate binary: $LIVESTATE_BIN, else the debug build of the default scratch path."""
    path = os.environ.get("LIVESTATE_BIN", str(ROOT / ".build" / "debug" / "livestate"))
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no livestate binary at {path}: build it or set LIVESTATE_BIN")
    return path


class Server:
    """One livestate process on 127.0.0.1:<free port>, with the given extra flags."""

    def __init__(self, *flags: str, data: str = ":memory:"):
        self.flags = list(flags)
        self.data = data
        self.proc: subprocess.Popen | None = None
        self.base = ""
        self.host = "127.0.0.1"
        self.port = 0

    def start(self) -> "Server":
        args = [binary(), "--host", "127.0.0.1", "--port", "0", "--data", self.data,
                "--public", str(ROOT / "public"), *self.flags]
        env = dict(os.environ, LOG_LEVEL=os.environ.get("LOG_LEVEL", "error"))
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 30
        line = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line = self.proc.stdout.readline()
                break
            if self.proc.poll() is not None:
                break
        text = line.decode().strip()
        if not text.startswith("listening on http://"):
            err = self.proc.stderr.read().decode() if self.proc.poll() is not None else ""
            self.stop()
            raise RuntimeError(f"livestate did not start: {text!r} {err}")
        self.base = text.removeprefix("listening on ")
        hostport = self.base.removeprefix("http://")
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)
        return self

    def stop(self, timeout: float = 5) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        return self.proc.returncode

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- the API ---

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
