"""The contract of a deal-sequence tracker: what every game's card flow answers.

A tracker follows the cards of one hand (RULES.md §2): which card went where, against the deal
plan of its game, and what was irregular. Hold'em (``holdem.HoldemHand``) and five-card draw
(``draw.DrawHand``) implement it; the hand session talks to the tracker only through it. Each
call returns the outcomes it produced (cards dealt, burns, board cards, folds, irregularities);
the session turns them into events.
"""

from __future__ import annotations

from typing import Any, Protocol


class CardRecordView(Protocol):
    """What the session reads of one card: which card, where, its index in the deal."""

    card: str
    zone: str | None
    index: int


class Tracker(Protocol):
    """One hand's card flow. ``order`` is the deal order, ``active`` the seats not folded."""

    seats: tuple[int, ...]
    order: tuple[int, ...]
    cards: Any  # uid -> CardRecord
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
    def card_out(self, uid: str, card: str, face_up: bool) -> list[Any]: ...
    def arrive(self, zone: str, uid: str, card: str, betting_over: bool = True,
               bb_option_pending: bool = False, ms: int | None = None,
               fold_possible: bool = True) -> list[Any]: ...
    def depart(self, zone: str, uid: str, ms: int | None = None) -> None: ...
    def shoe_in(self, uid: str, bottom: bool = False) -> list[Any]: ...
    def exposed(self, uid: str, window_open: bool) -> list[Any]: ...
    def boxed(self, uid: str | None, window_open: bool) -> list[Any]: ...
    def redress_impossible(self, window_open: bool) -> list[Any]: ...
    def player_absent(self, seat: int, window_open: bool) -> list[Any]: ...
    def fold(self, seat: int) -> list[Any]: ...
    def collected(self) -> list[Any]: ...
