"""A table the floor hears nothing from is shown silent, whatever the broker does with its will.

A box that freezes (here: its ``tablesvc run`` stopped with SIGSTOP) keeps its connection open,
and the broker publishes the will (``status`` offline) only once it gives up on it: a minute or
more. The console marks a table it has heard nothing from for ``silent_after_s`` as silent,
while the broker still says online, on the demo's broker (amqtt) and on mosquitto; the next
message clears it. A table whose pipeline is stuck (its process and connection alive) goes
silent too, since its sign of life comes from the pipeline, while an idle table that says it
is alive does not. The consoles here wait a short ``silent_after_s`` to keep the tests quick.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.client import MQTTv5, MQTTv311
from paho.mqtt.publish import single
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from bench.venue import FloorProcess
from tablesvc.brokers.embedded import EmbeddedBroker
from tablesvc.brokers.mosquitto import Mosquitto, free_port, wait_until
from tablesvc.config.table import load_config
from tablesvc.core.inputs import Command, Input
from tablesvc.pipeline import publisher as publisher_module
from tablesvc.pipeline.clock import stamp
from tablesvc.pipeline.service import Service
from tests.integration.test_floor_console import classes, text

pytestmark = pytest.mark.integration
VENUE = "hall"
ROOT = Path(__file__).resolve().parents[2]


def table_config(folder: Path, table: str, port: int, protocol: str) -> Path:
    """A table with no devices and no players: all it says is its status, state and start."""
    folder.mkdir(parents=True)
    (folder / "decks").mkdir()
    cfg = folder / "table.toml"
    cfg.write_text(f'[table]\nvenue = "{VENUE}"\nid = "{table}"\n'
                   f'[registry]\ndecks = "{folder / "decks"}"\n'
                   f'[mqtt]\nport = {port}\nprotocol = "{protocol}"\n'
                   f'[storage]\ndir = "{folder / "store"}"\n')
    return cfg


def console(folder: Path, port: int, silent_after_s: float, protocol: str) -> FloorProcess:
    """The floor console, silent after ``silent_after_s`` (a [floor] key: written into the
    section before [mqtt])."""
    floor = FloorProcess(folder, VENUE, port)
    floor.config.write_text(floor.config.read_text().replace(
        "[mqtt]\n", f"silent_after_s = {silent_after_s}\n[mqtt]\nprotocol = \"{protocol}\"\n"))
    return floor


def api(url: str, path: str) -> Any:
    with urllib.request.urlopen(url.rstrip("/") + path, timeout=10) as r:
        return json.load(r)


def view(url: str, table: str) -> dict[str, Any]:
    """The table as the console's snapshot has it ({} before it has heard of it)."""
    return next((t for t in api(url, "/api/snapshot")["tables"] if t["id"] == table), {})


@contextmanager
def table_in_process(folder: Path, table: str, port: int) -> Iterator[Service]:
    """A table's service run on a thread of this process, so that a test can reach into its
    pipeline; stopped on the way out."""
    cfg = table_config(folder, table, port, "5")
    service = Service(load_config(cfg), cfg)
    service.start()
    worker = threading.Thread(target=service.serve, daemon=True)
    worker.start()
    try:
        yield service
    finally:
        service.stop()
        worker.join(10)


def test_a_table_whose_pipeline_is_stuck_is_shown_silent_while_an_idle_one_says_it_is_alive(
        tmp_path: Path, broker: Mosquitto, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both services live and stay connected (their publisher threads answer the broker's
    pings); one pipeline is stuck in a batch. Its signs of life stop, the idle one's go on."""
    monkeypatch.setattr(publisher_module, "ALIVE_EVERY_S", 0.25)
    floor = console(tmp_path / "floor", broker.port, 1, "5")
    floor.start()
    entered, release = threading.Event(), threading.Event()
    try:
        with table_in_process(tmp_path / "t01", "t01", broker.port), \
                table_in_process(tmp_path / "t02", "t02", broker.port) as stuck:
            wait_until(lambda: all(view(floor.url, t).get("online") is True and
                                   view(floor.url, t)["silent_s"] is None
                                   for t in ("t01", "t02")), 20, "two tables online")
            process = stuck.process

            def held(batch: list[Input]) -> None:
                entered.set()
                release.wait(30)
                process(batch)

            monkeypatch.setattr(stuck, "process", held)
            ts, ms = stamp()
            stuck.inputs.put(Command(ts, ms, "seat", {"request_id": "r1", "seat": 1,
                                                      "name": "Ann", "stack": 1000}))
            assert entered.wait(10), "the pipeline took the input"
            wait_until(lambda: view(floor.url, "t02")["silent_s"] is not None, 20,
                       "the stuck table shown silent")
            # the broker still has it online (its connection lives), and the idle table,
            # quiet since it started but saying it is alive, is not silent
            assert view(floor.url, "t02")["online"] is True
            assert view(floor.url, "t01")["silent_s"] is None
            release.set()
            wait_until(lambda: view(floor.url, "t02")["silent_s"] is None, 20,
                       "the table heard again")
    finally:
        release.set()
        assert floor.stop() == 0, floor.log.read_text()


@pytest.fixture(params=["mosquitto", "amqtt"])
def any_broker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, str]]:
    """The venue's broker (mosquitto, MQTT 5) or the demo's (amqtt, MQTT 3.1.1): their port
    and the protocol to speak."""
    if request.param == "mosquitto":
        broker = Mosquitto(tmp_path)
        broker.start()
        try:
            yield broker.port, "5"
        finally:
            broker.stop()
    else:
        port = free_port()
        demo = EmbeddedBroker(port)
        demo.start()
        try:
            yield port, "3.1.1"
        finally:
            demo.stop()


@contextmanager
def running(cfg: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``tablesvc run`` as an installer starts it; let go on (SIGCONT) and stopped at the
    end, whatever the test did to it."""
    with open(cfg.parent / "service.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "tablesvc.commands.cli", "run",
                                 "--config", str(cfg), "--log", "json"],
                                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_a_frozen_table_is_shown_silent_while_the_broker_says_online_and_back_when_it_speaks(
        tmp_path: Path, any_broker: tuple[int, str], browser: WebDriver) -> None:
    port, protocol = any_broker
    floor = console(tmp_path / "floor", port, 1, protocol)
    floor.start()
    try:
        with running(table_config(tmp_path / "t07", "t07", port, protocol)) as service:
            wait_until(lambda: view(floor.url, "t07").get("online") is True, 30,
                       "the table online")
            browser.get(floor.url)
            wait = WebDriverWait(browser, 30)
            tile = '[data-table="t07"]'
            wait.until(lambda b: "silent" not in classes(b, tile).split() and
                       "OK" in text(b, tile))
            service.send_signal(signal.SIGSTOP)  # frozen: its connection stays open
            wait.until(lambda b: "silent" in classes(b, tile).split())
            shown = text(browser, tile)
            assert "SILENT" in shown and "OFFLINE" not in shown and "OK" not in shown
            assert "silent " in shown and "check its box" in shown
            tip = browser.execute_script(
                "return document.querySelector(arguments[0]).title", tile)
            assert "Check the table's box" in tip and "may still list it online" in tip
            assert "1 silent" in text(browser, "#summary")
            # the broker has published no will: for it, the table is online
            table = view(floor.url, "t07")
            assert table["online"] is True and table["silent_s"] >= 1
            # let go, and given something to do (the controller seats a player), it speaks
            service.send_signal(signal.SIGCONT)
            single(f"tablesvc/v1/{VENUE}/t07/cmd/seat", json.dumps(
                {"request_id": "r1", "seat": 1, "name": "Ann", "stack": 1000}), qos=1,
                port=port, protocol=MQTTv5 if protocol == "5" else MQTTv311)
            wait.until(lambda b: "silent" not in classes(b, tile).split())
            assert "OK" in text(browser, tile) and "Ann" in text(browser, tile)
    finally:
        assert floor.stop() == 0, floor.log.read_text()
