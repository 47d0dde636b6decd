"""TSP/1, the Table Sensor Protocol: bytes <-> frames.

The framer is kept apart from the transport (as in pymodbus): this module knows how frames look
on the wire and nothing about ports or poker. A frame is an ASCII line

    $<dev>,<seq>,<type>[,<field>...]*<CRC>\\r\\n

whose CRC is CRC-16/CCITT-FALSE of the bytes strictly between ``$`` and ``*``.

>>> line = encode(Frame("shoe", 17, "DRAW", ("E0040150A1B2C301", "D")))
>>> line
b'$shoe,17,DRAW,E0040150A1B2C301,D*C128\\r\\n'
>>> decode(line.decode().rstrip())
Frame(dev='shoe', seq=17, type='DRAW', fields=('E0040150A1B2C301', 'D'))
"""

from __future__ import annotations

import binascii
import re
from binascii import crc_hqx
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

MAX_FRAME = 1024
"""Longest frame in bytes, ``$`` and CRLF included."""

SEQ_MOD = 65536

_DEV_RE = re.compile(r"[a-z0-9-]{1,16}\Z")
_UID_RE = re.compile(r"[0-9A-F]{16}\Z")
_CRC_RE = re.compile(r"[0-9A-F]{4}\Z")
_FORBIDDEN = frozenset("$,*\r\n")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0).

    ``binascii.crc_hqx`` is exactly this CRC when seeded with 0xFFFF, and runs in C, which
    matters at tens of thousands of frames a second.

    >>> f"{crc16(b'123456789'):04X}"
    '29B1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


class FrameErrorKind(StrEnum):
    """Why a received line was dropped; each kind has its own counter."""

    GARBAGE = "garbage"  # bytes that did not start with '$'
    TOO_LONG = "too_long"
    BAD_CRC = "bad_crc"
    MALFORMED = "malformed"
    UNKNOWN_TYPE = "unknown_type"


class FrameError(ValueError):
    """A line that is not a valid TSP/1 frame. ``kind`` selects the counter."""

    def __init__(self, kind: FrameErrorKind, reason: str) -> None:
        super().__init__(f"{kind.value}: {reason}")
        self.kind = kind
        self.reason = reason


def _is_uid(value: str) -> bool:
    return _UID_RE.match(value) is not None


_UID_LIST_RE = re.compile(r"(?:[0-9A-F]{16}(?: [0-9A-F]{16})*)?\Z")


def _uid_list(value: str) -> bool:
    return _UID_LIST_RE.match(value) is not None


def _seat_zone(value: str) -> bool:
    return bool(value)  # delimiters were already refused for the whole body


def _int(value: str) -> bool:
    return value.isdigit()


def _face(value: str) -> bool:
    return value in ("D", "U")


def _where(value: str) -> bool:
    return value in ("T", "B")


def _any(value: str) -> bool:
    return True


# type -> (minimum field count, maximum field count or None, validators for the leading fields)
_SPEC: dict[str, tuple[int, int | None, tuple[Callable[[str], bool], ...]]] = {
    "HELLO": (3, 3, (_any, _any, lambda v: v == "TSP1")),
    "HB": (1, 1, (_int,)),
    "DRAW": (2, 2, (_is_uid, _face)),
    "RET": (2, 2, (_is_uid, _where)),
    "DECK": (1, 1, (_uid_list,)),
    "ARR": (2, 2, (_seat_zone, _is_uid)),
    "DEP": (2, 2, (_seat_zone, _is_uid)),
    "CHIPS": (2, 2, (_seat_zone, _uid_list)),
    "BTN": (1, None, (_seat_zone,)),
    "ERR": (2, 2, (_any, _any)),
}

FRAME_TYPES = frozenset(_SPEC)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame. ``fields`` are kept as strings; meaning belongs to the consumer."""

    dev: str
    seq: int
    type: str
    fields: tuple[str, ...] = ()


_object_new = object.__new__
_set_dev, _set_seq, _set_type, _set_fields = (
    getattr(Frame, name).__set__ for name in ("dev", "seq", "type", "fields"))


def _new_frame(dev: str, seq: int, ftype: str, fields: tuple[str, ...]) -> Frame:
    """``Frame(dev, seq, ftype, fields)`` at half the cost.

    A frozen dataclass's ``__init__`` stores each field through ``object.__setattr__``,
    which here cost as much as the rest of a frame's decoding; the slots' own descriptors
    store the same values directly. The frame is the same, frozen and equal to one built by
    ``Frame(...)``.
    """
    frame: Frame = _object_new(Frame)
    _set_dev(frame, dev)
    _set_seq(frame, seq)
    _set_type(frame, ftype)
    _set_fields(frame, fields)
    return frame


def body_of(frame: Frame) -> str:
    return ",".join((frame.dev, str(frame.seq), frame.type, *frame.fields))


def encode(frame: Frame) -> bytes:
    """The frame as it goes on the wire, CRLF included. Refuses what no receiver could parse.

    A type outside ``FRAME_TYPES`` is still encoded, so that simulators can inject one.
    """
    if not _DEV_RE.match(frame.dev):
        raise ValueError(f"device name {frame.dev!r} is not [a-z0-9-]{{1,16}}")
    if not 0 <= frame.seq < SEQ_MOD:
        raise ValueError(f"seq {frame.seq} is outside 0..65535")
    if not frame.type or any(c in _FORBIDDEN for c in frame.type):
        raise ValueError(f"frame type {frame.type!r} is empty or contains one of $ , * CR LF")
    for f in frame.fields:
        if any(c in _FORBIDDEN for c in f):
            raise ValueError(f"field {f!r} contains one of $ , * CR LF")
    body = body_of(frame).encode("ascii")
    line = b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\r\n"
    if len(line) > MAX_FRAME:
        raise ValueError(f"frame of {len(line)} bytes exceeds {MAX_FRAME}")
    return line


def decode(line: str) -> Frame:
    """Parse one received line (without CRLF). Raises FrameError with the counter to bump.

    Nearly every line on a table's links is a good frame of a common type, so such a frame
    takes a short way: slices, one split, the CRC in C and a few string tests, with the UIDs
    and device names already seen looked up instead of matched again. Whatever the short way
    does not accept goes through ``_decode_checked``, which runs every check in the order the
    counters and messages depend on. The short way only accepts what ``_decode_checked``
    accepts, and builds the same frame (``tests/unit/test_tsp.py`` compares the two on
    random lines), so it changes nothing but the time.
    """
    if line[-5:-4] == "*" and line[:1] == "$" and len(line) <= _LONGEST:
        body = line[1:-5]
        # "%04X" % crc is the text f"{crc:04X}" gives, built in half the time
        if (body.isascii() and line[-4:] == "%04X" % crc_hqx(body.encode(), 0xFFFF)  # noqa: UP031
                and "$" not in body and "*" not in body and "\r" not in body
                and "\n" not in body):
            parts = body.split(",")
            if len(parts) >= 3:
                dev, seq_s, ftype, *fields = parts
                if _fast_fields(ftype, fields) and seq_s.isdigit() and (
                        dev in _DEVS or _remember(_DEVS, dev, _DEV_RE.match(dev) is not None)):
                    seq = int(seq_s)
                    if seq < SEQ_MOD:
                        return _new_frame(dev, seq, ftype, tuple(fields))
    return _decode_checked(line)


def _fast_fields(ftype: str, f: list[str]) -> bool:
    """The field checks of ``_SPEC`` for the common types; False sends a line the long way."""
    n = len(f)
    if ftype == "ARR" or ftype == "DEP":
        return n == 2 and f[0] != "" and (f[1] in _UIDS or _remember(_UIDS, f[1], _is_uid(f[1])))
    if ftype == "BTN":
        return n >= 1 and f[0] != ""
    if ftype == "DRAW":
        return n == 2 and (f[1] == "D" or f[1] == "U") and (
            f[0] in _UIDS or _remember(_UIDS, f[0], _is_uid(f[0])))
    if ftype == "CHIPS":
        return n == 2 and f[0] != "" and (
            f[1] == "" or f[1] in _LISTS or _remember(_LISTS, f[1], _uid_list(f[1])))
    if ftype == "HB":
        return n == 1 and f[0].isdigit()
    return False


_LONGEST = MAX_FRAME - 2
"""The longest line the decoder takes: its CRLF was cut off."""

_UIDS: set[str] = set()
_LISTS: set[str] = set()
_DEVS: set[str] = set()
"""Values that passed their regular expression once: tags, chip stacks and device names
repeat all session long. Each set is emptied when full (``_remember``), so memory stays
bounded (about 1 MB at most) and a line of values never seen costs what it always did."""
_CACHE_SIZE = {id(_UIDS): 4096, id(_LISTS): 512, id(_DEVS): 64}


def _remember(cache: set[str], value: str, valid: bool) -> bool:
    """``valid``, after adding ``value`` to ``cache`` when it is."""
    if valid:
        if len(cache) >= _CACHE_SIZE[id(cache)]:
            cache.clear()
        cache.add(value)
    return valid


def _decode_checked(line: str) -> Frame:
    """Every check of a line in order: the first one it fails names its counter."""
    if not line.startswith("$"):
        raise FrameError(FrameErrorKind.GARBAGE, f"{len(line)} bytes outside a frame")
    if len(line) + 2 > MAX_FRAME:
        raise FrameError(FrameErrorKind.TOO_LONG, f"{len(line) + 2} bytes > {MAX_FRAME}")
    star = line.rfind("*")
    if star < 0 or len(line) - star != 5:
        raise FrameError(FrameErrorKind.MALFORMED, "no *XXXX checksum at the end")
    body, crc_s = line[1:star], line[star + 1 :]
    # int(x, 16) alone would also take "c128", "0x1A", "+1AB" or "1_AB"
    if not _CRC_RE.match(crc_s):
        raise FrameError(FrameErrorKind.MALFORMED, "checksum is not 4 uppercase hex digits")
    try:
        raw = body.encode("ascii")
    except UnicodeEncodeError:
        raise FrameError(FrameErrorKind.MALFORMED, "non-ASCII bytes") from None
    if "$" in body or "*" in body or "\r" in body or "\n" in body:
        raise FrameError(FrameErrorKind.MALFORMED, "a field contains one of $ * CR LF")
    want = int(crc_s, 16)
    got = crc16(raw)
    if got != want:
        raise FrameError(FrameErrorKind.BAD_CRC, f"checksum {want:04X}, computed {got:04X}")
    parts = body.split(",")
    if len(parts) < 3:
        raise FrameError(FrameErrorKind.MALFORMED, "fewer than dev,seq,type")
    dev, seq_s, ftype, *fields = parts
    if not _DEV_RE.match(dev):
        raise FrameError(FrameErrorKind.MALFORMED, "device name not [a-z0-9-]{1,16}")
    if not seq_s.isdigit() or int(seq_s) >= SEQ_MOD:
        raise FrameError(FrameErrorKind.MALFORMED, "seq not a number 0..65535")
    spec = _SPEC.get(ftype)
    if spec is None:
        raise FrameError(FrameErrorKind.UNKNOWN_TYPE, f"frame type {ftype[:16]!r}")
    lo, hi, checks = spec
    if len(fields) < lo or (hi is not None and len(fields) > hi):
        raise FrameError(FrameErrorKind.MALFORMED, f"{ftype} with {len(fields)} fields")
    for check, value in zip(checks, fields, strict=False):
        if not check(value):
            raise FrameError(FrameErrorKind.MALFORMED, f"{ftype} field {value[:20]!r} is invalid")
    return Frame(dev, int(seq_s), ftype, tuple(fields))


class LineSplitter:
    """Cuts a byte stream into candidate frame lines, resynchronising on ``$``.

    Every byte received ends up in exactly one returned chunk, so that the input journal can
    hold bad frames too. A chunk is a complete ``$...`` line without CRLF, or the bytes before
    a ``$`` (garbage), or an over-long run, cut to ``MAX_FRAME`` + 1 bytes so memory stays
    bounded: its length alone tells the decoder it was too long.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        buf = self._buf
        buf += data
        while buf:
            if self._overflow:
                # discard the rest of an over-long frame up to the next '$' or line end
                cut = _first_of(buf, b"$", b"\n")
                if cut < 0:
                    buf.clear()
                    break
                del buf[: cut + (1 if buf[cut : cut + 1] == b"\n" else 0)]
                self._overflow = False
                continue
            if buf[0:1] != b"$":
                dollar = buf.find(b"$")
                if dollar < 0:
                    nl = buf.find(b"\n")
                    if nl < 0 and len(buf) <= MAX_FRAME:
                        break  # may be cut in the middle; wait for more
                    dollar = nl + 1 if nl >= 0 else len(buf)
                chunk = bytes(buf[:dollar]).strip(b"\r\n")
                if chunk:
                    out.append(chunk[: MAX_FRAME + 1])
                del buf[:dollar]
                continue
            nl = buf.find(b"\n")
            nxt = buf.find(b"$", 1)
            if nxt >= 0 and (nl < 0 or nxt < nl):
                # a new frame starts before this one ended: this one is truncated
                out.append(bytes(buf[:nxt]).rstrip(b"\r")[: MAX_FRAME + 1])
                del buf[:nxt]
                continue
            if nl < 0:
                if len(buf) > MAX_FRAME:
                    out.append(bytes(buf[: MAX_FRAME + 1]))
                    del buf[:]
                    self._overflow = True
                break
            line = bytes(buf[:nl]).rstrip(b"\r")
            del buf[: nl + 1]
            out.append(line if len(line) <= MAX_FRAME else line[: MAX_FRAME + 1])
        return out

    def flush(self) -> list[bytes]:
        """Hand out the unterminated rest and start afresh.

        For when the stream ends (port closed, device unplugged mid-frame): the cut-off frame
        still reaches the journal and the counters, and cannot glue onto the next connection's
        first line.
        """
        rest = bytes(self._buf).strip(b"\r\n")
        overflow = self._overflow
        self._buf.clear()
        self._overflow = False
        if overflow or not rest:  # an over-long run was already handed out when it overflowed
            return []
        return [rest[: MAX_FRAME + 1]]


def _first_of(buf: bytearray, a: bytes, b: bytes) -> int:
    ia, ib = buf.find(a), buf.find(b)
    if ia < 0:
        return ib
    if ib < 0:
        return ia
    return min(ia, ib)


@dataclass(slots=True)
class LinkCounters:
    """What a device link has seen; published with every device_status."""

    ok: int = 0
    bad_crc: int = 0
    malformed: int = 0
    too_long: int = 0
    garbage: int = 0
    unknown_type: int = 0
    lost: int = 0
    duplicate: int = 0

    @property
    def bad(self) -> int:
        return self.bad_crc + self.malformed + self.too_long + self.garbage + self.unknown_type

    def count_error(self, kind: FrameErrorKind) -> None:
        setattr(self, kind.value, getattr(self, kind.value) + 1)


class SeqTracker:
    """Per-device sequence check: a gap counts lost frames, a repeat is a retransmission.

    ``HELLO`` restarts the sequence (the device rebooted), so it is never a gap.
    """

    def __init__(self) -> None:
        self._last: int | None = None

    def check(self, frame: Frame, counters: LinkCounters) -> bool:
        """True when the frame is new and should be processed."""
        last = self._last
        if frame.type == "HELLO" or last is None:
            self._last = frame.seq
            return True
        if frame.seq == last:
            counters.duplicate += 1
            return False
        gap = (frame.seq - last - 1) % SEQ_MOD
        counters.lost += gap
        self._last = frame.seq
        return True

    def reset(self) -> None:
        self._last = None
