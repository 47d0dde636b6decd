"""Pots, split pots and the odd chip (RULES.md POT-01..POT-08, A-42): pure, no I/O."""

from __future__ import annotations

import doctest

import pytest

from tablesvc.core import pots
from tablesvc.core.pots import Award, Pot, award_pots, build_pots
from tablesvc.core.showdown import evaluate

SEATS = [1, 2, 3, 4, 5, 6]


def test_doctests_of_the_module_hold():
    assert doctest.testmod(pots).failed == 0


# ---------------------------------------------------------------------- building (POT-01/02)
def test_pot01_no_all_in_is_one_pot_with_folded_chips_in_it():
    assert build_pots({1: 100, 2: 600, 3: 600, 4: 0}, live=[2, 3]) == [Pot(1_300, (2, 3))]


def test_pot01_t18_two_all_ins_make_a_main_and_a_side_pot():
    got = build_pots({1: 300, 2: 800, 3: 800}, live=[1, 2, 3])
    assert got == [Pot(900, (1, 2, 3)), Pot(1_000, (2, 3))]


def test_pot01_several_all_ins_and_folded_contributions_reach_their_levels():
    # S1 all-in 200, S2 all-in 500, S3 folded after putting in 400, S4 and S5 covered 1 000
    contributions = {1: 200, 2: 500, 3: 400, 4: 1_000, 5: 1_000}
    got = build_pots(contributions, live=[1, 2, 4, 5])
    assert got == [
        Pot(5 * 200, (1, 2, 4, 5)),  # everyone reached 200
        Pot(300 + 200 + 300 + 300, (2, 4, 5)),  # S3's 200 between 200 and 400 stays here
        Pot(2 * 500, (4, 5)),
    ]
    assert sum(p.amount for p in got) == sum(contributions.values())


def test_pot02_all_in_player_is_eligible_only_up_to_his_level():
    got = build_pots({1: 50, 2: 300, 3: 300}, live=[1, 2, 3])
    assert [p.eligible for p in got] == [(1, 2, 3), (2, 3)]


def test_pot02_folded_seat_is_never_eligible():
    got = build_pots({1: 800, 2: 800, 3: 800}, live=[2, 3])
    assert got == [Pot(2_400, (2, 3))]


def test_pot01_uncalled_bet_is_its_own_pot_for_the_bettor():
    got = build_pots({1: 2_000, 2: 500}, live=[1, 2])  # S2 all-in for 500
    assert got == [Pot(1_000, (1, 2)), Pot(1_500, (1,))]
    awards = award_pots(got, {1: 1, 2: 9}, button=2, seats_clockwise=[1, 2], unit=25)
    assert awards[1].shares == {1: 1_500} and awards[0].shares == {2: 1_000}


def test_pot08_foul_hand_chips_above_every_live_level_stay_in_the_top_pot():
    # S3 bet 900, then his hand was declared foul: nobody gets his bet back
    got = build_pots({1: 400, 2: 400, 3: 900}, live=[1, 2])
    assert got == [Pot(1_700, (1, 2))]


def test_pot07_single_live_seat_takes_everything_without_a_hand():
    got = build_pots({1: 100, 2: 200, 3: 600}, live=[3])
    assert got == [Pot(900, (3,))]
    [a] = award_pots(got, {}, button=1, seats_clockwise=[1, 2, 3], unit=25)
    assert a == Award(0, 900, (3,), {3: 900}, None)


def test_build_pots_refuses_impossible_inputs():
    with pytest.raises(ValueError, match="no live seat"):
        build_pots({1: 100}, live=[])
    with pytest.raises(ValueError, match="negative"):
        build_pots({1: -5, 2: 10}, live=[2])
    with pytest.raises(ValueError, match="put no chips in"):
        build_pots({1: 100, 2: 0}, live=[2])


# ---------------------------------------------------------------------- awarding (POT-02..04)
def test_pot02_t18_main_and_side_pot_go_to_different_winners():
    board = ["Ks", "9d", "5c", "2h", "Jd"]
    hands = {1: ["Kh", "Kd"], 2: ["As", "Ah"], 3: ["8c", "7c"]}
    strength = {s: evaluate([*h, *board]) for s, h in hands.items()}
    got = award_pots(build_pots({1: 300, 2: 800, 3: 800}, [1, 2, 3]), strength, button=3,
                     seats_clockwise=[1, 2, 3], unit=25)
    assert [(a.pot, a.amount, a.winners, a.shares) for a in got] == [
        (0, 900, (1,), {1: 900}), (1, 1_000, (2,), {2: 1_000})]
    assert strength[1].name == "three of a kind, kings"
    assert strength[2].name == "a pair of aces"


def test_pot03_equal_hands_split_the_pot_equally():
    [a] = award_pots([Pot(1_000, (1, 3, 5))], {1: 7, 3: 7, 5: 2}, button=6,
                     seats_clockwise=SEATS, unit=25)
    assert (a.winners, a.shares, a.odd_chip_seat) == ((1, 3), {1: 500, 3: 500}, None)


def test_pot04_odd_chip_goes_to_first_winner_left_of_button():
    # T19: 1 025 in chips of 25 between S2 and S6, button S4 -> S6 is first clockwise
    [a] = award_pots([Pot(1_025, (2, 6))], {2: 3, 6: 3}, button=4, seats_clockwise=SEATS,
                     unit=25)
    assert (a.shares, a.odd_chip_seat) == ({6: 525, 2: 500}, 6)


def test_pot04_odd_chip_wraps_around_past_the_last_seat():
    [a] = award_pots([Pot(1_025, (2, 6))], {2: 3, 6: 3}, button=6, seats_clockwise=SEATS,
                     unit=25)
    assert (a.shares, a.odd_chip_seat) == ({2: 525, 6: 500}, 2)


def test_pot04_remainder_in_units_goes_whole_to_one_winner():
    # 3 winners, 1 100 in chips of 100: 11 units -> 3 each, the 2 units left go to one seat
    [a] = award_pots([Pot(1_100, (1, 3, 5))], dict.fromkeys((1, 3, 5), 1), button=2,
                     seats_clockwise=SEATS, unit=100)
    assert a.shares == {3: 500, 5: 300, 1: 300} and a.odd_chip_seat == 3
    assert sum(a.shares.values()) == 1_100


def test_pot04_amount_that_is_not_a_multiple_of_the_unit_still_adds_up():
    [a] = award_pots([Pot(1_030, (1, 2))], {1: 1, 2: 1}, button=2, seats_clockwise=[1, 2],
                     unit=25)
    assert a.shares == {1: 530, 2: 500}  # 41 units + 5: 20 units each, 1 unit + 5 to S1


def test_pot04_a42_each_pot_is_split_and_its_odd_chip_assigned_separately():
    got = award_pots([Pot(75, (1, 2, 3)), Pot(50, (2, 3))], {1: 1, 2: 5, 3: 5}, button=2,
                     seats_clockwise=[1, 2, 3], unit=25)
    assert [(a.shares, a.odd_chip_seat) for a in got] == [
        ({3: 50, 2: 25}, 3), ({3: 25, 2: 25}, None)]


def test_pot04_dead_button_seat_list_starting_left_of_the_button():
    # the button sits on an empty seat 4; the deal order s_1..s_N starts at seat 5
    [a] = award_pots([Pot(125, (1, 5))], {1: 2, 5: 2}, button=4, seats_clockwise=[5, 1, 2],
                     unit=25)
    assert a.odd_chip_seat == 5


def test_pot03_hand_values_tie_whatever_the_suits():
    board = ["9h", "Th", "Jc", "Qd", "Ks"]
    strength = {6: evaluate(["4d", "4s", *board]), 2: evaluate(["2c", "3c", *board])}
    [a] = award_pots([Pot(1_025, (2, 6))], strength, button=4, seats_clockwise=SEATS, unit=25)
    assert a.winners == (2, 6) and a.shares == {6: 525, 2: 500}


def test_award_pots_refuses_missing_hands_and_bad_units():
    with pytest.raises(ValueError, match="no hand strength for seat"):
        award_pots([Pot(100, (1, 2))], {1: 1}, button=2, seats_clockwise=[1, 2], unit=1)
    with pytest.raises(ValueError, match="unit must be positive"):
        award_pots([Pot(100, (1, 2))], {1: 1, 2: 1}, button=2, seats_clockwise=[1, 2], unit=0)
    with pytest.raises(ValueError, match="not in the seats"):
        award_pots([Pot(100, (1, 7))], {1: 1, 7: 1}, button=2, seats_clockwise=[1, 2], unit=1)
