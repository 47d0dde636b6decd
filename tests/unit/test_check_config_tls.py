"""``check-config`` warns when a broker on another machine is reached without TLS (issue 30):
the table's password and every event would cross the network in plain text. A warning, not
an error: the config still passes (exit 0); a broker on this machine, or one with
``mqtt.ca_file``, gets no warning. The same for the floor console's and the tournament
controller's configs."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tablesvc.commands.cli import main
from tests.helpers import make_deck

ROOT = Path(__file__).resolve().parents[2]
WARNING = ("is not this machine and mqtt.ca_file is empty: the password and every event go "
           "over the network in plain text; see docs/OPERATIONS.md, TLS")


def table(folder: Path, mqtt: str) -> Path:
    (folder / "decks").mkdir()
    (folder / "decks" / "RED-0001.json").write_text(json.dumps(
        {"deck_id": "RED-0001", "cards": make_deck("RED-0001", seed=1)}))
    cfg = folder / "table.toml"
    cfg.write_text(f'[table]\nvenue = "demo"\nid = "t01"\n[mqtt]\n{mqtt}'
                   f'[storage]\ndir = "{folder / "store"}"\n')
    return cfg


def floor(folder: Path, mqtt: str) -> Path:
    cfg = folder / "floor.toml"
    cfg.write_text(f'[floor]\nvenue = "demo"\n[mqtt]\n{mqtt}')
    return cfg


def tournament(folder: Path, mqtt: str) -> Path:
    shutil.copy(ROOT / "deploy" / "structure.example.toml", folder / "structure.toml")
    cfg = folder / "tournament.toml"
    cfg.write_text('[tournament]\nvenue = "demo"\nname = "Friday"\n'
                   f'structure = "structure.toml"\n[[tables]]\nid = "t01"\n[mqtt]\n{mqtt}')
    return cfg


def ca(path: Path) -> None:
    """A self-signed certificate: what check-config reads ``mqtt.ca_file`` as."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=venue-ca", "-days",
                    "1", "-keyout", str(path.with_suffix(".key")), "-out", str(path)],
                   check=True, capture_output=True, timeout=60)


def check(cfg: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["check-config", str(cfg)])
    out, err = capsys.readouterr()
    return status, out, " ".join(err.split())


@pytest.mark.parametrize("make", [table, floor, tournament])
def test_a_remote_broker_without_tls_is_a_warning_and_one_here_or_over_tls_is_not(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        make: Callable[[Path, str], Path]) -> None:
    (tmp_path / "pass").write_text("secret\n")
    ca(tmp_path / "ca.crt")
    cfg = make(tmp_path, 'host = "10.1.2.3"\nusername = "t01"\npassword_file = "pass"\n')
    status, out, err = check(cfg, capsys)
    assert status == 0, err  # a warning: the config passes
    assert out.startswith(f"{cfg}: ok") and "1 warning(s)" in out
    assert err == f"warning: {cfg}: mqtt.host 10.1.2.3 {WARNING}"
    for fine in ('host = "127.0.0.1"\n', 'host = "localhost"\n', 'host = "::1"\n',
                 'host = "10.1.2.3"\nca_file = "ca.crt"\n'):
        for made in tmp_path.iterdir():
            if made.is_dir():
                shutil.rmtree(made)
        cfg = make(tmp_path, fine)
        status, out, err = check(cfg, capsys)
        assert status == 0, err
        assert err == "" and "warning" not in out, fine
