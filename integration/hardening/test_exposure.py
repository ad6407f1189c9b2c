"""What the server exposes, and to whom, whatever a request or an options file says (docs/security.md).

- a `Host` that is not a host and a port (userinfo, a path, whitespace) is a 400: a proxy or a browser may
  read another host out of `127.0.0.1:80@evil.example` than the loopback name the check would see;
- an absolute-form request line (`GET http://evil.example/db HTTP/1.1`) is checked by its own host, which
  wins over the `Host` field (RFC 9112 3.2.2): another host is refused with 403, the server's own served;
- json-server's options file (`--config`, `json-server.json`) never widens exposure: a non-loopback
  `host`, a static folder outside the file's folder, `allowed-hosts` and `cors` are ignored, one log line
  each, and the server stays on loopback without serving `/etc/passwd`.
"""

import json
import os

import pytest

from livestate import Server, read_response, wait_until

from test_security import listening_addresses


def raw(server, request_line, host):
    """One request with exactly the given request line and Host, on a fresh connection."""
    with server.connect() as s:
        s.sendall(f"{request_line}\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        return read_response(s)


@pytest.fixture(scope="module")
def server():
    with Server() as s:
        yield s


@pytest.mark.parametrize("host", [
    "127.0.0.1:{port}@evil.example",
    "evil.example@127.0.0.1:{port}",
    "127.0.0.1:{port}/x",
    "localhost:{port}?x",
    "127.0.0.1:x",
    "[::1",
])
def test_a_host_that_is_not_a_host_and_port_is_refused(server, host):
    r = raw(server, "GET /todos HTTP/1.1", host.format(port=server.port))
    assert r.status in (400, 403), r
    assert r.json()["error"] in ("bad_request", "host_not_allowed"), r
    assert server.request("GET", "/healthz").status == 200


def test_a_host_that_is_not_a_host_and_port_is_refused_when_every_host_is_accepted():
    # Listening on every address with no --allowed-hosts, every name passes; a malformed one still does not.
    with Server(host="0.0.0.0") as server:
        r = raw(server, "GET /todos HTTP/1.1", f"127.0.0.1:{server.port}@evil.example")
        assert r.status == 400 and r.json()["error"] == "bad_request", r
        assert raw(server, "GET /todos HTTP/1.1", f"any.example:{server.port}").status == 200


def test_an_absolute_form_request_for_another_host_is_refused(server):
    for target in ("http://evil.example/todos", f"http://evil.example:{server.port}/db", "https://evil.example/"):
        r = raw(server, f"GET {target} HTTP/1.1", f"127.0.0.1:{server.port}")
        assert r.status == 403 and r.json()["error"] == "host_not_allowed", (target, r)
    r = raw(server, f"GET http://me@127.0.0.1:{server.port}/todos HTTP/1.1", f"127.0.0.1:{server.port}")
    assert r.status == 400, r


def test_an_absolute_form_request_for_the_servers_own_host_is_served(server):
    r = raw(server, f"GET http://127.0.0.1:{server.port}/todos HTTP/1.1", f"127.0.0.1:{server.port}")
    assert r.status == 200 and isinstance(r.json(), list), r
    r = raw(server, f"GET http://localhost:{server.port}/todos HTTP/1.1", "evil.example")
    assert r.status == 200, "the target's host wins over the Host field"


def test_an_options_file_never_widens_exposure(tmp_path):
    db = tmp_path / "db.json"
    db.write_text(json.dumps({"posts": [{"id": 1, "title": "a"}]}))
    config = tmp_path / "json-server.json"
    config.write_text(json.dumps({
        "static": "/", "host": "0.0.0.0", "allowed-hosts": "evil.example", "cors": "*", "readOnly": True,
    }))
    server = Server(str(db), "--config", str(config), host=None, public=None)
    with server:
        assert server.stdout_lines[0].startswith("listening on http://127.0.0.1:"), server.stdout_lines
        addresses = listening_addresses(server.proc.pid)
        # 0100007F is 127.0.0.1 in /proc's little-endian hex.
        assert addresses and all(a.split(":")[0] == "0100007F" for a in addresses), addresses
        for path in ("/etc/passwd", "/proc/self/environ", "/etc/hostname"):
            r = server.request("GET", path)
            assert r.status == 404 and b"root:" not in r.body, (path, r)
        r = raw(server, "GET /posts HTTP/1.1", "evil.example")
        assert r.status == 403, "allowed-hosts from an options file is ignored"
        r = server.request("GET", "/posts", headers={"Origin": "https://evil.example"})
        assert r.header("Access-Control-Allow-Origin") is None, r
        # What does not widen exposure is still taken from the file.
        assert server.request("POST", "/posts", body={"title": "b"}).status == 405

        def ignored():
            log = server.log()
            lines = [line for line in log.splitlines() if "ignored" in line and str(config) in line]
            return lines if len(lines) == 4 else None

        lines = wait_until(ignored, 5, message="one log line per ignored option")
        for name in ("'static'", "'host'", "'allowed-hosts'", "'cors'"):
            assert sum(name in line for line in lines) == 1, (name, lines)
        assert all("--" in line for line in lines), "each line names the flag that would take it"


def test_an_options_file_keeps_a_static_folder_inside_its_own_folder(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "hello.txt").write_text("hi")
    (site / "up").symlink_to("/etc")
    db = tmp_path / "db.json"
    db.write_text(json.dumps({"posts": []}))
    for static, served in (("./site", True), (str(site / "up"), False)):
        config = tmp_path / "options.json"
        config.write_text(json.dumps({"static": static}))
        # The folder is relative to the working folder, as json-server reads it.
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            server = Server(str(db), "--config", str(config), public=None).start()
        finally:
            os.chdir(cwd)
        try:
            path = "/hello.txt" if served else "/passwd"
            r = server.request("GET", path)
            assert (r.status == 200) == served, (static, r)
            assert ("ignored" in server.log()) != served, server.log()
        finally:
            server.stop()


def test_a_flag_still_widens_exposure_over_an_options_file(tmp_path):
    db = tmp_path / "db.json"
    db.write_text(json.dumps({"posts": []}))
    config = tmp_path / "json-server.json"
    config.write_text(json.dumps({"host": "0.0.0.0"}))
    with Server(str(db), "--config", str(config), host="0.0.0.0", public=None) as server:
        assert server.stdout_lines[0].startswith("listening on http://0.0.0.0:"), server.stdout_lines
        assert "ignored" not in server.log()
