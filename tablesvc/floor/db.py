"""The one place that knows which database the console writes to: SQLite or PostgreSQL.

Everything above speaks portable SQL with ``?`` placeholders (``INSERT ... ON CONFLICT DO
NOTHING`` and the rest work in both); this module opens the connection, sets SQLite up for
one writer and many readers (WAL), and translates the placeholders for psycopg. A venue that
outgrows one file sets ``[storage] url`` and nothing else changes.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from tablesvc.config.table import resolve
from tablesvc.floor.config import FloorStorage


class DatabaseError(Exception):
    """The database cannot be opened or used; the message says which and why."""


class _Cursor(Protocol):
    rowcount: int

    def execute(self, sql: Any, params: Any = ...) -> Any: ...
    def executemany(self, sql: Any, params: Any) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Database:
    """A connection and its dialect. Not thread-safe: each thread opens its own."""

    def __init__(self, conn: Any, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        cur: _Cursor = self.conn.cursor()
        cur.execute(self._sql(sql), tuple(params))
        return int(cur.rowcount)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        cur: _Cursor = self.conn.cursor()
        cur.executemany(self._sql(sql), [tuple(r) for r in rows])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur: _Cursor = self.conn.cursor()
        cur.execute(self._sql(sql), tuple(params))
        return [tuple(r) for r in cur.fetchall()]

    def commit(self) -> None:
        self.conn.commit()

    def rollback(self) -> None:
        self.conn.rollback()

    def close(self) -> None:
        self.conn.close()


def open_sqlite(path: Path, *, readonly: bool = False) -> Database:
    """The embedded default: one file in WAL mode (readers never wait for the writer);
    synchronous=NORMAL, since a commit that a power cut takes back is received again: the
    console acknowledges a message to the broker only after its commit."""
    try:
        if not readonly:
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=10, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        if readonly:
            conn.execute("PRAGMA query_only=1")
    except (sqlite3.Error, OSError) as exc:
        raise DatabaseError(f"cannot open the SQLite file {path}: {exc}") from None
    if not readonly:
        with contextlib.suppress(OSError):
            path.chmod(0o640)  # the day's alerts and hands: not world-readable
    return Database(conn, "sqlite")


def open_postgresql(url: str, password: str | None = None) -> Database:
    """A PostgreSQL database (psycopg 3, the ``postgres`` extra)."""
    try:
        import psycopg
    except ImportError:
        raise DatabaseError("[storage] url needs psycopg: pip install 'tablesvc[postgres]'"
                            ) from None
    try:
        kwargs: dict[str, Any] = {"password": password} if password else {}
        conn = psycopg.connect(url, connect_timeout=10, **kwargs)
    except psycopg.Error as exc:
        raise DatabaseError(f"cannot connect to PostgreSQL: {exc}".strip()) from None
    return Database(conn, "postgresql")


def open_configured(storage: FloorStorage, cfg_path: Path) -> Database:
    """The database of a console's ``[storage]`` (the floor's, the tournament controller's):
    PostgreSQL when ``url`` is set, with the password of ``password_file``; else the SQLite
    file, relative to the config."""
    if storage.url:
        password = (resolve(cfg_path, storage.password_file).read_text(encoding="utf-8").strip()
                    if storage.password_file else None)
        return open_postgresql(storage.url, password)
    return open_sqlite(resolve(cfg_path, storage.path))


def errors() -> tuple[type[BaseException], ...]:
    """The exception types a database call may raise, for both dialects."""
    types: list[type[BaseException]] = [sqlite3.Error]
    try:
        import psycopg

        types.append(psycopg.Error)
    except ImportError:
        pass
    return tuple(types)
