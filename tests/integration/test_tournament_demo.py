"""``make demo ARGS="--tables N --tournament"``: a small tournament played out on simulated
tables, from the draw to a winner, with levels rising at every table and a table broken."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_the_tournament_demo_plays_from_the_draw_to_a_winner() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablesvc.commands.demo", "--tournament", "--tables", "2",
         "--level-minutes", "0.1", "--pace", "0.05"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout],  # type: ignore[union-attr]
                     daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + 300
    try:
        while not any(" wins " in line for line in seen):
            assert proc.poll() is None, "the demo ended early:\n" + "".join(seen)
            assert time.monotonic() < deadline, "no winner in time:\n" + "".join(seen)
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                continue
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    out = "".join(seen)
    assert re.search(r"director http://127\.0\.0\.1:\d+/ clock http://127\.0\.0\.1:\d+/clock",
                     out), out
    assert "12 players drawn to their seats" in out
    assert "level 2: blinds 50/100 at every table" in out
    assert re.search(r"table t0[12] breaks", out), out
    places = [int(p) for p in re.findall(r"is out in place (\d+)", out)]
    assert len(places) == 11 and min(places) == 2, out
    assert proc.returncode == 0, out
