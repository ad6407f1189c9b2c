"""Work that must not multiply with callers or hold a loop: measured on the real server from outside.

- Concurrent refreshes of one resource share one upstream request (a slow fake upstream on loopback
  counts them).
- A big placeholder is drawn on a worker thread: `/healthz` on the same (single) loop answers while it
  is being drawn, and a flood of placeholders beyond the bounded queue gets 503, not a growing queue.
"""

import json
import threading
import time

import pytest

from livestate import Server, fake_upstream, wait_until
from livestate import upstream_control as control

@pytest.fixture
def upstream():
    with fake_upstream() as base:
        yield base


def concurrently(count, work):
    """Runs `work(i)` on `count` threads released together; their results in order."""
    results = [None] * count
    gate = threading.Barrier(count)

    def run(i):
        gate.wait()
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


@pytest.mark.parametrize("resource,upstream_path", [("posts", "/posts"), ("albums", "/photos")])
def test_concurrent_refreshes_share_one_upstream_request(binary, upstream, resource, upstream_path):
    callers = 150
    with Server("--upstream", upstream, binary=binary, nofile=4096) as server:
        # The load at start is done before the slow ones begin.
        wait_until(lambda: server.call("GET", f"/{resource}")[2], 10)
        expected = server.call("GET", f"/{resource}")[2]
        control(upstream, "/_control/reset", {})
        control(upstream, "/_control", {"path": upstream_path, "mode": "slow", "seconds": 2})

        def refresh(_):
            response = server.request("POST", f"/{resource}/refresh", timeout=60)
            return response.status, response.body

        results = concurrently(callers, refresh)
        requests = [p for p in control(upstream, "/_control/log")["requests"] if p.startswith(upstream_path)]
        statuses = sorted({status for status, _ in results})
        print(f"{callers} concurrent POST /{resource}/refresh: {len(requests)} upstream request(s), "
              f"statuses {statuses}")
        assert statuses == [200]
        assert all(body == results[0][1] for _, body in results), "callers got different answers"
        assert json.loads(results[0][1]) == expected
        assert len(requests) == 1, requests
        # Once it has answered, the next refresh asks upstream again.
        control(upstream, "/_control", {"path": upstream_path, "mode": "ok"})
        assert server.request("POST", f"/{resource}/refresh", timeout=30).status == 200
        requests = [p for p in control(upstream, "/_control/log")["requests"] if p.startswith(upstream_path)]
        assert len(requests) == 2, requests


def timed_get(server, path, timeout=60):
    start = time.monotonic()
    response = server.request("GET", path, timeout=timeout)
    return response.status, time.monotonic() - start, time.monotonic()


def test_a_big_placeholder_does_not_hold_the_loop(binary):
    """Six 2000-pixel placeholders in flight on a single loop: /healthz still answers at once."""
    drawings = 6
    with Server("--threads", "1", binary=binary) as server:
        status, alone, _ = timed_get(server, "/placeholder/2000/336699")
        assert status == 200
        results = [None] * drawings

        def placeholder(i):
            results[i] = timed_get(server, f"/placeholder/2000/99663{i}")

        threads = [threading.Thread(target=placeholder, args=(i,)) for i in range(drawings)]
        for thread in threads:
            thread.start()
        time.sleep(alone * 0.3)  # every request has arrived, the drawing has begun
        health_status, health, health_done = timed_get(server, "/healthz")
        for thread in threads:
            thread.join(timeout=120)
        assert all(r is not None and r[0] == 200 for r in results) and health_status == 200
        last_done = max(r[2] for r in results)
        slowest = max(r[1] for r in results)
        print(f"placeholder alone {alone:.3f} s; beside {drawings} of them: /healthz {health:.4f} s, "
              f"the slowest placeholder {slowest:.3f} s")
        # On the loop, /healthz would wait for every drawing read before it; off it, it answers at once.
        assert health_done < last_done, "/healthz waited for the placeholders"
        assert health < slowest * 0.5, f"/healthz took {health:.3f} s beside placeholders of {slowest:.3f} s"


def test_a_flood_of_placeholders_is_refused_with_503_not_queued_without_bound(binary):
    with Server("--threads", "1", binary=binary, nofile=4096) as server:
        results = concurrently(120, lambda i: server.request("GET", f"/placeholder/2000/{i:06x}", timeout=120))
        statuses = [r.status for r in results]
        busy = [r for r in results if r.status == 503]
        print(f"120 concurrent /placeholder/2000: {statuses.count(200)} x 200, {len(busy)} x 503")
        assert set(statuses) <= {200, 503}
        assert busy, "every request was queued"
        assert busy[0].json()["error"] == "busy" and busy[0].header("Retry-After") == "1"
        assert statuses.count(200) >= 2
        assert server.healthy()
