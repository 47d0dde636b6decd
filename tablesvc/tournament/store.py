"""The controller's journal: every operation, committed before it counts.

A tournament is rebuilt by replaying its operations in order (``Tournament.replay``): the
director's actions as journalled (self-contained: seeds and resolved suggestions included),
the tables' hand events the controller took, and the tables' answers to its commands. The
clock is part of the actions (wall-clock stamps), so a controller killed at any moment and
started again is where it was, its clock included. Alerts the controller raised are kept
beside the journal for the pages. SQLite by default, PostgreSQL when configured (the floor
console's ``Database``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tablesvc.floor.db import Database

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ops (n BIGINT PRIMARY KEY, at DOUBLE PRECISION NOT NULL, "
    "body TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS alerts (id TEXT PRIMARY KEY, body TEXT NOT NULL)",
)


class Journal:
    """Append-only operations and the controller's alerts. One writer (the engine)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        for sql in SCHEMA:
            self.db.execute(sql)
        self.db.commit()
        rows = self.db.query("SELECT MAX(n) FROM ops")
        self.last = int(rows[0][0] or 0) if rows else 0

    def append(self, op: dict[str, Any], at: float) -> None:
        """Write one operation and commit: it counts from here on."""
        self.last += 1
        self.db.execute("INSERT INTO ops (n, at, body) VALUES (?, ?, ?)",
                        (self.last, at, json.dumps(op, separators=(",", ":"))))
        self.db.commit()

    def ops(self) -> Iterator[tuple[float, dict[str, Any]]]:
        for at, body in self.db.query("SELECT at, body FROM ops ORDER BY n"):
            yield float(at), json.loads(body)

    def keep_alert(self, alert: dict[str, Any]) -> None:
        self.db.execute("INSERT INTO alerts (id, body) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        (alert["id"], json.dumps(alert)))
        self.db.commit()

    def alerts(self) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT body FROM alerts")
        found = [json.loads(r[0]) for r in rows]
        return sorted(found, key=lambda a: int(str(a["id"]).removeprefix("c-")))
