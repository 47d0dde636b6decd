"""What keeps the floor console quick at venue scale (bench/floor*.py measures it): alerts go
ahead of the bulk of the feed, a day is imported in one go exactly as it is received, and
every search reads its rows from an index in the order it returns them."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tablesvc.floor.config import load_floor_config
from tablesvc.floor.db import Database, open_sqlite
from tablesvc.floor.intake import Intake, Lanes, _Ack, _Received
from tablesvc.floor.store import Queries, Store, _day_of_minute, day_of
from tablesvc.floor.venue import Venue
from tests.unit.test_floor import alert, event


def day_stream() -> list[dict[str, Any]]:
    """Two hands of a table: actions, a critical and an info alert, a hand still in play."""
    return [event(1, "hand_started", seats=[], button=1),
            event(2, "action", seat=3, action="bet", amount=100),
            alert(3, "burn_missing", "BURN-04", "critical", None),
            alert(4, "fold_recorded", "BET-08", "info", 4),
            event(5, "hand_ended", reason="showdown", stacks=[]),
            event(6, "hand_started", hand=2, seats=[], button=2),
            {**alert(7, "card_exposed", "MISDEAL-12", "warning", 2), "hand": 2}]


def rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    return {t: db.query(f"SELECT * FROM {t} ORDER BY 1, 2") for t in ("events", "alerts",
                                                                       "hands")}


def test_a_day_imported_in_one_go_is_kept_exactly_as_if_received_message_by_message(
        tmp_path: Path) -> None:
    one, bulk = open_sqlite(tmp_path / "one.sqlite"), open_sqlite(tmp_path / "bulk.sqlite")
    by_one, in_bulk = Store(one), Store(bulk)
    for e in day_stream():
        by_one.add_event("t01", e)
    by_one.commit()
    in_bulk.add_events("t01", day_stream())
    in_bulk.commit()
    assert rows(bulk) == rows(one)
    in_bulk.add_events("t01", day_stream()[2:])  # delivered again: nothing changes
    in_bulk.commit()
    assert rows(bulk) == rows(one)
    hands = Queries(bulk).hands("t01", str(bulk.query("SELECT day FROM hands")[0][0]))
    assert [(h["hand"], h["reason"], h["alerts"]) for h in hands] == [
        (2, None, 1), (1, "showdown", 1)]  # a hand in play counts its alerts too


class Noting(Database):
    """A connection that notes the statements a query runs."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.conn, db.dialect)
        self.statements: list[tuple[str, tuple[Any, ...]]] = []

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.statements.append((sql, tuple(params)))
        return super().query(sql, params)


def test_every_search_of_the_day_reads_only_its_rows_from_an_index_in_its_order(
        tmp_path: Path) -> None:
    db = open_sqlite(tmp_path / "floor.sqlite")
    Store(db).add_events("t01", day_stream())
    db.commit()
    day = str(db.query("SELECT day FROM events LIMIT 1")[0][0])
    noting = Noting(db)
    q = Queries(noting)
    searches = [{"table": "t01"}, {"seat": 3}, {"table": "t01", "seat": 3},
                {"rule": "BURN-04"}, {"severity": "critical"}, {}]
    for kw in searches:
        q.search(day, **kw)
    q.hands("t01", day)
    q.hand("t01", 1)
    q.recent_acked(day)
    raw = sqlite3.connect(tmp_path / "floor.sqlite")
    for sql, params in noting.statements:
        plan = " / ".join(r[3] for r in raw.execute("EXPLAIN QUERY PLAN " + sql, params))
        # no whole table read, no sort of what the index did not give in order
        assert not re.search(r"\bSCAN\b|TEMP B-TREE", plan), (sql, plan)
        if "COUNT(*) FROM alerts" in sql:  # a hand's alerts: its range of seqs, not the rest
            assert re.search(r"seq>\? AND seq<\?", plan), plan


OLD_INDEXES = (
    "CREATE INDEX alerts_day ON alerts (day, ts)",
    "CREATE INDEX alerts_day_tbl ON alerts (day, tbl)",
    "CREATE INDEX alerts_day_rule ON alerts (day, rule)",
    "CREATE INDEX alerts_day_severity ON alerts (day, severity)",
    "CREATE INDEX alerts_day_seat ON alerts (day, seat)",
    "CREATE INDEX alerts_open ON alerts (ack_state, ts)",
)


def test_the_file_of_an_earlier_console_keeps_its_day_and_gets_the_new_indexes(
        tmp_path: Path) -> None:
    path = tmp_path / "floor.sqlite"
    db = open_sqlite(path)
    Store(db).add_events("t01", day_stream())
    for name in ("alerts_day_ts", "alerts_day_tbl_ts", "alerts_day_rule_ts",
                 "alerts_day_severity_ts", "alerts_day_seat_ts", "alerts_open_ts"):
        db.execute(f"DROP INDEX {name}")
    for statement in OLD_INDEXES:
        db.execute(statement)
    db.commit()
    db.close()
    db = open_sqlite(path)
    Store(db)  # the console starts on the old file
    names = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"alerts_day_rule_ts", "alerts_open_ts", "events_day_tbl_ts"} <= names
    assert not names & {"alerts_day", "alerts_day_rule", "alerts_open"}
    day = str(db.query("SELECT day FROM events LIMIT 1")[0][0])
    assert [a["seq"] for a in Queries(db).search(day)["alerts"]] == [7, 4, 3]


@pytest.fixture
def new_york() -> Iterator[None]:
    """Local time with summer time (the day of a UTC time depends on the offset)."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    _day_of_minute.cache_clear()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()
        _day_of_minute.cache_clear()


def test_the_local_day_of_an_event_is_right_every_minute_across_midnight_and_summer_time(
        new_york: None) -> None:
    start = datetime(2026, 3, 7, 12, 0, tzinfo=UTC)  # summer time starts on 2026-03-08
    for minutes in range(0, 3 * 24 * 60, 7):
        t = start + timedelta(minutes=minutes, seconds=minutes % 60, milliseconds=minutes % 999)
        ts = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        assert day_of(ts) == t.astimezone().date().isoformat(), ts
    assert day_of("2026-03-08T04:59:59Z") == "2026-03-07"
    assert day_of("2026-03-08T05:00:00.000+00:00") == "2026-03-08"  # not the usual form


def test_alerts_and_acknowledgements_are_taken_ahead_of_the_bulk_waiting_before_them() -> None:
    lanes = Lanes()
    bulk = [_Received(f"p/t01/events/{i}", b"{}", i, 1) for i in range(5)]
    for m in bulk:
        lanes.put(m)
    urgent = _Received("p/t01/alerts", b"{}", 9, 1)
    lanes.put(urgent, urgent=True)
    assert lanes.urgent_waiting()
    assert lanes.take(3) == (True, [urgent])
    assert lanes.take(3) == (False, bulk[:3])
    lanes.put_back(bulk[1:3])  # cut short after the first: the rest first again
    lanes.close()
    assert lanes.take(10) == (False, [*bulk[1:3], *bulk[3:]])
    assert lanes.take(10) is None


def received(table: str, sub: str, body: dict[str, Any], mid: int) -> _Received:
    return _Received(f"tablesvc/v1/hall/{table}/{sub}", json.dumps(body).encode(), mid, 1)


@pytest.fixture
def intake(tmp_path: Path) -> Iterator[tuple[Intake, list[tuple[str, Any]]]]:
    cfg_path = tmp_path / "floor.toml"
    cfg_path.write_text('[floor]\nvenue = "hall"\n[mqtt]\nusername = ""\n')
    told: list[tuple[str, Any]] = []
    i = Intake(load_floor_config(cfg_path), cfg_path, open_sqlite(tmp_path / "floor.sqlite"),
               lambda kind, payload: told.append((kind, payload)))
    yield i, told
    i.store.db.close()


def test_an_alert_arriving_behind_a_backlog_is_shown_after_one_message_not_the_batch(
        intake: tuple[Intake, list[tuple[str, Any]]]) -> None:
    i, told = intake
    stream = day_stream()
    backlog = [received("t01", "events", e, n) for n, e in enumerate(stream[:2], 1)]
    crit = received("t01", "alerts", stream[2], 3)
    i.inbox.put(crit, urgent=True)  # came while the writer took the batch
    i._batch(list(backlog), urgent=False)
    assert i.stats["messages"] == 1  # the batch was cut after its first message
    taken = i.inbox.take(100)
    assert taken == (True, [crit])
    i._batch(taken[1], urgent=True)
    assert [(k, p["alert_id"]) for k, p in told if k == "alert"] == [("alert", "t01-a3")]
    rest = i.inbox.take(100)
    assert rest == (False, backlog[1:])
    i._batch(rest[1], urgent=False)
    # the events topic brings the alert again, and the hand goes on: one alert shown, and
    # no gap in the feed although the alert came before the events it follows
    i._batch([received("t01", "events", e, n) for n, e in enumerate(stream[2:], 3)],
             urgent=False)
    assert [k for k, _ in told].count("alert") == 2  # the critical, then the warning
    assert i.stats["duplicates"] == 1
    assert i.venue.tables["t01"].gaps == 0
    assert [e["seq"] for e in i.queries.search(
        str(i.store.db.query("SELECT day FROM events LIMIT 1")[0][0]),
        table="t01")["events"]] == [7, 6, 5, 4, 3, 2, 1]


def test_a_message_kept_as_it_came_never_carries_a_hidden_card(
        intake: tuple[Intake, list[tuple[str, Any]]]) -> None:
    i, _ = intake
    face_down = event(1, "card_dealt", seat=2, n=1, face_up=False, card="As")
    action = event(2, "action", seat=2, action="check")
    i._batch([received("t01", "events", face_down, 1), received("t01", "events", action, 2)],
             urgent=False)
    bodies = [b for (b,) in i.store.db.query("SELECT body FROM events ORDER BY seq")]
    assert "As" not in bodies[0] and json.loads(bodies[0])["seat"] == 2
    assert json.loads(bodies[1]) == action


def test_a_gap_in_the_events_topic_is_still_noticed_when_alerts_come_first() -> None:
    v = Venue()
    for seq in (1, 2):
        v.follow("t01", {"seq": seq, "prev_seq": seq - 1})
    v.apply_event("t01", {"seq": 4, "type": "alert", "ts": "2026-11-29T21:00:04Z"})
    v.follow("t01", {"seq": 4, "prev_seq": 3})  # seq 3 never came
    assert v.tables["t01"].gaps == 1
    assert v.tables["t01"].last_ts == "2026-11-29T21:00:04Z"


def test_an_acknowledgement_waits_for_no_bulk_batch() -> None:
    lanes = Lanes()
    lanes.put(_Received("p/t01/state", b"{}", 1, 1))
    ack = _Ack("t01", "sam", Future(), seq=3)
    lanes.put(ack, urgent=True)
    assert lanes.take(100) == (True, [ack])


def state(hand: int, pot: int, alerts: list[str] | None = None) -> dict[str, Any]:
    """A table's retained state after one of its batches (the parts the console shows)."""
    return {"hand": hand, "street": "flop", "pot": pot, "button": 1,
            "players": [{"seat": 1, "name": "A", "stack": 1000 - pot}],
            "open_alerts": [{"id": a, "severity": "critical"} for a in alerts or []]}


def test_a_backlog_batch_reads_only_the_last_state_of_each_table_and_ends_where_all_would(
        tmp_path: Path) -> None:
    """A console behind the feed takes hundreds of messages at once, about half of them a
    table's retained state, each a whole picture: only each table's last is read. The page,
    the store and the events end exactly where reading every message one by one ends."""
    stream = [received("t01", "state", state(1, 100), 1),
              received("t01", "events", event(1, "hand_started", seats=[], button=1), 2),
              received("t02", "state", state(7, 50, ["t02-a9"]), 3),
              received("t01", "state", state(1, 300), 4),
              received("t01", "events", event(2, "action", seat=1, action="bet", amount=200), 5),
              received("t01", "state", state(1, 500, ["t01-a2"]), 6),
              received("t02", "status", {"state": "online", "version": "1", "boot": 2}, 7)]

    def console(name: str) -> Intake:
        cfg_path = tmp_path / f"{name}.toml"
        cfg_path.write_text('[floor]\nvenue = "hall"\n[mqtt]\nusername = ""\n')
        return Intake(load_floor_config(cfg_path), cfg_path,
                      open_sqlite(tmp_path / f"{name}.sqlite"), lambda kind, payload: None)

    behind, live = console("behind"), console("live")
    try:
        behind._batch(list(stream), urgent=False)
        for msg in stream:
            live._batch([msg], urgent=False)
        assert behind.stats["superseded"] == 2 and live.stats["superseded"] == 0
        assert behind.stats["messages"] == live.stats["messages"] == len(stream)
        assert behind.venue.snapshot() == live.venue.snapshot()
        assert behind.venue.open_alert_ids("t01") == {"t01-a2"}
        assert behind.queries.retained() == live.queries.retained()
        assert rows(behind.store.db) == rows(live.store.db)
    finally:
        behind.store.db.close()
        live.store.db.close()
