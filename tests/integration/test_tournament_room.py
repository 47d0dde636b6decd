"""The tournament controller against live tables: real edge services, simulated devices,
mosquitto, and ``tablesvc tournament`` as its own process, driven through its web API and
looked at in Chromium.

The dealers do not wait for the controller: they deal on while it is killed and started
again, and whatever the tables accepted meanwhile is what the room did."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.browser import screenshot
from tests.conftest import Subscriber
from tests.tournament_venue import PREFIX, Controller, Room

pytestmark = pytest.mark.integration
TABLES = {"t01": 6, "t02": 6}


@pytest.fixture
def venue(tmp_path: Path, broker: Mosquitto) -> Iterator[tuple[Room, Controller, Subscriber]]:
    watcher = Subscriber(broker.port, f"{PREFIX}/#")
    room = Room(tmp_path, broker, TABLES)
    controller = Controller(tmp_path, broker.port, TABLES)
    controller.start()
    try:
        yield room, controller, watcher
    finally:
        controller.stop()
        room.close()
        watcher.close()


def state(watcher: Subscriber, table: str) -> dict[str, Any]:
    states = [m.payload for m in list(watcher.messages) if m.topic == f"{PREFIX}/{table}/state"]
    return states[-1] if states else {}


def seated(watcher: Subscriber, table: str) -> dict[int, tuple[str, int]]:
    return {p["seat"]: (p["name"], p["stack"]) for p in state(watcher, table).get("players", [])}


def hands(watcher: Subscriber, table: str, kind: str) -> list[dict[str, Any]]:
    return [m.payload for m in list(watcher.messages)
            if m.topic == f"{PREFIX}/{table}/events" and isinstance(m.payload, dict)
            and m.payload.get("type") == kind]


def table_alerts(watcher: Subscriber) -> list[tuple[str, str, str]]:
    """Every warning and critical alert the tables raised: (table, name, severity)."""
    return sorted({(m.topic.split("/")[3], m.payload["name"], m.payload["severity"])
                   for m in list(watcher.messages)
                   if m.topic.endswith("/alerts") and ".tournament" not in m.topic})


def text(browser: WebDriver, css: str) -> str:
    return str(browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css))


def test_a_tournament_seats_its_players_changes_levels_and_moves_a_player_across_a_kill(
        venue: tuple[Room, Controller, Subscriber], browser: WebDriver) -> None:
    room, controller, watcher = venue
    for i in range(8):
        controller.act("register", name=f"Player {i + 1}")
    controller.act("draw")
    controller.act("start")
    names = {f"Player {i + 1}" for i in range(8)}
    wait_until(lambda: {n for t in TABLES for n, _ in seated(watcher, t).values()} == names,
               30, "every player seated at the tables")
    assert sorted(len(seated(watcher, t)) for t in TABLES) == [4, 4]
    room.deal()
    wait_until(lambda: all(hands(watcher, t, "hand_ended") for t in TABLES), 60,
               "a hand dealt at every table")
    assert {(h["small_blind"], h["big_blind"]) for t in TABLES
            for h in hands(watcher, t, "hand_started")} == {(25, 50)}

    # the next level: every table deals it from its next hand, with no alert
    controller.act("advance", levels=1)
    marks = {t: len(hands(watcher, t, "hand_started")) for t in TABLES}
    wait_until(lambda: all(len(hands(watcher, t, "hand_started")) >= marks[t] + 2
                           for t in TABLES), 60, "two more hands at every table")
    for t in TABLES:
        later = hands(watcher, t, "hand_started")[marks[t] + 1:]
        assert {(h["small_blind"], h["big_blind"]) for h in later} == {(50, 100)}

    # a move, and the controller killed the moment it was decided
    before = controller.view()
    mover = next(p for p in before["players"] if p["table"] == "t01")
    free = min(set(range(1, 7)) - set(seated(watcher, "t02")))
    controller.act("move", player=mover["player"], table="t02", seat=free)
    controller.kill()
    # the dealers deal on while the controller is down
    down = {t: len(hands(watcher, t, "hand_ended")) for t in TABLES}
    wait_until(lambda: all(len(hands(watcher, t, "hand_ended")) >= down[t] + 2
                           for t in TABLES), 60, "two hands at every table meanwhile")
    controller.start()
    after = controller.view()
    assert after["clock"]["ends_at"] == pytest.approx(before["clock"]["ends_at"], abs=1.0)
    assert after["clock"]["level"]["number"] == 2

    def arrived() -> bool:
        here = seated(watcher, "t02").get(free)
        return here is not None and here[0] == mover["name"] and not any(
            n == mover["name"] for n, _ in seated(watcher, "t01").values())
    wait_until(arrived, 60, "the moved player to sit at his new seat")
    # he carried what his last hand at t01 left him
    last = hands(watcher, "t01", "hand_ended")
    carried = next(s["stack"] for h in reversed(last) for s in h["stacks"]
                   if s["name"] == mover["name"])
    assert seated(watcher, "t02")[free] == (mover["name"], carried)
    wait_until(lambda: controller.view()["moves"] == [], 10, "the move to be done")
    mark = len(hands(watcher, "t02", "hand_started"))
    wait_until(lambda: len(hands(watcher, "t02", "hand_started")) > mark + 1, 60,
               "a hand at t02 with the moved player")
    dealt = hands(watcher, "t02", "hand_started")[-1]
    assert mover["name"] in {s["name"] for s in dealt["seats"]}

    # the counts: every player's stack as his table's last hand left it, the hands dealt
    # while the controller was down included (its broker session kept them)
    def counted() -> bool:
        last: dict[str, int] = {}
        for t in TABLES:
            for h in hands(watcher, t, "hand_ended"):
                last.update({s["name"]: s["stack"] for s in h["stacks"]})
        view = {p["name"]: p["stack"] for p in controller.view()["players"]
                if p["status"] == "seated"}
        return all(view.get(n) == v for n, v in last.items() if n in view)
    wait_until(counted, 20, "the controller's counts to be the tables'")
    # the pages of the restarted controller show the room as the tables have it
    base = f"http://127.0.0.1:{controller.web_port}"
    browser.get(base + "/clock")
    wait_until(lambda: text(browser, "#level") == "LEVEL 2", 20, "the clock screen's level")
    assert text(browser, "#blinds").replace(" ", "") == "50/100"
    assert text(browser, "#players").strip() == "8"
    screenshot(browser, "tournament_room_clock")
    browser.get(base + "/")
    wait_until(lambda: mover["name"] in text(browser, "#tables"), 20,
               "the seating chart with the moved player")
    for t in TABLES:
        for name, _ in seated(watcher, t).values():
            assert name in text(browser, "#tables")
    screenshot(browser, "tournament_room_director")

    assert table_alerts(watcher) == []
    assert [a for a in controller.view()["alerts"] if a["severity"] != "info"] == []
