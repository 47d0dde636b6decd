"""Timestamps of inputs (DESIGN §7): written and read back to the millisecond."""

from __future__ import annotations

import random
import time

import pytest

from tablesvc.core.inputs import _parse_ts_iso, format_ts, parse_ts


def _strftime(ms: int) -> str:
    secs, msec = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{msec:03d}Z"


def test_format_ts_writes_what_strftime_writes_in_any_order_of_times() -> None:
    rng = random.Random(3)
    t0 = 1_796_000_000_000
    times = [t0 + rng.randint(0, 3) for _ in range(200)]  # the same second, over and over
    times += [rng.randint(0, 253_402_300_799_999) for _ in range(2000)]
    times += [t0 - 1, t0, t0 + 999, t0 + 1000, 0, 999, 1000, 86_399_999, 86_400_000]
    rng.shuffle(times)
    assert [format_ts(ms) for ms in times] == [_strftime(ms) for ms in times]


def test_parse_ts_reads_every_millisecond_format_ts_writes() -> None:
    rng = random.Random(4)
    times = [rng.randint(0, 253_402_300_799_999) for _ in range(3000)]
    times += [0, 1, 999, 86_399_999, 951_782_400_000, 1_796_000_000_123]  # 2000-02-29 too
    for ms in times:
        ts = format_ts(ms)
        assert parse_ts(ts) == ms == _parse_ts_iso(ts), ts


@pytest.mark.parametrize("ts", [
    "2026-11-29T21:00:00.123", "2026-11-29T21:00:00.123+00:00", "2026-11-29 21:00:00.123Z",
    "2026-11-29T21:00:00Z", "2026-11-29T21:00:00.123456Z", "2026-11-29T21:00Z",
    "2026-02-29T21:00:00.123Z", "2026-13-01T21:00:00.123Z", "2026-11-31T00:00:00.000Z",
    "2026-11-29T24:00:00.000Z", "2026-11-29T23:60:00.000Z", "2026-11-29T23:59:60.000Z",
    "2026-11-29T2a:00:00.000Z", "2026-11-29T21:00:00.1a3Z", "2026-11-29T21:00:00.-12Z",
    "2026-11-29T21:00:00,123Z", "+026-11-29T21:00:00.123Z", "2026-W48-1T21:00:00.123Z",
    "2026-11-29T21:00:00.12\u0663Z",
    "20261129T210000.123Z", "\uff12026-11-29T21:00:00.123Z", "", "Z", "0000-01-01T00:00:00.000Z",
])
def test_parse_ts_reads_other_forms_exactly_as_the_general_parser_does(ts: str) -> None:
    try:
        want: int | str = _parse_ts_iso(ts)
    except ValueError as exc:
        want = f"ValueError: {exc}"
    try:
        got: int | str = parse_ts(ts)
    except ValueError as exc:
        got = f"ValueError: {exc}"
    assert got == want
