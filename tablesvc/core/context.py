"""What a hand may see and change of the table it is played at."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from tablesvc.core.continuity import Continuity
from tablesvc.core.defects import DefectRuling
from tablesvc.core.emitter import Emitter
from tablesvc.core.settings import Level, Player, TableSettings


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
    carry_known: bool  # the carried pot is what the service saw (no game went by unfollowed)
    unverified: set[int]  # seats whose stacks an untracked hand may have changed
    continuity: Continuity  # whether the service sees the whole table now
    pending_level: Level | None  # a level sent during the hand, for the next one

    def eliminate(self, order: tuple[int, ...]) -> None: ...
    def button_disputed(self) -> None: ...
    def level_taken(self) -> None: ...
    def void_hand(self, number: int, order: tuple[int, ...], start_stacks: Mapping[int, int],
                  ruling: DefectRuling, uid: str | None, evidence: dict[str, Any]) -> None: ...
