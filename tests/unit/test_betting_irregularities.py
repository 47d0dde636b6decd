"""Irregular turns through the ledger (RULES.md BET-01, BET-14..BET-17, A-16, A-18, T16, T17,
T22): pure, driven directly with bet-zone round totals, console checks/folds and input time."""

from __future__ import annotations

from tablesvc.core.betting import BettingRound
from tablesvc.core.ledger import Ledger
from tablesvc.core.ledger_outcomes import Acted, LedgerOutcome, Problem, Returned


def flop_ledger(n: int = 5, stack: int = 10_000) -> Ledger:
    """N players, button last, blinds 100/200, everyone limped and the BB checked; flop out."""
    seats = tuple(range(1, n + 1))
    led = Ledger(order=seats, button=n, stacks=dict.fromkeys(seats, stack), small_blind=100,
                 big_blind=200)
    led.post_forced()
    ms = 0
    for s in [*seats[2:], seats[0]]:
        ms += 10
        led.bet_zone(s, 200, ms)
    led.check(2)
    led.next_street("flop")
    return led


def alerts(out: list[LedgerOutcome]) -> list[tuple[str, str, int | None]]:
    return [(o.violation.name, o.violation.severity, o.seat) for o in out
            if isinstance(o, Problem)]


def acts(out: list[LedgerOutcome]) -> list[tuple[int, str, int]]:
    return [(o.decision.seat, o.decision.action, o.decision.to) for o in out
            if isinstance(o, Acted)]


def money(led: Ledger) -> int:
    return sum(led.stacks.values()) + led.pot_total


# ---------------------------------------------------------------- BET-15 / A-18 out of turn
def test_bet15_t17_out_of_turn_bet_is_held_and_taken_back_without_bet_withdrawn() -> None:
    led = flop_ledger()
    total = money(led)
    out = led.bet_zone(2, 400, 1_000)  # S1 is to act
    out += led.bet_zone(1, 1_000, 2_000)  # S1 objects and bets: S2's 400 is out of turn
    oot = [a for a in alerts(out) if a[0] == "action_out_of_turn"]
    assert oot == [("action_out_of_turn", "warning", 2)]
    msg = next(o.violation.message for o in out if isinstance(o, Problem))
    assert "expected seat 1" in msg and "actual seat 2" in msg
    assert led.stacks[2] == 9_800 and led.round is not None and led.round.contributed[2] == 0
    out = led.bet_zone(2, 0, 3_000)  # S2 takes his 400 back: allowed, the bet he faced changed
    out += led.fold(2)
    out += led.bet_zone(3, 1_000, 4_000)
    out += led.fold(4)
    out += led.fold(5)
    assert alerts(out) == []
    assert acts(out) == [(1, "bet", 1_000), (2, "fold", 0), (3, "call", 1_000),
                         (4, "fold", 0), (5, "fold", 0)]
    assert led.stacks[2] == 9_800 and led.stacks[1] == led.stacks[3] == 8_800
    assert led.pot_total == 1_000 + 2_000 and money(led) == total
    assert led.betting_over()


def test_bet15_a18_out_of_turn_bet_is_binding_when_the_skipped_player_checks() -> None:
    led = flop_ledger()
    out = led.bet_zone(2, 400, 1_000)
    out += led.check(1)  # T17 variant a
    assert [a[0] for a in alerts(out)] == ["action_out_of_turn"]
    assert acts(out) == [(1, "check", 0), (2, "bet", 400)]
    assert led.stacks[2] == 9_400 and led.round is not None and led.round.next_actor == 3


def test_bet15_out_of_turn_bet_taken_back_while_still_binding_is_withdrawn() -> None:
    led = flop_ledger()
    led.bet_zone(2, 400, 1_000)
    led.tick(3_000)  # final: held
    out = led.bet_zone(2, 0, 4_000)  # the skipped player has not acted: it must stay
    assert [a[0] for a in alerts(out)] == ["bet_withdrawn"]
    assert led.stacks[2] == 9_800


def test_bet15_skipped_player_changes_the_bet_and_the_chips_left_standing_are_the_call() -> None:
    led = flop_ledger()
    led.bet_zone(3, 400, 1_000)
    led.tick(3_000)
    led.bet_zone(1, 600, 4_000)
    out = led.tick(6_000)  # S1's 600 is final; S2 was skipped too, S3 waits
    out += led.bet_zone(2, 600, 7_000)
    out += led.tick(9_000)
    # S3's 400 faced 0, now faces 600: he reconsiders; he adds 200 more and calls
    out += led.bet_zone(3, 600, 10_000)
    out += led.tick(12_000)
    assert acts(out) == [(1, "bet", 600), (2, "call", 600), (3, "call", 600)]
    assert alerts(out) == [] and led.stacks[3] == 9_200


def test_bet15_out_of_turn_fold_stands() -> None:
    led = flop_ledger()
    out = led.fold(3)
    assert [a[0] for a in alerts(out)] == ["action_out_of_turn"]
    assert 3 in led.folded


# ---------------------------------------------------------------- BET-14 / T16
def t16_ledger() -> Ledger:
    led = Ledger(order=(1, 2, 3, 4), button=4, stacks={1: 10_000, 2: 10_000, 3: 1_700,
                                                         4: 10_000},
                 small_blind=100, big_blind=200)
    led.post_forced()
    for ms, s in enumerate((3, 4, 1), 1):
        led.bet_zone(s, 200, ms)
    led.check(2)
    led.next_street("flop")
    return led


def test_bet14_t16_raise_after_incomplete_allin_pulled_back_to_the_call_is_flagged() -> None:
    led = t16_ledger()
    out = led.bet_zone(1, 1_000, 100)
    out += led.bet_zone(2, 1_000, 200)
    out += led.bet_zone(3, 1_500, 300)
    out += led.fold(4)
    out += led.bet_zone(1, 3_000, 400)
    out += led.bet_zone(1, 1_500, 500)  # the excess goes back before the bet is final
    out += led.bet_zone(2, 1_500, 600)
    out += led.tick(5_000)
    assert alerts(out) == [("incomplete_allin_raise", "info", 3),
                           ("reraise_after_incomplete_allin", "warning", 1)]
    assert led.pot_total == 800 + 4_500 and led.betting_over()


def test_bet14_raise_after_incomplete_allin_left_standing_is_flagged() -> None:
    led = t16_ledger()
    for ms, (s, v) in enumerate(((1, 1_000), (2, 1_000), (3, 1_500)), 1):
        led.bet_zone(s, v, ms)
    led.fold(4)
    out = led.bet_zone(1, 3_000, 10)
    out += led.tick(5_000)
    assert ("reraise_after_incomplete_allin", "warning", 1) in alerts(out)


# ---------------------------------------------------------------- BET-17 the clock
def test_bet17_clock_expired_folds_a_player_who_had_to_put_chips_in() -> None:
    led = flop_ledger(3)
    led.bet_zone(1, 400, 0)
    led.tick(2_000)
    out = led.clock(2, 5_000)
    assert alerts(out) == [("clock_running", "info", 2)]
    assert led.deadline() == 35_000
    assert led.tick(34_999) == []
    out = led.tick(35_000)
    assert alerts(out) == [("clock_expired", "warning", 2)]
    assert [(o.decision.action, o.deemed) for o in out if isinstance(o, Acted)] == [
        ("fold", "clock")]
    assert 2 in led.folded and led.deadline() is None


def test_bet17_clock_expired_checks_a_player_who_could_check() -> None:
    led = flop_ledger(3)
    led.clock(1, 0)
    out = led.tick(30_000)
    assert acts(out) == [(1, "check", 0)] and 1 not in led.folded


def test_bet17_clock_stops_when_the_player_acts_in_time() -> None:
    led = flop_ledger(3)
    led.clock(1, 0)
    led.bet_zone(1, 400, 10_000)
    led.tick(12_000)
    assert led.clock_end is None and led.tick(31_000) == []
    assert led.stacks[1] == 9_400


# ---------------------------------------------------------------- BET-16 absent player
def test_bet16_absent_player_is_deemed_to_fold_facing_a_bet() -> None:
    led = flop_ledger(3)
    assert led.absent(2) == []  # not his turn yet
    led.bet_zone(1, 400, 0)
    out = led.tick(2_000)
    assert ("absent_player_auto_action", "info", 2) in alerts(out)
    assert (2, "fold", 0) in acts(out) and led.round is not None and led.round.next_actor == 3


def test_bet16_absent_player_is_deemed_to_check_when_he_could() -> None:
    led = flop_ledger(3)
    out = led.absent(1)
    assert alerts(out) == [("absent_player_auto_action", "info", 1)]
    assert acts(out) == [(1, "check", 0)]


def test_seat05_t22_absent_big_blinds_dead_hand_is_not_out_of_turn() -> None:
    led = Ledger(order=(1, 2, 3, 4, 5), button=5, stacks=dict.fromkeys(range(1, 6), 10_000),
                 small_blind=100, big_blind=200)
    led.post_forced()
    out = led.absent(2)  # S3 is to act
    out += led.fold(2)  # the dealer kills the dead hand
    for s in (3, 4, 5):
        out += led.fold(s)
    assert [a for a in alerts(out) if a[1] != "info"] == []
    assert led.settled is not None and led.settled.awards[0].shares == {1: 300}


# ---------------------------------------------------------------- BET-01
def test_bet01_withdrawal_by_the_actor_after_release_is_bet_withdrawn() -> None:
    led = flop_ledger(3)
    led.bet_zone(1, 400, 0)
    led.tick(2_000)
    out = led.bet_zone(1, 200, 3_000)
    assert [a[0] for a in alerts(out)] == ["bet_withdrawn"]


def test_bet01_uncalled_bet_returned_at_the_end_of_the_round_is_no_withdrawal() -> None:
    led = Ledger(order=(1, 2), button=2, stacks={1: 5_000, 2: 2_000}, small_blind=100,
                 big_blind=200)
    led.post_forced()
    led.bet_zone(2, 200, 0)  # the button (SB) calls
    led.check(1)
    led.next_street("flop")
    total = money(led)
    led.bet_zone(1, 3_000, 10)
    led.bet_zone(2, 1_800, 20)  # all-in for less
    led.tick(3_000)
    assert led.betting_over()
    out = led.bet_zone(1, 1_800, 4_000)  # the dealer gives the uncalled 1 200 back
    assert alerts(out) == [] and [o for o in out if isinstance(o, Returned)] == [
        Returned(1, 1_200, 3_000, 4_000)]
    assert money(led) == total


def test_deemed_fold_is_never_out_of_turn() -> None:
    r = BettingRound(street="flop", order=[1, 2, 3], stacks={1: 100, 2: 100, 3: 100},
                     big_blind=10)
    assert r.fold(3, deemed=True).violations == ()
    assert r.check(3, deemed=True).violations == ()


def test_bet07_bet09_completing_an_illegal_check_or_a_short_call_is_not_out_of_turn() -> None:
    for first in ("check", "short"):
        led = flop_ledger(4)
        ms = 100
        led.bet_zone(1, 400, ms)
        if first == "check":
            out = led.check(2)
            assert [a[0] for a in alerts(out)] == ["illegal_check"]
        else:
            out = led.bet_zone(2, 200, ms + 10) + led.finalize()
            assert [a[0] for a in alerts(out)] == ["call_short"]
        out = led.bet_zone(2, 400, ms + 20) + led.finalize()  # he puts it right
        assert alerts(out) == [], first
        assert acts(out) == [(2, "call", 400)], first


def test_bet12_bet15_chips_after_the_round_is_complete_are_not_booked_and_go_back() -> None:
    led = flop_ledger(4)
    ms = 100
    for s in (1, 2, 3, 4):
        ms += 10
        led.bet_zone(s, 400, ms)
    out = led.finalize()
    assert led.round is not None and led.round.complete
    before = (dict(led.contributed), led.pot_total)
    out = led.bet_zone(1, 1200, ms + 10) + led.finalize()  # the bettor raises his own bet
    assert alerts(out) == [("reraise_not_allowed", "warning", 1)] and acts(out) == []
    out = led.bet_zone(3, 900, ms + 20) + led.finalize()  # a caller adds chips
    assert alerts(out) == [("action_out_of_turn", "warning", 3)] and acts(out) == []
    out = led.bet_zone(1, 400, ms + 30) + led.bet_zone(3, 400, ms + 40) + led.finalize()
    assert out == []  # the chips went back: nothing withdrawn
    assert (dict(led.contributed), led.pot_total) == before and led.round.complete
