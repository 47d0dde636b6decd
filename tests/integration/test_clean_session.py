"""Zero false alerts: 1,000 consecutive clean hands at one table, tracked by the core.

Floor staff must never be paged for a clean hand. One virtual table deals hand after hand
(the button moving, stacks carried over, players busting out and leaving, every card
collected before the next shuffle), and the core tracking its frames must raise no warning
or critical alert, and must end every hand with the table's stacks.
"""

from __future__ import annotations

import random

from simulators.table import HandRecord
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tests.helpers import track

HANDS = 1000


def test_a_thousand_clean_hands_in_a_row_raise_no_warning_or_critical_alert() -> None:
    rng = random.Random(11)
    records: list[HandRecord] = []
    events: list[ev.Event] = []
    done = 0
    session = 0
    while done < HANDS:
        session += 1  # a fresh table when too few players are left
        seats = {s: rng.choice([2000, 5000, 10_000]) for s in rng.sample(range(1, 11), 6)}
        table, frames = recorded_table(
            seats, seed=1000 + session, small_blind=50, big_blind=100,
            aggression=0.3, all_in_share=0.2, fold_probability=0.2, button=min(seats))
        records_here: list[HandRecord] = []
        table.run(hands=HANDS - done, on_hand=records_here.append)
        events_here = track(frames, stacks=seats, button=min(seats), deck=table.deck,
                            chips=table.chip_values, small_blind=50, big_blind=100)
        ended = [e for e in events_here if isinstance(e, ev.HandEnded)]
        assert len(ended) == len(records_here), f"session {session}: a hand was not tracked"
        for record, end in zip(records_here, ended, strict=True):
            assert {s.seat: s.stack for s in end.stacks if s.seat in record.stacks_after} == {
                s: v for s, v in record.stacks_after.items() if s in record.seats}, \
                f"session {session}, hand {record.number}"
        records += records_here
        events += events_here
        done += len(records_here)
    noisy = [(e.hand, e.name, e.message) for e in events
             if isinstance(e, ev.Alert) and e.severity != "info"]
    assert not noisy, f"{len(noisy)} false alerts, first: {noisy[:3]}"
    assert len(records) == HANDS
    assert sum(1 for r in records if r.showdown) > 100  # not just folds
