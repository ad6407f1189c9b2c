"""A server on a data file builds only what it serves: the file's resources, not the seed apps beside them (no
seed journal, view models or encoded lists), which no route would serve (docs/architecture.md, "Sites")."""
import time
from pathlib import Path

from livestate import Server

DB = {"posts": [{"id": 1, "title": "a"}], "comments": [], "profile": {"name": "x"}}


def resident_kib(server):
    """The server's resident memory (VmRSS) once it has settled after its start."""
    time.sleep(1)
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def thread_names(server):
    return [(task / "comm").read_text().strip() for task in Path(f"/proc/{server.proc.pid}/task").iterdir()]


def test_a_data_file_server_serves_no_seed_resource_and_runs_one_journal(data_file, serve):
    server = serve(data_file(DB), "--threads", "2")
    assert server.call("GET", "/posts")[0] == 200
    for path in ["/todos", "/albums", "/photos", "/frameworks", "/movies?q=alien", "/albums/selection"]:
        assert server.call("GET", path)[0] == 404, path
    # One journal, so one thread committing to it: the file's (the seeds' unused one had its own).
    assert thread_names(server).count("livestate-write") == 1, thread_names(server)


def test_a_data_file_server_takes_less_memory_than_the_seeds(data_file, serve):
    seeds = Server("--threads", "2", public=None).start()
    try:
        seeds_kib = resident_kib(seeds)
    finally:
        seeds.stop()
    server = serve(data_file(DB), "--threads", "2")
    # The seed apps' parts take some 7 MiB (5,000 photos and their encoded list, the films, the view models);
    # a data file's server of a small file had them too, and was within 1 MiB of the seeds' server.
    assert resident_kib(server) < seeds_kib - 3 * 1024, (resident_kib(server), seeds_kib)
