"""The table's voice: every event the core publishes passes through one ``Emitter``.

It numbers events (``seq`` per table, ``prev_seq`` per feed), raises alerts with their rule ID
and keeps the critical ones open until acknowledged, and collects what one input produced. It
outlives every hand, because a seq is never reused and an open alert survives its hand.
Pure: no clock (the input's timestamp is the event's ``ts``), no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablesvc.core import events as ev
from tablesvc.core.requests import EquityRequest


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to a command, for ``cmd/<name>/reply``. Not an event: it has no seq."""

    cmd: str
    request_id: Any
    ok: bool
    error: str | None = None
    data: Any = None

    def payload(self) -> dict[str, Any]:
        return {"request_id": self.request_id, "ok": self.ok, "error": self.error,
                "data": self.data}


@dataclass(frozen=True, slots=True)
class Note:
    """A diagnostic for the service log (a dropped frame, say). Never carries a hole card."""

    level: str
    message: str
    fields: dict[str, Any]


@dataclass(slots=True)
class HeldAlert:
    """A rule alert waiting to be confirmed: ``waiting`` are the devices that must still be
    heard, whole, after the input that raised it (``after``: that input's number)."""

    payload: dict[str, Any]
    cards: list[str] | None
    evidence: dict[str, Any] | None
    after: int
    waiting: set[str]


@dataclass(slots=True, init=False)
class Output:
    """Everything one input produced, in order.

    ``work``: computations the core asks for but does not do itself, because they take too
    long for the pipeline (win probabilities, ``tablesvc.core.equity``); their results come
    back as inputs. Replay ignores it: the results are in the journal.
    """

    events: list[ev.Event]
    replies: list[Reply]
    notes: list[Note]
    work: list[EquityRequest]

    def __init__(self) -> None:
        # written out: one is made per input, and the generated ``__init__`` of fields with
        # default factories took several times as long
        self.events = []
        self.replies = []
        self.notes = []
        self.work = []


class Emitter:
    """Numbers and collects the events of one table.

    ``current_hand`` answers the hand number an event belongs to when the caller gives none:
    the hand under way, or None between hands (DESIGN §8).
    """

    def __init__(self, venue: str, table: str, current_hand: Callable[[], int | None]) -> None:
        self.venue = venue
        self.table = table
        self.current_hand = current_hand
        self.seq = 0
        self.last_on_feed: dict[str, int | None] = {"public": None, "secure": None}
        self.alert_count = 0
        self.open_alerts: dict[str, str] = {}  # critical alerts not yet acknowledged: id -> name
        self.suspended: dict[str, str] = {}  # rule ID -> reason (DRAW-10)
        # a device is away: a rule alert may only be what it could not see; it is held back
        # and the table stops following the hand instead (``doubted``)
        self.doubt = False
        self.doubted = False
        # a rule alert waits until every device that was online has been heard after it, whole
        # (its next frame's seq shows nothing lost before it): a frame lost on a line is then
        # never taken for an irregularity (``confirm``, ``heard``, ``unconfirmed``)
        self.confirm_from: Callable[[], set[str]] | None = None
        self.held: list[HeldAlert] = []
        self.inputs = 0  # inputs begun: what "after" an alert means
        self.out = Output()
        self.ts = ""
        self.ms = 0
        self._saved: tuple[int, int | None, int | None, int, dict[str, str]] = (
            0, None, None, 0, self.open_alerts)
        self._own_open = False
        self._saved_held: list[tuple[HeldAlert, set[str]]] = []

    def begin(self, ts: str, ms: int) -> Output:
        """Start the output of a new input stamped ``ts`` (``ms`` since the epoch)."""
        self.out = Output()
        self.ts = ts
        self.ms = ms
        self.inputs += 1
        self._saved = (self.seq, self.last_on_feed["public"], self.last_on_feed["secure"],
                       self.alert_count, self.open_alerts)
        self._saved_held = [(h, set(h.waiting)) for h in self.held] if self.held else []
        self._own_open = False
        return self.out

    def rollback(self) -> None:
        """Forget everything the current input produced: its events, their seqs, the alerts
        it opened. For an input the core failed on: none of its events is published, so the
        feed has no gap and no event of a half-applied input."""
        seq, public, secure, count, open_alerts = self._saved
        self.seq, self.alert_count, self.open_alerts = seq, count, open_alerts
        self.last_on_feed = {"public": public, "secure": secure}
        self.out.events.clear()
        self.out.replies.clear()
        self.out.work.clear()
        self._own_open = False
        for h, waiting in self._saved_held:
            h.waiting = waiting
        self.held = [h for h, _ in self._saved_held]

    def _open_for_change(self) -> dict[str, str]:
        """The open alerts, copied once per input before its first change (for rollback)."""
        if not self._own_open:
            self.open_alerts = dict(self.open_alerts)
            self._own_open = True
        return self.open_alerts

    def close_alert(self, alert_id: str) -> None:
        """The floor acknowledged an open critical alert."""
        self._open_for_change().pop(alert_id, None)

    def emit(self, cls: type[ev.Event], **payload: Any) -> ev.Event:
        self.seq = seq = self.seq + 1
        feed = cls.FEED
        if "hand" not in payload:
            payload["hand"] = self.current_hand()
        # the envelope goes into the payload's own dict, which becomes the event's fields
        payload["venue"] = self.venue
        payload["table"] = self.table
        payload["seq"] = seq
        payload["prev_seq"] = self.last_on_feed[feed]
        payload["ts"] = self.ts
        event = cls.trusted_from(payload)
        self.last_on_feed[feed] = seq
        self.out.events.append(event)
        return event

    def alert(self, name: str, rule: str, severity: str, message: str, *,
              seat: int | None = None, remedy: str = "", cards: list[str] | None = None,
              evidence: dict[str, Any] | None = None, **extra: Any) -> None:
        """Raise one alert: public, without card identities; the cards and the evidence go
        to a secure ``alert_detail`` with the same id."""
        if self.doubt and severity != "info" and rule != "TABLE-00":
            self.doubted = True
            return
        if rule in self.suspended and severity != "info":
            severity = "info"  # DRAW-10: the players agreed to suspend this rule
            message = f"(rule {rule} suspended) {message}"
        payload = dict(name=name, rule=rule, severity=severity, seat=seat, message=message,
                       remedy=remedy, **extra)
        waiting: set[str] = set()
        if self.confirm_from is not None and severity != "info" and rule != "TABLE-00":
            waiting = self.confirm_from()
        if waiting or self.held:  # held, or behind one that is: the order stays the table's
            payload.setdefault("hand", self.current_hand())
            self.held.append(HeldAlert(payload, cards, evidence, self.inputs, waiting))
            return
        self._raise(payload, cards, evidence)

    def _raise(self, payload: dict[str, Any], cards: list[str] | None,
               evidence: dict[str, Any] | None) -> None:
        self.alert_count += 1
        alert_id = f"{self.table}-a{self.alert_count}"
        self.emit(ev.Alert, id=alert_id, **payload)
        if payload["severity"] == "critical":
            self._open_for_change()[alert_id] = payload["name"]
        if cards or evidence:
            extra = {"hand": payload["hand"]} if "hand" in payload else {}
            self.emit(ev.AlertDetail, id=alert_id, cards=cards or [], evidence=evidence or {},
                      **extra)

    def heard(self, device: str) -> None:
        """A frame of ``device`` arrived with nothing lost before it: the alerts raised
        before this input are confirmed as far as it goes, and those confirmed by every
        device are raised now, in order."""
        if not self.held:
            return
        for h in self.held:
            if h.after < self.inputs:
                h.waiting.discard(device)
        while self.held and not self.held[0].waiting:
            h = self.held.pop(0)
            self._raise(h.payload, h.cards, h.evidence)

    def release(self) -> None:
        """The service is stopping and nothing was seen to be lost: what waits is raised."""
        held, self.held = self.held, []
        for h in held:
            self._raise(h.payload, h.cards, h.evidence)

    def unconfirmed(self) -> list[HeldAlert]:
        """A device turned out to have lost frames (or went away) while alerts waited: what
        they claim may be only what it missed. They are dropped, and returned (the caller
        takes back what it did on their account)."""
        dropped, self.held = self.held, []
        return dropped

    def note(self, level: str, message: str, **fields: Any) -> None:
        self.out.notes.append(Note(level, message, fields))

    def reply(self, reply: Reply) -> None:
        self.out.replies.append(reply)
