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
    "BOXED_CARD[,<uid>]": "a face-up card was found in the deck (EXPOSE-04)",
    "REDRESS_IMPOSSIBLE": "the dealer cannot redress the last irregularity (RULES.md §2.5)",
    "DRAW,<seat>,<k>": "five-card draw: the seat announces an exchange of k cards, 0 to stand "
    "pat (DRAW-02)",
    "CARDS_VIEWED,<seat>": "five-card draw: the player has looked at the cards he drew "
    "(DRAW-07, DRAW-08)",
    "DECLARE,<seat>": "the player declared his raise aloud: it may come in several motions "
    "(BET-10)",
    "BURN_FACE_UP,<uid>": "the burn card was turned face up (BURN-06); same as EXPOSED",
    "EXPOSED,<uid>,player": "the player exposed his own card: he keeps it (EXPOSE-05)",
    "KNOCK": "the dealer knocks before the next street; open betting issues are flagged "
    "(BOARD-04)",
    "SHOWN,<seat>[,<n>]": "at the showdown the seat tabled his hand (n hole cards, default "
    "all) (SHOW-03/04/05)",
    "ANNOUNCED,<seat>,<category>": "the dealer announced the seat's hand, e.g. two_pair, "
    "full_house (SHOW-06/07)",
    "AWARD,<seat>": "the dealer awards the pot to the seat: checked against the hands before "
    "the push (POT-05)",
    "OBJECTION,<seat>": "a player objects to the award (POT-06)",
    "SEAT_DRAW": "between games: start a seating draw (one card to each player); pressed "
    "again it closes a round of cards (SEAT-08)",
    "DEALER_DRAW": "between games: cards one at a time until the first Jack, whose seat "
    "deals first (SEAT-09)",
    "SHUFFLE_ERROR": "the floor flags a shuffle or cut error in a draw game (MISDEAL-15)",
    "REDEAL": "five-card draw: the game is dealt again (MISDEAL-15/16, EXPOSE-06, DECK-06)",
}


def full_schema() -> dict[str, Any]:
    return {
        "events": {cls.model_fields["type"].default: {
            "feed": cls.FEED, "schema": cls.model_json_schema()} for cls in EVENT_TYPES},
        "commands": {name: model.model_json_schema() for name, model in COMMANDS.items()},
        "console_buttons": CONSOLE_BUTTONS,
    }
