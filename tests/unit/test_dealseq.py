"""Hold'em deal-sequence deviations (RULES.md §2.4) and queue rewrites (§2.5), driven directly."""

from __future__ import annotations

import re

import pytest

from tablesvc.core.card_flow import CardAfterEnd, Dealt, Folded, Irregularity
from tablesvc.core.games.community.tracker import BoardDealt, Burned, CommunityHand, Outcome

CARDS = [r + s for s in "cdhs" for r in "23456789TJQKA"]


class Table:
    """Feeds a hand card by card: card #k has the tag U<k> and the k-th deck card."""

    def __init__(self, seats: tuple[int, ...], button: int) -> None:
        self.hand = CommunityHand(seats=seats, button=button)
        self.top = 1  # the next fresh card in the deck
        self.returned: list[int] = []  # cards put back on top (last returned first out)
        self.log: list[Outcome] = []

    def card(self, k: int) -> str:
        return CARDS[k - 1]

    def out(self, zone: str, *, over: bool = True, bb: bool = False,
            up: bool = False) -> list[Outcome]:
        """The next card from the deck (a returned card first) is read at ``zone``."""
        k = self.returned.pop() if self.returned else self.top
        if k == self.top:
            self.top += 1
        self.log += self.hand.card_out(f"U{k}", self.card(k), face_up=up)
        got = self.hand.arrive(zone, f"U{k}", self.card(k), betting_over=over,
                               bb_option_pending=bb)
        self.log += got
        return got

    def move(self, k: int, zone: str) -> list[Outcome]:
        got = self.hand.arrive(zone, f"U{k}", self.card(k))
        self.log += got
        return got

    def back(self, k: int) -> None:
        self.hand.shoe_in(f"U{k}")
        self.returned.append(k)

    def deal(self) -> None:
        for _ in range(2):
            for s in self.hand.order:
                assert isinstance(self.out(f"S{s}")[0], Dealt)


def irr(outcomes: list[Outcome]) -> list[tuple[str, str]]:
    return [(o.name, o.severity) for o in outcomes if isinstance(o, Irregularity)]


def burned(got: list[Outcome]) -> int:
    [b] = got
    assert isinstance(b, Burned)
    return b.index


def board(t: Table, *ks: int) -> BoardDealt:
    """The street's cards #ks go to the board; returns the street announcement."""
    got: list[Outcome] = []
    for _ in ks:
        got = t.out("BOARD")
    [b] = got
    assert isinstance(b, BoardDealt)
    assert b.cards == tuple(t.card(k) for k in ks)
    return b


def four() -> Table:
    t = Table((1, 2, 3, 4), button=4)
    t.deal()
    return t


def run_rest_clean(t: Table, turn_burn: int) -> None:
    """From the turn burn on, the hand follows the clean sequence (burn, turn, burn, river)."""
    assert t.hand.expected() == "BURN"
    assert burned(t.out("BURN")) == turn_burn
    assert board(t, turn_burn + 1).street == "turn"
    assert burned(t.out("BURN")) == turn_burn + 2
    assert board(t, turn_burn + 3).street == "river"
    assert t.hand.expected() is None


def test_clean_sequence_is_unchanged_and_the_gate_says_no_card_while_betting() -> None:
    t = four()
    assert t.hand.expected(betting_over=False) is None
    assert t.hand.expected(betting_over=True) == "BURN"
    assert burned(t.out("BURN")) == 9
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)
    assert not irr(t.log)


# --- betting gate: D10 (R5), D11 / D15 (R6), T13, T14 -------------------------------------

def test_t13_d10_burn_before_round_complete_is_burn_premature_and_r5_reburns_same_card() -> None:
    t = four()
    got = t.out("BURN", over=False)  # S2 (BB) still to act after a raise
    assert irr(got) == [("burn_premature", "warning")]
    [i] = [o for o in got if isinstance(o, Irregularity)]
    assert (i.rule, i.index, i.expected, i.observed) == ("BURN-03", 9, None, "BURN")
    t.back(9)  # „Burn Card zurück"
    assert burned(t.out("BURN")) == 9  # the same card burned again once the round is over
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)
    assert irr(t.log) == [("burn_premature", "warning")]


def test_d10_other_card_after_burn_back_is_redress_order_error() -> None:
    t = four()
    t.out("BURN", over=False)
    t.hand.shoe_in("U9")  # returned, but the dealer takes a different card
    got = t.out("BURN")
    assert irr(got) == [("redress_order_error", "warning")]


def test_d10_burn_left_in_place_stands_as_the_flop_burn() -> None:
    t = four()
    t.out("BURN", over=False)
    got = t.out("BOARD")  # betting now over; the early burn never went back
    assert isinstance(got[0], Burned) and got[0].index == 9
    t.out("BOARD")
    got = t.out("BOARD")
    assert isinstance(got[-1], BoardDealt) and got[-1].cards == (t.card(10), t.card(11), t.card(12))
    run_rest_clean(t, 13)


@pytest.mark.rules("BET-04", "BOARD-05", "BURN-03")
def test_t14_d10_d11_bb_option_skipped_premature_flop_r6_burns_p_cards_then_regular_burn() -> None:
    t = four()
    got = t.out("BURN", over=False, bb=True)
    assert irr(got) == [("burn_premature", "warning"), ("bb_option_skipped", "critical")]
    got = t.out("BOARD", over=False, bb=True)
    assert irr(got) == [("premature_card", "critical")]
    assert next(o for o in got if isinstance(o, Irregularity)).rule == "BOARD-05"
    assert t.out("BOARD", over=False) == [] and t.out("BOARD", over=False) == []
    assert t.hand.board == []  # premature cards are not the flop
    for k in (10, 11, 12):  # taken back, burned (P = 4 counts them; the #9 burn does not)
        t.hand.depart("BOARD", f"U{k}")
        assert burned(t.move(k, "BURN")) == k
    # S2 raises, everyone calls: P = 4, R = 3 -> E = 1, then the regular burn
    assert burned(t.out("BURN")) == 13
    assert burned(t.out("BURN")) == 14
    assert board(t, 15, 16, 17).street == "flop"
    run_rest_clean(t, 18)  # turn #18 B, #19 T; river #20 B, #21 R


def test_t14_variant_two_players_left_fewer_than_premature_cards_no_extra_burn() -> None:
    t = four()
    t.out("BURN", over=False, bb=True)
    for _ in range(3):
        t.out("BOARD", over=False, bb=True)
    for k in (10, 11, 12):
        t.move(k, "BURN")
    t.hand.fold(4)
    t.hand.fold(1)  # P = 2 < R = 3 -> E = 0
    assert burned(t.out("BURN")) == 13  # the regular burn
    assert board(t, 14, 15, 16).street == "flop"
    run_rest_clean(t, 17)


def test_d11_premature_flop_card_without_burn_r6_burns_r_plus_e_then_regular_burn() -> None:
    t = four()
    got = t.out("BOARD", over=False)
    assert irr(got) == [("premature_card", "critical")]
    t.move(9, "BURN")  # taken back straight to the burn stack
    t.hand.fold(3)  # P = 3, R = 1 -> E = 2
    assert [burned(t.out("BURN")) for _ in range(3)] == [10, 11, 12]
    assert board(t, 13, 14, 15).street == "flop"
    run_rest_clean(t, 16)


def test_d11_premature_with_one_player_left_nothing_more_is_dealt() -> None:
    t = four()
    t.out("BOARD", over=False)
    for s in (1, 2, 3):
        t.hand.fold(s)
    got = t.out("BURN")
    assert isinstance(got[0], CardAfterEnd)


@pytest.mark.rules("BOARD-01")
def test_d15_fourth_card_on_the_flop_is_board_card_count_error_and_r6_with_r_1() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    got = t.out("BOARD", over=False)  # flop betting still open
    assert irr(got) == [("board_card_count_error", "critical")]
    assert [o.rule for o in got if isinstance(o, Irregularity)] == ["BOARD-01"]
    assert len(t.hand.board) == 3
    assert burned(t.move(13, "BURN")) == 13
    t.hand.fold(1)
    t.hand.fold(2)  # P = 2, R = 1 -> E = 1
    assert burned(t.out("BURN")) == 14
    assert burned(t.out("BURN")) == 15  # the regular turn burn
    assert board(t, 16).street == "turn"
    assert burned(t.out("BURN")) == 17
    assert board(t, 18).street == "river"


# --- burn errors: D12 (R3), D13 (R4), D14, T10-T12 ----------------------------------------

def test_t10_d12_flop_without_burn_redressed_r3a_flop_is_the_correct_cards() -> None:
    t = four()
    got = t.out("BOARD")
    assert irr(got) == [("burn_missing", "critical")]
    assert [o.rule for o in got if isinstance(o, Irregularity)] == ["BURN-04"]
    t.back(9)  # CON:redress; SHOE_IN(#9)
    assert t.hand.board == []
    assert burned(t.out("BURN")) == 9
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)
    assert irr(t.log) == [("burn_missing", "critical")]


def test_d12_two_flop_cards_without_burn_redressed_r3a_returns_them_in_order() -> None:
    t = four()
    t.out("BOARD")
    t.out("BOARD")
    t.back(10)
    t.back(9)  # last dealt first: #9 on top
    assert burned(t.out("BURN")) == 9
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)


def test_d12_board_card_without_burn_raises_burn_missing_and_tracker_realigns() -> None:
    t = four()
    got = t.out("BOARD")  # the flop burn is missing; R3(b): finish the street
    assert irr(got) == [("burn_missing", "critical")]
    t.out("BOARD")
    [b] = t.out("BOARD")
    assert isinstance(b, BoardDealt) and b.street == "flop"
    assert t.hand.board == [t.card(9), t.card(10), t.card(11)]
    assert burned(t.out("BURN", over=False)) == 12  # the late burn, right after the street
    run_rest_clean(t, 13)  # the turn burn is #13, as in a clean hand
    assert irr(t.log) == [("burn_missing", "critical")]


def test_t11_d12_turn_without_burn_not_redressable_late_burn_immediately_r3b() -> None:
    """BOARD-02: the turn, like the river, is burn one, deal one."""
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    got = t.out("BOARD")
    assert irr(got) == [("burn_missing", "critical")]
    assert isinstance(got[-1], BoardDealt) and got[-1].street == "turn"
    assert got[-1].cards == (t.card(13),)
    assert burned(t.out("BURN", over=False)) == 14  # late burn, turn betting not yet started
    assert burned(t.out("BURN")) == 15
    assert board(t, 16).street == "river"  # the same river as in a clean hand
    assert irr(t.log) == [("burn_missing", "critical")]


def test_t11_d12_late_burn_at_next_street_timing_also_accepted() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    t.out("BOARD")
    assert t.hand.expected(betting_over=False) == "BURN"  # the late burn may come at once
    assert burned(t.out("BURN")) == 14  # ... or as two burns before the river
    assert burned(t.out("BURN")) == 15
    assert board(t, 16).street == "river"
    assert irr(t.log) == [("burn_missing", "critical")]


def test_t12_d13_two_burns_before_flop_not_redressed_r4b_skips_turn_burn() -> None:
    t = four()
    assert burned(t.out("BURN")) == 9
    got = t.out("BURN")
    assert irr(got) == [("burn_extra", "warning")]
    assert [o.rule for o in got if isinstance(o, Irregularity)] == ["BURN-05"]
    assert board(t, 11, 12, 13).street == "flop"  # shifted flop
    assert t.hand.expected(betting_over=False) is None
    assert t.hand.expected() == "BOARD"  # no burn before the turn
    assert board(t, 14).street == "turn"  # the same turn as in a clean hand
    assert burned(t.out("BURN")) == 15
    assert board(t, 16).street == "river"
    assert irr(t.log) == [("burn_extra", "warning")]


def test_d13_second_burn_redressed_r4a_goes_to_the_board() -> None:
    t = four()
    t.out("BURN")
    t.out("BURN")
    t.back(10)
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)


def test_d13_double_burn_before_the_river_leaves_the_river_shifted() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    t.out("BURN")
    board(t, 14)
    assert burned(t.out("BURN")) == 15
    assert irr(t.out("BURN")) == [("burn_extra", "warning")]
    assert board(t, 17).street == "river"


def test_t12_d14_burn_while_skip_pending_is_burn_skip_expected_card_goes_to_the_turn() -> None:
    t = four()
    t.out("BURN")
    t.out("BURN")
    board(t, 11, 12, 13)
    got = t.out("BURN")
    assert irr(got) == [("burn_skip_expected", "warning")]
    t.back(14)
    assert board(t, 14).street == "turn"
    assert burned(t.out("BURN")) == 15
    assert board(t, 16).street == "river"


def test_d14_card_moved_straight_from_burn_to_board_is_accepted_as_the_turn() -> None:
    t = four()
    t.out("BURN")
    t.out("BURN")
    board(t, 11, 12, 13)
    t.out("BURN")
    [b] = t.move(14, "BOARD")
    assert isinstance(b, BoardDealt) and b.cards == (t.card(14),)
    assert burned(t.out("BURN")) == 15


# --- deal errors: D1 (R9), D5, D9 (R7), D21 -----------------------------------------------

def test_t07_d1_wrong_seat_is_deal_order_error_r9_redress_instructions_then_completed() -> None:
    t = Table((1, 2, 3, 4, 5, 6), button=6)
    t.out("S1")
    got = t.out("S3")  # S2 skipped
    assert irr(got) == [("deal_order_error", "warning"), ("redress_instructions", "info")]
    err, instr = [o for o in got if isinstance(o, Irregularity)]
    assert (err.rule, err.expected, err.observed, err.seat, err.index) == (
        "DEAL-02", "S2", "S3", 3, 2)
    assert "#2 seat 3 -> seat 2" in instr.message
    t.hand.depart("S3", "U2")
    got = t.move(2, "S2")
    assert irr(got) == [("redress_completed", "info")]
    assert isinstance(got[0], Dealt) and (got[0].seat, got[0].index) == (2, 2)
    for s in (3, 4, 5, 6, 1, 2, 3, 4, 5, 6):
        t.out(f"S{s}")
    assert {s: tuple(h) for s, h in t.hand.hole.items()} == {
        s: (t.card(s), t.card(s + 6)) for s in range(1, 7)}
    assert t.hand.expected() == "BURN" and burned(t.out("BURN")) == 13
    assert irr(t.log) == [("deal_order_error", "warning"), ("redress_instructions", "info"),
                          ("redress_completed", "info")]


def test_t08_d1_shifted_cards_raise_one_deal_order_error_and_growing_instructions() -> None:
    t = Table((1, 2, 3, 4, 5, 6), button=6)
    for s in (1, 2, 3, 4, 5, 6, 1):
        t.out(f"S{s}")
    assert irr(t.out("S3")) == [("deal_order_error", "warning"), ("redress_instructions", "info")]
    got = t.out("S4")
    assert irr(got) == [("redress_instructions", "info")]
    assert "#8 seat 3 -> seat 2; #9 seat 4 -> seat 3" in got[-1].message  # type: ignore[union-attr]
    for k, s in ((8, 2), (9, 3)):
        t.move(k, f"S{s}")
    assert irr(t.log)[-1] == ("redress_completed", "info")
    for s in (4, 5, 6):
        t.out(f"S{s}")
    assert all(len(h) == 2 for h in t.hand.hole.values())
    assert burned(t.out("BURN")) == 13


def test_d5_card_to_board_during_deal_is_critical_deal_order_error_and_goes_back() -> None:
    t = four()
    t = Table((1, 2, 3, 4), button=4)
    t.out("S1")
    t.out("S2")
    got = t.out("BOARD")
    assert irr(got) == [("deal_order_error", "critical")]
    assert t.hand.expected() == "S3"
    t.back(3)
    [d] = t.out("S3")
    assert isinstance(d, Dealt) and (d.seat, d.index) == (3, 3)
    for s in (4, 1, 2, 3, 4):
        t.out(f"S{s}")
    assert burned(t.out("BURN")) == 9


def test_t04_d9_excess_card_is_too_many_cards_r7_burned_as_excess_shifts_by_one() -> None:
    t = Table((1, 2, 3, 4, 5), button=5)
    t.deal()
    got = t.out("S1", over=False)
    assert irr(got) == [("too_many_cards", "warning")]
    [i] = got
    assert isinstance(i, Irregularity) and (i.rule, i.index, i.seat) == ("DEAL-08", 11, 1)
    assert len(t.hand.hole[1]) == 2
    assert t.move(11, "BURN") == []  # excess burn: not the regular burn
    assert burned(t.out("BURN")) == 12
    assert board(t, 13, 14, 15).street == "flop"
    run_rest_clean(t, 16)


def test_t04c_d9_excess_card_redressed_r7_becomes_the_flop_burn() -> None:
    t = Table((1, 2, 3, 4, 5), button=5)
    t.deal()
    t.out("S1", over=False)
    t.back(11)
    assert burned(t.out("BURN")) == 11
    assert board(t, 12, 13, 14).street == "flop"
    run_rest_clean(t, 15)


def test_d21_card_after_hand_end_is_card_after_end() -> None:
    t = four()
    for s in (1, 2, 3):
        t.hand.fold(s)
    [c] = t.out("BURN")
    assert isinstance(c, CardAfterEnd)
    t2 = four()
    t2.out("BURN")
    board(t2, 10, 11, 12)
    run_rest_clean(t2, 13)
    [c] = t2.out("BURN")
    assert isinstance(c, CardAfterEnd)
    t2.hand.ended = True
    [c] = t2.out("BOARD")
    assert isinstance(c, CardAfterEnd)


def test_irregularity_messages_never_name_a_card() -> None:
    t = four()
    t.out("BURN", over=False, bb=True)
    t.out("BOARD", over=False, bb=True)
    t2 = Table((1, 2, 3, 4), button=4)
    t2.out("S2")
    t2.out("BOARD")
    t2.out("S1")
    found = [o for o in t.log + t2.log if isinstance(o, Irregularity)]
    assert len(found) >= 4
    for o in found:
        for text in (o.message, o.remedy):
            assert not any(re.search(rf"\b{c}\b", text) for c in CARDS), text


# --- exposed and boxed cards: D4 (R1), D16, D2 (R2), T02, T03, T09 ------------------------

def test_misdeal_12_t03_d4_one_exposed_hole_card_r1_replacement_then_flop_burn() -> None:
    t = Table((1, 2, 3, 4), button=4)
    for s in (1, 2, 3, 4, 1, 2):
        t.out(f"S{s}")
    got = t.hand.exposed("U6", window_open=True)  # BTN,EXPOSED: #6 at S2
    assert irr(got) == [("card_exposed", "warning")]
    [i] = got
    assert isinstance(i, Irregularity) and (i.rule, i.seat, i.index) == ("MISDEAL-12", 2, 6)
    assert t.hand.exposed("U6", window_open=True) == []  # the same card pressed again
    t.out("S3")
    t.out("S4")
    assert t.hand.expected() == "S2"  # DEAL_FIX: the replacement, #2N+1
    [d] = t.out("S2")
    assert isinstance(d, Dealt) and d.index == 9 and d.hole == (t.card(2), t.card(9))
    assert t.hand.expected() == "BURN" and t.hand.queue[0].tag == "U6"
    assert burned(t.move(6, "BURN")) == 6  # TAG(x) -> BURN, before pre-flop betting
    assert t.hand.expected(betting_over=False) is None  # the gate passed to the flop
    assert t.hand.expected() == "BOARD"
    assert board(t, 10, 11, 12).street == "flop"  # flop indices unchanged
    run_rest_clean(t, 13)
    assert irr(t.log) == []


def test_misdeal_12_d4_face_up_draw_to_seat_exposed_burned_via_the_shoe() -> None:
    t = Table((1, 2, 3, 4), button=4)
    t.out("S1")
    got = t.out("S2", up=True)  # DRAW face U
    assert irr(got) == [("card_exposed", "warning")]
    assert all(o.hole is None for o in got if isinstance(o, Dealt))
    for s in (3, 4, 1, 2, 3, 4):
        t.out(f"S{s}")
    [d] = t.out("S2")  # #9: the replacement
    assert isinstance(d, Dealt) and d.hole == (t.card(6), t.card(9))
    t.back(2)  # placed face up on top of the deck
    assert burned(t.out("BURN", up=True)) == 2
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)


def test_misdeal_07_t02_second_exposed_card_in_window_is_misdeal_required_r10() -> None:
    t = Table((1, 2, 3, 4, 5, 6), button=6)
    t.out("S1")
    t.out("S2")
    assert irr(t.hand.exposed("U2", window_open=True)) == [("card_exposed", "warning")]
    for s in (3, 4, 5, 6, 1, 2):
        t.out(f"S{s}")
    t.out("S3")
    got = t.hand.exposed("U9", window_open=True)
    assert irr(got) == [("misdeal_required", "critical")]
    assert next(o for o in got if isinstance(o, Irregularity)).rule == "MISDEAL-07"
    assert t.hand.voided == "misdeal" and t.hand.expected() is None  # R10: collect only
    assert isinstance(t.out("S4")[0], CardAfterEnd)


def test_expose_03_exposure_after_the_window_is_kept_nothing_rewritten() -> None:
    t = four()
    queue = list(t.hand.queue)
    got = t.hand.exposed("U6", window_open=False)
    assert irr(got) == [("card_exposed", "warning"), ("exposed_card_kept", "info")]
    assert list(t.hand.queue) == queue and t.hand.hole[2] == [t.card(2), t.card(6)]
    assert t.hand.expected() == "BURN" and burned(t.out("BURN")) == 9
    assert board(t, 10, 11, 12).street == "flop"


def test_misdeal_12_d16_replacement_burned_is_exposed_card_not_replaced() -> None:
    t = Table((1, 2, 3, 4), button=4)
    for s in (1, 2, 3, 4, 1, 2):
        t.out(f"S{s}")
    t.hand.exposed("U6", window_open=True)
    t.out("S3")
    t.out("S4")
    got = t.out("BURN")  # #9 burned instead of given to S2
    assert irr(got) == [("exposed_card_not_replaced", "warning")]
    assert t.hand.expected() == "S2"
    [d] = t.move(9, "S2")  # redressed straight from the burn stack
    assert isinstance(d, Dealt) and d.hole == (t.card(2), t.card(9))
    assert burned(t.move(6, "BURN")) == 6
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)
    assert irr(t.log) == [("exposed_card_not_replaced", "warning")]


def test_misdeal_12_d16_deck_card_burned_instead_of_exposed_card_goes_back() -> None:
    t = Table((1, 2, 3, 4), button=4)
    for s in (1, 2, 3, 4, 1, 2):
        t.out(f"S{s}")
    t.hand.exposed("U6", window_open=True)
    for s in (3, 4, 2):
        t.out(f"S{s}")
    got = t.out("BURN")  # #10 from the deck while #6 is still at S2
    assert irr(got) == [("exposed_card_not_replaced", "warning")]
    t.back(10)
    assert burned(t.move(6, "BURN")) == 6
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)
    assert irr(t.log) == [("exposed_card_not_replaced", "warning")]


@pytest.mark.rules("EXPOSE-04", "BURN-01")
def test_expose_04_t09_d2_boxed_card_r2_seat_keeps_its_turn_indices_shift() -> None:
    t = Table((1, 2, 3, 4), button=4)
    for s in (1, 2, 3):
        t.out(f"S{s}")
    got = t.out("BURN")
    assert irr(got) == [("burn_unexpected", "warning")]  # #4, not yet confirmed
    assert next(o for o in got if isinstance(o, Irregularity)).rule == "BURN-01"
    got = t.hand.boxed("U4", window_open=True)  # BTN,BOXED
    assert irr(got) == [("boxed_card", "warning")]
    assert next(o for o in got if isinstance(o, Irregularity)).rule == "EXPOSE-04"
    assert t.hand.expected() == "S4" and t.hand.queue[0].tag is None
    for s in (4, 1, 2, 3, 4):
        t.out(f"S{s}")
    assert tuple(t.hand.hole[4]) == (t.card(5), t.card(9))
    assert burned(t.out("BURN")) == 10
    assert board(t, 11, 12, 13).street == "flop"
    run_rest_clean(t, 14)  # a clean hand now ends at #2N+9


def test_expose_04_d2_boxed_before_the_card_and_face_up_draw_to_burn() -> None:
    t = Table((1, 2, 3, 4), button=4)
    t.out("S1")
    assert t.hand.boxed(None, window_open=True) == []  # pressed before the card came out
    assert irr(t.out("BURN")) == [("boxed_card", "warning")]
    assert t.hand.expected() == "S2"
    t2 = Table((1, 2, 3, 4), button=4)
    t2.out("S1")
    assert irr(t2.out("BURN", up=True)) == [("boxed_card", "warning")]  # DRAW face U -> BURN
    assert t2.hand.expected() == "S2"
    for s in (2, 3, 4, 1, 2, 3, 4):
        t2.out(f"S{s}")
    assert burned(t2.out("BURN")) == 10


@pytest.mark.rules("MISDEAL-08")
def test_misdeal_08_second_boxed_card_in_window_is_misdeal_required() -> None:
    t = Table((1, 2, 3, 4), button=4)
    t.out("BURN", up=True)
    got = t.out("BURN", up=True)
    assert irr(got) == [("misdeal_required", "critical")]
    assert next(o for o in got if isinstance(o, Irregularity)).rule == "MISDEAL-08"
    assert t.hand.expected() is None


# --- D7 duplicate face, D18, D20, D23 --------------------------------------------------------

@pytest.mark.rules("DECK-04")
def test_deck_04_t20_d7_duplicate_face_is_deck_defective_duplicate_hand_cancelled() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    t.out("BURN")
    hand = t.hand
    got = hand.card_out("X14", t.card(1), face_up=False)  # another tag carrying #1's face
    assert irr(got) == [("deck_defective_duplicate", "critical")]
    [i] = got
    assert isinstance(i, Irregularity) and (i.rule, i.index) == ("DECK-04", 14)
    assert "#1" in i.message and t.card(1) not in i.message
    assert hand.arrive("BOARD", "X14", t.card(1)) == []  # no turn announced
    assert hand.voided == "cancelled" and hand.expected() is None  # R11: collect only
    assert len(hand.board) == 3
    h2 = CommunityHand(seats=(1, 2), button=2)  # no shoe: the first zone read is the deal
    h2.arrive("S1", "A", "Ah")
    assert irr(h2.arrive("S2", "B", "Ah")) == [("deck_defective_duplicate", "critical")]


@pytest.mark.rules("BURN-06", "BURN-07", "CONDUCT-02")
def test_burn_07_conduct_02_t15_d18_d20_burn_card_to_a_seat() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    assert burned(t.out("BURN")) == 13
    assert irr(t.hand.exposed("U13", window_open=False)) == [("burn_card_exposed", "info")]
    board(t, 14)
    t.out("BURN")
    board(t, 16)
    assert t.hand.expected() is None
    t.hand.depart("BURN", "U13")
    got = t.move(13, "S2")  # after the hand, before collection
    assert irr(got) == [("burn_card_disturbed", "warning"),
                        ("card_in_foreign_seat_zone", "warning")]
    assert [o.rule for o in got if isinstance(o, Irregularity)] == ["BURN-07", "CONDUCT-02"]
    assert irr(t.move(15, "MUCK")) == []  # a burn card collected at the hand end
    assert irr(t.move(1, "S3")) == [("card_in_foreign_seat_zone", "warning")]


def test_burn_07_d18_burn_card_leaving_burn_mid_hand() -> None:
    t = four()
    t.out("BURN")
    assert irr(t.move(9, "MUCK")) == [("burn_card_disturbed", "warning")]
    assert t.hand.expected() == "BOARD"
    t2 = four()
    t2.out("BURN")
    assert irr(t2.hand.shoe_in("U9")) == [("burn_card_disturbed", "warning")]


def test_burn_08_d23_collection_every_card_must_reach_muck() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    run_rest_clean(t, 13)
    for k in range(1, 17):
        if k != 7:
            t.move(k, "MUCK")
    t.hand.depart("MUCK", "U3")  # the pile is lifted into the shuffler: still collected
    got = t.hand.collected()
    assert irr(got) == [("card_unaccounted", "critical")]
    [i] = got
    assert isinstance(i, Irregularity) and (i.rule, i.index, i.seat) == ("BURN-08", 7, 3)
    t.move(7, "MUCK")
    assert t.hand.collected() == []


# --- debounce ----------------------------------------------------------------------------------

def test_debounce_repeated_reads_and_lift_and_put_back_are_not_moves() -> None:
    t = Table((1, 2, 3, 4), button=4)
    t.out("S1")
    assert t.hand.card_out("U1", t.card(1), face_up=False) == []  # shoe read twice
    assert t.move(1, "S1") == []  # zone read twice
    t.hand.depart("S1", "U1", ms=0)
    assert t.move(1, "S1") == []  # the player looks at his card
    assert t.hand.next_index == 2 and t.hand.expected() == "S2"
    for s in (2, 3, 4, 1, 2, 3, 4):
        t.out(f"S{s}")
    assert burned(t.out("BURN")) == 9
    t.hand.depart("BURN", "U9", ms=1000)
    assert t.hand.arrive("BURN", "U9", t.card(9), ms=1500) == []  # tidied at once
    t.hand.depart("BURN", "U9")
    assert t.hand.arrive("BURN", "U9", t.card(9)) == []  # no timestamps: noise
    t.hand.depart("BURN", "U9", ms=2000)
    got = t.hand.arrive("BURN", "U9", t.card(9), ms=9000)  # away for 7 s: looked at
    assert irr(got) == [("burn_card_disturbed", "warning")]
    assert t.hand.expected() == "BOARD"
    assert board(t, 10, 11, 12).street == "flop"
    run_rest_clean(t, 13)


def test_new_irregularity_messages_never_name_a_card() -> None:
    t = Table((1, 2, 3, 4), button=4)
    t.out("S1")
    t.out("S2", up=True)
    t.out("BURN", up=True)
    t.log += t.hand.exposed("U1", window_open=True)
    t.log += t.hand.card_out("X", t.card(1), face_up=False)
    t.hand.depart("S1", "U1")
    t.log += t.move(1, "S3") + t.hand.collected()
    found = [o for o in t.log if isinstance(o, Irregularity)]
    assert {o.name for o in found} >= {"card_exposed", "boxed_card", "misdeal_required",
                                        "deck_defective_duplicate", "card_unaccounted"}
    for o in found:
        for text in (o.message, o.remedy):
            assert not any(re.search(rf"\b{c}\b", text) for c in CARDS), text


# --- T04, T08, T15, T21, T22: R7 excess burn, R9 -> R10, BURN-07, SHOW-13, SEAT-05 ---------
def test_t04_deal_08_r7_excess_card_burned_during_betting_is_not_the_regular_burn() -> None:
    t = Table((1, 2, 3, 4, 5), button=5)
    t.deal()
    assert irr(t.out("S1", over=False)) == [("too_many_cards", "warning")]
    assert t.move(11, "BURN") == []  # R7: burned as excess while the round is open
    assert burned(t.out("BURN")) == 12  # the regular flop burn, shifted by +1
    assert board(t, 13, 14, 15).street == "flop"
    run_rest_clean(t, 16)
    assert irr(t.log) == [("too_many_cards", "warning")]


@pytest.mark.rules("MISDEAL-04")
def test_t08_misdeal_04_redress_impossible_while_window_open_is_misdeal_required() -> None:
    t = Table((1, 2, 3, 4, 5, 6), button=6)
    for s in (1, 2, 3, 4, 5, 6, 1, 3, 4, 5, 6, 2):
        t.out(f"S{s}")
    got = t.hand.redress_impossible(window_open=True)
    assert irr(got) == [("misdeal_required", "critical")]
    assert isinstance(got[0], Irregularity) and got[0].rule == "MISDEAL-04"
    assert t.hand.voided == "misdeal" and not t.hand.queue


def test_t08_misdeal_14_redress_impossible_after_window_keeps_the_cards_where_they_are() -> None:
    t = Table((1, 2, 3, 4, 5, 6), button=6)
    for s in (1, 2, 3, 4, 5, 6, 1, 3, 4, 5, 6, 2):
        t.out(f"S{s}")
    got = t.hand.redress_impossible(window_open=False)
    assert irr(got) == [] and t.hand.voided is None
    assert all(len(h) == 2 for h in t.hand.hole.values())
    assert t.hand.hole[3] == [t.card(3), t.card(8)]
    assert burned(t.out("BURN")) == 13


@pytest.mark.rules("MISDEAL-06")
def test_misdeal_06_excess_card_not_redressable_while_window_open_is_misdeal_required() -> None:
    t = four()
    t.out("S1")
    got = t.hand.redress_impossible(window_open=True)
    assert irr(got) == [("misdeal_required", "critical")]
    assert isinstance(got[0], Irregularity) and got[0].rule == "MISDEAL-06"


def test_t15_burn_07_burn_card_moved_to_a_seat_after_the_hand_is_disturbed_and_foreign() -> None:
    t = four()
    t.out("BURN")
    board(t, 10, 11, 12)
    t.out("BURN")
    t.hand.ended = True  # the pot was pushed
    assert irr(t.move(13, "S2")) == [("burn_card_disturbed", "warning"),
                                     ("card_in_foreign_seat_zone", "warning")]
    assert irr(t.move(13, "MUCK")) == []
    assert irr(t.move(9, "MUCK")) == []  # the collection is no disturbance


@pytest.mark.rules("SHOW-13")
def test_t21_show_13_live_hand_in_muck_without_a_fold_is_critical_and_can_be_rebuilt() -> None:
    t = four()
    h = t.hand
    assert h.arrive("MUCK", "U4", t.card(4)) == [Folded(4)]  # S4 folds on his turn
    got = h.arrive("MUCK", "U3", t.card(3), fold_possible=False)
    assert irr(got) == [("live_hand_in_muck", "critical")]
    assert isinstance(got[0], Irregularity) and (got[0].seat, got[0].rule) == (3, "SHOW-13")
    assert h.arrive("MUCK", "U7", t.card(7), fold_possible=False) == []
    assert 3 in h.active
    assert irr(t.move(3, "S3")) == []
    assert irr(t.move(7, "S3")) == [("hand_reconstructed", "info")]


def test_t21_show_13_unprotected_hand_ruled_foul_leaves_the_hand() -> None:
    t = four()
    t.hand.arrive("MUCK", "U3", t.card(3), fold_possible=False)
    assert t.hand.foul(3) == [Folded(3)]


def test_t22_seat_05_absent_at_deal_completion_makes_the_hand_dead() -> None:
    t = Table((1, 2, 3, 4, 5), button=5)
    for s in (1, 2, 3, 4, 5, 1, 2, 3, 4):
        t.out(f"S{s}")
    assert t.hand.player_absent(2, window_open=True) == []  # waits for the deal to complete
    got = t.out("S5")
    assert irr(got) == [("absent_player_hand_dead", "warning")]
    assert Folded(2) in got and 2 not in t.hand.active
    assert t.hand.arrive("MUCK", "U2", t.card(2)) == []  # killing it is no second fold


def test_seat_05_absent_reported_after_the_deal_before_any_action_is_a_dead_hand() -> None:
    t = four()
    got = t.hand.player_absent(2, window_open=True)
    assert irr(got) == [("absent_player_hand_dead", "warning")] and Folded(2) in got
    assert four().hand.player_absent(2, window_open=False) == []  # BET-16, not SEAT-05


def test_burn_02_burn_into_the_muck_then_moved_to_the_burn_serves_as_the_burn() -> None:
    t = four()
    got = t.out("MUCK")
    assert irr(got) == [("burn_wrong_zone", "warning")]
    assert [type(o).__name__ for o in t.move(9, "BURN")] == ["Burned"]  # the remedy
    before = len(t.log)
    b = board(t, 10, 11, 12)  # no burn_missing: the flop follows its burn
    assert b.street == "flop" and not irr(t.log[before:])
