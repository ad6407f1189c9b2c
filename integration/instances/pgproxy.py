"""A TCP proxy on loopback between one instance and PostgreSQL: a test double at the outside edge.

It forwards bytes both ways and, when told, misbehaves on the next write batch the instance commits (the
statement that calls `livestate_doc_write…`, the batch's last, which commits it: its outcome is unknown to the
instance from the moment it is sent; a pattern of one's own picks another statement):

- `cut_after_commit()`: the statement reaches PostgreSQL and runs (it commits), but its whole answer is
  withheld: at its ReadyForQuery (sent after the commit) both sides are closed, so the instance loses
  the connection without knowing the outcome — the commit happened, its answer was lost.
- `stall()`: the statement and everything after it on that connection are held, never forwarded (the
  database never sees them); `release()` forwards what is held, `passing()` drops it. A connection the
  instance closes drops what it held: a stalled statement can never run later.

The instance must connect with `sslmode=disable&gssencmode=disable` (`uri()`), so that every byte from
PostgreSQL is a framed protocol message (type byte, 32-bit length) from the first one.
"""

import socket
import struct
import threading

PATTERN = b"livestate_doc_write"


class PostgresProxy:
    def __init__(self, upstream_port, pattern=PATTERN):
        self.upstream_port = upstream_port
        self.pattern = pattern
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.cuts_armed = 0
        self.cuts = 0
        self.stalling = False
        self.stalled = 0
        self.refusing = False
        self.pairs = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def uri(self, cluster_uri):
        """`cluster_uri` with this proxy's port, plain TCP (no TLS or GSS negotiation)."""
        head, _, rest = cluster_uri.rpartition(f":{self.upstream_port}/")
        return f"{head}:{self.port}/{rest}?sslmode=disable&gssencmode=disable"

    def cut_after_commit(self, count=1):
        """The next `count` write batches commit and lose their answer with their connection."""
        with self.lock:
            self.cuts_armed += count

    def stall(self):
        """From the next write batch on, hold what each connection sends (until `release` or `passing`)."""
        with self.lock:
            self.stalling = True

    def release(self):
        """Stops stalling and forwards what is held."""
        with self.lock:
            self.stalling = False
            pairs = list(self.pairs)
        for pair in pairs:
            pair.release(forward=True)

    def passing(self):
        """Stops stalling and cutting; what is held is dropped, never forwarded."""
        with self.lock:
            self.stalling = False
            self.cuts_armed = 0
            pairs = list(self.pairs)
        for pair in pairs:
            pair.release(forward=False)

    def refuse(self, on=True):
        """While on, every new connection is closed at once (a database that cannot be reached)."""
        with self.lock:
            self.refusing = on

    def close(self):
        self.closed = True
        self.listener.close()
        with self.lock:
            pairs = list(self.pairs)
        for pair in pairs:
            pair.close()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                refusing = self.refusing
            if refusing:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            pair = _Pair(self, client, server)
            with self.lock:
                self.pairs = [p for p in self.pairs if not p.done] + [pair]
            pair.start()


class _Pair:
    """One instance connection and its PostgreSQL connection."""

    def __init__(self, proxy, client, server):
        self.proxy = proxy
        self.client = client
        self.server = server
        self.lock = threading.Lock()
        self.cut_pending = False
        self.held = None  # bytes held from the instance while stalled; None when not stalled
        self.done = False

    def start(self):
        threading.Thread(target=self._upstream, daemon=True).start()
        threading.Thread(target=self._downstream, daemon=True).start()

    def close(self):
        with self.lock:
            self.done = True
            self.held = None
        for sock in (self.client, self.server):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def release(self, forward):
        with self.lock:
            held, self.held = self.held, None
        if held and forward:
            try:
                self.server.sendall(held)
            except OSError:
                self.close()

    def _upstream(self):
        """Instance → PostgreSQL."""
        tail = b""
        try:
            while True:
                chunk = self.client.recv(65536)
                if not chunk:
                    break
                matched = self.proxy.pattern in tail + chunk
                tail = chunk[-len(self.proxy.pattern):]
                with self.proxy.lock, self.lock:
                    if matched and self.held is None and self.proxy.stalling:
                        self.held = b""
                        self.proxy.stalled += 1
                    elif matched and self.held is None and self.proxy.cuts_armed > 0:
                        self.proxy.cuts_armed -= 1
                        self.cut_pending = True  # set before the bytes go: the answer cannot come first
                    if self.held is not None:
                        self.held += chunk
                        continue
                self.server.sendall(chunk)
        except OSError:
            pass
        self.close()  # the instance closed: whatever is held is dropped with the connection

    def _downstream(self):
        """PostgreSQL → instance, message by message."""
        buffer = b""
        try:
            while True:
                chunk = self.server.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                out = b""
                while len(buffer) >= 5:
                    length = struct.unpack("!I", buffer[1:5])[0]
                    if len(buffer) < 1 + length:
                        break
                    message, buffer = buffer[:1 + length], buffer[1 + length:]
                    if self.cut_pending:
                        if message[:1] == b"Z":  # ReadyForQuery: the statement's transaction has ended
                            with self.proxy.lock:
                                self.proxy.cuts += 1
                            if out:
                                self.client.sendall(out)
                            self.close()
                            return
                        continue  # the batch's answer is withheld
                    out += message
                if out:
                    self.client.sendall(out)
        except OSError:
            pass
        self.close()
