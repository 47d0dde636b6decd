"""Scenario files with stack zones: the stacks lie in P1..P10 and the chip reader tells them,
and steps change a stack outside the rules (``stack_take``, ``stack_add``,
``stack_transfer``), checked when the file is read as every other step is."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.endpoints import Recorder
from simulators.scenario import ScenarioError, loads_scenario
from simulators.scenario_player import play_scenario
from simulators.virtual import VirtualTableRig, recorded_table
from tests.sim_wire import ZoneView, frames_of

HEAD = """
id: X1
setup:
  seats: {1: 10000, 2: 10000, 3: 10000}
  button: 3
  stack_zones: true
steps:
"""


def played(steps: str) -> tuple[dict[int, int], list[tuple[str, int]]]:
    """Play ``steps`` on fresh devices: the stacks after, and each chip inventory as
    (zone, change of its value), in order."""
    scenario = loads_scenario(HEAD + steps)
    table, recorded = recorded_table({1: 100, 2: 100}, seed=1)
    mark = len(recorded)
    stacks = play_scenario(table, scenario)
    view = ZoneView.of(table.chip_values)
    told: list[tuple[str, int]] = []
    for frame in frames_of(recorded[mark:]):
        if frame.type == "CHIPS":
            zone, was = frame.fields[0], view.value(frame.fields[0])
            view.read(frame)
            told.append((zone, view.value(zone) - was))
    return stacks, told


def test_a_scenario_with_stack_zones_tells_the_stacks_before_its_first_step() -> None:
    _, told = played("  - newhand\n")
    assert told == [("P1", 10000), ("P2", 10000), ("P3", 10000)]


def test_a_scenarios_bets_leave_the_stack_zone_before_the_bet_zone_and_pushes_reach_it_after(
) -> None:
    stacks, told = played("""\
  - newhand
  - bet: {seat: 1, to: 100}
  - bet: {seat: 2, to: 200}
  - bet: {seat: 3, to: 200}
  - bet: {seat: 1, to: 0}
  - gather
  - push: {3: 400}
""")
    assert told[3:] == [
        ("P1", -100), ("B1", 100), ("P2", -200), ("B2", 200), ("P3", -200), ("B3", 200),
        ("B1", -100), ("P1", 100),  # a bet taken back: the bet zone, then the stack
        ("B2", -200), ("B3", -200), ("POT", 400),
        ("POT", -400), ("P3", 400),
    ]
    assert stacks == {1: 10000, 2: 9800, 3: 10200}


def test_stack_steps_take_add_and_transfer_chips_outside_the_rules() -> None:
    stacks, told = played("""\
  - stack_take: {seat: 1, amount: 500}
  - stack_add: {seat: 2, amount: 1000}
  - stack_transfer: {from: 3, to: 1, amount: 2500}
""")
    assert told[3:] == [("P1", -500), ("P2", 1000), ("P3", -2500), ("P1", 2500)]
    assert stacks == {1: 12000, 2: 11000, 3: 7500}


@pytest.mark.parametrize(("steps", "problem"), [
    ("  - stack_take: {seat: 4, amount: 500}\n", "seat 4 is empty"),
    ("  - stack_take: {seat: 1, amount: 0}\n", "more than 0"),
    ("  - stack_add: {seat: 1}\n", "missing"),
    ("  - stack_add: {seat: 1, amount: 100, to: 2}\n", "unknown keys"),
    ("  - stack_transfer: {from: 1, to: 1, amount: 100}\n", "from one seat to another"),
    ("  - stack_transfer: {seat: 1, amount: 100}\n", "missing"),
])
def test_a_stack_step_the_table_cannot_do_is_refused_when_the_file_is_read(
        steps: str, problem: str) -> None:
    with pytest.raises(ScenarioError, match=problem):
        loads_scenario(HEAD + steps)


def test_a_stack_step_needs_stack_zones() -> None:
    with pytest.raises(ScenarioError, match="stack_zones"):
        loads_scenario(HEAD.replace("  stack_zones: true\n", "")
                       + "  - stack_take: {seat: 1, amount: 500}\n")


def test_stack_zones_must_be_true_or_false() -> None:
    with pytest.raises(ScenarioError, match="true or false"):
        loads_scenario(HEAD.replace("stack_zones: true", "stack_zones: 1") + "  - newhand\n")


def test_a_stack_cannot_give_more_than_it_holds() -> None:
    with pytest.raises(ScenarioError, match=r"step 1 .*has 10000, cannot give 20000"):
        played("  - stack_take: {seat: 1, amount: 20000}\n")


def test_a_rig_with_its_own_stack_zones_does_not_play_a_scenario(tmp_path: Path) -> None:
    with VirtualTableRig(tmp_path, recorder=Recorder(), stack_zones=True,
                         heartbeat=None, chip_refresh=None, seed=1) as rig, \
            pytest.raises(ValueError, match="its own stacks"):
        rig.play_scenario(loads_scenario(HEAD + "  - newhand\n"))
