"""Commands an attacker (or a broken controller) sends cannot silence a table.

Each payload below once killed paho's network thread (the table went deaf and mute while the
process lived on), made the process exit, or was taken as something it is not. Against the
running service and a real mosquitto, every one must be answered with an error on its reply
topic, none may reach the journal unless it is a well-formed command (a refused body never
does), and afterwards the table must still answer a valid command and publish new events.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from simulators.virtual import VirtualTableRig
from tablesvc.brokers.mosquitto import Mosquitto, wait_until
from tests.conftest import ServiceProcess, Subscriber
from tests.integration.conftest import PREFIX, start_service

pytestmark = pytest.mark.integration

HOSTILE: list[tuple[str, str, bytes, str]] = [
    # (request id, command, body, words the error must contain)
    ("inf", "replay", b'{"request_id": "inf", "from_seq": 1e999, "to_seq": 1e999}',
     "out of range"),
    ("big", "replay", b'{"request_id": "big", "from_seq": 1, "to_seq": 1' + b"0" * 30 + b"}",
     "out of range"),
    ("deep", "replay", b"[" * 100_000 + b"]" * 100_000, "bytes"),
    ("deep-small", "seat", b'{"request_id": "deep-small", "name": ' + b"[" * 3000
     + b"]" * 3000 + b"}", "deeper than"),
    ("nan", "seat", b'{"request_id": "nan", "seat": 2, "name": "N", "stack": NaN}', "NaN"),
    ("surrogate", "seat", b'{"request_id": "surrogate", "seat": 2, "name": "\\ud800", '
     b'"stack": 100}', "surrogate"),
    ("bool", "seat", b'{"request_id": "bool", "seat": true, "name": "B", "stack": 100}',
     "seat: Input should be a valid integer"),
    ("rich", "seat", b'{"request_id": "rich", "seat": 2, "name": "R", "stack": 1'
     + b"0" * 15 + b"}", "max_stack"),
    ("rule", "declare", b'{"request_id": "rule", "ruling": "suspend_rule", "rule": "ZZZ-99"}',
     "not a rule of the rules catalogue"),
    ("huge", "seat", b'{"request_id": "huge", "seat": 2, "name": "' + b"x" * 2_000_000 + b'"}',
     "bytes"),
    ("twice", "button", b'{"request_id": "twice", "seat": 1, "seat": 3}', "given twice"),
]


def test_hostile_commands_are_refused_with_a_reply_and_the_table_keeps_working(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    sub = subscriber_factory(f"{PREFIX}/#")
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    # Ann has 5000 in seat 1 (the config's players)
    for _, name, body, _ in HOSTILE:
        sub.client.publish(f"{PREFIX}/cmd/{name}", body, qos=1)

    def replies() -> list[tuple[str, dict[str, object]]]:
        names = sorted({name for _, name, _, _ in HOSTILE} | {"seat"})
        return [(n, p) for n in names for p in sub.on(f"cmd/{n}/reply") if isinstance(p, dict)]

    wait_until(lambda: len(replies()) >= len(HOSTILE), 15, "a reply to every payload")
    for rid, name, _, words in HOSTILE:
        # answered on its own reply topic, with its request id where the body could be read
        answer = [p for n, p in replies() if n == name and words in str(p["error"])
                  and p["request_id"] in (rid, None)]
        assert len(answer) == 1, (rid, replies())
        assert answer[0]["ok"] is False
    assert {p["request_id"] for _, p in replies()} >= {"surrogate", "bool", "rich", "rule"}

    # still alive: a valid command is answered and its event published, within 5 s
    before = max(e["seq"] for e in sub.events())
    sub.publish(f"{PREFIX}/cmd/seat", {"request_id": "ok", "seat": 2, "name": "Eve",
                                       "stack": 3000})
    wait_until(lambda: any(p["request_id"] == "ok" for _, p in replies()), 5,
               "the valid command's reply")
    assert [p["ok"] for _, p in replies() if p["request_id"] == "ok"] == [True]
    wait_until(lambda: any(e["seq"] > before and e["type"] == "alert"
                           and e["name"] == "player_seated" for e in sub.events()), 5,
               "the seating's event")
    # the seated player of seat 1 kept his stack: a `true` seat was not taken as seat 1

    def stacks() -> dict[int, int]:
        states = [s for s in sub.on("state") if isinstance(s, dict)]
        return {p["seat"]: p["stack"] for p in states[-1].get("players", [])} if states else {}

    wait_until(lambda: 2 in stacks(), 5, "the state with Eve seated")
    assert stacks()[1] == 5000 and stacks()[2] == 3000
    assert svc.stop() == 0
    journal = b"".join(p.read_bytes().rstrip(b"\0")
                       for p in sorted((tmp_path / "store" / "journal").iterdir()))
    commands = [json.loads(line) for line in journal.splitlines()
                if b'"src": "cmd"' in line]
    # the refused bodies were never journalled; the well-formed ones were (and refused there)
    assert [c["body"].get("request_id") for c in commands] == ["bool", "rich", "rule", "ok"]
    assert len(journal) < 200_000


def test_a_retained_command_is_never_executed_nor_an_empty_one_answered(
        tmp_path: Path, broker: Mosquitto, rig: VirtualTableRig,
        subscriber_factory: Callable[[str], Subscriber],
        service_factory: Callable[[Path], ServiceProcess]) -> None:
    """A command left retained on the broker (before the service started, or kept over its
    restarts) reaches the service with the retain flag at every subscription: it is not run
    (a retained suspend_rule would undo every later restore_rule). The empty message that
    clears it is no command and gets no answer."""
    sub = subscriber_factory(f"{PREFIX}/#")
    stale = {"request_id": "stale", "ruling": "suspend_rule", "rule": "SEAT-10"}
    info = sub.client.publish(f"{PREFIX}/cmd/declare", json.dumps(stale), qos=1, retain=True)
    info.wait_for_publish(5)
    _, svc = start_service(tmp_path, rig, broker, service_factory, sub)
    sub.client.publish(f"{PREFIX}/cmd/declare", b"", qos=1, retain=True).wait_for_publish(5)
    sub.client.publish(f"{PREFIX}/cmd/seat", b"", qos=1).wait_for_publish(5)
    sub.publish(f"{PREFIX}/cmd/seat", {"request_id": "ok", "seat": 2, "name": "Eve",
                                       "stack": 3000})
    wait_until(lambda: any(isinstance(p, dict) and p.get("request_id") == "ok"
                           for p in sub.on("cmd/seat/reply")), 10, "the valid command's reply")
    answers = [p for n in ("declare", "seat") for p in sub.on(f"cmd/{n}/reply")]
    assert [p["request_id"] for p in answers] == ["ok"]
    assert svc.stop() == 0
    journal = b"".join(p.read_bytes().rstrip(b"\0")
                       for p in sorted((tmp_path / "store" / "journal").iterdir()))
    assert b"stale" not in journal and b"suspend_rule" not in journal
    assert "retained command not executed" in svc.logs()
