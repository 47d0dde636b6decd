"""Balancing moves worked out by hand from seed 000 §Balancing the tables (L76-78).

L76, variant 1 (TABLE-03, A-33): "Wenn Tische balanciert werden, sollte der Spieler in der
gleichen Position von dem volleren Tisch wechseln an den freien Platz des schwächeren Tisch
einsteigen." - the player in the same position at the fuller table takes the free seat at the
weaker one; "position" is counted in seats clockwise from each table's big blind.

L77-78, variant 2 (TABLE-04, A-34): "Der Spieler nach dem BigBlind (UTG) vom volleren Tisch
wechseln und den Platz an weitesten vom BigBlind am schwächeren Tisch einsteigen." - the
player after the big blind leaves the fuller table and takes the seat "farthest from the big
blind", read as the one that gets the big blind soonest (never the SB, never between button
and SB, TABLE-02).

Players are named after their table and seat: ``t01s4`` sits in seat 4 of t01.
"""

from __future__ import annotations

import pytest

from tablesvc.tournament.balancing import Suggestion, suggest
from tablesvc.tournament.seating import TableSeats


def t(name: str, seats: int, vacant: set[int], button: int | None = None,
      sb: int | None = None, bb: int | None = None, open_: bool = True) -> TableSeats:
    taken = {s: f"{name}s{s}" for s in range(1, seats + 1) if s not in vacant}
    return TableSeats(name, seats, taken, button, sb, bb, open_)


def move(s: Suggestion | None) -> tuple[str, str, int, str, int, str]:
    assert s is not None
    return (s.player, s.from_table, s.from_seat, s.to_table, s.to_seat, s.rule)


# t01: 9 seats, 9 players, button 1, SB 2, BB 3.
FULL = t("t01", 9, set(), 1, 2, 3)
# t02: 9 seats, 7 players (seats 1 and 7 empty), button 2, SB 3, BB 4.
SHORT = t("t02", 9, {1, 7}, 2, 3, 4)


def test_variant_1_the_player_as_far_from_his_big_blind_as_the_free_seat_is_from_its() -> None:
    # t02: clockwise after its BB 4 come 5, 6, 7: seat 7 is the first free seat, 3 seats after
    # the BB. t01: 3 seats after its BB 3 is seat 6, so t01s6 moves to t02 seat 7.
    s = suggest([FULL, SHORT], variant=1)
    assert move(s) == ("t01s6", "t01", 6, "t02", 7, "TABLE-03")
    assert s is not None and s.reason == (
        "t01 has 9 players, t02 has 7: the free seat 7 at t02 is 3 seat(s) clockwise from the "
        "big blind (its big blind is seat 4); at t01 the same position (its big blind is seat "
        "3) is seat 6: t01s6 moves there (TABLE-03).")


def test_variant_2_the_utg_of_the_fuller_table_takes_the_seat_next_to_get_the_big_blind(
        ) -> None:
    # t01: the player after the BB 3 is seat 4 (UTG, the next big blind): t01s4 moves.
    # t02: the free seats are 7 and 1; clockwise after its BB 4, seat 7 comes first, so it
    # gets the big blind soonest: t01s4 -> t02 seat 7.
    s = suggest([FULL, SHORT], variant=2)
    assert move(s) == ("t01s4", "t01", 4, "t02", 7, "TABLE-04")
    assert s is not None
    assert "t01s4 in seat 4 is under the gun at t01" in s.reason
    assert "moves to seat 7 at t02, the free seat that gets the big blind soonest" in s.reason


def test_variant_1_when_the_same_seat_is_empty_the_next_occupied_one_clockwise_moves() -> None:
    # t01: 10 seats, seats 6 and 7 empty (8 players), button 1, SB 2, BB 3.
    # t02: 9 seats, seats 7, 8, 9 empty (6 players), button 2, SB 3, BB 4.
    # t02's first free seat after its BB 4 is seat 7, 3 seats on. At t01, 3 seats after BB 3
    # is seat 6: empty, as is 7; the next occupied seat clockwise is 8: t01s8 moves.
    full = t("t01", 10, {6, 7}, 1, 2, 3)
    short = t("t02", 9, {7, 8, 9}, 2, 3, 4)
    s = suggest([full, short], variant=1)
    assert move(s) == ("t01s8", "t01", 8, "t02", 7, "TABLE-03")
    assert s is not None and "seat 6 is empty there, so the next occupied seat clockwise, " \
        "seat 8" in s.reason


def test_variant_1_never_targets_a_seat_between_button_and_sb_and_may_target_the_bb_seat(
        ) -> None:
    # t02: 9 seats, button 8, SB 1, BB 2. Seat 9 (between button 8 and SB 1, TABLE-02) and
    # seat 2 (the BB of the last hand, who busted) are empty. Clockwise after the BB: 3..8,
    # then 9 (not allowed), 1, 2: the only seat a player may take is 2, 9 seats on. At t01,
    # 9 seats after its BB 3 is seat 3 itself: its big blind t01s3 moves there.
    short = t("t02", 9, {9, 2}, 8, 1, 2)
    assert move(suggest([FULL, short], variant=1)) == ("t01s3", "t01", 3, "t02", 2, "TABLE-03")


def test_variant_2_never_the_small_blind_seat() -> None:
    # t02: 9 seats, button 2, SB 3, BB 4; the SB and BB players busted: seats 3 and 4 empty.
    # Clockwise after the BB 4 the first empty seat is 3 (the SB): never. Next is 4, the BB
    # seat: t01's UTG (seat 4) goes there.
    short = t("t02", 9, {3, 4}, 2, 3, 4)
    assert move(suggest([FULL, short], variant=2)) == ("t01s4", "t01", 4, "t02", 4, "TABLE-04")


def test_variant_2_the_utg_is_the_first_occupied_seat_after_the_big_blind() -> None:
    # t01: 10 seats, seats 4 and 5 empty (8 players), BB 3: the first player after the BB is
    # seat 6. t02 (6 players, seats 1, 7, 8 empty, BB 4): the first empty seat after it is 7.
    full = t("t01", 10, {4, 5}, 1, 2, 3)
    short = t("t02", 9, {1, 7, 8}, 2, 3, 4)
    assert move(suggest([full, short], variant=2)) == ("t01s6", "t01", 6, "t02", 7, "TABLE-04")


@pytest.mark.parametrize("variant", [1, 2])
def test_no_move_while_the_only_free_seats_lie_between_button_and_sb_or_are_the_sb(
        variant: int) -> None:
    # t02: button 7, SB 1 (seats 8, 9 empty between them: TABLE-02); variant 2 also may not
    # use the SB. Nothing to suggest until the button has moved on.
    short = t("t02", 9, {8, 9}, 7, 1, 2)
    assert suggest([FULL, short], variant=variant) is None


def test_with_nothing_known_variant_1_counts_from_seat_1_and_says_so() -> None:
    # neither table has a known button: seat 1 is the first counted. t02's first free seat is
    # 4, the 4th counted; at t01 the 4th counted is seat 4.
    full = t("t01", 9, set())
    short = t("t02", 9, {4, 8})
    s = suggest([full, short], variant=1)
    assert move(s) == ("t01s4", "t01", 4, "t02", 4, "TABLE-03")
    assert s is not None and "not known, so counted from seat 1" in s.reason


def test_with_only_the_button_known_the_blinds_are_the_next_occupied_seats() -> None:
    # t02: button 2, seat 3 empty, so the SB is seat 4 and the BB seat 5; seat 3 lies between
    # button and SB. Empty seats 3 and 8: the first allowed one after the BB 5 is 8, 3 seats
    # on. t01 (BB 3): 3 seats on is seat 6.
    short = t("t02", 9, {3, 8}, button=2)
    assert move(suggest([FULL, short], variant=1)) == ("t01s6", "t01", 6, "t02", 8, "TABLE-03")
    # variant 2: t01's UTG (seat 4) to seat 8, the first allowed empty seat after the BB 5
    assert move(suggest([FULL, short], variant=2)) == ("t01s4", "t01", 4, "t02", 8, "TABLE-04")


def test_nothing_to_do_within_the_allowed_difference() -> None:
    nine, eight = t("t01", 9, set(), 1, 2, 3), t("t02", 9, {5}, 1, 2, 3)
    assert suggest([nine, eight, t("t03", 9, {5}, 1, 2, 3)], variant=1) is None
    assert suggest([FULL, SHORT], variant=1, max_difference=2) is None
    assert suggest([FULL], variant=2) is None
    # a closed table does not count as the short one
    assert suggest([FULL, nine, t("t03", 9, {1, 2, 3, 4}, open_=False)], variant=1) is None


def test_ties_the_lower_table_id_gives_and_the_lower_table_id_takes() -> None:
    a, b = t("t01", 9, set(), 1, 2, 3), t("t02", 9, set(), 1, 2, 3)
    c, d = t("t03", 9, {7, 8}, 2, 3, 4), t("t04", 9, {7, 8}, 2, 3, 4)
    s = suggest([d, c, b, a], variant=2)
    assert s is not None and (s.from_table, s.to_table) == ("t01", "t03")


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="balancing variant 3"):
        suggest([FULL, SHORT], variant=3)
