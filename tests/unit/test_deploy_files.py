"""The shipped unit and udev rules say what a venue technician relies on.

The broker config and ACL are tested on a real mosquitto (tests/integration/
test_venue_broker.py); the systemd unit cannot be started in the suite, so its settings are
checked here, beside the behaviour they depend on (exit status 2 for a config or storage
problem: tests/integration/test_deployment.py).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def unit() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in (DEPLOY / "tablesvc@.service").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        settings.setdefault(f"{section}.{key}", []).append(value)
    return settings


def test_the_unit_is_hardened_and_does_not_restart_on_a_config_error() -> None:
    s = unit()
    want = {
        "Service.NoNewPrivileges": ["true"], "Service.ProtectSystem": ["strict"],
        "Service.ProtectHome": ["true"], "Service.PrivateTmp": ["true"],
        "Service.UMask": ["0077"], "Service.CapabilityBoundingSet": [""],
        "Service.AmbientCapabilities": [""], "Service.DevicePolicy": ["closed"],
        "Service.RestartPreventExitStatus": ["2"], "Service.Restart": ["always"],
        "Service.StateDirectory": ["tablesvc/%i"], "Service.StateDirectoryMode": ["0700"],
    }
    for key, value in want.items():
        assert s.get(key) == value, key
    assert s["Service.RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert "char-ttyUSB rw" in s["Service.DeviceAllow"]
    # the example config keeps its storage in the unit's state directory, the one place the
    # unit lets the service write
    example = tomllib.loads((DEPLOY / "table.example.toml").read_text())
    assert example["storage"]["dir"] == "/var/lib/tablesvc/" + example["table"]["id"]


def test_udev_rules_name_adapters_by_serial_number_or_by_the_port_they_are_plugged_into(
        ) -> None:
    text = (DEPLOY / "99-tablesvc.rules").read_text()
    rules = [line.lstrip("#") for line in text.splitlines()
             if "SYMLINK+=" in line]
    for name in ("shoe", "cards", "chips", "console"):
        by = [r for r in rules if f'SYMLINK+="tablesvc/{name}"' in r]
        assert any("ATTRS{serial}" in r for r in by), name
        assert any('ENV{ID_PATH}' in r and 'IMPORT{builtin}="path_id"' in r for r in by), name


def test_the_bridge_template_has_no_venue_table_or_password_written_in() -> None:
    edge = (DEPLOY / "mosquitto-edge.conf").read_text()
    assert "@VENUE@" in edge and "@TABLE@" in edge and "@CENTRAL@" in edge
    # the password is appended by deploy/install-edge.sh, never substituted into a line
    assert "remote_password" not in "".join(
        line for line in edge.splitlines() if not line.startswith("#"))
