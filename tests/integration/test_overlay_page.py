"""The broadcast overlay in a real browser, fed by real hands through the real service.

Virtual devices on ptys -> ``tablesvc run`` -> mosquitto -> ``tablesvc overlay`` -> headless
Chromium at 1920x1080, the size of an OBS browser source. What the page shows (cards, win
probabilities, board, pot, the winner, the draw) is read from its DOM and compared with the
events a subscriber received; what it was sent, and when, is recorded inside the page.
When a tournament controller publishes its clock and field, a strip shows the level, the
blinds and ante and the chip leader. Screenshots are saved under ``build/screenshots/``.
"""

from __future__ import annotations

import json
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium.webdriver.remote.webdriver import WebDriver

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.config.table import validate_config
from tablesvc.overlay.server import OverlayServer, OverlaySettings, start_in_thread, stop_thread
from tests.browser import open_browser, screenshot
from tests.conftest import ROOT, ServiceProcess, Subscriber
from tests.integration.conftest import PLAYERS, PREFIX, start_service
from tests.integration.test_overlay_server import TOKEN, controller, hole_cards, overlay
from tests.unit.test_overlay_model import messages

pytestmark = pytest.mark.integration

# Inside the page, before its own script: every picture the WebSocket brings, with the time.
RECORDER = """
window.__frames = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const ws = protocols ? new Native(url, protocols) : new Native(url);
  ws.addEventListener("message", (m) => window.__frames.push([Date.now(), m.data]));
  return ws;
};
window.WebSocket.prototype = Native.prototype;
"""
# Inside the page too: every breach of its Content-Security-Policy the browser reports.
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));
"""


def watch_csp(browser: WebDriver) -> None:
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_WATCH})


def no_csp_breach(browser: WebDriver) -> None:
    """The page ran under its policy without one breach; and the policy holds: a script put
    into the page (as an injected name would be) does not run, and is reported."""
    assert browser.execute_script("return window.__csp") == []
    browser.execute_script("""
      const s = document.createElement("script");
      s.textContent = "window.__ran = true";
      document.body.append(s);""")
    wait_until(lambda: browser.execute_script("return window.__csp.length") == 1, 5,
               "the breach to be reported")
    assert browser.execute_script("return window.__ran") is None
    assert browser.execute_script("return window.__csp")[0].startswith("script-src")


def token_of(cfg: Path) -> str:
    """The token ``tablesvc overlay`` made at its first start, in the table's storage dir."""
    return (cfg.parent / "store" / "overlay.token").read_text().strip()


class OverlayProcess:
    """``tablesvc overlay`` as its own process, as a producer starts it."""

    def __init__(self, config: Path, port: int) -> None:
        self.config, self.port = config, port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.config.parent / "overlay.log", "ab")  # noqa: SIM115 - the child's
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablesvc.commands.cli", "overlay", "--config",
             str(self.config), "--log", "json"], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        wait_until(lambda: _answers(self.port), 20, "the overlay to serve")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(20)


def _answers(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@pytest.fixture
def overlays() -> Iterator[Callable[[Path, int], OverlayProcess]]:
    made: list[OverlayProcess] = []

    def make(config: Path, port: int) -> OverlayProcess:
        o = OverlayProcess(config, port)
        made.append(o)
        o.start()
        return o

    yield make
    for o in made:
        if o.proc is not None and o.proc.poll() is None:
            o.proc.kill()
            o.proc.wait(10)


class TimedSubscriber:
    """Every message of the table with the moment it arrived (wall clock, like the page's)."""

    def __init__(self, port: int) -> None:
        self.lock = threading.Lock()
        self.got: list[tuple[float, str, dict[str, Any]]] = []
        self.ready = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        c.on_connect = lambda cl, *a: (cl.subscribe(f"{PREFIX}/#", qos=1), self.ready.set())
        c.on_message = self._on_message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        assert self.ready.wait(10)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        now = time.time()
        with self.lock:
            self.got.append((now, msg.topic.removeprefix(PREFIX + "/"), json.loads(msg.payload)))

    def timed(self) -> list[tuple[float, dict[str, Any]]]:
        """(arrival, event) of both feeds."""
        with self.lock:
            return [(t, p) for t, topic, p in self.got if topic in ("events", "secure/events")
                    and isinstance(p, dict) and "seq" in p]

    def events(self) -> list[dict[str, Any]]:
        return [e for _, e in self.timed()]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


# ------------------------------------------------------------------ reading the page
def page(browser: WebDriver) -> dict[str, Any]:
    """What the page shows: per seat its cards, win figure, tag and classes; board; pot."""
    data: dict[str, Any] = browser.execute_script("""
      const seats = {};
      for (const el of document.querySelectorAll('.seat:not(.empty)')) {
        seats[el.dataset.seat] = {
          cards: [...el.querySelectorAll('.cards .card')].map(c => c.dataset.card || '?'),
          win: el.dataset.win, winText: el.querySelector('.win').textContent,
          tag: el.querySelector('.tag').textContent,
          drew: el.querySelector('.drew-badge').textContent,
          stack: el.querySelector('.stack').textContent,
          classes: [...el.classList]};
      }
      return {seats, hand: document.body.dataset.hand,
              connected: document.body.dataset.connected,
              board: [...document.querySelectorAll('#board .card')].map(c => c.dataset.card),
              pot: document.querySelector('#pot .amount').textContent};
    """)
    return data


def expected(events: list[dict[str, Any]], hand: int) -> dict[str, Any]:
    """What the events of ``hand`` say the screen should show now."""
    holes: dict[int, list[str]] = {}
    win: dict[int, float] = {}
    folded: set[int] = set()
    board: list[str] = []
    pot = 0
    for e in events:
        if e.get("hand") != hand:
            continue
        kind = e["type"]
        if kind == "hole_cards":
            holes[e["seat"]] = e["cards"]
        if kind in ("board", "hole_cards", "hand_ended") or (
                kind == "action" and e["action"] == "fold"):
            win = {}
        if kind == "board":
            board = e["board"]
        if kind == "action":
            pot = e["pot"]
            if e["action"] == "fold":
                folded.add(e["seat"])
        if kind == "equity":
            win = {s["seat"]: s["win"] for s in e["seats"] if s["win"] is not None}
    return {"holes": holes, "win": win, "folded": folded, "board": board, "pot": pot}


def shows(browser: WebDriver, want: dict[str, Any], hand: int) -> bool:
    got = page(browser)
    if got["hand"] != str(hand) or got["board"] != want["board"]:
        return False
    if got["pot"] != f"{want['pot']:,}":
        return False
    for seat, cards in want["holes"].items():
        s = got["seats"].get(str(seat))
        if s is None or s["cards"] != cards:
            return False
        shown = float(s["win"]) if s["win"] else None
        if shown != want["win"].get(seat):
            return False
        if ("folded" in s["classes"]) != (seat in want["folded"]):
            return False
    return True


def quiet(sub: Subscriber | TimedSubscriber, seconds: float = 2.0) -> None:
    """Until no event arrived for ``seconds``: the equity of the last card, and a bet left in
    its zone when the dealer stopped, which is final after ``bet_settle_ms`` (1.5 s)."""
    def count() -> int:
        return len(sub.events())

    last, since = count(), time.monotonic()
    while time.monotonic() - since < seconds:
        time.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, time.monotonic()


# ------------------------------------------------------------------ the tests
@pytest.fixture
def paced_rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    """The rig of the other end-to-end tests, at a slower pace: a browser and the overlay
    share the two cores here, and frames of two devices written 10 ms apart may then be read
    in either order (no real table acts that fast)."""
    r = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=11,
                        pace=0.05, chips=tmp_path / "chips.json")
    yield r
    r.close()


def test_the_page_shows_the_cards_the_odds_the_pot_and_the_winner_the_events_say(
        tmp_path: Path, broker: Mosquitto, paced_rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess],
        overlays: Callable[[Path, int], OverlayProcess], browser: WebDriver) -> None:
    rig = paced_rig
    sub = subscriber_factory(f"{PREFIX}/#")
    port = free_port()
    cfg, svc = start_service(tmp_path, rig, broker, service_factory, sub,
                             extra=f"[overlay]\nport = {port}\n")
    overlay = overlays(cfg, port)
    dealer = rig.start(hands=1)
    url = f"http://127.0.0.1:{port}/?token={token_of(cfg)}&background=felt"
    watch_csp(browser)
    checked_odds, opened = 0, False
    seen = 0
    while dealer.is_alive() and checked_odds < 3:
        # stop the dealer whenever new win probabilities came out, and look at the page
        wait_until(lambda n=seen: sum(e["type"] == "equity"
                                      for e in sub.events("secure/events")) > n
                   or not dealer.is_alive(), 30, "the next equity event")
        rig.table.pause()
        quiet(sub)
        events = sorted(sub.events("events") + sub.events("secure/events"),
                        key=lambda e: e["seq"])
        seen = sum(e["type"] == "equity" for e in events)
        want = expected(events, 1)
        if not opened:  # opened in the middle of the hand: it shows that hand at once
            browser.get(url)
            opened = True
        wait_until(lambda w=want: shows(browser, w, 1), 15,
                   f"the page to show {want} (it shows {page(browser)})")
        if want["win"]:
            checked_odds += 1
            screenshot(browser, f"overlay_holdem_{checked_odds}")
        rig.table.resume()
    dealer.join(60)
    wait_until(lambda: any(e["type"] == "hand_ended" for e in sub.events()), 20, "the end")
    quiet(sub)
    assert checked_odds >= 1
    events = sorted(sub.events("events") + sub.events("secure/events"), key=lambda e: e["seq"])
    winners = {s for e in events if e["type"] == "pot_awarded" for s in e["seats"]}
    ended = next(e for e in events if e["type"] == "hand_ended")
    ranks = {e["seat"]: e["rank"] for e in events if e["type"] == "showdown" and e["tabled"]}

    def result_shown() -> bool:
        got = page(browser)
        seats = got["seats"]
        return (got["board"] == ended["board"]
                and {int(s) for s, v in seats.items() if "winner" in v["classes"]} == winners
                and all(seats[str(s["seat"])]["stack"] == f"{s['stack']:,}"
                        for s in ended["stacks"])
                and all(rank.upper() in seats[str(seat)]["tag"].upper()
                        for seat, rank in ranks.items()))

    wait_until(result_shown, 15, f"the result on the page (it shows {page(browser)})")
    screenshot(browser, "overlay_holdem_result")
    # the overlay restarts: the page reconnects by itself and shows the hand again
    before = page(browser)
    overlay.stop()
    wait_until(lambda: page(browser)["connected"] == "false", 10, "the page to notice")
    overlays(cfg, port)
    wait_until(lambda: page(browser)["connected"] == "true", 20, "the page to reconnect")
    wait_until(lambda: page(browser)["hand"] == before["hand"], 10, "the hand again")
    no_csp_breach(browser)
    assert svc.stop() == 0


@pytest.fixture
def draw_rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    r = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=5,
                        pace=0.05, chips=tmp_path / "chips.json", variant="draw5", ante=25)
    yield r
    r.close()


def test_the_page_runs_the_video_delay_behind_and_never_gets_a_hole_card_early(
        tmp_path: Path, broker: Mosquitto, draw_rig: VirtualTableRig,
        service_factory: Callable[[Path], ServiceProcess],
        overlays: Callable[[Path, int], OverlayProcess], browser: WebDriver) -> None:
    delay = 2.0
    sub = TimedSubscriber(broker.port)
    port = free_port()
    try:
        cfg, svc = start_service(
            tmp_path, draw_rig, broker, service_factory, sub,  # type: ignore[arg-type]
            extra=f'[game]\nvariant = "draw5"\nante = 25\n[broadcast]\ndelay_s = {delay}\n'
                  f"[overlay]\nport = {port}\n")
        overlays(cfg, port)
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        browser.get(f"http://127.0.0.1:{port}/?token={token_of(cfg)}&background=felt")
        wait_until(lambda: page(browser)["connected"] == "true", 10, "the page to connect")
        draw_rig.start(hands=1).join(120)
        wait_until(lambda: any(e["type"] == "hand_ended" for e in sub.events()), 30,
                   "the game to end")
        ended_at = max(t for t, _ in sub.timed())
        wait_until(lambda: time.time() > ended_at + delay + 1.5, 10, "the delay to pass")
        frames = [(t / 1000, json.loads(d)) for t, d in
                  browser.execute_script("return window.__frames")]
        arrived = sub.timed()
        assert svc.stop() == 0
    finally:
        sub.close()
    # nothing of the game before its delay: not its start, not one hole card
    start = next(t for t, e in arrived if e["type"] == "hand_started")
    first = min(t for t, f in frames if f["hand"] == 1)
    assert first >= start + delay - 0.2, (first - start)
    hole_cards = [(t, e) for t, e in arrived if e["type"] == "hole_cards"]
    assert len(hole_cards) >= 2 * len(PLAYERS) - 2  # the deal, and again after each exchange
    first: dict[tuple[int, tuple[str, ...]], float] = {}  # a seat that stands pat: same cards
    for t, e in hole_cards:
        first.setdefault((e["seat"], tuple(e["cards"])), t)
    for (seat, cards), t in first.items():
        showing = [ft for ft, f in frames
                   if any(s["seat"] == seat and s["cards"] == list(cards) for s in f["seats"])]
        assert showing, f"seat {seat}'s cards never reached the page"
        assert min(showing) >= t + delay - 0.2, (seat, min(showing) - t)
    # and once shown: five cards a seat, and what each seat drew
    drew = {e["seat"]: e["received"] for _, e in arrived if e["type"] == "draw"}
    assert drew
    got = page(browser)
    for seat, n in drew.items():
        s = got["seats"][str(seat)]
        assert s["drew"] == ("DRAWS " + str(n) if n else "STANDS PAT")
        if "folded" not in s["classes"]:
            assert len(s["cards"]) == 5 and "?" not in s["cards"]
    screenshot(browser, "overlay_draw_result")


PHOTO = ('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">'
         '<rect width="8" height="8" fill="#e91e63"/></svg>')


def photo_shown(browser: WebDriver, seat: int) -> bool:
    """Whether the seat's photo was loaded (the server answered it, the policy let it in)."""
    return bool(browser.execute_script(
        "const img = document.querySelector(`.seat[data-seat='${arguments[0]}'] .photo`);"
        "return img && !img.hidden && img.complete && img.naturalWidth > 0", seat))


def test_the_tournament_strip_shows_the_level_the_blinds_and_ante_and_the_chip_leader(
        broker: Mosquitto, browser: WebDriver, tmp_path: Path) -> None:
    (tmp_path / "ben.svg").write_text(PHOTO)
    server = overlay(broker, photos={"Ben": tmp_path / "ben.svg"})
    thread = start_in_thread(server)
    try:
        wait_until(lambda: server.linked, 10, "the overlay to subscribe")
        hole_cards(broker)
        watch_csp(browser)
        browser.get(f"{server.url(with_token=True)}&background=felt")
        wait_until(lambda: page(browser)["hand"] == "1", 10, "the hand")
        strip = "return document.getElementById('tourney').hidden"
        assert browser.execute_script(strip) is True  # no controller: no strip
        controller(broker, time.time())
        wait_until(lambda: browser.execute_script(strip) is False, 10, "the strip")
        shown = browser.execute_script(
            "return ['t-level', 't-blinds', 't-leader'].map(i => "
            "document.getElementById(i).innerText)")
        assert shown == ["LEVEL 3", "300/600 \u00b7 BB ANTE 75", "CHIP LEADER ANN 20,000"]
        screenshot(browser, "overlay_tournament")
        wait_until(lambda: photo_shown(browser, 2), 10, "Ben's photo (its URL has the token)")
        no_csp_breach(browser)
    finally:
        stop_thread(*thread)


def test_beyond_this_machine_chromium_trades_the_token_for_a_cookie_over_tls(
        broker: Mosquitto, venue_certs: Path, tmp_path: Path) -> None:
    """OBS on another machine: the URL with the token once, then a page at a URL without it,
    whose files, photos and picture come with the cookie alone (the certificate is the
    venue CA's, which this browser profile does not know: its errors are ignored)."""
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(venue_certs / "server.crt", venue_certs / "server.key")
    (tmp_path / "ben.svg").write_text(PHOTO)
    server = overlay(broker, host="0.0.0.0", hostnames=("localhost",), tls=tls,
                     photos={"Ben": tmp_path / "ben.svg"})
    thread = start_in_thread(server)
    browser = open_browser(tmp_path / "chromium-profile", flags=("--ignore-certificate-errors",))
    try:
        wait_until(lambda: server.linked, 10, "the overlay to subscribe")
        hole_cards(broker)
        watch_csp(browser)
        url = server.url(with_token=True)
        assert url.startswith(f"https://localhost:{server.port}/?token=")
        browser.get(url + "&background=felt")
        wait_until(lambda: page(browser)["hand"] == "1", 10, "the hand")
        assert browser.current_url == f"https://localhost:{server.port}/?background=felt"
        assert browser.execute_script("return document.cookie") == ""  # HttpOnly
        assert page(browser)["seats"]["2"]["cards"] == ["As", "Kd"]
        wait_until(lambda: photo_shown(browser, 2), 10, "Ben's photo, with the cookie")
        browser.refresh()  # the cookie alone opens the page again
        wait_until(lambda: page(browser)["connected"] == "true", 10, "the page to connect")
        screenshot(browser, "overlay_tls_cookie")
        no_csp_breach(browser)
    finally:
        browser.quit()
        stop_thread(*thread)


# ------------------------------------------------------------------ showdown, pot, layout
def seat_boxes(browser: WebDriver) -> dict[int, dict[str, float]]:
    """Each shown seat's panel as the screen has it (its bounding box)."""
    boxes: dict[str, dict[str, float]] = browser.execute_script("""
      const out = {};
      for (const el of document.querySelectorAll('.seat:not(.empty)')) {
        const r = el.querySelector('.panel').getBoundingClientRect();
        out[el.dataset.seat] = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
      }
      return out;""")
    return {int(s): b for s, b in boxes.items()}


def pot_visible(browser: WebDriver) -> bool:
    return bool(browser.execute_script(
        "const p = document.getElementById('pot');"
        "return getComputedStyle(p).visibility === 'visible' && p.offsetWidth > 0"))


def test_the_screen_shows_what_was_tabled_drops_the_pot_once_pushed_and_fits_six_players(
        broker: Mosquitto, browser: WebDriver) -> None:
    """Six players at a ten-seat table, a hold'em hand to the showdown where seats 1 and 4
    muck unseen and seat 6 wins 600 (the core's own events of a dealt hand): the six sit on
    the 6-seat layout across the whole screen; at the showdown the muckers' cards and hands in
    words leave the screen (the hole-card camera had shown them); after the award no pot is
    left in the middle."""
    msgs, _ = messages("holdem", hands=1, seed=1, aggression=0.0,
                       seats=dict.fromkeys(range(1, 7), 5000))
    showdowns = [m for _, m in msgs if m["type"] == "showdown"]
    mucked = {m["seat"] for m in showdowns if not m["tabled"]}
    tabled = {m["seat"]: m for m in showdowns if m["tabled"]}
    assert mucked == {1, 4} and set(tabled) == {2, 3, 6}  # the seed's hand
    first_showdown = next(i for i, (_, m) in enumerate(msgs) if m["type"] == "showdown")
    first_award = next(i for i, (_, m) in enumerate(msgs) if m["type"] == "pot_awarded")

    cfg = validate_config({"table": {"venue": "demo", "id": "t01", "seats": 10},
                           "mqtt": {"port": broker.port}}, Path("table.toml"))
    server = OverlayServer(cfg, OverlaySettings("127.0.0.1", 0, 0.0, None, TOKEN, None, None))
    thread = start_in_thread(server)
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()

    def publish(part: list[tuple[str, dict[str, Any]]]) -> None:
        for topic, m in part:
            m = {**m, "venue": "demo", "table": "t01"}
            client.publish(f"{PREFIX}/{topic}", json.dumps(m), qos=1).wait_for_publish(5)

    try:
        wait_until(lambda: server.linked, 10, "the overlay to subscribe")
        browser.get(f"{server.url(with_token=True)}&background=felt")
        wait_until(lambda: page(browser)["connected"] == "true", 10, "the page to connect")

        # the river is out, every live hand in words, the pot in the middle
        publish(msgs[:first_showdown])
        holes = {m["seat"]: m["cards"] for _, m in msgs[:first_showdown]
                 if m["type"] == "hole_cards"}
        river = [m for _, m in msgs[:first_showdown] if m["type"] == "board"][-1]
        wait_until(lambda: page(browser)["board"] == river["board"]
                   and all(page(browser)["seats"][str(s)]["cards"] == holes[s]
                           and page(browser)["seats"][str(s)]["tag"] for s in mucked),
                   15, f"the river and the muckers' cards and hands (it shows {page(browser)})")
        assert page(browser)["pot"] == "600" and pot_visible(browser)
        screenshot(browser, "overlay_showdown_1_river")

        # six players on a ten-seat table: the 6-seat layout, three a side, nothing overlaps
        boxes = seat_boxes(browser)
        assert sorted(boxes) == [1, 2, 3, 4, 5, 6]
        centres = sorted((b["left"] + b["right"]) / 2 for b in boxes.values())
        assert sum(c < 960 for c in centres) == 3 and sum(c > 960 for c in centres) == 3
        assert min(b["left"] for b in boxes.values()) < 480
        assert max(b["right"] for b in boxes.values()) > 1440
        for a in boxes:
            for b in boxes:
                if a < b:
                    one, two = boxes[a], boxes[b]
                    assert (one["right"] <= two["left"] or two["right"] <= one["left"]
                            or one["bottom"] <= two["top"] or two["bottom"] <= one["top"]), (
                        f"seats {a} and {b} overlap: {one} {two}")

        # the showdown: what was tabled stays, what was mucked unseen goes
        publish(msgs[first_showdown:first_award])

        def showdown_shown() -> bool:
            seats = page(browser)["seats"]
            return (all(seats[str(s)]["cards"] == [] and seats[str(s)]["tag"] == "MUCKS"
                        for s in mucked)
                    and all(seats[str(s)]["cards"] == m["cards"]
                            and m["rank"].upper() in seats[str(s)]["tag"].upper()
                            for s, m in tabled.items()))

        wait_until(showdown_shown, 15, f"the showdown (it shows {page(browser)})")
        for seat in mucked:
            text = browser.execute_script(
                "return document.querySelector(`.seat[data-seat='${arguments[0]}']`)"
                ".innerText", seat)
            assert not any(word in text.lower() for word in (
                "pair", "high", "flush", "straight", "kind", "house")), text
        assert pot_visible(browser)  # not pushed yet
        wait_until(lambda: all(float(browser.execute_script(
            "return getComputedStyle(document.querySelector("
            "`.seat[data-seat='${arguments[0]}']`)).opacity", seat)) < 0.5
            for seat in mucked), 10, "the muckers dimmed, as a folded seat")
        screenshot(browser, "overlay_showdown_2_tabled")

        # the award: the pot is pushed to seat 6, nothing is left in the middle
        publish(msgs[first_award:])
        wait_until(lambda: not pot_visible(browser)
                   and "winner" in page(browser)["seats"]["6"]["classes"], 15,
                   f"the pot to leave the middle (it shows {page(browser)})")
        assert browser.execute_script("return document.getElementById('pots').children.length") == 0
        screenshot(browser, "overlay_showdown_3_awarded")
    finally:
        client.loop_stop()
        client.disconnect()
        stop_thread(*thread)
