"""Scenario files (RULES.md §4) load, bad ones are refused clearly, and the player emits the
frames each step describes, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.tsp import decode
from simulators.scenario import (
    ScenarioError,
    load_scenario,
    loads_scenario,
    scenario_files,
)
from simulators.scenario_player import play_scenario
from simulators.virtual import recorded_table

FILES = scenario_files()


def frames_of(recorded: list[tuple[str, bytes]]) -> list[tuple[str, str, tuple[str, ...]]]:
    out = []
    for _, raw in recorded:
        frame = decode(raw.decode().rstrip("\r\n"))
        if frame.type not in ("HELLO", "HB"):
            out.append((frame.dev, frame.type, frame.fields))
    return out


def test_every_scenario_is_shipped_and_loads() -> None:
    """The 25 scenarios of RULES.md §4 (T25 in three cases), a draw game per draw
    irregularity (D..), a scenario per further rule (R..) and the pot-limit Omaha hands
    (O..), each naming its rules."""
    by_variant: dict[str, list[str]] = {}
    for path in FILES:
        sc = load_scenario(path)
        assert sc.title and sc.rules and sc.steps, path
        assert path.stem.startswith(sc.id.lower()), path
        by_variant.setdefault(sc.setup.variant, []).append(sc.id)
    ids = sorted(i for ids in by_variant.values() for i in ids)
    assert [i for i in ids if i.startswith("T")] == sorted(
        [f"T{n:02d}" for n in range(1, 26)] + ["T25b", "T25c"])
    assert [i for i in by_variant["holdem"] if i.startswith("T")] == [
        f"T{n:02d}" for n in range(1, 23)]
    assert [i for i in ids if i.startswith("D")] == [f"D{n:02d}" for n in range(1, 21)]
    assert by_variant["omaha"] == [f"O{n:02d}" for n in range(1, 8)]
    assert all(i[0] in "TDRO" for i in ids), ids


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_scenario_plays_on_the_virtual_table(path: Path) -> None:
    sc = load_scenario(path)
    table, recorded = recorded_table(sc.setup.seats, seed=1, small_blind=sc.setup.small_blind,
                                     big_blind=sc.setup.big_blind, button=sc.setup.button,
                                     variant=sc.setup.variant, ante=sc.setup.ante)
    stacks = play_scenario(table, sc)
    assert sum(stacks.values()) + _on_table(recorded, table.chip_values) == sum(
        sc.setup.seats.values())
    if sc.expect.outcome.stacks is not None:
        assert stacks == sc.expect.outcome.stacks


def _on_table(recorded: list[tuple[str, bytes]], values: dict[str, int]) -> int:
    zones: dict[str, int] = {}
    for _, raw in recorded:
        f = decode(raw.decode().rstrip("\r\n"))
        if f.type == "CHIPS":
            zones[f.fields[0]] = sum(values.get(u, 0) for u in f.fields[1].split())
    return sum(zones.values())


BAD = """id: TX
setup: {seats: {1: 1000, 2: 1000}, button: 1}
steps:
  - newhand
  - deal: {to: S1}
  - deal: {to: TABLE}
"""


def test_a_malformed_file_is_refused_naming_the_file_and_the_step(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text(BAD)
    with pytest.raises(ScenarioError, match=r"broken\.yaml: step 3 \(deal\).*TABLE"):
        load_scenario(bad)
    bad.write_text(BAD.replace("deal: {to: TABLE}", "shuffle"))
    with pytest.raises(ScenarioError, match=r"broken\.yaml: step 3.*shuffle"):
        load_scenario(bad)
    bad.write_text("id: TX\nsteps: [newhand]\n")
    with pytest.raises(ScenarioError, match=r"broken\.yaml: 'setup' is missing"):
        load_scenario(bad)


def test_a_step_the_table_cannot_do_names_the_file_and_the_step() -> None:
    sc = loads_scenario(BAD.replace("deal: {to: TABLE}", "fold: 2"), "x.yaml")
    table, _ = recorded_table(sc.setup.seats, seed=1)
    with pytest.raises(ScenarioError, match=r"x\.yaml: step 3 \(fold\): seat 2 has no cards"):
        play_scenario(table, sc)


STEPS = """id: TX
setup: {seats: {1: 1000, 2: 1000}, button: 2, blinds: [25, 50], deck: [Ah, Kd, 2c]}
steps:
  - newhand
  - bet: {seat: 1, to: 25}
  - deal: {to: S1}
  - deal: {to: S2, face: up}
  - console: [EXPOSED, "#2"]
  - move: {card: "#2", to: S1}
  - depart: {zone: S1, card: Kd}
  - arrive: {zone: S2, card: Kd}
  - deal: {to: BURN}
  - return: {card: "#3", where: top}
  - deal: {to: BURN}
  - check: 2
  - unknown_tag: {to: S2}
  - fold: 1
  - bet: {seat: 2, to: 50}
  - gather
  - push: {2: 75}
  - collect
"""


def test_the_player_emits_exactly_the_frames_each_step_describes() -> None:
    sc = loads_scenario(STEPS)
    table, recorded = recorded_table(sc.setup.seats, seed=3, small_blind=25, big_blind=50)
    uid = {card: u for u, card in table.deck.items()}
    ah, kd, c2 = uid["Ah"], uid["Kd"], uid["2c"]
    stacks = play_scenario(table, sc)
    got = frames_of(recorded)
    chips = table.chip_values
    # chip inventories: values only (which chips is the player's choice)
    shown = [(d, t, (f[0], str(sum(chips[u] for u in f[1].split())))) if t == "CHIPS"
             else (d, t, f) for d, t, f in got]
    joker = next(f[0] for d, t, f in got if t == "DRAW" and f[0] not in table.deck)
    assert shown == [
        ("console", "BTN", ("NEWHAND",)),
        ("chips", "CHIPS", ("B1", "25")),
        ("shoe", "DRAW", (ah, "D")), ("cards", "ARR", ("S1", ah)),
        ("shoe", "DRAW", (kd, "U")), ("cards", "ARR", ("S2", kd)),
        ("console", "BTN", ("EXPOSED", kd)),
        ("cards", "DEP", ("S2", kd)), ("cards", "ARR", ("S1", kd)),
        ("cards", "DEP", ("S1", kd)),
        ("cards", "ARR", ("S2", kd)),
        ("shoe", "DRAW", (c2, "D")), ("cards", "ARR", ("BURN", c2)),
        ("cards", "DEP", ("BURN", c2)), ("shoe", "RET", (c2, "T")),
        ("shoe", "DRAW", (c2, "D")), ("cards", "ARR", ("BURN", c2)),
        ("console", "BTN", ("CHECK", "2")),
        ("shoe", "DRAW", (joker, "D")), ("cards", "ARR", ("S2", joker)),
        ("cards", "DEP", ("S1", ah)), ("cards", "ARR", ("MUCK", ah)),
        ("chips", "CHIPS", ("B2", "50")),
        ("chips", "CHIPS", ("B1", "0")), ("chips", "CHIPS", ("B2", "0")),
        ("chips", "CHIPS", ("POT", "75")),
        ("chips", "CHIPS", ("POT", "0")),
        ("cards", "DEP", ("S2", kd)), ("cards", "ARR", ("MUCK", kd)),
        ("cards", "DEP", ("S2", joker)), ("cards", "ARR", ("MUCK", joker)),
        ("cards", "DEP", ("BURN", c2)), ("cards", "ARR", ("MUCK", c2)),
    ]
    assert stacks == {1: 975, 2: 1025}
