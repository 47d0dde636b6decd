"""The table's own evidence on real ports: stack zones and a tagged button reach a service that
opens its ports whenever it starts, a device resets on its open port, a line loses frames,
and ``tablesvc sim`` shows what the config says the table has."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.tsp import Frame
from simulators.tap import FrameTap
from simulators.virtual import VirtualTableRig

pytestmark = pytest.mark.integration

WAIT = 20.0  # only a guard against hanging
TAG = "B0770B0770B07700"
ROOT = Path(__file__).resolve().parents[2]


def is_hello(frame: Frame) -> bool:
    return frame.type == "HELLO"


def value(rig: VirtualTableRig, frame: Frame) -> int:
    chips = rig.table.chip_values
    return sum(chips[u] for u in frame.fields[1].split()) if len(frame.fields) > 1 else 0


def last_inventories(tap: FrameTap, since: int = 0) -> dict[str, Frame]:
    return {f.fields[0]: f for f in tap.frames[since:] if f.type == "CHIPS"}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[VirtualTableRig]:
    with VirtualTableRig(tmp_path / "table", seed=3, pace=0, heartbeat=None, chip_refresh=None,
                         seats={1: 5000, 3: 5000, 6: 5000}, stack_zones=True,
                         button_uid=TAG) as r:
        yield r


def test_a_service_that_opens_its_ports_late_reads_the_stacks_and_the_button(
        rig: VirtualTableRig) -> None:
    # the rig booted before anybody listened: what its sensors read then was lost, and they
    # read it again when the service's open reboots them
    urls = rig.device_urls()
    with FrameTap(urls["cards"]) as cards, FrameTap(urls["chips"]) as chips:
        hello = cards.wait_for(is_hello, timeout=WAIT)
        button = cards.wait_for(lambda f: f.type == "ARR", timeout=WAIT)
        assert (hello.seq, button.seq, button.fields) == (0, 1, ("S1", TAG))
        chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P10", timeout=WAIT)
        told = last_inventories(chips)
        assert {z: value(rig, f) for z, f in told.items() if value(rig, f)} == {
            "P1": 5000, "P3": 5000, "P6": 5000}


def test_the_stacks_and_the_button_a_hand_leaves_are_what_the_reader_sees(
        rig: VirtualTableRig) -> None:
    urls = rig.device_urls()
    with FrameTap(urls["cards"]) as cards, FrameTap(urls["chips"]) as chips:
        cards.wait_for(lambda f: f.type == "ARR", timeout=WAIT)
        chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P10", timeout=WAIT)
        record = rig.table.play_hand()
        rig.stack_take(3, 500)
        last = rig.devices["chips"].last_seq
        chips.wait_for(lambda f: f.seq == last, timeout=WAIT)
        told = last_inventories(chips)
        stacks = {int(z[1:]): value(rig, f) for z, f in told.items()
                  if z[1:].isdigit() and z[0] == "P" and value(rig, f)}
        assert stacks == {**record.stacks_after, 3: record.stacks_after[3] - 500}
        moved = cards.wait_for(lambda f: f.type == "ARR" and f.fields[1] == TAG, since=2,
                               timeout=WAIT)
        assert moved.fields[0] == "S3"


def test_the_chip_readers_refresh_repeats_the_stacks(tmp_path: Path) -> None:
    with VirtualTableRig(tmp_path, seed=3, pace=0, heartbeat=None, chip_refresh=0.2,
                         seats={2: 5000, 4: 7000}, stack_zones=True) as rig, \
            FrameTap(rig.device_urls()["chips"]) as chips:
        first = chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P4",
                               timeout=WAIT)
        again = chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P4",
                               since=chips.frames.index(first) + 1, timeout=WAIT)
        assert again.seq > first.seq and value(rig, again) == 7000


def test_a_device_that_resets_says_hello_again_on_its_open_port(rig: VirtualTableRig) -> None:
    with FrameTap(rig.device_urls()["chips"]) as chips:
        chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P10", timeout=WAIT)
        rig.table.play_hand()
        last = rig.devices["chips"].last_seq
        chips.wait_for(lambda f: f.seq == last, timeout=WAIT)
        mark = len(chips)
        rig.reset("chips")
        hello = chips.wait_for(is_hello, since=mark, timeout=WAIT)
        assert hello.seq == 0
        stack = chips.wait_for(lambda f: f.type == "CHIPS", since=mark, timeout=WAIT)
        assert stack.seq == 1 and stack.fields[0] == "P1"
        assert chips.failure is None  # the port never closed


def test_frames_lost_on_a_line_are_a_gap_in_the_seq_numbers(rig: VirtualTableRig) -> None:
    with FrameTap(rig.device_urls()["console"]) as console:
        console.wait_for(is_hello, timeout=WAIT)
        rig.lose_frames("console", 1)  # the NEWHAND
        rig.table.play_hand()
        rig.devices["console"].heartbeat()
        last = rig.devices["console"].last_seq
        console.wait_for(lambda f: f.seq == last, timeout=WAIT)
        seqs = [f.seq for f in console.frames]
        assert seqs[:2] == [0, 2]
        assert not [f for f in console.frames if f.fields[:1] == ("NEWHAND",)]


def _config(folder: Path) -> Path:
    cfg = folder / "table.toml"
    cfg.write_text(
        '[table]\nvenue = "demo"\nid = "t01"\nstack_zones = true\n'
        f'[registry]\ndecks = "decks"\nchips = "chips.json"\n[registry.button]\nuid = "{TAG}"\n'
        + "".join(f'[[players]]\nseat = {s}\nname = "P{s}"\nstack = 10000\n' for s in (2, 4))
        + '[storage]\ndir = "store"\n')
    return cfg


def test_tablesvc_sim_deals_with_the_stack_zones_and_the_button_tag_of_the_config(
        tmp_path: Path) -> None:
    sim = subprocess.Popen(
        [sys.executable, "-m", "tablesvc.commands.cli", "sim", "--config", str(_config(tmp_path)),
         "--tcp", "--pace", "0", "--wait", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert sim.stdout is not None
        urls: dict[str, str] = {}
        device = ""
        printed: list[str] = []
        while len(urls) < 4:
            line = sim.stdout.readline()
            assert line, f"the simulator ended: {sim.stderr.read() if sim.stderr else ''}"
            printed.append(line)
            if line.startswith("[devices."):
                device = line.strip()[len("[devices."):-1]
            elif line.startswith("url = "):
                urls[device] = line.split('"')[1]
        with FrameTap(urls["cards"]) as cards, FrameTap(urls["chips"]) as chips:
            assert cards.wait_for(lambda f: f.type == "ARR", timeout=WAIT).fields == ("S2", TAG)
            p4 = chips.wait_for(lambda f: f.type == "CHIPS" and f.fields[0] == "P4",
                                timeout=WAIT)
            assert len(p4.fields[1].split()) >= 1
        sim.send_signal(signal.SIGTERM)
        assert sim.wait(timeout=WAIT) == 0
        said = "".join(printed) + sim.stdout.read()  # what readline had buffered, too
        assert "stack zones" in said and f"carries the tag {TAG}" in said
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()
        for pipe in (sim.stdout, sim.stderr):
            if pipe is not None:
                pipe.close()
