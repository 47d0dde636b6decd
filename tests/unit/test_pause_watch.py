"""A stopped process is noticed, and journalled once, whichever thread runs first after it.

The pause watch's clock is given by the test: no thread and no sleeping here; the service's
own freeze is tested end to end with a real process (SIGSTOP) in the integration tests.
"""

from __future__ import annotations

from tablesvc.pipeline.pause import PAUSE_S, TICK_S, PauseWatch


class Clock:
    """Wall time, and the process's CPU time (``cpu``), both moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0
        self.used = 3.0

    def __call__(self) -> float:
        return self.now

    def cpu(self) -> float:
        return self.used


def test_a_live_process_that_ticks_on_time_reports_no_pause() -> None:
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    for _ in range(40):
        clock.now += TICK_S
        watch.tick()
        assert watch.take() == 0


def test_a_slow_pipeline_is_no_pause_while_the_watch_went_on_ticking() -> None:
    """A disk sync of five seconds stalls the pipeline, not the process."""
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    for _ in range(20):  # the watch ticks on while the pipeline waits for its sync
        clock.now += TICK_S
        watch.tick()
    assert watch.take() == 0


def test_a_stopped_process_is_one_pause_when_the_watch_ticks_first() -> None:
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    clock.now += 47.0  # SIGSTOP ... SIGCONT
    watch.tick()
    assert watch.take() == 47_000
    assert watch.take() == 0  # told once


def test_a_stopped_process_is_one_pause_when_the_pipeline_asks_first() -> None:
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    clock.now += 9.5
    assert watch.take() == 9_500
    clock.now += TICK_S
    watch.tick()  # the watch's own late tick: the same pause, not a second one
    assert watch.take() == 0


def test_a_pause_shorter_than_the_threshold_is_scheduling_not_a_pause() -> None:
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    clock.now += PAUSE_S - 0.1
    watch.tick()
    assert watch.take() == 0


def test_a_thread_computing_for_seconds_is_no_pause_the_process_ran() -> None:
    """The watch's tick comes late because another thread held the interpreter while it
    computed: the process used that time, so nothing the ports held was left unread."""
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    clock.now += 3.0
    clock.used += 2.9
    watch.tick()
    assert watch.take() == 0


def test_a_stop_within_a_busy_stretch_counts_only_the_time_the_process_did_not_run() -> None:
    clock = Clock()
    watch = PauseWatch(clock, clock.cpu)
    clock.now += 4.0
    clock.used += 0.5  # it ran half a second of those four, then was stopped
    assert watch.take() == 3_500
