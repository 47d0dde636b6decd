"""The alert queue as the floor reads it: one row per table and alert name, not per alert.

A table in trouble repeats itself (a card the shoe keeps misreading, the same seat betting out
of turn every hand): listed one by one its alerts would push every other table's off the
screen. So the queue shows a *group* per (table, alert name) with how many are open, the
newest one (its message, rule and remedy), the highest severity among them, the seats and
the first and newest time; acknowledging the group acknowledges each alert in it up to the
newest one shown. The store keeps every alert as before; the table's history lists them all.

Order: critical groups first, then by their newest alert, newest first, so that a table that
needs a person now is at the top and a noisy table takes one row per kind of trouble.

Pure: the store aggregates the rows (``Queries.groups``), this module shapes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

ACK_STATES = ("sent", "ok", "refused", "floor")


@dataclass
class OpenPart:
    """The open alerts of a group (not acknowledged, warning or critical)."""

    count: int = 0
    critical: int = 0
    seats: set[int] = field(default_factory=set)
    first_ts: str = ""
    last_ts: str = ""
    upto: int = 0
    """The newest alert's seq: what acknowledging the group goes up to."""

    def add(self, seat: int | None, count: int, critical: int, upto: int, first_ts: str,
            last_ts: str) -> None:
        """One aggregate row of the store (a seat's share of the group)."""
        self.count += count
        self.critical += critical
        if seat is not None:
            self.seats.add(seat)
        self.first_ts = min(self.first_ts, first_ts) if self.first_ts else first_ts
        self.last_ts = max(self.last_ts, last_ts)
        self.upto = max(self.upto, upto)

    def as_json(self, newest: dict[str, Any] | None) -> dict[str, Any]:
        warning = self.count - self.critical
        return {"count": self.count, "critical": self.critical, "warning": warning,
                "severity": "critical" if self.critical else "warning",
                "seats": sorted(self.seats), "first_ts": self.first_ts,
                "last_ts": self.last_ts, "upto": self.upto, "newest": newest}


@dataclass
class DonePart:
    """The alerts of a group acknowledged today, with the tables' answers."""

    count: int = 0
    states: dict[str, int] = field(default_factory=dict)
    by: set[str] = field(default_factory=set)
    last_at: str = ""
    newest: int = 0
    refused: int = 0
    """The seq of the newest refused acknowledgement (0: none refused)."""

    def add(self, state: str, by: str | None, count: int, last_at: str | None,
            newest: int) -> None:
        self.count += count
        self.states[state] = self.states.get(state, 0) + count
        if by:
            self.by.add(by)
        self.last_at = max(self.last_at, last_at or "")
        self.newest = max(self.newest, newest)
        if state == "refused":
            self.refused = max(self.refused, newest)

    def as_json(self, newest: dict[str, Any] | None, refusal: str | None) -> dict[str, Any]:
        return {"count": self.count, "states": {s: self.states[s] for s in ACK_STATES
                                               if s in self.states},
                "by": sorted(self.by), "last_at": self.last_at, "newest": newest,
                "refusal": refusal}


Key = tuple[str, str]


def open_parts(rows: Iterable[tuple[Any, ...]]) -> dict[Key, OpenPart]:
    """(tbl, name, seat, count, critical, max seq, min ts, max ts) rows, by group."""
    parts: dict[Key, OpenPart] = {}
    for tbl, name, seat, count, critical, upto, first_ts, last_ts in rows:
        parts.setdefault((str(tbl), str(name)), OpenPart()).add(
            seat if isinstance(seat, int) else None, int(count), int(critical or 0),
            int(upto), str(first_ts), str(last_ts))
    return parts


def done_parts(rows: Iterable[tuple[Any, ...]]) -> dict[Key, DonePart]:
    """(tbl, name, ack_state, acked_by, count, max acked_at, max seq) rows, by group."""
    parts: dict[Key, DonePart] = {}
    for tbl, name, state, by, count, last_at, newest in rows:
        parts.setdefault((str(tbl), str(name)), DonePart()).add(
            str(state), by, int(count), last_at, int(newest))
    return parts


def group(key: Key, open_: dict[str, Any] | None, done: dict[str, Any] | None
          ) -> dict[str, Any]:
    """A group as the page gets it: its key and table, name and rule, and its open and
    acknowledged parts (each None when it has no alert of that kind)."""
    tbl, name = key
    newest = (open_ or done or {}).get("newest") or {}
    return {"key": f"{tbl}/{name}", "tbl": tbl, "name": name, "rule": newest.get("rule", ""),
            "open": open_, "done": done}


def queue_order(groups: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups with open alerts in the order of the queue: critical first, then the
    newest first (the page sorts by the same rule as groups change)."""
    open_groups = [g for g in groups if g.get("open")]
    open_groups.sort(key=lambda g: (g["tbl"], g["name"]))
    open_groups.sort(key=lambda g: str(g["open"]["last_ts"]), reverse=True)
    open_groups.sort(key=lambda g: g["open"]["severity"] != "critical")
    return open_groups


def done_order(groups: Iterable[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The groups acknowledged today, the latest acknowledgement first."""
    done = [g for g in groups if g.get("done")]
    done.sort(key=lambda g: str(g["done"]["last_at"]), reverse=True)
    return done[:limit]
