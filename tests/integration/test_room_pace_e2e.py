"""Several tables at ten times a demo dealer's pace, across real ports: clean play, no alert.

Each table is its own virtual devices on ptys, its own ``tablesvc run`` process, one shared
mosquitto. Every device is its own port, read by its own thread, so frames of different
devices reach the service out of their physical order now and then (more so on a busy machine);
the service takes them in the order things happened at the table. The dealers keep a room's
habits (uncalled bets handed back as they gather, uncontested pots pushed from the bet zones),
and players bet, raise and go all-in: not one warning or critical alert may come out, and every
hand must end as the table ended it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from simulators.table import HandRecord
from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.live_room import (
    Dealing,
    LiveTable,
    assert_feed_whole,
    assert_floor_feed,
    assert_hands_right,
    prefix_of,
    write_config,
)

pytestmark = pytest.mark.integration

TEN_TIMES = 0.025
"""Seconds between the dealer's actions: the demo's 0.25 s, ten times faster."""
HANDS = 8
SEATS = {s: 10_000 for s in (1, 2, 4, 5, 7, 9)}
SEEDS = (112, 123, 143)
"""Three tables (what two shared cores run beside everything else) whose hands hold all-ins,
uncalled bets handed back and uncontested pots (the test checks it)."""


@pytest.fixture
def tables(tmp_path: Path, broker: Mosquitto,
           subscriber_factory: Callable[[str], Subscriber],
           service_factory: Callable[[Path], ServiceProcess]) -> Iterator[list[LiveTable]]:
    made: list[LiveTable] = []
    try:
        for i, seed in enumerate(SEEDS, start=1):
            folder = tmp_path / f"t{i:02d}"
            folder.mkdir()
            rig = VirtualTableRig(folder / "sim", seats=SEATS, seed=seed, pace=TEN_TIMES,
                                  chips=folder / "chips.json", aggression=0.2,
                                  all_in_share=0.1)
            table = f"t{i:02d}"
            cfg = write_config(folder, rig, broker.port, table, SEATS)
            made.append(LiveTable(folder, rig, cfg, subscriber_factory(f"{prefix_of(table)}/#"),
                                  service_factory, table=table))
        yield made
    finally:
        for t in made:
            t.rig.close()


def test_three_tables_at_ten_times_the_pace_raise_no_alert_and_end_every_hand_right(
        tables: list[LiveTable]) -> None:
    for t in tables:
        t.start()
    dealers = [Dealing(t.rig, hands=HANDS).start() for t in tables]
    try:
        played: list[list[HandRecord]] = [d.join() for d in dealers]
        for t, records in zip(tables, played, strict=True):
            t.wait_hands_ended(len(records))
        for t in tables:
            t.stop()
    finally:
        for d in dealers:
            d.stop()
    for t, records in zip(tables, played, strict=True):
        assert len(records) == HANDS
        assert_floor_feed(t, {})
        assert_hands_right(t, records, first=1, untracked=None)
        assert_feed_whole(t)
    hard = [r for records in played for r in records]
    assert sum(any(a.all_in for a in r.actions) for r in hard) >= 6
    assert sum(bool(r.returned) for r in hard) >= 3
    assert any(r.outcome == "uncontested" for r in hard)
