"""Several `livestate` processes on one throw-away PostgreSQL (scripts/pg-test-cluster)."""

import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from livestate import ROOT, Server, binary_path  # noqa: E402

SCRIPT = str(ROOT / "scripts" / "pg-test-cluster")


class Cluster:
    """A PostgreSQL cluster of its own: `uri`, and `crash()` / `resume()` for the fault tests."""

    def __init__(self):
        out = subprocess.run([SCRIPT, "start", "--owner", str(os.getpid())], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"pg-test-cluster start failed: {out.stdout}{out.stderr}")
        self.dir, self.uri = out.stdout.strip().splitlines()[-2:]

    def crash(self):
        subprocess.run([SCRIPT, "crash", self.dir], check=True)

    def resume(self):
        subprocess.run([SCRIPT, "resume", self.dir], check=True)

    def stop(self):
        subprocess.run([SCRIPT, "stop", self.dir], check=False)


@pytest.fixture(scope="session")
def binary():
    return binary_path()


@pytest.fixture()
def cluster():
    if subprocess.run([SCRIPT, "available"]).returncode != 0:
        pytest.skip("no PostgreSQL binaries on this machine")
    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture()
def three(cluster, binary):
    """Three instances on `cluster`."""
    servers = [Server(binary=binary, data=cluster.uri).start() for _ in range(3)]
    yield servers
    for server in servers:
        if server.alive():
            server.stop()


def psql(uri, sql):
    """The output of one SQL statement run by psql against `uri` (tuples only, unaligned)."""
    candidates = [shutil.which("psql")] + sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"), reverse=True)
    binary = next(path for path in candidates if path)
    return subprocess.run([binary, "-d", uri, "-tAc", sql], capture_output=True, text=True, check=True).stdout.strip()


def events_until(client, done, timeout=20, topic=None):
    """The events of `client` (of `topic` only, if given) until `done(events)` holds."""
    events = []
    deadline = time.monotonic() + timeout
    while not done(events):
        assert time.monotonic() < deadline, f"timed out with {[(e.event, e.id) for e in events]}"
        event = client.next(timeout=max(0.1, deadline - time.monotonic()))
        if event is not None and (topic is None or event.event == topic):
            events.append(event)
    return events


# The advisory lock every writer of the journal holds from its ids to its commit (PostgresDocumentJournal.writeLock):
# a session that holds it makes every batch wait, as a slow commit does.
WRITER_LOCK = 7428010


def todos_in_database(uri, like):
    """The `(id, title)` of the todos the database holds whose title is `LIKE like`, by title."""
    out = psql(uri, "SELECT key || '|' || title FROM (SELECT key, body::json ->> 'title' AS title "
                    f"FROM livestate_doc_items WHERE resource = 'todos') todos WHERE title LIKE '{like}' ORDER BY title")
    return [(int(line.split("|", 1)[0]), line.split("|", 1)[1]) for line in out.split("\n") if line]
