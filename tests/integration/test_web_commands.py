"""The commands that serve web pages do what they say: the floor console serves where its
``--host``/``--port`` say, over its config's ``[web]``, under the same rules."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bench.venue import FloorProcess
from tablesvc.brokers.mosquitto import Mosquitto, free_port
from tests.conftest import ROOT

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tablesvc.commands.cli"]


def test_floor_serves_on_the_host_and_port_given_instead_of_its_configs(
        tmp_path: Path, broker: Mosquitto) -> None:
    floor = FloorProcess(tmp_path / "floor", "hall", broker.port)
    configured, given = free_port(), free_port()
    floor.config.write_text(floor.config.read_text().replace(
        "[web]\nport = 0\n", f"[web]\nport = {configured}\n"))
    proc = subprocess.Popen([*CLI, "floor", "--config", str(floor.config), "--host",
                             "127.0.0.1", "--port", str(given), "--log", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the console says where it serves once it listens
        assert line.strip().endswith(f"http://127.0.0.1:{given}/"), line
        with urllib.request.urlopen(f"http://127.0.0.1:{given}/healthz", timeout=10) as r:
            assert r.status == 200 and "mqtt" in json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(20)


def test_a_floor_host_given_beyond_this_machine_is_held_to_the_configs_rules(
        tmp_path: Path) -> None:
    floor = FloorProcess(tmp_path / "floor", "hall", free_port())
    done = subprocess.run([*CLI, "floor", "--config", str(floor.config), "--host", "0.0.0.0"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2
    assert "web: host '0.0.0.0' is reachable from other machines: set users_file" in done.stderr
