"""Whether the service still sees the whole table: devices away, frames lost, a restart.

The rules are checked against what the sensors report, so a hand can only be followed while
every device is there and no frame went missing. This monitor watches that and tells the table
when a hand can no longer be followed (it then becomes an untracked hand,
``tablesvc.core.untracked``), so that what a device could not see is never taken for an
irregularity. A device that goes away is one ``device_offline`` alert, naming the device and
its last frame; when it comes back with nothing lost, the hand goes on being followed.

It also remembers whether the start of the next hand may have gone unseen (the service
started, or the console lost frames or was away since the last NEWHAND): a card dealt with no
hand under way is then the hand the service missed, not a card dealt after the end of one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from tablesvc.core.emitter import Emitter
from tablesvc.core.inputs import format_ts
from tablesvc.core.links import Link
from tablesvc.core.monitors.base import Monitor

STOPPED = "stopped"
"""The detail of a port the service closed itself, on its way out (drivers.transport)."""


class Continuity(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "TABLE-00": ("device_offline",),
    }

    def __init__(self, out: Emitter, links: Mapping[str, Link]) -> None:
        self.out = out
        self.links = links
        self.away: dict[str, str] = {}  # device -> its state while it is not online
        self.alerted: set[str] = set()  # devices away that the floor has been told about
        self.start_unseen = False  # the next hand's NEWHAND may not have been seen
        # devices not heard from since the service (re)started: whether they sent something
        # while it was down shows in their next frame's seq
        self.awaiting: set[str] = set()

    # ------------------------------------------------------------------ devices
    def health_changed(self, link: Link) -> None:
        """A device's health changed: away (one alert) or back."""
        if link.state == "online":
            self.away.pop(link.name, None)
            return
        if link.last_type is None:
            return  # never seen since the service started: nothing went away
        if link.name in self.away:
            self.away[link.name] = link.state
            return
        self.away[link.name] = link.state
        if link.detail == STOPPED:
            return  # the service closed its own ports: it is stopping, nothing went away
        self.alerted.add(link.name)
        if link.kind == "console":
            self.start_unseen = True
        self.out.alert("device_offline", "TABLE-00", "warning",
                       f"device {link.name} is {link.state}: its last frame was "
                       f"{link.last_type} (seq {link.last_seq}) at "
                       f"{format_ts(link.last_frame_ms)}; while it is away the hand under way "
                       "is not checked", remedy=f"check the {link.name} device and its cable; "
                       "tracking resumes by itself when it is back")

    def frames_lost(self, link: Link) -> None:
        """Frames of ``link`` were lost (or it restarted): a console's may have held the
        next NEWHAND."""
        if link.kind == "console":
            self.start_unseen = True

    def away_while(self, name: str, state: str) -> str | None:
        """A device other than ``name`` that is ``state`` (offline or stale), if any."""
        return next((d for d, s in self.away.items() if d != name and s == state), None)

    def quiet(self, name: str) -> bool:
        """The floor was already told that ``name`` is away."""
        return name in self.alerted

    # ------------------------------------------------------------------ the service
    def service_started(self, ms: int) -> None:
        """The service (re)started: it was not listening, which is no device's fault, and
        whatever was dealt meanwhile went unseen. Each device it knew tells by its next frame
        whether it sent anything meanwhile."""
        self.start_unseen = True
        self.awaiting = {n for n, link in self.links.items() if link.last_type is not None}
        for link in self.links.values():
            link.last_frame_ms = max(link.last_frame_ms, ms)

    def heard(self, name: str) -> None:
        self.awaiting.discard(name)

    @property
    def in_doubt(self) -> bool:
        """The service may not see everything now: a device is away, or has not answered
        since a restart. A rule alert now may be only what it missed."""
        return bool(self.away) or bool(self.awaiting)

    def doubt(self) -> tuple[str | None, bool]:
        """Why the service may not see everything now, and whether the floor has been told
        (a device_offline)."""
        if self.away:
            name, state = next(iter(self.away.items()))
            return (f"{name} is {state}, and what it did not see cannot be followed",
                    self.quiet(name))
        if self.awaiting:
            return ("the service restarted during the hand and "
                    f"{', '.join(sorted(self.awaiting))} has not been heard from since", False)
        return None, False

    def new_hand(self) -> None:
        self.start_unseen = False
        self.alerted &= set(self.away)  # back since: a new outage is a new alert
