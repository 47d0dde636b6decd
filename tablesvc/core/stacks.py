"""The players' stacks as the table shows them: the stack zones ``P1``..``P10`` (DESIGN §3).

Where the chip reader has a zone in front of each seat for the player's stack
(``[table] stack_zones``), the table tells every stack, and the service need not trust its own
arithmetic, nor wait for the floor's count:

- **At every NEWHAND** (and again when a hand is placed from the table after a gap) each
  seat's stack is what lies in its stack zone and its bet zone (a blind put out early), plus,
  once a hand is placed, its ante. A stack the service did not know (after a gap, an untracked
  hand, a fresh start) is learned so: no ``stacks_unverified``, no ``cmd/stacks``. A stack it
  did know and that differs is chips that moved outside a hand: taken from the table
  (TABLE-06, ``chips_removed_from_table``), moved from one player to another (TABLE-08,
  ``chip_transfer_between_players``) or added (TABLE-08, ``chip_purchase_mid_game``; between
  games of five-card draw a player may buy chips from the banker: no alert). One change is one
  alert naming every seat it touched; the table's figures are taken from then on.
- **During a hand** a seat's chips (its stack zone, its bet zone, what it put in the pot) can
  only go down until the pots are pushed: more is chips brought in that may not play (BET-23,
  ``chips_added_mid_hand``), judged once the zones have been still for ``T_release``, so that
  a motion read zone by zone is never taken for one.

Pure: the zones' values in, alerts and stacks out; the table calls it (``tablesvc.core.table``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.monitors.base import Monitor
from tablesvc.core.settings import Player

SETTLE_MS = 1000  # T_release: chips still this long in a zone are where they were put


def stack_zone(zone: str) -> int | None:
    """The seat of a stack zone (``"P3"`` -> 3), None for any other zone.

    >>> stack_zone("P3"), stack_zone("POT"), stack_zone("B3")
    (3, None, None)
    """
    if zone.startswith("P") and zone[1:].isdigit():
        return int(zone[1:])
    return None


@dataclass(frozen=True, slots=True)
class Moved:
    """Chips that moved between two readings of the stacks, outside a hand: seat -> by how
    much its stack differs from what the service had (positive: more on the table)."""

    diffs: dict[int, int]

    @property
    def total(self) -> int:
        return sum(self.diffs.values())


@dataclass
class StackZones(Monitor):
    """The stack zones of one table: what each holds, since when it is known."""

    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "TABLE-06": ("chips_removed_from_table",),
        "TABLE-08": ("chip_transfer_between_players", "chip_purchase_mid_game"),
        "BET-23": ("chips_added_mid_hand",),
    }

    out: Emitter
    value: dict[int, int] = field(default_factory=dict)  # seat -> value of its stack zone
    fresh: set[int] = field(default_factory=set)  # zones reported since the last gap
    excess: dict[int, int] = field(default_factory=dict)  # seat -> since when it holds more
    told: set[int] = field(default_factory=set)  # seats told about (BET-23) in this hand

    # ------------------------------------------------------------------ the zones
    def reported(self, seat: int, value: int) -> None:
        self.value[seat] = value
        self.fresh.add(seat)

    def unknown(self) -> None:
        """A gap: the zones say what they hold again only with their next inventories."""
        self.fresh.clear()
        self.excess.clear()

    def shown(self, seats: list[int], bets: Mapping[int, int],
              antes: Mapping[int, int] | None = None) -> dict[int, int]:
        """Each seat's stack as the table shows it, for the seats whose zone is known: its
        stack zone, its bet zone, and the ante it paid into the pot (``antes``)."""
        antes = antes or {}
        return {s: self.value.get(s, 0) + bets.get(s, 0) + antes.get(s, 0)
                for s in seats if s in self.fresh}

    # ------------------------------------------------------------------ between hands
    def read(self, players: dict[int, Player], unverified: set[int], seats: list[int],
             shown: Mapping[int, int], removal: str, buys: bool,
             doubtful: set[int] | frozenset[int] = frozenset()) -> list[int]:
        """The stacks the table shows for ``seats``: learned where the service did not know
        them (``unverified``, or ``doubtful``: it may have missed what changed them), checked
        where it did; the table's figures are taken either way. ``removal``: the severity of
        chips taken from the table in this game; ``buys``: chips may be bought between
        games. Returns the seats learned."""
        unknown = unverified | doubtful
        learned = [s for s in seats if s in shown and s in unknown]
        diffs = {s: shown[s] - players[s].stack for s in seats
                 if s in shown and s not in unknown and shown[s] != players[s].stack}
        for s in learned:
            players[s].stack = shown[s]
            unverified.discard(s)
        if diffs:
            self._moved(Moved(diffs), removal, buys)
            for s in diffs:
                players[s].stack = shown[s]
        return learned

    def _moved(self, m: Moved, removal: str, buys: bool) -> None:
        """One alert for chips that moved outside a hand, naming every seat they touched."""
        def words(seats: list[int]) -> str:
            return ", ".join(f"seat {s} ({m.diffs[s]:+d})" for s in seats)

        seats = sorted(m.diffs)
        evidence = {"stacks": {str(s): d for s, d in m.diffs.items()}}
        if m.total < 0:
            self.out.alert("chips_removed_from_table", "TABLE-06", removal,
                           f"{-m.total} in chips left the table between hands: "
                           f"{words(seats)}", seat=seats[0], evidence=evidence,
                           remedy="the floor investigates; removing chips from the table "
                           "disqualifies (TABLE-06), unless the tournament director moved "
                           "the player")
        elif m.total == 0:
            self.out.alert("chip_transfer_between_players", "TABLE-08", "warning",
                           f"chips moved from one player to another between hands (or a pot "
                           f"was pushed to the wrong player): {words(seats)}",
                           seat=seats[0], evidence=evidence,
                           remedy="the transfer is reversed: the chips go back (TABLE-08)")
        elif not buys:
            self.out.alert("chip_purchase_mid_game", "TABLE-08", "warning",
                           f"{m.total} in chips came onto the table between hands: "
                           f"{words(seats)}", seat=seats[0], evidence=evidence,
                           remedy="remove the chips that did not come from a pot; the floor "
                           "decides (TABLE-05, TABLE-08)")
        else:
            self.out.note("info", "chips bought between games", seats=seats, total=m.total)

    # ------------------------------------------------------------------ during a hand
    def in_hand(self, seat: int, held: int, start: int, ms: int) -> None:
        """Seat's chips in the hand (stack zone, bet zone, paid in) are ``held``; it began
        with ``start``. More than that once still for ``SETTLE_MS`` is chips brought in."""
        if held > start and seat not in self.told:
            self.excess[seat] = ms  # judged once its zones have been still for SETTLE_MS
        else:
            self.excess.pop(seat, None)

    def deadline(self) -> int | None:
        return min(self.excess.values()) + SETTLE_MS if self.excess else None

    def expire(self, ms: int, held: Mapping[int, tuple[int, int]]) -> None:
        """What is still more than the seat began with after ``SETTLE_MS``: BET-23. ``held``:
        seat -> (its chips in the hand now, its stack at the start)."""
        for seat, since in list(self.excess.items()):
            if ms < since + SETTLE_MS:
                continue
            del self.excess[seat]
            now, start = held.get(seat, (0, 0))
            if now > start:
                self.told.add(seat)
                self.out.alert("chips_added_mid_hand", "BET-23", "warning",
                               f"{now - start} in chips came into seat {seat}'s stack during "
                               "the hand", seat=seat, remedy="the added chips cannot be used "
                               "in this hand (BET-23); they are set aside until it is over",
                               evidence={"added": now - start})

    def hand_over(self) -> None:
        self.excess.clear()
        self.told.clear()
