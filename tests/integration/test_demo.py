"""``make demo``: what a newcomer runs first must end as clean as the play it shows."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def test_a_clean_demo_ends_without_a_warning_or_critical_alert() -> None:
    """Its end is not a fault of the table: the devices go away only after the service
    stopped (before, four device_offline warnings closed every demo)."""
    done = subprocess.run(
        [sys.executable, "-m", "tablesvc.commands.demo", "--hands", "1", "--pace", "0.05",
         "--seed", "7"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "200"})
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "hand_ended" in out
    assert "WARNING" not in out and "CRITICAL" not in out, out
    # the overlay's URL carries its token (the page answers nothing without it)
    assert re.search(r"broadcast overlay \(OBS browser source, 1920x1080\): "
                     r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43} ", out), out


class _Demo:
    """``make demo`` in a process group of its own, as in a terminal (Ctrl-C reaches the whole
    group), its output read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.demo", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "COLUMNS": "200"}, start_new_session=True)
        self.lines: list[str] = []
        self._seen = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._seen:
                self.lines.append(line)
                self._seen.notify_all()
        with self._seen:
            self._seen.notify_all()

    def wait_for(self, pattern: str, timeout: float = 90) -> None:
        """Until a line matches ``pattern`` (fails if the demo ends first)."""
        with self._seen:
            found = self._seen.wait_for(
                lambda: any(re.search(pattern, ln) for ln in self.lines)
                or not self._reader.is_alive(), timeout)
            if not found or not any(re.search(pattern, ln) for ln in self.lines):
                raise AssertionError(f"no line {pattern!r} in:\n{self.output}")

    def ctrl_c(self) -> None:
        os.killpg(self.proc.pid, signal.SIGINT)

    def end(self, timeout: float = 120) -> int:
        try:
            code = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._reader.join(10)
        return code

    @property
    def output(self) -> str:
        return "".join(self.lines)


@pytest.mark.parametrize("variant", ["holdem", "omaha", "draw5"])
def test_ctrl_c_finishes_the_hand_under_way_as_a_dealer_would(variant: str) -> None:
    """Ctrl-C mid-hand: the dealer finishes the hand at a pace (before, he dealt the rest at
    once, and the frames racing each other raised premature_card and burn_premature with no
    hand_ended), the service publishes its end, no other hand begins, and the demo exits 0."""
    demo = _Demo("--hands", "5", "--pace", "0.1", "--seed", "7", "--variant", variant)
    demo.wait_for(r" h1 card_dealt ")  # the first hand is under way
    demo.ctrl_c()
    code = demo.end()
    out = demo.output
    assert code == 0, out
    assert "WARNING" not in out and "CRITICAL" not in out, out
    after = out[out.index("Ctrl-C: the dealer finishes hand 1"):]
    assert re.search(r" h1 hand_ended ", after), out
    assert "hand 1 ended: the demo stops" in after, out
    assert " h2 hand_started" not in out, out


def test_a_second_ctrl_c_abandons_the_hand_cleanly() -> None:
    """Ctrl-C twice: the service stops first, so nothing dealt after is judged; the demo says
    which hand it abandoned and exits 0."""
    demo = _Demo("--hands", "5", "--pace", "0.3", "--seed", "7")
    demo.wait_for(r" h1 card_dealt ")
    demo.ctrl_c()
    demo.wait_for(r"Ctrl-C: the dealer finishes hand 1 ")
    demo.ctrl_c()
    code = demo.end()
    out = demo.output
    assert code == 0, out
    assert "WARNING" not in out and "CRITICAL" not in out, out
    assert "hand 1 abandoned: the service stopped before its end" in out, out
    assert " h1 hand_ended " not in out, out
