"""A NEWHAND whose button the service does not know: found from the table, then dealt in.

After a hand whose start went unseen, the service cannot tell where the dealer moved the
button. It does not guess: it holds what the sensors report after the NEWHAND until the table
shows the button, then starts the hand there and hands it everything it held, in order. The
evidence, whichever comes first:

- the blinds in the bet zones (hold'em): exactly two zones hold chips, the small blind and,
  next clockwise among the seated players, the big blind; the button is the seat before the
  small blind (heads-up, the small blind's own seat);
- the first card dealt into a seat zone: the deal starts left of the button (of the dealer, in
  draw), so the button is the seated player before that seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tablesvc.core.emitter import Emitter
from tablesvc.core.hand import Hand
from tablesvc.core.settings import TableSettings

Held = Callable[[Hand], None]


class SearchTable(Protocol):
    """What the search sees of its table, and whom it tells when the button shows."""

    s: TableSettings
    out: Emitter
    zones: dict[str, int]
    has_shoe: bool
    hand_no: int

    def button_found(self, search: ButtonSearch, button: int, how: str) -> None: ...


class ButtonSearch:
    """The hand between a NEWHAND with an unknown button and the evidence of the button."""

    def __init__(self, table: SearchTable, seated: list[int]) -> None:
        self.table = table
        self.seated = seated
        self.number = table.hand_no + 1  # the hand it will be
        self.order: tuple[int, ...] = tuple(seated)
        self.held: list[Held] = []
        self.drawn: set[str] = set()  # tags out of the shoe since the NEWHAND
        self.over = False
        self.doubt: str | None = None  # (only a followed hand can be in doubt)
        self.doubt_told = False

    @property
    def live(self) -> bool:
        return not self.over

    @property
    def tracked(self) -> bool:
        return True  # the hand will be followed; the cards must be identified

    # ------------------------------------------------------------------ evidence
    def _before(self, seat: int) -> int:
        """The seated player before ``seat`` clockwise."""
        earlier = [s for s in self.seated if s < seat]
        return earlier[-1] if earlier else self.seated[-1]

    def _after(self, seat: int) -> int:
        later = [s for s in self.seated if s > seat]
        return later[0] if later else self.seated[0]

    def _blinds(self) -> int | None:
        s = self.table.s
        if s.variant != "holdem":
            return None
        zones = self.table.zones
        betting = [seat for seat in self.seated if zones.get(f"B{seat}", 0) > 0]
        if len(betting) != 2:
            return None
        for sb in betting:
            bb = self._after(sb)
            if bb in betting and zones[f"B{sb}"] == s.small_blind \
                    and zones[f"B{bb}"] == s.big_blind:
                return sb if len(self.seated) == 2 else self._before(sb)
        return None

    def _found(self, button: int, how: str) -> None:
        self.over = True
        self.table.button_found(self, button, how)

    # ------------------------------------------------------------------ the contract
    def card_of(self, uid: str) -> str | None:
        del uid
        return None

    def card_out(self, uid: str, card: str, face_up: bool, ms: int) -> None:
        self.drawn.add(uid)
        self.held.append(lambda h: h.card_out(uid, card, face_up, ms))

    def arrive(self, zone: str, uid: str, card: str, ms: int) -> None:
        self.held.append(lambda h: h.arrive(zone, uid, card, ms))
        seat = int(zone[1:]) if zone.startswith("S") and zone[1:].isdigit() else None
        if seat in self.seated and (uid in self.drawn or not self.table.has_shoe):
            self._found(self._before(seat), f"the first card went to seat {seat}")

    def depart(self, zone: str, uid: str, ms: int) -> None:
        self.held.append(lambda h: h.depart(zone, uid, ms))

    def returned(self, uid: str, bottom: bool) -> None:
        self.held.append(lambda h: h.returned(uid, bottom))

    def pack_scanned(self, uids: list[str]) -> bool:
        del uids
        return False

    def defective_card(self, uid: str, what: str, cards: list[str],
                       evidence: dict[str, Any]) -> None:
        self.held.append(lambda h: h.defective_card(uid, what, cards, evidence))

    def stacks_counted(self, seats: set[int]) -> None:
        """The floor counted these seats' chips (cmd/stacks): nothing to keep for them."""
        del seats

    def uncollected(self) -> bool:
        return False

    def too_early(self, t: str, f: tuple[str, ...], value: int) -> bool:
        del t, f, value
        return False

    def chips(self, zone: str, value: int, before: int, added: int, ms: int) -> None:
        self.held.append(lambda h: h.chips(zone, value, before, added, ms))
        if zone.startswith("B") and (button := self._blinds()) is not None:
            self._found(button, "the blinds are in the bet zones")

    def button(self, name: str, args: list[str]) -> bool:
        self.held.append(lambda h: self._press(h, name, args))
        return True

    def _press(self, hand: Hand, name: str, args: list[str]) -> None:
        if not hand.button(name, args):
            self.table.out.note("warning", "unknown console button", button=name)

    def expire(self, ms: int) -> None:
        del ms

    def tick(self, ms: int) -> None:
        del ms

    def deadline(self) -> int | None:
        return None

    def misdeal(self) -> None:
        self.over = True  # nothing was dealt that the service saw: the hand never began

    def end(self) -> None:
        self.over = True

    def collected(self) -> None:
        """Nothing was followed, nothing to check."""

    def view(self) -> dict[str, Any]:
        return {"street": None, "board": [], "active": list(self.seated), "pot": 0}

    def in_hand(self, seat: int) -> bool:
        return seat in self.seated

    def live_hand(self, seat: int) -> bool:
        return seat in self.seated

    def small_blind_seat(self) -> int | None:
        return None

    def rule_dead(self, seat: int | None, ruling: str, reason: str | None) -> dict[str, Any]:
        from tablesvc.core.commands import CommandError

        del seat, reason
        raise CommandError(f"the hand has not started yet (its button is being found); a "
                           f"{ruling} ruling has nothing to act on")
