"""The games the core can track, chosen by name (``[game] variant``)."""

from __future__ import annotations

from tablesvc.core.settings import TableSettings
from tablesvc.core.variants.base import Variant
from tablesvc.core.variants.draw5 import Draw5
from tablesvc.core.variants.holdem import Holdem

VARIANTS: dict[str, type[Variant]] = {v.name: v for v in (Holdem, Draw5)}


def variant_for(settings: TableSettings) -> Variant:
    """The game of these settings; a name no game has is a configuration error."""
    try:
        return VARIANTS[settings.variant](settings)
    except KeyError:
        raise ValueError(f"unknown variant {settings.variant!r}; known: "
                         f"{', '.join(sorted(VARIANTS))}") from None


__all__ = ["VARIANTS", "Variant", "variant_for"]
