"""Fixtures of the integration tests: a virtual table rig and a config pointing at it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tablesvc.config.table import load_config
from tablesvc.core.events import EVENT_TYPES
from tablesvc.pipeline.service import Service
from tests.conftest import ServiceProcess, Subscriber

PREFIX = "tablesvc/v1/demo/t01"
SECURE = frozenset(cls.model_fields["type"].default for cls in EVENT_TYPES
                   if cls.FEED == "secure")
"""Event types published only on secure/events."""
PLAYERS = {1: "Ann", 3: "Ben", 4: "Cy", 7: "Di"}


def write_config(tmp: Path, rig: VirtualTableRig, port: int, extra: str = "") -> Path:
    devices = "".join(f'[devices.{n}]\nurl = "{u}"\n' for n, u in rig.device_urls().items())
    players = "".join(f'[[players]]\nseat = {s}\nname = "{n}"\nstack = 5000\n'
                      for s, n in PLAYERS.items())
    cfg = tmp / "table.toml"
    cfg.write_text(
        f'[table]\nvenue = "demo"\nid = "t01"\n{devices}'
        f'[registry]\ndecks = "{rig.decks_dir}"\nchips = "{rig.chips_path}"\n{players}'
        f'[mqtt]\nport = {port}\nprotocol = "5"\n[storage]\ndir = "{tmp / "store"}"\n{extra}')
    return cfg


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    r = VirtualTableRig(tmp_path / "sim", seats=dict.fromkeys(PLAYERS, 5000), seed=11,
                        pace=0.01, chips=tmp_path / "chips.json")
    yield r
    r.close()


def all_devices_online(sub: Subscriber) -> bool:
    state: dict[str, str] = {}
    for e in sub.events():
        if e["type"] == "device_status":
            state[e["device"]] = e["state"]
    return len(state) == 4 and set(state.values()) == {"online"}


def start_service(tmp_path: Path, rig: VirtualTableRig, broker: Mosquitto,
                  service_factory: Callable[[Path], ServiceProcess],
                  sub: Subscriber, extra: str = "") -> tuple[Path, ServiceProcess]:
    """The service on the rig's devices, once every device reports online; ``extra`` is
    more TOML for the config (a [game] section, say)."""
    cfg = write_config(tmp_path, rig, broker.port, extra)
    svc = service_factory(cfg)
    svc.start()
    wait_until(lambda: all_devices_online(sub), 20, "all four devices online")
    return cfg, svc


@pytest.fixture(scope="session")
def venue_certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA and a broker certificate, made once per test session by deploy/make-certs.sh."""
    from tests.venue import make_certs

    return make_certs(tmp_path_factory.mktemp("venue-ca"))


@contextmanager
def served_in_process(tmp: Path, port: int) -> Iterator[Service]:
    """A service of a table with no devices and no players, on the broker at ``port``, run in
    this process (its pipeline on a thread of its own), so that a test can reach into it:
    patch a module before it starts, put inputs into its queue, read its state. Stopped on
    the way out."""
    cfg = tmp / "table.toml"
    (tmp / "decks").mkdir()
    cfg.write_text(f'[table]\nvenue = "v"\nid = "t"\n[mqtt]\nport = {port}\n'
                   f'[storage]\ndir = "{tmp / "store"}"\n')
    service = Service(load_config(cfg), cfg)
    service.start()
    worker = threading.Thread(target=service.serve, daemon=True)
    worker.start()
    try:
        yield service
    finally:
        service.stop()
        worker.join(10)
