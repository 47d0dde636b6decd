"""Omaha win probabilities are right: exact figures equal a count of every board with the
core's own Omaha ranking (``evaluate_omaha``, one hand at a time, none of the equity tables),
sampled ones fall within their stated error, and the figures add up to 100.

Every random spot comes from a fixed seed, and every sample from a fixed seed too, so none of
these can fail one run in a thousand.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np
import pytest
from phevaluator import _pheval  # type: ignore[import-untyped]

from tablesvc.core.cards import ALL_CARDS
from tablesvc.core.requests import EquityRequest
from tablesvc.core.showdown import evaluate_omaha
from tablesvc.equity import SAMPLES, compute
from tablesvc.equity.holdem import Counts
from tablesvc.equity.omaha import NONE, OMAHA_EXACT_LIMIT, omaha_counts, omaha_tables
from tablesvc.equity.tables import RANK_KEYS, rank_multisets

DECK = sorted(ALL_CARDS)
ID = {r + s: i * 4 + j for i, r in enumerate("23456789TJQKA") for j, s in enumerate("cdhs")}
Expected = tuple[int, list[float], list[float], list[set[str]]]


def enumerate_all(holes: Sequence[Sequence[str]], board: Sequence[str],
                  dead: Sequence[str] = ()) -> Expected:
    """(boards, wins, tie shares, the completing cards each hand wins or ties with)."""
    out = {c for h in holes for c in h} | set(board) | set(dead)
    deck = [c for c in DECK if c not in out]
    wins, ties = [0.0] * len(holes), [0.0] * len(holes)
    good: list[set[str]] = [set() for _ in holes]
    n = 0
    for rest in itertools.combinations(deck, 5 - len(board)):
        values = [evaluate_omaha(h, [*board, *rest]) for h in holes]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        n += 1
        for i in winners:
            good[i].update(rest)
            if len(winners) == 1:
                wins[i] += 1
            else:
                ties[i] += 1 / len(winners)
    return n, wins, ties, good


def assert_same(counts: Counts, expected: Expected) -> None:
    n, wins, ties, _ = expected
    assert counts.method == "exact"
    assert counts.boards == n
    assert counts.wins.tolist() == wins
    assert counts.ties.tolist() == pytest.approx(ties, abs=1e-9)


def deal(seed: int, players: int, hole: int, board: int) -> tuple[list[list[str]], list[str]]:
    cards = random.Random(seed).sample(DECK, players * hole + board)
    return [cards[i * hole:(i + 1) * hole] for i in range(players)], cards[players * hole:]


# ------------------------------------------------------------------ spots counted by hand
def test_on_the_river_the_best_hand_has_100_percent() -> None:
    holes = [["As", "Ks", "2d", "3c"], ["7h", "7d", "Ac", "Qc"]]
    counts = omaha_counts(holes, ["Qs", "Js", "Ts", "4h", "4d"])
    assert (counts.method, counts.boards) == ("exact", 1)
    assert counts.percentages() == [(100.0, 0.0), (0.0, 0.0)]


def test_a_wrap_on_the_turn_has_nine_outs_against_top_set() -> None:
    # Q-J-T in the hand and K-9 on the board: any Q, J or T makes K-Q-J-T-9 with two hole
    # cards, three of each left; the set of kings wins the other 31 of the 40 rivers
    holes = [["Ks", "Kd", "8c", "7c"], ["Qh", "Jd", "Ts", "3d"]]
    board = ["Kh", "9s", "4d", "2c"]
    counts = omaha_counts(holes, board)
    assert counts.boards == 40
    assert counts.percentages() == [(77.5, 0.0), (22.5, 0.0)]
    assert counts.outs is not None
    assert sorted(counts.outs[1]) == sorted(r + s for r in "QJT" for s in "shdc"
                                            if r + s not in ("Qh", "Jd", "Ts"))
    assert len(counts.outs[0]) == 31
    assert_same(counts, enumerate_all(holes, board))


def test_the_same_hand_in_other_suits_has_the_same_figures() -> None:
    # hearts and spades swapped: each flush comes as often as the other
    holes = [["Ah", "Kh", "Qs", "Js"], ["As", "Ks", "Qh", "Jh"]]
    counts = omaha_counts(holes, ["2h", "7s", "9c"])
    assert counts.wins[0] == counts.wins[1] > 0
    first, second = counts.percentages()
    assert first == second == (3.41, 46.59)
    assert_same(counts, enumerate_all(holes, ["2h", "7s", "9c"]))


def test_with_no_flush_possible_the_same_hand_splits_every_board() -> None:
    holes = [["Ah", "Kh", "Qs", "Js"], ["As", "Ks", "Qh", "Jh"]]
    counts = omaha_counts(holes, ["2c", "7d", "9c"])
    assert counts.percentages() == [(0.0, 50.0), (0.0, 50.0)]


# ------------------------------------------------------------------ exact = every board
@pytest.mark.parametrize(("seed", "players", "hole"),
                         [(1, 2, 4), (2, 3, 4), (3, 6, 4), (4, 4, 5), (5, 6, 5)])
def test_the_flop_is_every_board_counted_exactly(seed: int, players: int, hole: int) -> None:
    holes, board = deal(seed, players, hole, 3)
    assert_same(omaha_counts(holes, board), enumerate_all(holes, board))


@pytest.mark.parametrize(("seed", "players"), [(21, 2), (22, 6)])
def test_the_flop_agrees_with_the_libraries_own_omaha_evaluator(seed: int, players: int) -> None:
    """phevaluator's native Omaha evaluator (four hole cards, five on the board) picks the
    best two and three itself: no code of the core's showdown takes part."""
    holes, board = deal(seed, players, 4, 3)
    out = {c for h in holes for c in h} | set(board)
    shares = [0.0] * players
    for rest in itertools.combinations([c for c in DECK if c not in out], 2):
        cards = [ID[c] for c in (*board, *rest)]
        values = [_pheval.evaluate_omaha_cards(*cards, *(ID[c] for c in h)) for h in holes]
        winners = [i for i, v in enumerate(values) if v == min(values)]
        for i in winners:
            shares[i] += 1 / len(winners)
    counts = omaha_counts(holes, board)
    assert (counts.wins + counts.ties).tolist() == pytest.approx(shares, abs=1e-9)


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_turn_outs_are_the_river_cards_that_win_or_tie(seed: int) -> None:
    holes, board = deal(seed, 3, 4, 4)
    counts = omaha_counts(holes, board)
    expected = enumerate_all(holes, board)
    assert_same(counts, expected)
    assert counts.outs is not None
    assert [set(o) for o in counts.outs] == expected[3]


def test_dead_cards_leave_the_deck() -> None:
    holes, board = deal(9, 3, 4, 3)
    seen = {*board, *(c for h in holes for c in h)}
    dead = random.Random(10).sample([c for c in DECK if c not in seen], 9)
    counts = omaha_counts(holes, board, dead)
    assert counts.boards == 28 * 27 // 2  # 52 - 12 - 3 - 9 cards left, two to come
    assert_same(counts, enumerate_all(holes, board, dead))


def test_ten_hands_pre_flop_are_few_enough_boards_to_count_them_all() -> None:
    holes, _ = deal(11, 10, 4, 0)
    counts = omaha_counts(holes, [])
    assert counts.boards == 792  # C(12, 5)
    assert_same(counts, enumerate_all(holes, []))


# ------------------------------------------------------------------ sampled pre-flop
@pytest.mark.parametrize(("players", "dead"), [(2, 30), (4, 20)])
def test_sampled_pre_flop_falls_within_its_stated_error(players: int, dead: int) -> None:
    """Many dead cards leave few enough boards to count them all: the sampled figures of the
    same spot must fall within their stated error of that count."""
    holes, _ = deal(players, players, 4, 0)
    seen = {c for h in holes for c in h}
    out = random.Random(dead).sample([c for c in DECK if c not in seen], dead)
    expected = enumerate_all(holes, [], out)
    exact = omaha_counts(holes, [], out)
    assert_same(exact, expected)
    sampled = omaha_counts(holes, [], out, exact_limit=0, samples=20_000, seed=(players, 1))
    assert (sampled.method, sampled.boards) == ("sampled", 20_000)
    error = sampled.error()
    assert error is not None and 0 < error < 3
    for (w, t), (sw, st) in zip(exact.percentages(), sampled.percentages(), strict=True):
        assert abs(sw - w) <= error
        assert abs((sw + st) - (w + t)) <= error


def test_two_seeds_of_a_full_deck_agree_within_their_errors() -> None:
    holes = [["As", "Ad", "Ks", "Qd"], ["Jh", "Th", "9c", "8c"]]
    first = omaha_counts(holes, [], seed=(1, 1))
    second = omaha_counts(holes, [], seed=(2, 1))
    assert first.method == second.method == "sampled"
    assert first.boards == second.boards == SAMPLES
    e1, e2 = first.error(), second.error()
    assert e1 is not None and e2 is not None and e1 <= 0.7 and e2 <= 0.7
    for (w1, t1), (w2, t2) in zip(first.percentages(), second.percentages(), strict=True):
        assert abs(w1 - w2) <= e1 + e2
        assert abs((w1 + t1) - (w2 + t2)) <= e1 + e2
    (aces, _), (rundown, _) = first.percentages()
    assert 55 < aces < 75 and rundown < aces  # double-suited aces are the favourite


def test_the_same_hand_state_samples_the_same_figures() -> None:
    holes, _ = deal(12, 3, 4, 0)
    first = omaha_counts(holes, [], seed=(12, 3))
    again = omaha_counts(holes, [], seed=(12, 3))
    other = omaha_counts(holes, [], seed=(12, 4))
    assert first.percentages() == again.percentages() != other.percentages()


def test_six_hands_pre_flop_are_sampled_and_the_flop_counted() -> None:
    holes, board = deal(13, 6, 4, 3)
    assert OMAHA_EXACT_LIMIT < 98_280 * 6  # C(28, 5) boards pre-flop
    pre = omaha_counts(holes, [])
    assert pre.method == "sampled"
    total = sum(round(w * 100) + round(t * 100) for w, t in pre.percentages())
    assert total == 10_000
    flop = omaha_counts(holes, board)
    assert (flop.method, flop.boards) == ("exact", 300)


# ------------------------------------------------------------------ the event payload
def test_the_event_payload_names_each_omaha_hand() -> None:
    request = EquityRequest(5, 2, "omaha", "turn",
                            ((3, ("Ks", "Kd", "8c", "7c")), (8, ("Qh", "Jd", "Ts", "3d"))),
                            ("Kh", "9s", "4d", "2c"), ("5s", "5h"))
    figures = compute(request)
    assert figures["street"] == "turn" and figures["method"] == "exact"
    assert figures["samples"] == 38 and figures["dead"] == 2 and figures["error"] is None
    assert [s["hand"] for s in figures["seats"]] == ["three of a kind, kings", "king high"]
    assert [(s["win"], s["tie"]) for s in figures["seats"]] == [
        (round(100 * 29 / 38, 2), 0.0), (round(100 * 9 / 38, 2), 0.0)]
    assert len(figures["seats"][1]["outs"]) == 9


def test_an_omaha_board_of_four_nines_is_named_as_omaha_reads_it() -> None:
    request = EquityRequest(1, 1, "omaha", "river",
                            ((1, ("Ac", "Ad", "2s", "3h")), (2, ("2c", "3c", "4d", "5d"))),
                            ("9s", "9h", "9d", "9c", "Ks"))
    seats = compute(request)["seats"]
    assert [s["hand"] for s in seats] == ["full house, nines full of aces",
                                          "three of a kind, nines"]
    assert [s["win"] for s in seats] == [100.0, 0.0]


def test_pre_flop_omaha_is_sampled_with_its_error_and_no_hand_named() -> None:
    holes = ((1, ("As", "Ad", "Ks", "Qd")), (2, ("Jh", "Th", "9c", "8c")))
    figures = compute(EquityRequest(7, 1, "omaha", "preflop", holes), samples=20_000)
    assert figures["method"] == "sampled" and figures["samples"] == 20_000
    assert 0 < figures["error"] < 1.5
    assert all("hand" not in s and "outs" not in s for s in figures["seats"])
    # the service's limit may make Omaha sample the flop, never count pre-flop
    flop = compute(EquityRequest(7, 2, "omaha", "flop", holes, ("2c", "7d", "Tc")),
                   exact_limit=1000)
    assert flop["method"] == "sampled"


def test_five_card_omaha_takes_two_of_five() -> None:
    holes = ((1, ("Ah", "3h", "5h", "Kd", "Ks")), (2, ("Ah", "3c", "Kd", "Ks", "2c")))
    with pytest.raises(ValueError, match="two places"):
        compute(EquityRequest(1, 1, "omaha5", "flop", holes, ("Th", "9h", "2h")))
    holes = ((1, ("Ah", "3h", "5h", "Qd", "Qs")), (2, ("Ac", "3c", "Kd", "Ks", "2c")))
    figures = compute(EquityRequest(1, 1, "omaha5", "river", holes,
                                    ("Th", "9h", "2h", "Kc", "4d")))
    assert [(s["hand"], s["win"]) for s in figures["seats"]] == [
        ("flush, ace high", 100.0), ("three of a kind, kings", 0.0)]


@pytest.mark.parametrize(("holes", "board", "why"), [
    ([["As", "Ks", "Qs", "Js"]], [], "two live hands"),
    ([["As", "Ks", "Qs"], ["2c", "3c", "4c"]], [], "two live hands"),
    ([["As", "Ks", "Qs", "Js"], ["2c", "3c", "4c", "5c", "6c"]], [], "two live hands"),
    ([["As", "Ks", "Qs", "Js"], ["2c", "3c", "4c", "5c"]], ["Js", "9d", "8d"], "two places"),
    ([["As", "Ks", "Qs", "Js"], ["2c", "3c", "4c", "5c"]], ["9d", "8d"], "0, 3, 4 or 5"),
])
def test_a_state_that_is_not_omaha_is_refused(holes: list[list[str]], board: list[str],
                                              why: str) -> None:
    with pytest.raises(ValueError, match=why):
        omaha_counts(holes, board)


# ------------------------------------------------------------------ the tables
def test_every_five_card_hand_without_a_flush_is_the_evaluators_value() -> None:
    o = omaha_tables()
    twos, threes = rank_multisets(2), rank_multisets(3)
    checked = 0
    for pair in itertools.combinations_with_replacement(range(13), 2):
        p = int(np.searchsorted(twos, RANK_KEYS[pair[0]] + RANK_KEYS[pair[1]]))
        for triple in itertools.combinations_with_replacement(range(13), 3):
            t = int(np.searchsorted(threes, sum(RANK_KEYS[r] for r in triple)))
            ranks = (*pair, *triple)
            if any(ranks.count(r) > 4 for r in ranks):
                assert o.pair_triple[p, t] == NONE
                continue
            cards = [r * 4 + i % 4 for i, r in enumerate(sorted(ranks))]
            assert o.pair_triple[p, t] == _pheval.evaluate_5cards(*cards), ranks
            checked += 1
    assert checked == 91 * 455 - 13  # all but a pair and a triple of the same rank


def test_every_five_card_flush_is_the_evaluators_value() -> None:
    o = omaha_tables()
    for ranks in itertools.combinations(range(13), 5):
        mask = sum(1 << r for r in ranks)
        assert o.flush5[mask] == _pheval.evaluate_5cards(*[r * 4 + 2 for r in ranks])
    assert int((o.flush5 != NONE).sum()) == 1287


def test_the_omaha_tables_stay_small() -> None:
    """The equity process holds them beside hold'em's for its whole life."""
    assert sum(a.nbytes for a in vars(omaha_tables()).values()) < 400_000
