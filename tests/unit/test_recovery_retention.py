"""Recovery picks a checkpoint it can trust; retention keeps what replay needs.

Each test works on a copy of a long random session stored as the service stores it (journal
segments, the checkpoints it took, its outbox) and asserts which path recovery took and that the
state it reached is the state a replay from the start reaches; never how long it took.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from tablesvc.config.table import Config, load_config
from tablesvc.core.inputs import Input, parse_ts
from tablesvc.core.table import Output, TableCore
from tablesvc.pipeline import checkpoint
from tablesvc.pipeline.checkpoint import Snapshot
from tablesvc.pipeline.journal import (
    JOURNAL_DIR,
    Journal,
    Position,
    journal_end,
    last_ts,
    list_segments,
    read_from,
)
from tablesvc.pipeline.outbox import Outbox
from tablesvc.pipeline.recovery import Recovered, RecoveryError, recover
from tablesvc.pipeline.replay import ReplayError, replay_events, replay_stored
from tablesvc.pipeline.retention import Retention
from tablesvc.pipeline.service import Service
from tests.unit.stored_sessions import SESSIONS, session_inputs, store_session, table_config


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Config]:
    return store_session(tmp_path_factory.mktemp("stored"), "holdem")


class Store:
    """A private copy of the stored session."""

    def __init__(self, original: tuple[Path, Config], tmp: Path) -> None:
        cfg_path, self.cfg = original
        self.dir = tmp / "store"
        shutil.copytree(cfg_path.parent / "store", self.dir)
        self.cfg_path = cfg_path
        from tablesvc.pipeline.service import basis_of, core_of

        self.basis = basis_of(self.cfg, cfg_path)
        self._core_of = core_of
        self.journal = self.dir / "journal"
        self.checkpoints = self.dir / "checkpoints"

    def fresh(self) -> TableCore:
        return self._core_of(self.cfg, self.basis)

    def full(self) -> list[bytes]:
        return [e.model_dump_json().encode() for e in replay_events(self.fresh(), self.journal)]

    def replayed(self) -> tuple[TableCore, int]:
        """The state a replay of the whole journal reaches (what recovery must reach), and the
        number of events it gave."""
        core = self.fresh()
        return core, sum(1 for _ in replay_events(core, self.journal))

    def recover(self, outbox_high: int | None = None) -> tuple[Recovered, list[int]]:
        high = Outbox(self.dir / "outbox.sqlite").high_seq() if outbox_high is None \
            else outbox_high
        seqs: list[int] = []

        def seen(inp: Input, out: Output) -> None:
            seqs.extend(e.seq for e in out.events)

        got = recover(self.basis, self.fresh, self.dir, self.journal, self.checkpoints,
                      journal_end(self.journal), high, seen)
        return got, seqs

    def kept(self) -> list[tuple[Position, Path]]:
        return checkpoint.listing(self.checkpoints)


@pytest.fixture
def store(session: tuple[Path, Config], tmp_path: Path) -> Iterator[Store]:
    yield Store(session, tmp_path)


def state(core: TableCore) -> dict[str, Any]:
    return {"seq": core.seq, "public": core.snapshot(), "open_alerts": core.open_alerts}


def rewrite(path: Path, **header: Any) -> None:
    """A checkpoint as another version (or table) would have written it: whole and checksummed."""
    head, body = checkpoint.read_header(path)
    checkpoint.write(path.parent, Snapshot(replace(head, **header), body))


def warnings(logs: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in logs if e["log_level"] == "warning"]


# ---------------------------------------------------------------------------------------------
# recovery


def test_recovery_loads_the_newest_checkpoint_and_replays_only_the_journal_after_it(
        store: Store) -> None:
    newest, _ = store.kept()[-1]
    full_core, total = store.replayed()
    with capture_logs() as logs:
        got, _ = store.recover()
    assert got.path == "checkpoint"
    assert got.checkpoint is not None and got.checkpoint.position == newest
    after = sum(1 for _ in read_from(store.journal, newest))
    assert got.inputs == after and after < total
    assert state(got.core) == state(full_core)
    assert warnings(logs) == []
    assert any(e["event"] == "recovering" and e["path"] == "checkpoint" for e in logs)


def test_a_damaged_newest_checkpoint_is_logged_once_and_the_one_before_it_used(
        store: Store) -> None:
    (_, newest), (older, _) = store.kept()[-1], store.kept()[-2]
    newest.write_bytes(newest.read_bytes()[:-7])  # torn at the end
    full_core, _ = store.replayed()
    with capture_logs() as logs:
        got, _ = store.recover()
    assert got.path == "checkpoint" and got.checkpoint is not None
    assert got.checkpoint.position == older
    assert warnings(logs) == ["checkpoint not used: checksum mismatch (torn or damaged)"]
    assert [e["newest"] for e in logs if e["log_level"] == "warning"] == [newest.name]
    assert state(got.core) == state(full_core)


def test_a_power_cut_that_tore_every_unsynced_checkpoint_costs_a_longer_replay_never_an_event(
        tmp_path: Path) -> None:
    """A hand's checkpoint is written without a sync (one every few minutes is synced), so a
    power cut may tear every one written since the last synced one. Retention kept that one
    however many hands followed; recovery takes it and reaches the state a replay from the
    start reaches."""
    cfg_path = table_config(tmp_path, SESSIONS["holdem"][0], tmp_path / "store")
    inputs = session_inputs(cfg_path, "holdem", seed=11, scratch=tmp_path / "scratch")
    cfg = load_config(cfg_path)
    svc = Service(cfg, cfg_path)
    svc.journal = Journal(svc.storage / JOURNAL_DIR)
    half = len(inputs) // 2
    svc.checkpoints.durable_every_s = 0.0  # the first half: each one synced
    for lo in range(0, half, 37):
        svc.process(inputs[lo:min(lo + 37, half)])
    synced = svc.checkpoints.durable
    svc.checkpoints.durable_every_s = 3600.0  # the rest within the interval: none synced
    for lo in range(half, len(inputs), 37):
        svc.process(inputs[lo:lo + 37])
    svc.journal.close()
    svc.outbox.close()
    assert synced is not None and svc.checkpoints.durable == synced

    store = Store((cfg_path, cfg), tmp_path / "after-the-cut")
    at = checkpoint.read_header(synced)[0].position
    kept = store.kept()
    unsynced = [path for position, path in kept if position > at]
    assert len(unsynced) >= checkpoint.KEEP_RECENT
    assert (at, store.checkpoints / synced.name) in kept
    for path in unsynced:  # what a power cut can leave of a file the kernel had not written
        path.write_bytes(bytes(path.stat().st_size))
    full_core, _ = store.replayed()
    with capture_logs() as logs:
        got, _ = store.recover()
    assert got.path == "checkpoint" and got.checkpoint is not None
    assert got.checkpoint.position == at
    assert state(got.core) == state(full_core)
    assert warnings(logs) == ["checkpoint not used: not a checkpoint file (torn or damaged)"]


def test_checkpoints_of_other_code_are_refused_in_one_line_and_the_journal_replayed_whole(
        store: Store) -> None:
    for _, path in store.kept():
        rewrite(path, version="0.0.9", code="0" * 32)
    full_core, _ = store.replayed()
    with capture_logs() as logs:
        got, _ = store.recover()
    assert got.path == "journal" and got.checkpoint is None
    assert warnings(logs) == ["checkpoint not used: written by tablesvc 0.0.9; this is "
                              f"tablesvc {checkpoint.__version__}"]
    assert [e["files"] for e in logs if e["log_level"] == "warning"] == [len(store.kept())]
    assert state(got.core) == state(full_core)


def test_a_checkpoint_ahead_of_what_the_outbox_recorded_is_passed_over_for_an_older_one(
        store: Store) -> None:
    """The outbox's last commits may not reach the disk before a power cut; recovery must then
    start early enough to hand it every event it lacks."""
    headers = [checkpoint.read_header(p)[0] for _, p in store.kept()]
    high = headers[-2].seq - 1  # the outbox lost the events of the two newest checkpoints
    got, seqs = store.recover(outbox_high=high)
    assert got.checkpoint is not None and got.checkpoint.seq <= high
    assert got.checkpoint.position == max(h.position for h in headers if h.seq <= high)
    assert set(range(high + 1, got.core.seq + 1)) <= set(seqs)


def test_a_pruned_journal_with_no_usable_checkpoint_refuses_to_recover(store: Store) -> None:
    for _, path in list_segments(store.journal)[:2]:
        path.unlink()
    for _, path in store.kept():
        rewrite(path, code="0" * 32)
    with pytest.raises(RecoveryError, match="older segments were pruned"):
        store.recover()


# ---------------------------------------------------------------------------------------------
# retention and replay of what is retained


def test_retention_by_size_prunes_to_a_segment_start_and_replay_of_the_rest_stays_exact(
        store: Store) -> None:
    full = store.full()
    segments = list_segments(store.journal)
    assert len(segments) >= 6
    size = segments[0][1].stat().st_size
    retention = Retention(store.journal, store.checkpoints, store.basis, 0, 3 * size)
    retention.apply(force=True)
    left = list_segments(store.journal)
    assert [n for n, _ in left] == [n for n, _ in segments[-3:]]
    first = left[0][0]
    base = checkpoint.at_segment_start(store.checkpoints, first)
    assert base is not None
    base_seq = checkpoint.read_header(base)[0].seq
    # the storage dir and its journal folder replay from the base: the very same events
    for path in (store.dir, store.journal):
        got = [e.model_dump_json().encode()
               for e in replay_stored(path, store.basis, store.fresh)]
        assert got == [line for line in full if json.loads(line)["seq"] > base_seq]
    # and so does each retained segment alone, from the checkpoint at its start
    ends = [checkpoint.read_header(p)[0].seq
            for n, _ in left[1:] if (p := checkpoint.at_segment_start(store.checkpoints, n))]
    got = [e.model_dump_json().encode()
           for e in replay_stored(left[0][1], store.basis, store.fresh)]
    assert got == [line for line in full if base_seq < json.loads(line)["seq"] <= ends[0]]
    # checkpoints: the segment starts of what is kept and the newest few, nothing older
    kept = store.kept()
    assert all(p >= Position(first, 0) for p, _ in kept)
    assert len([p for p, _ in kept if p.offset]) <= checkpoint.KEEP_RECENT
    # recovery still finds its way, from the newest checkpoint
    got_recovered, _ = store.recover()
    assert got_recovered.path == "checkpoint"


def test_retention_by_age_prunes_the_segments_whose_last_input_is_older(store: Store) -> None:
    segments = list_segments(store.journal)
    cutoff = parse_ts(last_ts(segments[2][1]) or "") + 1  # segments 1..3 end before it
    days = 0.001
    retention = Retention(store.journal, store.checkpoints, store.basis, days, 0,
                          now_ms=lambda: cutoff + int(days * 86_400_000))
    retention.apply(force=True)
    assert [n for n, _ in list_segments(store.journal)] == [n for n, _ in segments[3:]]


def test_pruning_never_goes_past_a_segment_whose_start_has_no_usable_checkpoint(
        store: Store) -> None:
    full = store.full()
    segments = list_segments(store.journal)
    third, fourth = segments[2][0], segments[3][0]
    rewrite(checkpoint.at_segment_start(store.checkpoints, fourth) or Path(), code="0" * 32)
    size = segments[0][1].stat().st_size
    cap = (len(segments) - 3) * size  # the policy alone would keep the fourth segment on
    Retention(store.journal, store.checkpoints, store.basis, 0, cap).apply(force=True)
    assert [n for n, _ in list_segments(store.journal)] == [n for n, _ in segments[2:]]
    base = checkpoint.at_segment_start(store.checkpoints, third)
    assert base is not None
    base_seq = checkpoint.read_header(base)[0].seq
    got = [e.model_dump_json().encode() for e in replay_stored(store.dir, store.basis,
                                                                store.fresh)]
    assert got == [line for line in full if json.loads(line)["seq"] > base_seq]


def test_a_segment_replayed_alone_without_its_start_checkpoint_is_refused_clearly(
        store: Store) -> None:
    third = list_segments(store.journal)[2]
    (checkpoint.at_segment_start(store.checkpoints, third[0]) or Path()).unlink()
    with pytest.raises(ReplayError, match="continues the one before it"):
        list(replay_stored(third[1], store.basis, store.fresh))


def test_the_replay_command_prints_a_pruned_journal_from_its_base_and_refuses_clearly(
        store: Store) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    full = store.full()
    segments = list_segments(store.journal)
    size = segments[0][1].stat().st_size
    Retention(store.journal, store.checkpoints, store.basis, 0, 3 * size).apply(force=True)
    base = checkpoint.at_segment_start(store.checkpoints, list_segments(store.journal)[0][0])
    base_seq = checkpoint.read_header(base or Path())[0].seq
    cli = [sys.executable, "-m", "tablesvc.commands.cli", "replay"]
    done = subprocess.run([*cli, str(store.dir), "--config", str(store.cfg_path)],
                          capture_output=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.splitlines() == [line for line in full
                                        if json.loads(line)["seq"] > base_seq]
    second = list_segments(store.journal)[1]
    (checkpoint.at_segment_start(store.checkpoints, second[0]) or Path()).unlink()
    done = subprocess.run([*cli, str(second[1]), "--config", str(store.cfg_path)],
                          capture_output=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 1 and done.stdout == b""
    err = done.stderr.decode()
    assert "replay failed" in err and "has no checkpoint of its start" in err
    assert "Traceback" not in err


def test_a_long_recovery_says_how_far_it_has_come(store: Store,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tablesvc.pipeline import recovery

    for _, path in store.kept():
        path.unlink()  # the whole journal to replay
    monkeypatch.setattr(recovery, "PROGRESS_S", 0.0)  # a line every 1,000 inputs
    with capture_logs() as logs:
        got, _ = store.recover()
    progress = [e for e in logs if e["event"] == "recovering: replaying the journal"]
    assert [e["inputs"] for e in progress] == list(range(1000, got.inputs + 1, 1000))
    shares = [e["percent"] for e in progress]
    assert shares == sorted(shares) and shares[0] > 0 and shares[-1] <= 100
