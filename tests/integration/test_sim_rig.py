"""The whole virtual table as the demo and the command line start it."""

from __future__ import annotations

import os
import random
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.tsp import Frame
from simulators.decks import load_chips, load_decks, make_deck, write_deck
from simulators.tap import FrameTap
from simulators.virtual import RECORDED_DENOMINATIONS, VirtualTableRig

pytestmark = pytest.mark.integration

WAIT = 10.0
KINDS = ["shoe", "cards", "chips", "console"]


def is_hello(frame: Frame) -> bool:
    return frame.type == "HELLO"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    with VirtualTableRig(tmp_path / "table", seed=3, pace=0, chip_refresh=None) as r:
        yield r


def test_rig_puts_each_device_behind_a_link_in_the_dev_folder(
    rig: VirtualTableRig, tmp_path: Path
) -> None:
    urls = rig.device_urls()
    assert list(urls) == KINDS
    for name, url in urls.items():
        assert url == str(tmp_path / "table" / "dev" / name)
        assert stat.S_ISCHR(os.stat(url).st_mode)


def test_rig_writes_a_deck_and_a_chip_registry_the_service_can_load(
    rig: VirtualTableRig,
) -> None:
    decks = load_decks(rig.decks_dir)
    assert list(decks) == ["RED-0001"]
    assert len(decks["RED-0001"]) == 52
    chips = load_chips(rig.chips_path)
    assert sum(chips.values()) == sum(v * n for v, n in RECORDED_DENOMINATIONS.items())
    assert sorted(set(chips.values())) == [25, 100, 500, 1000, 5000]


def test_rig_devices_say_hello_with_their_model_and_deal_from_the_registry_deck(
    rig: VirtualTableRig,
) -> None:
    taps = {name: FrameTap(url) for name, url in rig.device_urls().items()}
    try:
        for name, tap in taps.items():
            hello = tap.wait_for(is_hello, timeout=WAIT)
            assert hello.dev == name and hello.fields[2] == "TSP1"
        record = rig.table.play_hand()
        uids = set(load_decks(rig.decks_dir)["RED-0001"])
        first = taps["shoe"].wait_for(lambda f: f.type == "DRAW", timeout=WAIT)
        assert first.fields[0] in uids
        assert record.deal[0][1] == f"S{record.seats[0]}"
    finally:
        for tap in taps.values():
            tap.close()


def test_rig_reuses_an_existing_deck_registry(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    blue = make_deck("BLUE-0007", random.Random(8))
    write_deck(decks, "BLUE-0007", blue)
    with VirtualTableRig(tmp_path / "t", decks=decks, pace=0, heartbeat=None) as rig:
        assert rig.decks_dir == decks and rig.deck_id == "BLUE-0007"
        assert list(load_decks(decks)) == ["BLUE-0007"]  # nothing new enrolled
        record = rig.table.play_hand()
        assert {card for card, _ in record.deal} <= set(blue.values())


def test_rig_unplug_fails_the_port_and_replug_says_hello_again(rig: VirtualTableRig) -> None:
    url = rig.device_urls()["cards"]
    with FrameTap(url) as tap:
        tap.wait_for(is_hello, timeout=WAIT)
        rig.unplug("cards")
        tap.wait_failure(WAIT)  # the open port fails, as on a real unplug
    assert not os.path.lexists(url)
    rig.replug("cards")
    assert rig.device_urls()["cards"] == url
    with FrameTap(url) as tap:
        hello = tap.wait_for(is_hello, timeout=WAIT)
        assert hello.seq == 0 and hello.fields[0] == "VS-CARDS"
        heartbeat = tap.wait_for(lambda f: f.type == "HB", timeout=WAIT)
        assert heartbeat.seq > 0


def test_rig_over_tcp_deals_a_hand_to_socket_clients(tmp_path: Path) -> None:
    with VirtualTableRig(tmp_path, tcp=True, seed=4, pace=0, heartbeat=None) as rig:
        urls = rig.device_urls()
        assert all(url.startswith("socket://127.0.0.1:") for url in urls.values())
        taps = {name: FrameTap(url) for name, url in urls.items()}
        try:
            for tap in taps.values():
                tap.wait_for(is_hello, timeout=WAIT)
            record = rig.table.play_hand()
            last = rig.devices["shoe"].last_seq
            taps["shoe"].wait_for(lambda f: f.seq == last, timeout=WAIT)
            draws = [f for f in taps["shoe"].frames if f.type == "DRAW"]
            assert len(draws) == len(record.deal)
        finally:
            for tap in taps.values():
                tap.close()


def test_rig_writes_the_chip_registry_where_asked_and_reuses_it(tmp_path: Path) -> None:
    path = tmp_path / "registry" / "chips.json"
    with VirtualTableRig(tmp_path / "a", chips=path, seed=1, pace=0, heartbeat=None) as rig:
        assert rig.chips_path == path
    first = load_chips(path)
    with VirtualTableRig(tmp_path / "b", chips=path, seed=2, pace=0, heartbeat=None):
        pass
    assert load_chips(path) == first
