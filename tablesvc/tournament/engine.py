"""The engine: the one owner of the tournament, on the event loop.

Everything that changes the tournament passes here, in one order: a director's action is
carried out, journalled and only then answered; a table's hand event or answer is journalled,
applied and only then acknowledged to the broker; four times a second the engine reconciles
(``Tournament.reconcile``: a level or a seat a table still needs), sends the commands, keeps
and publishes new alerts, and tells the pages and the retained topics what changed. A
restart replays the journal (``load``) and goes on from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

import structlog

from tablesvc.tournament.link import Received
from tablesvc.tournament.store import Journal
from tablesvc.tournament.tournament import ActionError, Alert, Send, Tournament

log = structlog.get_logger("tablesvc.tournament.engine")

TICK_S = 0.25
"""How often the engine reconciles and tells the pages: a bust or a count reaches a page
within this (plus the page's own coalescing)."""
KEPT_EVENTS = frozenset({"hand_started", "hand_ended"})
"""The tables' events the tournament follows (journalled); the rest are acknowledged."""


class Outbox(Protocol):
    """Where commands, alerts and the retained state go (the MQTT link)."""

    def command(self, table: str, cmd: str, body: dict[str, Any]) -> None: ...
    def retain(self, name: str, doc: Any) -> None: ...
    def alert(self, doc: dict[str, Any]) -> None: ...
    def ack(self, mid: int, qos: int) -> None: ...


class Engine:
    """Implements the pages' ``Director``: ``view``, ``act``, ``watch``."""

    def __init__(self, tournament: Tournament, journal: Journal,
                 clock: Callable[[], float] = time.time) -> None:
        self.t = tournament
        self.journal = journal
        self.now = clock
        self.out: Outbox | None = None
        self._watchers: list[Callable[[], None]] = []
        self._view: dict[str, Any] = {}
        self._shown = b""
        self._tick_due = False
        self.stats = {"actions": 0, "events": 0, "replies": 0, "commands": 0, "dropped": 0}

    # ------------------------------------------------------------------ start
    def load(self) -> int:
        """Replay the journal: the tournament as it was when the controller stopped."""
        n = 0
        for at, op in self.journal.ops():
            try:
                self.t.replay(op, at)
            except (ActionError, KeyError, TypeError, ValueError) as err:
                log.error("journalled operation could not be replayed", op=op.get("op"),
                          error=str(err))
            n += 1
        kept = self.journal.alerts()
        for doc in kept:
            self.t.alerts.append(Alert(doc["id"], doc["name"], doc["rule"], doc["severity"],
                                       doc["message"], doc["remedy"], float(doc.get("ts", 0)),
                                       doc.get("table"), doc.get("seat"), doc.get("player")))
        self.t.restored(kept)
        self._view = self.t.view(self.now())
        return n

    # ------------------------------------------------------------------ Director
    def view(self) -> dict[str, Any]:
        return self._view

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._watchers.append(callback)

        def unwatch() -> None:
            with contextlib.suppress(ValueError):
                self._watchers.remove(callback)
        return unwatch

    async def act(self, action: dict[str, Any], by: str) -> dict[str, Any]:
        now = self.now()
        try:
            data, op = self.t.act(action, now)
        except ActionError as err:
            return {"ok": False, "error": str(err), "data": None}
        self.journal.append({"op": "act", "by": by, "body": op}, now)
        self.stats["actions"] += 1
        log.info("director action", action=op.get("action"), by=by)
        self.tick()
        return {"ok": True, "error": None, "data": data}

    # ------------------------------------------------------------------ the tables
    def received(self, msg: Received) -> None:
        """One message from a table (on the loop): keep what counts, then acknowledge."""
        try:
            body = json.loads(msg.payload) if msg.payload else None
        except (ValueError, UnicodeDecodeError):
            body = None
        now = self.now()
        if not isinstance(body, dict):
            self.stats["dropped"] += 1
        elif msg.sub == "status":
            self.t.table_status(msg.table, body)
        elif msg.sub == "state":
            self.t.table_state(msg.table, body)
        elif msg.sub == "events":
            if body.get("type") in KEPT_EVENTS and self.t.wants_event(msg.table, body):
                self.journal.append({"op": "event", "table": msg.table, "body": body}, now)
                self.t.table_event(msg.table, body, now)
                self.stats["events"] += 1
                if body.get("type") == "hand_ended" and self.out is not None:
                    self.out.ack(msg.mid, msg.qos)
                    self.tick_soon()  # between hands is when a move or a level goes out
                    return
        elif msg.sub.startswith("cmd/") and msg.sub.endswith("/reply"):
            cmd = msg.sub.split("/")[1]
            if self.t.wants_reply(msg.table, body):
                # not journalled: what an answer tells (a level taken, a seat filled) the
                # tables say again in their retained topics after a restart
                self.t.reply(msg.table, cmd, body, now)
                self.stats["replies"] += 1
        if self.out is not None:
            self.out.ack(msg.mid, msg.qos)

    # ------------------------------------------------------------------ every tick
    def tick_soon(self) -> None:
        """A tick once the messages already waiting on the loop are taken, not one per
        message: tables that end their hands together (100 of them after a break) share
        one. A tick per ``hand_ended`` held the pages for 2.7 s after such a burst at 100
        tables and 1,000 players (docs/PERFORMANCE.md, the tournament controller)."""
        if self._tick_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called off the loop (a test): at once
            self.tick()
            return
        self._tick_due = True
        loop.call_soon(self._due_tick)

    def _due_tick(self) -> None:
        self._tick_due = False
        try:
            self.tick()
        except Exception:  # the engine must go on; the log says why
            log.exception("tick failed")

    def tick(self) -> None:
        now = self.now()
        sends: list[Send] = self.t.reconcile(now)
        for a in self.t.new_alerts:
            doc = {**_alert_doc(a), "ts": a.at}
            self.journal.keep_alert(doc)
            if self.out is not None:
                self.out.alert(_alert_doc(a))
            log.info("alert", name=a.name, rule=a.rule, severity=a.severity, table=a.table)
        self.t.new_alerts.clear()
        if self.out is not None:
            for s in sends:
                self.out.command(s.table, s.cmd, s.body)
                self.stats["commands"] += 1
        self._view = self.t.view(now)
        shown = json.dumps(_steady(self._view), sort_keys=True).encode()
        if shown != self._shown:
            self._shown = shown
            for cb in list(self._watchers):
                cb()
            if self.out is not None:
                for name, doc in published(self._view).items():
                    self.out.retain(name, doc)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                self.tick()
            except Exception:  # the engine must go on; the log says why
                log.exception("tick failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK_S)


def _alert_doc(a: Alert) -> dict[str, Any]:
    from tablesvc.tournament.tournament import alert_view

    return alert_view(a)


def _steady(view: dict[str, Any]) -> dict[str, Any]:
    """The view without what changes by itself as time passes (the countdown): a page
    counts down on its own, so a tick that only moved the clock is no change."""
    c = dict(view["clock"])
    for k in ("remaining_s", "next_break_in_s"):
        c.pop(k, None)
    if c.get("ends_at") is not None:
        c["ends_at"] = round(c["ends_at"])
    return {**view, "clock": c}


def published(view: dict[str, Any]) -> dict[str, Any]:
    """The controller's retained topics (docs/EVENTS.md): the clock, the field, the seating.
    Public: names, stacks and places are shown in the room anyway; no card is here."""
    clock = {k: v for k, v in view["clock"].items() if k != "structure"}
    return {
        "clock": {"name": view["name"], "game": view["game"], "limit": view["limit"], **clock},
        "field": {**view["field"],
                  "leaders": [{"name": p["name"], "stack": p["stack"], "table": p["table"]}
                              for p in view["players"] if p["status"] == "seated"][:10]},
        "seating": {"tables": [{"table": t["table"], "open": t["open"],
                                "players": [{"seat": r["seat"], "name": r["name"],
                                             "stack": r["stack"]} for r in t["players"]]}
                               for t in view["tables"]]},
    }
