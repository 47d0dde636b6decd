"""Five-card draw from the command line and the demo: the virtual table and the service's
config must deal the same game with the same ante, or the service judges a different game."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from simulators.endpoints import Recorder
from simulators.virtual import VirtualTableRig
from tablesvc.commands.demo import write_config
from tablesvc.config.table import load_config

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # only a guard against hanging
CLI = [sys.executable, "-m", "tablesvc.commands.cli"]


def table_config(folder: Path) -> Path:
    cfg = folder / "table.toml"
    cfg.write_text(
        '[table]\nvenue = "demo"\nid = "t01"\n'
        '[registry]\ndecks = "decks"\nchips = "chips.json"\n'
        + "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 10000\n' for s in (1, 2, 3))
        + '[storage]\ndir = "store"\n')
    return cfg


def test_sim_variant_draw5_deals_draw_games_and_says_what_the_service_must_be_told(
        tmp_path: Path) -> None:
    cfg = table_config(tmp_path)
    done = subprocess.run(
        [*CLI, "sim", "--config", str(cfg), "--variant", "draw5", "--ante", "25", "--hands",
         "3", "--pace", "0", "--wait", "0", "--tcp"],
        capture_output=True, text=True, cwd=ROOT, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    printed = tomllib.loads(done.stdout)
    assert printed["game"] == {"variant": "draw5", "ante": 25}
    assert set(printed["devices"]) == {"shoe", "cards", "chips", "console"}


def test_sim_refuses_a_draw_table_the_rules_do_not_allow(tmp_path: Path) -> None:
    cfg = table_config(tmp_path)
    cfg.write_text(cfg.read_text().replace(
        '[registry]', '[game]\nante = 25\nante_mode = "big_blind"\n[registry]'))
    done = subprocess.run(
        [*CLI, "sim", "--config", str(cfg), "--variant", "draw5", "--wait", "0", "--tcp"],
        capture_output=True, text=True, cwd=ROOT, timeout=WAIT)
    assert done.returncode == 2
    assert "every seat antes" in done.stderr


@pytest.mark.parametrize(("variant", "ante", "expected"), [
    ("draw5", 0, 25),  # no ante given: one chip of the smallest value (SEAT-07)
    ("draw5", 100, 100),
    ("holdem", 0, 0),
])
def test_the_demo_config_deals_the_same_game_and_ante_as_the_virtual_table(
        tmp_path: Path, variant: str, ante: int, expected: int) -> None:
    with VirtualTableRig(tmp_path / "sim", recorder=Recorder(), heartbeat=None,
                         chip_refresh=None, seed=1, variant=variant, ante=ante) as rig:
        cfg = load_config(write_config(tmp_path, rig, 1883, 10_000))
        assert rig.table.variant == variant and rig.table.ante == expected
    assert cfg.game.variant == variant
    assert cfg.game.ante == expected
