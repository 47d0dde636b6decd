"""The controller's config is refused with every problem listed, naming the file and key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tablesvc.commands.cli import main
from tablesvc.config.table import ConfigError
from tablesvc.tournament.config import load_tournament_config
from tablesvc.tournament.structure import StructureError

ROOT = Path(__file__).resolve().parents[3]


def write(tmp_path: Path, text: str) -> Path:
    shutil.copy(ROOT / "deploy" / "structure.example.toml", tmp_path / "structure.toml")
    path = tmp_path / "tournament.toml"
    path.write_text(text)
    return path


GOOD = """
[tournament]
venue = "v1"
name = "Friday"
structure = "structure.toml"
[[tables]]
id = "t01"
[[tables]]
id = "t02"
seats = 6
"""


def test_a_good_config_loads_with_its_structure(tmp_path: Path) -> None:
    cfg, structure = load_tournament_config(write(tmp_path, GOOD))
    assert [(t.id, t.seats) for t in cfg.tables] == [("t01", 9), ("t02", 6)]
    assert cfg.mqtt.username == "controller" and cfg.web.host == "127.0.0.1"
    assert structure.levels()[0].number == 1


def test_every_problem_of_a_bad_config_is_listed_with_its_key(tmp_path: Path) -> None:
    path = write(tmp_path, """
[tournament]
venue = "v 1"
name = "Friday"
structure = "structure.toml"
balancing_variant = 3
colour = "red"
[[tables]]
id = "t01"
[[tables]]
id = "t01"
[web]
host = "0.0.0.0"
""")
    with pytest.raises(ConfigError) as err:
        load_tournament_config(path)
    keys = sorted(p.split(":")[0] for p in err.value.problems)
    assert keys == ["tables", "tournament.balancing_variant", "tournament.colour",
                    "tournament.venue", "web"]
    assert str(path) in str(err.value)


def test_a_bad_structure_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    (tmp_path / "structure.toml").write_text(
        'name = "x"\ngame = "holdem"\nlimit = "no-limit"\nstarting_stack = 100\n'
        '[[levels]]\nlevel = 1\nsmall_blind = 20\nbig_blind = 10\nminutes = -5\n')
    with pytest.raises(StructureError) as err:
        load_tournament_config(path)
    assert all(p.startswith(str(tmp_path / "structure.toml")) for p in err.value.problems)
    assert len(err.value.problems) == 2


def test_a_table_given_twice_and_a_bad_structure_are_listed_beside_the_configs_other_problems(
        tmp_path: Path) -> None:
    """One pass (issue 32): a table id given twice while another table's seats are wrong,
    and the structure file's problems while the config has its own."""
    path = write(tmp_path, GOOD.replace('seats = 6', 'seats = 11') + '[[tables]]\nid = "t01"\n'
                 + '[web]\nprot = 8091\n')
    (tmp_path / "structure.toml").write_text(
        'name = "x"\ngame = "holdem"\nlimit = "no-limit"\nstarting_stack = 100\n'
        '[[levels]]\nlevel = 1\nsmall_blind = 20\nbig_blind = 10\nminutes = 5\n')
    with pytest.raises(ConfigError) as err:
        load_tournament_config(path)
    problems = err.value.problems
    assert sorted(problems[:3]) == ["tables.1.seats: Input should be less than or equal to 10",
                                    "tables: t01 listed more than once",
                                    "web.prot: unknown key (check the spelling)"]
    assert len(problems) == 4 and problems[3].startswith(
        f"tournament.structure: {tmp_path / 'structure.toml'}: ")


def test_the_command_lines_host_and_port_stand_for_the_configs_under_its_rules(
        tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    cfg, _ = load_tournament_config(path, "localhost", 8181)
    assert (cfg.web.host, cfg.web.port) == ("localhost", 8181)
    assert load_tournament_config(path, port=8182)[0].web.host == "127.0.0.1"
    with pytest.raises(ConfigError) as err:
        load_tournament_config(path, "0.0.0.0")
    assert err.value.problems[0].startswith("web: host '0.0.0.0' is reachable from other")


def test_check_config_says_ok_for_a_tournament_and_refuses_a_bad_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD)
    assert main(["check-config", str(path)]) == 0
    assert "ok (tournament 'Friday' of venue v1, 2 tables" in capsys.readouterr().out
    path.write_text(GOOD.replace('venue = "v1"', 'venue = ""'))
    assert main(["check-config", str(path)]) == 2
    assert "tournament.venue" in capsys.readouterr().err
