"""Refused publishes are reported once per topic and reason, then with back-off, with the fix.

The report is what a venue technician reads with the broker's ACL file open: the topic, the
reason, how many were refused, and the ACL line that would let the message through.
"""

from __future__ import annotations

import itertools

from tablesvc.pipeline.refusals import FIRST_BACKOFF_MS, MAX_BACKOFF_MS, RefusalReport

PREFIX = "tablesvc/v1/grand/t01"
DENIED = "Not authorized"


def test_a_refusal_is_reported_at_once_then_after_1_2_4_minutes_with_the_count_since() -> None:
    r = RefusalReport("tablesvc/v1", "grand", "t01", "t01")
    topic = f"{PREFIX}/events"
    reports = []
    for second in range(0, 8 * 60 + 1):  # one refusal a second, for eight minutes
        if (rep := r.refused(topic, DENIED, second * 1000)) is not None:
            reports.append((second, rep.count, rep.first))
    assert reports == [(0, 1, True), (60, 60, False), (180, 120, False), (420, 240, False)]
    assert r.summary() == [{"topic": topic, "reason": DENIED, "count": 481,
                            "acl": "user t01 / topic write tablesvc/v1/grand/t01/events (the lines "
                                   "deploy/venue-acl.sh writes for each table it is given)"}]


def test_the_back_off_stops_growing_at_an_hour() -> None:
    r = RefusalReport("tablesvc/v1", "grand", "t01", "t01")
    times = [ms for ms in range(0, 20 * MAX_BACKOFF_MS, 10_000)
             if r.refused(f"{PREFIX}/state", DENIED, ms) is not None]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps[0] == FIRST_BACKOFF_MS
    assert max(gaps) == MAX_BACKOFF_MS and gaps[-1] == MAX_BACKOFF_MS


def test_each_topic_and_each_reason_is_reported_on_its_own() -> None:
    r = RefusalReport("tablesvc/v1", "grand", "t01", "t01")
    assert r.refused(f"{PREFIX}/events", DENIED, 0) is not None
    assert r.refused(f"{PREFIX}/secure/events", DENIED, 1) is not None
    assert r.refused(f"{PREFIX}/events", "Quota exceeded", 2) is not None
    assert r.refused(f"{PREFIX}/events", DENIED, 3) is None


def test_the_acl_line_named_fits_the_topic_and_the_tables_user() -> None:
    own = RefusalReport("tablesvc/v1", "grand", "t01", "t01")
    assert own.acl_fix(f"{PREFIX}/devices/shoe", DENIED).startswith(
        "user t01 / topic write tablesvc/v1/grand/t01/devices/+ (")
    assert own.acl_fix(f"{PREFIX}/cmd/seat/reply", DENIED).startswith(
        "user t01 / topic write tablesvc/v1/grand/t01/cmd/+/reply (")
    assert own.acl_fix(f"{PREFIX}/events", "Quota exceeded") == ""  # not the ACL's doing
    other = RefusalReport("tablesvc/v1", "grand", "t01", "table-t01")
    assert other.acl_fix(f"{PREFIX}/events", DENIED).startswith(
        "user table-t01 / topic write tablesvc/v1/grand/t01/events (or name the table's "
        "broker user 't01'")
    anonymous = RefusalReport("tablesvc/v1", "grand", "t01", "")
    assert "set mqtt.username" in anonymous.acl_fix(f"{PREFIX}/events", DENIED)
