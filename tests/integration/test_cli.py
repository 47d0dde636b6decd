"""The ``tablesvc`` command line as a technician uses it: child processes, real ptys and sockets.

Deck enrollment reads a virtual shoe on a pty exactly as it would read the real shoe on
/dev/ttyUSB0; ``sim`` prints ports that a reader can open and see a hand on; ``replay`` turns a
hand-written journal into the events the hand implies.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.tsp import Frame, encode
from simulators.device import VirtualDevice
from simulators.endpoints import PtyEndpoint
from simulators.tap import FrameTap
from tablesvc.brokers.mosquitto import wait_until
from tablesvc.config.registry import load_decks
from tablesvc.core.commands import COMMANDS
from tablesvc.core.events import EVENT_TYPES
from tests.conftest import ROOT
from tests.helpers import make_deck

pytestmark = pytest.mark.integration

WAIT = 30.0  # only a guard against hanging; nothing here measures time
CLI = [sys.executable, "-m", "tablesvc.commands.cli"]

# New-deck order, written out independently of the code under test
NEW_DECK_ORDER = ([r + "s" for r in "A23456789TJQK"] + [r + "d" for r in "A23456789TJQK"]
                  + [r + "c" for r in "KQJT98765432A"] + [r + "h" for r in "KQJT98765432A"])
SECURE_TYPES = {"hole_cards", "alert_detail", "equity", "hand_history"}  # they reveal hole cards


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT, timeout=WAIT)


# --------------------------------------------------------------------------------------------
# schema


def test_schema_prints_every_event_and_command_with_hole_cards_and_alert_detail_secure() -> None:
    result = run_cli("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    types = {cls.model_fields["type"].default for cls in EVENT_TYPES}
    assert set(schema["events"]) == types
    assert set(schema["commands"]) == set(COMMANDS)
    assert schema["events"]["hole_cards"]["feed"] == "secure"
    assert schema["events"]["alert_detail"]["feed"] == "secure"
    for name, entry in schema["events"].items():
        assert entry["feed"] == ("secure" if name in SECURE_TYPES else "public"), name
        props = entry["schema"]["properties"]
        assert {"v", "venue", "table", "seq", "ts", "hand", "type"} <= set(props), name
    for name, cmd in schema["commands"].items():
        assert cmd["type"] == "object", name
    assert "NEWHAND" in schema["console_buttons"]


# --------------------------------------------------------------------------------------------
# deck enroll


def fresh_uids(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    uids: list[str] = []
    while len(uids) < n:
        uid = f"{rng.getrandbits(64):016X}"
        if uid not in uids:
            uids.append(uid)
    return uids


Shoe = tuple[PtyEndpoint, VirtualDevice]


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[Shoe]:
    endpoint = PtyEndpoint(tmp_path / "dev" / "shoe")
    device = VirtualDevice("shoe", endpoint, "VS-SHOE")
    yield endpoint, device
    device.stop()
    endpoint.close()


class Enrollment:
    """``tablesvc deck enroll`` reading the virtual shoe."""

    def __init__(self, endpoint: PtyEndpoint, out: Path, timeout: float = 10) -> None:
        self.endpoint = endpoint
        self.out = out
        self.proc = subprocess.Popen(
            [*CLI, "deck", "enroll", "--url", endpoint.url, "--out", str(out),
             "--deck-id", "BLUE-0002", "--timeout", str(timeout)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)

    def wait_open(self) -> None:
        """The shoe says HELLO when a reader opens its port: send nothing before that."""
        wait_until(lambda: self.endpoint.connected or self.proc.poll() is not None, WAIT,
                   "deck enroll to open the shoe")
        assert self.proc.poll() is None, self.proc.communicate()

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=WAIT)
        return self.proc.returncode, out, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


Enroll = Callable[..., Enrollment]


@pytest.fixture
def enroll(shoe: Shoe, tmp_path: Path) -> Iterator[Enroll]:
    started: list[Enrollment] = []

    def start(timeout: float = 10) -> Enrollment:
        e = Enrollment(shoe[0], tmp_path / "decks", timeout)
        started.append(e)
        e.wait_open()
        return e

    yield start
    for e in started:
        e.kill()


def draw(device: VirtualDevice, uids: list[str]) -> None:
    for uid in uids:
        device.send("DRAW", uid, "D")


def test_deck_enroll_maps_52_fresh_uids_to_new_deck_order(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    _, device = shoe
    uids = fresh_uids(52, seed=2)
    e = enroll()
    for n, uid in enumerate(uids):
        if n % 13 == 0:  # a shoe keeps beating while the technician feeds it
            device.heartbeat()
            device.send_raw(b"$shoe,9,DRAW,NOTAUID,D*0000\r\n")  # line noise, not a card
        device.send("DRAW", uid, "D")
    code, out, err = e.finish()
    assert code == 0, err
    path = tmp_path / "decks" / "BLUE-0002.json"
    assert f"deck BLUE-0002 enrolled: {path}" in out
    doc = json.loads(path.read_text())
    assert doc == {"deck_id": "BLUE-0002", "cards": dict(zip(uids, NEW_DECK_ORDER, strict=True))}
    assert doc["cards"][uids[0]] == "As" and doc["cards"][uids[12]] == "Ks"
    assert doc["cards"][uids[26]] == "Kc" and doc["cards"][uids[51]] == "Ah"
    assert load_decks(tmp_path / "decks").lookup(uids[13]) == ("BLUE-0002", "Ad")


def test_deck_enroll_refuses_a_repeated_uid_saying_which_and_writes_nothing(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    _, device = shoe
    uids = fresh_uids(30, seed=3)
    e = enroll()
    draw(device, [*uids, uids[7]])
    code, _, err = e.finish()
    assert code == 1
    assert "nothing written" in err
    assert f"UID {uids[7]} was read twice" in err
    assert not (tmp_path / "decks").exists() or list((tmp_path / "decks").iterdir()) == []


def test_deck_enroll_refuses_51_cards_at_the_timeout_and_writes_nothing(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    _, device = shoe
    e = enroll(timeout=6)
    draw(device, fresh_uids(51, seed=4))
    code, _, err = e.finish()
    assert code == 1
    assert "only 51 of 52 cards read before the timeout" in err
    assert "nothing written" in err
    assert not (tmp_path / "decks").exists() or list((tmp_path / "decks").iterdir()) == []


def test_deck_enroll_refuses_a_53rd_card(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    _, device = shoe
    e = enroll()
    draw(device, fresh_uids(53, seed=5))
    code, _, err = e.finish()
    assert code == 1
    assert "more than 52 cards" in err
    assert not (tmp_path / "decks").exists() or list((tmp_path / "decks").iterdir()) == []


def test_deck_enroll_of_a_shoe_unplugged_midway_says_so_without_a_traceback(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    endpoint, device = shoe
    e = enroll()
    draw(device, fresh_uids(10, seed=5))
    time.sleep(0.3)
    endpoint.close()  # the shoe's cable is pulled after ten cards
    code, _, err = e.finish()
    assert code == 1
    assert "went away" in err and "nothing written" in err
    assert "Traceback" not in err
    assert not (tmp_path / "decks").exists() or not any((tmp_path / "decks").iterdir())


def test_deck_enroll_refuses_a_uid_already_enrolled_in_another_deck(
        shoe: Shoe, enroll: Enroll, tmp_path: Path) -> None:
    _, device = shoe
    decks = tmp_path / "decks"
    decks.mkdir()
    red = make_deck("RED-0001", seed=1)
    red_file = decks / "RED-0001.json"
    red_file.write_text(json.dumps({"deck_id": "RED-0001", "cards": red}))
    before = red_file.read_bytes()
    stray = list(red)[20]
    e = enroll()
    draw(device, [*fresh_uids(10, seed=6), stray])
    code, _, err = e.finish()
    assert code == 1
    assert f"UID {stray} already belongs to deck RED-0001" in err
    assert sorted(p.name for p in decks.iterdir()) == ["RED-0001.json"]
    assert red_file.read_bytes() == before


def test_deck_enroll_refuses_a_deck_id_that_is_already_enrolled(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    blue = decks / "BLUE-0002.json"
    blue.write_text(json.dumps({"deck_id": "BLUE-0002", "cards": make_deck("BLUE-0002", 2)}))
    before = blue.read_bytes()
    result = run_cli("deck", "enroll", "--url", "loop://", "--out", str(decks),
                     "--deck-id", "BLUE-0002", "--timeout", "10")
    assert result.returncode == 1
    assert "BLUE-0002 is already enrolled" in result.stderr
    assert blue.read_bytes() == before


# --------------------------------------------------------------------------------------------
# sim


def write_table(folder: Path, devices: str = "") -> Path:
    cfg = folder / "table.toml"
    cfg.write_text(
        '[table]\nvenue = "demo"\nid = "t01"\n'
        f"{devices}"
        '[registry]\ndecks = "decks"\nchips = "chips.json"\n'
        '[[players]]\nseat = 1\nname = "Ann"\nstack = 10000\n'
        '[[players]]\nseat = 2\nname = "Ben"\nstack = 10000\n'
        '[storage]\ndir = "store"\n')
    return cfg


@pytest.mark.parametrize("tcp", [False, True], ids=["pty", "tcp"])
def test_sim_prints_the_device_sections_and_deals_a_hand_on_those_ports(
        tmp_path: Path, tcp: bool) -> None:
    cfg = write_table(tmp_path)
    args = [*CLI, "sim", "--config", str(cfg), "--hands", "1", "--pace", "0", "--wait", "1"]
    proc = subprocess.Popen([*args, "--tcp"] if tcp else args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    taps: dict[str, FrameTap] = {}
    try:
        assert proc.stdout is not None
        printed = ""
        while printed.count("url = ") < 4:  # the device sections come first, then the deal
            line = proc.stdout.readline()
            assert line, f"sim ended early: {proc.communicate(timeout=WAIT)}"
            printed += line
        urls = {name: dev["url"] for name, dev in tomllib.loads(printed)["devices"].items()}
        assert set(urls) == {"shoe", "cards", "chips", "console"}
        for name in ("shoe", "cards", "console"):
            taps[name] = FrameTap(urls[name])  # opened within the --wait, as a service would
        rest, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for tap in taps.values():
            tap.close()
    # what the user pastes into the service's config is valid TOML as printed
    assert tomllib.loads(printed + rest)["devices"].keys() == urls.keys()
    for name, url in urls.items():
        if tcp:
            assert url.startswith("socket://127.0.0.1:"), url
        else:
            assert Path(url).parent == tmp_path / "store" / "sim" / "dev" and url.endswith(name)
    frames = {name: tap.frames for name, tap in taps.items()}
    assert all(f[0].type == "HELLO" for f in frames.values()), frames
    assert any(f.type == "BTN" and f.fields == ("NEWHAND",) for f in frames["console"])
    draws = [f for f in frames["shoe"] if f.type == "DRAW"]
    arrivals = [f for f in frames["cards"] if f.type == "ARR"]
    assert len(draws) >= 4  # two hole cards for each of the two players at least
    assert {f.fields[0] for f in arrivals[:4]} == {"S1", "S2"}
    deck = load_decks(tmp_path / "decks")
    assert all(deck.lookup(f.fields[0]) is not None for f in draws)


# --------------------------------------------------------------------------------------------
# replay


class HandJournal:
    """A journal written by hand: DESIGN §7 lines of TSP/1 frames, 100 ms apart."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seqs: dict[str, int] = {}

    def frame(self, dev: str, ftype: str, *fields: str) -> None:
        seq = self.seqs[dev] = self.seqs.get(dev, -1) + 1
        n = len(self.lines) + 1
        ts = f"2026-11-29T21:00:{n // 10:02d}.{n % 10}00Z"
        raw = encode(Frame(dev, seq, ftype, fields)).decode("ascii").rstrip("\r\n")
        self.lines.append(json.dumps({"ts": ts, "src": dev, "frame": raw}))

    def deal(self, uid: str, zone: str) -> None:
        self.frame("shoe", "DRAW", uid, "D")
        self.frame("cards", "ARR", zone, uid)

    def write(self, path: Path) -> Path:
        path.write_text("".join(line + "\n" for line in self.lines))
        return path


@pytest.fixture
def replay_table(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    deck = make_deck("RED-0001", seed=9)
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "RED-0001.json").write_text(
        json.dumps({"deck_id": "RED-0001", "cards": deck}))
    devices = "".join(f'[devices.{d}]\nurl = "loop://"\n' for d in ("shoe", "cards", "console"))
    return write_table(tmp_path, devices), deck


def heads_up_to_the_flop(deck: dict[str, str]) -> tuple[HandJournal, list[str]]:
    """Button (and small blind) seat 1, big blind seat 2: seat 2 gets the first card."""
    uids = list(deck)
    j = HandJournal()
    j.frame("console", "BTN", "NEWHAND")
    for uid, zone in zip(uids[:4], ["S2", "S1", "S2", "S1"], strict=True):
        j.deal(uid, zone)
    j.deal(uids[4], "BURN")
    for uid in uids[5:8]:
        j.deal(uid, "BOARD")
    for device in ("console", "shoe", "cards"):  # the devices go on: their next heartbeats
        j.frame(device, "HB", "1")  # show nothing was lost, so the alerts stand
    return j, uids


def replay(journal: Path, cfg: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("replay", str(journal), "--config", str(cfg))


def test_replay_of_a_hand_written_journal_prints_the_events_the_hand_implies(
        tmp_path: Path, replay_table: tuple[Path, dict[str, str]]) -> None:
    cfg, deck = replay_table
    j, uids = heads_up_to_the_flop(deck)
    journal = j.write(tmp_path / "journal.jsonl")
    result = replay(journal, cfg)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert all((e["venue"], e["table"]) == ("demo", "t01") for e in events)
    assert sorted(e["device"] for e in events if e["type"] == "device_status") == [
        "cards", "console", "shoe"]
    # the journal has no chip reader and no betting: the blinds never reach their zones and
    # the flop comes while the pre-flop betting is still open — exactly what replay must say
    assert [(e["name"], e["seat"]) for e in events if e["type"] == "alert"] == [
        ("blind_missing", 1), ("blind_missing", 2), ("deal_complete", None),
        ("burn_premature", None), ("premature_card", None)]
    cards = [e for e in events if e["type"] in
             ("hand_started", "card_dealt", "hole_cards", "burn", "board", "hand_ended")]
    assert [e["type"] for e in cards] == [
        "hand_started", "card_dealt", "card_dealt", "card_dealt", "hole_cards", "card_dealt",
        "hole_cards"]  # the premature burn and flop are alerts, not a street
    started = cards[0]
    assert (started["hand"], started["button"], started["big_blind_seat"]) == (1, 1, 2)
    assert {(s["seat"], s["name"], s["stack"]) for s in started["seats"]} == {
        (1, "Ann", 10000), (2, "Ben", 10000)}
    assert [e["seat"] for e in cards if e["type"] == "card_dealt"] == [2, 1, 2, 1]
    assert {e["seat"]: e["cards"] for e in cards if e["type"] == "hole_cards"} == {
        2: [deck[uids[0]], deck[uids[2]]], 1: [deck[uids[1]], deck[uids[3]]]}
    details = [e for e in events if e["type"] == "alert_detail"]
    assert [d["cards"] for d in details][-1] == [deck[uids[5]]]  # evidence, on the secure feed
    assert all(e["hand"] == 1 for e in cards)
    # the events are a function of the journal: the same again, ts and seq included
    assert replay(journal, cfg).stdout == result.stdout


def test_replay_ignores_a_torn_last_line_left_by_a_crash(
        tmp_path: Path, replay_table: tuple[Path, dict[str, str]]) -> None:
    cfg, deck = replay_table
    j, _ = heads_up_to_the_flop(deck)
    whole = replay(j.write(tmp_path / "whole.jsonl"), cfg)
    torn = j.write(tmp_path / "torn.jsonl")
    with open(torn, "a") as f:
        f.write('{"ts": "2026-11-29T21:00:09.900Z", "src": "sh')
    result = replay(torn, cfg)
    assert result.returncode == 0, result.stderr
    assert result.stdout == whole.stdout


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda line: line[:30],  # cut short, whole lines after it
        lambda line: line.replace('"frame"', '"start": "x", "frame"').replace('"shoe"',
                                                                             '"service"'),
    ],
    ids=["torn-json", "wrong-shape"],
)
def test_replay_of_a_journal_with_a_corrupt_middle_line_fails_naming_the_line(
        tmp_path: Path, replay_table: tuple[Path, dict[str, str]],
        corrupt: Callable[[str], str]) -> None:
    cfg, deck = replay_table
    j, _ = heads_up_to_the_flop(deck)
    assert '"src": "shoe"' in j.lines[5]
    j.lines[5] = corrupt(j.lines[5])  # line 6
    journal = j.write(tmp_path / "journal.jsonl")
    result = replay(journal, cfg)
    assert result.returncode == 1
    assert f"{journal}:6:" in result.stderr
    assert "Traceback" not in result.stderr


def test_sim_phh_seats_the_files_players_and_deals_its_hand(tmp_path: Path) -> None:
    from tests.integration.test_sim_phh import HEADS_UP

    cfg = write_table(tmp_path)
    phh = tmp_path / "hand.phh"
    phh.write_text(HEADS_UP)
    proc = subprocess.Popen([*CLI, "sim", "--config", str(cfg), "--phh", str(phh), "--pace",
                             "0", "--wait", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    taps: dict[str, FrameTap] = {}
    try:
        assert proc.stdout is not None
        printed = ""
        while printed.count("stack = ") < 2:
            line = proc.stdout.readline()
            assert line, f"sim ended early: {proc.communicate(timeout=WAIT)}"
            printed += line
        doc = tomllib.loads(printed)
        assert {p["seat"]: p["stack"] for p in doc["players"]} == {4: 5000, 8: 5000}
        taps["cards"] = FrameTap(doc["devices"]["cards"]["url"])
        _, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
        wait_until(lambda: any(f.type == "ARR" and f.fields[0] == "BOARD"
                               for f in taps["cards"].frames), WAIT, "the flop on the wire")
    finally:
        if proc.poll() is None:
            proc.kill()
        for tap in taps.values():
            tap.close()


def test_sim_refuses_a_phh_file_it_cannot_deal(tmp_path: Path) -> None:
    cfg = write_table(tmp_path)
    bad = tmp_path / "bad.phh"
    bad.write_text('variant = "NT"\nactions = ["p9 cbr 100"]\n')
    out = run_cli("sim", "--config", str(cfg), "--phh", str(bad), "--wait", "0")
    assert out.returncode == 2 and "cannot deal" in out.stderr


# --------------------------------------------------------------------------------------------
# chips enroll


def chips_enroll(tmp_path: Path, endpoint: PtyEndpoint, value: int) -> subprocess.Popen[str]:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nvenue = "v"\nid = "t"\n[devices.chips]\nurl = "{endpoint.url}"\n'
                   '[registry]\nchips = "chips.json"\n')
    return subprocess.Popen([*CLI, "chips", "enroll", "--config", str(cfg), "--zone", "TRAY",
                             "--value", str(value), "--timeout", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_chips_enroll_gives_every_chip_in_the_zone_its_value_and_refuses_a_clash(
        tmp_path: Path) -> None:
    endpoint = PtyEndpoint(tmp_path / "dev" / "chips")
    device = VirtualDevice("chips", endpoint, "VS-CHIPS")
    uids = fresh_uids(5, seed=4)
    try:
        for value, expect in ((500, 0), (100, 1)):
            proc = chips_enroll(tmp_path, endpoint, value)
            wait_until(lambda p=proc: endpoint.connected or p.poll() is not None, WAIT,
                       "the chip reader to be opened")
            device.send("CHIPS", "B3", uids[0])  # another zone: not what we enroll
            device.send("CHIPS", "TRAY", " ".join(uids))
            _, err = proc.communicate(timeout=WAIT)
            assert proc.returncode == expect, err
            wait_until(lambda: not endpoint.connected, WAIT, "the port to be closed")
        assert "already enrolled with another value" in err
        doc = json.loads((tmp_path / "chips.json").read_text())
        assert doc == {"chips": dict.fromkeys(uids, 500)}  # the refused run wrote nothing
    finally:
        device.stop()
        endpoint.close()


def test_run_refuses_to_start_on_a_damaged_journal_naming_the_line(
        tmp_path: Path, replay_table: tuple[Path, dict[str, str]]) -> None:
    cfg, deck = replay_table
    j, _ = heads_up_to_the_flop(deck)
    store = tmp_path / "store"
    store.mkdir(exist_ok=True)
    lines = [*j.lines[:3], "{this is not json", *j.lines[3:]]
    (store / "journal.jsonl").write_text("".join(line + "\n" for line in lines))
    out = run_cli("run", "--config", str(cfg), "--log", "json")
    # 2: a restart cannot mend it, so systemd does not loop (RestartPreventExitStatus=2)
    assert out.returncode == 2
    assert "cannot start" in out.stderr and "journal.jsonl:4" in out.stderr


def test_schema_read_by_a_pager_that_quits_early_ends_without_a_traceback() -> None:
    """``tablesvc schema | head``: the reader closes the pipe; the command stops quietly."""
    proc = subprocess.Popen([*CLI, "schema"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)
    proc.stdout.close()  # the pager quits
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) in (0, 141)
    assert "Traceback" not in err
