"""The service's local files: deck registry (DESIGN §5), input journal (§7) and outbox (§9)."""

from __future__ import annotations

import doctest
import json
import os
import stat
import time
import typing
from pathlib import Path
from typing import Any

import pytest

from drivers.tsp import Frame, encode
from tablesvc.config.registry import RegistryError, load_decks, write_json_atomic
from tablesvc.core.inputs import (
    Command,
    EquityResult,
    FrameIn,
    Input,
    PortChange,
    PublishRefused,
    ServiceResumed,
    ServiceStart,
    Tick,
    input_from_record,
    parse_ts,
    record_of,
)
from tablesvc.pipeline import durations
from tablesvc.pipeline.durations import Durations
from tablesvc.pipeline.journal import (
    JOURNAL_DIR,
    LEGACY_NAME,
    SEGMENT_BYTES,
    Journal,
    JournalError,
    Position,
    adopt_legacy,
    list_segments,
    read_journal,
)
from tablesvc.pipeline.outbox import GATHER_S, Message, Outbox, OutboxError
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
    assert refusal(tmp_path) == [f"{path}: cards: has 51 UIDs, a deck has 52"]


def test_deck_registry_refuses_a_card_listed_under_two_uids(tmp_path: Path) -> None:
    cards = make_deck("RED-0001", seed=1)
    uids = list(cards)
    cards[uids[1]] = cards[uids[0]]  # two tags say "As", no tag says "2s"
    path = write_deck(tmp_path, "RED-0001", cards)
    problems = refusal(tmp_path)
    # the two UIDs are named, so the installer can find the mistyped line
    assert problems == [f"{path}: cards: the same card under more than one UID: "
                        f"As under {uids[0]} and {uids[1]}"]


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
    assert any(p.startswith(f"{short}: cards: has 51 UIDs") for p in problems)


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
    ServiceResumed(TS, MS, 47_000),
    PublishRefused(TS, MS, 42, "not authorized"),
    EquityResult(TS, MS, 7, 3, {"street": "flop", "method": "exact", "samples": 990,
                                "error": None, "dead": 1,
                                "seats": [{"seat": 1, "win": 25.56, "tie": 0.0}]}),
]


def test_every_input_type_is_covered_by_the_round_trip_cases() -> None:
    assert {type(i) for i in EVERY_INPUT} == set(typing.get_args(Input))


@pytest.mark.parametrize("inp", EVERY_INPUT, ids=lambda i: type(i).__name__)
def test_journal_record_round_trips_to_the_same_input(inp: Input) -> None:
    line = json.dumps(record_of(inp), ensure_ascii=False)
    assert input_from_record(json.loads(line)) == inp


def data_of(segment: Path) -> bytes:
    """A segment's bytes before its zero padding."""
    return segment.read_bytes().split(b"\0", 1)[0]


def test_journal_lines_have_the_design_format_for_frame_cmd_and_tick(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    journal.append(FrameIn(TS, MS, "shoe", DRAW))
    journal.append(Command("2026-11-29T21:00:00.200Z", parse_ts("2026-11-29T21:00:00.200Z"),
                           "seat", {"seat": 3, "name": "Bob", "stack": 10000}))
    journal.append(Tick("2026-11-29T21:00:01.000Z", parse_ts("2026-11-29T21:00:01.000Z")))
    journal.close()
    assert data_of(tmp_path / "journal" / "000001.jsonl").decode().splitlines() == [
        '{"ts": "2026-11-29T21:00:00.123Z", "src": "shoe", '
        f'"frame": "{DRAW}"}}',
        '{"ts": "2026-11-29T21:00:00.200Z", "src": "cmd", "cmd": "seat", '
        '"body": {"seat": 3, "name": "Bob", "stack": 10000}}',
        '{"ts": "2026-11-29T21:00:01.000Z", "src": "tick"}',
    ]
    assert DRAW == "$shoe,17,DRAW,E0040150A1B2C301,D*C128"


def test_journal_writes_any_bytes_a_port_delivered_as_json_writes_them(tmp_path: Path) -> None:
    """Quotes, backslashes, control characters and bytes beyond ASCII in a line off the wire
    are journalled exactly as JSON writes them, and read back to the same input."""
    lines = [DRAW, 'a "quoted" \\ line', "tab\tcr\rnul\x00", "\x7f\x80\xff latin-1", "", "é"]
    journal = Journal(tmp_path / "journal")
    for line in lines:
        journal.append(FrameIn(TS, MS, "cards", line))
    journal.close()
    written = data_of(tmp_path / "journal" / "000001.jsonl").decode().splitlines()
    assert written == [json.dumps(record_of(FrameIn(TS, MS, "cards", line)), ensure_ascii=False)
                       for line in lines]
    assert [i.frame for i in read_journal(tmp_path / "journal")
            if isinstance(i, FrameIn)] == lines


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


def write_inputs(folder: Path, inputs: list[Input], segment_bytes: int = SEGMENT_BYTES) -> None:
    journal = Journal(folder, segment_bytes)
    for inp in inputs:
        journal.append(inp)
    journal.commit()
    journal.close()


def test_a_segment_is_preallocated_so_appends_never_change_its_size(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    journal = Journal(folder, segment_bytes=64 * 1024)
    segment = folder / "000001.jsonl"
    assert segment.stat().st_size == 64 * 1024
    for inp in EVERY_INPUT:
        journal.append(inp)
        journal.commit()
        assert segment.stat().st_size == 64 * 1024
    assert journal.position == Position(1, len(data_of(segment)))
    journal.close()
    assert list(read_journal(segment)) == EVERY_INPUT
    assert segment.read_bytes()[len(data_of(segment)):] == bytes(64 * 1024 - len(data_of(segment)))


def test_each_batch_made_durable_counts_one_sync_and_an_empty_commit_none(
        tmp_path: Path) -> None:
    # the metrics endpoint shows these: every event waits for exactly one of them
    journal = Journal(tmp_path / "journal", segment_bytes=64 * 1024)
    for inp in EVERY_INPUT[:3]:
        journal.append(inp)
        journal.commit()
    journal.commit()  # nothing appended: nothing to wait for
    assert journal.syncs.count == 3
    assert journal.syncs.cumulative()[-1] == (float("inf"), 3)
    assert journal.syncs.total > 0


def test_the_sync_histogram_puts_each_duration_in_the_bucket_prometheus_would() -> None:
    assert doctest.testmod(durations).failed == 0
    d = Durations((0.001, 0.002))
    for seconds in (0.001, 0.0011, 0.002, 5.0):  # a bound belongs to its own bucket ("le")
        d.record(seconds)
    assert d.cumulative() == [(0.001, 1), (0.002, 3), (float("inf"), 4)]
    assert d.over(0.001) == 3
    with pytest.raises(ValueError, match="increasing order"):
        Durations((0.002, 0.001))


def test_the_default_segment_is_64_mib() -> None:
    assert SEGMENT_BYTES == 64 * 1024 * 1024


def test_journal_and_outbox_are_readable_by_the_service_only(tmp_path: Path) -> None:
    # with the deck registry the journal tells every hole card; the outbox holds secure events
    Journal(tmp_path / "journal").close()
    Outbox(tmp_path / "outbox.sqlite").close()
    assert (tmp_path / "journal" / "000001.jsonl").stat().st_mode & 0o077 == 0
    assert (tmp_path / "outbox.sqlite").stat().st_mode & 0o077 == 0


def test_a_full_segment_continues_in_the_next_and_the_folder_reads_back_in_order(
        tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    inputs = [Tick(f"2026-11-29T21:00:{i:02d}.000Z", parse_ts(f"2026-11-29T21:00:{i:02d}.000Z"))
              for i in range(60)]
    journal = Journal(folder, segment_bytes=1024)  # 20 ticks of 51 bytes to a segment
    for inp in inputs[:30]:
        journal.append(inp)
    journal.commit()  # one batch across a segment boundary
    for inp in inputs[30:]:
        journal.append(inp)
        journal.commit()
    journal.close()
    names = [p.name for _, p in list_segments(folder)]
    assert names == ["000001.jsonl", "000002.jsonl", "000003.jsonl"]
    for _, p in list_segments(folder):
        assert p.stat().st_size == 1024
        assert data_of(p).endswith(b"\n")  # no line is split over two segments
    assert list(read_journal(folder)) == inputs
    assert list(read_journal(folder / "000002.jsonl")) == inputs[20:40]


def test_a_line_longer_than_a_segment_gets_a_segment_of_its_own(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    big = Command(TS, MS, "seat", {"seat": 3, "name": "B" * 3000, "stack": 1})
    write_inputs(folder, [Tick(TS, MS), big, Tick(TS, MS)], segment_bytes=1024)
    assert list(read_journal(folder)) == [Tick(TS, MS), big, Tick(TS, MS)]


def test_journal_reopened_after_a_crash_drops_the_torn_line_and_appends_cleanly(
        tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    segment = folder / "000001.jsonl"
    write_inputs(folder, EVERY_INPUT[:3])
    whole = data_of(segment)
    with open(segment, "rb+") as f:  # the crash hit in the middle of a line
        f.seek(len(whole))
        f.write(b'{"ts": "2026-11-29T21:00:00.124Z", "src": "sh')
    assert list(read_journal(folder)) == EVERY_INPUT[:3]  # the torn line was never processed
    write_inputs(folder, [Tick(TS, MS)])
    assert data_of(segment) == whole + b'{"ts": "2026-11-29T21:00:00.123Z", "src": "tick"}\n'
    assert list(read_journal(folder)) == [*EVERY_INPUT[:3], Tick(TS, MS)]
    assert [p.name for _, p in list_segments(folder)] == ["000001.jsonl"]


def test_bytes_of_an_unsynced_write_left_after_the_padding_are_cleared_on_open(
        tmp_path: Path) -> None:
    # pages of the batch being written when the power went can reach the disk out of order:
    # zeros, then a stray piece of a line; a later append must not run into it
    folder = tmp_path / "journal"
    segment = folder / "000001.jsonl"
    write_inputs(folder, EVERY_INPUT[:2])
    whole = data_of(segment)
    with open(segment, "rb+") as f:
        f.seek(len(whole) + 4096)
        f.write(b'c": "tick"}\n{"ts": "2026-11-29T21:00:00.125Z", "src": "tick"}\n')
    assert list(read_journal(folder)) == EVERY_INPUT[:2]
    long_line = Command(TS, MS, "seat", {"seat": 3, "name": "N" * 5000, "stack": 1})
    write_inputs(folder, [long_line, Tick(TS, MS)])
    assert list(read_journal(folder)) == [*EVERY_INPUT[:2], long_line, Tick(TS, MS)]


def test_journal_whose_only_line_is_torn_starts_empty(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    Journal(folder).close()
    with open(folder / "000001.jsonl", "rb+") as f:
        f.write(b'{"ts": "2026-11-29T21:00:00.1')
    assert list(read_journal(folder)) == []
    journal = Journal(folder)
    assert journal.position == Position(1, 0)
    journal.close()
    assert data_of(folder / "000001.jsonl") == b""


def test_journal_torn_line_longer_than_a_read_chunk_is_dropped_whole(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    segment = folder / "000001.jsonl"
    write_inputs(folder, [Tick(TS, MS)])
    whole = data_of(segment)
    with open(segment, "rb+") as f:
        f.seek(len(whole))
        f.write(b'{"ts": "' + b"x" * (3 << 20))
    Journal(folder).close()
    assert data_of(segment) == whole


def test_read_journal_stops_at_the_padding_and_skips_a_torn_tail(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    write_inputs(folder, EVERY_INPUT)
    segment = folder / "000001.jsonl"
    with open(segment, "rb+") as f:
        f.seek(len(data_of(segment)))
        f.write(b'{"ts": "2026-11-29T21:00:00.124Z", "src": "tick"')
    assert list(read_journal(segment)) == EVERY_INPUT


def test_read_journal_names_the_file_and_line_of_a_corrupt_record(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    write_inputs(folder, EVERY_INPUT[:4])
    segment = folder / "000001.jsonl"
    lines = data_of(segment).decode().splitlines(keepends=True)
    lines[2] = '{"ts": "2026-11-29T21:00:00.123Z", "src": "ca\n'
    segment.write_text("".join(lines))
    with pytest.raises(JournalError, match=rf"{segment}:3: "):
        list(read_journal(folder))


def test_a_segment_that_is_not_the_last_may_not_end_in_a_torn_line(tmp_path: Path) -> None:
    folder = tmp_path / "journal"
    write_inputs(folder, [Tick(TS, MS)] * 30, segment_bytes=1024)
    first = folder / "000001.jsonl"
    with open(first, "rb+") as f:
        f.seek(len(data_of(first)))
        f.write(b'{"ts": "2026')
    with pytest.raises(JournalError, match=rf"{first}:21: .*middle of a line"):
        list(read_journal(folder))


def legacy_journal(storage: Path, inputs: list[Input], torn: bytes = b"") -> Path:
    """A journal.jsonl as an install from before segments wrote it: one growing file."""
    storage.mkdir(parents=True, exist_ok=True)
    path = storage / LEGACY_NAME
    path.write_text("".join(json.dumps(record_of(i), ensure_ascii=False) + "\n"
                            for i in inputs), encoding="utf-8")
    with open(path, "ab") as f:
        f.write(torn)
    return path


def test_a_legacy_single_file_journal_is_read_as_it_is(tmp_path: Path) -> None:
    path = legacy_journal(tmp_path, EVERY_INPUT, torn=b'{"ts": "2026-11-29T21:00:00.124Z"')
    assert list(read_journal(path)) == EVERY_INPUT
    assert list(read_journal(tmp_path)) == EVERY_INPUT  # the storage dir: legacy first


def test_an_adopted_legacy_journal_is_segment_zero_and_replays_before_the_new_segments(
        tmp_path: Path) -> None:
    legacy = legacy_journal(tmp_path, EVERY_INPUT[:4], torn=b'{"ts": "2026-11-29T21:00:0')
    # before it is adopted, a storage dir reads the legacy file, then the segments
    assert list(read_journal(tmp_path)) == EVERY_INPUT[:4]
    adopted = adopt_legacy(tmp_path)
    assert adopted == tmp_path / JOURNAL_DIR / "000000.jsonl"
    assert not legacy.exists()
    assert adopted.read_bytes().endswith(b"\n")  # the torn line is cut on the way
    assert adopt_legacy(tmp_path) is None
    write_inputs(tmp_path / JOURNAL_DIR, EVERY_INPUT[4:])
    assert [p.name for _, p in list_segments(tmp_path / JOURNAL_DIR)] == [
        "000000.jsonl", "000001.jsonl"]  # segment 0 is never appended to
    assert list(read_journal(tmp_path / JOURNAL_DIR)) == EVERY_INPUT
    assert list(read_journal(tmp_path)) == EVERY_INPUT


def test_adopting_a_legacy_journal_beside_a_segment_zero_is_refused(tmp_path: Path) -> None:
    legacy_journal(tmp_path, EVERY_INPUT[:2])
    adopt_legacy(tmp_path)
    legacy_journal(tmp_path, EVERY_INPUT[2:4])  # an older version was started again
    with pytest.raises(JournalError, match="both"):
        adopt_legacy(tmp_path)


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


# --------------------------------------------------------------------------------------------
# the outbox's writer thread: what the pipeline and the publisher post, recorded off their way


@pytest.fixture
def writing(tmp_path: Path) -> typing.Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.sqlite")
    box.start()
    yield box
    box.close()


def test_posted_messages_are_recorded_by_the_writer_in_order_of_posting(writing: Outbox) -> None:
    writing.post([msg(1), msg(2), msg(2, "alerts")])
    writing.post([msg(3, "secure/events")])
    assert writing.flush()
    assert [m.seq for m in writing.pending("events", 0, 10)] == [1, 2]
    assert writing.pending("alerts", 0, 10) == [msg(2, "alerts")]
    assert writing.high_seq() == writing.written_seq == 3


def test_the_writer_gathers_a_stream_of_posts_into_few_transactions(writing: Outbox) -> None:
    # a transaction per frame of a fast table wrote the disk hard enough to slow the
    # journal's syncs, which every event waits for
    posts = 200
    began = time.monotonic()
    for seq in range(1, posts + 1):
        writing.post([msg(seq)])
        writing.post_acks([(seq, "events")], ms=2000)
        time.sleep(0.002)
    assert writing.flush()
    took = time.monotonic() - began
    assert writing.transactions <= took / GATHER_S + 2  # not one per post
    assert writing.pending("events", 0, posts + 1) == []  # every message and ack is there
    assert writing.acked_range("events", 1, posts, posts + 1) == [
        msg(s) for s in range(1, posts + 1)]


def test_an_ack_posted_right_after_its_message_is_never_lost(writing: Outbox) -> None:
    for seq in range(1, 201):  # message and ack in the same batch of the writer, or not
        writing.post([msg(seq)])
        writing.post_acks([(seq, "events")], ms=5000 + seq)
    assert writing.flush()
    assert writing.unacked_count() == 0
    assert [m.seq for m in writing.acked_range("events", 1, 200, 500)] == list(range(1, 201))


def test_closing_the_outbox_writes_everything_posted_before(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    box = Outbox(path)
    box.start()
    box.post([msg(s) for s in range(1, 1001)])
    box.post_acks([(s, "events") for s in range(1, 501)], ms=5000)
    box.close()
    box = Outbox(path)
    try:
        assert box.high_seq() == 1000
        assert [m.seq for m in box.pending("events", 0, 2000)] == list(range(501, 1001))
    finally:
        box.close()


def test_a_writer_that_fails_is_reported_to_the_pipeline(writing: Outbox) -> None:
    bad = Message(1, "events", typing.cast(str, object()), 0, 0)  # cannot be stored
    writing.post([bad])
    assert not writing.flush(timeout=5)
    with pytest.raises(OutboxError, match="could not be written"):
        writing.check()
    with pytest.raises(OutboxError):
        writing.post([msg(2)])


@pytest.mark.parametrize("seed", range(12))
def test_reopening_a_long_segment_finds_its_end_as_a_full_read_would_without_reading_it_whole(
        tmp_path: Path, seed: int) -> None:
    """A restart after a power cut reads the newest segment from a cold disk: only the end of
    its data is looked at, and the result is the same as reading it all — with a torn last
    line, and with stray pieces of the last unsynced write past the padding."""
    import os
    import random

    from tablesvc.pipeline.journal import TAIL_WINDOW, _whole_from_start, tail_of

    rng = random.Random(seed)
    size = 24 << 20
    line = b'{"ts": "2026-11-29T21:00:00.123Z", "src": "tick"}\n'
    data = line * (rng.randrange(0, size - 2 * TAIL_WINDOW) // len(line))
    path = tmp_path / "000001.jsonl"
    with open(path, "wb") as f:
        f.truncate(size)
        f.write(data)
        if rng.random() < 0.5:
            f.write(line[: rng.randrange(1, len(line))])  # torn
        for _ in range(rng.randrange(0, 4)):  # scattered pages of the last write
            f.seek(len(data) + rng.randrange(4096, 2 << 20))
            f.write(line[rng.randrange(len(line)):] + line * rng.randrange(3))
    fd = os.open(path, os.O_RDONLY)
    try:
        assert tail_of(fd, size) == _whole_from_start(fd, size)
        assert tail_of(fd, size)[0] == len(data)
    finally:
        os.close(fd)


def test_a_registry_file_is_private_and_belongs_to_its_folders_owner(tmp_path: Path) -> None:
    # enrolled with sudo, a deck file must still be readable by the service's own user, who
    # owns the registry folder; and by nobody else
    folder = tmp_path / "decks"
    folder.mkdir()
    owner = os.geteuid()
    if owner == 0:  # root may give files away: the folder is "nobody"'s, as a service user's
        owner = 65534
        os.chown(folder, owner, owner)
    target = folder / "RED-0001.json"
    write_json_atomic(target, {"deck_id": "RED-0001", "cards": {}})
    st = target.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert st.st_uid == owner
