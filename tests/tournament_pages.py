"""The tournament controller's pages served on a real port, driven by the real engine and
aggregate, with tables that answer the controller's commands as a table service does.

``ServedTournament`` runs, on a thread of its own with its own event loop: a ``Tournament``
(the real aggregate), its ``Engine`` with a journal in a SQLite file, and ``TournamentWeb`` on
a free loopback port (over TLS when given a certificate and its key). The engine's outbox is
``SeatedTables``: each table keeps its seats, takes ``configure``/``seat``/``unseat`` and
answers them, and publishes its retained ``state`` — what the MQTT link would hand the engine
from a real table. A test plays hands at a table (``play_hand``) to make busts and counts.
Everything reaches the engine on its loop, as the link's messages do. ``restart_web`` stops the
web side and serves a new one on the same port, as a restarted controller does: the pages'
sockets close and their sessions (in memory) are gone.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from tablesvc.brokers.mosquitto import free_port
from tablesvc.floor.auth import set_user
from tablesvc.floor.db import open_sqlite
from tablesvc.tournament.config import TournamentConfig
from tablesvc.tournament.engine import Engine
from tablesvc.tournament.link import Received
from tablesvc.tournament.store import Journal
from tablesvc.tournament.structure import Structure, parse_structure
from tablesvc.tournament.tournament import Tournament
from tablesvc.tournament.web import TournamentWeb
from tablesvc.web.serving import tls_context

R = TypeVar("R")

STRUCTURE: dict[str, Any] = {
    "name": "Sunday Deepstack", "game": "holdem", "limit": "no-limit",
    "starting_stack": 20000,
    "levels": [
        {"level": 1, "small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 20},
        {"level": 2, "small_blind": 200, "big_blind": 400, "ante": 50, "minutes": 20},
        {"level": 3, "small_blind": 300, "big_blind": 600, "ante": 75,
         "ante_mode": "big_blind", "minutes": 20},
        {"level": 4, "small_blind": 400, "big_blind": 800, "ante": 100, "minutes": 20},
        {"level": 5, "small_blind": 600, "big_blind": 1200, "ante": 150, "minutes": 20},
        {"level": 6, "small_blind": 1000, "big_blind": 2000, "ante": 250, "minutes": 15},
    ],
    "breaks": [{"after_level": 3, "minutes": 10, "name": "Break"}],
    "payouts": {"percent": [50, 30, 20], "buy_in": 100},
}


def structure() -> Structure:
    return parse_structure(STRUCTURE, "test-structure.toml")


class SeatedTables:
    """The engine's outbox, answering as the tables would: each command is carried out and
    answered, and the table's new ``state`` published (on the loop, after the engine's tick,
    as messages from the broker arrive)."""

    def __init__(self, engine: Engine, seats: dict[str, int]) -> None:
        self.engine = engine
        self.seats = seats
        self.players: dict[str, dict[int, tuple[str, int]]] = {t: {} for t in seats}
        self.button: dict[str, int | None] = dict.fromkeys(seats)
        self.seq: dict[str, int] = dict.fromkeys(seats, 0)
        self.hands: dict[str, int] = dict.fromkeys(seats, 0)
        self.commands: list[tuple[str, str, dict[str, Any]]] = []
        self.retained: dict[str, Any] = {}
        self.mid = 0

    # ------------------------------------------------------------------ Outbox
    def command(self, table: str, cmd: str, body: dict[str, Any]) -> None:
        self.commands.append((table, cmd, body))
        asyncio.get_running_loop().call_soon(self._carry_out, table, cmd, body)

    def retain(self, name: str, doc: Any) -> None:
        self.retained[name] = doc

    def alert(self, doc: dict[str, Any]) -> None:
        pass

    def ack(self, mid: int, qos: int) -> None:
        pass

    # ------------------------------------------------------------------ the tables
    def _send(self, table: str, sub: str, body: dict[str, Any]) -> None:
        self.mid += 1
        self.engine.received(Received(table, sub, json.dumps(body).encode(), self.mid, 1))

    def _carry_out(self, table: str, cmd: str, body: dict[str, Any]) -> None:
        seats = self.players[table]
        ok, error = True, None
        if cmd == "seat":
            if body["seat"] in seats:
                ok, error = False, f"seat {body['seat']} is taken"
            else:
                seats[body["seat"]] = (body["name"], int(body["stack"]))
        elif cmd == "unseat":
            seats.pop(body["seat"], None)
        self._send(table, f"cmd/{cmd}/reply",
                   {"request_id": body["request_id"], "ok": ok, "error": error})
        self.publish_state(table)

    def publish_state(self, table: str) -> None:
        self._send(table, "state", {
            "in_hand": False, "button": self.button[table],
            "players": [{"seat": s, "name": n, "stack": st}
                        for s, (n, st) in sorted(self.players[table].items())]})

    def online(self, table: str) -> None:
        self._send(table, "status", {"state": "online", "boot": 1})
        self.publish_state(table)

    def play_hand(self, table: str, bust: frozenset[int] = frozenset()) -> None:
        """One hand: the seats in ``bust`` lose everything to the first other seat and leave."""
        seats = self.players[table]
        order = sorted(seats)
        button = self.button[table]
        after = [s for s in order if button is None or s > button] + \
            [s for s in order if button is not None and s <= button]
        button = after[0]
        ring = order[order.index(button) + 1:] + order[:order.index(button) + 1]
        self.button[table] = button
        self.hands[table] += 1
        hand = self.hands[table]
        start = {s: seats[s][1] for s in order}
        self.seq[table] += 1
        self._send(table, "events", {
            "type": "hand_started", "seq": self.seq[table], "hand": hand, "button": button,
            "small_blind_seat": ring[0], "big_blind_seat": ring[1],
            "seats": [{"seat": s, "name": seats[s][0], "stack": start[s]} for s in order]})
        winner = next(s for s in order if s not in bust)
        end = dict(start)
        for s in bust:
            end[winner] += end[s]
            end[s] = 0
        for s in order:
            seats[s] = (seats[s][0], end[s])
            if end[s] == 0:
                del seats[s]  # a busted player leaves the table, as a table's room does
        self.seq[table] += 1
        self._send(table, "events", {
            "type": "hand_ended", "seq": self.seq[table], "hand": hand, "reason": "showdown",
            "stacks": [{"seat": s, "stack": end[s]} for s in order]})
        self.publish_state(table)


class ServedTournament:
    """The engine and the pages on a real port, on a loop of their own thread."""

    def __init__(self, tmp: Path, *, tables: dict[str, int], users: dict[str, str] | None = None,
                 variant: int = 1, clock: Callable[[], float] = time.monotonic,
                 tls: tuple[Path, Path] | None = None) -> None:
        cfg_path = self.cfg_path = tmp / "tournament.toml"
        web_section: dict[str, Any] = {"port": free_port()}
        if tls:
            web_section["cert_file"], web_section["key_file"] = map(str, tls)
        if users:
            for name, password in users.items():
                set_user(tmp / "users", name, password)
            web_section["users_file"] = "users"
        self.cfg = TournamentConfig.model_validate({
            "tournament": {"venue": "hall", "name": "Sunday Deepstack",
                           "structure": "structure.toml", "balancing_variant": variant},
            "tables": [{"id": t, "seats": n} for t, n in tables.items()],
            "web": web_section})
        self.tournament = Tournament("Sunday Deepstack", "hall", structure(), tables, variant)
        self.db = open_sqlite(tmp / "tournament.sqlite")
        self.engine = Engine(self.tournament, Journal(self.db))
        self.engine.load()
        self.tables = SeatedTables(self.engine, tables)
        self.engine.out = self.tables
        self.clock = clock
        """The logins' clock (a test's own moves their lockouts on)."""
        self.web = TournamentWeb(self.cfg, cfg_path, self.engine, clock=clock)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.cfg.web.port}"
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self.runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._run, name="tournament-pages", daemon=True)

    def _run(self) -> None:
        self.loop.run_until_complete(self._serve())

    async def _site(self) -> None:
        self.runner = web.AppRunner(self.web.app(), access_log=None, shutdown_timeout=1.0)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.cfg.web.port,
                          ssl_context=tls_context(self.cfg.web, self.cfg_path)).start()

    async def _close_site(self) -> None:
        await self.web.close_all()
        if self.runner is not None:
            await self.runner.cleanup()

    async def _serve(self) -> None:
        await self._site()
        self._stop = asyncio.Event()
        self._ready.set()
        await self.engine.run(self._stop)
        await self._close_site()

    async def _restart_web(self) -> None:
        await self._close_site()
        self.web = TournamentWeb(self.cfg, self.cfg_path, self.engine, clock=self.clock)
        await self._site()

    def restart_web(self) -> None:
        """The web side stopped and started again (the engine goes on): no session is left."""
        asyncio.run_coroutine_threadsafe(self._restart_web(), self.loop).result(20)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(20):
            raise RuntimeError("the tournament pages did not start")

    def stop(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)
        self.db.close()

    def call(self, fn: Callable[[], R]) -> R:
        """Run ``fn`` on the server's loop (where the engine lives) and return its result."""
        done: Future[R] = Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except BaseException as exc:  # handed to the caller
                done.set_exception(exc)
        self.loop.call_soon_threadsafe(run)
        return done.result(20)


@contextmanager
def served(tmp: Path, **kwargs: Any) -> Iterator[ServedTournament]:
    s = ServedTournament(tmp, **kwargs)
    s.start()
    try:
        yield s
    finally:
        s.stop()
