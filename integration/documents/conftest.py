"""Fixtures for the own-data tests: the real livestate binary serving a JSON file in a temporary folder."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from livestate import Server  # noqa: E402


@pytest.fixture
def data_file(tmp_path):
    """Writes `content` (a dict, or raw text) as db.json in a fresh folder and returns its path."""

    def write(content, name="db.json"):
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
        return path

    return write


@pytest.fixture
def serve():
    """Starts livestate on a data file (journal beside it unless `data` is given); stops every server at the end."""
    servers = []

    def start(path, *flags, data=None, **kwargs):
        server = Server(str(path), *flags, data=data or f"{path}.livestate", public=None, **kwargs)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        if server.alive():
            server.kill9()
