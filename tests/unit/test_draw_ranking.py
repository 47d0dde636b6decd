"""Five-card-draw hand ranking, short hands included (RULES.md RANK-01..14, A-21, A-30).

Full five-card hands are checked pair by pair against pokerkit, an independent evaluator.
Short hands (A-21) have no outside reference, so they are checked against the rule itself:
same category first, then rank by rank with a missing card below every card.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import pytest
from pokerkit import StandardHighHand
from pokerkit.lookups import Label

from tablesvc.core.cards import ALL_CARDS, RANKS
from tablesvc.core.showdown import (
    CATEGORIES,
    HandValue,
    _five_card_ladder,
    evaluate,
    evaluate_draw,
)

DECK = sorted(ALL_CARDS)
RANDOM_PAIRS = 20_000  # independent random pairs of five-card hands
RESUITED_PAIRS = 4_000  # the same ranks in other suits: ties, where RANK-14 matters
_LABELS = list(Label)
_VALUE = {r: v for v, r in enumerate(RANKS, start=2)}


def outcome(a: object, b: object) -> int:
    """-1, 0 or 1: how ``a`` compares with ``b``."""
    return int(a > b) - int(a < b)  # type: ignore[operator]


def pokerkit_hand(cards: Sequence[str]) -> StandardHighHand:
    return StandardHighHand("".join(cards))


def resuited(cards: Sequence[str], rng: random.Random) -> list[str]:
    """The same ranks, each card in a random suit not yet used for its rank in the hand."""
    out: list[str] = []
    for card in cards:
        free = [s for s in "shdc" if card[0] + s not in out]
        out.append(card[0] + rng.choice(free))
    return out


# ---------------------------------------------------------------------- differential
def test_rank_draw_agrees_with_pokerkit_on_random_pairs_of_five_card_hands():
    """Same winner or tie as pokerkit on every pair (RANK-02..12, RANK-14)."""
    rng = random.Random(20240611)
    pairs: list[tuple[list[str], list[str]]] = []
    for _ in range(RANDOM_PAIRS):
        pairs.append((rng.sample(DECK, 5), rng.sample(DECK, 5)))
    for _ in range(RESUITED_PAIRS):
        a = rng.sample(DECK, 5)
        pairs.append((a, resuited(a, rng)))

    disagree = []
    ties = 0
    categories: Counter[str] = Counter()
    for a, b in pairs:
        ours_a, ours_b = evaluate_draw(a), evaluate_draw(b)
        ours = outcome(ours_a, ours_b)
        if ours != outcome(pokerkit_hand(a), pokerkit_hand(b)):
            disagree.append((a, b, ours_a.name, ours_b.name))
        ties += ours == 0
        categories.update((ours_a.category, ours_b.category))

    assert len(pairs) >= 20_000
    assert not disagree, disagree[:3]
    assert ties > 0  # the tie path is exercised too
    assert len(categories) >= 8, categories  # straight flushes are too rare to insist on


def test_rank_draw_five_cards_are_worth_what_evaluate_says():
    rng = random.Random(7)
    for _ in range(2_000):
        hand = rng.sample(DECK, 5)
        assert evaluate_draw(hand) == evaluate(hand)
        assert evaluate_draw(hand).key == evaluate(hand).key
        assert evaluate_draw(hand).name == evaluate(hand).name


# ---------------------------------------------------------------------- RANK-07, A-30
def test_rank07_wheel_is_the_lowest_straight():
    wheel = evaluate_draw(["As", "2d", "3h", "4c", "5s"])
    assert (wheel.category, wheel.name) == ("straight", "straight, five high")
    assert wheel < evaluate_draw(["2s", "3d", "4h", "5c", "6s"])  # six high beats it
    assert wheel > evaluate_draw(["Ac", "Ad", "Ah", "Ks", "Qc"])  # still beats any trips
    assert wheel == evaluate_draw(["Ah", "2c", "3s", "4d", "5h"])


@pytest.mark.parametrize("cards", [
    ["Ks", "Ad", "2h", "3c", "4s"],
    ["Qs", "Kd", "Ah", "2c", "3s"],
    ["Js", "Qd", "Kh", "Ac", "2s"],
])
def test_a30_no_wrap_around_straight(cards):
    v = evaluate_draw(cards)
    assert (v.category, v.name) == ("high card", "ace high")
    assert v < evaluate_draw(["As", "2d", "3h", "4c", "5s"])  # below the lowest straight
    assert outcome(v, evaluate_draw(["As", "2d", "3h", "4c", "5s"])) == outcome(
        pokerkit_hand(cards), pokerkit_hand(["As", "2d", "3h", "4c", "5s"]))


# ---------------------------------------------------------------------- RANK-11, RANK-12
def test_rank11_rank12_ace_high_straight_flush_is_a_royal_flush_above_king_high():
    royal = evaluate_draw(["As", "Ks", "Qs", "Js", "Ts"])
    king = evaluate_draw(["Kh", "Qh", "Jh", "Th", "9h"])
    steel_wheel = evaluate_draw(["Ad", "2d", "3d", "4d", "5d"])
    assert (royal.category, royal.name) == ("straight flush", "royal flush")
    assert king.name == "straight flush, king high"
    assert royal > king > steel_wheel > evaluate_draw(["Ac", "Ad", "Ah", "As", "Kc"])
    assert royal == evaluate_draw(["Ah", "Kh", "Qh", "Jh", "Th"])  # two royals split


# ---------------------------------------------------------------------- RANK-14
@pytest.mark.parametrize(("a", "b"), [
    (["As", "Kd", "9c", "6h", "3d"], ["Ah", "Kc", "9d", "6s", "3h"]),  # high card
    (["As", "Ad", "9c", "6h", "3d"], ["Ah", "Ac", "9d", "6s", "3h"]),  # pair
    (["As", "Ks", "9s", "6s", "3s"], ["Ad", "Kd", "9d", "6d", "3d"]),  # flush
    (["Ts", "Jd", "Qc", "Kh", "Ah"], ["Tc", "Jh", "Qd", "Ks", "As"]),  # straight
    (["9s", "8s", "7s", "6s", "5s"], ["9c", "8c", "7c", "6c", "5c"]),  # straight flush
    (["As", "Ad", "Kc"], ["Ah", "Ac", "Kd"]),  # short hands
    (["7d"], ["7c"]),
])
def test_rank14_suits_never_break_a_tie(a, b):
    assert evaluate_draw(a) == evaluate_draw(b)
    assert evaluate_draw(a).key == evaluate_draw(b).key


# ---------------------------------------------------------------------- A-21 short hands
def test_a21_short_pair_of_aces_beats_a_full_pair_of_kings():
    short = evaluate_draw(["As", "Ad", "Kc", "Qh"])
    assert (short.category, short.name) == ("pair", "a pair of aces (4 cards)")
    assert short > evaluate_draw(["Ks", "Kd", "Ac", "Qd", "Jh"])
    assert evaluate_draw(["As", "Ad"]) > evaluate_draw(["Ks", "Kd", "Ac", "Qd", "Jh"])


def test_a21_short_hand_loses_to_the_same_ranks_with_a_fifth_card():
    short = evaluate_draw(["As", "Ad", "Kc", "Qh"])
    assert short < evaluate_draw(["Ah", "Ac", "Kd", "Qs", "2c"])  # the weakest fifth card
    assert short > evaluate_draw(["Ah", "Ac", "Kd", "Js", "Tc"])  # Q beats J before that


@pytest.mark.parametrize("cards", [
    ["Ah", "Kh", "Qh", "Jh"],  # four to a royal flush
    ["9s", "Ts", "Js", "Qs"],  # four to a straight flush
    ["2d", "3c", "4h", "5s"],  # four to the wheel
    ["Ac", "7c", "5c"],  # three to a flush
])
def test_a21_short_hand_cannot_make_a_straight_or_flush(cards):
    v = evaluate_draw(cards)
    assert v.category == "high card"
    assert v < evaluate_draw(["2c", "2d", "3h", "4s", "5c"])  # the weakest full pair
    assert v < evaluate_draw(["2c", "2d"])  # and the weakest short pair


def test_a21_missing_positions_rank_below_every_card():
    assert evaluate_draw(["Ac", "Kd", "Qh", "Js"]) < evaluate_draw(["As", "Kc", "Qd", "Jh", "2c"])
    assert evaluate_draw(["Ac", "Kd", "Qh", "Js"]) > evaluate_draw(["As", "Kc", "Qd", "Th", "9c"])
    assert evaluate_draw(["Ac", "Ad", "Kh", "2s"]) > evaluate_draw(["As", "Ah", "Kc"])
    assert evaluate_draw(["Ac", "Ad", "Kh", "2s"]) < evaluate_draw(["As", "Ah", "Kc", "3d", "2c"])
    assert evaluate_draw(["Ac", "Ad", "Ah", "As"]) < evaluate_draw(["Ac", "Ad", "Ah", "As", "2c"])
    assert evaluate_draw(["Ac", "Ad", "Ah", "As"]) > evaluate_draw(["Kc", "Kd", "Kh", "Ks", "Ac"])
    assert evaluate_draw(["Ac", "Ad", "Kh", "Ks"]) < evaluate_draw(["As", "Ah", "Kc", "Kd", "2c"])
    assert evaluate_draw(["Ac", "Ad", "Kh", "Ks"]) > evaluate_draw(["As", "Ah", "Qc", "Qd", "Jc"])
    assert evaluate_draw(["Ac"]) > evaluate_draw(["Kc", "Qd", "Jh", "9s", "7c"])
    assert evaluate_draw(["Ac"]) < evaluate_draw(["Ad", "3c", "4h", "5s", "7c"])


def test_a21_categories_still_come_first():
    assert evaluate_draw(["2c", "2d"]) > evaluate_draw(["Ac", "Kd", "Qh", "Js", "9c"])
    assert evaluate_draw(["2c", "2d", "2h"]) > evaluate_draw(["Ac", "Ad", "Kh", "Ks", "Qc"])
    assert evaluate_draw(["3c", "3d", "2h", "2s"]) > evaluate_draw(["Ac", "Ad", "Kh", "Qs", "Jc"])
    assert evaluate_draw(["2c", "2d", "2h", "2s"]) > evaluate_draw(["Ac", "Ad", "Ah", "Ks", "Kc"])
    assert evaluate_draw(["2c", "2d", "2h", "2s"]) < evaluate_draw(["2h", "3h", "4h", "5h", "6h"])


@pytest.mark.parametrize(("cards", "category", "name", "best"), [
    (["Kd"], "high card", "king high (1 card)", ("Kd",)),
    (["5c", "Jh", "9s"], "high card", "jack high (3 cards)", ("Jh", "9s", "5c")),
    (["9c", "Ad", "9s"], "pair", "a pair of nines (3 cards)", ("9s", "9c", "Ad")),
    (["6c", "Qd", "6s", "Qh"], "two pair", "two pair, queens and sixes (4 cards)",
     ("Qh", "Qd", "6s", "6c")),
    (["7c", "7d", "Ah", "7s"], "three of a kind", "three of a kind, sevens (4 cards)",
     ("7s", "7d", "7c", "Ah")),
    (["Tc", "Td", "Th", "Ts"], "four of a kind", "four of a kind, tens (4 cards)",
     ("Ts", "Th", "Td", "Tc")),
])
def test_a21_short_hands_are_named_and_shown_most_significant_first(cards, category, name,
                                                                      best):
    v = evaluate_draw(cards)
    assert (v.category, v.name, v.best) == (category, name, best)
    assert v.key[0] == CATEGORIES.index(category) + 1


@pytest.mark.parametrize(("cards", "message"), [
    ([], "got 0"),
    (["As", "Kd", "Qc", "Jh", "Ts", "9c"], "the hand is dead"),
    (["As", "As"], "appears twice"),
    (["As", "1d"], "not a card"),
])
def test_a21_too_many_or_no_cards_or_bad_cards_are_refused(cards, message):
    with pytest.raises(ValueError, match=message):
        evaluate_draw(cards)


def _rule_model(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Category and padded rank pattern, straight from RANK-02..06/10 and A-21."""
    counts = Counter(_VALUE[c[0]] for c in cards)
    pattern = sorted((_VALUE[c[0]] for c in cards), key=lambda v: (-counts[v], -v))
    if len(cards) == 5:
        category = _LABELS.index(pokerkit_hand(cards).entry.label) + 1
    else:
        groups = sorted(counts.values(), reverse=True)
        name = ("four of a kind" if groups[0] == 4 else "three of a kind" if groups[0] == 3
                else "two pair" if groups[:2] == [2, 2] else "pair" if groups[0] == 2
                else "high card")
        category = CATEGORIES.index(name) + 1
    return category, (*pattern, *[0] * (5 - len(cards)))


def _reference(a: Sequence[str], b: Sequence[str]) -> int:
    if len(a) == len(b) == 5:
        return outcome(pokerkit_hand(a), pokerkit_hand(b))
    # a short hand's category has no straight or flush, so within it ranks decide in order
    return outcome(_rule_model(a), _rule_model(b))


def test_a21_short_hands_agree_with_the_rule_on_random_pairs():
    """Short against short and short against full, including near misses of the same ranks."""
    rng = random.Random(20240612)
    checked = 0
    wrong = []
    for _ in range(6_000):
        a = rng.sample(DECK, rng.randint(1, 5))
        if rng.random() < 0.5:
            b = rng.sample(DECK, rng.randint(1, 5))
        else:  # the same ranks, one card fewer or one card changed: the close calls
            b = resuited(a, rng)
            if len(b) > 1 and rng.random() < 0.5:
                b.pop(rng.randrange(len(b)))
            else:
                spare = [c for c in DECK if c not in b]
                b[rng.randrange(len(b))] = rng.choice(spare)
        va, vb = evaluate_draw(a), evaluate_draw(b)
        if outcome(va, vb) != _reference(a, b):
            wrong.append((a, b, va.key, vb.key))
        checked += 1
    assert checked == 6_000
    assert not wrong, wrong[:3]


def test_a21_the_ladder_orders_five_card_patterns_like_the_evaluator():
    """The short-hand key relies on pattern order and strength order agreeing per category."""
    ladder = _five_card_ladder()
    assert sorted(ladder) == [1, 2, 3, 4, 8]
    for patterns, strengths in ladder.values():
        assert patterns == sorted(patterns)
        assert all(lo < hi for lo, hi in pairwise(strengths))
    assert [len(p) for _, (p, _) in sorted(ladder.items())] == [1277, 2860, 858, 858, 156]


def test_a21_short_keys_sort_with_the_rest_of_a_showdown():
    hands = [["As", "Ad", "Kc", "Qh", "2d"], ["Ah", "Ac", "Kd", "Qs"], ["Ks", "Kd", "Ac", "Qd"],
             ["2c", "2d"], ["Ad", "Kh", "Qs", "Jc", "9d"], ["Ac"]]
    values: list[HandValue] = [evaluate_draw(h) for h in hands]
    assert sorted(values, reverse=True) == values
    assert max(values).best == ("As", "Ad", "Kc", "Qh", "2d")
