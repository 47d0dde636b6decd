"""What a listener learns from a virtual table's frames: the zones' chips, the tags in card
zones. Test code for the simulator's tests; it knows the wire (TSP/1), not the tracker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from drivers.tsp import Frame, decode


def frames_of(recorded: Iterable[tuple[str, bytes]]) -> list[Frame]:
    """Recorded (device, bytes) -> decoded frames, in the order they were written."""
    return [decode(raw.decode("ascii").rstrip("\r\n")) for _, raw in recorded]


def is_stack_zone(zone: str) -> bool:
    """``P1``..``P10`` (not ``POT``)."""
    return zone[:1] == "P" and zone[1:].isdigit()


def chips_of(frame: Frame) -> list[str]:
    """The UIDs of a CHIPS inventory."""
    return frame.fields[1].split() if len(frame.fields) > 1 else []


@dataclass
class ZoneView:
    """The chip zones as the last inventories told them, valued by the chip registry."""

    values: Mapping[str, int]
    zones: dict[str, list[str]]

    @classmethod
    def of(cls, values: Mapping[str, int]) -> ZoneView:
        return cls(values, {})

    def read(self, frame: Frame) -> None:
        if frame.type == "CHIPS":
            self.zones[frame.fields[0]] = chips_of(frame)

    def value(self, zone: str) -> int:
        return sum(self.values[u] for u in self.zones.get(zone, []))

    def total(self) -> int:
        return sum(self.value(z) for z in self.zones)

    def stacks(self) -> dict[int, int]:
        """Seat -> what its stack zone holds, for every stack zone that holds chips."""
        return {int(z[1:]): self.value(z) for z in sorted(self.zones)
                if is_stack_zone(z) and self.value(z)}


def stacks_at_newhands(frames: Iterable[Frame], values: Mapping[str, int]) -> list[dict[int, int]]:
    """The stacks the stack zones told at each NEWHAND, in order."""
    view = ZoneView.of(values)
    seen: list[dict[int, int]] = []
    for frame in frames:
        if frame.type == "BTN" and frame.fields[:1] == ("NEWHAND",):
            seen.append(view.stacks())
        view.read(frame)
    return seen
