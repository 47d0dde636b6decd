"""How a broker connection's failures are named and how often they are said
(tablesvc.pipeline.reach); against real brokers: tests/integration/test_broker_reach.py."""

from __future__ import annotations

import errno
import socket
import ssl
from typing import Any

from tablesvc.pipeline import reach


class Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def warning(self, event: str, **fields: Any) -> None:
        self.lines.append(("warning", event, fields))

    def exception(self, event: str, **fields: Any) -> None:
        self.lines.append(("error", event, fields))


def test_each_failure_is_named_with_the_host_and_port() -> None:
    def kind(exc: BaseException, tls: bool = False) -> reach.Trouble:
        return reach.from_error(exc, "broker.venue", 8883, tls)

    assert kind(socket.gaierror(-2, "Name or service not known")) == reach.Trouble(
        reach.HOST_NOT_FOUND, "host broker.venue not found (Name or service not known)")
    assert kind(ConnectionRefusedError(111, "Connection refused")).text == (
        "no broker at broker.venue:8883 (connection refused)")
    assert kind(TimeoutError("timed out")).kind == reach.NO_ANSWER
    assert kind(OSError(errno.EHOSTUNREACH, "No route to host")).kind == reach.UNREACHABLE
    assert kind(ConnectionResetError(104, "reset"), tls=True).kind == reach.TLS_FAILED
    assert kind(ConnectionResetError(104, "reset"), tls=False).kind == reach.OTHER
    cert = ssl.SSLCertVerificationError(1, "certificate verify failed")
    cert.verify_message = "certificate has expired"
    assert "does not vouch for: certificate has expired" in kind(cert, tls=True).text
    assert reach.where("::1", 1883) == "[::1]:1883"
    refused = reach.from_connack(135, "broker.venue", 8883, "floor")
    assert refused.kind == reach.REFUSED_USER and "refused user floor" in refused.text


def test_a_failure_is_said_once_a_new_reason_once_more_and_the_connection_says_it_is_over(
        ) -> None:
    log = Log()
    r = reach.Reach(log, "127.0.0.1", 1883, tls=False, username="t01")
    for _ in range(50):
        r.error(ConnectionRefusedError(111, "Connection refused"))
    assert [(level, event) for level, event, _ in log.lines] == [
        ("warning", "cannot connect to the broker")]
    assert log.lines[0][2]["reason"] == "no broker at 127.0.0.1:1883 (connection refused)"
    for _ in range(5):
        r.refused(134)
        r.closed("Unspecified error")  # the refusal's own close: nothing more to say
    assert len(log.lines) == 2
    assert log.lines[1][1] == "still cannot connect to the broker, now for another reason"
    assert "refused user t01" in log.lines[1][2]["reason"]
    assert r.failures == 55
    back = r.connected()
    assert back == {"after": log.lines[1][2]["reason"], "failed_attempts": 55}
    assert r.connected() == {}  # said once
    r.error(ConnectionRefusedError(111, "Connection refused"))
    assert len(log.lines) == 3  # a new outage is said again
