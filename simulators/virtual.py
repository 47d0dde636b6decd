"""A whole virtual table in one object: four devices, their ports, registries and the dealer.

The demo and the command line start one of these and point the service's configuration at
``device_urls()`` and the registry paths; everything else about the table stays inside.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from simulators.decks import (
    load_chips,
    load_decks,
    make_chipset,
    make_deck,
    write_chips,
    write_deck,
)
from simulators.device import VirtualDevice
from simulators.endpoints import Endpoint, PtyEndpoint, TcpEndpoint
from simulators.table import VirtualTable

DEVICE_MODELS: Mapping[str, str] = {
    "shoe": "VS-SHOE",
    "cards": "VS-CARDS",
    "chips": "VS-CHIPS",
    "console": "VS-CONSOLE",
}
DEFAULT_SEATS: Mapping[int, int] = {s: 10_000 for s in range(1, 7)}
DEFAULT_DECK_ID = "RED-0001"


class VirtualTableRig:
    """Devices on ptys (``<folder>/dev/<name>``) or TCP servers, registries, and the table.

    Registries already in place are reused, so the service and the rig agree on tags across
    restarts: ``decks`` (a registry folder; default ``<folder>/decks``) gets one fresh deck only
    when it holds none, and ``chips`` (a registry file; default ``<folder>/chips.json``) is
    written only when missing.
    """

    def __init__(
        self,
        folder: Path,
        *,
        tcp: bool = False,
        decks: Path | None = None,
        chips: Path | None = None,
        seats: Mapping[int, int] = DEFAULT_SEATS,
        small_blind: int = 50,
        big_blind: int = 100,
        button: int | None = None,
        seed: int | None = None,
        pace: float = 0.5,
        fold_probability: float = 0.15,
        deck_order: Sequence[str] | None = None,
        heartbeat: float | None = 1.0,
        chip_refresh: float | None = 1.0,
        firmware: str = "1.0",
    ) -> None:
        self._runner: threading.Thread | None = None
        self._stop = threading.Event()
        self.endpoints: dict[str, Endpoint] = {}
        self.devices: dict[str, VirtualDevice] = {}
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(seed)
        self.decks_dir = Path(decks) if decks is not None else self.folder / "decks"
        self.decks_dir.mkdir(parents=True, exist_ok=True)
        registry = load_decks(self.decks_dir)
        if not registry:
            write_deck(self.decks_dir, DEFAULT_DECK_ID, make_deck(DEFAULT_DECK_ID, rng))
            registry = load_decks(self.decks_dir)
        self.deck_id = sorted(registry)[0]
        self.chips_path = Path(chips) if chips is not None else self.folder / "chips.json"
        if not self.chips_path.exists():
            write_chips(self.chips_path, make_chipset(rng))
        chip_set = load_chips(self.chips_path)

        try:
            for name, model in DEVICE_MODELS.items():
                endpoint: Endpoint = (
                    TcpEndpoint() if tcp else PtyEndpoint(self.folder / "dev" / name)
                )
                self.endpoints[name] = endpoint
                self.devices[name] = VirtualDevice(name, endpoint, model, firmware)
            self.table = VirtualTable(
                self.devices,
                registry[self.deck_id],
                chip_set,
                seats,
                small_blind=small_blind,
                big_blind=big_blind,
                button=button,
                pace=pace,
                rng=rng,
                deck_order=deck_order,
                fold_probability=fold_probability,
            )
        except BaseException:
            self.close()
            raise
        for device in self.devices.values():
            device.hello()
            if heartbeat is not None:
                device.start_heartbeat(heartbeat)
        if chip_refresh is not None:
            self.table.start_chip_refresh(chip_refresh)

    def device_urls(self) -> dict[str, str]:
        """Device name -> the URL to put in the service's ``[devices.<name>]`` section."""
        return {name: ep.url for name, ep in self.endpoints.items()}

    def unplug(self, name: str) -> None:
        self.endpoints[name].unplug()

    def replug(self, name: str) -> None:
        """Plug the device back in; it reboots, so it says HELLO (again when a reader opens)."""
        self.endpoints[name].replug()
        self.devices[name].hello()

    def start(self, hands: int | None = None) -> threading.Thread:
        """Deal in the background until ``hands`` are done or ``stop`` is called."""
        if self._runner is not None and self._runner.is_alive():
            raise RuntimeError("the table is already dealing")
        self._stop = threading.Event()
        self._runner = threading.Thread(
            target=self.table.run, args=(hands, self._stop), name="dealer", daemon=True
        )
        self._runner.start()
        return self._runner

    def stop(self) -> None:
        """Finish the current hand at full speed and stop dealing."""
        self._stop.set()
        if self._runner is not None:
            self._runner.join()
            self._runner = None

    def close(self) -> None:
        self.stop()
        table = getattr(self, "table", None)
        if table is not None:
            table.stop_chip_refresh()
        for device in self.devices.values():
            device.stop()
        for endpoint in self.endpoints.values():
            endpoint.close()

    def __enter__(self) -> VirtualTableRig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
