"""Cards and the deck registry (DESIGN §5), as pure data.

Loading the files is the job of ``tablesvc.config.registry``; this module only answers
"which card is this UID, and of which deck".

>>> reg = DeckRegistry({"RED-0001": {"E0040150A1B2C301": "As"}})
>>> reg.lookup("E0040150A1B2C301")
('RED-0001', 'As')
>>> reg.lookup("0000000000000000") is None
True
"""

from __future__ import annotations

from collections.abc import Mapping

RANKS = "23456789TJQKA"
SUITS = "shdc"
ALL_CARDS = frozenset(r + s for r in RANKS for s in SUITS)


def new_deck_order() -> list[str]:
    """New-deck order, the order in which ``deck enroll`` expects the 52 cards.

    >>> order = new_deck_order()
    >>> order[:2], order[12:14], order[26:28], order[-1]
    (['As', '2s'], ['Ks', 'Ad'], ['Kc', 'Qc'], 'Ah')
    """
    up = ["A", *RANKS[:-1]]  # A 2 3 ... K
    down = list(reversed(up))  # K Q ... A
    return (
        [r + "s" for r in up] + [r + "d" for r in up] + [r + "c" for r in down]
        + [r + "h" for r in down]
    )


def is_card(value: str) -> bool:
    return value in ALL_CARDS


class DeckRegistry:
    """All enrolled decks: UID -> (deck id, card)."""

    def __init__(self, decks: Mapping[str, Mapping[str, str]]) -> None:
        self._by_uid: dict[str, tuple[str, str]] = {}
        self.decks = {d: dict(cards) for d, cards in decks.items()}
        for deck_id, cards in decks.items():
            for uid, card in cards.items():
                self._by_uid[uid] = (deck_id, card)

    def lookup(self, uid: str) -> tuple[str, str] | None:
        return self._by_uid.get(uid)

    def __len__(self) -> int:
        return len(self.decks)


def validate_deck(deck_id: str, cards: Mapping[str, str]) -> list[str]:
    """Every problem with one deck file's content; empty when it is a valid deck."""
    problems: list[str] = []
    if not deck_id:
        problems.append("deck_id is empty")
    if len(cards) != 52:
        problems.append(f"has {len(cards)} UIDs, a deck has 52")
    bad_uids = [u for u in cards if len(u) != 16 or any(c not in "0123456789ABCDEF" for c in u)]
    if bad_uids:
        problems.append(f"{len(bad_uids)} UIDs are not 16 uppercase hex digits")
    bad_cards = sorted({c for c in cards.values() if not is_card(c)})
    if bad_cards:
        problems.append(f"invalid card names: {', '.join(bad_cards[:5])}")
    if len(set(cards.values())) != len(cards):
        problems.append("the same card appears under more than one UID")
    return problems
