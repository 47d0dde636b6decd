"""A room of simulated tables that plays a tournament: the demo's and the tests' venue.

Each table is real except its hardware: virtual devices on TCP ports and its own edge service
(in this process). What a tournament adds is the room's side of the controller's commands:
a player told to sit at a table sits down there with his chips, one told to leave (a move, a
broken table) stands up with them, and the dealer posts the blinds the clock shows. Here that
is ``Relay``: it reads each command the controller sends a table and the table's answer, and
only what the table accepted is done at the simulated table, between hands (the dealer does
not seat anybody in the middle of a hand), as a floor person's slip would be.

The simulators know the wire, not the tracker: nothing here reads the service's state.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.enums import CallbackAPIVersion

from simulators.virtual import VirtualTableRig
from tablesvc.config.table import load_config
from tablesvc.pipeline.service import Service

log = structlog.get_logger("tablesvc.tournament_room")

FOLLOWED = ("seat", "unseat", "configure")
"""The commands a room carries out at the table, once the table has accepted them."""


class RoomTable:
    """One simulated table with its edge service; its dealer deals while two players sit."""

    def __init__(self, work: Path, table: str, venue: str, port: int, *, seed: int,
                 pace: float, small_blind: int, big_blind: int, seats: int = 9,
                 aggression: float = 0.6, all_in_share: float = 0.5,
                 mqtt_user: str = "", mqtt_password_file: str = "",
                 protocol: str = "3.1.1", between_hands_s: float = 1.0) -> None:
        self.id = table
        self.between_hands_s = between_hands_s
        self.seats = seats
        self.pace = pace
        folder = work / table
        # the rig is built with two players who stand up before anyone is seated: the
        # controller seats every player of the tournament
        self.rig = VirtualTableRig(folder / "sim", tcp=True, seats={1: 1000, 2: 1000},
                                   seed=seed, pace=pace, chips=folder / "chips.json",
                                   small_blind=small_blind, big_blind=big_blind,
                                   aggression=aggression, all_in_share=all_in_share)
        self.rig.table.stand(1)
        self.rig.table.stand(2)
        devices = "".join(f'[devices.{n}]\nurl = "{u}"\n'
                          for n, u in self.rig.device_urls().items())
        user = (f'username = "{mqtt_user}"\npassword_file = "{mqtt_password_file}"\n'
                if mqtt_user else "")
        cfg = folder / "table.toml"
        cfg.write_text(
            f'[table]\nvenue = "{venue}"\nid = "{table}"\nseats = {seats}\n'
            f"[game]\nsmall_blind = {small_blind}\nbig_blind = {big_blind}\n{devices}"
            f'[registry]\ndecks = "{self.rig.decks_dir}"\nchips = "{self.rig.chips_path}"\n'
            f'[mqtt]\nport = {port}\nprotocol = "{protocol}"\n{user}'
            f'[storage]\ndir = "{folder / "store"}"\n')
        self.config = cfg
        self.service = Service(load_config(cfg), cfg)
        self.thread = threading.Thread(target=self.service.run, name=f"service-{table}",
                                       daemon=True)
        self.changes: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.hands = 0
        self.dealt: list[tuple[int, tuple[int, ...]]] = []  # each hand's button and seats
        self.problems: list[str] = []

    def start(self) -> None:
        self.thread.start()

    def follow(self, cmd: str, body: dict[str, Any]) -> None:
        """A command the table accepted, for the dealer to carry out before the next hand."""
        self.changes.put((cmd, body))

    def _between_hands(self) -> None:
        table = self.rig.table
        held: list[tuple[str, dict[str, Any]]] = []
        changed: list[int] = []
        while True:
            try:
                cmd, body = self.changes.get_nowait()
            except queue.Empty:
                break
            try:
                if cmd == "seat":
                    table.sit(int(body["seat"]), int(body["stack"]))
                    changed.append(int(body["seat"]))
                elif cmd == "unseat":
                    if int(body["seat"]) in table.seated():  # else he busted: gone already
                        table.stand(int(body["seat"]))
                        changed.append(0)
                elif cmd == "configure":
                    for key in ("small_blind", "big_blind", "ante", "ante_mode"):
                        if key in body:
                            setattr(table, key, body[key])
            except (ValueError, KeyError) as err:
                # a seat taken by a player who has not stood up yet: after the next hand
                held.append((cmd, body))
                self.problems.append(f"{cmd} {body}: {err}")
        for item in held:
            self.changes.put(item)
        if changed:
            self._rotate(changed)

    def _rotate(self, newcomers: list[int]) -> None:
        """The next hand's button as the seats are now: the first player after the last
        hand's button, newcomers included (TABLE-01: one may come in on the button), except
        that the button passes a newcomer seated between the last button and its small blind
        (TABLE-02) and goes on from his seat."""
        table = self.rig.table
        last = table.last_hand
        seated = table.seated()
        if last is None or len(seated) < 2:
            return
        start = last.button
        sb = last.small_blind_seat
        for seat in newcomers:
            if seat in seated and _between(last.button, seat, sb):
                start = seat
        later = [s for s in seated if s > start]
        button = later[0] if later else seated[0]
        if button != table.button:
            table.set_button(button)

    def deal(self, stop: threading.Event) -> None:
        """Deal while at least two players sit; between hands, do what the controller had the
        table accept."""
        table = self.rig.table
        while not stop.is_set():
            self._between_hands()
            if len(table.seated()) < 2:
                stop.wait(0.05)
                continue
            try:
                record = table.play_hand(stop)
            except Exception as err:  # the dealer must go on; the test sees the problem
                self.problems.append(f"hand failed: {err!r}")
                log.exception("simulated hand failed", table=self.id)
                stop.wait(0.5)
                continue
            self.hands += 1
            self.dealt.append((record.button, tuple(record.seats)))
            # collecting, shuffling: in a room tens of seconds, in which the floor's slips
            # (a move, a new level) reach the dealer; never shorter than the controller's
            # reaction to the hand's end
            stop.wait(max(self.pace * 3, self.between_hands_s))

    def close(self) -> None:
        # the service first: devices unplugged under it would be device_offline alerts
        self.service.stop()
        self.thread.join(10)
        self.rig.close()


def _between(button: int, seat: int, small_blind: int) -> bool:
    """``seat`` lies strictly between ``button`` and ``small_blind``, clockwise (heads-up the
    button is the small blind: no seat is)."""
    if button == small_blind:
        return False
    if button < small_blind:
        return button < seat < small_blind
    return seat > button or seat < small_blind


class Relay:
    """The room's ear: the controller's commands to each table and the tables' answers; an
    accepted ``seat``, ``unseat`` or ``configure`` goes to its table's dealer."""

    def __init__(self, prefix: str, tables: dict[str, RoomTable], port: int,
                 username: str = "", password: str | None = None,
                 protocol: str = "3.1.1") -> None:
        self.prefix = prefix
        self.tables = tables
        self.sent: dict[tuple[str, Any], tuple[str, dict[str, Any]]] = {}
        self.lock = threading.Lock()
        self.ready = threading.Event()
        c = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                        protocol=mqtt.MQTTv5 if protocol == "5" else mqtt.MQTTv311,
                        client_id=f"room-{time.monotonic_ns()}")
        if username:
            c.username_pw_set(username, password)
        c.on_connect = self._on_connect
        c.on_subscribe = lambda *a: self.ready.set()
        c.on_message = self._on_message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        client.subscribe([(f"{self.prefix}/+/cmd/{c}", 1) for c in FOLLOWED]
                         + [(f"{self.prefix}/+/cmd/{c}/reply", 1) for c in FOLLOWED])

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        parts = msg.topic.removeprefix(self.prefix + "/").split("/")
        try:
            body = json.loads(msg.payload)
        except ValueError:
            return
        if not isinstance(body, dict) or len(parts) < 3 or parts[0] not in self.tables:
            return
        table, cmd = parts[0], parts[2]
        key = (table, body.get("request_id"))
        with self.lock:
            if len(parts) == 3:
                self.sent[key] = (cmd, body)
                return
            request = self.sent.pop(key, None)
        if request is not None and body.get("ok"):
            self.tables[table].follow(*request)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
