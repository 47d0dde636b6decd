"""Five-card draw through the pure core: the game as the seeds describe it, and every DRAW
irregularity the sensors can see (RULES.md §2.6, §2.7). No I/O: inputs are built frame by
frame the way the devices send them."""

from __future__ import annotations

from typing import Any

import pytest

from tablesvc.core import events as ev
from tablesvc.core.table import TableCore
from tests.helpers import ChipBox, Script, make_core, make_deck

DECK = make_deck()
UID = {card: uid for uid, card in DECK.items()}


class DrawTable:
    """Drives a draw table: every method is one physical action turned into frames."""

    def __init__(self, seats: dict[int, int], button: int, ante: int = 10,
                 order: list[str] | None = None, **settings: Any) -> None:
        self.box = ChipBox()
        self.box.uids(6631)  # one chip of each value: the smallest (1) is the betting unit
        self.core: TableCore = make_core(seats, deck=DECK, chips=self.box.values,
                                         variant="draw5", ante=ante, **settings)
        self.script = Script()
        self.events: list[ev.Event] = []
        self.replies: list[Any] = []
        self.ante = ante
        self.pot = 0
        self.bets: dict[int, int] = {}
        self.where: dict[str, str] = {}
        self.shoe: list[str] = [UID[c] for c in order] if order else []
        self.shoe += [u for u in DECK if u not in self.shoe]
        self.out: list[str] = []
        self.apply(self.script.cmd("button", seat=button))

    def apply(self, inp: Any) -> list[ev.Event]:
        out = self.core.apply(inp)
        self.events += out.events
        self.replies += out.replies
        return out.events

    def newhand(self, seats: list[int]) -> None:
        self.apply(self.script.frame("console", "BTN", "NEWHAND"))
        self.pot += self.ante * len(seats)
        self._pot()

    def chips(self, amount: int) -> str:
        """Chips for an amount, enrolled in the chip registry as `chips enroll` would."""
        uids = self.box.uids(amount) if amount else ""
        self.core.chip_values.update(self.box.values)
        return uids

    def _pot(self) -> None:
        self.apply(self.script.frame("chips", "CHIPS", "POT", self.chips(self.pot)))

    def deal(self, zone: str, face: str = "D") -> str:
        uid = self.shoe.pop(0)
        self.out.append(uid)
        for inp in self.script.deal(uid, zone, face):
            self.apply(inp)
        self.where[uid] = zone
        return uid

    def draw_out(self, face: str = "D") -> str:
        """A card leaves the shoe; its arrival is a separate step."""
        uid = self.shoe.pop(0)
        self.out.append(uid)
        self.apply(self.script.frame("shoe", "DRAW", uid, face))
        return uid

    def arrive(self, zone: str, uid: str) -> None:
        self.apply(self.script.frame("cards", "ARR", zone, uid))
        self.where[uid] = zone

    def deal_round(self, seats: list[int], rounds: int = 5) -> None:
        for _ in range(rounds):
            for s in seats:
                self.deal(f"S{s}")

    def move(self, uid: str, zone: str) -> None:
        self.apply(self.script.frame("cards", "DEP", self.where[uid], uid))
        self.arrive(zone, uid)

    def ret(self, uid: str, where: str = "T") -> None:
        if uid in self.where:
            self.apply(self.script.frame("cards", "DEP", self.where.pop(uid), uid))
        self.apply(self.script.frame("shoe", "RET", uid, where))
        if where == "T":
            self.shoe.insert(0, uid)
        else:
            self.shoe.append(uid)

    def held(self, seat: int) -> list[str]:
        return [u for u, z in self.where.items() if z == f"S{seat}"]

    def button(self, *args: str) -> list[ev.Event]:
        return self.apply(self.script.frame("console", "BTN", *args))

    def check(self, seat: int) -> None:
        self.button("CHECK", str(seat))

    def bet(self, seat: int, to: int) -> None:
        self.bets[seat] = to
        self.apply(self.script.frame("chips", "CHIPS", f"B{seat}", self.chips(to)))

    def fold(self, seat: int) -> None:
        self.button("FOLD", str(seat))
        for uid in self.held(seat):
            self.move(uid, "MUCK")

    def gather(self) -> None:
        for seat in list(self.bets):
            self.apply(self.script.frame("chips", "CHIPS", f"B{seat}", ""))
        self.pot += sum(self.bets.values())
        self.bets = {}
        self._pot()

    def exchange(self, seat: int, k: int, discard: int | None = None,
                 receive: int | None = None) -> list[str]:
        self.button("DRAW", str(seat), str(k))
        for uid in self.held(seat)[: k if discard is None else discard]:
            self.move(uid, "MUCK")
        return [self.deal(f"S{seat}") for _ in range(k if receive is None else receive)]

    def push(self) -> None:
        self.pot = 0
        self._pot()

    def collect(self) -> None:
        for uid, zone in list(self.where.items()):
            if zone != "MUCK":
                self.move(uid, "MUCK")

    # what came out
    def alerts(self, severity: str | None = None) -> list[tuple[str, str]]:
        return [(e.name, e.severity) for e in self.events if isinstance(e, ev.Alert)
                and (severity is None or e.severity == severity)]

    def problems(self) -> list[tuple[str, str]]:
        return [a for a in self.alerts() if a[1] != "info"]

    def of(self, cls: type[ev.Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


SEATS4 = {1: 1000, 2: 1000, 3: 1000, 4: 1000}


def opened_to_draw(t: DrawTable, seats: list[int], bet: int = 50) -> None:
    t.newhand(seats)
    t.deal_round(seats)
    t.bet(seats[0], bet)
    for s in seats[1:]:
        t.bet(s, bet)
    t.gather()


def test_clean_draw_game_deals_draws_bets_and_awards_without_alerts() -> None:
    t = DrawTable(SEATS4, button=4, order=[
        "Ah", "2c", "3d", "4h", "Ad", "5c", "6d", "7h", "Ac", "8c",
        "9d", "Th", "Kd", "Jc", "Qd", "Kh", "Ks", "Jd", "Qs", "2h",
    ])
    opened_to_draw(t, [1, 2, 3, 4])
    assert [d.seat for d in t.of(ev.CardDealt)][:4] == [1, 2, 3, 4]  # Vorhand first
    for seat in (1, 2, 3, 4):
        t.exchange(seat, 0 if seat == 1 else 2)
    draws = t.of(ev.Draw)
    assert [(d.seat, d.discarded, d.received) for d in draws] == [
        (1, 0, 0), (2, 2, 2), (3, 2, 2), (4, 2, 2)]
    t.bet(1, 100)  # the opener acts first after the draw (BET-22)
    for s in (2, 3, 4):
        t.fold(s)
    assert t.problems() == []
    awarded = t.of(ev.PotAwarded)
    assert awarded and awarded[0].seats == [1]
    assert awarded[0].amount == 40 + 4 * 50  # his 100 nobody called goes back to him
    assert ("game_checked_out", "info") not in t.alerts()


@pytest.mark.rules("SHOW-14")
def test_showdown_in_draw_evaluates_five_card_hands_and_starts_after_the_last_bettor() -> None:
    t = DrawTable(SEATS4, button=4, order=[
        "Ah", "2c", "3d", "4h", "Ad", "5c", "6d", "7h", "Ac", "8c",
        "9d", "Th", "Kd", "Jc", "Qd", "Kh", "Ks", "Jd", "Qs", "2h",
    ])
    opened_to_draw(t, [1, 2, 3, 4])
    for seat in (1, 2, 3, 4):
        t.exchange(seat, 0)
    t.check(1)
    t.bet(2, 100)
    t.bet(3, 100)
    t.fold(4)
    t.bet(1, 100)
    t.gather()
    shows = t.of(ev.Showdown)
    assert [s.seat for s in shows] == [3, 1, 2]  # SHOW-14: after the last bettor (seat 2)
    order = [e for e in t.events if isinstance(e, ev.Alert) and e.name == "showdown_order"]
    assert [(e.rule, e.message) for e in order] == [
        ("SHOW-14", "showing order: seat 3, seat 1, seat 2")]  # draw's rule, not hold'em's
    assert all(s.tabled and s.cards for s in shows)  # every active hand is shown
    assert shows[1].rank == "full house, aces full of kings"
    assert t.of(ev.PotAwarded)[0].seats == [1]
    assert t.problems() == []


def test_all_check_in_the_first_round_carries_the_pot_into_the_next_game() -> None:
    t = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=3)
    t.newhand([1, 2, 3])
    t.deal_round([1, 2, 3])
    for s in (1, 2, 3):
        t.check(s)
    ended = t.of(ev.HandEnded)
    assert ended and ended[-1].reason == "checked_out" and ended[-1].carried_pot == 30
    assert ("pot_carryover", "info") in t.alerts()
    assert {s.seat: s.stack for s in ended[-1].stacks} == {1: 990, 2: 990, 3: 990}
    t.collect()
    # next game: the Vorhand deals; the pot has the carry and the new antes
    t.newhand([1, 2, 3])
    started = t.of(ev.HandStarted)[-1]
    assert started.button == 1 and started.carried_pot == 30
    t.deal_round([2, 3, 1])
    t.bet(2, 20)
    t.fold(3)
    t.fold(1)
    award = t.of(ev.PotAwarded)[-1]
    assert award.seats == [2] and award.amount == 30 + 30  # his uncalled 20 goes back
    assert t.problems() == []


def test_all_check_after_the_draw_carries_over_by_default() -> None:
    t = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=3)
    opened_to_draw(t, [1, 2, 3], bet=20)
    for s in (1, 2, 3):
        t.exchange(s, 1)
    for s in (1, 2, 3):
        t.check(s)
    ended = t.of(ev.HandEnded)[-1]
    assert ended.reason == "checked_out" and ended.carried_pot == 30 + 60
    assert ("game_checked_out", "info") in t.alerts()
    assert not t.of(ev.PotAwarded)


def test_all_check_after_the_draw_goes_to_showdown_when_configured() -> None:
    t = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=3, all_check="showdown")
    opened_to_draw(t, [1, 2, 3], bet=20)
    for s in (1, 2, 3):
        t.exchange(s, 1)
    for s in (1, 2, 3):
        t.check(s)
    assert t.of(ev.PotAwarded) and not [e for e in t.of(ev.HandEnded)
                                        if e.reason == "checked_out"]
    assert next(s.seat for s in t.of(ev.Showdown)) == 1  # no bet: from the dealer's left


def test_hole_cards_after_the_draw_go_to_the_secure_feed_only() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    for seat in (1, 2, 3, 4):
        t.exchange(seat, 3)
    secure = [e for e in t.events if e.FEED == "secure"]
    public = [e for e in t.events if e.FEED == "public"]
    holes = [e for e in secure if isinstance(e, ev.HoleCards)]
    assert len(holes) == 8  # after the deal and after the draw
    dealt_faces = {DECK[u] for u in t.out}
    for e in public:
        dumped = e.model_dump_json()
        assert not any(f'"{c}"' in dumped for c in dealt_faces), e.type


def test_first_card_to_the_wrong_seat_is_one_rotation_error_naming_the_order() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal("S2")
    assert t.alerts() == [("dealer_rotation_error", "warning")]


def test_two_cards_exposed_in_the_deal_let_a_player_demand_a_redeal() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal("S1", face="U")
    assert t.problems() == [("card_exposed", "warning")]  # one: the player keeps it
    t.deal("S2", face="U")
    assert ("redeal_may_be_demanded", "warning") in t.problems()
    t.button("REDEAL")
    assert t.of(ev.HandEnded)[-1].reason == "misdeal"


def test_wrong_counts_at_two_seats_are_a_warning_and_at_three_a_redeal() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    seq = [1, 2, 3, 4] * 4 + [1, 1, 3, 4]  # seat 2 short, seat 1 long
    for s in seq:
        t.deal(f"S{s}")
    assert ("hole_card_count_error", "warning") in t.problems()
    assert ("redeal_required", "critical") not in t.problems()

    t2 = DrawTable(SEATS4, button=4)
    t2.newhand([1, 2, 3, 4])
    for s in [1, 2, 3, 4] * 4 + [1, 1, 1, 4]:
        t2.deal(f"S{s}")
    assert ("redeal_required", "critical") in t2.problems()


def test_a_card_out_of_the_shoe_during_betting_is_premature() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal_round([1, 2, 3, 4])
    t.bet(1, 50)
    t.deal("S2")
    assert ("premature_card", "critical") in t.problems()


def test_a_burn_in_draw_is_unexpected() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.deal("BURN")
    assert ("burn_unexpected", "warning") in t.problems()


def test_more_than_three_announced_or_discarded_exceeds_the_maximum() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.button("DRAW", "1", "4")
    assert t.problems() == [("draw_exceeds_max", "warning")]


def test_replacements_before_discards_are_flagged() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.button("DRAW", "1", "2")
    t.deal("S1")
    assert ("draw_before_discard", "warning") in t.problems()


def test_too_many_replacements_is_a_draw_count_mismatch() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 2, receive=3)
    assert ("draw_count_mismatch", "warning") in t.problems()


def test_too_few_replacements_is_a_mismatch_when_the_next_player_starts() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 2, receive=1)
    assert t.problems() == []
    t.exchange(2, 1)
    assert ("draw_count_mismatch", "warning") in t.problems()


def test_a_replacement_to_a_seat_that_has_drawn_is_a_draw_order_error() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 1)
    t.button("DRAW", "2", "1")
    t.move(t.held(2)[0], "MUCK")
    t.deal("S1")
    assert ("draw_order_error", "warning") in t.problems()


def test_t25_skipped_player_case_a_redressed_in_order() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 1)
    t.button("DRAW", "2", "2")  # S2 announces but is skipped
    got = t.exchange(3, 3)
    assert ("draw_player_skipped", "warning") in t.problems()
    # case A: S3 has not looked; the dealer gives #22, #23 to S2, who discards first
    for uid in t.held(2)[:2]:
        t.move(uid, "MUCK")
    t.move(got[0], "S2")
    t.move(got[1], "S2")
    t.deal("S3")
    t.deal("S3")
    t.exchange(4, 0)
    assert [(d.seat, d.received) for d in t.of(ev.Draw)] == [(1, 1), (2, 2), (3, 3), (4, 0)]
    assert ("redress_completed", "info") in t.alerts()
    assert t.problems() == [("draw_player_skipped", "warning")]
    t.check(1)  # the second round starts with the opener
    assert t.problems() == [("draw_player_skipped", "warning")]


def test_t25_skipped_player_case_b_forfeits_after_the_next_player_looked() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 1)
    t.button("DRAW", "2", "2")
    t.exchange(3, 3)
    t.button("CARDS_VIEWED", "3")
    assert ("draw_right_forfeited", "info") in t.alerts()
    t.exchange(4, 1)
    draws = [(d.seat, d.discarded, d.received) for d in t.of(ev.Draw)]
    assert (2, 0, 0) in draws and draws[-1] == (4, 1, 1)
    assert len(t.core.session.tracker.hole[2]) == 5  # type: ignore[union-attr]


def test_t25_skipped_player_case_c_plays_short_with_his_discards_gone() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 1)
    t.button("DRAW", "2", "2")
    for uid in t.held(2)[:2]:
        t.move(uid, "MUCK")
    t.exchange(3, 3)
    t.button("CARDS_VIEWED", "3")
    t.exchange(4, 0)
    assert len(t.core.session.tracker.hole[2]) == 3  # type: ignore[union-attr]
    t.bet(1, 50)
    t.bet(2, 50)
    t.fold(3)
    t.fold(4)
    t.gather()
    shows = {s.seat: s for s in t.of(ev.Showdown)}
    assert "(3 cards)" in (shows[2].rank or "")  # evaluated on the cards held


def test_t24_exposed_at_the_draw_first_under_the_stub_then_to_the_discards() -> None:
    t = DrawTable({1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 1000}, button=5)
    t.newhand([1, 2, 3, 4, 5])
    t.deal_round([1, 2, 3, 4, 5])
    t.check(1)
    t.bet(2, 5)
    t.fold(3)
    t.bet(4, 5)
    t.bet(5, 5)
    t.bet(1, 5)
    t.gather()
    t.button("DRAW", "1", "2")
    for uid in t.held(1)[:2]:
        t.move(uid, "MUCK")
    t.deal("S1")
    x = t.deal("S1", face="U")  # #27 exposed
    t.ret(x, "B")
    t.deal("S1")
    t.button("DRAW", "2", "1")
    t.move(t.held(2)[0], "MUCK")
    y = t.draw_out(face="U")  # #29 exposed, straight to the muck
    t.arrive("MUCK", y)
    t.deal("S2")
    t.exchange(4, 0)
    t.exchange(5, 3)
    exposed = [e for e in t.of(ev.Alert) if e.name == "card_exposed_at_draw"]
    assert len(exposed) == 2
    assert "under the stub" in exposed[0].remedy and "discards" in exposed[1].remedy
    assert t.problems() == [("card_exposed_at_draw", "warning")] * 2
    assert [(d.seat, d.received) for d in t.of(ev.Draw)][:2] == [(1, 2), (2, 1)]
    assert len(t.core.session.tracker.hole[1]) == 5  # type: ignore[union-attr]
    assert t.core.session.tracker.stub.bottom == x  # type: ignore[union-attr]


def test_dealing_the_card_put_under_the_stub_is_bottom_card_dealt() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.button("DRAW", "1", "1")
    t.move(t.held(1)[0], "MUCK")
    x = t.deal("S1", face="U")
    t.ret(x, "B")
    t.shoe.remove(x)
    t.shoe.insert(0, x)  # the dealer takes it from the bottom
    t.deal("S1")
    assert ("bottom_card_dealt", "critical") in t.problems()


SEATS8 = {s: 1000 for s in range(1, 9)}


def t23_until_the_stub_runs_out(t: DrawTable) -> list[str]:
    """T23: S1 opens, S2 and S3 fold, the rest call; S1, S4, S5 draw three; S6 gets two."""
    t.newhand(list(range(1, 9)))
    t.deal_round(list(range(1, 9)))
    t.bet(1, 10)
    t.fold(2)
    t.fold(3)
    for s in range(4, 9):
        t.bet(s, 10)
    t.gather()
    discards: list[str] = []
    for s in (1, 4, 5):
        t.button("DRAW", str(s), "3")
        for uid in t.held(s)[:3]:
            discards.append(uid)
            t.move(uid, "MUCK")
        for _ in range(3):
            t.deal(f"S{s}")
    t.button("DRAW", "6", "3")
    t.own = t.held(6)[:3]  # type: ignore[attr-defined]
    for uid in t.own:  # type: ignore[attr-defined]
        t.move(uid, "MUCK")
    t.deal("S6")
    t.deal("S6")
    return discards


def reload(t: DrawTable, pack: list[str]) -> None:
    for uid in pack:
        if t.where.get(uid) == "MUCK":
            t.apply(t.script.frame("cards", "DEP", "MUCK", uid))
            del t.where[uid]
    t.apply(t.script.frame("shoe", "DECK", " ".join(pack)))
    t.shoe = list(pack)


def test_t23_stub_runs_out_and_the_right_pack_is_reshuffled() -> None:
    t = DrawTable(SEATS8, button=8, ante=1)
    discards = t23_until_the_stub_runs_out(t)
    assert ("reshuffle_required", "info") in t.alerts()
    bottom = t.shoe[0]
    assert len(t.shoe) == 1
    reload(t, [*discards[::-1], bottom])
    t.deal("S6")  # r1
    t.exchange(7, 2)
    t.exchange(8, 3)
    assert t.problems() == []
    assert len(t.shoe) == 4  # r7..r10 stay undealt
    assert all(len(t.core.session.tracker.hole[s]) == 5 for s in (1, 4, 5, 6, 7, 8))  # type: ignore[union-attr]


def test_t23_a_pack_with_the_current_players_discards_is_ineligible() -> None:
    t = DrawTable(SEATS8, button=8, ante=1)
    discards = t23_until_the_stub_runs_out(t)
    reload(t, [*discards, t.own[0], t.shoe[0]])  # type: ignore[attr-defined]
    assert ("reshuffle_ineligible_card", "critical") in t.problems()


def test_t23_a_pack_with_folded_hands_is_a_composition_deviation() -> None:
    t = DrawTable(SEATS8, button=8, ante=1)
    discards = t23_until_the_stub_runs_out(t)
    folded = [u for u in t.out[:40] if t.where.get(u) == "MUCK" and u not in discards][:2]
    reload(t, [*discards, *folded, t.shoe[0]])
    assert t.problems() == [("reshuffle_composition_deviation", "warning")]


def test_t23_dealing_the_last_stub_card_without_a_reshuffle_is_bottom_card_dealt() -> None:
    t = DrawTable(SEATS8, button=8, ante=1)
    t23_until_the_stub_runs_out(t)
    t.deal("S6")
    assert ("bottom_card_dealt", "critical") in t.problems()


def test_a_live_hand_swept_into_the_muck_is_dead_in_draw() -> None:
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    for seat in (1, 2, 3, 4):
        t.exchange(seat, 0)
    t.bet(1, 100)
    t.move(t.held(1)[0], "MUCK")  # the opener has bet and faces nothing: not a fold
    assert ("live_hand_in_muck", "critical") in t.problems()


@pytest.mark.parametrize("players", [2, 9])
def test_player_count_outside_three_to_eight_is_warned_but_tracked(players: int) -> None:
    seats = {s: 1000 for s in range(1, players + 1)}
    t = DrawTable(seats, button=players)
    t.newhand(list(seats))
    assert ("player_count_out_of_range", "warning") in t.problems()
    t.deal_round(list(seats))
    assert len(t.of(ev.HoleCards)) == players


@pytest.mark.rules("SEAT-07")
def test_missing_antes_at_the_first_card_are_flagged() -> None:
    t = DrawTable(SEATS4, button=4)
    t.apply(t.script.frame("console", "BTN", "NEWHAND"))
    t.pot = 30  # one ante short
    t._pot()
    t.deal("S1")
    assert ("ante_missing", "warning") in t.problems()


@pytest.mark.rules("BET-24")
def test_a_bet_out_of_turn_in_draw_is_provisional() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal_round([1, 2, 3, 4])
    t.bet(3, 50)  # seat 1 (the Vorhand) is to act
    t.apply(t.script.tick(2000))  # the chips have settled
    alerts = [e for e in t.of(ev.Alert) if e.severity != "info"]
    assert [(a.name, a.rule, a.seat) for a in alerts] == [
        ("out_of_turn_bet_provisional", "BET-24", 3)]
    assert "may not raise" in alerts[0].remedy


@pytest.mark.rules("BET-25", "BET-26")
def test_a_fold_out_of_turn_with_several_players_left_owes_the_call() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal_round([1, 2, 3, 4])
    t.bet(1, 50)
    t.fold(3)  # seat 2 is to act
    alerts = [e for e in t.of(ev.Alert) if e.severity != "info"]
    assert [(a.name, a.rule, a.seat) for a in alerts] == [("fold_out_of_turn", "BET-25", 3)]
    assert "owes the call of 50" in alerts[0].message
    folds = [(a.name, a.rule, a.seat) for a in t.of(ev.Alert) if a.name == "fold_recorded"]
    assert folds == [("fold_recorded", "BET-26", 3)]


@pytest.mark.rules("BET-21")
def test_a_betting_violation_in_draw_is_filed_under_the_round_rule_of_draw() -> None:
    """Draw raises the betting engine's violations under BET-21, its betting-round rule;
    only the out-of-turn ones have rules of their own (BET-24, BET-25)."""
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal_round([1, 2, 3, 4])
    t.bet(1, 50)
    t.bet(2, 20)  # facing 50, with chips behind
    t.bet(3, 50)
    alerts = [(a.name, a.rule, a.seat) for a in t.of(ev.Alert) if a.severity != "info"]
    assert alerts == [("call_short", "BET-21", 2)]


def test_a_fold_out_of_turn_heads_up_is_allowed() -> None:
    t2 = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=3)
    t2.newhand([1, 2, 3])
    t2.deal_round([1, 2, 3])
    t2.bet(1, 50)
    t2.fold(2)
    t2.bet(3, 50)
    t2.bet(1, 100)
    t2.fold(1)  # folds before seat 3 answers the raise... seat 3 is to act: out of turn,
    # but only one other player is left, so it is allowed (BET-25)
    assert [a for a in t2.problems() if a[0] == "fold_out_of_turn"] == []
    assert t2.of(ev.PotAwarded)[-1].seats == [3]


def test_the_chip_readers_repeated_inventories_do_not_end_the_draw() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    t.deal_round([1, 2, 3, 4])
    for s in (1, 2, 3, 4):
        t.bet(s, 50)
    t.exchange(1, 2)
    for s in (1, 2, 3, 4):  # the reader repeats every zone, as it does every 2 s
        t.apply(t.script.frame("chips", "CHIPS", f"B{s}", t.chips(50)))
    for s in (2, 3, 4):
        t.exchange(s, 1)
    assert [(d.seat, d.received) for d in t.of(ev.Draw)] == [(1, 2), (2, 1), (3, 1), (4, 1)]
    assert t.problems() == []


def test_seating_draw_orders_players_by_card_and_redraws_only_the_tied() -> None:
    t = DrawTable(SEATS4, button=4, order=["Kh", "Ks", "Ad", "5c", "2c", "9d"])
    t.button("SEAT_DRAW")
    for seat in (1, 2, 3, 4):
        t.deal(f"S{seat}")
    t.button("SEAT_DRAW")
    infos = [e for e in t.of(ev.Alert) if e.severity == "info"]
    assert [(a.name, a.rule) for a in infos] == [("seat_draw_tie", "SEAT-08")]
    assert "seats 1, 2" in infos[0].message
    t.deal("S1")  # 2c: only the tied players draw again
    t.deal("S2")  # 9d
    t.button("SEAT_DRAW")
    result = [e for e in t.of(ev.Alert) if e.name == "seat_draw_result"]
    assert result and "seat 3, the player at seat 2, the player at seat 1, the player at " \
        "seat 4" in result[0].message
    assert t.problems() == [] and not t.of(ev.HandStarted)


def test_the_first_jack_decides_the_first_dealer() -> None:
    t = DrawTable(SEATS4, button=4, order=["9c", "2d", "Jd", "Js"])
    t.button("DEALER_DRAW")
    for seat in (1, 2, 3):  # the dealer stops at the first Jack
        t.deal(f"S{seat}")
    dealer = [e for e in t.of(ev.Alert) if e.name == "first_dealer_determined"]
    assert [(a.seat, a.rule) for a in dealer] == [(3, "SEAT-09")]
    t.collect()
    t.newhand([1, 2, 3, 4])
    assert t.of(ev.HandStarted)[-1].button == 3  # the Vorhand is seat 4
    assert t.problems() == []


@pytest.mark.rules("MISDEAL-15")
def test_a_shuffle_error_lets_players_with_one_card_demand_a_redeal() -> None:
    t = DrawTable(SEATS4, button=4)
    t.newhand([1, 2, 3, 4])
    for seat in (1, 2, 3, 4, 1):
        t.deal(f"S{seat}")
    t.button("SHUFFLE_ERROR")
    got = [e for e in t.of(ev.Alert) if e.name == "redeal_may_be_demanded"]
    assert [(a.severity, a.rule) for a in got] == [("warning", "MISDEAL-15")]
    assert "seats 2, 3, 4" in got[0].message  # seat 1 has his second card: too late for him


def test_doctests_of_the_draw_modules_hold() -> None:
    import doctest

    from tablesvc.core import carddraw
    from tablesvc.core.games.draw5 import tracker as draw

    assert doctest.testmod(draw).failed == 0
    assert doctest.testmod(carddraw).failed == 0


def test_the_state_snapshot_shows_the_game_and_the_pot_that_carries_over() -> None:
    t = DrawTable({1: 1000, 2: 1000, 3: 1000}, button=3)
    t.newhand([1, 2, 3])
    t.deal_round([1, 2, 3])
    snap = t.core.snapshot()
    assert (snap["variant"], snap["street"], snap["pot"]) == ("draw5", "predraw", 30)
    for s in (1, 2, 3):
        t.check(s)
    snap = t.core.snapshot()
    assert (snap["in_hand"], snap["pot"]) == (False, 30)
    assert DECK[t.out[0]] not in str(snap)


@pytest.mark.rules("DRAW-03")
def test_four_discards_in_the_muck_are_one_alert_that_three_is_the_most_a_player_may_draw(
        ) -> None:
    """The player announces three but throws four cards into the muck: the fourth is over
    the limit (DRAW-03), and that is the one fault; the dealer deals him three."""
    t = DrawTable(SEATS4, button=4)
    opened_to_draw(t, [1, 2, 3, 4])
    t.exchange(1, 3, discard=4, receive=3)
    assert t.problems() == [("draw_exceeds_max", "warning")]
    alert = next(e for e in t.events if isinstance(e, ev.Alert) and e.severity == "warning")
    assert (alert.seat, alert.rule) == (1, "DRAW-03")
