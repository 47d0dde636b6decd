"""PHH hand histories dealt on the virtual table, read back from the wire.

Each hand runs at pace 0 on devices that record every frame in order (no ptys). The frames are
decoded here and told as a story (antes into the pot, each bet zone's new round total, checks,
folds, burns and board cards), which must be the story the PHH file tells when read by this
test's own small interpreter: the file, not the simulator, is the reference.
"""

from __future__ import annotations

import random
import threading
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pokerkit import Automation, HandHistory

from drivers.tsp import decode
from simulators.decks import make_chipset
from simulators.endpoints import Recorder
from simulators.phh import dumps_phh, load_phh, loads_phh, script_from_record
from simulators.script import ScriptError
from simulators.table import HandRecord, VirtualTable
from simulators.virtual import recorded_table

Event = tuple[object, ...]

# A four-handed no-limit hand with antes: a raise, a re-raise, a short all-in that does not
# reopen the betting, a side pot and an uncalled bet. p1..p4 sit in seats 2, 5, 7, 9; seat 9
# holds the button. The main pot goes to p3's straight, the side pot to p2's three sevens.
RING = """\
variant = "NT"
antes = [25, 25, 25, 25]
blinds_or_straddles = [50, 100, 0, 0]
min_bet = 100
starting_stacks = [3000, 10000, 1200, 8000]
actions = [
  "d dh p1 AsKs", "d dh p2 7c7d", "d dh p3 QhJh", "d dh p4 AhAd",
  "p3 cbr 300",  # UTG raises
  "p4 cbr 900",  # the button re-raises by 600
  "p1 f",
  "p2 cc",
  "p3 cbr 1175",  # all-in, 275 more: not a full raise
  "p4 cc",
  "p2 cc",
  "d db 2c7hKd",
  "p2 cc", "p4 cbr 2000", "p2 cc",
  "d db 9s",
  "p2 cbr 6000",
  "p4 cc",  # all-in for 4800: 1200 of the bet goes back
  "d db Ts",
  "p2 sm 7c7d", "p4 sm AhAd", "p3 sm QhJh",
]
players = ["Ann", "Ben", "Cy", "Di"]
seats = [2, 5, 7, 9]
seat_count = 10
finishing_stacks = [2925, 15600, 3675, 0]
"""

# Heads-up: p1 (seat 4) is the big blind, p2 (seat 8) the button and small blind.
HEADS_UP = """\
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [5000, 5000]
actions = [
  "d dh p1 8s8h", "d dh p2 KcQc",
  "p2 cbr 250", "p1 cbr 700", "p2 cc",
  "d db 3c9dJh",
  "p1 cc", "p2 cbr 500", "p1 f",
]
seats = [4, 8]
finishing_stacks = [4300, 5700]
"""

# Fixed-limit, three-handed: four bets pre-flop (the big blind is the first), big bets later.
FIXED = """\
variant = "FT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
small_bet = 100
big_bet = 200
starting_stacks = [4000, 4000, 4000]
actions = [
  "d dh p1 Td9d", "d dh p2 AcQs", "d dh p3 5h5s",
  "p3 cbr 200", "p1 cbr 300", "p2 cbr 400", "p3 cc", "p1 cc",
  "d db 8d7c2h",
  "p1 cbr 100", "p2 cc", "p3 cbr 200", "p1 cc", "p2 cc",
  "d db Ks",
  "p1 cc", "p2 cbr 200", "p3 f", "p1 cbr 400", "p2 cc",
  "d db 6d",
  "p1 cbr 200", "p2 f",
]
"""

# The first televised million-dollar pot (Full Tilt Million Dollar Cash Game, 2009): Ivey (p1),
# Antonius (p2, cards never shown), Dwan (p3). Both all-in players show before the river.
TELEVISED = """\
variant = "NT"
ante_trimming_status = true
antes = [500, 500, 500]
blinds_or_straddles = [1000, 2000, 0]
min_bet = 2000
starting_stacks = [1125600, 2000000, 553500]
actions = [
  "d dh p1 Ac2d",  # Ivey
  "d dh p2 ????",  # Antonius
  "d dh p3 7h6h",  # Dwan
  "p3 cbr 7000", "p1 cbr 23000", "p2 f", "p3 cc",
  "d db Jc3d5c",
  "p1 cbr 35000", "p3 cc",
  "d db 4h",
  "p1 cbr 90000", "p3 cbr 232600", "p1 cbr 1067100", "p3 cc",
  "p1 sm Ac2d", "p3 sm 7h6h",
  "d db Jh",
]
players = ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
finishing_stacks = [572100, 1997500, 1109500]
"""


# the wire, decoded ---------------------------------------------------------------------------


@dataclass
class Wire:
    story: list[Event] = field(default_factory=list)
    hole: dict[int, list[str]] = field(default_factory=dict)


def read_wire(frames: list[tuple[str, bytes]], table: VirtualTable) -> Wire:
    """What the frames of one hand say happened, up to the push of the pot."""
    deck, values = table.deck, table.chip_values
    wire = Wire()
    started = pushed = False
    bets: dict[int, int] = {}
    pot = 0
    mucked: dict[int, int] = {}
    for _, raw in frames:
        f = decode(raw.decode("ascii").rstrip("\r\n"))
        if f.type == "BTN" and f.fields[0] == "NEWHAND":
            started = True
        if not started or pushed:
            continue
        if f.type == "BTN" and f.fields[0] == "CHECK":
            wire.story.append(("check", int(f.fields[1])))
        elif f.type == "ARR":
            zone, card = f.fields[0], deck[f.fields[1]]
            if zone.startswith("S"):
                wire.hole.setdefault(int(zone[1:]), []).append(card)
            elif zone == "BURN":
                wire.story.append(("burn",))
            elif zone == "BOARD":
                wire.story.append(("board", card))
            elif zone == "MUCK":
                seat = next(s for s, cards in wire.hole.items() if card in cards)
                mucked[seat] = mucked.get(seat, 0) + 1
                if mucked[seat] == 2:
                    wire.story.append(("fold", seat))
        elif f.type == "CHIPS":
            zone = f.fields[0]
            value = sum(values[u] for u in f.fields[1].split())
            if zone == "POT":
                if value < pot:
                    pushed = True
                elif not bets and value > pot:
                    wire.story.append(("antes", value))
                pot = value
            else:
                seat = int(zone[1:])
                if value > bets.get(seat, 0):
                    wire.story.append(("bet", seat, value))
                bets[seat] = value
    return wire


# the file, read by a small interpreter of its own ---------------------------------------------


def expected(text: str) -> tuple[list[Event], dict[int, list[str]]]:
    """The story a PHH hold'em file tells (equal antes only; heads-up blinds reversed)."""
    doc = tomllib.loads(text)
    stacks = list(doc["starting_stacks"])
    n = len(stacks)
    seats = doc.get("seats", list(range(1, n + 1)))
    story: list[Event] = []
    antes = [min(a, s) for a, s in zip(doc["antes"], stacks, strict=True)]
    if n == 2:
        antes.reverse()
    if any(antes):
        story.append(("antes", sum(antes)))
    stacks = [s - a for s, a in zip(stacks, antes, strict=True)]
    bets = [0] * n
    blinds = doc["blinds_or_straddles"]
    posts = [(1, blinds[1]), (0, blinds[0])] if n == 2 else [(0, blinds[0]), (1, blinds[1])]
    if n == 2:
        posts = [(1, blinds[0]), (0, blinds[1])]  # the button (p2) posts the small blind
    for i, amount in posts:
        bets[i] = min(amount, stacks[i])
        stacks[i] -= bets[i]
        story.append(("bet", seats[i], bets[i]))
    hole: dict[int, list[str]] = {}
    for action in doc["actions"]:
        words = action.split("#")[0].split()
        if words[:2] == ["d", "dh"]:
            hole[seats[int(words[2][1:]) - 1]] = [words[3][:2], words[3][2:]]
            continue
        if words[:2] == ["d", "db"]:
            story.append(("burn",))
            story.extend(("board", words[2][i : i + 2]) for i in range(0, len(words[2]), 2))
            bets = [0] * n
            continue
        p, verb = int(words[0][1:]) - 1, words[1]
        if verb == "f":
            story.append(("fold", seats[p]))
        elif verb == "cbr" or (verb == "cc" and max(bets) > bets[p]):
            total = int(words[2]) if verb == "cbr" else min(max(bets), bets[p] + stacks[p])
            stacks[p] -= total - bets[p]
            bets[p] = total
            story.append(("bet", seats[p], total))
        elif verb == "cc":
            story.append(("check", seats[p]))
    return story, hole


def pokerkit_stacks(text: str) -> list[int]:
    """pokerkit's result for a file (NT and FT), its showdown shows left to pokerkit."""
    hh = HandHistory.loads(
        text, automations=(*HandHistory.automations, Automation.HOLE_CARDS_SHOWING_OR_MUCKING)
    )
    hh.actions = [a for a in hh.actions if a.split("#")[0].split()[1:2] != ["sm"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, final = iter(hh)
    return list(final.stacks)


def deal(text: str, tmp_path: Path, **table: object) -> tuple[HandRecord, Wire, VirtualTable]:
    path = tmp_path / "hand.phh"
    path.write_text(text, encoding="utf-8")
    t, frames = recorded_table({1: 1000, 2: 1000}, seed=9, **table)
    mark = len(frames)
    record = t.play_script(load_phh(path))
    return record, read_wire(frames[mark:], t), t


def assert_dealt_as_written(text: str, record: HandRecord, wire: Wire) -> None:
    story, hole = expected(text)
    assert wire.story == story
    for seat, cards in hole.items():
        if "?" not in "".join(cards):
            assert wire.hole[seat] == cards
    doc = tomllib.loads(text)
    board = "".join(a.split()[2] for a in doc["actions"] if a.startswith("d db"))
    assert "".join(record.board) == board
    if "finishing_stacks" in doc:
        seats = doc.get("seats", list(range(1, len(doc["starting_stacks"]) + 1)))
        assert [record.stacks_after[s] for s in seats] == doc["finishing_stacks"]


# the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [RING, HEADS_UP, FIXED], ids=["ring", "heads-up", "fixed"])
def test_a_phh_file_is_dealt_exactly_and_the_wire_tells_its_story(
    text: str, tmp_path: Path
) -> None:
    record, wire, _ = deal(text, tmp_path)
    assert_dealt_as_written(text, record, wire)
    seats = tomllib.loads(text).get("seats", [1, 2, 3])
    assert [record.stacks_after[s] for s in seats] == pokerkit_stacks(text)


def test_ring_hand_pots_and_actions(tmp_path: Path) -> None:
    record, _, table = deal(RING, tmp_path)
    assert record.button == 9 and record.seats == (2, 5, 7, 9)
    assert (record.small_blind_seat, record.big_blind_seat) == (2, 5)
    assert record.antes == dict.fromkeys((2, 5, 7, 9), 25)
    assert [(p.amount, p.eligible, p.shares) for p in record.pots] == [
        (3675, (5, 7, 9), {7: 3675}),
        (13600, (5, 9), {5: 13600}),
    ]
    assert record.returned == {5: 1200}  # the uncalled part of the turn bet went back
    preflop = [(a.seat, a.action, a.to, a.all_in) for a in record.street_actions("preflop")]
    assert preflop[6:] == [  # after four antes and two blinds
        (7, "raise", 300, False), (9, "raise", 900, False), (2, "fold", 50, False),
        (5, "call", 900, False), (7, "raise", 1175, True), (9, "call", 1175, False),
        (5, "call", 1175, False),
    ]  # fmt: skip
    assert table.seated() == [2, 5, 7]  # seat 9 lost everything
    assert table.button == 2


def test_a_televised_hand_with_unknown_cards_deals_and_settles_like_the_record(
    tmp_path: Path,
) -> None:
    big = make_chipset(random.Random(3), {100: 100, 500: 100, 1000: 100, 5000: 100,
                                          25000: 100, 100000: 40})  # fmt: skip
    record, wire, _ = deal(TELEVISED, tmp_path, chips=big, small_blind=1000, big_blind=2000)
    assert_dealt_as_written(TELEVISED, record, wire)
    assert record.hole_cards[1] == ("Ac", "2d") and record.hole_cards[3] == ("7h", "6h")
    assert [record.stacks_after[s] for s in (1, 2, 3)] == pokerkit_stacks(TELEVISED)


def test_random_hands_on_the_wire_are_the_hands_the_table_recorded() -> None:
    rng = random.Random(21)
    for i in range(40):
        seats = {s: rng.choice([600, 3000, 15000]) for s in rng.sample(range(1, 11), 2 + i % 9)}
        table, frames = recorded_table(seats, seed=i, aggression=0.5, ante=25 * (i % 3 == 0),
                                       limit=("no-limit", "pot-limit", "fixed-limit")[i % 3])
        mark = len(frames)
        record = table.play_hand()
        text = dumps_phh(script_from_record(record))
        wire = read_wire(frames[mark:], table)
        assert_dealt_as_written(text, record, wire)
        assert {s: tuple(c) for s, c in wire.hole.items()} == record.hole_cards


def test_a_refused_script_sends_nothing_and_names_the_problem(tmp_path: Path) -> None:
    bad = HEADS_UP.replace('"p2 cbr 250", "p1 cbr 700"', '"p2 cbr 250", "p1 cbr 300"')
    table, frames = recorded_table({1: 1000, 2: 1000}, seed=1)
    mark = len(frames)
    with pytest.raises(ScriptError, match="p1 cbr 300"):
        table.play_script(loads_phh(bad))
    assert len(frames) == mark


def test_rig_deals_a_phh_file_in_the_background(tmp_path: Path) -> None:
    from simulators.virtual import VirtualTableRig

    recorder = Recorder()
    with VirtualTableRig(tmp_path / "sim", seats={1: 5000, 2: 5000}, pace=0, heartbeat=None,
                         chip_refresh=None, recorder=recorder, seed=4) as rig:  # fmt: skip
        assert rig.device_urls()["shoe"] == "memory://shoe"
        records: list[HandRecord] = []
        (tmp_path / "hand.phh").write_text(RING)
        dealer = rig.start_script(load_phh(tmp_path / "hand.phh"), on_hand=records.append)
        dealer.join(10)
        assert not dealer.is_alive()
        wire = read_wire(recorder.snapshot(), rig.table)
    assert_dealt_as_written(RING, records[0], wire)
    assert isinstance(dealer, threading.Thread)
