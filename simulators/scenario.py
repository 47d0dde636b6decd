"""Test scenarios (RULES.md §4): a hand with injected errors, played physically.

A scenario file (YAML, ``simulators/scenarios/*.yaml``) says who sits where, then lists the
physical actions of the hand in order: cards out of the shoe, cards moved by hand, chips into
bet zones, console buttons. ``play_scenario`` does exactly those actions on the virtual
devices, so the frames on the wire are what the antennas would report. Nothing here judges
the hand: ``expect`` (the alerts and outcome RULES.md §4 states) is data for the tests.

Format (every key but ``id``, ``setup`` and ``steps`` is optional)::

    id: T01
    title: Clean hand
    rules: [SHOW-01]
    setup:
      variant: holdem             # or draw5 (five-card draw, docs/DRAW.md)
      seats: {1: 10000, 2: 10000, 3: 10000, 4: 10000}
      button: 4                   # in draw5: the dealer
      blinds: [100, 200]          # also: ante, ante_mode, limit
      deck: [Ah, 7c, Kd]          # first cards out of the shoe; the rest follow shuffled
      seed: 1                     # the shuffle of the rest, and of reshuffled packs
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
    expect:
      alerts: [{name: card_exposed, severity: warning, seat: 2, rule: EXPOSE-02}]
      outcome: {reason: showdown, stacks: {1: 27600}, awards: [{amount: 900, shares: {1: 900}}]}

Cards are named ``Ah``, ``#k`` (the k-th card out of the shoe in this hand, as RULES.md
writes them) or ``rK`` (the K-th card of the last reshuffled pack, as RULES.md T23 names
them). The cards of a new pack are counted on: the first one dealt from it is #(cards out
so far + 1). Inside a ``reshuffle`` step, ``#k`` past the cards out names a card still in the
shoe (``#52`` is the bottom card once 51 are out), so ``order`` can place it. Seats are ``3``
or ``S3``. A bare ``push`` pushes what ``expect.outcome.awards`` says, and what they leave in the
pot (a bet nobody called) to the first of them. Outcome reasons:
showdown, uncontested, misdeal, cancelled, and checked_out (a draw game checked around: the
pot stays for the next game).
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from simulators.chips import ChipPile, deal_stacks
from simulators.decks import is_card
from simulators.device import VirtualDevice
from simulators.felt import MAX_ZONE_CHIPS, Pacer
from simulators.table import VirtualTable

__all__ = [
    "Expectation",
    "ExpectedAlert",
    "Outcome",
    "Scenario",
    "ScenarioError",
    "ScenarioPlayer",
    "Setup",
    "Step",
    "enrolled_tags",
    "load_scenario",
    "loads_scenario",
    "play_scenario",
    "scenario_files",
]

SCENARIO_DIR = Path(__file__).parent / "scenarios"
CARD_ZONES = frozenset({*(f"S{s}" for s in range(1, 11)), "BOARD", "BURN", "MUCK"})
SEVERITIES = ("info", "warning", "critical")
REASONS = ("showdown", "uncontested", "misdeal", "cancelled", "checked_out")
VARIANTS = ("holdem", "draw5")
BARE_STEPS = frozenset({"newhand", "gather", "collect", "push", "antes"})
STEP_KINDS = frozenset(
    {
        *BARE_STEPS,
        "deal", "arrive", "depart", "move", "return", "bet", "check", "fold", "console",
        "unknown_tag", "reshuffle", "lose", "scan", "stray_chip",
    }
)
_NAME_RE = re.compile(r"[A-Z][A-Z0-9_]{0,31}\Z")
_ARG_RE = re.compile(r"[^$,*\r\n]{1,64}\Z")
_INDEX_RE = re.compile(r"#([1-9][0-9]?)\Z")
_PACK_RE = re.compile(r"r([1-9][0-9]?)\Z")


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
                          "seed", "variant", "enrolled"}
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
    return Setup(
        seats=seats,
        button=button,
        variant=variant,
        small_blind=sb,
        big_blind=bb,
        ante=_amount(raw.get("ante", 0), f"{where}: ante"),
        ante_mode=str(raw.get("ante_mode", "each")),
        limit=str(raw.get("limit", "no-limit")),
        deck=tuple(deck),
        seed=seed,
        enrolled=dict(enrolled),
    )


def enrolled_tags(scenario: Scenario) -> dict[str, str]:
    """UID -> card of the scenario's extra enrolled tags: what a deck registry must add so the
    service sees them as cards of the deck in play (a duplicate, DECK-04)."""
    return {_enrolled_uid(i): card
            for i, (_, card) in enumerate(sorted(scenario.setup.enrolled.items()), start=1)}


def _enrolled_uid(i: int) -> str:
    return f"FFFFFFFE{i:08X}"


def _card_ref(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return f"#{value}"
    if isinstance(value, str) and (is_card(value) or _INDEX_RE.match(value)
                                   or _PACK_RE.match(value) or _NAME_RE.match(value)):
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


# playing ------------------------------------------------------------------------------------


class ScenarioPlayer:
    """Does a scenario's steps with real tags: its own shoe, card positions and chip piles.

    Card positions are kept here rather than on the table's felt because a scenario moves
    cards in ways a careful dealer never does (a card held in the hand, a card back into the
    shoe). Stacks are made from ``chips`` (the table's chip set), so every inventory the chip
    reader reports adds up exactly.
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        deck: Mapping[str, str],
        chips: Mapping[str, int],
        scenario: Scenario,
        *,
        pace: float = 0.0,
        stop: threading.Event | None = None,
    ) -> None:
        missing = {"cards", "chips", "console"} - set(devices)
        if missing:
            raise ValueError(f"a scenario needs the devices {sorted(missing)}")
        self.scenario = scenario
        self._shoe_dev = devices.get("shoe")
        self._cards = devices["cards"]
        self._chips = devices["chips"]
        self._console = devices["console"]
        self._pacer = Pacer(pace, stop)
        self._lock = threading.RLock()
        self._deck = dict(deck)
        self._uid_of = {card: uid for uid, card in deck.items()}
        self._values = dict(chips)
        self._float = ChipPile(self._values, self._values)
        self.stacks = deal_stacks(self._float, scenario.setup.seats)
        self._zones: dict[str, ChipPile] = {}
        self._rng = random.Random(scenario.setup.seed)
        self._tags: dict[str, str] = {}
        self._where: dict[str, str | None] = {}
        self._drawn: list[str] = []
        self._shoe: list[str] = []
        self._pack: list[str] = []
        """The last reshuffled pack, top first: what ``rK`` names."""
        self._fresh: set[str] = set()
        """Cards of that pack not dealt from it yet: each gets a new index when it is."""
        self._hands = 0
        self.step: Step | None = None

    # helpers ---------------------------------------------------------------------------------

    def _fail(self, problem: str) -> ScenarioError:
        step = self.step
        at = f"step {step.number} ({step.kind})" if step is not None else "setup"
        return ScenarioError(f"{self.scenario.source}: {at}: {problem}")

    def _uid(self, ref: str, ahead: bool = False) -> str:
        """The tag ``ref`` names; ``ahead``: ``#k`` may name a card still in the shoe."""
        m = _INDEX_RE.match(ref)
        if m:
            k = int(m.group(1))
            out = len(self._drawn)
            if ahead and out < k <= out + len(self._shoe):
                return self._shoe[k - out - 1]
            if k > out:
                raise self._fail(f"card {ref}: only {out} cards are out")
            return self._drawn[k - 1]
        m = _PACK_RE.match(ref)
        if m:
            k = int(m.group(1))
            if k > len(self._pack):
                raise self._fail(f"card {ref}: the last reshuffled pack holds "
                                 f"{len(self._pack)} cards")
            return self._pack[k - 1]
        if ref in self._uid_of:
            return self._uid_of[ref]
        if ref in self._tags:
            return self._tags[ref]
        raise self._fail(f"no card {ref!r} in the deck in play")

    def _shuffle(self) -> None:
        order = list(self.scenario.setup.deck) if self._hands == 0 else []
        rest = [c for c in self._uid_of if c not in set(order)]
        self._rng.shuffle(rest)
        self._shoe = [self._uid_of[c] for c in order + rest]
        self._drawn = []
        self._pack = []
        self._fresh = set()
        self._hands += 1

    def _note_drawn(self, uid: str) -> None:
        """Number a card leaving the shoe: a card put back keeps its index (RULES.md §2.1), a
        card of a reshuffled pack is counted anew."""
        if uid in self._fresh:
            self._fresh.discard(uid)
            self._drawn.append(uid)
        elif uid not in self._drawn:
            self._drawn.append(uid)

    def _arr(self, zone: str, uid: str) -> None:
        self._cards.send("ARR", zone, uid)
        self._where[uid] = zone

    def _dep(self, uid: str) -> None:
        zone = self._where.get(uid)
        if zone is not None:
            self._cards.send("DEP", zone, uid)
        self._where[uid] = None

    def _draw(self, uid: str, face: str) -> None:
        if uid in self._where:
            raise self._fail(f"card {self._deck.get(uid, uid)} is not in the shoe")
        if uid in self._shoe:
            self._shoe.remove(uid)
        if self._shoe_dev is not None:
            self._shoe_dev.send("DRAW", uid, face)
        self._note_drawn(uid)

    def _set_chips(self, zone: str, pile: ChipPile) -> None:
        if not pile.colour_up(self._float, MAX_ZONE_CHIPS):
            raise self._fail(f"cannot keep {zone} within {MAX_ZONE_CHIPS} chips")
        self._zones[zone] = pile
        self._chips.send("CHIPS", zone, " ".join(pile.uids))

    def _zone(self, zone: str) -> ChipPile:
        return self._zones.setdefault(zone, ChipPile(self._values))

    def refresh_chips(self) -> None:
        """Repeat every inventory, as a chip reader does at least every 2 s."""
        with self._lock:
            for zone, pile in self._zones.items():
                self._chips.send("CHIPS", zone, " ".join(pile.uids))

    # the steps -------------------------------------------------------------------------------

    def play(self) -> None:
        for step in self.scenario.steps:
            self.step = step
            self._pacer.step()
            with self._lock:
                getattr(self, f"_do_{step.kind}")(step.args)
        self.step = None

    def _do_newhand(self, args: Any) -> None:
        stray = {self._deck.get(u, u): z for u, z in self._where.items() if z != "MUCK"}
        if stray:
            raise self._fail(f"cards not collected before the shuffle: {stray}")
        self._where.clear()
        self._shuffle()
        self._console.send("BTN", "NEWHAND")

    def _do_deal(self, args: dict[str, Any]) -> None:
        for turn in range(args["rounds"]):
            for i, zone in enumerate(args["to"]):
                if turn or i:
                    self._pacer.step()  # one card at a time
                if not self._shoe and "card" not in args:
                    raise self._fail("the shoe is empty (press NEWHAND first)")
                uid = self._uid(args["card"]) if "card" in args else self._shoe[0]
                self._draw(uid, args["face"])
                self._arr(zone, uid)

    def _do_antes(self, args: dict[int, int] | None) -> None:
        """Antes straight into the pot, on top of whatever lies there: one inventory."""
        setup = self.scenario.setup
        antes = args if args is not None else dict.fromkeys(setup.seats, setup.ante)
        pot = self._zone("POT")
        for seat, amount in antes.items():
            stack = self.stacks[seat]
            if amount > stack.value:
                raise self._fail(f"seat {seat} has {stack.value}, cannot ante {amount}")
            pot.add(stack.take(amount, self._float))
        self._set_chips("POT", pot)

    def _do_reshuffle(self, args: dict[str, list[str]]) -> None:
        """The named cards and what is left in the shoe become the new pack (DRAW-05)."""
        taken = [self._uid(ref) for ref in args["cards"]]
        order = [self._uid(ref, ahead=True) for ref in args.get("order", [])]
        for ref, uid in zip(args["cards"], taken, strict=True):
            if self._where.get(uid) is None:
                raise self._fail(f"card {ref} is not on the table")
        for uid in taken:
            self._dep(uid)
            del self._where[uid]
        pack = taken + self._shoe
        if order:
            if sorted(order) != sorted(pack):
                names = [self._deck.get(u, u) for u in pack]
                raise self._fail(f"order must list exactly the cards of the pack: {names}")
            pack = order
        else:
            self._rng.shuffle(pack)
        self._shoe = list(pack)
        self._pack = list(pack)
        self._fresh = set(pack)
        if self._shoe_dev is not None:
            self._shoe_dev.send("DECK", " ".join(pack))

    def _do_lose(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid not in self._where:
            raise self._fail(f"card {args['card']} is not on the table")
        self._dep(uid)
        del self._where[uid]  # gone: no antenna will read it again

    def _do_scan(self, args: dict[str, Any]) -> None:
        if self._shoe_dev is None:
            raise self._fail("a deck scan needs the shoe")
        gone = {self._uid(c) for c in args["without"]}
        self._shoe_dev.send("DECK", " ".join(u for u in self._deck if u not in gone))

    def _do_stray_chip(self, args: dict[str, Any]) -> None:
        zone = args["zone"]
        stray = "FFFFFFFD00000001"  # a chip no registry knows
        self._chips.send("CHIPS", zone, " ".join([*self._zone(zone).uids, stray]))

    def _do_unknown_tag(self, args: dict[str, Any]) -> None:
        name = args["name"]
        enrolled = sorted(self.scenario.setup.enrolled)
        if name in enrolled:
            self._tags[name] = _enrolled_uid(enrolled.index(name) + 1)
        if name not in self._tags:
            n = len(self._tags) + 1
            uid = f"FFFFFFFF{n:08X}"
            while uid in self._deck or uid in self._values:
                n += 1
                uid = f"FFFFFFFF{n:08X}"
            self._tags[name] = uid
        uid = self._tags[name]
        if self._shoe_dev is not None:
            self._shoe_dev.send("DRAW", uid, "D")
        self._note_drawn(uid)
        self._arr(args["to"], uid)

    def _do_arrive(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid in self._shoe:  # no shoe read: the first ARR is the card's exit
            self._shoe.remove(uid)
            self._note_drawn(uid)
        self._arr(args["zone"], uid)

    def _do_depart(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if self._where.get(uid) != args["zone"]:
            raise self._fail(f"card {args['card']} is not in {args['zone']}")
        self._dep(uid)

    def _do_move(self, args: dict[str, Any]) -> None:
        for ref in args["cards"]:
            uid = self._uid(ref)
            if uid not in self._where:
                raise self._fail(f"card {ref} is not on the table")
            if self._where.get(uid) != args["to"]:
                self._dep(uid)
                self._arr(args["to"], uid)

    def _do_return(self, args: dict[str, Any]) -> None:
        uid = self._uid(args["card"])
        if uid not in self._where:
            raise self._fail(f"card {args['card']} is not on the table")
        self._dep(uid)
        del self._where[uid]
        if self._shoe_dev is not None:
            self._shoe_dev.send("RET", uid, args["where"])
        if args["where"] == "T":
            self._shoe.insert(0, uid)
        else:
            self._shoe.append(uid)

    def _do_fold(self, seat: int) -> None:
        held = [u for u, z in self._where.items() if z == f"S{seat}"]
        if not held:
            raise self._fail(f"seat {seat} has no cards to fold")
        if self.scenario.setup.variant == "draw5":
            self._console.send("BTN", "FOLD", str(seat))  # the dealer confirms it
        for uid in held:
            self._dep(uid)
            self._arr("MUCK", uid)

    def _do_collect(self, args: Any) -> None:
        zones = [f"S{s}" for s in sorted(self.scenario.setup.seats)] + ["BOARD", "BURN"]
        for zone in zones:
            for uid in [u for u, z in self._where.items() if z == zone]:
                self._dep(uid)
                self._arr("MUCK", uid)
        lost = [self._deck.get(u, u) for u, z in self._where.items() if z is None]
        if lost:
            raise self._fail(f"cards still in the dealer's hand: {lost}")

    def _do_check(self, seat: int) -> None:
        self._console.send("BTN", "CHECK", str(seat))

    def _do_console(self, args: list[str]) -> None:
        name, *rest = args
        fields = [self._uid(a)
                  if is_card(a) or _INDEX_RE.match(a) or _PACK_RE.match(a) or a in self._tags
                  else a
                  for a in rest]
        self._console.send("BTN", name, *fields)

    def _do_bet(self, args: dict[str, int]) -> None:
        seat, to = args["seat"], args["to"]
        zone = f"B{seat}"
        pile = self._zone(zone)
        stack = self.stacks[seat]
        have = pile.value
        if to > have:
            if to - have > stack.value:
                raise self._fail(f"seat {seat} has {stack.value}, cannot bet {to - have} more")
            pile.add(stack.take(to - have, self._float))
        elif to < have:
            stack.add(pile.take(have - to, self._float))
        else:
            return
        self._set_chips(zone, pile)

    def _do_gather(self, args: Any) -> None:
        zones = [z for z, p in self._zones.items() if z.startswith("B") and p.uids]
        if not zones:
            return
        pot = self._zone("POT")
        for zone in sorted(zones, key=lambda z: int(z[1:])):
            pot.add(self._zones[zone].take_all())
            self._set_chips(zone, self._zones[zone])
        self._set_chips("POT", pot)

    def _do_push(self, args: dict[int, int] | None) -> None:
        if args is None:
            shares: dict[int, int] = {}
            for _, split in self.scenario.expect.outcome.awards or ():
                for seat, amount in split.items():
                    shares[seat] = shares.get(seat, 0) + amount
        else:
            shares = dict(args)
        pot = self._zone("POT")
        if sum(shares.values()) > pot.value:
            raise self._fail(f"pushes of {sum(shares.values())} but the pot holds {pot.value}")
        if args is None and shares and pot.value > sum(shares.values()):
            # what the awards leave in the pot is a bet nobody called: it goes back with the
            # push, to the seat that won (in an uncontested hand, its owner)
            first = next(iter(shares))
            shares[first] += pot.value - sum(shares.values())
        for seat, amount in shares.items():
            if seat not in self.stacks:
                raise self._fail(f"seat {seat} is empty")
            self.stacks[seat].add(pot.take(amount, self._float))
            self._set_chips("POT", pot)


def play_scenario(
    target: VirtualTable | Mapping[str, VirtualDevice],
    scenario: Scenario,
    *,
    deck: Mapping[str, str] | None = None,
    chips: Mapping[str, int] | None = None,
    pace: float = 0.0,
    stop: threading.Event | None = None,
) -> dict[int, int]:
    """Do the scenario's steps on a virtual table's devices (or on ``devices`` with the given
    ``deck`` and ``chips`` registries); returns the stacks the players hold afterwards.

    Raises ``ScenarioError`` naming the file and the step when a step cannot be done (a card
    that is not where the step says, a bet larger than the stack...).
    """
    if isinstance(target, VirtualTable):
        devices: Mapping[str, VirtualDevice] = target.felt.devices
        deck = target.deck if deck is None else deck
        chips = target.chip_values if chips is None else chips
    else:
        devices = target
    if deck is None or chips is None:
        raise ValueError("playing on bare devices needs the deck and chips registries")
    player = ScenarioPlayer(devices, deck, chips, scenario, pace=pace, stop=stop)
    player.play()
    return {s: p.value for s, p in sorted(player.stacks.items())}

