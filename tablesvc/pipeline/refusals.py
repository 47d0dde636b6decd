"""Messages the broker refuses: reported once per topic and reason, then again with back-off.

A broker refuses a publish (an MQTT 5 PUBACK with a reason code >= 128) when its ACL does not
let the table's user write the topic, which is nearly always a mistake in the broker's setup:
the table's user is named differently from its ``[table] id``, or the ACL's venue is not the
table's. Such a refusal repeats for every message, many per second. Reporting each one as an
event would be refused in turn (the loop that once wrote 5,000 events in 20 s); so the
publisher reports here, and this says when: at the first refusal of a (topic, reason), then
after 1, 2, 4, ... minutes (at most hourly) while it goes on, with the count since. The
report names the ACL line that would let the message through, because the person reading it
is a venue technician with the broker's ACL file open.

Pure bookkeeping, no I/O: the publisher logs the reports and puts ``summary()`` into the
retained ``status``.

>>> r = RefusalReport("tablesvc/v1", "demo", "t01", "t01")
>>> r.refused("tablesvc/v1/demo/t01/secure/events", "Not authorized", 0).acl.split(" (")[0]
'user t01 / topic write tablesvc/v1/demo/t01/secure/events'
>>> r.refused("tablesvc/v1/demo/t01/secure/events", "Not authorized", 1000) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

FIRST_BACKOFF_MS = 60_000
MAX_BACKOFF_MS = 3_600_000
NOT_AUTHORIZED = ("not authori", "135", "0x87")
"""How an ACL refusal reads in a reason (MQTT 5 reason code 135, "Not authorized")."""


@dataclass(slots=True)
class Report:
    """One line's worth: a (topic, reason) the broker refused, ``count`` times since the last
    report, with the ACL line that would let it through ("" when the reason is not the ACL)."""

    topic: str
    reason: str
    count: int
    total: int
    acl: str
    first: bool


@dataclass(slots=True)
class _Seen:
    total: int = 0
    since_report: int = 0
    next_ms: int = 0
    backoff_ms: int = FIRST_BACKOFF_MS
    acl: str = ""


@dataclass
class RefusalReport:
    """The refusals of one table's publisher."""

    topic_prefix: str
    venue: str
    table: str
    username: str
    seen: dict[tuple[str, str], _Seen] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return f"{self.topic_prefix.rstrip('/')}/{self.venue}/{self.table}/"

    def refused(self, topic: str, reason: str, now_ms: int) -> Report | None:
        """Count a refusal; a Report when it is due to be reported now, else None."""
        key = (topic, reason)
        s = self.seen.get(key)
        first = s is None
        if s is None:
            s = self.seen[key] = _Seen(next_ms=now_ms, acl=self.acl_fix(topic, reason))
        s.total += 1
        s.since_report += 1
        if now_ms < s.next_ms:
            return None
        report = Report(topic, reason, s.since_report, s.total, s.acl, first)
        s.since_report = 0
        if first:
            s.next_ms = now_ms + FIRST_BACKOFF_MS
        else:
            s.backoff_ms = min(s.backoff_ms * 2, MAX_BACKOFF_MS)
            s.next_ms = now_ms + s.backoff_ms
        return report

    def summary(self) -> list[dict[str, object]]:
        """What goes into the retained ``status``: every refused topic, its reason, how many
        times, and the fix."""
        return [{"topic": t, "reason": r, "count": s.total, "acl": s.acl}
                for (t, r), s in sorted(self.seen.items())]

    def acl_fix(self, topic: str, reason: str) -> str:
        """The lines of the venue's ACL (deploy/venue-acl.sh) that let the table's user
        publish ``topic``."""
        if not any(word in reason.lower() for word in NOT_AUTHORIZED):
            return ""
        sub = topic.removeprefix(self.prefix) if topic.startswith(self.prefix) else None
        if sub is None:
            return f"topic write {topic}"
        levels = sub.split("/")
        if levels[0] == "devices" and len(levels) == 2:
            sub = "devices/+"
        elif levels[0] == "cmd" and len(levels) == 3 and levels[2] == "reply":
            sub = "cmd/+/reply"
        base = f"{self.topic_prefix.rstrip('/')}/{self.venue}"
        if not self.username:
            return (f"(the table connects without a username: set mqtt.username and give the "
                    f"user: topic write {base}/{self.table}/{sub})")
        if self.username == self.table:
            return (f"user {self.table} / topic write {base}/{self.table}/{sub} (the lines "
                    "deploy/venue-acl.sh writes for each table it is given)")
        return (f"user {self.username} / topic write {base}/{self.table}/{sub} (or name the "
                f"table's broker user {self.table!r}, as its [table] id, and give it to "
                "deploy/venue-acl.sh with the venue's tables)")
