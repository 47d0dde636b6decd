"""PHH (Poker Hand History) files in and out of the virtual table.

PHH is TOML: the variant, antes, blinds, bet sizes and starting stacks, then the actions as short
strings (``d dh p1 AsKs`` deals p1 its hole cards, ``d db AhKhQh`` the flop, ``p3 cbr 300``
bets or raises to 300, ``p1 cc`` checks or calls, ``p2 f`` folds, ``p1 sm AsKs`` shows).
Players are p1..pN clockwise from the seat left of the button, so pN holds the button; heads-up
p1 is the big blind and p2 the button, which posts the small blind (PHH writes the blinds as
``[small, big]`` and reverses them heads-up by rule, as it does the antes). The optional
``seats`` field gives each player's seat at the table; without it p1..pN sit in seats 1..N.

The hold'em variants are ``NT`` (no-limit) and ``FT`` (fixed-limit); the format has no code for
pot-limit hold'em, so this module reads and writes ``PT`` for it. Pot-limit Omaha is ``PO``: the
same fields, four hole cards in each ``d dh``. Antes are either the same for everybody or one
big-blind ante; straddles are not dealt. This reader is the simulator's own:
it shares nothing with the service, which writes PHH with its own writer.
"""

from __future__ import annotations

import datetime
import tomllib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from simulators.betting import Limit
from simulators.records import HandRecord
from simulators.script import (
    HOLE_CARDS,
    UNKNOWN,
    HandScript,
    ScriptAction,
    ScriptError,
    board_deal,
    hole_deal,
)

GAMES: Mapping[str, tuple[str, Limit]] = {
    "NT": ("holdem", Limit.NO_LIMIT),
    "PT": ("holdem", Limit.POT_LIMIT),
    "FT": ("holdem", Limit.FIXED_LIMIT),
    "PO": ("omaha", Limit.POT_LIMIT),
}
"""PHH variant code -> the table's game and betting structure."""
VARIANT_OF: Mapping[tuple[str, Limit], str] = {game: code for code, game in GAMES.items()}
VARIANTS: Mapping[str, Limit] = {code: limit for code, (_, limit) in GAMES.items()}
"""PHH variant code -> betting structure (the game is in ``GAMES``)."""

_KNOWN_FIELDS = {
    "variant",
    "antes",
    "blinds_or_straddles",
    "min_bet",
    "small_bet",
    "big_bet",
    "starting_stacks",
    "actions",
    "players",
    "seats",
    "hand",
    "table",
    "venue",
}
_STREETS = ("preflop", "flop", "turn", "river")


# reading -------------------------------------------------------------------------------------


def load_phh(path: Path | str) -> HandScript:
    """Read a PHH file into a script for ``VirtualTable.play_script``."""
    return loads_phh(Path(path).read_text(encoding="utf-8"))


def loads_phh(text: str) -> HandScript:
    try:
        doc = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as e:
        raise ScriptError(f"not TOML: {e}") from e
    missing = [k for k in ("variant", "antes", "blinds_or_straddles", "starting_stacks",
                           "actions") if k not in doc]  # fmt: skip
    if missing:
        raise ScriptError(f"missing fields: {missing}")
    variant = doc["variant"]
    if variant not in GAMES:
        raise ScriptError(f"variant {variant!r}: the table deals {sorted(GAMES)}")
    game, limit = GAMES[variant]
    stacks = _amounts(doc["starting_stacks"], "starting_stacks")
    n = len(stacks)
    blinds = _amounts(doc["blinds_or_straddles"], "blinds_or_straddles")
    antes = _amounts(doc["antes"], "antes")
    if len(blinds) != n or len(antes) != n:
        raise ScriptError(f"antes and blinds_or_straddles need one entry per player ({n})")
    if any(blinds[2:]):
        raise ScriptError(f"straddles are not dealt: blinds_or_straddles = {blinds}")
    small_blind, big_blind = blinds[0], blinds[1]
    ante, ante_mode = _ante(antes)
    _check_bet_sizes(doc, limit, big_blind)
    seats = _amounts(doc["seats"], "seats") if "seats" in doc else list(range(1, n + 1))
    if "seat_count" in doc and not 2 <= _amount(doc["seat_count"], "seat_count") <= 10:
        raise ScriptError(f"seat_count {doc['seat_count']}: a table has at most 10 seats")
    if not isinstance(doc["actions"], list):
        raise ScriptError("actions must be an array of strings")
    actions = tuple(a for raw in doc["actions"] if (a := parse_action(raw)) is not None)
    players = doc.get("players", [])
    return HandScript(
        limit=limit,
        small_blind=small_blind,
        big_blind=big_blind,
        ante=ante,
        ante_mode=ante_mode,
        seats=tuple(seats),
        starting_stacks=tuple(stacks),
        actions=actions,
        players=tuple(str(p) for p in players),
        hand=doc.get("hand"),
        table=None if doc.get("table") is None else str(doc["table"]),
        venue=doc.get("venue"),
        extra={k: v for k, v in doc.items() if k not in _KNOWN_FIELDS},
        variant=game,
    )


def _amount(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise ScriptError(f"{name}: {value!r} is not a number")
    if isinstance(value, Decimal) and (not value.is_finite() or value != value.to_integral()):
        raise ScriptError(f"{name}: {value} is not a whole number of chips")
    return int(value)


def _amounts(values: object, name: str) -> list[int]:
    if not isinstance(values, list):
        raise ScriptError(f"{name} must be an array")
    return [_amount(v, name) for v in values]


def _ante(antes: Sequence[int]) -> tuple[int, str]:
    if not any(antes):
        return 0, "each"
    if len(set(antes)) == 1:
        return antes[0], "each"
    if antes[1] and not any(a for i, a in enumerate(antes) if i != 1):
        return antes[1], "big_blind"  # p2 is the big blind (heads-up PHH reverses: p1)
    raise ScriptError(f"antes {list(antes)}: only equal antes or a big-blind ante are dealt")


def _check_bet_sizes(doc: Mapping[str, Any], limit: Limit, big_blind: int) -> None:
    if limit is Limit.FIXED_LIMIT:
        small = _amount(doc.get("small_bet"), "small_bet")
        big = _amount(doc.get("big_bet"), "big_bet")
        if (small, big) != (big_blind, 2 * big_blind):
            raise ScriptError(
                f"fixed-limit bets {small}/{big}: the table's are the big blind and twice it "
                f"({big_blind}/{2 * big_blind})"
            )
    else:
        min_bet = _amount(doc.get("min_bet"), "min_bet")
        if min_bet != big_blind:
            raise ScriptError(f"min_bet {min_bet}: the table's minimum bet is the big blind")


def _cards(text: str) -> tuple[str, ...]:
    text = "".join(text.split())
    if len(text) % 2:
        raise ScriptError(f"cards {text!r} are not pairs of rank and suit")
    return tuple(text[i : i + 2] for i in range(0, len(text), 2))


def _player(word: str) -> int:
    if not (word.startswith("p") and word[1:].isdigit() and int(word[1:]) > 0):
        raise ScriptError(f"{word!r} is not a player (p1, p2, ...)")
    return int(word[1:])


def parse_action(raw: object) -> ScriptAction | None:
    """One PHH action string; None for a comment or an empty string."""
    if not isinstance(raw, str):
        raise ScriptError(f"action {raw!r} is not a string")
    words = raw.split("#", 1)[0].split()
    if not words:
        return None
    try:
        if words[0] == "d":
            if len(words) == 4 and words[1] == "dh":
                return hole_deal(_player(words[2]), _cards(words[3]))
            if len(words) == 3 and words[1] == "db":
                return board_deal(_cards(words[2]))
            raise ScriptError("the dealer deals hole cards (dh) or board cards (db)")
        player = _player(words[0])
        verb, args = (words[1] if len(words) > 1 else ""), words[2:]
        if verb == "cbr" and len(args) == 1:
            amount = _amount(Decimal(args[0]), "amount")
            return ScriptAction(player, "cbr", amount=amount)
        if verb in ("cc", "f") and not args:
            return ScriptAction(player, verb)
        if verb == "sm" and len(args) <= 1:
            shown = args[0] if args and args[0] != "-" else ""
            return ScriptAction(player, "sm", _cards(shown))
        raise ScriptError(f"{verb!r} with {args} is not a hold'em action")
    except (ScriptError, ArithmeticError, ValueError) as e:
        raise ScriptError(f"action {raw!r}: {e}") from e


# writing -------------------------------------------------------------------------------------


def script_from_record(
    record: HandRecord,
    *,
    players: Sequence[str] = (),
    hand: int | str | None = None,
    table: str | None = None,
    venue: str | None = None,
) -> HandScript:
    """The hand the table dealt, as a script (to write as PHH, or to deal again).

    Blind and ante posts are not actions in PHH; shows at showdown are left out (the dealer
    reveals every hand still in). ``finishing_stacks`` goes along in ``extra``.
    Only hold'em and Omaha hands: a five-card-draw record raises ``ScriptError``.
    """
    if record.variant not in HOLE_CARDS:
        raise ScriptError(f"a {record.variant} game cannot be written as a script of "
                          f"{' or '.join(HOLE_CARDS)}")
    index = {seat: i + 1 for i, seat in enumerate(record.seats)}
    actions: list[ScriptAction] = [
        hole_deal(index[seat], record.hole_cards[seat]) for seat in record.seats
    ]
    boards = [record.board[:3], record.board[3:4], record.board[4:5]]
    for street in _STREETS:
        if street != "preflop":
            cards = boards[_STREETS.index(street) - 1]
            if not cards:
                break
            actions.append(board_deal(cards))
        for a in record.street_actions(street):
            if a.action in ("check", "call"):
                actions.append(ScriptAction(index[a.seat], "cc"))
            elif a.action in ("bet", "raise"):
                actions.append(ScriptAction(index[a.seat], "cbr", amount=a.to))
            elif a.action == "fold":
                actions.append(ScriptAction(index[a.seat], "f"))
    return HandScript(
        limit=Limit(record.limit),
        small_blind=record.small_blind,
        big_blind=record.big_blind,
        ante=record.ante,
        ante_mode=record.ante_mode,
        seats=record.seats,
        starting_stacks=tuple(record.stacks_before[s] for s in record.seats),
        actions=tuple(actions),
        players=tuple(players),
        hand=record.number if hand is None else hand,
        table=table,
        venue=venue,
        extra={"finishing_stacks": [record.stacks_after[s] for s in record.seats]},
        variant=record.variant,
    )


def phh_fields(script: HandScript) -> dict[str, Any]:
    """The PHH fields of a script, in the order a PHH file lists them."""
    n = len(script.seats)
    antes = [0] * n
    if script.ante_mode == "each":
        antes = [script.ante] * n
    else:
        antes[1] = script.ante
    code = VARIANT_OF.get((script.variant, Limit(script.limit)))
    if code is None:
        raise ScriptError(f"PHH has no variant for {script.limit} {script.game}")
    fields: dict[str, Any] = {
        "variant": code,
        "antes": antes,
        "blinds_or_straddles": [script.small_blind, script.big_blind] + [0] * (n - 2),
    }
    if script.limit is Limit.FIXED_LIMIT:
        fields["small_bet"] = script.big_blind
        fields["big_bet"] = 2 * script.big_blind
    else:
        fields["min_bet"] = script.big_blind
    fields["starting_stacks"] = list(script.starting_stacks)
    fields["actions"] = [a.notation() for a in script.actions]
    if script.players:
        fields["players"] = list(script.players)
    fields["seats"] = list(script.seats)
    fields.setdefault("seat_count", 10)
    for key, value in (("hand", script.hand), ("table", script.table), ("venue", script.venue)):
        if value is not None:
            fields[key] = value
    fields.update(script.extra)
    return fields


def dumps_phh(script: HandScript) -> str:
    """PHH text of a script: TOML that ``loads_phh`` (and other PHH readers) read back."""
    lines = []
    for key, value in phh_fields(script).items():
        if key == "actions" and value:
            body = "".join(f"  {_toml(a)},\n" for a in value)
            lines.append(f"actions = [\n{body}]")
        else:
            lines.append(f"{_toml_key(key)} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    bare = key != "" and all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    return key if bare else _toml_string(key)


def _toml_string(text: str) -> str:
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal | float):
        return str(value) if Decimal(value).is_finite() else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} as TOML")


__all__ = [
    "GAMES",
    "UNKNOWN",
    "VARIANTS",
    "HandScript",
    "ScriptAction",
    "ScriptError",
    "dumps_phh",
    "load_phh",
    "loads_phh",
    "parse_action",
    "phh_fields",
    "script_from_record",
]
