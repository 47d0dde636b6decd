"""Replay (DESIGN §7): the events a journal produces, exactly as the live service published them.

Used to review disputes, to recover after a crash, and to run scenarios in tests. Because the
live pipeline and replay both go through ``apply_input``, an input that once failed fails the
same way here and the seq numbers stay aligned.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import structlog

from tablesvc.core import events as ev
from tablesvc.core.inputs import Input
from tablesvc.core.table import Output, TableCore
from tablesvc.pipeline.journal import read_journal

log = structlog.get_logger("tablesvc.pipeline.replay")


def apply_input(core: TableCore, inp: Input) -> Output | None:
    """Apply one input; a failure is logged and skipped, never fatal."""
    try:
        return core.apply(inp)
    except Exception:
        log.exception("input could not be processed", input=type(inp).__name__, ts=inp.ts)
        return None


def replay_events(core: TableCore, journal: Path) -> Iterator[ev.Event]:
    """The events of a journal: its segments folder (or a storage dir), one segment, or the
    single ``journal.jsonl`` of an older install (see ``read_journal``)."""
    for inp in read_journal(journal):
        out = apply_input(core, inp)
        if out is not None:
            yield from out.events
