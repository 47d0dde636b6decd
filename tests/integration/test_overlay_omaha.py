"""Pot-limit Omaha on the broadcast overlay, in a real browser: four cards a seat.

A scripted Omaha hand, published to a real mosquitto as the table's service publishes one
(``hand_started`` with variant "omaha" and limit "pot-limit", four hole cards a seat on the
secure feed, the flop, the win probabilities with each live hand in words), reaches the overlay
server and a headless Chromium at 1920x1080. On the 6-, 9- and 10-seat layouts, every seat
shows its four cards, each live seat its hand in words, and the header the game; no seat's
panel runs into another's or into the board and the pot, and each card row fits its panel.
Screenshots are saved under ``build/screenshots/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium.webdriver.remote.webdriver import WebDriver

from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.config.table import validate_config
from tablesvc.overlay.server import OverlayServer, OverlaySettings, start_in_thread, stop_thread
from tests.browser import screenshot
from tests.integration.test_overlay_page import page
from tests.integration.test_overlay_server import PREFIX, TOKEN

pytestmark = pytest.mark.integration

NAMES = ("Ann", "Ben", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo")


@dataclass(frozen=True)
class Hand:
    """A hand up to its figures on the last street dealt: seats 1 to 4 play on, the others
    fold before the flop. Its figures are exact (every board left counted, no dead card:
    ``equity_dead_cards = "none"``), worked out with an Omaha evaluator."""

    variant: str
    holes: dict[int, list[str]]
    board: list[str]
    boards: int
    """How many boards the figures counted."""
    equity: list[dict[str, Any]]

    @property
    def live(self) -> set[int]:
        return {row["seat"] for row in self.equity}


OMAHA = Hand(
    "omaha",
    {1: ["As", "Ad", "Kd", "Qc"], 2: ["9c", "9d", "8s", "7s"], 3: ["Kc", "4c", "Jh", "Th"],
     4: ["Qh", "Jd", "Tc", "8h"], 5: ["6s", "5s", "3h", "2h"], 6: ["Qs", "Js", "7d", "6d"],
     7: ["Ac", "7h", "5c", "4s"], 8: ["9s", "6h", "3c", "2d"], 9: ["Ah", "Kh", "8c", "7c"],
     10: ["Qd", "Jc", "Td", "5h"]},
    ["Ks", "9h", "4d"], 528,
    [{"seat": 1, "win": 14.77, "tie": 0.0, "hand": "a pair of aces"},
     {"seat": 2, "win": 51.32, "tie": 0.0, "hand": "three of a kind, nines"},
     {"seat": 3, "win": 5.68, "tie": 4.36, "hand": "two pair, kings and fours"},
     {"seat": 4, "win": 19.51, "tie": 4.36, "hand": "king high"}])
OMAHA5 = Hand(  # five cards a seat, on the turn: the outs too, the widest row of figures
    "omaha5",
    {1: ["As", "Ad", "Kd", "Qc", "5d"], 2: ["9c", "9d", "8s", "7s", "6c"],
     3: ["Kc", "4c", "Jh", "Th", "3s"], 4: ["Qh", "Jd", "Tc", "8h", "7d"],
     5: ["6s", "5s", "3h", "2h", "Ac"], 6: ["Qs", "Js", "7h", "6d", "5c"],
     7: ["Ah", "Kh", "8c", "7c", "3d"], 8: ["Qd", "Jc", "Td", "5h", "4s"]},
    ["Ks", "9h", "4d", "2c"], 28,
    [{"seat": 1, "win": 17.86, "tie": 0.0, "hand": "a pair of aces",
      "outs": ["3h", "3d", "3c", "Ah", "Ac"]},
     {"seat": 2, "win": 57.14, "tie": 0.0, "hand": "three of a kind, nines",
      "outs": ["2s", "2h", "2d", "4s", "4h", "5s", "5h", "5c", "6s", "6h", "6d", "7h", "7c",
               "8d", "8c", "9s"]},
     {"seat": 3, "win": 3.57, "tie": 3.57, "hand": "two pair, kings and fours",
      "outs": ["Qs", "Qd", "Kh"]},
     {"seat": 4, "win": 14.29, "tie": 3.57, "hand": "king high",
      "outs": ["Ts", "Td", "Js", "Jc", "Qs", "Qd"]}])


def scripted(hand: Hand, players: int) -> list[tuple[str, dict[str, Any]]]:
    """(feed, event) of a pot-limit hand of ``players``, as the service publishes it: the
    button on the last seat, blinds 50/100; seats 3 and 4 call, the others fold, the small
    blind completes and the big blind checks; checked to the last street, where Ann bets the
    pot's 400 after its figures."""
    out: list[tuple[str, dict[str, Any]]] = []
    seq = 0
    prev: dict[str, int | None] = {"events": None, "secure/events": None}

    def add(feed: str, kind: str, **payload: Any) -> None:
        nonlocal seq
        seq += 1
        out.append((feed, {"v": 1, "venue": "demo", "table": "t01", "seq": seq,
                           "prev_seq": prev[feed], "ts": f"2026-12-01T20:{seq // 60:02d}:"
                           f"{seq % 60:02d}.000Z", "hand": 7, "type": kind, **payload}))
        prev[feed] = seq

    seats = range(1, players + 1)
    add("events", "hand_started", variant=hand.variant, limit="pot-limit", button=players,
        small_blind_seat=1, big_blind_seat=2,
        seats=[{"seat": s, "name": NAMES[s - 1], "stack": 10_000} for s in seats],
        small_blind=50, big_blind=100, ante=0, ante_mode="each", carried_pot=0)
    index = 0
    for n in range(1, len(hand.holes[1]) + 1):
        for s in seats:
            index += 1
            add("events", "card_dealt", seat=s, n=n, index=index, face_up=False)
    for s in seats:
        add("secure/events", "hole_cards", seat=s, cards=hand.holes[s])
    stacks = dict.fromkeys(seats, 10_000)
    pot = 0

    def act(seat: int, action: str, amount: int, to: int) -> None:
        nonlocal pot
        stacks[seat] -= amount
        pot += amount
        add("events", "action", seat=seat, action=action, amount=amount, to=to,
            stack=stacks[seat], pot=pot)

    act(1, "post_small_blind", 50, 50)
    act(2, "post_big_blind", 100, 100)
    for s in seats:
        if s in hand.live - {1, 2}:
            act(s, "call", 100, 100)
        elif s not in hand.live:
            act(s, "fold", 0, 0)
    act(1, "call", 50, 100)
    act(2, "check", 0, 100)
    dealt = 0
    for street, upto in (("flop", 3), ("turn", 4), ("river", 5)):
        if upto > len(hand.board):
            break
        if dealt:  # checked round
            for s in sorted(hand.live):
                act(s, "check", 0, 0)
        index += 1
        add("events", "burn", before=street, index=index)
        index += upto - dealt
        add("events", "board", street=street, cards=hand.board[dealt:upto],
            board=hand.board[:upto])
        dealt = upto
    add("secure/events", "equity", street=street, method="exact", samples=hand.boards,
        error=None, dead=0, seats=hand.equity)
    act(1, "bet", 400, 400)
    return out


def publish(broker: Mosquitto, messages: list[tuple[str, dict[str, Any]]]) -> None:
    c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    try:
        for feed, event in messages:
            c.publish(f"{PREFIX}/{feed}", json.dumps(event), qos=1).wait_for_publish(5)
    finally:
        c.loop_stop()
        c.disconnect()


def overlay(broker: Mosquitto, layout: int) -> OverlayServer:
    cfg = validate_config({"table": {"venue": "demo", "id": "t01", "seats": layout},
                           "mqtt": {"port": broker.port}}, Path("table.toml"))
    return OverlayServer(cfg, OverlaySettings("127.0.0.1", 0, 0.0, layout, TOKEN, None, None))


# every box on screen: each seat's panel, its cards with their ranks and suits, its odds;
# the board and the pot in the middle
BOXES = """
  const box = (e) => { const r = e.getBoundingClientRect();
                       return [r.left, r.top, r.right, r.bottom]; };
  const seats = {};
  for (const el of document.querySelectorAll('.seat:not(.empty)')) {
    seats[el.dataset.seat] = {
      panel: box(el.querySelector('.panel')), odds: box(el.querySelector('.odds')),
      cards: [...el.querySelectorAll('.cards .card')].map((c) => ({
        card: box(c), rank: box(c.querySelector('.r')), suit: box(c.querySelector('.s'))}))};
  }
  return {seats, board: box(document.getElementById('board')),
          pot: box(document.getElementById('pot')),
          game: document.getElementById('game').textContent,
          shown: document.getElementById('game').innerText};
"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def laid_out_apart(boxes: dict[str, Any]) -> None:
    """No panel runs into another, or into the board or the pot; each seat's cards lie in its
    panel, left of its odds, each rank and suit whole (not under the next card) and legible."""
    panels = {s: b["panel"] for s, b in boxes["seats"].items()}
    for seat, b in boxes["seats"].items():
        cards = b["cards"]
        assert b["panel"][0] < cards[0]["card"][0], seat
        assert cards[-1]["card"][2] <= b["odds"][0] <= b["odds"][2] <= b["panel"][2], (seat, b)
        for card, after in zip(cards, [*cards[1:], None], strict=True):
            for part in (card["rank"], card["suit"]):
                assert part[3] - part[1] >= 20, (seat, card)  # at least 20 px high
                assert after is None or part[2] <= after["card"][0], (seat, card)
        for other, p in panels.items():
            assert other == seat or not overlaps(b["panel"], p), (seat, other)
        assert not overlaps(b["panel"], boxes["board"]), seat
        assert not overlaps(b["panel"], boxes["pot"]), seat


@pytest.mark.parametrize(("layout", "hand", "players", "game"), [
    (6, OMAHA, 6, "Pot-limit Omaha"), (9, OMAHA, 9, "Pot-limit Omaha"),
    (10, OMAHA, 10, "Pot-limit Omaha"), (10, OMAHA5, 8, "Pot-limit five-card Omaha")],
    ids=["omaha-6", "omaha-9", "omaha-10", "omaha5-10"])
def test_omaha_shows_each_seats_cards_its_hand_in_words_and_the_game_on_every_layout(
        broker: Mosquitto, browser: WebDriver, layout: int, hand: Hand, players: int,
        game: str) -> None:
    server = overlay(broker, layout)
    thread = start_in_thread(server)
    try:
        wait_until(lambda: server.linked, 10, "the overlay to subscribe")
        publish(broker, scripted(hand, players))
        browser.get(f"{server.url(with_token=True)}&background=felt")

        def figures_shown() -> bool:
            got = page(browser)
            return got["board"] == hand.board and got["pot"] == "800" and all(
                got["seats"][str(s)]["win"] for s in hand.live)

        wait_until(figures_shown, 15, f"the figures (the page shows {page(browser)})")
        got = page(browser)
        assert sorted(got["seats"], key=int) == [str(s) for s in range(1, players + 1)]
        for seat in range(1, players + 1):
            shown = got["seats"][str(seat)]
            assert shown["cards"] == hand.holes[seat], seat  # a card element each, his own
            assert ("folded" in shown["classes"]) == (seat not in hand.live)
        for row in hand.equity:
            shown = got["seats"][str(row["seat"])]
            assert float(shown["win"]) == row["win"]
            assert shown["tag"] == row["hand"]
        screenshot(browser, f"overlay_{hand.variant}_{layout}")
        boxes = browser.execute_script(BOXES)
        assert boxes["game"] == game and boxes["shown"] == game.upper()
        laid_out_apart(boxes)
    finally:
        stop_thread(*thread)
