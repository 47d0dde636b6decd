"""The console's memory of the day: every public event, alert, hand and acknowledgement.

Thin on purpose: portable SQL over ``tablesvc.floor.db`` (SQLite by default, PostgreSQL when
configured). ``Store`` is the writer (the intake's one thread); ``Queries`` answers the web
pages, from its own connection, so a search never waits for a write (WAL).

De-duplication is on (table, seq), the events' primary key (DESIGN §9): an alert arrives on
both ``events`` and ``alerts``, and the broker delivers a message again after a restart of the
console; the second copy changes nothing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tablesvc.floor.db import Database
from tablesvc.floor.queue import Key, done_order, done_parts, group, open_parts, queue_order

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS events (
        tbl TEXT NOT NULL, seq BIGINT NOT NULL, day TEXT NOT NULL, ts TEXT NOT NULL,
        hand INTEGER, type TEXT NOT NULL, seat INTEGER, body TEXT NOT NULL,
        PRIMARY KEY (tbl, seq))""",
    # every search filters by equality and takes the newest first: each index holds the
    # filter's columns, then the order, so a search reads only the rows it returns
    "CREATE INDEX IF NOT EXISTS events_day_tbl_ts ON events (day, tbl, ts)",
    "CREATE INDEX IF NOT EXISTS events_day_tbl_seat ON events (day, tbl, seat, ts)",
    "CREATE INDEX IF NOT EXISTS events_day_seat ON events (day, seat, ts)",
    """CREATE TABLE IF NOT EXISTS alerts (
        tbl TEXT NOT NULL, seq BIGINT NOT NULL, alert_id TEXT NOT NULL, day TEXT NOT NULL,
        ts TEXT NOT NULL, hand INTEGER, name TEXT NOT NULL, rule TEXT NOT NULL,
        severity TEXT NOT NULL, seat INTEGER, message TEXT NOT NULL, remedy TEXT NOT NULL,
        ack_state TEXT NOT NULL DEFAULT '', acked_by TEXT, acked_at TEXT, ack_request TEXT,
        ack_reply TEXT, PRIMARY KEY (tbl, seq))""",
    "CREATE INDEX IF NOT EXISTS alerts_day_ts ON alerts (day, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_tbl_ts ON alerts (day, tbl, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_tbl_seat_ts ON alerts (day, tbl, seat, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_rule_ts ON alerts (day, rule, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_severity_ts ON alerts (day, severity, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_seat_ts ON alerts (day, seat, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_tbl_id ON alerts (tbl, alert_id)",
    "CREATE INDEX IF NOT EXISTS alerts_request ON alerts (ack_request)",
    "CREATE INDEX IF NOT EXISTS alerts_open_ts ON alerts (ack_state, severity, ts, seq)",
    "CREATE INDEX IF NOT EXISTS alerts_day_acked ON alerts (day, acked_at) WHERE ack_state <> ''",
    # the queue's groups (``tablesvc.floor.queue``): the open alerts by table, name and seat,
    # and the day's acknowledged ones by table, name and answer, each read from its index in
    # the order it groups them
    "CREATE INDEX IF NOT EXISTS alerts_open_groups ON alerts (ack_state, tbl, name, seat, "
    "severity, seq, ts) WHERE severity <> 'info'",
    "CREATE INDEX IF NOT EXISTS alerts_acked_groups ON alerts (day, tbl, name, ack_state, "
    "acked_by, acked_at, seq) WHERE ack_state <> ''",
    """CREATE TABLE IF NOT EXISTS hands (
        tbl TEXT NOT NULL, start_seq BIGINT NOT NULL, hand INTEGER NOT NULL, day TEXT NOT NULL,
        started_ts TEXT NOT NULL, end_seq BIGINT, ended_ts TEXT, reason TEXT, seats TEXT,
        button INTEGER, PRIMARY KEY (tbl, start_seq))""",
    "CREATE INDEX IF NOT EXISTS hands_tbl_day ON hands (tbl, day, start_seq)",
    """CREATE TABLE IF NOT EXISTS retained (
        tbl TEXT NOT NULL, topic TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (tbl, topic))""",
)
RETIRED_INDEXES = ("alerts_day", "alerts_day_tbl", "alerts_day_rule", "alerts_day_severity",
                   "alerts_day_seat", "alerts_open")
"""Indexes of earlier versions, which left a search to sort the whole day: dropped on start."""
NO_END = 2**62
"""The last seq of a hand still in play."""
ALERT_COLUMNS = ("tbl", "seq", "alert_id", "day", "ts", "hand", "name", "rule", "severity",
                 "seat", "message", "remedy", "ack_state", "acked_by", "acked_at",
                 "ack_request", "ack_reply")
SEVERITIES = ("info", "warning", "critical")
OPEN = "ack_state = '' AND severity <> 'info'"
"""An alert of the queue nobody has acknowledged (written as ``alerts_open_groups`` is, so
that the database sees the index holds every such row)."""
OPEN_GROUPS = ("SELECT tbl, name, seat, COUNT(*), "
               "SUM(CASE WHEN severity = 'critical' THEN 1 ELSE 0 END), MAX(seq), MIN(ts), "
               f"MAX(ts) FROM alerts WHERE {OPEN}{{}} GROUP BY tbl, name, seat")
DONE_GROUPS = ("SELECT tbl, name, ack_state, acked_by, COUNT(*), MAX(acked_at), MAX(seq) "
               "FROM alerts WHERE ack_state <> '' AND day = ?{} "
               "GROUP BY tbl, name, ack_state, acked_by")
DONE_GROUPS_SHOWN = 50
"""Acknowledged groups a page starts with (the latest of the day)."""


def day_of(ts: str) -> str:
    """The local calendar day of an event's UTC timestamp (the venue's day, as staff say it)."""
    if len(ts) > 17 and ts[16] == ":" and ts.endswith("Z"):  # YYYY-MM-DDTHH:MM:SS[.fff]Z
        try:
            return _day_of_minute(ts[:16])
        except ValueError:
            pass
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone().date().isoformat()
    except ValueError:
        return datetime.now().date().isoformat()


@functools.lru_cache(maxsize=4096)
def _day_of_minute(minute: str) -> str:
    """Every second of a UTC minute falls on the same local day: the intake asks this once a
    minute per table instead of converting every event's time."""
    return datetime.fromisoformat(minute + "+00:00").astimezone().date().isoformat()


def today() -> str:
    return datetime.now().date().isoformat()


def migrate(db: Database) -> None:
    for statement in SCHEMA:
        db.execute(statement)
    for name in RETIRED_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")
    db.commit()


EVENT_INSERT = ("INSERT INTO events (tbl, seq, day, ts, hand, type, seat, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
ALERT_INSERT = ("INSERT INTO alerts (tbl, seq, alert_id, day, ts, hand, name, rule, severity, "
                "seat, message, remedy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING")
HAND_INSERT = ("INSERT INTO hands (tbl, start_seq, hand, day, started_ts, seats, button) "
               "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
HAND_END = ("UPDATE hands SET end_seq = ?, ended_ts = ?, reason = ? WHERE tbl = ? AND "
            "start_seq = (SELECT MAX(start_seq) FROM hands WHERE tbl = ? AND hand = ? "
            "AND start_seq < ?)")
Row = tuple[Any, ...]


@dataclass(frozen=True)
class _Rows:
    """What one public event writes: its own row, and the alert or hand row it makes."""

    event: Row
    alert: Row | None = None
    hand: Row | None = None
    hand_end: Row | None = None

    @classmethod
    def of(cls, table: str, event: dict[str, Any], text: str | None = None) -> _Rows:
        seq = int(event["seq"])
        ts = str(event.get("ts", ""))
        day = day_of(ts)
        seat = event.get("seat")
        seat = seat if isinstance(seat, int) else None
        etype = event.get("type")
        row = (table, seq, day, ts, event.get("hand"), str(etype), seat,
               text if text is not None else json.dumps(event, separators=(",", ":")))
        if etype == "alert":
            return cls(row, alert=(
                table, seq, str(event.get("id", "")), day, ts, event.get("hand"),
                str(event.get("name", "")), str(event.get("rule", "")),
                str(event.get("severity", "")), seat, str(event.get("message", "")),
                str(event.get("remedy", ""))))
        if etype == "hand_started":
            return cls(row, hand=(table, seq, int(event.get("hand") or 0), day, ts,
                                  json.dumps(event.get("seats", [])), event.get("button")))
        if etype == "hand_ended":
            return cls(row, hand_end=(seq, ts, str(event.get("reason", "")), table, table,
                                      int(event.get("hand") or 0), seq))
        return cls(row)


@dataclass(frozen=True)
class AckTarget:
    """The alert an acknowledgement reply belongs to."""

    table: str
    seq: int


class Store:
    """Writes of the intake thread. Call ``commit`` after a batch."""

    def __init__(self, db: Database) -> None:
        self.db = db
        migrate(db)

    def add_event(self, table: str, event: dict[str, Any], text: str | None = None) -> bool:
        """Keep a public event; False when (table, seq) was kept before. ``text``: the event
        as JSON already (the message as received, when nothing of it was removed)."""
        rows = _Rows.of(table, event, text)
        if self.db.execute(EVENT_INSERT, rows.event) != 1:
            return False
        if rows.alert is not None:
            self.db.execute(ALERT_INSERT, rows.alert)
        elif rows.hand is not None:
            self.db.execute(HAND_INSERT, rows.hand)
        elif rows.hand_end is not None:
            self.db.execute(HAND_END, rows.hand_end)
        return True

    def add_events(self, table: str, events: Sequence[dict[str, Any]]) -> None:
        """Keep many public events of one table at once, in seq order (an import of a day):
        the same rows as ``add_event`` on each in turn, one statement per kind. Events kept
        before change nothing here either: their alert and hand rows exist already, and a
        hand's end is written the same again."""
        rows = [_Rows.of(table, e) for e in events]
        self.db.executemany(EVENT_INSERT, [r.event for r in rows])
        self.db.executemany(ALERT_INSERT, [r.alert for r in rows if r.alert is not None])
        self.db.executemany(HAND_INSERT, [r.hand for r in rows if r.hand is not None])
        self.db.executemany(HAND_END, [r.hand_end for r in rows if r.hand_end is not None])

    def keep_retained(self, table: str, topic: str, body: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO retained (tbl, topic, body) VALUES (?, ?, ?) "
            "ON CONFLICT (tbl, topic) DO UPDATE SET body = excluded.body",
            (table, topic, json.dumps(body, separators=(",", ":"))))

    def ack_sent(self, table: str, seq: int, by: str, at: str, request_id: str | None,
                 state: str, reply: str | None = None) -> bool:
        """Record who acknowledged an alert and when; False when it was acknowledged before
        (the first acknowledgement stands)."""
        return self.db.execute(
            "UPDATE alerts SET ack_state = ?, acked_by = ?, acked_at = ?, ack_request = ?, "
            "ack_reply = ? WHERE tbl = ? AND seq = ? AND ack_state = ''",
            (state, by, at, request_id, reply, table, seq)) == 1

    def ack_reply(self, table: str, request_id: str, ok: bool, text: str) -> AckTarget | None:
        rows = self.db.query("SELECT seq FROM alerts WHERE ack_request = ? AND tbl = ?",
                             (request_id, table))
        if not rows:
            return None
        self.db.execute("UPDATE alerts SET ack_state = ?, ack_reply = ? WHERE tbl = ? AND "
                        "seq = ?", ("ok" if ok else "refused", text, table, rows[0][0]))
        return AckTarget(table, int(rows[0][0]))

    def commit(self) -> None:
        self.db.commit()


def alert_row(row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(ALERT_COLUMNS, row, strict=True))


class Queries:
    """Reads for the web pages (one connection, used by one thread at a time)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def retained(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for tbl, topic, body in self.db.query("SELECT tbl, topic, body FROM retained"):
            out.setdefault(tbl, {})[topic] = json.loads(body)
        return out

    def alert(self, table: str, seq: int) -> dict[str, Any] | None:
        rows = self.db.query(f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE tbl = ? "
                             "AND seq = ?", (table, seq))
        return alert_row(rows[0]) if rows else None

    def open_alerts(self, severities: tuple[str, ...] = ("warning", "critical"),
                    limit: int = 1000) -> list[dict[str, Any]]:
        """Alerts nobody has acknowledged yet (any day), newest first."""
        marks = ", ".join("?" for _ in severities)
        return [alert_row(r) for r in self.db.query(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE ack_state = '' "
            f"AND severity IN ({marks}) ORDER BY ts DESC, seq DESC LIMIT ?",
            (*severities, limit))]

    def open_in_group(self, table: str, name: str, upto: int) -> list[dict[str, Any]]:
        """The open alerts of a group up to seq ``upto`` (what acknowledging it takes)."""
        # the group's rows from its index (a bound on seq would have the table's whole day
        # read by its primary key instead), then those up to ``upto``
        rows = [alert_row(r) for r in self.db.query(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE {OPEN} AND tbl = ? AND "
            "name = ?", (table, name))]
        return sorted((r for r in rows if int(r["seq"]) <= upto), key=lambda r: int(r["seq"]))

    def groups(self, day: str, key: Key | None = None,
               done_limit: int = DONE_GROUPS_SHOWN) -> list[dict[str, Any]]:
        """The queue's groups (``tablesvc.floor.queue``): every group with open alerts, in
        the queue's order, then the ``done_limit`` groups acknowledged last on ``day`` that
        have none open; with ``key``, that one group (open or acknowledged on ``day``, or
        neither)."""
        where, params = ("", ()) if key is None else (" AND tbl = ? AND name = ?", key)
        opened = open_parts(self.db.query(OPEN_GROUPS.format(where), params))
        done = done_parts(self.db.query(DONE_GROUPS.format(where), (day, *params)))
        keys = list(opened.keys() | done.keys()) if key is None else [key]
        out = []
        for k in keys:
            o, d = opened.get(k), done.get(k)
            refused = self.alert(k[0], d.refused) if d is not None and d.refused else None
            out.append(group(
                k, o.as_json(self.alert(k[0], o.upto)) if o is not None else None,
                d.as_json(self.alert(k[0], d.newest),
                          refused["ack_reply"] if refused else None) if d is not None else None))
        if key is not None:
            return out
        queue = queue_order(out)
        return queue + done_order([g for g in out if not g["open"]], done_limit)

    def recent_acked(self, day: str, limit: int = 50) -> list[dict[str, Any]]:
        return [alert_row(r) for r in self.db.query(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE ack_state <> '' AND day = ? "
            "ORDER BY acked_at DESC LIMIT ?", (day, limit))]

    def hands(self, table: str, day: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT h.start_seq, h.hand, h.started_ts, h.ended_ts, h.reason, h.button, "
            # the hand's own alerts: a range of the table's seqs (the primary key)
            "(SELECT COUNT(*) FROM alerts a WHERE a.tbl = h.tbl AND a.seq >= h.start_seq AND "
            f"a.seq <= COALESCE(h.end_seq, {NO_END}) AND a.hand = h.hand AND "
            "a.severity <> 'info') FROM hands h WHERE h.tbl = ? AND h.day = ? "
            "ORDER BY h.start_seq DESC", (table, day))
        return [{"start_seq": r[0], "hand": r[1], "started": r[2], "ended": r[3],
                 "reason": r[4], "button": r[5], "alerts": r[6]} for r in rows]

    def hand(self, table: str, start_seq: int) -> dict[str, Any] | None:
        rows = self.db.query(
            "SELECT hand, end_seq, started_ts, ended_ts, reason, seats, button FROM hands "
            "WHERE tbl = ? AND start_seq = ?", (table, start_seq))
        if not rows:
            return None
        hand, end_seq, started, ended, reason, seats, button = rows[0]
        last = end_seq if end_seq is not None else NO_END
        events = [json.loads(b) for (b,) in self.db.query(
            "SELECT body FROM events WHERE tbl = ? AND seq >= ? AND seq <= ? AND hand = ? "
            "ORDER BY seq", (table, start_seq, last, hand))]
        alerts = [alert_row(r) for r in self.db.query(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE tbl = ? AND seq >= ? AND "
            "seq <= ? AND hand = ? ORDER BY seq", (table, start_seq, last, hand))]
        return {"table": table, "start_seq": start_seq, "hand": hand, "started": started,
                "ended": ended, "reason": reason, "seats": json.loads(seats or "[]"),
                "button": button, "events": events, "alerts": alerts}

    def search(self, day: str, *, table: str | None = None, seat: int | None = None,
               rule: str | None = None, severity: str | None = None,
               limit: int = 200) -> dict[str, Any]:
        """A day's alerts by table, seat, rule ID and severity, newest first; with only a
        table and/or a seat, that seat's (or table's) events of the day too."""
        where, params = ["day = ?"], [day]
        for column, value in (("tbl", table), ("seat", seat), ("rule", rule),
                              ("severity", severity)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)  # type: ignore[arg-type]
        alerts = [alert_row(r) for r in self.db.query(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM alerts WHERE {' AND '.join(where)} "
            "ORDER BY ts DESC, seq DESC LIMIT ?", (*params, limit))]
        events: list[dict[str, Any]] = []
        if rule is None and severity is None and (table is not None or seat is not None):
            ewhere, eparams = ["day = ?"], [day]
            if table is not None:
                ewhere.append("tbl = ?")
                eparams.append(table)
            if seat is not None:
                ewhere.append("seat = ?")
                eparams.append(seat)  # type: ignore[arg-type]
            events = [json.loads(b) for (b,) in self.db.query(
                f"SELECT body FROM events WHERE {' AND '.join(ewhere)} ORDER BY ts DESC "
                "LIMIT ?", (*eparams, limit))]
        return {"alerts": alerts, "events": events}
