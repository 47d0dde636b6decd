"""Recovery: the table's state at the end of the journal, from the newest usable checkpoint.

Replaying a whole day's journal took tens of seconds; a checkpoint (``checkpoint``) is at
most a hand and ``EVERY_INPUTS`` inputs behind the end, so recovery is the time to load one
and replay the rest. Which checkpoint: the newest one that

- this code and this table definition can use (``checkpoint.check``), and is whole;
- stands at or before the end of the journal this process found (``stop``); and
- does not claim events the outbox lacks: the outbox records events off the event path and
  its last commits may not have reached the disk before a power cut, so a checkpoint whose seq
  is above the outbox's ``high_seq`` is passed over for an older one, from which the replay
  hands the outbox what it lacks (``on_output``).

Every checkpoint passed over is logged, one line per reason. With none usable the journal is
replayed from its first segment, as before checkpoints existed; when that segment was pruned
the oldest usable checkpoint is taken even if the outbox lacks some of its events (those can
no longer be derived by anyone), and with none at all recovery refuses (``RecoveryError``)
rather than start a table whose seq numbers would be reused.

A progress line is logged about once a second while the replay runs.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import structlog

from tablesvc.core.inputs import Input
from tablesvc.core.table import Output, TableCore
from tablesvc.pipeline.checkpoint import (
    Basis,
    CheckpointError,
    Header,
    candidates,
    describe,
    load,
)
from tablesvc.pipeline.journal import (
    FIRST_SEGMENT,
    LEGACY_NAME,
    Position,
    list_segments,
    read_from,
    read_journal,
)
from tablesvc.pipeline.replay import apply_input

log = structlog.get_logger("tablesvc.pipeline.recovery")

PROGRESS_S = 1.0
"""A progress line at most this often while the journal is replayed (checked every 1,000
inputs)."""


class RecoveryError(RuntimeError):
    """No state to start from: the journal's start was pruned and no checkpoint is usable."""


@dataclass
class Recovered:
    core: TableCore
    path: str
    """"checkpoint" (loaded one and replayed after it), "journal" (replayed from the first
    segment) or "empty" (nothing recorded yet)."""
    checkpoint: Header | None
    inputs: int
    """Inputs replayed."""
    seconds: float
    last_ts: str | None


def choose(folder: Path, journal_dir: Path, basis: Basis, stop: Position,
           outbox_high: int) -> tuple[Header, TableCore] | None:
    """The newest usable checkpoint, loaded (see the module's docstring), or None."""
    refused: dict[str, list[str]] = {}
    segments = list_segments(journal_dir)
    first = segments[0][0] if segments else FIRST_SEGMENT
    ahead_of_outbox: Path | None = None
    for position, path in candidates(folder):
        if position > stop:
            refused.setdefault("it stands after the end of the journal", []).append(path.name)
            continue
        if position.segment < first:
            refused.setdefault("its segment was pruned", []).append(path.name)
            continue
        try:
            header, core = load(path, basis)
        except CheckpointError as err:
            refused.setdefault(str(err), []).append(path.name)
            continue
        if header.seq > outbox_high:
            refused.setdefault(f"the outbox has recorded events up to seq {outbox_high} only; "
                               "an older state gives it the rest", []).append(path.name)
            ahead_of_outbox = path
            continue
        _log_refused(refused)
        return header, core
    _log_refused(refused)
    if ahead_of_outbox is not None and first > FIRST_SEGMENT:
        header, core = load(ahead_of_outbox, basis)
        log.warning("the outbox lost events that the pruned journal cannot give back; they "
                    "will not be sent", from_seq=outbox_high + 1, to_seq=header.seq)
        return header, core
    return None


def _log_refused(refused: dict[str, list[str]]) -> None:
    for reason, names in refused.items():
        log.warning("checkpoint not used: " + reason, files=len(names), newest=names[0])


def recover(basis: Basis, fresh: Callable[[], TableCore], storage: Path, journal_dir: Path,
            checkpoint_dir: Path, stop: Position, outbox_high: int,
            on_output: Callable[[Input, Output], None]) -> Recovered:
    """The state at ``stop``: a checkpoint plus the journal after it (or the whole journal).
    ``on_output`` sees every replayed input's output (the outbox takes the events it lacks).

    An older install's ``journal.jsonl`` in ``storage`` (not yet moved into the segments
    folder) is replayed first, from the empty table: it is older than any checkpoint."""
    started = time.monotonic()
    legacy = storage / LEGACY_NAME
    if legacy.is_file():
        return _recover_legacy(legacy, fresh(), journal_dir, stop, on_output, started)
    chosen = choose(checkpoint_dir, journal_dir, basis, stop, outbox_high)
    segments = list_segments(journal_dir)
    if chosen is not None:
        header: Header | None = chosen[0]
        core, start, path = chosen[1], chosen[0].position, "checkpoint"
    else:
        first = segments[0][0] if segments else FIRST_SEGMENT
        if first > FIRST_SEGMENT:
            raise RecoveryError(
                f"{journal_dir}: the journal starts at segment {first:06d} (older segments "
                f"were pruned) and no checkpoint in {checkpoint_dir} can be used (see the "
                "lines above): run the version that wrote them, or restore the table "
                "definition they were written with")
        header, core, start, path = None, fresh(), Position(first, 0), "journal"
    total = _distance(segments, start, stop)
    if total == 0:
        path = "empty" if header is None else path
    log.info("recovering", path=path, **({"checkpoint": describe(header.position),
                                           "seq": header.seq} if header else {}),
             journal_bytes=total)
    count, last_ts = 0, None
    next_progress = time.monotonic() + PROGRESS_S
    for inp, pos in read_from(journal_dir, start, stop):
        out = apply_input(core, inp)
        count += 1
        if out is not None:
            on_output(inp, out)
        if count % 1000 == 0 and time.monotonic() >= next_progress:
            next_progress = time.monotonic() + PROGRESS_S
            done = _distance(segments, start, pos)
            log.info("recovering: replaying the journal", inputs=count,
                     percent=round(100 * done / total, 1) if total else 100.0)
        last_ts = inp.ts
    return Recovered(core, path, header, count, time.monotonic() - started, last_ts)


def _recover_legacy(legacy: Path, core: TableCore, journal_dir: Path, stop: Position,
                    on_output: Callable[[Input, Output], None], started: float) -> Recovered:
    log.info("recovering", path="journal", legacy=str(legacy))
    count, last_ts = 0, None
    segments = list_segments(journal_dir)
    first = Position(segments[0][0], 0) if segments else stop
    next_progress = time.monotonic() + PROGRESS_S
    for inp in itertools.chain(read_journal(legacy),
                               (i for i, _ in read_from(journal_dir, first, stop))):
        out = apply_input(core, inp)
        count += 1
        if out is not None:
            on_output(inp, out)
        if count % 1000 == 0 and time.monotonic() >= next_progress:
            next_progress = time.monotonic() + PROGRESS_S
            log.info("recovering: replaying the journal", inputs=count, file=legacy.name)
        last_ts = inp.ts
    return Recovered(core, "journal", None, count, time.monotonic() - started, last_ts)


def _distance(segments: list[tuple[int, Path]], a: Position, b: Position) -> int:
    """Journal bytes from ``a`` to ``b`` (segments' preallocated sizes between them)."""
    if b <= a:
        return 0
    if a.segment == b.segment:
        return b.offset - a.offset
    sizes = {n: p.stat().st_size for n, p in segments}
    between = sum(sizes.get(n, 0) for n in range(a.segment + 1, b.segment))
    return max(0, sizes.get(a.segment, 0) - a.offset) + between + b.offset
