"""``check-config`` finds everything ``run`` would fail on, in one pass, each problem as
``file: key: what is wrong``, naming the UID or file concerned (tablesvc.config.preflight)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tablesvc.config.preflight import preflight
from tests.conftest import ROOT
from tests.helpers import make_deck


def table(folder: Path, extra_mqtt: str = "", players: str = "", devices: str = "",
          storage: str = "store") -> Path:
    decks = folder / "decks"
    decks.mkdir(parents=True, exist_ok=True)
    (decks / "RED-0001.json").write_text(json.dumps({"deck_id": "RED-0001",
                                                     "cards": make_deck("RED-0001", seed=1)}))
    (folder / "chips.json").write_text(json.dumps({"chips": {"E004020000000001": 100}}))
    cfg = folder / "table.toml"
    cfg.write_text(f'[table]\nvenue = "demo"\nid = "t01"\n{devices}{players}'
                   f'[mqtt]\n{extra_mqtt}[storage]\ndir = "{storage}"\n')
    return cfg


def test_every_problem_of_config_registries_and_files_is_found_in_one_pass(
        tmp_path: Path) -> None:
    (tmp_path / "ca.pem").write_text("not a certificate\n")
    (tmp_path / "blocker").write_text("")
    cfg = table(tmp_path, extra_mqtt='username = "t01"\npassword_file = "mqtt.pass"\n'
                                     'ca_file = "ca.pem"\n',
                players='[[players]]\nseat = 1\nname = "A"\nstack = 100\n'
                        '[[players]]\nseat = 2\nname = "B"\nstack = -5\n',
                storage="blocker/store")
    cards = make_deck("BLUE-0002", seed=2)
    uid = next(iter(cards))
    cards[uid] = "Zz"
    (tmp_path / "decks" / "BLUE-0002.json").write_text(
        json.dumps({"deck_id": "BLUE-0002", "cards": cards}))
    (tmp_path / "decks" / "GREEN-0003.json").write_text(json.dumps(["not", "a", "deck"]))
    (tmp_path / "chips.json").write_text(json.dumps({"chips": {"E004020000000001": True}}))
    found = preflight(cfg)
    want = [
        f"{cfg}: players #2.stack: Input should be greater than or equal to 0",
        f"{tmp_path / 'decks' / 'BLUE-0002.json'}: cards: {uid} = 'Zz': not a card",
        f"{tmp_path / 'decks' / 'GREEN-0003.json'}: the file holds a JSON list, not an object",
        f"{tmp_path / 'chips.json'}: chips: E004020000000001 = True: a chip's value is a "
        "positive whole number",
        f"{cfg}: mqtt.password_file: {tmp_path / 'mqtt.pass'} does not exist",
        f"{cfg}: mqtt.ca_file: {tmp_path / 'ca.pem'} is not a PEM CA certificate",
        f"{cfg}: storage.dir: {tmp_path / 'blocker' / 'store'} does not exist and cannot be "
        "created",
    ]
    for line in want:
        assert any(e.startswith(line) for e in found.errors), (line, found.errors)
    assert len(found.errors) == len(want)
    assert not any("Error" in e or "indices" in e for e in found.errors)  # no Python internals


def test_a_device_path_that_does_not_exist_yet_is_a_warning_and_the_config_passes(
        tmp_path: Path) -> None:
    cfg = table(tmp_path, devices='[devices.shoe]\nurl = "/dev/tablesvc/shoe-not-here"\n'
                                  '[devices.cards]\nurl = "socket://127.0.0.1:7001"\n')
    done = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "check-config",
                           str(cfg)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{cfg}: ok") and "1 warning(s)" in done.stdout
    assert done.stderr.strip() == (f"warning: {cfg}: devices.shoe.url: /dev/tablesvc/shoe-not-"
                                   "here does not exist (yet): the service opens it when the "
                                   "device is plugged in")


def test_a_missing_deck_folder_or_chip_file_is_refused_where_run_would_need_them(
        tmp_path: Path) -> None:
    cfg = table(tmp_path, devices='[devices.chips]\nurl = "loop://"\n')
    (tmp_path / "chips.json").unlink()
    (tmp_path / "decks" / "RED-0001.json").unlink()
    (tmp_path / "decks").rmdir()
    found = preflight(cfg)
    assert [e.split(" (")[0] for e in found.errors] == [
        f"{cfg}: registry.decks: {tmp_path / 'decks'} does not exist",
        f"{cfg}: registry.chips: {tmp_path / 'chips.json'} does not exist"]
