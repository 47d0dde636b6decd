"""Texas hold'em: two hole cards, a hand is the best five of them and the board's five.

Everything else of the game is what the community-card games share
(``tablesvc.core.games.community``).
"""

from __future__ import annotations

from typing import ClassVar

from tablesvc.core.games.community.variant import CommunityGame


class Holdem(CommunityGame):
    name: ClassVar[str] = "holdem"
    hole_cards: ClassVar[int] = 2


__all__ = ["Holdem"]
