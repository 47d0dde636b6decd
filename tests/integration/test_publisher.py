"""The publisher against real brokers: fallback to MQTT 3.1.1, broadcast delay, cmd/replay."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tablesvc.brokers.embedded import EmbeddedBroker
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.config.table import MqttSection
from tablesvc.pipeline.outbox import Message, Outbox
from tablesvc.pipeline.publisher import Publisher
from tests.conftest import Subscriber

pytestmark = pytest.mark.integration


def event(seq: int, etype: str = "card_dealt") -> str:
    return json.dumps({"v": 1, "venue": "v", "table": "t", "seq": seq, "type": etype})


def make_publisher(port: int, outbox: Outbox, protocol: str = "auto",
                   commands: list[tuple[str, dict[str, Any]]] | None = None) -> Publisher:
    got = commands if commands is not None else []
    return Publisher(MqttSection(port=port, protocol=protocol), "tablesvc/v1/v/t", outbox,
                     on_command=lambda name, body: got.append((name, body)),
                     on_refused=lambda seq, reason: None, client_id="pub-test", version="t")


def test_auto_protocol_falls_back_to_311_for_a_broker_without_mqtt5(tmp_path: Path) -> None:
    port = free_port()
    broker = EmbeddedBroker(port)
    broker.start()
    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.add([Message(1, "events", event(1), 0, 0)])
    pub = make_publisher(port, outbox)
    pub.start()
    try:
        wait_until(lambda: pub.connected, 20, "a connection over 3.1.1")
        wait_until(lambda: outbox.unacked_count() == 0, 10, "the event acknowledged")
    finally:
        pub.stop()
        broker.stop()


def test_secure_events_wait_for_the_broadcast_delay_while_public_ones_do_not(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    sub = subscriber_factory("tablesvc/v1/v/t/#")
    outbox = Outbox(tmp_path / "o.sqlite")
    now = int(time.time() * 1000)
    outbox.add([Message(1, "events", event(1), now, now),
                Message(2, "secure/events", event(2, "hole_cards"), now + 1500, now),
                Message(3, "events", event(3), now, now)])
    pub = make_publisher(broker.port, outbox, "5")
    pub.start()
    try:
        wait_until(lambda: len(sub.events("events")) == 2, 10, "public events")
        assert sub.events("secure/events") == []  # still held back
        wait_until(lambda: len(sub.events("secure/events")) == 1, 10, "the delayed event")
        assert time.time() * 1000 >= now + 1500
    finally:
        pub.stop()


def test_commands_reach_the_handler_and_invalid_json_is_answered_with_an_error(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    sub = subscriber_factory("tablesvc/v1/v/t/#")
    got: list[tuple[str, dict[str, Any]]] = []
    pub = make_publisher(broker.port, Outbox(tmp_path / "o.sqlite"), "5", got)
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "connection")
        time.sleep(0.2)  # the command subscription is in place
        sub.publish("tablesvc/v1/v/t/cmd/seat", {"request_id": 7, "seat": 2})
        sub.client.publish("tablesvc/v1/v/t/cmd/seat", b"[1, 2]", qos=1)
        wait_until(lambda: got and sub.on("cmd/seat/reply"), 10, "handler call and reply")
        assert got == [("seat", {"request_id": 7, "seat": 2})]
        reply = sub.on("cmd/seat/reply")[0]
        assert reply["ok"] is False and "JSON object" in reply["error"]
    finally:
        pub.stop()


def test_a_message_the_broker_refuses_is_reported_and_not_retried(tmp_path: Path) -> None:
    # the ACL lets this client write its status and alerts but not its events topic
    acl = tmp_path / "acl"
    acl.write_text("topic write tablesvc/v1/v/t/status\ntopic write tablesvc/v1/v/t/alerts\n"
                   "topic read tablesvc/v1/v/t/cmd/+\n")
    store = tmp_path / "broker"
    store.mkdir()
    broker = Mosquitto(store, f"acl_file {acl}\n")
    broker.start()
    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.add([Message(1, "events", event(1), 0, 0), Message(2, "alerts", event(2), 0, 0)])
    refused: list[tuple[int, str]] = []
    pub = Publisher(MqttSection(port=broker.port, protocol="5"), "tablesvc/v1/v/t", outbox,
                    on_command=lambda n, b: None,
                    on_refused=lambda seq, reason: refused.append((seq, reason)),
                    client_id="pub-acl", version="t")
    pub.start()
    try:
        wait_until(lambda: bool(refused), 10, "the refusal to be reported")
        wait_until(lambda: outbox.unacked_count() == 0, 10, "both messages settled")
        assert [seq for seq, _ in refused] == [1]  # the alert on its own topic went through
        assert "authori" in refused[0][1].lower()
        sent = pub.published
        time.sleep(0.5)
        assert pub.published == sent  # an alert, not a retry
    finally:
        pub.stop()
        broker.stop()


def wait_while_growing(count: Callable[[], int], target: int, stall_s: float, what: str) -> None:
    """Wait until ``count()`` reaches ``target``; give up once it has not grown for
    ``stall_s`` (a slow reader on a busy box is not a lost message; a stalled one is)."""
    last, since = -1, time.monotonic()
    while (n := count()) < target:
        if n != last:
            last, since = n, time.monotonic()
        elif time.monotonic() - since > stall_s:
            raise AssertionError(f"{what}: {n} of {target}, none more for {stall_s} s")
        time.sleep(0.1)
    assert n == target, f"{what}: {n}, more than the {target} sent"


def test_past_the_wrap_of_message_ids_every_puback_settles_its_own_message_only(
        tmp_path: Path) -> None:
    """paho numbers messages in flight with a 16-bit id; after 65,535 publishes the ids come
    round again. The broker refuses every seventh event (its ACL denies secure/events), so a
    PUBACK matched to the wrong message would show as a refusal of a public event or an
    accepted secure one (refusals are counted per topic). Retained state and replies are
    published all along, as the service does: their PUBACKs must not settle an event either,
    and no bookkeeping may grow. Half the batches are published by the submitting thread
    itself (``send_now``) while the publisher thread reads PUBACKs, as in the service."""
    acl = tmp_path / "acl"
    acl.write_text("topic write tablesvc/v1/v/t/status\ntopic write tablesvc/v1/v/t/events\n"
                   "topic write tablesvc/v1/v/t/state\ntopic write tablesvc/v1/v/t/cmd/+/reply\n"
                   "topic read tablesvc/v1/v/t/cmd/+\ntopic read tablesvc/v1/v/t/events\n")
    store = tmp_path / "broker"
    store.mkdir()
    broker = Mosquitto(store, f"acl_file {acl}\n")
    broker.start()
    total, first = 70_000, 30_000
    secure = {s for s in range(1, total + 1) if s % 7 == 0}

    def message(seq: int) -> Message:
        return Message(seq, "secure/events" if seq in secure else "events", event(seq), 0, 0)

    outbox = Outbox(tmp_path / "o.sqlite")
    outbox.add([message(s) for s in range(1, first + 1)])  # the backlog of a restart
    outbox.start()
    refused: list[int] = []
    pub = Publisher(MqttSection(port=broker.port, protocol="5", inflight=1000),
                    "tablesvc/v1/v/t", outbox, on_command=lambda n, b: None,
                    on_refused=lambda seq, reason: refused.append(seq),
                    client_id="pub-wrap", version="t")
    sub = Subscriber(broker.port, "tablesvc/v1/v/t/events")
    stop = threading.Event()

    def chatter() -> None:  # the retained snapshot after every batch, and command replies
        n = 0
        while not stop.is_set():
            n += 1
            pub.set_retained("state", {"n": n})
            if n % 50 == 0:
                pub.reply("seat", {"request_id": n, "ok": True, "error": None, "data": None})
            time.sleep(0.001)

    peak: dict[str, int] = {}

    def sample() -> None:
        for k, v in pub.tracking().items():
            peak[k] = max(peak.get(k, 0), v)

    pub.start()
    talker = threading.Thread(target=chatter, daemon=True)
    talker.start()
    try:
        # the rest handed over live, batch by batch, as the pipeline does
        for lo in range(first + 1, total + 1, 500):
            batch = [message(s) for s in range(lo, min(lo + 500, total + 1))]
            outbox.post(batch)
            if lo // 500 % 2:  # as the pipeline does: it sends them itself when it can
                pub.submit(batch, wake=False)
                pub.send_now()  # (it wakes the publisher thread when it cannot send)
            else:  # or the publisher thread sends them
                pub.submit(batch)
            sample()
            wait_until(lambda: pub.tracking()["queued"] < 5000, 60, "the queue to drain")
        def settled() -> int:
            outbox.flush()
            return total - outbox.unacked_count()

        wait_while_growing(settled, total, 60, "messages settled")
        stop.set()
        talker.join(5)
        # the subscriber's client shares this process's interpreter with the publisher's
        # threads and reads its tail well after the broker acknowledged it: wait as long as
        # it keeps reading, and fail once it has stopped short
        wait_while_growing(lambda: len(sub.events("events")), total - len(secure), 30,
                           "every public event at the subscriber")
        sample()
        assert pub.published >= total  # the 16-bit ids came round at least once
        # each refusal on its own message: every secure event and nothing else, counted once
        # each, and reported (as an alert) for the first only
        assert pub.refused == len(secure)
        assert [(r["topic"], r["count"]) for r in pub.refusals.summary()] == [
            ("tablesvc/v1/v/t/secure/events", len(secure))]
        assert refused == [min(secure)]
        assert [e["seq"] for e in sub.events("events")] == [
            s for s in range(1, total + 1) if s not in secure]
        wait_until(lambda: pub.tracking()["inflight"] == 0, 10, "the last retained PUBACK")
        left = pub.tracking()
        assert left["inflight"] == left["ids"] == left["acked"] == left["queued"] == 0
        assert left["retained"] == 1 and left["replies"] == 0
        assert pub.peak_inflight <= 1000 and peak["inflight"] <= 1000
        assert peak["acked"] <= 1000 and peak["queued"] <= 10_000
    finally:
        stop.set()
        pub.stop()
        sub.close()
        outbox.close()
        broker.stop()


def test_let_send_returns_once_the_publisher_has_sent_what_was_submitted(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    """The pipeline steps aside after each submit so that the publisher thread runs at once;
    it must not come back before the events went out (else it gains nothing), and must never
    wait for a publisher that cannot send."""
    sub = subscriber_factory("tablesvc/v1/v/t/events")
    status = subscriber_factory("tablesvc/v1/v/t/status")
    outbox = Outbox(tmp_path / "o.sqlite")
    pub = make_publisher(broker.port, outbox, "5")
    t = time.monotonic()
    pub.let_send(5.0)  # not started yet
    assert time.monotonic() - t < 1.0, "let_send waited for a publisher not started"
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "connection")
        # the connection's greeting done: its round sends what the outbox holds (the service
        # writes every event there before it submits; this test's events are not in it)
        wait_until(lambda: bool(status.messages), 10, "the greeting's status")
        for seq in range(1, 101):
            before = pub.published
            pub.submit([Message(seq, "events", event(seq), 0, 0)])
            pub.let_send(60.0)  # it comes back as soon as the event went out: a busy box
            # may take seconds, and only a let_send that does not wait comes back before
            assert pub.published == before + 1, f"let_send came back before event {seq} went out"
        wait_until(lambda: len(sub.events("events")) == 100, 10, "all 100 events")
        broker.stop()
        wait_until(lambda: not pub.connected, 10, "the broker gone")
        t = time.monotonic()
        pub.submit([Message(101, "events", event(101), 0, 0)])
        pub.let_send(5.0)
        assert time.monotonic() - t < 1.0, "let_send waited for a publisher without a broker"
    finally:
        pub.stop()


def test_the_submitting_thread_writes_its_events_itself_when_the_publisher_is_free(
        tmp_path: Path, broker: Mosquitto,
        subscriber_factory: Callable[[str], Subscriber]) -> None:
    """At a table's pace the publisher thread sleeps between events; waking it cost a
    thread's wake-up on every event's way. ``send_now`` publishes on the caller's thread
    instead: the event is on the broker's socket when it returns. It never waits, and it
    leaves the work to the publisher thread when the broker is away."""
    sub = subscriber_factory("tablesvc/v1/v/t/events")
    outbox = Outbox(tmp_path / "o.sqlite")
    pub = make_publisher(broker.port, outbox, "5")
    assert not pub.send_now()  # not started
    pub.start()
    try:
        wait_until(lambda: pub.connected, 10, "connection")
        wait_until(pub.send_now, 10, "the routes live (nothing left in the outbox)")
        here = 0
        for seq in range(1, 101):
            before = pub.published
            pub.submit([Message(seq, "events", event(seq), 0, 0)], wake=False)
            # the publisher thread wakes for each PUBACK, for a round of its own: the
            # submitting thread waits for it to be over (a busy box may stretch it), no longer
            if pub.send_now(2.0):
                here += 1
                assert pub.published == before + 1, f"send_now returned before event {seq}"
            else:  # a round that needs the publisher thread (the status it republishes)
                pub.let_send(5.0)
        assert here >= 90, f"only {here} of 100 events sent by the submitting thread"
        # while the publisher thread is in a round (here: its lock held for 0.5 s), send_now
        # waits no longer than it is told, and sends once the round is over
        held, release = threading.Event(), threading.Event()

        def round_in_progress() -> None:
            with pub._round:
                held.set()
                release.wait(0.5)

        holder = threading.Thread(target=round_in_progress)
        holder.start()
        held.wait(5)
        pub.submit([Message(101, "events", event(101), 0, 0)], wake=False)
        t = time.monotonic()
        assert not pub.send_now(0.05), "send_now sent while the publisher was in a round"
        assert time.monotonic() - t < 0.4, "send_now waited longer than it was told"
        threading.Timer(0.1, release.set).start()
        assert pub.send_now(5.0), "send_now did not send once the round was over"
        holder.join()
        wait_until(lambda: len(sub.events("events")) == 101, 10, "all 101 events")
        assert [e["seq"] for e in sub.events("events")] == list(range(1, 102))
        wait_until(lambda: pub.tracking()["inflight"] == 0, 10, "every PUBACK settled")
        broker.stop()
        wait_until(lambda: not pub.connected, 10, "the broker gone")
        t = time.monotonic()
        pub.submit([Message(102, "events", event(102), 0, 0)], wake=False)
        assert not pub.send_now(), "send_now published with no broker"
        assert time.monotonic() - t < 1.0, "send_now waited for a publisher without a broker"
        assert pub.tracking()["queued"] == 0 and pub.tracking()["inbox"] == 1
    finally:
        pub.stop()
