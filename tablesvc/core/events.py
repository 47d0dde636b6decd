"""Events (DESIGN §8), defined once as pydantic models.

Every event carries the envelope ``v, venue, table, seq, ts, hand, type``. ``seq`` is one
sequence per table across both feeds, so a replay orders everything totally; ``prev_seq`` is
the seq of the previous event *on the same feed*, which lets a subscriber of only the public
feed tell a secure event's number from a lost message.

Which feed an event goes to is a property of its type: hole cards, alert evidence and equities
are secure, everything else is public.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Feed = Literal["public", "secure"]
Street = Literal["preflop", "flop", "turn", "river"]


class Event(BaseModel):
    """The envelope every event shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)
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


class ServiceStarted(Event):
    type: Literal["service_started"] = "service_started"
    version: str
    boot: int = Field(description="how many times this table's service has started")


class Counters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
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


class SeatInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: int
    name: str
    stack: int


class HandStarted(Event):
    type: Literal["hand_started"] = "hand_started"
    variant: Literal["holdem", "draw5"]
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
    reason: Literal["showdown", "uncontested", "misdeal", "cancelled", "checked_out"]
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


EVENT_TYPES: tuple[type[Event], ...] = (
    ServiceStarted, DeviceStatus, HandStarted, CardDealt, HoleCards, Burn, Board, Action,
    Showdown, PotAwarded, Draw, HandEnded, HandHistory, Alert, AlertDetail,
)
