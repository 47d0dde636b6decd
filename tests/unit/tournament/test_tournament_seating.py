"""Seat draw, late seating and breaking a table, as the seed's TABLE-01/TABLE-02 allow."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tablesvc.tournament.seating import (
    SeatingError,
    TableSeats,
    between_button_and_sb,
    break_table,
    draw,
    eligible_seats,
    free_seats,
    late_seat,
)


def table(name: str, seats: int, players: dict[int, str], button: int | None = None,
          sb: int | None = None, bb: int | None = None, open_: bool = True) -> TableSeats:
    return TableSeats(name, seats, players, button, sb, bb, open_)


def full(name: str, seats: int, taken: list[int]) -> TableSeats:
    return table(name, seats, {s: f"{name}-p{s}" for s in taken})


@pytest.mark.parametrize("seed", range(20))
def test_the_draw_spreads_players_so_tables_differ_by_one_and_gives_each_one_seat(
        seed: int) -> None:
    players = [f"p{i:02}" for i in range(23)]
    tables = [table("t01", 9, {}), table("t02", 9, {}), table("t03", 9, {}),
              table("t04", 9, {}, open_=False)]
    seats = draw(players, tables, random.Random(seed))
    assert sorted(seats) == players
    assert len(set(seats.values())) == 23  # no seat twice
    sizes = Counter(t for t, _ in seats.values())
    assert sorted(sizes.values()) == [7, 8, 8] and "t04" not in sizes
    assert all(1 <= s <= 9 for _, s in seats.values())


def test_the_draw_is_random_but_replays_from_the_same_seed() -> None:
    players = [f"p{i}" for i in range(12)]
    tables = [table("t01", 9, {}), table("t02", 9, {})]
    assert draw(players, tables, random.Random(7)) == draw(players, tables, random.Random(7))
    assert draw(players, tables, random.Random(7)) != draw(players, tables, random.Random(8))


def test_the_draw_refuses_more_players_than_seats_a_player_twice_or_one_already_seated(
        ) -> None:
    tables = [table("t01", 6, {}), table("t02", 6, {1: "x"})]
    with pytest.raises(SeatingError, match="13 players to draw but the open tables have only "
                                           "11 free seats"):
        draw([f"p{i}" for i in range(13)], tables, random.Random(1))
    with pytest.raises(SeatingError, match="listed twice: a"):
        draw(["a", "b", "a"], tables, random.Random(1))
    with pytest.raises(SeatingError, match=r"already seated: x \(already at t02 seat 1\)"):
        draw(["a", "x"], tables, random.Random(1))


def test_a_late_player_gets_a_free_seat_at_the_shortest_table() -> None:
    tables = [full("t01", 9, [1, 2, 3, 4, 5, 6, 7, 8]), full("t02", 9, [1, 2, 4, 5, 6, 7, 8]),
              full("t03", 9, [1, 2, 3, 4, 5, 6, 7, 8])]
    for seed in range(10):
        assert late_seat("new", tables, random.Random(seed)) in {("t02", 3), ("t02", 9)}


def test_a_late_player_is_refused_when_no_seat_is_free() -> None:
    with pytest.raises(SeatingError, match="new to seat but the open tables have only 0"):
        late_seat("new", [full("t01", 2, [1, 2])], random.Random(1))


def test_seats_between_button_and_small_blind_are_the_empty_seats_a_dead_button_leaves() -> None:
    # button 3, small blind 6: seats 4 and 5 (empty, their players busted) lie between them
    t = table("t02", 9, {2: "a", 3: "b", 6: "c", 7: "d", 8: "e"}, button=3, sb=6, bb=7)
    assert [s for s in range(1, 10) if between_button_and_sb(t, s)] == [4, 5]
    assert free_seats(t) == [1, 4, 5, 9]
    assert eligible_seats(t) == [1, 9]
    # unknown button: nothing is known to lie between
    assert eligible_seats(table("t02", 9, {2: "a", 3: "b", 6: "c"})) == [1, 4, 5, 7, 8, 9]
    # only the button known: the small blind is the first occupied seat after it
    t = table("t02", 9, {2: "a", 3: "b", 6: "c"}, button=3)
    assert [s for s in range(1, 10) if between_button_and_sb(t, s)] == [4, 5]
    # the wrap: button 8, small blind 2 -> seats 9 and 1 are between
    t = table("t02", 9, {2: "a", 5: "b", 8: "c"}, button=8, sb=2, bb=5)
    assert [s for s in range(1, 10) if between_button_and_sb(t, s)] == [1, 9]


def test_breaking_a_table_never_seats_a_player_between_button_and_sb_but_may_on_the_blinds(
        ) -> None:
    # t02: button 3, SB 6 (seats 4, 5 between: never), only seat 1 is free and eligible.
    # t03: its button, SB and BB seats are the empty ones (those players busted): TABLE-01
    # lets the newcomers take exactly those.
    t02 = table("t02", 9, {2: "a", 3: "b", 6: "c", 7: "d", 8: "e", 9: "f"}, 3, 6, 7)
    t03 = table("t03", 6, {1: "g", 2: "h", 3: "i"}, button=4, sb=5, bb=6)
    t01 = full("t01", 9, [2, 5, 7, 9])
    for seed in range(30):
        moved = break_table("t01", [t01, t02, t03], random.Random(seed))
        assert sorted(moved) == ["t01-p2", "t01-p5", "t01-p7", "t01-p9"]
        assert sorted(moved.values()) == [("t02", 1), ("t03", 4), ("t03", 5), ("t03", 6)]


def test_breaking_a_table_fills_the_shortest_tables_first() -> None:
    t01 = full("t01", 9, [1, 4, 6])
    short = full("t02", 9, [1, 2])
    long = full("t03", 9, [1, 2, 3, 4, 5, 6, 7])
    for seed in range(10):
        moved = break_table("t01", [t01, long, short], random.Random(seed))
        assert {t for t, _ in moved.values()} == {"t02"}
        assert len(set(moved.values())) == 3
        assert all(s in free_seats(short) for _, s in moved.values())
    # five players over tables of 2 and 4: the short one first, then both in turn
    moved = break_table("t01", [full("t01", 9, [1, 2, 3, 4, 5]), full("t02", 9, [1, 2]),
                                full("t03", 9, [1, 2, 3, 4])], random.Random(3))
    assert Counter(t for t, _ in moved.values()) in (Counter(t02=3, t03=2),
                                                      Counter(t02=4, t03=1))


def test_breaking_a_table_is_refused_when_the_others_lack_seats_a_player_may_take() -> None:
    t01 = full("t01", 9, [1, 2, 3])
    # two free seats, but seat 4 is between button 3 and SB 5: only one may be taken
    t02 = table("t02", 6, {1: "a", 2: "b", 3: "c", 5: "d"}, button=3, sb=5, bb=1)
    with pytest.raises(SeatingError, match="table t01 has 3 players but the open tables have "
                                           "only 1 free seats"):
        break_table("t01", [t01, t02], random.Random(1))
    with pytest.raises(SeatingError, match="there is no table t09"):
        break_table("t09", [t01, t02], random.Random(1))


def test_closed_tables_are_not_seated_to() -> None:
    tables = [full("t01", 9, [1]), table("t02", 9, {}, open_=False), full("t03", 9, [1, 2, 3])]
    moved = break_table("t01", tables, random.Random(1))
    assert [t for t, _ in moved.values()] == ["t03"]
