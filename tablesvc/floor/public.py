"""What of a public message the console may keep and show: never a hidden card.

The floor role cannot read ``secure/#``, and the tables publish no hidden card on public
topics; this module is the console's own guarantee on top, so that a table's bug cannot put a
hole card on a floor screen or into the floor's database. Secure event types are dropped
whole; a card a public event may carry is kept only where the card is public by design (the
board, a card dealt face up, a hand tabled at the showdown).
"""

from __future__ import annotations

from typing import Any

SECURE_TYPES = frozenset({"hole_cards", "alert_detail", "equity", "hand_history"})
CARD_KEYS = frozenset({"card", "cards", "hole_cards", "evidence", "holes", "hands"})
"""Keys that may name cards; removed unless the event type shows them publicly."""
PUBLIC_CARDS: dict[str, frozenset[str]] = {
    "board": frozenset({"cards", "board"}),
    "hand_ended": frozenset({"board"}),
}
STATE_KEYS = ("hand", "variant", "level", "in_hand", "button", "street", "board", "active",
              "pot", "players", "devices", "open_alerts", "last_seq")


def public_event(event: dict[str, Any]) -> dict[str, Any] | None:
    """The event as the console keeps it, or None for a type that is secure."""
    etype = event.get("type")
    if not isinstance(etype, str) or etype in SECURE_TYPES:
        return None
    allowed = PUBLIC_CARDS.get(etype, frozenset())
    if etype == "card_dealt" and event.get("face_up") is True:
        allowed = frozenset({"card"})
    if etype == "showdown" and event.get("tabled") is True:
        allowed = frozenset({"cards"})
    return {k: v for k, v in event.items() if k not in CARD_KEYS or k in allowed}


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """The retained ``state`` snapshot, reduced to the keys the console shows (the board is
    the only card in it; ``variant`` and ``level``'s ``limit`` name the game)."""
    return {k: state[k] for k in STATE_KEYS if k in state}
