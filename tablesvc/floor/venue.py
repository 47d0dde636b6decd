"""The live picture of every table: what the grid shows, built from the retained topics and
the event stream; and the tournament controller's clock and field, for the page's header.
Pure: no I/O, no clock; the intake feeds it, the web pages read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablesvc.floor.public import public_state
from tablesvc.game_names import game_name


@dataclass
class TableView:
    id: str
    online: bool | None = None
    """From the retained ``status``: False once the broker published the table's will."""
    version: str = ""
    boot: int | None = None
    state: dict[str, Any] = field(default_factory=dict)
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_seq: int = 0
    last_ts: str = ""
    gaps: int = 0
    """Times the public feed skipped events (a ``prev_seq`` the console never received)."""
    game: str | None = None
    """The game the table deals, in words ("Pot-limit Omaha"): from the latest of its
    ``hand_started`` and its retained state (``variant``, ``level``'s ``limit``)."""

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "online": self.online, "version": self.version,
                "boot": self.boot, "game": self.game, "state": self.state,
                "devices": self.devices, "last_seq": self.last_seq, "last_ts": self.last_ts,
                "gaps": self.gaps}


CLOCK_KEYS = ("name", "game", "limit", "level", "running", "started", "period", "remaining_s",
              "ends_at", "next_level", "next_break_in_s", "next_break", "on_break")
"""What the header shows of the controller's ``.tournament/clock`` (the structure stays out)."""
FIELD_KEYS = ("entries", "players_left", "average_stack", "average_bb", "chip_leader",
              "prize_pool")
"""What it shows of ``.tournament/field`` (not the leaderboard)."""


@dataclass
class TournamentView:
    """The tournament controller as the header shows it: its retained ``clock``, ``field``
    and ``status`` (``tablesvc/v1/<venue>/.tournament/``); all None until it published one."""

    online: bool | None = None
    clock: dict[str, Any] | None = None
    standing: dict[str, Any] | None = None
    """The ``field`` topic's figures."""

    def apply(self, topic: str, body: dict[str, Any]) -> bool:
        """One retained topic; True when it is one the header shows."""
        if topic == "status":
            self.online = body.get("state") == "online"
        elif topic == "clock":
            self.clock = {k: body.get(k) for k in CLOCK_KEYS}
        elif topic == "field":
            self.standing = {k: body.get(k) for k in FIELD_KEYS}
        else:
            return False
        return True

    def as_json(self) -> dict[str, Any] | None:
        """None while no controller has published its clock (no tournament: no header)."""
        if self.clock is None:
            return None
        return {"online": self.online, "clock": self.clock, "field": self.standing}


class Venue:
    """Every table seen, by id. Not thread-safe: one thread applies, others copy
    ``snapshot()`` under their own lock."""

    def __init__(self) -> None:
        self.tables: dict[str, TableView] = {}

    def table(self, table: str) -> TableView:
        view = self.tables.get(table)
        if view is None:
            view = self.tables[table] = TableView(table)
        return view

    def apply_retained(self, table: str, topic: str, body: dict[str, Any]) -> TableView:
        """``status``, ``state`` or ``devices/<name>``."""
        view = self.table(table)
        if topic == "status":
            view.online = body.get("state") == "online"
            if view.online:
                view.version = str(body.get("version") or "")
                boot = body.get("boot")
                view.boot = boot if isinstance(boot, int) else None
        elif topic == "state":
            view.state = public_state(body)
            level = view.state.get("level")
            view.game = game_name(view.state.get("variant"),
                                  level.get("limit") if isinstance(level, dict) else None
                                  ) or view.game
        elif topic.startswith("devices/"):
            view.devices[topic.removeprefix("devices/")] = {
                k: body.get(k) for k in ("state", "kind", "detail", "model", "firmware")}
        return view

    def follow(self, table: str, event: dict[str, Any]) -> TableView:
        """An event as it comes on the ``events`` topic, new or a copy already kept: that
        topic's order lets the console notice a gap (a ``prev_seq`` it never received).
        The ``alerts`` topic, taken ahead of the events, has no say in it."""
        view = self.table(table)
        seq, prev = event.get("seq"), event.get("prev_seq")
        if isinstance(prev, int) and view.last_seq and prev > view.last_seq:
            view.gaps += 1
        if isinstance(seq, int):
            view.last_seq = max(view.last_seq, seq)
        return view

    def apply_event(self, table: str, event: dict[str, Any]) -> TableView:
        """A public event, new to the console (from ``events`` or ``alerts``)."""
        view = self.table(table)
        view.last_ts = max(view.last_ts, str(event.get("ts", "")))
        if event.get("type") == "hand_started":
            view.game = game_name(event.get("variant"), event.get("limit")) or view.game
        if event.get("type") == "device_status":
            name = str(event.get("device"))
            view.devices[name] = {k: event.get(k) for k in ("state", "kind", "detail", "model",
                                                            "firmware")}
        return view

    def open_alert_ids(self, table: str) -> set[str]:
        """The alerts the table itself holds open (its retained state says so): those wait
        for ``cmd/ack_alert``."""
        view = self.tables.get(table)
        if view is None:
            return set()
        return {str(a.get("id")) for a in view.state.get("open_alerts", [])
                if isinstance(a, dict)}

    def snapshot(self) -> list[dict[str, Any]]:
        return [v.as_json() for _, v in sorted(self.tables.items())]
