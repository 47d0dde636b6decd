"""Win probabilities are right: exact figures equal an independent enumeration, sampled ones
fall within their stated error, and they add up to 100.

The independent enumeration ranks every board for every hand with phevaluator's own
seven-card evaluator, one hand at a time, and shares split boards the same way; it shares no
code or table with ``tablesvc.equity``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np
import pytest
from phevaluator import _pheval  # type: ignore[import-untyped]

from tablesvc.core.requests import EquityRequest
from tablesvc.equity import compute
from tablesvc.equity.holdem import Counts, holdem_counts, quad_table
from tablesvc.equity.tables import (
    build_hand_values,
    hand_values,
    hole_kind,
    rank_multisets,
    tables,
)

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
ID = {card: i for i, card in enumerate(DECK)}  # phevaluator's ids: rank * 4 + suit (c d h s)


def enumerate_all(holes: Sequence[Sequence[str]], board: Sequence[str],
                  dead: Sequence[str] = ()) -> tuple[int, list[float], list[float], list[set[str]]]:
    """(boards, wins, tie shares, the completing cards each hand wins or ties with)."""
    out = {c for h in holes for c in h} | set(board) | set(dead)
    deck = [c for c in DECK if c not in out]
    ids = [[ID[c] for c in h] for h in holes]
    wins, ties = [0.0] * len(holes), [0.0] * len(holes)
    good: list[set[str]] = [set() for _ in holes]
    n = 0
    for rest in itertools.combinations(deck, 5 - len(board)):
        cards = [ID[c] for c in (*board, *rest)]
        values = [_pheval.evaluate_7cards(*h, *cards) for h in ids]
        best = min(values)
        winners = [i for i, v in enumerate(values) if v == best]
        n += 1
        for i in winners:
            good[i].update(rest)
            if len(winners) == 1:
                wins[i] += 1
            else:
                ties[i] += 1 / len(winners)
    return n, wins, ties, good


def assert_same(counts: Counts, expected: tuple[int, list[float], list[float], list[set[str]]]
                ) -> None:
    n, wins, ties, _ = expected
    assert counts.method == "exact"
    assert counts.boards == n
    assert counts.wins.tolist() == wins
    assert counts.ties.tolist() == pytest.approx(ties, abs=1e-9)


def test_asks_against_qdqh_pre_flop_is_every_board_counted_exactly() -> None:
    holes = [("As", "Ks"), ("Qd", "Qh")]
    counts = holdem_counts(holes, [])
    assert_same(counts, enumerate_all(holes, []))
    (ak_win, ak_tie), (qq_win, qq_tie) = counts.percentages()
    assert qq_win > ak_win > 45  # the textbook coin flip, queens slightly ahead
    assert ak_win + ak_tie + qq_win + qq_tie == pytest.approx(100)


def test_three_way_pre_flop_with_dead_cards_is_exact() -> None:
    # folded hands and burns out of the deck: every 5-subset of the 29 cards left is a board
    holes = [("Ah", "Kh"), ("7c", "7d"), ("Js", "Ts")]
    dead = ["2h", "3h", "4h", "9h", "Qs", "2c", "3c", "4d", "5d", "6s", "8c", "9d", "Td",
            "Jc", "Kd", "Ac", "5s"]
    counts = holdem_counts(holes, [], dead)
    assert_same(counts, enumerate_all(holes, [], dead))


def test_a_flush_draw_against_a_set_on_the_flop_is_exact() -> None:
    holes = [("Ah", "Kh"), ("7c", "7d")]
    board = ["Th", "7h", "2c"]
    counts = holdem_counts(holes, board)
    assert_same(counts, enumerate_all(holes, board))
    (draw, _), (made_set, _) = counts.percentages()
    assert made_set > draw > 25


def test_ten_hands_on_the_flop_are_exact() -> None:
    rng = random.Random(4)
    cards = rng.sample(DECK, 23)
    holes = [(cards[2 * i], cards[2 * i + 1]) for i in range(10)]
    counts = holdem_counts(holes, cards[20:23])
    assert_same(counts, enumerate_all(holes, cards[20:23]))


def test_turn_outs_are_the_river_cards_that_win_or_tie() -> None:
    holes = [("Ah", "Kh"), ("7c", "7d"), ("Qs", "Js")]
    board = ["Th", "7h", "2c", "9s"]
    counts = holdem_counts(holes, board)
    expected = enumerate_all(holes, board)
    assert_same(counts, expected)
    assert counts.outs is not None
    assert [set(o) for o in counts.outs] == expected[3]


def test_a_split_board_shares_the_pot_and_the_figures_add_up_to_100() -> None:
    counts = holdem_counts([("2c", "3d"), ("2h", "3s")], ["As", "Ks", "Qs", "Js", "Ts"])
    assert counts.percentages() == [(0.0, 50.0), (0.0, 50.0)]


@pytest.mark.parametrize("players", [2, 4, 7])
def test_sampled_figures_fall_within_their_stated_error(players: int) -> None:
    rng = random.Random(players)
    cards = rng.sample(DECK, 2 * players)
    holes = [(cards[2 * i], cards[2 * i + 1]) for i in range(players)]
    exact = holdem_counts(holes, [])
    sampled = holdem_counts(holes, [], exact_limit=0, samples=20_000, seed=(players, 1))
    assert sampled.method == "sampled" and sampled.boards == 20_000
    error = sampled.error()
    assert error is not None and 0 < error < 3
    for (w, t), (sw, st) in zip(exact.percentages(), sampled.percentages(), strict=True):
        assert abs(sw - w) <= error
        assert abs((sw + st) - (w + t)) <= error
    assert sum(w + t for w, t in sampled.percentages()) == pytest.approx(100)


def test_the_same_hand_state_samples_the_same_figures() -> None:
    holes = [("As", "Kd"), ("9c", "9h"), ("5s", "6s")]
    first = holdem_counts(holes, [], exact_limit=0, seed=(12, 3))
    again = holdem_counts(holes, [], exact_limit=0, seed=(12, 3))
    assert first.percentages() == again.percentages()


def test_rounded_figures_always_add_up_to_exactly_100() -> None:
    rng = random.Random(9)
    for _ in range(20):
        players = rng.randint(2, 9)
        cards = rng.sample(DECK, 2 * players + 3)
        counts = holdem_counts([(cards[2 * i], cards[2 * i + 1]) for i in range(players)],
                               cards[-3:])
        total = sum(round(w * 100) + round(t * 100) for w, t in counts.percentages())
        assert total == 10_000


def test_the_event_payload_names_each_hand_and_counts_the_dead_cards() -> None:
    request = EquityRequest(5, 2, "holdem", "turn", ((3, ("Ah", "Kh")), (8, ("7c", "7d"))),
                            ("Th", "7h", "2c", "9s"), ("Qs", "Js", "4d"))
    figures = compute(request)
    assert figures["street"] == "turn" and figures["method"] == "exact"
    assert figures["samples"] == 52 - 4 - 4 - 3 and figures["dead"] == 3
    assert [s["hand"] for s in figures["seats"]] == ["ace high", "three of a kind, sevens"]
    assert all(isinstance(s["outs"], list) for s in figures["seats"])


def test_draw_names_the_hands_before_the_draw_and_settles_them_after() -> None:
    holes = ((1, ("As", "Ad", "Kc", "Qh", "2s")), (4, ("9c", "9d", "9h", "3c", "4d")))
    before = compute(EquityRequest(1, 1, "draw5", "predraw", holes))
    assert before["method"] == "none"
    assert [(s["win"], s["hand"]) for s in before["seats"]] == [
        (None, "a pair of aces"), (None, "three of a kind, nines")]
    after = compute(EquityRequest(1, 2, "draw5", "postdraw", holes))
    assert [(s["win"], s["tie"]) for s in after["seats"]] == [(0.0, 0.0), (100.0, 0.0)]
    split = compute(EquityRequest(1, 3, "draw5", "postdraw", (
        (1, ("As", "Ks", "Qs", "Js", "9d")), (2, ("Ah", "Kh", "Qh", "Jh", "9c")),
        (3, ("Ad", "Kd", "Qd", "Jd", "9s")))))
    assert [s["tie"] for s in split["seats"]] == [33.34, 33.33, 33.33]


def test_the_shipped_hand_values_are_the_evaluators() -> None:
    shipped, built = hand_values(), build_hand_values()
    for ours, theirs in zip(shipped, built, strict=True):
        assert np.asarray(ours).tolist() == np.asarray(theirs).tolist()


def test_every_hand_without_a_flush_reads_the_evaluators_value_from_the_split_table() -> None:
    t = tables()
    boards = rank_multisets(5)
    rng = random.Random(7)
    checked = 0
    while checked < 20_000:
        cards = rng.sample(range(52), 7)
        if max(sum(1 for c in cards if c % 4 == s) for s in range(4)) >= 5:
            continue  # a flush is valued by the flush table
        hole = hole_kind(int(t.rank_key[cards[0]] + t.rank_key[cards[1]]))
        board = int(np.searchsorted(boards, sum(int(t.rank_key[c]) for c in cards[2:])))
        assert t.noflush[hole, board] == _pheval.evaluate_7cards(*cards), cards
        checked += 1


def test_the_engine_keeps_its_tables_in_a_few_megabytes() -> None:
    """The equity process holds these for its whole life on a small box beside the table
    (a table indexed by the seven-rank sum alone took 20 MB of it)."""
    q = quad_table()
    arrays = [*vars(tables()).values(), q.bits, q.kind, q.with_rank,
              *(a for f in q.flush for a in (f.idx, f.suit, f.count, f.mask))]
    assert sum(a.nbytes for a in arrays) < 8_000_000
