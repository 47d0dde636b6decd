"""The outbox (DESIGN §9): every message and its acknowledgement, recorded off the event path.

One row per (seq, route): an alert goes to both ``events`` and ``alerts``, each acknowledged on
its own. Inserting is idempotent by that key, which is what lets a restarted service re-derive
its events from the journal and hand them all to the outbox again without doubling any.

No event waits for the outbox. The pipeline hands its events to the publisher and ``post``s
them here; the publisher ``post_acks`` what the broker acknowledged; this module's writer
thread records both in batched transactions, at most one every ``GATHER_S``, in the order
they were posted (so a message is always inserted before its acknowledgement). SQLite runs in
WAL mode with ``synchronous=NORMAL``: a commit is not synced. That is safe because the events are a
deterministic function of the journal, which is synced before any event leaves: after a crash
the service replays the journal, re-derives every event and adds those the outbox lacks
(``high_seq`` says which), and the publisher sends whatever is not acknowledged — an event
whose acknowledgement was not yet written is sent again, and consumers de-duplicate on seq.

Readers (``pending``, ``acked_range``, ``high_seq``, ``unacked_count``) use a connection of their
own, so a reader never waits for a write transaction and the writer never waits for a reader.
"""

from __future__ import annotations

import collections
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog

OUTBOX_NAME = "outbox.sqlite"
BACKLOG_MAX = 200_000
"""Posted operations waiting for the writer beyond which ``post`` waits for it: only a disk
that stalls for many seconds under a full burst gets there, and memory must stay bounded."""
GATHER_S = 0.1
"""Between two transactions of the writer: what is posted meanwhile goes into the next one.
A transaction per batch of the pipeline wrote several pages of the WAL per frame; on a shared
disk those writes made the journal's syncs, which every event waits for, slow more often
(docs/PERFORMANCE.md). A flush or a close cuts the wait short."""
PURGE_EVERY_MS = 60_000

log = structlog.get_logger("tablesvc.pipeline.outbox")


# not frozen: one is made for every event and route, and a frozen dataclass's __init__ (a
# setattr call per field) cost a measurable share of that; nothing changes one once made
@dataclass(slots=True)
class Message:
    seq: int
    route: str  # topic below the table prefix: "events", "alerts", "secure/events"
    payload: str
    not_before: int  # ms; secure messages wait for the broadcast delay
    created: int


class OutboxError(RuntimeError):
    """The writer could not record what was posted (disk full, I/O error)."""


@dataclass(frozen=True, slots=True)
class _Op:
    """One posted operation: messages to insert, acknowledgements to record, or a marker
    that the writer sets once everything posted before it is written."""

    messages: Sequence[Message] = ()
    acks: Sequence[tuple[int, str]] = ()
    ms: int = 0
    done: threading.Event | None = None


class Outbox:
    """SQLite in WAL mode: a writer thread for what is posted, a separate reader connection."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        if not path.exists():  # secure events are in it: readable by the service only
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._wlock = threading.Lock()
        with self._wlock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
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
        self._rdb = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._rlock = threading.Lock()
        self._ops: collections.deque[_Op] = collections.deque()
        self._wake = threading.Event()
        self._hurry = threading.Event()  # a flush or close is waiting: no gathering
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._retention_ms: int | None = None
        self.error: BaseException | None = None
        self.written_seq = self.high_seq()
        """The highest seq the writer has committed: every message up to it is readable."""
        self.transactions = 0
        """Write transactions committed so far (each one writes pages of the WAL)."""

    # ------------------------------------------------------------------ the writer thread
    def start(self, retention_ms: int | None = None) -> None:
        """Start the writer; with ``retention_ms`` it also forgets acknowledged messages older
        than that, once a minute."""
        self._retention_ms = retention_ms
        self._thread = threading.Thread(target=self._run, name="outbox-writer", daemon=True)
        self._thread.start()

    def post(self, messages: Sequence[Message]) -> None:
        """Record ``messages`` soon (the caller does not wait)."""
        if messages:
            self._put(_Op(messages=messages))

    def post_acks(self, keys: Sequence[tuple[int, str]], ms: int) -> None:
        """Record that the broker acknowledged these (seq, route) soon."""
        if keys:
            self._put(_Op(acks=keys, ms=ms))

    def _put(self, op: _Op) -> None:
        if self._thread is None:  # no writer (tools, tests): write now
            self._write([op])
            return
        self.check()
        if len(self._ops) > BACKLOG_MAX:
            self.flush(timeout=30.0)
        self._ops.append(op)  # deque.append is atomic: no lock shared with anyone
        self._wake.set()

    def check(self) -> None:
        """Raise ``OutboxError`` if the writer has failed (the service then stops, and its
        restart recovers everything from the journal)."""
        if self.error is not None:
            raise OutboxError(f"the outbox could not be written: {self.error}")

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything posted so far is written; False on timeout or failure."""
        thread = self._thread
        if thread is None:
            return self.error is None
        done = threading.Event()
        self._ops.append(_Op(done=done))
        self._hurry.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        while not done.wait(0.1):
            if self.error is not None or not thread.is_alive() or time.monotonic() > deadline:
                return False
        return self.error is None

    def _run(self) -> None:
        last_purge = 0
        while True:
            self._wake.wait(1.0)
            self._wake.clear()
            ops: list[_Op] = []
            while self._ops:
                ops.append(self._ops.popleft())
            try:
                if ops:
                    self._write(ops)
                now = int(time.time() * 1000)
                if self._retention_ms is not None and now - last_purge > PURGE_EVERY_MS:
                    last_purge = now
                    self.purge(now - self._retention_ms)
            except Exception as exc:
                self.error = exc
                log.critical("outbox write failed", error=str(exc))
                return
            for op in ops:
                if op.done is not None:
                    op.done.set()
            if self._stopping and not self._ops:
                return
            if ops and self._hurry.wait(GATHER_S):
                self._hurry.clear()

    def _write(self, ops: Sequence[_Op]) -> int:
        """One transaction for a run of posted operations: the inserts first (an
        acknowledgement is always posted after its message, never before). Returns the
        number of messages that were new."""
        rows = [(m.seq, m.route, m.payload, m.not_before, m.created)
                for op in ops for m in op.messages]
        acks = [(op.ms, seq, route) for op in ops for seq, route in op.acks]
        if not rows and not acks:
            return 0
        added = 0
        high = max((r[0] for r in rows), default=0)
        with self._wlock:
            cur = self._db.cursor()
            cur.execute("BEGIN")
            try:
                if rows:
                    cur.executemany(
                        "INSERT OR IGNORE INTO messages (seq, route, payload, not_before, "
                        "created) VALUES (?, ?, ?, ?, ?)", rows)
                    added = cur.rowcount
                    cur.execute(
                        "INSERT INTO meta (key, value) VALUES ('high_seq', ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)",
                        (high,))
                if acks:
                    cur.executemany("UPDATE messages SET acked = ? "
                                    "WHERE seq = ? AND route = ? AND acked IS NULL", acks)
                cur.execute("COMMIT")
                self.transactions += 1
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        self.written_seq = max(self.written_seq, high)
        return added

    # ------------------------------------------------------------------ synchronous writes
    def add(self, messages: Iterable[Message]) -> int:
        """Commit a batch now, in one transaction; rows already present are left alone.
        Used when the caller must know it is written (recovery at start, tools, tests).
        Returns how many rows were new."""
        return self._write([_Op(messages=list(messages))])

    def ack(self, keys: Iterable[tuple[int, str]], ms: int) -> None:
        self._write([_Op(acks=list(keys), ms=ms)])

    def purge(self, acked_before_ms: int) -> int:
        """Forget acknowledged messages older than the retention time."""
        with self._wlock:
            cur = self._db.execute(
                "DELETE FROM messages WHERE acked IS NOT NULL AND acked < ?", (acked_before_ms,)
            )
        return cur.rowcount

    # ------------------------------------------------------------------ reading
    def high_seq(self) -> int:
        """The highest seq ever committed, even after its row was purged.

        Batches commit whole and in seq order, so every seq up to this one is (or was) here;
        a restarted service hands over only what comes after it.
        """
        with self._rlock:
            row = self._rdb.execute("SELECT value FROM meta WHERE key = 'high_seq'").fetchone()
        return int(row[0]) if row else 0

    def pending(self, route: str, after_seq: int, limit: int) -> list[Message]:
        """Unacknowledged messages of a route after ``after_seq``, in seq order."""
        with self._rlock:
            rows = self._rdb.execute(
                "SELECT seq, route, payload, not_before, created FROM messages "
                "WHERE route = ? AND acked IS NULL AND seq > ? ORDER BY seq LIMIT ?",
                (route, after_seq, limit),
            ).fetchall()
        return [Message(*r) for r in rows]

    def unacked_count(self) -> int:
        with self._rlock:
            row = self._rdb.execute(
                "SELECT COUNT(*) FROM messages WHERE acked IS NULL").fetchone()
        return int(row[0])

    def acked_range(self, route: str, from_seq: int, to_seq: int, limit: int) -> list[Message]:
        """Messages kept for ``cmd/replay``."""
        with self._rlock:
            rows = self._rdb.execute(
                "SELECT seq, route, payload, not_before, created FROM messages "
                "WHERE route = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?",
                (route, from_seq, to_seq, limit),
            ).fetchall()
        return [Message(*r) for r in rows]

    # ------------------------------------------------------------------ closing
    def close(self, timeout: float = 10.0) -> None:
        """Write everything posted, stop the writer, close."""
        if self._thread is not None:
            self._stopping = True
            self._hurry.set()
            self._wake.set()
            self._thread.join(timeout)
            self._thread = None
        with self._rlock:
            self._rdb.close()
        with self._wlock:
            self._db.close()
