"""Replay (DESIGN §7): the events a journal produces, exactly as the live service published them.

Used to review disputes, to recover after a crash, and to run scenarios in tests. Because the
live pipeline and replay both go through ``apply_input``, an input that once failed fails the
same way here and the seq numbers stay aligned.

Once retention has pruned the oldest segments, the retained journal no longer starts with the
empty table: it starts with the checkpoint kept at the start of its first segment (retention
never deletes that one, see ``tablesvc.pipeline.retention``), and ``replay_stored`` starts
there. A single segment is replayed from the checkpoint at its start in the same way. Either
gives the events the live service published for those inputs, seq and ts included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import structlog

from tablesvc.core import events as ev
from tablesvc.core.inputs import Input
from tablesvc.core.table import Output, TableCore
from tablesvc.pipeline.checkpoint import (
    CHECKPOINT_DIR,
    Basis,
    CheckpointError,
    at_segment_start,
    load,
)
from tablesvc.pipeline.journal import (
    FIRST_SEGMENT,
    JOURNAL_DIR,
    LEGACY_NAME,
    SEGMENT_SUFFIX,
    JournalError,
    Position,
    list_segments,
    read_from,
    read_journal,
)

log = structlog.get_logger("tablesvc.pipeline.replay")


class ReplayError(JournalError):
    """The path cannot be replayed exactly (a pruned start without its checkpoint, say)."""


def apply_input(core: TableCore, inp: Input) -> Output | None:
    """Apply one input; a failure is logged and skipped, never fatal."""
    try:
        return core.apply(inp)
    except Exception:
        log.exception("input could not be processed", input=type(inp).__name__, ts=inp.ts)
        return None


def replay_events(core: TableCore, journal: Path) -> Iterator[ev.Event]:
    """The events of a journal: its segments folder (or a storage dir), one segment, or the
    single ``journal.jsonl`` of an older install (see ``read_journal``), from ``core``."""
    for inp in read_journal(journal):
        out = apply_input(core, inp)
        if out is not None:
            yield from out.events


def replay_stored(path: Path, basis: Basis,
                  fresh: Callable[[], TableCore]) -> Iterator[ev.Event]:
    """What ``tablesvc replay PATH`` prints: the events of a storage dir, a segments folder
    or one segment file, each started from the right state (the empty table for a journal
    that begins with its first segment, else the checkpoint at the start of its first
    retained segment). ``ReplayError`` says why when there is none."""
    folder, start = _start_of(path)
    if folder is None:  # a single file that starts a journal, or an older install's storage
        yield from replay_events(fresh(), path)
        return
    if start.segment <= FIRST_SEGMENT:
        core = fresh()
    else:
        core = _checkpoint_core(folder, start.segment, basis)
    stop = Position(start.segment + 1, 0) if path.is_file() else None
    for inp, _ in read_from(folder, start, stop):
        out = apply_input(core, inp)
        if out is not None:
            yield from out.events


def _start_of(path: Path) -> tuple[Path | None, Position]:
    """(segments folder, first segment to read), or (None, _) to read ``path`` as it is."""
    if path.is_file():
        stem = path.name.removesuffix(SEGMENT_SUFFIX)
        if not (path.name.endswith(SEGMENT_SUFFIX) and stem.isdigit()):
            return None, Position(0, 0)
        number = int(stem)
        return (None, Position(0, 0)) if number <= FIRST_SEGMENT else \
            (path.parent, Position(number, 0))
    if (path / LEGACY_NAME).is_file():
        return None, Position(0, 0)
    folder = path if list_segments(path) else path / JOURNAL_DIR
    segments = list_segments(folder)
    if not segments:
        if not path.exists():
            raise ReplayError(f"{path}: no such file or folder")
        return None, Position(0, 0)
    return folder, Position(segments[0][0], 0)


def _checkpoint_core(folder: Path, segment: int, basis: Basis) -> TableCore:
    checkpoints = folder.parent / CHECKPOINT_DIR
    found = at_segment_start(checkpoints, segment)
    what = f"segment {segment:06d} continues the one before it"
    if found is None:
        raise ReplayError(f"{folder}: {what}, and {checkpoints} has no checkpoint of its start "
                          "to replay it from")
    try:
        _, core = load(found, basis)
    except CheckpointError as err:
        raise ReplayError(f"{found}: {what}, and the checkpoint of its start cannot be used: "
                          f"{err}") from None
    return core
