"""An album selection whose downloading instance dies is downloaded by another one
(docs/architecture-instances.md, "A downloader that dies"): the instance that journaled the selection holds
its download claim; killed with `kill -9` mid-download, it frees the claim, another instance takes it within
about a second, downloads once, and journals the outcome once, so every instance shows the image instead of
`pending` forever. A newer selection still wins over the stalled one.
"""

import json
import subprocess
import time
import urllib.request
from contextlib import contextmanager

from conftest import events_until
from livestate import Server, SSEClient, fake_upstream, wait_until
from livestate import upstream_control as control

# The documented bound is the takeover check (1 s) plus the download; the slack is for a loaded machine.
BOUND = 10


def requested(base, path):
    return [p for p in control(base, "/_control/log")["requests"] if p.split("?")[0] == path]


def image_entries(cluster):
    out = subprocess.run(["psql", cluster.uri, "-XAtc", "SELECT body FROM livestate_entries WHERE resource = 'image'"],
                         capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if line]


def selection(server):
    return server.call("GET", "/albums/selection")


@contextmanager
def instances(cluster, binary, count):
    servers = [Server(binary=binary, data=cluster.uri).start() for _ in range(count)]
    try:
        yield servers
    finally:
        for server in servers:
            if server.alive():
                server.stop()


def test_another_instance_downloads_a_selection_whose_downloader_was_killed(cluster, binary):
    with fake_upstream() as upstream, instances(cluster, binary, 3) as servers:
        a, b, c = servers
        path = "/images/3779b1.png"
        url = upstream + path
        with urllib.request.urlopen(url, timeout=10) as response:
            expected = response.read()
        control(upstream, "/_control", {"path": path, "mode": "hang"})  # A's download stalls
        clients = [SSEClient.of(server, "/events?topics=image") for server in (b, c)]
        for client in clients:
            assert client.read_head() == 200
        assert a.call("POST", "/albums/selection", {"url": url})[0] == 202
        wait_until(lambda: len(requested(upstream, path)) == 2, 10, message="A's download reached the upstream")
        for server in servers:
            wait_until(lambda: selection(server)[2].get("pending") == {"url": url}, 10,
                       message="the selection is pending everywhere")
        time.sleep(2 * 1.0)  # longer than the takeover check: a live downloader keeps its claim
        assert len(requested(upstream, path)) == 2, "another instance downloaded while A was alive"
        control(upstream, "/_control", {"path": path, "mode": "ok"})
        killed = time.monotonic()
        a.kill9()
        streams = [events_until(client, lambda es: bool(es), timeout=BOUND, topic="image") for client in clients]
        took = time.monotonic() - killed
        print(f"the image reached B and C {took:.2f} s after A was killed")
        assert took < BOUND
        for client, stream in zip(clients, streams):
            stream += [e for e in client.drain(quiet=1.5) if e.event == "image"]
            client.close()
        assert [(e.id, e.data) for e in streams[0]] == [(e.id, e.data) for e in streams[1]]
        assert len(streams[0]) == 1 and streams[0][0].json()["url"] == url
        for server in (b, c):
            status, _, body = selection(server)
            assert status == 200 and body["url"] == url and "pending" not in body
            image = server.request("GET", "/albums/selection/image")
            assert image.status == 200 and image.body == expected
        # One download after A's (one instance took the claim), one outcome in the journal.
        assert len(requested(upstream, path)) == 3
        assert len(image_entries(cluster)) == 1


def test_a_newer_selection_wins_over_a_stalled_one_whose_downloader_dies(cluster, binary):
    with fake_upstream() as upstream, instances(cluster, binary, 2) as (a, b):
        stalled, newer = "/images/aa0000.png", "/images/00aa00.png"
        control(upstream, "/_control", {"path": stalled, "mode": "hang"})
        watcher = SSEClient.of(b, "/events?topics=image")
        assert watcher.read_head() == 200
        assert a.call("POST", "/albums/selection", {"url": upstream + stalled})[0] == 202
        wait_until(lambda: requested(upstream, stalled), 10, message="A's download reached the upstream")
        assert b.call("POST", "/albums/selection", {"url": upstream + newer})[0] == 202
        control(upstream, "/_control", {"path": stalled, "mode": "ok"})
        a.kill9()
        got = events_until(watcher, lambda es: bool(es), timeout=BOUND, topic="image")
        got += [e for e in watcher.drain(quiet=2.5) if e.event == "image"]
        watcher.close()
        assert [e.json()["url"] for e in got] == [upstream + newer]
        assert selection(b)[2]["url"] == upstream + newer
        # Nobody took the older selection over: it was not the latest any more.
        assert len(requested(upstream, stalled)) == 1
        assert len(image_entries(cluster)) == 1


def test_a_retry_of_a_url_whose_download_failed_is_settled_by_its_own_download_on_every_instance(cluster, binary):
    """A user selects an image whose server fails, then selects the same URL again through another instance
    once it works: every instance shows the failure, then the image, never the older failure for the retry."""
    path = "/images/00ff00.png"
    with fake_upstream() as upstream, instances(cluster, binary, 3) as servers:
        url = upstream + path
        control(upstream, "/_control", {"path": path, "mode": "500"})
        assert servers[0].call("POST", "/albums/selection", {"url": url})[0] == 202
        for server in servers:
            state = wait_until(lambda: (selection(server)[2] or {}).get("failed"), BOUND, interval=0.05,
                               message="the failure shown on every instance")
            assert state["url"] == url and "500" in state["reason"], state
        control(upstream, "/_control", {"path": path, "mode": "ok"})
        assert servers[1].call("POST", "/albums/selection", {"url": url})[0] == 202
        for server in servers:
            state = wait_until(lambda: (s := selection(server))[0] == 200 and s[2], BOUND, interval=0.05,
                               message="the retry's image shown on every instance")
            assert state["url"] == url and state["contentType"] == "image/png", state
            assert "failed" not in state and "pending" not in state, state
        images = [server.request("GET", "/albums/selection/image") for server in servers]
        assert all(r.status == 200 for r in images) and images[0].body == images[1].body == images[2].body
        # One download per selection: the failed one and the retry; one image entry for each.
        assert len(requested(upstream, path)) == 2
        entries = [json.loads(body) for body in image_entries(cluster)]
        assert sorted(("failed" in entry, entry["url"]) for entry in entries) == [(False, url), (True, url)], entries
