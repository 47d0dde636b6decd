"""The console's MQTT side: every public topic of the venue in, ``cmd/ack_alert`` out.

One thread (the writer) does all the work: it takes what paho received, drops hidden cards
(``public``), keeps the message (``store``) and updates the live picture (``venue``), commits,
and only then acknowledges the messages to the broker (paho's manual ack). Alerts, the
tables' answers to acknowledgements and the floor's own acknowledgements go ahead of the bulk
of the feed (``Lanes``): when a busy venue or a busy machine leaves a backlog of events and
state to store, an alert still reaches the screen at once. The bulk is stored in batches
(one transaction each), and a batch is cut short, committed as far as it got, the moment an
urgent item arrives: an alert waits for one message, not for a batch. With a
persistent session (a fixed client id, clean start off) the broker keeps the console's
messages while it is down and sends again what it had not acknowledged, so a restart of the
console loses no alert, acknowledgement or hand; the second copy of anything is recognised
by (table, seq) and changes nothing. Acknowledging an alert, or a group of them, runs on the
same thread, so the database has one writer.

Every alert that changes (a new one, an acknowledgement, a table's answer) tells the pages its
group anew (``tablesvc.floor.queue``), as the store has it after the commit. And every message
is noted as heard from its table the moment paho reads it (``tablesvc.floor.silence``), before
it waits for the writer: a backlog to store is no silence.

The tournament controller publishes under ``<prefix>/.tournament/`` (a dot is never part of
a table id): its retained ``clock``, ``field`` and ``status`` become the page's tournament
header, and its warning and critical ``alerts`` join the queue under the pseudo-table
``.tournament`` (shown as "tournament"; acknowledged on the floor only, since the controller
takes no acknowledgement). Any other topic whose table level is not a table id is
acknowledged and dropped (``not_a_table``): it is never taken for a table.
"""

from __future__ import annotations

import collections
import itertools
import json
import select
import ssl
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablesvc.config.table import resolve
from tablesvc.config.venue_tables import TABLE_ID, VenueTables
from tablesvc.floor.config import FloorConfig
from tablesvc.floor.db import Database
from tablesvc.floor.public import public_event, public_state
from tablesvc.floor.queue import Key
from tablesvc.floor.silence import Silence, marked
from tablesvc.floor.store import Queries, Store, today
from tablesvc.floor.venue import TournamentView, Venue
from tablesvc.pipeline.publisher import read_password
from tablesvc.pipeline.reach import Reach

log = structlog.get_logger("tablesvc.floor.intake")

BULK_BATCH = 500
"""At most this many bulk messages in one transaction (one commit, one wake-up of the
pages); an urgent item arriving meanwhile cuts the batch short."""
YIELD_EVERY = 20
YIELD_S = 0.001
"""Storing a backlog, the writer gives paho's thread the interpreter for a moment every
``YIELD_EVERY`` messages while the broker's bytes wait unread: reading the feed goes first,
since an alert is only recognised once read; storing the bulk can wait."""
URGENT = frozenset({"alerts", "cmd/ack_alert/reply"})
"""Topics (below the table) that go ahead of the bulk."""
TABLE_RE = TABLE_ID
"""A table id (the tables' ``[table] id``): what the first topic level must be to be a table."""
TOURNAMENT = ".tournament"
"""The controller's topic level, and the pseudo-table its alerts are kept under."""
TOURNAMENT_SUBSCRIBED = ("clock", "field")
"""The controller's retained topics the console subscribes to beyond the tables' wildcards
(which bring its ``status`` and ``alerts``)."""
SHOWN = frozenset({"warning", "critical"})
"""Severities of the alert queue; info alerts are kept with the hand's events."""
Notify = Callable[[str, Any], None]
"""(kind, payload) for the web pages: "tables" (the views of the tables a batch changed),
"alert" (a new alert's row), "group" (an alert group as it is now), "tournament" (the
controller's header as it is now)."""


class AckError(Exception):
    """An acknowledgement the console refuses (unknown alert, already acknowledged)."""


@dataclass(frozen=True)
class _Received:
    topic: str
    payload: bytes
    mid: int
    qos: int


@dataclass(frozen=True)
class _Ack:
    """One alert (``seq``), or a group's open alerts up to its newest shown (``name``,
    ``upto``); ``done`` gets the alert row, or ``{"acknowledged": n, "group": ...}``."""

    table: str
    by: str
    done: Future[dict[str, Any]]
    seq: int | None = None
    name: str | None = None
    upto: int | None = None


Item = _Received | _Ack


class Lanes:
    """The writer's inbox: an urgent lane (alerts, acknowledgements, the tables' answers)
    taken before the bulk lane (events, state, devices); each first in, first out.

    The order of the feed is kept where it matters: a table's events are stored by seq
    whatever the order they come in (an alert first, the events before it after), a table's
    retained topics and its events each stay in their own order, and the gap check of the
    live picture follows the ``events`` topic only."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._urgent: collections.deque[Item] = collections.deque()
        self._bulk: collections.deque[Item] = collections.deque()
        self._closed = False

    def put(self, item: Item, urgent: bool = False) -> None:
        with self._cond:
            (self._urgent if urgent else self._bulk).append(item)
            self._cond.notify()

    def close(self) -> None:
        """No more items: ``take`` gives what is left, then None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def take(self, bulk_max: int) -> tuple[bool, list[Item]] | None:
        """The next batch, waiting for one: (True, every urgent item), else (False, up to
        ``bulk_max`` bulk items); None once closed and empty."""
        with self._cond:
            while not self._urgent and not self._bulk:
                if self._closed:
                    return None
                self._cond.wait()
            if self._urgent:
                batch = list(self._urgent)
                self._urgent.clear()
                return True, batch
            return False, [self._bulk.popleft()
                           for _ in range(min(bulk_max, len(self._bulk)))]

    def urgent_waiting(self) -> bool:
        return bool(self._urgent)

    def put_back(self, items: Sequence[Item]) -> None:
        """Bulk items taken but not handled: first in the lane again, in their order."""
        with self._cond:
            self._bulk.extendleft(reversed(items))

    def __len__(self) -> int:
        return len(self._urgent) + len(self._bulk)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Intake:
    """Subscribe, keep, show. ``start`` connects and starts the writer; ``stop`` ends both."""

    def __init__(self, cfg: FloorConfig, cfg_path: Path, db: Database, notify: Notify) -> None:
        self.cfg = cfg
        self.cfg_path = cfg_path
        self.prefix = cfg.prefix()
        self.store = Store(db)
        self.queries = Queries(db)  # the writer's own reads (same connection, same thread)
        self.venue = Venue()
        self.tournament = TournamentView()
        self._tournament_changed = False  # by the batch being stored
        self.lock = threading.Lock()  # guards venue for snapshot() from other threads
        self.silence = Silence(cfg.floor.silent_after_s)
        self.tables = VenueTables(cfg.floor.tables, log, "floor.tables")
        """The venue's tables: nothing else below the venue is taken for a table."""
        # the last ``status`` and ``devices/<name>`` of each table that is committed, and those
        # of the batch being stored: a service says its status again every 5 s (a sign of
        # life), which changes nothing to store or to show
        self._kept: dict[tuple[str, str], bytes] = {}
        self._keeping: dict[tuple[str, str], bytes] = {}
        # every group this thread tells (a page, or the answer to an acknowledgement) is
        # numbered: a page keeps the latest of a group when the answer to its own request
        # arrives after the table's answers were pushed to it
        self._told = itertools.count(1)
        self.notify = notify
        self.inbox = Lanes()
        self.connected = threading.Event()
        self.refused: str | None = None
        self.stats = {"messages": 0, "events": 0, "duplicates": 0, "dropped": 0,
                      "batches": 0, "superseded": 0, "not_a_table": 0}
        self._writer = threading.Thread(target=self._run, name="floor-writer", daemon=True)
        self.client = self._client()
        for table, topics in self.queries.retained().items():
            if table == TOURNAMENT:
                for topic, body in topics.items():
                    self.tournament.apply(topic, body)
                continue
            if not self.tables.known(table):
                continue  # kept by an earlier version, or before the table left the list
            self.silence.expect(table)
            for topic, body in topics.items():
                self.venue.apply_retained(table, topic, body)

    # ------------------------------------------------------------------ MQTT
    def _client(self) -> mqtt.Client:
        m = self.cfg.mqtt
        v5 = m.protocol == "5"
        client_id = m.client_id or f"floor-{self.cfg.floor.venue}"
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311,
                        clean_session=None if v5 else False, manual_ack=True)
        if m.username:
            password = read_password(str(resolve(self.cfg_path, m.password_file))
                                     if m.password_file else "")
            c.username_pw_set(m.username, password)
        if m.ca_file:
            c.tls_set(ca_certs=str(resolve(self.cfg_path, m.ca_file)),
                      tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.reconnect_delay_set(1, 10)
        # why the broker cannot be reached, said once (not at every attempt)
        self.reach = Reach(log, m.host, m.port, tls=bool(m.ca_file), username=m.username)
        c.on_connect_fail = self.reach.connect_failed
        return c

    def topics(self) -> list[str]:
        p = self.prefix
        return [f"{p}/+/status", f"{p}/+/state", f"{p}/+/devices/+", f"{p}/+/alerts",
                f"{p}/+/events", f"{p}/+/cmd/ack_alert/reply",
                *(f"{p}/{TOURNAMENT}/{t}" for t in TOURNAMENT_SUBSCRIBED)]

    def start(self) -> None:
        m = self.cfg.mqtt
        self._writer.start()
        if m.protocol == "5":
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = m.session_expiry_s
            self.client.connect_async(m.host, m.port, keepalive=m.keepalive, clean_start=False,
                                      properties=props)
        else:
            self.client.connect_async(m.host, m.port, keepalive=m.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self.inbox.close()
        self._writer.join(10)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        if getattr(rc, "is_failure", False) or (isinstance(rc, int) and rc != 0):
            self.refused = str(rc)
            self.reach.refused(rc)
            return
        self.refused = None
        client.subscribe([(t, 1) for t in self.topics()])
        self.silence.listening(time.monotonic())
        self.connected.set()
        log.info("connected", host=self.cfg.mqtt.host, port=self.cfg.mqtt.port,
                 **self.reach.connected())

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        self.silence.listening(None)  # what the tables send now, the console cannot hear
        if was:
            log.warning("disconnected from the broker", reason=str(rc))
        else:
            self.reach.closed(rc)  # before the broker answered: a TLS port without TLS?

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        topic = msg.topic
        table, _, sub = topic.removeprefix(self.prefix + "/").partition("/")
        if self.tables.known(table):
            self.silence.heard(table, time.monotonic())
        self.inbox.put(_Received(topic, bytes(msg.payload), msg.mid, msg.qos),
                       urgent=sub in URGENT)

    # ------------------------------------------------------------------ acknowledging
    def acknowledge(self, table: str, seq: int, by: str) -> Future[dict[str, Any]]:
        """Acknowledge an alert as ``by``; the future gets the alert row as recorded."""
        done: Future[dict[str, Any]] = Future()
        self.inbox.put(_Ack(table, by, done, seq=seq), urgent=True)
        return done

    def acknowledge_group(self, table: str, name: str, upto: int,
                          by: str) -> Future[dict[str, Any]]:
        """Acknowledge as ``by`` each open alert ``name`` of the table up to seq ``upto``
        (the newest the page showed: one that came since is not acknowledged unseen); the
        future gets ``{"acknowledged": n, "group": the group as it is now}``."""
        done: Future[dict[str, Any]] = Future()
        self.inbox.put(_Ack(table, by, done, name=name, upto=upto), urgent=True)
        return done

    def _ack(self, req: _Ack, changed: set[Key]) -> dict[str, Any]:
        if req.name is not None and req.upto is not None:
            rows = self.queries.open_in_group(req.table, req.name, req.upto)
            if not rows:
                raise AckError(f"nothing open in {req.name} at table {req.table}: "
                               "acknowledged already")
            self._ack_rows(req.table, rows, req.by)
            changed.add((req.table, req.name))
            return {"acknowledged": len(rows), "group": self._group((req.table, req.name))}
        row = self.queries.alert(req.table, req.seq or 0)
        if row is None:
            raise AckError(f"no alert {req.seq} at table {req.table}")
        if row["ack_state"]:
            raise AckError(f"already acknowledged by {row['acked_by'] or 'someone'} at "
                           f"{row['acked_at']}")
        self._ack_rows(req.table, [row], req.by)
        changed.add((req.table, str(row["name"])))
        fresh = self.queries.alert(req.table, int(row["seq"]))
        assert fresh is not None
        return fresh

    def _ack_rows(self, table: str, rows: list[dict[str, Any]], by: str) -> None:
        """Record the acknowledgements (one commit), then send the table one
        ``cmd/ack_alert`` per alert it holds open: its critical alerts, and whatever its
        retained state lists. A warning it does not hold is acknowledged here only."""
        at = now_iso()
        held = self.venue.open_alert_ids(table)
        commands = []
        for row in rows:
            seq = int(row["seq"])
            if table == TOURNAMENT:
                self.store.ack_sent(table, seq, by, at, None, "floor",
                                    "acknowledged on the floor (the tournament controller "
                                    "takes no acknowledgement)")
            elif row["severity"] == "critical" or row["alert_id"] in held:
                request_id = f"floor-{uuid.uuid4().hex[:16]}"
                if self.store.ack_sent(table, seq, by, at, request_id, "sent"):
                    commands.append({"request_id": request_id, "alert_id": row["alert_id"],
                                     "by": by})
            else:
                self.store.ack_sent(table, seq, by, at, None, "floor",
                                    "acknowledged on the floor (the table holds no warning "
                                    "open)")
        self.store.commit()  # before the commands: their answers find what they answer
        for body in commands:
            self.client.publish(f"{self.prefix}/{table}/cmd/ack_alert", json.dumps(body),
                                qos=1)

    # ------------------------------------------------------------------ the writer
    def _run(self) -> None:
        while True:
            taken = self.inbox.take(BULK_BATCH)
            if taken is None:
                return
            urgent, batch = taken
            try:
                self._batch(batch, urgent)
            except Exception:  # a bug must not stop the floor's screen; the broker resends
                log.exception("batch failed", size=len(batch))
                self.store.db.rollback()
                self._keeping.clear()
                time.sleep(0.5)

    def _batch(self, batch: list[Item], urgent: bool = True) -> None:
        tables: dict[str, dict[str, Any]] = {}
        retained: dict[tuple[str, str], dict[str, Any]] = {}
        alerts: list[dict[str, Any]] = []
        changed: set[Key] = set()  # the alert groups the batch changed
        self._tournament_changed = False
        received = [m for m in batch if isinstance(m, _Received)]
        superseded = self._superseded(received)
        for i, msg in enumerate(received):
            if not urgent and i and i % YIELD_EVERY == 0 and self._reader_behind():
                time.sleep(YIELD_S)  # let paho's thread read on: an alert may be in there
            if not urgent and i and self.inbox.urgent_waiting():  # commit so far, then it
                self.inbox.put_back(received[i:])
                received = received[:i]
                break
            if i in superseded:
                self.stats["messages"] += 1
                self.stats["superseded"] += 1
                continue
            self._message(msg, tables, retained, alerts, changed)
        for (table, sub), body in retained.items():  # only the last of each is kept
            self.store.keep_retained(table, sub, body)
        self.store.commit()
        self._kept.update(self._keeping)
        self._keeping.clear()
        for msg in received:
            if msg.qos > 0:
                self.client.ack(msg.mid, msg.qos)
        self.stats["batches"] += 1
        for row in alerts:
            self.notify("alert", row)
        if tables:
            self.notify("tables", list(tables.values()))
        if self._tournament_changed:
            self.notify("tournament", self.tournament_view())
        for req in (m for m in batch if isinstance(m, _Ack)):
            try:
                answer = self._ack(req, changed)
            except AckError as err:
                req.done.set_exception(err)
                continue
            req.done.set_result(answer)
        self._tell_groups(changed)

    def _tell_groups(self, changed: set[Key]) -> None:
        """Each group the batch changed, as the store now has it, to the pages."""
        for key in sorted(changed):
            self.notify("group", self._group(key))

    def _group(self, key: Key) -> dict[str, Any]:
        """A group as the store has it now, numbered (``v``) in the order this thread read
        it."""
        return {**self.queries.groups(today(), key)[0], "v": next(self._told)}

    def _superseded(self, received: list[_Received]) -> set[int]:
        """The ``state`` messages of a batch that a later one of the same table replaces.

        A table publishes its retained ``state`` after every batch of its own (about half of
        what it sends), and each is the whole picture: the last of a table in this batch is
        all the page and the store need, and reading the others would only cost the time a
        console that has fallen behind needs to catch up. (Acknowledged with the batch like
        every message; events and alerts are never skipped.)"""
        last: dict[str, int] = {}
        states: list[tuple[int, str]] = []
        for i, msg in enumerate(received):
            table, _, sub = msg.topic.removeprefix(self.prefix + "/").partition("/")
            if sub == "state":
                last[table] = i
                states.append((i, table))
        return {i for i, table in states if last[table] != i}

    def _reader_behind(self) -> bool:
        """The broker's bytes wait in the socket: paho's thread has reading to do."""
        sock = self.client.socket()
        if sock is None:
            return False
        try:
            return bool(select.select([sock], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def _message(self, msg: _Received, tables: dict[str, dict[str, Any]],
                 retained: dict[tuple[str, str], dict[str, Any]],
                 alerts: list[dict[str, Any]], changed: set[Key]) -> None:
        self.stats["messages"] += 1
        rest = msg.topic.removeprefix(self.prefix + "/")
        table, _, sub = rest.partition("/")
        if table == TOURNAMENT:
            self._controller(msg, sub, retained, alerts, changed)
            return
        if not self.tables.admits(table, msg.topic):
            self.stats["not_a_table"] += 1
            return
        if sub == "status" or sub.startswith("devices/"):
            if self._kept.get((table, sub)) == msg.payload:
                return  # said again (heard all the same: ``Silence``)
            self._keeping[(table, sub)] = msg.payload
        try:
            body = json.loads(msg.payload)
        except ValueError:
            self.stats["dropped"] += 1
            log.warning("not JSON, dropped", topic=msg.topic)
            return
        if not isinstance(body, dict):
            self.stats["dropped"] += 1
            return
        if sub in ("status", "state") or sub.startswith("devices/"):
            if sub == "state":
                body = public_state(body)
            retained[(table, sub)] = body
            with self.lock:
                view = self.venue.apply_retained(table, sub, body)
                tables[table] = view.as_json()
        elif sub in ("events", "alerts"):
            event = public_event(body)
            if event is None or not isinstance(event.get("seq"), int):
                self.stats["dropped"] += 1
                return
            if sub == "events":
                with self.lock:
                    self.venue.follow(table, event)
            text = None
            if len(event) == len(body):  # nothing removed: keep the message as it came
                try:
                    text = msg.payload.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
            if not self.store.add_event(table, event, text):
                self.stats["duplicates"] += 1
                return
            self.stats["events"] += 1
            with self.lock:
                view = self.venue.apply_event(table, event)
                tables[table] = view.as_json()
            if event.get("type") == "alert" and event.get("severity") in SHOWN:
                row = self.queries.alert(table, int(event["seq"]))
                if row is not None:
                    alerts.append(row)
                    changed.add((table, str(row["name"])))
        elif sub == "cmd/ack_alert/reply":
            rid = body.get("request_id")
            if not isinstance(rid, str) or not rid.startswith("floor-"):
                return  # the controller's acknowledgement, not ours
            ok = bool(body.get("ok"))
            text = ("acknowledged by the table" if ok else
                    f"the table refused: {body.get('error') or 'no reason given'}")
            target = self.store.ack_reply(table, rid, ok, text)
            if target is not None:
                row = self.queries.alert(target.table, target.seq)
                if row is not None:
                    changed.add((target.table, str(row["name"])))

    def _controller(self, msg: _Received, sub: str,
                    retained: dict[tuple[str, str], dict[str, Any]],
                    alerts: list[dict[str, Any]], changed: set[Key]) -> None:
        """A message of the tournament controller (``.tournament/<sub>``)."""
        try:
            body = json.loads(msg.payload)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self.stats["dropped"] += 1
            log.warning("not a JSON object, dropped", topic=msg.topic)
            return
        if sub in ("status", *TOURNAMENT_SUBSCRIBED):
            with self.lock:
                self.tournament.apply(sub, body)
            retained[(TOURNAMENT, sub)] = body
            self._tournament_changed = True
            return
        if sub != "alerts":
            self.stats["not_a_table"] += 1
            return
        event = controller_alert(body)
        if event is None:
            self.stats["dropped"] += 1
            log.warning("controller alert not understood, dropped", topic=msg.topic)
            return
        if not self.store.add_event(TOURNAMENT, event):
            self.stats["duplicates"] += 1
            return
        self.stats["events"] += 1
        if event["severity"] in SHOWN:
            row = self.queries.alert(TOURNAMENT, int(event["seq"]))
            if row is not None:
                alerts.append(row)
                changed.add((TOURNAMENT, str(row["name"])))

    def tournament_view(self) -> dict[str, Any] | None:
        """The controller's clock and field as the header shows them (None: no tournament)."""
        with self.lock:
            return self.tournament.as_json()

    def snapshot(self) -> dict[str, Any]:
        """What a page needs when it (re)connects; called from the web's thread pool."""
        with self.lock:
            tables = self.venue.snapshot()
            tournament = self.tournament.as_json()
        return {"tables": self.marked(tables), "tournament": tournament}

    def view(self, table: str) -> dict[str, Any] | None:
        """A table's view as the writer last left it (None for a table not stored yet)."""
        with self.lock:
            view = self.venue.tables.get(table)
            return view.as_json() if view is not None else None

    def marked(self, views: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Views as the page gets them: with ``silent_s`` as of now."""
        now = time.monotonic()
        return [marked(v, self.silence.silent_for(str(v["id"]), now)) for v in views]


def controller_alert(body: dict[str, Any]) -> dict[str, Any] | None:
    """A tournament controller's alert (``{id, name, rule, severity, message, remedy, at,
    table, seat, player}``) as the public alert event the store keeps; None when it is not one.

    The controller's alerts have no seq: theirs is made from the moment it raised the alert
    (milliseconds) and its number, so that they sort as they were raised and a copy the broker
    delivers again is the same alert (a restarted controller numbers on; a new tournament's
    "c-1" is another moment). The table and seat it names are the venue's, not a seat of
    the pseudo-table: they stay in the message and the event, not in the seat column."""
    ident, at, severity = body.get("id"), body.get("at"), body.get("severity")
    if not isinstance(ident, str) or not isinstance(at, str) or severity not in (
            "info", "warning", "critical"):
        return None
    try:
        stamp = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    number = ident.removeprefix("c-")
    tail = int(number) if number.isdigit() else zlib.crc32(ident.encode())
    seq = int(stamp.timestamp() * 1000) * 1000 + tail % 1000
    return {"type": "alert", "seq": seq, "ts": at, "id": ident,
            "name": str(body.get("name") or ""), "rule": str(body.get("rule") or ""),
            "severity": severity, "message": str(body.get("message") or ""),
            "remedy": str(body.get("remedy") or ""), "seat": None, "hand": None,
            "at_table": body.get("table"), "at_seat": body.get("seat"),
            "player": body.get("player")}


def initial_alerts(queries: Queries) -> list[dict[str, Any]]:
    """The alert queue a page starts with: every group with open alerts, in the queue's
    order, then the groups acknowledged last today (``Queries.groups``)."""
    return queries.groups(today())
