"""A data file mounted on its own (a container given one file, `-v "$PWD/db.json":/data/db.json`) cannot be
replaced by the rename the write-back uses: the start says so in one line and changes nothing
(docs/container.md)."""
import os
import shutil
import subprocess

import pytest

from livestate import binary_path


def in_mount_namespace(script):
    """Runs `script` with sh in a private mount namespace (root only), or skips when this machine cannot."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to bind-mount a single file")
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare --mount is not allowed here: {probe.stderr.decode().strip()}")
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True, text=True, timeout=30)


def test_a_file_mounted_on_its_own_is_refused_with_one_line(tmp_path):
    source = tmp_path / "host" / "db.json"
    source.parent.mkdir()
    source.write_text('{"posts": [{"id": 1}]}')
    target = tmp_path / "container" / "db.json"
    target.parent.mkdir()
    target.write_text("{}")
    run = in_mount_namespace(
        f'mount --bind "{source}" "{target}" && exec "{binary_path()}" --port 0 "{target}"')
    assert run.returncode == 1, run.stderr
    assert "is mounted as a single file" in run.stderr and "mount its folder instead" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert source.read_text() == '{"posts": [{"id": 1}]}'
    assert not (target.parent / "db.json.livestate").exists()
    # Where the file is never written back, it is served as it is.
    run = in_mount_namespace(
        f'mount --bind "{source}" "{target}" && timeout -s INT 2 "{binary_path()}" --port 0 "{target}"'
        ' --data :memory:')
    assert "is mounted as a single file" not in run.stderr and "serving on" in run.stderr, run.stderr
