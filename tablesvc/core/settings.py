"""What the core is told about its table: the config's values and the seated players."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass(slots=True)
class Player:
    """A seated player as the table tracks him between hands."""

    seat: int
    name: str
    stack: int


def seat_zone(zone: str, seats: int) -> bool:
    """``S1``..``S<seats>``: a seat's hole-card zone."""
    return zone.startswith("S") and zone[1:].isdigit() and 1 <= int(zone[1:]) <= seats
