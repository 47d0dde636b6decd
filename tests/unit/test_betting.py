"""Betting rules of one round (RULES.md BET-02..BET-19, §2.3, A-16, A-17): pure, no I/O."""

from __future__ import annotations

import doctest
import random
from typing import Any

import pytest

from tablesvc.core import betting
from tablesvc.core.betting import BettingRound, Decision, Structure, action_order

# RULES.md §4 defaults: blinds 100/200, stacks 10 000, seats clockwise; 4 players, button S4.
PREFLOP_ORDER = [3, 4, 1, 2]


def preflop(**kw: Any) -> BettingRound:
    stacks = {1: 9_900, 2: 9_800, 3: 10_000, 4: 10_000}
    return BettingRound(street="preflop", order=PREFLOP_ORDER, stacks=stacks,
                        posted={1: 100, 2: 200}, big_blind=200, **kw)


def postflop(stacks: dict[int, int] | None = None, pot: int = 800, **kw: Any) -> BettingRound:
    stacks = stacks or {1: 9_800, 2: 9_800, 3: 9_800, 4: 9_800}
    return BettingRound(street="flop", order=sorted(stacks), stacks=stacks, big_blind=200,
                        pot=pot, **kw)


def act(r: BettingRound, seat: int, to: int | str) -> Decision:
    """Classify and apply: an int is a round total, "x" a check, "f" a fold."""
    d = r.check(seat) if to == "x" else r.fold(seat) if to == "f" else r.classify(seat, int(to))
    r.apply(d)
    return d


def clean(r: BettingRound, *steps: tuple[int, int | str]) -> None:
    for seat, to in steps:
        d = act(r, seat, to)
        assert d.violations == (), (seat, to, d.violations)


def names(d: Decision) -> list[str]:
    return [v.name for v in d.violations]


def test_doctests_of_the_module_hold():
    assert doctest.testmod(betting).failed == 0


# ---------------------------------------------------------------------- order (BET-02, BET-05)
def test_bet02_preflop_order_starts_left_of_big_blind_and_ends_with_blinds():
    assert action_order([1, 2, 3, 4, 5, 6], preflop=True, heads_up=False) == [3, 4, 5, 6, 1, 2]
    assert action_order([1, 2, 3], preflop=True, heads_up=False) == [3, 1, 2]  # button first


def test_bet05_postflop_order_starts_first_seat_left_of_button():
    assert action_order([1, 2, 3, 4, 5, 6], preflop=False, heads_up=False) == [1, 2, 3, 4, 5, 6]
    assert action_order([2, 5], preflop=False, heads_up=False) == [2, 5]  # others folded


def test_seat04_heads_up_button_acts_first_preflop_and_last_after():
    assert action_order([2, 5], preflop=True, heads_up=True) == [5, 2]
    assert action_order([2, 5], preflop=False, heads_up=True) == [2, 5]


def test_action_order_refuses_impossible_seat_lists():
    with pytest.raises(ValueError, match="exactly two"):
        action_order([1, 2, 3], preflop=True, heads_up=True)
    with pytest.raises(ValueError, match="twice"):
        action_order([1, 1, 2], preflop=False, heads_up=False)


def test_bet05_all_in_seat_is_skipped_and_first_active_left_of_button_acts():
    r = postflop({1: 0, 2: 5_000, 3: 5_000})
    assert r.next_actor == 2
    assert r.active == [1, 2, 3]


# ---------------------------------------------------------------------- blinds (§2.3, BET-03/04)
def test_blinds_count_towards_high_but_are_not_actions():
    r = preflop()
    assert (r.high, r.last_full, r.contributed) == (200, 200, {3: 0, 4: 0, 1: 100, 2: 200})
    assert r.to_call(3) == 200 and r.to_call(1) == 100 and r.to_call(2) == 0
    assert r.next_actor == 3 and not r.complete
    assert r.min_raise_to() == 400


def test_bet03_small_blind_completes_by_calling_the_difference():
    r = preflop()
    clean(r, (3, 200), (4, "f"))
    d = act(r, 1, 200)
    assert (d.action, d.amount, d.to, d.violations) == ("call", 100, 200, ())
    assert r.stacks[1] == 9_800


@pytest.mark.rules("BET-09")
def test_bet03_small_blind_short_of_the_call_is_call_short():
    r = preflop()
    clean(r, (3, 600), (4, "f"))
    d = r.classify(1, 400)
    assert (d.action, names(d)) == ("call", ["call_short"])
    assert d.violations[0].rule == "BET-09" and "add 200" in d.violations[0].message


def test_bet04_big_blind_keeps_his_option_after_limpers():
    r = preflop()
    clean(r, (3, 200), (4, 200), (1, 200))
    assert not r.complete and r.next_actor == 2
    d = act(r, 2, "x")
    assert (d.action, d.violations) == ("check", ())
    assert r.complete and r.next_actor is None


def test_bet04_big_blind_option_raise_reopens_the_betting_for_everyone():
    r = preflop()
    clean(r, (3, 200), (4, 200), (1, 200))
    d = act(r, 2, 600)
    assert (d.action, d.full_raise, d.violations) == ("raise", True, ())
    assert r.next_actor == 3 and not r.complete
    assert r.classify(3, 1_000).violations == ()  # limpers may re-raise
    clean(r, (3, 600), (4, "f"), (1, 600))
    assert r.complete


def test_bet04_heads_up_button_completes_then_big_blind_has_the_option():
    r = BettingRound(street="preflop", order=action_order([2, 5], True, True),
                     stacks={2: 9_800, 5: 9_900}, posted={5: 100, 2: 200}, big_blind=200)
    assert r.next_actor == 5
    clean(r, (5, 200))
    assert r.next_actor == 2 and not r.complete
    clean(r, (2, "x"))
    assert r.complete


def test_bet04_walk_big_blind_wins_when_everyone_folds():
    r = preflop()
    clean(r, (3, "f"), (4, "f"), (1, "f"))
    assert r.complete and r.active == [2]


# ---------------------------------------------------------------------- check/bet/call/raise
def test_bet07_check_when_nothing_to_call():
    r = postflop()
    d = r.check(1)
    assert (d.action, d.amount, d.to, d.full_raise, d.violations) == ("check", 0, 0, False, ())
    assert r.classify(1, 0) == d  # a round total that did not move is a check too


@pytest.mark.rules("BET-07", "BET-02")
def test_bet07_check_facing_a_bet_is_illegal_check():
    r = postflop()
    clean(r, (1, 400))
    d = r.check(2)
    assert names(d) == ["illegal_check"] and d.violations[0].rule == "BET-07"
    assert "call 400" in d.violations[0].message
    assert names(preflop().check(3)) == ["illegal_check"]
    assert preflop().check(3).violations[0].rule == "BET-02"


def test_bet07_everybody_checks_completes_the_round():
    r = postflop()
    clean(r, (1, "x"), (2, "x"), (3, "x"))
    assert not r.complete
    clean(r, (4, "x"))
    assert r.complete and r.last_aggressor is None


def test_bet07_a_player_who_checked_may_raise_later_in_the_round():
    r = postflop()
    clean(r, (1, "x"), (2, 400), (3, "f"), (4, 400))
    d = act(r, 1, 1_200)
    assert (d.action, d.full_raise, d.violations) == ("raise", True, ())


def test_bet11_first_bet_after_the_flop_is_at_least_one_big_blind():
    r = postflop()
    assert r.min_raise_to() == 200
    d = r.classify(1, 200)
    assert (d.action, d.full_raise, d.violations) == ("bet", True, ())
    d = r.classify(1, 150)
    assert (d.action, names(d)) == ("bet", ["raise_below_minimum"])
    assert d.violations[0].rule == "BET-11" and "minimum bet is 200" in d.violations[0].message


def test_bet09_call_and_call_short():
    r = postflop()
    clean(r, (1, 500))
    d = r.classify(2, 500)
    assert (d.action, d.amount, d.full_raise, d.violations) == ("call", 500, False, ())
    d = r.classify(2, 300)
    assert (d.action, names(d)) == ("call", ["call_short"])


def test_bet09_all_in_call_for_less_is_allowed():
    r = postflop({1: 5_000, 2: 300, 3: 5_000})
    clean(r, (1, 1_000))
    d = act(r, 2, 300)
    assert (d.action, d.amount, d.full_raise, d.violations) == ("all_in", 300, False, ())
    assert r.high == 1_000 and r.stacks[2] == 0
    clean(r, (3, 1_000))
    assert r.complete


def test_bet09_exact_all_in_call_is_an_all_in_too():
    r = postflop({1: 5_000, 2: 1_000, 3: 5_000})
    clean(r, (1, 1_000))
    d = r.classify(2, 1_000)
    assert (d.action, d.full_raise, d.violations) == ("all_in", False, ())


@pytest.mark.rules("BET-11")
def test_bet11_raise_below_minimum_is_flagged():
    r = preflop()
    d = r.classify(3, 300)
    assert (d.action, d.full_raise, names(d)) == ("raise", False, ["raise_below_minimum"])
    assert "minimum raise is to 400" in d.violations[0].message


def test_bet11_min_raise_after_a_raise_is_the_last_full_increment():
    r = preflop()
    clean(r, (3, 600))  # a raise of 400
    assert (r.high, r.last_full, r.min_raise_to()) == (600, 400, 1_000)
    assert names(r.classify(4, 900)) == ["raise_below_minimum"]
    d = act(r, 4, 1_000)
    assert d.full_raise and d.violations == ()
    clean(r, (1, 3_000))  # a raise of 2 000
    assert (r.last_full, r.min_raise_to()) == (2_000, 5_000)


def test_bet11_applied_short_raise_raises_high_but_not_the_minimum_increment():
    r = preflop()
    act(r, 3, 300)  # flagged, but the chips are there
    assert (r.high, r.last_full) == (300, 200)


def test_bet06_bet_and_calls_complete_the_round_and_a_raise_reopens_it():
    r = postflop()
    clean(r, (1, 400), (2, 400), (3, 400))
    assert r.next_actor == 4
    clean(r, (4, 1_200))
    assert [r.next_actor, r.complete] == [1, False]
    clean(r, (1, 1_200), (2, "f"), (3, 1_200))
    assert r.complete and r.next_actor is None and r.last_aggressor == 4


def test_bet06_one_active_player_left_completes_the_round():
    r = postflop()
    clean(r, (1, 400), (2, "f"), (3, "f"), (4, "f"))
    assert r.complete and r.active == [1]


def test_bet06_nobody_to_bet_against_completes_the_round_at_once():
    r = postflop({1: 0, 2: 0, 3: 4_000})  # two all-in from an earlier street
    assert r.complete and r.next_actor is None


def test_bet06_a_player_facing_an_all_in_must_still_call_or_fold():
    r = postflop({1: 600, 2: 4_000})
    clean(r, (1, 600))
    assert r.next_actor == 2 and not r.complete
    clean(r, (2, 600))
    assert r.complete


# ---------------------------------------------------------------------- re-raise rights
def test_bet12_raising_your_own_bet_again_is_not_allowed():
    r = postflop()
    clean(r, (1, 400))
    d = r.classify(1, 1_000)
    assert names(d) == ["action_out_of_turn", "reraise_not_allowed"]
    assert d.violations[1].rule == "BET-12"


def test_bet12_raising_again_after_another_player_raised_is_allowed():
    r = postflop()
    clean(r, (1, 400), (2, 1_000), (3, "f"), (4, "f"))
    assert r.classify(1, 2_000).violations == ()


def t16() -> BettingRound:
    """RULES.md T16: flop, pot 800; S1 b1000, S2 c1000, S3 all-in 1500."""
    r = postflop({1: 9_800, 2: 9_800, 3: 1_500, 4: 9_800})
    clean(r, (1, 1_000), (2, 1_000))
    return r


@pytest.mark.rules("BET-13")
def test_bet13_incomplete_allin_raise_is_info_and_keeps_the_minimum_increment():
    r = t16()
    d = act(r, 3, 1_500)
    assert (d.action, d.full_raise, names(d)) == ("all_in", False, ["incomplete_allin_raise"])
    assert d.violations[0].rule == "BET-13" and d.violations[0].severity == "info"
    assert (r.high, r.last_full, r.min_raise_to()) == (1_500, 1_000, 2_500)
    assert r.last_aggressor == 3


@pytest.mark.rules("BET-14")
def test_bet14_incomplete_allin_does_not_reopen_for_players_who_acted():
    r = t16()
    act(r, 3, 1_500)
    clean(r, (4, "f"))
    assert r.next_actor == 1
    d = r.classify(1, 3_000)
    assert names(d) == ["reraise_after_incomplete_allin"]
    assert d.violations[0].rule == "BET-14" and d.violations[0].severity == "warning"
    assert r.classify(1, 1_500).violations == ()  # he may call it
    clean(r, (1, 1_500))
    assert names(r.classify(2, 2_500)) == ["reraise_after_incomplete_allin"]
    clean(r, (2, 1_500))
    assert r.complete
    assert sum(r.contributed.values()) + r.pot == 5_300


def test_bet13_player_who_has_not_acted_may_raise_after_incomplete_allin():
    r = t16()
    act(r, 3, 1_500)
    d = act(r, 4, 2_500)  # T16 variant: H 1 500 + L 1 000
    assert (d.action, d.full_raise, d.violations) == ("raise", True, ())
    assert r.classify(1, 4_000).violations == ()  # the full raise reopens for S1 and S2


def test_bet14_several_short_allins_together_reopen_under_tda_rule():
    r = postflop({1: 9_800, 2: 1_500, 3: 2_000, 4: 9_800})
    clean(r, (1, 1_000))
    act(r, 2, 1_500)  # +500
    act(r, 3, 2_000)  # +500 more: 1 000 since S1 acted, a full raise together
    clean(r, (4, 2_000))
    assert r.classify(1, 4_000).violations == ()


def test_bet14_seed_literal_several_short_allins_do_not_reopen_for_a_caller():
    r = postflop({1: 9_800, 2: 9_800, 3: 1_500, 4: 2_000}, reopen_rule="seed_literal")
    clean(r, (1, 1_000), (2, 1_000))
    act(r, 3, 1_500)
    act(r, 4, 2_000)
    assert names(r.classify(2, 4_000)) == ["action_out_of_turn", "reraise_after_incomplete_allin"]


def test_bet14_seed_literal_a_player_who_had_raised_may_raise_again():
    r = t16()
    r.reopen_rule = "seed_literal"
    act(r, 3, 1_500)
    clean(r, (4, "f"))
    assert r.classify(1, 3_000).violations == ()  # S1 had bet: the literal seed lets him
    clean(r, (1, 1_500))
    assert names(r.classify(2, 2_500)) == ["reraise_after_incomplete_allin"]  # S2 had called


def test_bet14_unknown_reopen_rule_is_refused():
    with pytest.raises(ValueError, match="reopen rule"):
        postflop(reopen_rule="house")


# ---------------------------------------------------------------------- out of turn (BET-15)
def test_bet15_action_out_of_turn_is_flagged_and_still_classified():
    r = postflop()
    d = r.classify(2, 400)
    assert (d.action, d.full_raise, names(d)) == ("bet", True, ["action_out_of_turn"])
    assert "seat 1 is to act" in d.violations[0].message


def test_bet15_skipped_player_acts_next_after_an_out_of_turn_action():
    r = postflop()
    act(r, 2, 400)  # S2 out of turn: the chips stay
    assert r.next_actor == 1
    clean(r, (1, 1_000))
    assert r.next_actor == 2  # his bet is below S1's: he acts again


def test_bet15_out_of_turn_fold_stands_and_action_after_the_round_is_out_of_turn():
    r = postflop()
    d = act(r, 3, "f")
    assert names(d) == ["action_out_of_turn"] and 3 in r.folded
    clean(r, (1, "x"), (2, "x"), (4, "x"))
    assert r.complete
    d = r.classify(1, 400)
    assert "betting round is complete" in d.violations[0].message


# ---------------------------------------------------------------------- limits (BET-19)
def test_bet19_no_limit_maximum_is_the_stack():
    r = postflop({1: 9_800, 2: 300})
    assert r.max_to(1) == 9_800 and r.max_to(2) == 300
    assert r.classify(1, 9_800).violations == ()


def test_bet19_pot_limit_maximum_preflop_and_after_a_bet():
    r = preflop(structure=Structure.POT_LIMIT)
    assert r.max_to(3) == 700  # call 200, then the pot of 500: to 700
    assert r.max_to(1) == 600  # SB: call 100, then the pot of 400: to 600
    assert names(r.classify(3, 800)) == ["bet_exceeds_limit"]
    assert "pot-limit maximum is 700" in r.classify(3, 800).violations[0].message
    p = postflop(pot=300, structure=Structure.POT_LIMIT)
    assert p.max_to(1) == 300
    clean(p, (1, 200))
    assert p.max_to(2) == 900  # 200 + (300 + 200 + 200)
    assert p.classify(2, 900).violations == ()


def test_bet19_pot_limit_all_in_above_the_pot_is_over_the_limit():
    r = postflop({1: 5_000, 2: 5_000}, pot=300, structure=Structure.POT_LIMIT)
    d = r.classify(1, 5_000)
    assert (d.action, names(d)) == ("all_in", ["bet_exceeds_limit"])


def test_bet19_fixed_limit_bets_and_raises_are_one_unit():
    r = postflop(structure=Structure.FIXED_LIMIT, bet_unit=400)  # turn: the big bet
    assert (r.min_raise_to(), r.max_to(1)) == (400, 400)
    assert r.classify(1, 400).violations == ()
    assert names(r.classify(1, 200)) == ["raise_below_minimum"]
    assert names(r.classify(1, 800)) == ["bet_exceeds_limit"]
    clean(r, (1, 400))
    assert (r.min_raise_to(), r.max_to(2)) == (800, 800)


def test_bet19_fixed_limit_cap_allows_only_a_call():
    r = postflop(structure=Structure.FIXED_LIMIT)
    clean(r, (1, 200), (2, 400), (3, 600), (4, 800))  # bet and three raises: capped
    assert r.max_to(1) == 800
    d = r.classify(1, 1_000)
    assert names(d) == ["bet_exceeds_limit"] and "cap of 4 bets" in d.violations[0].message
    assert r.classify(1, 800).violations == ()


def test_bet19_fixed_limit_preflop_big_blind_is_the_first_bet_of_the_cap():
    r = preflop(structure=Structure.FIXED_LIMIT)
    clean(r, (3, 400), (4, 600), (1, 800))
    assert r.max_to(2) == 800 and names(r.classify(2, 1_000)) == ["bet_exceeds_limit"]
    r = preflop(structure=Structure.FIXED_LIMIT, cap=None)
    clean(r, (3, 400), (4, 600), (1, 800))
    assert r.classify(2, 1_000).violations == ()


def test_structure_parses_the_setting_spelling():
    assert Structure.parse("fixed_limit") is Structure.FIXED_LIMIT
    assert Structure.parse("no-limit") is Structure.NO_LIMIT
    with pytest.raises(ValueError, match="unknown betting structure"):
        Structure.parse("spread")


# ---------------------------------------------------------------------- booking and errors
def test_apply_books_chips_and_last_aggressor():
    r = postflop()
    clean(r, (1, 400), (2, 1_200))
    assert r.contributed == {1: 400, 2: 1_200, 3: 0, 4: 0}
    assert r.stacks == {1: 9_400, 2: 8_600, 3: 9_800, 4: 9_800}
    assert r.last_aggressor == 2


def test_classify_changes_nothing():
    r = postflop()
    before = (r.high, dict(r.contributed), dict(r.stacks), r.next_actor)
    r.classify(1, 800)
    r.check(1)
    r.fold(1)
    assert (r.high, r.contributed, r.stacks, r.next_actor) == before


def test_seats_out_of_the_hand_or_folded_are_refused_clearly():
    r = postflop()
    with pytest.raises(ValueError, match="seat 9 is not in this hand"):
        r.classify(9, 100)
    act(r, 1, "f")
    with pytest.raises(ValueError, match="seat 1 has folded"):
        r.check(1)


def test_classification_never_invents_or_takes_back_chips():
    r = postflop({1: 500, 2: 500})
    with pytest.raises(ValueError, match="has 500 behind"):
        r.classify(1, 600)
    clean(r, (1, 300))
    with pytest.raises(ValueError, match="take chips back"):
        r.classify(1, 200)


def test_stale_decision_is_refused_by_apply():
    r = postflop()
    d = r.classify(1, 400)
    r.apply(d)
    with pytest.raises(ValueError, match="stale decision"):
        r.apply(d)


def test_all_in_player_has_no_action_left():
    r = postflop({1: 0, 2: 5_000, 3: 5_000})
    d = r.check(1)
    assert (d.action, d.violations) == ("check", ())
    assert r.fold(1).violations == ()


def _owes(r: BettingRound, seat: int) -> bool:
    """RULES.md §2.3 read literally: can act, and has chips to call or has not acted since H
    changed while someone else could still bet against him."""
    can_act = [s for s in r.order if s not in r.folded and r.stacks[s] > 0]
    if seat not in can_act:
        return False
    return r.contributed[seat] < r.high or (seat not in r._acted and len(can_act) > 1)


def test_turn_and_completion_follow_the_round_values_after_any_action_in_any_order():
    """``complete`` and ``next_actor`` are worked out together in one walk round the table;
    after every action, in turn or not, legal or not, they are what the rules say."""
    rng = random.Random(11)
    for _ in range(400):
        seats = rng.sample(range(1, 11), rng.randint(2, 9))
        stacks = {s: rng.choice([0, 50, 150, 400, 1000, 5000]) for s in seats}
        posted = {seats[0]: 50, seats[1]: 100} if rng.random() < 0.5 else {}
        r = BettingRound(street="preflop" if posted else "flop", order=seats, stacks=stacks,
                         posted=posted, big_blind=100,
                         structure=rng.choice(list(Structure)))
        for _ in range(rng.randint(0, 25)):
            active = len(r.order) - len(r.folded)
            assert r.complete == (active <= 1 or not any(_owes(r, s) for s in r.order))
            n = len(r.order)
            owing = [r.order[(r._pointer + k) % n] for k in range(1, n + 1)
                     if _owes(r, r.order[(r._pointer + k) % n])]
            assert r.next_actor == (None if r.complete else owing[0])
            assert r.active == [s for s in r.order if s not in r.folded]
            live = r.active
            if not live:
                break
            seat = r.next_actor if r.next_actor is not None and rng.random() < 0.7 else \
                rng.choice(live)
            room = r.stacks[seat]
            pick = rng.random()
            if pick < 0.15:
                d = r.fold(seat)
            elif pick < 0.4 or room == 0:
                d = r.check(seat)
            else:
                c = r.contributed[seat]
                d = r.classify(seat, c + min(room, rng.choice(
                    [room, max(0, r.high - c), rng.randint(1, room)])))
            r.apply(d)
