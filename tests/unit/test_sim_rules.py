"""The simulator's own reading of the rules: chips, betting order, pots, hand strength."""

from __future__ import annotations

import random

import pytest

from simulators.betting import Action, BettingRound, Pot, build_pots, split_pot
from simulators.chips import ChipPile, deal_stacks, take_exact
from simulators.decks import make_chipset
from simulators.handeval import best_hand, describe, rank5

# chips ---------------------------------------------------------------------------------------


def _chips() -> dict[str, int]:
    return make_chipset(random.Random(11))


def test_take_exact_picks_chips_worth_exactly_the_amount() -> None:
    values = {"A": 100, "B": 100, "C": 25, "D": 25, "E": 500}
    picked = take_exact(list(values), values, 150)
    assert picked is not None and sum(values[u] for u in picked) == 150
    assert take_exact(["A", "B"], values, 150) is None


def test_pile_makes_change_at_the_float_when_it_lacks_small_chips() -> None:
    chips = _chips()
    float_ = ChipPile(chips, chips)
    big = next(u for u, v in chips.items() if v == 5000)
    float_.remove([big])
    pile = ChipPile(chips, [big])
    taken = pile.take(75, float_)
    assert sum(chips[u] for u in taken) == 75
    assert pile.value == 4925
    assert float_.value + pile.value + 75 == sum(chips.values())


def test_deal_stacks_gives_every_seat_its_exact_stack() -> None:
    chips = _chips()
    float_ = ChipPile(chips, chips)
    piles = deal_stacks(float_, {1: 10_000, 4: 2_525, 9: 300})
    assert {s: p.value for s, p in piles.items()} == {1: 10_000, 4: 2_525, 9: 300}
    handed = [u for p in piles.values() for u in p.uids]
    assert len(handed) == len(set(handed)) and not set(handed) & set(float_.uids)


def test_colour_up_keeps_a_zone_within_a_frame_without_changing_its_value() -> None:
    chips = _chips()
    float_ = ChipPile(chips, chips)
    small = [u for u, v in chips.items() if v == 25][:40]
    float_.remove(small)
    pot = ChipPile(chips, small)
    assert pot.colour_up(float_, 8)
    assert len(pot) <= 8 and pot.value == 1000


# betting order -------------------------------------------------------------------------------


def test_preflop_round_ends_only_after_the_big_blind_checks_its_option() -> None:
    # seats 1 (SB) 2 (BB) 3 4; first to act is 3, the seat left of the big blind
    rnd = BettingRound(
        order=[3, 4, 1, 2], stacks=dict.fromkeys((1, 2, 3, 4), 1000), bets={1: 50, 2: 100}, high=100
    )
    seen = []
    while (seat := rnd.next_actor()) is not None:
        action = Action.CHECK if rnd.to_call(seat) == 0 else Action.CALL
        seen.append((seat, action, rnd.act(seat, action)))
    assert seen == [
        (3, Action.CALL, 100),
        (4, Action.CALL, 100),
        (1, Action.CALL, 50),
        (2, Action.CHECK, 0),
    ]


def test_folded_seat_is_skipped_and_a_lone_player_ends_the_round() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 1000, 2: 1000}, bets={1: 50, 2: 100}, high=100)
    assert rnd.next_actor() == 1
    rnd.act(1, Action.FOLD)
    assert rnd.next_actor() is None and rnd.live == {2}


def test_acting_out_of_turn_is_refused() -> None:
    rnd = BettingRound(order=[1, 2, 3], stacks=dict.fromkeys((1, 2, 3), 1000))
    with pytest.raises(ValueError, match="not the seat to act"):
        rnd.act(2, Action.CHECK)


def test_short_stack_calls_all_in_for_less_and_then_cannot_act() -> None:
    rnd = BettingRound(
        order=[3, 1, 2], stacks={1: 1000, 2: 1000, 3: 60}, bets={1: 50, 2: 100}, high=100
    )
    assert rnd.act(3, Action.CALL) == 60
    assert not rnd.can_act(3)


def test_no_betting_when_at_most_one_player_can_still_bet() -> None:
    rnd = BettingRound(order=[1, 2], stacks={1: 0, 2: 900})
    assert rnd.next_actor() is None


# pots ----------------------------------------------------------------------------------------


def test_side_pot_for_an_all_in_player() -> None:
    pots = build_pots({1: 100, 2: 100, 3: 40}, live={1, 2, 3})
    assert pots == [Pot(120, frozenset({1, 2, 3})), Pot(120, frozenset({1, 2}))]


def test_uncalled_excess_over_an_all_in_goes_back_to_its_owner() -> None:
    pots = build_pots({1: 30, 2: 100}, live={1, 2})
    assert pots == [Pot(60, frozenset({1, 2})), Pot(70, frozenset({2}))]


def test_folded_chips_stay_in_the_pot_they_were_bet_into() -> None:
    pots = build_pots({1: 100, 2: 100, 3: 50}, live={1, 2})
    assert pots == [Pot(250, frozenset({1, 2}))]


def test_odd_chip_goes_to_the_first_winner_left_of_the_button() -> None:
    assert split_pot(175, [4, 1], unit=25) == {4: 100, 1: 75}
    assert split_pot(150, [4, 1, 2], unit=25) == {4: 50, 1: 50, 2: 50}


# hand strength -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("As Ks Qs Js Ts", "9h 9d 9c 9s 2d"),  # royal flush > quads
        ("5d 4d 3d 2d Ad", "Kh Kd Kc 2s 2d"),  # steel wheel > full house
        ("Kh Kd Kc 3s 3d", "Qh Qd Qc As Ad"),  # trips decide a full house
        ("2h 4h 6h 8h Th", "As Ks Qd Jc Th"),  # flush > straight
        ("6c 5d 4h 3s 2c", "5s 4d 3c 2h Ad"),  # six-high straight > wheel
        ("Ah Ad 9c 8s 2c", "Ah Ad 9c 7s 6c"),  # kicker
        ("Th Td 4c 4s 2c", "9h 9d 8c 8s Ac"),  # higher top pair of two pair
    ],
)
def test_hand_ranking_order(better: str, worse: str) -> None:
    assert rank5(better.split()) > rank5(worse.split())


def test_wheel_is_a_five_high_straight_and_no_wrap_around() -> None:
    assert rank5(["5s", "4d", "3c", "2h", "Ad"]) == (4, 5)
    assert rank5(["Qs", "Kd", "Ac", "2h", "3d"])[0] == 0


def test_best_of_seven_may_play_the_board() -> None:
    board = ["As", "Ks", "Qs", "Js", "Ts"]
    assert best_hand(["2c", "3d", *board]) == best_hand(["4h", "7c", *board])
    assert describe(best_hand(["2c", "3d", *board])) == "straight flush"
