"""Golden journals: journals recorded before a change replay to byte-identical output after it.

Each folder of ``tests/golden`` holds an input journal of hold'em or five-card draw (clean
sessions, the shipped scenario files in a row, device trouble, a real run of the service), the
config it was recorded with, and the exact stdout ``tablesvc replay`` printed for it then
(``tests/golden/record.py`` made them; see there how, and when re-recording is right). What a
user sees is what the service publishes, and replay prints exactly that, ``seq`` and ``ts``
included, so any difference here is a change a subscriber would see.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablesvc.config.table import load_config
from tablesvc.pipeline.replay import replay_events
from tablesvc.pipeline.service import build_core

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
CASES = sorted(p.parent.name for p in GOLDEN.glob("*/journal.jsonl"))


def replayed(case: str) -> bytes:
    """What ``tablesvc replay`` prints for the case's journal, computed in this process."""
    config = GOLDEN / case / "table.toml"
    core = build_core(load_config(config), config)
    events = replay_events(core, GOLDEN / case / "journal.jsonl")
    return "".join(e.model_dump_json() + "\n" for e in events).encode()


def first_difference(case: str, got: bytes, want: bytes) -> str:
    """The first line where the replay leaves the recording, readable: which event, which of
    its fields differ, and both lines in full."""
    got_lines, want_lines = got.splitlines(), want.splitlines()
    common = min(len(got_lines), len(want_lines))
    n = next((i for i in range(common) if got_lines[i] != want_lines[i]), common) + 1
    if n > common:
        if len(got_lines) < len(want_lines):
            return (f"{case}: the replay ends after {len(got_lines)} events; the recording has "
                    f"{len(want_lines)}, the first one missing:\n  {want_lines[n - 1].decode()}")
        if len(got_lines) > len(want_lines):
            return (f"{case}: the replay has {len(got_lines)} events; the recording ends after "
                    f"{len(want_lines)}, the first one extra:\n  {got_lines[n - 1].decode()}")
        return f"{case}: the same lines, but the bytes differ (line endings?)"
    g, w = got_lines[n - 1], want_lines[n - 1]
    what, fields = "a line that is not JSON", ""
    try:
        ge, we = json.loads(g), json.loads(w)
    except ValueError:
        pass
    else:
        keys = sorted(k for k in ge.keys() | we.keys() if ge.get(k, ...) != we.get(k, ...))
        what = (f"event seq {we.get('seq')} ({we.get('type')}), fields {', '.join(keys)}"
                if keys else "the same fields, written differently (order or spacing)")
        fields = "".join(f"  {k}: recorded {_short(we.get(k, '(absent)'))}, replayed "
                         f"{_short(ge.get(k, '(absent)'))}\n" for k in keys)
    return (f"{case}: line {n} differs: {what}\n{fields}"
            f"  recorded line: {w.decode(errors='replace')}\n"
            f"  replayed line: {g.decode(errors='replace')}")


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 300 else text[:300] + "..."


@pytest.mark.parametrize("case", CASES)
def test_recorded_journal_replays_to_the_same_events(case: str) -> None:
    want = (GOLDEN / case / "expected.jsonl").read_bytes()
    got = replayed(case)
    if got != want:
        pytest.fail(first_difference(case, got, want), pytrace=False)


def test_the_replay_command_prints_the_recorded_events_byte_for_byte() -> None:
    case = "devices"  # noise bytes that are not ASCII in its journal
    folder = GOLDEN / case
    done = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "replay",
                           str(folder / "journal.jsonl"), "--config", str(folder / "table.toml")],
                          capture_output=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stderr == b""
    want = (folder / "expected.jsonl").read_bytes()
    if done.stdout != want:
        pytest.fail(first_difference(case, done.stdout, want), pytrace=False)


def test_the_golden_journals_cover_both_games_with_irregularities() -> None:
    """Deleting or thinning the golden files must not pass unnoticed."""
    assert len(CASES) >= 6, CASES
    shown: dict[str, set[str]] = {"holdem": set(), "draw5": set()}
    for case in CASES:
        assert (GOLDEN / case / "table.toml").is_file(), case
        lines = (GOLDEN / case / "expected.jsonl").read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in lines]
        variants = {e["variant"] for e in events if e["type"] == "hand_started"}
        assert len(variants) == 1, f"{case}: {variants}"
        seen = shown[variants.pop()]
        seen.update(e["type"] for e in events)
        seen.update(f"{e['severity']} alert" for e in events if e["type"] == "alert")
        seen.update(f"ended {e['reason']}" for e in events if e["type"] == "hand_ended")
        seen.update(f"device {e['state']}" for e in events if e["type"] == "device_status")
    for variant, seen in shown.items():
        for needed in ("warning alert", "critical alert", "ended showdown", "ended uncontested",
                       "pot_awarded", "hole_cards"):
            assert needed in seen, f"no {variant} journal shows a {needed}"
    assert {"ended misdeal", "device offline", "device stale"} <= shown["holdem"]
    assert {"draw", "ended checked_out"} <= shown["draw5"]
