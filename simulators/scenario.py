"""Test scenarios (RULES.md §4): a hand with injected errors, played physically.

A scenario file (YAML, ``simulators/scenarios/*.yaml``) says who sits where, then lists the
physical actions of the hand in order: cards out of the shoe, cards moved by hand, chips into
bet zones, console buttons. ``simulators.scenario_player`` does exactly those actions on the
virtual devices, so the frames on the wire are what the antennas would report. Nothing here judges
the hand: ``expect`` (the alerts and outcome RULES.md §4 states) is data for the tests.

Format (every key but ``id``, ``setup`` and ``steps`` is optional)::

    id: T01
    title: Clean hand
    rules: [SHOW-01]
    setup:
      variant: holdem             # or draw5 (five-card draw, docs/DRAW.md), or omaha
                                  # (pot-limit Omaha, docs/OMAHA.md: four hole cards a
                                  # seat, limit pot-limit unless given, and only that)
      seats: {1: 10000, 2: 10000, 3: 10000, 4: 10000}
      button: 4                   # in draw5: the dealer
      blinds: [100, 200]          # also: ante, ante_mode, limit
      deck: [Ah, 7c, Kd]          # first cards out of the shoe; the rest follow shuffled
      seed: 1                     # the shuffle of the rest, and of reshuffled packs
      stack_zones: true           # the stacks lie in P1..P10 and the chip reader tells
                                  # them (DESIGN §3): at the start, and on every change
    steps:
      - newhand                   # console NEWHAND (after the shuffle and cut)
      - antes                     # every seat's setup.ante into the pot (or {1: 25, 2: 0})
      - bet: {seat: 1, to: 100}   # the seat's bet zone now holds this round total
      - deal: {to: S1}            # the next card of the shoe (or card: Ah; face: up)
      - deal: {to: [S1, S2], rounds: 5}  # one card at a time, S1 S2 S1 S2 ... (10 cards)
      - check: 1
      - fold: 4                   # the seat's cards into the muck, one motion; in draw5
                                  # the console's FOLD,4 comes first (A-29)
      - gather                    # bet zones into the pot
      - move: {card: "#2", to: S2}      # DEP where it lies + ARR (also cards: [...])
      - depart: {zone: S3, card: "#2"}  # DEP only: the card is in the dealer's hand
      - arrive: {zone: S2, card: "#2"}  # ARR only
      - return: {card: "#9", where: top}  # shoe RET (after DEP from its zone)
      - console: [EXPOSED, "#2"]        # BTN; card names and #k become UIDs
      - unknown_tag: {to: S4}           # a tag of no deck (a Joker), also name: JOKER
      - lose: {card: "#3"}              # DEP only, and the card is gone (floor, pocket)
      - scan: {without: [Ah]}           # the shoe's DECK inventory of the deck minus cards
      - stray_chip: {zone: B3}          # a chip of no registry joins the zone's inventory
      - push: {1: 27600}                # the dealer pushes chips of the pot to seats
      - collect                         # every card into the muck
      - console: [DRAW, 1, 3]           # draw5: S1 announces three cards
      - reshuffle: {cards: ["#1", "#9"]}  # draw5: DEP,MUCK of these, plus what is left in
                                          # the shoe (the bottom card), shuffled with the
                                          # seed: the shoe sends DECK, top first
                                          # (order: [...] fixes the pack's order)
      - stack_take: {seat: 3, amount: 500}  # chips off the table from S3's stack (TABLE-06)
      - stack_add: {seat: 3, amount: 500}   # chips bought into it from outside (TABLE-08,
                                            # mid-hand BET-23)
      - stack_transfer: {from: 3, to: 4, amount: 500}  # S3's stack to S4's (TABLE-08)
    expect:
      alerts: [{name: card_exposed, severity: warning, seat: 2, rule: EXPOSE-02}]
      outcome: {reason: showdown, stacks: {1: 27600}, awards: [{amount: 900, shares: {1: 900}}]}

Cards are named ``Ah``, ``#k`` (the k-th card out of the shoe in this hand, as RULES.md
writes them) or ``rK`` (the K-th card of the last reshuffled pack, as RULES.md T23 names
them). The cards of a new pack are counted on: the first one dealt from it is #(cards out
so far + 1). Inside a ``reshuffle`` step, ``#k`` past the cards out names a card still in the
shoe (``#52`` is the bottom card once 51 are out), so ``order`` can place it. Seats are ``3``
or ``S3``. A bare ``push`` pushes what ``expect.outcome.awards`` says, and what they leave in the
pot (a bet nobody called) to the first of them. The ``stack_*`` steps need
``setup.stack_zones`` (without it nobody could see them); with it a bet leaves the stack zone
before the bet zone reports it, and a push reaches the stack zone after the pot reported it.
Outcome reasons:
showdown, uncontested, misdeal, cancelled, and checked_out (a draw game checked around: the
pot stays for the next game).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simulators.decks import is_card
from simulators.script import ONLY_LIMIT

__all__ = [
    "Expectation",
    "ExpectedAlert",
    "Outcome",
    "Scenario",
    "ScenarioError",
    "Setup",
    "Step",
    "enrolled_tags",
    "load_scenario",
    "loads_scenario",
    "scenario_files",
]

SCENARIO_DIR = Path(__file__).parent / "scenarios"
CARD_ZONES = frozenset({*(f"S{s}" for s in range(1, 11)), "BOARD", "BURN", "MUCK"})
SEVERITIES = ("info", "warning", "critical")
REASONS = ("showdown", "uncontested", "misdeal", "cancelled", "checked_out")
VARIANTS = ("holdem", "draw5", "omaha")
BARE_STEPS = frozenset({"newhand", "gather", "collect", "push", "antes"})
STEP_KINDS = frozenset(
    {
        *BARE_STEPS,
        "deal", "arrive", "depart", "move", "return", "bet", "check", "fold", "console",
        "unknown_tag", "reshuffle", "lose", "scan", "stray_chip",
        "stack_take", "stack_add", "stack_transfer",
    }
)
_NAME_RE = re.compile(r"[A-Z][A-Z0-9_]{0,31}\Z")
_ARG_RE = re.compile(r"[^$,*\r\n]{1,64}\Z")
INDEX_RE = re.compile(r"#([1-9][0-9]?)\Z")
PACK_RE = re.compile(r"r([1-9][0-9]?)\Z")


class ScenarioError(ValueError):
    """A scenario file that cannot be read, or a step that cannot be done at the table."""


@dataclass(frozen=True)
class Setup:
    seats: dict[int, int]
    button: int
    """The dealer button; in five-card draw the dealer's seat."""
    small_blind: int = 100
    big_blind: int = 200
    ante: int = 0
    ante_mode: str = "each"
    limit: str = "no-limit"
    deck: tuple[str, ...] = ()
    seed: int = 0
    variant: str = "holdem"
    enrolled: dict[str, str] = field(default_factory=dict)
    """Tag name -> card: extra tags enrolled in the deck as that card (a defective deck with a
    card twice, DECK-04); the scenario deals them with ``unknown_tag``."""
    stack_zones: bool = False
    """The stacks lie in stack zones ``P1``..``P10`` that the chip reader tells."""


@dataclass(frozen=True)
class Step:
    number: int
    """1-based position in ``steps``."""
    kind: str
    args: Any = None
    """The step's value as the file gives it, checked: None, an int, a list or a mapping."""


@dataclass(frozen=True)
class ExpectedAlert:
    name: str
    severity: str
    seat: int | None = None
    rule: str | None = None


@dataclass(frozen=True)
class Outcome:
    reason: str | None = None
    stacks: dict[int, int] | None = None
    awards: tuple[tuple[int, dict[int, int]], ...] | None = None
    """(amount, seat -> share) of each pot, main pot first."""


@dataclass(frozen=True)
class Expectation:
    alerts: tuple[ExpectedAlert, ...] = ()
    """Every warning and critical alert the hand must raise, and the info alerts it checks."""
    outcome: Outcome = field(default_factory=Outcome)


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    rules: tuple[str, ...]
    setup: Setup
    steps: tuple[Step, ...]
    expect: Expectation
    notes: str = ""
    source: str = "<scenario>"


# loading ------------------------------------------------------------------------------------


def scenario_files(folder: Path = SCENARIO_DIR) -> list[Path]:
    """The scenario files shipped with the simulators, in name order."""
    return sorted(folder.glob("*.yaml"))


def load_scenario(path: Path | str) -> Scenario:
    """Read and check a scenario file; errors name the file and, for a step, its number."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ScenarioError(f"{path}: cannot read: {err.strerror or err}") from err
    return loads_scenario(text, str(path))


def loads_scenario(text: str, source: str = "<scenario>") -> Scenario:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ScenarioError(f"{source}: not valid YAML: {err}") from err
    if not isinstance(doc, dict):
        raise ScenarioError(f"{source}: a scenario is a mapping with id, setup and steps")
    unknown = set(doc) - {"id", "title", "rules", "setup", "steps", "expect", "notes"}
    if unknown:
        raise ScenarioError(f"{source}: unknown keys {sorted(map(str, unknown))}")
    for key in ("id", "setup", "steps"):
        if key not in doc:
            raise ScenarioError(f"{source}: '{key}' is missing")
    setup = _setup(doc["setup"], source)
    raw_steps = doc["steps"]
    if not isinstance(raw_steps, list) or not raw_steps:
        raise ScenarioError(f"{source}: 'steps' must be a non-empty list")
    steps = tuple(_step(raw, n, source, setup) for n, raw in enumerate(raw_steps, start=1))
    rules = doc.get("rules") or []
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ScenarioError(f"{source}: 'rules' must be a list of rule IDs")
    expect = _expect(doc.get("expect") or {}, source)
    if any(s.kind == "push" and s.args is None for s in steps) and expect.outcome.awards is None:
        raise ScenarioError(f"{source}: a bare 'push' needs expect.outcome.awards")
    return Scenario(
        id=str(doc["id"]),
        title=str(doc.get("title", "")),
        rules=tuple(rules),
        setup=setup,
        steps=steps,
        expect=expect,
        notes=str(doc.get("notes", "") or ""),
        source=source,
    )


def _seat(value: Any, where: str) -> int:
    if isinstance(value, str) and value[:1] in ("S", "s") and value[1:].isdigit():
        value = int(value[1:])
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise ScenarioError(f"{where}: {value!r} is not a seat 1..10 (or S1..S10)")
    return value


def _amount(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ScenarioError(f"{where}: {value!r} is not a chip amount")
    return value


def _seat_map(value: Any, where: str) -> dict[int, int]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: expected a mapping seat -> amount")
    return {_seat(k, where): _amount(v, where) for k, v in value.items()}


def _setup(raw: Any, source: str) -> Setup:
    where = f"{source}: setup"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: must be a mapping")
    unknown = set(raw) - {"seats", "button", "blinds", "ante", "ante_mode", "limit", "deck",
                          "seed", "variant", "enrolled", "stack_zones"}
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(map(str, unknown))}")
    seats = _seat_map(raw.get("seats"), f"{where}: seats")
    if len(seats) < 2 or any(v <= 0 for v in seats.values()):
        raise ScenarioError(f"{where}: seats needs at least two seats with chips")
    button = _seat(raw.get("button"), f"{where}: button")
    if button not in seats:
        raise ScenarioError(f"{where}: the button {button} is not a seated seat")
    blinds = raw.get("blinds", [100, 200])
    if not isinstance(blinds, list) or len(blinds) != 2:
        raise ScenarioError(f"{where}: blinds must be [small, big]")
    sb, bb = (_amount(b, f"{where}: blinds") for b in blinds)
    deck = raw.get("deck") or []
    if not isinstance(deck, list) or not all(isinstance(c, str) and is_card(c) for c in deck):
        raise ScenarioError(f"{where}: deck must be a list of cards like Ah, Td, 2c")
    if len(set(deck)) != len(deck):
        raise ScenarioError(f"{where}: deck names a card twice")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int):
        raise ScenarioError(f"{where}: seed must be an integer")
    enrolled = raw.get("enrolled") or {}
    if not isinstance(enrolled, dict) or not all(
            isinstance(k, str) and _NAME_RE.match(k) and isinstance(v, str) and is_card(v)
            for k, v in enrolled.items()):
        raise ScenarioError(f"{where}: enrolled maps tag names (like SECOND_AH) to cards")
    variant = raw.get("variant", "holdem")
    if variant not in VARIANTS:
        raise ScenarioError(f"{where}: variant must be one of {list(VARIANTS)}")
    stack_zones = raw.get("stack_zones", False)
    if not isinstance(stack_zones, bool):
        raise ScenarioError(f"{where}: stack_zones must be true or false")
    only = ONLY_LIMIT.get(variant)
    limit = str(raw.get("limit", only.value if only is not None else "no-limit"))
    if only is not None and limit != only.value:
        raise ScenarioError(f"{where}: {variant} is dealt {only.value} only, not {limit}")
    return Setup(
        seats=seats,
        button=button,
        variant=variant,
        small_blind=sb,
        big_blind=bb,
        ante=_amount(raw.get("ante", 0), f"{where}: ante"),
        ante_mode=str(raw.get("ante_mode", "each")),
        limit=limit,
        deck=tuple(deck),
        seed=seed,
        enrolled=dict(enrolled),
        stack_zones=stack_zones,
    )


def enrolled_tags(scenario: Scenario) -> dict[str, str]:
    """UID -> card of the scenario's extra enrolled tags: what a deck registry must add so the
    service sees them as cards of the deck in play (a duplicate, DECK-04)."""
    return {enrolled_uid(i): card
            for i, (_, card) in enumerate(sorted(scenario.setup.enrolled.items()), start=1)}


def enrolled_uid(i: int) -> str:
    return f"FFFFFFFE{i:08X}"


def _card_ref(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return f"#{value}"
    if isinstance(value, str) and (is_card(value) or INDEX_RE.match(value)
                                   or PACK_RE.match(value) or _NAME_RE.match(value)):
        return value
    raise ScenarioError(f"{where}: {value!r} is not a card (Ah, '#3', 'r2' or a tag name)")


def _card_list(value: Any, where: str, key: str) -> list[str]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where}: {key} must be a list of cards")
    refs = [_card_ref(c, where) for c in value]
    if len(set(refs)) != len(refs):
        raise ScenarioError(f"{where}: {key} names a card twice")
    return refs


def _zone(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in CARD_ZONES:
        raise ScenarioError(f"{where}: {value!r} is not a card zone (S1..S10, BOARD, BURN, MUCK)")
    return value


def _keys(
    args: Any, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    if not isinstance(args, dict):
        raise ScenarioError(f"{where}: expected a mapping with {sorted(required)}")
    missing = required - set(args)
    if missing:
        raise ScenarioError(f"{where}: missing {sorted(missing)}")
    unknown = set(args) - required - optional
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(map(str, unknown))}")
    return args


def _step(raw: Any, n: int, source: str, setup: Setup) -> Step:
    where = f"{source}: step {n}"
    if isinstance(raw, str):
        if raw not in BARE_STEPS:
            raise ScenarioError(f"{where}: {raw!r} is not a step without arguments "
                                f"({', '.join(sorted(BARE_STEPS))})")
        if raw == "antes" and setup.ante <= 0:
            raise ScenarioError(f"{where} (antes): a bare 'antes' needs setup.ante")
        return Step(n, raw)
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ScenarioError(f"{where}: a step is a name or a mapping with one key")
    kind, args = next(iter(raw.items()))
    if kind not in STEP_KINDS:
        raise ScenarioError(f"{where}: unknown step {kind!r}")
    where = f"{where} ({kind})"
    if kind in ("newhand", "gather", "collect"):
        if args is not None:
            raise ScenarioError(f"{where}: takes no arguments")
        return Step(n, kind)
    if kind == "deal":
        a = _keys(args, where, {"to"}, {"card", "face", "rounds"})
        zones = a["to"] if isinstance(a["to"], list) else [a["to"]]
        rounds = a.get("rounds", 1)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ScenarioError(f"{where}: rounds must be a positive number")
        checked: dict[str, Any] = {"to": [_zone(z, where) for z in zones], "rounds": rounds}
        if not zones:
            raise ScenarioError(f"{where}: to names no zone")
        if "card" in a:
            if len(zones) != 1 or rounds != 1:
                raise ScenarioError(f"{where}: a named card goes to one zone, once")
            checked["card"] = _card_ref(a["card"], where)
        face = a.get("face", "down")
        if face not in ("up", "down"):
            raise ScenarioError(f"{where}: face must be up or down")
        checked["face"] = "U" if face == "up" else "D"
        return Step(n, kind, checked)
    if kind in ("arrive", "depart"):
        a = _keys(args, where, {"zone", "card"})
        return Step(n, kind, {"zone": _zone(a["zone"], where),
                              "card": _card_ref(a["card"], where)})
    if kind == "move":
        a = _keys(args, where, {"to"}, {"card", "cards"})
        cards = a.get("cards", [a["card"]] if "card" in a else None)
        if not isinstance(cards, list) or not cards:
            raise ScenarioError(f"{where}: needs card or cards")
        return Step(n, kind, {"to": _zone(a["to"], where),
                              "cards": [_card_ref(c, where) for c in cards]})
    if kind == "return":
        a = _keys(args, where, {"card"}, {"where"})
        side = a.get("where", "top")
        if side not in ("top", "bottom"):
            raise ScenarioError(f"{where}: where must be top or bottom")
        return Step(n, kind, {"card": _card_ref(a["card"], where),
                              "where": "T" if side == "top" else "B"})
    if kind == "bet":
        a = _keys(args, where, {"seat", "to"})
        seat = _seat(a["seat"], where)
        if seat not in setup.seats:
            raise ScenarioError(f"{where}: seat {seat} is empty")
        return Step(n, kind, {"seat": seat, "to": _amount(a["to"], where)})
    if kind in ("check", "fold"):
        seat = _seat(args, where)
        if seat not in setup.seats:
            raise ScenarioError(f"{where}: seat {seat} is empty")
        return Step(n, kind, seat)
    if kind == "console":
        if not isinstance(args, list) or not args:
            raise ScenarioError(f"{where}: expected [NAME, args...]")
        name, *rest = args
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise ScenarioError(f"{where}: {name!r} is not a button NAME (A-Z, 0-9, _)")
        out = [str(x) for x in rest]
        bad = [x for x in out if not _ARG_RE.match(x)]
        if bad:
            raise ScenarioError(f"{where}: arguments {bad} cannot go into a frame")
        return Step(n, kind, [name, *out])
    if kind == "antes":
        if args is None:
            if setup.ante <= 0:
                raise ScenarioError(f"{where}: a bare 'antes' needs setup.ante")
            return Step(n, kind)
        antes = _seat_map(args, where)
        empty = sorted(set(antes) - set(setup.seats))
        if empty:
            raise ScenarioError(f"{where}: seats {empty} are empty")
        return Step(n, kind, antes)
    if kind == "reshuffle":
        if setup.variant != "draw5":
            raise ScenarioError(f"{where}: a reshuffle of the stub belongs to five-card draw "
                                "(setup.variant: draw5)")
        a = _keys(args, where, {"cards"}, {"order"})
        checked = {"cards": _card_list(a["cards"], where, "cards")}
        if "order" in a:
            checked["order"] = _card_list(a["order"], where, "order")
        return Step(n, kind, checked)
    if kind == "lose":
        a = _keys(args, where, {"card"})
        return Step(n, kind, {"card": _card_ref(a["card"], where)})
    if kind == "scan":
        a = _keys(args, where, set(), {"without"})
        return Step(n, kind, {"without": _card_list(a.get("without", []), where, "without")})
    if kind == "stray_chip":
        a = _keys(args, where, {"zone"})
        zone = a["zone"]
        if not isinstance(zone, str) or not (zone == "POT" or (
                zone[:1] == "B" and zone[1:].isdigit() and 1 <= int(zone[1:]) <= 10)):
            raise ScenarioError(f"{where}: {zone!r} is not a chip zone (B1..B10, POT)")
        return Step(n, kind, {"zone": zone})
    if kind in ("stack_take", "stack_add", "stack_transfer"):
        return _stack_step(args, n, kind, where, setup)
    if kind == "unknown_tag":
        a = _keys(args, where, {"to"}, {"name"})
        name = a.get("name", "JOKER")
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise ScenarioError(f"{where}: name must be a word like JOKER")
        return Step(n, kind, {"to": _zone(a["to"], where), "name": name})
    # push
    if args is None:
        return Step(n, kind)
    return Step(n, kind, _seat_map(args, where))


def _stack_step(args: Any, n: int, kind: str, where: str, setup: Setup) -> Step:
    """A stack changed outside the rules: ``{seat, amount}``, a transfer ``{from, to,
    amount}``; only where the stacks lie in stack zones."""
    if not setup.stack_zones:
        raise ScenarioError(f"{where}: a stack changed outside the rules is seen only in stack "
                            "zones (setup.stack_zones: true)")
    seat_keys = ("from", "to") if kind == "stack_transfer" else ("seat",)
    a = _keys(args, where, {*seat_keys, "amount"})
    amount = _amount(a["amount"], where)
    if amount == 0:
        raise ScenarioError(f"{where}: amount must be more than 0")
    checked: dict[str, int] = {"amount": amount}
    for key in seat_keys:
        seat = _seat(a[key], where)
        if seat not in setup.seats:
            raise ScenarioError(f"{where}: seat {seat} is empty")
        checked[key] = seat
    if kind == "stack_transfer" and checked["from"] == checked["to"]:
        raise ScenarioError(f"{where}: a transfer goes from one seat to another")
    return Step(n, kind, checked)


def _expect(raw: Any, source: str) -> Expectation:
    where = f"{source}: expect"
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: must be a mapping")
    alerts: list[ExpectedAlert] = []
    for i, a in enumerate(raw.get("alerts") or [], start=1):
        w = f"{where}: alert {i}"
        a = _keys(a, w, {"name", "severity"}, {"seat", "rule"})
        if a["severity"] not in SEVERITIES:
            raise ScenarioError(f"{w}: severity must be one of {list(SEVERITIES)}")
        alerts.append(ExpectedAlert(
            str(a["name"]), a["severity"],
            _seat(a["seat"], w) if a.get("seat") is not None else None,
            str(a["rule"]) if a.get("rule") is not None else None,
        ))
    out = _keys(raw.get("outcome") or {}, f"{where}: outcome", set(),
                {"reason", "stacks", "awards"})
    reason = out.get("reason")
    if reason is not None and reason not in REASONS:
        raise ScenarioError(f"{where}: outcome reason must be one of {list(REASONS)}")
    stacks = _seat_map(out["stacks"], f"{where}: stacks") if "stacks" in out else None
    awards: tuple[tuple[int, dict[int, int]], ...] | None = None
    if "awards" in out:
        if not isinstance(out["awards"], list):
            raise ScenarioError(f"{where}: awards must be a list of {{amount, shares}}")
        items = []
        for i, a in enumerate(out["awards"], start=1):
            w = f"{where}: award {i}"
            a = _keys(a, w, {"amount", "shares"})
            items.append((_amount(a["amount"], w), _seat_map(a["shares"], w)))
        awards = tuple(items)
    return Expectation(tuple(alerts), Outcome(reason, stacks, awards))
