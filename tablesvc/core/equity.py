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

Due in hold'em: the deal complete, each street, each fold (the live seats change); in
five-card draw: after the deal and after the draw (each seat's hand; probabilities only once
the draw has settled them). A burn changes nothing the viewer sees, so it asks for nothing:
the figures of the street stand.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from tablesvc.core import events as ev
from tablesvc.core.emitter import Emitter
from tablesvc.core.inputs import EquityResult
from tablesvc.core.requests import EquityRequest
from tablesvc.core.tracker import Tracker

HOLDEM_STREETS = {0: "preflop", 3: "flop", 4: "turn", 5: "river"}
DEAD_ZONES = frozenset({"BURN", "MUCK"})
DEAD_CARD_MODES = ("known", "none")
CHANGES = frozenset({"hole_cards", "board", "draw", "alert", "showdown", "hand_started",
                     "hand_ended"})
"""Event types that may come with a change of the live hands or the board: a seat's hole
cards complete (or changed by the draw), a street, the hand's start and end, and anything
irregular (an excess card, a misdeal, a dead hand), which always raises an alert."""


class HandState(Protocol):
    """What the feed reads of the hand under way (``HandSession`` is one)."""

    number: int
    tracker: Tracker


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
        self.state: tuple[Any, ...] | None = None
        self.pending: EquityRequest | None = None  # the current state's request, unanswered

    # ------------------------------------------------------------------ requests
    def update(self, session: HandState | None, live: bool, events: list[ev.Event]) -> None:
        """The hand may have changed: ask for the figures of a new state that has them.

        Only an input with an event that can go with such a change (``CHANGES``, or a fold) is
        looked at: single cards of the deal, bets, checks and device traffic never change the
        figures, and most inputs are those.
        """
        for e in events:
            if e.type in CHANGES or (e.type == "action" and getattr(e, "action", "") == "fold"):
                break
        else:
            return
        found = self._state(session) if session is not None and live else None
        state = None if found is None else found[:4]
        if state == self.state:
            return
        self.state = state
        self.version += 1
        self.pending = None
        if found is None or session is None:
            return  # a state without figures (mid-street, the deal under way, the hand over)
        number, street, holes, board, alive = found
        dead = self._dead(session.tracker, alive, holes, board) if self.variant == "holdem" \
            else ()
        self.hand = number
        self.pending = EquityRequest(number, self.version, self.variant, street, holes, board,
                                     dead)
        self.out.out.work.append(self.pending)

    def outstanding(self) -> EquityRequest | None:
        """The request of the current state if no result for it has been applied: after a
        restart the pipeline asks again for what the crash left unanswered."""
        return self.pending

    def _state(self, session: HandState) -> tuple[Any, ...] | None:
        """(hand, street, holes, board, live seats) of a state that has figures, or None."""
        hand = session.tracker
        if hand.ended or getattr(hand, "voided", None) is not None:
            return None
        dead_hands = getattr(hand, "dead", ())
        live = [s for s in hand.active if s not in dead_hands]
        if len(live) < 2:
            return None
        street = HOLDEM_STREETS.get(len(hand.board))
        if self.variant == "holdem" and (street is None or any(
                hand.hole_count(s) != 2 for s in live)):
            return None  # the deal or a street is under way (the usual case: checked cheaply)
        holes = tuple((s, tuple(hand.cards_of(s))) for s in live)
        board = tuple(hand.board)
        if self.variant == "draw5":
            phase = getattr(hand, "phase", None)
            if phase in ("deal", "predraw") and all(len(c) == 5 for _, c in holes):
                street = "predraw"
            elif phase == "postdraw" and all(1 <= len(c) <= 5 for _, c in holes):
                street = "postdraw"
            else:
                return None
            return (session.number, street, holes, (), live)
        shown = [c for _, cards in holes for c in cards] + list(board)
        if len(set(shown)) != len(shown):
            return None  # a card in two places: the tracker is sorting out an irregularity
        return (session.number, street, holes, board, live)

    def _dead(self, hand: Tracker, live: list[int], holes: tuple[Any, ...],
              board: tuple[str, ...]) -> tuple[str, ...]:
        """Cards out of play that the service knows: burns, folded hands, the muck."""
        if self.dead_cards == "none":
            return ()
        dead = {rec.card for rec in hand.cards.values() if rec.zone in DEAD_ZONES}
        for seat in hand.order:
            if seat not in live:
                dead.update(hand.cards_of(seat))
        shown = {c for _, cards in holes for c in cards} | set(board)
        return tuple(sorted(dead - shown))

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
