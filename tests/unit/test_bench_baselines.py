"""The throughput bench's bare baseline times the frames the core is timed on, good ones only:
a baseline that timed an error path would make the core look slower than it is."""

from __future__ import annotations

import pytest

from bench.baselines import bare_tracker_cpu_s
from bench.streams import Stream, bench_deck
from drivers.tsp import decode


def _lines(n: int) -> list[str]:
    stream = Stream(bench_deck())
    out = []
    for _dev, raw, _key in stream.hands():
        out.append(raw.decode().rstrip("\r\n"))
        if len(out) == n:
            return out
    return out


def test_bare_baseline_accepts_every_frame_of_the_bench_stream() -> None:
    lines = _lines(500)
    for line in lines:  # the same frames the core decodes
        decode(line)
    assert bare_tracker_cpu_s(lines) >= 0.0


def test_bare_baseline_refuses_a_stream_with_a_bad_crc() -> None:
    lines = _lines(50)
    bad = lines[10][:-4] + ("0000" if lines[10][-4:] != "0000" else "FFFF")
    with pytest.raises(ValueError, match="bad CRC"):
        bare_tracker_cpu_s([*lines[:10], bad, *lines[11:]])
