"""The structure file is refused with every problem at once, each as 'file: key: what'."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablesvc.tournament.structure import (
    Break,
    Level,
    StructureError,
    load_structure,
    parse_structure,
)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "deploy" / "structure.example.toml"


def good() -> dict[str, Any]:
    return {
        "name": "Test", "game": "holdem", "limit": "no-limit", "starting_stack": 10000,
        "levels": [
            {"level": 1, "small_blind": 25, "big_blind": 50, "minutes": 15},
            {"level": 2, "small_blind": 50, "big_blind": 100, "minutes": 15},
            {"level": 3, "small_blind": 75, "big_blind": 150, "ante": 150,
             "ante_mode": "big_blind", "minutes": 15},
        ],
        "breaks": [{"after_level": 2, "minutes": 5}],
        "payouts": {"percent": [60, 40], "buy_in": 50},
    }


def refused(data: dict[str, Any]) -> list[str]:
    with pytest.raises(StructureError) as err:
        parse_structure(data, "s.toml")
    assert str(err.value) == "\n".join(err.value.problems)
    return err.value.problems


def test_the_example_file_loads_as_a_deepstack_with_big_blind_antes_and_regular_breaks(
        ) -> None:
    s = load_structure(EXAMPLE)
    levels = s.levels()
    assert len(levels) >= 12
    assert [lv.number for lv in levels] == list(range(1, len(levels) + 1))
    assert all(lv.ante == 0 for lv in levels[:3])
    assert all(lv.ante > 0 and lv.ante_mode == "big_blind" for lv in levels[3:])
    breaks = [p for p in s.periods if isinstance(p, Break)]
    assert [b.after_level for b in breaks] == list(range(4, len(levels), 4))
    assert s.payouts is not None and s.payouts.percent is not None
    assert abs(sum(s.payouts.percent) - 100) < 0.01


def test_periods_are_the_levels_in_number_order_with_each_break_after_its_level() -> None:
    data = good()
    data["levels"].reverse()  # the file's order does not matter, the numbers do
    s = parse_structure(data, "s.toml")
    assert s.periods == (
        Level(1, 25, 50, 0, "each", 15.0), Level(2, 50, 100, 0, "each", 15.0),
        Break(2, 5.0, "Break"), Level(3, 75, 150, 150, "big_blind", 15.0))
    assert s.levels()[2].number == 3 and s.level(2).big_blind == 100


def test_several_problems_are_all_named_at_once_as_file_key_what() -> None:
    data = good()
    data["stating_stack"] = 5000
    data["levels"][0]["minutes"] = 0
    data["levels"][1]["small_blind"] = 200
    data["levels"][2]["level"] = 2
    data["levels"][2]["ante"] = -25
    data["breaks"] = [{"after_level": 7, "minutes": 5}]
    data["payouts"] = {"percent": [50, 30, 10], "buy_in": 50}
    assert refused(data) == [
        "s.toml: stating_stack: unknown key (known: name, game, limit, starting_stack, "
        "levels, breaks, payouts)",
        "s.toml: levels[1].minutes: 0 must be greater than 0",
        "s.toml: levels[2].big_blind: 100 is below the small blind 200",
        "s.toml: levels[3].ante: -25 is negative (must be at least 0)",
        "s.toml: levels[2].level: level 2 is given 2 times (overlapping levels)",
        "s.toml: levels: levels must be numbered 1..3, each once; missing 3",
        "s.toml: breaks[1].after_level: there is no level 7",
        "s.toml: payouts.percent: the shares sum to 90, not 100",
    ]


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d.pop("levels"),
     "s.toml: levels: no levels (at least one [[levels]] table is needed)"),
    (lambda d: d["levels"][1].update(minutes=-5),
     "s.toml: levels[2].minutes: -5 must be greater than 0"),
    (lambda d: d["levels"][0].update(small_blind=-25),
     "s.toml: levels[1].small_blind: -25 is negative (must be at least 0)"),
    (lambda d: d["levels"][0].update(big_blind=0),
     "s.toml: levels[1].big_blind: 0 is zero (must be at least 1)"),
    (lambda d: d["levels"][0].update(blind=5),
     "s.toml: levels[1].blind: unknown key (known: level, small_blind, big_blind, ante, "
     "ante_mode, minutes)"),
    (lambda d: d["levels"][0].update(ante_mode="button"),
     "s.toml: levels[1].ante_mode: 'button' is not one of each, big_blind"),
    (lambda d: d["levels"][0].update(level=4),
     "s.toml: levels: levels must be numbered 1..3, each once; missing 1; beyond the "
     "count: 4"),
    (lambda d: d["breaks"].append({"after_level": 2, "minutes": 10}),
     "s.toml: breaks[2].after_level: a second break after level 2"),
    (lambda d: d["breaks"].append({"after_level": 3, "minutes": 10}),
     "s.toml: breaks[2].after_level: level 3 is the last level, which never ends; no break "
     "after it"),
    (lambda d: d["payouts"].update(amounts=[100]),
     "s.toml: payouts: give percent or amounts, not both"),
    (lambda d: d.update(game="stud"),
     "s.toml: game: 'stud' is not one of holdem, draw5, omaha, omaha5"),
    (lambda d: d.update(starting_stack="10000"),
     "s.toml: starting_stack: '10000' is not a whole number"),
])
def test_each_refusal_names_the_key_and_what_is_wrong(change: Any, problem: str) -> None:
    data = good()
    change(data)
    assert refused(data) == [problem]


def test_payout_shares_within_a_hundredth_of_100_are_accepted_and_amounts_need_no_buy_in(
        ) -> None:
    data = good()
    data["payouts"] = {"percent": [33.33, 33.33, 33.33], "buy_in": 10}
    assert parse_structure(data, "s.toml").payouts is not None
    data["payouts"] = {"percent": [33.3, 33.3, 33.3], "buy_in": 10}
    assert refused(data) == ["s.toml: payouts.percent: the shares sum to 99.9, not 100"]
    data["payouts"] = {"amounts": [500, 300, 200]}
    p = parse_structure(data, "s.toml").payouts
    assert p is not None and p.amounts == (500, 300, 200) and p.percent is None


def test_percent_without_a_buy_in_is_refused_as_there_would_be_no_pool() -> None:
    data = good()
    data["payouts"] = {"percent": [100]}
    assert refused(data) == ["s.toml: payouts.buy_in: missing (the prize pool is entries x "
                             "buy_in)"]


def test_a_missing_unreadable_or_broken_file_is_a_structure_error_too(tmp_path: Path) -> None:
    with pytest.raises(StructureError) as err:
        load_structure(tmp_path / "none.toml")
    assert err.value.problems == [f"{tmp_path / 'none.toml'}: (file): not found"]
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    with pytest.raises(StructureError) as err:
        load_structure(bad)
    assert err.value.problems[0].startswith(f"{bad}: (file): not valid TOML")
