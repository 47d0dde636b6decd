"""Log lines are public: a traceback logged by the service must not carry a hand's cards."""

from __future__ import annotations

import io
import logging

import pytest
import structlog

from tablesvc.commands import logs


def fail_holding_cards() -> None:
    hole_cards = ["Qh", "Jd"]  # a local variable of the failing frame, like the core's
    raise ValueError(f"bad state with {len(hole_cards)} cards")


@pytest.mark.parametrize("mode", ["json", "console"])
def test_logged_traceback_leaves_out_the_frames_local_cards(mode: logs.Mode) -> None:
    out = io.StringIO()
    logs.configure(mode, "info", out)
    try:
        fail_holding_cards()
    except ValueError:
        structlog.get_logger("t").exception("pipeline failed")
        logging.getLogger("drivers").exception("port failed")  # the drivers' stdlib records
    text = out.getvalue()
    assert text.count("bad state with 2 cards") == 2  # both tracebacks are there ...
    assert "bad state with 2 cards" in text
    assert "Qh" not in text and "Jd" not in text  # ... without the locals
