"""Five-card draw at the virtual table, dealt as docs/DRAW.md and RULES.md §2.6 describe it.

The game has its own procedure (antes, five cards each, the draw, a stub whose bottom card is
never dealt, pots that carry over), so it lives here beside the hold'em procedure
(``simulators.holdem``), not inside it: both build on the shared dealer (``simulators.dealer``:
stacks, chips, felt, the push) and the betting rounds, and neither knows the other.

The random players decide from their hands: they open and raise more often the better their
five cards, and exchange what a plain player would (three to a pair, one to two pair, nothing
to a pat hand), now and then on a whim. Every decision, and every shuffle of a new pack, comes
from the dealer's random generator, so a seed replays the same session.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from simulators.betting import Action, BettingRound, Limit
from simulators.chips import ChipPile
from simulators.dealer import Dealer, HandSettings
from simulators.decks import RANKS
from simulators.handeval import rank5
from simulators.records import ActionRecord, Exchange, HandRecord, PotAward
from simulators.script import clockwise_from

__all__ = ["CARDS", "MAX_DRAW", "play_draw"]

CARDS = 5
"""Cards each player is dealt (DEAL-04)."""
MAX_DRAW = 3
"""Most cards one player may exchange (DRAW-03)."""
OPEN_BASE = 0.2
OPEN_STEP = 0.15
"""A random player opens with probability OPEN_BASE + OPEN_STEP x hand category: often
enough that most games are played out, rarely enough that some are checked around."""
WHIM = 0.15
"""How often a random player exchanges a random number of his lowest cards instead."""
PAT = frozenset({4, 5, 6, 7, 8})
"""Hand categories nobody breaks up: straight, flush, full house, four of a kind, straight
flush (``simulators.handeval``)."""


def play_draw(dealer: Dealer, settings: HandSettings, number: int) -> HandRecord:
    """Deal game ``number`` of five-card draw, the seat at the dealer's button dealing.

    One game at a time: the caller (``VirtualTable``) serialises the calls."""
    return _DrawGame(dealer, settings, number).play()


class _DrawGame:
    """One game, from NEWHAND to the collection of the cards."""

    def __init__(self, dealer: Dealer, settings: HandSettings, number: int) -> None:
        self.dealer = dealer
        self.settings = settings
        carried = dealer.carry if dealer.carry is not None else ChipPile(dealer.chip_values)
        dealer.carry = None
        self.hand = dealer.open_hand(number, pot=carried)
        order = self.hand.order
        self.carried_in = carried.value
        self.stub = list(self.hand.shoe)
        """The shoe, top first; its last card is the bottom card, never dealt (DRAW-04)."""
        self.cards: dict[int, list[str]] = {s: [] for s in order}
        self.final: dict[int, tuple[str, ...]] = {}
        self.exchanges: list[Exchange] = []
        self.pool: list[str] = []
        """Discards of the players who have finished their exchange and are not in a pack
        yet: with the bottom card, the only cards a new pack may hold (DRAW-05)."""
        self.packs: list[list[str]] = []
        self.bottoms: list[str] = [self.stub[-1]]
        self.opener: int | None = None
        self.aggressors: dict[str, int] = {}
        """Betting round -> the seat that bet or raised last in it."""

    # the game ---------------------------------------------------------------------------------

    def play(self) -> HandRecord:
        d, hand = self.dealer, self.hand
        stacks_before = d.newhand(hand)  # after the shuffle and the cut (``VirtualTable``)
        self._antes()
        for _ in range(CARDS):
            for seat in hand.order:
                self.cards[seat].append(self._deal(f"S{seat}"))
        dealt = {s: self._names(c) for s, c in self.cards.items()}

        dead = self.carried_in
        pushed: tuple[dict[int, int], list[PotAward]] | None = None
        if self._betting(list(hand.order), "first"):
            outcome = "checked_out"  # BET-20: the antes stay for the next game
        else:
            outcome = "uncontested"
            if len(hand.live) < 2 and d.pushes_from_zones():
                pushed = d.push_uncontested(hand, dead + sum(hand.antes.values()))
            else:
                d.gather(hand)
            if len(hand.live) >= 2:
                self._draw()
                checked = self._betting(self._second_order(), "second")
                if checked and self.settings.second_round_all_check == "carry_over":
                    outcome = "checked_out"  # BET-22, literal reading
                else:
                    outcome = "showdown" if len(hand.live) >= 2 else "uncontested"
                    if outcome == "uncontested" and d.pushes_from_zones():
                        pushed = d.push_uncontested(hand, dead + sum(hand.antes.values()))
                    else:
                        d.gather(hand)

        for seat in hand.live:
            self.final[seat] = self._names(self.cards[seat])
        carried_over = 0
        if outcome == "checked_out":
            winners: dict[int, int] = {}
            pots: list[PotAward] = []
            d.carry = hand.pot
            carried_over = hand.pot.value
        elif pushed is not None:
            winners, pots = pushed
        else:
            strength = (
                {s: rank5(self.final[s]) for s in hand.live} if outcome == "showdown" else {}
            )
            winners, pots = d.pay(hand, strength, dead + sum(hand.antes.values()))
        d.collect(hand)
        stacks_after, left = d.settle(hand, stacks_before, winners)
        return HandRecord(
            number=hand.number,
            button=hand.button,
            seats=tuple(hand.order),
            small_blind_seat=0,
            big_blind_seat=0,
            stacks_before=stacks_before,
            hole_cards={},
            board=(),
            burns=(),
            deal=tuple(hand.deal),
            actions=tuple(hand.actions),
            folds=tuple(hand.folds),
            gathered=tuple(hand.gathered),
            pot=sum(winners.values()),
            showdown=outcome == "showdown",
            winners=winners,
            stacks_after=stacks_after,
            left=left,
            antes=dict(hand.antes),
            returned=dict(hand.returned),
            pots=tuple(pots),
            stack_changes=d.seats.during(hand.number),
            limit=self.settings.limit.value,
            ante=self.settings.ante,
            unit=d.unit,
            variant="draw5",
            outcome=outcome,
            dealt=dealt,
            final_cards=dict(sorted(self.final.items())),
            exchanges=tuple(self.exchanges),
            opener=self.opener,
            reshuffles=tuple(self._names(p) for p in self.packs),
            bottom_cards=self._names(self.bottoms),
            carried_in=self.carried_in,
            carried_over=carried_over,
            showdown_order=self._showdown_order() if outcome == "showdown" else (),
        )

    def _antes(self) -> None:
        """Every seat's ante into the pot, on top of a carried-over pot: one inventory.

        A carried-over pot is first changed into big chips at the float: it holds the small
        chips of earlier antes, which the stacks need as change for this game's antes.
        """
        d, hand = self.dealer, self.hand
        hand.pot.colour_up(d.tray, 0)
        d.post_antes(hand, hand.order, self.settings.ante, "ante")

    def _deal(self, zone: str) -> str:
        """The top card of the shoe into ``zone``; the bottom card never goes (DRAW-04)."""
        if len(self.stub) < 2:
            raise RuntimeError("only the bottom card is left: the dealer must reshuffle")
        return self.dealer.deal(self.hand, self.stub.pop(0), zone)

    # betting ----------------------------------------------------------------------------------

    def _betting(self, order: list[int], street: str) -> bool:
        """One betting round; True when it was checked around (nobody bet, somebody checked).

        A fold is confirmed at the console and the cards go to the muck (A-29); a check is
        the console's CHECK; a bet, call or raise is the seat's bet zone growing.
        """
        d, hand, limit = self.dealer, self.hand, self.settings.limit
        rnd = BettingRound(
            order=order,
            stacks={s: d.playable(s) for s in order},
            limit=limit,
            # no blinds: the smallest bet is one smallest chip; fixed-limit bets the big blind
            # before the draw and twice that after it
            min_raise=(self.settings.big_blind * (2 if street == "second" else 1)
                       if limit is Limit.FIXED_LIMIT else d.unit),
            pot=hand.pot.value,
        )
        checks = 0
        while (seat := d.next_actor(rnd)) is not None:
            action, to = self._decide(rnd, seat)
            moved = rnd.act(seat, action, to)
            if action is Action.FOLD:
                d.felt.press("FOLD", str(seat))
                d.felt.move_cards(self.cards[seat], "MUCK")
                hand.live.discard(seat)
                hand.folds.append(seat)
                self.final[seat] = self._names(self.cards[seat])
            elif action is Action.CHECK:
                d.felt.press("CHECK", str(seat))
                checks += 1
            else:
                d.put_in(hand, seat, moved)
                if action in (Action.BET, Action.RAISE):
                    self.aggressors[street] = seat
                    if self.opener is None:
                        self.opener = seat
            hand.actions.append(
                ActionRecord(street, seat, action.value, moved, d.all_in(seat), rnd.bets[seat])
            )
        return checks > 0 and rnd.high == 0

    def _second_order(self) -> list[int]:
        """The opener first, or the next active player to his left (BET-22, A-24)."""
        live = [s for s in self.hand.order if s in self.hand.live]
        if self.opener is None:
            return live  # nobody could bet in the first round (all-in on the antes)
        start = (
            self.opener
            if self.opener in self.hand.live
            else next(s for s in clockwise_from(self.opener, self.hand.order) if s in live)
        )
        i = live.index(start)
        return live[i:] + live[:i]

    def _showdown_order(self) -> tuple[int, ...]:
        """Left of the last bettor or raiser first (SHOW-14), else left of the dealer."""
        last = self.aggressors.get("second", self.aggressors.get("first", self.hand.button))
        return tuple(s for s in clockwise_from(last, self.hand.order) if s in self.hand.live)

    def _decide(self, rnd: BettingRound, seat: int) -> tuple[Action, int | None]:
        """A random player who plays his hand: the better it is, the more he bets.

        He never folds when he may check, so only a bet can make a game end uncontested.
        """
        rng, settings = self.dealer.rng, self.settings
        legal = rnd.legal(seat)
        category = rank5(self._names(self.cards[seat]))[0]
        wager = next((a for a in legal if a in (Action.BET, Action.RAISE)), None)
        if Action.CALL in legal:
            if wager is not None and rng.random() < (settings.aggression + 0.05 * category) / (
                1 + rnd.raises
            ):
                return wager, self._size(rnd, seat)
            weight = 2.0 if category == 0 else 1.0 if category == 1 else 0.25
            folds = rng.random() < settings.fold_probability * weight
            return (Action.FOLD if folds else Action.CALL), None
        if wager is not None and rng.random() < OPEN_BASE + OPEN_STEP * category:
            return wager, self._size(rnd, seat)
        return Action.CHECK, None

    def _size(self, rnd: BettingRound, seat: int) -> int:
        """The minimum, a quarter, half or all of the pot (within the limit), or all-in."""
        rng, unit = self.dealer.rng, self.dealer.unit
        bounds = rnd.raise_range(seat)
        assert bounds is not None
        low, high = bounds
        if rng.random() < self.settings.all_in_share * self.settings.aggression:
            return high
        pot = self.hand.pot.value + sum(rnd.bets.values())
        target = rng.choice((low, pot // 4, pot // 2, pot)) // unit * unit
        return max(low, min(high, target))

    # the draw ---------------------------------------------------------------------------------

    def _draw(self) -> None:
        """Each active player in turn from the dealer's left: announce, discard, receive.

        A player asks for no more cards than the dealer can give him: with nine or ten
        players the stub and the finished players' discards may not cover three each.
        """
        felt = self.dealer.felt
        for seat in [s for s in self.hand.order if s in self.hand.live]:
            held = self.cards[seat]
            room = len(self.stub) - 1 + len(self.pool)
            discards = self._discards(held)[: max(0, room)]
            felt.press("DRAW", str(seat), str(len(discards)))
            if discards:
                felt.move_cards(discards, "MUCK")
                for uid in discards:
                    held.remove(uid)
            received: list[str] = []
            for _ in discards:
                if len(self.stub) == 1:
                    self._reshuffle()
                received.append(self._deal(f"S{seat}"))
            held.extend(received)
            self.pool.extend(discards)
            self.exchanges.append(
                Exchange(seat, len(discards), self._names(discards), self._names(received))
            )

    def _reshuffle(self) -> None:
        """Only the bottom card is left: it and the finished players' discards become the
        new pack (DRAW-05), shuffled and cut, and the shoe reports the pack top first."""
        d = self.dealer
        taken, self.pool = self.pool, []
        d.felt.pick_up(taken)
        pack = [self.stub[0], *taken]
        d.rng.shuffle(pack)
        d.felt.load_shoe(pack)
        self.stub = list(pack)
        self.packs.append(pack)
        self.bottoms.append(pack[-1])

    def _discards(self, held: list[str]) -> list[str]:
        """The cards a plain player throws, least useful first (at most three)."""
        rng = self.dealer.rng
        names = self._names(held)
        rank = {u: RANKS.index(n[0]) for u, n in zip(held, names, strict=True)}
        low_first = sorted(held, key=lambda u: rank[u])
        if rng.random() < WHIM:
            return low_first[: rng.randint(0, MAX_DRAW)]
        category = rank5(names)[0]
        if category in PAT:
            return []
        counts = Counter(rank.values())
        if category > 0:  # a pair, two pair, three of a kind: keep the made cards
            return [u for u in low_first if counts[rank[u]] == 1][:MAX_DRAW]
        suits = Counter(n[1] for n in names)
        suit, most = suits.most_common(1)[0]
        if most == 4:  # four to a flush
            return [u for u, n in zip(held, names, strict=True) if n[1] != suit]
        return low_first[:MAX_DRAW]  # keep the two highest

    def _names(self, uids: Iterable[str]) -> tuple[str, ...]:
        return self.dealer.cards(uids)
