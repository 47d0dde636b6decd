"""Record the golden journals: what the service publishes today, frozen to the byte.

Maintainer script; the tests never run it. ``tests/unit/test_golden_replay.py`` replays every
journal recorded here and requires exactly the stored output, so that a rebuild of the core can
prove that nothing a user sees has changed. Re-record only after a change of published output
that is deliberate and reviewed::

    python -m tests.golden.record             # every case (run from the repository root)
    python -m tests.golden.record NAME ...    # only these cases
    python -m tests.golden.record --list      # the cases and what each one holds

then read ``git diff tests/golden`` event by event before committing it.

Each case is a folder ``tests/golden/<name>/`` holding

- ``table.toml``: the table's config (game, device names, registries);
- ``journal.jsonl``: the input journal (DESIGN §7), written by the pipeline's ``Journal``;
- ``expected.jsonl``: the exact stdout of ``tablesvc replay journal.jsonl --config table.toml``.

They share one registry, ``tests/golden/registry/`` (one deck, one chip set).

How a journal is made: the virtual table of ``simulators`` deals (random hands, or the
shipped scenario files of ``simulators/scenarios``) on four virtual devices whose wire is a
virtual clock, so a recording is the same on every machine and every run. The devices send
their heartbeats on that clock; each frame goes through the steps of the live pipeline
(``tablesvc.pipeline.service``): a tick whenever the core's next deadline has passed, then
the journal, then the core. Controller commands (seat, button, configure, declare, ack_alert,
...) and port changes are put in between, as the service would journal them. Recording
twice gives the same bytes, so a re-recording's diff shows only what the code changed.

One case, ``holdem_live``, is a real run instead: ``tablesvc run`` as its own process on the
virtual devices' ptys (heartbeats, chip inventories and timing all real) and a mosquitto
broker, as the end-to-end tests run it; it needs mosquitto, takes about 20 s, and differs in
every timestamp when it is recorded again.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulators.decks import make_chipset, make_deck, write_chips, write_deck
from simulators.device import VirtualDevice
from simulators.scenario import SCENARIO_DIR, load_scenario
from simulators.scenario_player import ScenarioPlayer
from simulators.table import HandRecord, VirtualTable
from simulators.virtual import DEVICE_MODELS, RECORDED_DENOMINATIONS
from tablesvc import __version__
from tablesvc.config.table import load_config
from tablesvc.core import events as ev
from tablesvc.core.commands import COMMAND_CHECKS
from tablesvc.core.inputs import (
    Command,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceStart,
    Tick,
    format_ts,
    parse_ts,
)
from tablesvc.core.table import TableCore
from tablesvc.pipeline.journal import Journal, journal_files
from tablesvc.pipeline.replay import apply_input
from tablesvc.pipeline.service import build_core

GOLDEN = Path(__file__).resolve().parent
ROOT = GOLDEN.parents[1]
REGISTRY = GOLDEN / "registry"
DECK_ID = "RED-0001"
REGISTRY_SEED = 2026
START_MS = parse_ts("2026-11-29T21:00:00.000Z")
STEP_MS = 80
"""Virtual time between two physical actions of the dealer (a card, a chip motion, a button)."""
HEARTBEAT_MS = 1000
STALE_GAP_MS = 4000
"""A silence long enough for a device to go stale (3 s, DESIGN §4)."""
HOLDEM_SEED, HOLDEM_HANDS = 46, 4
DRAW_SEED, DRAW_GAMES = 52, 4
"""The virtual table's shuffles and players' decisions: chosen so that each session shows
what its case promises (``record`` checks it and says so when a change of the simulators
loses it)."""
LIVE_SEED = 4


# ---------------------------------------------------------------------------------------------
# the live pipeline on a virtual clock


class Pipeline:
    """What the service's ``Service.step`` does with each input: a tick first when the core's
    next deadline has passed, then the journal, then the core. Keeps every event it saw."""

    def __init__(self, core: TableCore, journal: Journal) -> None:
        self.core = core
        self.journal = journal
        self.events: list[ev.Event] = []
        self.failed = 0
        self.ms = START_MS

    def feed(self, inp: Input) -> None:
        self.until(inp.ms)
        self._process(inp)

    def until(self, ms: int) -> None:
        """Let time pass up to ``ms``: a tick at each deadline the core reaches meanwhile."""
        for _ in range(1000):
            deadline = self.core.next_deadline()
            if deadline is None or deadline > ms:
                break
            at = max(deadline, self.ms)  # a deadline already past: the service ticks at once
            self._process(Tick(format_ts(at), at))
            if self.core.next_deadline() == deadline:
                break  # a deadline a tick does not move: the service would not loop either
        self.ms = max(self.ms, ms)

    def _process(self, inp: Input) -> None:
        self.ms = max(self.ms, inp.ms)
        self.journal.append(inp)
        out = apply_input(self.core, inp)
        if out is None:
            self.failed += 1
        else:
            self.events.extend(out.events)

    def critical_open(self, since: int) -> list[ev.Alert]:
        """Critical alerts raised since event ``since`` (an index into ``events``) that are
        still open (the end of a hand closes some)."""
        return [e for e in self.events[since:] if isinstance(e, ev.Alert)
                and e.severity == "critical" and e.id in self.core.open_alerts]


class TimedEndpoint:
    """A device's end of the virtual wire: each write is one line the service receives."""

    def __init__(self, wire: Wire, name: str) -> None:
        self._wire = wire
        self._name = name

    @property
    def url(self) -> str:
        return "loop://"

    @property
    def dropped(self) -> int:
        return 0

    @property
    def connected(self) -> bool:
        return True

    def set_on_connect(self, callback: Callable[[], object] | None) -> None:
        pass

    def take_new_peer(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self._wire.written(self._name, data)

    def unplug(self) -> None:
        pass

    def replug(self) -> None:
        pass

    def close(self) -> None:
        pass


class Wire:
    """Four virtual devices on one virtual clock. Every dealer action takes ``STEP_MS``; each
    device sends a heartbeat every second (unless muted); lines go to the pipeline at once."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.ms = START_MS
        self.devices = {
            name: VirtualDevice(name, TimedEndpoint(self, name), model, hello_on_connect=False,
                                clock=self.clock)
            for name, model in DEVICE_MODELS.items()}
        self.next_beat = dict.fromkeys(self.devices, START_MS + HEARTBEAT_MS)
        self.muted: set[str] = set()
        """Devices whose heartbeats are not sent (a device that hangs)."""
        self.unplugged: set[str] = set()
        """Devices whose lines are lost (the cable is out)."""
        self.lose_next: set[str] = set()
        """Devices whose next line is lost on the way (a seq gap)."""
        self.last_line: dict[str, bytes] = {}
        self._busy: list[str] = []
        self._beating = False

    def clock(self) -> float:
        return self.ms / 1000

    def written(self, name: str, data: bytes) -> None:
        self.ms += 1 if self._beating else STEP_MS
        self._busy.append(name)
        try:
            for line in data.split(b"\r\n"):
                if not line:
                    continue
                if name in self.unplugged:
                    continue
                if name in self.lose_next:
                    self.lose_next.discard(name)
                    continue
                self.last_line[name] = line
                self.pipeline.feed(FrameIn(format_ts(self.ms), self.ms, name,
                                           line.decode("latin-1")))
            self._beat()
        finally:
            self._busy.pop()

    def _beat(self) -> None:
        """Heartbeats that are due, of every device not in the middle of a send."""
        if self._beating:
            return
        self._beating = True
        try:
            for name, device in self.devices.items():
                if name in self._busy or self.next_beat[name] > self.ms:
                    continue
                self.next_beat[name] = self.ms + HEARTBEAT_MS
                if name not in self.muted:
                    device.heartbeat()
        finally:
            self._beating = False

    def idle(self, ms: int) -> None:
        """The table at rest for ``ms``: heartbeats on time, the core's deadlines as ticks."""
        end = self.ms + ms
        while True:
            due = min(self.next_beat.values())
            if due > end:
                break
            self.pipeline.until(due)
            self.ms = max(self.ms, due - 1)
            self._beat_at(due)
        self.ms = end
        self.pipeline.until(end)

    def _beat_at(self, due: int) -> None:
        self._beating = True
        try:
            for name, device in self.devices.items():
                if self.next_beat[name] <= due:
                    self.next_beat[name] = due + HEARTBEAT_MS
                    if name not in self.muted:
                        device.heartbeat()
        finally:
            self._beating = False

    def command(self, cmd: str, /, **body: Any) -> None:
        self.ms += STEP_MS
        self.pipeline.feed(Command(format_ts(self.ms), self.ms, cmd, body))

    def port(self, name: str, is_open: bool, detail: str = "") -> None:
        self.ms += 1
        self.pipeline.feed(PortChange(format_ts(self.ms), self.ms, name, is_open, detail))
        if is_open:
            self.unplugged.discard(name)
        else:
            self.unplugged.add(name)

    def refused(self, seq: int, reason: str) -> None:
        """The broker refused event ``seq`` (a PUBACK reason code >= 128)."""
        self.ms += 1
        self.pipeline.feed(PublishRefused(format_ts(self.ms), self.ms, seq, reason))

    def repeat_last(self, name: str) -> None:
        """The device sends its last frame again (a retransmission: the same seq)."""
        self.raw(name, self.last_line[name] + b"\r\n")

    def raw(self, name: str, data: bytes) -> None:
        """Bytes on a device's line that are no frame of its own (noise, a corrupted frame)."""
        self.devices[name].send_raw(data)

    def start_service(self) -> None:
        """The service starts and opens every port; each device then says HELLO."""
        self.ms += 1
        self.pipeline.feed(ServiceStart(format_ts(self.ms), self.ms, __version__,
                                        COMMAND_CHECKS))
        for name in self.devices:
            self.port(name, True)
        for device in self.devices.values():
            device.hello()


# ---------------------------------------------------------------------------------------------
# cases


@dataclass
class Case:
    name: str
    about: str
    game: dict[str, Any]
    play: Callable[[Wire, Registry], list[str]] | None
    """Deals the case on the wire; returns what its events must show (see ``features``)."""
    players: dict[int, int] = field(default_factory=dict)
    """Seats of the config's ``[[players]]`` (the other cases seat players by command)."""


@dataclass(frozen=True)
class Registry:
    """The deck and chip set of ``tests/golden/registry``, as the virtual devices use them."""

    deck: dict[str, str]
    chips: dict[str, int]


def _seat_all(wire: Wire, seats: Mapping[int, int], button: int,
              names: Mapping[int, str] | None = None) -> None:
    for seat, stack in seats.items():
        wire.command("seat", seat=seat, name=(names or {}).get(seat, f"P{seat}"), stack=stack,
                     request_id=f"seat-{seat}")
    wire.command("button", seat=button)


def _table(wire: Wire, reg: Registry, seats: Mapping[int, int], seed: int,
           **options: Any) -> VirtualTable:
    return VirtualTable(wire.devices, reg.deck, reg.chips, dict(seats),
                        rng=random.Random(seed), **options)


def _hands(wire: Wire, table: VirtualTable, count: int,
           between: Callable[[int, HandRecord], None] | None = None) -> list[HandRecord]:
    records = []
    for n in range(count):
        if len(table.seated()) < 2:
            break
        record = table.play_hand()
        records.append(record)
        wire.idle(1500)
        if between is not None:
            between(n, record)
    return records


def _ack_criticals(wire: Wire, since: int) -> None:
    """The floor acknowledges every critical alert raised since event ``since``."""
    for alert in wire.pipeline.critical_open(since):
        wire.command("ack_alert", alert_id=alert.id, by="floor")


def _scenarios(wire: Wire, reg: Registry, names: list[str],
               after: Mapping[str, Callable[[Wire], None]] | None = None) -> None:
    """Play shipped scenario files one after the other at one table: before each, the
    controller sets the level, seats its players with their stacks and sets the button."""
    seated: set[int] = set()
    for name in names:
        sc = load_scenario(SCENARIO_DIR / f"{name}.yaml")
        st = sc.setup
        for seat in sorted(seated - set(st.seats)):
            wire.command("unseat", seat=seat)
        level: dict[str, Any] = {"limit": st.limit, "ante": st.ante, "ante_mode": st.ante_mode}
        if st.variant == "holdem":
            level |= {"small_blind": st.small_blind, "big_blind": st.big_blind}
        wire.command("configure", **level)
        _seat_all(wire, st.seats, st.button)
        seated = set(st.seats)
        since = len(wire.pipeline.events)
        ScenarioPlayer(wire.devices, reg.deck, reg.chips, sc).play()
        got = sorted((e.name, e.severity) for e in wire.pipeline.events[since:]
                     if isinstance(e, ev.Alert) and e.severity != "info")
        expected = sorted((a.name, a.severity) for a in sc.expect.alerts if a.severity != "info")
        if got != expected:  # the hand before it can leave something behind (see the case)
            print(f"  {name}: alerts {got}; alone, the scenario raises {expected}")
        if after and name in after:
            after[name](wire)
        wire.idle(1500)
        _ack_criticals(wire, since)
        wire.idle(500)


def play_holdem_session(wire: Wire, reg: Registry) -> list[str]:
    seats = {1: 2000, 2: 10_000, 4: 5000, 5: 3000, 7: 10_000, 9: 1500}
    wire.start_service()
    wire.idle(800)
    wire.command("configure", small_blind=50, big_blind=100)
    _seat_all(wire, seats, 9, {1: "Ann", 2: "Ben", 4: "Cy", 5: "Di", 7: "Ed", 9: "Flo"})
    wire.idle(500)
    table = _table(wire, reg, seats, seed=HOLDEM_SEED, small_blind=50, big_blind=100, button=9,
                   aggression=0.3, all_in_share=0.12, fold_probability=0.25)
    _hands(wire, table, HOLDEM_HANDS)
    return ["showdown", "uncontested", "side_pot", "all_in", "bust", "button_moves"]


def play_draw_session(wire: Wire, reg: Registry) -> list[str]:
    seats = {2: 5000, 3: 5000, 6: 2000, 8: 3000}
    wire.start_service()
    wire.idle(800)
    _seat_all(wire, seats, 2)
    wire.idle(500)
    table = _table(wire, reg, seats, seed=DRAW_SEED, small_blind=50, big_blind=100, button=2,
                   variant="draw5", ante=25, limit="pot-limit", aggression=0.3,
                   fold_probability=0.2)
    _hands(wire, table, DRAW_GAMES)
    return ["showdown", "uncontested", "checked_out", "draw", "button_moves"]


def play_holdem_irregularities(wire: Wire, reg: Registry) -> list[str]:
    wire.start_service()
    wire.idle(800)

    def declare_misdeal(w: Wire) -> None:
        w.command("declare", ruling="misdeal", reason="a joker in the deal")

    _scenarios(wire, reg, [
        "t02_misdeal_two_exposed",
        "t05_joker_misdeal",
        "r08_deck_03_scan_shows_a_card_missing",
        "r09_bet_01_bet_withdrawn",
        "r14_bet_12_raise_own_bet",
        "t10_flop_without_burn",
    ], after={"t05_joker_misdeal": declare_misdeal})
    return ["misdeal", "critical", "uncontested"]


def play_draw_irregularities(wire: Wire, reg: Registry) -> list[str]:
    wire.start_service()
    wire.idle(800)
    _scenarios(wire, reg, [
        "d06_draw_exceeds_max",
        "d10_out_of_turn_bet",
        "d14_live_hand_in_muck",
        "d02_all_check_carryover",
    ])
    return ["critical", "draw", "checked_out"]


def play_devices(wire: Wire, reg: Registry) -> list[str]:
    seats = {1: 5000, 3: 5000, 6: 5000, 8: 5000}
    wire.start_service()
    wire.idle(800)
    wire.command("seat", seat=0, name="Nobody", stack=100)  # refused: no seat 0
    wire.command("launch", rocket=True)  # refused: no such command
    _seat_all(wire, seats, 1)
    table = _table(wire, reg, seats, seed=3, small_blind=50, big_blind=100, button=1)

    def trouble(n: int, record: HandRecord) -> None:
        if n == 0:  # noise, a corrupted frame, a repeated one, an unknown type, a lost frame
            wire.raw("chips", b"\x00\xfe\xfe garbage\r\n")
            wire.raw("chips", b"$chips,9999,HB,1234*0000\r\n")
            wire.repeat_last("cards")
            wire.devices["console"].send("WAT", "1")
            wire.devices["shoe"].send("ERR", "E12", "optical sensor dirty")
            wire.lose_next.add("shoe")
            wire.idle(1200)
            wire.refused(3, "not authorized")
        elif n == 1:  # the card antennas are unplugged, then plugged back in (they reboot);
            wire.port("cards", False, "unplugged")  # meanwhile the console hangs
            wire.muted.add("console")
            wire.idle(STALE_GAP_MS)
            wire.port("cards", True)
            wire.devices["cards"].hello()
            wire.muted.discard("console")
            wire.idle(1200)

    _hands(wire, table, 3, trouble)
    return ["offline", "stale", "bad_frame", "lost_frame", "duplicate"]


CASES = [
    Case("holdem_session", "six-handed no-limit hold'em, hand after hand: stacks carried, "
         "the button moving, all-ins and side pots, four players busting in one hand, then "
         "heads-up", {
             "variant": "holdem", "limit": "no-limit", "small_blind": 25, "big_blind": 50},
         play_holdem_session),
    Case("draw_session", "four-handed pot-limit five-card draw with an ante, game after game: the "
         "dealer moving, a pot checked out and carried over twice",
         {"variant": "draw5", "limit": "pot-limit", "ante": 25}, play_draw_session),
    Case("holdem_irregularities", "hold'em scenario files in a row: a misdeal, a joker "
         "(misdeal declared by the floor, its cards left on the table), a defective deck, a "
         "withdrawn bet, an illegal raise, a flop without burn (the journal ends in that hand); "
         "the controller sets the level, re-seats and acknowledges each critical alert",
         {"variant": "holdem"}, play_holdem_irregularities),
    Case("draw_irregularities", "five-card draw scenario files in a row: draw irregularities, "
         "too many cards asked for, an out-of-turn bet, a live hand in the muck, a pot "
         "carried over", {"variant": "draw5", "ante": 25},
         play_draw_irregularities),
    Case("devices", "hold'em with device trouble: noise, a corrupted, a repeated and a lost "
         "frame, an unknown frame type, a device fault, an unplugged reader, a hung console, "
         "a refused publish; refused commands", {"variant": "holdem", "limit": "no-limit"},
         play_devices),
    Case("holdem_live", "recorded from a real run: tablesvc run on the virtual devices' ptys "
         "and a mosquitto broker, two hands, the chip reader unplugged and plugged back in "
         "between them", {"variant": "holdem"}, None,
         players={1: 5000, 3: 5000, 4: 5000, 7: 5000}),
]
"""Every case. All but the last are recorded on the virtual clock (the same bytes on every
run); the last is a real run, so its timing, heartbeats and chip inventories are the live
service's own, and a re-recording differs from it in every timestamp."""


# ---------------------------------------------------------------------------------------------
# recording


def registry() -> Registry:
    """The one deck and chip set every case uses, written to ``tests/golden/registry``."""
    rng = random.Random(REGISTRY_SEED)
    deck = make_deck(DECK_ID, rng)
    chips = make_chipset(rng, RECORDED_DENOMINATIONS)
    write_deck(REGISTRY / "decks", DECK_ID, deck)
    write_chips(REGISTRY / "chips.json", chips)
    return Registry(deck, chips)


def config_text(case: Case) -> str:
    lines = [f"# Golden journal {case.name}: {case.about}.",
             "# Written by tests/golden/record.py: re-record, do not edit.",
             "[table]", 'venue = "golden"', f'id = "{case.name.replace("_", "-")}"', "",
             "[game]"]
    for key, value in case.game.items():
        lines.append(f"{key} = {json.dumps(value)}")
    lines.append("")
    for name in DEVICE_MODELS:
        lines += [f"[devices.{name}]", 'url = "loop://"']
    lines += ["", "[registry]", 'decks = "../registry/decks"', 'chips = "../registry/chips.json"']
    for seat, stack in case.players.items():
        lines += ["", "[[players]]", f"seat = {seat}", f'name = "P{seat}"', f"stack = {stack}"]
    lines.append("")
    return "\n".join(lines)


def one_file(segments: Path, target: Path) -> None:
    """A golden journal is one file: the lines of the service's journal segments, in order,
    without their zero padding (``tablesvc replay`` reads such a file as it reads a folder)."""
    with target.open("wb") as out:
        for f in journal_files(segments):
            out.write(f.read_bytes().split(b"\0", 1)[0])


def replay_cli(journal: Path, config: Path) -> bytes:
    """The stdout of ``tablesvc replay``, exactly."""
    done = subprocess.run([sys.executable, "-m", "tablesvc.commands.cli", "replay", str(journal),
                           "--config", str(config)], capture_output=True, cwd=ROOT, check=False)
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"replay of {journal} failed ({done.returncode}):\n"
                         f"{done.stderr.decode(errors='replace')}")
    return done.stdout


def features(events: list[dict[str, Any]]) -> set[str]:
    """What a journal's events show, in the words ``Case.play`` uses for what they must show."""
    found: set[str] = set()
    if len({e["button"] for e in events if e["type"] == "hand_started"}) > 1:
        found.add("button_moves")
    for e in events:
        kind = e["type"]
        if kind == "hand_ended":
            found.add(e["reason"])
            if any(s["stack"] == 0 for s in e["stacks"]):
                found.add("bust")
        elif kind == "pot_awarded" and e["pot"].startswith("side"):
            found.add("side_pot")
        elif kind == "action" and e["action"] == "all_in":
            found.add("all_in")
        elif kind == "draw":
            found.add("draw")
        elif kind == "alert" and e["severity"] == "critical":
            found.add("critical")
        elif kind == "device_status":
            found.add(e["state"])
            counters = e["counters"]
            for key, name in (("bad", "bad_frame"), ("lost", "lost_frame"),
                              ("duplicate", "duplicate")):
                if counters[key]:
                    found.add(name)
    return found


def record(case: Case, reg: Registry) -> None:
    folder = GOLDEN / case.name
    folder.mkdir(exist_ok=True)
    config = folder / "table.toml"
    config.write_text(config_text(case), encoding="utf-8")
    journal_path = folder / "journal.jsonl"
    journal_path.unlink(missing_ok=True)
    published: bytes | None = None
    if case.play is None:
        wanted = record_live(case, journal_path)
    else:
        core = build_core(load_config(config), config)  # exactly as replay builds it
        segments = folder / "journal.segments"
        shutil.rmtree(segments, ignore_errors=True)
        journal = Journal(segments)
        pipeline = Pipeline(core, journal)
        wanted = case.play(Wire(pipeline), reg)
        journal.close()
        one_file(segments, journal_path)
        shutil.rmtree(segments)
        if pipeline.failed:
            raise SystemExit(f"{case.name}: {pipeline.failed} inputs failed in the core")
        published = "".join(e.model_dump_json() + "\n" for e in pipeline.events).encode()
    out = replay_cli(journal_path, config)
    if published is not None and out != published:
        raise SystemExit(f"{case.name}: replay differs from what the pipeline published")
    events = [json.loads(line) for line in out.decode().splitlines()]
    missing = set(wanted) - features(events)
    if missing:
        raise SystemExit(f"{case.name}: the recording lacks {sorted(missing)}; pick another "
                         "seed")
    (folder / "expected.jsonl").write_bytes(out)
    alerts = sorted({f"{e['name']}/{e['severity'][0]}" for e in events
                     if e["type"] == "alert" and e["severity"] != "info"})
    print(f"{case.name}: {journal_path.stat().st_size // 1024} KB journal, "
          f"{len(events)} events, {len(out) // 1024} KB; alerts {', '.join(alerts) or 'none'}")


def record_live(case: Case, journal: Path) -> list[str]:
    """Run ``tablesvc run`` on virtual devices (ptys) and mosquitto, as the end-to-end tests
    do; keep its journal. Needs mosquitto; takes about half a minute."""
    import signal
    import tempfile
    import time

    from simulators.virtual import VirtualTableRig
    from tablesvc.brokers.mosquitto import Mosquitto, wait_until
    from tablesvc.pipeline.journal import read_journal

    with tempfile.TemporaryDirectory(prefix="golden-") as tmp_name:
        tmp = Path(tmp_name)
        broker = Mosquitto(tmp)
        broker.start()
        rig = VirtualTableRig(tmp / "sim", decks=REGISTRY / "decks",
                              chips=REGISTRY / "chips.json", seats=case.players, button=1,
                              seed=LIVE_SEED, pace=0.05)
        proc = None
        try:
            text = config_text(case).replace('"../registry/', f'"{REGISTRY}/')
            for name, url in rig.device_urls().items():
                text = text.replace(f'[devices.{name}]\nurl = "loop://"',
                                    f'[devices.{name}]\nurl = "{url}"')
            text += (f'[mqtt]\nport = {broker.port}\nprotocol = "5"\n'
                     f'[storage]\ndir = "{tmp / "store"}"\n')
            run_config = tmp / "table.toml"
            run_config.write_text(text, encoding="utf-8")
            live = tmp / "store" / "journal"
            with open(tmp / "service.log", "ab") as log:
                proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run",
                                         "--config", str(run_config), "--log", "json"],
                                        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)

            def hellos(device: str = "") -> int:
                if not live.exists():
                    return 0
                return sum(1 for i in read_journal(live) if isinstance(i, FrameIn)
                           and i.src.startswith(device) and ",HELLO," in i.frame)

            wait_until(lambda: hellos() >= 4, 20, "every device's HELLO in the journal")
            rig.table.play_hand()
            time.sleep(1.0)
            rig.unplug("chips")
            time.sleep(2.0)  # the service sees the port fail and retries with backoff
            rig.replug("chips")
            wait_until(lambda: hellos("chips") >= 2, 20, "the chip reader back in the journal")
            time.sleep(1.0)
            rig.table.play_hand()
            time.sleep(1.5)
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(20)
            rig.close()
            broker.stop()
        if proc.returncode != 0:
            raise SystemExit(f"{case.name}: the service exited with {proc.returncode}:\n"
                             + (tmp / "service.log").read_text(errors="replace")[-3000:])
        one_file(live, journal)
    return ["showdown", "offline", "button_moves"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="cases to record (default: all)")
    p.add_argument("--list", action="store_true", help="list the cases")
    args = p.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name}: {case.about}")
        return 0
    unknown = set(args.names) - {c.name for c in CASES}
    if unknown:
        p.error(f"unknown cases {sorted(unknown)}")
    reg = registry()
    for case in CASES:
        if not args.names or case.name in args.names:
            record(case, reg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
