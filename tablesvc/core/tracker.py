"""The contract of a deal-sequence tracker: what every game's card flow answers.

A tracker follows the cards of one hand (RULES.md §2): which card went where, against the deal
plan of its game, and what was irregular. Each game has its own (the community-card games'
``CommunityHand``, five-card draw's ``DrawHand``); the hand session talks to a tracker only
through this contract. Each call returns the outcomes it produced (``card_flow.CardOutcome``:
cards dealt, folds, irregularities, and the game's own, such as burns, board cards or draws);
the session turns them into events and hands the game's own back to the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from tablesvc.core.card_flow import CardOutcome


class CardRecordView(Protocol):
    """What the session reads of one card: which card, where, its index in the deal."""

    card: str
    zone: str | None
    index: int


class Tracker(Protocol):
    """One hand's card flow. ``order`` is the deal order, ``active`` the seats not folded."""

    seats: tuple[int, ...]
    order: tuple[int, ...]
    @property
    def cards(self) -> Mapping[str, CardRecordView]:
        """uid -> the record of every card of the hand."""
        ...

    pending: str | None  # the uid of the card out of the shoe not yet read in a zone
    next_index: int  # the index the next card out of the shoe will have
    board: list[str]
    folded: set[int]
    ended: bool

    @property
    def active(self) -> list[int]: ...
    @property
    def street(self) -> str: ...
    @property
    def cards_coming(self) -> bool:
        """A batch of cards is being dealt and is not complete: no betting comes before it."""
        ...

    def card_expected(self, betting_over: bool) -> bool:
        """May the next card leave the shoe now?"""
        ...

    def owner(self, uid: str) -> int | None: ...
    def hole_count(self, seat: int) -> int: ...
    def cards_of(self, seat: int) -> list[str]: ...
    def card_out(self, uid: str, card: str, face_up: bool) -> Sequence[CardOutcome]: ...
    def arrive(self, zone: str, uid: str, card: str, betting_over: bool = True,
               bb_option_pending: bool = False, ms: int | None = None,
               fold_possible: bool = True) -> Sequence[CardOutcome]: ...
    def depart(self, zone: str, uid: str, ms: int | None = None) -> None: ...
    def shoe_in(self, uid: str, bottom: bool = False) -> Sequence[CardOutcome]: ...
    def exposed(self, uid: str, window_open: bool) -> Sequence[CardOutcome]: ...
    def boxed(self, uid: str | None, window_open: bool) -> Sequence[CardOutcome]: ...
    def redress_impossible(self, window_open: bool) -> Sequence[CardOutcome]: ...
    def player_absent(self, seat: int, window_open: bool) -> Sequence[CardOutcome]: ...
    def fold(self, seat: int) -> Sequence[CardOutcome]: ...
    def collected(self) -> Sequence[CardOutcome]: ...
