"""The devices' health as the table sees it: a ``device_status`` when it changes, staleness.

Each device is a ``Link`` (``tablesvc.core.links``: its state and counters from its frames and
port changes). This room turns their changes into ``device_status`` events (at once for a
change of state, at most once a second for counters), makes a device that fell silent stale,
and tells the continuity monitor when one goes away or comes back.
"""

from __future__ import annotations

from collections.abc import Mapping

from tablesvc.core import events as ev
from tablesvc.core.continuity import Continuity
from tablesvc.core.emitter import Emitter
from tablesvc.core.inputs import PortChange
from tablesvc.core.links import (
    NEVER,
    STALE_AFTER_MS,
    STATUS_MIN_INTERVAL_MS,
    Link,
    expire,
    link_deadline,
    port_change,
)


class DeviceHealth:
    """Device status events and staleness for the links of one table."""

    def __init__(self, out: Emitter, links: Mapping[str, Link], continuity: Continuity) -> None:
        self.out = out
        self.links = links
        self.continuity = continuity
        self.due = 0
        """No link can go stale or owe a device_status before this input time (a lower bound
        of their deadlines): the links are walked only from then on (``expire``)."""

    def status(self, link: Link, ms: int) -> None:
        cn = link.counters
        counters = ev.Counters.trusted(ok=cn.ok, bad=cn.bad, lost=cn.lost, bad_crc=cn.bad_crc,
                                       malformed=cn.malformed, too_long=cn.too_long,
                                       garbage=cn.garbage, unknown_type=cn.unknown_type,
                                       duplicate=cn.duplicate)
        self.out.emit(ev.DeviceStatus, device=link.name, kind=link.kind, state=link.state,
                      model=link.model, firmware=link.firmware, counters=counters,
                      detail=link.detail)
        link.last_status_ms = ms
        link.dirty = False
        if (link.state == "online") == (link.name in self.continuity.away):
            self.continuity.health_changed(link)

    def expire(self, ms: int) -> None:
        """Devices that fell silent go stale; changed counters get their device_status.

        Called only once an input reaches ``due``: until then no link can be due, and walking
        them for every input was a measurable part of a frame's cost. The walk sets the next
        such time; whatever moves a link's deadline earlier (a frame, a port change) lowers it
        (``watch``, ``received``)."""
        due = NEVER
        for link in self.links.values():
            if link.state == "online" and ms - link.last_frame_ms >= STALE_AFTER_MS:
                if expire(link, ms):
                    link.detail = "no frame for 3 s"
                    self.status(link, ms)
            elif link.dirty and ms >= link.last_status_ms + STATUS_MIN_INTERVAL_MS:
                self.status(link, ms)
            at = link_deadline(link)
            if at is not None and at < due:
                due = at
        self.due = due

    def watch(self, link: Link) -> None:
        """``link`` changed: its deadline may now come before the others' (``expire``)."""
        at = link_deadline(link)
        if at is not None and at < self.due:
            self.due = at

    def received(self, link: Link) -> None:
        """``watch`` for a frame just received (every frame: kept short). The link is online
        now, so its deadline is its stale time, or sooner its counters' device_status."""
        at = link.last_frame_ms + STALE_AFTER_MS
        if link.dirty and link.last_status_ms + STATUS_MIN_INTERVAL_MS < at:
            at = link.last_status_ms + STATUS_MIN_INTERVAL_MS
        if at < self.due:
            self.due = at

    def port(self, inp: PortChange) -> None:
        link = self.links.get(inp.src)
        if link is None:
            self.out.note("warning", "port change of an unconfigured device", device=inp.src)
            return
        if port_change(link, inp.open, inp.detail, inp.ms):
            self.status(link, inp.ms)
        self.watch(link)
