"""The durable outbox (DESIGN §9): every message is committed here before it is published.

One row per (seq, route): an alert goes to both ``events`` and ``alerts``, each acknowledged on
its own. Inserting is idempotent by that key, which is what lets a restarted service re-derive
its events from the journal and hand them all to the outbox again without doubling any.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

OUTBOX_NAME = "outbox.sqlite"


@dataclass(frozen=True, slots=True)
class Message:
    seq: int
    route: str  # topic below the table prefix: "events", "alerts", "secure/events"
    payload: str
    not_before: int  # ms; secure messages wait for the broadcast delay
    created: int


class Outbox:
    """SQLite in WAL mode with synchronous=FULL, shared by the pipeline and the publisher."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS messages (
                    seq INTEGER NOT NULL,
                    route TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    not_before INTEGER NOT NULL,
                    created INTEGER NOT NULL,
                    acked INTEGER,
                    PRIMARY KEY (seq, route)
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS unacked ON messages (route, seq) WHERE acked IS NULL;
                CREATE INDEX IF NOT EXISTS by_ack ON messages (acked) WHERE acked IS NOT NULL;
                CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                """
            )

    def add(self, messages: Iterable[Message]) -> int:
        """Commit a batch in one transaction; rows already present are left alone."""
        rows = [(m.seq, m.route, m.payload, m.not_before, m.created) for m in messages]
        if not rows:
            return 0
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN")
            cur.executemany(
                "INSERT OR IGNORE INTO messages (seq, route, payload, not_before, created) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            added = cur.rowcount
            cur.execute(
                "INSERT INTO meta (key, value) VALUES ('high_seq', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)",
                (max(r[0] for r in rows),),
            )
            cur.execute("COMMIT")
        return added

    def high_seq(self) -> int:
        """The highest seq ever committed, even after its row was purged.

        Batches commit whole and in seq order, so every seq up to this one is (or was) here;
        a restarted service hands over only what comes after it.
        """
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'high_seq'").fetchone()
        return int(row[0]) if row else 0

    def pending(self, route: str, after_seq: int, limit: int) -> list[Message]:
        """Unacknowledged messages of a route after ``after_seq``, in seq order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, route, payload, not_before, created FROM messages "
                "WHERE route = ? AND acked IS NULL AND seq > ? ORDER BY seq LIMIT ?",
                (route, after_seq, limit),
            ).fetchall()
        return [Message(*r) for r in rows]

    def ack(self, keys: Iterable[tuple[int, str]], ms: int) -> None:
        rows = [(ms, seq, route) for seq, route in keys]
        if not rows:
            return
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN")
            cur.executemany(
                "UPDATE messages SET acked = ? WHERE seq = ? AND route = ? AND acked IS NULL", rows
            )
            cur.execute("COMMIT")

    def unacked_count(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM messages WHERE acked IS NULL").fetchone()
        return int(row[0])

    def acked_range(self, route: str, from_seq: int, to_seq: int, limit: int) -> list[Message]:
        """Acknowledged messages kept for ``cmd/replay``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, route, payload, not_before, created FROM messages "
                "WHERE route = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?",
                (route, from_seq, to_seq, limit),
            ).fetchall()
        return [Message(*r) for r in rows]

    def purge(self, acked_before_ms: int) -> int:
        """Forget acknowledged messages older than the retention time."""
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM messages WHERE acked IS NOT NULL AND acked < ?", (acked_before_ms,)
            )
        return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()
