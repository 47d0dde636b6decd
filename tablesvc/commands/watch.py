"""``tablesvc watch``: one table's events, or only its alerts, in a terminal, a line each.

For the technician at the table box and for a floor terminal: it finds the broker and the
topics in the table's own config, so there is nothing else to type. Secure events are shown
only when asked for, and only a user the broker lets read them will receive any.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from rich.console import Console

from tablesvc.commands.render import render
from tablesvc.config.table import Config
from tablesvc.pipeline.publisher import read_password


def topics(cfg: Config, alerts: bool, secure: bool) -> list[str]:
    prefix = f"{cfg.mqtt.topic_prefix.rstrip('/')}/{cfg.table.venue}/{cfg.table.id}"
    if alerts:
        return [f"{prefix}/alerts"]
    return [f"{prefix}/events"] + ([f"{prefix}/secure/events"] if secure else [])


def run_watch(cfg: Config, args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    wanted = topics(cfg, args.alerts, args.secure)
    done = threading.Event()
    seen = 0
    refused: list[str] = []

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                   props: Any = None) -> None:
        if rc != 0:
            refused.append(str(rc))
            done.set()
            return
        client.subscribe([(t, 1) for t in wanted])

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        nonlocal seen
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            console.print(f"[red]not JSON on {msg.topic}[/red]")
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
    username = args.username if args.username is not None else cfg.mqtt.username
    password_file = args.password_file or cfg.mqtt.password_file
    if username:
        client.username_pw_set(username, read_password(password_file))
    if cfg.mqtt.ca_file:
        client.tls_set(ca_certs=cfg.mqtt.ca_file, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.on_connect = on_connect
    client.on_message = on_message
    try:
        client.connect(cfg.mqtt.host, cfg.mqtt.port, keepalive=cfg.mqtt.keepalive)
    except OSError as err:
        console.print(f"[red]cannot reach the broker at {cfg.mqtt.host}:{cfg.mqtt.port}: "
                      f"{err}[/red]")
        return 2
    client.loop_start()
    try:
        done.wait(args.timeout)
    except KeyboardInterrupt:
        pass
    finally:
        client.disconnect()
        client.loop_stop()
    if refused:
        console.print(f"[red]the broker refused the connection ({refused[0]}): check the "
                      "username and password[/red]")
        return 2
    if args.count is not None and seen < args.count:
        console.print(f"[yellow]{seen} of {args.count} messages within {args.timeout:g} s"
                      "[/yellow]")
        return 1
    return 0
