"""Fixtures for the live tests: the real livestate binary on loopback (see ../livestate.py)."""
import sys
from pathlib import Path

import pytest

# The one harness, integration/livestate.py, shared with the hardening stages.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from livestate import ROOT, Server, binary_path  # noqa: E402

ARTIFACTS = ROOT / "artifacts"


@pytest.fixture(scope="module")
def server():
    """One server for a module's tests; tests only assert on what they change themselves."""
    with Server("--heartbeat", "60") as running:
        yield running


@pytest.fixture
def fresh_server():
    """A server for one test (restarts, shutdown, heartbeat timing)."""
    servers = []

    def start(*flags, **kwargs):
        started = Server(*flags, **kwargs).start()
        servers.append(started)
        return started

    yield start
    for running in servers:
        running.stop()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def pytest_report_header(config):
    return f"livestate binary: {binary_path()}"
