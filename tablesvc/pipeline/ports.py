"""The device ports, opened first: what arrives while the service recovers is journalled.

A restart used to rebuild the table from the journal before it opened its ports, and every
frame the devices sent meanwhile was lost. ``Ports.open`` needs only the config: it notes the
time of the ``ServiceStart`` input (journalled first), opens every port, and starts a
journaller thread that opens the journal (repairing a torn tail) and appends and syncs
whatever arrives, exactly as the pipeline does. So
an input is durable while the core is still being rebuilt, and a crash during recovery loses
nothing: the next start replays it. ``handover`` stops the journaller and gives the pipeline
the inputs it journalled (the *backlog*), to be applied before anything newer; the journal
itself then passes to the pipeline.

This module imports neither the core nor the publisher, so that a start opens its ports before
those are even imported (see ``tablesvc run``).
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import structlog

from drivers.transport import SerialTransport
from tablesvc import __version__
from tablesvc.config.table import Config, device_url, resolve
from tablesvc.core.inputs import Input, PortChange, ServiceStart
from tablesvc.pipeline.clock import frame_in, stamp
from tablesvc.pipeline.journal import (
    JOURNAL_DIR,
    Committed,
    Journal,
    Position,
)

log = structlog.get_logger("tablesvc.pipeline.ports")

BATCH_MAX = 2000
Batch = tuple[list[Input], Committed]


class PortsError(RuntimeError):
    """The journal could not be opened or written while recovering."""


class Ports:
    def __init__(self, cfg: Config, cfg_path: Path) -> None:
        self.cfg = cfg
        self.cfg_path = cfg_path
        self.storage = resolve(cfg_path, cfg.storage.dir)
        self.inputs: queue.Queue[Input] = queue.Queue()
        self.transports: list[SerialTransport] = []
        self.journal: Journal | None = None
        self.end: Position | None = None
        """Where the journal ended when this process opened it: recovery replays up to here."""
        self.error: BaseException | None = None
        self.backlog: list[Batch] = []
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started: tuple[str, int] = ("", 0)
        self._first: list[Input] = []

    @property
    def opened(self) -> bool:
        return self._thread is not None

    def open(self) -> None:
        """Note the start, start the journaller, open every port. Returns at once."""
        if self._thread is not None:
            return
        self.storage.mkdir(parents=True, exist_ok=True)
        self._started = stamp()  # the ServiceStart's time: it goes first in the journal
        self._thread = threading.Thread(target=self._run, name="ports-journal", daemon=True)
        self._thread.start()
        for name, dev in self.cfg.devices.items():
            t = SerialTransport(name, device_url(self.cfg_path, dev.url), baudrate=dev.baudrate,
                                on_chunk=self._on_chunk, on_port=self._on_port)
            self.transports.append(t)
            t.start()

    # ------------------------------------------------------------------ transports' threads
    def _on_chunk(self, name: str, chunk: bytes) -> None:
        self.inputs.put(frame_in(name, chunk))

    def _on_port(self, name: str, is_open: bool, detail: str) -> None:
        ts, ms = stamp()
        self.inputs.put(PortChange(ts, ms, name, is_open, detail))
        url = device_url(self.cfg_path, self.cfg.devices[name].url) \
            if name in self.cfg.devices else ""
        if is_open:
            log.info("port open", device=name, url=url)
        elif detail == "stopped":  # the service itself closed it
            log.info("port closed", device=name, url=url, detail=detail)
        else:
            log.warning("port closed", device=name, url=url, detail=detail)

    # ------------------------------------------------------------------ the journaller
    def _run(self) -> None:
        try:
            # (an older install's journal.jsonl stays where it is until recovery has read it,
            # so that an error names the file the operator knows; see Service.recover)
            self.journal = Journal(self.storage / JOURNAL_DIR,
                                   segment_bytes=self.cfg.storage.segment_mb << 20)
            self.end = self.journal.position
        except BaseException as exc:
            self.error = exc
            self._ready.set()
            return
        try:
            # built here, not in open(): the command checks' module is not light, and the
            # ports do not wait for it
            from tablesvc.core.commands import COMMAND_CHECKS

            ts, ms = self._started
            self._first = [ServiceStart(ts, ms, __version__, COMMAND_CHECKS)]
        except BaseException as exc:
            self.error = exc
            return
        finally:
            self._ready.set()
        try:
            while not self._stop.is_set():
                try:
                    batch = [self.inputs.get(timeout=0.05)]
                except queue.Empty:
                    continue
                while len(batch) < BATCH_MAX:
                    try:
                        batch.append(self.inputs.get_nowait())
                    except queue.Empty:
                        break
                self._journal(batch)
        except BaseException as exc:
            self.error = exc
            log.critical("journal write failed while recovering", error=str(exc))

    def _journal(self, batch: list[Input]) -> None:
        assert self.journal is not None
        batch, self._first = self._first + batch, []
        for inp in batch:
            self.journal.append(inp)
        self.backlog.append((batch, self.journal.commit()))

    def journal_end(self, timeout: float = 60.0) -> Position:
        """Wait until the journal is open; where it ended (``PortsError`` if it failed)."""
        if not self._ready.wait(timeout):
            raise PortsError("the journal did not open in time")
        if self.error is not None or self.end is None:
            raise PortsError(f"the journal could not be opened: {self.error}")
        return self.end

    def handover(self) -> tuple[Journal, list[Batch]]:
        """Stop journalling here; the journal and the inputs journalled so far (in order) pass
        to the pipeline, which applies them before anything still queued."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.error is not None or self.journal is None:
            raise PortsError(f"the journal could not be written while recovering: {self.error}")
        if self._first:  # nothing arrived yet: the start record goes in on its own
            self._journal([])
        backlog, self.backlog = self.backlog, []
        return self.journal, backlog

    def close(self) -> None:
        """Close the ports (and stop the journaller, if no pipeline took over)."""
        for t in self.transports:
            t.stop()
        self._stop.set()
