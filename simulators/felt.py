"""The table surface as the antennas see it: every physical change becomes frames.

This is the one place that knows how a movement looks on the wire (DESIGN §3-§4): a card taken
from the shoe is ``DRAW`` then ``ARR``; a card moved is ``DEP`` from where it lay then ``ARR``
where it lands; a chip zone that changes reports its complete inventory. The dealer's procedure
(``table.py``) only moves things; injecting dealer errors later means moving things wrongly,
not writing frames by hand.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from simulators.device import VirtualDevice

MAX_ZONE_CHIPS = 48
"""Most chips one zone may hold: an inventory of 16-digit UIDs must fit one 1024-byte frame
(about 57 UIDs), and a dealer colours up well before that."""

SEATS = range(1, 11)
CHIP_ZONES: tuple[str, ...] = (*(f"B{s}" for s in SEATS), "POT")
STACK_ZONES: tuple[str, ...] = tuple(f"P{s}" for s in SEATS)
"""The players' stacks, where a table has stack zones (DESIGN §3)."""


PERSONS = frozenset({"chips", "console"})
"""Devices that see a person's action (a bet, a button), not the dealer's hands on cards."""


class Pacer:
    """Time between physical actions, so that a watching person (or a timer) sees a real pace.

    Waiting on an event, not sleeping, lets a stop request cut the pace at once: the hand then
    finishes at full speed and leaves the table clean. ``hold`` makes the dealer wait before
    the next physical action (while the devices keep sending heartbeats and inventories), so
    a test can do something to the service at a known point of the hand; a stop overrides it.
    ``release(steps)`` lets him take only that many more actions before he stands still again,
    so that a test can stop him at a point it cannot watch (the service being down, say).

    ``handover`` is the least time between two actions on different devices when a person
    acts on one of them (a bet's chips, then the next player's button; the dealer's button,
    then the cards): no one at a table acts within milliseconds of someone else, and frames of
    two devices written closer than a few milliseconds apart can reach the service's
    per-device readers in either order. ``boundary`` (the NEWHAND) waits four times as long.
    A fast pace with a hand-over pause deals thousands of hands that stay in order; 0 (the
    default) keeps one pace for every action.
    """

    def __init__(self, pace: float, stop: threading.Event | None = None,
                 handover: float = 0.0) -> None:
        if pace < 0 or handover < 0:
            raise ValueError("pace and hand-over pause cannot be negative")
        self.pace = pace
        self.handover = handover
        self._last_device: str | None = None
        self.stop = stop or threading.Event()
        self._go = threading.Event()
        self._go.set()
        self._waiting = False
        self._hold_at: int | None = None
        self.steps = 0
        """Physical actions taken so far (each ``step`` that returned)."""

    def hold(self) -> None:
        self._hold_at = None
        self._go.clear()

    def release(self, steps: int | None = None) -> None:
        """Go on; with ``steps``, hold again once that many more actions have been taken."""
        self._hold_at = None if steps is None else self.steps + steps
        self._waiting = False  # he is on his way: ``waiting`` is next true at the next hold
        self._go.set()

    @property
    def waiting(self) -> bool:
        """True while the dealer stands still at a hold."""
        return self._waiting

    @property
    def held(self) -> bool:
        """A hold is placed: the dealer stands still, or will at his next action."""
        return not self._go.is_set()

    def step(self, device: str | None = None, *, boundary: bool = False) -> None:
        """Wait out the pace, then any hold; a hold placed during the pace applies at once.

        ``device``: the device this action is seen by, for the hand-over pause.
        """
        deadline = time.monotonic() + self.pause_before(device, boundary)
        while not self.stop.is_set():
            hold_at = self._hold_at
            if hold_at is not None and self.steps >= hold_at:
                self.hold()
            if not self._go.is_set():
                self._waiting = True
                try:
                    while not self._go.is_set() and not self.stop.is_set():
                        self._go.wait(0.05)
                finally:
                    self._waiting = False
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.stop.wait(min(left, 0.05))
        self.steps += 1


    def pause_before(self, device: str | None, boundary: bool = False) -> float:
        """Seconds to wait before an action seen by ``device`` (remembered as the last)."""
        if device is None:
            return self.pace
        last, self._last_device = self._last_device, device
        if last is None or last == device or not PERSONS & {last, device}:
            return self.pace
        return max(self.pace, self.handover * (4 if boundary else 1))


class Felt:
    """Where every card and every chip lies, and the devices that report it.

    With ``stack_zones`` the chip reader also reads ``P1``..``P10``, the players' stacks: in
    its refresh, and right after it boots. With a ``button_tag`` the dealer button carries
    that tag: the card antennas read it in the seat zone it lies in, when they boot and
    whenever it moves (``move_button``).
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        pacer: Pacer,
        chip_zones: Sequence[str] = CHIP_ZONES,
        *,
        stack_zones: bool = False,
        button_tag: str | None = None,
    ) -> None:
        missing = {"cards", "chips", "console"} - set(devices)
        if missing:
            raise ValueError(f"a table needs the devices {sorted(missing)}")
        self._shoe = devices.get("shoe")  # a shoe is optional (DESIGN §3, step 4)
        self._cards = devices["cards"]
        self._chips = devices["chips"]
        self._console = devices["console"]
        self.pacer = pacer
        self._lock = threading.RLock()
        self._card_zone: dict[str, str] = {}
        zones = [*chip_zones, *(STACK_ZONES if stack_zones else ())]
        self._chip_zone: dict[str, list[str]] = {z: [] for z in zones}
        self.stack_zones = stack_zones
        self.button_tag = button_tag
        self._button_zone: str | None = None
        # Boot reports read the felt without its lock (the device is held while they run, and
        # the felt's holders wait for the device: the other order would deadlock); what they
        # read is changed only while the device is held, right after the frame that tells it.
        if stack_zones:
            self._chips.set_boot_report(self._stack_inventories)
        if button_tag is not None:
            self._cards.set_boot_report(self._button_reading)

    @property
    def devices(self) -> dict[str, VirtualDevice]:
        """The devices this felt reports through, by name (``shoe`` only when there is one):
        so that someone else, a scenario, can send on the same wires."""
        found = {
            "shoe": self._shoe,
            "cards": self._cards,
            "chips": self._chips,
            "console": self._console,
        }
        return {name: device for name, device in found.items() if device is not None}

    # cards -----------------------------------------------------------------------------------

    def deal(self, uid: str, zone: str, face: str = "D") -> None:
        """Take the top card of the shoe and put it in ``zone``."""
        self.pacer.step("cards")
        with self._lock:
            if uid in self._card_zone:
                raise ValueError(f"card {uid} is already out, in {self._card_zone[uid]}")
            if self._shoe is not None:
                self._shoe.send("DRAW", uid, face)
            self._cards.send("ARR", zone, uid)
            self._card_zone[uid] = zone

    def move_card(self, uid: str, zone: str) -> None:
        self.pacer.step("cards")
        with self._lock:
            self._move_locked(uid, zone)

    def move_cards(self, uids: Iterable[str], zone: str) -> None:
        """Several cards in one motion (a folded hand thrown in, a board swept up)."""
        self.pacer.step("cards")
        with self._lock:
            for uid in uids:
                self._move_locked(uid, zone)

    def _move_locked(self, uid: str, zone: str) -> None:
        src = self._card_zone[uid]
        if src == zone:
            return
        self._cards.send("DEP", src, uid)
        self._cards.send("ARR", zone, uid)
        self._card_zone[uid] = zone

    def pick_up(self, uids: Iterable[str]) -> None:
        """Take cards off the felt into the dealer's hand (to build a new pack): DEP only."""
        self.pacer.step("cards")
        with self._lock:
            for uid in uids:
                self._cards.send("DEP", self._card_zone.pop(uid), uid)

    def load_shoe(self, uids: Sequence[str]) -> None:
        """A freshly made pack goes into the shoe; a shoe with a reader reports it, top first.

        The pack may hold cards the felt no longer tracks (picked up) and cards that never
        left the shoe (the bottom card); none of them may still lie on the felt.
        """
        self.pacer.step("shoe")
        with self._lock:
            out = [u for u in uids if u in self._card_zone]
            if out:
                raise ValueError(f"cards still on the felt cannot go into the shoe: {out}")
            if self._shoe is not None:
                self._shoe.send("DECK", " ".join(uids))

    def cards_in(self, zone: str) -> list[str]:
        with self._lock:
            return [u for u, z in self._card_zone.items() if z == zone]

    def card_zones(self) -> dict[str, str]:
        with self._lock:
            return dict(self._card_zone)

    def return_cards_to_shoe(self) -> None:
        """The collected deck goes back for the shuffle; the antennas no longer see it."""
        with self._lock:
            stray = {u: z for u, z in self._card_zone.items() if z != "MUCK"}
            if stray:
                raise RuntimeError(f"cards not collected: {stray}")
            self._card_zone.clear()

    # chips -----------------------------------------------------------------------------------

    def set_chips(self, zone: str, uids: Sequence[str], *, paced: bool = True) -> None:
        """A zone's chips changed: report its complete inventory.

        ``paced=False`` inside a ``motion`` (which took the step), and for whatever happens
        while the dealer stands still (someone else's hands: they must not wait for his)."""
        if len(uids) > MAX_ZONE_CHIPS:
            raise ValueError(f"{len(uids)} chips in {zone}; colour up first")
        if paced:
            self.pacer.step("chips")
        with self._lock, self._chips.atomic():
            self._chips.send("CHIPS", zone, " ".join(uids))
            self._chip_zone[zone] = list(uids)

    def place_chips(self, zone: str, uids: Sequence[str]) -> None:
        """Chips that lay in ``zone`` before the reader started: no frame (it tells them when
        it boots, or in its refresh)."""
        with self._lock, self._chips.atomic():
            self._chip_zone[zone] = list(uids)

    @contextmanager
    def motion(self, *, paced: bool = True) -> Iterator[None]:
        """One motion that several chip zones report (a bet leaving a stack for the bet zone):
        the dealer stands still before it, if at all, never in the middle of it, and nothing
        else the chip reader sends comes between its inventories. Report with
        ``set_chips(..., paced=False)`` inside."""
        if paced:
            self.pacer.step("chips")
        with self._lock, self._chips.atomic():
            yield

    def _stack_inventories(self) -> list[tuple[str, ...]]:
        return [("CHIPS", zone, " ".join(self._chip_zone[zone])) for zone in STACK_ZONES]

    def chips(self, zone: str) -> list[str]:
        with self._lock:
            return list(self._chip_zone.get(zone, []))

    def refresh_chips(self) -> None:
        """Repeat every inventory: a reader sends each zone at least every 2 s (DESIGN §4)."""
        with self._lock:
            for zone, uids in self._chip_zone.items():
                self._chips.send("CHIPS", zone, " ".join(uids))

    # the dealer button ------------------------------------------------------------------------

    @property
    def button_zone(self) -> str | None:
        """The seat zone the tagged button lies in (None without a tag)."""
        return self._button_zone

    def place_button(self, seat: int) -> None:
        """The tagged button lay at ``seat`` before the antennas started: no frame (they
        read it when they boot)."""
        if self.button_tag is None:
            return
        with self._lock, self._cards.atomic():
            self._button_zone = f"S{seat}"

    def move_button(self, seat: int, *, paced: bool = True) -> None:
        """The dealer moves the tagged button to ``seat``: ``DEP`` where it lay, then ``ARR``.

        ``paced=False`` for a move made while the dealer stands still (by someone else)."""
        tag, zone = self.button_tag, f"S{seat}"
        if tag is None or self._button_zone == zone:
            return
        if paced:
            self.pacer.step("cards")
        with self._lock, self._cards.atomic():
            # frame first, then the state: a HELLO before either frame reads where it was
            if self._button_zone is not None:
                self._cards.send("DEP", self._button_zone, tag)
                self._button_zone = None
            self._cards.send("ARR", zone, tag)
            self._button_zone = zone

    def _button_reading(self) -> list[tuple[str, ...]]:
        zone, tag = self._button_zone, self.button_tag
        return [("ARR", zone, tag)] if zone is not None and tag is not None else []

    # console ---------------------------------------------------------------------------------

    def press(self, name: str, *args: str) -> None:
        self.pacer.step("console", boundary=name == "NEWHAND")
        self._console.send("BTN", name, *args)
