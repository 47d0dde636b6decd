"""Why the broker cannot be reached, in one sentence, said once (issue 30).

A connection to the broker fails in a handful of ways, each with its own remedy, and paho
names none of them plainly: a client without TLS on the broker's TLS port sees the connection
closed at once, before any answer (which looked like another program taking its place); one
with TLS on a plain port sees its handshake reset; a refused TCP connection, an unknown host
and a certificate the CA file does not vouch for are exceptions deep in a reconnect loop.
``trouble`` turns each into a sentence naming ``host:port`` and what to do (``Trouble``);
where the failure alone is ambiguous (a connection closed before the broker answered, a
handshake reset), one quick probe of the port settles it: a TLS handshake that succeeds means
the port speaks TLS, an MQTT CONNECT answered with a CONNACK means it speaks plain MQTT.

``Reach`` says it once, for a program that keeps reconnecting (the table's service, the floor
console, the tournament controller): one warning when the trouble starts, one more each time
its reason changes, nothing for the attempts in between, and when the broker answers again
the program's own "connected" line carries what it was (``connected``). Thread-safe: paho's
thread, the publisher's and a probe's call it.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import ssl
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROBE_TIMEOUT_S = 3.0

NO_BROKER = "no_broker"
HOST_NOT_FOUND = "host_not_found"
NO_ANSWER = "no_answer"
UNREACHABLE = "unreachable"
EXPECTS_TLS = "expects_tls"
NO_TLS = "no_tls"
TLS_FAILED = "tls_failed"
CERTIFICATE = "certificate"
REFUSED_USER = "refused_user"
REFUSED = "refused"
CLOSED = "closed"
OTHER = "other"

BAD_CREDENTIALS = frozenset({4, 5, 134, 135})
"""CONNACK codes of a refused user: 3.1.1's 4 and 5, MQTT 5's 134 (bad user name or
password) and 135 (not authorized); paho reports 3.1.1's as MQTT 5's."""


@dataclass(frozen=True)
class Trouble:
    kind: str
    text: str


def where(host: str, port: int) -> str:
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]:{port}"
    except ValueError:
        pass
    return f"{host}:{port}"


def from_error(exc: BaseException, host: str, port: int, tls: bool) -> Trouble:
    """A connect attempt that raised: the TCP connect, or (``tls``) the TLS handshake.
    ``TLS_FAILED`` is ambiguous (a plain port resets the handshake): ``confirm`` settles it."""
    at = where(host, port)
    if isinstance(exc, socket.gaierror):
        return Trouble(HOST_NOT_FOUND, f"host {host} not found ({exc.strerror or exc})")
    if isinstance(exc, ssl.SSLCertVerificationError):
        return Trouble(CERTIFICATE, f"the broker at {at} has a certificate that mqtt.ca_file "
                       f"does not vouch for: {exc.verify_message or exc} (mqtt.ca_file must "
                       "be the venue CA's certificate, and mqtt.host a name or address the "
                       "broker's certificate was made for)")
    if isinstance(exc, ConnectionRefusedError):
        return Trouble(NO_BROKER, f"no broker at {at} (connection refused)")
    if isinstance(exc, TimeoutError):
        return Trouble(NO_ANSWER, f"no answer from {at} (timed out): the machine is off, or "
                       "a firewall drops the connection")
    if isinstance(exc, OSError) and exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH,
                                                  errno.EHOSTDOWN):
        return Trouble(UNREACHABLE, f"{at} cannot be reached ({exc.strerror})")
    if tls and isinstance(exc, ssl.SSLError | ConnectionResetError | ConnectionAbortedError
                          | BrokenPipeError):
        reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
        return Trouble(TLS_FAILED, f"the TLS handshake with the broker at {at} failed "
                       f"({reason})")
    return Trouble(OTHER, f"cannot connect to {at}: {exc}")


def from_connack(rc: Any, host: str, port: int, username: str) -> Trouble:
    """The broker answered the CONNECT with a refusal."""
    at = where(host, port)
    value = getattr(rc, "value", rc)
    if value in BAD_CREDENTIALS:
        return Trouble(REFUSED_USER, f"the broker at {at} refused user "
                       f"{username or '(anonymous)'} ({rc}): check the user name and its "
                       "password (mqtt.password_file)")
    return Trouble(REFUSED, f"the broker at {at} refused the connection ({rc})")


def expects_tls(host: str, port: int) -> Trouble:
    return Trouble(EXPECTS_TLS, f"the broker at {where(host, port)} expects TLS (set "
                   "mqtt.ca_file to the venue CA's certificate)")


def no_tls(host: str, port: int) -> Trouble:
    return Trouble(NO_TLS, f"the broker at {where(host, port)} does not speak TLS: it is a "
                   "plain MQTT port (use the broker's TLS port, 8883 as shipped, or no "
                   "mqtt.ca_file on this machine's own broker)")


def speaks_tls(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """A TLS handshake with the port succeeds (whoever's certificate it shows)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout) as raw, \
                ctx.wrap_socket(raw, server_hostname=host):
            return True
    except (OSError, ValueError):
        return False


CONNECT_311 = bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 0x02, 0, 10, 0, 0])
"""An MQTT 3.1.1 CONNECT: clean session, no user, an empty client id (the broker names it)."""


def speaks_plain_mqtt(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """The port answers a plain MQTT CONNECT with a CONNACK (of whatever verdict)."""
    try:
        with socket.create_connection((host, port), timeout) as s:
            s.settimeout(timeout)
            s.sendall(CONNECT_311)
            return s.recv(1)[:1] == b"\x20"
    except OSError:
        return False


def confirm(t: Trouble, host: str, port: int) -> Trouble:
    """A failed TLS handshake is a plain port when the port answers plain MQTT."""
    if t.kind == TLS_FAILED and speaks_plain_mqtt(host, port):
        return no_tls(host, port)
    return t


def closed_early(host: str, port: int, tls: bool, rc: Any) -> Trouble:
    """The broker closed the connection before its CONNACK: without TLS, a port that speaks
    TLS did (it takes the CONNECT for a broken handshake)."""
    if not tls and speaks_tls(host, port):
        return expects_tls(host, port)
    return Trouble(CLOSED, f"the broker at {where(host, port)} closed the connection before "
                   f"answering it ({rc})")


class Reach:
    """The state of one client's broker connection, for its log (see the module's doc)."""

    def __init__(self, log: Any, host: str, port: int, *, tls: bool,
                 username: str = "") -> None:
        self.log = log
        self.host, self.port, self.tls, self.username = host, port, tls, username
        self.trouble: Trouble | None = None
        """What was said last (None: nothing since the last connection)."""
        self.failures = 0
        """Attempts that failed since the last connection."""
        self._lock = threading.Lock()
        self._probing = False
        self._refused = False  # the last attempt was refused: the close that follows is its
        self._era = 0  # counts connections: a probe's answer after one is dropped

    # --------------------------------------------------------------- a failed attempt
    def error(self, exc: BaseException) -> None:
        """A connect attempt raised (the TCP connect or the TLS handshake)."""
        t = from_error(exc, self.host, self.port, self.tls)
        self._count()
        if t.kind == TLS_FAILED:
            self._probe(lambda: confirm(t, self.host, self.port), (TLS_FAILED, NO_TLS))
        else:
            self._say(t)

    def connect_failed(self, client: Any = None, userdata: Any = None) -> None:
        """paho's ``on_connect_fail`` (a client on paho's own thread): it is called while
        paho handles the exception, which tells why."""
        exc = sys.exc_info()[1]
        if exc is not None:
            self.error(exc)
            return
        self._count()
        self._probe(lambda: closed_early(self.host, self.port, self.tls, "no answer"),
                    (EXPECTS_TLS, CLOSED))

    def refused(self, rc: Any) -> None:
        """The broker answered the CONNECT with a refusal (then closes the connection:
        ``closed`` says nothing of that)."""
        with self._lock:
            self._refused = True
        self._count()
        self._say(from_connack(rc, self.host, self.port, self.username))

    def closed(self, rc: Any, quiet: bool = False) -> None:
        """The connection closed before the broker's CONNACK. ``quiet``: say only a
        mismatch the probe proves (the caller may have another explanation for the rest)."""
        with self._lock:
            refused, self._refused = self._refused, False
        if refused:
            return  # the refusal's own close: said already
        self._count()

        def probe() -> Trouble | None:
            t = closed_early(self.host, self.port, self.tls, rc)
            return None if quiet and t.kind == CLOSED else t

        self._probe(probe, (EXPECTS_TLS, CLOSED))

    def connected(self) -> dict[str, Any]:
        """The broker accepted the connection: what the trouble was (fields for the
        program's "connected" line), empty when none was said."""
        with self._lock:
            self._era += 1
            fields: dict[str, Any] = {}
            if self.trouble is not None:
                fields = {"after": self.trouble.text, "failed_attempts": self.failures}
            self.trouble = None
            self.failures = 0
            return fields

    # --------------------------------------------------------------- the saying
    def _count(self) -> None:
        with self._lock:
            self.failures += 1

    def _say(self, t: Trouble | None, era: int | None = None) -> None:
        with self._lock:
            if t is None or t == self.trouble or (era is not None and era != self._era):
                return
            first = self.trouble is None
            self.trouble = t
            failures = self.failures
        self.log.warning("cannot connect to the broker" if first else
                         "still cannot connect to the broker, now for another reason",
                         reason=t.text, kind=t.kind, host=self.host, port=self.port,
                         failed_attempts=failures)

    def _probe(self, find: Callable[[], Trouble | None], known: tuple[str, ...]) -> None:
        """``find`` on a thread of its own (a probe takes a connection, up to
        ``PROBE_TIMEOUT_S``), one at a time, unless the trouble said is one of the ``known``
        that it would find again; what it finds is said."""
        with self._lock:
            if self._probing or (self.trouble is not None and self.trouble.kind in known):
                return
            self._probing = True
            era = self._era

        def run() -> None:
            try:
                self._say(find(), era)
            except Exception:
                self.log.exception("probing the broker's port failed")
            finally:
                with self._lock:
                    self._probing = False

        threading.Thread(target=run, name="broker-probe", daemon=True).start()
