"""A real `livestate` process for the hardening tests, and a raw HTTP/1.1 client.

Nothing here is a test double: the server is the built binary on 127.0.0.1 with
`--port 0`, and the client speaks bytes over a socket so that tests can send what
no well-behaved library would.
"""

import json
import os
import re
import resource
import signal
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CI = os.environ.get("CI") == "true"


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
    """One `livestate` process on 127.0.0.1, port 0, with its stderr (the log) kept in a file."""

    def __init__(self, binary, data=":memory:", args=(), env=None, nofile=None, host="127.0.0.1"):
        self.binary = binary
        self.host = host
        self.data = data
        self.args = list(args)
        self.env = env
        self.nofile = nofile
        self.proc = None
        self.port = None
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
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        cmd = [self.binary] + (["--host", self.host] if self.host else []) + ["--port", "0", "--data", self.data]
        cmd += self.args
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=self._log, stdin=subprocess.DEVNULL, preexec_fn=limits, env=env
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
        m = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)", first[0])
        if not m:
            self.kill9()
            raise RuntimeError(f"unexpected first line {first[0]!r}; log:\n{self.log()}")
        self.port = int(m.group(1))
        return self

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
        except (OSError, ValueError):
            return False


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


def read_exact_until(sock, buf, marker, deadline):
    while marker not in buf:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no complete response head")
        sock.settimeout(remaining)
        chunk = sock.recv(65536)
        if not chunk:
            raise Closed(bytes(buf))
        buf += chunk
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
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("body incomplete")
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                raise Closed(bytes(buf))
            buf.extend(chunk)

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
