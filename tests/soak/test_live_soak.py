"""The room soak, short: every kind of accident once, on both games, from a fixed seed.

``make soak`` runs the long one (at least 100 accidents of up to 60 s); this one keeps the
accidents short so that ``make test`` runs it in a few tens of seconds, and judges them the
same way (``tests/soak/live_soak.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesvc.brokers.mosquitto import Mosquitto
from tests.integration.outages import KINDS
from tests.soak.live_soak import GAMES, draw_plans, soak

pytestmark = pytest.mark.integration

SEED = 28
"""Draws every kind with lengths of up to 1 s, over a hold'em and a five-card draw session."""


def test_a_short_soak_of_every_accident_kind_on_both_games_judges_each_right(
        tmp_path: Path, broker: Mosquitto) -> None:
    lines: list[str] = []

    def say(line: str) -> None:
        print(line)
        lines.append(line)

    outcome = soak(SEED, len(KINDS), tmp_path / "soak", broker, max_length=1.0,
                   per_session=4, every_kind_once=True, through=0, say=say)
    assert outcome.ok, outcome.summary()
    assert outcome.sessions == len(GAMES)
    assert sorted(v.accident.kind for v in outcome.verdicts if v.accident.kind != "start") \
        == sorted(KINDS)


def test_a_seed_draws_the_same_accidents_again() -> None:
    """``make soak ARGS="--seed N"`` runs the accidents of a failed soak again: the plan is
    the seed's alone."""
    import random

    first = draw_plans(random.Random(7), 100, 60.0, KINDS)
    assert first == draw_plans(random.Random(7), 100, 60.0, KINDS)
    assert {p.kind for p in first} == set(KINDS)
    assert all(0 <= p.length <= 60 for p in first)
    assert any(p.length > 30 for p in first)
