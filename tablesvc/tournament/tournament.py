"""The tournament: every operation in, the commands the tables need and the view out.

A controller has two kinds of input. What the director decides (start the clock, register,
draw, move, break a table) changes what the venue *should* look like: the level every table
plays and the seat every player holds. What the tables say (their retained ``state``, their
hands' ``hand_started`` and ``hand_ended``, their answers to commands) tells what it *does*
look like. ``Tournament`` keeps both and, on every ``reconcile``, sends the commands that bring
the tables to what they should be — a level not yet taken, a player to unseat at one table
and seat at another — and nothing while a command is still on its way. Driving the tables
towards a wanted state, rather than firing a command per decision, is what makes a restart
safe: a controller killed between the ``unseat`` and the ``seat`` of a move finds the player
at no table and seats him; one killed before the ``unseat`` went out sends it again; a table
that was offline at a level change is sent the level when it is back.

Pure: ``now`` (wall-clock seconds) is always given; randomness comes from seeds that are part
of the operation, so replaying the journal of operations rebuilds the same tournament.
"""

from __future__ import annotations

import itertools
import random
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from tablesvc.tournament import balancing, clock, seating, standings
from tablesvc.tournament.structure import Break, Level, Payouts, Structure

RESEND_AFTER_S = 10.0
"""A command with no answer after this long is sent again if the table still needs it (the
answer, or the command, was lost with a connection)."""


ACTIONS = frozenset({"start", "pause", "resume", "advance", "shift", "register", "draw",
                     "seat_late", "no_show", "remove", "move", "cancel_move", "break_table",
                     "open_table",
                     "accept_suggestion", "dismiss_suggestion"})
"""The director's actions (``POST /api/action``)."""


RULES: dict[str, tuple[str, ...]] = {
    "TABLE-03": ("balancing_move_suggestion",),
    "TABLE-04": ("balancing_move_suggestion",),
    "TABLE-07": ("player_seated_twice",),
    "SEAT-06": ("no_show_stack_removal_due",),
    "TABLE-06": ("move_stack_mismatch",),
    "TABLE-00": ("command_refused", "table_game_mismatch"),
}
"""The alerts the controller raises, by rule (the balancing move under the configured variant's
rule); docs/RULES-COVERAGE.md is generated from these declarations."""


class ActionError(Exception):
    """A director's action that cannot be carried out now; the message says why."""


@dataclass(frozen=True)
class Send:
    """A command to a table (``cmd/<name>``): the link publishes it."""

    table: str
    cmd: str
    body: dict[str, Any]


@dataclass
class Player:
    player: str
    name: str
    status: str = "registered"  # "registered" | "seated" | "out"
    table: str | None = None  # the seat he should hold
    seat: int | None = None
    stack: int | None = None  # the last count the tables gave (or the starting stack)
    place: int | None = None
    no_show: bool = False
    out_hand: int | None = None
    out_table: str | None = None
    out_at: float | None = None


@dataclass
class Pending:
    """A command on its way: what it asks, when it went out."""

    request_id: str
    cmd: str
    body: dict[str, Any]
    sent_at: float
    answered: bool = False  # the table took it; its state has not shown it yet


@dataclass
class TableRec:
    table: str
    seats: int
    open: bool = True
    online: bool = False
    boot: int | None = None
    state: dict[str, Any] | None = None  # its retained ``state``, as last received
    button: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    hand: int | None = None
    in_hand: bool = False
    start_stacks: dict[int, int] = field(default_factory=dict)  # the current hand's, by seat
    hand_names: dict[int, str] = field(default_factory=dict)  # the current hand's players
    level_acked: int | None = None  # the period index whose level the table took
    pending: dict[str, Pending] = field(default_factory=dict)  # key -> command on its way
    last_seq: int = 0
    refusals: set[tuple[str, str]] = field(default_factory=set)  # (command, error) told
    wrong_game: bool = False

    def seated(self) -> dict[int, str]:
        """Seat -> name as the table last said (its ``state``)."""
        if not self.state:
            return {}
        return {int(p["seat"]): str(p["name"]) for p in self.state.get("players", [])}


@dataclass
class Move:
    id: int
    player: str
    source: tuple[str, int]
    target: tuple[str, int]
    state: str = "queued"  # "queued" | "done" | "cancelled"
    stack: int | None = None  # what he carried: the stack sent with his seat at the target
    checked: bool = False  # the target table's count compared with it


@dataclass
class Alert:
    id: str
    name: str
    rule: str
    severity: str
    message: str
    remedy: str
    at: float
    table: str | None = None
    seat: int | None = None
    player: str | None = None


class Tournament:
    """One event: its structure and clock, its players and seats, the tables' word."""

    def __init__(self, name: str, venue: str, structure: Structure,
                 tables: Mapping[str, int], balancing_variant: int = 1,
                 max_difference: int = 1, run: str = "0") -> None:
        self.name = name
        self.venue = venue
        self.structure = structure
        self.clock = clock.ClockState()
        self.tables = {t: TableRec(t, seats) for t, seats in tables.items()}
        self.players: dict[str, Player] = {}
        self.variant = balancing_variant
        self.max_difference = max_difference
        self.moves: dict[int, Move] = {}
        self.suggestions: dict[int, balancing.Suggestion] = {}
        self.dismissed: set[tuple[str, str, int, int]] = set()
        self.alerts: list[Alert] = []
        self.busts: list[dict[str, Any]] = []
        self._move_ids = itertools.count(1)
        self._suggestion_ids = itertools.count(1)
        self._alert_ids = itertools.count(1)
        self._requests = itertools.count(1)
        self.run = run  # this process's mark on its request ids: an answer to a request of
        # an earlier run (kept by the broker while the controller was down) matches none
        self._reminded: set[str] = set()  # no-shows told due for removal (SEAT-06)
        self.twice: set[str] = set()  # names seen at two seats (one alert each)
        self.new_alerts: list[Alert] = []  # since the link last took them
        self._last_now = 0.0  # the last reconcile's time: for alerts raised between them

    # ------------------------------------------------------------------ director's actions
    def act(self, action: Mapping[str, Any], now: float) -> tuple[dict[str, Any],
                                                                  dict[str, Any]]:
        """Carry out one director's action: the answer's data, and the operation to journal.

        The journalled operation is self-contained, so that replaying the journal needs
        nothing the controller worked out at the time: a draw carries its seed, an accepted
        suggestion is journalled as the move it became, a dismissed one as what it named."""
        name = action.get("action")
        if not isinstance(name, str) or name not in ACTIONS:
            raise ActionError(f"unknown action {name!r}; one of {', '.join(sorted(ACTIONS))}")
        op = dict(action)
        if name in ("draw", "seat_late", "break_table") and "seed" not in op:
            op["seed"] = random.SystemRandom().randrange(2**32)
        if name == "accept_suggestion":
            s = self.suggestions.get(_int(op, "id"))
            if s is None:
                raise ActionError("no open suggestion with that id (the tables may have "
                                  "changed)")
            op = {"action": "move", "player": s.player, "table": s.to_table, "seat": s.to_seat,
                  "rule": s.rule}
        elif name == "dismiss_suggestion":
            s = self.suggestions.get(_int(op, "id"))
            if s is None:
                raise ActionError("no open suggestion with that id")
            op = {"action": "dismiss", "from": s.from_table, "to": s.to_table,
                  "sizes": list(self._sizes(s.from_table, s.to_table))}
        result: dict[str, Any] = getattr(self, f"_act_{op['action']}")(op, now) or {}
        return result, op

    def replay(self, op: Mapping[str, Any], now: float) -> None:
        """A journalled operation again, as at the time (a restart)."""
        kind = op.get("op")
        if kind == "act":
            getattr(self, f"_act_{op['body']['action']}")(op["body"], now)
        elif kind == "event":
            self.table_event(op["table"], op["body"], now)

    def _act_start(self, a: Mapping[str, Any], now: float) -> None:
        self.clock = self._clocked(clock.start, now)

    def _act_pause(self, a: Mapping[str, Any], now: float) -> None:
        self.clock = self._clocked(clock.pause, now)

    def _act_resume(self, a: Mapping[str, Any], now: float) -> None:
        self.clock = self._clocked(clock.resume, now)

    def _act_advance(self, a: Mapping[str, Any], now: float) -> None:
        levels = _int(a, "levels")
        self.clock = self._clocked(lambda s, st, t: clock.advance(s, st, levels, t), now)

    def _act_shift(self, a: Mapping[str, Any], now: float) -> None:
        minutes = a.get("minutes")
        if not isinstance(minutes, int | float) or isinstance(minutes, bool):
            raise ActionError("minutes: a number of minutes (negative: less time left)")
        m = float(minutes)
        self.clock = self._clocked(lambda s, st, t: clock.shift(s, st, m, t), now)

    def _clocked(self, op: Any, now: float) -> clock.ClockState:
        try:
            state: clock.ClockState = op(clock.settle(self.clock, self.structure, now),
                                         self.structure, now)
        except clock.ClockError as err:
            raise ActionError(str(err)) from None
        return state

    def _act_register(self, a: Mapping[str, Any], now: float) -> dict[str, Any]:
        name = a.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise ActionError("name: 1 to 64 characters")
        name = " ".join(name.split())
        if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in name):
            raise ActionError("name: no control or format characters (a name is shown on "
                              "screens and in logs as it is)")
        pid = a.get("player") or f"p{len(self.players) + 1:03d}"
        if not isinstance(pid, str) or not pid.replace("-", "").replace("_", "").isalnum() \
                or len(pid) > 32:
            raise ActionError("player: an id of letters, digits, - and _ (up to 32)")
        if pid in self.players:
            raise ActionError(f"player {pid} is registered already")
        if any(p.name == name and p.status != "out" for p in self.players.values()):
            raise ActionError(f"a player named {name!r} is registered already; add an initial")
        self.players[pid] = Player(pid, name, stack=self.structure.starting_stack)
        return {"player": pid}

    def _act_draw(self, a: Mapping[str, Any], now: float) -> dict[str, Any]:
        waiting = [p.player for p in self.players.values() if p.status == "registered"]
        if not waiting:
            raise ActionError("no registered player is waiting for a seat")
        rng = random.Random(_int(a, "seed", 0))
        try:
            drawn = seating.draw(waiting, self._seats(), rng)
        except seating.SeatingError as err:
            raise ActionError(str(err)) from None
        for pid, (table, seat) in drawn.items():
            self._place(pid, table, seat)
        return {"seated": len(drawn)}

    def _act_seat_late(self, a: Mapping[str, Any], now: float) -> dict[str, Any]:
        p = self._player(a)
        if p.status != "registered":
            raise ActionError(f"{p.name} is {p.status}, not waiting for a seat")
        rng = random.Random(_int(a, "seed", 0))
        try:
            table, seat = seating.late_seat(p.player, self._seats(), rng)
        except seating.SeatingError as err:
            raise ActionError(str(err)) from None
        self._place(p.player, table, seat)
        return {"table": table, "seat": seat}

    def _act_no_show(self, a: Mapping[str, Any], now: float) -> None:
        p = self._player(a)
        p.no_show = bool(a.get("no_show", True))

    def _act_remove(self, a: Mapping[str, Any], now: float) -> None:
        """A player taken out of the tournament without a place: a no-show's stack removed
        at the end of level 2 (SEAT-06), or a disqualification; his seat is unseated."""
        p = self._player(a)
        if p.status in ("out", "removed"):
            raise ActionError(f"{p.name} is {p.status} already")
        for m in self.moves.values():
            if m.player == p.player and m.state == "queued":
                m.state = "cancelled"
        p.status, p.table, p.seat = "removed", None, None

    def _act_move(self, a: Mapping[str, Any], now: float) -> dict[str, Any]:
        p = self._player(a)
        table, seat = a.get("table"), a.get("seat")
        if p.status != "seated" or p.table is None or p.seat is None:
            raise ActionError(f"{p.name} is not seated")
        if not isinstance(table, str) or table not in self.tables:
            raise ActionError(f"table: one of {', '.join(sorted(self.tables))}")
        t = self._seats_of(table)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= t.seats:
            raise ActionError(f"seat: 1 to {t.seats}")
        if seat not in seating.free_seats(t):
            raise ActionError(f"seat {seat} at {table} is taken")
        if not self.tables[table].open:
            raise ActionError(f"table {table} is closed")
        self.suggestions.clear()
        return {"move": self._move(p, table, seat).id}

    def _act_cancel_move(self, a: Mapping[str, Any], now: float) -> None:
        m = self.moves.get(_int(a, "id"))
        if m is None or m.state != "queued":
            raise ActionError("no queued move with that id")
        p = self.players[m.player]
        if self._at(p.player) != m.source:
            raise ActionError(f"{p.name} has left his seat already; the move goes on")
        m.state = "cancelled"
        p.table, p.seat = m.source

    def _act_break_table(self, a: Mapping[str, Any], now: float) -> dict[str, Any]:
        table = a.get("table")
        if not isinstance(table, str) or table not in self.tables:
            raise ActionError(f"table: one of {', '.join(sorted(self.tables))}")
        rng = random.Random(_int(a, "seed", 0))
        try:
            moved = seating.break_table(table, self._seats(), rng)
        except seating.SeatingError as err:
            raise ActionError(str(err)) from None
        self.tables[table].open = False
        for pid, (to_table, to_seat) in sorted(moved.items()):
            self._move(self.players[pid], to_table, to_seat)
        return {"moved": len(moved)}

    def _act_open_table(self, a: Mapping[str, Any], now: float) -> None:
        table = a.get("table")
        if not isinstance(table, str) or table not in self.tables:
            raise ActionError(f"table: one of {', '.join(sorted(self.tables))}")
        self.tables[table].open = True

    def _act_dismiss(self, a: Mapping[str, Any], now: float) -> None:
        """The director leaves these two tables as they are: no suggestion between them
        again until a player more or less sits at one of them."""
        sizes = a.get("sizes") or [0, 0]
        self.dismissed.add((str(a.get("from")), str(a.get("to")), int(sizes[0]), int(sizes[1])))
        self.suggestions.clear()

    def _sizes(self, *tables: str) -> tuple[int, ...]:
        """Players who should sit at each of ``tables``."""
        return tuple(sum(1 for p in self.players.values()
                         if p.status == "seated" and p.table == t) for t in tables)

    # ------------------------------------------------------------------ helpers
    def _player(self, a: Mapping[str, Any]) -> Player:
        pid = a.get("player")
        p = self.players.get(pid) if isinstance(pid, str) else None
        if p is None:
            raise ActionError(f"no registered player {pid!r}")
        return p

    def _place(self, pid: str, table: str, seat: int) -> None:
        p = self.players[pid]
        p.status, p.table, p.seat = "seated", table, seat

    def _move(self, p: Player, table: str, seat: int) -> Move:
        assert p.table is not None and p.seat is not None
        source = (p.table, p.seat)
        for old in self.moves.values():
            if old.player == p.player and old.state == "queued":
                old.state = "cancelled"
                source = old.source  # he has not left the seat of the first move yet
        m = Move(next(self._move_ids), p.player, source, (table, seat))
        self.moves[m.id] = m
        p.table, p.seat = table, seat
        return m

    def _at(self, pid: str) -> tuple[str, int] | None:
        """Where the tables say the player sits (by name), if anywhere."""
        name = self.players[pid].name
        for t in self.tables.values():
            for seat, n in t.seated().items():
                if n == name:
                    return (t.table, seat)
        return None

    def _seats_of(self, table: str) -> seating.TableSeats:
        """A table's seats as the controller holds them: who should sit where, with the live
        button and blinds the table last showed."""
        return self._table_seats(table, self._wanted().get(table, {}))

    def _table_seats(self, table: str, wanted: Mapping[int, Player]) -> seating.TableSeats:
        t = self.tables[table]
        occupied = {seat: p.player for seat, p in wanted.items()}
        # a seat a player is still leaving stays taken until he has left
        for m in self.moves.values():
            if m.state == "queued" and m.source[0] == table:
                occupied.setdefault(m.source[1], m.player)
        return seating.TableSeats(table, t.seats, occupied, t.button, t.small_blind,
                                  t.big_blind, t.open)

    def _seats(self) -> list[seating.TableSeats]:
        wanted = self._wanted()
        return [self._table_seats(t, wanted.get(t, {})) for t in sorted(self.tables)]

    def _wanted(self) -> dict[str, dict[int, Player]]:
        """Table -> seat -> the player who should sit there, in one pass over the players
        (a pass per table made every tick cost tables x players: 100 x 1,000 in a room)."""
        wanted: dict[str, dict[int, Player]] = {}
        for p in self.players.values():
            if p.status == "seated" and p.table is not None and p.seat is not None:
                wanted.setdefault(p.table, {})[p.seat] = p
        return wanted

    # ------------------------------------------------------------------ the tables' word
    def table_status(self, table: str, body: Mapping[str, Any]) -> None:
        t = self.tables.get(table)
        if t is None:
            return
        online = body.get("state") == "online"
        boot = body.get("boot")
        if online and (not t.online or boot != t.boot):
            t.level_acked = None  # a table back (or restarted) is sent the level again
            t.pending.clear()
        t.online = online
        t.boot = boot if isinstance(boot, int) else t.boot

    def table_state(self, table: str, body: Mapping[str, Any]) -> None:
        t = self.tables.get(table)
        if t is None:
            return
        t.state = dict(body)
        t.in_hand = bool(body.get("in_hand"))
        variant = body.get("variant")
        if isinstance(variant, str) and variant != self.structure.game and not t.wrong_game:
            t.wrong_game = True
            self._alert("table_game_mismatch", "TABLE-00", "warning",
                        f"table {table} deals {variant}; the tournament plays "
                        f"{self.structure.game}", f"set [game] variant = "
                        f"\"{self.structure.game}\" in the table's config and restart it",
                        self._last_now, table=table)
        if isinstance(body.get("button"), int):
            t.button = body["button"]
        if not t.in_hand:
            counted = {int(p["seat"]): int(p["stack"]) for p in body.get("players", [])
                       if not p.get("unverified")}
            self._carried(t, counted)
            self._counts(t, counted)

    def _carried(self, t: TableRec, counted: Mapping[int, int]) -> None:
        """A moved player's stack as the target table counts it (stack zones), before his
        first hand there, against what he carried: chips lost on the way are one alert."""
        for m in self.moves.values():
            if m.state != "done" or m.checked or m.target[0] != t.table or m.stack is None:
                continue
            seat = m.target[1]
            if seat not in counted or t.seated().get(seat) != self.players[m.player].name:
                continue
            m.checked = True
            if counted[seat] != m.stack:
                name = self.players[m.player].name
                self._alert("move_stack_mismatch", "TABLE-06", "warning",
                            f"{name} left {m.source[0]} seat {m.source[1]} with {m.stack}; "
                            f"{t.table} seat {seat} counts {counted[seat]}",
                            "count his stack with him before his next hand; chips may not "
                            "leave the table with a moved player", self._last_now,
                            table=t.table, seat=seat, player=m.player)

    def table_event(self, table: str, ev: Mapping[str, Any], now: float) -> None:
        """A table's public event (journalled): hands start and end, stacks, busts."""
        t = self.tables.get(table)
        if t is None:
            return
        seq = ev.get("seq")
        if isinstance(seq, int):
            if seq <= t.last_seq:
                return  # a second copy
            t.last_seq = seq
        kind = ev.get("type")
        if kind == "hand_started":
            for m in self.moves.values():
                if m.state == "done" and m.target[0] == table:
                    m.checked = True  # from his first hand there on, his stack is play
            t.hand = ev.get("hand")
            t.in_hand = True
            t.button = ev.get("button")
            t.small_blind = ev.get("small_blind_seat")
            t.big_blind = ev.get("big_blind_seat")
            t.start_stacks = {int(s["seat"]): int(s["stack"]) for s in ev.get("seats", [])}
            t.hand_names = {int(s["seat"]): str(s["name"]) for s in ev.get("seats", [])}
        elif kind == "hand_ended":
            t.in_hand = False
            stacks = {int(s["seat"]): int(s["stack"]) for s in ev.get("stacks", [])}
            if ev.get("reason") in ("showdown", "uncontested", "checked_out"):
                # a hand played out; a void one (misdeal, cancelled) or one not followed
                # (untracked) says nothing of who has chips left
                self._busts(t, stacks, ev.get("hand"), now)
            self._counts(t, {s: v for s, v in stacks.items() if v > 0}, t.hand_names)

    def wants_event(self, table: str, ev: Mapping[str, Any]) -> bool:
        """An event of a table we follow that we have not had (a second copy is not)."""
        t = self.tables.get(table)
        seq = ev.get("seq")
        return t is not None and (not isinstance(seq, int) or seq > t.last_seq)

    def wants_reply(self, table: str, body: Mapping[str, Any]) -> bool:
        """An answer to a command of ours still on its way."""
        t = self.tables.get(table)
        rid = body.get("request_id")
        return t is not None and any(p.request_id == rid for p in t.pending.values())

    def restored(self, alerts: list[dict[str, Any]]) -> None:
        """After a replay: go on numbering alerts after the kept ones, and do not raise again
        what was raised once (the no-show reminder, a player seated twice)."""
        numbers = [int(str(a["id"]).removeprefix("c-")) for a in alerts
                   if str(a["id"]).removeprefix("c-").isdigit()]
        self._alert_ids = itertools.count(max(numbers, default=0) + 1)
        self._reminded = {str(a.get("player")) for a in alerts
                          if a["name"] == "no_show_stack_removal_due"}

    def reply(self, table: str, cmd: str, body: Mapping[str, Any], now: float) -> None:
        """A table's answer to a command of ours (journalled)."""
        t = self.tables.get(table)
        if t is None:
            return
        rid = body.get("request_id")
        key = next((k for k, p in t.pending.items() if p.request_id == rid), None)
        if key is None:
            return
        ok = bool(body.get("ok"))
        pending = t.pending[key]
        if ok and cmd in ("seat", "unseat"):
            # done at the table, but its retained state may say so a moment later: the seat
            # is not asked again until the state shows it (``_seating`` lets it go) or a while
            pending.sent_at = now
            pending.answered = True
        elif ok or cmd == "unseat":
            # an unseat refused for a live hand goes again once the table is between hands
            del t.pending[key]
        else:
            pending.sent_at = now  # sent again after RESEND_AFTER_S, not at every tick
        if cmd == "configure" and ok:
            t.level_acked = int(pending.body.get("_period", -1))
        error = str(body.get("error", ""))
        if not ok and cmd != "unseat" and (cmd, error) not in t.refusals:
            t.refusals.add((cmd, error))  # one alert for one refusal, however often sent
            self._alert("command_refused", "TABLE-00", "warning",
                        f"table {table} refused {cmd}: {error}",
                        "check the table; the controller sends it again every "
                        f"{RESEND_AFTER_S:g} s until the table takes it", now, table=table)
        elif ok:
            t.refusals = {r for r in t.refusals if r[0] != cmd}

    # ------------------------------------------------------------------ counts and busts
    def _counts(self, t: TableRec, stacks: Mapping[int, int],
                names: Mapping[int, str] | None = None) -> None:
        """Stacks the table counted, to its players (names are unique among those in)."""
        names = t.seated() if names is None else names
        by_name = {p.name: p for p in self.players.values() if p.status == "seated"}
        for seat, stack in stacks.items():
            p = by_name.get(names.get(seat, ""))
            if p is not None:
                p.stack = stack

    def _busts(self, t: TableRec, stacks: Mapping[int, int], hand: Any, now: float) -> None:
        """A player with no chips after a hand is out; places by the hand's starting stacks."""
        names = t.hand_names
        by_name = {p.name: p for p in self.players.values() if p.status == "seated"}
        out: dict[str, int] = {}
        for seat, stack in stacks.items():
            p = by_name.get(names.get(seat, ""))
            if stack == 0 and p is not None and t.start_stacks.get(seat, 0) > 0:
                out[p.player] = t.start_stacks[seat]
        if not out:
            return
        left = sum(1 for p in self.players.values() if p.status in ("seated", "registered"))
        places = standings.bust_places(out, left)
        for pid, place in places.items():
            p = self.players[pid]
            p.status, p.place, p.stack = "out", place, 0
            p.out_hand, p.out_table, p.out_at = hand if isinstance(hand, int) else None, \
                t.table, now
            p.table = p.seat = None
            for m in self.moves.values():
                if m.player == pid and m.state == "queued":
                    m.state = "cancelled"  # he busted before he left: nothing to move
            self.busts.append({"player": pid, "name": p.name, "place": place,
                               "hand": p.out_hand, "table": t.table, "at": _iso(now)})
        remaining = [p for p in self.players.values() if p.status == "seated"]
        if len(remaining) == 1 and not any(p.status == "registered"
                                           for p in self.players.values()):
            winner = remaining[0]
            winner.place = 1
            self.busts.append({"player": winner.player, "name": winner.name, "place": 1,
                               "hand": hand, "table": t.table, "at": _iso(now)})

    # ------------------------------------------------------------------ reconciling
    def reconcile(self, now: float) -> list[Send]:
        """The commands that bring the tables towards what they should be, and the alerts
        that follow from what they are (balancing, the same player twice, no-shows)."""
        self._last_now = now
        self.clock = clock.settle(self.clock, self.structure, now)
        sends: list[Send] = []
        view = clock.view(self.clock, self.structure, now)
        wanted = self._wanted()
        for t in self.tables.values():
            if not t.online:
                continue
            sends += self._level(t, view, now)
            sends += self._seating(t, now, wanted.get(t.table, {}))
        self._twice(now)
        self._no_shows(view, now)
        self._balance(now, wanted)
        return sends

    def _command(self, t: TableRec, key: str, cmd: str, body: dict[str, Any],
                 now: float) -> list[Send]:
        p = t.pending.get(key)
        if p is not None and now - p.sent_at < RESEND_AFTER_S:
            return []
        rid = f"tc-{self.run}-{next(self._requests)}"
        t.pending[key] = Pending(rid, cmd, body, now)
        wire = {k: v for k, v in body.items() if not k.startswith("_")}
        return [Send(t.table, cmd, {**wire, "request_id": rid})]

    def _level(self, t: TableRec, view: clock.ClockView, now: float) -> list[Send]:
        if not self.clock.started or view.level is None:
            return []
        period = self._level_period(view)
        if t.level_acked == period:
            return []
        lv = view.level
        body = {"small_blind": lv.small_blind, "big_blind": lv.big_blind, "ante": lv.ante,
                "ante_mode": lv.ante_mode, "limit": self.structure.limit, "level": lv.number,
                "_period": period}
        return self._command(t, "configure", "configure", body, now)

    def _level_period(self, view: clock.ClockView) -> int:
        """The period index of the level in play (a break plays the level before it)."""
        assert view.level is not None
        for i, p in enumerate(self.structure.periods):
            if isinstance(p, Level) and p.number == view.level.number:
                return i
        return -1

    def _seating(self, t: TableRec, now: float, wanted: Mapping[int, Player]) -> list[Send]:
        """Unseat whoever should not sit here (between his hands), seat whoever should
        (``wanted``: seat -> player, from ``_wanted``)."""
        if t.state is None:
            return []
        sends: list[Send] = []
        actual = t.seated()
        for key in [k for k, p in t.pending.items() if p.answered]:
            seat = int(t.pending[key].body["seat"])
            if (t.pending[key].cmd == "unseat") == (seat not in actual):
                del t.pending[key]  # the state shows it: done
        live = set(int(s) for s in t.state.get("active", [])) if t.in_hand else set()
        for seat, name in sorted(actual.items()):
            p = wanted.get(seat)
            if p is not None and p.name == name:
                continue
            if not any(q.name == name for q in self.players.values()):
                continue  # not one of ours (seated by hand): the floor's business
            # one of ours who should not sit here: moved, removed, or out (a table that could
            # not vouch for his last chips keeps him seated with none: his seat is free)
            if seat in live:
                continue  # his hand is not over: the move waits
            sends += self._command(t, f"unseat:{seat}", "unseat", {"seat": seat}, now)
        for seat, p in sorted(wanted.items()):
            if actual.get(seat) == p.name:
                self._arrived(p)
                continue
            if seat in actual:
                continue  # its player leaves first
            if self._at(p.player) is not None:
                continue  # still at his old seat: unseated first, then seated here
            stack = p.stack if p.stack is not None else self.structure.starting_stack
            for m in self.moves.values():
                if m.player == p.player and m.state == "queued" and m.target == (t.table, seat):
                    m.stack = stack
            sends += self._command(t, f"seat:{seat}", "seat",
                                   {"seat": seat, "name": p.name, "stack": stack}, now)
        return sends

    def _arrived(self, p: Player) -> None:
        for m in self.moves.values():
            if m.player == p.player and m.state == "queued" and m.target == (p.table, p.seat):
                m.state = "done"

    def _twice(self, now: float) -> None:
        """TABLE-07: one player at two seats (one alert per player)."""
        where: dict[str, list[str]] = {}
        for t in self.tables.values():
            for seat, name in t.seated().items():
                where.setdefault(name, []).append(f"{t.table} seat {seat}")
        for name, seats in where.items():
            if len(seats) > 1 and name not in self.twice:
                self.twice.add(name)
                self._alert("player_seated_twice", "TABLE-07", "critical",
                            f"{name} is seated at {' and '.join(seats)}",
                            "find the player; unseat him from the seat he is not playing",
                            now)
            elif len(seats) <= 1:
                self.twice.discard(name)

    def _no_shows(self, view: clock.ClockView, now: float) -> None:
        """SEAT-06 (A-03): once level 2 is over (a break after it included), each no-show's
        stack is due for removal; one reminder per player, also for one flagged later."""
        level2 = next((i for i, p in enumerate(self.structure.periods)
                       if isinstance(p, Level) and p.number == 2), None)
        if level2 is None or not self.clock.started or view.period <= level2:
            return
        for p in self.players.values():
            if p.no_show and p.status == "seated" and p.player not in self._reminded:
                self._reminded.add(p.player)
                self._alert("no_show_stack_removal_due", "SEAT-06", "info",
                            f"{p.name} has not appeared by the end of level 2",
                            f"remove the stack at {p.table} seat {p.seat}; the seat becomes "
                            "empty", now, table=p.table, seat=p.seat, player=p.player)

    def _balance(self, now: float, wanted: Mapping[str, Mapping[int, Player]]) -> None:
        seats = [self._table_seats(t, wanted.get(t, {})) for t in sorted(self.tables)]
        s = balancing.suggest([t for t in seats if t.open], self.variant, self.max_difference)
        if s is None or any(m.state == "queued" for m in self.moves.values()):
            self.suggestions.clear()
            return
        if (s.from_table, s.to_table, *self._sizes(s.from_table, s.to_table)) in self.dismissed:
            self.suggestions.clear()
            return
        name = self.players[s.player].name
        s = replace(s, reason=s.reason.replace(s.player, name))  # a director reads names
        same = next((i for i, o in self.suggestions.items()
                     if (o.from_table, o.to_table) == (s.from_table, s.to_table)), None)
        if same is not None:
            # the same imbalance: as the button moves, who moves and where moves with it; the
            # open suggestion says so (same id), and nobody is told again
            self.suggestions[same] = s
            return
        self.suggestions.clear()
        sid = next(self._suggestion_ids)
        self.suggestions[sid] = s
        self._alert("balancing_move_suggestion", s.rule, "info",
                    f"move {self.players[s.player].name} from {s.from_table} seat "
                    f"{s.from_seat} to {s.to_table} seat {s.to_seat}: {s.reason}",
                    "carry out the move from the director's page, or dismiss it", now,
                    table=s.from_table, seat=s.from_seat, player=s.player)

    def _alert(self, name: str, rule: str, severity: str, message: str, remedy: str,
               now: float, **where: Any) -> None:
        a = Alert(f"c-{next(self._alert_ids)}", name, rule, severity, message, remedy, now, **where)
        self.alerts.append(a)
        self.new_alerts.append(a)

    # ------------------------------------------------------------------ the view
    def view(self, now: float) -> dict[str, Any]:
        """Everything the pages and the retained topics show (see docs/TOURNAMENT.md)."""
        cv = clock.view(self.clock, self.structure, now)
        # the winner has his place (1) and is still in: he counts as left
        entries = [standings.Entry(p.player, p.name, p.table, p.seat, p.stack, None)
                   for p in self.players.values() if p.status == "seated"]
        summary = standings.summary(entries, cv.level.big_blind if cv.level else None)
        payouts = self.structure.payouts
        places = {p.player: p.place for p in self.players.values() if p.place is not None}
        prizes = standings.prizes(payouts, len(self.players), places) if payouts else {}
        pool = standings.prize_pool(payouts, len(self.players)) if payouts else 0
        leader = summary.chip_leader
        # built once for every table's rows, not once per table (tables x players)
        by_name = {p.name: p for p in self.players.values()}
        moving = {m.source: m for m in self.moves.values() if m.state == "queued"}
        return {
            "name": self.name, "venue": self.venue, "game": self.structure.game,
            "limit": self.structure.limit,
            "clock": _clock(cv, self.clock, self.structure, now),
            "field": {"entries": len(self.players), "players_left": summary.players_left,
                      "average_stack": summary.average_stack, "average_bb": summary.average_bb,
                      "chip_leader": None if leader is None else {
                          "player": leader.player, "name": leader.name, "stack": leader.stack,
                          "table": leader.table, "seat": leader.seat},
                      "prize_pool": pool},
            "tables": [self._table_view(t, by_name, moving)
                       for t in sorted(self.tables.values(), key=lambda t: t.table)],
            "players": [{"player": p.player, "name": p.name, "table": p.table, "seat": p.seat,
                         "stack": p.stack, "status": p.status, "place": p.place,
                         "prize": prizes.get(p.player), "no_show": p.no_show}
                        for p in sorted(self.players.values(), key=_standing)],
            "moves": [{"id": m.id, "player": m.player, "name": self.players[m.player].name,
                       "from": list(m.source), "to": list(m.target), "state": m.state}
                      for m in self.moves.values() if m.state == "queued"],
            "suggestions": [{"id": i, "player": s.player,
                             "name": self.players[s.player].name,
                             "from": [s.from_table, s.from_seat], "to": [s.to_table, s.to_seat],
                             "rule": s.rule, "reason": s.reason}
                            for i, s in self.suggestions.items()],
            "busts": list(reversed(self.busts)),
            "payouts": _payout_rows(payouts, len(self.players)) if payouts else [],
            "alerts": [alert_view(a) for a in self.alerts[-50:]],
        }

    def _table_view(self, t: TableRec, by_name: Mapping[str, Player],
                    moving: Mapping[tuple[str, int], Move]) -> dict[str, Any]:
        names = t.seated()
        rows = []
        for seat, name in sorted(names.items()):
            p = by_name.get(name)
            stack = next((int(x["stack"]) for x in (t.state or {}).get("players", [])
                          if int(x["seat"]) == seat), None)
            m = moving.get((t.table, seat))
            rows.append({"seat": seat, "player": p.player if p else None, "name": name,
                         "stack": stack,
                         "moving": None if m is None else list(m.target)})
        return {"table": t.table, "online": t.online, "open": t.open, "seats": t.seats,
                "button": t.button, "small_blind": t.small_blind, "big_blind": t.big_blind,
                "in_hand": t.in_hand, "hand": t.hand, "level_acked": t.level_acked,
                "players": rows}


def _standing(p: Player) -> tuple[int, int, str]:
    """Leaderboard order: the players in by stack, then the finished by place."""
    if p.status in ("out", "removed"):
        return (1, p.place or 10**6, p.name)
    return (0, -(p.stack or 0), p.name)


def _clock(cv: clock.ClockView, s: clock.ClockState, st: Structure,
           now: float) -> dict[str, Any]:
    return {"started": cv.started, "running": cv.running, "period": cv.period,
            "level": _level(cv.level), "on_break": _break(cv.on_break),
            "remaining_s": round(cv.remaining_s, 1),
            "ends_at": now + cv.remaining_s if cv.running else None,
            "next_level": _level(cv.next_level),
            "next_break_in_s": cv.next_break_in_s, "next_break": _break(cv.next_break),
            "structure": [dict(kind="level", **_level(p) or {}) if isinstance(p, Level)
                          else dict(kind="break", **_break(p) or {}) for p in st.periods]}


def _level(lv: Level | None) -> dict[str, Any] | None:
    if lv is None:
        return None
    return {"number": lv.number, "small_blind": lv.small_blind, "big_blind": lv.big_blind,
            "ante": lv.ante, "ante_mode": lv.ante_mode, "minutes": lv.minutes}


def _break(b: Break | None) -> dict[str, Any] | None:
    if b is None:
        return None
    return {"after_level": b.after_level, "minutes": b.minutes, "name": b.name}


def _payout_rows(payouts: Payouts, entries: int) -> list[dict[str, Any]]:
    return [{"place": i + 1, "prize": prize}
            for i, prize in enumerate(standings.place_prizes(payouts, entries))]


def alert_view(a: Alert) -> dict[str, Any]:
    return {"id": a.id, "name": a.name, "rule": a.rule, "severity": a.severity,
            "message": a.message, "remedy": a.remedy, "at": _iso(a.at), "table": a.table,
            "seat": a.seat, "player": a.player}


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def _int(a: Mapping[str, Any], key: str, default: int | None = None) -> int:
    v = a.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ActionError(f"{key}: a whole number")
    return v

