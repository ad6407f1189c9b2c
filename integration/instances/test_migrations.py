"""Databases written by an older LiveState, started with this one (PostgreSQL; SQLite: hardening/test_migrations.py).

The fixtures are `pg_dump --inserts` of what the binary from before the schema steps were recorded made
(fixtures/README.md): the seeds' database at schema version 6, and a data file's database with a key and a
checkpoint. This binary must migrate each in place, keep every todo, item, key and checkpoint, and write; a
database whose `livestate_migrations` names a step it does not know (a newer LiveState's) is refused at start
with one line, nothing in it changed.
"""

import glob
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import events_until, psql
from livestate import ROOT, Server, SSEClient

FIXTURES = Path(__file__).resolve().parent / "fixtures"

SEEDS_TODOS = [
    {"completed": False, "id": 1, "title": "Buy Milk"},
    {"completed": True, "id": 2, "title": "Walk the dog"},
    {"completed": False, "id": 3, "title": "Ünïcode ✓ title"},
    {"completed": False, "id": 5, "title": "Keyed write"},
]


def restore(uri, dump):
    """Loads a `pg_dump` file into the (empty) database at `uri`."""
    candidates = [shutil.which("psql")] + sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"), reverse=True)
    binary = next(path for path in candidates if path)
    subprocess.run([binary, "-q", "-v", "ON_ERROR_STOP=1", "-d", uri, "-f", str(FIXTURES / dump)],
                   capture_output=True, text=True, check=True)


def applied_steps(uri):
    return psql(uri, "SELECT string_agg(name, ',' ORDER BY name) FROM livestate_migrations")


def snapshot(uri):
    """Every table's rows, to see that a refused start changed nothing."""
    return psql(uri, """SELECT string_agg(t, E'\\n' ORDER BY t) FROM (
        SELECT format('%s %s', c.relname, (xpath('/row/c/text()',
            query_to_xml(format('SELECT count(*) AS c FROM %I', c.relname), false, true, '')))[1]::text) AS t
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r') tables""")


def test_a_seeds_database_of_schema_6_keeps_its_todos_and_keys_and_writes(cluster, binary):
    restore(cluster.uri, "pg-seeds-v6.sql")
    with Server(binary=binary, data=cluster.uri) as server:
        assert server.call("GET", "/todos")[2] == SEEDS_TODOS
        status, _, body = server.call(
            "POST", "/todos", {"title": "Keyed write"}, headers={"Idempotency-Key": "fixture-key-1"})
        assert (status, body["id"]) == (201, 5)
        status, _, body = server.call("POST", "/todos", {"title": "after the upgrade"})
        assert (status, body["id"]) == (201, 6)
    # The seeds' tables were moved into the document tables: a LiveState that knows only version 6 refuses it.
    assert applied_steps(cluster.uri) == "batch function,batch retry,batch scans by id,checkpoints,document tables,schema 6,seeds as documents"
    assert psql(cluster.uri, "SELECT max(version) FROM livestate_schema") == "7"
    with Server(binary=binary, data=cluster.uri) as server:
        titles = [todo["title"] for todo in server.call("GET", "/todos")[2]]
        assert titles == [todo["title"] for todo in SEEDS_TODOS] + ["after the upgrade"]


def test_a_new_seeds_database_gives_event_ids_above_every_earlier_deployments(cluster, binary):
    # Event ids of the seeds on PostgreSQL start from the clock (microseconds since 1970), so an id a browser
    # kept from an earlier deployment, on another database, is below every id of a new one: its stream is
    # answered at once, not held for 5 s as an id this server never gave.
    earlier = int(time.time() * 1_000_000) // 65536 * 65536
    with Server(binary=binary, data=cluster.uri) as server:
        assert server.call("POST", "/todos", {"title": "first of a new database"})[0] == 201
        started = time.monotonic()
        client = SSEClient.of(server, "/events?topics=todos", headers={"Last-Event-ID": str(earlier)})
        assert client.read_head() == 200
        got = events_until(client, lambda es: len(es) >= 1, topic="todos")
        assert time.monotonic() - started < 3, "the browser's id of an earlier deployment was held"
        assert int(got[0].id) > earlier
        assert "first of a new database" in got[0].data
        client.close()


def test_a_data_files_database_of_the_older_binary_keeps_its_keys_and_checkpoints_and_writes(
        cluster, binary, tmp_path):
    restore(cluster.uri, "pg-file.sql")
    data_file = tmp_path / "db.json"
    shutil.copyfile(FIXTURES / "pg-file.json", data_file)
    with Server(str(data_file), binary=binary, data=cluster.uri) as server:
        posts = server.call("GET", "/posts")[2]
        assert [post["title"] for post in posts] == ["json-server", "second post", "third ✓", "after checkpoint"]
        assert posts[1]["views"] == 11
        assert server.call("GET", "/comments")[2] == [{"id": 2, "body": "keyed", "postId": "2"}]
        assert server.call("GET", "/profile")[2] == {"name": "fixture"}
        assert [c["name"] for c in server.call("GET", "/db/checkpoints")[2]] == ["before-fixture"]
        status, _, body = server.call(
            "POST", "/comments", {"body": "keyed", "postId": "2"}, headers={"Idempotency-Key": "fixture-file-key"})
        assert (status, body["id"]) == (201, 2)
        assert server.call("POST", "/posts", {"id": "4", "title": "after the upgrade"})[0] == 201
        checkpoint = server.call("GET", "/db/checkpoints")[2][0]["id"]
        assert server.call("POST", f"/db/checkpoints/{checkpoint}/restore")[0] == 200
        assert [post["title"] for post in server.call("GET", "/posts")[2]] == ["json-server", "second post", "third ✓"]
    assert applied_steps(cluster.uri) == "batch function,batch retry,batch scans by id,checkpoints,document tables"
    with Server(str(data_file), binary=binary, data=cluster.uri) as server:
        assert [post["title"] for post in server.call("GET", "/posts")[2]] == ["json-server", "second post", "third ✓"]
        assert server.call("POST", "/posts", {"title": "after a restart"})[0] == 201


@pytest.mark.parametrize("kind", ["seeds", "data file"])
def test_a_database_marked_by_a_newer_livestate_is_refused_with_one_line_and_left_unchanged(
        cluster, binary, tmp_path, kind):
    args = []
    if kind == "data file":
        shutil.copyfile(FIXTURES / "pg-file.json", tmp_path / "db.json")
        args = [str(tmp_path / "db.json")]
    restore(cluster.uri, "pg-file.sql" if kind == "data file" else "pg-seeds-v6.sql")
    with Server(*args, binary=binary, data=cluster.uri):
        pass
    psql(cluster.uri, "INSERT INTO livestate_migrations (name) VALUES ('a step of a newer LiveState')")
    before = snapshot(cluster.uri)
    out = subprocess.run([binary, "--port", "0", "--data", cluster.uri, *args], capture_output=True, text=True,
                         timeout=30)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode != 0, out.stderr
    assert len(lines) == 1 and "written by a newer LiveState" in lines[0], lines
    assert '"a step of a newer LiveState"' in lines[0]
    assert snapshot(cluster.uri) == before
    # An operator upgrading several instances is told this line word for word (docs/container.md).
    documented = lines[0].replace('"a step of a newer LiveState"', '"…"')
    assert documented in (ROOT / "docs" / "container.md").read_text(), f"docs/container.md does not quote {documented}"
