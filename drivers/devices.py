"""Device kinds, looked up by name from the config.

A registry, as in python-can's interfaces, lets the config say ``kind = "shoe"`` and lets a
new kind be added in one place without touching the code that reads the config. A kind only
knows which TSP/1 frame types it may send, so a frame of the wrong type from a device can be
told apart from a real event.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.tsp import FRAME_TYPES

COMMON_TYPES = frozenset({"HELLO", "HB", "ERR"})
"""Types every device sends: boot, liveness and faults."""


@dataclass(frozen=True)
class DeviceKind:
    """What one kind of device is allowed to say on the wire."""

    name: str
    frame_types: frozenset[str]
    description: str


_KINDS: dict[str, DeviceKind] = {}


def register_kind(kind: DeviceKind) -> None:
    """Add a kind. Registering the same definition twice is harmless; a conflicting one is not.

    A kind may only claim frame types the codec can decode, since frames of any other type
    are dropped before they could ever reach it.
    """
    if not kind.name:
        raise ValueError("a device kind needs a name")
    unknown = kind.frame_types - FRAME_TYPES
    if unknown:
        raise ValueError(f"device kind {kind.name!r}: unknown frame types {sorted(unknown)}")
    existing = _KINDS.get(kind.name)
    if existing is not None and existing != kind:
        raise ValueError(f"device kind {kind.name!r} is already registered differently")
    _KINDS[kind.name] = kind


def get_kind(name: str) -> DeviceKind:
    """The kind called ``name``; a typo in the config should say what would have worked."""
    try:
        return _KINDS[name]
    except KeyError:
        raise KeyError(
            f"unknown device kind {name!r}; known kinds: {', '.join(known_kinds())}"
        ) from None


def known_kinds() -> list[str]:
    """Registered kind names, sorted so that messages and listings are stable."""
    return sorted(_KINDS)


for _kind in (
    DeviceKind("shoe", COMMON_TYPES | {"DRAW", "RET", "DECK"}, "card shoe: the true deal order"),
    DeviceKind("cards", COMMON_TYPES | {"ARR", "DEP"}, "card antennas: where each card landed"),
    DeviceKind("chips", COMMON_TYPES | {"CHIPS"}, "chip readers: bet zones, pot and tray"),
    DeviceKind("console", COMMON_TYPES | {"BTN"}, "dealer console buttons"),
):
    register_kind(_kind)
del _kind
