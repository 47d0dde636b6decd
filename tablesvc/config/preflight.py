"""Everything ``tablesvc run`` needs from its config and the files it names, checked in one pass.

``tablesvc check-config`` and ``tablesvc run`` both call ``preflight``, so a config that
check-config passes does not fail at start for a reason it could have named. Every problem is
one line, ``file: key: what is wrong`` (the file is the config, or the registry file
concerned, naming the UID); checks that do not depend on one another all run, also when
another part of the config is wrong, so that the installer fixes everything in one go.

Warnings are what a running table can live with: a device path that does not exist yet (a
USB reader may be plugged in later; the service opens it when it appears), an empty deck
folder, a broker on another machine reached without TLS (``in_clear``: the consoles' checks
say it too).
"""

from __future__ import annotations

import importlib.util
import os
import ssl
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tablesvc.config.registry import RegistryError, load_chips, load_decks
from tablesvc.config.table import Config, config_key, is_loopback, resolve


@dataclass
class Findings:
    """What preflight found: ``errors`` stop the service, ``warnings`` do not."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    config: Config | None = None
    decks: int = 0
    chips: int = 0


def _section(raw: dict[str, Any], name: str) -> dict[str, Any]:
    value = raw.get(name, {})
    return value if isinstance(value, dict) else {}


def _text(section: dict[str, Any], key: str, default: str) -> str | None:
    """A string setting, its default when absent, None when it is not a string (the config
    validation reports that)."""
    value = section.get(key, default)
    return value if isinstance(value, str) else None


def preflight(path: Path) -> Findings:
    """Check the config at ``path`` and every file it names, as ``run`` will use them."""
    found = Findings()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        found.errors.append(f"{path}: file not found")
        return found
    except (OSError, UnicodeDecodeError) as exc:
        found.errors.append(f"{path}: cannot read: {exc}")
        return found
    except tomllib.TOMLDecodeError as exc:
        found.errors.append(f"{path}: not valid TOML: {exc}")
        return found
    try:
        found.config = Config.model_validate(raw)
    except ValidationError as exc:
        for e in exc.errors():
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = "unknown key (check the spelling)"
            found.errors.append(f"{path}: {config_key(e['loc'])}: {msg}")
    _registries(path, raw, found)
    _mqtt_files(path, _section(raw, "mqtt"), found)
    _storage(path, _section(raw, "storage"), found)
    _devices(path, _section(raw, "devices"), found)
    _metrics(path, _section(raw, "metrics"), found)
    return found


def _registries(path: Path, raw: dict[str, Any], found: Findings) -> None:
    reg = _section(raw, "registry")
    decks_value = _text(reg, "decks", "decks")
    if decks_value is not None:
        folder = resolve(path, decks_value)
        if not folder.exists():
            found.errors.append(f"{path}: registry.decks: {folder} does not exist (enroll "
                                "decks with `tablesvc deck enroll`, which creates it)")
        elif not folder.is_dir():
            found.errors.append(f"{path}: registry.decks: {folder} is not a folder")
        else:
            try:
                found.decks = len(load_decks(folder))
            except RegistryError as err:
                found.errors.extend(err.problems)
            else:
                if found.decks == 0:
                    found.warnings.append(f"{path}: registry.decks: no deck enrolled in "
                                          f"{folder}: every card will be an unknown tag")
    chips_value = _text(reg, "chips", "chips.json")
    if chips_value is not None:
        chips = resolve(path, chips_value)
        kinds = {(d.get("kind") or n) for n, d in _section(raw, "devices").items()
                 if isinstance(d, dict)}
        if not chips.exists():
            if "chips" in kinds:
                found.errors.append(f"{path}: registry.chips: {chips} does not exist (enroll "
                                    "chips with `tablesvc chips enroll`, which creates it)")
        elif not chips.is_file():
            found.errors.append(f"{path}: registry.chips: {chips} is not a file")
        else:
            try:
                found.chips = len(load_chips(chips))
            except RegistryError as err:
                found.errors.extend(err.problems)


def _readable_file(path: Path, key: str, target: Path, found: Findings) -> bool:
    if not target.exists():
        found.errors.append(f"{path}: {key}: {target} does not exist")
    elif not target.is_file():
        found.errors.append(f"{path}: {key}: {target} is not a file")
    elif not os.access(target, os.R_OK):
        found.errors.append(f"{path}: {key}: {target} is not readable by this user")
    else:
        return True
    return False


def in_clear(host: str, ca_file: str, username: str) -> str | None:
    """The warning for a broker on another machine reached without TLS, or None."""
    if ca_file or is_loopback(host):
        return None
    what = "the password and every event go" if username else "every event goes"
    return (f"mqtt.host {host} is not this machine and mqtt.ca_file is empty: {what} over "
            "the network in plain text; see docs/OPERATIONS.md, TLS")


def _mqtt_files(path: Path, mqtt: dict[str, Any], found: Findings) -> None:
    host, ca, user = (_text(mqtt, "host", "127.0.0.1"), _text(mqtt, "ca_file", ""),
                      _text(mqtt, "username", ""))
    clear = in_clear(host, ca, user or "") if host is not None and ca is not None else None
    if clear:
        found.warnings.append(f"{path}: {clear}")
    password_file = _text(mqtt, "password_file", "")
    if password_file:
        target = resolve(path, password_file)
        if _readable_file(path, "mqtt.password_file", target, found):
            try:
                if not target.read_text(encoding="utf-8").strip():
                    found.errors.append(f"{path}: mqtt.password_file: {target} is empty")
            except (OSError, UnicodeDecodeError) as exc:
                found.errors.append(f"{path}: mqtt.password_file: {target}: {exc}")
    elif _text(mqtt, "username", ""):
        found.warnings.append(f"{path}: mqtt.username: set without mqtt.password_file: the "
                              "broker will be asked without a password")
    ca_file = _text(mqtt, "ca_file", "")
    if ca_file:
        target = resolve(path, ca_file)
        if _readable_file(path, "mqtt.ca_file", target, found):
            try:
                ssl.create_default_context(cafile=str(target))
            except (ssl.SSLError, ValueError, OSError) as exc:
                found.errors.append(f"{path}: mqtt.ca_file: {target} is not a PEM CA "
                                    f"certificate ({exc})")


def _storage(path: Path, storage: dict[str, Any], found: Findings) -> None:
    value = _text(storage, "dir", "/var/lib/tablesvc")
    if value is None:
        return
    folder = resolve(path, value)
    if folder.exists():
        if not folder.is_dir():
            found.errors.append(f"{path}: storage.dir: {folder} is not a folder")
        elif not os.access(folder, os.W_OK | os.X_OK):
            found.errors.append(f"{path}: storage.dir: {folder} is not writable by this user")
        return
    parent = folder.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        found.errors.append(f"{path}: storage.dir: {folder} does not exist and cannot be "
                            f"created ({parent} is not a writable folder)")


def _devices(path: Path, devices: dict[str, Any], found: Findings) -> None:
    for name, dev in devices.items():
        if not isinstance(dev, dict):
            continue
        url = dev.get("url")
        if not isinstance(url, str) or not url or "://" in url:
            continue
        target = resolve(path, url)
        if not target.exists():
            found.warnings.append(f"{path}: devices.{name}.url: {target} does not exist (yet): "
                                  "the service opens it when the device is plugged in")


def _metrics(path: Path, metrics: dict[str, Any], found: Findings) -> None:
    port = metrics.get("port", 0)
    if isinstance(port, int) and port and importlib.util.find_spec("prometheus_client") is None:
        found.errors.append(f"{path}: metrics.port: the metrics endpoint needs the "
                            "prometheus-client package (pip install 'tablesvc[metrics]')")
