"""Events (DESIGN §8), defined once as pydantic models.

Every event carries the envelope ``v, venue, table, seq, ts, hand, type``. ``seq`` is one
sequence per table across both feeds, so a replay orders everything totally; ``prev_seq`` is
the seq of the previous event *on the same feed*, which lets a subscriber of only the public
feed tell a secure event's number from a lost message.

Which feed an event goes to is a property of its type: hole cards, alert evidence and equities
are secure, everything else is public.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import UnionType
from typing import Any, ClassVar, Literal, Self, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field

Feed = Literal["public", "secure"]
Street = Literal["preflop", "flop", "turn", "river"]


class Trusted(BaseModel):
    """A model the core builds from values it already holds (see ``trusted``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def trusted(cls, **fields: Any) -> Self:
        """The model ``cls(**fields)`` would make, without validating the values again.

        For the core, which builds every event from values it already holds with the right
        types: validating them again was the larger part of building an event. Defaults,
        the set of fields given, and fresh copies of lists and dicts are as validation makes
        them, so the model and its JSON are the same in every byte (``tests/unit/
        test_events.py`` builds every type the core emits both ways and compares). A field
        missing or unknown is not trusted: ``cls(**fields)`` then raises the usual error.
        """
        return cls.trusted_from(fields)

    @classmethod
    def trusted_from(cls, fields: dict[str, Any]) -> Self:
        """``trusted(**fields)`` from a dict the caller gives up: the emitter's own, which it
        fills with the envelope (spares building the keyword arguments again)."""
        plan = _PLANS.get(cls) or _plan_of(cls)
        data = {**plan.template, **fields}
        if len(data) != plan.size or not plan.required <= fields.keys():
            return cls(**fields)
        for name, fresh in plan.copies:
            if name in fields:
                data[name] = fresh(data[name])
        for name, factory in plan.factories:
            if name not in fields:
                data[name] = factory()
        model = _new(cls)
        _set_dict(model, data)
        _set_fields_set(model, set(fields))
        _set_extra(model, None)
        _set_private(model, None)
        return model


class Event(Trusted):
    """The envelope every event shares."""

    FEED: ClassVar[Feed] = "public"

    v: Literal[1] = 1
    venue: str
    table: str
    seq: int = Field(ge=1, description="per table, strictly increasing, never reused")
    prev_seq: int | None = Field(
        None, description="seq of the previous event on the same feed; a gap check per feed"
    )
    ts: str = Field(description="timestamp of the input that caused the event (UTC, ms)")
    hand: int | None = Field(description="hand number at this table; null outside a hand")
    type: str

    def model_dump_json(self, **kwargs: Any) -> str:
        """The event's JSON, as pydantic writes it.

        Without arguments this calls the model's serializer directly: the same bytes,
        without the wrapper that spelled out every default option for each event published.
        """
        if kwargs:
            return super().model_dump_json(**kwargs)
        return self.__pydantic_serializer__.to_json(self).decode()


class ServiceStarted(Event):
    type: Literal["service_started"] = "service_started"
    version: str
    boot: int = Field(description="how many times this table's service has started")


class Counters(Trusted):
    ok: int = 0
    bad: int = Field(0, description="bad_crc + malformed + too_long + garbage + unknown_type")
    lost: int = 0
    bad_crc: int = 0
    malformed: int = 0
    too_long: int = 0
    garbage: int = 0
    unknown_type: int = 0
    duplicate: int = 0


class DeviceStatus(Event):
    type: Literal["device_status"] = "device_status"
    device: str
    kind: str
    state: Literal["online", "stale", "offline"]
    model: str | None = None
    firmware: str | None = None
    counters: Counters
    detail: str = ""


class SeatInfo(Trusted):
    seat: int
    name: str
    stack: int
    unverified: bool = Field(
        False, exclude_if=lambda v: not v,
        description="present (true) when an untracked hand may have changed the stack and no "
        "chip count (cmd/stacks) has confirmed it yet")


class HandStarted(Event):
    type: Literal["hand_started"] = "hand_started"
    variant: str = Field(description="the game: holdem, draw5, omaha, ... (``[game] variant``)")
    limit: str
    button: int
    small_blind_seat: int | None
    big_blind_seat: int | None
    seats: list[SeatInfo]
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    carried_pot: int = Field(0, description="draw5: a pot carried over from a checked-out "
                             "game (POT-10), already in the middle")


class CardDealt(Event):
    type: Literal["card_dealt"] = "card_dealt"
    seat: int
    n: int = Field(description="1 for the seat's first card, 2 for its second, ...")
    index: int = Field(description="deck index: the card's place in this hand's deal sequence")
    face_up: bool
    card: str | None = Field(None, description="only when the card was dealt face up")


class HoleCards(Event):
    FEED: ClassVar[Feed] = "secure"
    type: Literal["hole_cards"] = "hole_cards"
    seat: int
    cards: list[str]


class Burn(Event):
    type: Literal["burn"] = "burn"
    before: Literal["flop", "turn", "river", "draw"]
    index: int


class Board(Event):
    type: Literal["board"] = "board"
    street: Literal["flop", "turn", "river"]
    cards: list[str]
    board: list[str]


class Action(Event):
    type: Literal["action"] = "action"
    seat: int
    action: Literal[
        "post_small_blind", "post_big_blind", "post_ante", "check", "call", "bet", "raise",
        "all_in", "fold",
    ]
    amount: int = 0
    to: int = 0
    stack: int
    pot: int


class Showdown(Event):
    """One player's hand at the showdown, in showing order (SHOW-01/02).

    ``cards`` and ``rank`` are public only for a hand that must be tabled (a winner, an all-in
    showdown, or a hand at least as good as the best shown before it). A losing hand the
    player may muck unseen stays hidden here; broadcast has it on the secure feed.
    """

    type: Literal["showdown"] = "showdown"
    seat: int
    order: int = Field(description="1 for the first to show")
    tabled: bool
    cards: list[str] | None = None
    rank: str | None = Field(None, description="the hand in words, e.g. 'two pair, kings'")


class PotAwarded(Event):
    type: Literal["pot_awarded"] = "pot_awarded"
    pot: str = Field(description="'main', or 'side 1', 'side 2', ...")
    amount: int
    seats: list[int]
    shares: dict[str, int] = Field(description="seat -> chips")
    odd_chip_seat: int | None = None
    uncontested: bool = False


class Draw(Event):
    """Five-card draw: one player's exchange (DRAW-02). Counts only: the cards are secret."""

    type: Literal["draw"] = "draw"
    seat: int
    discarded: int
    received: int


class HandHistory(Event):
    """The finished hand as a PHH file (hole cards included, so secure)."""

    FEED: ClassVar[Feed] = "secure"
    type: Literal["hand_history"] = "hand_history"
    format: Literal["phh"] = "phh"
    phh: str


class HandEnded(Event):
    type: Literal["hand_ended"] = "hand_ended"
    reason: Literal["showdown", "uncontested", "misdeal", "cancelled", "checked_out",
                    "untracked"]
    stacks: list[SeatInfo]
    board: list[str]
    cards_used: int = Field(description="cards that left the deck in this hand")
    carried_pot: int = Field(0, description="checked_out (draw5): the pot that stays in the "
                             "middle for the next game (POT-10)")


class Alert(Event):
    type: Literal["alert"] = "alert"
    id: str
    name: str = Field(description="alert name from RULES.md §5")
    rule: str = Field(description="rule ID from RULES.md")
    severity: Literal["info", "warning", "critical"]
    seat: int | None = None
    message: str = Field(description="plain English; never a hidden card")
    remedy: str = ""


class AlertDetail(Event):
    FEED: ClassVar[Feed] = "secure"
    type: Literal["alert_detail"] = "alert_detail"
    id: str
    cards: list[str] = Field(default_factory=list)
    evidence: dict[str, Any] = Field(default_factory=dict)


class EquitySeat(BaseModel):
    """One live seat's chances, in percent of the deals still possible."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: int
    win: float | None = Field(description="percent of the boards this seat wins alone; null "
                              "in five-card draw before the draw")
    tie: float | None = Field(description="percent of the pot this seat gets from boards it "
                              "splits (a split among k players counts 1/k): win + tie over "
                              "the live seats is 100")
    outs: list[str] | None = Field(None, description="on the turn: the river cards that make "
                                   "this seat win or tie")
    hand: str | None = Field(None, description="the seat's best hand now, in words (from the "
                             "flop on; five-card draw: its five cards)")


class Equity(Event):
    """Win probabilities of the live hands (secure: they are derived from the hole cards).

    Computed off the pipeline from a request the core makes when the hand changes (the deal
    complete, a street, a fold; in draw the deal and the draw) and journalled as an input, so
    a replay gives the very same event without computing anything.
    """

    FEED: ClassVar[Feed] = "secure"
    type: Literal["equity"] = "equity"
    street: Literal["preflop", "flop", "turn", "river", "predraw", "postdraw"]
    method: Literal["exact", "sampled", "none"] = Field(
        description="exact: every possible board counted; sampled: random boards; none: "
        "five-card draw before the draw (each seat's hand only)")
    samples: int = Field(description="boards counted (exact) or drawn (sampled)")
    error: float | None = Field(None, description="sampled: the largest half-width of a "
                                "99.7 % confidence interval over the figures, in percent")
    dead: int = Field(0, description="cards known to be out of play and left out of the "
                      "deck (folded hands, burns); 0 with [broadcast] equity_dead_cards = none")
    seats: list[EquitySeat]


@dataclass(frozen=True, slots=True)
class _Plan:
    """How ``Trusted.trusted`` fills one model: what validation would do, worked out once."""

    template: dict[str, Any]
    """Every field in declaration order, with its default (``None`` when required)."""
    size: int
    required: frozenset[str]
    copies: tuple[tuple[str, Callable[[Any], Any]], ...]
    """Fields given as lists or dicts: validation stores a copy, never the caller's object."""
    factories: tuple[tuple[str, Callable[[], Any]], ...]


_PLANS: dict[type[Trusted], _Plan] = {}
_new = object.__new__
_set_dict, _set_fields_set, _set_extra, _set_private = (
    vars(BaseModel)[name].__set__ for name in (
        "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))
"""Setters of the four slots of every pydantic model, which ``model_construct`` fills too."""


def _plan_of(cls: type[Trusted]) -> _Plan:
    template: dict[str, Any] = {}
    required: set[str] = set()
    copies: list[tuple[str, Callable[[Any], Any]]] = []
    factories: list[tuple[str, Callable[[], Any]]] = []
    for name, info in cls.model_fields.items():
        template[name] = None
        if info.is_required():
            required.add(name)
        elif info.default_factory is None and isinstance(info.default, _IMMUTABLE):
            template[name] = info.default
        else:  # a factory, or a mutable default pydantic copies for each model
            factories.append((name, partial(info.get_default, call_default_factory=True)))
        fresh = _copy_of(info.annotation)
        if fresh is not None:
            copies.append((name, fresh))
    plan = _Plan(template, len(template), frozenset(required), tuple(copies), tuple(factories))
    _PLANS[cls] = plan
    return plan


_IMMUTABLE = (str, int, float, bool, type(None), tuple, frozenset)


def _copy_of(annotation: Any) -> Callable[[Any], Any] | None:
    """How validation copies a value of this type: lists and dicts are new objects."""
    origin = get_origin(annotation)
    if origin is list or origin is dict:
        return origin
    if origin is UnionType or origin is Union:
        inner = [a for a in get_args(annotation) if a is not type(None)]
        fresh = _copy_of(inner[0]) if len(inner) == 1 else None
        if fresh is not None:
            return partial(_unless_none, fresh)
    return None


def _unless_none(fresh: Callable[[Any], Any], value: Any) -> Any:
    return None if value is None else fresh(value)


EVENT_TYPES: tuple[type[Event], ...] = (
    ServiceStarted, DeviceStatus, HandStarted, CardDealt, HoleCards, Burn, Board, Action,
    Showdown, PotAwarded, Draw, HandEnded, HandHistory, Alert, AlertDetail, Equity,
)
