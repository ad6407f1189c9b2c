#!/usr/bin/env python3
"""A fake jsonplaceholder-compatible upstream for LiveState's pipeline tests.

Standard library only. Listens on loopback (port 0 by default) and prints one line,
`listening on http://127.0.0.1:PORT`, then serves:

  GET /posts                 a JSON list of posts (3 by default, titles "upstream post N")
  GET /photos                a JSON list of photos whose `url`/`thumbnailUrl` point at /images/…
  GET /images/RRGGBB.png     a real PNG of that colour (also .jpg .gif .webp .svg: valid magic bytes)
  GET /healthz               {"status": "ok"}

Behaviour is switchable two ways:

* per request, by path prefixes (they stack, outermost first):
    /slow/SECONDS/...      wait, then answer the rest of the path
    /hang/...              never answer (until the client goes away)
    /status/CODE/...       answer CODE with a small JSON error body
    /badjson/...           200 with a body that is not JSON
    /notimage/...          200, Content-Type image/png, bytes that are not an image
    /redirect/N/...        N chained 302 redirects, then the rest of the path
    /big/MIB/...           200 with MIB mebibytes of zeros (Content-Length given, written 1 MiB at a time)
    /stream/MIB/...        the same without Content-Length: the body ends when the connection closes
* per resource path, through the control endpoint (for a server whose upstream URL is fixed):
    POST /_control  {"path": "/posts", "mode": "ok"|"slow"|"hang"|"500"|"status"|"badjson"|"notimage",
                     "seconds": 3, "status": 503, "count": 5}
    POST /_control/reset
    GET  /_control/log     {"requests": [paths...], "closed_early": [paths...]}

While it waits (slow, hang) the handler watches its socket: when the client closes the
connection before the answer (or while a body is written), it records the path in `closed_early`
and prints `closed early PATH` on stdout, so tests can assert that a download was cancelled.

With `--tls MODE --tls-dir DIR` it serves https instead (the first line says `https://`; a second line,
`control on http://127.0.0.1:PORT`, names a plain-http port with the same state for /_control), with
certificates made there by the openssl command line at start: DIR/ca.pem is a test authority, and
MODE picks the server's certificate (see `tls_certificates.py`): `valid` (localhost and 127.0.0.1,
issued by the test authority), `wrongname` (only elsewhere.test), `selfsigned`, `expired`.
"""

import argparse
import json
import os
import re
import select
import signal
import socket
import struct
import sys
import threading
import time
import zlib
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import tls_certificates

LOCK = threading.Lock()
STATE = {"modes": {}, "requests": [], "closed_early": [], "posts_count": 3}


def png(rgb, size=8):
    """A size×size PNG filled with rgb (zlib from the standard library)."""
    raw = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


GIF_1X1 = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
           b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
JPEG_STUB = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
WEBP_STUB = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"


def image(name):
    """(content type, bytes) for /images/NAME, or None."""
    m = re.fullmatch(r"([0-9a-fA-F]{6})\.(png|jpg|jpeg|gif|webp|svg)", name)
    if not m:
        return None
    colour, ext = m.group(1), m.group(2)
    rgb = bytes.fromhex(colour)
    if ext == "png":
        return "image/png", png(rgb)
    if ext in ("jpg", "jpeg"):
        return "image/jpeg", JPEG_STUB
    if ext == "gif":
        return "image/gif", GIF_1X1
    if ext == "webp":
        return "image/webp", WEBP_STUB
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#{colour}"/></svg>'
    return "image/svg+xml", svg.encode()


def log(line):
    print(line, flush=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeUpstream/1"

    def log_message(self, fmt, *args):  # quiet: tests read stdout
        pass

    # -- helpers -------------------------------------------------------------------------------

    def send(self, status, body, content_type="application/json; charset=utf-8", headers=()):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.record_closed()

    def send_json(self, status, value):
        self.send(status, json.dumps(value).encode())

    def record_closed(self):
        with LOCK:
            STATE["closed_early"].append(self.path)
        log(f"closed early {self.path}")

    def client_gone(self):
        """True when the peer has closed its side (EOF readable without consuming a request)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            if not isinstance(self.connection, ssl.SSLSocket):
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            # TLS has no peek: read (the client sends nothing after its GET); b"" is close_notify or EOF.
            self.connection.setblocking(False)
            try:
                return self.connection.recv(1) == b""
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                return False
            finally:
                self.connection.setblocking(True)
        except (OSError, ValueError):
            return True

    def write_zeros(self, mebibytes):
        """Writes `mebibytes` MiB of zeros a MiB at a time; False (and recorded) when the client went away."""
        chunk = b"\0" * (1024 * 1024)
        try:
            for _ in range(mebibytes):
                self.wfile.write(chunk)
            return True
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.record_closed()
            self.close_connection = True
            return False

    def wait(self, seconds):
        """Waits up to `seconds` (forever for None); False when the client went away meanwhile."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while deadline is None or time.monotonic() < deadline:
            if self.client_gone():
                self.record_closed()
                self.close_connection = True
                return False
            time.sleep(0.02)
        return True

    def base_url(self):
        host = self.headers.get("Host") or f"127.0.0.1:{self.server.server_address[1]}"
        scheme = "https" if isinstance(self.connection, ssl.SSLSocket) else "http"
        return f"{scheme}://{host}"

    # -- routes --------------------------------------------------------------------------------

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/_control/reset":
            with LOCK:
                STATE["modes"].clear()
                STATE["requests"].clear()
                STATE["closed_early"].clear()
                STATE["posts_count"] = 3
            return self.send_json(200, {"status": "reset"})
        if self.path == "/_control":
            try:
                spec = json.loads(body or b"{}")
                path = spec["path"]
            except (ValueError, KeyError):
                return self.send_json(400, {"error": "bad control request"})
            with LOCK:
                if spec.get("mode", "ok") == "ok":
                    STATE["modes"].pop(path, None)
                else:
                    STATE["modes"][path] = spec
                if "count" in spec:
                    STATE["posts_count"] = int(spec["count"])
            return self.send_json(200, {"status": "set", "path": path})
        return self.send_json(404, {"error": "not found"})

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/_control/log":
            with LOCK:
                return self.send_json(200, {"requests": list(STATE["requests"]),
                                            "closed_early": list(STATE["closed_early"])})
        with LOCK:
            STATE["requests"].append(self.path)
            spec = STATE["modes"].get(path)
        if spec is not None:
            mode = str(spec.get("mode"))
            if mode == "slow":
                if not self.wait(float(spec.get("seconds", 1))):
                    return
            elif mode == "hang":
                self.wait(None)
                return
            elif mode in ("500", "status"):
                return self.send_json(int(spec.get("status", 500)), {"error": "upstream failure"})
            elif mode == "badjson":
                return self.send(200, b"<html>this is not json")
            elif mode == "notimage":
                return self.send(200, b"this is not an image", "image/png")
        self.answer(path)

    def answer(self, path):
        m = re.match(r"^/slow/([0-9.]+)(/.*)$", path)
        if m:
            if self.wait(float(m.group(1))):
                self.answer(m.group(2))
            return
        m = re.match(r"^/hang(/.*)$", path)
        if m:
            self.wait(None)
            return
        m = re.match(r"^/status/(\d{3})(/.*)$", path)
        if m:
            return self.send_json(int(m.group(1)), {"error": "upstream failure"})
        if re.match(r"^/badjson(/.*)$", path):
            return self.send(200, b"<html>this is not json")
        if re.match(r"^/notimage(/.*)$", path):
            return self.send(200, b"this is not an image", "image/png")
        m = re.match(r"^/redirect/(\d+)(/.*)$", path)
        if m:
            n, rest = int(m.group(1)), m.group(2)
            target = rest if n <= 1 else f"/redirect/{n - 1}{rest}"
            return self.send(302, b"", "text/plain", [("Location", self.base_url() + target)])
        m = re.match(r"^/(big|stream)/(\d+)(/.*)$", path)
        if m:
            mebibytes = int(m.group(2))
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if m.group(1) == "big":
                self.send_header("Content-Length", str(mebibytes * 1024 * 1024))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            try:
                self.end_headers()
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                return self.record_closed()
            self.write_zeros(mebibytes)
            return
        if path == "/healthz":
            return self.send_json(200, {"status": "ok"})
        if path == "/posts":
            with LOCK:
                count = STATE["posts_count"]
            posts = [{"userId": 1 + (i - 1) // 10, "id": i, "title": f"upstream post {i}",
                      "body": f"body of upstream post {i}"} for i in range(1, count + 1)]
            return self.send_json(200, posts)
        if path == "/photos":
            colours = ["ff0000", "00ff00", "0000ff", "ffff00", "00ffff", "ff00ff"]
            base = self.base_url()
            photos = [{"albumId": 1 + i // 3, "id": i + 1, "title": f"upstream photo {i + 1}",
                       "url": f"{base}/images/{c}.png", "thumbnailUrl": f"{base}/images/{c}.png"}
                      for i, c in enumerate(colours)]
            return self.send_json(200, photos)
        m = re.match(r"^/images/([^/]+)$", path)
        if m:
            found = image(m.group(1))
            if found:
                return self.send(200, found[1], found[0])
        return self.send_json(404, {"error": "not found"})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        """Quiet for what tests do on purpose (a refused handshake, a client that went away)."""
        if isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when stdin closes (the test process that started us is gone)")
    parser.add_argument("--tls", choices=tls_certificates.MODES,
                        help="serve https with this kind of certificate (needs --tls-dir)")
    parser.add_argument("--tls-dir", help="folder for the test authority (ca.pem) and certificates")
    args = parser.parse_args()
    if args.tls and not args.tls_dir:
        parser.error("--tls needs --tls-dir")
    # NB: a parent may hand down blocked or ignored signals (Foundation's Process does); take them back.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    if args.exit_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    server = Server(("127.0.0.1", args.port), Handler)
    scheme = "http"
    if args.tls:
        cert, key = tls_certificates.make(args.tls_dir, args.tls)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        # NB: the handshake runs in each connection's thread (on its first read), not in accept.
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        scheme = "https"
    log(f"listening on {scheme}://127.0.0.1:{server.server_address[1]}")
    if args.tls:
        control = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=lambda: control.serve_forever(poll_interval=0.1), daemon=True).start()
        log(f"control on http://127.0.0.1:{control.server_address[1]}")
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
