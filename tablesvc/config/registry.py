"""Loading and writing the deck and chip registries (DESIGN §5).

The files are small JSON documents an installer may edit by hand, so loading reports every
broken file instead of stopping at the first.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from tablesvc.core.cards import DeckRegistry, is_card


class RegistryError(Exception):
    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("registry refused:\n" + "\n".join(f"  {p}" for p in problems))


HEX = frozenset("0123456789ABCDEF")


def _listed(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def deck_problems(doc: object) -> tuple[str, dict[str, str], list[str]]:
    """A deck file's deck_id, its cards and every problem with them, each naming the UIDs
    concerned, as an installer editing the file by hand needs them."""
    if not isinstance(doc, dict):
        return "", {}, [f"the file holds a JSON {type(doc).__name__}, not an object with "
                        "deck_id and cards"]
    problems: list[str] = []
    deck_id = doc.get("deck_id")
    if not isinstance(deck_id, str) or not deck_id:
        problems.append("deck_id: missing, or not a non-empty string")
        deck_id = ""
    cards = doc.get("cards")
    if not isinstance(cards, dict):
        problems.append("cards: missing, or not an object of UID -> card (\"As\", \"Td\", ...)")
        return deck_id, {}, problems
    bad_uids = [repr(u) for u in cards if len(u) != 16 or not HEX.issuperset(u)]
    if bad_uids:
        problems.append(f"cards: UID(s) {_listed(bad_uids)} are not 16 uppercase hex digits")
    bad_cards = [f"{u} = {v!r}" for u, v in cards.items() if not isinstance(v, str)
                 or not is_card(v)]
    if bad_cards:
        problems.append(f"cards: {_listed(bad_cards)}: not a card (rank 23456789TJQKA and "
                        "suit shdc, e.g. \"As\")")
    owners: dict[str, list[str]] = {}
    for u, v in cards.items():
        if isinstance(v, str):
            owners.setdefault(v, []).append(u)
    twice = [f"{card} under {' and '.join(uids)}" for card, uids in owners.items()
             if len(uids) > 1]
    if twice:
        problems.append(f"cards: the same card under more than one UID: {_listed(twice)}")
    if len(cards) != 52:
        problems.append(f"cards: has {len(cards)} UIDs, a deck has 52")
    good = {str(u): str(v) for u, v in cards.items()}
    return deck_id, good, problems


def load_decks(folder: Path) -> DeckRegistry:
    """Every ``*.json`` deck in ``folder``. A missing folder is an empty registry."""
    decks: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    owner: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{path}: cannot read: {exc}")
                continue
            except ValueError as exc:
                problems.append(f"{path}: not a deck file (not valid JSON: {exc})")
                continue
            deck_id, cards, found = deck_problems(doc)
            problems.extend(f"{path}: {p}" for p in found)
            if found:
                continue
            if deck_id in decks:
                problems.append(f"{path}: deck_id {deck_id} is enrolled twice")
            shared = [f"{uid} (also in deck {owner[uid]})" for uid in cards
                      if uid in owner and owner[uid] != deck_id]
            if shared:
                problems.append(f"{path}: cards: UID(s) {_listed(shared)}")
            for uid in cards:
                owner.setdefault(uid, deck_id)
            decks[deck_id] = cards
    if problems:
        raise RegistryError(problems)
    return DeckRegistry(decks)


def load_chips(path: Path) -> dict[str, int]:
    """The chip registry: UID -> value. A missing file is an empty registry."""
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistryError([f"{path}: cannot read: {exc}"]) from None
    except ValueError as exc:
        raise RegistryError([f"{path}: not a chip registry (not valid JSON: {exc})"]) from None
    chips = doc.get("chips") if isinstance(doc, dict) else None
    if not isinstance(chips, dict):
        raise RegistryError([f"{path}: chips: missing, or not an object of UID -> value"])
    problems = []
    bad_uids = [repr(u) for u in chips if len(u) != 16 or not HEX.issuperset(u)]
    if bad_uids:
        problems.append(f"{path}: chips: UID(s) {_listed(bad_uids)} are not 16 uppercase "
                        "hex digits")
    bad = [f"{u} = {v!r}" for u, v in chips.items()
           if isinstance(v, bool) or not isinstance(v, int) or v <= 0]
    if bad:
        problems.append(f"{path}: chips: {_listed(bad)}: a chip's value is a positive whole "
                        "number of chip units")
    if problems:
        raise RegistryError(problems)
    return {str(u): int(v) for u, v in chips.items()}


def write_json_atomic(path: Path, doc: Any) -> None:
    """Write a registry file so that a crash never leaves half a file behind.

    The file is 0600 (a registry maps tags to cards: whoever reads it can read the hole cards
    off the antennas' wire) and belongs to the owner of its folder: enrolled by root (``sudo
    tablesvc deck enroll``), it is still the service user's to read, when the folder is that
    user's as docs/OPERATIONS.md sets it up.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        folder = os.stat(path.parent)
        if os.geteuid() == 0 and (folder.st_uid, folder.st_gid) != (0, 0):
            os.fchown(fd, folder.st_uid, folder.st_gid)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
