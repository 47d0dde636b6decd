"""The controller's aggregate: the director's actions and the tables' word in, commands out.

The tables are given here as the service says things on the wire (its retained ``status``
and ``state``, its ``hand_started``/``hand_ended`` events, its replies); the end-to-end test
runs the real services.
"""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.tournament.structure import parse_structure
from tablesvc.tournament.tournament import ActionError, Send, Tournament

STRUCTURE = parse_structure({
    "name": "Test", "game": "holdem", "limit": "no-limit", "starting_stack": 1000,
    "levels": [{"level": 1, "small_blind": 5, "big_blind": 10, "minutes": 10},
               {"level": 2, "small_blind": 10, "big_blind": 20, "minutes": 10},
               {"level": 3, "small_blind": 15, "big_blind": 30, "minutes": 10}],
    "breaks": [{"after_level": 2, "minutes": 5}],
    "payouts": {"percent": [70, 30], "buy_in": 100},
}, "test.toml")
T0 = 1_800_000_000.0


def tournament(tables: dict[str, int] | None = None, variant: int = 1) -> Tournament:
    return Tournament("Test", "demo", STRUCTURE, tables or {"t01": 6, "t02": 6}, variant)


class Tables:
    """The tables' side as the controller hears it: what they were sent, they do (between
    hands), and say so in their retained state."""

    def __init__(self, t: Tournament) -> None:
        self.t = t
        self.seats: dict[str, dict[int, dict[str, Any]]] = {k: {} for k in t.tables}
        self.in_hand: dict[str, set[int]] = {k: set() for k in t.tables}
        self.levels: dict[str, int] = {}
        self.seq: dict[str, int] = {k: 0 for k in t.tables}
        self.hand: dict[str, int] = {k: 0 for k in t.tables}
        self.refused: list[Send] = []

    def online(self, *tables: str, boot: int = 1) -> None:
        for k in tables:
            self.t.table_status(k, {"state": "online", "boot": boot})
            self.publish(k)

    def publish(self, k: str) -> None:
        self.t.table_state(k, {
            "variant": "holdem", "in_hand": bool(self.in_hand[k]), "button": None,
            "active": sorted(self.in_hand[k]),
            "players": [{"seat": s, "name": p["name"], "stack": p["stack"]}
                        for s, p in sorted(self.seats[k].items())]})

    def carry_out(self, sends: list[Send]) -> None:
        for s in sends:
            seats = self.seats[s.table]
            ok, error = True, None
            if s.cmd == "seat":
                seats[s.body["seat"]] = {"name": s.body["name"], "stack": s.body["stack"]}
            elif s.cmd == "unseat":
                if s.body["seat"] in self.in_hand[s.table]:
                    ok, error = False, f"seat {s.body['seat']} has a live hand"
                    self.refused.append(s)
                else:
                    seats.pop(s.body["seat"], None)
            elif s.cmd == "configure":
                self.levels[s.table] = s.body["level"]
            self.t.reply(s.table, s.cmd, {"request_id": s.body["request_id"], "ok": ok,
                                          "error": error}, T0)
            self.publish(s.table)

    def run(self, now: float) -> list[Send]:
        sends = self.t.reconcile(now)
        self.carry_out(sends)
        return sends

    def start_hand(self, k: str, button: int) -> None:
        self.hand[k] += 1
        self.in_hand[k] = set(self.seats[k])
        self.seq[k] += 1
        self.t.table_event(k, {"type": "hand_started", "seq": self.seq[k],
                               "hand": self.hand[k], "button": button,
                               "small_blind_seat": None, "big_blind_seat": None,
                               "seats": [{"seat": s, "name": p["name"], "stack": p["stack"]}
                                         for s, p in sorted(self.seats[k].items())]}, T0)
        self.publish(k)

    def end_hand(self, k: str, stacks: dict[int, int], now: float = T0) -> None:
        for s, v in stacks.items():
            self.seats[k][s]["stack"] = v
        self.in_hand[k] = set()
        self.seq[k] += 1
        self.t.table_event(k, {"type": "hand_ended", "seq": self.seq[k], "hand": self.hand[k],
                               "reason": "showdown",
                               "stacks": [{"seat": s, "name": p["name"], "stack": p["stack"]}
                                          for s, p in sorted(self.seats[k].items())]}, now)
        for s in [s for s, p in self.seats[k].items() if p["stack"] == 0]:
            del self.seats[k][s]  # the service lets a player with no chips go
        self.publish(k)


def drawn(n: int = 8, tables: dict[str, int] | None = None,
          variant: int = 1) -> tuple[Tournament, Tables]:
    t = tournament(tables, variant)
    for i in range(n):
        t.act({"action": "register", "name": f"Player {i}"}, T0)
    t.act({"action": "draw", "seed": 7}, T0)
    room = Tables(t)
    room.online(*t.tables)
    t.act({"action": "start"}, T0)
    room.run(T0)
    return t, room


def player(t: Tournament, name: str) -> Any:
    return next(p for p in t.players.values() if p.name == name)


def test_the_draw_seats_every_player_at_the_tables_with_the_starting_stack() -> None:
    _t, room = drawn(8)
    seated = {p["name"]: p["stack"] for k in room.seats for p in room.seats[k].values()}
    assert seated == {f"Player {i}": 1000 for i in range(8)}
    assert sorted(len(s) for s in room.seats.values()) == [4, 4]
    assert room.levels == {"t01": 1, "t02": 1}


def test_nothing_is_sent_again_once_the_tables_have_taken_it() -> None:
    _t, room = drawn(8)
    assert room.run(T0 + 1) == []
    assert room.run(T0 + 60) == []


def test_a_level_change_reaches_every_table_and_an_offline_table_gets_it_when_back() -> None:
    t, room = drawn(8)
    t.table_status("t02", {"state": "offline"})
    sends = room.run(T0 + 10 * 60 + 0.5)  # level 1 is over
    assert [(s.table, s.cmd, s.body["level"], s.body["big_blind"]) for s in sends] == [
        ("t01", "configure", 2, 20)]
    assert room.run(T0 + 10 * 60 + 1) == []
    room.online("t02", boot=1)
    sends = room.run(T0 + 10 * 60 + 2)
    assert [(s.table, s.body["level"]) for s in sends] == [("t02", 2)]
    assert room.levels == {"t01": 2, "t02": 2}


def test_a_restarted_table_is_sent_the_level_again() -> None:
    _t, room = drawn(8)
    room.levels.clear()
    room.online("t01", boot=2)
    sends = room.run(T0 + 5)
    assert [(s.table, s.cmd) for s in sends] == [("t01", "configure")]


def test_a_break_keeps_the_level_before_it_and_sends_nothing() -> None:
    t, room = drawn(8)
    room.run(T0 + 10 * 60 + 1)
    assert room.run(T0 + 20 * 60 + 1) == []  # the break after level 2
    assert t.view(T0 + 20 * 60 + 1)["clock"]["on_break"] is not None
    sends = room.run(T0 + 25 * 60 + 1)
    assert {(s.table, s.body["level"]) for s in sends} == {("t01", 3), ("t02", 3)}


def test_a_move_waits_for_the_players_hand_then_carries_his_stack() -> None:
    t, room = drawn(8)
    p = player(t, room.seats["t01"][min(room.seats["t01"])]["name"])
    from_seat = p.seat
    free = next(s for s in range(1, 7) if s not in room.seats["t02"])
    room.start_hand("t01", button=from_seat)
    t.act({"action": "move", "player": p.player, "table": "t02", "seat": free}, T0)
    assert room.run(T0 + 1) == []  # his hand is live: nothing yet
    assert room.refused == []
    room.end_hand("t01", {from_seat: 1234})
    room.run(T0 + 2)  # unseated at t01
    room.run(T0 + 3)  # seated at t02
    assert from_seat not in room.seats["t01"]
    assert room.seats["t02"][free] == {"name": p.name, "stack": 1234}
    room.run(T0 + 4)
    assert t.view(T0 + 4)["moves"] == []


def test_a_move_cancelled_before_the_player_left_leaves_him_where_he_was() -> None:
    t, room = drawn(8)
    seat = min(room.seats["t01"])
    p = player(t, room.seats["t01"][seat]["name"])
    room.start_hand("t01", button=seat)
    free = next(s for s in range(1, 7) if s not in room.seats["t02"])
    move = t.act({"action": "move", "player": p.player, "table": "t02", "seat": free},
                 T0)[0]["move"]
    t.act({"action": "cancel_move", "id": move}, T0)
    room.end_hand("t01", {})
    room.run(T0 + 2)
    assert room.seats["t01"][seat]["name"] == p.name
    assert free not in room.seats["t02"]


def test_two_players_busted_in_one_hand_place_by_their_starting_stacks() -> None:
    t, room = drawn(6, {"t01": 6})
    seats = sorted(room.seats["t01"])
    room.seats["t01"][seats[0]]["stack"] = 300
    room.seats["t01"][seats[1]]["stack"] = 500
    room.start_hand("t01", button=seats[2])
    a, b = (room.seats["t01"][s]["name"] for s in seats[:2])
    room.end_hand("t01", {seats[0]: 0, seats[1]: 0, seats[2]: 1800})
    busts = {x["name"]: x["place"] for x in t.view(T0)["busts"]}
    assert busts == {b: 5, a: 6}  # 500 started bigger than 300: the better place
    assert t.view(T0)["field"]["players_left"] == 4


def test_the_last_player_standing_wins_and_the_prizes_follow_the_places() -> None:
    t, room = drawn(3, {"t01": 6})
    seats = sorted(room.seats["t01"])
    room.start_hand("t01", button=seats[0])
    room.end_hand("t01", {seats[0]: 0, seats[1]: 3000, seats[2]: 0})
    view = t.view(T0)
    places = {p["name"]: (p["place"], p["prize"]) for p in view["players"]}
    winner = room.seats["t01"][seats[1]]["name"]
    assert places[winner] == (1, 210)  # 70 % of 3 x 100
    # equal starting stacks tie for second: they share what places 2 and 3 pay (90 + 0)
    assert sorted(v for v in places.values() if v[0] != 1) == [(2, 45), (2, 45)]


@pytest.mark.rules("TABLE-03")
def test_unbalanced_tables_raise_one_suggestion_which_the_director_carries_out() -> None:
    t, room = drawn(8)
    # two busts at t02 leave 4 against 2
    seats = sorted(room.seats["t02"])
    room.start_hand("t02", button=seats[0])
    room.end_hand("t02", {seats[0]: 0, seats[1]: 0, seats[2]: 2000, seats[3]: 2000})
    room.run(T0 + 1)
    room.run(T0 + 2)
    suggestions = [a for a in t.alerts if a.name == "balancing_move_suggestion"]
    assert len(suggestions) == 1 and suggestions[0].rule == "TABLE-03"
    view = t.view(T0 + 2)
    (s,) = view["suggestions"]
    assert s["from"][0] == "t01" and s["to"][0] == "t02"
    t.act({"action": "accept_suggestion", "id": s["id"]}, T0 + 3)
    room.run(T0 + 4)
    room.run(T0 + 5)
    assert sorted(len(x) for x in room.seats.values()) == [3, 3]
    assert t.view(T0 + 6)["suggestions"] == []


@pytest.mark.rules("TABLE-04", "TABLE-03")
def test_variant_two_moves_the_under_the_gun_player_to_the_seat_next_to_be_big_blind() -> None:
    """TABLE-04 (A-34) through the aggregate, worked by hand from the seed's sentence: "der
    Spieler nach dem BigBlind (UTG) vom volleren Tisch" goes to "den Platz an weitesten vom
    BigBlind", read as the free seat that gets the big blind soonest, never the small blind's
    and never between the button and the small blind.

    The draw (seed 7) seats t01 at 1, 2, 3 and 5, t02 at 1, 2, 4 and 5 (six seats each).
    t01's last hand had the button on 1: small blind 2, big blind 3, so under the gun is the
    first occupied seat after 3, seat 5 (seat 4 is empty). t02's last hand had the button on
    4 and busted seats 1 and 5: 4 players against 2. From its button 4 the small blind is the
    next occupied seat, 2, and the big blind the next, 4. Seats 5, 6 and 1 lie between the
    button and the small blind (TABLE-02), so of the free seats 1, 3, 5 and 6 only seat 3 may
    be taken: seat 5 of t01 moves to seat 3 of t02. Variant 1 (TABLE-03) on the same tables
    picks another player: seat 3 is 5 seats clockwise from t02's big blind, and 5 seats from
    t01's big blind 3 is seat 2."""
    picked: dict[int, list[Any]] = {}
    for variant, rule in ((2, "TABLE-04"), (1, "TABLE-03")):
        t, room = drawn(8, variant=variant)
        assert {k: sorted(v) for k, v in room.seats.items()} == {"t01": [1, 2, 3, 5],
                                                                 "t02": [1, 2, 4, 5]}
        room.start_hand("t01", button=1)
        room.end_hand("t01", {})
        room.start_hand("t02", button=4)
        room.end_hand("t02", {1: 0, 5: 0, 2: 2000, 4: 2000})
        room.run(T0 + 1)
        alerts = [(a.name, a.rule, a.severity) for a in t.alerts]
        assert alerts == [("balancing_move_suggestion", rule, "info")]
        (s,) = t.view(T0 + 1)["suggestions"]
        assert (s["rule"], s["to"]) == (rule, ["t02", 3])
        picked[variant] = s["from"]
        if variant == 2:
            moving = s["name"]
            t.act({"action": "accept_suggestion", "id": s["id"]}, T0 + 2)
            room.run(T0 + 3)
            room.run(T0 + 4)
            assert room.seats["t02"][3] == {"name": moving, "stack": 1000}
            assert 5 not in room.seats["t01"]
    assert picked == {2: ["t01", 5], 1: ["t01", 2]}


def test_a_dismissed_suggestion_is_not_raised_again() -> None:
    t, room = drawn(8)
    seats = sorted(room.seats["t02"])
    room.start_hand("t02", button=seats[0])
    room.end_hand("t02", {seats[0]: 0, seats[1]: 0, seats[2]: 2000, seats[3]: 2000})
    room.run(T0 + 1)
    (s,) = t.view(T0 + 1)["suggestions"]
    t.act({"action": "dismiss_suggestion", "id": s["id"]}, T0 + 2)
    room.run(T0 + 3)
    assert t.view(T0 + 3)["suggestions"] == []
    assert len([a for a in t.alerts if a.name == "balancing_move_suggestion"]) == 1


def test_breaking_a_table_moves_its_players_and_closes_it() -> None:
    t, room = drawn(6, {"t01": 6, "t02": 6, "t03": 6})
    t.act({"action": "break_table", "table": "t03"}, T0 + 1)
    for i in range(3):
        room.run(T0 + 2 + i)
    assert room.seats["t03"] == {}
    assert sorted(len(x) for x in room.seats.values()) == [0, 3, 3]
    assert not t.tables["t03"].open


@pytest.mark.rules("TABLE-07")
def test_the_same_player_at_two_tables_is_one_critical_alert() -> None:
    t, room = drawn(8)
    name = room.seats["t01"][min(room.seats["t01"])]["name"]
    free = next(s for s in range(1, 7) if s not in room.seats["t02"])
    room.seats["t02"][free] = {"name": name, "stack": 1000}  # seated by hand at a second table
    room.publish("t02")
    room.run(T0 + 1)
    room.run(T0 + 2)
    twice = [a for a in t.alerts if a.severity in ("warning", "critical")]
    assert [(a.name, a.rule, a.severity) for a in twice] == [
        ("player_seated_twice", "TABLE-07", "critical")]


@pytest.mark.rules("SEAT-06")
def test_no_show_stacks_are_due_for_removal_at_the_end_of_level_two() -> None:
    t, room = drawn(8)
    p = player(t, room.seats["t01"][min(room.seats["t01"])]["name"])
    t.act({"action": "no_show", "player": p.player}, T0)
    room.run(T0 + 10 * 60 + 1)
    assert not [a for a in t.alerts if a.name == "no_show_stack_removal_due"]
    room.run(T0 + 25 * 60 + 1)  # level 3 after the break
    room.run(T0 + 25 * 60 + 2)
    due = [a for a in t.alerts if a.name == "no_show_stack_removal_due"]
    assert [(a.rule, a.severity, a.player) for a in due] == [("SEAT-06", "info", p.player)]


def test_actions_not_allowed_now_are_refused_with_the_reason() -> None:
    t, room = drawn(8)
    with pytest.raises(ActionError, match="unknown action"):
        t.act({"action": "shuffle"}, T0)
    with pytest.raises(ActionError, match="registered already"):
        t.act({"action": "register", "name": "Player 1"}, T0)
    with pytest.raises(ActionError, match="taken"):
        p = player(t, room.seats["t01"][min(room.seats["t01"])]["name"])
        t.act({"action": "move", "player": p.player, "table": "t02",
               "seat": min(room.seats["t02"])}, T0)
    with pytest.raises(ActionError, match="control or format characters"):
        t.act({"action": "register", "name": "Eve\u0000"}, T0)
    with pytest.raises(ActionError, match="control or format characters"):
        t.act({"action": "register", "name": "\u202eEve"}, T0)  # a right-to-left override


def test_replaying_the_journal_rebuilds_the_tournament() -> None:
    t, _room = drawn(8)
    journal: list[tuple[float, dict[str, Any]]] = []
    fresh = tournament()
    for i in range(8):
        journal.append((T0, {"op": "act", "body": {"action": "register",
                                                     "name": f"Player {i}"}}))
    journal.append((T0, {"op": "act", "body": {"action": "draw", "seed": 7}}))
    journal.append((T0, {"op": "act", "body": {"action": "start"}}))
    for at, op in journal:
        fresh.replay(op, at)
    assert fresh.view(T0 + 30)["players"] == t.view(T0 + 30)["players"]
    assert fresh.view(T0 + 30)["clock"] == t.view(T0 + 30)["clock"]


def test_a_refused_command_is_one_alert_and_is_sent_again_only_after_a_while() -> None:
    t, _room = drawn(8)
    t.act({"action": "advance", "levels": 1}, T0 + 1)
    sends = t.reconcile(T0 + 2)
    assert {s.cmd for s in sends} == {"configure"}
    for s in sends:
        t.reply(s.table, s.cmd, {"request_id": s.body["request_id"], "ok": False,
                                 "error": "big_blind exceeds max_stack"}, T0 + 2)
    assert t.reconcile(T0 + 3) == []  # not at every tick
    again = t.reconcile(T0 + 2 + 10.5)
    assert sorted(s.table for s in again) == ["t01", "t02"]
    for s in again:
        t.reply(s.table, s.cmd, {"request_id": s.body["request_id"], "ok": False,
                                 "error": "big_blind exceeds max_stack"}, T0 + 13)
    refused = [(a.name, a.table) for a in t.alerts if a.severity != "info"]
    assert sorted(refused) == [("command_refused", "t01"), ("command_refused", "t02")]


@pytest.mark.rules("SEAT-06")
def test_a_no_show_is_reminded_once_when_level_two_ends_and_removed_by_the_director() -> None:
    t, room = drawn(8)
    p = player(t, room.seats["t01"][min(room.seats["t01"])]["name"])
    t.act({"action": "no_show", "player": p.player}, T0)
    room.run(T0 + 20 * 60 + 1)  # the break after level 2: level 2 is over
    room.run(T0 + 20 * 60 + 2)
    due = [a for a in t.alerts if a.name == "no_show_stack_removal_due"]
    assert [(a.rule, a.player) for a in due] == [("SEAT-06", p.player)]
    seat = p.seat
    t.act({"action": "remove", "player": p.player}, T0 + 20 * 60 + 3)
    room.run(T0 + 20 * 60 + 4)
    assert seat not in room.seats["t01"]
    assert t.view(T0 + 20 * 60 + 5)["field"]["players_left"] == 7
    room.run(T0 + 20 * 60 + 6)
    assert seat not in room.seats["t01"]  # not seated again


def test_a_second_move_before_the_first_is_done_starts_from_the_seat_he_still_holds() -> None:
    t, room = drawn(8)
    seat = min(room.seats["t01"])
    p = player(t, room.seats["t01"][seat]["name"])
    room.start_hand("t01", button=seat)
    free = sorted(set(range(1, 7)) - set(room.seats["t02"]))
    t.act({"action": "move", "player": p.player, "table": "t02", "seat": free[0]}, T0)
    t.act({"action": "move", "player": p.player, "table": "t02", "seat": free[1]}, T0)
    (m,) = t.view(T0)["moves"]
    assert m["from"] == ["t01", seat] and m["to"] == ["t02", free[1]]
    t.act({"action": "cancel_move", "id": m["id"]}, T0)
    room.end_hand("t01", {})
    room.run(T0 + 1)
    assert room.seats["t01"][seat]["name"] == p.name


@pytest.mark.rules("TABLE-06")
def test_a_moved_players_stack_counted_short_at_his_new_table_is_one_alert() -> None:
    t, room = drawn(8)
    seat = min(room.seats["t01"])
    p = player(t, room.seats["t01"][seat]["name"])
    free = min(set(range(1, 7)) - set(room.seats["t02"]))
    t.act({"action": "move", "player": p.player, "table": "t02", "seat": free}, T0)
    room.run(T0 + 1)
    room.run(T0 + 2)
    assert room.seats["t02"][free] == {"name": p.name, "stack": 1000}
    room.run(T0 + 3)  # the move is done
    room.seats["t02"][free]["stack"] = 900  # the stack zone counts 100 less
    room.publish("t02")
    room.run(T0 + 4)
    room.publish("t02")
    room.run(T0 + 5)
    assert [(a.name, a.rule, a.severity, a.seat) for a in t.alerts if a.severity != "info"] \
        == [("move_stack_mismatch", "TABLE-06", "warning", free)]


def test_a_standing_imbalance_is_one_suggestion_that_follows_the_button() -> None:
    t, room = drawn(8)
    seats = sorted(room.seats["t02"])
    room.start_hand("t02", button=seats[0])
    room.end_hand("t02", {seats[0]: 0, seats[1]: 0, seats[2]: 2000, seats[3]: 2000})
    room.run(T0 + 1)
    (first,) = t.view(T0 + 1)["suggestions"]
    for n, button in enumerate(sorted(room.seats["t01"])):  # the button goes round at t01
        room.start_hand("t01", button=button)
        room.end_hand("t01", {})
        room.run(T0 + 2 + n)
    (now,) = t.view(T0 + 9)["suggestions"]
    assert now["id"] == first["id"]
    assert len([a for a in t.alerts if a.name == "balancing_move_suggestion"]) == 1
