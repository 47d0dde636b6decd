"""What the overlay page shows, built from the table's messages once their delay is over.

``TableView`` is fed the messages of one table in the order they are due (``apply``) and
answers ``view()``: one JSON-ready picture of the table for the page (the game by name; seats
with name, stack, bet, cards, win probability, badges, and their place around the table; the
board; the pot and side pots; the last action; the showdown). A seat holds the cards its
events dealt it, whatever the game (two in hold'em, four in Omaha, five in draw), so a new
game needs no change here. The page never sees a message, only the pictures, so nothing
reaches the browser before the delay has passed. Pure: no I/O, no clock.

What a TV picture keeps and drops: at the showdown only what was tabled stays (a seat that
mucks unseen loses its cards and its hand in words, which came from the secure feed); a pot
is gone from the middle once it is pushed (``pot_awarded``), the winners' badges say who took
it; the layout (6, 9 or 10 places) is the smallest holding the players at the hand's start,
unless one is configured (``LAYOUTS``, ``TableView.layout``).

Sources: ``state`` (the retained public snapshot) lets an overlay started in the middle of a
hand show that hand at once; ``events`` and ``secure/events`` carry everything else
(``tablesvc.core.events``); ``status`` says whether the table's service is online. Events are
de-duplicated on seq, as every consumer does. When a tournament controller runs the venue,
``tournament/clock`` and ``tournament/field`` (its retained ``.tournament/`` topics) give the
tournament strip: the level, its blinds and ante, the chip leader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablesvc.game_names import game_name

LAYOUTS: tuple[int, ...] = (6, 9, 10)
"""The page's seat layouts: that many places around the table, each laid out by hand."""
CLEARS_EQUITY = frozenset({"board", "draw", "hole_cards", "hand_started", "hand_ended"})
DEALS: dict[str, tuple[int, str | None]] = {
    "holdem": (2, "preflop"), "omaha": (4, "preflop"), "omaha5": (5, "preflop"),
    "draw5": (5, "predraw"),
}
"""Per variant: the cards each seat is dealt face down, and the street before the first
board or draw. Only for what no event has said: a hand followed from its start shows, for each
seat, the cards its ``card_dealt`` and ``hole_cards`` events dealt it (so a game not listed
here shows right from its first hand); a picture started from the retained state, which says
who is in the hand but not how many cards each holds, shows this many. A variant not listed
shows no card there, and takes its first street from its first ``equity``."""


@dataclass
class Seat:
    seat: int
    name: str
    stack: int
    in_hand: bool = False
    bet: int = 0
    put_in: int = 0  # this hand, for the side pots
    cards: list[str] | None = None  # known cards (secure feed, or tabled at the showdown)
    down: int = 0  # cards dealt to the seat (its card_dealt and hole_cards events count them)
    folded: bool = False
    all_in: bool = False
    drew: int | None = None  # five-card draw: cards received at the draw
    win: float | None = None
    tie: float | None = None
    outs: int | None = None
    hand: str | None = None  # the hand's name: from the equity, then the showdown
    shown: bool = False  # tabled at the showdown
    mucked: bool = False  # mucked unseen at the showdown: no cards, no hand in words
    won: int = 0
    place: int = 0  # where it sits in the page's layout: 0 .. layout - 1, clockwise

    def view(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "stack": self.stack,
                "in_hand": self.in_hand, "bet": self.bet, "cards": self.cards,
                "down": self.down, "folded": self.folded, "all_in": self.all_in,
                "drew": self.drew, "win": self.win, "tie": self.tie, "outs": self.outs,
                "hand": self.hand, "shown": self.shown, "mucked": self.mucked,
                "won": self.won, "winner": self.won > 0, "place": self.place}


@dataclass
class TableView:
    """The delayed picture of one table.

    ``layout``: the layout configured (``[overlay] layout``): seat n sits at its place n,
    always. None (the default): the smallest of ``LAYOUTS`` that holds the players in the
    picture at each hand's start (those ``hand_started`` deals in, and those seated who sit
    it out), or in the retained state between hands; the seats then take its places in their
    order around the table, spread evenly, so that no two share one. Before any player is
    known, the smallest that holds ``table_seats``.
    """

    table: str = ""
    layout: int | None = None
    table_seats: int = 10
    online: bool | None = None
    variant: str = "holdem"
    limit: str | None = None
    hand: int | None = None
    in_hand: bool = False
    street: str | None = None
    button: int | None = None
    level: dict[str, int] = field(default_factory=dict)
    seats: dict[int, Seat] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    pot: int = 0
    carried: int = 0
    awarded: list[dict[str, Any]] = field(default_factory=list)
    last_action: dict[str, Any] | None = None
    equity: dict[str, Any] | None = None
    followed: int | None = None  # the hand whose start was seen (events, not the snapshot)
    seen: set[int] = field(default_factory=set)
    last_seq: int = 0
    tournament_clock: dict[str, Any] | None = None
    tournament_field: dict[str, Any] | None = None
    shown_layout: int = 0  # the layout the picture is drawn on (``_lay_out``)

    def __post_init__(self) -> None:
        self._lay_out()

    # ------------------------------------------------------------------ input
    def apply(self, topic: str, msg: Any) -> bool:
        """One message of ``topic`` ("state", "status", "events", "secure/events",
        "tournament/clock", "tournament/field"); True when the picture changed."""
        if not isinstance(msg, dict):
            return False
        if topic == "tournament/clock":
            self.tournament_clock = msg
            return True
        if topic == "tournament/field":
            self.tournament_field = msg
            return True
        if topic == "status":
            online = msg.get("state") == "online"
            changed, self.online = online != self.online, online
            return changed
        if topic == "state":
            return self._snapshot(msg)
        seq = msg.get("seq")
        if not isinstance(seq, int) or seq in self.seen:
            return False
        self.seen.add(seq)
        if len(self.seen) > 20_000:  # keep the recent ones: a duplicate is sent again soon
            self.seen = {s for s in self.seen if s > seq - 10_000}
        self.last_seq = max(self.last_seq, seq)
        self.table = f"{msg.get('venue')}/{msg.get('table')}"
        kind = msg.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if kind in CLEARS_EQUITY:
            self._clear_equity()
        if handler is None:
            return False
        handler(msg)
        return True

    def _snapshot(self, st: dict[str, Any]) -> bool:
        """The retained state: the players between hands, the hand when we missed its start."""
        players = {p["seat"]: p for p in st.get("players", []) if isinstance(p, dict)}
        if st.get("hand") is not None and st.get("hand") == self.followed:
            return False  # the events tell more than the snapshot
        if self.in_hand and self.followed is not None:
            return False
        self.variant = st.get("variant") or self.variant
        level = st.get("level")
        if isinstance(level, dict) and level.get("limit"):
            self.limit = str(level["limit"])
        if st.get("hand") != self.hand:
            self.awarded = []
        self.hand = st.get("hand")
        self.in_hand = bool(st.get("in_hand"))
        self.button = st.get("button")
        self.street = st.get("street")
        self.board = list(st.get("board") or [])
        self.pot = int(st.get("pot") or 0)
        active = set(st.get("active") or [])
        seats: dict[int, Seat] = {}
        for seat, p in sorted(players.items()):
            old = self.seats.get(seat)
            s = Seat(seat, str(p.get("name", "")), int(p.get("stack", 0)))
            if self.in_hand:
                s.in_hand = seat in active or (old is not None and old.in_hand)
                s.folded = s.in_hand and seat not in active
                s.down = DEALS.get(self.variant, (0, None))[0] if s.in_hand else 0
            seats[seat] = s
        self.seats = seats
        self._lay_out()
        return True

    def _lay_out(self) -> None:
        """The layout and each seat's place in it, for the players in the picture now:
        called at a hand's start and for the retained state, never during a hand."""
        seats = sorted(self.seats)
        if self.layout is not None and all(1 <= s <= self.layout for s in seats):
            self.shown_layout = self.layout
            for s in seats:
                self.seats[s].place = s - 1
            return
        count = len(seats) or self.table_seats
        size = next((n for n in LAYOUTS if n >= count), LAYOUTS[-1])
        self.shown_layout = size
        for i, s in enumerate(seats):
            # spread around the table: the i-th seat clockwise at place i * size // count,
            # a different place for every i since size >= count (a table has ten seats)
            self.seats[s].place = i * size // count

    # ------------------------------------------------------------------ events
    def _on_hand_started(self, e: dict[str, Any]) -> None:
        self.hand = e.get("hand")
        self.followed = self.hand
        self.in_hand = True
        self.variant = e.get("variant", "holdem")
        self.limit = e.get("limit") or None
        self.street = DEALS[self.variant][1] if self.variant in DEALS else None
        self.button = e.get("button")
        self.level = {"small_blind": e.get("small_blind", 0), "big_blind": e.get("big_blind", 0),
                      "ante": e.get("ante", 0)}
        self.carried = int(e.get("carried_pot") or 0)
        self.pot = self.carried
        self.board = []
        self.awarded = []
        self.last_action = None
        dealt = {s["seat"]: s for s in e.get("seats", [])}
        seats = {}
        for seat, old in self.seats.items():  # seated players sitting this hand out
            if seat not in dealt:
                seats[seat] = Seat(seat, old.name, old.stack)
        for seat, s in dealt.items():
            seats[seat] = Seat(seat, s["name"], s["stack"], in_hand=True)
        self.seats = dict(sorted(seats.items()))
        self._lay_out()

    def _seat(self, e: dict[str, Any]) -> Seat | None:
        seat = e.get("seat")
        return self.seats.get(seat) if isinstance(seat, int) else None

    def _on_card_dealt(self, e: dict[str, Any]) -> None:
        s = self._seat(e)
        if s is not None:
            s.down = max(s.down, int(e.get("n", 0)))

    def _on_hole_cards(self, e: dict[str, Any]) -> None:
        s = self._seat(e)
        if s is not None and not s.mucked:  # a hand mucked unseen is not shown again
            s.cards = list(e.get("cards") or [])
            s.down = max(s.down, len(s.cards))

    def _on_action(self, e: dict[str, Any]) -> None:
        s = self._seat(e)
        if s is None:
            return
        action = e.get("action", "")
        amount = int(e.get("amount") or 0)
        s.put_in += amount
        if action != "post_ante":
            s.bet = int(e.get("to") or s.bet)
        s.stack = int(e.get("stack", s.stack))
        self.pot = int(e.get("pot", self.pot))
        if action == "fold":
            s.folded = True
            self._clear_equity()
        if action == "all_in" or (s.stack == 0 and amount > 0):
            s.all_in = True
        self.last_action = {"seat": s.seat, "name": s.name, "action": action,
                            "text": _action_text(action, amount, int(e.get("to") or 0))}

    def _on_board(self, e: dict[str, Any]) -> None:
        self.board = list(e.get("board") or [])
        self.street = e.get("street", self.street)
        self._new_round()

    def _on_draw(self, e: dict[str, Any]) -> None:
        s = self._seat(e)
        if self.street in ("predraw", None):
            self.street = "draw"
            self._new_round()
        if s is not None:
            s.drew = int(e.get("received") or 0)

    def _new_round(self) -> None:
        for s in self.seats.values():
            s.bet = 0
        self.last_action = None

    def _on_equity(self, e: dict[str, Any]) -> None:
        self.equity = {"street": e.get("street"), "method": e.get("method"),
                       "samples": e.get("samples"), "error": e.get("error")}
        if e.get("street") == "postdraw" or (self.street is None and e.get("street")):
            self.street = e.get("street")
        for row in e.get("seats", []):
            s = self.seats.get(row.get("seat"))
            if s is None or s.mucked:
                continue
            s.win, s.tie = row.get("win"), row.get("tie")
            outs = row.get("outs")
            s.outs = len(outs) if isinstance(outs, list) else None
            s.hand = row.get("hand") or s.hand

    def _clear_equity(self) -> None:
        self.equity = None
        for s in self.seats.values():
            s.win = s.tie = s.outs = None

    def _on_showdown(self, e: dict[str, Any]) -> None:
        s = self._seat(e)
        if s is None:
            return
        self.street = "showdown"
        self.last_action = None
        if e.get("tabled"):
            s.shown = True
            s.cards = list(e.get("cards") or s.cards or [])
            s.hand = e.get("rank") or s.hand
        else:
            # mucked unseen: the viewers never saw these cards at the table, so the picture
            # shows no more of them than the table did (the hole-card camera's view ends here)
            s.mucked = True
            s.cards, s.down, s.hand = None, 0, None
            s.win = s.tie = s.outs = None
        for other in self.seats.values():
            other.bet = 0

    def _on_pot_awarded(self, e: dict[str, Any]) -> None:
        for seat, chips in (e.get("shares") or {}).items():
            s = self.seats.get(int(seat))
            if s is not None:
                s.won += int(chips)
        self.awarded.append({"name": e.get("pot", "main"), "amount": e.get("amount", 0),
                             "seats": e.get("seats", [])})
        # the pot is pushed to its winners: gone from the middle (the winners' badges say it),
        # and with the last one whatever still lay in front of a seat
        self.pot = sum(p["amount"] for p in self.pots())
        if not self.pot:
            for s in self.seats.values():
                s.bet = 0

    def _on_hand_ended(self, e: dict[str, Any]) -> None:
        self.in_hand = False
        self.street = "ended"
        for row in e.get("stacks", []):
            s = self.seats.get(row.get("seat"))
            if s is not None:
                s.stack = row.get("stack", s.stack)
        for s in self.seats.values():
            s.bet = 0
        # nothing is left in the middle but a checked-out draw game's pot, for the next game
        self.pot = int(e.get("carried_pot") or 0)
        self.carried = self.pot
        if e.get("reason") in ("misdeal", "cancelled"):
            for s in self.seats.values():
                s.cards, s.down, s.won = None, 0, 0
            self.board = []

    # ------------------------------------------------------------------ output
    def pots(self) -> list[dict[str, Any]]:
        """The pots in the middle: main and side pots from what each seat put in (the
        carried-over pot is main's), less those already pushed to their winners
        (``pot_awarded``); between hands, only a carried-over pot."""
        if not self.in_hand:
            return [{"name": "main", "amount": self.pot, "seats": []}] if self.pot else []
        pushed = {a["name"] for a in self.awarded}
        return [p for p in self._pots() if p["name"] not in pushed]

    def _pots(self) -> list[dict[str, Any]]:
        seats = [s for s in self.seats.values() if s.in_hand]
        put_in = {s.seat: s.put_in for s in seats}
        if seats:
            # what only one live seat put in above everything matched is no pot: it goes back
            # to him (as the service awards it)
            top = max(seats, key=lambda s: s.put_in)
            others = max((s.put_in for s in seats if s is not top), default=0)
            if not top.folded and top.put_in > others:
                put_in[top.seat] = others
        caps = sorted({put_in[s.seat] for s in seats if s.all_in and not s.folded})
        pots: list[dict[str, Any]] = []
        below = 0
        for cap in [*caps, None]:
            amount = sum(max(0, (put_in[s.seat] if cap is None else min(put_in[s.seat], cap))
                             - below) for s in seats)
            eligible = [s.seat for s in seats if not s.folded
                        and (put_in[s.seat] > below if cap is None else put_in[s.seat] >= cap)]
            if amount > 0 and (eligible or cap is not None):
                pots.append({"name": "main" if not pots else f"side {len(pots)}",
                             "amount": amount, "seats": eligible})
            if cap is not None:
                below = cap
        if pots:
            pots[0]["amount"] += self.carried
        elif self.carried:
            pots.append({"name": "main", "amount": self.carried, "seats": []})
        return pots

    def view(self) -> dict[str, Any]:
        return {
            "table": self.table, "online": self.online, "variant": self.variant,
            "limit": self.limit, "game": game_name(self.variant, self.limit),
            "hand": self.hand, "in_hand": self.in_hand, "street": self.street,
            "button": self.button, "level": self.level, "board": self.board,
            "pot": self.pot, "pots": self.pots(), "last_action": self.last_action,
            "equity": self.equity, "seats": [s.view() for s in self.seats.values()],
            "layout": self.shown_layout,
            "last_seq": self.last_seq, "tournament": self.tournament(),
        }

    def tournament(self) -> dict[str, Any] | None:
        """The tournament strip: the controller's level (blinds, ante), or its break and the
        level after it, and the chip leader; None when no controller published a clock."""
        c = self.tournament_clock
        if c is None:
            return None
        f = self.tournament_field or {}
        leader = f.get("chip_leader")
        brk = c.get("on_break")
        return {"name": c.get("name"), "level": _level(c.get("level")),
                "on_break": str(brk.get("name") or "Break") if isinstance(brk, dict) else None,
                "next_level": _level(c.get("next_level")),
                "players_left": f.get("players_left"),
                "leader": {"name": str(leader.get("name", "")), "stack": leader.get("stack")}
                if isinstance(leader, dict) else None}


def _level(lv: Any) -> dict[str, Any] | None:
    """A level of the controller's clock as the strip shows it."""
    if not isinstance(lv, dict):
        return None
    return {k: lv.get(k) for k in ("number", "small_blind", "big_blind", "ante", "ante_mode")}


def _action_text(action: str, amount: int, to: int) -> str:
    """The last action as the commentator says it: "raises to 600", "calls 200"."""
    if action == "raise":
        return f"raises to {to:,}"
    if action == "bet":
        return f"bets {to:,}"
    if action == "all_in":
        return f"all in for {to:,}" if to else "all in"
    if action == "call":
        return f"calls {amount:,}"
    if action.startswith("post_"):
        what = {"post_small_blind": "small blind", "post_big_blind": "big blind",
                "post_ante": "ante"}.get(action, action)
        return f"posts the {what} {amount:,}"
    return {"check": "checks", "fold": "folds"}.get(action, action)
