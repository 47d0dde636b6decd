"""Pot-limit Omaha: four hole cards, and a hand is exactly two of them with exactly three of the
board; five-card Omaha (``omaha5``) deals five.

Everything else is what the community-card games share (``tablesvc.core.games.community``): the
deal in rounds of one card, the burns and the board, the blinds, the misdeal window, side pots
and the odd chip. How hold'em's rules read for four cards is in docs/OMAHA.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tablesvc.core.games.community.variant import CommunityGame
from tablesvc.core.showdown import HandValue, evaluate_omaha


class Omaha(CommunityGame):
    name: ClassVar[str] = "omaha"
    hole_cards: ClassVar[int] = 4
    limits: ClassVar[frozenset[str]] = frozenset({"pot-limit"})
    default_limit: ClassVar[str] = "pot-limit"
    phh_variant: ClassVar[dict[str, str]] = {"pot-limit": "PO"}

    def rank(self, hole: Sequence[str], board: Sequence[str]) -> HandValue:
        """Exactly two of the hole cards and exactly three of the board."""
        return evaluate_omaha(hole, board)


class Omaha5(Omaha):
    """Five-card Omaha: five hole cards, the same two-and-three; PHH has no code for it, so
    its hands have no hand history."""

    name: ClassVar[str] = "omaha5"
    hole_cards: ClassVar[int] = 5
    phh_variant: ClassVar[dict[str, str]] = {}


__all__ = ["Omaha", "Omaha5"]
