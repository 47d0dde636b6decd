"""The input journal (DESIGN §7): every input, appended and synced before it is processed.

Group commit: the service appends a batch of inputs, calls ``commit()`` once (one
``fdatasync``), and only then processes them. A crash can therefore lose only inputs that were
never processed, never one whose events a subscriber has seen.

Layout: the journal is a folder of segments, ``journal/000001.jsonl``, ``000002.jsonl``, …,
each a JSON-lines file in the DESIGN §7 record format. A segment is preallocated to a fixed
size (``SEGMENT_BYTES``) when it is created, so an append never changes the file's size and the
sync of a batch writes the data and nothing else; the rest of a segment is zero bytes, and a
reader stops at the first zero byte (JSON text never contains one: a NUL in a frame is written
as ``\\u0000``). A segment is full when the next line does not fit; the next one is created.

An older install kept one growing ``journal.jsonl`` beside the folder. ``adopt_legacy`` moves it
into the folder as segment ``000000.jsonl``, so that it is replayed first and the folder alone
is the whole journal.

Positions (``Position``: segment number and byte offset) name a point in the journal; a
checkpoint of the core's state (``tablesvc.pipeline.checkpoint``) records the position it
stands for, and ``read_from`` reads the inputs after one. ``commit`` says where each line of
the batch ended (``Committed``), so that the pipeline can name the position right after any
input it applied, and the first input of a new segment.

Retention: ``prune_below`` deletes the segments before a given one; the checkpoint module
decides which (never one that the oldest kept checkpoint still needs).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tablesvc.core.inputs import FrameIn, Input, input_from_record, record_of
from tablesvc.pipeline.durations import SYNC_BUCKETS, Durations

JOURNAL_DIR = "journal"
"""The segments' folder in the storage dir."""
LEGACY_NAME = "journal.jsonl"
"""The single journal file of installs from before segments."""
SEGMENT_SUFFIX = ".jsonl"
SEGMENT_BYTES = 64 << 20
"""Preallocated size of a segment: about 600,000 inputs."""
LEGACY_SEGMENT = 0
FIRST_SEGMENT = 1
_CHUNK = 1 << 20
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*\Z')
"""A frame json.dumps (ensure_ascii off) writes as it is, in quotes: nearly every one."""


class JournalError(ValueError):
    pass


@dataclass(frozen=True, order=True, slots=True)
class Position:
    """A point in the journal: the byte ``offset`` in segment number ``segment``."""

    segment: int
    offset: int


@dataclass(frozen=True, slots=True)
class Committed:
    """Where the lines of one committed batch went: line ``i`` of ``lines`` ends at
    ``position_after(i)``; ``segment_starts`` lists (line index, segment number) for every
    line that opened a new segment."""

    start: Position
    lines: tuple[str, ...]
    segment_starts: tuple[tuple[int, int], ...] = ()

    def position_after(self, i: int) -> Position:
        segment, first, offset = self.start.segment, 0, self.start.offset
        for index, number in self.segment_starts:
            if index > i:
                break
            segment, first, offset = number, index, 0
        size = len("".join(self.lines[first:i + 1]).encode("utf-8"))
        return Position(segment, offset + size)


NOTHING = Committed(Position(0, 0), ())
"""What ``commit`` returns when nothing was appended."""


def segment_name(number: int) -> str:
    return f"{number:06d}{SEGMENT_SUFFIX}"


def list_segments(folder: Path) -> list[tuple[int, Path]]:
    """The segments of a journal folder, in order (other files are ignored)."""
    if not folder.is_dir():
        return []
    out = []
    for p in folder.iterdir():
        stem = p.name.removesuffix(SEGMENT_SUFFIX)
        if p.name.endswith(SEGMENT_SUFFIX) and stem.isdigit() and p.is_file():
            out.append((int(stem), p))
    return sorted(out)


def journal_files(path: Path) -> list[Path]:
    """The files to read, in order, for what ``tablesvc replay`` is given.

    A file (a segment or a legacy journal) is read alone; a segments folder is read whole; a
    storage dir is read as its legacy file (if it was never adopted) and then its segments.
    """
    if not path.is_dir():
        return [path]
    segments = [p for _, p in list_segments(path)]
    if segments:
        return segments
    legacy = path / LEGACY_NAME
    inner = [p for _, p in list_segments(path / JOURNAL_DIR)]
    if legacy.is_file() or inner:
        return ([legacy] if legacy.is_file() else []) + inner
    return []


def read_journal(path: Path) -> Iterator[Input]:
    """The inputs of a journal in order (see ``journal_files`` for what ``path`` may be).

    A line cut short by a crash at the end of the last file is skipped (it was never
    processed); any other damage raises ``JournalError`` naming the file and line.
    """
    files = journal_files(path)
    for i, f in enumerate(files):
        for n, line, whole in _lines(f):
            if not whole:
                if i == len(files) - 1:
                    return  # torn by a crash: never processed
                raise JournalError(f"{f}:{n}: the segment ends in the middle of a line")
            try:
                yield input_from_record(json.loads(line.decode("utf-8")))
            except ValueError as exc:
                raise JournalError(f"{f}:{n}: {exc}") from None


def read_from(folder: Path, start: Position,
              stop: Position | None = None) -> Iterator[tuple[Input, Position]]:
    """The inputs of a segments folder from ``start`` (a record boundary) up to ``stop``
    (excluded; the end of the journal when None), each with the position right after it.

    ``stop`` lets recovery read exactly what was written before this process opened the
    journal, while new inputs are being appended behind it. A line cut short by a crash at
    the very end is skipped, as in ``read_journal``; damage anywhere else raises
    ``JournalError``.
    """
    segments = [(n, p) for n, p in list_segments(folder)
                if n >= start.segment and (stop is None or n <= stop.segment)]
    expected = start.segment
    for number, path in segments:  # a missing segment is a hole in the journal: refuse
        if number != expected:
            raise JournalError(f"{folder / segment_name(expected)}: missing; the journal "
                               f"goes on with {path.name}")
        expected += 1
    for i, (number, path) in enumerate(segments):
        offset = start.offset if number == start.segment else 0
        limit = stop.offset if stop is not None and number == stop.segment else None
        last = i == len(segments) - 1
        for n, line, whole in _lines(path, offset, limit):
            offset += len(line) + 1
            if not whole:
                if last and limit is None:
                    return  # torn by a crash: never processed
                raise JournalError(f"{path}:+{offset - len(line) - 1}: the segment ends in the "
                                   "middle of a line")
            try:
                inp = input_from_record(json.loads(line.decode("utf-8")))
            except ValueError as exc:
                raise JournalError(f"{path}:{n}: {exc}") from None
            yield inp, Position(number, offset)


def journal_end(folder: Path) -> Position:
    """The position after the last whole line of a segments folder (where a writer would go
    on), or the start of segment 1 when there is none."""
    segments = list_segments(folder)
    if not segments:
        return Position(FIRST_SEGMENT, 0)
    number, path = segments[-1]
    return Position(number, whole_end(path))


def last_ts(path: Path) -> str | None:
    """The timestamp of the last whole record of a closed segment (or a legacy journal), or
    None when it has none: what retention by age goes by (the file's mtime would not survive
    a copy of the storage). Read backwards from the end: the padding of a full segment is
    short, and the file is never read whole."""
    with open(path, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        tail = b""
        while end > 0:
            start = max(0, end - (64 << 10))
            f.seek(start)
            chunk = f.read(end - start).rstrip(b"\0")
            end = start
            if chunk or tail:
                tail = chunk + tail
                body = tail[:tail.rfind(b"\n")] if b"\n" in tail else b""
                if b"\n" in body or (body and end == 0):
                    line = body.rsplit(b"\n", 1)[-1]
                    try:
                        ts = json.loads(line.decode("utf-8"))["ts"]
                    except (ValueError, KeyError, TypeError):
                        return None
                    return ts if isinstance(ts, str) else None
    return None


def prune_below(folder: Path, number: int) -> list[int]:
    """Delete every segment numbered below ``number``; returns the numbers deleted. The caller
    (``tablesvc.pipeline.checkpoint.Retention``) made sure a checkpoint stands at the start of
    segment ``number``."""
    gone = []
    for n, path in list_segments(folder):
        if n >= number:
            break
        path.unlink(missing_ok=True)
        gone.append(n)
    if gone:
        _sync_dir(folder)
    return gone


def _lines(path: Path, start: int = 0,
           limit: int | None = None) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line without newline, ended by a newline), up to the first zero byte
    (or byte ``limit``), from byte ``start`` (line numbers then count from there).

    Read in chunks: a segment is mostly zero padding, never loaded whole.
    """
    n = 0
    rest = b""
    left = None if limit is None else max(0, limit - start)
    with open(path, "rb") as f:
        f.seek(start)
        while True:
            chunk = f.read(_CHUNK if left is None else min(_CHUNK, left))
            if left is not None:
                left -= len(chunk)
            if not chunk:
                break
            nul = chunk.find(b"\0")
            if nul >= 0:
                chunk = chunk[:nul]
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                n += 1
                yield n, line, True
            if nul >= 0:
                break
    if rest:
        yield n + 1, rest, False


def whole_end(path: Path) -> int:
    """The end of the last whole line before the first zero byte (or the end) of a file."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return tail_of(fd, os.fstat(fd).st_size)[0]
    finally:
        os.close(fd)


TAIL_WINDOW = 4 << 20
"""How far from the end of its data a segment's reopening looks: more than one batch's write
(the most an unsynced write can have scattered past the end) and than the longest line."""
_BLOCK = 64 << 10


def _zero_block(f: int, at: int, size: int) -> bool:
    chunk = os.pread(f, min(_BLOCK, size - at), at)
    return not chunk.strip(b"\0")


def tail_of(f: int, size: int) -> tuple[int, int]:
    """(end of the last whole line, one past the last non-zero byte) of an open segment,
    without reading it whole: a restart after a power cut finds the page cache cold, and a
    full segment is 64 MiB.

    The data is one run of non-zero bytes from the start; after it come zeros, and maybe
    stray bytes of the last write, which can only lie within one write of the data's end. A
    binary search for the first all-zero block therefore lands within ``TAIL_WINDOW`` of the
    end, and only that window is read. (A file without that shape, such as an older install's
    journal, is read whole.)"""
    blocks = -(-size // _BLOCK)
    lo, hi = 0, blocks  # the first all-zero block, were the blocks ordered
    while lo < hi:
        mid = (lo + hi) // 2
        if _zero_block(f, mid * _BLOCK, size):
            hi = mid
        else:
            lo = mid + 1
    start = max(0, lo * _BLOCK - TAIL_WINDOW)
    stop = min(size, lo * _BLOCK + TAIL_WINDOW)
    window = os.pread(f, stop - start, start)
    nul = window.find(b"\0")
    data = window if nul < 0 else window[:nul]
    nl = data.rfind(b"\n")
    if start and (nl < 0 or len(window) < stop - start):
        return _whole_from_start(f, size)  # not the shape described: read it all
    whole = start + nl + 1
    stray = _last_nonzero(f, whole, stop) if stop < size else _last_nonzero(f, whole, size)
    return whole, stray


def _whole_from_start(f: int, size: int) -> tuple[int, int]:
    whole = end = 0
    while end < size:
        chunk = os.pread(f, min(_CHUNK, size - end), end)
        if not chunk:
            break
        nul = chunk.find(b"\0")
        part = chunk if nul < 0 else chunk[:nul]
        nl = part.rfind(b"\n")
        if nl >= 0:
            whole = end + nl + 1
        end += len(part)
        if nul >= 0:
            break
    return whole, _last_nonzero(f, whole, size)


def _last_nonzero(f: int, start: int, size: int) -> int:
    """One past the last non-zero byte in [start, size) of an open file, or ``start``."""
    last = start
    pos = start
    while pos < size:
        chunk = os.pread(f, min(_CHUNK, size - pos), pos)
        if not chunk:
            break
        stripped = chunk.rstrip(b"\0")
        if stripped:
            last = pos + len(stripped)
        pos += len(chunk)
    return last


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _preallocate(fd: int, size: int) -> None:
    try:
        os.posix_fallocate(fd, 0, size)
    except OSError:  # a file system without fallocate: a sparse file of the same size
        os.ftruncate(fd, size)


def truncate_torn_tail(path: Path) -> None:
    """Cut a legacy journal after its last whole line: a line cut short by a crash was never
    processed. (A segment is repaired by ``Journal`` instead, which keeps its size.)"""
    if not path.exists() or path.stat().st_size == 0:
        return
    whole = whole_end(path)
    if whole != path.stat().st_size:
        with open(path, "rb+") as f:
            f.truncate(whole)
            os.fsync(f.fileno())


def adopt_legacy(storage: Path) -> Path | None:
    """Move an older install's ``journal.jsonl`` into the segments folder as segment 000000.

    Call it after the journal was replayed (so that an error names the file the operator
    knows). Returns the new path, or None when there was nothing to adopt. Refuses (raises
    ``JournalError``) when the folder already has a segment 000000.
    """
    legacy = storage / LEGACY_NAME
    if not legacy.is_file():
        return None
    folder = storage / JOURNAL_DIR
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / segment_name(LEGACY_SEGMENT)
    if target.exists():
        raise JournalError(f"{legacy}: both it and {target} exist; keep the one that belongs "
                           "to this table and move the other away")
    truncate_torn_tail(legacy)
    os.rename(legacy, target)
    _sync_dir(folder)
    _sync_dir(storage)
    return target


class Journal:
    """The writer: appends to the last segment of ``folder``, a new one when it is full.

    Opening repairs what a crash may have left in the last segment: a torn last line, and
    any stray bytes after the end of the data (the unsynced tail of the batch being written
    when the power went, which reached the disk out of order), so that every later append
    reads back as one contiguous run of whole lines.
    """

    def __init__(self, folder: Path, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.folder = folder
        self.segment_bytes = segment_bytes
        folder.mkdir(parents=True, exist_ok=True)
        self._lines: list[str] = []
        self._fd = -1
        self.segment = 0
        self._offset = 0
        self._size = 0
        self.appended = 0
        self.syncs = Durations(SYNC_BUCKETS)
        """How long each batch's sync took: the one wait between a frame and its event."""
        segments = list_segments(folder)
        last = segments[-1] if segments else None
        if last is not None and last[0] != LEGACY_SEGMENT and self._reopen(*last):
            return
        self._new_segment(last[0] + 1 if last is not None else FIRST_SEGMENT)

    # ------------------------------------------------------------------ segments
    def _reopen(self, number: int, path: Path) -> bool:
        """Continue ``path`` if it is a preallocated segment with room left."""
        fd = os.open(path, os.O_RDWR)
        size = os.fstat(fd).st_size
        whole, stray = tail_of(fd, size)
        if stray > whole:  # a torn line, or stray bytes of an unsynced write: never processed
            for at in range(whole, stray, _CHUNK):
                os.pwrite(fd, bytes(min(_CHUNK, stray - at)), at)
            os.fdatasync(fd)
        if whole == 0 and size < self.segment_bytes:  # created, never preallocated: a crash
            _preallocate(fd, self.segment_bytes)
            os.fsync(fd)
            size = os.fstat(fd).st_size
        if size <= whole:  # full, or not preallocated: start the next one
            os.close(fd)
            return False
        self._fd, self.segment, self._offset, self._size = fd, number, whole, size
        return True

    def _new_segment(self, number: int, at_least: int = 0) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        path = self.folder / segment_name(number)
        size = max(self.segment_bytes, at_least)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        _preallocate(fd, size)
        os.fsync(fd)
        _sync_dir(self.folder)
        self._fd, self.segment, self._offset, self._size = fd, number, 0, size

    @property
    def path(self) -> Path:
        """The segment being written."""
        return self.folder / segment_name(self.segment)

    @property
    def position(self) -> Position:
        """Where the next committed line will start (everything before it is durable once
        ``commit`` returned)."""
        return Position(self.segment, self._offset)

    # ------------------------------------------------------------------ writing
    def append(self, inp: Input) -> None:
        if isinstance(inp, FrameIn):
            # the common case, written without building a dict: the same line json.dumps
            # would write (ts and src never need escaping: they are our own ASCII names)
            frame = inp.frame
            text = ('"' + frame + '"' if _PLAIN.match(frame)  # what json.dumps would write
                    else json.dumps(frame, ensure_ascii=False))
            line = f'{{"ts": "{inp.ts}", "src": "{inp.src}", "frame": {text}}}\n'
        else:
            line = json.dumps(record_of(inp), ensure_ascii=False) + "\n"
        self._lines.append(line)
        self.appended += 1

    def commit(self) -> Committed:
        """Make everything appended so far durable: one write and one fdatasync per segment
        the batch touches (one, unless the segment fills up). Says where the lines went."""
        if not self._lines:
            return NOTHING
        lines = self._lines
        data = "".join(lines).encode("utf-8")
        self._lines = []
        start = self.position
        starts: list[tuple[int, int]] = []
        done = 0  # lines written so far
        while data:
            room = self._size - self._offset
            if len(data) <= room:
                self._write(data)
                break
            cut = data.rfind(b"\n", 0, room) + 1  # whole lines only
            if cut:
                self._write(data[:cut])
                done += data.count(b"\n", 0, cut)
                data = data[cut:]
            first = data.find(b"\n") + 1
            self._new_segment(self.segment + 1, at_least=first)
            starts.append((done, self.segment))
        return Committed(start, tuple(lines), tuple(starts))

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.pwrite(self._fd, view, self._offset)
            self._offset += n
            view = view[n:]
        began = time.perf_counter()
        os.fdatasync(self._fd)
        self.syncs.record(time.perf_counter() - began)

    def close(self) -> None:
        if self._fd >= 0:
            self.commit()
            os.close(self._fd)
            self._fd = -1
