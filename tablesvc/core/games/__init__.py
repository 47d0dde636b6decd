"""The games the core can track, chosen by name (``[game] variant``): the registry of games.

Each game is a package here holding everything that belongs only to it (its tracker, its deal
and betting plans, its own rules); the table, the hand session and the ledger know a game only
through the contract of ``tablesvc.core.game``. This module is the one place outside a game's
package that names the games: adding one is a package and a line below.
"""

from __future__ import annotations

from typing import Any

from tablesvc.core.game import Variant
from tablesvc.core.games.draw5.variant import Draw5
from tablesvc.core.games.holdem import Holdem
from tablesvc.core.games.omaha import Omaha, Omaha5
from tablesvc.core.settings import TableSettings

VARIANTS: dict[str, type[Variant[Any, Any]]] = {v.name: v for v in (Holdem, Draw5, Omaha, Omaha5)}


def variant_for(settings: TableSettings) -> Variant[Any, Any]:
    """The game of these settings; a name no game has is a configuration error."""
    try:
        return VARIANTS[settings.variant](settings)
    except KeyError:
        raise ValueError(f"unknown variant {settings.variant!r}; known: "
                         f"{', '.join(sorted(VARIANTS))}") from None


__all__ = ["VARIANTS", "Variant", "variant_for"]
