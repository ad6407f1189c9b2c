"""The server's rewrite of the user's file keeps what is the user's: its permission bits, its symbolic
link, and a folder without leftovers (docs/own-data.md)."""
import json
import stat

from livestate import wait_until


def written_back(path, title):
    """Waits until the file shows the post `title` the server was given."""
    wait_until(lambda: [p["title"] for p in json.loads(path.read_text())["posts"]] == [title], 1.5,
               message="file written back")


def test_a_rewrite_keeps_the_files_permission_bits(data_file, serve):
    path = data_file({"posts": []})
    path.chmod(0o640)
    server = serve(path)
    assert server.call("POST", "/posts", {"title": "kept"})[0] == 201
    written_back(path, "kept")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_rewrite_leaves_no_temporary_file_beside_the_file(data_file, serve):
    path = data_file({"posts": []})
    server = serve(path)
    assert server.call("POST", "/posts", {"title": "one"})[0] == 201
    written_back(path, "one")
    names = sorted(p.name for p in path.parent.iterdir() if not p.name.startswith("db.json.livestate"))
    assert names == ["db.json"]


def test_a_file_behind_a_symbolic_link_is_rewritten_and_the_link_stays(tmp_path, data_file, serve):
    real = data_file({"posts": []}, name="real.json")
    link = tmp_path / "db.json"
    link.symlink_to("real.json")
    server = serve(link)
    assert server.call("POST", "/posts", {"title": "through"})[0] == 201
    written_back(real, "through")
    assert link.is_symlink() and str(link.readlink()) == "real.json"
