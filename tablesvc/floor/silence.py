"""Which tables have said nothing for a while: a frozen box is seen before the broker's will.

The broker publishes a table's will (``status`` offline) only once it decides the connection
is dead, which a box frozen with its connection open can put off for a minute or more. Each
service publishes its retained ``status`` every 5 s as a sign of life
(``tablesvc.pipeline.publisher.ALIVE_EVERY_S``), so a table the console hears nothing from,
on any of its topics, for ``after_s`` is *silent*: its box or its service is stuck.

Only the console's own clock counts (``time.monotonic`` of the moment a message was read,
retained ones included), never a table's timestamps: the boxes' clocks may differ. The console
cannot hear what was sent while it was away from the broker, so silence is counted from the
later of a table's last message and the console's (re)connection, and no table is silent
while the console has no broker. An offline table is offline, not silent.

Thread-safe: paho's thread notes what it hears, the web side asks.
"""

from __future__ import annotations

import threading


class Silence:
    """When each table was last heard, and which of them are silent now."""

    def __init__(self, after_s: float) -> None:
        self.after_s = after_s
        self._lock = threading.Lock()
        self._heard: dict[str, float] = {}
        self._since: float | None = None
        """When the console (re)connected to the broker; None while it has no broker."""
        self._silent: set[str] = set()
        """The tables ``changes`` last reported silent."""

    def expect(self, table: str) -> None:
        """A table known from before (the store): silent if it says nothing from now on."""
        with self._lock:
            self._heard.setdefault(table, float("-inf"))

    def heard(self, table: str, at: float) -> None:
        """Any message of the table was read at ``at``."""
        with self._lock:
            self._heard[table] = at

    def listening(self, at: float | None) -> None:
        """The console (re)connected to the broker at ``at``, or lost it (None)."""
        with self._lock:
            self._since = at

    def silent_for(self, table: str, now: float) -> float | None:
        """How long the table has said nothing, when that is ``after_s`` or more; else None."""
        with self._lock:
            return self._quiet(table, now)

    def _quiet(self, table: str, now: float) -> float | None:
        if self._since is None:
            return None
        last = max(self._heard.get(table, float("-inf")), self._since)
        quiet = now - last
        return quiet if quiet >= self.after_s else None

    def changes(self, now: float) -> set[str]:
        """The tables that fell silent or spoke again since the last call."""
        with self._lock:
            silent = {t for t in self._heard if self._quiet(t, now) is not None}
            changed = silent ^ self._silent
            self._silent = silent
            return changed


def marked(view: dict[str, object], silent_for: float | None) -> dict[str, object]:
    """A table's view as the page gets it: ``silent_s``, the whole seconds it has said nothing
    (None unless silent; an offline table is shown offline instead)."""
    silent = silent_for is not None and view.get("online") is not False
    return {**view, "silent_s": int(silent_for) if silent and silent_for is not None else None}
