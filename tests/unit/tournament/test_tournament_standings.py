"""Finishing places, prizes and the field summary a director and the clock screen show."""

from __future__ import annotations

import pytest

from tablesvc.tournament.standings import (
    Entry,
    bust_places,
    place_prizes,
    prize_pool,
    prizes,
    summary,
)
from tablesvc.tournament.structure import Payouts

PERCENT = Payouts(percent=(50.0, 30.0, 20.0), amounts=None, buy_in=100)
AMOUNTS = Payouts(percent=None, amounts=(5000, 3000, 2000), buy_in=0)


def test_two_busted_in_one_hand_the_larger_starting_stack_places_higher() -> None:
    assert bust_places({"small": 3000, "big": 5000}, players_left_before=10) == {
        "big": 9, "small": 10}


def test_equal_starting_stacks_tie_on_the_better_place_and_the_next_is_skipped() -> None:
    assert bust_places({"a": 4000, "b": 4000}, 10) == {"a": 9, "b": 9}
    # three out: the largest takes 8th, the two equal ones share 9th (10th is skipped)
    assert bust_places({"a": 3000, "b": 3000, "c": 5000}, 10) == {"c": 8, "a": 9, "b": 9}


def test_one_bust_takes_the_last_place_and_more_busts_than_players_are_refused() -> None:
    assert bust_places({"a": 100}, 24) == {"a": 24}
    with pytest.raises(ValueError, match="3 busted but only 2 were left"):
        bust_places({"a": 1, "b": 2, "c": 3}, 2)


def test_the_prize_pool_is_entries_times_buy_in_for_percent_and_the_sum_for_amounts() -> None:
    assert prize_pool(PERCENT, 40) == 4000
    assert prize_pool(AMOUNTS, 40) == 10000


def test_percent_prizes_are_whole_units_that_add_up_to_the_pool() -> None:
    assert place_prizes(PERCENT, 40) == [2000, 1200, 800]
    thirds = Payouts(percent=(33.33, 33.33, 33.34), amounts=None, buy_in=1)
    # 100 in the pool: 33 + 33 + 33 rounded down, the unit left goes to the winner
    assert place_prizes(thirds, 100) == [34, 33, 33]
    assert place_prizes(AMOUNTS, 40) == [5000, 3000, 2000]


def test_each_place_gets_its_prize_and_unpaid_places_get_nothing() -> None:
    places = {"a": 1, "b": 2, "c": 3, "d": 4}
    assert prizes(PERCENT, 10, places) == {"a": 500, "b": 300, "c": 200, "d": 0}
    assert prizes(AMOUNTS, 10, places) == {"a": 5000, "b": 3000, "c": 2000, "d": 0}


def test_tied_players_split_the_prizes_of_the_places_they_cover() -> None:
    # b and c tie on 2nd: they cover 2nd and 3rd, 3000 + 2000 = 5000, 2500 each
    assert prizes(AMOUNTS, 10, {"a": 1, "b": 2, "c": 2}) == {"a": 5000, "b": 2500, "c": 2500}
    # tied on 3rd with three places paid: they cover 3rd (2000) and 4th (nothing)
    assert prizes(AMOUNTS, 10, {"x": 3, "y": 3}) == {"x": 1000, "y": 1000}


def test_an_odd_unit_in_a_split_goes_to_the_first_of_the_tie_by_player_id() -> None:
    odd = Payouts(percent=None, amounts=(500, 301, 200), buy_in=0)
    assert prizes(odd, 10, {"q": 2, "p": 2}) == {"p": 251, "q": 250}


def entry(player: str, stack: int | None, place: int | None = None) -> Entry:
    return Entry(player, player.upper(), "t01" if place is None else None, 1, stack, place)


def test_the_summary_counts_the_players_left_their_average_in_chips_and_bb_and_the_leader(
        ) -> None:
    field = [entry("a", 30000), entry("b", 50000), entry("c", 20000), entry("d", 0, place=4)]
    s = summary(field, big_blind=400)
    assert (s.players_left, s.total_chips) == (3, 100000)
    assert s.average_stack == pytest.approx(33333.33, abs=0.01)
    assert s.average_bb == pytest.approx(83.33, abs=0.01)
    assert s.chip_leader == field[1]


def test_the_summary_with_equal_leaders_unknown_stacks_or_no_level() -> None:
    s = summary([entry("b", 500), entry("a", 500), entry("c", None)], big_blind=None)
    assert s.players_left == 3 and s.average_stack == 500 and s.average_bb is None
    assert s.chip_leader is not None and s.chip_leader.player == "a"
    empty = summary([], big_blind=100)
    assert (empty.players_left, empty.average_stack, empty.average_bb, empty.chip_leader) == (
        0, 0.0, None, None)
