"""A room's accidents at random, read by the core: after each, the table is in step again.

A long session is dealt on the virtual table (``tests.room.Session``) and read by a core the
way the service reads it (``tests.room.Reader``), while accidents of random kind, moment and
length happen to it: the service killed or stopped cleanly while the dealer goes on, its
process frozen (the ports hold what they can, the rest is lost), its storage wiped (a fresh
core with the session's first stacks), a cable pulled, a device reset, frames lost on a line.
Each accident is judged as the floor and the broadcast would judge it:

- it is worth at most one warning, of the names that say what happened (``ALLOWED``), and
  never a critical alert;
- at most one hand is not followed (``hand_ended`` with reason ``untracked``);
- every hand the dealer starts after it (until the next accident) is followed: the dealer's
  button, every hole card, the board and how the hand ended are the table's, and it raises no
  warning or critical alert.

``python -m tests.room_soak`` runs a long soak (1000 accidents; both games, with and without
stack zones) and prints each verdict (``--quiet``: only what failed), ``make soak`` runs it
before the live soak; the unit tests run a short one. Test code only.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simulators.records import HandRecord
from tablesvc.core import events as ev
from tests.helpers import DEVICES
from tests.room import Reader, Session

KINDS = ("kill", "stop", "freeze", "wipe", "cable", "reset", "lost")
ALLOWED = frozenset({"device_offline", "hand_untracked", "stacks_unverified"})
"""What one accident may tell the floor: a device gone, a hand not followed, stacks to count."""
LOST_BURST = 12
"""The most frames of one device a burst of line noise loses ("frames lost")."""
SEATS = {1: 20_000, 3: 20_000, 4: 20_000, 6: 20_000, 8: 20_000}


@dataclass
class Accident:
    kind: str
    start: int  # index of the first frame of the session it covers
    end: int  # index of the first frame after it
    device: str = ""

    def __str__(self) -> str:
        dev = f" {self.device}" if self.device else ""
        return f"{self.kind}{dev} over frames {self.start}..{self.end}"


@dataclass
class Verdict:
    accident: Accident
    problems: list[str] = field(default_factory=list)
    alerts: list[tuple[str, str]] = field(default_factory=list)
    untracked: int = 0
    followed: int = 0  # hands after it that were checked

    @property
    def ok(self) -> bool:
        return not self.problems


def plan(session: Session, rng: random.Random, count: int,
         max_frames: int) -> list[Accident]:
    """``count`` accidents at random moments of the session, each followed by at least two
    whole hands before the next (the hands a verdict judges), each over 0..``max_frames``
    frames of the dealer's."""
    accidents: list[Accident] = []
    starts = session.starts
    hand = 1 + rng.randint(0, 1)
    while len(accidents) < count:
        if hand + 3 >= len(starts):
            break
        start = rng.randint(starts[hand - 1], starts[hand] - 1)
        end = min(start + rng.randint(0, max_frames), starts[-1] - 1)
        kind = rng.choice(KINDS)
        device = rng.choice(list(DEVICES)) if kind in ("cable", "reset", "lost") else ""
        accidents.append(Accident(kind, start, end, device))
        # the hands after it: the one it ends in, then two whole ones at least
        after = next(n for n in range(1, len(starts)) if starts[n] > end)
        hand = after + 2 + rng.randint(0, 2)
    return accidents


def happen(r: Reader, a: Accident, frames: list[tuple[str, bytes]]) -> None:
    """The accident, while the dealer deals ``frames``."""
    if a.kind == "kill":
        r.down(frames)
    elif a.kind == "stop":
        r.stop(frames)
    elif a.kind == "freeze":
        r.freeze(frames)
    elif a.kind == "wipe":
        r.wipe(frames)
    elif a.kind == "cable":
        r.unplug(a.device)
        r.frames(frames)
        r.replug(a.device)
        r.reboot(a.device)  # a device plugged in again says HELLO
    elif a.kind == "reset":
        r.restarting(a.device, frames)
    else:  # a burst of frames lost on the device's line, within the hand it begins in (one
        # burst, one hand: frames lost in two hands make two hands not followed); the rest
        # of the window goes through
        newhand = next((i for i, (dev, raw) in enumerate(frames) if b"NEWHAND" in raw),
                       len(frames))
        burst = [f for f in frames[:newhand] if f[0] == a.device][:LOST_BURST]
        cut = frames.index(burst[-1]) + 1 if burst else 0
        r.lose(a.device, frames[:cut])
        r.frames(frames[cut:])


def judge(session: Session, a: Accident, stop: int, events: list[ev.Event]) -> Verdict:
    """The events from the accident's start to the next one's (frame ``stop``)."""
    v = Verdict(a)
    starts = session.starts
    # the table's hands begun after the accident and over before the next one
    judged = [rec for n, rec in enumerate(session.records)
              if starts[n] >= a.end and starts[n + 1] <= stop]
    # the service's hands, by their boards and buttons, against the table's
    started: dict[int, ev.HandStarted] = {}
    holes: dict[int, dict[int, list[str]]] = {}  # the cards each seat held last
    first: dict[int, dict[int, list[str]]] = {}  # ... and was dealt first
    ended: dict[int, ev.HandEnded] = {}
    boards: dict[int, list[str]] = {}
    after_alerts: list[tuple[int | None, str, str]] = []
    accident_alerts: list[tuple[str, str]] = []
    placed: set[int] = set()  # service hands that began after the accident
    for e in events:
        if isinstance(e, ev.HandStarted) and e.hand is not None:
            started[e.hand] = e
        elif isinstance(e, ev.HoleCards) and e.hand is not None:
            holes.setdefault(e.hand, {})[e.seat] = list(e.cards)
            first.setdefault(e.hand, {}).setdefault(e.seat, list(e.cards))
        elif isinstance(e, ev.HandEnded) and e.hand is not None:
            ended[e.hand] = e
        elif isinstance(e, ev.Board) and e.hand is not None:
            boards[e.hand] = list(e.board)
    # which service hand is which table hand: the hand that started at the table's NEWHAND
    followed = [h for h, e in ended.items() if e.reason != "untracked" and h in started]
    by_deal: dict[tuple[str, ...], int] = {}
    for h in followed:
        key = tuple(sorted(c for cards in first.get(h, {}).values() for c in cards))
        by_deal[key] = h
    untracked = [h for h, e in ended.items() if e.reason == "untracked"]
    v.untracked = len(untracked)
    if v.untracked > 1:
        v.problems.append(f"{v.untracked} hands untracked: {untracked}")
    for rec in judged:
        dealt = tuple(sorted(c for cards in _dealt(rec).values() for c in cards))
        found = by_deal.get(dealt)
        if found is None:
            v.problems.append(f"table hand {rec.number} (button {rec.button}) was not followed")
            continue
        h = found
        placed.add(h)
        v.followed += 1
        s = started[h]
        if s.button != rec.button:
            v.problems.append(f"hand {h}: button {s.button}, the table's {rec.button}")
        want = {seat: sorted(c) for seat, c in _held(rec).items()}
        got = {seat: sorted(c) for seat, c in holes.get(h, {}).items()}
        if want != got:
            v.problems.append(f"hand {h}: hole cards differ from table hand {rec.number}")
        if rec.variant == "holdem" and boards.get(h, []) != list(rec.board):
            v.problems.append(f"hand {h}: board {boards.get(h)} != {list(rec.board)}")
    for e in events:
        if isinstance(e, ev.Alert) and e.severity != "info":
            if e.hand in placed and e.name not in ALLOWED:
                after_alerts.append((e.hand, e.name, e.severity))
            else:
                accident_alerts.append((e.name, e.severity))
    v.alerts = accident_alerts
    if after_alerts:
        v.problems.append(f"alerts in the hands after it: {after_alerts}")
    if [a for a in accident_alerts if a[1] == "critical"]:
        v.problems.append(f"critical alerts: {accident_alerts}")
    if len(accident_alerts) > 1 or any(n not in ALLOWED for n, _ in accident_alerts):
        v.problems.append(f"the accident's alerts: {accident_alerts}")
    return v


def _dealt(rec: HandRecord) -> dict[int, tuple[str, ...]]:
    """The hole cards the table dealt (five-card draw: the hand as first dealt)."""
    return dict(rec.dealt) if rec.variant == "draw5" else dict(rec.hole_cards)


def _held(rec: HandRecord) -> dict[int, tuple[str, ...]]:
    """The hole cards each seat held last (five-card draw: after the draw)."""
    if rec.variant != "draw5":
        return dict(rec.hole_cards)
    return {seat: rec.final_cards.get(seat, cards) for seat, cards in rec.dealt.items()}


def soak(variant: str, seed: int, accidents: int, hands: int = 60, max_frames: int = 160,
         report: Callable[[Verdict], None] | None = None,
         stack_zones: bool = False) -> list[Verdict]:
    """One session of ``hands`` hands with ``accidents`` accidents; the verdicts. With
    ``stack_zones`` the table shows every stack (``[table] stack_zones``)."""
    rng = random.Random(seed)
    options: dict[str, Any] = {"aggression": 0.25, "all_in_share": 0.05,
                               "stack_zones": stack_zones}
    if variant == "draw5":  # a draw game needs three players at least (SEAT-10)
        options.update(variant="draw5", ante=25, min_players=3)
    session = Session(SEATS, hands=hands, seed=seed, **options)
    # as the service runs: alerts are confirmed
    r = Reader(session, alert_confirm=True, stack_zones=stack_zones, refresh_ms=2000)
    planned = plan(session, rng, accidents, max_frames)
    verdicts: list[Verdict] = []
    at = 0
    for n, a in enumerate(planned):
        r.frames(session.frames[at:a.start])
        start = len(r.events)
        happen(r, a, session.frames[a.start:a.end])
        stop = planned[n + 1].start if n + 1 < len(planned) else len(session.frames)
        r.frames(session.frames[a.end:stop])
        at = stop
        v = judge(session, a, stop, r.events[start:])
        verdicts.append(v)
        if report is not None:
            report(v)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--accidents", type=int, default=1000, help="accidents in all")
    p.add_argument("--seed", type=int, default=1, help="the first session's seed")
    p.add_argument("--quiet", action="store_true", help="print only what failed")
    args = p.parse_args(argv)
    failed = done = 0
    seed = args.seed
    while done < args.accidents:
        for variant, zones in (("holdem", False), ("draw5", False), ("holdem", True),
                               ("draw5", True)):
            if done >= args.accidents:
                break

            def show(v: Verdict, variant: str = variant, seed: int = seed,
                     zones: bool = zones) -> None:
                if args.quiet and v.ok:
                    return
                print(f"{variant}{' stack zones' if zones else ''} seed {seed}: {v.accident}: "
                      f"{'ok' if v.ok else 'FAILED'} alerts={v.alerts} "
                      f"untracked={v.untracked} followed={v.followed}"
                      + "".join(f"\n    {p}" for p in v.problems), flush=True)
            verdicts = soak(variant, seed, min(10, args.accidents - done), report=show,
                            stack_zones=zones)
            done += len(verdicts)
            failed += sum(not v.ok for v in verdicts)
        seed += 1
    print(f"{done} accidents, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
