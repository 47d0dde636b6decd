"""The tournament clock: which level or break is in play and how long it has left.

The state holds wall-clock stamps, never a countdown, so a controller that is killed and
restarted loads the state, calls ``settle(now)`` and is exactly where it would have been: a
level ends at ``period_started_at + minutes * 60`` and the next one begins at that very stamp,
not when somebody next looked. Every function is pure (``now`` is a parameter) and returns a
new state; an operation the director may not do now raises ``ClockError`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tablesvc.tournament.structure import Break, Level, Period, Structure


@dataclass(frozen=True)
class ClockState:
    """What the store keeps of the clock.

    ``period_started_at`` is moved forward by pauses, so while running the time spent in the
    period is ``now - period_started_at`` and while paused ``paused_at - period_started_at``.
    """

    period: int = 0
    period_started_at: float | None = None
    paused_at: float | None = None
    started: bool = False
    finished: bool = False


@dataclass(frozen=True)
class ClockView:
    """The clock as the screens show it.

    ``level`` is the level in play; during a break it is the level before the break (the
    blinds the tables had and will not change until the next level). ``ends_at`` is the
    wall-clock stamp the period ends at while the clock runs, else None.
    """

    period: int
    level: Level | None
    on_break: Break | None
    remaining_s: float
    running: bool
    started: bool
    next_level: Level | None
    next_break_in_s: float | None
    next_break: Break | None
    finished: bool = False
    ends_at: float | None = None


class ClockError(Exception):
    """An operation the clock does not allow in its present state; the message says why."""


def duration_s(period: Period) -> float:
    """A period's length in seconds."""
    return period.minutes * 60.0


def start(s: ClockState, structure: Structure, now: float) -> ClockState:
    """Start the clock at ``now`` in the period chosen so far (level 1 unless the director
    advanced before the start)."""
    if s.started:
        raise ClockError("the clock has already been started")
    period = min(max(s.period, 0), len(structure.periods) - 1)
    return ClockState(period=period, period_started_at=now, paused_at=None, started=True)


def pause(s: ClockState, structure: Structure, now: float) -> ClockState:
    """Stop the clock at ``now``; the period keeps the time it had left."""
    _need_started(s, "paused")
    if s.paused_at is not None:
        raise ClockError("the clock is already paused")
    return replace(settle(s, structure, now), paused_at=now)


def resume(s: ClockState, structure: Structure, now: float) -> ClockState:
    """Run the clock again; the paused time is added to the period's start, not lost."""
    _need_started(s, "resumed")
    if s.paused_at is None:
        raise ClockError("the clock is not paused, so it cannot be resumed")
    assert s.period_started_at is not None
    return replace(s, period_started_at=s.period_started_at + (now - s.paused_at),
                   paused_at=None)


def advance(s: ClockState, structure: Structure, levels: int, now: float) -> ClockState:
    """Move by ``levels`` periods (breaks count as periods; negative goes back), clamped to
    the structure, and start that period anew with its full time. Before the start it only
    chooses the period the clock will start in. ``levels = 0`` restarts the current period."""
    last = len(structure.periods) - 1
    if not s.started:
        target = min(max(s.period + levels, 0), last)
        if target == s.period and levels != 0:
            raise ClockError(_edge(levels))
        return replace(s, period=target)
    s = settle(s, structure, now)
    target = min(max(s.period + levels, 0), last)
    if target == s.period and levels != 0:
        raise ClockError(_edge(levels))
    anchor = s.paused_at if s.paused_at is not None else now
    return replace(s, period=target, period_started_at=anchor, finished=False)


def shift(s: ClockState, structure: Structure, minutes: float, now: float) -> ClockState:
    """Give the current period ``minutes`` more time (negative: less). Taking away more than
    is left ends the period at the moment it now would have ended, and the next one has run
    since then, exactly as if its time had run out."""
    _need_started(s, "shifted")
    s = settle(s, structure, now)
    assert s.period_started_at is not None
    anchor = s.paused_at if s.paused_at is not None else now
    # a finished last level has run past its end: count from its end, so +5 means 5 minutes
    elapsed = min(anchor - s.period_started_at, duration_s(structure.periods[s.period]))
    elapsed -= minutes * 60.0
    return settle(replace(s, period_started_at=anchor - elapsed, finished=False), structure,
                  now)


def settle(s: ClockState, structure: Structure, now: float) -> ClockState:
    """Roll over every period whose time is up by ``now``: each next period begins exactly
    at the previous one's end. The last level never ends; the state is then ``finished``."""
    if not s.started or s.period_started_at is None:
        return s
    anchor = s.paused_at if s.paused_at is not None else now
    period, began, finished = s.period, s.period_started_at, s.finished
    last = len(structure.periods) - 1
    while anchor - began >= duration_s(structure.periods[period]):
        if period >= last:
            finished = True
            break
        began += duration_s(structure.periods[period])
        period += 1
    if (period, began, finished) == (s.period, s.period_started_at, s.finished):
        return s
    return replace(s, period=period, period_started_at=began, finished=finished)


def remaining_s(s: ClockState, structure: Structure, now: float) -> float:
    """Seconds left in the current period (its full length before the start, 0 at the end of
    the last level)."""
    s = settle(s, structure, now)
    length = duration_s(structure.periods[s.period])
    if not s.started or s.period_started_at is None:
        return length
    anchor = s.paused_at if s.paused_at is not None else now
    return max(0.0, length - (anchor - s.period_started_at))


def view(s: ClockState, structure: Structure, now: float) -> ClockView:
    """The settled clock at ``now`` for the screens: level, break, time left, what is next."""
    s = settle(s, structure, now)
    periods = structure.periods
    current = periods[s.period]
    left = remaining_s(s, structure, now)
    level = current if isinstance(current, Level) else _level_before(periods, s.period)
    next_level = next((p for p in periods[s.period + 1:] if isinstance(p, Level)), None)
    next_break: Break | None = None
    next_break_in: float | None = None
    ahead = left
    for p in periods[s.period + 1:]:
        if isinstance(p, Break):
            next_break, next_break_in = p, ahead
            break
        ahead += duration_s(p)
    running = s.started and s.paused_at is None
    return ClockView(
        period=s.period, level=level, on_break=current if isinstance(current, Break) else None,
        remaining_s=left, running=running, started=s.started, next_level=next_level,
        next_break_in_s=next_break_in, next_break=next_break, finished=s.finished,
        ends_at=now + left if running else None)


def _level_before(periods: tuple[Period, ...], index: int) -> Level | None:
    for p in reversed(periods[:index]):
        if isinstance(p, Level):
            return p
    return None


def _need_started(s: ClockState, what: str) -> None:
    if not s.started:
        raise ClockError(f"the clock has not been started, so it cannot be {what}")


def _edge(levels: int) -> str:
    if levels > 0:
        return "the clock is already in the last level; there is nothing to advance to"
    return "the clock is already in the first level; there is nothing to go back to"
