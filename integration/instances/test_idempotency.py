"""`Idempotency-Key` on every input (docs/api.md, "Several instances"): a request sent again with the key
of one that committed, to any instance, is answered from the first request and applied once."""

import subprocess
import time


def entries(cluster, topic):
    out = subprocess.run(["psql", cluster.uri, "-XAtc", f"SELECT body FROM livestate_entries WHERE resource = '{topic}'"],
                         capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:-1]


def test_every_input_repeated_with_its_key_on_another_instance_is_answered_from_the_first_and_applied_once(
        three, cluster):
    a, b, c = three
    # (method, path, first body, the repeat's body — different, to show the answer is the first's, status, topic)
    cases = [
        ("POST", "/frameworks/selection", {"name": "Combine"}, {"name": "SwiftUI"}, 202, "frameworks"),
        ("POST", "/albums/selection", {"id": 1}, {"id": 2}, 202, "selection"),
        ("POST", "/posts/refresh", {}, {}, 200, "posts"),
        ("POST", "/albums/refresh", {}, {}, 200, "albums"),
        ("PUT", "/movies/keyword", {"keyword": "matrix"}, {"keyword": "alien"}, 202, "keyword"),
    ]
    for method, path, body, other, status, topic in cases:
        key = {"Idempotency-Key": f"repeat-{topic}"}
        before = len(entries(cluster, topic))
        first_status, _, first = a.call(method, path, body, headers=key)
        assert first_status == status, (path, first_status, first)
        for server in (b, c, a):
            again_status, _, again = server.call(method, path, other, headers=key)
            assert (again_status, again) == (status, first), path
        assert len(entries(cluster, topic)) == before + 1, path

    # The keyword the repeats carried was never sent into $keyword: only the first one is searched.
    time.sleep(1.5)
    searched = entries(cluster, "movies")
    assert any("matrix" in change for change in searched), searched
    assert not any("alien" in change for change in searched), searched
    # A key committed by another kind of request is refused and changes nothing.
    before = len(entries(cluster, "frameworks"))
    status, _, body = c.call("POST", "/frameworks/selection", {"name": "Combine"},
                             headers={"Idempotency-Key": "repeat-posts"})
    assert status == 422 and body["error"] == "idempotency_key_reused", body
    assert len(entries(cluster, "frameworks")) == before
    assert a.call("PUT", "/movies/keyword", {"keyword": "x"}, headers={"Idempotency-Key": "bad key"})[0] == 400
