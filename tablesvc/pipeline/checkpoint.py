"""Checkpoints of the table's state, so that a restart replays minutes of journal, not a day.

A checkpoint is the whole core (``TableCore``) as ``pickle`` writes it, beside the journal
position it stands for: the state after every input before that position. Pickle copies the
object graph as it is, whatever the core's classes hold, so loading a checkpoint and replaying
the journal after it gives the very events a replay from the journal's start gives
(``tests/unit/test_checkpoint.py`` proves it on the golden journals and long random sessions
of both games). Nothing here knows the core's fields: the core may change its insides freely.

When one is taken (``Service.process``, on the pipeline thread, which is the only one that may
read the core): right after an input whose events include ``hand_ended`` (``ends_a_hand``): the
hand has said everything, so the state holds no half-played hand and a restart resumes between
hands. (A hand that never ended by itself is ended by the next NEWHAND, whose events then
hold its ``hand_ended``: the checkpoint falls just after that NEWHAND, one per hand still.) The
boundary is read from the core's published events, not from its fields, so the core may
change its insides freely. Also before the first input of each journal segment (what
retention keeps, and what ``tablesvc replay`` of one segment starts from); after
``EVERY_INPUTS`` inputs without either (a long break, a long hand: recovery stays short
whatever happens); at the end of a long recovery; and at a clean stop. Pickling takes about a
millisecond; the file is written by ``Writer``'s thread, so the journal's ``fdatasync`` stays
the only disk sync an event waits for.

Which are synced: a checkpoint at a segment start, at the end of a recovery and at a clean stop
is made durable (the file and the folder synced) before the next step, and so is the first one
of a run and then one at least every ``DURABLE_EVERY_S``. The others, one at every hand's end,
are written and renamed without a sync: their syncs would share the file system's commits
with the journal's ``fdatasync`` of the frames arriving meanwhile, and nothing needs them on
the disk at once. A process that dies leaves them whole in the kernel's cache; only a power
cut can tear one, and then its checksum refuses it and recovery takes the newest durable one,
which retention never deletes before a newer durable one is on the disk. So a power cut costs
a restart at most ``DURABLE_EVERY_S`` more of journal to replay, never an event.

What is not state: the deck and chip registries. They are written as references and replaced
on loading by the registries the service loaded at start, so a deck enrolled before a restart
is known after it. The table definition (``[table]``, ``[game]``, rules, devices and players
of the config) is state the checkpoint was built from: a checkpoint of another definition, or
of other code (``code_fingerprint``), is refused with one log line, and recovery takes an older
checkpoint or replays the journal from its start.

File: ``checkpoints/<segment>-<offset>.ckpt`` (sorted by name is sorted by position), mode 0600
in a 0700 folder: the state holds the hole cards of the hand last dealt. Layout: a first line
``tablesvc-checkpoint <format> <sha256>``, a JSON header line, then the pickle; the checksum
covers everything after the first line, so a torn or damaged file is refused. Loading allows
only the classes of the core and of the drivers (and plain containers), never an arbitrary
callable: a file planted in the folder cannot run code.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import importlib
import io
import json
import os
import pickle
import queue
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from tablesvc import __version__
from tablesvc.core.events import HandEnded
from tablesvc.pipeline.journal import Position, segment_name

if TYPE_CHECKING:
    from tablesvc.core.cards import DeckRegistry
    from tablesvc.core.table import TableCore

log = structlog.get_logger("tablesvc.pipeline.checkpoint")

CHECKPOINT_DIR = "checkpoints"
SUFFIX = ".ckpt"
FORMAT = 1
MAGIC = b"tablesvc-checkpoint"
EVERY_INPUTS = 10_000
"""Inputs without a hand boundary after which a checkpoint is taken anyway: recovery never
replays more than about this many inputs (a third of a second on a small box) plus one hand."""
KEEP_RECENT = 3
"""Newest checkpoints kept besides those at segment starts: a damaged newest one leaves two."""
OUTBOX_WAIT_S = 30.0
DURABLE_EVERY_S = 300.0
"""A hand's checkpoint is written without a disk sync unless none was synced for this long:
after a power cut, recovery replays at most this much more journal (five minutes of a table,
a fraction of a second to replay)."""
DURABLE_KINDS = frozenset({"segment", "recovery", "shutdown"})
"""Kinds always synced: retention keeps the journal from a segment start's checkpoint, and a
stop or a recovery is rare."""

_CODE_PACKAGES = ("tablesvc/core", "drivers")
"""The packages whose objects a checkpoint holds: any change to them makes a new fingerprint."""
_ALLOWED_PREFIXES = ("tablesvc.core.", "drivers.")
_ALLOWED_BUILTINS = frozenset({"set", "frozenset", "dict", "list", "tuple", "bytes", "bytearray",
                               "int", "float", "complex", "str", "bool", "range", "slice",
                               "object"})
_ALLOWED_OTHER = frozenset({("collections", "deque"), ("collections", "OrderedDict"),
                            ("collections", "defaultdict"), ("collections", "Counter"),
                            ("copyreg", "_reconstructor"), ("datetime", "datetime"),
                            ("datetime", "date"), ("datetime", "timedelta"),
                            ("datetime", "timezone"), ("fractions", "Fraction"),
                            ("decimal", "Decimal")})


def ends_a_hand(events: Sequence[object]) -> bool:
    """The events of one input include the end of a hand: a checkpoint goes right after it."""
    return any(type(e) is HandEnded for e in events)


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message says why, in one line."""


@dataclass(frozen=True)
class Basis:
    """What a core is built from besides the journal.

    ``table`` is the table definition from the config (JSON-able: settings and players);
    ``decks`` and ``chips`` are the registries, which a checkpoint refers to instead of copying.
    """

    table: dict[str, Any]
    decks: DeckRegistry
    chips: dict[str, int]

    @property
    def table_key(self) -> str:
        return json.dumps(self.table, sort_keys=True, separators=(",", ":"), default=str)


def table_definition(settings: object, players: list[tuple[int, str, int]]) -> dict[str, Any]:
    """The JSON form of a table definition (``settings`` is the core's settings dataclass)."""
    fields = dataclasses.asdict(settings) if dataclasses.is_dataclass(settings) and not \
        isinstance(settings, type) else {"settings": repr(settings)}
    doc: dict[str, Any] = json.loads(json.dumps(fields, sort_keys=True, default=str))
    doc["players"] = [list(p) for p in players]
    return doc


@dataclass(frozen=True)
class Header:
    format: int
    version: str
    code: str
    table: dict[str, Any]
    position: Position
    seq: int
    ts: str
    kind: str

    def to_json(self) -> bytes:
        doc = {"format": self.format, "version": self.version, "code": self.code,
               "table": self.table, "position": [self.position.segment, self.position.offset],
               "seq": self.seq, "ts": self.ts, "kind": self.kind}
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Header:
        doc = json.loads(raw)
        seg, off = doc["position"]
        return cls(int(doc["format"]), str(doc["version"]), str(doc["code"]), dict(doc["table"]),
                   Position(int(seg), int(off)), int(doc["seq"]), str(doc["ts"]),
                   str(doc["kind"]))


@dataclass(frozen=True)
class Snapshot:
    """A checkpoint in memory: taken on the pipeline thread, written on the writer's."""

    header: Header
    body: bytes


# ---------------------------------------------------------------------------------------------
# identity of the code


_fingerprint: str | None = None


def code_fingerprint() -> str:
    """A digest of everything that decides what a pickled core means: the checkpoint format,
    the release, the Python and pydantic versions, and the source of the core and the drivers.
    Computed once (a few milliseconds)."""
    global _fingerprint
    if _fingerprint is None:
        import pydantic

        h = hashlib.sha256(f"{FORMAT}|{__version__}|{sys.version_info[:2]}|"
                           f"{pydantic.VERSION}".encode())
        root = Path(__file__).resolve().parents[2]
        for package in _CODE_PACKAGES:
            for path in sorted((root / package).rglob("*.py")):
                h.update(path.relative_to(root).as_posix().encode() + b"\0")
                h.update(path.read_bytes())
        _fingerprint = h.hexdigest()[:32]
    return _fingerprint


# ---------------------------------------------------------------------------------------------
# pickling


def _method(obj: object, name: str) -> object:
    """A bound method of a core object, rebuilt by name (never ``getattr`` itself)."""
    if not isinstance(name, str) or name.startswith("__") or \
            not type(obj).__module__.startswith(_ALLOWED_PREFIXES):
        raise pickle.UnpicklingError(f"bound method {name!r} refused")
    method = getattr(obj, name)
    if not isinstance(method, types.MethodType):
        raise pickle.UnpicklingError(f"{name!r} is not a method")
    return method


def _reduce_method(m: types.MethodType) -> tuple[Callable[..., object], tuple[object, str]]:
    return _method, (m.__self__, m.__func__.__name__)


_DISPATCH: dict[type, Callable[..., Any]] = {**copyreg.dispatch_table,
                                             types.MethodType: _reduce_method}


def _markers() -> dict[int, str]:
    """The module-level ``object()`` markers of the core and the drivers (``_UNKNOWN =
    object()``, compared with ``is``): a copy would not be the marker, so they are written as
    references to the module attribute and loaded as the very object."""
    found: dict[int, str] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_ALLOWED_PREFIXES):
            continue
        for attr, value in list(vars(module).items()):
            if type(value) is object:
                found[id(value)] = f"marker:{name}:{attr}"
    return found


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, refs: dict[int, str]) -> None:
        super().__init__(file, protocol=5)
        self._refs = refs
        self.dispatch_table = _DISPATCH

    def persistent_id(self, obj: object) -> str | None:
        ref = self._refs.get(id(obj))
        if ref is None and type(obj) is object:
            raise pickle.PicklingError("an object() marker that is no module attribute of the "
                                       "core: its identity would be lost")
        return ref


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, basis: Basis) -> None:
        super().__init__(file)
        self._basis = basis

    def persistent_load(self, pid: object) -> object:
        if pid == "decks":
            return self._basis.decks
        if pid == "chips":
            return self._basis.chips
        if isinstance(pid, str) and pid.startswith("marker:"):
            _, module, attr = pid.split(":", 2)
            if module.startswith(_ALLOWED_PREFIXES):
                value = getattr(importlib.import_module(module), attr, None)
                if type(value) is object:
                    return value
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")

    def find_class(self, module: str, name: str) -> Any:
        if module == "tablesvc.pipeline.checkpoint" and name == "_method":
            return _method
        if module == "builtins":
            if name in _ALLOWED_BUILTINS:
                return super().find_class(module, name)
        elif (module, name) in _ALLOWED_OTHER:
            return super().find_class(module, name)
        elif module.startswith(_ALLOWED_PREFIXES):
            found = super().find_class(module, name)
            if isinstance(found, type | types.FunctionType) and \
                    found.__module__.startswith(_ALLOWED_PREFIXES):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of the table's state")


def take(core: TableCore, basis: Basis, position: Position, kind: str, ts: str) -> Snapshot:
    """Pickle the core now (on the thread that owns it); ``ts`` is the stamp of the last
    input it applied. Raises whatever pickling raises."""
    buf = io.BytesIO()
    refs = _markers()
    refs[id(basis.decks)] = "decks"
    chips = getattr(core, "chip_values", None)  # the core's copy of the chip registry
    if chips is not None:
        refs[id(chips)] = "chips"
    _Pickler(buf, refs).dump(core)
    header = Header(FORMAT, __version__, code_fingerprint(), basis.table, position, core.seq,
                    ts, kind)
    return Snapshot(header, buf.getvalue())


# ---------------------------------------------------------------------------------------------
# files


def file_name(position: Position) -> str:
    return f"{position.segment:06d}-{position.offset:012d}{SUFFIX}"


def listing(folder: Path) -> list[tuple[Position, Path]]:
    """The checkpoint files of a folder, oldest position first (other files ignored)."""
    if not folder.is_dir():
        return []
    out = []
    for p in folder.iterdir():
        stem = p.name.removesuffix(SUFFIX)
        seg, _, off = stem.partition("-")
        if p.name.endswith(SUFFIX) and seg.isdigit() and off.isdigit():
            out.append((Position(int(seg), int(off)), p))
    return sorted(out)


def ensure_folder(folder: Path) -> None:
    """The checkpoints folder, readable by the service's user only."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)


def write(folder: Path, snap: Snapshot, durable: bool = True) -> Path:
    """Write a checkpoint whole or not at all: a temporary file, renamed; ``durable``: the file
    synced before the rename and the folder after it, so it is on the disk when this returns.
    Mode 0600."""
    ensure_folder(folder)
    rest = snap.header.to_json() + b"\n" + snap.body
    digest = hashlib.sha256(rest).hexdigest()
    target = folder / file_name(snap.header.position)
    tmp = folder / f".{target.name}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        data = MAGIC + f" {FORMAT} {digest}\n".encode() + rest
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    if durable:
        _sync_dir(folder)
    return target


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_header(path: Path) -> tuple[Header, bytes]:
    """The header and the pickle of a checkpoint file, checksum verified; ``CheckpointError``
    when it is torn, damaged or of another format."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CheckpointError(f"cannot be read ({exc.strerror})") from None
    first, _, rest = data.partition(b"\n")
    parts = first.split(b" ")
    if len(parts) != 3 or parts[0] != MAGIC:
        raise CheckpointError("not a checkpoint file (torn or damaged)")
    if parts[1] != str(FORMAT).encode():
        raise CheckpointError(f"checkpoint format {parts[1].decode(errors='replace')}, this "
                              f"version reads {FORMAT}")
    if hashlib.sha256(rest).hexdigest().encode() != parts[2]:
        raise CheckpointError("checksum mismatch (torn or damaged)")
    raw, _, body = rest.partition(b"\n")
    try:
        return Header.from_json(raw), body
    except (ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"header unreadable ({exc})") from None


def check(header: Header, basis: Basis) -> None:
    """Refuse a checkpoint of other code or of another table definition."""
    if header.code != code_fingerprint():
        same = "the same release number, other code" if header.version == __version__ else \
            f"tablesvc {header.version}"
        raise CheckpointError(f"written by {same}; this is tablesvc {__version__}")
    table = json.loads(basis.table_key)
    if header.table != table:
        keys = sorted(k for k in header.table.keys() | table.keys()
                      if header.table.get(k) != table.get(k))
        raise CheckpointError("written with another table definition in the config "
                              f"(differs in: {', '.join(keys)})")


def load(path: Path, basis: Basis) -> tuple[Header, TableCore]:
    """A checkpoint's header and core; ``CheckpointError`` (one line) when it is unusable."""
    header, body = read_header(path)
    check(header, basis)
    try:
        core = _Unpickler(io.BytesIO(body), basis).load()
    except Exception as exc:
        raise CheckpointError(f"cannot be loaded ({type(exc).__name__}: {exc})") from None
    from tablesvc.core.table import TableCore

    if not isinstance(core, TableCore) or core.seq != header.seq:
        raise CheckpointError("does not hold the table's state it claims")
    return header, core


def candidates(folder: Path) -> Iterator[tuple[Position, Path]]:
    """Checkpoint files, newest position first."""
    yield from reversed(listing(folder))


def at_segment_start(folder: Path, segment: int) -> Path | None:
    path = folder / file_name(Position(segment, 0))
    return path if path.is_file() else None


def describe(position: Position) -> str:
    return f"{segment_name(position.segment)}+{position.offset}"


# ---------------------------------------------------------------------------------------------
# the writer thread


class Writer:
    """Writes posted snapshots on its own thread, then applies retention.

    A snapshot is written only once the outbox has recorded every event up to its seq: a
    checkpoint must never stand for events that only a replay from before it could give back
    to the outbox (recovery checks it again, for the crash where the outbox's last commit did
    not reach the disk). Whether it is synced is decided here (``durable_now``);
    ``durable`` is the newest file written synced, which retention keeps.
    """

    def __init__(self, folder: Path, written_seq: Callable[[], int],
                 after_write: Callable[[Path, Snapshot], None] | None = None,
                 durable_every_s: float = DURABLE_EVERY_S) -> None:
        self.folder = folder
        self._written_seq = written_seq
        self._after = after_write
        self._queue: queue.Queue[Snapshot | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.durable_every_s = durable_every_s
        self._durable_at: float | None = None  # monotonic time of the last synced one
        self.durable: Path | None = None
        self.written = 0
        self.written_durable = 0
        self.failed = 0
        """Checkpoints not written: the disk refused, the outbox did not record their events in
        time, or the state could not be pickled (counted by the service)."""

    def durable_now(self, snap: Snapshot) -> bool:
        """Sync this one? Always for a segment start, a recovery's end or a stop; for a hand's
        or an interval's, only the first of the run and then one per ``durable_every_s``."""
        return (snap.header.kind in DURABLE_KINDS or self._durable_at is None
                or time.monotonic() - self._durable_at >= self.durable_every_s)

    def start(self) -> None:
        if self.folder.is_dir():  # what a crash left half written is no checkpoint
            for tmp in self.folder.glob(f".*{SUFFIX}.*.tmp"):
                tmp.unlink(missing_ok=True)
        self._thread = threading.Thread(target=self._run, name="checkpoint-writer", daemon=True)
        self._thread.start()

    def post(self, snap: Snapshot) -> None:
        if self._thread is None:
            self._write(snap)
        else:
            self._queue.put(snap)

    def close(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while (snap := self._queue.get()) is not None:
            # a newer snapshot already waiting makes this one pointless (a burst of hands)
            while True:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)
                    break
                if snap.header.kind == "segment":
                    self._write(snap)  # a segment start is kept for retention: never skipped
                snap = nxt
            self._write(snap)

    def _write(self, snap: Snapshot) -> None:
        deadline = time.monotonic() + OUTBOX_WAIT_S
        while self._written_seq() < snap.header.seq:
            if time.monotonic() > deadline:
                log.warning("checkpoint skipped: the outbox has not recorded its events",
                            position=describe(snap.header.position), seq=snap.header.seq)
                self.failed += 1
                return
            time.sleep(0.01)
        durable = self.durable_now(snap)
        try:
            path = write(self.folder, snap, durable)
        except OSError as exc:
            self.failed += 1
            log.error("checkpoint not written", position=describe(snap.header.position),
                      error=str(exc))
            return
        self.written += 1
        if durable:
            self._durable_at = time.monotonic()
            self.durable = path
            self.written_durable += 1
        if self._after is not None:
            try:
                self._after(path, snap)
            except Exception:
                log.exception("retention failed after a checkpoint")
