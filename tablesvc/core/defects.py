"""What a defective deck means for a hand: the fault's one alert and how the hand ends.

A game rules on it (``Variant.defect``); the hand it voids raises the alert once the card has
landed, so that the alert can name the seat (``tablesvc.core.untracked``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from tablesvc.core.emitter import Emitter

DefectKind = Literal["foreign", "duplicate"]
RaiseDefect = Callable[[Emitter, "int | None", str, dict[str, Any]], None]
"""Raises the one alert of a defective deck: (emitter, seat, where the card went, evidence)."""


@dataclass(frozen=True)
class DefectRuling:
    """``raise_alert`` raises the fault's one alert, named for the fault and filed under the
    rule that decides its consequence, with that consequence as its remedy. ``cancel_now``:
    the hand is cancelled at once and every bet goes back; otherwise it is void until the
    dealer declares it (MISDEAL, REDEAL) or the next hand begins."""

    raise_alert: RaiseDefect
    cancel_now: bool
