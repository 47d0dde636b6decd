"""Which tables a venue's console listens to: its configured list, and nobody posing as one.

The broker's ACL lets only a table's own user write under that table's prefix
(deploy/venue-acl.sh); a console that also knows the venue's table list drops anything else
that arrives below the venue, so a broker set up by hand, with a role user that can write where
a table writes, still cannot put a table on the floor's screen or an alert in its queue. What
is dropped is said once per topic level in the log (a warning: someone writes where no table
of this venue is), then counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""A table id, as ``[table] id`` takes it (no dot, no slash, no wildcard)."""


class VenueTables:
    """The tables a console accepts: those of its list, or (no list) any table id."""

    def __init__(self, ids: Iterable[str], log: Any, source: str) -> None:
        self.ids = frozenset(ids)
        self.log = log
        self.source = source
        """Where the list comes from, for the log line (``floor.tables``, say)."""
        self.strangers: dict[str, int] = {}
        """Topic level below the venue -> messages dropped for it."""

    def known(self, table: str) -> bool:
        """``table`` is one of the venue's (no log, no count: for any thread)."""
        return bool(TABLE_ID.fullmatch(table)) and (not self.ids or table in self.ids)

    def admits(self, table: str, topic: str) -> bool:
        """True when ``table`` is one of the venue's; else logs once and counts (one
        thread's)."""
        if self.known(table):
            return True
        seen = self.strangers.get(table, 0)
        self.strangers[table] = seen + 1
        if not seen:
            why = ("not a table id" if not TABLE_ID.fullmatch(table) else
                   f"not a table of this venue ({self.source})")
            self.log.warning("a message where no table of this venue writes, dropped",
                             topic=topic, table=table[:64], why=why)
        return False
