"""Hand histories in PHH, the open Poker Hand History format: pure data in, TOML text out.

A PHH file is TOML. The required fields of the hold'em variants (``NT`` no-limit, ``FT``
fixed-limit) are ``variant``, ``antes``, ``blinds_or_straddles``, the bet sizes (``min_bet``;
fixed-limit: ``small_bet`` and ``big_bet``), ``starting_stacks`` and ``actions``; the lists
have one entry per player, p1..pN clockwise from the seat left of the button (pN holds the
button; heads-up, p1 is the big blind, and PHH reverses the blinds and antes by rule). Actions
are strings: ``d dh p1 AsKs`` (hole cards), ``d db AhKhQh`` (board), ``p3 cbr 300`` (bet or
raise to 300, the player's total in the round), ``p1 cc`` (check or call), ``p2 f`` (fold),
``p1 sm AsKs`` (show). Antes are dead money that every player in the hand can win, which is
what PHH means when ``ante_trimming_status`` is left out.

This module knows nothing of the game core: whoever builds a ``PhhHand`` decides what goes in.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

FIXED_LIMIT_VARIANTS = frozenset({"FT"})
"""Variants whose bets are a small and a big bet instead of a minimum bet."""


class PhhError(ValueError):
    """Text that is not a PHH hand this module can read."""


@dataclass(frozen=True)
class PhhHand:
    variant: str
    antes: list[int]
    blinds_or_straddles: list[int]
    min_bet: int
    starting_stacks: list[int]
    actions: list[str]
    players: list[str]
    seats: list[int]
    seat_count: int
    hand: int
    table: str
    venue: str
    finishing_stacks: list[int] | None = None
    small_bet: int | None = None
    """Fixed-limit only: ``min_bet`` when not given (and None for the other variants)."""
    big_bet: int | None = None
    """Fixed-limit only: twice ``min_bet`` when not given (and None for the other variants)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Any other fields (PHH's optional ones, or user-defined ones starting with ``_``)."""

    def __post_init__(self) -> None:
        if self.variant in FIXED_LIMIT_VARIANTS:
            if self.small_bet is None:
                object.__setattr__(self, "small_bet", self.min_bet)
            if self.big_bet is None:
                object.__setattr__(self, "big_bet", 2 * self.min_bet)
        else:
            object.__setattr__(self, "small_bet", None)
            object.__setattr__(self, "big_bet", None)


def dumps(h: PhhHand) -> str:
    """The hand as PHH text (valid TOML, one field per line, one action per line)."""
    lines = [
        f"variant = {_string(h.variant)}",
        f"antes = {_ints(h.antes)}",
        f"blinds_or_straddles = {_ints(h.blinds_or_straddles)}",
    ]
    if h.variant in FIXED_LIMIT_VARIANTS:
        lines += [f"small_bet = {h.small_bet}", f"big_bet = {h.big_bet}"]
    else:
        lines.append(f"min_bet = {h.min_bet}")
    lines.append(f"starting_stacks = {_ints(h.starting_stacks)}")
    if h.actions:
        lines.append("actions = [")
        lines += [f"  {_string(a)}," for a in h.actions]
        lines.append("]")
    else:
        lines.append("actions = []")
    lines += [
        f"players = [{', '.join(_string(p) for p in h.players)}]",
        f"seats = {_ints(h.seats)}",
        f"seat_count = {h.seat_count}",
        f"hand = {h.hand}",
        f"table = {_string(h.table)}",
        f"venue = {_string(h.venue)}",
    ]
    if h.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {_ints(h.finishing_stacks)}")
    for key, value in h.extra.items():
        lines.append(f"{_key(key)} = {_value(value)}")
    return "\n".join(lines) + "\n"


def loads(text: str) -> PhhHand:
    """Read PHH text (as ``dumps`` writes it, or any hold'em hand history with these fields)."""
    try:
        doc: dict[str, Any] = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as e:
        raise PhhError(f"not TOML: {e}") from e
    variant = doc.pop("variant", None)
    if not isinstance(variant, str):
        raise PhhError("no variant")
    required = ["antes", "blinds_or_straddles", "starting_stacks", "actions"]
    required += ["small_bet", "big_bet"] if variant in FIXED_LIMIT_VARIANTS else ["min_bet"]
    missing = [k for k in required if k not in doc]
    if missing:
        raise PhhError(f"missing fields: {missing}")
    stacks = _int_list(doc.pop("starting_stacks"), "starting_stacks")
    n = len(stacks)
    small_bet = big_bet = None
    if variant in FIXED_LIMIT_VARIANTS:
        small_bet = _int(doc.pop("small_bet"), "small_bet")
        big_bet = _int(doc.pop("big_bet"), "big_bet")
        min_bet = _int(doc.pop("min_bet", small_bet), "min_bet")
    else:
        min_bet = _int(doc.pop("min_bet"), "min_bet")
    actions = doc.pop("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError("actions must be an array of strings")
    players = doc.pop("players", [""] * n)
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise PhhError("players must be an array of strings")
    finishing = doc.pop("finishing_stacks", None)
    return PhhHand(
        variant=variant,
        antes=_int_list(doc.pop("antes"), "antes"),
        blinds_or_straddles=_int_list(doc.pop("blinds_or_straddles"), "blinds_or_straddles"),
        min_bet=min_bet,
        starting_stacks=stacks,
        actions=list(actions),
        players=list(players),
        seats=_int_list(doc.pop("seats", list(range(1, n + 1))), "seats"),
        seat_count=_int(doc.pop("seat_count", n), "seat_count"),
        hand=_int(doc.pop("hand", 0), "hand"),
        table=str(doc.pop("table", "")),
        venue=str(doc.pop("venue", "")),
        finishing_stacks=None if finishing is None else _int_list(finishing, "finishing_stacks"),
        small_bet=small_bet,
        big_bet=big_bet,
        extra=doc,
    )


# TOML, written by hand (the standard library only reads it) -------------------------------


_PLAIN = re.compile(r'[^"\\\x00-\x1f\x7f]*\Z')
"""Text that needs no escape in a TOML basic string (nearly every action line)."""


def _string(text: str) -> str:
    if _PLAIN.match(text):
        return '"' + text + '"'  # what the loop below gives when nothing needs escaping
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _ints(values: list[int]) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def _key(key: str) -> str:
    bare = key != "" and all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    return key if bare else _string(key)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal | float):
        if Decimal(value).is_nan():
            return "nan"
        if Decimal(value).is_infinite():
            return "inf" if value > 0 else "-inf"
        text = str(value)
        return text if any(c in text for c in ".eE") else text + ".0"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "isoformat"):  # dates and times, as TOML reads them
        return str(value.isoformat())
    raise TypeError(f"cannot write {value!r} as TOML")


def _int(value: object, name: str) -> int:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise PhhError(f"{name}: {value!r} is not a whole number")
    if isinstance(value, Decimal) and (not value.is_finite() or value != value.to_integral()):
        raise PhhError(f"{name}: {value} is not a whole number")
    return int(value)


def _int_list(values: object, name: str) -> list[int]:
    if not isinstance(values, list):
        raise PhhError(f"{name} must be an array")
    return [_int(v, name) for v in values]
