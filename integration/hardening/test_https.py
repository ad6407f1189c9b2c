"""https upstreams and image downloads through the real binary, against fake https upstreams on loopback.

The certificates and the test authority are made when the tests start (integration/tls_certificates.py);
the server trusts the authority through LIVESTATE_CA_FILE. What a person sees is checked from outside:
the lists, the selection's failed state and its reason, the server's peak RSS (VmHWM in
/proc/PID/status) while a huge body is refused, and the upstream's own record of connections the
server closed.
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from livestate import Server, wait_until

FAKE_UPSTREAM = Path(__file__).resolve().parents[1] / "fake_upstream.py"
MIB = 1024  # KiB per MiB (/proc reports KiB)


class Upstream:
    """A running fake_upstream.py --tls MODE: its https base URL and its plain-http control port."""

    def __init__(self, proc, base, control):
        self.proc, self.base, self.control = proc, base, control

    @property
    def port(self):
        return int(self.base.rsplit(":", 1)[1])

    def log(self):
        with urllib.request.urlopen(self.control + "/_control/log", timeout=10) as response:
            return json.loads(response.read())


@pytest.fixture(scope="module")
def tls_dir():
    with tempfile.TemporaryDirectory(prefix="livestate-tls-") as folder:
        yield folder


@contextmanager
def upstream(tls_dir, mode):
    proc = subprocess.Popen([sys.executable, str(FAKE_UPSTREAM), "--exit-with-stdin", "--tls", mode,
                             "--tls-dir", tls_dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        first, second = proc.stdout.readline().strip(), proc.stdout.readline().strip()
        assert first.startswith("listening on https://"), first
        assert second.startswith("control on http://"), second
        yield Upstream(proc, first.removeprefix("listening on "), second.removeprefix("control on "))
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def serve(*flags, ca=None):
    env = {"LIVESTATE_CA_FILE": ca} if ca else {}
    return Server(*flags, env=env)


def select(server, url):
    status, _, body = server.call("POST", "/albums/selection", {"url": url})
    assert status == 202, (status, body)


def selection(server):
    return server.call("GET", "/albums/selection")[2]


def failure_of(server, url, timeout=30):
    """The reason of the failed selection of `url`, once the server reports it."""
    def failed():
        state = selection(server)
        failed = state.get("failed") if isinstance(state, dict) else None
        return failed if failed and failed.get("url") == url else None
    return wait_until(failed, timeout, interval=0.05, message=f"a failed selection of {url}")["reason"]


def peak_rss_kib(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_posts_and_albums_refresh_over_https(tls_dir):
    with upstream(tls_dir, "valid") as up:
        base = f"https://localhost:{up.port}"
        with serve("--upstream", base, ca=os.path.join(tls_dir, "ca.pem")) as server:
            # With --upstream the posts start empty and load at once, over https (docs/api.md).
            posts = wait_until(lambda: (r := server.call("GET", "/posts"))[0] == 200 and r[2], 30, interval=0.05,
                               message="the upstream posts loaded over https")
            assert [p["title"] for p in posts][:1] == ["upstream post 1"], posts
            status, _, refreshed = server.call("POST", "/posts/refresh")
            assert status == 200, refreshed
            status, _, photos = server.call("POST", "/albums/refresh")
            assert status == 200, photos
            url = photos[0]["url"]
            assert url.startswith(base + "/images/"), url
            status, _, _ = server.call("POST", "/albums/selection", {"id": photos[0]["id"]})
            assert status == 202
            shown = wait_until(lambda: (s := selection(server)).get("url") == url and s, 30, interval=0.05,
                               message="the https image on show")
            assert shown["contentType"] == "image/png"
            assert "/posts" in up.log()["requests"] and "/photos" in up.log()["requests"]


@pytest.mark.parametrize("mode, detail", [
    ("wrongname", "it is for another host name"),
    ("selfsigned", "it is self-signed"),
    ("expired", "it has expired"),
])
def test_an_untrusted_certificate_fails_the_selection_with_its_reason(tls_dir, mode, detail):
    with upstream(tls_dir, mode) as up, serve(ca=os.path.join(tls_dir, "ca.pem")) as server:
        url = f"{up.base}/images/ff0000.png"
        select(server, url)
        assert failure_of(server, url) == f"the certificate of 127.0.0.1 is not trusted ({detail})"
        assert up.log()["requests"] == [], "nothing was asked of a server that was not trusted"
        # An upstream behind such a certificate fails a refresh as an upstream error, not as data.
        with serve("--upstream", up.base, ca=os.path.join(tls_dir, "ca.pem")) as other:
            status, _, body = other.call("POST", "/posts/refresh")
            assert status == 502, (status, body)


def test_the_system_store_does_not_trust_the_test_authority(tls_dir):
    with upstream(tls_dir, "valid") as up, serve() as server:
        url = f"{up.base}/images/ff0000.png"
        select(server, url)
        assert failure_of(server, url) == "the certificate of 127.0.0.1 is not trusted (no trusted authority issued it)"


@pytest.mark.parametrize("kind", ["stream", "big"])
def test_the_size_cap_stops_a_huge_https_body_early(tls_dir, kind):
    """1.5 GB announced (big) or just sent (stream): refused at 16 MiB, the connection closed."""
    with upstream(tls_dir, "valid") as up, serve(ca=os.path.join(tls_dir, "ca.pem")) as server:
        before = server.rss_kib()
        path = f"/{kind}/1500/huge.png"
        select(server, up.base + path)
        assert failure_of(server, up.base + path, timeout=60) == "the download is larger than 16 MiB"
        wait_until(lambda: path in up.log()["closed_early"], 30, message="the upstream to see the close")
        grown = peak_rss_kib(server) - before
        assert grown < 100 * MIB, f"peak RSS grew {grown // MIB} MiB for a refused 1.5 GB body"


def test_newer_selections_close_the_older_https_downloads(tls_dir):
    """Five 600 MiB downloads selected in a row, then a real image: each older one is cancelled."""
    with upstream(tls_dir, "valid") as up, serve(ca=os.path.join(tls_dir, "ca.pem")) as server:
        before = server.rss_kib()
        paths = [f"/slow/30/stream/600/{n}.png" for n in range(5)]
        for path in paths:
            select(server, up.base + path)
            wait_until(lambda: path in up.log()["requests"], 30, message=f"{path} requested")
        image = f"{up.base}/images/00ff00.png"
        select(server, image)
        wait_until(lambda: selection(server).get("url") == image, 30, interval=0.05, message="the new image")
        wait_until(lambda: set(paths) <= set(up.log()["closed_early"]), 30,
                   message="every older download closed")
        assert peak_rss_kib(server) - before < 100 * MIB
