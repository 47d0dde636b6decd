"""How long something took, counted in fixed buckets: the journal's disk syncs, and the
service's own steps between a frame and its event.

Every event waits for exactly one journal sync, so a disk whose syncs slow down now and then
makes events late, and nothing else in the service says why. The steps that are the service's
own (its work on a batch, the hand-over to the publisher thread) are counted the same way, so
that a late event can be put down to the disk or to the box. The pipeline thread records each
sync's duration here (a bisect and an increment: nothing on the event path allocates), and the
Prometheus endpoint and the latency bench read the counts. A venue technician sees the disk's
tail (``tablesvc_journal_sync_seconds``); the bench compares the syncs the service actually
made during a run with a bare ``fdatasync`` on the same disk.

Buckets, not a list of samples: a box runs for months, and the counts never grow.

>>> d = Durations((0.001, 0.005))
>>> for s in (0.0004, 0.002, 0.003, 0.2):
...     d.record(s)
>>> d.count, d.cumulative()
(4, [(0.001, 1), (0.005, 3), (inf, 4)])
>>> d.over(0.005)
1
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

SYNC_BUCKETS = (0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0,
                2.5)
"""Upper bounds (seconds) for disk syncs: a quiet SSD syncs in well under a millisecond, a
shared or failing disk takes tens to hundreds."""
STEP_BUCKETS = (0.0001, *SYNC_BUCKETS)
"""Upper bounds (seconds) for the service's own steps on an event's way (its work on a batch,
the hand-over to the publisher): a tenth of a millisecond when the box is idle."""


class Durations:
    """A histogram with fixed upper bounds (seconds), as Prometheus counts one: a duration
    equal to a bound falls into that bound's bucket."""

    def __init__(self, bounds: Sequence[float]) -> None:
        if list(bounds) != sorted(set(bounds)) or not bounds:
            raise ValueError("bucket bounds must be given in increasing order, each once")
        self.bounds = tuple(bounds)
        self._counts = [0] * (len(self.bounds) + 1)  # the last one: above every bound
        self.count = 0
        self.total = 0.0

    def record(self, seconds: float) -> None:
        self._counts[bisect_left(self.bounds, seconds)] += 1
        self.count += 1
        self.total += seconds

    def cumulative(self) -> list[tuple[float, int]]:
        """(upper bound, how many took at most that long), ending with (inf, count)."""
        out: list[tuple[float, int]] = []
        running = 0
        for bound, n in zip((*self.bounds, float("inf")), list(self._counts), strict=True):
            running += n
            out.append((bound, running))
        return out

    def over(self, bound: float) -> int:
        """How many took longer than ``bound``, which must be one of the bucket bounds."""
        i = self.bounds.index(bound)
        return sum(list(self._counts)[i + 1:])
