"""Deck enrollment (DESIGN §5): 52 shoe reads of a fresh deck in new-deck order -> a deck file.

Nothing is written unless exactly 52 distinct, previously unknown UIDs were read: a deck file
with a wrong card in it would make the tracker call every hand with that card wrong.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import serial

from drivers.tsp import Frame, FrameError, LineSplitter, decode
from tablesvc.config.registry import RegistryError, load_chips, load_decks, write_json_atomic
from tablesvc.core.cards import new_deck_order

QUIET_AFTER_S = 1.0
"""After the 52nd card, wait this long: a 53rd read means the deck is not a deck."""


class EnrollError(Exception):
    pass


def _frames(url: str, baudrate: int, what: str) -> Iterator[Frame | None]:
    """Valid frames from a port; ``None`` every read timeout (0.1 s) so callers can give up."""
    try:
        port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.1)
    except (serial.SerialException, OSError) as exc:
        raise EnrollError(f"cannot open the {what} at {url}: {exc}") from None
    splitter = LineSplitter()
    try:
        while True:
            yield None
            try:
                data = port.read(256)
            except (serial.SerialException, OSError) as exc:
                raise EnrollError(f"the {what} at {url} went away (unplugged?): {exc}") from None
            for chunk in splitter.feed(data):
                try:
                    yield decode(chunk.decode("latin-1"))
                except FrameError:
                    continue  # noise on the line is not a card
    finally:
        # a port that went away may fail to close; it is gone either way
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()


def enroll_deck(url: str, baudrate: int, deck_id: str, folder: Path, *, timeout_s: float = 300,
                progress: Callable[[int], None] | None = None) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", deck_id):
        raise EnrollError(f"deck id {deck_id!r} must be 1-32 letters, digits, '-' or '_'")
    target = folder / f"{deck_id}.json"
    if target.exists():
        raise EnrollError(f"deck {deck_id} is already enrolled ({target})")
    try:
        known = load_decks(folder)
    except RegistryError as err:
        raise EnrollError(f"the deck folder has problems: {err}") from None
    uids: list[str] = []
    deadline = time.monotonic() + timeout_s
    quiet_until: float | None = None
    for frame in _frames(url, baudrate, "shoe"):
        now = time.monotonic()
        if quiet_until is not None and now >= quiet_until:
            break
        if now >= deadline:
            raise EnrollError(f"only {len(uids)} of 52 cards read before the timeout")
        if frame is None or frame.type != "DRAW":
            continue
        uid = frame.fields[0]
        if uid in uids:
            raise EnrollError(f"UID {uid} was read twice (card {len(uids) + 1})")
        found = known.lookup(uid)
        if found is not None:
            raise EnrollError(f"UID {uid} already belongs to deck {found[0]}")
        uids.append(uid)
        if len(uids) > 52:
            raise EnrollError("more than 52 cards were read")
        if progress:
            progress(len(uids))
        if len(uids) == 52:
            quiet_until = time.monotonic() + QUIET_AFTER_S
    cards = dict(zip(uids, new_deck_order(), strict=True))
    write_json_atomic(target, {"deck_id": deck_id, "cards": cards})
    return target


def enroll_chips(url: str, baudrate: int, zone: str, value: int, registry: Path, *,
                 timeout_s: float = 30) -> tuple[Path, int]:
    """Give ``value`` to every chip in the next inventory of ``zone``; returns (file, count).

    Chips already enrolled with the same value are left alone; a chip enrolled with another
    value refuses the whole enrollment, because a chip worth two values would corrupt every
    pot it touches.
    """
    if value <= 0:
        raise EnrollError("a chip value must be a positive number of chip units")
    try:
        known = load_chips(registry)
    except RegistryError as err:
        raise EnrollError(str(err)) from None
    deadline = time.monotonic() + timeout_s
    uids: list[str] | None = None
    for frame in _frames(url, baudrate, "chip reader"):
        if time.monotonic() >= deadline:
            raise EnrollError(f"no inventory of zone {zone} within {timeout_s:.0f} s")
        if frame is not None and frame.type == "CHIPS" and frame.fields[0] == zone:
            uids = frame.fields[1].split(" ") if frame.fields[1] else []
            break
    if not uids:
        raise EnrollError(f"zone {zone} is empty: put the chips to enroll on it")
    clash = sorted(u for u in uids if u in known and known[u] != value)
    if clash:
        raise EnrollError(f"{len(clash)} chip(s) are already enrolled with another value, "
                          f"e.g. {clash[0]} = {known[clash[0]]}")
    merged = {**known, **dict.fromkeys(uids, value)}
    write_json_atomic(registry, {"chips": merged})
    return registry, len(uids)
