"""The core's side of the ``equity`` event: when win probabilities are due, and for what.

After every input that produced an event, the table shows the feed the hand under way. The
feed reduces it to the state the figures depend on (the live seats and their hole cards, the
board, the street) and, when that state changed, bumps a version and asks for the figures of
the new state on ``Output.work`` (``tablesvc.core.requests``). The pipeline computes them on a
worker thread and hands them back as an ``EquityResult`` input, journalled like any other;
``result`` turns it into the event only while its ``(hand, version)`` is still the current
state. A result that comes back after the next card or fold is dropped, and because that
decision follows the journal's order, a replay drops the same ones and publishes the same
events with the same seq, without computing anything.

When they are due is the game's to say (``Variant.equity_state``): in the community-card games
the deal complete, each street, each fold (the live seats change); in five-card draw after
the deal and after the draw (each seat's hand; probabilities only once the draw has settled
them). A burn changes nothing the viewer sees, so it asks for nothing: the figures of the
street stand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from tablesvc.core import events as ev
from tablesvc.core.emitter import Emitter
from tablesvc.core.inputs import EquityResult
from tablesvc.core.requests import EquityRequest

DEAD_CARD_MODES = ("known", "none")
CHANGES = frozenset({"hole_cards", "board", "draw", "alert", "showdown", "hand_started",
                     "hand_ended"})
"""Event types that may come with a change of the live hands or the board: a seat's hole
cards complete (or changed by the draw), a street, the hand's start and end, and anything
irregular (an excess card, a misdeal, a dead hand), which always raises an alert."""


@dataclass(frozen=True, slots=True)
class EquityState:
    """A state of a hand that has figures, as its game reads it from its tracker: the street,
    the live seats' cards, the board, the cards known out of play (which, alone, make no new
    state: a burn or a card to the muck changes nothing the viewer sees)."""

    street: str
    holes: tuple[tuple[int, tuple[str, ...]], ...]
    board: tuple[str, ...] = ()
    dead: tuple[str, ...] = field(default=(), compare=False)
    """Cards out of play the service saw (burns, the muck, folded hands), when the game's
    figures count them (``[rules] equity_dead_cards``)."""


class HandState(Protocol):
    """What the feed reads of the hand under way (any ``Hand``: one not followed has no
    figures)."""

    number: int

    def equity_state(self) -> EquityState | None:
        """The state the figures depend on now, or None while they are not due."""
        ...


class EquityFigures(BaseModel):
    """The payload a worker hands back, checked before it becomes an event: a journal is a
    file, and a hand-edited one must not produce an event the schema does not allow."""

    model_config = ConfigDict(extra="forbid")
    street: str | None = None  # the request's is used: the core knows its own hand
    method: Literal["exact", "sampled", "none"]
    samples: int
    error: float | None = None
    dead: int = 0
    seats: list[ev.EquitySeat]


class EquityFeed:
    """The current hand state's key, and the request for it while unanswered."""

    def __init__(self, out: Emitter, variant: str, dead_cards: str = "known") -> None:
        if dead_cards not in DEAD_CARD_MODES:
            raise ValueError(f"equity_dead_cards must be one of {DEAD_CARD_MODES}")
        self.out = out
        self.variant = variant
        self.dead_cards = dead_cards
        self.hand = 0
        self.version = 0
        self.state: tuple[int, EquityState] | None = None
        self.pending: EquityRequest | None = None  # the current state's request, unanswered

    # ------------------------------------------------------------------ requests
    def update(self, session: HandState | None, live: bool, events: list[ev.Event]) -> None:
        """The hand may have changed: ask for the figures of a new state that has them.

        Only an input with an event that can go with such a change (``CHANGES``, or a fold) is
        looked at: single cards of the deal, bets, checks and device traffic never change the
        figures, and most inputs are those.
        """
        for e in events:
            if e.type in CHANGES or (isinstance(e, ev.Action) and e.action == "fold"):
                break
        else:
            return
        found = session.equity_state() if session is not None and live else None
        state = None if found is None or session is None else (session.number, found)
        if state == self.state:
            return
        self.state = state
        self.version += 1
        self.pending = None
        if found is None or session is None:
            return  # a state without figures (mid-street, the deal under way, the hand over)
        self.hand = session.number
        self.pending = EquityRequest(session.number, self.version, self.variant, found.street,
                                     found.holes, found.board,
                                     found.dead if self.dead_cards == "known" else ())
        self.out.out.work.append(self.pending)

    def outstanding(self) -> EquityRequest | None:
        """The request of the current state if no result for it has been applied: after a
        restart the pipeline asks again for what the crash left unanswered."""
        return self.pending

    # ------------------------------------------------------------------ results
    def result(self, inp: EquityResult) -> None:
        """Figures came back: the event, if they are the current state's."""
        pending = self.pending
        if pending is None or (inp.hand, inp.version) != pending.key:
            self.out.note("debug", "equity result of an earlier hand state dropped",
                          hand=inp.hand, version=inp.version)
            return
        try:
            figures = EquityFigures.model_validate(inp.figures)
        except ValidationError as exc:
            self.out.note("warning", "equity result refused", hand=inp.hand,
                          problems=[e["msg"] for e in exc.errors()])
            return
        if [s.seat for s in figures.seats] != [s for s, _ in pending.holes]:
            self.out.note("warning", "equity result for other seats refused", hand=inp.hand)
            return
        self.pending = None
        self.out.emit(ev.Equity, hand=inp.hand, street=pending.street, method=figures.method,
                      samples=figures.samples, error=figures.error, dead=figures.dead,
                      seats=figures.seats)
