"""Test scenarios (RULES.md §4) through the service's pure core: the alerts and the outcome
must be the ones the scenario file expects.

Every scenario file shipped in ``simulators/scenarios`` runs here.
Warning and critical alerts must match the expected ones exactly (name, severity); the info
alerts in ``expect`` must be among those raised (the core raises more, e.g. ``round_complete``);
an expected alert that names its ``rule`` must be raised under that rule (the rules coverage
counts it as proof of that rule only), and one that names its ``seat`` at that seat.

A scenario of a game the service cannot be configured for yet (``[game] variant``: the
pot-limit Omaha hands O01.., while the core learns Omaha) is skipped here, saying so; the
simulator's own tests play it meanwhile (tests/unit/test_scenario_files.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from simulators.scenario import (
    SCENARIO_DIR,
    enrolled_tags,
    load_scenario,
    scenario_files,
)
from simulators.scenario_player import play_scenario
from simulators.virtual import recorded_table
from tablesvc.core import events as ev
from tests.helpers import track

SCENARIOS = [p.stem for p in scenario_files()]
"""Every shipped scenario: the 25 of RULES.md §4 (T25 in its three cases), the draw games
D01.. (one per draw irregularity), the rule scenarios R01.. (one per further rule) and the
pot-limit Omaha hands O01... T20 enrolls a second tag as Ah (``setup.enrolled``), as a
defective deck's registry would hold."""


def run(name: str) -> tuple[Any, list[ev.Event]]:
    sc = load_scenario(SCENARIO_DIR / f"{name}.yaml")
    st = sc.setup
    table, frames = recorded_table(st.seats, seed=1, small_blind=st.small_blind,
                                   big_blind=st.big_blind, button=st.button,
                                   variant=st.variant, ante=st.ante)
    play_scenario(table, sc)
    events = track(frames, stacks=st.seats, button=st.button,
                   deck={**table.deck, **enrolled_tags(sc)},
                   chips=table.chip_values, small_blind=st.small_blind, big_blind=st.big_blind,
                   ante=st.ante, ante_mode=st.ante_mode, limit=st.limit, variant=st.variant)
    return sc, events


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_core_raises_the_expected_alerts_and_settles_as_expected(name: str) -> None:
    sc, events = run(name)
    alerts = sorted((e.name, e.severity) for e in events
                    if isinstance(e, ev.Alert) and e.severity != "info")
    expected = sorted((a.name, a.severity) for a in sc.expect.alerts if a.severity != "info")
    assert alerts == expected, sc.id
    infos = {e.name for e in events if isinstance(e, ev.Alert) and e.severity == "info"}
    missing = {a.name for a in sc.expect.alerts if a.severity == "info"} - infos
    assert not missing, f"{sc.id}: info alerts not raised: {sorted(missing)}"
    raised = {(e.name, e.rule) for e in events if isinstance(e, ev.Alert)}
    misfiled = [(a.name, a.rule) for a in sc.expect.alerts
                if a.rule is not None and (a.name, a.rule) not in raised]
    assert not misfiled, f"{sc.id}: alerts not raised under the rule expected: {misfiled}"
    at_seat = {(e.name, e.seat) for e in events if isinstance(e, ev.Alert)}
    elsewhere = [(a.name, a.seat) for a in sc.expect.alerts
                 if a.seat is not None and (a.name, a.seat) not in at_seat]
    assert not elsewhere, f"{sc.id}: alerts not raised at the seat expected: {elsewhere}"
    out = sc.expect.outcome
    ended = [e for e in events if isinstance(e, ev.HandEnded)]
    if out.reason is not None or out.stacks is not None:
        assert len(ended) == 1, sc.id
    if out.reason is not None:
        assert ended[0].reason == out.reason, sc.id
    if out.stacks is not None:
        assert {s.seat: s.stack for s in ended[0].stacks} == out.stacks, sc.id
    if out.awards is not None:
        awards = [(e.amount, {int(k): v for k, v in e.shares.items()})
                  for e in events if isinstance(e, ev.PotAwarded)]
        assert awards == [(amount, shares) for amount, shares in out.awards], sc.id


def test_the_clean_hand_goes_to_s1_with_27600() -> None:
    _, events = run("t01_clean_hand")
    awards = [e for e in events if isinstance(e, ev.PotAwarded)]
    assert [(a.amount, a.shares) for a in awards] == [(27600, {"1": 27600})]
