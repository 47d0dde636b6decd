"""The edge service: transports -> journal -> core -> publisher (and, beside it, the outbox).

One thread runs the pipeline, in batches: take whatever inputs are waiting, append them to the
journal, fdatasync once, apply them to the core, and hand the resulting events to the
publisher, which sends them at once, and to the outbox, whose own thread records them. The
journal's sync is the only one an event waits for: durability is paid once per batch, not
once per frame, so it does not cap throughput; and because the journal is durable before
anything derived from it, a crash can never leave the broker with an event the journal cannot
reproduce. After a crash the journal is replayed, every event is derived again, and the outbox
is given those it had not recorded yet (see ``tablesvc.pipeline.outbox``).
"""

from __future__ import annotations

import json
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from drivers.transport import SerialTransport
from tablesvc import __version__
from tablesvc.config.registry import load_chips, load_decks
from tablesvc.config.table import Config, device_url, resolve
from tablesvc.core import events as ev
from tablesvc.core.commands import COMMAND_CHECKS, CommandError, Limits, ReplayCmd, parse_command
from tablesvc.core.inputs import Command, Input, PortChange, PublishRefused, ServiceStart, Tick
from tablesvc.core.table import Output, Player, TableCore, TableSettings
from tablesvc.pipeline.clock import frame_in, now_ms, stamp
from tablesvc.pipeline.equity import EquityWorker
from tablesvc.pipeline.files import private_storage, write_private
from tablesvc.pipeline.journal import (
    JOURNAL_DIR,
    Journal,
    adopt_legacy,
    journal_files,
    read_journal,
)
from tablesvc.pipeline.outbox import OUTBOX_NAME, Message, Outbox
from tablesvc.pipeline.publisher import Publisher, read_password
from tablesvc.pipeline.replay import apply_input

log = structlog.get_logger("tablesvc.pipeline.service")


class StartError(Exception):
    """The service cannot start for a reason a restart will not mend (exit status 2); the
    message names the file or the setting."""


class StorageError(StartError):
    """The storage dir cannot be used; the message names the file and what is wrong."""

BATCH_MAX = 2000
ALERT_LOG_LEVEL = {"info": "info", "warning": "warning", "critical": "error"}
PROGRESS_EVERY_S = 2.0
"""While recovering from a long journal, a progress line this often."""


def settings_of(cfg: Config) -> TableSettings:
    g = cfg.game
    return TableSettings(
        venue=cfg.table.venue, table=cfg.table.id, seats=cfg.table.seats, variant=g.variant,
        limit=g.limit, small_blind=g.small_blind, big_blind=g.big_blind, ante=g.ante,
        ante_mode=g.ante_mode, bet_settle_ms=g.bet_settle_ms, devices=cfg.device_kinds(),
        reopen_rule=cfg.rules.betting.reopen_rule,
        clock_ms=int(cfg.rules.timers.clock_s * 1000),
        deliver_ms=int(cfg.rules.timers.deliver_s * 1000),
        all_check=cfg.rules.draw.second_round_all_check,
        motion_ms=int(cfg.rules.timers.motion_s * 1000),
        order_tolerance_ms=round(cfg.rules.timers.order_tolerance_s * 1000),
        qualification_table=cfg.rules.he.qualification_table,
        max_stack=g.max_stack,
        equity_dead_cards=cfg.broadcast.equity_dead_cards,
    )


def build_core(cfg: Config, cfg_path: Path) -> TableCore:
    """The core for a config, with its registries loaded. Shared by run and replay."""
    decks = load_decks(resolve(cfg_path, cfg.registry.decks))
    chips = load_chips(resolve(cfg_path, cfg.registry.chips))
    players = [Player(p.seat, p.name, p.stack) for p in cfg.players]
    return TableCore(settings_of(cfg), decks, chips, players)


def client_id(cfg: Config) -> str:
    """The table's MQTT client id: recognisable in a broker's log, with a random part so that
    nobody can guess it and knock the table off by connecting with it (the shipped broker
    config also ties client ids to user names, which makes that impossible)."""
    return f"tablesvc-{cfg.table.venue}-{cfg.table.id}-{secrets.token_hex(4)}"


def routes_of(event: ev.Event) -> tuple[str, ...]:
    """The topics an event goes to: ``alerts`` carries what needs a person (warning and
    critical alerts, DESIGN §9); info alerts stay on ``events``."""
    if event.FEED == "secure":
        return ("secure/events",)
    if isinstance(event, ev.Alert) and event.severity != "info":
        return ("events", "alerts")
    return ("events",)


def messages_of(events: Iterable[ev.Event], ms: int, delay_ms: int) -> list[Message]:
    out = []
    for e in events:
        payload = e.model_dump_json()
        for route in routes_of(e):
            not_before = ms + delay_ms if route.startswith("secure/") else ms
            out.append(Message(e.seq, route, payload, not_before, ms))
    return out


@dataclass
class Stats:
    inputs: int = 0
    events: int = 0
    batches: int = 0
    alerts: dict[str, int] = field(default_factory=dict)  # by severity
    recovery_s: float = 0.0


class Service:
    """One table's edge service. ``run()`` blocks until ``stop()``."""

    def __init__(self, cfg: Config, cfg_path: Path) -> None:
        self.cfg = cfg
        self.cfg_path = cfg_path
        self.storage = resolve(cfg_path, cfg.storage.dir)
        private_storage(self.storage)
        self.core = build_core(cfg, cfg_path)
        try:
            self.outbox = Outbox(self.storage / OUTBOX_NAME)
        except sqlite3.Error as exc:  # its own message names no file
            raise StorageError(f"{self.storage / OUTBOX_NAME}: {exc}") from exc
        self.delay_ms = int(cfg.broadcast.holecard_delay_s * 1000)
        self.inputs: queue.Queue[Input] = queue.Queue()
        self.stats = Stats()
        self._stop = threading.Event()
        self.ready = threading.Event()
        self.failed: str | None = None
        self.journal: Journal | None = None
        self.transports: list[SerialTransport] = []
        self.publisher: Publisher | None = None
        self.metrics_server: Any = None
        # win probabilities (issue 12): computed beside the pipeline, results come back as inputs
        b = cfg.broadcast
        self.equity = EquityWorker(self.inputs.put, exact_limit=b.equity_exact_limit,
                                   samples=b.equity_samples) if b.equity else None

    # ------------------------------------------------------------------ lifecycle
    def recover(self) -> int:
        """Rebuild the state from the journal; hand the outbox what it is missing.

        The journal of an older install (one ``journal.jsonl``) is replayed first and then
        moved into the segments folder, so that nothing recorded before an upgrade is lost.
        """
        if not journal_files(self.storage):
            return 0
        high = self.outbox.high_seq()
        count, pending = 0, []
        progress = time.monotonic() + PROGRESS_EVERY_S
        for inp in read_journal(self.storage):
            out = apply_input(self.core, inp)
            count += 1
            if count % 1000 == 0 and time.monotonic() >= progress:  # a long day's journal
                progress = time.monotonic() + PROGRESS_EVERY_S
                log.info("recovering: replaying the journal", inputs=count,
                         last_seq=self.core.seq)
            if out is None:
                continue
            fresh = [e for e in out.events if e.seq > high]
            if fresh:
                pending.extend(messages_of(fresh, inp.ms, self.delay_ms))
            if len(pending) > 5000:
                self.outbox.add(pending)
                pending = []
        self.outbox.add(pending)
        adopted = adopt_legacy(self.storage)
        if adopted is not None:
            log.info("journal of an older install moved into the segments folder",
                     path=str(adopted))
        log.info("state recovered from journal", inputs=count, last_seq=self.core.seq,
                 outbox_high_seq=high)
        return count

    def start(self) -> None:
        started = time.monotonic()
        self.recover()
        self.stats.recovery_s = time.monotonic() - started
        self.journal = Journal(self.storage / JOURNAL_DIR)
        self.outbox.start(retention_ms=self.cfg.mqtt.retention_s * 1000)
        boot = self.core.boot + 1
        mqtt_cfg = self.cfg.mqtt
        if mqtt_cfg.ca_file:  # relative to the config file, as every path of it
            mqtt_cfg = mqtt_cfg.model_copy(
                update={"ca_file": str(resolve(self.cfg_path, mqtt_cfg.ca_file))})
        self.publisher = Publisher(
            mqtt_cfg,
            f"{self.cfg.mqtt.topic_prefix}/{self.cfg.table.venue}/{self.cfg.table.id}",
            self.outbox,
            on_command=self._on_command,
            on_refused=self._on_refused,
            client_id=client_id(self.cfg),
            version=__version__,
            boot=boot,
            password=read_password(str(resolve(self.cfg_path, self.cfg.mqtt.password_file))
                                   if self.cfg.mqtt.password_file else ""),
        )
        if self.cfg.metrics.port:
            from tablesvc.pipeline.metrics import start_endpoint

            m = self.cfg.metrics
            try:
                self.metrics_server = start_endpoint(self, m.address, m.port)
            except OSError as exc:
                raise StartError(f"{self.cfg_path}: metrics: cannot listen on {m.address}:"
                                 f"{m.port}: {exc.strerror or exc}") from exc
        ts, ms = stamp()
        self.inputs.put(ServiceStart(ts, ms, __version__, COMMAND_CHECKS))
        self.publisher.start()
        if self.equity is not None:
            self.equity.start()
            if (unanswered := self.core.equity.outstanding()) is not None:
                self.equity.submit([unanswered])  # the crash came before its result
        for name, dev in self.cfg.devices.items():
            t = SerialTransport(name, device_url(self.cfg_path, dev.url), baudrate=dev.baudrate,
                                on_chunk=self._on_chunk, on_port=self._on_port)
            self.transports.append(t)
            t.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> threading.Event:
        return self._stop

    def run(self) -> None:
        """Start, process until stopped, then shut down cleanly."""
        self.start()
        self.serve()

    def serve(self) -> None:
        """Process inputs until stopped. A failure to persist ends the service with an error:
        the journal holds every input, so the restart (systemd's Restart=always) recovers."""
        self.ready.set()
        try:
            while not self._stop.is_set():
                self.step(timeout=0.1)
                if self.publisher is not None and self.publisher.failed:
                    raise RuntimeError(self.publisher.failed)
        except Exception as exc:
            log.critical("pipeline failed; stopping so that a restart recovers from the journal",
                         error=str(exc), exc_info=True)
            self.failed = str(exc)
            self._stop.set()
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        for t in self.transports:
            t.stop()
        if self.equity is not None:
            self.equity.stop()
        self.step(timeout=0)  # what the transports delivered last
        if self.publisher:
            self.publisher.stop()
        if self.journal:
            self.journal.close()
        if self.metrics_server is not None:
            self.metrics_server.shutdown()
        self.outbox.close()
        log.info("stopped", inputs=self.stats.inputs, events=self.stats.events)

    # ------------------------------------------------------------------ intake (other threads)
    def outbox_depth(self) -> int:
        """Events the broker has not acknowledged yet (for the metrics endpoint)."""
        try:
            return self.outbox.unacked_count()
        except sqlite3.Error:
            return -1

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

    def _on_command(self, name: str, body: dict[str, Any]) -> None:
        """A command whose bytes passed intake (``tablesvc.pipeline.intake``): journalled as
        an input and checked by the core, except ``replay``, which the service answers."""
        if name == "replay":
            self._replay_command(body)
            return
        ts, ms = stamp()
        self.inputs.put(Command(ts, ms, name, body))

    def _on_refused(self, seq: int, reason: str) -> None:
        ts, ms = stamp()
        self.inputs.put(PublishRefused(ts, ms, seq, reason))

    def _replay_command(self, body: dict[str, Any]) -> None:
        """``cmd/replay``: acknowledged public events again, from the outbox's retention."""
        assert self.publisher is not None
        rid = body.get("request_id")
        try:
            cmd = parse_command("replay", body, Limits(self.cfg.table.seats,
                                                        self.cfg.game.max_stack))
        except CommandError as exc:
            self.publisher.reply("replay", {"request_id": rid, "ok": False, "error": str(exc),
                                            "data": None})
            return
        assert isinstance(cmd, ReplayCmd)
        lo, hi = cmd.from_seq, cmd.to_seq
        limit = 1000
        msgs = self.outbox.acked_range("events", lo, hi, limit)
        data = {"events": [json.loads(m.payload) for m in msgs],
                "truncated": len(msgs) == limit}
        self.publisher.reply("replay", {"request_id": rid, "ok": True, "error": None,
                                        "data": data})

    # ------------------------------------------------------------------ the pipeline
    def _take_batch(self, timeout: float) -> list[Input]:
        batch: list[Input] = []
        deadline = self.core.next_deadline()
        now = now_ms()
        if deadline is not None:
            timeout = max(0.0, min(timeout, (deadline - now) / 1000))
        try:
            batch.append(self.inputs.get(timeout=timeout) if timeout > 0
                         else self.inputs.get_nowait())
        except queue.Empty:
            pass
        else:
            # natural batching: whatever queued up while the last batch was being made durable
            while len(batch) < BATCH_MAX:
                try:
                    batch.append(self.inputs.get_nowait())
                except queue.Empty:
                    break
        deadline = self.core.next_deadline()
        if deadline is not None and now_ms() >= deadline:
            ts, ms = stamp()
            batch.append(Tick(ts, ms))
        return batch

    def step(self, timeout: float) -> int:
        """Process one batch. Returns the number of inputs processed."""
        batch = self._take_batch(timeout)
        if not batch:
            return 0
        assert self.journal is not None
        self.outbox.check()  # a failed outbox writer stops the service (the restart recovers)
        for inp in batch:
            self.journal.append(inp)
        self.journal.commit()  # the one sync between these inputs and their events
        messages: list[Message] = []
        outputs: list[Output] = []
        for inp in batch:
            out = apply_input(self.core, inp)  # a failure is logged, never fatal
            if out is None:
                continue
            outputs.append(out)
            if out.work and self.equity is not None:
                self.equity.submit(out.work)
            if out.events:
                messages.extend(messages_of(out.events, inp.ms, self.delay_ms))
        if messages:
            self.outbox.post(messages)  # recorded by the outbox's own thread
            if self.publisher is not None:
                self.publisher.submit(messages)  # sent now, from memory
        self.stats.inputs += len(batch)
        self.stats.batches += 1
        self._after(outputs)
        return len(batch)

    def _write_history(self, e: ev.HandHistory) -> None:
        """Keep every finished hand as a PHH file next to the journal."""
        folder = self.storage / "hands"
        try:
            if not folder.is_dir():
                folder.mkdir(mode=0o700)  # hole cards: readable by the service's user only
            write_private(folder / f"{e.table}-{e.hand or 0:06d}.phh", e.phh)
        except OSError as exc:
            log.error("hand history not written", hand=e.hand, error=str(exc))

    def _after(self, outputs: list[Output]) -> None:
        pub = self.publisher
        if pub is None:
            return
        for out in outputs:
            self.stats.events += len(out.events)
            for e in out.events:
                if isinstance(e, ev.HandHistory):
                    self._write_history(e)
                if isinstance(e, ev.DeviceStatus):
                    pub.set_retained(f"devices/{e.device}", e.model_dump(mode="json"))
                if isinstance(e, ev.Alert):
                    self.stats.alerts[e.severity] = self.stats.alerts.get(e.severity, 0) + 1
                    # an info alert is a marker of play, not a problem: logged as info
                    level = ALERT_LOG_LEVEL.get(e.severity, "warning")
                    getattr(log, level)("alert", alert=e.name, rule=e.rule, severity=e.severity,
                                        seat=e.seat, message=e.message, hand=e.hand)
            for r in out.replies:
                pub.reply(r.cmd, r.payload())
            for n in out.notes:
                getattr(log, n.level, log.info)(n.message, **n.fields)
        pub.set_retained("state", self.core.snapshot())
