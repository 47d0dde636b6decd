"""Checkpoints of the table's state: exact, private, refused when they cannot be trusted.

Exactness is the whole point: loading a checkpoint and replaying the journal after it must give
byte for byte the events a replay from the very start gives. It is checked on every golden
journal at every hand boundary (and every fiftieth input), and on long random sessions of both
games run through the service's own pipeline, with segments small enough that many of them
begin in the middle of a hand.
"""

from __future__ import annotations

import json
import os
import pickle
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from drivers.tsp import Frame, encode
from simulators.decks import make_deck, write_deck
from tablesvc.config.table import Config, load_config
from tablesvc.core.inputs import FrameIn, Input, Tick, format_ts
from tablesvc.core.table import TableCore
from tablesvc.pipeline import checkpoint
from tablesvc.pipeline.checkpoint import Basis, CheckpointError, Header, Snapshot
from tablesvc.pipeline.journal import Position, read_from, read_journal
from tablesvc.pipeline.replay import apply_input, replay_events
from tablesvc.pipeline.service import basis_of, core_of
from tests.unit.stored_sessions import SESSIONS, store_session

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
CASES = sorted(p.parent.name for p in GOLDEN.glob("*/journal.jsonl"))


def lines_of(events: object) -> list[bytes]:
    return [e.model_dump_json().encode() for e in events]  # type: ignore[attr-defined]


def replay_after(core: TableCore, inputs: list[Input]) -> list[bytes]:
    out: list[bytes] = []
    for inp in inputs:
        got = apply_input(core, inp)
        if got is not None:
            out.extend(lines_of(got.events))
    return out


# ---------------------------------------------------------------------------------------------
# exactness on the golden journals


@pytest.mark.parametrize("case", CASES)
def test_replay_from_a_checkpoint_at_any_hand_boundary_gives_the_golden_events_byte_for_byte(
        case: str, tmp_path: Path) -> None:
    config = GOLDEN / case / "table.toml"
    cfg = load_config(config)
    basis = basis_of(cfg, config)
    want = (GOLDEN / case / "expected.jsonl").read_bytes().splitlines()
    inputs = list(read_journal(GOLDEN / case / "journal.jsonl"))
    core = core_of(cfg, basis)
    cuts: list[tuple[int, int, Path]] = []  # (inputs applied, events so far, checkpoint file)
    done = 0
    for i, inp in enumerate(inputs, 1):
        out = apply_input(core, inp)
        done += len(out.events) if out is not None else 0
        if (out is not None and checkpoint.ends_a_hand(out.events)) or i % 50 == 0:
            snap = checkpoint.take(core, basis, Position(1, i), "hand", inp.ts)
            cuts.append((i, done, checkpoint.write(tmp_path, snap)))
    assert done == len(want)
    hands = sum(1 for line in want if b'"type":"hand_ended"' in line)
    assert len(cuts) >= hands  # a checkpoint at every hand's end at least
    for applied, seen, path in cuts:
        header, restored = checkpoint.load(path, basis)
        assert header.seq == (json.loads(want[seen - 1])["seq"] if seen else 0)
        got = replay_after(restored, inputs[applied:])
        assert got == want[seen:], f"{case}: replay from input {applied} differs"


# ---------------------------------------------------------------------------------------------
# exactness through the service's pipeline: long random sessions, many segments


@pytest.fixture(scope="module", params=sorted(SESSIONS))
def long_session(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Config]:
    folder = tmp_path_factory.mktemp(f"session-{request.param}")
    return store_session(folder, request.param)


def test_long_random_sessions_replay_exactly_from_every_checkpoint_the_service_kept(
        long_session: tuple[Path, Config]) -> None:
    cfg_path, cfg = long_session
    basis = basis_of(cfg, cfg_path)
    store = cfg_path.parent / "store"
    full = lines_of(replay_events(core_of(cfg, basis), store / "journal"))
    hands = sum(1 for line in full if b'"type":"hand_ended"' in line)
    assert hands >= 20
    kept = checkpoint.listing(store / "checkpoints")
    starts = [p for p, _ in kept if p.offset == 0]
    assert len(starts) >= 5, "the session spans several segments, each with its start"
    assert len(kept) - len(starts) >= 2, "and the newest hand boundaries"
    for position, path in kept:
        header, core = checkpoint.load(path, basis)
        assert header.position == position
        got = replay_after(core, [inp for inp, _ in read_from(store / "journal", position)])
        tail = [line for line in full if json.loads(line)["seq"] > header.seq]
        assert got == tail, f"replay from {path.name} differs"


# ---------------------------------------------------------------------------------------------
# refusals


@pytest.fixture
def basis_and_core() -> tuple[Basis, TableCore, Config]:
    config = GOLDEN / "holdem_session" / "table.toml"
    cfg = load_config(config)
    basis = basis_of(cfg, config)
    core = core_of(cfg, basis)
    for inp in list(read_journal(GOLDEN / "holdem_session" / "journal.jsonl"))[:120]:
        apply_input(core, inp)
    return basis, core, cfg


def written(folder: Path, basis: Basis, core: TableCore, at: int = 100) -> Path:
    return checkpoint.write(folder, checkpoint.take(core, basis, Position(1, at), "hand", "x"))


def test_a_torn_or_damaged_checkpoint_is_refused(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    path = written(tmp_path, basis, core)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # torn
    with pytest.raises(CheckpointError, match="checksum"):
        checkpoint.load(path, basis)
    flipped = bytearray(data)
    flipped[-10] ^= 0x40
    path.write_bytes(bytes(flipped))
    with pytest.raises(CheckpointError, match="checksum"):
        checkpoint.load(path, basis)
    path.write_bytes(b"")
    with pytest.raises(CheckpointError, match="not a checkpoint"):
        checkpoint.load(path, basis)


def test_a_checkpoint_of_other_code_is_refused_naming_the_version(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    snap = checkpoint.take(core, basis, Position(1, 100), "hand", "x")
    old = Snapshot(replace(snap.header, version="0.0.9", code="0" * 32), snap.body)
    path = checkpoint.write(tmp_path, old)
    with pytest.raises(CheckpointError, match=r"written by tablesvc 0\.0\.9"):
        checkpoint.load(path, basis)
    same_number = Snapshot(replace(snap.header, code="1" * 32), snap.body)
    path = checkpoint.write(tmp_path, same_number)
    with pytest.raises(CheckpointError, match="the same release number, other code"):
        checkpoint.load(path, basis)


def test_a_checkpoint_of_another_table_definition_is_refused_naming_what_differs(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    path = written(tmp_path, basis, core)
    other = replace(basis, table={**basis.table, "big_blind": 200, "seats": 9})
    with pytest.raises(CheckpointError, match=r"differs in: big_blind, seats"):
        checkpoint.load(path, other)


def test_checkpoint_files_are_readable_by_the_service_only(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    folder = tmp_path / "checkpoints"
    path = written(folder, basis, core)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary left


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {_Boom.target}",))

    target = ""


def test_a_planted_checkpoint_cannot_run_code(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    _Boom.target = str(tmp_path / "pwned")
    snap = checkpoint.take(core, basis, Position(1, 100), "hand", "x")
    for body in (pickle.dumps(_Boom()), pickle.dumps(getattr)):
        path = checkpoint.write(tmp_path / "c", Snapshot(snap.header, body))
        with pytest.raises(CheckpointError, match="not part of the table's state"):
            checkpoint.load(path, basis)
    assert not (tmp_path / "pwned").exists()


def test_a_deck_enrolled_after_the_checkpoint_is_known_once_it_is_loaded(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    """Registries are not state: a checkpoint refers to them, and the ones loaded at start
    take their place, so a deck enrolled before a restart is known after it."""
    basis, core, _ = basis_and_core
    rest = list(read_journal(GOLDEN / "holdem_session" / "journal.jsonl"))[120:]
    for inp in rest:
        apply_input(core, inp)
    assert not core.snapshot()["in_hand"]
    shoe = [i for i in rest if isinstance(i, FrameIn) and i.src == "shoe"][-1]
    seq = int(shoe.frame.split(",")[1]) + 1  # the shoe's next frame, 50 ms after the last input
    ms = rest[-1].ms + 50
    path = written(tmp_path, basis, core, at=999)
    decks = tmp_path / "decks"
    for src in (GOLDEN / "registry" / "decks").iterdir():
        (decks / src.name).parent.mkdir(exist_ok=True)
        (decks / src.name).write_bytes(src.read_bytes())
    import random

    blue = make_deck("BLUE-0002", random.Random(5))
    write_deck(decks, "BLUE-0002", blue)
    from tablesvc.config.registry import load_decks

    enrolled = replace(basis, decks=load_decks(decks))
    uid = next(iter(blue))

    last = {i.src: int(i.frame.split(",")[1]) for i in rest if isinstance(i, FrameIn)}

    def alert_for_a_blue_card(b: Basis) -> str:
        _, restored = checkpoint.load(path, b)
        raw = encode(Frame("shoe", seq, "DRAW", (uid, "D"))).decode().rstrip("\r\n")
        events = restored.apply(FrameIn(format_ts(ms), ms, "shoe", raw)).events
        later = ms + 500  # (a frame may wait a moment for what another device saw first)
        events += restored.apply(Tick(format_ts(later), later)).events
        for n, (device, at) in enumerate(sorted(last.items()), 1):  # their next heartbeats:
            after = (seq if device == "shoe" else at) + 1  # nothing was lost, the alert stands
            hb = encode(Frame(device, after, "HB", ("1",))).decode().rstrip("\r\n")
            events += restored.apply(FrameIn(format_ts(later + n), later + n, device, hb)).events
        return " / ".join(str(e.message) for e in events  # type: ignore[attr-defined]
                          if e.type == "alert")  # type: ignore[attr-defined]

    before, after = alert_for_a_blue_card(basis), alert_for_a_blue_card(enrolled)
    assert "no enrolled deck" in before
    assert "BLUE-0002" in after and "no enrolled deck" not in after


def test_a_header_names_its_position_seq_and_kind(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    path = checkpoint.write(tmp_path, checkpoint.take(core, basis, Position(3, 4096), "segment",
                                                      "2026-11-29T21:00:00.000Z"))
    assert path.name == "000003-000000004096.ckpt"
    header, _ = checkpoint.read_header(path)
    assert header == Header(checkpoint.FORMAT, header.version, checkpoint.code_fingerprint(),
                            basis.table, Position(3, 4096), core.seq,
                            "2026-11-29T21:00:00.000Z", "segment")


def test_a_checkpoint_half_written_when_the_power_went_is_cleared_and_never_read(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    folder = tmp_path / "checkpoints"
    path = written(folder, basis, core)
    half = folder / f".{path.name}.4242.tmp"
    half.write_bytes(path.read_bytes()[:100])
    assert checkpoint.listing(folder) == [(Position(1, 100), path)]
    writer = checkpoint.Writer(folder, lambda: 10**9)
    writer.start()
    writer.close()
    assert not half.exists() and path.exists()


def test_only_the_first_hand_checkpoint_of_a_run_and_then_one_per_interval_is_synced(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    """A hand's checkpoint synced at every hand's end would share the file system's commits
    with the journal's sync of the frames arriving then; a segment start (retention's base),
    a recovery's end and a stop are always synced, a hand's only once per interval."""
    basis, core, _ = basis_and_core
    writer = checkpoint.Writer(tmp_path, lambda: 10**9)  # not started: writes when posted

    def post(offset: int, kind: str) -> None:
        writer.post(checkpoint.take(core, basis, Position(1, offset), kind, "x"))

    post(100, "hand")  # the first of the run: synced
    first = writer.durable
    post(200, "hand")
    post(300, "interval")
    assert (writer.written, writer.written_durable, writer.durable) == (3, 1, first)
    assert first is not None and first.name == checkpoint.file_name(Position(1, 100))
    for offset, kind in ((0, "segment"), (400, "recovery"), (500, "shutdown")):
        post(offset, kind)
        assert writer.durable == tmp_path / checkpoint.file_name(Position(1, offset))
    assert writer.written_durable == 4
    writer.durable_every_s = 0.0  # the interval has passed: the next hand's is synced
    post(600, "hand")
    assert writer.durable == tmp_path / checkpoint.file_name(Position(1, 600))
    # unsynced or not, every file is whole, private and loads
    for _, path in checkpoint.listing(tmp_path):
        assert checkpoint.load(path, basis)[0].position.offset in (0, 100, 200, 300, 400, 500,
                                                                   600)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_checkpoint_the_disk_refuses_is_counted_and_logged_and_nothing_else_fails(
        tmp_path: Path, basis_and_core: tuple[Basis, TableCore, Config]) -> None:
    basis, core, _ = basis_and_core
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    writer = checkpoint.Writer(blocker / "checkpoints", lambda: 10**9)
    with capture_logs() as logs:
        writer.post(checkpoint.take(core, basis, Position(1, 100), "hand", "x"))
    assert (writer.written, writer.written_durable, writer.failed, writer.durable) == (
        0, 0, 1, None)
    assert [e["event"] for e in logs if e["log_level"] == "error"] == ["checkpoint not written"]
