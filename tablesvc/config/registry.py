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

from tablesvc.core.cards import DeckRegistry, validate_deck


class RegistryError(Exception):
    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("registry refused:\n" + "\n".join(f"  {p}" for p in problems))


def load_decks(folder: Path) -> DeckRegistry:
    """Every ``*.json`` deck in ``folder``. A missing folder is an empty registry."""
    decks: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    owner: dict[str, str] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
                deck_id, cards = str(doc["deck_id"]), dict(doc["cards"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                problems.append(f"{path}: not a deck file ({exc.__class__.__name__}: {exc})")
                continue
            problems.extend(f"{path}: {p}" for p in validate_deck(deck_id, cards))
            if deck_id in decks:
                problems.append(f"{path}: deck_id {deck_id} is enrolled twice")
            for uid in cards:
                if uid in owner and owner[uid] != deck_id:
                    problems.append(f"{path}: UID {uid} is also in deck {owner[uid]}")
                owner[uid] = deck_id
            decks[deck_id] = {str(k): str(v) for k, v in cards.items()}
    if problems:
        raise RegistryError(problems)
    return DeckRegistry(decks)


def load_chips(path: Path) -> dict[str, int]:
    """The chip registry: UID -> value. A missing file is an empty registry."""
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        chips = doc["chips"]
        if not isinstance(chips, dict):
            raise TypeError("'chips' is not an object")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RegistryError([f"{path}: not a chip registry ({exc})"]) from None
    bad = [u for u, v in chips.items() if not isinstance(v, int) or v <= 0]
    if bad:
        raise RegistryError([f"{path}: {len(bad)} chips without a positive integer value"])
    return {str(u): int(v) for u, v in chips.items()}


def write_json_atomic(path: Path, doc: Any) -> None:
    """Write a registry file so that a crash never leaves half a file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
