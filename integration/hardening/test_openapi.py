"""GET /openapi.json is the contract, and the live server keeps to it.

- the served document is OpenAPI 3.1 and every operation in it reaches a route (not the router's 404/405);
- schemathesis (seeded, positive and negative cases, every check that applies) finds no 5xx and no
  response that disagrees with the document, over at least LIVESTATE_SCHEMATHESIS_MIN requests
  (1,000 in CI). One worker: CPython 3.11's ast module is not thread-safe, and hypothesis parses lambdas
  with it ("AST constructor recursion depth mismatch" with two workers).

The other direction (every route in the router's table is documented) is the Swift test
`OpenAPIDocumentTests`, which reads the table itself.
"""

import json
import os
import subprocess
import sys

import pytest

from livestate import CI, ROOT

SEED = int(os.environ.get("LIVESTATE_SCHEMATHESIS_SEED", "1129"))
EXAMPLES = int(os.environ.get("LIVESTATE_SCHEMATHESIS_EXAMPLES", "60" if CI else "100"))
MIN_REQUESTS = int(os.environ.get("LIVESTATE_SCHEMATHESIS_MIN", "1000"))
# The coverage phase (every boundary value of every parameter) takes about 7 of its 11 minutes here; CI runs
# the seeded fuzzing (positive and negative) and stateful phases, a full run adds it.
PHASES = os.environ.get("LIVESTATE_SCHEMATHESIS_PHASES", "examples,fuzzing,stateful" if CI else "examples,coverage,fuzzing,stateful")
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}
# POST /albums/selection downloads the URL it is given: generated URLs would send the server to
# arbitrary hosts, so it is exercised by hand (test_album_selection_*) with loopback URLs only.
EXCLUDED = [("POST", "/albums/selection")]


@pytest.fixture(scope="module")
def document(server):
    r = server.request("GET", "/openapi.json")
    assert r.status == 200, r
    assert r.header("Content-Type") == "application/json; charset=utf-8"
    return r.json()


def test_document_is_openapi_31_with_every_contract_path(document):
    assert document["openapi"] == "3.1.0"
    contract = {
        "/healthz", "/todos", "/todos/{id}", "/posts", "/posts/{id}", "/posts/refresh", "/albums", "/albums/{id}",
        "/albums/refresh", "/albums/selection", "/albums/selection/image",
        "/frameworks", "/frameworks/selection", "/movies", "/movies/keyword", "/events", "/openapi.json",
        "/placeholder/{size}/{colour}",
    }
    assert contract <= set(document["paths"]), contract - set(document["paths"])


def example_path(path):
    return path.replace("{id}", "1").replace("{size}", "8").replace("{colour}", "336699")


def test_every_documented_operation_is_routed(server, document):
    for path, item in document["paths"].items():
        for method in METHODS & set(item):
            if (method.upper(), path) in EXCLUDED:
                body = {}  # a 400 (no url, no id) still proves the route exists, without a download
            else:
                body = {} if method in ("post", "put", "patch") else None
            if path == "/events":
                continue  # a stream: covered by schemathesis (max-stream-events) and the SSE tests
            r = server.request(method.upper(), example_path(path), body=body)
            assert r.status != 405, f"{method.upper()} {path} is documented but the router answers 405"
            if r.status == 404:
                assert "no route" not in r.json().get("message", ""), f"{method.upper()} {path} has no route"


def test_schemathesis_finds_nothing(server, tmp_path):
    report = tmp_path / "events.ndjson"
    url = f"http://127.0.0.1:{server.port}"
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "schemathesis"),
        "--config-file", os.path.join(ROOT, "integration", "hardening", "schemathesis.toml"),
        "run", f"{url}/openapi.json", "--url", url,
        "--seed", str(SEED), "--max-examples", str(EXAMPLES), "--generation-deterministic",
        "--mode", "all", "--checks", "all", "--workers", "1", "--phases", PHASES,
        "--report", "ndjson,junit", "--report-ndjson-path", str(report),
        "--report-junit-path", os.path.join(ROOT, "artifacts", "schemathesis-junit.xml"),
        "--no-color",
    ]
    cmd += ["--exclude-operation-id", "selectAlbum"]  # EXCLUDED
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1500, cwd=tmp_path)  # its cache dir stays out
    out = proc.stdout + proc.stderr
    with open(os.path.join(ROOT, "artifacts", "schemathesis.log"), "w") as f:
        f.write(out)
    requests = count_requests(report)
    print(f"schemathesis: seed {SEED}, {EXAMPLES} examples per operation, phases {PHASES}, {requests} requests, exit {proc.returncode}")
    print(out[-6000:])
    assert proc.returncode == 0, "schemathesis found failures (see artifacts/schemathesis.log)"
    assert requests >= MIN_REQUESTS, f"only {requests} generated requests, wanted at least {MIN_REQUESTS}"
    assert server.alive()


def count_requests(report):
    """Requests sent, from schemathesis' ndjson event stream (each interaction recorded once)."""
    n = 0
    try:
        with open(report) as f:
            for line in f:
                n += line.count('"request":')
    except OSError:
        return 0
    return n


def test_schemathesis_finds_nothing_on_a_data_file(binary, tmp_path):
    """The document a data file's server makes from the file (docs/own-data.md), and the server keeping to
    it: schemathesis over posts, comments, a profile and a read-only list of values (`$schema` beside them, no
    route), no 5xx, every response as documented."""
    from livestate import Server

    data = tmp_path / "db.json"
    data.write_text(json.dumps({
        "$schema": "./node_modules/json-server/schema.json",
        "posts": [{"id": i, "title": f"post {i}", "views": i * 10, "author": {"name": "ann"}} for i in range(1, 6)],
        "comments": [{"id": 1, "body": "nice", "postId": 1}],
        "profile": {"name": "typicode"},
        "tags": ["a", "b", 3, None],
    }, indent=2))
    with Server(str(data), binary=binary, data=str(tmp_path / "db.json.livestate"), public=None) as server:
        document = server.request("GET", "/openapi.json").json()
        assert {"/posts", "/posts/{id}", "/comments", "/comments/{id}", "/profile", "/db"} <= set(document["paths"])
        # Reset and checkpoints (docs/own-data.md) are documented, so schemathesis checks them too.
        assert {"/db/reset", "/db/checkpoints", "/db/checkpoints/{id}", "/db/checkpoints/{id}/restore"} <= set(
            document["paths"])
        assert "title" in document["components"]["schemas"]["Item_posts"]["properties"]
        # A list of values has its GET alone; `$schema` is no path.
        assert set(document["paths"]["/tags"]) == {"get"}
        assert not any("schema" in path for path in document["paths"])
        # `_embed` and `_expand` take the file's collection names (another is a 400 invalid_query).
        relations = {p["name"]: p["schema"]["enum"] for p in document["paths"]["/posts/{id}"]["get"]["parameters"]
                     if p["name"] in ("_embed", "_expand")}
        assert relations == {"_embed": ["posts", "comments"], "_expand": ["posts", "post", "comments", "comment"]}
        # Every write takes an Idempotency-Key, and may be a 422 for a key another request committed.
        for path, method in [("/posts", "post"), ("/posts/{id}", "patch"), ("/posts/{id}", "delete"),
                             ("/profile", "put")]:
            operation = document["paths"][path][method]
            assert "Idempotency-Key" in [p["name"] for p in operation["parameters"]], (path, method)
            assert "422" in operation["responses"], (path, method)
        report = tmp_path / "events.ndjson"
        url = f"http://127.0.0.1:{server.port}"
        examples = str(max(10, EXAMPLES // 3))
        cmd = [
            os.path.join(os.path.dirname(sys.executable), "schemathesis"),
            "--config-file", os.path.join(ROOT, "integration", "hardening", "schemathesis.toml"),
            "run", f"{url}/openapi.json", "--url", url,
            "--seed", str(SEED), "--max-examples", examples, "--generation-deterministic",
            "--mode", "all", "--checks", "all", "--workers", "1", "--phases", "examples,fuzzing",
            "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=tmp_path)
        out = proc.stdout + proc.stderr
        with open(os.path.join(ROOT, "artifacts", "schemathesis-data-file.log"), "w") as f:
            f.write(out)
        print(f"schemathesis on a data file: {count_requests(report)} requests, exit {proc.returncode}")
        print(out[-6000:])
        assert proc.returncode == 0, "schemathesis found failures (see artifacts/schemathesis-data-file.log)"
        assert server.alive()
