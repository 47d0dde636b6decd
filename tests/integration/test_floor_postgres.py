"""The floor console's store on PostgreSQL: a private cluster of the distribution's PostgreSQL
(``make test`` installs it when missing), started for this test in a temporary folder as a
non-root user, holds the same day and answers the same searches as the SQLite file."""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablesvc.brokers.mosquitto import free_port
from tablesvc.floor.db import open_postgresql
from tablesvc.floor.store import Queries, Store
from tests.unit.test_floor import alert, event

pytestmark = pytest.mark.integration


def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or \
        [p for p in [shutil.which(name)] if p]
    if not found:
        raise RuntimeError("PostgreSQL is not installed; `make test` installs it "
                           "(apt-get install postgresql)")
    return found[-1]


@pytest.fixture
def postgres() -> Iterator[str]:
    """A throwaway cluster on a loopback port; its URL."""
    folder = Path(tempfile.mkdtemp(prefix="floor-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as its own user
        shutil.chown(folder, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    try:
        subprocess.run([*as_user, pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U",
                        "floor", "--no-sync"], check=True, capture_output=True)
        subprocess.run([*as_user, pg_bin("pg_ctl"), "-D", str(data), "-w", "-l",
                        str(folder / "log"), "-o",
                        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off",
                        "start"], check=True, capture_output=True)
        yield f"postgresql://floor@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate",
                        "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_store_on_postgresql_keeps_each_event_once_and_answers_the_same_searches(
        postgres: str) -> None:
    db = open_postgresql(postgres)
    store, q = Store(db), Queries(db)
    Store(db)  # a second start finds the schema in place
    stream = [event(1, "hand_started", seats=[], button=1),
              event(2, "action", seat=3, action="bet", amount=100),
              alert(3, "burn_missing", "BURN-04", "critical", None),
              alert(4, "card_exposed", "MISDEAL-12", "warning", 3),
              event(5, "hand_ended", reason="showdown", stacks=[])]
    assert [store.add_event("t01", e) for e in stream] == [True] * 5
    assert store.add_event("t01", stream[3]) is False
    store.keep_retained("t01", "status", {"state": "online"})
    store.keep_retained("t01", "status", {"state": "offline"})
    store.commit()
    day = str(db.query("SELECT day FROM alerts LIMIT 1")[0][0])  # the local day of the ts
    assert [a["rule"] for a in q.search(day, severity="critical")["alerts"]] == ["BURN-04"]
    assert [e["seq"] for e in q.search(day, table="t01", seat=3)["events"]] == [4, 2]
    assert [(h["hand"], h["reason"], h["alerts"]) for h in q.hands("t01", day)] == [
        (1, "showdown", 2)]
    assert q.retained() == {"t01": {"status": {"state": "offline"}}}
    # the queue's groups: the same aggregates and order as on SQLite
    assert [(g["key"], g["open"]["count"], g["open"]["severity"], g["open"]["seats"])
            for g in q.groups(day)] == [("t01/burn_missing", 1, "critical", []),
                                        ("t01/card_exposed", 1, "warning", [3])]
    assert [a["seq"] for a in q.open_in_group("t01", "burn_missing", 3)] == [3]
    assert store.ack_sent("t01", 3, "sam", "2026-11-29T21:01:00Z", "floor-1", "sent")
    assert store.ack_reply("t01", "floor-1", False, "the table refused: x") is not None
    store.commit()
    row = q.alert("t01", 3)
    assert row is not None and (row["ack_state"], row["acked_by"]) == ("refused", "sam")
    burn = q.groups(day, ("t01", "burn_missing"))[0]
    assert burn["open"] is None and burn["done"]["states"] == {"refused": 1}
    assert burn["done"]["refusal"] == "the table refused: x"
    db.close()


def test_the_tournament_journal_on_postgresql_rebuilds_the_tournament_after_a_restart(
        postgres: str) -> None:
    """The controller's storage on PostgreSQL (``[storage] url``): what the director did and
    the tables said is there again for a restarted controller, its alerts too."""
    from tablesvc.tournament.engine import Engine
    from tablesvc.tournament.store import Journal
    from tests.unit.tournament.test_tournament_controller import STRUCTURE, T0, tournament

    def engine() -> Engine:
        e = Engine(tournament(), Journal(open_postgresql(postgres)), clock=lambda: T0 + 5)
        e.load()
        return e

    first = engine()
    for n in range(6):
        assert asyncio.run(first.act({"action": "register", "name": f"P{n}"}, "td"))["ok"]
    assert asyncio.run(first.act({"action": "start"}, "td"))["ok"]
    first.journal.keep_alert({"id": "c-1", "name": "player_seated_twice", "rule": "TABLE-07",
                              "severity": "critical", "message": "m", "remedy": "r",
                              "ts": T0})
    again = engine()
    assert [p["name"] for p in again.view()["players"]] == [f"P{n}" for n in range(6)]
    assert again.view()["clock"]["level"]["number"] == 1
    assert again.view()["clock"]["remaining_s"] == pytest.approx(
        STRUCTURE.levels()[0].minutes * 60)  # started at T0 + 5, read at T0 + 5
    assert [a["name"] for a in again.view()["alerts"]] == ["player_seated_twice"]
