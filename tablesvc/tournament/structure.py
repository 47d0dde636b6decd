"""The structure file: levels, breaks, game and payouts of one tournament.

A director writes it before the event and cannot fix it once the clock runs, so the file is
checked completely up front and every problem is named at once as ``file: key: what is wrong``
(``levels[3]`` is the third ``[[levels]]`` table, counted from 1 as the director counts them).
The check is written out by hand rather than left to a schema: the cross-field rules (level
numbers 1..n, breaks after existing levels, payouts summing to 100) must be reported together
with the field errors, and a schema stops checking the whole once one field fails.
"""

from __future__ import annotations

import math
import tomllib
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablesvc.core.games import VARIANTS

GAMES = tuple(VARIANTS)  # the registry of games: what a table can track
LIMITS = ("no-limit", "pot-limit", "fixed-limit")
ANTE_MODES = ("each", "big_blind")
PERCENT_TOLERANCE = 0.01

_TOP_KEYS = ("name", "game", "limit", "starting_stack", "levels", "breaks", "payouts")
_LEVEL_KEYS = ("level", "small_blind", "big_blind", "ante", "ante_mode", "minutes")
_BREAK_KEYS = ("after_level", "minutes", "name")
_PAYOUT_KEYS = ("percent", "amounts", "buy_in")


@dataclass(frozen=True)
class Level:
    """One blind level; ``ante_mode`` is the table's (``each`` or ``big_blind``)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    minutes: float


@dataclass(frozen=True)
class Break:
    """A pause in play after ``after_level``; the clock runs through it like a level."""

    after_level: int
    minutes: float
    name: str


Period = Level | Break


@dataclass(frozen=True)
class Payouts:
    """Either shares of the prize pool (``percent``, place 1 first) or fixed ``amounts``."""

    percent: tuple[float, ...] | None
    amounts: tuple[int, ...] | None
    buy_in: int


@dataclass(frozen=True)
class Structure:
    """A validated structure; ``periods`` are the levels and breaks in the order they are played."""

    name: str
    game: str
    limit: str
    starting_stack: int
    periods: tuple[Period, ...]
    payouts: Payouts | None

    def levels(self) -> tuple[Level, ...]:
        """The levels alone, in play order (level 1 first)."""
        return tuple(p for p in self.periods if isinstance(p, Level))

    def level(self, number: int) -> Level:
        """Level ``number``; KeyError when the structure has no such level."""
        for lv in self.levels():
            if lv.number == number:
                return lv
        raise KeyError(number)


class StructureError(Exception):
    """A structure that cannot be used; ``problems`` lists every one as 'file: key: what'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def period_dict(period: Period) -> dict[str, Any]:
    """A period as plain data (``kind`` first), for the pages and the published state."""
    if isinstance(period, Level):
        return {"kind": "level", "number": period.number, "small_blind": period.small_blind,
                "big_blind": period.big_blind, "ante": period.ante,
                "ante_mode": period.ante_mode, "minutes": period.minutes}
    return {"kind": "break", "after_level": period.after_level, "minutes": period.minutes,
            "name": period.name}


def load_structure(path: Path) -> Structure:
    """Read and check a structure file; a missing, unreadable or non-TOML file is refused
    with the same ``StructureError`` as a wrong value, so the caller has one thing to show."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StructureError([f"{source}: (file): not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StructureError([f"{source}: (file): cannot be read: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise StructureError([f"{source}: (file): not valid TOML: {exc}"]) from None
    return parse_structure(data, source)


def parse_structure(data: dict[str, Any], source: str) -> Structure:
    """Check parsed TOML and build the structure, or raise ``StructureError`` with every
    problem; ``source`` names the file in the messages."""
    c = _Checker(source)
    c.unknown_keys(data, _TOP_KEYS, "")
    name = c.text(data, "name", "", required=True)
    game = c.choice(data, "game", "", GAMES, "holdem")
    limit = c.choice(data, "limit", "", LIMITS, "no-limit")
    starting_stack = c.integer(data, "starting_stack", "", minimum=1, required=True)
    levels, numbers = _levels(c, data.get("levels"))
    breaks = _breaks(c, data.get("breaks"), numbers)
    payouts = _payouts(c, data.get("payouts"))
    if c.problems:
        raise StructureError(c.problems)
    periods: list[Period] = []
    by_level = {b.after_level: b for b in breaks}
    for lv in sorted(levels, key=lambda lv: lv.number):
        periods.append(lv)
        if lv.number in by_level:
            periods.append(by_level[lv.number])
    return Structure(name=name or "", game=game, limit=limit, starting_stack=starting_stack or 0,
                     periods=tuple(periods), payouts=payouts)


def _levels(c: _Checker, raw: Any) -> tuple[list[Level], set[int]]:
    """The well-formed levels, and every level number the file gives (for the breaks' check,
    so a level with a bad blind does not also make its break 'after no level')."""
    if raw is None or raw == []:
        c.problem("levels", "no levels (at least one [[levels]] table is needed)")
        return [], set()
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        c.problem("levels", "must be a list of [[levels]] tables")
        return [], set()
    levels: list[Level] = []
    numbers: list[tuple[str, int]] = []
    for i, item in enumerate(raw, start=1):
        at = f"levels[{i}]."
        c.unknown_keys(item, _LEVEL_KEYS, at)
        number = c.integer(item, "level", at, minimum=1, required=True)
        small = c.integer(item, "small_blind", at, minimum=0, required=True)
        big = c.integer(item, "big_blind", at, minimum=1, required=True)
        ante = c.integer(item, "ante", at, minimum=0, default=0)
        mode = c.choice(item, "ante_mode", at, ANTE_MODES, "each")
        minutes = c.minutes(item, at)
        if small is not None and big is not None and big < small:
            c.problem(f"{at}big_blind", f"{big} is below the small blind {small}")
        if number is not None:
            numbers.append((f"{at}level", number))
        if (number is not None and small is not None and big is not None and ante is not None
                and minutes is not None):
            levels.append(Level(number=number, small_blind=small, big_blind=big, ante=ante,
                                ante_mode=mode, minutes=minutes))
    seen = Counter(n for _, n in numbers)
    reported: set[int] = set()
    for key, n in numbers:
        if seen[n] > 1 and n not in reported:
            reported.add(n)
            c.problem(key, f"level {n} is given {seen[n]} times (overlapping levels)")
    want = set(range(1, len(raw) + 1))
    missing = sorted(want - set(seen))
    beyond = sorted(set(seen) - want)
    if missing or beyond:
        what = f"levels must be numbered 1..{len(raw)}, each once"
        if missing:
            what += "; missing " + ", ".join(str(n) for n in missing)
        if beyond:
            what += "; beyond the count: " + ", ".join(str(n) for n in beyond)
        c.problem("levels", what)
    return levels, set(seen)


def _breaks(c: _Checker, raw: Any, numbers: set[int]) -> list[Break]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        c.problem("breaks", "must be a list of [[breaks]] tables")
        return []
    last = max(numbers, default=None)
    breaks: list[Break] = []
    after: set[int] = set()
    for i, item in enumerate(raw, start=1):
        at = f"breaks[{i}]."
        c.unknown_keys(item, _BREAK_KEYS, at)
        level = c.integer(item, "after_level", at, minimum=0, required=True)
        minutes = c.minutes(item, at)
        name = c.text(item, "name", at, default="Break")
        if level is not None:
            if numbers and level not in numbers:
                c.problem(f"{at}after_level", f"there is no level {level}")
            elif level == last:
                c.problem(f"{at}after_level",
                          f"level {level} is the last level, which never ends; no break after it")
            elif level in after:
                c.problem(f"{at}after_level", f"a second break after level {level}")
            after.add(level)
        if level is not None and minutes is not None and name is not None:
            breaks.append(Break(after_level=level, minutes=minutes, name=name))
    return breaks


def _payouts(c: _Checker, raw: Any) -> Payouts | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        c.problem("payouts", "must be a [payouts] table")
        return None
    c.unknown_keys(raw, _PAYOUT_KEYS, "payouts.")
    has_percent, has_amounts = "percent" in raw, "amounts" in raw
    if has_percent and has_amounts:
        c.problem("payouts", "give percent or amounts, not both")
        return None
    if not has_percent and not has_amounts:
        c.problem("payouts", "give percent or amounts")
        return None
    buy_in = c.integer(raw, "buy_in", "payouts.", minimum=0, default=0)
    if has_percent:
        shares = _number_list(c, raw["percent"], "payouts.percent", integers=False)
        if shares is None:
            return None
        total = sum((Fraction(str(s)) for s in shares), Fraction(0))
        if abs(total - 100) > Fraction(str(PERCENT_TOLERANCE)):
            c.problem("payouts.percent", f"the shares sum to {float(total):g}, not 100")
        if buy_in == 0 and "buy_in" in raw:
            c.problem("payouts.buy_in", "must be greater than 0 when percent is used")
        elif "buy_in" not in raw:
            c.problem("payouts.buy_in", "missing (the prize pool is entries x buy_in)")
        return Payouts(percent=tuple(float(s) for s in shares), amounts=None,
                       buy_in=buy_in or 0)
    amounts = _number_list(c, raw["amounts"], "payouts.amounts", integers=True)
    if amounts is None:
        return None
    return Payouts(percent=None, amounts=tuple(int(a) for a in amounts), buy_in=buy_in or 0)


def _number_list(c: _Checker, raw: Any, key: str, *, integers: bool) -> list[float] | None:
    kind = "whole numbers" if integers else "numbers"
    if not isinstance(raw, list) or not raw:
        c.problem(key, f"must be a non-empty list of {kind}, place 1 first")
        return None
    ok = True
    for i, v in enumerate(raw, start=1):
        if isinstance(v, bool) or not isinstance(v, int | float) or (
                integers and not isinstance(v, int)):
            c.problem(f"{key}[{i}]", f"{v!r} is not one of the {kind}")
            ok = False
        elif v <= 0:
            c.problem(f"{key}[{i}]", f"{v} must be greater than 0")
            ok = False
    return [float(v) for v in raw] if ok else None


class _Checker:
    """Collects problems as 'file: key: what' and reads typed values, None when wrong."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[str] = []

    def problem(self, key: str, what: str) -> None:
        self.problems.append(f"{self.source}: {key}: {what}")

    def unknown_keys(self, table: dict[str, Any], known: tuple[str, ...], at: str) -> None:
        for key in table:
            if key not in known:
                self.problem(f"{at}{key}", "unknown key (known: " + ", ".join(known) + ")")

    def text(self, table: dict[str, Any], key: str, at: str, *, required: bool = False,
             default: str | None = None) -> str | None:
        if key not in table:
            if required:
                self.problem(f"{at}{key}", "missing")
            return default
        value = table[key]
        if not isinstance(value, str) or not value.strip():
            self.problem(f"{at}{key}", f"{value!r} must be a non-empty string")
            return None
        return value

    def choice(self, table: dict[str, Any], key: str, at: str, allowed: tuple[str, ...],
               default: str) -> str:
        value = table.get(key, default)
        if value not in allowed:
            self.problem(f"{at}{key}", f"{value!r} is not one of " + ", ".join(allowed))
            return default
        return str(value)

    def integer(self, table: dict[str, Any], key: str, at: str, *, minimum: int,
                required: bool = False, default: int | None = None) -> int | None:
        if key not in table:
            if required:
                self.problem(f"{at}{key}", "missing")
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(f"{at}{key}", f"{value!r} is not a whole number")
            return None
        if value < minimum:
            what = "negative" if value < 0 else ("zero" if value == 0 else "too small")
            self.problem(f"{at}{key}", f"{value} is {what} (must be at least {minimum})")
            return None
        return value

    def minutes(self, table: dict[str, Any], at: str) -> float | None:
        if "minutes" not in table:
            self.problem(f"{at}minutes", "missing")
            return None
        value = table["minutes"]
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(f"{at}minutes", f"{value!r} is not a number")
            return None
        if not (value > 0 and math.isfinite(value)):  # also refuses nan and inf
            self.problem(f"{at}minutes", f"{value} must be greater than 0")
            return None
        return float(value)
