"""The alert queue in groups (``tablesvc.floor.queue``): one row per table and alert name, so
that a table in trouble cannot bury the others; critical groups first, newest first;
acknowledging a group acknowledges each of its alerts up to the newest one shown, each with
its own command to the table and its own answer; and every alert is still kept."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tablesvc.floor.config import load_floor_config
from tablesvc.floor.db import open_sqlite
from tablesvc.floor.intake import AckError, Intake, _Ack, _Received
from tablesvc.floor.store import Queries, Store
from tests.unit.test_floor import alert
from tests.unit.test_floor_scale import Noting

MINUTE = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M")
"""This minute: the acknowledged part of a group is the day's (the console's today)."""


def at(table: str, seq: int, name: str, rule: str, severity: str, seat: int | None,
       message: str = "m") -> dict[str, Any]:
    """An alert of ``table`` at second ``seq`` of this minute."""
    return {**alert(seq, name, rule, severity, seat), "table": table, "id": f"{table}-a{seq}",
            "ts": f"{MINUTE}:{seq:02d}.000Z", "message": message,
            "remedy": f"remedy of {name}"}


NOISY = [at("t01", s, "card_unaccounted", "BURN-08", "critical", s % 4 + 1, f"card #{s}")
         for s in range(10, 22)] + [
    at("t01", 22, "raise_below_minimum", "BET-11", "warning", 1),
    at("t01", 24, "raise_below_minimum", "BET-11", "warning", 2),
]
QUIET = [at("t02", 5, "burn_missing", "BURN-04", "critical", None),
         at("t02", 30, "card_exposed", "MISDEAL-12", "warning", 3)]


def day_of(db: Any) -> str:
    return str(db.query("SELECT day FROM alerts LIMIT 1")[0][0])


def test_repeats_at_a_table_are_one_row_per_alert_name_and_critical_rows_come_first(
        tmp_path: Path) -> None:
    db = open_sqlite(tmp_path / "floor.sqlite")
    store, q = Store(db), Queries(db)
    for e in NOISY + QUIET:
        store.add_event(str(e["table"]), e)
    store.commit()
    day = day_of(db)
    groups = q.groups(day)
    # fourteen open alerts, four rows; the quiet table's critical is second, not fifteenth
    assert [(g["key"], g["open"]["count"]) for g in groups] == [
        ("t01/card_unaccounted", 12), ("t02/burn_missing", 1),
        ("t02/card_exposed", 1), ("t01/raise_below_minimum", 2)]
    noisy = groups[0]
    assert noisy["rule"] == "BURN-08" and noisy["done"] is None
    o = noisy["open"]
    assert (o["severity"], o["critical"], o["warning"]) == ("critical", 12, 0)
    assert o["seats"] == [1, 2, 3, 4]
    assert o["upto"] == 21 and o["newest"]["message"] == "card #21"
    assert o["newest"]["remedy"] == "remedy of card_unaccounted"
    assert o["first_ts"].endswith(":10.000Z") and o["last_ts"].endswith(":21.000Z")
    assert groups[1]["open"]["seats"] == []  # an alert of the whole table
    # a group with both severities counts as the higher one
    store.add_event("t01", at("t01", 40, "raise_below_minimum", "BET-11", "critical", 3))
    store.commit()
    mixed = q.groups(day, ("t01", "raise_below_minimum"))[0]["open"]
    assert (mixed["severity"], mixed["critical"], mixed["warning"]) == ("critical", 1, 2)
    assert q.groups(day)[0]["key"] == "t01/raise_below_minimum"  # the newest critical
    # grouping is how the queue is shown: the store keeps every alert
    assert len(q.search(day, table="t01")["alerts"]) == 15
    assert q.groups(day, ("t03", "burn_missing")) == [
        {"key": "t03/burn_missing", "tbl": "t03", "name": "burn_missing", "rule": "",
         "open": None, "done": None}]


@pytest.fixture
def intake(tmp_path: Path) -> Iterator[tuple[Intake, list[tuple[str, Any]]]]:
    cfg_path = tmp_path / "floor.toml"
    cfg_path.write_text('[floor]\nvenue = "hall"\n[mqtt]\nusername = ""\n')
    told: list[tuple[str, Any]] = []
    i = Intake(load_floor_config(cfg_path), cfg_path, open_sqlite(tmp_path / "floor.sqlite"),
               lambda kind, payload: told.append((kind, payload)))
    yield i, told
    i.store.db.close()


def received(table: str, sub: str, body: dict[str, Any], mid: int) -> _Received:
    return _Received(f"tablesvc/v1/hall/{table}/{sub}", json.dumps(body).encode(), mid, 1)


def acknowledged(i: Intake, req: _Ack) -> dict[str, Any]:
    i._batch([req])
    return req.done.result(timeout=0)


def test_acknowledging_a_group_acknowledges_each_alert_up_to_the_newest_shown_with_an_answer_each(
        intake: tuple[Intake, list[tuple[str, Any]]]) -> None:
    i, told = intake
    i._batch([received("t01", "alerts", e, n) for n, e in enumerate(NOISY, 1)])
    assert [g["open"]["count"] for k, g in told if k == "group"] == [12, 2]
    shown = i.queries.groups(day_of(i.store.db), ("t01", "card_unaccounted"))[0]["open"]
    # one more comes after the page drew the group: it is not acknowledged unseen
    later = at("t01", 50, "card_unaccounted", "BURN-08", "critical", 2, "card #50")
    i._batch([received("t01", "alerts", later, 99)])
    told.clear()
    answer = acknowledged(i, _Ack("t01", "Sam", Future(), name="card_unaccounted",
                                  upto=shown["upto"]))
    assert answer["acknowledged"] == 12
    group = answer["group"]
    assert (group["open"]["count"], group["open"]["upto"]) == (1, 50)
    assert group["done"]["count"] == 12 and group["done"]["states"] == {"sent": 12}
    assert group["done"]["by"] == ["Sam"]
    assert [g["key"] for k, g in told if k == "group"] == ["t01/card_unaccounted"]
    # each critical alert: its own command (request id) to the table, and its own answer
    rows = [r for r in i.queries.search(day_of(i.store.db), table="t01")["alerts"]
            if r["name"] == "card_unaccounted" and r["ack_state"]]
    requests = {r["ack_request"] for r in rows}
    assert len(rows) == 12 and len(requests) == 12 and all(requests)
    replies = [{"request_id": rid, "ok": n != 0, "error": None if n else "already closed"}
               for n, rid in enumerate(sorted(requests))]
    i._batch([received("t01", "cmd/ack_alert/reply", r, 200 + n)
              for n, r in enumerate(replies)], urgent=True)
    done = i.queries.groups(day_of(i.store.db), ("t01", "card_unaccounted"))[0]["done"]
    assert done["states"] == {"ok": 11, "refused": 1}
    assert done["refusal"] == "the table refused: already closed"
    # what the pages were told last is numbered after the answer to the request, which a
    # page may get later: it keeps the newer reading
    last = [g for k, g in told if k == "group"][-1]
    assert last["done"]["states"] == done["states"] and last["v"] > group["v"]
    # a warning the table does not hold open is acknowledged on the floor only
    warnings = acknowledged(i, _Ack("t01", "Kim", Future(), name="raise_below_minimum",
                                    upto=24))
    assert warnings["acknowledged"] == 2 and warnings["group"]["open"] is None
    assert warnings["group"]["done"]["states"] == {"floor": 2}
    # a group acknowledged already: said so, nothing recorded twice
    again = _Ack("t01", "Lee", Future(), name="raise_below_minimum", upto=24)
    i._batch([again])
    with pytest.raises(AckError, match="acknowledged already"):
        again.done.result(timeout=0)


def test_the_queue_reads_its_groups_from_an_index_in_the_order_it_groups_them(
        tmp_path: Path) -> None:
    db = open_sqlite(tmp_path / "floor.sqlite")
    store = Store(db)
    for e in NOISY + QUIET:
        store.add_event(str(e["table"]), e)
    store.ack_sent("t02", 5, "sam", "2026-11-29T21:01:00Z", "floor-1", "sent")
    store.commit()
    noting = Noting(db)
    q = Queries(noting)
    day = day_of(db)
    q.groups(day)
    q.groups(day, ("t01", "card_unaccounted"))
    q.open_in_group("t01", "card_unaccounted", 21)
    raw = sqlite3.connect(tmp_path / "floor.sqlite")
    grouping = [s for s in noting.statements if "GROUP BY" in s[0] or "name = ?" in s[0]]
    assert len(grouping) == 5
    for sql, params in grouping:
        plan = " / ".join(r[3] for r in raw.execute("EXPLAIN QUERY PLAN " + sql, params))
        # no whole table read, no sort of what the index did not give in order
        assert not re.search(r"\bSCAN\b|TEMP B-TREE", plan), (sql, plan)
