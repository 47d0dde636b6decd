"""Clean play at a real table raises no alert: the dealer's habits are not irregularities.

Random sessions of both games, dealt by the virtual table with a room's mix of dealer habits
(``simulators.dealer.ROOM_HABITS``): uncalled bets handed back as he gathers, uncontested pots
pushed straight from the bet zones, all-ins and side pots, reshuffles in draw. Every session is
read by a fresh core, and not one warning or critical alert may come out of it; every hand must
end as the table ended it, with the table's stacks.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import pytest

from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tests.helpers import track

SESSIONS = 10
HANDS = 40


@dataclass
class Session:
    records: list[HandRecord]
    events: list[ev.Event]


def play(seed: int, variant: str) -> Session:
    rng = random.Random(seed)
    size = 8 if variant == "draw5" else rng.randint(2, 10)  # eight draw players: reshuffles
    seats = {s: rng.choice([800, 2000, 5000, 10000, 20000])
             for s in rng.sample(range(1, 11), size)}
    ante = 25 if variant == "draw5" else rng.choice([0, 0, 25])
    table, frames = recorded_table(
        seats, seed=seed, variant=variant, ante=ante, aggression=rng.uniform(0.1, 0.5),
        all_in_share=rng.uniform(0.1, 0.5), fold_probability=rng.uniform(0.05, 0.4),
        limit=rng.choice(["no-limit", "no-limit", "pot-limit"]))
    least = 3 if variant == "draw5" else 2  # a draw game needs three players (SEAT-10)
    records = []
    while len(records) < HANDS and len(table.seated()) >= least:
        records.append(table.play_hand())
    events = track(frames, stacks=seats, button=min(seats), deck=table.deck,
                   chips=table.chip_values, variant=variant, ante=ante,
                   limit=records[0].limit)
    return Session(records, events)


@pytest.fixture(scope="module", params=["holdem", "draw5"])
def sessions(request: pytest.FixtureRequest) -> list[Session]:
    return [play(seed, request.param) for seed in range(SESSIONS)]


def test_clean_sessions_with_a_rooms_habits_raise_no_warning_or_critical_alert(
        sessions: list[Session]) -> None:
    raised = Counter((e.name, e.severity, e.message) for s in sessions for e in s.events
                     if isinstance(e, ev.Alert) and e.severity != "info")
    assert not raised, raised.most_common(10)


def test_every_hand_ends_as_the_table_ended_it_with_its_stacks(sessions: list[Session]) -> None:
    """Ended when the chips went to the winner, not only when the next hand began."""
    for s in sessions:
        ended = [e for e in s.events if isinstance(e, ev.HandEnded)]
        started = [e for e in s.events if isinstance(e, ev.HandStarted)]
        assert len(ended) == len(s.records)
        for e, nxt in zip(ended, started[1:], strict=False):
            assert e.ts < nxt.ts, f"hand {e.hand} ended only when the next one began"
        for e, rec in zip(ended, s.records, strict=True):
            assert e.reason == rec.outcome, (e.hand, rec.outcome)
            assert {i.seat: i.stack for i in e.stacks} == {
                seat: rec.stacks_after.get(seat, 0) for seat in rec.seats}, e.hand


def test_the_sessions_hold_what_makes_a_room_hard(sessions: list[Session]) -> None:
    """The sessions above prove something only if they hold the hard cases."""
    records = [r for s in sessions for r in s.records]
    seen = Counter()
    for r in records:
        seen["handed back"] += bool(r.returned)
        seen["pushed from the zones"] += r.outcome == "uncontested" and not r.gathered
        seen["all-in"] += any(a.all_in for a in r.actions)
        seen["side pots"] += len(r.pots) > 1
        seen["showdown"] += r.outcome == "showdown"
        seen["reshuffle"] += bool(r.reshuffles)
        seen["checked out"] += r.outcome == "checked_out"
    draw = records[0].variant == "draw5"
    for kind in ("handed back", "pushed from the zones", "all-in", "side pots", "showdown",
                 *(("reshuffle", "checked out") if draw else ())):
        assert seen[kind] >= 5, seen
