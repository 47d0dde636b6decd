"""Pot-limit Omaha from the command line and the demo (issue 31): the virtual table and the
service's config must name the same game and betting structure, or the service judges a
different game.

The service's core learns Omaha separately: until a table's config may say
``variant = "omaha"``, the demo refuses its Omaha table, naming the config's problem, instead
of running a service that cannot follow the hands.
"""

from __future__ import annotations

import os
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
WAIT = 120.0  # only a guard against hanging
CLI = [sys.executable, "-m", "tablesvc.commands.cli"]

# Heads-up pot-limit Omaha: p1 (seat 1) is the big blind, p2 (seat 2) the button. p2 raises
# the pot (300), p1 calls; p1 bets the pot on the flop (600) and p2 folds.
HEADS_UP = """\
variant = "PO"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [5000, 5000]
actions = [
  "d dh p1 AhAd7c2s", "d dh p2 KsQsJdTd",
  "p2 cbr 300", "p1 cc",
  "d db 9h4c3d",
  "p1 cbr 600", "p2 f",
]
"""


def table_config(folder: Path) -> Path:
    cfg = folder / "table.toml"
    cfg.write_text(
        '[table]\nvenue = "demo"\nid = "t01"\n'
        '[registry]\ndecks = "decks"\nchips = "chips.json"\n'
        + "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 10000\n' for s in (1, 2, 3))
        + '[storage]\ndir = "store"\n')
    return cfg


def sim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "sim", *args, "--pace", "0", "--wait", "0", "--tcp"],
                          capture_output=True, text=True, cwd=ROOT, timeout=WAIT)


def test_sim_variant_omaha_deals_pot_limit_and_says_what_the_service_must_be_told(
        tmp_path: Path) -> None:
    done = sim("--config", str(table_config(tmp_path)), "--variant", "omaha", "--hands", "3")
    assert done.returncode == 0, done.stderr
    printed = tomllib.loads(done.stdout)
    assert printed["game"] == {"variant": "omaha", "ante": 0, "limit": "pot-limit"}
    assert set(printed["devices"]) == {"shoe", "cards", "chips", "console"}


def test_sim_deals_an_omaha_phh_file_on_an_omaha_table_only(tmp_path: Path) -> None:
    cfg = str(table_config(tmp_path))
    (tmp_path / "hand.phh").write_text(HEADS_UP)
    done = sim("--config", cfg, "--phh", str(tmp_path / "hand.phh"))
    assert done.returncode == 2
    assert "is a hand of omaha: give --variant omaha" in done.stderr
    done = sim("--config", cfg, "--phh", str(tmp_path / "hand.phh"), "--variant", "omaha")
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(done.stdout.split("# the hand of")[0])["game"]["variant"] == "omaha"


def test_sim_plays_an_omaha_scenario_file(tmp_path: Path) -> None:
    scenario = ROOT / "simulators" / "scenarios" / "o06_bet_over_the_pot_limit.yaml"
    done = sim("--config", str(table_config(tmp_path)), "--scenario", str(scenario))
    assert done.returncode == 0, done.stderr
    assert "variant omaha, limit pot-limit" in done.stdout
    assert "# scenario O06 played" in done.stdout
    assert "# expected alerts: bet_exceeds_limit (warning)" in done.stdout


def test_the_demo_config_of_an_omaha_table_says_omaha_and_pot_limit(tmp_path: Path) -> None:
    with VirtualTableRig(tmp_path / "sim", recorder=Recorder(), heartbeat=None,
                         chip_refresh=None, seed=1, variant="omaha") as rig:
        path = write_config(tmp_path, rig, 1883, 10_000)
        assert (rig.table.variant, rig.table.limit.value) == ("omaha", "pot-limit")
    game = tomllib.loads(path.read_text())["game"]
    assert (game["variant"], game["limit"]) == ("omaha", "pot-limit")
    with VirtualTableRig(tmp_path / "sim2", recorder=Recorder(), heartbeat=None,
                         chip_refresh=None, seed=1) as rig:
        cfg = load_config(write_config(tmp_path, rig, 1883, 10_000))
    assert (cfg.game.variant, cfg.game.limit) == ("holdem", "no-limit")


def test_the_omaha_demo_plays_its_hands_through_the_service_without_a_warning() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tablesvc.commands.demo", "--variant", "omaha", "--hands", "2",
         "--pace", "0.05", "--seed", "7"],
        cwd=ROOT, capture_output=True, text=True, timeout=WAIT,
        env={**os.environ, "COLUMNS": "200"})
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert sum(" hand_ended " in line for line in out.splitlines()) == 2, out
    alerts = [line for line in out.splitlines() if " alert " in line]
    assert alerts and all(" INFO " in line for line in alerts), alerts
    assert " showdown " in out or " pot_awarded " in out
