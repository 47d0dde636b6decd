"""The table config (DESIGN §6): a good one is accepted, a bad one is refused with every problem.

``tablesvc check-config`` runs as the installer runs it, a child process started from the
repository root with a config that lives elsewhere, so relative registry paths must resolve
against the config's folder and not the working directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablesvc.config.table import ConfigError, load_config
from tests.conftest import ROOT
from tests.helpers import make_deck

VALID = """\
[table]
venue = "demo"
id = "t01"
seats = 8

[game]
variant = "holdem"
limit = "no-limit"
small_blind = 50
big_blind = 100

[devices.shoe]
url = "loop://"
[devices.cards]
url = "socket://127.0.0.1:7001"
[devices.table-chips]
url = "loop://"
kind = "chips"
[devices.console]
url = "loop://"
baudrate = 9600

[registry]
decks = "decks"
chips = "chips.json"

[[players]]
seat = 1
name = "Alice"
stack = 10000
[[players]]
seat = 8
name = "Bob"
stack = 5000

[storage]
dir = "store"
"""

# One config with six things wrong at once: each must be named, with its key.
BROKEN = """\
colour = "red"

[table]
venue = "demo"
id = "t01"
seats = 6

[game]
small_blind = 200
big_blind = -100

[devices.shoe]
url = "loop://"
[devices.wand]
url = "loop://"

[mqtt]
hots = "broker.local"

[[players]]
seat = 2
name = "Alice"
stack = 1000
[[players]]
seat = 2
name = "Bob"
stack = 1000
[[players]]
seat = 9
name = "Cy"
stack = 1000
"""

# (key the problem is reported under, words that say what is wrong)
BROKEN_PROBLEMS = [
    ("colour", "unknown key"),
    ("mqtt.hots", "unknown key"),
    ("game.big_blind", "greater than 0"),
    ("game.big_blind", "small_blind (200) must not exceed big_blind (-100)"),
    ("devices", "kind 'wand' is not one of"),
    ("players", "seat(s) [2] given to more than one player"),
    ("players", "seat(s) [9] exceed table.seats = 6"),
]


def write_table(folder: Path, text: str = VALID, *, chips: int = 3) -> Path:
    """A config with its registries beside it: one enrolled deck and a few chips."""
    decks = folder / "decks"
    decks.mkdir(parents=True, exist_ok=True)
    (decks / "RED-0001.json").write_text(
        json.dumps({"deck_id": "RED-0001", "cards": make_deck("RED-0001", seed=1)}))
    (folder / "chips.json").write_text(json.dumps(
        {"chips": {f"E0040200000000{n:02X}": 100 for n in range(chips)}}))
    cfg = folder / "table.toml"
    cfg.write_text(text)
    return cfg


def check_config(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "check-config",
                           str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60)


def reported(stderr: str, path: Path) -> list[str]:
    """The problem lines of a refusal, each without its leading file name."""
    prefix = f"{path}: "
    return [line.strip().removeprefix(prefix) for line in stderr.splitlines()
            if line.strip().startswith(prefix)]


def test_valid_config_loads_every_section_as_written_and_defaults_the_rest(tmp_path: Path) -> None:
    cfg = load_config(write_table(tmp_path))
    assert (cfg.table.venue, cfg.table.id, cfg.table.seats) == ("demo", "t01", 8)
    assert (cfg.game.small_blind, cfg.game.big_blind, cfg.game.bet_settle_ms) == (50, 100, 1500)
    assert cfg.device_kinds() == {"shoe": "shoe", "cards": "cards", "table-chips": "chips",
                                  "console": "console"}
    assert cfg.devices["console"].baudrate == 9600
    assert cfg.devices["shoe"].baudrate == 115200
    assert [(p.seat, p.name, p.stack) for p in cfg.players] == [(1, "Alice", 10000),
                                                                (8, "Bob", 5000)]
    assert (cfg.mqtt.host, cfg.mqtt.port, cfg.mqtt.topic_prefix) == ("127.0.0.1", 1883,
                                                                      "tablesvc/v1")


def test_check_config_accepts_a_valid_config_and_prints_a_summary(tmp_path: Path) -> None:
    path = write_table(tmp_path)
    result = check_config(path)
    assert result.returncode == 0, result.stderr
    summary = result.stdout.strip()
    assert summary.startswith(f"{path}: ok")
    # the registries were found beside the config, not in the working directory
    for part in ("demo/t01", "4 devices", "1 decks", "3 chips"):
        assert part in summary


def test_check_config_lists_every_problem_with_file_and_key(tmp_path: Path) -> None:
    path = write_table(tmp_path, BROKEN)
    result = check_config(path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = reported(result.stderr, path)
    for key, words in BROKEN_PROBLEMS:
        assert any(line.startswith(f"{key}: ") and words in line for line in lines), (
            f"{key}: {words!r} not reported in:\n{result.stderr}")
    assert any("wand" in line for line in lines if line.startswith("devices: "))


def test_load_config_collects_every_problem_instead_of_stopping_at_the_first(
        tmp_path: Path) -> None:
    path = write_table(tmp_path, BROKEN)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    err = caught.value
    assert err.path == path
    for key, words in BROKEN_PROBLEMS:
        assert any(p.startswith(f"{key}: ") and words in p for p in err.problems), (key, words)
    assert f"{len(err.problems)} problem(s)" in str(err)


def test_seat_checks_still_run_when_the_table_section_is_wrong_too(tmp_path: Path) -> None:
    text = BROKEN.replace('venue = "demo"', 'venue = "demo room"')
    with pytest.raises(ConfigError) as caught:
        load_config(write_table(tmp_path, text))
    problems = caught.value.problems
    assert any(p.startswith("table.venue: ") for p in problems)
    assert any(p.startswith("players: ") and "[2] given to more than one player" in p
               for p in problems)


# A wrong key in one player's table and a device whose baudrate is no number: the checks of
# the whole [[players]] list and of every device's kind still run (issue 32).
WRONG_INSIDE_THE_LISTS = """\
[table]
venue = "demo"
id = "t01"
seats = 6

[devices.shoe]
url = "loop://"
baudrate = "fast"
[devices.wand]
url = "loop://"

[[players]]
seat = 2
name = "Alice"
stack = 1000
nick = "Al"
[[players]]
seat = 2
name = "Bob"
stack = 1000
"""


def test_check_config_lists_a_duplicate_seat_and_a_bad_device_beside_a_wrong_key_in_a_player(
        tmp_path: Path) -> None:
    path = write_table(tmp_path, WRONG_INSIDE_THE_LISTS)
    result = check_config(path)
    assert result.returncode == 2
    lines = reported(result.stderr, path)
    for key, words in (("players #1.nick", "unknown key"),
                       ("devices.shoe.baudrate", "valid integer"),
                       ("players", "seat(s) [2] given to more than one player"),
                       ("devices", "wand: kind 'wand' is not one of")):
        assert [line for line in lines if line.startswith(f"{key}: ") and words in line], (
            f"{key}: {words!r} not reported in:\n{result.stderr}")
    assert f"{len(lines)} problem(s)" in result.stderr


def test_the_checks_of_one_section_against_another_run_when_either_has_a_wrong_key(
        tmp_path: Path) -> None:
    """Seats beyond the table, a stack above the game's most and a layout too small for the
    table, each beside an unknown key of the sections they read."""
    text = VALID.replace("seats = 8\n", "seats = 8\ncolour = \"red\"\n").replace(
        "big_blind = 100\n", "big_blind = 100\nmax_stack = 6000\nante_mod = 1\n").replace(
        "seat = 8\n", "seat = 9\n") + "[overlay]\nlayout = 6\nthem = \"x\"\n"
    with pytest.raises(ConfigError) as caught:
        load_config(write_table(tmp_path, text))
    problems = caught.value.problems
    assert sorted(problems) == sorted([
        "table.colour: unknown key (check the spelling)",
        "game.ante_mod: unknown key (check the spelling)",
        "overlay.them: unknown key (check the spelling)",
        "players: seat(s) [9] exceed table.seats = 8; player(s) #1 (seat 1) have a stack above "
        "game.max_stack = 6000",
        "overlay: layout 6 has no place for table.seats = 8; use 6, 9 or 10 seats at least"])


def test_small_blind_above_the_default_big_blind_is_refused(tmp_path: Path) -> None:
    text = VALID.replace("small_blind = 50\nbig_blind = 100\n", "small_blind = 200\n")
    with pytest.raises(ConfigError) as caught:
        load_config(write_table(tmp_path, text))
    assert caught.value.problems == [
        "game.big_blind: small_blind (200) must not exceed big_blind (100)"]


def test_device_named_like_a_journal_source_is_refused(tmp_path: Path) -> None:
    text = VALID + '[devices.tick]\nurl = "loop://"\nkind = "shoe"\n'
    with pytest.raises(ConfigError) as caught:
        load_config(write_table(tmp_path, text))
    assert any(p.startswith("devices: ") and "tick: the name is reserved" in p
               for p in caught.value.problems)


def test_check_config_refuses_invalid_toml_naming_the_file_and_the_line(tmp_path: Path) -> None:
    write_table(tmp_path)
    other = tmp_path / "other.toml"
    other.write_text('[table]\nvenue = "demo"\nid = "t01\n')  # unterminated string on line 3
    result = check_config(other)
    assert result.returncode == 2
    lines = reported(result.stderr, other)
    assert len(lines) == 1
    assert "not valid TOML" in lines[0] and "line 3" in lines[0]


def test_check_config_refuses_a_missing_file_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "table.toml"
    result = check_config(missing)
    assert result.returncode == 2
    assert reported(result.stderr, missing) == ["file not found"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"deck_id": "BLUE-0002", "cards": {"E0', "not a deck file"),
        (json.dumps({"deck_id": "BLUE-0002",
                     "cards": dict(list(make_deck("BLUE-0002", seed=2).items())[:51])}),
         "has 51 UIDs"),
    ],
    ids=["torn-json", "51-cards"],
)
def test_check_config_refuses_a_broken_deck_file_naming_its_path(
        tmp_path: Path, content: str, words: str) -> None:
    path = write_table(tmp_path)
    broken = tmp_path / "decks" / "BLUE-0002.json"
    broken.write_text(content)
    result = check_config(path)
    assert result.returncode == 2
    assert result.stdout == ""
    problem = [line for line in result.stderr.splitlines() if str(broken) in line]
    assert problem and words in problem[0], result.stderr
    # the good deck beside it is not blamed
    assert "RED-0001.json" not in result.stderr


def test_journal_retention_keys_are_read_and_a_cap_below_two_segments_is_refused(
        tmp_path: Path) -> None:
    ok = write_table(tmp_path, VALID + "retention_days = 14\nretention_mb = 512\n")
    storage = load_config(ok).storage
    assert (storage.retention_days, storage.retention_mb, storage.segment_mb) == (14, 512, 64)
    assert load_config(write_table(tmp_path, VALID)).storage.retention_days == 0  # keep all
    bad = write_table(tmp_path, VALID + "retention_days = -1\nretention_mb = 100\n"
                      "segment_mb = 64\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert err.value.problems == [
        "storage.retention_days: Input should be greater than or equal to 0",
        "storage.segment_mb: retention_mb (100) must be 0 or at least twice segment_mb (128): "
        "the segment being written and the one holding the oldest checkpoint are always kept",
    ]
