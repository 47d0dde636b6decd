"""What the core is told about its table: the config's values and the seated players."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class TableSettings:
    """What the core needs from the config: plain values, no I/O."""

    venue: str
    table: str
    seats: int = 10
    variant: str = "holdem"
    limit: str = "no-limit"
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    ante_mode: str = "each"
    level: int | None = None  # the tournament's level number, when the controller gave one
    bet_settle_ms: int = 1500
    devices: dict[str, str] = field(default_factory=dict)  # device name -> kind
    reopen_rule: str = "tda_full_raise"  # RULES.md §6 betting.reopen_rule
    clock_ms: int = 30_000  # the action clock, BET-17
    deliver_ms: int = 3000  # T_deliver: a card out of the shoe must reach a zone by then
    all_check: str = "carry_over"  # draw.second_round_all_check
    qualification_table: bool = False  # he.qualification_table (SHOW-03, A-20)
    motion_ms: int = 800  # T_motion: chip arrivals further apart are separate motions (BET-10)
    order_tolerance_ms: int = 50  # frames of different devices this close may be out of order
    max_stack: int = 1_000_000_000  # the largest stack a command may give (game.max_stack)
    equity_dead_cards: str = "known"  # [broadcast]: "known" (folded, burned) or "none"
    alert_confirm: bool = False  # a rule alert waits for every device to be heard after it
    stack_zones: bool = False  # the chip reader reads each seat's stack in P1..P<seats>
    button_uid: str | None = None  # the dealer button's tag, when it carries one


@dataclass(frozen=True, slots=True)
class Level:
    """A level of the game: the forced bets and the limit hands are dealt with, and the
    tournament's number for it when the controller gave one (``cmd/configure``).

    The table keeps its level in its settings; a level sent while a hand runs waits as a
    ``Level`` until the next hand, and the level before a change is kept as one for the first
    hand after it (the dealer may not have changed yet)."""

    number: int | None
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    limit: str

    @classmethod
    def of(cls, s: TableSettings) -> Level:
        return cls(s.level, s.small_blind, s.big_blind, s.ante, s.ante_mode, s.limit)

    def on(self, s: TableSettings) -> TableSettings:
        """``s`` at this level."""
        return replace(s, level=self.number, small_blind=self.small_blind,
                       big_blind=self.big_blind, ante=self.ante, ante_mode=self.ante_mode,
                       limit=self.limit)

    def plays_as(self, other: Level) -> bool:
        """The same game whatever the number: the same forced bets and limit."""
        return replace(self, number=None) == replace(other, number=None)

    def view(self) -> dict[str, Any]:
        """The level as the state snapshot and the configure reply show it."""
        return {"number": self.number, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "ante": self.ante, "ante_mode": self.ante_mode,
                "limit": self.limit}


@dataclass(slots=True)
class Player:
    """A seated player as the table tracks him between hands."""

    seat: int
    name: str
    stack: int


def seat_zone(zone: str, seats: int) -> bool:
    """``S1``..``S<seats>``: a seat's hole-card zone."""
    return zone.startswith("S") and zone[1:].isdigit() and 1 <= int(zone[1:]) <= seats
