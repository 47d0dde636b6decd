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

A tournament controller's retained clock and field (as the real aggregate publishes them)
show in the page's header, counting down, and its critical alert in the queue under
"tournament"; none of its topics, nor any topic whose table level is not a table id, is ever
taken for a table. A browser logs in with the login form.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from bench.venue import FloorProcess, LiveTable
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.floor.auth import set_user
from tablesvc.floor.web import TITLES
from tablesvc.tournament.engine import published
from tablesvc.tournament.tournament import Alert, Tournament, alert_view
from tests.browser import screenshot
from tests.tournament_pages import structure

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
        # the alerts and the hands come in their own answers: wait for both
        wait.until(lambda b: "MISDEAL-07" in text(b, "#panel-body")
                   and "Hand #1" in text(b, "#panel-body"))
        history = text(browser, "#panel-body")
        assert "face down" in history
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


# ---------------------------------------------------------------------- the controller
CONTROLLER = f"tablesvc/v1/{VENUE}/.tournament"


def publish(port: int, messages: list[tuple[str, Any, bool]]) -> None:
    """Publish (topic, body, retain) in order, each delivered to the broker."""
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        for topic, body, retain in messages:
            payload = body if isinstance(body, bytes) else json.dumps(body)
            c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    finally:
        c.loop_stop()
        c.disconnect()


def controller_topics(now: float) -> dict[str, Any]:
    """What the controller publishes of a tournament of four players at two tables, its clock
    running in level 3 (300/600, big blind ante 75), and a critical TABLE-07 alert."""
    t = Tournament("Sunday Deepstack", VENUE, structure(), {"t01": 9, "t02": 9})
    for name in ("Ann", "Ben", "Cid", "Dee"):
        t.act({"action": "register", "name": name}, now)
    t.act({"action": "draw"}, now)
    t.act({"action": "start"}, now)
    t.act({"action": "advance", "levels": 2}, now)
    topics = published(t.view(now))
    topics["alerts"] = alert_view(Alert(
        "c-7", "player_seated_twice", "TABLE-07", "critical",
        "Dee is seated at t01 seat 4 and t02 seat 2",
        "find the player; unseat him from the seat he is not playing", now))
    topics["paused"] = published(t.view(now))["clock"] | {"running": False, "ends_at": None}
    return topics


class CommandTap:
    """Every command anyone sends below the venue (the floor must send the controller none)."""

    def __init__(self, port: int) -> None:
        self.got: list[str] = []
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        c.on_connect = lambda cl, *a: cl.subscribe(f"tablesvc/v1/{VENUE}/+/cmd/#", qos=1)
        c.on_message = lambda cl, u, m: self.got.append(m.topic)
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.c = c

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


async def pushed(ws_url: str, then: Any, kind: str, timeout: float = 10) -> tuple[Any, Any]:
    """The snapshot a page's WebSocket starts with; then ``then()`` and the first message of
    ``kind`` that follows."""
    async with aiohttp.ClientSession() as s, s.ws_connect(ws_url) as ws:
        first = json.loads((await ws.receive(timeout=timeout)).data)
        await asyncio.get_running_loop().run_in_executor(None, then)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads((await ws.receive(timeout=timeout)).data)
            if msg["kind"] == kind:
                return first, msg
        raise AssertionError(f"no {kind} pushed")


def seconds_shown(text: str) -> int:
    parts = [int(x) for x in text.split(":")]
    return parts[-3] * 3600 + parts[-2] * 60 + parts[-1] if len(parts) == 3 else \
        parts[0] * 60 + parts[1]


def test_the_controllers_clock_shows_in_the_header_counting_down_its_alert_under_tournament_and_no_topic_of_it_is_ever_a_table(  # noqa: E501
        tmp_path: Path, browser: WebDriver, broker: Mosquitto) -> None:
    now = time.time()
    topics = controller_topics(now)
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    commands = CommandTap(broker.port)
    try:
        floor.start()
        wait_until(lambda: api(floor.url, "/healthz")["mqtt"], 10, "the console subscribed")
        # the controller online, its retained clock and field, its alert; and topics with a
        # table level that is no table id: the controller's others, a dotted one
        publish(broker.port, [
            (f"{CONTROLLER}/status", {"state": "online"}, True),
            (f"{CONTROLLER}/clock", topics["clock"], True),
            (f"{CONTROLLER}/field", topics["field"], True),
            (f"{CONTROLLER}/seating", topics["seating"], True),
            (f"{CONTROLLER}/state", {"hand": 1, "players": []}, True),
            (f"tablesvc/v1/{VENUE}/t.01/status", {"state": "online"}, True),
        ])
        wait_until(lambda: (api(floor.url, "/api/snapshot")["tournament"] or {}).get("field"),
                   10, "the controller's clock and field")
        publish(broker.port, [  # not retained: once the console reads the retained ones
            (f"{CONTROLLER}/alerts", topics["alerts"], False),
            (f"tablesvc/v1/{VENUE}/t.01/events", {"seq": 1, "type": "hand_started"}, False),
        ])
        wait_until(lambda: api(floor.url, "/healthz")["not_a_table"] == 3, 10,
                   "the topics that are no table's, dropped")
        wait_until(lambda: api(floor.url, "/api/snapshot")["groups"], 10, "the alert")
        snap = api(floor.url, "/api/snapshot")
        assert snap["tables"] == []
        t = snap["tournament"]
        assert t["online"] is True
        assert t["clock"]["level"] == {"number": 3, "small_blind": 300, "big_blind": 600,
                                       "ante": 75, "ante_mode": "big_blind", "minutes": 20.0}
        assert t["clock"]["ends_at"] == topics["clock"]["ends_at"]
        assert "structure" not in t["clock"]
        assert t["field"]["players_left"] == 4
        assert t["field"]["chip_leader"]["stack"] == 20000
        group = {g["key"]: g for g in snap["groups"]}[".tournament/player_seated_twice"]
        assert group["open"]["severity"] == "critical" and group["rule"] == "TABLE-07"
        assert group["open"]["newest"]["message"] == topics["alerts"]["message"]
        assert group["open"]["seats"] == []  # the seats it names are the tables', not its own

        # on the page: the header counts down from ends_at, the alert is "tournament"'s
        browser.get(floor.url)
        wait = WebDriverWait(browser, 20)
        wait.until(lambda b: text(b, "#t-level") == "LEVEL 3")
        assert text(browser, "#t-blinds") == "300/600 · BB ante 75"
        assert text(browser, "#t-left") == "4 of 4 left"
        assert text(browser, "#t-state") == ""
        first = seconds_shown(text(browser, "#t-time"))
        assert 1200 - (time.time() - now) - 3 <= first <= 1200
        wait.until(lambda b: seconds_shown(text(b, "#t-time")) <= first - 2)
        assert dict(open_rows(browser)) == {".tournament/player_seated_twice": "1"}
        card = '#open [data-group=".tournament/player_seated_twice"]'
        assert text(browser, f"{card} .where") == "tournament"
        assert "TABLE-07" in text(browser, card)
        assert browser.find_elements(By.CSS_SELECTOR, "#grid .tile") == []
        screenshot(browser, "floor_console_tournament")

        # acknowledged on the floor: the controller takes no command
        click(browser, f"{card} button.ack")
        prompt = wait.until(lambda b: b.switch_to.alert)
        prompt.send_keys("Sam")
        prompt.accept()
        done = '#done [data-group=".tournament/player_seated_twice"]'
        wait.until(lambda b: "acknowledged on the floor" in text(b, done))
        time.sleep(0.5)
        assert commands.got == []

        # a paused clock reaches an open page's WebSocket; then the controller goes offline
        first_ws, msg = asyncio.run(pushed(
            floor.url.replace("http", "ws", 1) + "ws",
            lambda: publish(broker.port, [(f"{CONTROLLER}/clock", topics["paused"], True)]),
            "tournament"))
        assert first_ws["tournament"]["clock"]["running"] is True
        assert msg["tournament"]["clock"]["running"] is False
        wait.until(lambda b: text(b, "#t-state") == "PAUSED")
        shown = text(browser, "#t-time")
        time.sleep(1.5)
        assert text(browser, "#t-time") == shown == "20:00"
        publish(broker.port, [(f"{CONTROLLER}/status", {"state": "offline"}, True)])
        wait.until(lambda b: text(b, "#t-state") == "CONTROLLER OFFLINE")

        # a restarted console has the clock and the alert again, and still no table
        assert floor.stop() == 0
        floor.start()
        snap = api(floor.url, "/api/snapshot")
        assert snap["tables"] == []
        assert snap["tournament"]["clock"]["running"] is False
        assert snap["tournament"]["online"] is False
        alerts = api(floor.url, "/api/search?table=.tournament")["alerts"]
        assert [(a["name"], a["acked_by"], a["ack_state"]) for a in alerts] == [
            ("player_seated_twice", "Sam", "floor")]
        # the broker's copy of the alert sent again is the same alert
        publish(broker.port, [(f"{CONTROLLER}/alerts", topics["alerts"], False)])
        wait_until(lambda: api(floor.url, "/healthz")["duplicates"] >= 1, 10, "the copy")
        assert len(api(floor.url, "/api/search?table=.tournament")["alerts"]) == 1
    finally:
        commands.close()
        floor.stop()


def test_a_browser_logs_in_with_the_login_form(tmp_path: Path, browser: WebDriver,
                                               broker: Mosquitto) -> None:
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    set_user(floor.folder / "users", "sam", "pit boss 7")
    floor.config.write_text(floor.config.read_text().replace(
        "[web]\n", '[web]\nusers_file = "users"\n'))
    try:
        floor.start()
        with urllib.request.urlopen(floor.url + "login", timeout=10) as r:
            # the form's POST carries its origin (no-referrer would make it "null", which
            # the login's cross-site check refuses)
            assert r.headers["Referrer-Policy"] == "same-origin"
        browser.get(floor.url)
        wait_until(lambda: browser.current_url.endswith("/login"), 10, "the login page")
        browser.find_element(By.NAME, "user").send_keys("sam")
        browser.find_element(By.NAME, "password").send_keys("pit boss 7")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_until(lambda: browser.current_url == floor.url, 10, "the console")
        wait_until(lambda: text(browser, "#who") == "sam · log out", 10, "logged in")
    finally:
        floor.stop()


def test_a_table_not_in_the_venue_list_never_reaches_the_grid_or_the_queue_and_is_logged_once(
        tmp_path: Path, broker: Mosquitto) -> None:
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)
    floor.config.write_text(floor.config.read_text().replace(
        'name = "Main hall"\n', 'name = "Main hall"\ntables = ["t01"]\n'))
    try:
        floor.start()
        wait_until(lambda: api(floor.url, "/healthz")["mqtt"], 10, "the console subscribed")
        alert = {"seq": 1, "type": "alert", "name": "exposed_card", "severity": "critical",
                 "rule": "EXPO-01", "seats": [3], "message": "an exposed card", "hand": 1}
        publish(broker.port, [
            (f"tablesvc/v1/{VENUE}/t01/status", {"state": "online"}, True),
            # a broker set up by hand lets someone write as a table "broadcast", or as t09
            (f"tablesvc/v1/{VENUE}/broadcast/status", {"state": "online"}, True),
            (f"tablesvc/v1/{VENUE}/broadcast/alerts", alert, False),
            (f"tablesvc/v1/{VENUE}/t09/alerts", alert, False),
            (f"tablesvc/v1/{VENUE}/t09/alerts", {**alert, "seq": 2}, False),
        ])
        wait_until(lambda: api(floor.url, "/healthz")["not_a_table"] == 4, 10,
                   "the four messages of no table of the venue, dropped")
        snap = api(floor.url, "/api/snapshot")
        assert [t["id"] for t in snap["tables"]] == ["t01"]
        assert snap["groups"] == []
    finally:
        floor.stop()
    said = [json.loads(line) for line in floor.log.read_text().splitlines()
            if "no table of this venue" in line]
    assert sorted((r["table"], r["why"]) for r in said) == [
        ("broadcast", "not a table of this venue (floor.tables)"),
        ("t09", "not a table of this venue (floor.tables)")]


# ---------------------------------------------------------------------- the game of each table
def test_each_tile_names_the_game_its_table_deals_pot_limit_omaha_too_and_a_restart_keeps_it(
        tmp_path: Path, browser: WebDriver, broker: Mosquitto) -> None:
    """t01 deals pot-limit Omaha (its retained state and its hand say so), t02 no-limit
    hold'em (its hand only), t03 a game this console does not know yet (shown by its ids)."""
    floor = FloorProcess(tmp_path / "floor", VENUE, broker.port)

    def started(table: str, variant: str, limit: str) -> tuple[str, Any, bool]:
        return (f"tablesvc/v1/{VENUE}/{table}/events",
                {"v": 1, "venue": VENUE, "table": table, "seq": 5, "prev_seq": 4, "hand": 2,
                 "ts": "2026-12-01T20:00:00.000Z", "type": "hand_started", "variant": variant,
                 "limit": limit, "button": 1, "small_blind_seat": 2, "big_blind_seat": 3,
                 "seats": [{"seat": s, "name": f"P{s}", "stack": 1000} for s in (1, 2, 3)],
                 "small_blind": 5, "big_blind": 10, "ante": 0, "ante_mode": "each"}, False)

    omaha_state = {"hand": 2, "variant": "omaha", "in_hand": True, "button": 1,
                   "level": {"number": None, "small_blind": 5, "big_blind": 10, "ante": 0,
                             "ante_mode": "each", "limit": "pot-limit"},
                   "street": "flop", "board": ["Ks", "9h", "4d"], "active": [1, 2, 3],
                   "pot": 30, "players": [{"seat": s, "name": f"P{s}", "stack": 990}
                                          for s in (1, 2, 3)],
                   "devices": {}, "open_alerts": [], "last_seq": 5}
    want = {"t01": "Pot-limit Omaha", "t02": "No-limit Hold'em", "t03": "Fixed-limit stud7"}

    def games() -> dict[str, Any]:
        return {t["id"]: t["game"] for t in api(floor.url, "/api/snapshot")["tables"]}

    try:
        floor.start()
        wait_until(lambda: api(floor.url, "/healthz")["mqtt"], 10, "the console subscribed")
        publish(broker.port, [
            *[(f"tablesvc/v1/{VENUE}/{t}/status", {"state": "online"}, True) for t in want],
            (f"tablesvc/v1/{VENUE}/t01/state", omaha_state, True),
            started("t01", "omaha", "pot-limit"), started("t02", "holdem", "no-limit"),
            started("t03", "stud7", "fixed-limit")])
        wait_until(lambda: games() == want, 10, f"the games named (the console has {games()})")

        browser.get(floor.url)
        wait = WebDriverWait(browser, 20)
        wait.until(lambda b: all(text(b, f'[data-table="{t}"] .game') == game
                                 for t, game in want.items()))
        screenshot(browser, "floor_console_games")

        # restarted, the console names t01's game from the state it kept
        assert floor.stop() == 0
        floor.start()
        assert games()["t01"] == "Pot-limit Omaha"
    finally:
        floor.stop()
