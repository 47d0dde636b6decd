"""A whole virtual table in one object: four devices, their ports, registries and the dealer.

The demo and the command line start one of these and point the service's configuration at
``device_urls()`` and the registry paths; everything else about the table stays inside.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from simulators.decks import (
    load_chips,
    load_decks,
    make_chipset,
    make_deck,
    write_chips,
    write_deck,
)
from simulators.device import VirtualDevice
from simulators.endpoints import Endpoint, PtyEndpoint, Recorder, TcpEndpoint
from simulators.scenario import Scenario
from simulators.scenario_player import ScenarioPlayer
from simulators.script import HandScript
from simulators.table import HandRecord, StackChange, VirtualTable

DEVICE_MODELS: Mapping[str, str] = {
    "shoe": "VS-SHOE",
    "cards": "VS-CARDS",
    "chips": "VS-CHIPS",
    "console": "VS-CONSOLE",
}
DEFAULT_SEATS: Mapping[int, int] = {s: 10_000 for s in range(1, 7)}
DEFAULT_DECK_ID = "RED-0001"
RECORDED_DENOMINATIONS: Mapping[int, int] = {25: 240, 100: 240, 500: 160, 1000: 160, 5000: 80}
"""A chip set (830 000 in 880 chips) for in-memory tables: enough small chips for ten deep
stacks raising and going all-in hand after hand without the float running out of change."""


class VirtualTableRig:
    """Devices on ptys (``<folder>/dev/<name>``) or TCP servers, registries, and the table.

    Registries already in place are reused, so the service and the rig agree on tags across
    restarts: ``decks`` (a registry folder; default ``<folder>/decks``) gets one fresh deck only
    when it holds none, and ``chips`` (a registry file; default ``<folder>/chips.json``) is
    written only when missing.

    With a ``recorder`` the devices write into it instead of ptys or TCP servers: every frame,
    in order, in memory (``device_urls`` then name ``memory://<device>``).
    ``pace`` is the time between the dealer's actions, ``handover`` the least time where a
    person's action hands over to another device (see ``Pacer``).
    ``limit``, ``ante``, ``ante_mode``, ``aggression``, ``all_in_share``, ``variant``,
    ``second_round_all_check``, ``stack_zones`` and ``button_uid`` go to the table (see
    ``VirtualTable``; ``variant="omaha"`` deals pot-limit Omaha, and without a ``limit`` each
    game is dealt with its own structure); the button's tag must be no tag of any deck in the
    registry either.

    Accidents for the tests of a service that must notice what it missed: ``unplug`` and
    ``replug`` (the port fails, then the device boots again), ``reset`` (the device boots
    again on an open port), ``lose_frames`` (the line loses frames); and, at the table, the
    stacks changed outside the rules (``stack_take``, ``stack_add``, ``stack_transfer``).
    A tournament's clock: ``set_level`` (the blinds and antes of the dealer's next hand).
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
        handover: float = 0.0,
        fold_probability: float = 0.15,
        deck_order: Sequence[str] | None = None,
        heartbeat: float | None = 1.0,
        chip_refresh: float | None = 1.0,
        firmware: str = "1.0",
        limit: str | None = None,
        ante: int = 0,
        ante_mode: str = "each",
        aggression: float = 0.0,
        all_in_share: float = 0.3,
        variant: str = "holdem",
        second_round_all_check: str = "carry_over",
        recorder: Recorder | None = None,
        stack_zones: bool = False,
        button_uid: str | None = None,
    ) -> None:
        self._runner: threading.Thread | None = None
        self._stop = threading.Event()
        self._last = threading.Event()
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
        if button_uid is not None:
            owner = next((d for d, cards in registry.items() if button_uid in cards), None)
            if owner is not None:
                raise ValueError(f"button_uid {button_uid} is a card of deck {owner}")
        self.chips_path = Path(chips) if chips is not None else self.folder / "chips.json"
        if not self.chips_path.exists():
            # the deep set: antes and small bets game after game need many small chips for
            # change, more than a cash-game case holds
            write_chips(self.chips_path, make_chipset(rng, RECORDED_DENOMINATIONS))
        chip_set = load_chips(self.chips_path)

        try:
            for name, model in DEVICE_MODELS.items():
                endpoint: Endpoint
                if recorder is not None:
                    endpoint = recorder.endpoint(name)
                elif tcp:
                    endpoint = TcpEndpoint()
                else:
                    endpoint = PtyEndpoint(self.folder / "dev" / name)
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
                handover=handover,
                rng=rng,
                deck_order=deck_order,
                fold_probability=fold_probability,
                limit=limit,
                ante=ante,
                ante_mode=ante_mode,
                aggression=aggression,
                all_in_share=all_in_share,
                variant=variant,
                second_round_all_check=second_round_all_check,
                stack_zones=stack_zones,
                button_uid=button_uid,
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

    def reset(self, name: str) -> None:
        """The device resets (a brown-out, its watchdog) while its port stays open: HELLO with
        seq 0, then what its sensor reads at boot, and on from there."""
        self.devices[name].hello()

    def lose_frames(self, name: str, count: int) -> None:
        """The line loses the device's next ``count`` frames: numbered, never delivered, so
        the service sees the gap in the seq numbers (``VirtualDevice.lose_next``)."""
        self.devices[name].lose_next(count)

    def stack_take(self, seat: int, amount: int) -> StackChange:
        """Chips off the table from the seat's stack (``VirtualTable.stack_take``)."""
        return self.table.stack_take(seat, amount)

    def stack_add(self, seat: int, amount: int) -> StackChange:
        """Chips bought into the seat's stack (``VirtualTable.stack_add``)."""
        return self.table.stack_add(seat, amount)

    def stack_transfer(self, giver: int, taker: int, amount: int) -> StackChange:
        """Chips from one seat's stack to another's (``VirtualTable.stack_transfer``)."""
        return self.table.stack_transfer(giver, taker, amount)

    def set_level(self, *, small_blind: int | None = None, big_blind: int | None = None,
                  ante: int | None = None, ante_mode: str | None = None,
                  limit: str | None = None) -> None:
        """The dealer's level from his next hand on, as the room's clock changes it
        (``VirtualTable.set_level``): a tournament's level change, which the service learns
        from its controller's ``cmd/configure``, not from the table."""
        self.table.set_level(small_blind=small_blind, big_blind=big_blind, ante=ante,
                             ante_mode=ante_mode, limit=limit)

    def pause(self, timeout: float = 10.0) -> None:
        """Make the dealer stand still (``VirtualTable.pause``)."""
        self.table.pause(timeout)

    def resume(self, steps: int | None = None) -> None:
        """Let the dealer go on (``VirtualTable.resume``)."""
        self.table.resume(steps)

    def start(self, hands: int | None = None) -> threading.Thread:
        """Deal in the background until ``hands`` are done, or ``finish`` or ``stop`` is
        called."""
        if self._runner is not None and self._runner.is_alive():
            raise RuntimeError("the table is already dealing")
        self._stop = threading.Event()
        self._last = threading.Event()
        self._runner = threading.Thread(
            target=self.table.run, args=(hands, self._stop), kwargs={"last": self._last},
            name="dealer", daemon=True
        )
        self._runner.start()
        return self._runner

    def start_script(
        self,
        script: HandScript,
        on_hand: Callable[[HandRecord], None] | None = None,
    ) -> threading.Thread:
        """Deal the scripted hand in the background (``simulators.phh.load_phh`` reads one).

        The script is checked first, here: a script the rules refuse raises ``ScriptError``
        before any thread starts or any frame is sent.
        """
        if self._runner is not None and self._runner.is_alive():
            raise RuntimeError("the table is already dealing")
        self.table.rehearse(script)
        self._stop = threading.Event()
        stop = self._stop

        def deal() -> None:
            record = self.table.play_script(script, stop, rehearsed=True)
            if on_hand is not None:
                on_hand(record)

        self._runner = threading.Thread(target=deal, name="dealer", daemon=True)
        self._runner.start()
        return self._runner

    def play_scenario(
        self,
        scenario: Scenario,
        *,
        pace: float = 0.0,
        stop: threading.Event | None = None,
    ) -> dict[int, int]:
        """Do a test scenario's steps (``simulators.scenario.load_scenario`` reads one) on
        these devices, with this table's deck and chips; returns the players' stacks after.

        The table's own chip inventories would contradict the scenario's, so its chip
        refresh pauses meanwhile and the scenario's chips are repeated instead. A scenario
        brings its own stacks and button: a rig with stack zones or a tagged button (whose
        devices would report the table's own at every boot) cannot play one.
        """
        if self._runner is not None and self._runner.is_alive():
            raise RuntimeError("the table is already dealing")
        if self.table.stack_zones or self.table.button_uid is not None:
            raise ValueError("a scenario sets its own stacks and button: play it on a rig "
                             "without stack_zones and button_uid (the scenario's setup says "
                             "whether its stacks lie in stack zones)")
        player = ScenarioPlayer(
            self.devices, self.table.deck, self.table.chip_values, scenario, pace=pace, stop=stop
        )
        self.table.stop_chip_refresh()
        done = threading.Event()

        def refresh() -> None:
            while not done.wait(1.0):
                player.refresh_chips()

        refresher = threading.Thread(target=refresh, name="scenario chips", daemon=True)
        refresher.start()
        try:
            player.play()
        finally:
            done.set()
            refresher.join()
        return {s: p.value for s, p in sorted(player.stacks.items())}

    def finish(self, pace: float | None = None) -> None:
        """The hand under way is the last: the dealer deals it to its end at his pace (from
        his next action on ``pace``, if given), then stops (``VirtualTable.run``'s ``last``).
        Returns at once; the thread ``start`` returned ends after that hand. Unlike ``stop``,
        no action follows another at once, so a service judges the hand's end as it judged
        its beginning."""
        if pace is not None:
            self.table.set_pace(pace)
        self._last.set()

    def stop(self) -> None:
        """Finish the current hand at full speed and stop dealing (``finish`` keeps a pace)."""
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


def recorded_table(
    seats: Mapping[int, int] = DEFAULT_SEATS,
    *,
    seed: int | None = None,
    small_blind: int = 50,
    big_blind: int = 100,
    chips: Mapping[str, int] | None = None,
    hello: bool = True,
    **options: Any,
) -> tuple[VirtualTable, list[tuple[str, bytes]]]:
    """A virtual table whose four devices write into one in-memory list, in true order.

    Returns the table (pace 0 unless ``pace`` is given) and the list of (device name, frame
    bytes) it grows as it deals; the devices say HELLO first when ``hello`` (each followed by
    what its sensor reads at boot: with ``stack_zones`` the stacks, with ``button_uid`` the
    button in its seat zone). A fresh deck and,
    unless ``chips`` is given, a chip set of ``RECORDED_DENOMINATIONS`` come from ``seed``
    (``table.deck`` and ``table.chip_values`` are the registries to give the reader);
    ``options`` are ``VirtualTable``'s other keyword arguments.
    """
    rng = random.Random(seed)
    deck = make_deck(DEFAULT_DECK_ID, rng)
    chip_set = dict(chips) if chips is not None else make_chipset(rng, RECORDED_DENOMINATIONS)
    recorder = Recorder()
    devices = {
        name: VirtualDevice(name, recorder.endpoint(name), model, hello_on_connect=False)
        for name, model in DEVICE_MODELS.items()
    }
    options.setdefault("rng", rng)
    table = VirtualTable(
        devices, deck, chip_set, seats, small_blind=small_blind, big_blind=big_blind, **options
    )
    if hello:
        for device in devices.values():
            device.hello()
    return table, recorder.frames
