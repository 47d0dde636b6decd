"""Texas hold'em: two hole cards, a hand is the best five of them and the board's five.

Everything else of the game is what the community-card games share
(``tablesvc.core.games.community``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tablesvc.core.betting_plan import best_five
from tablesvc.core.games.community.variant import CommunityGame
from tablesvc.core.showdown import HandValue


class Holdem(CommunityGame):
    name: ClassVar[str] = "holdem"
    hole_cards: ClassVar[int] = 2
    phh_variant: ClassVar[dict[str, str]] = {
        "no-limit": "NT", "pot-limit": "PT", "fixed-limit": "FT"}

    def rank(self, hole: Sequence[str], board: Sequence[str]) -> HandValue:
        """The best five of the two hole cards and the board's five, any of them."""
        return best_five(hole, board)


__all__ = ["Holdem"]
