"""The money side of one hand: bet zones read as round totals, booked as actions.

The card flow (the game's tracker) says where the cards are; the ledger says where the chips
are. It reads bet-zone inventories as each seat's round total (DESIGN §3), holds a changing
inventory as a *pending* bet until it is final (the next action, the gathering, a card from
the deck, or ``bet_settle_ms`` without change), classifies it with the betting rules and
applies it. Pure: no I/O, no clock. Its collaborators: the game's ``BettingPlan`` (forced
bets, who opens each round, who shows: ``tablesvc.core.betting_plan``), the records it answers
with (``tablesvc.core.ledger_outcomes``), and the pots split at the end
(``tablesvc.core.payout``). The rules whose alerts it names are in ``RULES`` below: BET-01,
BET-12, BET-15..17 and BET-23.

Irregular turns (RULES.md BET-15..BET-17):

* A bet out of turn is *held*: it stays in its zone, one ``action_out_of_turn`` is reported,
  and it is not booked until the skipped players have acted. When the turn reaches its seat
  it is booked as it stands if the bet it faced is unchanged (A-18); if the bet it faced has
  changed, the player reconsiders and may take the chips back without ``bet_withdrawn``.
* ``clock(seat, ms)`` starts the 30 s action clock (``clock_running``); when input time
  passes :meth:`Ledger.deadline` without the seat acting, ``tick`` reports ``clock_expired``
  and applies the deemed check or fold (an :class:`Acted` with ``deemed="clock"``).
* ``absent(seat)`` marks a player away: when his turn comes he is deemed to check or fold
  (``absent_player_auto_action``, an :class:`Acted` with ``deemed="absent"``), and killing
  his dead hand is never an action out of turn.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tablesvc.core.betting import BettingRound, Decision, Structure, Violation, action_order
from tablesvc.core.betting_plan import BettingPlan
from tablesvc.core.ledger_outcomes import (
    Acted,
    CheckedOut,
    LedgerOutcome,
    Posted,
    Problem,
    Returned,
    Settled,
)
from tablesvc.core.payout import settle

# Rule ID -> the violations the ledger names for it (each becomes an alert of that name);
# docs/RULES-COVERAGE.md is generated from such declarations.
RULES: dict[str, tuple[str, ...]] = {
    "BET-01": ("bet_withdrawn",),
    "BET-12": ("reraise_not_allowed",),
    "BET-15": ("action_out_of_turn", "bet_withdrawn"),
    "BET-16": ("absent_player_auto_action",),
    "BET-17": ("clock_running", "clock_expired"),
    "BET-23": ("chips_added_mid_hand",),
}

CLOCK_MS = 30_000  # T_clock (BET-17)
UNKNOWN = 10**12
"""What an unverified stack holds beyond its last count: an untracked hand may have changed it,
so no check that needs the exact stack (all-in, a bet beyond the stack, a short call) is made
for it until the floor counts it (``cmd/stacks``); the events show the last count's figures."""
SHORT_OF_ALL_IN = frozenset({"call_short", "raise_below_minimum"})
"""What a player whose stack nobody counted does when he has no more: call or raise short. It
is taken as his all-in (an exact stack would tell BET-09 and BET-11 from it)."""
# Violations whose remedy is "the chips beyond the call go back": still reported when the
# player pulls the excess back before his bet is final.
EXCESS_RETURNED = frozenset(
    {"reraise_after_incomplete_allin", "reraise_not_allowed", "bet_exceeds_limit"})


@dataclass
class Pending:
    seat: int
    to: int
    since_ms: int


@dataclass(frozen=True, slots=True)
class Held:
    """A bet made out of turn: in the zone, not booked until the skipped players have acted."""

    seat: int
    to: int
    faced: int  # the round's highest bet H when it was made


@dataclass
class Ledger:
    """Chips of one hand. ``order`` is s_1..s_N (the deal order: button last)."""

    order: tuple[int, ...]
    button: int
    stacks: dict[int, int]
    small_blind: int
    big_blind: int
    ante: int = 0
    ante_mode: str = "each"
    structure: Structure = Structure.NO_LIMIT
    unit: int = 1  # smallest chip in play, for splitting pots
    settle_ms: int = 1500
    start_stacks: dict[int, int] = field(default_factory=dict)
    contributed: dict[int, int] = field(default_factory=dict)  # whole hand, antes apart
    antes: int = 0  # dead money at the bottom of the main pot, which every live seat can win
    folded: set[int] = field(default_factory=set)
    round: BettingRound | None = None
    street: str = ""  # the plan's first street, unless given
    pending: Pending | None = None
    settled: Settled | None = None
    history: list[Acted | Posted] = field(default_factory=list)
    zone: dict[int, int] = field(default_factory=dict)  # last seen bet-zone value
    aggressor: int | None = None  # last bettor/raiser of the hand (SHOW-01/02)
    clock_ms: int = CLOCK_MS
    held: dict[int, Held] = field(default_factory=dict)  # out-of-turn bets (BET-15)
    reconsider: dict[int, int] = field(default_factory=dict)  # seat -> round total to go back to
    away: set[int] = field(default_factory=set)  # absent players (BET-16)
    clock_seat: int | None = None
    clock_end: int | None = None
    now: int = 0  # the latest input time seen
    plan: BettingPlan = field(default_factory=BettingPlan)  # the game's way of betting
    carried: int = 0  # a pot carried over from a game without a winner (POT-10)
    carry_unknown: bool = False  # games went by unseen: what the pot carried is the table's
    checked_out: CheckedOut | None = None
    owes: dict[int, int] = field(default_factory=dict)  # draw: a fold out of turn's call (BET-25)
    late: dict[int, int] = field(default_factory=dict)  # chips after the round was complete
    unverified: frozenset[int] = frozenset()  # seats whose stacks are not known exactly
    deemed: set[int] = field(default_factory=set)  # ... taken as all-in when the table dealt on
    unannounced: list[LedgerOutcome] = field(default_factory=list)  # what a run-out decided
    dealt: bool = True  # the first card has left the shoe (a session clears it at NEWHAND)
    predeal: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (value, ms)

    def __post_init__(self) -> None:
        self.street = self.street or self.plan.first_street
        self.start_stacks = dict(self.stacks)
        self.start_unverified = self.unverified
        self.contributed = dict.fromkeys(self.order, 0)
        self.antes = self.carried  # dead money every live seat can win
        for seat in self.unverified:
            self.stacks[seat] += UNKNOWN

    def shown(self, seat: int) -> int:
        """The stack as the events show it: for an unverified seat, the last count's figure
        less what went in since (never below 0)."""
        v = self.stacks[seat]
        return max(0, v - UNKNOWN) if seat in self.unverified else v

    def shown_stacks(self) -> dict[int, int]:
        return {seat: self.shown(seat) for seat in self.stacks}

    # ------------------------------------------------------------------ forced bets
    @property
    def heads_up(self) -> bool:
        return len(self.order) == 2

    @property
    def blind_seats(self) -> tuple[int, int]:
        """(small blind, big blind): heads-up the button posts the small blind."""
        if self.heads_up:
            return self.order[1], self.order[0]
        return self.order[0], self.order[1]

    def deal_begins(self, book: bool = True) -> list[LedgerOutcome]:
        """The first card left the shoe: betting may begin. What the bet zones showed
        before it is read now, in order (``book``), or set aside (the hand was dealt from
        another button than the service's: those chips were that button's blinds)."""
        self.dealt = True
        held, self.predeal = self.predeal, {}
        out: list[LedgerOutcome] = []
        if book:
            for seat, (value, ms) in held.items():
                out += self.bet_zone(seat, value, ms)
        else:
            self.zone.update({seat: value for seat, (value, _) in held.items()})
        return out

    def _only_posted(self, seat: int, current: int) -> bool:
        """The seat's chips in this round are its blind, and it has not acted yet."""
        posted = [h for h in self.history if isinstance(h, Posted) and h.seat == seat
                  and h.action != "post_ante"]
        return bool(posted) and posted[-1].amount == current \
            and self.street == self.plan.first_street \
            and not any(isinstance(h, Acted) and h.decision.seat == seat for h in self.history)

    def _posted_short(self, seat: int, value: int) -> list[LedgerOutcome]:
        """A seat whose stack nobody counted shows less than the blind the service posted for
        it: it had no more, so its blind is all-in for ``value`` (what it did not have goes
        back into its stack, which is empty)."""
        assert self.round is not None
        old = next(h for h in reversed(self.history) if isinstance(h, Posted)
                   and h.seat == seat and h.action != "post_ante")
        self.contributed[seat] -= old.amount - value
        self.unverified = self.unverified - {seat}
        self.stacks[seat] = 0
        self.round.repost(seat, value)
        again = Posted(seat, old.action, value, 0, self.pot_total)
        self.history[self.history.index(old)] = again
        return [again]

    def _skipped_all_in(self, seat: int) -> list[int]:
        """``seat`` acts while others are still to act before him, and every one of them has
        a stack nobody counted: the table skips only players who are all-in, so they are
        (for this hand). If a seat whose stack is known is skipped, the action is out of turn
        and nothing changes."""
        rnd = self.round
        if not self.unverified or rnd is None or rnd.complete:
            return []
        if rnd.next_actor in (None, seat) or rnd.next_actor not in self.unverified:
            return []
        trial = copy.deepcopy(rnd)
        skipped: list[int] = []
        while (nxt := trial.next_actor) is not None and nxt != seat:
            if nxt not in self.unverified or nxt in skipped:
                return []
            skipped.append(nxt)
            trial.out_of_chips(nxt)
        if nxt != seat:
            return []
        for s in skipped:
            self._known_all_in(s, 0)
        self.deemed.update(skipped)
        return skipped

    def carry_found(self, more: int) -> None:
        """The pot held ``more`` than this hand's antes and the carry the service knew of: a
        pot carried over from a game it did not see (POT-10)."""
        self.carried += more
        self.antes += more

    def paid_before(self, seat: int) -> int:
        """What the seat put in the pot before this round: its ante and earlier rounds'
        bets (what lies in its bet zone now is this round's)."""
        this_round = self.round.contributed.get(seat, 0) if self.round is not None else 0
        antes = sum(h.amount for h in self.history
                    if isinstance(h, Posted) and h.seat == seat and h.action == "post_ante")
        return self.contributed.get(seat, 0) - this_round + antes

    def learned(self) -> set[int]:
        """Seats whose stacks nobody had counted and this hand showed exactly: all-in for a
        call, a raise or a blind of less (what they won is their stack now)."""
        return {s for s in self.start_unverified if s not in self.unverified
                and s not in self.deemed}

    def short_blinds(self, zones: Mapping[int, int]) -> list[int]:
        """Before the forced bets: a blind seat whose stack nobody counted shows less than
        its blind in its bet zone (``zones``: seat -> value when the hand is placed from the
        table): that is all it had, so it posts all-in for it."""
        sb, bb = self.blind_seats
        short = []
        for seat, blind in ((sb, self.small_blind), (bb, self.big_blind)):
            shown = zones.get(seat, 0)
            if seat in self.unverified and not self.ante and 0 < shown < blind:
                self.unverified = self.unverified - {seat}
                self.stacks[seat] = shown
                short.append(seat)
        return short

    def post_forced(self) -> list[LedgerOutcome]:
        """The game's forced bets, posted from the tracked stacks; the first round opens."""
        out = self.plan.post_forced(self)
        self.zone = {}  # what the reader reports next; stale empty repeats are no withdrawal
        return out

    def take(self, seat: int, amount: int) -> int:
        got = min(amount, self.stacks[seat])
        self.stacks[seat] -= got
        self.contributed[seat] += got
        return got

    def bet_unit(self, street: str) -> int:
        return self.big_blind * (2 if street in self.plan.big_bet_streets else 1)

    def action_order(self, preflop: bool) -> list[int]:
        live = [s for s in self.order if s not in self.folded]
        return action_order(live, preflop=preflop, heads_up=len(self.order) == 2)

    # ------------------------------------------------------------------ amounts
    @property
    def round_bets(self) -> int:
        return sum(self.round.contributed.values()) if self.round else 0

    @property
    def pot_gathered(self) -> int:
        """Chips in the middle from earlier rounds and antes (not this round's bets)."""
        return self.antes + sum(self.contributed.values()) - self.round_bets

    @property
    def pot_total(self) -> int:
        return self.antes + sum(self.contributed.values())

    @property
    def live(self) -> list[int]:
        return [s for s in self.order if s not in self.folded]

    # ------------------------------------------------------------------ what the sensors saw
    def bet_zone(self, seat: int, value: int, ms: int) -> list[LedgerOutcome]:
        """A new inventory of seat's bet zone: its round total, once final. Before the first
        card nobody acts: chips that are not the seat's posted forced bet wait for the deal
        (``predeal``), where the button they show is judged first (``deal_begins``)."""
        if not self.dealt and self.round is not None and self.street == self.plan.first_street \
                and (value != self.round.contributed.get(seat, 0) or seat in self.predeal):
            self.predeal[seat] = (value, ms)
            return []
        previous = self.zone.get(seat, 0)
        self.zone[seat] = value
        self.now = max(self.now, ms)
        if value == previous:
            return []  # the reader repeating an unchanged inventory (every 2 s): no news
        rnd = self.round
        if rnd is None or self.settled is not None:
            return []
        out: list[LedgerOutcome] = []
        if self.pending and self.pending.seat != seat:
            out += self.finalize()  # another seat moves: the bet before it is final
        if value == 0 < previous and not rnd.complete and self.unverified \
                and self.round is rnd and self.run_out_unverified():
            return out  # gathered while only players nobody counted were to act: all-in
        if self.settled is not None or (value == 0 and previous > 0 and rnd.complete):
            return out  # gathering into the pot
        current = rnd.contributed.get(seat, 0)
        if seat in self.unverified and 0 < value < current and previous < current \
                and self._only_posted(seat, current):
            # (a zone that showed the whole blind and then less is a part handed back)
            return out + self._posted_short(seat, value)
        if self.owes.get(seat) and value > current:
            return out + self._pay_owed(seat, value - current)
        if seat in self.late:
            if value <= self.late[seat]:
                del self.late[seat]  # the late chips went back; anything less is judged below
                if value == current:
                    return out
            else:
                return out  # still the same late chips
        elif rnd.complete and value > current and not (self.pending and self.pending.seat == seat):
            # BET-15: nobody may act once the round is complete; booking it would reopen the
            # round for everyone, so the chips are not an action: they go back to him
            self.late[seat] = current
            if seat == rnd.last_aggressor:  # BET-12: his own bet, called by everyone
                return [*out, Problem(Violation(
                    "reraise_not_allowed", "BET-12",
                    f"Seat {seat} raised his own bet to {value}, which everyone had called; "
                    f"nobody raised after him: the {value - current} goes back to him."), seat)]
            return [*out, Problem(Violation(
                "action_out_of_turn", "BET-15",
                f"Seat {seat} put {value} in after the betting round was complete: it is not "
                f"an action; the {value - current} goes back to him."), seat)]
        if seat in self.held:
            return out + self._held_zone(self.held[seat], value, ms)
        if seat in self.reconsider:
            before = self.reconsider[seat]
            if value == before:  # chips taken back: the action he faced changed (BET-15)
                self.pending = None
                del self.reconsider[seat]
                return out
            if value > before:
                self.pending = Pending(seat, value, ms)
                return out
            del self.reconsider[seat]  # below what he had in before: a real withdrawal
        if self.pending and self.pending.seat == seat and value < self.pending.to \
                and self._handed_back(seat, value):
            out += self.finalize()  # his bet stood; the dealer hands back what nobody called
            if self.settled is not None or self.round is None:
                return out
            rnd, current = self.round, self.round.contributed.get(seat, 0)
        if self.pending and self.pending.seat == seat:
            if 0 < value < self.pending.to and value != current:
                out += self._excess(seat, self.pending.to)
            if value == 0:
                # the zone empties: the last bet of the round being gathered, if that bet
                # completes the round; otherwise a bet taken back after all
                out += self.finalize()
                if self.settled is not None or (self.round is not None and self.round.complete):
                    return out
                if self.unverified and self.run_out_unverified():
                    return out  # gathered while only players nobody counted were to act
                current = self.round.contributed.get(seat, 0) if self.round else 0
            elif value == current:
                self.pending = None  # taken back before it was final
                return out
            else:
                self.pending = Pending(seat, value, ms)
                return out
        if value == current:
            return out
        if value < current:
            uncalled = self._uncalled(seat)
            handed_back = uncalled > 0 and value >= current - uncalled
            if handed_back and not rnd.complete and self.unverified:
                # handed back while only players nobody counted were still to act: the
                # table shows them all-in (if anyone else is to act, it is a withdrawal)
                self.run_out_unverified()
            if handed_back and rnd.complete:
                return [*out, self._give_back(seat, current - value)]
            out.append(Problem(Violation(
                "bet_withdrawn", "BET-01",
                f"seat {seat}'s bet went down from {current} to {value} during the round"),
                seat))
            return out
        self.pending = Pending(seat, value, ms)
        return out

    def completes_round(self) -> bool:
        """The bet in motion, once final, completes the betting round."""
        if self.pending is None or self.round is None:
            return False
        trial = copy.deepcopy(self.round)
        try:
            trial.apply(trial.classify(self.pending.seat, self.pending.to))
        except ValueError:
            return False
        return trial.complete

    def _all_in_unverified(self, seat: int, to: int) -> Decision:
        """A call or a raise for less from a seat whose stack is not known: it is taken as
        his all-in, not as a short call (BET-09) or a short raise (BET-11) that only an
        exact stack could tell."""
        assert self.round is not None
        added = to - self.round.contributed.get(seat, 0)
        self._known_all_in(seat, added)
        return self.round.classify(seat, to)

    def _known_all_in(self, seat: int, behind: int) -> None:
        """An unverified seat is all-in with ``behind`` left before its last chips: for the
        rest of the hand its stack is known (what it won is its stack at the end)."""
        assert self.round is not None
        self.unverified = self.unverified - {seat}
        self.stacks[seat] = behind
        self.round.out_of_chips(seat, behind)

    def run_out_unverified(self) -> list[int]:
        """A card comes while the round is open, and every seat that still owes an action
        has a stack nobody counted (after a gap, an untracked hand): the table deals on only
        when those players are all-in, so they are taken as all-in, which only the table
        could show, instead of the card as premature. If a seat whose stack is known still
        owes an action, the card is premature indeed and nothing changes."""
        rnd = self.round
        if rnd is None or rnd.complete or self.pending is not None or self.settled:
            return []
        trial = copy.deepcopy(rnd)
        owing: list[int] = []
        while not trial.complete:
            seat = trial.next_actor
            if seat is None or seat not in self.unverified or seat in owing:
                return []
            owing.append(seat)
            trial.out_of_chips(seat)
        for seat in owing:
            self._known_all_in(seat, 0)
        self.deemed.update(owing)  # all-in for this hand's flow, their stacks still not known
        checked = any(h.decision.action == "check" for h in self.history
                      if isinstance(h, Acted) and h.street == self.street)
        if checked and (checked_out := self.plan.checked_out(self)) is not None:
            # everyone who could act checked: the game ends with no winner (BET-20/22); had
            # nobody been able to act, the showdown would be due
            self.checked_out = checked_out
            self.unannounced.append(checked_out)
        return owing

    def announce(self) -> list[LedgerOutcome]:
        """What a run-out of seats nobody counted decided by itself (``run_out_unverified``:
        a game checked out), for the session to tell."""
        out, self.unannounced = self.unannounced, []
        return out

    def handed_back_whole(self, short: int) -> Returned | None:
        """The pot holds ``short`` less than was bet after a complete round: if that is
        exactly a bet nobody called, whose zone emptied, the dealer handed it back whole
        (the zone going to 0 looked like the gathering). Booked as returned; else None."""
        rnd = self.round
        if rnd is None or not rnd.complete or self.settled is not None:
            return None
        for seat in rnd.active:
            if self.zone.get(seat, 0) == 0 and self._uncalled(seat) == short > 0:
                return self._give_back(seat, short)
        return None

    def _handed_back(self, seat: int, value: int) -> bool:
        """A bet in motion went down to ``value``: is that the dealer handing back what
        nobody called (the bet, once final, completes the round, and ``value`` is still at
        least what the others put in), rather than the player taking chips back?"""
        assert self.pending is not None and self.round is not None
        trial = copy.deepcopy(self.round)  # a rare question: a bet in motion going down
        try:
            decision = trial.classify(seat, self.pending.to)
            trial.apply(decision)
        except ValueError:
            return False
        called = max((c for s, c in trial.contributed.items() if s != seat), default=0)
        return trial.complete and called <= value < self.pending.to

    def _pay_owed(self, seat: int, added: int) -> list[LedgerOutcome]:
        """BET-25: a player who folded out of turn still puts in the call; dead money."""
        assert self.round is not None
        paid = min(added, self.owes[seat], self.stacks[seat])
        self.owes[seat] -= paid
        self.stacks[seat] -= paid
        self.contributed[seat] += paid
        self.round.contributed[seat] = self.round.contributed.get(seat, 0) + paid
        posted = Posted(seat, "call", paid, self.shown(seat), self.pot_total)
        self.history.append(posted)
        return [posted]

    def finalize(self) -> list[LedgerOutcome]:
        """Make a pending bet final (called before any other action is taken)."""
        p, self.pending = self.pending, None
        if p is None or self.round is None or not self.round.is_active(p.seat):
            return []
        most = self.round.contributed.get(p.seat, 0) + self.round.stacks.get(p.seat, 0)
        out: list[LedgerOutcome] = []
        to = p.to
        if to > most:
            # the zone holds more than the player had: book what he had, flag the rest
            out.append(Problem(Violation(
                "chips_added_mid_hand", "BET-23",
                f"seat {p.seat}'s bet zone holds {to}, more than the {most} the player had; "
                f"{most} is booked"), p.seat))
            to = most
        try:
            self._skipped_all_in(p.seat)
            decision = self.round.classify(p.seat, to)
            if p.seat in self.unverified and any(v.name in SHORT_OF_ALL_IN
                                                 for v in decision.violations):
                decision = self._all_in_unverified(p.seat, to)
        except ValueError as err:  # chips that no action explains: flag, book nothing
            return [*out, Problem(Violation("bet_withdrawn", "BET-01", str(err)), p.seat)]
        expected = self.round.next_actor
        if (decision.amount > 0 and expected is not None
                and any(v.name == "action_out_of_turn" for v in decision.violations)):
            return out + self._hold(decision, expected)
        return out + self._decide(decision)

    def settle_deadline(self) -> int | None:
        """When a bet in motion becomes final if nothing else happens."""
        return self.pending.since_ms + self.settle_ms if self.pending else None

    def deadline(self) -> int | None:
        """The earliest input time at which :meth:`tick` changes something (bet or clock)."""
        times = [t for t in (self.settle_deadline(), self.clock_end) if t is not None]
        return min(times) if times else None

    def tick(self, ms: int) -> list[LedgerOutcome]:
        self.now = max(self.now, ms)
        if self.pending is None and self.clock_end is None:
            return []  # nothing can be due: what nearly every input finds
        deadline = self.settle_deadline()
        out = self.finalize() if deadline is not None and ms >= deadline else []
        if self.clock_end is not None and ms >= self.clock_end:
            out += self._clock_expired()
        return out

    def check(self, seat: int) -> list[LedgerOutcome]:
        out = self.finalize()
        if self.round is None or self.settled or not self.round.is_active(seat):
            return out
        self._skipped_all_in(seat)
        return out + self._decide(self.round.check(seat))

    def fold(self, seat: int) -> list[LedgerOutcome]:
        """A fold (cards in the muck or the console). An absent player's fold is no action of
        his own: it is never out of turn (BET-16, SEAT-05 dead hand)."""
        if self.pending is not None and self.pending.seat == seat and (
                seat in self.reconsider or seat in self.held):
            self.pending = None  # he folds instead of standing by the chips: they go back
        out = self.finalize()
        if seat in self.folded or self.settled or seat not in self.order:
            return out
        self.held.pop(seat, None)  # a held bet goes back to a player who folds (BET-15)
        self.reconsider.pop(seat, None)
        if self.round is not None and seat in self.round.active:
            self._skipped_all_in(seat)
            out += self._decide(self.round.fold(seat, deemed=seat in self.away))
        else:
            self.folded.add(seat)
        return out

    def kill(self, seat: int) -> list[LedgerOutcome]:
        """A dead or foul hand (POT-08, SHOW-09): out of the hand by a ruling, not by an
        action of the player's own, so never out of turn; its chips stay in the pot."""
        out = self.finalize()
        if seat in self.folded or self.settled or seat not in self.order:
            return out
        self.held.pop(seat, None)
        self.reconsider.pop(seat, None)
        if self.round is not None and seat in self.round.active:
            out += self._decide(self.round.fold(seat, deemed=True))
        else:
            self.folded.add(seat)
        return out

    # ------------------------------------------------------------------ irregular turns
    def clock(self, seat: int, ms: int) -> list[LedgerOutcome]:
        """Time is called on ``seat`` (console TIME): 30 s of input time to act (BET-17)."""
        self.now = max(self.now, ms)
        rnd = self.round
        if rnd is None or self.settled is not None or not rnd.is_active(seat):
            return []
        self.clock_seat, self.clock_end = seat, ms + self.clock_ms
        return [Problem(Violation(
            "clock_running", "BET-17",
            f"Time called on seat {seat}: {self.clock_ms // 1000} s to act; then he is "
            "deemed to check if he can, else to fold."), seat)]

    def absent(self, seat: int) -> list[LedgerOutcome]:
        """Seat ``seat`` is away (BET-16): deemed check or fold whenever it is his turn."""
        if seat not in self.order:
            return []
        self.away.add(seat)
        return self._follow()

    def present(self, seat: int) -> None:
        """The player is back: he acts for himself again."""
        self.away.discard(seat)

    def _clock_expired(self) -> list[LedgerOutcome]:
        seat, self.clock_seat, self.clock_end = self.clock_seat, None, None
        rnd = self.round
        if (seat is None or rnd is None or self.settled is not None or seat not in rnd.active
                or rnd.next_actor != seat):
            return []
        if self.pending is not None and self.pending.seat == seat:
            return self.finalize()  # chips in motion at the last second: that is his action
        return self._deem(seat, "clock") + self._follow()

    def _deem(self, seat: int, why: str) -> list[LedgerOutcome]:
        """The deemed check or fold of BET-16/BET-17, applied for the player."""
        rnd = self.round
        assert rnd is not None
        check = rnd.to_call(seat) == 0
        d = rnd.check(seat, deemed=True) if check else rnd.fold(seat, deemed=True)
        act = "checked" if check else "folded"
        if why == "clock":
            v = Violation("clock_expired", "BET-17",
                          f"Seat {seat} did not act within {self.clock_ms // 1000} s: he is "
                          f"deemed to have {act}.")
        else:
            v = Violation("absent_player_auto_action", "BET-16",
                          f"Seat {seat} is absent on his turn: he is deemed to have {act}.")
        return [Problem(v, seat), *self._book(d, deemed=why)]

    def _hold(self, d: Decision, expected: int) -> list[LedgerOutcome]:
        """Keep an out-of-turn bet in place without booking it (BET-15)."""
        assert self.round is not None
        self.held[d.seat] = Held(d.seat, d.to, self.round.high)
        return [Problem(Violation(
            "action_out_of_turn", "BET-15",
            f"Seat {d.seat} acted out of turn: seat {expected} is to act (expected seat "
            f"{expected}, actual seat {d.seat}). His {d.to} stays in place and counts only "
            f"once the skipped players have acted; if the bet he faced changes, he may take "
            "it back."), d.seat)]

    def _held_zone(self, h: Held, value: int, ms: int) -> list[LedgerOutcome]:
        """A new inventory of a zone that holds an out-of-turn bet."""
        if value > h.to:
            self.pending = Pending(h.seat, value, ms)  # more out of turn: classified when final
            return []
        if self.pending is not None and self.pending.seat == h.seat:
            self.pending = None
        if value == h.to:
            return []
        return [Problem(Violation(
            "bet_withdrawn", "BET-15",
            f"seat {h.seat}'s out-of-turn bet of {h.to} went down to {value}: it must stay in "
            "place until the skipped players have acted"), h.seat)]

    def _resolve(self, seat: int) -> list[LedgerOutcome]:
        """The turn reaches a held bet: binding if the bet it faced is unchanged (A-18)."""
        rnd = self.round
        assert rnd is not None
        h = self.held.pop(seat)
        if rnd.high == h.faced:
            try:
                d = rnd.classify(seat, h.to)
            except ValueError:
                return []
            return self._book(d)
        # the bet he faced changed: he reconsiders; what stands in his zone is his action
        # unless he takes it back
        self.reconsider[seat] = rnd.contributed.get(seat, 0)
        value = self.zone.get(seat, 0)
        if value > self.reconsider[seat] and self.pending is None:
            self.pending = Pending(seat, value, self.now)
        return []

    def _follow(self) -> list[LedgerOutcome]:
        """Apply what the turn passing on decides by itself: held bets and absent players."""
        out: list[LedgerOutcome] = []
        while self.settled is None and self.round is not None:
            seat = self.round.next_actor
            if seat is None:
                break
            if seat in self.held:
                before = len(self.held)
                out += self._resolve(seat)
                if self.round.next_actor == seat and len(self.held) < before:
                    break  # he reconsiders: wait for him
                continue
            if seat in self.away and self.pending is None:
                out += self._deem(seat, "absent")
                continue
            break
        return out

    def _excess(self, seat: int, to: int) -> list[LedgerOutcome]:
        """A bet in motion pulled back: report a raise he had no right to (BET-12/14/19)."""
        if self.round is None:
            return []
        try:
            d = self.round.classify(seat, to)
        except ValueError:
            return []
        names = [v for v in d.violations if v.name in EXCESS_RETURNED]
        return [Problem(v, seat) for v in names]

    def _uncalled(self, seat: int) -> int:
        """What no other seat matched of ``seat``'s round total."""
        rnd = self.round
        if rnd is None:
            return 0
        others = [c for s, c in rnd.contributed.items() if s != seat]
        return max(0, rnd.contributed.get(seat, 0) - max(others, default=0))

    def _give_back(self, seat: int, amount: int) -> Returned:
        rnd = self.round
        assert rnd is not None
        rnd.give_back(seat, amount)
        self.stacks[seat] += amount
        self.contributed[seat] -= amount
        return Returned(seat, amount, self.shown(seat), self.pot_total)

    def _decide(self, d: Decision) -> list[LedgerOutcome]:
        out = self._book(d)
        return out + self._follow()

    def _book(self, d: Decision, deemed: str | None = None) -> list[LedgerOutcome]:
        assert self.round is not None
        out: list[LedgerOutcome] = [Problem(v, d.seat) for v in d.violations]
        if d.seat == self.clock_seat:
            self.clock_seat = self.clock_end = None
        self.reconsider.pop(d.seat, None)
        raised = d.action != "fold" and d.to > self.round.high
        self.round.apply(d)
        if self.round.last_aggressor is not None:
            self.aggressor = self.round.last_aggressor
        if d.action == "fold":
            self.folded.add(d.seat)
        else:
            added = d.amount
            self.stacks[d.seat] -= added
            self.contributed[d.seat] += added
        acted = Acted(d, self.street, raised, deemed, self.shown(d.seat), self.pot_total)
        self.history.append(acted)
        out.append(acted)
        self.plan.booked(self, acted)
        if len(self.order) - len(self.folded) == 1:  # one live seat (``live``, counted)
            out.append(self._settle(uncontested=True))
        elif (checked_out := self.plan.checked_out(self)) is not None:
            self.checked_out = checked_out
            out.append(checked_out)
        return out

    # ------------------------------------------------------------------ streets
    @property
    def betting_open(self) -> bool:
        """A round is running whose action is not complete."""
        return self.round is not None and not self.round.complete

    def can_bet(self) -> list[int]:
        return [s for s in self.live if self.stacks[s] > 0]

    def next_street(self, street: str) -> None:
        """A new street's cards are out (or, in draw, the draw is over): open its betting
        round (unless nobody can bet)."""
        self.finalize()
        self.street = street
        self.held.clear()
        self.late.clear()
        self.reconsider.clear()
        self.clock_seat = self.clock_end = None
        if self.settled or self.checked_out:
            return
        self.round = self.plan.open_round(self, street)
        self.zone = {}

    def betting_over(self) -> bool:
        """No more betting this street: the round is complete, or nobody is left to bet against.

        With at most one player able to bet and nothing for him to call, the betting states are
        skipped (RULES.md §2.2 shortcut, BOARD-06): the board is run out back to back.
        """
        if self.pending is not None:
            return False
        rnd = self.round
        if rnd is None or rnd.complete:
            return True
        # at most one seat can bet, and it has nothing to call (``can_bet`` without the list:
        # asked for every card while a round is open)
        folded, stacks = self.folded, self.stacks
        bettor = None
        for s in self.order:
            if s not in folded and stacks[s] > 0:
                if bettor is not None:
                    return False
                bettor = s
        return bettor is None or rnd.to_call(bettor) == 0

    def bb_option_pending(self) -> bool:
        """Pre-flop, everyone has only called and it is the big blind's turn (BET-04)."""
        rnd = self.round
        if rnd is None or self.street != self.plan.first_street or rnd.complete \
                or self.pending:
            return False
        bb = self.blind_seats[1]
        return rnd.next_actor == bb and rnd.to_call(bb) == 0

    def showdown_due(self, board_complete: bool) -> bool:
        return self.settled is None and board_complete and self.betting_over()

    def showdown(self, holes: Mapping[int, Sequence[str]], board: Sequence[str]) -> Settled:
        return self._settle(uncontested=False, holes=holes, board=board)

    def _settle(self, uncontested: bool, holes: Mapping[int, Sequence[str]] | None = None,
                board: Sequence[str] = ()) -> Settled:
        self.settled = settle(self, uncontested, holes, board)
        return self.settled
