"""The tournament controller's pages and API on a real port, driven by the real engine and
aggregate with tables that answer its commands (``tests.tournament_pages``): the view and the
WebSocket follow the director's actions, pushes are coalesced, logins and the exposure rules
are the floor console's with a cookie of their own, and in headless Chromium the clock screen
counts down and the director runs a tournament by clicks.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select

from tablesvc.brokers.mosquitto import wait_until
from tablesvc.floor.auth import Sessions
from tablesvc.tournament.web import COOKIE, STATIC
from tests.browser import screenshot
from tests.tournament_pages import ServedTournament, served

pytestmark = pytest.mark.integration

NAMES = ["Anna", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
HOSTILE = '<img src=x onerror="document.title=1">Zed'


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(url: str, *, body: Any = None, form: dict[str, str] | None = None,
            headers: dict[str, str] | None = None, cookie: str | None = None
            ) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body, without following redirects (a refusal is an answer)."""
    data = None
    h = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        h["Content-Type"] = "application/x-www-form-urlencoded"
    if cookie:
        h["Cookie"] = f"{COOKIE}={cookie}"
    req = urllib.request.Request(url, data=data, headers=h,
                                 method="POST" if data is not None else "GET")
    try:
        with OPENER.open(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def act(s: ServedTournament, body: dict[str, Any], cookie: str | None = None
        ) -> tuple[int, dict[str, Any]]:
    status, _, raw = request(s.url + "/api/action", body=body,
                             headers={"X-Tournament": "1"}, cookie=cookie)
    return status, json.loads(raw)


def view(s: ServedTournament) -> dict[str, Any]:
    status, _, raw = request(s.url + "/api/view")
    assert status == 200
    got: dict[str, Any] = json.loads(raw)
    return got


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[ServedTournament]:
    """Two tables of six, online."""
    with served(tmp_path, tables={"t01": 6, "t02": 6}) as s:
        s.call(lambda: [s.tables.online(t) for t in ("t01", "t02")])
        yield s


def seated(s: ServedTournament) -> int:
    return sum(len(t["players"]) for t in view(s)["tables"])


# ---------------------------------------------------------------------- API and WebSocket
def test_actions_change_the_view_and_refusals_come_back_with_the_reason(
        venue: ServedTournament) -> None:
    before = view(venue)
    assert before["name"] == "Sunday Deepstack" and before["clock"]["started"] is False
    status, answer = act(venue, {"action": "start"})
    assert status == 200 and answer["ok"] and answer["error"] is None
    status, answer = act(venue, {"action": "register", "name": "Anna"})
    assert status == 200 and answer["ok"] and answer["data"]["player"]
    status, answer = act(venue, {"action": "register", "name": "Anna"})
    assert status == 409 and not answer["ok"] and "registered already" in answer["error"]
    status, answer = act(venue, {"action": "fold"})
    assert status == 409 and "unknown action" in answer["error"]
    status, _, raw = request(venue.url + "/api/action", body=b"{not json",
                             headers={"X-Tournament": "1"})
    assert status == 400 and json.loads(raw)["ok"] is False
    after = view(venue)
    assert after["clock"]["started"] is True
    assert [p["name"] for p in after["players"]] == ["Anna"]


def test_a_state_changing_call_without_the_header_is_refused(venue: ServedTournament) -> None:
    status, _, raw = request(venue.url + "/api/action", body={"action": "start"})
    assert status == 403 and "X-Tournament" in json.loads(raw)["error"]
    assert view(venue)["clock"]["started"] is False


def test_every_answer_forbids_framing_and_inline_scripts(venue: ServedTournament) -> None:
    for path in ("/", "/clock", "/api/view", "/static/clock.js", "/healthz"):
        status, headers, _ = request(venue.url + path)
        assert status == 200, path
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp, path
        assert "frame-ancestors 'none'" in csp and headers["X-Frame-Options"] == "DENY", path
    status, headers, _ = request(venue.url + "/api/action", body={"action": "start"})
    assert status == 403 and headers["X-Frame-Options"] == "DENY"
    for page in ("clock.html", "director.html", "login.html"):
        html = (STATIC / page).read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), page
        assert "<style" not in html and not re.search(r"\sstyle\s*=", html), page
        assert not re.search(r"\son[a-z]+\s*=", html), page
    for script in STATIC.iterdir():
        if script.name.endswith(".js"):
            assert "innerHTML" not in script.read_text(encoding="utf-8"), script.name


async def _frames(url: str, count: int, actions: list[dict[str, Any]], s: ServedTournament
                  ) -> list[tuple[float, dict[str, Any]]]:
    """The WebSocket's messages (arrival time, message) while the actions go out."""
    got: list[tuple[float, dict[str, Any]]] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(url + "/ws") as ws:
        first = await ws.receive_json(timeout=10)
        got.append((time.monotonic(), first))
        loop = asyncio.get_running_loop()
        sender = loop.run_in_executor(None, lambda: [act(s, a) for a in actions])
        while len(got) < count:
            msg = await ws.receive_json(timeout=10)
            got.append((time.monotonic(), msg))
            names = {p["name"] for p in msg["view"]["players"]}
            if len(names) == len(actions):
                break
        await sender
    return got


def test_the_websocket_sends_the_view_on_connect_and_at_most_four_a_second(
        venue: ServedTournament) -> None:
    actions = [{"action": "register", "name": f"Player {i}"} for i in range(40)]
    frames = asyncio.run(_frames(venue.url, 200, actions, venue))
    first = frames[0][1]
    assert first["kind"] == "view" and first["view"]["players"] == []
    assert abs(first["now"] - time.time()) < 5
    last = frames[-1][1]["view"]
    assert len(last["players"]) == 40
    pushed = frames[1:]
    assert len(pushed) < 40, "a push per action: not coalesced"
    # the pump waits a quarter of a second after each push; a message that arrives late
    # (a busy machine) shortens one gap, never the span of several
    span = pushed[-1][0] - pushed[0][0]
    assert len(pushed) - 1 <= span / 0.25 + 1, (len(pushed), span)
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(pushed)]
    assert all(g > 0.1 for g in gaps), gaps


# ---------------------------------------------------------------------- logins
def test_with_users_every_page_and_api_needs_a_session_of_its_own_cookie(
        tmp_path: Path) -> None:
    with served(tmp_path, tables={"t01": 6}, users={"td": "right horse battery"}) as s:
        assert request(s.url + "/api/view")[0] == 401
        assert request(s.url + "/ws")[0] == 401
        for page in ("/", "/clock"):
            status, headers, _ = request(s.url + page)
            assert status == 302 and headers["Location"] == f"/login?next={page}"
        assert request(s.url + "/static/director.js")[0] == 302
        for open_path in ("/login", "/static/director.css", "/static/login.js", "/healthz"):
            assert request(s.url + open_path)[0] == 200, open_path
        # the login form's POST carries its origin (no-referrer would make it "null")
        assert request(s.url + "/login")[1]["Referrer-Policy"] == "same-origin"

        status, headers, _ = request(s.url + "/login",
                                     form={"user": "td", "password": "wrong", "next": "/clock"})
        assert status == 302 and headers["Location"].startswith("/login?failed=1")
        assert "Set-Cookie" not in headers
        status, headers, _ = request(s.url + "/login", form={
            "user": "td", "password": "right horse battery", "next": "/clock"},
            headers={"Origin": "http://evil.example"})
        assert status == 403 and "Set-Cookie" not in headers

        status, headers, _ = request(s.url + "/login", form={
            "user": "td", "password": "right horse battery", "next": "/clock"})
        assert status == 302 and headers["Location"] == "/clock"
        cookie = headers["Set-Cookie"]
        assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and \
            "SameSite=Strict" in cookie
        token = cookie.split(";", 1)[0].split("=", 1)[1]
        assert request(s.url + "/api/view", cookie=token)[0] == 200
        assert request(s.url + "/clock", cookie=token)[0] == 200
        status, answer = act(s, {"action": "start"}, cookie=token)
        assert status == 200 and answer["ok"]
        status, _, raw = request(s.url + "/api/me", cookie=token)
        assert json.loads(raw)["user"] == "td"
        # the floor console's cookie name is not this console's session
        status, _, _ = request(s.url + "/api/view",
                               headers={"Cookie": f"floor_session={token}"})
        assert status == 401
        assert request(s.url + "/logout", body={}, headers={"X-Tournament": "1"},
                       cookie=token)[0] == 200
        assert request(s.url + "/api/view", cookie=token)[0] == 401


def test_a_login_goes_back_only_to_a_page_of_its_own(tmp_path: Path) -> None:
    with served(tmp_path, tables={"t01": 6}, users={"td": "pw"}) as s:
        status, headers, _ = request(s.url + "/login", form={
            "user": "td", "password": "pw", "next": "https://evil.example/"})
        assert status == 302 and headers["Location"] == "/"


# ---------------------------------------------------------------------- in a browser
def test_a_big_screen_logs_in_once_and_lands_on_the_clock(tmp_path: Path,
                                                          browser: WebDriver) -> None:
    with served(tmp_path, tables={"t01": 6}, users={"screen": "hall clock"}) as s:
        browser.get(s.url + "/clock")
        wait_until(lambda: "/login" in browser.current_url, 10, "the login page")
        browser.find_element(By.NAME, "user").send_keys("screen")
        browser.find_element(By.NAME, "password").send_keys("hall clock")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_until(lambda: browser.current_url.endswith("/clock"), 10, "back at the clock")
        wait_until(lambda: text(browser, "#level") == "LEVEL 1", 10, "the clock drawn")
        assert text(browser, "#state") == "NOT STARTED"


def text(browser: WebDriver, css: str) -> str:
    got = browser.execute_script("const e = document.querySelector(arguments[0]);"
                                 "return e ? e.textContent : '';", css)
    return str(got)


def click(browser: WebDriver, css: str) -> None:
    """Click, again if the page redrew the button under the click (a new view came)."""
    def clicked() -> bool:
        try:
            browser.find_element(By.CSS_SELECTOR, css).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException,
                ElementClickInterceptedException):  # the next view draws it
            return False
    wait_until(clicked, 10, f"click {css}")


def notice(browser: WebDriver) -> str:
    return text(browser, "#notice") if "hidden" not in str(
        browser.find_element(By.ID, "notice").get_attribute("class")) else ""


def test_the_director_runs_the_tournament_and_the_clock_screen_shows_it(
        venue: ServedTournament, browser: WebDriver) -> None:
    # the clock screen before the start: level 1, its whole time, NOT STARTED
    browser.get(venue.url + "/clock")
    wait_until(lambda: text(browser, "#level") == "LEVEL 1", 10, "the clock screen's level")
    assert text(browser, "#state") == "NOT STARTED"
    assert text(browser, "#time") == "20:00"
    assert text(browser, "#blinds") == "100 / 200"

    browser.get(venue.url + "/")
    wait_until(lambda: "live" in text(browser, "#link"), 10, "the director's page live")
    click(browser, "#start")
    wait_until(lambda: text(browser, "#c-state") == "running", 10, "the clock running")
    for name in [*NAMES, HOSTILE]:
        field = browser.find_element(By.ID, "reg-name")
        field.send_keys(name)
        browser.find_element(By.ID, "reg-submit").click()
        wait_until(lambda n=name: f"register {n}" in notice(browser), 10, f"{name} registered")
    # a name twice is refused, and the page says so in red
    browser.find_element(By.ID, "reg-name").send_keys("Anna")
    browser.find_element(By.ID, "reg-submit").click()
    wait_until(lambda: "registered already" in notice(browser), 10, "the refusal shown")
    assert "error" in str(browser.find_element(By.ID, "notice").get_attribute("class"))
    browser.find_element(By.ID, "reg-name").clear()

    click(browser, "#draw")
    wait_until(lambda: seated(venue) == 9, 20, "the tables to seat the draw")
    wait_until(lambda: text(browser, "#tables").count("Flo") == 1 and
               "to be seated" not in text(browser, "#tables"), 10, "the chart to show the seats")
    assert HOSTILE in text(browser, "#tables")
    assert browser.find_elements(By.CSS_SELECTOR, "#tables img, #players img") == []

    # two players bust at the fuller table: a balancing suggestion, accepted with one click
    full = max(("t01", "t02"), key=lambda t: len(venue.tables.players[t]))
    busted = frozenset(sorted(venue.tables.players[full])[1:4])
    venue.call(lambda: venue.tables.play_hand(full, busted))
    wait_until(lambda: len(view(venue)["busts"]) == 3, 10, "the busts")
    wait_until(lambda: bool(browser.find_elements(By.CSS_SELECTOR, "#suggestions .accept")),
               10, "a balancing suggestion")
    suggestion = view(venue)["suggestions"][0]
    # three out in one hand with equal stacks: they tie for 7th of nine
    wait_until(lambda: text(browser, "#busts").count("7th") == 3, 10, "the busts listed")
    screenshot(browser, "tournament_director_suggestion")
    click(browser, "#suggestions .accept")
    wait_until(lambda: any(r["name"] == suggestion["name"] for t in view(venue)["tables"]
                           if t["table"] == suggestion["to"][0] for r in t["players"]),
               20, "the suggested move carried out")
    wait_until(lambda: "balanced" in text(browser, "#suggestions"), 10, "suggestion gone")
    sizes = sorted(len(t["players"]) for t in view(venue)["tables"])
    assert sizes[-1] - sizes[0] <= 1
    leader = view(venue)["field"]["chip_leader"]
    wait_until(lambda: leader["name"] in text(browser, "#field"), 10, "the chip leader")
    other = "t02" if full == "t01" else "t01"
    venue.call(lambda: venue.tables.play_hand(other))
    wait_until(lambda: all(t["button"] for t in view(venue)["tables"]), 10, "both buttons")
    browser.execute_script("document.getElementById('notice-close').click()")
    wait_until(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#tables .mark.btn")) == 2,
               10, "the buttons marked")
    screenshot(browser, "tournament_director")

    # the clock screen, running: the time counts down
    browser.get(venue.url + "/clock")
    wait_until(lambda: text(browser, "#level") == "LEVEL 1", 10, "the clock screen's level")
    assert text(browser, "#state") == ""
    first = text(browser, "#time")
    assert re.fullmatch(r"1?\d:\d\d", first), first
    wait_until(lambda: text(browser, "#time") != first, 5, "the clock to count down")
    assert text(browser, "#blinds") == "100 / 200"
    assert text(browser, "#players") == "6"
    assert text(browser, "#pool") == "900"
    assert text(browser, "#next-blinds") == "200 / 400"
    screenshot(browser, "tournament_clock")

    # paused: the screen says so and the time stands still
    act(venue, {"action": "pause"})
    wait_until(lambda: text(browser, "#state") == "PAUSED", 10, "PAUSED on the clock screen")
    left = math.ceil(view(venue)["clock"]["remaining_s"] - 1e-6)
    assert text(browser, "#time") == f"{left // 60}:{left % 60:02d}"
    assert "paused" in str(browser.find_element(By.ID, "time").get_attribute("class"))
    screenshot(browser, "tournament_clock_paused")

    # on a break: the break, and the level that comes after it
    act(venue, {"action": "resume"})
    act(venue, {"action": "advance", "levels": 3})
    wait_until(lambda: text(browser, "#level") == "BREAK", 10, "the break on the screen")
    assert text(browser, "#blinds") == "Level 4: 400 / 800"
    screenshot(browser, "tournament_clock_break")


def dialog_open(browser: WebDriver) -> bool:
    return bool(browser.execute_script("return document.getElementById('player-dialog').open"))


def player(s: ServedTournament, name: str) -> dict[str, Any]:
    return next(p for p in view(s)["players"] if p["name"] == name)


def test_the_director_moves_a_player_and_removes_players_from_the_page(
        venue: ServedTournament, browser: WebDriver) -> None:
    for name in NAMES[:7]:
        act(venue, {"action": "register", "name": name})
    act(venue, {"action": "start"})
    assert act(venue, {"action": "draw"})[1]["ok"]
    wait_until(lambda: seated(venue) == 7, 20, "the tables to seat the draw")
    browser.get(venue.url + "/")
    wait_until(lambda: "live" in text(browser, "#link"), 10, "the director's page live")

    # a manual move: the seat's "move" opens a form with the open tables and their free seats
    mover = next(p for p in view(venue)["players"] if p["table"] == "t01")
    tile = f'#tables .tile[data-table="t01"] .seat[data-seat="{mover["seat"]}"]'
    wait_until(lambda: mover["name"] in text(browser, tile), 10, "the chart drawn")
    click(browser, f"{tile} .move")
    wait_until(lambda: dialog_open(browser), 5, "the player's dialog")
    assert text(browser, "#pd-name") == mover["name"]
    taken = {r["seat"] for t in view(venue)["tables"] if t["table"] == "t02"
             for r in t["players"]}
    free = [s for s in range(1, 7) if s not in taken]
    Select(browser.find_element(By.ID, "move-table")).select_by_value("t02")
    seats = [o.get_attribute("value") for o in
             Select(browser.find_element(By.ID, "move-seat")).options]
    assert seats == [str(s) for s in free]
    target = free[-1]
    Select(browser.find_element(By.ID, "move-seat")).select_by_value(str(target))
    screenshot(browser, "tournament_director_move")
    browser.find_element(By.ID, "move-go").click()
    wait_until(lambda: not dialog_open(browser), 5, "the dialog closed")
    wait_until(lambda: f"move {mover['name']} to t02/{target}" in notice(browser), 10,
               "the move done")
    wait_until(lambda: any(r["name"] == mover["name"] and r["seat"] == target
                           for t in view(venue)["tables"] if t["table"] == "t02"
                           for r in t["players"]), 20, "the tables to carry out the move")
    wait_until(lambda: mover["name"] in text(
        browser, f'#tables .tile[data-table="t02"] .seat[data-seat="{target}"]'), 10,
        "the chart to show the move")

    # a no-show: "Remove" in the leaderboard, a second click to confirm
    gone = next(p for p in view(venue)["players"] if p["player"] != mover["player"])
    row = f'#players tr[data-player="{gone["player"]}"]'
    click(browser, f"{row} .no-show")
    wait_until(lambda: player(venue, gone["name"])["no_show"], 10, "the no-show flagged")
    click(browser, f"{row} .remove")
    wait_until(lambda: "click again" in text(browser, f"{row} .remove"), 5, "armed")
    screenshot(browser, "tournament_director_remove")
    assert player(venue, gone["name"])["status"] == "seated"
    click(browser, f"{row} .remove")
    wait_until(lambda: player(venue, gone["name"])["status"] == "removed", 10, "removed")
    assert player(venue, gone["name"])["place"] is None
    wait_until(lambda: "removed" in text(browser, row), 10, "the leaderboard says removed")
    assert "removed" in str(browser.find_element(By.CSS_SELECTOR, row).get_attribute("class"))
    wait_until(lambda: seated(venue) == 6, 10, "the table to unseat the removed player")
    wait_until(lambda: gone["name"] not in text(browser, "#tables"), 10, "his seat empty")

    # a disqualification: from the seat's dialog
    dq = next(p for p in view(venue)["players"] if p["status"] == "seated")
    click(browser, f'#tables .tile[data-table="{dq["table"]}"] '
                   f'.seat[data-seat="{dq["seat"]}"] .move')
    wait_until(lambda: dialog_open(browser), 5, "the player's dialog")
    browser.find_element(By.ID, "pd-remove").click()
    assert "click again" in text(browser, "#pd-remove")
    browser.find_element(By.ID, "pd-remove").click()
    wait_until(lambda: player(venue, dq["name"])["status"] == "removed", 10, "disqualified")
    wait_until(lambda: not dialog_open(browser), 5, "the dialog closed")

    # the reminder at the end of level 2 carries the removal of that no-show's stack
    late = next(p for p in view(venue)["players"] if p["status"] == "seated")
    act(venue, {"action": "no_show", "player": late["player"], "no_show": True})
    act(venue, {"action": "advance", "levels": 2})
    wait_until(lambda: bool(browser.find_elements(By.CSS_SELECTOR, "#alerts .remove")), 10,
               "the reminder with its button")
    click(browser, "#alerts .remove")
    click(browser, "#alerts .remove")
    wait_until(lambda: player(venue, late["name"])["status"] == "removed", 10, "stack removed")
    wait_until(lambda: not browser.find_elements(By.CSS_SELECTOR, "#alerts .remove"), 10,
               "the reminder's button gone")


def test_a_page_whose_session_is_gone_goes_to_the_login_page_and_back(
        tmp_path: Path, browser: WebDriver) -> None:
    def log_in() -> None:
        wait_until(lambda: "/login" in browser.current_url, 10, "the login page")
        browser.find_element(By.NAME, "user").send_keys("td")
        browser.find_element(By.NAME, "password").send_keys("pw")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    with served(tmp_path, tables={"t01": 6}, users={"td": "pw"}) as s:
        browser.get(s.url + "/")
        log_in()
        wait_until(lambda: "live" in text(browser, "#link"), 10, "the director's page live")
        # the controller restarts: its sessions were in memory, the page's socket gets a 401
        s.restart_web()
        wait_until(lambda: "/login" in browser.current_url, 15, "sent to the login page")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(browser.current_url).query
                                     )["next"] == ["/"]
        log_in()
        wait_until(lambda: browser.current_url == s.url + "/", 10, "back at the director's")
        wait_until(lambda: "live" in text(browser, "#link"), 10, "live again")
        # a session that ends under an open socket: the next action's 401 sends it to log in
        s.call(lambda: setattr(s.web.logins, "sessions", Sessions(1)))
        click(browser, "#start")
        wait_until(lambda: "/login" in browser.current_url, 10, "sent to the login page")
        assert not view_of(s)["clock"]["started"]

        # the clock screen goes back to the clock screen
        log_in()
        wait_until(lambda: browser.current_url == s.url + "/", 10, "back at the director's")
        browser.get(s.url + "/clock")
        wait_until(lambda: text(browser, "#level") == "LEVEL 1", 10, "the clock drawn")
        s.restart_web()
        wait_until(lambda: "/login" in browser.current_url, 15, "sent to the login page")
        log_in()
        wait_until(lambda: browser.current_url == s.url + "/clock", 10, "back at the clock")


def view_of(s: ServedTournament) -> dict[str, Any]:
    """The view from the engine itself (the API needs a session here)."""
    got: dict[str, Any] = s.call(s.engine.view)
    return got
