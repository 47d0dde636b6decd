"""Retention: which journal segments and checkpoints are deleted, and which never are.

The rule that keeps replay exact: segments are deleted only below a segment whose start has a
checkpoint that this code can load (its *base*). So the retained journal always begins with a
state to replay it from: recovery, ``tablesvc replay`` of the storage dir or of the first
retained segment all start at that checkpoint, and replaying from there gives the events a
replay from the very first segment gave (DESIGN §7).

Segments expire by age (``[storage] retention_days``: the last input of the segment is older)
and by size (``[storage] retention_mb``: the oldest go while the journal is larger). Whole
segments only, oldest first, never the one being written; where no base exists at or below the
first segment to keep (the segment starts of an older version, say), nothing more is deleted
than what a base allows, and a later segment start (one per segment) allows it soon.

Checkpoints kept: every segment start of a retained segment, the ``KEEP_RECENT`` newest, and
the newest one the writer synced (the others are not synced: after a power cut it may be the
newest whole one); the others (one per hand) are deleted once newer ones exist.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import structlog

from tablesvc.core.inputs import parse_ts
from tablesvc.pipeline.checkpoint import (
    KEEP_RECENT,
    Basis,
    CheckpointError,
    at_segment_start,
    check,
    listing,
    read_header,
)
from tablesvc.pipeline.journal import last_ts, list_segments, prune_below

log = structlog.get_logger("tablesvc.pipeline.retention")

EVERY_S = 60.0
"""Journal retention is looked at no more often than this (checkpoint pruning at every write)."""


class Retention:
    def __init__(self, journal_dir: Path, checkpoint_dir: Path, basis: Basis, days: float,
                 cap_bytes: int, now_ms: Callable[[], int] | None = None) -> None:
        self.journal_dir = journal_dir
        self.checkpoint_dir = checkpoint_dir
        self.basis = basis
        self.days = days
        self.cap_bytes = cap_bytes
        self._now_ms = now_ms or (lambda: time.time_ns() // 1_000_000)
        self._last_look = -EVERY_S
        self.pruned: list[int] = []

    def apply(self, force: bool = False, durable: Path | None = None) -> None:
        """Prune the journal (at most once per ``EVERY_S`` unless ``force``), then the
        checkpoints, keeping ``durable`` (the newest synced checkpoint)."""
        base = None
        if (self.days or self.cap_bytes) and (
                force or time.monotonic() - self._last_look >= EVERY_S):
            self._last_look = time.monotonic()
            base = self.prune_journal()
        self.prune_checkpoints(durable)
        if base is not None:
            log.info("journal segments pruned", below=f"{base:06d}", retention_days=self.days,
                     retention_mb=self.cap_bytes >> 20)

    # ------------------------------------------------------------------ segments
    def expired_below(self) -> int:
        """The number of the first segment to keep by the policy alone (age or size: a
        segment either one expires is expired)."""
        segments = list_segments(self.journal_dir)
        if not segments:
            return 0
        keep = segments[0][0]
        done = segments[:-1]  # the one being written is never pruned
        if self.days:
            cutoff = self._now_ms() - int(self.days * 86_400_000)
            for n, p in done:
                if not _older(p, cutoff):
                    break
                keep = n + 1
        if self.cap_bytes:
            total = sum(p.stat().st_size for _, p in segments)
            for n, p in done:
                if total <= self.cap_bytes:
                    break
                total -= p.stat().st_size
                keep = max(keep, n + 1)
        return keep

    def base_at_or_below(self, number: int) -> int | None:
        """The highest segment number <= ``number`` whose start has a loadable checkpoint."""
        segments = [n for n, _ in list_segments(self.journal_dir) if n <= number]
        for n in reversed(segments):
            path = at_segment_start(self.checkpoint_dir, n)
            if path is None:
                continue
            try:
                header, _ = read_header(path)
                check(header, self.basis)
            except CheckpointError:
                continue
            return n
        return None

    def prune_journal(self) -> int | None:
        """Delete expired segments below the base; returns the base when something went."""
        keep = self.expired_below()
        segments = list_segments(self.journal_dir)
        if not segments or keep <= segments[0][0]:
            return None
        base = self.base_at_or_below(keep)
        if base is None or base <= segments[0][0]:
            return None
        self.pruned.extend(prune_below(self.journal_dir, base))
        return base

    # ------------------------------------------------------------------ checkpoints
    def prune_checkpoints(self, durable: Path | None = None) -> None:
        """Keep the newest few, ``durable`` and the segment starts of retained segments;
        delete the rest."""
        files = listing(self.checkpoint_dir)
        segments = list_segments(self.journal_dir)
        first = segments[0][0] if segments else 0
        kept = {p for _, p in files[-KEEP_RECENT:]} | {durable}
        for position, path in files:
            if path in kept or (position.offset == 0 and position.segment >= first):
                continue
            path.unlink(missing_ok=True)


def _older(path: Path, cutoff_ms: int) -> bool:
    ts = last_ts(path)
    if ts is None:
        return True  # no input at all: nothing to keep
    try:
        return parse_ts(ts) < cutoff_ms
    except ValueError:
        return False
