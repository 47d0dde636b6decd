"""TSP/1 codec: what the receiver keeps, what it drops, and what it counts."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from drivers import tsp
from drivers.tsp import (
    FRAME_TYPES,
    MAX_FRAME,
    Frame,
    FrameError,
    FrameErrorKind,
    LineSplitter,
    LinkCounters,
    SeqTracker,
    _decode_checked,
    body_of,
    crc16,
    decode,
    encode,
)

UID_A = "E0040150A1B2C301"
UID_B = "E0040150A1B2C302"

SAMPLES = [
    Frame("shoe", 0, "HELLO", ("RS-200", "1.4.2", "TSP1")),
    Frame("chips", 1, "HB", ("123456",)),
    Frame("shoe", 17, "DRAW", (UID_A, "D")),
    Frame("shoe", 18, "DRAW", (UID_B, "U")),
    Frame("shoe", 19, "RET", (UID_A, "T")),
    Frame("shoe", 20, "DECK", (f"{UID_A} {UID_B}",)),
    Frame("cards", 7, "ARR", ("S4", UID_A)),
    Frame("cards", 8, "DEP", ("BOARD", UID_A)),
    Frame("chips", 9, "CHIPS", ("B2", f"{UID_A} {UID_B}")),
    Frame("chips", 10, "CHIPS", ("POT", "")),
    Frame("console", 11, "BTN", ("NEWHAND",)),
    Frame("console", 12, "BTN", ("CHECK", "4")),
    Frame("shoe", 65535, "ERR", ("E12", "jam at exit")),
]


def line_of(body: str, crc: str | None = None) -> bytes:
    """A frame with a correct checksum unless one is given, so only the tested fault differs."""
    check = crc if crc is not None else f"{crc16(body.encode()):04X}"
    return f"${body}*{check}\r\n".encode()


def decode_chunk(chunk: bytes) -> Frame:
    return decode(chunk.decode("latin-1"))


def receive(chunks: list[bytes]) -> tuple[list[Frame], LinkCounters]:
    """What a receiver does with each chunk: keep the frame or count why it was dropped."""
    counters = LinkCounters()
    frames: list[Frame] = []
    for chunk in chunks:
        try:
            frames.append(decode_chunk(chunk))
        except FrameError as exc:
            counters.count_error(exc.kind)
        else:
            counters.ok += 1
    return frames, counters


def feed_all(stream: bytes, piece: int | None) -> list[bytes]:
    """Feed in one go, or ``piece`` bytes at a time, as a serial port may deliver it."""
    splitter = LineSplitter()
    if piece is None:
        return splitter.feed(stream)
    chunks: list[bytes] = []
    for i in range(0, len(stream), piece):
        chunks += splitter.feed(stream[i : i + piece])
    return chunks


def test_crc_of_check_string_is_29b1() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_encode_matches_the_documented_example() -> None:
    line = encode(Frame("shoe", 17, "DRAW", (UID_A, "D")))
    body = b"shoe,17,DRAW,E0040150A1B2C301,D"
    assert line == b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\r\n"


def test_samples_cover_every_frame_type() -> None:
    assert {f.type for f in SAMPLES} == FRAME_TYPES


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f"{f.type}-{f.seq}")
def test_every_frame_type_survives_encode_then_decode(frame: Frame) -> None:
    line = encode(frame)
    assert line.endswith(b"\r\n")
    assert decode(line.decode("ascii").removesuffix("\r\n")) == frame


@pytest.mark.parametrize(
    ("chunk", "kind"),
    [
        (b"noise", FrameErrorKind.GARBAGE),
        (line_of("shoe,1,HB,5", "0000"), FrameErrorKind.BAD_CRC),
        (b"$" + b"x" * MAX_FRAME, FrameErrorKind.TOO_LONG),
        (line_of("shoe,1,WAVE,5"), FrameErrorKind.UNKNOWN_TYPE),
        (b"$shoe,1,HB,5", FrameErrorKind.MALFORMED),  # no checksum
        (line_of("shoe,1,HB"), FrameErrorKind.MALFORMED),  # too few fields
        (line_of("shoe,1,HB,5,6"), FrameErrorKind.MALFORMED),  # too many fields
        (line_of("Shoe,1,HB,5"), FrameErrorKind.MALFORMED),  # device name
        (line_of("shoe,65536,HB,5"), FrameErrorKind.MALFORMED),  # seq out of range
        (line_of("shoe,x,HB,5"), FrameErrorKind.MALFORMED),  # seq not a number
        (line_of("shoe,1,DRAW,e0040150a1b2c301,D"), FrameErrorKind.MALFORMED),  # lower-case uid
        (line_of("shoe,1,DRAW,E0040150A1B2C301,X"), FrameErrorKind.MALFORMED),  # face
        (line_of("shoe,1,HELLO,m,f,TSP2"), FrameErrorKind.MALFORMED),  # protocol version
        (line_of("shoe,1,ERR,E1,a*b"), FrameErrorKind.MALFORMED),  # '*' inside a field
        (line_of("shoe,1,HB,5", f"{crc16(b'shoe,1,HB,5'):04x}"), FrameErrorKind.MALFORMED),
        ("$shoe,1,HB,5é*0000".encode("latin-1"), FrameErrorKind.MALFORMED),  # non-ASCII
    ],
)
def test_decode_names_the_counter_for_each_fault(chunk: bytes, kind: FrameErrorKind) -> None:
    with pytest.raises(FrameError) as err:
        decode_chunk(chunk.removesuffix(b"\r\n"))
    assert err.value.kind is kind


def test_garbage_before_dollar_is_dropped_and_counted_while_next_frame_survives() -> None:
    good = SAMPLES[2]
    frames, counters = receive(LineSplitter().feed(b"\x00\xffline noise" + encode(good)))
    assert frames == [good]
    assert (counters.ok, counters.garbage, counters.bad) == (1, 1, 1)


@pytest.mark.parametrize("piece", [None, 1, 7, 64], ids=["whole", "bytewise", "7", "64"])
def test_bad_lines_in_a_mixed_stream_are_dropped_and_counted_while_good_frames_survive(
    piece: int | None,
) -> None:
    good = [encode(f) for f in SAMPLES]
    stream = b"".join(
        [
            b"boot banner v1.2\r\n",  # garbage before the first '$'
            good[0],
            line_of("shoe,2,HB,5", "0000"),  # bad CRC
            good[1],
            b"$" + b"A" * 2000,  # over-long, and cut off by the next frame
            good[2],
            line_of("shoe,3,DRAW,NOTAUID,D"),  # malformed field
            good[3],
            line_of("shoe,4,WAVE,1"),  # unknown type
            good[4],
            b"$shoe,5,DRAW,E00401",  # truncated: the next frame starts before it ended
            *good[5:],
        ]
    )
    chunks = feed_all(stream, piece)
    assert all(len(c) <= MAX_FRAME + 1 for c in chunks)
    frames, counters = receive(chunks)
    assert frames == SAMPLES
    assert counters.ok == len(SAMPLES)
    assert (counters.garbage, counters.bad_crc, counters.too_long) == (1, 1, 1)
    assert (counters.malformed, counters.unknown_type) == (2, 1)


def test_overlong_run_without_line_end_is_cut_counted_once_and_next_frame_survives() -> None:
    good = SAMPLES[6]
    splitter = LineSplitter()
    chunks = splitter.feed(b"$")
    for _ in range(10):  # 10 KB of one frame that never ends: memory must stay bounded
        chunks += splitter.feed(b"B" * 1024)
    chunks += splitter.feed(b"\r\n" + encode(good))
    assert all(len(c) <= MAX_FRAME + 1 for c in chunks)
    frames, counters = receive(chunks)
    assert frames == [good]
    assert (counters.too_long, counters.bad) == (1, 1)


def test_frame_split_byte_by_byte_still_decodes() -> None:
    frame = SAMPLES[8]
    splitter = LineSplitter()
    chunks: list[bytes] = []
    for byte in encode(frame):
        chunks += splitter.feed(bytes([byte]))
    assert [decode_chunk(c) for c in chunks] == [frame]


def test_frame_split_at_every_position_still_decodes() -> None:
    line = encode(SAMPLES[2]) + encode(SAMPLES[3])
    for cut in range(1, len(line)):
        splitter = LineSplitter()
        chunks = splitter.feed(line[:cut]) + splitter.feed(line[cut:])
        assert [decode_chunk(c) for c in chunks] == SAMPLES[2:4], cut


def test_flush_hands_out_a_frame_cut_off_when_the_stream_ends() -> None:
    splitter = LineSplitter()
    assert splitter.feed(encode(SAMPLES[1]) + b"$shoe,9,DR") != []
    assert splitter.flush() == [b"$shoe,9,DR"]
    assert splitter.flush() == []
    assert [decode_chunk(c) for c in splitter.feed(encode(SAMPLES[2]))] == [SAMPLES[2]]


def _track(seqs: list[int], types: list[str] | None = None) -> tuple[list[bool], LinkCounters]:
    tracker, counters = SeqTracker(), LinkCounters()
    kinds = types or ["HB"] * len(seqs)
    fresh = [
        tracker.check(Frame("shoe", s, t, ("1",) if t == "HB" else ("m", "f", "TSP1")), counters)
        for s, t in zip(seqs, kinds, strict=True)
    ]
    return fresh, counters


def test_seq_gap_counts_the_missing_frames_as_lost() -> None:
    fresh, counters = _track([5, 6, 10])
    assert fresh == [True, True, True]
    assert (counters.lost, counters.duplicate) == (3, 0)


def test_seq_repeat_is_a_duplicate_and_is_not_processed() -> None:
    fresh, counters = _track([5, 6, 6, 7])
    assert fresh == [True, True, False, True]
    assert (counters.lost, counters.duplicate) == (0, 1)


def test_seq_wraps_from_65535_to_0_without_loss() -> None:
    fresh, counters = _track([65534, 65535, 0, 1])
    assert fresh == [True] * 4
    assert (counters.lost, counters.duplicate) == (0, 0)


def test_hello_restarts_the_sequence_without_counting_a_gap() -> None:
    fresh, counters = _track([500, 501, 0, 1], ["HB", "HB", "HELLO", "HB"])
    assert fresh == [True] * 4
    assert (counters.lost, counters.duplicate) == (0, 0)


@pytest.mark.parametrize("char", ["$", ",", "*", "\r", "\n"], ids=repr)
def test_encode_refuses_a_field_containing_a_delimiter(char: str) -> None:
    with pytest.raises(ValueError, match="contains"):
        encode(Frame("console", 1, "BTN", (f"NEW{char}HAND",)))


@pytest.mark.parametrize(
    "frame",
    [
        Frame("Shoe", 1, "HB", ("1",)),
        Frame("shoe", 65536, "HB", ("1",)),
        Frame("shoe", 1, "HB,X", ("1",)),
        Frame("shoe", 1, "ERR", ("E1", "x" * MAX_FRAME)),
    ],
    ids=["device-name", "seq", "type-with-comma", "too-long"],
)
def test_encode_refuses_a_frame_no_receiver_could_parse(frame: Frame) -> None:
    with pytest.raises(ValueError):
        encode(frame)


def _mutations(rng: random.Random, n: int) -> list[str]:
    """Lines near good frames: a character changed, added or removed, a field swapped for a
    value of another type, the checksum recomputed or not, so every check gets its turn."""
    alphabet = "$,*\r\n \x00é09afAFGZz-_:SBTUDR" + UID_A
    values = ["", "S4", "B2", "POT", "TSP1", "D", "U", "T", "B", "123", "-1", "x", UID_A,
              UID_A.lower(), f"{UID_A} {UID_B}", f"{UID_A}  {UID_B}", f" {UID_A}", f"{UID_A} ",
              UID_A[:15], UID_A + "0", "NEWHAND", "a*b", "a$b", "é", "65535", "65536", "0x1A"]
    bodies = [body_of(f) for f in SAMPLES] + [
        "cards-2,3,ARR,BOARD," + UID_B, "c,00017,BTN,CHECK,4,5", "chips,1,CHIPS,TRAY,",
        "shoe,5,DECK,", "shoe,5,HB,0"]
    out: list[str] = []
    for _ in range(n):
        parts = rng.choice(bodies).split(",")
        for _ in range(rng.choice((0, 1, 1, 2))):
            i = rng.randrange(len(parts))
            parts[i] = rng.choice(values) if rng.random() < 0.7 else parts[i] + rng.choice(values)
        if rng.random() < 0.2:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(values))
        if rng.random() < 0.1 and len(parts) > 1:
            parts.pop(rng.randrange(len(parts)))
        body = ",".join(parts)
        crc = f"{crc16(body.encode('utf-8')):04X}"
        if rng.random() < 0.1:
            crc = rng.choice([crc.lower(), "0000", crc[:3], crc + "0", "+1AB", "0x1A"])
        line = f"${body}*{crc}"
        if rng.random() < 0.3:
            chars = list(line)
            i = rng.randrange(len(chars) + 1)
            op = rng.random()
            if op < 0.4 and i < len(chars):
                chars[i] = rng.choice(alphabet)
            elif op < 0.7:
                chars.insert(i, rng.choice(alphabet))
            elif i < len(chars):
                del chars[i]
            line = "".join(chars)
        if rng.random() < 0.01:
            line = line + "X" * rng.choice((MAX_FRAME - len(line) - 2, MAX_FRAME - len(line) - 1))
        out.append(line)
    return out


def _outcome(fn: Callable[[str], Frame], line: str) -> tuple[str, object]:
    try:
        frame = fn(line)
    except FrameError as err:
        return "error", (err.kind, str(err))
    return "frame", (frame, type(frame), [type(v) for v in frame.fields])


def test_the_short_way_for_common_frames_keeps_and_drops_exactly_what_the_full_checks_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``decode`` takes good common frames a faster way; on any line it must give the frame
    the complete checks give, or fail with the same counter and message."""
    lines = _mutations(random.Random(9), 30_000)
    long_way: list[str] = []

    def checked(line: str) -> Frame:
        long_way.append(line)
        return _decode_checked(line)

    monkeypatch.setattr(tsp, "_decode_checked", checked)
    outcomes = [_outcome(decode, line) for line in lines]
    monkeypatch.undo()
    assert outcomes == [_outcome(_decode_checked, line) for line in lines]
    kinds = {o[1][0] for o in outcomes if o[0] == "error"}  # type: ignore[index]
    assert kinds == set(FrameErrorKind)
    frames = sum(o[0] == "frame" for o in outcomes)
    assert frames > 5_000
    assert len(lines) - len(long_way) > frames // 2, "most good frames took the short way"
    assert {o[1][0].type for o in outcomes if o[0] == "frame"} == FRAME_TYPES  # type: ignore[index]


def test_a_decoded_frame_is_the_frozen_frame_its_fields_make() -> None:
    line = encode(SAMPLES[6]).decode().rstrip("\r\n")
    frame = decode(line)
    assert frame == SAMPLES[6] and hash(frame) == hash(SAMPLES[6])
    assert repr(frame) == repr(SAMPLES[6])
    with pytest.raises(AttributeError):
        frame.seq = 1  # type: ignore[misc]
