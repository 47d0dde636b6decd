"""``tablesvc watch``: one table's events, or only its alerts, in a terminal, a line each.

For the technician at the table box and for a floor terminal: it finds the broker and the
topics in the table's own config, so there is nothing else to type. Secure events are shown
only when asked for, and only a user the broker lets read them will receive any. A broker it
cannot reach is named with why (``tablesvc.pipeline.reach``): no broker at the port, a host
not found, TLS expected or not spoken, a certificate not trusted.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from rich.console import Console

from tablesvc.commands.render import render
from tablesvc.config.table import Config, resolve
from tablesvc.pipeline import reach
from tablesvc.pipeline.publisher import read_password


def topics(cfg: Config, alerts: bool, secure: bool) -> list[str]:
    prefix = f"{cfg.mqtt.topic_prefix.rstrip('/')}/{cfg.table.venue}/{cfg.table.id}"
    if alerts:
        return [f"{prefix}/alerts"]
    return [f"{prefix}/events"] + ([f"{prefix}/secure/events"] if secure else [])


PROBE_S = 5.0
"""With nothing at all from the table after this long, say why that may be."""


def _fail(console: Console, text: str) -> int:
    console.print(f"[red]{text}[/red]", soft_wrap=True)
    return 2


def run_watch(cfg: Config, args: argparse.Namespace, config_path: Path | None = None) -> int:
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    wanted = topics(cfg, args.alerts, args.secure)
    prefix = f"{cfg.mqtt.topic_prefix.rstrip('/')}/{cfg.table.venue}/{cfg.table.id}"
    status_topic = f"{prefix}/status"
    done = threading.Event()
    seen = 0
    heard = threading.Event()
    refused: list[str] = []
    denied: list[str] = []
    dropped: list[float] = []
    unanswered: list[reach.Trouble] = []  # connections closed before the broker answered
    answered = threading.Event()  # the broker answered this connection (CONNACK)
    pending: dict[int, list[str]] = {}

    username = args.username if args.username is not None else cfg.mqtt.username
    if args.username is None and username:
        # the table's own user writes the table's topics and reads nothing but its
        # commands; and the broker ties client ids to users, so connecting as it would
        # disconnect the running service
        return _fail(err, f"watch would read as user {username}, the table's own: the broker "
                     f"denies user {username} reading {wanted[0]} (a table only writes its "
                     "topics), and connecting as the table would disconnect its service. Give "
                     "a reader's account: --username floor --password-file FILE (or "
                     "controller, or broadcast for --secure)")
    base = config_path or Path(".")
    password: str | None = None
    password_file = args.password_file or cfg.mqtt.password_file
    if username and password_file:
        path = Path(args.password_file) if args.password_file else resolve(base, password_file)
        try:
            password = read_password(str(path))
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(err, f"cannot read the password file {path}: "
                         f"{getattr(exc, 'strerror', None) or exc}")
    ca_file = str(resolve(base, cfg.mqtt.ca_file)) if cfg.mqtt.ca_file else ""
    if ca_file and not Path(ca_file).is_file():
        return _fail(err, f"cannot read the CA certificate {ca_file} (mqtt.ca_file)")

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                   props: Any = None) -> None:
        if rc != 0:
            refused.append(str(rc))
            done.set()
            return
        answered.set()
        subs = [(t, 1) for t in [*wanted, status_topic]]
        _, mid = client.subscribe(subs)
        if mid is not None:
            pending[mid] = [t for t, _ in subs]

    def on_subscribe(client: mqtt.Client, userdata: Any, mid: int, codes: Any,
                     props: Any = None) -> None:
        for topic, code in zip(pending.pop(mid, []), codes, strict=False):
            if getattr(code, "is_failure", False) or code == 128:
                denied.append(topic)
        if denied:
            done.set()
        else:  # on stderr, so that --json output stays clean
            err.print(f"watching {', '.join(wanted)} as "
                      f"{f'user {username}' if username else 'an anonymous client'}")

    def on_disconnect(client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                      props: Any = None) -> None:
        if done.is_set():
            return
        if not answered.is_set():
            # closed before any answer: a TLS port spoken to without TLS (probed), or a broker
            # that will not take this client at all; never another program's takeover
            trouble = reach.closed_early(cfg.mqtt.host, cfg.mqtt.port, bool(ca_file), rc)
            unanswered.append(trouble)
            if trouble.kind == reach.EXPECTS_TLS or len(unanswered) >= 3:
                done.set()
            return
        answered.clear()
        now = time.monotonic()
        dropped[:] = [t for t in dropped if now - t < 10] + [now]
        if len(dropped) >= 3:
            done.set()

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        nonlocal seen
        heard.set()
        if msg.topic == status_topic:
            return  # only a sign of life (and of the right to read): not an event
        if args.count is not None and seen >= args.count:
            # a burst (a deal comes in one batch) goes on arriving until the main thread has
            # disconnected: --count N prints N events, not N and whatever came meanwhile
            return
        try:
            payload = json.loads(msg.payload)
        except (ValueError, RecursionError):
            err.print(f"[red]not JSON on {msg.topic}[/red]")  # stdout keeps events only
            return
        if args.alerts and isinstance(payload, dict) and payload.get("severity") == "info":
            return  # the alerts feed is for people: an older service may still send info
        if args.json:
            print(json.dumps(payload), flush=True)
        else:
            console.print(render(payload, secure="/secure/" in msg.topic))
        seen += 1
        if args.count is not None and seen >= args.count:
            done.set()

    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id=f"watch-{cfg.table.id}-{os.getpid()}",
                         protocol=mqtt.MQTTv311)
    if username:
        client.username_pw_set(username, password)
    if ca_file:
        client.tls_set(ca_certs=ca_file, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_disconnect = on_disconnect
    client.on_message = on_message
    try:
        client.connect(cfg.mqtt.host, cfg.mqtt.port, keepalive=cfg.mqtt.keepalive)
    except (OSError, ssl.SSLError) as exc:
        trouble = reach.confirm(reach.from_error(exc, cfg.mqtt.host, cfg.mqtt.port,
                                                 bool(ca_file)), cfg.mqtt.host, cfg.mqtt.port)
        return _fail(err, f"cannot reach the broker: {trouble.text}")
    client.loop_start()
    started = time.monotonic()
    warned = False
    try:
        while not done.wait(0.2):
            waited = time.monotonic() - started
            if args.timeout is not None and waited >= args.timeout:
                break
            if not warned and waited >= PROBE_S and not heard.is_set():
                warned = True
                who = f"user {username}" if username else "an anonymous client"
                err.print(f"[yellow]nothing from table {cfg.table.id} after {PROBE_S:g} s, "
                          f"not even its retained status ({status_topic}): the broker denies "
                          f"{who} reading it (mosquitto says so only in its own log), or the "
                          "table has not connected to this broker yet[/yellow]")
    except KeyboardInterrupt:
        pass
    finally:
        client.disconnect()
        client.loop_stop()
    if refused:
        return _fail(err, f"the broker refused the connection ({refused[0]}): check the "
                     f"username ({username or 'none'}) and the password")
    if denied:
        who = f"user {username}" if username else "anonymous clients"
        return _fail(err, f"the broker denies {who} reading {', '.join(denied)}")
    if unanswered and (unanswered[-1].kind == reach.EXPECTS_TLS or len(unanswered) >= 3):
        return _fail(err, f"cannot reach the broker: {unanswered[-1].text}")
    if len(dropped) >= 3:
        return _fail(err, f"the broker keeps closing this connection: another program "
                     f"connected as user {username or '(anonymous)'} takes its place (the "
                     "broker ties client ids to users: each program needs a user of its own)")
    if args.count is not None and seen < args.count:
        within = f" within {args.timeout:g} s" if args.timeout is not None else ""
        err.print(f"[yellow]{seen} of {args.count} events{within}[/yellow]")
        return 1
    return 0
