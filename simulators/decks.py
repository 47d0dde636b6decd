"""Deck and chip registries: the tagged objects a virtual table plays with.

The files written here are the registry files of DESIGN §5, so the service under test reads
exactly what the simulator deals with. UIDs are drawn from a caller-supplied ``random.Random``
so a seed reproduces the same physical decks and chips run after run.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Mapping
from pathlib import Path

RANKS = "23456789TJQKA"
SUITS = "shdc"

DEFAULT_DENOMINATIONS: Mapping[int, int] = {25: 40, 100: 60, 500: 40, 1000: 40, 5000: 20}
"""Chip value -> how many chips of it a default chip set holds (167 000 in 200 chips)."""

_UID_RE = re.compile(r"[0-9A-F]{16}\Z")
_CARD_PREFIX = "E00401"
_CHIP_PREFIX = "E00402"
"""Cards and chips get different UID prefixes (as tags from two production batches would), so a
card UID can never collide with a chip UID however many are generated."""


def new_deck_order() -> list[str]:
    """The 52 cards as a fresh deck lies: As..Ks, Ad..Kd, Kc..Ac, Kh..Ah (the enrollment order)."""
    up = ["A", *RANKS[:-1]]  # A 2 3 ... K
    down = list(reversed(up))  # K Q ... A
    return (
        [r + "s" for r in up]
        + [r + "d" for r in up]
        + [r + "c" for r in down]
        + [r + "h" for r in down]
    )


def is_card(name: str) -> bool:
    return len(name) == 2 and name[0] in RANKS and name[1] in SUITS


def is_uid(value: str) -> bool:
    return _UID_RE.match(value) is not None


def _fresh_uids(rng: random.Random, prefix: str, count: int) -> list[str]:
    bits = (16 - len(prefix)) * 4
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        uid = f"{prefix}{rng.getrandbits(bits):0{16 - len(prefix)}X}"
        if uid not in seen:
            seen.add(uid)
            out.append(uid)
    return out


def make_deck(deck_id: str, rng: random.Random) -> dict[str, str]:
    """A freshly tagged deck: UID -> card, in new-deck order (the order enrollment reads it)."""
    if not deck_id or any(c in deck_id for c in "/\\\0"):
        raise ValueError(f"deck id {deck_id!r} cannot name a registry file")
    cards = new_deck_order()
    return dict(zip(_fresh_uids(rng, _CARD_PREFIX, len(cards)), cards, strict=True))


def _check_deck(deck: Mapping[str, str], where: str) -> None:
    problems: list[str] = []
    if len(deck) != 52:
        problems.append(f"{len(deck)} UIDs, not 52")
    bad_uids = [u for u in deck if not is_uid(u)]
    if bad_uids:
        problems.append(f"UIDs not 16 uppercase hex digits: {bad_uids[:3]}")
    bad_cards = sorted({c for c in deck.values() if not is_card(c)})
    if bad_cards:
        problems.append(f"not cards: {bad_cards[:3]}")
    if len(set(deck.values())) != len(deck):
        problems.append("a card appears twice")
    if problems:
        raise ValueError(f"{where}: " + "; ".join(problems))


def _write_json(path: Path, doc: object) -> None:
    """Write then rename, so a service reading the registry never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_deck(folder: Path, deck_id: str, cards: Mapping[str, str]) -> Path:
    """Enroll a deck: ``folder/<deck_id>.json`` as DESIGN §5 describes. Refuses a bad deck."""
    _check_deck(cards, deck_id)
    path = Path(folder) / f"{deck_id}.json"
    _write_json(path, {"deck_id": deck_id, "cards": dict(cards)})
    return path


def load_decks(folder: Path) -> dict[str, dict[str, str]]:
    """Every enrolled deck in a registry folder: deck id -> (UID -> card).

    A file that is not a valid deck is an error naming the file, not something to skip: a
    simulator dealing from a deck the service rejects would test nothing.
    """
    decks: dict[str, dict[str, str]] = {}
    owner: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("cards"), dict):
            raise ValueError(f"{path}: not a deck file (no 'cards' object)")
        deck_id = doc.get("deck_id")
        if not isinstance(deck_id, str) or not deck_id:
            raise ValueError(f"{path}: no 'deck_id'")
        cards = {str(u): str(c) for u, c in doc["cards"].items()}
        _check_deck(cards, str(path))
        if deck_id in decks:
            raise ValueError(f"{path}: deck id {deck_id} enrolled twice")
        for uid in cards:
            if uid in owner:
                raise ValueError(f"{path}: UID {uid} also in deck {owner[uid]}")
            owner[uid] = deck_id
        decks[deck_id] = cards
    return decks


def make_chipset(
    rng: random.Random, denominations: Mapping[int, int] = DEFAULT_DENOMINATIONS
) -> dict[str, int]:
    """A tagged chip set: UID -> value, ``denominations`` mapping value -> number of chips."""
    if any(v <= 0 or n < 0 for v, n in denominations.items()):
        raise ValueError("chip values must be positive and counts not negative")
    values = [v for v, n in sorted(denominations.items()) for _ in range(n)]
    return dict(zip(_fresh_uids(rng, _CHIP_PREFIX, len(values)), values, strict=True))


def write_chips(path: Path, chips: Mapping[str, int]) -> Path:
    """The chip registry file ``{"chips": {uid: value}}``."""
    bad = [u for u, v in chips.items() if not is_uid(u) or v <= 0]
    if bad:
        raise ValueError(f"bad chip entries: {bad[:3]}")
    _write_json(Path(path), {"chips": dict(chips)})
    return Path(path)


def load_chips(path: Path) -> dict[str, int]:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("chips"), dict):
        raise ValueError(f"{path}: not a chip registry (no 'chips' object)")
    chips = {str(u): int(v) for u, v in doc["chips"].items()}
    bad = [u for u, v in chips.items() if not is_uid(u) or v <= 0]
    if bad:
        raise ValueError(f"{path}: bad chip entries: {bad[:3]}")
    return chips
