"""What a hand may see and change of the table it is played at."""

from __future__ import annotations

from typing import Protocol

from tablesvc.core.emitter import Emitter
from tablesvc.core.settings import Player, TableSettings


class TableContext(Protocol):
    """What a hand may see and change of the table it is played at."""

    s: TableSettings
    out: Emitter
    players: dict[int, Player]
    zones: dict[str, int]
    has_shoe: bool
    button: int | None
    hand_no: int
    carry: int

    def eliminate(self, order: tuple[int, ...]) -> None: ...
