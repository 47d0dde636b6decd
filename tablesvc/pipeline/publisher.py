"""MQTT publishing (DESIGN §9): events to the broker in seq order at QoS 1, commands in.

The pipeline ``submit``s the events of a batch the moment its journal sync returned; they go
out from memory, without waiting for the outbox, which records them (and, from here, their
acknowledgements) on its own thread. A route whose memory queue grows past
``QUEUE_MAX`` (the broker is down, say) is *spilled*: its queue is dropped and the route is
read back from the outbox, in seq order, until it has caught up; a service starts with every
route spilled, which is how the unacknowledged events of a previous run are sent again.

An event leaves the send queue only when its PUBACK arrives. paho keeps unacknowledged QoS 1
messages across reconnects and sends them again itself, so after a reconnect we simply
continue. The in-flight window is capped and every ``publish()`` result is checked, so a
refused publish stays queued for the next attempt instead of vanishing.

The publisher thread runs the client's network I/O itself (``tablesvc.pipeline.netloop``),
so a ``publish()`` writes the socket on the spot, and PUBACKs and commands are read on the
thread that matches and answers them. It waits in ``select`` on the broker's socket and on a
waker that other threads set when they hand something in.

The pipeline does not wake it for its events: right after it submits, it does the round
itself (``send_now``) when the publisher is free, as a thread's wake-up on a processor gone
idle cost 0.15 ms at p50, 1 ms at p99 on the reference box. One lock, ``_round``, is held by
whoever does a round — the publisher thread for each of its rounds (not while it waits in
``select``), the pipeline for its send — so below, "the publisher thread" means "the holder
of ``_round``". The pipeline waits for it 2 ms at most, then wakes the thread and goes on, so
nothing the publisher does holds the pipeline. Work that reads the outbox (a spilled route)
or greets a new connection is left to the publisher thread.

How a PUBACK finds its message: ``tablesvc.pipeline.inflight``. Nothing a message brings
in may break the network loop: every callback catches what it raises, logs it and (for a
command) answers it; a command's bytes are checked (``tablesvc.pipeline.intake``) first.
Should paho raise out of its loop all the same, the publisher drops the client (closing its
socket, so the broker publishes the will) and starts a new one; if that keeps happening it
sets ``failed``, and the service stops with an error so that systemd starts it afresh. A
message the broker refuses is reported through ``tablesvc.pipeline.refusals``: once per
topic and reason, then with back-off, in the log and in the retained ``status``, never as a
message of its own. A broker that cannot be reached is said once, with why
(``tablesvc.pipeline.reach``): not at every reconnection attempt.

Every map here is bounded: the messages in flight by paho's window (``mqtt.inflight``),
the retained snapshots by their topics (latest value only), the route queues by
``QUEUE_MAX``. The pipeline never waits for a lock here but ``_round``, for 2 ms at most.
"""

from __future__ import annotations

import collections
import contextlib
import json
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from tablesvc.config.table import MqttSection
from tablesvc.pipeline.clock import now_ms
from tablesvc.pipeline.durations import STEP_BUCKETS, Durations
from tablesvc.pipeline.inflight import InFlight, Sent
from tablesvc.pipeline.intake import take_command
from tablesvc.pipeline.netloop import NetLoop, Waker
from tablesvc.pipeline.outbox import Message, Outbox
from tablesvc.pipeline.reach import EXPECTS_TLS, Reach
from tablesvc.pipeline.refusals import RefusalReport

log = structlog.get_logger("tablesvc.pipeline.publisher")

ROUTES = ("events", "alerts", "secure/events")
V5_ANSWER_TIMEOUT_MS = 3000
"""With protocol "auto", a broker that does not answer a v5 CONNECT by then (counted from the
connection opening: no broker at all is no answer about the protocol) gets 3.1.1."""
QUEUE_MAX = 10_000
"""Messages of one route kept in memory; beyond that the route is read from the outbox."""
OUTBOX_BATCH = 500
IDLE_WAIT_S = 0.05
RESTARTS_PER_MINUTE = 5
"""Network loops that may fail within a minute before the publisher gives up (``failed``)."""
GOODBYE_S = 1.0
"""How long ``stop`` waits for the broker to acknowledge the last (offline) status."""
ALIVE_EVERY_S = 5.0
"""The retained ``status`` is published again this often (``alive``): a sign of life. The
broker's will says "offline" only once it notices the connection is dead, which a frozen box
with its connection open can put off for a minute or more (1.5 keepalives, or longer); a
consumer that hears nothing from a table for a few of these periods knows it is stuck."""
SESSION_TAKEN_OVER = 142
CommandHandler = Callable[[str, dict[str, Any]], None]
RefusedHandler = Callable[[int, str], None]


@dataclass(slots=True)
class _Route:
    queue: collections.deque[Message] = field(default_factory=collections.deque)
    cursor: int = 0
    """The highest seq handed to paho (in flight or acknowledged)."""
    spilled: bool = True
    seen: int = 0
    """The highest seq submitted (or, at start, recorded in the outbox)."""


class Publisher:
    """Sends events to one broker and takes commands in."""

    def __init__(
        self,
        cfg: MqttSection,
        prefix: str,
        outbox: Outbox,
        *,
        on_command: CommandHandler,
        on_refused: RefusedHandler,
        client_id: str,
        version: str,
        boot: int = 0,
        password: str | None = None,
    ) -> None:
        self.cfg = cfg
        self.prefix = prefix.rstrip("/")
        self.outbox = outbox
        self.on_command = on_command
        self.on_refused = on_refused
        self.client_id = client_id
        self.version = version
        self.boot = boot
        self.password = password
        # set by any thread that hands something in; the publisher thread waits on it and on
        # the broker's socket at once (``NetLoop``)
        self._wake = Waker()
        self._stop = threading.Event()
        self._drained = threading.Event()
        # submits handed in, and the last of them the publisher thread has gone through
        # (taken in and sent what the window allowed): ``let_send`` waits for the two to meet
        self._submitted = 0
        self._through = 0
        self._went_through = threading.Condition(threading.Lock())
        self.handover = Durations(STEP_BUCKETS)
        """From a submit to the publisher thread having written its events to the broker's
        socket (as many as the window allowed), while connected: the thread hop, and the
        interpreter it has to wait for."""
        self._handed_in: float | None = None  # the oldest submit taken and not yet sent
        # whoever does a round of the publisher's work holds it (see the module's docstring);
        # re-entrant, as the goodbye drives the network loop, which takes it too
        self._round = threading.RLock()
        self._inflight = InFlight()
        # handed over by other threads (deque.append/popleft are atomic)
        self._inbox: collections.deque[tuple[str, Any]] = collections.deque()
        # the publisher thread's own state
        self._routes = {r: _Route() for r in ROUTES}
        self._retained: dict[str, str] = {}
        self._retained_sent: dict[str, str] = {}
        self._retained_busy: set[str] = set()
        self._replies: collections.deque[tuple[str, str]] = collections.deque()
        self._greet = False
        self._connected = threading.Event()
        self._protocol = mqtt.MQTTv5 if cfg.protocol in ("5", "auto") else mqtt.MQTTv311
        self._v5_failures = 0
        self._ever_connected = False
        self._answered = False  # the broker answered a CONNECT (a refusal is an answer)
        self._asked_ms = 0  # when the open connection's CONNECT went out (0: none open)
        self._thread: threading.Thread | None = None
        self.published = 0
        self.refused = 0
        base, venue, table = [*self.prefix.rsplit("/", 2), "", ""][:3]
        self.refusals = RefusalReport(base, venue, table, cfg.username)
        self.reach = Reach(log, cfg.host, cfg.port, tls=bool(cfg.ca_file),
                           username=cfg.username)
        """Why the broker cannot be reached, said once (``tablesvc.pipeline.reach``)."""
        self._status_due = False
        # the sign of life (``alive``): when it is due next (the pipeline's thread only), and
        # that it is due now (set by that thread, cleared by the round that sends it)
        self._alive_next = 0.0
        self._alive_due = False
        self._restarts: list[int] = []
        self._takeovers = 0
        self.failed: str | None = None
        """Why the publisher gave up (its network loop kept dying); the service stops."""
        self._client = self._make_client()
        self._net = NetLoop(self._client, self._wake, on_error=self.reach.error)
        self._said_goodbye = False

    # ------------------------------------------------------------------ setup
    def topic(self, sub: str) -> str:
        return f"{self.prefix}/{sub}"

    def _make_client(self) -> mqtt.Client:
        c = mqtt.Client(
            callback_api_version=CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=self._protocol,
            clean_session=None if self._protocol == mqtt.MQTTv5 else True,
        )
        c.max_inflight_messages_set(self.cfg.inflight)
        c.max_queued_messages_set(self.cfg.inflight)
        if self.cfg.username:
            c.username_pw_set(self.cfg.username, self.password)
        if self.cfg.ca_file:
            c.tls_set(ca_certs=self.cfg.ca_file, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.will_set(self.topic("status"), json.dumps({"state": "offline"}), qos=1, retain=True)
        # our callbacks catch what they raise; this is paho's own net beneath them
        c.suppress_exceptions = True
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        return c

    def start(self) -> None:
        """Connect and start sending; what the outbox holds unacknowledged goes first."""
        high = self.outbox.high_seq()
        for r in self._routes.values():
            r.seen = max(r.seen, high)
        self._client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._thread = threading.Thread(target=self._run, name="publisher", daemon=True)
        self._thread.start()

    def stop(self, drain_s: float = 2.0) -> None:
        """Stop after trying for ``drain_s`` to get what is queued acknowledged."""
        deadline = now_ms() + int(drain_s * 1000)
        self._drained.clear()
        while self._connected.is_set() and now_ms() < deadline and self._thread_alive():
            self._wake.set()
            if self._drained.wait(0.05):
                break
        self._stop.set()
        self._wake.set()
        if self._thread:
            self._thread.join(timeout=5)
            if self._thread.is_alive():
                return  # stuck in a connect: the broker publishes the will when it gives up
        if not self._said_goodbye:  # never started, or its thread ended early
            with contextlib.suppress(Exception):
                self._client.disconnect()
        self._wake.close()

    def _thread_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def peak_inflight(self) -> int:
        """The most messages ever in flight at once (the window is never exceeded)."""
        return self._inflight.peak

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # ------------------------------------------------------------------ other threads hand in
    def submit(self, messages: Sequence[Message], wake: bool = True) -> None:
        """Events ready to go (their inputs' journal sync has returned). Never blocks.
        ``wake=False``: the caller calls ``send_now`` next, which wakes the publisher thread
        only if it did not send them itself."""
        if messages:
            self._submitted += 1  # (only the pipeline thread submits)
            self._inbox.append(("messages", (self._submitted, time.perf_counter(), messages)))
            if wake:
                self._wake.set()

    def send_now(self, wait_s: float = 0.0) -> bool:
        """``_send_here``, and the publisher thread woken when that did not send."""
        if self._send_here(wait_s):
            return True
        self._wake.set()
        return False

    def _send_here(self, wait_s: float) -> bool:
        """Do the publisher's round on the calling thread, if the publisher is free within
        ``wait_s`` (0: at this moment): take in what was handed in, settle the PUBACKs read
        so far, and publish what is due (the socket is written before this returns). False
        if the publisher thread stayed in a round, if the broker is away, or if the round
        needs that thread (a spilled route's outbox read, the greeting of a new connection).
        Never raises. Waiting for the lock is shorter
        than waking the thread: it lets the lock go in ``select``, at once unless woken."""
        if not self._connected.is_set() or self._stop.is_set() or self.failed is not None:
            return False
        if not (self._round.acquire(timeout=wait_s) if wait_s > 0
                else self._round.acquire(blocking=False)):
            return False
        try:
            if self._greet or self._status_due or not self._connected.is_set() or any(
                    r.spilled for r in self._routes.values()):
                return False
            taken = self._take_inbox()
            self._match_acks()
            wait_s = self._send(from_outbox=False)
            if self._alive_due:
                self._say_alive()
            self._through_round(taken, sent=True)
            if wait_s < IDLE_WAIT_S or self._client.want_write() or any(
                    r.spilled for r in self._routes.values()):
                # a delayed message due before the thread looks again, bytes the socket did
                # not take yet, a route that spilled: the publisher thread's work
                self._wake.set()
            return True
        except Exception:  # the publisher thread tries again; nothing is lost
            log.exception("sending on the submitting thread failed")
            return False
        finally:
            self._round.release()

    def _through_round(self, taken: int, sent: bool) -> None:
        """Submits up to ``taken`` have been through a round: ``let_send`` may return.
        ``sent``: their events were published, and the hand-over is timed (a wait for the
        broker is no hop)."""
        if sent and self._handed_in is not None:
            self.handover.record(time.perf_counter() - self._handed_in)
        self._handed_in = None
        if taken != self._through:
            with self._went_through:
                self._through = taken
                self._went_through.notify_all()

    def let_send(self, timeout_s: float) -> None:
        """Step aside until the publisher thread has sent what was submitted, or ``timeout_s``.

        Python runs one thread at a time: after a submit, the pipeline thread would go on with
        its after-work (the retained state, logs, a checkpoint's pickle, the next batch) while
        the publisher thread, woken, waits for the interpreter. Waiting here hands it over at
        once. Never longer than ``timeout_s``, and not at all while the broker is away.
        """
        if not (self._connected.is_set() and self._thread_alive()):
            return
        submitted = self._submitted
        with self._went_through:
            self._went_through.wait_for(lambda: self._through >= submitted, timeout_s)

    def wake(self) -> None:
        """Look at the outbox again now."""
        self._wake.set()

    def alive(self) -> None:
        """The pipeline's thread calls this at each of its steps: every ``ALIVE_EVERY_S`` the
        retained ``status`` is due again, the same payload, as a sign of life. It comes from
        the pipeline (not from a timer here) so that a pipeline that is stuck goes silent as
        surely as a frozen process. Marked due and sent at once when the publisher is free,
        else by the publisher thread, woken; either way after what is due on the event
        routes, and without turning the pipeline's next hand-over away (see ``_send_here``)."""
        at = time.monotonic()
        if at < self._alive_next:
            return
        self._alive_next = at + ALIVE_EVERY_S
        self._alive_due = True
        self.send_now()

    def set_retained(self, sub: str, payload: dict[str, Any], wake: bool = True) -> None:
        """A retained snapshot for ``sub``: published soon (only the latest value of a topic
        is kept) and again on every reconnect. Never blocks. ``wake=False``: as for
        ``submit``."""
        self._inbox.append(("retained", (sub, json.dumps(payload, separators=(",", ":")))))
        if wake:
            self._wake.set()

    def reply(self, cmd: str, payload: dict[str, Any]) -> None:
        """Answer a command on ``cmd/<name>/reply`` (best effort: replies are not events)."""
        self._inbox.append(("reply", (self.topic(f"cmd/{cmd}/reply"),
                                      json.dumps(payload, separators=(",", ":")))))
        self._wake.set()

    def tracking(self) -> dict[str, int]:
        """Sizes of the bookkeeping (for tests and benchmarks: all of them stay bounded)."""
        inflight, ids, acked = self._inflight.sizes()
        return {"inflight": inflight, "ids": ids, "acked": acked, "retained": len(self._retained),
                "queued": sum(len(r.queue) for r in self._routes.values()),
                "replies": len(self._replies), "inbox": len(self._inbox)}

    # ------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        try:
            self._connect_answered(client, rc)
        except Exception:
            log.exception("error in the MQTT connect callback")

    def _connect_answered(self, client: mqtt.Client, rc: Any) -> None:
        if rc.is_failure:
            if self.cfg.protocol == "auto" and self._protocol == mqtt.MQTTv5 and (
                    rc.value in (1, 132)):
                self._v5_failures = 99  # 3.1.1 is tried next: nothing to say yet
            else:
                self._answered = True  # in this protocol: no fallback, whatever it says
                self.reach.refused(rc)  # said once, not at every attempt
            return
        self._ever_connected = True
        log.info("connected to broker", host=self.cfg.host, port=self.cfg.port,
                 protocol="5" if self._protocol == mqtt.MQTTv5 else "3.1.1",
                 **self.reach.connected())
        client.subscribe(self.topic("cmd/+"), qos=1)
        self._greet = True  # the publisher thread says online and republishes the retained
        self._connected.set()
        self._wake.set()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any,
                      props: Any = None) -> None:
        try:
            if any(getattr(c, "is_failure", False) or c == 128 for c in codes):
                log.error("the broker does not let this table read its commands",
                          topic=self.topic("cmd/+"), username=self.cfg.username,
                          acl_line_needed=(f"user {self.cfg.username} / topic read "
                                           f"{self.topic('cmd/+')} (deploy/venue-acl.sh)"))
        except Exception:
            log.exception("error in the MQTT subscribe callback")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        try:
            was = self._connected.is_set()
            self._connected.clear()
            trying_v5 = self.cfg.protocol == "auto" and self._protocol == mqtt.MQTTv5
            if not was and not self._stop.is_set():
                # closed before CONNACK: a TLS port spoken to without TLS (the probe tells),
                # or, while v5 is tried, maybe a 3.1.1-only broker
                tls_port = self.reach.trouble is not None and (
                    self.reach.trouble.kind == EXPECTS_TLS)
                if trying_v5 and not tls_port:
                    self._v5_failures += 1
                self.reach.closed(rc, quiet=trying_v5)
            if getattr(rc, "value", None) == SESSION_TAKEN_OVER and not self._stop.is_set():
                self._taken_over()
            elif was and not self._stop.is_set():
                log.warning("disconnected from broker", reason=str(rc))
        except Exception:
            log.exception("error in the MQTT disconnect callback")

    def _taken_over(self) -> None:
        self._takeovers += 1
        n = self._takeovers
        if n & (n - 1) == 0:  # the 1st, 2nd, 4th, 8th, ... time: a duel must not flood the log
            log.error("another connection took over this table's MQTT session: a second "
                      "service with this table's credentials, or a broker that lets any user "
                      "take a client id (deploy/mosquitto.conf sets use_username_as_clientid)",
                      client_id=self.client_id, username=self.cfg.username, times=n)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, rc: Any,
                    props: Any = None) -> None:
        try:
            failed = bool(getattr(rc, "is_failure", False))
            self._inflight.acked(mid, failed, str(rc) if failed else "")
            self._wake.set()
        except Exception:
            log.exception("error in the MQTT publish callback")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """A command (``take_command`` checks its bytes and answers what fails).

        Never one the broker kept (the retain flag): it would run again at every reconnect,
        a retained ``suspend_rule`` undoing a later ``restore_rule``. Never an empty message
        (what clears a retained one; not answered), and never a message on a topic this
        service did not subscribe to (a broker that delivers what it should not)."""
        topic = msg.topic
        name = topic.removeprefix(self.topic("cmd/"))
        if name == topic or not name or "/" in name:
            log.warning("message on a topic the service did not subscribe to: dropped",
                        topic=topic, size=len(msg.payload))
            return
        if msg.retain:
            log.warning("retained command not executed (a command is never retained: clear "
                        "it with an empty retained message)", cmd=name, size=len(msg.payload))
            return
        if not msg.payload:
            return  # an empty message is no command (it clears a retained one)
        take_command(topic, bytes(msg.payload), self.cfg.max_command_bytes,
                     self.on_command, self.reply)

    # ------------------------------------------------------------------ the publisher thread
    def _run(self) -> None:
        while True:
            stopping = self._stop.is_set()
            timeout = IDLE_WAIT_S
            try:
                with self._round:
                    timeout = self._round_work(stopping)
            except Exception:  # never let the sender die; the outbox keeps everything
                log.exception("publisher loop error")
                self._stop.wait(0.5)
            if stopping:
                with self._round:
                    self._goodbye()
                return
            if self.failed is not None:
                self._stop.wait(IDLE_WAIT_S)  # given up: the service is stopping
                continue
            try:
                # the broker's socket and the waker at once; _round is let go while it waits
                self._net.wait(timeout, self._round)
            except Exception:
                with self._round:
                    self._loop_failed()

    def _round_work(self, stopping: bool) -> float:
        """One round of the publisher thread (under ``_round``); returns how long it may wait
        before the next."""
        timeout = IDLE_WAIT_S
        self._maybe_fallback()
        taken = self._take_inbox()
        self._match_acks()
        sent = self._connected.is_set() and not stopping
        if sent:
            if self._greet or self._status_due:
                self._greet = False
                self._say_online()
            timeout = self._send()
            if self._alive_due:
                self._say_alive()
            if self._idle():
                self._drained.set()
        self._through_round(taken, sent)
        return timeout

    def _goodbye(self) -> None:
        """The last status (offline) and a clean disconnect, so the broker drops the will."""
        self._said_goodbye = True
        c = self._client
        try:
            if self._connected.is_set() and self.failed is None:
                info = c.publish(self.topic("status"), json.dumps(self.status("offline")),
                                 qos=1, retain=True)
                if info.rc == MQTTErrorCode.MQTT_ERR_SUCCESS:
                    self._net.drive(time.monotonic() + GOODBYE_S, info.is_published,
                                    self._round)
            c.disconnect()  # written at once: this thread runs the client's loop
        except Exception:
            log.exception("error while disconnecting from the broker")

    def _maybe_fallback(self) -> None:
        if self.cfg.protocol != "auto" or self._protocol != mqtt.MQTTv5:
            return
        if self._ever_connected or self._answered or self._connected.is_set():
            return
        # some 3.1.1-only brokers answer a v5 CONNECT with a refusal, others never answer it
        if self._client.socket() is None:
            self._asked_ms = 0
        elif not self._asked_ms:
            self._asked_ms = now_ms()
        silent = bool(self._asked_ms) and now_ms() - self._asked_ms > V5_ANSWER_TIMEOUT_MS
        if self._v5_failures < 2 and not silent:
            return
        log.info("broker does not answer MQTT 5; falling back to 3.1.1")
        self._drop_socket()
        self._protocol = mqtt.MQTTv311
        self._new_client()

    def _new_client(self) -> None:
        """Replace the client; what the old one had in flight is sent again, from the
        outbox (consumers de-duplicate on seq)."""
        self._inflight.clear()  # the old client's messages are gone with it: send them again
        for r in self._routes.values():
            r.queue.clear()
            r.spilled = True
            r.cursor = 0
        self._retained_sent.clear()
        self._retained_busy.clear()
        self._connected.clear()
        self._client = self._make_client()
        self._client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._net = NetLoop(self._client, self._wake, on_error=self.reach.error)
        self._asked_ms = 0

    def _drop_socket(self) -> None:
        """Close the client's connection at once (the broker sees it go), without the
        DISCONNECT that would stop it from publishing the will."""
        with contextlib.suppress(Exception):
            sock = self._client.socket()
            if sock is not None:
                sock.close()

    def _loop_failed(self) -> None:
        """paho raised out of its network I/O (a callback that let an exception through, a
        bug): the client's state is not to be trusted, and a loop that stopped would leave the
        table deaf and mute while the process lives on (systemd would never restart it).
        Start a new client, or give up loudly."""
        log.exception("the MQTT network loop failed")
        now = now_ms()
        self._restarts = [t for t in self._restarts if now - t < 60_000]
        self._restarts.append(now)
        self._drop_socket()
        if len(self._restarts) > RESTARTS_PER_MINUTE:
            self.failed = (f"the MQTT network loop failed {len(self._restarts)} times within a "
                           "minute")
            log.critical("giving up on the broker connection; stopping so that the service "
                         "is restarted", reason=self.failed)
            return
        log.error("starting a new broker connection after the network loop failed",
                  restarts_in_last_minute=len(self._restarts))
        self._new_client()

    def _take_inbox(self) -> int:
        """Take in what other threads handed in; returns the number of the last submit
        taken (or of the last one before, if none came)."""
        taken = self._through
        while self._inbox:
            kind, item = self._inbox.popleft()
            if kind == "messages":
                taken, handed_in, messages = item
                if self._handed_in is None:
                    self._handed_in = handed_in
                for m in messages:
                    r = self._routes[m.route]
                    r.seen = max(r.seen, m.seq)
                    if r.spilled or m.seq <= r.cursor:
                        continue  # the outbox has it (or will have it) for the spilled route
                    if len(r.queue) >= QUEUE_MAX:
                        log.info("send queue full; reading the route from the outbox",
                                 route=m.route, queued=len(r.queue))
                        r.queue.clear()
                        r.spilled = True
                        continue
                    r.queue.append(m)
            elif kind == "retained":
                sub, text = item
                self._retained[sub] = text
            else:
                if len(self._replies) >= QUEUE_MAX:
                    self._replies.popleft()  # best effort: the oldest reply goes
                self._replies.append(item)
        return taken

    def _match_acks(self) -> None:
        """Settle what the broker acknowledged. Called by the publisher thread only, between
        two publishes, so every message the broker can have acknowledged is recorded."""
        keys: list[tuple[int, str]] = []
        for what, failed, reason in self._inflight.settle():
            if what.route:
                keys.append((what.seq, what.route))
            elif what.retained:
                self._retained_busy.discard(what.retained)
            if failed:
                self._refused(what, reason)
        if keys:
            self.outbox.post_acks(keys, now_ms())

    def _refused(self, what: Sent, reason: str) -> None:
        """The broker refused a message: counted, and reported when the report is due
        (never as a message of its own, which the broker would refuse in turn)."""
        self.refused += 1
        report = self.refusals.refused(what.topic, reason, now_ms())
        if report is None:
            return
        fields: dict[str, Any] = {"topic": report.topic, "reason": report.reason,
                                  "username": self.cfg.username}
        if report.acl:
            fields["acl_line_needed"] = report.acl
        if report.first:
            log.error("the broker refuses this table's messages", **fields)
            # one alert per event route and reason, journalled like any input; its own
            # refusal (same topic, same reason) is not reported again
            if what.route in ("events", "secure/events"):
                self.on_refused(what.seq, reason)
        else:
            log.error("the broker still refuses this table's messages",
                      refused_since_last_report=report.count, refused_in_all=report.total,
                      **fields)
        self._status_due = True

    def _publish(self, topic: str, payload: str, what: Sent, retain: bool = False) -> bool:
        """Publish and record the message id at once; False if paho did not take it."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            # the window is full: it stays queued for next time
            log.debug("publish deferred", topic=topic, rc=int(info.rc))
            return False
        # (NO_CONN: paho queued it and sends it once reconnected)
        self._inflight.record(info.mid, what)
        return True

    def _room(self) -> int:
        return self.cfg.inflight - self._inflight.count()

    def status(self, state: str = "online") -> dict[str, Any]:
        """The retained ``status``: DESIGN §9's state, version and boot, and what the broker
        refuses (``refused``: topic, reason, count and the ACL line that would fix it)."""
        doc: dict[str, Any] = {"state": state, "version": self.version, "boot": self.boot}
        refused = self.refusals.summary()
        if refused:
            doc["refused"] = refused
        return doc

    def _say_online(self) -> None:
        """The status, and every retained snapshot again (a new connection's greeting)."""
        topic = self.topic("status")
        self._status_due = False
        self._alive_due = False
        self._publish(topic, json.dumps(self.status()), Sent(topic=topic), retain=True)
        self._retained_sent.clear()
        self._retained_busy.clear()

    def _say_alive(self) -> None:
        """The status only, as a sign of life: the retained snapshots the broker holds are
        current, and sending them too would make this round (and the consumers' work) as big
        as a greeting. Left due if paho's window is full: the next round sends it."""
        topic = self.topic("status")
        self._alive_due = False
        if not self._publish(topic, json.dumps(self.status()), Sent(topic=topic),
                             retain=True):
            self._alive_due = True

    def _send(self, from_outbox: bool = True) -> float:
        """Publish what is due; returns how long the thread may wait before looking again.
        ``from_outbox=False``: a spilled route is left for the publisher thread."""
        now = now_ms()
        wait_ms = IDLE_WAIT_S * 1000
        room = self._room()
        for name, r in self._routes.items():
            if r.spilled:
                if from_outbox:
                    room = self._send_from_outbox(name, r, now, room)
                continue
            while r.queue and room > 0:
                msg = r.queue[0]
                if msg.not_before > now:
                    wait_ms = min(wait_ms, msg.not_before - now)
                    break  # later ones are delayed at least as long
                topic = self.topic(name)
                if not self._publish(topic, msg.payload, Sent(msg.seq, name, topic=topic)):
                    return IDLE_WAIT_S
                room -= 1
                r.queue.popleft()
                r.cursor = msg.seq
                self.published += 1
        # retained snapshots: one in flight per topic, the latest value
        for sub, text in self._retained.items():
            if sub in self._retained_busy or self._retained_sent.get(sub) == text:
                continue
            topic = self.topic(sub)
            if room <= 0 or not self._publish(topic, text, Sent(retained=sub, topic=topic),
                                              retain=True):
                break
            room -= 1
            self._retained_busy.add(sub)
            self._retained_sent[sub] = text
        while self._replies and room > 0:
            topic, text = self._replies[0]
            if not self._publish(topic, text, Sent(topic=topic)):
                break
            room -= 1
            self._replies.popleft()
        return max(0.001, wait_ms / 1000)

    def _send_from_outbox(self, name: str, r: _Route, now: int, room: int) -> int:
        """A spilled route: what the outbox has after the cursor, until it has caught up.
        Returns the room left in the window."""
        while room > 0:
            written = self.outbox.written_seq
            batch = self.outbox.pending(name, r.cursor, min(room, OUTBOX_BATCH))
            if not batch:
                if written >= r.seen:  # everything submitted so far was there: live again
                    r.spilled = False
                return room
            for msg in batch:
                if msg.not_before > now:
                    return room  # later ones are delayed at least as long
                topic = self.topic(name)
                if not self._publish(topic, msg.payload, Sent(msg.seq, name, topic=topic)):
                    return 0
                room -= 1
                r.cursor = msg.seq
                self.published += 1
        return room

    def _idle(self) -> bool:
        if self._inflight.busy():
            return False
        return not self._inbox and all(not r.queue and not r.spilled
                                       for r in self._routes.values())


def read_password(path: str) -> str | None:
    """The broker password from its file (never from the config itself)."""
    if not path:
        return None
    return Path(path).read_text(encoding="utf-8").strip()
