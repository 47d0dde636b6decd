"""The login throttle's lockouts (``tablesvc.web.logins``): failures in a row per key, a
back-off that doubles up to a cap, what a login clears, what is forgotten."""

from __future__ import annotations

from tablesvc.web.logins import FAILURES, FIRST_LOCKOUT_S, LONGEST_LOCKOUT_S, Throttle


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


USER, ADDRESS = ("user", "sam"), ("address", "10.0.0.1")


def fail(t: Throttle, n: int) -> list[float]:
    """``n`` failures of both keys; the lockouts they began."""
    return [s for _ in range(n) for _, s in t.failed([USER, ADDRESS])]


def test_failures_in_a_row_lock_out_for_a_back_off_that_doubles_up_to_a_cap() -> None:
    clock = Clock()
    t = Throttle(clock)
    assert fail(t, FAILURES - 1) == [] and t.retry_after([USER]) == 0
    assert fail(t, 1) == [FIRST_LOCKOUT_S] * 2
    assert t.retry_after([USER]) == t.retry_after([ADDRESS]) == FIRST_LOCKOUT_S
    assert t.retry_after([("user", "kim")]) == 0
    # failures of checks that began before the lockout do not earn the next one
    assert fail(t, FAILURES) == []
    clock.now += FIRST_LOCKOUT_S
    assert t.retry_after([USER, ADDRESS]) == 0
    lengths = []
    for _ in range(8):
        lengths.append(fail(t, FAILURES)[0])
        clock.now += lengths[-1]
    assert lengths == [min(FIRST_LOCKOUT_S * 2 ** n, LONGEST_LOCKOUT_S) for n in range(1, 9)]
    assert lengths[-1] == LONGEST_LOCKOUT_S


def test_a_login_clears_the_name_and_the_addresss_run_and_a_quiet_record_is_forgotten() -> None:
    clock = Clock()
    t = Throttle(clock, forget_s=3600)
    fail(t, FAILURES)
    clock.now += FIRST_LOCKOUT_S
    fail(t, FAILURES - 1)
    t.succeeded(USER, ADDRESS)
    assert USER not in t.records and t.records[ADDRESS].failures == 0
    # the address's lockouts so far still count; a day quiet, they are forgotten
    assert fail(t, FAILURES)[1] == 2 * FIRST_LOCKOUT_S
    clock.now += 2 * FIRST_LOCKOUT_S + 3600
    assert t.retry_after([ADDRESS]) == 0 and ADDRESS not in t.records
    assert fail(t, FAILURES) == [FIRST_LOCKOUT_S] * 2
