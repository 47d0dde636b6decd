"""The edge service: transports -> journal -> core -> publisher (and, beside it, the outbox).

One thread runs the pipeline, in batches: take whatever inputs are waiting, append them to the
journal, fdatasync once, apply them to the core, and hand the resulting events to the
publisher, which sends them at once, and to the outbox, whose own thread records them. The
journal's sync is the only one an event waits for: durability is paid once per batch, not
once per frame, so it does not cap throughput; and because the journal is durable before
anything derived from it, a crash can never leave the broker with an event the journal cannot
reproduce. After a crash the journal is replayed, every event is derived again, and the outbox
is given those it had not recorded yet (see ``tablesvc.pipeline.outbox``).

A start opens the ports first (``tablesvc.pipeline.ports``: what arrives is journalled while
the state is rebuilt), then recovers from the newest usable checkpoint and the journal after it
(``tablesvc.pipeline.recovery``), applies what arrived meanwhile, and goes live. The pipeline
takes a checkpoint at every hand boundary and segment start (``tablesvc.pipeline.checkpoint``);
pickling is done here, the file is written on the checkpoint writer's thread.
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
from tablesvc.config.table import Config, resolve
from tablesvc.core import events as ev
from tablesvc.core.commands import CommandError, Limits, ReplayCmd, parse_command
from tablesvc.core.inputs import Command, Input, PublishRefused, ServiceResumed, Tick
from tablesvc.core.table import Output, Player, TableCore, TableSettings
from tablesvc.pipeline import checkpoint
from tablesvc.pipeline.checkpoint import CHECKPOINT_DIR, Basis, table_definition
from tablesvc.pipeline.clock import now_ms, stamp
from tablesvc.pipeline.durations import STEP_BUCKETS, Durations
from tablesvc.pipeline.equity import EquityWorker
from tablesvc.pipeline.files import private_storage, write_private
from tablesvc.pipeline.journal import (
    JOURNAL_DIR,
    Committed,
    Journal,
    Position,
    adopt_legacy,
    journal_end,
)
from tablesvc.pipeline.outbox import OUTBOX_NAME, Message, Outbox
from tablesvc.pipeline.pause import PauseWatch
from tablesvc.pipeline.ports import Ports
from tablesvc.pipeline.publisher import Publisher, read_password
from tablesvc.pipeline.recovery import Recovered, recover
from tablesvc.pipeline.replay import apply_input
from tablesvc.pipeline.retention import Retention

log = structlog.get_logger("tablesvc.pipeline.service")


class StartError(Exception):
    """The service cannot start for a reason a restart will not mend (exit status 2); the
    message names the file or the setting."""


class StorageError(StartError):
    """The storage dir cannot be used; the message names the file and what is wrong."""

BATCH_MAX = 2000
REPLAY_FLUSH_S = 2.0
"""Longest ``cmd/replay`` waits for the outbox to write what was posted before it reads (on
paho's network thread: a disk stalled longer gets the consumer an error to ask again)."""
LET_SEND_S = 0.002
"""How long the pipeline waits for the publisher after handing it events: for the lock of
its round, to publish them itself (``send_now``), or else for its thread to send them
(``let_send``). A round takes about 0.1 ms, so this is only reached when it is busy."""
STATE_EVERY_S = 0.02
"""The retained ``state`` (the public snapshot for late joiners) is published at most this
often: after a batch when this long has passed since the last one, otherwise once it has (the
pipeline's wait for input ends then). A table's frames come tens of milliseconds apart, so
there it is still the state after every frame; in a burst of frames the snapshot, its JSON,
its publish and its PUBACK are no longer paid for every batch, on the thread that carries
the next events. Live consumers follow the events; the snapshot only starts a late one."""
ALERT_LOG_LEVEL = {"info": "info", "warning": "warning", "critical": "error"}


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
        stack_zones=cfg.table.stack_zones,
        alert_confirm=cfg.rules.timers.confirm_alerts,
        button_uid=cfg.registry.button.uid if cfg.registry.button is not None else None,
    )


def basis_of(cfg: Config, cfg_path: Path) -> Basis:
    """What a core is built from besides the journal: the table definition and the registries
    (loaded here). Checkpoints are tied to the first and refer to the others."""
    decks = load_decks(resolve(cfg_path, cfg.registry.decks))
    chips = load_chips(resolve(cfg_path, cfg.registry.chips))
    players = [(p.seat, p.name, p.stack) for p in cfg.players]
    return Basis(table_definition(settings_of(cfg), players), decks, chips)


def core_of(cfg: Config, basis: Basis) -> TableCore:
    """A fresh core: the table before the journal's first input."""
    players = [Player(p.seat, p.name, p.stack) for p in cfg.players]
    return TableCore(settings_of(cfg), basis.decks, basis.chips, players)


def build_core(cfg: Config, cfg_path: Path) -> TableCore:
    """The core for a config, with its registries loaded. Shared by run and replay."""
    return core_of(cfg, basis_of(cfg, cfg_path))


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

    def __init__(self, cfg: Config, cfg_path: Path, ports: Ports | None = None) -> None:
        """``ports``: opened already by the caller (``tablesvc run`` opens them before
        it imports this module); one is made here otherwise."""
        self.cfg = cfg
        self.cfg_path = cfg_path
        self.storage = resolve(cfg_path, cfg.storage.dir)
        private_storage(self.storage)
        self.basis = basis_of(cfg, cfg_path)
        self.core = core_of(cfg, self.basis)
        try:
            self.outbox = Outbox(self.storage / OUTBOX_NAME)
        except sqlite3.Error as exc:  # its own message names no file
            raise StorageError(f"{self.storage / OUTBOX_NAME}: {exc}") from exc
        self.delay_ms = int(cfg.broadcast.holecard_delay_s * 1000)
        self.ports = ports or Ports(cfg, cfg_path)
        self.inputs: queue.Queue[Input] = self.ports.inputs
        self.stats = Stats()
        self.work = Durations(STEP_BUCKETS)
        """Per batch with events: from its journal sync returning to its first events handed
        to the publisher (the core, the events' JSON): the service's own share of the wait."""
        self._synced_at: float | None = None
        self._stop = threading.Event()
        self.ready = threading.Event()
        self.failed: str | None = None
        self.journal: Journal | None = None
        self.transports: list[SerialTransport] = self.ports.transports
        self.publisher: Publisher | None = None
        self.recovered: Recovered | None = None
        checkpoints = self.storage / CHECKPOINT_DIR
        self.retention = Retention(self.storage / JOURNAL_DIR, checkpoints, self.basis,
                                   cfg.storage.retention_days, cfg.storage.retention_mb << 20)
        self.checkpoints = checkpoint.Writer(
            checkpoints, lambda: self.outbox.written_seq,
            after_write=lambda path, snap: self.retention.apply(
                durable=self.checkpoints.durable))
        self._since_checkpoint = 0
        self._checkpoint_failed = False
        self._state_due = False  # an input was applied since the retained state was last set
        self._state_at = -STATE_EVERY_S  # (perf_counter) when it was set last
        self._last_ts = ""
        self.pause: PauseWatch | None = None  # notes a stopped process, once live
        self.metrics_server: Any = None
        # win probabilities (issue 12): computed beside the pipeline, results come back as inputs
        b = cfg.broadcast
        self.equity = EquityWorker(self.inputs.put, exact_limit=b.equity_exact_limit,
                                   samples=b.equity_samples) if b.equity else None

    # ------------------------------------------------------------------ lifecycle
    def recover(self) -> Recovered:
        """Rebuild the state up to where the journal ended when the ports opened it: the
        newest usable checkpoint and the journal after it; hand the outbox what it lacks."""
        # (a tool that only recovers, without opening the ports, reads what is there)
        stop = self.ports.journal_end() if self.ports.opened else \
            journal_end(self.storage / JOURNAL_DIR)
        high = self.outbox.high_seq()
        pending: list[Message] = []

        def to_outbox(inp: Input, out: Output) -> None:
            nonlocal pending
            fresh = [e for e in out.events if e.seq > high]
            if fresh:
                pending.extend(messages_of(fresh, inp.ms, self.delay_ms))
            if len(pending) > 5000:
                self.outbox.add(pending)
                pending = []

        got = recover(self.basis, lambda: core_of(self.cfg, self.basis), self.storage,
                      self.storage / JOURNAL_DIR, self.storage / CHECKPOINT_DIR, stop, high,
                      to_outbox)
        self.outbox.add(pending)
        adopted = adopt_legacy(self.storage)  # read whole: now it is segment 000000
        if adopted is not None:
            log.info("journal of an older install moved into the segments folder",
                     path=str(adopted))
        self.core = got.core
        self.recovered = got
        self._last_ts = got.last_ts or ""
        log.info("state recovered", path=got.path, inputs=got.inputs, last_seq=self.core.seq,
                 outbox_high_seq=high, seconds=round(got.seconds, 3))
        segment_start = stop.offset == 0 and self.core.seq > 0 and \
            checkpoint.at_segment_start(self.storage / CHECKPOINT_DIR, stop.segment) is None
        if got.inputs >= 1000 or segment_start:
            # a long replay is not done twice; a segment that begins here gets its start
            self._checkpoint(stop, "segment" if stop.offset == 0 else "recovery")
        return got

    def start(self) -> None:
        """Open the ports (unless open), recover, connect, apply what arrived meanwhile.
        Raises what made it impossible (the ports are closed again then; whatever arrived is
        in the journal)."""
        started = time.monotonic()
        self.ports.open()  # a no-op when the caller opened the ports already
        self.outbox.start(retention_ms=self.cfg.mqtt.retention_s * 1000)
        self.checkpoints.start()
        try:
            self.recover()
        except BaseException:
            self.ports.close()
            self.checkpoints.close()
            self.outbox.close()
            raise
        self.stats.recovery_s = time.monotonic() - started
        boot = self.core.boot + 1  # the ServiceStart journalled by the ports is still to come
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
        self.publisher.start()
        self.journal, backlog = self.ports.handover()
        self._apply(backlog)  # journalled while recovering: applied in order, before the rest
        self.pause = PauseWatch()
        self.pause.start()
        log.info("live", backlog=sum(len(b) for b, _ in backlog),
                 seconds=round(time.monotonic() - started, 3))
        if self.equity is not None:  # after the backlog: the recovered hand's last request
            self.equity.start()
            if (unanswered := self.core.equity.outstanding()) is not None:
                self.equity.submit([unanswered])  # the crash came before its result

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
        self.ports.close()
        if self.pause is not None:
            self.pause.stop()
        if self.equity is not None:
            self.equity.stop()
        if self.journal is not None:
            self.step(timeout=0)  # what the transports delivered last
            self._publish_state(now=True)  # the table as it was left, for late joiners
        if self.publisher:
            self.publisher.stop()
        if self.journal:
            self.journal.close()
            if self._since_checkpoint and self.failed is None:
                # a clean stop: a restart replays nothing (after a failure the state may not
                # be the journal's, so the last checkpoint taken stands)
                self._checkpoint(self.journal.position, "shutdown")
        self.checkpoints.close()  # needs the outbox's writer still running
        if self.metrics_server is not None:
            self.metrics_server.shutdown()
        self.outbox.close()
        log.info("stopped", inputs=self.stats.inputs, events=self.stats.events)

    # ------------------------------------------------------------------ other threads
    def outbox_depth(self) -> int:
        """Events the broker has not acknowledged yet (for the metrics endpoint)."""
        try:
            return self.outbox.unacked_count()
        except sqlite3.Error:
            return -1

    def journal_syncs(self) -> Durations | None:
        """The journal's sync times so far, for the metrics endpoint (None until the
        pipeline has the journal)."""
        return self.journal.syncs if self.journal is not None else None

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
        # the outbox's writer gathers what is posted for up to GATHER_S: the events a
        # consumer has just seen may not be written yet, and an answer without them would
        # say "not truncated" over a gap
        if not self.outbox.flush(timeout=REPLAY_FLUSH_S):
            self.publisher.reply("replay", {
                "request_id": rid, "ok": False, "data": None,
                "error": "the outbox is still writing the latest events; ask again shortly"})
            return
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
        if self._state_due:  # a retained state held back: wait no longer than its due time
            timeout = max(0.0, min(timeout, self._state_at + STATE_EVERY_S
                                   - time.perf_counter()))
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
        if self.pause is not None and (paused := self.pause.take()):
            # the process was stopped: the core hears it before anything read since
            ts, ms = stamp()
            batch.insert(0, ServiceResumed(ts, ms, paused))
            log.warning("the service's process was stopped; what the devices sent meanwhile "
                        "is read late or was lost", paused_s=round(paused / 1000, 1))
        deadline = self.core.next_deadline()
        if deadline is not None and now_ms() >= deadline:
            ts, ms = stamp()
            batch.append(Tick(ts, ms))
        return batch

    def step(self, timeout: float) -> int:
        """Process one batch. Returns the number of inputs processed."""
        self._sign_of_life()
        batch = self._take_batch(timeout)
        if not batch:
            self._publish_state()
            return 0
        self.process(batch)
        return len(batch)

    def _sign_of_life(self) -> None:
        """The retained ``status`` again every ``ALIVE_EVERY_S`` (``Publisher.alive``), asked
        from this thread so that a pipeline that is stuck stops saying it, not only a frozen
        process: the floor marks a table it hears nothing from as silent."""
        if self.publisher is not None:
            self.publisher.alive()

    def process(self, batch: list[Input]) -> None:
        """Journal a batch (one sync), then apply it."""
        assert self.journal is not None
        self.outbox.check()  # a failed outbox writer stops the service (the restart recovers)
        for inp in batch:
            self.journal.append(inp)
        committed = self.journal.commit()  # the one sync between these inputs and their events
        self._synced_at = time.perf_counter()
        self._apply([(batch, committed)])
        self._synced_at = None

    def _apply(self, batches: list[tuple[list[Input], Committed]]) -> None:
        """Apply journalled batches: events to the outbox and the publisher, checkpoints where
        a hand ended or a segment began (each ``Committed`` says where its inputs ended).
        The inputs journalled while recovering come as many batches, applied in one go."""
        messages: list[Message] = []
        outputs: list[Output] = []
        snaps: list[checkpoint.Snapshot] = []
        core = self.core

        def send() -> None:
            """What is ready goes out before a checkpoint is pickled: the pickle of a big
            table takes milliseconds, and the events of the hand that ended do not wait.
            This thread publishes them itself when the publisher is free (``send_now``: no
            other thread has to wake on an event's way); otherwise the publisher thread is
            woken and let run first (``let_send``): while this thread runs Python, or
            pickles, the publisher cannot."""
            nonlocal messages
            if messages:
                self.outbox.post(messages)  # recorded by the outbox's own thread
                pub = self.publisher
                if pub is not None:
                    pub.submit(messages, wake=False)  # sent now, from memory
                    if self._synced_at is not None:
                        self.work.record(time.perf_counter() - self._synced_at)
                        self._synced_at = None
                    # written to the broker's socket by this thread, once the publisher
                    # thread is out of its round (a PUBACK it reads, say)
                    if not pub.send_now(LET_SEND_S):  # (it woke the publisher thread)
                        pub.let_send(LET_SEND_S)
                messages = []

        for batch, committed in batches:
            starts = dict(committed.segment_starts)
            for i, inp in enumerate(batch):
                if i in starts:  # the state before a segment's first input
                    send()
                    self._checkpoint(Position(starts[i], 0), "segment", snaps)
                out = apply_input(core, inp)  # a failure is logged, never fatal
                self._last_ts = inp.ts
                self._since_checkpoint += 1
                if out is not None:
                    outputs.append(out)
                    if out.work and self.equity is not None:
                        self.equity.submit(out.work)
                    if out.events:
                        messages.extend(messages_of(out.events, inp.ms, self.delay_ms))
                if out is not None and out.events and checkpoint.ends_a_hand(out.events):
                    send()
                    self._checkpoint(committed.position_after(i), "hand", snaps)
                elif self._since_checkpoint >= checkpoint.EVERY_INPUTS:
                    send()
                    self._checkpoint(committed.position_after(i), "interval", snaps)
            self.stats.inputs += len(batch)
            self.stats.batches += 1
        send()
        for snap in snaps:  # after their events were posted to the outbox
            self.checkpoints.post(snap)
        self._after(outputs)  # (the retained state once, however many batches)

    def _checkpoint(self, position: Position, kind: str,
                    into: list[checkpoint.Snapshot] | None = None) -> None:
        """Pickle the core here (the pipeline's thread owns it); the writer thread writes it
        (``into``: posted by the caller once the batch's events are posted)."""
        self._since_checkpoint = 0
        try:
            snap = checkpoint.take(self.core, self.basis, position, kind, self._last_ts)
        except Exception as exc:
            self.checkpoints.failed += 1
            if not self._checkpoint_failed:  # a bug of the code, not of the moment: say it once
                log.error("checkpoint not taken: the table's state cannot be pickled; restarts "
                          "replay the journal from the last checkpoint taken",
                          position=checkpoint.describe(position), error=repr(exc))
            self._checkpoint_failed = True
            return
        if into is None:
            self.checkpoints.post(snap)
        else:
            into.append(snap)

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
        self._state_due = True
        self._publish_state()

    def _publish_state(self, now: bool = False) -> None:
        """The retained ``state``, if an input was applied since it was last set and
        ``STATE_EVERY_S`` has passed since then (``now``: at once)."""
        pub = self.publisher
        if pub is None or not self._state_due:
            return
        at = time.perf_counter()
        if not now and at - self._state_at < STATE_EVERY_S:
            return  # the wait for input ends when it is due (``_take_batch``)
        self._state_due = False
        self._state_at = at
        pub.set_retained("state", self.core.snapshot(), wake=False)
        pub.send_now()
