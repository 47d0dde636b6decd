"""The overlay's picture of the table follows the events of real hands, and the delay holds.

Hands are dealt by the virtual table and tracked by a fresh core (equity requests answered at
once, as the worker would); the events, as JSON on their feeds, are what the overlay's model
reads. What it shows is checked against the events themselves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tablesvc.core.cards import DeckRegistry
from tablesvc.core.inputs import EquityResult, format_ts
from tablesvc.core.table import Player, TableCore, TableSettings
from tablesvc.equity import compute
from tablesvc.overlay.delay import DelayLine
from tablesvc.overlay.model import DEALS, TableView
from tests.helpers import DEVICES, Script

SEATS = {1: 3000, 2: 8000, 4: 1500, 6: 5000, 9: 8000}


def messages(variant: str = "holdem", hands: int = 8, snapshot_at: int | None = None,
             seed: int = 8, aggression: float = 0.6, seats: Mapping[int, int] = SEATS,
             **table: Any
             ) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any] | None]:
    """(topic, message) in publication order; and the retained state at one input."""
    ante = 25 if variant == "draw5" else 0
    t, frames = recorded_table(seats, seed=seed, variant=variant, ante=ante, button=min(seats),
                               aggression=aggression, all_in_share=0.4, **table)
    t.run(hands=hands)
    core = TableCore(TableSettings(venue="v", table="t9", devices=dict(DEVICES),
                                   variant=variant, ante=ante),
                     DeckRegistry({"SIM": t.deck}), t.chip_values,
                     [Player(s, f"P{s}", st) for s, st in seats.items()])
    script = Script()
    out: list[tuple[str, dict[str, Any]]] = []
    state = None

    def publish(events: list[ev.Event]) -> None:
        for e in events:
            out.append(("secure/events" if e.FEED == "secure" else "events",
                        json.loads(e.model_dump_json())))

    publish(core.apply(script.cmd("button", seat=min(seats))).events)
    for i, (dev, raw) in enumerate(frames):
        o = core.apply(script.raw(dev, raw.decode().rstrip("\r\n")))
        publish(o.events)
        for req in o.work:
            publish(core.apply(EquityResult(format_ts(script.ms), script.ms, req.hand,
                                            req.version, compute(req))).events)
        if i == snapshot_at:
            state = json.loads(json.dumps(core.snapshot()))
    return out, state


def test_after_each_hand_the_picture_has_the_stacks_the_winners_and_the_board() -> None:
    view = TableView()
    msgs, _ = messages()
    for topic, m in msgs:
        view.apply(topic, m)
        if m["type"] == "pot_awarded":
            picture = view.view()
            winners = {s["seat"] for s in picture["seats"] if s["winner"]}
            assert set(m["seats"]) <= winners
        if m["type"] == "hand_ended":
            picture = view.view()
            assert {s["seat"]: s["stack"] for s in picture["seats"] if s["in_hand"]} == {
                s["seat"]: s["stack"] for s in m["stacks"]}
            assert picture["board"] == m["board"]
            assert not picture["in_hand"]


def test_side_pots_on_screen_are_the_pots_the_table_awards() -> None:
    view = TableView()
    msgs, _ = messages(hands=12, seed=5)  # a seed whose all-ins make several side pots
    side_pots = 0
    for i, (topic, m) in enumerate(msgs):
        if m["type"] == "pot_awarded" and msgs[i - 1][1]["type"] != "pot_awarded":
            awards = []
            for _, later in msgs[i:]:
                if later["type"] != "pot_awarded":
                    break
                awards.append((later["pot"], later["amount"], set(later["seats"])))
            shown = [(p["name"], p["amount"], set(p["seats"])) for p in view.pots()]
            assert [(n, a) for n, a, _ in shown] == [(n, a) for n, a, _ in awards]
            for (_, _, eligible), (_, _, winners) in zip(shown, awards, strict=True):
                assert winners <= eligible
            side_pots += len(shown) > 1
        view.apply(topic, m)
    assert side_pots >= 2, "the seed deals hands with side pots"


def test_hole_cards_and_win_probabilities_are_shown_until_the_next_card_or_fold() -> None:
    view = TableView()
    msgs, _ = messages(hands=3)
    for topic, m in msgs:
        view.apply(topic, m)
        seats = {s["seat"]: s for s in view.view()["seats"]}
        if m["type"] == "hole_cards":
            assert seats[m["seat"]]["cards"] == m["cards"]
        if m["type"] == "equity":
            for row in m["seats"]:
                assert seats[row["seat"]]["win"] == row["win"]
                assert seats[row["seat"]]["outs"] == (
                    len(row["outs"]) if row.get("outs") is not None else None)
        if m["type"] in ("board", "hand_ended") or (
                m["type"] == "action" and m["action"] == "fold"):
            assert all(s["win"] is None for s in seats.values())  # stale figures never stay


def test_a_picture_started_mid_hand_shows_that_hand_from_the_retained_state() -> None:
    _, state = messages(hands=2, snapshot_at=40)
    assert state is not None and state["in_hand"]
    view = TableView()
    assert view.apply("state", state)
    picture = view.view()
    assert picture["hand"] == state["hand"] and picture["in_hand"]
    assert picture["board"] == state["board"] and picture["pot"] == state["pot"]
    assert {s["seat"] for s in picture["seats"] if s["in_hand"] and not s["folded"]} == set(
        state["active"])


def test_five_card_draw_shows_five_cards_and_what_each_seat_drew() -> None:
    view = TableView()
    msgs, _ = messages("draw5", hands=5)
    drew: dict[int, int] = {}
    checked = 0
    for topic, m in msgs:
        view.apply(topic, m)
        if m["type"] == "hand_started":
            drew = {}
        if m["type"] == "draw":
            drew[m["seat"]] = m["received"]
        if m["type"] == "showdown":
            seats = {s["seat"]: s for s in view.view()["seats"]}
            assert {s: seats[s]["drew"] for s in drew} == drew
            assert all(len(seats[s]["cards"] or []) == 5 for s in drew if not seats[s]["folded"])
            checked += 1
    assert checked


def test_a_message_sent_twice_counts_once() -> None:
    view = TableView()
    msgs, _ = messages(hands=1)
    for topic, m in msgs:
        view.apply(topic, m)
        first = view.view()
        assert not view.apply(topic, m)
        assert view.view() == first


def test_the_delay_line_releases_each_item_its_delay_after_it_arrived_in_order() -> None:
    line: DelayLine[str] = DelayLine(2.0)
    line.push("a", 10.0)
    line.push("b", 10.5)
    line.push("c", 10.4)  # a clock that stepped back: still after b
    assert line.due(11.99) == []
    assert line.next_due() == 12.0
    assert line.due(12.0) == ["a"]
    assert line.due(12.5) == ["b", "c"]
    assert len(line) == 0 and line.next_due() is None
    with pytest.raises(ValueError):
        DelayLine(-1)


def test_the_tournament_strip_follows_the_controllers_clock_and_field() -> None:
    view = TableView()
    assert view.view()["tournament"] is None
    level = {"number": 4, "small_blind": 400, "big_blind": 800, "ante": 100,
             "ante_mode": "each", "minutes": 20}
    view.apply("tournament/field", {"players_left": 31, "chip_leader": {
        "player": "p007", "name": "Dana", "stack": 81200, "table": "t02", "seat": 4}})
    assert view.view()["tournament"] is None  # no clock yet: no strip
    view.apply("tournament/clock", {"name": "Sunday", "level": level, "on_break": None,
                                    "next_level": None, "running": True})
    strip = view.view()["tournament"]
    assert strip["level"] == {k: level[k] for k in ("number", "small_blind", "big_blind",
                                                     "ante", "ante_mode")}
    assert strip["leader"] == {"name": "Dana", "stack": 81200}
    assert strip["players_left"] == 31 and strip["on_break"] is None
    view.apply("tournament/clock", {"level": level, "next_level": {**level, "number": 5},
                                    "on_break": {"after_level": 4, "minutes": 10,
                                                 "name": "Dinner"}})
    strip = view.view()["tournament"]
    assert strip["on_break"] == "Dinner" and strip["next_level"]["number"] == 5


def omaha_events(variant: str, cards: int) -> list[tuple[str, dict[str, Any]]]:
    """(topic, event) of the deal of a three-handed pot-limit hand of ``variant`` in which
    each seat is dealt ``cards`` cards, then a flop and its figures."""
    holes = {1: ["As", "Ad", "Kd", "Qc", "5d", "2s"], 2: ["9c", "9d", "8s", "7s", "6c", "2h"],
             3: ["Kc", "4c", "Jh", "Th", "3s", "2d"]}
    out: list[tuple[str, dict[str, Any]]] = []

    def add(topic: str, kind: str, **payload: Any) -> None:
        out.append((topic, {"seq": len(out) + 1, "venue": "v", "table": "t9", "hand": 3,
                            "type": kind, **payload}))

    add("events", "hand_started", variant=variant, limit="pot-limit", button=3,
        seats=[{"seat": s, "name": f"P{s}", "stack": 1000} for s in holes],
        small_blind=5, big_blind=10, ante=0)
    for n in range(1, cards + 1):
        for s in holes:
            add("events", "card_dealt", seat=s, n=n, index=len(out), face_up=False)
    for s, hole in holes.items():
        add("secure/events", "hole_cards", seat=s, cards=hole[:cards])
    add("events", "board", street="flop", cards=["Ks", "9h", "4d"], board=["Ks", "9h", "4d"])
    add("secure/events", "equity", street="flop", method="exact", samples=741, error=None,
        dead=0, seats=[{"seat": 1, "win": 20.0, "tie": 0.0, "hand": "a pair of aces"},
                       {"seat": 2, "win": 70.0, "tie": 0.0, "hand": "three of a kind, nines"},
                       {"seat": 3, "win": 10.0, "tie": 0.0,
                        "hand": "two pair, kings and fours"}])
    return out


@pytest.mark.parametrize(("variant", "cards", "game"), [
    ("omaha", 4, "Pot-limit Omaha"), ("omaha5", 5, "Pot-limit five-card Omaha"),
    ("omaha6", 6, "Pot-limit omaha6")])  # a game this overlay does not know yet
def test_omaha_shows_the_cards_each_seat_was_dealt_its_hand_in_words_and_the_game(
        variant: str, cards: int, game: str) -> None:
    view = TableView()
    msgs = omaha_events(variant, cards)
    dealt = 0
    for topic, m in msgs:
        view.apply(topic, m)
        picture = view.view()
        seats = {s["seat"]: s for s in picture["seats"]}
        if m["type"] == "hand_started":  # before the first board, whatever the game
            assert picture["street"] == "preflop" or variant not in DEALS
            assert picture["game"] == game and picture["limit"] == "pot-limit"
        if m["type"] == "card_dealt":
            dealt += 1
            assert seats[m["seat"]]["down"] == m["n"]  # the backs the deal has put down
        if m["type"] == "hole_cards":
            assert seats[m["seat"]]["cards"] == m["cards"] and len(m["cards"]) == cards
    assert dealt == 3 * cards
    assert picture["street"] == "flop" and picture["board"] == ["Ks", "9h", "4d"]
    assert {s["seat"]: (s["down"], s["hand"]) for s in picture["seats"]} == {
        1: (cards, "a pair of aces"), 2: (cards, "three of a kind, nines"),
        3: (cards, "two pair, kings and fours")}


def test_a_picture_started_mid_hand_shows_as_many_backs_as_the_game_deals() -> None:
    state = {"hand": 4, "variant": "omaha", "in_hand": True, "button": 1, "street": "flop",
             "level": {"number": None, "small_blind": 5, "big_blind": 10, "ante": 0,
                       "ante_mode": "each", "limit": "pot-limit"},
             "board": ["Ks", "9h", "4d"], "active": [1, 3], "pot": 60,
             "players": [{"seat": s, "name": f"P{s}", "stack": 1000} for s in (1, 2, 3)]}
    view = TableView()
    view.apply("state", state)
    picture = view.view()
    assert picture["game"] == "Pot-limit Omaha"
    assert {s["seat"]: s["down"] for s in picture["seats"]} == {1: 4, 2: 0, 3: 4}
    # a game not listed: no backs rather than a wrong number, and its name as its id
    later = TableView()
    later.apply("state", {**state, "variant": "badugi", "level": {"limit": "fixed-limit"}})
    picture = later.view()
    assert picture["game"] == "Fixed-limit badugi"
    assert [s["down"] for s in picture["seats"]] == [0, 0, 0]
    assert [s["in_hand"] for s in picture["seats"]] == [True, False, True]


def test_a_game_not_listed_takes_its_first_street_from_its_figures_and_draws_from_draw() -> None:
    view = TableView()
    view.apply("events", {"seq": 1, "type": "hand_started", "variant": "triple_draw",
                          "limit": "fixed-limit", "seats": [{"seat": 1, "name": "A",
                                                             "stack": 100}]})
    assert view.view()["street"] is None
    view.apply("secure/events", {"seq": 2, "type": "equity", "street": "predraw",
                                 "seats": [{"seat": 1, "win": None, "hand": "king high"}]})
    assert view.view()["street"] == "predraw"
    view.apply("events", {"seq": 3, "type": "draw", "seat": 1, "discarded": 2, "received": 2})
    assert view.view()["street"] == "draw"


# ------------------------------------------------------------------ what a TV picture keeps
@pytest.mark.parametrize(("variant", "seed", "aggression"), [("holdem", 1, 0.0),
                                                              ("omaha", 7, 0.6)])
def test_a_hand_mucked_unseen_at_the_showdown_leaves_the_picture(
        variant: str, seed: int, aggression: float) -> None:
    """The hole-card camera showed it during the hand; at the showdown the picture shows only
    what was tabled: a seat that mucks unseen has no cards and no hand in words left."""
    view = TableView()
    msgs, _ = messages(variant, hands=4, seed=seed, aggression=aggression)
    mucked: set[int] = set()
    mucks = 0
    for topic, m in msgs:
        before = {s["seat"]: s for s in view.view()["seats"]}
        view.apply(topic, m)
        seats = {s["seat"]: s for s in view.view()["seats"]}
        if m["type"] == "showdown" and not m["tabled"]:
            assert before[m["seat"]]["cards"], "the secure feed had shown the seat's cards"
            assert seats[m["seat"]]["cards"] is None and seats[m["seat"]]["down"] == 0
            assert seats[m["seat"]]["hand"] is None and seats[m["seat"]]["mucked"]
            mucked.add(m["seat"])
            mucks += 1
        if m["type"] == "showdown" and m["tabled"]:
            assert seats[m["seat"]]["cards"] == m["cards"] and not seats[m["seat"]]["mucked"]
            assert seats[m["seat"]]["hand"] == m["rank"]
        if m["type"] == "hand_started":
            mucked.clear()
        for seat in mucked:  # and it stays so until the next hand
            assert seats[seat]["cards"] is None and seats[seat]["hand"] is None
    assert mucks >= 1, "the seed deals a hand mucked unseen"


@pytest.mark.parametrize(("variant", "seed", "aggression"), [
    ("holdem", 5, 0.6),  # side pots
    ("draw5", 2, 0.6),  # games checked out: their pot stays in the middle
])
def test_the_pot_leaves_the_middle_once_pushed_to_its_winners(
        variant: str, seed: int, aggression: float) -> None:
    view = TableView()
    msgs, _ = messages(variant, hands=6, seed=seed, aggression=aggression)
    awards = carried = 0
    for i, (topic, m) in enumerate(msgs):
        before = view.view()
        view.apply(topic, m)
        picture = view.view()
        if m["type"] == "pot_awarded":
            awards += 1
            # that pot is gone from the middle, the others (not yet pushed) stay
            assert m["pot"] in [p["name"] for p in before["pots"]]
            assert m["pot"] not in [p["name"] for p in picture["pots"]]
            assert picture["pot"] == sum(p["amount"] for p in picture["pots"])
            rest = next(n for _, n in msgs[i + 1:] if n["type"] in ("pot_awarded",
                                                                     "hand_ended"))
            if rest["type"] == "hand_ended":  # the hand's last award: nothing is left
                assert picture["pot"] == 0 and picture["pots"] == []
                assert all(s["bet"] == 0 for s in picture["seats"])
        if m["type"] == "hand_ended":
            assert picture["pot"] == m["carried_pot"]
            assert picture["pots"] == ([{"name": "main", "amount": m["carried_pot"],
                                         "seats": []}] if m["carried_pot"] else [])
            carried += m["carried_pot"] > 0
    assert awards >= 4
    assert carried or variant != "draw5", "the seed checks a game out"


def started(seq: int, seats: list[int], hand: int = 1) -> dict[str, Any]:
    return {"seq": seq, "hand": hand, "type": "hand_started", "variant": "holdem",
            "limit": "no-limit", "button": seats[0],
            "seats": [{"seat": s, "name": f"P{s}", "stack": 1000} for s in seats]}


def places(view: TableView) -> tuple[int, dict[int, int]]:
    picture = view.view()
    return picture["layout"], {s["seat"]: s["place"] for s in picture["seats"]}


def test_the_layout_fits_the_players_seated_at_the_hands_start() -> None:
    view = TableView(table_seats=10)
    assert places(view) == (10, {})  # nobody yet: the table's size
    view.apply("events", started(1, [1, 2, 3, 4, 5, 6]))
    assert places(view) == (6, {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5})
    # six players anywhere around ten seats: their order clockwise, one place each
    view = TableView(table_seats=10)
    view.apply("events", started(1, [1, 3, 5, 7, 9, 10]))
    layout, placed = places(view)
    assert layout == 6 and list(placed.values()) == [0, 1, 2, 3, 4, 5]
    # fewer than the layout's places: spread evenly, never two in one place
    for seats, size in (([2, 8], 6), ([1, 4, 6, 9], 6), ([1, 2, 3, 4, 5, 6, 7], 9),
                        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10)):
        view = TableView(table_seats=10)
        view.apply("events", started(1, seats))
        layout, placed = places(view)
        assert layout == size
        order = [placed[s] for s in sorted(seats)]
        assert order == sorted(set(order)) and order[0] >= 0 and order[-1] < size, placed
    assert places(view)[1] == {s: s - 1 for s in range(1, 11)}


def test_the_layout_is_kept_for_the_hand_and_counts_the_players_sitting_it_out() -> None:
    view = TableView(table_seats=10)
    view.apply("events", started(1, [1, 2, 3, 4, 5, 6, 7]))
    assert places(view)[0] == 9
    # seat 7 sits the next hand out: still seated, still in the picture, still in the count
    view.apply("events", started(2, [1, 2, 3, 4, 5, 6], hand=2))
    assert places(view)[0] == 9 and len(places(view)[1]) == 7
    # the retained state between hands names who is seated: the picture fits them
    view.apply("events", {"seq": 3, "hand": 2, "type": "hand_ended", "reason": "uncontested",
                          "stacks": [], "board": [], "cards_used": 4})
    view.apply("state", {"hand": 3, "in_hand": False, "variant": "holdem",
                         "players": [{"seat": s, "name": f"P{s}", "stack": 1000}
                                     for s in (2, 5, 8)]})
    assert places(view) == (6, {2: 0, 5: 2, 8: 4})


def test_a_layout_configured_is_kept_and_seat_n_takes_place_n() -> None:
    view = TableView(layout=10, table_seats=10)
    view.apply("events", started(1, [1, 2, 3, 4, 5, 6]))
    assert places(view) == (10, {s: s - 1 for s in range(1, 7)})
    nine = TableView(layout=9, table_seats=9)
    nine.apply("events", started(1, [2, 5]))
    assert places(nine) == (9, {2: 1, 5: 4})
