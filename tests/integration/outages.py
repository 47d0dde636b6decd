"""Outages of a live room while the dealer deals on, and the verdict on what the service made
of each: the test kit the outage tests and the room soak share.

A ``Room`` is a ``LiveTable`` whose dealer never waits for the service: he deals on through a
killed, stopped, frozen or wiped service, a cable pulled out, a device that resets or a line
that loses frames, exactly as a table does while its box is away. ``Room.accident`` does one
accident and then waits (for conditions only) until the service has followed the hands after
its return; ``judge`` then compares everything the service published with the virtual table's
records, the truth:

- every hand it followed is one of the table's, in order, with its button, board, hole cards
  (the secure feed), outcome, pots and stacks (those not marked ``unverified``) right;
- from the hand after the one under way when it was back, every hand is followed;
- per accident at most one hand ends untracked (exactly the one open when a killed or stopped
  service went down, if one was), at most one warning reaches the floor and never a critical,
  drawn from what the accident may be worth (``ALLOWED``); exactly one when hands went by
  unseen, so that the floor knows to count the chips; none in the hands after the first one
  followed after the accident;
- the first hand followed after a restart carries one ``button_found`` notice (info, on
  ``events`` only: naming that hand, or given just before it starts) naming the table's
  button; no accident gives more than one, and only for a hand followed.

"The first hand it must follow" is the one after the hand under way when the service was seen
back (its ``service_started`` and every device online again; for a freeze, every device's
frames sent after SIGCONT journalled): at most one hand later than the first NEWHAND it could
have seen whole, so that no verdict depends on how fast the test saw it come back.

Test code only.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from simulators.table import HandRecord
from tablesvc.pipeline.pause import PAUSE_S
from tests.integration.live_room import (
    DEVICES,
    WAIT,
    Dealing,
    JournalTail,
    LiveTable,
    device_seqs,
    wait_read_since,
)

KINDS = ("kill", "stop", "freeze", "empty_storage", "cable", "reset", "lost")
FREEZE_MIN_S = 2 * PAUSE_S
"""The shortest freeze: the dealer deals twenty times faster than a table, so the ports fill
twenty times faster too. A freeze that holds a hand's frames lasts a minute at a table, far
beyond the pause the service notices (``PAUSE_S``); a freeze shorter than that holds a few
frames at a table, and a hand's worth here: no accident a table has."""
"""What befalls the service (or a device, or its line) while the dealer deals on."""
RESTARTS = frozenset({"kill", "stop", "empty_storage"})
"""Accidents after which a new process starts: it cannot know what was dealt meanwhile."""
HAND_WARNINGS = frozenset({"hand_untracked", "stacks_unverified"})
ALLOWED: dict[str, frozenset[str]] = {
    "start": frozenset(),
    "kill": HAND_WARNINGS,
    "stop": HAND_WARNINGS,
    "empty_storage": HAND_WARNINGS,
    "freeze": HAND_WARNINGS,
    "cable": HAND_WARNINGS | {"device_offline"},
    "reset": HAND_WARNINGS,
    "lost": HAND_WARNINGS,
}
"""The floor alerts (warning) an accident may be worth: one at most, never a critical. A
frozen process is no device's fault: its devices went on sending, so ``device_offline`` is not
among its alerts; nor is it of a device that reset or a line that lost a few frames, which
were away for no time at all."""
STALE_S = 3.0
"""A device silent (or away) this long is a fault the floor must hear of (DESIGN §4)."""


@dataclass
class Accident:
    """One accident as the test made it, and where it stood in the table's session."""

    kind: str
    length: float = 0.0
    """Seconds it was to last at least: the cable out, the process away or stopped."""
    lasted: float = 0.0
    """Seconds from its start until the service was seen back (for the record only)."""
    device: str | None = None
    """The device whose cable was pulled, that reset, or whose line lost frames."""
    frames: int = 0
    """Frames the line lost."""
    hands: int = 0
    """Whole hands the dealer dealt while it lasted, at least (the test waited for them)."""
    mark: int = 0
    """Where the public feed stood when it began: hands ended after it are its own."""
    dealt_before: int = 0
    """Hands the table had finished when it began."""
    down_feed: int = -1
    """Where the public feed stood when the service had gone down (-1: it never went)."""
    back: int = 0
    """Where the public feed stood when the service was seen back (for a restart: its
    ``service_started``)."""
    dealt_back: int = 0
    """Hands the table had finished when the service was seen back."""
    must_follow: int = 0
    """The first of the table's hands the service must follow: the one after the hand under
    way when it was back (that one it may have seen from its start, or not)."""
    checked_through: int = 0
    """The last of the table's hands the service was seen to follow after it."""
    counted_after: int | None = None
    """The floor counted the chips after this hand of the table (``cmd/stacks``)."""
    epoch: int = 0
    """The storage the service had after it (an emptied storage starts a new one)."""
    seed: int | None = None

    def describe(self) -> str:
        what = {"kill": "SIGKILL", "stop": "clean stop (SIGTERM)", "freeze": "SIGSTOP/SIGCONT",
                "empty_storage": "clean stop, storage emptied, start",
                "cable": f"{self.device} cable pulled", "start": "the session's start",
                "reset": f"{self.device} reset", "lost": f"{self.frames} {self.device} frames lost"}
        if self.kind == "start":
            return what["start"]
        if self.kind in ("reset", "lost"):
            return (f"{what[self.kind]} after table hand {self.dealt_before}, back after hand "
                    f"{self.dealt_back}")
        return (f"{what[self.kind]} for {self.length:.1f} s (back after {self.lasted:.1f} s) "
                f"after table hand {self.dealt_before}, back after hand {self.dealt_back}")


@dataclass
class ServiceHand:
    """One hand as the service published it (its events on both feeds)."""

    epoch: int
    number: int
    started: dict[str, Any] | None = None
    ended: dict[str, Any] | None = None
    pos_started: int = -1
    pos_ended: int = -1
    first_holes: dict[int, list[str]] = field(default_factory=dict)
    last_holes: dict[int, list[str]] = field(default_factory=dict)
    pots: list[tuple[int, dict[int, int]]] = field(default_factory=list)
    alerts: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    record: HandRecord | None = None
    """The table's hand it is (followed hands only)."""

    @property
    def followed(self) -> bool:
        return self.ended is not None and self.ended["reason"] != "untracked"

    @property
    def untracked(self) -> bool:
        return self.ended is not None and self.ended["reason"] == "untracked"

    def name(self) -> str:
        table = f" (table hand {self.record.number})" if self.record else ""
        storage = f" of storage {self.epoch + 1}" if self.epoch else ""
        return f"service hand {self.number}{storage}{table}"


class HandBook:
    """The hands the service published, kept up to date from the table's feeds as they come
    (each event is looked at once: a soak's feed holds hundreds of thousands)."""

    def __init__(self, t: LiveTable) -> None:
        self.t = t
        self._hands: dict[tuple[int, int], ServiceHand] = {}
        self._public = 0
        self._secure = 0

    def _hand(self, epoch: int, number: int) -> ServiceHand:
        return self._hands.setdefault((epoch, number), ServiceHand(epoch, number))

    def update(self) -> list[ServiceHand]:
        """Every hand the service published, in the order it started them."""
        feeds = self.t.feeds
        feeds.update()
        public, secure = feeds.public, feeds.secure
        for pos in range(self._public, len(public)):
            e = public[pos]
            if e.get("hand") is None:
                continue
            h = self._hand(feeds.epoch_of_public[pos], e["hand"])
            kind = e["type"]
            if kind == "hand_started":
                h.started, h.pos_started = e, pos
            elif kind == "hand_ended":
                h.ended, h.pos_ended = e, pos
            elif kind == "pot_awarded":
                h.pots.append((e["amount"], {int(k): v for k, v in e["shares"].items()}))
            elif kind == "alert":
                h.alerts.append((pos, e))
            if h.pos_started < 0:
                h.pos_started = pos
        self._public = len(public)
        for pos in range(self._secure, len(secure)):
            e = secure[pos]
            if e["type"] != "hole_cards" or e.get("hand") is None:
                continue
            h = self._hand(feeds.epoch_of_secure[pos], e["hand"])
            h.first_holes.setdefault(e["seat"], list(e["cards"]))
            h.last_holes[e["seat"]] = list(e["cards"])
        self._secure = len(secure)
        return sorted((h for h in self._hands.values() if h.pos_started >= 0),
                      key=lambda h: h.pos_started)


def identity(r: HandRecord) -> dict[int, tuple[str, ...]]:
    """What tells a hand from every other: each seat's cards as dealt, in any order."""
    dealt = r.dealt if r.variant == "draw5" else r.hole_cards
    return {s: tuple(sorted(dealt[s])) for s in r.seats}


def holes_of(h: ServiceHand) -> dict[int, tuple[str, ...]]:
    return {s: tuple(sorted(c)) for s, c in h.first_holes.items()}


def match(h: ServiceHand, records: list[HandRecord], after: int) -> HandRecord | None:
    """The table's hand (after hand ``after``) the service's hand ``h`` is: the one with the
    same cards dealt; failing that the one sharing the most seats' cards, so that a wrong
    hand is reported against the hand it was meant to be."""
    mine = holes_of(h)
    best: tuple[int, HandRecord] | None = None
    for r in records[after:]:
        theirs = identity(r)
        if theirs == mine:
            return r
        same = sum(1 for s, c in mine.items() if theirs.get(s) == c)
        if same and (best is None or same > best[0]):
            best = (same, r)
    return best[1] if best is not None and 2 * best[0] >= len(mine) else None


def follows(hands: list[ServiceHand], record: HandRecord, ended: bool = False) -> bool:
    """The service has dealt the table's hand out with its cards (and, if asked, ended it):
    it follows that hand."""
    want = identity(record)
    return any(holes_of(h) == want and (h.ended is not None or not ended)
               for h in hands[-12:])


def wrong_in(h: ServiceHand, r: HandRecord) -> list[str]:
    """What the service got wrong in a hand it followed (empty: all of it right)."""
    problems: list[str] = []
    started, ended = h.started or {}, h.ended or {}
    if started.get("button") != r.button:
        problems.append(f"button {started.get('button')}, the table's {r.button}")
    if list(ended.get("board", [])) != list(r.board):
        problems.append(f"board {ended.get('board')}, the table's {list(r.board)}")
    if r.variant == "draw5":
        dealt = {s: sorted(c) for s, c in h.first_holes.items()}
        final = {s: sorted(c) for s, c in h.last_holes.items()}
        if dealt != {s: sorted(r.dealt[s]) for s in r.seats}:
            problems.append("the cards dealt differ from the table's")
        if final != {s: sorted(r.final_cards[s]) for s in r.seats}:
            problems.append("the cards held after the draw differ from the table's")
    elif h.last_holes != {s: list(r.hole_cards[s]) for s in r.seats}:
        problems.append("hole cards differ from the table's")
    if ended.get("reason") != r.outcome:
        problems.append(f"ended {ended.get('reason')}, the table's {r.outcome}")
    if h.pots != [(p.amount, dict(p.shares)) for p in r.pots]:
        problems.append(f"pots {h.pots}, the table's "
                        f"{[(p.amount, dict(p.shares)) for p in r.pots]}")
    seats = {i["seat"] for i in started.get("seats", [])}
    if seats != set(r.seats):
        problems.append(f"seats {sorted(seats)} dealt in, the table's {sorted(r.seats)}")
    for when, infos, truth in (("starts", started.get("seats", []), r.stacks_before),
                               ("ends", ended.get("stacks", []), r.stacks_after)):
        off = {i["seat"]: (i["stack"], truth.get(i["seat"], 0)) for i in infos
               if i["seat"] in r.seats and not i.get("unverified")
               and i["stack"] != truth.get(i["seat"], 0)}
        if off:
            problems.append(f"{when} with stacks not marked unverified and not the table's "
                            "(seat: service/table) " + ", ".join(
                                f"{s}: {mine}/{theirs}" for s, (mine, theirs) in off.items()))
    return problems


def unverified(h: ServiceHand) -> set[int]:
    return {i["seat"] for part in ((h.started or {}).get("seats", []),
                                   (h.ended or {}).get("stacks", []))
            for i in part if i.get("unverified")}


@dataclass
class Verdict:
    """What the service made of one accident (or of the session's start)."""

    accident: Accident
    problems: list[str]
    warnings: list[str]
    untracked: list[str]
    followed: list[int]
    """The table's hands it followed after the accident began."""
    missed: list[int]
    """The table's hands since the accident began that it did not follow."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        warned: object = self.warnings or "none"
        if len(self.warnings) > 4:
            names = Counter(w.split(" ")[0] for w in self.warnings)
            warned = f"{len(self.warnings)} ({', '.join(f'{n} x{c}' for n, c in names.items())})"
        what = (f"{self.accident.describe()}: followed {span(self.followed)}, "
                f"missed {span(self.missed)}, untracked {self.untracked or 'none'}, "
                f"warnings {warned}")
        return f"{'ok  ' if self.ok else 'FAIL'} {what}" + "".join(
            f"\n       - {p}" for p in self.problems)


def span(numbers: list[int]) -> str:
    if not numbers:
        return "none"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}" if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"
    return ",".join(map(str, numbers))


def judge(t: LiveTable, hands: list[ServiceHand], records: list[HandRecord],
          accidents: list[Accident]) -> list[Verdict]:
    """The verdict on each accident (the first: the session's start, ``kind="start"``),
    from everything the table's subscriber has received (``hands``: ``HandBook.update()``)."""
    public = t.feeds.public
    epochs = t.feeds.epoch_of_public
    last = 0
    wrong: dict[int, list[str]] = {}
    for h in hands:
        if not h.followed:
            continue
        h.record = match(h, records, 0)
        if h.record is None:
            wrong[id(h)] = ["a hand the table never dealt (no table hand has its cards)"]
            continue
        problems = wrong_in(h, h.record)
        if h.record.number <= last:
            problems.insert(0, f"followed after table hand {last}: out of order or twice")
        wrong[id(h)] = problems
        last = max(last, h.record.number)
    followed = {h.record.number for h in hands if h.followed and h.record is not None}
    verdicts = []
    for k, acc in enumerate(accidents):
        end = accidents[k + 1].mark if k + 1 < len(accidents) else len(public)
        mine = [h for h in hands if h.ended is not None and acc.mark <= h.pos_ended < end]
        verdicts.append(_verdict(acc, mine, public[acc.mark:end], epochs[acc.mark:end],
                                 hands, wrong, followed))
    return verdicts


def _verdict(acc: Accident, mine: list[ServiceHand], events: list[dict[str, Any]],
             epochs: list[int], hands: list[ServiceHand], wrong: dict[int, list[str]],
             followed: set[int]) -> Verdict:
    """``mine``: the service's hands that ended during the accident's part of the session;
    ``events``: the public events of that part (from its ``mark``)."""
    problems: list[str] = []
    for h in mine:
        problems += [f"{h.name()}: {p}" for p in wrong.get(id(h), [])]
    since = acc.dealt_before + 1
    seen = [n for n in range(since, acc.checked_through + 1) if n in followed]
    missed = [n for n in range(since, acc.checked_through + 1) if n not in followed]
    required = [n for n in range(acc.must_follow, acc.checked_through + 1)
                if n not in followed]
    if required:
        problems.append(f"table hands {span(required)} were dealt after the service was back "
                        "and not followed")
    untracked = [h for h in mine if h.untracked]
    if acc.kind == "start" and untracked:
        problems.append(f"untracked in a clean session: {[h.name() for h in untracked]}")
    if len(untracked) > 1:
        problems.append(f"{len(untracked)} hands untracked: "
                        f"{[h.name() for h in untracked]}")
    open_at_down = left_open(acc, hands)
    if open_at_down is not None and untracked != [open_at_down]:
        problems.append(f"{open_at_down.name()} was under way when the service went down: "
                        "it must end untracked, and no other hand; untracked: "
                        f"{[h.name() for h in untracked] or 'none'}")
    floor = [(acc.mark + i, e) for i, e in enumerate(events)
             if e["type"] == "alert" and e["severity"] in ("warning", "critical")]
    told = [f"{e['name']} ({e['severity']}, hand {e['hand']})" for _, e in floor]
    problems += floor_problems(acc, Counter(e["name"] for _, e in floor),
                               brief([e for _, e in floor]), bool(missed) or bool(untracked))
    after = [h for h in mine if h.followed and h.pos_started > acc.back]
    if len(after) >= 2:
        late = [e for pos, e in floor if pos >= after[1].pos_started]
        if late:
            problems.append("warnings in the hands after the first one followed: "
                            f"{[(e['name'], e['hand']) for e in late]}")
    if floor == [] and any(unverified(h) for h in mine):
        problems.append("stacks left unverified and the floor not told to count them")
    if acc.counted_after is not None:
        for h in mine:
            if h.record is not None and h.record.number > acc.counted_after and unverified(h):
                problems.append(f"{h.name()}: seats {sorted(unverified(h))} unverified after "
                                "the floor's chip count")
    problems += button_found(acc, events, epochs, hands, after)
    return Verdict(acc, problems, told, [h.name() for h in untracked], seen, missed)


def brief(alerts: list[dict[str, Any]]) -> str:
    """The floor's alerts in a line: each one while few, else how many of each name."""
    if len(alerts) <= 4:
        return str([f"{e['name']} ({e['severity']}, hand {e['hand']})" for e in alerts])
    names = Counter(f"{e['name']} ({e['severity']})" for e in alerts)
    return f"{len(alerts)} alerts: " + ", ".join(f"{n} x{c}" for n, c in names.most_common())


def floor_problems(acc: Accident, names: Counter[str], told: str, missed: bool
                   ) -> list[str]:
    """At most one warning, of the accident's kind, never a critical; exactly the one the
    accident is worth where it alone decides:

    - none at the session's start;
    - one ``device_offline`` for a cable out as long as a device may be silent (3 s);
    - one of its kind after an emptied storage (the config's stacks are the session's start)
      and whenever the service missed a hand or left one untracked (the floor must count).
    """
    allowed = ALLOWED[acc.kind]
    problems = []
    if "(critical" in told:
        problems.append("a critical alert")
    if set(names) - allowed or sum(names.values()) > 1:
        problems.append(f"floor alerts {told}; at most one of {sorted(allowed) or 'none'}")
    if acc.kind == "start" and names:
        problems.append(f"floor alerts in a clean session: {told}")
    elif acc.kind == "cable" and acc.length >= STALE_S and names != {"device_offline": 1}:
        problems.append(f"floor alerts {told}; the cable was out for {acc.length:.0f} s: "
                        "exactly one device_offline")
    elif (acc.kind == "empty_storage" or missed) and sum(names.values()) != 1:
        problems.append(f"floor alerts {told}; hands went by unseen (or stacks are the "
                        f"config's): exactly one of {sorted(allowed)}")
    return problems


def left_open(acc: Accident, hands: list[ServiceHand]) -> ServiceHand | None:
    """The hand a killed or stopped service had under way when it went down (in its feed:
    the last one started before the restart's ``service_started``, not ended before it)."""
    if acc.kind not in ("kill", "stop"):
        return None
    before = [h for h in hands if h.epoch == acc.epoch and h.started is not None
              and h.pos_started < acc.back]
    if not before:
        return None
    last = before[-1]
    return last if last.ended is None or last.pos_ended > acc.back else None


def button_found(acc: Accident, events: list[dict[str, Any]], epochs: list[int],
                 hands: list[ServiceHand], after: list[ServiceHand]) -> list[str]:
    """One ``button_found`` notice at most, for a hand followed, naming the table's button;
    after a restart exactly one, for the first hand followed."""
    if acc.kind == "start":
        return []
    found = [(acc.mark + i, e, k) for i, (e, k) in enumerate(zip(events, epochs, strict=True))
             if e["type"] == "alert" and e["name"] == "button_found"]
    problems = []
    if len(found) > 1:
        problems.append(f"{len(found)} button_found notices")
    elif acc.kind in RESTARTS and len(found) != 1:
        problems.append("no button_found notice after the restart")
    for pos, e, epoch in found:
        h = hand_of_notice(hands, pos, e, epoch)
        if e["severity"] != "info":
            problems.append(f"button_found is {e['severity']}, not info")
        if h is None or h.record is None:
            problems.append(f"button_found for {h.name() if h else 'no hand'}, not a hand "
                            "followed")
            continue
        if e.get("seat") != h.record.button:
            problems.append(f"button_found names seat {e.get('seat')}, the table's button "
                            f"was {h.record.button}")
        if acc.kind in RESTARTS and after and h is not after[0]:
            problems.append(f"button_found for {h.name()}, not the first hand followed "
                            f"after the restart ({after[0].name()})")
    return problems


def hand_of_notice(hands: list[ServiceHand], pos: int, e: dict[str, Any], epoch: int
                   ) -> ServiceHand | None:
    """The hand a notice at feed position ``pos`` is about: the one it names, or, for one
    given outside any hand (the button is found from the first round of the deal, before
    the hand is started), the next hand to start."""
    if e.get("hand") is not None:
        return next((h for h in hands if (h.epoch, h.number) == (epoch, e["hand"])), None)
    return next((h for h in hands if h.epoch == epoch and h.started is not None
                 and h.pos_started > pos), None)


# ---------------------------------------------------------------------- the room


class Room:
    """A live table whose dealer deals on whatever befalls the service, and the accidents
    done to it so far (the first: the session's start)."""

    def __init__(self, t: LiveTable, dealing: Dealing, through: int = 1) -> None:
        """``through``: after an accident, the service is seen to follow the hand it must
        follow first and this many more before the accident is over."""
        self.t = t
        self.dealing = dealing
        self.through = through
        self.book = HandBook(t)
        self.accidents = [Accident("start", must_follow=1)]
        self.counts = 0

    @property
    def records(self) -> list[HandRecord]:
        return self.dealing.records

    def hands(self) -> list[ServiceHand]:
        return self.book.update()

    def wait(self, pred: Callable[[], bool], what: str, timeout: float = WAIT) -> bool:
        """Wait for a condition about the service; False (not an exception) when it does not
        come, so that the verdict, not a timeout, says what the service did instead."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return True
            if self.dealing.failure is not None:
                raise AssertionError(f"the dealer failed: {self.dealing.failure!r}")
            time.sleep(0.05)
        print(f"{self.t.table}: timed out after {timeout:.0f} s waiting for {what}")
        return False

    def follow_through(self, number: int) -> None:
        """Wait until the service deals out the table's hand after ``number`` (so that
        ``number`` is over for it too), or, when the dealer has stopped before it, until the
        service has ended his last hand. The accident under way is judged up to ``number``."""
        def there() -> bool:
            if len(self.records) > number:
                return follows(self.hands(), self.records[number])
            return not self.dealing.dealing and self.ended_last()

        self.wait(there, f"the service to follow table hand {number + 1}")
        self.accidents[-1].checked_through = min(number, len(self.records))

    def ended_last(self) -> bool:
        """The service has ended a hand with the cards of the table's last one."""
        return not self.records or follows(self.hands(), self.records[-1], ended=True)

    def settle(self) -> None:
        """Wait until the service deals out the hand after the one the dealer is on: the
        session before an accident is seen, and judged, as it was."""
        self.follow_through(len(self.records) + 1)

    # ------------------------------------------------------------------ accidents
    def accident(self, kind: str, *, length: float = 0.0, hands: int = 0,
                 device: str | None = None, frames: int = 0, mid_hand: int | None = None,
                 on_begin: Callable[[], None] | None = None) -> Accident:
        """Do one accident and wait until the service has followed the hands after the one
        under way when it was back (the first and ``through`` more).

        ``length``: seconds it lasts at least; ``hands``: whole hands the dealer deals
        meanwhile, at least (he never waits: the rest of the hand under way, then these);
        ``mid_hand``: it begins once the service has dealt out the hole cards of the
        table's hand of that number (the service's of the same number: no accident came
        before), before that hand ends; pick one that goes on long after its deal (a
        showdown). Kinds: ``KINDS``; ``device`` for a cable, a reset and frames lost
        (``frames`` of them; a reset and a loss take no time of their own). ``on_begin`` is
        called as it begins: the part of the session before it is closed (a soak prints the
        verdict on the accident before).
        """
        t, dealing = self.t, self.dealing
        if mid_hand is not None:
            assert len(self.records) < mid_hand, f"table hand {mid_hand} is over already"
            assert self.wait(lambda: self._dealt_out_and_open(mid_hand),
                             f"table hand {mid_hand} dealt out"), \
                f"the service never dealt out table hand {mid_hand}"
        acc = Accident(kind, length=length, device=device, frames=frames, hands=hands,
                       mark=t.mark(), dealt_before=len(self.records), epoch=len(t.epochs) - 1)
        self.accidents.append(acc)
        if on_begin is not None:
            on_begin()
        went = time.monotonic()
        tail = JournalTail(t.epochs[-1].store)
        if kind in ("cable", "reset", "lost"):
            assert device in DEVICES, device
        if kind == "kill":
            t.kill()
        elif kind == "stop":
            t.stop()
        elif kind == "freeze":
            t.freeze()
        elif kind == "empty_storage":
            t.empty_storage()
        elif kind == "cable":
            assert device is not None
            t.rig.unplug(device)
            t.wait_until(lambda: t.device_states().get(device) == "offline",
                         f"{device} offline")
        elif kind == "reset":
            assert device is not None
            t.rig.reset(device)
        elif kind == "lost":
            assert device is not None and frames > 0
            sent = device_seqs(t.rig)[device]
            t.rig.lose_frames(device, frames)
        else:
            raise ValueError(f"no accident {kind!r}: one of {KINDS}")
        dealing.wait_hands(acc.dealt_before + 1 + hands,
                           f"{hands} whole hands dealt during the {kind}")
        if kind == "freeze":
            length = max(length, FREEZE_MIN_S)
        hold(length - (time.monotonic() - went))
        if kind in RESTARTS:
            t.start(wait_online=False)
            acc.back = max(i for i, e in enumerate(t.events())
                           if e["type"] == "service_started")
            t.wait_online(after=acc.back)
        elif kind == "freeze":
            t.thaw()
            wait_read_since(t, tail, device_seqs(t.rig))
            acc.back = t.mark()
        elif kind == "cable":
            assert device is not None
            acc.back = t.mark()
            t.rig.replug(device)
            t.wait_online((device,), after=acc.back - 1)
        elif kind == "reset":
            assert device is not None
            wait_read_since(t, tail, {device: device_seqs(t.rig)[device]})
            acc.back = t.mark()
        else:
            assert device is not None
            wait_read_since(t, tail, {device: (sent + frames) % 65536})
            acc.back = t.mark()
        acc.epoch = len(t.epochs) - 1
        acc.lasted = time.monotonic() - went
        acc.dealt_back = len(self.records)
        acc.must_follow = acc.dealt_back + 2
        self.follow_through(acc.must_follow + self.through)
        return acc

    def _dealt_out_and_open(self, number: int) -> bool:
        """The service's hand ``number`` is dealt out (every hole card) and not over."""
        h = next((h for h in reversed(self.hands()) if h.number == number), None)
        return h is not None and h.ended is None and h.started is not None and (
            len(h.first_holes) == len(h.started["seats"]))

    def count_chips(self) -> None:
        """The floor counts the chips between two hands: the dealer stands still after the
        hand under way, the service ends it, the floor sends the table's stacks, and the
        dealer goes on. From the next hand every stack is verified again."""
        dealing = self.dealing
        dealing.pause_at_next_end()
        self.wait(lambda: dealing.table.waiting or not dealing.dealing,
                  "the dealer to stand still for the chip count")
        if not dealing.dealing:
            return  # he has stopped for good (players busted out): nothing left to count for
        assert dealing.table.waiting, "the dealer did not stand still for the chip count"
        record = self.records[-1]
        self.wait(self.ended_last, f"the service to end table hand {record.number}")
        self.counts += 1
        stacks = {s: v for s, v in record.stacks_after.items() if s not in record.left}
        reply = self.t.count_chips(stacks, request_id=1000 + self.counts)
        assert reply["ok"], reply
        self.accidents[-1].counted_after = record.number
        dealing.resume()

    def needs_count(self) -> bool:
        """The last hand the service ended left a seat unverified."""
        done = [h for h in self.hands() if h.ended is not None]
        return bool(done) and bool(unverified(done[-1]))

    def finish(self) -> list[HandRecord]:
        """The dealer deals no more after the hand under way; the service deals it out and
        stops cleanly. Returns the table's records."""
        self.dealing.finish()
        records = self.dealing.join()
        self.wait(self.ended_last, "the service to end the table's last hand")
        self.accidents[-1].checked_through = len(records)
        self.t.stop()
        return records

    def verdicts(self) -> list[Verdict]:
        return judge(self.t, self.hands(), self.records, self.accidents)


def hold(seconds: float) -> None:
    """Let an accident last its length: the room's time, chosen by the test (how long a
    cable stays out), never a guess at how long something takes."""
    if seconds > 0:
        time.sleep(seconds)


def assert_judged(verdicts: Iterable[Verdict]) -> None:
    """Every accident judged right; else every problem of every accident, in one message."""
    bad = [v for v in verdicts if not v.ok]
    assert not bad, "\n".join(v.line() for v in bad)
