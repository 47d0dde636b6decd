"""A careful dealer running Texas Hold'em on the virtual devices.

The procedure follows DESIGN §3 ("How a hand looks to the sensors") and the clean deal sequence
of RULES.md §2.2: NEWHAND after the shuffle, blinds into the blind seats' bet zones, two rounds
of hole cards from the first seat left of the button, betting, burn + flop, betting, burn + turn,
betting, burn + river, betting, the push, and the collection of every card into the muck.

Players here only check, call or fold (raises come later; ``BettingRound`` is where they go).
Short stacks go all-in for less, so side pots and split pots are real and the stacks the table
keeps are the ones a correct tracker must compute.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from simulators.betting import Action, BettingRound, build_pots, split_pot
from simulators.chips import ChipPile, ChipShortage, deal_stacks, smallest_unit
from simulators.device import VirtualDevice
from simulators.felt import MAX_ZONE_CHIPS, SEATS, Felt, Pacer
from simulators.handeval import HandValue, best_hand

STREETS: tuple[tuple[str, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))


@dataclass(frozen=True)
class ActionRecord:
    street: str
    seat: int
    action: str  # post_small_blind, post_big_blind, check, call, fold
    amount: int  # chips this action moved into the bet zone
    all_in: bool = False


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


def clockwise_from(seat: int, seats: Sequence[int]) -> list[int]:
    """``seats`` in dealing order: first the one left of ``seat``, ``seat`` itself (if in) last."""
    ordered = sorted(seats)
    return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]


class VirtualTable:
    """Deals hands on the ``shoe``, ``cards``, ``chips`` and ``console`` devices.

    Takes plain values so a test can set up any table without files: ``deck`` maps UID -> card,
    ``chips`` UID -> value (the whole chip set; what the seats do not get is the dealer's
    float for change), ``seats`` seat -> starting stack. ``rng`` (or ``seed``) drives the shuffle
    and the players' decisions, so a seed replays the same session. ``deck_order`` fixes the
    order in which cards leave the shoe in the next hand (the rest follows shuffled).
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
    ) -> None:
        self._values = dict(chips)
        self.unit = smallest_unit(self._values)
        self._check_setup(deck, seats, small_blind, big_blind)
        if not 0 <= fold_probability <= 1:
            raise ValueError("fold_probability must be within 0..1")
        self._rng = rng if rng is not None else random.Random(seed)
        self._deck = dict(deck)
        self._uid_of = {card: uid for uid, card in deck.items()}
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.fold_probability = fold_probability
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

    def _check_setup(
        self, deck: Mapping[str, str], seats: Mapping[int, int], sb: int, bb: int
    ) -> None:
        problems: list[str] = []
        if len(deck) != 52 or len(set(deck.values())) != 52:
            problems.append("the deck must have 52 distinct cards")
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
        if not 0 < sb <= bb or sb % self.unit or bb % self.unit:
            problems.append(f"blinds {sb}/{bb} must be 0 < SB <= BB, multiples of {self.unit}")
        if problems:
            raise ValueError("; ".join(problems))

    # state a caller may read or set between hands -------------------------------------------

    @property
    def stacks(self) -> dict[int, int]:
        return {s: p.value for s, p in sorted(self._piles.items())}

    @property
    def button(self) -> int:
        """The button of the next hand."""
        return self._button

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
        with self._lock:
            if len(self._piles) < 2:
                raise RuntimeError("fewer than two players are seated")
            self._pacer.stop = stop if stop is not None else self._idle
            self._dealing = True
            try:
                record = self._play()
            finally:
                self._dealing = False
                self._pacer.stop = self._idle
            self.hands_played += 1
            self.last_hand = record
            return record

    def _play(self) -> HandRecord:
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

        bets: dict[int, int] = {}
        for seat, amount, name in (
            (sb, self.small_blind, "post_small_blind"),
            (bb, self.big_blind, "post_big_blind"),
        ):
            bets[seat] = self._put_in(hand, seat, min(amount, self._piles[seat].value))
            hand.actions.append(
                ActionRecord("preflop", seat, name, bets[seat], self._piles[seat].value == 0)
            )

        for _ in range(2):
            for seat in order:
                uid = self._deal(hand, f"S{seat}")
                hand.hole.setdefault(seat, []).append(uid)

        first = order.index(bb) + 1
        preflop = BettingRound(
            order=order[first:] + order[:first],
            stacks={s: self._piles[s].value for s in order},
            bets=bets,
            high=self.big_blind,
        )
        self._betting(hand, preflop, "preflop")
        self._gather(hand)

        for street, count in STREETS:
            if len(hand.live) < 2:
                break
            hand.burns.append(self._deal(hand, "BURN"))
            hand.board.extend(self._deal(hand, "BOARD") for _ in range(count))
            in_hand = [s for s in order if s in hand.live]
            rnd = BettingRound(order=in_hand, stacks={s: self._piles[s].value for s in in_hand})
            self._betting(hand, rnd, street)
            self._gather(hand)

        showdown = len(hand.live) >= 2
        winners = self._award(hand, showdown)
        self._collect(hand)
        return self._finish(hand, sb, bb, stacks_before, showdown, winners)

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

    def _decide(self, rnd: BettingRound, seat: int) -> Action:
        """A player who never raises: calls or folds when facing a bet; otherwise checks, and
        now and then folds anyway, but only while at least two others can still bet, so that
        nobody gives up a pot against players who are all-in."""
        if Action.CALL in rnd.legal(seat):
            return Action.FOLD if self._rng.random() < self.fold_probability else Action.CALL
        others = sum(1 for s in rnd.order if s != seat and rnd.can_act(s))
        if others >= 2 and self._rng.random() < self.fold_probability / 3:
            return Action.FOLD
        return Action.CHECK

    def _betting(self, hand: _Hand, rnd: BettingRound, street: str) -> None:
        while (seat := rnd.next_actor()) is not None:
            action = self._decide(rnd, seat)
            moved = rnd.act(seat, action)
            if action is Action.FOLD:
                hand.live.discard(seat)
                hand.folds.append(seat)
                self.felt.move_cards(hand.hole[seat], "MUCK")
            elif action is Action.CHECK:
                self.felt.press("CHECK", str(seat))
            else:
                self._put_in(hand, seat, moved)
            hand.actions.append(
                ActionRecord(street, seat, action.value, moved, self._piles[seat].value == 0)
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

    def _award(self, hand: _Hand, showdown: bool) -> dict[int, int]:
        strength: dict[int, HandValue] = {}
        if showdown:
            board = [self._deck[u] for u in hand.board]
            for seat in hand.live:
                strength[seat] = best_hand([self._deck[u] for u in hand.hole[seat]] + board)
        awards: dict[int, int] = {}
        for pot in build_pots(hand.contributions, hand.live):
            contenders = [s for s in hand.order if s in pot.eligible]
            if all(s in strength for s in contenders):
                best = max(strength[s] for s in contenders)
                contenders = [s for s in contenders if strength[s] == best]
            for seat, amount in split_pot(pot.amount, contenders, self.unit).items():
                awards[seat] = awards.get(seat, 0) + amount
        if sum(awards.values()) != hand.pot.value:
            raise AssertionError(f"awards {awards} do not add up to the pot {hand.pot.value}")
        paid = [s for s in hand.order if awards.get(s)]
        for i, seat in enumerate(paid):
            last = i == len(paid) - 1
            chips = hand.pot.take_all() if last else self._take(hand.pot, awards[seat])
            self._piles[seat].add(chips)
            self.felt.set_chips("POT", hand.pot.uids)
        return awards

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
    ) -> HandRecord:
        for seat, pile in self._piles.items():
            pile.tidy(self._float)
            expected = stacks_before[seat] - hand.contributions[seat] + winners.get(seat, 0)
            if pile.value != expected:
                raise AssertionError(f"seat {seat} holds {pile.value}, the ledger says {expected}")
        stacks_after = self.stacks
        left = tuple(s for s in hand.order if stacks_after[s] == 0)
        for seat in left:
            del self._piles[seat]
        if self._piles:
            self._button = clockwise_from(hand.button, self.seated())[0]
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
        )

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
