"""The first look at a command's bytes, before anything else sees them.

A command arrives from the broker as bytes on ``cmd/<name>``. Before it is journalled (and a
journalled input is replayed on every restart, for ever) it must be something the rest of the
service can hold without failing: a JSON object of bounded size and depth, whose numbers are
finite and fit in 53 bits, and whose strings are text (a lone UTF-16 surrogate such as
``"\\ud800"`` decodes in Python but cannot be written back as UTF-8, so the journal would fail
on it). What fails here is answered at once and never journalled; what passes is checked
strictly against the command's model by the core (``tablesvc.core.commands``).

>>> decode_command(b'{"seat": 3, "name": "Bob", "stack": 10000}', 8192)
{'seat': 3, 'name': 'Bob', 'stack': 10000}
>>> try:
...     decode_command(b'{"from_seq": 1e999}', 8192)
... except IntakeError as err:
...     print(err)
number 1e999 is out of range
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable
from typing import Any

import structlog

log = structlog.get_logger("tablesvc.pipeline.intake")

MAX_DEPTH = 8
"""Nesting of arrays and objects a command may use; the deepest command needs 3."""
SAFE_INT = 2**53 - 1
"""The largest integer every JSON reader (JavaScript's included) reads exactly."""
REQUEST_ID_MAX = 128


class IntakeError(ValueError):
    """A command body refused before it is journalled; the text goes into the reply."""


def _refuse_constant(name: str) -> Any:
    raise IntakeError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise IntakeError(f"number {text} is out of range")
    return value


def _safe_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > 16 or abs(value := int(text)) > SAFE_INT:
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(digits)} digits)"
        raise IntakeError(f"integer {shown} is out of range (at most {SAFE_INT})")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise IntakeError(f"key {_shown(key)} is given twice")
        out[key] = value
    return out


def _shown(text: str) -> str:
    """A string from the body, safe to put into a reply or a log line."""
    clean = text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
    return repr(clean if len(clean) <= 40 else clean[:40] + "…")


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings do
    not count). Measured before parsing, because the parser itself recurses."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _check_text(value: Any, where: str = "body") -> None:
    """Every string, key or value, must be encodable as UTF-8 (no lone surrogates)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise IntakeError(f"{where}: the string holds a lone surrogate (such as \\ud800), "
                              "which is not text") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_text(k, where)
            _check_text(v, f"{where}.{k}" if k.isprintable() and k.isascii() else where)
    elif isinstance(value, list):
        for item in value:
            _check_text(item, where)


def decode_command(payload: bytes, max_bytes: int) -> dict[str, Any]:
    """The command's JSON object, or IntakeError saying what is wrong with the bytes."""
    if len(payload) > max_bytes:
        raise IntakeError(f"the body is {len(payload)} bytes; a command may have at most "
                          f"{max_bytes}")
    if not payload:
        return {}
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IntakeError(f"the body is not UTF-8 text (byte {exc.start})") from None
    if nesting(text) > MAX_DEPTH:
        raise IntakeError(f"the body nests arrays or objects deeper than {MAX_DEPTH} levels")
    try:
        body = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite,
                          parse_int=_safe_int, object_pairs_hook=_object)
    except IntakeError:
        raise
    except (ValueError, RecursionError) as exc:
        raise IntakeError(f"invalid JSON body: {exc}") from None
    if not isinstance(body, dict):
        raise IntakeError("invalid JSON body: the body must be a JSON object")
    _check_text(body)
    return body


def request_id_of(payload: bytes) -> str | int | None:
    """The request_id of a refused body, when it can be read safely, so that the controller
    can still match the error reply to its request; None otherwise."""
    if len(payload) > 65536:
        return None
    try:
        body = json.loads(payload.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    rid = body.get("request_id") if isinstance(body, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, str | int) or (
            isinstance(rid, int) and abs(rid) > SAFE_INT):
        return None
    if isinstance(rid, str):
        try:
            rid.encode("utf-8")
        except UnicodeEncodeError:
            return None
        if len(rid) > REQUEST_ID_MAX:
            return None
    return rid


def take_command(topic: str, payload: bytes, max_bytes: int,
                 on_command: Callable[[str, dict[str, Any]], None],
                 reply: Callable[[str, dict[str, Any]], None]) -> None:
    """A command from the broker: its bytes are checked before anything reads them, and
    whatever goes wrong is answered on its reply topic. Never raises: it runs inside the
    MQTT client's network loop, which nothing a message brings in may break."""
    name = "unknown"
    try:
        name = topic.rsplit("/", 1)[-1]
        try:
            body = decode_command(payload, max_bytes)
        except IntakeError as exc:
            rid = request_id_of(payload) if len(payload) <= max_bytes else None
            reply(name, {"request_id": rid, "ok": False, "error": str(exc), "data": None})
            log.warning("command refused unread", cmd=name, error=str(exc), size=len(payload))
            return
        on_command(name, body)
    except Exception as exc:
        log.exception("command failed", cmd=name)
        with contextlib.suppress(Exception):
            reply(name, {"request_id": None, "ok": False,
                         "error": f"internal error ({type(exc).__name__}); the command was "
                         "not carried out", "data": None})
