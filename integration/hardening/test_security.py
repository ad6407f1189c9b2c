"""The security defaults the README promises, checked on the real binary.

- binds 127.0.0.1 unless told otherwise;
- with --token, every mutation needs the exact bearer token (reads and /events stay open);
- CORS allows only loopback origins (any port) unless --cors; --cors none turns it off;
- listening on loopback, a request addressed to any other name (DNS rebinding) is refused with 403 and
  changes nothing, on every method and on /events; --allowed-hosts admits a name;
- static files: no directory listing, no dotfiles, no way out of --public (plain, encoded, symlinks);
- the log holds method, path, status and duration only: no query, headers, bodies or tokens, and a
  request cannot forge a log line;
- the image download only follows http(s): a `file:` URL is never read.
"""

import os
import time

import pytest

from livestate import Server, read_response, wait_until

SECRET = "s3cr3t-Token-do-not-log"


def listening_addresses(pid):
    """Local addresses of the LISTEN sockets of process `pid` (from /proc/net/tcp{,6})."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                parts = line.split()
                local, state, inode = parts[1], parts[3], parts[9]
                if state == "0A" and inode in inodes:
                    found.append(local)
    return found


def test_binds_loopback_only_by_default(binary):
    server = Server(binary=binary, host=None).start()
    try:
        addresses = listening_addresses(server.proc.pid)
        assert addresses, "no listening socket found"
        # 0100007F is 127.0.0.1 in /proc's little-endian hex.
        assert all(a.split(":")[0] == "0100007F" for a in addresses), addresses
        assert server.stdout_lines[0].startswith("listening on http://127.0.0.1:")
    finally:
        server.stop()


@pytest.fixture(scope="module")
def guarded(binary):
    server = Server("--token", SECRET, binary=binary).start()
    yield server
    server.stop()


@pytest.mark.parametrize("authorization", [
    None, "", "Bearer", "Bearer ", f"Bearer {SECRET[:-1]}", f"Bearer {SECRET}x", f"bearer{SECRET}",
    f"Basic {SECRET}", f"Bearer {SECRET.upper()}", f"Bearer  {SECRET}", SECRET,
])
def test_mutations_need_the_exact_token(guarded, authorization):
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path, body in (("POST", "/todos", {"title": "not allowed"}), ("DELETE", "/todos/1", None),
                               ("PATCH", "/todos/1", {"completed": True}), ("PUT", "/movies/keyword", {"keyword": "x"})):
        r = guarded.request(method, path, body=body, headers=headers)
        assert r.status == 401, (method, path, authorization, r)
        assert r.json()["error"] == "unauthorized"


def test_right_token_mutates_and_reads_stay_open(guarded):
    r = guarded.request("POST", "/todos", body={"title": "allowed with token"},
                        headers={"Authorization": f"Bearer {SECRET}"})
    assert r.status == 201, r
    assert guarded.request("GET", "/todos").status == 200
    assert guarded.request("GET", "/healthz").status == 200


def test_token_never_reaches_the_log(guarded):
    guarded.request("POST", "/todos", body={"title": "logged?"}, headers={"Authorization": f"Bearer {SECRET}"})
    guarded.request("POST", "/todos", body={"title": "logged?"}, headers={"Authorization": f"Bearer {SECRET}x"})
    assert SECRET not in guarded.log()


def test_cors_allows_loopback_origins_on_any_port(server):
    for origin in ("http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8000", "http://localhost:80"):
        r = server.request("GET", "/todos", headers={"Origin": origin})
        assert r.header("Access-Control-Allow-Origin") == origin, (origin, r)
        for exposed in ("X-Total-Count", "Link", "Location"):
            assert exposed in r.header("Access-Control-Expose-Headers"), r
        pre = server.request("OPTIONS", "/todos", headers={"Origin": origin,
                                                           "Access-Control-Request-Method": "POST"})
        assert pre.status == 204, pre
        assert pre.header("Access-Control-Allow-Origin") == origin, pre
        assert "POST" in pre.header("Access-Control-Allow-Methods"), pre


def test_cors_refuses_other_origins_by_default(server):
    for origin in ("http://evil.example", "http://localhost.evil.example:8080", "https://localhost:5173", "null"):
        r = server.request("GET", "/todos", headers={"Origin": origin})
        assert r.header("Access-Control-Allow-Origin") is None, (origin, r)
        pre = server.request("OPTIONS", "/todos", headers={"Origin": origin,
                                                           "Access-Control-Request-Method": "POST"})
        assert pre.header("Access-Control-Allow-Origin") is None, (origin, pre)


def test_cors_none_turns_cors_off(binary):
    with Server("--cors", "none", binary=binary) as server:
        r = server.request("GET", "/todos", headers={"Origin": "http://localhost:5173"})
        assert r.status == 200
        assert r.header("Access-Control-Allow-Origin") is None
        pre = server.request("OPTIONS", "/todos", headers={"Origin": "http://localhost:5173",
                                                           "Access-Control-Request-Method": "POST"})
        assert pre.header("Access-Control-Allow-Origin") is None


REBOUND = "rebound.example"

# Every method the API serves, on every kind of resource, each a real change if it were let through.
REBINDING_ATTEMPTS = [
    ("GET", "/todos", None), ("HEAD", "/todos", None), ("POST", "/todos", {"title": "written by a rebound page"}),
    ("PUT", "/todos/1", {"title": "replaced by a rebound page", "completed": True}),
    ("PATCH", "/todos/1", {"completed": True}), ("DELETE", "/todos/1", None),
    ("OPTIONS", "/todos", None), ("POST", "/albums/selection", {"id": 42}),
    ("POST", "/frameworks/selection", {"name": "Combine"}), ("PUT", "/movies/keyword", {"keyword": "rebound"}),
    ("POST", "/posts/refresh", None), ("GET", "/events?topics=todos", None),
]


def state(server):
    """What a rebinding attempt could change: the todos, the selection and the keyword, as reads show them."""
    todos = server.request("GET", "/todos")
    assert todos.status == 200
    return todos.body, server.request("GET", "/albums/selection").status, server.request("GET", "/movies").body


@pytest.mark.parametrize("port_suffix", [True, False])
def test_rebinding_is_refused_on_every_method_and_changes_nothing(binary, port_suffix):
    with Server(binary=binary) as server:
        before = state(server)
        host = f"{REBOUND}:{server.port}" if port_suffix else REBOUND
        for method, path, body in REBINDING_ATTEMPTS:
            headers = {"Host": host, "Origin": f"http://{host}", "Access-Control-Request-Method": "POST"}
            if method == "HEAD":
                with server.connect() as s:
                    s.sendall(f"HEAD {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
                    assert read_response(s, head_only=True).status == 403
                continue
            r = server.request(method, path, body=body, headers=headers)
            assert r.status == 403, (method, path, r)
            assert r.json()["error"] == "host_not_allowed", (method, path, r)
            assert r.header("Access-Control-Allow-Origin") is None, (method, path, r)
        time.sleep(0.7)  # past the keyword's 0.5 s debounce, had the PUT gone through
        assert state(server) == before
        assert REBOUND not in server.request("GET", "/todos").body.decode()


def test_loopback_hosts_on_any_port_pass(binary):
    with Server(binary=binary) as server:
        for host in ("localhost", f"localhost:{server.port}", "127.0.0.1:1", f"[::1]:{server.port}", "LOCALHOST"):
            r = server.request("GET", "/healthz", headers={"Host": host})
            assert r.status == 200, (host, r)


def test_allowed_hosts_admits_a_name(binary):
    with Server("--allowed-hosts", "box.example,dev.example", binary=binary) as server:
        r = server.request("POST", "/todos", body={"title": "from an allowed name"},
                           headers={"Host": f"box.example:{server.port}"})
        assert r.status == 201, r
        assert server.request("GET", "/todos", headers={"Host": "dev.example"}).status == 200
        assert server.request("GET", "/todos", headers={"Host": REBOUND}).status == 403


def test_allowed_hosts_from_the_environment(binary):
    with Server(binary=binary, env={"LIVESTATE_ALLOWED_HOSTS": "box.example"}) as server:
        assert server.request("GET", "/todos", headers={"Host": "box.example"}).status == 200
        assert server.request("GET", "/todos", headers={"Host": REBOUND}).status == 403


def test_every_host_is_accepted_on_every_address(binary):
    with Server("--host", "0.0.0.0", binary=binary, host=None) as server:
        assert server.request("GET", "/healthz", headers={"Host": "livestate-1:8080"}).status == 200


def test_log_has_method_path_status_only(server):
    marker = f"m{time.monotonic_ns()}"
    server.request("GET", f"/todos?q=query-{marker}", headers={"Cookie": f"c=cookie-{marker}",
                                                               "X-Api-Key": f"header-{marker}"})
    server.request("POST", "/todos", body={"title": f"body-{marker}"})
    server.request("GET", f"/no-such-{marker}")
    log = wait_until(lambda: server.log() if f"/no-such-{marker}" in server.log() else None, timeout=5,
                     message="the request line in the log")
    for leaked in (f"query-{marker}", f"cookie-{marker}", f"header-{marker}", f"body-{marker}"):
        assert leaked not in log, f"request data {leaked!r} in the log"
    line = next(l for l in log.splitlines() if f"/no-such-{marker}" in l)
    assert f"GET /no-such-{marker} 404" in line, line


def test_requests_cannot_forge_log_lines(server):
    forged = "2026-11-29T00:00:00.000Z error FORGED-LINE"
    encoded = forged.replace(" ", "%20")
    for path in (f"/x%0A{encoded}", f"/x%0D%0A{encoded}", f"/x%1B[2J{encoded}"):
        server.request("GET", path)
    server.request("GET", "/healthz")
    time.sleep(0.2)
    for line in server.log().splitlines():
        assert not line.startswith(forged), f"a request wrote its own log line: {line!r}"
        assert "\x1b" not in line, f"terminal escape in the log: {line!r}"


@pytest.fixture(scope="module")
def public_server(binary, tmp_path_factory):
    root = tmp_path_factory.mktemp("public")
    (root / "index.html").write_text("<!doctype html><title>home</title>")
    (root / "app.js").write_text("console.log('hi')")
    (root / ".env").write_text("SECRET=dotfile")
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("inside sub")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core] dotfolder")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("OUTSIDE-SECRET")
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    server = Server(binary=binary, public=str(root)).start()
    yield server
    server.stop()


def test_index_and_files_are_served(public_server):
    r = public_server.request("GET", "/")
    assert r.status == 200 and b"<title>home</title>" in r.body
    assert public_server.request("GET", "/app.js").header("Content-Type").startswith("text/javascript")


@pytest.mark.parametrize("path", [
    "/sub", "/sub/", "/.env", "/%2eenv", "/.git/config", "/.git/", "/sub/../.env", "/sub/%2e%2e/.env",
    "/..%2f..%2f..%2fetc%2fpasswd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/link.txt", "/linkdir/secret.txt",
    "/sub%2f..%2f.env", "/sub\\..\\.env", "/app.js%00.html",
])
def test_no_listing_no_dotfiles_no_escape(public_server, path):
    r = public_server.request("GET", path)
    assert r.status == 404, (path, r)
    for leaked in (b"dotfile", b"[core]", b"OUTSIDE-SECRET", b"root:", b"inside sub", b"a.txt"):
        assert leaked not in r.body, (path, r)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "FILE:///etc/passwd", "ftp://127.0.0.1/x",
                                 "gopher://127.0.0.1:1/x", "/etc/passwd", "javascript:alert(1)"])
def test_image_download_follows_only_http(server, url):
    r = server.request("POST", "/albums/selection", body={"url": url})
    assert r.status in (400, 422, 202), r
    time.sleep(0.3)
    image = server.request("GET", "/albums/selection/image")
    assert b"root:" not in image.body
    info = server.request("GET", "/albums/selection")
    if info.status == 200:
        assert info.json()["url"] != url, "a non-http URL became the selected image"
