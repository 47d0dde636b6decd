"""A long day of one table, stored as the service stores it: what the restart bench starts on.

The virtual table of ``simulators`` deals hold'em hand after hand (six seats; when fewer than two
players are left the controller seats a fresh table by command) on a virtual clock: 80 ms per
dealer action, every device's heartbeat each second, the chip reader's inventory of every zone
every two seconds, and a tick wherever the core's next deadline falls, as the live pipeline
journals them. Those inputs then go through the service's own pipeline (``Service.process``, in
batches, without ports or broker), which writes the journal segments, takes the checkpoints
at hand boundaries and segment starts, and fills the outbox; the outbox is then marked as the
broker would leave it after a day (every event acknowledged, and purged).

Generating a million inputs takes a few minutes; the result is kept under ``build/`` and reused
while its parameters and the code of the core are the same.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from simulators.decks import make_chipset, make_deck, write_chips, write_deck
from simulators.device import VirtualDevice
from simulators.table import VirtualTable
from simulators.virtual import DEVICE_MODELS, RECORDED_DENOMINATIONS
from tablesvc import __version__
from tablesvc.config.table import load_config
from tablesvc.core.inputs import Command, FrameIn, Input, ServiceStart, Tick, format_ts
from tablesvc.pipeline.checkpoint import code_fingerprint
from tablesvc.pipeline.journal import JOURNAL_DIR, Journal, journal_end

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "bench-restart"
START_MS = 1_796_000_000_000  # a day in 2026, 21:00 on the virtual clock
STEP_MS = 80
SEATS = {s: 20_000 for s in range(1, 7)}
DECK_ID = "BENCH-0001"


class _Endpoint:
    """A device's end of the virtual wire: each line written is one input, stamped now."""

    def __init__(self, wire: _Wire, name: str) -> None:
        self._wire = wire
        self._name = name

    url = "loop://"
    dropped = 0
    connected = True

    def set_on_connect(self, callback: Callable[[], object] | None) -> None:
        pass

    def take_new_peer(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        for line in data.split(b"\r\n"):
            if line:
                self._wire.line(self._name, line)

    def unplug(self) -> None:
        pass

    def replug(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Wire:
    def __init__(self) -> None:
        self.ms = START_MS
        self.inputs: list[Input] = []
        self.devices = {n: VirtualDevice(n, _Endpoint(self, n), m, hello_on_connect=False,
                                         clock=lambda: self.ms / 1000)
                        for n, m in DEVICE_MODELS.items()}
        self.next_beat = self.ms + 1000
        self.next_refresh = self.ms + 2000
        self.table: VirtualTable | None = None
        self._idle = False

    def line(self, name: str, raw: bytes) -> None:
        self.ms += 1 if self._idle else STEP_MS
        self.inputs.append(FrameIn(format_ts(self.ms), self.ms, name, raw.decode("latin-1")))
        if not self._idle:
            self._background()

    def command(self, cmd: str, **body: object) -> None:
        self.ms += STEP_MS
        self.inputs.append(Command(format_ts(self.ms), self.ms, cmd, dict(body)))

    def _background(self) -> None:
        """The heartbeats and inventories that fell due while the dealer acted."""
        self._idle = True
        try:
            while self.next_beat <= self.ms:
                self.next_beat += 1000
                for device in self.devices.values():
                    device.heartbeat()
            if self.table is not None and self.next_refresh <= self.ms:
                self.next_refresh = self.ms + 2000
                self.table.felt.refresh_chips()
        finally:
            self._idle = False


def _sessions(wanted: int, deck: dict[str, str], chips: dict[str, int]) -> list[Input]:
    """Frames and commands of clean-play sessions until ``wanted`` of them (ticks come later)."""
    wire = _Wire()
    wire.inputs.append(ServiceStart(format_ts(wire.ms), wire.ms, __version__))
    for device in wire.devices.values():
        device.hello()
    rng = random.Random(2026)
    tables = 0
    while len(wire.inputs) < wanted:
        tables += 1
        for seat, stack in SEATS.items():
            wire.command("seat", seat=seat, name=f"P{seat}", stack=stack, request_id=f"s{seat}")
        wire.command("button", seat=min(SEATS))
        table = VirtualTable(wire.devices, deck, chips, dict(SEATS), small_blind=50,
                             big_blind=100, rng=rng, pace=0.0,
                             button=min(SEATS), aggression=0.1, all_in_share=0.05,
                             fold_probability=0.3)
        wire.table = table
        while len(table.seated()) >= 2 and len(wire.inputs) < wanted:
            table.play_hand()
            wire.ms += 1500  # the cards are collected and shuffled
            wire._background()
    return wire.inputs


def generate(inputs: int, log: Callable[[str], None] = print) -> Path:
    """The cached storage of a day of ``inputs`` inputs; its folder holds ``table.toml`` (with
    ``loop://`` devices), ``registry/`` and ``store/``."""
    key = f"{inputs}-{code_fingerprint()[:12]}"
    folder = CACHE / key
    if (folder / "READY").is_file():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.monotonic()
    rng = random.Random(7)
    deck = make_deck(DECK_ID, rng)
    chips = make_chipset(rng, RECORDED_DENOMINATIONS)
    write_deck(folder / "registry" / "decks", DECK_ID, deck)
    write_chips(folder / "registry" / "chips.json", chips)
    cfg_path = folder / "table.toml"
    devices = "".join(f'[devices.{n}]\nurl = "loop://"\n' for n in DEVICE_MODELS)
    cfg_path.write_text(f'[table]\nvenue = "bench"\nid = "t01"\nseats = 6\n[game]\n'
                        f'small_blind = 50\nbig_blind = 100\n{devices}'
                        f'[registry]\ndecks = "registry/decks"\nchips = "registry/chips.json"\n'
                        f'[storage]\ndir = "store"\n')
    log(f"  generating a journal of {inputs:,} inputs in {folder} (once; a few minutes)")
    frames = _sessions(inputs, deck, chips)
    from tablesvc.pipeline.service import Service, core_of

    cfg = load_config(cfg_path)
    svc = Service(cfg, cfg_path)
    with_ticks = _with_ticks(core_of(cfg, svc.basis), frames)[:inputs]
    log(f"  {len(with_ticks):,} inputs dealt in {time.monotonic() - started:.0f} s; journalling")
    svc.journal = Journal(svc.storage / JOURNAL_DIR, segment_bytes=cfg.storage.segment_mb << 20)
    svc.checkpoints.start()
    for lo in range(0, len(with_ticks), 500):
        svc.process(with_ticks[lo:lo + 500])
    svc.journal.close()
    svc.checkpoints.close()
    svc.outbox.close()
    db = sqlite3.connect(svc.storage / "outbox.sqlite")
    with db:  # a day later every event is acknowledged and purged; high_seq stays
        db.execute("DELETE FROM messages")
    db.execute("VACUUM")
    db.close()
    end = journal_end(svc.storage / JOURNAL_DIR)
    (folder / "READY").write_text(json.dumps({
        "inputs": len(with_ticks), "events": svc.core.seq,
        "hands": sum(1 for i in with_ticks if isinstance(i, FrameIn) and ",NEWHAND" in i.frame),
        "journal_end": [end.segment, end.offset], "seconds": round(time.monotonic() - started),
    }))
    log(f"  done in {time.monotonic() - started:.0f} s")
    return folder


def _with_ticks(core: object, frames: list[Input]) -> list[Input]:
    """The inputs as the live pipeline journals them: a tick wherever a deadline of the core
    fell before the next input (``Service._take_batch`` does the same on the wall clock)."""
    from tablesvc.core.table import TableCore
    from tablesvc.pipeline.replay import apply_input

    assert isinstance(core, TableCore)
    out: list[Input] = []
    last = START_MS
    for inp in frames:
        for _ in range(100):
            deadline = core.next_deadline()
            if deadline is None or deadline > inp.ms:
                break
            at = max(deadline, last)
            tick = Tick(format_ts(at), at)
            apply_input(core, tick)
            out.append(tick)
            if core.next_deadline() == deadline:
                break
        apply_input(core, inp)
        out.append(inp)
        last = inp.ms
    return out
