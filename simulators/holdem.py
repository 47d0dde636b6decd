"""Texas Hold'em as a careful dealer deals it, on the shared dealer (``simulators.dealer``).

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

The procedure is that of every flop game: what sets one apart (``FlopGame``) is how many hole
cards each seat gets and which fives may play at the showdown. Pot-limit Omaha is the same
hand with four hole cards and its own showdown rule (``simulators.omaha``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simulators.betting import Action, BettingRound, Limit
from simulators.dealer import Dealer, HandSettings
from simulators.handeval import HandValue, best_hand
from simulators.records import ActionRecord, HandRecord, PotAward
from simulators.script import HandScript, ScriptAction, ScriptError

__all__ = ["HOLDEM", "STREETS", "FlopGame", "play_flop_game", "play_holdem"]

STREETS: tuple[tuple[str, int], ...] = (("flop", 3), ("turn", 1), ("river", 1))


@dataclass(frozen=True)
class FlopGame:
    """What one flop game deals differently from another: the rest of the hand is the same."""

    variant: str
    """The name a table, a record and a script give the game."""
    hole_cards: int
    """Hole cards per seat: the deal is that many rounds of one card to each seat."""
    strength: Callable[[Sequence[str], Sequence[str]], HandValue]
    """(hole cards, board) -> the best hand the game lets them make."""


def _best_of_all(hole: Sequence[str], board: Sequence[str]) -> HandValue:
    """Hold'em: the best five of the seven, whatever mix of hole and board (RANK-13)."""
    return best_hand([*hole, *board])


HOLDEM = FlopGame("holdem", 2, _best_of_all)


def play_holdem(
    dealer: Dealer, settings: HandSettings, number: int, script: HandScript | None = None
) -> HandRecord:
    """Deal hand ``number`` of hold'em at the dealer's button, as ``script`` says if given
    (players left without script actions decide at random)."""
    return play_flop_game(HOLDEM, dealer, settings, number, script)


def play_flop_game(
    game: FlopGame,
    dealer: Dealer,
    settings: HandSettings,
    number: int,
    script: HandScript | None = None,
) -> HandRecord:
    """Deal hand ``number`` of ``game`` at the dealer's button, as ``script`` says if given."""
    cursor = _ScriptCursor(script) if script is not None else None
    return _FlopHand(game, dealer, settings, number, cursor).play()


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


class _FlopHand:
    """One hand, from NEWHAND to the collection of the cards."""

    def __init__(
        self,
        game: FlopGame,
        dealer: Dealer,
        settings: HandSettings,
        number: int,
        script: _ScriptCursor | None,
    ) -> None:
        self.game = game
        self.dealer = dealer
        self.settings = settings
        self.script = script
        self.hand = dealer.open_hand(number)
        self.pushed: tuple[dict[int, int], list[PotAward]] | None = None
        """An uncontested hand pushed to its winner from the bet zones: its awards."""

    def play(self) -> HandRecord:
        d, settings, hand, script = self.dealer, self.settings, self.hand, self.script
        order = hand.order
        sb, bb = (hand.button, order[0]) if len(order) == 2 else (order[0], order[1])
        stacks_before = d.newhand(hand)  # after the shuffle and cut (``VirtualTable``)
        self._post_antes(bb)

        bets: dict[int, int] = {}
        for seat, amount, name in (
            (sb, settings.small_blind, "post_small_blind"),
            (bb, settings.big_blind, "post_big_blind"),
        ):
            bets[seat] = d.put_in(hand, seat, min(amount, d.playable(seat)))
            if bets[seat]:
                hand.actions.append(
                    ActionRecord("preflop", seat, name, bets[seat], d.all_in(seat), bets[seat])
                )

        for _ in range(self.game.hole_cards):  # one card a round, from the button's left
            for seat in order:
                uid = self._deal(f"S{seat}")
                hand.hole.setdefault(seat, []).append(uid)

        first = order.index(bb) + 1
        fixed = settings.limit is Limit.FIXED_LIMIT
        preflop = self._round(
            order[first:] + order[:first],
            "preflop",
            bets=bets,
            high=settings.big_blind,
            raises=1 if fixed else 0,  # the big blind is the first fixed-limit bet
        )
        self._betting(preflop, "preflop")
        self._close_round()

        for street, count in STREETS:
            if len(hand.live) < 2:
                break
            if script is not None:
                script.board(street, count)
            hand.burns.append(self._deal("BURN"))
            hand.board.extend(self._deal("BOARD") for _ in range(count))
            in_hand = [seat for seat in order if seat in hand.live]
            self._betting(self._round(in_hand, street), street)
            self._close_round()

        if script is not None:
            script.finish()
        showdown = len(hand.live) >= 2
        winners, pots = self._award(showdown)
        d.collect(hand)
        return self._finish(sb, bb, stacks_before, showdown, winners, pots)

    def _close_round(self) -> None:
        """The round is over: its bets are gathered, unless everyone else folded and the
        dealer, by habit, pushes them to the winner straight from the bet zones."""
        d, hand = self.dealer, self.hand
        if len(hand.live) < 2 and self.pushed is None and d.pushes_from_zones():
            self.pushed = d.push_uncontested(hand, sum(hand.antes.values()))
        elif self.pushed is None:
            d.gather(hand)

    def _post_antes(self, bb: int) -> None:
        """Antes straight into the pot, before the blinds: one movement, one inventory."""
        if not self.settings.ante:
            return
        payers = self.hand.order if self.settings.ante_mode == "each" else [bb]
        self.dealer.post_antes(self.hand, payers, self.settings.ante, "preflop")

    def _deal(self, zone: str) -> str:
        """The next card of the shuffled shoe into ``zone``."""
        return self.dealer.deal(self.hand, self.hand.shoe[len(self.hand.deal)], zone)

    def _bet_size(self, street: str) -> int:
        """The minimum bet (no-limit, pot-limit) or the fixed bet (fixed-limit) of a round."""
        if self.settings.limit is Limit.FIXED_LIMIT and street in ("turn", "river"):
            return 2 * self.settings.big_blind
        return self.settings.big_blind

    def _round(
        self,
        order: list[int],
        street: str,
        bets: dict[int, int] | None = None,
        high: int = 0,
        raises: int = 0,
    ) -> BettingRound:
        return BettingRound(
            order=order,
            stacks={s: self.dealer.playable(s) for s in order},
            bets=dict(bets or {}),
            high=high,
            limit=self.settings.limit,
            min_raise=self._bet_size(street),
            pot=self.hand.pot.value,
            raises=raises,
        )

    def _decide(self, rnd: BettingRound, seat: int) -> tuple[Action, int | None]:
        """A random player.

        With ``aggression`` it bets or raises now and then, less often the more the round has
        seen; otherwise it calls or folds when facing a bet, and checks when not, now and then
        folding anyway, but only while at least two others can still bet, so that nobody gives
        up a pot against players who are all-in.
        """
        rng, settings = self.dealer.rng, self.settings
        legal = rnd.legal(seat)
        wager = next((a for a in legal if a in (Action.BET, Action.RAISE)), None)
        if (
            settings.aggression > 0
            and wager is not None
            and rng.random() < settings.aggression / (1 + rnd.raises)
        ):
            return wager, self._wager_size(rnd, seat)
        if Action.CALL in legal:
            folds = rng.random() < settings.fold_probability
            return (Action.FOLD if folds else Action.CALL), None
        others = sum(1 for o in rnd.order if o != seat and rnd.can_act(o))
        if others >= 2 and rng.random() < settings.fold_probability / 3:
            return Action.FOLD, None
        return Action.CHECK, None

    def _wager_size(self, rnd: BettingRound, seat: int) -> int:
        """All-in (or the limit's maximum), the minimum, or anything in between."""
        rng, share, unit = self.dealer.rng, self.settings.all_in_share, self.dealer.unit
        bounds = rnd.raise_range(seat)
        assert bounds is not None
        low, high = bounds
        r = rng.random()
        if r < share:
            return high
        if r < (1 + share) / 2:
            return low
        return rng.randint(low // unit, high // unit) * unit

    def _betting(self, rnd: BettingRound, street: str) -> None:
        d, hand, script = self.dealer, self.hand, self.script
        while (seat := d.next_actor(rnd)) is not None:
            if script is not None and script.next_action() is not None:
                action, to = script.decide(rnd, seat, street)
            else:
                action, to = self._decide(rnd, seat)
            moved = rnd.act(seat, action, to)
            if action is Action.FOLD:
                hand.live.discard(seat)
                hand.folds.append(seat)
                d.felt.move_cards(hand.hole[seat], "MUCK")
            elif action is Action.CHECK:
                d.felt.press("CHECK", str(seat))
            else:
                d.put_in(hand, seat, moved)
            hand.actions.append(
                ActionRecord(street, seat, action.value, moved, d.all_in(seat), rnd.bets[seat])
            )

    def _award(self, showdown: bool) -> tuple[dict[int, int], list[PotAward]]:
        d, hand = self.dealer, self.hand
        if self.pushed is not None:
            return self.pushed
        strength: dict[int, HandValue] = {}
        if showdown:
            board = list(d.cards(hand.board))
            for seat in hand.live:
                strength[seat] = self.game.strength(d.cards(hand.hole[seat]), board)
        return d.pay(hand, strength, sum(hand.antes.values()))

    def _finish(
        self,
        sb: int,
        bb: int,
        stacks_before: dict[int, int],
        showdown: bool,
        winners: dict[int, int],
        pots: list[PotAward],
    ) -> HandRecord:
        d, settings, hand = self.dealer, self.settings, self.hand
        stacks_after, left = d.settle(hand, stacks_before, winners)
        return HandRecord(
            number=hand.number,
            button=hand.button,
            seats=tuple(hand.order),
            small_blind_seat=sb,
            big_blind_seat=bb,
            stacks_before=stacks_before,
            hole_cards={seat: d.cards(uids) for seat, uids in hand.hole.items()},
            board=d.cards(hand.board),
            burns=d.cards(hand.burns),
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
            returned=dict(hand.returned),
            pots=tuple(pots),
            stack_changes=d.seats.during(hand.number),
            limit=settings.limit.value,
            small_blind=settings.small_blind,
            big_blind=settings.big_blind,
            ante=settings.ante,
            ante_mode=settings.ante_mode,
            unit=d.unit,
            variant=self.game.variant,
            outcome="showdown" if showdown else "uncontested",
        )
