"""The games' names as people read them, for every screen: "Pot-limit Omaha", "No-limit Hold'em".

A table says which game it deals by two ids, ``hand_started``'s (and the retained state's)
``variant`` and ``limit``. The floor console, ``tablesvc watch`` and the broadcast overlay all
name the game from here, so a game added to the tables is named once, here. A variant or a
limit not listed yet (a table newer than this console) is shown by its raw id, never hidden or
taken for another game.
"""

from __future__ import annotations

VARIANTS: dict[str, str] = {
    "holdem": "Hold'em",
    "omaha": "Omaha",
    "omaha5": "five-card Omaha",
    "draw5": "five-card draw",
}
"""``variant`` id -> the game's name, as it reads after the limit ("Pot-limit Omaha")."""

LIMITS: dict[str, str] = {
    "no-limit": "No-limit",
    "pot-limit": "Pot-limit",
    "fixed-limit": "Fixed-limit",
}
"""``limit`` id -> how it reads in front of the game."""


def game_name(variant: object, limit: object = None) -> str | None:
    """"Pot-limit Omaha" for ("omaha", "pot-limit"); "Five-card draw" without a limit; the raw
    id for a variant or limit not listed ("Fixed-limit razz", "Spread-limit Hold'em"); None
    without a variant."""
    if not isinstance(variant, str) or not variant:
        return None
    game = VARIANTS.get(variant, variant)
    if isinstance(limit, str) and limit:
        game = f"{LIMITS.get(limit, limit)} {game}"
    return game[:1].upper() + game[1:]
