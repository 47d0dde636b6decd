"""A careful dealer running Texas Hold'em on the virtual devices.

The procedure follows DESIGN §3 ("How a hand looks to the sensors") and the clean deal sequence
of RULES.md §2.2: NEWHAND after the shuffle, blinds into the blind seats' bet zones, two rounds
of hole cards from the first seat left of the button, betting, burn + flop, betting, burn + turn,
betting, burn + river, betting, the push, and the collection of every card into the muck.

Antes (each seat's, or one for all from the big blind) go straight into the pot before the
blinds. Players check, call, fold, bet and raise within the betting structure (no-limit,
pot-limit, fixed-limit) at random, as ``aggression`` and ``all_in_share`` say, or exactly as a
script (a PHH hand history) says. A bet or raise is the seat's bet zone growing to the new
total in one motion; a check is the console's CHECK button; a fold is the cards into the muck.
Short stacks go all-in, so side pots and split pots are real and the stacks the table keeps are
the ones a correct tracker must compute.

Five-card draw (``variant="draw5"``) is dealt by ``simulators.draw`` with the same chips, felt
and random players; this module keeps what both games share (stacks, bets, pots, the push).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from simulators.betting import Action, BettingRound, Limit, build_pots, split_pot
from simulators.chips import ChipPile, ChipShortage, deal_stacks, smallest_unit
from simulators.device import VirtualDevice
from simulators.endpoints import Recorder
from simulators.felt import MAX_ZONE_CHIPS, SEATS, Felt, Pacer
from simulators.handeval import HandValue, best_hand
from simulators.script import (
    ANTE_MODES,
    UNKNOWN,
    HandScript,
    ScriptAction,
    ScriptError,
    clockwise_from,
)

__all__ = [
    "ActionRecord",
    "Exchange",
    "HandRecord",
    "PotAward",
    "ScriptError",
    "VirtualTable",
    "clockwise_from",
]

STREETS: tuple[tuple[str, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))
VARIANTS = ("holdem", "draw5")
ALL_CHECK_RULES = ("carry_over", "showdown")
"""What a draw game does when the second round is checked around (A-23, BET-22)."""


@dataclass(frozen=True)
class ActionRecord:
    street: str
    seat: int
    action: str
    """post_ante, post_small_blind, post_big_blind, check, call, bet, raise, fold."""
    amount: int
    """Chips this action moved from the seat's stack (into its bet zone; antes into the pot)."""
    all_in: bool = False
    """The action took the seat's last chip."""
    to: int = 0
    """The seat's bet-zone total for the round after the action (0 for an ante)."""


@dataclass(frozen=True)
class PotAward:
    """One pot (main first, then the side pots) and who got what of it."""

    amount: int
    eligible: tuple[int, ...]
    """Seats that could win it, clockwise from the button's left."""
    shares: dict[int, int]
    """Seat -> chips of this pot pushed to it; the odd chip goes to the first of them."""


@dataclass(frozen=True)
class Exchange:
    """One player's turn at the draw (five-card draw), as the dealer carried it out."""

    seat: int
    announced: int
    discarded: tuple[str, ...]
    received: tuple[str, ...]
    """In the order they left the shoe; some may come from a reshuffled pack."""


@dataclass(frozen=True)
class HandRecord:
    """What was dealt and what happened, for tests and for a person reading a run."""

    number: int
    button: int
    seats: tuple[int, ...]
    """Seats dealt in, clockwise from the button's left (s_1..s_N of RULES.md §2.2)."""
    small_blind_seat: int
    big_blind_seat: int
    stacks_before: dict[int, int]
    hole_cards: dict[int, tuple[str, str]]
    board: tuple[str, ...]
    burns: tuple[str, ...]
    deal: tuple[tuple[str, str], ...]
    """(card, zone) in the order the cards left the shoe: the true deal sequence."""
    actions: tuple[ActionRecord, ...]
    folds: tuple[int, ...]
    gathered: tuple[int, ...]
    """Value moved from the bet zones into the pot at the end of each betting round."""
    pot: int
    showdown: bool
    winners: dict[int, int]
    """Seat -> chips pushed to it (uncalled chips coming back included)."""
    stacks_after: dict[int, int]
    left: tuple[int, ...]
    """Seats that lost their last chip and left the table."""
    antes: dict[int, int] = field(default_factory=dict)
    """Seat -> ante it put into the pot (dead money: every seat still in can win it)."""
    pots: tuple[PotAward, ...] = ()
    limit: str = Limit.NO_LIMIT.value
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    ante_mode: str = "each"
    unit: int = 1
    """The smallest chip: pots are split in whole units of it."""
    variant: str = "holdem"
    outcome: str = ""
    """``showdown``, ``uncontested`` or (five-card draw) ``checked_out``."""
    # five-card draw only; ``button`` is the dealer, ``seats`` start with the Vorhand and
    # the blind seats are 0
    dealt: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Seat -> the five cards of the deal, in the order it received them."""
    final_cards: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Seat -> the cards it held last: at the showdown, when it folded, or when the game was
    checked out."""
    exchanges: tuple[Exchange, ...] = ()
    """The draw, in the order the players exchanged."""
    opener: int | None = None
    """The first seat that bet in the first round (it acts first in the second)."""
    reshuffles: tuple[tuple[str, ...], ...] = ()
    """Each pack made of the bottom card and the finished players' discards, top first."""
    bottom_cards: tuple[str, ...] = ()
    """The card never dealt: the stub's bottom card, then the last card of each new pack."""
    carried_in: int = 0
    """Pot a checked-out game left in the pot zone before this game's antes."""
    carried_over: int = 0
    """Pot this game leaves in the pot zone for the next one (it was checked out)."""
    showdown_order: tuple[int, ...] = ()
    """Draw showdown order: left of the last bettor or raiser first (SHOW-14)."""

    @property
    def reshuffled(self) -> bool:
        return bool(self.reshuffles)

    @property
    def draws(self) -> dict[int, int]:
        """Seat -> how many cards it exchanged."""
        return {e.seat: len(e.received) for e in self.exchanges}

    @property
    def players(self) -> tuple[int, ...]:
        """Seats in PHH player order: p1 is ``players[0]`` (the seat left of the button)."""
        return self.seats

    def street_actions(self, street: str) -> list[ActionRecord]:
        return [a for a in self.actions if a.street == street]


@dataclass
class _Hand:
    number: int
    button: int
    order: list[int]
    shoe: list[str]
    live: set[int]
    contributions: dict[int, int]
    pot: ChipPile
    hole: dict[int, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    burns: list[str] = field(default_factory=list)
    deal: list[tuple[str, str]] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    folds: list[int] = field(default_factory=list)
    gathered: list[int] = field(default_factory=list)
    antes: dict[int, int] = field(default_factory=dict)


class _ScriptCursor:
    """The betting and board actions of a script, consumed as the dealer reaches them."""

    def __init__(self, script: HandScript) -> None:
        self.script = script
        self.pending = [a for a in script.actions if a.verb in ("cbr", "cc", "f", "db")]

    def next_action(self) -> ScriptAction | None:
        return self.pending[0] if self.pending else None

    def board(self, street: str, count: int) -> None:
        """The dealer is about to deal ``street``: the script must agree, if it goes on."""
        action = self.next_action()
        if action is None:
            return
        if action.verb != "db":
            raise ScriptError(
                f"the script has {action.notation()!r} after the betting before the {street} "
                "is over"
            )
        self.pending.pop(0)

    def decide(self, rnd: BettingRound, seat: int, street: str) -> tuple[Action, int | None]:
        action = self.pending.pop(0)
        if action.verb == "db":
            raise ScriptError(
                f"the script deals {action.notation()!r} while seat {seat} is still to act "
                f"({street})"
            )
        if self.script.seat_of(action.actor) != seat:
            raise ScriptError(
                f"the script has {action.notation()!r} (seat "
                f"{self.script.seat_of(action.actor)}) but it is seat {seat}'s turn ({street})"
            )
        legal = rnd.legal(seat)
        if action.verb == "f":
            return Action.FOLD, None
        if action.verb == "cc":
            return (Action.CHECK if Action.CHECK in legal else Action.CALL), None
        wager = next((a for a in legal if a in (Action.BET, Action.RAISE)), None)
        bounds = rnd.raise_range(seat)
        if wager is None or bounds is None or not bounds[0] <= (action.amount or 0) <= bounds[1]:
            allowed = "no bet or raise" if bounds is None else f"{bounds[0]}..{bounds[1]}"
            raise ScriptError(
                f"{action.notation()!r} (seat {seat}, {street}) is not allowed: {allowed}"
            )
        return wager, action.amount

    def finish(self) -> None:
        if self.pending:
            left = ", ".join(repr(a.notation()) for a in self.pending)
            raise ScriptError(f"the hand is over but the script goes on: {left}")


class VirtualTable:
    """Deals hands on the ``shoe``, ``cards``, ``chips`` and ``console`` devices.

    Takes plain values so a test can set up any table without files: ``deck`` maps UID -> card,
    ``chips`` UID -> value (the whole chip set; what the seats do not get is the dealer's
    float for change), ``seats`` seat -> starting stack. ``rng`` (or ``seed``) drives the shuffle
    and the players' decisions, so a seed replays the same session. ``deck_order`` fixes the
    order in which cards leave the shoe in the next hand (the rest follows shuffled).

    ``limit`` is the betting structure (fixed-limit: small bet = big blind pre-flop and on the
    flop, big bet = two big blinds on the turn and river, at most four bets a round). ``ante``
    is paid by every seat (``ante_mode="each"``) or once by the big blind (``"big_blind"``).
    Random players fold a bet with ``fold_probability``; with ``aggression`` > 0 they also bet
    and raise (less often the more raises the round has seen), going all-in with
    ``all_in_share`` of their bets and raises, otherwise raising the minimum or a random amount
    up to the limit. With ``aggression=0`` nobody bets or raises and the random draws are the
    same as they always were, so a seed deals the same hands.

    ``variant="draw5"`` deals five-card draw (``simulators.draw``): the button is the dealer,
    every seat antes ``ante`` (one smallest chip when 0 is given, SEAT-07's disputed amount),
    the blinds are not used, and the betting is no-limit or pot-limit. A game checked around
    leaves its pot in the pot zone for the next one; ``second_round_all_check`` says whether a
    second round checked around does the same (``carry_over``) or goes to a ``showdown``.
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        deck: Mapping[str, str],
        chips: Mapping[str, int],
        seats: Mapping[int, int],
        *,
        small_blind: int,
        big_blind: int,
        button: int | None = None,
        seed: int | None = None,
        pace: float = 0.0,
        rng: random.Random | None = None,
        deck_order: Sequence[str] | None = None,
        fold_probability: float = 0.15,
        limit: str = "no-limit",
        ante: int = 0,
        ante_mode: str = "each",
        aggression: float = 0.0,
        all_in_share: float = 0.3,
        variant: str = "holdem",
        second_round_all_check: str = "carry_over",
    ) -> None:
        self._values = dict(chips)
        self.unit = smallest_unit(self._values)
        self.variant = variant
        if variant == "draw5" and ante == 0:
            ante = self.unit
        problems = self._setup_problems(seats, small_blind, big_blind, ante, ante_mode, limit)
        if second_round_all_check not in ALL_CHECK_RULES:
            problems.append(
                f"second_round_all_check {second_round_all_check!r} is not one of "
                f"{list(ALL_CHECK_RULES)}"
            )
        if len(deck) != 52 or len(set(deck.values())) != 52:
            problems.insert(0, "the deck must have 52 distinct cards")
        for name, p in (
            ("fold_probability", fold_probability),
            ("aggression", aggression),
            ("all_in_share", all_in_share),
        ):
            if not 0 <= p <= 1:
                problems.append(f"{name} must be within 0..1")
        if problems:
            raise ValueError("; ".join(problems))
        self._rng = rng if rng is not None else random.Random(seed)
        self._deck = dict(deck)
        self._uid_of = {card: uid for uid, card in deck.items()}
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.limit = Limit(limit)
        self.ante = ante
        self.ante_mode = ante_mode
        self.fold_probability = fold_probability
        self.aggression = aggression
        self.all_in_share = all_in_share
        self.second_round_all_check = second_round_all_check
        self._carry: ChipPile | None = None  # a checked-out draw game's pot, still in POT
        self._float = ChipPile(self._values, self._values)
        self._piles = deal_stacks(self._float, dict(seats))
        self._idle = threading.Event()
        self._pacer = Pacer(pace, self._idle)
        self.felt = Felt(devices, self._pacer)
        self._lock = threading.Lock()  # one hand at a time
        self._dealing = False
        self._next_order: list[str] | None = None
        if deck_order is not None:
            self.set_deck_order(deck_order)
        self._button = min(seats)
        if button is not None:
            self.set_button(button)
        self.hands_played = 0
        self.last_hand: HandRecord | None = None
        self._refresh_stop = threading.Event()
        self._refresher: threading.Thread | None = None

    def _setup_problems(
        self,
        seats: Mapping[int, int],
        sb: int,
        bb: int,
        ante: int,
        ante_mode: str,
        limit: str,
    ) -> list[str]:
        problems: list[str] = []
        draw = self.variant == "draw5"
        if self.variant not in VARIANTS:
            problems.append(f"variant {self.variant!r} is not one of {list(VARIANTS)}")
        if len(seats) < 2:
            problems.append("at least two seats are needed")
        for seat, stack in seats.items():
            if seat not in SEATS:
                problems.append(f"seat {seat} is not 1..10")
            if stack <= 0 or stack % self.unit:
                problems.append(
                    f"stack {stack} of seat {seat} is not a positive multiple of "
                    f"the smallest chip ({self.unit})"
                )
        if draw:
            if ante_mode != "each":
                problems.append("five-card draw: every seat antes (ante_mode 'each')")
        elif not 0 < sb <= bb or sb % self.unit or bb % self.unit:
            problems.append(f"blinds {sb}/{bb} must be 0 < SB <= BB, multiples of {self.unit}")
        if ante < 0 or ante % self.unit:
            problems.append(f"ante {ante} must be a non-negative multiple of {self.unit}")
        if ante_mode not in ANTE_MODES:
            problems.append(f"ante_mode {ante_mode!r} is not one of {list(ANTE_MODES)}")
        if limit not in {m.value for m in Limit}:
            problems.append(f"limit {limit!r} is not one of {[m.value for m in Limit]}")
        return problems

    # state a caller may read or set between hands -------------------------------------------

    @property
    def stacks(self) -> dict[int, int]:
        return {s: p.value for s, p in sorted(self._piles.items())}

    @property
    def button(self) -> int:
        """The button of the next hand."""
        return self._button

    @property
    def deck(self) -> dict[str, str]:
        """The deck in play: UID -> card (what the service's deck registry must hold)."""
        return dict(self._deck)

    @property
    def chip_values(self) -> dict[str, int]:
        """The chip set: UID -> value (what the service's chip registry must hold)."""
        return dict(self._values)

    def seated(self) -> list[int]:
        return sorted(self._piles)

    def set_button(self, seat: int) -> None:
        if seat not in self._piles:
            raise ValueError(f"seat {seat} is empty")
        self._button = seat

    def pause(self, timeout: float = 10.0) -> None:
        """Make the dealer stand still before its next physical action.

        Returns once the dealer is standing still (or when no hand is being dealt, in which
        case the next hand waits before its shuffle), so that whatever the caller does next,
        unplugging a device for example, cannot cut a movement in half.
        """
        self._pacer.hold()
        deadline = time.monotonic() + timeout
        while self._dealing and not self._pacer.waiting and time.monotonic() < deadline:
            self._pacer.stop.wait(0.002)

    def resume(self) -> None:
        self._pacer.release()

    @property
    def waiting(self) -> bool:
        """The dealer is standing still because of ``pause``."""
        return self._pacer.waiting

    def set_deck_order(self, cards: Sequence[str]) -> None:
        """Script the next hand: these cards leave the shoe first, in this order."""
        unknown = [c for c in cards if c not in self._uid_of]
        if unknown or len(set(cards)) != len(cards):
            raise ValueError(f"deck order must name distinct cards of this deck: {unknown}")
        self._next_order = list(cards)

    # the hand -------------------------------------------------------------------------------

    def play_hand(self, stop: threading.Event | None = None) -> HandRecord:
        """Deal one complete hand. ``stop`` cuts the pace short; the hand still completes."""
        return self._play_locked(stop, None)

    def play_script(
        self,
        script: HandScript,
        stop: threading.Event | None = None,
        *,
        rehearsed: bool = False,
    ) -> HandRecord:
        """Deal exactly the hand ``script`` describes (``simulators.phh.load_phh`` reads one).

        The table takes the script's seats, stacks, button, blinds, ante and betting structure
        (and keeps them for the hands after it); the cards the script names come out of the
        shoe where the deal puts them, the rest (burns, unknown cards) as shuffled. Players act
        as the script says while it has actions; should it stop before the hand ends, they go
        on deciding as random players do. A script the rules do not allow (an action out of
        turn, a raise below the minimum, a board dealt while a player is still to act...) raises
        ``ScriptError`` before anything happens at the table (see ``rehearse``; pass
        ``rehearsed=True`` when that was done already).
        """
        if self.variant != "holdem":
            raise ScriptError("scripts are hold'em hands; this table deals " + self.variant)
        if not rehearsed:
            self.rehearse(script)
        return self._play_locked(stop, script)

    def rehearse(self, script: HandScript) -> HandRecord:
        """Play ``script`` on a table of the same deck and chips whose devices send nowhere.

        Raises ``ScriptError`` (or ``ChipShortage``, for stacks the chip set cannot make) if
        the hand cannot be dealt as written; returns what would have happened.
        """
        if self.variant != "holdem":
            raise ScriptError("scripts are hold'em hands; this table deals " + self.variant)
        try:
            rehearsal = VirtualTable(
                _silent_devices(),
                self._deck,
                self._values,
                script.stacks,
                small_blind=script.small_blind,
                big_blind=script.big_blind,
                rng=random.Random(0),
                limit=script.limit,
                ante=script.ante,
                ante_mode=script.ante_mode,
            )
        except ValueError as e:
            raise ScriptError(str(e)) from e
        return rehearsal._play_locked(None, script)

    def _play_locked(self, stop: threading.Event | None, script: HandScript | None) -> HandRecord:
        with self._lock:
            if script is not None:
                self._adopt(script)
            if len(self._piles) < 2:
                raise RuntimeError("fewer than two players are seated")
            self._pacer.stop = stop if stop is not None else self._idle
            self._dealing = True
            try:
                if self.variant == "draw5":
                    from simulators.draw import play_draw  # draw builds on this module

                    record = play_draw(self)
                else:
                    record = self._play(_ScriptCursor(script) if script is not None else None)
            finally:
                self._dealing = False
                self._pacer.stop = self._idle
            self.hands_played += 1
            self.last_hand = record
            return record

    def _adopt(self, script: HandScript) -> None:
        """Seat the script's players with its stacks and take its game settings."""
        problems = self._setup_problems(
            script.stacks,
            script.small_blind,
            script.big_blind,
            script.ante,
            script.ante_mode,
            script.limit,
        )
        if problems:
            raise ScriptError("; ".join(problems))
        for pile in self._piles.values():
            self._float.add(pile.take_all())
        self._piles = deal_stacks(self._float, script.stacks)
        self.small_blind, self.big_blind = script.small_blind, script.big_blind
        self.ante, self.ante_mode = script.ante, script.ante_mode
        self.limit = Limit(script.limit)
        self._button = script.button
        named = [c for c in script.deal_order() if c != UNKNOWN]
        spare = [c for c in self._deck.values() if c not in set(named)]
        self._rng.shuffle(spare)
        fill = iter(spare)
        self.set_deck_order([next(fill) if c == UNKNOWN else c for c in script.deal_order()])

    def _bet_size(self, street: str) -> int:
        """The minimum bet (no-limit, pot-limit) or the fixed bet (fixed-limit) of a round."""
        if self.limit is Limit.FIXED_LIMIT and street in ("turn", "river"):
            return 2 * self.big_blind
        return self.big_blind

    def _round(
        self,
        hand: _Hand,
        order: list[int],
        street: str,
        bets: dict[int, int] | None = None,
        high: int = 0,
        raises: int = 0,
    ) -> BettingRound:
        return BettingRound(
            order=order,
            stacks={s: self._piles[s].value for s in order},
            bets=dict(bets or {}),
            high=high,
            limit=self.limit,
            min_raise=self._bet_size(street),
            pot=hand.pot.value,
            raises=raises,
        )

    def _play(self, script: _ScriptCursor | None) -> HandRecord:
        seated = self.seated()
        button = self._button
        order = clockwise_from(button, seated)
        n = len(order)
        sb, bb = (button, order[0]) if n == 2 else (order[0], order[1])
        hand = _Hand(
            number=self.hands_played + 1,
            button=button,
            order=order,
            shoe=self._shuffle(),
            live=set(order),
            contributions=dict.fromkeys(order, 0),
            pot=ChipPile(self._values),
        )
        stacks_before = self.stacks
        self._pacer.step()  # the shuffle and cut
        self.felt.press("NEWHAND")
        self._post_antes(hand, bb)

        bets: dict[int, int] = {}
        for seat, amount, name in (
            (sb, self.small_blind, "post_small_blind"),
            (bb, self.big_blind, "post_big_blind"),
        ):
            bets[seat] = self._put_in(hand, seat, min(amount, self._piles[seat].value))
            if bets[seat]:
                hand.actions.append(
                    ActionRecord(
                        "preflop",
                        seat,
                        name,
                        bets[seat],
                        self._piles[seat].value == 0,
                        bets[seat],
                    )
                )

        for _ in range(2):
            for seat in order:
                uid = self._deal(hand, f"S{seat}")
                hand.hole.setdefault(seat, []).append(uid)

        first = order.index(bb) + 1
        fixed = self.limit is Limit.FIXED_LIMIT
        preflop = self._round(
            hand,
            order[first:] + order[:first],
            "preflop",
            bets=bets,
            high=self.big_blind,
            raises=1 if fixed else 0,  # the big blind is the first fixed-limit bet
        )
        self._betting(hand, preflop, "preflop", script)
        self._gather(hand)

        for street, count in STREETS:
            if len(hand.live) < 2:
                break
            if script is not None:
                script.board(street, count)
            hand.burns.append(self._deal(hand, "BURN"))
            hand.board.extend(self._deal(hand, "BOARD") for _ in range(count))
            in_hand = [s for s in order if s in hand.live]
            self._betting(hand, self._round(hand, in_hand, street), street, script)
            self._gather(hand)

        if script is not None:
            script.finish()
        showdown = len(hand.live) >= 2
        winners, pots = self._award(hand, showdown)
        self._collect(hand)
        return self._finish(hand, sb, bb, stacks_before, showdown, winners, pots)

    def _post_antes(self, hand: _Hand, bb: int) -> None:
        """Antes straight into the pot, before the blinds: one movement, one inventory."""
        if not self.ante:
            return
        payers = hand.order if self.ante_mode == "each" else [bb]
        for seat in payers:
            amount = min(self.ante, self._piles[seat].value)
            hand.pot.add(self._take(self._piles[seat], amount))
            hand.antes[seat] = amount
            hand.actions.append(
                ActionRecord("preflop", seat, "post_ante", amount, self._piles[seat].value == 0)
            )
        if not hand.pot.colour_up(self._float, MAX_ZONE_CHIPS):
            raise ChipShortage(f"cannot keep the pot within {MAX_ZONE_CHIPS} chips")
        self.felt.set_chips("POT", hand.pot.uids)

    def _shuffle(self) -> list[str]:
        uids = list(self._deck)
        self._rng.shuffle(uids)
        if self._next_order:
            first = [self._uid_of[c] for c in self._next_order]
            chosen = set(first)
            uids = first + [u for u in uids if u not in chosen]
            self._next_order = None
        return uids

    def _deal(self, hand: _Hand, zone: str) -> str:
        uid = hand.shoe[len(hand.deal)]
        self.felt.deal(uid, zone)
        hand.deal.append((self._deck[uid], zone))
        return uid

    def _put_in(self, hand: _Hand, seat: int, amount: int) -> int:
        """Move ``amount`` from the seat's stack into its bet zone."""
        if amount == 0:
            return 0
        zone = f"B{seat}"
        pile = ChipPile(self._values, self.felt.chips(zone))
        pile.add(self._take(self._piles[seat], amount))
        if not pile.colour_up(self._float, MAX_ZONE_CHIPS):
            raise ChipShortage(f"cannot keep {zone} within {MAX_ZONE_CHIPS} chips")
        self.felt.set_chips(zone, pile.uids)
        hand.contributions[seat] += amount
        return amount

    def _take(self, pile: ChipPile, amount: int) -> list[str]:
        """Chips worth ``amount`` from ``pile``.

        Should the float run out of the small chips change needs, every stack is changed back
        into big chips at the float and the dealer tries again (stacks are under no antenna,
        so only their values matter).
        """
        try:
            return pile.take(amount, self._float)
        except ChipShortage:
            values = {seat: p.value for seat, p in self._piles.items()}
            for p in self._piles.values():
                self._float.add(p.take_all())
            for seat, fresh in deal_stacks(self._float, values).items():
                self._piles[seat].add(fresh.take_all())
            return pile.take(amount, self._float)

    def _decide(self, rnd: BettingRound, seat: int) -> tuple[Action, int | None]:
        """A random player.

        With ``aggression`` it bets or raises now and then, less often the more the round has
        seen; otherwise it calls or folds when facing a bet, and checks when not, now and then
        folding anyway, but only while at least two others can still bet, so that nobody gives
        up a pot against players who are all-in.
        """
        legal = rnd.legal(seat)
        wager = next((a for a in legal if a in (Action.BET, Action.RAISE)), None)
        if (
            self.aggression > 0
            and wager is not None
            and self._rng.random() < self.aggression / (1 + rnd.raises)
        ):
            return wager, self._wager_size(rnd, seat)
        if Action.CALL in legal:
            folds = self._rng.random() < self.fold_probability
            return (Action.FOLD if folds else Action.CALL), None
        others = sum(1 for s in rnd.order if s != seat and rnd.can_act(s))
        if others >= 2 and self._rng.random() < self.fold_probability / 3:
            return Action.FOLD, None
        return Action.CHECK, None

    def _wager_size(self, rnd: BettingRound, seat: int) -> int:
        """All-in (or the limit's maximum), the minimum, or anything in between."""
        bounds = rnd.raise_range(seat)
        assert bounds is not None
        low, high = bounds
        r = self._rng.random()
        if r < self.all_in_share:
            return high
        if r < (1 + self.all_in_share) / 2:
            return low
        return self._rng.randint(low // self.unit, high // self.unit) * self.unit

    def _betting(
        self, hand: _Hand, rnd: BettingRound, street: str, script: _ScriptCursor | None
    ) -> None:
        while (seat := rnd.next_actor()) is not None:
            if script is not None and script.next_action() is not None:
                action, to = script.decide(rnd, seat, street)
            else:
                action, to = self._decide(rnd, seat)
            moved = rnd.act(seat, action, to)
            if action is Action.FOLD:
                hand.live.discard(seat)
                hand.folds.append(seat)
                self.felt.move_cards(hand.hole[seat], "MUCK")
            elif action is Action.CHECK:
                self.felt.press("CHECK", str(seat))
            else:
                self._put_in(hand, seat, moved)
            hand.actions.append(
                ActionRecord(
                    street,
                    seat,
                    action.value,
                    moved,
                    self._piles[seat].value == 0,
                    rnd.bets[seat],
                )
            )

    def _gather(self, hand: _Hand) -> None:
        """Sweep the bet zones into the pot: each zone empties, then the pot reports its sum."""
        zones = [f"B{s}" for s in hand.order if self.felt.chips(f"B{s}")]
        if not zones:
            return
        before = hand.pot.value
        for zone in zones:
            hand.pot.add(self.felt.chips(zone))
            self.felt.set_chips(zone, [])
        if not hand.pot.colour_up(self._float, MAX_ZONE_CHIPS):
            raise ChipShortage(f"cannot keep the pot within {MAX_ZONE_CHIPS} chips")
        self.felt.set_chips("POT", hand.pot.uids)
        hand.gathered.append(hand.pot.value - before)

    def _award(self, hand: _Hand, showdown: bool) -> tuple[dict[int, int], list[PotAward]]:
        strength: dict[int, HandValue] = {}
        if showdown:
            board = [self._deck[u] for u in hand.board]
            for seat in hand.live:
                strength[seat] = best_hand([self._deck[u] for u in hand.hole[seat]] + board)
        return self._pay(hand, strength, sum(hand.antes.values()))

    def _pay(
        self, hand: _Hand, strength: Mapping[int, HandValue], dead: int
    ) -> tuple[dict[int, int], list[PotAward]]:
        """Split the pot by ``strength`` (empty: nobody shows) and push it to the winners.

        ``dead`` is the money in the pot that no seat bet in this hand's rounds (antes, a
        carried-over pot): every seat still in can win it.
        """
        awards: dict[int, int] = {}
        pots: list[PotAward] = []
        for pot in build_pots(hand.contributions, hand.live, dead):
            contenders = [s for s in hand.order if s in pot.eligible]
            eligible = tuple(contenders)
            if all(s in strength for s in contenders):
                best = max(strength[s] for s in contenders)
                contenders = [s for s in contenders if strength[s] == best]
            shares = split_pot(pot.amount, contenders, self.unit)
            pots.append(PotAward(pot.amount, eligible, shares))
            for seat, amount in shares.items():
                awards[seat] = awards.get(seat, 0) + amount
        if sum(awards.values()) != hand.pot.value:
            raise AssertionError(f"awards {awards} do not add up to the pot {hand.pot.value}")
        paid = [s for s in hand.order if awards.get(s)]
        for i, seat in enumerate(paid):
            last = i == len(paid) - 1
            chips = hand.pot.take_all() if last else self._take(hand.pot, awards[seat])
            self._piles[seat].add(chips)
            if not hand.pot.colour_up(self._float, MAX_ZONE_CHIPS):  # change made in the pot
                raise ChipShortage(f"cannot keep the pot within {MAX_ZONE_CHIPS} chips")
            self.felt.set_chips("POT", hand.pot.uids)
        return awards, pots

    def _collect(self, hand: _Hand) -> None:
        """Every card goes to the muck: the seats' cards, then the board, then the burns."""
        for seat in hand.order:
            held = self.felt.cards_in(f"S{seat}")
            if held:
                self.felt.move_cards(held, "MUCK")
        for zone in ("BOARD", "BURN"):
            cards = self.felt.cards_in(zone)
            if cards:
                self.felt.move_cards(cards, "MUCK")
        self.felt.return_cards_to_shoe()

    def _finish(
        self,
        hand: _Hand,
        sb: int,
        bb: int,
        stacks_before: dict[int, int],
        showdown: bool,
        winners: dict[int, int],
        pots: list[PotAward],
    ) -> HandRecord:
        stacks_after, left = self._settle(hand, stacks_before, winners)
        return HandRecord(
            number=hand.number,
            button=hand.button,
            seats=tuple(hand.order),
            small_blind_seat=sb,
            big_blind_seat=bb,
            stacks_before=stacks_before,
            hole_cards={s: (self._deck[a], self._deck[b]) for s, (a, b) in hand.hole.items()},
            board=tuple(self._deck[u] for u in hand.board),
            burns=tuple(self._deck[u] for u in hand.burns),
            deal=tuple(hand.deal),
            actions=tuple(hand.actions),
            folds=tuple(hand.folds),
            gathered=tuple(hand.gathered),
            pot=sum(winners.values()),
            showdown=showdown,
            winners=winners,
            stacks_after=stacks_after,
            left=left,
            antes=dict(hand.antes),
            pots=tuple(pots),
            limit=self.limit.value,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            ante=self.ante,
            ante_mode=self.ante_mode,
            unit=self.unit,
            outcome="showdown" if showdown else "uncontested",
        )

    def _settle(
        self, hand: _Hand, stacks_before: Mapping[int, int], winners: Mapping[int, int]
    ) -> tuple[dict[int, int], tuple[int, ...]]:
        """Check every stack against the ledger, see off the busted players, move the button.

        Returns the stacks after the hand and the seats that left.
        """
        for seat, pile in self._piles.items():
            pile.tidy(self._float)
            paid = hand.contributions[seat] + hand.antes.get(seat, 0)
            expected = stacks_before[seat] - paid + winners.get(seat, 0)
            if pile.value != expected:
                raise AssertionError(f"seat {seat} holds {pile.value}, the ledger says {expected}")
        stacks_after = self.stacks
        left = tuple(s for s in hand.order if stacks_after[s] == 0)
        for seat in left:
            del self._piles[seat]
        if self._piles:
            self._button = clockwise_from(hand.button, self.seated())[0]
        return stacks_after, left

    # running --------------------------------------------------------------------------------

    def run(
        self,
        hands: int | None = None,
        stop: threading.Event | None = None,
        on_hand: Callable[[HandRecord], None] | None = None,
    ) -> int:
        """Deal hands until ``hands`` are done, ``stop`` is set or fewer than two players are
        left; returns how many were dealt. Between hands the dealer takes a few paces."""
        stop = stop if stop is not None else threading.Event()
        played = 0
        while (hands is None or played < hands) and not stop.is_set() and len(self._piles) >= 2:
            record = self.play_hand(stop)
            played += 1
            if on_hand is not None:
                on_hand(record)
            if self._pacer.pace > 0:
                stop.wait(self._pacer.pace * 3)
        return played

    def start_chip_refresh(self, interval: float = 1.0) -> None:
        """Repeat every chip zone's inventory each ``interval`` seconds (at most 2 s)."""
        if not 0 < interval <= 2.0:
            raise ValueError("a chip reader repeats its inventories at least every 2 s")
        self.stop_chip_refresh()
        self._refresh_stop = threading.Event()
        stop = self._refresh_stop

        def loop() -> None:
            while not stop.wait(interval):
                self.felt.refresh_chips()

        self._refresher = threading.Thread(target=loop, name="chip refresh", daemon=True)
        self._refresher.start()

    def stop_chip_refresh(self) -> None:
        self._refresh_stop.set()
        if self._refresher is not None:
            self._refresher.join()
            self._refresher = None


def _silent_devices() -> dict[str, VirtualDevice]:
    """Devices whose frames go to a recorder nobody reads: for rehearsing a script."""
    recorder = Recorder()
    return {
        name: VirtualDevice(name, recorder.endpoint(name), "REHEARSAL", hello_on_connect=False)
        for name in ("shoe", "cards", "chips", "console")
    }
