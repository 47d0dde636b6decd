"""Frames that a stall delivers in one burst, read out of their physical order.

Found end to end, with real ports on a loaded machine: the service or the devices stand still
for a moment, and what the devices sent meanwhile is read in one burst, each port's frames in
their order but the ports in any order. Within the order tolerance (50 ms) the core must take
them in the order they happened at the table.

- After a restart that lost the NEWHAND, the first card's arrival was read a moment before its
  draw. With no hand under way it went to the hand before (the deck is the same), which then
  reported that card as never collected (a critical ``card_unaccounted``).
- A player's check on the turn was read before the burn and the turn card: the flop's round
  being complete, it was taken at once, as an action out of turn, and the rest of the hand
  cascaded (``burn_premature``, ``premature_card``, ten ``action_out_of_turn``).
- A raise was still settling (in motion, not yet booked) when the dealer's gathering of its
  zone was read, before the fold that completed the round: ``bet_withdrawn``.
"""

from __future__ import annotations

import pytest

from tests.room import Reader, Session
from tests.unit.test_room_accidents import SEATS, core_result, count_stacks, table_result

Frames = list[tuple[str, bytes]]


def first_card(frames: Frames) -> int:
    """Index of the first shoe DRAW (its ARR follows it)."""
    return next(i for i, (dev, raw) in enumerate(frames) if dev == "shoe" and b"DRAW" in raw)


@pytest.mark.parametrize("step_ms", [10, 40])
def test_a_card_read_before_its_draw_after_a_lost_newhand_is_no_card_of_the_hand_before(
        step_ms: int) -> None:
    """The draw read ``step_ms`` after the card's arrival, within the tolerance (50 ms)."""
    session = Session(SEATS, hands=4, seed=5, aggression=0.2)
    r = Reader(session, step_ms=step_ms, order_tolerance_ms=50)
    r.frames(session.before(2))
    hand2 = list(session.hand(2))
    assert hand2[0][0] == "console"  # the NEWHAND, lost in the outage
    i = first_card(hand2)
    assert hand2[i + 1][0] == "cards"
    hand2[i], hand2[i + 1] = hand2[i + 1], hand2[i]  # its arrival read first
    r.restart(down_ms=2000)
    r.frames(hand2[:1], lost=frozenset({"console"}))
    r.frames(hand2[1:])
    assert r.alerts() == [("hand_untracked", "warning")]
    count_stacks(r, session, 2)
    r.frames(session.frames[session.starts[2]:])
    assert r.alerts() == [("hand_untracked", "warning")]
    for n in (3, 4):
        assert core_result(r, n) == table_result(session, n)


def street_then_check(frames: Frames) -> int:
    """Index of a burn's DRAW that a single board card and a player's check follow (the turn
    or the river dealt, then the first player checks)."""
    def kind(i: int) -> str:
        dev, raw = frames[i]
        return f"{dev} {raw.decode().split(',')[2]},{raw.decode().split(',')[3]}"

    for i in range(len(frames) - 5):
        if (kind(i).startswith("shoe DRAW") and kind(i + 1) == "cards ARR,BURN"
                and kind(i + 2).startswith("shoe DRAW") and kind(i + 3) == "cards ARR,BOARD"
                and kind(i + 4) == "console BTN,CHECK"):
            return i
    raise AssertionError("no street dealt and checked in this session")


def test_a_check_read_before_the_burn_and_card_of_its_street_waits_for_them() -> None:
    session = Session(SEATS, hands=4, seed=5, aggression=0.2)
    at = street_then_check(session.frames)
    draw_burn, arr_burn, draw_card, arr_card, check = session.frames[at:at + 5]
    burst = [arr_burn, arr_card, check, draw_burn, draw_card]  # as the e2e journal had them
    frames = session.frames[:at] + burst + session.frames[at + 5:]
    r = Reader(session, step_ms=10, order_tolerance_ms=50)  # the burst within 40 ms
    r.frames(frames)
    assert r.alerts() == []
    for n in (1, 2, 3, 4):
        assert core_result(r, n) == table_result(session, n)


def raise_fold_gather(frames: Frames) -> int:
    """Index of a raise (a bet zone growing) that the next player folds to (his two cards to
    the muck), after which the dealer takes chips out of the raiser's zone: he hands back
    what was not called, or gathers it."""
    def frame(i: int) -> tuple[str, list[str]]:
        dev, raw = frames[i]
        return dev, raw.decode().split("*")[0].split(",")[2:]

    for i in range(len(frames) - 6):
        dev, raise_ = frame(i)
        if dev != "chips" or raise_[0] != "CHIPS" or not raise_[1].startswith("B") \
                or not raise_[2]:
            continue
        fold = [frame(j) for j in range(i + 1, i + 5)]
        dev5, after = frame(i + 5)
        if [d for d, _ in fold] == ["cards"] * 4 and fold[1][1][:2] == ["ARR", "MUCK"] \
                and fold[3][1][:2] == ["ARR", "MUCK"] and dev5 == "chips" \
                and after[1] == raise_[1] and len(after[2]) < len(raise_[2]):
            return i
    raise AssertionError("no raise folded to in this session")


@pytest.mark.parametrize("seed", [5, 8])
def test_chips_taken_from_a_raise_before_the_fold_that_ends_the_round_wait_for_it(
        seed: int) -> None:
    """The raise is still settling (a bet in motion, not yet booked) when the chip reader's
    inventory of the raiser's zone, handed back or gathered, is read before the fold that
    completed the round: it waits for the fold instead of being a bet withdrawn."""
    session = Session(SEATS, hands=4, seed=seed, aggression=0.3)
    at = raise_fold_gather(session.frames)
    burst = [session.frames[at], session.frames[at + 5], *session.frames[at + 1:at + 5]]
    frames = session.frames[:at] + burst + session.frames[at + 6:]
    r = Reader(session, step_ms=10, order_tolerance_ms=50)  # the burst within 50 ms
    r.frames(frames)
    assert r.alerts() == []
    for n in (1, 2, 3, 4):
        assert core_result(r, n) == table_result(session, n)
