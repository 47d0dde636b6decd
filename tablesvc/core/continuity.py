"""Whether the service still sees the whole table: devices away, frames lost, a restart.

The rules are checked against what the sensors report, so a hand can only be followed while
every device is there and no frame went missing. This monitor watches that and tells the table
when a hand can no longer be followed (it then becomes an untracked hand,
``tablesvc.core.untracked``), so that what a device could not see is never taken for an
irregularity. Devices that go away are one ``device_offline`` alert: every device that goes
within ``GROUP_MS`` of the first is named in the same alert (a simulator or a USB hub going
away takes all four at once: one cause, one alert). When a device comes back with nothing
lost, the hand goes on being followed.

It also keeps the *gap*: whether, since the last hand it placed, the service may have missed
something at the table (it started or restarted, its process was stopped, a device was away,
frames were lost). After a gap the table does not trust its own picture of where the hand is:
the next hand's button is read from the table's evidence (``tablesvc.core.placement``),
the cards collected meanwhile are not counted (BURN-08 needs a collection the service saw),
and, where a hand may have been dealt unseen, the stacks are no longer known exactly. And it
remembers whether the start of the next hand may have gone unseen (the service started, or
the console lost frames or was away since the last NEWHAND): a card dealt with no hand under
way is then the hand the service missed, not a card dealt after the end of one.
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
BURST_MS = 30
"""After the process was stopped, what the ports held is read in this time: frames of all
devices at once (a few kilobytes a port, read in one go each), stamped alike, in no order
across devices. Short, so that the dealer's next actions are read as they come."""
CARD_READERS = frozenset({"shoe", "cards"})
"""Device kinds that see the cards: while one of them reads, no hand is dealt unseen."""
GROUP_MS = 1200
"""Devices that go away within this time of the first are one fault: one alert names them all.
Wide enough for four devices whose last heartbeats were up to a second apart to go stale
together; short next to the 3 s a silent device takes to be stale at all."""


class Continuity(Monitor):
    RULES: ClassVar[dict[str, tuple[str, ...]]] = {
        "TABLE-00": ("device_offline",),
    }

    def __init__(self, out: Emitter, links: Mapping[str, Link]) -> None:
        self.out = out
        self.links = links
        self.away: dict[str, str] = {}  # device -> its state while it is not online
        self.closed: set[str] = set()  # ... of them, ports the service closed: it is stopping
        self.alerted: set[str] = set()  # devices away that the floor has been told about
        # devices gone whose one alert is still gathering: name -> (when, how it went)
        self.pending: dict[str, tuple[int, str]] = {}
        self.start_unseen = False  # the next hand's NEWHAND may not have been seen
        # devices not heard from since the service (re)started: whether they sent something
        # while it was down shows in their next frame's seq
        self.awaiting: set[str] = set()
        self.gap: str | None = None  # what the service may have missed since the last placed hand
        self.hands_unseen = False  # ... among it, the start of a hand (stacks may have changed)
        self.newhands_unseen = False  # ... or a console's NEWHAND (hands seen as one)
        self.gap_told = False  # the floor has had a warning for this gap already
        self.readers_away: set[str] = set()  # the card readers away at some time of the gap
        self.counted: set[int] = set()  # seats the floor counted since the gap (cmd/stacks)
        self.burst_until = 0  # input time until which a burst read after a pause lasts
        self.gaps = 0  # gaps seen so far: whether one came while something was being read
        self.stops = 0  # ... of them, the service's own (a restart, a pause)
        self.reader_gaps = 0  # ... of them, a card reader's (a card's way may have been missed)

    # ------------------------------------------------------------------ devices
    def health_changed(self, link: Link) -> None:
        """A device's health changed: away (one alert, gathered with the others that go at
        the same moment) or back."""
        if link.state == "online":
            self.away.pop(link.name, None)
            self.closed.discard(link.name)
            return
        if link.last_type is None:
            return  # never seen since the service started: nothing went away
        if link.name in self.away:
            self.away[link.name] = link.state
            return
        self.away[link.name] = link.state
        if link.detail == STOPPED:
            self.closed.add(link.name)
            return  # the service closed its own ports: it is stopping, nothing went away
        self.saw_gap(f"{link.name} was {link.state}", device=link)
        if link.kind == "console":
            self.start_unseen = True
        self.pending.setdefault(link.name, (self.out.ms, link.state))

    def deadline(self) -> int | None:
        """When the devices gone so far are told about in one alert."""
        return min(ms for ms, _ in self.pending.values()) + GROUP_MS if self.pending else None

    def expire(self, ms: int) -> None:
        """The gathering time is over: one ``device_offline`` for every device that went."""
        due = self.deadline()
        if due is None or ms < due:
            return
        went = self.pending
        gone = sorted(went, key=lambda n: (went[n][0], n))
        self.pending = {}
        self.alerted.update(gone)
        self.gap_told = True
        links = [self.links[n] for n in gone]
        if len(links) == 1:
            link = links[0]
            state = self.away.get(link.name)
            now = f"is {state}" if state else f"was {went[link.name][1]} (back since)"
            message = (f"device {link.name} {now}: its last frame was {link.last_type} "
                       f"(seq {link.last_seq}) at {format_ts(link.last_frame_ms)}; while it is "
                       "away the hand under way is not checked")
            remedy = (f"check the {link.name} device and its cable; tracking resumes by itself "
                      "when it is back")
        else:
            names = _words(gone)
            states = _words([f"{n} {self.away.get(n) or went[n][1] + ', back since'}"
                             for n in gone])
            last = max(link.last_frame_ms for link in links)
            message = (f"devices {names} went away at once ({states}); the last frame came at "
                       f"{format_ts(last)}; while they are away the hand under way is not "
                       "checked")
            remedy = ("one cause takes them all: check the table box's power, its USB hub or "
                      "the reader's cable; tracking resumes by itself when they are back")
        self.out.alert("device_offline", "TABLE-00", "warning", message, remedy=remedy,
                       evidence={"devices": [{"device": link.name,
                                              "state": self.away.get(link.name, "online"),
                                              "last_frame": link.last_type,
                                              "last_seq": link.last_seq} for link in links]})

    def frames_lost(self, link: Link, awaited: bool = False) -> None:
        """Frames of ``link`` were lost (or it restarted): a console's may have held the
        next NEWHAND. ``awaited``: its first frame since the service (re)started, which
        tells of the restart's gap, not of a new one."""
        self.saw_gap(f"frames of {link.name} were lost", device=link, new=not awaited)
        if link.kind == "console":
            self.start_unseen = True

    def away_while(self, name: str, state: str) -> str | None:
        """A device other than ``name`` that is ``state`` (offline or stale), if any; not one
        whose port the service closed itself (it is stopping: what comes meanwhile from the
        ports still open is the last it reads)."""
        return next((d for d, s in self.away.items()
                     if d != name and s == state and d not in self.closed), None)

    def quiet(self, name: str) -> bool:
        """The floor was told that ``name`` is away (or is about to be, in the one alert
        that is gathering the devices gone at the same moment)."""
        return name in self.alerted or name in self.pending

    @property
    def stopping(self) -> bool:
        """The service is closing its ports on its way out."""
        return bool(self.closed)

    # ------------------------------------------------------------------ the service
    def service_started(self, ms: int, why: str = "the service was not running") -> None:
        """The service (re)started, or its process ran again after a pause: it was not
        listening, which is no device's fault, and whatever was dealt meanwhile went unseen.
        Each device it knew tells by its next frame whether it sent anything meanwhile."""
        self.start_unseen = True
        self.saw_gap(why)
        self.awaiting = {n for n, link in self.links.items() if link.last_type is not None}
        for link in self.links.values():
            link.last_frame_ms = max(link.last_frame_ms, ms)

    @property
    def unsure_of_start(self) -> bool:
        """A card with no hand under way may be a hand whose start went unseen: the NEWHAND
        may have been missed, or, after any gap, the end of the last hand the service saw may
        have been a picture built on what it missed."""
        return self.start_unseen or self.gap is not None

    def resumed(self, ms: int) -> None:
        """The process ran again after a pause: until ``BURST_MS`` after it, what is read
        is what the ports held, in the order the reader threads took it."""
        self.burst_until = ms + BURST_MS

    def blind(self, ms: int) -> bool:
        """The table cannot be followed now: a device is away, or a burst after a pause is
        being read."""
        return bool(self.away) or ms < self.burst_until

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

    # ------------------------------------------------------------------ the gap
    def saw_gap(self, why: str, device: Link | None = None, new: bool = True) -> None:
        """Something at the table may have gone unseen: ``why``, in words; ``device``: the
        device that missed it, None when the service itself did. A whole hand can go unseen
        only when nothing that reads the cards saw it: the service was not running, or every
        card reader was away at some time of the gap (with one of them, a hand dealt shows
        as cards without a hand, which is a hand missed and untracked)."""
        self.gaps += new
        if self.gap is None:
            self.gap = why
        if device is None:
            self.stops += 1
            self.hands_unseen = True
            return
        if device.kind == "console":
            # its frames (a NEWHAND among them) went unseen: where the service saw one hand
            # going on, one may have ended and another been dealt, which the button shows
            self.newhands_unseen = True
        if device.kind in CARD_READERS:
            self.reader_gaps += new
            self.readers_away.add(device.name)
            readers = {n for n, link in self.links.items() if link.kind in CARD_READERS}
            self.hands_unseen = self.hands_unseen or readers <= self.readers_away

    @property
    def telling(self) -> bool:
        """The floor has had, or is about to have (a device alert gathering), the one
        warning this gap is worth."""
        return self.gap_told or bool(self.pending)

    def told(self) -> None:
        """The floor has had the one warning this gap is worth."""
        self.gap_told = True

    def placed(self) -> None:
        """A hand was placed from the table's evidence: what was missed before it is behind."""
        self.gap = None
        self.hands_unseen = False
        self.newhands_unseen = False
        self.gap_told = False
        self.readers_away = set()
        self.counted = set()

    def new_hand(self) -> None:
        self.start_unseen = False
        self.alerted &= set(self.away) | set(self.pending)  # back since: a new outage is new


def _words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
