"""``tablesvc watch`` against a real mosquitto: what a floor terminal prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablesvc.brokers.mosquitto import Mosquitto, free_port
from tests.conftest import ROOT

CLI = [sys.executable, "-m", "tablesvc.commands.cli", "watch"]
PREFIX = "tablesvc/v1/demo/t01"


def config(tmp: Path, port: int) -> Path:
    cfg = tmp / "table.toml"
    cfg.write_text(f'[table]\nvenue = "demo"\nid = "t01"\n[mqtt]\nport = {port}\n')
    return cfg


def alert(seq: int, name: str) -> dict[str, object]:
    return {"v": 1, "venue": "demo", "table": "t01", "seq": seq, "prev_seq": None,
            "ts": "2026-11-30T01:00:00.000Z", "hand": 3, "type": "alert", "id": f"t01-a{seq}",
            "name": name, "rule": "BURN-04", "severity": "critical", "seat": None,
            "message": "the flop was dealt without a burn card", "remedy": "redress"}


def test_watch_alerts_prints_each_alert_of_the_table_and_nothing_else(
        tmp_path: Path, broker: Mosquitto) -> None:
    watcher = subprocess.Popen([*CLI, "--config", str(config(tmp_path, broker.port)),
                                "--alerts", "--count", "2", "--timeout", "20"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    pub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    assert watcher.stderr is not None
    # the watcher says on stderr when its subscriptions are in place
    assert watcher.stderr.readline().startswith(f"watching {PREFIX}/alerts as an anonymous")
    pub.publish(f"{PREFIX}/events", json.dumps({**alert(1, "x"), "type": "burn"}), qos=1)
    pub.publish(f"{PREFIX}/alerts", json.dumps(alert(2, "burn_missing")), qos=1)
    pub.publish("tablesvc/v1/demo/t02/alerts", json.dumps(alert(3, "other_table")), qos=1)
    pub.publish(f"{PREFIX}/alerts", json.dumps(alert(4, "premature_card")), qos=1)
    out, err = watcher.communicate(timeout=30)
    pub.loop_stop()
    assert watcher.returncode == 0, err
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "CRITICAL burn_missing [BURN-04]" in lines[0] and "premature_card" in lines[1]
    assert "other_table" not in out


def test_watch_names_the_game_of_a_pot_limit_omaha_hand(tmp_path: Path,
                                                        broker: Mosquitto) -> None:
    watcher = subprocess.Popen([*CLI, "--config", str(config(tmp_path, broker.port)),
                                "--count", "1", "--timeout", "20"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    assert watcher.stderr is not None
    assert watcher.stderr.readline().startswith(f"watching {PREFIX}/events as an anonymous")
    started = {"v": 1, "venue": "demo", "table": "t01", "seq": 1, "prev_seq": None,
               "ts": "2026-11-30T01:00:00.000Z", "hand": 4, "type": "hand_started",
               "variant": "omaha", "limit": "pot-limit", "button": 3, "small_blind_seat": 1,
               "big_blind_seat": 2, "seats": [{"seat": s, "name": n, "stack": 5000}
                                              for s, n in ((1, "Ann"), (2, "Ben"), (3, "Cy"))],
               "small_blind": 25, "big_blind": 50, "ante": 0, "ante_mode": "each",
               "carried_pot": 0}
    pub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    pub.publish(f"{PREFIX}/events", json.dumps(started), qos=1).wait_for_publish(5)
    out, err = watcher.communicate(timeout=30)
    pub.loop_stop()
    assert watcher.returncode == 0, err
    assert out.split("hand_started", 1)[1].strip() == (
        "Pot-limit Omaha, button 3, blinds 25/50 (SB 1, BB 2) · 1:Ann 5000, 2:Ben 5000, "
        "3:Cy 5000")


def test_watch_without_a_broker_says_so_and_fails(tmp_path: Path) -> None:
    done = subprocess.run([*CLI, "--config", str(config(tmp_path, free_port())),
                           "--timeout", "5"], capture_output=True, text=True, cwd=ROOT,
                          timeout=30)
    assert done.returncode == 2
    assert "cannot reach the broker" in done.stdout + done.stderr


def event(seq: int) -> dict[str, object]:
    return {"v": 1, "venue": "demo", "table": "t01", "seq": seq, "prev_seq": seq - 1,
            "ts": "2026-11-30T01:00:00.000Z", "hand": 3, "type": "burn", "before": "flop",
            "index": seq}


def test_watch_count_prints_exactly_that_many_events_however_fast_they_come(
        tmp_path: Path, broker: Mosquitto) -> None:
    """A burst of events (a hand's deal arrives in one batch) reaches the watcher before it
    has stopped: --count N still prints N events, nothing else (the retained status it reads
    as a sign of life is neither printed nor counted)."""
    pub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2)
    pub.connect("127.0.0.1", broker.port)
    pub.loop_start()
    pub.publish(f"{PREFIX}/status", json.dumps({"state": "online", "version": "0.1.0",
                                                "boot": 1}), qos=1, retain=True
                ).wait_for_publish(5)
    try:
        for count, as_json in ((1, True), (3, True), (2, False)):
            watcher = subprocess.Popen(
                [*CLI, "--config", str(config(tmp_path, broker.port)), "--count", str(count),
                 "--timeout", "20", *(["--json"] if as_json else [])],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
            assert watcher.stderr is not None
            assert watcher.stderr.readline().startswith(f"watching {PREFIX}/events")
            for seq in range(1, 9):
                pub.publish(f"{PREFIX}/events", json.dumps(event(seq)), qos=1)
            out, err = watcher.communicate(timeout=30)
            assert watcher.returncode == 0, err
            lines = out.splitlines()
            assert len(lines) == count, (count, as_json, out)
            if as_json:
                assert [json.loads(line)["seq"] for line in lines] == list(range(1, count + 1))
            else:
                assert all("burn before the flop" in line for line in lines)
    finally:
        pub.publish(f"{PREFIX}/status", b"", qos=1, retain=True).wait_for_publish(5)
        pub.loop_stop()
