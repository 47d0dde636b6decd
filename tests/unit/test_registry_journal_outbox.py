"""The service's local files: deck registry (DESIGN §5), input journal (§7) and outbox (§9)."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest

from drivers.tsp import Frame, encode
from tablesvc.config.registry import RegistryError, load_decks
from tablesvc.core.inputs import (
    Command,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceStart,
    Tick,
    input_from_record,
    parse_ts,
    record_of,
)
from tablesvc.pipeline.journal import Journal, JournalError, read_journal
from tablesvc.pipeline.outbox import Message, Outbox
from tests.helpers import make_deck

# --------------------------------------------------------------------------------------------
# deck registry


def write_deck(folder: Path, deck_id: str, cards: dict[str, str], name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name or deck_id}.json"
    path.write_text(json.dumps({"deck_id": deck_id, "cards": cards}))
    return path


def refusal(folder: Path) -> list[str]:
    with pytest.raises(RegistryError) as caught:
        load_decks(folder)
    return caught.value.problems


def test_deck_registry_knows_every_card_of_an_enrolled_deck_by_its_uid(tmp_path: Path) -> None:
    red = make_deck("RED-0001", seed=1)
    write_deck(tmp_path, "RED-0001", red)
    registry = load_decks(tmp_path)
    assert len(registry) == 1
    assert all(registry.lookup(uid) == ("RED-0001", card) for uid, card in red.items())
    assert registry.lookup("0000000000000000") is None


def test_missing_deck_folder_is_an_empty_registry(tmp_path: Path) -> None:
    assert len(load_decks(tmp_path / "no-decks-yet")) == 0


def test_deck_registry_refuses_a_deck_of_51_cards_naming_the_file(tmp_path: Path) -> None:
    short = dict(list(make_deck("RED-0001", seed=1).items())[:51])
    path = write_deck(tmp_path, "RED-0001", short)
    assert refusal(tmp_path) == [f"{path}: has 51 UIDs, a deck has 52"]


def test_deck_registry_refuses_a_card_listed_under_two_uids(tmp_path: Path) -> None:
    cards = make_deck("RED-0001", seed=1)
    uids = list(cards)
    cards[uids[1]] = cards[uids[0]]  # two tags say "As", no tag says "2s"
    path = write_deck(tmp_path, "RED-0001", cards)
    problems = refusal(tmp_path)
    assert problems == [f"{path}: the same card appears under more than one UID"]


def test_deck_file_that_lists_a_uid_twice_is_refused(tmp_path: Path) -> None:
    # JSON keeps only one of two equal keys, so a hand-edited file with a repeated UID has 51
    cards = list(make_deck("RED-0001", seed=1).items())
    cards[1] = (cards[0][0], cards[1][1])  # 52 lines, the first tag typed in twice
    body = ", ".join(f'"{uid}": "{card}"' for uid, card in cards)
    (tmp_path / "RED-0001.json").write_text(f'{{"deck_id": "RED-0001", "cards": {{{body}}}}}')
    problems = refusal(tmp_path)
    assert any("RED-0001.json" in p and "has 51 UIDs" in p for p in problems)


def test_deck_registry_refuses_a_uid_enrolled_in_two_decks(tmp_path: Path) -> None:
    red = make_deck("RED-0001", seed=1)
    blue = make_deck("BLUE-0002", seed=2)
    shared = next(iter(red))
    blue_uids = list(blue)
    blue[shared] = blue.pop(blue_uids[0])  # BLUE's first tag is really one of RED's
    write_deck(tmp_path, "RED-0001", red)
    blue_path = write_deck(tmp_path, "BLUE-0002", blue)
    problems = refusal(tmp_path)
    # one of the two files is named, and the other deck: the installer knows where to look
    assert any(shared in p and "RED-0001" in p and "BLUE-0002" in p for p in problems), problems
    assert all(p.startswith((str(blue_path), str(tmp_path / "RED-0001.json"))) for p in problems)


def test_deck_registry_reports_every_broken_file_not_only_the_first(tmp_path: Path) -> None:
    write_deck(tmp_path, "RED-0001", make_deck("RED-0001", seed=1))
    torn = tmp_path / "BLUE-0002.json"
    torn.write_text('{"deck_id": "BLUE-0002", "ca')
    short = write_deck(tmp_path, "GREEN-0003",
                       dict(list(make_deck("GREEN-0003", seed=3).items())[:51]))
    problems = refusal(tmp_path)
    assert any(p.startswith(f"{torn}: not a deck file") for p in problems)
    assert any(p.startswith(f"{short}: has 51 UIDs") for p in problems)


# --------------------------------------------------------------------------------------------
# journal records

TS = "2026-11-29T21:00:00.123Z"
MS = parse_ts(TS)
DRAW = encode(Frame("shoe", 17, "DRAW", ("E0040150A1B2C301", "D"))).decode().rstrip("\r\n")

EVERY_INPUT: list[Input] = [
    FrameIn(TS, MS, "shoe", DRAW),
    FrameIn(TS, MS, "cards", "$cards,3,ARR,S4,E0040150A1B2C301*0000"),  # bad CRC: kept as is
    FrameIn(TS, MS, "cards", "garbage before a dollar $cards,4,"),
    Command(TS, MS, "seat", {"seat": 3, "name": "Bob", "stack": 10000}),
    Command(TS, MS, "unseat", {}),
    Tick(TS, MS),
    PortChange(TS, MS, "chips", True, ""),
    PortChange(TS, MS, "chips", False, "unplugged"),
    ServiceStart(TS, MS, "1.2.3"),
    PublishRefused(TS, MS, 42, "not authorized"),
]


def test_every_input_type_is_covered_by_the_round_trip_cases() -> None:
    assert {type(i) for i in EVERY_INPUT} == set(typing.get_args(Input))


@pytest.mark.parametrize("inp", EVERY_INPUT, ids=lambda i: type(i).__name__)
def test_journal_record_round_trips_to_the_same_input(inp: Input) -> None:
    line = json.dumps(record_of(inp), ensure_ascii=False)
    assert input_from_record(json.loads(line)) == inp


def test_journal_lines_have_the_design_format_for_frame_cmd_and_tick(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.append(FrameIn(TS, MS, "shoe", DRAW))
    journal.append(Command("2026-11-29T21:00:00.200Z", parse_ts("2026-11-29T21:00:00.200Z"),
                           "seat", {"seat": 3, "name": "Bob", "stack": 10000}))
    journal.append(Tick("2026-11-29T21:00:01.000Z", parse_ts("2026-11-29T21:00:01.000Z")))
    journal.close()
    assert (tmp_path / "journal.jsonl").read_text().splitlines() == [
        '{"ts": "2026-11-29T21:00:00.123Z", "src": "shoe", '
        f'"frame": "{DRAW}"}}',
        '{"ts": "2026-11-29T21:00:00.200Z", "src": "cmd", "cmd": "seat", '
        '"body": {"seat": 3, "name": "Bob", "stack": 10000}}',
        '{"ts": "2026-11-29T21:00:01.000Z", "src": "tick"}',
    ]
    assert DRAW == "$shoe,17,DRAW,E0040150A1B2C301,D*C128"


@pytest.mark.parametrize(
    "record",
    [
        {"src": "shoe", "frame": DRAW},
        {"ts": "2026-11-29 21:00:00", "src": "tick"},
        {"ts": TS, "src": "shoe"},
        {"ts": TS, "src": "cmd", "cmd": "seat", "body": [1, 2]},
        {"ts": TS, "src": "service", "start": "1.2.3"},
        {"ts": TS, "src": "publisher", "refused": [42]},
        [TS, "tick"],
    ],
    ids=["no-ts", "local-time", "neither-frame-nor-port", "body-not-an-object",
         "start-not-an-object", "refused-not-an-object", "not-an-object"],
)
def test_journal_record_that_makes_no_sense_is_refused_with_a_reason(record: Any) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        input_from_record(record)


# --------------------------------------------------------------------------------------------
# journal file


def write_inputs(path: Path, inputs: list[Input]) -> None:
    journal = Journal(path)
    for inp in inputs:
        journal.append(inp)
    journal.commit()
    journal.close()


def test_journal_reopened_after_a_crash_drops_the_torn_line_and_appends_cleanly(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    write_inputs(path, EVERY_INPUT[:3])
    whole = path.read_bytes()
    with open(path, "ab") as f:  # the crash hit in the middle of a line
        f.write(b'{"ts": "2026-11-29T21:00:00.124Z", "src": "sh')
    write_inputs(path, [Tick(TS, MS)])
    assert path.read_bytes() == whole + b'{"ts": "2026-11-29T21:00:00.123Z", "src": "tick"}\n'
    assert list(read_journal(path)) == [*EVERY_INPUT[:3], Tick(TS, MS)]


def test_journal_whose_only_line_is_torn_is_emptied_on_open(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"ts": "2026-11-29T21:00:00.1')
    Journal(path).close()
    assert path.read_bytes() == b""
    assert list(read_journal(path)) == []


def test_journal_torn_line_longer_than_a_disk_block_is_dropped_whole(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    write_inputs(path, [Tick(TS, MS)])
    whole = path.read_bytes()
    with open(path, "ab") as f:
        f.write(b'{"ts": "' + b"x" * 10_000)
    Journal(path).close()
    assert path.read_bytes() == whole


def test_read_journal_skips_a_torn_tail_but_keeps_every_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    write_inputs(path, EVERY_INPUT)
    with open(path, "ab") as f:
        f.write(b'{"ts": "2026-11-29T21:00:00.124Z", "src": "tick"')
    assert list(read_journal(path)) == EVERY_INPUT


def test_read_journal_names_the_line_of_a_corrupt_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    write_inputs(path, EVERY_INPUT[:4])
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = '{"ts": "2026-11-29T21:00:00.123Z", "src": "ca\n'
    path.write_text("".join(lines))
    with pytest.raises(JournalError, match=rf"{path}:3: "):
        list(read_journal(path))


# --------------------------------------------------------------------------------------------
# outbox


def msg(seq: int, route: str = "events") -> Message:
    return Message(seq, route, json.dumps({"seq": seq, "route": route}), 1000 + seq, 1000 + seq)


@pytest.fixture
def outbox(tmp_path: Path) -> typing.Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.sqlite")
    yield box
    box.close()


def test_outbox_adding_the_same_messages_twice_keeps_one_copy(outbox: Outbox) -> None:
    batch = [msg(1), msg(2), msg(2, "alerts"), msg(3, "secure/events")]
    assert outbox.add(batch) == 4
    assert outbox.add(batch) == 0
    assert outbox.unacked_count() == 4
    assert [m.seq for m in outbox.pending("events", 0, 100)] == [1, 2]
    assert outbox.pending("alerts", 0, 100) == [msg(2, "alerts")]


def test_outbox_keeps_the_first_copy_when_a_message_is_added_again(outbox: Outbox) -> None:
    outbox.add([msg(1)])
    outbox.add([Message(1, "events", '{"other": true}', 5, 5)])
    assert outbox.pending("events", 0, 10) == [msg(1)]


def test_outbox_does_not_resend_an_acknowledged_message_added_again(outbox: Outbox) -> None:
    outbox.add([msg(1), msg(2)])
    outbox.ack([(1, "events")], ms=5000)
    outbox.add([msg(1), msg(2), msg(3)])  # a restart hands every event over again
    assert [m.seq for m in outbox.pending("events", 0, 100)] == [2, 3]
    assert outbox.unacked_count() == 2


def test_outbox_pending_is_unacked_in_seq_order_per_route_after_the_cursor(outbox: Outbox) -> None:
    outbox.add([msg(5), msg(3), msg(4, "alerts")])
    outbox.add([msg(1), msg(4), msg(2), msg(6, "secure/events")])
    assert [m.seq for m in outbox.pending("events", 0, 100)] == [1, 2, 3, 4, 5]
    assert [m.seq for m in outbox.pending("events", 2, 100)] == [3, 4, 5]
    assert [m.seq for m in outbox.pending("events", 2, 2)] == [3, 4]
    assert [m.seq for m in outbox.pending("alerts", 0, 100)] == [4]
    assert [m.seq for m in outbox.pending("secure/events", 5, 100)] == [6]
    assert outbox.pending("events", 5, 100) == []


def test_outbox_ack_removes_only_that_route_from_pending_and_keeps_it_for_replay(
        outbox: Outbox) -> None:
    outbox.add([msg(1), msg(2), msg(2, "alerts"), msg(3)])
    outbox.ack([(2, "events"), (1, "events")], ms=5000)
    assert [m.seq for m in outbox.pending("events", 0, 100)] == [3]
    assert [m.seq for m in outbox.pending("alerts", 0, 100)] == [2]  # acked on its own
    assert outbox.unacked_count() == 2
    assert [m.seq for m in outbox.acked_range("events", 1, 2, 100)] == [1, 2]


def test_outbox_unacked_messages_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    box = Outbox(path)
    box.add([msg(1), msg(2), msg(3)])
    box.ack([(1, "events")], ms=5000)
    box.close()
    box = Outbox(path)
    try:
        assert box.pending("events", 0, 100) == [msg(2), msg(3)]
        assert box.high_seq() == 3
    finally:
        box.close()


def test_outbox_high_seq_survives_purge_of_acknowledged_rows(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    box = Outbox(path)
    assert box.high_seq() == 0
    box.add([msg(1), msg(2), msg(3)])
    box.add([msg(4), msg(5), msg(5, "alerts")])
    box.ack([(s, "events") for s in range(1, 5)], ms=5000)
    box.ack([(5, "events"), (5, "alerts")], ms=9000)
    assert box.purge(acked_before_ms=6000) == 4  # retention: only the older acks go
    assert [m.seq for m in box.acked_range("events", 1, 10, 100)] == [5]
    assert box.purge(acked_before_ms=10_000) == 2
    assert box.acked_range("events", 1, 10, 100) == []
    assert box.high_seq() == 5
    box.close()
    box = Outbox(path)
    try:
        assert box.high_seq() == 5
    finally:
        box.close()


def test_outbox_purge_never_drops_an_unacknowledged_message(outbox: Outbox) -> None:
    outbox.add([msg(1), msg(2)])
    outbox.ack([(1, "events")], ms=1000)
    assert outbox.purge(acked_before_ms=10**15) == 1
    assert outbox.pending("events", 0, 100) == [msg(2)]
