"""The tournament clock: a director's operations, and levels that end at their exact stamp."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tablesvc.tournament import clock
from tablesvc.tournament.clock import ClockError, ClockState
from tablesvc.tournament.structure import Break, Level, Structure

L1 = Level(1, 100, 200, 0, "each", 10)
L2 = Level(2, 200, 400, 0, "each", 10)
BREAK = Break(2, 5, "Break")
L3 = Level(3, 300, 600, 600, "big_blind", 10)
# periods: 0 = level 1 (600 s), 1 = level 2 (600 s), 2 = the break (300 s), 3 = level 3
S = Structure("T", "holdem", "no-limit", 10000, (L1, L2, BREAK, L3), None)
T0 = 1_800_000_000.0


def started() -> ClockState:
    return clock.start(ClockState(), S, T0)


def test_a_started_clock_runs_level_1_with_its_full_time_and_counts_down() -> None:
    v = clock.view(ClockState(), S, T0)
    assert (v.started, v.running, v.level, v.remaining_s) == (False, False, L1, 600)
    s = started()
    v = clock.view(s, S, T0 + 100)
    assert (v.started, v.running, v.period, v.level, v.on_break) == (True, True, 0, L1, None)
    assert v.remaining_s == 500 and v.ends_at == T0 + 600
    assert (v.next_level, v.next_break, v.next_break_in_s) == (L2, BREAK, 500 + 600)


def test_a_pause_keeps_the_time_left_and_resume_goes_on_from_there() -> None:
    s = clock.pause(started(), S, T0 + 100)
    v = clock.view(s, S, T0 + 1000)  # long past the level's end: a paused clock does not run
    assert (v.period, v.remaining_s, v.running, v.ends_at) == (0, 500, False, None)
    s = clock.resume(s, S, T0 + 1000)
    assert clock.view(s, S, T0 + 1100).remaining_s == 400
    assert clock.view(s, S, T0 + 1500).period == 1  # level 1 ended at T0 + 1500


def test_a_controller_restarted_3_minutes_after_a_level_ended_is_3_minutes_into_the_next(
        ) -> None:
    s = started()  # level 1 ends at T0 + 600; nobody settles until T0 + 780
    late = clock.settle(s, S, T0 + 780)
    assert late.period == 1 and late.period_started_at == T0 + 600
    assert clock.view(late, S, T0 + 780).remaining_s == 420
    # and settling often or once gives the same state
    assert clock.settle(clock.settle(s, S, T0 + 500), S, T0 + 780) == late


def test_settle_rolls_over_several_periods_each_beginning_at_the_previous_ones_end() -> None:
    s = clock.settle(started(), S, T0 + 600 + 600 + 300 + 60)
    assert (s.period, s.period_started_at) == (3, T0 + 1500)
    assert clock.view(s, S, T0 + 1560).remaining_s == 540


def test_on_a_break_the_level_before_it_stays_in_play_and_the_next_level_is_shown() -> None:
    v = clock.view(started(), S, T0 + 1300)
    assert v.on_break == BREAK and v.level == L2 and v.next_level == L3
    assert v.remaining_s == 200
    assert v.next_break is None and v.next_break_in_s is None  # no break after this one


def test_the_last_level_never_ends_its_time_stays_at_zero() -> None:
    s = clock.settle(started(), S, T0 + 10 * 3600)
    assert (s.period, s.finished) == (3, True)
    v = clock.view(s, S, T0 + 20 * 3600)
    assert (v.level, v.remaining_s, v.finished, v.next_level) == (L3, 0, True, None)


def test_advance_starts_the_chosen_period_anew_and_counts_breaks_as_periods() -> None:
    s = clock.advance(started(), S, 1, T0 + 100)
    assert (s.period, s.period_started_at) == (1, T0 + 100)
    assert clock.view(s, S, T0 + 100).remaining_s == 600
    s = clock.advance(s, S, 1, T0 + 200)
    assert clock.view(s, S, T0 + 200).on_break == BREAK
    s = clock.advance(s, S, -2, T0 + 300)
    assert (s.period, clock.view(s, S, T0 + 300).remaining_s) == (0, 600)


def test_advance_is_clamped_to_the_structure_and_refused_at_its_ends() -> None:
    s = clock.advance(started(), S, 10, T0)
    assert s.period == 3
    with pytest.raises(ClockError, match="already in the last level"):
        clock.advance(s, S, 1, T0)
    with pytest.raises(ClockError, match="already in the first level"):
        clock.advance(started(), S, -1, T0)


def test_advance_while_paused_stays_paused_and_gives_the_full_time_on_resume() -> None:
    s = clock.pause(started(), S, T0 + 100)
    s = clock.advance(s, S, 1, T0 + 200)
    assert clock.view(s, S, T0 + 900).remaining_s == 600
    s = clock.resume(s, S, T0 + 900)
    assert (s.period, clock.view(s, S, T0 + 960).remaining_s) == (1, 540)


def test_advance_before_the_start_chooses_the_level_the_clock_starts_in() -> None:
    s = clock.advance(ClockState(), S, 1, T0)
    assert not s.started and s.period == 1
    s = clock.start(s, S, T0 + 50)
    assert (s.period, clock.view(s, S, T0 + 50).remaining_s) == (1, 600)


def test_shift_adds_or_takes_time_and_taking_more_than_is_left_rolls_over() -> None:
    s = clock.shift(started(), S, 2, T0 + 100)
    assert clock.view(s, S, T0 + 100).remaining_s == 620
    s = clock.shift(started(), S, -12, T0 + 100)
    # 100 s run + 720 s taken: level 1 ended 220 s ago, level 2 began then
    assert s.period == 1 and clock.view(s, S, T0 + 100).remaining_s == 380


def test_shift_while_paused_changes_the_time_left_and_stays_paused() -> None:
    s = clock.shift(clock.pause(started(), S, T0 + 100), S, -1, T0 + 300)
    v = clock.view(s, S, T0 + 400)
    assert (v.running, v.remaining_s) == (False, 440)


def test_shift_on_the_finished_last_level_gives_it_that_much_time_again() -> None:
    s = clock.settle(started(), S, T0 + 10 * 3600)
    s = clock.shift(s, S, 5, T0 + 10 * 3600)
    v = clock.view(s, S, T0 + 10 * 3600)
    assert (v.remaining_s, v.finished) == (300, False)


@pytest.mark.parametrize(("op", "message"), [
    (lambda s: clock.start(s, S, T0), "already been started"),
    (lambda s: clock.resume(s, S, T0), "not paused"),
    (lambda s: clock.pause(clock.pause(s, S, T0), S, T0), "already paused"),
    (lambda s: clock.pause(ClockState(), S, T0), "not been started, so it cannot be paused"),
    (lambda s: clock.resume(ClockState(), S, T0), "not been started, so it cannot be resumed"),
    (lambda s: clock.shift(ClockState(), S, 1, T0), "not been started, so it cannot be shifted"),
])
def test_an_operation_not_allowed_now_is_refused_with_the_reason(
        op: Callable[[ClockState], ClockState], message: str) -> None:
    with pytest.raises(ClockError, match=message):
        op(started())
