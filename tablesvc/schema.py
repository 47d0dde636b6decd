"""``tablesvc schema``: the JSON Schema of every event and command, and the console buttons."""

from __future__ import annotations

from typing import Any

from tablesvc.core.commands import COMMANDS
from tablesvc.core.events import EVENT_TYPES

CONSOLE_BUTTONS: dict[str, str] = {
    "NEWHAND": "pressed after the shuffle and cut; starts the next hand",
    "CHECK,<seat>": "the seat checks",
    "FOLD,<seat>": "the seat folds (also seen when its cards reach MUCK)",
    "TIME,<seat>": "the 30 s action clock is called on the seat (BET-17)",
    "MISDEAL": "the dealer declares a misdeal",
    "EXPOSED,<uid>": "the card with this tag was exposed",
    "FLOOR": "the dealer calls the floor",
    "PLAYER_ABSENT,<seat>": "the player is away from the table: his turns are deemed checks "
    "or folds (BET-16)",
}


def full_schema() -> dict[str, Any]:
    return {
        "events": {cls.model_fields["type"].default: {
            "feed": cls.FEED, "schema": cls.model_json_schema()} for cls in EVENT_TYPES},
        "commands": {name: model.model_json_schema() for name, model in COMMANDS.items()},
        "console_buttons": CONSOLE_BUTTONS,
    }
