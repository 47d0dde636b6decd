"""The floor console in a real browser, against real services, mosquitto and virtual tables
whose dealers make the errors of test scenarios; and a restart of the console that loses
nothing.

Three tables of venue "hall": t01's dealer deals a flop without a burn three times over
(critical burn_missing, which the table holds open until the floor acknowledges it, and each
time the cards of the hand before never collected: a noisy table), t02 exposes two hole cards
(a warning, then misdeal_required, when the service sees the deal as the scenario writes it),
t03 deals clean hands and is then unplugged. The console must show exactly the warning and
critical alerts the tables published (a subscriber beside it collects them), one row per
table and alert name, so that the noisy table does not bury t02's.
"""

from __future__ import annotations

import itertools
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from bench.venue import FloorProcess, LiveTable
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.floor.web import TITLES
from tests.browser import screenshot

pytestmark = pytest.mark.integration
VENUE = "hall"
SCENARIO_PACE = 0.02
TIMES = "\N{MULTIPLICATION SIGN}"
"""Before a row's count on the page (a row of one alert shows none)."""


def api(url: str, path: str) -> Any:
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=10) as r:
        return json.load(r)


def ended(url: str, table: str) -> int:
    """How many of the table's hands the console holds with their end (hand_ended's reason)."""
    return sum(h["reason"] is not None for h in api(url, f"/api/hands?table={table}")["hands"])


def online(url: str, tables: set[str]) -> bool:
    """The tables are online and so are their four devices (the dealer may start)."""
    got = {t["id"] for t in api(url, "/api/snapshot")["tables"] if t["online"] and
           len(t["devices"]) == 4 and all(d["state"] == "online" for d in t["devices"].values())}
    return tables <= got


class SecureTap:
    """What broadcast would see: every hole card the tables dealt (none may reach a floor
    page)."""

    def __init__(self, port: int) -> None:
        self.cards: set[str] = set()
        self.public: set[str] = set()
        self.alerts: set[tuple[str, str, str, str]] = set()
        self.lock = threading.Lock()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        c.on_connect = lambda cl, *a: cl.subscribe([(f"tablesvc/v1/{VENUE}/+/secure/events", 1),
                                                   (f"tablesvc/v1/{VENUE}/+/events", 1)])
        c.on_message = self._msg
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.c = c

    def _msg(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        e = json.loads(msg.payload)
        with self.lock:
            if msg.topic.endswith("/secure/events"):
                if e.get("type") == "hole_cards":
                    self.cards.update(e["cards"])
                return
            if e.get("type") == "alert" and e["severity"] != "info":
                self.alerts.add((e["table"], e["id"], e["name"], e["severity"]))
            for key in ("card", "cards", "board"):
                v = e.get(key)
                if isinstance(v, str):
                    self.public.add(v)
                elif isinstance(v, list):
                    self.public.update(x for x in v if isinstance(x, str))

    def hidden(self) -> set[str]:
        with self.lock:
            return self.cards - self.public

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.fixture
def venue(tmp_path: Path, broker: Mosquitto) -> Iterator[dict[str, LiveTable]]:
    tables = {
        "t01": LiveTable(tmp_path / "t01", VENUE, "t01", broker.port,
                         scenario="t10_flop_without_burn"),
        "t02": LiveTable(tmp_path / "t02", VENUE, "t02", broker.port,
                         scenario="t02_misdeal_two_exposed"),
        "t03": LiveTable(tmp_path / "t03", VENUE, "t03", broker.port, seed=5, pace=0.1),
    }
    try:
        for t in tables.values():
            t.start()
        yield tables
    finally:
        for t in tables.values():
            t.stop()


@pytest.fixture
def console(tmp_path: Path, broker: Mosquitto) -> Iterator[FloorProcess]:
    f = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    f.start()
    yield f
    rc = f.stop()
    assert rc == 0, f"exit {rc}: {f.log.read_text()}"


def open_rows(browser: WebDriver) -> list[tuple[str, str]]:
    """The rows of the alert queue on screen, top to bottom: (table/alert name, its count)."""
    got: list[list[str]] = browser.execute_script(
        "return [...document.querySelectorAll('#open .alert')].map(e => [e.dataset.group, "
        "(e.querySelector('.count') || {textContent: ''}).textContent])")
    return [(g, n.removeprefix(TIMES) or "1") for g, n in got]


def kept_alerts(url: str, table: str) -> list[dict[str, Any]]:
    """Every alert of the table the console keeps today (warning and critical)."""
    return [a for a in api(url, f"/api/search?table={table}")["alerts"]
            if a["severity"] != "info"]


def text(browser: WebDriver, css: str) -> str:
    """An element's text, read in one go (the page redraws itself as tables change)."""
    got = browser.execute_script("const e = document.querySelector(arguments[0]);"
                                 "return e ? e.innerText : ''", css)
    return str(got)


def classes(browser: WebDriver, css: str) -> str:
    return str(browser.execute_script("const e = document.querySelector(arguments[0]);"
                                      "return e ? e.className : ''", css))


def click(browser: WebDriver, css: str) -> None:
    """A real click; again when a redraw replaced the element in between."""
    for _ in range(20):
        try:
            browser.find_element(By.CSS_SELECTOR, css).click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"could not click {css}")


def test_the_floor_sees_each_kind_of_alert_of_a_table_in_one_row_with_rule_and_remedy_acknowledges_a_group_and_an_unplugged_table_goes_offline(  # noqa: E501
        browser: WebDriver, broker: Mosquitto, venue: dict[str, LiveTable],
        console: FloorProcess) -> None:
    tap = SecureTap(broker.port)
    try:
        wait_until(lambda: online(console.url, set(venue)), 30, "three tables online")
        browser.get(console.url)
        wait = WebDriverWait(browser, 30)
        wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#grid .tile")) == 3)
        # quick, as the scenarios are written: a slow dealer lets the bet timers run; t01's
        # dealer makes the same mistakes three hands running
        def noisy() -> None:
            for _ in range(3):
                venue["t01"].play_scenario(SCENARIO_PACE).join(120)

        players = [threading.Thread(target=noisy), venue["t02"].play_scenario(SCENARIO_PACE),
                   venue["t03"].deal(2)]
        players[0].start()
        for p in players:
            p.join(120)

        # the queue: one row per table and alert name with how many, critical rows first and
        # then the newest, each with rule and remedy (exactly what the tables published: their
        # dealers' errors as the services saw them)
        wait_until(lambda: sum(n == "burn_missing" for (_, _, n, _) in tap.alerts) == 3, 30,
                   "the tables' alerts")
        published: dict[str, int] = {}
        for table, _, name, _ in tap.alerts:
            published[f"{table}/{name}"] = published.get(f"{table}/{name}", 0) + 1
        wait.until(lambda b: dict(open_rows(b)) == {k: str(n) for k, n in published.items()})
        kept = kept_alerts(console.url, "t01") + kept_alerts(console.url, "t02")
        assert {(a["tbl"], a["alert_id"], a["name"], a["severity"]) for a in kept} == tap.alerts
        assert {a["tbl"] for a in kept} == {"t01", "t02"}
        assert len(kept) > 2 * len(published)  # the noisy table repeated itself
        groups = {g["key"]: g for g in api(console.url, "/api/snapshot")["groups"]}
        severity = {k: g["open"]["severity"] for k, g in groups.items()}
        newest = {k: g["open"]["last_ts"] for k, g in groups.items()}
        shown = [k for k, _ in open_rows(browser)]
        ranks = [(severity[k] != "critical", newest[k]) for k in shown]
        for (later1, ts1), (later2, ts2) in itertools.pairwise(ranks):
            assert later1 < later2 or (later1 == later2 and ts1 >= ts2), shown
        assert severity["t02/misdeal_required"] == "critical"
        assert shown.index("t02/misdeal_required") < sum(
            s == "critical" for s in severity.values())  # among the rows that come first
        burn = groups["t01/burn_missing"]["open"]
        card = '#open [data-group="t01/burn_missing"]'
        shown_text = text(browser, card)
        assert burn["newest"]["rule"] in shown_text
        assert TITLES[burn["newest"]["rule"]] in shown_text
        assert burn["newest"]["remedy"] and burn["newest"]["remedy"] in shown_text
        assert burn["newest"]["message"] in shown_text and f"{TIMES}3" in shown_text
        # the tables that need a person stand out; the clean one does not
        tile = {t: classes(browser, f'[data-table="{t}"]') for t in venue}
        for t, cls in tile.items():
            severities = {a["severity"] for a in kept if a["tbl"] == t}
            want = ("crit" if "critical" in severities else
                    "warn" if "warning" in severities else "")
            assert not want or want in cls.split(), (t, cls)
            assert "crit" not in cls.split() or want == "crit", (t, cls)
        assert "crit" in tile["t01"].split() and tile["t03"] == "tile"
        screenshot(browser, "floor_console")

        # acknowledging the group: the name asked once, a command to the table for each of
        # its alerts, and each answer
        click(browser, f"{card} button.ack")
        prompt = wait.until(lambda b: b.switch_to.alert)
        prompt.send_keys("Sam")
        prompt.accept()
        done = '#done [data-group="t01/burn_missing"]'
        wait.until(lambda b: "3 acknowledged by the table" in text(b, done))
        assert "acknowledged by Sam" in text(browser, done)
        assert "t01/burn_missing" not in dict(open_rows(browser))
        rows = [a for a in kept_alerts(console.url, "t01") if a["name"] == "burn_missing"]
        assert [(a["ack_state"], a["acked_by"]) for a in rows] == [("ok", "Sam")] * 3
        assert len({a["ack_request"] for a in rows}) == 3

        # the table's own page still lists every alert, one by one
        click(browser, '[data-table="t01"]')
        wait.until(lambda b: "Alerts today" in text(b, "#panel-body"))
        listed = browser.execute_script(
            "return [...document.querySelectorAll('.table-alerts [data-alert]')]"
            ".map(e => e.dataset.alert)")
        assert sorted(listed) == sorted(f"t01/{a['seq']}" for a in kept_alerts(console.url,
                                                                               "t01"))
        browser.find_element(By.ID, "panel-close").click()

        # unplugged: the table's will marks it offline on the grid
        venue["t03"].unplug()
        wait.until(lambda b: "offline" in classes(b, '[data-table="t03"]'))
        assert "OFFLINE" in text(browser, '[data-table="t03"]')

        # a table's hands of the day: the public history and the hand's alerts, no hole card
        click(browser, '[data-table="t02"]')
        wait.until(lambda b: "MISDEAL-07" in text(b, "#panel-body"))
        history = text(browser, "#panel-body")
        assert "Hand #1" in history and "face down" in history
        screenshot(browser, "floor_console_table")
        browser.find_element(By.ID, "panel-close").click()
        click(browser, '[data-table="t03"]')
        wait.until(lambda b: "hand ends" in text(b, "#panel-body"))
        t03 = text(browser, "#panel-body")
        hidden = tap.hidden()
        assert hidden, "the tap saw hole cards"
        page = text(browser, "body") + history + t03
        assert not [c for c in hidden if f" {c} " in f" {page} ".replace("\n", " ")]
        screenshot(browser, "floor_console_offline")
    finally:
        tap.close()


def test_a_restarted_console_has_every_alert_acknowledgement_and_hand_including_those_sent_while_it_was_down(  # noqa: E501
        tmp_path: Path, broker: Mosquitto) -> None:
    clean = LiveTable(tmp_path / "t03", VENUE, "t03", broker.port, seed=3, pace=0.1)
    misdeal = LiveTable(tmp_path / "t02", VENUE, "t02", broker.port,
                        scenario="t02_misdeal_two_exposed")
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    tap = SecureTap(broker.port)
    try:
        clean.start()
        misdeal.start()
        floor.start()
        wait_until(lambda: online(floor.url, {"t02", "t03"}), 30, "two tables online")
        clean.deal(2).join(120)
        wait_until(lambda: ended(floor.url, "t03") == 2, 20, "two hands kept, ended")
        assert floor.stop() == 0
        # while the console is down: an alert and more hands
        misdeal.play_scenario(SCENARIO_PACE).join(120)
        clean.deal(1).join(120)
        wait_until(lambda: len(tap.alerts) >= 2, 20, "the scenario's alerts")
        published = [name for (_, _, name, _) in tap.alerts]
        floor.start()
        wait_until(lambda: len(kept_alerts(floor.url, "t02")) >= 2, 20,
                   "the alerts sent while the console was down")
        names = sorted(a["name"] for a in kept_alerts(floor.url, "t02"))
        assert names == sorted(published)
        assert sorted(g["name"] for g in api(floor.url, "/api/snapshot")["groups"]) == sorted(
            set(published))
        # the dealer's last card is not the table's last event: the hand may still be ending
        wait_until(lambda: ended(floor.url, "t03") == 3, 30,
                   "the hand dealt while the console was down, ended")
        first = kept_alerts(floor.url, "t02")[0]
        req = urllib.request.Request(
            floor.url + "api/ack", data=json.dumps({"table": "t02", "seq": first["seq"],
                                                    "by": "Kim"}).encode(),
            headers={"Content-Type": "application/json", "X-Floor": "1"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.load(r)["alert"]["acked_by"] == "Kim"
        assert floor.stop() == 0
        floor.start()
        after = {a["seq"]: a for a in kept_alerts(floor.url, "t02")}
        assert after[first["seq"]]["acked_by"] == "Kim"
        assert after[first["seq"]]["ack_state"] in ("sent", "ok", "refused", "floor")
        assert all(a["ack_state"] == "" for seq, a in after.items() if seq != first["seq"])
        hands = api(floor.url, "/api/hands?table=t03")["hands"]
        assert [h["reason"] is not None for h in hands] == [True] * 3
    finally:
        tap.close()
        floor.stop()
        clean.stop()
        misdeal.stop()
