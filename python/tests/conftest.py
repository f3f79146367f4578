"""Shared set-up of the Python tests: each test runs in its own temporary folder, with Conveyor's
cache (calibration, performance models) there too, so nothing outside tmp_path is read or written."""

import os
import shutil

import pytest


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def cli():
    """The conveyor executable of the same build (the Makefile sets CONVEYOR_CLI), for comparing
    records with the CLI's; the test is skipped without it."""
    path = os.environ.get("CONVEYOR_CLI") or shutil.which("conveyor")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("no conveyor executable (set CONVEYOR_CLI)")
    return path


@pytest.fixture
def cli_json(cli, tmp_path):
    """Runs the CLI with these arguments and --json-out, and returns the document it wrote."""
    import json
    import subprocess

    def run(*args):
        out = tmp_path / "cli.json"
        subprocess.run([cli, *map(str, args), "--json-out", str(out)], check=True,
                       capture_output=True, timeout=120)
        return json.loads(out.read_text())

    return run
