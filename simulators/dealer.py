"""The dealer's hands and tools, shared by every game the virtual table deals.

A game's procedure (``simulators.holdem``, ``simulators.draw``) decides what happens in a
hand; this module does the physical part both need and owns what outlives a hand: the deck and
its shuffle, the chip set, the dealer's tray (the float that makes change), the seats' stacks,
the felt and its pace, the button, and a pot a checked-out game leaves for the next one.
Cards and chips only move through here, so every movement becomes the frames the antennas
would send (``simulators.felt``) and every chip is accounted for. The stacks themselves, and
what they show where the table has stack zones, are ``simulators.stacks``'; a tagged button is
the felt's, moved here after the cards are collected.

Neither game owns this module and it knows neither game: a third game is a third procedure
built on ``Dealer``, with no change here and none in the games already dealt.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from simulators.betting import BettingRound, Limit, build_pots, split_pot
from simulators.chips import ChipPile, ChipShortage, smallest_unit
from simulators.device import VirtualDevice
from simulators.felt import MAX_ZONE_CHIPS, Felt, Pacer
from simulators.handeval import HandValue
from simulators.records import ActionRecord, PotAward
from simulators.script import clockwise_from
from simulators.stacks import Stacks

__all__ = ["Dealer", "Habits", "Hand", "HandSettings"]


@dataclass(frozen=True)
class Habits:
    """How this dealer handles the chips where the rules leave him a choice, as real dealers do.

    ``hand_back``: the share of gatherings at which he first hands the uncalled part of the
    round's highest bet back to its owner (the covering player's excess over an all-in, a raise
    nobody called), instead of sweeping it into the pot and paying it back with the awards.
    ``push_from_zones``: the share of uncontested hands whose chips he pushes to the winner
    straight from the bet zones (and the pot, if it holds any), never gathering them first; a
    walk to the big blind is the usual case. Each choice is drawn from its own generator, so
    that a seed deals the same cards and the same decisions whatever the habits.
    """

    hand_back: float = 0.0
    push_from_zones: float = 0.0


ROOM_HABITS = Habits(hand_back=0.7, push_from_zones=0.5)
"""A mix of both ways for each choice, as a room of different dealers has."""


@dataclass(frozen=True)
class HandSettings:
    """The game settings one hand is dealt with, as the table had them when it began.

    A snapshot rather than the table itself, so a game reads its settings through nothing
    wider than this (a script seats new blinds and limits between hands, never during one).
    """

    limit: Limit
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    fold_probability: float
    aggression: float
    all_in_share: float
    second_round_all_check: str


@dataclass
class Hand:
    """The cards, chips and actions of the hand under way, as the dealer keeps them."""

    number: int
    button: int
    order: list[int]
    """Seats dealt in, clockwise from the button's left."""
    shoe: list[str]
    """The shuffled deck, top first (UIDs)."""
    live: set[int]
    contributions: dict[int, int]
    """Seat -> chips it put into its bet zone this hand (antes not included)."""
    pot: ChipPile
    hole: dict[int, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    burns: list[str] = field(default_factory=list)
    deal: list[tuple[str, str]] = field(default_factory=list)
    """(card, zone) in the order the cards left the shoe."""
    actions: list[ActionRecord] = field(default_factory=list)
    folds: list[int] = field(default_factory=list)
    gathered: list[int] = field(default_factory=list)
    antes: dict[int, int] = field(default_factory=dict)
    returned: dict[int, int] = field(default_factory=dict)
    """Seat -> uncalled chips handed back to it out of its bet zone."""


class Dealer:
    """Deals cards and moves chips on the ``shoe``, ``cards``, ``chips`` and ``console`` devices.

    ``deck`` maps UID -> card, ``chips`` UID -> value (the whole chip set: what the seats do
    not get stays in the tray for change), ``seats`` seat -> starting stack; ``rng`` drives
    the shuffles. The caller validates these first (``VirtualTable`` does).

    With ``stack_zones`` every stack lies in its stack zone and each chip motion that touches
    one is a motion of the felt (``_motion``): the dealer stands still before it, never in
    it, and its inventories go out together, the zone the chips leave first. With a
    ``button_uid`` the button carries that tag and the dealer moves it after each hand.
    """

    def __init__(
        self,
        devices: Mapping[str, VirtualDevice],
        deck: Mapping[str, str],
        chips: Mapping[str, int],
        seats: Mapping[int, int],
        *,
        rng: random.Random,
        pace: float = 0.0,
        handover: float = 0.0,
        habits: Habits = Habits(),
        stack_zones: bool = False,
        button_uid: str | None = None,
    ) -> None:
        self.rng = rng
        self.habits = habits
        self.habit_rng = random.Random("habits:" + min(deck, default=""))
        """Draws the dealer's choices (``Habits``) apart from the cards and the players (seeded
        from the deck, which the seed made, so the main generator's draws stay the same)."""
        self.deck: Mapping[str, str] = dict(deck)
        """UID -> card of the deck in play."""
        self._uid_of = {card: uid for uid, card in deck.items()}
        self.chip_values: Mapping[str, int] = dict(chips)
        """UID -> value of the chip set."""
        self.unit = smallest_unit(self.chip_values)
        self.carry: ChipPile | None = None
        """A checked-out draw game's pot, still in the pot zone for the next game."""
        self.tray = ChipPile(self.chip_values, self.chip_values)
        """The dealer's float: every chip no stack, bet zone or pot holds."""
        self.pacer = Pacer(pace, handover=handover)
        self.felt = Felt(devices, self.pacer, stack_zones=stack_zones, button_tag=button_uid)
        self.seats = Stacks(self.chip_values, self.tray, self.felt, seats, zoned=stack_zones)
        """The seats' stacks (``piles``), and what the stack zones say of them."""
        self._moving = False
        self._next_order: list[str] | None = None
        self.button = min(seats)
        """The button of the next hand (in five-card draw, the dealer's seat)."""
        self.felt.place_button(self.button)

    # seats and the deck ---------------------------------------------------------------------

    @property
    def piles(self) -> dict[int, ChipPile]:
        """Seat -> its stack."""
        return self.seats.piles

    @property
    def stacks(self) -> dict[int, int]:
        return {s: p.value for s, p in sorted(self.piles.items())}

    def seated(self) -> list[int]:
        return sorted(self.piles)

    def all_in(self, seat: int) -> bool:
        """The seat has no chip left behind its bet zone that it may bet in this hand."""
        return self.seats.playable(seat) == 0

    def playable(self, seat: int) -> int:
        """What the seat may still bet in this hand (``Stacks.playable``)."""
        return self.seats.playable(seat)

    def reseat(self, stacks: Mapping[int, int]) -> None:
        """Every stack back into the tray, then these stacks dealt out of it."""
        with self._motion():
            self.seats.reseat(stacks)

    def place_button(self, seat: int, *, moved_by_dealer: bool) -> None:
        """The next hand's button is ``seat``; a tagged button goes there, moved by the dealer
        in his pace (``moved_by_dealer``) or by someone while he stands still."""
        self.button = seat
        self.felt.move_button(seat, paced=moved_by_dealer)

    @contextmanager
    def _motion(self) -> Iterator[None]:
        """One chip motion that touches a stack zone: a step, then its inventories together.

        Without stack zones nothing changes: each inventory takes its own step, as it always
        did, so that a seed deals the same frames at the same pace."""
        if not self.seats.zoned or self._moving:
            yield
            return
        with self.felt.motion():
            self._moving = True
            try:
                yield
            finally:
                self._moving = False

    def _show(self, zone: str, uids: Sequence[str]) -> None:
        """Report a chip zone: in its own step, or as part of the motion under way."""
        self.felt.set_chips(zone, uids, paced=not self._moving)

    def cards(self, uids: Iterable[str]) -> tuple[str, ...]:
        """The card names of these UIDs."""
        return tuple(self.deck[u] for u in uids)

    def set_deck_order(self, cards: Sequence[str]) -> None:
        """Script the next hand: these cards leave the shoe first, in this order."""
        unknown = [c for c in cards if c not in self._uid_of]
        if unknown or len(set(cards)) != len(cards):
            raise ValueError(f"deck order must name distinct cards of this deck: {unknown}")
        self._next_order = list(cards)

    def shuffle(self) -> list[str]:
        """The deck shuffled (UIDs, top first), with a scripted order's cards on top."""
        uids = list(self.deck)
        self.rng.shuffle(uids)
        if self._next_order:
            first = [self._uid_of[c] for c in self._next_order]
            chosen = set(first)
            uids = first + [u for u in uids if u not in chosen]
            self._next_order = None
        return uids

    def next_actor(self, rnd: BettingRound) -> int | None:
        """Whose turn it is, the round knowing what each seat may still bet: a stack that
        changed outside the rules since the round began changes that (without such a change
        the round's own count is the same)."""
        rnd.stacks.update({s: self.playable(s) for s in rnd.order if s in self.piles})
        return rnd.next_actor()

    def newhand(self, hand: Hand) -> dict[int, int]:
        """The dealer presses NEWHAND (after the shuffle and cut): the hand has begun.

        Returns the stacks it begins with, read after the press, so that whatever happened to
        them while he stood still before it belongs to the time between hands."""
        self.felt.press("NEWHAND")
        self.seats.begin(hand.number)
        return self.stacks

    def open_hand(self, number: int, pot: ChipPile | None = None) -> Hand:
        """A new hand at the button: the seated players in order and the deck shuffled.

        ``pot`` is what the pot zone holds already (a carried-over pot); empty by default.
        """
        order = clockwise_from(self.button, self.seated())
        return Hand(
            number=number,
            button=self.button,
            order=order,
            shoe=self.shuffle(),
            live=set(order),
            contributions=dict.fromkeys(order, 0),
            pot=pot if pot is not None else ChipPile(self.chip_values),
        )

    # cards ------------------------------------------------------------------------------------

    def deal(self, hand: Hand, uid: str, zone: str) -> str:
        """The card ``uid`` out of the shoe into ``zone``, written into the deal sequence."""
        self.felt.deal(uid, zone)
        hand.deal.append((self.deck[uid], zone))
        return uid

    def collect(self, hand: Hand) -> None:
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

    # chips ------------------------------------------------------------------------------------

    def take(self, pile: ChipPile, amount: int) -> list[str]:
        """Chips worth ``amount`` from ``pile``, with change from the tray if need be
        (``Stacks.take_from``)."""
        return self.seats.take_from(pile, amount)

    def post_ante(self, hand: Hand, seat: int, ante: int, street: str) -> None:
        """The seat's ante (all it has, if less) straight into the pot, and its record.

        The pot's inventory is not reported here: antes are one movement (``post_antes``).
        """
        pile = self.piles[seat]
        amount = min(ante, self.playable(seat))
        hand.pot.add(self.take(pile, amount))
        hand.antes[seat] = amount
        hand.actions.append(
            ActionRecord(street, seat, "post_ante", amount, self.playable(seat) == 0))

    def post_antes(self, hand: Hand, payers: Iterable[int], ante: int, street: str) -> None:
        """Every payer's ante into the pot in one movement: the stacks, then one inventory of
        the pot."""
        with self._motion():
            for seat in payers:
                self.post_ante(hand, seat, ante, street)
            self.seats.report()
            self.show_pot(hand)

    def show_pot(self, hand: Hand) -> None:
        """Colour the pot up to fit one inventory, and report it."""
        if not hand.pot.colour_up(self.tray, MAX_ZONE_CHIPS):
            raise ChipShortage(f"cannot keep the pot within {MAX_ZONE_CHIPS} chips")
        self._show("POT", hand.pot.uids)

    def put_in(self, hand: Hand, seat: int, amount: int) -> int:
        """Move ``amount`` from the seat's stack into its bet zone: the stack, then the bet."""
        if amount == 0:
            return 0
        zone = f"B{seat}"
        with self.seats.committing(seat, amount), self._motion():
            pile = ChipPile(self.chip_values, self.felt.chips(zone))
            pile.add(self.take(self.piles[seat], amount))
            if not pile.colour_up(self.tray, MAX_ZONE_CHIPS):
                raise ChipShortage(f"cannot keep {zone} within {MAX_ZONE_CHIPS} chips")
            self.seats.report(last=seat)
            self._show(zone, pile.uids)
        hand.contributions[seat] += amount
        return amount

    def zone_value(self, zone: str) -> int:
        return ChipPile(self.chip_values, self.felt.chips(zone)).value

    def hand_back_uncalled(self, hand: Hand) -> int:
        """The part of the round's highest bet that nobody matched goes back to its owner's
        stack, out of his bet zone (folded players' bets count as matched as far as they go).
        Returns the amount handed back."""
        bets = {s: self.zone_value(f"B{s}") for s in hand.order}
        ranked = sorted(bets.values(), reverse=True)
        if len(ranked) < 2 or ranked[0] <= ranked[1]:
            return 0
        seat = max(bets, key=lambda s: bets[s])
        excess = ranked[0] - ranked[1]
        zone = f"B{seat}"
        with self._motion():
            pile = ChipPile(self.chip_values, self.felt.chips(zone))
            back = self.take(pile, excess)
            if not pile.colour_up(self.tray, MAX_ZONE_CHIPS):
                raise ChipShortage(f"cannot keep {zone} within {MAX_ZONE_CHIPS} chips")
            self._show(zone, pile.uids)
            self.piles[seat].add(back)
            self.seats.report()
        hand.contributions[seat] -= excess
        hand.returned[seat] = hand.returned.get(seat, 0) + excess
        return excess

    def gather(self, hand: Hand) -> None:
        """Sweep the bet zones into the pot: each zone empties, then the pot reports its sum.

        By habit (``Habits.hand_back``) he first hands back what nobody called."""
        if self.habits.hand_back and self.habit_rng.random() < self.habits.hand_back:
            self.hand_back_uncalled(hand)
        zones = [f"B{s}" for s in hand.order if self.felt.chips(f"B{s}")]
        if not zones:
            return
        before = hand.pot.value
        for zone in zones:
            hand.pot.add(self.felt.chips(zone))
            self.felt.set_chips(zone, [])
        self.show_pot(hand)
        hand.gathered.append(hand.pot.value - before)

    def pay(
        self, hand: Hand, strength: Mapping[int, HandValue], dead: int
    ) -> tuple[dict[int, int], list[PotAward]]:
        """Split the pot by ``strength`` (empty: nobody shows) and push it to the winners.

        ``dead`` is the money in the pot that no seat bet in this hand's rounds (antes, a
        carried-over pot): every seat still in can win it.
        """
        before = dict(hand.returned)
        awards, pots, _ = self.split(hand, strength, dead)
        pushed = dict(awards)  # the uncalled part goes back to its owner with the push
        for seat, back in hand.returned.items():
            if back > before.get(seat, 0):
                pushed[seat] = pushed.get(seat, 0) + back - before.get(seat, 0)
        if sum(pushed.values()) != hand.pot.value:
            raise AssertionError(f"awards {awards} do not add up to the pot {hand.pot.value}")
        paid = [s for s in hand.order if pushed.get(s)]
        for i, seat in enumerate(paid):
            last = i == len(paid) - 1
            with self._motion():
                chips = hand.pot.take_all() if last else self.take(hand.pot, pushed[seat])
                self.piles[seat].add(chips)
                self.show_pot(hand)  # change made in the pot
                self.seats.report()
        return awards, pots

    def split(
        self, hand: Hand, strength: Mapping[int, HandValue], dead: int
    ) -> tuple[dict[int, int], list[PotAward], int]:
        """Who gets what: the pots (main, then side pots) split by ``strength``. What only one
        seat put in, above everything any other seat matched, was never won: it goes back to
        him (booked as returned, whether or not the dealer handed it back first)."""
        contributions = hand.contributions
        top = max(contributions, key=lambda s: contributions[s])
        others = max((c for s, c in contributions.items() if s != top), default=0)
        uncalled = max(0, contributions[top] - others) if top in hand.live else 0
        if uncalled:
            contributions[top] -= uncalled
            hand.returned[top] = hand.returned.get(top, 0) + uncalled
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
        return awards, pots, uncalled

    def pushes_from_zones(self) -> bool:
        """Will the next uncontested hand go to its winner straight from the bet zones?"""
        return bool(self.habits.push_from_zones) and (
            self.habit_rng.random() < self.habits.push_from_zones)

    def push_uncontested(self, hand: Hand, dead: int) -> tuple[dict[int, int], list[PotAward]]:
        """The last player in takes everything at once: each bet zone, then the pot, straight
        into his stack; nothing is gathered first. ``dead`` as in ``pay``."""
        (winner,) = hand.live
        if self.habits.hand_back and self.habit_rng.random() < self.habits.hand_back:
            self.hand_back_uncalled(hand)
        awards, pots, _ = self.split(hand, {}, dead)
        for seat in hand.order:
            zone = f"B{seat}"
            chips = self.felt.chips(zone)
            if chips:
                with self._motion():
                    self._show(zone, [])
                    self.piles[winner].add(chips)
                    self.seats.report()
        if hand.pot.value:
            with self._motion():
                self.piles[winner].add(hand.pot.take_all())
                self._show("POT", [])
                self.seats.report()
        return awards, pots

    def settle(
        self, hand: Hand, stacks_before: Mapping[int, int], winners: Mapping[int, int]
    ) -> tuple[dict[int, int], tuple[int, ...]]:
        """Check every stack against the ledger, see off the busted players, move the button.

        Chips that came to or left a stack outside the rules during the hand are part of the
        ledger (``Stacks.deltas``). A tagged button is moved to the next hand's seat now, after
        the cards are collected and before the next shuffle. Returns the stacks after the hand
        and the seats that left.
        """
        with self._motion():
            for pile in self.piles.values():
                pile.tidy(self.tray)
            self.seats.report()
        outside = self.seats.deltas(hand.number)
        for seat, pile in self.piles.items():
            paid = hand.contributions[seat] + hand.antes.get(seat, 0)
            expected = stacks_before[seat] - paid + winners.get(seat, 0) + outside.get(seat, 0)
            if pile.value != expected:
                raise AssertionError(f"seat {seat} holds {pile.value}, the ledger says {expected}")
        stacks_after = self.stacks
        left = tuple(s for s in hand.order if stacks_after[s] == 0)
        for seat in left:
            self.seats.leave(seat)
        if self.piles:
            self.button = clockwise_from(hand.button, self.seated())[0]
        self.seats.end(hand.number)
        if self.piles:
            self.felt.move_button(self.button)
        return stacks_after, left
